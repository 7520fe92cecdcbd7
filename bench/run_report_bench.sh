#!/usr/bin/env bash
# run_report_bench.sh - the `gapscope report` benchmark: generate a synthetic
# trace (default 10M kernels + their launch calls, 4 streams) into a
# temporary folder, then time `gapscope report` on it (wall, CPU and peak
# RSS) and one scan of the kernel table by SQLite
# (SELECT count(*), sum(end-start) FROM kernels, with the sqlite3 CLI, or
# Python's sqlite3 module where there is no CLI), and print both and the
# ratio. Targets (issue 3): report <= 10 s, <= 2 GB peak, <= 3x the scan.
#   usage: GS_BUILD=build bench/run_report_bench.sh [kernels] [streams]
# Run from the repository root. Writes only under a mktemp folder (removed
# at the end) and "${OUT:-out}/report_bench.txt". Set GS_BENCH_DB to an
# existing trace to skip the generation (it is then not removed).
# It prints figures; it asserts nothing.
set -euo pipefail
BUILD=${GS_BUILD:-build}
N=${1:-10000000}
S=${2:-4}
OUTDIR=${OUT:-out}
mkdir -p "$OUTDIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }
sec() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

if [ -n "${GS_BENCH_DB:-}" ]; then
	DB=$GS_BENCH_DB
else
	DB="$TMP/bench.db"
	t0=$(now)
	"$BUILD/bin/gs_gen_trace" "$DB" "$N" "$S"
	t1=$(now)
	echo "generate: $(sec "$t0" "$t1") s, $(du -m "$DB" | cut -f1) MB"
fi

# warm the page cache the same way for both measurements
cat "$DB" > /dev/null
Q='SELECT count(*), sum(end-start) FROM kernels'
t0=$(now)
if command -v sqlite3 > /dev/null; then
	scan=$(sqlite3 "$DB" "$Q")
	how="sqlite3 CLI"
else
	scan=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone())' "$DB" "$Q")
	how="python3 sqlite3 module"
fi
t1=$(now)
scan_s=$(sec "$t0" "$t1")
echo "scan ($how): $scan_s s -> $scan"

rss_kb=unknown cpu_s=unknown faults=unknown
if [ -x /usr/bin/time ]; then
	t0=$(now)
	/usr/bin/time -v "$BUILD/bin/gapscope" report "$DB" > "$TMP/report.txt" 2> "$TMP/time.txt"
	t1=$(now)
	rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time.txt")
	cpu_s=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f s (user %.2f s, sys %.2f s)", u + s, u, s}' "$TMP/time.txt")
	# first touches of fresh memory (4 KB pages, or 2 MB ones where
	# transparent huge pages are used): on virtual machines these cost
	# seconds of kernel time per GB, docs/report.md "Speed"
	faults=$(awk -F': ' '/Minor \(reclaiming a frame\) page faults/ {print $2}' "$TMP/time.txt")
else
	# no GNU time (e.g. a bare Ubuntu): the same figures from getrusage()
	# of the child, through Python's resource module
	t0=$(now)
	read -r rss_kb cpu_s < <(python3 -c '
import resource, subprocess, sys
with open(sys.argv[2], "w") as out:
    subprocess.run([sys.argv[1], "report", sys.argv[3]], stdout=out, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_maxrss, "%.2f" % (r.ru_utime + r.ru_stime))' "$BUILD/bin/gapscope" "$TMP/report.txt" "$DB")
	cpu_s="$cpu_s s"
	t1=$(now)
fi
rep_s=$(sec "$t0" "$t1")
ratio=$(awk -v a="$rep_s" -v b="$scan_s" 'BEGIN { printf "%.2f", a / b }')
{
	echo "trace: $(du -m "$DB" | cut -f1) MB; generated with $N kernels, $S streams unless GS_BENCH_DB"
	echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "scan of kernels ($how): $scan_s s"
	echo "gapscope report: $rep_s s wall, CPU $cpu_s, peak RSS ${rss_kb} kB, minor page faults $faults"
	echo "ratio report/scan: $ratio (target <= 3); targets report <= 10 s, peak <= 2097152 kB"
} | tee "$OUTDIR/report_bench.txt"
head -12 "$TMP/report.txt"
