#!/usr/bin/env python3
"""CLI tests of issue 55, "Hostile inputs, round 2": the importers under the
trace verbs' defences, special files as outputs, output errors and signals,
one rule for stream ids, sums that overflow, Kineto events without dur, and
the small ones (record --activities, the collector's warnings).

usage: hostile2_check.py CHECK GAPSCOPE RENDER_MKDB WORKDIR GRAPH_MKDB

Each CHECK is one ctest (cli_hostile2_<CHECK>). Every expected line and
number is worked out by hand from the rows written here.
"""
import json
import os
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import time

FAILS = []


def expect(what, got, want):
    if got != want:
        FAILS.append("%s: got %r, want %r" % (what, got, want))
        print("FAIL: %s: got %r, want %r" % (what, got, want), file=sys.stderr)


def run(args, env=None, fsize=None, xfsz=signal.SIG_IGN, timeout=60, stdin=None, user=None,
        stdout=subprocess.PIPE, pass_fds=()):
    """args' result; a hang past timeout is a failure (returncode None)"""
    def pre():
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, xfsz)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if user is not None:
            os.setgroups([])
            os.setgid(user[1])
            os.setuid(user[0])
    e = dict(os.environ, **(env or {}))
    try:
        return subprocess.run(args, stdout=stdout, stderr=subprocess.PIPE, env=e,
                              preexec_fn=pre, timeout=timeout, stdin=stdin, pass_fds=pass_fds)
    except subprocess.TimeoutExpired:
        class Hung:
            returncode = None
            stdout = b""
            stderr = b"(hung: killed after %d s)" % timeout
        return Hung()


def line(r):
    """stderr of r: its first line (sanitizer reports would follow)"""
    return r.stderr.decode("utf-8", "replace").split("\n=====")[0].strip()


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def leftovers(d):
    return sorted(n for n in os.listdir(d) if ".gapscope-" in n or n.startswith(".gapscope"))


# ------------------------------------------------------------------ exports

PID, TID = 4242, 4243
GTID = (PID << 24) | TID
GPID = PID << 24

EXPORT_SCHEMA = """
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
  cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,
  blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER);
"""


def make_export(path, kernels=1):
    """An Nsight Systems export (nsys 2024.6's tables, those the import
    needs): `kernels` launches of gemm on stream 7, each 1000 ns after a
    500 ns cudaLaunchKernel, 2000 ns apart"""
    if os.path.exists(path):
        os.unlink(path)
    con = sqlite3.connect(path)
    con.executescript(EXPORT_SCHEMA)
    con.executemany("INSERT INTO StringIds VALUES (?, ?)",
                    [(1, "gemm"), (2, "cudaLaunchKernel_v7000")])
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 2, 0, NULL)",
                    [(i * 2000, i * 2000 + 500, GTID, i + 1) for i in range(kernels)])
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, 1, 1,"
                    " NULL, 0, 0, 32, 1, 1, 1, 128, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0)",
                    [(i * 2000 + 1000, i * 2000 + 1500, i + 1, GPID) for i in range(kernels)])
    con.commit()
    con.close()


def check_import_guard(gs, work):
    """Item 1: the importers run under the trace verbs' defences - plain
    tables only, a bound on each query step, one line and exit 2."""
    db = os.path.join(work, "out.db")
    good = os.path.join(work, "good.sqlite")
    make_export(good, kernels=3)
    r = run([gs, "import", "-q", good, "-o", db])
    expect("a plain export imports", (r.returncode, line(r)), (0, ""))
    expect("its kernels", rows(db, "SELECT count(*) FROM kernels"), [(3,)])
    os.unlink(db)

    # StringIds, then the kernel table, as a view over an endless
    # recursive CTE: the import hung, CPU-bound, before
    forever = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
               " SELECT i AS id, 'x' || i AS value FROM n")
    cases = [("StringIds", "view", "DROP TABLE StringIds; CREATE VIEW StringIds AS " + forever),
             ("CUPTI_ACTIVITY_KIND_KERNEL", "view",
              "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO k0;"
              " CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT k0.* FROM k0,"
              " (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n)"),
             ("CUPTI_ACTIVITY_KIND_RUNTIME", "virtual",
              "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; CREATE VIRTUAL TABLE"
              " CUPTI_ACTIVITY_KIND_RUNTIME USING fts5(start, end, eventClass, globalTid,"
              " correlationId, nameId, returnValue)")]
    for table, kind, sql in cases:
        src = os.path.join(work, "hostile-%s.sqlite" % table)
        make_export(src)
        con = sqlite3.connect(src)
        try:
            con.executescript(sql)
        except sqlite3.OperationalError as e:  # no fts5 in this Python's SQLite
            print("skipped %s as a %s: %s" % (table, kind, e))
            con.close()
            continue
        con.commit()
        con.close()
        t0 = time.monotonic()
        r = run([gs, "import", src, "-o", db], timeout=30)
        expect("%s as a %s: refused in one line" % (table, kind), (r.returncode, line(r)),
               (2, "gapscope: %s: damaged or hostile Nsight Systems export: %s is a %s, not a"
                " plain table" % (src, table, kind)))
        expect("%s as a %s: at once" % (table, kind), time.monotonic() - t0 < 20, True)
        expect("%s as a %s: no output" % (table, kind), os.path.exists(db), False)
        expect("%s as a %s: nothing left" % (table, kind), leftovers(work), [])

    # the bound on one query step (GAPSCOPE_QUERY_LIMIT_MS, as for every
    # verb; 0 here: any step longer than the progress handler's period,
    # 100k SQLite instructions, is stopped): an export of 20000 kernels
    # copies them in one step of millions of instructions
    big = os.path.join(work, "big.sqlite")
    make_export(big, kernels=20000)
    r = run([gs, "import", big, "-o", db], env={"GAPSCOPE_QUERY_LIMIT_MS": "0"})
    expect("nsys: a step past the bound", (r.returncode, line(r)),
           (2, "gapscope: %s: a query ran too long (over 0 ms): the export may be hostile" % big))
    expect("nsys: a step past the bound: no output", os.path.exists(db), False)
    r = run([gs, "import", "-q", big, "-o", db], env={"GAPSCOPE_QUERY_LIMIT_MS": "60000"})
    expect("nsys: within the bound", (r.returncode, line(r)), (0, ""))
    if r.returncode == 0:
        expect("nsys: within the bound: kernels", rows(db, "SELECT count(*) FROM kernels"),
               [(20000,)])
        os.unlink(db)

    # Kineto: the derivations query the trace's rows on the same guarded
    # connection (20000 launches and kernels, each pair one correlation id)
    ev = []
    for i in range(20000):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": i * 2.0, "dur": 0.5, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                   "ts": i * 2.0 + 1, "dur": 0.5,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
    js = os.path.join(work, "big.json")
    with open(js, "w") as f:
        json.dump({"traceEvents": ev}, f)
    r = run([gs, "import", js, "-o", db], env={"GAPSCOPE_QUERY_LIMIT_MS": "0"})
    expect("kineto: a step past the bound", (r.returncode, line(r)),
           (2, "gapscope: %s: a query ran too long (over 0 ms): the trace may be hostile" % js))
    expect("kineto: a step past the bound: no output", os.path.exists(db), False)
    r = run([gs, "import", "-q", js, "-o", db], env={"GAPSCOPE_QUERY_LIMIT_MS": "60000"})
    expect("kineto: within the bound", (r.returncode, line(r)), (0, ""))
    expect("nothing left", leftovers(work), [])


def check_special_outputs(gs, mkdb, work):
    """Item 2: a descriptor or FIFO named by path (/dev/stdout, /dev/fd/N,
    bash's >(...)) is written in place, like -o -: it was refused with "No
    such file or directory" (the link behind /dev/stdout, pipe:[N], was
    taken for a path)."""
    db = os.path.join(work, "run.db")
    subprocess.run([mkdb, db], check=True)
    # the reference: the same output through -o -
    ref = run([gs, "export", db, "--format", "chrome", "-o", "-"])
    expect("export -o -", ref.returncode, 0)
    want = ref.stdout
    expect("export -o - is JSON", want.startswith(b'{"displayTimeUnit"'), True)
    for name in ("/dev/stdout", "/proc/self/fd/1"):
        r = run([gs, "export", db, "--format", "chrome", "-o", name])
        expect("export -o %s into a pipe" % name, (r.returncode, line(r), r.stdout == want),
               (0, "", True))
    # standard output a regular file: written in place, at its offset
    path = os.path.join(work, "out.json")
    with open(path, "wb") as f:
        f.write(b"head\n")
        f.flush()
        r = run([gs, "export", db, "--format", "chrome", "-o", "/dev/stdout"], stdout=f)
    expect("export -o /dev/stdout > file", (r.returncode, line(r)), (0, ""))
    expect("the file holds what followed its head", open(path, "rb").read() == b"head\n" + want,
           True)
    # /dev/fd/N: a pipe on descriptor 5
    rfd, wfd = os.pipe()
    if wfd != 5:
        os.dup2(wfd, 5)
        os.close(wfd)
    p = subprocess.Popen([gs, "export", db, "--format", "chrome", "-o", "/dev/fd/5"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(5,))
    os.close(5)
    got = b""
    with os.fdopen(rfd, "rb") as f:
        got = f.read()
    err = p.stderr.read()
    p.wait(timeout=60)
    expect("export -o /dev/fd/5", (p.returncode, err, got == want), (0, b"", True))
    # a descriptor that is not open: one line, exit 2
    r = run([gs, "export", db, "--format", "chrome", "-o", "/dev/fd/9"])
    expect("export -o /dev/fd/9 (not open)", (r.returncode, line(r)),
           (2, "gapscope: /dev/fd/9: cannot write: Bad file descriptor"))
    # bash's process substitution, the page gzip'ed by another process
    if shutil.which("bash") and shutil.which("gzip"):
        gz = os.path.join(work, "page.html.gz")
        r = run(["bash", "-c", '"$0" html "$1" -o >(gzip > "$2"); rc=$?; wait $!; exit $rc',
                 gs, db, gz])
        expect("html -o >(gzip > page.html.gz)", (r.returncode, line(r)), (0, ""))
        import gzip
        page = gzip.open(gz).read() if os.path.exists(gz) else b""
        expect("the page came through gzip", page.startswith(b"<!DOCTYPE html>"), True)
        expect("the page is whole", page.rstrip().endswith(b"</html>"), True)
    else:
        print("skipped process substitution: no bash or gzip")
    # a FIFO made by mkfifo: written in place, never unlinked
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    p = subprocess.Popen([gs, "export", db, "--format", "chrome", "-o", fifo],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with open(fifo, "rb") as f:
        got = f.read()
    p.wait(timeout=60)
    expect("export -o fifo", (p.returncode, got == want), (0, True))
    expect("the FIFO stays", stat.S_ISFIFO(os.lstat(fifo).st_mode), True)
    expect("nothing left", leftovers(work), [])


def tmpfs(path, size):
    """a tmpfs of size bytes at path (a full disk that is no RLIMIT), or
    None where this user may not mount one"""
    os.makedirs(path, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        return None
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d" % size, "tmpfs", path],
                       capture_output=True)
    return path if r.returncode == 0 else None


def unmount(path):
    subprocess.run(["umount", path], capture_output=True)


def big_trace(mkdb, db, n=200000):
    """render_mkdb's trace and n more kernels: export --format chrome sorts
    them by start (no index leads with start), past SQLite's 2 MB sorter
    memory, into temporary files"""
    subprocess.run([mkdb, db], check=True)
    con = sqlite3.connect(db)
    con.execute("INSERT INTO strings(id, value) VALUES (9001, 'many')")
    con.executemany("INSERT INTO kernels(start, end, device, stream, correlation_id, name_id,"
                    " graph_id, graph_node_id) VALUES (?, ?, 0, 7, 0, 9001, 0, 0)",
                    [(20000 + i * 10, 20005 + i * 10) for i in range(n)])
    con.commit()
    con.close()


def check_output_errors(gs, mkdb, work):
    """Item 3: a CSV export that cannot be written exits 1 with the reason,
    names the file as it would have been (not the temporary folder, gone by
    then) and leaves nothing: not the folders it made for the output. It was
    exit 2, "write error on <deleted temporary path>", an empty folder left.
    SQLite's temporary files full (TMPDIR): exit 1, said so - it blamed the
    trace ("cannot read trace: database or disk is full", exit 2)."""
    db = os.path.join(work, "run.db")
    subprocess.run([mkdb, db], check=True)
    # ulimit -f (SIGXFSZ ignored: write() fails with EFBIG), a new folder
    # two levels deep: kernels.csv is the first file past 300 bytes
    top = os.path.join(work, "new")
    out = os.path.join(top, "csv")
    r = run([gs, "export", db, "--format", "csv", "-o", out], fsize=300)
    expect("csv under ulimit -f", (r.returncode, line(r)),
           (1, "gapscope: %s: write error on kernels.csv: File too large" % out))
    expect("csv under ulimit -f: no folder left", os.path.exists(top), False)
    # an existing folder: kept, with its files, and nothing added
    old = os.path.join(work, "old")
    os.makedirs(old)
    with open(os.path.join(old, "kernels.csv"), "w") as f:
        f.write("old kernels\n")
    r = run([gs, "export", db, "--format", "csv", "-o", old], fsize=300)
    expect("csv into a folder under ulimit -f", (r.returncode, line(r)),
           (1, "gapscope: %s: write error on kernels.csv: File too large" % old))
    expect("the folder kept as it was", sorted(os.listdir(old)), ["kernels.csv"])
    expect("its file kept", open(os.path.join(old, "kernels.csv")).read(), "old kernels\n")
    # a full disk: a 64 KiB tmpfs (root only)
    disk = tmpfs(os.path.join(work, "disk"), 65536)
    if disk:
        try:
            with open(os.path.join(disk, "filler"), "wb") as f:
                try:
                    f.write(b"x" * 65536)
                except OSError:
                    pass
            out = os.path.join(disk, "a", "csv")
            r = run([gs, "export", db, "--format", "csv", "-o", out])
            expect("csv onto a full disk", (r.returncode, line(r)),
                   (1, "gapscope: %s: write error on meta.csv: No space left on device" % out))
            expect("csv onto a full disk: nothing left", os.listdir(disk), ["filler"])
        finally:
            unmount(disk)
    else:
        print("skipped the full tmpfs: not root or no mount")
    # SQLite's temporary files: export --format chrome sorts 200k kernels
    big = os.path.join(work, "big.db")
    big_trace(mkdb, big)
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp)
    r = run([gs, "export", big, "--format", "chrome", "--no-gaps", "-o", "/dev/null"],
            fsize=100000, env={"TMPDIR": tmp, "SQLITE_TMPDIR": ""})
    expect("chrome, SQLite's temporary files under ulimit -f", (r.returncode, line(r)),
           (1, "gapscope: cannot write SQLite's temporary files in %s (TMPDIR): File too large"
            " (ulimit -f); free space there or set TMPDIR to a folder with room" % tmp))
    # info's queries sort too: it blamed the trace ("damaged database: disk I/O
    # error", exit 2); every other verb that reads the trace passes here
    r = run([gs, "info", big], fsize=100000, env={"TMPDIR": tmp, "SQLITE_TMPDIR": ""})
    expect("info, SQLite's temporary files under ulimit -f", (r.returncode, line(r)),
           (1, "gapscope: cannot write SQLite's temporary files in %s (TMPDIR): File too large"
            " (ulimit -f); free space there or set TMPDIR to a folder with room" % tmp))
    for verb in (["report"], ["diff", big], ["graph"], ["whatif", "--fix", "sync_every_step"]):
        r = run([gs, verb[0], big] + verb[1:], fsize=100000,
                env={"TMPDIR": tmp, "SQLITE_TMPDIR": ""}, stdout=subprocess.DEVNULL)
        expect("%s under ulimit -f with TMPDIR" % verb[0], r.returncode, 0)
    full = tmpfs(os.path.join(work, "tmpfull"), 262144)
    if full:
        try:
            js = os.path.join(work, "x.json")
            r = run([gs, "export", big, "--format", "chrome", "-o", js], env={"TMPDIR": full})
            expect("chrome, TMPDIR full", (r.returncode, line(r)),
                   (1, "gapscope: cannot write SQLite's temporary files in %s (TMPDIR): No"
                    " space left on device; free space there or set TMPDIR to a folder with"
                    " room" % full))
            expect("chrome, TMPDIR full: no output", os.path.exists(js), False)
            r = run([gs, "export", big, "--format", "chrome", "-o", js], env={"TMPDIR": tmp})
            expect("chrome with room", (r.returncode, line(r)), (0, ""))
        finally:
            unmount(full)
    else:
        print("skipped the full TMPDIR: not root or no mount")
    expect("nothing left", leftovers(work), [])


def check_permissions(gs, mkdb, work):
    """Item 4: a file the user could not have written in place is never
    replaced: a root-owned 0444 page in a folder of the user's own was
    replaced by the rename, and became the user's (exit 0)."""
    if os.geteuid() != 0:
        print("skipped: needs root, to run gapscope as another user (nobody)")
        return
    uid = gid = 65534
    db = os.path.join(work, "run.db")
    subprocess.run([mkdb, db], check=True)
    os.chmod(work, 0o755)
    theirs = os.path.join(work, "theirs")
    os.makedirs(theirs)
    os.chown(theirs, uid, gid)
    # the user may run gapscope and read the trace: every folder above is
    # searchable (0755 from / down), else say so and skip
    probe = run(["cat", db], user=(uid, gid), stdout=subprocess.DEVNULL)
    if probe.returncode != 0:
        print("skipped: nobody cannot read %s (%s)" % (db, line(probe)))
        return
    cases = [(["html", db, "-o"], "x.html", b"<!DOCTYPE html>"),
             (["export", db, "--format", "chrome", "-o"], "x.json", b'{"displayTimeUnit"')]
    for verb, name, head in cases:
        page = os.path.join(theirs, name)
        with open(page, "w") as f:
            f.write("root's\n")
        os.chmod(page, 0o444)  # root's, read-only
        r = run([gs] + verb + [page], user=(uid, gid))
        expect("%s over root's 0444 file" % verb[0], (r.returncode, line(r)),
               (2, "gapscope: %s: cannot write: Permission denied" % page))
        st = os.stat(page)
        expect("%s: the file kept, root's" % verb[0],
               (open(page).read() == "root's\n", st.st_uid, stat.S_IMODE(st.st_mode)),
               (True, 0, 0o444))
        expect("%s: nothing left" % verb[0], leftovers(theirs), [])
        # a root-owned file they may write (0666): they could have written
        # it in place, so it is replaced, as before
        os.chmod(page, 0o666)
        r = run([gs] + verb + [page], user=(uid, gid))
        expect("%s over root's 0666 file" % verb[0], (r.returncode, line(r)), (0, ""))
        expect("%s: written" % verb[0], open(page, "rb").read(len(head)), head)
        os.unlink(page)
    # import: a trace database is replaced by the same rule
    js = os.path.join(work, "t.json")
    with open(js, "w") as f:
        json.dump({"traceEvents": []}, f)
    os.chmod(js, 0o644)
    trace = os.path.join(theirs, "t.db")
    shutil.copy(db, trace)
    os.chmod(trace, 0o444)
    before = open(trace, "rb").read()
    r = run([gs, "import", "-q", js, "-o", trace], user=(uid, gid))
    expect("import over root's 0444 trace", (r.returncode, line(r)),
           (2, "gapscope: %s: cannot write: Permission denied" % trace))
    expect("import: the trace kept", (open(trace, "rb").read() == before, os.stat(trace).st_uid),
           (True, 0))
    expect("import: nothing left", leftovers(theirs), [])


def check_long_names(gs, mkdb, graph_mkdb, work):
    """Item 5: an -o name over 255 bytes is refused before any work, exit 2
    (html and export made the whole output, then the rename failed: exit 1)."""
    db = os.path.join(work, "run.db")
    subprocess.run([mkdb, db], check=True)
    gdb = os.path.join(work, "graph.db")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run([graph_mkdb, gdb,
                    os.path.join(here, "graph", "basic.sql")], check=True)
    js = os.path.join(work, "t.json")
    with open(js, "w") as f:
        json.dump({"traceEvents": []}, f)
    cases = [(["html", db, "-o"], ".html"), (["export", db, "-f", "chrome", "-o"], ".json"),
             (["export", db, "-f", "csv", "-o"], "csv"), (["graph", gdb, "--id", "1", "-o"], ".svg"),
             (["import", js, "-o"], ".db")]
    for verb, suffix in cases:
        out = os.path.join(work, "p" * (256 - len(suffix)) + suffix)  # 256 bytes
        r = run([gs] + verb + [out])
        expect("%s -o <256-byte name>" % verb[0], (r.returncode, line(r)),
               (2, "gapscope: %s: cannot write: File name too long (a name of 256 bytes; at"
                " most 255)" % out))
    # a folder's name too long, the file's short
    out = os.path.join(work, "d" * 300, "x.html")
    r = run([gs, "html", db, "-o", out])
    expect("html -o <300-byte folder>/x.html", (r.returncode, line(r)),
           (2, "gapscope: %s: cannot write: File name too long (a name of 300 bytes; at"
            " most 255)" % out))
    # 255 bytes is a name: html, and import (whose temporary name held the
    # whole name and failed below 255 before)
    ok = os.path.join(work, "q" * 250)
    for verb, suffix in ((["html", db, "-o"], ".html"), (["import", "-q", js, "-o"], ".db")):
        r = run([gs] + verb + [ok + suffix])
        expect("%s -o <255-byte name>" % verb[0], (r.returncode, line(r)), (0, ""))
        expect("%s: written" % verb[0], os.path.exists(ok + suffix), True)
    # record: the trace's -wal and -shm are made beside it, 4 bytes more
    out = os.path.join(work, "r" * 249 + ".db")
    r = run([gs, "record", "-o", out, "--", "true"])
    expect("record -o <252-byte name>", (r.returncode, line(r)),
           (2, "gapscope: %s: cannot write: File name too long (a name of 252 bytes; at most"
            " 251, leaving room for what is written beside it)" % out))
    expect("nothing left", [n for n in os.listdir(work) if n.startswith((".", "p"))], [])


def kill_when(args, folder, prefix, sig, what, timeout=60):
    """start args, wait until the temporary file or folder (a name in
    folder starting with prefix) appears, send sig; returns the exit
    status"""
    def pre():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for s in (signal.SIGQUIT, signal.SIGXFSZ, signal.SIGPIPE, signal.SIGXCPU):
            signal.signal(s, signal.SIG_DFL)
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=pre)
    found = False
    t0 = time.monotonic()
    while p.poll() is None and time.monotonic() - t0 < timeout:
        try:
            found = any(n.startswith(prefix) for n in os.listdir(folder))
        except FileNotFoundError:
            pass
        if found:
            p.send_signal(sig)
            break
        time.sleep(0.002)
    try:
        p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
    expect("%s: the temporary file was seen" % what, found, True)
    return p.returncode


def check_signals(gs, mkdb, work):
    """Item 6: SIGQUIT, SIGXFSZ and every other fatal signal that can be
    caught remove the temporary file or folder, as SIGINT, SIGTERM and
    SIGHUP did; only those three were caught, and .name.gapscope-* files
    and partial CSV folders were left. A write past ulimit -f with SIGXFSZ
    at its default (a shell's): the write fails, exit 1 with the reason."""
    big = os.path.join(work, "big.db")
    big_trace(mkdb, big, n=300000)
    for sig in (signal.SIGQUIT, signal.SIGXFSZ, signal.SIGUSR1):
        here = os.path.join(work, sig.name)
        os.makedirs(here)
        out = os.path.join(here, "csv", "out")
        rc = kill_when([gs, "export", big, "--format", "csv", "-o", out], out, ".gapscope-",
                       sig, "csv, %s" % sig.name)
        expect("csv, %s: ended by it" % sig.name, rc, -sig)
        expect("csv, %s: no folder left" % sig.name, os.listdir(here), [])
        page = os.path.join(here, "page.json")
        with open(page, "w") as f:
            f.write("old\n")
        rc = kill_when([gs, "export", big, "--format", "chrome", "-o", page], here,
                       ".page.json.gapscope-", sig, "chrome, %s" % sig.name)
        expect("chrome, %s: ended by it" % sig.name, rc, -sig)
        expect("chrome, %s: the old file kept" % sig.name, open(page).read(), "old\n")
        expect("chrome, %s: nothing left" % sig.name, os.listdir(here), ["page.json"])
    # import: the temporary database
    ev = [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": i * 2.0,
           "dur": 1.0, "args": {"device": 0, "stream": 7, "correlation": i + 1}}
          for i in range(300000)]
    js = os.path.join(work, "big.json")
    with open(js, "w") as f:
        json.dump({"traceEvents": ev}, f)
    db = os.path.join(work, "out.db")
    for sig in (signal.SIGQUIT, signal.SIGXCPU):
        rc = kill_when([gs, "import", js, "-o", db], work, ".out.db.gapscope-", sig,
                       "import, %s" % sig.name)
        expect("import, %s: ended by it" % sig.name, rc, -sig)
        expect("import, %s: nothing left" % sig.name, (leftovers(work), os.path.exists(db)),
               ([], False))
    # ulimit -f, SIGXFSZ at its default action: the write fails (EFBIG)
    page = os.path.join(work, "page.html")
    with open(page, "w") as f:
        f.write("old\n")
    db = os.path.join(work, "run.db")
    subprocess.run([mkdb, db], check=True)
    r = run([gs, "html", db, "-o", page], fsize=4096, xfsz=signal.SIG_DFL)
    expect("html past ulimit -f, SIGXFSZ at its default", (r.returncode, line(r)),
           (1, "gapscope: %s: write error: File too large" % page))
    expect("the old page kept", open(page).read(), "old\n")
    out = os.path.join(work, "new", "csv")
    r = run([gs, "export", db, "--format", "csv", "-o", out], fsize=300, xfsz=signal.SIG_DFL)
    expect("csv past ulimit -f, SIGXFSZ at its default", (r.returncode, line(r)),
           (1, "gapscope: %s: write error on kernels.csv: File too large" % out))
    expect("csv past ulimit -f: no folder left", os.path.exists(os.path.dirname(out)), False)
    expect("nothing left", leftovers(work), [])


def check_stream_ids(gs, mkdb, work):
    """Item 7: one rule for every verb on the GPU ops' places - a stream id
    past 2^32-1 (or a device past 32767) is damage, the row named, exit 2.
    info accepted such a stream and counted it in its GPU window; graph
    (list) and export --format csv accepted the trace too."""
    out = os.path.join(work, "out")

    def verbs(db):
        return [["report", db], ["report", "--json", db], ["info", db], ["info", "--json", db],
                ["html", db, "-o", out + ".html"], ["diff", db, db], ["graph", db],
                ["graph", db, "--id", "1"], ["export", db, "-f", "chrome", "-o", out + ".json"],
                ["export", db, "-f", "csv", "-o", out + "-csv"]]
    cases = [("UPDATE kernels SET stream = 4294967296 WHERE id = (SELECT min(id) FROM kernels)",
              "kernels", "stream 4294967296, out of range (0 to 4294967295)"),
             ("UPDATE memcpys SET device = 32768 WHERE id = (SELECT min(id) FROM memcpys)",
              "memcpys", "device 32768, out of range (0 to 32767)"),
             ("UPDATE memsets SET stream = -1 WHERE id = (SELECT min(id) FROM memsets)",
              "memsets", "stream -1, out of range (0 to 4294967295)")]
    for k, (sql, table, what) in enumerate(cases):
        db = os.path.join(work, "bad%d.db" % k)
        subprocess.run([mkdb, db], check=True)
        con = sqlite3.connect(db)
        con.execute(sql)
        row = con.execute("SELECT min(id) FROM %s" % table).fetchone()[0]
        con.commit()
        con.close()
        want = "gapscope: %s: damaged trace: %s row %d has %s" % (db, table, row, what)
        for args in verbs(db):
            r = run([gs] + args)
            expect(" ".join("DB" if a == db else a for a in args) + " on " + what,
                   (r.returncode, line(r).split("\n")[0]), (2, want))
        expect("no output written (%s)" % table,
               [n for n in os.listdir(work) if n.startswith("out")], [])
    # the largest ids a trace may hold are read by every verb
    db = os.path.join(work, "edge.db")
    subprocess.run([mkdb, db], check=True)
    con = sqlite3.connect(db)
    con.execute("UPDATE kernels SET stream = 4294967295 WHERE id = (SELECT min(id) FROM kernels)")
    con.commit()
    con.close()
    for args in verbs(db):
        if args[:3] == ["graph", db, "--id"]:
            continue  # no graph in this trace
        r = run([gs] + args)
        expect("%s with stream 2^32-1" % " ".join(args[:1]), r.returncode, 0)


def ops_trace(mkdb, db, ops):
    """render_mkdb's trace with its GPU ops replaced by ops: (device, start,
    end) kernels of one name on stream 7"""
    subprocess.run([mkdb, db], check=True)
    con = sqlite3.connect(db)
    nid = con.execute("SELECT name_id FROM kernels ORDER BY id LIMIT 1").fetchone()[0]
    for t in ("kernels", "memcpys", "memsets"):
        con.execute("DELETE FROM " + t)
    con.executemany("INSERT INTO kernels(start, end, device, stream, correlation_id, name_id,"
                    " graph_id, graph_node_id) VALUES (?, ?, ?, 7, 0, ?, 0, 0)",
                    [(s, e, d, nid) for d, s, e in ops])
    con.commit()
    con.close()


def check_sums(gs, mkdb, work):
    """Item 8: sixteen kernels of 2^62 ns each made the kernel total print
    the int64 maximum (9223372036.855 s), exit 0. A trace whose durations of
    one kind, or whose devices' windows, add up past 2^62 ns is refused, the
    reason said, by every verb; up to 2^62 every total is exact."""
    T = 1 << 62
    out = os.path.join(work, "out")
    ops_db = os.path.join(work, "ops.db")
    ops_trace(mkdb, ops_db, [(0, 0, T)] * 16)
    win_db = os.path.join(work, "win.db")
    ops_trace(mkdb, win_db, [(d, s, s + 10) for d in range(4) for s in (0, T - 10)])
    ops_line = ("damaged trace: the GPU operations (kernels, memcpys, memsets) last more than"
                " 2^62 ns (146 years) in all, what no recording holds; their totals would not"
                " fit")
    win_line = ("damaged trace: the devices' GPU windows (first to last op, per device) last"
                " more than 2^62 ns (146 years) in all, what no recording holds; their totals"
                " would not fit")
    for db, why, verbs in ((ops_db, ops_line, ["report", "report --json", "html", "diff", "info",
                                               "graph", "export-chrome", "export-csv"]),
                           (win_db, win_line, ["report", "report --json", "html", "diff",
                                               "export-chrome"])):
        for v in verbs:
            args = {"report": ["report", db], "report --json": ["report", "--json", db],
                    "html": ["html", db, "-o", out + ".html"], "diff": ["diff", db, db],
                    "info": ["info", db], "graph": ["graph", db],
                    "export-chrome": ["export", db, "-f", "chrome", "-o", out + ".json"],
                    "export-csv": ["export", db, "-f", "csv", "-o", out + "-csv"]}[v]
            r = run([gs] + args)
            expect("%s on %s" % (v, os.path.basename(db)), (r.returncode, line(r).split("\n")[0]),
                   (2, "gapscope: %s: %s" % (db, why)))
            expect("%s on %s: nothing printed" % (v, os.path.basename(db)), r.stdout, b"")
        expect("no output", [n for n in os.listdir(work) if n.startswith("out")], [])
    # four kernels of 2^60 ns: 2^62 in all, read, the total exact
    # (2^62 ns = 4611686018.427387904 s; each 1152921504.606846976 s)
    edge = os.path.join(work, "edge.db")
    ops_trace(mkdb, edge, [(0, 0, T // 4)] * 4)
    r = run([gs, "report", "--json", edge])
    expect("2^62 in all: report", (r.returncode, line(r)), (0, ""))
    if r.returncode == 0:
        k = json.loads(r.stdout)
        top = k["kernels"]["top"][0]
        expect("2^62 in all: the kernel total", (top["count"], top["total_ns"], top["p50_ns"]),
               (4, T, T // 4))
    r = run([gs, "report", edge])
    expect("2^62 in all: text total", b"4611686018.427 s  100.0%" in r.stdout, True)


def check_kineto_no_dur(gs, work):
    """Item 9: a Kineto complete event ("ph": "X") without dur was read as
    zero-length (GPU busy 0.0%, exit 0); it is counted as unmapped, no_dur,
    as one without ts is. Kernels a [10, 12] us and c [20, 23] us, b at 15 us
    without dur: window 13000 ns, busy 5000 ns, 2 kernels, no_dur 1."""
    ev = [{"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 10, "dur": 2,
           "args": {"device": 0, "stream": 7, "correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 15,
           "args": {"device": 0, "stream": 7, "correlation": 2}},
          {"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 20, "dur": 3,
           "args": {"device": 0, "stream": 7, "correlation": 3}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
           "ts": 14, "args": {"correlation": 2}}]
    js = os.path.join(work, "nodur.json")
    with open(js, "w") as f:
        json.dump({"traceEvents": ev}, f)
    db = os.path.join(work, "nodur.db")
    r = run([gs, "import", js, "-o", db])
    expect("import exit", (r.returncode, line(r)), (0, ""))
    expect("import summary", r.stdout.decode().splitlines(),
           ["imported %s -> %s: 2 kernels, 0 memcpys, 0 memsets, 0 API calls, 0 syncs"
            " (0 implicit), 0 ranges, 0 devices" % (js, db),
            "not mapped (events per category): no_dur 2"])
    expect("meta", rows(db, "SELECT value FROM meta WHERE key = 'import.unmapped.no_dur'"),
           [("2",)])
    expect("kernels", rows(db, "SELECT start, end FROM kernels ORDER BY start"),
           [(10000, 12000), (20000, 23000)])
    r = run([gs, "report", "--json", db])
    expect("report exit", r.returncode, 0)
    if r.returncode == 0:
        d = json.loads(r.stdout)["devices"][0]
        expect("window and busy", (d["window_ns"], d["busy_ns"], d["ops"]), (13000, 5000, 2))


def check_record_activities(gs, work):
    """Item 10: record --activities takes blanks around the words, as the
    collector's GAPSCOPE_ACTIVITIES does (" kernel , memcpy " was refused);
    a word it does not know is named without them."""
    out = os.path.join(work, "r.db")
    r = run([gs, "record", "--activities", " kernel , memcpy ", "-o", out, "--", "true"])
    expect("--activities ' kernel , memcpy ': not refused for its list",
           "--activities" in line(r), False)
    r = run([gs, "record", "--activities", " kernel ,\tgpu ", "-o", out, "--", "true"])
    expect("--activities ' kernel ,<tab>gpu ': the unknown word, trimmed",
           (r.returncode, line(r)),
           (2, "gapscope: record: --activities: unknown activity 'gpu' (known: kernel, memcpy,"
            " memset, runtime, driver, sync, event, stream, nvtx, graph, overhead, all)"))
    r = run([gs, "record", "--activities", "kernel, ,memcpy", "-o", out, "--", "true"])
    expect("--activities with an empty word", (r.returncode, line(r)),
           (2, "gapscope: record: --activities: unknown activity '' (known: kernel, memcpy,"
            " memset, runtime, driver, sync, event, stream, nvtx, graph, overhead, all)"))


CHECKS = {
    "record_activities": lambda gs, mk, work, extra: check_record_activities(gs, work),
    "kineto_no_dur": lambda gs, mk, work, extra: check_kineto_no_dur(gs, work),
    "sums": lambda gs, mk, work, extra: check_sums(gs, mk, work),
    "stream_ids": lambda gs, mk, work, extra: check_stream_ids(gs, mk, work),
    "signals": lambda gs, mk, work, extra: check_signals(gs, mk, work),
    "long_names": lambda gs, mk, work, extra: check_long_names(gs, mk, extra[0], work),
    "permissions": lambda gs, mk, work, extra: check_permissions(gs, mk, work),
    "output_errors": lambda gs, mk, work, extra: check_output_errors(gs, mk, work),
    "special_outputs": lambda gs, mk, work, extra: check_special_outputs(gs, mk, work),
    "import_guard": lambda gs, mk, work, extra: check_import_guard(gs, work),
}


def main():
    check, gs, mkdb, work = sys.argv[1:5]
    extra = sys.argv[5:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CHECKS[check](gs, mkdb, work, extra)
    if FAILS:
        print("%d failure(s)" % len(FAILS), file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
