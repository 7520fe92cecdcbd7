#!/usr/bin/env bash
# The main job in one command: installs what is missing, builds gapscope, then
#  - with an NVIDIA GPU and the CUDA Toolkit: records the decode-starvation demo
#    under the collector and prints gapscope's report of it;
#  - without a GPU: prints the report of the bundled trace that was recorded on
#    an NVIDIA H200 (samples/).
# Usage: tools/quickstart.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tools/deps.sh # only what building and running need; tools/test.sh installs the rest
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DGAPSCOPE_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
gs="$build/bin/gapscope"
demo="$build/bin/gs_demo_decode_starvation"
if nvidia-smi -L >/dev/null 2>&1 && [ -x "$demo" ] && [ -f "$build/lib/libgapscope.so" ]; then
  mkdir -p out
  "$gs" record -o out/decode_starvation.db -- "$demo"
  exec "$gs" report out/decode_starvation.db
fi
echo "(no GPU here: reporting on the bundled trace recorded on an NVIDIA H200)" >&2
exec "$gs" report samples/h200-decode-starvation.db
