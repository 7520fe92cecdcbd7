/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * whatif.h - what a fix would buy: a replay model of a trace, and each
 * verdict rule's fix as a transformation of it (docs/metrics.md, "The
 * what-if model").
 *
 * The model keeps the trace's structure and moves its times: each host
 * thread's CUDA calls in order with the host time between them; each GPU
 * op after its launch call's start plus a launch delay, after its stream
 * predecessor, after the op a stream wait (or the legacy default stream)
 * made it wait for; each blocking call (explicit sync, synchronous copy,
 * pageable copy, cudaFree ...) ends when what it waited for in the trace
 * ends, plus its own time after that; graph launches as their nodes.
 * Every constraint's offset is measured on the trace: the one that bound
 * an op (or call) keeps its measured value, the others a value no larger
 * than both their own measured one and the trace's typical one, so the
 * unchanged replay gives the trace's own times back (gs_whatif_check
 * measures how exactly). A fix changes durations, offsets or drops calls,
 * and the replay says what moved. Nothing here reads files or prints.
 */
#ifndef GAPSCOPE_WHATIF_H
#define GAPSCOPE_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

/* The fixes, one bit per verdict rule: bit (1u << rule) of enum gs_rule
 * (gs_whatif_fix_bit of the rule's key). */
#define GS_WHATIF_COMMUNICATION GS_RULE_COMM /* overlap exposed collectives */

/* pinned host-device bandwidth assumed when the trace holds no pinned
 * copy of 1 MiB or more to measure it on: PCIe 5.0 x16, the H100/H200
 * hosts' link (64 GB/s raw), less its protocol overhead; what pinned
 * copies of a few MiB reach there (bench/results, 2026-12-07) */
#define GS_WHATIF_PINNED_GBPS 50.0
/* fixed cost of one pinned copy (DMA set-up) added to bytes / bandwidth */
#define GS_WHATIF_COPY_SETUP_NS 2000
/* sync_every_step: one sync kept of this many */
#define GS_WHATIF_SYNC_EVERY 10

/* What tracing cost the traced program, taken off the model before it is
 * replayed, so that "before" and "after" are both the untraced program's
 * estimated timeline and a saving is a share of what the program takes
 * untraced (gs_whatif_untrace_from: the report's overhead correction,
 * correct.h). The unchanged replay is then the corrected timeline, not the
 * trace's (gs_whatif_check replays the trace as recorded). */
struct gs_whatif_untrace {
	int64_t call_ns;       /* per launch call (one that launched ops, not a graph
				  launch): off its duration, the rest off the host
				  time before it */
	int64_t kernel_ns;     /* per launched kernel: off its duration, to 0 at
				  least (negative: added) */
	int64_t node_ns;       /* per kernel of a graph launch: off the hole after
				  its predecessor, the rest off its duration */
	int64_t graph_call_ns; /* per graph launch call: off its duration */
	int64_t gap_ns;	       /* tracing's work between two calls (CUPTI's, between
				  their records): off the host time after a call a fix
				  removes, one boundary fewer */
	int64_t alloc_ns;      /* per cudaMalloc or cudaFree (a call that blocks as an
				  allocation, GS_SYNC_IMPLICIT_ALLOC): off its duration
				  and its own time after what it waited for */
};
struct gs_corrected;
/* u from the report's correction c (correct.h); 0, or -1 (u zeroed) when c
 * took nothing off (no calibration) */
int gs_whatif_untrace_from(const struct gs_corrected *c, struct gs_whatif_untrace *u);

struct gs_whatif_opts {
	uint32_t fixes;		  /* bit (1u << rule) per fix; 0: the unchanged replay */
	int sync_every;		  /* sync_every_step: keep one of N (GS_WHATIF_SYNC_EVERY) */
	double pinned_gbps;	  /* pageable_copies: bytes per ns; <= 0: measured
				     on the trace's pinned copies, else
				     GS_WHATIF_PINNED_GBPS */
	const uint64_t *op_bytes; /* per op of res->in: bytes of a host copy
				     (trace_load_copy_bytes), NULL unknown:
				     pageable copies then keep their durations */
	uint32_t host_tid;	  /* host_code: the thread (0: every launching thread) */
	uint32_t host_nvtx_id;	  /* host_code: only inside NVTX ranges of this text
				     (strings id), 0 everywhere */
	double input_keep;	  /* input_wait: the share of each input stall's host
				     time the fix keeps (0: all of it goes, each
				     batch ready when asked; the verdict keeps what
				     the thread ran of the stalls where DataLoader
				     workers are on: its own share of receiving the
				     batches, which more workers do not remove) */
	uint32_t alloc_skip[2];	  /* alloc_in_loop: the calls of these APIs (strings
				     ids, 0 none) stay: the verdict calls them
				     warm-up (its warmup finding of that API) */
	uint32_t host_op_id;	  /* host_stalls: the host operator (strings id of an
				     imported trace's CPU operator spans) whose host
				     time goes (DDP's buffer broadcast:
				     gs_finding.remove_op_id); 0 none */
	const char *range_name;	  /* NULL: the figures of every op; else only of the
				     ops launched inside NVTX ranges of this name
				     (gs_name_matches; the fixes apply everywhere) */
	const struct gs_whatif_untrace *untrace; /* NULL: replay the trace as
						    recorded; else tracing's cost
						    taken off the model first */
};
void gs_whatif_opts_init(struct gs_whatif_opts *o);

/* Figures of one replayed timeline, summed over devices. */
struct gs_whatif_figs {
	int64_t window;	    /* ns, per device first op start -> last op end, summed */
	int64_t busy;	    /* ns, union of op intervals, summed */
	int64_t work;	    /* ns, op durations summed (busy + their overlap) */
	double utilisation; /* busy / window */
	uint64_t steps;	    /* the program's steps (gs_steps_find: the phases'
			       steps), 0 none */
	int64_t step_ns;    /* ns, their median wall, 0 none */
};

struct gs_whatif {
	struct gs_whatif_figs before; /* the unchanged replay (= the trace) */
	struct gs_whatif_figs after;  /* the replay with the fixes */
	int64_t saving_ns;	      /* before.window - after.window - bound_ns */
	int64_t bound_ns;	      /* ns added to after.window for the saving: the
					 replay made ops overlap more than they did
					 and after.window fell below after.work less
					 the trace's overlap (before.work -
					 before.busy), which it is held to */
	double saving_share;	      /* saving_ns / before.window */
	int untraced;		      /* 1: tracing's cost was taken off first
					 (gs_whatif_opts.untrace): before is the
					 corrected timeline */
	int step_source;	      /* enum gs_steps_source of the steps (gs_steps_find) */
	uint32_t step_text_id;	      /* strings id of their text (a family's first), 0 none */
	const char *step_stem;	      /* their family's stem ("ProfilerStep#"), or text */
	size_t step_stem_len;	      /* its length; 0: a plain text (step_text_id) */
	uint64_t range_ops;	      /* with range_name: the ops counted */
	/* what the fixes changed */
	uint64_t calls_dropped;	  /* syncs, allocations, launches folded into graphs */
	uint64_t calls_unblocked; /* blocking calls made asynchronous */
	uint64_t ops_changed;	  /* copies made shorter, graph nodes, ops freed of a wait */
	uint64_t graph_replays;	  /* occurrences replayed as one graph launch */
	uint64_t host_gaps;	  /* stretches of host code removed (host_code) */
	double pinned_gbps;	  /* bandwidth used by pageable_copies (bytes/ns), 0 unused */
	int pinned_measured;	  /* 1: from the trace's pinned copies */
	/* the replayed times (after), per op of res->in and per API call;
	 * NVTX ranges moved with their thread's host time */
	int64_t *op_start, *op_end;	/* ns */
	int64_t *api_start, *api_end;	/* ns */
	int64_t *nvtx_start, *nvtx_end; /* ns */
	uint8_t *api_fix;		/* per API call: GS_WHATIF_GONE (a fix removed it),
					   GS_WHATIF_ASYNC (it waits no more), GS_WHATIF_GRAPH
					   (it launches a graph now), else 0 */
	uint32_t *op_corr;		/* per op: the correlation id a fix gave it (a graph
					   node: its graph launch's), 0 unchanged; NULL when
					   no fix gave any */
};
#define GS_WHATIF_GONE 1
#define GS_WHATIF_ASYNC 2
#define GS_WHATIF_GRAPH 3

/* 1u << bit of a fix for rule key `key` ("sync_every_step", ...,
 * "exposed_communication", also "communication"), 0 when no fix models it. */
uint32_t gs_whatif_fix_bit(const char *key);
/* The key of bit b (for messages), NULL none. */
const char *gs_whatif_fix_key(int bit);
/* 1 when rule (enum gs_rule, or GS_WHATIF_COMMUNICATION) has a fix here */
int gs_whatif_rule_modelled(int rule);

/* Replay res->in (the analysis of it done: res->call_of) with o's fixes.
 * 0, -ENOMEM, -EINVAL (no ops). w is zeroed first; free with
 * gs_whatif_free. */
int gs_whatif_run(const struct gs_result *res, const struct gs_whatif_opts *o, struct gs_whatif *w);
void gs_whatif_free(struct gs_whatif *w);

/* What fixing rule (enum gs_rule) saves on res: the replay's window
 * difference in *saving_ns, and its share of the window in *share (may
 * be NULL). bytes: per-op copy bytes or NULL (gs_whatif_opts.op_bytes).
 * 0, -ENOENT when the rule has no fix modelled, -ENOMEM. For the
 * verdict's "saves ~ X (Y%)". */
int gs_whatif_saving(const struct gs_result *res, int rule, const uint64_t *bytes,
		     int64_t *saving_ns, double *share);
/* The same for one verdict finding: its rule's fix, limited to what the
 * finding names where the fix can be (host_code, host_own_work: the
 * finding's thread and NVTX range). */
int gs_whatif_finding(const struct gs_result *res, const struct gs_finding *f,
		      const uint64_t *bytes, int64_t *saving_ns, double *share);
/* The same for n findings at once (the verdict's): the model is built and
 * replayed unchanged once, then each finding's fix replayed on it (on a
 * 10M-op trace the build is most of the time). saving_ns[i] (and
 * share[i], share may be NULL) for finding i; INT64_MIN (share 0) where
 * its rule has no fix modelled. 0 or -ENOMEM. */
int gs_whatif_findings(const struct gs_result *res, const struct gs_finding *f, size_t n,
		       const uint64_t *bytes, int64_t *saving_ns, double *share);

/* The verdict's savings (gs_verdict_compute_corr): each finding of v with
 * its rule's fix replayed, over the ops the findings read (those the
 * selection of res meets, started in the steady state where v->steady),
 * in->op_bytes the copies' bytes: gs_finding.saves, saves_ns, saves_share
 * (of those ops' replayed window). With the report's correction corr (NULL:
 * none) tracing's cost is taken off the model first (gs_whatif_untrace_from),
 * so the savings are of the untraced program. 0 or -ENOMEM (then every saves
 * is GS_SAVES_NONE). */
int gs_whatif_verdict(const struct gs_result *res, const struct gs_corrected *corr,
		      struct gs_verdict *v);

/* How exactly the unchanged replay gives the trace back: per op, the
 * replayed start less the recorded one. */
struct gs_whatif_check {
	uint64_t n_ops;
	int64_t max_err;      /* ns, largest |error| */
	int64_t p99_err;      /* ns, nearest-rank p99 of |error| */
	uint64_t n_off;	      /* ops with a nonzero error */
	int64_t window;	      /* ns, the trace's window (summed over devices) */
	int64_t window_err;   /* ns, replayed window less it */
	uint64_t n_calls;     /* API calls */
	int64_t call_max_err; /* ns, largest |replayed start - recorded start| of a call */
};
int gs_whatif_check(const struct gs_result *res, struct gs_whatif_check *c);

/* The whatif keys of v's findings whose replayed fix saves time, comma-
 * separated into buf (one key a rule; host_stalls with " --op 'NAME'",
 * NAME from str), for `gapscope whatif --fix` to replay them together: each
 * finding's saving is its fix alone, and they overlap. Returns how many. */
struct gs_verdict;
size_t gs_verdict_fix_list(const struct gs_verdict *v, const struct gs_strings *str, char *buf,
			   size_t n);

#endif
