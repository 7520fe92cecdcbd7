/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis.c - the core of the analysis library: per-device and per-stream
 * timelines, idle gaps and their causes (docs/metrics.md). gs_analyze(),
 * which runs every pass, is in analysis_run.c; the --range selection is in
 * analysis_select.c, the indexes the classification searches and the API
 * classes in analysis_index.c (this file calls down into both).
 *
 * Input arrays are never modified; everything is computed in O(n log n)
 * with one sweep over the ops (sorted by device, start) plus binary
 * searches into indexes built once. No I/O, no SQLite.
 *
 * The statistics that only read the gaps (launch distributions, syncs,
 * kernels, NVTX) are in analysis_stats.c, the graph advice in
 * analysis_graph.c: they call down into this file, and it never calls them
 * back (tests/unit/check_cycles.py).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* ------------------------------------------------------------------ */
/* small growable array                                                */
/* ------------------------------------------------------------------ */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	big_hint((char *)np + *cap * elem, (ncap - *cap) * elem);
	*p = np;
	*cap = ncap;
	return 0;
}

/* ------------------------------------------------------------------ */
/* gap classification (docs/metrics.md, DESIGN.md rule order)          */
/* ------------------------------------------------------------------ */

uint32_t nvtx_at(const struct actx *c, uint32_t tid, int64_t t)
{
	uint32_t k = stab_find(&c->nvtx_tid, tid, t, NULL);
	return k != GS_NONE ? k : stab_find(&c->nvtx_any, 0, t, NULL);
}

uint32_t nvtx_at_launch(const struct actx *c, uint32_t x)
{
	uint32_t call = c->call_of[x];

	if (call != GS_NONE)
		return nvtx_at(c, c->in->apis[call].tid, c->in->apis[call].start);
	return stab_find(&c->nvtx_any, 0, c->ops[x].start, NULL);
}

int gap_cut_dominant(const struct gap_cut *cut)
{
	int64_t max = cut->amt[0];
	int k, best = 0;

	/* the largest value kept in a local: reading amt[best] back made each
	 * step wait for the one before (perf: 3% of a 10M-op report here) */
	for (k = 1; k < GS_CAUSE_COUNT; k++)
		if (cut->amt[k] > max) {
			max = cut->amt[k];
			best = k;
		}
	return best;
}

/* the host thread of call C in the covers, and its hints, through the cache */
static const struct host_thread *cut_thread(const struct actx *c, struct cg_cache *cc, uint32_t tid,
					    struct host_hints **hh)
{
	uint32_t k, hint = cc->host_thread, slot;
	uint32_t ts = (tid * 2654435761u) >> 29; /* CG_CACHE_SLOTS = 8 */

	if (!c->host)
		return NULL;
	/* tid -> thread index through a small cache (threads interleave) */
	if (cc->tid_key[ts] == tid && cc->tid_val[ts] != GS_NONE) {
		k = cc->tid_val[ts];
	} else {
		k = host_thread_of(c->host, tid, &hint);
		if (k == GS_NONE)
			return NULL;
		cc->tid_key[ts] = tid;
		cc->tid_val[ts] = k;
	}
	cc->host_thread = k;
	slot = k % CG_CACHE_SLOTS;
	if (cc->host_key[slot] != k) {
		cc->host_key[slot] = k;
		cc->hh[slot].all = cc->hh[slot].sync = 0;
	}
	*hh = &cc->hh[slot];
	return &c->host->t[k];
}

void gap_cut_piece(const struct actx *c, struct cg_cache *cc, const struct gs_gap *g, int64_t p0,
		   int64_t p1, struct gap_cut *cut)
{
	const struct gs_api *C;
	uint32_t call;
	int64_t cs, h0, h1, l0, l1, sync, api, host, launch;

	memset(cut, 0, sizeof(*cut));
	if (p1 <= p0)
		return;
	call = c->call_of[g->op_idx];
	if (g->held) {
		/* queued, then held (classify_gap): launch latency or
		 * graph-internal in the last GS_QUEUED_DISPATCH_NS before X,
		 * other before */
		int64_t l0 = queued_dispatch_start(c->ops[g->op_idx].start);
		int64_t l = p1 - (l0 > p0 ? l0 : p0);
		if (l < 0)
			l = 0;
		cut->amt[g->held] = l;
		cut->amt[GS_CAUSE_OTHER] = p1 - p0 - l;
		return;
	}
	if (!g->host_late && g->cause == GS_CAUSE_SYNC_WAIT &&
	    g->explain_kind == GS_EXPLAIN_SYNC && g->explain_idx < c->in->n_syncs) {
		/* X's own staging copy in progress at g0 (classify_gap): sync
		 * wait until the call returned, then launch latency */
		int64_t se = c->in->syncs[g->explain_idx].end;
		int64_t w = (se < p1 ? se : p1) - p0;
		if (w < 0)
			w = 0;
		cut->amt[GS_CAUSE_SYNC_WAIT] = w;
		cut->amt[GS_CAUSE_LAUNCH_LATENCY] = p1 - p0 - w;
		return;
	}
	if (!g->host_late || call == GS_NONE) {
		cut->amt[g->cause] = p1 - p0;
		return;
	}
	/* [g0, C.start) by what C's thread did, then [C.start, g1) launch
	 * latency; a launch call that (by clock skew) starts after X is held
	 * at g1 */
	C = &c->in->apis[call];
	cs = C->start < g->end ? C->start : g->end;
	h0 = p0;
	h1 = cs < p1 ? cs : p1;
	l0 = cs > p0 ? cs : p0;
	l1 = p1;
	if (h1 > h0) {
		struct host_hints *hh = NULL;
		const struct host_thread *t = cut_thread(c, cc, C->tid, &hh);
		host_cut(c->host, t, c->api_cls, h0, h1, hh, &sync, &api, &host, &launch,
			 &cut->slow, &cut->slow_call);
		cut->amt[GS_CAUSE_SYNC_WAIT] = sync;
		cut->amt[GS_CAUSE_CUDA_API] = api;
		cut->amt[GS_CAUSE_HOST_CODE] = host;
		cut->launch = launch;
	}
	if (l1 > l0) {
		/* X's own call staging X's data: sync wait until it returns */
		uint32_t y = host_copy_sync(c->host, C, &c->ops[g->op_idx]);
		int64_t w = 0, q0 = C->end > cs ? C->end : cs, q1, a, b;
		if (y != GS_NONE) {
			int64_t se = c->in->syncs[y].end < g->end ? c->in->syncs[y].end : g->end;
			w = (se < l1 ? se : l1) - l0;
			if (w < 0)
				w = 0;
			if (se > q0)
				q0 = se;
		}
		cut->amt[GS_CAUSE_SYNC_WAIT] += w;
		cut->amt[GS_CAUSE_LAUNCH_LATENCY] = l1 - l0 - w;
		/* the call had returned and X sat queued, held by what the
		 * trace does not hold (rule 5; HTA's sampled A100 training
		 * trace: a 16 us cudaLaunchKernel, then 56.2 ms to its kernel) */
		q1 = queued_held_end(q0, c->ops[g->op_idx].start);
		a = q0 > l0 ? q0 : l0;
		b = q1 < l1 ? q1 : l1;
		if (b > a) {
			cut->amt[GS_CAUSE_OTHER] += b - a;
			cut->amt[GS_CAUSE_LAUNCH_LATENCY] -= b - a;
		}
	}
}

/* op has no launch call in the trace, the trace has calls, and the op's
 * correlation id comes before every recorded call's (CUPTI numbers a
 * process's calls in order): its call was made before the trace began. A
 * trace without calls (kernels only) says nothing of when. */
static int launched_before_trace(const struct actx *c, const struct gs_op *op)
{
	return c->corr_min != UINT32_MAX && op->corr && op->corr < c->corr_min;
}

/* Gap g, whose cause so far (launch latency or graph-internal) is that of
 * a queued op, was held by what the trace does not hold (GS_QUEUED_HELD_NS):
 * other, but for the last GS_QUEUED_DISPATCH_NS (gs_gap.held) */
static void held_gap(const struct actx *c, struct cg_cache *cc, struct gs_gap *g,
		     struct gap_cut *cut)
{
	g->held = g->cause;
	g->cause = GS_CAUSE_OTHER;
	gap_cut_piece(c, cc, g, g->start, g->end, cut);
}

void classify_gap(const struct actx *c, struct cg_cache *cc, int64_t g0, uint32_t x, uint32_t prev,
		  int flags, struct gs_gap *g, struct gap_cut *cut)
{
	const struct gs_input *in = c->in;
	const struct gs_op *op = &c->ops[x];
	uint32_t call = c->call_of[x], k;
	const struct gs_api *C;
	int64_t lo;
	int first;
	struct gap_cut local;

	if (!cut)
		cut = &local;
	g->op_idx = x;
	g->explain_idx = GS_NONE;
	g->explain_kind = GS_EXPLAIN_NONE;
	g->nvtx_idx = GS_NONE;
	g->host_late = 0;
	g->held = 0;
	if (call == GS_NONE) {
		/* no launch call for X: other, never a forced cause */
		g->cause = GS_CAUSE_OTHER;
		if (flags & CG_NVTX)
			g->nvtx_idx = stab_find_cached(&c->nvtx_any, cc, 2, 0, g0);
		/* launched before the trace began (torch.profiler's window
		 * opens while the GPU runs work queued earlier: TraceLens'
		 * H100 Qwen trace, 509 ops of the step before): queued, read
		 * as rule 5 reads a queued op - dispatch, or held */
		if (launched_before_trace(c, op)) {
			g->cause = GS_CAUSE_LAUNCH_LATENCY;
			g->explain_kind = GS_EXPLAIN_BEFORE_TRACE;
			if (op->start - g0 > GS_QUEUED_HELD_NS) {
				held_gap(c, cc, g, cut);
				return;
			}
		}
		goto cut;
	}
	C = &in->apis[call];
	if (flags & CG_NVTX) {
		g->nvtx_idx = stab_find_cached(&c->nvtx_tid, cc, 1, C->tid, g0);
		if (g->nvtx_idx == GS_NONE)
			g->nvtx_idx = stab_find_cached(&c->nvtx_any, cc, 2, 0, g0);
	}
	g->explain_kind = GS_EXPLAIN_LAUNCH;
	g->explain_idx = call;

	/* The host was late: X's launch began only once the GPU ran dry.
	 * The cut says what the thread did meanwhile; a sync in progress at
	 * g0 explains only the part of the gap it lasted. */
	if (C->start >= g0) {
		g->host_late = 1;
		g->cause = GS_CAUSE_HOST_CODE; /* for the cut; set from it below */
		gap_cut_piece(c, cc, g, g->start, g->end, cut);
		g->cause = (uint8_t)gap_cut_dominant(cut);
		return;
	}
	/* X was enqueued before the GPU went idle: the host was not late,
	 * and no sync of the host explains the gap. A host node before X's
	 * graph node is a dependency; X and the op before it on its stream
	 * launched by one call (a graph launch) is node dispatch. */
	if (op->flags & GS_OPF_HOST_NODE_DEP) {
		g->cause = GS_CAUSE_DEPENDENCY;
		g->explain_kind = GS_EXPLAIN_HOST_NODE;
		g->explain_idx = x;
		goto cut;
	}
	if (prev != GS_NONE && c->call_of[prev] == call) {
		g->cause = GS_CAUSE_GRAPH_INTERNAL;
		/* node dispatch takes microseconds: a longer hole with the
		 * graph launch returned is a wait the trace does not hold
		 * (HTA's A100 torch.compile trace: 250 holes of ~0.8 ms
		 * inside graph launches, 15.7% of the window) */
		if (C->end <= g0 && op->start - g0 > GS_QUEUED_HELD_NS) {
			held_gap(c, cc, g, cut);
			return;
		}
		goto cut;
	}
	/* Dependency. Program order on X's stream: anything enqueued after
	 * the previous op's launch and up to X's launch precedes X. A
	 * cudaStreamWaitEvent on X's stream in that window, or a host
	 * function enqueued by C's thread in it (the schema does not say on
	 * which stream). For the first op of a stream there is no previous
	 * launch: any earlier wait on X's stream precedes X in program
	 * order, but a host function, known only by thread, could have been
	 * enqueued on any stream, so none counts (a host function 20 ms
	 * earlier on another stream explained such gaps before). */
	first = prev == GS_NONE || c->call_of[prev] == GS_NONE;
	lo = first ? INT64_MIN : in->apis[c->call_of[prev]].start;
	k = wait_find(c, op, lo, C->start, flags);
	if (k != GS_NONE) {
		g->cause = GS_CAUSE_DEPENDENCY;
		g->explain_kind = GS_EXPLAIN_WAIT;
		g->explain_idx = k;
		goto cut;
	}
	k = first ? GS_NONE : evts_find(&c->hostfn, C->tid, lo, C->start);
	if (k != GS_NONE) {
		g->cause = GS_CAUSE_DEPENDENCY;
		g->explain_kind = GS_EXPLAIN_HOST_FUNC;
		g->explain_idx = k;
		goto cut;
	}
	/* X's own call was still staging X's data (a synchronous or pageable
	 * copy) when the GPU went idle: the host was blocked in it, sync wait
	 * until it returned, launch latency after (gap_cut_piece splits it) */
	k = host_copy_sync(c->host, C, op);
	if (k != GS_NONE && in->syncs[k].start <= g0 && in->syncs[k].end > g0) {
		int64_t se = in->syncs[k].end < g->end ? in->syncs[k].end : g->end;
		if (se - g0 >= g->end - se) {
			g->cause = GS_CAUSE_SYNC_WAIT;
			g->explain_kind = GS_EXPLAIN_SYNC;
			g->explain_idx = k;
			gap_cut_piece(c, cc, g, g->start, g->end, cut);
			return;
		}
	}
	/* queued in time, started late anyway: launch latency, unless the
	 * call had returned before the GPU went idle and X started more than
	 * 100 us after: then something unrecorded held it (HTA's sampled A100
	 * training trace, no stream waits in it: a queued NCCL kernel
	 * started 58.9 ms after the GPU went idle, read as 58.9 ms of launch
	 * latency -> "fusion or CUDA Graphs") */
	g->cause = GS_CAUSE_LAUNCH_LATENCY;
	if (C->end <= g0 && op->start - g0 > GS_QUEUED_HELD_NS) {
		held_gap(c, cc, g, cut);
		return;
	}
cut:
	memset(cut, 0, sizeof(*cut));
	cut->amt[g->cause] = g->end - g->start;
}

/* ------------------------------------------------------------------ */
/* timelines                                                           */
/* ------------------------------------------------------------------ */

static void tl_add(struct gs_timeline *tl, const struct gap_cut *cut)
{
	int k;

	for (k = 0; k < GS_CAUSE_COUNT; k++)
		tl->idle_by_cause[k] += cut->amt[k];
	tl->launch_calls += cut->launch;
	tl->gaps_by_cause[gap_cut_dominant(cut)]++;
	tl->n_gaps++;
}

static void tl_finish(const struct actx *c, struct gs_timeline *tl)
{
	int k;

	tl->window = sel_overlap(c, tl->first, tl->last);
	tl->idle = 0;
	for (k = 0; k < GS_CAUSE_COUNT; k++)
		tl->idle += tl->idle_by_cause[k];
	tl->busy = tl->window - tl->idle;
	tl->utilisation = tl->window > 0 ? (double)tl->busy / (double)tl->window : 0.0;
	tl->launch_overhead_share = tl->window > 0
					? (double)(tl->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY] +
						   tl->idle_by_cause[GS_CAUSE_GRAPH_INTERNAL] +
						   tl->launch_calls) /
					      (double)tl->window
					: 0.0;
	tl->host_code_share = tl->window > 0 ? (double)tl->idle_by_cause[GS_CAUSE_HOST_CODE] /
						   (double)tl->window
					     : 0.0;
}

/* Which gaps a device's list keeps when options.all_gaps is 0: the gaps
 * a stream wait explains (stats_syncs() sums them), and every
 * gap that can still be among the top_n largest. h is a min-heap of the
 * top_n largest lengths seen so far: a gap no longer than its smallest
 * has top_n earlier gaps at least as long, and the top list breaks ties
 * by time, so it can never enter the list. The top list picked from the
 * kept gaps (same relative order) is the one picked from all of them.
 * On a 10M-op trace this keeps a few thousand of 3.4M gaps: 100 MB of
 * fresh memory not written (the report reads nothing else). */
struct gap_keep {
	int64_t *h; /* ns, min-heap of the cap largest lengths so far */
	size_t n, cap;
};

static int gap_keep(struct gap_keep *k, const struct gs_gap *g)
{
	int64_t len = g->end - g->start;
	int need = g->explain_kind == GS_EXPLAIN_WAIT; /* stats_syncs() reads those */
	size_t i, m;

	if (k->n < k->cap) { /* sift up */
		i = k->n++;
		while (i > 0 && k->h[(i - 1) / 2] > len) {
			k->h[i] = k->h[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		k->h[i] = len;
		return 1;
	}
	if (!k->cap || len <= k->h[0])
		return need;
	/* replace the smallest: sift down */
	for (i = 0;; i = m) {
		m = 2 * i + 1;
		if (m >= k->n)
			break;
		if (m + 1 < k->n && k->h[m + 1] < k->h[m])
			m++;
		if (k->h[m] >= len)
			break;
		k->h[i] = k->h[m];
	}
	k->h[i] = len;
	return 1;
}

/* The launch call of gap g's op when it ran GS_SLOW_LAUNCH_NS or longer,
 * else NULL. */
static const struct gs_api *slow_launch(const struct actx *c, const struct gs_gap *g)
{
	uint32_t k = c->call_of[g->op_idx];
	const struct gs_api *C;

	if (k == GS_NONE)
		return NULL;
	C = &c->in->apis[k];
	return C->end - C->start >= GS_SLOW_LAUNCH_NS ? C : NULL;
}

/* tl's slow_launch_* for gap g (or a piece of it) of cut cut: its launch
 * latency when its own launch call was slow, and its time inside earlier
 * slow launch calls */
static void tl_slow(const struct actx *c, struct gs_timeline *tl, const struct gs_gap *g,
		    const struct gap_cut *cut)
{
	const struct gs_api *C = slow_launch(c, g);
	int64_t lat = C ? cut->amt[GS_CAUSE_LAUNCH_LATENCY] : 0;

	if (lat <= 0 && cut->slow <= 0)
		return;
	if (cut->slow > 0) {
		const struct gs_api *D = &c->in->apis[cut->slow_call];
		if (lat <= 0 || D->end - D->start > C->end - C->start)
			C = D;
	}
	tl->slow_launch_latency += lat;
	tl->slow_launch_in_calls += cut->slow;
	tl->slow_launches++;
	if (C->end - C->start > tl->slow_launch_max_ns) {
		tl->slow_launch_max_ns = C->end - C->start;
		tl->slow_launch_name_id = C->name_id;
		tl->slow_launch_nvtx_id =
		    g->nvtx_idx < c->in->n_nvtx ? c->in->nvtx[g->nvtx_idx].text_id : 0;
	}
}

/* 1 when the host span over most of gap g on its launching thread (an
 * imported trace's host_ranges), or one it runs inside, is the
 * framework's or the model's: a PyTorch operator (aten::), autograd, an
 * optimizer step, or a module's forward/backward (Python frames "...py(573):
 * forward"). A CUDA Graph replay or torch.compile removes that host time;
 * time outside them is the program's own (docs/metrics.md, "Host code:
 * dispatch or the program's own work"). On HTA's DDP rank, 74% of the
 * late host time lay inside aten:: operators in gaps of 50 us or more,
 * which the gap size alone called the program's own. */
static int framework_gap(const struct actx *c, const struct gs_gap *g)
{
	uint32_t k = c->call_of[g->op_idx];

	if (k == GS_NONE)
		return 0;
	return gs_host_framework_at(c->in, c->in->apis[k].tid, g->start, g->end);
}

/* tl's host_stall_* for a piece of gap g with cut pc, whose whole cut is
 * cut: a stall is a gap with GS_HOST_STALL_NS of host code or more, as a
 * whole (a range that cuts a stall keeps its piece a stall, and the gap
 * is counted once, with its first stall piece in the selection:
 * *counted) */
static void tl_stall(const struct actx *c, struct gs_timeline *tl, const struct gs_gap *g,
		     const struct gap_cut *cut, const struct gap_cut *pc, int *counted)
{
	int64_t h = pc->amt[GS_CAUSE_HOST_CODE];
	int input = !!(c->ops[g->op_idx].flags & GS_OPF_HOST_SRC);
	int startup = gs_startup_gap(c->first_range, g);
	struct gs_stall_where *w = startup ? &tl->startup_where
				   : input ? &tl->input_where
					   : &tl->stall_where;
	uint32_t k;

	if (h <= 0)
		return;
	/* host code by how much of it its whole gap holds: what a CUDA
	 * Graph removes (a launch loop's or a framework's dispatch between
	 * launches) against the program's own work (gs_timeline.host_by_size,
	 * docs/metrics.md "Host code: dispatch or the program's own work") */
	if (cut->amt[GS_CAUSE_HOST_CODE] < GS_HOST_LOOP_NS)
		tl->host_by_size[0] += h;
	else if (cut->amt[GS_CAUSE_HOST_CODE] < GS_HOST_DISPATCH_NS)
		tl->host_by_size[1] += h;
	else if (cut->amt[GS_CAUSE_HOST_CODE] < GS_HOST_STALL_NS)
		tl->host_by_size[2] += h;
	if (cut->amt[GS_CAUSE_HOST_CODE] < GS_HOST_STALL_NS) {
		if (c->in->n_hranges && framework_gap(c, g))
			tl->host_framework += h;
		return;
	}
	tl->host_stall += h;
	tl->input_stall += input ? h : 0;
	tl->startup_stall += startup ? h : 0;
	tl->startup_input_stall += startup && input ? h : 0;
	if (!*counted) {
		tl->host_stalls++;
		tl->input_stalls += (uint64_t)input;
		tl->startup_stalls += (uint64_t)startup;
		tl->startup_input_stalls += (uint64_t)(startup && input);
		*counted = 1;
	}
	if (h > w->host_ns) {
		/* the innermost range at the gap's middle, on the launching
		 * thread else any: what the thread was inside while it stalled
		 * ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
		 * in TraceLens' H100 OWLv2 trace), not the step the gap began
		 * in */
		int64_t mid = g->start + (g->end - g->start) / 2;
		uint32_t hint = GS_NONE, r = GS_NONE;
		k = c->call_of[g->op_idx];
		w->host_ns = h;
		w->tid = k != GS_NONE ? c->in->apis[k].tid : 0;
		if (k != GS_NONE)
			r = stab_find(&c->nvtx_tid, w->tid, mid, &hint);
		if (r == GS_NONE) {
			hint = GS_NONE;
			r = stab_find(&c->nvtx_any, 0, mid, &hint);
		}
		w->nvtx_id = r < c->in->n_nvtx ? c->in->nvtx[r].text_id : 0;
		r = gs_host_range_at(c->in, w->tid, g->start, g->end);
		w->op_id = r != GS_NONE ? c->in->hranges[r].name_id : 0;
	}
}

/* The sync-wait time of a host-late gap piece [p0, p1) goes to the
 * blocking calls it was spent in (the sync table's "GPU idle" column). */
static void attr_syncs(const struct actx *c, struct cg_cache *cc, const struct gs_gap *g,
		       int64_t p0, int64_t p1, const struct gap_cut *cut)
{
	/* what the sync cost the GPU in this gap: the wait, and the launch
	 * latency of refilling the queue after it (host code after a sync
	 * would have kept the GPU idle without it too). Several calls in one
	 * gap each take their own wait, and the last the latency: a sum over
	 * calls gave each the whole gap's (HTA's A100 AlexNet trace: cudaFree
	 * x15 and cudaMalloc x18 each "cost" all 12.85 s of idle, where the
	 * sync table gave them 6.5 s and 1.9 s) */
	int64_t lat = slow_launch(c, g) ? 0 : cut->amt[GS_CAUSE_LAUNCH_LATENCY];
	int64_t drain = cut->amt[GS_CAUSE_SYNC_WAIT] + lat;
	const struct gs_api *C;
	struct host_hints *hh;
	const struct host_thread *t;
	int64_t cs;
	uint32_t y;

	if (!g->host_late) { /* a gap spent in X's own staging copy */
		if (g->explain_kind == GS_EXPLAIN_SYNC && g->explain_idx < c->in->n_syncs) {
			y = g->explain_idx;
			c->sync_idle[y] = gs_sat_add(c->sync_idle[y], cut->amt[GS_CAUSE_SYNC_WAIT]);
			c->sync_gaps[y]++;
			c->sync_drain[y] = gs_sat_add(c->sync_drain[y], drain);
		}
		return;
	}
	C = &c->in->apis[c->call_of[g->op_idx]];
	t = cut_thread(c, cc, C->tid, &hh);
	cs = C->start < p1 ? C->start : p1;
	/* and X's own call while it staged X's data */
	if ((y = host_copy_sync(c->host, C, &c->ops[g->op_idx])) != GS_NONE &&
	    c->in->syncs[y].end > cs)
		cs = c->in->syncs[y].end < p1 ? c->in->syncs[y].end : p1;
	if (t && cs > p0)
		host_sync_attr(c->host, t, p0, cs, lat, c->sync_idle, c->sync_gaps, c->sync_drain);
}

struct nvtx_acc;
static int nvtx_acc_add(const struct actx *c, struct nvtx_acc *a, const struct gs_gap *g,
			const struct gap_cut *cut);

/* In a capture trace, the cut of the parts of gap g (cut = its whole cut)
 * inside the capture windows, into *buf: what was recorded of a gap that
 * spans unrecorded time. The host stall rule reads it (1 ms or more of
 * host code in a gap): 3 ms between two windows is no host code, the
 * program was not traced then. A gap inside one window, or a trace
 * recorded whole: cut itself. */
static const struct gap_cut *recorded_cut(const struct actx *c, struct cg_cache *cc,
					  const struct gs_gap *g, const struct gap_cut *cut,
					  struct gap_cut *buf)
{
	const int64_t *w = c->in->capture_windows;
	size_t n = c->in->n_capture_windows, k;
	int j;

	if (!c->in->capture_range)
		return cut;
	k = windows_first_after(w, n, g->start);
	if (k < n && w[2 * k] <= g->start && w[2 * k + 1] >= g->end)
		return cut;
	memset(buf, 0, sizeof(*buf));
	for (; k < n && w[2 * k] < g->end; k++) {
		struct gap_cut pc;
		int64_t a = w[2 * k] > g->start ? w[2 * k] : g->start;
		int64_t b = w[2 * k + 1] < g->end ? w[2 * k + 1] : g->end;
		if (b <= a)
			continue;
		gap_cut_piece(c, cc, g, a, b, &pc);
		for (j = 0; j < GS_CAUSE_COUNT; j++)
			buf->amt[j] += pc.amt[j];
		buf->launch += pc.launch;
		buf->slow += pc.slow;
	}
	return buf;
}

/* Add the pieces of gap g (whole [g->start, g->end), cut = its cut) that
 * lie in the selection to tl, and to the device's gap list when gaps/cap
 * != NULL (those that keep lets through, when keep != NULL); a piece's
 * cause is its own largest segment's. attr: credit sync waits to their
 * calls (the device view). acc != NULL: add its segments to the idle by
 * NVTX range (the device view). */
static int add_gap(const struct actx *c, struct cg_cache *cc, struct gs_timeline *tl,
		   const struct gs_gap *g, const struct gap_cut *cut, struct gs_gap **gaps,
		   size_t *n, size_t *cap, struct gap_keep *keep, int attr, struct nvtx_acc *acc)
{
	struct gap_cut rec;
	size_t k;
	int stall_counted = 0;

	if (!c->has_sel) {
		tl_add(tl, cut);
		if (c->ops[g->op_idx].graph_id)
			tl->graph_launch_latency += cut->amt[GS_CAUSE_LAUNCH_LATENCY];
		tl_slow(c, tl, g, cut);
		tl_stall(c, tl, g, cut, cut, &stall_counted);
		if (c->call_of[g->op_idx] == GS_NONE &&
		    !launched_before_trace(c, &c->ops[g->op_idx]))
			tl->other_no_call += cut->amt[GS_CAUSE_OTHER];
		if (acc && nvtx_acc_add(c, acc, g, cut))
			return -ENOMEM;
		if (attr && cut->amt[GS_CAUSE_SYNC_WAIT] > 0)
			attr_syncs(c, cc, g, g->start, g->end, cut);
		if (gaps && (!keep || gap_keep(keep, g))) {
			if (grow((void **)gaps, cap, *n + 1, sizeof(**gaps)))
				return -ENOMEM;
			(*gaps)[(*n)++] = *g;
		}
		return 0;
	}
	cut = recorded_cut(c, cc, g, cut, &rec);
	for (k = sel_first_after(c, g->start); k < c->n_sel && c->sel[2 * k] < g->end; k++) {
		struct gs_gap piece = *g;
		struct gap_cut pc;
		if (c->sel[2 * k] > piece.start)
			piece.start = c->sel[2 * k];
		if (c->sel[2 * k + 1] < piece.end)
			piece.end = c->sel[2 * k + 1];
		if (piece.end <= piece.start)
			continue;
		gap_cut_piece(c, cc, g, piece.start, piece.end, &pc);
		piece.cause = (uint8_t)gap_cut_dominant(&pc);
		tl_add(tl, &pc);
		if (c->ops[g->op_idx].graph_id)
			tl->graph_launch_latency += pc.amt[GS_CAUSE_LAUNCH_LATENCY];
		tl_slow(c, tl, g, &pc);
		tl_stall(c, tl, g, cut, &pc, &stall_counted);
		if (c->call_of[g->op_idx] == GS_NONE &&
		    !launched_before_trace(c, &c->ops[g->op_idx]))
			tl->other_no_call += pc.amt[GS_CAUSE_OTHER];
		if (acc && nvtx_acc_add(c, acc, &piece, &pc))
			return -ENOMEM;
		if (attr && pc.amt[GS_CAUSE_SYNC_WAIT] > 0)
			attr_syncs(c, cc, g, piece.start, piece.end, &pc);
		if (gaps && (!keep || gap_keep(keep, &piece))) {
			if (grow((void **)gaps, cap, *n + 1, sizeof(**gaps)))
				return -ENOMEM;
			(*gaps)[(*n)++] = piece;
		}
	}
	return 0;
}

/* tiny u32 -> u32 map (stream id -> local index); streams are few. A
 * direct-mapped cache of U32MAP_CACHE recent answers in front of it: the
 * views ask once per op (perf: 2% of a 10M-op report in the lookups). */
#define U32MAP_CACHE 16
struct u32map {
	uint32_t *keys, *vals;
	uint8_t *used;
	size_t cap, n;
	uint32_t ckey[U32MAP_CACHE];
	uint32_t cval[U32MAP_CACHE]; /* value + 1, 0 = empty */
};

static int u32map_grow(struct u32map *m);

static uint32_t u32map_get(struct u32map *m, uint32_t key, uint32_t new_val, int *err)
{
	size_t h, ci = key % U32MAP_CACHE;

	if (m->cval[ci] && m->ckey[ci] == key)
		return m->cval[ci] - 1;
	if ((m->n + 1) * 2 > m->cap && u32map_grow(m)) {
		*err = -ENOMEM;
		return GS_NONE;
	}
	h = (key * 2654435761u) & (m->cap - 1);
	while (m->used[h]) {
		if (m->keys[h] == key)
			break;
		h = (h + 1) & (m->cap - 1);
	}
	if (!m->used[h]) {
		m->used[h] = 1;
		m->keys[h] = key;
		m->vals[h] = new_val;
		m->n++;
	}
	if (m->vals[h] < UINT32_MAX) {
		m->ckey[ci] = key;
		m->cval[ci] = m->vals[h] + 1;
	}
	return m->vals[h];
}

static int u32map_grow(struct u32map *m)
{
	struct u32map nm = {0};
	size_t i;

	nm.cap = m->cap ? m->cap * 2 : 16;
	nm.keys = malloc(nm.cap * sizeof(uint32_t));
	nm.vals = malloc(nm.cap * sizeof(uint32_t));
	nm.used = calloc(nm.cap, 1);
	if (!nm.keys || !nm.vals || !nm.used) {
		free(nm.keys);
		free(nm.vals);
		free(nm.used);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		if (m->used[i]) {
			size_t h = (m->keys[i] * 2654435761u) & (nm.cap - 1);
			while (nm.used[h])
				h = (h + 1) & (nm.cap - 1);
			nm.used[h] = 1;
			nm.keys[h] = m->keys[i];
			nm.vals[h] = m->vals[i];
			nm.n++;
		}
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	*m = nm;
	return 0;
}

static void u32map_free(struct u32map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

/* The device view's idle by NVTX range text (gs_device_result.nvtx_idle):
 * each gap's (piece's) segments added under the text of its nvtx_idx. */
struct nvtx_acc {
	struct u32map map; /* text id -> index in v */
	struct gs_nvtx_idle *v;
	size_t n, cap;
};

static int nvtx_acc_add(const struct actx *c, struct nvtx_acc *a, const struct gs_gap *g,
			const struct gap_cut *cut)
{
	uint32_t text = g->nvtx_idx != GS_NONE && g->nvtx_idx < c->in->n_nvtx
			    ? c->in->nvtx[g->nvtx_idx].text_id
			    : 0;
	int err = 0, k;
	uint32_t i = u32map_get(&a->map, text, (uint32_t)a->n, &err);

	if (err)
		return err;
	if (i == a->n) {
		if (grow((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v)))
			return -ENOMEM;
		memset(&a->v[i], 0, sizeof(a->v[i]));
		a->v[i].text_id = text;
		a->n++;
	}
	for (k = 0; k < GS_CAUSE_COUNT; k++) {
		a->v[i].idle_by_cause[k] += cut->amt[k];
		if (cut->amt[k] > a->v[i].top_by_cause[k]) {
			a->v[i].top_by_cause[k] = cut->amt[k];
			a->v[i].tid_by_cause[k] =
			    g->explain_kind == GS_EXPLAIN_LAUNCH && g->explain_idx < c->in->n_apis
				? c->in->apis[g->explain_idx].tid
				: 0;
		}
	}
	return 0;
}

struct sstate {
	int64_t cur_end; /* ns, max end so far on the stream */
	uint32_t last;	 /* last op on the stream so far with a known launch call */
	uint32_t prev;	 /* last op on the stream so far (stream views only) */
	uint64_t count;
};

static int cmp_stream_result(const void *a, const void *b)
{
	const struct gs_stream_result *x = a, *y = b;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* One device's ops [a, b) seen two ways: the device view (holes in the
 * union of all streams, with the gap list) and the stream views (each
 * stream's own holes). They share nothing but the input, so they run on
 * two threads; each keeps its own stream map, because both need the
 * previous op of X's stream for the dependency rule. */
struct view_job {
	struct actx *c;
	struct gs_device_result *d;
	uint32_t a, b;
	int err;
};

/* Local index of op->stream in map/st (new streams appended, with
 * n_streams counting them); GS_NONE and *err set on failure. */
static uint32_t view_stream(struct u32map *map, struct sstate **st, size_t *st_cap,
			    size_t *n_streams, uint32_t stream, int *err)
{
	uint32_t si = u32map_get(map, stream, (uint32_t)*n_streams, err);

	if (*err)
		return GS_NONE;
	if (si == *n_streams) {
		if (grow((void **)st, st_cap, *n_streams + 1, sizeof(**st))) {
			*err = -ENOMEM;
			return GS_NONE;
		}
		memset(&(*st)[si], 0, sizeof((*st)[si]));
		(*st)[si].last = GS_NONE;
		(*st)[si].prev = GS_NONE;
		(*n_streams)++;
	}
	return si;
}

static void *device_view(void *arg)
{
	struct view_job *j = arg;
	struct actx *c = j->c;
	const struct gs_op *ops = c->ops;
	const uint32_t a = j->a, b = j->b;
	/* The timeline and the gap list are built here and stored in j->d
	 * at the end: the stream views, on the other thread, write beside
	 * them (j->d->streams), and sharing that cache line on every gap
	 * cost more than the rest of this loop (perf, 10M-op trace). */
	struct gs_timeline tl = j->d->tl;
	struct gs_gap *gaps = NULL;
	size_t n_gaps = 0;
	struct u32map map = {0};
	struct sstate *st = NULL;
	size_t st_cap = 0, n_streams = 0, gap_cap = 0, i;
	int64_t dev_end = 0;
	int err = 0;
	struct cg_cache cc;
	struct gap_keep keep = {NULL, 0, 0};
	struct nvtx_acc acc = {0};

	cg_cache_init(&cc);
	if (!c->opt->all_gaps && c->opt->top_n) {
		keep.cap = c->opt->top_n < b - a ? c->opt->top_n : b - a;
		keep.h = malloc(keep.cap * sizeof(int64_t));
		if (!keep.h) {
			err = -ENOMEM;
			goto out;
		}
	}
	/* Without a selection each op ends at most one gap: room for that
	 * many up front, as address space only (pages are touched as gaps
	 * are written), saves the copies of a doubling array - 100 MB of
	 * them on a 10M-op trace. */
	if (c->opt->all_gaps && !c->has_sel && b - a > 4096) {
		gaps = big_malloc((size_t)(b - a) * sizeof(*gaps));
		if (gaps)
			gap_cap = b - a;
	}
	tl.first = ops[a].start;
	for (i = a; i < b; i++) {
		const struct gs_op *op = &ops[i];
		uint32_t si = view_stream(&map, &st, &st_cap, &n_streams, op->stream, &err);
		struct gs_gap g;

		if (err)
			goto out;
		/* a hole in the union of all streams' ops */
		if (i > a && op->start > dev_end) {
			struct gap_cut cut;
			g.start = dev_end;
			g.end = op->start;
			classify_gap(c, &cc, g.start, (uint32_t)i, st[si].last, CG_NVTX, &g, &cut);
			err = add_gap(c, &cc, &tl, &g, &cut, &gaps, &n_gaps, &gap_cap,
				      c->opt->all_gaps ? NULL : &keep, 1, &acc);
			if (err)
				goto out;
		}
		if (i == a || op->end > dev_end)
			dev_end = op->end;
		if (sel_contains_op(c, op->start, op->end))
			tl.n_ops++;
		if (c->call_of[i] != GS_NONE)
			st[si].last = (uint32_t)i;
	}
	tl.last = dev_end;
	tl_finish(c, &tl);
out:
	j->d->tl = tl;
	j->d->gaps = gaps;
	j->d->n_gaps = n_gaps;
	j->d->nvtx_idle = acc.v;
	j->d->n_nvtx_idle = acc.n;
	u32map_free(&acc.map);
	free(keep.h);
	free(st);
	u32map_free(&map);
	j->err = err;
	return NULL;
}

/* The stream views; also fills c->stream_of[a, b) (local stream index,
 * in first-seen order: the caller renumbers by stream id). */
static void stream_views(struct view_job *j)
{
	struct actx *c = j->c;
	const struct gs_op *ops = c->ops;
	const uint32_t a = j->a, b = j->b;
	/* in locals until the end, like the device view's (device_view()) */
	struct gs_stream_result *streams = NULL;
	struct u32map map = {0};
	struct sstate *st = NULL;
	size_t st_cap = 0, sr_cap = 0, n_streams = 0, i, k;
	int err = 0;
	struct cg_cache cc;

	cg_cache_init(&cc);
	for (i = a; i < b; i++) {
		const struct gs_op *op = &ops[i];
		uint32_t si = view_stream(&map, &st, &st_cap, &n_streams, op->stream, &err);
		struct gs_gap g;

		if (err)
			goto out;
		if (si + 1 == n_streams && !st[si].count) {
			if (grow((void **)&streams, &sr_cap, n_streams, sizeof(*streams))) {
				err = -ENOMEM;
				goto out;
			}
			memset(&streams[si], 0, sizeof(streams[si]));
			streams[si].stream = op->stream;
			streams[si].tl.first = op->start;
			streams[si].tl.last = op->end;
		}
		c->stream_of[i] = si;
		if (st[si].count && op->start > st[si].cur_end) {
			struct gap_cut cut;
			g.start = st[si].cur_end;
			g.end = op->start;
			classify_gap(c, &cc, g.start, (uint32_t)i, st[si].last, CG_STREAM_VIEW, &g,
				     &cut);
			err = add_gap(c, &cc, &streams[si].tl, &g, &cut, NULL, NULL, NULL, NULL, 0,
				      NULL);
			if (err)
				goto out;
			/* the graph advice classifies this gap again from the
			 * end of the ops it walked since an occurrence began and
			 * the latest of them with a launch call: the same inputs
			 * when the predecessor has a call and ends last */
			if (st[si].last == st[si].prev && ops[st[si].prev].end == st[si].cur_end)
				c->sv_gap[i] = SV_GAP_SAME |
					       (cause_graph_removes(g.cause) ? SV_GAP_LAUNCH : 0) |
					       (cause_is_host_time(g.cause) ? SV_GAP_HOST : 0);
		}
		if (!st[si].count || op->end > st[si].cur_end)
			st[si].cur_end = op->end;
		if (c->call_of[i] != GS_NONE)
			st[si].last = (uint32_t)i;
		st[si].prev = (uint32_t)i;
		st[si].count++;
		if (sel_contains_op(c, op->start, op->end))
			streams[si].tl.n_ops++;
	}
	for (k = 0; k < n_streams; k++) {
		streams[k].tl.last = st[k].cur_end;
		tl_finish(c, &streams[k].tl);
	}
out:
	/* streams holds the first n_streams entries on every path (an entry
	 * is added before n_streams can count a second new stream) */
	j->d->streams = streams;
	j->d->n_streams = streams ? n_streams : 0;
	free(st);
	u32map_free(&map);
	j->err = err;
}

int device_pass(struct actx *c, struct gs_device_result *d, uint32_t a, uint32_t b)
{
	struct view_job dv = {.c = c, .d = d, .a = a, .b = b}, sv = dv;
	size_t n_streams, i, k;
	uint32_t *remap = NULL;
	pthread_t th;
	int err = 0, threaded;

	d->device = c->ops[a].device;
	d->first_op = a;
	d->end_op = b;
	/* the device view on a thread of its own (on a 10M-op trace each
	 * view is a second of binary searches), the stream views here */
	threaded = pthread_create(&th, NULL, device_view, &dv) == 0;
	stream_views(&sv);
	if (threaded)
		pthread_join(th, NULL);
	else
		device_view(&dv);
	err = dv.err ? dv.err : sv.err;
	if (err)
		goto out;
	n_streams = d->n_streams;

	/* streams by id, and stream_of renumbered to match */
	if (n_streams > 1) {
		uint32_t *old_ids = malloc(n_streams * sizeof(uint32_t));
		remap = malloc(n_streams * sizeof(uint32_t));
		if (!old_ids || !remap) {
			free(old_ids);
			err = -ENOMEM;
			goto out;
		}
		for (k = 0; k < n_streams; k++)
			old_ids[k] = d->streams[k].stream;
		qsort(d->streams, n_streams, sizeof(*d->streams), cmp_stream_result);
		/* stream ids are distinct: a binary search in the sorted list
		 * (a scan for each was quadratic with one kernel per stream) */
		for (k = 0; k < n_streams; k++) {
			size_t lo = 0, hi = n_streams;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (d->streams[mid].stream < old_ids[k])
					lo = mid + 1;
				else
					hi = mid;
			}
			remap[k] = (uint32_t)lo;
		}
		free(old_ids);
		for (i = a; i < b; i++)
			c->stream_of[i] = remap[c->stream_of[i]];
	}

	/* the top_n largest gaps, largest first; ties keep time order */
	if (c->opt->top_n && d->n_gaps) {
		size_t cap = c->opt->top_n < d->n_gaps ? c->opt->top_n : d->n_gaps;
		d->top_gaps = malloc(cap * sizeof(uint32_t));
		if (!d->top_gaps) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < d->n_gaps; i++) {
			int64_t len = d->gaps[i].end - d->gaps[i].start;
			size_t pos = d->n_top;
			while (pos > 0 && len > d->gaps[d->top_gaps[pos - 1]].end -
						    d->gaps[d->top_gaps[pos - 1]].start)
				pos--;
			if (pos >= cap)
				continue;
			if (d->n_top < cap)
				d->n_top++;
			memmove(&d->top_gaps[pos + 1], &d->top_gaps[pos],
				(d->n_top - 1 - pos) * sizeof(uint32_t));
			d->top_gaps[pos] = (uint32_t)i;
		}
	}
out:
	free(remap);
	return err;
}

void gs_result_free(struct gs_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->n_devices; i++) {
		free(res->devices[i].streams);
		free(res->devices[i].gaps);
		free(res->devices[i].top_gaps);
		free(res->devices[i].nvtx_idle);
	}
	free(res->devices);
	free(res->sel);
	free(res->launches);
	free(res->syncs);
	free(res->kernels);
	free(res->nvtx);
	for (i = 0; i < res->n_advice; i++) {
		free(res->advice[i].names);
		free(res->advice[i].kinds);
	}
	free(res->advice);
	free(res->corr_index);
	free(res->corr_sorted);
	free(res->call_of);
	if (res->host) {
		host_index_free(res->host);
		free(res->host);
	}
	free(res->polls);
	memset(res, 0, sizeof(*res));
}
