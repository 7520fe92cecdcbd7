#!/usr/bin/env bash
# collector_record_lib.sh <expect-driver> <build-dir> <lib-reldir> - `gapscope
# record` without GAPSCOPE_LIB finds the collector as ../lib/libgapscope.so
# beside bin/gapscope (the build tree; <lib-reldir> is where an installed one
# would be, named in the error). Where the collector was built (CUDA Toolkit present) it must
# inject exactly that file; where it was not, record must refuse with the
# one-line "collector library not found" message and exit 2.
set -u
expect=$1
build=$2
reldir=$3
unset GAPSCOPE_LIB CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
lib="$build/lib/libgapscope.so"
if [ -f "$lib" ]; then
  real=$(cd "$(dirname "$lib")" && pwd -P)/libgapscope.so
  exec "$expect" --rc 0 --stdout-line "$real $real" --stderr-lines 1 \
    -- "$build/bin/gapscope" record -o none.db -- /bin/sh -c 'echo "$CUDA_INJECTION64_PATH $NVTX_INJECTION64_PATH"'
fi
exec "$expect" --rc 2 --stdout-empty \
  --stderr-exact "gapscope: $build/bin/../lib/libgapscope.so: collector library not found there nor at $build/bin/$reldir/libgapscope.so (was gapscope built with the CUDA Toolkit?); set GAPSCOPE_LIB=/path/to/libgapscope.so" \
  -- "$build/bin/gapscope" record -- /bin/true
