#!/usr/bin/env bash
# sampling_gpu.sh - GPU test of the sampling of launching threads and what the
# report names in host code (issue 54), from the repository root on a machine
# with an NVIDIA GPU, PyTorch and a build folder made elsewhere:
#
#   GS_BUILD=.devrun/b OUT=out tests/gpu/sampling_gpu.sh [--no-pairs]
#
# SAMPLING_RATE=HZ records (a)-(c) at that rate (--sample-rate) instead of the default.
#
# (a) bench/real/train_loop.py (a DataLoader with 2 workers): the largest
#     host-code gap's top function is the DataLoader's (torch/utils/data/);
# (a2) the same program: its off-CPU samples hold the main thread's wait for the
#     workers' batches (5 or more in torch/utils/data/), and the input-stall
#     finding's fix is that of workers that are on;
# (b) bench/real/py_work_loop.py (the program's own work in prepare_next()
#     between steps): the verdict's host_own_work names prepare_next and a
#     line of it, and so does --by-site's top function;
# (c) bench/overhead/torch_nosync.py (eager loop, no sync): --by-site's host code is
#     mostly the framework's dispatch (>= 50% of its samples), and the top
#     function is PyTorch's;
# (d) the sampling's cost: 5 interleaved rounds of torch_nosync untraced,
#     --no-sampling (GAPSCOPE_SAMPLING=0), sampling at the default rate (250 Hz since
#     2026-12-07) with and without off-CPU samples (GAPSCOPE_SAMPLE_WAITS=0)
#     (bench/overhead/overhead_pairs.py);
#     printed, not asserted (--no-pairs skips it).
# Prints the reports' parts that matter, the samples meta, PASS/FAIL/INFO
# lines; exits 1 on a failure, 77 without a GPU or PyTorch.
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
OUT=${OUT:-out}
W="$OUT/sampling-gpu"
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null ||
	{ echo "SKIP: no PyTorch with CUDA"; exit 77; }
gs="$B/bin/gapscope"
mkdir -p "$W"
pass=0 fail=0
result() { if [ "$1" = 0 ]; then echo "PASS: $2"; pass=$((pass + 1)); else echo "FAIL: $2"; fail=$((fail + 1)); fi; }
meta() {
	python3 -c 'import sqlite3,sys; [print("   ",k,v) for k,v in sqlite3.connect(sys.argv[1]).execute("select key,value from meta where key like \"%sampl%\" or key like \"warning.%\"")]' "$1"
}
record() { # record <name> <program...>
	local name=$1
	shift
	"$gs" record --sampling ${SAMPLING_RATE:+--sample-rate "$SAMPLING_RATE"} -o "$W/$name.db" -- "$@" > "$W/$name.log" 2>&1
	result $? "record $name (log: $W/$name.log)"
	echo "--- $name: meta"
	meta "$W/$name.db"
	"$gs" report --full-names "$W/$name.db" > "$W/$name.report.txt" 2>&1 # lines not wrapped
	"$gs" report --by-site "$W/$name.db" > "$W/$name.bysite.txt" 2>&1
	echo "--- $name: verdict"
	sed -n '/^Verdict/,/^$/p' "$W/$name.report.txt"
	echo "--- $name: host code by what ran"
	sed -n '/^Host code by what ran/,/^$/p' "$W/$name.bysite.txt"
	echo "--- $name: the first gaps with host code"
	grep -m 3 "host code on thread" "$W/$name.report.txt"
}
# the top function of the host code (--by-site's first row)
# (the row after the column header: the title above it may wrap)
top_row() { sed -n '/^Host code by what ran/,/^$/p' "$1" | sed -n '/^ *share /{n;p;q}'; }

# (a) DataLoader start-up
record train python3 bench/real/train_loop.py --steps 60
first=$(grep -m 1 "host code on thread" "$W/train.report.txt")
case $first in *"host code on thread "*": "*"% torch/utils/data/"*) r=0 ;; *) r=1 ;; esac
result $r "(a) the largest gap with host code names the DataLoader's code first: $first"
# (a2) off-CPU samples: the main thread waits for the workers' batches off CPU,
# where CPU-time samples never see it. The off-CPU samples hold that wait (5 or
# more in torch/utils/data/), and the input-stall finding tells from them that the
# workers are on ("workers can't keep up", not "turn them on"; or, since 5f11c21,
# where the samples show the main thread taking in the workers' tensors more than
# waiting for them, "the main thread takes in each shared tensor itself", a fix only
# workers that are on have: file_system sharing took 13.3% off this program's traced
# steady state, H100, 2026-12-08, bench/results/2026-12-08-h100.md). Whole-run
# --by-site's top 5 need not list it: on the H100 (22:50 UTC, 2026-12-07) its 46 ms
# ranked below the start-up's imports and first convolutions (5.7 s); INFO lines
dl=$(python3 -c 'import sqlite3,sys; print("%d %d" % sqlite3.connect(sys.argv[1]).execute("""
  SELECT count(*), coalesce(sum(ns),0) FROM wait_samples w WHERE EXISTS (SELECT 1 FROM stack_frames f
  JOIN strings x ON x.id = f.file_id WHERE f.stack_id = w.stack_id AND x.value LIKE "%torch/utils/data/%")""").fetchone())' "$W/train.db" 2>&1)
fix=$(grep -m 1 -E "input stalls before uploads" "$W/train.report.txt")
case "$dl $fix" in
[5-9]" "*"workers can't keep up"* | [1-9][0-9]*" "*"workers can't keep up"*) r=0 ;;
[5-9]" "*"takes in each shared tensor"* | [1-9][0-9]*" "*"takes in each shared tensor"*) r=0 ;;
*) r=1 ;;
esac
result $r "(a2) off-CPU samples in the DataLoader (rows, ns: $dl) and the input-stall fix reads them: $(echo "$fix" | cut -c1-200)"
sed -n '/^Host code by what ran/,/^$/p' "$W/train.bysite.txt" | grep -m 1 "waiting in torch/utils/data/" | sed 's/^/INFO: (a2) by-site row: /'
grep -m 3 -E "host code on thread [0-9]+.*[:,] [0-9]+% waiting in torch/utils/data/" "$W/train.report.txt" |
	cut -c1-400 | sed 's/^/INFO: (a2) a gap naming it: /'
grep -n "host code on thread" "$W/train.report.txt" | head -8 | cut -c1-400 | sed 's/^/INFO: (a) gap line /'
python3 -c 'import sqlite3,sys; print("INFO: (a) off-CPU samples: %s rows, %s ns" % sqlite3.connect(sys.argv[1]).execute("select count(*), sum(ns) from wait_samples").fetchone())' "$W/train.db"
# what the samples of that gap show, stack by stack (not asserted): on an H100 on
# 2026-12-07 every one of its 813 samples was an import chain
python3 - "$W/train.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n, imp, dl = db.execute("""
  WITH s AS (SELECT stack_id FROM samples WHERE tid = (SELECT tid FROM samples GROUP BY tid ORDER BY count(*) DESC LIMIT 1))
  SELECT count(*),
    sum(EXISTS (SELECT 1 FROM stack_frames f JOIN strings x ON x.id = f.file_id WHERE f.stack_id = s.stack_id AND x.value LIKE '<frozen importlib%')),
    sum(EXISTS (SELECT 1 FROM stack_frames f JOIN strings x ON x.id = f.file_id WHERE f.stack_id = s.stack_id AND x.value LIKE '%torch/utils/data/%'))
  FROM s""").fetchone()
print("INFO: (a) the main thread's samples: %d, %d in an import, %d in torch/utils/data/" % (n, imp or 0, dl or 0))
PY
# the DataLoader's start-up inside the largest gap (not asserted): its samples
# on CPU and its time off CPU there (H100, 22:50 UTC: 3 samples and 29.5 ms of
# a 5.379 s gap that Adam's import of torch._dynamo filled)
"$gs" report --json "$W/train.db" 2>/dev/null | python3 -c '
import json, sqlite3, sys
g = json.load(sys.stdin)["devices"][0]["top_gaps"][0]
a, b = g["start_ns"], g["start_ns"] + g["duration_ns"]
db = sqlite3.connect(sys.argv[1])
dl = "EXISTS (SELECT 1 FROM stack_frames f JOIN strings x ON x.id = f.file_id WHERE f.stack_id = %s.stack_id AND x.value LIKE \"%%torch/utils/data/%%\")"
n = db.execute("SELECT count(*) FROM samples s WHERE t BETWEEN ? AND ? AND " + dl % "s", (a, b)).fetchone()[0]
w = db.execute("SELECT count(*), coalesce(sum(ns), 0) FROM wait_samples w WHERE t BETWEEN ? AND ? AND " + dl % "w", (a, b)).fetchone()
print("INFO: (a) the DataLoader in the largest gap (%.3f s): %d CPU samples, %d off-CPU samples, %.1f ms off CPU" % (g["duration_ns"] / 1e9, n, w[0], w[1] / 1e6))
' "$W/train.db" 2>&1

# (b) the program's own work between steps
# 400 steps: the program's work (0.6 ms a step) outweighs the first cuBLAS call's
# start-up (50 ms) in --by-site's sum over the whole run
record pywork python3 bench/real/py_work_loop.py --steps 400
lo=$(grep -n '^def prepare_next' bench/real/py_work_loop.py | cut -d: -f1)
hi=$((lo + 12))
# the program's own work is host_own_work, or host_stalls where a step's work
# reaches 1 ms (a slow process: 1.15 ms a gap on the H100 at 10:05 UTC)
why=$(grep -A2 -E "the program.s own CPU work|host stalls of 1 ms or more" "$W/pywork.report.txt" | grep -m 1 "samples:")
line=$(echo "$why" | sed -n 's/.*py_work_loop.py:prepare_next line \([0-9]*\).*/\1/p')
[ -n "$line" ] && [ "$line" -ge "$lo" ] && [ "$line" -le "$hi" ]
result $? "(b) the own-work finding names py_work_loop.py:prepare_next at a line of it ($lo-$hi): $why"
case $(top_row "$W/pywork.bysite.txt") in *py_work_loop.py:prepare_next*) r=0 ;; *) r=1 ;; esac
result $r "(b) --by-site's top function is prepare_next: $(top_row "$W/pywork.bysite.txt")"

# (c) the eager loop: the framework's dispatch
record nosync python3 bench/overhead/torch_nosync.py
hdr=$(grep -m 1 "^Host code by what ran" "$W/nosync.bysite.txt")
fw=$(echo "$hdr" | sed -n "s/.* \([0-9]*\)% the framework's dispatch.*/\1/p")
[ -n "$fw" ] && [ "$fw" -ge 50 ]
result $? "(c) the eager loop's host code is mostly the framework's dispatch: $hdr"
case $(top_row "$W/nosync.bysite.txt") in *"[framework]"*) r=0 ;; *) r=1 ;; esac
result $r "(c) its top function is the framework's: $(top_row "$W/nosync.bysite.txt")"

# (d) what sampling costs, side by side
if [ "${1:-}" != "--no-pairs" ]; then
	python3 bench/overhead/overhead_pairs.py --build "$B" --rounds 5 --workloads torch_nosync --values \
		--out "$W/pairs" --config nosampling=GAPSCOPE_SAMPLING=0 --config sampling=GAPSCOPE_SAMPLING=1 \
		--config "sampling_nowaits=GAPSCOPE_SAMPLING=1;GAPSCOPE_SAMPLE_WAITS=0"
	result $? "(d) 5 interleaved rounds: untraced, --no-sampling, --sampling"
	rm -f "$W"/pairs/*.db
fi
echo "sampling_gpu: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
