/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_int.h - private to analysis*.c: the working context shared by
 * the passes (indexes built once, the selection, per-op launch calls).
 * Nothing outside the analysis library includes this.
 */
#ifndef GAPSCOPE_ANALYSIS_INT_H
#define GAPSCOPE_ANALYSIS_INT_H

#include "analysis.h"

/* Interval stabbing index: intervals grouped by key (thread id, or 0 for
 * "any thread") and sorted by start; parent[] links each entry to the entry
 * on top of the open-interval stack when it was pushed, so the innermost
 * interval containing t is found by binary search + a walk up the chain
 * (the chain is the whole stack of intervals that started earlier and had
 * not ended at the entry's start, so nothing that contains t is skipped). */
struct stab_ent {
	int64_t start;	 /* ns */
	int64_t end;	 /* ns */
	uint32_t key;	 /* tid (or 0) */
	uint32_t idx;	 /* index in the source array */
	uint32_t parent; /* position in ents[], GS_NONE at the bottom */
};

struct stab {
	struct stab_ent *ents;
	size_t n;
};

/* Point events (stream waits, host-function calls) by key, sorted by start. */
struct evt {
	int64_t t;    /* ns */
	uint32_t key; /* stream or tid */
	uint32_t idx; /* source index */
};

struct evts {
	struct evt *v;
	size_t n;
};

struct actx {
	const struct gs_input *in;
	const struct gs_options *opt;
	struct gs_result *res;
	const struct gs_op *ops; /* in->ops, or a corrected copy */
	struct gs_op *ops_copy;
	uint32_t *call_of;     /* per op: apis index of its launch call, GS_NONE */
	uint8_t *api_cls;      /* per api: GS_APIF_* */
	size_t api_name_end;   /* 1 + the largest API name id (at least 1) */

	/* selection: sorted disjoint [sel[2k], sel[2k+1]) ; has_sel 0 = all */
	int has_sel;
	int64_t *sel;
	size_t n_sel;

	struct stab blocking; /* blocking syncs by tid */
	struct stab nvtx_tid; /* NVTX ranges by tid */
	struct stab nvtx_any; /* NVTX ranges, key 0 */
	struct evts waits;    /* stream-wait-event syncs by stream */
	/* per sync row: where the event a stream wait waits for was recorded
	 * (the latest record of it before the wait); rec_dev -2 = unknown */
	int16_t *wait_rec_dev;
	uint32_t *wait_rec_stream;
	struct evts hostfn; /* host function calls by tid */

	uint32_t *stream_of; /* per op: index into its device's streams */
	/* per op, from the stream views: SV_GAP_SAME when the op ends a
	 * stream gap whose classification any walk of the stream's ops in
	 * order repeats (its predecessor on the stream has a known launch
	 * call and ends last), with SV_GAP_LAUNCH when that gap is
	 * launch-caused (launch-bound or launch latency); else 0 */
	uint8_t *sv_gap;

	/* One scratch block of SCRATCH_PER_OP bytes per op, shared by the
	 * statistics passes one after another: fresh memory costs a page
	 * fault and a page clear per 4 KB (or 2 MB), which on virtual
	 * machines was a third of a 10M-op report when every pass allocated
	 * its own arrays. */
	void *scratch;
	/* the graph advice runs on a thread of its own beside the other
	 * statistics (they only read the context), with its own scratch
	 * block; it is `scratch` itself when it runs after them */
	void *scratch_advice;
};

#define SV_GAP_SAME 0x1
#define SV_GAP_LAUNCH 0x2

#define GS_ADVICE_ANCHORS 8 /* candidate anchors tried per stream in the graph advice */
#define SCRATCH_PER_OP 24   /* (+16 bytes of slack at the end) */

/* analysis.c. classify_gap: gap [g0, X.start) ending at op x; prev is the
 * latest earlier op on X's stream whose launch call is known (GS_NONE if
 * none): its launch call opens the window in which a stream wait or host
 * function enqueued before X's launch counts as X's dependency. flags: CG_*. */
int64_t sel_overlap(const struct actx *c, int64_t a, int64_t b);
int sel_contains_op(const struct actx *c, int64_t a, int64_t b);
int sel_contains_point(const struct actx *c, int64_t t);
#define CG_NVTX 0x1	   /* find the gap's NVTX range (device view keeps it) */
#define CG_STREAM_VIEW 0x2 /* per-stream rules: a wait on another stream counts */
/* Where the last lookups of a caller landed in the stabbing indexes
 * (blocking syncs, NVTX by thread, NVTX any thread), by key: one sweep
 * asks for ever later times, so the next answer is usually at or just
 * after the last one and the binary search can be skipped. Per thread of
 * the analysis; cg_cache_init() before first use. */
#define CG_CACHE_SLOTS 8
struct cg_cache {
	uint32_t key[3][CG_CACHE_SLOTS]; /* tid (or 0) */
	uint32_t lo[3][CG_CACHE_SLOTS];	 /* position after the last entry with
					    start <= t; GS_NONE = empty */
};
void cg_cache_init(struct cg_cache *cc);
void classify_gap(const struct actx *c, struct cg_cache *cc, int64_t g0, uint32_t x, uint32_t prev,
		  int flags, struct gs_gap *g);

/* analysis_util.c: malloc for arrays of up to one entry per op. A hint
 * for transparent huge pages (madvise) before first touch: with 4 KB
 * pages a 10M-op analysis spends a large part of its time in page faults
 * on virtual machines. */
void *big_malloc(size_t bytes);
/* calloc for the same: fresh memory from the kernel is zero already, so
 * a table whose "empty" is 0 costs no writing pass of its own */
void *big_calloc(size_t n, size_t size);

/* analysis_stats.c */
int stats_launches(struct actx *c);
int stats_syncs(struct actx *c);
int stats_kernels(struct actx *c);
/* scratch: a block of SCRATCH_PER_OP bytes per op (c->scratch or, on the
 * advice thread once the advice is done, c->scratch_advice) */
int stats_nvtx(struct actx *c, void *scratch);
int stats_graph_advice(struct actx *c);

#endif
