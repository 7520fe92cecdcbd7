/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * advice.c - what the trace shows that the verdict's rules check before
 * they give a fix (docs/report.md, "What each rule checks first"): the
 * phases of the run (start-up and warm-up, steady state, tail) from the
 * program's steps, and the facts of the steady state a fix depends on:
 * whether DataLoader workers are on, whether uploads are pageable, what in
 * a step blocks its capture into a CUDA Graph (syncs, allocations,
 * collectives, a kernel sequence that varies), and how much of the GPU's
 * busy time is communication and how much of that overlaps no compute;
 * and the input stalls' fix, which those facts and the stalls' samples
 * decide (gs_input_fix); and, after the replay, the fix of exposed
 * communication that nothing waits for (gs_comm_unchanged). It reads a
 * finished struct gs_result; the verdict
 * (verdict.c) decides the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

#include "gapscope/trace_format.h"

size_t gs_family_len(const char *t)
{
	size_t n = strlen(t), d = 0;

	while (d < n && t[n - 1 - d] >= '0' && t[n - 1 - d] <= '9')
		d++;
	if (!d || d > 18 || d == n || t[n - 1 - d] != '#')
		return 0;
	return n - d;
}

/* ---- steps ------------------------------------------------------------- */

struct step {
	int64_t s, e; /* ns */
	long long num; /* ProfilerStep#N's N, -1 */
	uint32_t tid;  /* the thread of its range */
};

static int cmp_step(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	return x->s < y->s ? -1 : x->s > y->s;
}

static int cmp_i64v(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* the ranges (not marks) whose text is the family stem[0..len) followed by
 * digits (len from gs_family_len), or text id `id` where len is 0 */
static size_t collect_steps(const struct gs_input *in, const char *stem, size_t len, uint32_t id,
			    struct step *out)
{
	size_t i, n = 0;

	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		const char *t;
		if (r->kind != GS_NVTX_RANGE || r->end <= r->start)
			continue;
		if (len) {
			t = gs_str(&in->strings, r->text_id, "");
			if (gs_family_len(t) != len || memcmp(t, stem, len))
				continue;
			if (out) {
				out[n].num = strtoll(t + len, NULL, 10);
			}
		} else if (r->text_id != id)
			continue;
		else if (out)
			out[n].num = -1;
		if (out) {
			out[n].s = r->start;
			out[n].e = r->end;
			out[n].tid = r->tid;
		}
		n++;
	}
	return n;
}

/* the framework's own ranges, once a step each but no step: the
 * DataLoader's next batch (PARAM's ResNet: 15 ranges
 * "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", the
 * most wall of the trace), the optimizer step, operators */
static int not_a_step(const char *t)
{
	return !strncmp(t, "enumerate(DataLoader)", 21) || !strncmp(t, "Optimizer.", 10) ||
	       !strncmp(t, "aten::", 6) || !strncmp(t, "autograd::", 10) || !strncmp(t, "nccl:", 5);
}

/* The text (or numbered family) of the program's steps: torch.profiler's
 * ProfilerStep#N where the trace has them, else the range text or family
 * with the most wall among those with GS_PHASE_MIN_STEPS ranges or more
 * (the outermost repeated range: "step" over its "forward" and
 * "backward"). 0 none; stem and len: the family stem (len 0: a text). */
static uint32_t step_text(const struct gs_result *res, const char **stem, size_t *len, int *src)
{
	const struct gs_input *in = res->in;
	uint32_t best = 0;
	int64_t best_wall = 0;
	size_t i;

	for (i = 0; i < res->n_nvtx; i++) {
		const char *t = gs_str(&in->strings, res->nvtx[i].text_id, "");
		size_t f = gs_family_len(t);
		if (f == strlen("ProfilerStep#") && !memcmp(t, "ProfilerStep#", f)) {
			*stem = t;
			*len = f;
			*src = GS_STEPS_PROFILER;
			return res->nvtx[i].text_id;
		}
	}
	for (i = 0; i < res->n_nvtx; i++) {
		const char *t = gs_str(&in->strings, res->nvtx[i].text_id, "");
		size_t f = gs_family_len(t), j;
		int64_t wall = 0;
		uint64_t count = 0;
		if (f) { /* a family: its members summed */
			for (j = 0; j < res->n_nvtx; j++) {
				const char *u = gs_str(&in->strings, res->nvtx[j].text_id, "");
				if (gs_family_len(u) == f && !memcmp(u, t, f)) {
					wall = gs_sat_add(wall, res->nvtx[j].wall);
					count += res->nvtx[j].count;
				}
			}
		} else {
			wall = res->nvtx[i].wall;
			count = res->nvtx[i].count;
		}
		if (count < GS_PHASE_MIN_STEPS || wall <= best_wall || not_a_step(t))
			continue;
		best = res->nvtx[i].text_id;
		best_wall = wall;
		*stem = t;
		*len = f;
		*src = GS_STEPS_RANGES;
	}
	return best;
}

/* torch's optimizer steps, "Optimizer.step#SGD.step" ranges: how many;
 * with out, their spans (by start after a sort; num -1) */
static size_t optimizer_steps(const struct gs_input *in, struct step *out)
{
	size_t i, n = 0;

	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		if (r->kind != GS_NVTX_RANGE || r->end <= r->start ||
		    strncmp(gs_str(&in->strings, r->text_id, ""), "Optimizer.step#", 15))
			continue;
		if (out)
			out[n] = (struct step){r->start, r->end, -1, r->tid};
		n++;
	}
	return n;
}

/* The window of the devices: [first op start, last op end] over them. */
static void devices_window(const struct gs_result *res, int64_t *first, int64_t *last)
{
	size_t d;

	*first = INT64_MAX;
	*last = INT64_MIN;
	for (d = 0; d < res->n_devices; d++) {
		const struct gs_timeline *tl = &res->devices[d].tl;
		if (tl->n_ops == 0)
			continue;
		if (tl->first < *first)
			*first = tl->first;
		if (tl->last > *last)
			*last = tl->last;
	}
}

static int cmp_text_count(const void *a, const void *b)
{
	uint32_t x = ((const struct gs_nvtx_stat *)a)->text_id;
	uint32_t y = ((const struct gs_nvtx_stat *)b)->text_id;
	return x < y ? -1 : x > y;
}

/* 1 when the candidate steps v[0..n) (by start) are no steps: a range of
 * another text, as long as the median step or longer, lies between two
 * of them and its text does not come back between most of them (the H200
 * decode demo's three "measure_gpu_time" ranges, one after each of its
 * decode_eager, decode_one_graph and decode_bucketed_graphs phases, are
 * measurements of different programs, not steps of one loop) */
static int interleaved(const struct gs_result *res, const struct step *v, size_t n, uint32_t id,
		       const char *stem, size_t len, int64_t p50)
{
	const struct gs_input *in = res->in;
	struct gs_nvtx_stat *texts, key;
	size_t i, lo, hi;
	int found = 0;

	texts = malloc((res->n_nvtx ? res->n_nvtx : 1) * sizeof(*texts));
	if (!texts)
		return 0;
	memcpy(texts, res->nvtx, res->n_nvtx * sizeof(*texts));
	qsort(texts, res->n_nvtx, sizeof(*texts), cmp_text_count);
	for (i = 0; i < in->n_nvtx && !found; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		const struct gs_nvtx_stat *t;
		const char *u;
		if (r->kind != GS_NVTX_RANGE || r->end - r->start < p50 || r->text_id == id)
			continue;
		u = gs_str(&in->strings, r->text_id, "");
		if (len && gs_family_len(u) == len && !memcmp(u, stem, len))
			continue;
		/* the first step that starts after it: it must end before
		 * that one and start after the one before */
		lo = 0;
		hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (v[mid].s < r->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || lo == n || r->end > v[lo].s || r->start < v[lo - 1].e)
			continue;
		key.text_id = r->text_id;
		t = bsearch(&key, texts, res->n_nvtx, sizeof(*texts), cmp_text_count);
		if (!t || t->count < 2 || 2 * t->count < n - 1)
			found = 1;
	}
	free(texts);
	return found;
}

/* The program's steps (step_text, else torch's optimizer steps) by
 * start, with their text, family and source, and the median step wall:
 * 0 with *v NULL where there are fewer than GS_PHASE_MIN_STEPS or they
 * are no steps (interleaved); -1 out of memory. The phases and the
 * what-if's step figures (gs_steps_find) read the same steps. */
static int steps_of(const struct gs_result *res, struct step **out, size_t *out_n, uint32_t *out_id,
		    const char **out_stem, size_t *out_len, int *out_src, int64_t *p50)
{
	const struct gs_input *in = res->in;
	const char *stem = NULL;
	size_t len = 0, n, i;
	struct step *v;
	int64_t *w;
	uint32_t id;
	int src = GS_STEPS_NONE;

	*out = NULL;
	*out_n = 0;
	*p50 = 0;
	id = step_text(res, &stem, &len, &src);
	if (!id) {
		/* no step ranges: torch's optimizer steps end the iterations */
		n = optimizer_steps(in, NULL);
		if (n < GS_PHASE_MIN_STEPS)
			return 0;
		src = GS_STEPS_OPTIMIZER;
	} else
		n = collect_steps(in, stem, len, id, NULL);
	if (n < GS_PHASE_MIN_STEPS)
		return 0;
	v = malloc(n * sizeof(*v));
	w = malloc(n * sizeof(*w));
	if (!v || !w) {
		free(v);
		free(w);
		return -1;
	}
	if (src == GS_STEPS_OPTIMIZER) {
		int64_t first, last;
		optimizer_steps(in, v);
		qsort(v, n, sizeof(*v), cmp_step);
		devices_window(res, &first, &last);
		/* iteration k runs from the end of optimizer step k-1 to the end
		 * of step k; iteration 0 from the first GPU op */
		for (i = n; i-- > 0;)
			v[i].s = i ? v[i - 1].e : (first < v[0].e ? first : v[0].s);
		stem = "Optimizer.step#";
		len = strlen(stem);
	} else {
		collect_steps(in, stem, len, id, v);
		qsort(v, n, sizeof(*v), cmp_step);
	}
	for (i = 0; i < n; i++)
		w[i] = v[i].e - v[i].s;
	qsort(w, n, sizeof(*w), cmp_i64v);
	*p50 = w[(n - 1) / 2];
	free(w);
	if (src == GS_STEPS_RANGES && interleaved(res, v, n, id, stem, len, *p50)) {
		free(v);
		*p50 = 0;
		return 0;
	}
	*out = v;
	*out_n = n;
	*out_id = id;
	*out_stem = stem;
	*out_len = len;
	*out_src = src;
	return 0;
}

int gs_steps_find(const struct gs_result *res, struct gs_steps *st)
{
	struct step *v;
	size_t n, i;
	int64_t p50;

	memset(st, 0, sizeof(*st));
	if (steps_of(res, &v, &n, &st->text_id, &st->stem, &st->stem_len, &st->source, &p50) < 0)
		return -1;
	if (!v)
		return 0;
	st->v = malloc(n * sizeof(*st->v));
	if (!st->v) {
		free(v);
		memset(st, 0, sizeof(*st));
		return -1;
	}
	for (i = 0; i < n; i++)
		st->v[i] = (struct gs_step_span){v[i].s, v[i].e, v[i].tid};
	st->n = n;
	free(v);
	return 0;
}

void gs_steps_free(struct gs_steps *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

int gs_phases_compute(const struct gs_result *res, struct gs_phases *ph)
{
	const char *stem = NULL;
	size_t len = 0, n, i, k = 0;
	struct step *v;
	int64_t first, last;
	uint32_t id = 0;
	int src = GS_STEPS_NONE;

	memset(ph, 0, sizeof(*ph));
	ph->first_number = -1;
	/* a --range selection is the user's own choice of what to read */
	if (res->range_applied || res->span_applied)
		return 0;
	if (steps_of(res, &v, &n, &id, &stem, &len, &src, &ph->step_p50_ns) < 0)
		return -1;
	if (!v)
		return 0;
	/* warm-up steps: iteration 0 where torch.profiler numbers it so (the
	 * caches and cuDNN/cuBLAS fill there), and the leading steps that
	 * each took GS_PHASE_WARM_FACTOR times the median or more; at most
	 * half of the steps */
	if (src == GS_STEPS_PROFILER && v[0].num == 0)
		k = 1;
	while (k < n / 2 && (v[k].e - v[k].s) / GS_PHASE_WARM_FACTOR >= ph->step_p50_ns)
		k++;
	ph->source = src;
	ph->text_id = id;
	ph->stem = stem;
	ph->stem_len = len;
	ph->n_steps = n;
	ph->warmup_steps = k;
	ph->first_number = v[0].num;
	ph->steady_start = v[k].s;
	ph->steady_end = v[n - 1].e;
	for (i = k; i < n; i++)
		if (v[i].e > ph->steady_end)
			ph->steady_end = v[i].e;
	free(v);
	devices_window(res, &first, &last);
	if (first >= last || ph->steady_end <= ph->steady_start) {
		ph->source = GS_STEPS_NONE;
		return 0;
	}
	if (ph->steady_start < first)
		ph->steady_start = first;
	if (ph->steady_end > last)
		ph->steady_end = last;
	if (ph->steady_end <= ph->steady_start) {
		ph->source = GS_STEPS_NONE;
		return 0;
	}
	/* the analysed time in each phase */
	ph->warmup_ns = gs_result_overlap(res, first, ph->steady_start);
	ph->steady_ns = gs_result_overlap(res, ph->steady_start, ph->steady_end);
	ph->tail_ns = gs_result_overlap(res, ph->steady_end, last);
	return 0;
}

/* ---- facts of the steady state ----------------------------------------- */

/* NCCL's and RCCL's kernels: ncclKernel_AllReduce_RING_LL_Sum_float,
 * ncclDevKernel_AllGather_RING_LL, and the mangled forms */
int gs_kernel_is_comm(const char *name)
{
	return !strncmp(name, "nccl", 4) || strstr(name, "ncclKernel") ||
	       strstr(name, "ncclDevKernel") || strstr(name, "rccl");
}

struct iv {
	int64_t s, e;
};

/* append [s, e) to the union u (inputs by start) */
static int iv_add(struct iv **u, size_t *n, size_t *cap, int64_t s, int64_t e)
{
	if (*n && s <= (*u)[*n - 1].e) {
		if (e > (*u)[*n - 1].e)
			(*u)[*n - 1].e = e;
		return 0;
	}
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct iv *t = realloc(*u, c * sizeof(**u));
		if (!t)
			return -1;
		*u = t;
		*cap = c;
	}
	(*u)[*n].s = s;
	(*u)[(*n)++].e = e;
	return 0;
}

/* communication kernels' busy time, and the part of it that overlaps no
 * other kernel, on device d, inside the analysed time */
static int comm_time(const struct gs_result *res, size_t d, struct gs_advice_facts *f)
{
	const struct gs_input *in = res->in;
	const struct gs_device_result *dr = &res->devices[d];
	struct iv *cu = NULL, *ku = NULL;
	size_t nc = 0, cc = 0, nk = 0, ck = 0, i, j = 0;
	int rc = 0;

	for (i = dr->first_op; i < dr->end_op && i < in->n_ops; i++) {
		const struct gs_op *o = &in->ops[i];
		int64_t s = o->start, e = o->end;
		if (o->kind != GS_OP_KERNEL || e <= s)
			continue;
		if (gs_kernel_is_comm(gs_str(&in->strings, o->name_id, ""))) {
			f->comm_kernels++;
			rc = iv_add(&cu, &nc, &cc, s, e);
		} else
			rc = iv_add(&ku, &nk, &ck, s, e);
		if (rc)
			goto out;
	}
	for (i = 0; i < nc; i++) {
		int64_t s = cu[i].s, e = cu[i].e;
		f->comm_busy_ns = gs_sat_add(f->comm_busy_ns, gs_result_overlap(res, s, e));
		/* the parts of [s, e) that no compute kernel covers */
		while (j < nk && ku[j].e <= s)
			j++;
		for (size_t m = j; m < nk && ku[m].s < e && s < e; m++) {
			if (ku[m].s > s)
				f->comm_exposed_ns =
				    gs_sat_add(f->comm_exposed_ns, gs_result_overlap(res, s, ku[m].s));
			if (ku[m].e > s)
				s = ku[m].e;
		}
		if (e > s)
			f->comm_exposed_ns = gs_sat_add(f->comm_exposed_ns, gs_result_overlap(res, s, e));
	}
out:
	free(cu);
	free(ku);
	return rc;
}

static int cmp_u64v(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* launches per step of the steady state: whether the kernel sequence
 * varies from step to step (the fewest and the most launches differ by
 * more than GS_PHASE_VARY_SHARE of the median) */
static int launches_per_step(const struct gs_result *res, const struct gs_phases *ph,
			     struct gs_advice_facts *f)
{
	const struct gs_input *in = res->in;
	const char *stem = ph->stem;
	size_t len = ph->stem_len, n, i, m = 0, k;
	struct step *v;
	int64_t *t;
	uint64_t *per;
	uint8_t *cls;

	if (ph->source == GS_STEPS_OPTIMIZER)
		return 0; /* no ranges to count launches in */
	n = collect_steps(in, stem, len, ph->text_id, NULL);
	if (n <= ph->warmup_steps + 1)
		return 0;
	v = malloc(n * sizeof(*v));
	t = malloc((in->n_apis ? in->n_apis : 1) * sizeof(*t));
	per = calloc(n, sizeof(*per));
	cls = calloc(in->strings.n ? in->strings.n : 1, 1);
	if (!v || !t || !per || !cls)
		goto out;
	collect_steps(in, stem, len, ph->text_id, v);
	qsort(v, n, sizeof(*v), cmp_step);
	for (i = 0; i < in->n_apis; i++) {
		uint32_t id = in->apis[i].name_id;
		if (id < in->strings.n) {
			if (!cls[id])
				cls[id] = gs_api_classify(gs_str(&in->strings, id, ""));
			if (cls[id] & GS_APIF_LAUNCH)
				t[m++] = in->apis[i].start;
		}
	}
	qsort(t, m, sizeof(*t), cmp_i64v);
	for (i = ph->warmup_steps, k = 0; i < n; i++) {
		/* first launch at or after the step's start */
		size_t lo = 0, hi = m;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t[mid] < v[i].s)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < m && t[lo] < v[i].e; lo++)
			per[k]++;
		k++;
	}
	qsort(per, k, sizeof(*per), cmp_u64v);
	f->launches_min = per[0];
	f->launches_max = per[k - 1];
	f->launches_p50 = per[(k - 1) / 2];
	f->varying = f->launches_p50 > 0 &&
		     (double)(f->launches_max - f->launches_min) >
			 GS_PHASE_VARY_SHARE * (double)f->launches_p50;
out:
	free(v);
	free(t);
	free(per);
	free(cls);
	return 0;
}

int gs_advice_facts_compute(const struct gs_result *res, const struct gs_phases *ph,
			    struct gs_advice_facts *f)
{
	const struct gs_input *in = res->in;
	uint64_t most = 0;
	size_t i, d;

	memset(f, 0, sizeof(*f));
	/* the DataLoader's iterator, where the trace names it (torch.profiler
	 * records "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.
	 * __next__"): workers are on with the multi-process one */
	{
		/* the texts of the ranges and host spans the trace holds */
		uint8_t *seen = calloc(in->strings.n ? in->strings.n : 1, 1);
		if (!seen)
			return -1;
		for (i = 0; i < in->n_nvtx; i++)
			if (in->nvtx[i].text_id < in->strings.n)
				seen[in->nvtx[i].text_id] = 1;
		for (i = 0; i < in->n_hranges; i++)
			if (in->hranges[i].name_id < in->strings.n)
				seen[in->hranges[i].name_id] = 1;
		for (i = 1; i < in->strings.n; i++) {
			const char *t = in->strings.v[i];
			if (!seen[i] || !t)
				continue;
			if (strstr(t, "_MultiProcessingDataLoaderIter"))
				f->loader = GS_LOADER_WORKERS;
			else if (strstr(t, "_SingleProcessDataLoaderIter") &&
				 f->loader != GS_LOADER_WORKERS)
				f->loader = GS_LOADER_SINGLE;
		}
		free(seen);
	}
	/* else what the samples' frames show (trace_samples.c loader_frame):
	 * a training loop recorded by gapscope names no iterator, but its
	 * samples wait in _try_get_data and rebuild the workers' shared
	 * tensors (H100, 2026-12-07: "the trace does not show whether
	 * DataLoader workers are on" for a loop with 2 workers) */
	if (f->loader == GS_LOADER_UNKNOWN && (in->n_samples || in->n_waits)) {
		for (i = 0; i < in->n_samples; i++) {
			uint32_t st = in->samples[i].stack;
			int l = st && st < in->n_hstacks ? in->hstacks[st].loader : 0;
			if (l > f->loader)
				f->loader = l;
		}
		/* and the off-CPU samples: the main thread waiting in
		 * _try_get_data for its workers' batch */
		for (i = 0; i < in->n_waits; i++) {
			uint32_t st = in->waits[i].stack;
			int l = st && st < in->n_hstacks ? in->hstacks[st].loader : 0;
			if (l > f->loader)
				f->loader = l;
		}
		f->loader_sampled = f->loader != GS_LOADER_UNKNOWN;
	}
	/* torch's optimizer steps: allocations before the first one ends
	 * are iteration 0's (cuDNN's workspaces, the caching allocator
	 * filling), not the steady state's */
	{
		int64_t first_end = INT64_MAX;
		for (i = 0; i < in->n_nvtx; i++) {
			const struct gs_nvtx *r = &in->nvtx[i];
			if (r->kind != GS_NVTX_RANGE ||
			    strncmp(gs_str(&in->strings, r->text_id, ""), "Optimizer.step#", 15))
				continue;
			f->opt_steps++;
			if (r->end < first_end)
				first_end = r->end;
		}
		f->first_opt_end = first_end;
	}
	/* uploads in the analysed time, and the pageable ones */
	for (i = 0; i < in->n_ops; i++) {
		const struct gs_op *o = &in->ops[i];
		if (o->kind != GS_OP_MEMCPY || !(o->flags & GS_OPF_HOST_SRC) ||
		    !gs_result_selects(res, o->start, o->end))
			continue;
		f->uploads++;
		if (o->flags & (GS_OPF_PAGEABLE_SRC | GS_OPF_PAGEABLE))
			f->pageable_uploads++;
	}
	/* what would stop the step's capture into a CUDA Graph */
	for (i = 0; i < res->n_syncs; i++) {
		const struct gs_sync_group *g = &res->syncs[i];
		if (g->kind == GS_SYNC_STREAM_WAIT_EVENT)
			continue; /* a GPU-side wait is captured as an edge */
		if (g->kind == GS_SYNC_IMPLICIT_ALLOC) {
			f->allocs += g->count;
			continue;
		}
		if (g->kind == GS_SYNC_IMPLICIT_LEGACY_STREAM)
			continue;
		f->syncs += g->count;
		if (g->count > most) {
			most = g->count;
			f->sync_api_id = g->api_name_id;
		}
	}
	for (d = 0; d < res->n_devices; d++) {
		f->busy_ns = gs_sat_add(f->busy_ns, res->devices[d].tl.busy);
		if (comm_time(res, d, f))
			return -1;
	}
	if (ph && ph->source != GS_STEPS_NONE) {
		f->steps = ph->n_steps - ph->warmup_steps;
		if (launches_per_step(res, ph, f))
			return -1;
	} else if (!res->range_applied && !res->span_applied) {
		/* fewer steps than phases need (a trace of one or two of
		 * torch.profiler's steps, TraceLens's BERT: one ProfilerStep
		 * holding 2 syncs): torch's own step marks still say what a step
		 * holds (the capture blockers) */
		const char *stem = NULL;
		size_t len = 0;
		int src = GS_STEPS_NONE;
		uint32_t id = step_text(res, &stem, &len, &src);
		if (id && src == GS_STEPS_PROFILER)
			f->steps = collect_steps(res->in, stem, len, id, NULL);
	}
	/* no step ranges: the repeated op sequence graph advice found stands
	 * for the step (one decode step, one training step) */
	for (i = 0; i < res->n_advice; i++)
		if (res->advice[i].count > f->seq_steps)
			f->seq_steps = res->advice[i].count;
	return 0;
}

/* 1 + 20%: an input stall taken in mostly by the thread itself */
#define GS_RECEIVE_MIN_PCT 21

void gs_input_fix(const struct gs_verdict *v, struct gs_finding *fd)
{
	const struct gs_advice_facts *f = &v->facts;
	int pageable = f->pageable_uploads > 0;
	size_t k;

	k = (size_t)snprintf(fd->why, sizeof(fd->why), "%llu of %llu uploads pageable; ",
			     (unsigned long long)f->pageable_uploads,
			     (unsigned long long)f->uploads);
	if (!v->pytorch) {
		fd->fix = pageable ? "load inputs ahead (a loader thread) into pinned buffers"
				   : "load inputs ahead (a loader thread, double buffering)";
		snprintf(fd->why + k, sizeof(fd->why) - k, "the host prepared them in the gap");
		return;
	}
	switch (f->loader) {
	case GS_LOADER_WORKERS:
		if (fd->receive_pct > GS_RECEIVE_MIN_PCT && fd->receive_pct >= fd->wait_pct) {
			/* the thread itself takes the batches in: a connection to
			 * the worker's resource sharer for each tensor it shared
			 * (the file_descriptor strategy); more workers do not
			 * shorten it (bench/real/train_loop.py, H100: most of its
			 * stalls in rebuild_storage_fd, 2-7% waiting for a batch) */
			fd->fix = "the main thread takes in each shared tensor itself: fewer tensors "
				  "a batch, or torch.multiprocessing.set_sharing_strategy('file_system')";
			snprintf(fd->why + k, sizeof(fd->why) - k,
				 "DataLoader workers on; samples: %d%% of the stalls taking in the "
				 "tensors they shared (torch/multiprocessing/reductions.py), %d%% "
				 "waiting for a batch",
				 fd->receive_pct - 1, fd->wait_pct > 0 ? fd->wait_pct - 1 : 0);
			fd->keep_pct = (int8_t)(101 - (fd->receive_pct - 1));
			break;
		}
		/* the workers are on: they cannot keep up (issue 51: a ResNet
		 * run inside _MultiProcessingDataLoaderIter.__next__ was told
		 * to turn them on) */
		fd->fix = pageable ? "workers can't keep up: more num_workers, prefetch_factor, "
				     "persistent_workers, cheaper transforms; pin_memory=True"
				   : "workers can't keep up: more num_workers, prefetch_factor, "
				     "persistent_workers, cheaper transforms";
		/* the thread waiting most of the stalls: its batches came late */
		k += (size_t)snprintf(fd->why + k, sizeof(fd->why) - k, "DataLoader workers on (%s",
				      f->loader_sampled ? "samples: batches received from its worker "
							  "processes"
							: "_MultiProcessingDataLoaderIter");
		if (fd->running_pct > 0 && k < sizeof(fd->why))
			k += (size_t)snprintf(fd->why + k, sizeof(fd->why) - k,
					      "; the thread running %d%% of the stalls",
					      fd->running_pct - 1);
		/* what more workers buy is the wait, not the thread's own
		 * part of taking the batches in (the what-if keeps it): its
		 * off-CPU samples' wait for the workers, else the share it
		 * ran; neither known, all of it (the most they could buy) */
		if (fd->wait_pct > 0 && k < sizeof(fd->why))
			k += (size_t)snprintf(fd->why + k, sizeof(fd->why) - k,
					      "; waiting for a batch %d%% of the stalls",
					      fd->wait_pct - 1);
		fd->keep_pct = fd->wait_pct > 0 ? (int8_t)(101 - (fd->wait_pct - 1))
						: fd->running_pct;
		if (k < sizeof(fd->why))
			snprintf(fd->why + k, sizeof(fd->why) - k, ")");
		break;
	case GS_LOADER_SINGLE:
		fd->keep_pct = 0; /* the loading moves to the workers: all of it goes */
		fd->fix = "load inputs ahead: DataLoader(num_workers>0, pin_memory=True)";
		snprintf(fd->why + k, sizeof(fd->why) - k, "single-process DataLoader (%s)",
			 f->loader_sampled ? "samples: the main thread fetches its batches"
					   : "_SingleProcessDataLoaderIter");
		break;
	default:
		fd->fix = pageable
			      ? "load inputs ahead: DataLoader workers (num_workers>0) if off; "
				"pin_memory=True"
			      : "load inputs ahead: DataLoader workers (num_workers>0) if off";
		snprintf(fd->why + k, sizeof(fd->why) - k,
			 "the trace does not show whether DataLoader workers are on");
		fd->keep_pct = 0; /* inputs loaded ahead: all of it goes */
		break;
	}
}

/* ---- host stalls ------------------------------------------------------ */

/* Host stalls whose host operator is DDP's buffer broadcast: with
 * broadcast_buffers=True (its default) DistributedDataParallel.forward
 * broadcasts the module's buffers from rank 0 before each forward, and
 * c10d's broadcast_coalesced flattens them and unflattens the result on
 * the CPU (aten::unflatten_dense_tensors). HTA's 2-rank NCCL trace: two
 * 11 ms unflattens a step, inside "DistributedDataParallel.forward" and
 * "nccl:broadcast", 27 stalls of 150 ms told "overlap it with GPU work".
 * Only where the trace names both the operator and the DDP range. */
void gs_host_stall_fix(const struct gs_input *in, struct gs_finding *fd)
{
	const char *op = fd->op_id ? gs_str(&in->strings, fd->op_id, "") : "";
	const char *r = fd->nvtx_id ? gs_str(&in->strings, fd->nvtx_id, "") : "";
	int64_t t = 0;
	uint64_t n = 0;
	size_t i;

	if (strcmp(op, "aten::unflatten_dense_tensors") && strcmp(op, "aten::flatten_dense_tensors"))
		return;
	if (strcmp(r, "DistributedDataParallel.forward") && strcmp(r, "nccl:broadcast"))
		return;
	/* what the fix can take away at most: the operator's own time, the
	 * stalls hold other host work too (HTA's trace: 67 of 150 ms) */
	for (i = 0; i < in->n_hranges; i++)
		if (in->hranges[i].name_id == fd->op_id && in->hranges[i].end > in->hranges[i].start) {
			t = gs_sat_add(t, in->hranges[i].end - in->hranges[i].start);
			n++;
		}
	fd->remove_op_id = fd->op_id;
	fd->fix = "DDP broadcasts its buffers before each forward: "
		  "DistributedDataParallel(broadcast_buffers=False) where they need no sync";
	snprintf(fd->why, sizeof(fd->why),
		 "%s in %s: the buffers' broadcast, flattened on the CPU (%llu spans, %.1f ms)", op,
		 r, (unsigned long long)n, (double)t / 1e6);
}

/* ---- exposed communication, after the replay ------------------------- */

/* stream-wait calls (cudaStreamWaitEvent, cuStreamWaitEvent) in the
 * trace; *recorded 1 where it holds a stream-wait record (a sync row of
 * that kind), which says which stream waited for what (torch.profiler
 * before PyTorch 2.1 writes no cuda_sync events; import counts the calls
 * too, meta import.stream_waits_unrecorded) */
static uint64_t stream_wait_calls(const struct gs_input *in, int *recorded)
{
	uint8_t *is = NULL; /* per name id: 0 not looked at, 1 a stream wait, 2 not */
	uint64_t n = 0;
	size_t i;

	*recorded = 0;
	for (i = 0; i < in->n_syncs && !*recorded; i++)
		*recorded = in->syncs[i].kind == GS_SYNC_STREAM_WAIT_EVENT;
	is = calloc(in->strings.n + 1, 1);
	if (!is)
		return 0;
	for (i = 0; i < in->n_apis; i++) {
		uint32_t id = in->apis[i].name_id;
		if (id > in->strings.n)
			continue;
		if (!is[id]) {
			const char *t = gs_str(&in->strings, id, "");
			is[id] = !strncmp(t, "cudaStreamWaitEvent", 19) ||
					 !strncmp(t, "cuStreamWaitEvent", 17)
				     ? 1
				     : 2;
		}
		n += is[id] == 1;
	}
	free(is);
	return n;
}

/* Exposed communication whose fix the replay found nothing to change in:
 * no GPU op waits for a collective, on its stream or through an event.
 * Where the trace records its stream waits that is what the trace shows,
 * and overlapping buys nothing that the replay can see: the GPU had
 * nothing else queued, so the fix is to queue some, or to look at the
 * other ranks (a collective's kernel runs until the slowest rank joins).
 * Where it records none, what waits is unknown: no saving, and the
 * finding says why: stream-wait calls with no record of them (PARAM's
 * DLRM and HTA's NCCL traces: "the replay finds nothing to fix" under
 * "overlap it"), or no stream wait at all, neither call nor record (HTA's
 * sampled ranks keep launches and copies only, yet NCCL on a stream of
 * its own needs c10d's waits). */
void gs_comm_unchanged(const struct gs_input *in, struct gs_verdict *v)
{
	uint64_t calls = 0;
	int recorded = -1;
	size_t i, k;

	for (i = 0; i < v->n_findings; i++) {
		struct gs_finding *f = &v->findings[i];
		if (f->rule != GS_RULE_COMM || f->saves != GS_SAVES_UNCHANGED)
			continue;
		if (recorded < 0)
			calls = stream_wait_calls(in, &recorded);
		if (recorded) {
			f->fix = "no GPU op waits for it, nothing else was queued while it ran: queue "
				 "independent work before waiting on it, or compare the ranks (it "
				 "waits for the slowest)";
			continue;
		}
		f->saves = GS_SAVES_NONE;
		k = strlen(f->why);
		if (calls)
			snprintf(f->why + k, sizeof(f->why) - k,
				 "%s%llu stream waits called, none recorded: what waits for it is "
				 "unknown",
				 k ? "; " : "", (unsigned long long)calls);
		else
			snprintf(f->why + k, sizeof(f->why) - k,
				 "%sno stream wait in the trace, called or recorded: what waits for "
				 "it is unknown",
				 k ? "; " : "");
	}
}
