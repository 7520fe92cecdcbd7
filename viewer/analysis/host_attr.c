/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * host_attr.c - what the host ran during host code: the code named by the
 * samples of the thread (record's sampler: gs_input.samples, the frame the
 * loader picked for each stack in gs_input.hstacks) or, in an imported
 * trace without samples, the host operator spans it was in (gs_input.
 * hranges, each span's own time: its time less its children's). Per
 * segment (gs_host_attribute) or summed over every host-code segment of
 * the analysed gaps (gs_host_code_attr), by function (file and function;
 * the line shown is the one most samples of it were at), largest first,
 * with how much of it is the framework's dispatch. It does not pick the
 * frame (the loader does) nor print anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

struct acc_item {
	uint32_t file_id, func_id;
	uint8_t kind; /* 1 sampled frame, 2 host span, 3 off-CPU sample's frame, 0 empty slot */
	uint8_t framework, via; /* with file, func and kind: the key */
	int32_t line, line_votes; /* majority vote over the samples' lines */
	int64_t weight;
};

struct gs_host_acc {
	struct acc_item *v; /* open addressing, cap a power of 2 */
	size_t cap, n;
	int64_t total, named, framework;
	int64_t samples, wait_ns; /* gs_host_attr's */
	int64_t loader_wait, loader_fetch, loader_receive, loader_receive_wait; /* gs_host_attr's */
	int64_t wall_ns, run_ns; /* gs_host_attr's */
	uint8_t source, unit_ns;
	int oom;
};

struct gs_host_acc *gs_host_acc_new(void)
{
	return calloc(1, sizeof(struct gs_host_acc));
}

void gs_host_acc_free(struct gs_host_acc *a)
{
	if (a)
		free(a->v);
	free(a);
}

static size_t slot_of(uint32_t file, uint32_t func, uint8_t kind, uint8_t fw, uint8_t via,
		      size_t cap)
{
	uint64_t h = ((uint64_t)file * 0x9E3779B97F4A7C15u) ^
		     ((uint64_t)func * 0xC2B2AE3D27D4EB4Fu) ^ kind ^ ((uint64_t)fw << 3) ^
		     ((uint64_t)via << 5);
	h ^= h >> 29;
	return (size_t)h & (cap - 1);
}

static int grow(struct gs_host_acc *a)
{
	size_t nc = a->cap ? a->cap * 2 : 64, i;
	struct acc_item *nv = calloc(nc, sizeof(*nv));

	if (!nv)
		return -1;
	for (i = 0; i < a->cap; i++) {
		size_t s;
		if (!a->v[i].kind)
			continue;
		s = slot_of(a->v[i].file_id, a->v[i].func_id, a->v[i].kind, a->v[i].framework,
			    a->v[i].via, nc);
		while (nv[s].kind)
			s = (s + 1) & (nc - 1);
		nv[s] = a->v[i];
	}
	free(a->v);
	a->v = nv;
	a->cap = nc;
	return 0;
}

/* one item per (file, function, kind, framework, via): a line of the
 * program is one item for its own code and another for the framework's
 * code it called */
static void add_item(struct gs_host_acc *a, uint32_t file, uint32_t func, uint8_t kind,
		     uint8_t framework, uint8_t via, int32_t line, int64_t w)
{
	size_t s;

	if ((a->n + 1) * 2 > a->cap && grow(a) != 0) {
		a->oom = 1;
		return;
	}
	s = slot_of(file, func, kind, framework, via, a->cap);
	while (a->v[s].kind &&
	       !(a->v[s].file_id == file && a->v[s].func_id == func && a->v[s].kind == kind &&
		 a->v[s].framework == framework && a->v[s].via == via))
		s = (s + 1) & (a->cap - 1);
	if (!a->v[s].kind) {
		a->v[s] = (struct acc_item){file, func, kind, framework, via, line, 0, 0};
		a->n++;
	}
	a->v[s].weight += w;
	if (a->v[s].line == line)
		a->v[s].line_votes++;
	else if (--a->v[s].line_votes < 0) {
		a->v[s].line = line;
		a->v[s].line_votes = 1;
	}
}

/* first sample of thread tid at or after t (samples sorted by tid, t) */
static size_t sample_lb(const struct gs_input *in, uint32_t tid, int64_t t)
{
	size_t lo = 0, hi = in->n_samples;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gs_hsample *s = &in->samples[mid];
		if (s->tid < tid || (s->tid == tid && s->t < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* one sample of stack st (kind 1 on CPU, 3 off CPU) weighing w */
static void add_sample(struct gs_host_acc *acc, const struct gs_input *in, uint32_t st,
		       uint8_t kind, int64_t w)
{
	const struct gs_hstack *h = st && st < in->n_hstacks ? &in->hstacks[st] : NULL;

	acc->total += w;
	acc->samples++;
	if (kind == 3)
		acc->wait_ns += w;
	if (h && kind == 3 && h->loader == GS_LOADER_WORKERS)
		acc->loader_wait += w;
	if (h && h->loader == GS_LOADER_SINGLE)
		acc->loader_fetch += w;
	if (h && h->receive) {
		acc->loader_receive += w;
		acc->loader_receive_wait += kind == 3 ? w : 0;
	}
	if (!h || (!h->file_id && !h->func_id))
		return;
	acc->named += w;
	acc->framework += h->framework ? w : 0;
	add_item(acc, h->file_id, h->func_id, kind, h->framework, h->via, h->line, w);
}

/* first off-CPU sample of thread tid at or after t (waits sorted by tid, t) */
static size_t wait_lb(const struct gs_input *in, uint32_t tid, int64_t t)
{
	size_t lo = 0, hi = in->n_waits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gs_hwait *s = &in->waits[mid];
		if (s->tid < tid || (s->tid == tid && s->t < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the off-CPU samples of tid over [a, b): each by its span [t - ns, t]'s
 * overlap with it. A span ends at its t: those from the first t past a on,
 * while their span may still reach below b (each under GS_HOST_WAIT_MAX_NS:
 * the sampler looks every 10 ms; a longer one was a stall of the sampler's
 * thread, clipped). */
static void add_waits(struct gs_host_acc *acc, const struct gs_input *in, uint32_t tid, int64_t a,
		      int64_t b)
{
	size_t i;

	for (i = wait_lb(in, tid, a + 1); i < in->n_waits && in->waits[i].tid == tid; i++) {
		const struct gs_hwait *x = &in->waits[i];
		int64_t ns = x->ns < GS_HOST_WAIT_MAX_NS ? x->ns : GS_HOST_WAIT_MAX_NS;
		int64_t lo = x->t - ns > a ? x->t - ns : a, hi = x->t < b ? x->t : b;
		if (x->t - GS_HOST_WAIT_MAX_NS >= b)
			break;
		if (hi > lo)
			add_sample(acc, in, x->stack, 3, hi - lo);
	}
}

int gs_host_span_framework(const char *t)
{
	/* the same names as the gap-level test (analysis.c framework_gap) */
	return t && (!strncmp(t, "aten::", 6) || !strncmp(t, "autograd::", 10) ||
		     !strncmp(t, "torch::autograd", 15) || !strncmp(t, "Optimizer.", 10) ||
		     strstr(t, ": forward") || strstr(t, ": backward") || strstr(t, "nn.Module"));
}

/* first span of thread tid starting at or after t (hranges sorted by tid, start) */
static size_t span_lb(const struct gs_input *in, uint32_t tid, int64_t t)
{
	size_t lo = 0, hi = in->n_hranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gs_hrange *h = &in->hranges[mid];
		if (h->tid < tid || (h->tid == tid && h->start < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int64_t overlap(int64_t s, int64_t e, int64_t a, int64_t b)
{
	int64_t lo = s > a ? s : a, hi = e < b ? e : b;
	return hi > lo ? hi - lo : 0;
}

/* The host spans of tid over [a, b), each by its own time in it (its
 * overlap less its children's). Spans sorted by start: walking back from
 * the first that starts at b or later, a top-level span (no parent) that
 * ends by a closes the walk (top-level spans of a thread follow one
 * another; their children lie inside them). */
static void add_spans(struct gs_host_acc *acc, const struct gs_input *in, uint32_t tid, int64_t a,
		      int64_t b)
{
	size_t hi = span_lb(in, tid, b), j, k, n = 0, cap = 0;
	uint32_t *idx = NULL;
	int64_t *self = NULL, covered = 0;

	for (j = hi; j-- > 0;) {
		const struct gs_hrange *h = &in->hranges[j];
		if (h->tid != tid)
			break;
		if (h->end > a && h->start < b) {
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 32;
				uint32_t *ni = realloc(idx, nc * sizeof(*ni));
				int64_t *ns = ni ? realloc(self, nc * sizeof(*ns)) : NULL;
				if (ni)
					idx = ni;
				if (!ns) {
					acc->oom = 1;
					goto out;
				}
				self = ns;
				cap = nc;
			}
			idx[n] = (uint32_t)j;
			self[n] = overlap(h->start, h->end, a, b);
			n++;
		} else if (h->parent == GS_NONE && h->end <= a) {
			break;
		}
	}
	/* idx is in decreasing order: a parent (earlier start) comes after */
	for (k = 0; k < n; k++) {
		uint32_t p = in->hranges[idx[k]].parent;
		size_t m;
		if (p == GS_NONE) /* its whole overlap, before its children's go */
			covered +=
			    overlap(in->hranges[idx[k]].start, in->hranges[idx[k]].end, a, b);
		for (m = k + 1; p != GS_NONE && m < n; m++)
			if (idx[m] == p) {
				self[m] -= overlap(in->hranges[idx[k]].start,
						   in->hranges[idx[k]].end, a, b);
				break;
			}
	}
	for (k = 0; k < n; k++) {
		const struct gs_hrange *h = &in->hranges[idx[k]];
		int fw;
		if (self[k] <= 0)
			continue;
		fw = gs_host_span_framework(gs_str(&in->strings, h->name_id, NULL));
		add_item(acc, 0, h->name_id, 2, (uint8_t)fw, GS_HOST_VIA_FRAME, -1, self[k]);
		if (fw)
			acc->framework += self[k];
	}
	acc->total += b - a;
	acc->samples += b - a;
	acc->named += covered < b - a ? covered : b - a;
out:
	free(idx);
	free(self);
}

void gs_host_acc_add(struct gs_host_acc *acc, const struct gs_input *in, uint32_t tid, int64_t a,
		     int64_t b)
{
	size_t i;

	if (!acc || b <= a)
		return;
	if (in->n_samples) {
		size_t i0 = sample_lb(in, tid, a);
		/* with off-CPU samples the weights are time: a CPU sample the CPU
		 * time it stands for, an off-CPU one its time inside [a, b) */
		int unit_ns = in->n_waits && in->sample_cpu_ns > 0;
		int64_t w_cpu = unit_ns ? in->sample_cpu_ns : 1;
		acc->source = GS_HOST_SRC_SAMPLES;
		acc->unit_ns = (uint8_t)unit_ns;
		/* sampled since before a: else the sampler may not have run yet */
		if (in->sample_cpu_ns > 0 && i0 && in->samples[i0 - 1].tid == tid) {
			acc->wall_ns += b - a;
			acc->run_ns += (int64_t)(sample_lb(in, tid, b) - i0) * in->sample_cpu_ns;
		}
		for (i = i0; i < in->n_samples && in->samples[i].tid == tid && in->samples[i].t < b;
		     i++)
			add_sample(acc, in, in->samples[i].stack, 1, w_cpu);
		if (unit_ns)
			add_waits(acc, in, tid, a, b);
	} else if (in->n_hranges) {
		acc->source = GS_HOST_SRC_SPANS;
		add_spans(acc, in, tid, a, b);
	}
}

static int heavier(const struct acc_item *x, const struct gs_host_item *y)
{
	if (x->weight != y->weight)
		return x->weight > y->weight;
	if (x->file_id != y->file_id)
		return x->file_id < y->file_id;
	if (x->func_id != y->func_id)
		return x->func_id < y->func_id;
	return x->via < y->via;
}

/* the result, its top limited to the framework's items (cls 1), the
 * program's own (0) or all (-1) */
static void acc_result(const struct gs_host_acc *acc, struct gs_host_attr *out, int cls)
{
	size_t i, k;

	memset(out, 0, sizeof(*out));
	if (!acc)
		return;
	out->source = acc->total ? acc->source : 0;
	out->unit_ns = acc->unit_ns;
	out->samples = acc->samples;
	out->wait_ns = acc->wait_ns;
	out->loader_wait = acc->loader_wait;
	out->loader_fetch = acc->loader_fetch;
	out->loader_receive = acc->loader_receive;
	out->loader_receive_wait = acc->loader_receive_wait;
	out->total = acc->total;
	out->named = acc->named;
	out->framework = acc->framework;
	out->wall_ns = acc->wall_ns;
	out->run_ns = acc->run_ns;
	for (i = 0; i < acc->cap; i++) {
		const struct acc_item *x = &acc->v[i];
		if (!x->kind || (cls >= 0 && x->framework != cls))
			continue;
		/* insertion into the top GS_HOST_TOP, heaviest first */
		for (k = out->n_top; k > 0 && heavier(x, &out->top[k - 1]); k--)
			;
		if (k >= GS_HOST_TOP)
			continue;
		memmove(&out->top[k + 1], &out->top[k],
			(GS_HOST_TOP - 1 - k) * sizeof(out->top[0]));
		out->top[k].file_id = x->file_id;
		out->top[k].func_id = x->func_id;
		out->top[k].line = x->line;
		out->top[k].span = x->kind == 2;
		out->top[k].wait = x->kind == 3;
		out->top[k].framework = x->framework;
		out->top[k].via = x->via;
		out->top[k].weight = x->weight;
		if (out->n_top < GS_HOST_TOP)
			out->n_top++;
	}
}

void gs_host_acc_result(const struct gs_host_acc *acc, struct gs_host_attr *out)
{
	acc_result(acc, out, -1);
}

void gs_host_attribute(const struct gs_input *in, uint32_t tid, int64_t a, int64_t b,
		       struct gs_host_attr *out)
{
	struct gs_host_acc *acc;

	memset(out, 0, sizeof(*out));
	if (!in->n_samples && !in->n_hranges)
		return;
	if (!(acc = gs_host_acc_new()))
		return;
	gs_host_acc_add(acc, in, tid, a, b);
	gs_host_acc_result(acc, out);
	gs_host_acc_free(acc);
}

/* Which host code host_walk sums. */
enum walk_how {
	WALK_ALL,     /* every host-code segment, into acc[0] */
	WALK_STALLS,  /* those of the stalls, into acc[class]: 0 start-up, 1 input, 2 other */
	WALK_OUTSIDE, /* their parts outside [a, b], into acc[0] */
};

/* The host-code segments of res's gaps into acc as `how` says. 0, -1 when
 * a gap's segments could not be had (its first 32 are summed then). */
static int host_walk(const struct gs_result *res, enum walk_how how, int64_t a, int64_t b,
		     struct gs_host_acc *const acc[3])
{
	struct gs_segment buf[32], *segs;
	size_t d, g, k;
	int oom = 0;

	for (d = 0; d < res->n_devices; d++)
		for (g = 0; g < res->devices[d].n_gaps; g++) {
			const struct gs_gap *gp = &res->devices[d].gaps[g];
			int64_t host = 0;
			int cls = 0;
			size_t n;
			if (how == WALK_OUTSIDE && gp->start >= a && gp->end <= b)
				continue;
			n = gs_gap_segments_all(res, gp, buf, sizeof(buf) / sizeof(buf[0]), &segs);
			if (n == (size_t)-1) {
				oom = 1;
				n = sizeof(buf) / sizeof(buf[0]);
				segs = buf;
			}
			if (how == WALK_STALLS) {
				for (k = 0; k < n; k++)
					if (segs[k].cause == GS_CAUSE_HOST_CODE)
						host += segs[k].end - segs[k].start;
				/* as analysis.c tl_stall classes a gap: start-up
				 * first, then input, then the rest */
				cls = gs_startup_gap(res->first_range, gp) ? 0
				      : gp->op_idx < res->in->n_ops &&
					      (res->in->ops[gp->op_idx].flags & GS_OPF_HOST_SRC)
					  ? 1
					  : 2;
			}
			for (k = 0; k < n && (how != WALK_STALLS || host >= GS_HOST_STALL_NS); k++) {
				const struct gs_segment *sg = &segs[k];
				if (sg->cause != GS_CAUSE_HOST_CODE || !sg->tid)
					continue;
				if (how != WALK_OUTSIDE) {
					gs_host_acc_add(acc[cls], res->in, sg->tid, sg->start, sg->end);
					continue;
				}
				/* the parts before a and after b */
				if (sg->start < a)
					gs_host_acc_add(acc[0], res->in, sg->tid, sg->start,
							sg->end < a ? sg->end : a);
				if (sg->end > b)
					gs_host_acc_add(acc[0], res->in, sg->tid,
							sg->start > b ? sg->start : b, sg->end);
			}
			if (segs != buf)
				free(segs);
		}
	return oom ? -1 : 0;
}

/* host_walk into n_acc accumulators, then out[i] from acc[i] (classes[i]:
 * acc_result's cls) for n_out results */
static int host_sum(const struct gs_result *res, enum walk_how how, int64_t a, int64_t b,
		    size_t n_acc, const int *classes, size_t n_out, struct gs_host_attr *out)
{
	struct gs_host_acc *acc[3] = {NULL, NULL, NULL};
	size_t i;
	int rc = 0;

	memset(out, 0, n_out * sizeof(*out));
	if (!res->in || (!res->in->n_samples && !res->in->n_hranges))
		return 0;
	for (i = 0; i < 3; i++)
		if (!(acc[i] = i < n_acc ? gs_host_acc_new() : acc[0]))
			rc = -1;
	if (!rc)
		rc = host_walk(res, how, a, b, acc);
	for (i = 0; i < n_out; i++) {
		struct gs_host_acc *x = acc[n_acc > 1 ? i : 0];
		rc |= x && x->oom ? -1 : 0;
		acc_result(x, &out[i], classes ? classes[i] : -1);
	}
	for (i = 0; i < n_acc; i++)
		gs_host_acc_free(acc[i]);
	return rc ? -1 : 0;
}

int gs_host_code_attr_split(const struct gs_result *res, struct gs_host_attr out[3])
{
	static const int classes[3] = {-1, 1, 0};

	return host_sum(res, WALK_ALL, 0, 0, 1, classes, 3, out);
}

int gs_host_stall_attr(const struct gs_result *res, struct gs_host_attr out[3])
{
	return host_sum(res, WALK_STALLS, 0, 0, 3, NULL, 3, out);
}

int gs_host_code_attr_outside(const struct gs_result *res, int64_t a, int64_t b,
			      struct gs_host_attr *out)
{
	return host_sum(res, WALK_OUTSIDE, a, b, 1, NULL, 1, out);
}

size_t gs_host_why_append(char *buf, size_t n, size_t k, const struct gs_input *in,
			  const struct gs_host_attr *a, int64_t total)
{
	double run = gs_host_running(in, a);
	char lead[48];
	size_t m;
	char items[256];

	/* where its threads ran under half of it, the samples name only that part */
	if (run >= 0.0 && run < 0.5)
		snprintf(lead, sizeof(lead), "%ssamples (running %.0f%% of it): ", k ? "; " : "",
			 100.0 * run);
	else
		snprintf(lead, sizeof(lead), "%ssamples: ", k ? "; " : "");
	m = k + strlen(lead);

	if (a->source != GS_HOST_SRC_SAMPLES || a->samples < GS_HOST_MIN_SAMPLES || m + 8 > n)
		return k;
	/* whole items only, and buf as it was where none fits */
	gs_host_attr_text(items, n - m < sizeof(items) ? n - m : sizeof(items), in, a, total);
	if (!items[0])
		return k;
	return k + (size_t)snprintf(buf + k, n - k, "%s%s", lead, items);
}

int gs_host_code_attr(const struct gs_result *res, struct gs_host_attr *out)
{
	struct gs_host_attr three[3];
	int rc = gs_host_code_attr_split(res, three);

	*out = three[0];
	return rc;
}

const char *gs_host_short_path(const char *p)
{
	static const char *const roots[] = {"/site-packages/", "/dist-packages/"};
	const char *r, *q;
	size_t i;

	if (!p)
		return "?";
	for (i = 0; i < 2; i++)
		if ((r = strstr(p, roots[i])))
			return r + strlen(roots[i]);
	if ((r = strstr(p, "/lib/python3")) && (q = strchr(r + 12, '/')))
		return q + 1;
	r = strrchr(p, '/');
	if (!r)
		return p;
	for (q = r - 1; q >= p && *q != '/'; q--)
		;
	return q >= p ? q + 1 : p;
}

void gs_host_item_name(char *buf, size_t n, const struct gs_input *in,
		       const struct gs_host_item *it)
{
	const char *pre = it->via == GS_HOST_VIA_IMPORT ? (it->wait ? "waiting in imports from "
								      : "imports from ")
			  : it->wait			? "waiting in "
							: "";
	const char *post = it->via == GS_HOST_VIA_FRAMEWORK ? " (in the framework)" : "";

	if (!n)
		return;
	if (it->span)
		snprintf(buf, n, "%s", gs_str(&in->strings, it->func_id, "?"));
	else if (it->line >= 0)
		snprintf(buf, n, "%s%s:%s line %d%s", pre,
			 gs_host_short_path(gs_str(&in->strings, it->file_id, "?")),
			 gs_str(&in->strings, it->func_id, "?"), it->line, post);
	else
		snprintf(buf, n, "%s%s:%s%s", pre,
			 gs_host_short_path(gs_str(&in->strings, it->file_id, "?")),
			 gs_str(&in->strings, it->func_id, "?"), post);
}

double gs_host_running(const struct gs_input *in, const struct gs_host_attr *a)
{
	double r;

	/* a sample comes every sample_cpu_ns of the thread's CPU time, so a
	 * segment's count is within one of the truth: too coarse for less */
	if (in->sample_cpu_ns <= 0 || a->wall_ns < GS_HOST_ON_CPU_SAMPLES * in->sample_cpu_ns)
		return -1.0;
	r = (double)a->run_ns / (double)a->wall_ns;
	return r > 1.0 ? 1.0 : r;
}

double gs_host_pct(int64_t w, int64_t total)
{
	double p = total > 0 ? 100.0 * (double)w / (double)total : 0.0;

	/* "100%" beside a second item would say the first was all of it */
	return w < total && p >= 99.5 ? 99.0 : p;
}

void gs_host_attr_text(char *buf, size_t n, const struct gs_input *in, const struct gs_host_attr *a,
		       int64_t total)
{
	size_t i, k = 0;

	if (!n)
		return;
	buf[0] = '\0';
	for (i = 0; i < a->n_top && total > 0 && k + 1 < n; i++) {
		char item[160];
		int w;
		gs_host_item_name(item, sizeof(item), in, &a->top[i]);
		w = snprintf(buf + k, n - k, "%s%.0f%% %s", i ? ", " : "",
			     gs_host_pct(a->top[i].weight, total), item);
		if (w < 0 || (size_t)w >= n - k) {
			/* no half item: end at the last whole one */
			buf[k] = '\0';
			break;
		}
		k += (size_t)w;
	}
}

/* The program's own host code that its samples show is mostly the
 * DataLoader's (h: over every host-code segment): the main thread waiting
 * off CPU for the workers' batches (off-CPU samples in _try_get_data), or
 * fetching them itself (the single-process loader's fetch). The input
 * stall's fixes, not "overlap it or move it off the step": that is what a
 * loader already does (issue 54: an H100 training loop with 2 workers
 * was told to overlap its own work). NULL: the rule's own fix (verdict.c). */
const char *gs_host_loader_fix(const struct gs_host_attr *h)
{
	int64_t own = h->total - h->framework;

	if (own <= 0)
		return NULL;
	if (2 * h->loader_wait >= own)
		return "the DataLoader's workers can't keep up: more num_workers, prefetch_factor, "
		       "persistent_workers, cheaper transforms";
	if (2 * h->loader_fetch >= own)
		return "load inputs ahead: DataLoader(num_workers>0, pin_memory=True)";
	return NULL;
}
