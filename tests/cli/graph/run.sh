#!/usr/bin/env bash
# CLI tests of `gapscope graph`: runs the real binary on databases built from
# the fixtures next to this script (their comments work out the expected
# figures by hand) and compares what it prints and writes.
# Usage: run.sh GAPSCOPE GRAPH_MKDB WORKDIR CASE
set -u
gs=$1 mkdb=$2 work=$3 case=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
cd "$work" || exit 1

fail() {
	echo "FAIL ($case): $*" >&2
	exit 1
}
db() { # db NAME: build NAME.db from NAME.sql
	"$mkdb" "$1.db" "$here/$1.sql" || fail "cannot build $1.db"
}
# expect RC WANT_STDOUT WANT_STDERR -- ARGS...
expect() {
	local rc=$1 out=$2 err=$3
	shift 4
	"$gs" graph "$@" >stdout.txt 2>stderr.txt
	local got=$?
	[ "$got" = "$rc" ] || fail "exit $got, want $rc; stderr: $(cat stderr.txt)"
	[ "$(cat stdout.txt)" = "$out" ] || fail "stdout:
$(cat stdout.txt)
want:
$out"
	[ "$(cat stderr.txt)" = "$err" ] || fail "stderr:
$(cat stderr.txt)
want:
$err"
}
# svg_check FILE NODES EDGES TEXT...: well-formed XML, NODES node groups,
# EDGES edge groups, and each TEXT among the <text> elements
svg_check() {
	python3 - "$@" <<'EOF' || fail "SVG check of $1"
import sys, xml.etree.ElementTree as ET
path, nodes, edges, texts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
root = ET.parse(path).getroot()          # raises on malformed XML
S = '{http://www.w3.org/2000/svg}'
groups = [g.get('class') for g in root.iter(S + 'g')]
got_nodes, got_edges = groups.count('node'), groups.count('edge')
alltext = [''.join(t.itertext()) for t in root.iter(S + 'text')]
ok = got_nodes == nodes and got_edges == edges
for want in texts:
    if want not in alltext:
        print('missing text %r in %r' % (want, alltext)); ok = False
if got_nodes != nodes or got_edges != edges:
    print('nodes %d (want %d), edges %d (want %d)' % (got_nodes, nodes, got_edges, edges))
sys.exit(0 if ok else 1)
EOF
}
png_check() {
	[ -s "$1" ] || fail "$1 missing or empty"
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] ||
		fail "$1 has no PNG signature"
}

case $case in
list)
	db basic
	expect 0 "basic.db: 4 CUDA graphs
   graph  origin    nodes   edges  execs  launches   GPU ops   GPU time us     us/launch  note
       1  created       4       4      1         2         8        22.000        11.000
       2  capture      11      10      0         0         0         0.000             -
       3  clone         2       1      0         0         0         0.000             -  child graph of node 211 in graph 2; 1 node update in place
       4  created       2       1      1         1         3         2.000         2.000  2 node updates in place" "" -- basic.db
	;;
hidden)
	db hidden
	expect 0 "hidden.db: 5 CUDA graphs
   graph  origin    nodes   edges  execs  launches   GPU ops   GPU time us     us/launch  note
       1  created       2       1      1         1         2         4.000         4.000
       4  created       0       0      1         1         0         0.000         0.000
3 empty graphs not shown; --all lists them" "" -- hidden.db
	expect 0 "hidden.db: 5 CUDA graphs
   graph  origin    nodes   edges  execs  launches   GPU ops   GPU time us     us/launch  note
       1  created       2       1      1         1         2         4.000         4.000
       3  created       0       0      0         0         0         0.000             -
       4  created       0       0      1         1         0         0.000         0.000
       6  capture       0       0      1         0         0         0.000             -
       8  clone         0       0      0         0         0         0.000             -  clone of graph 1" "" -- hidden.db --all
	db hidden_only
	expect 0 "hidden_only.db: 1 CUDA graph
1 empty graph not shown; --all lists them" "" -- hidden_only.db
	expect 2 "" "gapscope: graph: --all is for the list; drop it when drawing with --id or --streams" -- hidden.db --all --id 1
	;;
empty)
	db empty
	expect 0 "empty.db: no CUDA graphs in this trace" "" -- empty.db
	;;
svg_stats)
	db basic
	rm -f g1.svg
	expect 0 "g1.svg: 4 nodes, 4 edges; 4 drawn (0 chains collapsed); critical path 3 nodes, 10.000 us" "" -- basic.db --id 1 --stats -o g1.svg
	svg_check g1.svg 4 4 "scale<…>" "gemm" "gelu" "memcpy 4.0 KiB" \
		"mean 6.0 µs, p90 7.0 µs" "54.5% of graph time" \
		"CUDA graph 1 (created): 4 nodes, 2 launches, 22.000 us GPU time"
	;;
png_child)
	db basic
	rm -f g2.png
	expect 0 "g2.png: 13 nodes, 11 edges; 3 drawn (1 chain collapsed); critical path 12 nodes, unmeasured" "" -- basic.db --id 2 -o g2.png
	png_check g2.png
	;;
collapse_off)
	db basic
	expect 0 "g2.svg: 13 nodes, 11 edges; 12 drawn (0 chains collapsed); critical path 12 nodes, unmeasured" "" -- basic.db --id 2 --collapse 0 -o g2.svg
	# 10 chain nodes + 31 + 32; edges: 9 in the chain, 210 -> child, 31 -> 32
	svg_check g2.svg 12 11 "small" "foo<…>" "empty" "child graph 3"
	;;
dot_stdout)
	db basic
	"$gs" graph basic.db --id 1 -o - >g1.dot 2>stderr.txt || fail "exit $?: $(cat stderr.txt)"
	[ -s stderr.txt ] && fail "stderr: $(cat stderr.txt)"
	head -1 g1.dot | grep -q '^digraph gapscope {$' || fail "not DOT: $(head -1 g1.dot)"
	[ "$(grep -c -- ' -> ' g1.dot)" = 4 ] || fail "want 4 edges in g1.dot"
	# dot itself reads it back (when the Graphviz command is installed)
	if command -v dot >/dev/null; then
		dot -Tsvg g1.dot -o g1-from-dot.svg || fail "dot cannot read g1.dot"
		svg_check g1-from-dot.svg 4 4 gemm
	fi
	;;
hostile)
	db hostile
	for f in h.dot h.svg h.png; do
		rm -f $f
		expect 0 "$f: 4 nodes, 3 edges; 4 drawn (0 chains collapsed); critical path 4 nodes, unmeasured" "" -- hostile.db --id 5 -o $f
	done
	svg_check h.svg 4 3 "hostile<…>" "<lambda>" "very_long_kernel<…>"
	png_check h.png
	python3 - <<'EOF' || fail "hostile names lost in the SVG tooltips"
import xml.etree.ElementTree as ET
root = ET.parse('h.svg').getroot()
tips = [a.get('{http://www.w3.org/1999/xlink}title') or '' for a in root.iter('{http://www.w3.org/2000/svg}a')]
want = ['void hostile<"quoted">(char const*, {braces}) \\N back\\slash',
        'line1?line2 </text></svg> & &amp; ]]>', '<lambda>']
missing = [w for w in want if not any(w in t for t in tips)]
if missing: print(missing, tips[:4]); raise SystemExit(1)
EOF
	if command -v dot >/dev/null; then
		dot -Tsvg h.dot -o h-from-dot.svg || fail "dot cannot read h.dot"
		svg_check h-from-dot.svg 4 3 "<lambda>"
	fi
	;;
streams)
	db streams
	expect 0 "s.svg: 5 nodes, 4 edges; 5 drawn (0 chains collapsed); critical path 5 nodes, 3.500 us" "" -- streams.db --streams --range step --stats -o s.svg
	svg_check s.svg 5 4 "k1" "k2" "k3" "wait event" "memcpy 1.0 KiB" "stream 1" "stream 2"
	;;
bad_input)
	db basic
	db streams
	printf 'not a database at all, just some text that is long enough' >text.db
	expect 2 "" "gapscope: basic.db: no graph with id 9; run 'gapscope graph basic.db' to list them" -- basic.db --id 9 -o x.svg
	expect 2 "" "gapscope: x.jpg: unknown output format; name the file .dot, .svg or .png, or use -o - for DOT on standard output" -- basic.db --id 1 -o x.jpg
	expect 2 "" "gapscope: missing.db: cannot open: No such file or directory" -- missing.db
	expect 2 "" "gapscope: text.db: not a gapscope trace (not an SQLite database)" -- text.db --id 1
	expect 2 "" "gapscope: graph: --id wants a graph id (a whole number), not '1x'" -- basic.db --id 1x
	expect 2 "" "gapscope: graph: --collapse wants a node count (0 or more), not '-3'" -- basic.db --id 1 --collapse -3
	expect 2 "" "gapscope: graph: --streams needs --range NAME" -- basic.db --streams
	expect 2 "" "gapscope: graph: unknown option '--bogus'; see 'gapscope graph --help'" -- basic.db --bogus
	expect 2 "" "gapscope: graph: option '--id' needs a value; see 'gapscope graph --help'" -- basic.db --id
	expect 2 "" "gapscope: graph: no trace given; usage: gapscope graph TRACE.db [--id N]" --
	expect 2 "" "gapscope: streams.db: no NVTX range named 'nope'" -- streams.db --streams --range nope
	expect 2 "" "gapscope: streams.db: the NVTX range 'step' occurs 1 time, not 2" -- streams.db --streams --range step --nth 2
	expect 2 "" "gapscope: /nonexistent-dir/g.svg: cannot write: No such file or directory" -- basic.db --id 1 -o /nonexistent-dir/g.svg
	;;
help)
	"$gs" graph --help >help.txt 2>&1 || fail "--help exit $?"
	for opt in --all --id --output --stats --collapse --streams --range --nth --max-ops; do
		grep -q -- "$opt" help.txt || fail "--help does not mention $opt"
	done
	;;
*)
	fail "unknown case"
	;;
esac
exit 0
