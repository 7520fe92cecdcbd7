/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_graph.c - the CUDA Graph advice (docs/metrics.md, "Graph
 * advice"): per stream, the repeated op sequence (a step), its
 * launch-attributable idle time and the estimate of the same work as CUDA
 * Graph replays. It reads the gaps and launch calls computed in analysis.c
 * and calls down into it; gs_analyze() (analysis_run.c) runs it after the
 * device passes. No I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* ------------------------------------------------------------------ */
/* graph advice                                                        */
/* ------------------------------------------------------------------ */

/* token of an op for sequence matching: kind and name */
static uint64_t op_token(const struct gs_op *o)
{
	return (uint64_t)o->kind << 32 | o->name_id;
}

struct tokcount {
	uint64_t tok;
	uint32_t count;
	uint32_t first;	  /* first position */
	uint32_t last;	  /* last position */
	uint32_t longest; /* longest distance between consecutive positions */
	uint8_t used;
};

struct seg {
	uint64_t hash;
	uint32_t len;
	uint32_t pos; /* token position of its start */
};

/* segments with the same (hash, length), in a table with open addressing */
struct seggroup {
	uint64_t hash;
	uint32_t len;
	uint32_t pos;	/* token position of the group's first segment */
	uint32_t count; /* segments; 0 = empty slot */
};

static struct seggroup *seggroup_find(struct seggroup *t, size_t cap, uint64_t hash, uint32_t len)
{
	size_t h = (size_t)((hash ^ len) * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);

	while (t[h].count && (t[h].hash != hash || t[h].len != len))
		h = (h + 1) & (cap - 1);
	return &t[h];
}

static int seggroup_grow(struct seggroup **t, size_t *cap)
{
	size_t nc = *cap * 2, i;
	struct seggroup *nt = calloc(nc, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (i = 0; i < *cap; i++)
		if ((*t)[i].count)
			*seggroup_find(nt, nc, (*t)[i].hash, (*t)[i].len) = (*t)[i];
	free(*t);
	*t = nt;
	*cap = nc;
	return 0;
}

static int cmp_advice(const void *a, const void *b)
{
	const struct gs_graph_advice *x = a, *y = b;
	if (x->saving != y->saving)
		return x->saving > y->saving ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* The per-node cost of a graph replay: the option, else the median hole
 * between consecutive ops of one graph launch in this trace (h[0..n),
 * gathered by stats_graph_advice(); at least 8 samples), else the
 * documented default. Reorders h. */
static void node_overhead(struct actx *c, int64_t *h, size_t n)
{
	struct gs_result *res = c->res;

	res->graph_node_hole_p50_ns = -1;
	if (c->opt->graph_node_overhead_ns >= 0) {
		res->graph_node_overhead_ns = c->opt->graph_node_overhead_ns;
		res->graph_node_overhead_source = 1;
		return;
	}
	res->graph_node_overhead_ns = GS_DEFAULT_GRAPH_NODE_OVERHEAD_NS;
	res->graph_node_overhead_source = 0;
	if (n >= 8) {
		qsort(h, n, sizeof(int64_t), gs_cmp_i64);
		res->graph_node_hole_p50_ns = h[(n + 1) / 2 - 1]; /* nearest-rank p50 */
		/* HTA's A100 trace of torch.compile'd graphs: 203 us, the
		 * graphs' ops waiting on other streams, which made a replay of
		 * 22 NCCL kernels "cost" 4.4 ms more than they ran launched */
		if (res->graph_node_hole_p50_ns <= GS_MAX_GRAPH_NODE_OVERHEAD_NS) {
			res->graph_node_overhead_ns = res->graph_node_hole_p50_ns;
			res->graph_node_overhead_source = 2;
		}
	}
}

/* The estimate of advice a, once the node overhead is known (it is
 * measured over every stream, and the advice is found stream by stream). */
static void advice_finish(const struct gs_result *res, struct gs_graph_advice *a, int64_t window,
			  const struct gs_calibration *cal)
{
	/* A replay removes the launch-caused idle and adds the graph's own
	 * per-node cost; sync-wait and dependency holes inside an occurrence
	 * stay (the host still waits, the event still has to fire).
	 * count x len x node overhead, held at 2^63-1 like the sums: len x
	 * count is at most the ops of a stream, but the overhead measured in
	 * a damaged trace's graph launches can be up to 2^62 ns (holes of
	 * 4e17 ns: 40 x 4e17 overflowed, UBSan) */
	int64_t replay;

	if (__builtin_mul_overflow((int64_t)a->count, (int64_t)a->length, &replay) ||
	    __builtin_mul_overflow(replay, res->graph_node_overhead_ns, &replay))
		replay = INT64_MAX;
	a->estimate = gs_sat_add(a->measured - a->launch_idle, replay);
	/* the host makes one graph launch call per replay: where the
	 * calibration timed it untraced (1.1-1.8 us on the H200, whatever the
	 * node count), replays take at least that each (a short sequence
	 * would read faster than its launches can be made) */
	if (cal && cal->plain_graph_ns >= 0 && cal->plain_graph_node_ns >= 0) {
		int64_t per = gs_sat_add(cal->plain_graph_ns,
					 (int64_t)a->length * cal->plain_graph_node_ns),
			floor;
		if (__builtin_mul_overflow((int64_t)a->count, per, &floor))
			floor = INT64_MAX;
		if (a->estimate < floor)
			a->estimate = floor;
	}
	a->saving = a->measured - a->estimate;
	a->saving_share = a->measured > 0 ? (double)a->saving / (double)a->measured : 0.0;
	/* worth a sentence only when it saves > 5% of the sequence's time and
	 * at least GS_ADVICE_MIN_WINDOW_SHARE of the device's window: 20 us
	 * saved in a 1 s run is not advice */
	a->advise = a->saving_share > GS_ADVICE_MIN_SAVING &&
		    (double)a->saving >= GS_ADVICE_MIN_WINDOW_SHARE * (double)window;
}

/* What a graph does to a hole: LC_NO it stays (sync wait, dependency,
 * other); LC_LAUNCH it goes (launch latency, graph-internal); LC_HOST it is
 * the host's own time (host code, CUDA API), which goes inside a step, and
 * between steps only while short (stats_graph_advice). */
enum { LC_NO = 0, LC_LAUNCH = 1, LC_HOST = 2 };

static int launch_caused(const struct actx *c, struct cg_cache *cc, int64_t g0, uint32_t x,
			 uint32_t prev)
{
	struct gs_gap g;

	g.start = g0;
	g.end = c->ops[x].start;
	classify_gap(c, cc, g0, x, prev, CG_STREAM_VIEW, &g, NULL);
	return !cause_graph_removes(g.cause) ? LC_NO
	       : cause_is_host_time(g.cause) ? LC_HOST
					     : LC_LAUNCH;
}

/* the latest op before opi[k] (from position lo on) with a known launch */
static uint32_t prev_called(const struct actx *c, const uint32_t *opi, size_t lo, size_t k)
{
	while (k > lo) {
		k--;
		if (c->call_of[opi[k]] != GS_NONE)
			return opi[k];
	}
	return GS_NONE;
}

/* Whether the hole [g0, start of opi[k]) is launch-caused, for a walk of
 * opi from position lo < k on, g0 being the latest end of opi[lo..k).
 * When opi holds every op of the stream (whole), opi[k - 1] is the op's
 * predecessor there, and the stream views classified the same hole from
 * the same inputs where they marked it SV_GAP_SAME: that answer is taken
 * (on a 10M-op trace, a third of the advice's time went to classifying
 * again). */
static int launch_caused_at(const struct actx *c, struct cg_cache *cc, int whole, int64_t g0,
			    const uint32_t *opi, size_t lo, size_t k)
{
	uint8_t sv = c->sv_gap[opi[k]];

	if (whole && (sv & SV_GAP_SAME))
		return !(sv & SV_GAP_LAUNCH) ? LC_NO : (sv & SV_GAP_HOST) ? LC_HOST : LC_LAUNCH;
	return launch_caused(c, cc, g0, opi[k], prev_called(c, opi, lo, k));
}

/* 1 when no op of the device runs inside (t0, t1), where t1 is the start
 * of op j of that device and t0 < t1. The device's ops are sorted by
 * start: the ops that start before t1 are those before the latest one
 * that does (if any), and none of them runs in (t0, t1) when the latest
 * end among them (op_max_end) is at most t0. That op is usually j - 1,
 * next to j in memory (a binary search over the device's ops per
 * occurrence missed the cache on nearly every step: a fifth of the
 * advice's time on a 10M-op trace; the caller fetches op j - 1 ahead).
 * Checking only that no op started inside the hole missed a long kernel
 * of another stream that began before it and ran through it (HTA's A100
 * DDP trace: NCCL kernels of 2.5 ms beside the backward pass). */
static int device_quiet(const struct actx *c, const struct gs_device_result *dr, int64_t t0,
			int64_t t1, uint32_t j)
{
	size_t k = j;

	while (k > dr->first_op && c->ops[k - 1].start >= t1)
		k--;
	return k == dr->first_op || c->op_max_end[k - 1] <= t0;
}

static int push_advice(struct gs_result *res, size_t *cap, const struct gs_graph_advice *a)
{
	if (res->n_advice == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		void *p = realloc(res->advice, nc * sizeof(*res->advice));
		if (!p)
			return -ENOMEM;
		res->advice = p;
		*cap = nc;
	}
	res->advice[res->n_advice++] = *a;
	return 0;
}

/* The NVTX range that names a sequence: the innermost at the launch of
 * an occurrence's first op, the one most occurrences share (of up to
 * ADV_NVTX_SAMPLE taken evenly), the earliest of those on a tie; GS_NONE
 * when most lie in none. The first occurrence alone named a warm-up's
 * range: the H200 decode demo's 867-step sequence, 768 of them in
 * "decode_eager", was named after "load_kernels", which held 4. */
#define ADV_NVTX_SAMPLE 63
static uint32_t advice_nvtx(const struct actx *c, const uint32_t *opi, const uint32_t *occ,
			    size_t m_occ)
{
	uint32_t idx[ADV_NVTX_SAMPLE], text[ADV_NVTX_SAMPLE];
	size_t n = m_occ < ADV_NVTX_SAMPLE ? m_occ : ADV_NVTX_SAMPLE, i, j, best = 0, best_n = 0;

	for (i = 0; i < n; i++) {
		size_t o = n == m_occ ? i : i * (m_occ - 1) / (n - 1);
		idx[i] = nvtx_at_launch(c, opi[occ[o]]);
		text[i] = idx[i] != GS_NONE ? c->in->nvtx[idx[i]].text_id : GS_NONE;
	}
	for (i = 0; i < n; i++) {
		size_t k = 0;
		for (j = 0; j < n; j++)
			k += text[j] == text[i];
		if (k > best_n) {
			best_n = k;
			best = i;
		}
	}
	return n ? idx[best] : GS_NONE;
}

/* occurrences ahead of the walk whose device_quiet() op is prefetched */
#define ADV_AHEAD 4

/* A duration that does not fit the advice's 32-bit copy: read the op */
#define ADV_DUR_FAR UINT32_MAX

/* End of the op in slot k of a stream's slice (stats_graph_advice) */
static int64_t slot_end(const struct actx *c, const int64_t *st, const uint32_t *du,
			const uint32_t *opi, size_t k)
{
	return du[k] != ADV_DUR_FAR ? st[k] + du[k] : c->ops[opi[k]].end;
}

/* ---- the step of a loop whose steps differ a little ------------------
 * A decode loop's per-token step repeats with a few ops that differ from
 * token to token (a kernel chosen by shape as the KV cache grows, a copy
 * on some tokens only), so no exact repetition covers it. Period detection
 * on anchors: an op that occurs once per step is found as a token that
 * spans the stream; the pieces between its consecutive occurrences are
 * the steps. The median piece length is the step's length; a piece counts
 * as an occurrence when its length is within 10% of it and it matches the
 * template (the first piece of that length) in at least 80% of its ops,
 * aligned greedily with shifts of one op (an op inserted or dropped). The
 * anchor whose occurrences cover the most ops wins. Linear in the ops per
 * candidate (at most TOL_ANCHORS candidates). */
#define TOL_ANCHORS 16
#define TOL_LEN_SLACK 10  /* percent of the median length */
#define TOL_MATCH 80	  /* percent of ops that must match */
#define TOL_MIN_EXACT_LEN 32 /* an exact unit this long may be several steps */

static int cmp_u32_asc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* ops of b that match a, aligned greedily (equal: both advance; else skip
 * one op of whichever side then matches; else both advance) */
static size_t tol_matches(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, m = 0;

	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			m++;
			i++;
			j++;
		} else if (i + 1 < na && a[i + 1] == b[j]) {
			i++;
		} else if (j + 1 < nb && a[i] == b[j + 1]) {
			j++;
		} else {
			i++;
			j++;
		}
	}
	return m;
}

struct tol_result {
	uint32_t *occ_pos, *occ_len; /* occurrences: start position, ops */
	size_t n_occ;
	size_t cover;	/* ops in them */
	uint32_t tpl_pos, tpl_len; /* the template piece */
};

static int tol_search(const uint64_t *tok, size_t n, const struct tokcount *tab, size_t tab_cap,
		      struct tol_result *out)
{
	struct tokcount cand[TOL_ANCHORS];
	size_t n_cand = 0, i, q, ci;
	uint32_t *pos = NULL, *lens = NULL, *occ_pos = NULL, *occ_len = NULL;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	/* tokens spanning at least half the stream, at least 4 times, rarest
	 * first: a once-per-step op */
	for (i = 0; i < tab_cap; i++) {
		const struct tokcount *t = &tab[i];
		if (!t->used || t->count < 4 || 2 * (size_t)(t->last - t->first) < n)
			continue;
		for (q = n_cand; q > 0; q--) {
			const struct tokcount *p = &cand[q - 1];
			if (p->count < t->count || (p->count == t->count && p->first < t->first))
				break;
			if (q < TOL_ANCHORS)
				cand[q] = cand[q - 1];
		}
		if (q < TOL_ANCHORS) {
			cand[q] = *t;
			if (n_cand < TOL_ANCHORS)
				n_cand++;
		}
	}
	if (!n_cand)
		return 0;
	pos = malloc(cand[n_cand - 1].count * sizeof(uint32_t));
	lens = malloc(cand[n_cand - 1].count * sizeof(uint32_t));
	occ_pos = malloc(cand[n_cand - 1].count * sizeof(uint32_t));
	occ_len = malloc(cand[n_cand - 1].count * sizeof(uint32_t));
	if (!pos || !lens || !occ_pos || !occ_len)
		goto out;
	for (ci = 0; ci < n_cand; ci++) {
		size_t m = 0, k, cover = 0, n_occ = 0;
		uint32_t med, tpl = GS_NONE;
		for (i = 0; i < n && m < cand[ci].count; i++)
			if (tok[i] == cand[ci].tok)
				pos[m++] = (uint32_t)i;
		if (m < 4)
			continue;
		for (k = 0; k + 1 < m; k++)
			lens[k] = pos[k + 1] - pos[k];
		qsort(lens, m - 1, sizeof(uint32_t), cmp_u32_asc);
		med = lens[(m - 2) / 2];
		if (med < 2)
			continue;
		for (k = 0; k + 1 < m; k++)
			if (pos[k + 1] - pos[k] == med) {
				tpl = pos[k];
				break;
			}
		for (k = 0; k + 1 < m; k++) {
			uint32_t l = pos[k + 1] - pos[k];
			uint32_t d = l > med ? l - med : med - l;
			size_t big = l > med ? l : med;
			if (100 * (size_t)d > TOL_LEN_SLACK * (size_t)med)
				continue;
			if (100 * tol_matches(tok + tpl, med, tok + pos[k], l) < TOL_MATCH * big)
				continue;
			occ_pos[n_occ] = pos[k];
			occ_len[n_occ] = l;
			n_occ++;
			cover += l;
		}
		if (n_occ >= 2 && cover > out->cover) {
			uint32_t *t;
			out->cover = cover;
			out->tpl_pos = tpl;
			out->tpl_len = med;
			out->n_occ = n_occ;
			/* keep these occurrences: swap the buffers */
			t = out->occ_pos ? out->occ_pos : NULL;
			out->occ_pos = occ_pos;
			occ_pos = t ? t : malloc(cand[n_cand - 1].count * sizeof(uint32_t));
			t = out->occ_len ? out->occ_len : NULL;
			out->occ_len = occ_len;
			occ_len = t ? t : malloc(cand[n_cand - 1].count * sizeof(uint32_t));
			if (!occ_pos || !occ_len)
				goto out;
		}
	}
	rc = 0;
out:
	free(pos);
	free(lens);
	free(occ_pos);
	free(occ_len);
	if (rc) {
		free(out->occ_pos);
		free(out->occ_len);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

/* In a capture trace, the capture window of an op that starts at t: the
 * first whose end is at or after t (the op meets the selection, so one
 * window at least; an op launched before a window opened and running into
 * it belongs to that window). 0 in a trace recorded whole: all one. */
static size_t op_capture_window(const struct gs_input *in, int64_t t)
{
	const int64_t *w = in->capture_windows;
	size_t lo = 0, hi = in->n_capture_windows;

	if (!in->capture_range)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w[2 * mid + 1] >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Keep the occurrences (start positions occ[0..n) in st's slots, of len[o]
 * ops each, or all of fixed when len is NULL) whose ops all began in one
 * capture window, in place; returns how many. An occurrence across the
 * unrecorded time between two windows is no measured repetition: its hole
 * there is time nobody recorded (a loop's step, or other work, ran in it),
 * and its length would read milliseconds of a step that took microseconds.
 * A trace recorded whole keeps all. */
static size_t occ_in_one_window(const struct actx *c, const int64_t *st, uint32_t *occ,
				uint32_t *len, size_t fixed, size_t n)
{
	size_t o, m = 0;

	if (!c->in->capture_range)
		return n;
	for (o = 0; o < n; o++) {
		size_t l = len ? len[o] : fixed;
		if (op_capture_window(c->in, st[occ[o]]) !=
		    op_capture_window(c->in, st[occ[o] + l - 1]))
			continue;
		occ[m] = occ[o];
		if (len)
			len[m] = len[o];
		m++;
	}
	return m;
}

/* Find the repeated sequence of one stream's token list and add advice.
 * tok/opi/st/du: tokens, op indexes, starts and durations of its ops
 * (not from graphs, in the selection), in stream order; whole: they are
 * all the stream's ops. */
static int advise_stream(struct actx *c, const struct gs_device_result *dr, const uint64_t *tok,
			 const uint32_t *opi, const int64_t *st, const uint32_t *du, size_t n,
			 int whole, size_t *adv_cap)
{
	struct gs_result *res = c->res;
	struct tokcount *tab = NULL;
	struct seggroup *grp = NULL;
	size_t grp_cap = 64, n_grp = 0;
	uint32_t *pos = NULL;
	size_t cap = 16, i, m = 0, j;
	uint64_t anchor = 0;
	uint32_t len;
	struct seg best_seg = {0};
	struct tol_result tol = {0};
	size_t best_cover = 0;
	struct gs_graph_advice a;
	struct cg_cache cc;
	int rc = -ENOMEM;

	if (n < 2)
		return 0;
	/* token counts: open addressing, grown by doubling at half load (a
	 * loop body has few distinct ops; a table sized by n would be mostly
	 * untouched memory that calloc still has to fault in) */
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		goto out;
	{
		size_t distinct = 0;
		for (i = 0; i < n; i++) {
			size_t h = (size_t)((tok[i] * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
			while (tab[h].used && tab[h].tok != tok[i])
				h = (h + 1) & (cap - 1);
			if (!tab[h].used) {
				if (2 * (distinct + 1) > cap) {
					size_t ncap = cap * 2, q;
					struct tokcount *nt = calloc(ncap, sizeof(*nt));
					if (!nt)
						goto out;
					for (q = 0; q < cap; q++) {
						size_t hh;
						if (!tab[q].used)
							continue;
						hh =
						    (size_t)((tab[q].tok * 0x9E3779B97F4A7C15ull) >>
							     20) &
						    (ncap - 1);
						while (nt[hh].used)
							hh = (hh + 1) & (ncap - 1);
						nt[hh] = tab[q];
					}
					free(tab);
					tab = nt;
					cap = ncap;
					h = (size_t)((tok[i] * 0x9E3779B97F4A7C15ull) >> 20) &
					    (cap - 1);
					while (tab[h].used)
						h = (h + 1) & (cap - 1);
				}
				distinct++;
				tab[h].used = 1;
				tab[h].tok = tok[i];
				tab[h].first = (uint32_t)i;
				tab[h].last = (uint32_t)i;
			}
			if ((uint32_t)i - tab[h].last > tab[h].longest)
				tab[h].longest = (uint32_t)i - tab[h].last;
			tab[h].last = (uint32_t)i;
			tab[h].count++;
		}
	}
	/* anchor candidates: the rarest tokens that repeat (earliest on
	 * ties). A loop body's rarest token occurs once per period, but one
	 * rare op elsewhere on the stream (a set-up kernel, a timing gate
	 * launched a few times) would make a poor anchor whose segments never
	 * repeat: so up to GS_ADVICE_ANCHORS candidates are tried and the one
	 * whose repeated segment covers the most ops wins. */
	{
		struct tokcount cand[GS_ADVICE_ANCHORS];
		size_t n_cand = 0, ci, q;
		for (i = 0; i < cap; i++) {
			if (!tab[i].used || tab[i].count < 2)
				continue;
			/* insertion into the sorted candidate list (count, first) */
			for (q = n_cand; q > 0; q--) {
				const struct tokcount *p = &cand[q - 1];
				if (p->count < tab[i].count ||
				    (p->count == tab[i].count && p->first < tab[i].first))
					break;
				if (q < GS_ADVICE_ANCHORS)
					cand[q] = cand[q - 1];
			}
			if (q < GS_ADVICE_ANCHORS) {
				cand[q] = tab[i];
				if (n_cand < GS_ADVICE_ANCHORS)
					n_cand++;
			}
		}
		if (!n_cand) {
			rc = 0;
			goto out;
		}
		pos = malloc(cand[n_cand - 1].count * sizeof(uint32_t));
		grp = calloc(grp_cap, sizeof(*grp));
		if (!grp)
			goto out;
		if (!pos)
			goto out;
		for (ci = 0; ci < n_cand; ci++) {
			size_t cover = 0, mm = 0;
			struct seg best = {0};
			/* A group of k >= 2 segments covers at most the span
			 * between the first and last anchor, a single piece that
			 * follows itself twice its length: a candidate that
			 * cannot beat the best so far is not hashed at all (on a
			 * loop of 8 kernels, 6 of the 8 candidates), nor are its
			 * positions looked for (span and longest distance come
			 * from the counting pass). Candidates occur >= 2 times. */
			if ((size_t)(cand[ci].last - cand[ci].first) <= best_cover &&
			    2 * (size_t)cand[ci].longest <= best_cover)
				continue;
			for (i = 0; i < n; i++)
				if (tok[i] == cand[ci].tok)
					pos[mm++] = (uint32_t)i;
			/* segments between consecutive anchors, hashed (FNV-1a),
			 * grouped by (hash, length) in a hash table: a sort of
			 * the segments cost a second per 10M ops */
			n_grp = 0;
			memset(grp, 0, grp_cap * sizeof(*grp));
			for (j = 0; j + 1 < mm; j++) {
				uint64_t h = 1469598103934665603ull;
				struct seggroup *e;
				for (i = pos[j]; i < pos[j + 1]; i++) {
					h ^= tok[i];
					h *= 1099511628211ull;
				}
				e = seggroup_find(grp, grp_cap, h, pos[j + 1] - pos[j]);
				if (!e->count) {
					if (2 * (n_grp + 1) > grp_cap) {
						if (seggroup_grow(&grp, &grp_cap))
							goto out;
						e = seggroup_find(grp, grp_cap, h,
								  pos[j + 1] - pos[j]);
					}
					n_grp++;
					e->hash = h;
					e->len = pos[j + 1] - pos[j];
					e->pos = pos[j]; /* segments come in position order */
				}
				e->count++;
			}
			/* the group covering the most ops; on a tie the one that
			 * starts first (groups start at distinct positions, so
			 * the order of the table does not matter) */
			for (i = 0; i < grp_cap; i++) {
				const struct seggroup *e = &grp[i];
				size_t occ = e->count;
				if (!occ)
					continue;
				/* a piece between two anchors seen once repeats only
				 * if it also follows itself at once (A B A B: one
				 * piece [A B], two occurrences); otherwise it is no
				 * repetition, however many ops it covers */
				if (occ == 1) {
					size_t p0 = e->pos, l = e->len;
					if (p0 + 2 * l <= n &&
					    !memcmp(tok + p0, tok + p0 + l, l * sizeof(uint64_t)))
						occ = 2;
					else
						continue;
				}
				if (occ * e->len > cover ||
				    (occ * e->len == cover && e->pos < best.pos)) {
					cover = occ * e->len;
					best = (struct seg){
					    .hash = e->hash, .len = e->len, .pos = e->pos};
				}
			}
			if (cover > best_cover) {
				best_cover = cover;
				anchor = cand[ci].tok;
				best_seg = best;
			}
		}
		if (!best_cover) {
			rc = 0;
			goto out;
		}
		for (i = 0; i < n; i++)
			if (tok[i] == anchor)
				pos[m++] = (uint32_t)i;
	}
	len = best_seg.len;
	/* The steps may differ a little (tol_search): when exact repetition
	 * covers less than half the stream, or found a long unit that may be
	 * several steps (a decode loop whose kernels change every few tokens
	 * repeats exactly only every few tokens). The tolerant steps win when
	 * they cover more, or are shorter and cover at least 90% as much: the
	 * step to capture is the smallest unit that repeats. */
	if (n >= 64 && (2 * best_cover < n || len >= TOL_MIN_EXACT_LEN)) {
		if (tol_search(tok, n, tab, cap, &tol))
			goto out;
		if (!(tol.cover > best_cover ||
		      (tol.tpl_len < len && 10 * tol.cover >= 9 * best_cover))) {
			free(tol.occ_pos);
			free(tol.occ_len);
			memset(&tol, 0, sizeof(tol));
		}
	}
	cg_cache_init(&cc);
	memset(&a, 0, sizeof(a));
	a.device = c->ops[opi[0]].device;
	if (tol.n_occ) {
		best_seg.pos = tol.tpl_pos;
		len = tol.tpl_len;
	}
	a.length = len;
	a.first_op_idx = opi[best_seg.pos];
	/* count every anchor position whose next len tokens equal the template
	 * (checks the hash, and picks up the last occurrence too); m_occ
	 * reuses pos[] for the occurrences' start positions. With tolerant
	 * occurrences, those, each with its own length. */
	{
		const uint64_t *tpl = tok + best_seg.pos;
		size_t m_occ = 0, o;
		const uint32_t *occ = pos;
		if (tol.n_occ) {
			tol.n_occ =
			    occ_in_one_window(c, st, tol.occ_pos, tol.occ_len, 0, tol.n_occ);
			occ = tol.occ_pos;
			m_occ = tol.n_occ;
		} else {
			for (j = 0; j < m; j++) {
				size_t p = pos[j];
				if (p + len > n || memcmp(tok + p, tpl, len * sizeof(uint64_t)) != 0)
					continue;
				pos[m_occ++] = (uint32_t)p;
			}
			m_occ = occ_in_one_window(c, st, pos, NULL, len, m_occ);
		}
		if (!m_occ) {
			rc = 0;
			goto out;
		}
		a.first_op_idx = opi[occ[0]];
		a.nvtx_idx = advice_nvtx(c, opi, occ, m_occ);
		for (o = 0; o < m_occ; o++) {
			size_t p = occ[o], k;
			size_t len = tol.n_occ ? tol.occ_len[o] : a.length;
			int64_t first = st[p], end = slot_end(c, st, du, opi, p);
			/* the op device_quiet() reads for the occurrence
			 * ADV_AHEAD on: a cache miss each, fetched early */
			if (!tol.n_occ && o + ADV_AHEAD + 1 < m_occ) {
				size_t q = pos[o + ADV_AHEAD] + len;
				if (pos[o + ADV_AHEAD + 1] == q && opi[q] > 0)
					__builtin_prefetch(&c->ops[opi[q] - 1]);
			}
			a.count++;
			a.op_time = gs_sat_add(a.op_time, end - first);
			for (k = p + 1; k < p + len; k++) {
				int64_t s_k = st[k], e_k = slot_end(c, st, du, opi, k);
				int lc;
				a.op_time = gs_sat_add(a.op_time, e_k - s_k);
				/* a hole where the device ran other streams' work
				 * is no idle a replay removes (HTA's A100 DDP
				 * trace: NCCL's stream, one all-reduce a step
				 * behind the backward pass on stream 7, "91.5%
				 * less as graph replays"); nor is a hole the
				 * host held for GS_HOST_STALL_NS or more: the
				 * program's own work, which stays (TraceLens'
				 * H100 OWLv2 trace: 4 batches of ~122 ms loaded
				 * inside the repeated sequence, "52.1% less") */
				lc = s_k > end && device_quiet(c, dr, end, s_k, opi[k])
					 ? launch_caused_at(c, &cc, whole, end, opi, p, k)
					 : LC_NO;
				if (lc == LC_LAUNCH ||
				    (lc == LC_HOST && s_k - end < GS_HOST_STALL_NS))
					a.launch_idle = gs_sat_add(a.launch_idle, s_k - end);
				if (e_k > end)
					end = e_k;
			}
			a.measured = gs_sat_add(a.measured, end - first);
			/* the hole before the next occurrence when it follows at
			 * once: launch-caused idle there is what one graph launch
			 * per body would also remove (a loop of one kernel has
			 * all its idle there) - but only when the device ran
			 * nothing else meanwhile: when other streams' work fills
			 * the hole (a per-token copy between a decode step's
			 * kernels), consecutive occurrences cannot be captured
			 * together and a graph per occurrence leaves the hole.
			 * The host's own time there counts only while short:
			 * longer, it is the program's work between steps (H200
			 * decode demo: readbacks 1.3-3.8 ms apart, with
			 * cudaGraphExecDestroy and host code between them, read
			 * as a 1-op loop a graph would make 98.8% shorter). */
			/* (in a capture trace, one in the same window: a hole
			 * across the time between windows was not recorded) */
			if (o + 1 < m_occ && occ[o + 1] == p + len &&
			    op_capture_window(c->in, st[p + len]) ==
				op_capture_window(c->in, st[p])) {
				int64_t nx = st[p + len];
				int lc = nx > end && device_quiet(c, dr, end, nx, opi[p + len])
					     ? launch_caused_at(c, &cc, whole, end, opi, p, p + len)
					     : LC_NO;
				if (lc == LC_LAUNCH ||
				    (lc == LC_HOST && nx - end <= GS_ADVICE_HOST_HOLE_NS)) {
					a.launch_idle = gs_sat_add(a.launch_idle, nx - end);
					a.measured = gs_sat_add(a.measured, nx - end);
				}
			}
		}
	}
	if (a.count < 2) {
		rc = 0;
		goto out;
	}
	/* estimate, saving and advise: advice_finish(), after every stream */
	len = a.length;
	a.names = malloc(len * sizeof(uint32_t));
	a.kinds = malloc(len);
	if (!a.names || !a.kinds) {
		free(a.names);
		free(a.kinds);
		goto out;
	}
	for (i = 0; i < len; i++) {
		a.names[i] = (uint32_t)(tok[best_seg.pos + i] & 0xffffffffu);
		a.kinds[i] = (uint8_t)(tok[best_seg.pos + i] >> 32);
	}
	a.stream = c->ops[opi[0]].stream;
	rc = push_advice(res, adv_cap, &a);
	if (rc) {
		free(a.names);
		free(a.kinds);
	}
out:
	free(tab);
	free(grp);
	free(pos);
	free(tol.occ_pos);
	free(tol.occ_len);
	return rc;
}

/* Where the token pass is on one stream: the next slot of its slice, and
 * its previous op (for the graph launches' node-overhead samples). */
struct tok_cursor {
	size_t next;	   /* next slot in the slices */
	int64_t prev_end;  /* ns */
	uint32_t prev_graph, prev_corr;
	int has_prev;
};

int stats_graph_advice(struct actx *c)
{
	struct gs_result *res = c->res;
	const size_t n_ops = c->in->n_ops;
	uint32_t *order, *dur;
	uint64_t *tok;
	int64_t *start, *h = NULL;
	size_t *off = NULL, d, adv_cap = 0, n_h = 0, h_cap = 0, k;
	struct tok_cursor *cur = NULL;
	int rc = -ENOMEM;

	/* scratch layout (bytes, n ops): tok [0, 8n), order [8n, 12n), dur
	 * [12n, 16n), start [16n, 24n). Each stream of a device has a slice
	 * of each as long as its ops (counting sort by stream index), filled
	 * in one pass over the device's ops in start order; the advice then
	 * reads a stream's ops from its slices, one after another. Walking
	 * the ops themselves in stream order touched every cache line of them
	 * once per stream (half of the advice's time on a 10M-op trace). */
	tok = c->scratch;
	order = (uint32_t *)(tok + n_ops);
	dur = order + n_ops;
	start = (int64_t *)(dur + n_ops);
	c->op_max_end = malloc((n_ops ? n_ops : 1) * sizeof(int64_t));
	if (!c->op_max_end)
		goto out;
	for (d = 0; d < res->n_devices; d++) {
		const struct gs_device_result *dr = &res->devices[d];
		int64_t me = INT64_MIN;
		size_t i;
		for (i = dr->first_op; i < dr->end_op; i++) {
			if (c->ops[i].end > me)
				me = c->ops[i].end;
			c->op_max_end[i] = me;
		}
	}
	for (d = 0; d < res->n_devices; d++) {
		const struct gs_device_result *dr = &res->devices[d];
		size_t s, i;
		off = calloc(dr->n_streams + 1, sizeof(size_t));
		cur = calloc(dr->n_streams ? dr->n_streams : 1, sizeof(*cur));
		if (!off || !cur)
			goto out;
		for (i = dr->first_op; i < dr->end_op; i++)
			off[c->stream_of[i] + 1]++;
		for (s = 0; s < dr->n_streams; s++) {
			off[s + 1] += off[s];
			cur[s].next = dr->first_op + off[s];
		}
		for (i = dr->first_op; i < dr->end_op; i++) {
			const struct gs_op *o = &c->ops[i];
			struct tok_cursor *t = &cur[c->stream_of[i]];
			int64_t len = o->end - o->start;
			/* the hole between consecutive ops of one graph launch on
			 * this stream: a sample of the per-node cost */
			if (t->has_prev && t->prev_graph && o->graph_id && t->prev_corr &&
			    t->prev_corr == o->corr) {
				if (n_h == h_cap) {
					size_t nc = h_cap ? 2 * h_cap : 1024;
					int64_t *nh = realloc(h, nc * sizeof(int64_t));
					if (!nh)
						goto out;
					h = nh;
					h_cap = nc;
				}
				h[n_h++] = o->start > t->prev_end ? o->start - t->prev_end : 0;
			}
			t->has_prev = 1;
			t->prev_graph = o->graph_id;
			t->prev_corr = o->corr;
			t->prev_end = o->end;
			if (o->graph_id || !sel_contains_op(c, o->start, o->end))
				continue;
			tok[t->next] = op_token(o);
			order[t->next] = (uint32_t)i;
			start[t->next] = o->start;
			dur[t->next++] = len < (int64_t)ADV_DUR_FAR ? (uint32_t)len : ADV_DUR_FAR;
		}
		for (s = 0; s < dr->n_streams; s++) {
			size_t first = dr->first_op + off[s], n = cur[s].next - first;
			rc = advise_stream(c, dr, tok + first, order + first, start + first,
					   dur + first, n, n == off[s + 1] - off[s], &adv_cap);
			if (rc)
				goto out;
		}
		rc = -ENOMEM;
		free(off);
		free(cur);
		off = NULL;
		cur = NULL;
	}
	node_overhead(c, h, n_h);
	for (k = 0; k < res->n_advice; k++) {
		struct gs_graph_advice *a = &res->advice[k];
		for (d = 0; d < res->n_devices; d++)
			if (res->devices[d].device == a->device)
				break;
		advice_finish(res, a, d < res->n_devices ? res->devices[d].tl.window : 0,
			      c->in->cal.have ? &c->in->cal : NULL);
	}
	if (res->n_advice)
		qsort(res->advice, res->n_advice, sizeof(*res->advice), cmp_advice);
	rc = 0;
out:
	free(off);
	free(cur);
	free(h);
	free(c->op_max_end);
	c->op_max_end = NULL;
	return rc;
}
