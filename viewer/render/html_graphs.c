/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * html_graphs.c - the CUDA graph diagrams of the HTML page. For the most
 * launched recorded graphs, loads the graph helper's model (trace_graph.c),
 * marks its critical path and collapses long chains (graph_model.c), has
 * render_dot.c lay it out and render it as SVG into memory (no temporary
 * file: an interrupted run left gapscope-graph-* files in /tmp), and
 * inlines that SVG. No Graphviz call and no SQL here: both stay in their
 * one module. Graphviz's SVG renderer does the XML escaping of names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render_dot.h"
#include "render_html.h"
#include "trace_graph.h"

#define GRAPH_COLLAPSE 8 /* as `gapscope graph`'s default --collapse */

static int cmp_launches(const void *a, const void *b)
{
	const struct tg_info *x = a, *y = b;

	if (x->launches != y->launches)
		return x->launches < y->launches ? 1 : -1;
	return x->graph_id < y->graph_id ? -1 : x->graph_id > y->graph_id;
}

/* Render graph `info` to SVG and copy it into f from its <svg element on.
 * Returns 0, or -1 (with nothing written) when it cannot be drawn. */
static int inline_graph(FILE *f, struct trace *t, const struct tg_info *info)
{
	struct render_dot_options ro = {0};
	char err[256], title[160];
	struct gm_graph g;
	Agraph_t *ag = NULL;
	char *buf = NULL, *svg;
	size_t n = 0;
	int ret = -1;

	gm_init(&g);
	if (tg_load(t, info->graph_id, &g, NULL, err, sizeof(err)) < 0)
		goto out;
	gm_critical_path(&g); /* a cycle only means no path is marked */
	if (gm_collapse(&g, GRAPH_COLLAPSE) < 0)
		goto out;
	/* too big to lay out in reasonable time (render_dot.h): listed as
	 * not drawn, as a graph that fails to draw */
	if (gm_count_drawn(&g) > RENDER_DOT_MAX_NODES)
		goto out;
	snprintf(title, sizeof(title), "CUDA graph %lld: %zu nodes, %zu launches",
		 (long long)info->graph_id, g.n_nodes, info->launches);
	ro.stats = 1;
	ro.title = title;
	ag = render_dot_build(&g, &ro);
	if (!ag || render_dot_render(ag, "svg", &buf, &n, err, sizeof(err)) < 0 || !n)
		goto out;
	svg = realloc(buf, n + 1);
	if (!svg)
		goto out;
	buf = svg;
	buf[n] = '\0';
	/* drop the XML declaration and DOCTYPE: inline SVG starts at <svg */
	svg = strstr(buf, "<svg");
	if (!svg)
		goto out;
	fputs("<div class=\"graphsvg\">\n", f);
	fputs(svg, f);
	fputs("</div>\n", f);
	ret = 0;
out:
	free(buf);
	if (ag)
		render_dot_free(ag);
	gm_free(&g);
	return ret;
}

int html_write_graphs(FILE *f, struct trace *t, size_t max)
{
	struct tg_info *v = NULL;
	char err[256];
	size_t n = 0, i, shown = 0;

	if (!t || tg_list(t, &v, &n, err, sizeof(err)) < 0 || n == 0) {
		free(v);
		return 0;
	}
	qsort(v, n, sizeof(*v), cmp_launches);
	fputs("<h3>CUDA graphs</h3>\n<p class=\"hint\">The most launched recorded graphs, with "
	      "each node's measured time; the critical path is highlighted and long chains "
	      "are collapsed (as <code>gapscope graph --stats</code>, docs/graphs.md).</p>\n",
	      f);
	for (i = 0; i < n && shown < max; i++) {
		if (v[i].nodes == 0)
			continue;
		if (inline_graph(f, t, &v[i]) == 0)
			shown++;
	}
	if (n > shown)
		fprintf(f,
			"<p class=\"hint\">%zu graph%s not drawn here; list them with "
			"<code>gapscope graph</code>.</p>\n",
			n - shown, n - shown == 1 ? "" : "s");
	free(v);
	return (int)shown;
}
