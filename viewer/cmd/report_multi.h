/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * report_multi.h - the multi-trace case of `gapscope report`
 * (report_multi.c), called by cmd_report.c; and the loading of a set of
 * traces (multi_set_load), shared with `gapscope diff` of two sets
 * (cmd_diff.c).
 */
#ifndef GAPSCOPE_REPORT_MULTI_H
#define GAPSCOPE_REPORT_MULTI_H

#include <stddef.h>
#include <stdio.h>

#include "multi.h"
#include "multi_render.h"

struct report_multi_opts {
	const char *step;	/* --step NAME, NULL: the most frequent common range name */
	const char *comm_range; /* --comm-range NAME, NULL: exposed nccl kernels */
	int json;		/* --json */
	size_t top;		/* steps listed (--top) */
	const char *csv_dir;	/* --csv DIR: write processes.csv, steps.csv there instead */
};

/* A set of traces, one per process of a job: loaded, analysed, ordered by
 * rank (then pid), put on one clock and compared (gs_multi_compare). */
struct multi_set {
	struct gs_multi_trace *t; /* n traces, by rank then pid */
	size_t n;
	int clock;		      /* enum gs_multi_clock */
	const char *step;	      /* the step ranges' name (given, or picked), NULL: none */
	int64_t apart;		      /* ns, gs_multi_apart: > 0, not compared step by step */
	struct gs_multi_result m;     /* the comparison (n_steps 0 without steps) */
	struct gs_multi_iv **steps;   /* per trace: its step ranges, common clock */
	struct multi_gap_spool *gaps; /* per trace: its spooled gaps (spool_dir given) */
	FILE *spools[8];	      /* the spool files, closed by multi_set_free */
	size_t n_spools;
	char **files; /* the trace paths (t[i].path points into them) */
	size_t n_files;
};

/* Load the traces and folders (every *.db in it) of paths as one set, on a
 * few threads; step_name / comm_range as report's --step / --comm-range;
 * spool_dir: where to spool every gap segment (report --csv), NULL: not.
 * Bad input in any trace: one line `gapscope: <path>: ...` on stderr
 * (verb names the command in lines about no file). Returns a GS_EXIT_*
 * status; s is filled only on GS_EXIT_OK (then free with multi_set_free). */
int multi_set_load(const char *verb, char *const *paths, size_t n_paths, const char *step_name,
		   const char *comm_range, const char *spool_dir, struct multi_set *s);
void multi_set_free(struct multi_set *s);

/* Report on the traces (and folders of *.db) in paths. Returns a GS_EXIT_*
 * status; errors are printed (one line). */
int report_multi(char **paths, size_t n_paths, const struct report_multi_opts *o);

#endif
