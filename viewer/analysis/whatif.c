/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * whatif.c - the replay model of a trace (whatif.h; docs/metrics.md, "The
 * what-if model"): its construction from the trace's arrays (the
 * structure: who launched what, what each blocking call and each op waited
 * for, and the offsets measured on the trace), and tracing's cost taken
 * off it (wm_untrace). The replay is in whatif_replay.c, the replayed
 * timeline's figures and the API in whatif_api.c, the fixes in
 * whatif_fix.c. Every array here is per op or per call (10M of each in
 * the benchmark): what the trace or the analysis holds already is read
 * from there rather than copied.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h" /* big_malloc, big_calloc */
#include "whatif_int.h"

#include "gapscope/trace_format.h"

/* ------------------------------------------------------------ small tools */

/* the model's arrays are per op or per call: 10M of each in the
 * benchmark, where fresh memory's page faults were most of the build
 * (huge pages: big_hint, analysis_util.c) */
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

int wm_pool_push(struct wm *m, uint32_t v)
{
	if (m->np == m->cp) {
		size_t nc = m->cp ? m->cp * 2 : 1024;
		uint32_t *p = realloc(m->pool, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		m->pool = p;
		m->cp = nc;
	}
	m->pool[m->np++] = v;
	return 0;
}

static int blk_push(struct wblk **v, size_t *n, size_t *cap, const struct wblk *b)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct wblk *p = realloc(*v, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = *b;
	return 0;
}

/* u64 -> u32 map, open addressing (stream ids, event ids, thread ids) */
struct u64map {
	uint64_t *k;
	uint32_t *v;
	size_t cap, n;
};

static size_t u64h(uint64_t k, size_t cap)
{
	return (size_t)((k + 1) * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}

static int u64map_init(struct u64map *m, size_t want)
{
	m->cap = 64;
	while (m->cap < want * 2)
		m->cap *= 2;
	m->n = 0;
	m->k = malloc(m->cap * sizeof(*m->k));
	m->v = malloc(m->cap * sizeof(*m->v));
	if (!m->k || !m->v)
		return -ENOMEM;
	memset(m->v, 0xff, m->cap * sizeof(*m->v)); /* GS_NONE: empty */
	return 0;
}

static void u64map_free(struct u64map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* slot of key k (its value GS_NONE when absent) */
static uint32_t *u64map_slot(struct u64map *m, uint64_t k)
{
	size_t h = u64h(k, m->cap);

	while (m->v[h] != GS_NONE && m->k[h] != k)
		h = (h + 1) & (m->cap - 1);
	m->k[h] = k;
	return &m->v[h];
}

static uint32_t u64map_get(const struct u64map *m, uint64_t k)
{
	size_t h = u64h(k, m->cap);

	while (m->v[h] != GS_NONE) {
		if (m->k[h] == k)
			return m->v[h];
		h = (h + 1) & (m->cap - 1);
	}
	return GS_NONE;
}

/* insert k with value v if absent (the map grows); returns its value, or
 * GS_NONE when out of memory */
static uint32_t u64map_put(struct u64map *m, uint64_t k, uint32_t v)
{
	uint32_t *s;

	if ((m->n + 1) * 2 > m->cap) {
		struct u64map g;
		size_t i;
		if (u64map_init(&g, m->cap) < 0) {
			u64map_free(&g);
			return GS_NONE;
		}
		for (i = 0; i < m->cap; i++)
			if (m->v[i] != GS_NONE)
				*u64map_slot(&g, m->k[i]) = m->v[i];
		g.n = m->n;
		u64map_free(m);
		*m = g;
	}
	s = u64map_slot(m, k);
	if (*s == GS_NONE) {
		*s = v;
		m->n++;
	}
	return *s;
}

/* nearest-rank median of v[0..n), n > 0 (reorders v) */
static int64_t median(int64_t *v, size_t n)
{
	return n ? gs_percentile(v, n, 50.0) : 0;
}

/* ------------------------------------------------------------ the model */

int wm_sync_blocks(const struct gs_input *in, const struct gs_sync *s)
{
	const char *name;
	uint8_t cls;

	if (s->kind == GS_SYNC_STREAM_WAIT_EVENT || s->kind == GS_SYNC_IMPLICIT_LEGACY_STREAM)
		return 0;
	name = gs_str(&in->strings, s->api_name_id, NULL);
	cls = gs_api_classify(name);
	if (cls & (GS_APIF_POLL | GS_APIF_HOST_FUNC))
		return 0;
	return !(cls & GS_APIF_KERNEL_LAUNCH) && !gs_api_is_graph_launch(name) &&
	       !(name && (!strncmp(name, "cudaLaunch", 10) || !strncmp(name, "cuLaunch", 8)));
}

/* call a before call b in the model's order: by start, the enclosing
 * (longer) call first, then by index */
static int api_before(const struct gs_api *apis, uint32_t a, uint32_t b)
{
	const struct gs_api *x = &apis[a], *y = &apis[b];

	if (x->start != y->start)
		return x->start < y->start;
	if (x->end != y->end)
		return x->end > y->end;
	return a < b;
}

static int cmp_api_start(const void *a, const void *b, void *apis)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return api_before(apis, x, y) ? -1 : api_before(apis, y, x);
}

/* byst = the calls by (start, longer first): a radix sort of (start,
 * index) pairs, 16 bits of the start at a time, then the runs of equal
 * starts put in order. An indirect qsort of 10M calls read them at random
 * ~460M times (seconds); this reads them once. */
static int sort_calls(const struct gs_input *in, uint32_t *byst)
{
	size_t na = in->n_apis, i, k;
	uint64_t lo = UINT64_MAX, hi = 0;
	struct pr {
		uint64_t key;
		uint32_t idx;
	} *a = big_malloc(na * sizeof(*a)), *b = big_malloc(na * sizeof(*b)), *t;
	size_t *cnt = malloc(65536 * sizeof(size_t));
	int shift;

	if (!a || !b || !cnt) {
		free(a);
		free(b);
		free(cnt);
		return -ENOMEM;
	}
	for (i = 0; i < na; i++) {
		uint64_t v = (uint64_t)in->apis[i].start; /* times are >= 0 (trace.h) */
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	for (i = 0; i < na; i++) {
		a[i].key = (uint64_t)in->apis[i].start - lo;
		a[i].idx = (uint32_t)i;
	}
	for (shift = 0; shift < 64 && ((hi - lo) >> shift); shift += 16) {
		memset(cnt, 0, 65536 * sizeof(size_t));
		for (i = 0; i < na; i++)
			cnt[(a[i].key >> shift) & 0xffff]++;
		for (k = 0, i = 0; k < 65536; k++) {
			size_t c = cnt[k];
			cnt[k] = i;
			i += c;
		}
		for (i = 0; i < na; i++)
			b[cnt[(a[i].key >> shift) & 0xffff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < na; i++)
		byst[i] = a[i].idx;
	/* equal starts: the enclosing (longer) call first */
	for (i = 0; i < na;) {
		size_t j = i;
		while (j + 1 < na && a[j + 1].key == a[i].key)
			j++;
		if (j > i)
			qsort_r(byst + i, j - i + 1, sizeof(*byst), cmp_api_start,
				(void *)in->apis);
		i = j + 1;
	}
	free(a);
	free(b);
	free(cnt);
	return 0;
}

/* heap of thread cursors (calls_merge): the least head call on top */
static void thr_heap_down(const struct gs_api *apis, const uint32_t *head, uint32_t *h, size_t n,
			  size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint32_t t;
		if (l < n && api_before(apis, head[h[l]], head[h[m]]))
			m = l;
		if (r < n && api_before(apis, head[h[r]], head[h[m]]))
			m = r;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* The calls by thread from the analysis' host index (res->host: each
 * thread's calls sorted by start there, ties by index; here the enclosing
 * call first), the threads in the order of their first calls, and byst
 * the threads' lists merged. On a 10M-call trace whose calls are not
 * stored in start order, sorting them all again (sort_calls) took two
 * 160 MB buffers and a third of the build. 1 done, 0 no index (or one
 * that does not hold every call), -ENOMEM. */
static int calls_from_host(struct wm *m, uint32_t *byst)
{
	const struct host_index *h = m->res->host;
	const struct gs_api *apis = m->in->apis;
	size_t na = m->na, i, k, n = 0, nt = 0;
	uint32_t *th = NULL, *head = NULL, *heap = NULL;
	int rc = -ENOMEM;

	if (!h || !h->t)
		return 0;
	for (k = 0; k < h->n; k++)
		n += h->t[k].calls.n;
	if (n != na)
		return 0;
	th = malloc((h->n + 1) * sizeof(uint32_t));
	head = malloc((h->n + 1) * sizeof(uint32_t));
	heap = malloc((h->n + 1) * sizeof(uint32_t));
	m->thr_tid = malloc((h->n + 1) * sizeof(uint32_t));
	m->tfirst = xcalloc(h->n + 2, sizeof(uint32_t));
	if (!th || !head || !heap || !m->thr_tid || !m->tfirst)
		goto out;
	/* the threads with calls, by their first call (insertion: few) */
	for (k = 0; k < h->n; k++) {
		const struct host_list *l = &h->t[k].calls;
		size_t j;
		uint32_t f;
		if (!l->n)
			continue;
		/* this thread's first call in the model's order: among the
		 * calls of the least start, the longest */
		f = l->idx[0];
		for (j = 1; j < l->n && apis[l->idx[j]].start == apis[f].start; j++)
			if (api_before(apis, l->idx[j], f))
				f = l->idx[j];
		head[k] = f;
		for (j = nt; j > 0 && api_before(apis, f, head[th[j - 1]]); j--)
			th[j] = th[j - 1];
		th[j] = (uint32_t)k;
		nt++;
	}
	/* order: each thread's list, its runs of equal starts put in order */
	for (k = 0, n = 0; k < nt; k++) {
		const struct host_list *l = &h->t[th[k]].calls;
		size_t j, r;
		m->thr_tid[k] = h->t[th[k]].tid;
		m->tfirst[k] = (uint32_t)n;
		memcpy(m->order + n, l->idx, l->n * sizeof(uint32_t));
		for (j = 0; j < l->n; j = r) {
			for (r = j + 1; r < l->n && apis[l->idx[r]].start == apis[l->idx[j]].start;
			     r++)
				;
			if (r - j > 1)
				qsort_r(m->order + n + j, r - j, sizeof(uint32_t), cmp_api_start,
					(void *)apis);
		}
		for (j = 0; j < l->n; j++)
			m->apos[m->order[n + j]] = (uint32_t)(n + j);
		n += l->n;
	}
	m->n_thr = (uint32_t)nt;
	m->tfirst[nt] = (uint32_t)n;
	/* byst: the threads' lists merged (head: each one's next position) */
	for (k = 0; k < nt; k++) {
		head[k] = m->tfirst[k];
		heap[k] = (uint32_t)k;
	}
	{
		/* the heap compares calls: its keys are head[] mapped through order */
		uint32_t *hc = th; /* reused: per thread, its next call */
		size_t hn = nt;
		for (k = 0; k < nt; k++)
			hc[k] = m->order[head[k]];
		for (k = hn; k-- > 0;)
			thr_heap_down(apis, hc, heap, hn, k);
		for (i = 0; i < na; i++) {
			uint32_t t = heap[0];
			byst[i] = hc[t];
			if (++head[t] < m->tfirst[t + 1])
				hc[t] = m->order[head[t]];
			else
				heap[0] = heap[--hn];
			thr_heap_down(apis, hc, heap, hn, 0);
		}
	}
	rc = 1;
out:
	free(th);
	free(head);
	free(heap);
	return rc;
}

/* m->n_thr, thr_tid, tfirst, order, apos and byst (the calls by start):
 * from the analysis' host index where it has one, else sorted here */
static int calls_order(struct wm *m, uint32_t *byst)
{
	const struct gs_input *in = m->in;
	size_t na = m->na, i, k;
	struct u64map tids = {0};
	uint32_t *cnt = NULL;
	int rc;

	if (!na) {
		m->tfirst = xcalloc(2, sizeof(uint32_t));
		return m->tfirst ? 0 : -ENOMEM;
	}
	for (i = 1; i < na; i++) {
		const struct gs_api *x = &in->apis[i - 1], *y = &in->apis[i];
		if (x->start > y->start || (x->start == y->start && x->end < y->end))
			break;
	}
	if (i < na) {
		rc = calls_from_host(m, byst);
		if (rc)
			return rc < 0 ? rc : 0;
		if (sort_calls(in, byst) < 0)
			return -ENOMEM;
	} else {
		for (i = 0; i < na; i++)
			byst[i] = (uint32_t)i;
	}
	/* the threads as their first calls come; apos holds each call's
	 * thread until it is placed */
	rc = -ENOMEM;
	if (u64map_init(&tids, 16) < 0)
		goto out;
	for (i = 0; i < na; i++) {
		uint32_t t = u64map_put(&tids, in->apis[byst[i]].tid, m->n_thr);
		if (t == GS_NONE)
			goto out;
		if (t == m->n_thr) {
			uint32_t *p = realloc(m->thr_tid, (m->n_thr + 1) * sizeof(*p));
			if (!p)
				goto out;
			m->thr_tid = p;
			p[m->n_thr++] = in->apis[byst[i]].tid;
		}
		m->apos[byst[i]] = t;
	}
	m->tfirst = xcalloc(m->n_thr + 2, sizeof(uint32_t));
	cnt = xcalloc(m->n_thr + 1, sizeof(uint32_t));
	if (!m->tfirst || !cnt)
		goto out;
	for (i = 0; i < na; i++)
		m->tfirst[m->apos[i] + 1]++;
	for (k = 0; k < m->n_thr; k++)
		m->tfirst[k + 1] += m->tfirst[k];
	for (i = 0; i < na; i++) {
		uint32_t a = byst[i], t = m->apos[a], p = m->tfirst[t] + cnt[t]++;
		m->order[p] = a;
		m->apos[a] = p;
	}
	rc = 0;
out:
	free(cnt);
	u64map_free(&tids);
	return rc;
}

struct sync_ref {
	uint32_t corr, idx;
};
static int cmp_sync_ref(const void *a, const void *b)
{
	const struct sync_ref *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The syncs row of each call, found when the sweep meets it (an array
 * per call was 40 MB at 10M calls, and most calls have no row): sr by
 * correlation id, and a hashed bitmap of the ids so that a call without
 * a row is told in one look */
struct sync_find {
	const struct sync_ref *sr;
	size_t n;
	uint64_t *bits;
	uint32_t mask; /* bits in the map less 1 */
};

static uint32_t corr_bit(uint32_t corr, uint32_t mask)
{
	return (uint32_t)(((uint64_t)corr * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* the syncs row of call a, GS_NONE: of those with its correlation id
 * (and thread), a blocking row first, then a wait, then the legacy row */
static uint32_t sync_find(const struct gs_input *in, const struct sync_find *f, uint32_t a)
{
	uint32_t c = in->apis[a].corr, best = GS_NONE, h;
	size_t lo = 0, hi = f->n;

	if (!c || !f->n)
		return GS_NONE;
	h = corr_bit(c, f->mask);
	if (!(f->bits[h / 64] & (1ull << (h % 64))))
		return GS_NONE;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->sr[mid].corr < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < f->n && f->sr[lo].corr == c; lo++) {
		const struct gs_sync *s = &in->syncs[f->sr[lo].idx];
		if (s->tid && s->tid != in->apis[a].tid)
			continue;
		if (best == GS_NONE ||
		    (wm_sync_blocks(in, s) && !wm_sync_blocks(in, &in->syncs[best])))
			best = f->sr[lo].idx;
	}
	return best;
}

void wm_free(struct wm *m)
{
	free(m->call_of_own);
	free(m->osid);
	free(m->thr_tid);
	free(m->tfirst);
	free(m->order);
	free(m->top);
	free(m->apos);
	free(m->dur);
	free(m->af);
	free(m->ops_first);
	free(m->lops);
	free(m->pred);
	free(m->odur);
	free(m->coll_name);
	free(m->gap_cut);
	free(m->opg_cut);
	free(m->of);
	free(m->blks);
	free(m->dblks);
	free(m->pool);
	free(m->dfirst);
	free(m->s);
	free(m->e);
	free(m->as);
	free(m->ae);
	free(m->ocorr);
	free(m->gap_fix);
	free(m->tcost);
	memset(m, 0, sizeof(*m));
}

/* per stream, during the structure sweep */
struct wstream {
	uint32_t last; /* the op launched last on it, GS_NONE */
	uint32_t wait; /* the op a stream wait made its next op wait for */
	int16_t device;
};

/* the last op launched on every stream of device dev (-1: all) into the
 * pool; returns how many */
static int snapshot(struct wm *m, const struct wstream *st, int dev, int64_t before_end,
		    uint32_t skip_stream, uint32_t *n)
{
	uint32_t k;

	*n = 0;
	for (k = 0; k < m->n_streams; k++) {
		uint32_t x = st[k].last;
		if (x == GS_NONE || k == skip_stream || (dev >= 0 && st[k].device != dev))
			continue;
		if (m->in->ops[x].end > before_end)
			continue;
		if (wm_pool_push(m, x) < 0)
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

static int cmp_blk_who(const void *a, const void *b)
{
	uint32_t x = ((const struct wblk *)a)->who, y = ((const struct wblk *)b)->who;

	return x < y ? -1 : x > y;
}

/* v[0..n) by who (one entry each), unless in that order already */
static void sort_blks(struct wblk *v, size_t n)
{
	size_t i;

	for (i = 1; i < n && v[i - 1].who < v[i].who; i++)
		;
	if (i < n)
		qsort(v, n, sizeof(*v), cmp_blk_who);
}

/* per kernel name id: 1 a collective (the name holds nccl / NCCL), 0
 * not, 2 not looked at yet (names repeat: one look per name) */
static int is_collective(const struct gs_input *in, uint8_t *seen, const struct gs_op *o)
{
	const char *n;

	if (o->kind != GS_OP_KERNEL)
		return 0;
	if (seen && o->name_id < in->strings.n && seen[o->name_id] != 2)
		return seen[o->name_id];
	n = gs_str(&in->strings, o->name_id, NULL);
	if (seen && o->name_id < in->strings.n)
		seen[o->name_id] = n && (strstr(n, "nccl") || strstr(n, "NCCL"));
	return n && (strstr(n, "nccl") || strstr(n, "NCCL"));
}

int wm_is_coll(struct wm *m, uint32_t x)
{
	return is_collective(m->in, m->coll_name, &m->in->ops[x]);
}

/* The structure: threads and their calls, launches, streams and
 * predecessors, what each blocking call and each op waited for. */
/* m->tcost: per top call, ns of the call-site captures (in->captures, by
 * correlation id, on the call's thread) inside its recorded span; NULL
 * where none. A fix that removes a call or makes it asynchronous keeps
 * this time on the host (wm_call_cost): the traced "before" holds it, the
 * untraced program never spent it, so only the program's part of the call
 * is the fix's saving (the H100 check's malloc/free phase: 14.9% predicted
 * against 3.7% measured, each step's cudaMalloc and cudaFree captured). */
static int trace_cost(struct wm *m)
{
	const struct gs_input *in = m->in;
	size_t i, any = 0;

	m->tcost = xcalloc(m->na, sizeof(int64_t));
	if (!m->tcost)
		return -ENOMEM;
	for (i = 0; i < m->na; i++) {
		const struct gs_api *x = &in->apis[i];
		size_t lo = 0, hi = in->n_captures;
		uint32_t c = x->corr;
		if (!c || !(m->af[i] & AF_TOP))
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (in->captures[mid].corr < c)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < in->n_captures && in->captures[lo].corr == c; lo++) {
			const struct gs_capture *k = &in->captures[lo];
			int64_t a = max64(k->start, x->start), b = min64(k->end, x->end);
			if ((k->tid && k->tid != x->tid) || b <= a)
				continue;
			m->tcost[i] += b - a;
			any = 1;
		}
	}
	if (!any) {
		free(m->tcost);
		m->tcost = NULL;
	}
	return 0;
}

int64_t wm_call_cost(const struct wm *m, uint32_t a)
{
	return m->tcost ? m->tcost[a] : 0;
}

/* 1 when top call a launched its ops as a graph launch */
static int graph_call(const struct wm *m, uint32_t a)
{
	const char *nm = gs_str(&m->in->strings, m->in->apis[a].name_id, NULL);

	return nm && gs_api_is_graph_launch(nm);
}

int wm_build(struct wm *m, const struct gs_result *res)
{
	const struct gs_input *in = res->in;
	size_t no = in->n_ops, na = in->n_apis, i, k;
	uint32_t *byst = NULL, *evord = NULL;
	struct sync_find sf = {0};
	struct sync_ref *sr = NULL;
	struct u64map tids = {0}, strm = {0}, evs = {0};
	struct wstream *st = NULL;
	int64_t *samp = NULL;
	int rc = -ENOMEM;
	uint32_t *dev_last_legacy = NULL;

	memset(m, 0, sizeof(*m));
	m->in = in;
	m->res = res;
	m->no = no;
	m->na = na;
	/* every array here is per op or per call: fresh memory, ~1.6 s per GB
	 * on a virtual machine, is most of the build on a 10M-op trace, so
	 * what the trace or the analysis holds already is read from there
	 * (call_of, op durations, the calls by thread) */
	if (res->call_of) {
		m->call_of = res->call_of;
	} else {
		m->call_of = m->call_of_own = xmalloc(no, sizeof(uint32_t));
		if (!m->call_of_own)
			goto out;
		for (i = 0; i < no; i++)
			m->call_of_own[i] = gs_launch_call(res, (uint32_t)i);
	}
	m->osid = xmalloc(no, sizeof(uint32_t));
	m->pred = xmalloc(no, sizeof(uint32_t));
	m->of = xcalloc(no, 1);
	m->order = xmalloc(na, sizeof(uint32_t));
	m->top = xmalloc(na, sizeof(uint32_t));
	m->apos = xmalloc(na, sizeof(uint32_t));
	m->dur = xcalloc(na, sizeof(int64_t));
	m->af = xcalloc(na, 1);
	m->ops_first = xcalloc(na + 1, sizeof(uint32_t));
	m->lops = xmalloc(no, sizeof(uint32_t));
	byst = xmalloc(na, sizeof(uint32_t));
	if (!m->osid || !m->pred || !m->of || !m->order || !m->top || !m->apos || !m->dur ||
	    !m->af || !m->ops_first || !m->lops || !byst)
		goto out;

	/* ---- devices, streams, predecessors */
	if (u64map_init(&strm, 64) < 0)
		goto out;
	m->coll_name = malloc(in->strings.n + 1);
	if (!m->coll_name)
		goto out;
	memset(m->coll_name, 2, in->strings.n + 1);
	{
		uint32_t cap_dev = 8;
		m->dfirst = malloc((cap_dev + 1) * sizeof(uint32_t));
		if (!m->dfirst)
			goto out;
		for (i = 0; i < no; i++) {
			const struct gs_op *o = &in->ops[i];
			uint32_t sid;
			if (i == 0 || o->device != in->ops[i - 1].device) {
				if (m->n_dev + 1 >= cap_dev) {
					uint32_t *p =
					    realloc(m->dfirst, (cap_dev * 2 + 1) * sizeof(*p));
					if (!p)
						goto out;
					m->dfirst = p;
					cap_dev *= 2;
				}
				m->dfirst[m->n_dev++] = (uint32_t)i;
			}
			sid = u64map_put(&strm, o->stream, m->n_streams);
			if (sid == GS_NONE)
				goto out;
			if (sid == m->n_streams) {
				struct wstream *p = realloc(st, (m->n_streams + 1) * sizeof(*p));
				if (!p)
					goto out;
				st = p;
				st[sid].last = GS_NONE; /* the last op in start order */
				st[sid].wait = GS_NONE;
				st[sid].device = o->device;
				m->n_streams++;
			}
			m->osid[i] = sid;
			m->pred[i] = st[sid].last;
			st[sid].last = (uint32_t)i;
		}
		m->dfirst[m->n_dev] = (uint32_t)no;
	}

	/* ---- calls: by thread (order), and all of them by start (byst) */
	if (calls_order(m, byst) < 0)
		goto out;
	/* top-level calls, durations */
	for (k = 0; k < m->n_thr; k++) {
		uint32_t cur = GS_NONE;
		for (i = m->tfirst[k]; i < m->tfirst[k + 1]; i++) {
			uint32_t a = m->order[i];
			const struct gs_api *x = &in->apis[a];
			if (cur != GS_NONE && x->start < in->apis[cur].end) {
				m->top[a] =
				    cur; /* runs inside cur (a driver call in a runtime one) */
				continue;
			}
			m->top[a] = a;
			m->af[a] |= AF_TOP;
			if (cur == GS_NONE)
				m->af[a] |= AF_FIRST;
			m->dur[a] = x->end - x->start;
			cur = a;
		}
	}
	/* the ops of each call (by top-level call): counted into
	 * ops_first[a + 1], placed at ops_first[a] (which moves up to the next
	 * call's start), then ops_first moved back down one */
	for (i = 0; i < no; i++)
		if (m->call_of[i] != GS_NONE)
			m->ops_first[m->top[m->call_of[i]] + 1]++;
	for (i = 0; i < na; i++)
		m->ops_first[i + 1] += m->ops_first[i];
	for (i = 0; i < no; i++)
		if (m->call_of[i] != GS_NONE) {
			uint32_t a = m->top[m->call_of[i]];
			m->lops[m->ops_first[a]++] = (uint32_t)i;
			m->af[a] |= AF_LAUNCH;
		}
	for (i = na; i > 0; i--)
		m->ops_first[i] = m->ops_first[i - 1];
	if (na)
		m->ops_first[0] = 0;

	/* ---- the syncs by correlation id (sync_find: each call's row) */
	if (in->n_syncs) {
		size_t nb = 64;
		sr = malloc(in->n_syncs * sizeof(*sr));
		while (nb < 16 * in->n_syncs && nb < ((size_t)1 << 32))
			nb *= 2;
		sf.bits = calloc(nb / 64, sizeof(uint64_t));
		if (!sr || !sf.bits)
			goto out;
		sf.mask = (uint32_t)(nb - 1);
		for (i = 0; i < in->n_syncs; i++) {
			sr[i].corr = in->syncs[i].corr;
			sr[i].idx = (uint32_t)i;
			sf.bits[corr_bit(sr[i].corr, sf.mask) / 64] |=
			    1ull << (corr_bit(sr[i].corr, sf.mask) % 64);
		}
		qsort(sr, in->n_syncs, sizeof(*sr), cmp_sync_ref);
		sf.sr = sr;
		sf.n = in->n_syncs;
	}
	/* events by start */
	if (in->n_events) {
		evord = malloc(in->n_events * sizeof(uint32_t));
		if (!evord)
			goto out;
		for (i = 0; i < in->n_events; i++)
			evord[i] = (uint32_t)i;
		for (i = 1; i < in->n_events && in->events[i - 1].start <= in->events[i].start; i++)
			;
		if (i < in->n_events) {
			/* rare (the loader reads them by rowid): insertion-free qsort */
			int64_t *keys = malloc(in->n_events * 2 * sizeof(int64_t));
			if (!keys)
				goto out;
			for (i = 0; i < in->n_events; i++) {
				keys[2 * i] = in->events[i].start;
				keys[2 * i + 1] = (int64_t)i;
			}
			qsort(keys, in->n_events, 2 * sizeof(int64_t), gs_cmp_i64);
			for (i = 0; i < in->n_events; i++)
				evord[i] = (uint32_t)keys[2 * i + 1];
			free(keys);
		}
	}
	if (u64map_init(&evs, 64) < 0)
		goto out;
	dev_last_legacy = malloc((m->n_dev + 1) * sizeof(uint32_t));
	if (!dev_last_legacy)
		goto out;
	memset(dev_last_legacy, 0xff, (m->n_dev + 1) * sizeof(uint32_t));
	for (k = 0; k < m->n_streams; k++)
		st[k].last = GS_NONE;

	/* ---- the structure sweep: calls and event records in time order */
	{
		size_t ev = 0;
		for (i = 0; i < na; i++) {
			uint32_t a = byst[i], t = m->top[a], si = sync_find(in, &sf, a);
			const struct gs_api *x = &in->apis[a], *tx = &in->apis[t];
			size_t j;
			int legacy = 0;

			for (; ev < in->n_events && in->events[evord[ev]].start <= x->start; ev++) {
				const struct gs_event *e = &in->events[evord[ev]];
				uint32_t sid = u64map_get(&strm, e->stream), *slot;
				if (u64map_put(&evs, e->event, GS_NONE - 1) == GS_NONE)
					goto out;
				slot = u64map_slot(&evs, e->event);
				*slot = sid != GS_NONE && st[sid].last != GS_NONE ? st[sid].last
										  : GS_NONE - 1;
			}
			if (si != GS_NONE) {
				const struct gs_sync *s = &in->syncs[si];
				uint32_t sid = u64map_get(&strm, s->stream);
				if (s->kind == GS_SYNC_STREAM_WAIT_EVENT) {
					uint32_t tg = u64map_get(&evs, s->event);
					if (tg != GS_NONE && tg != GS_NONE - 1 && sid != GS_NONE &&
					    (st[sid].wait == GS_NONE ||
					     in->ops[tg].end > in->ops[st[sid].wait].end))
						st[sid].wait = tg;
				} else if (s->kind == GS_SYNC_IMPLICIT_LEGACY_STREAM) {
					legacy = 1;
				} else if (wm_sync_blocks(in, s) && !(m->af[t] & AF_BLK)) {
					struct wblk b = {
					    .first = (uint32_t)m->np, .n = 0, .kind = s->kind};
					int64_t tmax = INT64_MIN;
					uint32_t n = 0, q;
					if (s->kind == GS_SYNC_EVENT) {
						uint32_t tg = u64map_get(&evs, s->event);
						if (tg != GS_NONE && tg != GS_NONE - 1 &&
						    in->ops[tg].end <= tx->end) {
							if (wm_pool_push(m, tg) < 0)
								goto out;
							n = 1;
						}
					} else if (s->kind == GS_SYNC_STREAM && sid != GS_NONE) {
						uint32_t tg = st[sid].last;
						if (tg != GS_NONE && in->ops[tg].end <= tx->end) {
							if (wm_pool_push(m, tg) < 0)
								goto out;
							n = 1;
						}
					} else if ((s->kind == GS_SYNC_IMPLICIT_MEMCPY ||
						    s->kind == GS_SYNC_IMPLICIT_PAGEABLE ||
						    s->kind == GS_SYNC_IMPLICIT_MEMSET) &&
						   m->ops_first[t + 1] > m->ops_first[t]) {
						for (q = m->ops_first[t]; q < m->ops_first[t + 1];
						     q++)
							if (in->ops[m->lops[q]].end <= tx->end) {
								if (wm_pool_push(m, m->lops[q]) < 0)
									goto out;
								n++;
							}
					} else if (snapshot(m, st, s->device, tx->end, GS_NONE,
							    &n) < 0) {
						goto out;
					}
					b.n = n;
					for (q = 0; q < n; q++)
						tmax =
						    max64(tmax, in->ops[m->pool[b.first + q]].end);
					b.own = tx->end - (n ? max64(tx->start, tmax) : tx->start);
					b.who = t;
					m->af[t] |= AF_BLK;
					if (blk_push(&m->blks, &m->nb, &m->cb, &b) < 0)
						goto out;
				}
			}
			/* this call's launches: their dependencies */
			if (a != t)
				continue; /* nested calls' ops are their top call's */
			for (j = m->ops_first[a]; j < m->ops_first[a + 1]; j++) {
				uint32_t xo = m->lops[j], sid = m->osid[xo], n = 0, q;
				const struct gs_op *o = &in->ops[xo];
				struct wblk b = {
				    .first = (uint32_t)m->np, .n = 0, .kind = DEP_WAIT};
				int dv = 0;
				for (q = 0; q < m->n_dev; q++)
					if (in->ops[m->dfirst[q]].device == o->device)
						dv = (int)q;
				if (st[sid].wait != GS_NONE) {
					if (in->ops[st[sid].wait].end <= o->start) {
						if (wm_pool_push(m, st[sid].wait) < 0)
							goto out;
						n++;
					}
					st[sid].wait = GS_NONE;
				}
				if (legacy) {
					uint32_t n2 = 0;
					if (snapshot(m, st, o->device, o->start, sid, &n2) < 0)
						goto out;
					n += n2;
					b.kind = DEP_LEGACY;
				} else if (dev_last_legacy[dv] != GS_NONE &&
					   m->osid[dev_last_legacy[dv]] != sid &&
					   in->ops[dev_last_legacy[dv]].end <= o->start) {
					if (wm_pool_push(m, dev_last_legacy[dv]) < 0)
						goto out;
					n++;
					b.kind = DEP_LEGACY;
				}
				if (n) {
					b.n = n;
					b.who = xo;
					m->of[xo] |= OF_DEP;
					if (blk_push(&m->dblks, &m->nd, &m->cd, &b) < 0)
						goto out;
				}
				st[sid].last = xo;
				if (legacy)
					dev_last_legacy[dv] = xo;
			}
		}
	}

	/* what each call and op waits for, by call and by op (wm_ablk,
	 * wm_odep); the sweep met them by start */
	sort_blks(m->blks, m->nb);
	sort_blks(m->dblks, m->nd);

	/* ---- offsets: the binding constraint keeps its measured one */
	{
		size_t ns = 0, ms = no < 1000000 ? no : 1000000, step = no / (ms ? ms : 1);
		size_t nl = 0, np2 = 0, nap = 0;
		int64_t *sl, *sp, *sa;
		if (step < 1)
			step = 1;
		samp = malloc((3 * ms + 3) * sizeof(int64_t));
		if (!samp)
			goto out;
		sl = samp;
		sp = samp + ms + 1;
		sa = samp + 2 * ms + 2;
		(void)ns;
		for (i = 0; i < no; i += step) {
			const struct gs_op *o = &in->ops[i];
			uint32_t c = m->call_of[i], p = m->pred[i];
			int64_t pe = p != GS_NONE ? in->ops[p].end : INT64_MIN;
			if (c != GS_NONE && (p == GS_NONE || in->apis[c].end > pe) && nl < ms)
				sl[nl++] = o->start - in->apis[c].start;
			else if (p != GS_NONE && pe <= o->start && np2 < ms)
				sp[np2++] = o->start - pe;
			if (c != GS_NONE && nap < ms &&
			    m->ops_first[c + 1] - m->ops_first[c] == 1 && !(m->af[c] & AF_BLK))
				sa[nap++] = in->apis[c].end - in->apis[c].start;
		}
		m->lat_typ = max64(0, median(sl, nl));
		m->pg_typ = max64(0, median(sp, np2));
		m->api_typ = nap ? max64(0, median(sa, nap)) : -1;
		/* the graph launches: per-op call cost and first-op delay */
		{
			size_t ng = 0, ngl = 0, a2;
			int64_t *gc = sl, *gl = sp; /* reused: the medians above are taken */
			for (a2 = 0; a2 < na && ng < ms; a2++) {
				uint32_t k0 = m->ops_first[a2], k1 = m->ops_first[a2 + 1];
				if (k1 - k0 < 2 || !(m->af[a2] & AF_TOP) ||
				    !graph_call(m, (uint32_t)a2))
					continue;
				gc[ng] =
				    (in->apis[a2].end - in->apis[a2].start) / (int64_t)(k1 - k0);
				/* the first op's delay, where the launch bound it (as
				 * lat_typ): a graph launched ahead of the GPU waits
				 * in its stream's queue, which is no launch delay
				 * (graph_check.py's replays: 12.5 ms, H100) */
				{
					uint32_t f = m->lops[k0];
					for (k = k0 + 1; k < k1; k++)
						if (in->ops[m->lops[k]].start < in->ops[f].start)
							f = m->lops[k];
					if (m->pred[f] == GS_NONE ||
					    in->ops[m->pred[f]].end < in->apis[a2].end)
						gl[ngl++] = in->ops[f].start - in->apis[a2].start;
				}
				ng++;
			}
			m->graph_call_per_op = ng ? max64(0, median(gc, ng)) : -1;
			m->graph_lat = ngl ? max64(0, median(gl, ngl)) : -1;
		}
	}
	m->own_ns = gs_trace_is_pytorch(res) ? GS_HOST_DISPATCH_NS : GS_HOST_LOOP_NS;
	m->node_gap = res->graph_node_overhead_ns;
	for (i = 0, k = 0; i < no; i++) { /* k: dblks, in op order */
		const struct gs_op *o = &in->ops[i];
		uint32_t c = m->call_of[i], p = m->pred[i];
		int64_t bp = INT64_MIN, bd = INT64_MIN;
		int which = 0; /* 1 launch, 2 pred, 3 dep */
		if (p != GS_NONE) {
			if (in->ops[p].end <= o->start) {
				bp = in->ops[p].end;
			} else {
				bp = in->ops[p]
					 .start; /* concurrent on one stream (graph branches) */
				m->of[i] |= OF_PRED_START;
			}
		}
		struct wblk *dep = NULL;
		if (m->of[i] & OF_DEP) {
			struct wblk *b;
			uint32_t q;
			while (m->dblks[k].who < i)
				k++;
			b = dep = &m->dblks[k];
			for (q = 0; q < b->n; q++)
				bd = max64(bd, in->ops[m->pool[b->first + q]].end);
		}
		if (bd != INT64_MIN && bd >= max64(bp, c != GS_NONE ? in->apis[c].end : INT64_MIN))
			which = 3;
		else if (c != GS_NONE &&
			 (p == GS_NONE || in->apis[c].end > bp || (m->of[i] & OF_PRED_START)))
			which = 1;
		else if (p != GS_NONE)
			which = 2;
		/* the offsets (wm_olat, wm_opg): the binding one measured */
		if (which == 1)
			m->of[i] |= OF_LAT_EXACT;
		else if (which == 2)
			m->of[i] |= OF_PG_EXACT;
		if (bd != INT64_MIN)
			dep->own = which == 3 ? o->start - bd : min64(o->start - bd, m->pg_typ);
	}
	/* tracing's own work inside each top call: the collector's call-site
	 * captures (at a blocking call's entry, inside its recorded span) */
	if (in->n_captures && (rc = trace_cost(m)) < 0)
		goto out;
	rc = 0;
out:
	free(byst);
	free(sf.bits);
	free(sr);
	free(evord);
	free(st);
	free(samp);
	free(dev_last_legacy);
	u64map_free(&tids);
	u64map_free(&strm);
	u64map_free(&evs);
	if (rc < 0)
		wm_free(m);
	return rc;
}

/* ------------------------------------------------- tracing's cost taken off */

int wm_untrace(struct wm *m, const struct gs_whatif_untrace *u)
{
	const struct gs_input *in = m->in;
	uint8_t *graph = big_calloc(m->na ? m->na : 1, 1); /* per top call: a graph launch */
	size_t i;
	int rc = 0;

	/* the model computes host gaps, holes and op durations from the
	 * trace (wm_gap, wm_opg, wm_odur): what is taken off them is kept
	 * beside it (gap_cut, opg_cut; odur made here) */
	m->gap_cut = big_calloc(m->na ? m->na : 1, sizeof(int64_t));
	m->opg_cut = big_calloc(m->no ? m->no : 1, sizeof(int64_t));
	m->odur = big_malloc((m->no ? m->no : 1) * sizeof(int64_t));
	if (!graph || !m->gap_cut || !m->opg_cut || !m->odur)
		rc = -ENOMEM;
	for (i = 0; !rc && i < m->no; i++)
		m->odur[i] = in->ops[i].end - in->ops[i].start;
	for (i = 0; !rc && i < m->na; i++) {
		int64_t t;
		if (!(m->af[i] & AF_TOP) || m->ops_first[i + 1] == m->ops_first[i])
			continue;
		if ((graph[i] = (uint8_t)graph_call(m, (uint32_t)i))) {
			m->dur[i] -= min64(m->dur[i], max64(u->graph_call_ns, 0));
			continue;
		}
		/* CUPTI's work for a launch lies in the call and in the host
		 * time before it (the correction takes it off the gap that
		 * holds both) */
		t = min64(m->dur[i], max64(u->call_ns, 0));
		m->dur[i] -= t;
		if (!(m->af[i] & AF_FIRST))
			m->gap_cut[i] = min64(wm_gap(m, (uint32_t)i), max64(u->call_ns, 0) - t);
	}
	/* an allocation's call (gs_demo_implicit_sync, H100: cudaMalloc and
	 * cudaFree 11.7 us a step traced, 2.4-3.7 untraced; kept, the
	 * alloc_in_loop fix read tracing's part as its saving: 21.4% predicted,
	 * 5.4% measured) */
	for (i = 0; !rc && u->alloc_ns > 0 && i < m->na; i++) {
		struct wblk *b;
		if (!(m->af[i] & AF_TOP) || !(m->af[i] & AF_BLK))
			continue;
		b = &m->blks[wm_ablk(m, (uint32_t)i)];
		if (b->kind != GS_SYNC_IMPLICIT_ALLOC)
			continue;
		m->dur[i] -= min64(m->dur[i], u->alloc_ns);
		b->own -= min64(max64(b->own, 0), u->alloc_ns);
	}
	for (i = 0; !rc && i < m->no; i++) {
		uint32_t c = m->call_of[i];
		if (in->ops[i].kind != GS_OP_KERNEL)
			continue;
		if (c != GS_NONE && graph[m->top[c]]) {
			int64_t t = max64(u->node_ns, 0), h;
			h = m->pred[i] != GS_NONE ? min64(wm_opg(m, (uint32_t)i), t) : 0;
			m->opg_cut[i] = h;
			m->odur[i] -= min64(m->odur[i], t - h);
			continue;
		}
		m->odur[i] = max64(0, m->odur[i] - u->kernel_ns);
	}
	free(graph);
	if (rc) {
		/* out of memory: nothing is taken off, rather than part */
		free(m->gap_cut);
		free(m->opg_cut);
		free(m->odur);
		m->gap_cut = m->opg_cut = m->odur = NULL;
		return rc;
	}
	m->odur_base = 1;
	if (m->api_typ >= 0)
		m->api_typ -= min64(m->api_typ, max64(u->call_ns, 0));
	/* a node of a graph a fix makes: as the trace's own nodes, tracing's
	 * cost comes off the hole before it, the rest off its duration
	 * (graph_conversion's back to back made a graph, H100: the hole is 65
	 * ns traced, 214 ns a node to take off; the 149 left on each kernel
	 * predicted 44% saved where 53% was measured) */
	m->node_rest = max64(u->node_ns, 0) - min64(m->node_gap, max64(u->node_ns, 0));
	m->node_gap -= min64(m->node_gap, max64(u->node_ns, 0));
	m->graph_call_ns = max64(u->graph_call_ns, 0);
	m->drop_gap_ns = max64(u->gap_ns, 0);
	return 0;
}
