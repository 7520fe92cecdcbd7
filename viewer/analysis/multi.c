/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * multi.c - the multi-trace report's computation (multi.h): what is kept
 * of each trace, the common clock, the step name, and the comparison of
 * the ranks' step ranges and communication time. It reads arrays and
 * writes arrays; loading and printing are the trace and render rooms'.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "multi.h"

static int iv_cmp(const void *a, const void *b)
{
	const struct gs_multi_iv *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Merge sorted-by-start intervals in place into disjoint ones (touching
 * intervals merge); returns the new count. */
static size_t iv_union(struct gs_multi_iv *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k && v[i].start <= v[k - 1].end) {
			if (v[i].end > v[k - 1].end)
				v[k - 1].end = v[i].end;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

int64_t gs_multi_covered(const struct gs_multi_iv *iv, size_t n, int64_t s, int64_t e)
{
	size_t lo = 0, hi = n;
	int64_t sum = 0;

	/* first interval ending after s */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (iv[mid].end <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && iv[lo].start < e; lo++) {
		int64_t a = iv[lo].start > s ? iv[lo].start : s;
		int64_t b = iv[lo].end < e ? iv[lo].end : e;
		if (b > a)
			sum = gs_sat_add(sum, b - a);
	}
	return sum;
}

/* Append to *out the parts of the disjoint sorted intervals a[] that no
 * interval of the disjoint sorted b[] covers. */
static int iv_subtract(const struct gs_multi_iv *a, size_t na, const struct gs_multi_iv *b,
		       size_t nb, struct gs_multi_iv **out, size_t *n, size_t *cap)
{
	size_t i, j = 0;

	for (i = 0; i < na; i++) {
		int64_t cur = a[i].start;
		while (j < nb && b[j].end <= cur)
			j++;
		for (size_t k = j; cur < a[i].end; k++) {
			int64_t stop = k < nb && b[k].start < a[i].end ? b[k].start : a[i].end;
			if (stop > cur) {
				if (*n == *cap) {
					size_t nc = *cap ? 2 * *cap : 64;
					struct gs_multi_iv *p = realloc(*out, nc * sizeof(*p));
					if (!p)
						return -ENOMEM;
					*out = p;
					*cap = nc;
				}
				(*out)[(*n)++] = (struct gs_multi_iv){cur, stop};
			}
			if (k >= nb || b[k].start >= a[i].end)
				break;
			cur = b[k].end;
		}
	}
	return 0;
}

/* exposed communication of one device: ops[first, end) in start order */
static int exposed_comm(const struct gs_input *in, uint32_t first, uint32_t end,
			const uint8_t *is_comm, struct gs_multi_iv **out, size_t *n, size_t *cap)
{
	size_t cnt = end - first, nc = 0, no = 0, i;
	struct gs_multi_iv *c = malloc((cnt ? cnt : 1) * sizeof(*c));
	struct gs_multi_iv *o = malloc((cnt ? cnt : 1) * sizeof(*o));
	int rc = -ENOMEM;

	if (!c || !o)
		goto out;
	for (i = first; i < end; i++) {
		const struct gs_op *op = &in->ops[i];
		struct gs_multi_iv v = {op->start, op->end};
		if (op->kind == GS_OP_KERNEL && op->name_id < in->strings.n && is_comm[op->name_id])
			c[nc++] = v;
		else
			o[no++] = v;
	}
	/* ops come sorted by (device, start, end): no sort needed */
	nc = iv_union(c, nc);
	no = iv_union(o, no);
	rc = iv_subtract(c, nc, o, no, out, n, cap);
out:
	free(c);
	free(o);
	return rc;
}

int gs_multi_extract(const struct gs_input *in, const struct gs_result *res, const char *comm_range,
		     struct gs_multi_trace *t)
{
	struct gs_verdict v;
	uint32_t *local = NULL;
	uint8_t *is_comm = NULL;
	size_t i, cap = 0;
	int64_t lo_num = 0, lo_win = 0;
	int rc = -ENOMEM;

	/* the summary: the verdict's figures, summed over devices */
	gs_verdict_compute(res, &v);
	t->window = v.window;
	t->busy = v.busy;
	t->utilisation = v.utilisation;
	memcpy(t->idle_by_cause, v.idle_by_cause, sizeof(t->idle_by_cause));
	t->has_finding = v.n_findings > 0;
	if (t->has_finding)
		t->top = v.findings[0];
	t->first = INT64_MAX;
	t->last = INT64_MIN;
	for (i = 0; i < res->n_devices; i++) {
		const struct gs_timeline *tl = &res->devices[i].tl;
		if (tl->first < t->first)
			t->first = tl->first;
		if (tl->last > t->last)
			t->last = tl->last;
		lo_num = gs_sat_add(lo_num, tl->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY]);
		lo_num = gs_sat_add(lo_num, tl->idle_by_cause[GS_CAUSE_GRAPH_INTERNAL]);
		lo_num = gs_sat_add(lo_num, tl->launch_calls);
		lo_win = gs_sat_add(lo_win, tl->window);
	}
	if (!res->n_devices)
		t->first = t->last = 0;
	t->launch_overhead_share = lo_win > 0 ? (double)lo_num / (double)lo_win : 0.0;
	if (res->capture && in->capture_range) {
		t->capture_range = strdup(in->capture_range);
		if (!t->capture_range)
			goto out;
		t->capture_windows = res->capture_windows;
		t->capture_ns = res->capture_ns;
	}

	/* NVTX ranges and their distinct texts */
	local = malloc((in->strings.n ? in->strings.n : 1) * sizeof(*local));
	is_comm = calloc(in->strings.n ? in->strings.n : 1, 1);
	if (!local || !is_comm)
		goto out;
	memset(local, 0xff, (in->strings.n ? in->strings.n : 1) * sizeof(*local));
	t->ranges = malloc((in->n_nvtx ? in->n_nvtx : 1) * sizeof(*t->ranges));
	if (!t->ranges)
		goto out;
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		const char *txt;
		if (r->kind != 0 || r->text_id == 0 || r->text_id >= in->strings.n)
			continue;
		txt = gs_str(&in->strings, r->text_id, NULL);
		if (!txt)
			continue;
		if (local[r->text_id] == GS_NONE) {
			char **p = realloc(t->names, (t->n_names + 1) * sizeof(*p));
			if (!p)
				goto out;
			t->names = p;
			if (!(t->names[t->n_names] = strdup(txt)))
				goto out;
			local[r->text_id] = t->n_names++;
		}
		t->ranges[t->n_ranges++] = (struct gs_multi_range){
		    r->start, r->end > r->start ? r->end : r->start, local[r->text_id]};
	}
	/* occurrence order: by start (the ranges of one name of one thread
	 * never start at the same ns; across threads the order is arbitrary) */
	for (i = 1; i < t->n_ranges; i++) {
		struct gs_multi_range x = t->ranges[i];
		size_t j = i;
		if (t->ranges[j - 1].start <= x.start)
			continue;
		/* insertion sort: the table is almost in order (index nvtx(start)) */
		while (j > 0 && t->ranges[j - 1].start > x.start) {
			t->ranges[j] = t->ranges[j - 1];
			j--;
		}
		t->ranges[j] = x;
	}

	/* communication */
	if (comm_range) {
		for (i = 0; i < t->n_ranges; i++) {
			if (strcmp(t->names[t->ranges[i].name], comm_range))
				continue;
			if (t->n_comm == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct gs_multi_iv *p = realloc(t->comm, nc * sizeof(*p));
				if (!p)
					goto out;
				t->comm = p;
				cap = nc;
			}
			t->comm[t->n_comm++] =
			    (struct gs_multi_iv){t->ranges[i].start, t->ranges[i].end};
		}
	} else {
		for (i = 1; i < in->strings.n; i++) {
			const char *s = in->strings.v[i];
			is_comm[i] = s && strstr(s, "nccl") != NULL;
		}
		for (i = 0; i < res->n_devices; i++) {
			const struct gs_device_result *d = &res->devices[i];
			if (exposed_comm(in, d->first_op, d->end_op, is_comm, &t->comm, &t->n_comm,
					 &cap) < 0)
				goto out;
		}
	}
	/* devices interleave; ranges of several threads overlap */
	if (t->n_comm)
		qsort(t->comm, t->n_comm, sizeof(*t->comm), iv_cmp);
	t->n_comm = iv_union(t->comm, t->n_comm);
	rc = 0;
out:
	free(local);
	free(is_comm);
	return rc;
}

void gs_multi_trace_free(struct gs_multi_trace *t)
{
	uint32_t i;

	for (i = 0; i < t->n_names; i++)
		free(t->names[i]);
	free(t->names);
	free(t->ranges);
	free(t->comm);
	free(t->hostname);
	free(t->rank_source);
	free(t->capture_range);
	memset(t, 0, sizeof(*t));
}

int gs_multi_align(struct gs_multi_trace *t, size_t n)
{
	size_t i;
	int mono = n > 0, real = n > 0, clock;

	for (i = 0; i < n; i++) {
		if (!t[i].has_mono || !t[i].hostname || !t[0].hostname ||
		    strcmp(t[i].hostname, t[0].hostname))
			mono = 0;
		if (!t[i].has_real)
			real = 0;
	}
	clock = mono ? GS_MULTI_CLOCK_MONOTONIC
		     : (real ? GS_MULTI_CLOCK_REALTIME : GS_MULTI_CLOCK_NONE);
	for (i = 0; i < n; i++)
		t[i].offset = clock == GS_MULTI_CLOCK_MONOTONIC	 ? t[i].mono_offset
			      : clock == GS_MULTI_CLOCK_REALTIME ? t[i].real_offset
								 : 0;
	return clock;
}

int64_t gs_multi_apart(const struct gs_multi_trace *t, size_t n)
{
	int64_t latest_start = INT64_MIN, earliest_end = INT64_MAX;
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].last <= t[i].first && t[i].window <= 0)
			continue; /* no GPU window */
		if (t[i].first + t[i].offset > latest_start)
			latest_start = t[i].first + t[i].offset;
		if (t[i].last + t[i].offset < earliest_end)
			earliest_end = t[i].last + t[i].offset;
	}
	if (latest_start == INT64_MIN || latest_start <= earliest_end)
		return 0;
	return latest_start - earliest_end;
}

/* match[k] = 1 for the names of t that `name` names; 0 when none does,
 * -1 out of memory. The caller frees *match. */
static int names_of(const struct gs_multi_trace *t, const char *name, uint8_t **match)
{
	uint32_t k;
	int any = 0;

	*match = calloc(t->n_names ? t->n_names : 1, 1);
	if (!*match)
		return -1;
	for (k = 0; k < t->n_names; k++)
		if (gs_name_matches(t->names[k], name))
			(*match)[k] = 1, any = 1;
	return any;
}

/* ranges of t named name: their count and summed duration */
static uint64_t name_count(const struct gs_multi_trace *t, const char *name, int64_t *dur)
{
	uint8_t *match;
	uint64_t c = 0;
	size_t i;

	if (names_of(t, name, &match) <= 0) {
		free(match);
		return 0;
	}
	for (i = 0; i < t->n_ranges; i++)
		if (match[t->ranges[i].name]) {
			c++;
			*dur = gs_sat_add(*dur, t->ranges[i].end - t->ranges[i].start);
		}
	free(match);
	return c;
}

const char *gs_multi_pick_step(const struct gs_multi_trace *t, size_t n, const char *exclude)
{
	const char *best = NULL;
	uint64_t best_min = 0;
	int64_t best_dur = 0;
	uint32_t k;

	if (!n)
		return NULL;
	/* torch.profiler's numbered steps, in every trace: the step (HTA's
	 * two sampled A100 ranks: "nccl:all_to_all" was picked, 4 a trace,
	 * over ProfilerStep#551 and #552, each name once) */
	{
		size_t i;
		int64_t dur = 0;
		for (i = 0; i < n && name_count(&t[i], GS_MULTI_PROFILER_STEPS, &dur); i++)
			;
		if (i == n && (!exclude || strcmp(exclude, GS_MULTI_PROFILER_STEPS)))
			return GS_MULTI_PROFILER_STEPS;
	}
	for (k = 0; k < t[0].n_names; k++) {
		const char *name = t[0].names[k];
		uint64_t mn = UINT64_MAX;
		int64_t dur = 0;
		size_t i;
		if (exclude && !strcmp(name, exclude))
			continue;
		for (i = 0; i < n && mn; i++) {
			uint64_t c = name_count(&t[i], name, &dur);
			if (c < mn)
				mn = c;
		}
		if (!mn)
			continue;
		if (!best || mn > best_min || (mn == best_min && dur > best_dur) ||
		    (mn == best_min && dur == best_dur && strcmp(name, best) < 0)) {
			best = name;
			best_min = mn;
			best_dur = dur;
		}
	}
	return best;
}

ssize_t gs_multi_steps(const struct gs_multi_trace *t, const char *name, struct gs_multi_iv **out)
{
	uint8_t *match;
	size_t i, n = 0;
	int any;

	*out = NULL;
	if ((any = names_of(t, name, &match)) <= 0) {
		free(match);
		return any < 0 ? -ENOMEM : 0;
	}
	for (i = 0; i < t->n_ranges; i++)
		n += match[t->ranges[i].name];
	if (!n || !(*out = malloc(n * sizeof(**out)))) {
		free(match);
		return n ? -ENOMEM : 0;
	}
	n = 0;
	for (i = 0; i < t->n_ranges; i++)
		if (match[t->ranges[i].name])
			(*out)[n++] = (struct gs_multi_iv){t->ranges[i].start + t->offset,
							   t->ranges[i].end + t->offset};
	free(match);
	return (ssize_t)n;
}

/* the latest of v[r] over r; ties: the lowest index; *lag = it - the
 * latest of the others */
static uint32_t last_of(const int64_t *v, size_t n, int64_t *lag)
{
	uint32_t best = 0;
	int64_t second = INT64_MIN;
	size_t r;

	for (r = 1; r < n; r++)
		if (v[r] > v[best])
			best = (uint32_t)r;
	for (r = 0; r < n; r++)
		if (r != best && v[r] > second)
			second = v[r];
	*lag = n > 1 ? v[best] - second : 0;
	return best;
}

int gs_multi_compare(const struct gs_multi_rank *ranks, size_t n, struct gs_multi_result *out)
{
	size_t i, r, ns = n ? SIZE_MAX : 0, k;
	int64_t *sv = NULL, *ev = NULL, *buf = NULL;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->straggler = GS_NONE;
	out->n_ranks = n;
	for (r = 0; r < n; r++)
		if (ranks[r].n_steps < ns)
			ns = ranks[r].n_steps;
	out->n_steps = ns;
	out->ranks = calloc(n ? n : 1, sizeof(*out->ranks));
	out->steps = calloc(ns ? ns : 1, sizeof(*out->steps));
	sv = malloc((n ? n : 1) * sizeof(*sv));
	ev = malloc((n ? n : 1) * sizeof(*ev));
	buf = malloc((ns * (n ? n : 1) + 1) * sizeof(*buf));
	if (!out->ranks || !out->steps || !sv || !ev || !buf)
		goto out;
	for (i = 0; i < ns; i++) {
		struct gs_multi_step *st = &out->steps[i];
		st->first_start = INT64_MAX;
		for (r = 0; r < n; r++) {
			sv[r] = ranks[r].steps[i].start;
			ev[r] = ranks[r].steps[i].end;
			if (sv[r] < st->first_start)
				st->first_start = sv[r];
		}
		st->last_start_rank = last_of(sv, n, &st->start_lag);
		st->last_end_rank = last_of(ev, n, &st->end_lag);
		out->ranks[st->last_start_rank].last_starts++;
		out->ranks[st->last_end_rank].last_ends++;
	}
	for (r = 0; r < n; r++) {
		struct gs_multi_rank_stat *rs = &out->ranks[r];
		const struct gs_multi_rank *in = &ranks[r];
		for (k = 0, i = 0; i < ns; i++)
			if (out->steps[i].last_end_rank == r)
				buf[k++] = out->steps[i].end_lag;
		rs->end_lag_p50 = k ? gs_percentile(buf, k, 50) : 0;
		for (i = 0; i < ns; i++) {
			buf[i] = gs_multi_covered(in->comm, in->n_comm, in->steps[i].start,
						  in->steps[i].end);
			rs->comm_total = gs_sat_add(rs->comm_total, buf[i]);
		}
		rs->comm_p50 = ns ? gs_percentile(buf, ns, 50) : 0;
		for (i = 0; i < ns; i++)
			buf[i] = in->steps[i].end - in->steps[i].start;
		rs->step_p50 = ns ? gs_percentile(buf, ns, 50) : 0;
	}
	out->candidate = GS_NONE;
	out->why = GS_MULTI_NOTHING;
	if (n >= 2 && ns > 0) {
		uint32_t s = 0;
		int64_t med;
		for (r = 1; r < n; r++) {
			const struct gs_multi_rank_stat *a = &out->ranks[r], *b = &out->ranks[s];
			if (a->last_ends > b->last_ends ||
			    (a->last_ends == b->last_ends && a->end_lag_p50 > b->end_lag_p50))
				s = (uint32_t)r;
		}
		out->candidate = s;
		/* its lag in every step, not only those it ended last: a rank
		 * that ends last by 40 us in half the steps and first in the
		 * others is no straggler */
		for (i = 0; i < ns; i++) {
			int64_t latest = INT64_MIN;
			for (r = 0; r < n; r++)
				if (r != s && ranks[r].steps[i].end > latest)
					latest = ranks[r].steps[i].end;
			buf[i] = ranks[s].steps[i].end - latest;
		}
		/* gs_percentile reorders buf: the deviations need no order */
		med = gs_percentile(buf, ns, 50);
		for (i = 0; i < ns; i++)
			buf[i] = buf[i] < med ? med - buf[i] : buf[i] - med;
		out->lag_p50 = med;
		out->lag_spread = gs_percentile(buf, ns, 50);
		if (ns < GS_MULTI_MIN_STEPS)
			out->why = GS_MULTI_FEW_STEPS;
		else if (out->ranks[s].end_lag_p50 <= 0) /* the ranks end together */
			out->why = GS_MULTI_END_TOGETHER;
		else if (out->lag_p50 <= out->lag_spread)
			out->why = GS_MULTI_IN_SPREAD;
		else
			out->why = GS_MULTI_NAMED;
		if (out->why == GS_MULTI_NAMED)
			out->straggler = s;
		for (k = 0, r = 0; r < n; r++) {
			if (r == s)
				continue;
			for (i = 0; i < ns; i++)
				buf[k++] = gs_multi_covered(ranks[r].comm, ranks[r].n_comm,
							    ranks[r].steps[i].start,
							    ranks[r].steps[i].end);
		}
		out->others_wait_p50 = gs_percentile(buf, k, 50);
		if (out->straggler != GS_NONE &&
		    out->others_wait_p50 > out->ranks[out->straggler].comm_p50)
			out->others_wait_for_straggler =
			    out->others_wait_p50 - out->ranks[out->straggler].comm_p50;
	}
	rc = 0;
out:
	free(sv);
	free(ev);
	free(buf);
	if (rc)
		gs_multi_result_free(out);
	return rc;
}

void gs_multi_result_free(struct gs_multi_result *r)
{
	free(r->steps);
	free(r->ranks);
	memset(r, 0, sizeof(*r));
	r->straggler = GS_NONE;
	r->candidate = GS_NONE;
	r->why = GS_MULTI_NOTHING;
}

ssize_t gs_multi_pair_ranks(const struct gs_multi_trace *a, size_t na,
			    const struct gs_multi_trace *b, size_t nb, struct gs_multi_pair **out)
{
	struct gs_multi_pair *p;
	size_t i = 0, j = 0, k = 0;

	*out = NULL;
	if (na + nb == 0)
		return 0;
	p = malloc((na + nb) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	/* the ranked traces: a merge of two rank-ordered lists */
	while ((i < na && a[i].has_rank) || (j < nb && b[j].has_rank)) {
		int ai = i < na && a[i].has_rank, bj = j < nb && b[j].has_rank;
		if (ai && bj && a[i].rank == b[j].rank) {
			p[k++] = (struct gs_multi_pair){(uint32_t)i++, (uint32_t)j++};
		} else if (ai && (!bj || a[i].rank < b[j].rank)) {
			p[k++] = (struct gs_multi_pair){(uint32_t)i++, GS_NONE};
		} else {
			p[k++] = (struct gs_multi_pair){GS_NONE, (uint32_t)j++};
		}
	}
	for (; i < na; i++)
		p[k++] = (struct gs_multi_pair){(uint32_t)i, GS_NONE};
	for (; j < nb; j++)
		p[k++] = (struct gs_multi_pair){GS_NONE, (uint32_t)j};
	*out = p;
	return (ssize_t)k;
}
