/*
 * launch_interpose.c - libgs_launch_interpose.so: times every cudaLaunchKernel
 * call of a program from outside the call, untraced or traced, so that what
 * tracing adds to a launch inside a real program (PyTorch's, with its Python
 * and ATen work between launches) can be read directly instead of from a
 * calibration loop of back-to-back launches (issue 18, docs/collector.md
 * "Overhead correction"). `gapscope record --reference` preloads it into
 * the untraced reference runs and stores each process's line in its
 * reference trace (meta reference.launch_*), for the report's correction;
 * bench/ preloads it by hand, untraced and traced.
 *
 *   LD_PRELOAD=libgs_launch_interpose.so GS_INTERPOSE_OUT=launch.txt \
 *       python3 bench/overhead/torch_nosync.py
 *   LD_PRELOAD=... GS_INTERPOSE_OUT=launch.txt gapscope record -- python3 ...
 *
 * It wraps the runtime's launch entry points (cudaLaunchKernel, CUDA 13's
 * __cudaLaunchKernel that <<<>>> compiles to and PyTorch 2.11 calls, their
 * _ptsz forms and cudaLaunchKernelExC), finds the next definition of each
 * (dlsym RTLD_NEXT: the program's libcudart.so) and reads CLOCK_MONOTONIC
 * around each call (two vDSO reads, ~40 ns); a call made inside another is
 * timed once, as the outer one. At exit it appends one line per process
 * that launched to GS_INTERPOSE_OUT (stderr when unset):
 *   launch_interpose pid=P calls=N p25_ns=A p50_ns=B p75_ns=C
 *     spaced=N spaced_p50_ns=D spaced_mean_ns=F b2b=N b2b_p50_ns=E
 *     b2b_mean_ns=G exe=NAME
 * (NAME: the name of the file the process runs, blanks as '_'; preloaded into `gapscope
 * record`, it also times gapscope-calibrate's processes, whose lines come
 * first, and a reader must not take one of them for the program's)
 * where a call is "spaced" when its thread's previous launch ended
 * SPACED_NS or more before it (host work between: the Python loop's case) and
 * "b2b" otherwise; the means leave out calls over MEAN_CAP_NS (a full queue,
 * module loading), as the report's correction caps what a call adds.
 * Durations of the first WARM calls of a process are left out (module
 * loading); a process with WARM or fewer says so in a line of its own.
 * Calls that do not come through the dynamic linker (a statically linked
 * libcudart) are not seen. Before it wrapped __cudaLaunchKernel it saw
 * none of PyTorch 2.11's launches (H100, 2026-12-05).
 * It prints figures; it asserts nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CALLS (1 << 20)
#define SPACED_NS 2000
#define WARM 200
#define MEAN_CAP_NS 30000

struct dim3_abi {
	unsigned x, y, z;
};

static int64_t dur[MAX_CALLS];
static unsigned char spaced[MAX_CALLS];
static atomic_size_t n_calls;
static atomic_int owner; /* the pid of the first call: a forked child does not report */
static _Thread_local int64_t last_end;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* one launch call of the program timed: t0 before, t1 after */
static void note_call(int64_t t0, int64_t t1)
{
	size_t i = atomic_fetch_add(&n_calls, 1);

	if (!i)
		atomic_store(&owner, (int)getpid());
	if (i < MAX_CALLS) {
		dur[i] = t1 - t0;
		spaced[i] = last_end && t0 - last_end >= SPACED_NS;
	}
	last_end = t1;
}

/* Inside a timed call: a launch entry point that calls another through
 * the dynamic linker is timed once, as the outer call. */
static _Thread_local int depth;

/* the next definition of name (the program's libcudart), looked up once */
static void *next_fn(void *volatile *slot, const char *name)
{
	void *f = *slot;

	if (!f)
		*slot = f = dlsym(RTLD_NEXT, name);
	return f;
}

/* A wrapper for the launch entry point NAME, whose arguments PARAMS are
 * passed on as ARGS; CUDA 13's <<<>>> calls __cudaLaunchKernel (a
 * cudaKernel_t first), which CUPTI reports as cudaLaunchKernel. */
#define WRAP(name, params, args)                                                                   \
	int name params;                                                                           \
	int name params                                                                            \
	{                                                                                          \
		static void *volatile slot;                                                        \
		int(*next) params = (int(*) params)next_fn(&slot, #name);                          \
		int64_t t0, t1;                                                                    \
		int rc;                                                                            \
                                                                                                   \
		if (!next)                                                                         \
			return 1; /* cudaErrorInvalidValue: no runtime behind us */                \
		if (depth)                                                                         \
			return next args;                                                          \
		depth = 1;                                                                         \
		t0 = now_ns();                                                                     \
		rc = next args;                                                                    \
		t1 = now_ns();                                                                     \
		depth = 0;                                                                         \
		note_call(t0, t1);                                                                 \
		return rc;                                                                         \
	}

#define LAUNCH_PARAMS                                                                              \
	(const void *f, struct dim3_abi g, struct dim3_abi b, void **a, size_t sh, void *s)
#define LAUNCH_ARGS (f, g, b, a, sh, s)

WRAP(cudaLaunchKernel, LAUNCH_PARAMS, LAUNCH_ARGS)
WRAP(cudaLaunchKernel_ptsz, LAUNCH_PARAMS, LAUNCH_ARGS)
WRAP(__cudaLaunchKernel, LAUNCH_PARAMS, LAUNCH_ARGS)
WRAP(__cudaLaunchKernel_ptsz, LAUNCH_PARAMS, LAUNCH_ARGS)
/* (const cudaLaunchConfig_t *config, const void *func, void **args) */
WRAP(cudaLaunchKernelExC, (const void *cfg, const void *f, void **a), (cfg, f, a))
WRAP(cudaLaunchKernelExC_ptsz, (const void *cfg, const void *f, void **a), (cfg, f, a))

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* the q-quantile of v[0..n), sorted in place; 0 if empty */
static int64_t quant(int64_t *v, size_t n, double q)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp);
	return v[(size_t)(q * (double)(n - 1))];
}

/* the mean of the values of v[0..n) up to MEAN_CAP_NS; 0 if none */
static long long capped_mean(const int64_t *v, size_t n)
{
	int64_t sum = 0;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i] <= MEAN_CAP_NS) {
			sum += v[i];
			k++;
		}
	return k ? (long long)(sum / (int64_t)k) : 0;
}

__attribute__((destructor)) static void report(void)
{
	size_t n = atomic_load(&n_calls), i, ns = 0, nb = 0;
	const char *path = getenv("GS_INTERPOSE_OUT");
	int64_t *a, *sp, *bb, p25, p50, p75;
	char exe[64];
	FILE *f;

	if (n > MAX_CALLS)
		n = MAX_CALLS;
	if (n && atomic_load(&owner) != (int)getpid())
		return; /* a forked child: its parent reports */
	if (n <= WARM) {
		/* say so rather than print nothing (a runtime linked
		 * statically, an entry point not wrapped here) */
		f = path && *path ? fopen(path, "a") : NULL;
		fprintf(f ? f : stderr,
			"launch_interpose pid=%d calls=%zu: too few launches came through the "
			"dynamic linker's launch entry points to time (a runtime linked "
			"statically?)\n",
			(int)getpid(), n);
		if (f)
			fclose(f);
		return;
	}
	a = malloc(3 * (n - WARM) * sizeof(*a));
	if (!a)
		return;
	sp = a + (n - WARM);
	bb = sp + (n - WARM);
	for (i = WARM; i < n; i++) {
		a[i - WARM] = dur[i];
		if (spaced[i])
			sp[ns++] = dur[i];
		else
			bb[nb++] = dur[i];
	}
	p25 = quant(a, n - WARM, 0.25);
	p50 = quant(a, n - WARM, 0.5);
	p75 = quant(a, n - WARM, 0.75);
	/* the file it runs, not the name it was started by: gapscope-calibrate
	 * runs its rounds as /proc/self/exe, whose short name is "exe" (H100,
	 * 2026-12-05) */
	{
		char self[4096];
		ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
		const char *b = program_invocation_short_name;
		if (k > 0) {
			self[k] = '\0';
			b = strrchr(self, '/') ? strrchr(self, '/') + 1 : self;
		}
		snprintf(exe, sizeof(exe), "%.63s", b && *b ? b : "?");
	}
	/* one word: the reader splits on blanks */
	for (i = 0; exe[i]; i++)
		if (exe[i] == ' ' || exe[i] == '\t' || exe[i] == '\n')
			exe[i] = '_';
	f = path && *path ? fopen(path, "a") : NULL;
	fprintf(f ? f : stderr,
		"launch_interpose pid=%d calls=%zu p25_ns=%lld p50_ns=%lld p75_ns=%lld spaced=%zu "
		"spaced_p50_ns=%lld spaced_mean_ns=%lld b2b=%zu b2b_p50_ns=%lld b2b_mean_ns=%lld "
		"exe=%s\n",
		(int)getpid(), n - WARM, (long long)p25, (long long)p50, (long long)p75, ns,
		(long long)quant(sp, ns, 0.5), capped_mean(sp, ns), nb,
		(long long)quant(bb, nb, 0.5), capped_mean(bb, nb), exe);
	if (f)
		fclose(f);
	free(a);
}
