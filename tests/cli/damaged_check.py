#!/usr/bin/env python3
"""CLI checks of the viewer verbs on damaged traces written by damaged_mkdb.

usage: damaged_check.py CHECK GAPSCOPE DAMAGED_MKDB WORKDIR

Each case takes the small valid trace BASE (below), damages it with a few
SQL statements, runs the verbs and checks the outcome the project promises
for bad input: exactly one line "gapscope: <file>: <what>" on stderr and exit
2, or - where the damage is confined to some rows and documented so - exit 0
with those rows read as stated. A sanitizer report on stderr fails the case
(the tests also run under ASan/UBSan).

BASE, device 0, stream 7, times in ns: kernel K1 [1000,2000] launched by
cudaLaunchKernel [100,200] (tid 11, correlation 1), K2 [3000,4000] launched
at [2700,2800] (correlation 2); a memcpy [5000,5100] and a memset
[5200,5300] with no API record; cudaStreamSynchronize blocked [4100,4900]
on tid 11; event 77 recorded at 150; NVTX range "step" [0,6000] on tid 11.
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys

CHECK, GAPSCOPE, MKDB, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
failures = []

BASE = (
    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamSynchronize'),"
    "(3,'gemm'),(4,'step');"
    "INSERT INTO devices(id,name,cc_major) VALUES(0,'Test GPU',9);"
    "INSERT INTO api_calls(id,api,name_id,start,end,pid,tid,correlation_id) VALUES"
    "(1,1,1,100,200,1,11,1),(2,1,1,2700,2800,1,11,2);"
    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,graph_id) VALUES"
    "(1,1000,2000,0,7,1,3,0),(2,3000,4000,0,7,2,3,0);"
    "INSERT INTO memcpys(id,start,end,device,stream,correlation_id,bytes,copy_kind) VALUES"
    "(1,5000,5100,0,7,90,64,1);"
    "INSERT INTO memsets(id,start,end,device,stream,correlation_id,bytes) VALUES"
    "(1,5200,5300,0,7,91,64);"
    "INSERT INTO syncs(id,start,end,kind,implicit,api_name_id,device,stream,correlation_id,"
    "pid,tid) VALUES(1,4100,4900,3,0,2,0,7,50,1,11);"
    "INSERT INTO events(id,event,stream,device,correlation_id,start) VALUES(1,77,7,0,60,150);"
    "INSERT INTO nvtx(id,start,end,kind,text_id,pid,tid) VALUES(1,0,6000,0,4,1,11);"
)


def expect(cond, what):
    if not cond:
        failures.append(what)


def mkdb(name, damage=""):
    path = os.path.join(WORK, name + ".db")
    subprocess.run([MKDB, path, BASE + damage], check=True)
    return path


def run(*args):
    return subprocess.run([GAPSCOPE, *args], capture_output=True, text=True, errors="replace")


def sanitizer(p):
    return "Sanitizer" in p.stderr or "runtime error:" in p.stderr


def one_line_exit2(p, what, line):
    """exit 2 and stderr exactly `line` (plus its newline)"""
    expect(not sanitizer(p), f"{what}: sanitizer report: {p.stderr[:300]!r}")
    expect(p.returncode == 2, f"{what}: exit {p.returncode}, want 2; stderr {p.stderr[:300]!r}")
    expect(p.stderr == line + "\n", f"{what}: stderr {p.stderr[:300]!r}, want {line!r}")


def verbs_reading_times(db):
    """(label, argv) of every verb that reads the time columns"""
    out = os.path.join(WORK, "out")
    return [
        ("report", ["report", db]),
        ("report --json", ["report", "--json", db]),
        ("report --range", ["report", "--range", "step", db]),
        ("html", ["html", db, "-o", out + ".html"]),
        ("diff", ["diff", db, db]),
        ("export chrome", ["export", db, "--format", "chrome", "-o", out + ".json"]),
        ("export chrome --no-gaps", ["export", db, "--format", "chrome", "--no-gaps", "-o",
                                     out + ".json"]),
        ("whatif --fix all", ["whatif", db, "--fix", "all"]),
    ]


def check_times():
    # A time outside [0, 2^62] ns in any time column read by the analysis
    # or the exporters: every verb names the table, the row and the value
    # as read (a real 1e300 reads as 2^63-1).
    cases = [
        ("kernels", 2, "start", "-9223372036854775808", "-9223372036854775808"),
        ("kernels", 2, "end", "9223372036854775807", "9223372036854775807"),
        ("kernels", 1, "end", "1e300", "9223372036854775807"),
        ("memcpys", 1, "start", "-1", "-1"),
        ("memsets", 1, "end", "4611686018427387905", "4611686018427387905"),  # 2^62 + 1
        ("api_calls", 2, "start", "-9223372036854775808", "-9223372036854775808"),
        ("api_calls", 1, "end", "9223372036854775807", "9223372036854775807"),
        ("syncs", 1, "start", "-9223372036854775808", "-9223372036854775808"),
        ("nvtx", 1, "end", "9223372036854775807", "9223372036854775807"),
    ]
    for table, row, col, value, read in cases:
        db = mkdb(f"{table}_{col}_{row}", f"UPDATE {table} SET {col}={value} WHERE id={row};")
        line = (f"gapscope: {db}: damaged trace: {table} row {row} has {col} {read}, "
                f"out of range (0 to 2^62 ns)")
        for label, argv in verbs_reading_times(db):
            one_line_exit2(run(*argv), f"{table}.{col}={value}: {label}", line)
    # events are read by the analysis only
    db = mkdb("events_start", "UPDATE events SET start=-5 WHERE id=1;")
    one_line_exit2(run("report", db), "events.start=-5: report",
                   f"gapscope: {db}: damaged trace: events row 1 has start -5, "
                   "out of range (0 to 2^62 ns)")
    # 2^62 itself is a valid time: K2 ends then, so device 0's window is
    # [1000, 2^62] = 4611686018427387904 - 1000 ns
    db = mkdb("edge", "UPDATE kernels SET end=4611686018427387904 WHERE id=2;")
    p = run("report", "--json", db)
    expect(p.returncode == 0 and not sanitizer(p), f"2^62: exit {p.returncode} {p.stderr[:300]!r}")
    if p.returncode == 0:
        dev = json.loads(p.stdout)["devices"][0]
        expect(dev["window_start_ns"] == 1000, f"2^62: window start {dev['window_start_ns']}")
        expect(dev["window_ns"] == 4611686018427386904, f"2^62: window {dev['window_ns']}")
    for label, argv in verbs_reading_times(db):
        p = run(*argv)
        expect(p.returncode == 0 and not sanitizer(p),
               f"2^62: {label}: exit {p.returncode} {p.stderr[:300]!r}")


def check_info_times():
    # info's GPU window is last end - first start per device, and its
    # duration stop_ns - start_ns from meta: an out-of-range time is named
    # as the other verbs name it
    db = mkdb("info_kernel", "UPDATE kernels SET start=-9223372036854775808 WHERE id=2;")
    line = (f"gapscope: {db}: damaged trace: kernels row 2 has start -9223372036854775808, "
            "out of range (0 to 2^62 ns)")
    one_line_exit2(run("info", db), "info, kernel start -2^63", line)
    one_line_exit2(run("info", "--json", db), "info --json, kernel start -2^63", line)
    db = mkdb("info_memset", "UPDATE memsets SET end=9223372036854775807 WHERE id=1;")
    one_line_exit2(run("info", db), "info, memset end 2^63-1",
                   f"gapscope: {db}: damaged trace: memsets row 1 has end 9223372036854775807, "
                   "out of range (0 to 2^62 ns)")
    db = mkdb("info_meta_start", "INSERT OR REPLACE INTO meta VALUES('start_ns',"
              "'-9223372036854775808'),('stop_ns','5000');")
    line = (f"gapscope: {db}: damaged trace: meta start_ns is -9223372036854775808, "
            "out of range (0 to 2^62 ns)")
    one_line_exit2(run("info", db), "info, meta start_ns -2^63", line)
    one_line_exit2(run("info", "--json", db), "info --json, meta start_ns -2^63", line)
    db = mkdb("info_meta_stop", "INSERT OR REPLACE INTO meta VALUES('start_ns','100'),"
              "('stop_ns','99999999999999999999');")
    one_line_exit2(run("info", db), "info, meta stop_ns past int64",
                   f"gapscope: {db}: damaged trace: meta stop_ns is 99999999999999999999, "
                   "out of range (0 to 2^62 ns)")
    # a query that fails names SQLite's reason (it said "not an error")
    db = mkdb("info_no_devices", "DROP TABLE devices;")
    one_line_exit2(run("info", db), "info, no devices table",
                   f"gapscope: {db}: damaged trace: table devices is missing")
    db = mkdb("info_no_start", "CREATE TABLE k2 AS SELECT * FROM kernels;"
              "ALTER TABLE k2 DROP COLUMN start; DROP TABLE kernels;"
              "ALTER TABLE k2 RENAME TO kernels;")
    one_line_exit2(run("info", db), "info, kernels without start",
                   f"gapscope: {db}: damaged trace: table kernels has no column start")
    # in range: the base trace's device 0 window is [1000, 5300] (the
    # memset ends last), and start_ns 100 .. stop_ns 6100 is 6000 ns
    db = mkdb("info_ok", "INSERT OR REPLACE INTO meta VALUES('start_ns','100'),"
              "('stop_ns','6100');")
    p = run("info", "--json", db)
    expect(p.returncode == 0 and not sanitizer(p), f"info ok: exit {p.returncode} {p.stderr!r}")
    if p.returncode == 0:
        j = json.loads(p.stdout)
        expect(j.get("duration_ns") == 6000, f"info ok: duration_ns {j.get('duration_ns')}")
        w = j.get("gpu_windows", [{}])[0]
        expect(w.get("start_ns") == 1000 and w.get("duration_ns") == 4300,
               f"info ok: window {w}")


def star_sql(graph, leaves):
    """graph `graph`: kernel node 1 with `leaves` dependants (kernels 2..),
    all named gemm - nothing to collapse, every node is drawn"""
    nodes = ",".join(f"({i},{graph},0,3)" for i in range(1, leaves + 2))
    edges = ",".join(f"({graph},1,{i})" for i in range(2, leaves + 2))
    return (f"INSERT INTO graphs(graph_id,origin) VALUES({graph},0);"
            f"INSERT INTO graph_nodes(node_id,graph_id,type,name_id) VALUES{nodes};"
            f"INSERT INTO graph_edges(graph_id,from_node,to_node) VALUES{edges};")


def check_graph_size():
    # Graphviz's layout of a wide graph takes hours at tens of thousands of
    # nodes: `graph --id` refuses more than --max-nodes (default 3000)
    # drawn nodes before laying anything out
    db = mkdb("star10", star_sql(1, 10))
    out = os.path.join(WORK, "star.dot")
    if os.path.exists(out):  # from an earlier run
        os.remove(out)
    one_line_exit2(run("graph", db, "--id", "1", "--max-nodes", "10", "-o", out),
                   "11 nodes, --max-nodes 10",
                   f"gapscope: {db}: graph 1 has 11 nodes to draw after collapsing chains, "
                   "more than --max-nodes 10 (Graphviz takes minutes or more on that many); "
                   "raise --max-nodes to draw it anyway")
    expect(not os.path.exists(out), "refused drawing left a file behind")
    p = run("graph", db, "--id", "1", "--max-nodes", "11", "-o", out)
    expect(p.returncode == 0 and not sanitizer(p), f"--max-nodes 11: exit {p.returncode}")
    if p.returncode == 0:
        dot = open(out).read()
        # 11 nodes n0..n10, 10 edges
        expect(sum(1 for i in range(11) if f"n{i} [" in dot or f"n{i}\t[" in dot) == 11,
               "--max-nodes 11: nodes n0..n10 in the DOT")
        expect(dot.count("->") == 10, f"--max-nodes 11: {dot.count('->')} edges, want 10")
    for bad in ("0", "abc", "-1"):
        one_line_exit2(run("graph", db, "--id", "1", "--max-nodes", bad), f"--max-nodes {bad}",
                       f"gapscope: graph: --max-nodes wants a count of 1 or more, not '{bad}'")
    # the default limit: 3001 nodes are refused at once (no layout)
    db = mkdb("star3000", star_sql(1, 3000))
    one_line_exit2(run("graph", db, "--id", "1", "-o", out), "3001 nodes, default limit",
                   f"gapscope: {db}: graph 1 has 3001 nodes to draw after collapsing chains, "
                   "more than --max-nodes 3000 (Graphviz takes minutes or more on that many); "
                   "raise --max-nodes to draw it anyway")
    # the HTML page leaves such a graph out and says so
    page = os.path.join(WORK, "star.html")
    p = run("html", db, "-o", page)
    expect(p.returncode == 0 and not sanitizer(p), f"html: exit {p.returncode} {p.stderr!r}")
    if p.returncode == 0:
        h = open(page).read()
        expect("1 graph not drawn here" in h, "html: graph not listed as not drawn")
        expect('class="graphsvg"' not in h, "html: a graph was drawn")


def peak_rss_mb():
    """largest peak RSS of the children waited for so far, MB (Linux: KB)"""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def check_sparse_ids():
    # Row ids far beyond the rows a file can hold (a table's rowids 1 and
    # 2*10^7, a strings id of 2^31 - 1) must not size buffers: the 500 KB
    # files below read in a few MB, with the base trace's figures - device
    # 0's window [1000, 5300] = 4300 ns, busy 1000 + 1000 + 100 + 100 =
    # 2200 ns over 4 ops - and the kernel name intact (2 kernels "gemm").
    cases = [
        ("kernel_id", "UPDATE kernels SET id=20000000 WHERE id=2;"),
        ("api_id", "UPDATE api_calls SET id=2147483646 WHERE id=2;"),
        ("memcpy_id", "UPDATE memcpys SET id=100000000 WHERE id=1;"),
        ("string_id", "INSERT INTO strings VALUES(2147483647,'far');"),
        ("string_id_2p31", "INSERT INTO strings VALUES(2147483648,'farther');"),
        ("string_id_neg", "DELETE FROM strings WHERE id=4; INSERT INTO strings VALUES(-5,'neg');"
                          "UPDATE nvtx SET text_id=-5;"),
    ]
    for name, damage in cases:
        db = mkdb("sparse_" + name, damage)
        p = run("report", "--json", db)
        expect(p.returncode == 0 and not sanitizer(p),
               f"{name}: exit {p.returncode} {p.stderr[:300]!r}")
        expect(peak_rss_mb() < 200, f"{name}: peak RSS {peak_rss_mb():.0f} MB")
        if p.returncode != 0:
            continue
        j = json.loads(p.stdout)
        dev = j["devices"][0]
        expect((dev["window_start_ns"], dev["window_ns"], dev["busy_ns"], dev["ops"]) ==
               (1000, 4300, 2200, 4), f"{name}: device figures {dev}")
        names = [k["name"] for k in j["kernels"]["top"]]
        expect(names == ["gemm"] and j["kernels"]["count"] == 2, f"{name}: kernels {names}")
        for argv in (["html", db, "-o", os.path.join(WORK, "sparse.html")], ["diff", db, db],
                     ["export", db, "--format", "chrome", "-o", os.path.join(WORK, "s.json")]):
            p = run(*argv)
            expect(p.returncode == 0 and not sanitizer(p),
                   f"{name}: {argv[0]}: exit {p.returncode} {p.stderr[:300]!r}")
            expect(peak_rss_mb() < 300, f"{name}: {argv[0]}: peak RSS {peak_rss_mb():.0f} MB")


def check_chrome_ids():
    # Chrome flow arrows are numbered row id * 3 + kind (kernel 0, memcpy 1,
    # memset 2), wrapping modulo 2^64 for extreme row ids: K1 (id -2^63)
    # gets -3 * 2^63 = -2^63 (mod 2^64) = -9223372036854775808, K2 (id
    # 2^63 - 1) gets 3 * 2^63 - 3 = 2^63 - 3 (mod 2^64) =
    # 9223372036854775805. The memcpy and memset have no launch call: no flow.
    db = mkdb("chrome_ids", "UPDATE kernels SET id=-9223372036854775808 WHERE id=1;"
              "UPDATE kernels SET id=9223372036854775807 WHERE id=2;")
    out = os.path.join(WORK, "ids.json")
    p = run("export", db, "--format", "chrome", "-o", out)
    expect(p.returncode == 0 and not sanitizer(p), f"chrome ids: exit {p.returncode} {p.stderr!r}")
    if p.returncode != 0:
        return

    want = {-9223372036854775808, 9223372036854775805}
    events = json.load(open(out))["traceEvents"]
    starts = {e["id"] for e in events if e.get("ph") == "s"}
    ends = {e["id"] for e in events if e.get("ph") == "f"}
    expect(starts == want and ends == want, f"chrome ids: flows {starts} {ends}, want {want}")


def check_empty_range():
    # an NVTX range "idle" [10000, 20000] on tid 11 after all GPU work
    # (the base trace ends at 5300): its stream picture has no operation
    db = mkdb("empty_range", "INSERT INTO strings VALUES(5,'idle');"
              "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(10000,20000,0,5,1,11);")
    out = os.path.join(WORK, "idle.dot")
    p = run("graph", db, "--streams", "--range", "idle", "-o", out)
    expect(p.returncode == 0 and p.stderr == "",
           f"empty range: exit {p.returncode}, stderr {p.stderr[:300]!r}")
    expect(p.stdout == f"{out}: 0 nodes, 0 edges; 0 drawn (0 chains collapsed); "
           "critical path 0 nodes, unmeasured\n", f"empty range: stdout {p.stdout!r}")
    if p.returncode == 0:
        expect("NVTX range 'idle' (1 of 1): 0 operations on 0 streams, 0 event waits"
               in open(out).read(), "empty range: DOT title")


def check_sums():
    # Every time lies in [0, 2^62], yet sums of durations over rows can
    # pass 2^63. They were held at 2^63 - 1 and printed as if true, exit 0
    # (issue 55, item 8): now a trace whose durations of one kind, or whose
    # devices' GPU windows, add up past 2^62 ns is refused, the kind named,
    # exit 2, by every verb (trace_load.c, check_sums).
    big = 4611686018427387904  # 2^62
    why = ("damaged trace: %s last more than 2^62 ns (146 years) in all, what no recording "
           "holds; their totals would not fit")
    # two more stream syncs (kind 3) of 2^62 ns each: with the base's
    # [4100, 4900] the syncs last 800 + 2 * 2^62 ns
    db = mkdb("sums_syncs", "INSERT INTO syncs(start,end,kind,implicit,api_name_id,device,"
              f"stream,correlation_id,pid,tid) VALUES(0,{big},3,0,2,0,7,51,1,11),"
              f"(0,{big},3,0,2,0,7,52,1,11);")
    one_line_exit2(run("report", "--json", db), "sums syncs",
                   f"gapscope: {db}: " + why % "the syncs")
    # two more "step" ranges of 2^62 ns: 6000 + 2 * 2^62
    db = mkdb("sums_nvtx", "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES"
              f"(0,{big},0,4,1,11),(0,{big},0,4,1,11);")
    one_line_exit2(run("report", "--json", db), "sums nvtx",
                   f"gapscope: {db}: " + why % "the NVTX ranges")
    # both kernels [0, 2^62]: the GPU ops 2 * 2^62 + 200 ns
    db = mkdb("sums_kernels", f"UPDATE kernels SET start=0, end={big};")
    one_line_exit2(run("report", "--json", db), "sums kernels",
                   f"gapscope: {db}: " + why % "the GPU operations (kernels, memcpys, memsets)")
    # diff sums window, busy and idle time over devices: two devices with a
    # kernel [0, 2^62] each, and three devices with kernels [0, 1] and
    # [2^62 - 1, 2^62] each: their windows add up to 2 * 2^62 and 3 * 2^62
    # ns (diff --json printed busy_ns -9223372036854775808 once, then the
    # clamped 2^63 - 1 as if true)
    db2 = mkdb("sums_devices2", "INSERT INTO devices(id,name,cc_major) VALUES(1,'B',9);"
               f"UPDATE kernels SET start=0, end={big}, device=id - 1;"
               "DELETE FROM memcpys; DELETE FROM memsets;")
    db3 = mkdb("sums_devices3", "INSERT INTO devices(id,name,cc_major) VALUES(1,'B',9),"
               "(2,'C',9); DELETE FROM kernels; DELETE FROM memcpys; DELETE FROM memsets;"
               "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,graph_id)"
               " SELECT 0, 1, d, 7, 0, 3, 0 FROM (SELECT 0 AS d UNION SELECT 1 UNION SELECT 2)"
               f" UNION ALL SELECT {big - 1}, {big}, d, 7, 0, 3, 0 FROM (SELECT 0 AS d"
               " UNION SELECT 1 UNION SELECT 2);")
    for db in (db2, db3):
        for argv in (["diff", "--json", db, db], ["diff", db, db], ["report", db]):
            one_line_exit2(run(*argv), f"{' '.join(argv[:2])} sums {db}",
                           f"gapscope: {db}: " + why %
                           "the devices' GPU windows (first to last op, per device)")
    # graph advice: a replay costs count x length x node overhead. The
    # median hole between the ops of a graph launch of 10 kernels (graph 1,
    # correlation 90, stream 5) 4e17 ns apart is 4e17: over 20 us, waits
    # rather than node dispatch, so it is reported (node_hole_p50_ns) but
    # not used: the default 1000 ns is. (Used, 20 x 2 x 4e17 = 1.6e19
    # overflowed: UBSan analysis_stats.c:893.) The 40 kernels X, Y, X, Y,
    # ... launched one by one on stream 8 (K at 10 + 1000 k + [10, 20],
    # launch [10 + 1000 k, +5]) are the sequence (X, Y) 20 times. Measured
    # time 20 .. 39030 = 39010 ns, kernels 40 x 10 = 400 ns, the rest
    # launch idle (38610 ns) but the first hole [30, 1020), where the
    # graph's first kernel [100, 110] ran (the device was not idle: 990
    # ns), so 37620; estimate = 39010 - 37620 + 40 x 1000 = 41390, saving
    # = 39010 - 41390 = -2380 ns: no advice.
    hole = 400000000000000000
    graph_k = ",".join(f"({100 + (10 + hole) * k},{110 + (10 + hole) * k},0,5,90,{10 + k % 2},1)"
                       for k in range(10))
    eager_a = ",".join(f"(1,1,{10 + 1000 * k},{15 + 1000 * k},1,11,{100 + k})" for k in range(40))
    eager_k = ",".join(f"({20 + 1000 * k},{30 + 1000 * k},0,8,{100 + k},{10 + k % 2},0)"
                       for k in range(40))
    db = mkdb("sums_advice", "DELETE FROM kernels; DELETE FROM api_calls; DELETE FROM memcpys;"
              "DELETE FROM memsets; DELETE FROM syncs; DELETE FROM nvtx;"
              "INSERT INTO strings VALUES(10,'X'),(11,'Y');"
              "INSERT INTO api_calls(api,name_id,start,end,pid,tid,correlation_id) VALUES"
              f"(1,1,0,50,1,11,90),{eager_a};"
              "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,graph_id)"
              f" VALUES{graph_k},{eager_k};")
    p = run("report", "--json", db)
    expect(p.returncode == 0 and not sanitizer(p),
           f"sums advice: exit {p.returncode} {p.stderr[:300]!r}")
    if p.returncode == 0:
        adv = json.loads(p.stdout)["graph_advice"]
        expect((adv["node_overhead_ns"], adv["node_overhead_source"], adv["node_hole_p50_ns"])
               == (1000, "default", hole), f"sums advice: node overhead {adv}")
        got = [(q["stream"], q["length"], q["count"], q["measured_ns"], q["launch_idle_ns"],
                q["estimate_ns"], q["saving_ns"], q["advise"]) for q in adv["sequences"]]
        expect(got == [(8, 2, 20, 39010, 37620, 41390, -2380, False)],
               f"sums advice: sequences {got}")
    for label, argv in (("report", ["report", db]), ("html", ["html", db, "-o", db + ".html"]),
                        ("diff", ["diff", db, db]),
                        ("option", ["report", "--graph-node-overhead", "1000000000", db])):
        p = run(*argv)
        expect(p.returncode == 0 and not sanitizer(p),
               f"sums advice: {label}: exit {p.returncode} {p.stderr[:300]!r}")
    # the option's bound: 0 to 1e9 ns (one line, exit 2 past it)
    one_line_exit2(run("report", "--graph-node-overhead", "1000000001", db), "node overhead 1e9+1",
                   "gapscope: report: --graph-node-overhead needs a duration in ns (0 to 1e9), "
                   "not '1000000001'")
    p = run("report", "--help")
    expect("advice, 0 to 1e9 ns" in p.stdout, "report --help: the --graph-node-overhead bound")
    for name, kind in (("sums_syncs", "the syncs"), ("sums_nvtx", "the NVTX ranges"),
                       ("sums_kernels", "the GPU operations (kernels, memcpys, memsets)")):
        db = os.path.join(WORK, name + ".db")
        if os.path.exists(db + ".html"):  # a page an earlier run of the test left
            os.remove(db + ".html")
        for label, argv in (("report", ["report", db]), ("html", ["html", db, "-o", db + ".html"]),
                            ("diff", ["diff", db, db])):
            one_line_exit2(run(*argv), f"{name}: {label}", f"gapscope: {db}: " + why % kind)
            expect(not os.path.exists(db + ".html"), f"{name}: {label}: a page was written")


def check_nested_children():
    # graphs 1..41, graph g holding one child-graph node (node id g) whose
    # child graph is g + 1 (graph 41's node has none): child graphs are
    # loaded 32 levels deep - graphs 2..33 become the 32 boxes (clusters),
    # graphs 1..33 give the 33 nodes, of which only graph 33's is drawn as a
    # node (the others are drawn as the boxes of their child graphs); graph
    # 34 and below are not loaded (3000 levels overflowed Graphviz's stack)
    nodes = ",".join(f"({g},{g},4,{g + 1 if g < 41 else 'NULL'})" for g in range(1, 42))
    db = mkdb("nested", "INSERT INTO graphs(graph_id,origin) VALUES(1,0);"
              f"INSERT INTO graph_nodes(node_id,graph_id,type,child_graph_id) VALUES{nodes};")
    out = os.path.join(WORK, "nested.dot")
    p = run("graph", db, "--id", "1", "-o", out)
    expect(p.returncode == 0 and p.stderr == "", f"nested: exit {p.returncode} {p.stderr[:300]!r}")
    expect(p.stdout.startswith(f"{out}: 33 nodes, 0 edges; 1 drawn "), f"nested: {p.stdout!r}")
    if p.returncode == 0:
        dot = open(out).read()
        expect(dot.count("subgraph cluster_") == 32,
               f"nested: {dot.count('subgraph cluster_')} clusters, want 32")


def check_corrupt_page():
    # The root page of graph_nodes overwritten with 0xff bytes: trace_open's
    # header checks pass, SQLite fails on that page. Reading the graph
    # tables is then bad input (exit 2, one line), as for every other verb.
    import sqlite3
    db = mkdb("corrupt_page", star_sql(1, 3))
    con = sqlite3.connect(db)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name='graph_nodes'").fetchone()[0]
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xff" * page)
    line = f"gapscope: {db}: cannot read graph tables: database disk image is malformed"
    one_line_exit2(run("graph", db), "corrupt graph_nodes: graph (list)", line)
    one_line_exit2(run("graph", db, "--id", "1", "-o", os.path.join(WORK, "c.dot")),
                   "corrupt graph_nodes: graph --id 1", line)
    one_line_exit2(run("report", db), "corrupt graph_nodes: report",
                   f"gapscope: {db}: cannot read graph nodes: database disk image is malformed")
    # the threads table's root page (read for the Chrome track names only)
    db = mkdb("corrupt_threads")
    con = sqlite3.connect(db)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name='threads'").fetchone()[0]
    con.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xff" * page)
    out = os.path.join(WORK, "c.json")
    for extra in ([], ["--no-gaps"]):
        one_line_exit2(run("export", db, "--format", "chrome", *extra, "-o", out),
                       f"corrupt threads: export chrome {extra}",
                       f"gapscope: {db}: cannot read trace: database disk image is malformed")
        expect(not os.path.exists(out), "corrupt threads: a partial JSON file was left")
    # CSV: the tables are written into a temporary folder inside the target
    # and moved into place only when every table succeeded (docs/export.md,
    # "Output guarantees"): threads cannot be read, so no file is put in
    # place, and no temporary folder stays; the line names the trace (it
    # named the output directory)
    csv_dir = os.path.join(WORK, "corrupt_csv")
    if os.path.exists(csv_dir):  # from an earlier run
        shutil.rmtree(csv_dir)
    one_line_exit2(run("export", db, "--format", "csv", "-o", csv_dir), "corrupt threads: csv",
                   f"gapscope: {db}: cannot read table threads: database disk image is malformed")
    # the folder the export made for its output is removed with it (issue
    # 55: an empty folder was left)
    expect(not os.path.exists(csv_dir),
           f"corrupt threads: csv folder left: {os.listdir(csv_dir) if os.path.exists(csv_dir) else ''}")


def run_measured(out_path, *args):
    """(exit code, stderr text, peak RSS in MB) of one run, its standard
    output in out_path. The peak a child reports counts this process's peak
    (exec replaces a memory that fork copied or vfork shared), so this
    process never holds the big outputs: they are read in pieces
    (count_in_file)."""
    err_path = os.path.join(WORK, "stderr.txt")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    pid = os.posix_spawn(GAPSCOPE, [GAPSCOPE, *args], os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, out_path, flags, 0o644),
                                       (os.POSIX_SPAWN_OPEN, 2, err_path, flags, 0o644)])
    _, status, ru = os.wait4(pid, 0)
    with open(err_path, errors="replace") as f:
        err = f.read()
    return os.waitstatus_to_exitcode(status), err, ru.ru_maxrss / 1024


def count_in_file(path, needle):
    """occurrences of bytes needle in the file, reading 4 MB at a time"""
    count, tail = 0, b""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(4 << 20)
            if not chunk:
                return count
            buf = tail + chunk
            # a match needs len(needle) bytes, so none lies within the tail
            # kept from before (len(needle) - 1 bytes): none is counted twice
            count += buf.count(needle)
            tail = buf[-(len(needle) - 1):] if len(needle) > 1 else b""


def long_names_sql(n, half):
    """n kernels in stream 9 alternating between two names of 2 * half + 13
    bytes each (A = 'void big<"xxx...">(int)', B the same with bog and y),
    launched on tid 11 inside NVTX range "long" at 10000 + 2000 i ns, each
    running 1000 ns"""
    return ("INSERT INTO strings VALUES(10,'void big<\"' || replace(hex(zeroblob("
            f"{half})),'0','x') || '\">(int)'),(11,'void bog<\"' || replace(hex(zeroblob("
            f"{half})),'0','y') || '\">(int)'),(12,'long');"
            f"WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < {n - 1})"
            " INSERT INTO api_calls(id,api,name_id,start,end,pid,tid,correlation_id)"
            " SELECT 100 + i, 1, 1, 10000 + 2000 * i, 10100 + 2000 * i, 1, 11, 1000 + i FROM s;"
            f"WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < {n - 1})"
            " INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,graph_id)"
            " SELECT 100 + i, 10500 + 2000 * i, 11500 + 2000 * i, 0, 9, 1000 + i, 10 + i % 2, 0"
            " FROM s;"
            f"INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(10000,{10000 + 2000 * n},"
            "0,12,1,11);")


def check_long_names():
    # 64 kernels alternating between two names of 1 MiB (long_names_sql).
    # The names were copied with every row: SQLite sorted the Chrome
    # export's rows with the name in them, graph --streams copied it twice
    # per kernel (1700 kernels of a 2 MB name: 45-55 s and 3.5 GB for the
    # Chrome export, 25 s and 5.5 GB for graph --streams). Each distinct
    # name is now read once: the same trace with 15-byte names ("short")
    # must peak at most 32 MB lower (the 64 copies would be 64 MB; before,
    # the Chrome export peaked 75 MB higher, graph --streams 123 MB).
    n, half = 64, 524288  # hex(zeroblob(half)) is 2 * half = 1 MiB of '0'
    names = {"big": 'void big<"' + "x" * (2 * half) + '">(int)',
             "bog": 'void bog<"' + "y" * (2 * half) + '">(int)'}
    db = mkdb("long_names", long_names_sql(n, half))
    short = mkdb("short_names", long_names_sql(n, 0))
    dot = os.path.join(WORK, "long.dot")
    runs = [("chrome --no-gaps", ["export", "DB", "--format", "chrome", "--no-gaps", "-o", "-"]),
            ("chrome", ["export", "DB", "--format", "chrome", "-o", "-"]),
            ("graph --streams", ["graph", "DB", "--streams", "--range", "long", "-o", dot])]
    # all runs before reading any output: a child's peak is at least this
    # process's (run_measured)
    results = []
    for i, (what, argv) in enumerate(runs):
        out = os.path.join(WORK, f"long{i}.out")
        rc, err, base = run_measured(out, *[short if a == "DB" else a for a in argv])
        expect(rc == 0 and err == "", f"short names: {what}: exit {rc} {err[:300]!r}")
        rc, err, rss = run_measured(out, *[db if a == "DB" else a for a in argv])
        expect(rc == 0 and err == "", f"long names: {what}: exit {rc} {err[:300]!r}")
        expect(rss - base < 32, f"long names: {what}: peak RSS {rss:.0f} MB, "
               f"{rss - base:.0f} MB above the short names' {base:.0f} MB (want < 32)")
        results.append((what, argv, rc, out))
    for what, argv, rc, out in results:
        if rc != 0:
            continue
        if argv[0] == "export":
            # every kernel keeps its whole name (JSON-escaped: \" for ")
            for name in names.values():
                got = count_in_file(out, b'"name":' + json.dumps(name).encode())
                expect(got == n // 2, f"long names: {what}: {got} events named {name[:9]}..., "
                       f"want {n // 2}")
            continue
        # 64 nodes, none collapsed (the names alternate), one chain of
        # 64 x 1000 ns = 64 us
        stdout = open(out).read()
        expect(stdout == f"{dot}: 64 nodes, 63 edges; 64 drawn (0 chains collapsed); "
               "critical path 64 nodes, 64.000 us\n", f"long names: graph: stdout {stdout!r}")
        text = open(dot).read()
        # labels: the short form; tooltips: the name cut to 3579 bytes
        # (a 4096-byte tooltip, 1 for its NUL, 512 kept for the lines after
        # the name: 3583, less 4 for the ellipsis) = 'void big<"' (10 bytes)
        # and 3569 x, then "..." (U+2026); cgraph writes the quote as \"
        for short_name, ch in (("big", "x"), ("bog", "y")):
            labels = text.count(f'label="kernel\\n{short_name}<\u2026>"')
            expect(labels == n // 2, f"long names: graph: {labels} labels {short_name}<...>")
            tips = re.findall(f'tooltip="void {short_name}<\\\\"({ch}*)\u2026', text)
            expect(len(tips) == n // 2 and all(len(t) == 3569 for t in tips),
                   f"long names: graph: {len(tips)} tooltips of {short_name}, lengths "
                   f"{sorted(set(len(t) for t in tips))}")
    for _, _, _, out in results:
        os.remove(out)


def run_env(env_extra, *args, timeout=60):
    env = dict(os.environ, **env_extra)
    try:
        return subprocess.run([GAPSCOPE, *args], capture_output=True, text=True, errors="replace",
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -999, "", f"timed out after {timeout} s")


def every_verb(db):
    """(label, argv) of every verb that opens a trace"""
    out = os.path.join(WORK, "out")
    return verbs_reading_times(db) + [
        ("info", ["info", db]),
        ("info --json", ["info", "--json", db]),
        ("graph", ["graph", db]),
        ("export csv", ["export", db, "--format", "csv", "-o", out + "_csv"]),
    ]


def check_not_regular():
    # A FIFO or a device given as the trace: one line, exit 2, at once
    # (info on a FIFO blocked forever, waiting for a writer)
    fifo = os.path.join(WORK, "fifo.db")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    for label, argv in every_verb(fifo):
        one_line_exit2(run_env({}, *argv, timeout=20), f"FIFO: {label}",
                       f"gapscope: {fifo}: is a FIFO, not a trace database file")
    one_line_exit2(run_env({}, "info", "/dev/null", timeout=20), "/dev/null: info",
                   "gapscope: /dev/null: is a character device, not a trace database file")


def check_plain_tables():
    # The tables gapscope reads must be plain rowid tables with the schema's
    # columns: report, html and diff read a view, a WITHOUT ROWID or missing
    # kernels/api_calls table as "no rows" (exit 0, utilisation 0.5%, every
    # gap "other"); a view defined by an infinite recursive CTE hung every verb.
    endless = ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
               "SELECT i AS id, 'x' AS value FROM r")
    cases = [
        ("kernels_view", "ALTER TABLE kernels RENAME TO k0; CREATE VIEW kernels AS SELECT * FROM k0;",
         "kernels is a view, not a plain table"),
        ("api_view", "ALTER TABLE api_calls RENAME TO a0; CREATE VIEW api_calls AS SELECT * FROM a0;",
         "api_calls is a view, not a plain table"),
        ("kernels_norowid", "DROP TABLE kernels; CREATE TABLE kernels(id INTEGER PRIMARY KEY, "
         "start INTEGER NOT NULL, end INTEGER NOT NULL, device INTEGER, context INTEGER, stream "
         "INTEGER, correlation_id INTEGER, name_id INTEGER, graph_id INTEGER, graph_node_id "
         "INTEGER, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, "
         "static_shared_bytes, dynamic_shared_bytes, local_memory_bytes, queued, submitted, "
         "launch_type, is_device_launched) WITHOUT ROWID;",
         "table kernels is WITHOUT ROWID, not a plain rowid table"),
        ("api_missing", "DROP TABLE api_calls;", "table api_calls is missing"),
        ("kernels_no_start", "ALTER TABLE kernels DROP COLUMN graph_node_id;",
         "table kernels has no column graph_node_id"),
        ("strings_endless", f"DROP TABLE strings; CREATE VIEW strings AS {endless};",
         "strings is a view, not a plain table"),
        ("meta_endless", "ALTER TABLE meta RENAME TO m0; CREATE VIEW meta AS "
         "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
         "SELECT 'schema_version' AS key, '1' AS value FROM r;",
         "meta is a view, not a plain table"),
    ]
    for name, damage, what in cases:
        db = mkdb("plain_" + name, damage)
        for label, argv in every_verb(db):
            one_line_exit2(run_env({}, *argv, timeout=30), f"{name}: {label}",
                           f"gapscope: {db}: damaged trace: {what}")
    # an extra table of the user's own, even WITHOUT ROWID, is not ours to judge
    db = mkdb("plain_extra", "CREATE TABLE notes(k TEXT PRIMARY KEY, v) WITHOUT ROWID;"
              "INSERT INTO notes VALUES('b',2),('a','=1+1');")
    p = run("report", "--json", db)
    expect(p.returncode == 0 and not sanitizer(p), f"extra table: exit {p.returncode} {p.stderr!r}")
    # the CSV export dumps it in its primary key's order ("ORDER BY rowid"
    # failed the whole export: "no such column: rowid"), the formula-like
    # cell with its leading '
    csv_dir = os.path.join(WORK, "plain_extra_csv")
    shutil.rmtree(csv_dir, ignore_errors=True)
    p = run("export", db, "--format", "csv", "-o", csv_dir)
    expect(p.returncode == 0 and p.stderr == "", f"extra table: csv: exit {p.returncode} {p.stderr!r}")
    if p.returncode == 0:
        with open(os.path.join(csv_dir, "notes.csv"), newline="") as f:
            got = f.read()
        expect(got == "k,v\r\na,'=1+1\r\nb,2\r\n" or got == "k,v\na,'=1+1\nb,2\n",
               f"extra table: notes.csv {got!r}")


def many_ops_sql(n):
    return ("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d) "
            "INSERT INTO memcpys(start,end,device,stream,correlation_id,bytes,copy_kind) "
            "SELECT 10000 + i * 10, 10005 + i * 10, 0, 8, 0, 64, 1 FROM s;" % n)


def check_query_limit():
    # A progress handler bounds any one query step: with the bound at 0 ms
    # (GAPSCOPE_QUERY_LIMIT_MS, for tests) a step over 300k rows is stopped
    # and every verb says why, in one line, exit 2
    db = mkdb("query_limit", many_ops_sql(300000))
    line = f"gapscope: {db}: query ran too long; the trace may be hostile"
    for label, argv in (("report", ["report", db]), ("info", ["info", db]),
                        ("export chrome", ["export", db, "--format", "chrome", "-o",
                                           os.path.join(WORK, "ql.json")])):
        one_line_exit2(run_env({"GAPSCOPE_QUERY_LIMIT_MS": "0"}, *argv), f"limit 0: {label}", line)
    # the default bound lets it through
    p = run("report", "--json", db)
    expect(p.returncode == 0 and not sanitizer(p), f"default limit: exit {p.returncode} {p.stderr!r}")


def check_planner_stats():
    # A forged sqlite_stat1 (kernels "1 row", every api_calls row sharing one
    # correlation id) made the Chrome export's launch join quadratic: 25 s
    # instead of 2 s for 20k kernels under ASan. The statistics in the file
    # are not read: the forged trace exports in about the time of the plain one.
    import sqlite3
    import time
    sql = ("INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(3,'gemm');"
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000) "
           "INSERT INTO api_calls(id,api,name_id,start,end,pid,tid,correlation_id) "
           "SELECT i, 1, 1, i * 100, i * 100 + 10, 1, 11, i FROM s;"
           "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000) "
           "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,graph_id) "
           "SELECT i, i * 100 + 20, i * 100 + 50, 0, 7, i, 3, 0 FROM s;"
           "CREATE INDEX kernels_corr ON kernels(correlation_id);"
           "CREATE INDEX api_calls_corr ON api_calls(correlation_id);")
    plain = os.path.join(WORK, "stats_plain.db")
    forged = os.path.join(WORK, "stats_forged.db")
    subprocess.run([MKDB, plain, sql], check=True)
    subprocess.run([MKDB, forged, sql + "ANALYZE;"], check=True)
    con = sqlite3.connect(forged)
    con.execute("UPDATE sqlite_stat1 SET stat='1 1' WHERE tbl='kernels'")
    con.execute("UPDATE sqlite_stat1 SET stat='20000 20000' WHERE idx='api_calls_corr'")
    con.commit()
    con.close()
    times = {}
    for db in (plain, forged):
        out = db + ".json"
        t0 = time.monotonic()
        p = run_env({}, "export", db, "--format", "chrome", "-o", out, timeout=120)
        times[db] = time.monotonic() - t0
        expect(p.returncode == 0 and not sanitizer(p), f"stats {db}: exit {p.returncode}")
    expect(times[forged] < 3 * times[plain] + 1,
           f"forged sqlite_stat1: export {times[forged]:.1f} s, plain {times[plain]:.1f} s")


def check_utf16():
    # A UTF-16 database: names read as UTF-8 (every name read as its first
    # character in report/html/diff)
    db = os.path.join(WORK, "utf16.db")
    subprocess.run([MKDB, "--utf16", db, BASE + "UPDATE strings SET value='gemm_\u00e9t\u00e9' "
                    "WHERE id=3;"], check=True)
    p = run("report", "--json", db)
    expect(p.returncode == 0 and not sanitizer(p), f"utf16: exit {p.returncode} {p.stderr!r}")
    if p.returncode == 0:
        j = json.loads(p.stdout)
        names = [k["name"] for k in j["kernels"]["top"]]
        expect(names == ["gemm_\u00e9t\u00e9"], f"utf16: kernel names {names}")
        expect([r.get("name") for r in j["nvtx"]] == ["step"], f"utf16: nvtx {j['nvtx']}")
    # the graph reader and the exporters too: both kernels by their whole name
    p = run("graph", db, "--streams", "--range", "step", "-o", "-")
    expect(p.returncode == 0 and p.stdout.count('label="kernel\\ngemm_\u00e9t\u00e9"') == 2,
           f"utf16: graph --streams: exit {p.returncode} {p.stdout[:600]!r} {p.stderr!r}")
    p = run("export", db, "--format", "chrome", "--no-gaps", "-o", "-")
    expect(p.returncode == 0 and p.stdout.count('"name":"gemm_\u00e9t\u00e9"') == 2,
           f"utf16: export chrome: exit {p.returncode} {p.stderr!r}")


def check_id_ranges():
    # device ordinals 0..32767 and stream ids 0..2^32-1: a row outside is
    # refused and named (device 65536 read as device 0, merged with it)
    cases = [
        ("kernels", 2, "device", "65536", "0 to 32767"),
        ("kernels", 1, "device", "-1", "0 to 32767"),
        ("memcpys", 1, "device", "70000", "0 to 32767"),
        ("kernels", 2, "stream", "4294967296", "0 to 4294967295"),
        ("memsets", 1, "stream", "-7", "0 to 4294967295"),
    ]
    for table, row, col, value, rng in cases:
        db = mkdb(f"ids_{table}_{col}_{row}", f"UPDATE {table} SET {col}={value} WHERE id={row};")
        line = f"gapscope: {db}: damaged trace: {table} row {row} has {col} {value}, out of range ({rng})"
        for label, argv in verbs_reading_times(db):
            if label == "report --range":
                continue
            one_line_exit2(run(*argv), f"{table}.{col}={value}: {label}", line)


def check_info_recording():
    # info on a trace a collector still records (it holds an exclusive
    # flock on the file, collector/writer.c claim()) says "being recorded",
    # not "killed or crashed"
    import fcntl
    db = mkdb("recording")
    with open(db, "rb") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        p = run("info", db)
        fcntl.flock(f, fcntl.LOCK_UN)
    expect(p.returncode == 0 and not sanitizer(p), f"recording: exit {p.returncode} {p.stderr!r}")
    expect("being recorded" in p.stdout + p.stderr and "cut short" not in p.stdout + p.stderr,
           f"recording: {p.stdout[-300:]!r} {p.stderr!r}")
    p = run("info", db)
    expect("being recorded" not in p.stdout + p.stderr, "not recording: says being recorded")

def check_graph_ids():
    # The graph reader and info's GPU windows check ids and times as every
    # other reader does (trace.h): a device outside 0..32767, a stream
    # outside 32 bits, a time outside [0, 2^62] is refused, naming table,
    # row and column (graph --streams drew device 2^63-1 as a stream of its
    # own and a critical path of 9223372036854774 us; info listed a GPU
    # window for device 2^63-1; export --no-gaps overflowed 10^9 + device
    # in export_chrome.c under UBSan)
    out = os.path.join(WORK, "ids.dot")
    cases = [
        ("kernels", 2, "device", "9223372036854775807", "out of range (0 to 32767)"),
        ("kernels", 1, "device", "-9223372036854775808", "out of range (0 to 32767)"),
        ("memsets", 1, "stream", "-3", "out of range (0 to 4294967295)"),
        ("kernels", 2, "stream", "9223372036854775807", "out of range (0 to 4294967295)"),
        ("kernels", 2, "end", "9223372036854775807", "out of range (0 to 2^62 ns)"),
    ]
    for table, row, col, value, rng in cases:
        db = mkdb(f"gids_{table}_{col}_{row}", f"UPDATE {table} SET {col}={value} WHERE id={row};")
        line = f"gapscope: {db}: damaged trace: {table} row {row} has {col} {value}, {rng}"
        one_line_exit2(run("graph", db, "--streams", "--range", "step", "-o", out),
                       f"{table}.{col}={value}: graph --streams", line)
        one_line_exit2(run("export", db, "--format", "chrome", "--no-gaps", "-o", out + ".json"),
                       f"{table}.{col}={value}: export --no-gaps", line)
        if col == "device":
            one_line_exit2(run("info", db), f"{table}.{col}={value}: info", line)
    # a stream wait (syncs kind 2) on device 40000
    db = mkdb("gids_wait", "UPDATE syncs SET kind=2, device=40000 WHERE id=1;")
    one_line_exit2(run("graph", db, "--streams", "--range", "step", "-o", out), "wait device",
                   f"gapscope: {db}: damaged trace: syncs row 1 has device 40000, "
                   "out of range (-1 to 32767)")
    # a kernel that ran as node 1 of graph 1, its start -2^63: graph --id
    # and the list (SUM over it failed with "integer overflow")
    db = mkdb("gids_graph_time", star_sql(1, 1) + "UPDATE kernels SET graph_id=1, "
              "graph_node_id=1, start=-9223372036854775808 WHERE id=1;")
    line = (f"gapscope: {db}: damaged trace: kernels row 1 has start -9223372036854775808, "
            "out of range (0 to 2^62 ns)")
    one_line_exit2(run("graph", db, "--id", "1", "-o", out), "graph --id, start -2^63", line)
    one_line_exit2(run("graph", db), "graph list, start -2^63", line)
    # row ids at the ends of int64 are fine (node ids wrap, stay distinct):
    # 4 operations on stream 7, 3 stream edges
    db = mkdb("gids_rowids", "UPDATE kernels SET id=9223372036854775807 WHERE id=2;"
              "UPDATE kernels SET id=-9223372036854775808 WHERE id=1;")
    p = run("graph", db, "--streams", "--range", "step", "-o", out)
    expect(p.returncode == 0 and p.stderr == "" and
           p.stdout.startswith(f"{out}: 4 nodes, 3 edges;"),
           f"row ids +-2^63: exit {p.returncode} {p.stdout!r} {p.stderr[:300]!r}")


def wal_copy(src, dst, wal_bytes=None):
    """dst: a WAL-mode copy of trace src whose rows are all in dst-wal (the
    main file holds only the header: the log was never checkpointed, as
    when a recording is copied while it runs); wal_bytes, when given,
    replaces the log's content"""
    import sqlite3
    for f in (dst, dst + "-wal", dst + "-shm", dst + ".tmp", dst + ".tmp-wal",
              dst + ".tmp-shm"):
        if os.path.exists(f):
            os.remove(f)
    s = sqlite3.connect(src)
    d = sqlite3.connect(dst + ".tmp", isolation_level=None)
    d.execute("PRAGMA journal_mode=WAL")
    d.execute("PRAGMA wal_autocheckpoint=0")
    d.executescript(";\n".join(s.iterdump()))
    shutil.copy(dst + ".tmp", dst)
    with open(dst + ".tmp-wal", "rb") as f:
        log = f.read()
    d.close()
    s.close()
    os.remove(dst + ".tmp")
    with open(dst + "-wal", "wb") as f:
        f.write(log if wal_bytes is None else wal_bytes(log))


def check_messages():
    # Messages that named the wrong problem
    # 1. a schema_version that is no number said "damaged database: not an error"
    for value, shown in (("'abc'", "'abc'"), ("'1.5'", "'1.5'"), ("'-1'", "'-1'"),
                         ("NULL", "NULL")):
        if value == "NULL":  # meta.value is NOT NULL: rebuild meta without it
            damage = ("ALTER TABLE meta RENAME TO m0; CREATE TABLE meta(key TEXT PRIMARY KEY, "
                      "value TEXT); INSERT INTO meta SELECT * FROM m0; DROP TABLE m0;"
                      "UPDATE meta SET value=NULL WHERE key='schema_version';")
        else:
            damage = f"UPDATE meta SET value={value} WHERE key='schema_version';"
        db = mkdb("version_" + value.strip("'").replace(".", "_"), damage)
        what = (f"meta schema_version is {shown}, not a version number (1, 2, ...)"
                if value != "NULL" else "meta schema_version is NULL, not a version number")
        for label, argv in every_verb(db):
            one_line_exit2(run(*argv), f"schema_version {value}: {label}",
                           f"gapscope: {db}: damaged trace: {what}")
    db = mkdb("version_none", "DELETE FROM meta WHERE key='schema_version';")
    one_line_exit2(run("report", db), "no schema_version",
                   f"gapscope: {db}: SQLite database, but not a gapscope trace (its meta table "
                   "has no schema_version)")
    # 2. a WAL-mode trace whose rows are in a -wal file that is missing, or
    # damaged, said "no meta table"
    base = mkdb("wal_base")
    good = os.path.join(WORK, "wal_good.db")
    wal_copy(base, good)
    p = run("report", "--json", good)
    expect(p.returncode == 0 and not sanitizer(p),
           f"WAL with its log: exit {p.returncode} {p.stderr[:300]!r}")
    if p.returncode == 0:
        expect(json.loads(p.stdout)["kernels"]["count"] == 2, "WAL with its log: kernels")
    missing = os.path.join(WORK, "wal_missing.db")
    wal_copy(base, missing)
    os.remove(missing + "-wal")
    for label, argv in every_verb(missing):
        one_line_exit2(run(*argv), f"WAL missing: {label}",
                       f"gapscope: {missing}: the trace is in WAL mode and its main file holds "
                       f"no gapscope tables; its write-ahead log {missing}-wal, which holds "
                       "them, is missing or empty: copy the trace together with its -wal file")
        if os.path.exists(missing + "-wal"):  # SQLite leaves an empty one
            os.remove(missing + "-wal")
    damaged = os.path.join(WORK, "wal_damaged.db")
    wal_copy(base, damaged, lambda log: log[:32] + b"\xff" * (len(log) - 32))
    one_line_exit2(run("report", damaged), "WAL damaged",
                   f"gapscope: {damaged}: the trace is in WAL mode and its main file holds no "
                   f"gapscope tables; its write-ahead log {damaged}-wal was not read (it is "
                   "damaged or belongs to another database): copy the trace again with its "
                   "own -wal file")
    # 3. a WAL-mode trace in a folder gapscope cannot write (the collector's
    # traces are WAL-mode): "attempt to write a readonly database". With no
    # log left it reads as immutable; with rows in a log, one line says
    # what to do. (As root, the runs are made as nobody through setpriv.)
    import sqlite3
    ro = os.path.join(WORK, "ro")
    if os.path.exists(ro):
        os.chmod(ro, 0o755)
        shutil.rmtree(ro)
    os.makedirs(ro)
    trace = os.path.join(ro, "t.db")
    shutil.copy(base, trace)
    con = sqlite3.connect(trace)
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    logged = os.path.join(ro, "logged.db")
    wal_copy(base, logged)
    for f in os.listdir(ro):
        os.chmod(os.path.join(ro, f), 0o644)
    os.chmod(ro, 0o555)
    prefix = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            print("skipped: read-only folder (root without setpriv)")
            return
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    def run_ro(*args):
        return subprocess.run(prefix + [GAPSCOPE, *args], capture_output=True, text=True,
                              errors="replace", cwd="/")
    p = run_ro("report", "--json", trace)
    expect(p.returncode == 0 and not sanitizer(p),
           f"read-only folder: exit {p.returncode} {p.stderr[:300]!r}")
    if p.returncode == 0:
        dev = json.loads(p.stdout)["devices"][0]
        expect((dev["window_ns"], dev["busy_ns"]) == (4300, 2200), f"read-only folder: {dev}")
    p = run_ro("info", trace)
    expect(p.returncode == 0 and "Test GPU" in p.stdout, f"read-only folder: info {p.stderr!r}")
    one_line_exit2(run_ro("report", logged), "read-only folder, rows in the log",
                   f"gapscope: {logged}: the trace is in WAL mode, its rows partly in its -wal "
                   f"file, and its folder is not writable (SQLite must create {logged}-shm "
                   "there to read it): copy the trace with its -wal file to a writable folder")
    expect(sorted(os.listdir(ro)) == ["logged.db", "logged.db-wal", "t.db"],
           f"read-only folder: files {sorted(os.listdir(ro))}")
    os.chmod(ro, 0o755)


def fanout_sql(n, extra=""):
    """n kernels (ids 1..n, [100 i + 20, 100 i + 50] on device 0 stream 7)
    and n cudaLaunchKernel calls ([100 i, 100 i + 10], tid 11), all on
    correlation id 1, inside NVTX range "step" [0, 10^7] on tid 11"""
    return ("INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(3,'gemm'),(4,'step');"
            f"WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {n}) "
            "INSERT INTO api_calls(id,api,name_id,start,end,pid,tid,correlation_id) "
            "SELECT i, 1, 1, i * 100, i * 100 + 10, 1, 11, 1 FROM s;"
            f"WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {n}) "
            "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,graph_id) "
            "SELECT i, i * 100 + 20, i * 100 + 50, 0, 7, 1, 3, 0 FROM s;"
            "INSERT INTO nvtx(id,start,end,kind,text_id,pid,tid) VALUES(1,0,10000000,0,4,1,11);"
            + extra)


def check_fanout():
    # N kernels sharing one correlation id with N API calls: graph --streams
    # joined every kernel with every call (20000 of each: 53 s under ASan,
    # minutes in all). The launch of the id is its earliest call (start
    # 100, in the range): all 20000 kernels are in, one stream, so 19999
    # stream edges, and the critical path is the whole chain of 20000 x 30
    # ns = 600 us; the chain of same-named kernels collapses to 1 drawn node.
    n = 20000
    db = os.path.join(WORK, "fanout.db")
    subprocess.run([MKDB, db, fanout_sql(n)], check=True)
    out = os.path.join(WORK, "fanout.dot")
    p = run_env({}, "graph", db, "--streams", "--range", "step", "--max-ops", str(n), "-o", out,
                timeout=30)
    expect(p.returncode == 0 and p.stderr == "", f"fanout: exit {p.returncode} {p.stderr[:300]!r}")
    expect(p.stdout == f"{out}: {n} nodes, {n - 1} edges; 1 drawn (1 chain collapsed); "
           "critical path 20000 nodes, 600.000 us\n", f"fanout: stdout {p.stdout!r}")
    # one more call on the id, at 0, before a range "late" [50, 10^7]: the
    # launch (the earliest call) precedes the range, so no kernel is in it
    db = os.path.join(WORK, "fanout_before.db")
    subprocess.run([MKDB, db, fanout_sql(n, "INSERT INTO strings VALUES(5,'late');"
                                         "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) "
                                         "VALUES(50,10000000,0,5,1,11);"
                                         "INSERT INTO api_calls(api,name_id,start,end,pid,tid,"
                                         "correlation_id) VALUES(1,1,0,5,1,11,1);")], check=True)
    p = run_env({}, "graph", db, "--streams", "--range", "late", "-o", out, timeout=30)
    expect(p.returncode == 0 and p.stdout == f"{out}: 0 nodes, 0 edges; 0 drawn (0 chains "
           "collapsed); critical path 0 nodes, unmeasured\n",
           f"fanout, launch before the range: exit {p.returncode} {p.stdout!r} {p.stderr[:300]!r}")



{"times": check_times, "info_times": check_info_times, "graph_size": check_graph_size,
 "corrupt_page": check_corrupt_page,
 "sparse_ids": check_sparse_ids, "chrome_ids": check_chrome_ids,
 "empty_range": check_empty_range, "sums": check_sums,
 "nested_children": check_nested_children, "long_names": check_long_names,
 "not_regular": check_not_regular, "plain_tables": check_plain_tables,
 "query_limit": check_query_limit, "planner_stats": check_planner_stats, "utf16": check_utf16,
 "id_ranges": check_id_ranges, "fanout": check_fanout,
 "graph_ids": check_graph_ids, "messages": check_messages, "info_recording": check_info_recording}[CHECK]()
if failures:
    for f in failures:
        print("FAIL:", f)
    sys.exit(1)
print("ok:", CHECK)
