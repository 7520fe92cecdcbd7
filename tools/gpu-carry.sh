#!/usr/bin/env bash
# Makes a slim copy of a build folder that the GPU machine can be given
# (the device tool carries at most 64 MiB; a whole build folder is ~180 MiB
# of objects, static libraries and test databases): the programs and
# libraries the GPU scripts run (tests/gpu/*, bench/*, demos/run_all,
# tools/gpu-session.sh), with bin/gapscope's own libraries bundled
# (tools/bundle-runtime.sh) and libunwind for a machine without it.
# Usage: tools/gpu-carry.sh BUILD DEST      e.g. tools/gpu-carry.sh build .devrun/b
# Then on the GPU machine: GS_BUILD=DEST tools/gpu-session.sh ...  (DEST must
# be a path git ignores, named in the device tool's carry list).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: tools/gpu-carry.sh BUILD DEST" >&2; exit 2; }
build=$1 dest=$2
[ -x "$build/bin/gapscope" ] && [ -f "$build/lib/libgapscope.so" ] ||
  { echo "gpu-carry: $build has no bin/gapscope or lib/libgapscope.so (build with CUDA first)" >&2; exit 2; }
bash tools/bundle-runtime.sh "$build" > /dev/null
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/tests"
for f in "$build"/bin/*; do
  case $(basename "$f") in
  writer_throughput | gs_gen_trace | callsite_capture) ;; # CPU benchmarks: run them here
  *) cp "$f" "$dest/bin/" ;;
  esac
done
for f in libgapscope.so gapscope-calibrate libgs_sampler.so libgs_launch_interpose.so; do
  [ -f "$build/lib/$f" ] && cp "$build/lib/$f" "$dest/lib/"
done
cp -r "$build/lib/bundled" "$dest/lib/"
[ -d "$build/lib/unw" ] && cp -r "$build/lib/unw" "$dest/lib/"
for f in "$build"/tests/gs_*; do
  [ -f "$f" ] && [ -x "$f" ] && cp "$f" "$dest/tests/"
done
du -sh "$dest"
