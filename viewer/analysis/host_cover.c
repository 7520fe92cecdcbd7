/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * host_cover.c - what each host thread was doing: per thread, its CUDA API
 * calls and its blocking syncs, each list sorted by start with the running
 * maximum of the ends, so that the calls meeting any [a, b) are one search
 * (galloping from where the last one landed) and a walk over just them.
 * Gap model v2 cuts the host-late part of a gap with them
 * (docs/metrics.md): sync wait = time inside blocking syncs, CUDA API = time
 * inside any call or sync less the sync wait, host code = the rest; the
 * launch calls' own time is counted for the launch overhead share. Nested
 * calls (a runtime call and the driver call inside it) count once: the walk
 * takes the union. 12 bytes a call (no interval list of its own: on a
 * 10M-call trace an interval cover with prefix sums cost 400 MB of fresh
 * memory and doubled the report's time).
 *
 * A blocking sync is a row of the syncs table other than a stream wait
 * (which blocks no host), a poll (cudaEventQuery, cudaStreamQuery: they
 * return at once), a host function call, or a kernel or graph launch (a
 * legacy-default-stream launch that CUPTI also reports as a sync is a
 * launch, not a wait of the host). Synchronous copies and sets block.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "gapscope/trace_format.h"

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

/* thread_of through a direct-mapped cache of 64 recent answers (the build
 * asks once per call and row, and threads interleave) */
struct tid_cache {
	uint32_t key[64], val[64];
};

static uint32_t thread_cached(const struct host_index *h, struct tid_cache *tc, uint32_t tid)
{
	uint32_t slot = (tid * 2654435761u) >> 26, k;

	if (tc->val[slot] != GS_NONE && tc->key[slot] == tid)
		return tc->val[slot];
	k = thread_of(h, tid);
	tc->key[slot] = tid;
	tc->val[slot] = k;
	return k;
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

/* sort one thread's list of source indexes by start when it is not
 * (the loader's order is by row, which is by start within a thread in
 * practice, so this is a check); qsort_r: no global state, two analyses
 * may run at once (diff, html of two runs) */
static int cmp_api_start(const void *a, const void *b, void *arg)
{
	const struct gs_api *apis = arg;
	const struct gs_api *x = &apis[*(const uint32_t *)a];
	const struct gs_api *y = &apis[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int cmp_sync_start(const void *a, const void *b, void *arg)
{
	const struct gs_sync *syncs = arg;
	const struct gs_sync *x = &syncs[*(const uint32_t *)a];
	const struct gs_sync *y = &syncs[*(const uint32_t *)b];
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
	return !(cls & GS_APIF_KERNEL_LAUNCH) && !gs_api_is_graph_launch(name) &&
	       !(name && (!strncmp(name, "cudaLaunch", 10) || !strncmp(name, "cuLaunch", 8)));
}

/* maxend of one list from its order (after a sort) */
static void list_maxend(const struct gs_input *in, struct host_list *l, int syncs)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		int64_t e = syncs ? in->syncs[l->idx[i]].end : in->apis[l->idx[i]].end;
		l->maxend[i] = i && l->maxend[i - 1] > e ? l->maxend[i - 1] : e;
	}
}

/* Add one row of thread tid to the sorted thread list (tids, counts). */
static int count_tid(uint32_t **tids, size_t **cnt, size_t *nt, size_t *cap, uint32_t tid,
		     size_t add)
{
	size_t lo = 0, hi = *nt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((*tids)[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == *nt || (*tids)[lo] != tid) {
		if (*nt == *cap) {
			size_t ncap = *cap ? 2 * *cap : 16;
			uint32_t *nv = realloc(*tids, ncap * sizeof(uint32_t));
			size_t *nc;
			if (!nv)
				return -1;
			*tids = nv;
			nc = realloc(*cnt, ncap * sizeof(size_t));
			if (!nc)
				return -1;
			*cnt = nc;
			*cap = ncap;
		}
		memmove(*tids + lo + 1, *tids + lo, (*nt - lo) * sizeof(uint32_t));
		memmove(*cnt + lo + 1, *cnt + lo, (*nt - lo) * sizeof(size_t));
		(*tids)[lo] = tid;
		(*cnt)[lo] = 0;
		(*nt)++;
	}
	(*cnt)[lo] += add;
	return 0;
}

/* Two passes over the calls (a 10M-call trace is 280 MB of them): one
 * finds the threads and counts their calls (a run of calls on one thread
 * counted at once), one puts each call in its thread's list with the
 * running maximum end, checking the order as it goes; a thread whose calls
 * are not in start order (they are, in the loader's row order, in
 * practice) is sorted afterwards. */
int host_index_build(struct actx *c, struct host_index *h)
{
	const struct gs_input *in = c->in;
	uint32_t *tids = NULL, *api_ix = NULL, *sync_ix = NULL;
	struct tid_cache tc;
	size_t *acnt = NULL, *scnt = NULL, *api_off = NULL, *sync_off = NULL, *afill = NULL,
	       *sfill = NULL;
	int64_t *alast = NULL, *amax = NULL, *slast = NULL, *smax = NULL;
	uint8_t *aunsorted = NULL, *sunsorted = NULL;
	size_t nt = 0, cap = 0, i, k, run = 0;
	uint8_t *blocks = NULL;
	int rc = -ENOMEM;

	memset(h, 0, sizeof(*h));
	h->in = in;
	blocks = malloc(in->n_syncs + 1);
	if (!blocks)
		goto out;
	for (i = 0; i < in->n_syncs; i++)
		blocks[i] = (uint8_t)host_sync_blocks(c, i);
	/* pass 1: the threads (sorted as they are met) and their call counts;
	 * runs of calls on one thread counted at once, and the last few
	 * threads' counts kept in a small cache in front of the sorted list
	 * (threads interleave call by call in a multi-threaded program) */
	{
		struct {
			uint32_t tid;
			size_t n;
			int used;
		} pc[16];
		memset(pc, 0, sizeof(pc));
		for (i = 0; i < in->n_apis; i++) {
			uint32_t tid = in->apis[i].tid, slot;
			run++;
			if (i + 1 < in->n_apis && in->apis[i + 1].tid == tid)
				continue;
			slot = (tid * 2654435761u) >> 28;
			if (pc[slot].used && pc[slot].tid != tid) {
				if (count_tid(&tids, &acnt, &nt, &cap, pc[slot].tid, pc[slot].n))
					goto out;
				pc[slot].used = 0;
			}
			if (!pc[slot].used) {
				pc[slot].used = 1;
				pc[slot].tid = tid;
				pc[slot].n = 0;
			}
			pc[slot].n += run;
			run = 0;
		}
		for (k = 0; k < 16; k++)
			if (pc[k].used && count_tid(&tids, &acnt, &nt, &cap, pc[k].tid, pc[k].n))
				goto out;
	}
	for (i = 0; i < in->n_syncs; i++) /* syncs: threads only */
		if (blocks[i] && count_tid(&tids, &acnt, &nt, &cap, in->syncs[i].tid, 0))
			goto out;
	h->t = calloc(nt ? nt : 1, sizeof(*h->t));
	scnt = calloc(nt + 1, sizeof(size_t));
	api_off = calloc(nt + 1, sizeof(size_t));
	sync_off = calloc(nt + 1, sizeof(size_t));
	afill = calloc(nt + 1, sizeof(size_t));
	sfill = calloc(nt + 1, sizeof(size_t));
	alast = calloc(nt + 1, sizeof(int64_t));
	amax = calloc(nt + 1, sizeof(int64_t));
	slast = calloc(nt + 1, sizeof(int64_t));
	smax = calloc(nt + 1, sizeof(int64_t));
	aunsorted = calloc(nt + 1, 1);
	sunsorted = calloc(nt + 1, 1);
	api_ix = big_malloc((in->n_apis + 1) * sizeof(uint32_t));
	sync_ix = malloc((in->n_syncs + 1) * sizeof(uint32_t));
	h->call_maxend = big_malloc((in->n_apis + 1) * sizeof(int64_t));
	h->sync_maxend = malloc((in->n_syncs + 1) * sizeof(int64_t));
	if (!h->t || !scnt || !api_off || !sync_off || !afill || !sfill || !alast || !amax ||
	    !slast || !smax || !aunsorted || !sunsorted || !api_ix || !sync_ix ||
	    !h->call_maxend || !h->sync_maxend)
		goto out;
	h->n = nt;
	for (k = 0; k < nt; k++) {
		h->t[k].tid = tids[k];
		alast[k] = slast[k] = INT64_MIN;
		amax[k] = smax[k] = INT64_MIN;
	}
	memset(tc.val, 0xff, sizeof(tc.val));
	for (i = 0; i < in->n_syncs; i++)
		if (blocks[i])
			scnt[thread_cached(h, &tc, in->syncs[i].tid)]++;
	for (k = 0; k < nt; k++) {
		api_off[k + 1] = api_off[k] + acnt[k];
		sync_off[k + 1] = sync_off[k] + scnt[k];
		afill[k] = api_off[k];
		sfill[k] = sync_off[k];
	}
	/* pass 2: each call into its thread's list, with the running max end */
	for (i = 0; i < in->n_apis; i++) {
		const struct gs_api *x = &in->apis[i];
		size_t pos;
		k = thread_cached(h, &tc, x->tid);
		pos = afill[k]++;
		api_ix[pos] = (uint32_t)i;
		aunsorted[k] |= x->start < alast[k];
		alast[k] = x->start;
		if (x->end > amax[k])
			amax[k] = x->end;
		h->call_maxend[pos] = amax[k];
	}
	for (i = 0; i < in->n_syncs; i++) {
		const struct gs_sync *x = &in->syncs[i];
		size_t pos;
		if (!blocks[i])
			continue;
		k = thread_cached(h, &tc, x->tid);
		pos = sfill[k]++;
		sync_ix[pos] = (uint32_t)i;
		sunsorted[k] |= x->start < slast[k];
		slast[k] = x->start;
		if (x->end > smax[k])
			smax[k] = x->end;
		h->sync_maxend[pos] = smax[k];
	}
	for (k = 0; k < nt; k++) {
		struct host_thread *t = &h->t[k];
		t->calls = (struct host_list){.idx = api_ix + api_off[k],
					      .maxend = h->call_maxend + api_off[k],
					      .n = api_off[k + 1] - api_off[k]};
		t->syncs = (struct host_list){.idx = sync_ix + sync_off[k],
					      .maxend = h->sync_maxend + sync_off[k],
					      .n = sync_off[k + 1] - sync_off[k]};
		if (aunsorted[k]) {
			qsort_r(t->calls.idx, t->calls.n, sizeof(uint32_t), cmp_api_start,
				(void *)in->apis);
			list_maxend(in, &t->calls, 0);
		}
		if (sunsorted[k]) {
			qsort_r(t->syncs.idx, t->syncs.n, sizeof(uint32_t), cmp_sync_start,
				(void *)in->syncs);
			list_maxend(in, &t->syncs, 1);
		}
	}
	/* the index keeps the sorted lists */
	h->call_idx = api_ix;
	h->sync_idx = sync_ix;
	api_ix = sync_ix = NULL;
	rc = 0;
out:
	free(tids);
	free(blocks);
	free(acnt);
	free(scnt);
	free(api_off);
	free(sync_off);
	free(afill);
	free(sfill);
	free(alast);
	free(amax);
	free(slast);
	free(smax);
	free(aunsorted);
	free(sunsorted);
	free(api_ix);
	free(sync_ix);
	if (rc)
		host_index_free(h);
	return rc;
}

void host_index_free(struct host_index *h)
{
	if (!h)
		return;
	free(h->t);
	free(h->call_idx);
	free(h->sync_idx);
	free(h->call_maxend);
	free(h->sync_maxend);
	memset(h, 0, sizeof(*h));
}

/* First position i of l with maxend[i] > t (l->n when none): the first
 * row that can still meet [t, ...). maxend is nondecreasing; *hint is
 * where the last search of this sweep landed (it gallops from there). */
static size_t list_first(const struct host_list *l, int64_t t, size_t *hint)
{
	size_t lo, hi, p = *hint < l->n ? *hint : l->n, step;

	if (!l->n)
		return 0; /* (maxend[0] is the next thread's, or unset) */
	if (p < l->n && l->maxend[p] <= t) {
		/* forward */
		lo = p; /* maxend[lo] <= t */
		for (step = 1; lo + step < l->n && l->maxend[lo + step] <= t; step *= 2)
			lo += step;
		hi = lo + step < l->n ? lo + step : l->n;
		while (hi - lo > 1) { /* maxend[lo] <= t; answer in (lo, hi] */
			size_t mid = lo + (hi - lo) / 2;
			if (l->maxend[mid] <= t)
				lo = mid;
			else
				hi = mid;
		}
		*hint = hi;
		return hi;
	}
	/* back: p is an answer or l->n; the first answer is at or before it */
	hi = p;
	for (step = 1; hi >= step && l->maxend[hi - step] > t; step *= 2)
		hi -= step;
	lo = hi >= step ? hi - step : 0;
	if (l->maxend[lo] > t) {
		*hint = lo;
		return lo;
	}
	while (hi - lo > 1) { /* maxend[lo] <= t < maxend[hi] (or hi = n) */
		size_t mid = lo + (hi - lo) / 2;
		if (l->maxend[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	*hint = hi;
	return hi;
}

/* The rows of one thread that meet [a, b), calls and syncs merged in
 * start order: next() gives each clipped to [a, b). */
struct walk {
	const struct host_index *h;
	const struct host_thread *t;
	int64_t a, b;
	size_t i, j; /* next call, next sync */
};

static void walk_init(struct walk *w, const struct host_index *h, const struct host_thread *t,
		      int64_t a, int64_t b, struct host_hints *hh)
{
	w->h = h;
	w->t = t;
	w->a = a;
	w->b = b;
	w->i = list_first(&t->calls, a, &hh->all);
	w->j = list_first(&t->syncs, a, &hh->sync);
}

/* 1 and the next row (is_sync, its index, [s, e) clipped) while there is
 * one that starts before b; rows that end by a are skipped */
static int walk_next(struct walk *w, int *is_sync, uint32_t *idx, int64_t *s, int64_t *e)
{
	const struct gs_input *in = w->h->in;

	for (;;) {
		int64_t cs = w->i < w->t->calls.n ? in->apis[w->t->calls.idx[w->i]].start : INT64_MAX;
		int64_t ss = w->j < w->t->syncs.n ? in->syncs[w->t->syncs.idx[w->j]].start
						  : INT64_MAX;
		int64_t rs, re;
		if (cs >= w->b && ss >= w->b)
			return 0;
		if (cs <= ss) {
			*is_sync = 0;
			*idx = w->t->calls.idx[w->i++];
			rs = cs;
			re = in->apis[*idx].end;
		} else {
			*is_sync = 1;
			*idx = w->t->syncs.idx[w->j++];
			rs = ss;
			re = in->syncs[*idx].end;
		}
		if (re <= w->a)
			continue;
		*s = rs > w->a ? rs : w->a;
		*e = re < w->b ? re : w->b;
		if (*e > *s)
			return 1;
	}
}

/* length of [s, e) beyond the union so far (*ue: its end), which grows */
static int64_t union_add(int64_t *ue, int64_t s, int64_t e)
{
	int64_t from = s > *ue ? s : *ue, add = e > from ? e - from : 0;

	if (e > *ue)
		*ue = e;
	return add;
}

void host_cut(const struct host_index *h, const struct host_thread *t, const uint8_t *api_cls,
	      int64_t a, int64_t b, struct host_hints *hh, int64_t *sync, int64_t *api,
	      int64_t *host, int64_t *launch, int64_t *slow, uint32_t *slow_call)
{
	struct walk w;
	int64_t all = 0, sy = 0, la = 0, sl = 0, ue = a, se = a, le = a, s, e, longest = 0;
	uint32_t idx;
	int is_sync;

	*sync = *api = *launch = *slow = 0;
	*slow_call = GS_NONE;
	*host = b > a ? b - a : 0;
	if (!t || b <= a)
		return;
	walk_init(&w, h, t, a, b, hh);
	while (walk_next(&w, &is_sync, &idx, &s, &e)) {
		all += union_add(&ue, s, e);
		if (is_sync) {
			sy += union_add(&se, s, e);
		} else {
			/* a synchronous copy is a wait of the host more than
			 * a launch: its time is not launch overhead */
			uint8_t cls = api_cls ? api_cls[idx] : 0;
			if ((cls & GS_APIF_LAUNCH) && !(cls & GS_APIF_SYNC_COPY)) {
				int64_t add = union_add(&le, s, e);
				int64_t len = h->in->apis[idx].end - h->in->apis[idx].start;
				la += add;
				/* a launch call of 1 ms or more loaded a
				 * module (GS_SLOW_LAUNCH_NS) */
				if (len >= GS_SLOW_LAUNCH_NS) {
					sl += add;
					if (len > longest) {
						longest = len;
						*slow_call = idx;
					}
				}
			}
		}
	}
	*sync = sy;
	*api = all - sy;
	*host = (b - a) - all;
	*launch = la < *api ? la : *api;
	*slow = sl < *launch ? sl : *launch;
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

/* the host-late part [a, b) of a gap on thread t, in time order: host code
 * between stretches of overlapping rows; inside a stretch, the time in
 * blocking syncs (sync wait) and the rest (CUDA API, named by the call that
 * began the stretch) */
static void host_walk(const struct host_index *h, const struct host_thread *t, uint32_t tid,
		      int64_t a, int64_t b, struct seg_out *so)
{
	struct host_hints hh = {0, 0};
	struct walk w;
	int64_t at = a, s, e, st_end = a, sync_end = a, st_len = 0;
	uint32_t idx, st_call = GS_NONE;
	int is_sync;

	if (!t) {
		seg_emit(so, a, b, GS_CAUSE_HOST_CODE, GS_EXPLAIN_NONE, GS_NONE, tid);
		return;
	}
	walk_init(&w, h, t, a, b, &hh);
	while (walk_next(&w, &is_sync, &idx, &s, &e)) {
		if (s >= st_end) { /* a new stretch: host code before it */
			if (at < st_end) /* the end of the stretch before: CUDA API */
				seg_emit(so, at, st_end, GS_CAUSE_CUDA_API, GS_EXPLAIN_LAUNCH,
					 st_call, tid);
			at = st_end > at ? st_end : at;
			seg_emit(so, at, s, GS_CAUSE_HOST_CODE, GS_EXPLAIN_NONE, GS_NONE, tid);
			at = s;
			st_call = GS_NONE;
		}
		/* a stretch's CUDA API is named by its longest call (within
		 * [a, b)): the bundled H200 trace's 3.56 ms of it read "in
		 * cudaGraphExecDestroy and 346 more", the stretch's first
		 * call, for cudaGraphInstantiate's time */
		if (!is_sync && (st_call == GS_NONE || e - s > st_len)) {
			st_call = idx;
			st_len = e - s;
		}
		if (is_sync) {
			int64_t ys = s > sync_end ? s : sync_end;
			ys = ys > at ? ys : at;
			if (e > ys) {
				seg_emit(so, at, ys, GS_CAUSE_CUDA_API, GS_EXPLAIN_LAUNCH, st_call,
					 tid);
				seg_emit(so, ys, e, GS_CAUSE_SYNC_WAIT, GS_EXPLAIN_SYNC, idx, tid);
				at = e;
			}
			if (e > sync_end)
				sync_end = e;
		}
		if (e > st_end)
			st_end = e;
	}
	if (at < st_end)
		seg_emit(so, at, st_end, GS_CAUSE_CUDA_API, GS_EXPLAIN_LAUNCH, st_call, tid);
	if (st_end > at)
		at = st_end;
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
	if (!g->host_late && g->cause == GS_CAUSE_SYNC_WAIT && g->explain_kind == GS_EXPLAIN_SYNC &&
	    g->explain_idx < in->n_syncs && call != GS_NONE) {
		/* X's own staging copy in progress at g0 (classify_gap) */
		const struct gs_sync *y = &in->syncs[g->explain_idx];
		int64_t se = y->end < g->end ? y->end : g->end;
		seg_emit(&so, g->start, se, GS_CAUSE_SYNC_WAIT, GS_EXPLAIN_SYNC, g->explain_idx,
			 y->tid);
		seg_emit(&so, se > g->start ? se : g->start, g->end, GS_CAUSE_LAUNCH_LATENCY,
			 GS_EXPLAIN_LAUNCH, call, 0);
		seg_flush(&so);
		return so.n;
	}
	if (g->held) {
		/* queued, then held by something unrecorded (classify_gap);
		 * queued before the trace began when it has no call */
		int64_t l0 = queued_dispatch_start(in->ops[g->op_idx].start);
		int kind = call != GS_NONE ? GS_EXPLAIN_LAUNCH : GS_EXPLAIN_BEFORE_TRACE;
		if (l0 < g->start)
			l0 = g->start;
		if (l0 > g->end)
			l0 = g->end;
		seg_emit(&so, g->start, l0, GS_CAUSE_OTHER, kind, call, 0);
		seg_emit(&so, l0, g->end, g->held, kind, call, 0);
		seg_flush(&so);
		return so.n;
	}
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
		uint32_t y = host_copy_sync(h, C, &in->ops[g->op_idx]);

		host_walk(h, k == GS_NONE ? NULL : &h->t[k], C->tid, g->start, cs, &so);
		if (y != GS_NONE) { /* X's call staging X's data */
			int64_t se = in->syncs[y].end < g->end ? in->syncs[y].end : g->end;
			/* a segment of its own, named by the copy, even right
			 * after another sync's wait */
			seg_flush(&so);
			seg_emit(&so, cs, se, GS_CAUSE_SYNC_WAIT, GS_EXPLAIN_SYNC, y, C->tid);
			if (se > cs)
				cs = se;
		}
		{
			/* queued after the call, then held (rule 5) */
			int64_t q0 = C->end > cs ? C->end : cs;
			int64_t q1 = queued_held_end(q0, in->ops[g->op_idx].start);
			if (q0 > g->end)
				q0 = g->end;
			if (q1 > g->end)
				q1 = g->end;
			seg_emit(&so, cs, q0, GS_CAUSE_LAUNCH_LATENCY, GS_EXPLAIN_LAUNCH, call, 0);
			seg_emit(&so, q0, q1, GS_CAUSE_OTHER, GS_EXPLAIN_LAUNCH, call, 0);
			seg_emit(&so, q1 > q0 ? q1 : q0, g->end, GS_CAUSE_LAUNCH_LATENCY,
				 GS_EXPLAIN_LAUNCH, call, 0);
		}
	}
	seg_flush(&so);
	return so.n;
}

size_t gs_gap_segments_all(const struct gs_result *res, const struct gs_gap *g,
			   struct gs_segment *buf, size_t cap, struct gs_segment **segs)
{
	size_t n = gs_gap_segments(res, g, buf, cap);
	struct gs_segment *v;

	*segs = buf;
	if (n <= cap)
		return n;
	if (!(v = malloc(n * sizeof(*v))))
		return (size_t)-1;
	*segs = v;
	return gs_gap_segments(res, g, v, n);
}

uint32_t host_copy_sync(const struct host_index *h, const struct gs_api *C, const struct gs_op *X)
{
	const struct gs_input *in;
	const struct host_thread *t;
	uint32_t hint = 0, k;
	size_t sh = 0, j;

	if (!h || !C || !X || X->kind != GS_OP_MEMCPY || !(X->flags & GS_OPF_PAGEABLE_SRC))
		return GS_NONE;
	in = h->in;
	if ((k = host_thread_of(h, C->tid, &hint)) == GS_NONE)
		return GS_NONE;
	t = &h->t[k];
	for (j = list_first(&t->syncs, C->start - 1, &sh);
	     j < t->syncs.n && in->syncs[t->syncs.idx[j]].start <= C->start; j++) {
		const struct gs_sync *s = &in->syncs[t->syncs.idx[j]];
		if (s->corr == C->corr && s->implicit &&
		    (s->kind == GS_SYNC_IMPLICIT_MEMCPY || s->kind == GS_SYNC_IMPLICIT_PAGEABLE))
			return t->syncs.idx[j];
	}
	return GS_NONE;
}

void host_sync_attr(const struct host_index *h, const struct host_thread *t, int64_t a, int64_t b,
		    int64_t latency, int64_t *sync_idle, uint32_t *sync_gaps, int64_t *sync_drain)
{
	const struct gs_input *in = h->in;
	size_t hint = 0, j;
	int64_t se = a;
	uint32_t last = GS_NONE;

	for (j = list_first(&t->syncs, a, &hint);
	     j < t->syncs.n && in->syncs[t->syncs.idx[j]].start < b; j++) {
		uint32_t y = t->syncs.idx[j];
		int64_t s = in->syncs[y].start > a ? in->syncs[y].start : a;
		int64_t e = in->syncs[y].end < b ? in->syncs[y].end : b;
		int64_t add;
		if (e <= s)
			continue;
		add = union_add(&se, s, e);
		if (!add)
			continue;
		sync_idle[y] = gs_sat_add(sync_idle[y], add);
		sync_gaps[y]++;
		sync_drain[y] = gs_sat_add(sync_drain[y], add);
		last = y;
	}
	if (last != GS_NONE)
		sync_drain[last] = gs_sat_add(sync_drain[last], latency);
}
