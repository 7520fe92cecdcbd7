#!/usr/bin/env bash
# run_verdict_savings_bench.sh - what the verdict's savings (each finding's
# fix replayed: `saves ≈ X (Y%)`) cost `gapscope report`, for two builds
# in the same run, interleaved: ROUNDS (default 3) times, each build's
# `gapscope report` (CPU: user + sys, from /usr/bin/time) and its
# gs_bench_whatif (one round: CPU of the verdict without and with the
# savings, and of the savings alone: gs_whatif_verdict).
#   usage: [ROUNDS=3] bench/speed/run_verdict_savings_bench.sh OLD_BUILD NEW_BUILD TRACE.db
# OLD_BUILD, NEW_BUILD: build folders holding bin/gapscope and
# bin/gs_bench_whatif (Release). TRACE.db: e.g. `gs_gen_trace T.db 10000000 2`
# (two streams: two rules fire). On a shared machine compare CPU times,
# not wall times. It prints figures; it asserts nothing.
set -euo pipefail
if [ $# -ne 3 ] || [ ! -x "$1/bin/gapscope" ] || [ ! -x "$2/bin/gapscope" ]; then
	echo "usage: [ROUNDS=3] $0 OLD_BUILD NEW_BUILD TRACE.db" >&2
	exit 2
fi
ROUNDS=${ROUNDS:-3}
DB=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cat "$DB" > /dev/null
for r in $(seq "$ROUNDS"); do
	for side in old new; do
		b=$1
		[ $side = new ] && b=$2
		/usr/bin/time -f '%U %S %M' -o "$TMP/time" "$b/bin/gapscope" report "$DB" > /dev/null
		read -r u s kb < "$TMP/time"
		v=$("$b/bin/gs_bench_whatif" "$DB" 1 | awk '
			/^verdict:/ { gsub(/[(),]/, " ")
				for (i = 1; i <= NF; i++) if ($i == "cpu") c[++n] = $(i + 1) }
			/^savings alone/ { gsub(/[(),]/, " ")
				for (i = 1; i <= NF; i++) if ($i == "cpu") sa = $(i + 1) }
			END { printf "verdict %.3f s, with the savings %.3f s (difference %.3f s); savings alone %.3f s",
				     c[1], c[2], c[2] - c[1], sa }')
		awk -v r="$r" -v side="$side" -v u="$u" -v s="$s" -v kb="$kb" -v v="$v" 'BEGIN {
			printf "round %s %s: report cpu %.2f s (user %.2f, sys %.2f, peak %.0f MB); %s\n",
			       r, side, u + s, u, s, kb / 1024, v }'
	done
done
