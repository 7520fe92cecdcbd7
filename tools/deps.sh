#!/usr/bin/env bash
# Installs the Debian packages gapscope needs. Safe to run twice.
#   tools/deps.sh         to build and run gapscope (the main job), and build
#                         its Debian package with man pages (scdoc) as the
#                         README's .deb line does
#   tools/deps.sh test    also what the tests need: cmocka, the graphviz and
#                         sqlite3 tools, python3, Chromium (browser checks of
#                         the HTML pages), libunwind8 (the collector's faster
#                         unwinder, tested both ways) and clang (CI builds
#                         with it too, warnings as errors)
# The collector and demos also need the CUDA Toolkit, which is not a Debian
# package here and is used when present; where it is (nvcc on PATH or in
# /usr/local/cuda), the main job also installs libunwind8: the collector's
# call sites then walk the stack with libunwind, 10-18x cheaper a capture
# than libgcc's unwinder (docs/collector.md, "Call sites of blocking calls";
# on the H200, which lacks it, libgcc's captures took 6-44 us each).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libsqlite3-dev libgraphviz-dev libjansson-dev
      libyajl-dev zlib1g-dev scdoc)
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  pkgs+=(libunwind8)
fi
case ${1:-} in
"") ;;
test) pkgs+=(sqlite3 libcmocka-dev graphviz python3 chromium libunwind8 clang) ;;
*) echo "usage: tools/deps.sh [test]" >&2; exit 2 ;;
esac
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
