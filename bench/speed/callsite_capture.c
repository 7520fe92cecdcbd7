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
 * rounds) and the median of the per-round ratios libunwind / libgcc. Where
 * libunwind.so.8 does not load, only libgcc's figures are printed.
 *
 * Then, in the same rounds, the capture as the collector takes it now
 * (gs_native_frames_cached: the per-thread stack cache, GAPSCOPE_STACK_CACHE)
 * from one call site, as a loop's sync makes it: the first capture walks,
 * the others check the cached slots. Columns "cached" (with libgcc as the
 * unwinder) and "cached/libgcc" (median of the per-round ratios), and
 * "same": whether the cached frames (and libunwind's) are the ones
 * libgcc's walk gives, as many, the same addresses (frame 0, each call's
 * own return address, left out). It prints figures; it asserts
 * nothing.
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

/* `depth` frames of this program, then `n` captures from the innermost,
 * walked (cached 0) or through the stack cache (cached 1) */
static __attribute__((noinline)) int walk_at(int depth, int n, int cached, struct gs_callsite *cs)
{
	int r = 0, i;

	if (depth > 0) {
		r = walk_at(depth - 1, n, cached, cs);
		sink += r; /* no tail call: each level stays a frame */
		return r;
	}
	for (i = 0; i < n; i++)
		r += cached ? gs_native_frames_cached(cs, 1, 7) : gs_native_frames(cs, 1);
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

/* ns per capture of n captures at depth, with unwinder u; the last
 * capture's frames in *out */
static __attribute__((noinline)) double time_captures(int u, int cached, int depth, int n,
						      struct gs_callsite *out)
{
	double t0;

	gs_callsite_set_unwinder(u, NULL);
	memset(out, 0, sizeof(*out));
	walk_at(depth, n / 10 + 1, cached, out); /* warm: caches, page faults */
	t0 = now_ns();
	walk_at(depth, n, cached, out);
	return (now_ns() - t0) / n;
}

/* as many frames, and the same frames from 1 (frame 0 is each capture's
 * own call) up to the return into time_captures (depth + 1); main's
 * frame differs where the compiler made one call site of it per variant */
static int same_frames(const struct gs_callsite *a, const struct gs_callsite *b, int depth)
{
	int k = a->n_native < depth + 2 ? a->n_native : depth + 2;

	return a->n_native == b->n_native && a->n_native > 1 &&
	       !memcmp(a->native + 1, b->native + 1, (size_t)(k - 1) * sizeof(a->native[0]));
}

int main(int argc, char **argv)
{
	static const int depths[] = {4, 8, 16, 32, 64};
	static struct gs_callsite g, u, c; /* large: not on the stack */
	int captures = argc > 1 ? atoi(argv[1]) : 20000, rounds = argc > 2 ? atoi(argv[2]) : 7;
	int have_unw;
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
	printf("%-6s %-8s %-5s %-9s %-5s %-9s %-8s %-14s %s\n", "depth", "libgcc", "kept",
	       "libunwind", "kept", "unw/gcc", "cached", "cached/libgcc", "same");
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		double tg[MAX_ROUNDS], tu[MAX_ROUNDS], tc[MAX_ROUNDS], ratio[MAX_ROUNDS],
		    cratio[MAX_ROUNDS];
		int r, k, same = 1;

		for (r = 0; r < rounds; r++) {
			/* one call site for the three: the frames compared
			 * below are the same callers */
			for (k = 0; k < 3; k++) {
				double t;
				if (k == 2 && !have_unw)
					break;
				t = time_captures(k == 2 ? GS_UNWIND_LIBUNWIND : GS_UNWIND_LIBGCC,
						  k == 1, depths[d], captures,
						  k == 0   ? &g
						  : k == 1 ? &c
							   : &u);
				(k == 0 ? tg : k == 1 ? tc : tu)[r] = t;
			}
			cratio[r] = tc[r] / tg[r];
			same &= same_frames(&g, &c, depths[d]);
			if (have_unw) {
				ratio[r] = tu[r] / tg[r];
				same &= same_frames(&g, &u, depths[d]);
			}
		}
		if (have_unw)
			printf("%-6d %-8.0f %-5d %-9.0f %-5d %-9.3f", depths[d], median(tg, rounds),
			       g.n_native, median(tu, rounds), u.n_native, median(ratio, rounds));
		else
			printf("%-6d %-8.0f %-5d %-9s %-5s %-9s", depths[d], median(tg, rounds),
			       g.n_native, "-", "-", "-");
		printf(" %-8.1f %-14.4f %s\n", median(tc, rounds), median(cratio, rounds),
		       same ? "yes" : "NO");
	}
	if (!have_unw)
		printf("# libunwind.so.8 does not load here: libgcc's unwinder only\n");
	printf("# native walks made by the cached captures: %llu\n",
	       (unsigned long long)gs_callsite_walks());
	return 0;
}
