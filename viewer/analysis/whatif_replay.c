/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * whatif_replay.c - the replay of the what-if model (whatif_int.h; built in
 * whatif.c, transformed in whatif_fix.c): one sweep in the trace's time
 * order, which every dependency follows, over cursors of the host threads
 * (their top-level calls' starts and blocking ends) and of the devices
 * (their ops), writing each op's and call's replayed times. It reads no
 * files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h" /* big_calloc */
#include "whatif_int.h"

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static void *xcalloc(size_t n, size_t sz)
{
	return big_calloc(n ? n : 1, sz);
}

/* ------------------------------------------------------------ the replay */

/* cursors: host threads (0 .. n_thr-1), then devices */
struct cur {
	int64_t t;	  /* the recorded time of its next step */
	uint8_t type;	  /* 0 call start, 1 op start, 2 blocking call end */
	uint32_t pos;	  /* threads: position in order; devices: op index */
	uint32_t lim;	  /* end of its range */
	int64_t prev_end; /* threads: replayed end of its last top call */
	int64_t rec_end;  /* threads: recorded end of its last top call */
	uint8_t dropped;  /* threads: a fix removed its last top call */
	uint32_t dk;	  /* devices: position in dblks (wm_odep) */
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
		t = max64(t, m->s[x] != WI_UNSET ? wm_end(m, x) : m->in->ops[x].end);
	}
	return t;
}

/* op x; *dk: the device's position in dblks (its ops come in order) */
static void replay_op(struct wm *m, uint32_t x, uint32_t *dk)
{
	const struct gs_op *o = &m->in->ops[x];
	uint32_t c = m->call_of[x], p = m->pred[x];
	int64_t b = INT64_MIN;

	if (c != GS_NONE && !(m->of[x] & OF_NOLAUNCH))
		b = (m->as[c] != WI_UNSET ? m->as[c] : m->in->apis[c].start) + wm_olat(m, x);
	if (p != GS_NONE)
		b = max64(b, ((m->of[x] & OF_PRED_START) ? m->s[p] : wm_end(m, p)) + wm_opg(m, x));
	if (m->of[x] & OF_DEP) {
		const struct wblk *d;
		while (m->dblks[*dk].who < x) /* the device's ops come in order */
			(*dk)++;
		d = &m->dblks[*dk];
		if (d->n)
			b = max64(b, blk_latest(m, d) + d->own);
	}
	if (b == INT64_MIN)
		b = o->start;
	m->s[x] = b;
	if (m->e)
		m->e[x] = b + wm_odur(m, x);
}

/* top call a of thread cursor k ends at `end` */
static void call_done(struct wm *m, struct cur *k, uint32_t a, int64_t end)
{
	if (m->ae)
		m->ae[a] = end;
	k->prev_end = end;
	k->rec_end = m->in->apis[a].end;
	k->dropped = (m->af[a] & AF_DROP) != 0;
	k->pos++;
	if (!thr_next(m, k))
		k->t = INT64_MAX;
}

/* start of top call a at position pos of its thread cursor k */
static void replay_call_start(struct wm *m, struct cur *k)
{
	uint32_t a = m->order[k->pos], q;
	const struct gs_api *x = &m->in->apis[a];
	/* after the host time since the previous top call (wm_gap) */
	int64_t s = (m->af[a] & AF_FIRST) ? x->start
		    : (m->af[a] & AF_NOGAP)
			? k->prev_end
			: k->prev_end + (x->start - k->rec_end) - (m->gap_cut ? m->gap_cut[a] : 0) -
			      (m->gap_fix ? m->gap_fix[a] : 0);
	/* the call before it removed: one boundary between two calls fewer,
	 * and tracing's work at it (CUPTI's between two records) with it */
	if (k->dropped && m->drop_gap_ns > 0 && !(m->af[a] & (AF_FIRST | AF_NOGAP))) {
		int64_t g = max64(s - k->prev_end, 0);
		s -= g < m->drop_gap_ns ? g : m->drop_gap_ns;
	}

	m->as[a] = s;
	/* nested calls move with it */
	for (q = k->pos + 1; q < k->lim && m->top[m->order[q]] == a; q++) {
		uint32_t n = m->order[q];
		m->as[n] = s + (m->in->apis[n].start - x->start);
		if (m->ae)
			m->ae[n] = s + (m->in->apis[n].end - x->start);
	}
	if (m->af[a] & AF_DROP) {
		call_done(m, k, a, s + wm_call_cost(m, a)); /* tracing's part stays */
	} else if ((m->af[a] & AF_BLK) && !(m->af[a] & AF_NOWAIT) && m->blks[wm_ablk(m, a)].n) {
		k->t = x->end;
		k->type = 2;
	} else {
		call_done(m, k, a, s + m->dur[a]);
	}
}

static void replay_call_end(struct wm *m, struct cur *k)
{
	uint32_t a = m->order[k->pos];
	const struct wblk *b = &m->blks[wm_ablk(m, a)];

	/* nested calls end by their recorded end at the latest */
	call_done(m, k, a, max64(m->as[a], blk_latest(m, b)) + b->own);
}

/* the next step of cursor x (index k): a call's start or end, or an op */
static void replay_step(struct wm *m, uint32_t k, struct cur *x)
{
	if (k < m->n_thr) {
		if (x->type == 0)
			replay_call_start(m, x);
		else
			replay_call_end(m, x);
	} else {
		replay_op(m, x->pos, &x->dk);
		if (++x->pos < x->lim)
			x->t = m->in->ops[x->pos].start;
		else
			x->t = INT64_MAX;
	}
}

/* cursor k's order (cur_less) as one number: (t, type, k), t's sign bit
 * flipped so that unsigned order is signed order */
static unsigned __int128 cur_key(const struct cur *x, uint32_t k)
{
	return ((unsigned __int128)((uint64_t)x->t ^ (1ull << 63)) << 64) |
	       ((uint64_t)x->type << 32) | k;
}

int wm_replay(struct wm *m)
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
		m->s[i] = WI_UNSET;
	if (m->e)
		for (i = 0; i < m->no; i++)
			m->e[i] = WI_UNSET;
	for (i = 0; i < m->na; i++)
		m->as[i] = WI_UNSET;
	if (m->ae)
		for (i = 0; i < m->na; i++)
			m->ae[i] = WI_UNSET;
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
		for (d->dk = 0; d->dk < m->nd && m->dblks[d->dk].who < d->pos; d->dk++)
			;
		if (d->pos < d->lim) {
			d->t = m->in->ops[d->pos].start;
			h[n++] = (uint32_t)(m->n_thr + i);
		}
	}
	/* few cursors (threads and devices: the usual case): the next one
	 * by a scan without branches to mispredict (cur_key orders as
	 * cur_less); many: the heap */
	if (n <= 8) {
		unsigned __int128 key[8];
		for (i = 0; i < n; i++)
			key[i] = cur_key(&c[h[i]], h[i]);
		while (n) {
			size_t j = 0;
			struct cur *x;
			for (i = 1; i < n; i++)
				j = key[i] < key[j] ? i : j;
			x = &c[h[j]];
			replay_step(m, h[j], x);
			if (x->t == INT64_MAX) {
				n--;
				h[j] = h[n];
				key[j] = key[n];
			} else {
				key[j] = cur_key(x, h[j]);
			}
		}
	}
	for (i = n; i-- > 0;)
		heap_down(h, n, i, c);
	while (n) {
		uint32_t k = h[0];
		struct cur *x = &c[k];
		replay_step(m, k, x);
		if (x->t == INT64_MAX)
			h[0] = h[--n];
		heap_down(h, n, 0, c);
	}
	free(c);
	free(h);
	return 0;
}
