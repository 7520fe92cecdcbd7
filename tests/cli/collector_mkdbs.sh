#!/usr/bin/env bash
# collector_mkdbs.sh <collector_mkdb-binary> <dir> - the fixture of the
# `gapscope info` CLI tests: writes every test database into <dir>, the
# good ones through collector_mkdb (real schema), the broken ones from them.
set -euo pipefail
mkdb=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
for v in full cutshort v99 foreign ctrl walcut; do
  "$mkdb" "$dir/$v.db" "$v"
done
# A multi-page database cut inside its first page, as a copy interrupted
# early would leave it (full.db has one page per table: > 60 KiB).
head -c 3000 "$dir/full.db" >"$dir/truncated.db"
printf 'kernel,start,end\nk,1,2\n' >"$dir/notsqlite.db"
: >"$dir/empty.db"
mkdir -p "$dir/adir.db"
# A stand-in for libgapscope.so: `record` checks that the library exists and
# is an ELF shared object; non-CUDA programs never load it. An empty one,
# built with the C compiler the project is built with.
printf 'void gs_standin(void) {}\n' | ${CC:-cc} -shared -fPIC -x c - -o "$dir/libgapscope-standin.so" || exit 1
# and a file that is not a library, for record_library_not_elf
printf 'not a library\n' >"$dir/not-a-lib.so"
