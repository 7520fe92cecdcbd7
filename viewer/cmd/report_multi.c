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
 * (viewer/render/multi_text.c, multi_json.c). Bad input in any trace: one
 * line naming it, exit 2, nothing printed on standard output.
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
#include "report_multi.h"
#include "trace_load.h"

struct job {
	const char *path;
	struct gs_multi_trace t;
	int rc; /* GS_EXIT_* */
	char err[512];
};

struct pool {
	struct job *jobs;
	size_t n;
	size_t next; /* under mu */
	pthread_mutex_t mu;
	const char *comm_range;
	const struct gs_options *opt;
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

/* the rank as the collector recorded it (docs/schema.md, meta env.*) */
static const char *const rank_keys[] = {"env.RANK", "env.OMPI_COMM_WORLD_RANK", "env.PMI_RANK",
					"env.SLURM_PROCID", "env.LOCAL_RANK"};

static void load_one(struct job *j, const struct pool *p)
{
	struct trace tr;
	struct gs_input in;
	struct gs_result res;
	size_t k;
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
	if (in.n_ops == 0) {
		snprintf(j->err, sizeof(j->err),
			 "no GPU activity in this trace (no kernels, memcpys or memsets); was the "
			 "program's CUDA work recorded?");
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
	gs_result_free(&res);
	if (rc < 0) {
		snprintf(j->err, sizeof(j->err), "out of memory");
		j->rc = GS_EXIT_INTERNAL;
		goto out;
	}
	j->t.rank = -1;
	for (k = 0; k < sizeof(rank_keys) / sizeof(rank_keys[0]) && !j->t.has_rank; k++)
		j->t.has_rank = meta_int(&tr, rank_keys[k], &j->t.rank);
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

	for (;;) {
		size_t i;
		pthread_mutex_lock(&p->mu);
		i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->n)
			return NULL;
		load_one(&p->jobs[i], p);
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

/* every regular *.db in folder dir, sorted by name, appended to the list */
static int add_dir(const char *dir, char ***list, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = *n;

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
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
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
	if (*n == first) {
		gs_error(dir, "no *.db trace in this folder");
		return GS_EXIT_BAD_INPUT;
	}
	qsort(*list + first, *n - first, sizeof(**list), cmp_str);
	return 0;
nomem:
	closedir(d);
	gs_error("report", "out of memory");
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

int report_multi(char **paths, size_t n_paths, const struct report_multi_opts *o)
{
	struct gs_options opt;
	struct pool p;
	struct gs_multi_trace *t = NULL;
	struct gs_multi_rank *ranks = NULL;
	struct gs_multi_iv **steps = NULL;
	struct gs_multi_result m;
	struct multi_report mr;
	pthread_t th[8];
	char **files = NULL;
	size_t n = 0, cap = 0, i, nth;
	int rc = GS_EXIT_OK, started = 0;
	const char *step;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < n_paths; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = add_dir(paths[i], &files, &n, &cap);
			if (rc)
				goto out_files;
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			char **q = realloc(files, nc * sizeof(*q));
			if (!q) {
				gs_error("report", "out of memory");
				rc = GS_EXIT_INTERNAL;
				goto out_files;
			}
			files = q;
			cap = nc;
		}
		if (!(files[n] = strdup(paths[i]))) {
			gs_error("report", "out of memory");
			rc = GS_EXIT_INTERNAL;
			goto out_files;
		}
		n++;
	}

	gs_options_init(&opt);
	opt.all_gaps = 0; /* only the verdict's figures are read */
	memset(&p, 0, sizeof(p));
	p.jobs = calloc(n, sizeof(*p.jobs));
	if (!p.jobs) {
		gs_error("report", "out of memory");
		rc = GS_EXIT_INTERNAL;
		goto out_files;
	}
	for (i = 0; i < n; i++)
		p.jobs[i].path = files[i];
	p.n = n;
	p.comm_range = o->comm_range;
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
	for (i = 0; i < n; i++)
		if (p.jobs[i].rc) {
			gs_error(p.jobs[i].path, "%s", p.jobs[i].err);
			rc = p.jobs[i].rc;
			goto out;
		}

	qsort(p.jobs, n, sizeof(*p.jobs), cmp_trace);
	t = calloc(n, sizeof(*t));
	ranks = calloc(n, sizeof(*ranks));
	steps = calloc(n, sizeof(*steps));
	if (!t || !ranks || !steps) {
		gs_error("report", "out of memory");
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		t[i] = p.jobs[i].t; /* moved: freed through t below */
		memset(&p.jobs[i].t, 0, sizeof(p.jobs[i].t));
	}
	memset(&mr, 0, sizeof(mr));
	mr.clock = gs_multi_align(t, n);
	step = o->step ? o->step : gs_multi_pick_step(t, n, o->comm_range);
	for (i = 0; i < n && step; i++) {
		ssize_t k = gs_multi_steps(&t[i], step, &steps[i]);
		if (k < 0) {
			gs_error("report", "out of memory");
			rc = GS_EXIT_INTERNAL;
			goto out;
		}
		ranks[i].steps = steps[i];
		ranks[i].n_steps = (size_t)k;
		ranks[i].comm = t[i].comm;
		ranks[i].n_comm = t[i].n_comm;
		/* the communication intervals are on the trace's clock */
		for (size_t c = 0; c < t[i].n_comm; c++) {
			t[i].comm[c].start += t[i].offset;
			t[i].comm[c].end += t[i].offset;
		}
	}
	if (gs_multi_compare(ranks, step ? n : 0, &m) < 0) {
		gs_error("report", "out of memory");
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
	mr.t = t;
	mr.n = n;
	mr.step_name = step;
	mr.step_given = o->step != NULL;
	mr.comm_range = o->comm_range;
	mr.m = &m;
	mr.top = o->top;
	if (o->csv_dir) {
		char err[512];
		if (multi_render_csv(o->csv_dir, &mr, err, sizeof(err)) < 0) {
			gs_error(o->csv_dir, "%s", err);
			rc = GS_EXIT_BAD_INPUT;
		}
	} else if ((o->json ? multi_render_json(stdout, &mr) : multi_render_text(stdout, &mr)) <
		   0) {
		gs_error("report", "cannot write the report: %s", strerror(errno ? errno : EIO));
		rc = GS_EXIT_INTERNAL;
	}
out:
	gs_multi_result_free(&m);
	for (i = 0; i < n; i++) {
		if (t)
			gs_multi_trace_free(&t[i]);
		gs_multi_trace_free(&p.jobs[i].t);
		if (steps)
			free(steps[i]);
	}
	free(t);
	free(ranks);
	free(steps);
	free(p.jobs);
out_files:
	for (i = 0; i < n; i++)
		free(files[i]);
	free(files);
	return rc;
}
