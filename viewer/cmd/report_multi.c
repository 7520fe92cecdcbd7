/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * report_multi.c - `gapscope report A.db B.db ...` (or a folder: every
 * *.db in it): one trace per process of a multi-process job. cmd_report.c
 * hands the file list here when there is more than one trace.
 *
 * Traces are loaded on a few threads, each taking the next trace from a
 * shared counter: open, load (trace_load, which itself reads on several
 * connections), analyse, keep only what gs_multi_extract() keeps (the
 * summary row, the NVTX ranges, the communication intervals), free. So
 * memory is bounded by the traces in flight (one per worker), not by
 * their sum. Then the clocks are aligned (meta monotonic_offset_ns on one
 * host, realtime_offset_ns across hosts), the step ranges of every rank
 * compared (viewer/analysis/multi.c) and the result printed
 * (viewer/render/multi_text.c, multi_json.c, multi_csv.c). Bad input in
 * any trace: one line naming it, exit 2, nothing printed on standard output.
 *
 * With --csv the output folder is opened first: each worker spools the gap
 * segments of the traces it analyses into one unlinked file in the
 * folder's temporary subfolder (multi_gaps_spool), so gaps.csv is written
 * afterwards in rank order on the common clock without holding any
 * trace's gaps in memory once that trace is freed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "multi.h"
#include "multi_render.h"
#include "out_file.h"
#include "report_multi.h"
#include "trace_load.h"

struct job {
	const char *path;
	struct gs_multi_trace t;
	struct multi_gap_spool gaps; /* its gap segments (--csv), f NULL: none */
	int rc;			     /* GS_EXIT_* */
	char err[512];
};

struct pool {
	struct job *jobs;
	size_t n;
	size_t next; /* under mu */
	pthread_mutex_t mu;
	const char *comm_range;
	const struct gs_options *opt;
	const char *spool_dir; /* --csv: where workers make their gap spools, else NULL */
	FILE *spools[8];       /* one per worker (closed by report_multi) */
	size_t n_spools;       /* under mu */
};

/* meta value as an integer; 1 when present and a whole number */
static int meta_int(struct trace *tr, const char *key, int64_t *v)
{
	char *s = trace_meta(tr, key), *end = NULL;
	long long x;
	int ok = 0;

	if (s && *s) {
		errno = 0;
		x = strtoll(s, &end, 10);
		if (!errno && end && *end == '\0') {
			*v = x;
			ok = 1;
		}
	}
	free(s);
	return ok;
}

static void load_one(struct job *j, const struct pool *p, FILE *spool)
{
	struct trace tr;
	struct gs_input in;
	struct gs_result res;
	int rc;

	memset(&in, 0, sizeof(in));
	j->t.path = j->path;
	if (trace_open(&tr, j->path, j->err, sizeof(j->err)) < 0) {
		j->rc = GS_EXIT_BAD_INPUT;
		return;
	}
	if (trace_load(&tr, GS_LOAD_ALL, &in, j->err, sizeof(j->err)) < 0) {
		j->rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	if (gs_cli_nothing_text(&tr, &in, j->err, sizeof(j->err))) {
		j->rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	rc = gs_analyze(&in, p->opt, &res);
	if (rc < 0) {
		snprintf(j->err, sizeof(j->err), "analysis failed: %s", strerror(-rc));
		j->rc = GS_EXIT_INTERNAL;
		goto out;
	}
	rc = gs_multi_extract(&in, &res, p->comm_range, &j->t);
	if (rc >= 0 && spool && (rc = multi_gaps_spool(spool, &in, &res, &j->gaps)) < 0) {
		snprintf(j->err, sizeof(j->err), "cannot write the gap segments to %s: %s",
			 p->spool_dir, strerror(-rc));
		gs_result_free(&res);
		j->rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	gs_result_free(&res);
	if (rc < 0) {
		snprintf(j->err, sizeof(j->err), "out of memory");
		j->rc = GS_EXIT_INTERNAL;
		goto out;
	}
	/* meta rank (the collector's, from the launcher's environment, or
	 * Kineto's distributedInfo), else env.RANK ... of older traces */
	j->t.has_rank = trace_rank(&tr, &j->t.rank, &j->t.world_size, &j->t.rank_source);
	if (!j->t.has_rank)
		j->t.rank = -1;
	if (!meta_int(&tr, "pid", &j->t.pid))
		j->t.pid = -1;
	j->t.hostname = trace_meta(&tr, "hostname");
	j->t.has_mono = meta_int(&tr, "monotonic_offset_ns", &j->t.mono_offset);
	j->t.has_real = meta_int(&tr, "realtime_offset_ns", &j->t.real_offset);
out:
	trace_input_free(&in);
	trace_close(&tr);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	FILE *spool = NULL;
	int spool_err = 0;

	for (;;) {
		size_t i;
		pthread_mutex_lock(&p->mu);
		i = p->next++;
		if (i < p->n && p->spool_dir && !spool && !spool_err) {
			/* at most one spool per worker: a few files whatever
			 * the number of traces */
			spool = multi_gaps_spool_open(p->spool_dir);
			if (spool)
				p->spools[p->n_spools++] = spool;
			else
				spool_err = errno ? errno : EIO;
		}
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			return NULL;
		if (spool_err) {
			snprintf(p->jobs[i].err, sizeof(p->jobs[i].err),
				 "cannot make a temporary file in %s: %s", p->spool_dir,
				 strerror(spool_err));
			p->jobs[i].rc = GS_EXIT_BAD_INPUT;
			continue;
		}
		load_one(&p->jobs[i], p, spool);
	}
}

static int usable_cores(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return 2;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when name ends in ".ref<digits>.db": an untraced reference run's trace
 * (gapscope record --reference), which is no process of the job */
static int is_reference_name(const char *name, size_t len)
{
	size_t i = len - 3; /* at ".db" */

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	return i < len - 3 && i >= 4 && !strncmp(name + i - 4, ".ref", 4);
}

/* every regular *.db in folder dir, sorted by name, appended to the list;
 * untraced reference runs' traces (*.ref<K>.db) are left out, said once */
static int add_dir(const char *verb, const char *dir, char ***list, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *n, refs = 0;

	if (!d) {
		gs_error(dir, "cannot read the folder: %s", strerror(errno));
		return GS_EXIT_BAD_INPUT;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat st;
		char *p;
		if (len < 4 || strcmp(e->d_name + len - 3, ".db") || e->d_name[0] == '.')
			continue;
		if (is_reference_name(e->d_name, len)) {
			refs++;
			continue;
		}
		/* "run/" + name, not "run//name" */
		if (asprintf(&p, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/",
			     e->d_name) < 0)
			goto nomem;
		if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 16;
			char **q = realloc(*list, nc * sizeof(*q));
			if (!q) {
				free(p);
				goto nomem;
			}
			*list = q;
			*cap = nc;
		}
		(*list)[(*n)++] = p;
	}
	closedir(d);
	if (refs)
		fprintf(stderr,
			"gapscope: %s: %zu untraced reference run%s (*.ref<K>.db) left out; "
			"compare one with its traced run: gapscope report TRACE.db --reference "
			"REF.db\n",
			dir, refs, refs == 1 ? "" : "s");
	if (*n == first) {
		gs_error(dir, "no *.db trace in this folder");
		return GS_EXIT_BAD_INPUT;
	}
	qsort(*list + first, *n - first, sizeof(**list), cmp_str);
	return 0;
nomem:
	closedir(d);
	gs_error(verb, "out of memory");
	return GS_EXIT_INTERNAL;
}

static int cmp_trace(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	if (x->t.has_rank != y->t.has_rank)
		return x->t.has_rank ? -1 : 1;
	if (x->t.has_rank && x->t.rank != y->t.rank)
		return x->t.rank < y->t.rank ? -1 : 1;
	if (x->t.pid != y->t.pid)
		return x->t.pid < y->t.pid ? -1 : 1;
	return strcmp(x->path, y->path);
}

void multi_set_free(struct multi_set *s)
{
	size_t i;

	gs_multi_result_free(&s->m);
	for (i = 0; i < s->n; i++) {
		if (s->t)
			gs_multi_trace_free(&s->t[i]);
		if (s->steps)
			free(s->steps[i]);
	}
	free(s->t);
	free(s->steps);
	free(s->gaps);
	for (i = 0; i < s->n_spools; i++)
		fclose(s->spools[i]);
	for (i = 0; i < s->n_files; i++)
		free(s->files[i]);
	free(s->files);
	memset(s, 0, sizeof(*s));
}

int multi_set_load(const char *verb, char *const *paths, size_t n_paths, const char *step_name,
		   const char *comm_range, const char *spool_dir, struct multi_set *s)
{
	struct gs_options opt;
	struct pool p;
	struct gs_multi_rank *ranks = NULL;
	pthread_t th[8];
	char **files = NULL;
	size_t n = 0, cap = 0, i, nth;
	int rc = GS_EXIT_OK, started = 0;

	memset(s, 0, sizeof(*s));
	memset(&p, 0, sizeof(p));
	for (i = 0; i < n_paths; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = add_dir(verb, paths[i], &files, &n, &cap);
			if (rc)
				goto out_files;
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			char **q = realloc(files, nc * sizeof(*q));
			if (!q) {
				gs_error(verb, "out of memory");
				rc = GS_EXIT_INTERNAL;
				goto out_files;
			}
			files = q;
			cap = nc;
		}
		if (!(files[n] = strdup(paths[i]))) {
			gs_error(verb, "out of memory");
			rc = GS_EXIT_INTERNAL;
			goto out_files;
		}
		n++;
	}

	gs_options_init(&opt);
	/* only the verdict's figures are read, and with --csv every gap */
	opt.all_gaps = spool_dir != NULL;
	p.spool_dir = spool_dir;
	p.jobs = calloc(n ? n : 1, sizeof(*p.jobs));
	if (!p.jobs) {
		gs_error(verb, "out of memory");
		rc = GS_EXIT_INTERNAL;
		goto out_files;
	}
	for (i = 0; i < n; i++)
		p.jobs[i].path = files[i];
	p.n = n;
	p.comm_range = comm_range;
	p.opt = &opt;
	pthread_mutex_init(&p.mu, NULL);
	trace_library_init();
	/* each trace_load reads on several threads of its own: half the
	 * cores as workers (2 to 8) keeps them busy without holding more
	 * than that many traces in memory */
	nth = (size_t)usable_cores() / 2;
	if (nth < 2)
		nth = 2;
	if (nth > sizeof(th) / sizeof(th[0]))
		nth = sizeof(th) / sizeof(th[0]);
	if (nth > n)
		nth = n;
	for (i = 0; i < nth; i++) {
		if (pthread_create(&th[i], NULL, worker, &p) != 0)
			break;
		started++;
	}
	if (!started)
		worker(&p);
	for (i = 0; i < (size_t)started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.mu);
	/* the spools belong to the set from now on (closed by multi_set_free) */
	memcpy(s->spools, p.spools, sizeof(s->spools));
	s->n_spools = p.n_spools;
	for (i = 0; i < n; i++)
		if (p.jobs[i].rc) {
			gs_error(p.jobs[i].path, "%s", p.jobs[i].err);
			rc = p.jobs[i].rc;
			goto out;
		}

	qsort(p.jobs, n, sizeof(*p.jobs), cmp_trace);
	s->t = calloc(n ? n : 1, sizeof(*s->t));
	ranks = calloc(n ? n : 1, sizeof(*ranks));
	s->steps = calloc(n ? n : 1, sizeof(*s->steps));
	s->gaps = calloc(n ? n : 1, sizeof(*s->gaps));
	if (!s->t || !ranks || !s->steps || !s->gaps) {
		gs_error(verb, "out of memory");
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
	s->n = n;
	for (i = 0; i < n; i++) {
		s->t[i] = p.jobs[i].t; /* moved: freed through s->t */
		memset(&p.jobs[i].t, 0, sizeof(p.jobs[i].t));
		s->gaps[i] = p.jobs[i].gaps;
	}
	s->clock = gs_multi_align(s->t, n);
	/* traces that ran at different times (not ranks of one job) are not
	 * compared step by step: occurrence i of each is no common step, and
	 * the "straggler" would be the later run */
	s->apart = s->clock == GS_MULTI_CLOCK_NONE ? 0 : gs_multi_apart(s->t, n);
	s->step = step_name ? step_name : gs_multi_pick_step(s->t, n, comm_range);
	for (i = 0; i < n && s->step; i++) {
		ssize_t k = gs_multi_steps(&s->t[i], s->step, &s->steps[i]);
		if (k < 0) {
			gs_error(verb, "out of memory");
			rc = GS_EXIT_INTERNAL;
			goto out;
		}
		ranks[i].steps = s->steps[i];
		ranks[i].n_steps = (size_t)k;
		ranks[i].comm = s->t[i].comm;
		ranks[i].n_comm = s->t[i].n_comm;
		/* the communication intervals are on the trace's clock */
		for (size_t c = 0; c < s->t[i].n_comm; c++) {
			s->t[i].comm[c].start += s->t[i].offset;
			s->t[i].comm[c].end += s->t[i].offset;
		}
	}
	if (gs_multi_compare(ranks, s->step && !s->apart ? n : 0, &s->m) < 0) {
		gs_error(verb, "out of memory");
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
out:
	for (i = 0; i < n; i++)
		gs_multi_trace_free(&p.jobs[i].t);
	free(ranks);
	free(p.jobs);
	/* the paths live as long as the set: the traces point to them */
	s->files = files;
	s->n_files = n;
	if (rc)
		multi_set_free(s);
	return rc;
out_files:
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return rc;
}

int report_multi(char **paths, size_t n_paths, const struct report_multi_opts *o)
{
	struct multi_set s;
	struct multi_report mr;
	struct out_dir od;
	int od_open = 0;
	int rc;

	memset(&od, 0, sizeof(od));
	if (o->csv_dir) {
		/* opened before loading: the gap spools go into its temporary
		 * folder, on the output's disk rather than in memory */
		char err[512];
		if (out_dir_open(&od, o->csv_dir, err, sizeof(err)) < 0) {
			gs_error(o->csv_dir, "%s", err);
			return GS_EXIT_BAD_INPUT;
		}
		od_open = 1;
	}
	rc = multi_set_load("report", paths, n_paths, o->step, o->comm_range,
			    o->csv_dir ? od.tmp : NULL, &s);
	if (rc)
		goto out;
	memset(&mr, 0, sizeof(mr));
	mr.clock = s.clock;
	mr.apart = s.apart;
	mr.t = s.t;
	mr.n = s.n;
	mr.step_name = s.step;
	mr.step_given = o->step != NULL;
	mr.comm_range = o->comm_range;
	mr.m = &s.m;
	mr.top = o->top;
	if (o->csv_dir && gs_cli_sums_check("report")) {
		rc = GS_EXIT_BAD_INPUT; /* a clamped total replaces no old files */
		multi_set_free(&s);
		goto out;
	}
	if (o->csv_dir) {
		char err[512];
		mr.gaps = s.gaps;
		od_open = 0; /* committed or aborted by multi_render_csv */
		if (multi_render_csv(&od, &mr, err, sizeof(err)) < 0) {
			gs_error(o->csv_dir, "%s", err);
			rc = GS_EXIT_BAD_INPUT;
		}
	} else if ((o->json ? multi_render_json(stdout, &mr) : multi_render_text(stdout, &mr)) <
		   0) {
		gs_error("report", "cannot write the report: %s", strerror(errno ? errno : EIO));
		rc = GS_EXIT_INTERNAL;
	}
	multi_set_free(&s);
out:
	if (od_open)
		out_dir_abort(&od);
	return rc;
}
