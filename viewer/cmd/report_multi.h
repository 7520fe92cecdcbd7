/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * report_multi.h - the multi-trace case of `gapscope report`
 * (report_multi.c), called by cmd_report.c.
 */
#ifndef GAPSCOPE_REPORT_MULTI_H
#define GAPSCOPE_REPORT_MULTI_H

#include <stddef.h>

struct report_multi_opts {
	const char *step;	/* --step NAME, NULL: the most frequent common range name */
	const char *comm_range; /* --comm-range NAME, NULL: exposed nccl kernels */
	int json;		/* --json */
	size_t top;		/* steps listed (--top) */
	const char *csv_dir;	/* --csv DIR: write processes.csv, steps.csv there instead */
};

/* Report on the traces (and folders of *.db) in paths. Returns a GS_EXIT_*
 * status; errors are printed (one line). */
int report_multi(char **paths, size_t n_paths, const struct report_multi_opts *o);

#endif
