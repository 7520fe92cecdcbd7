#!/bin/sh
# run_fuzz_import.sh FUZZER SEEDS WORKDIR - a bounded fuzz run of an import
# target (fuzz_kineto, fuzz_nsys): the committed seeds (tests/fuzz/corpus/
# <target>, read only) and what earlier runs kept in WORKDIR/corpus, for
# GAPSCOPE_FUZZ_SECONDS (default 20: ctest, label fuzz). Exit 77 (skipped)
# without a fuzzer; libFuzzer's exit status otherwise (non-zero on a crash, a
# sanitizer report, a leak or a hang past -timeout). Crashes go to
# WORKDIR/artifacts.
fuzzer=$1 seeds=$2 work=$3
if [ -z "$fuzzer" ] || [ ! -x "$fuzzer" ]; then
	echo "$(basename "${fuzzer:-fuzz_import}"): no clang libFuzzer here: skipped"
	exit 77
fi
secs=${GAPSCOPE_FUZZ_SECONDS:-20}
mkdir -p "$work/corpus" "$work/artifacts" || exit 1
exec "$fuzzer" -max_total_time="$secs" -timeout="${GAPSCOPE_FUZZ_TIMEOUT:-20}" -rss_limit_mb=4096 -max_len=200000 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds"
