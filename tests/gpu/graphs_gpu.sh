#!/usr/bin/env bash
# graphs_gpu.sh - GPU test of CUDA graph recording (issue 6), run from the
# repository root on a machine with an NVIDIA GPU and a build folder made
# elsewhere:
#
#   GS_BUILD=build OUT=out tests/gpu/graphs_gpu.sh
#
# 1. records the graph-conversion demo (gs_demo_graph_conversion --quick
#    --dot-dir ...) under `gapscope record`, lists its graphs with
#    `gapscope graph`, and checks with tests/gpu/check_graphs.py that every
#    DOT file cudaGraphDebugDotPrint wrote has the node and edge counts, node
#    types and kernel names of the graph recorded for it;
# 2. records tests/gpu/torch_cudagraph.py (torch.cuda.CUDAGraph) and checks
#    the captured graph: >= 16 kernel nodes, 200 launches, every kernel mapped
#    to its node (SKIP when python3 cannot import torch with CUDA).
# Everything goes to $OUT/graphs-gpu/ (databases, DOT files, lists, logs).
# Prints PASS/FAIL/SKIP lines and "N passed, N failed"; exits 1 when
# anything failed, 77 (skipped) where `nvidia-smi -L` finds no GPU. Needs
# only python3's stdlib (sqlite3), no Graphviz. It does not judge timings.
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
OUT=${OUT:-out}
W="$OUT/graphs-gpu"
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu

gs="$B/bin/gapscope"
demo="$B/bin/gs_demo_graph_conversion"
checker=tests/gpu/check_graphs.py
pass=0 fail=0

result() { # result <0 = pass> <what>
	if [ "$1" = 0 ]; then
		echo "PASS: $2"
		pass=$((pass + 1))
	else
		echo "FAIL: $2"
		fail=$((fail + 1))
	fi
}
run_checker() { # run_checker <label> <args...>: its PASS/FAIL lines count
	local out p f
	out=$(python3 "$checker" "${@:2}" 2>&1)
	echo "$out" | sed "s/^/[$1] /"
	p=$(echo "$out" | grep -c '^PASS: ')
	f=$(echo "$out" | grep -c '^FAIL: ')
	pass=$((pass + p))
	fail=$((fail + f))
	[ $((p + f)) -gt 0 ] || result 1 "$1: checker ran no checks"
}
finish() {
	echo "$pass passed, $fail failed"
	[ $fail = 0 ]
	exit $?
}

for f in "$gs" "$demo"; do
	[ -x "$f" ] || result 1 "$f exists (build with the CUDA Toolkit and carry the build folder)"
done
[ $fail = 0 ] || finish
rm -rf "$W"
mkdir -p "$W/dot" || exit 1
nvidia-smi -L

# 1. graph-conversion demo: recorded topology vs cudaGraphDebugDotPrint
db="$W/graph_conversion.db"
"$gs" record -o "$db" -- "$demo" --quick --dot-dir "$W/dot" >"$W/graph_conversion.log" 2>&1
rc=$?
result $rc "demo under gapscope record: exit status 0 (got $rc; see $W/graph_conversion.log)"
grep -qx 'result: PASS' "$W/graph_conversion.log"
result $? "demo: its own checks pass (result: PASS)"
if [ -f "$db" ]; then
	"$gs" graph "$db" >"$W/graph_conversion.graphs.txt" 2>"$W/graph_conversion.graphs.err"
	rc=$?
	cat "$W/graph_conversion.graphs.txt" "$W/graph_conversion.graphs.err"
	result $rc "gapscope graph lists the demo's graphs (exit $rc)"
	run_checker demo demo "$db" "$W/dot" "$W/graph_conversion.graphs.txt"
else
	result 1 "demo: database $db written"
fi

# 2. torch.cuda.CUDAGraph
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	db="$W/torch_cudagraph.db"
	"$gs" record -o "$db" -- python3 tests/gpu/torch_cudagraph.py >"$W/torch_cudagraph.log" 2>&1
	rc=$?
	cat "$W/torch_cudagraph.log"
	result $rc "torch_cudagraph.py under gapscope record: exit status 0 (got $rc)"
	grep -qx 'result: PASS' "$W/torch_cudagraph.log"
	result $? "torch_cudagraph.py: graph replay equals the eager step (result: PASS)"
	if [ -f "$db" ]; then
		"$gs" graph "$db" >"$W/torch_cudagraph.graphs.txt" 2>&1
		rc=$?
		cat "$W/torch_cudagraph.graphs.txt"
		result $rc "gapscope graph lists the torch trace's graphs (exit $rc)"
		run_checker torch torch "$db" "$W/torch_cudagraph.graphs.txt"
	else
		result 1 "torch: database $db written"
	fi
else
	echo "SKIP: torch with CUDA not importable by python3"
fi
finish
