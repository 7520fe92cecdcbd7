#!/usr/bin/env bash
# pyframes_versions.sh PROBE.so TEST.py - runs the Python-frame reader's test
# (tests/unit/test_pyframes.py) on every CPython the reader supports: 3.9,
# 3.10, 3.11, 3.12 and 3.13. Each version is looked for under pyenv
# ($PYENV_ROOT/versions/3.X.*/bin/python3.X, default ~/.pyenv) and then as
# python3.X on PATH; a version found nowhere prints
# "skipped: python3.X not found" (never silently). Exits 1 when a version's
# test fails, 77 when no version was found, else 0. The probe does not link
# libpython, so one build serves every version.
set -u
probe=$1
test=$2
root=${PYENV_ROOT:-$HOME/.pyenv}
failed=0
ran=0
for minor in 9 10 11 12 13; do
	name=python3.$minor
	py=""
	for cand in "$root"/versions/3."$minor".*/bin/"$name"; do
		[ -x "$cand" ] && py=$cand
	done
	if [ -z "$py" ]; then
		py=$(command -v "$name" 2>/dev/null || true)
	fi
	if [ -z "$py" ]; then
		echo "skipped: $name not found"
		continue
	fi
	echo "== $name ($py)"
	"$py" "$test" "$probe"
	rc=$?
	case $rc in
	0) echo "passed: $name"; ran=$((ran + 1)) ;;
	77) echo "skipped: $name could not load the probe" ;;
	*) echo "FAILED: $name (exit $rc)"; failed=1; ran=$((ran + 1)) ;;
	esac
done
[ $failed -ne 0 ] && exit 1
[ $ran -eq 0 ] && exit 77
exit 0
