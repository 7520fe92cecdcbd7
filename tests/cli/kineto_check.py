#!/usr/bin/env python3
"""CLI checks of `gapscope import` on the Kineto fixtures in tests/cli/kineto/.

usage: kineto_check.py CHECK GAPSCOPE FIXTURES WORKDIR

Every expected value is worked out by hand from the fixture (Kineto writes
ts/dur in microseconds with three decimals: ns = the digits without the
point). basic.json (device 0, stream 7, host thread 4242):
  K1 ampere_sgemm_64x64_nn ts 1020.125 dur 30.004 -> [1020125, 1050129],
     correlation 101 = the cudaLaunchKernel at 1010.250 (start 1010250)
  K2 gelu ts 1051.000 dur 5.000 -> [1051000, 1056000], launched at 1016000
  memcpy "HtoD (Pageable -> Device)" [1070000, 1080000], its call
     cudaMemcpyAsync [1060000, 1085000] -> copy_kind 1, src 1 (pageable),
     dst 3, is_async 1, and one implicit sync (kind 17) over the call
  memset "(Device)" [1089000, 1090000], cudaMemsetAsync [1086000, 1088000]
  cuda_sync "Stream Sync" [1090500, 1097500], correlation 105 ->
     cudaStreamSynchronize on thread 4242
  user_annotation "step" [1000000, 1100000] -> one NVTX range
  Window [1020125, 1090000] = 69875 ns; busy 30004+5000+10000+1000 = 46004;
  holes: [1050129,1051000) 871 before K2, launched at 1016000 (before the
  hole): launch latency 871. [1056000,1070000) before the memcpy, whose
  call began at 1060000: host code 4000 (thread 4242 in no call), then
  sync wait 10000: the memcpy's own call, a pageable copy (the implicit
  sync), was staging its data until the copy began. [1080000,1089000)
  before the memset, call at 1086000: the thread was in the pageable
  cudaMemcpyAsync until 1085000: sync wait 5000, host code 1000, launch
  latency 3000.
  By cause: sync wait 15000, host code 5000, launch latency 3871.
  Host spans: the cpu_op and the python_function. Not mapped:
  gpu_user_annotation 1, and the
  "Record Window End" instant without a category (no_category 1).
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys

CHECK, GAPSCOPE, FIX, WORK = sys.argv[1:5]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def gs(*args):
    return subprocess.run([GAPSCOPE, *args], capture_output=True, text=True, errors="replace",
                          timeout=120)


def imp(src, name="out.db"):
    out = os.path.join(WORK, name)
    return gs("import", src, "-o", out), out


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def check_basic_db(db):
    expect("kernels", rows(db, "SELECT start, end, device, stream, context, correlation_id,"
                           " grid_x, grid_y, grid_z, block_x, block_y, block_z, registers,"
                           " static_shared_bytes FROM kernels ORDER BY start"),
           [(1020125, 1050129, 0, 7, 1, 101, 16, 2, 1, 256, 1, 1, 128, 16384),
            (1051000, 1056000, 0, 7, 1, 102, 128, 1, 1, 128, 1, 1, 16, 0)])
    expect("kernel 1 name", rows(db, "SELECT s.value FROM kernels k JOIN strings s ON"
                                 " s.id = k.name_id WHERE k.correlation_id = 101"),
           [("ampere_sgemm_64x64_nn",)])
    # the correlation link: kernel -> its launch call
    expect("launch of K1", rows(db, "SELECT a.api, s.value, a.start, a.end, a.tid, a.cbid"
                                " FROM kernels k JOIN api_calls a ON a.correlation_id ="
                                " k.correlation_id JOIN strings s ON s.id = a.name_id"
                                " WHERE k.start = 1020125"),
           [(1, "cudaLaunchKernel", 1010250, 1014750, 4242, 211)])
    expect("memcpy", rows(db, "SELECT start, end, bytes, copy_kind, src_kind, dst_kind,"
                          " is_async, correlation_id FROM memcpys"),
           [(1070000, 1080000, 4096, 1, 1, 3, 1, 103)])
    expect("memset", rows(db, "SELECT start, end, bytes, mem_kind, is_async FROM memsets"),
           [(1089000, 1090000, 512, 3, 1)])
    expect("syncs", rows(db, "SELECT start, end, kind, implicit, stream, tid, s.value FROM"
                         " syncs y JOIN strings s ON s.id = y.api_name_id ORDER BY implicit"),
           [(1090500, 1097500, 3, 0, 7, 4242, "cudaStreamSynchronize"),
            (1060000, 1085000, 17, 1, 7, 4242, "cudaMemcpyAsync")])
    expect("nvtx", rows(db, "SELECT n.start, n.end, n.kind, s.value, n.tid FROM nvtx n"
                        " JOIN strings s ON s.id = n.text_id"),
           [(1000000, 1100000, 0, "step", 4242)])
    expect("threads", rows(db, "SELECT tid, pid, name FROM threads"),
           [(4242, 4242, "thread 4242 (python)")])
    expect("processes", rows(db, "SELECT pid, command_line FROM processes"),
           [(4242, "python")])
    meta = dict(rows(db, "SELECT key, value FROM meta"))
    for k, v in {"source": "kineto", "finalized": "1", "start_ns": "1000000",
                 "stop_ns": "1100000", "import.events": "20", "import.flow_events": "2",
                 "import.host_ops": "2",
                 "import.unmapped.gpu_user_annotation": "1",
                 "import.unmapped.no_category": "1",
                 "import.base_time_ns": "1765000000000000000",
                 "realtime_offset_ns": "1765000000000000000",
                 "schema_version": "2"}.items():
        expect(f"meta {k}", meta.get(k), v)
    expect("import.unmapped.cpu_op gone", "import.unmapped.cpu_op" in meta, False)
    # the cpu_op, the Python function and the record_function range: host
    # spans of thread 4242 (by start, then end, latest first)
    expect("host ranges", rows(db, "SELECT h.start, h.end, s.value, h.pid, h.tid FROM"
                               " host_ranges h JOIN strings s ON s.id = h.name_id"
                               " ORDER BY h.start DESC, h.end DESC"),
           [(1001000, 1021000, "aten::mm", 4242, 4242),
            (1000000, 1100000, "step", 4242, 4242),
            (1000000, 1099000, "train.py(12): step", 4242, 4242)])

    r = gs("info", "--json", db)
    expect("info rc", r.returncode, 0)
    info = json.loads(r.stdout)
    expect("info devices", [(d["id"], d["name"], d["cc_major"], d["sm_count"])
                            for d in info["devices"]], [(0, "NVIDIA H200", 9, 132)])
    expect("info kernels", info["rows"]["kernels"], 2)
    expect("info api_calls", info["rows"]["api_calls"], 5)
    expect("info implicit syncs", info["implicit_syncs"], 1)
    expect("info window", [(w["start_ns"], w["end_ns"], w["ops"]) for w in info["gpu_windows"]],
           [(1020125, 1090000, 4)])
    expect("info finalized", info["finalized"], True)

    r = gs("report", "--json", db)
    expect("report rc", r.returncode, 0)
    dev = json.loads(r.stdout)["devices"][0]
    expect("window", dev["window_ns"], 69875)
    expect("busy", dev["busy_ns"], 46004)
    expect("idle by cause", dev["idle_by_cause_ns"],
           {"sync_wait": 15000, "cuda_api": 0, "host_code": 5000, "launch_latency": 3871,
            "graph_internal": 0, "dependency": 0, "other": 0})
    r = gs("report", "--json", "--range", "step", db)
    expect("report --range step rc", r.returncode, 0)


if CHECK == "basic":
    r, db = imp(os.path.join(FIX, "basic.json"))
    expect("rc", r.returncode, 0)
    expect("summary", r.stdout.splitlines()[:1],
           [f"imported {FIX}/basic.json -> {db}: 2 kernels, 1 memcpys, 1 memsets, 5 API calls,"
            " 2 syncs (1 implicit), 1 ranges, 1 devices"])
    expect("not mapped line", r.stdout.splitlines()[1:3],
           ["not mapped (events per category): gpu_user_annotation 1, no_category 1",
            "2 host spans (operators, Python functions): the report names host code by them"])
    if r.returncode == 0:
        check_basic_db(db)

elif CHECK == "gzip":
    gz = os.path.join(WORK, "basic.json.gz")
    with open(os.path.join(FIX, "basic.json"), "rb") as f:
        data = f.read()
    import gzip
    with gzip.open(gz, "wb") as f:
        f.write(data)
    r, db = imp(gz)
    expect("rc", (r.returncode, r.stderr), (0, ""))
    if r.returncode == 0:
        check_basic_db(db)
    # a .gz cut short: one line, exit 2
    cut = os.path.join(WORK, "cut.json.gz")
    with open(gz, "rb") as f:
        blob = f.read()
    with open(cut, "wb") as f:
        f.write(blob[: len(blob) // 2])
    r, _ = imp(cut, "cut.db")
    expect("cut gz rc", r.returncode, 2)
    expect("cut gz one line", len(r.stderr.splitlines()), 1)
    expect("cut gz names the file", r.stderr.startswith(f"gapscope: {cut}: "), True)

elif CHECK == "quirks":
    # quirks.json: what real traces hold and must not stop an import
    r, db = imp(os.path.join(FIX, "quirks.json"))
    expect("rc", (r.returncode, r.stderr), (0, ""))
    # a cudaStreamWaitEvent call without any stream-wait (cuda_sync) record,
    # and the three ops of the graph launch without a graph id: said once
    expect("graph ops line", "3 ops of graph launches had no graph id" in r.stdout, True)
    expect("unrecorded waits note", "note: 1 cudaStreamWaitEvent calls but no stream-wait"
           " records" in r.stdout, True)
    if r.returncode == 0:
        # correlation 2^64-1 on both sides: kept as the same 64 bits (-1)
        expect("big correlation joins", rows(db, "SELECT a.api, s.value FROM kernels k JOIN"
                                             " api_calls a USING (correlation_id) JOIN strings s"
                                             " ON s.id = a.name_id WHERE k.start = 8000"),
               [(2, "cuLaunchKernel")])
        # dur 1.2345 us: the fourth decimal rounds, 1235 ns; bad bytes -> U+FFFD
        expect("kernels", rows(db, "SELECT k.start, k.end, k.device, k.stream, s.value,"
                               " k.graph_id, k.graph_node_id, k.grid_x, k.grid_y, k.block_x,"
                               " k.block_y FROM kernels k JOIN strings s ON s.id = k.name_id"
                               " ORDER BY k.start"),
               [(8000, 9235, 1, 13, "bad\ufffd\ufffdname", 5, 77, 2, None, 32, 4),
                (30000, 30500, 1, 13, "caf\u00e9_kernel", 0, 0, None, None, None, None),
                (65000, 66000, 1, 13, "node_a", 20, 0, None, None, None, None),
                (67500, 68500, 1, 13, "node_b", 20, 0, None, None, None, None)])
        # a graph launch's ops without "graph id" (Kineto before PyTorch
        # 2.1): the launch's correlation id 20 stands in for it, memset too
        expect("graph memset", rows(db, "SELECT start, graph_id FROM memsets"), [(66500, 20)])
        expect("B/E range", rows(db, "SELECT start, end, kind, tid FROM nvtx"),
               [(10000, 25500, 0, 78)])
        # a synchronous device-to-device copy blocks no host: no implicit sync
        expect("DtoD copy", rows(db, "SELECT copy_kind, src_kind, dst_kind, is_async FROM"
                                 " memcpys"), [(8, 3, 3, 0)])
        # context sync: CUPTI's invalid stream 0xffffffff stored as NULL
        expect("syncs", rows(db, "SELECT kind, implicit, stream, device, tid FROM syncs"),
               [(4, 0, None, 1, 78)])
        # no baseTimeNanoseconds and times of a few us: no Unix times, no
        # realtime offset (the traces of a job are not aligned on it)
        expect("no realtime offset", rows(db, "SELECT value FROM meta WHERE"
                                          " key = 'realtime_offset_ns'"), [])
        meta = dict(rows(db, "SELECT key, value FROM meta WHERE key LIKE 'import.%'"))
        for k, v in {"import.unmapped.no_ts": "1",
                     "import.unmapped.kernel_without_device_or_stream": "1",
                     "import.unmapped.unmatched_E": "1", "import.unmapped.memory": "1",
                     "import.unmapped.not_an_object": "1", "import.unmapped.overhead": "1",
                     "import.repaired_strings": "1", "import.events": "20",
                     "import.graph_ops_from_launch": "3",
                     "import.stream_waits_unrecorded": "1"}.items():
            expect(f"meta {k}", meta.get(k), v)
        r = gs("report", db)
        expect("report rc", r.returncode, 0)
        # info shows what import said of the trace (meta import.*)
        r = gs("info", "--json", db)
        imported = json.loads(r.stdout).get("import", {}) if r.returncode == 0 else {}
        expect("info import", (imported.get("graph_ops_from_launch"),
                               imported.get("stream_waits_unrecorded"),
                               imported.get("unmapped.overhead")), ("3", "1", "1"))
        r = gs("info", db)
        expect("info import text", "\nimport\n  event_records_from_waits 0\n"
               "  events                   20\n" in r.stdout, True)

elif CHECK == "hostile":
    basic = open(os.path.join(FIX, "basic.json"), "rb").read()
    ev = (b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,'
          b' "ts": %s, "dur": 1.0, "args": {"device": 0, "stream": 7, "correlation": %s}}]}')
    cases = {
        # name: (bytes, a piece the one line must hold)
        "truncated": (basic[: len(basic) // 2], "truncated JSON"),
        "not_json": (b"hello, world\n", "not valid JSON"),
        "binary": (bytes(range(256)), "not valid JSON"),
        "bad_utf8_outside_strings": (b'{"traceEvents": [\xff]}', "not valid JSON"),
        "empty": (b"", "the file is empty"),
        "huge_ts": (ev % (b"1e400", b"1"), "ts 1e400 is out of range"),
        "huge_ts_digits": (ev % (b"9" * 400, b"1"), "is out of range"),
        "ts_past_2_62": (ev % (b"4611686018427388", b"1"), "ts 4611686018427388 is out of range"),
        "negative_ts": (ev % (b"-5.0", b"1"), "ts -5.0 is out of range"),
        "huge_id": (ev % (b"1.0", b"123456789012345678901234567890"),
                    "correlation 123456789012345678901234567890 is out of range"),
        "ts_string": (ev % (b'"12.5"', b"1"), "traceEvents[0]: ts is a string"),
        "ts_object": (ev % (b"{}", b"1"), "traceEvents[0]: ts is an object"),
        "correlation_string": (ev % (b"1.0", b'"x"'), "correlation is a string"),
        "events_object": (b'{"traceEvents": {}}', "traceEvents is an object, not an array"),
        "events_number": (b'{"traceEvents": 3}', "traceEvents is a number, not an array"),
        "top_number": (b"42", "the JSON is a number, not an object"),
        "no_events": (b'{"schemaVersion": 1}', "no traceEvents array"),
        "trailing": (b'{"traceEvents": []} {}', "not valid JSON"),
        # PyTorch on ROCm: HIP calls, their stream handle as a string
        "rocm": (b'{"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name":'
                 b' "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 1.0, "dur": 1.0,'
                 b' "args": {"stream": "0x0", "correlation": 117}}]}',
                 "traceEvents[0]: a ROCm (HIP) trace (hipMemcpyWithStream): gapscope reads"
                 " traces of CUDA programs only"),
        "rocm_numbers": (b'{"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name":'
                         b' "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 1.0, "dur": 1.0,'
                         b' "args": {"correlation": 118}}]}', "a ROCm (HIP) trace"),
    }
    for name, (data, piece) in cases.items():
        src = os.path.join(WORK, name + ".json")
        with open(src, "wb") as f:
            f.write(data)
        r, db = imp(src, name + ".db")
        expect(f"{name} rc", r.returncode, 2)
        lines = r.stderr.splitlines()
        expect(f"{name} one line", len(lines), 1)
        if lines:
            expect(f"{name} names the file", lines[0].startswith(f"gapscope: {src}: "), True)
            if piece not in lines[0]:
                failures.append(f"{name}: {lines[0]!r} does not say {piece!r}")
        expect(f"{name} no output", os.path.exists(db), False)
    # missing file, a directory, a FIFO: one line, exit 2, nothing waited on
    fifo = os.path.join(WORK, "fifo.json")
    os.mkfifo(fifo)
    for name, src, piece in [("missing", os.path.join(WORK, "nope.json"), "cannot open"),
                             ("directory", WORK, "is a directory"),
                             ("fifo", fifo, "is a FIFO")]:
        r, db = imp(src, name + ".db")
        expect(f"{name} rc", r.returncode, 2)
        expect(f"{name} one line", len(r.stderr.splitlines()), 1)
        if piece not in r.stderr:
            failures.append(f"{name}: {r.stderr!r} does not say {piece!r}")
    # deep nesting is valid JSON: no crash, the non-object event is counted
    src = os.path.join(WORK, "deep.json")
    with open(src, "wb") as f:
        f.write(b"[" * 100000 + b"]" * 100000)
    r, db = imp(src, "deep.db")
    expect("deep rc", (r.returncode, r.stderr), (0, ""))
    if r.returncode == 0:
        expect("deep counted", rows(db, "SELECT value FROM meta WHERE key ="
                                    " 'import.unmapped.not_an_object'"), [("1",)])
    # none of the failures left a temporary file behind
    expect("no temporary files", glob.glob(os.path.join(WORK, ".*gapscope-*")), [])

elif CHECK == "atomic":
    out = os.path.join(WORK, "trace.db")
    # a file that is no trace is not replaced at all
    with open(out, "wb") as f:
        f.write(b"OLD")
    r = gs("import", os.path.join(FIX, "basic.json"), "-o", out)
    expect("no trace at -o: rc and line", (r.returncode, r.stderr.strip()),
           (2, f"gapscope: {out}: exists and is not a gapscope trace: not replaced; give the"
               " database another name (or remove the file)"))
    expect("no trace at -o: kept", open(out, "rb").read(), b"OLD")
    # a trace of an earlier import is kept by a failed import
    os.unlink(out)
    r = gs("import", os.path.join(FIX, "quirks.json"), "-o", out, "-q")
    expect("earlier import rc", r.returncode, 0)
    old = open(out, "rb").read()
    bad = os.path.join(WORK, "bad.json")
    with open(bad, "wb") as f:
        f.write(open(os.path.join(FIX, "basic.json"), "rb").read()[:3000])
    r = gs("import", bad, "-o", out)
    expect("failed import rc", r.returncode, 2)
    expect("old output kept", open(out, "rb").read() == old, True)
    expect("no temporary files", glob.glob(os.path.join(WORK, ".*gapscope-*")), [])
    r = gs("import", os.path.join(FIX, "basic.json"), "-o", out, "-q")
    expect("good import rc", (r.returncode, r.stdout, r.stderr), (0, "", ""))
    expect("replaced", rows(out, "SELECT count(*) FROM kernels"), [(2,)])
    # a symbolic link: its target is replaced, the link stays
    link = os.path.join(WORK, "link.db")
    os.symlink("trace.db", link)
    r = gs("import", os.path.join(FIX, "quirks.json"), "-o", link, "-q")
    expect("via link rc", r.returncode, 0)
    expect("link stays", os.path.islink(link), True)
    expect("target replaced", rows(out, "SELECT count(*) FROM kernels"), [(4,)])  # quirks' 4
    expect("target is quirks", rows(out, "SELECT value FROM meta WHERE key ="
                                    " 'import.repaired_strings'"), [("1",)])
    for name, target, rc in [("folder", WORK, 2), ("stdout", "-", 2)]:
        r = gs("import", os.path.join(FIX, "basic.json"), "-o", target)
        expect(f"-o {name} rc", r.returncode, rc)
        expect(f"-o {name} one line", len(r.stderr.splitlines()), 1)
    # a new database gets the mode a new file gets (0666 less the umask),
    # not the temporary file's 0600
    fresh = os.path.join(WORK, "fresh.db")
    r = gs("import", "-q", os.path.join(FIX, "basic.json"), "-o", fresh)
    um = os.umask(0)
    os.umask(um)
    expect("new file mode", (r.returncode, oct(os.stat(fresh).st_mode & 0o777)),
           (0, oct(0o666 & ~um)))
    r = gs("import", os.path.join(FIX, "basic.json"))
    expect("no -o rc", r.returncode, 2)
    expect("no temporary files at the end", glob.glob(os.path.join(WORK, ".*gapscope-*")), [])

elif CHECK == "verbs":
    r, db = imp(os.path.join(FIX, "basic.json"))
    expect("rc", r.returncode, 0)
    for args in (["html", db, "-o", os.path.join(WORK, "p.html")],
                 ["export", db, "--format", "chrome", "-o", os.path.join(WORK, "c.json")],
                 ["export", db, "--format", "csv", "-o", os.path.join(WORK, "csv")],
                 ["graph", db], ["diff", db, db], ["info", db], ["report", db]):
        r = gs(*args)
        expect(f"{args[0]} rc", (r.returncode, r.stderr.splitlines()[:1]), (0, []))
    # the exported Chrome trace holds the two kernels by name
    names = [e.get("name") for e in json.load(open(os.path.join(WORK, "c.json")))["traceEvents"]]
    expect("exported sgemm", names.count("ampere_sgemm_64x64_nn"), 1)
    r = gs("import", "--help")
    expect("help rc", r.returncode, 0)
    expect("help names -o", "--output" in r.stdout, True)

elif CHECK == "legacy":
    # PyTorch 1.8-1.10 (libkineto before November 2021): "Kernel", "Memcpy",
    # "Memset", "Runtime"; no cuda_sync events, so the sync calls become
    # syncs of their own time. Times in whole microseconds since 1970.
    def x(cat, name, ts, dur, pid, tid, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts,
                "dur": dur, "args": args}
    T = 1665536373729000
    ev = [x("Runtime", "cudaLaunchKernel", T + 10, 5, 900, 901, cbid=211, correlation=1),
          x("Kernel", "k1", T + 20, 4, 0, 7, device=0, stream=7, correlation=1),
          x("Runtime", "cudaMemcpyAsync", T + 30, 6, 900, 901, cbid=41, correlation=2),
          x("Memcpy", "Memcpy DtoH (Device -> Pinned)", T + 40, 3, 0, 7, device=0, stream=7,
            correlation=2, bytes=4096),
          x("Runtime", "cudaMemsetAsync", T + 50, 2, 900, 901, cbid=51, correlation=3),
          x("Memset", "Memset (Device)", T + 55, 1, 0, 7, device=0, stream=7, correlation=3,
            bytes=64),
          # a device sync: the runtime call and the driver call under it
          # (one correlation id) are one sync
          x("Runtime", "cudaDeviceSynchronize", T + 60, 30, 900, 901, correlation=4),
          x("cuda_driver", "cuCtxSynchronize", T + 61, 28, 900, 901, correlation=4),
          # a stream sync through the per-thread entry point (name suffix)
          x("Runtime", "cudaStreamSynchronize_ptsz", T + 100, 7, 900, 901, correlation=5),
          x("Runtime", "cudaEventSynchronize", T + 110, 3, 900, 901, correlation=6),
          # a name that only starts like one is no sync
          x("Runtime", "cudaStreamSynchronizeX", T + 120, 1, 900, 901, correlation=7),
          # PyTorch 1.8: the step as an operator, thread ids as strings of
          # digits (a GPU "thread" is named: "stream 7")
          x("Operator", "ProfilerStep#3", T, 200, 900, "4093687616"),
          x("Operator", "aten::add", T + 5, 3, 900, "4093687616"),
          x("Operator", "CudnnConvolutionBackward", T + 9, 1, 900, "4093687616"),
          x("Operator", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", T + 20,
            9, 900, "4093687616"),
          x("Runtime", "cudaLaunchKernel", T + 130, 5, 900, "4093687616", correlation=8),
          x("Kernel", "k2", T + 140, 4, 0, "stream 7", device=0, stream=7, correlation=8)]
    src = os.path.join(WORK, "legacy.json")
    with open(src, "w") as f:
        # torch.profiler's options at the top level: 1 on, 0 off
        json.dump({"record_shapes": 1, "profile_memory": 0, "with_stack": 1, "traceEvents": ev},
                  f)
    r, db = imp(src)
    expect("rc", (r.returncode, r.stderr), (0, ""))
    expect("summary", r.stdout.splitlines()[:1],
           [f"imported {src} -> {db}: 2 kernels, 1 memcpys, 1 memsets, 9 API calls,"
            " 3 syncs (0 implicit), 2 ranges, 0 devices"])
    expect("host operators", r.stdout.splitlines()[1:2],
           ["2 host spans (operators, Python functions): the report names host code by them"])
    expect("sync calls line", "3 sync calls had no cuda_sync record" in r.stdout, True)
    if r.returncode == 0:
        base = T * 1000
        expect("ops", rows(db, "SELECT 'k', start - %d, end - %d, stream FROM kernels UNION ALL"
                           " SELECT 'c', start - %d, end - %d, copy_kind FROM memcpys UNION ALL"
                           " SELECT 's', start - %d, end - %d, mem_kind FROM memsets"
                           % ((base,) * 6)),
               [("k", 20000, 24000, 7), ("k", 140000, 144000, 7), ("c", 40000, 43000, 2),
                ("s", 55000, 56000, 3)])
        # kinds as CUPTI numbers them: 4 context, 3 stream, 1 event; device
        # 0, the trace's only one
        expect("syncs", rows(db, "SELECT y.kind, y.implicit, y.start - %d, y.end - %d,"
                             " y.stream, y.device, y.correlation_id, y.tid, s.value FROM syncs y"
                             " JOIN strings s ON s.id = y.api_name_id ORDER BY y.start" %
                             (base, base)),
               [(4, 0, 60000, 90000, None, 0, 4, 901, "cudaDeviceSynchronize"),
                (3, 0, 100000, 107000, None, 0, 5, 901, "cudaStreamSynchronize_ptsz"),
                (1, 0, 110000, 113000, None, 0, 6, 901, "cudaEventSynchronize")])
        expect("meta", rows(db, "SELECT value FROM meta WHERE key = 'import.syncs_from_calls'"),
               [("3",)])
        expect("step range", rows(db, "SELECT n.start - %d, n.end - %d, n.kind, n.tid, s.value"
                                  " FROM nvtx n JOIN strings s ON s.id = n.text_id" %
                                  (base, base)),
               [(0, 200000, 0, 4093687616, "ProfilerStep#3"),
                (20000, 29000, 0, 4093687616,
                 "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")])
        expect("string tid", rows(db, "SELECT tid FROM api_calls WHERE correlation_id = 8"),
               [(4093687616,)])
        # PyTorch 1.8's operators, and its own ranges (the '#' ones): host spans
        expect("host ranges", rows(db, "SELECT h.start - %d, h.end - %d, s.value, h.tid FROM"
                                   " host_ranges h JOIN strings s ON s.id = h.name_id"
                                   " ORDER BY h.start" % (base, base)),
               [(0, 200000, "ProfilerStep#3", 4093687616),
                (5000, 8000, "aten::add", 4093687616),
                (9000, 10000, "CudnnConvolutionBackward", 4093687616),
                (20000, 29000, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                 4093687616)])
        # the options that add host time to every operator: said by report
        expect("options meta", rows(db, "SELECT value FROM meta WHERE"
                                    " key = 'import.torch_profiler_options'"),
               [("record_shapes,with_stack",)])
        r = gs("report", db)
        expect("options note", "note: torch.profiler ran with record_shapes,with_stack: each adds"
               " host time to every operator" in r.stdout, True)
        r = gs("report", "--json", db)
        expect("options json", json.loads(r.stdout)["instrumentation"]
               ["torch_profiler_options"] if r.returncode == 0 else r.stderr,
               "record_shapes,with_stack")

elif CHECK == "waits":
    # PyTorch 2.1+: a stream wait says where its event was recorded
    # (wait_on_stream, and the cudaEventRecord call's correlation id).
    # Device 0: K1 on stream 7 [1.000, 2.000] us; the record call (corr 10)
    # at 1.500 on stream 7; stream 13 waits for it (corr 11, event 5); K2 on
    # stream 13 [2.500, 3.000], launched at 1.600 (queued before the GPU
    # went idle at 2.000). The wait was for the same device's stream 7,
    # done by 2.000: in the device view it explains none of the 500 ns gap
    # (launch latency; dependency before, when no record was known).
    def x(cat, name, ts, dur, pid, tid, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts,
                "dur": dur, "args": args}
    ev = [x("cuda_runtime", "cudaLaunchKernel", 0.5, 0.1, 9, 9, correlation=1),
          x("kernel", "k1", 1.0, 1.0, 0, 7, device=0, stream=7, correlation=1),
          x("cuda_runtime", "cudaEventRecord", 1.5, 0.02, 9, 9, correlation=10),
          x("cuda_runtime", "cudaStreamWaitEvent", 1.55, 0.02, 9, 9, correlation=11),
          x("cuda_sync", "Stream Wait Event", 1.55, 0.02, 0, 13, device=0, stream=13,
            correlation=11, wait_on_stream=7, wait_on_cuda_event_record_corr_id=10,
            wait_on_cuda_event_id=5, cuda_sync_kind="Stream Wait Event"),
          x("cuda_runtime", "cudaLaunchKernel", 1.6, 0.1, 9, 9, correlation=12),
          x("kernel", "k2", 2.5, 0.5, 0, 13, device=0, stream=13, correlation=12)]
    src = os.path.join(WORK, "waits.json")
    with open(src, "w") as f:
        json.dump({"traceEvents": ev}, f)
    r, db = imp(src)
    expect("rc", (r.returncode, r.stderr), (0, ""))
    if r.returncode == 0:
        expect("event record", rows(db, "SELECT event, stream, device, correlation_id, start"
                                   " FROM events"), [(5, 7, 0, 10, 1500)])
        expect("meta", rows(db, "SELECT value FROM meta WHERE"
                            " key = 'import.event_records_from_waits'"), [("1",)])
        r = gs("report", "--json", db)
        expect("report rc", r.returncode, 0)
        if r.returncode == 0:
            j = json.loads(r.stdout)
            c = j["devices"][0]["idle_by_cause_ns"]
            expect("device view", (c["dependency"], c["launch_latency"]), (0, 500))

elif CHECK == "hostops":
    # torch.profiler's operators name host code. Thread 9, device 0, stream
    # 7: K1 [1, 2] us; then, before K2's launch call at 40.5, host code and
    # three other calls: cudaGetDevice [3, 3.1], cudaStreamCreateWithFlags
    # [5, 8], cudaDeviceGetAttribute [9, 9.2]; K2 [41, 42]. Segments of the
    # gap [2, 41): host 1, API 0.1, host 1.9, API 3, host 1, API 0.2, host
    # 31.3, launch latency 0.5: eight, so each cause once with its total
    # (host 35.2, API 3.3 in 3 calls), named by its longest segment: host
    # [9.2, 40.5) by the shortest operator covering half of it or more -
    # aten::inner [10, 30] (20 of 31.3; aten::outer [2, 40] covers more but
    # is longer, aten::tiny [20, 20.5] too little) - and the CUDA API by
    # cudaStreamCreateWithFlags (3 us; the gap's first call took 0.1).
    def x(cat, name, ts, dur, pid, tid, **args):
        return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts,
                "dur": dur, "args": args}
    ev = [x("cuda_runtime", "cudaLaunchKernel", 0.0, 0.1, 9, 9, correlation=1),
          x("kernel", "k1", 1.0, 1.0, 0, 7, device=0, stream=7, correlation=1),
          x("cpu_op", "aten::outer", 2.0, 38.0, 9, 9),
          x("cpu_op", "aten::inner", 10.0, 20.0, 9, 9),
          x("cpu_op", "aten::tiny", 20.0, 0.5, 9, 9),
          x("cuda_runtime", "cudaGetDevice", 3.0, 0.1, 9, 9, correlation=3),
          x("cuda_runtime", "cudaStreamCreateWithFlags", 5.0, 3.0, 9, 9, correlation=4),
          x("cuda_runtime", "cudaDeviceGetAttribute", 9.0, 0.2, 9, 9, correlation=5),
          x("cuda_runtime", "cudaLaunchKernel", 40.5, 0.1, 9, 9, correlation=2),
          x("kernel", "k2", 41.0, 1.0, 0, 7, device=0, stream=7, correlation=2)]
    src = os.path.join(WORK, "hostops.json")
    with open(src, "w") as f:
        json.dump({"traceEvents": ev}, f)
    r, db = imp(src)
    expect("rc", (r.returncode, r.stderr), (0, ""))
    expect("host operators line", "3 host spans (operators, Python functions)" in r.stdout, True)
    r = gs("report", "--full-names", db)
    expect("gap sentence", "in all: 35.200 us host code on thread 9 in aten::inner, 3.300 us"
           " CUDA API in cudaStreamCreateWithFlags and 2 more, 500 ns launch latency"
           " (cudaLaunchKernel)" in r.stdout, True)
    r = gs("report", "--json", db)
    if r.returncode == 0:
        segs = json.loads(r.stdout)["devices"][0]["top_gaps"][0]["segments"]
        expect("json host_op", [s.get("host_op") for s in segs if s["cause"] == "host_code"],
               ["aten::outer", "aten::outer", "aten::outer", "aten::inner"])

else:
    failures.append(f"unknown check {CHECK}")

for f in failures:
    print("FAIL", f)
print(f"kineto_check {CHECK}: {'FAIL' if failures else 'ok'}")
sys.exit(1 if failures else 0)
