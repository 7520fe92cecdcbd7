/*
 * test_graph_model.c - unit tests of viewer/trace/graph_model.c: statistics,
 * critical path (by duration, by count, through child graphs, cycles), chain
 * collapse, origin resolution (kernel-name labels: test_names.c). Every
 * expected value is worked out by hand in the comments; nothing here reads a
 * trace or draws.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "graph_model.h"

static int node(struct gm_graph *g, int64_t id, int type, const char *name, int cluster)
{
	int i = gm_add_node(g, id, type, name, cluster);
	assert_true(i >= 0);
	return i;
}

static void durs(struct gm_graph *g, int n, int count, ...)
{
	va_list ap;
	int k;

	va_start(ap, count);
	for (k = 0; k < count; k++)
		assert_int_equal(gm_add_duration(g, n, va_arg(ap, unsigned long long)), 0);
	va_end(ap);
}

static void test_map_keeps_many_keys(void **state)
{
	struct gm_map m = {0};
	int64_t k;

	(void)state;
	for (k = -500; k < 500; k++)
		assert_int_equal(gm_map_put(&m, k * 7919, (int)(k + 500)), 0);
	assert_int_equal(m.len, 1000);
	for (k = -500; k < 500; k++)
		assert_int_equal(gm_map_get(&m, k * 7919), (int)(k + 500));
	assert_int_equal(gm_map_get(&m, 1), -1);
	assert_int_equal(gm_map_put(&m, 0, 42), 0); /* overwrite, no new slot */
	assert_int_equal(m.len, 1000);
	assert_int_equal(gm_map_get(&m, 0), 42);
	gm_map_free(&m);
}

static void test_duplicate_node_id_is_refused(void **state)
{
	struct gm_graph g;

	(void)state;
	gm_init(&g);
	assert_int_equal(gm_add_node(&g, 5, GS_NODE_KERNEL, "a", -1), 0);
	assert_int_equal(gm_add_node(&g, 5, GS_NODE_KERNEL, "b", -1), -EEXIST);
	assert_int_equal(gm_add_edge(&g, 0, 3, GM_EDGE_DEPENDENCY), -EINVAL);
	assert_int_equal(g.n_nodes, 1);
	gm_free(&g);
}

/* p90 is the nearest rank: the ceil(0.9 n)-th smallest value */
static void test_p90_is_nearest_rank(void **state)
{
	struct gm_graph g;
	int a, b, c, k;

	(void)state;
	gm_init(&g);
	a = node(&g, 1, GS_NODE_KERNEL, "a", -1);
	b = node(&g, 2, GS_NODE_KERNEL, "b", -1);
	c = node(&g, 3, GS_NODE_KERNEL, "c", -1);
	durs(&g, a, 10, 7ULL, 3ULL, 10ULL, 1ULL, 9ULL, 2ULL, 8ULL, 4ULL, 6ULL, 5ULL);
	durs(&g, b, 1, 42ULL);
	for (k = 20; k >= 1; k--)
		durs(&g, c, 1, (unsigned long long)k);
	gm_compute_stats(&g);
	assert_int_equal(g.nodes[a].p90_ns, 9); /* rank ceil(9) = 9 */
	assert_true(g.nodes[a].mean_ns == 5.5);
	assert_int_equal(g.nodes[a].total_ns, 55);
	assert_int_equal(g.nodes[b].p90_ns, 42); /* rank ceil(0.9) = 1 */
	assert_int_equal(g.nodes[c].p90_ns, 18); /* rank ceil(18) = 18 */
	assert_int_equal(g.total_ns, 55 + 42 + 210);
	assert_true(g.has_measurements);
	/* share = node total / graph total: 42 / 307 */
	assert_true(g.nodes[b].share > 0.13680 && g.nodes[b].share < 0.13682);
	gm_free(&g);
}

/* The diamond of the CLI fixture: A -> B, A -> C, B -> D, C -> D with means
 * A 2000, B 6000, C 1000, D 2000 ns: A-B-D = 10000 beats A-C-D = 5000. */
static void build_diamond(struct gm_graph *g)
{
	int a, b, c, d;

	gm_init(g);
	a = node(g, 11, GS_NODE_KERNEL, "void scale<float, 4>(float*, int)", -1);
	b = node(g, 12, GS_NODE_KERNEL, "_Z4gemmPKfS0_Pfi", -1);
	c = node(g, 13, GS_NODE_MEMCPY, NULL, -1);
	d = node(g, 14, GS_NODE_KERNEL, "_Z4geluPf", -1);
	g->nodes[c].bytes = 4096;
	assert_int_equal(gm_add_edge(g, a, b, GM_EDGE_DEPENDENCY), 0);
	assert_int_equal(gm_add_edge(g, a, c, GM_EDGE_DEPENDENCY), 1);
	assert_int_equal(gm_add_edge(g, b, d, GM_EDGE_DEPENDENCY), 2);
	assert_int_equal(gm_add_edge(g, c, d, GM_EDGE_DEPENDENCY), 3);
	durs(g, a, 2, 1000ULL, 3000ULL);
	durs(g, b, 2, 7000ULL, 5000ULL);
	durs(g, c, 2, 500ULL, 1500ULL);
	durs(g, d, 2, 2000ULL, 2000ULL);
	gm_compute_stats(g);
}

static void test_critical_path_follows_measured_means(void **state)
{
	struct gm_graph g;

	(void)state;
	build_diamond(&g);
	assert_int_equal(g.total_ns, 22000);
	assert_true(g.nodes[1].mean_ns == 6000.0);
	assert_int_equal(g.nodes[1].p90_ns, 7000);
	assert_true(g.nodes[1].share > 0.5454 && g.nodes[1].share < 0.5455); /* 12/22 */
	assert_int_equal(gm_critical_path(&g), 0);
	assert_int_equal(g.nodes[0].critical, 1);
	assert_int_equal(g.nodes[1].critical, 1);
	assert_int_equal(g.nodes[2].critical, 0);
	assert_int_equal(g.nodes[3].critical, 1);
	assert_int_equal(g.edges[0].critical, 1);
	assert_int_equal(g.edges[1].critical, 0);
	assert_int_equal(g.edges[2].critical, 1);
	assert_int_equal(g.edges[3].critical, 0);
	assert_true(g.critical_weight == 10000.0);
	assert_int_equal(g.critical_nodes, 3);
	gm_free(&g);
}

/* No measurements: longest path by node count. A -> B -> C and A -> C:
 * A-B-C (3 nodes) beats A-C (2). */
static void test_critical_path_counts_nodes_when_unmeasured(void **state)
{
	struct gm_graph g;

	(void)state;
	gm_init(&g);
	node(&g, 1, GS_NODE_KERNEL, "a", -1);
	node(&g, 2, GS_NODE_EMPTY, NULL, -1);
	node(&g, 3, GS_NODE_KERNEL, "c", -1);
	gm_add_edge(&g, 0, 2, GM_EDGE_DEPENDENCY);
	gm_add_edge(&g, 0, 1, GM_EDGE_DEPENDENCY);
	gm_add_edge(&g, 1, 2, GM_EDGE_DEPENDENCY);
	gm_compute_stats(&g);
	assert_int_equal(g.has_measurements, 0);
	assert_int_equal(gm_critical_path(&g), 0);
	assert_true(g.critical_weight == 3.0);
	assert_int_equal(g.critical_nodes, 3);
	assert_int_equal(g.edges[0].critical, 0);
	assert_int_equal(g.edges[1].critical, 1);
	assert_int_equal(g.edges[2].critical, 1);
	gm_free(&g);
}

/* P1 -> G -> P2 and P1 -> Q -> P2, G a child-graph node whose child graph is
 * C1 -> C2 plus a lone C3. Means: P1 100, P2 100, C1 1000, C2 1000, C3 50.
 * With Q = 1500: via G = 100 + 2000 + 100 = 2200 > via Q = 1700.
 * With Q = 3000: via Q = 3200 wins. */
static void build_child(struct gm_graph *g, unsigned long long q_ns)
{
	int p1, gn, p2, q, c1, c2, c3, cl;

	gm_init(g);
	p1 = node(g, 1, GS_NODE_KERNEL, "p1", -1);
	gn = node(g, 2, GS_NODE_GRAPH, NULL, -1);
	p2 = node(g, 3, GS_NODE_KERNEL, "p2", -1);
	q = node(g, 4, GS_NODE_KERNEL, "q", -1);
	cl = gm_add_cluster(g, 77, -1, gn, "child graph 77");
	assert_int_equal(cl, 0);
	assert_int_equal(g->nodes[gn].child_cluster, 0);
	c1 = node(g, 10, GS_NODE_KERNEL, "c1", cl);
	c2 = node(g, 11, GS_NODE_KERNEL, "c2", cl);
	c3 = node(g, 12, GS_NODE_KERNEL, "c3", cl);
	gm_add_edge(g, p1, gn, GM_EDGE_DEPENDENCY); /* edge 0 */
	gm_add_edge(g, gn, p2, GM_EDGE_DEPENDENCY); /* 1 */
	gm_add_edge(g, p1, q, GM_EDGE_DEPENDENCY);  /* 2 */
	gm_add_edge(g, q, p2, GM_EDGE_DEPENDENCY);  /* 3 */
	gm_add_edge(g, c1, c2, GM_EDGE_DEPENDENCY); /* 4 */
	durs(g, p1, 1, 100ULL);
	durs(g, p2, 1, 100ULL);
	durs(g, q, 1, q_ns);
	durs(g, c1, 1, 1000ULL);
	durs(g, c2, 1, 1000ULL);
	durs(g, c3, 1, 50ULL);
	gm_compute_stats(g);
}

static void test_critical_path_runs_through_child_graph(void **state)
{
	struct gm_graph g;

	(void)state;
	build_child(&g, 1500);
	assert_int_equal(gm_critical_path(&g), 0);
	assert_true(g.critical_weight == 2200.0);
	assert_int_equal(g.critical_nodes, 4); /* P1 C1 C2 P2; G itself not counted */
	assert_int_equal(g.nodes[0].critical, 1);
	assert_int_equal(g.nodes[1].critical, 1); /* G */
	assert_int_equal(g.nodes[2].critical, 1);
	assert_int_equal(g.nodes[3].critical, 0); /* Q */
	assert_int_equal(g.nodes[4].critical, 1); /* C1 */
	assert_int_equal(g.nodes[5].critical, 1); /* C2 */
	assert_int_equal(g.nodes[6].critical, 0); /* C3 */
	assert_int_equal(g.edges[0].critical, 1);
	assert_int_equal(g.edges[1].critical, 1);
	assert_int_equal(g.edges[2].critical, 0);
	assert_int_equal(g.edges[4].critical, 1);
	gm_free(&g);

	build_child(&g, 3000);
	assert_int_equal(gm_critical_path(&g), 0);
	assert_true(g.critical_weight == 3200.0);
	assert_int_equal(g.critical_nodes, 3);
	assert_int_equal(g.nodes[1].critical, 0);
	assert_int_equal(g.nodes[3].critical, 1);
	assert_int_equal(g.nodes[4].critical, 0);
	assert_int_equal(g.edges[2].critical, 1);
	assert_int_equal(g.edges[3].critical, 1);
	gm_free(&g);
}

static void test_cycle_has_no_critical_path(void **state)
{
	struct gm_graph g;

	(void)state;
	gm_init(&g);
	node(&g, 1, GS_NODE_KERNEL, "a", -1);
	node(&g, 2, GS_NODE_KERNEL, "b", -1);
	gm_add_edge(&g, 0, 1, GM_EDGE_DEPENDENCY);
	gm_add_edge(&g, 1, 0, GM_EDGE_DEPENDENCY);
	gm_compute_stats(&g);
	assert_int_equal(gm_critical_path(&g), -EINVAL);
	assert_int_equal(g.nodes[0].critical, 0);
	assert_int_equal(g.nodes[1].critical, 0);
	gm_free(&g);
}

/* K1 -> ... -> K10 (same kernel, 100 ns each) -> X -> M1 -> ... -> M5
 * (another kernel), plus a K chain broken by a different name:
 * K -> K -> L -> K (ids 100..103). */
static void build_chains(struct gm_graph *g)
{
	int i, prev = -1, n;

	gm_init(g);
	for (i = 0; i < 10; i++) {
		n = node(g, 1 + i, GS_NODE_KERNEL, "_Z5smallv", -1);
		durs(g, n, 1, 100ULL);
		if (prev >= 0)
			gm_add_edge(g, prev, n, GM_EDGE_DEPENDENCY);
		prev = n;
	}
	n = node(g, 50, GS_NODE_KERNEL, "_Z1xv", -1);
	gm_add_edge(g, prev, n, GM_EDGE_DEPENDENCY); /* edge 9 */
	prev = n;
	for (i = 0; i < 5; i++) {
		n = node(g, 60 + i, GS_NODE_KERNEL, "_Z1mv", -1);
		gm_add_edge(g, prev, n, GM_EDGE_DEPENDENCY);
		prev = n;
	}
	prev = -1;
	for (i = 0; i < 4; i++) {
		n = node(g, 100 + i, GS_NODE_KERNEL, i == 2 ? "L" : "K", -1);
		if (prev >= 0)
			gm_add_edge(g, prev, n, GM_EDGE_DEPENDENCY);
		prev = n;
	}
	gm_compute_stats(g);
}

static void test_collapse_counts_chains_above_threshold(void **state)
{
	struct gm_graph g;
	int i, hidden = 0;

	(void)state;
	build_chains(&g);
	assert_int_equal(g.n_nodes, 20);
	assert_int_equal(gm_collapse(&g, 8), 1); /* only the 10-chain is longer than 8 */
	assert_int_equal(g.nodes[0].chain_len, 10);
	assert_true(g.nodes[0].chain_mean == 1000.0);
	assert_true(g.nodes[0].chain_share > 0.9999); /* all measured time is in it */
	for (i = 0; i < 10; i++)
		assert_int_equal(g.nodes[i].rep, 0);
	assert_int_equal(g.nodes[10].rep, 10); /* X */
	assert_int_equal(g.nodes[11].chain_len, 1);
	for (i = 0; i < (int)g.n_edges; i++)
		hidden += g.edges[i].hidden;
	assert_int_equal(hidden, 9);
	assert_int_equal(g.edges[9].hidden, 0); /* K10 -> X stays, drawn from the chain */
	assert_int_equal(gm_count_drawn(&g), 20 - 9);

	assert_int_equal(gm_collapse(&g, 4), 2); /* and now M1..M5 too (5 > 4) */
	assert_int_equal(g.nodes[11].chain_len, 5);
	assert_int_equal(g.nodes[15].rep, 11);
	assert_int_equal(gm_count_drawn(&g), 20 - 9 - 4);

	assert_int_equal(gm_collapse(&g, 10), 0); /* 10 is not more than 10 */
	assert_int_equal(g.nodes[5].rep, 5);
	assert_int_equal(gm_collapse(&g, 0), 0);
	assert_int_equal(gm_collapse(&g, 1), 3); /* K K (2 > 1) before L; M; 10-chain */
	assert_int_equal(g.nodes[16].chain_len, 2);
	assert_int_equal(g.nodes[18].rep, 18); /* L */
	gm_free(&g);
}

static void test_collapse_stops_at_branches_and_clusters(void **state)
{
	struct gm_graph g;
	int i, n, prev = -1;

	(void)state;
	gm_init(&g);
	/* 12 same kernels, but node 6 also feeds a side node: the chain ends at
	 * node 6 (two out-edges) and restarts at node 7 (ids 0..11) */
	for (i = 0; i < 12; i++) {
		n = node(&g, i, GS_NODE_KERNEL, "k", -1);
		if (prev >= 0)
			gm_add_edge(&g, prev, n, GM_EDGE_DEPENDENCY);
		prev = n;
	}
	n = node(&g, 99, GS_NODE_KERNEL, "k", -1);
	gm_add_edge(&g, 6, n, GM_EDGE_DEPENDENCY);
	gm_compute_stats(&g);
	/* chains: 0..6 (7 nodes) and 7..11 (5 nodes) */
	assert_int_equal(gm_collapse(&g, 6), 1);
	assert_int_equal(g.nodes[0].chain_len, 7);
	assert_int_equal(g.nodes[7].rep, 7);
	assert_int_equal(gm_collapse(&g, 4), 2);
	assert_int_equal(g.nodes[7].chain_len, 5);
	gm_free(&g);
}

static void test_resolve_follows_original_node_ids(void **state)
{
	struct gm_graph g;
	struct gm_origins o = {0};

	(void)state;
	gm_init(&g);
	node(&g, 11, GS_NODE_KERNEL, "a", -1);
	node(&g, 12, GS_NODE_KERNEL, "b", -1);
	assert_int_equal(gm_origins_add(&o, 111, 11), 0);   /* exec node -> graph node */
	assert_int_equal(gm_origins_add(&o, 1111, 111), 0); /* clone of the exec node */
	assert_int_equal(gm_origins_add(&o, 7, 8), 0);	    /* a cycle in bad data */
	assert_int_equal(gm_origins_add(&o, 8, 7), 0);
	assert_int_equal(gm_origins_add(&o, 500, 0), 0); /* no origin */
	assert_int_equal(gm_resolve(&g, &o, 12), 1);
	assert_int_equal(gm_resolve(&g, &o, 111), 0);
	assert_int_equal(gm_resolve(&g, &o, 1111), 0);
	assert_int_equal(gm_resolve(&g, &o, 7), -1);
	assert_int_equal(gm_resolve(&g, &o, 500), -1);
	assert_int_equal(gm_resolve(&g, &o, 4242), -1);
	gm_origins_free(&o);
	gm_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_map_keeps_many_keys),
	    cmocka_unit_test(test_duplicate_node_id_is_refused),
	    cmocka_unit_test(test_p90_is_nearest_rank),
	    cmocka_unit_test(test_critical_path_follows_measured_means),
	    cmocka_unit_test(test_critical_path_counts_nodes_when_unmeasured),
	    cmocka_unit_test(test_critical_path_runs_through_child_graph),
	    cmocka_unit_test(test_cycle_has_no_critical_path),
	    cmocka_unit_test(test_collapse_counts_chains_above_threshold),
	    cmocka_unit_test(test_collapse_stops_at_branches_and_clusters),
	    cmocka_unit_test(test_resolve_follows_original_node_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
