/*
 * analysis_util.c - small pure helpers of the analysis library: string
 * lookup, API-name classification, nearest-rank percentiles (quickselect),
 * names of causes, option defaults. No I/O.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analysis_int.h"

const char *gs_str(const struct gs_strings *s, uint32_t id, const char *dflt)
{
	if (!s || id == 0 || id >= s->n || !s->v || !s->v[id])
		return dflt;
	return s->v[id];
}

static int has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

uint8_t gs_api_classify(const char *name)
{
	uint8_t f = GS_APIF_CLASSIFIED;

	if (!name)
		return f;
	/* Host functions and callbacks are enqueued on a stream but run on the
	 * host: they start with "cudaLaunch"/"cuLaunch" too, so test first. */
	if (has_prefix(name, "cudaLaunchHostFunc") || has_prefix(name, "cuLaunchHostFunc") ||
	    has_prefix(name, "cudaStreamAddCallback") || has_prefix(name, "cuStreamAddCallback"))
		return f | GS_APIF_HOST_FUNC;
	if (has_prefix(name, "cudaLaunchKernel") || has_prefix(name, "cuLaunchKernel") ||
	    has_prefix(name, "cudaLaunchCooperativeKernel") ||
	    has_prefix(name, "cuLaunchCooperativeKernel") ||
	    has_prefix(name, "cudaLaunchCooperativeKernelMultiDevice"))
		return f | GS_APIF_LAUNCH | GS_APIF_KERNEL_LAUNCH;
	if (has_prefix(name, "cudaLaunch") || has_prefix(name, "cuLaunch") ||
	    has_prefix(name, "cudaGraphLaunch") || has_prefix(name, "cuGraphLaunch") ||
	    has_prefix(name, "cudaMemcpy") || has_prefix(name, "cuMemcpy") ||
	    has_prefix(name, "cudaMemset") || has_prefix(name, "cuMemset") ||
	    has_prefix(name, "cudaMemPrefetch") || has_prefix(name, "cuMemPrefetch"))
		return f | GS_APIF_LAUNCH;
	return f;
}

const char *gs_cause_name(int cause)
{
	static const char *const names[GS_CAUSE_COUNT] = {"sync-bound", "launch-bound",
							  "dependency", "launch-latency", "other"};
	return cause >= 0 && cause < GS_CAUSE_COUNT ? names[cause] : "unknown";
}

void gs_options_init(struct gs_options *o)
{
	memset(o, 0, sizeof(*o));
	o->range_name = NULL;
	o->top_n = GS_DEFAULT_TOP_N;
	o->graph_node_overhead_ns = -1;
	o->launch_cost_ns = -1;
	o->correct_instrumentation = 1;
	o->all_gaps = 1;
}

static void swap64(int64_t *a, int64_t *b)
{
	int64_t t = *a;
	*a = *b;
	*b = t;
}

/* Put the k-th smallest of v[0..n) at v[k], smaller-or-equal before it and
 * greater-or-equal after (Hoare partition, median of three). */
static void select_kth(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2, i, j;
		int64_t pivot;

		if (v[mid] < v[lo])
			swap64(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap64(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swap64(&v[hi], &v[mid]);
		pivot = v[mid];
		i = lo;
		j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap64(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		/* now v[lo..j] <= pivot <= v[i..hi], and j < i */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return; /* j < k < i: v[k] == pivot */
	}
}

/* Rank (1-based) of nearest-rank percentile p of n samples: ceil(p*n/100),
 * at least 1. Computed in integers for whole-number p so that e.g. p90 of
 * 10 samples is rank 9 exactly, not 10 by a rounding error. */
static size_t nearest_rank(double p, size_t n)
{
	size_t k;

	if (p == floor(p) && p > 0 && p <= 100) {
		unsigned long long pi = (unsigned long long)p;
		k = (size_t)((pi * (unsigned long long)n + 99) / 100);
	} else {
		k = (size_t)ceil(p * (double)n / 100.0);
	}
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return k;
}

int64_t gs_percentile(int64_t *v, size_t n, double p)
{
	size_t k;

	if (n == 0)
		return 0;
	k = nearest_rank(p, n) - 1;
	select_kth(v, n, k);
	return v[k];
}

/* Value of rank k (0-based) of v[0..n), all in [min, min + (NB << shift)):
 * by the histogram of (v - min) >> shift, counts[NB]. The bucket holding
 * rank k is moved to the front of v and selected in; with shift 0 a
 * bucket holds one value and is the answer. Reorders v. */
#define DIST_BUCKETS 4096
static int64_t hist_rank(int64_t *v, size_t n, size_t k, int64_t min, unsigned shift,
			 const size_t *counts)
{
	size_t b = 0, before = 0, m = 0, i;

	while (before + counts[b] <= k)
		before += counts[b++];
	if (shift == 0)
		return (int64_t)((uint64_t)min + b);
	for (i = 0; i < n; i++)
		if ((((uint64_t)v[i] - (uint64_t)min) >> shift) == b)
			swap64(&v[i], &v[m++]);
	select_kth(v, m, k - before);
	return v[k - before];
}

void gs_dist_compute(struct gs_dist *d, int64_t *v, size_t n)
{
	size_t i, k99, k90, k50, *counts;
	uint64_t range;
	unsigned shift = 0;

	memset(d, 0, sizeof(*d));
	if (n == 0)
		return;
	d->n = n;
	d->min = d->max = v[0];
	for (i = 1; i < n; i++) {
		if (v[i] < d->min)
			d->min = v[i];
		if (v[i] > d->max)
			d->max = v[i];
	}
	k99 = nearest_rank(99, n) - 1;
	k90 = nearest_rank(90, n) - 1;
	k50 = nearest_rank(50, n) - 1;
	/* Many samples: one histogram pass finds the bucket of each rank, so
	 * the selections run on those buckets only instead of three
	 * quickselects over all samples (a second per 10M launches x three
	 * metrics). The values are the same order statistics. */
	counts = n >= 4 * DIST_BUCKETS ? calloc(DIST_BUCKETS, sizeof(size_t)) : NULL;
	if (counts) {
		range = (uint64_t)d->max - (uint64_t)d->min;
		while ((range >> shift) >= DIST_BUCKETS)
			shift++;
		for (i = 0; i < n; i++)
			counts[((uint64_t)v[i] - (uint64_t)d->min) >> shift]++;
		d->p99 = hist_rank(v, n, k99, d->min, shift, counts);
		d->p90 = hist_rank(v, n, k90, d->min, shift, counts);
		d->p50 = hist_rank(v, n, k50, d->min, shift, counts);
		free(counts);
		return;
	}
	/* Select the highest rank first: afterwards v[0..k99] holds the k99+1
	 * smallest values, so the lower ranks can be selected inside it. */
	select_kth(v, n, k99);
	d->p99 = v[k99];
	select_kth(v, k99 + 1, k90);
	d->p90 = v[k90];
	select_kth(v, k90 + 1, k50);
	d->p50 = v[k50];
}

void big_hint(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);

	/* from 8 MB up: a 1-byte-per-call array of 10M calls is 10 MB, and
	 * 2500 faults of 4 KB cost more than the few huge pages */
	if (p && bytes >= 4 * huge && b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

void *big_malloc(size_t bytes)
{
	void *p = malloc(bytes ? bytes : 1);

	big_hint(p, bytes);
	return p;
}

void *big_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	/* glibc's calloc of a block it gets from mmap does not write it
	 * (fresh pages are zero): the hint still comes before first touch */
	big_hint(p, n * size);
	return p;
}
