#!/usr/bin/env bash
# run_overhead.sh - what the collector costs on launch-bound work, measured in
# one run on the GPU machine, from the repository root:
#
#   GS_BUILD=build OUT=out bench/overhead/run_overhead.sh
#
# Runs bench/overhead/launch_overhead.cu (gs_bench_launch_overhead) untraced, under
# `gapscope record` with default settings, under `gapscope record --activities
# kernel`, and untraced again (the two untraced runs show the noise; ratios
# use their mean). Then, if python3 has torch, bench/overhead/torch_overhead.py plain,
# under `gapscope record`, and under torch.profiler (CUDA only; CPU+CUDA).
# Prints tables of per-kernel (per-step) times with traced/untraced ratios
# beside DESIGN.md's reference figures. Logs and databases go to
# ${OUT:-out}/overhead/. Exits 77 without a GPU, 1 if a run failed.
# The PyTorch part runs ROUNDS (default 3) interleaved rounds and compares
# medians; GS_LIB_B=<libgapscope.so> adds a second collector build to it,
# GS_ACTIVITY_SETS="kernel,runtime kernel,runtime,sync" one run per list.
# GS_PIN="taskset -c 2,3" runs every program under that command prefix (the
# same cores for every configuration: a Python process's step time depends
# on where its threads land).
# It prints figures; it does not pass or fail on them.
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
OUT=${OUT:-out}
W="$OUT/overhead"
gs="$B/bin/gapscope"
bench="$B/bin/gs_bench_launch_overhead"
# Start clean: a collector setting or another injection in the caller's
# environment would change what is measured.
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu

for f in "$gs" "$B/lib/libgapscope.so" "$bench"; do
	[ -e "$f" ] || { echo "missing $f (build with the CUDA Toolkit and carry the build folder)"; exit 1; }
done
mkdir -p "$W" || exit 1
rm -f "$W"/*.db "$W"/*.db-wal "$W"/*.db-shm "$W"/*.txt
nvidia-smi -L
failed=0

read -r -a pin <<<"${GS_PIN:-}"
run() { # run <label> <command...>: output to $W/<label>.txt
	local label=$1
	shift
	echo "--- $label: ${pin[*]} $*"
	"${pin[@]}" "$@" >"$W/$label.txt" 2>"$W/$label.err"
	local rc=$?
	cat "$W/$label.txt" "$W/$label.err"
	[ $rc = 0 ] || { echo "!!! $label exited $rc"; failed=1; }
}

run untraced1 "$bench"
run traced "$gs" record -o "$W/traced.db" -- "$bench"
run traced_kernel "$gs" record --activities kernel -o "$W/traced_kernel.db" -- "$bench"
run untraced2 "$bench"

fig() { # fig <label> <mode>: the per-kernel median of that run
	sed -n "s/^mode=$2 per_kernel_us=\([0-9.]*\) .*/\1/p" "$W/$1.txt"
}
echo
echo "Per-kernel time of a short-kernel loop, median µs (ratio = traced / untraced):"
printf '%-13s %9s %9s %9s %6s %9s %6s  %s\n' mode untraced1 untraced2 traced ratio kernel-only ratio \
	"DESIGN.md reference (H200)"
for mode in back_to_back launch_sync graph_1000; do
	u1=$(fig untraced1 $mode) u2=$(fig untraced2 $mode) t=$(fig traced $mode) k=$(fig traced_kernel $mode)
	case $mode in
	back_to_back) ref="plain 3.9-5.2; bare CUPTI kernel records ~8.0" ;;
	launch_sync) ref="plain 10.6-11.7" ;;
	graph_1000) ref="plain 1.80; per-kernel records 3.6-4.0; GRAPH_TRACE 2.04" ;;
	esac
	awk -v m=$mode -v u1="${u1:-nan}" -v u2="${u2:-nan}" -v t="${t:-nan}" -v k="${k:-nan}" -v ref="$ref" \
		'BEGIN { u = (u1 + u2) / 2;
		  printf "%-13s %9s %9s %9s %6.2f %9s %6.2f  %s\n", m, u1, u2, t, t / u, k, k / u, ref }'
done
for db in traced traced_kernel; do
	[ -f "$W/$db.db" ] || { echo "!!! no database $W/$db.db"; failed=1; continue; }
	"$gs" info "$W/$db.db" >"$W/$db.info" 2>&1
	echo "$db.db: $(grep -E '^  kernels ' "$W/$db.info" | tr -s ' '), $(grep -E '^dropped records' "$W/$db.info" | tr -s ' ')"
done

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	# A Python process's step time drifts from run to run by more than the
	# collector costs: ROUNDS rounds, each running every configuration once
	# in turn, and the median of the rounds' figures is compared.
	# GS_LIB_B=<another libgapscope.so> adds "gapscope record" with that
	# library (e.g. the build before a collector change) to every round.
	# GS_ACTIVITY_SETS="LIST LIST ..." adds "gapscope record --activities
	# LIST" for each (which activity costs what).
	rounds=${ROUNDS:-3}
	labels="torch_plain torch_traced torch_prof_cuda torch_prof_cpu"
	[ -n "${GS_LIB_B:-}" ] && labels="$labels torch_traced_b"
	read -r -a act_sets <<<"${GS_ACTIVITY_SETS:-}"
	for a in "${!act_sets[@]}"; do labels="$labels torch_act$a"; done
	for r in $(seq 1 "$rounds"); do
		echo
		echo "--- round $r of $rounds"
		run torch_plain.$r python3 bench/overhead/torch_overhead.py
		run torch_traced.$r "$gs" record -o "$W/torch_traced.db" -- python3 bench/overhead/torch_overhead.py
		run torch_prof_cuda.$r python3 bench/overhead/torch_overhead.py --profiler cuda
		run torch_prof_cpu.$r python3 bench/overhead/torch_overhead.py --profiler cpu+cuda
		if [ -n "${GS_LIB_B:-}" ]; then
			GAPSCOPE_LIB=$GS_LIB_B run torch_traced_b.$r "$gs" record -o "$W/torch_traced_b.db" -- \
				python3 bench/overhead/torch_overhead.py
		fi
		for a in "${!act_sets[@]}"; do
			run torch_act$a.$r "$gs" record --activities "${act_sets[$a]}" -o "$W/torch_act$a.db" -- \
				python3 bench/overhead/torch_overhead.py
		done
	done
	tall() { # each round's figure of one configuration
		for r in $(seq 1 "$rounds"); do
			sed -n 's/^torch_eager mode=.* us_per_step=\([0-9.]*\)$/\1/p' "$W/$1.$r.txt"
		done
	}
	tfig() { # their median
		tall "$1" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	}
	p=$(tfig torch_plain)
	echo
	echo "PyTorch eager step (8 x matmul+gelu, synchronized), µs per step: median of $rounds rounds (each round's figure):"
	printf '%-28s %9s %6s  %-34s %s\n' run us/step ratio "rounds" "DESIGN.md reference (H200)"
	for l in $labels; do
		case $l in
		torch_plain) name=untraced ref="~300-325" ;;
		torch_traced) name="gapscope record" ref="goal: below torch.profiler CUDA-only" ;;
		torch_traced_b) name="gapscope record (GS_LIB_B)" ref="" ;;
		torch_prof_cuda) name="torch.profiler CUDA only" ref="~477" ;;
		torch_prof_cpu) name="torch.profiler CPU+CUDA" ref="~783" ;;
		torch_act*) name="--activities ${act_sets[${l#torch_act}]}" ref="" ;;
		esac
		v=$(tfig $l)
		awk -v n="$name" -v v="${v:-nan}" -v p="${p:-nan}" -v ref="$ref" -v all="$(tall $l | tr '\n' ' ')" \
			'BEGIN { printf "%-28s %9s %6.2f  %-34s %s\n", n, v, v / p, all, ref }'
	done
else
	echo "(python3 cannot import torch with CUDA: PyTorch comparison skipped)"
fi
exit $failed
