/*
 * test_graph_trace.c - unit tests of viewer/trace/trace_graph.c: topology tables
 * -> model, measurements mapped from executable-graph nodes back to the
 * graph's nodes, the list figures, and the --streams view of an NVTX range.
 * The databases are built here with the real schema (gs_schema_create) from
 * the fixture files in tests/cli/graph/, whose comments work out every
 * expected figure by hand.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace_graph.h"

static void open_fixture(struct trace *t, const char *name)
{
	char path[1024], *sql;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", GS_GRAPH_FIXTURES, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	sql = malloc((size_t)n + 1);
	assert_non_null(sql);
	assert_int_equal(fread(sql, 1, (size_t)n, f), (size_t)n);
	sql[n] = '\0';
	fclose(f);
	memset(t, 0, sizeof(*t));
	assert_int_equal(sqlite3_open(":memory:", &t->db), SQLITE_OK);
	assert_int_equal(gs_schema_create(t->db), 0);
	assert_int_equal(sqlite3_exec(t->db, sql, NULL, NULL, NULL), SQLITE_OK);
	free(sql);
	t->path = name;
	t->schema_version = 1;
}

static void test_list_counts_nodes_launches_and_time(void **state)
{
	struct trace t;
	struct tg_info *v;
	size_t n;
	char err[256];

	(void)state;
	open_fixture(&t, "basic.sql");
	assert_int_equal(tg_list(&t, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4); /* execs 100, 400 and the copy 500 are not listed */
	assert_int_equal(v[0].graph_id, 1);
	assert_int_equal(v[0].origin, 0);
	assert_int_equal(v[0].nodes, 4);
	assert_int_equal(v[0].edges, 4);
	assert_int_equal(v[0].execs, 1);
	assert_int_equal(v[0].launches, 2);
	assert_int_equal(v[0].ops, 8);	      /* 6 kernels + 2 memcpys; not the plain kernel */
	assert_int_equal(v[0].gpu_ns, 22000); /* see basic.sql */
	assert_int_equal(v[1].graph_id, 2);
	assert_int_equal(v[1].origin, 2);
	assert_int_equal(v[1].nodes, 11);
	assert_int_equal(v[1].edges, 10);
	assert_int_equal(v[1].launches, 0);
	assert_int_equal(v[2].graph_id, 3);
	assert_int_equal(v[2].origin, 1);
	assert_int_equal(v[2].original, 9);
	assert_int_equal(v[2].parent_graph, 2);
	assert_int_equal(v[2].parent_node, 211);
	/* graph 4: its instantiation's clones, reported in graph 4, are left out */
	assert_int_equal(v[3].graph_id, 4);
	assert_int_equal(v[3].nodes, 2);
	assert_int_equal(v[3].edges, 1);
	assert_int_equal(v[3].launches, 1);
	assert_int_equal(v[3].ops, 3);
	assert_int_equal(v[3].gpu_ns, 2000);
	free(v);
	sqlite3_close(t.db);
}

static void test_load_maps_exec_nodes_to_graph_nodes(void **state)
{
	struct trace t;
	struct gm_graph g;
	struct tg_info info;
	char err[256];
	int a, b, c, d;

	(void)state;
	open_fixture(&t, "basic.sql");
	gm_init(&g);
	assert_int_equal(tg_load(&t, 1, &g, &info, err, sizeof(err)), 0);
	assert_int_equal(g.n_nodes, 4);
	assert_int_equal(g.n_edges, 4);
	assert_int_equal(g.n_clusters, 0);
	a = gm_find(&g, 11);
	b = gm_find(&g, 12);
	c = gm_find(&g, 13);
	d = gm_find(&g, 14);
	assert_true(a >= 0 && b >= 0 && c >= 0 && d >= 0);
	assert_string_equal(g.nodes[a].name, "void scale<float, 4>(float*, int)");
	assert_int_equal(g.nodes[c].type, GS_NODE_MEMCPY);
	assert_int_equal(g.nodes[c].bytes, 4096);
	assert_int_equal(g.nodes[b].n_dur, 2);
	assert_true(g.nodes[b].mean_ns == 6000.0);
	assert_int_equal(g.nodes[b].p90_ns, 7000);
	assert_true(g.nodes[c].mean_ns == 1000.0);
	assert_int_equal(g.total_ns, 22000);
	assert_int_equal(info.launches, 2);
	assert_int_equal(info.ops, 8);
	assert_int_equal(gm_critical_path(&g), 0);
	assert_true(g.critical_weight == 10000.0);
	assert_int_equal(g.nodes[c].critical, 0);
	gm_free(&g);
	sqlite3_close(t.db);
}

/* mistyped.sql: CUPTI's nodeType 0 for memcpy nodes is corrected by what
 * the node ran as; a node with no executions keeps its recorded type */
static void test_load_types_nodes_by_what_they_ran_as(void **state)
{
	struct trace t;
	struct gm_graph g;
	char err[256];

	(void)state;
	open_fixture(&t, "mistyped.sql");
	gm_init(&g);
	assert_int_equal(tg_load(&t, 1, &g, NULL, err, sizeof(err)), 0);
	assert_int_equal(g.n_nodes, 4);
	assert_int_equal(g.nodes[gm_find(&g, 11)].type, GS_NODE_MEMCPY);
	assert_int_equal(g.nodes[gm_find(&g, 11)].bytes, 4096);
	assert_int_equal(g.nodes[gm_find(&g, 12)].type, GS_NODE_KERNEL);
	assert_int_equal(g.nodes[gm_find(&g, 13)].type, GS_NODE_MEMSET);
	assert_int_equal(g.nodes[gm_find(&g, 14)].type, GS_NODE_KERNEL);
	assert_true(g.nodes[gm_find(&g, 11)].mean_ns == 500.0);
	gm_free(&g);
	sqlite3_close(t.db);
}

static void test_load_child_graph_as_cluster(void **state)
{
	struct trace t;
	struct gm_graph g;
	char err[256];
	int child, n31;

	(void)state;
	open_fixture(&t, "basic.sql");
	gm_init(&g);
	assert_int_equal(tg_load(&t, 2, &g, NULL, err, sizeof(err)), 0);
	assert_int_equal(g.n_nodes, 13); /* 11 + the child's 2 */
	assert_int_equal(g.n_edges, 11);
	assert_int_equal(g.n_clusters, 1);
	assert_int_equal(g.clusters[0].graph_id, 3);
	assert_string_equal(g.clusters[0].label, "child graph 3");
	child = gm_find(&g, 211);
	n31 = gm_find(&g, 31);
	assert_int_equal(g.nodes[child].child_cluster, 0);
	assert_int_equal(g.clusters[0].node, child);
	assert_int_equal(g.nodes[n31].cluster, 0);
	assert_int_equal(g.nodes[gm_find(&g, 201)].cluster, -1);
	assert_int_equal(g.has_measurements, 0);
	assert_int_equal(gm_critical_path(&g), 0);
	assert_int_equal(g.critical_nodes, 12); /* 201..210, 31, 32 */
	assert_int_equal(gm_collapse(&g, 8), 1);
	assert_int_equal(g.nodes[gm_find(&g, 201)].chain_len, 10);
	assert_int_equal(gm_count_drawn(&g), 3); /* chain, 31, 32 */
	gm_free(&g);

	gm_init(&g);
	assert_int_equal(tg_load(&t, 4, &g, NULL, err, sizeof(err)), 0);
	assert_int_equal(g.n_nodes, 2);
	assert_int_equal(g.n_edges, 1);
	assert_int_equal(g.nodes[gm_find(&g, 41)].n_dur, 2); /* from 441 and 551 */
	assert_true(g.nodes[gm_find(&g, 41)].mean_ns == 650.0);
	assert_int_equal(g.total_ns, 2000);
	gm_free(&g);

	gm_init(&g);
	assert_int_equal(tg_load(&t, 500, &g, NULL, err, sizeof(err)), -ENOENT);
	assert_int_equal(tg_load(&t, 9, &g, NULL, err, sizeof(err)), -ENOENT);
	assert_int_equal(tg_load(&t, 100, &g, NULL, err, sizeof(err)), -ENOENT); /* an exec */
	gm_free(&g);
	sqlite3_close(t.db);
}

static void test_streams_view_of_nvtx_range(void **state)
{
	struct trace t;
	struct gm_graph g;
	struct tg_range r;
	char err[256];
	int k1, k2, k3, w, m, i, stream_edges = 0, event_edges = 0;

	(void)state;
	open_fixture(&t, "streams.sql");
	gm_init(&g);
	assert_int_equal(tg_load_streams(&t, "step", 0, 1000, &g, &r, err, sizeof(err)), 0);
	assert_int_equal(r.occurrences, 1);
	assert_int_equal(r.ops, 4);
	assert_int_equal(r.waits, 1);
	assert_int_equal(r.waits_linked, 1);
	assert_int_equal(r.streams, 2);
	assert_int_equal(g.n_nodes, 5);
	assert_int_equal(g.n_clusters, 2);
	/* node ids: row id * 4 + table (kernel 0, memcpy 1, wait 3) */
	k1 = gm_find(&g, 1 * 4 + 0);
	k2 = gm_find(&g, 2 * 4 + 0);
	k3 = gm_find(&g, 3 * 4 + 0);
	m = gm_find(&g, 1 * 4 + 1);
	w = gm_find(&g, 1 * 4 + 3);
	assert_true(k1 >= 0 && k2 >= 0 && k3 >= 0 && m >= 0 && w >= 0);
	assert_int_equal(gm_find(&g, 4 * 4 + 0), -1); /* k4 is outside the range */
	assert_int_equal(g.nodes[w].type, GS_NODE_WAIT_EVENT);
	assert_int_equal(g.nodes[k1].cluster, g.nodes[k2].cluster);
	assert_int_equal(g.nodes[w].cluster, g.nodes[m].cluster);
	assert_true(g.nodes[k1].cluster != g.nodes[k3].cluster);
	for (i = 0; i < (int)g.n_edges; i++) {
		const struct gm_edge *e = &g.edges[i];
		if (e->kind == GM_EDGE_STREAM) {
			stream_edges++;
			assert_true((e->from == k1 && e->to == k2) ||
				    (e->from == w && e->to == k3) || (e->from == k3 && e->to == m));
		} else {
			event_edges++;
			assert_int_equal(e->kind, GM_EDGE_EVENT);
			assert_int_equal(e->from, k2);
			assert_int_equal(e->to, w);
		}
	}
	assert_int_equal(stream_edges, 3);
	assert_int_equal(event_edges, 1);
	assert_int_equal(gm_critical_path(&g), 0);
	assert_true(g.critical_weight == 3500.0);
	assert_int_equal(g.critical_nodes, 5);
	gm_free(&g);

	/* --max-ops: test_streams_view_max_ops_drops_later_waits */
	gm_init(&g);
	assert_int_equal(tg_load_streams(&t, "step", 1, 1000, &g, &r, err, sizeof(err)), -ENOENT);
	assert_int_equal(r.occurrences, 1);
	assert_int_equal(tg_load_streams(&t, "nope", 0, 1000, &g, &r, err, sizeof(err)), -ENOENT);
	assert_int_equal(r.occurrences, 0);
	gm_free(&g);
	sqlite3_close(t.db);
}

/* --max-ops cuts operations in launch order, and the waits after the last
 * operation kept go with them (streams.sql: k1 1100, k2 1200, wait 1400,
 * k3 1500, memcpy 1600) */
static void test_streams_view_max_ops_drops_later_waits(void **state)
{
	struct trace t;
	struct gm_graph g;
	struct tg_range r;
	char err[256];

	(void)state;
	open_fixture(&t, "streams.sql");
	gm_init(&g);
	/* 2: k1, k2; the wait comes after k2, so it is dropped */
	assert_int_equal(tg_load_streams(&t, "step", 0, 2, &g, &r, err, sizeof(err)), 0);
	assert_int_equal(r.ops, 4);
	assert_int_equal(r.ops_drawn, 2);
	assert_int_equal(r.waits, 0);
	assert_int_equal(r.waits_linked, 0);
	assert_int_equal(r.streams, 1);
	assert_int_equal(g.n_nodes, 2);
	assert_int_equal(g.n_edges, 1); /* k1 -> k2 */
	gm_free(&g);
	/* 3: k1, k2, wait, k3; edges k1->k2, wait->k3 and the event edge k2->wait */
	gm_init(&g);
	assert_int_equal(tg_load_streams(&t, "step", 0, 3, &g, &r, err, sizeof(err)), 0);
	assert_int_equal(r.ops_drawn, 3);
	assert_int_equal(r.waits, 1);
	assert_int_equal(r.waits_linked, 1);
	assert_int_equal(r.streams, 2);
	assert_int_equal(g.n_nodes, 4);
	assert_int_equal(g.n_edges, 3);
	assert_int_equal(gm_find(&g, 1 * 4 + 1), -1); /* the memcpy is not drawn */
	gm_free(&g);
	sqlite3_close(t.db);
}

/* sqlite3_progress_handler callback: counts thousands of SQLite VM
 * instructions, a measure of the work of the queries that does not depend
 * on the machine's speed or load */
static int count_kilo_ops(void *arg)
{
	(*(uint64_t *)arg)++;
	return 0;
}

/* n streams 100..100+n-1; for i in 0..n-1, on thread 11 at T = 1000000 +
 * 1000 i: cudaLaunchKernel [T, T+100] of kernel i on stream 100+i
 * ([T+500, T+900]), cudaEventRecord [T+200, T+250], cudaStreamWaitEvent
 * [T+400, T+450] making stream 100+(i+1)%n wait; NVTX range "step" on
 * thread 11 around all of it. Before the range: `noise` cudaEventRecord
 * calls at 10 ns intervals (on thread 11, no correlation id). */
static void open_wide(struct trace *t, int n, int noise)
{
	char sql[4096];

	memset(t, 0, sizeof(*t));
	assert_int_equal(sqlite3_open(":memory:", &t->db), SQLITE_OK);
	assert_int_equal(gs_schema_create(t->db), 0);
	snprintf(
	    sql, sizeof(sql),
	    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamWaitEvent'),"
	    "(3,'gemm'),(4,'step'),(5,'cudaEventRecord');"
	    "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < %d)"
	    " INSERT INTO api_calls(api,name_id,start,end,pid,tid) SELECT 1, 5, 10 * i,"
	    " 10 * i + 5, 1, 11 FROM s WHERE i < %d;"
	    "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < %d)"
	    " INSERT INTO api_calls(api,name_id,start,end,pid,tid,correlation_id)"
	    " SELECT 1, 1, 1000000 + 1000 * i, 1000100 + 1000 * i, 1, 11, 1 + i FROM s"
	    " UNION ALL SELECT 1, 5, 1000200 + 1000 * i, 1000250 + 1000 * i, 1, 11,"
	    " 100000 + i FROM s"
	    " UNION ALL SELECT 1, 2, 1000400 + 1000 * i, 1000450 + 1000 * i, 1, 11,"
	    " 200000 + i FROM s;"
	    "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < %d)"
	    " INSERT INTO kernels(id,start,end,device,stream,correlation_id,name_id,graph_id)"
	    " SELECT 1 + i, 1000500 + 1000 * i, 1000900 + 1000 * i, 0, 100 + i, 1 + i, 3, 0"
	    " FROM s;"
	    "WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < %d)"
	    " INSERT INTO syncs(id,start,end,kind,implicit,api_name_id,device,stream,event,"
	    "correlation_id,pid,tid) SELECT 1 + i, 1000400 + 1000 * i, 1000450 + 1000 * i, 2,"
	    " 0, 2, 0, 100 + (i + 1) %% %d, 1 + i, 200000 + i, 1, 11 FROM s;"
	    "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(999000, %d, 0, 4, 1, 11);",
	    noise, noise, n - 1, n - 1, n - 1, n, 1000000 + 1000 * n);
	assert_int_equal(sqlite3_exec(t->db, sql, NULL, NULL, NULL), SQLITE_OK);
	t->path = "wide";
	t->schema_version = 1;
}

/* The --streams view of open_wide(): wait i (on stream 100+(i+1)%n) is
 * linked from kernel i (launched last before record call i, on another
 * stream); each stream holds its kernel and one wait, so one stream edge
 * each: 2n nodes, n stream edges, n event edges, n clusters. Returns the
 * thousands of SQLite VM instructions the load took. */
static uint64_t load_wide(int n, int noise)
{
	struct trace t;
	struct gm_graph g;
	struct tg_range r;
	char err[256];
	uint64_t kops = 0;
	int i, event_edges = 0;

	open_wide(&t, n, noise);
	sqlite3_progress_handler(t.db, 1000, count_kilo_ops, &kops);
	gm_init(&g);
	assert_int_equal(tg_load_streams(&t, "step", 0, 1000, &g, &r, err, sizeof(err)), 0);
	sqlite3_progress_handler(t.db, 0, NULL, NULL);
	assert_int_equal(r.ops, n);
	assert_int_equal(r.waits, n);
	assert_int_equal(r.waits_linked, n);
	assert_int_equal(r.streams, n);
	assert_int_equal(g.n_nodes, 2 * n);
	assert_int_equal(g.n_edges, 2 * n);
	for (i = 0; i < (int)g.n_edges; i++) {
		const struct gm_edge *e = &g.edges[i];
		if (e->kind != GM_EDGE_EVENT)
			continue;
		event_edges++;
		/* node ids: row id * 4 (+ 3 for a wait); kernel i and wait i are
		 * rows 1 + i */
		assert_int_equal(g.nodes[e->to].id % 4, 3);
		assert_int_equal(g.nodes[e->from].id, g.nodes[e->to].id - 3);
	}
	assert_int_equal(event_edges, n);
	gm_free(&g);
	sqlite3_close(t.db);
	return kops;
}

/* A range with 300 operations on 300 streams and 300 waits. The loader
 * ran one query per wait scanning the API calls before it, and two
 * subqueries per operation scanning all API calls (no indexes, as in a
 * recording cut short): work in proportion to waits or operations times
 * API calls (a range with 1000 streams and waits in a trace of 53000 API
 * calls took 19 s). Counted in SQLite VM instructions:
 * - 30000 more API calls (before the range) may cost in proportion to
 *   them: less than 200 kilo-instructions per 1000 (11400 before, 11 now);
 * - twice the streams, operations and waits (600) less than three times
 *   the work (before: 9226 -> 36000 kilo-instructions, four times). */
static void test_streams_view_work_linear_in_api_calls(void **state)
{
	uint64_t quiet, noisy, twice;

	(void)state;
	quiet = load_wide(300, 0);
	noisy = load_wide(300, 30000);
	twice = load_wide(600, 0);
	print_message("SQLite kilo-instructions: %llu for 300 streams, %llu with 30000 more API "
		      "calls, %llu for 600 streams\n",
		      (unsigned long long)quiet, (unsigned long long)noisy,
		      (unsigned long long)twice);
	assert_true(noisy >= quiet);
	assert_true(noisy - quiet < 6000);
	assert_true(twice < 3 * quiet);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_counts_nodes_launches_and_time),
	    cmocka_unit_test(test_load_maps_exec_nodes_to_graph_nodes),
	    cmocka_unit_test(test_load_types_nodes_by_what_they_ran_as),
	    cmocka_unit_test(test_load_child_graph_as_cluster),
	    cmocka_unit_test(test_streams_view_of_nvtx_range),
	    cmocka_unit_test(test_streams_view_max_ops_drops_later_waits),
	    cmocka_unit_test(test_streams_view_work_linear_in_api_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
