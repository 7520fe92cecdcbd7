#!/usr/bin/env bash
# collector_expect.sh - runs one command of a CLI test and checks its exit
# code AND its output, so that each ctest case asserts both.
#
#   collector_expect.sh [checks...] -- command [args...]
# checks:
#   --rc N               exit code must be N (default 0)
#   --stdout-file F      stdout must equal file F exactly
#   --stdout-line L      stdout must contain the whole line L (repeatable)
#   --stdout-empty       stdout must be empty
#   --stderr-exact S     stderr must be exactly the one line S
#   --stderr-line L      stderr must contain the whole line L (repeatable)
#   --stderr-match RE    stderr must be exactly one line, matching the
#                        extended regular expression RE as a whole
#   --stderr-lines N     stderr must have exactly N lines
#   --env NAME=VALUE     run the command with this in its environment
# In expected strings, %3B stands for ';' and %5B for '[' (CMake splits
# arguments at ';', except inside unbalanced square brackets).
# It only compares; it knows nothing of gapscope's output formats.
set -u
want_rc=0
stdout_file=
stdout_empty=0
stderr_exact=
have_stderr_exact=0
stderr_lines=
stderr_match=
declare -a out_lines=() err_lines=() envs=()
semi() {
  local s=${1//%3B/;}
  printf '%s' "${s//%5B/[}"
}
while [ $# -gt 0 ]; do
  case $1 in
  --rc) want_rc=$2; shift 2 ;;
  --stdout-file) stdout_file=$2; shift 2 ;;
  --stdout-line) out_lines+=("$(semi "$2")"); shift 2 ;;
  --stdout-empty) stdout_empty=1; shift ;;
  --stderr-exact) stderr_exact=$(semi "$2"); have_stderr_exact=1; shift 2 ;;
  --stderr-line) err_lines+=("$(semi "$2")"); shift 2 ;;
  --stderr-match) stderr_match=$(semi "$2"); shift 2 ;;
  --stderr-lines) stderr_lines=$2; shift 2 ;;
  --env) envs+=("$2"); shift 2 ;;
  --) shift; break ;;
  *) echo "collector_expect.sh: unknown check '$1'" >&2; exit 99 ;;
  esac
done
[ $# -gt 0 ] || { echo "collector_expect.sh: no command" >&2; exit 99; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
env "${envs[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
rc=$?
fail=0
echo "--- command: $*"
echo "--- exit code: $rc"
echo "--- stdout:"; cat "$tmp/out"
echo "--- stderr:"; cat "$tmp/err"
echo "---"
if [ "$rc" != "$want_rc" ]; then
  echo "FAIL: exit code $rc, expected $want_rc"; fail=1
fi
if [ -n "$stdout_file" ] && ! diff -u "$stdout_file" "$tmp/out"; then
  echo "FAIL: stdout differs from $stdout_file"; fail=1
fi
if [ "$stdout_empty" = 1 ] && [ -s "$tmp/out" ]; then
  echo "FAIL: stdout is not empty"; fail=1
fi
for l in "${out_lines[@]}"; do
  grep -Fxq -- "$l" "$tmp/out" || { echo "FAIL: stdout lacks the line: $l"; fail=1; }
done
if [ "$have_stderr_exact" = 1 ] && [ "$(cat "$tmp/err")" != "$stderr_exact" -o "$(wc -l <"$tmp/err")" != 1 ]; then
  echo "FAIL: stderr is not exactly the line: $stderr_exact"; fail=1
fi
if [ -n "$stderr_match" ] && { [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -Exq -- "$stderr_match" "$tmp/err"; }; then
  echo "FAIL: stderr is not one line matching: $stderr_match"; fail=1
fi
for l in "${err_lines[@]}"; do
  grep -Fxq -- "$l" "$tmp/err" || { echo "FAIL: stderr lacks the line: $l"; fail=1; }
done
if [ -n "$stderr_lines" ] && [ "$(wc -l <"$tmp/err")" != "$stderr_lines" ]; then
  echo "FAIL: stderr has $(wc -l <"$tmp/err") lines, expected $stderr_lines"; fail=1
fi
[ $fail = 0 ] && echo PASS
exit $fail
