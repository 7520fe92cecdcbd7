/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * diff.h - comparing two analysed runs (before, after) for `gapscope diff`
 * and the comparison page of `gapscope html a.db b.db`.
 *
 * Works only on the analysis library's results (analysis.h) of each run:
 * totals over all devices (wall time, GPU utilisation, idle by cause,
 * launch overhead share, launch and kernel counts), and the kernels, launch
 * API names and NVTX ranges of both runs matched by name. It computes no
 * gaps itself and opens no files; diff_write_text/json only print.
 */
#ifndef GAPSCOPE_DIFF_H
#define GAPSCOPE_DIFF_H

#include <stdint.h>
#include <stdio.h>

#include "multi.h"

#include "analysis.h"
#include "correct.h"

/* One run's totals over all its devices. */
struct run_totals {
	int64_t wall;			       /* ns, first GPU op start to last GPU op end,
						  over all devices (0 if no ops; in a capture
						  trace, the part inside its windows); with a
						  --range selection the selection's length
						  (range_total) */
	int range_applied;		       /* 1: the run was analysed with --range */
	uint64_t range_matches;		       /* NVTX ranges selected */
	int64_t range_total;		       /* ns, length of their union */
	int capture;			       /* 1: a capture trace (gs_result.capture) */
	uint64_t capture_windows;	       /* its capture windows */
	int64_t capture_ns;		       /* ns, their lengths summed */
	int64_t window;			       /* ns, sum of the devices' windows */
	int64_t busy;			       /* ns, sum of the devices' busy time */
	int64_t idle;			       /* ns, window - busy */
	int64_t idle_by_cause[GS_CAUSE_COUNT]; /* ns */
	uint64_t gaps;			       /* idle gaps, all devices */
	uint64_t gaps_by_cause[GS_CAUSE_COUNT];
	uint64_t ops;	      /* GPU ops in the windows */
	uint64_t kernels;     /* kernel ops */
	uint64_t launches;    /* launch API calls that launched work */
	double utilisation;   /* busy / window, 0..1 */
	int64_t launch_calls; /* ns, time in launch calls inside CUDA API segments */
	double
	    launch_overhead_share; /* (launch latency + graph-internal + launch_calls) / window */
	double host_code_share;	   /* host code idle / window */
	/* corrected for tracing (gs_corrected_total), where the run's trace
	 * is calibrated and diff_set_corrected was given its correction */
	int corrected;		      /* 1: the two figures below hold */
	int64_t corrected_window;     /* ns */
	double corrected_utilisation; /* 0..1 */
};

void run_totals_compute(const struct gs_result *res, struct run_totals *t);

/* A name present in either run, with its figures in each (0 when absent). */
struct diff_kernel {
	const char *name;  /* points into a run's strings */
	uint64_t count[2]; /* kernel ops with this name */
	int64_t total[2];  /* ns, sum of their durations */
	int64_t p50[2];	   /* ns, median duration */
};

struct diff_launch {
	const char *name;     /* launch API name */
	uint64_t count[2];    /* launch calls */
	int64_t api_p50[2];   /* ns, p50 host duration of the call */
	int64_t delay_p50[2]; /* ns, p50 API start -> op start */
};

struct diff_nvtx {
	const char *name;     /* range text */
	uint64_t count[2];    /* ranges */
	int64_t wall[2];      /* ns, sum of range durations */
	double busy_share[2]; /* GPU busy share inside them, 0..1 */
};

/* A verdict finding of either run (docs/report.md, "Verdict"), matched
 * across the runs by rule and the API name it names. */
struct diff_finding {
	uint8_t rule;	 /* enum gs_rule */
	const char *api; /* the API name it names, NULL none */
	int64_t cost[2]; /* ns of GPU idle it stood for; 0: not a finding of that run */
	double share[2]; /* cost / that run's window */
};

#define DIFF_FINDINGS (2 * GS_VERDICT_FINDINGS)

struct diff_result {
	struct run_totals run[2];    /* 0 before, 1 after */
	struct diff_finding findings[DIFF_FINDINGS]; /* by the larger cost, desc */
	size_t n_findings;
	struct diff_kernel *kernels; /* every kernel name, by max(total) desc */
	size_t n_kernels;
	struct diff_launch *launches; /* every launch API name, by max(count) desc */
	size_t n_launches;
	struct diff_nvtx *nvtx; /* every NVTX range text, by max(wall) desc */
	size_t n_nvtx;
};

/* Compare res[0] (before) and res[1] (after); their inputs must stay alive
 * while d is used (names point into them). Returns 0 or -ENOMEM. */
int diff_compute(const struct gs_result *before, const struct gs_result *after,
		 struct diff_result *d);
void diff_free(struct diff_result *d);
/* The runs' figures corrected for tracing (NULL: that run has none, its
 * trace carries no calibration or the correction is off); the diff shows
 * them where both runs have them. */
void diff_set_corrected(struct diff_result *d, const struct gs_corrected *before,
			const struct gs_corrected *after);

/* What each side of a comparison is: a trace file, and the NVTX range
 * text its analysis was restricted to (NULL: the whole trace). */
struct diff_side {
	const char *path;
	const char *range;
};

/* 1 when NVTX range text `name` is one of the two selections of a
 * comparison of two different ranges (range_before != range_after, both
 * set): its row would only say "-100%" and "new"; the totals already
 * compare the two. The text and HTML writers leave such rows out, JSON
 * keeps every row. */
int diff_nvtx_is_selection(const char *name, const char *range_before, const char *range_after);

/* (after - before) / before; NAN when before is 0 (no relative change). */
double diff_rel(double before, double after);

/* The comparison as text (the default of `gapscope diff`); top = rows per
 * table (kernels, launches, NVTX). Names are printed with control
 * characters and invalid UTF-8 bytes as '?', so a hostile name cannot drive the
 * terminal. */
void diff_write_text(FILE *f, const struct diff_result *d, const struct diff_side side[2],
		     size_t top);
/* The comparison as one JSON document (jansson does the escaping).
 * Returns 0 or -1. */
int diff_write_json(FILE *f, const struct diff_result *d, const struct diff_side side[2]);

/* ---- two sets of traces (`gapscope diff before/ after/`, diff_sets.c) -- */

/* One set, loaded and compared by the multi-trace report's code. */
struct diff_set {
	const char *label;		/* the argument(s) as given, for the header */
	const struct gs_multi_trace *t; /* its traces, by rank */
	size_t n;
	int clock;			 /* enum gs_multi_clock */
	const char *step;		 /* the step ranges' name, NULL: none found */
	const struct gs_multi_result *m; /* its stragglers */
};

/* Per matched process (pairs from gs_multi_pair_ranks): window,
 * utilisation, idle by cause in % of the window and launch overhead share,
 * before, after, change; a process of one set only is listed as such. Then
 * each set's straggler, its median end lag and the others' communication
 * wait, and the change. Returns 0, or -1 when f failed (JSON: or out of
 * memory). */
int diff_sets_write_text(FILE *f, const struct diff_set s[2], const struct gs_multi_pair *p,
			 size_t np);
int diff_sets_write_json(FILE *f, const struct diff_set s[2], const struct gs_multi_pair *p,
			 size_t np);

#endif
