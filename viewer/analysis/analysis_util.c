/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_util.c - small pure helpers of the analysis library: string
 * lookup, API-name classification, nearest-rank percentiles (quickselect),
 * names of causes, option defaults. No I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analysis_int.h"

int gs_sum_clamped;

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

int gs_api_is_graph_launch(const char *name)
{
	return name && (has_prefix(name, "cudaGraphLaunch") || has_prefix(name, "cuGraphLaunch"));
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
	/* Polls return at once whatever the GPU is doing; CUPTI reports an
	 * event query as an event synchronization, but the host never waits
	 * in one (PyTorch's caching allocator calls it constantly). */
	if (has_prefix(name, "cudaEventQuery") || has_prefix(name, "cuEventQuery") ||
	    has_prefix(name, "cudaStreamQuery") || has_prefix(name, "cuStreamQuery"))
		return f | GS_APIF_POLL;
	if (has_prefix(name, "cudaLaunchKernel") || has_prefix(name, "cuLaunchKernel") ||
	    has_prefix(name, "cudaLaunchCooperativeKernel") ||
	    has_prefix(name, "cuLaunchCooperativeKernel") ||
	    has_prefix(name, "cudaLaunchCooperativeKernelMultiDevice"))
		return f | GS_APIF_LAUNCH | GS_APIF_KERNEL_LAUNCH;
	if (has_prefix(name, "cudaLaunch") || has_prefix(name, "cuLaunch") ||
	    has_prefix(name, "cudaGraphLaunch") || has_prefix(name, "cuGraphLaunch") ||
	    has_prefix(name, "cudaMemcpy") || has_prefix(name, "cuMemcpy") ||
	    has_prefix(name, "cudaMemset") || has_prefix(name, "cuMemset") ||
	    has_prefix(name, "cudaMemPrefetch") || has_prefix(name, "cuMemPrefetch")) {
		if ((has_prefix(name, "cudaMemcpy") || has_prefix(name, "cuMemcpy") ||
		     has_prefix(name, "cudaMemset") || has_prefix(name, "cuMemset")) &&
		    !strstr(name, "Async"))
			f |= GS_APIF_SYNC_COPY;
		return f | GS_APIF_LAUNCH;
	}
	return f;
}

uint32_t gs_host_range_at(const struct gs_input *in, uint32_t tid, int64_t s, int64_t e)
{
	const struct gs_hrange *h = in->hranges;
	size_t lo = 0, hi = in->n_hranges;
	int64_t need = (e - s + 1) / 2, p = e - need;
	uint32_t j;

	if (!h || e <= s)
		return GS_NONE;
	/* A span covering need ns of [s, e) contains p = e - need. The
	 * thread's spans nest: those containing p are the last one starting
	 * at or before p and the spans it runs inside, innermost first; the
	 * first of them that covers enough is the answer. */
	while (lo < hi) { /* first span past (tid, start <= p) */
		size_t mid = lo + (hi - lo) / 2;
		if (h[mid].tid < tid || (h[mid].tid == tid && h[mid].start <= p))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || h[lo - 1].tid != tid)
		return GS_NONE;
	for (j = (uint32_t)(lo - 1); j != GS_NONE && j < in->n_hranges; j = h[j].parent) {
		int64_t a = h[j].start > s ? h[j].start : s, b = h[j].end < e ? h[j].end : e;
		if (b - a >= need)
			return j;
	}
	return GS_NONE;
}

int gs_host_framework_at(const struct gs_input *in, uint32_t tid, int64_t s, int64_t e)
{
	uint32_t r = gs_host_range_at(in, tid, s, e);
	int depth = 0;

	for (; r != GS_NONE && r < in->n_hranges && depth < 64; r = in->hranges[r].parent, depth++) {
		const char *t = gs_str(&in->strings, in->hranges[r].name_id, "");
		if (!strncmp(t, "aten::", 6) || !strncmp(t, "autograd::", 10) ||
		    !strncmp(t, "torch::autograd", 15) || !strncmp(t, "Optimizer.", 10) ||
		    strstr(t, ": forward") || strstr(t, ": backward") || strstr(t, "nn.Module"))
			return 1;
	}
	return 0;
}

int gs_has_op_spans(const struct gs_input *in)
{
	size_t i;

	for (i = 0; i < in->n_hranges; i++)
		if (!strncmp(gs_str(&in->strings, in->hranges[i].name_id, ""), "aten::", 6))
			return 1;
	return 0;
}

const char *gs_cause_name(int cause)
{
	static const char *const names[GS_CAUSE_COUNT] = {
	    "sync wait", "CUDA API", "host code", "launch latency", "graph-internal",
	    "dependency", "other"};
	return cause >= 0 && cause < GS_CAUSE_COUNT ? names[cause] : "unknown";
}

const char *gs_cause_key(int cause)
{
	static const char *const keys[GS_CAUSE_COUNT] = {
	    "sync_wait", "cuda_api", "host_code", "launch_latency", "graph_internal",
	    "dependency", "other"};
	return cause >= 0 && cause < GS_CAUSE_COUNT ? keys[cause] : "unknown";
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

/* Values of the ranks k[0] <= ... <= k[nk - 1] (0-based, nk <= 3) of
 * v[0..n), all in [min, max], into out[]. Reorders v.
 *
 * Many samples: one pass counts a histogram of (v - min) >> shift in
 * DIST_BUCKETS buckets, which names the bucket of each rank; a second
 * pass moves the samples of those buckets (at most three) to the front,
 * and the selections run there only. Every sample of a lower one of
 * those buckets is smaller than every sample of a higher one, so a rank
 * inside the front is its rank inside its bucket plus the samples of the
 * front's lower buckets. Few samples: selections on all of them, the
 * highest rank first (afterwards v[0..k] holds the k + 1 smallest, so
 * the lower ranks are selected inside that). Either way the values are
 * the same order statistics. */
#define DIST_BUCKETS 4096
static void ranks_of(int64_t *v, size_t n, int64_t min, int64_t max, const size_t *k, int nk,
		     int64_t *out)
{
	size_t *counts = n >= 4 * DIST_BUCKETS ? calloc(DIST_BUCKETS, sizeof(size_t)) : NULL;
	size_t kk[3], hi = n, i;
	int r;

	for (r = 0; r < nk; r++)
		kk[r] = k[r];
	if (counts) {
		uint64_t range = (uint64_t)max - (uint64_t)min;
		size_t bkt[3], before = 0, below = 0, b = 0, m = 0;
		unsigned shift = 0;

		while ((range >> shift) >= DIST_BUCKETS)
			shift++;
		for (i = 0; i < n; i++)
			counts[((uint64_t)v[i] - (uint64_t)min) >> shift]++;
		for (r = 0; r < nk; r++) {
			while (before + counts[b] <= k[r])
				before += counts[b++];
			bkt[r] = b;
			kk[r] = k[r] - before;
		}
		if (shift == 0) { /* one value per bucket: the bucket is the value */
			for (r = 0; r < nk; r++)
				out[r] = (int64_t)((uint64_t)min + bkt[r]);
			free(counts);
			return;
		}
		for (r = 1; r < nk; r++) {
			if (bkt[r] != bkt[r - 1])
				below += counts[bkt[r - 1]];
			kk[r] += below;
		}
		for (r = nk; r < 3; r++)
			bkt[r] = bkt[0];
		for (i = 0; i < n; i++) {
			size_t bi = ((uint64_t)v[i] - (uint64_t)min) >> shift;
			if (bi == bkt[0] || bi == bkt[1] || bi == bkt[2])
				swap64(&v[i], &v[m++]);
		}
		hi = m;
		free(counts);
	}
	for (r = nk - 1; r >= 0; r--) {
		select_kth(v, hi, kk[r]);
		out[r] = v[kk[r]];
		hi = kk[r] + 1;
	}
}

static void min_max(const int64_t *v, size_t n, int64_t *min, int64_t *max)
{
	size_t i;

	*min = *max = v[0];
	for (i = 1; i < n; i++) {
		if (v[i] < *min)
			*min = v[i];
		if (v[i] > *max)
			*max = v[i];
	}
}

int gs_span_cost(const struct gs_capture *c, size_t n_in, struct gs_capture_cost *out)
{
	int64_t *v;
	size_t i, n = 0;

	memset(out, 0, sizeof(*out));
	if (!n_in)
		return 0;
	v = malloc(n_in * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n_in; i++)
		if (c[i].end >= c[i].start) {
			v[n] = c[i].end - c[i].start;
			out->total_ns += v[n++];
		}
	out->n = (int64_t)n;
	out->p50_ns = n ? gs_percentile(v, n, 50) : 0;
	free(v);
	return 0;
}

int gs_span_note(const struct gs_capture *v, size_t n, const struct gs_result *res,
		 struct gs_capture_cost *cc, int64_t *window)
{
	size_t k;

	*window = 0;
	for (k = 0; k < res->n_devices; k++)
		if (res->devices[k].tl.window > *window)
			*window = res->devices[k].tl.window;
	return gs_span_cost(v, n, cc) == 0 && cc->n && *window > 0 && cc->total_ns * 200 >= *window;
}

int gs_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int64_t gs_percentile(int64_t *v, size_t n, double p)
{
	size_t k;
	int64_t min = 0, max = 0, out;

	if (n == 0)
		return 0;
	k = nearest_rank(p, n) - 1;
	if (n >= 4 * DIST_BUCKETS)
		min_max(v, n, &min, &max);
	ranks_of(v, n, min, max, &k, 1, &out);
	return out;
}

void gs_dist_compute(struct gs_dist *d, int64_t *v, size_t n)
{
	size_t k[3];
	int64_t out[3];

	memset(d, 0, sizeof(*d));
	if (n == 0)
		return;
	d->n = n;
	min_max(v, n, &d->min, &d->max);
	k[0] = nearest_rank(50, n) - 1;
	k[1] = nearest_rank(90, n) - 1;
	k[2] = nearest_rank(99, n) - 1;
	ranks_of(v, n, d->min, d->max, k, 3, out);
	d->p50 = out[0];
	d->p90 = out[1];
	d->p99 = out[2];
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

int gs_name_matches(const char *text, const char *name)
{
	size_t n = strlen(name), d;

	if (n < 2 || strcmp(name + n - 2, "#*"))
		return !strcmp(text, name);
	if (strncmp(text, name, n - 1))
		return 0;
	for (d = 0; text[n - 1 + d] >= '0' && text[n - 1 + d] <= '9'; d++)
		;
	return d > 0 && d <= 18 && text[n - 1 + d] == '\0';
}

/* gs_trace_is_pytorch here, below verdict.c and the what-if model, which
 * both ask it */
/* name holds PyTorch's at:: namespace: demangled ("void at::native::
 * vectorized_elementwise_kernel<...>", "at::cuda::..."), or mangled
 * (_ZN2at6native..., _ZN2at4cuda...) */
static int torch_kernel_name(const char *name)
{
	return strstr(name, "at::native::") || strstr(name, "at::cuda::") ||
	       strstr(name, "_ZN2at6native") || strstr(name, "_ZN2at4cuda");
}

int gs_trace_is_pytorch(const struct gs_result *res)
{
	const struct gs_input *in = res->in;
	size_t i;

	for (i = 0; i < res->n_kernels; i++)
		if (torch_kernel_name(gs_str(&in->strings, res->kernels[i].name_id, "")))
			return 1;
	for (i = 0; i < in->n_hranges; i++)
		if (strncmp(gs_str(&in->strings, in->hranges[i].name_id, ""), "aten::", 6) == 0)
			return 1;
	return 0;
}
