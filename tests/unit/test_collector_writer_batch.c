/*
 * test_collector_writer_batch.c - the writer's batched inserts of kernels
 * and API calls (collector/writer.c, BATCH_ROWS rows per INSERT ... SELECT
 * from a virtual table over the pending rows): rows across batch
 * boundaries keep their order, ids and exact values, NULL columns stay
 * NULL, rows written outside a transaction are in the database at once,
 * pending rows are in the database after COMMIT, and columns that repeat
 * in every row of a batch (bound once as parameters, one prepared INSERT
 * per set of such columns, at most 8 kept) get the right values as the
 * set changes from batch to batch. It does not test
 * the other row types (test_collector_writer.c does). Expected values are
 * written out by hand.
 */
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

static char dir[64];
static char path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-batch-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	gs_log_set_level(GS_LOG_QUIET);
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

/* First column of the first row; -777 for NULL, -999 for no row. */
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

/* Kernel i of the sequence below: every value differs from row to row or
 * changes with i, so a row shifted, dropped or repeated shows. */
static void make_kernel(struct gs_kernel *k, int i, int64_t name_a, int64_t name_b)
{
	memset(k, 0, sizeof(*k));
	k->start = 1000000u + 5000u * (uint64_t)i;
	k->end = k->start + 2500u + (uint64_t)(i % 3);
	k->device = (uint32_t)(i % 2);
	k->context = 1;
	k->stream = 7u + (uint32_t)(i % 4);
	k->correlation_id = (uint32_t)i + 1;
	k->name_id = i % 5 == 0 ? 0 : (i % 2 ? name_a : name_b); /* 0: NULL */
	k->grid_x = 977;
	k->grid_y = i % 10 == 9 ? 2 : 1;
	k->grid_z = 1;
	k->block_x = 512;
	k->block_y = k->block_z = 1;
	k->registers = 16;
	k->dynamic_shared = i % 8 == 0 ? 4096 : 0;
	k->graph_id = i % 100 == 42 ? 3 : 0;
	k->graph_node_id = i % 100 == 42 ? 0x100000000ull + (uint64_t)i : 0;
	k->has_latency = i % 7 == 0;
	k->queued = 900000u + (uint64_t)i;
	k->submitted = 950000u + (uint64_t)i;
	k->launch_type = 0;
}

static void make_api(struct gs_api_call *a, int i, int64_t name)
{
	memset(a, 0, sizeof(*a));
	a->api = GS_API_RUNTIME;
	a->cbid = 211;
	a->name_id = i % 3 == 0 ? 0 : name; /* 0: NULL */
	a->start = 1000000u + 5000u * (uint64_t)i - 3000u;
	a->end = a->start + 1200u;
	a->pid = 4242;
	a->tid = 4243;
	a->correlation_id = (uint32_t)i + 1;
	a->return_code = i == 9999 ? 700 : 0;
}

static void test_rows_across_batches_keep_ids_and_exact_values(void **state)
{
	struct gs_writer *w = open_writer();
	int64_t name_a, name_b, name_api;
	struct gs_kernel k;
	struct gs_api_call a;
	sqlite3 *db;
	int i;
	(void)state;

	name_a = gs_writer_intern(w, "_Z1aPf");
	name_b = gs_writer_intern(w, "_Z1bPf");
	name_api = gs_writer_intern(w, "cudaLaunchKernel");
	assert_int_equal(name_a, 1);
	assert_int_equal(name_b, 2);
	assert_int_equal(name_api, 3);
	/* 10000 of each: two full batches of 4096 and a partial one, in two
	 * transactions that split at a row that is not a batch boundary. */
	assert_int_equal(gs_writer_begin(w), 0);
	for (i = 0; i < 10000; i++) {
		if (i == 6000) {
			assert_int_equal(gs_writer_commit(w), 0);
			assert_int_equal(gs_writer_begin(w), 0);
		}
		make_api(&a, i, name_api);
		assert_int_equal(gs_writer_api_call(w, &a), 0);
		make_kernel(&k, i, name_a, name_b);
		assert_int_equal(gs_writer_kernel(w, &k), 0);
	}
	assert_int_equal(gs_writer_commit(w), 0);
	gs_writer_close(w);

	db = open_db();
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels"), 10000);
	assert_int_equal(q_int(db, "SELECT count(*) FROM api_calls"), 10000);
	/* ids follow the order of the calls, across batches and transactions */
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels WHERE id <> correlation_id"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM api_calls WHERE id <> correlation_id"), 0);
	/* kernel id 4097 is i = 4096, the first row of the second batch:
	 * start 1000000 + 5000 * 4096 = 21480000, end + 2500 + 4096 % 3 (1),
	 * device 0, stream 7, name_b = 2 (even, 4096 % 5 = 1), shared 4096
	 * (4096 % 8 = 0), latency NULL (4096 % 7 = 1). */
	assert_int_equal(q_int(db, "SELECT start FROM kernels WHERE id = 4097"), 21480000);
	assert_int_equal(q_int(db, "SELECT end FROM kernels WHERE id = 4097"), 21482501);
	assert_int_equal(q_int(db, "SELECT device FROM kernels WHERE id = 4097"), 0);
	assert_int_equal(q_int(db, "SELECT stream FROM kernels WHERE id = 4097"), 7);
	assert_int_equal(q_int(db, "SELECT name_id FROM kernels WHERE id = 4097"), 2);
	assert_int_equal(q_int(db, "SELECT dynamic_shared_bytes FROM kernels WHERE id = 4097"),
			 4096);
	assert_int_equal(q_int(db, "SELECT queued FROM kernels WHERE id = 4097"), -777);
	/* id 4096 is i = 4095, the last row of the first batch: 4095 % 5 = 0
	 * -> name NULL; 4095 % 7 = 0 -> queued 904095, submitted 954095;
	 * 4095 % 10 = 5 -> grid_y 1; stream 7 + 3 = 10; device 1. */
	assert_int_equal(q_int(db, "SELECT name_id FROM kernels WHERE id = 4096"), -777);
	assert_int_equal(q_int(db, "SELECT queued FROM kernels WHERE id = 4096"), 904095);
	assert_int_equal(q_int(db, "SELECT submitted FROM kernels WHERE id = 4096"), 954095);
	assert_int_equal(q_int(db, "SELECT stream FROM kernels WHERE id = 4096"), 10);
	assert_int_equal(q_int(db, "SELECT device FROM kernels WHERE id = 4096"), 1);
	/* id 8143 is i = 8142, a graph kernel (8142 % 100 = 42): graph 3,
	 * node 0x100000000 + 8142 = 4294975438; 8142 % 10 = 2 -> grid_y 1 */
	assert_int_equal(q_int(db, "SELECT graph_id FROM kernels WHERE id = 8143"), 3);
	assert_int_equal(q_int(db, "SELECT graph_node_id FROM kernels WHERE id = 8143"),
			 4294975438);
	/* the last row, i = 9999: 9999 % 10 = 9 -> grid_y 2; odd -> name_a */
	assert_int_equal(q_int(db, "SELECT grid_y FROM kernels WHERE id = 10000"), 2);
	assert_int_equal(q_int(db, "SELECT name_id FROM kernels WHERE id = 10000"), 1);
	assert_int_equal(q_int(db, "SELECT start FROM kernels WHERE id = 10000"), 50995000);
	/* counts over all rows: i % 5 == 0 for 2000 of 0..9999, i % 7 == 0
	 * for 1429, i % 100 == 42 for 100; the sum of start is
	 * 10000 * 1000000 + 5000 * (9999 * 10000 / 2) = 259975000000 */
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels WHERE name_id IS NULL"), 2000);
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels WHERE queued IS NOT NULL"), 1429);
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels WHERE submitted IS NULL"), 8571);
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels WHERE graph_id = 3"), 100);
	assert_int_equal(q_int(db, "SELECT sum(start) FROM kernels"), 259975000000);
	/* API calls: i % 3 == 0 for 3334 of 0..9999 -> name NULL; the last
	 * one returned 700; start of id 4097 (i = 4096) = 21477000 */
	assert_int_equal(q_int(db, "SELECT count(*) FROM api_calls WHERE name_id IS NULL"), 3334);
	assert_int_equal(q_int(db, "SELECT count(*) FROM api_calls WHERE name_id = 3"), 6666);
	assert_int_equal(q_int(db, "SELECT return_code FROM api_calls WHERE id = 10000"), 700);
	assert_int_equal(q_int(db, "SELECT count(*) FROM api_calls WHERE return_code <> 0"), 1);
	assert_int_equal(q_int(db, "SELECT start FROM api_calls WHERE id = 4097"), 21477000);
	assert_int_equal(q_int(db, "SELECT end FROM api_calls WHERE id = 4097"), 21478200);
	assert_int_equal(q_int(db, "SELECT tid FROM api_calls WHERE id = 1"), 4243);
	sqlite3_close(db);
}

static void test_row_outside_transaction_is_in_the_database_at_once(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_kernel k;
	struct gs_api_call a;
	sqlite3 *db;
	(void)state;

	make_kernel(&k, 7, 0, 0); /* i = 7: latency on, name NULL (0 given) */
	assert_int_equal(gs_writer_kernel(w, &k), 0);
	make_api(&a, 1, 0);
	assert_int_equal(gs_writer_api_call(w, &a), 0);
	/* another connection sees them before any commit call */
	db = open_db();
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels"), 1);
	assert_int_equal(q_int(db, "SELECT start FROM kernels"), 1035000);
	assert_int_equal(q_int(db, "SELECT queued FROM kernels"), 900007);
	assert_int_equal(q_int(db, "SELECT name_id FROM kernels"), -777);
	assert_int_equal(q_int(db, "SELECT count(*) FROM api_calls"), 1);
	assert_int_equal(q_int(db, "SELECT start FROM api_calls"), 1002000);
	sqlite3_close(db);
	gs_writer_close(w);
}

static void test_pending_rows_are_committed_not_before(void **state)
{
	struct gs_writer *w = open_writer();
	struct gs_kernel k;
	sqlite3 *db;
	int i;
	(void)state;

	assert_int_equal(gs_writer_begin(w), 0);
	for (i = 0; i < 10; i++) {
		make_kernel(&k, i, 0, 0);
		assert_int_equal(gs_writer_kernel(w, &k), 0);
	}
	/* inside the transaction: a reader sees the last committed state */
	db = open_db();
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels"), 0);
	sqlite3_close(db);
	assert_int_equal(gs_writer_commit(w), 0);
	db = open_db();
	assert_int_equal(q_int(db, "SELECT count(*) FROM kernels"), 10);
	assert_int_equal(q_int(db, "SELECT max(id) FROM kernels"), 10);
	/* i = 9: start 1000000 + 45000 */
	assert_int_equal(q_int(db, "SELECT start FROM kernels WHERE id = 10"), 1045000);
	sqlite3_close(db);
	gs_writer_close(w);
}

/* Batch m (0..11) holds three kernels; bit b of m makes column b of
 * {grid_x, block_x, registers, stream} differ between the rows, otherwise
 * it repeats. The first row of a transaction is inserted alone, the other
 * two at COMMIT: twelve sets of repeating columns, more than the eight
 * statements kept, so some are replaced and prepared again (m = 0..11
 * then 0..3 once more). */
static void test_repeating_columns_per_batch_get_their_values(void **state)
{
	struct gs_writer *w = open_writer();
	sqlite3 *db;
	int pass, m, r, id = 0;
	char sql[512];
	(void)state;

	for (pass = 0; pass < 2; pass++)
		for (m = 0; m < (pass ? 4 : 12); m++) {
			assert_int_equal(gs_writer_begin(w), 0);
			for (r = 0; r < 3; r++) {
				struct gs_kernel k;
				memset(&k, 0, sizeof(k));
				k.start = (uint64_t)(1000 * ++id);
				k.end = k.start + 10;
				k.correlation_id = (uint32_t)id;
				k.grid_x = (m & 1) ? 100 + r : 100;
				k.block_x = (m & 2) ? 200 + r : 200;
				k.registers = (m & 4) ? 30u + (uint32_t)r : 30u;
				k.stream = (m & 8) ? 7u + (uint32_t)r : 7u;
				k.grid_y = k.grid_z = k.block_y = k.block_z = 1;
				k.has_latency = (m & 1) && r == 2;
				k.queued = 5;
				k.submitted = 6;
				assert_int_equal(gs_writer_kernel(w, &k), 0);
			}
			assert_int_equal(gs_writer_commit(w), 0);
		}
	assert_int_equal(gs_writer_finalize(w, 1), 0);
	db = open_db();
	assert_int_equal(q_int(db, "SELECT COUNT(*) FROM kernels"), 48);
	/* row id = 3 * batch + r + 1, batch = 0..15, m = batch % 12 */
	snprintf(sql, sizeof(sql),
		 "SELECT COUNT(*) FROM (SELECT *, (id - 1) / 3 %% 12 AS m, (id - 1) %% 3 AS r "
		 "FROM kernels) WHERE start = 1000 * id AND end = start + 10"
		 " AND correlation_id = id AND grid_x = 100 + (m & 1) * r"
		 " AND block_x = 200 + (m & 2) / 2 * r AND registers = 30 + (m & 4) / 4 * r"
		 " AND stream = 7 + (m & 8) / 8 * r AND grid_y = 1 AND block_z = 1"
		 " AND ((m & 1 AND r = 2 AND queued = 5 AND submitted = 6)"
		 "  OR (NOT (m & 1 AND r = 2) AND queued IS NULL AND submitted IS NULL))");
	assert_int_equal(q_int(db, sql), 48);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_rows_across_batches_keep_ids_and_exact_values,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_row_outside_transaction_is_in_the_database_at_once,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_repeating_columns_per_batch_get_their_values,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pending_rows_are_committed_not_before, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
