#!/usr/bin/env python3
"""graph_pitch_trace.py - what traces of gs_bench_graph_pitch show per node.

  bench/gpu_time/graph_pitch_trace.py TRACE.db [TRACE.db ...] [--spins 0,500,...]

gs_bench_graph_pitch (bench/gpu_time/graph_pitch.cu) replays one graph per spin length,
in the order of its --spins list; each graph's kernels carry that graph's id.
For each graph of each trace this prints, over its replays, the median traced
node duration (end - start), the median gap between consecutive nodes of a
replay (next start - end) and the median pitch (next start - start), in ns.
With the untraced per-node figures of the same run (bench/overhead/overhead_pairs.py
--workloads graph_pitch), they say how tracing's added time per node splits
into longer kernels and longer gaps, by kernel length: the input of the
overhead correction's graph-node model (docs/collector.md).
It prints figures; it asserts nothing.
"""
import argparse
import sqlite3
import statistics
import sys


def graphs_of(path):
    """{graph_id: [(durations), (gaps), (pitches)]} in graph-id order"""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    last = {}
    for gid, corr, start, end in db.execute(
            "select graph_id, correlation_id, start, end from kernels "
            "where graph_id > 0 order by graph_id, correlation_id, start"):
        d, g, p = out.setdefault(gid, ([], [], []))
        d.append(end - start)
        prev = last.get(gid)
        if prev and prev[0] == corr:  # the same replay
            g.append(start - prev[2])
            p.append(start - prev[1])
        last[gid] = (corr, start, end)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--spins", default="0,500,1000,2000,3000,5000,10000",
                    help="the --spins list the program ran with (labels the graphs)")
    a = ap.parse_args()
    spins = a.spins.split(",")
    print(f"{'trace':<40} {'spin_ns':>8} {'nodes':>7} {'dur_ns':>8} {'gap_ns':>8} {'pitch_ns':>9}")
    for t in a.traces:
        try:
            gs = graphs_of(t)
        except sqlite3.Error as e:
            print(f"graph_pitch_trace: {t}: {e}", file=sys.stderr)
            return 2
        for i, (gid, (d, g, p)) in enumerate(sorted(gs.items())):
            label = spins[i] if i < len(spins) else f"graph {gid}"
            med = lambda v: f"{statistics.median(v):.0f}" if v else "-"
            print(f"{t[-40:]:<40} {label:>8} {len(d):>7} {med(d):>8} {med(g):>8} {med(p):>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
