/*
 * launch_interpose.c - libgs_launch_interpose.so: times every cudaLaunchKernel
 * call of a program from outside the call, untraced or traced, so that what
 * tracing adds to a launch inside a real program (PyTorch's, with its Python
 * and ATen work between launches) can be read directly instead of from a
 * calibration loop of back-to-back launches (issue 18, docs/collector.md
 * "Overhead correction").
 *
 *   LD_PRELOAD=libgs_launch_interpose.so GS_INTERPOSE_OUT=launch.txt \
 *       python3 bench/torch_nosync.py
 *   LD_PRELOAD=... GS_INTERPOSE_OUT=launch.txt gapscope record -- python3 ...
 *
 * It finds the next cudaLaunchKernel (dlsym RTLD_NEXT: the program's
 * libcudart.so) and reads CLOCK_MONOTONIC around each call (two vDSO reads,
 * ~40 ns). At exit it appends one line per process that launched to
 * GS_INTERPOSE_OUT (stderr when unset):
 *   launch_interpose pid=P calls=N p25_ns=A p50_ns=B p75_ns=C
 *     spaced=N spaced_p50_ns=D b2b=N b2b_p50_ns=E
 * where a call is "spaced" when its thread's previous launch ended
 * SPACED_NS or more before it (host work between: the Python loop's case) and
 * "b2b" otherwise. Durations of the first WARM calls of a process are left
 * out (module loading); a process with WARM or fewer says so in a line of its
 * own. Calls that do not come through the dynamic linker (a statically
 * linked libcudart) are not seen: preloaded into PyTorch 2.11 programs on an
 * H100 (2026-12-05) it saw none of their launches.
 * It prints figures; it asserts nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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

struct dim3_abi {
	unsigned x, y, z;
};
typedef int (*launch_fn)(const void *, struct dim3_abi, struct dim3_abi, void **, size_t, void *);

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

int cudaLaunchKernel(const void *f, struct dim3_abi g, struct dim3_abi b, void **args, size_t sh,
		     void *s);
int cudaLaunchKernel(const void *f, struct dim3_abi g, struct dim3_abi b, void **args, size_t sh,
		     void *s)
{
	static launch_fn next;
	int64_t t0, t1;
	size_t i;
	int rc;

	if (!next)
		next = (launch_fn)dlsym(RTLD_NEXT, "cudaLaunchKernel");
	if (!next)
		return 1; /* cudaErrorInvalidValue: no runtime behind us */
	t0 = now_ns();
	rc = next(f, g, b, args, sh, s);
	t1 = now_ns();
	i = atomic_fetch_add(&n_calls, 1);
	if (!i)
		atomic_store(&owner, (int)getpid());
	if (i < MAX_CALLS) {
		dur[i] = t1 - t0;
		spaced[i] = last_end && t0 - last_end >= SPACED_NS;
	}
	last_end = t1;
	return rc;
}

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

__attribute__((destructor)) static void report(void)
{
	size_t n = atomic_load(&n_calls), i, ns = 0, nb = 0;
	const char *path = getenv("GS_INTERPOSE_OUT");
	int64_t *a, *sp, *bb, p25, p50, p75;
	FILE *f;

	if (n > MAX_CALLS)
		n = MAX_CALLS;
	if (n && atomic_load(&owner) != (int)getpid())
		return; /* a forked child: its parent reports */
	if (n <= WARM) {
		/* say so rather than print nothing (PyTorch 2.11's launches
		 * never came here) */
		f = path && *path ? fopen(path, "a") : NULL;
		fprintf(
		    f ? f : stderr,
		    "launch_interpose pid=%d calls=%zu: too few launches came through the "
		    "dynamic linker's cudaLaunchKernel to time (a runtime linked statically?)\n",
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
	f = path && *path ? fopen(path, "a") : NULL;
	fprintf(f ? f : stderr,
		"launch_interpose pid=%d calls=%zu p25_ns=%lld p50_ns=%lld p75_ns=%lld spaced=%zu "
		"spaced_p50_ns=%lld b2b=%zu b2b_p50_ns=%lld\n",
		(int)getpid(), n - WARM, (long long)p25, (long long)p50, (long long)p75, ns,
		(long long)quant(sp, ns, 0.5), nb, (long long)quant(bb, nb, 0.5));
	if (f)
		fclose(f);
	free(a);
}
