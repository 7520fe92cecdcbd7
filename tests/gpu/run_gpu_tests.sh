#!/usr/bin/env bash
# run_gpu_tests.sh - the collector's GPU tests, run on a machine with an
# NVIDIA GPU from the repository root with a build folder made elsewhere:
#
#   GS_BUILD=build OUT=out tests/gpu/run_gpu_tests.sh
#
# GS_BUILD (default build): the build folder (bin/gapscope, lib/libgapscope.so,
# tests/gs_collector_smoke). OUT (default out): where the databases and logs go
# (OUT/collector-gpu/). Prints PASS/FAIL per check and a final
# "N passed, N failed" line; exits 1 if anything failed, 77 (skipped) where
# `nvidia-smi -L` finds no GPU. The PyTorch checks are skipped (SKIP lines, not
# failures) when python3 cannot import torch. It does not judge timings: the
# overhead figures come from bench/overhead/run_overhead.sh.
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
OUT=${OUT:-out}
W="$OUT/collector-gpu"
# Start clean: a collector setting or another injection in the caller's
# environment would change what is measured.
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu

mkdir -p "$W" || exit 1
rm -f "$W"/*.db "$W"/*.db-wal "$W"/*.db-shm "$W"/*.log

gs="$B/bin/gapscope"
lib="$B/lib/libgapscope.so"
smoke="$B/tests/gs_collector_smoke"
checker=tests/gpu/check_collector.py
pass=0
fail=0
skip=0

result() { # result <0 = pass> <what>
	if [ "$1" = 0 ]; then
		echo "PASS: $2"
		pass=$((pass + 1))
	else
		echo "FAIL: $2"
		fail=$((fail + 1))
	fi
}
# Run the checker and add its PASS/FAIL lines to the totals.
run_checker() { # run_checker <label> <args...>
	local out p f
	out=$(python3 "$checker" "${@:2}" 2>&1)
	echo "$out" | sed "s/^/[$1] /"
	p=$(echo "$out" | grep -c '^PASS: ')
	f=$(echo "$out" | grep -c '^FAIL: ')
	pass=$((pass + p))
	fail=$((fail + f))
	[ $((p + f)) -gt 0 ] || result 1 "$1: checker ran no checks"
}
# Lines the collector printed: "gapscope: ..." on stderr, less record's
# closing line that names the database(s).
collector_lines() {
	grep '^gapscope: ' "$1" | grep -Ev '^gapscope: (trace written to |[0-9]+ traces written: |no trace written to )'
}
sql() { # sql <db> <query>: prints the single value
	python3 -c 'import sqlite3,sys; print(sqlite3.connect("file:"+sys.argv[1]+"?mode=ro",uri=True).execute(sys.argv[2]).fetchone()[0])' "$1" "$2" 2>&1 | tail -1
}

for f in "$gs" "$lib" "$smoke"; do
	[ -e "$f" ] || { result 1 "$f exists (build with the CUDA Toolkit and carry the build folder)"; }
done
if [ $fail -gt 0 ]; then
	echo "$pass passed, $fail failed"
	exit 1
fi
nvidia-smi -L

# Record the smoke program (further arguments passed on to it) into
# $W/<name>.db, and check what every clean run gives: exit status 0 (within
# 120 s), the program's own PASS, no collector warnings, and the checker's
# exact counts.
record_smoke() { # record_smoke <name> <label> [smoke args...]
	local name=$1 label=$2 rc n
	shift 2
	timeout 120 "$gs" record -o "$W/$name.db" -- "$smoke" "$@" >"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	cat "$W/$name.out" "$W/$name.err"
	result $rc "$label: exit status 0 (got $rc)"
	grep -qx 'result: PASS' "$W/$name.out"
	result $? "$label: the program's own results are right"
	n=$(collector_lines "$W/$name.err" | wc -l)
	[ "$n" = 0 ]
	result $? "$label: no collector warnings (got $n lines)"
	if [ -f "$W/$name.db" ]; then
		run_checker "$name" smoke "$W/$name.db" "$W/$name.out"
	else
		result 1 "$label: database $W/$name.db written"
	fi
}

# 1. The smoke program under `gapscope record`: exact counts.
db="$W/smoke.db"
record_smoke smoke "record smoke"
grep -qxF "gapscope: trace written to $db" "$W/smoke.err"
result $? "record smoke: record names the database it wrote"

v=$(sql "$db" "SELECT value FROM meta WHERE key = 'config.sync_source'")
[ "$v" = callbacks ]
result $? "record smoke: sync and event rows made from callbacks by default (config.sync_source = $v)"

# 1a. record calibrated first (gapscope-calibrate): every figure the
#     correction reads is in meta, the untraced ones of a plausible size
#     (an empty-kernel launch takes 1-50 us untraced on any current GPU; a
#     cudaGraphLaunch call 0.5-100 us plus at most 5 us a node)
v=$(sql "$db" "SELECT COUNT(*) FROM meta WHERE key IN ('calibration.launch_ns',
	'calibration.legacy_launch_ns', 'calibration.driver_launch_ns', 'calibration.kernel_ns',
	'calibration.gpu_gap_ns', 'calibration.graph_node_ns', 'calibration.plain_launch_ns',
	'calibration.plain_legacy_launch_ns', 'calibration.plain_driver_launch_ns',
	'calibration.graph_launch_ns', 'calibration.plain_graph_launch_ns',
	'calibration.plain_graph_node_ns')")
[ "$v" = 12 ]
result $? "record smoke: the calibration's 12 figures are in meta (got $v)"
v=$(sql "$db" "SELECT group_concat(key || '=' || value, ' ') FROM meta WHERE key LIKE 'calibration.%'")
echo "calibration: $v"
v=$(sql "$db" "SELECT (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'calibration.plain_launch_ns') BETWEEN 1000 AND 50000
	AND (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'calibration.plain_graph_launch_ns') BETWEEN 500 AND 100000
	AND (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'calibration.plain_graph_node_ns') BETWEEN 0 AND 5000")
[ "$v" = 1 ]
result $? "record smoke: untraced launch and graph launch figures of a plausible size"
# the time between back-to-back launch records (runtime records are on by
# default): present, and shorter than a traced launch call (H200 traces:
# 280-680 ns between the records of programs' launch loops)
v=$(sql "$db" "SELECT CAST(value AS INTEGER) BETWEEN 1 AND 20000 FROM meta WHERE key = 'calibration.launch_gap_ns'")
[ "$v" = 1 ]
result $? "record smoke: calibration.launch_gap_ns measured, 1-20000 ns (got '$v')"

# 1b. The same from CUPTI's SYNCHRONIZATION and CUDA_EVENT records
#     (GAPSCOPE_SYNC_SOURCE=cupti): the checker's counts are the same.
GAPSCOPE_SYNC_SOURCE=cupti record_smoke smoke-cupti "record smoke, sync rows from CUPTI"
v=$(sql "$W/smoke-cupti.db" "SELECT value FROM meta WHERE key = 'config.sync_source'")
[ "$v" = cupti ]
result $? "record smoke, sync rows from CUPTI: config.sync_source = cupti (got $v)"

# 2. gapscope info on it.
"$gs" info "$db" >"$W/info.out" 2>&1
rc=$?
cat "$W/info.out"
result $rc "info: exit status 0 (got $rc)"
grep -qxF "  kernels         100" "$W/info.out"
result $? "info: shows 100 kernels"
grep -qxF "finalized         yes" "$W/info.out"
result $? "info: shows the trace finalized"

# 3. Without `record`: the environment variables alone (the issue's 2nd form).
abs_lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
CUDA_INJECTION64_PATH="$abs_lib" NVTX_INJECTION64_PATH="$abs_lib" GAPSCOPE_OUTPUT="$W/env-%p.db" \
	"$smoke" >"$W/env.out" 2>"$W/env.err"
rc=$?
cat "$W/env.out" "$W/env.err"
result $rc "env form: exit status 0 (got $rc)"
envdbs=("$W"/env-*.db)
[ ${#envdbs[@]} = 1 ] && [ -f "${envdbs[0]}" ]
result $? "env form: one database env-<pid>.db written (got: ${envdbs[*]})"
if [ -f "${envdbs[0]}" ]; then run_checker env smoke "${envdbs[0]}" "$W/env.out"; fi

# 4. Options reach the collector: --latency fills queued/submitted;
#    --activities kernel records kernels and no API calls.
"$gs" record --latency -o "$W/latency.db" -- "$smoke" >"$W/latency.out" 2>&1
result $? "record --latency: exit status 0"
# CUPTI leaves the latency fields unknown for some launches even when on
# (collector/decode.c): require them on 90 of the 100 kernels, and in order.
v=$(sql "$W/latency.db" "SELECT count(*) FROM kernels WHERE queued IS NOT NULL AND submitted IS NOT NULL")
[ "$v" -ge 90 ] 2>/dev/null
result $? "record --latency: queued/submitted recorded for >= 90 of 100 kernels (got $v)"
v=$(sql "$W/latency.db" "SELECT count(*) FROM kernels WHERE queued > submitted OR submitted > start")
[ "$v" = 0 ]
result $? "record --latency: queued <= submitted <= start wherever recorded (bad rows: $v)"
"$gs" record --activities kernel -o "$W/konly.db" -- "$smoke" >"$W/konly.out" 2>&1
result $? "record --activities kernel: exit status 0"
v=$(sql "$W/konly.db" "SELECT (SELECT count(*) FROM kernels) || ' ' || (SELECT count(*) FROM api_calls) || ' ' || (SELECT count(*) FROM memcpys)")
[ "$v" = "100 0 0" ]
result $? "record --activities kernel: 100 kernels, 0 API calls, 0 memcpys (got: $v)"
v=$(sql "$W/konly.db" "SELECT value FROM meta WHERE key = 'config.activities'")
[ "$v" = kernel ]
result $? "record --activities kernel: meta config.activities = kernel (got: $v)"
# sync, event and stream are separate CUPTI kinds: sync alone gives the same
# explicit sync rows as the default recording and no event rows.
"$gs" record --activities kernel,runtime,sync -o "$W/sync.db" -- "$smoke" >"$W/sync.out" 2>&1
result $? "record --activities kernel,runtime,sync: exit status 0"
want=$(sql "$db" "SELECT count(*) FROM syncs WHERE implicit = 0")
v=$(sql "$W/sync.db" "SELECT (SELECT count(*) FROM syncs WHERE implicit = 0) || ' ' || (SELECT count(*) FROM events)")
[ -n "$want" ] && [ "$want" -gt 0 ] && [ "$v" = "$want 0" ]
result $? "record --activities kernel,runtime,sync: $want explicit syncs as by default, 0 events (got: $v)"

# 4b. Several CUDA processes given one fixed name: none replaces another's
#     trace. Two at once (the later one finds the name held: flock), and two
#     one after the other (the later one finds a trace written in this run):
#     each time two traces of 100 kernels, one warning, and record's closing
#     line names both.
for mode in together sequence; do
	rm -f "$W"/two-$mode*.db
	if [ $mode = together ]; then
		cmd='"$0" >/dev/null & "$0" >/dev/null; wait'
	else
		cmd='"$0" >/dev/null && "$0" >/dev/null'
	fi
	"$gs" record -o "$W/two-$mode.db" -- sh -c "$cmd" "$smoke" >"$W/two-$mode.out" 2>"$W/two-$mode.err"
	rc=$?
	cat "$W/two-$mode.err"
	result $rc "two processes, one name ($mode): exit status 0 (got $rc)"
	dbs=$(ls "$W"/two-$mode.db "$W"/two-$mode-[0-9]*.db 2>/dev/null)
	n=$(echo "$dbs" | grep -c .)
	[ "$n" = 2 ]
	result $? "two processes, one name ($mode): two traces (got: $(echo $dbs))"
	counts=""
	for d in $dbs; do counts="$counts $(sql "$d" "SELECT count(*) FROM kernels")"; done
	[ "$counts" = " 100 100" ]
	result $? "two processes, one name ($mode): 100 kernels in each (got:$counts)"
	n=$(grep -c "holds another process's trace of this run; this process (pid [0-9]*) records to .*/two-$mode-[0-9]*\.db " "$W/two-$mode.err")
	[ "$n" = 1 ]
	result $? "two processes, one name ($mode): one warning naming the other file (got $n)"
	grep -q "^gapscope: 2 traces written: " "$W/two-$mode.err"
	result $? "two processes, one name ($mode): record names both traces"
done

# 4c. A child forked from the recorded program (no exec, no CUDA in it)
#     that ends by exit() or by a SIGTERM to itself: it neither finalizes
#     the parent's trace nor hangs in the collector; the parent's recording
#     goes on and is complete (the smoke checker's exact counts).
for how in exit term; do
	record_smoke fork-$how "forked child ($how)" --fork-$how
	if [ $how = exit ]; then want="GS_SMOKE_CHILD exit=0"; else want="GS_SMOKE_CHILD signal=15"; fi
	grep -qx "$want" "$W/fork-$how.out"
	result $? "forked child ($how): the child ended by itself ($want)"
done

# 5. Fault: an output path that cannot be written. The program runs on,
#    right, with its own exit status, and the collector says so once.
CUDA_INJECTION64_PATH="$abs_lib" NVTX_INJECTION64_PATH="$abs_lib" \
	GAPSCOPE_OUTPUT=/nonexistent-dir/x.db "$smoke" >"$W/unwritable.out" 2>"$W/unwritable.err"
rc=$?
cat "$W/unwritable.out" "$W/unwritable.err"
result $rc "unwritable output: exit status 0 (got $rc)"
grep -qx 'result: PASS' "$W/unwritable.out"
result $? "unwritable output: the program's own results are right"
n=$(grep -c '^gapscope: ' "$W/unwritable.err")
[ "$n" = 1 ]
result $? "unwritable output: exactly one warning line (got $n)"

# 6. SIGTERM in the middle of a run: the collector flushes and finalizes,
#    chains to the default action, and record passes 128+15 through. The
#    signal can land while the launching thread is inside CUPTI: three runs.
for k in 1 2 3; do
	db="$W/killed-$k.db"
	"$gs" record --flush-ms 200 -o "$db" -- "$smoke" --forever >"$W/killed-$k.out" 2>"$W/killed-$k.err" &
	recpid=$!
	for _ in $(seq 600); do
		grep -q GS_SMOKE_LOOPING "$W/killed-$k.out" 2>/dev/null && break
		kill -0 $recpid 2>/dev/null || break
		sleep 0.1
	done
	sleep 1
	kill -TERM $recpid 2>/dev/null
	for _ in $(seq 300); do kill -0 $recpid 2>/dev/null || break; sleep 0.1; done
	kill -0 $recpid 2>/dev/null && { echo "still running after 30 s: SIGKILL"; kill -KILL $recpid; }
	wait $recpid
	rc=$?
	cat "$W/killed-$k.err"
	[ "$rc" = 143 ]
	result $? "SIGTERM run $k: record exits 143 (got $rc)"
	if [ -f "$db" ]; then run_checker killed killed "$db"; else result 1 "SIGTERM run $k: database $db written"; fi
done

# 6b. SIGKILL in the middle of a run: nothing can run in the process, so
#    the trace holds what the flush thread committed (every 200 ms here).
#    It must open, pass PRAGMA integrity_check, hold kernels, and `info`
#    must say it was cut short (not finalized, no recording holds it).
db="$W/sigkill.db"
rm -f "$db" "$db-wal" "$db-shm"
CUDA_INJECTION64_PATH="$abs_lib" NVTX_INJECTION64_PATH="$abs_lib" GAPSCOPE_OUTPUT="$db" \
	GAPSCOPE_FLUSH_MS=200 "$smoke" --forever >"$W/sigkill.out" 2>"$W/sigkill.err" &
kpid=$!
for _ in $(seq 600); do
	grep -q GS_SMOKE_LOOPING "$W/sigkill.out" 2>/dev/null && break
	kill -0 $kpid 2>/dev/null || break
	sleep 0.1
done
sleep 1.5 # several flush periods of looping
kill -KILL $kpid 2>/dev/null
wait $kpid 2>/dev/null
ic=$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("PRAGMA integrity_check").fetchone()[0], c.execute("SELECT count(*) FROM kernels").fetchone()[0], c.execute("SELECT value FROM meta WHERE key=\"finalized\"").fetchone()[0])' "$db" 2>&1)
echo "SIGKILL: integrity, kernels, finalized: $ic"
set -- $ic
[ "${1:-}" = ok ]
result $? "SIGKILL: the trace passes PRAGMA integrity_check (got ${1:-nothing})"
[ "${2:-0}" -gt 0 ] 2>/dev/null
result $? "SIGKILL: kernels up to the last flush are there (got ${2:-none})"
[ "${3:-}" = 0 ]
result $? "SIGKILL: meta finalized is 0 (got ${3:-none})"
"$gs" info "$db" >"$W/sigkill.info" 2>&1
grep -qi "cut short\|killed or crashed" "$W/sigkill.info"
result $? "SIGKILL: gapscope info says the recording was cut short"

# 7. PyTorch, unmodified, under record; then with torch.profiler active.
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	db="$W/torch.db"
	"$gs" record -o "$db" -- python3 tests/gpu/torch_smoke.py >"$W/torch.out" 2>"$W/torch.err"
	rc=$?
	cat "$W/torch.out" "$W/torch.err"
	result $rc "torch: exit status 0 (got $rc)"
	grep -qx 'result: PASS' "$W/torch.out"
	result $? "torch: the script's own results are right"
	if [ -f "$db" ]; then run_checker torch torch "$db"; else result 1 "torch: database $db written"; fi

	db="$W/torch-profiler.db"
	"$gs" record -o "$db" -- python3 tests/gpu/torch_smoke.py --profiler \
		>"$W/torch-profiler.out" 2>"$W/torch-profiler.err"
	rc=$?
	cat "$W/torch-profiler.out" "$W/torch-profiler.err"
	result $rc "torch + torch.profiler: exit status 0 (got $rc)"
	grep -qx 'result: PASS' "$W/torch-profiler.out"
	result $? "torch + torch.profiler: the script's own results are right"
	# The collector is first here (CUDA is initialised before the profiler
	# starts), so torch.profiler is the client that finds CUPTI taken: the
	# collector may warn once, never more. What each side recorded is shown
	# for the record (INFO lines), not judged.
	n=$(collector_lines "$W/torch-profiler.err" | wc -l)
	[ "$n" -le 1 ]
	result $? "torch + torch.profiler: at most one collector warning (got $n)"
	echo "INFO: torch + torch.profiler: collector lines: $n; other stderr lines naming CUPTI: $(grep -ci cupti "$W/torch-profiler.err")"
	if [ -f "$db" ]; then
		"$gs" info "$db" >"$W/torch-profiler.info" 2>&1
		echo "INFO: torch + torch.profiler: trace $(grep -E '^  kernels |^finalized|^warnings' "$W/torch-profiler.info" | tr -s ' ' | tr '\n' ';')"
	fi
	# torch.cuda.CUDAGraph: a graph made by stream capture (graphs.origin 2).
	db="$W/torch-cudagraph.db"
	"$gs" record -o "$db" -- python3 tests/gpu/torch_cudagraph.py \
		>"$W/torch-cudagraph.out" 2>"$W/torch-cudagraph.err"
	rc=$?
	cat "$W/torch-cudagraph.out" "$W/torch-cudagraph.err"
	result $rc "torch CUDAGraph: exit status 0 (got $rc)"
	if [ -f "$db" ]; then run_checker cudagraph captured "$db"; else result 1 "torch CUDAGraph: database $db written"; fi
	# record --reference: the untraced run's launch calls are timed from
	# outside (libgs_launch_interpose.so beside the collector) and kept in
	# its trace, which report --reference then corrects against
	db="$W/torch-ref.db"
	"$gs" record -o "$db" --reference 1 -- python3 bench/real/graph_check.py --steps 100 \
		>"$W/torch-ref.out" 2>"$W/torch-ref.err"
	rc=$?
	cat "$W/torch-ref.out" "$W/torch-ref.err"
	result $rc "torch --reference 1: exit status 0 (got $rc)"
	meta() { python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("SELECT value FROM meta WHERE key = ?", (sys.argv[2],)).fetchone()
print(r[0] if r else "none")' "$1" "$2" 2>/dev/null || echo none; }
	n=$(meta "$W/torch-ref.ref1.db" reference.launch_spaced_calls)
	[ "$n" != none ] && [ "$n" -ge 100 ]
	result $? "torch --reference 1: the reference trace timed the launch calls after host work (reference.launch_spaced_calls $n, >= 100)"
	m=$(meta "$W/torch-ref.ref1.db" reference.launch_spaced_mean_ns)
	[ "$m" != none ] && [ "$m" -ge 1000 ] && [ "$m" -le 30000 ]
	result $? "torch --reference 1: their mean is a launch call's (reference.launch_spaced_mean_ns $m, 1000..30000)"
	n=$(meta "$db" reference.launch_spaced_calls)
	[ "$n" = none ]
	result $? "torch --reference 1: the traced run's trace has no reference launch figures (got $n)"
	"$gs" report --json --reference "$W/torch-ref.ref1.db" "$db" >"$W/torch-ref.json" 2>&1
	grep -q "\"program_spaced_launch_ns\": *$m\b" "$W/torch-ref.json"
	result $? "torch --reference 1: report --reference corrects against the program's own launch ($m ns)"
else
	echo "SKIP: PyTorch checks (python3 cannot import torch with CUDA)"
	skip=$((skip + 1))
fi

# 8. --capture-range cudaProfilerApi: only the program's cudaProfilerStart ..
#    cudaProfilerStop spans are recorded (tests/gpu/capture_range.cu launches
#    a kernel of its own in each phase: 30 + 20 k_inside in the two windows,
#    k_before / k_between / k_after outside them)
caprange="$B/tests/gs_capture_range"
capture_run() { # capture_run <name> [program args...]: records $W/<name>.db
	local name=$1 rc
	shift
	timeout 120 "$gs" record -o "$W/$name.db" --capture-range cudaProfilerApi -- "$caprange" "$@" \
		>"$W/$name.out" 2>"$W/$name.err"
	rc=$?
	cat "$W/$name.out" "$W/$name.err"
	result $rc "$name: exit status 0 (got $rc)"
	grep -qx 'result: PASS' "$W/$name.out"
	result $? "$name: the program's own results are right"
}
if [ -x "$caprange" ]; then
	GAPSCOPE_SAMPLING=0 capture_run capture-nosampling
	capture_run capture
	db="$W/capture.db"
	v=$(sql "$db" "SELECT group_concat(n, ' ') FROM (SELECT s.value || '=' || COUNT(*) AS n
		FROM kernels k JOIN strings s ON s.id = k.name_id GROUP BY s.value ORDER BY s.value)")
	[ "$v" = "_Z8k_insidePi=50" ]
	result $? "capture: only the 50 kernels launched between start and stop are recorded (got $v)"
	v=$(sql "$db" "SELECT COUNT(*) FROM capture_windows WHERE end > start")
	[ "$v" = 2 ]
	result $? "capture: two capture windows (got $v)"
	v=$(sql "$db" "SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS (SELECT 1 FROM capture_windows w
		WHERE k.start >= w.start AND k.start <= w.end)")
	[ "$v" = 0 ]
	result $? "capture: every kernel starts inside a window (outside: $v)"
	# the 20 ms sleep and the 40 k_between lie between the windows
	v=$(sql "$db" "SELECT (SELECT start FROM capture_windows ORDER BY start LIMIT 1 OFFSET 1)
		- (SELECT end FROM capture_windows ORDER BY start LIMIT 1) >= 20000000")
	[ "$v" = 1 ]
	result $? "capture: the windows are 20 ms or more apart (the program's sleep)"
	v=$(sql "$db" "SELECT value FROM meta WHERE key = 'schema_version'")/$(sql "$db" "SELECT value FROM meta WHERE key = 'capture_range'")/$(sql "$db" "SELECT value FROM meta WHERE key = 'capture.windows'")
	[ "$v" = 3/cudaProfilerApi/2 ]
	result $? "capture: meta schema_version 3, capture_range cudaProfilerApi, capture.windows 2 (got $v)"
	v=$(sql "$db" "SELECT COUNT(*) FROM syncs")
	[ "$v" = 2 ]
	result $? "capture: the two syncs inside the windows are recorded, not the four outside (got $v)"
	v=$(sql "$db" "SELECT COUNT(*) FROM api_calls a JOIN strings s ON s.id = a.name_id
		WHERE s.value LIKE 'cudaLaunchKernel%'")
	[ "$v" = 50 ]
	result $? "capture: 50 launch calls recorded (got $v)"
	n=$(collector_lines "$W/capture.err" | wc -l)
	[ "$n" = 0 ]
	result $? "capture: no collector warnings (got $n lines)"
	"$gs" report "$db" >"$W/capture.report" 2>&1
	result $? "capture: report exits 0"
	head -20 "$W/capture.report"

	capture_run capture-open open
	v=$(sql "$W/capture-open.db" "SELECT COUNT(*) FROM capture_windows")/$(sql "$W/capture-open.db" "SELECT COUNT(*) FROM kernels k JOIN strings s ON s.id = k.name_id WHERE s.value = '_Z6k_openPi'")
	[ "$v" = 3/5 ]
	result $? "capture, no stop before exit: the open window is kept with its 5 kernels (windows/kernels $v)"
	v=$(sql "$W/capture-open.db" "SELECT MAX(end) <= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'stop_ns') AND MAX(end) >= (SELECT MAX(k.end) FROM kernels k) FROM capture_windows")
	[ "$v" = 1 ]
	result $? "capture, no stop before exit: the open window ends with the recording, after its kernels"

	capture_run capture-never never
	v=$(sql "$W/capture-never.db" "SELECT COUNT(*) FROM kernels")/$(sql "$W/capture-never.db" "SELECT COUNT(*) FROM capture_windows")
	[ "$v" = 0/0 ]
	result $? "capture, never started: no kernel, no window (got $v)"
	grep -q 'never called cudaProfilerStart' "$W/capture-never.err"
	result $? "capture, never started: the collector says so"

	# with --graph-level: GRAPH_TRACE switched on mid-run crashed the program
	# at its next graph launch (SIGSEGV, H100); now on all along, the graph
	# runs outside the windows dropped. launch_overhead --ab 1 --n 100
	# --repeats 3 replays, inside windows, its graph of 100 kernels 3 times
	# and its graph of 100 once per repeat: 6 graph runs
	lo="$B/bin/gs_bench_launch_overhead"
	timeout 120 "$gs" record -o "$W/capture-gl.db" --graph-level --capture-range cudaProfilerApi -- \
		"$lo" --ab 1 --n 100 --repeats 3 --warmup 1 >"$W/capture-gl.out" 2>&1
	rc=$?
	cat "$W/capture-gl.out"
	result $rc "capture + graph-level: exit status 0 (got $rc)"
	v=$(sql "$W/capture-gl.db" "SELECT COUNT(*) FROM graph_runs")/$(sql "$W/capture-gl.db" "SELECT COUNT(*) FROM graph_runs g
		WHERE NOT EXISTS (SELECT 1 FROM capture_windows w WHERE g.start >= w.start AND g.start <= w.end)")
	[ "$v" = 6/0 ]
	result $? "capture + graph-level: the 6 graph runs inside the windows, none outside (got $v)"

	# the same program without the option: everything, as before (v2)
	timeout 120 "$gs" record -o "$W/capture-off.db" -- "$caprange" >"$W/capture-off.out" 2>&1
	v=$(sql "$W/capture-off.db" "SELECT COUNT(*) FROM kernels")/$(sql "$W/capture-off.db" "SELECT value FROM meta WHERE key = 'schema_version'")
	[ "$v" = 150/2 ]
	result $? "no --capture-range: all 150 kernels, schema 2 (got $v)"
else
	result 1 "$caprange exists"
fi
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	db="$W/torch-capture.db"
	timeout 180 "$gs" record -o "$db" --capture-range cudaProfilerApi -- python3 tests/gpu/torch_capture.py \
		>"$W/torch-capture.out" 2>"$W/torch-capture.err"
	rc=$?
	cat "$W/torch-capture.out" "$W/torch-capture.err"
	result $rc "torch capture: exit status 0 (got $rc)"
	v=$(sql "$db" "SELECT group_concat(n, ' ') FROM (SELECT s.value || '=' || COUNT(*) AS n FROM nvtx r
		JOIN strings s ON s.id = r.text_id WHERE r.kind = 0 GROUP BY s.value ORDER BY s.value)")
	[ "$v" = "gs_around_stop=1 gs_capture_step=10" ]
	result $? "torch capture: the 10 ranges between torch.cuda.profiler.start and stop and the one around the stop, none of the 40 outside (got $v)"
	v=$(sql "$db" "SELECT r.end = (SELECT end FROM capture_windows) FROM nvtx r JOIN strings s ON s.id = r.text_id
		WHERE s.value = 'gs_around_stop'")
	[ "$v" = 1 ]
	result $? "torch capture: the range popped after the stop ends with the window (got $v)"
	v=$(sql "$db" "SELECT COUNT(*) >= 10 AND SUM(NOT EXISTS (SELECT 1 FROM capture_windows w
		WHERE k.start >= w.start AND k.start <= w.end)) = 0 FROM kernels k")
	[ "$v" = 1 ]
	result $? "torch capture: kernels recorded, all inside the window"
	v=$(sql "$db" "SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS (SELECT 1 FROM api_calls a
		WHERE a.correlation_id = k.correlation_id)")/$(sql "$db" "SELECT COUNT(*) FROM api_calls WHERE api = 2")
	[ "${v%%/*}" = 0 ] && [ "${v#*/}" -gt 0 ]
	result $? "torch capture: every kernel has its launch call, cuBLAS's driver-API ones included (kernels without one / driver launch rows: $v)"
	v=$(sql "$db" "SELECT COUNT(*) FROM api_calls a WHERE NOT EXISTS (SELECT 1 FROM capture_windows w
		WHERE a.start >= w.start AND a.start <= w.end)")
	[ "$v" = 0 ]
	result $? "torch capture: no API call recorded outside the window (got $v)"
	"$gs" report "$db" >"$W/torch-capture.report" 2>&1
	result $? "torch capture: report exits 0"
	head -12 "$W/torch-capture.report"
	# --no-sampling under a capture range: on the H100 at 14:05 UTC on 2026-12-07, nine --ab
	# processes recorded with GAPSCOPE_SAMPLING=0 left no program output and an unfinalized
	# trace with no rows (bench/results/2026-12-07-h100-afternoon.md), the =1 ones were whole:
	# gs_sampler_pause divided by the sampler's hz, 0 when it never started (SIGFPE; c08fdc2)
	db="$W/torch-capture-nosampling.db"
	timeout 180 "$gs" record -o "$db" --no-sampling --capture-range cudaProfilerApi -- python3 \
		tests/gpu/torch_capture.py >"$W/torch-capture-ns.out" 2>"$W/torch-capture-ns.err"
	rc=$?
	cat "$W/torch-capture-ns.out" "$W/torch-capture-ns.err"
	result $rc "torch capture --no-sampling: exit status 0 (got $rc)"
	grep -qx 'result: PASS' "$W/torch-capture-ns.out"
	result $? "torch capture --no-sampling: the program's own output and results"
	v=$(sql "$db" "SELECT value FROM meta WHERE key = 'finalized'")/$(sql "$db" "SELECT COUNT(*) FROM capture_windows")
	[ "$v" = 1/1 ]
	result $? "torch capture --no-sampling: the trace is finalized with its window (finalized/windows: $v)"
fi

if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail = 0 ]
