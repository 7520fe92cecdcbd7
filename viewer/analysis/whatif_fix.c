/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * whatif_fix.c - each verdict rule's fix as a transformation of the replay
 * model (whatif_int.h): it drops calls, makes blocking calls asynchronous,
 * shortens copies, turns a repeated launch sequence into graph replays,
 * removes host time or GPU-side waits. The replay (whatif.c) then says
 * what the timeline becomes. What each fix assumes is in docs/metrics.md,
 * "The what-if model". A fix writes only the model's arrays that
 * wm_fix_writes lists for it (the verdict's replays keep and put back
 * just those between two findings): a fix that writes another one adds it
 * there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h" /* big_malloc */
#include "whatif_int.h"

#include "gapscope/trace_format.h"

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* what blocking call a takes made asynchronous: a launch call's typical
 * duration, else (none in the trace) its own time after what it waited for */
static int64_t async_dur(const struct wm *m, uint32_t a)
{
	int64_t d = m->dur[a];
	uint32_t b = wm_ablk(m, a);

	if (m->api_typ >= 0)
		d = min64(m->dur[a], m->api_typ);
	else if (b != GS_NONE)
		d = min64(m->dur[a], m->blks[b].own > 0 ? m->blks[b].own : 0);
	/* tracing's part of the call stays (wm_call_cost) */
	return min64(m->dur[a], d + wm_call_cost(m, a));
}

static int blk_kind_is(const struct wm *m, uint32_t a, int k1, int k2, int k3)
{
	uint8_t k;

	if (!(m->af[a] & AF_BLK))
		return 0;
	k = m->blks[wm_ablk(m, a)].kind;
	return k == k1 || k == k2 || k == k3;
}

/* sync_every_step: of each explicit sync API called RULE_SYNC_MIN_CALLS
 * (20) times or more, one call of `every` stays on each thread (and the
 * thread's last one); the others are not made */
static int fix_sync_step(struct wm *m, int every, struct gs_whatif *w)
{
	uint32_t nn = m->in->strings.n + 1, t;
	uint64_t *count = calloc(nn, sizeof(uint64_t)), *seen = calloc(nn, sizeof(uint64_t));
	size_t i;

	if (!count || !seen) {
		free(count);
		free(seen);
		return -ENOMEM;
	}
	if (every < 1)
		every = 1;
	for (i = 0; i < m->na; i++)
		if ((m->af[i] & AF_TOP) &&
		    blk_kind_is(m, (uint32_t)i, GS_SYNC_EVENT, GS_SYNC_STREAM, GS_SYNC_CONTEXT)) {
			uint32_t nm = m->in->apis[i].name_id;
			count[nm < nn ? nm : 0]++;
		}
	for (t = 0; t < m->n_thr; t++) {
		uint32_t last = GS_NONE;
		memset(seen, 0, nn * sizeof(uint64_t));
		for (i = m->tfirst[t]; i < m->tfirst[t + 1]; i++) {
			uint32_t a = m->order[i], nm = m->in->apis[a].name_id;
			if (!(m->af[a] & AF_TOP) ||
			    !blk_kind_is(m, a, GS_SYNC_EVENT, GS_SYNC_STREAM, GS_SYNC_CONTEXT))
				continue;
			nm = nm < nn ? nm : 0;
			if (count[nm] < 20)
				continue;
			last = a;
			if (++seen[nm] % (uint64_t)every != 0) {
				m->af[a] |= AF_DROP;
				w->calls_dropped++;
			}
		}
		if (last != GS_NONE && (m->af[last] & AF_DROP)) {
			m->af[last] &= (uint8_t)~AF_DROP; /* the program's last sync stays */
			w->calls_dropped--;
		}
	}
	free(count);
	free(seen);
	return 0;
}

/* alloc_in_loop: the steady-state allocations and frees (implicit syncs
 * of kind 19) are not made: allocated once before the loop */
static void fix_alloc(struct wm *m, const uint32_t skip[2], struct gs_whatif *w)
{
	size_t i;

	/* skip: the APIs the verdict calls warm-up stay (HTA's simple_add
	 * trace: its 15 warm-up cudaFree calls dropped with the 18 cudaMalloc
	 * calls read as 8.27 s saved by a 273 ms finding); a cudaFree and a
	 * cudaMalloc of the steady state go together: allocated once, neither
	 * is made */
	for (i = 0; i < m->na; i++)
		if ((m->af[i] & AF_TOP) && !(m->af[i] & AF_DROP) &&
		    !(skip[0] && m->in->apis[i].name_id == skip[0]) &&
		    !(skip[1] && m->in->apis[i].name_id == skip[1]) &&
		    blk_kind_is(m, (uint32_t)i, GS_SYNC_IMPLICIT_ALLOC, -1, -1)) {
			m->af[i] |= AF_DROP;
			w->calls_dropped++;
		}
}

size_t wm_pairs_union(int64_t *v, size_t k)
{
	size_t i, u = 0;

	qsort(v, k, 2 * sizeof(int64_t), gs_cmp_i64); /* by start (pairs move whole) */
	for (i = 0; i < k; i++) {
		if (u && v[2 * i] <= v[2 * (u - 1) + 1]) {
			v[2 * (u - 1) + 1] = max64(v[2 * (u - 1) + 1], v[2 * i + 1]);
			continue;
		}
		v[2 * u] = v[2 * i];
		v[2 * u + 1] = v[2 * i + 1];
		u++;
	}
	return u;
}

uint32_t wm_range_at(const int64_t *u, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (u[2 * mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && t <= u[2 * (lo - 1) + 1] ? (uint32_t)(lo - 1) : GS_NONE;
}

/* start-sorted union of the NVTX ranges of text `text` (thread tid, 0:
 * any): 2n values; *n pairs */
static int64_t *range_union(const struct gs_input *in, uint32_t text, uint32_t tid, size_t *n)
{
	int64_t *v = malloc((in->n_nvtx ? in->n_nvtx : 1) * 2 * sizeof(int64_t));
	size_t i, k = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		if (r->kind != 0 || r->text_id != text || (tid && r->tid != tid))
			continue;
		v[2 * k] = r->start;
		v[2 * k + 1] = r->end;
		k++;
	}
	*n = wm_pairs_union(v, k);
	return v;
}

int64_t *wm_steps_union(const struct wm *m, size_t *n)
{
	struct gs_steps st;
	int64_t *u;
	size_t i;

	*n = 0;
	if (!m->res || gs_steps_find(m->res, &st) < 0) {
		*n = m->res != NULL;
		return NULL;
	}
	if (!st.n)
		return NULL;
	u = malloc(st.n * 2 * sizeof(int64_t));
	if (!u) {
		gs_steps_free(&st);
		*n = 1;
		return NULL;
	}
	for (i = 0; i < st.n; i++) {
		u[2 * i] = st.v[i].start;
		u[2 * i + 1] = st.v[i].end;
	}
	*n = wm_pairs_union(u, st.n);
	gs_steps_free(&st);
	return u;
}

/* sync_copies: synchronous copies and sets become async on a stream,
 * with one sync per step: the last of them in each step range (when the
 * trace has step ranges) still waits */
static int fix_sync_copy(struct wm *m, struct gs_whatif *w)
{
	size_t nu = 0, i;
	int64_t *u = wm_steps_union(m, &nu);
	uint32_t t;

	if (!u && nu)
		return -ENOMEM;
	for (t = 0; t < m->n_thr; t++) {
		uint32_t cand = GS_NONE, cand_r = GS_NONE;
		for (i = m->tfirst[t]; i <= m->tfirst[t + 1]; i++) {
			uint32_t a = i < m->tfirst[t + 1] ? m->order[i] : GS_NONE, r = GS_NONE;
			if (a != GS_NONE && (!(m->af[a] & AF_TOP) || (m->af[a] & AF_DROP) ||
					     !blk_kind_is(m, a, GS_SYNC_IMPLICIT_MEMCPY,
							  GS_SYNC_IMPLICIT_MEMSET, -1)))
				continue;
			if (a != GS_NONE)
				r = wm_range_at(u, nu, m->in->apis[a].start);
			if (cand != GS_NONE && (a == GS_NONE || r != cand_r) && cand_r != GS_NONE) {
				/* the step's last: it still waits */
				m->af[cand] &= (uint8_t)~AF_NOWAIT;
				m->dur[cand] = m->in->apis[cand].end - m->in->apis[cand].start;
				w->calls_unblocked--;
			}
			if (a == GS_NONE)
				break;
			m->af[a] |= AF_NOWAIT;
			m->dur[a] = async_dur(m, a);
			w->calls_unblocked++;
			cand = a;
			cand_r = r;
		}
	}
	free(u);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* pageable_copies: pinned host memory. The copy takes
 * GS_WHATIF_COPY_SETUP_NS + bytes / pinned bandwidth (where that is
 * shorter), starts a typical launch delay after its call (no staging),
 * and an async copy's call no longer waits. */
static int fix_pageable(struct wm *m, const struct gs_whatif_opts *o, struct gs_whatif *w)
{
	const struct gs_input *in = m->in;
	double bw = o->pinned_gbps;
	size_t i;

	if (bw <= 0 && o->op_bytes) {
		size_t n = 0;
		double *v = malloc((m->no ? m->no : 1) * sizeof(double));
		if (!v)
			return -ENOMEM;
		for (i = 0; i < m->no; i++) {
			const struct gs_op *op = &in->ops[i];
			if (op->kind == GS_OP_MEMCPY && !(op->flags & GS_OPF_PAGEABLE) &&
			    o->op_bytes[i] >= (1u << 20) && op->end > op->start)
				v[n++] = (double)o->op_bytes[i] / (double)(op->end - op->start);
		}
		if (n) {
			qsort(v, n, sizeof(double), cmp_double);
			bw = v[(n + 1) / 2 - 1];
			w->pinned_measured = 1;
		}
		free(v);
	}
	if (bw <= 0)
		bw = GS_WHATIF_PINNED_GBPS;
	if (o->op_bytes)
		w->pinned_gbps = bw;
	for (i = 0; i < m->no; i++) {
		const struct gs_op *op = &in->ops[i];
		if (op->kind != GS_OP_MEMCPY || !(op->flags & GS_OPF_PAGEABLE))
			continue;
		if (o->op_bytes && o->op_bytes[i]) {
			int64_t d =
			    GS_WHATIF_COPY_SETUP_NS + (int64_t)((double)o->op_bytes[i] / bw);
			if (d < wm_odur(m, (uint32_t)i)) {
				if (!m->odur) { /* the first duration changed */
					size_t j;
					m->odur = big_malloc((m->no ? m->no : 1) * sizeof(int64_t));
					if (!m->odur)
						return -ENOMEM;
					for (j = 0; j < m->no; j++)
						m->odur[j] = in->ops[j].end - in->ops[j].start;
				}
				m->odur[i] = d;
			}
		}
		m->of[i] |= OF_LAT_TYP; /* its delay: min(measured, lat_typ) */
		w->ops_changed++;
	}
	for (i = 0; i < m->na; i++)
		if ((m->af[i] & AF_TOP) && !(m->af[i] & (AF_DROP | AF_NOWAIT)) &&
		    blk_kind_is(m, (uint32_t)i, GS_SYNC_IMPLICIT_PAGEABLE, -1, -1)) {
			m->af[i] |= AF_NOWAIT;
			m->dur[i] = async_dur(m, (uint32_t)i);
			w->calls_unblocked++;
		}
	return 0;
}

static int passable(const struct wm *m, uint32_t a);

/* One occurrence ops seq[0..len) as one graph launch: the first op's
 * call launches the graph (the calibration's untraced graph launch cost
 * where the trace has one, else that call's own duration), the other
 * launch calls are not made and the host time between them goes (the
 * host no longer runs the step), each later op follows the one before it
 * by the trace's per-node cost. 1 done, -ENOMEM, 0 not (an op without its own
 * launch call, in a graph already, a blocking launch, several threads). */
static int graph_occurrence(struct wm *m, const uint32_t *seq, size_t len, struct gs_whatif *w)
{
	const struct gs_input *in = m->in;
	uint32_t c1, cl, t;
	size_t k, p0, p1;

	for (k = 0; k < len; k++) {
		uint32_t c = m->call_of[seq[k]];
		if (c == GS_NONE || in->ops[seq[k]].graph_id || (m->of[seq[k]] & OF_FOLDED) ||
		    (m->af[m->top[c]] & (AF_BLK | AF_DROP)) || (k && m->pred[seq[k]] != seq[k - 1]))
			return 0;
		if (m->ops_first[m->top[c] + 1] - m->ops_first[m->top[c]] != 1)
			return 0;
		if (k && wm_thr(m, m->top[c]) != wm_thr(m, m->top[m->call_of[seq[0]]]))
			return 0;
	}
	c1 = m->top[m->call_of[seq[0]]];
	cl = m->top[m->call_of[seq[len - 1]]];
	t = wm_thr(m, c1);
	/* the graph launch call: as the trace's own graph launches took (per
	 * op), else the calibration's untraced one, else the first call's */
	if (m->graph_call_per_op >= 0)
		m->dur[c1] = max64(0, m->graph_call_per_op * (int64_t)len - m->graph_call_ns);
	else if (in->cal.have && in->cal.plain_graph_ns >= 0 && in->cal.plain_graph_node_ns >= 0)
		m->dur[c1] = in->cal.plain_graph_ns + (int64_t)len * in->cal.plain_graph_node_ns;
	/* seq[0] waits graph_lat where the trace has graph launches
	 * (wm_olat: OF_FOLDED without OF_NOLAUNCH) */
	if (m->want_corr && !m->ocorr) {
		m->ocorr = calloc(m->no ? m->no : 1, sizeof(uint32_t));
		if (!m->ocorr)
			return -ENOMEM;
	}
	m->af[c1] |= AF_GRAPH;
	if (m->ocorr)
		m->ocorr[seq[0]] = in->apis[c1].corr;
	m->of[seq[0]] |= OF_FOLDED;
	p0 = m->apos[c1];
	p1 = m->apos[cl];
	for (k = p0 + 1; k <= p1 && k < m->tfirst[t + 1]; k++) {
		uint32_t a = m->order[k];
		if (!(m->af[a] & AF_TOP))
			continue;
		/* a graph removes the launching, not the program's own work
		 * between launches (py_work_loop.py's numpy step, 0.7 ms a gap:
		 * replayed away it gave 'saves 89%' in a loop 68% its own work) */
		if (wm_gap(m, a) < m->own_ns)
			m->af[a] |= AF_NOGAP;
		/* the step's other calls that a capture passes over: the
		 * replay does not make them either */
		if (passable(m, a) && !(m->af[a] & AF_DROP)) {
			m->af[a] |= AF_DROP;
			w->calls_dropped++;
		}
	}
	for (k = 1; k < len; k++) {
		uint32_t x = seq[k], c = m->top[m->call_of[x]];
		if (!(m->af[c] & AF_DROP)) {
			m->af[c] |= AF_DROP;
			w->calls_dropped++;
		}
		/* follows the node before by the graph node overhead (wm_opg) */
		m->of[x] |= OF_NOLAUNCH;
		m->of[x] &= (uint8_t) ~(OF_PRED_START | OF_PG_TYP);
		if (m->ocorr)
			m->ocorr[x] = in->apis[c1].corr;
		m->of[x] |= OF_FOLDED;
		w->ops_changed++;
	}
	w->graph_replays++;
	return 1;
}

/* op x is element 0 of advice g's sequence */
static int same_token(const struct gs_input *in, uint32_t x, const struct gs_graph_advice *g)
{
	const struct gs_op *o = &in->ops[x];

	return o->kind == g->kinds[0] && (o->kind != GS_OP_KERNEL || o->name_id == g->names[0]);
}

/* a top-level call a stream capture passes over: it waits for nothing,
 * launches nothing and polls nothing (cudaGetLastError between launches,
 * cudaEventRecord); a graph replay does not make it */
static int passable(const struct wm *m, uint32_t a)
{
	const char *name;

	if ((m->af[a] & AF_BLK) || m->ops_first[a + 1] != m->ops_first[a])
		return 0;
	name = gs_str(&m->in->strings, m->in->apis[a].name_id, NULL);
	return name &&
	       !(gs_api_classify(name) & (GS_APIF_POLL | GS_APIF_LAUNCH | GS_APIF_HOST_FUNC));
}

/* y's launch call is the next top-level call of x's call's thread, but
 * for calls a capture passes over */
static int next_launch(const struct wm *m, uint32_t x, uint32_t y)
{
	uint32_t cx = m->call_of[x], cy = m->call_of[y];
	size_t k, lim;

	if (cx == GS_NONE || cy == GS_NONE)
		return 0;
	cx = m->top[cx];
	cy = m->top[cy];
	lim = m->tfirst[wm_thr(m, cx) + 1];
	if (m->apos[cy] < m->apos[cx] || m->apos[cy] >= lim)
		return 0; /* another thread's, or before x's */
	for (k = m->apos[cx] + 1; k < lim; k++) {
		uint32_t a = m->order[k];
		if (!(m->af[a] & AF_TOP) || (a != cy && passable(m, a)))
			continue;
		return a == cy;
	}
	return 0;
}

/* x can be a node of a captured run: its own launch call, one op per
 * call, no wait in it, not in a graph already */
static int run_eligible(const struct wm *m, uint32_t x)
{
	uint32_t c = m->call_of[x];

	if (c == GS_NONE || m->in->ops[x].graph_id || (m->of[x] & OF_FOLDED))
		return 0;
	c = m->top[c];
	return !(m->af[c] & (AF_BLK | AF_DROP)) && m->ops_first[c + 1] - m->ops_first[c] == 1;
}

/* the ops by stream, each stream's in index order: sq[first[sid] ..
 * first[sid + 1]) (a counting sort) */
struct by_stream {
	uint32_t *sq, *first;
};

static int by_stream_make(const struct wm *m, struct by_stream *bs)
{
	uint32_t sid;
	size_t i;

	bs->sq = big_malloc((m->no ? m->no : 1) * sizeof(uint32_t));
	bs->first = calloc((size_t)m->n_streams + 1, sizeof(uint32_t));
	if (!bs->sq || !bs->first) {
		free(bs->sq);
		free(bs->first);
		return -ENOMEM;
	}
	for (i = 0; i < m->no; i++)
		bs->first[m->osid[i] + 1]++;
	for (sid = 0; sid < m->n_streams; sid++)
		bs->first[sid + 1] += bs->first[sid];
	for (i = 0; i < m->no; i++)
		bs->sq[bs->first[m->osid[i]]++] = (uint32_t)i;
	for (sid = m->n_streams; sid > 0; sid--)
		bs->first[sid] = bs->first[sid - 1];
	bs->first[0] = 0;
	return 0;
}

/* the first position of bs's list [lo, hi) whose op is x or after it */
static size_t by_stream_at(const struct by_stream *bs, size_t lo, size_t hi, uint32_t x)
{
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (bs->sq[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int fix_runs(struct wm *m, const struct by_stream *bs, struct gs_whatif *w)
{
	const uint32_t *seq = bs->sq;
	uint32_t sid;

	for (sid = 0; sid < m->n_streams; sid++) {
		size_t p = bs->first[sid], n = bs->first[sid + 1];
		while (p < n) {
			size_t q = p + 1;
			if (!run_eligible(m, seq[p])) {
				p++;
				continue;
			}
			while (q < n && run_eligible(m, seq[q]) && m->pred[seq[q]] == seq[q - 1] &&
			       next_launch(m, seq[q - 1], seq[q]))
				q++;
			if (q - p >= 2 && graph_occurrence(m, seq + p, q - p, w) < 0)
				return -ENOMEM;
			p = q;
		}
	}
	return 0;
}

/* launch_overhead / short_kernels: each repeated sequence the graph
 * advice found (saving > 0) replayed as CUDA Graph launches. The
 * occurrences are found again on the advice's stream: exact repeats of
 * its sequence, walked from its first occurrence. */
static int fix_graphs(struct wm *m, struct gs_whatif *w)
{
	const struct gs_result *res = m->res;
	const struct gs_input *in = m->in;
	struct by_stream bs;
	size_t a;
	int rc = -ENOMEM;

	if (by_stream_make(m, &bs) < 0)
		return -ENOMEM;
	for (a = 0; a < res->n_advice; a++) {
		const struct gs_graph_advice *g = &res->advice[a];
		const uint32_t *seq;
		uint32_t d, sid;
		size_t n, p, lo;
		if (g->saving <= 0 || g->length < 1 || g->first_op_idx >= m->no)
			continue;
		for (d = 0; d < m->n_dev; d++)
			if (g->first_op_idx >= m->dfirst[d] && g->first_op_idx < m->dfirst[d + 1])
				break;
		if (d == m->n_dev || in->ops[g->first_op_idx].stream != g->stream)
			continue; /* its first op is on its stream (gs_graph_advice) */
		/* the ops of the stream from the first occurrence to the
		 * device's last: a slice of the stream's list */
		sid = m->osid[g->first_op_idx];
		lo = by_stream_at(&bs, bs.first[sid], bs.first[sid + 1], (uint32_t)g->first_op_idx);
		seq = bs.sq + lo;
		n = by_stream_at(&bs, lo, bs.first[sid + 1], m->dfirst[d + 1]) - lo;
		if (g->length == 1) {
			/* a run of one kernel launched back to back (no other call
			 * of the thread between two launches) is captured whole: a
			 * one-op graph per launch would buy nothing */
			for (p = 0; p < n;) {
				size_t q = p + 1;
				while (q < n && same_token(in, seq[q], g) &&
				       same_token(in, seq[p], g) &&
				       next_launch(m, seq[q - 1], seq[q]))
					q++;
				if (q - p >= 2 && graph_occurrence(m, seq + p, q - p, w) < 0)
					goto out;
				p = q;
			}
			continue;
		}
		for (p = 0; p + g->length <= n;) {
			size_t k;
			for (k = 0; k < g->length; k++) {
				const struct gs_op *o = &in->ops[seq[p + k]];
				if (o->kind != g->kinds[k] ||
				    (o->kind == GS_OP_KERNEL ? o->name_id : 0) !=
					(g->kinds[k] == GS_OP_KERNEL ? g->names[k] : 0))
					break;
			}
			if (k == g->length) {
				if (graph_occurrence(m, seq + p, g->length, w) < 0)
					goto out;
				p += g->length;
			} else {
				p++;
			}
		}
	}
	rc = fix_runs(m, &bs, w);
out:
	free(bs.sq);
	free(bs.first);
	return rc;
}

/* host_code: the host's own time between CUDA calls on the launching
 * threads (thread o->host_tid, else all that launch), inside the NVTX
 * ranges of text o->host_nvtx_id when given, goes, where shorter than
 * GS_HOST_STALL_NS (longer stretches are host stalls, another rule's) */
static int fix_host_code(struct wm *m, const struct gs_whatif_opts *o, struct gs_whatif *w)
{
	size_t nu = 0, i;
	int64_t *u = NULL;
	uint32_t t;

	if (o->host_nvtx_id) {
		/* the finding's range on its thread, else on any thread, as
		 * the gap model names a gap's range (analysis.c, classify_gap):
		 * PyTorch's backward thread opens no range of its own, and its
		 * host code lies in the main thread's "## backward ##" (PARAM's
		 * DLRM: the finding's 2.5 ms replayed as nothing to fix) */
		u = range_union(m->in, o->host_nvtx_id, o->host_tid, &nu);
		if (u && !nu && o->host_tid) {
			free(u);
			u = range_union(m->in, o->host_nvtx_id, 0, &nu);
		}
		if (!u)
			return -ENOMEM;
	}
	/* an imported trace's operator spans tell the framework's dispatch
	 * from the program's own work, as the verdict splits them (verdict.c):
	 * by size alone, HTA's event-sync trace's host_code fix removed the
	 * 72 us the verdict calls own work, and saved 156 us of a 68 us
	 * finding */
	int spans = gs_has_op_spans(m->in);

	for (t = 0; t < m->n_thr; t++) {
		int launches = 0;
		if (o->host_tid && m->thr_tid[t] != o->host_tid)
			continue;
		for (i = m->tfirst[t]; i < m->tfirst[t + 1] && !launches; i++)
			launches = (m->af[m->order[i]] & AF_LAUNCH) != 0;
		if (!launches)
			continue;
		for (i = m->tfirst[t]; i < m->tfirst[t + 1]; i++) {
			uint32_t a = m->order[i];
			int64_t gap;
			int own;
			if (!(m->af[a] & AF_TOP))
				continue;
			gap = wm_gap(m, a);
			if ((m->af[a] & AF_FIRST) || gap <= 0 || gap >= GS_HOST_STALL_NS)
				continue;
			/* host_code (the launching: fusion, graphs) removes the
			 * gaps shorter than the program's own work; host_own_work
			 * (moved off the step) those of own work; both: all.
			 * With operator spans: the framework's against the rest */
			own = spans ? !gs_host_framework_at(m->in, m->thr_tid[t],
							     m->in->apis[a].start - gap,
							     m->in->apis[a].start)
				    : gap >= m->own_ns;
			if (!(o->fixes & (1u << GS_RULE_HOST_OWN)) && own)
				continue;
			if (!(o->fixes & (1u << GS_RULE_HOST_CODE)) && !own)
				continue;
			if (u && wm_range_at(u, nu, m->in->apis[a].start) == GS_NONE)
				continue;
			m->af[a] |= AF_NOGAP;
			w->host_gaps++;
		}
	}
	free(u);
	return 0;
}

/* ns of the host time before top call a (wm_gap) inside [from, to] */
static int64_t gap_inside(const struct wm *m, uint32_t a, int64_t from, int64_t to)
{
	int64_t s = m->in->apis[a].start, e, g = wm_gap(m, a);

	if (g <= 0)
		return 0;
	e = s - g; /* where the host time before it began (as recorded, less cuts) */
	return max64(min64(s, to) - max64(e, from), 0);
}

/* share go of every thread's host time inside [from, to] goes (gap_fix):
 * each thread's calls from the first after from to the first after to.
 * input_wait's stalls and host_stalls' operator spans: the other launching
 * threads wait through them too. 0 or -ENOMEM. */
static int take_host(struct wm *m, int64_t from, int64_t to, double go)
{
	uint32_t t, p;

	if (!m->gap_fix && !(m->gap_fix = big_calloc(m->na ? m->na : 1, sizeof(int64_t))))
		return -ENOMEM;
	for (t = 0; t < m->n_thr; t++)
		for (p = wm_thr_after(m, t, from); p < m->tfirst[t + 1]; p++) {
			uint32_t a = m->order[p];
			if (m->af[a] & AF_TOP)
				m->gap_fix[a] += (int64_t)((double)gap_inside(m, a, from, to) * go);
			if (m->in->apis[a].start > to)
				break;
		}
	return 0;
}

/* input_wait: each input stall (a device gap that ends at an upload, with
 * GS_HOST_STALL_NS of the uploading thread's host time or more in it, not
 * start-up: gs_startup_gap) is taken out of the host time of every thread
 * but o->input_keep of it: the batch is there when asked. Every thread's,
 * not only the uploading one's: the other launching threads wait through
 * the stall too (PyTorch's backward thread idles from one step's end to
 * the next step's backward; kept, a training loop's 59 stalls of 73 ms
 * in all replayed as 2.5 ms saved, H100, 2026-12-08). */
static int fix_input(struct wm *m, const struct gs_whatif_opts *o, struct gs_whatif *w)
{
	const struct gs_input *in = m->in;
	double go = 1.0 - (o->input_keep > 0.0 ? (o->input_keep < 1.0 ? o->input_keep : 1.0) : 0.0);
	int64_t first = m->res ? m->res->first_range : INT64_MAX;
	uint32_t d, x;

	if (go <= 0.0)
		return 0;
	for (d = 0; d < m->n_dev; d++) {
		int64_t busy = INT64_MIN; /* the device's ops' latest end so far */
		for (x = m->dfirst[d]; x < m->dfirst[d + 1]; busy = max64(busy, in->ops[x].end), x++) {
			const struct gs_op *op = &in->ops[x];
			uint32_t c = m->call_of[x], t, p;
			int64_t host = 0;
			if (!(op->flags & GS_OPF_HOST_SRC) || c == GS_NONE || busy == INT64_MIN ||
			    op->start <= busy)
				continue;
			if (gs_startup_gap(first, &(struct gs_gap){.start = busy, .end = op->start}))
				continue; /* start-up */
			/* the uploading thread's host time in the gap */
			t = wm_thr(m, c);
			for (p = wm_thr_after(m, t, busy); p < m->tfirst[t + 1]; p++) {
				uint32_t a = m->order[p];
				if (in->apis[a].start > op->start)
					break;
				if (m->af[a] & AF_TOP)
					host += gap_inside(m, a, busy, op->start);
			}
			if (host < GS_HOST_STALL_NS)
				continue;
			if (take_host(m, busy, op->start, go) < 0)
				return -ENOMEM;
			w->host_gaps++;
		}
	}
	return 0;
}

/* host_stalls with the operator their fix removes (o->host_op_id: DDP's
 * buffer broadcast, gs_host_stall_fix): the host time its spans hold
 * goes, on every thread, as input_wait's stalls: the other launching
 * threads wait through it too (PyTorch's backward thread until the
 * forward is done; on its own thread alone, HTA's 2-rank NCCL trace's 6
 * unflattens of 67.5 ms replayed as 14.1 ms saved, its median step 22.6
 * ms shorter). The CUDA calls inside a span stay (the broadcast's
 * collective is kept: its kernel is the GPU's, not the stall's). */
static int fix_host_op(struct wm *m, const struct gs_whatif_opts *o, struct gs_whatif *w)
{
	const struct gs_input *in = m->in;
	size_t i;

	for (i = 0; o->host_op_id && i < in->n_hranges; i++) {
		const struct gs_hrange *h = &in->hranges[i];
		if (h->name_id != o->host_op_id || h->end <= h->start)
			continue;
		if (h->parent < in->n_hranges && in->hranges[h->parent].name_id == h->name_id)
			continue; /* inside one of its own: counted there */
		if (take_host(m, h->start, h->end, 1.0) < 0)
			return -ENOMEM;
		w->host_gaps++;
	}
	return 0;
}

/* legacy_stream: created streams: no op waits for the legacy default
 * stream's serialisation any more */
static void fix_legacy(struct wm *m, struct gs_whatif *w)
{
	size_t i;

	for (i = 0; i < m->nd; i++) /* one entry per op that has any */
		if (m->dblks[i].kind == DEP_LEGACY && m->dblks[i].n) {
			m->dblks[i].n = 0;
			w->ops_changed++;
		}
}

/* communication: collectives overlap the compute: no op waits for one on
 * the GPU (stream waits drop them; an op after one on its stream follows
 * the op before the collectives by the typical hole). Host syncs still
 * wait for them (the step's end needs the result). */
static void fix_comm(struct wm *m, struct gs_whatif *w)
{
	size_t i;

	for (i = 0; i < m->nd; i++) { /* the ops' waits: one entry per op */
		struct wblk *b = &m->dblks[i];
		uint32_t q, k = 0;
		for (q = 0; q < b->n; q++)
			if (!wm_is_coll(m, m->pool[b->first + q]))
				m->pool[b->first + k++] = m->pool[b->first + q];
		if (k != b->n) {
			b->n = k;
			w->ops_changed++;
		}
	}
	for (i = 0; i < m->no; i++) {
		uint32_t p = m->pred[i];
		if (p == GS_NONE || !wm_is_coll(m, p) || wm_is_coll(m, (uint32_t)i))
			continue;
		while (p != GS_NONE && wm_is_coll(m, p))
			p = m->pred[p];
		m->pred[i] = p;
		m->of[i] |= OF_PG_TYP; /* its hole: pg_typ (wm_opg) */
		m->of[i] &= (uint8_t)~OF_PRED_START;
		w->ops_changed++;
	}
}

uint32_t wm_fix_writes(uint32_t fixes)
{
	static const struct {
		uint32_t fixes, writes;
	} w[] = {
	    {1u << GS_RULE_SYNC_STEP, WW_AF},	       /* fix_sync_step */
	    {1u << GS_RULE_ALLOC, WW_AF},	       /* fix_alloc */
	    {1u << GS_RULE_SYNC_COPY, WW_AF | WW_DUR}, /* fix_sync_copy */
	    {1u << GS_RULE_PAGEABLE,
	     WW_AF | WW_DUR | WW_OF | WW_ODUR},			     /* fix_pageable (and odur) */
	    {(1u << GS_RULE_LAUNCH) | (1u << GS_RULE_SHORT_KERNELS), /* fix_graphs */
	     WW_AF | WW_DUR | WW_OF},
	    {(1u << GS_RULE_HOST_CODE) | (1u << GS_RULE_HOST_OWN), WW_AF},	/* fix_host_code */
	    {1u << GS_RULE_LEGACY, WW_DN},					/* fix_legacy */
	    {1u << GS_RULE_INPUT_WAIT, 0}, /* fix_input: gap_fix, dropped at restore */
	    {1u << GS_RULE_HOST_STALL, 0}, /* fix_host_op: the same */
	    {1u << GS_WHATIF_COMMUNICATION, WW_OF | WW_PRED | WW_POOL | WW_DN}, /* fix_comm */
	};
	uint32_t r = 0;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (fixes & w[i].fixes)
			r |= w[i].writes;
	return r;
}

int wm_apply_fixes(struct wm *m, const struct gs_whatif_opts *o, struct gs_whatif *w)
{
	int rc = 0;

	if (o->fixes & (1u << GS_RULE_SYNC_STEP))
		rc = fix_sync_step(m, o->sync_every, w);
	if (!rc && (o->fixes & (1u << GS_RULE_ALLOC)))
		fix_alloc(m, o->alloc_skip, w);
	if (!rc && (o->fixes & (1u << GS_RULE_SYNC_COPY)))
		rc = fix_sync_copy(m, w);
	if (!rc && (o->fixes & (1u << GS_RULE_PAGEABLE)))
		rc = fix_pageable(m, o, w);
	if (!rc && (o->fixes & ((1u << GS_RULE_LAUNCH) | (1u << GS_RULE_SHORT_KERNELS))))
		rc = fix_graphs(m, w);
	if (!rc && (o->fixes & ((1u << GS_RULE_HOST_CODE) | (1u << GS_RULE_HOST_OWN))))
		rc = fix_host_code(m, o, w);
	if (!rc && (o->fixes & (1u << GS_RULE_INPUT_WAIT)))
		rc = fix_input(m, o, w);
	if (!rc && (o->fixes & (1u << GS_RULE_HOST_STALL)))
		rc = fix_host_op(m, o, w);
	if (!rc && (o->fixes & (1u << GS_RULE_LEGACY)))
		fix_legacy(m, w);
	if (!rc && (o->fixes & (1u << GS_WHATIF_COMMUNICATION)))
		fix_comm(m, w);
	return rc;
}
