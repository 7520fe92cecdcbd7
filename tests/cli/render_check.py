#!/usr/bin/env python3
"""CLI tests of gapscope export / html / diff on the fixture trace.

usage: render_check.py <check> <gapscope> <render_mkdb> <work dir>

Runs the real gapscope binary on databases written by render_mkdb (rows in
tests/unit/test_export_fixture.c) and parses what it writes with Python's
own json and csv modules. Expected figures are worked out by hand from the
fixture's rows. Exit 0 = pass, 1 = fail (with the reason on stderr).
"""
import csv
import json
import os
import shutil
import sqlite3
import subprocess
import sys

KERNEL_TEMPLATE = "void gemm<float, 128>(float const*, int)"
KERNEL_SCRIPT = "<script>alert(1)</script>"
NVTX_TEXT = 'step "one", back\\slash\nline2\x01'
KERNEL_UTF8 = "ядро_λ"
KERNEL_BAD_UTF8 = "bad\ufffdutf8"


def fail(msg):
    sys.stderr.write("FAIL: %s\n" % msg)
    sys.exit(1)


def expect(cond, msg):
    if not cond:
        fail(msg)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)


MKDB = None  # path of render_mkdb, set by main()


def mkdb_after(path):
    """the fixture's 'after' variant"""
    expect(run([MKDB, path, "1"]).returncode == 0, "render_mkdb %s 1 failed" % path)


def count_ph(evs):
    counts = {}
    for e in evs:
        counts[e["ph"]] = counts.get(e["ph"], 0) + 1
    return counts


def check_export_chrome(gs, db, work):
    out = os.path.join(work, "run.json")
    r = run([gs, "export", db, "--format", "chrome", "-o", out])
    expect(r.returncode == 0, "export chrome exit %d: %s" % (r.returncode, r.stderr))
    with open(out, encoding="utf-8") as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    # see tests/unit/test_export_chrome.c for how these follow from the
    # rows; the analysis adds 5 idle gaps (test_html.c lists them) on a
    # track of their own (its name and sort index: 2 more "M")
    want = {"M": 9, "X": 17, "i": 1, "b": 2, "e": 2, "s": 4, "f": 4}
    counts = count_ph(evs)
    expect(counts == want, "event counts %s, want %s" % (counts, want))
    gaps = sorted((e for e in evs if e.get("cat") == "gap"), key=lambda e: e["ts"])
    # gap model v2, cut by hand in test_html.c's header (cause = the
    # largest segment's; times in us from the first event at 900 ns)
    want_gaps = [(3.1, 0.1, "launch latency"), (4.1, 0.2, "launch latency"), (5.1, 0.1, "other"),
                 (5.4, 3.7, "sync wait"), (9.6, 0.5, "other")]
    got = [(round(g["ts"], 3), round(g["dur"], 3), g["args"]["cause"]) for g in gaps]
    expect(got == want_gaps, "gaps %s, want %s" % (got, want_gaps))
    # [6300, 10000): sync wait [6300, 9000), host code [9000, 9500), launch
    # latency [9500, 10000) (cudaLaunchKernel [9500, 9800])
    want = ("before kernel " + KERNEL_SCRIPT + ": 2.700 us sync wait in cudaStreamSynchronize, "
            "then 500 ns host code on thread 4243, then 500 ns launch latency (cudaLaunchKernel)")
    expect(gaps[3]["args"]["explanation"] == want,
           "explanation %r" % gaps[3]["args"]["explanation"])
    expect(gaps[0]["args"]["explanation"] == "before kernel " + KERNEL_UTF8 +
           ": 100 ns launch latency (cudaLaunchKernel)",
           "explanation %r" % gaps[0]["args"]["explanation"])
    # without the analysis: the trace's own events only
    out2 = os.path.join(work, "nogaps.json")
    r = run([gs, "export", db, "--format", "chrome", "--no-gaps", "-o", out2])
    expect(r.returncode == 0, "--no-gaps exit %d" % r.returncode)
    with open(out2, encoding="utf-8") as f:
        counts = count_ph(json.load(f)["traceEvents"])
    want = {"M": 7, "X": 12, "i": 1, "b": 2, "e": 2, "s": 4, "f": 4}
    expect(counts == want, "--no-gaps event counts %s, want %s" % (counts, want))
    names = {e["name"] for e in evs if e["ph"] == "X"}
    for n in (KERNEL_TEMPLATE, KERNEL_SCRIPT, NVTX_TEXT, KERNEL_UTF8, KERNEL_BAD_UTF8):
        expect(n in names, "slice %r missing" % n)
    k = [e for e in evs if e["ph"] == "X" and e["name"] == KERNEL_SCRIPT][0]
    expect(abs(k["ts"] - 9.1) < 1e-9 and abs(k["dur"] - 0.5) < 1e-9,
           "kernel 3 ts/dur %s/%s, want 9.1/0.5" % (k["ts"], k["dur"]))
    # the same document on standard output
    r = run([gs, "export", db, "--format", "chrome", "-o", "-"])
    expect(r.returncode == 0, "export to stdout exit %d" % r.returncode)
    with open(out, "rb") as f:
        expect(r.stdout == f.read(), "stdout output differs from the file")


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def check_export_csv(gs, db, work):
    out = os.path.join(work, "csv", "nested")  # does not exist yet
    r = run([gs, "export", db, "--format", "csv", "-o", out])
    expect(r.returncode == 0, "export csv exit %d: %s" % (r.returncode, r.stderr))
    tables = ["meta", "strings", "devices", "processes", "threads", "kernels", "api_calls",
              "memcpys", "memsets", "syncs", "nvtx", "graphs", "graph_nodes", "graph_edges",
              "graph_execs", "graph_launches", "overhead"]
    # every table of the file, also those a later schema may add
    c = sqlite3.connect(db)
    in_db = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    c.close()
    expect(set(tables) <= set(in_db), "schema v1 tables missing from the fixture")
    expect(sorted(os.listdir(out)) == sorted(t + ".csv" for t in in_db),
           "files: %s, tables: %s" % (sorted(os.listdir(out)), sorted(in_db)))
    rows = {t: read_csv(os.path.join(out, t + ".csv")) for t in tables}
    want_rows = {"strings": 9, "devices": 1, "processes": 1, "threads": 1, "kernels": 4,
                 "api_calls": 5, "memcpys": 1, "memsets": 1, "syncs": 2, "nvtx": 2,
                 "graphs": 0, "graph_edges": 0}
    for t, n in want_rows.items():
        expect(len(rows[t]) == n, "%s: %d rows, want %d" % (t, len(rows[t]), n))
    k = {int(r["id"]): r for r in rows["kernels"]}
    expect(k[1]["name"] == KERNEL_TEMPLATE, "kernel 1 name %r" % k[1]["name"])
    expect(k[1]["start"] == "2000" and k[1]["end"] == "4000", "kernel 1 times")
    expect(k[1]["queued"] == "", "NULL must be an empty field")
    expect(k[3]["name"] == KERNEL_SCRIPT, "kernel 3 name %r" % k[3]["name"])
    expect(k[2]["name"] == KERNEL_UTF8, "kernel 2 name %r" % k[2]["name"])
    expect(k[4]["name"] == KERNEL_BAD_UTF8, "kernel 4 name %r" % k[4]["name"])
    n = {int(r["id"]): r for r in rows["nvtx"]}
    expect(n[1]["text"] == NVTX_TEXT, "nvtx text %r" % n[1]["text"])
    expect(n[2]["kind_name"] == "mark", "nvtx 2 kind")
    a = [r for r in rows["api_calls"] if r["name"] == "cudaLaunchKernel"]
    expect(len(a) == 3, "3 cudaLaunchKernel rows, got %d" % len(a))
    m = rows["memcpys"][0]
    expect((m["copy_kind_name"], m["src_kind_name"], m["bytes"]) == ("HtoD", "pageable", "4096"),
           "memcpy row %s" % m)


def one_line_exit2(args, what, must_contain):
    r = run(args)
    err = r.stderr.decode("utf-8", "replace")
    expect(r.returncode == 2, "%s: exit %d, want 2 (stderr %r)" % (what, r.returncode, err))
    expect(err.count("\n") == 1 and err.startswith("gapscope: "),
           "%s: want one 'gapscope: ' line, got %r" % (what, err))
    expect(must_contain in err, "%s: %r does not say %r" % (what, err, must_contain))


def check_export_bad_input(gs, db, work):
    out = os.path.join(work, "x.json")
    missing = os.path.join(work, "missing.db")
    one_line_exit2([gs, "export", missing, "--format", "chrome", "-o", out], "missing file",
                   missing + ": cannot open")
    text = os.path.join(work, "notes.txt")
    with open(text, "w") as f:
        f.write("this is not a database, just some text that is long enough\n" * 4)
    one_line_exit2([gs, "export", text, "--format", "chrome", "-o", out], "text file",
                   "not an SQLite database")
    trunc = os.path.join(work, "trunc.db")
    with open(db, "rb") as f:
        data = f.read()
    with open(trunc, "wb") as f:
        f.write(data[: len(data) // 2])
    one_line_exit2([gs, "export", trunc, "--format", "csv", "-o", work + "/t"], "truncated",
                   "truncated database")
    foreign = os.path.join(work, "foreign.db")
    c = sqlite3.connect(foreign)
    c.execute("CREATE TABLE t(x)")
    c.commit()
    c.close()
    one_line_exit2([gs, "export", foreign, "--format", "chrome", "-o", out], "foreign",
                   "not a gapscope trace")
    newer = os.path.join(work, "newer.db")
    shutil.copy(db, newer)
    c = sqlite3.connect(newer)
    c.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    c.commit()
    c.close()
    one_line_exit2([gs, "export", newer, "--format", "chrome", "-o", out], "newer",
                   "schema version 99 is newer")
    one_line_exit2([gs, "export", db, "--format", "xml", "-o", out], "unknown format",
                   "unknown format 'xml'")
    one_line_exit2([gs, "export", db, "--bogus", "--format", "csv", "-o", out],
                   "unknown option", "unknown option '--bogus'")
    one_line_exit2([gs, "export", db, "--format", "chrome"], "no -o", "say where to write")
    one_line_exit2([gs, "export", db, "--format"], "no value", "needs a value")
    one_line_exit2([gs, "export"], "no trace", "which trace?")
    one_line_exit2([gs, "export", db, "--format", "csv", "-o", db], "csv into a file",
                   "not a directory")
    one_line_exit2([gs, "export", db, "--format", "chrome", "-o", work + "/no/such/dir/x.json"],
                   "unwritable output", "cannot write")
    expect(not os.path.exists(out), "a failed export left %s behind" % out)
    r = run([gs, "export", "--help"])
    expect(r.returncode == 0 and b"--format" in r.stdout, "--help")


def bad_traces(db, work):
    """(path, what the error line must say) for each kind of bad trace"""
    out = []
    missing = os.path.join(work, "missing.db")
    out.append((missing, missing + ": cannot open"))
    text = os.path.join(work, "notes.txt")
    with open(text, "w") as f:
        f.write("this is not a database, just some text that is long enough\n" * 4)
    out.append((text, "not an SQLite database"))
    trunc = os.path.join(work, "trunc.db")
    with open(db, "rb") as f:
        data = f.read()
    with open(trunc, "wb") as f:
        f.write(data[: len(data) // 2])
    out.append((trunc, "truncated database"))
    foreign = os.path.join(work, "foreign.db")
    if not os.path.exists(foreign):
        c = sqlite3.connect(foreign)
        c.execute("CREATE TABLE t(x)")
        c.commit()
        c.close()
    out.append((foreign, "not a gapscope trace"))
    newer = os.path.join(work, "newer.db")
    shutil.copy(db, newer)
    c = sqlite3.connect(newer)
    c.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    c.commit()
    c.close()
    out.append((newer, "schema version 99 is newer"))
    empty = os.path.join(work, "nogpu.db")
    shutil.copy(db, empty)
    c = sqlite3.connect(empty)
    for t in ("kernels", "memcpys", "memsets"):
        c.execute("DELETE FROM " + t)
    c.commit()
    c.close()
    out.append((empty, "no GPU activity"))
    return out


def check_html(gs, db, work):
    after = os.path.join(work, "after.db")
    mkdb_after(after)
    page = os.path.join(work, "run.html")
    r = run([gs, "html", db, "-o", page])
    expect(r.returncode == 0, "html exit %d: %s" % (r.returncode, r.stderr))
    with open(page, encoding="utf-8") as f:
        text = f.read()
    expect(text.startswith("<!DOCTYPE html>"), "not an HTML document")
    expect(text.count("<script") == 2, "%d script elements" % text.count("<script"))
    expect("<script>alert" not in text, "hostile kernel name not escaped")
    expect('<div class="v">50.0%</div>' in text, "utilisation card")
    r = run([gs, "html", db, "-o", "-"])
    expect(r.returncode == 0 and r.stdout.decode("utf-8") == text, "-o - differs from the file")
    cmp_ = os.path.join(work, "cmp.html")
    r = run([gs, "html", db, after, "-o", cmp_])
    expect(r.returncode == 0, "html compare exit %d: %s" % (r.returncode, r.stderr))
    with open(cmp_, encoding="utf-8") as f:
        text = f.read()
    expect(text.count("<script") == 3 and "What changed" in text, "comparison page")


def check_html_graphs(gs, db, work):
    """CUDA graph diagrams inline: the graph helper's hostile-name fixture
    (tests/cli/graph/hostile.sql: graph 5, names with quotes, braces,
    backslashes, newlines, templates) plus one kernel so the trace has GPU
    activity, and a graph node named <script>alert(1)</script>."""
    here = os.path.dirname(os.path.abspath(__file__))
    c = sqlite3.connect(db)
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND name != 'meta'"
                          ).fetchall():
        c.execute("DELETE FROM " + t)
    with open(os.path.join(here, "graph", "hostile.sql"), encoding="utf-8") as f:
        c.executescript(f.read())
    c.executescript("""
        INSERT INTO strings VALUES (99, '<script>alert(1)</script>');
        INSERT INTO graph_nodes (node_id, graph_id, type, name_id) VALUES (59, 5, 0, 99);
        INSERT INTO kernels (id, start, end, device, stream, correlation_id, name_id,
                             graph_id, graph_node_id) VALUES (1, 1000, 2000, 0, 7, 0, 99, 0, 0);
    """)
    c.commit()
    c.close()
    page = os.path.join(work, "graphs.html")
    r = run([gs, "html", db, "-o", page])
    expect(r.returncode == 0, "html exit %d: %s" % (r.returncode, r.stderr))
    with open(page, encoding="utf-8") as f:
        text = f.read()
    expect("<h3>CUDA graphs</h3>" in text, "no CUDA graphs section")
    expect("CUDA graph 5:" in text, "graph 5 not drawn")
    # the timeline's SVG and graph 5's (one kernel: no gap histogram)
    expect(text.count("<svg") == 2, "%d <svg elements, want 2" % text.count("<svg"))
    expect("<script>alert" not in text, "a graph node name became markup")
    expect(text.count("<script") == 2, "%d script elements" % text.count("<script"))


def check_html_bad_input(gs, db, work):
    out = os.path.join(work, "x.html")
    for path, says in bad_traces(db, work):
        one_line_exit2([gs, "html", path, "-o", out], "html " + os.path.basename(path), says)
        one_line_exit2([gs, "html", db, path, "-o", out], "html compare with " +
                       os.path.basename(path), says)
    one_line_exit2([gs, "html", db], "no -o", "say where to write")
    one_line_exit2([gs, "html", db, "-o"], "no value", "needs a value")
    one_line_exit2([gs, "html", db, "--bogus", "-o", out], "unknown option",
                   "unknown option '--bogus'")
    one_line_exit2([gs, "html", db, db, db, "-o", out], "three traces", "one trace, or two")
    one_line_exit2([gs, "html", "-o", out], "no trace", "which trace?")
    one_line_exit2([gs, "html", db, "--range", "", "-o", out], "empty range", "--range needs")
    one_line_exit2([gs, "html", db, "-o", work + "/no/such/dir/x.html"], "unwritable output",
                   "cannot write")
    expect(not os.path.exists(out), "a failed html left %s behind" % out)
    r = run([gs, "html", "--help"])
    expect(r.returncode == 0 and b"--output" in r.stdout, "--help")


def check_diff(gs, db, work):
    after = os.path.join(work, "after.db")
    mkdb_after(after)
    r = run([gs, "diff", db, after])
    expect(r.returncode == 0, "diff exit %d: %s" % (r.returncode, r.stderr))
    out = r.stdout.decode("utf-8")
    # figures worked out by hand in tests/unit/test_diff.c
    for line in ("  wall time (GPU span)               9.2 us       3.9 us      -5.3 us    -57.6%",
                 "  idle gaps                               5            1           -4    -80.0%",
                 "    idle launch latency              800 ns       100 ns      -700 ns    -87.5%",
                 "  launch overhead share                8.7%         2.6%      -6.1 pt    -70.5%",
                 "     900 ns ->    700 ns   -22.2%       1 ->      1  " + KERNEL_UTF8):
        expect(line + "\n" in out, "diff output lacks %r:\n%s" % (line, out))
    r = run([gs, "diff", "--json", db, after])
    expect(r.returncode == 0, "diff --json exit %d" % r.returncode)
    doc = json.loads(r.stdout.decode("utf-8"))
    t = doc["totals"]
    expect((t["wall_ns"]["before"], t["wall_ns"]["after"]) == (9200, 3900), "json wall")
    expect((t["busy_ns"]["before"], t["busy_ns"]["after"]) == (4600, 3800), "json busy")
    # after: the one gap [5100, 5200) is launch latency, not the sync in progress
    expect(t["idle_by_cause_ns"]["sync_wait"]["after"] == 0, "json sync_wait")
    expect(t["idle_by_cause_ns"]["launch_latency"]["after"] == 100, "json launch_latency")
    expect(t["idle_by_cause_ns"]["sync_wait"]["before"] == 2700, "json sync_wait before")
    names = [k["name"] for k in doc["kernels"]]
    expect(names == [KERNEL_TEMPLATE, KERNEL_UTF8, KERNEL_SCRIPT, KERNEL_BAD_UTF8],
           "json kernel order %s" % names)
    expect(doc["nvtx"][0]["name"] == NVTX_TEXT, "json NVTX name")


def check_diff_bad_input(gs, db, work):
    for path, says in bad_traces(db, work):
        one_line_exit2([gs, "diff", db, path], "diff with " + os.path.basename(path), says)
        one_line_exit2([gs, "diff", path, db], "diff of " + os.path.basename(path), says)
    one_line_exit2([gs, "diff", db], "one trace", "two traces needed")
    one_line_exit2([gs, "diff", db, db, "--top", "x"], "bad --top", "--top needs")
    one_line_exit2([gs, "diff", db, db, "--bogus"], "unknown option", "unknown option")
    r = run([gs, "diff", "--help"])
    expect(r.returncode == 0 and b"--json" in r.stdout, "--help")


def data_blocks(html):
    """the JSON data blocks of a page, by run index"""
    import re
    return [json.loads(m) for m in
            re.findall(r'<script type="application/json" class="gs-data" data-run="\d">\n(.*?)\n</script>',
                       html, re.S)]


def check_diff_ranges(gs, db, work):
    """two phases (NVTX ranges) of one trace: fixture variant 2; the
    figures are derived by hand in tests/unit/test_diff.c's comment"""
    p = os.path.join(work, "phases.db")
    expect(run([MKDB, p, "2"]).returncode == 0, "render_mkdb phases failed")
    sel = ["--before-range", "before_phase", "--after-range", "after_phase"]
    r = run([gs, "diff", p] + sel)
    expect(r.returncode == 0, "diff of phases exit %d: %s" % (r.returncode, r.stderr))
    out = r.stdout.decode("utf-8")
    want = ("gapscope diff\n"
            "  before: %s, NVTX range \"before_phase\": 1 range, 10.4 us in all\n"
            "  after:  %s, NVTX range \"after_phase\": 1 range, 5.2 us in all\n" % (p, p))
    expect(out.startswith(want), "phase diff header:\n%s" % out)
    for line in ("  wall time (selected ranges)       10.4 us       5.2 us      -5.2 us    -50.0%",
                 "  GPU busy                           4.6 us       3.8 us      -800 ns    -17.4%",
                 "  launch overhead share                8.7%        21.6%     +12.9 pt   +148.0%",
                 "  host code share                      5.4%         3.9%      -1.5 pt    -27.8%",
                 "    idle launch latency              800 ns       1.1 us      +300 ns    +37.5%",
                 "    idle host code                   500 ns       200 ns      -300 ns    -60.0%",
                 "  idle gaps                               5            2           -3    -60.0%"):
        expect(line + "\n" in out, "phase diff lacks %r:\n%s" % (line, out))
    # the same file named twice, options after the traces: the same output
    r2 = run([gs, "diff", p, p] + sel)
    expect(r2.returncode == 0 and r2.stdout.decode("utf-8") == out, "diff P P differs")
    r = run([gs, "diff", "--json", p] + sel)
    doc = json.loads(r.stdout.decode("utf-8"))
    t = doc["totals"]
    expect((doc["before_range"], doc["after_range"]) == ("before_phase", "after_phase"),
           "json range names")
    expect((t["wall_ns"]["before"], t["wall_ns"]["after"]) == (10400, 5200), "json wall")
    expect((t["window_ns"]["before"], t["window_ns"]["after"]) == (9200, 5100), "json window")
    # after phase: [20800, 21000) host code 200, [21000, 22000) + [25100,
    # 25200) launch latency 1100 (test_diff.c)
    expect(t["idle_by_cause_ns"]["host_code"]["after"] == 200, "json host_code")
    expect(t["idle_by_cause_ns"]["launch_latency"]["after"] == 1100, "json launch_latency")
    expect((t["selected_ranges"]["before"], t["selected_ranges"]["after"]) == (1, 1),
           "json selected ranges")
    # --range applies to both sides: a phase against itself changes nothing
    r = run([gs, "diff", "--json", "--range", "after_phase", p, p])
    t = json.loads(r.stdout.decode("utf-8"))["totals"]
    expect(t["wall_ns"]["change"] == 0 and t["busy_ns"]["after"] == 3800, "--range both")
    # bad input: a range that is not there names the ones that are
    one_line_exit2([gs, "diff", p, "--before-range", "nope", "--after-range", "after_phase"],
                   "missing range", p + ': no NVTX range named "nope"; its ranges: ')
    one_line_exit2([gs, "diff", p, "--before-range", "nope", "--after-range", "after_phase"],
                   "missing range lists", '"before_phase"')
    one_line_exit2([gs, "diff", db, p, "--range", "after_phase"], "range missing in one run",
                   db + ': no NVTX range named "after_phase"; its ranges: "step \\"one\\"')
    one_line_exit2([gs, "diff", p, "--before-range", "before_phase"], "one side only",
                   "two traces needed, or one with --before-range")
    one_line_exit2([gs, "diff", p, p, "--after-range", ""], "empty range", "--after-range needs")

    # the comparison page of the two phases
    page = os.path.join(work, "phases.html")
    r = run([gs, "html", p] + sel + ["-o", page])
    expect(r.returncode == 0, "html of phases exit %d: %s" % (r.returncode, r.stderr))
    with open(page, encoding="utf-8") as f:
        html = f.read()
    expect("<h2>What changed</h2>" in html, "no comparison")
    expect("<td class=\"name\">wall time (selected ranges)</td><td>10.4 \u00b5s</td>"
           "<td>5.2 \u00b5s</td>" in html, "page wall row")
    expect("<h2>Before: %s \u00b7 before_phase</h2>" % p in html, "before heading")
    expect("selection: NVTX range \u201cafter_phase\u201d, 1 range, 5.2 \u00b5s in all" in html,
           "after selection line")
    matched = html[html.index("<h3>NVTX ranges, matched by name</h3>"):]
    matched = matched[:matched.index("</table>")]
    expect("before_phase" not in matched and "after_phase" not in matched and
           "step &quot;one&quot;" in matched, "NVTX comparison rows: %s" % matched)
    blocks = data_blocks(html)
    expect(len(blocks) == 2, "%d data blocks" % len(blocks))
    # each timeline opens on its phase: [800, 11200] -/+ 104 ns and
    # [20800, 26000] -/+ 52 ns, within the trace [800, 26000], from t0 800
    expect(blocks[0]["view"] == [0, 10504], "before view %s" % blocks[0]["view"])
    expect(blocks[1]["view"] == [19948, 25200], "after view %s" % blocks[1]["view"])
    one_line_exit2([gs, "html", p, "--before-range", "before_phase", "-o", page], "html one side",
                   "give both --before-range and --after-range")
    one_line_exit2([gs, "html", p, "--range", "nope", "-o", page], "html missing range",
                   'no NVTX range named "nope"')


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    check, gs, mkdb, work = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    db = os.path.join(work, "run.db")
    r = run([mkdb, db])
    expect(r.returncode == 0, "render_mkdb failed: %s" % r.stderr)
    global MKDB
    MKDB = mkdb
    globals()["check_" + check](gs, db, work)
    print("ok: %s" % check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
