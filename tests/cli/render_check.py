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


def check_export_chrome(gs, db, work):
    out = os.path.join(work, "run.json")
    r = run([gs, "export", db, "--format", "chrome", "-o", out])
    expect(r.returncode == 0, "export chrome exit %d: %s" % (r.returncode, r.stderr))
    with open(out, encoding="utf-8") as f:
        doc = json.load(f)
    evs = doc["traceEvents"]
    counts = {}
    for e in evs:
        counts[e["ph"]] = counts.get(e["ph"], 0) + 1
    # see tests/unit/test_export_chrome.c for how these follow from the rows
    want = {"M": 7, "X": 12, "i": 1, "b": 2, "e": 2, "s": 4, "f": 4}
    expect(counts == want, "event counts %s, want %s" % (counts, want))
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
    expect(sorted(os.listdir(out)) == sorted(t + ".csv" for t in tables),
           "files: %s" % sorted(os.listdir(out)))
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
    globals()["check_" + check](gs, db, work)
    print("ok: %s" % check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
