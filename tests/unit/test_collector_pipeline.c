/*
 * test_collector_pipeline.c - the writer's two stages (collector/pipeline.c
 * and writer.c's "pipelined writing"): records decoded on one thread into
 * chunks and inserted on another must give the rows a single thread gives.
 *
 * The records are built here (synthetic CUPTI buffers) so that the rows
 * cross several chunk boundaries (CHUNK_ROWS = 4096 rows per table), new
 * strings first appear in later chunks, an NVTX range opens in the first
 * buffer and closes in the last, and graph events sit between buffers.
 * Expected values are computed here from how the records were made;
 * the same records are also written without the pipeline and every table
 * compared row by row. No GPU needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "internal.h"

#define LAUNCHES 20000	     /* one API and one kernel record each */
#define PER_NAME 6000	     /* launches per kernel name: k0, k1, k2, k3 */
#define PER_BUFFER 5000	     /* launches per buffer (> 4096 rows): 4 buffers */
#define BUF_BYTES (2u << 20) /* holds PER_BUFFER launches and a few more */

static char dir[64], path_p[128], path_d[128];
static const char *const knames[] = {"k0", "k1", "k2", "k3"};

static void rm_db(const char *p)
{
	char s[160];
	unlink(p);
	snprintf(s, sizeof(s), "%s-wal", p);
	unlink(s);
	snprintf(s, sizeof(s), "%s-shm", p);
	unlink(s);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-pipe-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path_p, sizeof(path_p), "%s/pipe.db", dir);
	snprintf(path_d, sizeof(path_d), "%s/direct.db", dir);
	gs_warnings_reset();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_db(path_p);
	rm_db(path_d);
	rmdir(dir);
	return 0;
}

static const char *names(int api, uint32_t cbid, void *ctx)
{
	(void)ctx;
	(void)api;
	return cbid == 211 ? "cudaLaunchKernel_v7000" : NULL;
}

static size_t add(uint8_t *buf, size_t used, const void *rec, size_t size)
{
	size_t n = gs_synthetic_append(buf, BUF_BYTES, used, rec, size);
	assert_int_not_equal(n, 0);
	return n;
}

/* Buffer b (0..3): launches [b*PER_BUFFER, (b+1)*PER_BUFFER), a memcpy every
 * 1000 launches; the NVTX range (id 5) starts in buffer 0 with its data
 * record, ends in buffer 3. */
static uint8_t *make_buffer(int b, size_t *valid)
{
	uint8_t *buf = gs_buffer_alloc(BUF_BYTES); /* zero-filled */
	size_t used = 0;
	int i;

	assert_non_null(buf);
	for (i = b * PER_BUFFER; i < (b + 1) * PER_BUFFER; i++) {
		CUpti_ActivityAPI a;
		CUpti_ActivityKernel10 k;
		uint64_t t = 1000000u + 1000u * (uint64_t)i;

		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = 211;
		a.start = t;
		a.end = t + 100;
		a.processId = 77;
		a.threadId = 78;
		a.correlationId = (uint32_t)i + 1;
		used = add(buf, used, &a, sizeof(a));

		memset(&k, 0, sizeof(k));
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		k.start = t + 200;
		k.end = t + 200 + (uint64_t)(i % 7);
		k.contextId = 1;
		k.streamId = 7;
		k.correlationId = (uint32_t)i + 1;
		k.gridX = i % 100 + 1;
		k.gridY = k.gridZ = 1;
		k.blockX = 128;
		k.blockY = k.blockZ = 1;
		k.name = knames[i / PER_NAME];
		used = add(buf, used, &k, sizeof(k));

		if (i % 1000 == 999) {
			CUpti_ActivityMemcpy6 m;
			memset(&m, 0, sizeof(m));
			m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
			m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
			m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
			m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
			m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
			m.bytes = (uint64_t)i;
			m.start = t + 500;
			m.end = t + 600;
			m.contextId = 1;
			m.streamId = 7;
			m.correlationId = (uint32_t)i + 1;
			used = add(buf, used, &m, sizeof(m));
		}
		if (i == 10 || i == LAUNCHES - 10) {
			CUpti_ActivityMarker2 r;
			memset(&r, 0, sizeof(r));
			r.kind = CUPTI_ACTIVITY_KIND_MARKER;
			r.id = 5;
			r.timestamp = t + 50;
			r.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
			r.objectId.pt.processId = 77;
			r.objectId.pt.threadId = 78;
			if (i == 10) {
				CUpti_ActivityMarkerData2 d;
				r.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
				r.name = "step <0>";
				r.domain = NULL;
				used = add(buf, used, &r, sizeof(r));
				memset(&d, 0, sizeof(d));
				d.kind = CUPTI_ACTIVITY_KIND_MARKER_DATA;
				d.id = 5;
				d.flags = CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB;
				d.color = 0xff00ff00u;
				d.category = 3;
				used = add(buf, used, &d, sizeof(d));
			} else {
				r.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
				used = add(buf, used, &r, sizeof(r));
			}
		}
	}
	*valid = used;
	return buf;
}

static struct gs_event graph_event(uint32_t graph_id)
{
	struct gs_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_NODE;
	ev.u.node.n = (struct gs_graph_node){.node_id = 100 + graph_id,
					     .graph_id = graph_id,
					     .type = 0,
					     .original_node_id = -1,
					     .child_graph_id = -1,
					     .grid = {2, 1, 1},
					     .block = {32, 1, 1},
					     .bytes = -1,
					     .created = graph_id};
	/* a name no record uses: interned by the event, between buffers */
	snprintf(ev.u.node.name, sizeof(ev.u.node.name), "node_kernel_%u", graph_id);
	return ev;
}

/* A writer on path_p, its decoder and a pipeline in front of them. */
static void open_pipelined(struct gs_writer **w, struct gs_decoder *d, struct gs_pipeline **p,
			   size_t max_pending, size_t buffer_bytes)
{
	char err[256];

	assert_int_equal(gs_writer_open(w, path_p, 0, err, sizeof(err)), 0);
	gs_decoder_init(d, *w, 0, gs_synthetic_next, names, NULL);
	assert_int_equal(gs_pipeline_start(p, d, max_pending, buffer_bytes), 0);
}

#define STOP_NS 99000000u

/* Through the pipeline: buffers and events handed over as the collector
 * does, then sync, stop, finalize. */
static void write_pipelined(void)
{
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	int b;

	open_pipelined(&w, &d, &p, 16, BUF_BYTES);
	for (b = 0; b < LAUNCHES / PER_BUFFER; b++) {
		size_t valid;
		uint8_t *buf = make_buffer(b, &valid);
		struct gs_event ev = graph_event((uint32_t)b + 1);
		assert_int_equal(gs_pipeline_submit(p, buf, BUF_BYTES, valid), 0);
		assert_int_equal(gs_pipeline_event(p, &ev), 0);
		if (b == 1) /* a sync in the middle: a commit between chunks */
			assert_int_equal(gs_pipeline_sync(p, 0), 0);
	}
	assert_int_equal(gs_pipeline_sync(p, 0), 0);
	assert_int_equal(gs_pipeline_dropped(p), 0);
	gs_pipeline_stop(p);
	gs_writer_begin(w);
	gs_decoder_flush_nvtx(&d, 1, STOP_NS);
	gs_writer_commit(w);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);
}

/* The same records and events, decoded and written on this thread. */
static void write_direct(void)
{
	struct gs_writer *w;
	struct gs_decoder d;
	char err[256];
	int b;

	assert_int_equal(gs_writer_open(&w, path_d, 0, err, sizeof(err)), 0);
	gs_decoder_init(&d, w, 0, gs_synthetic_next, names, NULL);
	for (b = 0; b < LAUNCHES / PER_BUFFER; b++) {
		size_t valid;
		uint8_t *buf = make_buffer(b, &valid);
		struct gs_event ev = graph_event((uint32_t)b + 1);
		gs_writer_begin(w);
		gs_decode_buffer(&d, buf, valid);
		gs_apply_event(w, &ev);
		gs_decoder_flush_nvtx(&d, 0, 0);
		gs_writer_commit(w);
		gs_buffer_free(buf, BUF_BYTES);
	}
	gs_writer_begin(w);
	gs_decoder_flush_nvtx(&d, 1, STOP_NS);
	gs_writer_commit(w);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -999;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void assert_q_text(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *st;
	const char *got = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		got = (const char *)sqlite3_column_text(st, 0);
	if (!got || strcmp(got, want) != 0)
		fail_msg("%s:\n got \"%s\"\nwant \"%s\"", sql, got ? got : "(null)", want);
	sqlite3_finalize(st);
}

static void test_pipelined_rows_have_the_expected_values(void **state)
{
	sqlite3 *db;
	(void)state;

	write_pipelined();
	assert_int_equal(sqlite3_open_v2(path_p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	/* every record once, in order: ids follow the correlation ids */
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels"), LAUNCHES);
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM api_calls"), LAUNCHES);
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels WHERE id <> correlation_id"), 0);
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM api_calls WHERE id <> correlation_id"), 0);
	/* values across chunk boundaries (4096 rows): launch i = corr - 1 */
	assert_int_equal(
	    q_int(db, "SELECT COUNT(*) FROM kernels WHERE start <> 1000200 + 1000 * (id - 1)"
		      " OR end - start <> (id - 1) % 7 OR grid_x <> (id - 1) % 100 + 1"),
	    0);
	assert_int_equal(
	    q_int(db, "SELECT COUNT(*) FROM api_calls WHERE start <> 1000000 + 1000 * (id - 1)"
		      " OR end <> start + 100 OR tid <> 78"),
	    0);
	/* strings in order of first use, each once: the API name (first
	 * record), k0, the range's text, the graph node after buffer 0, k1
	 * (launch 6000, buffer 1), ... */
	assert_q_text(db,
		      "SELECT group_concat(value, '|') FROM (SELECT value FROM strings "
		      "WHERE id <= 10 ORDER BY id)",
		      "cudaLaunchKernel|k0|step <0>|node_kernel_1|k1|node_kernel_2|k2|"
		      "node_kernel_3|k3|node_kernel_4");
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels k JOIN strings s ON s.id = "
				   "k.name_id WHERE s.value <> 'k' || ((k.id - 1) / 6000)"),
			 0);
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM graph_nodes g JOIN strings s ON s.id = "
				   "g.name_id WHERE s.value = 'node_kernel_' || g.graph_id"),
			 4);
	/* memcpys every 1000 launches; the range from launch 10 to 9990 */
	assert_q_text(db, "SELECT group_concat(bytes) FROM (SELECT bytes FROM memcpys ORDER BY id)",
		      "999,1999,2999,3999,4999,5999,6999,7999,8999,9999,10999,11999,12999,"
		      "13999,14999,15999,16999,17999,18999,19999");
	assert_q_text(db,
		      "SELECT printf('%d %d %d %d %s', start, end, color, category, (SELECT value "
		      "FROM strings WHERE id = text_id)) FROM nvtx",
		      "1010050 20990050 4278255360 3 step <0>");
	sqlite3_close(db);
}

static void compare_table(sqlite3 *a, sqlite3 *b, const char *table)
{
	char sql[128];
	sqlite3_stmt *sa, *sb;
	int ra, rb, rows = 0;

	snprintf(sql, sizeof(sql), "SELECT * FROM %s ORDER BY rowid", table);
	assert_int_equal(sqlite3_prepare_v2(a, sql, -1, &sa, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(b, sql, -1, &sb, NULL), SQLITE_OK);
	for (;;) {
		int i, n;
		ra = sqlite3_step(sa);
		rb = sqlite3_step(sb);
		if (ra != rb)
			fail_msg("%s: row %d exists in only one database", table, rows + 1);
		if (ra != SQLITE_ROW)
			break;
		rows++;
		n = sqlite3_column_count(sa);
		for (i = 0; i < n; i++) {
			const unsigned char *va = sqlite3_column_text(sa, i);
			const unsigned char *vb = sqlite3_column_text(sb, i);
			if ((va == NULL) != (vb == NULL) ||
			    (va && strcmp((const char *)va, (const char *)vb) != 0))
				fail_msg("%s row %d column %d: pipelined %s, direct %s", table,
					 rows, i, va ? (const char *)va : "NULL",
					 vb ? (const char *)vb : "NULL");
		}
	}
	sqlite3_finalize(sa);
	sqlite3_finalize(sb);
}

static void test_pipelined_equals_single_thread(void **state)
{
	static const char *const tables[] = {"kernels", "api_calls", "memcpys",	    "strings",
					     "nvtx",	"threads",   "graph_nodes", "syncs"};
	sqlite3 *a, *b;
	size_t i;
	(void)state;

	write_pipelined();
	write_direct();
	assert_int_equal(sqlite3_open_v2(path_p, &a, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_open_v2(path_d, &b, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		compare_table(a, b, tables[i]);
	sqlite3_close(a);
	sqlite3_close(b);
}

/* Three runtime API records, correlation ids first..first+2. */
static uint8_t *small_buffer(uint32_t first, size_t *valid)
{
	uint8_t *buf = gs_buffer_alloc(4096); /* zero-filled */
	size_t used = 0;
	uint32_t i;

	assert_non_null(buf);
	for (i = first; i < first + 3; i++) {
		CUpti_ActivityAPI a;
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a.cbid = 211;
		a.start = 100 * i;
		a.end = a.start + 10;
		a.correlationId = i;
		used = gs_synthetic_append(buf, 4096, used, &a, sizeof(a));
		assert_int_not_equal(used, 0);
	}
	*valid = used;
	return buf;
}

/* Another process holds the database's write lock: the SQLite thread's
 * first insert fails. One warning, later hand-overs are discarded, syncs
 * still return (the flush thread and finalize must not hang), and the
 * rows decoded while the lock was held are not stored. */
static void test_pipelined_sqlite_error_warns_once_and_never_hangs(void **state)
{
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	sqlite3 *other;
	const char *key, *msg;
	size_t valid;
	uint8_t *buf;
	(void)state;

	open_pipelined(&w, &d, &p, 4, 4096);
	assert_int_equal(sqlite3_open(path_p, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);

	buf = small_buffer(1, &valid);
	assert_int_equal(gs_pipeline_submit(p, buf, 4096, valid), 0);
	assert_int_equal(gs_pipeline_sync(p, 5000), 0);
	assert_int_not_equal(gs_writer_failed(w), 0);
	buf = small_buffer(4, &valid);
	assert_int_equal(gs_pipeline_submit(p, buf, 4096, valid), 0);
	assert_int_equal(gs_pipeline_sync(p, 5000), 0);
	assert_int_equal(gs_warning_count(), 1);
	assert_int_equal(gs_warning_get(0, &key, &msg), 0);
	assert_string_equal(key, "writer");
	assert_non_null(strstr(msg, "recording stops here"));

	assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	gs_pipeline_stop(p);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, 1000), -1);
	{
		sqlite3_stmt *st;
		assert_int_equal(
		    sqlite3_prepare_v2(other, "SELECT COUNT(*) FROM api_calls", -1, &st, NULL),
		    SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(other);
}

/* Rows logged into a chunk (the decode thread's side) and applied later
 * (the SQLite thread's side), called here on one thread: text parameters
 * (copied into the chunk, even when the caller's buffer changes before
 * apply), NULLs, a string interned while logging, the device's memory
 * clock (logged as SQL) after the device row, and nothing stored before
 * gs_writer_apply. */
static void test_logged_rows_of_every_kind_applied_with_their_values(void **state)
{
	struct gs_writer *w;
	struct gs_chunk *c;
	char err[256], host[32];
	struct gs_device dev = {.id = 1,
				.name = "NVIDIA H200",
				.uuid = "GPU-00aa",
				.cc_major = 9,
				.cc_minor = 0,
				.sm_count = 132,
				.core_clock_khz = 1980000,
				.memory_clock_khz = -1,
				.global_memory_bytes = 150000000000ll,
				.l2_cache_bytes = 52428800,
				.max_threads_per_block = 1024};
	struct gs_process proc = {.pid = 4321,
				  .command_line = "./app --x 'a b'",
				  .start_ns = 10,
				  .end_ns = 0,
				  .exit_reason = NULL};
	struct gs_nvtx n = {.start = 5,
			    .end = 9,
			    .kind = GS_NVTX_MARK,
			    .domain_id = 0,
			    .category = -1,
			    .color = -1,
			    .pid = -1,
			    .tid = -1};
	sqlite3 *db;
	(void)state;

	assert_int_equal(gs_writer_open(&w, path_p, 0, err, sizeof(err)), 0);
	c = gs_chunk_new();
	assert_non_null(c);
	gs_writer_set_chunk(w, c);
	snprintf(host, sizeof(host), "node7");
	proc.hostname = host;
	assert_int_equal(gs_writer_meta(w, "k", "v \"quoted\""), 0);
	assert_int_equal(gs_writer_device(w, &dev), 0);
	assert_int_equal(gs_writer_device_memory_clock(w, 1, 2619000), 0);
	assert_int_equal(gs_writer_process(w, &proc), 0);
	assert_int_equal(gs_writer_thread(w, 99, 4321, "worker <1>"), 0);
	n.text_id = gs_writer_intern(w, "mark <T>");
	assert_int_equal(n.text_id, 1);
	assert_int_equal(gs_writer_nvtx(w, &n), 0);
	assert_int_equal(gs_writer_graph_captured(w, 5, 77), 0);
	gs_writer_set_chunk(w, NULL);
	snprintf(host, sizeof(host), "changed"); /* the chunk has its own copy */

	/* nothing is in the database yet */
	assert_int_equal(sqlite3_open_v2(path_p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM devices"), 0);
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM strings"), 0);
	sqlite3_close(db);

	assert_int_equal(gs_writer_begin(w), 0);
	assert_int_equal(gs_writer_apply(w, c), 0);
	assert_int_equal(gs_writer_commit(w), 0);
	gs_chunk_free(c);
	assert_int_equal(gs_writer_finalize(w, 100), 0);

	assert_int_equal(sqlite3_open_v2(path_p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_q_text(db, "SELECT value FROM meta WHERE key = 'k'", "v \"quoted\"");
	assert_q_text(db,
		      "SELECT printf('%d %s %s %d %d %d', id, name, uuid, sm_count, "
		      "core_clock_khz, memory_clock_khz) FROM devices",
		      "1 NVIDIA H200 GPU-00aa 132 1980000 2619000");
	assert_q_text(db,
		      "SELECT printf('%d %s %s %d %d %d', pid, hostname, command_line, start_ns, "
		      "end_ns IS NULL, exit_reason IS NULL) FROM processes",
		      "4321 node7 ./app --x 'a b' 10 1 1");
	assert_q_text(db, "SELECT printf('%d %d %s', tid, pid, name) FROM threads",
		      "99 4321 worker <1>");
	assert_q_text(db,
		      "SELECT printf('%d %d %d %s %d %d', start, end, kind, s.value, "
		      "category IS NULL, tid IS NULL) FROM nvtx JOIN strings s ON s.id = text_id",
		      "5 9 1 mark <T> 1 1");
	assert_q_text(db, "SELECT printf('%d %d %d', graph_id, created, origin) FROM graphs",
		      "5 77 2");
	sqlite3_close(db);
}

/* Rows of graph_nodes committed so far, seen from another connection,
 * waited for (at most 5 s) until there are `want`. */
static int64_t committed_nodes(sqlite3 *db, int64_t want)
{
	int64_t n = -1;
	int i;

	for (i = 0; i < 500; i++) {
		n = q_int(db, "SELECT COUNT(*) FROM graph_nodes");
		if (n >= want)
			break;
		usleep(10000);
	}
	return n;
}

/* Events (a sync, a call site, one per call of the program) do not wake the
 * writer: they wait in a batch for a buffer, a kick (the flush thread's
 * tick), a sync or stop, or until the batch (64 KiB) is full; then they are
 * committed, in order. */
static void test_events_wait_for_a_kick_or_a_full_batch(void **state)
{
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	sqlite3 *other;
	int64_t n;
	uint32_t i;
	(void)state;

	open_pipelined(&w, &d, &p, 4, 4096);
	assert_int_equal(sqlite3_open(path_p, &other), SQLITE_OK);
	/* the writer's threads started and went to wait for work */
	usleep(50000);

	for (i = 1; i <= 3; i++) {
		struct gs_event ev = graph_event(i);
		assert_int_equal(gs_pipeline_event(p, &ev), 0);
	}
	usleep(50000);
	assert_int_equal(q_int(other, "SELECT COUNT(*) FROM graph_nodes"), 0);
	gs_pipeline_kick(p);
	assert_int_equal(committed_nodes(other, 3), 3);

	/* no kick: a node event holds its 256-byte name, so 300 of them fill
	 * a batch; the full one is committed, the last event still waits */
	for (i = 4; i < 4 + 300; i++) {
		struct gs_event ev = graph_event(i);
		assert_int_equal(gs_pipeline_event(p, &ev), 0);
	}
	n = committed_nodes(other, 4);
	assert_true(n >= 4);
	assert_true(n < 3 + 300);
	/* a sync takes what waits, and a buffer goes behind the events
	 * before it */
	{
		size_t valid;
		uint8_t *buf = small_buffer(1, &valid);
		assert_int_equal(gs_pipeline_submit(p, buf, 4096, valid), 0);
	}
	assert_int_equal(gs_pipeline_sync(p, 5000), 0);
	assert_int_equal(q_int(other, "SELECT COUNT(*) FROM graph_nodes"), 3 + 300);
	assert_int_equal(q_int(other, "SELECT MIN(node_id) FROM graph_nodes"), 101);
	assert_int_equal(q_int(other, "SELECT MAX(node_id) FROM graph_nodes"), 100 + 3 + 300);

	sqlite3_close(other);
	gs_pipeline_stop(p);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);
}

/* One event of every kind the callbacks make but call sites (whose stacks
 * are interned per process), each field set to a value of its own. */
static size_t every_kind(struct gs_event *ev)
{
	size_t n = 0;

	memset(ev, 0, 9 * sizeof(*ev));
	ev[n].kind = GS_EV_GRAPH;
	ev[n++].u.graph = (struct gs_graph){3, -1, 0, 1, 10, 2};
	ev[n] = graph_event(3);
	ev[n++].u.node.n.node_id = 101;
	ev[n].kind = GS_EV_GRAPH_EDGE;
	ev[n].u.edge.graph_id = 3;
	ev[n].u.edge.from = 101;
	ev[n++].u.edge.to = 102;
	ev[n].kind = GS_EV_GRAPH_EXEC;
	ev[n].u.exec.exec_id = 9;
	ev[n].u.exec.graph_id = 3;
	ev[n].u.exec.device = 0;
	ev[n++].u.exec.created = 20;
	ev[n].kind = GS_EV_GRAPH_LAUNCH;
	ev[n++].u.launch = (struct gs_graph_launch){9, 7, 43, 77};
	ev[n].kind = GS_EV_GRAPH_CAPTURED;
	ev[n].u.captured.graph_id = 3;
	ev[n++].u.captured.when = 30;
	ev[n].kind = GS_EV_GRAPH_NODE_UPDATE;
	ev[n].u.update.time = 40;
	ev[n].u.update.kind = 1;
	ev[n].u.update.node_id = 101;
	ev[n].u.update.graph_id = 3;
	ev[n++].u.update.exec_id = 9;
	ev[n].kind = GS_EV_SYNC;
	ev[n++].u.sync = (struct gs_sync){.start = 1000,
					  .end = 2500,
					  .kind = GS_SYNC_STREAM_WAIT_EVENT,
					  .device = 0,
					  .context = 1,
					  .stream = 7,
					  .event = 5,
					  .correlation_id = 42,
					  .pid = -1,
					  .tid = -1};
	ev[n].kind = GS_EV_CUDA_EVENT;
	ev[n++].u.cuda_event = (struct gs_cuda_event){5, 7, 0, 1, 41, 900};
	return n;
}

/* Packed into a batch, every kind of event keeps every field: the same
 * rows as the events applied on this thread, with a buffer between them. */
static void test_every_event_kind_survives_the_batch(void **state)
{
	static const char *const tables[] = {"graphs",	    "graph_nodes",    "graph_edges",
					     "graph_execs", "graph_launches", "graph_node_updates",
					     "syncs",	    "events",	      "api_calls"};
	struct gs_event ev[9];
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	sqlite3 *a, *b;
	char err[256];
	size_t i, n = every_kind(ev), valid;
	uint8_t *buf;
	(void)state;

	assert_int_equal(n, 9);
	open_pipelined(&w, &d, &p, 4, 4096);
	for (i = 0; i < n; i++) {
		if (i == 4) {
			buf = small_buffer(1, &valid);
			assert_int_equal(gs_pipeline_submit(p, buf, 4096, valid), 0);
		}
		assert_int_equal(gs_pipeline_event(p, &ev[i]), 0);
	}
	assert_int_equal(gs_pipeline_sync(p, 5000), 0);
	gs_pipeline_stop(p);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);

	assert_int_equal(gs_writer_open(&w, path_d, 0, err, sizeof(err)), 0);
	gs_decoder_init(&d, w, 0, gs_synthetic_next, names, NULL);
	gs_writer_begin(w);
	for (i = 0; i < n; i++) {
		if (i == 4) {
			buf = small_buffer(1, &valid);
			gs_decode_buffer(&d, buf, valid);
			gs_buffer_free(buf, 4096);
		}
		gs_apply_event(w, &ev[i]);
	}
	gs_writer_commit(w);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);

	assert_int_equal(sqlite3_open_v2(path_p, &a, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_open_v2(path_d, &b, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		compare_table(a, b, tables[i]);
	/* and the values are the ones given, not lost on both sides */
	assert_int_equal(
	    q_int(a, "SELECT stream * 1000 + event FROM syncs WHERE correlation_id = 42"), 7005);
	assert_int_equal(q_int(a, "SELECT \"end\" - start FROM syncs WHERE correlation_id = 42"),
			 1500);
	assert_int_equal(q_int(a, "SELECT stream FROM events WHERE event = 5"), 7);
	assert_int_equal(q_int(a, "SELECT COUNT(*) FROM graph_launches WHERE exec_id = 9"), 1);
	sqlite3_close(a);
	sqlite3_close(b);
}

/* Call sites through the batch: an event is packed with only the names
 * text its capture used (none for a native-only one), so the events that
 * come out must still hold every name, line and frame. Three: a native
 * stack, a Python one (2 frames), and the native stack again (no new
 * frames, a second api_stacks row). */
static void test_call_sites_survive_the_batch(void **state)
{
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	struct gs_event ev[3];
	sqlite3 *a;
	int i;
	(void)state;

	memset(ev, 0, sizeof(ev));
	for (i = 0; i < 3; i++) {
		ev[i].kind = GS_EV_CALLSITE;
		ev[i].u.callsite.correlation_id = 70 + (uint32_t)i;
		ev[i].u.callsite.tid = 1234;
		ev[i].u.callsite.reason = GS_CS_WHY_BLOCKING;
		ev[i].u.callsite.t_begin = 1000 * (uint64_t)(i + 1);
		ev[i].u.callsite.t_end = 1000 * (uint64_t)(i + 1) + 300;
	}
	/* native frames at addresses in no module: stored by address */
	for (i = 0; i < 3; i++)
		ev[0].u.callsite.native[i] = (void *)(uintptr_t)(0x10 + 8 * i);
	ev[0].u.callsite.n_native = 3;
	ev[2].u.callsite = ev[0].u.callsite;
	ev[2].u.callsite.correlation_id = 72;
	ev[2].u.callsite.t_begin = 3000;
	ev[2].u.callsite.t_end = 3300;
	{
		struct gs_callsite *cs = &ev[1].u.callsite;
		static const char text[] = "/w/train.py\0step\0/w/main.py\0<module>";
		memcpy(cs->text, text, sizeof(text));
		cs->text_len = sizeof(text);
		cs->n_py = 2;
		cs->py_file[0] = 0;
		cs->py_func[0] = 12;
		cs->py_line[0] = 41;
		cs->py_file[1] = 17;
		cs->py_func[1] = 28;
		cs->py_line[1] = 7;
	}
	/* what a packed event would leave behind if it were read past its
	 * length: garbage, not zeros */
	memset(ev[0].u.callsite.text, 'x', sizeof(ev[0].u.callsite.text));
	memset(ev[2].u.callsite.text, 'y', sizeof(ev[2].u.callsite.text));

	open_pipelined(&w, &d, &p, 4, 4096);
	for (i = 0; i < 3; i++)
		assert_int_equal(gs_pipeline_event(p, &ev[i]), 0);
	assert_int_equal(gs_pipeline_sync(p, 5000), 0);
	gs_pipeline_stop(p);
	gs_writer_begin(w);
	gs_callsite_finish(w);
	gs_writer_commit(w);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);

	assert_int_equal(sqlite3_open_v2(path_p, &a, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(q_int(a, "SELECT COUNT(*) FROM api_stacks"), 3);
	assert_int_equal(q_int(a, "SELECT COUNT(DISTINCT stack_id) FROM api_stacks"), 2);
	assert_int_equal(q_int(a,
			       "SELECT COUNT(*) FROM api_stacks WHERE correlation_id IN (70, 72) "
			       "AND stack_id = (SELECT stack_id FROM api_stacks WHERE "
			       "correlation_id = 70)"),
			 2);
	assert_int_equal(q_int(a, "SELECT capture_end - capture_start FROM api_stacks WHERE "
				  "correlation_id = 72"),
			 300);
	assert_int_equal(q_int(a, "SELECT COUNT(*) FROM stack_frames WHERE kind = 1"), 3);
	assert_int_equal(q_int(a, "SELECT SUM(offset) FROM stack_frames WHERE kind = 1"),
			 0x10 + 0x18 + 0x20);
	assert_int_equal(q_int(a, "SELECT COUNT(*) FROM stack_frames WHERE kind = 2"), 2);
	assert_int_equal(q_int(a, "SELECT line FROM stack_frames sf JOIN strings f ON f.id = "
				  "sf.file_id JOIN strings g ON g.id = sf.function_id WHERE "
				  "f.value = '/w/train.py' AND g.value = 'step' AND depth = 0"),
			 41);
	assert_int_equal(q_int(a, "SELECT line FROM stack_frames sf JOIN strings f ON f.id = "
				  "sf.file_id JOIN strings g ON g.id = sf.function_id WHERE "
				  "f.value = '/w/main.py' AND g.value = '<module>' AND depth = 1"),
			 7);
	sqlite3_close(a);
}

/* 1 when every page of [buf, buf + n) is resident (mincore) */
static int resident(const uint8_t *buf, size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)buf & ~(uintptr_t)(page - 1);
	size_t len = (size_t)((uintptr_t)buf + n - a), pages = (len + page - 1) / page, i;
	unsigned char *v = malloc(pages);
	int all = v && mincore((void *)a, len, v) == 0;

	for (i = 0; all && i < pages; i++)
		all = v[i] & 1;
	free(v);
	return all;
}

/* The pool the decode thread keeps for CUPTI's requests: with 1 MiB
 * buffers, 4 of them (32 MiB / 1 MiB, at most 4) with every page resident
 * once the decode loop has run; taken, they are made again; an empty one
 * handed back goes straight to the pool. With 64 MiB
 * buffers (above 32 MiB) none. The decode loop's stock-up comes before the
 * commit that a sync waits for, so the counts are exact after a sync. */
static void test_pool_keeps_faulted_in_buffers(void **state)
{
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	uint8_t *taken[4];
	struct gs_event ev = graph_event(1);
	int i;

	(void)state;
	open_pipelined(&w, &d, &p, 16, 1u << 20);
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	gs_pipeline_kick(p);
	assert_int_equal(gs_pipeline_sync(p, 0), 0);
	assert_int_equal(gs_pipeline_free_buffers(p), 4);
	for (i = 0; i < 4; i++) {
		taken[i] = gs_pipeline_get_buffer(p);
		assert_non_null(taken[i]);
		assert_true(resident(taken[i], 1u << 20));
	}
	assert_int_equal(gs_pipeline_free_buffers(p), 0);
	/* one handed back empty, as CUPTI does at a flush: straight back to
	 * the pool; the decode loop's next pass makes it up to 4 again */
	assert_int_equal(gs_pipeline_submit(p, taken[0], 1u << 20, 0), 0);
	assert_int_equal(gs_pipeline_free_buffers(p), 1);
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	gs_pipeline_kick(p);
	assert_int_equal(gs_pipeline_sync(p, 0), 0);
	assert_int_equal(gs_pipeline_free_buffers(p), 4);
	for (i = 1; i < 4; i++)
		gs_buffer_free(taken[i], 1u << 20);
	gs_pipeline_stop(p);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);
	rm_db(path_p);

	open_pipelined(&w, &d, &p, 16, 64u << 20);
	assert_int_equal(gs_pipeline_event(p, &ev), 0);
	gs_pipeline_kick(p);
	assert_int_equal(gs_pipeline_sync(p, 0), 0);
	assert_int_equal(gs_pipeline_free_buffers(p), 0);
	gs_pipeline_stop(p);
	gs_decoder_free(&d);
	assert_int_equal(gs_writer_finalize(w, STOP_NS), 0);
}

static long minor_faults(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return u.ru_minflt;
}

/* gs_buffer_alloc's buffers are not shared with a forked child: after a
 * fork, writing every page of a plain private mapping (the control) takes
 * a copy-on-write fault per page in the parent, writing ours none; the
 * child reads ours wiped (0) and the control as the parent left it (1). */
static void test_buffers_are_not_shared_with_a_forked_child(void **state)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = 1u << 20;
	const size_t pages = bytes / page;
	uint8_t *ours, *plain;
	void *probe;
	long f0, f1, f2;
	int to_child[2], from_child[2];
	char seen[2] = {9, 9};
	pid_t pid;
	int status;
	(void)state;

	probe = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(probe != MAP_FAILED);
	if (madvise(probe, page, 18 /* MADV_WIPEONFORK */) != 0) {
		munmap(probe, page);
		skip(); /* a kernel before 4.14, or a sandbox without it */
	}
	munmap(probe, page);
	ours = gs_buffer_alloc(bytes);
	plain = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_non_null(ours);
	assert_true(plain != MAP_FAILED);
	memset(ours, 1, bytes);
	memset(plain, 1, bytes);
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(from_child), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) { /* the child: what it sees, then wait for the parent */
		char c, got[2] = {(char)ours[bytes / 2], (char)plain[bytes / 2]};
		close(to_child[1]); /* read() ends when the parent closes its end */
		if (write(from_child[1], got, 2) != 2 || read(to_child[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(from_child[0], seen, 2), 2);
	f0 = minor_faults();
	memset(plain, 2, bytes);
	f1 = minor_faults();
	memset(ours, 2, bytes);
	f2 = minor_faults();
	close(to_child[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(to_child[0]);
	close(from_child[0]);
	close(from_child[1]);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[1], 1);
	assert_true(f1 - f0 >= (long)pages);
	assert_true(f2 - f1 < (long)pages / 16);
	gs_buffer_free(ours, bytes);
	munmap(plain, bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_pipelined_rows_have_the_expected_values, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pipelined_equals_single_thread, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pipelined_sqlite_error_warns_once_and_never_hangs,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_logged_rows_of_every_kind_applied_with_their_values, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_events_wait_for_a_kick_or_a_full_batch, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pool_keeps_faulted_in_buffers, setup, teardown),
	    cmocka_unit_test(test_buffers_are_not_shared_with_a_forked_child),
	    cmocka_unit_test_setup_teardown(test_every_event_kind_survives_the_batch, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_call_sites_survive_the_batch, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
