#!/bin/sh
# callsite_check.sh GAPSCOPE MKDB DB - the report names call sites, and
# --by-site totals them (values worked out by hand in callsite_mkdb.c).
set -u
gs=$1 mk=$2 db=$3
fail=0
"$mk" "$db" || { echo "FAIL: callsite_mkdb"; exit 1; }
out=$("$gs" report "$db") || { echo "FAIL: report exit $?"; exit 1; }
expect() { # text, pattern (fixed string)
	if printf '%s\n' "$1" | grep -qF -- "$2"; then echo "ok: $2"; else echo "FAIL: missing: $2"; fail=1; fi
}
expect "$out" 'at train.py:27 (in `train_one_epoch`): 1 call, 7.900 us GPU idle'
expect "$out" 'at `copy_results_back` in demo+0x1a2b: 1 call, 6.900 us GPU idle'
out=$("$gs" report --by-site "$db") || { echo "FAIL: report --by-site exit $?"; exit 1; }
expect "$out" '7.900 us       7.900 us        1      1  train.py:27 (in `train_one_epoch`) / cudaStreamSynchronize'
expect "$out" '6.900 us       6.900 us        1      1  `copy_results_back` in demo+0x1a2b / cudaMemcpy'
expect "$out" '2.100 us           0 ns        0      1  train.py:30 (in `train_one_epoch`) / cudaLaunchKernel'
# top site first
first=$(printf '%s\n' "$out" | grep -A2 'GPU idle by call site' | tail -1)
case $first in *train.py:27*) echo "ok: top site first" ;; *) echo "FAIL: top site: $first"; fail=1 ;; esac
exit $fail
