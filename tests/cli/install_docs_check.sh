#!/usr/bin/env bash
# install_docs_check.sh GAPSCOPE MAN_DIR COMPLETION - the man page sources and
# the bash completion list every verb of `gapscope --help` and every option
# of `gapscope <verb> --help`, so that a new option cannot be forgotten there.
set -u
gs=$1 man=$2 comp=$3
bad=0
verbs=$("$gs" --help | sed -n 's/^  \([a-z]\+\) .*/\1/p')
[ -n "$verbs" ] || { echo "install_docs_check: no verbs in gapscope --help" >&2; exit 1; }
for v in $verbs; do
  page=$man/gapscope-$v.1.scd
  [ -f "$page" ] || { echo "missing man page source $page" >&2; bad=1; continue; }
  grep -q "\*$v\*" "$man/gapscope.1.scd" || { echo "gapscope.1.scd does not list '$v'" >&2; bad=1; }
  grep -qF "*gapscope-$v*(1)" "$man/gapscope.1.scd" || { echo "gapscope.1.scd does not refer to gapscope-$v(1)" >&2; bad=1; }
  grep "^[[:space:]]*local verbs=" "$comp" | grep -qw "$v" || { echo "completion does not know the verb '$v'" >&2; bad=1; }
  # the options are on the lines that start with one (not in examples)
  for o in $("$gs" "$v" --help | grep -E -- '^ +(-[a-zA-Z], )?--[a-z]' |
               grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -q -- "\*$o\*" "$page" || { echo "$page does not describe $o" >&2; bad=1; }
    grep -q -- "$o[ \"]" "$comp" || { echo "completion does not offer '$v $o'" >&2; bad=1; }
  done
done
[ $bad -eq 0 ] && echo "install_docs_check: ok ($(echo $verbs))"
exit $bad
