/*
 * callsite_capture.c - what the native part of a call-site capture costs
 * (collector/callsite.c, gs_native_frames), with libgcc's unwinder and with
 * libunwind's, on stacks of a chosen depth.
 *
 * The collector captures the stack at the entry of every blocking CUDA call
 * (a sync, a synchronous copy, a malloc): in a loop that launches and
 * synchronises, that capture is on the host's critical path whenever the
 * GPU is done first. The stack there is CUPTI's, the driver's and the
 * runtime's frames (about ten, dropped), then the program's (16 kept).
 * Here the stack is this program's own recursion, `depth` frames deep
 * (plus main and libc's start-up), walked from the innermost frame the way
 * the callback walks it; with libgcc's unwinder the walk stops after 16
 * frames kept, libunwind's goes on to 48 at most.
 *
 * For each depth, rounds alternate the two unwinders (each round times
 * `captures` walks); printed: ns per capture of each (median over the
 * rounds) and the median of the per-round ratios libunwind / libgcc. It
 * prints figures; it asserts nothing. Where libunwind.so.8 does not load,
 * only libgcc's figures are printed.
 *
 * usage: callsite_capture [captures per round (default 20000)] [rounds (default 7)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callsite.h"
#include "internal.h"

#define MAX_ROUNDS 51

static volatile int sink;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* `depth` frames of this program, then `n` captures from the innermost */
static __attribute__((noinline)) int walk_at(int depth, int n, struct gs_callsite *cs)
{
	int r = 0, i;

	if (depth > 0) {
		r = walk_at(depth - 1, n, cs);
		sink += r; /* no tail call: each level stays a frame */
		return r;
	}
	for (i = 0; i < n; i++)
		r += gs_native_frames(cs, 1);
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ns per capture of n captures at depth, with unwinder u */
static double time_captures(int u, int depth, int n, int *kept)
{
	struct gs_callsite cs;
	double t0;

	gs_callsite_set_unwinder(u, NULL);
	memset(&cs, 0, sizeof(cs));
	walk_at(depth, n / 10 + 1, &cs); /* warm: caches, page faults */
	t0 = now_ns();
	walk_at(depth, n, &cs);
	*kept = cs.n_native;
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	static const int depths[] = {4, 8, 16, 32, 64};
	int captures = argc > 1 ? atoi(argv[1]) : 20000, rounds = argc > 2 ? atoi(argv[2]) : 7;
	int have_unw, kept_gcc = 0, kept_unw = 0;
	size_t d;

	if (captures < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: callsite_capture [captures >= 1] [rounds 1..%d]\n",
			MAX_ROUNDS);
		return 2;
	}
	gs_log_set_level(GS_LOG_WARN);
	gs_callsite_init(GS_CS_SYNCS);
	have_unw = gs_callsite_set_unwinder(GS_UNWIND_AUTO, NULL) == GS_UNWIND_LIBUNWIND;
	printf("# native call-site capture, ns per capture (median of %d rounds of %d)\n", rounds,
	       captures);
	printf("%-6s %-10s %-12s %-10s %-14s %s\n", "depth", "libgcc", "kept", "libunwind",
	       "kept", "libunwind/libgcc");
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		double g[MAX_ROUNDS], u[MAX_ROUNDS], ratio[MAX_ROUNDS];
		int r;

		for (r = 0; r < rounds; r++) {
			g[r] = time_captures(GS_UNWIND_LIBGCC, depths[d], captures, &kept_gcc);
			if (have_unw) {
				u[r] = time_captures(GS_UNWIND_LIBUNWIND, depths[d], captures,
						     &kept_unw);
				ratio[r] = u[r] / g[r];
			}
		}
		if (have_unw)
			printf("%-6d %-10.0f %-12d %-10.0f %-14d %.3f\n", depths[d],
			       median(g, rounds), kept_gcc, median(u, rounds), kept_unw,
			       median(ratio, rounds));
		else
			printf("%-6d %-10.0f %-12d %-10s %-14s %s\n", depths[d], median(g, rounds),
			       kept_gcc, "-", "-", "(libunwind.so.8 does not load)");
	}
	return 0;
}
