/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * multi_csv.c - `gapscope report A.db B.db ... --csv DIR`: the multi-trace
 * report as two CSV files (RFC 4180) for an engine such as DuckDB when the
 * traces are too many for one report (docs/many-traces.md):
 *   processes.csv  one row per trace: the report's row and straggler figures
 *   steps.csv      one row per step range of every trace, on the common
 *                  clock, with the communication time inside it
 * Written into a folder through out_dir (out_file.h): complete or not at all.
 * Text cells starting with = + - @ tab or CR get a leading ' (a spreadsheet
 * would run them as formulas). It computes nothing but the per-range
 * communication time (gs_multi_covered).
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi_render.h"
#include "out_file.h"

static void cell(FILE *f, const char *s)
{
	if (!s)
		return; /* NULL: empty field */
	fputc('"', f);
	if (strchr("=+-@\t\r", s[0]) && s[0])
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static FILE *open_in(const char *dir, const char *name, char **path)
{
	FILE *f;

	if (asprintf(path, "%s/%s", dir, name) < 0) {
		*path = NULL;
		return NULL;
	}
	f = fopen(*path, "w");
	return f;
}

static int processes(FILE *f, const struct multi_report *r)
{
	const struct gs_multi_result *m = r->m;
	size_t i;
	int c;

	fputs("trace,rank,pid,hostname,clock_offset_ns,window_ns,busy_ns,utilisation", f);
	for (c = 0; c < GS_CAUSE_COUNT; c++)
		fprintf(f, ",idle_%s_ns", gs_cause_key(c));
	fputs(",launch_overhead_share,top_rule,top_cost_ns,last_starts,last_ends,end_lag_p50_ns,"
	      "step_p50_ns,comm_per_step_p50_ns,comm_total_ns\r\n",
	      f);
	for (i = 0; i < r->n; i++) {
		const struct gs_multi_trace *t = &r->t[i];
		cell(f, t->path);
		if (t->has_rank)
			fprintf(f, ",%lld", (long long)t->rank);
		else
			fputc(',', f);
		if (t->pid >= 0)
			fprintf(f, ",%lld,", (long long)t->pid);
		else
			fputs(",,", f);
		cell(f, t->hostname);
		fprintf(f, ",%lld,%lld,%lld,%.6f", (long long)t->offset, (long long)t->window,
			(long long)t->busy, t->utilisation);
		for (c = 0; c < GS_CAUSE_COUNT; c++)
			fprintf(f, ",%lld", (long long)t->idle_by_cause[c]);
		fprintf(f, ",%.6f,", t->launch_overhead_share);
		if (t->has_finding)
			fprintf(f, "%s,%lld", gs_rule_key(t->top.rule), (long long)t->top.cost_ns);
		else
			fputc(',', f);
		if (m && m->n_steps) {
			const struct gs_multi_rank_stat *s = &m->ranks[i];
			fprintf(f, ",%llu,%llu,%lld,%lld,%lld,%lld\r\n",
				(unsigned long long)s->last_starts,
				(unsigned long long)s->last_ends, (long long)s->end_lag_p50,
				(long long)s->step_p50, (long long)s->comm_p50,
				(long long)s->comm_total);
		} else {
			fputs(",,,,,,\r\n", f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

static int steps(FILE *f, const struct multi_report *r)
{
	size_t i, k;

	fputs("trace,rank,pid,step,start_ns,end_ns,comm_ns\r\n", f);
	if (!r->step_name)
		return ferror(f) ? -EIO : 0;
	for (i = 0; i < r->n; i++) {
		const struct gs_multi_trace *t = &r->t[i];
		struct gs_multi_iv *st = NULL;
		ssize_t n = gs_multi_steps(t, r->step_name, &st);
		if (n < 0)
			return -ENOMEM;
		for (k = 0; k < (size_t)n; k++) {
			/* t->comm is on the common clock already (report_multi.c) */
			int64_t comm = gs_multi_covered(t->comm, t->n_comm, st[k].start, st[k].end);
			cell(f, t->path);
			if (t->has_rank)
				fprintf(f, ",%lld", (long long)t->rank);
			else
				fputc(',', f);
			if (t->pid >= 0)
				fprintf(f, ",%lld", (long long)t->pid);
			else
				fputc(',', f);
			fprintf(f, ",%zu,%lld,%lld,%lld\r\n", k, (long long)st[k].start,
				(long long)st[k].end, (long long)comm);
		}
		free(st);
	}
	return ferror(f) ? -EIO : 0;
}

int multi_render_csv(const char *dir, const struct multi_report *r, char *err, size_t errlen)
{
	struct out_dir od;
	char *path = NULL;
	FILE *f;
	int rc, k;

	rc = out_dir_open(&od, dir, err, errlen);
	if (rc < 0)
		return rc;
	for (k = 0; k < 2; k++) {
		f = open_in(od.tmp, k ? "steps.csv" : "processes.csv", &path);
		if (!f) {
			rc = -errno;
			snprintf(err, errlen, "cannot write %s: %s", path ? path : dir,
				 strerror(errno));
			free(path);
			out_dir_abort(&od);
			return rc ? rc : -EIO;
		}
		rc = k ? steps(f, r) : processes(f, r);
		if (fclose(f) != 0 && !rc)
			rc = -errno;
		if (rc) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
			free(path);
			out_dir_abort(&od);
			return rc;
		}
		free(path);
	}
	return out_dir_commit(&od, err, errlen);
}
