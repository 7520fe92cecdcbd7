/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_select.c - the --range and capture selection (docs/metrics.md,
 * "--range pieces vs segments"): the windows of time a report covers, and
 * the overlap and containment tests every pass asks of them. It calls
 * nothing else of the analysis; analysis.c and analysis_stats.c call down
 * into it. No I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* ------------------------------------------------------------------ */
/* selection (--range)                                                 */
/* ------------------------------------------------------------------ */

/* First window k of sel (n disjoint [start, end] pairs, sorted) with
 * end > t (n if none). */
size_t windows_first_after(const int64_t *sel, size_t n, int64_t t)
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
size_t sel_first_after(const struct actx *c, int64_t t)
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
