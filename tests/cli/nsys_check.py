#!/usr/bin/env python3
"""CLI checks of `gapscope import` on Nsight Systems SQLite exports.

usage: nsys_check.py CHECK GAPSCOPE WORKDIR  (CHECK: v2024, v2025, bad, processes,
                                               mutated)

The exports are written here with Python's sqlite3, table and column names
as Nsight Systems writes them (the tables of real exports of nsys 2023.3,
2024.6 and 2025.5), with the numbering quirks seen in those files:
ENUM_CUDA_MEM_KIND counts from 0 (pageable), runtime calls carry their
CUPTI callback's version suffix, and before 2025 syncType is not CUPTI's
number (a cudaStreamSynchronize was 2, a cudaDeviceSynchronize 1).

Every expected value is worked out by hand from the rows below. One
process 4242, thread 4243 (global id (4242 << 24) | 4243), device 0,
context 1, stream 7; times in ns since the session start:
  a1 cudaLaunchKernel_v7000 [1000, 3000] corr 11 -> K1 gemm [5000, 25000]
  a2 cuLaunchKernel (driver) [4000, 6000] corr 12 -> K2 relu [26000, 30000]
  a3 cudaMemcpy_v3020 [7000, 40000] corr 13 -> DtoH [31000, 39000], 4096 B,
     srcKind 2 (device) dstKind 0 (pageable) -> CUPTI 3 and 1; synchronous:
     one implicit sync (16) over the call
  a4 cudaStreamSynchronize_v3020 [41000, 42000] corr 14, sync record
     syncType 2 (v2024) -> kind 3 (stream) from the name; event 0xffffffff
  a5 cuMemAlloc_v2 (driver) [43000, 44000] corr 15 -> cuMemAlloc, as the
     collector names it: an allocation after the first launch, one implicit
     sync (19) over the call
  a6 cudaDeviceSynchronize_v3020 [45000, 50000] corr 16, syncType 1 (v2024)
     -> kind 4 (context); stream and event 0xffffffff -> NULL
  a7 cudaMemcpyAsync_ptsz_v7000 [51000, 52000] corr 17 -> HtoD [53000,
     55000], srcKind 1 (pinned) -> 2: async from pinned memory, no sync
  a8 cudaMemsetAsync_v3020 [55100, 55200] corr 18 -> memset [56000, 57000]
     memKind 2 (device) -> 3
  GPU window [5000, 57000] = 52000 ns; busy 20000 + 4000 + 8000 + 2000 +
  1000 = 35000; idle 17000 (holes 1000, 1000, 14000, 1000).
  Stream 7 is the context's legacy default (NULL) stream
  (TARGET_INFO_CUDA_NULL_STREAM in v2024, CONTEXT_INFO in v2025). v2025
  adds K3 on the blocking stream 9 [2000, 30000] (a9 [500, 900] corr 21)
  and K4 on the non-blocking stream 11 [52000, 58000] (a10 [50500, 50800]
  corr 22): a1, a2 and a3 put work on the legacy stream while K3 ran
  (K3 started before their op and ended after their call began): three
  implicit syncs of kind 21; a7 and a8 while only K4 ran: none. In v2024
  all work is on stream 7: none.
  NVTX: "train step" [500, 60000] (text), "step" [900, 3500] (textId 12,
  domain 5 = "mylib" from its NvtxDomainCreate row), mark "checkpoint" at
  2000, and a range with no end (left out).
"""
import os
import shutil
import sqlite3
import subprocess
import sys

CHECK, GAPSCOPE, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []

PID, TID = 4242, 4243
GTID = (PID << 24) | TID
GPID = PID << 24
NONE = 4294967295


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def gs(*args):
    return subprocess.run([GAPSCOPE, *args], capture_output=True, text=True, errors="replace",
                          timeout=120)


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def make_export(path, version):
    """An export of the program above, as nsys `version` (2024 or 2025) lays it out."""
    con = sqlite3.connect(path)
    c = con.cursor()
    new = version >= 2025
    c.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
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
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
          deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
          correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
          copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
          srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
          migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
          deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
          correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
          bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
        CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
          rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
          endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
          int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
          floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
        CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER,
          globalTid INTEGER);
        CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
        CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT,
          localTime TEXT);
        CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT, name TEXT,
          nameEnum INTEGER, value TEXT);
        CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL,
          eventClass INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL,
          returnValue INTEGER NOT NULL, nestingLevel INTEGER, callchainId INTEGER NOT NULL);
        CREATE TABLE SCHED_EVENTS (start INTEGER NOT NULL, cpu INTEGER NOT NULL,
          isSchedIn INTEGER NOT NULL, globalTid INTEGER);
        CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER PRIMARY KEY, name TEXT, label TEXT);
        CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);
    """)
    # the launched program: command, arguments out of order, and its
    # environment (never read)
    c.executemany("INSERT INTO META_DATA_CAPTURE VALUES (?, ?)",
                  [("PROCESS_0:COMMAND", "python3"), ("PROCESS_0:ARGUMENT_10", "last"),
                   ("PROCESS_0:ARGUMENT_0", "train.py")] +
                  [(f"PROCESS_0:ARGUMENT_{i}", f"a{i}") for i in range(1, 10)] +
                  [("PROCESS_0:ENVIRONMENT_VARIABLE", "HF_TOKEN=hf_env_secret")])
    if new:
        c.executescript("""
            CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL,
              end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
              greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
              globalPid INTEGER, deprecatedSyncType INTEGER, syncType INTEGER NOT NULL,
              eventId INTEGER NOT NULL, eventSyncId INTEGER);
            CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
              busLocation TEXT, l2CacheSize INTEGER, totalMemory INTEGER, clockRate INTEGER,
              smCount INTEGER, uuid TEXT, maxThreadsPerBlock INTEGER, computeMajor INTEGER,
              computeMinor INTEGER);
            CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER);
            CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER NOT NULL,
              contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,
              globalPid INTEGER, eventId INTEGER NOT NULL);
            CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL,
              end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
              greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
              globalPid INTEGER, graphId INTEGER, graphExecId INTEGER);
        """)
    else:
        c.executescript("""
            CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL,
              end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
              streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
              syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
            CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
              busLocation TEXT, l2CacheSize INTEGER, totalMemory INTEGER, clockRate INTEGER,
              smCount INTEGER, uuid TEXT, cuDevice INTEGER, maxThreadsPerBlock INTEGER,
              computeMajor INTEGER, computeMinor INTEGER);
        """)
    strings = {1: "void gemm<float, 128>(float*, int)", 2: "gemm",
               3: "_Z4gemmIfLi128EEvPfi", 4: "cudaLaunchKernel_v7000",
               5: "cudaMemcpy_v3020", 6: "cudaStreamSynchronize_v3020", 7: "cuLaunchKernel",
               8: "relu_kernel(float*)", 9: "cudaMemcpyAsync_ptsz_v7000", 10: "main-thread",
               11: "cuMemAlloc_v2", 12: "step", 13: "cudaDeviceSynchronize_v3020",
               14: "cudaMemsetAsync_v3020", 15: "/home/user/.secret/path", 16: "mylib",
               17: "cudaEventRecord_v3020", 18: "cudaGraphLaunch_v10000"}
    c.executemany("INSERT INTO StringIds VALUES (?, ?)", strings.items())
    c.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', ?)",
              ("2025.5.2.266" if new else "2024.6.2.225",))
    calls = [(1000, 3000, 0, 11, 4), (4000, 6000, 1, 12, 7), (7000, 40000, 0, 13, 5),
             (41000, 42000, 0, 14, 6), (43000, 44000, 1, 15, 11), (45000, 50000, 0, 16, 13),
             (51000, 52000, 0, 17, 9), (55100, 55200, 0, 18, 14)]
    if new:
        calls += [(60000, 60500, 0, 19, 17), (61000, 62000, 0, 20, 18), (500, 900, 0, 21, 4),
                  (50500, 50800, 0, 22, 4)]
    c.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?, 0, NULL)",
                  [(s, e, cls, GTID, corr, name) for s, e, cls, corr, name in calls])
    k = ("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?, ?, 0, 0, ?,"
         " ?, 1, 1, ?, 1, 1, ?, 0, ?, 0, 1, 0, ?, 0)")
    c.execute(k, (5000, 25000, 11, GPID, 1, 2, 3, 64, 128, 256, 16384, 8, 0))
    c.execute(k, (26000, 30000, 12, GPID, 8, 8, None, 16, 32, 128, 0, 0, None))
    c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (31000, 39000, 0, 1, 7, 13, ?, 4096,"
              " 2, NULL, 2, 0, 0, 1, 0, 1, NULL, 0, NULL)", (GPID,))
    c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (53000, 55000, 0, 1, 7, 17, ?, 1024,"
              " 1, NULL, 1, 2, 0, 1, 0, 1, NULL, 0, NULL)", (GPID,))
    c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (56000, 57000, 0, 1, 7, 18, ?, 0,"
              " 512, 0, 2)", (GPID,))
    if new:
        # CUPTI's numbers, and a sync record whose call is not in the export
        # (correlation 99): its kind can only come from syncType
        sync = [(41000, 42000, 7, 14, 3, NONE), (45000, 50000, NONE, 16, 4, NONE),
                (63000, 64000, 7, 99, 1, 5)]
        c.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, 0, 1, NULL,"
                      " ?, ?, ?, NULL, ?, ?, NULL)",
                      [(s, e, st, corr, GPID, t, ev) for s, e, st, corr, t, ev in sync])
        c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 7, 19, ?, 5)",
                  (GPID,))
        c.execute("INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (62500, 70000, 0, 1, NULL,"
                  " 7, 20, ?, 3, 4)", (GPID,))
        c.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 7, 'NVIDIA H200', '0000:01:00.0',"
                  " 62914560, 150000000000, 1980000000, 132, 'GPU-h200', 1024, 9, 0)")
        c.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA A2', '0000:02:00.0',"
                  " 2097152, 16000000000, 1770000000, 10, 'GPU-a2', 1024, 8, 6)")
        c.execute("INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (7, 0, ?)", (PID,))
        c.executescript("""
            CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER, hwId INTEGER,
              vmId INTEGER, processId INTEGER, deviceId INTEGER, contextId INTEGER,
              parentContextId INTEGER, isGreenContext INTEGER);
            CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER, hwId INTEGER, vmId INTEGER,
              processId INTEGER, contextId INTEGER, priority INTEGER, flag INTEGER);
        """)
        c.execute("INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7, 0, 0, ?, 0, 1, 0, 0)",
                  (PID,))
        # another process's context 1 says its NULL stream is 9: not ours
        c.execute("INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (9, 0, 0, 777, 0, 1, 0, 0)")
        c.executemany("INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (?, 0, 0, ?, 1, 0, ?)",
                      [(9, PID, 1), (11, PID, 2)])
        c.execute(k, (2000, 30000, 21, GPID, 8, 8, None, 16, 32, 128, 0, 0, None))
        c.execute(k, (52000, 58000, 22, GPID, 8, 8, None, 16, 32, 128, 0, 0, None))
        c.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 9 WHERE correlationId = 21")
        c.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 11 WHERE correlationId = 22")
    else:
        sync = [(41000, 42000, 7, 14, 2, NONE), (45000, 50000, NONE, 16, 1, NONE)]
        c.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?, ?, 0, 1, ?, ?,"
                      " ?, ?, ?)", [(s, e, st, corr, GPID, t, ev) for s, e, st, corr, t, ev in sync])
        c.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H200', '0000:01:00.0',"
                  " 62914560, 150000000000, 1980000000, 132, 'GPU-h200', 0, 1024, 9, 0)")
        c.executescript("""
            CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (streamId INTEGER NOT NULL,
              hwId INTEGER NOT NULL, vmId INTEGER NOT NULL, processId INTEGER NOT NULL,
              deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL);
        """)
        c.execute("INSERT INTO TARGET_INFO_CUDA_NULL_STREAM VALUES (7, 0, 0, ?, 0, 1)", (PID,))
    nvtx = [(500, 60000, 59, "train step", None, 0), (900, 3500, 59, None, 12, 5),
            (100, None, 75, "mylib", None, 5), (2000, None, 34, "checkpoint", None, 0),
            (58000, None, 59, "never ended", None, 0)]
    c.executemany("INSERT INTO NVTX_EVENTS(start, end, eventType, text, textId, domainId,"
                  " globalTid) VALUES (?, ?, ?, ?, ?, ?, ?)",
                  [row + (GTID,) for row in nvtx])
    c.execute("INSERT INTO ThreadNames VALUES (10, 0, ?)", (GTID,))
    c.execute("INSERT INTO PROCESSES VALUES (?, ?, 'python3')", (GPID, PID))
    c.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1765000000000000000, '', '')")
    c.executemany("INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (0, 'Local', ?, 0, ?)",
                  [("Hostname", "node-a"), ("CudaDriverVersion", "12080"),
                   ("DeviceEnvironment", "HF_TOKEN=hf_secret_value")])
    c.executemany("INSERT INTO OSRT_API VALUES (?, ?, 0, ?, 15, 0, 0, 0)",
                  [(100, 200, GTID), (300, 400, GTID), (500, 600, GTID)])
    c.executemany("INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (?, ?, '')",
                  [(0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME"), (1, "TRACE_PROCESS_EVENT_CUDA_DRIVER")])
    con.commit()
    con.close()


def check_import(version):
    src = os.path.join(WORK, f"report {version}?x=1#frag%20.sqlite")  # URI characters
    make_export(src, version)
    db = os.path.join(WORK, "out.db")
    r = gs("import", src, "-o", db)
    expect("import exit", r.returncode, 0)
    if r.returncode != 0:
        failures.append("import stderr: " + r.stderr.strip())
        return
    new = version >= 2025
    first = r.stdout.splitlines()[0]
    want = ("%d kernels, 2 memcpys, 1 memsets, %d API calls, %d syncs (%d implicit), 3 ranges,"
            " 1 devices" % (4 if new else 2, 12 if new else 8, 8 if new else 4, 5 if new else 2))
    expect("import summary", first.split(": ", 1)[-1], want)
    expect("not mapped line", "not mapped (rows per table): OSRT_API 3" in r.stdout, True)
    expect("graph-level line",
           "1 CUDA graph launches were traced graph-level" in r.stdout, new)

    expect("kernels", rows(db, "SELECT k.start, k.end, k.device, k.context, k.stream,"
                           " k.correlation_id, s.value, k.grid_x, k.block_x, k.registers,"
                           " k.static_shared_bytes, k.local_memory_bytes, k.graph_id,"
                           " k.graph_node_id FROM kernels k JOIN strings s ON s.id = k.name_id"
                           " WHERE k.stream = 7 ORDER BY k.start"),
           [(5000, 25000, 0, 1, 7, 11, "void gemm<float, 128>(float*, int)", 128, 256, 64,
             16384, 8, 0, 0),
            (26000, 30000, 0, 1, 7, 12, "relu_kernel(float*)", 32, 128, 16, 0, 0, 0, 0)])
    # names lose the callback's version suffix, as the collector writes them
    expect("api calls", rows(db, "SELECT a.api, s.value, a.start, a.end, a.pid, a.tid,"
                             " a.correlation_id FROM api_calls a JOIN strings s ON"
                             " s.id = a.name_id WHERE a.correlation_id < 19 ORDER BY a.start"),
           [(1, "cudaLaunchKernel", 1000, 3000, PID, TID, 11),
            (2, "cuLaunchKernel", 4000, 6000, PID, TID, 12),
            (1, "cudaMemcpy", 7000, 40000, PID, TID, 13),
            (1, "cudaStreamSynchronize", 41000, 42000, PID, TID, 14),
            (2, "cuMemAlloc", 43000, 44000, PID, TID, 15),
            (1, "cudaDeviceSynchronize", 45000, 50000, PID, TID, 16),
            (1, "cudaMemcpyAsync_ptsz", 51000, 52000, PID, TID, 17),
            (1, "cudaMemsetAsync", 55100, 55200, PID, TID, 18)])
    # memory kinds +1 (nsys pageable 0 = CUPTI 1, pinned 1 = 2, device 2 = 3)
    expect("memcpys", rows(db, "SELECT start, end, bytes, copy_kind, src_kind, dst_kind,"
                           " is_async, correlation_id FROM memcpys ORDER BY start"),
           [(31000, 39000, 4096, 2, 3, 1, 0, 13), (53000, 55000, 1024, 1, 2, 3, 1, 17)])
    expect("memsets", rows(db, "SELECT start, end, bytes, mem_kind, is_async FROM memsets"),
           [(56000, 57000, 512, 3, 1)])
    # kinds from the call names (v2024's syncType 2 and 1 say otherwise);
    # the unnamed v2025 sync keeps CUPTI's syncType 1 (event sync)
    want_syncs = [(41000, 42000, 3, 0, 7, None, TID, "cudaStreamSynchronize"),
                  (45000, 50000, 4, 0, None, None, TID, "cudaDeviceSynchronize"),
                  (7000, 40000, 16, 1, 7, None, TID, "cudaMemcpy"),
                  (43000, 44000, 19, 1, None, None, TID, "cuMemAlloc")]
    if new:  # the legacy default stream, waiting for K3 on stream 9
        want_syncs += [(1000, 3000, 21, 1, 7, None, TID, "cudaLaunchKernel"),
                       (4000, 6000, 21, 1, 7, None, TID, "cuLaunchKernel"),
                       (7000, 40000, 21, 1, 7, None, TID, "cudaMemcpy")]
    if new:
        want_syncs.insert(2, (63000, 64000, 1, 0, 7, 5, None, None))
    expect("syncs", rows(db, "SELECT y.start, y.end, y.kind, y.implicit, y.stream, y.event,"
                         " y.tid, s.value FROM syncs y LEFT JOIN strings s ON"
                         " s.id = y.api_name_id ORDER BY y.implicit, y.kind = 21, y.start"),
           want_syncs)
    expect("nvtx", rows(db, "SELECT n.start, n.end, n.kind, t.value, d.value, n.pid, n.tid"
                        " FROM nvtx n JOIN strings t ON t.id = n.text_id LEFT JOIN strings d"
                        " ON d.id = n.domain_id ORDER BY n.start"),
           [(500, 60000, 0, "train step", None, PID, TID),
            (900, 3500, 0, "step", "mylib", PID, TID),
            (2000, 2000, 1, "checkpoint", None, PID, TID)])
    expect("threads", rows(db, "SELECT tid, pid, name FROM threads"), [(TID, PID, "main-thread")])
    expect("processes", rows(db, "SELECT pid, hostname, command_line FROM processes"),
           [(PID, "node-a", "python3")])
    # device 0 is the GPU of id 7 in v2025 (TARGET_INFO_CUDA_DEVICE), not the A2 of id 0
    expect("devices", rows(db, "SELECT id, name, uuid, cc_major, cc_minor, sm_count,"
                           " core_clock_khz, global_memory_bytes, l2_cache_bytes,"
                           " max_threads_per_block FROM devices"),
           [(0, "NVIDIA H200", "GPU-h200", 9, 0, 132, 1980000, 150000000000, 62914560, 1024)])
    if new:
        expect("events", rows(db, "SELECT event, stream, device, context, correlation_id, start"
                              " FROM events"), [(5, 7, 0, 1, 19, 60000)])
        expect("graph runs", rows(db, "SELECT start, end, device, context, stream, graph_id,"
                                  " correlation_id FROM graph_runs"),
               [(62500, 70000, 0, 1, 7, 3, 20)])
    meta = dict(rows(db, "SELECT key, value FROM meta"))
    want_meta = {"source": "nsys", "finalized": "1", "pid": str(PID), "hostname": "node-a",
                 "import.processes": "1", "realtime_offset_ns": "1765000000000000000",
                 "import.nsys_version": "2025.5.2.266" if new else "2024.6.2.225",
                 "import.unmapped.OSRT_API": "3", "cuda_driver_version": "12080",
                 "start_ns": "500", "stop_ns": "60000" if not new else "62000",
                 "command_line": "python3 train.py a1 a2 a3 a4 a5 a6 a7 a8 a9 last",
                 "import.graph_launches_unseen": "0",
                 "schema_version": "2"}
    for key, v in want_meta.items():
        expect(f"meta {key}", meta.get(key), v)
    # empty tables, facts and enums are not "not mapped"
    expect("unmapped keys", sorted(k for k in meta if k.startswith("import.unmapped.")),
           ["import.unmapped.OSRT_API"])
    # nothing of the environment and no unused string reaches the trace
    dump = "\n".join(r[0] for r in rows(db, "SELECT value FROM strings")) + "\n".join(
        str(v) for v in meta.values())
    expect("environment left out", "hf_secret_value" in dump or "hf_env_secret" in dump, False)
    expect("unused strings left out", "/home/user/.secret/path" in dump, False)

    # the report on it: the GPU window and busy time worked out above
    r = gs("report", "--json", db)
    expect("report exit", r.returncode, 0)
    if r.returncode == 0 and not new:
        import json
        dev = json.loads(r.stdout)["devices"][0]
        expect("window", dev.get("window_ns"), 52000)
        expect("busy", dev.get("busy_ns"), 35000)
        expect("idle", dev.get("idle_ns"), 17000)
    # the export itself, given to a verb
    r = gs("report", src)
    expect("report on the export: exit", r.returncode, 2)
    expect("report on the export: says import",
           "Nsight Systems SQLite export: gapscope import it first" in r.stderr, True)
    # and the export was not changed by the import
    expect("export unchanged", rows(src, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"),
           [(12 if new else 8,)])


def check_bad():
    good = os.path.join(WORK, "good.sqlite")
    make_export(good, 2024)
    # the output: a trace of an earlier import, kept by every failure
    out = os.path.join(WORK, "keep.db")
    r = gs("import", "-q", good, "-o", out)
    expect("earlier import", r.returncode, 0)
    precious = open(out, "rb").read()

    def refused(src, text, what):
        r = gs("import", src, "-o", out)
        expect(f"{what}: exit", r.returncode, 2)
        lines = r.stderr.strip().splitlines()
        expect(f"{what}: one line", len(lines), 1)
        if text not in r.stderr:
            failures.append(f"{what}: stderr {r.stderr.strip()!r} lacks {text!r}")
        with open(out, "rb") as f:
            expect(f"{what}: output kept", f.read() == precious, True)

    data = open(good, "rb").read()
    cut = os.path.join(WORK, "cut.sqlite")
    with open(cut, "wb") as f:
        f.write(data[:len(data) // 3])
    refused(cut, "damaged", "truncated export")

    # the report itself (.nsys-rep), which only Nsight Systems reads: its
    # first bytes as nsys 2025.5 writes them
    rep = os.path.join(WORK, "report1.nsys-rep")
    with open(rep, "wb") as f:
        f.write(b"NVIDIA Tegra Profiler Report 2025@5@2@266-255236\0" + bytes(range(256)) * 4)
    refused(rep, "an Nsight Systems report, which only Nsight Systems reads: export it (nsys"
            " export --type sqlite", "nsys report")
    r = gs("report", rep)
    expect("report on a .nsys-rep: exit", r.returncode, 2)
    expect("report on a .nsys-rep: says export",
           "an Nsight Systems report: export it with nsys export --type sqlite" in r.stderr, True)

    other = os.path.join(WORK, "dlprof.sqlite")
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE dlprof_op(id INTEGER, name TEXT)")
    con.commit()
    con.close()
    refused(other, "not an Nsight Systems export (no StringIds table)", "foreign SQLite")

    cpu = os.path.join(WORK, "cpu.sqlite")
    con = sqlite3.connect(cpu)
    con.executescript("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                      "CREATE TABLE OSRT_API (start INTEGER, end INTEGER);")
    con.commit()
    con.close()
    refused(cpu, "without CUDA trace", "export without CUDA")

    # -o naming a file that is no trace (a source file, another export):
    # refused, kept
    notes = os.path.join(WORK, "notes.txt")
    with open(notes, "w") as f:
        f.write("my notes\n")
    other_export = os.path.join(WORK, "other.sqlite")
    shutil.copy(good, other_export)
    for target in (notes, other_export):
        before = open(target, "rb").read()
        r = gs("import", good, "-o", target)
        expect(f"-o {os.path.basename(target)}: refused",
               (r.returncode, r.stderr.strip()),
               (2, f"gapscope: {target}: exists and is not a gapscope trace: not replaced; give"
                   " the database another name (or remove the file)"))
        expect(f"-o {os.path.basename(target)}: kept", open(target, "rb").read() == before,
               True)

    # -o naming the export itself: refused, the export kept
    same = os.path.join(WORK, "same.sqlite")
    shutil.copy(good, same)
    link = os.path.join(WORK, "link.db")
    os.symlink(same, link)
    for target in (same, link):
        r = gs("import", same, "-o", target)
        expect(f"-o {os.path.basename(target)}: exit", r.returncode, 2)
        expect(f"-o {os.path.basename(target)}: says why",
               "is the file being imported: give the database another name" in r.stderr, True)
    expect("the export kept", open(same, "rb").read() == data, True)

    trace = os.path.join(WORK, "trace.db")
    r = gs("import", good, "-o", trace)
    expect("good import", r.returncode, 0)
    refused(trace, "already a gapscope trace", "gapscope trace")

    # a graph launch whose GPU work is not in the export (graph-level in a
    # layout not read): said, so that its idle GPU is not taken at face value
    unseen = os.path.join(WORK, "unseen.sqlite")
    make_export(unseen, 2024)
    con = sqlite3.connect(unseen)
    con.execute("INSERT INTO StringIds VALUES (40, 'cudaGraphLaunch_v10000')")
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (58000, 58500, 0, ?, 80, 40, 0,"
                " NULL)", (GTID,))
    con.commit()
    con.close()
    udb = os.path.join(WORK, "unseen.db")
    r = gs("import", unseen, "-o", udb)
    expect("unseen graph work: exit", r.returncode, 0)
    expect("unseen graph work: note",
           "note: 1 CUDA graph launches, but none of their GPU work is in the export" in r.stdout,
           True)
    if r.returncode == 0:
        expect("unseen graph work: meta", rows(udb, "SELECT value FROM meta WHERE key ="
                                          " 'import.graph_launches_unseen'"), [("1",)])
        r = gs("report", udb)
        expect("unseen graph work: the report's note",
               "note: 1 CUDA graph launches in this trace, but none of their GPU work" in r.stdout,
               True)

    # times that are no integers, out of order or negative: those rows are
    # left out, the rest imported
    hostile = os.path.join(WORK, "hostile.sqlite")
    make_export(hostile, 2024)
    con = sqlite3.connect(hostile)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'soon' WHERE correlationId = 11")
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET end = start - 1 WHERE correlationId = 13")
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = -5 WHERE correlationId = 15")
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET deviceId = 40000 WHERE correlationId = 18")
    con.commit()
    con.close()
    hdb = os.path.join(WORK, "hostile.db")
    r = gs("import", hostile, "-o", hdb)
    expect("hostile import exit", r.returncode, 0)

    if r.returncode == 0:
        expect("hostile kernels", rows(hdb, "SELECT correlation_id FROM kernels"), [(12,)])
        expect("hostile memcpys", rows(hdb, "SELECT correlation_id FROM memcpys"), [(17,)])
        expect("hostile calls", rows(hdb, "SELECT count(*) FROM api_calls"), [(7,)])
        expect("hostile memsets (device 40000)", rows(hdb, "SELECT count(*) FROM memsets"), [(0,)])
        # a kernel, a copy, a call and a memset: said once, and in meta
        expect("left out, said",
               "4 rows were left out: their times, device or stream are none a trace can hold"
               " (damaged export?)" in r.stdout, True)
        expect("left out, meta", rows(hdb, "SELECT value FROM meta WHERE key ="
                                      " 'import.rows_left_out'"), [("4",)])
        r = gs("report", hdb)
        expect("hostile report exit", r.returncode, 0)


def check_processes():
    """Two processes with GPU work in one export (ranks of one job): refused
    without --pid, one process's rows with it."""
    src = os.path.join(WORK, "two.sqlite")
    make_export(src, 2024)
    other_tid = (5000 << 24) | 5001
    con = sqlite3.connect(src)
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (70000, 71000, 0, ?, 90, 4, 0,"
                " NULL)", (other_tid,))
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 72000, 80000, deviceId, contextId,"
                " streamId, 90, ?, demangledName, shortName, mangledName, launchType,"
                " cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,"
                " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread,"
                " localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId,"
                " sharedMemoryLimitConfig FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11",
                (5000 << 24,))
    con.commit()
    con.close()
    db = os.path.join(WORK, "one.db")
    r = gs("import", src, "-o", db)
    expect("two processes: exit", r.returncode, 2)
    expect("two processes: says which",
           "2 processes with GPU work (pids 4242, 5000)" in r.stderr and "--pid" in r.stderr, True)
    expect("two processes: no output", os.path.exists(db), False)
    r = gs("import", "--pid", "5000", src, "-o", db)
    expect("--pid 5000: exit", r.returncode, 0)
    if r.returncode == 0:
        expect("--pid 5000: kernels", rows(db, "SELECT start, end, correlation_id FROM kernels"),
               [(72000, 80000, 90)])
        expect("--pid 5000: calls", rows(db, "SELECT pid, tid, correlation_id FROM api_calls"),
               [(5000, 5001, 90)])
        expect("--pid 5000: nvtx, syncs, copies",
               rows(db, "SELECT (SELECT count(*) FROM nvtx), (SELECT count(*) FROM syncs),"
                    " (SELECT count(*) FROM memcpys)"), [(0, 0, 0)])
        expect("--pid 5000: meta pid", rows(db, "SELECT value FROM meta WHERE key = 'pid'"),
               [("5000",)])
    r = gs("import", "--pid", "4242", src, "-o", db)
    expect("--pid 4242: exit", r.returncode, 0)
    if r.returncode == 0:
        expect("--pid 4242: kernels", rows(db, "SELECT count(*) FROM kernels"), [(2,)])
        expect("--pid 4242: calls", rows(db, "SELECT count(*) FROM api_calls"), [(8,)])
    for bad, text in (("7", "no GPU work of process 7 in the export (processes with GPU work:"
                       " 4242, 5000)"), ("x1", "--pid wants a process id"),
                      ("-3", "--pid wants a process id")):
        r = gs("import", "--pid", bad, src, "-o", db)
        expect(f"--pid {bad}: exit", r.returncode, 2)
        if text not in r.stderr:
            failures.append(f"--pid {bad}: stderr {r.stderr.strip()!r} lacks {text!r}")
    js = os.path.join(WORK, "t.json")
    with open(js, "w") as f:
        f.write('{"traceEvents": []}')
    r = gs("import", "--pid", "1", js, "-o", db)
    expect("--pid on JSON: exit", r.returncode, 2)
    expect("--pid on JSON: says why", "--pid is for Nsight Systems exports" in r.stderr, True)


def check_mutated():
    """Damaged exports (bytes flipped, cut short, a page of noise), each
    imported, and reported when imported: exit 0 or 2 with one line, never
    a crash (a sanitizer's report exits 1). Deterministic: the same seed
    every run."""
    import random
    src = os.path.join(WORK, "base.sqlite")
    make_export(src, 2025)
    data = open(src, "rb").read()
    rnd = random.Random(20261205)
    path, db = os.path.join(WORK, "m.sqlite"), os.path.join(WORK, "m.db")
    seen = {0: 0, 2: 0}
    for k in range(60):
        d = bytearray(data)
        if k % 3 == 0:
            for _ in range(rnd.randint(1, 30)):
                d[rnd.randrange(100, len(d))] = rnd.randrange(256)
        elif k % 3 == 1:
            d = d[:rnd.randrange(100, len(d))]
        else:
            page = 4096
            p = rnd.randrange(1, len(d) // page)
            d[p * page:(p + 1) * page] = bytes(rnd.randrange(256) for _ in range(page))
        with open(path, "wb") as f:
            f.write(d)
        r = gs("import", "-q", path, "-o", db)
        if r.returncode not in (0, 2) or len(r.stderr.strip().splitlines()) > 1:
            failures.append(f"mutation {k}: import exit {r.returncode}: {r.stderr.strip()[:300]}")
            continue
        seen[r.returncode] += 1
        if r.returncode == 0:
            r = gs("report", db)
            if r.returncode not in (0, 2):
                failures.append(f"mutation {k}: report exit {r.returncode}: {r.stderr[:300]}")
    # both outcomes occur, or the mutations test nothing
    expect("some mutations imported", seen[0] > 0, True)
    expect("some mutations refused", seen[2] > 0, True)


if CHECK in ("v2024", "v2025"):
    check_import(int(CHECK[1:]))
elif CHECK == "bad":
    check_bad()
elif CHECK == "processes":
    check_processes()
elif CHECK == "mutated":
    check_mutated()
else:
    sys.exit(f"unknown check {CHECK}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
