#!/usr/bin/env bash
# Runs on the GPU test machine, from the repository root, with a build folder
# made elsewhere and carried along (${GS_BUILD:-build}, bundled with
# tools/bundle-runtime.sh): three real programs, each once untraced and once
# under `gapscope record`, so their traces can be checked against gap model v2
# and their wall times compared:
#   gap_phases   $GS_BUILD/tests/gs_gap_phases (tests/gpu/gap_phases.cu)
#   train_loop   bench/real/train_loop.py (PyTorch, DataLoader workers)
#   hf_generate  bench/real/hf_generate.py (transformers generate)
#   graph_check  bench/real/graph_check.py (eager loop, then the step as a CUDA graph)
# Into ${OUT:-out}: <name>.untraced.log, <name>.traced.log (stdout and stderr),
# <name>.db.xz (one per CUDA process; a second one is <name>-<pid>.db.xz),
# where Nsight Systems is installed <name>.nsys.db.xz (its SQLite export of a
# third run, for `gapscope import`) and <name>.nsys.log,
# and realprogs.log (exit status and time of every run). A .xz of 16 MiB or
# more is split into <file>.0, <file>.1 ... (reassemble: cat <file>.* > <file>).
# Every run is limited to 240 s; a failed run is logged and the next one goes on.
# Usage: GS_BUILD=build OUT=out tools/gpu-realprogs.sh
set -u
cd "$(dirname "$0")/.." || exit 1
GS_BUILD=${GS_BUILD:-build}
OUT=${OUT:-out}
mkdir -p "$OUT" || exit 1
log="$OUT/realprogs.log"
: >"$log"
# A collector setting left in the caller's environment would change what is
# measured (and would inject the collector into the untraced runs).
. tools/gpu-env.sh
gs_clean_env

gs="$GS_BUILD/bin/gapscope"
names=(gap_phases train_loop hf_generate graph_check py_work_loop)
declare -A cmds=(
	[gap_phases]="$GS_BUILD/tests/gs_gap_phases"
	[train_loop]="python3 bench/real/train_loop.py"
	[hf_generate]="python3 bench/real/hf_generate.py"
	[graph_check]="python3 bench/real/graph_check.py"
	[py_work_loop]="python3 bench/real/py_work_loop.py"
)

run() { # run <label> <logfile> <command...>: time-limited, status into $log
	local label=$1 out=$2 t0 t1 rc
	shift 2
	echo "=== $label: $*" | tee -a "$log"
	t0=$(date +%s%N)
	timeout -k 10 240 "$@" >"$out" 2>&1
	rc=$?
	t1=$(date +%s%N)
	tail -n 15 "$out" >>"$log"
	echo "=== $label: exit $rc in $(((t1 - t0) / 1000000)) ms" | tee -a "$log"
}

{ nvidia-smi -L; python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'; } >>"$log" 2>&1

# Nsight Systems, where the machine has it: the same programs once more
# under nsys, exported to SQLite, so that `gapscope import` of its export
# can be compared with `gapscope record` of the same program (docs/import.md)
nsys_bin=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys \
	2>/dev/null | head -n 1)
echo "nsys: ${nsys_bin:-not found}" >>"$log"

for name in "${names[@]}"; do
	read -r -a cmd <<<"${cmds[$name]}"
	rm -f "$OUT/$name".db* "$OUT/$name"-[0-9]*.db* "$OUT/$name".nsys*
	run "$name untraced" "$OUT/$name.untraced.log" "${cmd[@]}"
	run "$name traced" "$OUT/$name.traced.log" "$gs" record -o "$OUT/$name.db" -- "${cmd[@]}"
	if [ -n "$nsys_bin" ]; then
		run "$name nsys" "$OUT/$name.nsys.log" "$nsys_bin" profile --trace=cuda,nvtx \
			--cuda-graph-trace=node --export=sqlite --force-overwrite=true \
			-o "$OUT/$name.nsys" "${cmd[@]}"
		rm -f "$OUT/$name.nsys.nsys-rep" "$OUT/$name.nsys.qdrep"
		[ -f "$OUT/$name.nsys.sqlite" ] && mv "$OUT/$name.nsys.sqlite" "$OUT/$name.nsys.db"
	fi
done

# What comes back from the GPU machine is limited to files of 16 MiB: fold
# the WAL into each database (its last writes may still sit in <db>-wal), then
# compress; xz removes the .db once the .xz is written.
for db in "$OUT"/*.db; do
	[ -f "$db" ] || continue
	if python3 -c "import sqlite3,sys;c=sqlite3.connect(sys.argv[1]);c.execute('PRAGMA wal_checkpoint(TRUNCATE)');c.close()" "$db"; then
		rm -f "$db-wal" "$db-shm" # empty now (SQLite removes them itself on the last close)
	else
		echo "checkpoint of $db failed: its -wal is left beside it, uncompressed" | tee -a "$log"
	fi
	xz -T0 -6 -f "$db" || { echo "xz of $db failed" | tee -a "$log"; continue; }
	if [ "$(stat -c %s "$db.xz")" -ge $((16 * 1024 * 1024)) ]; then
		echo "$db.xz is 16 MiB or more: split into $db.xz.N" | tee -a "$log"
		split -b 15M -a 1 -d "$db.xz" "$db.xz." && rm -f "$db.xz"
	fi
done
ls -la "$OUT" | tee -a "$log"
