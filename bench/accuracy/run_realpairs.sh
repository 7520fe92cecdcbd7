#!/usr/bin/env bash
# run_realpairs.sh - interleaved untraced / `gapscope record` pairs of the real
# programs, measured in one run on the GPU machine, from the repository root:
#
#   GS_BUILD=build OUT=out [PAIRS=5] [GS_PIN="taskset -c 4-11"] [REF=N] bench/accuracy/run_realpairs.sh
#
# Pair i goes into $OUT/p<i>: <name>.untraced.log, <name>.traced.log and
# <name>.db for torch_nosync (bench/overhead/torch_nosync.py), train_loop, hf_generate
# and graph_check (bench/real). Where the build has
# lib/libgs_launch_interpose.so (collector/launch_interpose.c) it is preloaded into
# both runs of each pair: <name>.untraced.ip and <name>.traced.ip hold every
# launch call timed from outside, so what tracing added to the program's own
# launch calls can be set against the report's correction. Then it prints
# `bench/accuracy/corrected_accuracy.py realprogs` over the pairs. GS_PIN runs every
# program under that command prefix (the same cores for each run). REF=N records
# each traced run with --reference N (<name>.ref<K>.db beside its trace), which
# times the program's launch calls in those untraced runs too, and the report
# then reads them (corrected_accuracy.py passes a trace's .ref<K>.db files to
# it as --reference). Every run is
# limited to 300 s (with its reference runs); a failed run is said and the next goes on.
# It prints figures; it does not pass or fail on them. Exits 77 without a GPU.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${GS_BUILD:-build}
OUT=${OUT:-out}
PAIRS=${PAIRS:-5}
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu

gs="$B/bin/gapscope"
[ -x "$gs" ] || { echo "missing $gs (carry the build folder)"; exit 1; }
case $PAIRS in '' | *[!0-9]*) echo "PAIRS must be a number, not '$PAIRS'"; exit 2 ;; esac
ref=()
case ${REF:-0} in 0) ;; [1-9]) ref=(--reference "$REF") ;; *) echo "REF must be 0 to 9, not '$REF'"; exit 2 ;; esac
ip=
[ -f "$B/lib/libgs_launch_interpose.so" ] && ip=$(realpath "$B/lib/libgs_launch_interpose.so")
read -r -a pin <<<"${GS_PIN:-}"
progs=(bench/overhead/torch_nosync.py bench/real/train_loop.py bench/real/hf_generate.py
	bench/real/graph_check.py)

run() { # run <log> <interposer output> <program> [prefix...]: prefix python3 <program>
	local log=$1 ipout=$2 prog=$3 pre=()
	shift 3
	# before the command: a traced run's program inherits it from record
	# (whose --reference runs preload the interposer with a file of their own)
	[ -n "$ip" ] && pre=(env "LD_PRELOAD=$ip" "GS_INTERPOSE_OUT=$ipout")
	timeout -k 10 300 "${pin[@]}" "${pre[@]}" "$@" python3 "$prog" >"$log" 2>&1 ||
		echo "!!! ${*:-untraced} $prog exited $? (see $log)"
}

for i in $(seq 1 "$PAIRS"); do
	d="$OUT/p$i"
	mkdir -p "$d" || exit 1
	for prog in "${progs[@]}"; do
		n=$(basename "$prog" .py)
		rm -f "$d/$n".*
		run "$d/$n.untraced.log" "$d/$n.untraced.ip" "$prog"
		run "$d/$n.traced.log" "$d/$n.traced.ip" "$prog" "$gs" record -o "$d/$n.db" "${ref[@]}" --
	done
	echo "pair $i of $PAIRS done"
done
dirs=()
for i in $(seq 1 "$PAIRS"); do dirs+=("$OUT/p$i"); done
python3 bench/accuracy/corrected_accuracy.py realprogs "${dirs[@]}" --gapscope "$gs"
