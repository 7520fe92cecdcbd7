/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * reference.h - a trace's NVTX range walls against untraced reference runs
 * of the same program (`gapscope record --reference N`: the program run N
 * more times with only its NVTX ranges recorded, which costs it nothing
 * measurable). Per range text of the traced trace, the reference runs'
 * walls: what the traced and the corrected walls should have been, measured
 * rather than modelled (docs/collector.md, "Untraced reference runs"). No
 * I/O.
 */
#ifndef GS_REFERENCE_H
#define GS_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "correct.h"

/* reference runs a report compares with, at most (--reference) */
#define GS_REFERENCE_MAX_RUNS 16

/* the reference runs' walls for one range text of the traced trace */
struct gs_reference_range {
	unsigned runs;		/* reference runs holding ranges of this text */
	unsigned count_differs; /* of those, runs with another number of them */
	int64_t untraced;	/* ns, median over those runs of each run's sum of
				   walls (mean of the middle two for an even
				   number); -1 when no run holds the text */
	int64_t min, max;	/* ns, the smallest and largest run's sum */
	/* against the untraced wall (have_errors: untraced > 0) */
	int have_errors;
	double traced_error;	/* traced wall / untraced - 1 */
	int have_corrected;	/* the trace's figures were corrected */
	double corrected_error; /* corrected wall / untraced - 1 */
	int64_t busy;		/* ns, GPU busy in the ranges, less the kernel time
				   the correction took off (with have_corrected) */
	double busy_share;	/* busy / untraced */
};

struct gs_reference {
	struct gs_reference_range *ranges; /* the order of res->nvtx */
	size_t n_ranges;
	unsigned n_runs;
};

/* Compare res->nvtx (of the traced in) with the NVTX ranges of the n_refs
 * reference inputs (their nvtx and strings loaded), matched by text (the
 * domain is not compared; marks are left out). corr: the trace's corrected
 * figures (gs_correct of res), or NULL. Returns 0, -EINVAL for n_refs 0 or
 * a NULL argument, -ENOMEM. */
int gs_reference_compare(const struct gs_input *in, const struct gs_result *res,
			 const struct gs_corrected *corr, const struct gs_input *const *refs,
			 size_t n_refs, struct gs_reference *out);

/* The activities a reference run records (meta config.activities) */
#define GS_REFERENCE_ACTIVITIES "nvtx"
/* 1 when a trace that recorded these activities (meta config.activities,
 * NULL: unknown) is an untraced reference run */
int gs_reference_activities(const char *activities);
void gs_reference_free(struct gs_reference *r);

#endif
