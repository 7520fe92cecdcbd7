/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * diff.c - two analysed runs compared (see diff.h): totals over devices,
 * then kernels, launch APIs and NVTX ranges matched by name with a sort and
 * merge over both runs' names. Text and JSON writers for `gapscope diff`.
 * It does no analysis of its own: every figure comes from gs_result.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "diff.h"
#include "term.h"
#include "export.h"
#include "names.h"
#include "report.h" /* REPORT_NAME_CHARS */
#include "utf8.h"

void run_totals_compute(const struct gs_result *res, struct run_totals *t)
{
	int64_t first = 0, last = 0;
	int any = 0;
	size_t i, c;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < res->n_devices; i++) {
		const struct gs_timeline *tl = &res->devices[i].tl;
		if (tl->n_ops == 0)
			continue;
		if (!any || tl->first < first)
			first = tl->first;
		if (!any || tl->last > last)
			last = tl->last;
		any = 1;
		/* sums over devices saturate at 2^63-1 as the analysis' sums do:
		 * each device's window lies in [0, 2^62] ns, two of them need not
		 * (two devices busy 2^62 ns each overflowed: UBSan here, and
		 * diff --json printed -2^63 ns busy) */
		t->window = gs_sat_add(t->window, tl->window);
		t->busy = gs_sat_add(t->busy, tl->busy);
		t->idle = gs_sat_add(t->idle, tl->idle);
		t->gaps += tl->n_gaps;
		t->ops += tl->n_ops;
		for (c = 0; c < GS_CAUSE_COUNT; c++) {
			t->idle_by_cause[c] = gs_sat_add(t->idle_by_cause[c], tl->idle_by_cause[c]);
			t->gaps_by_cause[c] += tl->gaps_by_cause[c];
		}
		t->launch_calls = gs_sat_add(t->launch_calls, tl->launch_calls);
	}
	/* in a capture trace, the GPU span's part inside the capture
	 * windows: the time between them was not recorded */
	t->wall = any ? gs_result_overlap(res, first, last) : 0;
	t->range_applied = res->range_applied;
	t->range_matches = res->range_matches;
	t->range_total = res->range_total;
	t->capture = res->capture;
	t->capture_windows = res->capture_windows;
	t->capture_ns = res->capture_ns;
	/* The GPU span of a whole trace includes every other phase; what a
	 * phase took is the length of its ranges. */
	if (res->range_applied)
		t->wall = res->range_total;
	t->kernels = res->n_kernel_ops;
	for (i = 0; i < res->n_launches; i++)
		t->launches += res->launches[i].api_dur.n;
	if (t->window > 0) {
		t->utilisation = (double)t->busy / (double)t->window;
		t->launch_overhead_share =
		    (double)(t->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY] +
			     t->idle_by_cause[GS_CAUSE_GRAPH_INTERNAL] + t->launch_calls) /
		    (double)t->window;
		t->host_code_share =
		    (double)t->idle_by_cause[GS_CAUSE_HOST_CODE] / (double)t->window;
	}
}

int diff_nvtx_is_selection(const char *name, const char *range_before, const char *range_after)
{
	if (!range_before || !range_after || !strcmp(range_before, range_after))
		return 0;
	return !strcmp(name, range_before) || !strcmp(name, range_after);
}

double diff_rel(double before, double after)
{
	return before != 0.0 ? (after - before) / before : NAN;
}

/* A name and where it is in run r's result array. */
struct named {
	const char *name;
	int run;    /* 0 or 1 */
	size_t idx; /* index in that run's array */
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : x->run - y->run;
}

/* Collect the names of both runs' n[r] items, sorted; returns the array
 * (length n[0] + n[1]) or NULL. */
static struct named *collect(const struct gs_result *res[2], const size_t n[2],
			     uint32_t (*name_of)(const struct gs_result *, size_t))
{
	struct named *v = malloc((n[0] + n[1] + 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return NULL;
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < n[r]; i++) {
			v[k].name = gs_str(&res[r]->in->strings, name_of(res[r], i), "(unnamed)");
			v[k].run = r;
			v[k].idx = i;
			k++;
		}
	qsort(v, k, sizeof(*v), cmp_named);
	return v;
}

static uint32_t kernel_name(const struct gs_result *r, size_t i)
{
	return r->kernels[i].name_id;
}
static uint32_t launch_name(const struct gs_result *r, size_t i)
{
	return r->launches[i].name_id;
}
static uint32_t nvtx_name(const struct gs_result *r, size_t i)
{
	return r->nvtx[i].text_id;
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct diff_kernel *x = a, *y = b;
	int64_t mx = x->total[0] > x->total[1] ? x->total[0] : x->total[1];
	int64_t my = y->total[0] > y->total[1] ? y->total[0] : y->total[1];
	return mx != my ? (mx < my ? 1 : -1) : strcmp(x->name, y->name);
}

static int cmp_launch(const void *a, const void *b)
{
	const struct diff_launch *x = a, *y = b;
	uint64_t mx = x->count[0] > x->count[1] ? x->count[0] : x->count[1];
	uint64_t my = y->count[0] > y->count[1] ? y->count[0] : y->count[1];
	return mx != my ? (mx < my ? 1 : -1) : strcmp(x->name, y->name);
}

static int cmp_nvtx(const void *a, const void *b)
{
	const struct diff_nvtx *x = a, *y = b;
	int64_t mx = x->wall[0] > x->wall[1] ? x->wall[0] : x->wall[1];
	int64_t my = y->wall[0] > y->wall[1] ? y->wall[0] : y->wall[1];
	return mx != my ? (mx < my ? 1 : -1) : strcmp(x->name, y->name);
}

static int cmp_finding(const void *a, const void *b)
{
	const struct diff_finding *x = a, *y = b;
	int64_t mx = x->cost[0] > x->cost[1] ? x->cost[0] : x->cost[1];
	int64_t my = y->cost[0] > y->cost[1] ? y->cost[0] : y->cost[1];

	if (mx != my)
		return mx > my ? -1 : 1;
	return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* The two runs' verdict findings, matched by rule and API name: what a
 * change fixed shows as a finding gone, what it caused as a new one. */
static void diff_findings(const struct gs_result *res[2], struct diff_result *d)
{
	int r;

	for (r = 0; r < 2; r++) {
		struct gs_verdict v;
		size_t i, k;
		gs_verdict_compute(res[r], &v);
		for (i = 0; i < v.n_findings; i++) {
			const struct gs_finding *f = &v.findings[i];
			const char *api = f->api_name_id
					      ? gs_str(&res[r]->in->strings, f->api_name_id, NULL)
					      : NULL;
			for (k = 0; k < d->n_findings; k++)
				if (d->findings[k].rule == f->rule &&
				    (d->findings[k].api == api ||
				     (d->findings[k].api && api &&
				      !strcmp(d->findings[k].api, api))))
					break;
			if (k == d->n_findings) {
				if (k == DIFF_FINDINGS)
					continue;
				d->n_findings++;
				d->findings[k].rule = f->rule;
				d->findings[k].api = api;
			}
			d->findings[k].cost[r] = f->cost_ns;
			d->findings[k].share[r] = f->share;
		}
	}
	qsort(d->findings, d->n_findings, sizeof(d->findings[0]), cmp_finding);
}

int diff_compute(const struct gs_result *before, const struct gs_result *after,
		 struct diff_result *d)
{
	const struct gs_result *res[2] = {before, after};
	struct named *v = NULL;
	size_t n[2], i, k;

	memset(d, 0, sizeof(*d));
	run_totals_compute(before, &d->run[0]);
	run_totals_compute(after, &d->run[1]);
	diff_findings(res, d);

	/* kernels: names are unique within a run's kernel stats, so equal
	 * names in the sorted list are the same kernel in the two runs */
	n[0] = before->n_kernels, n[1] = after->n_kernels;
	if (!(v = collect(res, n, kernel_name)))
		goto nomem;
	d->kernels = calloc(n[0] + n[1] + 1, sizeof(*d->kernels));
	if (!d->kernels)
		goto nomem;
	for (i = 0, k = 0; i < n[0] + n[1]; k++) {
		struct diff_kernel *o = &d->kernels[k];
		o->name = v[i].name;
		do {
			const struct gs_kernel_stat *s = &res[v[i].run]->kernels[v[i].idx];
			o->count[v[i].run] += s->count;
			o->total[v[i].run] += s->total;
			o->p50[v[i].run] = s->p50;
			i++;
		} while (i < n[0] + n[1] && !strcmp(v[i].name, o->name));
	}
	d->n_kernels = k;
	qsort(d->kernels, k, sizeof(*d->kernels), cmp_kernel);
	free(v);

	n[0] = before->n_launches, n[1] = after->n_launches;
	if (!(v = collect(res, n, launch_name)))
		goto nomem;
	d->launches = calloc(n[0] + n[1] + 1, sizeof(*d->launches));
	if (!d->launches)
		goto nomem;
	for (i = 0, k = 0; i < n[0] + n[1]; k++) {
		struct diff_launch *o = &d->launches[k];
		o->name = v[i].name;
		do {
			const struct gs_launch_stat *s = &res[v[i].run]->launches[v[i].idx];
			o->count[v[i].run] += s->api_dur.n;
			o->api_p50[v[i].run] = s->api_dur.p50;
			o->delay_p50[v[i].run] = s->delay.p50;
			i++;
		} while (i < n[0] + n[1] && !strcmp(v[i].name, o->name));
	}
	d->n_launches = k;
	qsort(d->launches, k, sizeof(*d->launches), cmp_launch);
	free(v);

	n[0] = before->n_nvtx, n[1] = after->n_nvtx;
	if (!(v = collect(res, n, nvtx_name)))
		goto nomem;
	d->nvtx = calloc(n[0] + n[1] + 1, sizeof(*d->nvtx));
	if (!d->nvtx)
		goto nomem;
	for (i = 0, k = 0; i < n[0] + n[1]; k++) {
		struct diff_nvtx *o = &d->nvtx[k];
		o->name = v[i].name;
		do {
			const struct gs_nvtx_stat *s = &res[v[i].run]->nvtx[v[i].idx];
			o->count[v[i].run] += s->count;
			o->wall[v[i].run] += s->wall;
			o->busy_share[v[i].run] = s->busy_share;
			i++;
		} while (i < n[0] + n[1] && !strcmp(v[i].name, o->name));
	}
	d->n_nvtx = k;
	qsort(d->nvtx, k, sizeof(*d->nvtx), cmp_nvtx);
	free(v);
	return 0;
nomem:
	free(v);
	diff_free(d);
	return -ENOMEM;
}

void diff_free(struct diff_result *d)
{
	free(d->kernels);
	free(d->launches);
	free(d->nvtx);
	memset(d, 0, sizeof(*d));
}

void diff_set_corrected(struct diff_result *d, const struct gs_corrected *before,
			const struct gs_corrected *after)
{
	const struct gs_corrected *c[2] = {before, after};
	int64_t busy;
	int i;

	for (i = 0; i < 2; i++) {
		struct run_totals *t = &d->run[i];
		t->corrected = c[i] && c[i]->n_devices;
		t->corrected_utilisation =
		    t->corrected ? gs_corrected_total(c[i], &t->corrected_window, &busy) : 0.0;
		if (!t->corrected)
			t->corrected_window = 0;
	}
}

/* ---- text ----------------------------------------------------------- */

/* ns with a unit, 3 significant digits */
static void fmt_ns(char *buf, size_t n, double ns)
{
	double a = fabs(ns);

	if (a < 1e3)
		snprintf(buf, n, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, n, "%.3g us", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, n, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, n, "%.4g s", ns / 1e9);
}

static void fmt_rel(char *buf, size_t n, double before, double after)
{
	double r = diff_rel(before, after);

	if (isnan(r))
		snprintf(buf, n, "%s", after == before ? "=" : "new");
	else
		snprintf(buf, n, "%+.1f%%", r * 100.0);
}

/* one row: label, before, after, change, relative change; kind 0 = ns,
 * 1 = count, 2 = share (0..1, change in percentage points) */
static void row(FILE *f, const char *label, double b, double a, int kind)
{
	char sb[32], sa[32], sd[32], sr[32];

	if (kind == 0) {
		fmt_ns(sb, sizeof(sb), b);
		fmt_ns(sa, sizeof(sa), a);
		fmt_ns(sd, sizeof(sd), a - b);
		if (a - b > 0)
			memmove(sd + 1, sd, strlen(sd) + 1), sd[0] = '+';
	} else if (kind == 1) {
		snprintf(sb, sizeof(sb), "%.0f", b);
		snprintf(sa, sizeof(sa), "%.0f", a);
		snprintf(sd, sizeof(sd), "%+.0f", a - b);
	} else {
		snprintf(sb, sizeof(sb), "%.1f%%", b * 100);
		snprintf(sa, sizeof(sa), "%.1f%%", a * 100);
		snprintf(sd, sizeof(sd), "%+.1f pt", (a - b) * 100);
	}
	fmt_rel(sr, sizeof(sr), b, a);
	fprintf(f, "  %-28s %12s %12s %12s %9s\n", label, sb, sa, sd, sr);
}

/* a name, at most about `max` bytes, through the terminal sanitizer
 * (term.h: C0 and C1 controls and bytes that are not UTF-8 escaped), so a
 * name cannot drive the terminal */
static void put_name(FILE *f, const char *str, size_t max)
{
	if (term_put_max(f, str, max))
		fputs("...", f);
}

/* "before: run.db, NVTX range "x": 3 ranges, 1.2 ms in all", and for a
 * capture trace "capture windows: 2, 2.000 ms in all" */
static void put_side(FILE *f, const char *role, const struct diff_side *s,
		     const struct run_totals *t)
{
	char len[32];

	fprintf(f, "  %-7s ", role);
	put_name(f, s->path, 200);
	if (t->capture) {
		fmt_ns(len, sizeof(len), (double)t->capture_ns);
		fprintf(f, ", capture windows: %llu, %s in all (only they were recorded)",
			(unsigned long long)t->capture_windows, len);
	}
	if (!s->range) {
		fputs(t->capture ? "\n" : ", whole trace\n", f);
		return;
	}
	fmt_ns(len, sizeof(len), (double)t->range_total);
	fputs(", NVTX range \"", f);
	put_name(f, s->range, 100);
	fprintf(f, "\": %llu range%s, %s in all\n", (unsigned long long)t->range_matches,
		t->range_matches == 1 ? "" : "s", len);
}

void diff_write_text(FILE *f, const struct diff_result *d, const struct diff_side side[2],
		     size_t top)
{
	const struct run_totals *b = &d->run[0], *a = &d->run[1];
	const char *wall_label = "wall time (GPU span)";
	size_t i, c;

	if (!side[0].range && !side[1].range && !b->capture && !a->capture) {
		fputs("gapscope diff: before = ", f);
		put_name(f, side[0].path, 200);
		fputs(", after = ", f);
		put_name(f, side[1].path, 200);
		fputc('\n', f);
	} else {
		fputs("gapscope diff\n", f);
		put_side(f, "before:", &side[0], b);
		put_side(f, "after:", &side[1], a);
		if (side[0].range && side[1].range) {
			wall_label = "wall time (selected ranges)";
		} else if (side[0].range || side[1].range) {
			wall_label = "wall time";
			fputs("  (wall time: the ranges' length where a range is selected, else "
			      "the GPU span)\n",
			      f);
		}
		if (b->capture || a->capture)
			fputs("  (in a capture trace every figure counts only the time inside its "
			      "capture windows)\n",
			      f);
	}
	fprintf(f, "\n  %-28s %12s %12s %12s %9s\n", "", "before", "after", "change", "rel");
	row(f, wall_label, (double)b->wall, (double)a->wall, 0);
	row(f, "GPU busy", (double)b->busy, (double)a->busy, 0);
	row(f, "GPU utilisation", b->utilisation, a->utilisation, 2);
	if (b->corrected && a->corrected)
		row(f, "  corrected for tracing", b->corrected_utilisation,
		    a->corrected_utilisation, 2);
	row(f, "launch overhead share", b->launch_overhead_share, a->launch_overhead_share, 2);
	row(f, "host code share", b->host_code_share, a->host_code_share, 2);
	row(f, "idle", (double)b->idle, (double)a->idle, 0);
	for (c = 0; c < GS_CAUSE_COUNT; c++) {
		char label[48];
		snprintf(label, sizeof(label), "  idle %s", gs_cause_name((int)c));
		row(f, label, (double)b->idle_by_cause[c], (double)a->idle_by_cause[c], 0);
	}
	row(f, "idle gaps", (double)b->gaps, (double)a->gaps, 1);
	row(f, "launch calls", (double)b->launches, (double)a->launches, 1);
	row(f, "kernels", (double)b->kernels, (double)a->kernels, 1);

	if (d->n_findings) {
		fprintf(f, "\nverdict findings (the GPU idle each stood for, before -> after; "
			   "-: did not fire)\n");
		for (i = 0; i < d->n_findings; i++) {
			const struct diff_finding *x = &d->findings[i];
			char c0[32] = "-", c1[32] = "-";
			if (x->cost[0])
				fmt_ns(c0, sizeof(c0), (double)x->cost[0]);
			if (x->cost[1])
				fmt_ns(c1, sizeof(c1), (double)x->cost[1]);
			fprintf(f, "  %9s -> %9s  %s", c0, c1, gs_rule_title(x->rule));
			if (x->api) {
				fputs(", ", f);
				put_name(f, x->api, 60);
			}
			putc('\n', f);
		}
	}
	if (d->n_launches) {
		fprintf(f, "\nlaunch calls by API (count before -> after, p50 API time)\n");
		for (i = 0; i < d->n_launches && i < top; i++) {
			const struct diff_launch *l = &d->launches[i];
			char r[32], p0[32], p1[32];
			fmt_rel(r, sizeof(r), (double)l->count[0], (double)l->count[1]);
			fmt_ns(p0, sizeof(p0), (double)l->api_p50[0]);
			fmt_ns(p1, sizeof(p1), (double)l->api_p50[1]);
			fprintf(f, "  %8llu -> %8llu %8s  %9s -> %9s  ",
				(unsigned long long)l->count[0], (unsigned long long)l->count[1], r,
				p0, p1);
			put_name(f, l->name, 80);
			putc('\n', f);
		}
	}
	if (d->n_kernels) {
		fprintf(f, "\ntop kernels by GPU time (total before -> after, count)\n");
		for (i = 0; i < d->n_kernels && i < top; i++) {
			const struct diff_kernel *k = &d->kernels[i];
			char t0[32], t1[32], r[32];
			fmt_ns(t0, sizeof(t0), (double)k->total[0]);
			fmt_ns(t1, sizeof(t1), (double)k->total[1]);
			fmt_rel(r, sizeof(r), (double)k->total[0], (double)k->total[1]);
			fprintf(f, "  %9s -> %9s %8s  %6llu -> %6llu  ", t0, t1, r,
				(unsigned long long)k->count[0], (unsigned long long)k->count[1]);
			{
				/* as the report shows it: the short name */
				char sn[4 * REPORT_NAME_CHARS + 8];
				gs_short_name(k->name, sn, sizeof(sn), REPORT_NAME_CHARS);
				put_name(f, sn, 100);
			}
			putc('\n', f);
		}
	}
	for (i = 0, c = 0; i < d->n_nvtx && c < top; i++) {
		const struct diff_nvtx *n = &d->nvtx[i];
		char w0[32], w1[32], r[32];
		if (diff_nvtx_is_selection(n->name, side[0].range, side[1].range))
			continue;
		if (c++ == 0)
			fprintf(f, "\nNVTX ranges (wall before -> after, GPU busy share)\n");
		fmt_ns(w0, sizeof(w0), (double)n->wall[0]);
		fmt_ns(w1, sizeof(w1), (double)n->wall[1]);
		fmt_rel(r, sizeof(r), (double)n->wall[0], (double)n->wall[1]);
		fprintf(f, "  %9s -> %9s %8s  %5.1f%% -> %5.1f%%  ", w0, w1, r,
			n->busy_share[0] * 100, n->busy_share[1] * 100);
		put_name(f, n->name, 100);
		putc('\n', f);
	}
}

/* ---- JSON ----------------------------------------------------------- */

/* A JSON string for any bytes: json_string() refuses invalid UTF-8, and a
 * kernel name from a trace may hold any bytes; bad ones become U+FFFD. */
static json_t *jstr(const char *s)
{
	size_t len = strlen(s), i = 0, k = 0;
	char *buf = malloc(3 * len + 1);
	json_t *j;

	if (!buf)
		return NULL;
	while (i < len) {
		int n = utf8_sequence_length((const unsigned char *)s + i, len - i);
		if (n > 0) {
			memcpy(buf + k, s + i, (size_t)n);
			k += (size_t)n;
			i += (size_t)n;
		} else {
			memcpy(buf + k, "\xEF\xBF\xBD", 3);
			k += 3;
			i++;
		}
	}
	j = json_stringn(buf, k);
	free(buf);
	return j;
}

static json_t *pair_int(int64_t b, int64_t a)
{
	json_t *o = json_object();
	double r = diff_rel((double)b, (double)a);

	json_object_set_new(o, "before", json_integer(b));
	json_object_set_new(o, "after", json_integer(a));
	json_object_set_new(o, "change", json_integer(a - b));
	json_object_set_new(o, "relative", isnan(r) ? json_null() : json_real(r));
	return o;
}

static json_t *pair_real(double b, double a)
{
	json_t *o = json_object();
	double r = diff_rel(b, a);

	json_object_set_new(o, "before", json_real(b));
	json_object_set_new(o, "after", json_real(a));
	json_object_set_new(o, "change", json_real(a - b));
	json_object_set_new(o, "relative", isnan(r) ? json_null() : json_real(r));
	return o;
}

int diff_write_json(FILE *f, const struct diff_result *d, const struct diff_side side[2])
{
	const struct run_totals *b = &d->run[0], *a = &d->run[1];
	json_t *root = json_object(), *tot = json_object(), *idle = json_object(), *arr;
	size_t i, c;
	int rc;

	json_object_set_new(root, "before", jstr(side[0].path));
	json_object_set_new(root, "after", jstr(side[1].path));
	json_object_set_new(root, "before_range",
			    side[0].range ? jstr(side[0].range) : json_null());
	json_object_set_new(root, "after_range", side[1].range ? jstr(side[1].range) : json_null());
	json_object_set_new(tot, "selected_ranges",
			    pair_int((int64_t)b->range_matches, (int64_t)a->range_matches));
	/* a capture trace's windows (0 and 0 for a trace recorded whole) */
	json_object_set_new(tot, "capture_windows",
			    pair_int((int64_t)b->capture_windows, (int64_t)a->capture_windows));
	json_object_set_new(tot, "captured_ns", pair_int(b->capture_ns, a->capture_ns));
	json_object_set_new(tot, "wall_ns", pair_int(b->wall, a->wall));
	json_object_set_new(tot, "window_ns", pair_int(b->window, a->window));
	json_object_set_new(tot, "busy_ns", pair_int(b->busy, a->busy));
	json_object_set_new(tot, "idle_ns", pair_int(b->idle, a->idle));
	json_object_set_new(tot, "utilisation", pair_real(b->utilisation, a->utilisation));
	/* both runs corrected for tracing, else null */
	json_object_set_new(tot, "corrected_utilisation",
			    b->corrected && a->corrected
				? pair_real(b->corrected_utilisation, a->corrected_utilisation)
				: json_null());
	json_object_set_new(tot, "launch_overhead_share",
			    pair_real(b->launch_overhead_share, a->launch_overhead_share));
	json_object_set_new(tot, "host_code_share",
			    pair_real(b->host_code_share, a->host_code_share));
	json_object_set_new(tot, "gaps", pair_int((int64_t)b->gaps, (int64_t)a->gaps));
	json_object_set_new(tot, "launches", pair_int((int64_t)b->launches, (int64_t)a->launches));
	json_object_set_new(tot, "kernels", pair_int((int64_t)b->kernels, (int64_t)a->kernels));
	for (c = 0; c < GS_CAUSE_COUNT; c++)
		json_object_set_new(idle, gs_cause_key((int)c),
				    pair_int(b->idle_by_cause[c], a->idle_by_cause[c]));
	json_object_set_new(tot, "idle_by_cause_ns", idle);
	json_object_set_new(root, "totals", tot);

	arr = json_array();
	for (i = 0; i < d->n_findings; i++) {
		const struct diff_finding *x = &d->findings[i];
		json_t *o = json_object();
		json_object_set_new(o, "rule", json_string(gs_rule_key(x->rule)));
		json_object_set_new(o, "title", json_string(gs_rule_title(x->rule)));
		json_object_set_new(o, "api", x->api ? jstr(x->api) : json_null());
		json_object_set_new(o, "cost_ns", pair_int(x->cost[0], x->cost[1]));
		json_object_set_new(o, "share", pair_real(x->share[0], x->share[1]));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "findings", arr);

	arr = json_array();
	for (i = 0; i < d->n_kernels; i++) {
		json_t *o = json_object();
		char *dm = gs_demangle(d->kernels[i].name);
		json_object_set_new(o, "name", jstr(d->kernels[i].name));
		json_object_set_new(o, "demangled", dm ? jstr(dm) : json_null());
		free(dm);
		json_object_set_new(
		    o, "count",
		    pair_int((int64_t)d->kernels[i].count[0], (int64_t)d->kernels[i].count[1]));
		json_object_set_new(o, "total_ns",
				    pair_int(d->kernels[i].total[0], d->kernels[i].total[1]));
		json_object_set_new(o, "p50_ns",
				    pair_int(d->kernels[i].p50[0], d->kernels[i].p50[1]));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "kernels", arr);

	arr = json_array();
	for (i = 0; i < d->n_launches; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "name", jstr(d->launches[i].name));
		json_object_set_new(
		    o, "count",
		    pair_int((int64_t)d->launches[i].count[0], (int64_t)d->launches[i].count[1]));
		json_object_set_new(o, "api_p50_ns",
				    pair_int(d->launches[i].api_p50[0], d->launches[i].api_p50[1]));
		json_object_set_new(
		    o, "delay_p50_ns",
		    pair_int(d->launches[i].delay_p50[0], d->launches[i].delay_p50[1]));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "launches", arr);

	arr = json_array();
	for (i = 0; i < d->n_nvtx; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "name", jstr(d->nvtx[i].name));
		json_object_set_new(
		    o, "count",
		    pair_int((int64_t)d->nvtx[i].count[0], (int64_t)d->nvtx[i].count[1]));
		json_object_set_new(o, "wall_ns", pair_int(d->nvtx[i].wall[0], d->nvtx[i].wall[1]));
		json_object_set_new(o, "busy_share",
				    pair_real(d->nvtx[i].busy_share[0], d->nvtx[i].busy_share[1]));
		json_array_append_new(arr, o);
	}
	json_object_set_new(root, "nvtx", arr);

	rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(root);
	return rc == 0 && !ferror(f) ? 0 : -1;
}
