/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * multi_csv.c - `gapscope report A.db B.db ... --csv DIR`: the multi-trace
 * report as two CSV files (RFC 4180) for an engine such as DuckDB when the
 * traces are too many for one report (docs/many-traces.md):
 *   processes.csv  one row per trace: the report's row and straggler figures
 *   steps.csv      one row per step range of every trace, on the common
 *                  clock, with the communication time inside it
 *   gaps.csv       one row per gap segment (gap model v2) of every trace, on
 *                  the common clock, with its cause, thread and API call
 * The segments are spooled per trace while it is loaded (multi_gaps_spool,
 * into unlinked files in the output's temporary folder) and turned into
 * rows here, in rank order, once the common clock is known: memory stays
 * bounded by the traces in flight.
 * Written into a folder through out_dir (out_file.h): complete or not at all.
 * Text cells starting with = + - @ tab or CR get a leading ' (a spreadsheet
 * would run them as formulas). It computes nothing but the per-range
 * communication time (gs_multi_covered).
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	      "step_p50_ns,comm_per_step_p50_ns,comm_total_ns,capture_range,capture_windows,"
	      "captured_ns,world_size\r\n",
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
			fprintf(f, ",%llu,%llu,%lld,%lld,%lld,%lld",
				(unsigned long long)s->last_starts,
				(unsigned long long)s->last_ends, (long long)s->end_lag_p50,
				(long long)s->step_p50, (long long)s->comm_p50,
				(long long)s->comm_total);
		} else {
			fputs(",,,,,,", f);
		}
		/* a trace recorded with --capture-range: its mode, windows and
		 * their time; empty for one recorded whole */
		fputc(',', f);
		if (t->capture_range) {
			cell(f, t->capture_range);
			fprintf(f, ",%llu,%lld", (unsigned long long)t->capture_windows,
				(long long)t->capture_ns);
		} else {
			fputs(",,", f);
		}
		/* the job's ranks (meta world_size), empty when not recorded */
		if (t->world_size > 0)
			fprintf(f, ",%lld\r\n", (long long)t->world_size);
		else
			fputs(",\r\n", f);
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

/* One spooled segment; followed by api_len bytes of the API name. */
struct spool_rec {
	int64_t gap_start; /* ns, trace clock */
	int64_t gap_end;   /* ns */
	int64_t seg_start; /* ns */
	int64_t seg_end;   /* ns */
	int32_t device;	   /* ordinal */
	uint32_t tid;	   /* 0: none */
	uint32_t api_len;  /* bytes of the name that follows, 0: none */
	uint8_t cause;	   /* enum gs_cause */
	uint8_t pad[3];
};

FILE *multi_gaps_spool_open(const char *dir)
{
	char *path;
	FILE *f = NULL;
	int fd, e;

	if (asprintf(&path, "%s/.gaps-spool-XXXXXX", dir) < 0)
		return NULL;
	fd = mkstemp(path);
	e = errno;
	if (fd >= 0) {
		unlink(path);
		f = fdopen(fd, "w+");
		e = errno;
		if (!f)
			close(fd);
	}
	free(path);
	errno = e;
	return f;
}

/* the API name of the segment's reference call, as report_json.c names it */
static const char *seg_api(const struct gs_input *in, const struct gs_segment *s)
{
	if ((s->ref_kind == GS_EXPLAIN_SYNC || s->ref_kind == GS_EXPLAIN_WAIT) &&
	    s->ref_idx < in->n_syncs)
		return gs_str(&in->strings, in->syncs[s->ref_idx].api_name_id, NULL);
	if ((s->ref_kind == GS_EXPLAIN_LAUNCH || s->ref_kind == GS_EXPLAIN_HOST_FUNC) &&
	    s->ref_idx < in->n_apis)
		return gs_str(&in->strings, in->apis[s->ref_idx].name_id, NULL);
	return NULL;
}

int multi_gaps_spool(FILE *spool, const struct gs_input *in, const struct gs_result *res,
		     struct multi_gap_spool *where)
{
	struct gs_segment *seg = NULL;
	size_t cap = 0, d, g, k, n;
	off_t start = ftello(spool);
	int rc = 0;

	where->f = spool;
	where->off = start;
	where->len = 0;
	if (start < 0)
		return -errno;
	for (d = 0; d < res->n_devices && !rc; d++) {
		const struct gs_device_result *dv = &res->devices[d];
		for (g = 0; g < dv->n_gaps && !rc; g++) {
			const struct gs_gap *gp = &dv->gaps[g];
			n = gs_gap_segments(res, gp, seg, cap);
			if (n > cap) {
				struct gs_segment *ns = realloc(seg, n * sizeof(*ns));
				if (!ns) {
					rc = -ENOMEM;
					break;
				}
				seg = ns;
				cap = n;
				n = gs_gap_segments(res, gp, seg, cap);
			}
			for (k = 0; k < n; k++) {
				struct spool_rec rec;
				const char *api = seg_api(in, &seg[k]);
				memset(&rec, 0, sizeof(rec));
				rec.gap_start = gp->start;
				rec.gap_end = gp->end;
				rec.seg_start = seg[k].start;
				rec.seg_end = seg[k].end;
				rec.device = dv->device;
				rec.tid = seg[k].tid;
				rec.cause = seg[k].cause;
				rec.api_len = api ? (uint32_t)strlen(api) : 0;
				if (fwrite(&rec, sizeof(rec), 1, spool) != 1 ||
				    (rec.api_len && fwrite(api, rec.api_len, 1, spool) != 1)) {
					rc = -(errno ? errno : EIO);
					break;
				}
			}
		}
	}
	free(seg);
	if (!rc) {
		off_t end = ftello(spool);
		if (end < 0)
			return -errno;
		where->len = end - start;
	}
	return rc;
}

static int gaps(FILE *f, const struct multi_report *r)
{
	char *api = NULL;
	size_t api_cap = 0, i;
	int rc = 0;

	fputs("rank,trace,device,gap_start_ns,gap_end_ns,segment_start_ns,segment_end_ns,cause,"
	      "thread,api\r\n",
	      f);
	for (i = 0; i < r->n && !rc; i++) {
		const struct gs_multi_trace *t = &r->t[i];
		const struct multi_gap_spool *sp = &r->gaps[i];
		off_t left = sp->len;
		if (!sp->f || !left)
			continue;
		if (fflush(sp->f) != 0 || fseeko(sp->f, sp->off, SEEK_SET) != 0) {
			rc = -(errno ? errno : EIO);
			break;
		}
		while (left > 0) {
			struct spool_rec rec;
			if (fread(&rec, sizeof(rec), 1, sp->f) != 1) {
				rc = -EIO;
				break;
			}
			if (rec.api_len >= api_cap) {
				char *na = realloc(api, (size_t)rec.api_len + 1);
				if (!na) {
					rc = -ENOMEM;
					break;
				}
				api = na;
				api_cap = (size_t)rec.api_len + 1;
			}
			if (rec.api_len && fread(api, rec.api_len, 1, sp->f) != 1) {
				rc = -EIO;
				break;
			}
			if (api)
				api[rec.api_len] = '\0';
			left -= (off_t)(sizeof(rec) + rec.api_len);
			if (t->has_rank)
				fprintf(f, "%lld,", (long long)t->rank);
			else
				fputc(',', f);
			cell(f, t->path);
			fprintf(f, ",%d,%lld,%lld,%lld,%lld,%s,", (int)rec.device,
				(long long)(rec.gap_start + t->offset),
				(long long)(rec.gap_end + t->offset),
				(long long)(rec.seg_start + t->offset),
				(long long)(rec.seg_end + t->offset), gs_cause_key(rec.cause));
			if (rec.tid)
				fprintf(f, "%lu", (unsigned long)rec.tid);
			fputc(',', f);
			cell(f, rec.api_len ? api : NULL);
			fputs("\r\n", f);
		}
	}
	free(api);
	if (!rc && ferror(f))
		rc = -EIO;
	return rc;
}

int multi_render_csv(struct out_dir *od, const struct multi_report *r, char *err, size_t errlen)
{
	static const char *const names[3] = {"processes.csv", "steps.csv", "gaps.csv"};
	char *path = NULL;
	FILE *f;
	int rc, k;

	for (k = 0; k < (r->gaps ? 3 : 2); k++) {
		f = open_in(od->tmp, names[k], &path);
		if (!f) {
			rc = -errno;
			snprintf(err, errlen, "cannot write %s: %s", path ? path : od->target,
				 strerror(errno));
			free(path);
			out_dir_abort(od);
			return rc ? rc : -EIO;
		}
		rc = k == 0 ? processes(f, r) : k == 1 ? steps(f, r) : gaps(f, r);
		if (fclose(f) != 0 && !rc)
			rc = -errno;
		if (rc) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
			free(path);
			out_dir_abort(od);
			return rc;
		}
		free(path);
	}
	return out_dir_commit(od, err, errlen);
}
