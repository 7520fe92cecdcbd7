/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_index.c - the indexes the gap classification searches (blocking
 * syncs and NVTX ranges by thread, stream-wait and host-function events),
 * the stream waits resolved to their event records, and the API calls'
 * classes and launch calls by correlation id. Built once per analysis;
 * analysis.c's gap classification calls down into it, never the other
 * way. No I/O.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* ------------------------------------------------------------------ */
/* indexes                                                             */
/* ------------------------------------------------------------------ */

static int cmp_stab(const void *a, const void *b)
{
	const struct stab_ent *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* equal starts: the longer (outer) first, so the inner one is on top */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sort and link s->ents[0..n) (key, start, end, idx filled in). */
static void stab_link(struct stab *s)
{
	size_t i;
	uint32_t top = GS_NONE;

	qsort(s->ents, s->n, sizeof(*s->ents), cmp_stab);
	for (i = 0; i < s->n; i++) {
		struct stab_ent *e = &s->ents[i];
		if (i > 0 && s->ents[i - 1].key != e->key)
			top = GS_NONE;
		/* pop what ended before this one starts: the rest of the
		 * stack is exactly the intervals still open at e->start */
		while (top != GS_NONE && s->ents[top].end < e->start)
			top = s->ents[top].parent;
		e->parent = top;
		top = (uint32_t)i;
	}
}

static int stab_at_or_before(const struct stab_ent *e, uint32_t key, int64_t t)
{
	return e->key < key || (e->key == key && e->start <= t);
}

/* Innermost entry with key, start <= t <= end; its source idx or GS_NONE.
 * hint: the caller's last position for this key (GS_NONE: none); tried
 * first, a few steps forward, before a binary search. Either way the
 * position is the same: the first entry past (key, t). */
uint32_t stab_find(const struct stab *s, uint32_t key, int64_t t, uint32_t *hint)
{
	size_t lo = 0, hi = s->n;
	uint32_t j;

	if (hint && *hint <= s->n) {
		size_t p = *hint, steps = 0;
		while (p < s->n && steps < 8 && stab_at_or_before(&s->ents[p], key, t)) {
			p++;
			steps++;
		}
		if ((p == s->n || !stab_at_or_before(&s->ents[p], key, t)) &&
		    (p == 0 || stab_at_or_before(&s->ents[p - 1], key, t))) {
			lo = p;
			goto found;
		}
		lo = 0;
	}
	/* last entry with (key, start) <= (key, t) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (stab_at_or_before(&s->ents[mid], key, t))
			lo = mid + 1;
		else
			hi = mid;
	}
found:
	if (hint)
		*hint = (uint32_t)lo;
	if (lo == 0 || s->ents[lo - 1].key != key)
		return GS_NONE;
	for (j = (uint32_t)(lo - 1); j != GS_NONE; j = s->ents[j].parent)
		if (s->ents[j].end >= t)
			return s->ents[j].idx;
	return GS_NONE;
}

void cg_cache_init(struct cg_cache *cc)
{
	memset(cc->key, 0, sizeof(cc->key));
	memset(cc->lo, 0xff, sizeof(cc->lo));
	cc->host_thread = GS_NONE;
	memset(cc->host_key, 0xff, sizeof(cc->host_key));
	memset(cc->tid_val, 0xff, sizeof(cc->tid_val));
	memset(cc->tid_key, 0, sizeof(cc->tid_key));
	memset(cc->hh, 0, sizeof(cc->hh));
}

/* stab_find through the cache slot of (index which, key) */
uint32_t stab_find_cached(const struct stab *s, struct cg_cache *cc, int which, uint32_t key,
			  int64_t t)
{
	uint32_t slot = key % CG_CACHE_SLOTS;

	if (!cc)
		return stab_find(s, key, t, NULL);
	if (cc->key[which][slot] != key) {
		cc->key[which][slot] = key;
		cc->lo[which][slot] = GS_NONE;
	}
	return stab_find(s, key, t, &cc->lo[which][slot]);
}

static int cmp_evt(const void *a, const void *b)
{
	const struct evt *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The latest event with key and lo < t <= hi: its source idx or GS_NONE. */
uint32_t evts_find(const struct evts *e, uint32_t key, int64_t lo_t, int64_t hi_t)
{
	size_t lo = 0, hi = e->n;

	if (hi_t <= lo_t)
		return GS_NONE;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct evt *v = &e->v[mid];
		if (v->key < key || (v->key == key && v->t <= hi_t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return GS_NONE;
	if (e->v[lo - 1].key != key || e->v[lo - 1].t <= lo_t)
		return GS_NONE;
	return e->v[lo - 1].idx;
}

/* A cudaStreamWaitEvent on X's stream (and device) enqueued in (lo, hi]
 * that explains a gap before X: the latest such wait whose event was
 * recorded elsewhere - on another device (device view), or on another
 * stream (stream view). A wait whose record is unknown (no events rows)
 * counts, as the schema cannot say more. */
uint32_t wait_find(const struct actx *c, const struct gs_op *x, int64_t lo_t, int64_t hi_t,
		   int flags)
{
	const struct evts *e = &c->waits;
	size_t lo = 0, hi = e->n;

	if (hi_t <= lo_t)
		return GS_NONE;
	while (lo < hi) { /* first past (stream, hi_t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct evt *v = &e->v[mid];
		if (v->key < x->stream || (v->key == x->stream && v->t <= hi_t))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo > 0 && e->v[lo - 1].key == x->stream && e->v[lo - 1].t > lo_t; lo--) {
		uint32_t k = e->v[lo - 1].idx;
		int16_t rd = c->wait_rec_dev[k];
		const struct gs_sync *s = &c->in->syncs[k];
		if (s->device >= 0 && s->device != x->device)
			continue; /* a stream id of another device */
		if (rd == -2)
			return k;
		if (rd != x->device)
			return k;
		if ((flags & CG_STREAM_VIEW) && c->wait_rec_stream[k] != x->stream)
			return k;
	}
	return GS_NONE;
}

static int cmp_event(const void *a, const void *b)
{
	const struct gs_event *x = *(const struct gs_event *const *)a;
	const struct gs_event *y = *(const struct gs_event *const *)b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* For every stream wait: the latest record of its event issued no later
 * than the wait (CUDA waits for the most recent cudaEventRecord). */
int resolve_wait_records(struct actx *c)
{
	const struct gs_input *in = c->in;
	const struct gs_event **ev = NULL;
	size_t i;

	c->wait_rec_dev = malloc((in->n_syncs ? in->n_syncs : 1) * sizeof(int16_t));
	c->wait_rec_stream = malloc((in->n_syncs ? in->n_syncs : 1) * sizeof(uint32_t));
	if (!c->wait_rec_dev || !c->wait_rec_stream)
		return -ENOMEM;
	for (i = 0; i < in->n_syncs; i++) {
		c->wait_rec_dev[i] = -2;
		c->wait_rec_stream[i] = 0;
	}
	if (!in->n_events)
		return 0;
	ev = malloc(in->n_events * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0; i < in->n_events; i++)
		ev[i] = &in->events[i];
	qsort(ev, in->n_events, sizeof(*ev), cmp_event);
	for (i = 0; i < in->n_syncs; i++) {
		const struct gs_sync *s = &in->syncs[i];
		size_t lo = 0, hi = in->n_events;
		if (s->kind != 2 /* GS_SYNC_STREAM_WAIT_EVENT */)
			continue;
		while (lo < hi) { /* first past (event, s->start) */
			size_t mid = lo + (hi - lo) / 2;
			if (ev[mid]->event < s->event ||
			    (ev[mid]->event == s->event && ev[mid]->start <= s->start))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && ev[lo - 1]->event == s->event) {
			c->wait_rec_dev[i] = ev[lo - 1]->device;
			c->wait_rec_stream[i] = ev[lo - 1]->stream;
		}
	}
	free(ev);
	return 0;
}

int build_indexes(struct actx *c)
{
	const struct gs_input *in = c->in;
	size_t i, nn = 0, nw = 0, nh = 0;

	for (i = 0; i < in->n_syncs; i++)
		nw += in->syncs[i].kind == 2 /* GS_SYNC_STREAM_WAIT_EVENT */;
	for (i = 0; i < in->n_nvtx; i++)
		nn += in->nvtx[i].kind == 0;
	for (i = 0; i < in->n_apis; i++)
		nh += (c->api_cls[i] & GS_APIF_HOST_FUNC) != 0;

	c->nvtx_tid.ents = malloc((nn ? nn : 1) * sizeof(struct stab_ent));
	c->nvtx_any.ents = malloc((nn ? nn : 1) * sizeof(struct stab_ent));
	c->waits.v = malloc((nw ? nw : 1) * sizeof(struct evt));
	c->hostfn.v = malloc((nh ? nh : 1) * sizeof(struct evt));
	if (!c->nvtx_tid.ents || !c->nvtx_any.ents || !c->waits.v ||
	    !c->hostfn.v)
		return -ENOMEM;

	for (i = 0; i < in->n_syncs; i++) {
		const struct gs_sync *s = &in->syncs[i];
		if (s->kind == 2) {
			c->waits.v[c->waits.n++] =
			    (struct evt){.t = s->start, .key = s->stream, .idx = (uint32_t)i};
		}
	}
	c->first_range = INT64_MAX;
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		if (r->kind != 0)
			continue;
		/* the program's: libraries annotate in domains of their own
		 * (CUB's "cub::DeviceScan::InclusiveScan" in domain CCCL, in
		 * transformers' generate) */
		if (!r->domain_id && r->start < c->first_range)
			c->first_range = r->start;
		c->nvtx_tid.ents[c->nvtx_tid.n++] = (struct stab_ent){
		    .start = r->start, .end = r->end, .key = r->tid, .idx = (uint32_t)i};
		c->nvtx_any.ents[c->nvtx_any.n++] = (struct stab_ent){
		    .start = r->start, .end = r->end, .key = 0, .idx = (uint32_t)i};
	}
	for (i = 0; i < in->n_apis; i++)
		if (c->api_cls[i] & GS_APIF_HOST_FUNC)
			c->hostfn.v[c->hostfn.n++] = (struct evt){
			    .t = in->apis[i].start, .key = in->apis[i].tid, .idx = (uint32_t)i};
	stab_link(&c->nvtx_tid);
	stab_link(&c->nvtx_any);
	qsort(c->waits.v, c->waits.n, sizeof(struct evt), cmp_evt);
	qsort(c->hostfn.v, c->hostfn.n, sizeof(struct evt), cmp_evt);
	return 0;
}

/* API classes and the corr -> apis index, in one pass over the calls.
 *
 * corr -> apis index: correlation ids are small increasing integers in
 * practice, so a direct table (apis index + 1, 0 none) is used when the
 * largest id is at most ~2x the calls; otherwise a sorted list with
 * binary search. Several calls can share an id (a runtime call and the
 * driver call inside it): the earliest-starting, i.e. outermost, is the
 * launch call (the earlier index on equal starts).
 *
 * The table is allocated at its largest size before the pass (address
 * space only: calloc'd pages are zero and only touched where ids land)
 * and filled in that pass; when an id turns out too large for it, the
 * sorted list replaces it. One half of the calls per thread (a 10M-call
 * trace took three passes over its 280 MB of calls here: classes, then
 * each half of the id range read by all calls), each with its own
 * by-name cache so that no byte is written by both. The table's slots
 * are split at the id of the second half's first call: each thread
 * writes the slots of its own ids, and keeps the calls whose id is the
 * other's (ids follow the calls' order in practice: a few near the
 * seam) for the caller to put in after both are done. The earliest rule
 * is a minimum, so the order in which calls are put in does not matter
 * (compare-and-swap on every slot instead cost twice the pass). */
struct cls_job {
	const struct gs_input *in;
	uint8_t *api_cls;
	uint32_t *tab;		 /* the direct table, NULL when none */
	size_t tab_n;		 /* its slots */
	uint32_t own_lo, own_hi; /* the ids whose slots this half writes: [lo, hi) */
	uint32_t *other;	 /* calls whose id is the other half's */
	size_t n_other, other_cap;
	size_t a, b;	   /* apis [a, b) */
	size_t name_end;   /* out: 1 + the largest name id seen (at least 1) */
	uint32_t corr_max; /* out: the largest correlation id seen */
	uint32_t corr_min; /* out: the smallest nonzero one, UINT32_MAX: none */
	int err;
};

/* call i is the launch call of its id rather than call j (same id) */
static int corr_earlier(const struct gs_input *in, size_t i, size_t j)
{
	return in->apis[i].start < in->apis[j].start ||
	       (in->apis[i].start == in->apis[j].start && i < j);
}

static void corr_put(const struct gs_input *in, uint32_t *tab, uint32_t k, size_t i)
{
	if (tab[k] == 0 || corr_earlier(in, i, tab[k] - 1))
		tab[k] = (uint32_t)i + 1;
}

static int keep_other(struct cls_job *j, size_t i)
{
	if (j->n_other == j->other_cap) {
		size_t nc = j->other_cap ? 2 * j->other_cap : 256;
		uint32_t *p = realloc(j->other, nc * sizeof(uint32_t));
		if (!p)
			return -ENOMEM;
		j->other = p;
		j->other_cap = nc;
	}
	j->other[j->n_other++] = (uint32_t)i;
	return 0;
}

static void *classify_half(void *arg)
{
	struct cls_job *j = arg;
	const struct gs_input *in = j->in;
	uint8_t *by_name = NULL;
	size_t i;

	if (in->strings.n) {
		by_name = calloc(in->strings.n, 1);
		if (!by_name) {
			j->err = -ENOMEM;
			return NULL;
		}
	}
	j->name_end = 1;
	for (i = j->a; i < j->b; i++) {
		const struct gs_api *a = &in->apis[i];
		uint8_t f = GS_APIF_CLASSIFIED;
		uint32_t k = a->corr;
		if (a->name_id >= j->name_end)
			j->name_end = (size_t)a->name_id + 1;
		if (k > j->corr_max)
			j->corr_max = k;
		if (k && k < j->corr_min)
			j->corr_min = k;
		if (k && k < j->tab_n) {
			if (k >= j->own_lo && k < j->own_hi)
				corr_put(in, j->tab, k, i);
			else if (keep_other(j, i))
				j->err = -ENOMEM;
		}
		if (a->name_id < in->strings.n) {
			if (!by_name[a->name_id])
				by_name[a->name_id] =
				    gs_api_classify(gs_str(&in->strings, a->name_id, NULL));
			f = by_name[a->name_id];
		}
		j->api_cls[i] = f;
	}
	free(by_name);
	return NULL;
}

struct corr_ent {
	uint32_t corr; /* correlation id */
	uint32_t idx;  /* apis index */
	int64_t start; /* ns */
};

static int cmp_corr(const void *a, const void *b)
{
	const struct corr_ent *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int corr_sorted(struct gs_result *res)
{
	const struct gs_input *in = res->in;
	struct corr_ent *e = malloc((in->n_apis ? in->n_apis : 1) * sizeof(*e));
	size_t i;

	res->corr_sorted = malloc((in->n_apis ? in->n_apis : 1) * sizeof(uint32_t));
	if (!e || !res->corr_sorted) {
		free(e);
		return -ENOMEM;
	}
	for (i = 0; i < in->n_apis; i++)
		e[i] = (struct corr_ent){
		    .corr = in->apis[i].corr, .idx = (uint32_t)i, .start = in->apis[i].start};
	qsort(e, in->n_apis, sizeof(*e), cmp_corr);
	for (i = 0; i < in->n_apis; i++)
		res->corr_sorted[i] = e[i].idx;
	free(e);
	return 0;
}

int classify_apis(struct actx *c)
{
	const struct gs_input *in = c->in;
	struct gs_result *res = c->res;
	struct cls_job half[2];
	size_t tab_n = 2 * in->n_apis + 4096 + 1; /* ids up to 2 x calls + 4096 */
	uint32_t *tab, corr_max;
	pthread_t th;
	int threaded, h;

	c->api_cls = big_malloc(in->n_apis ? in->n_apis : 1);
	/* slots hold apis index + 1, 0 = none: calloc'd fresh pages are zero
	 * already, where a fill with GS_NONE would write the whole table
	 * (40 MB on a 10M-call trace) */
	tab = big_calloc(tab_n, sizeof(uint32_t));
	if (!c->api_cls || !tab) {
		free(tab);
		return -ENOMEM;
	}
	{
		/* the second half owns the ids from its first call's on */
		uint32_t split = in->n_apis ? in->apis[in->n_apis / 2].corr : 0;
		for (h = 0; h < 2; h++)
			half[h] = (struct cls_job){.in = in,
						   .api_cls = c->api_cls,
						   .tab = tab,
						   .tab_n = tab_n,
						   .own_lo = h ? split : 0,
						   .own_hi = h ? UINT32_MAX : split,
						   .corr_min = UINT32_MAX,
						   .a = h ? in->n_apis / 2 : 0,
						   .b = h ? in->n_apis : in->n_apis / 2};
	}
	threaded = in->n_apis >= 65536 && pthread_create(&th, NULL, classify_half, &half[1]) == 0;
	classify_half(&half[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		classify_half(&half[1]);
	c->api_name_end = half[0].name_end > half[1].name_end ? half[0].name_end : half[1].name_end;
	corr_max = half[0].corr_max > half[1].corr_max ? half[0].corr_max : half[1].corr_max;
	c->corr_min = half[0].corr_min < half[1].corr_min ? half[0].corr_min : half[1].corr_min;
	for (h = 0; h < 2; h++) { /* both done: the calls of the other's ids */
		size_t q;
		for (q = 0; q < half[h].n_other; q++)
			corr_put(in, tab, in->apis[half[h].other[q]].corr, half[h].other[q]);
		free(half[h].other);
	}
	if (half[0].err || half[1].err) {
		free(tab);
		return half[0].err ? half[0].err : half[1].err;
	}
	if ((size_t)corr_max < tab_n) {
		res->corr_index = tab;
		res->corr_index_n = (size_t)corr_max + 1;
		return 0;
	}
	free(tab); /* an id too large for a direct table */
	return corr_sorted(res);
}

uint32_t gs_launch_call(const struct gs_result *res, uint32_t op_idx)
{
	const struct gs_input *in = res->in;
	uint32_t corr;
	size_t lo, hi;

	if (!in || op_idx >= in->n_ops)
		return GS_NONE;
	if (res->call_of)
		return res->call_of[op_idx];
	corr = in->ops[op_idx].corr;
	if (corr == 0)
		return GS_NONE;
	if (res->corr_index)
		return corr < res->corr_index_n ? res->corr_index[corr] - 1 /* 0 - 1 = GS_NONE */
						: GS_NONE;
	if (!res->corr_sorted)
		return GS_NONE;
	lo = 0;
	hi = in->n_apis;
	while (lo < hi) { /* first with corr >= wanted: the earliest start */
		size_t mid = lo + (hi - lo) / 2;
		if (in->apis[res->corr_sorted[mid]].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < in->n_apis && in->apis[res->corr_sorted[lo]].corr == corr)
		return res->corr_sorted[lo];
	return GS_NONE;
}
