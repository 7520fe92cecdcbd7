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
#include <sys/types.h> /* off_t */

#include "multi.h"

struct out_dir;

/* Where one trace's gap segments were spooled (multi_gaps_spool): bytes
 * [off, off + len) of f, on the trace's own clock. */
struct multi_gap_spool {
	FILE *f;   /* a worker's spool file (unlinked temporary), NULL: none */
	off_t off; /* bytes */
	off_t len; /* bytes */
};

struct multi_report {
	const struct gs_multi_trace *t; /* the traces, in the order printed (by rank) */
	size_t n;
	int clock;			    /* enum gs_multi_clock */
	int64_t apart;			    /* ns, gs_multi_apart: > 0, no step comparison */
	const char *step_name;		    /* the step ranges compared, NULL: none found */
	int step_given;			    /* 1: --step NAME */
	const char *comm_range;		    /* --comm-range NAME, NULL: nccl kernels */
	const struct gs_multi_result *m;    /* the comparison (n_steps 0 when no step) */
	size_t top;			    /* steps listed in the text, largest end lag first */
	const struct multi_gap_spool *gaps; /* per trace (same order as t): its gap
					       segments spooled by multi_gaps_spool;
					       NULL: gaps.csv not written */
};

/* Write the report to f. Return 0, or -1 when f failed. */
int multi_render_text(FILE *f, const struct multi_report *r);
int multi_render_json(FILE *f, const struct multi_report *r);

/* Write processes.csv, steps.csv and (when r->gaps) gaps.csv into the
 * folder od was opened on (multi_csv.c, docs/many-traces.md), then commit
 * it: all or nothing (out_file.h). The caller opens od (out_dir_open)
 * before loading the traces, so the gap spools can live in od->tmp; od is
 * committed or aborted here either way. Returns 0, or a negative errno
 * with the reason in err. */
int multi_render_csv(struct out_dir *od, const struct multi_report *r, char *err, size_t errlen);

/* Append every gap segment of every device of res (analysed with
 * all_gaps = 1) to spool as compact records, times on the trace's own
 * clock: written while the trace is in memory, read back in rank order by
 * multi_render_csv once the common clock is known, so gaps.csv needs no
 * more memory than one trace. Records the bytes written in *where. Not
 * thread-safe per spool (one spool per loading thread). Returns 0 or a
 * negative errno. */
int multi_gaps_spool(FILE *spool, const struct gs_input *in, const struct gs_result *res,
		     struct multi_gap_spool *where);

/* A new spool file in folder dir, already unlinked (nothing is left
 * behind whatever happens). NULL with errno on failure. */
FILE *multi_gaps_spool_open(const char *dir);

/* Why no straggler is named (enum gs_multi_why) as the JSON key word:
 * "no_steps", "few_steps", "end_together", "within_spread"; NULL when one
 * is named */
const char *multi_why_key(int why);

/* "rank 3" or "pid 4242" (trace without a recorded rank) into b */
const char *multi_rank_label(char *b, size_t n, const struct gs_multi_trace *t);

#endif
