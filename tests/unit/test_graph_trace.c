/*
 * test_graph_trace.c - unit tests of viewer/trace_graph.c: topology tables
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list_counts_nodes_launches_and_time),
	    cmocka_unit_test(test_load_maps_exec_nodes_to_graph_nodes),
	    cmocka_unit_test(test_load_types_nodes_by_what_they_ran_as),
	    cmocka_unit_test(test_load_child_graph_as_cluster),
	    cmocka_unit_test(test_streams_view_of_nvtx_range),
	    cmocka_unit_test(test_streams_view_max_ops_drops_later_waits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
