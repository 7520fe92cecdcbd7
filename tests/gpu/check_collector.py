#!/usr/bin/env python3
"""check_collector.py - checks a trace database recorded on a GPU against what
the recorded program is known to have done. Standard library only (sqlite3),
so it runs on the GPU machine, which has no SQLite headers or gapscope tools.

  check_collector.py smoke  DB LOG   collector_smoke's database; the expected
                                     counts are parsed from the program's
                                     "GS_SMOKE_COUNTS k=v ..." line in LOG
  check_collector.py torch  DB       tests/gpu/torch_smoke.py's database
  check_collector.py killed DB       collector_smoke --forever killed by
                                     SIGTERM: finalized, kernels present

Prints one "PASS: ..." or "FAIL: ..." line per check and exits 1 if any
failed. It reads the database only; it does not judge timings.
"""
import re
import sqlite3
import sys

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("PASS: " if ok else "FAIL: ") + name + (f" ({detail})" if detail else ""))


def one(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]


def meta(db, key):
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def expect_eq(db, name, sql, want, *args):
    got = one(db, sql, *args)
    check(f"{name} = {want}", got == want, f"got {got}")


LAUNCH_NAME = ("(s.value LIKE 'cudaLaunch%' OR s.value LIKE 'cuLaunch%' OR "
               "s.value LIKE 'cudaGraphLaunch%' OR s.value LIKE 'cuGraphLaunch%')")


# docs/record.md's list of runtime calls gapscope does not record
QUERY_CALLS_LEFT_OUT = ("cudaGetDevice,cudaGetDeviceCount,cudaGetDeviceFlags,cudaGetLastError,"
                        "cudaPeekAtLastError,cudaDeviceGetAttribute,cudaDeviceGetLimit,"
                        "cudaThreadGetLimit,cudaFuncGetAttributes,cudaPointerGetAttributes,"
                        "cudaStreamIsCapturing,cudaStreamIsCapturing_ptsz,cudaStreamGetCaptureInfo,"
                        "cudaStreamGetCaptureInfo_ptsz,cudaStreamGetCaptureInfo_v2,"
                        "cudaStreamGetCaptureInfo_v2_ptsz")


def common(db):
    """Checks every finished recording must pass."""
    check("meta finalized = 1", meta(db, "finalized") == "1", f"got {meta(db, 'finalized')!r}")
    check("meta dropped_records = 0", meta(db, "dropped_records") == "0",
          f"got {meta(db, 'dropped_records')!r}")
    start, stop = meta(db, "start_ns"), meta(db, "stop_ns")
    check("meta start_ns < stop_ns", start is not None and stop is not None
          and int(start) < int(stop), f"start_ns {start}, stop_ns {stop}")
    expect_eq(db, "kernels with end <= start", "SELECT count(*) FROM kernels WHERE end <= start", 0)
    if start is not None and stop is not None:
        expect_eq(db, "kernels outside [start_ns, stop_ns]",
                  "SELECT count(*) FROM kernels WHERE start < ? OR end > ?", 0, int(start), int(stop))
    check("at least one device row with a name and SMs",
          one(db, "SELECT count(*) FROM devices WHERE name <> '' AND sm_count > 0") >= 1)


def smoke(db, log):
    with open(log, errors="replace") as f:
        m = re.search(r"^GS_SMOKE_COUNTS (.*)$", f.read(), re.M)
    if not m:
        check("program printed GS_SMOKE_COUNTS", False, log)
        return
    want = {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}
    common(db)
    expect_eq(db, "kernels", "SELECT count(*) FROM kernels", want["kernels"])
    expect_eq(db, "launch API calls (cudaLaunchKernel*)",
              "SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id "
              "WHERE s.value LIKE 'cudaLaunchKernel%'", want["launch_calls"])
    # Every kernel: exactly one launch call with its correlation id, which
    # began before the kernel did.
    expect_eq(db, "kernels without exactly one cudaLaunchKernel* call of the same correlation id",
              "SELECT count(*) FROM kernels k WHERE (SELECT count(*) FROM api_calls a "
              "JOIN strings s ON s.id = a.name_id WHERE a.correlation_id = k.correlation_id "
              "AND s.value LIKE 'cudaLaunchKernel%') <> 1", 0)
    expect_eq(db, "kernels starting before their launch call",
              "SELECT count(*) FROM kernels k JOIN api_calls a ON a.correlation_id = "
              "k.correlation_id JOIN strings s ON s.id = a.name_id "
              "WHERE s.value LIKE 'cudaLaunchKernel%' AND k.start < a.start", 0)
    # Query calls are left out (collector.c's query_calls); the program made
    # cudaGetDevice, cudaGetLastError and cudaPeekAtLastError calls.
    check("meta config.runtime_calls_left_out lists the query calls",
          meta(db, "config.runtime_calls_left_out") == QUERY_CALLS_LEFT_OUT,
          f"got {meta(db, 'config.runtime_calls_left_out')!r}")
    # The CPU time of the process and its threads by name, read as
    # finalize began (collector/threadcpu.c): the collector's three
    # threads once each, and the threads' sum within the process's.
    pc = meta(db, "process.cpu_ns")
    check("meta process.cpu_ns > 0", pc is not None and pc.isdigit() and int(pc) > 0,
          f"got {pc!r}")
    for name in ("gs-decode", "gs-sqlite", "gs-flush"):
        check(f"meta thread_count.{name} = 1", meta(db, f"thread_count.{name}") == "1",
              f"got {meta(db, f'thread_count.{name}')!r}")
    tsum = one(db, "SELECT sum(CAST(value AS INTEGER)) FROM meta "
               "WHERE key LIKE 'thread\\_cpu\\_ns.%' ESCAPE '\\'")
    check("sum of meta thread_cpu_ns.* <= process.cpu_ns",
          tsum is not None and pc is not None and pc.isdigit() and tsum <= int(pc),
          f"threads {tsum}, process {pc}")
    expect_eq(db, "api_calls of the query calls left out",
              "SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id "
              "WHERE s.value IN ('cudaGetDevice', 'cudaGetLastError', 'cudaPeekAtLastError')", 0)
    expect_eq(db, "kernels named gs_short_kernel",
              "SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name_id "
              "WHERE s.value LIKE '%gs_short_kernel%'", want["kernels"])
    expect_eq(db, "memcpys HtoD", "SELECT count(*) FROM memcpys WHERE copy_kind = 1",
              want["memcpy_htod"])
    expect_eq(db, "memcpys HtoD from pageable memory",
              "SELECT count(*) FROM memcpys WHERE copy_kind = 1 AND src_kind = 1",
              want["memcpy_htod_pageable"])
    expect_eq(db, "memcpys DtoH", "SELECT count(*) FROM memcpys WHERE copy_kind = 2",
              want["memcpy_dtoh"])
    expect_eq(db, "memcpys DtoH to pageable memory",
              "SELECT count(*) FROM memcpys WHERE copy_kind = 2 AND dst_kind = 1",
              want["memcpy_dtoh_pageable"])
    expect_eq(db, "memcpys of other kinds",
              "SELECT count(*) FROM memcpys WHERE copy_kind NOT IN (1, 2)", 0)
    expect_eq(db, "async memcpys", "SELECT count(*) FROM memcpys WHERE is_async = 1",
              want["memcpy_async"])
    expect_eq(db, "synchronous memcpys", "SELECT count(*) FROM memcpys WHERE is_async = 0",
              want["memcpy_sync"])
    expect_eq(db, "memsets", "SELECT count(*) FROM memsets", want["memsets"])
    for kind, key in ((3, "sync_stream"), (4, "sync_device"), (1, "sync_event"),
                      (2, "sync_stream_wait_event")):
        expect_eq(db, f"explicit syncs of kind {kind} ({key})",
                  "SELECT count(*) FROM syncs WHERE implicit = 0 AND kind = ?", want[key], kind)
    expect_eq(db, "implicit syncs of kind 16 (synchronous memcpy)",
              "SELECT count(*) FROM syncs WHERE implicit = 1 AND kind = 16",
              want["implicit_sync_memcpy"])
    expect_eq(db, "implicit syncs of kind 17 (async copy with pageable memory)",
              "SELECT count(*) FROM syncs WHERE implicit = 1 AND kind = 17", 0)
    expect_eq(db, "implicit memcpy syncs without a reason",
              "SELECT count(*) FROM syncs WHERE implicit = 1 AND kind = 16 AND reason_id IS NULL", 0)
    for kind, text, key in ((0, "gs_smoke_outer", "nvtx_outer"), (0, "gs_smoke_step", "nvtx_step"),
                            (1, "gs_smoke_mark", "nvtx_mark")):
        expect_eq(db, f"NVTX {'range' if kind == 0 else 'mark'} {text}",
                  "SELECT count(*) FROM nvtx n JOIN strings s ON s.id = n.text_id "
                  "WHERE n.kind = ? AND s.value = ?", want[key], kind, text)
    expect_eq(db, "NVTX ranges in all", "SELECT count(*) FROM nvtx WHERE kind = 0",
              want["nvtx_outer"] + want["nvtx_step"])
    expect_eq(db, "NVTX marks in all", "SELECT count(*) FROM nvtx WHERE kind = 1", want["nvtx_mark"])
    expect_eq(db, "NVTX marks with end <> start", "SELECT count(*) FROM nvtx WHERE kind = 1 AND end <> start", 0)
    expect_eq(db, "gs_smoke_step ranges not nested in gs_smoke_outer",
              "SELECT count(*) FROM nvtx i JOIN strings si ON si.id = i.text_id, "
              "nvtx o JOIN strings so ON so.id = o.text_id WHERE si.value = 'gs_smoke_step' "
              "AND so.value = 'gs_smoke_outer' AND NOT (o.start <= i.start AND i.end <= o.end)", 0)
    expect_eq(db, "kernels on streams", "SELECT count(DISTINCT stream) FROM kernels", 2)
    # CUDA event records (collector_smoke.cu records ev_a on stream a and
    # ev_b on stream b, once each; b waits for ev_a).
    expect_eq(db, "events rows (cudaEventRecord calls)", "SELECT count(*) FROM events", 2)
    expect_eq(db, "events rows without the record call's start",
              "SELECT count(*) FROM events WHERE start IS NULL", 0)
    expect_eq(db, "events recorded on a stream no kernel ran on",
              "SELECT count(*) FROM events WHERE stream NOT IN (SELECT stream FROM kernels)", 0)
    expect_eq(db, "stream-wait-event not tied to a record on another stream "
              "(docs/schema.md's join)",
              "SELECT count(*) FROM (SELECT y.stream AS waiting, (SELECT e.stream FROM events e "
              "WHERE e.event = y.event AND e.start <= a.start ORDER BY e.start DESC LIMIT 1) "
              "AS recorded_on FROM syncs y JOIN api_calls a ON a.correlation_id = "
              "y.correlation_id AND a.api = 1 WHERE y.kind = 2) "
              "WHERE recorded_on IS NULL OR recorded_on = waiting", 0)
    # Context records: the legacy default stream is known; the smoke
    # program's two streams are non-blocking, so nothing is serialised by
    # its synchronous copies on the legacy stream.
    n = one(db, "SELECT count(*) FROM meta WHERE key LIKE 'context.%.null_stream'")
    check("meta context.<id>.null_stream present", n >= 1, f"got {n} keys")
    expect_eq(db, "implicit syncs of kind 21 (legacy default stream; streams are non-blocking)",
              "SELECT count(*) FROM syncs WHERE implicit = 1 AND kind = 21", 0)


def every_kernel_launched(db):
    """Every kernel has a launch call of its correlation id: runtime, or the
    driver's for libraries such as cuBLAS that launch through cuLaunchKernel."""
    n = one(db, "SELECT count(*) FROM kernels")
    check("kernels > 0", n > 0, f"got {n}")
    orphans = db.execute(
        "SELECT count(*), group_concat(DISTINCT substr(s.value, 1, 60)) FROM kernels k "
        "LEFT JOIN strings s ON s.id = k.name_id WHERE NOT EXISTS (SELECT 1 FROM api_calls a "
        f"JOIN strings s ON s.id = a.name_id WHERE a.correlation_id = k.correlation_id AND {LAUNCH_NAME})"
    ).fetchone()
    check("every kernel has a launch API call of its correlation id", orphans[0] == 0,
          f"{orphans[0]} of {n} without: {orphans[1]}" if orphans[0] else f"{n} kernels")


def torch(db):
    common(db)
    every_kernel_launched(db)
    syncs = one(db, "SELECT count(*) FROM syncs WHERE implicit = 0 AND kind IN (3, 4)")
    check("explicit stream/device syncs > 0 (torch.cuda.synchronize)", syncs > 0, f"got {syncs}")


def captured(db):
    """tests/gpu/torch_cudagraph.py: torch.cuda.CUDAGraph is made by stream
    capture, so its graph has origin 2, and that graph is the one launched."""
    common(db)
    n = one(db, "SELECT count(*) FROM graphs WHERE origin = 2")
    check("graphs made by stream capture (origin 2) >= 1", n >= 1, f"got {n}")
    n = one(db, "SELECT count(*) FROM graph_launches l JOIN graph_execs x ON x.exec_id = l.exec_id "
            "JOIN graphs g ON g.graph_id = x.graph_id WHERE g.origin = 2")
    check("launches of an exec instantiated from a captured graph >= 1", n >= 1, f"got {n}")
    # the script's eager part runs cuBLAS GEMMs, launched through the driver
    every_kernel_launched(db)
    n = one(db, "SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id "
            "WHERE a.api = 2 AND s.value LIKE 'cuLaunchKernel%'")
    check("driver launch calls (cuLaunchKernel*, api 2) recorded by default", n > 0, f"got {n}")


def killed(db):
    check("meta finalized = 1 after SIGTERM", meta(db, "finalized") == "1",
          f"got {meta(db, 'finalized')!r}")
    n = one(db, "SELECT count(*) FROM kernels")
    check("kernels >= 100 after SIGTERM", n >= 100, f"got {n}")
    expect_eq(db, "kernels with end <= start", "SELECT count(*) FROM kernels WHERE end <= start", 0)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("smoke", "torch", "killed", "captured"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, path = sys.argv[1], sys.argv[2]
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        one(db, "SELECT count(*) FROM meta")
    except sqlite3.Error as e:
        check(f"{path} opens as a trace database", False, str(e))
        return 1
    try:
        if mode == "smoke":
            smoke(db, sys.argv[3])
        elif mode == "torch":
            torch(db)
        elif mode == "captured":
            captured(db)
        else:
            killed(db)
    except sqlite3.Error as e:
        check("queries run", False, str(e))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
