/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * graph_model.c - the graph model of graph_model.h: building it, statistics,
 * critical path, chain collapse and origin resolution. (Kernel-name labels
 * are names.c's gs_short_name.)
 *
 * No SQL, no Graphviz, no I/O: the loader (trace_graph.c) and the renderer
 * (render_dot.c) sit on either side, and the unit tests drive this file with
 * hand-built graphs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph_model.h"

/* ---- int64 -> int map ---------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 finaliser: CUPTI ids are small consecutive integers, which
	 * would cluster badly with a plain modulo. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static int map_grow(struct gm_map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	int64_t *nk = malloc(ncap * sizeof(*nk));
	int *nv = malloc(ncap * sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (i = 0; i < ncap; i++)
		nv[i] = -1;
	for (i = 0; i < m->cap; i++) {
		size_t j;
		if (m->vals[i] < 0)
			continue;
		j = mix64((uint64_t)m->keys[i]) & (ncap - 1);
		while (nv[j] >= 0)
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

int gm_map_put(struct gm_map *m, int64_t key, int val)
{
	size_t j;

	if (val < 0)
		return -EINVAL; /* -1 marks an empty slot */
	if ((m->len + 1) * 2 > m->cap && map_grow(m) < 0)
		return -ENOMEM;
	j = mix64((uint64_t)key) & (m->cap - 1);
	while (m->vals[j] >= 0 && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	if (m->vals[j] < 0)
		m->len++;
	m->keys[j] = key;
	m->vals[j] = val;
	return 0;
}

int gm_map_get(const struct gm_map *m, int64_t key)
{
	size_t j;

	if (!m->cap)
		return -1;
	j = mix64((uint64_t)key) & (m->cap - 1);
	while (m->vals[j] >= 0) {
		if (m->keys[j] == key)
			return m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return -1;
}

void gm_map_free(struct gm_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- building ------------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

void gm_init(struct gm_graph *g)
{
	memset(g, 0, sizeof(*g));
}

void gm_free(struct gm_graph *g)
{
	size_t i;

	for (i = 0; i < g->n_nodes; i++) {
		free(g->nodes[i].detail);
		free(g->nodes[i].dur);
	}
	for (i = 0; i < g->n_clusters; i++)
		free(g->clusters[i].label);
	for (i = 0; i < g->n_names; i++)
		free(g->names[i]);
	free(g->names);
	free(g->nodes);
	free(g->edges);
	free(g->clusters);
	gm_map_free(&g->by_id);
	memset(g, 0, sizeof(*g));
}

const char *gm_add_name(struct gm_graph *g, const char *name, size_t len)
{
	char *copy;

	if (grow((void **)&g->names, &g->cap_names, g->n_names + 1, sizeof(*g->names)) < 0)
		return NULL;
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, name, len);
	copy[len] = '\0';
	g->names[g->n_names++] = copy;
	return copy;
}

int gm_add_node(struct gm_graph *g, int64_t id, int type, const char *name, int cluster)
{
	const char *copy = NULL;

	if (gm_map_get(&g->by_id, id) >= 0)
		return -EEXIST;
	if (name && !(copy = gm_add_name(g, name, strlen(name))))
		return -ENOMEM;
	/* (the copy stays in g->names if adding fails; gm_free frees it) */
	return gm_add_node_named(g, id, type, copy, cluster);
}

int gm_add_node_named(struct gm_graph *g, int64_t id, int type, const char *name, int cluster)
{
	struct gm_node *n;
	int idx;

	if (gm_map_get(&g->by_id, id) >= 0)
		return -EEXIST;
	if (grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(*g->nodes)) < 0)
		return -ENOMEM;
	idx = (int)g->n_nodes;
	n = &g->nodes[idx];
	memset(n, 0, sizeof(*n));
	n->id = id;
	n->type = type;
	n->cluster = cluster;
	n->child_cluster = -1;
	n->rep = idx;
	n->chain_len = 1;
	n->name = name;
	if (gm_map_put(&g->by_id, id, idx) < 0)
		return -ENOMEM;
	g->n_nodes++;
	return idx;
}

int gm_set_detail(struct gm_graph *g, int node, const char *detail)
{
	char *d = detail ? strdup(detail) : NULL;

	if (detail && !d)
		return -ENOMEM;
	free(g->nodes[node].detail);
	g->nodes[node].detail = d;
	return 0;
}

int gm_find(const struct gm_graph *g, int64_t id)
{
	return gm_map_get(&g->by_id, id);
}

int gm_add_edge(struct gm_graph *g, int from, int to, int kind)
{
	struct gm_edge *e;

	if (from < 0 || to < 0 || (size_t)from >= g->n_nodes || (size_t)to >= g->n_nodes)
		return -EINVAL;
	if (grow((void **)&g->edges, &g->cap_edges, g->n_edges + 1, sizeof(*g->edges)) < 0)
		return -ENOMEM;
	e = &g->edges[g->n_edges];
	memset(e, 0, sizeof(*e));
	e->from = from;
	e->to = to;
	e->kind = kind;
	return (int)g->n_edges++;
}

int gm_add_cluster(struct gm_graph *g, int64_t graph_id, int parent, int node, const char *label)
{
	struct gm_cluster *c;

	if (grow((void **)&g->clusters, &g->cap_clusters, g->n_clusters + 1, sizeof(*g->clusters)) <
	    0)
		return -ENOMEM;
	c = &g->clusters[g->n_clusters];
	c->graph_id = graph_id;
	c->parent = parent;
	c->node = node;
	c->label = strdup(label ? label : "");
	if (!c->label)
		return -ENOMEM;
	if (node >= 0 && (size_t)node < g->n_nodes)
		g->nodes[node].child_cluster = (int)g->n_clusters;
	return (int)g->n_clusters++;
}

int gm_add_duration(struct gm_graph *g, int node, uint64_t ns)
{
	struct gm_node *n = &g->nodes[node];

	if (grow((void **)&n->dur, &n->cap_dur, n->n_dur + 1, sizeof(*n->dur)) < 0)
		return -ENOMEM;
	n->dur[n->n_dur++] = ns;
	return 0;
}

/* ---- statistics ---------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void gm_compute_stats(struct gm_graph *g)
{
	size_t i, j;

	g->total_ns = 0;
	g->has_measurements = 0;
	for (i = 0; i < g->n_nodes; i++) {
		struct gm_node *n = &g->nodes[i];
		n->total_ns = 0;
		n->mean_ns = 0;
		n->p90_ns = 0;
		if (!n->n_dur)
			continue;
		g->has_measurements = 1;
		qsort(n->dur, n->n_dur, sizeof(*n->dur), cmp_u64);
		for (j = 0; j < n->n_dur; j++)
			n->total_ns += n->dur[j];
		n->mean_ns = (double)n->total_ns / (double)n->n_dur;
		/* nearest rank: the ceil(0.9 n)-th smallest value */
		n->p90_ns = n->dur[(9 * n->n_dur + 9) / 10 - 1];
		g->total_ns += n->total_ns;
	}
	for (i = 0; i < g->n_nodes; i++) {
		struct gm_node *n = &g->nodes[i];
		n->share = g->total_ns ? (double)n->total_ns / (double)g->total_ns : 0.0;
		n->chain_mean = n->mean_ns;
		n->chain_share = n->share;
	}
}

/* ---- critical path ------------------------------------------------------- */

/* A child-graph node whose child graph has nodes is "expanded": on the path it
 * stands for its child graph (entry = the node, exit = an extra vertex). */
static int expanded(const struct gm_graph *g, size_t i, const size_t *cluster_size)
{
	int c = g->nodes[i].child_cluster;
	return c >= 0 && cluster_size[c] > 0;
}

int gm_critical_path(struct gm_graph *g)
{
	size_t N = g->n_nodes, V, F = 0, i, nf = 0, head = 0, tail = 0, popped = 0;
	size_t *cluster_size = NULL, *indeg_m = NULL, *outdeg_m = NULL;
	int *exit_of = NULL, *fsrc = NULL, *fdst = NULL, *fedge = NULL, *pe = NULL;
	int *queue = NULL, *start = NULL, *adj = NULL, *indeg = NULL, *fill = NULL;
	double *w = NULL, *dist = NULL;
	int rc = -ENOMEM, best = -1;

	for (i = 0; i < N; i++)
		g->nodes[i].critical = 0;
	for (i = 0; i < g->n_edges; i++)
		g->edges[i].critical = 0;
	g->critical_weight = 0;
	g->critical_nodes = 0;
	if (!N)
		return 0;

	cluster_size = calloc(g->n_clusters + 1, sizeof(*cluster_size));
	indeg_m = calloc(N, sizeof(*indeg_m));
	outdeg_m = calloc(N, sizeof(*outdeg_m));
	exit_of = malloc(N * sizeof(*exit_of));
	if (!cluster_size || !indeg_m || !outdeg_m || !exit_of)
		goto out;
	for (i = 0; i < N; i++)
		if (g->nodes[i].cluster >= 0)
			cluster_size[g->nodes[i].cluster]++;
	for (i = 0; i < g->n_edges; i++) {
		outdeg_m[g->edges[i].from]++;
		indeg_m[g->edges[i].to]++;
	}
	V = N;
	for (i = 0; i < N; i++)
		exit_of[i] = expanded(g, i, cluster_size) ? (int)V++ : -1;

	/* flat edges: model edges (leaving an expanded node from its exit), plus
	 * entry -> child roots and child sinks -> exit */
	F = g->n_edges;
	for (i = 0; i < N; i++)
		if (g->nodes[i].cluster >= 0 && g->clusters[g->nodes[i].cluster].node >= 0 &&
		    exit_of[g->clusters[g->nodes[i].cluster].node] >= 0)
			F += (indeg_m[i] == 0) + (outdeg_m[i] == 0);
	fsrc = malloc((F + 1) * sizeof(*fsrc));
	fdst = malloc((F + 1) * sizeof(*fdst));
	fedge = malloc((F + 1) * sizeof(*fedge));
	w = calloc(V, sizeof(*w));
	dist = calloc(V, sizeof(*dist));
	pe = malloc(V * sizeof(*pe));
	queue = malloc(V * sizeof(*queue));
	start = calloc(V + 1, sizeof(*start));
	indeg = calloc(V, sizeof(*indeg));
	fill = calloc(V, sizeof(*fill));
	adj = malloc((F + 1) * sizeof(*adj));
	if (!fsrc || !fdst || !fedge || !w || !dist || !pe || !queue || !start || !indeg || !fill ||
	    !adj)
		goto out;
	for (i = 0; i < g->n_edges; i++) {
		int a = g->edges[i].from;
		fsrc[nf] = exit_of[a] >= 0 ? exit_of[a] : a;
		fdst[nf] = g->edges[i].to;
		fedge[nf++] = (int)i;
	}
	for (i = 0; i < N; i++) {
		int c = g->nodes[i].cluster, owner;
		if (c < 0 || (owner = g->clusters[c].node) < 0 || exit_of[owner] < 0)
			continue;
		if (indeg_m[i] == 0) {
			fsrc[nf] = owner;
			fdst[nf] = (int)i;
			fedge[nf++] = -1;
		}
		if (outdeg_m[i] == 0) {
			fsrc[nf] = exit_of[i] >= 0 ? exit_of[i] : (int)i;
			fdst[nf] = exit_of[owner];
			fedge[nf++] = -1;
		}
	}
	for (i = 0; i < N; i++)
		if (exit_of[i] < 0)
			w[i] = g->has_measurements ? g->nodes[i].mean_ns : 1.0;
	/* adjacency in CSR form */
	for (i = 0; i < nf; i++) {
		start[fsrc[i] + 1]++;
		indeg[fdst[i]]++;
	}
	for (i = 0; i < V; i++)
		start[i + 1] += start[i];
	for (i = 0; i < nf; i++)
		adj[start[fsrc[i]] + fill[fsrc[i]]++] = (int)i;

	/* Kahn's order; longest distance ending at each vertex */
	for (i = 0; i < V; i++) {
		dist[i] = w[i];
		pe[i] = -1;
		if (!indeg[i])
			queue[tail++] = (int)i;
	}
	while (head < tail) {
		int v = queue[head++], k;
		popped++;
		for (k = start[v]; k < start[v + 1]; k++) {
			int f = adj[k], u = fdst[f];
			/* strictly longer only: ties keep the first predecessor */
			if (pe[u] < 0 || dist[v] + w[u] > dist[u]) {
				dist[u] = dist[v] + w[u];
				pe[u] = f;
			}
			if (--indeg[u] == 0)
				queue[tail++] = u;
		}
	}
	if (popped < V) {
		rc = -EINVAL;
		goto out;
	}
	for (i = 0; i < V; i++)
		if (best < 0 || dist[i] > dist[best])
			best = (int)i;
	g->critical_weight = dist[best];
	for (int v = best; v >= 0;) {
		int f = pe[v];
		if ((size_t)v < N) {
			g->nodes[v].critical = 1;
			if (exit_of[v] < 0)
				g->critical_nodes++;
		}
		if (f < 0)
			break;
		if (fedge[f] >= 0)
			g->edges[fedge[f]].critical = 1;
		v = fsrc[f];
	}
	rc = 0;
out:
	free(cluster_size);
	free(indeg_m);
	free(outdeg_m);
	free(exit_of);
	free(fsrc);
	free(fdst);
	free(fedge);
	free(w);
	free(dist);
	free(pe);
	free(queue);
	free(start);
	free(indeg);
	free(fill);
	free(adj);
	return rc;
}

/* ---- chain collapse ------------------------------------------------------ */

static int same_kind(const struct gm_node *a, const struct gm_node *b)
{
	if (a->type != b->type)
		return 0;
	if (a->name == b->name) /* shared (gm_add_node_named), or both NULL */
		return 1;
	if (!a->name || !b->name)
		return !a->name && !b->name;
	return strcmp(a->name, b->name) == 0;
}

int gm_collapse(struct gm_graph *g, int threshold)
{
	size_t N = g->n_nodes, i;
	int *indeg = NULL, *outdeg = NULL, *oute = NULL, *next = NULL;
	char *linked_from = NULL;
	int chains = 0;

	for (i = 0; i < N; i++) {
		struct gm_node *n = &g->nodes[i];
		n->rep = (int)i;
		n->chain_len = 1;
		n->chain_mean = n->mean_ns;
		n->chain_share = n->share;
	}
	for (i = 0; i < g->n_edges; i++)
		g->edges[i].hidden = 0;
	if (threshold <= 0 || !N)
		return 0;

	indeg = calloc(N, sizeof(*indeg));
	outdeg = calloc(N, sizeof(*outdeg));
	oute = malloc(N * sizeof(*oute));
	next = malloc(N * sizeof(*next));
	linked_from = calloc(N, 1);
	if (!indeg || !outdeg || !oute || !next || !linked_from) {
		chains = -ENOMEM;
		goto out;
	}
	for (i = 0; i < g->n_edges; i++) {
		outdeg[g->edges[i].from]++;
		indeg[g->edges[i].to]++;
		oute[g->edges[i].from] = (int)i;
	}
	/* next[v]: the node v's chain continues to, or -1 */
	for (i = 0; i < N; i++) {
		const struct gm_node *v = &g->nodes[i], *u;
		int to;
		next[i] = -1;
		if (outdeg[i] != 1 || v->child_cluster >= 0)
			continue;
		to = g->edges[oute[i]].to;
		u = &g->nodes[to];
		if (to == (int)i || indeg[to] != 1 || u->child_cluster >= 0 ||
		    u->cluster != v->cluster || !same_kind(v, u))
			continue;
		next[i] = to;
		linked_from[to] = 1;
	}
	for (i = 0; i < N; i++) {
		int len = 1, v;
		struct gm_node *head = &g->nodes[i];
		if (linked_from[i] || next[i] < 0)
			continue;
		for (v = next[i]; v >= 0 && len <= (int)N; v = next[v])
			len++;
		if (len <= threshold)
			continue;
		chains++;
		head->chain_len = len;
		for (v = next[i]; v >= 0; v = next[v]) {
			struct gm_node *m = &g->nodes[v];
			m->rep = (int)i;
			head->chain_mean += m->mean_ns;
			head->chain_share += m->share;
		}
		for (v = (int)i; next[v] >= 0; v = next[v])
			g->edges[oute[v]].hidden = 1;
	}
out:
	free(indeg);
	free(outdeg);
	free(oute);
	free(next);
	free(linked_from);
	return chains;
}

size_t gm_count_drawn(const struct gm_graph *g)
{
	size_t i, k = 0;
	char *nonempty = calloc(g->n_clusters + 1, 1);

	if (!nonempty)
		return 0;
	for (i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].cluster >= 0)
			nonempty[g->nodes[i].cluster] = 1;
	for (i = 0; i < g->n_nodes; i++) {
		const struct gm_node *n = &g->nodes[i];
		if (n->rep == (int)i && !(n->child_cluster >= 0 && nonempty[n->child_cluster]))
			k++;
	}
	free(nonempty);
	return k;
}

/* ---- origins ------------------------------------------------------------- */

int gm_origins_add(struct gm_origins *o, int64_t node_id, int64_t original_node_id)
{
	int idx = gm_map_get(&o->idx, node_id);

	if (idx >= 0) {
		o->orig[idx] = original_node_id;
		return 0;
	}
	if (grow((void **)&o->orig, &o->cap, o->n + 1, sizeof(*o->orig)) < 0)
		return -ENOMEM;
	if (gm_map_put(&o->idx, node_id, (int)o->n) < 0)
		return -ENOMEM;
	o->orig[o->n++] = original_node_id;
	return 0;
}

void gm_origins_free(struct gm_origins *o)
{
	gm_map_free(&o->idx);
	free(o->orig);
	memset(o, 0, sizeof(*o));
}

int gm_resolve(const struct gm_graph *g, const struct gm_origins *o, int64_t node_id)
{
	int step;

	for (step = 0; step < 64 && node_id; step++) {
		int n = gm_find(g, node_id), k;
		if (n >= 0)
			return n;
		k = gm_map_get(&o->idx, node_id);
		if (k < 0)
			return -1;
		node_id = o->orig[k];
	}
	return -1;
}
