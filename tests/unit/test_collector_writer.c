/*
 * test_collector_writer.c - the collector's SQLite writer (collector/writer.c):
 * string interning, exact round trips of every row type, finalize (indexes,
 * single-file journal, trace_open accepts it), the implicit synchronisations
 * derived at finalize (each case, and the cases that must not fire), and
 * the unwritable-path fault. Expected values are written out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "internal.h"
#include "trace.h"

static char dir[64];
static char path[128];
static int n_log_lines;
static char last_log[512];

static void sink(const char *line, void *ctx)
{
	(void)ctx;
	n_log_lines++;
	snprintf(last_log, sizeof(last_log), "%s", line);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-writer-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	gs_warnings_reset();
	gs_log_set_sink(sink, NULL);
	gs_log_set_level(GS_LOG_WARN);
	n_log_lines = 0;
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
	gs_log_set_sink(NULL, NULL);
	return 0;
}

static struct gs_writer *open_writer(void)
{
	struct gs_writer *w = NULL;
	char err[256] = "";
	if (gs_writer_open(&w, path, 0, err, sizeof(err)) != 0)
		fail_msg("gs_writer_open: %s", err);
	return w;
}

static sqlite3 *open_db(void)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -999;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -777 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
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
		fail_msg("%s: got \"%s\", want \"%s\"", sql, got, want);
	free(got);
}

/* ------------------------------------------------------------------ */

static void test_intern_same_string_same_id(void **state)
{
	struct gs_writer *w = open_writer();
	char buf[32];
	int64_t ids[3000];
	int i;
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	assert_int_equal(gs_writer_intern(w, "alpha"), 1);
	assert_int_equal(gs_writer_intern(w, "beta"), 2);
	assert_int_equal(gs_writer_intern(w, "alpha"), 1);
	assert_int_equal(gs_writer_intern(w, NULL), 0);
	/* Many distinct strings (forces the table to grow several times):
	 * all distinct ids, and each found again after the growth. */
	for (i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "kernel_%d<float>", i);
		ids[i] = gs_writer_intern(w, buf);
		assert_int_equal(ids[i], 3 + i);
	}
	for (i = 0; i < 3000; i++) {
		snprintf(buf, sizeof(buf), "kernel_%d<float>", i);
		assert_int_equal(gs_writer_intern(w, buf), ids[i]);
	}
	assert_int_equal(gs_writer_intern(w, "beta"), 2);
	assert_int_equal(gs_writer_string_count(w), 3002);
	gs_writer_commit(w);
	gs_writer_close(w);

	db = open_db();
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM strings"), 3002);
	assert_int_equal(q_int(db, "SELECT COUNT(DISTINCT value) FROM strings"), 3002);
	assert_text(db, "SELECT value FROM strings WHERE id = 2", "beta");
	assert_text(db, "SELECT value FROM strings WHERE id = 1002", "kernel_999<float>");
	sqlite3_close(db);
}

/* The name a second process takes: "-<tag>" before the extension of the
 * last path component, appended where it has none. */
static void test_trace_alt_path(void **state)
{
	char out[64];
	(void)state;

	assert_int_equal(gs_trace_alt_path("run.db", "7", out, sizeof(out)), 0);
	assert_string_equal(out, "run-7.db");
	assert_int_equal(gs_trace_alt_path("/t/a.b/trace", "7", out, sizeof(out)), 0);
	assert_string_equal(out, "/t/a.b/trace-7");
	assert_int_equal(gs_trace_alt_path("x.tar.gz", "[0-9]*", out, sizeof(out)), 0);
	assert_string_equal(out, "x.tar-[0-9]*.gz");
	assert_int_equal(gs_trace_alt_path("d/.hidden", "7", out, sizeof(out)), 0);
	assert_string_equal(out, "d/.hidden-7");
	assert_int_equal(gs_trace_alt_path("run.db", "1234", out, 11), -1); /* run-1234.db + NUL */
	assert_int_equal(gs_trace_alt_path("run.db", "1234", out, 12), 0);
}

/* Two writers given one name, as two CUDA processes under one fixed
 * `-o run.db` (flock() locks belong to an open file, so two opens in one
 * process conflict like two processes): the second takes t-<pid>.db and
 * warns once, neither disturbs the other's rows; once the first has
 * closed, the name is free again. */
static void test_second_writer_of_a_name_takes_its_own(void **state)
{
	struct gs_writer *a = open_writer(), *b, *c;
	struct gs_kernel k = {.start = 100, .end = 200};
	char alt[160];
	sqlite3 *db;
	(void)state;

	b = open_writer();
	snprintf(alt, sizeof(alt), "%s/t-%ld.db", dir, (long)getpid());
	assert_string_equal(gs_writer_path(a), path);
	assert_string_equal(gs_writer_path(b), alt);
	assert_int_equal(n_log_lines, 1);
	assert_non_null(strstr(last_log, "t.db holds another process's trace of this run; this "
					 "process (pid"));
	assert_non_null(strstr(last_log, alt));

	gs_writer_begin(a);
	assert_int_equal(gs_writer_kernel(a, &k), 0);
	assert_int_equal(gs_writer_kernel(a, &k), 0);
	assert_int_equal(gs_writer_commit(a), 0);
	gs_writer_begin(b);
	assert_int_equal(gs_writer_kernel(b, &k), 0);
	assert_int_equal(gs_writer_commit(b), 0);
	assert_int_equal(gs_writer_finalize(b, 5), 0);
	assert_int_equal(gs_writer_finalize(a, 5), 0);

	db = open_db();
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels"), 2);
	sqlite3_close(db);
	assert_int_equal(sqlite3_open_v2(alt, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels"), 1);
	sqlite3_close(db);

	c = open_writer(); /* a has finished: the name is free, and replaced */
	assert_string_equal(gs_writer_path(c), path);
	assert_int_equal(n_log_lines, 1);
	gs_writer_close(c);
	unlink(alt);
}

/* Within one `gapscope record` run (run_start_ns), a trace that a process
 * of the run wrote and closed is not replaced by a later process given the
 * same name (a script running two CUDA programs one after the other): the
 * later one takes t-<pid>.db. A file written before the run began is
 * replaced, as outside a run. */
static void test_trace_of_this_run_is_kept(void **state)
{
	struct gs_writer *a, *b;
	struct gs_kernel k = {.start = 100, .end = 200};
	struct timespec now;
	char err[256] = "", alt[160];
	int64_t start_ns;
	sqlite3 *db;
	FILE *f;
	(void)state;

	/* an old file: written, then the run begins */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("an earlier run's trace", f);
	fclose(f);
	usleep(20000); /* file times use the coarse clock: 4 ms ticks at most */
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	start_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	usleep(20000);

	assert_int_equal(gs_writer_open(&a, path, start_ns, err, sizeof(err)), 0);
	assert_string_equal(gs_writer_path(a), path); /* older: replaced */
	gs_writer_begin(a);
	assert_int_equal(gs_writer_kernel(a, &k), 0);
	assert_int_equal(gs_writer_commit(a), 0);
	assert_int_equal(gs_writer_finalize(a, 5), 0);
	assert_int_equal(n_log_lines, 0);

	assert_int_equal(gs_writer_open(&b, path, start_ns, err, sizeof(err)), 0);
	snprintf(alt, sizeof(alt), "%s/t-%ld.db", dir, (long)getpid());
	assert_string_equal(gs_writer_path(b), alt);
	assert_int_equal(n_log_lines, 1);
	assert_non_null(strstr(last_log, "holds another process's trace of this run"));
	assert_int_equal(gs_writer_finalize(b, 5), 0);

	db = open_db();
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels"), 1);
	sqlite3_close(db);
	unlink(alt);
}

static void test_round_trip_kernel(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_kernel k = {
	    .start = 1000000123,
	    .end = 1000004567,
	    .device = 1,
	    .context = 2,
	    .stream = 13,
	    .correlation_id = 77,
	    .grid_x = 1024,
	    .grid_y = 2,
	    .grid_z = 3,
	    .block_x = 512,
	    .block_y = 1,
	    .block_z = 1,
	    .registers = 32,
	    .static_shared = 4096,
	    .dynamic_shared = 128,
	    .local_memory = 16,
	    .graph_id = 5,
	    .graph_node_id = 4294967301ull, /* > 32 bits */
	    .has_latency = 0,
	    .queued = 999,
	    .submitted = 998,
	    .launch_type = 0,
	    .is_device_launched = 0,
	};
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	k.name_id = gs_writer_intern(w, "_Z6kernelIfEvPT_i");
	assert_int_equal(gs_writer_kernel(w, &k), 0);
	k.start = 2000000000;
	k.end = 2000000100;
	k.has_latency = 1;
	k.queued = 1999999000;
	k.submitted = 1999999500;
	assert_int_equal(gs_writer_kernel(w, &k), 0);
	gs_writer_commit(w);
	gs_writer_close(w);

	db = open_db();
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels"), 2);
	assert_text(
	    db,
	    "SELECT printf('%d %d %d %d %d %d %s %d %d %d %d %d %d %d %d %d %d %d %d', start, "
	    "end, device, context, stream, correlation_id, s.value, grid_x, grid_y, grid_z, "
	    "block_x, block_y, block_z, registers, static_shared_bytes, dynamic_shared_bytes, "
	    "local_memory_bytes, graph_id, graph_node_id) FROM kernels k JOIN strings s ON "
	    "s.id = k.name_id ORDER BY start LIMIT 1",
	    "1000000123 1000004567 1 2 13 77 _Z6kernelIfEvPT_i 1024 2 3 512 1 1 32 4096 128 "
	    "16 5 4294967301");
	/* without latency: NULL, not the stale fields */
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels WHERE queued IS NULL AND "
				   "submitted IS NULL AND start = 1000000123"),
			 1);
	assert_int_equal(q_int(db, "SELECT queued FROM kernels WHERE start = 2000000000"),
			 1999999000);
	assert_int_equal(q_int(db, "SELECT submitted FROM kernels WHERE start = 2000000000"),
			 1999999500);
	sqlite3_close(db);
}

/* Parameters whose value did not change are not re-bound (writer.c keeps
 * what is bound): rows that repeat, change, or go NULL -> value -> NULL must
 * still come out exactly as given. */
static void test_rows_repeating_and_changing_values_exact(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_sync s = {
	    .start = 100,
	    .end = 200,
	    .kind = GS_SYNC_EVENT,
	    .device = -1,
	    .context = 1,
	    .stream = -1,
	    .event = 9,
	    .correlation_id = 5,
	    .pid = -1,
	    .tid = -1,
	};
	struct gs_kernel k = {
	    .start = 10,
	    .end = 20,
	    .device = 0,
	    .context = 1,
	    .stream = 7,
	    .correlation_id = 1,
	    .grid_x = 8,
	    .grid_y = 1,
	    .grid_z = 1,
	    .block_x = 256,
	    .block_y = 1,
	    .block_z = 1,
	};
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	assert_int_equal(gs_writer_sync(w, &s), 0);
	/* same row again but event NULL, stream set, device set */
	s.start = 300, s.end = 400, s.event = -1, s.stream = 3, s.device = 2, s.correlation_id = 6;
	assert_int_equal(gs_writer_sync(w, &s), 0);
	/* back: event set again to the first value, stream NULL */
	s.start = 500, s.end = 600, s.event = 9, s.stream = -1, s.correlation_id = 7;
	assert_int_equal(gs_writer_sync(w, &s), 0);

	assert_int_equal(gs_writer_kernel(w, &k), 0);
	k.start = 30, k.end = 40, k.correlation_id = 2, k.has_latency = 1, k.queued = 25,
	k.submitted = 27;
	assert_int_equal(gs_writer_kernel(w, &k), 0);
	k.start = 50, k.end = 60, k.correlation_id = 3, k.has_latency = 0, k.stream = 8;
	assert_int_equal(gs_writer_kernel(w, &k), 0);
	gs_writer_commit(w);
	gs_writer_close(w);

	db = open_db();
	assert_text(db,
		    "SELECT group_concat(printf('%d-%d e%s s%s d%s c%d', start, end,"
		    " ifnull(event, 'N'), ifnull(stream, 'N'), ifnull(device, 'N'),"
		    " correlation_id), ' | ') FROM (SELECT * FROM syncs ORDER BY id)",
		    "100-200 e9 sN dN c5 | 300-400 eN s3 d2 c6 | 500-600 e9 sN d2 c7");
	assert_text(db,
		    "SELECT group_concat(printf('%d s%d q%s u%s g%d b%d', start, stream,"
		    " ifnull(queued, 'N'), ifnull(submitted, 'N'), grid_x, block_x), ' | ')"
		    " FROM (SELECT * FROM kernels ORDER BY id)",
		    "10 s7 qN uN g8 b256 | 30 s7 q25 u27 g8 b256 | 50 s8 qN uN g8 b256");
	sqlite3_close(db);
}

/* Ids are remembered by string address too (CUPTI shares a kernel's name
 * pointer): a buffer reused for another text must get that text's id. */
static void test_intern_reused_address_new_text(void **state)
{
	struct gs_writer *w = open_writer();
	char buf[64];
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	snprintf(buf, sizeof(buf), "_Z3fooPf");
	assert_int_equal(gs_writer_intern(w, buf), 1);
	assert_int_equal(gs_writer_intern(w, buf), 1);
	snprintf(buf, sizeof(buf), "_Z3barPf");
	assert_int_equal(gs_writer_intern(w, buf), 2);
	snprintf(buf, sizeof(buf), "_Z3fooPf");
	assert_int_equal(gs_writer_intern(w, buf), 1);
	assert_int_equal(gs_writer_intern(w, "_Z3barPf"), 2);
	gs_writer_commit(w);
	gs_writer_close(w);

	db = open_db();
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM strings"), 2);
	assert_text(db, "SELECT value FROM strings WHERE id = 2", "_Z3barPf");
	sqlite3_close(db);
}

/* Stream capture: the graph is created when the capture begins (origin 0 at
 * first) and marked when cudaStreamEndCapture returns it. */
static void test_captured_graph_origin_2(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_event ev;
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH;
	ev.u.graph.original_graph_id = -1;
	ev.u.graph.device = -1;
	ev.u.graph.context = -1;
	ev.u.graph.graph_id = 3; /* built with cudaGraphCreate: stays 0 */
	ev.u.graph.created = 100;
	assert_int_equal(gs_apply_event(w, &ev), 0);
	ev.u.graph.graph_id = 4; /* created at cudaStreamBeginCapture */
	ev.u.graph.created = 200;
	assert_int_equal(gs_apply_event(w, &ev), 0);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_CAPTURED;
	ev.u.captured.graph_id = 4;
	ev.u.captured.when = 900;
	assert_int_equal(gs_apply_event(w, &ev), 0);
	assert_int_equal(gs_apply_event(w, &ev), 0); /* runtime + nested driver call */
	ev.u.captured.graph_id = 5;		     /* creation not seen: row added */
	ev.u.captured.when = 950;
	assert_int_equal(gs_apply_event(w, &ev), 0);
	gs_writer_commit(w);
	gs_writer_close(w);

	db = open_db();
	assert_text(db,
		    "SELECT group_concat(printf('%d:%d@%d', graph_id, origin, created), ' ')"
		    " FROM (SELECT * FROM graphs ORDER BY graph_id)",
		    "3:0@100 4:2@200 5:2@950");
	sqlite3_close(db);
}

/* Node changes after creation (cudaGraphExec*NodeSetParams and the like):
 * one row each, exact values, unknown graph/exec stored as NULL. */
static void test_graph_node_updates(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_event ev;
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_NODE_UPDATE;
	ev.u.update.time = 1000;
	ev.u.update.kind = GS_NODE_UPDATE_PARAMS;
	ev.u.update.node_id = 0x1c00000007ull; /* CUPTI node ids are 64-bit */
	ev.u.update.graph_id = 28;
	ev.u.update.exec_id = 29;
	assert_int_equal(gs_apply_event(w, &ev), 0);
	ev.u.update.time = 1500;
	ev.u.update.kind = GS_NODE_UPDATE_NODE;
	ev.u.update.graph_id = -1;
	ev.u.update.exec_id = -1;
	assert_int_equal(gs_apply_event(w, &ev), 0);
	gs_writer_commit(w);
	gs_writer_close(w);

	db = open_db();
	assert_text(db,
		    "SELECT group_concat(printf('%d:%d:%d:%s:%s', time, kind, node_id,"
		    " ifnull(graph_id, 'null'), ifnull(exec_id, 'null')), ' ')"
		    " FROM (SELECT * FROM graph_node_updates ORDER BY time)",
		    "1000:2:120259084295:28:29 1500:1:120259084295:null:null");
	sqlite3_close(db);
}

static void test_round_trip_other_rows(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_api_call a = {.api = GS_API_RUNTIME,
				.cbid = 211,
				.start = 10,
				.end = 25,
				.pid = 4321,
				.tid = 4322,
				.correlation_id = 9,
				.return_code = 2};
	struct gs_memcpy m = {.start = 30,
			      .end = 90,
			      .device = 0,
			      .context = 1,
			      .stream = 7,
			      .correlation_id = 9,
			      .bytes = 1 << 20,
			      .copy_kind = GS_COPY_HTOD,
			      .src_kind = GS_MEM_PAGEABLE,
			      .dst_kind = GS_MEM_DEVICE,
			      .is_async = 1,
			      .src_device = -1,
			      .dst_device = -1};
	struct gs_memset s = {.start = 100,
			      .end = 110,
			      .device = 0,
			      .context = 1,
			      .stream = 7,
			      .correlation_id = 11,
			      .bytes = 4096,
			      .value = 255,
			      .mem_kind = GS_MEM_DEVICE,
			      .is_async = 0,
			      .graph_id = 3,
			      .graph_node_id = 4};
	struct gs_sync y = {.start = 200,
			    .end = 300,
			    .kind = GS_SYNC_STREAM,
			    .device = -1,
			    .context = 1,
			    .stream = 7,
			    .event = -1,
			    .correlation_id = 12,
			    .pid = -1,
			    .tid = -1};
	struct gs_nvtx n = {.start = 5,
			    .end = 400,
			    .kind = GS_NVTX_RANGE,
			    .category = 3,
			    .color = 0xff00ff00,
			    .pid = 4321,
			    .tid = 4322};
	struct gs_overhead o = {
	    .kind = 1, .start = 50, .end = 60, .object_kind = 2, .object_id = 4322};
	struct gs_device d = {.id = 0,
			      .name = "NVIDIA H200",
			      .uuid = "GPU-0011",
			      .cc_major = 9,
			      .cc_minor = 0,
			      .sm_count = 132,
			      .core_clock_khz = 1980000,
			      .memory_clock_khz = -1,
			      .global_memory_bytes = 150000000000ll,
			      .l2_cache_bytes = 52428800,
			      .max_threads_per_block = 1024};
	struct gs_process p = {.pid = 4321,
			       .hostname = "node7",
			       .command_line = "./app -n 3",
			       .start_ns = 1,
			       .end_ns = 0,
			       .exit_reason = NULL};
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	a.name_id = gs_writer_intern(w, "cudaMemcpyAsync_v3020");
	n.text_id = gs_writer_intern(w, "step <1> \"quoted\"");
	n.domain_id = 0;
	assert_int_equal(gs_writer_api_call(w, &a), 0);
	a.start = 40; /* same thread again: still one threads row */
	a.correlation_id = 10;
	assert_int_equal(gs_writer_api_call(w, &a), 0);
	assert_int_equal(gs_writer_memcpy(w, &m), 0);
	assert_int_equal(gs_writer_memset(w, &s), 0);
	assert_int_equal(gs_writer_sync(w, &y), 0);
	assert_int_equal(gs_writer_nvtx(w, &n), 0);
	assert_int_equal(gs_writer_overhead(w, &o), 0);
	assert_int_equal(gs_writer_device(w, &d), 0);
	assert_int_equal(gs_writer_process(w, &p), 0);
	assert_int_equal(gs_writer_meta(w, "command_line", "./app -n 3"), 0);
	assert_int_equal(gs_writer_meta_int(w, "pid", 4321), 0);
	gs_writer_commit(w);
	gs_writer_close(w);

	db = open_db();
	assert_text(
	    db,
	    "SELECT printf('%d %d %s %d %d %d %d %d %d', api, cbid, s.value, start, end, pid, "
	    "tid, correlation_id, return_code) FROM api_calls a JOIN strings s ON s.id = "
	    "a.name_id ORDER BY start LIMIT 1",
	    "1 211 cudaMemcpyAsync_v3020 10 25 4321 4322 9 2");
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM threads"), 1);
	assert_int_equal(q_int(db, "SELECT pid FROM threads WHERE tid = 4322"), 4321);
	assert_text(
	    db,
	    "SELECT printf('%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d', start, end, "
	    "device, context, stream, correlation_id, bytes, copy_kind, src_kind, dst_kind, "
	    "is_async, src_device IS NULL, dst_device IS NULL, graph_id, graph_node_id) "
	    "FROM memcpys",
	    "30 90 0 1 7 9 1048576 1 1 3 1 1 1 0 0");
	assert_text(db,
		    "SELECT printf('%d %d %d %d %d %d %d %d %d %d %d %d', start, end, device, "
		    "context, stream, correlation_id, bytes, value, mem_kind, is_async, graph_id, "
		    "graph_node_id) FROM memsets",
		    "100 110 0 1 7 11 4096 255 3 0 3 4");
	assert_text(db,
		    "SELECT printf('%d %d %d %d %d %d %d %d %d %d', start, end, kind, implicit, "
		    "reason_id IS NULL, device IS NULL, context, stream, event IS NULL, "
		    "correlation_id) FROM syncs",
		    "200 300 3 0 1 1 1 7 1 12");
	assert_text(db,
		    "SELECT printf('%d %d %d %s %d %d %d %d %d', start, end, kind, s.value, "
		    "domain_id IS NULL, category, color, pid, tid) FROM nvtx n JOIN strings s ON "
		    "s.id = n.text_id",
		    "5 400 0 step <1> \"quoted\" 1 3 4278255360 4321 4322");
	assert_text(db,
		    "SELECT printf('%d %d %d %d %d', kind, start, end, object_kind, "
		    "object_id) FROM overhead",
		    "1 50 60 2 4322");
	assert_text(db,
		    "SELECT printf('%d %s %s %d %d %d %d %d %d %d %d', id, name, uuid, cc_major, "
		    "cc_minor, sm_count, core_clock_khz, memory_clock_khz IS NULL, "
		    "global_memory_bytes, l2_cache_bytes, max_threads_per_block) FROM devices",
		    "0 NVIDIA H200 GPU-0011 9 0 132 1980000 1 150000000000 52428800 1024");
	assert_text(db,
		    "SELECT printf('%d %s %s %d', pid, hostname, command_line, start_ns) "
		    "FROM processes",
		    "4321 node7 ./app -n 3 1");
	assert_text(db, "SELECT value FROM meta WHERE key = 'pid'", "4321");
	assert_text(db, "SELECT value FROM meta WHERE key = 'schema_version'", "2");
	sqlite3_close(db);
}

static void test_finalize_gives_one_file_trace_open_accepts(void **state)
{
	struct gs_writer *w = open_writer();
	struct trace t;
	char err[256] = "", wal[160], *v;
	struct stat st;
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	gs_writer_meta(w, "collector_version", GS_COLLECTOR_VERSION);
	gs_writer_commit(w);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_equal(stat(wal, &st), 0); /* WAL while recording */
	assert_int_equal(gs_writer_finalize(w, 123456789), 0);
	assert_int_not_equal(stat(wal, &st), 0); /* one self-contained file */

	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(t.schema_version, 2);
	v = trace_meta(&t, "finalized");
	assert_string_equal(v, "1");
	free(v);
	v = trace_meta(&t, "stop_ns");
	assert_string_equal(v, "123456789");
	free(v);
	trace_close(&t);

	db = open_db();
	assert_text(db, "PRAGMA journal_mode", "delete");
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND "
				   "name IN ('kernels_start', 'kernels_corr', 'api_calls_corr', "
				   "'api_calls_start', 'syncs_start', 'nvtx_start')"),
			 6);
	sqlite3_close(db);
}

static void test_unwritable_path_fails_with_reason(void **state)
{
	struct gs_writer *w = (struct gs_writer *)0x1;
	char err[256] = "", bad[160];
	(void)state;

	snprintf(bad, sizeof(bad), "%s/no-such-dir/t.db", dir);
	assert_int_equal(gs_writer_open(&w, bad, 0, err, sizeof(err)), -1);
	assert_null(w);
	assert_non_null(strstr(err, "cannot create"));
	assert_non_null(strstr(err, "No such file or directory"));
	/* a directory where the file should be */
	assert_int_equal(gs_writer_open(&w, dir, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Is a directory"));
	/* the writer itself never prints: the collector decides */
	assert_int_equal(n_log_lines, 0);
}

static void test_sqlite_error_warns_once_and_stops(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_kernel k = {.start = 1, .end = 2};
	sqlite3 *db;
	(void)state;

	/* Another connection holds the write lock: our commit fails with
	 * SQLITE_BUSY, like any SQLite error the writer cannot fix. */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	gs_writer_begin(w);
	assert_int_equal(gs_writer_kernel(w, &k), -1);
	assert_int_not_equal(gs_writer_failed(w), 0);
	assert_int_equal(gs_writer_kernel(w, &k), -1);
	assert_int_equal(gs_writer_commit(w), -1);
	assert_int_equal(n_log_lines, 1);
	assert_non_null(strstr(last_log, "recording stops here, the application continues"));
	assert_int_equal(gs_writer_finalize(w, 5), -1);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	assert_int_equal(n_log_lines, 1);
}

/* A write that the system refuses mid-recording, made with RLIMIT_FSIZE
 * 192 KiB above the files' sizes once the writer is open (SIGXFSZ
 * ignored; SQLite retries a short write, and the retry fails with EFBIG:
 * SQLITE_IOERR_WRITE): 10 batches of 100 kernels, each committed, grow the
 * WAL by one 64 KiB page or more per commit, so a commit fails after a
 * few. One warning, every later call fails quietly, finalize fails, and
 * the batches committed before the failure are in the trace, whole. (A
 * full disk, ENOSPC, is SQLite's SQLITE_FULL and the same path with the
 * words "disk full"; it cannot be made here without mounting a file
 * system.) */
static void test_write_refused_warns_once_keeps_committed_rows(void **state)
{
	struct gs_writer *w = open_writer();
	struct rlimit old, lim;
	struct stat st;
	void (*old_sig)(int);
	char wal[160];
	off_t biggest;
	int i, failed_at = -1;
	sqlite3 *db;
	int64_t rows;
	(void)state;

	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_equal(stat(path, &st), 0);
	biggest = st.st_size;
	if (stat(wal, &st) == 0 && st.st_size > biggest)
		biggest = st.st_size;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = (rlim_t)biggest + 192 * 1024;
	old_sig = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < 1000 && failed_at < 0; i++) {
		struct gs_kernel k = {.start = 1000 + 10 * i, .end = 1005 + 10 * i};
		if (i % 100 == 0 && gs_writer_begin(w) != 0)
			failed_at = i;
		else if (gs_writer_kernel(w, &k) != 0)
			failed_at = i;
		else if (i % 100 == 99 && gs_writer_commit(w) != 0)
			failed_at = i;
	}
	assert_int_equal(gs_writer_finalize(w, 5), -1);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, old_sig);

	assert_true(failed_at >= 199 && failed_at < 1000);
	assert_int_equal(n_log_lines, 1);
	assert_non_null(strstr(last_log, "SQLite error while committing a batch: disk I/O error; "
					 "recording stops here, the application continues"));
	db = open_db();
	rows = q_int(db, "SELECT count(*) FROM kernels");
	assert_true(rows >= 100 && rows % 100 == 0 && rows <= failed_at);
	assert_int_equal(q_int(db, "SELECT max(start) FROM kernels"), 1000 + 10 * (rows - 1));
	sqlite3_close(db);
}

static void test_implicit_api_names(void **state)
{
	const char *r = NULL;
	(void)state;
	assert_int_equal(gs_implicit_api_class("cudaMalloc_v3020", &r), GS_SYNC_IMPLICIT_ALLOC);
	assert_string_equal(r, "cudaMalloc in steady state (after the first kernel launch)");
	assert_int_equal(gs_implicit_api_class("cudaFree_v3020", &r), GS_SYNC_IMPLICIT_ALLOC);
	assert_string_equal(r, "cudaFree synchronizes the device");
	assert_int_equal(gs_implicit_api_class("cuMemAlloc_v2", &r), GS_SYNC_IMPLICIT_ALLOC);
	assert_int_equal(gs_implicit_api_class("cuMemFree_v2", &r), GS_SYNC_IMPLICIT_ALLOC);
	assert_int_equal(gs_implicit_api_class("cudaDeviceSetLimit_v3020", &r),
			 GS_SYNC_IMPLICIT_DEVICE_WIDE);
	assert_int_equal(gs_implicit_api_class("cuCtxSetLimit", &r), GS_SYNC_IMPLICIT_DEVICE_WIDE);
	/* stream-ordered allocation does not synchronize */
	assert_int_equal(gs_implicit_api_class("cudaMallocAsync_v11020", &r), 0);
	assert_int_equal(gs_implicit_api_class("cudaFreeAsync_v11020", &r), 0);
	assert_int_equal(gs_implicit_api_class("cudaLaunchKernel_v7000", &r), 0);
	assert_int_equal(gs_implicit_api_class("cudaMallocX", &r), 0);
	assert_int_equal(gs_implicit_api_class(NULL, &r), 0);
}

/* helpers for the implicit-sync scenario */
static void api(struct gs_writer *w, int kind, const char *name, uint64_t start, uint64_t end,
		uint32_t corr)
{
	struct gs_api_call a = {.api = kind,
				.cbid = 1,
				.start = start,
				.end = end,
				.pid = 100,
				.tid = 101,
				.correlation_id = corr};
	const char *reason;
	int ik;

	a.name_id = gs_writer_intern(w, name);
	ik = gs_implicit_api_class(name, &reason);
	if (ik)
		gs_writer_implicit_api(w, a.name_id, ik, reason);
	assert_int_equal(gs_writer_api_call(w, &a), 0);
}

static void copy(struct gs_writer *w, uint32_t corr, int kind, int src, int dst, int async)
{
	struct gs_memcpy m = {.start = corr * 1000 + 10,
			      .end = corr * 1000 + 20,
			      .stream = 7,
			      .correlation_id = corr,
			      .bytes = 64,
			      .copy_kind = (uint8_t)kind,
			      .src_kind = (uint8_t)src,
			      .dst_kind = (uint8_t)dst,
			      .is_async = async,
			      .src_device = -1,
			      .dst_device = -1};
	assert_int_equal(gs_writer_memcpy(w, &m), 0);
}

static void mset(struct gs_writer *w, uint32_t corr, int mem_kind, int async)
{
	struct gs_memset m = {.start = corr * 1000 + 10,
			      .end = corr * 1000 + 20,
			      .stream = 7,
			      .correlation_id = corr,
			      .bytes = 64,
			      .mem_kind = (uint16_t)mem_kind,
			      .is_async = async};
	assert_int_equal(gs_writer_memset(w, &m), 0);
}

static void test_implicit_syncs_each_case(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_kernel k = {.start = 5500, .end = 5600, .correlation_id = 5};
	struct gs_sync ex = {.start = 9100,
			     .end = 9200,
			     .kind = GS_SYNC_STREAM,
			     .device = -1,
			     .context = 1,
			     .stream = 7,
			     .event = -1,
			     .correlation_id = 9,
			     .pid = -1,
			     .tid = -1};
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	/* before the first launch: start-up allocation, not flagged ... */
	api(w, GS_API_RUNTIME, "cudaMalloc_v3020", 1000, 1100, 1);
	/* ... but device-wide calls are flagged whenever they happen */
	api(w, GS_API_RUNTIME, "cudaDeviceSetLimit_v3020", 2000, 2300, 2);
	/* synchronous HtoD copy: flagged with the API call's span */
	api(w, GS_API_RUNTIME, "cudaMemcpy_v3020", 3000, 3500, 3);
	copy(w, 3, GS_COPY_HTOD, GS_MEM_PINNED, GS_MEM_DEVICE, 0);
	/* synchronous DtoD copy: does not block the host */
	api(w, GS_API_RUNTIME, "cudaMemcpy_v3020", 4000, 4050, 4);
	copy(w, 4, GS_COPY_DTOD, GS_MEM_DEVICE, GS_MEM_DEVICE, 0);
	/* the first kernel launch */
	api(w, GS_API_RUNTIME, "cudaLaunchKernel_v7000", 5000, 5010, 5);
	k.name_id = gs_writer_intern(w, "k");
	assert_int_equal(gs_writer_kernel(w, &k), 0);
	/* async copy from pageable memory: flagged */
	api(w, GS_API_RUNTIME, "cudaMemcpyAsync_v3020", 6000, 6400, 6);
	copy(w, 6, GS_COPY_HTOD, GS_MEM_PAGEABLE, GS_MEM_DEVICE, 1);
	/* async copy from pinned memory: fine */
	api(w, GS_API_RUNTIME, "cudaMemcpyAsync_v3020", 7000, 7010, 7);
	copy(w, 7, GS_COPY_HTOD, GS_MEM_PINNED, GS_MEM_DEVICE, 1);
	/* steady-state cudaMalloc with its nested driver call (same id) */
	api(w, GS_API_RUNTIME, "cudaMalloc_v3020", 8000, 8200, 8);
	api(w, GS_API_DRIVER, "cuMemAlloc_v2", 8050, 8150, 8);
	/* explicit stream sync from CUPTI: completed with the API call */
	api(w, GS_API_RUNTIME, "cudaStreamSynchronize_v3020", 9000, 9300, 9);
	assert_int_equal(gs_writer_sync(w, &ex), 0);
	/* steady-state cudaFree */
	api(w, GS_API_RUNTIME, "cudaFree_v3020", 10000, 10700, 10);
	/* memsets: sync on managed memory flagged; on device memory, and
	 * async on managed memory, not */
	api(w, GS_API_RUNTIME, "cudaMemset_v3020", 11000, 11100, 11);
	mset(w, 11, GS_MEM_MANAGED, 0);
	api(w, GS_API_RUNTIME, "cudaMemset_v3020", 12000, 12010, 12);
	mset(w, 12, GS_MEM_DEVICE, 0);
	api(w, GS_API_RUNTIME, "cudaMemsetAsync_v3020", 13000, 13010, 13);
	mset(w, 13, GS_MEM_MANAGED, 1);
	gs_writer_commit(w);
	assert_int_equal(gs_writer_finalize(w, 20000), 0);

	db = open_db();
	/* exactly: 2 DeviceSetLimit, 3 memcpy, 6 pageable, 8 malloc, 10 free,
	 * 11 memset; plus the explicit one (9) */
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM syncs WHERE implicit = 1"), 6);
	assert_text(
	    db,
	    "SELECT group_concat(printf('%d:%d:%d-%d', correlation_id, kind, start, end), ' ') "
	    "FROM (SELECT * FROM syncs WHERE implicit = 1 ORDER BY correlation_id)",
	    "2:20:2000-2300 3:16:3000-3500 6:17:6000-6400 8:19:8000-8200 10:19:10000-10700 "
	    "11:18:11000-11100");
	assert_text(db,
		    "SELECT s.value FROM syncs y JOIN strings s ON s.id = y.reason_id "
		    "WHERE correlation_id = 3",
		    "cudaMemcpy is synchronous: host waits for the device");
	assert_text(db,
		    "SELECT s.value FROM syncs y JOIN strings s ON s.id = y.reason_id "
		    "WHERE correlation_id = 6",
		    "cudaMemcpyAsync from pageable host memory is staged synchronously");
	assert_text(db,
		    "SELECT s.value FROM syncs y JOIN strings s ON s.id = y.reason_id "
		    "WHERE correlation_id = 8",
		    "cudaMalloc in steady state (after the first kernel launch)");
	assert_text(db,
		    "SELECT s.value FROM syncs y JOIN strings s ON s.id = y.reason_id "
		    "WHERE correlation_id = 10",
		    "cudaFree synchronizes the device");
	assert_text(db,
		    "SELECT s.value FROM syncs y JOIN strings s ON s.id = y.api_name_id "
		    "WHERE correlation_id = 8",
		    "cudaMalloc_v3020");
	assert_text(db,
		    "SELECT printf('%d %d %d', tid, pid, stream) FROM syncs "
		    "WHERE correlation_id = 6",
		    "101 100 7");
	/* the explicit row got its thread and API name */
	assert_text(db,
		    "SELECT printf('%d %d %s', implicit, tid, s.value) FROM syncs y JOIN "
		    "strings s ON s.id = y.api_name_id WHERE correlation_id = 9",
		    "0 101 cudaStreamSynchronize_v3020");
	assert_text(db, "SELECT value FROM meta WHERE key = 'finalized'", "1");
	sqlite3_close(db);
}

/* Sync and event rows made from the collector's callbacks (the default,
 * GAPSCOPE_SYNC_SOURCE=callbacks) go through the pipeline as events and are
 * completed at finalize like CUPTI's records: the sync takes the API name
 * and thread of the call with its correlation id; an event row takes the
 * record call's start, and keeps its own when no API row has that id. */
static void test_sync_and_event_rows_from_callbacks(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_event ev;
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	api(w, GS_API_RUNTIME, "cudaEventRecord_v3020", 1000, 1010, 21);
	api(w, GS_API_RUNTIME, "cudaStreamWaitEvent_v3020", 1100, 1105, 22);
	api(w, GS_API_RUNTIME, "cudaStreamSynchronize_v3020", 1200, 1900, 23);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_CUDA_EVENT;
	ev.u.cuda_event = (struct gs_cuda_event){.event = 3,
						 .stream = 13,
						 .device = 0,
						 .context = 1,
						 .correlation_id = 21,
						 .start = 1002};
	assert_int_equal(gs_apply_event(w, &ev), 0);
	/* a record whose call has no API row (runtime calls not recorded) */
	ev.u.cuda_event = (struct gs_cuda_event){.event = 4,
						 .stream = 14,
						 .device = 0,
						 .context = 1,
						 .correlation_id = 99,
						 .start = 5000};
	assert_int_equal(gs_apply_event(w, &ev), 0);
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_SYNC;
	ev.u.sync = (struct gs_sync){.start = 1101,
				     .end = 1104,
				     .kind = GS_SYNC_STREAM_WAIT_EVENT,
				     .device = 0,
				     .context = 1,
				     .stream = 7,
				     .event = 3,
				     .correlation_id = 22,
				     .pid = -1,
				     .tid = -1};
	assert_int_equal(gs_apply_event(w, &ev), 0);
	ev.u.sync = (struct gs_sync){.start = 1201,
				     .end = 1899,
				     .kind = GS_SYNC_STREAM,
				     .device = 0,
				     .context = 1,
				     .stream = 7,
				     .event = -1,
				     .correlation_id = 23,
				     .pid = -1,
				     .tid = -1};
	assert_int_equal(gs_apply_event(w, &ev), 0);
	gs_writer_commit(w);
	assert_int_equal(gs_writer_finalize(w, 3000), 0);

	db = open_db();
	assert_text(db,
		    "SELECT group_concat(printf('%d:%d@%d', event, stream, start), ' ') FROM "
		    "(SELECT * FROM events ORDER BY event)",
		    "3:13@1000 4:14@5000");
	assert_text(db,
		    "SELECT group_concat(printf('%d %d %d %d %s %d %d', kind, start, end, "
		    "coalesce(event, -1), s.value, pid, tid), '; ') FROM (SELECT * FROM syncs "
		    "WHERE implicit = 0 ORDER BY start) y JOIN strings s ON s.id = y.api_name_id",
		    "2 1101 1104 3 cudaStreamWaitEvent_v3020 100 101; "
		    "3 1201 1899 -1 cudaStreamSynchronize_v3020 100 101");
	sqlite3_close(db);
}

static void test_no_kernels_no_steady_state(void **state)
{
	struct gs_writer *w = open_writer();
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	api(w, GS_API_RUNTIME, "cudaMalloc_v3020", 1000, 1100, 1);
	api(w, GS_API_RUNTIME, "cudaFree_v3020", 2000, 2100, 2);
	gs_writer_commit(w);
	assert_int_equal(gs_writer_finalize(w, 3000), 0);
	db = open_db();
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM syncs"), 0);
	sqlite3_close(db);
}

static void test_graph_nodes_completed_from_records(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_graph g = {
	    .graph_id = 1, .original_graph_id = -1, .device = -1, .context = -1, .created = 10};
	struct gs_graph_node n = {.graph_id = 1,
				  .type = GS_NODE_KERNEL,
				  .original_node_id = -1,
				  .child_graph_id = -1,
				  .grid = {-1, -1, -1},
				  .block = {-1, -1, -1},
				  .bytes = -1,
				  .created = 11};
	struct gs_kernel k = {.start = 500,
			      .end = 600,
			      .correlation_id = 5,
			      .grid_x = 4,
			      .grid_y = 1,
			      .grid_z = 1,
			      .block_x = 128,
			      .block_y = 1,
			      .block_z = 1,
			      .graph_id = 2,
			      .graph_node_id = 20};
	struct gs_memset ms = {.start = 610,
			       .end = 620,
			       .correlation_id = 5,
			       .bytes = 256,
			       .mem_kind = GS_MEM_DEVICE,
			       .is_async = 1,
			       .graph_id = 2,
			       .graph_node_id = 21};
	struct gs_graph_launch l = {.exec_id = 2, .stream = 7, .correlation_id = 5, .tid = -1};
	sqlite3 *db;
	(void)state;

	gs_writer_begin(w);
	assert_int_equal(gs_writer_graph(w, &g), 0);
	n.node_id = 10; /* kernel node as built */
	assert_int_equal(gs_writer_graph_node(w, &n), 0);
	n.node_id = 11; /* memset node as built */
	n.type = GS_NODE_MEMSET;
	assert_int_equal(gs_writer_graph_node(w, &n), 0);
	n.node_id = 12; /* never launched: stays without facts */
	n.type = GS_NODE_KERNEL;
	assert_int_equal(gs_writer_graph_node(w, &n), 0);
	assert_int_equal(gs_writer_graph_edge(w, 1, 10, 11), 0);
	assert_int_equal(gs_writer_graph_exec(w, 2, 1, 0, 30), 0);
	n.node_id = 20; /* instantiated clones */
	n.original_node_id = 10;
	assert_int_equal(gs_writer_graph_node(w, &n), 0);
	n.node_id = 21;
	n.original_node_id = 11;
	n.type = GS_NODE_MEMSET;
	assert_int_equal(gs_writer_graph_node(w, &n), 0);
	k.name_id = gs_writer_intern(w, "_Z4stepPf");
	assert_int_equal(gs_writer_kernel(w, &k), 0);
	assert_int_equal(gs_writer_memset(w, &ms), 0);
	api(w, GS_API_RUNTIME, "cudaGraphLaunch_v10000", 400, 450, 5);
	assert_int_equal(gs_writer_graph_launch(w, &l), 0);
	gs_writer_commit(w);
	assert_int_equal(gs_writer_finalize(w, 1000), 0);

	db = open_db();
	assert_text(
	    db,
	    "SELECT group_concat(printf('%d:%s:%s:%s:%s', node_id, IFNULL((SELECT value FROM "
	    "strings WHERE id = name_id), 'N'), IFNULL(grid_x, 'N'), IFNULL(block_x, 'N'), "
	    "IFNULL(bytes, 'N')), ' ') FROM (SELECT * FROM graph_nodes ORDER BY node_id)",
	    "10:_Z4stepPf:4:128:N 11:N:N:N:256 12:N:N:N:N 20:_Z4stepPf:4:128:N "
	    "21:N:N:N:256");
	assert_text(db,
		    "SELECT printf('%d %d %d %d %d %d', exec_id, stream, correlation_id, "
		    "start, end, tid) FROM graph_launches",
		    "2 7 5 400 450 101");
	sqlite3_close(db);
}

/* The index builds at finalize sort through a temporary file; where none
 * can be written they sort in memory. SQLite puts temporary files in
 * sqlite3_temp_directory when that passes its access() check: /proc does
 * (as root; creating a file there fails), otherwise SQLite picks a
 * writable directory and the first attempt succeeds. Either way finalize
 * succeeds and every index is there. 600000 kernels: more keys than one
 * in-memory sort run (16 MiB), so the sorter does open its file. */
static void test_finalize_indexes_without_a_writable_temp_dir(void **state)
{
	struct gs_writer *w = open_writer();
	sqlite3 *db;
	char *saved = sqlite3_temp_directory;
	int i, rc;
	(void)state;

	sqlite3_temp_directory = sqlite3_mprintf("/proc");
	assert_int_equal(gs_writer_begin(w), 0);
	for (i = 0; i < 600000; i++) {
		struct gs_kernel k;
		memset(&k, 0, sizeof(k));
		k.start = (uint64_t)(600000 - i) * 1000; /* descending: a real sort */
		k.end = k.start + 10;
		k.correlation_id = (uint32_t)((int64_t)i * 7919 % 600000);
		k.device = (uint32_t)(i % 3);
		assert_int_equal(gs_writer_kernel(w, &k), 0);
	}
	assert_int_equal(gs_writer_commit(w), 0);
	rc = gs_writer_finalize(w, 1);
	sqlite3_free(sqlite3_temp_directory);
	sqlite3_temp_directory = saved;
	assert_int_equal(rc, 0);
	db = open_db();
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND "
				   "name IN ('kernels_start', 'kernels_corr', 'api_calls_corr')"),
			 3);
	assert_int_equal(q_int(db, "SELECT start FROM kernels INDEXED BY kernels_start WHERE "
				   "device = 2 ORDER BY start LIMIT 1"),
			 1000); /* i = 599999 (599999 % 3 = 2): the smallest start */
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels INDEXED BY kernels_corr WHERE "
				   "correlation_id < 1000"),
			 1000);
	/* every row in each index (not PRAGMA integrity_check: a random-order
	 * table lookup per key, 600000 page reads with a reader's cache) */
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels INDEXED BY kernels_start "
				   "WHERE device >= 0"),
			 600000);
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels INDEXED BY kernels_corr "
				   "WHERE correlation_id >= 0"),
			 600000);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_intern_same_string_same_id, setup, teardown),
	    cmocka_unit_test(test_trace_alt_path),
	    cmocka_unit_test_setup_teardown(test_second_writer_of_a_name_takes_its_own, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_trace_of_this_run_is_kept, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_round_trip_kernel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_round_trip_other_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rows_repeating_and_changing_values_exact, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_intern_reused_address_new_text, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_captured_graph_origin_2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_graph_node_updates, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_finalize_gives_one_file_trace_open_accepts, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_unwritable_path_fails_with_reason, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_finalize_indexes_without_a_writable_temp_dir,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sqlite_error_warns_once_and_stops, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_write_refused_warns_once_keeps_committed_rows,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_implicit_api_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_implicit_syncs_each_case, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sync_and_event_rows_from_callbacks, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_no_kernels_no_steady_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_graph_nodes_completed_from_records, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
