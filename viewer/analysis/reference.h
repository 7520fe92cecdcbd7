/*
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
};

struct gs_reference {
	struct gs_reference_range *ranges; /* the order of res->nvtx */
	size_t n_ranges;
	unsigned n_runs;
};

/* Compare res->nvtx (of the traced in) with the NVTX ranges of the n_refs
 * reference inputs (their nvtx and strings loaded), matched by text (the
 * domain is not compared; marks are left out). Returns 0, -EINVAL for
 * n_refs 0 or a NULL argument, -ENOMEM. */
int gs_reference_compare(const struct gs_input *in, const struct gs_result *res,
			 const struct gs_input *const *refs, size_t n_refs,
			 struct gs_reference *out);
void gs_reference_free(struct gs_reference *r);

#endif
