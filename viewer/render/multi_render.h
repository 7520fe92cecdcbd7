/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * multi_render.h - the multi-trace report (`gapscope report A.db B.db ...`):
 * a row per process, then the stragglers, as text (multi_text.c) or JSON
 * (multi_json.c). They only format what viewer/analysis/multi.c computed;
 * every string from a trace (file names, NVTX texts) is escaped (term.h for
 * the terminal, valid UTF-8 in JSON).
 */
#ifndef GAPSCOPE_MULTI_RENDER_H
#define GAPSCOPE_MULTI_RENDER_H

#include <stdio.h>

#include "multi.h"

struct multi_report {
	const struct gs_multi_trace *t; /* the traces, in the order printed (by rank) */
	size_t n;
	int clock;			 /* enum gs_multi_clock */
	const char *step_name;		 /* the step ranges compared, NULL: none found */
	int step_given;			 /* 1: --step NAME */
	const char *comm_range;		 /* --comm-range NAME, NULL: nccl kernels */
	const struct gs_multi_result *m; /* the comparison (n_steps 0 when no step) */
	size_t top;			 /* steps listed in the text, largest end lag first */
};

/* Write the report to f. Return 0, or -1 when f failed. */
int multi_render_text(FILE *f, const struct multi_report *r);
int multi_render_json(FILE *f, const struct multi_report *r);

/* Write processes.csv and steps.csv into folder dir (multi_csv.c,
 * docs/many-traces.md), all or nothing (out_file.h). Returns 0, or a
 * negative errno with the reason in err. */
int multi_render_csv(const char *dir, const struct multi_report *r, char *err, size_t errlen);

/* "rank 3" or "pid 4242" (trace without a recorded rank) into b */
const char *multi_rank_label(char *b, size_t n, const struct gs_multi_trace *t);

#endif
