/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * whatif_api.c - the what-if API (whatif.h): gs_whatif_run builds the
 * model (whatif.c), replays it unchanged, applies the fixes (whatif_fix.c),
 * replays it again, and measures both timelines (window, busy, the step
 * ranges moved with their threads); gs_whatif_saving for the verdict, and
 * gs_whatif_check, how exactly the unchanged replay gives the trace back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h" /* big_malloc, big_calloc */
#include "correct.h"
#include "whatif_int.h"

static void *xcalloc(size_t n, size_t sz)
{
	return big_calloc(n ? n : 1, sz);
}

static void *xmalloc(size_t n, size_t sz)
{
	return big_malloc((n ? n : 1) * sz);
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* nearest-rank median of v[0..n) (reorders v) */
static int64_t median(int64_t *v, size_t n)
{
	return n ? gs_percentile(v, n, 50.0) : 0;
}

/* ------------------------------------------------------------ figures */

/* the pair arrays figs_ops sorts in, kept between its calls: on a 10M-op
 * trace each is 160 MB, and fresh memory costs more than the sorting
 * (page faults: a quarter of the report's time with the verdict's
 * replays, before they were kept) */
struct figs_buf {
	int64_t *pr, *tmp;
	size_t cap; /* pairs */
};

static void figs_buf_free(struct figs_buf *b)
{
	free(b->pr);
	free(b->tmp);
	memset(b, 0, sizeof(*b));
}

/* sort the n (start, end) pairs of a by start, stable, in passes of 11
 * bits of start - lo (lo the least start, range the largest less it):
 * a 150 s window takes 4 passes; glibc's qsort took 1.5-2 s on 10M pairs,
 * with a fresh buffer of its own each time */
static void radix_pairs(int64_t *a, int64_t *tmp, size_t n, int64_t lo, int64_t range)
{
	int64_t *src = a, *dst = tmp, *t;
	size_t cnt[2048], i, sum, c;
	int shift;

	for (shift = 0; shift < 63 && (range >> shift) > 0; shift += 11) {
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[((uint64_t)(src[2 * i] - lo) >> shift) & 2047]++;
		for (i = 0, sum = 0; i < 2048; i++) {
			c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			size_t k = cnt[((uint64_t)(src[2 * i] - lo) >> shift) & 2047]++;
			dst[2 * k] = src[2 * i];
			dst[2 * k + 1] = src[2 * i + 1];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * 2 * sizeof(int64_t));
}

/* window and busy of replayed (or recorded) times s/e, per device summed */
static int figs_ops(const struct wm *m, const int64_t *s, const int64_t *e, const uint8_t *mask,
		    struct figs_buf *fb, struct gs_whatif_figs *f)
{
	uint32_t d;

	f->window = f->busy = f->work = 0;
	for (d = 0; d < m->n_dev; d++) {
		size_t a = m->dfirst[d], b = m->dfirst[d + 1], i, n = b - a, prev = SIZE_MAX;
		int sorted = 1;
		int64_t lo = INT64_MAX, hi = INT64_MIN, smax = INT64_MIN, cs, ce;
		for (i = a; i < b; i++) {
			if (mask && !mask[i])
				continue;
			f->work += e[i] - s[i];
			lo = min64(lo, s[i]);
			hi = max64(hi, e[i]);
			smax = max64(smax, s[i]);
			if (prev != SIZE_MAX && s[i] < s[prev])
				sorted = 0;
			prev = i;
		}
		if (lo == INT64_MAX)
			continue;
		f->window += hi - lo;
		if (mask) {
			size_t k = 0;
			for (i = a; i < b; i++)
				k += mask[i] != 0;
			n = k;
		}
		if (!sorted) {
			int64_t *pr;
			if (n > fb->cap) {
				free(fb->pr);
				free(fb->tmp);
				fb->pr = big_malloc(n * 2 * sizeof(int64_t));
				fb->tmp = big_malloc(n * 2 * sizeof(int64_t));
				fb->cap = n;
				if (!fb->pr || !fb->tmp) {
					figs_buf_free(fb);
					return -ENOMEM;
				}
			}
			pr = fb->pr;
			for (i = a, n = 0; i < b; i++) {
				if (mask && !mask[i])
					continue;
				pr[2 * n] = s[i];
				pr[2 * n + 1] = e[i];
				n++;
			}
			radix_pairs(pr, fb->tmp, n, lo, smax - lo);
			cs = pr[0];
			ce = pr[1];
			for (i = 1; i < n; i++) {
				int64_t xs = pr[2 * i], xe = pr[2 * i + 1];
				if (xs > ce) {
					f->busy += ce - cs;
					cs = xs;
					ce = xe;
				} else if (xe > ce) {
					ce = xe;
				}
			}
		} else {
			/* in start order already (the masked ops among them):
			 * merged in place */
			cs = INT64_MIN;
			ce = INT64_MIN;
			for (i = a; i < b; i++) {
				if (mask && !mask[i])
					continue;
				if (cs == INT64_MIN) {
					cs = s[i];
					ce = e[i];
				} else if (s[i] > ce) {
					f->busy += ce - cs;
					cs = s[i];
					ce = e[i];
				} else if (e[i] > ce) {
					ce = e[i];
				}
			}
		}
		f->busy += ce - cs;
	}
	f->utilisation = f->window > 0 ? (double)f->busy / (double)f->window : 0.0;
	return 0;
}

/* replayed time of host time t on thread thr: moved with the top call
 * last started at or before it */
static int64_t host_map(const struct wm *m, uint32_t thr, int64_t t)
{
	size_t lo = m->tfirst[thr], hi = m->tfirst[thr + 1], f = lo;
	uint32_t a, nx = GS_NONE;
	const struct gs_api *x;
	int64_t r;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->in->apis[m->order[mid]].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f)
		return t; /* before the thread's first call */
	a = m->top[m->order[lo - 1]];
	x = &m->in->apis[a];
	for (; lo < m->tfirst[thr + 1]; lo++)
		if (m->af[m->order[lo]] & AF_TOP) {
			nx = m->order[lo];
			break;
		}
	if (m->as[a] == WI_UNSET)
		return t;
	if (t <= x->end)
		return min64(m->as[a] + (t - x->start), m->ae[a]);
	r = m->ae[a] + (t - x->end);
	if (nx != GS_NONE && m->as[nx] != WI_UNSET)
		r = min64(r, m->as[nx]);
	return r;
}

static uint32_t thr_of(const struct wm *m, uint32_t tid)
{
	uint32_t k;

	for (k = 0; k < m->n_thr; k++)
		if (m->thr_tid[k] == tid)
			return k;
	return GS_NONE;
}

/* the step ranges' median wall, recorded (after 0) or replayed (after 1,
 * filling w->nvtx_*) */
static int figs_steps(const struct wm *m, uint32_t text, int after, struct gs_whatif *w,
		      struct gs_whatif_figs *f)
{
	const struct gs_input *in = m->in;
	size_t i, n = 0;
	int64_t *v = malloc((in->n_nvtx ? in->n_nvtx : 1) * sizeof(int64_t));

	if (!v)
		return -ENOMEM;
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		int64_t s = r->start, e = r->end;
		if (after) {
			uint32_t thr = thr_of(m, r->tid);
			if (thr != GS_NONE) {
				s = host_map(m, thr, r->start);
				e = max64(s, host_map(m, thr, r->end));
			}
			w->nvtx_start[i] = s;
			w->nvtx_end[i] = e;
		}
		if (text && r->kind == 0 && r->text_id == text)
			v[n++] = e - s;
	}
	f->steps = n;
	f->step_ns = n ? median(v, n) : 0;
	free(v);
	return 0;
}

static int cmp_i64_pair(const void *a, const void *b)
{
	return gs_cmp_i64(a, b);
}

/* mask of the ops launched (their call's recorded start, else their own)
 * inside NVTX ranges named `name`: *mask NULL-free, *n the ops */
static int range_mask(const struct wm *m, const char *name, uint8_t **mask, uint64_t *n)
{
	const struct gs_input *in = m->in;
	int64_t *u = malloc((in->n_nvtx ? in->n_nvtx : 1) * 2 * sizeof(int64_t));
	size_t k = 0, i, nu = 0;

	*n = 0;
	*mask = xcalloc(m->no, 1);
	if (!u || !*mask) {
		free(u);
		return -ENOMEM;
	}
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		if (r->kind == 0 && gs_name_matches(gs_str(&in->strings, r->text_id, ""), name)) {
			u[2 * k] = r->start;
			u[2 * k + 1] = r->end;
			k++;
		}
	}
	qsort(u, k, 2 * sizeof(int64_t), cmp_i64_pair);
	for (i = 0; i < k; i++) {
		if (nu && u[2 * i] <= u[2 * (nu - 1) + 1]) {
			u[2 * (nu - 1) + 1] = max64(u[2 * (nu - 1) + 1], u[2 * i + 1]);
			continue;
		}
		u[2 * nu] = u[2 * i];
		u[2 * nu + 1] = u[2 * i + 1];
		nu++;
	}
	for (i = 0; i < m->no; i++) {
		uint32_t c = m->call_of[i];
		int64_t t = c != GS_NONE ? in->apis[c].start : in->ops[i].start;
		size_t lo = 0, hi = nu;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (u[2 * mid] <= t)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && t <= u[2 * (lo - 1) + 1]) {
			(*mask)[i] = 1;
			(*n)++;
		}
	}
	free(u);
	return 0;
}

/* ------------------------------------------------------------ the API */

/* the saving of after over before, with the overlap bound (gs_whatif) */
static void saving_of(const struct gs_whatif_figs *before, const struct gs_whatif_figs *after,
		      int64_t *bound, int64_t *saving, double *share)
{
	/* the work less the overlap the trace had */
	int64_t need = after->work - (before->work - before->busy);

	*bound = need > after->busy && after->window < need ? need - after->window : 0;
	*saving = before->window - (after->window + *bound);
	*share = before->window > 0 ? (double)*saving / (double)before->window : 0.0;
}

/* what the fixes change in the model, kept to restore it between fixes */
struct wm_saved {
	uint8_t *af, *of;
	int64_t *dur, *gap, *olat, *opg, *odur;
	uint32_t *pred, *pool, *dn;
};

static void saved_free(struct wm_saved *v)
{
	free(v->af);
	free(v->of);
	free(v->dur);
	free(v->gap);
	free(v->olat);
	free(v->opg);
	free(v->odur);
	free(v->pred);
	free(v->pool);
	free(v->dn);
	memset(v, 0, sizeof(*v));
}

static void *dup_mem(const void *p, size_t bytes)
{
	void *q = big_malloc(bytes ? bytes : 1);

	if (q && bytes)
		memcpy(q, p, bytes);
	return q;
}

static int saved_take(const struct wm *m, struct wm_saved *v)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	v->af = dup_mem(m->af, m->na);
	v->of = dup_mem(m->of, m->no);
	v->dur = dup_mem(m->dur, m->na * sizeof(int64_t));
	v->gap = dup_mem(m->gap, m->na * sizeof(int64_t));
	v->olat = dup_mem(m->olat, m->no * sizeof(int64_t));
	v->opg = dup_mem(m->opg, m->no * sizeof(int64_t));
	v->odur = dup_mem(m->odur, m->no * sizeof(int64_t));
	v->pred = dup_mem(m->pred, m->no * sizeof(uint32_t));
	v->pool = dup_mem(m->pool, m->np * sizeof(uint32_t));
	v->dn = malloc((m->nd ? m->nd : 1) * sizeof(uint32_t));
	if (!v->af || !v->of || !v->dur || !v->gap || !v->olat || !v->opg || !v->odur || !v->pred ||
	    !v->pool || !v->dn) {
		saved_free(v);
		return -ENOMEM;
	}
	for (i = 0; i < m->nd; i++)
		v->dn[i] = m->dblks[i].n;
	return 0;
}

/* memcpy of n bytes, none when n is 0 (an empty array may be NULL) */
static void copy_n(void *dst, const void *src, size_t n)
{
	if (n)
		memcpy(dst, src, n);
}

static void saved_restore(struct wm *m, const struct wm_saved *v)
{
	size_t i;

	copy_n(m->af, v->af, m->na);
	copy_n(m->of, v->of, m->no);
	copy_n(m->dur, v->dur, m->na * sizeof(int64_t));
	copy_n(m->gap, v->gap, m->na * sizeof(int64_t));
	copy_n(m->olat, v->olat, m->no * sizeof(int64_t));
	copy_n(m->opg, v->opg, m->no * sizeof(int64_t));
	copy_n(m->odur, v->odur, m->no * sizeof(int64_t));
	copy_n(m->pred, v->pred, m->no * sizeof(uint32_t));
	copy_n(m->pool, v->pool, m->np * sizeof(uint32_t));
	for (i = 0; i < m->nd; i++)
		m->dblks[i].n = v->dn[i];
	free(m->ocorr);
	m->ocorr = NULL;
}

/* gs_whatif_findings over the ops of mask (NULL: all); changed[i] (may be
 * NULL): 1 where finding i's fix changed something in the model */
static int findings_run(const struct gs_result *res, const struct gs_finding *f, size_t n,
			const uint64_t *bytes, const uint8_t *mask,
			const struct gs_whatif_untrace *u, int64_t *saving_ns, double *share,
			uint8_t *changed)
{
	const struct gs_input *in = res->in;
	struct gs_whatif_figs before, after;
	struct wm_saved sv = {0};
	struct figs_buf fb = {0};
	struct wm m;
	size_t i, todo = 0;
	int rc;

	for (i = 0; i < n; i++) {
		saving_ns[i] = INT64_MIN;
		if (share)
			share[i] = 0.0;
		if (changed)
			changed[i] = 0;
		todo += gs_whatif_rule_modelled(f[i].rule) != 0;
	}
	if (!todo || !in || !in->n_ops)
		return 0;
	rc = wm_build(&m, res);
	if (rc < 0)
		return rc;
	if (u)
		wm_untrace(&m, u);
	rc = -ENOMEM;
	m.s = xmalloc(m.no, sizeof(int64_t));
	m.e = xmalloc(m.no, sizeof(int64_t));
	m.as = xmalloc(m.na, sizeof(int64_t));
	m.ae = xmalloc(m.na, sizeof(int64_t));
	if (!m.s || !m.e || !m.as || !m.ae)
		goto out;
	if ((rc = wm_replay(&m)) < 0 || (rc = figs_ops(&m, m.s, m.e, mask, &fb, &before)) < 0 ||
	    (rc = saved_take(&m, &sv)) < 0)
		goto out;
	for (i = 0; i < n; i++) {
		struct gs_whatif_opts o;
		struct gs_whatif w; /* the fixes' counts only */
		int64_t bound;
		double sh;
		if (!gs_whatif_rule_modelled(f[i].rule))
			continue;
		gs_whatif_opts_init(&o);
		o.fixes = 1u << f[i].rule;
		o.op_bytes = bytes;
		if (f[i].rule == GS_RULE_HOST_CODE || f[i].rule == GS_RULE_HOST_OWN) {
			o.host_tid = f[i].tid;
			o.host_nvtx_id = f[i].nvtx_id;
		}
		memset(&w, 0, sizeof(w));
		saved_restore(&m, &sv);
		if ((rc = wm_apply_fixes(&m, &o, &w)) < 0 || (rc = wm_replay(&m)) < 0 ||
		    (rc = figs_ops(&m, m.s, m.e, mask, &fb, &after)) < 0)
			goto out;
		saving_of(&before, &after, &bound, &saving_ns[i], &sh);
		if (share)
			share[i] = sh;
		if (changed)
			changed[i] = w.calls_dropped || w.calls_unblocked || w.ops_changed ||
				     w.graph_replays || w.host_gaps;
	}
	rc = 0;
out:
	saved_free(&sv);
	figs_buf_free(&fb);
	wm_free(&m);
	return rc;
}

int gs_whatif_findings(const struct gs_result *res, const struct gs_finding *f, size_t n,
		       const uint64_t *bytes, int64_t *saving_ns, double *share)
{
	return findings_run(res, f, n, bytes, NULL, NULL, saving_ns, share, NULL);
}

int gs_whatif_untrace_from(const struct gs_corrected *c, struct gs_whatif_untrace *u)
{
	memset(u, 0, sizeof(*u));
	if (!c || (c->per_call_ns <= 0 && c->kernel_busy_ns == 0 && c->graph_node_shrink_ns <= 0))
		return -1;
	u->call_ns = max64(c->per_call_ns, 0);
	u->kernel_ns = max64(c->kernel_busy_ns, 0); /* a gain is the switch to the next kernel, which the hole after it already holds */
	u->node_ns = max64(c->graph_node_shrink_ns, 0);
	u->graph_call_ns = max64(c->graph_launch_shrink_ns, 0);
	return 0;
}

int gs_whatif_verdict(const struct gs_result *res, const struct gs_corrected *corr,
		      struct gs_verdict *v)
{
	struct gs_whatif_untrace u;
	int have_u = gs_whatif_untrace_from(corr, &u) == 0;
	const struct gs_input *in = res->in;
	int64_t saving[GS_VERDICT_FINDINGS];
	double sh[GS_VERDICT_FINDINGS];
	uint8_t changed[GS_VERDICT_FINDINGS], *mask = NULL;
	size_t i;
	int rc;

	v->saves_untraced = have_u;
	for (i = 0; i < v->n_findings; i++) {
		v->findings[i].saves = GS_SAVES_NONE;
		v->findings[i].saves_ns = 0;
		v->findings[i].saves_share = 0.0;
	}
	if (!v->n_findings || !in || !in->n_ops)
		return 0;
	/* the ops the findings read: the selection's (--range, capture
	 * windows), of the steady state where they count it */
	if (res->selected || v->steady) {
		size_t k = 0;
		mask = xcalloc(in->n_ops, 1);
		if (!mask)
			return -ENOMEM;
		for (i = 0; i < in->n_ops; i++) {
			const struct gs_op *o = &in->ops[i];
			int64_t s = o->start, e = o->end;
			if (v->steady && (s < v->phases.steady_start || s > v->phases.steady_end))
				continue;
			if (!gs_result_selects(res, s, e))
				continue;
			mask[i] = 1;
			k++;
		}
		if (!k) {
			free(mask);
			return 0;
		}
	}
	rc = findings_run(res, v->findings, v->n_findings, in->op_bytes, mask, have_u ? &u : NULL,
			  saving, sh, changed);
	free(mask);
	if (rc < 0)
		return rc;
	for (i = 0; i < v->n_findings; i++) {
		struct gs_finding *f = &v->findings[i];
		if (saving[i] == INT64_MIN)
			continue;
		if (!changed[i]) {
			f->saves = GS_SAVES_UNCHANGED;
			continue;
		}
		f->saves = GS_SAVES_REPLAYED;
		f->saves_ns = saving[i];
		f->saves_share = sh[i];
	}
	return 0;
}

void gs_whatif_opts_init(struct gs_whatif_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sync_every = GS_WHATIF_SYNC_EVERY;
}

int gs_whatif_run(const struct gs_result *res, const struct gs_whatif_opts *o, struct gs_whatif *w)
{
	struct wm m;
	const struct gs_input *in = res->in;
	struct figs_buf fb = {0};
	uint8_t *mask = NULL;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!in || !in->n_ops)
		return -EINVAL;
	rc = wm_build(&m, res);
	if (rc < 0)
		return rc;
	if (o && o->untrace) {
		wm_untrace(&m, o->untrace);
		w->untraced = 1;
	}
	rc = -ENOMEM;
	m.s = xmalloc(m.no, sizeof(int64_t));
	m.e = xmalloc(m.no, sizeof(int64_t));
	m.as = xmalloc(m.na, sizeof(int64_t));
	m.ae = xmalloc(m.na, sizeof(int64_t));
	w->nvtx_start = malloc((in->n_nvtx ? in->n_nvtx : 1) * sizeof(int64_t));
	w->nvtx_end = malloc((in->n_nvtx ? in->n_nvtx : 1) * sizeof(int64_t));
	if (!m.s || !m.e || !m.as || !m.ae || !w->nvtx_start || !w->nvtx_end)
		goto out;
	w->step_text_id = wm_step_text(in);
	if (o && o->range_name && (rc = range_mask(&m, o->range_name, &mask, &w->range_ops)) < 0)
		goto out;
	/* before: the unchanged replay (the trace's own times where it is
	 * exact: gs_whatif_check) */
	if ((rc = wm_replay(&m)) < 0 || (rc = figs_ops(&m, m.s, m.e, mask, &fb, &w->before)) < 0 ||
	    (rc = figs_steps(&m, w->step_text_id, 0, w, &w->before)) < 0)
		goto out;
	if (o && o->fixes && (rc = wm_apply_fixes(&m, o, w)) < 0)
		goto out;
	if (o && o->fixes && (rc = wm_replay(&m)) < 0)
		goto out;
	if ((rc = figs_ops(&m, m.s, m.e, mask, &fb, &w->after)) < 0 ||
	    (rc = figs_steps(&m, w->step_text_id, 1, w, &w->after)) < 0)
		goto out;
	/* the model keeps each op's duration: ops that overlap more after a
	 * fix than they did would share the GPU and run longer. Where the
	 * replay overlaps them more (its work less its busy time grew), the
	 * window is taken as no shorter than the work overlapped only as
	 * much as in the trace */
	saving_of(&w->before, &w->after, &w->bound_ns, &w->saving_ns, &w->saving_share);
	w->api_fix = xcalloc(m.na, 1);
	if (!w->api_fix)
		goto out;
	{
		size_t i;
		for (i = 0; i < m.na; i++) {
			uint8_t f = m.af[m.top[i]];
			w->api_fix[i] = (f & AF_DROP)			   ? GS_WHATIF_GONE
					: (f & AF_NOWAIT) && m.top[i] == i ? GS_WHATIF_ASYNC
					: (f & AF_GRAPH) && m.top[i] == i  ? GS_WHATIF_GRAPH
									   : 0;
		}
	}
	/* hand the replayed times over */
	w->op_start = m.s;
	w->op_end = m.e;
	w->api_start = m.as;
	w->api_end = m.ae;
	w->op_corr = m.ocorr;
	m.s = m.e = m.as = m.ae = NULL;
	m.ocorr = NULL;
	rc = 0;
out:
	free(mask);
	figs_buf_free(&fb);
	wm_free(&m);
	if (rc < 0)
		gs_whatif_free(w);
	return rc;
}

void gs_whatif_free(struct gs_whatif *w)
{
	free(w->op_start);
	free(w->op_end);
	free(w->api_start);
	free(w->api_end);
	free(w->nvtx_start);
	free(w->nvtx_end);
	free(w->api_fix);
	free(w->op_corr);
	memset(w, 0, sizeof(*w));
}

static const struct {
	int bit;
	const char *key;
} fix_keys[] = {
    {GS_RULE_HOST_CODE, "host_code"},	    {GS_RULE_LAUNCH, "launch_overhead"},
    {GS_RULE_SYNC_STEP, "sync_every_step"}, {GS_RULE_PAGEABLE, "pageable_copies"},
    {GS_RULE_SYNC_COPY, "sync_copies"},	    {GS_RULE_ALLOC, "alloc_in_loop"},
    {GS_RULE_LEGACY, "legacy_stream"},	    {GS_RULE_SHORT_KERNELS, "short_kernels"},
    {GS_RULE_HOST_OWN, "host_own_work"},    {GS_RULE_COMM, "exposed_communication"},
    {GS_RULE_COMM, "communication"}, /* the key before the verdict had the rule */
};

uint32_t gs_whatif_fix_bit(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(fix_keys) / sizeof(fix_keys[0]); i++)
		if (!strcmp(key, fix_keys[i].key))
			return 1u << fix_keys[i].bit;
	return 0;
}

const char *gs_whatif_fix_key(int bit)
{
	size_t i;

	for (i = 0; i < sizeof(fix_keys) / sizeof(fix_keys[0]); i++)
		if (fix_keys[i].bit == bit)
			return fix_keys[i].key;
	return NULL;
}

int gs_whatif_rule_modelled(int rule)
{
	return gs_whatif_fix_key(rule) != NULL;
}

int gs_whatif_saving(const struct gs_result *res, int rule, const uint64_t *bytes,
		     int64_t *saving_ns, double *share)
{
	struct gs_whatif_opts o;
	struct gs_whatif w;
	int rc;

	if (!gs_whatif_rule_modelled(rule))
		return -ENOENT;
	gs_whatif_opts_init(&o);
	o.fixes = 1u << rule;
	o.op_bytes = bytes;
	rc = gs_whatif_run(res, &o, &w);
	if (rc < 0)
		return rc;
	*saving_ns = w.saving_ns;
	if (share)
		*share = w.saving_share;
	gs_whatif_free(&w);
	return 0;
}

int gs_whatif_finding(const struct gs_result *res, const struct gs_finding *f,
		      const uint64_t *bytes, int64_t *saving_ns, double *share)
{
	struct gs_whatif_opts o;
	struct gs_whatif w;
	int rc;

	if (!gs_whatif_rule_modelled(f->rule))
		return -ENOENT;
	gs_whatif_opts_init(&o);
	o.fixes = 1u << f->rule;
	o.op_bytes = bytes;
	if (f->rule == GS_RULE_HOST_CODE || f->rule == GS_RULE_HOST_OWN) {
		o.host_tid = f->tid;
		o.host_nvtx_id = f->nvtx_id;
	}
	rc = gs_whatif_run(res, &o, &w);
	if (rc < 0)
		return rc;
	*saving_ns = w.saving_ns;
	if (share)
		*share = w.saving_share;
	gs_whatif_free(&w);
	return 0;
}

int gs_whatif_check(const struct gs_result *res, struct gs_whatif_check *c)
{
	struct gs_whatif w;
	const struct gs_input *in = res->in;
	int64_t *err;
	size_t i;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = gs_whatif_run(res, NULL, &w);
	if (rc < 0)
		return rc;
	err = malloc(in->n_ops * sizeof(int64_t));
	if (!err) {
		gs_whatif_free(&w);
		return -ENOMEM;
	}
	for (i = 0; i < in->n_ops; i++) {
		int64_t d = w.op_start[i] - in->ops[i].start;
		err[i] = d < 0 ? -d : d;
		c->max_err = max64(c->max_err, err[i]);
		c->n_off += err[i] != 0;
	}
	c->n_ops = in->n_ops;
	c->n_calls = in->n_apis;
	for (i = 0; i < in->n_apis; i++) {
		int64_t d = w.api_start[i] - in->apis[i].start;
		c->call_max_err = max64(c->call_max_err, d < 0 ? -d : d);
	}
	c->p99_err = gs_percentile(err, in->n_ops, 99.0);
	free(err);
	{
		struct wm m = {0};
		struct gs_whatif_figs f = {0};
		/* the trace's own window, device by device as the figures */
		m.in = in;
		m.no = in->n_ops;
		rc = 0;
		/* devices: runs of equal device in the sorted ops */
		m.dfirst = malloc((in->n_ops + 1) * sizeof(uint32_t));
		if (!m.dfirst) {
			gs_whatif_free(&w);
			return -ENOMEM;
		}
		for (i = 0; i < in->n_ops; i++)
			if (i == 0 || in->ops[i].device != in->ops[i - 1].device)
				m.dfirst[m.n_dev++] = (uint32_t)i;
		m.dfirst[m.n_dev] = (uint32_t)in->n_ops;
		{
			int64_t *s = malloc(in->n_ops * sizeof(int64_t)),
				*e = malloc(in->n_ops * sizeof(int64_t));
			if (!s || !e)
				rc = -ENOMEM;
			for (i = 0; !rc && i < in->n_ops; i++) {
				s[i] = in->ops[i].start;
				e[i] = in->ops[i].end;
			}
			if (!rc) {
				struct figs_buf fb = {0};
				rc = figs_ops(&m, s, e, NULL, &fb, &f);
				figs_buf_free(&fb);
			}
			free(s);
			free(e);
		}
		free(m.dfirst);
		c->window = f.window;
		c->window_err = w.before.window - f.window;
	}
	gs_whatif_free(&w);
	return rc;
}
