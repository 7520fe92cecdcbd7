#!/bin/bash
# run_writer_bench.sh - writer throughput (bench/speed/writer_throughput.c) a few
# times on this machine's CPU, with what else was running, for
# docs/collector.md's performance section. Needs no GPU.
#
# usage (from the repo root): [GS_BUILD=build] [OUT=out] [ROUNDS=5]
#        [RECORDS=2000000] [MIXES="uniform varied"] bench/speed/run_writer_bench.sh
# Each round runs every mix once (writer_throughput's third argument).
# Writes $OUT/writer_bench.txt (also printed) and leaves $OUT/writer_throughput.db.
set -u
build=${GS_BUILD:-build}
out=${OUT:-out}
rounds=${ROUNDS:-5}
records=${RECORDS:-2000000}
mixes=${MIXES:-uniform varied}
bin="$build/bin/writer_throughput"
if [ ! -x "$bin" ]; then
	echo "run_writer_bench.sh: $bin not found: build the writer_throughput target first" >&2
	exit 2
fi
mkdir -p "$out"
log="$out/writer_bench.txt"
{
	echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
	echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	for i in $(seq 1 "$rounds"); do
		for mix in $mixes; do
			echo "## round $i, $mix (load $(cut -d' ' -f1 /proc/loadavg))"
			"$bin" "$records" "$out/writer_throughput.db" "$mix"
		done
	done
} 2>&1 | tee "$log"
