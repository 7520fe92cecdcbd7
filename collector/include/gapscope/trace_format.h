/*
 * trace_format.h - the gapscope trace database contract (schema v2; v1 traces
 * stay readable).
 *
 * The collector writes this format and the viewer reads it; this header and
 * schema.c are its single owner. It holds the schema version, the SQL that
 * creates the tables, and the numeric codes stored in the tables. It does not
 * depend on CUDA: codes that mirror CUPTI enums are repeated here (with the
 * same values) so that the viewer builds on machines without the toolkit.
 *
 * Every time in the database is in nanoseconds on CUPTI's clock
 * (cuptiGetTimestamp). meta holds the offsets to CLOCK_REALTIME and
 * CLOCK_MONOTONIC so host-side events can be aligned.
 */
#ifndef GAPSCOPE_TRACE_FORMAT_H
#define GAPSCOPE_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* 2: graph_runs (graph-level recording: one row per graph launch, no kernel
 * rows for its nodes) and the call-site tables. A v1 reader would take a
 * graph-level trace's missing kernels for idle GPU, so v1 readers refuse v2.
 * 3: capture_windows (recorded only between cudaProfilerStart and
 * cudaProfilerStop: `record --capture-range cudaProfilerApi`). A v2 reader
 * would take the time between windows for idle GPU, so only such traces are
 * written as v3 (meta capture_range names the mode); the others stay v2 and
 * older viewers keep reading them. GS_SCHEMA_VERSION is the newest one
 * written and read. */
#define GS_SCHEMA_VERSION 3
#define GS_SCHEMA_VERSION_PLAIN 2	    /* a trace without capture windows */
#define GS_SQLITE_APPLICATION_ID 0x47415053 /* "GAPS", PRAGMA application_id */

/* meta rank, world_size, rank_source: which process of a multi-process job
 * a trace is (docs/schema.md). The collector takes the rank from the first
 * of GS_RANK_ENV_VARS that holds a whole number (0 or more) and the world
 * size from the variable at the same place in GS_WORLD_SIZE_ENV_VARS, and
 * names the rank's variable in rank_source ("env.RANK"); it records every
 * one of them as meta env.NAME too. Traces recorded before 2026-12-07 have
 * only the env.NAME rows: readers take the rank from them, in this order.
 * A trace imported from torch.profiler takes both from Kineto's
 * distributedInfo (rank_source "distributedInfo"). */
#define GS_RANK_ENV_VARS "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK"
#define GS_WORLD_SIZE_ENV_VARS                                                                     \
	"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "LOCAL_WORLD_SIZE"
#define GS_RANK_ENV_N 5

/* api_calls.api */
enum gs_api_kind {
	GS_API_RUNTIME = 1,
	GS_API_DRIVER = 2,
};

/* memcpys.copy_kind: same values as CUpti_ActivityMemcpyKind */
enum gs_copy_kind {
	GS_COPY_UNKNOWN = 0,
	GS_COPY_HTOD = 1,
	GS_COPY_DTOH = 2,
	GS_COPY_HTOA = 3,
	GS_COPY_ATOH = 4,
	GS_COPY_ATOA = 5,
	GS_COPY_ATOD = 6,
	GS_COPY_DTOA = 7,
	GS_COPY_DTOD = 8,
	GS_COPY_HTOH = 9,
	GS_COPY_PTOP = 10,
};

/* memcpys.src_kind / dst_kind, memsets.mem_kind: same values as
 * CUpti_ActivityMemoryKind */
enum gs_mem_kind {
	GS_MEM_UNKNOWN = 0,
	GS_MEM_PAGEABLE = 1,
	GS_MEM_PINNED = 2,
	GS_MEM_DEVICE = 3,
	GS_MEM_ARRAY = 4,
	GS_MEM_MANAGED = 5,
	GS_MEM_DEVICE_STATIC = 6,
	GS_MEM_MANAGED_STATIC = 7,
};

/* syncs.kind. 1..4 are CUPTI's explicit synchronization types (same values as
 * CUpti_ActivitySynchronizationType); 16.. are implicit synchronizations the
 * collector recognises from API calls (syncs.implicit = 1, reason says why). */
enum gs_sync_kind {
	GS_SYNC_UNKNOWN = 0,
	GS_SYNC_EVENT = 1,             /* cudaEventSynchronize */
	GS_SYNC_STREAM_WAIT_EVENT = 2, /* cudaStreamWaitEvent (GPU-side wait) */
	GS_SYNC_STREAM = 3,            /* cudaStreamSynchronize */
	GS_SYNC_CONTEXT = 4,           /* cudaDeviceSynchronize / cuCtxSynchronize */
	GS_SYNC_IMPLICIT_MEMCPY = 16,    /* synchronous (non-Async) copy */
	GS_SYNC_IMPLICIT_PAGEABLE = 17,  /* Async copy from/to pageable host memory */
	GS_SYNC_IMPLICIT_MEMSET = 18,    /* cudaMemset on host-visible memory */
	GS_SYNC_IMPLICIT_ALLOC = 19,     /* cudaMalloc/cudaFree & twins in steady state */
	GS_SYNC_IMPLICIT_DEVICE_WIDE = 20, /* cudaDeviceSetLimit and other device-wide calls */
	GS_SYNC_IMPLICIT_LEGACY_STREAM = 21, /* legacy default stream serialising others */
};

/* api_stacks.reason: why the collector took the call's site */
enum gs_callsite_reason {
	GS_CS_WHY_BLOCKING = 1,    /* explicit or implicit sync, at API entry */
	GS_CS_WHY_SLOW_COPY = 2,   /* an async host copy that blocked (at API exit) */
	GS_CS_WHY_LATE_LAUNCH = 3, /* a launch after a host pause (GAPSCOPE_CALLSITES=2) */
	GS_CS_WHY_OFF_CPU = 4,	   /* not an api_stacks reason: the sampler's off-CPU
				      sample of a thread (table wait_samples) */
};

/* nvtx.kind */
enum gs_nvtx_kind {
	GS_NVTX_RANGE = 0, /* push/pop or start/end range: [start, end] */
	GS_NVTX_MARK = 1,  /* instantaneous: end = start */
};

/* graph_nodes.type: same values as CUgraphNodeType */
enum gs_graph_node_type {
	GS_NODE_KERNEL = 0,
	GS_NODE_MEMCPY = 1,
	GS_NODE_MEMSET = 2,
	GS_NODE_HOST = 3,
	GS_NODE_GRAPH = 4, /* child graph */
	GS_NODE_EMPTY = 5,
	GS_NODE_WAIT_EVENT = 6,
	GS_NODE_EVENT_RECORD = 7,
	GS_NODE_EXT_SEMAS_SIGNAL = 8,
	GS_NODE_EXT_SEMAS_WAIT = 9,
	GS_NODE_MEM_ALLOC = 10,
	GS_NODE_MEM_FREE = 11,
	GS_NODE_BATCH_MEM_OP = 12,
	GS_NODE_CONDITIONAL = 13,
};

/* graph_node_updates.kind: which CUPTI resource callback reported it */
enum gs_node_update_kind {
	GS_NODE_UPDATE_NODE = 1,   /* CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED */
	GS_NODE_UPDATE_PARAMS = 2, /* CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS: in an exec */
};

/* The SQL that creates an empty schema-v1 database (tables only; indexes
 * are in gs_schema_index_sql and are built at finalize, after bulk load). */
extern const char gs_schema_sql[];
extern const char gs_schema_index_sql[];

/* Create the tables and write meta.schema_version (GS_SCHEMA_VERSION_PLAIN;
 * a recording with capture windows then writes GS_SCHEMA_VERSION). Returns 0
 * or a negative SQLite error code. */
int gs_schema_create(sqlite3 *db);

/* 1 when a trace may lack table `name`: tables added after the first traces
 * of their schema version (v1: events, graph_node_updates) and the tables of
 * v2 (absent from v1 traces). Readers treat such a missing table as empty. */
int gs_schema_table_optional(const char *name);

/* 1 if column col of table may be absent from a trace of this schema
 * version (added later: api_stacks.capture_start/capture_end), else 0. */
int gs_schema_column_optional(const char *table, const char *col);

/* An API call that synchronises the device whatever its arguments (name
 * without CUPTI's version suffix, syncs.kind, the reason stored). */
struct gs_implicit_api {
	const char *name;
	int kind;
	const char *reason;
};
/* The list (schema.c), *n entries. */
const struct gs_implicit_api *gs_implicit_apis(size_t *n);

/* Reasons of the record-derived implicit syncs (also in docs/collector.md): the
 * collector and `gapscope import` store the same texts. */
#define GS_REASON_SYNC_MEMCPY "cudaMemcpy is synchronous: host waits for the device"
#define GS_REASON_PAGEABLE "cudaMemcpyAsync from pageable host memory is staged synchronously"
#define GS_REASON_LEGACY_STREAM                                                                    \
	"work on the legacy default stream waits for the work in flight on the context's other "   \
	"streams (use a stream created with cudaStreamNonBlocking, or per-thread default streams)"
#define GS_REASON_MEMSET "cudaMemset on host-visible (pinned or managed) memory is synchronous"

/* The implicit syncs that the collector derives at finalize and `gapscope
 * import` the same way (collector/schema.c), after the rows and indexes:
 * synchronous copies and async copies touching pageable memory (kinds 16,
 * 17) and synchronous memsets of host-visible memory (18), one per op over
 * its call, with the reasons' strings ids; then the calls named in
 * temp.implicit_api(name_id, kind, reason_id), created by
 * gs_derive_api_tables for the caller to fill (allocations only after the
 * first kernel launch). Each returns 0 or an SQLite error code. */
int gs_derive_copy_syncs(sqlite3 *db, int64_t r_memcpy, int64_t r_pageable, int64_t r_memset);
int gs_derive_api_tables(sqlite3 *db);
int gs_derive_api_syncs(sqlite3 *db);

/* Kind 21 (GS_SYNC_IMPLICIT_LEGACY_STREAM): an operation X on a context's
 * legacy default (NULL) stream cannot start before the work already issued
 * to the context's other blocking streams has finished. Creates the
 * temporary tables temp.legacy(context PRIMARY KEY, stream), the contexts'
 * NULL streams, and temp.nonblocking(context, stream), the streams created
 * non-blocking, for the caller to fill before gs_derive_legacy_stream().
 * Both return 0 or an SQLite error code. */
int gs_derive_legacy_tables(sqlite3 *db);
/* One implicit sync row (reason strings.id reason_id) per API call that put
 * work on a legacy stream while work of another blocking stream of its
 * context was in flight (see collector/schema.c). Needs the indexes. */
int gs_derive_legacy_stream(sqlite3 *db, int64_t reason_id);

/* Length of an API name without CUPTI's version suffix ("_v" and digits at
 * the end): "cudaLaunchKernel_v7000" -> 16, "cuMemAlloc_v2" -> 10; variants
 * such as "_ptsz", or a "_v2" before the suffix, stay. The plain name is
 * how traces store it (the collector from cuptiGetCallbackName, `gapscope
 * import` from Nsight Systems' names). */
size_t gs_api_plain_len(const char *name);

/* Build the indexes (idempotent). Returns 0 or a negative SQLite error code. */
int gs_schema_create_indexes(sqlite3 *db);

/* Read meta.schema_version. Returns the version (>0), or a negative value:
 * GS_SCHEMA_ERR_NOT_GAPSCOPE when the file is SQLite but holds no gapscope
 * meta table, GS_SCHEMA_ERR_CORRUPT when it cannot be read. */
#define GS_SCHEMA_ERR_NOT_GAPSCOPE (-1000)
#define GS_SCHEMA_ERR_CORRUPT (-1001)
int gs_schema_read_version(sqlite3 *db);

/* The trace name a process takes when another live recording holds the
 * one it was given (several CUDA processes under one fixed output name):
 * "-<tag>" inserted before the extension of the last path component
 * ("run.db" -> "run-1234.db", "out/trace" -> "out/trace-1234"). The
 * collector's tag is its pid; `gapscope record` passes a glob to find
 * them. Returns 0, or -1 when the result does not fit in outlen bytes. */
int gs_trace_alt_path(const char *path, const char *tag, char *out, size_t outlen);

/* Printable names for codes (never NULL). */
const char *gs_sync_kind_name(int kind);
const char *gs_copy_kind_name(int kind);
const char *gs_mem_kind_name(int kind);
const char *gs_graph_node_type_name(int type);

#endif
