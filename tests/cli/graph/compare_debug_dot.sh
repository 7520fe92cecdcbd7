#!/usr/bin/env bash
# compare_debug_dot.sh - the "Done means" check of issue 6, run on a machine
# with Graphviz (not on the GPU machine): every graph the graph-conversion
# demo wrote with cudaGraphDebugDotPrint must have a recorded graph in the
# trace with the same node and edge counts.
# usage: compare_debug_dot.sh GAPSCOPE TRACE.db DOT_DIR
#   GAPSCOPE  the gapscope binary; TRACE.db the demo's trace (recorded on the
#   GPU); DOT_DIR the folder holding graph_conversion_*.dot from the same run.
# Counts of the DOT files come from Graphviz's `gc`; those of the trace from
# `gapscope graph TRACE.db` (top-level graphs; child graphs are listed, and
# counted, separately). Prints one line per DOT file; exit 0 when all match.
set -u
gs=$1 db=$2 dir=$3
command -v gc >/dev/null || { echo "needs Graphviz's gc command" >&2; exit 2; }
list=$("$gs" graph "$db") || exit 2
echo "$list"
# "nodes edges" of every listed graph
pairs=$(echo "$list" | awk 'NR > 2 && $1 ~ /^[0-9]+$/ { print $3, $4 }')
rc=0 n=0
for f in "$dir"/graph_conversion_*.dot; do
	[ -e "$f" ] || { echo "no graph_conversion_*.dot in $dir" >&2; exit 2; }
	case $(basename "$f") in # DOT that demos/run_all drew with gapscope itself
	graph_conversion_graph_*.dot | graph_conversion_streams_*.dot) continue ;;
	esac
	n=$((n + 1))
	nodes=$(gc -n "$f" | awk '{ s += $1 } END { print s }')
	edges=$(gc -e "$f" | awk '{ s += $1 } END { print s }')
	if echo "$pairs" | grep -qx "$nodes $edges"; then
		echo "match   $(basename "$f"): $nodes nodes, $edges edges"
	else
		echo "MISSING $(basename "$f"): $nodes nodes, $edges edges; no recorded graph has these counts"
		rc=1
	fi
done
echo "$n DOT files checked"
exit $rc
