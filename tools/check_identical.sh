#!/usr/bin/env bash
# Checks that two builds of gapscope write the same bytes: for a refactor
# that must not change any output (issue 56). Runs each read-only verb
# (report, report --json, html, export chrome, export csv, info, graph,
# whatif --check) with OLD and NEW on every trace given, and on the traces
# both import from torch.profiler and Nsight Systems fixtures, and compares
# standard output, standard error, the exit status and every file written.
#
# Usage: tools/check_identical.sh [--jobs N] OLD_GAPSCOPE NEW_GAPSCOPE PATH...
#   PATH: a trace database, or a folder searched for *.db (recursively) and
#   for import fixtures (*.json, *.json.gz, *.sqlite). Typical, after
#   `ctest` in a build folder has made the CLI tests' traces:
#     tools/check_identical.sh old/bin/gapscope build/bin/gapscope \
#         build-test/tests samples tests/cli/kineto tests/fuzz/corpus/nsys
# Prints one line per difference and a last line "N traces, N runs, N
# differ"; exits 1 when any output differs. Both binaries must be of the
# same version (the HTML page names it). --jobs N: N traces at a time.
# The fuzzers' working corpus
# (fuzz_work/) is skipped: it changes while they run.
set -uo pipefail
jobs=1
if [ "${1:-}" = --jobs ]; then
	jobs=$2
	shift 2
fi
one=0
if [ "${1:-}" = --one ]; then # internal: one trace, for --jobs
	one=1
	shift
fi
if [ $# -lt 3 ]; then
	echo "usage: $0 OLD_GAPSCOPE NEW_GAPSCOPE PATH..." >&2
	exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dbs=()
fixtures=()
for p in "$@"; do
	if [ -d "$p" ]; then
		while IFS= read -r -d '' f; do
			case "$f" in
			*.db) dbs+=("$(realpath "$f")") ;;
			*) fixtures+=("$(realpath "$f")") ;;
			esac
		done < <(find "$p" -path '*/fuzz_work' -prune -o -type f \
			\( -name '*.db' -o -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) -print0 | sort -z)
	else
		case "$p" in
		*.json | *.json.gz | *.sqlite) fixtures+=("$(realpath "$p")") ;;
		*) dbs+=("$(realpath "$p")") ;;
		esac
	fi
done

runs=0
differ=0
# run NAME DB ARGS...: the verb with both binaries, each in its own folder
# (outputs are written as out.* there), then compare the folders
run() {
	local name=$1 db=$2
	shift 2
	local d
	runs=$((runs + 1))
	for side in old new; do
		d=$work/$side
		rm -rf "$d"
		mkdir -p "$d"
		local bin=$old
		[ $side = new ] && bin=$new
		(cd "$d" && timeout 300 "$bin" "$@" >stdout 2>stderr
		 echo $? >status)
	done
	if ! diff -r -q "$work/old" "$work/new" >/dev/null; then
		differ=$((differ + 1))
		echo "DIFFER: $name: gapscope $* ($(diff -r -q "$work/old" "$work/new" | head -3 | tr '\n' ' '))"
	fi
}

n=0
check_db() {
	local db=$1
	n=$((n + 1))
	run report "$db" report "$db"
	run report-json "$db" report "$db" --json
	run html "$db" html "$db" -o out.html
	run export-chrome "$db" export "$db" --format chrome -o out.json
	run export-csv "$db" export "$db" --format csv -o out.csv
	run info "$db" info "$db"
	run graph "$db" graph "$db" --all
	run whatif "$db" whatif "$db" --check
}

if [ $one = 1 ]; then
	check_db "${dbs[0]}"
	echo "one: $runs $differ"
	exit 0
fi
if [ "$jobs" -gt 1 ] && [ ${#dbs[@]} -gt 0 ]; then
	while IFS= read -r line; do
		case "$line" in
		"one: "*)
			set -- $line
			n=$((n + 1))
			runs=$((runs + $2))
			differ=$((differ + $3))
			;;
		*) echo "$line" ;;
		esac
	done < <(printf '%s\0' "${dbs[@]}" | xargs -0 -n 1 -P "$jobs" "$0" --one "$old" "$new")
else
	for db in "${dbs[@]}"; do
		check_db "$db"
	done
fi
# imports: each binary imports the fixture; the two databases must hold the
# same rows (sqlite3 .dump), and the new import is then read by both
for f in "${fixtures[@]}"; do
	# the same relative output name on both sides: the messages name it
	for side in old new; do
		bin=$old
		[ $side = new ] && bin=$new
		rm -rf "$work/import-$side"
		mkdir -p "$work/import-$side"
		(cd "$work/import-$side" && timeout 300 "$bin" import "$f" -o trace.db >out 2>&1
		 echo $? >>out)
	done
	runs=$((runs + 1))
	if ! cmp -s "$work/import-old/out" "$work/import-new/out"; then
		differ=$((differ + 1))
		echo "DIFFER: import $f (messages or status)"
	fi
	if [ -f "$work/import-new/trace.db" ]; then
		runs=$((runs + 1))
		if ! cmp -s <(sqlite3 "$work/import-old/trace.db" .dump 2>&1) \
			<(sqlite3 "$work/import-new/trace.db" .dump 2>&1); then
			differ=$((differ + 1))
			echo "DIFFER: import $f (rows)"
		fi
		cp "$work/import-new/trace.db" "$work/imported.db"
		check_db "$work/imported.db"
	fi
done
echo "$n traces, $runs runs, $differ differ"
[ $differ = 0 ]
