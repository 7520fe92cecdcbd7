/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * whatif.c - the replay model of a trace (whatif.h; docs/metrics.md, "The
 * what-if model"): its construction from the trace's arrays (the
 * structure: who launched what, what each blocking call and each op waited
 * for, and the offsets measured on the trace), the replay (one sweep in
 * the trace's time order, which every dependency follows), the figures of
 * a replayed timeline and the API. The fixes are in whatif_fix.c.
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

static const struct gs_api *api_cmp_base;
static int cmp_api_start(const void *a, const void *b)
{
	const struct gs_api *x = &api_cmp_base[*(const uint32_t *)a],
			    *y = &api_cmp_base[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the enclosing call first */
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
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
		if (j > i) {
			api_cmp_base = in->apis;
			qsort(byst + i, j - i + 1, sizeof(*byst), cmp_api_start);
		}
		i = j + 1;
	}
	free(a);
	free(b);
	free(cnt);
	return 0;
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

static void wm_free(struct wm *m)
{
	free(m->call_of);
	free(m->osid);
	free(m->thr_tid);
	free(m->tfirst);
	free(m->order);
	free(m->top);
	free(m->athr);
	free(m->gap);
	free(m->dur);
	free(m->ablk);
	free(m->af);
	free(m->ops_first);
	free(m->lops);
	free(m->pred);
	free(m->olat);
	free(m->opg);
	free(m->odur);
	free(m->odep);
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
	memset(m, 0, sizeof(*m));
}

/* per stream, during the structure sweep */
struct wstream {
	uint32_t last;	   /* the op launched last on it, GS_NONE */
	uint32_t wait;	   /* the op a stream wait made its next op wait for */
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

/* The structure: threads and their calls, launches, streams and
 * predecessors, what each blocking call and each op waited for. */
static int wm_build(struct wm *m, const struct gs_result *res)
{
	const struct gs_input *in = res->in;
	size_t no = in->n_ops, na = in->n_apis, i, k;
	uint32_t *byst = NULL, *cnt = NULL, *sync_of = NULL, *evord = NULL;
	struct sync_ref *sr = NULL;
	struct u64map tids = {0}, strm = {0}, evs = {0};
	struct wstream *st = NULL;
	int64_t *samp = NULL;
	int rc = -ENOMEM;
	uint32_t *dev_last_legacy = NULL;
	uint8_t *coll_seen = NULL;

	memset(m, 0, sizeof(*m));
	m->in = in;
	m->res = res;
	m->no = no;
	m->na = na;
	m->call_of = xmalloc(no, sizeof(uint32_t));
	m->osid = xmalloc(no, sizeof(uint32_t));
	m->pred = xmalloc(no, sizeof(uint32_t));
	m->olat = xcalloc(no, sizeof(int64_t));
	m->opg = xcalloc(no, sizeof(int64_t));
	m->odur = xmalloc(no, sizeof(int64_t));
	m->odep = xmalloc(no, sizeof(uint32_t));
	m->of = xcalloc(no, 1);
	m->order = xmalloc(na, sizeof(uint32_t));
	m->top = xmalloc(na, sizeof(uint32_t));
	m->athr = xmalloc(na, sizeof(uint32_t));
	m->gap = xcalloc(na, sizeof(int64_t));
	m->dur = xcalloc(na, sizeof(int64_t));
	m->ablk = xmalloc(na, sizeof(uint32_t));
	m->af = xcalloc(na, 1);
	m->ops_first = xcalloc(na + 1, sizeof(uint32_t));
	m->lops = xmalloc(no, sizeof(uint32_t));
	byst = xmalloc(na, sizeof(uint32_t));
	sync_of = xmalloc(na, sizeof(uint32_t));
	if (!m->call_of || !m->osid || !m->pred || !m->olat || !m->opg || !m->odur || !m->odep ||
	    !m->of || !m->order || !m->top || !m->athr || !m->gap || !m->dur || !m->ablk ||
	    !m->af || !m->ops_first || !m->lops || !byst || !sync_of)
		goto out;
	memset(m->odep, 0xff, (no ? no : 1) * sizeof(uint32_t));
	memset(m->ablk, 0xff, (na ? na : 1) * sizeof(uint32_t));
	memset(sync_of, 0xff, (na ? na : 1) * sizeof(uint32_t));

	/* ---- devices, streams, predecessors */
	if (u64map_init(&strm, 64) < 0)
		goto out;
	coll_seen = malloc(in->strings.n + 1);
	if (!coll_seen)
		goto out;
	memset(coll_seen, 2, in->strings.n + 1);
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
					uint32_t *p = realloc(m->dfirst, (cap_dev * 2 + 1) * sizeof(*p));
					if (!p)
						goto out;
					m->dfirst = p;
					cap_dev *= 2;
				}
				m->dfirst[m->n_dev++] = (uint32_t)i;
			}
			m->call_of[i] = gs_launch_call(res, (uint32_t)i);
			m->odur[i] = o->end - o->start;
			if (is_collective(in, coll_seen, o))
				m->of[i] |= OF_COLL;
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

	/* ---- calls: by start, then by thread */
	if (na) {
		for (i = 0; i < na; i++)
			byst[i] = (uint32_t)i;
		for (i = 1; i < na; i++) {
			const struct gs_api *x = &in->apis[i - 1], *y = &in->apis[i];
			if (x->start > y->start || (x->start == y->start && x->end < y->end))
				break;
		}
		if (i < na && sort_calls(in, byst) < 0)
			goto out;
	}
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
		m->athr[byst[i]] = t;
	}
	m->tfirst = xcalloc(m->n_thr + 2, sizeof(uint32_t));
	cnt = xcalloc(m->n_thr + 1, sizeof(uint32_t));
	if (!m->tfirst || !cnt)
		goto out;
	for (i = 0; i < na; i++)
		m->tfirst[m->athr[i] + 1]++;
	for (k = 0; k < m->n_thr; k++)
		m->tfirst[k + 1] += m->tfirst[k];
	for (i = 0; i < na; i++) {
		uint32_t a = byst[i], t = m->athr[a];
		m->order[m->tfirst[t] + cnt[t]++] = a;
	}
	/* top-level calls, host gaps, durations */
	for (k = 0; k < m->n_thr; k++) {
		uint32_t cur = GS_NONE;
		for (i = m->tfirst[k]; i < m->tfirst[k + 1]; i++) {
			uint32_t a = m->order[i];
			const struct gs_api *x = &in->apis[a];
			if (cur != GS_NONE && x->start < in->apis[cur].end) {
				m->top[a] = cur; /* runs inside cur (a driver call in a runtime one) */
				continue;
			}
			m->top[a] = a;
			m->af[a] |= AF_TOP;
			if (cur == GS_NONE)
				m->af[a] |= AF_FIRST;
			else
				m->gap[a] = x->start - in->apis[cur].end;
			m->dur[a] = x->end - x->start;
			cur = a;
		}
	}
	/* the ops of each call (by top-level call) */
	for (i = 0; i < no; i++)
		if (m->call_of[i] != GS_NONE)
			m->ops_first[m->top[m->call_of[i]] + 1]++;
	for (i = 0; i < na; i++)
		m->ops_first[i + 1] += m->ops_first[i];
	memset(cnt, 0, (m->n_thr + 1) * sizeof(uint32_t));
	{
		uint32_t *fill = xcalloc(na, sizeof(uint32_t));
		if (!fill)
			goto out;
		for (i = 0; i < no; i++)
			if (m->call_of[i] != GS_NONE) {
				uint32_t a = m->top[m->call_of[i]];
				m->lops[m->ops_first[a] + fill[a]++] = (uint32_t)i;
				m->af[a] |= AF_LAUNCH;
			}
		free(fill);
	}

	/* ---- syncs by call */
	if (in->n_syncs) {
		sr = malloc(in->n_syncs * sizeof(*sr));
		if (!sr)
			goto out;
		for (i = 0; i < in->n_syncs; i++) {
			sr[i].corr = in->syncs[i].corr;
			sr[i].idx = (uint32_t)i;
		}
		qsort(sr, in->n_syncs, sizeof(*sr), cmp_sync_ref);
		for (i = 0; i < na; i++) {
			size_t lo = 0, hi = in->n_syncs;
			uint32_t c = in->apis[i].corr;
			if (!c)
				continue;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (sr[mid].corr < c)
					lo = mid + 1;
				else
					hi = mid;
			}
			/* a blocking row first, then a wait, then the legacy row */
			for (; lo < in->n_syncs && sr[lo].corr == c; lo++) {
				const struct gs_sync *s = &in->syncs[sr[lo].idx];
				if (s->tid && s->tid != in->apis[i].tid)
					continue;
				if (sync_of[i] == GS_NONE ||
				    (wm_sync_blocks(in, s) &&
				     !wm_sync_blocks(in, &in->syncs[sync_of[i]])))
					sync_of[i] = sr[lo].idx;
			}
		}
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
			uint32_t a = byst[i], t = m->top[a], si = sync_of[a];
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
				} else if (wm_sync_blocks(in, s) && m->ablk[t] == GS_NONE) {
					struct wblk b = {.first = (uint32_t)m->np, .n = 0,
							 .kind = s->kind};
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
						for (q = m->ops_first[t]; q < m->ops_first[t + 1]; q++)
							if (in->ops[m->lops[q]].end <= tx->end) {
								if (wm_pool_push(m, m->lops[q]) < 0)
									goto out;
								n++;
							}
					} else if (snapshot(m, st, s->device, tx->end, GS_NONE, &n) < 0) {
						goto out;
					}
					b.n = n;
					for (q = 0; q < n; q++)
						tmax = max64(tmax, in->ops[m->pool[b.first + q]].end);
					b.own = tx->end - (n ? max64(tx->start, tmax) : tx->start);
					m->ablk[t] = (uint32_t)m->nb;
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
				struct wblk b = {.first = (uint32_t)m->np, .n = 0, .kind = DEP_WAIT};
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
					m->odep[xo] = (uint32_t)m->nd;
					if (blk_push(&m->dblks, &m->nd, &m->cd, &b) < 0)
						goto out;
				}
				st[sid].last = xo;
				if (legacy)
					dev_last_legacy[dv] = xo;
			}
		}
	}

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
			if (c != GS_NONE && nap < ms && m->ops_first[c + 1] - m->ops_first[c] == 1 &&
			    m->ablk[c] == GS_NONE)
				sa[nap++] = in->apis[c].end - in->apis[c].start;
		}
		m->lat_typ = max64(0, median(sl, nl));
		m->pg_typ = max64(0, median(sp, np2));
		m->api_typ = nap ? max64(0, median(sa, nap)) : -1;
	}
	for (i = 0; i < no; i++) {
		const struct gs_op *o = &in->ops[i];
		uint32_t c = m->call_of[i], p = m->pred[i];
		int64_t bl = INT64_MIN, bp = INT64_MIN, bd = INT64_MIN;
		int which = 0; /* 1 launch, 2 pred, 3 dep */
		if (p != GS_NONE) {
			if (in->ops[p].end <= o->start) {
				bp = in->ops[p].end;
			} else {
				bp = in->ops[p].start; /* concurrent on one stream (graph branches) */
				m->of[i] |= OF_PRED_START;
			}
		}
		if (c != GS_NONE)
			bl = in->apis[c].start;
		if (m->odep[i] != GS_NONE) {
			struct wblk *b = &m->dblks[m->odep[i]];
			uint32_t q;
			for (q = 0; q < b->n; q++)
				bd = max64(bd, in->ops[m->pool[b->first + q]].end);
		}
		if (bd != INT64_MIN &&
		    bd >= max64(bp, c != GS_NONE ? in->apis[c].end : INT64_MIN))
			which = 3;
		else if (c != GS_NONE && (p == GS_NONE || in->apis[c].end > bp ||
					  (m->of[i] & OF_PRED_START)))
			which = 1;
		else if (p != GS_NONE)
			which = 2;
		if (c != GS_NONE)
			m->olat[i] = which == 1 ? o->start - bl : min64(o->start - bl, m->lat_typ);
		if (p != GS_NONE)
			m->opg[i] = which == 2 ? o->start - bp : min64(o->start - bp, m->pg_typ);
		if (bd != INT64_MIN)
			m->dblks[m->odep[i]].own =
			    which == 3 ? o->start - bd : min64(o->start - bd, m->pg_typ);
	}
	rc = 0;
out:
	free(byst);
	free(cnt);
	free(sync_of);
	free(sr);
	free(evord);
	free(st);
	free(samp);
	free(dev_last_legacy);
	free(coll_seen);
	u64map_free(&tids);
	u64map_free(&strm);
	u64map_free(&evs);
	if (rc < 0)
		wm_free(m);
	return rc;
}

/* ------------------------------------------------------------ the replay */

/* cursors: host threads (0 .. n_thr-1), then devices */
struct cur {
	int64_t t;     /* the recorded time of its next step */
	uint8_t type;  /* 0 call start, 1 op start, 2 blocking call end */
	uint32_t pos;  /* threads: position in order; devices: op index */
	uint32_t lim;  /* end of its range */
	int64_t prev_end; /* threads: replayed end of its last top call */
};

static int cur_less(const struct cur *c, uint32_t a, uint32_t b)
{
	if (c[a].t != c[b].t)
		return c[a].t < c[b].t;
	if (c[a].type != c[b].type)
		return c[a].type < c[b].type;
	return a < b;
}

static void heap_down(uint32_t *h, size_t n, size_t i, const struct cur *c)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		uint32_t tmp;
		if (l < n && cur_less(c, h[l], h[m]))
			m = l;
		if (r < n && cur_less(c, h[r], h[m]))
			m = r;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* next top-level call of thread cursor k from its pos; 0 when none */
static int thr_next(const struct wm *m, struct cur *c)
{
	while (c->pos < c->lim && !(m->af[m->order[c->pos]] & AF_TOP))
		c->pos++;
	if (c->pos >= c->lim)
		return 0;
	c->t = m->in->apis[m->order[c->pos]].start;
	c->type = 0;
	return 1;
}

static int64_t blk_latest(const struct wm *m, const struct wblk *b)
{
	int64_t t = INT64_MIN;
	uint32_t q;

	for (q = 0; q < b->n; q++) {
		uint32_t x = m->pool[b->first + q];
		t = max64(t, m->e[x] != WI_UNSET ? m->e[x] : m->in->ops[x].end);
	}
	return t;
}

static void replay_op(struct wm *m, uint32_t x)
{
	const struct gs_op *o = &m->in->ops[x];
	uint32_t c = m->call_of[x], p = m->pred[x];
	int64_t b = INT64_MIN;

	if (c != GS_NONE && !(m->of[x] & OF_NOLAUNCH))
		b = (m->as[c] != WI_UNSET ? m->as[c] : m->in->apis[c].start) + m->olat[x];
	if (p != GS_NONE)
		b = max64(b, ((m->of[x] & OF_PRED_START) ? m->s[p] : m->e[p]) + m->opg[x]);
	if (m->odep[x] != GS_NONE && m->dblks[m->odep[x]].n)
		b = max64(b, blk_latest(m, &m->dblks[m->odep[x]]) + m->dblks[m->odep[x]].own);
	if (b == INT64_MIN)
		b = o->start;
	m->s[x] = b;
	m->e[x] = b + m->odur[x];
}

/* start of top call a at position pos of its thread cursor k */
static void replay_call_start(struct wm *m, struct cur *k)
{
	uint32_t a = m->order[k->pos], q;
	const struct gs_api *x = &m->in->apis[a];
	int64_t s = (m->af[a] & AF_FIRST) ? x->start : k->prev_end + m->gap[a];

	m->as[a] = s;
	/* nested calls move with it */
	for (q = k->pos + 1; q < k->lim && m->top[m->order[q]] == a; q++) {
		uint32_t n = m->order[q];
		m->as[n] = s + (m->in->apis[n].start - x->start);
		m->ae[n] = s + (m->in->apis[n].end - x->start);
	}
	if (m->af[a] & AF_DROP) {
		m->ae[a] = s;
	} else if (m->ablk[a] != GS_NONE && !(m->af[a] & AF_NOWAIT) && m->blks[m->ablk[a]].n) {
		k->t = x->end;
		k->type = 2;
		return;
	} else {
		m->ae[a] = s + m->dur[a];
	}
	k->prev_end = m->ae[a];
	k->pos++;
	if (!thr_next(m, k))
		k->t = INT64_MAX;
}

static void replay_call_end(struct wm *m, struct cur *k)
{
	uint32_t a = m->order[k->pos];
	const struct wblk *b = &m->blks[m->ablk[a]];

	m->ae[a] = max64(m->as[a], blk_latest(m, b)) + b->own;
	/* nested calls end by their recorded end at the latest */
	k->prev_end = m->ae[a];
	k->pos++;
	if (!thr_next(m, k))
		k->t = INT64_MAX;
}

static int wm_replay(struct wm *m)
{
	size_t nc = m->n_thr + m->n_dev, i, n = 0;
	struct cur *c = xcalloc(nc, sizeof(*c));
	uint32_t *h = malloc((nc ? nc : 1) * sizeof(uint32_t));

	if (!c || !h) {
		free(c);
		free(h);
		return -ENOMEM;
	}
	for (i = 0; i < m->no; i++)
		m->s[i] = m->e[i] = WI_UNSET;
	for (i = 0; i < m->na; i++)
		m->as[i] = m->ae[i] = WI_UNSET;
	for (i = 0; i < m->n_thr; i++) {
		c[i].pos = m->tfirst[i];
		c[i].lim = m->tfirst[i + 1];
		if (thr_next(m, &c[i]))
			h[n++] = (uint32_t)i;
	}
	for (i = 0; i < m->n_dev; i++) {
		struct cur *d = &c[m->n_thr + i];
		d->pos = m->dfirst[i];
		d->lim = m->dfirst[i + 1];
		d->type = 1;
		if (d->pos < d->lim) {
			d->t = m->in->ops[d->pos].start;
			h[n++] = (uint32_t)(m->n_thr + i);
		}
	}
	for (i = n; i-- > 0;)
		heap_down(h, n, i, c);
	while (n) {
		uint32_t k = h[0];
		struct cur *x = &c[k];
		if (k < m->n_thr) {
			if (x->type == 0)
				replay_call_start(m, x);
			else
				replay_call_end(m, x);
		} else {
			replay_op(m, x->pos);
			if (++x->pos < x->lim)
				x->t = m->in->ops[x->pos].start;
			else
				x->t = INT64_MAX;
		}
		if (x->t == INT64_MAX)
			h[0] = h[--n];
		heap_down(h, n, 0, c);
	}
	free(c);
	free(h);
	return 0;
}

/* ------------------------------------------------------------ figures */

static int cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* window and busy of replayed (or recorded) times s/e, per device summed */
static int figs_ops(const struct wm *m, const int64_t *s, const int64_t *e, const uint8_t *mask,
		    struct gs_whatif_figs *f)
{
	uint32_t d;
	int64_t *pr = NULL;
	size_t cap = 0;

	f->window = f->busy = 0;
	for (d = 0; d < m->n_dev; d++) {
		size_t a = m->dfirst[d], b = m->dfirst[d + 1], i, n = b - a, prev = SIZE_MAX;
		int sorted = 1;
		int64_t lo = INT64_MAX, hi = INT64_MIN, cs, ce;
		for (i = a; i < b; i++) {
			if (mask && !mask[i])
				continue;
			lo = min64(lo, s[i]);
			hi = max64(hi, e[i]);
			if (prev != SIZE_MAX && s[i] < s[prev])
				sorted = 0;
			prev = i;
		}
		if (lo == INT64_MAX)
			continue;
		f->window += hi - lo;
		if (mask) {
			/* only the masked ops: always through the pair array */
			size_t k = 0;
			sorted = 0;
			for (i = a; i < b; i++)
				k += mask[i] != 0;
			n = k;
		}
		if (!sorted) {
			if (n > cap) {
				free(pr);
				pr = malloc(n * 2 * sizeof(int64_t));
				cap = n;
				if (!pr)
					return -ENOMEM;
			}
			for (i = a, n = 0; i < b; i++) {
				if (mask && !mask[i])
					continue;
				pr[2 * n] = s[i];
				pr[2 * n + 1] = e[i];
				n++;
			}
			qsort(pr, n, 2 * sizeof(int64_t), cmp_pair);
		}
		cs = sorted ? s[a] : pr[0];
		ce = sorted ? e[a] : pr[1];
		for (i = 1; i < n; i++) {
			int64_t xs = sorted ? s[a + i] : pr[2 * i], xe = sorted ? e[a + i] : pr[2 * i + 1];
			if (xs > ce) {
				f->busy += ce - cs;
				cs = xs;
				ce = xe;
			} else if (xe > ce) {
				ce = xe;
			}
		}
		f->busy += ce - cs;
	}
	free(pr);
	f->utilisation = f->window > 0 ? (double)f->busy / (double)f->window : 0.0;
	return 0;
}

uint32_t wm_step_text(const struct gs_input *in)
{
	/* texts are strings ids: count and wall per id, in a map */
	struct u64map mp;
	int64_t *wall = NULL;
	uint32_t *count = NULL, n = 0, best = 0;
	int64_t best_w = 0;
	size_t i;

	if (!in->n_nvtx || u64map_init(&mp, 64) < 0)
		return 0;
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		uint32_t k;
		if (r->kind != 0 || !r->text_id)
			continue;
		k = u64map_put(&mp, r->text_id, n);
		if (k == GS_NONE)
			goto out;
		if (k == n) {
			int64_t *w = realloc(wall, (n + 1) * sizeof(*w));
			uint32_t *c;
			if (!w)
				goto out;
			wall = w;
			c = realloc(count, (n + 1) * sizeof(*c));
			if (!c)
				goto out;
			count = c;
			wall[n] = 0;
			count[n] = 0;
			n++;
		}
		wall[k] += r->end - r->start;
		count[k]++;
	}
	for (i = 0; i < mp.cap; i++) {
		uint32_t k = mp.v[i];
		if (k != GS_NONE && count[k] >= 4 &&
		    (wall[k] > best_w || (wall[k] == best_w && mp.k[i] < best))) {
			best_w = wall[k];
			best = (uint32_t)mp.k[i];
		}
	}
out:
	free(wall);
	free(count);
	u64map_free(&mp);
	return best;
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

void gs_whatif_opts_init(struct gs_whatif_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sync_every = GS_WHATIF_SYNC_EVERY;
}

int gs_whatif_run(const struct gs_result *res, const struct gs_whatif_opts *o,
		  struct gs_whatif *w)
{
	struct wm m;
	const struct gs_input *in = res->in;
	uint8_t *mask = NULL;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!in || !in->n_ops)
		return -EINVAL;
	rc = wm_build(&m, res);
	if (rc < 0)
		return rc;
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
	if ((rc = wm_replay(&m)) < 0 || (rc = figs_ops(&m, m.s, m.e, mask, &w->before)) < 0 ||
	    (rc = figs_steps(&m, w->step_text_id, 0, w, &w->before)) < 0)
		goto out;
	if (o && o->fixes && (rc = wm_apply_fixes(&m, o, w)) < 0)
		goto out;
	if (o && o->fixes && (rc = wm_replay(&m)) < 0)
		goto out;
	if ((rc = figs_ops(&m, m.s, m.e, mask, &w->after)) < 0 ||
	    (rc = figs_steps(&m, w->step_text_id, 1, w, &w->after)) < 0)
		goto out;
	w->saving_ns = w->before.window - w->after.window;
	w->saving_share =
	    w->before.window > 0 ? (double)w->saving_ns / (double)w->before.window : 0.0;
	w->api_fix = xcalloc(m.na, 1);
	if (!w->api_fix)
		goto out;
	{
		size_t i;
		for (i = 0; i < m.na; i++) {
			uint8_t f = m.af[m.top[i]];
			w->api_fix[i] = (f & AF_DROP)				   ? GS_WHATIF_GONE
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
    {GS_RULE_HOST_CODE, "host_code"},
    {GS_RULE_LAUNCH, "launch_overhead"},
    {GS_RULE_SYNC_STEP, "sync_every_step"},
    {GS_RULE_PAGEABLE, "pageable_copies"},
    {GS_RULE_SYNC_COPY, "sync_copies"},
    {GS_RULE_ALLOC, "alloc_in_loop"},
    {GS_RULE_LEGACY, "legacy_stream"},
    {GS_RULE_SHORT_KERNELS, "short_kernels"},
    {GS_WHATIF_COMMUNICATION, "communication"},
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
			if (!rc)
				rc = figs_ops(&m, s, e, NULL, &f);
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
