/*
 * sampler.c - where one thread's time goes, by shared library and symbol: a
 * wall-clock sampler for machines without perf (the H200 has none), used to
 * find what tracing adds to a program's launching thread (bench/README.md).
 *
 * Built as libgs_sampler.so and preloaded:
 *   LD_PRELOAD=libgs_sampler.so GS_SAMPLER_OUT=prof.txt python3 bench/overhead/torch_nosync.py --sample
 * The program calls gs_sampler_start() on the thread to sample (Python:
 * ctypes.CDLL(None).gs_sampler_start()) and gs_sampler_stop() when done. In
 * between, a POSIX timer on CLOCK_MONOTONIC signals that thread every
 * GS_SAMPLER_US microseconds (default 50); the handler stores the thread's
 * program counter and, with GS_SAMPLER_DEPTH > 1, the return addresses above
 * it (backtrace(3)). At stop it names each address with dladdr(3) and writes
 * to GS_SAMPLER_OUT (default stderr), in samples and in microseconds:
 *   per library of the leaf frame, the leaf symbols (top 40), and, with
 *   depth, per library anywhere on the stack (each sample counted once) and,
 *   for GS_SAMPLER_LIB (default libcupti), what called into it: the frame
 *   just above its outermost frame, as library:symbol, and the call it was
 *   entered through: the first frame above it outside it and libcuda.so
 *   (e.g. libcudart.so:cudaGetDevice).
 * Symbols are the nearest exported ones: inside a stripped library such as
 * libcupti.so they name an entry point near the code, not the function.
 * A figure printer, it asserts nothing; it is not part of the product.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_SAMPLES (1 << 20)
#define MAX_DEPTH 24

static void **pcs; /* MAX_SAMPLES * depth addresses, 0 past a stack's end */
static volatile size_t n_samples;
static int depth = 1;
static long interval_us = 50;
static timer_t timer;
static int running;

static void on_sample(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	size_t i = n_samples;
	void **row;

	(void)sig;
	(void)si;
	if (i >= MAX_SAMPLES)
		return;
	row = pcs + i * (size_t)depth;
	row[0] = (void *)uc->uc_mcontext.gregs[REG_RIP];
	if (depth > 1) {
		void *bt[MAX_DEPTH + 2];
		/* frames 0-1 are this handler and the signal trampoline */
		int n = backtrace(bt, depth + 2), k;
		for (k = 2; k < n && k - 1 < depth; k++)
			row[k - 1] = bt[k];
	}
	n_samples = i + 1;
}

int gs_sampler_start(void)
{
	struct sigaction sa;
	struct sigevent sev;
	struct itimerspec its;
	const char *v;

	if (running)
		return 0;
	if ((v = getenv("GS_SAMPLER_US")) && atol(v) > 0)
		interval_us = atol(v);
	if ((v = getenv("GS_SAMPLER_DEPTH")) && atoi(v) > 0)
		depth = atoi(v) > MAX_DEPTH ? MAX_DEPTH : atoi(v);
	pcs = calloc((size_t)MAX_SAMPLES * depth, sizeof(void *));
	if (!pcs)
		return -1;
	if (depth > 1) {
		void *warm[2];
		backtrace(warm, 2); /* loads libgcc_s outside the handler */
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) != 0)
		return -1;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0)
		return -1;
	its.it_interval.tv_sec = 0;
	its.it_interval.tv_nsec = interval_us * 1000;
	its.it_value = its.it_interval;
	if (timer_settime(timer, 0, &its, NULL) != 0)
		return -1;
	running = 1;
	return 0;
}

struct count {
	const char *name; /* library basename, or "lib:symbol" */
	size_t n;
};

static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "?";
}

static void add(struct count **c, size_t *nc, size_t *cap, const char *name)
{
	size_t i;

	for (i = 0; i < *nc; i++)
		if (strcmp((*c)[i].name, name) == 0) {
			(*c)[i].n++;
			return;
		}
	if (*nc == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*c = realloc(*c, *cap * sizeof(**c));
		if (!*c)
			exit(70);
	}
	(*c)[*nc].name = strdup(name);
	(*c)[(*nc)++].n = 1;
}

static int by_count(const void *a, const void *b)
{
	size_t x = ((const struct count *)a)->n, y = ((const struct count *)b)->n;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void print(FILE *f, const char *title, struct count *c, size_t nc, size_t top)
{
	size_t i;

	qsort(c, nc, sizeof(*c), by_count);
	fprintf(f, "%s\n", title);
	for (i = 0; i < nc && i < top; i++)
		fprintf(f, "  %8zu  %10.0f us  %5.1f%%  %s\n", c[i].n, (double)c[i].n * interval_us,
			100.0 * c[i].n / n_samples, c[i].name);
}

int gs_sampler_stop(void)
{
	struct count *libs = NULL, *syms = NULL, *stack = NULL, *callers = NULL, *entries = NULL;
	size_t nl = 0, ns = 0, nk = 0, nc = 0, ne = 0, cl = 0, cs = 0, ck = 0, cc = 0, ce = 0, i;
	const char *out = getenv("GS_SAMPLER_OUT");
	const char *watch = getenv("GS_SAMPLER_LIB") ? getenv("GS_SAMPLER_LIB") : "libcupti";
	FILE *f = out ? fopen(out, "a") : stderr;

	if (!running)
		return -1;
	timer_delete(timer);
	running = 0;
	if (!f)
		f = stderr;
	for (i = 0; i < n_samples; i++) {
		void **row = pcs + i * (size_t)depth;
		Dl_info di;
		char name[512];
		const char *seen[MAX_DEPTH];
		int k, j, nseen = 0, outer = -1;

		if (dladdr(row[0], &di) && di.dli_fname) {
			add(&libs, &nl, &cl, base(di.dli_fname));
			snprintf(name, sizeof(name), "%s:%s", base(di.dli_fname),
				 di.dli_sname ? di.dli_sname : "?");
		} else {
			add(&libs, &nl, &cl, "?");
			snprintf(name, sizeof(name), "?");
		}
		add(&syms, &ns, &cs, name);
		for (k = 0; k < depth && row[k]; k++) {
			const char *lib =
			    dladdr(row[k], &di) && di.dli_fname ? base(di.dli_fname) : "?";
			for (j = 0; j < nseen && strcmp(seen[j], lib) != 0; j++)
				;
			if (j == nseen) {
				seen[nseen++] = lib;
				add(&stack, &nk, &ck, lib);
			}
			if (strstr(lib, watch))
				outer = k;
		}
		if (outer >= 0 && outer + 1 < depth && row[outer + 1]) {
			if (dladdr(row[outer + 1], &di) && di.dli_fname)
				snprintf(name, sizeof(name), "%s:%s", base(di.dli_fname),
					 di.dli_sname ? di.dli_sname : "?");
			else
				snprintf(name, sizeof(name), "?");
			add(&callers, &nc, &cc, name);
			/* the call the program made: the first frame above the
			 * watched library that is neither it nor the driver */
			for (k = outer + 1; k < depth && row[k]; k++) {
				const char *lib =
				    dladdr(row[k], &di) && di.dli_fname ? base(di.dli_fname) : "?";
				if (strstr(lib, watch) || strstr(lib, "libcuda.so"))
					continue;
				snprintf(name, sizeof(name), "%s:%s", lib,
					 di.dli_sname ? di.dli_sname : "?");
				add(&entries, &ne, &ce, name);
				break;
			}
		}
	}
	fprintf(f, "samples %zu interval_us %ld depth %d\n", (size_t)n_samples, interval_us, depth);
	print(f, "leaf library:", libs, nl, 30);
	print(f, "leaf symbol:", syms, ns, 40);
	if (depth > 1) {
		print(f, "library anywhere on the stack:", stack, nk, 30);
		fprintf(f, "called into %s from:\n", watch);
		print(f, "", callers, nc, 30);
		fprintf(f, "entered through (first frame above %s outside the driver):\n", watch);
		print(f, "", entries, ne, 30);
	}
	if (f != stderr)
		fclose(f);
	return 0;
}
