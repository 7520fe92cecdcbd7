/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * render_dot.h - draws a graph model (graph_model.h) with Graphviz.
 *
 * The one place where gapscope calls Graphviz: the picture is built as a
 * libcgraph graph (agopen/agnode/agedge/agsafeset; child graphs and streams
 * as subgraphs named cluster_*), never by printing DOT text, and laid out
 * and rendered with libgvc (dot layout; dot, svg or png output). Strings from
 * traces go in as attribute values, so cgraph does the DOT quoting and the
 * renderers do the SVG escaping. It reads no trace and computes no statistics.
 */
#ifndef GAPSCOPE_RENDER_DOT_H
#define GAPSCOPE_RENDER_DOT_H

#include <stddef.h>

#include <graphviz/cgraph.h>

#include "graph_model.h"

struct render_dot_options {
	int stats;	   /* 1: mean/p90/share lines and heat colour by share */
	const char *title; /* graph label drawn on top, or NULL */
	size_t max_name;   /* characters of a shortened kernel name in a label (0: 40) */
};

/* The most drawn nodes (gm_count_drawn) that callers hand to the layout by
 * default. Graphviz's dot layout grows much faster than the node count on
 * wide graphs: one node with N dependants took 2.6 s at N = 2000, 7.7 s at
 * 3000, 26 s at 5000 and 150 s at 10000 (Graphviz 2.42, this project's
 * development VM); a damaged or hostile trace can claim any number of
 * nodes. A chain of 5000 distinct nodes took 5 s. */
#define RENDER_DOT_MAX_NODES 3000

/* Build the cgraph graph for g (call gm_compute_stats, gm_critical_path and
 * gm_collapse on g first). Drawn nodes are named "n<index>" after their model
 * index. Returns NULL when out of memory. Free with render_dot_free(). */
Agraph_t *render_dot_build(const struct gm_graph *g, const struct render_dot_options *o);
void render_dot_free(Agraph_t *ag);

/* Output format for an output path, from its suffix: "dot", "svg" or "png";
 * "-" (stdout) is "dot". NULL for anything else. */
const char *render_dot_format(const char *path);

/* Lay out with dot and render in format into memory: *data (malloc'ed,
 * free it) of *len bytes. Returns 0, or a negative value with a one-line
 * reason in err: -ENOTSUP when this Graphviz lacks the format's plugin,
 * -EINVAL when the layout fails, -ENOMEM. */
int render_dot_render(Agraph_t *ag, const char *format, char **data, size_t *len, char *err,
		      size_t errlen);

/* Lay out with dot and render to path ("-" = stdout) in format, through
 * out_file.h (a temporary file renamed into place when complete; devices
 * and stdout written in place). Returns 0, or a negative value with a
 * one-line reason in err: -EIO when the file cannot be created, -ENOSPC
 * when writing it failed (disk full, a full device: err says which; the
 * old file is left as it was), -ENOTSUP when this Graphviz lacks the
 * format's plugin, -EINVAL when the layout fails. */
int render_dot_write(Agraph_t *ag, const char *format, const char *path, char *err, size_t errlen);

/* A trace string made safe as a Graphviz escString attribute value (labels,
 * tooltips): backslashes doubled (so "\N", "\G", "\l" in a name are not
 * expanded), '&' written as "&amp;" (Graphviz decodes entities in labels),
 * control characters and invalid UTF-8 bytes replaced by '?'.
 * DOT quoting itself is cgraph's job. Returns a malloc'ed string or NULL.
 * (Tooltips get four backslashes per backslash: see render_dot.c.) */
char *render_dot_escape(const char *s);

#endif
