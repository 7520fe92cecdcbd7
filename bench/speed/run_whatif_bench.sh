#!/usr/bin/env bash
# run_whatif_bench.sh - the what-if replay against `gapscope report` on one
# synthetic trace (default 10M kernels + their launch calls, 4 streams,
# gs_gen_trace): ROUNDS (default 3) reports, then gs_bench_whatif (the
# replay alone, unchanged and with the launch_overhead fix, ROUNDS times)
# and ROUNDS `gapscope whatif --fix launch_overhead` runs (load + analysis
# + replay). Target (issue 53): the replay takes no longer than the report.
#   usage: [ROUNDS=3] GS_BUILD=build bench/speed/run_whatif_bench.sh [kernels] [streams]
# Run from the repository root. Writes only under a mktemp folder (removed
# at the end); GS_BENCH_DB names an existing trace instead. It prints
# figures; it asserts nothing.
set -euo pipefail
BUILD=${GS_BUILD:-build}
N=${1:-10000000}
S=${2:-4}
ROUNDS=${ROUNDS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
now() { date +%s.%N; }
sec() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
if [ -n "${GS_BENCH_DB:-}" ]; then
	DB=$GS_BENCH_DB
else
	DB="$TMP/bench.db"
	"$BUILD/bin/gs_gen_trace" "$DB" "$N" "$S"
fi
cat "$DB" > /dev/null
# wall and CPU (user + sys: the report reads with several threads)
for r in $(seq "$ROUNDS"); do
	t0=$(now)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$TMP/time" "$BUILD/bin/gapscope" report "$DB" > /dev/null
		c=$(awk '{ printf "%.3f", $1 + $2 }' "$TMP/time")
	else
		"$BUILD/bin/gapscope" report "$DB" > /dev/null
		c=?
	fi
	t1=$(now)
	echo "report: $(sec "$t0" "$t1") s (cpu $c s)"
done
"$BUILD/bin/gs_bench_whatif" "$DB" "$ROUNDS"
for r in $(seq "$ROUNDS"); do
	t0=$(now)
	"$BUILD/bin/gapscope" whatif "$DB" --fix launch_overhead > /dev/null
	t1=$(now)
	echo "whatif --fix launch_overhead (load + analysis + replays): $(sec "$t0" "$t1") s"
done
