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

/* 1 when gap g lies half or more before first_range, the trace's first NVTX range of
 * the default domain (INT64_MAX none): the program's start-up where its ranges mark
 * the loop (a training loop's 6.58 s stall before the first "step", H100 2026-12-05,
 * which its samples later showed to be imports; GPT-2's warm-up generate before
 * "generate"). The gap that ends at the first range's first op starts long before
 * it. analysis.c's stall classes and host_attr.c's samples of them. */
static inline int gs_startup_gap(int64_t first_range, const struct gs_gap *g)
{
	return first_range != INT64_MAX && g->start < first_range &&
	       first_range - g->start >= g->end - first_range;
}

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

struct actx;

/* host_cover.c: per host thread, its CUDA API calls and its blocking syncs,
 * each sorted by start with the running maximum of their ends, so the
 * calls that meet any [a, b) are found by one search and a walk. */
struct host_list {
	uint32_t *idx;	 /* source indexes (apis or syncs), by start */
	int64_t *maxend; /* ns, maxend[i]: latest end of idx[0..i] */
	size_t n;
};

struct host_thread {
	uint32_t tid;
	struct host_list calls; /* CUDA API calls */
	struct host_list syncs; /* blocking syncs */
};

struct host_index {
	const struct gs_input *in;
	struct host_thread *t; /* sorted by tid */
	size_t n;
	/* the lists of all threads, one block each (the threads' lists are
	 * slices of them) */
	uint32_t *call_idx, *sync_idx;
	int64_t *call_maxend, *sync_maxend;
};

/* where a sweep's last searches landed in one thread's lists */
struct host_hints {
	size_t all, sync; /* calls, syncs */
};

/* 1 when the host span over most of [s, e) on thread tid (gs_host_range_at),
 * or one it runs inside, is the framework's or the model's: a PyTorch
 * operator (aten::), autograd, an optimizer step, or a module's
 * forward/backward. A CUDA Graph replay or torch.compile removes that host
 * time; time outside them is the program's own (docs/metrics.md, "Host
 * code: dispatch or the program's own work"). */
int gs_host_framework_at(const struct gs_input *in, uint32_t tid, int64_t s, int64_t e);
/* 1 when the trace's host spans hold PyTorch operators (aten::): they,
 * not the gaps' sizes, tell dispatch from the program's own work */
int gs_has_op_spans(const struct gs_input *in);
/* The program's steps, as the phases read them (whole trace, any
 * selection aside): torch.profiler's ProfilerStep#N, else the repeated
 * range (or numbered family) with the most wall that is no framework
 * range, else the iterations between torch's optimizer steps. */
struct gs_step_span {
	int64_t start, end; /* ns */
	uint32_t tid;	    /* the thread of its range (an optimizer step's) */
};
struct gs_steps {
	struct gs_step_span *v; /* by start; NULL when n is 0 */
	size_t n;		/* 0: no steps (fewer than GS_PHASE_MIN_STEPS) */
	int source;		/* enum gs_steps_source */
	uint32_t text_id;	/* strings id of their text (a family's first) */
	const char *stem;	/* the family's stem, or the text */
	size_t stem_len;	/* its length; 0: a plain text (text_id) */
};
/* 0 (st->n may be 0), or -1 out of memory; gs_steps_free after */
int gs_steps_find(const struct gs_result *res, struct gs_steps *st);
void gs_steps_free(struct gs_steps *st);
/* the input-stall finding fd's fix and reason, from v's facts and the
 * stalls' samples (advice.c) */
void gs_input_fix(const struct gs_verdict *v, struct gs_finding *fd);
/* the host-stall finding fd's fix where its host operator says what the
 * stalls are (advice.c) */
void gs_host_stall_fix(const struct gs_input *in, struct gs_finding *fd);
/* after the replay: the exposed-communication findings whose fix changed
 * nothing get the fix that fits, or no saving where the trace does not
 * record its stream waits (advice.c) */
void gs_comm_unchanged(const struct gs_input *in, struct gs_verdict *v);
int host_index_build(struct actx *c, struct host_index *h);
void host_index_free(struct host_index *h);
/* 1 when syncs row i blocks its host thread (host_cover.c says which do) */
int host_sync_blocks(const struct actx *c, size_t i);
/* index of thread tid in h, GS_NONE if it has no calls; *hint caches */
uint32_t host_thread_of(const struct host_index *h, uint32_t tid, uint32_t *hint);
/* cut [a, b) on thread t of h (t NULL: no calls known: all host code);
 * api_cls: the calls' classes (launch calls count in *launch; of that,
 * *slow in launch calls of GS_SLOW_LAUNCH_NS or more, the longest of them
 * *slow_call, GS_NONE when none) */
void host_cut(const struct host_index *h, const struct host_thread *t, const uint8_t *api_cls,
	      int64_t a, int64_t b, struct host_hints *hh, int64_t *sync, int64_t *api,
	      int64_t *host, int64_t *launch, int64_t *slow, uint32_t *slow_call);
/* When X, a copy from pageable host memory (GS_OPF_PAGEABLE_SRC), has a
 * launch call C that blocks while it stages X's data (a synchronous copy,
 * or an async one: syncs kind 16 or 17 with C's correlation id, on C's
 * thread), the syncs index of that row, else GS_NONE. The GPU idles while
 * the host copies into the staging buffer, before X can start: that is
 * sync wait, not launch latency (an upload of a pageable batch per step).
 * A read-back stages after its copy: not here. */
uint32_t host_copy_sync(const struct host_index *h, const struct gs_api *C, const struct gs_op *X);
/* X, queued at `from` (its launch call's return, or the gap's start when
 * it returned earlier), started at xs: when more than GS_QUEUED_HELD_NS
 * later, [from, xs - GS_QUEUED_DISPATCH_NS) is time that something the
 * trace does not hold held X (gap model, rule 5); returns its end, else
 * `from` (nothing held). */
static inline int64_t queued_dispatch_start(int64_t xs)
{
	return xs - GS_QUEUED_DISPATCH_NS; /* the held time ends here */
}
static inline int64_t queued_held_end(int64_t from, int64_t xs)
{
	return xs - from > GS_QUEUED_HELD_NS ? queued_dispatch_start(xs) : from;
}
/* credit the blocking time of t inside [a, b) to the sync rows it was
 * spent in (time in two overlapping rows: the earlier-starting one), to
 * their drain likewise, and the gap's launch latency (the refill) to the
 * drain of the last of them: each idle ns counts in one drain */
void host_sync_attr(const struct host_index *h, const struct host_thread *t, int64_t a, int64_t b,
		    int64_t latency, int64_t *sync_idle, uint32_t *sync_gaps, int64_t *sync_drain);

struct actx {
	const struct gs_input *in;
	const struct gs_options *opt;
	struct gs_result *res;
	const struct gs_op *ops; /* in->ops, or a corrected copy */
	struct gs_op *ops_copy;
	uint32_t *call_of;     /* per op: apis index of its launch call, GS_NONE */
	int64_t *op_max_end;   /* per op, during the graph advice: the latest end of
				  the device's ops up to it (start order) */
	uint8_t *api_cls;      /* per api: GS_APIF_* */
	uint32_t corr_min;     /* the smallest nonzero correlation id of a call,
				  UINT32_MAX when none */
	size_t api_name_end;   /* 1 + the largest API name id (at least 1) */

	/* selection: sorted disjoint [sel[2k], sel[2k+1]) ; has_sel 0 = all */
	int has_sel;
	int64_t *sel;
	size_t n_sel;

	struct host_index *host; /* per-thread covers (owned by res->host) */
	int64_t *sync_idle;	 /* per syncs row: sync-wait ns it made up (device views) */
	uint32_t *sync_gaps;	 /* per syncs row: device gaps with such a segment */
	int64_t *sync_drain;	 /* per syncs row: ns, sync wait + launch latency of those gaps */
	struct stab nvtx_tid; /* NVTX ranges by tid */
	struct stab nvtx_any; /* NVTX ranges, key 0 */
	int64_t first_range;  /* the start of the trace's first NVTX range of the
				 default domain (not a mark), INT64_MAX none */
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
	 * one a graph removes (cause_graph_removes()) and SV_GAP_HOST when
	 * its cause is the host's own time (host code, CUDA API); else 0 */
	uint8_t *sv_gap;

	/* One scratch block of SCRATCH_PER_OP bytes per op: the launch
	 * statistics' samples (beside the views), then the graph advice's
	 * slices (beside the other statistics). Fresh memory costs a page
	 * fault and a page clear per 4 KB (or 2 MB), which on virtual
	 * machines was a third of a 10M-op report when every pass allocated
	 * its own arrays. */
	void *scratch;
};

#define SV_GAP_SAME 0x1
#define SV_GAP_LAUNCH 0x2
#define SV_GAP_HOST 0x4

#define GS_ADVICE_ANCHORS 8 /* candidate anchors tried per stream in the graph advice */
#define SCRATCH_PER_OP 24   /* (+16 bytes of slack at the end) */

/* The passes gs_analyze() (analysis_run.c) runs in order. The API classes
 * (c->api_cls, analysis_index.c); the --range and capture selection
 * (c->sel, analysis_select.c); the stabbing indexes; the stream-wait
 * records resolved to their events (analysis_index.c); one device's ops
 * [a, b): its timeline, gaps and stream views into d (analysis.c).
 * Each returns 0 or a negative errno-style value. */
int classify_apis(struct actx *c);
int build_selection(struct actx *c);
int build_indexes(struct actx *c);
int resolve_wait_records(struct actx *c);
int device_pass(struct actx *c, struct gs_device_result *d, uint32_t a, uint32_t b);

/* analysis_select.c: the first window k of sel (n disjoint [start, end]
 * pairs, sorted) with end > t (n if none); the same in c's selection */
size_t windows_first_after(const int64_t *sel, size_t n, int64_t t);
size_t sel_first_after(const struct actx *c, int64_t t);

/* analysis_select.c: overlap and containment in the selection.
 * analysis.c. classify_gap: gap [g0, X.start) ending at op x; prev is the
 * latest earlier op on X's stream whose launch call is known (GS_NONE if
 * none): its launch call opens the window in which a stream wait or host
 * function enqueued before X's launch counts as X's dependency. flags: CG_*. */
int64_t sel_overlap(const struct actx *c, int64_t a, int64_t b);
int sel_contains_op(const struct actx *c, int64_t a, int64_t b);
int sel_contains_point(const struct actx *c, int64_t t);
int64_t capture_overlap(const struct actx *c, int64_t a, int64_t b);
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
	/* per host thread (direct-mapped by its index in the covers): where
	 * the last cut of that thread's covers landed */
	uint32_t host_key[CG_CACHE_SLOTS];
	uint32_t tid_key[CG_CACHE_SLOTS], tid_val[CG_CACHE_SLOTS]; /* tid -> thread index */
	uint32_t host_thread; /* host index of the last thread looked up */
	struct host_hints hh[CG_CACHE_SLOTS];
};
void cg_cache_init(struct cg_cache *cc);
/* analysis_index.c: lookups in the indexes. stab_find: the innermost
 * entry with key and start <= t <= end (its source idx or GS_NONE), hint
 * the caller's last position for key; stab_find_cached: the same through
 * cc's slots of index which (1 NVTX by tid, 2 NVTX any thread);
 * evts_find: the latest event with key and lo < t <= hi; wait_find: the
 * stream wait on X's stream in (lo, hi] that explains a gap before X. */
uint32_t stab_find(const struct stab *s, uint32_t key, int64_t t, uint32_t *hint);
uint32_t stab_find_cached(const struct stab *s, struct cg_cache *cc, int which, uint32_t key,
			  int64_t t);
uint32_t evts_find(const struct evts *e, uint32_t key, int64_t lo_t, int64_t hi_t);
uint32_t wait_find(const struct actx *c, const struct gs_op *x, int64_t lo_t, int64_t hi_t,
		   int flags);
/* The cut of a gap (or of a piece of one): ns per cause, and of the CUDA
 * API ns, the time in launch calls. */
struct gap_cut {
	int64_t amt[GS_CAUSE_COUNT]; /* ns */
	int64_t launch;		     /* ns of CUDA API in launch calls */
	int64_t slow;		     /* ns of launch, in calls of GS_SLOW_LAUNCH_NS or more */
	uint32_t slow_call;	     /* the longest of those calls (valid when slow > 0) */
};
/* Classify gap [g0, g1 = X.start) (g->start, g->end set by the caller):
 * fills g's op, cause (the largest segment's), explain, host_late, NVTX
 * range, and cut with the whole gap's cut. */
void classify_gap(const struct actx *c, struct cg_cache *cc, int64_t g0, uint32_t x, uint32_t prev,
		  int flags, struct gs_gap *g, struct gap_cut *cut);
/* the cut of [p0, p1) inside classified gap g */
void gap_cut_piece(const struct actx *c, struct cg_cache *cc, const struct gs_gap *g, int64_t p0,
		   int64_t p1, struct gap_cut *cut);
/* the cause holding the most of a cut (ties: the lower enum value) */
int gap_cut_dominant(const struct gap_cut *cut);
/* innermost NVTX range at op x's launch call (on its thread, else on any
 * thread), at the op's start when no call is known; GS_NONE if none */
uint32_t nvtx_at_launch(const struct actx *c, uint32_t x);
/* innermost NVTX range at time t on thread tid, else on any thread;
 * GS_NONE if none */
uint32_t nvtx_at(const struct actx *c, uint32_t tid, int64_t t);
/* idle a CUDA Graph of the work would remove: the host's time between
 * launches (host code, CUDA API), launch latency and graph-internal
 * dispatch (replaced by the graph's own node overhead) */
static inline int cause_graph_removes(int cause)
{
	return cause == GS_CAUSE_HOST_CODE || cause == GS_CAUSE_CUDA_API ||
	       cause == GS_CAUSE_LAUNCH_LATENCY || cause == GS_CAUSE_GRAPH_INTERNAL;
}

/* of those, the host's own time: inside a step it is the dispatch a replay
 * replaces; between steps, only while short (GS_ADVICE_HOST_HOLE_NS) */
static inline int cause_is_host_time(int cause)
{
	return cause == GS_CAUSE_HOST_CODE || cause == GS_CAUSE_CUDA_API;
}

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
int stats_nvtx(struct actx *c);
/* analysis_graph.c */
int stats_graph_advice(struct actx *c);

#endif
