/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_graph.h - loading CUDA graph topology and measurements from a trace
 * database into the graph model (graph_model.h), for `gapscope graph`.
 *
 * This is the only code that runs SQL for graphs. It reads the schema-v1
 * tables graphs, graph_nodes, graph_edges, graph_execs, graph_launches and
 * the kernels/memcpys/memsets rows that carry a graph node id; for the
 * --streams view also nvtx, api_calls and syncs. It draws nothing and keeps
 * no state between calls.
 */
#ifndef GAPSCOPE_TRACE_GRAPH_H
#define GAPSCOPE_TRACE_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "graph_model.h"
#include "trace.h"

/* One row of `gapscope graph run.db`. */
struct tg_info {
	int64_t graph_id;     /* graphs.graph_id */
	int origin;	      /* graphs.origin: 0 created, 1 cloned, 2 stream capture, -1 unknown */
	int64_t original;     /* graphs.original_graph_id (source of a clone), 0 if none */
	int64_t parent_graph; /* graph holding a child-graph node for this graph, 0 if none */
	int64_t parent_node;  /* that child-graph node's id, 0 if none */
	size_t nodes;	      /* graph_nodes rows of this graph (child graphs not included) */
	size_t edges;	      /* graph_edges rows of this graph */
	size_t execs;	      /* graph_execs instantiated from it */
	size_t launches;      /* graph_launches of those execs */
	size_t updates;	      /* graph_node_updates on its nodes or execs (0 in older traces) */
	size_t ops;	      /* GPU operations measured on its nodes (and child graphs') */
	uint64_t gpu_ns;      /* ns, sum of those operations' durations */
};

/* All graphs of the trace (graphs table, plus graph ids that only appear in
 * graph_nodes; executable graphs excluded), by id. *out is malloc'ed. Returns
 * 0 or a negative value with a message in err. */
int tg_list(struct trace *t, struct tg_info **out, size_t *n, char *err, size_t errlen);

/* Load graph `graph_id` (with its child graphs as clusters) and the measured
 * durations of its nodes over all launches into g (initialised by the
 * caller). info may be NULL. Returns 0, -ENOENT when there is no such graph,
 * or another negative value with a message in err. */
int tg_load(struct trace *t, int64_t graph_id, struct gm_graph *g, struct tg_info *info, char *err,
	    size_t errlen);

/* What the --streams view found. */
struct tg_range {
	int64_t nvtx_id;     /* nvtx.id of the range drawn */
	uint64_t start, end; /* ns, the range */
	size_t occurrences;  /* ranges with that name */
	size_t ops;	     /* kernels/memcpys/memsets inside it */
	size_t ops_drawn;    /* of those, in the model (max_ops) */
	size_t waits;	     /* stream-wait-event syncs drawn (inside it, before the
				last operation drawn) */
	size_t waits_linked; /* waits for which an event-record source was inferred */
	size_t streams;	     /* distinct (device, stream) pairs */
};

/* The stream-ordered work launched inside the `nth` (0-based) NVTX range
 * named `name`, as a DAG: one node per kernel/memcpy/memset, one per
 * cudaStreamWaitEvent, a cluster per stream, stream-order edges and inferred
 * event edges (see docs/graphs.md). At most max_ops operations (the first in
 * launch order) and the waits launched among them. Returns 0, -ENOENT when there is no such range,
 * or another negative value with a message in err. */
int tg_load_streams(struct trace *t, const char *name, size_t nth, size_t max_ops,
		    struct gm_graph *g, struct tg_range *r, char *err, size_t errlen);

#endif
