#!/usr/bin/env bash
# Builds gapscope with warnings as errors and ASan+UBSan, and runs the test
# suite (unit and CLI tests; GPU tests skip themselves where there is no GPU).
# Then builds everything again with clang, warnings as errors, in
# <build-dir>-clang (clang warns where GCC does not: -Wstring-plus-int, ...);
# the suite is not run a second time.
# Installs the Debian packages it needs first (tools/deps.sh test).
# Usage: tools/test.sh [build-dir]   (default: build-test)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-test}
tools/deps.sh test
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DGAPSCOPE_WERROR=ON -DGAPSCOPE_SANITIZE=ON
cmake --build "$build" -j"$(nproc)"
# detect_leaks stays on: the tests must not leak. Graphviz 2.42 and fontconfig
# keep caches they never free; those two libraries (only) are suppressed.
export LSAN_OPTIONS="suppressions=$PWD/tests/cli/graph/lsan.supp:print_suppressions=0"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
# the second compiler: every target (tests and benchmarks too) must build
# without a warning
cmake -S . -B "$build-clang" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DGAPSCOPE_WERROR=ON
cmake --build "$build-clang" -j"$(nproc)"
