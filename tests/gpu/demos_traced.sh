#!/usr/bin/env bash
# demos_traced.sh - GPU test: one demo under the collector.
#
# usage: demos_traced.sh BIN_DIR DEMO WORK_DIR
# Runs `gapscope record -o WORK_DIR/DEMO.db -- BIN_DIR/gs_demo_DEMO --quick`,
# then checks that the demo passed its own correctness checks (exit status 0
# and last line "result: PASS") and that the database holds the demo's phases
# as NVTX ranges (demos_check_nvtx.py). Exits 77 (skip) without a GPU; it
# does not judge timings.
set -u
bin_dir=$1 demo=$2 work=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
	echo "no NVIDIA GPU here: skipped"
	exit 77
fi
mkdir -p "$work" || exit 1
db="$work/$demo.db"
log="$work/$demo.log"
rm -f "$db" "$db-wal" "$db-shm"
args=(--quick)
[ "$demo" = graph_conversion ] && args+=(--dot-dir "$work")
"$bin_dir/gapscope" record -o "$db" -- "$bin_dir/gs_demo_$demo" "${args[@]}" >"$log" 2>&1
rc=$?
cat "$log"
verdict=$(grep '^result: ' "$log" | tail -1)
if [ $rc != 0 ] || [ "$verdict" != "result: PASS" ]; then
	echo "FAIL: traced $demo: exit $rc, '${verdict:-no result line}'"
	exit 1
fi
if [ ! -f "$db" ]; then
	echo "FAIL: no database $db"
	exit 1
fi
python3 "$here/demos_check_nvtx.py" "$db" "$demo"
