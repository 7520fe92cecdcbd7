/*
 * test_trace_load.c - cmocka tests of the trace loader (viewer/trace/trace_load.c)
 * on small databases written here with the real schema: rows whose rowids
 * are not 1..n (negative, with holes, or spread too far to size a buffer
 * from), which the loader's split of a table into rowid ranges ("parts",
 * one thread each) must still read completely and in order, whatever the
 * number of parts. Every expected value is the one inserted by the test. Writes only temporary
 * files (removed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"
#include "trace.h"
#include "trace_load.h"

/* Write a schema-v1 trace to a new temporary file with `rows` (SQL) after
 * the schema; returns its path (free it, and unlink it). */
static char *make_db(const char *rows)
{
	char *path = strdup("/tmp/gs_test_trace_load_XXXXXX");
	sqlite3 *db = NULL;
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(gs_schema_create(db), 0);
	assert_int_equal(sqlite3_exec(db, rows, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(gs_schema_create_indexes(db), 0);
	sqlite3_close(db);
	return path;
}

static void load(const char *path, struct trace *t, struct gs_input *in)
{
	char err[256];

	if (trace_open(t, path, err, sizeof(err)) != 0)
		fail_msg("trace_open: %s", err);
	if (trace_load(t, GS_LOAD_ALL, in, err, sizeof(err)) != 0)
		fail_msg("trace_load: %s", err);
}

/* kernels with rowids -3, 2, 9 (a negative one and holes: the halves of
 * the span [-3, 9] hold 1 and 2 rows, the hole between them is closed),
 * one memcpy merged in by start, and API calls with rowids 5, 6, 40. */
static void test_rowids_with_holes_and_negative_are_all_read(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'k');"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(-3,100,150,0,7,11,2,0,0),"
	    "(2,300,340,0,7,12,2,5,6),(9,500,520,0,8,13,2,0,0);"
	    "INSERT INTO memcpys(id,start,end,device,stream,correlation_id,bytes,"
	    "src_kind,dst_kind,is_async) VALUES(1,200,260,0,7,14,64,1,2,1);"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(5,1,211,1,90,95,1,42,11),(6,1,211,1,290,299,1,42,12),"
	    "(40,1,211,1,480,530,1,43,13);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;

	(void)state;
	load(path, &t, &in);
	/* 3 kernels + 1 memcpy, by start: 100, 200 (the copy), 300, 500 */
	assert_int_equal(in.n_ops, 4);
	assert_int_equal(in.ops[0].start, 100);
	assert_int_equal(in.ops[0].end, 150);
	assert_int_equal(in.ops[0].corr, 11);
	assert_int_equal(in.ops[1].start, 200);
	assert_int_equal(in.ops[1].kind, GS_OP_MEMCPY);
	/* src_kind 1 is pageable (enum gs_mem_kind), is_async 1 */
	/* and the source is the pageable side: staged before the copy */
	/* and a host source: an upload */
	assert_int_equal(in.ops[1].flags,
			 GS_OPF_PAGEABLE | GS_OPF_ASYNC | GS_OPF_PAGEABLE_SRC | GS_OPF_HOST_SRC);
	assert_int_equal(in.ops[2].start, 300);
	assert_int_equal(in.ops[2].graph_id, 5);
	assert_int_equal(in.ops[2].flags, 0); /* node 6 has no host-node predecessor */
	assert_int_equal(in.ops[3].start, 500);
	assert_int_equal(in.ops[3].stream, 8);
	assert_int_equal(in.ops[3].name_id, 2);
	/* the API calls in rowid order, every column carried */
	assert_int_equal(in.n_apis, 3);
	assert_int_equal(in.apis[0].start, 90);
	assert_int_equal(in.apis[0].end, 95);
	assert_int_equal(in.apis[0].tid, 42);
	assert_int_equal(in.apis[1].corr, 12);
	assert_int_equal(in.apis[2].start, 480);
	assert_int_equal(in.apis[2].end, 530);
	assert_int_equal(in.apis[2].tid, 43);
	assert_int_equal(in.apis[2].name_id, 1);
	assert_string_equal(gs_str(&in.strings, in.apis[2].name_id, NULL), "cudaLaunchKernel");
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* host_ranges of thread 7 - [0, 100], [10, 50], [10, 40], [20, 30],
 * [60, 70] - and thread 8's [5, 6], inserted out of order: loaded by (tid,
 * start, longer first), each with the span it runs inside */
static void test_host_spans_are_nested(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'k'),(3,'aten::x');"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1,100,150,0,7,11,2,0,0);"
	    "INSERT INTO host_ranges(start,end,name_id,pid,tid) VALUES(60,70,3,1,7),"
	    "(5,6,3,1,8),(20,30,3,1,7),(10,40,3,1,7),(0,100,3,1,7),(10,50,3,1,7);";
	static const int64_t start[] = {0, 10, 10, 20, 60, 5}, end[] = {100, 50, 40, 30, 70, 6};
	static const uint32_t parent[] = {GS_NONE, 0, 1, 2, 0, GS_NONE}, tid[] = {7, 7, 7, 7, 7, 8};
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;
	size_t i;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.n_hranges, 6);
	for (i = 0; i < 6; i++) {
		assert_int_equal(in.hranges[i].start, start[i]);
		assert_int_equal(in.hranges[i].end, end[i]);
		assert_int_equal(in.hranges[i].parent, parent[i]);
		assert_int_equal(in.hranges[i].tid, tid[i]);
		assert_int_equal(in.hranges[i].name_id, 3);
	}
	/* [22, 28) is inside [20, 30]; [55, 75) 15 of 20 in [60, 70]; [45,
	 * 95) 5 of 50 in [10, 50], so [0, 100] */
	assert_int_equal(gs_host_range_at(&in, 7, 22, 28), 3);
	assert_int_equal(gs_host_range_at(&in, 7, 55, 75), 4);
	assert_int_equal(gs_host_range_at(&in, 7, 45, 95), 0);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* A trace without host spans of its own (the collector's): its NVTX
 * ranges become them - thread 11's "step" [0, 500] and "load" [100, 200]
 * inside it; a mark, a range of thread 0 and an empty range do not */
static void test_nvtx_ranges_are_host_spans_without_host_ranges(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'k'),(3,'step'),(4,'load');"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1,100,150,0,7,11,2,0,0);"
	    "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(100,200,0,4,1,11),"
	    "(0,500,0,3,1,11),(300,300,1,4,1,11),(0,50,0,3,1,0),(400,400,0,3,1,11);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.n_hranges, 2);
	assert_int_equal(in.hranges[0].start, 0);
	assert_int_equal(in.hranges[0].name_id, 3);
	assert_int_equal(in.hranges[0].parent, GS_NONE);
	assert_int_equal(in.hranges[1].start, 100);
	assert_int_equal(in.hranges[1].name_id, 4);
	assert_int_equal(in.hranges[1].parent, 0);
	assert_int_equal(gs_host_range_at(&in, 11, 120, 180), 1);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* rowids 1 and 2^40: a span no buffer can be sized from; the table is
 * read by one unbounded job instead, still completely. One kernel only:
 * the first half is empty. */
static void test_rowids_spread_too_far_are_read_by_one_job(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'k');"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1099511627776,10,20,1,3,1,2,0,0);"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(1,1,211,1,1,4,1,9,1),(1099511627776,1,211,1,30,31,1,9,2);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.n_ops, 1);
	assert_int_equal(in.ops[0].start, 10);
	assert_int_equal(in.ops[0].device, 1);
	assert_int_equal(in.n_apis, 2);
	assert_int_equal(in.apis[0].start, 1);
	assert_int_equal(in.apis[1].start, 30);
	assert_int_equal(in.apis[1].corr, 2);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* a damaged row (end before start) loads as a zero-length op/call */
static void test_end_before_start_is_clamped(void **state)
{
	static const char rows[] =
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1,50,40,0,1,1,0,0,0);"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(1,1,211,0,30,20,1,9,1);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.n_ops, 1);
	assert_int_equal(in.ops[0].end, 50);
	assert_int_equal(in.n_apis, 1);
	assert_int_equal(in.apis[0].end, 30);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* String ids that the strings table (ids 1..3) does not hold - negative,
 * past its largest id, or past 32 bits - are read as 0 ("no string") in
 * every table that names strings; ids it holds are kept. (A damaged row
 * with name_id -5 made the analysis ask for a 32 GB per-name table.) */
static void test_string_ids_outside_the_strings_table_read_as_none(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'k'),(3,'why');"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1,100,110,0,1,1,-5,0,0),"
	    "(2,200,210,0,1,2,2,0,0),(3,300,310,0,1,3,4,0,0),(4,400,410,0,1,4,4294967298,0,0);"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(1,1,211,1,90,95,1,9,1),(2,1,211,-7,190,195,1,9,2),"
	    "(3,1,211,3,290,295,1,9,3),(4,1,211,1000,390,395,1,9,4);"
	    "INSERT INTO syncs(id,start,end,kind,implicit,reason_id,api_name_id,tid)"
	    " VALUES(1,500,600,1,1,3,1,9),(2,700,800,1,1,-1,99,9);"
	    "INSERT INTO nvtx(id,start,end,kind,text_id,domain_id,tid)"
	    " VALUES(1,0,1000,0,2,3,9),(2,10,20,0,4,-2,9);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.strings.n, 4);
	assert_int_equal(in.n_ops, 4);
	assert_int_equal(in.ops[0].name_id, 0);
	assert_int_equal(in.ops[1].name_id, 2);
	assert_int_equal(in.ops[2].name_id, 0);
	assert_int_equal(in.ops[3].name_id, 0);
	assert_int_equal(in.n_apis, 4);
	assert_int_equal(in.apis[0].name_id, 1);
	assert_int_equal(in.apis[1].name_id, 0);
	assert_int_equal(in.apis[2].name_id, 3);
	assert_int_equal(in.apis[3].name_id, 0);
	assert_int_equal(in.n_syncs, 2);
	assert_int_equal(in.syncs[0].reason_id, 3);
	assert_int_equal(in.syncs[0].api_name_id, 1);
	assert_int_equal(in.syncs[1].reason_id, 0);
	assert_int_equal(in.syncs[1].api_name_id, 0);
	assert_int_equal(in.n_nvtx, 2);
	assert_int_equal(in.nvtx[0].text_id, 2);
	assert_int_equal(in.nvtx[0].domain_id, 3);
	assert_int_equal(in.nvtx[1].text_id, 0);
	assert_int_equal(in.nvtx[1].domain_id, 0);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* GS_OPF_HOST_NODE_DEP goes by the whole 64-bit node id. CUPTI's node ids
 * carry the graph id in the high half (0x1c00000007 is node 7 of graph 28,
 * seen on the H200): graph 28 has host node 28:0 -> kernel node 28:1, and
 * its exec 29 ran the clone 29:1 of 28:1; graph 30 has a kernel node 30:1
 * with the same low half and no host predecessor. Only the ops of 28:1 and
 * 29:1 are marked. */
static void test_host_node_dep_by_full_node_id(void **state)
{
	static const char rows[] =
	    "INSERT INTO graph_nodes(node_id,graph_id,type,original_node_id) VALUES"
	    "(120259084288,28,3,NULL),(120259084289,28,0,NULL),"
	    "(124554051585,29,0,120259084289),(128849018881,30,0,NULL);"
	    "INSERT INTO graph_edges VALUES(28,120259084288,120259084289);"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1,100,110,0,7,1,0,28,120259084289),"
	    "(2,200,210,0,7,2,0,29,124554051585),(3,300,310,0,7,3,0,30,128849018881),"
	    "(4,400,410,0,7,4,0,0,0);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.n_ops, 4);
	assert_int_equal(in.ops[0].flags, GS_OPF_HOST_NODE_DEP);
	assert_int_equal(in.ops[1].flags, GS_OPF_HOST_NODE_DEP);
	assert_int_equal(in.ops[2].flags, 0);
	assert_int_equal(in.ops[3].flags, 0);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* One table split into 1, 2, 3 and 5 parts reads the same rows in the
 * same order. Kernels have rowids -3, -2, 5, 6, 7, 8, 12, 17 (span 21);
 * with 5 parts the ranges are [-3,0] [1,4] [5,8] [9,12] [13,17], holding
 * 2, 0, 4, 1, 1 rows; with 3 parts [-3,3] [4,10] [11,17] (2, 4, 2); with 2
 * [-3,6] [7,17] (4, 4): every part but the first leaves a hole before it
 * to close. API calls have rowids 1, 2, 4, 9, 10 (5 parts: 2, 1, 0, 0, 2
 * rows) and starts out of order, so their rowid order shows (API calls
 * are never sorted). Kernel starts rise with rowid, so the ops are not
 * re-sorted either and their order is the order the parts were joined. */
static void test_any_number_of_parts_reads_rows_in_rowid_order(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'k');"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(-3,100,110,0,1,47,2,0,0),"
	    "(-2,200,210,0,2,48,2,0,0),(5,300,310,0,1,55,2,0,0),(6,400,410,0,2,56,2,0,0),"
	    "(7,500,510,0,1,57,2,0,0),(8,600,610,0,2,58,2,0,0),(12,700,710,0,1,62,2,0,0),"
	    "(17,800,810,0,2,67,2,0,0);"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(1,1,211,1,500,505,1,31,1),(2,1,211,1,100,105,1,32,2),"
	    "(4,1,211,1,400,405,1,34,4),(9,1,211,1,200,205,1,39,9),"
	    "(10,1,211,1,300,305,1,40,10);";
	static const uint32_t op_corr[] = {47, 48, 55, 56, 57, 58, 62, 67};
	static const uint32_t api_corr[] = {1, 2, 4, 9, 10};
	static const int64_t api_start[] = {500, 100, 400, 200, 300};
	static const int parts[] = {1, 2, 3, 5};
	char *path = make_db(rows);
	char err[256];
	size_t p, i;

	(void)state;
	for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
		struct trace t;
		struct gs_input in;

		assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
		assert_int_equal(trace_load_parts(&t, GS_LOAD_ALL, parts[p], &in, err, sizeof(err)),
				 0);
		assert_int_equal(in.n_ops, 8);
		for (i = 0; i < 8; i++) {
			assert_int_equal(in.ops[i].corr, op_corr[i]);
			assert_int_equal(in.ops[i].start, 100 * (i + 1));
			assert_int_equal(in.ops[i].end, 100 * (i + 1) + 10);
			assert_int_equal(in.ops[i].stream, i % 2 ? 2 : 1);
			assert_int_equal(in.ops[i].kind, GS_OP_KERNEL);
		}
		assert_int_equal(in.n_apis, 5);
		for (i = 0; i < 5; i++) {
			assert_int_equal(in.apis[i].corr, api_corr[i]);
			assert_int_equal(in.apis[i].start, api_start[i]);
			assert_int_equal(in.apis[i].end, api_start[i] + 5);
			assert_int_equal(in.apis[i].tid, 30 + api_corr[i]);
		}
		trace_input_free(&in);
		trace_close(&t);
	}
	unlink(path);
	free(path);
}

/* Kernels not in (device, start) order come out sorted however the table
 * is split: in the first database a device-1 kernel sits among device 0's
 * and the starts fall back inside every split; in the second each half
 * of the rowids is in order and only the halves are not (with 2 parts,
 * [1,4] and [5,8], only the seam where the parts meet shows it). */
static void test_kernels_out_of_order_come_out_sorted_in_any_parts(void **state)
{
	static const char rows_mixed[] =
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1,500,510,0,1,1,0,0,0),(2,600,610,0,1,2,0,0,0),"
	    "(3,50,60,1,1,3,0,0,0),(4,800,810,0,1,4,0,0,0),(5,100,110,0,1,5,0,0,0),"
	    "(6,200,210,0,1,6,0,0,0),(7,300,310,0,1,7,0,0,0),(8,400,410,0,1,8,0,0,0);";
	static const char rows_seam[] =
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(1,300,310,0,1,1,0,0,0),(2,400,410,0,1,2,0,0,0),"
	    "(3,500,510,0,1,3,0,0,0),(4,600,610,0,1,4,0,0,0),(5,100,110,0,1,5,0,0,0),"
	    "(6,150,160,0,1,6,0,0,0),(7,200,210,0,1,7,0,0,0),(8,250,260,0,1,8,0,0,0);";
	/* correlation ids (= rowids) in (device, start) order */
	static const uint32_t want[2][8] = {{5, 6, 7, 8, 1, 2, 4, 3}, {5, 6, 7, 8, 1, 2, 3, 4}};
	static const int parts[] = {1, 2, 3, 5};
	const char *const dbs[2] = {rows_mixed, rows_seam};
	char err[256];
	size_t d, p, i;

	(void)state;
	for (d = 0; d < 2; d++) {
		char *path = make_db(dbs[d]);
		for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
			struct trace t;
			struct gs_input in;

			assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
			assert_int_equal(
			    trace_load_parts(&t, GS_LOAD_ALL, parts[p], &in, err, sizeof(err)), 0);
			assert_int_equal(in.n_ops, 8);
			for (i = 0; i < 8; i++)
				assert_int_equal(in.ops[i].corr, want[d][i]);
			assert_int_equal(in.ops[7].device, d == 0 ? 1 : 0);
			trace_input_free(&in);
			trace_close(&t);
		}
		unlink(path);
		free(path);
	}
}

/* More parts than rowids: API calls with rowids 40 and 42 (span 3) in 5
 * parts are the ranges [40,39] [40,40] [41,40] [41,41] [42,42] (empty
 * ranges are not read), and 1000 parts are clamped to GS_LOAD_MAX_PARTS. */
static void test_more_parts_than_rowids(void **state)
{
	static const char rows[] =
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,"
	    "graph_id,graph_node_id) VALUES(3,10,20,0,1,7,0,0,0);"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(40,1,211,0,9,9,1,5,7),(42,1,211,0,1,2,1,6,8);";
	static const int parts[] = {5, 1000};
	char *path = make_db(rows);
	char err[256];
	size_t p;

	(void)state;
	for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
		struct trace t;
		struct gs_input in;

		assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
		assert_int_equal(trace_load_parts(&t, GS_LOAD_ALL, parts[p], &in, err, sizeof(err)),
				 0);
		assert_int_equal(in.n_ops, 1);
		assert_int_equal(in.ops[0].corr, 7);
		assert_int_equal(in.ops[0].start, 10);
		assert_int_equal(in.n_apis, 2);
		assert_int_equal(in.apis[0].corr, 7);
		assert_int_equal(in.apis[0].tid, 5);
		assert_int_equal(in.apis[1].corr, 8);
		assert_int_equal(in.apis[1].start, 1);
		assert_int_equal(in.apis[1].end, 2);
		assert_int_equal(in.apis[1].tid, 6);
		trace_input_free(&in);
		trace_close(&t);
	}
	unlink(path);
	free(path);
}

/* Call-site capture times (api_stacks capture_start/capture_end): each
 * call with a capture next to it is widened to cover it, and so is its
 * implicit sync; an explicit sync (CUPTI's blocked time) is not, nor is a
 * call whose capture lies more than 1 ms (GS_CAPTURE_SLACK_NS) away.
 *   corr 21 cudaMemcpy [1000, 2000], implicit sync [1000, 2000], captured
 *           at exit [2000, 2600]              -> both [1000, 2600]
 *   corr 22 cudaStreamSynchronize [5000, 9000], explicit sync [5500, 8900],
 *           captured at entry [4100, 4900]    -> call [4100, 9000], sync kept
 *   corr 23 cudaFree [20000, 21000], capture [3000000, 3000500]: 2.979 ms
 *           after the call's end              -> kept
 *   corr 24 a call without a capture          -> kept */
static void test_calls_widened_by_their_capture_times(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaMemcpy'),(2,'cudaStreamSynchronize'),"
	    "(3,'cudaFree'),(4,'cudaLaunchKernel'),(5,'cudaMemcpy is synchronous');"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(1,1,31,1,1000,2000,1,42,21),(2,1,131,2,5000,9000,1,42,22),"
	    "(3,1,17,3,20000,21000,1,42,23),(4,1,211,4,30000,30500,1,42,24);"
	    "INSERT INTO syncs(id,start,end,kind,implicit,reason_id,api_name_id,device,"
	    "stream,correlation_id,tid) VALUES(1,1000,2000,16,1,5,1,0,7,21,42),"
	    "(2,5500,8900,3,0,NULL,2,0,7,22,42);"
	    "INSERT INTO api_stacks(correlation_id,stack_id,tid,reason,capture_start,"
	    "capture_end) VALUES(21,1,42,2,2000,2600),(22,1,42,1,4100,4900),"
	    "(23,1,42,1,3000000,3000500);"
	    "INSERT INTO meta VALUES('collector.unwinder','libunwind');"
	    /* CUPTI's overhead: a buffer request and a flush on thread 42 are
	     * tracing's on the program's thread; module loading, a request on
	     * a process, and one on a thread that made no CUDA call (the
	     * collector's flush thread) are not */
	    "INSERT INTO overhead(kind,start,end,object_kind,object_id) VALUES"
	    "(458752,40000,45000,2,42),(65536,50000,50300,2,42),"
	    "(262144,60000,61000,2,42),(458752,70000,71000,1,7),(458752,80000,81000,2,99);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;
	struct gs_capture_cost cc;
	size_t i;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.n_captures, 3);
	/* what they cost: 600 + 800 + 500, the median 600; the unwinder */
	assert_int_equal(gs_span_cost(in.captures, in.n_captures, &cc), 0);
	assert_int_equal(cc.n, 3);
	assert_int_equal(cc.total_ns, 1900);
	assert_int_equal(cc.p50_ns, 600);
	assert_string_equal(in.unwinder, "libunwind");
	assert_int_equal(in.n_stalls, 2);
	for (i = 0; i < in.n_stalls; i++) {
		assert_int_equal(in.stalls[i].tid, 42);
		assert_int_equal(in.stalls[i].end - in.stalls[i].start,
				 in.stalls[i].start == 40000 ? 5000 : 300);
	}
	assert_int_equal(in.captures[0].corr, 21);
	assert_int_equal(in.captures[0].tid, 42);
	assert_int_equal(in.n_apis, 4);
	for (i = 0; i < in.n_apis; i++) {
		switch (in.apis[i].corr) {
		case 21:
			assert_int_equal(in.apis[i].start, 1000);
			assert_int_equal(in.apis[i].end, 2600);
			break;
		case 22:
			assert_int_equal(in.apis[i].start, 4100);
			assert_int_equal(in.apis[i].end, 9000);
			break;
		case 23:
			assert_int_equal(in.apis[i].start, 20000);
			assert_int_equal(in.apis[i].end, 21000);
			break;
		default:
			assert_int_equal(in.apis[i].corr, 24);
			assert_int_equal(in.apis[i].start, 30000);
			assert_int_equal(in.apis[i].end, 30500);
		}
	}
	assert_int_equal(in.n_syncs, 2);
	for (i = 0; i < in.n_syncs; i++) {
		if (in.syncs[i].corr == 21) {
			assert_int_equal(in.syncs[i].start, 1000);
			assert_int_equal(in.syncs[i].end, 2600);
		} else {
			assert_int_equal(in.syncs[i].start, 5500);
			assert_int_equal(in.syncs[i].end, 8900);
		}
	}
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* Through the analysis: a host-late gap [1000, 3000) before K2, whose
 * launch call began at 2600. Thread 42 was in cudaMemcpy (implicit sync)
 * [1000, 2000] as recorded and in the collector's capture at its exit
 * [2000, 2600]: widened, the call covers [1000, 2600), so the gap is 1600
 * sync wait, then 400 launch latency, and no host code (unwidened it would
 * be 1000 sync wait, 600 host code, 400 launch latency). */
static void test_capture_time_is_sync_wait_not_host_code(void **state)
{
	static const char rows[] =
	    "INSERT INTO strings VALUES(1,'cudaMemcpy'),(2,'cudaLaunchKernel'),(3,'k'),"
	    "(4,'cudaMemcpy is synchronous');"
	    "INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,graph_id,"
	    "graph_node_id) VALUES(1,500,1000,0,7,30,3,0,0),(2,3000,3500,0,7,31,3,0,0);"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(1,1,211,2,100,200,1,42,30),(2,1,31,1,1000,2000,1,42,21),"
	    "(3,1,211,2,2600,2700,1,42,31);"
	    "INSERT INTO syncs(id,start,end,kind,implicit,reason_id,api_name_id,device,"
	    "stream,correlation_id,tid) VALUES(1,1000,2000,16,1,4,1,0,7,21,42);"
	    "INSERT INTO api_stacks(correlation_id,stack_id,tid,reason,capture_start,"
	    "capture_end) VALUES(21,1,42,1,2000,2600);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	const struct gs_timeline *tl;

	(void)state;
	load(path, &t, &in);
	gs_options_init(&opt);
	assert_int_equal(gs_analyze(&in, &opt, &res), 0);
	assert_int_equal(res.n_devices, 1);
	tl = &res.devices[0].tl;
	assert_int_equal(tl->idle, 2000);
	assert_int_equal(tl->idle_by_cause[GS_CAUSE_SYNC_WAIT], 1600);
	assert_int_equal(tl->idle_by_cause[GS_CAUSE_HOST_CODE], 0);
	assert_int_equal(tl->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 400);
	gs_result_free(&res);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

/* A v2 trace written before the capture columns existed loads as before. */
static void test_api_stacks_without_capture_columns(void **state)
{
	static const char rows[] =
	    "DROP TABLE api_stacks;"
	    "CREATE TABLE api_stacks(correlation_id INTEGER NOT NULL, stack_id INTEGER NOT "
	    "NULL, tid INTEGER, reason INTEGER);"
	    "INSERT INTO strings VALUES(1,'cudaMemcpy');"
	    "INSERT INTO api_calls(id,api,cbid,name_id,start,end,pid,tid,correlation_id)"
	    " VALUES(1,1,31,1,1000,2000,1,42,21);"
	    "INSERT INTO api_stacks VALUES(21,1,42,2);";
	char *path = make_db(rows);
	struct trace t;
	struct gs_input in;

	(void)state;
	load(path, &t, &in);
	assert_int_equal(in.n_captures, 0);
	assert_int_equal(in.n_apis, 1);
	assert_int_equal(in.apis[0].end, 2000);
	trace_input_free(&in);
	trace_close(&t);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rowids_with_holes_and_negative_are_all_read),
	    cmocka_unit_test(test_host_spans_are_nested),
	    cmocka_unit_test(test_nvtx_ranges_are_host_spans_without_host_ranges),
	    cmocka_unit_test(test_rowids_spread_too_far_are_read_by_one_job),
	    cmocka_unit_test(test_end_before_start_is_clamped),
	    cmocka_unit_test(test_string_ids_outside_the_strings_table_read_as_none),
	    cmocka_unit_test(test_host_node_dep_by_full_node_id),
	    cmocka_unit_test(test_any_number_of_parts_reads_rows_in_rowid_order),
	    cmocka_unit_test(test_kernels_out_of_order_come_out_sorted_in_any_parts),
	    cmocka_unit_test(test_more_parts_than_rowids),
	    cmocka_unit_test(test_calls_widened_by_their_capture_times),
	    cmocka_unit_test(test_api_stacks_without_capture_columns),
	    cmocka_unit_test(test_capture_time_is_sync_wait_not_host_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
