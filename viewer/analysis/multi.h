/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * multi.h - the multi-trace report (`gapscope report A.db B.db ...`): one
 * trace per process of a multi-process job (a rank), each loaded and
 * analysed alone, then compared: per NVTX step range (matched across
 * ranks by occurrence index), which rank started and ended last and by
 * how much; per rank, the time it spent in communication inside its
 * steps; the straggler, named in one sentence (docs/report.md,
 * "Several traces").
 *
 * Two halves, both without I/O:
 *  - gs_multi_extract() keeps, of one loaded and analysed trace, only what
 *    the comparison needs (the summary figures, the NVTX ranges, the
 *    communication intervals), so the trace's arrays can be freed at once
 *    and memory is bounded by the traces being loaded, not by all of them;
 *  - gs_multi_compare() takes per-rank step and communication intervals,
 *    already on one common clock (the caller adds each trace's offset),
 *    and finds the stragglers. Tests feed it hand-built tables.
 */
#ifndef GAPSCOPE_MULTI_H
#define GAPSCOPE_MULTI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t */

#include "analysis.h"

/* An interval, ns. */
struct gs_multi_iv {
	int64_t start; /* ns */
	int64_t end;   /* ns, >= start */
};

/* One NVTX range of a trace, with its text as an index into names. */
struct gs_multi_range {
	int64_t start; /* ns, the trace's clock */
	int64_t end;   /* ns */
	uint32_t name; /* index into gs_multi_trace.names */
};

/* What the multi-trace report keeps of one trace. The identity fields
 * (path .. offset_ns) are the caller's (they come from the trace's meta);
 * gs_multi_extract fills the rest. */
struct gs_multi_trace {
	const char *path;   /* as given */
	int has_rank;	    /* 1: rank holds a recorded rank, 0: only the pid is known */
	int64_t rank;	    /* meta rank (or env.RANK, ... in older traces), else -1 */
	int64_t world_size; /* ranks in the job (meta world_size), 0 unknown */
	char *rank_source;  /* where the rank came from ("env.RANK", "distributedInfo"),
			       malloc'ed, NULL unknown */
	int64_t pid;	    /* meta pid, -1 unknown */
	char *hostname;	    /* meta hostname, malloc'ed, NULL unknown */
	int has_mono, has_real;
	int64_t mono_offset; /* ns, meta monotonic_offset_ns: CUPTI -> CLOCK_MONOTONIC */
	int64_t real_offset; /* ns, meta realtime_offset_ns: CUPTI -> CLOCK_REALTIME */
	int64_t offset;	     /* ns, the one added to reach the common clock (gs_multi_align) */

	/* the summary row (the verdict's figures, summed over devices) */
	int64_t first, last; /* ns, trace clock: earliest window start, latest window end */
	int64_t window;	     /* ns, summed over devices */
	int64_t busy;	     /* ns */
	double utilisation;  /* busy / window */
	int64_t idle_by_cause[GS_CAUSE_COUNT]; /* ns */
	double launch_overhead_share;	       /* (launch latency + graph-internal + launch
						  calls in CUDA API) / window, over devices */
	int has_finding;		       /* 1: top holds the verdict's first finding */
	struct gs_finding top;		       /* its string ids are NOT kept (strings freed) */
	/* record --capture-range: only the capture windows were recorded and
	 * the figures above read only them (gs_result.capture) */
	char *capture_range;	  /* meta capture_range, malloc'ed; NULL: recorded whole */
	uint64_t capture_windows; /* how many (overlapping rows merged) */
	int64_t capture_ns;	  /* ns, their lengths summed */

	/* NVTX ranges (marks left out), sorted by start; names: distinct texts */
	char **names;
	uint32_t n_names;
	struct gs_multi_range *ranges;
	size_t n_ranges;
	/* communication: disjoint intervals, sorted, trace clock */
	struct gs_multi_iv *comm;
	size_t n_comm;
};

/* Fill t's summary, ranges and communication intervals from a loaded
 * trace and its analysis. Communication is, with comm_range NULL, the time
 * of kernels whose name contains "nccl" that overlapped no other kernel,
 * copy or set of their device (exposed communication); with comm_range,
 * the union of the NVTX ranges whose text is comm_range (gloo and other
 * backends without GPU kernels). Returns 0 or -ENOMEM. */
int gs_multi_extract(const struct gs_input *in, const struct gs_result *res, const char *comm_range,
		     struct gs_multi_trace *t);
void gs_multi_trace_free(struct gs_multi_trace *t);

/* How the traces' clocks were brought onto one (gs_multi_align). */
enum gs_multi_clock {
	GS_MULTI_CLOCK_MONOTONIC = 0, /* one host: CLOCK_MONOTONIC */
	GS_MULTI_CLOCK_REALTIME = 1,  /* hosts differ: CLOCK_REALTIME (as good as their NTP) */
	GS_MULTI_CLOCK_NONE = 2,      /* an offset is missing: CUPTI clocks as recorded */
};

/* Choose the common clock and set every t[i].offset. Returns the clock. */
int gs_multi_align(struct gs_multi_trace *t, size_t n);

/* After gs_multi_align: by how much the traces' GPU windows ([first,
 * last] + offset) miss having an instant in common - the latest window
 * start minus the earliest window end, ns - or 0 when they all share one.
 * Ranks of one job run at the same time; traces that do not (two runs of
 * a program an hour apart) have no straggler to find. Traces with no GPU
 * window are left out. */
int64_t gs_multi_apart(const struct gs_multi_trace *t, size_t n);

/* A step name that ends in "#*" (GS_MULTI_PROFILER_STEPS) names every
 * range whose text is the part before the '*' and then digits: the steps
 * torch.profiler numbers, ProfilerStep#551, ProfilerStep#552, ... */
#define GS_MULTI_PROFILER_STEPS "ProfilerStep#*"

/* The name of the step ranges when none is given: torch.profiler's steps
 * (GS_MULTI_PROFILER_STEPS) where every trace has them; else among the
 * range names present in every trace (other than exclude, the
 * communication ranges'), the one whose smallest count over the traces is
 * largest; ties: the ranges that last longer in all (a step encloses what
 * happens in it), then the smaller string. NULL when the traces share no
 * range name. Points into t[0].names, or is GS_MULTI_PROFILER_STEPS. */
const char *gs_multi_pick_step(const struct gs_multi_trace *t, size_t n, const char *exclude);

/* The ranges of t named `name` (a "#*" name: the family, above), on the
 * common clock (start + offset), sorted by start (occurrence order), into
 * a new array. Returns the count (0 with *out NULL when none), or -ENOMEM. */
ssize_t gs_multi_steps(const struct gs_multi_trace *t, const char *name, struct gs_multi_iv **out);

/* ---- the comparison ------------------------------------------------ */

/* One rank's input: step ranges in occurrence order and communication
 * intervals (disjoint, sorted by start), all on the common clock. */
struct gs_multi_rank {
	const struct gs_multi_iv *steps;
	size_t n_steps;
	const struct gs_multi_iv *comm;
	size_t n_comm;
};

/* Step i (occurrence i of every rank; steps = the smallest n_steps). */
struct gs_multi_step {
	int64_t first_start;	  /* ns, earliest start over the ranks */
	uint32_t last_start_rank; /* index of the rank that started last (ties: lowest index) */
	int64_t start_lag;	  /* ns, its start - the next-latest start */
	uint32_t last_end_rank;	  /* index of the rank that ended last */
	int64_t end_lag;	  /* ns, its end - the next-latest end */
};

struct gs_multi_rank_stat {
	uint64_t last_starts; /* steps it started last */
	uint64_t last_ends;   /* steps it ended last */
	int64_t end_lag_p50;  /* ns, median end lag over the steps it ended last, 0 if none */
	int64_t comm_p50;     /* ns, median over the steps of its communication time inside
				 the step range */
	int64_t comm_total;   /* ns, sum of the same */
	int64_t step_p50;     /* ns, median step duration */
};

/* A straggler is named only with this many steps compared, or more. */
#define GS_MULTI_MIN_STEPS 3

/* Why the candidate is, or is not, named the straggler (the first that
 * applies, in this order). */
enum gs_multi_why {
	GS_MULTI_NAMED = 0,	   /* named: gs_multi_result.straggler is the candidate */
	GS_MULTI_NOTHING = 1,	   /* fewer than 2 ranks, or no step compared: no candidate */
	GS_MULTI_FEW_STEPS = 2,	   /* fewer than GS_MULTI_MIN_STEPS steps compared */
	GS_MULTI_END_TOGETHER = 3, /* the candidate's end_lag_p50 is 0: the ranks end together */
	GS_MULTI_IN_SPREAD = 4,	   /* lag_p50 is not above lag_spread: no more than noise */
};

struct gs_multi_result {
	size_t n_ranks;
	size_t n_steps; /* steps compared (common to all ranks) */
	struct gs_multi_step *steps;
	struct gs_multi_rank_stat *ranks;
	uint32_t candidate;		   /* rank index ending last most often (ties: the larger
					      median end lag, then the lower index); GS_NONE with
					      fewer than 2 ranks or no step */
	int64_t lag_p50;		   /* ns, median over every compared step of the candidate's
					      end minus the latest end of the other ranks (< 0 in
					      the steps where another rank ended after it) */
	int64_t lag_spread;		   /* ns, the step-to-step spread of that lag: the median
					      of |lag_i - lag_p50| over the steps (median absolute
					      deviation) */
	int why;			   /* enum gs_multi_why */
	uint32_t straggler;		   /* the candidate when why is GS_MULTI_NAMED: at least
					      GS_MULTI_MIN_STEPS steps, end_lag_p50 > 0 and
					      lag_p50 > lag_spread; else GS_NONE */
	int64_t others_wait_p50;	   /* ns, median over every (rank other than the candidate,
					      step) of the communication time inside the step */
	int64_t others_wait_for_straggler; /* ns, of others_wait_p50: what lies beyond
					      the straggler's own comm_p50 (it arrives
					      last and waits least), the cost of
					      waiting for it; 0 without a straggler */
};

/* Compare n ranks. Returns 0 or -ENOMEM (then out is freed). Nearest-rank
 * medians (gs_percentile). The evidence rule (docs/report.md, "Several
 * traces"): the candidate is named only from GS_MULTI_MIN_STEPS steps on,
 * when it ends last by a margin (end_lag_p50 > 0) and its lag over all the
 * steps is above the lag's own step-to-step spread (lag_p50 > lag_spread):
 * two sampled steps, or a lag that comes and goes, name no one. */
int gs_multi_compare(const struct gs_multi_rank *ranks, size_t n, struct gs_multi_result *out);
void gs_multi_result_free(struct gs_multi_result *r);

/* Time of the disjoint sorted intervals iv[0..n) inside [s, e]. */
int64_t gs_multi_covered(const struct gs_multi_iv *iv, size_t n, int64_t s, int64_t e);

/* ---- two sets (`gapscope diff before/ after/`) ------------------------ */

/* A process of the before set matched with one of the after set. */
struct gs_multi_pair {
	uint32_t before; /* index into the before set's traces, GS_NONE: not in it */
	uint32_t after;	 /* index into the after set's traces, GS_NONE: not in it */
};

/* Match the processes of two sets by recorded rank. a and b are each in
 * rank order, ranked traces first (as report_multi sorts them); the k-th
 * trace of rank r in a goes with the k-th of rank r in b (a rank recorded
 * twice, e.g. LOCAL_RANK on two hosts, pairs in order). A trace without a
 * rank has no partner: a pid is not the same process in another run. The
 * pairs come in rank order, then the rankless traces of a, then of b.
 * Returns the number of pairs (*out malloc'ed, NULL when 0) or -ENOMEM. */
ssize_t gs_multi_pair_ranks(const struct gs_multi_trace *a, size_t na,
			    const struct gs_multi_trace *b, size_t nb, struct gs_multi_pair **out);

#endif
