/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_stats.c - the statistics of the analysis library that build on
 * the per-op launch calls and the device gaps computed in analysis.c:
 * per-launch-API distributions, synchronisation groups, top kernels and
 * NVTX breakdown (definitions: docs/metrics.md). The CUDA Graph advice is
 * in analysis_graph.c. No I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* ------------------------------------------------------------------ */
/* launch distributions                                                */
/* ------------------------------------------------------------------ */

static int cmp_launch(const void *a, const void *b)
{
	const struct gs_launch_stat *x = a, *y = b;
	if (x->api_dur.n != y->api_dur.n)
		return x->api_dur.n > y->api_dur.n ? -1 : 1;
	return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

/* Fill buf[0], buf[1], buf[2] with one sample per counted call of API
 * duration, queue time and launch delay, grouped by API name (slices
 * start at begin[]): one pass for the three, each in its own third of the
 * scratch block (8 bytes per op each). */
static void fill_metrics(struct actx *c, uint8_t *seen, const size_t *begin, size_t *pos,
			 size_t n_names, int64_t *const buf[3])
{
	const struct gs_input *in = c->in;
	size_t i;

	memcpy(pos, begin, n_names * sizeof(size_t));
	for (i = 0; i < in->n_ops; i++) {
		uint32_t call = c->call_of[i];
		const struct gs_api *a;
		size_t k;
		int64_t start;
		if (call == GS_NONE || seen[call] != 1)
			continue;
		seen[call] = 2; /* the first op met of a call is its sample */
		a = &in->apis[call];
		k = pos[a->name_id]++;
		start = c->ops[i].start;
		buf[0][k] = a->end - a->start;
		buf[1][k] = start - a->end;
		buf[2][k] = start - a->start;
	}
}

int stats_launches(struct actx *c)
{
	const struct gs_input *in = c->in;
	struct gs_result *res = c->res;
	uint8_t *seen = NULL, *cls = NULL;
	size_t *begin = NULL, *pos = NULL, n = 0, i, n_names = 1, g, n_groups = 0, n_kl,
	       n_kl_groups;
	int64_t kl_p50 = 0;
	/* at most one sample per op: three metrics of 8 bytes, SCRATCH_PER_OP */
	int64_t *const bufs[3] = {c->scratch, (int64_t *)c->scratch + in->n_ops,
				  (int64_t *)c->scratch + 2 * in->n_ops};
	int64_t *buf = bufs[0];
	int rc = -ENOMEM, metric;

	n_names = c->api_name_end;
	seen = big_calloc(in->n_apis ? in->n_apis : 1, 1);
	begin = calloc(n_names + 1, sizeof(size_t));
	pos = calloc(n_names + 1, sizeof(size_t));
	cls = calloc(n_names, 1);
	if (!seen || !begin || !pos || !cls)
		goto out;
	/* pass 1: one sample per call, counted by API name. Ops are in
	 * (device, start) order and one call launches onto one device, so the
	 * first op met is the one that starts first. seen[call]: 0 new, 1
	 * counted, 2 filled (fill_metrics), 255 outside the selection. */
	for (i = 0; i < in->n_ops; i++) {
		uint32_t call = c->call_of[i];
		if (call == GS_NONE || seen[call] != 0)
			continue;
		if (!sel_contains_point(c, in->apis[call].start)) {
			seen[call] = 255;
			continue;
		}
		seen[call] = 1;
		begin[in->apis[call].name_id + 1]++;
		cls[in->apis[call].name_id] = c->api_cls[call]; /* classes go by name */
		n++;
	}
	for (g = 0; g < n_names; g++) {
		n_groups += begin[g + 1] > 0;
		begin[g + 1] += begin[g];
	}
	res->launches = calloc(n_groups ? n_groups : 1, sizeof(*res->launches));
	if (!res->launches)
		goto out;
	for (g = 0; g < n_names; g++)
		if (begin[g + 1] > begin[g])
			res->launches[res->n_launches++].name_id = (uint32_t)g;
	fill_metrics(c, seen, begin, pos, n_names, bufs);
	for (metric = 0; metric < 3; metric++) {
		size_t k = 0;
		for (g = 0; g < n_names; g++) {
			size_t m = begin[g + 1] - begin[g];
			struct gs_launch_stat *ls;
			if (!m)
				continue;
			ls = &res->launches[k++];
			gs_dist_compute(metric == 0   ? &ls->api_dur
					: metric == 1 ? &ls->queue
						      : &ls->delay,
					bufs[metric] + begin[g], m);
		}
		if (metric != 0)
			continue;
		/* the launch cost: p50 host duration of single-kernel launch
		 * calls - gather their slices to the front of buf */
		n_kl = 0;
		n_kl_groups = 0;
		for (g = 0, k = 0; g < n_names; g++) {
			size_t m = begin[g + 1] - begin[g];
			if (!m)
				continue;
			if (cls[g] & GS_APIF_KERNEL_LAUNCH) {
				if (begin[g] != n_kl)
					memmove(buf + n_kl, buf + begin[g], m * sizeof(int64_t));
				n_kl += m;
				n_kl_groups++;
				kl_p50 = res->launches[k].api_dur.p50;
			}
			k++;
		}
		if (c->opt->launch_cost_ns >= 0) {
			res->launch_cost_ns = c->opt->launch_cost_ns;
		} else if (n_kl) {
			/* one kernel-launch API (the usual case): its p50 is the
			 * one just computed, no second selection over all calls */
			res->launch_cost_ns =
			    n_kl_groups == 1 ? kl_p50 : gs_percentile(buf, n_kl, 50);
			res->launch_cost_measured = 1;
		} else {
			res->launch_cost_ns = GS_DEFAULT_LAUNCH_COST_NS;
		}
	}
	(void)n;
	qsort(res->launches, res->n_launches, sizeof(*res->launches), cmp_launch);
	rc = 0;
out:
	free(seen);
	free(begin);
	free(pos);
	free(cls);
	return rc;
}

/* ------------------------------------------------------------------ */
/* synchronisations                                                    */
/* ------------------------------------------------------------------ */

static int sync_key_cmp(const struct gs_sync *x, const struct gs_sync *y)
{
	if (x->implicit != y->implicit)
		return x->implicit < y->implicit ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->api_name_id != y->api_name_id)
		return x->api_name_id < y->api_name_id ? -1 : 1;
	return 0;
}

struct sync_ref {
	const struct gs_sync *s;
	uint32_t idx;
};

static int cmp_sync_ref(const void *a, const void *b)
{
	const struct sync_ref *x = a, *y = b;
	int k = sync_key_cmp(x->s, y->s);
	if (k)
		return k;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* a call's drain and the NVTX text it was made in (sync_where) */
struct sync_at {
	uint32_t group, text, idx;
	int64_t drain;
};

static int cmp_sync_at(const void *a, const void *b)
{
	const struct sync_at *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->text != y->text)
		return x->text < y->text ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Each group's where (gs_sync_group.where_*): the range text holding the
 * most of its drain, summed over its calls (ties: the lower string id,
 * text 0 for calls in no range), then that text's costliest call. */
static int sync_where(const struct actx *c, const uint32_t *group_of)
{
	const struct gs_input *in = c->in;
	struct gs_result *res = c->res;
	struct sync_at *v;
	size_t n = 0, i, j;

	v = malloc((in->n_syncs ? in->n_syncs : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < in->n_syncs; i++) {
		const struct gs_sync *s = &in->syncs[i];
		uint32_t r;
		if (group_of[i] == GS_NONE || c->sync_drain[i] <= 0)
			continue;
		r = nvtx_at(c, s->tid, s->start);
		v[n++] = (struct sync_at){.group = group_of[i],
					  .text = r < in->n_nvtx ? in->nvtx[r].text_id : 0,
					  .idx = (uint32_t)i,
					  .drain = c->sync_drain[i]};
	}
	qsort(v, n, sizeof(*v), cmp_sync_at);
	for (i = 0; i < n;) {
		size_t best = i;
		int64_t most = -1;
		uint32_t g = v[i].group;
		for (; i < n && v[i].group == g; i = j) {
			size_t top = i;
			int64_t sum = 0;
			for (j = i; j < n && v[j].group == g && v[j].text == v[i].text; j++) {
				sum = gs_sat_add(sum, v[j].drain);
				if (v[j].drain > v[top].drain)
					top = j;
			}
			if (sum > most) {
				most = sum;
				best = top;
			}
		}
		{
			const struct gs_sync *s = &in->syncs[v[best].idx];
			uint32_t h = gs_host_range_at(in, s->tid, s->start, s->end);
			res->syncs[g].where_nvtx_id = v[best].text;
			res->syncs[g].where_op_id = h != GS_NONE ? in->hranges[h].name_id : 0;
			res->syncs[g].where_tid = s->tid;
		}
	}
	free(v);
	return 0;
}

static int cmp_sync_group(const void *a, const void *b)
{
	const struct gs_sync_group *x = a, *y = b;
	if (x->implicit != y->implicit)
		return x->implicit < y->implicit ? -1 : 1;
	if (x->blocked_ns != y->blocked_ns)
		return x->blocked_ns > y->blocked_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->api_name_id < y->api_name_id ? -1 : x->api_name_id > y->api_name_id;
}

static int cmp_poll(const void *a, const void *b)
{
	const struct gs_poll_stat *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->api_name_id < y->api_name_id ? -1 : x->api_name_id > y->api_name_id;
}

/* Polls (GS_APIF_POLL) in the selection, by API name. */
static int stats_polls(struct actx *c)
{
	const struct gs_input *in = c->in;
	struct gs_result *res = c->res;
	size_t i, k, cap = 0;

	for (i = 0; i < in->n_apis; i++) {
		const struct gs_api *a = &in->apis[i];
		if (!(c->api_cls[i] & GS_APIF_POLL) || !sel_contains_op(c, a->start, a->end))
			continue;
		for (k = 0; k < res->n_polls; k++)
			if (res->polls[k].api_name_id == a->name_id)
				break;
		if (k == res->n_polls) {
			if (res->n_polls == cap) {
				size_t ncap = cap ? 2 * cap : 4;
				struct gs_poll_stat *np = realloc(res->polls, ncap * sizeof(*np));
				if (!np)
					return -ENOMEM;
				res->polls = np;
				cap = ncap;
			}
			res->polls[k] = (struct gs_poll_stat){.api_name_id = a->name_id};
			res->n_polls++;
		}
		res->polls[k].count++;
		res->polls[k].time_ns = gs_sat_add(res->polls[k].time_ns, a->end - a->start);
	}
	if (res->n_polls > 1)
		qsort(res->polls, res->n_polls, sizeof(*res->polls), cmp_poll);
	return 0;
}

int stats_syncs(struct actx *c)
{
	const struct gs_input *in = c->in;
	struct gs_result *res = c->res;
	struct sync_ref *refs = NULL;
	uint32_t *group_of = NULL;
	size_t n = 0, i, d;
	int rc = -ENOMEM;

	refs = malloc((in->n_syncs ? in->n_syncs : 1) * sizeof(*refs));
	group_of = malloc((in->n_syncs ? in->n_syncs : 1) * sizeof(uint32_t));
	if (!refs || !group_of)
		goto out;
	for (i = 0; i < in->n_syncs; i++) {
		group_of[i] = GS_NONE;
		/* a poll is no sync: res->polls lists them */
		if (gs_api_classify(gs_str(&in->strings, in->syncs[i].api_name_id, NULL)) &
		    GS_APIF_POLL)
			continue;
		if (sel_contains_op(c, in->syncs[i].start, in->syncs[i].end))
			refs[n++] = (struct sync_ref){.s = &in->syncs[i], .idx = (uint32_t)i};
	}
	qsort(refs, n, sizeof(*refs), cmp_sync_ref);
	res->syncs = calloc(n ? n : 1, sizeof(*res->syncs));
	if (!res->syncs)
		goto out;
	for (i = 0; i < n; i++) {
		const struct gs_sync *s = refs[i].s;
		struct gs_sync_group *g;
		if (i == 0 || sync_key_cmp(refs[i - 1].s, s) != 0) {
			g = &res->syncs[res->n_syncs++];
			g->implicit = s->implicit;
			g->kind = s->kind;
			g->api_name_id = s->api_name_id;
			g->reason_id = s->reason_id;
		}
		g = &res->syncs[res->n_syncs - 1];
		g->count++;
		g->blocked_ns = gs_sat_add(g->blocked_ns, s->end - s->start);
		/* GPU idle they caused: the sync-wait segments spent in them */
		g->gpu_idle_ns = gs_sat_add(g->gpu_idle_ns, c->sync_idle[refs[i].idx]);
		g->n_gaps += c->sync_gaps[refs[i].idx];
		g->drain_ns = gs_sat_add(g->drain_ns, c->sync_drain[refs[i].idx]);
		group_of[refs[i].idx] = (uint32_t)(res->n_syncs - 1);
	}
	/* stream waits: the device gaps whose dependency they are */
	for (d = 0; d < res->n_devices; d++) {
		const struct gs_device_result *dr = &res->devices[d];
		for (i = 0; i < dr->n_gaps; i++) {
			const struct gs_gap *gp = &dr->gaps[i];
			uint32_t gi;
			if (gp->explain_kind != GS_EXPLAIN_WAIT)
				continue;
			gi = group_of[gp->explain_idx];
			if (gi == GS_NONE)
				continue;
			res->syncs[gi].gpu_idle_ns =
			    gs_sat_add(res->syncs[gi].gpu_idle_ns, gp->end - gp->start);
			res->syncs[gi].n_gaps++;
		}
	}
	if (sync_where(c, group_of) != 0)
		goto out;
	qsort(res->syncs, res->n_syncs, sizeof(*res->syncs), cmp_sync_group);
	rc = stats_polls(c);
out:
	free(refs);
	free(group_of);
	return rc;
}

/* ------------------------------------------------------------------ */
/* kernels                                                             */
/* ------------------------------------------------------------------ */

static int cmp_kernel(const void *a, const void *b)
{
	const struct gs_kernel_stat *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

int stats_kernels(struct actx *c)
{
	const struct gs_input *in = c->in;
	struct gs_result *res = c->res;
	size_t *cnt = NULL, n_names, i, g, n = 0, n_one = 0, n_short = 0, n_groups = 0;
	int64_t *total = NULL, cost = res->launch_cost_ns;
	int64_t *buf = c->scratch; /* 8 bytes per op */
	int rc = -ENOMEM;

	/* count, total and short ones per name in one pass, in locals (a
	 * counter in *res costs a store per op); name ids are below the
	 * strings' count when the loader filled the input, and the tables
	 * grow for any that is not */
	n_names = (size_t)in->strings.n + 1;
	cnt = calloc(n_names + 1, sizeof(size_t));
	total = calloc(n_names, sizeof(int64_t));
	if (!cnt || !total)
		goto out;
	for (i = 0; i < in->n_ops; i++) {
		const struct gs_op *o = &c->ops[i];
		int64_t dur;
		if (o->kind != GS_OP_KERNEL || !sel_contains_op(c, o->start, o->end))
			continue;
		if (o->name_id >= n_names) {
			size_t nn = (size_t)o->name_id + 1;
			size_t *nc = realloc(cnt, (nn + 1) * sizeof(size_t));
			int64_t *nt;
			if (!nc)
				goto out;
			cnt = nc;
			nt = realloc(total, nn * sizeof(int64_t));
			if (!nt)
				goto out;
			total = nt;
			memset(cnt + n_names + 1, 0, (nn - n_names) * sizeof(size_t));
			memset(total + n_names, 0, (nn - n_names) * sizeof(int64_t));
			n_names = nn;
		}
		dur = o->end - o->start;
		cnt[o->name_id]++;
		total[o->name_id] = gs_sat_add(total[o->name_id], dur);
		n++;
		/* a graph's nodes are no kernels launched one by one: the
		 * launch cost is not theirs to beat (the H200 graph_check
		 * replay: its 7200 nodes read as short kernels whose fix was
		 * the CUDA Graph they ran in) */
		if (!o->graph_id) {
			n_one++;
			n_short += dur < cost;
		}
	}
	res->n_kernel_ops = n;
	res->n_launched_kernels = n_one;
	res->n_short_kernels = n_short;
	res->short_kernel_share = n_one ? (double)n_short / (double)n_one : 0.0;
	for (g = 0; g < n_names; g++)
		n_groups += cnt[g] > 0;
	res->kernels = calloc(n_groups ? n_groups : 1, sizeof(*res->kernels));
	if (!res->kernels)
		goto out;
	{
		size_t acc = 0;
		for (g = 0; g < n_names; g++) {
			size_t t = cnt[g];
			cnt[g] = acc;
			acc += t;
		}
	}
	for (i = 0; i < in->n_ops; i++)
		if (c->ops[i].kind == GS_OP_KERNEL &&
		    sel_contains_op(c, c->ops[i].start, c->ops[i].end))
			buf[cnt[c->ops[i].name_id]++] = c->ops[i].end - c->ops[i].start;
	{
		size_t begin = 0;
		for (g = 0; g < n_names; g++) {
			size_t end = cnt[g];
			struct gs_kernel_stat *k;
			if (end == begin)
				continue;
			k = &res->kernels[res->n_kernels++];
			k->name_id = (uint32_t)g;
			k->count = end - begin;
			k->total = total[g]; /* summed in op order, as buf holds them */
			k->p50 = gs_percentile(buf + begin, end - begin, 50);
			begin = end;
		}
	}
	qsort(res->kernels, res->n_kernels, sizeof(*res->kernels), cmp_kernel);
	rc = 0;
out:
	free(cnt);
	free(total);
	return rc;
}

/* ------------------------------------------------------------------ */
/* NVTX breakdown                                                      */
/* ------------------------------------------------------------------ */

/* The union of all devices' GPU ops as a stream of disjoint intervals in
 * time order, built as it is read (no array of them): each device's ops
 * (sorted by start) merge into its busy intervals, and the devices' next
 * intervals are merged through a min-heap by start. Intervals that touch
 * merge; the measure is the same either way. */
struct busy_src {
	size_t i, end; /* the device's ops not read yet: [i, end) */
	int64_t s, e;  /* ns, its next busy interval */
};

struct busy_walk {
	const struct gs_op *ops;
	struct busy_src *src; /* min-heap by s of the devices with intervals left */
	size_t n;
};

/* the device's next busy interval into b->s, b->e; 0 when it has none */
static int busy_src_next(const struct gs_op *ops, struct busy_src *b)
{
	if (b->i >= b->end)
		return 0;
	b->s = ops[b->i].start;
	b->e = ops[b->i].end;
	for (b->i++; b->i < b->end && ops[b->i].start <= b->e; b->i++)
		if (ops[b->i].end > b->e)
			b->e = ops[b->i].end;
	return 1;
}

static void busy_sift_down(struct busy_walk *w, size_t i)
{
	struct busy_src x = w->src[i];
	size_t m;

	for (;; i = m) {
		m = 2 * i + 1;
		if (m >= w->n)
			break;
		if (m + 1 < w->n && w->src[m + 1].s < w->src[m].s)
			m++;
		if (w->src[m].s >= x.s)
			break;
		w->src[i] = w->src[m];
	}
	w->src[i] = x;
}

/* the next source interval in start order into *s, *e; 0 at the end */
static int busy_walk_next(struct busy_walk *w, int64_t *s, int64_t *e)
{
	if (!w->n)
		return 0;
	*s = w->src[0].s;
	*e = w->src[0].e;
	if (!busy_src_next(w->ops, &w->src[0]))
		w->src[0] = w->src[--w->n];
	if (w->n)
		busy_sift_down(w, 0);
	return 1;
}

/* one point at which the NVTX breakdown needs the union's measure */
struct busy_query {
	int64_t t;     /* ns */
	uint32_t slot; /* 2 k: start of the k-th counted range, 2 k + 1: its end */
};

static int cmp_busy_query(const void *a, const void *b)
{
	const struct busy_query *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* f[q->slot] = measure of the union of all GPU ops within (-inf, q->t],
 * for every query (reordered: sorted by t), in one sweep of the ops
 * (a prefix-sum array of the busy intervals cost 24 bytes per op). */
static int busy_upto(struct actx *c, struct busy_query *q, size_t n_q, int64_t *f)
{
	const struct gs_result *res = c->res;
	struct busy_walk w = {.ops = c->ops, .src = NULL, .n = 0};
	int64_t acc = 0, cs = 0, ce = 0, s, e; /* closed intervals' sum; the current one */
	int have = 0;
	size_t d, k;

	w.src = malloc((res->n_devices ? res->n_devices : 1) * sizeof(*w.src));
	if (!w.src)
		return -ENOMEM;
	for (d = 0; d < res->n_devices; d++) {
		struct busy_src *b = &w.src[w.n];
		b->i = res->devices[d].first_op;
		b->end = res->devices[d].end_op;
		w.n += busy_src_next(c->ops, b);
	}
	for (k = w.n / 2; k-- > 0;)
		busy_sift_down(&w, k);
	qsort(q, n_q, sizeof(*q), cmp_busy_query);
	for (k = 0; k < n_q; k++) {
		/* every interval that starts at or before t is in: later ones
		 * add nothing at or before t */
		while (w.n && w.src[0].s <= q[k].t) {
			busy_walk_next(&w, &s, &e);
			if (have && s <= ce) {
				if (e > ce)
					ce = e;
				continue;
			}
			if (have)
				acc += ce - cs;
			cs = s;
			ce = e;
			have = 1;
		}
		f[q[k].slot] = acc + (have ? (q[k].t < ce ? q[k].t : ce) - cs : 0);
	}
	free(w.src);
	return 0;
}

static int cmp_nvtx_stat(const void *a, const void *b)
{
	const struct gs_nvtx_stat *x = a, *y = b;
	if (x->wall != y->wall)
		return x->wall > y->wall ? -1 : 1;
	return x->text_id < y->text_id ? -1 : x->text_id > y->text_id;
}

int stats_nvtx(struct actx *c)
{
	const struct gs_input *in = c->in;
	struct gs_result *res = c->res;
	struct busy_query *q = NULL;
	int64_t *f = NULL;
	size_t i, m, n_names = 1, g, n_groups = 0, n_r = 0;
	uint32_t *slot = NULL;
	int rc = -ENOMEM;

	for (i = 0; i < in->n_nvtx; i++)
		if (in->nvtx[i].kind == 0 && sel_contains_point(c, in->nvtx[i].start)) {
			n_r++;
			if (in->nvtx[i].text_id >= n_names)
				n_names = (size_t)in->nvtx[i].text_id + 1;
		}
	if (!n_r)
		return 0;
	/* the union's measure up to each counted range's start and end */
	q = malloc(2 * n_r * sizeof(*q));
	f = malloc(2 * n_r * sizeof(*f));
	slot = malloc(n_names * sizeof(uint32_t));
	if (!q || !f || !slot)
		goto out;
	for (i = 0, m = 0; i < in->n_nvtx; i++)
		if (in->nvtx[i].kind == 0 && sel_contains_point(c, in->nvtx[i].start)) {
			q[2 * m] =
			    (struct busy_query){.t = in->nvtx[i].start, .slot = (uint32_t)(2 * m)};
			q[2 * m + 1] = (struct busy_query){.t = in->nvtx[i].end,
							   .slot = (uint32_t)(2 * m + 1)};
			m++;
		}
	rc = busy_upto(c, q, 2 * n_r, f);
	if (rc)
		goto out;
	rc = -ENOMEM;
	memset(slot, 0xff, n_names * sizeof(uint32_t));
	for (i = 0; i < in->n_nvtx; i++)
		if (in->nvtx[i].kind == 0 && sel_contains_point(c, in->nvtx[i].start) &&
		    slot[in->nvtx[i].text_id] == GS_NONE)
			slot[in->nvtx[i].text_id] = (uint32_t)n_groups++;
	res->nvtx = calloc(n_groups, sizeof(*res->nvtx));
	if (!res->nvtx)
		goto out;
	res->n_nvtx = n_groups;
	for (g = 0; g < n_names; g++)
		if (slot[g] != GS_NONE)
			res->nvtx[slot[g]].text_id = (uint32_t)g;
	for (i = 0, m = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		struct gs_nvtx_stat *s;
		if (r->kind != 0 || !sel_contains_point(c, r->start))
			continue;
		s = &res->nvtx[slot[r->text_id]];
		s->count++;
		/* in a capture trace, the part recorded: the time between
		 * capture windows is neither busy nor idle */
		s->wall = gs_sat_add(s->wall, capture_overlap(c, r->start, r->end));
		s->gpu_busy = gs_sat_add(s->gpu_busy, f[2 * m + 1] - f[2 * m]);
		m++;
	}
	for (m = 0; m < res->n_nvtx; m++)
		res->nvtx[m].busy_share = res->nvtx[m].wall > 0 ? (double)res->nvtx[m].gpu_busy /
								      (double)res->nvtx[m].wall
								: 0.0;
	qsort(res->nvtx, res->n_nvtx, sizeof(*res->nvtx), cmp_nvtx_stat);
	rc = 0;
out:
	free(q);
	free(f);
	free(slot);
	return rc;
}
