#!/usr/bin/env python3
"""CLI tests of gapscope's outputs (issue 23): every verb that writes a file
goes through one helper (viewer/render/out_file.c) - a failed run leaves the
old output as it was, devices/FIFOs/stdout are written in place and never
removed, a symlink's target is not truncated before success, Graphviz write
errors end in one line instead of exit(1) with partial files - and every
terminal line goes through one sanitizer (viewer/render/term.c), and CSV
cells that a spreadsheet would run as formulas are neutralised.

usage: outputs_check.py CHECK GAPSCOPE RENDER_MKDB GRAPH_MKDB WORKDIR

Write failures are made with RLIMIT_FSIZE (SIGXFSZ ignored: write() then
fails with EFBIG) and with a private /dev/full-like node (mknod c 1 7, as
root) - never /dev/full itself: the gapscope before this fix unlinked it.
"""
import os
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys

FAILS = []


def expect(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what, file=sys.stderr)


def run(args, fsize=None, stdout=None, env=None):
    def limit():
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run(args, stdout=stdout if stdout is not None else subprocess.PIPE,
                          stderr=subprocess.PIPE, preexec_fn=limit, env=env, timeout=300)


def one_line(r):
    """stderr of r as one gapscope: line (LSan reports stripped)"""
    err = r.stderr.decode("utf-8", "replace").split("\n=====")[0].strip()
    return err


def full_device(work, name):
    """a character device that fails every write with ENOSPC: a private
    node when we may make one, else /dev/full (safe unprivileged: nobody
    but root can unlink it)"""
    path = os.path.join(work, name)
    if os.path.lexists(path):
        os.unlink(path)
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        return path
    except PermissionError:
        return "/dev/full" if os.geteuid() != 0 else None


def content(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


def is_chardev(path):
    try:
        return stat.S_ISCHR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def leftovers(work):
    return sorted(n for n in os.listdir(work) if ".gapscope-" in n)


def check_html(gs, db, work):
    page = os.path.join(work, "page.html")
    with open(page, "w") as f:
        f.write("old page\n")
    r = run([gs, "html", db, "-o", page], fsize=4096)
    expect(r.returncode == 1, "html cut by EFBIG: exit %d, want 1" % r.returncode)
    line = one_line(r)
    expect(line == "gapscope: %s: write error: File too large" % page,
           "html cut by EFBIG: stderr %r" % line)
    expect(content(page) == "old page\n",
           "a failed html removed or changed the old page")
    expect(leftovers(work) == [], "temporary files left: %s" % leftovers(work))
    dev = full_device(work, "full.html")
    if dev:
        r = run([gs, "html", db, "-o", dev])
        expect(r.returncode == 1, "html -o full device: exit %d, want 1" % r.returncode)
        expect(one_line(r) == "gapscope: %s: write error: No space left on device" % dev,
               "html -o full device: stderr %r" % one_line(r))
        expect(is_chardev(dev), "html -o %s removed the device node" % dev)
    r = run([gs, "html", db, "-o", "/dev/null"])
    expect(r.returncode == 0 and is_chardev("/dev/null"), "html -o /dev/null")
    # success replaces the page, with the old file's mode
    with open(page, "w") as f:
        f.write("old page\n")
    os.chmod(page, 0o640)
    r = run([gs, "html", db, "-o", page])
    expect(r.returncode == 0, "html: exit %d" % r.returncode)
    expect(open(page).read().startswith("<!DOCTYPE html>"), "html did not replace the page")
    expect(stat.S_IMODE(os.stat(page).st_mode) == 0o640, "the page lost its mode")
    # a folder is refused, and left alone
    d = os.path.join(work, "adir")
    os.makedirs(d, exist_ok=True)
    r = run([gs, "html", db, "-o", d])
    expect(r.returncode == 2 and one_line(r) == "gapscope: %s: cannot write: Is a directory" % d,
           "html -o folder: exit %d %r" % (r.returncode, one_line(r)))
    # a database (the trace itself, by a slip of -o) is refused, and kept
    copy = os.path.join(work, "trace-copy.db")
    shutil.copy(db, copy)
    before = open(copy, "rb").read()
    for verb in (["html", copy, "-o", copy], ["export", copy, "-f", "chrome", "-o", copy]):
        r = run([gs] + verb)
        expect(r.returncode == 2 and one_line(r) ==
               "gapscope: %s: is an SQLite database (a trace?): not replaced by this output;"
               " give the output another name" % copy,
               "%s -o the trace: exit %d %r" % (verb[0], r.returncode, one_line(r)))
    expect(open(copy, "rb").read() == before, "html/export -o the trace changed it")
    os.unlink(copy)


def check_html_graphs(gs, db, work):
    """the page's inline CUDA graph is rendered to memory: no gapscope-graph-*
    temporary file, and no Graphviz exit(1) ("gvwrite_no_z problem") when
    writing fails"""
    here = os.path.dirname(os.path.abspath(__file__))
    c = sqlite3.connect(db)
    for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND name != 'meta'"
                          ).fetchall():
        c.execute("DELETE FROM " + t)
    with open(os.path.join(here, "graph", "hostile.sql"), encoding="utf-8") as f:
        c.executescript(f.read())
    c.execute("INSERT INTO strings VALUES (99, 'k')")
    c.execute("INSERT INTO kernels (id, start, end, device, stream, correlation_id, name_id,"
              " graph_id, graph_node_id) VALUES (1, 1000, 2000, 0, 7, 0, 99, 0, 0)")
    c.commit()
    c.close()
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ, TMPDIR=tmp)
    page = os.path.join(work, "graphs.html")
    with open(page, "w") as f:
        f.write("old page\n")
    r = run([gs, "html", db, "-o", page], fsize=2048, env=env)
    line = one_line(r)
    expect(r.returncode == 1 and line == "gapscope: %s: write error: File too large" % page,
           "html with graphs cut by EFBIG: exit %d %r" % (r.returncode, line))
    expect("gvwrite" not in line, "Graphviz's own write error reached the user")
    expect(os.listdir(tmp) == [], "temporary files in TMPDIR: %s" % os.listdir(tmp))
    expect(content(page) == "old page\n", "the old page was changed")
    r = run([gs, "html", db, "-o", page], env=env)
    expect(r.returncode == 0 and "<svg" in open(page).read(), "html with graphs: exit %d %s" %
           (r.returncode, one_line(r)))
    expect(os.listdir(tmp) == [], "temporary files in TMPDIR: %s" % os.listdir(tmp))


def check_export(gs, db, work):
    out = os.path.join(work, "run.json")
    for extra in ([], ["--no-gaps"]):
        with open(out, "w") as f:
            f.write("old json\n")
        r = run([gs, "export", db, "--format", "chrome", "-o", out] + extra, fsize=4096)
        expect(r.returncode == 1 and
               one_line(r) == "gapscope: %s: write error: File too large" % out,
               "export %s cut by EFBIG: exit %d %r" % (extra, r.returncode, one_line(r)))
        expect(content(out) == "old json\n", "a failed export %s changed the old file" % extra)
    # a symlink: its target is not truncated by a failed run, and replaced on success
    target = os.path.join(work, "target.json")
    link = os.path.join(work, "link.json")
    with open(target, "w") as f:
        f.write("old target\n")
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink("target.json", link)
    r = run([gs, "export", db, "--format", "chrome", "--no-gaps", "-o", link], fsize=4096)
    expect(r.returncode == 1, "export to a symlink cut by EFBIG: exit %d" % r.returncode)
    expect(content(target) == "old target\n", "a failed export truncated a symlink's target")
    expect(os.path.islink(link), "the symlink was replaced")
    r = run([gs, "export", db, "--format", "chrome", "-o", link])
    expect(r.returncode == 0 and os.path.islink(link) and
           open(target).read().startswith('{"displayTimeUnit"'),
           "export through a symlink: exit %d, link kept and target written" % r.returncode)
    dev = full_device(work, "full.json")
    if dev:
        for extra in ([], ["--no-gaps"]):
            r = run([gs, "export", db, "--format", "chrome", "-o", dev] + extra)
            expect(r.returncode == 1 and
                   one_line(r) == "gapscope: %s: write error: No space left on device" % dev,
                   "export -o full device %s: exit %d %r" % (extra, r.returncode, one_line(r)))
            expect(is_chardev(dev), "export %s removed the device node" % extra)
    with open("/dev/full", "wb") as full:
        r = run([gs, "export", db, "--format", "chrome", "-o", "-"], stdout=full)
    expect(r.returncode == 1 and one_line(r) ==
           "gapscope: write error on standard output: No space left on device",
           "export -o - > /dev/full: exit %d %r" % (r.returncode, one_line(r)))
    expect(leftovers(work) == [], "temporary files left: %s" % leftovers(work))


def check_export_csv(gs, db, work):
    os.chdir(work)
    r = run([gs, "export", db, "--format", "csv", "-o", "-"])
    expect(r.returncode == 2 and "names a directory" in one_line(r),
           "export csv -o -: exit %d %r" % (r.returncode, one_line(r)))
    expect(not os.path.exists(os.path.join(work, "-")), "export csv -o - made a folder '-'")
    # a failed CSV export keeps the old files
    d = os.path.join(work, "csv")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernels.csv"), "w") as f:
        f.write("old kernels\n")
    r = run([gs, "export", db, "--format", "csv", "-o", d], fsize=300)
    expect(r.returncode != 0, "csv cut by EFBIG: exit %d" % r.returncode)
    expect(content(os.path.join(d, "kernels.csv")) == "old kernels\n",
           "a failed CSV export changed the old kernels.csv")
    expect([n for n in os.listdir(d) if n.startswith(".")] == [],
           "temporary folder left: %s" % os.listdir(d))
    # formula-like cells get a leading ', --csv-raw keeps them
    c = sqlite3.connect(db)
    kid = c.execute("SELECT name_id FROM kernels ORDER BY id LIMIT 1").fetchone()[0]
    c.execute("UPDATE strings SET value = ? WHERE id = ?",
              ('=HYPERLINK("http://x","y")', kid))
    c.commit()
    c.close()
    import csv
    r = run([gs, "export", db, "--format", "csv", "-o", d])
    expect(r.returncode == 0, "csv export: exit %d %s" % (r.returncode, one_line(r)))
    with open(os.path.join(d, "kernels.csv"), newline="", encoding="utf-8") as f:
        names = [row["name"] for row in csv.DictReader(f)]
    expect('\'=HYPERLINK("http://x","y")' in names, "formula cell not neutralised: %r" % names[:3])
    r = run([gs, "export", db, "--format", "csv", "--csv-raw", "-o", d])
    expect(r.returncode == 0, "csv --csv-raw: exit %d %s" % (r.returncode, one_line(r)))
    with open(os.path.join(d, "kernels.csv"), newline="", encoding="utf-8") as f:
        names = [row["name"] for row in csv.DictReader(f)]
    expect('=HYPERLINK("http://x","y")' in names, "--csv-raw changed the cell: %r" % names[:3])


def check_graph(gs, gdb, work):
    out = os.path.join(work, "g.svg")
    with open(out, "w") as f:
        f.write("old svg\n")
    r = run([gs, "graph", gdb, "--id", "1", "-o", out], fsize=1024)
    line = one_line(r)
    expect(r.returncode == 1 and line == "gapscope: %s: write error: File too large" % out,
           "graph -o cut by EFBIG: exit %d %r" % (r.returncode, line))
    expect(content(out) == "old svg\n", "a failed graph changed the old picture")
    for suffix in ("svg", "dot", "png"):
        dev = full_device(work, "full." + suffix)
        if not dev or dev == "/dev/full":
            continue  # the suffix names the format: needs a private node
        r = run([gs, "graph", gdb, "--id", "1", "-o", dev])
        expect(r.returncode == 1 and
               one_line(r) == "gapscope: %s: write error: No space left on device" % dev,
               "graph -o full .%s: exit %d %r" % (suffix, r.returncode, one_line(r)))
        expect(is_chardev(dev), "graph removed the device node %s" % dev)
    for args in (["--id", "1"], []):
        with open("/dev/full", "wb") as full:
            r = run([gs, "graph", gdb] + args, stdout=full)
        expect(r.returncode == 1 and one_line(r) ==
               "gapscope: write error on standard output: No space left on device",
               "graph %s > /dev/full: exit %d %r" % (args, r.returncode, one_line(r)))
    expect(leftovers(work) == [], "temporary files left: %s" % leftovers(work))


def check_terminal(gs, db, gdb, work):
    """C1 controls (U+009B CSI, U+009D OSC) and ESC from trace names and file
    names reach the terminal escaped: report, diff, graph, error lines"""
    c = sqlite3.connect(db)
    kid = c.execute("SELECT name_id FROM kernels ORDER BY id LIMIT 1").fetchone()[0]
    c.execute("UPDATE strings SET value = ? WHERE id = ?", ("k\u009b31mred\u009d0;t\u0007", kid))
    nid = c.execute("SELECT text_id FROM nvtx WHERE text_id IS NOT NULL LIMIT 1").fetchone()
    if nid:
        c.execute("UPDATE strings SET value = ? WHERE id = ?", ("n\u009d52;c;x\u009c", nid[0]))
    c.commit()
    c.close()

    def clean(what, b):
        expect(b"\xc2\x9b" not in b and b"\xc2\x9d" not in b and b"\x1b" not in b and
               b"\x07" not in b, "%s: raw control characters reach the terminal" % what)

    r = run([gs, "report", db, "--full-names"])
    expect(r.returncode == 0, "report: exit %d" % r.returncode)
    clean("report", r.stdout)
    expect(b"k\\u009b31mred\\u009d0;t\\x07" in r.stdout, "report: kernel name not escaped as "
           "k\\u009b31mred\\u009d0;t\\x07")
    r = run([gs, "diff", db, db])
    expect(r.returncode == 0, "diff: exit %d %s" % (r.returncode, one_line(r)))
    clean("diff", r.stdout)
    expect(b"\\u009b" in r.stdout, "diff: C1 not shown as \\u009b")
    evil = os.path.join(work, "e\x1b]0;pwned\x07\u009b2J.db")
    shutil.copy(gdb, evil)
    r = run([gs, "graph", evil])
    clean("graph list", r.stdout)
    r = run([gs, "graph", evil, "--id", "99"])
    expect(r.returncode == 2, "graph --id 99: exit %d" % r.returncode)
    clean("graph error line", r.stderr)
    expect("\\x1b]0;pwned\\x07\\u009b2J.db: no graph with id 99" in one_line(r),
           "graph error line: %r" % one_line(r))
    evil_out = os.path.join(work, "o\x1b[2J\u009b.svg")
    r = run([gs, "graph", gdb, "--id", "1", "-o", evil_out])
    expect(r.returncode == 0, "graph -o odd name: exit %d" % r.returncode)
    clean("graph header line", r.stdout)
    r = run([gs, "report", os.path.join(work, "missing\u009b.db")])
    clean("error line", r.stderr)


def check_stdout(gs, db, gdb, work):
    # Every verb that prints, its standard output full: the line names the
    # standard output and the reason (it said "Operation not permitted",
    # or nothing with exit 1, and info, report, diff, --help and --version
    # had each their own wording or none), exit 1. info also warns about a
    # trace cut short (render_mkdb's has no 'finalized'): that line may follow.
    want = "gapscope: write error on standard output: No space left on device"
    cases = [["report", db], ["report", "--json", db], ["info", db], ["info", "--json", db],
             ["diff", db, db], ["diff", "--json", db, db], ["graph", gdb],
             ["graph", gdb, "--id", "1"], ["export", db, "--format", "chrome", "-o", "-"],
             ["html", db, "-o", "-"], ["--help"], ["--version"], ["report", "--help"],
             ["graph", "--help"]]
    for args in cases:
        with open("/dev/full", "wb") as full:
            r = run([gs] + args, stdout=full)
        lines = one_line(r).split("\n")
        expect(r.returncode == 1 and lines[0] == want and
               (len(lines) == 1 or (args[0] == "info" and len(lines) == 2 and
                                    "cut short" in lines[1])),
               "%s > /dev/full: exit %d %r" % (" ".join(args), r.returncode, one_line(r)))


def check_record(gs, work):
    r = run([gs, "record", "-o", "", "--", "true"])
    expect(r.returncode == 2 and "-o needs a file name" in one_line(r),
           "record -o '': exit %d %r" % (r.returncode, one_line(r)))
    r = run([gs, "record", "-o", work, "--", "true"])
    expect(r.returncode == 2 and "is a directory" in one_line(r),
           "record -o <dir>: exit %d %r" % (r.returncode, one_line(r)))


def main():
    check, gs, render_mkdb, graph_mkdb, work = sys.argv[1:6]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    db = os.path.join(work, "run.db")
    subprocess.run([render_mkdb, db], check=True)
    gdb = os.path.join(work, "graph.db")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([graph_mkdb, gdb, os.path.join(here, "graph", "basic.sql")], check=True)
    if check == "html":
        check_html(gs, db, work)
    elif check == "html_graphs":
        check_html_graphs(gs, db, work)
    elif check == "export":
        check_export(gs, db, work)
    elif check == "export_csv":
        check_export_csv(gs, db, work)
    elif check == "graph":
        check_graph(gs, gdb, work)
    elif check == "terminal":
        check_terminal(gs, db, gdb, work)
    elif check == "record":
        check_record(gs, work)
    elif check == "stdout":
        check_stdout(gs, db, gdb, work)
    else:
        sys.exit("unknown check " + check)
    if FAILS:
        print("%d failure(s)" % len(FAILS), file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
