/*
 * test_collector_decode.c - CUPTI activity records -> database rows
 * (collector/decode.c + writer.c + pipeline.c), without a GPU.
 *
 * Each test fills real CUPTI record structs (CUDA 13 layouts from
 * cupti_activity.h) by hand, runs them through the decode path the collector
 * uses, finalizes, and reads the rows back with SQL, comparing with values
 * written out here.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "internal.h"

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-decode-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	gs_warnings_reset();
	return 0;
}

static int teardown(void **state)
{
	char p[160];
	(void)state;
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	rmdir(dir);
	return 0;
}

static const char *names(int api, uint32_t cbid, void *ctx)
{
	(void)ctx;
	if (api == GS_API_RUNTIME && cbid == 211)
		return "cudaLaunchKernel_v7000";
	if (api == GS_API_RUNTIME && cbid == 20)
		return "cudaMalloc_v3020";
	if (api == GS_API_DRIVER && cbid == 307)
		return "cuLaunchKernel";
	if (api == GS_API_RUNTIME && cbid == 131)
		return "cudaStreamSynchronize_v3020";
	if (api == GS_API_RUNTIME && cbid == 41)
		return "cudaMemcpyAsync_v3020";
	if (api == GS_API_RUNTIME && cbid == 31)
		return "cudaMemcpy_v3020";
	if (api == GS_API_RUNTIME && cbid == 36)
		return "cudaMemset_v3020";
	return NULL;
}

/* A decoder on a fresh database. */
struct fx {
	struct gs_writer *w;
	struct gs_decoder d;
	uint8_t buf[65536];
	size_t used;
};

static void fx_open(struct fx *f, int latency)
{
	char err[256];
	memset(f, 0, sizeof(*f));
	if (gs_writer_open(&f->w, path, 0, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	gs_decoder_init(&f->d, f->w, latency, gs_synthetic_next, names, NULL);
}

static void fx_add(struct fx *f, const void *rec, size_t size)
{
	f->used = gs_synthetic_append(f->buf, sizeof(f->buf), f->used, rec, size);
	assert_int_not_equal(f->used, 0);
}

/* Decode what was added as one batch (one buffer, one transaction). */
static size_t fx_batch(struct fx *f)
{
	size_t n;
	gs_writer_begin(f->w);
	n = gs_decode_buffer(&f->d, f->buf, f->used);
	gs_decoder_flush_nvtx(&f->d, 0, 0);
	gs_writer_commit(f->w);
	f->used = 0;
	return n;
}

static sqlite3 *fx_finish(struct fx *f, uint64_t stop)
{
	sqlite3 *db;
	gs_writer_begin(f->w);
	gs_decoder_flush_nvtx(&f->d, 1, stop);
	gs_writer_commit(f->w);
	gs_decoder_free(&f->d);
	assert_int_equal(gs_writer_finalize(f->w, stop), 0);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

static char *q_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v ? v : strdup("(null)");
}

static void assert_text(sqlite3 *db, const char *sql, const char *want)
{
	char *got = q_text(db, sql);
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n got \"%s\"\nwant \"%s\"", sql, got, want);
	free(got);
}

/* ------------------------------------------------------------------ */

static CUpti_ActivityKernel10 kernel_rec(void)
{
	CUpti_ActivityKernel10 k;
	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.registersPerThread = 40;
	k.start = 5000;
	k.end = 7500;
	k.deviceId = 0;
	k.contextId = 1;
	k.streamId = 13;
	k.gridX = 977;
	k.gridY = 2;
	k.gridZ = 1;
	k.blockX = 512;
	k.blockY = 1;
	k.blockZ = 1;
	k.staticSharedMemory = 1024;
	k.dynamicSharedMemory = 2048;
	k.localMemoryPerThread = 24;
	k.correlationId = 42;
	k.name = "_Z5saxpyIfEviT_PKS0_PS0_";
	k.queued = 4000;
	k.submitted = 4500;
	k.launchType = 0;
	k.graphNodeId = 77;
	k.graphId = 9;
	k.isDeviceLaunched = 0;
	return k;
}

static void test_kernel10_all_columns(void **state)
{
	struct fx f;
	CUpti_ActivityKernel10 k = kernel_rec();
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	fx_add(&f, &k, sizeof(k));
	assert_int_equal(fx_batch(&f), 1);
	db = fx_finish(&f, 10000);
	assert_text(
	    db,
	    "SELECT printf('%d %d %d %d %d %d %s %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
	    "%d %d', start, end, device, context, stream, correlation_id, s.value, grid_x, "
	    "grid_y, grid_z, block_x, block_y, block_z, registers, static_shared_bytes, "
	    "dynamic_shared_bytes, local_memory_bytes, graph_id, graph_node_id, queued IS "
	    "NULL, submitted IS NULL, launch_type, is_device_launched) FROM kernels k JOIN "
	    "strings s ON s.id = k.name_id",
	    "5000 7500 0 1 13 42 _Z5saxpyIfEviT_PKS0_PS0_ 977 2 1 512 1 1 40 1024 2048 24 9 "
	    "77 1 1 0 0");
	sqlite3_close(db);
}

static void test_kernel10_latency_timestamps(void **state)
{
	struct fx f;
	CUpti_ActivityKernel10 k = kernel_rec();
	sqlite3 *db;
	(void)state;

	fx_open(&f, 1);
	fx_add(&f, &k, sizeof(k));
	k.correlationId = 43;
	k.queued = 0; /* CUPTI_TIMESTAMP_UNKNOWN for this one */
	fx_add(&f, &k, sizeof(k));
	fx_batch(&f);
	db = fx_finish(&f, 10000);
	assert_text(db,
		    "SELECT printf('%d %d', queued, submitted) FROM kernels WHERE "
		    "correlation_id = 42",
		    "4000 4500");
	assert_text(db,
		    "SELECT queued IS NULL AND submitted IS NULL FROM kernels WHERE "
		    "correlation_id = 43",
		    "1");
	sqlite3_close(db);
}

static void test_memcpy6_memset4_p2p(void **state)
{
	struct fx f;
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityMemcpyPtoP4 p;
	CUpti_ActivityMemset4 s;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	m.bytes = 3u << 20;
	m.start = 100;
	m.end = 900;
	m.deviceId = 1;
	m.contextId = 2;
	m.streamId = 14;
	m.correlationId = 50;
	m.graphId = 0;
	fx_add(&f, &m, sizeof(m));
	m.flags = 0; /* a synchronous one */
	m.correlationId = 51;
	fx_add(&f, &m, sizeof(m));

	memset(&p, 0, sizeof(p));
	p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	p.srcKind = p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	p.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	p.bytes = 4096;
	p.start = 1000;
	p.end = 1100;
	p.deviceId = 0;
	p.srcDeviceId = 0;
	p.dstDeviceId = 1;
	p.correlationId = 52;
	fx_add(&f, &p, sizeof(p));

	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.value = 0xab;
	s.bytes = 8192;
	s.start = 2000;
	s.end = 2100;
	s.deviceId = 1;
	s.contextId = 2;
	s.streamId = 14;
	s.correlationId = 53;
	s.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
	s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
	s.graphNodeId = 5;
	s.graphId = 6;
	fx_add(&f, &s, sizeof(s));
	assert_int_equal(fx_batch(&f), 4);
	db = fx_finish(&f, 3000);
	assert_text(
	    db,
	    "SELECT group_concat(printf('%d %d %d %d %d %d %d %d %d %d %d %s %s', start, end, "
	    "device, context, stream, correlation_id, bytes, copy_kind, src_kind, dst_kind, "
	    "is_async, IFNULL(src_device, 'N'), IFNULL(dst_device, 'N')), '|') FROM (SELECT * "
	    "FROM memcpys ORDER BY correlation_id)",
	    "100 900 1 2 14 50 3145728 2 3 1 1 N N|100 900 1 2 14 51 3145728 2 3 1 0 N N|"
	    "1000 1100 0 0 0 52 4096 10 3 3 1 0 1");
	assert_text(db,
		    "SELECT printf('%d %d %d %d %d %d %d %d %d %d %d %d', start, end, device, "
		    "context, stream, correlation_id, bytes, value, mem_kind, is_async, graph_id, "
		    "graph_node_id) FROM memsets",
		    "2000 2100 1 2 14 53 8192 171 5 1 6 5");
	sqlite3_close(db);
}

/* The implicit syncs of copies and memsets, derived at finalize
 * (gs_derive_copy_syncs, collector/schema.c, which `gapscope import` runs
 * too), one per op over its API call: the async DtoH into pageable memory
 * (kind 17, staged), the synchronous DtoH (16), the synchronous memset of
 * pinned memory (18); not the async copy between device buffers, nor the
 * synchronous memset of device memory. */
static void test_implicit_syncs_of_copies_and_memsets(void **state)
{
	struct fx f;
	CUpti_ActivityAPI a;
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityMemset4 s;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.processId = 1;
	a.threadId = 2;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.deviceId = 0;
	m.contextId = 1;
	m.streamId = 7;
	m.bytes = 4096;
	/* cudaMemcpyAsync DtoH into pageable memory [100, 300], copy [150, 250] */
	a.cbid = 41, a.start = 100, a.end = 300, a.correlationId = 70;
	fx_add(&f, &a, sizeof(a));
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	m.start = 150, m.end = 250, m.correlationId = 70;
	fx_add(&f, &m, sizeof(m));
	/* cudaMemcpy DtoH [400, 600] */
	a.cbid = 31, a.start = 400, a.end = 600, a.correlationId = 71;
	fx_add(&f, &a, sizeof(a));
	m.flags = 0;
	m.start = 450, m.end = 550, m.correlationId = 71;
	fx_add(&f, &m, sizeof(m));
	/* cudaMemcpyAsync DtoD [700, 710]: no sync */
	a.cbid = 41, a.start = 700, a.end = 710, a.correlationId = 72;
	fx_add(&f, &a, sizeof(a));
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	m.start = 720, m.end = 730, m.correlationId = 72;
	fx_add(&f, &m, sizeof(m));
	/* cudaMemset on pinned memory [800, 900], on device memory [1000, 1100] */
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	s.deviceId = 0;
	s.contextId = 1;
	s.streamId = 7;
	s.bytes = 512;
	a.cbid = 36, a.start = 800, a.end = 900, a.correlationId = 73;
	fx_add(&f, &a, sizeof(a));
	s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	s.start = 850, s.end = 860, s.correlationId = 73;
	fx_add(&f, &s, sizeof(s));
	a.start = 1000, a.end = 1100, a.correlationId = 74;
	fx_add(&f, &a, sizeof(a));
	s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	s.start = 1050, s.end = 1060, s.correlationId = 74;
	fx_add(&f, &s, sizeof(s));
	fx_batch(&f);
	db = fx_finish(&f, 2000);
	assert_text(db,
		    "SELECT group_concat(printf('%d %d %d %d %s %d %d', start, end, kind, "
		    "implicit, (SELECT value FROM strings WHERE id = api_name_id), "
		    "correlation_id, tid), '|') FROM (SELECT * FROM syncs ORDER BY start)",
		    "100 300 17 1 cudaMemcpyAsync 70 2|400 600 16 1 cudaMemcpy 71 2|"
		    "800 900 18 1 cudaMemset 73 2");
	sqlite3_close(db);
}

static void test_api_records_and_names(void **state)
{
	struct fx f;
	CUpti_ActivityAPI a;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 211;
	a.start = 10;
	a.end = 30;
	a.processId = 700;
	a.threadId = 701;
	a.correlationId = 1;
	a.returnValue = 0;
	fx_add(&f, &a, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	a.cbid = 307;
	a.start = 12;
	a.end = 28;
	fx_add(&f, &a, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 211; /* the same name again: interned once */
	a.start = 40;
	a.end = 50;
	a.correlationId = 2;
	a.returnValue = 700; /* cudaErrorIllegalAddress */
	fx_add(&f, &a, sizeof(a));
	a.cbid = 4000; /* beyond the name cache, and unknown to the name source */
	a.start = 60;
	a.end = 61;
	a.correlationId = 3;
	a.returnValue = 0;
	fx_add(&f, &a, sizeof(a));
	assert_int_equal(fx_batch(&f), 4);
	db = fx_finish(&f, 100);
	assert_text(db,
		    "SELECT group_concat(printf('%d %d %s %d %d %d %d %d %d', api, cbid, s.value, "
		    "start, end, pid, tid, correlation_id, return_code), '|') FROM (SELECT * FROM "
		    "api_calls ORDER BY start) a JOIN strings s ON s.id = a.name_id",
		    "1 211 cudaLaunchKernel 10 30 700 701 1 0|2 307 cuLaunchKernel 12 28 700 "
		    "701 1 0|1 211 cudaLaunchKernel 40 50 700 701 2 700|1 4000 runtime API "
		    "4000 60 61 700 701 3 0");
	assert_text(db, "SELECT COUNT(*) FROM strings WHERE value = 'cudaLaunchKernel'", "1");
	assert_text(db, "SELECT printf('%d %d', tid, pid) FROM threads", "701 700");
	sqlite3_close(db);
}

/* Under a capture range the driver's launch records come all along and the
 * decoder keeps those that began inside a window (here [100, 200]); runtime
 * records are not filtered (their kind is off outside the windows). */
static int keep_100_200(uint64_t start)
{
	return start >= 100 && start <= 200;
}

static void test_driver_calls_outside_capture_windows_dropped(void **state)
{
	struct fx f;
	CUpti_ActivityAPI a;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	f.d.keep_driver_call = keep_100_200;
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
	a.cbid = 307;
	a.start = 50; /* before the window: dropped */
	a.end = 60;
	a.correlationId = 1;
	fx_add(&f, &a, sizeof(a));
	a.start = 150; /* inside: kept */
	a.end = 260;
	a.correlationId = 2;
	fx_add(&f, &a, sizeof(a));
	a.start = 250; /* after: dropped */
	a.end = 270;
	a.correlationId = 3;
	fx_add(&f, &a, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 211;
	a.start = 40; /* runtime: kept whatever its time */
	a.end = 45;
	a.correlationId = 4;
	fx_add(&f, &a, sizeof(a));
	assert_int_equal(fx_batch(&f), 4);
	db = fx_finish(&f, 300);
	assert_text(db,
		    "SELECT group_concat(printf('%d %d %d', api, start, correlation_id), '|') "
		    "FROM (SELECT * FROM api_calls ORDER BY start)",
		    "1 40 4|2 150 2");
	sqlite3_close(db);
}

/* The plain API name: CUPTI's "_v<digits>" suffix goes, variants stay
 * (lengths counted by hand). */
static void test_api_plain_len(void **state)
{
	(void)state;
	assert_int_equal(gs_api_plain_len("cudaLaunchKernel_v7000"), 16);
	assert_int_equal(gs_api_plain_len("cudaStreamIsCapturing_ptsz_v10000"), 26);
	assert_int_equal(gs_api_plain_len("cudaStreamGetCaptureInfo_v2_v11030"), 27);
	assert_int_equal(gs_api_plain_len("cuLaunchKernel"), 14);
	assert_int_equal(gs_api_plain_len("cudaGetDevice_vX"), 16);
	assert_int_equal(gs_api_plain_len("cudaFoo_v"), 9);
}

static void test_sync2_explicit(void **state)
{
	struct fx f;
	CUpti_ActivitySynchronization2 s;
	CUpti_ActivityAPI a;
	CUpti_ActivityKernel10 k = kernel_rec();
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	fx_add(&f, &k, sizeof(k)); /* context 1 runs on device 0 */
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 131;
	a.start = 8000;
	a.end = 9000;
	a.processId = 700;
	a.threadId = 702;
	a.correlationId = 60;
	fx_add(&f, &a, sizeof(a));
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
	s.start = 8010;
	s.end = 8990;
	s.correlationId = 60;
	s.contextId = 1;
	s.streamId = 13;
	s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	fx_add(&f, &s, sizeof(s));
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
	s.start = 9500;
	s.end = 9600;
	s.correlationId = 61; /* no API record for this one */
	s.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	s.cudaEventId = 4;
	fx_add(&f, &s, sizeof(s));
	fx_batch(&f);
	db = fx_finish(&f, 10000);
	assert_text(
	    db,
	    "SELECT group_concat(printf('%d %d %d %d %s %s %d %s %s %d %s %s', start, end, "
	    "kind, implicit, IFNULL(reason_id, 'N'), IFNULL((SELECT value FROM strings WHERE "
	    "id = api_name_id), 'N'), device, IFNULL(stream, 'N'), IFNULL(event, 'N'), "
	    "correlation_id, IFNULL(pid, 'N'), IFNULL(tid, 'N')), '|') FROM (SELECT * FROM "
	    "syncs ORDER BY start)",
	    "8010 8990 3 0 N cudaStreamSynchronize 0 13 N 60 700 702|"
	    "9500 9600 1 0 N N 0 N 4 61 N N");
	sqlite3_close(db);
}

/* CUDA event records: where each cudaEventRecord happened, with the record
 * call's start filled at finalize, so that a stream-wait-event ties to the
 * stream of the latest record before it (the join docs/schema.md shows). */
static CUpti_ActivityAPI api_rec(uint32_t corr, uint64_t start)
{
	CUpti_ActivityAPI a;
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 999; /* any: the join uses correlation ids */
	a.start = start;
	a.end = start + 100;
	a.processId = 700;
	a.threadId = 702;
	a.correlationId = corr;
	return a;
}

static void test_cuda_event2_records_and_wait_join(void **state)
{
	struct fx f;
	CUpti_ActivityCudaEvent2 e;
	CUpti_ActivitySynchronization2 s;
	CUpti_ActivityAPI a;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	memset(&e, 0, sizeof(e));
	e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
	e.eventId = 4;
	e.streamId = 13;
	e.contextId = 1;
	e.deviceId = 0;
	e.correlationId = 70;
	fx_add(&f, &e, sizeof(e));
	e.streamId = 14; /* the same event recorded again, on another stream */
	e.correlationId = 72;
	fx_add(&f, &e, sizeof(e));
	e.eventId = 5; /* no API record: start stays NULL */
	e.streamId = 15;
	e.deviceId = 1;
	e.contextId = 2;
	e.correlationId = 80;
	fx_add(&f, &e, sizeof(e));
	a = api_rec(70, 1000);
	fx_add(&f, &a, sizeof(a));
	a = api_rec(71, 2000);
	fx_add(&f, &a, sizeof(a));
	a = api_rec(72, 3000);
	fx_add(&f, &a, sizeof(a));
	a = api_rec(73, 4000);
	fx_add(&f, &a, sizeof(a));
	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
	s.contextId = 1;
	s.streamId = 20;
	s.cudaEventId = 4;
	s.start = 2010;
	s.end = 2050;
	s.correlationId = 71;
	fx_add(&f, &s, sizeof(s));
	s.start = 4010;
	s.end = 4050;
	s.correlationId = 73;
	fx_add(&f, &s, sizeof(s));
	assert_int_equal(fx_batch(&f), 9);
	assert_int_equal(f.d.skipped, 0);
	db = fx_finish(&f, 10000);
	assert_text(db,
		    "SELECT group_concat(printf('%d s%d d%d c%d k%d t%s', event, stream, device,"
		    " context, correlation_id, IFNULL(start, 'N')), '|')"
		    " FROM (SELECT * FROM events ORDER BY id)",
		    "4 s13 d0 c1 k70 t1000|4 s14 d0 c1 k72 t3000|5 s15 d1 c2 k80 tN");
	/* docs/schema.md's query: the wait at 2000 is on the record at 1000
	 * (stream 13), the one at 4000 on the record at 3000 (stream 14). */
	assert_text(db,
		    "SELECT group_concat(printf('%d<-%d', waiting_stream, recorded_on), ' ') FROM ("
		    "SELECT y.stream AS waiting_stream,"
		    " (SELECT e.stream FROM events e"
		    "  WHERE e.event = y.event AND e.start <= a.start"
		    "  ORDER BY e.start DESC LIMIT 1) AS recorded_on, y.start"
		    " FROM syncs y"
		    " JOIN api_calls a ON a.correlation_id = y.correlation_id AND a.api = 1"
		    " WHERE y.kind = 2 ORDER BY y.start)",
		    "20<-13 20<-14");
	sqlite3_close(db);
}

/* Kind 21 (legacy default stream), from context/stream records + ops. */
static void add_kernel(struct fx *f, uint32_t ctx, uint32_t stream, uint32_t corr, uint64_t start,
		       uint64_t end, uint32_t graph)
{
	CUpti_ActivityKernel10 k = kernel_rec();
	k.contextId = ctx;
	k.streamId = stream;
	k.correlationId = corr;
	k.start = start;
	k.end = end;
	k.graphId = graph;
	k.graphNodeId = graph ? 500 + corr : 0;
	fx_add(f, &k, sizeof(k));
}

static void add_api(struct fx *f, uint32_t corr, uint64_t start)
{
	CUpti_ActivityAPI a = api_rec(corr, start);
	a.cbid = 211; /* cudaLaunchKernel */
	fx_add(f, &a, sizeof(a));
}

static void test_legacy_default_stream_serialising(void **state)
{
	struct fx f;
	CUpti_ActivityContext3 c;
	CUpti_ActivityStream st;
	CUpti_ActivityMemcpy6 m;
	CUpti_ActivityMemset4 ms;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	memset(&c, 0, sizeof(c));
	c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	c.contextId = 1;
	c.deviceId = 0;
	c.nullStreamId = 7;
	fx_add(&f, &c, sizeof(c));
	memset(&st, 0, sizeof(st));
	st.kind = CUPTI_ACTIVITY_KIND_STREAM;
	st.contextId = 1;
	st.streamId = 30;
	st.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING;
	fx_add(&f, &st, sizeof(st));
	st.streamId = 20;
	st.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT;
	fx_add(&f, &st, sizeof(st));
	/* context 2 learns its NULL stream from a stream record */
	st.contextId = 2;
	st.streamId = 7;
	st.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL;
	fx_add(&f, &st, sizeof(st));

	/* Y1 on blocking stream 20 runs 1000..5000; X (corr 2) on the legacy
	 * stream is called at 2000 and starts at 5100: flagged. */
	add_kernel(&f, 1, 20, 1, 1000, 5000, 0);
	add_api(&f, 1, 900);
	add_kernel(&f, 1, 7, 2, 5100, 5200, 0);
	add_api(&f, 2, 2000);
	/* a graph kernel on the legacy stream while Y1 runs: not flagged */
	add_kernel(&f, 1, 7, 11, 5050, 5090, 3);
	add_api(&f, 11, 1500);
	/* Y2 on the non-blocking stream 30 runs 6000..9000; legacy launch at
	 * 6500: not flagged. Legacy launch at 10000, nothing in flight: not
	 * flagged. */
	add_kernel(&f, 1, 30, 3, 6000, 9000, 0);
	add_api(&f, 3, 5900);
	add_kernel(&f, 1, 7, 4, 6600, 6700, 0);
	add_api(&f, 4, 6500);
	add_kernel(&f, 1, 7, 5, 10100, 10200, 0);
	add_api(&f, 5, 10000);
	/* a copy on stream 20 (10400..12000) in flight when a memset on the
	 * legacy stream is called at 10500: flagged (Y from memcpys). */
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	m.contextId = 1;
	m.streamId = 20;
	m.correlationId = 6;
	m.start = 10400;
	m.end = 12000;
	fx_add(&f, &m, sizeof(m));
	add_api(&f, 6, 10300);
	memset(&ms, 0, sizeof(ms));
	ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	ms.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
	ms.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	ms.contextId = 1;
	ms.streamId = 7;
	ms.correlationId = 7;
	ms.start = 12100;
	ms.end = 12200;
	fx_add(&f, &ms, sizeof(ms));
	add_api(&f, 7, 10500);
	/* context 2's stream 21 runs 12900..14000: it does not hold back
	 * context 1's legacy launch at 13000, but does context 2's at 13500.
	 * Y3 on stream 20 issued after the launch at 13000 starts after it:
	 * not a cause. */
	add_kernel(&f, 2, 21, 10, 12900, 14000, 0);
	add_api(&f, 10, 12800);
	add_kernel(&f, 1, 7, 8, 13100, 13200, 0);
	add_api(&f, 8, 13000);
	add_kernel(&f, 1, 20, 9, 13300, 13400, 0);
	add_api(&f, 9, 13050);
	add_kernel(&f, 2, 7, 12, 14100, 14200, 0);
	add_api(&f, 12, 13500);
	fx_batch(&f);
	db = fx_finish(&f, 20000);
	assert_text(
	    db,
	    "SELECT group_concat(printf('%d-%d c%d s%d k%d t%d %s', start, end, context,"
	    " stream, correlation_id, tid, (SELECT value FROM strings WHERE id ="
	    " api_name_id)), '|') FROM (SELECT * FROM syncs WHERE kind = 21 ORDER BY start)",
	    "2000-2100 c1 s7 k2 t702 cudaLaunchKernel|"
	    "10500-10600 c1 s7 k7 t702 cudaLaunchKernel|"
	    "13500-13600 c2 s7 k12 t702 cudaLaunchKernel");
	assert_text(db,
		    "SELECT DISTINCT s.value FROM syncs y JOIN strings s ON s.id = y.reason_id"
		    " WHERE y.kind = 21",
		    GS_REASON_LEGACY_STREAM);
	assert_text(db, "SELECT COUNT(*) FROM syncs WHERE kind = 21 AND implicit = 1", "3");
	assert_text(db,
		    "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT * FROM meta"
		    " WHERE key LIKE 'context.%' ORDER BY key)",
		    "context.1.null_stream=7 context.2.null_stream=7");
	sqlite3_close(db);
}

static CUpti_ActivityMarker2 marker(uint32_t id, CUpti_ActivityFlag flags, uint64_t ts,
				    const char *name, const char *domain)
{
	CUpti_ActivityMarker2 m;
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = flags;
	m.timestamp = ts;
	m.id = id;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = 700;
	m.objectId.pt.threadId = 705;
	m.name = name;
	m.domain = domain;
	return m;
}

static CUpti_ActivityMarkerData2 marker_data(uint32_t id, int argb, uint32_t color,
					     uint32_t category)
{
	CUpti_ActivityMarkerData2 d;
	memset(&d, 0, sizeof(d));
	d.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
	d.flags =
	    argb ? CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB : CUPTI_ACTIVITY_FLAG_MARKER_COLOR_NONE;
	d.id = id;
	d.color = color;
	d.category = category;
	return d;
}

static void test_marker2_ranges_and_marks(void **state)
{
	struct fx f;
	CUpti_ActivityMarker2 m;
	CUpti_ActivityMarkerData2 d;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	/* push/pop range with colour and category, in one buffer */
	m = marker(1, CUPTI_ACTIVITY_FLAG_MARKER_START, 100, "decode step <T=float>", NULL);
	fx_add(&f, &m, sizeof(m));
	d = marker_data(1, 1, 0xff336699u, 7);
	fx_add(&f, &d, sizeof(d));
	m = marker(1, CUPTI_ACTIVITY_FLAG_MARKER_END, 900, NULL, NULL);
	fx_add(&f, &m, sizeof(m));
	/* a mark in a named domain, no colour */
	m = marker(2, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 500, "checkpoint", "myapp");
	fx_add(&f, &m, sizeof(m));
	d = marker_data(2, 0, 0, 0);
	fx_add(&f, &d, sizeof(d));
	/* a start/end range whose END comes in the next buffer */
	m = marker(3, CUPTI_ACTIVITY_FLAG_MARKER_START, 600, "load", NULL);
	fx_add(&f, &m, sizeof(m));
	d = marker_data(3, 0, 0, 0);
	fx_add(&f, &d, sizeof(d));
	/* a range still open when recording stops */
	m = marker(4, CUPTI_ACTIVITY_FLAG_MARKER_START, 1500, "never closed", NULL);
	fx_add(&f, &m, sizeof(m));
	fx_batch(&f);
	m = marker(3, CUPTI_ACTIVITY_FLAG_MARKER_END, 1200, NULL, NULL);
	fx_add(&f, &m, sizeof(m));
	fx_batch(&f);
	db = fx_finish(&f, 2000);
	assert_text(
	    db,
	    "SELECT group_concat(printf('%d-%d k%d %s %s c%s %s %d %d', start, end, kind, "
	    "(SELECT value FROM strings WHERE id = text_id), IFNULL((SELECT value FROM "
	    "strings WHERE id = domain_id), 'N'), IFNULL(category, 'N'), CASE WHEN color IS NULL "
	    "THEN 'N' ELSE printf('%x', color) END, pid, tid), '|') FROM (SELECT * FROM nvtx ORDER "
	    "BY start)",
	    "100-900 k0 decode step <T=float> N c7 ff336699 700 705|"
	    "500-500 k1 checkpoint myapp c0 N 700 705|"
	    "600-1200 k0 load N c0 N 700 705|"
	    "1500-2000 k0 never closed N cN N 700 705");
	sqlite3_close(db);
}

/* Under a capture range a range whose END came while tracing was off (it
 * was popped after cudaProfilerStop) ends with the window it began in, not
 * with the recording: here windows [100, 200] and [400, 500]. */
static uint64_t windows_100_200_400_500(uint64_t t)
{
	return t >= 100 && t <= 200 ? 200 : t >= 400 && t <= 500 ? 500 : 0;
}

static void test_marker_left_open_ends_with_its_capture_window(void **state)
{
	struct fx f;
	CUpti_ActivityMarker2 m;
	CUpti_ActivityMarkerData2 d;
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	f.d.window_end = windows_100_200_400_500;
	m = marker(1, CUPTI_ACTIVITY_FLAG_MARKER_START, 150, "step 20", NULL);
	fx_add(&f, &m, sizeof(m));
	d = marker_data(1, 0, 0, 0);
	fx_add(&f, &d, sizeof(d));
	/* closed inside its window: as recorded */
	m = marker(2, CUPTI_ACTIVITY_FLAG_MARKER_START, 410, "closed", NULL);
	fx_add(&f, &m, sizeof(m));
	d = marker_data(2, 0, 0, 0);
	fx_add(&f, &d, sizeof(d));
	m = marker(2, CUPTI_ACTIVITY_FLAG_MARKER_END, 450, NULL, NULL);
	fx_add(&f, &m, sizeof(m));
	/* open in the last window, which the recording's end closed */
	m = marker(3, CUPTI_ACTIVITY_FLAG_MARKER_START, 480, "last", NULL);
	fx_add(&f, &m, sizeof(m));
	d = marker_data(3, 0, 0, 0);
	fx_add(&f, &d, sizeof(d));
	/* no window known for it: the recording's end, as without a range */
	m = marker(4, CUPTI_ACTIVITY_FLAG_MARKER_START, 700, "outside", NULL);
	fx_add(&f, &m, sizeof(m));
	d = marker_data(4, 0, 0, 0);
	fx_add(&f, &d, sizeof(d));
	fx_batch(&f);
	db = fx_finish(&f, 1000);
	assert_text(db,
		    "SELECT group_concat(printf('%d-%d %s', start, end, (SELECT value FROM strings "
		    "WHERE id = text_id)), '|') FROM (SELECT * FROM nvtx ORDER BY start)",
		    "150-200 step 20|410-450 closed|480-500 last|700-1000 outside");
	sqlite3_close(db);
}

static void test_overhead3_and_device5(void **state)
{
	struct fx f;
	CUpti_ActivityOverhead3 o;
	CUpti_ActivityDevice5 d;
	sqlite3 *db;
	int i;
	(void)state;

	fx_open(&f, 0);
	memset(&o, 0, sizeof(o));
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
	o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	o.objectId.pt.processId = 700;
	o.objectId.pt.threadId = 709;
	o.start = 300;
	o.end = 350;
	fx_add(&f, &o, sizeof(o));
	memset(&d, 0, sizeof(d));
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.globalMemorySize = 150122102784ull;
	d.l2CacheSize = 62914560;
	d.coreClockRate = 1980000;
	d.numMultiprocessors = 132;
	d.maxThreadsPerBlock = 1024;
	d.computeCapabilityMajor = 9;
	d.computeCapabilityMinor = 0;
	d.id = 0;
	for (i = 0; i < 16; i++)
		d.uuid.bytes[i] = (char)(0x10 + i);
	d.name = "NVIDIA H200";
	fx_add(&f, &d, sizeof(d));
	fx_batch(&f);
	db = fx_finish(&f, 400);
	assert_text(db,
		    "SELECT printf('%d %d %d %d %d', kind, start, end, object_kind, "
		    "object_id) FROM overhead",
		    "65536 300 350 2 709"); /* CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH */
	assert_text(db,
		    "SELECT printf('%d|%s|%s|%d.%d|%d|%d|%s|%d|%d|%d', id, name, uuid, cc_major, "
		    "cc_minor, sm_count, core_clock_khz, IFNULL(memory_clock_khz, 'N'), "
		    "global_memory_bytes, l2_cache_bytes, max_threads_per_block) FROM devices",
		    "0|NVIDIA H200|GPU-10111213-1415-1617-1819-1a1b1c1d1e1f|9.0|132|1980000|N|"
		    "150122102784|62914560|1024");
	sqlite3_close(db);
}

static void test_unknown_kinds_skipped(void **state)
{
	struct fx f;
	CUpti_ActivityAPI a; /* any record with a kind we do not store */
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_NAME;
	fx_add(&f, &a, sizeof(a));
	assert_int_equal(fx_batch(&f), 1);
	assert_int_equal(f.d.skipped, 1);
	db = fx_finish(&f, 1);
	assert_text(db, "SELECT (SELECT COUNT(*) FROM kernels) + (SELECT COUNT(*) FROM api_calls)",
		    "0");
	sqlite3_close(db);
}

static void test_decoder_registers_implicit_api(void **state)
{
	struct fx f;
	CUpti_ActivityAPI a;
	CUpti_ActivityKernel10 k = kernel_rec();
	sqlite3 *db;
	(void)state;

	fx_open(&f, 0);
	memset(&a, 0, sizeof(a));
	a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
	a.cbid = 211;
	a.start = 4000;
	a.end = 4100;
	a.processId = 1;
	a.threadId = 2;
	a.correlationId = 42; /* launches kernel_rec() */
	fx_add(&f, &a, sizeof(a));
	fx_add(&f, &k, sizeof(k));
	a.cbid = 20; /* cudaMalloc after the launch */
	a.start = 8000;
	a.end = 8800;
	a.correlationId = 43;
	fx_add(&f, &a, sizeof(a));
	fx_batch(&f);
	db = fx_finish(&f, 9000);
	assert_text(db,
		    "SELECT printf('%d %d %d-%d %d', kind, implicit, start, end, tid) FROM "
		    "syncs",
		    "19 1 8000-8800 2");
	sqlite3_close(db);
}

/* ---- the pipeline: hand-off, drop accounting */

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open, writer_waiting;

/* Name source that blocks the writer thread until the test opens the gate:
 * a writer that has fallen behind, deterministically. */
static const char *gated_names(int api, uint32_t cbid, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&gate_lock);
	writer_waiting = 1;
	pthread_cond_broadcast(&gate_cond);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	return names(api, cbid, NULL);
}

static uint8_t *api_buffer(int n, uint32_t first_corr, size_t *valid)
{
	uint8_t *buf = gs_buffer_alloc(4096);
	size_t used = 0;
	int i;
	for (i = 0; i < n; i++) {
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = 211;
		a.start = 100 * (first_corr + (uint32_t)i);
		a.end = a.start + 10;
		a.correlationId = first_corr + (uint32_t)i;
		used = gs_synthetic_append(buf, 4096, used, &a, sizeof(a));
	}
	*valid = used;
	return buf;
}

static void test_pipeline_drops_and_counts_when_writer_behind(void **state)
{
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	char err[256];
	size_t v1, v2, v3;
	uint8_t *b1, *b2, *b3;
	sqlite3 *db;
	(void)state;

	assert_int_equal(gs_writer_open(&w, path, 0, err, sizeof(err)), 0);
	gs_decoder_init(&d, w, 0, gs_synthetic_next, gated_names, NULL);
	assert_int_equal(gs_pipeline_start(&p, &d, 1, 4096), 0);
	b1 = api_buffer(3, 1, &v1);
	b2 = api_buffer(4, 10, &v2);
	b3 = api_buffer(5, 20, &v3);
	assert_int_equal(gs_pipeline_submit(p, b1, 4096, v1), 0);
	/* wait until the writer is stuck decoding b1 */
	pthread_mutex_lock(&gate_lock);
	while (!writer_waiting)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
	assert_int_equal(gs_pipeline_submit(p, b2, 4096, v2), 0);  /* queued (1 of 1) */
	assert_int_equal(gs_pipeline_submit(p, b3, 4096, v3), -1); /* full: dropped */
	assert_int_equal(gs_pipeline_dropped(p), 5);
	/* a sync that cannot complete times out instead of blocking */
	assert_int_equal(gs_pipeline_sync(p, 50), -1);
	pthread_mutex_lock(&gate_lock);
	gate_open = 1;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	assert_int_equal(gs_pipeline_sync(p, 0), 0);
	gs_pipeline_stop(p);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, 10000), 0);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_text(db,
		    "SELECT group_concat(correlation_id) FROM (SELECT correlation_id FROM "
		    "api_calls ORDER BY start)",
		    "1,2,3,10,11,12,13");
	sqlite3_close(db);
}

static void test_pipeline_events_in_order(void **state)
{
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	struct gs_event ev;
	char err[256];
	sqlite3 *db;
	(void)state;

	assert_int_equal(gs_writer_open(&w, path, 0, err, sizeof(err)), 0);
	gs_decoder_init(&d, w, 0, gs_synthetic_next, names, NULL);
	assert_int_equal(gs_pipeline_start(&p, &d, 4, 4096), 0);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH;
	ev.u.graph = (struct gs_graph){.graph_id = 3,
				       .original_graph_id = -1,
				       .device = 0,
				       .context = 1,
				       .created = 50,
				       .origin = 0};
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_NODE;
	ev.u.node.n = (struct gs_graph_node){.node_id = 30,
					     .graph_id = 3,
					     .type = 0,
					     .original_node_id = -1,
					     .child_graph_id = -1,
					     .grid = {8, 1, 1},
					     .block = {256, 1, 1},
					     .bytes = -1,
					     .created = 60};
	snprintf(ev.u.node.name, sizeof(ev.u.node.name), "%s", "_Z4stepv");
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	ev.u.node.n.node_id = 31;
	ev.u.node.name[0] = '\0';
	ev.u.node.n.type = GS_NODE_EMPTY;
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_EDGE;
	ev.u.edge.graph_id = 3;
	ev.u.edge.from = 30;
	ev.u.edge.to = 31;
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	gs_pipeline_event(p, &ev); /* duplicate edge: ignored */
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_EXEC;
	ev.u.exec.exec_id = 4;
	ev.u.exec.graph_id = 3;
	ev.u.exec.device = 0;
	ev.u.exec.created = 70;
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	assert_int_equal(gs_pipeline_sync(p, 0), 0);
	gs_pipeline_stop(p);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, 100), 0);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_text(db,
		    "SELECT printf('%d %s %d %d %d %d', graph_id, IFNULL(original_graph_id, "
		    "'N'), device, context, created, origin) FROM graphs",
		    "3 N 0 1 50 0");
	assert_text(db,
		    "SELECT group_concat(printf('%d %d %d %s %s %s %s', node_id, graph_id, type, "
		    "IFNULL((SELECT value FROM strings WHERE id = name_id), 'N'), IFNULL(grid_x, "
		    "'N'), IFNULL(block_x, 'N'), IFNULL(bytes, 'N')), '|') FROM (SELECT * FROM "
		    "graph_nodes ORDER BY node_id)",
		    "30 3 0 _Z4stepv 8 256 N|31 3 5 N 8 256 N");
	assert_text(db,
		    "SELECT printf('%d %d %d %d', (SELECT COUNT(*) FROM graph_edges), "
		    "graph_id, from_node, to_node) FROM graph_edges",
		    "1 3 30 31");
	assert_text(db,
		    "SELECT printf('%d %d %d %d', exec_id, graph_id, device, created) FROM "
		    "graph_execs",
		    "4 3 0 70");
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_kernel10_all_columns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_kernel10_latency_timestamps, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_memcpy6_memset4_p2p, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_api_records_and_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_api_plain_len, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_driver_calls_outside_capture_windows_dropped,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_marker_left_open_ends_with_its_capture_window,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sync2_explicit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cuda_event2_records_and_wait_join, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_legacy_default_stream_serialising, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_marker2_ranges_and_marks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_overhead3_and_device5, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_kinds_skipped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_decoder_registers_implicit_api, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_implicit_syncs_of_copies_and_memsets, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pipeline_drops_and_counts_when_writer_behind,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pipeline_events_in_order, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
