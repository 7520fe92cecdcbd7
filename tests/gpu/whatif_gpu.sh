#!/usr/bin/env bash
# whatif_gpu.sh - checks `gapscope whatif` against measured fixes (issue 53,
# item 4). The demos run each pitfall and its fix as phases of one program
# (NVTX ranges): implicit_sync (loss read back every step / every 50 steps,
# pageable / pinned upload, cudaMalloc+cudaFree each step / a reused buffer)
# and graph_conversion (launch + sync each / back to back / one CUDA Graph).
# Each demo is recorded once under `gapscope record`, and run RUNS times
# (default 3) untraced; per pair the predicted saving is what `gapscope whatif
# TRACE --fix RULE --range BEFORE_PHASE` says the fix saves of that phase's
# GPU window (a share), the measured one (before - after) / before of the
# demo's own untraced timings (us per step or per kernel, medians of the
# runs). A pair fails when they differ by more than TOL percent (default 15)
# of the measured share. Prints one line per pair and "N passed, N failed".
# Run from the repository root on a machine with an NVIDIA GPU:
#   GS_BUILD=build OUT=out tests/gpu/whatif_gpu.sh
# Exits 77 (skipped) where `nvidia-smi -L` finds no GPU, 0 when every pair
# is within TOL, 1 otherwise. With REUSE=DIR it records and runs nothing and
# reads DIR's traces and logs instead (a whatif/ folder an earlier run left,
# e.g. one brought back from a GPU machine): no GPU needed, so the predictions
# of the build at hand can be checked against recordings already measured.
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
W=${REUSE:-${OUT:-out}/whatif}
RUNS=${RUNS:-3}
TOL=${TOL:-15}
. tools/gpu-env.sh
gs_clean_env
[ -n "${REUSE:-}" ] || gs_need_gpu
mkdir -p "$W" || exit 1
G="$B/bin/gapscope"
fail() { echo "whatif_gpu: $*"; echo "0 passed, 1 failed"; exit 1; }
[ -x "$G" ] || fail "no $G: build first (GS_BUILD)"

demos=(implicit_sync graph_conversion)
[ -n "${REUSE:-}" ] && demos=()
for d in ${demos[@]+"${demos[@]}"}; do
	[ -x "$B/bin/gs_demo_$d" ] || fail "no $B/bin/gs_demo_$d (a build with CUDA)"
	rm -f "$W/$d.db"*
	"$G" record -o "$W/$d.db" -- "$B/bin/gs_demo_$d" >"$W/$d.traced.log" 2>&1 ||
		{ cat "$W/$d.traced.log"; fail "$d: record failed"; }
done
# untraced runs, interleaved so that a drift of the machine hits both demos
for r in $(seq "$RUNS"); do
	for d in ${demos[@]+"${demos[@]}"}; do
		"$B/bin/gs_demo_$d" >"$W/$d.untraced.$r.log" 2>&1 ||
			{ cat "$W/$d.untraced.$r.log"; fail "$d: untraced run $r failed"; }
	done
done

# us of the table line that holds LABEL in log $1 (its third-last field;
# the "check ..." lines name the variants too)
us_of() { grep -F -- "$2" "$1" | grep -v '^ *check ' | tail -1 | awk '{ print $(NF - 2) }'; }
# the median over the untraced runs of demo $1, label $2
us_median() {
	local r v=()
	for r in $(seq "$RUNS"); do v+=("$(us_of "$W/$1.untraced.$r.log" "$2")"); done
	printf '%s\n' "${v[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

pass=0
failed=0
printf '%-18s %-22s %-16s %9s %9s %9s %9s  %s\n' demo "before phase" fix "before us" \
	"after us" measured predicted verdict
# demo | before phase (NVTX) | whatif options | before label | after label
while IFS='|' read -r d phase opts lb la; do
	ub=$(us_median "$d" "$lb")
	ua=$(us_median "$d" "$la")
	line=$("$G" whatif "$W/$d.db" $opts --range "$phase" 2>&1 | grep '^saves ~')
	pred=$(sed -n 's/.*(\(-\{0,1\}[0-9.]*\)% of the GPU window).*/\1/p' <<<"$line")
	if [ -z "$ub" ] || [ -z "$ua" ] || [ -z "$pred" ]; then
		echo "$d $phase: no figure (before '$ub', after '$ua', whatif: '$line')"
		failed=$((failed + 1))
		continue
	fi
	verdict=$(awk -v b="$ub" -v a="$ua" -v p="$pred" -v tol="$TOL" 'BEGIN {
		m = 100 * (b - a) / b; d = p - m; if (d < 0) d = -d; am = m < 0 ? -m : m
		printf "%.1f %s", m, (d <= tol / 100 * am) ? "PASS" : "FAIL" }')
	meas=${verdict% *}
	v=${verdict#* }
	fix=$(awk '{ print $2 }' <<<"$opts")
	runs=$(for r in $(seq "$RUNS"); do
		awk -v b="$(us_of "$W/$d.untraced.$r.log" "$lb")" \
			-v a="$(us_of "$W/$d.untraced.$r.log" "$la")" \
			'BEGIN { if (b > 0) printf "%.1f ", 100 * (b - a) / b }'
	done)
	printf '%-18s %-22s %-16s %9s %9s %8s%% %8s%%  %s  (runs: %s)\n' "$d" "$phase" "$fix" "$ub" \
		"$ua" "$meas" "$pred" "$v" "${runs% }"
	if [ "$v" = PASS ]; then pass=$((pass + 1)); else failed=$((failed + 1)); fi
done <<'PAIRS'
implicit_sync|loss_every_step|--fix sync_every_step --every 50|loss read back every step|loss read back every 50 steps
implicit_sync|pageable_upload|--fix pageable_copies|+ batch from pageable memory|loss read back every 50 steps
implicit_sync|malloc_free_each_step|--fix alloc_in_loop|+ cudaMalloc/cudaFree each step|loss read back every 50 steps
graph_conversion|launch_sync_each|--fix sync_every_step --every 1000|launch + sync each|back to back, one stream
graph_conversion|back_to_back|--fix launch_overhead|back to back, one stream|one CUDA Graph of 1000
PAIRS
echo "(measured: (before - after) / before of the untraced us, medians of $RUNS runs;"
echo " predicted: gapscope whatif's saving of the before phase's GPU window, from the traced run"
echo "   (tracing's cost taken off first where the trace is calibrated: docs/whatif.md);"
echo " PASS when within $TOL% of the measured share)"
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
