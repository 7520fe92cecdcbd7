#!/usr/bin/env bash
# tools/gpu-call.sh - one GPU call: sampling_gpu.sh (SAMPLING s, default 165), the GPU tests (GPUTESTS s, default 100),
# whatif_gpu.sh (unless NO_WHATIF), one --ab 5 process per workload read by corrected_accuracy.py ab, each capped to
# what is left of BUDGET seconds (default 280) and packed into $OUT as it ends.
# On the GPU machine, from the repository root, with a build carried by tools/gpu-carry.sh build-gpu .devrun/b:
#   BUDGET=280 OUT=out GS_BUILD=.devrun/b tools/gpu-call.sh
cd "$(dirname "$0")/.." || exit 1
R=${OUT:-out}; export GS_BUILD=${GS_BUILD:-.devrun/b}; T=/tmp/gs1; mkdir -p "$R" $T
gs=$GS_BUILD/bin/gapscope; P="taskset -c 4-11"; S0=$SECONDS; BUDGET=${BUDGET:-280}
left() { echo $((BUDGET - (SECONDS - S0))); }
cap() { local l=$(left); [ $1 -lt $l ] && echo $1 || echo $((l > 5 ? l - 3 : 1)); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c 'import torch,sys;print(torch.__version__, sys.version.split()[0])'; } > "$R/sampling.txt" 2>&1
# 1. sampling (issue 54): checks (a)-(c) and 5 interleaved pairs
OUT=$T timeout $(cap ${SAMPLING:-165}) bash tests/gpu/sampling_gpu.sh >> "$R/sampling.txt" 2>&1; echo "sampling exit $? at $((SECONDS-S0)) s" >> "$R/sampling.txt"
(cd $T && tar cJf "$R/sampling.tar.xz" sampling-gpu 2>/dev/null); rm -rf $T/sampling-gpu
grep -E 'PASS|FAIL|exit|median|ratio|sampling' "$R/sampling.txt" | tail -30
# 2. the GPU tests (the collector changed since they last ran), up to GPUTESTS seconds
[ $(left) -gt 30 ] && { OUT=$T/t timeout $(cap ${GPUTESTS:-100}) tests/gpu/run_gpu_tests.sh > "$R/gputests.txt" 2>&1; echo "gputests exit $? at $((SECONDS-S0)) s" >> "$R/gputests.txt"; grep -E '^FAIL|passed|failed' "$R/gputests.txt" | tail -12; }
# 3. what-if against measured fixes (issue 53 item 4)
[ $(left) -gt 40 ] && [ -z "${NO_WHATIF:-}" ] && { OUT=$T/w timeout $(cap 65) bash tests/gpu/whatif_gpu.sh > "$R/whatif.txt" 2>&1; echo "whatif exit $? at $((SECONDS-S0)) s" >> "$R/whatif.txt"
(cd $T/w && tar cJf "$R/whatif.tar.xz" . 2>/dev/null); tail -14 "$R/whatif.txt"; }
# 4. corrected figures against the same process's untraced phases (issue 52 item 3); one --ab 5 process = 5 pairs
A=$T/abacc; mkdir -p $A
for w in "torch_nosync bench/overhead/torch_nosync.py --ab 5 steps" "hf_generate bench/real/hf_generate.py --ab 5 generate" "train_loop bench/real/train_loop.py --ab 5 step"; do
  [ $(left) -gt 30 ] || break
  set -- $w; name=$1 prog=$2 opt="$3 $4" range=$5
  $P timeout $(cap 60) "$gs" record -o "$A/$name.1.db" --capture-range cudaProfilerApi -- python3 $prog $opt > "$A/$name.1.txt" 2>&1
  "$gs" report --json "$A/$name.1.db" > "$A/$name.1.json" 2>/dev/null
  echo "== $name at $((SECONDS-S0)) s" >> "$R/abacc.txt"
  python3 bench/accuracy/corrected_accuracy.py ab "$A/$name".1.txt --range $range --gapscope "$gs" >> "$R/abacc.txt" 2>&1
  rm -f $A/*.db; (cd $T && tar cJf "$R/abacc.tar.xz" abacc)
done
cat "$R/abacc.txt" 2>/dev/null
echo "end at $((SECONDS-S0)) s"
