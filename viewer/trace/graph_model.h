/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * graph_model.h - an in-memory model of one CUDA graph (or of the
 * stream-ordered work of an NVTX range) for `gapscope graph`.
 *
 * The model holds nodes, dependency edges, clusters (child graphs, or streams
 * in the --streams view) and the measured durations of every execution of
 * each node. On it the module computes per-node statistics (mean, p90, share
 * of the graph's time), the critical path (longest path by measured mean
 * duration, by node count when nothing was measured) and the collapse of long
 * linear chains of same-kind nodes. It is pure C: no SQL (trace_graph.c fills
 * it), no Graphviz (render_dot.c draws it), no I/O, so tests build models by
 * hand.
 */
#ifndef GAPSCOPE_GRAPH_MODEL_H
#define GAPSCOPE_GRAPH_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "gapscope/trace_format.h"

/* Map int64 key -> int value (open addressing); used for node ids. */
struct gm_map {
	int64_t *keys; /* node ids */
	int *vals;     /* payload, e.g. a node index */
	size_t cap;    /* slots, a power of two (0 when empty) */
	size_t len;    /* used slots */
};

int gm_map_put(struct gm_map *m, int64_t key, int val); /* 0 or -ENOMEM */
int gm_map_get(const struct gm_map *m, int64_t key);	/* value, or -1 when absent */
void gm_map_free(struct gm_map *m);

enum gm_edge_kind {
	GM_EDGE_DEPENDENCY = 0, /* graph dependency edge (graph_edges) */
	GM_EDGE_STREAM = 1,	/* --streams: next op in the same stream */
	GM_EDGE_EVENT = 2,	/* --streams: event record -> stream wait (inferred) */
};

struct gm_node {
	int64_t id;	   /* graph_nodes.node_id; in --streams views the op's row id */
	int type;	   /* enum gs_graph_node_type */
	const char *name;  /* full kernel name as recorded (often mangled), or NULL; in
			      gm_graph.names (nodes of one name may share it) */
	char *detail;	   /* extra tooltip text (e.g. "stream 7"), or NULL; owned */
	int cluster;	   /* index in gm_graph.clusters, -1 = top level */
	int child_cluster; /* child-graph node: the cluster drawing its child graph, else -1 */
	uint64_t bytes;	   /* memcpy/memset size in bytes, 0 when unknown */
	unsigned grid[3];  /* blocks per grid (kernels), 0 when unknown */
	unsigned block[3]; /* threads per block (kernels), 0 when unknown */

	uint64_t *dur; /* ns, one entry per measured execution (all launches) */
	size_t n_dur;  /* entries in dur */
	size_t cap_dur;

	/* gm_compute_stats() */
	double mean_ns;	   /* ns, mean of dur (0 when n_dur == 0) */
	uint64_t p90_ns;   /* ns, nearest-rank 90th percentile of dur */
	uint64_t total_ns; /* ns, sum of dur */
	double share;	   /* total_ns / graph total_ns, 0..1 */

	/* gm_critical_path() */
	int critical; /* 1 when on the critical path */

	/* gm_collapse(): chains of same-kind nodes are drawn as one node */
	int rep;	    /* index of the node drawn for this one (itself unless collapsed) */
	int chain_len;	    /* for a drawn node: how many nodes it stands for (1 = itself) */
	double chain_mean;  /* ns, for a drawn node: sum of mean_ns over the nodes it stands for */
	double chain_share; /* sum of share over the nodes it stands for, 0..1 */
};

struct gm_edge {
	int from, to; /* node indices */
	int kind;     /* enum gm_edge_kind */
	int critical; /* 1 when on the critical path */
	int hidden;   /* 1 when inside a collapsed chain (not drawn) */
};

struct gm_cluster {
	int64_t graph_id; /* child graph id; stream id in --streams views */
	int parent;	  /* enclosing cluster index, -1 = top level */
	int node;	  /* index of the child-graph node it belongs to, -1 for streams */
	char *label;	  /* owned */
};

struct gm_graph {
	int64_t id; /* graph id (graphs.graph_id), or the NVTX range's row id */
	struct gm_node *nodes;
	size_t n_nodes, cap_nodes;
	struct gm_edge *edges;
	size_t n_edges, cap_edges;
	struct gm_cluster *clusters;
	size_t n_clusters, cap_clusters;
	struct gm_map by_id; /* node id -> node index */
	char **names;	     /* node names (gm_add_name), owned */
	size_t n_names, cap_names;

	/* gm_compute_stats() */
	uint64_t total_ns;    /* ns, sum of all nodes' total_ns */
	int has_measurements; /* 1 when any node has a duration */
	/* gm_critical_path() */
	double critical_weight; /* ns when measured, else node count */
	size_t critical_nodes;	/* nodes on the path (child-graph nodes not counted) */
};

void gm_init(struct gm_graph *g);
void gm_free(struct gm_graph *g);

/* Add a node; name is copied (may be NULL). Returns its index, -EEXIST
 * when the id is already in the model, or -ENOMEM. */
int gm_add_node(struct gm_graph *g, int64_t id, int type, const char *name, int cluster);
/* A copy of len bytes of name (plus a NUL) kept by the graph until
 * gm_free, or NULL when out of memory: for gm_add_node_named, so that many
 * nodes of one name hold one copy - a range of 1700 kernels sharing a 2 MB
 * name made two copies per kernel (5.5 GB, 25 s for graph --streams). */
const char *gm_add_name(struct gm_graph *g, const char *name, size_t len);
/* gm_add_node with a name from gm_add_name(g, ...) (or NULL), not copied:
 * nodes with the same pointer have the same name (gm_collapse compares
 * pointers first, render_dot draws each name once). */
int gm_add_node_named(struct gm_graph *g, int64_t id, int type, const char *name, int cluster);
int gm_set_detail(struct gm_graph *g, int node, const char *detail);
/* Node index for a node id, or -1. */
int gm_find(const struct gm_graph *g, int64_t id);
/* Add an edge between node indices. Returns its index or a negative errno. */
int gm_add_edge(struct gm_graph *g, int from, int to, int kind);
/* Add a cluster (label copied). Returns its index or -ENOMEM. When `node`
 * is a node index, that node's child_cluster is set to the new cluster. */
int gm_add_cluster(struct gm_graph *g, int64_t graph_id, int parent, int node, const char *label);
/* Record one measured execution of a node (ns). 0 or -ENOMEM. */
int gm_add_duration(struct gm_graph *g, int node, uint64_t ns);

/* Fill mean/p90/total/share of every node and the graph's total. */
void gm_compute_stats(struct gm_graph *g);

/* Longest path through the DAG, weighted by mean_ns (call gm_compute_stats
 * first), or by node count when no node was measured. A child-graph node
 * stands for its child graph: the path enters it at the child's roots and
 * leaves at its sinks. Marks nodes and edges `critical`. Returns 0, or
 * -EINVAL when the edges form a cycle (nothing marked). */
int gm_critical_path(struct gm_graph *g);

/* Collapse maximal linear chains (each link the only out-edge of its source
 * and the only in-edge of its target, same cluster) of same-kind nodes (same
 * type and same name) longer than `threshold` nodes into their first node.
 * threshold 0 collapses nothing. Sets rep/chain_len/chain_* and edge.hidden.
 * Returns the number of chains collapsed. */
int gm_collapse(struct gm_graph *g, int threshold);

/* Nodes the picture shows as nodes: those standing for themselves or for a
 * collapsed chain, except child-graph nodes drawn as their child graph's
 * cluster (a child graph with at least one node). */
size_t gm_count_drawn(const struct gm_graph *g);

/* Where an executed node came from: kernels carry the id of the node of the
 * executable graph; graph_nodes.original_node_id leads back (through clones)
 * to the node of the graph that was built. */
struct gm_origins {
	struct gm_map idx; /* node id -> index in orig */
	int64_t *orig;	   /* original_node_id, 0 when none */
	size_t n, cap;
};

int gm_origins_add(struct gm_origins *o, int64_t node_id, int64_t original_node_id);
void gm_origins_free(struct gm_origins *o);
/* Index of the model node that executed node `node_id` stands for: the node
 * itself if it is in the model, else the first node in the model found by
 * following original_node_id (at most 64 steps, so a cycle in bad data
 * ends). -1 when none. */
int gm_resolve(const struct gm_graph *g, const struct gm_origins *o, int64_t node_id);

#endif
