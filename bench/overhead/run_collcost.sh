#!/usr/bin/env bash
# run_collcost.sh - what the collector itself costs (issue 52, item 2), on the GPU
# machine, from the repository root, with a carried build (${GS_BUILD:-build}):
#  1. the launch loops of gs_bench_launch_overhead (back to back, launch + sync,
#     graphs of 1000 and 100) as 5 interleaved whole-process rounds (overhead_pairs.py):
#     untraced; recorded by default; --no-callsites (GAPSCOPE_CALLSITES=0);
#     GAPSCOPE_STACK_CACHE=0 (every call-site capture walks the stack: the call sites
#     before the stack cache); GAPSCOPE_CAPTURE_RANGE=cudaProfilerApi in a program that
#     never calls cudaProfilerStart (the switched-off collector, all run long);
#     --graph-level. Then, from the last round's traces, what the captures cost there:
#     the unwinder, captures, native walks, distinct stacks, p50 capture time.
#     And whether the call sites are the same with and without the caches: the launch loops'
#     traces (default / GAPSCOPE_STACK_CACHE=0), and gs_callsite_copy and, with torch,
#     tests/gpu/callsite_train.py recorded both ways: per captured call, its native frames
#     (module, offset) and Python frames (file, line, function) must be the same (PASS/FAIL).
#  2. CUPTI alone, no collector (api_source.py: plain; the driver's launch records alone,
#     what --capture-range leaves on outside its windows; kernel records; + runtime
#     records; + the driver's launch records, as the collector; + the collector's sync
#     callbacks; the default kinds less sync/event/stream), 5 interleaved rounds: launch +
#     sync (sync_256), back to back (empty_256) and graph replays per node (graph_1000),
#     the floor under the collector's figures of 1.
#  3. the launch loops' --ab 1 and torch_nosync.py --ab 5 under --capture-range, with
#     the driver's launch records on all run long (always, the default) and only inside
#     the windows (GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=windows, experimental): the in-process
#     ratios, and whether every kernel of every window still has its launch call (cuBLAS
#     launches through the driver API; before, switched on mid-run they gave none).
# PARTS (default "pairs sites cupti ab") picks the parts: pairs = 1, sites = the call-site
# comparison of 1 (needs pairs' traces for the launch loops), cupti = 2, ab = 3.
# Everything goes to ${OUT:-out/collcost}; the traces are removed at the end. It prints
# figures and counts; it passes or fails on nothing. Exits 77 without a GPU.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
B=${GS_BUILD:-build}
OUT=${OUT:-out/collcost}
gs="$B/bin/gapscope"
P=(taskset -c 4-11)
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
mkdir -p "$OUT"
q() { # q DB SQL: the first value of the first row
	python3 - "$1" "$2" << 'PY'
import sqlite3, sys
try:
    r = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True).execute(sys.argv[2]).fetchone()
    print(r[0] if r else "-")
except Exception as e:
    print("?(%s)" % e)
PY
}
meta() { q "$1" "SELECT value FROM meta WHERE key = '$2'"; }
PARTS=" ${PARTS:-pairs sites cupti ab} "
part() { # part NAME: whether to run it (and a time stamp)
	case $PARTS in *" $1 "*) echo "=== $1 $(date -u +%H:%M:%S)"; return 0 ;; esac
	return 1
}

# same_sites A.db B.db NAME: the captured calls' stacks, as a multiset, equal
same_sites() {
	python3 - "$1" "$2" "$3" << 'PY'
import collections, sqlite3, sys
def sites(path):
    db = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
    s = lambda i: db.execute("select value from strings where id=?", (i,)).fetchone()[0] if i else ""
    frames = {}
    for sid, k, m, o, f, l, fn in db.execute(
            "select stack_id, kind, module_id, offset, file_id, line, function_id from stack_frames "
            "order by stack_id, kind, depth"):
        frames.setdefault(sid, []).append((s(m).rsplit("/", 1)[-1], o) if k == 1 else (s(f), l, s(fn)))
    walks = db.execute("select value from meta where key='callsites.native_walks'").fetchone()
    calls = collections.Counter(tuple(frames.get(sid, [])) for (sid,) in db.execute("select stack_id from api_stacks"))
    return calls, walks[0] if walks else "-"
(a, wa), (b, wb) = sites(sys.argv[1]), sites(sys.argv[2])
ok = sum(a.values()) > 0 and a == b
print(("PASS" if ok else "FAIL") + f": {sys.argv[3]}: the same call sites with the caches and without "
      f"({sum(a.values())} | {sum(b.values())} captured calls, {len(a)} | {len(b)} distinct stacks, "
      f"native walks {wa} | {wb})")
PY
}
if part pairs; then
	python3 bench/overhead/overhead_pairs.py --build "$B" --pin "${P[*]}" --rounds 5 --workloads launch \
		--values --out "$OUT/pairs" --config default= --config nocs=GAPSCOPE_CALLSITES=0 \
		--config nocache=GAPSCOPE_STACK_CACHE=0 --config off=GAPSCOPE_CAPTURE_RANGE=cudaProfilerApi \
		--config graphlevel=GAPSCOPE_GRAPH_LEVEL=1
	for c in default nocache; do
		d="$OUT/pairs/launch.$c.db"
		echo "== launch.$c (last round): unwinder $(meta "$d" collector.unwinder)" \
			"captured $(meta "$d" callsites.captured) native_walks $(meta "$d" callsites.native_walks)" \
			"stacks $(meta "$d" callsites.stacks) capture_p50_ns $(q "$d" "SELECT capture_end - capture_start
				FROM api_stacks ORDER BY 1 LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM api_stacks)")"
	done
fi

if part sites; then
	same_sites "$OUT/pairs/launch.default.db" "$OUT/pairs/launch.nocache.db" launch_overhead
	progs=("copy $B/bin/gs_callsite_copy")
	python3 -c 'import torch; assert torch.cuda.is_available()' 2> /dev/null &&
		progs+=("train python3 tests/gpu/callsite_train.py")
	for p in "${progs[@]}"; do
		set -- $p
		name=$1
		shift
		for c in 1 0; do
			GAPSCOPE_STACK_CACHE=$c timeout 150 "$gs" record -o "$OUT/$name.cache$c.db" -- "$@" \
				> "$OUT/$name.cache$c.log" 2>&1 || echo "!!! $name, GAPSCOPE_STACK_CACHE=$c: exit $?"
		done
		same_sites "$OUT/$name.cache1.db" "$OUT/$name.cache0.db" "$name"
	done
fi

if part cupti; then
	echo "== CUPTI alone (api_source.py): us per launch (graph_1000: per node), ratio to plain"
	python3 bench/overhead/api_source.py --build "$B" --rounds 5 --modes \
		plain,drvlaunch_only,kernel,kernel_runtime,kernel_runtime_drvlaunch,kr_synccb_all_full,default_no_sync_event_stream
fi

if part ab; then
	lo=("$B/bin/gs_bench_launch_overhead" --ab 1 --repeats 21)
	for m in always windows; do
		echo "== launch --ab 1 under --capture-range, driver launch records: $m"
		GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=$m "${P[@]}" timeout 150 "$gs" record -o "$OUT/ab.$m.db" \
			--capture-range cudaProfilerApi -- "${lo[@]}" > "$OUT/ab.$m.txt" 2>&1
		grep -h ab_ratio "$OUT/ab.$m.txt"
		echo "== torch_nosync.py --steps 100 --ab 5 under --capture-range, driver launch records: $m"
		d="$OUT/torch.$m.db"
		GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=$m "${P[@]}" timeout 200 "$gs" record -o "$d" \
			--capture-range cudaProfilerApi -- python3 bench/overhead/torch_nosync.py --steps 100 --ab 5 \
			> "$OUT/torch.$m.txt" 2>&1
		grep -h median "$OUT/torch.$m.txt"
		echo "config $(meta "$d" config.capture_driver_launches) windows $(q "$d" "SELECT COUNT(*) FROM capture_windows")" \
			"kernels $(q "$d" "SELECT COUNT(*) FROM kernels")" \
			"without_launch_call $(q "$d" "SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS
				(SELECT 1 FROM api_calls a WHERE a.correlation_id = k.correlation_id)")" \
			"driver_rows $(q "$d" "SELECT COUNT(*) FROM api_calls WHERE api = 2")" \
			"driver_rows_after_window_1 $(q "$d" "SELECT COUNT(*) FROM api_calls WHERE api = 2
				AND start > (SELECT MIN(\"end\") FROM capture_windows)")"
	done
fi
rm -f "$OUT"/*.db "$OUT"/*.db-* "$OUT"/pairs/*.db "$OUT"/pairs/*.db-*
