/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * whatif_int.h - private to whatif*.c: the replay model (whatif.c builds
 * and replays it, whatif_fix.c transforms it). Nothing else includes this.
 */
#ifndef GAPSCOPE_WHATIF_INT_H
#define GAPSCOPE_WHATIF_INT_H

#include "whatif.h"

#define WI_UNSET INT64_MIN

/* per API call flags (wm.af) */
#define AF_TOP 0x01    /* a top-level call of its thread (not inside another) */
#define AF_FIRST 0x02  /* its thread's first: starts at its recorded time */
#define AF_DROP 0x04   /* a fix removed it: takes no time, waits for nothing */
#define AF_NOWAIT 0x08 /* a fix made it asynchronous: it waits for nothing */
#define AF_LAUNCH 0x10 /* it launched ops (its own or a nested call's) */
#define AF_GRAPH 0x20  /* a fix made it a graph launch */
#define AF_NOGAP 0x40  /* a fix removed the host time before it (wm_gap) */
#define AF_BLK 0x80    /* it waits for something (its blks entry: wm_ablk) */

/* per op flags (wm.of); its offsets (wm_olat, wm_opg) follow from them */
#define OF_NOLAUNCH 0x01   /* its launch call no longer bounds it (a graph node) */
#define OF_PRED_START 0x02 /* it overlapped its predecessor: bound by its start */
#define OF_DEP 0x04	   /* it has dependencies (its dblks entry: wm_odep) */
#define OF_FOLDED 0x08	   /* a fix made it a node of a graph launch */
#define OF_LAT_EXACT 0x10  /* its launch call bound it: its measured delay */
#define OF_PG_EXACT 0x20   /* its predecessor bound it: its measured hole */
#define OF_LAT_TYP 0x40	   /* a fix: its delay no longer than lat_typ */
#define OF_PG_TYP 0x80	   /* a fix: its hole is pg_typ */

/* blk.kind of an op's dependencies */
#define DEP_WAIT 1   /* a stream wait on an event */
#define DEP_LEGACY 2 /* the legacy default stream's serialisation */

/* A set of ops something waits for: a blocking call's (it ends `own` ns
 * after the latest of them ends, or after its own start if later) or an
 * op's dependencies (it starts no earlier than `own` ns after the latest
 * of them ends). */
struct wblk {
	uint32_t first, n; /* in wm.pool */
	int64_t own;	   /* ns */
	uint8_t kind;	   /* a call's: enum gs_sync_kind; an op's: DEP_* */
	uint32_t who;	   /* the call (blks) or op (dblks) it is of: both
			      lists sorted by it */
};

struct wm {
	const struct gs_input *in;
	const struct gs_result *res;
	size_t no, na;
	const uint32_t *call_of; /* per op: its launch call (gs_launch_call), GS_NONE:
				    the analysis' own array where it has one */
	uint32_t *call_of_own;	 /* call_of where this model made it, else NULL */
	uint32_t *osid;		 /* per op: its stream's index in streams */
	/* host threads */
	uint32_t n_thr;
	uint32_t *thr_tid;   /* per thread: tid */
	uint32_t *tfirst;    /* per thread: its calls are order[tfirst[t], tfirst[t+1]) */
	uint32_t *order;     /* API calls by (thread, start, longer first) */
	uint32_t *top;	     /* per call: the top-level call it runs in (itself if top) */
	uint32_t *apos;	     /* per call: its position in order (its thread: wm_thr) */
	int64_t *dur;	     /* per top call: its duration where it waits for nothing */
	uint8_t *af;	     /* per call: AF_* */
	uint32_t *ops_first; /* per call: its ops are lops[ops_first[a], ops_first[a+1]) */
	uint32_t *lops;	     /* ops by launch call */
	/* GPU ops */
	uint32_t *pred;	 /* per op: the op before it on its stream, GS_NONE */
	int64_t *odur;	 /* per op: its duration as a fix changed it (wm_odur); NULL
			    until a fix changes one */
	uint8_t *of;	 /* per op: OF_* */
	int want_corr;	 /* 1: the fixes fill ocorr (gs_whatif_run hands it over) */
	uint32_t *ocorr; /* per op: the correlation id a fix gave it, 0 none;
			    NULL until a fix gives one */
	struct wblk *blks, *dblks;
	size_t nb, cb, nd, cd;
	uint32_t *pool;
	size_t np, cp;
	uint32_t n_streams;
	uint32_t n_dev; /* device ranges of ops: dfirst[d] .. dfirst[d+1] */
	uint32_t *dfirst;
	/* typical values (the trace's medians) */
	int64_t lat_typ; /* launch delay of ops their launch bound */
	int64_t pg_typ;	 /* hole after a predecessor that bound the op */
	int64_t api_typ; /* duration of a launch call that waits for nothing, -1 none */
	/* the trace's own graph launches (of 2 ops or more), medians: the
	 * launch call's duration per op, and its first op's delay after the
	 * call's start; -1 where the trace has none */
	int64_t graph_call_per_op, graph_lat;
	int64_t own_ns;	       /* a host gap this long or longer is the program's own work
				  (GS_HOST_DISPATCH_NS in PyTorch, else GS_HOST_LOOP_NS, as the
				  verdict splits host code): graphs and fusion keep it */
	uint8_t *coll_name;    /* per strings id: 1 a collective's kernel name, 0 not,
				  2 not looked at yet (wm_is_coll) */
	int64_t *tcost;	       /* per top call: ns of tracing's own work in it (call-site
				  captures), NULL none (wm_call_cost) */
	int64_t node_gap;      /* ns between two nodes of a graph the fixes make: the
				  analysis's graph_node_overhead_ns, less the
				  untraced model's node_ns */
	int64_t node_rest;     /* ns off the duration of each such node (OF_NOLAUNCH): the
				  untraced model's node_ns that node_gap could not hold */
	int64_t drop_gap_ns;   /* ns off the host time after a call a fix removed: the
				  untraced model's gap_ns, tracing's work at the boundary
				  between two calls, one fewer without it (0: traced) */
	int64_t graph_call_ns; /* the untraced model's cost off a graph launch call
				  the fixes make from the trace's own (0: traced) */
	/* tracing's cost taken off (wm_untrace; NULL, 0 where not) */
	int64_t *gap_cut; /* per top call: ns off the host time before it (wm_gap) */
	int64_t *gap_fix; /* per top call: ns a fix took off the host time before it
			     (input_wait; NULL none: made by the fix, dropped at
			     saved_restore like ocorr) */
	int64_t *opg_cut; /* per op: ns off its measured hole (wm_opg) */
	int odur_base;	  /* 1: odur is the untraced model's (kept between fixes) */
	/* the replay's times */
	int64_t *s, *e;	  /* per op (e may be NULL: not kept, wm_end) */
	int64_t *as, *ae; /* per call (ae may be NULL: not kept) */
};

/* the entry of sorted list v[0..n) of `who`, GS_NONE */
static inline uint32_t wm_blk_find(const struct wblk *v, size_t n, uint32_t who)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].who < who)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].who == who ? (uint32_t)lo : GS_NONE;
}

/* what top call a waits for (its blks entry), GS_NONE: most calls wait
 * for nothing, so a flag and a search instead of an index per call */
static inline uint32_t wm_ablk(const struct wm *m, uint32_t a)
{
	return (m->af[a] & AF_BLK) ? wm_blk_find(m->blks, m->nb, a) : GS_NONE;
}

/* op x's dependencies (its dblks entry), GS_NONE */
static inline uint32_t wm_odep(const struct wm *m, uint32_t x)
{
	return (m->of[x] & OF_DEP) ? wm_blk_find(m->dblks, m->nd, x) : GS_NONE;
}

/* replayed end of op x (replayed already) */
static inline int64_t wm_end(const struct wm *m, uint32_t x);

/* the thread (index) of call a */
static inline uint32_t wm_thr(const struct wm *m, uint32_t a)
{
	uint32_t lo = 0, hi = m->n_thr, p = m->apos[a];

	while (hi - lo > 1) { /* tfirst[lo] <= p < tfirst[hi] */
		uint32_t mid = (lo + hi) / 2;
		if (m->tfirst[mid] <= p)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* the first position in thread t's order whose call starts after time
 * (tfirst[t + 1]: none) */
static inline uint32_t wm_thr_after(const struct wm *m, uint32_t t, int64_t time)
{
	uint32_t lo = m->tfirst[t], hi = m->tfirst[t + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->in->apis[m->order[mid]].start <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* host time between top call a and its thread's previous top call (0 for
 * the thread's first, or where a fix removed it): the call just before a
 * in its thread's order is that call or one nested in it */
static inline int64_t wm_gap(const struct wm *m, uint32_t a)
{
	if (m->af[a] & (AF_FIRST | AF_NOGAP))
		return 0;
	return m->in->apis[a].start - m->in->apis[m->top[m->order[m->apos[a] - 1]]].end -
	       (m->gap_cut ? m->gap_cut[a] : 0) - (m->gap_fix ? m->gap_fix[a] : 0);
}

/* Op x starts no earlier than wm_olat after its launch call's start and
 * wm_opg after its predecessor's end (or start: OF_PRED_START). Each is
 * the measured one where it bound the op in the trace, else no larger
 * than the typical one; computed from the trace (which the replay reads
 * anyway) rather than kept: two arrays of 80 MB at 10M ops. A fix sets
 * them through flags: a graph's first node waits graph_lat, its other
 * nodes follow by node_gap (OF_NOLAUNCH), pinned copies
 * wait no more than lat_typ (OF_LAT_TYP), an op after collectives pg_typ
 * (OF_PG_TYP). */
static inline int64_t wm_olat(const struct wm *m, uint32_t x)
{
	uint8_t f = m->of[x];
	int64_t v;

	if ((f & (OF_FOLDED | OF_NOLAUNCH)) == OF_FOLDED && m->graph_lat >= 0)
		return m->graph_lat;
	v = m->in->ops[x].start - m->in->apis[m->call_of[x]].start;
	if (!(f & OF_LAT_EXACT) || (f & OF_LAT_TYP))
		v = v < m->lat_typ ? v : m->lat_typ;
	return v;
}

static inline int64_t wm_opg(const struct wm *m, uint32_t x)
{
	uint8_t f = m->of[x];
	const struct gs_op *p;
	int64_t v;

	if (f & OF_PG_TYP)
		return m->pg_typ;
	if (f & OF_NOLAUNCH)
		return m->node_gap;
	p = &m->in->ops[m->pred[x]]; /* the trace's: no fix changed it */
	v = m->in->ops[x].start - ((f & OF_PRED_START) ? p->start : p->end);
	if (!(f & OF_PG_EXACT))
		v = v < m->pg_typ ? v : m->pg_typ;
	return m->opg_cut ? v - m->opg_cut[x] : v;
}

/* duration of op x in the replay */
static inline int64_t wm_odur(const struct wm *m, uint32_t x)
{
	int64_t d = m->odur ? m->odur[x] : m->in->ops[x].end - m->in->ops[x].start;

	if ((m->of[x] & OF_NOLAUNCH) && m->node_rest > 0)
		d -= d < m->node_rest ? d : m->node_rest;
	return d;
}

static inline int64_t wm_end(const struct wm *m, uint32_t x)
{
	return m->e ? m->e[x] : m->s[x] + wm_odur(m, x);
}

/* whatif.c: the model from res (its analysis done), and freeing it;
 * whatif_replay.c: its replay into m->s/e/as/ae (allocated by the caller) */
int wm_build(struct wm *m, const struct gs_result *res);
/* take tracing's cost u off the model m (after wm_build, before the first
 * replay): whatif.h, struct gs_whatif_untrace */
int wm_untrace(struct wm *m, const struct gs_whatif_untrace *u); /* 0, -ENOMEM (m unchanged) */
int wm_replay(struct wm *m);
void wm_free(struct wm *m);
int wm_pool_push(struct wm *m, uint32_t v);
/* ns of tracing's own work inside top call a (its call-site captures),
 * which a fix that removes the call or makes it asynchronous leaves on the
 * host: the saving is the program's part of the call */
int64_t wm_call_cost(const struct wm *m, uint32_t a);
/* 1 when syncs row s blocks its host thread (as host_sync_blocks) */
int wm_sync_blocks(const struct gs_input *in, const struct gs_sync *s);

/* whatif_fix.c: apply o's fixes to m (after the unchanged replay: m->s,
 * m->e and the calls' times hold the trace's), counting in w. 0 or -ENOMEM. */
int wm_apply_fixes(struct wm *m, const struct gs_whatif_opts *o, struct gs_whatif *w);

/* The model's arrays a fix may write (wm_fix_writes): what the verdict's
 * replays (whatif_api.c) save once and put back between two findings'
 * fixes. m->ocorr and m->odur are not among them: a fix makes them (NULL
 * before) and they are dropped between fixes. */
#define WW_AF 0x01   /* af */
#define WW_DUR 0x02  /* dur */
#define WW_OF 0x04   /* of */
#define WW_PRED 0x08 /* pred */
#define WW_POOL 0x10 /* pool */
#define WW_DN 0x20   /* dblks[].n */
#define WW_ODUR 0x40 /* odur, where it is the untraced model's (odur_base) */
/* WW_* of every array wm_apply_fixes may write for fixes (a gs_whatif_opts
 * fixes mask): keep it beside the fixes, one line each */
uint32_t wm_fix_writes(uint32_t fixes);
/* 1 when op x is a collective (an NCCL kernel), looked up by its name */
int wm_is_coll(struct wm *m, uint32_t x);
/* sort v's k (start, end) pairs by start and merge those that overlap, in
 * place: the pairs left */
size_t wm_pairs_union(int64_t *v, size_t k);
/* the index of the pair of the union u[0..n) holding t, GS_NONE */
uint32_t wm_range_at(const int64_t *u, size_t n, int64_t t);
/* The union of the program's steps (gs_steps_find, the phases' steps)
 * as start-sorted pairs, 2 * *n values; NULL with *n 0 where it has
 * none, NULL with *n 1 out of memory */
int64_t *wm_steps_union(const struct wm *m, size_t *n);

#endif
