#!/usr/bin/env python3
"""check_graphs.py - GPU test checker for issue 6 (CUDA graph topology).

Reads a trace database with python3's stdlib sqlite3 only (the H200 test
machine has no Graphviz and no SQLite headers) and prints one PASS/FAIL line
per check; exit status 1 when any check failed, 0 otherwise. It does not
record anything (tests/gpu/graphs_gpu.sh does) and does not judge timings.

  check_graphs.py demo TRACE.db DOT_DIR [LIST.txt]
      Every graph_conversion_*.dot that the graph-conversion demo wrote with
      cudaGraphDebugDotPrint has the same node count, edge count, node types
      and kernel names as the graph recorded for it in TRACE.db; its
      executions ran as its nodes (GPU ops = nodes x launches); and, given
      LIST.txt (the output of `gapscope graph TRACE.db`), the viewer's list
      shows the same node and edge counts for it.
  check_graphs.py torch TRACE.db [LIST.txt]
      tests/gpu/torch_cudagraph.py's torch.cuda.CUDAGraph (8 x Linear+GELU,
      200 replays): a recorded graph with >= 16 kernel nodes and 200 launches,
      and every kernel of those launches maps (kernels.graph_node_id, then
      graph_nodes.original_node_id) to one of its kernel nodes, each node
      running once per launch under its own kernel name.

Reading the CUDA DOT (a small regex, fine for a test checker):
cudaGraphDebugDotPrint writes one `subgraph cluster_<G>` per graph (<G> = the
CUDA graph id), each node as a line starting `"graph_<G>_node_<k>"[` whose
record label begins with the node type (`label="{KERNEL`, or `label="{` and
the type on the next line, as for MEMCPY), a kernel node's name in its `ID`
row as `| {ID | <k> (topoId: <t>) | <name>\\<\\<\\<grid,block,smem\\>\\>\\>}`,
and each dependency as a line `"graph_<G>_node_<a>" -> "graph_<G>_node_<b>"`.
Child graphs (cluster nested in a node) are not used by the demo; a DOT file
with more than one cluster is reported, not guessed at.

Matching a DOT file to a recorded graph: by graph id first. The cluster's <G>
is the id CUDA gives the graph (cudaGraphGetId), and CUPTI's graphId is that
same number (the 2026-12-02 H200 run: clusters 28, 31, 56, 57, 62 were the
recorded graphs 28, 31, 56, 57, 62, with the same counts). When the trace
has no graph with that id (a CUDA that numbers differently), the DOT is
matched by content instead: the first graph, in order of creation, not yet
matched, with the same node count, edge count, node-type multiset and
kernel-name multiset. Either way all four must agree for a PASS.

Counting a recorded graph's nodes and edges: graph_nodes rows with its
graph_id, less instantiation clones that CUDA reports in the graph itself
(a row whose original_node_id is a node of the same graph), and graph_edges
rows between the nodes counted; this is what `gapscope graph` counts too
(docs/graphs.md).
"""
import collections
import glob
import os
import re
import sqlite3
import sys

# CUgraphNodeType names as cudaGraphDebugDotPrint writes them -> our codes
DOT_TYPES = {"KERNEL": 0, "MEMCPY": 1, "MEMSET": 2, "HOST": 3, "GRAPH": 4, "EMPTY": 5,
             "WAIT_EVENT": 6, "EVENT_RECORD": 7, "EXT_SEMAS_SIGNAL": 8, "EXT_SEMAS_WAIT": 9,
             "MEM_ALLOC": 10, "MEM_FREE": 11, "BATCH_MEM_OP": 12, "CONDITIONAL": 13}
TYPE_NAMES = {v: k.lower() for k, v in DOT_TYPES.items()}

RE_CLUSTER = re.compile(r'^subgraph cluster_(\d+) \{')
RE_NODE = re.compile(r'^"graph_(\d+)_node_(\d+)"\[.*label="\{\s*([A-Z_]*)')
RE_EDGE = re.compile(r'^"graph_(\d+)_node_(\d+)" -> "graph_(\d+)_node_(\d+)"')
RE_KNAME = re.compile(r'^\| \{ID \| \d+ \(topoId: \d+\) \| (.*?)\\<\\<\\<[^|]*\}\s*$')

failures = 0


def result(ok, what):
    global failures
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1
    return ok


def parse_cuda_dot(path):
    """{'clusters': [ids], 'nodes': {(g, k): type}, 'edges': n,
    'kernels': Counter of names} of one cudaGraphDebugDotPrint file."""
    clusters, nodes, names = [], {}, collections.Counter()
    edges = 0
    pending = None  # node whose type is on the next line (label="{ then MEMCPY)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = RE_CLUSTER.match(line)
            if m:
                clusters.append(int(m.group(1)))
                continue
            if pending is not None:
                word = line.strip()
                nodes[pending] = DOT_TYPES.get(word, -1)
                pending = None
                continue
            m = RE_NODE.match(line)
            if m:
                key = (int(m.group(1)), int(m.group(2)))
                if m.group(3):
                    nodes[key] = DOT_TYPES.get(m.group(3), -1)
                else:
                    pending = key
                continue
            if RE_EDGE.match(line):
                edges += 1
                continue
            m = RE_KNAME.match(line)
            if m:
                # DOT record labels escape <, >, {, }, | with a backslash
                names[re.sub(r'\\(.)', r'\1', m.group(1))] += 1
    return {"clusters": clusters, "nodes": nodes, "edges": edges, "kernels": names}


class Trace:
    def __init__(self, path):
        self.db = sqlite3.connect("file:" + path + "?mode=ro", uri=True)
        q = self.db.execute
        self.strings = dict(q("SELECT id, value FROM strings"))
        # node id -> (graph id, type, name, original node id)
        self.node = {r[0]: (r[1], r[2], self.strings.get(r[3]), r[4]) for r in q(
            "SELECT node_id, graph_id, type, name_id, original_node_id FROM graph_nodes")}
        self.execs = collections.defaultdict(list)  # graph id -> exec ids
        for e, g in q("SELECT exec_id, graph_id FROM graph_execs"):
            self.execs[g].append(e)
        self.launches = collections.Counter(
            dict(q("SELECT exec_id, COUNT(*) FROM graph_launches GROUP BY exec_id")))
        exec_ids = {e for es in self.execs.values() for e in es}
        self.graphs = [g for (g,) in q(
            "SELECT graph_id FROM graphs UNION SELECT graph_id FROM graph_nodes ORDER BY 1")
            if g not in exec_ids]
        self.edges = q("SELECT graph_id, from_node, to_node FROM graph_edges").fetchall()

    def topo_nodes(self, g):
        """the graph's own nodes: not clones of a node of the same graph"""
        return [n for n, (gg, _, _, orig) in self.node.items() if gg == g and
                not (orig and orig in self.node and self.node[orig][0] == g)]

    def summary(self, g):
        nodes = set(self.topo_nodes(g))
        edges = sum(1 for (gg, a, b) in self.edges if gg == g and a in nodes and b in nodes)
        types = collections.Counter(self.node[n][1] for n in nodes)
        kernels = collections.Counter(self.node[n][2] for n in nodes if self.node[n][2])
        launches = sum(self.launches[e] for e in self.execs.get(g, []))
        return {"nodes": nodes, "edges": edges, "types": types, "kernels": kernels,
                "launches": launches}

    def resolve(self, node_id, g):
        """the node of graph g an executed node stands for, or None"""
        for _ in range(64):
            if node_id is None or node_id not in self.node:
                return None
            gg, _, _, orig = self.node[node_id]
            if gg == g and not (orig and orig in self.node and self.node[orig][0] == g):
                return node_id
            node_id = orig
        return None

    def ops_of(self, g):
        """(node of g, kind, name) of every GPU op that ran as one of g's nodes"""
        out = []
        for table, kind, name_col in (("kernels", 0, "name_id"), ("memcpys", 1, "NULL"),
                                      ("memsets", 2, "NULL")):
            for nid, name_id in self.db.execute(
                    f"SELECT graph_node_id, {name_col} FROM {table} "
                    "WHERE graph_node_id IS NOT NULL AND graph_node_id != 0"):
                n = self.resolve(nid, g)
                if n is not None:
                    out.append((n, kind, self.strings.get(name_id)))
        return out


def parse_list(path):
    """graph id -> (nodes, edges, launches) from `gapscope graph` output"""
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 6 and p[0].isdigit() and p[2].isdigit():
                rows[int(p[0])] = (int(p[2]), int(p[3]), int(p[5]))
    return rows


def fmt_types(c):
    return ", ".join(f"{TYPE_NAMES.get(t, t)} {n}" for t, n in sorted(c.items()))


def check_demo(db_path, dot_dir, list_path):
    t = Trace(db_path)
    listed = parse_list(list_path) if list_path else None
    dots = sorted(p for p in glob.glob(os.path.join(dot_dir, "graph_conversion_*.dot"))
                  # DOT that demos/run_all drew with gapscope itself
                  if not re.search(r"graph_conversion_(graph|streams)_", os.path.basename(p)))
    result(len(dots) == 5, f"the demo wrote 5 cudaGraphDebugDotPrint files (found {len(dots)} "
           f"in {dot_dir}: copies, chain10, producer, consumer, fork_join)")
    summaries = {g: t.summary(g) for g in t.graphs}
    used = set()
    chain_gid = None
    for path in dots:
        name = os.path.basename(path)
        d = parse_cuda_dot(path)
        if len(d["clusters"]) != 1:
            result(False, f"{name}: one graph cluster (found {d['clusters']})")
            continue
        gid = d["clusters"][0]
        want_types = collections.Counter(d["nodes"].values())
        want = (len(d["nodes"]), d["edges"], want_types, d["kernels"])
        how = "graph id"
        if gid not in summaries:
            how = "content (no recorded graph has the DOT's id)"
            gid = next((g for g in t.graphs if g not in used and
                        (len(summaries[g]["nodes"]), summaries[g]["edges"],
                         summaries[g]["types"], summaries[g]["kernels"]) == want), None)
            if gid is None:
                result(False, f"{name}: a recorded graph with {want[0]} nodes, {want[1]} "
                       f"edges ({fmt_types(want_types)}) and its kernel names")
                continue
        used.add(gid)
        s = summaries[gid]
        print(f"  {name}: graph {gid} (matched by {how})")
        result(len(s["nodes"]) == want[0] and s["edges"] == want[1],
               f"{name}: {want[0]} nodes, {want[1]} edges; recorded graph {gid}: "
               f"{len(s['nodes'])} nodes, {s['edges']} edges")
        result(s["types"] == want_types,
               f"{name}: node types {fmt_types(want_types)}; recorded: {fmt_types(s['types'])}")
        result(s["kernels"] == d["kernels"],
               f"{name}: kernel names {dict(d['kernels'])}; recorded: {dict(s['kernels'])}")
        # every launch ran every node that does GPU work exactly once
        ops = t.ops_of(gid)
        work = sum(n for ty, n in want_types.items() if ty in (0, 1, 2))
        result(s["launches"] >= 1 and len(ops) == work * s["launches"],
               f"{name}: graph {gid} launched ({s['launches']} times) and its GPU ops = "
               f"{work} nodes x {s['launches']} launches = {work * s['launches']} "
               f"(recorded {len(ops)})")
        if name == "graph_conversion_chain10.dot":
            chain_gid = gid
        if listed is not None:
            row = listed.get(gid)
            result(row is not None and row[:2] == (want[0], want[1]),
                   f"{name}: `gapscope graph` lists graph {gid} with {want[0]} nodes, "
                   f"{want[1]} edges (lists {row[:2] if row else 'no such row'})")
    check_node_updates(t, chain_gid, list_path)


def check_node_updates(t, chain_gid, list_path):
    """demos/graph_conversion.cu's parameter-update phase calls
    cudaGraphExecKernelNodeSetParams on one node of the chain10 graph's exec:
    one graph_node_updates row of kind 2 per call, naming that node and exec."""
    q = t.db.execute
    calls = q("SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id "
              "WHERE s.value LIKE 'cudaGraphExecKernelNodeSetParams%'").fetchone()[0]
    try:
        rows = q("SELECT kind, node_id, graph_id, exec_id FROM graph_node_updates").fetchall()
    except sqlite3.Error as e:
        result(False, f"graph_node_updates readable ({e})")
        return
    print(f"  graph_node_updates: {collections.Counter(r[0] for r in rows)} by kind; "
          f"{calls} cudaGraphExecKernelNodeSetParams calls")
    sets = [r for r in rows if r[0] == 2]
    result(calls > 0 and len(sets) == calls,
           f"one 'parameters set' row per cudaGraphExecKernelNodeSetParams call "
           f"({calls} calls, {len(sets)} rows)")
    if chain_gid is None:
        result(False, "the chain10 graph was matched (for the node updates)")
        return
    nodes = {t.resolve(r[1], chain_gid) for r in sets}
    result(len(nodes) == 1 and None not in nodes,
           f"every update names the same node of the chain10 graph {chain_gid} "
           f"(resolved to {sorted(map(str, nodes))})")
    execs = {r[3] for r in sets}
    result(len(execs) == 1 and execs <= set(t.execs[chain_gid]),
           f"every update names the chain10 graph's exec {t.execs[chain_gid]} (got {execs})")
    if list_path:
        with open(list_path) as f:
            line = next((l for l in f if l.split()[:1] == [str(chain_gid)]), "")
        want = f"{len(sets)} node updates in place"
        result(want in line, f"`gapscope graph` notes '{want}' for graph {chain_gid}: {line.strip()!r}")


def check_torch(db_path, list_path):
    t = Trace(db_path)
    cands = []
    for g in t.graphs:
        s = t.summary(g)
        knodes = [n for n in s["nodes"] if t.node[n][1] == 0]
        if len(knodes) >= 16 and s["launches"] == 200:
            cands.append((g, s, knodes))
    if not result(len(cands) >= 1, "a recorded graph with >= 16 kernel nodes and 200 launches "
                  "(8 x Linear+GELU captured, 200 replays); graphs: " +
                  ", ".join(f"{g}: {len(t.summary(g)['nodes'])} nodes, "
                            f"{t.summary(g)['launches']} launches" for g in t.graphs)):
        return
    g, s, knodes = cands[0]
    print(f"  graph {g}: {len(s['nodes'])} nodes ({len(knodes)} kernels), {s['edges']} edges, "
          f"{s['launches']} launches")
    result(len(s["nodes"]) >= 2 and s["edges"] >= len(s["nodes"]) - 1,
           f"graph {g}: its nodes are connected by dependency edges "
           f"({s['edges']} edges for {len(s['nodes'])} nodes; a chain of layers needs >= "
           f"{len(s['nodes']) - 1})")
    # kernels launched by this graph's launches: same correlation id
    corrs = {c for (c,) in t.db.execute(
        "SELECT correlation_id FROM graph_launches WHERE exec_id IN (%s)" %
        ",".join(str(e) for e in t.execs[g]))}
    rows = [r for r in t.db.execute("SELECT correlation_id, graph_node_id, name_id FROM kernels")
            if r[0] in corrs]
    unmapped = [r for r in rows if t.resolve(r[1], g) not in knodes]
    result(len(rows) > 0 and not unmapped,
           f"graph {g}: all {len(rows)} kernels of its launches map to its kernel nodes "
           f"through graph_node_id ({len(unmapped)} do not)")
    per_node = collections.Counter(t.resolve(r[1], g) for r in rows)
    wrong = {n: c for n, c in per_node.items() if c != 200}
    never = [n for n in knodes if n not in per_node]
    result(not wrong and not never,
           f"graph {g}: each of its {len(knodes)} kernel nodes ran once per launch (200 times)"
           f"; off: {dict(list(wrong.items())[:4])}, never ran: {len(never)}")
    misnamed = [r for r in rows if t.resolve(r[1], g) in t.node and
                t.strings.get(r[2]) != t.node[t.resolve(r[1], g)][2]]
    result(not misnamed, f"graph {g}: each kernel has its node's kernel name "
           f"({len(misnamed)} differ)")
    if list_path:
        row = parse_list(list_path).get(g)
        result(row is not None and row == (len(s["nodes"]), s["edges"], 200),
               f"`gapscope graph` lists graph {g} with {len(s['nodes'])} nodes, {s['edges']} "
               f"edges, 200 launches (lists {row if row else 'no such row'})")


def main(argv):
    if len(argv) >= 4 and argv[1] == "demo":
        check_demo(argv[2], argv[3], argv[4] if len(argv) > 4 else None)
    elif len(argv) >= 3 and argv[1] == "torch":
        check_torch(argv[2], argv[3] if len(argv) > 3 else None)
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
