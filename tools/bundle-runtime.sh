#!/usr/bin/env bash
# Copies the shared libraries that build/bin/gapscope needs beyond glibc and
# SQLite (Graphviz, jansson and their dependencies) into <build>/lib/bundled,
# so the build folder can be carried to a GPU machine that lacks them (the
# gapscope binary's RPATH looks there first). Libraries the profiled program
# loads are not affected: `gapscope record` execs the program, which does not
# inherit gapscope's RPATH.
# Usage: tools/bundle-runtime.sh [build-dir]   (default: build)
set -euo pipefail
build=${1:-build}
dest="$build/lib/bundled"
mkdir -p "$dest"
ldd "$build/bin/gapscope" | awk '/=> \//{print $1, $3}' | while read -r name path; do
  case "$name" in
  libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libutil.so*|ld-linux*|libgcc_s.so*|libsqlite3.so*) ;;
  *) [ "$path" -ef "$dest/$name" ] || cp -L "$path" "$dest/$name" ;;
  esac
done
ls "$dest"
# libunwind (the collector's faster unwinder for call sites, dlopen'ed) for a
# GPU machine that lacks it: bench/overhead/run_unwinder_gpu.sh puts lib/unw on
# LD_LIBRARY_PATH there when the machine has no libunwind.so.8 of its own.
unw=$(ldconfig -p | awk '/libunwind\.so\.8 .*x86-64/{print $NF; exit}')
if [ -n "$unw" ]; then
  mkdir -p "$build/lib/unw"
  cp -L "$unw" "$build/lib/unw/"
  lz=$(ldd "$unw" | awk '/liblzma/{print $3}')
  [ -n "$lz" ] && cp -L "$lz" "$build/lib/unw/"
  ls "$build/lib/unw"
fi
