#!/usr/bin/env bash
# Runs on the GPU test machine (an H200 for us), from the repository root, with a
# build folder made elsewhere and carried along (${GS_BUILD:-build}): the GPU
# tests, the overhead benchmarks and the demos, each under the collector.
# Before carrying the build, run tools/bundle-runtime.sh on it here (the GPU
# machine may lack Graphviz and jansson, which bin/gapscope links), or carry
# the slim copy tools/gpu-carry.sh makes (a whole build folder is too big).
# Everything it produces goes into one archive, ${OUT:-out}/gpu-results.tar.xz.N (split),
# plus the summary log ${OUT:-out}/gpu-session.log.
# Usage: tools/gpu-session.sh [step...]
#   steps: info tests graphs bench diag reportbench demos untraced untraced-decode sample unwinder pitch ablaunch
#          overhead accuracy (issue 18's done-when figures; STEP_TIMEOUT=500 for overhead)
#          nativeframes (GPT-2 generate and the training loop: default against
#          GAPSCOPE_NATIVE_FRAMES=always, interleaved; STEP_TIMEOUT=500)
#          ab (tracing cost and corrected walls inside one process: torch_nosync.py,
#          hf_generate.py and train_loop.py --ab, 3 processes each, without
#          the collector (the noise floor) and under record --capture-range,
#          read with corrected_accuracy.py ab; STEP_TIMEOUT=550)
#          ablaunch (the launch loops' --ab 1 without the collector, under record
#          --capture-range and with --graph-level too)
#          realprogs (tools/gpu-realprogs.sh: each real program once untraced
#          and once recorded; the traces stay in the archive)
#          realpairs (bench/accuracy/run_realpairs.sh: 5 interleaved untraced / recorded pairs
#          of torch_nosync.py and the real programs of tools/gpu-realprogs.sh but
#          gap_phases, launch calls timed from outside where the build has the
#          interposer, read with corrected_accuracy.py realprogs; the traces stay
#          in the archive; STEP_TIMEOUT=600)
#          collcost (issue 52 item 2, the collector's own cost: the launch loops as 5
#          interleaved whole-process rounds untraced / recorded by default / --no-callsites /
#          GAPSCOPE_STACK_CACHE=0 (every capture walks: the call sites before the cache) /
#          --capture-range never started (the switched-off collector) / --graph-level, the
#          default trace's native walks; then --ab 1 of the launch loops and torch_nosync.py
#          --ab 5 under --capture-range with the driver's launch records on all along and
#          with GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=windows, and whether the windows' kernels
#          keep their launch calls; STEP_TIMEOUT=600)
#          whatif (tests/gpu/whatif_gpu.sh, traces kept), onegpu / twogpu (tests/gpu/two_gpu.sh)
#   (default: info tests graphs bench demos)
set -uo pipefail
cd "$(dirname "$0")/.."
export GS_BUILD=${GS_BUILD:-build}
OUT=${OUT:-out}
res="$OUT/gpu-results"
mkdir -p "$res"
log="$OUT/gpu-session.log"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(info tests graphs bench demos)
run_step() {
  local name=$1; shift
  echo "=== $name: $*" | tee -a "$log"
  local t0=$(date +%s%N)
  OUT="$res/$name" timeout "${STEP_TIMEOUT:-240}" "$@" > "$res/$name.log" 2>&1
  local rc=$?
  local t1=$(date +%s%N)
  tail -n 60 "$res/$name.log" >> "$log"
  echo "=== $name: exit $rc in $(( (t1 - t0) / 1000000 )) ms" | tee -a "$log"
}
for s in "${steps[@]}"; do
  case $s in
  info) run_step info bash -c 'nvidia-smi; nvcc --version | tail -1; ldconfig -p | grep -E "cupti|sqlite"; python3 -c "import torch;print(torch.__version__, torch.cuda.get_device_name())"' ;;
  tests) run_step tests tests/gpu/run_gpu_tests.sh ;;
  bench) run_step bench bench/overhead/run_overhead.sh ;;
  unwinder) run_step unwinder bench/overhead/run_unwinder_gpu.sh ;;
  # issue 18's figures: traced/untraced on the launch loops (defaults and
  # graph-level mode), torch_nosync and hf_generate, with the corrected
  # accuracy of the torch pairs; then gap_phases' phases
  overhead) run_step overhead bash -c 'gs="$GS_BUILD/bin/gapscope"; python3 bench/overhead/overhead_pairs.py --build "$GS_BUILD" --rounds 5 --workloads launch --values --out "$OUT/launch" --config default= --config graphlevel=GAPSCOPE_GRAPH_LEVEL=1; python3 bench/overhead/overhead_pairs.py --build "$GS_BUILD" --rounds 5 --workloads torch_nosync,hf_generate --values --keep-rounds --out "$OUT/torch" --config default=; python3 bench/accuracy/corrected_accuracy.py torch "$OUT/torch" --config default --gapscope "$gs"; rm -f "$OUT"/*/*.db' ;;
  accuracy) run_step accuracy bash -c 'python3 bench/accuracy/corrected_accuracy.py run-phases --build "$GS_BUILD" --out "$OUT/phases" --pairs 5 && python3 bench/accuracy/corrected_accuracy.py phases "$OUT/phases" --gapscope "$GS_BUILD/bin/gapscope"; rm -f "$OUT"/phases/*.db' ;;
  realpairs) run_step realpairs bench/accuracy/run_realpairs.sh ;;
  # the real programs of tools/gpu-realprogs.sh once untraced and once recorded,
  # their traces (xz) kept in the archive for reading the report on them
  realprogs) run_step realprogs tools/gpu-realprogs.sh ;;
  # the launch loops (back to back, launch + sync, graphs of 1000 and 100) in one
  # process each: without the collector (the floor), under --capture-range, and
  # with --graph-level too
  ablaunch) run_step ablaunch bash -c 'mkdir -p "$OUT"; gs="$GS_BUILD/bin/gapscope"; P="taskset -c 4-11"
      lo="$GS_BUILD/bin/gs_bench_launch_overhead --ab 1 --repeats 21"
      $P timeout 120 $lo > "$OUT/launch.plain.txt" 2>&1
      $P timeout 150 "$gs" record -o "$OUT/launch.db" --capture-range cudaProfilerApi -- $lo > "$OUT/launch.txt" 2>&1
      $P timeout 150 "$gs" record -o "$OUT/launch.gl.db" --capture-range cudaProfilerApi --graph-level -- $lo > "$OUT/launch.gl.txt" 2>&1
      rm -f "$OUT"/launch*.db
      for f in launch.plain launch launch.gl; do echo "== $f"; grep -h ab_ratio "$OUT/$f.txt"; done' ;;
  ab) run_step ab bash -c 'mkdir -p "$OUT"; gs="$GS_BUILD/bin/gapscope"; P="taskset -c 4-11"
      for w in "torch_nosync bench/overhead/torch_nosync.py --ab 9 steps" "hf_generate bench/real/hf_generate.py --ab 9 generate" "train_loop bench/real/train_loop.py --ab 9 step"; do
        set -- $w; name=$1 prog=$2 opt="$3 $4" range=$5
        for i in 1 2 3; do
          $P timeout 150 python3 $prog $opt > "$OUT/$name.plain$i.txt" 2>&1
          $P timeout 200 "$gs" record -o "$OUT/$name.$i.db" --capture-range cudaProfilerApi -- python3 $prog $opt > "$OUT/$name.$i.txt" 2>&1
          "$gs" report --json "$OUT/$name.$i.db" > "$OUT/$name.$i.json" 2>/dev/null && rm -f "$OUT/$name.$i.db"
        done
        grep -h median "$OUT/$name".plain*.txt; grep -h median "$OUT/$name".[0-9].txt
        python3 bench/accuracy/corrected_accuracy.py ab "$OUT/$name".[0-9].txt --range $range --gapscope "$gs"
      done' ;;
  # issue 52 item 3: corrected walls and utilisation against the same process's
  # untraced phases, 5 processes of --ab 5 per workload, under --capture-range only
  abacc) run_step abacc bash -c 'mkdir -p "$OUT"; gs="$GS_BUILD/bin/gapscope"; P="taskset -c 4-11"
      for w in "torch_nosync bench/overhead/torch_nosync.py --ab 5 steps" "hf_generate bench/real/hf_generate.py --ab 5 generate" "train_loop bench/real/train_loop.py --ab 5 step"; do
        set -- $w; name=$1 prog=$2 opt="$3 $4" range=$5
        for i in 1 2 3 4 5; do
          $P timeout 150 "$gs" record -o "$OUT/$name.$i.db" --capture-range cudaProfilerApi -- python3 $prog $opt > "$OUT/$name.$i.txt" 2>&1
          "$gs" report --json "$OUT/$name.$i.db" > "$OUT/$name.$i.json" 2>/dev/null && rm -f "$OUT/$name.$i.db"
        done
        python3 bench/accuracy/corrected_accuracy.py ab "$OUT/$name".[0-9].txt --range $range --gapscope "$gs"
      done' ;;
  # what the call sites' native walk costs a PyTorch program: GPT-2 generate and the
  # training loop untraced, recorded by default (no native walk where a Python
  # frame names the site) and with GAPSCOPE_NATIVE_FRAMES=always, interleaved
  nativeframes) run_step nativeframes bash -c 'python3 bench/overhead/overhead_pairs.py --build "$GS_BUILD" --rounds 5 --workloads hf_generate,train_loop --values --out "$OUT/pairs" --config default= --config always=GAPSCOPE_NATIVE_FRAMES=always; rm -f "$OUT"/pairs/*.db' ;;
  # GPU time per graph node by kernel length, untraced / traced / graph-level,
  # and what the default traces show per node (the traces stay here)
  pitch) run_step pitch bash -c 'python3 bench/overhead/overhead_pairs.py --build "$GS_BUILD" --rounds 5 --workloads graph_pitch --values --keep-rounds --out "$OUT/pairs" --config default= --config graphlevel=GAPSCOPE_GRAPH_LEVEL=1; python3 bench/gpu_time/graph_pitch_trace.py "$OUT"/pairs/graph_pitch.default.r*.db; rm -f "$OUT"/pairs/*.db' ;;
  collcost) run_step collcost bench/overhead/run_collcost.sh ;;
  graphs) run_step graphs tests/gpu/graphs_gpu.sh ;;
  # issue 53's check: whatif's predicted saving against the demos' measured fixes
  # (the demos' traces stay in the archive, for working on the model elsewhere)
  whatif) run_step whatif bash -c 'tests/gpu/whatif_gpu.sh' ;;
  # issue 57's one-GPU path (the two-GPU checks on GPU 0 only)
  onegpu) run_step onegpu bash -c 'tests/gpu/two_gpu.sh --one-gpu' ;;
  twogpu) run_step twogpu bash -c 'tests/gpu/two_gpu.sh' ;;
  # issue 54: what the samples name in host code (train loop, own work, eager
  # loop) and what sampling costs (5 interleaved pairs on torch_nosync)
  sampling) STEP_TIMEOUT=${STEP_TIMEOUT:-590} run_step sampling tests/gpu/sampling_gpu.sh ;;
  reportbench) run_step reportbench bench/accuracy/run_report_gpu.sh ;;
  demos) run_step demos demos/run_all ;;
  untraced) run_step untraced demos/run_all --untraced ;;
  untraced-decode) run_step untraced-decode demos/run_all --untraced decode_starvation ;;
  # the small trace committed as samples/h200-decode-starvation.db
  # launch-call coverage of the overhead runs' databases (too big to bring back)
  diag) run_step diag bash -c 'r=$(dirname "$OUT"); python3 tools/gpu-diag.py "$r"/bench/overhead/*.db "$r"/tests/collector-gpu/*.db; for d in "$r"/bench/overhead/torch_traced*.db; do [ -f "$d" ] && "$GS_BUILD/bin/gapscope" report "$d" | head -n 40; done' ;;
  sample) run_step sample bash -c 'mkdir -p "$OUT" && "$GS_BUILD/bin/gapscope" record -o "$OUT/h200-decode-starvation.db" -- "$GS_BUILD/bin/gs_demo_decode_starvation" --sample' ;;
  *) echo "unknown step $s" | tee -a "$log" ;;
  esac
done
# What comes back from the GPU machine is limited to a few files of 16 MiB:
# leave out what can be remade here (the overhead runs' databases, HTML pages)
# and split the compressed archive. Reassemble: cat gpu-results.tar.xz.* | xz -d | tar x
tar -C "$OUT" --exclude='overhead/*.db' --exclude='*.html' -cf - gpu-results |
  xz -T0 -6 | split -b 15M -a 1 -d - "$OUT/gpu-results.tar.xz." && rm -rf "$res"
ls -la "$OUT"
