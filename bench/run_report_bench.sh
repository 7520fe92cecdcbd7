#!/usr/bin/env bash
# run_report_bench.sh - the `gapscope report` benchmark: generate a synthetic
# trace (default 10M kernels + their launch calls, 4 streams) into a
# temporary folder, then time `gapscope report` on it (wall and peak RSS)
# and one sqlite3 scan of the kernel table, and print both and the ratio.
# Targets (issue 3): report <= 10 s, <= 2 GB peak, <= 3x the scan.
#   usage: GS_BUILD=build-x bench/run_report_bench.sh [kernels] [streams]
# Run from the repository root. Writes only under a mktemp folder (removed
# at the end) and "${OUT:-out}/report_bench.txt".
set -euo pipefail
BUILD=${GS_BUILD:-build}
N=${1:-10000000}
S=${2:-4}
OUTDIR=${OUT:-out}
mkdir -p "$OUTDIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DB="$TMP/bench.db"

now() { date +%s.%N; }

t0=$(now)
"$BUILD/bin/gs_gen_trace" "$DB" "$N" "$S"
t1=$(now)
echo "generate: $(echo "$t1 - $t0" | bc) s, $(du -m "$DB" | cut -f1) MB"

# warm the page cache the same way for both measurements
cat "$DB" > /dev/null

t0=$(now)
scan=$(sqlite3 "$DB" 'SELECT count(*), sum(end-start) FROM kernels')
t1=$(now)
scan_s=$(echo "$t1 - $t0" | bc)
echo "sqlite3 scan: $scan_s s (count|sum = $scan)"

if [ -x /usr/bin/time ]; then
	/usr/bin/time -v "$BUILD/bin/gapscope" report "$DB" > "$TMP/report.txt" 2> "$TMP/time.txt"
	rep_s=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$TMP/time.txt")
	rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time.txt")
else
	t0=$(now)
	"$BUILD/bin/gapscope" report "$DB" > "$TMP/report.txt"
	t1=$(now)
	rep_s=$(echo "$t1 - $t0" | bc)
	rss_kb=unknown
fi
ratio=$(echo "scale=2; $rep_s / $scan_s" | bc)
{
	echo "kernels: $N, streams: $S"
	echo "sqlite3 scan of kernels: $scan_s s"
	echo "gapscope report: $rep_s s, peak RSS ${rss_kb} kB"
	echo "ratio report/scan: $ratio (target <= 3), report target <= 10 s and <= 2097152 kB"
} | tee "$OUTDIR/report_bench.txt"
head -20 "$TMP/report.txt"
