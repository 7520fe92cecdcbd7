/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * host_cover.c - what each host thread was doing, as covers: per thread,
 * the union of its CUDA API calls and blocking syncs ("all"), and the union
 * of its blocking syncs alone ("sync"), each a sorted list of disjoint
 * intervals with prefix sums of their lengths, so that the time a thread
 * spent inside CUDA calls, or blocked in syncs, within any [a, b) is two
 * lookups. Gap model v2 cuts the host-late part of a gap with them
 * (docs/metrics.md): sync wait = sync cover, CUDA API = all cover less the
 * sync cover, host code = the rest. The all cover also carries the time in
 * launch calls, for the launch overhead share.
 *
 * A blocking sync is a row of the syncs table other than a stream wait
 * (which blocks no host), a poll (cudaEventQuery, cudaStreamQuery: they
 * return at once), a host function call, or a kernel or graph launch (a
 * legacy-default-stream launch that CUPTI also reports as a sync is a
 * launch, not a wait of the host). Synchronous copies and sets block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* index of tid in the sorted tids, or GS_NONE */
static uint32_t thread_of(const struct host_index *h, uint32_t tid)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->n && h->t[lo].tid == tid ? (uint32_t)lo : GS_NONE;
}

uint32_t host_thread_of(const struct host_index *h, uint32_t tid, uint32_t *hint)
{
	uint32_t k;

	if (*hint < h->n && h->t[*hint].tid == tid)
		return *hint;
	k = thread_of(h, tid);
	if (k != GS_NONE)
		*hint = k;
	return k;
}

/* the interval list being built for one cover */
struct cover_build {
	struct cover *c;
	size_t cap;
	int64_t launch_end; /* ns, end of the launch calls' union so far */
	int64_t launch_cum; /* ns, launch time of the entries so far (all cover) */
};

static int cover_push(struct cover_build *b, int64_t s, int64_t e, uint32_t idx, int launch,
		      int with_launch)
{
	struct cover *c = b->c;

	if (e < s)
		e = s;
	if (c->n && s <= c->v[c->n - 1].end) { /* overlaps or touches: merge */
		if (e > c->v[c->n - 1].end)
			c->v[c->n - 1].end = e;
	} else {
		if (c->n == b->cap) {
			size_t ncap = b->cap ? 2 * b->cap : 16;
			struct cover_ent *nv = realloc(c->v, ncap * sizeof(*nv));
			int64_t *nl = NULL;
			if (!nv)
				return -ENOMEM;
			c->v = nv;
			if (with_launch) {
				nl = realloc(c->cum_launch, (ncap + 1) * sizeof(*nl));
				if (!nl)
					return -ENOMEM;
				c->cum_launch = nl;
			}
			b->cap = ncap;
		}
		c->v[c->n].start = s;
		c->v[c->n].end = e;
		c->v[c->n].cum = c->n ? c->v[c->n - 1].cum + (c->v[c->n - 1].end -
							     c->v[c->n - 1].start)
				      : 0;
		c->v[c->n].idx = idx;
		if (with_launch)
			c->cum_launch[c->n] = b->launch_cum;
		c->n++;
	}
	if (launch && with_launch) {
		/* the launch calls' own union, inside the entry just grown */
		int64_t from = s > b->launch_end ? s : b->launch_end;
		if (e > from)
			b->launch_cum += e - from;
		if (e > b->launch_end)
			b->launch_end = e;
	}
	return 0;
}

static void cover_close(struct cover_build *b, int with_launch)
{
	if (with_launch && b->c->cum_launch)
		b->c->cum_launch[b->c->n] = b->launch_cum;
}

/* sort one thread's list of source indexes by start when it is not
 * (the loader's order is by row, which is by start within a thread in
 * practice, so this is a check) */
static const struct gs_api *sort_apis;
static int cmp_api_start(const void *a, const void *b)
{
	const struct gs_api *x = &sort_apis[*(const uint32_t *)a];
	const struct gs_api *y = &sort_apis[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}
static const struct gs_sync *sort_syncs;
static int cmp_sync_start(const void *a, const void *b)
{
	const struct gs_sync *x = &sort_syncs[*(const uint32_t *)a];
	const struct gs_sync *y = &sort_syncs[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

int host_sync_blocks(const struct actx *c, size_t i)
{
	const struct gs_sync *s = &c->in->syncs[i];
	const char *name;
	uint8_t cls;

	if (s->kind == 2 /* GS_SYNC_STREAM_WAIT_EVENT */)
		return 0;
	name = gs_str(&c->in->strings, s->api_name_id, NULL);
	cls = gs_api_classify(name);
	if (cls & (GS_APIF_POLL | GS_APIF_HOST_FUNC))
		return 0;
	/* a kernel or graph launch is no wait of the host, even where CUPTI
	 * reports one on the legacy default stream; a synchronous copy or
	 * set (also "launch" calls: they put work on a stream) is */
	return !(cls & GS_APIF_KERNEL_LAUNCH) &&
	       !(name && (!strncmp(name, "cudaGraphLaunch", 15) || !strncmp(name, "cuGraphLaunch", 13) ||
			  !strncmp(name, "cudaLaunch", 10) || !strncmp(name, "cuLaunch", 8)));
}

int host_index_build(struct actx *c, struct host_index *h)
{
	const struct gs_input *in = c->in;
	uint32_t *tids = NULL, *api_ix = NULL, *sync_ix = NULL, hint = 0;
	size_t *api_off = NULL, *sync_off = NULL, *fill = NULL;
	size_t nt = 0, i, k;
	uint8_t *blocks = NULL;
	int rc = -ENOMEM;

	memset(h, 0, sizeof(*h));
	/* the distinct threads, kept sorted as they are met (threads are few;
	 * consecutive calls are mostly on one thread) */
	blocks = malloc(in->n_syncs + 1);
	if (!blocks)
		goto out;
	for (i = 0; i < in->n_syncs; i++)
		blocks[i] = (uint8_t)host_sync_blocks(c, i);
	{
		size_t cap = 0, total = in->n_apis + in->n_syncs;
		uint32_t last = 0;
		int have = 0;
		for (i = 0; i < total; i++) {
			uint32_t tid;
			size_t lo = 0, hi = nt;
			if (i < in->n_apis) {
				tid = in->apis[i].tid;
			} else {
				if (!blocks[i - in->n_apis])
					continue;
				tid = in->syncs[i - in->n_apis].tid;
			}
			if (have && tid == last)
				continue;
			have = 1;
			last = tid;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (tids[mid] < tid)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < nt && tids[lo] == tid)
				continue;
			if (nt == cap) {
				size_t ncap = cap ? 2 * cap : 16;
				uint32_t *nv = realloc(tids, ncap * sizeof(uint32_t));
				if (!nv)
					goto out;
				tids = nv;
				cap = ncap;
			}
			memmove(tids + lo + 1, tids + lo, (nt - lo) * sizeof(uint32_t));
			tids[lo] = tid;
			nt++;
		}
	}
	h->t = calloc(nt ? nt : 1, sizeof(*h->t));
	api_off = calloc(nt + 1, sizeof(size_t));
	sync_off = calloc(nt + 1, sizeof(size_t));
	fill = calloc(nt + 1, sizeof(size_t));
	api_ix = malloc((in->n_apis + 1) * sizeof(uint32_t));
	sync_ix = malloc((in->n_syncs + 1) * sizeof(uint32_t));
	if (!h->t || !api_off || !sync_off || !fill || !api_ix || !sync_ix)
		goto out;
	h->n = nt;
	for (i = 0; i < nt; i++)
		h->t[i].tid = tids[i];
	/* counting sort by thread, keeping the input order within one */
	for (i = 0; i < in->n_apis; i++)
		api_off[host_thread_of(h, in->apis[i].tid, &hint) + 1]++;
	for (i = 0; i < in->n_syncs; i++)
		if (blocks[i])
			sync_off[host_thread_of(h, in->syncs[i].tid, &hint) + 1]++;
	for (i = 0; i < nt; i++) {
		api_off[i + 1] += api_off[i];
		sync_off[i + 1] += sync_off[i];
	}
	memcpy(fill, api_off, nt * sizeof(size_t));
	for (i = 0; i < in->n_apis; i++)
		api_ix[fill[host_thread_of(h, in->apis[i].tid, &hint)]++] = (uint32_t)i;
	memcpy(fill, sync_off, nt * sizeof(size_t));
	for (i = 0; i < in->n_syncs; i++)
		if (blocks[i])
			sync_ix[fill[host_thread_of(h, in->syncs[i].tid, &hint)]++] = (uint32_t)i;

	for (k = 0; k < nt; k++) {
		uint32_t *a = api_ix + api_off[k], *s = sync_ix + sync_off[k];
		size_t na = api_off[k + 1] - api_off[k], ns = sync_off[k + 1] - sync_off[k];
		size_t ia = 0, is = 0;
		struct cover_build ball = {.c = &h->t[k].all, .launch_end = INT64_MIN};
		struct cover_build bsync = {.c = &h->t[k].sync};

		/* room for every row up front (merging only shrinks): no
		 * copies of a growing array */
		ball.cap = na + ns + 1;
		bsync.cap = ns + 1;
		h->t[k].all.v = big_malloc(ball.cap * sizeof(struct cover_ent));
		h->t[k].all.cum_launch = big_malloc((ball.cap + 1) * sizeof(int64_t));
		h->t[k].sync.v = malloc(bsync.cap * sizeof(struct cover_ent));
		if (!h->t[k].all.v || !h->t[k].all.cum_launch || !h->t[k].sync.v)
			goto out;

		for (i = 1; i < na; i++)
			if (in->apis[a[i]].start < in->apis[a[i - 1]].start)
				break;
		if (i < na) {
			sort_apis = in->apis;
			qsort(a, na, sizeof(uint32_t), cmp_api_start);
		}
		for (i = 1; i < ns; i++)
			if (in->syncs[s[i]].start < in->syncs[s[i - 1]].start)
				break;
		if (i < ns) {
			sort_syncs = in->syncs;
			qsort(s, ns, sizeof(uint32_t), cmp_sync_start);
		}
		/* all: the calls and the blocking syncs, merged in start order */
		while (ia < na || is < ns) {
			int take_api = is == ns ||
				       (ia < na && in->apis[a[ia]].start <= in->syncs[s[is]].start);
			if (take_api) {
				const struct gs_api *x = &in->apis[a[ia]];
				/* a synchronous copy is a wait of the host more
				 * than a launch: its time is not launch overhead */
				uint8_t cls = c->api_cls[a[ia]];
				if (cover_push(&ball, x->start, x->end, a[ia],
					       (cls & GS_APIF_LAUNCH) && !(cls & GS_APIF_SYNC_COPY), 1))
					goto out;
				ia++;
			} else {
				const struct gs_sync *x = &in->syncs[s[is]];
				if (cover_push(&ball, x->start, x->end, GS_NONE, 0, 1) ||
				    cover_push(&bsync, x->start, x->end, s[is], 0, 0))
					goto out;
				is++;
			}
		}
		cover_close(&ball, 1);
	}
	rc = 0;
out:
	free(tids);
	free(blocks);
	free(api_off);
	free(sync_off);
	free(fill);
	free(api_ix);
	free(sync_ix);
	if (rc)
		host_index_free(h);
	return rc;
}

void host_index_free(struct host_index *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n; i++) {
		free(h->t[i].all.v);
		free(h->t[i].all.cum_launch);
		free(h->t[i].sync.v);
	}
	free(h->t);
	memset(h, 0, sizeof(*h));
}

/* Position of the last entry with start <= t, or -1; *hint is the answer
 * of the last lookup (a sweep asks for ever later times). */
static ptrdiff_t cover_pos(const struct cover *c, int64_t t, size_t *hint)
{
	size_t lo, hi, p = *hint, step;

	if (!c->n || c->v[0].start > t)
		return -1;
	if (p < c->n && c->v[p].start <= t) {
		/* forward: gallop from the last answer */
		lo = p;
		for (step = 1; lo + step < c->n && c->v[lo + step].start <= t; step *= 2)
			lo += step;
		hi = lo + step < c->n ? lo + step : c->n;
	} else {
		/* back (a stream view's gap starts a few calls before the
		 * last one asked): gallop backward from the last answer */
		hi = p < c->n ? p : c->n;
		for (step = 1; hi > step && c->v[hi - step].start > t; step *= 2)
			hi -= step;
		lo = hi > step ? hi - step : 0;
	}
	while (hi - lo > 1) { /* v[lo].start <= t; the answer is in [lo, hi) */
		size_t mid = lo + (hi - lo) / 2;
		if (c->v[mid].start <= t)
			lo = mid;
		else
			hi = mid;
	}
	*hint = lo;
	return (ptrdiff_t)lo;
}

/* covered length before t (*F) and the launch-call time before t (*G):
 * whole entries exactly, the entry that t cuts pro rata (exact when an
 * entry holds only launch calls or none); G only when G != NULL */
static void cover_FG(const struct cover *c, int64_t t, size_t *hint, int64_t *F, int64_t *G)
{
	ptrdiff_t p = cover_pos(c, t, hint);
	const struct cover_ent *e;
	int64_t len, in, lt;

	if (p < 0) {
		*F = 0;
		if (G)
			*G = 0;
		return;
	}
	e = &c->v[p];
	len = e->end - e->start;
	in = (t < e->end ? t : e->end) - e->start;
	*F = e->cum + in;
	if (!G)
		return;
	if (!c->cum_launch) {
		*G = 0;
		return;
	}
	lt = c->cum_launch[p + 1] - c->cum_launch[p];
	if (in >= len || len <= 0)
		*G = c->cum_launch[p + 1];
	else
		*G = c->cum_launch[p] + (int64_t)((__int128)lt * in / len);
}

void host_cut(const struct host_thread *t, int64_t a, int64_t b, struct host_hints *hh,
	      int64_t *sync, int64_t *api, int64_t *host, int64_t *launch)
{
	int64_t all, sy, la;

	if (b <= a) {
		*sync = *api = *host = *launch = 0;
		return;
	}
	if (!t) {
		*sync = *api = *launch = 0;
		*host = b - a;
		return;
	}
	{
		/* a before b: a sweep's hints only move forward */
		int64_t fa, fb, ga, gb, sa, sb;
		cover_FG(&t->all, a, &hh->all, &fa, &ga);
		cover_FG(&t->all, b, &hh->all, &fb, &gb);
		cover_FG(&t->sync, a, &hh->sync, &sa, NULL);
		cover_FG(&t->sync, b, &hh->sync, &sb, NULL);
		all = fb - fa;
		la = gb - ga;
		sy = sb - sa;
	}
	if (sy > all) /* cannot happen: every sync is in the all cover */
		sy = all;
	*sync = sy;
	*api = all - sy;
	*host = (b - a) - all;
	*launch = la < *api ? la : *api;
}

/* ---- segments of one gap, for the renderers ------------------------ */

struct seg_out {
	struct gs_segment *out;
	size_t max, n;
	struct gs_segment cur; /* the segment being extended */
	int have;
};

static void seg_flush(struct seg_out *so)
{
	if (!so->have)
		return;
	if (so->n < so->max)
		so->out[so->n] = so->cur;
	so->n++;
	so->have = 0;
}

/* add [s, e) of one cause; a piece that continues the current segment's
 * cause extends it */
static void seg_emit(struct seg_out *so, int64_t s, int64_t e, int cause, int ref_kind,
		     uint32_t ref, uint32_t tid)
{
	int counted = cause == GS_CAUSE_SYNC_WAIT || cause == GS_CAUSE_CUDA_API;

	if (e <= s)
		return;
	if (so->have && so->cur.cause == cause && so->cur.end == s) {
		so->cur.end = e;
		so->cur.n_calls += counted;
		return;
	}
	seg_flush(so);
	so->cur = (struct gs_segment){.start = s,
				      .end = e,
				      .cause = (uint8_t)cause,
				      .ref_kind = (uint8_t)ref_kind,
				      .ref_idx = ref,
				      .tid = tid,
				      .n_calls = (uint32_t)counted};
	so->have = 1;
}

/* the host-late part [a, b) of a gap on thread t, in time order */
static void host_walk(const struct host_thread *t, uint32_t tid, int64_t a, int64_t b,
		      struct seg_out *so)
{
	size_t hint = 0, shint = 0, i;
	ptrdiff_t p;
	int64_t at = a;

	if (!t) {
		seg_emit(so, a, b, GS_CAUSE_HOST_CODE, GS_EXPLAIN_NONE, GS_NONE, tid);
		return;
	}
	p = cover_pos(&t->all, a, &hint);
	for (i = p < 0 ? 0 : (size_t)p; i < t->all.n && t->all.v[i].start < b; i++) {
		const struct cover_ent *e = &t->all.v[i];
		int64_t s = e->start > a ? e->start : a, en = e->end < b ? e->end : b;
		if (en <= s)
			continue;
		seg_emit(so, at, s, GS_CAUSE_HOST_CODE, GS_EXPLAIN_NONE, GS_NONE, tid);
		/* inside the entry: sync pieces, the rest CUDA API */
		{
			ptrdiff_t q = cover_pos(&t->sync, s, &shint);
			size_t j = q < 0 ? 0 : (size_t)q;
			int64_t pos = s;
			for (; j < t->sync.n && t->sync.v[j].start < en; j++) {
				const struct cover_ent *y = &t->sync.v[j];
				int64_t ys = y->start > pos ? y->start : pos;
				int64_t ye = y->end < en ? y->end : en;
				if (ye <= ys)
					continue;
				seg_emit(so, pos, ys, GS_CAUSE_CUDA_API, GS_EXPLAIN_LAUNCH, e->idx,
					 tid);
				seg_emit(so, ys, ye, GS_CAUSE_SYNC_WAIT, GS_EXPLAIN_SYNC, y->idx, tid);
				pos = ye;
			}
			seg_emit(so, pos, en, GS_CAUSE_CUDA_API, GS_EXPLAIN_LAUNCH, e->idx, tid);
		}
		at = en;
	}
	seg_emit(so, at, b, GS_CAUSE_HOST_CODE, GS_EXPLAIN_NONE, GS_NONE, tid);
}

size_t gs_gap_segments(const struct gs_result *res, const struct gs_gap *g,
		       struct gs_segment *out, size_t max)
{
	struct seg_out so = {.out = out, .max = max, .n = 0};
	const struct gs_input *in = res->in;
	const struct host_index *h = res->host;
	uint32_t call;

	if (g->end <= g->start)
		return 0;
	call = g->op_idx < in->n_ops && res->call_of ? res->call_of[g->op_idx] : GS_NONE;
	if (!g->host_late || call == GS_NONE || !h) {
		int kind = g->explain_kind;
		uint32_t ref = g->explain_idx;
		seg_emit(&so, g->start, g->end, g->cause, kind, ref, 0);
		seg_flush(&so);
		return so.n;
	}
	{
		const struct gs_api *C = &in->apis[call];
		int64_t cs = C->start < g->end ? C->start : g->end;
		uint32_t hint = 0, k = host_thread_of(h, C->tid, &hint);

		if (cs < g->start)
			cs = g->start;
		host_walk(k == GS_NONE ? NULL : &h->t[k], C->tid, g->start, cs, &so);
		seg_emit(&so, cs, g->end, GS_CAUSE_LAUNCH_LATENCY, GS_EXPLAIN_LAUNCH, call, 0);
	}
	seg_flush(&so);
	return so.n;
}

void host_sync_attr(const struct host_thread *t, int64_t a, int64_t b, int64_t drain,
		    int64_t *sync_idle, uint32_t *sync_gaps, int64_t *sync_drain)
{
	size_t hint = 0, j;
	ptrdiff_t q = cover_pos(&t->sync, a, &hint);

	for (j = q < 0 ? 0 : (size_t)q; j < t->sync.n && t->sync.v[j].start < b; j++) {
		const struct cover_ent *y = &t->sync.v[j];
		int64_t s = y->start > a ? y->start : a, e = y->end < b ? y->end : b;
		if (e <= s)
			continue;
		sync_idle[y->idx] = gs_sat_add(sync_idle[y->idx], e - s);
		sync_gaps[y->idx]++;
		sync_drain[y->idx] = gs_sat_add(sync_drain[y->idx], drain);
	}
}
