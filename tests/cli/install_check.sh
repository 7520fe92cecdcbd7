#!/usr/bin/env bash
# install_check.sh CMAKE BUILD STAGE PREFIX BINDIR COLLECTOR_LIBDIR MANDIR
#                  DATADIR SAMPLE HAVE_CUDA HAVE_MAN VERSION [INSTALL_MD]
# Installs the build into STAGE (DESTDIR) and runs the installed gapscope from
# there. With INSTALL_MD (docs/install.md), the files installed are the ones
# its `dpkg -c` listing names (the .deb is this install under /usr, the
# collector's folder lib/<multiarch>/gapscope), docs/ pages aside.
# Prints what differs and exits 1 on the first failed check.
set -u
cmake=$1 build=$2 stage=$3 prefix=$4 bindir=$5 libdir=$6 mandir=$7 datadir=$8
sample=$9 have_cuda=${10} have_man=${11} version=${12} install_md=${13:-}
fail() { echo "install_check: $*" >&2; exit 1; }
is_on() { case ${1^^} in ON | 1 | TRUE | YES) return 0 ;; esac; return 1; }

rm -rf "$stage"
DESTDIR="$stage" "$cmake" --install "$build" >"$stage.log" 2>&1 || { cat "$stage.log"; fail "cmake --install failed"; }
root=$stage$prefix
gs=$root/$bindir/gapscope
[ -x "$gs" ] || fail "$gs not installed"
unset GAPSCOPE_LIB CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

# The report on the bundled H200 trace: its first two lines.
out=$("$gs" report "$sample") || fail "installed gapscope report exited $?"
want="gapscope report: $sample
selection: whole trace"
[ "$(printf '%s\n' "$out" | head -n 2)" = "$want" ] ||
  fail "report's first lines: got '$(printf '%s\n' "$out" | head -n 2)', want '$want'"
printf '%s\n' "$out" | grep -q '^Verdict: GPU busy ' || fail "report has no 'Verdict: GPU busy' line"

v=$("$gs" --version) || fail "--version exited $?"
case $v in "gapscope $version (trace schema "*")") ;; *) fail "--version printed '$v'" ;; esac

# record --help ends with the collector it would inject: the installed one.
help=$("$gs" record --help) || fail "record --help exited $?"
lib=$root/$libdir/libgapscope.so
if is_on "$have_cuda"; then
  [ -f "$lib" ] || fail "$lib not installed"
  real=$(cd "$(dirname "$lib")" && pwd -P)/libgapscope.so
  [ "$(printf '%s\n' "$help" | tail -n 1)" = "collector: $real" ] ||
    fail "record --help's last line: '$(printf '%s\n' "$help" | tail -n 1)', want 'collector: $real'"
else
  [ "$(printf '%s\n' "$help" | tail -n 1)" = "collector: not found (set GAPSCOPE_LIB)" ] ||
    fail "record --help's last line (no CUDA build): '$(printf '%s\n' "$help" | tail -n 1)'"
fi
# The installed binary must not look for libraries in the build's bundle.
if command -v readelf >/dev/null && readelf -d "$gs" | grep -q 'R.*PATH'; then
  fail "installed gapscope has an RPATH: $(readelf -d "$gs" | grep 'R.*PATH')"
fi

[ -f "$root/$datadir/bash-completion/completions/gapscope" ] || fail "bash completion not installed"
bash -n "$root/$datadir/bash-completion/completions/gapscope" || fail "bash completion: syntax error"
if is_on "$have_man"; then
  for p in gapscope gapscope-record gapscope-info gapscope-report gapscope-html gapscope-graph \
           gapscope-export gapscope-diff; do
    f=$root/$mandir/man1/$p.1.gz
    [ -f "$f" ] || fail "$f not installed"
    zcat "$f" | grep -q '^\.TH "'"$p"'" "1"' || fail "$f: no .TH header"
  done
fi
# docs/install.md's listing of the package: the same files, in the package's
# places (docs/ pages are one line there: they change with every page)
if [ -n "$install_md" ]; then
  listed=$(awk '/^`dpkg -c gapscope_/ { m = 1 } m && /^```$/ { if (++f == 2) exit; next } f == 1' "$install_md" |
    sed -n 's/^-[rwx-]\{9\} \+\.\/\(.*\)$/\1/p' |
    grep -v '^usr/share/doc/gapscope/docs/' | sort)
  [ -n "$listed" ] || fail "$install_md: no dpkg -c listing found"
  if ! is_on "$have_cuda"; then # what only a CUDA build installs
    listed=$(printf '%s\n' "$listed" | grep -v -e '/libgapscope\.so$' -e '/gapscope-calibrate$')
  fi
  is_on "$have_man" || listed=$(printf '%s\n' "$listed" | grep -v '^usr/share/man/')
  installed=$(cd "$root" && find . -type f | sed 's|^\./||' | grep -v '^share/doc/gapscope/docs/' |
    sed "s|^$libdir/|lib/x86_64-linux-gnu/gapscope/|; s|^|usr/|" | sort)
  d=$(diff <(printf '%s\n' "$listed") <(printf '%s\n' "$installed")) ||
    fail "$install_md's dpkg -c listing (<) and the install (>) differ:
$d"
fi
# The demos are a component of their own, not in a plain install.
[ -z "$(find "$stage" -name 'gs_demo_*' -print -quit)" ] || fail "a plain install installed the demos"
rm -rf "$stage" "$stage.log"
echo "install_check: ok ($root)"
