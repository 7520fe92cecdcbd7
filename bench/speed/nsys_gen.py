#!/usr/bin/env python3
"""Write a synthetic Nsight Systems SQLite export of a decode-like loop, for
benchmarking `gapscope import` on exports of real size (millions of rows).

usage: bench/speed/nsys_gen.py --kernels N -o report.sqlite

Tables and columns as nsys 2024.6 writes them (the ones the importer reads,
tests/cli/nsys_check.py has the layout): per step, K cudaLaunchKernel calls
(runtime names with their _v7000 suffix) and their kernels on stream 7,
one NVTX range per step, a cudaStreamSynchronize with its sync record every
64 steps, and OS runtime calls (not mapped) as many as kernels.
"""
import argparse
import sqlite3

ap = argparse.ArgumentParser()
ap.add_argument("--kernels", type=int, default=1000000)
ap.add_argument("--per-step", type=int, default=32)
ap.add_argument("-o", "--output", required=True)
a = ap.parse_args()

PID, TID = 4242, 4243
GTID, GPID = (PID << 24) | TID, PID << 24
con = sqlite3.connect(a.output)
con.executescript("""
PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER,
  graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  smCount INTEGER, clockRate INTEGER, totalMemory INTEGER, l2CacheSize INTEGER, uuid TEXT,
  cuDevice INTEGER);
CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
  nestingLevel INTEGER, callchainId INTEGER NOT NULL);
""")
names = ["cudaLaunchKernel_v7000", "cudaStreamSynchronize_v3020", "main", "ioctl"]
kern = [f"void decode_kernel_{i}<float, {64 * (i + 1)}>(float const*, float*, int)"
        for i in range(a.per_step)]
con.executemany("INSERT INTO StringIds VALUES (?, ?)",
                list(enumerate(names + kern, start=1)))
con.execute("INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', 'synthetic')")
con.execute("INSERT INTO ThreadNames VALUES (3, 0, ?)", (GTID,))
con.execute("INSERT INTO PROCESSES VALUES (?, ?, 'python3')", (GPID, PID))
con.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'NVIDIA H200', 132, 1980000000,"
            " 150000000000, 62914560, 'GPU-x', 0)")
con.execute("INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1765000000000000000, '', '')")


def rows():
    t, corr = 1000000, 1
    api, k, sync, nvtx, osrt = [], [], [], [], []
    steps = a.kernels // a.per_step
    for s in range(steps):
        step_start = t
        for i in range(a.per_step):
            api.append((t, t + 2500, 0, GTID, corr, 1, 0, None))
            osrt.append((t + 100, t + 300, 0, GTID, 4, 0, 0, 0))
            k.append((t + 4000, t + 6000, 0, 1, 7, corr, GPID, 5 + i, 5 + i, None, 0, 0, 32,
                      64, 1, 1, 128, 1, 1, 0, 0, 0, 0, corr, 0, 0, 0))
            t += 3000
            corr += 1
        if s % 64 == 63:
            api.append((t, t + 9000, 0, GTID, corr, 2, 0, None))
            sync.append((t + 100, t + 8900, 0, 1, 7, corr, GPID, 3, 4294967295))
            corr += 1
            t += 9500
        nvtx.append((step_start, t, 59, None, None, None, "decode step", GTID, None, None, 0))
        if len(k) >= 100000:
            yield api, k, sync, nvtx, osrt
            api, k, sync, nvtx, osrt = [], [], [], [], []
    yield api, k, sync, nvtx, osrt


for api, k, sync, nvtx, osrt in rows():
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", api)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
                    " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", k)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (?,?,?,?,?,?,?,?,?)",
                    sync)
    con.executemany("INSERT INTO NVTX_EVENTS VALUES (?,?,?,?,?,?,?,?,?,?,?)", nvtx)
    con.executemany("INSERT INTO OSRT_API VALUES (?,?,?,?,?,?,?,?)", osrt)
con.commit()
con.close()
