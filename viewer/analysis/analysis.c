/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis.c - the core of the analysis library: per-device and per-stream
 * timelines, idle gaps and their causes (docs/metrics.md), the --range
 * selection. gs_analyze(), which runs every pass, is in analysis_run.c.
 *
 * Input arrays are never modified; everything is computed in O(n log n)
 * with one sweep over the ops (sorted by device, start) plus binary
 * searches into indexes built once. No I/O, no SQLite.
 *
 * The statistics that only read the gaps (launch distributions, syncs,
 * kernels, NVTX, graph advice) are in analysis_stats.c: they call down into
 * this file, and neither calls the other back (tests/unit/check_cycles.py).
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
/* selection (--range)                                                 */
/* ------------------------------------------------------------------ */

/* First window k of sel (n disjoint [start, end] pairs, sorted) with
 * end > t (n if none). */
static size_t windows_first_after(const int64_t *sel, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sel[2 * mid + 1] > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Closed-interval test: [a,b] meets some window of sel. */
static int windows_meet(const int64_t *sel, size_t n, int64_t a, int64_t b)
{
	size_t k = windows_first_after(sel, n, a - 1);

	return k < n && sel[2 * k] <= b;
}

/* First selection interval k with end > t (n_sel if none). */
static size_t sel_first_after(const struct actx *c, int64_t t)
{
	return windows_first_after(c->sel, c->n_sel, t);
}

/* ns of [a, b) inside the n windows of sel (all of it without windows) */
static int64_t windows_overlap(const int64_t *sel, size_t n, int has, int64_t a, int64_t b)
{
	int64_t sum = 0;
	size_t k;

	if (b <= a)
		return 0;
	if (!has)
		return b - a;
	for (k = windows_first_after(sel, n, a); k < n && sel[2 * k] < b; k++) {
		int64_t s = sel[2 * k] > a ? sel[2 * k] : a;
		int64_t e = sel[2 * k + 1] < b ? sel[2 * k + 1] : b;
		if (e > s)
			sum += e - s;
	}
	return sum;
}

int64_t sel_overlap(const struct actx *c, int64_t a, int64_t b)
{
	return windows_overlap(c->sel, c->n_sel, c->has_sel, a, b);
}

/* ns of [a, b) inside the capture windows (all of it in a trace recorded
 * whole): what a span's wall can be read as, the time between windows
 * being unrecorded */
int64_t capture_overlap(const struct actx *c, int64_t a, int64_t b)
{
	return gs_capture_overlap(c->in, a, b);
}

int64_t gs_capture_overlap(const struct gs_input *in, int64_t a, int64_t b)
{
	return windows_overlap(in->capture_windows, in->n_capture_windows,
			       in->capture_range != NULL, a, b);
}

size_t gs_capture_window_at(const struct gs_input *in, int64_t t, int64_t *from_start)
{
	const int64_t *w = in->capture_windows;
	size_t k;

	if (!in->capture_range)
		return 0;
	k = windows_first_after(w, in->n_capture_windows, t);
	if (k == in->n_capture_windows || w[2 * k] > t)
		return 0;
	if (from_start)
		*from_start = t - w[2 * k];
	return k + 1;
}

int64_t gs_result_overlap(const struct gs_result *res, int64_t a, int64_t b)
{
	return windows_overlap(res->sel, res->n_sel, res->selected, a, b);
}

/* Closed-interval test: [a,b] meets some [s,e] of the selection. */
int sel_contains_op(const struct actx *c, int64_t a, int64_t b)
{
	return !c->has_sel || windows_meet(c->sel, c->n_sel, a, b);
}

int gs_result_selects(const struct gs_result *res, int64_t a, int64_t b)
{
	return !res->selected || windows_meet(res->sel, res->n_sel, a, b);
}

int sel_contains_point(const struct actx *c, int64_t t)
{
	return sel_contains_op(c, t, t);
}

static int cmp_i64pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	if (x[1] != y[1])
		return x[1] < y[1] ? -1 : 1;
	return 0;
}

/* The wall of selected range [a, b]: in a capture trace its part inside
 * the capture windows (what was recorded of it: a range across the time
 * between two windows is not as long as its ends say), else b - a */
static int64_t range_wall(const struct actx *c, int64_t a, int64_t b)
{
	return c->in->capture_range ? capture_overlap(c, a, b) : b - a;
}

/* res->range_lead*: the leading ones of the m selected ranges sel (pairs
 * in start order) whose walls (range_wall) are GS_LEAD_FACTOR times the
 * median wall or more, at most half of them, where they hold GS_LEAD_SHARE
 * of the walls' sum or more. 0 or -ENOMEM. */
static int leading_ranges(const struct actx *c, const int64_t *sel, size_t m)
{
	struct gs_result *res = c->res;
	int64_t *w, sum = 0, lead = 0, med;
	size_t i, k = 0;

	w = malloc(m * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		w[i] = range_wall(c, sel[2 * i], sel[2 * i + 1]);
		sum = gs_sat_add(sum, w[i]);
	}
	qsort(w, m, sizeof(*w), gs_cmp_i64);
	med = w[(m - 1) / 2]; /* the lower median */
	free(w);
	res->range_median_ns = med;
	res->range_walls_ns = sum;
	if (m < GS_LEAD_MIN_RANGES || med <= 0)
		return 0;
	/* w / 4 >= med: w >= 4 med, without 4 med overflowing (a damaged
	 * trace's range of 2^62 ns) */
	while (k < m / 2 && range_wall(c, sel[2 * k], sel[2 * k + 1]) / GS_LEAD_FACTOR >= med) {
		lead = gs_sat_add(lead, range_wall(c, sel[2 * k], sel[2 * k + 1]));
		k++;
	}
	if (k && (double)lead >= GS_LEAD_SHARE * (double)sum) {
		res->range_lead = k;
		res->range_lead_ns = lead;
	}
	return 0;
}

/* The windows of sel (n disjoint [start, end] pairs, sorted) that lie
 * inside the capture windows of in: the parts of each in each, in
 * place of sel's (at most n + in->n_capture_windows of them). Returns
 * their count, or -ENOMEM. */
static int64_t intersect_capture(const struct gs_input *in, int64_t **sel, size_t n)
{
	const int64_t *w = in->capture_windows;
	size_t i = 0, k = 0, m = 0, nw = in->n_capture_windows;
	int64_t *out = malloc(2 * (n + nw + 1) * sizeof(int64_t));

	if (!out)
		return -ENOMEM;
	while (i < n && k < nw) {
		int64_t s = (*sel)[2 * i] > w[2 * k] ? (*sel)[2 * i] : w[2 * k];
		int64_t e = (*sel)[2 * i + 1] < w[2 * k + 1] ? (*sel)[2 * i + 1] : w[2 * k + 1];
		if (e > s) {
			out[2 * m] = s;
			out[2 * m + 1] = e;
			m++;
		}
		/* the one that ends first meets nothing after it */
		if ((*sel)[2 * i + 1] < w[2 * k + 1])
			i++;
		else
			k++;
	}
	free(*sel);
	*sel = out;
	return (int64_t)m;
}

/* The capture windows alone as the selection (a capture trace without
 * --range): the result's own copy. 0 or -ENOMEM. */
static int capture_selection(struct actx *c)
{
	const struct gs_input *in = c->in;
	size_t n = in->n_capture_windows;

	c->sel = malloc(2 * (n + 1) * sizeof(int64_t));
	if (!c->sel)
		return -ENOMEM;
	if (n)
		memcpy(c->sel, in->capture_windows, 2 * n * sizeof(int64_t));
	c->n_sel = n;
	c->res->sel = c->sel;
	c->res->n_sel = n;
	return 0;
}

/* The analysed time: the --range windows (NVTX ranges named
 * options.range_name), the capture windows of a trace recorded with
 * --capture-range (outside them nothing was recorded, so a gap across
 * the time between two windows is cut at their edges like one across
 * the end of a range), or, with both, the parts of the ranges inside
 * capture windows. Neither: the whole trace (has_sel 0). */
static int build_selection_base(struct actx *c)
{
	const struct gs_input *in = c->in;
	const char *name = c->opt->range_name;
	uint8_t *match = NULL;
	size_t i, n = 0, m = 0, skip;
	int rc = 0;

	if (in->capture_range) {
		c->has_sel = 1;
		c->res->selected = 1;
		c->res->capture = 1;
		c->res->capture_windows = in->n_capture_windows;
		for (i = 0; i < in->n_capture_windows; i++)
			c->res->capture_ns =
			    gs_sat_add(c->res->capture_ns,
				       in->capture_windows[2 * i + 1] - in->capture_windows[2 * i]);
		if (!name)
			return capture_selection(c);
	}
	if (!name)
		return 0;
	c->has_sel = 1;
	c->res->selected = 1;
	c->res->range_applied = 1;
	if (in->strings.n) {
		match = calloc(in->strings.n, 1);
		if (!match)
			return -ENOMEM;
		for (i = 1; i < in->strings.n; i++)
			match[i] = in->strings.v[i] && gs_name_matches(in->strings.v[i], name);
	}
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		if (r->kind == 0 && r->text_id < in->strings.n && match && match[r->text_id])
			n++;
	}
	c->res->range_matches = n;
	if (n == 0)
		goto out;
	c->sel = malloc(2 * n * sizeof(int64_t));
	if (!c->sel) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		if (r->kind == 0 && r->text_id < in->strings.n && match[r->text_id]) {
			c->sel[2 * m] = r->start;
			c->sel[2 * m + 1] = r->end > r->start ? r->end : r->start;
			m++;
		}
	}
	qsort(c->sel, m, 2 * sizeof(int64_t), cmp_i64pair);
	/* the first --skip ones are left out */
	skip = c->opt->range_skip < m ? (size_t)c->opt->range_skip : m;
	if (skip) {
		memmove(c->sel, c->sel + 2 * skip, 2 * (m - skip) * sizeof(int64_t));
		m -= skip;
	}
	c->res->range_skipped = skip;
	c->res->range_name = name;
	c->res->range_matches = m;
	if (m == 0)
		goto out;
	rc = leading_ranges(c, c->sel, m);
	if (rc)
		goto out;
	/* merge overlapping or touching ranges into disjoint ones */
	n = 0;
	for (i = 0; i < m; i++) {
		if (n && c->sel[2 * i] <= c->sel[2 * (n - 1) + 1]) {
			if (c->sel[2 * i + 1] > c->sel[2 * (n - 1) + 1])
				c->sel[2 * (n - 1) + 1] = c->sel[2 * i + 1];
		} else {
			c->sel[2 * n] = c->sel[2 * i];
			c->sel[2 * n + 1] = c->sel[2 * i + 1];
			n++;
		}
	}
	if (in->capture_range) {
		int64_t k = intersect_capture(in, &c->sel, n);
		if (k < 0) {
			rc = (int)k;
			goto out;
		}
		n = (size_t)k;
	}
	c->n_sel = n;
	for (i = 0; i < n; i++)
		c->res->range_total += c->sel[2 * i + 1] - c->sel[2 * i];
	/* the result owns the windows (gs_result_selects); c uses them */
	c->res->sel = c->sel;
	c->res->n_sel = n;
out:
	free(match);
	return rc;
}

/* The selection of build_selection_base, cut to options.span_* where it
 * is set: the verdict's steady state (gs_phases). 0 or -ENOMEM. */
int build_selection(struct actx *c)
{
	int64_t a = c->opt->span_start, b = c->opt->span_end, *out;
	size_t i, m = 0;
	int rc = build_selection_base(c);

	if (rc || b <= a)
		return rc;
	c->res->span_applied = 1;
	if (!c->has_sel) {
		c->sel = malloc(2 * sizeof(int64_t));
		if (!c->sel)
			return -ENOMEM;
		c->sel[0] = a;
		c->sel[1] = b;
		c->n_sel = 1;
		c->has_sel = 1;
		c->res->selected = 1;
		c->res->sel = c->sel;
		c->res->n_sel = 1;
		return 0;
	}
	out = malloc(2 * (c->n_sel + 1) * sizeof(int64_t));
	if (!out)
		return -ENOMEM;
	for (i = 0; i < c->n_sel; i++) {
		int64_t s = c->sel[2 * i] > a ? c->sel[2 * i] : a;
		int64_t e = c->sel[2 * i + 1] < b ? c->sel[2 * i + 1] : b;
		if (e > s) {
			out[2 * m] = s;
			out[2 * m + 1] = e;
			m++;
		}
	}
	free(c->sel);
	c->sel = out;
	c->n_sel = m;
	c->res->sel = out;
	c->res->n_sel = m;
	return 0;
}

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
static uint32_t stab_find(const struct stab *s, uint32_t key, int64_t t, uint32_t *hint)
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
static uint32_t stab_find_cached(const struct stab *s, struct cg_cache *cc, int which, uint32_t key,
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
static uint32_t evts_find(const struct evts *e, uint32_t key, int64_t lo_t, int64_t hi_t)
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
static uint32_t wait_find(const struct actx *c, const struct gs_op *x, int64_t lo_t, int64_t hi_t,
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

/* 1 when gap g lies half or more before the trace's first NVTX range: the
 * program's start-up where its ranges mark the loop (a training loop's
 * DataLoader starting its workers: one 6.58 s stall before the first
 * "step", 94% of the trace's stalls, H100 2026-12-05; GPT-2's warm-up
 * generate before "generate"). The gap that ends at the first range's
 * first op starts long before it. */
static int startup_gap(const struct actx *c, const struct gs_gap *g)
{
	return c->first_range != INT64_MAX && g->start < c->first_range &&
	       c->first_range - g->start >= g->end - c->first_range;
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
	const struct gs_input *in = c->in;
	uint32_t k = c->call_of[g->op_idx], r;
	int depth = 0;

	if (k == GS_NONE)
		return 0;
	r = gs_host_range_at(in, in->apis[k].tid, g->start, g->end);
	for (; r != GS_NONE && r < in->n_hranges && depth < 64; r = in->hranges[r].parent, depth++) {
		const char *t = gs_str(&in->strings, in->hranges[r].name_id, "");
		if (!strncmp(t, "aten::", 6) || !strncmp(t, "autograd::", 10) ||
		    !strncmp(t, "torch::autograd", 15) || !strncmp(t, "Optimizer.", 10) ||
		    strstr(t, ": forward") || strstr(t, ": backward") || strstr(t, "nn.Module"))
			return 1;
	}
	return 0;
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
	int startup = startup_gap(c, g);
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
