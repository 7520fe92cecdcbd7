/*
 * writer_rows.c - the collector's row functions: one gs_writer_* per kind of
 * record (kernels, API calls, copies, syncs, NVTX, graphs, devices, call
 * sites, implicit-sync API names, meta), each binding its statement's
 * parameters and stepping it, or logging the row while pipelined (writer.c,
 * "pipelined writing"). The connection, statements, batches, chunks and
 * strings they write through are writer.c's; derived rows and indexes at
 * the end are writer_finalize.c's. Calls only down into writer.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer_int.h"

/* Where a row function binds: the statement itself, or while pipelined
 * the staging cache of the chunk being filled. */
static inline struct bcache *params(struct gs_writer *w, int which)
{
	return w->chunk ? &w->stage[which] : &w->bc[which];
}

/* A row was filled in `b`: keep its `same` mask up to date. Row by row,
 * on the thread that fills the batch (the decode thread while pipelined),
 * rather than a column-wise pass over the batch on the SQLite thread at
 * flush (that pass was ~5% of the SQLite thread's time in perf, from cache
 * misses). */
static inline void row_filled(struct row_batch *b)
{
	const int64_t *row = b->v + (size_t)(b->n - 1) * (size_t)b->ncol;
	int c;

	if (b->n == 1) {
		b->same = (uint32_t)((1ull << b->ncol) - 1);
		return;
	}
	for (c = 0; c < b->ncol; c++)
		if (row[c] != b->v[c])
			b->same &= ~(1u << c);
}

/* The next row slot of `b` (flushing a full batch first), or NULL; *in
 * says which batch holds it. While pipelined, the slot is in the chunk's
 * batch of the same table instead (the pipeline hands a chunk on once it
 * holds CHUNK_ROWS rows, so it grows only if a caller goes on without
 * asking gs_chunk_full). */
static inline int64_t *batch_row(struct gs_writer *w, struct row_batch *b, int which,
				 const char *what, struct row_batch **in)
{
	if (w->chunk) {
		b = which == ST_KERNEL ? &w->chunk->kernels : &w->chunk->apis;
		*in = b;
		if (b->n == b->cap) {
			size_t cap = (size_t)b->cap;
			if (grow((void **)&b->v, &cap, cap + 1, (size_t)b->ncol * sizeof(*b->v),
				 CHUNK_ROWS) != 0)
				return NULL;
			b->cap = (int)cap;
		}
		return b->v + (size_t)b->n++ * (size_t)b->ncol;
	}
	*in = b;
	if (b->n == b->cap && batch_flush(w, b, which, what) != 0)
		return NULL;
	return b->v + (size_t)b->n++ * (size_t)b->ncol;
}

/* Parameters 1 to 5 of the GPU op tables (memcpy, memset, graph_runs):
 * start, end (ns), device, context, stream. */
static inline void bind_place(struct bcache *st, uint64_t start, uint64_t end, int64_t device,
			      int64_t context, int64_t stream)
{
	bind_i64(st, 1, (int64_t)start);
	bind_i64(st, 2, (int64_t)end);
	bind_i64(st, 3, device);
	bind_i64(st, 4, context);
	bind_i64(st, 5, stream);
}

/* ---------------------------------------------------------------- meta */

int gs_writer_meta(struct gs_writer *w, const char *key, const char *value)
{
	struct bcache *st = params(w, ST_META);

	if (w->failed)
		return -1;
	bind_text(st, 1, key);
	bind_text(st, 2, value ? value : "");
	return step(w, ST_META, "writing meta");
}

int gs_writer_meta_int(struct gs_writer *w, const char *key, int64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, value);
	return gs_writer_meta(w, key, buf);
}

/* ---------------------------------------------------------------- rows */

static void note_thread(struct gs_writer *w, int64_t tid, int64_t pid)
{
	size_t j;
	int64_t key = tid + 1;

	if (tid < 0)
		return;
	for (j = (uint64_t)tid * 0x9e3779b97f4a7c15ull >> 40 & (w->tid_cap - 1); w->tids[j];
	     j = (j + 1) & (w->tid_cap - 1))
		if (w->tids[j] == key)
			return;
	w->tids[j] = key;
	w->tid_n++;
	{
		/* A thread's name is only readable while it lives, and only for
		 * our own process; it is a best effort. */
		char name[64] = "", path[64];
		int have = 0;
		if (pid == w->self_pid) {
			FILE *f;
			snprintf(path, sizeof(path), "/proc/self/task/%" PRId64 "/comm", tid);
			f = fopen(path, "r");
			if (f) {
				if (fgets(name, sizeof(name), f)) {
					name[strcspn(name, "\n")] = '\0';
					have = 1;
				}
				fclose(f);
			}
		}
		gs_writer_thread(w, tid, pid, have ? name : NULL);
	}
	if (w->tid_n * 2 > w->tid_cap) {
		size_t ncap = w->tid_cap * 2, i;
		int64_t *n = calloc(ncap, sizeof(*n));
		if (!n)
			return;
		for (i = 0; i < w->tid_cap; i++) {
			int64_t t = w->tids[i];
			if (!t)
				continue;
			for (j = (uint64_t)(t - 1) * 0x9e3779b97f4a7c15ull >> 40 & (ncap - 1); n[j];
			     j = (j + 1) & (ncap - 1))
				;
			n[j] = t;
		}
		free(w->tids);
		w->tids = n;
		w->tid_cap = ncap;
	}
}

int gs_writer_thread(struct gs_writer *w, int64_t tid, int64_t pid, const char *name)
{
	struct bcache *st = params(w, ST_THREAD);

	if (w->failed)
		return -1;
	bind_i64(st, 1, tid);
	bind_opt(st, 2, pid);
	bind_text(st, 3, name);
	return step(w, ST_THREAD, "writing a thread");
}

/* Outside a transaction a row is inserted at once (autocommit, as a
 * single-row INSERT would be); inside one, at the next full batch or
 * COMMIT - except the transaction's first batched row, which goes in at
 * once: that takes SQLite's write lock, so a locked, read-only or vanished
 * database is still reported on the first row written, not a batch later. */
static inline int batch_done(struct gs_writer *w, struct row_batch *b, int which, const char *what)
{
	if (w->chunk)
		return 0; /* logged: gs_writer_apply inserts it */
	if (w->in_tx && w->tx_locked)
		return 0;
	w->tx_locked = w->in_tx;
	return batch_flush(w, b, which, what);
}

int gs_writer_kernel(struct gs_writer *w, const struct gs_kernel *k)
{
	struct row_batch *in;
	int64_t *v;

	if (w->failed)
		return -1;
	v = batch_row(w, &w->kernels, ST_KERNEL, "writing kernels", &in);
	if (!v)
		return -1;
	v[0] = (int64_t)k->start;
	v[1] = (int64_t)k->end;
	v[2] = k->device;
	v[3] = k->context;
	v[4] = k->stream;
	v[5] = k->correlation_id;
	v[6] = k->name_id > 0 ? k->name_id : BATCH_NULL;
	v[7] = k->grid_x;
	v[8] = k->grid_y;
	v[9] = k->grid_z;
	v[10] = k->block_x;
	v[11] = k->block_y;
	v[12] = k->block_z;
	v[13] = k->registers;
	v[14] = k->static_shared;
	v[15] = k->dynamic_shared;
	v[16] = k->local_memory;
	v[17] = k->graph_id;
	v[18] = (int64_t)k->graph_node_id;
	v[19] = k->has_latency ? (int64_t)k->queued : BATCH_NULL;
	v[20] = k->has_latency ? (int64_t)k->submitted : BATCH_NULL;
	v[21] = k->launch_type;
	v[22] = k->is_device_launched;
	row_filled(in);
	return batch_done(w, &w->kernels, ST_KERNEL, "writing kernels");
}

int gs_writer_api_call(struct gs_writer *w, const struct gs_api_call *a)
{
	struct row_batch *in;
	int64_t *v;

	if (w->failed)
		return -1;
	note_thread(w, a->tid, a->pid);
	v = batch_row(w, &w->apis, ST_API, "writing API calls", &in);
	if (!v)
		return -1;
	v[0] = a->api;
	v[1] = a->cbid;
	v[2] = a->name_id > 0 ? a->name_id : BATCH_NULL;
	v[3] = (int64_t)a->start;
	v[4] = (int64_t)a->end;
	v[5] = a->pid;
	v[6] = a->tid;
	v[7] = a->correlation_id;
	v[8] = a->return_code;
	row_filled(in);
	return batch_done(w, &w->apis, ST_API, "writing API calls");
}

int gs_writer_memcpy(struct gs_writer *w, const struct gs_memcpy *m)
{
	struct bcache *st = params(w, ST_MEMCPY);

	if (w->failed)
		return -1;
	bind_place(st, m->start, m->end, m->device, m->context, m->stream);
	bind_i64(st, 6, m->correlation_id);
	bind_i64(st, 7, (int64_t)m->bytes);
	bind_i64(st, 8, m->copy_kind);
	bind_i64(st, 9, m->src_kind);
	bind_i64(st, 10, m->dst_kind);
	bind_i64(st, 11, m->is_async ? 1 : 0);
	bind_opt(st, 12, m->src_device);
	bind_opt(st, 13, m->dst_device);
	bind_i64(st, 14, m->graph_id);
	bind_i64(st, 15, (int64_t)m->graph_node_id);
	return step(w, ST_MEMCPY, "writing a memcpy");
}

int gs_writer_memset(struct gs_writer *w, const struct gs_memset *m)
{
	struct bcache *st = params(w, ST_MEMSET);

	if (w->failed)
		return -1;
	bind_place(st, m->start, m->end, m->device, m->context, m->stream);
	bind_i64(st, 6, m->correlation_id);
	bind_i64(st, 7, (int64_t)m->bytes);
	bind_i64(st, 8, m->value);
	bind_i64(st, 9, m->mem_kind);
	bind_i64(st, 10, m->is_async ? 1 : 0);
	bind_i64(st, 11, m->graph_id);
	bind_i64(st, 12, (int64_t)m->graph_node_id);
	return step(w, ST_MEMSET, "writing a memset");
}

int gs_writer_sync(struct gs_writer *w, const struct gs_sync *s)
{
	struct bcache *st = params(w, ST_SYNC);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)s->start);
	bind_i64(st, 2, (int64_t)s->end);
	bind_i64(st, 3, s->kind);
	bind_i64(st, 4, s->implicit ? 1 : 0);
	bind_sid(st, 5, s->reason_id);
	bind_sid(st, 6, s->api_name_id);
	bind_opt(st, 7, s->device);
	bind_opt(st, 8, s->context);
	bind_opt(st, 9, s->stream);
	bind_opt(st, 10, s->event);
	bind_i64(st, 11, s->correlation_id);
	bind_opt(st, 12, s->pid);
	bind_opt(st, 13, s->tid);
	return step(w, ST_SYNC, "writing a sync");
}

int gs_writer_cuda_event(struct gs_writer *w, const struct gs_cuda_event *e)
{
	struct bcache *st = params(w, ST_CUDA_EVENT);

	if (w->failed)
		return -1;
	bind_i64(st, 1, e->event);
	bind_i64(st, 2, e->stream);
	bind_i64(st, 3, e->device);
	bind_i64(st, 4, e->context);
	bind_i64(st, 5, e->correlation_id);
	bind_opt(st, 6, e->start ? (int64_t)e->start : -1); /* 0: unknown, NULL */
	return step(w, ST_CUDA_EVENT, "writing a CUDA event record");
}

int gs_writer_nvtx(struct gs_writer *w, const struct gs_nvtx *n)
{
	struct bcache *st = params(w, ST_NVTX);

	if (w->failed)
		return -1;
	note_thread(w, n->tid, n->pid);
	bind_i64(st, 1, (int64_t)n->start);
	bind_i64(st, 2, (int64_t)n->end);
	bind_i64(st, 3, n->kind);
	bind_sid(st, 4, n->text_id);
	bind_sid(st, 5, n->domain_id);
	bind_opt(st, 6, n->category);
	bind_opt(st, 7, n->color);
	bind_opt(st, 8, n->pid);
	bind_opt(st, 9, n->tid);
	return step(w, ST_NVTX, "writing an NVTX range");
}

int gs_writer_overhead(struct gs_writer *w, const struct gs_overhead *o)
{
	struct bcache *st = params(w, ST_OVERHEAD);

	if (w->failed)
		return -1;
	bind_i64(st, 1, o->kind);
	bind_i64(st, 2, (int64_t)o->start);
	bind_i64(st, 3, (int64_t)o->end);
	bind_i64(st, 4, o->object_kind);
	bind_opt(st, 5, o->object_id);
	return step(w, ST_OVERHEAD, "writing an overhead record");
}

int gs_writer_capture_window(struct gs_writer *w, uint64_t start, uint64_t end)
{
	struct bcache *st = params(w, ST_CAPTURE_WINDOW);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)start);
	bind_i64(st, 2, (int64_t)end);
	return step(w, ST_CAPTURE_WINDOW, "writing a capture window");
}

int gs_writer_device(struct gs_writer *w, const struct gs_device *d)
{
	struct bcache *st = params(w, ST_DEVICE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, d->id);
	bind_text(st, 2, d->name);
	bind_text(st, 3, d->uuid[0] ? d->uuid : NULL);
	bind_i64(st, 4, d->cc_major);
	bind_i64(st, 5, d->cc_minor);
	bind_opt(st, 6, d->sm_count);
	bind_opt(st, 7, d->core_clock_khz);
	bind_opt(st, 8, d->memory_clock_khz);
	bind_opt(st, 9, d->global_memory_bytes);
	bind_opt(st, 10, d->l2_cache_bytes);
	bind_opt(st, 11, d->max_threads_per_block);
	return step(w, ST_DEVICE, "writing a device");
}

int gs_writer_device_memory_clock(struct gs_writer *w, uint32_t device, int64_t khz)
{
	char sql[128];

	if (w->failed)
		return -1;
	snprintf(sql, sizeof(sql),
		 "UPDATE devices SET memory_clock_khz = %" PRId64 " WHERE id = %" PRIu32 ";", khz,
		 device);
	if (w->chunk) {
		struct bcache c; /* a staging cache for this one text */
		memset(&c, 0, sizeof(c));
		c.owner = w;
		bind_text(&c, 1, sql);
		if (c.state[1] != BC_TEXT)
			return -1;
		return log_op(w, OP_EXEC, &c, 1);
	}
	return exec(w, sql, "writing a device");
}

int gs_writer_process(struct gs_writer *w, const struct gs_process *p)
{
	struct bcache *st = params(w, ST_PROCESS);

	if (w->failed)
		return -1;
	bind_i64(st, 1, p->pid);
	bind_text(st, 2, p->hostname);
	bind_text(st, 3, p->command_line);
	bind_i64(st, 4, (int64_t)p->start_ns);
	if (p->end_ns)
		bind_i64(st, 5, (int64_t)p->end_ns);
	else
		bind_null(st, 5);
	bind_text(st, 6, p->exit_reason);
	return step(w, ST_PROCESS, "writing the process");
}

int gs_writer_graph(struct gs_writer *w, const struct gs_graph *g)
{
	struct bcache *st = params(w, ST_GRAPH);

	if (w->failed)
		return -1;
	bind_i64(st, 1, g->graph_id);
	bind_opt(st, 2, g->original_graph_id);
	bind_opt(st, 3, g->device);
	bind_opt(st, 4, g->context);
	bind_i64(st, 5, (int64_t)g->created);
	bind_i64(st, 6, g->origin);
	return step(w, ST_GRAPH, "writing a graph");
}

int gs_writer_graph_node(struct gs_writer *w, const struct gs_graph_node *n)
{
	struct bcache *st = params(w, ST_GRAPH_NODE);
	int i;

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)n->node_id);
	bind_i64(st, 2, n->graph_id);
	bind_opt(st, 3, n->type);
	bind_sid(st, 4, n->name_id);
	bind_opt(st, 5, n->original_node_id);
	bind_opt(st, 6, n->child_graph_id);
	for (i = 0; i < 3; i++) {
		bind_opt(st, 7 + i, n->grid[i]);
		bind_opt(st, 10 + i, n->block[i]);
	}
	bind_opt(st, 13, n->bytes);
	bind_i64(st, 14, (int64_t)n->created);
	return step(w, ST_GRAPH_NODE, "writing a graph node");
}

int gs_writer_graph_edge(struct gs_writer *w, uint32_t graph_id, uint64_t from, uint64_t to)
{
	struct bcache *st = params(w, ST_GRAPH_EDGE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, graph_id);
	bind_i64(st, 2, (int64_t)from);
	bind_i64(st, 3, (int64_t)to);
	return step(w, ST_GRAPH_EDGE, "writing a graph edge");
}

int gs_writer_graph_exec(struct gs_writer *w, uint32_t exec_id, int64_t graph_id, int64_t device,
			 uint64_t created)
{
	struct bcache *st = params(w, ST_GRAPH_EXEC);

	if (w->failed)
		return -1;
	bind_i64(st, 1, exec_id);
	bind_opt(st, 2, graph_id);
	bind_opt(st, 3, device);
	bind_i64(st, 4, (int64_t)created);
	return step(w, ST_GRAPH_EXEC, "writing a graph exec");
}

int gs_writer_graph_launch(struct gs_writer *w, const struct gs_graph_launch *l)
{
	struct bcache *st = params(w, ST_GRAPH_LAUNCH);

	if (w->failed)
		return -1;
	bind_i64(st, 1, l->exec_id);
	bind_opt(st, 2, l->stream);
	bind_i64(st, 3, l->correlation_id);
	bind_opt(st, 4, l->tid);
	return step(w, ST_GRAPH_LAUNCH, "writing a graph launch");
}

int gs_writer_graph_run(struct gs_writer *w, const struct gs_graph_run *g)
{
	struct bcache *st = params(w, ST_GRAPH_RUN);

	if (w->failed)
		return -1;
	bind_place(st, g->start, g->end, g->device, g->context, g->stream);
	bind_i64(st, 6, g->graph_id);
	bind_i64(st, 7, g->correlation_id);
	return step(w, ST_GRAPH_RUN, "writing a graph run");
}

static int ctx_stream_add(struct ctx_stream **a, size_t *n, size_t *cap, uint32_t context,
			  uint32_t stream)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*a)[i].context == context && (*a)[i].stream == stream)
			return 0;
	if (grow((void **)a, cap, *n + 1, sizeof(**a), 8) != 0)
		return -1;
	(*a)[*n].context = context;
	(*a)[*n].stream = stream;
	(*n)++;
	return 1;
}

int gs_writer_context(struct gs_writer *w, uint32_t context, uint32_t device, uint32_t null_stream)
{
	char key[64];
	int rc;

	(void)device;
	rc = ctx_stream_add(&w->nulls, &w->nulls_n, &w->nulls_cap, context, null_stream);
	if (rc <= 0)
		return rc;
	snprintf(key, sizeof(key), "context.%" PRIu32 ".null_stream", context);
	return gs_writer_meta_int(w, key, null_stream);
}

int gs_writer_stream(struct gs_writer *w, uint32_t context, uint32_t stream, int non_blocking)
{
	if (!non_blocking)
		return 0;
	return ctx_stream_add(&w->nonblocking, &w->nb_n, &w->nb_cap, context, stream) < 0 ? -1 : 0;
}

int gs_writer_graph_captured(struct gs_writer *w, uint32_t graph_id, uint64_t when)
{
	struct bcache *st = params(w, ST_GRAPH_CAPTURED);

	if (w->failed)
		return -1;
	bind_i64(st, 1, graph_id);
	bind_i64(st, 2, (int64_t)when);
	return step(w, ST_GRAPH_CAPTURED, "marking a captured graph");
}

int gs_writer_graph_node_update(struct gs_writer *w, uint64_t time, int kind, uint64_t node_id,
				int64_t graph_id, int64_t exec_id)
{
	struct bcache *st = params(w, ST_GRAPH_NODE_UPDATE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)time);
	bind_i64(st, 2, kind);
	bind_i64(st, 3, (int64_t)node_id);
	bind_opt(st, 4, graph_id);
	bind_opt(st, 5, exec_id);
	return step(w, ST_GRAPH_NODE_UPDATE, "writing a graph node update");
}

/* ---------------------------------------------------------------- call sites */

/* Rows of callsite.c's tables (see callsite.h); interning and symbols are
 * done by the caller. */
int gs_writer_stack_frame(struct gs_writer *w, int64_t stack_id, int depth, int kind,
			  int64_t module_id, int64_t offset, int64_t symbol_id, int64_t file_id,
			  int64_t line, int64_t function_id)
{
	struct bcache *st = params(w, ST_STACK_FRAME);

	if (w->failed)
		return -1;
	bind_i64(st, 1, stack_id);
	bind_i64(st, 2, depth);
	bind_i64(st, 3, kind);
	bind_sid(st, 4, module_id);
	if (kind == GS_FRAME_NATIVE)
		bind_i64(st, 5, offset);
	else
		bind_null(st, 5);
	bind_sid(st, 6, symbol_id);
	bind_sid(st, 7, file_id);
	bind_opt(st, 8, line);
	bind_sid(st, 9, function_id);
	return step(w, ST_STACK_FRAME, "writing a call-site frame");
}

int gs_writer_api_stack(struct gs_writer *w, uint32_t correlation_id, int64_t stack_id, int64_t tid,
			int reason, uint64_t capture_start, uint64_t capture_end)
{
	struct bcache *st = params(w, ST_API_STACK);
	int timed =
	    capture_start > 0 && capture_end >= capture_start && capture_end <= (uint64_t)INT64_MAX;

	if (w->failed)
		return -1;
	bind_i64(st, 1, correlation_id);
	bind_i64(st, 2, stack_id);
	bind_opt(st, 3, tid);
	bind_i64(st, 4, reason);
	bind_opt(st, 5, timed ? (int64_t)capture_start : -1);
	bind_opt(st, 6, timed ? (int64_t)capture_end : -1);
	return step(w, ST_API_STACK, "writing a call site");
}

/* ---------------------------------------------------------------- implicit syncs */

/* The list is the trace format's (gs_implicit_apis, schema.c). */
int gs_implicit_api_class(const char *api_name, const char **reason)
{
	size_t n_implicit, n, i;
	const struct gs_implicit_api *implicit_apis = gs_implicit_apis(&n_implicit);
	const char *v;

	if (!api_name)
		return 0;
	/* cuptiGetCallbackName gives "cudaMalloc_v3020", "cuMemAlloc_v2":
	 * compare without a trailing "_v<digits>" (and "_ptsz"/"_ptds"). */
	n = strlen(api_name);
	v = strstr(api_name, "_v");
	if (v) {
		const char *d = v + 2;
		if (*d >= '0' && *d <= '9') {
			while (*d >= '0' && *d <= '9')
				d++;
			if (*d == '\0' || *d == '_')
				n = (size_t)(v - api_name);
		}
	}
	for (i = 0; i < n_implicit; i++) {
		if (strlen(implicit_apis[i].name) == n &&
		    strncmp(implicit_apis[i].name, api_name, n) == 0) {
			if (reason)
				*reason = implicit_apis[i].reason;
			return implicit_apis[i].kind;
		}
	}
	return 0;
}

int gs_writer_implicit_api(struct gs_writer *w, int64_t name_id, int kind, const char *reason)
{
	size_t i;

	if (name_id <= 0)
		return -1;
	for (i = 0; i < w->impl_n; i++)
		if (w->impl[i].name_id == name_id)
			return 0;
	if (grow((void **)&w->impl, &w->impl_cap, w->impl_n + 1, sizeof(*w->impl), 16) != 0)
		return -1;
	w->impl[w->impl_n].name_id = name_id;
	w->impl[w->impl_n].kind = kind;
	snprintf(w->impl[w->impl_n].reason, sizeof(w->impl[0].reason), "%s", reason);
	w->impl_n++;
	return 0;
}

int gs_writer_sample(struct gs_writer *w, int64_t tid, uint64_t t, int64_t stack_id)
{
	struct bcache *st = params(w, ST_SAMPLE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, tid);
	bind_i64(st, 2, (int64_t)t);
	bind_opt(st, 3, stack_id > 0 ? stack_id : -1);
	return step(w, ST_SAMPLE, "writing a sample");
}

int gs_writer_wait_sample(struct gs_writer *w, int64_t tid, uint64_t t, int64_t ns,
			  int64_t stack_id)
{
	struct bcache *st = params(w, ST_WAIT_SAMPLE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, tid);
	bind_i64(st, 2, (int64_t)t);
	bind_i64(st, 3, ns);
	bind_opt(st, 4, stack_id > 0 ? stack_id : -1);
	return step(w, ST_WAIT_SAMPLE, "writing an off-CPU sample");
}
