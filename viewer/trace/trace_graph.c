/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_graph.c - SQL for `gapscope graph`: topology and measurements of
 * recorded CUDA graphs, and the stream-ordered work of an NVTX range, turned
 * into graph models (see trace_graph.h).
 *
 * Kernels launched from a graph carry the id of the executable graph's node
 * (kernels.graph_node_id); graph_nodes.original_node_id leads from that node
 * back to the node of the graph the user built or captured. gm_resolve()
 * follows that chain, so measurements land on the drawn node whether or not
 * the collector recorded the executable graph's nodes. Nothing here draws.
 *
 * Why one file of about 1,250 lines (CONVENTIONS.md: ~1,200): recorded
 * graphs and a range's stream-ordered work both end in the same graph model
 * through the same SQL helpers (prep, step_err) and name cache (tg_names).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "trace_graph.h"

/* A node of graph_nodes alias n that belongs to its graph's topology. During
 * instantiation CUPTI clones every node; should the clone be reported in the
 * same graph as the node it copies, it is a node of the executable graph,
 * not one the user built, and is left out of the counts and the picture. */
#define TOPO_NODE                                                                                  \
	"NOT EXISTS (SELECT 1 FROM graph_nodes o WHERE o.node_id = n.original_node_id "            \
	"AND o.graph_id = n.graph_id)"

static int prep(struct trace *t, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(t->db, sql, -1, st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read graph tables: %s", sqlite3_errmsg(t->db));
		return -EIO;
	}
	return 0;
}

static int step_err(struct trace *t, int rc, char *err, size_t errlen)
{
	if (rc == SQLITE_DONE)
		return 0;
	snprintf(err, errlen, "cannot read graph tables: %s", sqlite3_errmsg(t->db));
	trace_too_long(t, err, errlen); /* the reason, where a query was stopped */
	return -EIO;
}

/* One integer from a query with one int64 parameter (0 when no row). */
static int64_t query_i64(struct trace *t, const char *sql, int64_t arg)
{
	sqlite3_stmt *st = NULL;
	int64_t v = 0;

	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, arg);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Names by strings id: each id is read once and its text kept in the
 * graph (gm_add_name), so nodes of one kernel share one copy. Joining
 * strings into the row queries copied the name with every row: a range of
 * 1700 kernels sharing a 2 MB name took 25 s and 5.5 GB for graph
 * --streams. */
struct tg_names {
	sqlite3_stmt *st;  /* SELECT value FROM strings WHERE id = ? */
	struct gm_map ids; /* strings id -> index in g->names */
};

static void tg_names_free(struct tg_names *n)
{
	sqlite3_finalize(n->st);
	gm_map_free(&n->ids);
	memset(n, 0, sizeof(*n));
}

/* The name whose strings id is in column col of row, in *out: NULL when
 * the column is NULL or not an integer or the strings table lacks the id
 * (as the LEFT JOIN on strings gave). 0 or a negative errno (err filled). */
static int tg_name(struct trace *t, struct tg_names *n, struct gm_graph *g, sqlite3_stmt *row,
		   int col, const char **out, char *err, size_t errlen)
{
	int64_t id;
	int k, rc;

	*out = NULL;
	if (sqlite3_column_type(row, col) != SQLITE_INTEGER)
		return 0;
	id = sqlite3_column_int64(row, col);
	if ((k = gm_map_get(&n->ids, id)) >= 0) {
		*out = g->names[k];
		return 0;
	}
	if (!n->st &&
	    (rc = prep(t, "SELECT value FROM strings WHERE id = ?", &n->st, err, errlen)) < 0)
		return rc;
	sqlite3_bind_int64(n->st, 1, id);
	rc = sqlite3_step(n->st);
	if (rc == SQLITE_ROW && sqlite3_column_type(n->st, 0) != SQLITE_NULL) {
		const char *v = (const char *)sqlite3_column_text(n->st, 0);
		/* as text, up to the first NUL (what strdup of the joined value kept) */
		if (v && (!(*out = gm_add_name(g, v, strlen(v))) ||
			  gm_map_put(&n->ids, id, (int)g->n_names - 1) < 0)) {
			sqlite3_reset(n->st);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		rc = SQLITE_DONE;
	}
	rc = step_err(t, rc, err, errlen); /* before the reset, which keeps no message */
	sqlite3_reset(n->st);
	return rc;
}

/* ---- topology ------------------------------------------------------------ */

/* Child graphs nested deeper than this are not loaded: their child-graph
 * node is drawn without the box of its nodes. A damaged trace with 3000
 * child graphs each inside the next overflowed Graphviz's stack (its
 * cluster code recurses) and made `graph` list for minutes (every graph
 * loaded the whole chain below it); real graphs nest a few levels. */
#define TG_MAX_CHILD_DEPTH 32

/* Nodes of graph_id and, recursively, of its child graphs (one cluster
 * each), then the edges among them. */
static int load_tree(struct trace *t, int64_t graph_id, struct gm_graph *g, char *err,
		     size_t errlen)
{
	sqlite3_stmt *nst = NULL, *est = NULL;
	int64_t *todo = NULL;			      /* graph ids, in load order */
	int *todo_cluster = NULL, *todo_depth = NULL; /* depth: 0 for graph_id */
	size_t n_todo = 1, cap = 16, k;
	struct gm_map seen = {0};
	struct tg_names names = {0};
	int rc;

	todo = malloc(cap * sizeof(*todo));
	todo_cluster = malloc(cap * sizeof(*todo_cluster));
	todo_depth = malloc(cap * sizeof(*todo_depth));
	if (!todo || !todo_cluster || !todo_depth) {
		rc = -ENOMEM;
		goto out;
	}
	todo[0] = graph_id;
	todo_cluster[0] = -1;
	todo_depth[0] = 0;
	if ((rc = gm_map_put(&seen, graph_id, 0)) < 0)
		goto out;
	rc = prep(t,
		  "SELECT n.node_id, n.type, n.name_id, n.child_graph_id, n.grid_x, n.grid_y, "
		  "n.grid_z, n.block_x, n.block_y, n.block_z, n.bytes "
		  "FROM graph_nodes n WHERE n.graph_id = ? AND " TOPO_NODE " ORDER BY n.node_id",
		  &nst, err, errlen);
	if (rc < 0)
		goto out;
	for (k = 0; k < n_todo; k++) {
		sqlite3_bind_int64(nst, 1, todo[k]);
		while ((rc = sqlite3_step(nst)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(nst, 0), child;
			int type = sqlite3_column_type(nst, 1) == SQLITE_NULL
				       ? -1
				       : sqlite3_column_int(nst, 1);
			int idx, c, j;
			struct gm_node *n;
			const char *name;

			if ((rc = tg_name(t, &names, g, nst, 2, &name, err, errlen)) < 0)
				goto out;
			idx = gm_add_node_named(g, id, type, name, todo_cluster[k]);
			if (idx == -EEXIST)
				continue; /* node ids are unique; a bad file may say otherwise */
			if (idx < 0) {
				rc = idx;
				goto out;
			}
			n = &g->nodes[idx];
			for (j = 0; j < 3; j++) {
				n->grid[j] = (unsigned)sqlite3_column_int64(nst, 4 + j);
				n->block[j] = (unsigned)sqlite3_column_int64(nst, 7 + j);
			}
			n->bytes = (uint64_t)sqlite3_column_int64(nst, 10);
			child = sqlite3_column_int64(nst, 3);
			if (!child || gm_map_get(&seen, child) >= 0 ||
			    todo_depth[k] >= TG_MAX_CHILD_DEPTH)
				continue;
			{
				char label[64];
				snprintf(label, sizeof(label), "child graph %" PRId64, child);
				c = gm_add_cluster(g, child, todo_cluster[k], idx, label);
			}
			if (c < 0 || gm_map_put(&seen, child, 0) < 0) {
				rc = -ENOMEM;
				goto out;
			}
			if (n_todo == cap) {
				int64_t *nt;
				int *nc, *nd;
				cap *= 2;
				nt = realloc(todo, cap * sizeof(*todo));
				if (nt)
					todo = nt;
				nc = realloc(todo_cluster, cap * sizeof(*todo_cluster));
				if (nc)
					todo_cluster = nc;
				nd = realloc(todo_depth, cap * sizeof(*todo_depth));
				if (nd)
					todo_depth = nd;
				if (!nt || !nc || !nd) {
					rc = -ENOMEM;
					goto out;
				}
			}
			todo[n_todo] = child;
			todo_depth[n_todo] = todo_depth[k] + 1;
			todo_cluster[n_todo++] = c;
		}
		if ((rc = step_err(t, rc, err, errlen)) < 0)
			goto out;
		sqlite3_reset(nst);
	}
	rc = prep(t, "SELECT from_node, to_node FROM graph_edges WHERE graph_id = ?", &est, err,
		  errlen);
	if (rc < 0)
		goto out;
	for (k = 0; k < n_todo; k++) {
		sqlite3_bind_int64(est, 1, todo[k]);
		while ((rc = sqlite3_step(est)) == SQLITE_ROW) {
			int a = gm_find(g, sqlite3_column_int64(est, 0));
			int b = gm_find(g, sqlite3_column_int64(est, 1));
			/* an edge to a node that was never recorded cannot be drawn */
			if (a < 0 || b < 0)
				continue;
			if (gm_add_edge(g, a, b, GM_EDGE_DEPENDENCY) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
		if ((rc = step_err(t, rc, err, errlen)) < 0)
			goto out;
		sqlite3_reset(est);
	}
	rc = 0;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	sqlite3_finalize(nst);
	sqlite3_finalize(est);
	free(todo);
	free(todo_cluster);
	free(todo_depth);
	gm_map_free(&seen);
	tg_names_free(&names);
	return rc;
}

static int load_origins(struct trace *t, struct gm_origins *o, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = prep(t,
		  "SELECT node_id, original_node_id FROM graph_nodes "
		  "WHERE original_node_id IS NOT NULL AND original_node_id != 0",
		  &st, err, errlen);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (gm_origins_add(o, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)) <
		    0) {
			sqlite3_finalize(st);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	rc = step_err(t, rc, err, errlen);
	sqlite3_finalize(st);
	return rc;
}

/* GPU operations that ran as graph nodes: all three op tables carry
 * graph_node_id. Negative spans (clock glitches) are dropped. */
/* third column: the node type the record proves (kernel, memcpy, memset) */
static const char graph_ops_sql[] =
    "SELECT graph_node_id, end - start, 0 FROM kernels "
    "  WHERE graph_node_id IS NOT NULL AND graph_node_id != 0 AND end >= start "
    "UNION ALL SELECT graph_node_id, end - start, 1 FROM memcpys "
    "  WHERE graph_node_id IS NOT NULL AND graph_node_id != 0 AND end >= start "
    "UNION ALL SELECT graph_node_id, end - start, 2 FROM memsets "
    "  WHERE graph_node_id IS NOT NULL AND graph_node_id != 0 AND end >= start";

static const char graph_ops_grouped_sql[] =
    "SELECT graph_node_id, COUNT(*), SUM(d) FROM ("
    "SELECT graph_node_id, end - start AS d FROM kernels "
    "  WHERE graph_node_id IS NOT NULL AND graph_node_id != 0 AND end >= start "
    "UNION ALL SELECT graph_node_id, end - start FROM memcpys "
    "  WHERE graph_node_id IS NOT NULL AND graph_node_id != 0 AND end >= start "
    "UNION ALL SELECT graph_node_id, end - start FROM memsets "
    "  WHERE graph_node_id IS NOT NULL AND graph_node_id != 0 AND end >= start"
    ") GROUP BY graph_node_id";

/* The times of the operations that ran as graph nodes must lie in
 * [0, TRACE_TIME_MAX], as every reader of the trace requires (trace.h):
 * end - start of a damaged row (start -2^63) overflowed to a duration of
 * 2^63-1 ns, and SUM() over such rows failed with "integer overflow".
 * 0, or -EIO with err naming the row (trace_time_error). */
static int check_graph_op_times(struct trace *t, char *err, size_t errlen)
{
	static const char *const tables[3] = {"kernels", "memcpys", "memsets"};
	int i;

	for (i = 0; i < 3; i++) {
		char sql[400];
		sqlite3_stmt *st = NULL;
		int rc;

		snprintf(sql, sizeof(sql),
			 "SELECT 1 FROM %s WHERE graph_node_id IS NOT NULL AND graph_node_id != 0 "
			 "AND (coalesce(CAST(start AS INTEGER), 0) NOT BETWEEN 0 AND %lld OR "
			 "coalesce(CAST(end AS INTEGER), 0) NOT BETWEEN 0 AND %lld) LIMIT 1",
			 tables[i], (long long)TRACE_TIME_MAX, (long long)TRACE_TIME_MAX);
		if ((rc = prep(t, sql, &st, err, errlen)) < 0)
			return rc;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			sqlite3_finalize(st);
			trace_time_error(t->db, tables[i], "start", "end", err, errlen);
			return -EIO;
		}
		rc = step_err(t, rc, err, errlen);
		sqlite3_finalize(st);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* resolve with a cache: executed node id -> model index + 1 (0 = not ours) */
static int resolve_cached(const struct gm_graph *g, const struct gm_origins *o,
			  struct gm_map *cache, int64_t node_id)
{
	int v = gm_map_get(cache, node_id);

	if (v >= 0)
		return v - 1;
	v = gm_resolve(g, o, node_id);
	gm_map_put(cache, node_id, v + 1); /* a failed put only costs a re-resolve */
	return v;
}

static void fill_counts(struct trace *t, int64_t graph_id, struct tg_info *info)
{
	info->graph_id = graph_id;
	info->origin = -1;
	{
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(
			t->db, "SELECT origin, original_graph_id FROM graphs WHERE graph_id=?", -1,
			&st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, graph_id);
			if (sqlite3_step(st) == SQLITE_ROW) {
				if (sqlite3_column_type(st, 0) != SQLITE_NULL)
					info->origin = sqlite3_column_int(st, 0);
				info->original = sqlite3_column_int64(st, 1);
			}
		}
		sqlite3_finalize(st);
		if (sqlite3_prepare_v2(t->db,
				       "SELECT graph_id, node_id FROM graph_nodes "
				       "WHERE child_graph_id = ? ORDER BY node_id LIMIT 1",
				       -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, graph_id);
			if (sqlite3_step(st) == SQLITE_ROW) {
				info->parent_graph = sqlite3_column_int64(st, 0);
				info->parent_node = sqlite3_column_int64(st, 1);
			}
		}
		sqlite3_finalize(st);
	}
	info->nodes = (size_t)query_i64(
	    t, "SELECT COUNT(*) FROM graph_nodes n WHERE n.graph_id = ? AND " TOPO_NODE, graph_id);
	/* edges between nodes that are drawn (as in load_tree) */
	info->edges = (size_t)query_i64(
	    t,
	    "SELECT COUNT(*) FROM graph_edges e WHERE e.graph_id = ?1 AND "
	    "EXISTS (SELECT 1 FROM graph_nodes n WHERE n.node_id = e.from_node AND " TOPO_NODE
	    ") AND EXISTS (SELECT 1 FROM graph_nodes n WHERE n.node_id = e.to_node AND " TOPO_NODE
	    ")",
	    graph_id);
	info->execs =
	    (size_t)query_i64(t, "SELECT COUNT(*) FROM graph_execs WHERE graph_id=?", graph_id);
	info->launches = (size_t)query_i64(t,
					   "SELECT COUNT(*) FROM graph_launches WHERE exec_id IN "
					   "(SELECT exec_id FROM graph_execs WHERE graph_id=?)",
					   graph_id);
	/* parameters changed in place (cudaGraphExec*NodeSetParams, ...); the
	 * table is absent from traces recorded before it existed: -1 */
	{
		int64_t u =
		    query_i64(t,
			      "SELECT COUNT(*) FROM graph_node_updates WHERE node_id IN "
			      "(SELECT node_id FROM graph_nodes WHERE graph_id=?1) OR exec_id IN "
			      "(SELECT exec_id FROM graph_execs WHERE graph_id=?1)",
			      graph_id);
		info->updates = u > 0 ? (size_t)u : 0;
	}
}

/* 1 when the trace holds graph graph_id, 0 when not, -EIO (err set) when
 * the tables cannot be read: a damaged page must not read as "no graph
 * with id N" */
static int graph_exists(struct trace *t, int64_t graph_id, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, found = 0;

	rc = prep(t,
		  "SELECT EXISTS(SELECT 1 FROM graphs WHERE graph_id=?1) OR "
		  "EXISTS(SELECT 1 FROM graph_nodes WHERE graph_id=?1 AND "
		  "(original_node_id IS NULL OR original_node_id = 0) AND graph_id NOT IN "
		  "(SELECT exec_id FROM graph_execs WHERE exec_id IS NOT NULL))",
		  &st, err, errlen);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, graph_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		found = sqlite3_column_int64(st, 0) == 1;
		rc = SQLITE_DONE;
	}
	rc = step_err(t, rc, err, errlen);
	sqlite3_finalize(st);
	return rc < 0 ? rc : found;
}

int tg_load(struct trace *t, int64_t graph_id, struct gm_graph *g, struct tg_info *info, char *err,
	    size_t errlen)
{
	struct gm_origins o = {0};
	struct gm_map cache = {0};
	sqlite3_stmt *st = NULL;
	size_t ops = 0;
	int rc;

	if (trace_check_places(t, err, errlen) < 0)
		return -EIO; /* the rule of every verb, as tg_list */
	rc = graph_exists(t, graph_id, err, errlen);
	if (rc < 0)
		return rc;
	if (!rc) {
		snprintf(err, errlen, "no graph with id %" PRId64, graph_id);
		return -ENOENT;
	}
	g->id = graph_id;
	if ((rc = check_graph_op_times(t, err, errlen)) < 0 ||
	    (rc = load_tree(t, graph_id, g, err, errlen)) < 0)
		goto out;
	if ((rc = load_origins(t, &o, err, errlen)) < 0)
		goto out;
	if ((rc = prep(t, graph_ops_sql, &st, err, errlen)) < 0)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int idx = resolve_cached(g, &o, &cache, sqlite3_column_int64(st, 0));
		int ran_as = sqlite3_column_int(st, 2);
		if (idx < 0)
			continue;
		/* CUDA 13.0's CUPTI reports nodeType 0 (kernel) for memcpy nodes
		 * in its node-created callback (H200 trace of the graph-conversion
		 * demo, 2026-12-02: both copies of the "copies" graph). The
		 * collector now asks the driver; for traces recorded before that,
		 * a nameless "kernel" node that ran as a memcpy or memset is one */
		if (ran_as != GS_NODE_KERNEL && g->nodes[idx].type == GS_NODE_KERNEL &&
		    !g->nodes[idx].name)
			g->nodes[idx].type = ran_as == 1 ? GS_NODE_MEMCPY : GS_NODE_MEMSET;
		if (gm_add_duration(g, idx, (uint64_t)sqlite3_column_int64(st, 1)) < 0) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto out;
		}
		ops++;
	}
	if ((rc = step_err(t, rc, err, errlen)) < 0)
		goto out;
	gm_compute_stats(g);
	if (info) {
		memset(info, 0, sizeof(*info));
		fill_counts(t, graph_id, info);
		info->ops = ops;
		info->gpu_ns = g->total_ns;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	gm_origins_free(&o);
	gm_map_free(&cache);
	return rc;
}

int tg_list(struct trace *t, struct tg_info **out, size_t *n, char *err, size_t errlen)
{
	struct gm_origins o = {0};
	sqlite3_stmt *st = NULL;
	struct tg_info *v = NULL;
	int64_t *op_node = NULL, *op_count = NULL, *op_sum = NULL;
	size_t nv = 0, cap = 0, nops = 0, capops = 0, i, k;
	int rc;

	*out = NULL;
	*n = 0;
	/* the rule of every verb on the ops' devices and streams (a stream
	 * past 2^32-1 was listed as if whole) */
	if (trace_check_places(t, err, errlen) < 0)
		return -EIO;
	rc = prep(t,
		  /* graph ids seen only in graph_nodes count when some node was
		   * built there, not cloned (a clone-only id is an executable
		   * graph's copy) */
		  "SELECT graph_id FROM graphs UNION SELECT graph_id FROM graph_nodes "
		  "WHERE original_node_id IS NULL OR original_node_id = 0 "
		  "EXCEPT SELECT exec_id FROM graph_execs ORDER BY 1",
		  &st, err, errlen);
	if (rc < 0)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nv == cap) {
			struct tg_info *nvp;
			cap = cap ? cap * 2 : 16;
			nvp = realloc(v, cap * sizeof(*v));
			if (!nvp) {
				rc = -ENOMEM;
				goto out;
			}
			v = nvp;
		}
		memset(&v[nv], 0, sizeof(v[nv]));
		v[nv++].graph_id = sqlite3_column_int64(st, 0);
	}
	if ((rc = step_err(t, rc, err, errlen)) < 0)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (!nv)
		goto done;

	/* measurements, summed per executed node once for all graphs */
	if ((rc = check_graph_op_times(t, err, errlen)) < 0 ||
	    (rc = prep(t, graph_ops_grouped_sql, &st, err, errlen)) < 0)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nops == capops) {
			int64_t *a, *b, *c;
			capops = capops ? capops * 2 : 256;
			a = realloc(op_node, capops * sizeof(*a));
			if (a)
				op_node = a;
			b = realloc(op_count, capops * sizeof(*b));
			if (b)
				op_count = b;
			c = realloc(op_sum, capops * sizeof(*c));
			if (c)
				op_sum = c;
			if (!a || !b || !c) {
				rc = -ENOMEM;
				goto out;
			}
		}
		op_node[nops] = sqlite3_column_int64(st, 0);
		op_count[nops] = sqlite3_column_int64(st, 1);
		op_sum[nops++] = sqlite3_column_int64(st, 2);
	}
	if ((rc = step_err(t, rc, err, errlen)) < 0)
		goto out;
	if ((rc = load_origins(t, &o, err, errlen)) < 0)
		goto out;

	for (i = 0; i < nv; i++) {
		struct gm_graph g;
		gm_init(&g);
		rc = load_tree(t, v[i].graph_id, &g, err, errlen);
		if (rc < 0) {
			gm_free(&g);
			goto out;
		}
		fill_counts(t, v[i].graph_id, &v[i]);
		for (k = 0; k < nops; k++)
			if (gm_resolve(&g, &o, op_node[k]) >= 0) {
				v[i].ops += (size_t)op_count[k];
				v[i].gpu_ns += (uint64_t)op_sum[k];
			}
		gm_free(&g);
	}
done:
	*out = v;
	*n = nv;
	v = NULL;
	rc = 0;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	sqlite3_finalize(st);
	gm_origins_free(&o);
	free(v);
	free(op_node);
	free(op_count);
	free(op_sum);
	return rc;
}

/* ---- stream-ordered work of an NVTX range -------------------------------- */

struct op {
	int64_t
	    id;	  /* synthetic node id: row id * 4 + table (0 kernel, 1 memcpy, 2 memset, 3 wait) */
	int type; /* enum gs_graph_node_type */
	int64_t device;	  /* CUDA device ordinal */
	int64_t stream;	  /* CUPTI stream id */
	int64_t tid;	  /* launching thread, -1 unknown */
	uint64_t key;	  /* ns: launch API start (host submission order), else GPU start */
	uint64_t start;	  /* ns, GPU start (0 for waits) */
	uint64_t end;	  /* ns, GPU end */
	int64_t event;	  /* waits: CUPTI event id */
	int64_t bytes;	  /* memcpy/memset bytes */
	int copy_kind;	  /* memcpy: enum gs_copy_kind */
	const char *name; /* kernel name, in the graph's names (tg_name), or NULL */
	int node;	  /* model node index, -1 when not drawn */
};

struct ops {
	struct op *v;
	size_t n, cap;
};

static int ops_push(struct ops *o, const struct op *x)
{
	if (o->n == o->cap) {
		size_t ncap = o->cap ? o->cap * 2 : 64;
		struct op *nv = realloc(o->v, ncap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		o->v = nv;
		o->cap = ncap;
	}
	o->v[o->n++] = *x;
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct op *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return cmp_key(a, b);
}

/* An op belongs to the range when its launch call (same correlation id)
 * started inside it on the range's thread; ops with no recorded launch call
 * fall back to their GPU start time. A GPU op never starts before its launch,
 * so start >= range start prunes early. ?1 range start. Column 5 is the
 * kernel's strings id (tg_name), column 8 the correlation id.
 *
 * The launch of a correlation id - the earliest start of its API calls and
 * the smallest thread among them - is read once per id into a hash map
 * (struct launches) and looked up per operation. A join of every operation
 * with every API call of its correlation id, grouped per operation, was
 * quadratic when many operations share one id with many calls (a damaged
 * trace with 6000 kernels and 6000 calls on one id: 7 s, 20000 of each:
 * minutes). Only integer correlation ids link (the collector writes
 * nothing else). */
#define RANGE_OPS(cols, table)                                                                     \
	"SELECT o.id, o.start, o.end, o.device, o.stream, " cols ", o.correlation_id "             \
	"FROM " table " o WHERE o.start >= ?1"

static const char *const range_ops_sql[3] = {
    RANGE_OPS("o.name_id, 0, 0", "kernels"),
    RANGE_OPS("NULL, o.bytes, o.copy_kind", "memcpys"),
    RANGE_OPS("NULL, o.bytes, 0", "memsets"),
};

static const int range_ops_type[3] = {GS_NODE_KERNEL, GS_NODE_MEMCPY, GS_NODE_MEMSET};
static const char *const range_ops_table[3] = {"kernels", "memcpys", "memsets"};

/* The launch calls of the correlation ids the range's operations and waits
 * can carry: correlation id -> (earliest start, smallest tid). */
struct launches {
	struct gm_map idx; /* correlation id -> index in ls/lt */
	int64_t *ls;	   /* ns, MIN(start) of the id's API calls */
	int64_t *lt;	   /* MIN(tid) of those calls, -1 when none has a thread */
	size_t n, cap;
};

static void launches_free(struct launches *l)
{
	gm_map_free(&l->idx);
	free(l->ls);
	free(l->lt);
	memset(l, 0, sizeof(*l));
}

/* Read the launches of every integer correlation id between the smallest
 * and the largest one that an operation starting at or after r0, or a
 * stream wait in [r0, r1], carries (ids grow with time: the window of the
 * range, not the whole trace, where the trace has api_calls' index). */
static int load_launches(struct trace *t, uint64_t r0, uint64_t r1, struct launches *l, char *err,
			 size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int rc;

	rc = prep(t,
		  "SELECT MIN(c), MAX(c) FROM ("
		  "SELECT correlation_id AS c FROM kernels WHERE start >= ?1 "
		  "UNION ALL SELECT correlation_id FROM memcpys WHERE start >= ?1 "
		  "UNION ALL SELECT correlation_id FROM memsets WHERE start >= ?1 "
		  "UNION ALL SELECT correlation_id FROM syncs WHERE kind = 2 AND start BETWEEN ?1 "
		  "AND ?2) WHERE typeof(c) = 'integer'",
		  &st, err, errlen);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, (int64_t)r0);
	sqlite3_bind_int64(st, 2, (int64_t)r1);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL) {
		rc = step_err(t, rc == SQLITE_ROW ? SQLITE_DONE : rc, err, errlen);
		sqlite3_finalize(st);
		return rc; /* no operation links to a call */
	}
	lo = sqlite3_column_int64(st, 0);
	hi = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	rc = prep(t,
		  "SELECT correlation_id, MIN(start), MIN(tid) FROM api_calls "
		  "WHERE correlation_id BETWEEN ?1 AND ?2 AND typeof(correlation_id) = 'integer' "
		  "GROUP BY correlation_id",
		  &st, err, errlen);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (l->n == l->cap) {
			size_t ncap = l->cap ? 2 * l->cap : 256;
			int64_t *a, *b;
			if (ncap > INT32_MAX)
				goto oom;
			if (!(a = realloc(l->ls, ncap * sizeof(*a))))
				goto oom;
			l->ls = a;
			if (!(b = realloc(l->lt, ncap * sizeof(*b))))
				goto oom;
			l->lt = b;
			l->cap = ncap;
		}
		l->ls[l->n] = sqlite3_column_int64(st, 1);
		l->lt[l->n] =
		    sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
		if (gm_map_put(&l->idx, sqlite3_column_int64(st, 0), (int)l->n) < 0)
			goto oom;
		l->n++;
	}
	rc = step_err(t, rc, err, errlen);
	sqlite3_finalize(st);
	return rc;
oom:
	sqlite3_finalize(st);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* The launch of the correlation id in column col of row: its index in l,
 * or -1 when no API call has that id (or the column is not an integer). */
static int launch_of(const struct launches *l, sqlite3_stmt *row, int col)
{
	if (sqlite3_column_type(row, col) != SQLITE_INTEGER)
		return -1;
	return gm_map_get(&l->idx, sqlite3_column_int64(row, col));
}

static int load_range_ops(struct trace *t, uint64_t r0, uint64_t r1, int64_t tid,
			  const struct launches *l, struct ops *ops, struct gm_graph *g, char *err,
			  size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct tg_names names = {0};
	int table, rc = 0;

	for (table = 0; table < 3; table++) {
		if ((rc = prep(t, range_ops_sql[table], &st, err, errlen)) < 0)
			break;
		sqlite3_bind_int64(st, 1, (int64_t)r0);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct op x;
			int k = launch_of(l, st, 8);

			memset(&x, 0, sizeof(x));
			/* times, devices and streams in their ranges (trace.h), as
			 * every other reader checks them: a device of 2^63-1 was drawn
			 * as a stream of its own, an end of 2^63-1 made a critical
			 * path of 9223372036854774 us */
			if (!TRACE_TIME_OK(sqlite3_column_int64(st, 1)) ||
			    !TRACE_TIME_OK(sqlite3_column_int64(st, 2))) {
				trace_time_error(t->db, range_ops_table[table], "start", "end", err,
						 errlen);
				rc = -EIO;
				break;
			}
			if (!TRACE_DEVICE_OK(sqlite3_column_int64(st, 3)) ||
			    !TRACE_STREAM_OK(sqlite3_column_int64(st, 4))) {
				int dev_ok = TRACE_DEVICE_OK(sqlite3_column_int64(st, 3));
				trace_range_error(
				    t->db, range_ops_table[table], dev_ok ? "stream" : "device", 0,
				    dev_ok ? (int64_t)UINT32_MAX : 32767, 0, err, errlen);
				rc = -EIO;
				break;
			}
			x.start = (uint64_t)sqlite3_column_int64(st, 1);
			if (k < 0 ? x.start > r1
				  : (l->ls[k] < (int64_t)r0 || l->ls[k] > (int64_t)r1 ||
				     (tid >= 0 && l->lt[k] >= 0 && l->lt[k] != tid)))
				continue; /* not launched in the range, on its thread */
			if ((rc = tg_name(t, &names, g, st, 5, &x.name, err, errlen)) < 0)
				break;
			/* (row ids past +-2^61 wrap: the node ids stay distinct) */
			x.id =
			    (int64_t)((uint64_t)sqlite3_column_int64(st, 0) * 4 + (uint64_t)table);
			x.type = range_ops_type[table];
			x.end = (uint64_t)sqlite3_column_int64(st, 2);
			x.device = sqlite3_column_int64(st, 3);
			x.stream = sqlite3_column_int64(st, 4);
			x.bytes = sqlite3_column_int64(st, 6);
			x.copy_kind = sqlite3_column_int(st, 7);
			x.key = k < 0 ? x.start : (uint64_t)l->ls[k];
			x.tid = k < 0 ? -1 : l->lt[k];
			x.event = 0;
			x.node = -1;
			if (ops_push(ops, &x) < 0) {
				snprintf(err, errlen, "out of memory");
				rc = -ENOMEM;
				break;
			}
		}
		if (rc >= 0)
			rc = step_err(t, rc, err, errlen);
		sqlite3_finalize(st);
		st = NULL;
		if (rc < 0)
			break;
	}
	tg_names_free(&names);
	return rc < 0 ? rc : 0;
}

/* cudaStreamWaitEvent calls inside the range (syncs.kind 2). CUPTI's
 * synchronization record has no thread; take it from the API call. */
static int load_range_waits(struct trace *t, uint64_t r0, uint64_t r1, int64_t tid,
			    const struct launches *l, struct ops *ops, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = prep(t,
		  "SELECT id, start, device, stream, event, tid, correlation_id FROM syncs "
		  "WHERE kind = 2 AND start BETWEEN ?1 AND ?2",
		  &st, err, errlen);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, (int64_t)r0);
	sqlite3_bind_int64(st, 2, (int64_t)r1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct op x;
		int k;

		memset(&x, 0, sizeof(x));
		/* the device as trace_load reads syncs (-1 unknown, NULL as -1),
		 * the stream as every stream */
		if (sqlite3_column_type(st, 2) != SQLITE_NULL &&
		    (sqlite3_column_int64(st, 2) < -1 || sqlite3_column_int64(st, 2) > 32767)) {
			sqlite3_finalize(st);
			trace_range_error(t->db, "syncs", "device", -1, 32767, -1, err, errlen);
			return -EIO;
		}
		if (!TRACE_STREAM_OK(sqlite3_column_int64(st, 3))) {
			sqlite3_finalize(st);
			trace_range_error(t->db, "syncs", "stream", 0, (int64_t)UINT32_MAX, 0, err,
					  errlen);
			return -EIO;
		}
		if (sqlite3_column_type(st, 5) != SQLITE_NULL)
			x.tid = sqlite3_column_int64(st, 5);
		else
			x.tid = (k = launch_of(l, st, 6)) < 0 ? -1 : l->lt[k];
		if (tid >= 0 && x.tid >= 0 && x.tid != tid)
			continue;
		x.id = (int64_t)((uint64_t)sqlite3_column_int64(st, 0) * 4 + 3);
		x.type = GS_NODE_WAIT_EVENT;
		x.key = (uint64_t)sqlite3_column_int64(st, 1);
		x.device = sqlite3_column_int64(st, 2);
		x.stream = sqlite3_column_int64(st, 3);
		x.event = sqlite3_column_int64(st, 4);
		x.node = -1;
		if (ops_push(ops, &x) < 0) {
			sqlite3_finalize(st);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	rc = step_err(t, rc, err, errlen);
	sqlite3_finalize(st);
	return rc;
}

/* Schema v1 records where an event was waited for (syncs: stream, event) but
 * not where it was recorded: cudaEventRecord's stream is in no table. The
 * best available guess: the last cudaEventRecord/cuEventRecord call on the
 * waiting thread before the wait recorded the event, into the stream of the
 * operation that thread launched just before that call (on another stream).
 *
 * The record calls of the range are read once, sorted, and searched per
 * wait (record_before). One query per wait, each scanning the API calls
 * before it, made a range with 1000 waits on 1000 streams of a trace with
 * 53000 API calls take 7 s (19 s without the trace's indexes). */
struct records {
	int64_t *tid;	  /* host thread of each call with one, sorted by (tid, start) */
	uint64_t *tstart; /* ns, start of those calls, same order */
	size_t nt;
	uint64_t *start; /* ns, start of every call (thread known or not), sorted */
	size_t n;
};

static void records_free(struct records *r)
{
	free(r->tid);
	free(r->tstart);
	free(r->start);
	memset(r, 0, sizeof(*r));
}

static int cmp_u64_asc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Event-record API calls that start in [r0, r1]: a record call before the
 * range starts links nothing (see tg_load_streams), and every wait starts
 * in the range. Returns 0 or a negative errno (err filled). */
static int load_records(struct trace *t, uint64_t r0, uint64_t r1, struct records *r, char *err,
			size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0, capt = 0, i;
	int rc;

	rc = prep(t,
		  "SELECT a.tid, a.start FROM api_calls a JOIN strings s ON s.id = a.name_id "
		  "WHERE a.start BETWEEN ?1 AND ?2 AND "
		  "(s.value LIKE 'cudaEventRecord%' OR s.value LIKE 'cuEventRecord%') "
		  "ORDER BY a.tid, a.start",
		  &st, err, errlen);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, (int64_t)r0);
	sqlite3_bind_int64(st, 2, (int64_t)r1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t start = (uint64_t)sqlite3_column_int64(st, 1);

		if (r->n == cap) {
			uint64_t *v;
			cap = cap ? 2 * cap : 64;
			if (!(v = realloc(r->start, cap * sizeof(*v))))
				goto oom;
			r->start = v;
		}
		r->start[r->n++] = start;
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue; /* found only by a wait whose thread is unknown */
		if (r->nt == capt) {
			int64_t *tv;
			uint64_t *sv;
			capt = capt ? 2 * capt : 64;
			if (!(tv = realloc(r->tid, capt * sizeof(*tv))))
				goto oom;
			r->tid = tv;
			if (!(sv = realloc(r->tstart, capt * sizeof(*sv))))
				goto oom;
			r->tstart = sv;
		}
		r->tid[r->nt] = sqlite3_column_int64(st, 0);
		r->tstart[r->nt++] = start;
	}
	rc = step_err(t, rc, err, errlen);
	sqlite3_finalize(st);
	/* (ORDER BY a.tid sorts NULL first and integers by value: the rows with
	 * a thread are in (tid, start) order already) */
	if (rc == 0 && r->n > 1)
		qsort(r->start, r->n, sizeof(*r->start), cmp_u64_asc);
	for (i = 1; rc == 0 && i < r->nt; i++)
		if (r->tid[i] < r->tid[i - 1] ||
		    (r->tid[i] == r->tid[i - 1] && r->tstart[i] < r->tstart[i - 1])) {
			/* a tid stored as text or real sorts apart from integers */
			snprintf(err, errlen, "damaged trace: api_calls.tid is not an integer");
			rc = -EIO;
		}
	return rc;
oom:
	sqlite3_finalize(st);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* Start of the last record call at or before `before` on thread tid (any
 * thread when tid < 0), 0 when none. */
static uint64_t record_before(const struct records *r, int64_t tid, uint64_t before)
{
	size_t lo, hi;

	if (tid < 0) {
		/* the first start > before, in [0, n] */
		for (lo = 0, hi = r->n; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;
			if (r->start[mid] <= before)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo ? r->start[lo - 1] : 0;
	}
	/* the first (tid, start) > (tid, before) */
	for (lo = 0, hi = r->nt; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->tid[mid] < tid || (r->tid[mid] == tid && r->tstart[mid] <= before))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && r->tid[lo - 1] == tid ? r->tstart[lo - 1] : 0;
}

static void ops_free(struct ops *o)
{
	free(o->v);
	memset(o, 0, sizeof(*o));
}

static void op_detail(const struct op *x, char *buf, size_t len)
{
	switch (x->type) {
	case GS_NODE_WAIT_EVENT:
		snprintf(buf, len,
			 "cudaStreamWaitEvent: stream %" PRId64 " waits for event %" PRId64,
			 x->stream, x->event);
		break;
	case GS_NODE_MEMCPY:
		snprintf(buf, len, "memcpy %s, %" PRId64 " bytes, stream %" PRId64,
			 gs_copy_kind_name(x->copy_kind), x->bytes, x->stream);
		break;
	case GS_NODE_MEMSET:
		snprintf(buf, len, "memset, %" PRId64 " bytes, stream %" PRId64, x->bytes,
			 x->stream);
		break;
	default: snprintf(buf, len, "stream %" PRId64 ", device %" PRId64, x->stream, x->device);
	}
}

int tg_load_streams(struct trace *t, const char *name, size_t nth, size_t max_ops,
		    struct gm_graph *g, struct tg_range *r, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct records rec = {0};
	struct launches launch = {0};
	struct ops ops = {0};
	int64_t tid = -1, prev_dev = 0, prev_stream = 0;
	size_t i, drawn_ops = 0;
	int rc, cluster = -1, have_prev = 0, multi_device = 0;

	memset(r, 0, sizeof(*r));
	if (errlen)
		err[0] = '\0';
	rc = prep(t,
		  "SELECT n.id, n.start, n.end, n.tid FROM nvtx n "
		  "JOIN strings s ON s.id = n.text_id WHERE n.kind = 0 AND s.value = ? "
		  "ORDER BY n.start, n.id",
		  &st, err, errlen);
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->occurrences++ != nth)
			continue;
		r->nvtx_id = sqlite3_column_int64(st, 0);
		r->start = (uint64_t)sqlite3_column_int64(st, 1);
		r->end = (uint64_t)sqlite3_column_int64(st, 2);
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			tid = sqlite3_column_int64(st, 3);
	}
	rc = step_err(t, rc, err, errlen);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	if (r->occurrences <= nth) {
		snprintf(err, errlen, "no NVTX range named '%s'", name);
		return -ENOENT;
	}
	st = NULL;
	g->id = r->nvtx_id;

	if ((rc = load_launches(t, r->start, r->end, &launch, err, errlen)) < 0 ||
	    (rc = load_range_ops(t, r->start, r->end, tid, &launch, &ops, g, err, errlen)) < 0)
		goto out;
	r->ops = ops.n;
	if ((rc = load_range_waits(t, r->start, r->end, tid, &launch, &ops, err, errlen)) < 0)
		goto out;
	r->waits = ops.n - r->ops;

	/* keep the first max_ops operations in launch order and the waits
	 * among them; waits after the last one kept go too (a range with 22013
	 * operations and 2200 waits on the H200 kept every wait and took dot
	 * hours to lay out). (qsort of the NULL array of a range without
	 * operations is undefined even when empty: UBSan) */
	if (ops.n > 1)
		qsort(ops.v, ops.n, sizeof(*ops.v), cmp_key);
	r->waits = 0;
	for (i = 0; i < ops.n; i++) {
		if (drawn_ops >= max_ops)
			ops.v[i].node = -2; /* dropped */
		else if (ops.v[i].type != GS_NODE_WAIT_EVENT)
			drawn_ops++;
		else
			r->waits++;
	}
	r->ops_drawn = drawn_ops;

	/* clusters per (device, stream), nodes in stream order */
	if (ops.n > 1)
		qsort(ops.v, ops.n, sizeof(*ops.v), cmp_stream);
	for (i = 1; i < ops.n; i++)
		if (ops.v[i].device != ops.v[0].device)
			multi_device = 1;
	for (i = 0; i < ops.n; i++) {
		struct op *x = &ops.v[i];
		char buf[160];
		int idx;

		if (x->node == -2)
			continue;
		if (!have_prev || x->device != prev_dev || x->stream != prev_stream) {
			if (multi_device)
				snprintf(buf, sizeof(buf),
					 "stream %" PRId64 " (device %" PRId64 ")", x->stream,
					 x->device);
			else
				snprintf(buf, sizeof(buf), "stream %" PRId64, x->stream);
			cluster = gm_add_cluster(g, x->stream, -1, -1, buf);
			if (cluster < 0) {
				rc = -ENOMEM;
				goto out;
			}
			r->streams++;
		}
		idx = gm_add_node_named(g, x->id, x->type, x->name, cluster);
		if (idx < 0) {
			rc = idx == -EEXIST ? -EIO : -ENOMEM;
			goto out;
		}
		x->node = idx;
		g->nodes[idx].bytes = x->bytes > 0 ? (uint64_t)x->bytes : 0;
		op_detail(x, buf, sizeof(buf));
		if (gm_set_detail(g, idx, buf) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		if (x->type != GS_NODE_WAIT_EVENT && x->end >= x->start &&
		    gm_add_duration(g, idx, x->end - x->start) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		/* stream order: the previous drawn item of the same stream */
		if (have_prev && x->device == prev_dev && x->stream == prev_stream) {
			size_t j = i;
			while (j-- > 0 && ops.v[j].node < 0)
				;
			if (gm_add_edge(g, ops.v[j].node, idx, GM_EDGE_STREAM) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
		have_prev = 1;
		prev_dev = x->device;
		prev_stream = x->stream;
	}

	/* inferred event edges */
	if (r->waits && (rc = load_records(t, r->start, r->end, &rec, err, errlen)) < 0)
		goto out;
	for (i = 0; i < ops.n; i++) {
		struct op *w = &ops.v[i];
		uint64_t trec;
		size_t j;
		int src = -1;
		uint64_t best = 0;

		if (w->type != GS_NODE_WAIT_EVENT || w->node < 0)
			continue;
		trec = record_before(&rec, w->tid, w->key);
		if (!trec || trec < r->start)
			continue;
		for (j = 0; j < ops.n; j++) {
			const struct op *x = &ops.v[j];
			if (x->node < 0 || x->type == GS_NODE_WAIT_EVENT || x->key > trec ||
			    (x->device == w->device && x->stream == w->stream) ||
			    (w->tid >= 0 && x->tid >= 0 && x->tid != w->tid))
				continue;
			if (src < 0 || x->key >= best) {
				src = x->node;
				best = x->key;
			}
		}
		if (src < 0)
			continue;
		if (gm_add_edge(g, src, w->node, GM_EDGE_EVENT) < 0) {
			rc = -ENOMEM;
			goto out;
		}
		r->waits_linked++;
	}
	gm_compute_stats(g);
	rc = 0;
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (rc == -EIO && !err[0])
		snprintf(err, errlen, "damaged trace: duplicate operation ids");
	sqlite3_finalize(st);
	records_free(&rec);
	launches_free(&launch);
	ops_free(&ops);
	return rc;
}
