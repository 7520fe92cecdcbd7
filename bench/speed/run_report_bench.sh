#!/usr/bin/env bash
# run_report_bench.sh - the `gapscope report` benchmark: generate a synthetic
# trace (default 10M kernels + their launch calls, 4 streams) into a
# temporary folder, then time `gapscope report` on it (wall, CPU and peak
# RSS) against scans of the kernel table by SQLite
# (SELECT count(*), sum(end-start) FROM kernels, with the sqlite3 CLI, or
# Python's sqlite3 module where there is no CLI): ROUNDS scans (default 3),
# then ROUNDS + 1 reports back to back. Prints every run, the ratio of the
# first report (fresh memory) and the ratio of the medians of the repeated
# ones. Targets (issue 3): report <= 10 s, <= 2 GB peak, <= 3x the scan.
#   usage: [ROUNDS=3] GS_BUILD=build bench/speed/run_report_bench.sh [kernels] [streams]
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
if command -v sqlite3 > /dev/null; then
	how="sqlite3 CLI"
else
	how="python3 sqlite3 module"
fi
scan_once() {
	if command -v sqlite3 > /dev/null; then
		sqlite3 "$DB" "$Q"
	else
		python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone())' "$DB" "$Q"
	fi
}

# One `gapscope report` run: prints "wall cpu user sys rss_kb faults".
report_once() {
	local t0 t1
	if [ -x /usr/bin/time ]; then
		t0=$(now)
		/usr/bin/time -v "$BUILD/bin/gapscope" report "$DB" > "$TMP/report.txt" 2> "$TMP/time.txt"
		t1=$(now)
		# minor faults: first touches of fresh memory (4 KB pages, or
		# 2 MB ones where transparent huge pages are used)
		awk -F': ' -v w="$(sec "$t0" "$t1")" '
			/User time/ {u=$2} /System time/ {s=$2}
			/Maximum resident set size/ {r=$2}
			/Minor \(reclaiming a frame\) page faults/ {f=$2}
			END {printf "%s %.2f %.2f %.2f %s %s\n", w, u + s, u, s, r, f}' "$TMP/time.txt"
	else
		# no GNU time (e.g. a bare Ubuntu): the same figures from
		# getrusage() of the child, through Python's resource module
		t0=$(now)
		python3 -c '
import resource, subprocess, sys
with open(sys.argv[2], "w") as out:
    subprocess.run([sys.argv[1], "report", sys.argv[3]], stdout=out, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.2f %.2f %.2f %d" % (r.ru_utime + r.ru_stime, r.ru_utime, r.ru_stime, r.ru_maxrss))' \
			"$BUILD/bin/gapscope" "$TMP/report.txt" "$DB" > "$TMP/ru.txt"
		t1=$(now)
		read -r c u s r < "$TMP/ru.txt"
		echo "$(sec "$t0" "$t1") $c $u $s $r unknown"
	fi
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# ROUNDS scans, then ROUNDS + 1 reports back to back. The first report
# is shown on its own: it takes its memory fresh from the kernel, which
# on virtual machines that hand freed memory back to the host (free page
# reporting, as on the development VM) costs 1-3 s per GB to fault in
# again; the later runs reuse the memory the run before freed, as a
# machine without that cost always does (docs/report.md, "Speed").
ROUNDS=${ROUNDS:-3}
: > "$TMP/scans"
for ((r = 0; r < ROUNDS; r++)); do
	t0=$(now)
	scan=$(scan_once)
	t1=$(now)
	sec "$t0" "$t1" >> "$TMP/scans"
	echo >> "$TMP/scans"
done
scan_s=$(median < "$TMP/scans")
: > "$TMP/runs"
for ((r = 0; r <= ROUNDS; r++)); do
	report_once >> "$TMP/runs"
done
read -r first_w first_c first_u first_s first_r first_f < "$TMP/runs"
rep_s=$(tail -n +2 "$TMP/runs" | cut -d' ' -f1 | median)
ratio() { awk -v a="$1" -v b="$scan_s" 'BEGIN { printf "%.2f", a / b }'; }
{
	echo "trace: $(du -m "$DB" | cut -f1) MB; generated with $N kernels, $S streams unless GS_BENCH_DB"
	echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "scan of kernels ($how), $ROUNDS runs: $(tr '\n' ' ' < "$TMP/scans")s; median $scan_s s -> $scan"
	echo "gapscope report, first run (fresh memory): $first_w s wall, CPU $first_c s (user $first_u s, sys $first_s s), peak RSS $first_r kB, minor page faults $first_f; ratio $(ratio "$first_w")"
	tail -n +2 "$TMP/runs" | while read -r w c u s rss f; do
		echo "gapscope report, repeated run: $w s wall, CPU $c s (user $u s, sys $s s), peak RSS $rss kB, minor page faults $f; ratio $(ratio "$w")"
	done
	echo "ratio report/scan, medians of the repeated runs: $(ratio "$rep_s") ($rep_s s / $scan_s s); first run $(ratio "$first_w")"
	echo "targets: ratio <= 3, report <= 10 s, peak <= 2097152 kB"
} | tee "$OUTDIR/report_bench.txt"
head -12 "$TMP/report.txt"
