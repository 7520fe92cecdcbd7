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
#include <stdio.h>
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

/* What figs_ops keeps between its calls on one model. The union of the
 * replayed ops needs them by start: on each stream the replay keeps them
 * in order (an op starts no earlier than the one before it, unless a fix
 * changed its predecessor), so the streams' sequences are merged (a few
 * streams: a cursor each; more: next, the op after each on its stream,
 * kept for the model's later calls); where a stream is out of order the
 * (start, end) pairs are sorted (pr, tmp: on a 10M-op trace each is
 * 160 MB, fresh memory that cost more than the sorting itself). */
struct figs_buf {
	int64_t *pr, *tmp;
	size_t cap;	/* pairs */
	uint32_t *next; /* per op: the next op of its stream and device, GS_NONE */
	uint32_t *head; /* per stream: its first op (of the mask) on the device */
	int64_t *last;	/* per stream: the start of its last op seen */
	uint32_t *heap; /* streams by their next op's (start, index) */
};

static void figs_buf_free(struct figs_buf *b)
{
	free(b->pr);
	free(b->tmp);
	free(b->next);
	free(b->head);
	free(b->last);
	free(b->heap);
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

/* the union of intervals taken by start (ties in any order but the same
 * for every path: by index): busy time so far and the piece open */
struct busy_run {
	int64_t busy, cs, ce; /* ns; cs INT64_MIN: none open */
};

static void busy_add(struct busy_run *u, int64_t s, int64_t e)
{
	if (u->cs == INT64_MIN) {
		u->cs = s;
		u->ce = e;
	} else if (s > u->ce) {
		u->busy += u->ce - u->cs;
		u->cs = s;
		u->ce = e;
	} else if (e > u->ce) {
		u->ce = e;
	}
}

/* the per-stream buffers: head, last, heap (small: per stream) */
static int figs_streams(const struct wm *m, struct figs_buf *fb)
{
	if (fb->head)
		return 0;
	fb->head = malloc((m->n_streams + 1) * sizeof(uint32_t));
	fb->last = malloc((m->n_streams + 1) * sizeof(int64_t));
	fb->heap = malloc((m->n_streams + 1) * sizeof(uint32_t));
	return fb->head && fb->last && fb->heap ? 0 : -ENOMEM;
}

/* fb->next (once per model): per op, the next op of its stream on its
 * device */
static int figs_next(const struct wm *m, struct figs_buf *fb)
{
	uint32_t d, k, *last;

	if (fb->next)
		return 0;
	fb->next = big_malloc((m->no ? m->no : 1) * sizeof(uint32_t));
	last = malloc((m->n_streams + 1) * sizeof(uint32_t));
	if (!fb->next || !last) {
		free(last);
		return -ENOMEM;
	}
	for (d = 0; d < m->n_dev; d++) {
		size_t i;
		for (k = 0; k < m->n_streams; k++)
			last[k] = GS_NONE;
		for (i = m->dfirst[d]; i < m->dfirst[d + 1]; i++) {
			uint32_t sid = m->osid[i];
			if (last[sid] != GS_NONE)
				fb->next[last[sid]] = (uint32_t)i;
			last[sid] = (uint32_t)i;
			fb->next[i] = GS_NONE;
		}
	}
	free(last);
	return 0;
}

/* end of op i: e[i], or where the replay kept no ends (e NULL) its start
 * and duration */
static inline int64_t end_of(const struct wm *m, const int64_t *s, const int64_t *e, size_t i)
{
	return e ? e[i] : s[i] + wm_odur(m, (uint32_t)i);
}

/* the busy time of device range [a, b) whose few streams (up to 4, their
 * first ops in fb->head) are each in start order: one cursor per stream
 * walks the range for its own ops, and the least (start, index) is taken
 * next, with no per-op array (fb->next: 40 MB at 10M ops) */
#define FIGS_SCAN_STREAMS 4
static inline unsigned __int128 scan_key(const int64_t *s, uint32_t x)
{
	return ((unsigned __int128)((uint64_t)s[x] ^ (1ull << 63)) << 64) | x;
}

static int64_t busy_scanned(const struct wm *m, const int64_t *s, const int64_t *e,
			    const uint8_t *mask, size_t b, const struct figs_buf *fb)
{
	struct busy_run u = {0, INT64_MIN, INT64_MIN};
	uint32_t cur[FIGS_SCAN_STREAMS], sid[FIGS_SCAN_STREAMS], k;
	size_t n = 0;

	for (k = 0; k < m->n_streams; k++)
		if (fb->head[k] != GS_NONE) {
			sid[n] = k;
			cur[n++] = fb->head[k];
		}
	while (n) {
		size_t j = 0, i;
		uint32_t x;
		/* the least (start, index), without branches to mispredict:
		 * the start's sign bit flipped orders it unsigned */
		unsigned __int128 kj = scan_key(s, cur[0]);
		for (i = 1; i < n; i++) {
			unsigned __int128 ki = scan_key(s, cur[i]);
			j = ki < kj ? i : j;
			kj = ki < kj ? ki : kj;
		}
		x = cur[j];
		busy_add(&u, s[x], end_of(m, s, e, x));
		for (x++; x < b && (m->osid[x] != sid[j] || (mask && !mask[x])); x++)
			;
		if (x < b) {
			cur[j] = x;
		} else {
			n--;
			cur[j] = cur[n];
			sid[j] = sid[n];
		}
	}
	return u.busy + (u.cs != INT64_MIN ? u.ce - u.cs : 0);
}

/* heap of stream heads, least (start, op index) on top */
static int head_less(const int64_t *s, uint32_t a, uint32_t b)
{
	return s[a] != s[b] ? s[a] < s[b] : a < b;
}

static void head_down(const struct figs_buf *fb, const int64_t *s, size_t n, size_t i)
{
	uint32_t *h = fb->heap, *op = fb->head;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint32_t t;
		if (l < n && head_less(s, op[h[l]], op[h[m]]))
			m = l;
		if (r < n && head_less(s, op[h[r]], op[h[m]]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* busy time of device range [a, b) whose streams are each in start order
 * (fb->head: each stream's first op of the mask there): their sequences
 * merged */
static int64_t busy_merged(const struct wm *m, const int64_t *s, const int64_t *e,
			   const uint8_t *mask, struct figs_buf *fb)
{
	struct busy_run u = {0, INT64_MIN, INT64_MIN};
	size_t n = 0, i;
	uint32_t k;

	for (k = 0; k < m->n_streams; k++)
		if (fb->head[k] != GS_NONE)
			fb->heap[n++] = k;
	for (i = n; i-- > 0;)
		head_down(fb, s, n, i);
	while (n) {
		uint32_t k0 = fb->heap[0], x = fb->head[k0];
		busy_add(&u, s[x], end_of(m, s, e, x));
		x = fb->next[x];
		while (mask && x != GS_NONE && !mask[x])
			x = fb->next[x];
		fb->head[k0] = x;
		if (x == GS_NONE)
			fb->heap[0] = fb->heap[--n];
		head_down(fb, s, n, 0);
	}
	return u.busy + (u.cs != INT64_MIN ? u.ce - u.cs : 0);
}

/* window and busy of replayed (or recorded) times s/e (e NULL: the
 * model's starts and durations), per device summed */
static int figs_ops(const struct wm *m, const int64_t *s, const int64_t *e, const uint8_t *mask,
		    struct figs_buf *fb, struct gs_whatif_figs *f)
{
	uint32_t d, k;
	/* per stream: its sequence's order is looked at (m->osid: a model's) */
	int by_stream = m->osid && m->n_streams > 1;

	if (by_stream && figs_streams(m, fb) < 0) {
		figs_buf_free(fb);
		return -ENOMEM;
	}
	f->window = f->busy = f->work = 0;
	for (d = 0; d < m->n_dev; d++) {
		size_t a = m->dfirst[d], b = m->dfirst[d + 1], i, n = 0, prev = SIZE_MAX;
		int sorted = 1, stream_sorted = by_stream;
		uint32_t nstr = 0; /* streams with ops here */
		int64_t lo = INT64_MAX, hi = INT64_MIN, smax = INT64_MIN;
		struct busy_run u = {0, INT64_MIN, INT64_MIN};
		if (by_stream)
			for (k = 0; k < m->n_streams; k++)
				fb->head[k] = GS_NONE;
		for (i = a; i < b; i++) {
			int64_t ei;
			if (mask && !mask[i])
				continue;
			n++;
			ei = end_of(m, s, e, i);
			f->work += ei - s[i];
			lo = min64(lo, s[i]);
			hi = max64(hi, ei);
			smax = max64(smax, s[i]);
			if (prev != SIZE_MAX && s[i] < s[prev])
				sorted = 0;
			prev = i;
			if (by_stream) {
				uint32_t sid = m->osid[i];
				if (fb->head[sid] == GS_NONE) {
					fb->head[sid] = (uint32_t)i;
					nstr++;
				} else if (s[i] < fb->last[sid])
					stream_sorted = 0;
				fb->last[sid] = s[i];
			}
		}
		if (lo == INT64_MAX)
			continue;
		f->window += hi - lo;
		if (sorted) {
			/* in start order already (the masked ops among them) */
			for (i = a; i < b; i++)
				if (!mask || mask[i])
					busy_add(&u, s[i], end_of(m, s, e, i));
			f->busy += u.busy + u.ce - u.cs;
		} else if (stream_sorted && nstr <= FIGS_SCAN_STREAMS) {
			f->busy += busy_scanned(m, s, e, mask, b, fb);
		} else if (stream_sorted) {
			if (figs_next(m, fb) < 0) {
				figs_buf_free(fb);
				return -ENOMEM;
			}
			f->busy += busy_merged(m, s, e, mask, fb);
		} else {
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
				pr[2 * n + 1] = end_of(m, s, e, i);
				n++;
			}
			radix_pairs(pr, fb->tmp, n, lo, smax - lo);
			for (i = 0; i < n; i++)
				busy_add(&u, pr[2 * i], pr[2 * i + 1]);
			f->busy += u.busy + u.ce - u.cs;
		}
	}
	f->utilisation = f->window > 0 ? (double)f->busy / (double)f->window : 0.0;
	return 0;
}

/* replayed time of host time t on thread thr: moved with the top call
 * last started at or before it */
static int64_t host_map(const struct wm *m, uint32_t thr, int64_t t)
{
	size_t f = m->tfirst[thr], lo = wm_thr_after(m, thr, t);
	uint32_t a, nx = GS_NONE;
	const struct gs_api *x;
	int64_t r;

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

/* the steps' median wall (st: the phases' steps), recorded (after 0) or
 * replayed (after 1: a step's ends moved with its thread's host time,
 * filling w->nvtx_* for every range) */
static int figs_steps(const struct wm *m, const struct gs_steps *st, int after,
		      struct gs_whatif *w, struct gs_whatif_figs *f)
{
	const struct gs_input *in = m->in;
	size_t i, n = 0;
	int64_t *v = malloc((st->n ? st->n : 1) * sizeof(int64_t));

	if (!v)
		return -ENOMEM;
	for (i = 0; after && i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		int64_t s = r->start, e = r->end;
		uint32_t thr = thr_of(m, r->tid);
		if (thr != GS_NONE) {
			s = host_map(m, thr, r->start);
			e = max64(s, host_map(m, thr, r->end));
		}
		w->nvtx_start[i] = s;
		w->nvtx_end[i] = e;
	}
	for (i = 0; i < st->n; i++) {
		int64_t s = st->v[i].start, e = st->v[i].end;
		uint32_t thr = after ? thr_of(m, st->v[i].tid) : GS_NONE;
		if (thr != GS_NONE) {
			s = host_map(m, thr, s);
			e = max64(s, host_map(m, thr, e));
		}
		v[n++] = e - s;
	}
	f->steps = n;
	f->step_ns = n ? median(v, n) : 0;
	free(v);
	return 0;
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
	nu = wm_pairs_union(u, k);
	for (i = 0; i < m->no; i++) {
		uint32_t c = m->call_of[i];
		int64_t t = c != GS_NONE ? in->apis[c].start : in->ops[i].start;
		if (wm_range_at(u, nu, t) != GS_NONE) {
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

/* What the fixes change in the model, kept to put it back between two
 * findings' fixes: only the arrays (WW_*, wm_fix_writes) that a fix run
 * before another one writes. On a 10M-op trace all of them are ~460 MB,
 * fresh memory written twice (a tenth of the report's time); the verdict's
 * usual pair (host code, launch overhead) needs the calls' flags only
 * (10 MB). */
struct wm_saved {
	uint32_t what; /* WW_* held */
	uint8_t *af, *of;
	int64_t *dur, *odur;
	uint32_t *pred, *pool, *dn;
};

static void saved_free(struct wm_saved *v)
{
	free(v->af);
	free(v->of);
	free(v->dur);
	free(v->odur);
	free(v->pred);
	free(v->pool);
	free(v->dn);
	memset(v, 0, sizeof(*v));
}

/* a copy of p's bytes into *q when `want`, else none; 0 or -ENOMEM */
static int dup_if(int want, void *qp, const void *p, size_t bytes)
{
	void **q = qp;

	if (!want)
		return 0;
	*q = big_malloc(bytes ? bytes : 1);
	if (!*q)
		return -ENOMEM;
	if (bytes)
		memcpy(*q, p, bytes);
	return 0;
}

/* the arrays of `what` (WW_*) */
static int saved_take(const struct wm *m, uint32_t what, struct wm_saved *v)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	v->what = what;
	if (dup_if(what & WW_AF, &v->af, m->af, m->na) < 0 ||
	    dup_if(what & WW_OF, &v->of, m->of, m->no) < 0 ||
	    dup_if(what & WW_DUR, &v->dur, m->dur, m->na * sizeof(int64_t)) < 0 ||
	    dup_if(what & WW_PRED, &v->pred, m->pred, m->no * sizeof(uint32_t)) < 0 ||
	    dup_if(what & WW_POOL, &v->pool, m->pool, m->np * sizeof(uint32_t)) < 0 ||
	    dup_if((what & WW_ODUR) && m->odur_base, &v->odur, m->odur, m->no * sizeof(int64_t)) <
		0)
		goto nomem;
	if (what & WW_DN) {
		v->dn = malloc((m->nd ? m->nd : 1) * sizeof(uint32_t));
		if (!v->dn)
			goto nomem;
		for (i = 0; i < m->nd; i++)
			v->dn[i] = m->dblks[i].n;
	}
	return 0;
nomem:
	saved_free(v);
	return -ENOMEM;
}

/* memcpy of n bytes when `want`, none when n is 0 (an empty array may be
 * NULL) */
static void copy_if(int want, void *dst, const void *src, size_t n)
{
	if (want && n)
		memcpy(dst, src, n);
}

/* put back the arrays of `what` (held in v) and drop what fixes made
 * (ocorr, odur) */
static void saved_restore(struct wm *m, const struct wm_saved *v, uint32_t what)
{
	size_t i;

	what &= v->what;
	copy_if(what & WW_AF, m->af, v->af, m->na);
	copy_if(what & WW_OF, m->of, v->of, m->no);
	copy_if(what & WW_DUR, m->dur, v->dur, m->na * sizeof(int64_t));
	copy_if(what & WW_PRED, m->pred, v->pred, m->no * sizeof(uint32_t));
	copy_if(what & WW_POOL, m->pool, v->pool, m->np * sizeof(uint32_t));
	if (m->odur_base)
		copy_if((what & WW_ODUR) && v->odur, m->odur, v->odur, m->no * sizeof(int64_t));
	if (what & WW_DN)
		for (i = 0; i < m->nd; i++)
			m->dblks[i].n = v->dn[i];
	free(m->ocorr);
	m->ocorr = NULL;
	free(m->gap_fix);
	m->gap_fix = NULL;
	if (!m->odur_base) { /* else the untraced model's: put back above */
		free(m->odur);
		m->odur = NULL;
	}
}

/* bytes of the model's arrays in `what` (WW_*): what saving them costs */
static size_t writes_bytes(const struct wm *m, uint32_t what)
{
	size_t b = 0;

	b += (what & WW_AF) ? m->na : 0;
	b += (what & WW_OF) ? m->no : 0;
	b += (what & WW_DUR) ? m->na * 8 : 0;
	b += (what & WW_PRED) ? m->no * 4 : 0;
	b += (what & WW_POOL) ? m->np * 4 : 0;
	b += (what & WW_DN) ? m->nd * 4 : 0;
	b += (what & WW_ODUR) && m->odur_base ? m->no * 8 : 0;
	return b;
}

/* the fixes (gs_whatif_opts) of finding f */
static void finding_opts(const struct gs_finding *f, const struct gs_finding *all, size_t n,
			 const uint64_t *bytes, struct gs_whatif_opts *o)
{
	size_t i, k = 0;

	gs_whatif_opts_init(o);
	o->fixes = 1u << f->rule;
	o->op_bytes = bytes;
	if (f->rule == GS_RULE_HOST_CODE || f->rule == GS_RULE_HOST_OWN) {
		o->host_tid = f->tid;
		o->host_nvtx_id = f->nvtx_id;
	}
	if (f->rule == GS_RULE_INPUT_WAIT && f->keep_pct > 0)
		o->input_keep = (f->keep_pct - 1) / 100.0;
	if (f->rule == GS_RULE_HOST_STALL)
		o->host_op_id = f->remove_op_id;
	/* an allocation API the verdict calls warm-up stays */
	for (i = 0; f->rule == GS_RULE_ALLOC && i < n && k < 2; i++)
		if (all[i].rule == GS_RULE_WARMUP && all[i].api_name_id &&
		    all[i].api_name_id != f->api_name_id)
			o->alloc_skip[k++] = all[i].api_name_id;
}

/* a finding whose fix the replay models: its rule's, and for host stalls
 * only where the fix removes a named operator (otherwise "overlap it",
 * which no replay can say the cost of) */
static int finding_modelled(const struct gs_finding *f)
{
	if (f->rule == GS_RULE_HOST_STALL && !f->remove_op_id)
		return 0;
	return gs_whatif_rule_modelled(f->rule);
}

/* gs_whatif_findings over the ops of mask (NULL: all); changed[i] (may be
 * NULL): 1 where finding i's fix changed something in the model. Each
 * fix is applied to the unchanged model, so the findings' order does not
 * change their figures: they run from the fix that writes the least to
 * the one that writes the most, which needs no putting back after it. */
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
	size_t i, k, todo = 0, *run = NULL, *wb = NULL;
	uint32_t keep = 0, dirty = 0;
	int rc;

	for (i = 0; i < n; i++) {
		saving_ns[i] = INT64_MIN;
		if (share)
			share[i] = 0.0;
		if (changed)
			changed[i] = 0;
	}
	if (!in || !in->n_ops)
		return 0;
	for (i = 0; i < n; i++)
		todo += finding_modelled(&f[i]) != 0;
	if (!todo)
		return 0;
	run = malloc(todo * sizeof(*run));
	wb = malloc(todo * sizeof(*wb));
	if (!run || !wb || (rc = wm_build(&m, res)) < 0) {
		free(run);
		free(wb);
		return -ENOMEM;
	}
	if (u && (rc = wm_untrace(&m, u)) < 0) {
		free(run);
		free(wb);
		wm_free(&m);
		return rc;
	}
	for (i = 0, k = 0; i < n; i++)
		if (finding_modelled(&f[i]))
			run[k++] = i;
	/* the run order: by the bytes the fix writes, stable */
	for (i = 0; i < todo; i++)
		wb[i] = writes_bytes(&m, wm_fix_writes(1u << f[run[i]].rule));
	for (i = 1; i < todo; i++)
		for (k = i; k > 0 && wb[k - 1] > wb[k]; k--) {
			size_t t = wb[k];
			wb[k] = wb[k - 1];
			wb[k - 1] = t;
			t = run[k];
			run[k] = run[k - 1];
			run[k - 1] = t;
		}
	for (i = 0; i + 1 < todo; i++)
		keep |= wm_fix_writes(1u << f[run[i]].rule);
	rc = -ENOMEM;
	m.s = xmalloc(m.no, sizeof(int64_t));
	m.as = xmalloc(m.na, sizeof(int64_t));
	m.e = m.ae = NULL; /* the replayed ends: not needed here (80 MB each) */
	if (!m.s || !m.as)
		goto out;
	if ((rc = wm_replay(&m)) < 0 || (rc = figs_ops(&m, m.s, m.e, mask, &fb, &before)) < 0 ||
	    (rc = saved_take(&m, keep, &sv)) < 0)
		goto out;
	for (k = 0; k < todo; k++) {
		struct gs_whatif_opts o;
		struct gs_whatif w; /* the fixes' counts only */
		int64_t bound;
		double sh;
		int chg;
		i = run[k];
		finding_opts(&f[i], f, n, bytes, &o);
		memset(&w, 0, sizeof(w));
		if (k)
			saved_restore(&m, &sv, dirty);
		dirty = wm_fix_writes(o.fixes);
		if ((rc = wm_apply_fixes(&m, &o, &w)) < 0)
			goto out;
		chg = w.calls_dropped || w.calls_unblocked || w.ops_changed || w.graph_replays ||
		      w.host_gaps;
		/* a fix that changed nothing (its counts say every change)
		 * leaves the unchanged replay: no need to replay it again */
		if (!chg)
			after = before;
		else if ((rc = wm_replay(&m)) < 0 ||
			 (rc = figs_ops(&m, m.s, m.e, mask, &fb, &after)) < 0)
			goto out;
		saving_of(&before, &after, &bound, &saving_ns[i], &sh);
		if (share)
			share[i] = sh;
		if (changed)
			changed[i] = (uint8_t)chg;
	}
	rc = 0;
out:
	free(run);
	free(wb);
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
	if (!c || (c->per_call_ns <= 0 && c->kernel_busy_ns == 0 && c->graph_node_shrink_ns <= 0 &&
		   c->alloc_call_ns <= 0))
		return -1;
	u->call_ns = max64(c->per_call_ns, 0);
	u->kernel_ns = max64(
	    c->kernel_busy_ns,
	    0); /* a gain is the switch to the next kernel, which the hole after it already holds */
	u->node_ns = max64(c->graph_node_shrink_ns, 0);
	u->graph_call_ns = max64(c->graph_launch_shrink_ns, 0);
	u->alloc_ns = max64(c->alloc_call_ns, 0);
	u->gap_ns = max64(c->launch_gap_ns, 0);
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
	struct gs_steps steps = {0};
	uint8_t *mask = NULL;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!in || !in->n_ops)
		return -EINVAL;
	rc = wm_build(&m, res);
	if (rc < 0)
		return rc;
	m.want_corr = 1; /* handed over as w->op_corr */
	if (o && o->untrace) {
		if ((rc = wm_untrace(&m, o->untrace)) < 0) {
			wm_free(&m);
			return rc;
		}
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
	if (gs_steps_find(res, &steps) < 0)
		goto out;
	w->step_source = steps.source;
	w->step_text_id = steps.text_id;
	w->step_stem = steps.stem;
	w->step_stem_len = steps.stem_len;
	if (o && o->range_name && (rc = range_mask(&m, o->range_name, &mask, &w->range_ops)) < 0)
		goto out;
	/* before: the unchanged replay (the trace's own times where it is
	 * exact: gs_whatif_check) */
	if ((rc = wm_replay(&m)) < 0 || (rc = figs_ops(&m, m.s, m.e, mask, &fb, &w->before)) < 0 ||
	    (rc = figs_steps(&m, &steps, 0, w, &w->before)) < 0)
		goto out;
	if (o && o->fixes && (rc = wm_apply_fixes(&m, o, w)) < 0)
		goto out;
	if (o && o->fixes && (rc = wm_replay(&m)) < 0)
		goto out;
	if ((rc = figs_ops(&m, m.s, m.e, mask, &fb, &w->after)) < 0 ||
	    (rc = figs_steps(&m, &steps, 1, w, &w->after)) < 0)
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
	gs_steps_free(&steps);
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
    {GS_RULE_INPUT_WAIT, "input_wait"},
    {GS_RULE_HOST_STALL, "host_stalls"}, /* with an operator: o->host_op_id */
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

size_t gs_verdict_fix_list(const struct gs_verdict *v, const struct gs_strings *str, char *buf,
			   size_t n)
{
	size_t i, j, k = 0, w = 0;
	const char *op = NULL;

	if (n)
		buf[0] = 0;
	for (i = 0; i < v->n_findings; i++) {
		const struct gs_finding *f = &v->findings[i];
		const char *key = gs_whatif_fix_key(f->rule);
		int dup = 0;
		if (f->saves != GS_SAVES_REPLAYED || f->saves_ns <= 0 || !key)
			continue;
		for (j = 0; j < i; j++) /* host_code and host_own_work: one key each */
			dup |= v->findings[j].saves == GS_SAVES_REPLAYED &&
			       v->findings[j].saves_ns > 0 && v->findings[j].rule == f->rule;
		if (dup)
			continue;
		if (f->rule == GS_RULE_HOST_STALL && f->remove_op_id && str)
			op = gs_str(str, f->remove_op_id, NULL);
		if (w < n)
			w += (size_t)snprintf(buf + w, n - w, "%s%s", k ? "," : "", key);
		k++;
	}
	if (op && w < n)
		snprintf(buf + w, n - w, " --op '%s'", op);
	return k;
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

	if (!finding_modelled(f))
		return -ENOENT;
	finding_opts(f, f, 1, bytes, &o);
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
