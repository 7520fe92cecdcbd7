#!/usr/bin/env bash
# run_report_gpu.sh - `gapscope report` on traces recorded on the GPU
# machine, next to the same programs' untraced timings, from the repository
# root:
#
#   GS_BUILD=build OUT=out bench/accuracy/run_report_gpu.sh
#
# 1. the short-kernel loop (gs_bench_launch_overhead: back-to-back,
#    launch+sync and graph modes in one process), untraced, then under
#    `gapscope record`;
# 2. if python3 has torch with CUDA: the PyTorch eager loop
#    (bench/overhead/torch_overhead.py), untraced, then under `gapscope record`.
# For each trace it writes the text report and the --json report, and prints
# the figures to compare: per-kernel/per-step time untraced vs what the
# report says the GPU did (kernel p50, launch API p50, utilisation, idle by
# cause, graph advice). Outputs go to ${OUT:-out}/report_gpu/. Exits 77
# without a GPU, 1 if a run failed. It prints figures; it asserts nothing.
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
OUT=${OUT:-out}
W="$OUT/report_gpu"
gs="$B/bin/gapscope"
bench="$B/bin/gs_bench_launch_overhead"
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu

for f in "$gs" "$bench"; do
	[ -e "$f" ] || { echo "missing $f (build with the CUDA Toolkit and carry the build folder)"; exit 1; }
done
mkdir -p "$W" || exit 1
rm -f "$W"/*.db "$W"/*.db-wal "$W"/*.db-shm
failed=0

run() { # run <label> <command...>
	local label=$1
	shift
	echo "--- $label: $*"
	"$@" >"$W/$label.txt" 2>"$W/$label.err"
	local rc=$?
	cat "$W/$label.txt"
	[ $rc = 0 ] || { echo "!!! $label exited $rc"; cat "$W/$label.err"; failed=1; }
}

summary() { # summary <name>: report the trace <name>.db, print the key figures
	local name=$1
	[ -f "$W/$name.db" ] || { echo "!!! no database $W/$name.db"; failed=1; return; }
	"$gs" report "$W/$name.db" >"$W/${name}_report.txt" 2>&1 || failed=1
	"$gs" report --json "$W/$name.db" >"$W/${name}_report.json" 2>"$W/${name}_report.err" || failed=1
	echo "=== gapscope report $name.db (full text: $W/${name}_report.txt)"
	python3 - "$W/${name}_report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
us = lambda ns: "%.3f us" % (ns / 1e3)
for d in r["devices"]:
    print("device %d: window %s, busy %s, utilisation %.1f%%, ops %d, gaps %d"
          % (d["device"], us(d["window_ns"]), us(d["busy_ns"]), 100 * d["utilisation"], d["ops"], d["gaps"]))
    for c, v in d["idle_by_cause_ns"].items():
        print("  %-15s %14s %5.1f%%" % (c, us(v), 100 * v / d["window_ns"] if d["window_ns"] else 0))
    print("  launch overhead share %.1f%%" % (100 * d["launch_overhead_share"]))
for l in r["launch_apis"]:
    print("%-22s calls %8d  api p50 %s p90 %s  queue p50 %s  delay p50 %s"
          % (l["api"], l["calls"], us(l["api_duration_ns"]["p50"]), us(l["api_duration_ns"]["p90"]),
             us(l["queue_ns"]["p50"]), us(l["launch_delay_ns"]["p50"])))
k = r["kernels"]
print("kernels %d, short share %.1f%% (launch cost %s, %s)"
      % (k["count"], 100 * k["short_share"], us(k["launch_cost_ns"]), k["launch_cost_source"]))
for t in k["top"][:5]:
    print("  %8d x p50 %s total %s  %s" % (t["count"], us(t["p50_ns"]), us(t["total_ns"]), t["name"]))
for g in ("explicit", "implicit"):
    for s in r["syncs"][g]:
        print("%s sync %-26s %-24s count %6d blocked %s gpu idle %s"
              % (g, s["kind"], s["api"], s["count"], us(s["blocked_ns"]), us(s["gpu_idle_ns"])))
ga = r["graph_advice"]
print("graph node overhead %s (%s)" % (us(ga["node_overhead_ns"]), ga["node_overhead_source"]))
for s in ga["sequences"][:4]:
    print("  " + s["sentence"])
print("instrumentation:", r["instrumentation"])
PY
}

run short_untraced "$bench"
run short_traced "$gs" record -o "$W/short.db" -- "$bench"
summary short

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	run torch_untraced python3 bench/overhead/torch_overhead.py
	run torch_traced "$gs" record -o "$W/torch.db" -- python3 bench/overhead/torch_overhead.py
	summary torch
else
	echo "(python3 cannot import torch with CUDA: PyTorch trace skipped)"
fi
exit $failed
