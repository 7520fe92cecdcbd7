/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * render_dot.c - the graph model drawn with Graphviz (see render_dot.h).
 *
 * All of gapscope's Graphviz calls are in this file. The graph is built with
 * libcgraph and every string goes in through agsafeset() as a plain (not
 * HTML) attribute value: cgraph quotes it when writing DOT, and libgvc's
 * renderers escape it for SVG, so a kernel name such as "<lambda>" or one
 * with quotes and braces cannot break the output. Graphviz still interprets
 * backslash sequences inside labels (escString: \N is the node name, \l a
 * left-justified line break), so render_dot_escape() doubles backslashes
 * first. It does not compute anything about the graph: the model arrives
 * with statistics, critical path and collapsed chains filled in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <graphviz/gvc.h>

#include "names.h"
#include "out_file.h"
#include "render_dot.h"

/* cgraph's API takes char * for strings it copies; the casts are safe. */
static void set(void *obj, const char *name, const char *value)
{
	agsafeset(obj, (char *)name, (char *)value, (char *)"");
}

/* ---- text helpers -------------------------------------------------------- */

/* Length of a valid UTF-8 sequence at s, 0 when invalid. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* backslashes: copies written per backslash of the input. At most the
 * characters that start in the first max_in bytes of s are escaped (each
 * gives at least one byte of output, so the result is a prefix of the
 * whole escaped string at least that long, or all of it). */
static char *escape_n(const char *s, size_t max_in, int backslashes)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strnlen(s, max_in), o = 0;
	char *out = malloc(5 * (len + 3) + 1); /* + a character begun before max_in */
	int k;

	if (!out)
		return NULL;
	while (*p && (size_t)(p - (const unsigned char *)s) < len) {
		size_t n = utf8_len(p);
		if (*p == '\\') {
			for (k = 0; k < backslashes; k++)
				out[o++] = '\\';
			p++;
		} else if (*p == '&') {
			/* Graphviz decodes entities in every label ("&lt;" draws
			 * '<'), so a literal '&' must be one */
			memcpy(out + o, "&amp;", 5);
			o += 5;
			p++;
		} else if (*p < 0x20 || *p == 0x7f || n == 0) {
			/* a raw newline would be a line break, other control bytes
			 * and broken UTF-8 make SVG/XML readers reject the file */
			out[o++] = '?';
			p++;
		} else {
			memcpy(out + o, p, n);
			o += n;
			p += n;
		}
	}
	out[o] = '\0';
	return out;
}

static char *escape(const char *s, int backslashes)
{
	/* "no limit" is PTRDIFF_MAX, not SIZE_MAX: no object is larger, and
	 * GCC 12 warns (-Wstringop-overread) when escape_n() is inlined with a
	 * strnlen() bound above the largest object size. */
	return escape_n(s, PTRDIFF_MAX, backslashes);
}

char *render_dot_escape(const char *s)
{
	return escape(s, 2);
}

struct text {
	char buf[4096]; /* escString value being built */
	size_t len;	/* bytes used */
};

/* Append our own (already safe) text, all or nothing: half of a "\\n"
 * would leave a lone backslash at the end of the value, and cgraph's DOT
 * writer escapes quotes but not backslashes, so the closing quote would be
 * read as escaped and the file would not parse. */
static void text_raw(struct text *t, const char *s)
{
	size_t n = strlen(s);
	if (t->len + n >= sizeof(t->buf))
		return;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

/* Append a string from a trace, escaped; cut (on a character boundary) when
 * the buffer is full, as a 10 kB template name would make a useless tooltip. */
static void text_str(struct text *t, const char *s, int tooltip)
{
	/* libgvc (2.42, 2.43) expands backslash sequences in a tooltip twice
	 * (found by the hostile-name tests: "\\\\N" still became the node's
	 * name), so a literal backslash takes four there */
	size_t n, room = sizeof(t->buf) - 1 - t->len;
	char *e;

	/* leave room for the lines that follow a name (ids, figures) */
	room = room > 512 ? room - 512 : 0;
	/* only what can fit is escaped: the text is the same, and a 2 MB name
	 * is not escaped whole (into 10 MB) to keep 3.5 kB of it */
	e = escape_n(s, room + 1, tooltip ? 4 : 2);

	if (!e)
		return;
	n = strlen(e);
	if (n > room) {
		n = room > 4 ? room - 4 : 0; /* 3 bytes of "…" */
		while (n > 0 && ((unsigned char)e[n] & 0xc0) == 0x80)
			n--;
		{
			/* never end on half of an escaped (doubled) backslash */
			size_t k = 0;
			while (k < n && e[n - 1 - k] == '\\')
				k++;
			n -= k % 2;
		}
		memcpy(t->buf + t->len, e, n);
		t->len += n;
		t->buf[t->len] = '\0';
		text_raw(t, "\xe2\x80\xa6");
	} else {
		memcpy(t->buf + t->len, e, n);
		t->len += n;
		t->buf[t->len] = '\0';
	}
	free(e);
}

static void text_fmt(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_fmt(struct text *t, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	text_raw(t, tmp);
}

/* line break inside an escString label */
#define NL "\\n"

static void fmt_ns(double ns, char *buf, size_t len)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f \xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

static void fmt_bytes(uint64_t b, char *buf, size_t len)
{
	if (b < 1024)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else if (b < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", (double)b / 1024);
	else if (b < 1024ULL * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", (double)b / (1024 * 1024));
	else
		snprintf(buf, len, "%.1f GiB", (double)b / (1024.0 * 1024 * 1024));
}

/* ---- building ------------------------------------------------------------ */

/* What a kernel name puts in a node's picture: its short form (label) and
 * the tooltip's first lines (demangled and recorded name, escaped, cut).
 * Made once per name pointer: nodes of one kernel share the pointer
 * (gm_add_node_named), and 1000 nodes drawn with 2 MB names spent 6 s
 * shortening and escaping the same two names again and again. */
struct name_draw {
	const char *name;     /* the node's name pointer (key) */
	char short_name[512]; /* gs_short_name, unescaped */
	struct text tip;      /* tooltip text for the name, from an empty tooltip */
};

struct build {
	const struct gm_graph *g;
	const struct render_dot_options *o;
	struct name_draw **names; /* open addressing on the pointer, names_cap slots */
	size_t names_cap;	  /* a power of two, 0 when there is no cache */
	Agraph_t *root;
	Agraph_t **sub;	  /* per cluster */
	char *drawn_crit; /* per node: a node it stands for is critical */
	char *expanded;	  /* per node: child-graph node drawn as its cluster */
	int *cl_size;	  /* per cluster: nodes directly in it */
	double max_share; /* largest chain_share among drawn nodes */
};

static Agraph_t *graph_of(struct build *b, int cluster)
{
	return cluster < 0 ? b->root : b->sub[cluster];
}

/* The drawn node an edge into (in = 1) or out of an expanded child-graph
 * node attaches to: a root (or sink) of its child graph, recursively. */
static int anchor(struct build *b, int node, int in)
{
	const struct gm_graph *g = b->g;
	int depth;

	for (depth = 0; depth < 64 && b->expanded[node]; depth++) {
		int c = g->nodes[node].child_cluster, pick = -1;
		size_t i, e;
		for (i = 0; i < g->n_nodes && pick < 0; i++) {
			int free_end = 1;
			if (g->nodes[i].cluster != c)
				continue;
			for (e = 0; e < g->n_edges && free_end; e++)
				if ((in ? g->edges[e].to : g->edges[e].from) == (int)i)
					free_end = 0;
			if (free_end)
				pick = (int)i;
		}
		if (pick < 0)
			break;
		node = pick;
	}
	return g->nodes[node].rep;
}

static void name_draw_fill(struct build *b, struct name_draw *d, const char *name)
{
	size_t max_name = b->o->max_name ? b->o->max_name : 40;
	char *full = gs_demangle(name);

	d->name = name;
	gs_short_name(name, d->short_name, sizeof(d->short_name), max_name);
	d->tip.len = 0;
	d->tip.buf[0] = '\0';
	/* the tooltip holds the whole name: demangled, then as recorded
	 * (the mangled form is what other tools and the database show) */
	if (full) {
		text_str(&d->tip, full, 1);
		text_raw(&d->tip, NL);
		free(full);
	}
	text_str(&d->tip, name, 1);
	text_raw(&d->tip, NL);
}

/* The drawing of name from the cache, made on first use; NULL when out of
 * memory (the caller then makes it in *scratch). */
static const struct name_draw *name_draw_get(struct build *b, const char *name,
					     struct name_draw *scratch)
{
	uint64_t x = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ULL;
	size_t j;

	if (!b->names_cap) {
		name_draw_fill(b, scratch, name);
		return scratch;
	}
	/* names_cap > number of nodes: a free slot is always found */
	for (j = (size_t)(x >> 32 ^ x) & (b->names_cap - 1); b->names[j];
	     j = (j + 1) & (b->names_cap - 1))
		if (b->names[j]->name == name)
			return b->names[j];
	b->names[j] = malloc(sizeof(*b->names[j]));
	if (!b->names[j]) {
		name_draw_fill(b, scratch, name);
		return scratch;
	}
	name_draw_fill(b, b->names[j], name);
	return b->names[j];
}

static void node_label(struct build *b, int i, struct text *label, struct text *tip,
		       struct name_draw *scratch)
{
	const struct gm_node *n = &b->g->nodes[i];
	char t1[64], t2[64];

	label->len = 0;
	label->buf[0] = '\0';
	tip->len = 0;
	tip->buf[0] = '\0';
	text_raw(label, gs_graph_node_type_name(n->type));
	if (n->name && *n->name) {
		const struct name_draw *d = name_draw_get(b, n->name, scratch);

		text_raw(label, NL);
		text_str(label, d->short_name, 0);
		memcpy(tip->buf, d->tip.buf, d->tip.len + 1);
		tip->len = d->tip.len;
	}
	if ((n->type == GS_NODE_MEMCPY || n->type == GS_NODE_MEMSET) && n->bytes) {
		fmt_bytes(n->bytes, t1, sizeof(t1));
		text_fmt(label, " %s", t1);
	}
	if (n->chain_len > 1)
		text_fmt(label, NL "\xc3\x97%d (chain)", n->chain_len);
	if (b->o->stats) {
		if (n->chain_len > 1 && n->chain_mean > 0) {
			fmt_ns(n->chain_mean, t1, sizeof(t1));
			text_fmt(label, NL "%s per launch" NL "%.1f%% of graph time", t1,
				 100.0 * n->chain_share);
		} else if (n->n_dur) {
			fmt_ns(n->mean_ns, t1, sizeof(t1));
			fmt_ns((double)n->p90_ns, t2, sizeof(t2));
			text_fmt(label, NL "mean %s, p90 %s" NL "%.1f%% of graph time", t1, t2,
				 100.0 * n->share);
		}
	}
	if (n->detail) {
		text_str(tip, n->detail, 1);
		text_raw(tip, NL);
	}
	if (n->grid[0])
		text_fmt(tip, "grid %ux%ux%u, block %ux%ux%u" NL, n->grid[0], n->grid[1],
			 n->grid[2], n->block[0], n->block[1], n->block[2]);
	if (n->chain_len > 1)
		text_fmt(tip, "%d nodes of this kind in a chain, from node %" PRId64 NL,
			 n->chain_len, n->id);
	else
		text_fmt(tip, "node %" PRId64 NL, n->id);
	if (n->n_dur) {
		fmt_ns(n->mean_ns, t1, sizeof(t1));
		fmt_ns((double)n->p90_ns, t2, sizeof(t2));
		text_fmt(tip, "%zu executions, mean %s, p90 %s, %.1f%% of graph time", n->n_dur, t1,
			 t2, 100.0 * n->share);
	}
}

static int add_node(struct build *b, int i)
{
	const struct gm_node *n = &b->g->nodes[i];
	struct text *label = malloc(sizeof(*label)), *tip = malloc(sizeof(*tip));
	struct name_draw *scratch = malloc(sizeof(*scratch));
	char name[32], style[64];
	Agnode_t *an;
	int rc = -ENOMEM;

	if (!label || !tip || !scratch)
		goto out;
	snprintf(name, sizeof(name), "n%d", i);
	an = agnode(graph_of(b, n->cluster), name, 1);
	if (!an)
		goto out;
	node_label(b, i, label, tip, scratch);
	set(an, "label", label->buf);
	set(an, "tooltip", tip->buf);
	snprintf(style, sizeof(style), "rounded,filled%s", b->drawn_crit[i] ? ",bold" : "");
	set(an, "style", style);
	if (b->drawn_crit[i])
		set(an, "penwidth", "3");
	if (n->type != GS_NODE_KERNEL)
		set(an, "shape", n->type == GS_NODE_EMPTY ? "ellipse" : "box");
	if (b->o->stats && b->max_share > 0 && n->chain_share > 0) {
		char col[32];
		/* heat: white -> red by share of the graph's time, scaled so the
		 * most expensive node is the reddest */
		double s = 0.08 + 0.72 * (n->chain_share / b->max_share);
		snprintf(col, sizeof(col), "0.000 %.3f 1.000", s > 1 ? 1 : s);
		set(an, "fillcolor", col);
	}
	rc = 0;
out:
	free(label);
	free(tip);
	free(scratch);
	return rc;
}

Agraph_t *render_dot_build(const struct gm_graph *g, const struct render_dot_options *o)
{
	struct render_dot_options defaults = {0};
	struct build b = {0};
	size_t i;
	int ok = 0;

	b.g = g;
	b.o = o ? o : &defaults;
	b.root = agopen((char *)"gapscope", Agdirected, NULL);
	b.sub = calloc(g->n_clusters + 1, sizeof(*b.sub));
	b.drawn_crit = calloc(g->n_nodes + 1, 1);
	b.expanded = calloc(g->n_nodes + 1, 1);
	b.cl_size = calloc(g->n_clusters + 1, sizeof(*b.cl_size));
	if (!b.root || !b.sub || !b.drawn_crit || !b.expanded || !b.cl_size)
		goto out;
	for (b.names_cap = 16; b.names_cap <= 2 * g->n_nodes; b.names_cap *= 2)
		;
	b.names = calloc(b.names_cap, sizeof(*b.names));
	if (!b.names)
		b.names_cap = 0; /* no cache: each node's name is drawn on its own */

	/* graph-wide defaults, declared so that every node/edge has them */
	agattr(b.root, AGRAPH, (char *)"compound", (char *)"true");
	agattr(b.root, AGRAPH, (char *)"rankdir", (char *)"TB");
	agattr(b.root, AGNODE, (char *)"shape", (char *)"box");
	agattr(b.root, AGNODE, (char *)"fontname", (char *)"Helvetica");
	agattr(b.root, AGNODE, (char *)"fontsize", (char *)"10");
	agattr(b.root, AGNODE, (char *)"fillcolor", (char *)"white");
	agattr(b.root, AGEDGE, (char *)"arrowsize", (char *)"0.7");
	if (b.o->title) {
		char *t = render_dot_escape(b.o->title);
		if (!t)
			goto out;
		set(b.root, "label", t);
		set(b.root, "labelloc", "t");
		set(b.root, "fontname", "Helvetica");
		free(t);
	}

	for (i = 0; i < g->n_nodes; i++) {
		const struct gm_node *n = &g->nodes[i];
		if (n->cluster >= 0)
			b.cl_size[n->cluster]++;
		if (n->critical)
			b.drawn_crit[n->rep] = 1;
		if (n->rep == (int)i && n->chain_share > b.max_share)
			b.max_share = n->chain_share;
	}
	for (i = 0; i < g->n_nodes; i++) {
		int c = g->nodes[i].child_cluster;
		b.expanded[i] = c >= 0 && b.cl_size[c] > 0;
	}
	/* clusters: a parent always precedes its children (load order) */
	for (i = 0; i < g->n_clusters; i++) {
		const struct gm_cluster *c = &g->clusters[i];
		char name[32], *label;
		Agraph_t *parent =
		    c->parent >= 0 && (size_t)c->parent < i ? b.sub[c->parent] : b.root;
		snprintf(name, sizeof(name), "cluster_%zu", i);
		b.sub[i] = agsubg(parent, name, 1);
		label = render_dot_escape(c->label);
		if (!b.sub[i] || !label) {
			free(label);
			goto out;
		}
		set(b.sub[i], "label", label);
		free(label);
		set(b.sub[i], "style", "rounded,dashed");
		if (c->node >= 0 && g->nodes[c->node].critical) {
			set(b.sub[i], "penwidth", "3");
			set(b.sub[i], "style", "rounded,bold");
		}
	}
	for (i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].rep != (int)i || b.expanded[i])
			continue;
		if (add_node(&b, (int)i) < 0)
			goto out;
	}
	for (i = 0; i < g->n_edges; i++) {
		const struct gm_edge *e = &g->edges[i];
		char tn[32], hn[32], cl[32];
		Agnode_t *t, *h;
		Agedge_t *ae;
		int from, to;

		if (e->hidden)
			continue;
		from = b.expanded[e->from] ? anchor(&b, e->from, 0) : g->nodes[e->from].rep;
		to = b.expanded[e->to] ? anchor(&b, e->to, 1) : g->nodes[e->to].rep;
		snprintf(tn, sizeof(tn), "n%d", from);
		snprintf(hn, sizeof(hn), "n%d", to);
		t = agnode(b.root, tn, 0);
		h = agnode(b.root, hn, 0);
		if (!t || !h)
			continue; /* an expanded child graph made only of hidden nodes */
		ae = agedge(b.root, t, h, NULL, 1);
		if (!ae)
			goto out;
		if (b.expanded[e->from]) {
			snprintf(cl, sizeof(cl), "cluster_%d", g->nodes[e->from].child_cluster);
			set(ae, "ltail", cl);
		}
		if (b.expanded[e->to]) {
			snprintf(cl, sizeof(cl), "cluster_%d", g->nodes[e->to].child_cluster);
			set(ae, "lhead", cl);
		}
		if (e->kind == GM_EDGE_EVENT) {
			set(ae, "style", e->critical ? "dashed,bold" : "dashed");
			set(ae, "color", "blue");
			set(ae, "tooltip",
			    "inferred: event recorded after this operation, waited for by the "
			    "next");
		} else if (e->critical) {
			set(ae, "style", "bold");
		}
		if (e->critical)
			set(ae, "penwidth", "3");
	}
	ok = 1;
out:
	for (i = 0; i < b.names_cap; i++)
		free(b.names[i]);
	free(b.names);
	free(b.sub);
	free(b.drawn_crit);
	free(b.expanded);
	free(b.cl_size);
	if (!ok && b.root) {
		agclose(b.root);
		return NULL;
	}
	return b.root;
}

void render_dot_free(Agraph_t *ag)
{
	if (ag)
		agclose(ag);
}

/* ---- output -------------------------------------------------------------- */

const char *render_dot_format(const char *path)
{
	const char *dot;

	if (!strcmp(path, "-"))
		return "dot";
	dot = strrchr(path, '.');
	if (!dot || strchr(dot, '/'))
		return NULL;
	if (!strcasecmp(dot, ".dot") || !strcasecmp(dot, ".gv"))
		return "dot";
	if (!strcasecmp(dot, ".svg"))
		return "svg";
	if (!strcasecmp(dot, ".png"))
		return "png";
	return NULL;
}

/* One context for the whole process: libgvc 2.42's text layout keeps a
 * static cache of the last font name, which gvFreeContext frees and the
 * next context's layout reads (a heap use-after-free ASan found when a test
 * drew twice). A context lives until exit; the gapscope command draws once
 * anyway. */
static GVC_t *gv_context(void)
{
	static GVC_t *shared;

	if (!shared)
		shared = gvContext();
	return shared;
}

int render_dot_render(Agraph_t *ag, const char *format, char **data, size_t *len, char *err,
		      size_t errlen)
{
	GVC_t *gvc = gv_context();
	char *out = NULL;
	unsigned int n = 0;
	int rc = 0;

	*data = NULL;
	*len = 0;
	if (!gvc) {
		snprintf(err, errlen, "cannot start Graphviz (gvContext failed)");
		return -ENOMEM;
	}
	if (gvLayout(gvc, ag, "dot") != 0) {
		snprintf(err, errlen, "Graphviz dot layout failed");
		return -EINVAL;
	}
	/* To memory, never to a FILE: libgvc's writer ends the whole process
	 * when a write fails ("Error: gvwrite_no_z problem 8192", exit(1)),
	 * leaving a partial file behind. Writing is out_file.c's job. */
	if (gvRenderData(gvc, ag, format, &out, &n) != 0 || !out) {
		snprintf(err, errlen, "this Graphviz cannot render %s (plugin missing)", format);
		rc = -ENOTSUP;
	} else if (!(*data = malloc(n ? n : 1))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	} else {
		memcpy(*data, out, n);
		*len = n;
	}
	if (out)
		gvFreeRenderData(out);
	gvFreeLayout(gvc, ag);
	return rc;
}

int render_dot_write(Agraph_t *ag, const char *format, const char *path, char *err, size_t errlen)
{
	struct out_file o;
	char *data = NULL;
	size_t len = 0;
	int rc;

	/* opened first: an unwritable path is said before a long layout */
	if (out_open(&o, path, err, errlen) < 0)
		return -EIO;
	rc = render_dot_render(ag, format, &data, &len, err, errlen);
	if (rc < 0) {
		out_abort(&o);
		return rc;
	}
	fwrite(data, 1, len, o.f);
	free(data);
	if (out_commit(&o, err, errlen) < 0)
		return -ENOSPC;
	return 0;
}
