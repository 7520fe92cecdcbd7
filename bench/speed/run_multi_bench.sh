#!/usr/bin/env bash
# run_multi_bench.sh - the multi-trace report benchmark (issue 21): N traces
# (default 64) of K kernels each (default 100000, with their launch calls
# and one NVTX "chunk" range per 1000 kernels: bench/speed/gen_trace.c), in one
# folder; times `gapscope report FOLDER` (wall, CPU, peak RSS) ROUNDS times
# (default 3). Target: <= 10 s for 64 traces of 100k ops.
#   usage: [ROUNDS=3] GS_BUILD=build bench/speed/run_multi_bench.sh [traces] [kernels]
# The traces are copies of one generated trace (the report reads each one
# on its own: copies cost it as much as distinct traces). Writes only under
# a mktemp folder (removed at the end). It prints figures; it asserts nothing.
set -euo pipefail
BUILD=${GS_BUILD:-build}
N=${1:-64}
K=${2:-100000}
ROUNDS=${ROUNDS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$BUILD/bin/gs_gen_trace" "$TMP/gen.db" "$K" 4 > /dev/null
mkdir "$TMP/traces"
for i in $(seq 0 $((N - 1))); do
	cp "$TMP/gen.db" "$TMP/traces/run-$i.db"
done
echo "$N traces of $K kernels, $(du -sm "$TMP/traces" | cut -f1) MB; $(nproc) cores"
cat "$TMP/traces"/*.db > /dev/null
for r in $(seq 1 "$ROUNDS"); do
	/usr/bin/time -f "round $r: %e s wall, %U s user, %S s sys, %M KB peak" \
		"$BUILD/bin/gapscope" report "$TMP/traces" > "$TMP/out.txt"
done
grep -m1 "Stragglers" "$TMP/out.txt" || true
