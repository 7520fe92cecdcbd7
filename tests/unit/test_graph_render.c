/*
 * test_graph_render.c - unit tests of viewer/render/render_dot.c: the cgraph graph
 * built from a hand-made model (nodes, edges, labels, clusters, critical
 * path, collapsed chains), DOT that parses back with the same counts, and
 * hostile kernel names surviving into DOT, SVG and PNG. Expected labels are
 * written out by hand. The SVG's XML well-formedness is checked by the CLI
 * tests (python3's XML parser); here we check escaping in its text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "graph_model.h"
#include "render_dot.h"

static int node(struct gm_graph *g, int64_t id, int type, const char *name, int cluster)
{
	int i = gm_add_node(g, id, type, name, cluster);
	assert_true(i >= 0);
	return i;
}

static void dur(struct gm_graph *g, int n, uint64_t a, uint64_t b)
{
	assert_int_equal(gm_add_duration(g, n, a), 0);
	assert_int_equal(gm_add_duration(g, n, b), 0);
}

/* the CLI fixture's diamond: A -> B, A -> C, B -> D, C -> D; means A 2000,
 * B 6000, C (memcpy 4096 B) 1000, D 2000 ns; total 22000 ns */
static void build_diamond(struct gm_graph *g)
{
	gm_init(g);
	node(g, 11, GS_NODE_KERNEL, "void scale<float, 4>(float*, int)", -1);
	node(g, 12, GS_NODE_KERNEL, "_Z4gemmPKfS0_Pfi", -1);
	node(g, 13, GS_NODE_MEMCPY, NULL, -1);
	node(g, 14, GS_NODE_KERNEL, "_Z4geluPf", -1);
	g->nodes[2].bytes = 4096;
	gm_add_edge(g, 0, 1, GM_EDGE_DEPENDENCY);
	gm_add_edge(g, 0, 2, GM_EDGE_DEPENDENCY);
	gm_add_edge(g, 1, 3, GM_EDGE_DEPENDENCY);
	gm_add_edge(g, 2, 3, GM_EDGE_DEPENDENCY);
	dur(g, 0, 1000, 3000);
	dur(g, 1, 5000, 7000);
	dur(g, 2, 500, 1500);
	dur(g, 3, 2000, 2000);
	gm_compute_stats(g);
	assert_int_equal(gm_critical_path(g), 0);
	assert_int_equal(gm_collapse(g, 8), 0);
}

static const char *attr(void *obj, const char *name)
{
	char *v = agget(obj, (char *)name);
	return v ? v : "(unset)";
}

static Agnode_t *find(Agraph_t *g, const char *name)
{
	return agnode(g, (char *)name, 0);
}

static Agedge_t *edge(Agraph_t *g, const char *t, const char *h)
{
	Agnode_t *a = find(g, t), *b = find(g, h);
	assert_non_null(a);
	assert_non_null(b);
	return agedge(g, a, b, NULL, 0);
}

static void test_diamond_nodes_edges_labels_heat_and_bold(void **state)
{
	struct render_dot_options o = {.stats = 1, .title = "graph 1"};
	struct gm_graph g;
	Agraph_t *ag;

	(void)state;
	build_diamond(&g);
	ag = render_dot_build(&g, &o);
	assert_non_null(ag);
	assert_int_equal(agnnodes(ag), 4);
	assert_int_equal(agnedges(ag), 4);
	assert_string_equal(attr(ag, "label"), "graph 1");
	/* labels: type, short name, mean and p90, share (12/22 = 54.5%) */
	assert_string_equal(attr(find(ag, "n0"), "label"),
			    "kernel\\nscale<…>\\nmean 2.0 µs, p90 3.0 µs\\n18.2% of graph time");
	assert_string_equal(attr(find(ag, "n1"), "label"),
			    "kernel\\ngemm\\nmean 6.0 µs, p90 7.0 µs\\n54.5% of graph time");
	assert_string_equal(attr(find(ag, "n2"), "label"),
			    "memcpy 4.0 KiB\\nmean 1.0 µs, p90 1.5 µs\\n9.1% of graph time");
	/* full name in the tooltip */
	assert_non_null(
	    strstr(attr(find(ag, "n0"), "tooltip"), "void scale<float, 4>(float*, int)\\nnode 11"));
	/* critical path A-B-D bold, C not */
	assert_string_equal(attr(find(ag, "n1"), "style"), "rounded,filled,bold");
	assert_string_equal(attr(find(ag, "n1"), "penwidth"), "3");
	assert_string_equal(attr(find(ag, "n2"), "style"), "rounded,filled");
	assert_string_equal(attr(edge(ag, "n0", "n1"), "style"), "bold");
	assert_string_equal(attr(edge(ag, "n1", "n3"), "style"), "bold");
	assert_string_equal(attr(edge(ag, "n0", "n2"), "style"), "");
	/* heat: saturation 0.08 + 0.72 * share / max share; B is the max (0.80),
	 * A: 0.08 + 0.72 * (4/22) / (12/22) = 0.32, C: 0.08 + 0.72 / 6 = 0.20 */
	assert_string_equal(attr(find(ag, "n1"), "fillcolor"), "0.000 0.800 1.000");
	assert_string_equal(attr(find(ag, "n0"), "fillcolor"), "0.000 0.320 1.000");
	assert_string_equal(attr(find(ag, "n2"), "fillcolor"), "0.000 0.200 1.000");
	render_dot_free(ag);

	/* without --stats: no figures, no heat */
	o.stats = 0;
	ag = render_dot_build(&g, &o);
	assert_string_equal(attr(find(ag, "n1"), "label"), "kernel\\ngemm");
	assert_string_equal(attr(find(ag, "n1"), "fillcolor"), "white");
	render_dot_free(ag);
	gm_free(&g);
}

/* P1 -> G -> P2, G a child-graph node whose graph is C1 -> C2 */
static void test_child_graph_is_a_cluster(void **state)
{
	struct gm_graph g;
	Agraph_t *ag, *sub;
	Agedge_t *e;
	int gn, c;

	(void)state;
	gm_init(&g);
	node(&g, 1, GS_NODE_KERNEL, "p1", -1);
	gn = node(&g, 2, GS_NODE_GRAPH, NULL, -1);
	node(&g, 3, GS_NODE_KERNEL, "p2", -1);
	c = gm_add_cluster(&g, 77, -1, gn, "child graph 77");
	node(&g, 10, GS_NODE_KERNEL, "c1", c);
	node(&g, 11, GS_NODE_KERNEL, "c2", c);
	gm_add_edge(&g, 0, 1, GM_EDGE_DEPENDENCY);
	gm_add_edge(&g, 1, 2, GM_EDGE_DEPENDENCY);
	gm_add_edge(&g, 3, 4, GM_EDGE_DEPENDENCY);
	gm_compute_stats(&g);
	assert_int_equal(gm_critical_path(&g), 0);
	gm_collapse(&g, 8);
	ag = render_dot_build(&g, NULL);
	assert_non_null(ag);
	/* G is drawn as its cluster, not as a node */
	assert_int_equal(agnnodes(ag), 4);
	assert_null(find(ag, "n1"));
	assert_int_equal(agnedges(ag), 3);
	sub = agsubg(ag, (char *)"cluster_0", 0);
	assert_non_null(sub);
	assert_int_equal(agnnodes(sub), 2);
	assert_non_null(agsubnode(sub, find(ag, "n3"), 0));
	assert_non_null(agsubnode(sub, find(ag, "n4"), 0));
	assert_null(agsubnode(sub, find(ag, "n0"), 0));
	assert_string_equal(attr(sub, "label"), "child graph 77");
	assert_string_equal(attr(sub, "style"), "rounded,bold"); /* on the critical path */
	/* P1 -> G enters at the child's root, G -> P2 leaves from its sink */
	e = edge(ag, "n0", "n3");
	assert_non_null(e);
	assert_string_equal(attr(e, "lhead"), "cluster_0");
	e = edge(ag, "n4", "n2");
	assert_non_null(e);
	assert_string_equal(attr(e, "ltail"), "cluster_0");
	assert_string_equal(attr(ag, "compound"), "true");
	render_dot_free(ag);
	gm_free(&g);
}

static void test_collapsed_chain_is_one_node_with_count(void **state)
{
	struct gm_graph g;
	Agraph_t *ag;
	int i;

	(void)state;
	gm_init(&g);
	for (i = 0; i < 10; i++) {
		node(&g, 100 + i, GS_NODE_KERNEL, "_Z5smallv", -1);
		if (i)
			gm_add_edge(&g, i - 1, i, GM_EDGE_DEPENDENCY);
	}
	node(&g, 200, GS_NODE_EMPTY, NULL, -1);
	gm_add_edge(&g, 9, 10, GM_EDGE_DEPENDENCY);
	gm_compute_stats(&g);
	gm_critical_path(&g);
	assert_int_equal(gm_collapse(&g, 8), 1);
	ag = render_dot_build(&g, NULL);
	assert_int_equal(agnnodes(ag), 2);
	assert_int_equal(agnedges(ag), 1);
	assert_string_equal(attr(find(ag, "n0"), "label"), "kernel\\nsmall\\n×10 (chain)");
	assert_non_null(edge(ag, "n0", "n10"));
	assert_string_equal(attr(find(ag, "n10"), "shape"), "ellipse");
	render_dot_free(ag);
	gm_free(&g);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void tmpname(char *buf, size_t len, const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	snprintf(buf, len, "%s/gs_graph_%d_%s", dir && *dir ? dir : "/tmp", (int)getpid(), suffix);
}

static void test_dot_output_parses_back_with_same_counts(void **state)
{
	struct render_dot_options o = {.stats = 1};
	struct gm_graph g;
	Agraph_t *ag, *back;
	char path[512], err[256];
	char *text;
	size_t len;

	(void)state;
	build_diamond(&g);
	ag = render_dot_build(&g, &o);
	tmpname(path, sizeof(path), "d.dot");
	assert_int_equal(render_dot_write(ag, "dot", path, err, sizeof(err)), 0);
	text = slurp(path, &len);
	back = agmemread(text);
	assert_non_null(back);
	assert_int_equal(agnnodes(back), 4);
	assert_int_equal(agnedges(back), 4);
	assert_string_equal(attr(find(back, "n1"), "label"),
			    "kernel\\ngemm\\nmean 6.0 µs, p90 7.0 µs\\n54.5% of graph time");
	agclose(back);
	free(text);
	unlink(path);
	render_dot_free(ag);
	gm_free(&g);
}

/* Names from traces that try to break the outputs. */
static const char *const hostile[] = {
    "void hostile<\"quoted\">(char const*, {braces}) \\N back\\slash",
    "<lambda>",
    "line1\nline2 </text></svg> & &amp; ]]>",
};

static char *long_name(void)
{
	size_t cap = 20000, i;
	char *s = malloc(cap);
	assert_non_null(s);
	strcpy(s, "void very_long<");
	for (i = 0; i < 300; i++)
		strcat(s, "Outer<Inner<7>, \"s\">, ");
	strcat(s, "int>(int)");
	return s;
}

static Agraph_t *build_hostile(struct gm_graph *g)
{
	char *l = long_name();
	Agraph_t *ag;
	size_t i;

	gm_init(g);
	for (i = 0; i < 3; i++) {
		node(g, (int64_t)i, GS_NODE_KERNEL, hostile[i], -1);
		if (i)
			gm_add_edge(g, (int)i - 1, (int)i, GM_EDGE_DEPENDENCY);
	}
	node(g, 3, GS_NODE_KERNEL, l, -1);
	gm_add_edge(g, 2, 3, GM_EDGE_DEPENDENCY);
	free(l);
	gm_compute_stats(g);
	gm_critical_path(g);
	gm_collapse(g, 8);
	ag = render_dot_build(g, NULL);
	assert_non_null(ag);
	return ag;
}

static void test_hostile_names_survive_dot(void **state)
{
	struct gm_graph g;
	Agraph_t *ag = build_hostile(&g), *back;
	char path[512], err[256], *text;
	size_t len;

	(void)state;
	tmpname(path, sizeof(path), "h.dot");
	assert_int_equal(render_dot_write(ag, "dot", path, err, sizeof(err)), 0);
	text = slurp(path, &len);
	back = agmemread(text);
	assert_non_null(back);
	assert_int_equal(agnnodes(back), 4);
	assert_int_equal(agnedges(back), 3);
	/* the label values come back exactly; backslashes doubled so Graphviz
	 * does not expand \N, the raw newline replaced */
	assert_string_equal(attr(find(back, "n0"), "label"), "kernel\\nhostile<…>");
	assert_string_equal(attr(find(back, "n1"), "label"), "kernel\\n<lambda>");
	/* a value starting with '<' set as a plain string is written quoted,
	 * so it does not come back as an HTML-like label */
	assert_int_equal(aghtmlstr(agget(find(back, "n1"), (char *)"label")), 0);
	assert_non_null(strstr(text, "label=\"kernel\\n<lambda>\""));
	assert_non_null(
	    strstr(attr(find(back, "n0"), "tooltip"),
		   "void hostile<\"quoted\">(char const*, {braces}) \\\\\\\\N back\\\\\\\\slash"));
	assert_non_null(strstr(attr(find(back, "n2"), "tooltip"),
			       "line1?line2 </text></svg> &amp; &amp;amp; ]]>"));
	/* the 6000-character name: label shortened, tooltip cut with "…" */
	assert_string_equal(attr(find(back, "n3"), "label"), "kernel\\nvery_long<…>");
	assert_true(strlen(attr(find(back, "n3"), "tooltip")) < 4200);
	assert_non_null(strstr(attr(find(back, "n3"), "tooltip"), "…"));
	agclose(back);
	free(text);
	unlink(path);
	render_dot_free(ag);
	gm_free(&g);
}

static void test_hostile_names_survive_svg_and_png(void **state)
{
	struct gm_graph g;
	Agraph_t *ag = build_hostile(&g);
	char path[512], err[256], *text;
	size_t len;

	(void)state;
	tmpname(path, sizeof(path), "h.svg");
	assert_int_equal(render_dot_write(ag, "svg", path, err, sizeof(err)), 0);
	text = slurp(path, &len);
	assert_non_null(strstr(text, "</svg>"));
	/* markup in names is escaped, never raw */
	assert_non_null(strstr(text, ">&lt;lambda&gt;</text>"));
	assert_null(strstr(text, "<lambda>"));
	assert_null(strstr(text, "</text></svg> &"));
	assert_non_null(strstr(text, "&lt;/text&gt;&lt;/svg&gt; &amp; &amp;amp; ]]&gt;"));
	/* one <g class="node"> per node */
	{
		const char *p = text;
		int nodes = 0;
		while ((p = strstr(p, "class=\"node\"")) != NULL) {
			nodes++;
			p++;
		}
		assert_int_equal(nodes, 4);
	}
	free(text);
	unlink(path);

	tmpname(path, sizeof(path), "h.png");
	assert_int_equal(render_dot_write(ag, "png", path, err, sizeof(err)), 0);
	text = slurp(path, &len);
	assert_true(len > 100);
	assert_memory_equal(text, "\x89PNG\r\n\x1a\n", 8);
	free(text);
	unlink(path);
	render_dot_free(ag);
	gm_free(&g);
}

static void test_write_to_unwritable_path_fails_cleanly(void **state)
{
	struct gm_graph g;
	Agraph_t *ag;
	char err[256] = "";

	(void)state;
	build_diamond(&g);
	ag = render_dot_build(&g, NULL);
	assert_int_equal(render_dot_write(ag, "svg", "/nonexistent-dir/g.svg", err, sizeof(err)),
			 -EIO);
	assert_string_equal(err, "cannot write: No such file or directory");
	render_dot_free(ag);
	gm_free(&g);
}

static void test_escape(void **state)
{
	char *e;

	(void)state;
	e = render_dot_escape("a\\Nb\n\x01\xff \xc2\xb5s \"q\" <x> &lt;");
	assert_string_equal(e, "a\\\\Nb??? \xc2\xb5s \"q\" <x> &amp;lt;");
	free(e);
	e = render_dot_escape("\xe2\x80"); /* truncated 3-byte sequence */
	assert_string_equal(e, "??");
	free(e);
}

static void test_format_from_suffix(void **state)
{
	(void)state;
	assert_string_equal(render_dot_format("g.svg"), "svg");
	assert_string_equal(render_dot_format("G.PNG"), "png");
	assert_string_equal(render_dot_format("x.dot"), "dot");
	assert_string_equal(render_dot_format("x.gv"), "dot");
	assert_string_equal(render_dot_format("-"), "dot");
	assert_null(render_dot_format("x.jpg"));
	assert_null(render_dot_format("noext"));
	assert_null(render_dot_format("dir.svg/file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_diamond_nodes_edges_labels_heat_and_bold),
	    cmocka_unit_test(test_child_graph_is_a_cluster),
	    cmocka_unit_test(test_collapsed_chain_is_one_node_with_count),
	    cmocka_unit_test(test_dot_output_parses_back_with_same_counts),
	    cmocka_unit_test(test_hostile_names_survive_dot),
	    cmocka_unit_test(test_hostile_names_survive_svg_and_png),
	    cmocka_unit_test(test_write_to_unwritable_path_fails_cleanly),
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_format_from_suffix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
