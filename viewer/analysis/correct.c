/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * correct.c - the report's figures corrected for the collector's own cost.
 *
 * The model (docs/collector.md, "Overhead correction"), per idle gap of a
 * device, from its gap model v2 segments:
 *  - host late (the launch call began after the GPU went idle): tracing made
 *    every CUDA call of the launching thread slower, so the gap shrinks by
 *    the calls in its CUDA API segments x the calibrated cost per call,
 *    plus the launch call's own added cost, at most the time of those
 *    segments and of the launch latency (host code is the program's own and
 *    stays). The launch call's added cost is its traced duration less the
 *    untraced duration of a launch call (calibration.plain_*: measured in a
 *    process that never loaded CUPTI), at most GS_MAX_LAUNCH_EXCESS_NS: a
 *    process runs its traced launches fast or slow (H200: 0.2 or 2.5-3 us
 *    added a launch, whatever the calibration's own process met), so the
 *    program's own durations say which; traces without plain_* take the
 *    calibrated per-call cost; a graph launch call is taken against the
 *    calibrated untraced graph launch of its node count (plain_graph_*:
 *    H200, ~1.2 us whatever the count, against 0.8-1.3 us a node traced);
 *    and, besides, by the collector's call-site captures on that thread
 *    that lie in the gap (gs_input.captures: the loader put them inside the
 *    calls they were made in), at most the gap. Only what follows the
 *    gap's last wait for the GPU or a host function counts: calls and
 *    captures before it only shortened the wait (H200, gap_phases
 *    explicit_sync: 37 us captures at the entry of syncs that then waited
 *    300 us were taken off a wall they did not lengthen, -9 to -16%). A
 *    call in which the thread waited for nobody is not such a wait but a
 *    CUDA call like the others (own_work: a copy's staging, an allocation,
 *    a sync that began with the device idle). With the calibration's
 *    launch_gap_ns, or the trace's own bound on it (time_before), a launch
 *    call's added cost also takes CUPTI's time between two calls' records,
 *    at most the time the thread left;
 *  - launch call in progress when the GPU went idle (it began before the
 *    gap): the call's added cost, at most the launch latency (H200,
 *    back-to-back launches of gap_phases: most gaps are of this kind);
 *  - op already enqueued (launch latency, graph-internal): the GPU's added
 *    idle between back-to-back kernels (gpu_gap_ns), at most the segment;
 *  - the staging of an upload from pageable memory whose call began before
 *    the gap: also the thread's tracing costs before the call, back to its
 *    last wait (staging_shrink).
 * A launched kernel's busy time becomes what it occupies the GPU untraced
 * from a full queue (kernel_occ: with the H200's calibration it gains the
 * ~1 us switch to the next kernel that the trace shows as idle), and a graph
 * node's gains the idle left before the next node of its graph (at most
 * plain_graph_pitch_ns); with a calibration before that, a kernel shrinks by
 * kernel_ns (CUPTI's instrumentation of a launched kernel). A graph node's
 * shrinks by the growth of a storing node's pitch under tracing
 * (store_graph_node_ns, node_occ), or with an older calibration by
 * graph_node_ns - gpu_gap_ns (an empty node's, less the part that is idle
 * between nodes), each scaled by how much
 * of the device's op time was not overlapped. A kernel followed by a gap
 * in which the GPU waited for the host (host late, or the next launch call
 * still running, and no wait of the thread for the GPU or a host function
 * in the gap) ends sooner but the next op does not start sooner: its
 * shrink is busy time that becomes idle, not time off the window (H200,
 * gap_phases back_to_back: taking 640 ns off the wall for each of 2000
 * host-bound kernels over-corrected by 10-15%).
 * The corrected window is the measured one less the gaps' shrink and the
 * shrink of the kernels that were not followed by such a gap. What it does
 * not do: move later work earlier when an earlier correction would have let
 * the GPU start it sooner while it was busy (a queue that was full stays
 * full), or correct gaps whose cause is the program's host code.
 * It does not read traces or print: arrays in, figures out.
 *
 * Why one file of about 1,300 lines (CONVENTIONS.md: ~1,200): the model
 * above is applied gap by gap in one pass, and its parts (per-call costs,
 * occupancy, staging, waits) all read the one struct ctx that gs_correct
 * builds; this comment is their specification, kept beside them.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correct.h"
#include "gapscope/trace_format.h" /* enum gs_sync_kind */

#define MAX_SEGS 64

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* 1 if n names a driver API call (cuLaunchKernel), 0 a runtime one */
static int driver_call(const char *n)
{
	return !strncmp(n, "cu", 2) && strncmp(n, "cuda", 4);
}

/* host cost of one traced call like the launch call api (an apis index) */
static int64_t call_cost(const struct gs_input *in, const struct gs_calibration *cal, uint32_t api)
{
	const char *n = api < in->n_apis ? gs_str(&in->strings, in->apis[api].name_id, "") : "";

	if (driver_call(n))
		return cal->driver_launch_ns;
	/* the stream kind of the call is not known here: the mean of the
	 * non-blocking and legacy-stream costs */
	return (cal->launch_ns + cal->legacy_launch_ns) / 2;
}

/* A launch call that exceeds its untraced time by more than this did
 * something besides tracing (loaded a module, waited for a full queue): only
 * this much of it counts as tracing's. A graph launch may exceed it by
 * GS_MAX_GRAPH_NODE_EXCESS_NS more per node: traced, cudaGraphLaunch took
 * 1.2-2.9 us a node on the H200 (docs/collector.md). */
#define GS_MAX_LAUNCH_EXCESS_NS 10000
/* A launch call that began this long or more after its thread's previous
 * CUDA call ended had the program's work between (a Python loop: ~10 us);
 * with the calibration's spaced figures it is taken against them */
#define GS_SPACED_LAUNCH_NS 2000
#define GS_MAX_GRAPH_NODE_EXCESS_NS 4000

/* node counts of graph launch calls: nodes[api] ops launched by call api,
 * GRAPH_NODES_UNKNOWN where they are not in the trace one by one */
#define GRAPH_NODES_UNKNOWN UINT32_MAX

/* What a kernel loses. busy: off its duration (negative: it gains the GPU's
 * switch to the next kernel, which the trace shows as idle); wall: off the
 * window when a kernel follows it at once; gap: off the idle between
 * back-to-back kernels. */
struct occ {
	int64_t busy, wall, gap;
};

/* the calibration timed tiny kernels from a full queue (kernel_occ) */
static int have_occupancy(const struct gs_calibration *cal)
{
	return cal->kernel_pitch_ns > 0 && cal->plain_kernel_pitch_ns > 0 &&
	       cal->tiny_kernel_ns > 0;
}

/* A launched kernel, from a full queue of tiny kernels (calibration
 * *_kernel_pitch_ns: the GPU's time per kernel, switch included;
 * tiny_kernel_ns: the duration CUPTI records): untraced it occupies the GPU
 * its recorded duration less (recorded - untraced pitch), and a run of
 * back-to-back kernels shortens by (traced - untraced pitch) a kernel.
 * Older calibrations: kernel_ns off each kernel, gpu_gap_ns off the idle. */
static struct occ kernel_occ(const struct gs_calibration *cal)
{
	struct occ o = {cal->kernel_ns, cal->kernel_ns, cal->gpu_gap_ns};
	int64_t growth = cal->kernel_pitch_ns - cal->plain_kernel_pitch_ns;

	if (!have_occupancy(cal))
		return o;
	o.busy = cal->tiny_kernel_ns - cal->plain_kernel_pitch_ns;
	o.wall = o.busy > 0 ? o.busy : 0;
	o.gap = growth - o.wall > 0 ? growth - o.wall : 0;
	return o;
}

/* Graph nodes lose the growth of a graph's pitch under tracing off each
 * node, not split as for launched kernels: the calibration's empty nodes show it as idle between
 * them (1047 - 704 ns of a 1047 ns pitch, H200), a program's nodes in their records (the decode
 * demo's graphs: 87 ns between nodes), so splitting it as for launched kernels took too little off
 * (decode demo graph ranges +9 to +21% long, against -6 to +1% this way; 2026-12-05). */
static struct occ node_occ(const struct gs_calibration *cal)
{
	int64_t per;

	/* a node that stores, as a program's do (H200: 209 ns against the
	 * untraced child, where an empty node grows by 350; with it the
	 * graph ranges of gap_phases, the decode demo and a PyTorch CUDA graph
	 * came within 3% of their untraced walls, 2-11% short before): all of
	 * it off the node, none between nodes */
	if (cal->store_graph_node_ns >= 0)
		return (struct occ){cal->store_graph_node_ns, cal->store_graph_node_ns, 0};
	per = cal->graph_node_ns > 0
		  ? cal->graph_node_ns - min64(cal->gpu_gap_ns, cal->graph_node_ns)
		  : cal->kernel_ns;
	return (struct occ){per, per, cal->gpu_gap_ns};
}

/* what the gaps' shrink reads besides the gap */
struct ctx {
	const struct gs_input *in;
	const struct gs_result *res;
	const struct gs_calibration *cal;
	const struct gs_capture *caps; /* sorted by start */
	size_t n_caps;
	const struct gs_capture *stalls; /* CUPTI's, by start */
	size_t n_stalls;
	const uint32_t *nodes; /* per api, or NULL: no graph calibration */
	/* per api: the time since the thread's previous CUDA call ended, or
	 * NULL (no launch_gap); -1 for a thread's first call */
	const int64_t *before;
	/* CUPTI's time between launch records that a launch call's cost
	 * takes (gs_corrected.launch_gap_ns) */
	int64_t launch_gap;
	/* starts of the host-function enqueue calls, sorted (a sync in an
	 * idle gap may wait for one) */
	const int64_t *hostfn;
	size_t n_hostfn;
	int copies_hidden; /* copy or set calls but no copy or set records */
	int device;	   /* the device whose gaps are at hand */
	struct occ kernel, node;
};

/* sum and count of the launch costs taken, for gs_corrected.per_call_ns,
 * how many of them were taken against the spaced launch (spaced_calls), and
 * those calls' record durations (rec, n_rec of cap_rec; for
 * spaced_record_p50_ns; NULL when out of memory) */
struct cost_acc {
	int64_t sum, n, spaced;
	int64_t *rec;
	size_t n_rec, cap_rec;
};

/* add a spaced call's record duration to a's (dropped when out of memory:
 * the median is then of fewer) */
static void acc_record(struct cost_acc *a, int64_t ns)
{
	if (a->n_rec == a->cap_rec) {
		size_t cap = a->cap_rec ? 2 * a->cap_rec : 256;
		int64_t *g = realloc(a->rec, cap * sizeof(*g));
		if (!g)
			return;
		a->rec = g;
		a->cap_rec = cap;
	}
	a->rec[a->n_rec++] = ns;
}

/* 1 if api, a runtime kernel launch call (not a driver one: drv), began
 * GS_SPACED_LAUNCH_NS or more after its thread's previous CUDA call ended
 * and the calibration timed such a call: launch_cost takes it against that */
static int spaced_launch(const struct ctx *x, uint32_t api, int drv)
{
	return !drv && x->cal->spaced_record_ns > 0 && x->before &&
	       x->before[api] >= GS_SPACED_LAUNCH_NS;
}

/* what tracing added to launch call api: its traced duration less the
 * untraced one, or calibrated (its call_cost) where that is unknown. A
 * graph launch of known node count is taken against the calibrated
 * untraced graph launch; *graph says so, and *spaced (NULL: not wanted)
 * whether the call was taken against the spaced launch. */
static int64_t launch_cost(const struct ctx *x, uint32_t api, int64_t calibrated, int *graph,
			   int *spaced)
{
	const struct gs_input *in = x->in;
	const struct gs_calibration *cal = x->cal;
	const char *n = api < in->n_apis ? gs_str(&in->strings, in->apis[api].name_id, "") : "";
	int drv = driver_call(n);
	int64_t plain = drv ? cal->plain_driver_ns : cal->plain_launch_ns, ex, cap;

	*graph = 0;
	if (spaced)
		*spaced = 0;
	if (api >= in->n_apis)
		return calibrated;
	if (gs_api_is_graph_launch(n)) {
		uint32_t k = x->nodes ? x->nodes[api] : 0;
		if (!k || k == GRAPH_NODES_UNKNOWN)
			return calibrated;
		plain = cal->plain_graph_ns + cal->plain_graph_node_ns * k;
		cap = GS_MAX_LAUNCH_EXCESS_NS + (int64_t)k * GS_MAX_GRAPH_NODE_EXCESS_NS;
		ex = in->apis[api].end - in->apis[api].start - plain;
		*graph = 1;
		return ex < 0 ? 0 : min64(ex, cap);
	}
	/* the untraced figure is a kernel launch's: a copy or a memset takes
	 * the calibrated cost */
	if (plain < 0 || !strstr(n, "LaunchKernel"))
		return calibrated;
	/* a runtime launch after the program's own work: what tracing added
	 * to the calibration's such call, timed from outside (the time CUPTI
	 * spends beyond the record included), plus how much longer this
	 * record ran than the calibration's record of that call */
	if (spaced_launch(x, api, drv)) {
		if (spaced)
			*spaced = 1;
		ex = in->apis[api].end - in->apis[api].start - cal->spaced_record_ns +
		     cal->spaced_launch_ns;
		/* the program's own launches, timed untraced in its
		 * reference runs, cost this much more than the
		 * calibration's empty kernel: not tracing's */
		if (cal->program_spaced_ns > 0 && cal->plain_spaced_ns > 0)
			ex -= cal->program_spaced_ns - cal->plain_spaced_ns;
		return ex < 0 ? 0 : min64(ex, GS_MAX_LAUNCH_EXCESS_NS);
	}
	ex = in->apis[api].end - in->apis[api].start - plain;
	/* the untraced figure is a loop's pitch: traced, CUPTI also spends
	 * time between the calls' records, at most the time the thread left
	 * between this call and its previous one */
	if (x->before && x->before[api] > 0 && x->launch_gap > 0)
		ex += min64(x->before[api], x->launch_gap);
	return ex < 0 ? 0 : min64(ex, GS_MAX_LAUNCH_EXCESS_NS);
}

static int cmp_api_thread(const void *a, const void *b, void *arg)
{
	const struct gs_api *apis = arg;
	const struct gs_api *x = &apis[*(const uint32_t *)a], *y = &apis[*(const uint32_t *)b];
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* What own_work() reads of the calls: x->hostfn (the host-function enqueue
 * calls' starts, sorted; NULL if none) and x->copies_hidden. 0 or -ENOMEM. */
static int scan_calls(const struct gs_input *in, struct ctx *x, int64_t **hostfn)
{
	enum { UNSEEN = 0, OTHER, COPY, HOSTFN };
	uint8_t *kind = NULL; /* per name id, what its calls are */
	int copy_calls = 0, copy_ops = 0;
	size_t i, n = 0;

	*hostfn = NULL;
	for (i = 0; i < in->n_ops && !copy_ops; i++)
		copy_ops = in->ops[i].kind == GS_OP_MEMCPY || in->ops[i].kind == GS_OP_MEMSET;
	if (in->n_apis)
		kind = calloc(in->strings.n ? in->strings.n : 1, 1);
	if (in->n_apis && !kind)
		return -ENOMEM;
	for (i = 0; i < in->n_apis; i++) {
		uint32_t id = in->apis[i].name_id;
		uint8_t k = id < in->strings.n ? kind[id] : OTHER;
		if (k == UNSEEN) {
			const char *nm = gs_str(&in->strings, id, "");
			k = strstr(nm, "Memcpy") || strstr(nm, "Memset")		? COPY
			    : strstr(nm, "LaunchHostFunc") || strstr(nm, "AddCallback") ? HOSTFN
											: OTHER;
			kind[id] = k;
		}
		copy_calls |= k == COPY;
		if (k != HOSTFN)
			continue;
		if (!*hostfn) {
			*hostfn = malloc(in->n_apis * sizeof(**hostfn));
			if (!*hostfn) {
				free(kind);
				return -ENOMEM;
			}
		}
		(*hostfn)[n++] = in->apis[i].start;
	}
	free(kind);
	if (n)
		qsort(*hostfn, n, sizeof(**hostfn), gs_cmp_i64);
	x->hostfn = *hostfn;
	x->n_hostfn = n;
	x->copies_hidden = copy_calls && !copy_ops;
	return 0;
}

/* The trace's own bound on CUPTI's time between launch records: of the
 * gaps between a thread's back-to-back kernel launch calls (a launch call
 * right after another, no other call between), the 5th percentile, where
 * there are at least GS_TRACE_GAP_MIN_PAIRS and it is under
 * GS_TRACE_GAP_MAX_NS (the program launches back to back at times; its own
 * code between them only lengthens a gap). */
#define GS_TRACE_GAP_MIN_PAIRS 100
#define GS_TRACE_GAP_MAX_NS 1000

/* per api: 1 a kernel launch call (...LaunchKernel..., runtime or driver),
 * 0 another call; NULL without memory */
static uint8_t *kernel_launches(const struct gs_input *in)
{
	uint8_t *kind = calloc(in->strings.n ? in->strings.n : 1, 1), *v = malloc(in->n_apis);
	size_t i;

	if (!kind || !v) {
		free(kind);
		free(v);
		return NULL;
	}
	for (i = 0; i < in->n_apis; i++) {
		uint32_t id = in->apis[i].name_id;
		uint8_t k = id < in->strings.n ? kind[id] : 2;
		if (!k) { /* 1 a launch, 2 another call; per name, looked up once */
			k = strstr(gs_str(&in->strings, id, ""), "LaunchKernel") ? 1 : 2;
			kind[id] = k;
		}
		v[i] = k == 1;
	}
	free(kind);
	return v;
}

/* Per api, the time since the previous call of its thread ended (-1 for a
 * thread's first call, 0 where they overlap: a driver call inside a runtime
 * call) and *trace_gap (the trace's bound above, -1 none); NULL with
 * *err = -ENOMEM, or without calls. */
static int64_t *time_before(const struct gs_input *in, int64_t *trace_gap, int *err)
{
	/* the threads' last call so far, in the array's order (the loader's:
	 * each thread's calls by start, as the collector writes them) */
	enum { MAX_THREADS = 256 };
	struct last_call {
		uint32_t tid;
		uint32_t api;
		int64_t start, end;
	} th[MAX_THREADS];
	size_t i, k, n_th = 0, n_pairs = 0;
	uint32_t *ix = NULL;
	uint8_t *launch;
	int64_t *before, *pairs, last = 0;

	*err = 0;
	*trace_gap = -1;
	if (!in->n_apis)
		return NULL;
	before = malloc(in->n_apis * sizeof(*before));
	pairs = malloc(in->n_apis * sizeof(*pairs));
	launch = kernel_launches(in);
	if (!before || !pairs || !launch)
		goto oom;
	for (i = 0; i < in->n_apis; i++) {
		const struct gs_api *a = &in->apis[i];
		for (k = 0; k < n_th && th[k].tid != a->tid; k++)
			;
		if (k == n_th) {
			if (n_th == MAX_THREADS)
				break;
			th[n_th++] = (struct last_call){a->tid, (uint32_t)i, a->start, a->end};
			before[i] = -1;
			continue;
		}
		if (a->start < th[k].start)
			break; /* not by start: sort below */
		before[i] = a->start > th[k].end ? a->start - th[k].end : 0;
		if (launch[i] && launch[th[k].api] && a->start >= th[k].end)
			pairs[n_pairs++] = before[i];
		th[k].api = (uint32_t)i;
		th[k].start = a->start;
		if (a->end > th[k].end)
			th[k].end = a->end;
	}
	if (i < in->n_apis) {
		ix = malloc(in->n_apis * sizeof(*ix));
		if (!ix)
			goto oom;
		for (i = 0; i < in->n_apis; i++)
			ix[i] = (uint32_t)i;
		qsort_r(ix, in->n_apis, sizeof(*ix), cmp_api_thread, (void *)in->apis);
		n_pairs = 0;
		for (i = 0; i < in->n_apis; i++) {
			const struct gs_api *a = &in->apis[ix[i]];
			if (i == 0 || in->apis[ix[i - 1]].tid != a->tid) {
				before[ix[i]] = -1;
				last = a->end;
				continue;
			}
			before[ix[i]] = a->start > last ? a->start - last : 0;
			if (launch[ix[i]] && launch[ix[i - 1]] && a->start >= last)
				pairs[n_pairs++] = before[ix[i]];
			if (a->end > last)
				last = a->end;
		}
		free(ix);
	}
	if (n_pairs >= GS_TRACE_GAP_MIN_PAIRS) {
		int64_t g = gs_percentile(pairs, n_pairs, 5.0);
		if (g < GS_TRACE_GAP_MAX_NS)
			*trace_gap = g;
	}
	free(pairs);
	free(launch);
	return before;
oom:
	free(before);
	free(pairs);
	free(launch);
	*err = -ENOMEM;
	return NULL;
}

/* The ops each graph launch call launched (kernels, copies, sets of its
 * graph), where the calibration has the untraced graph launch; NULL
 * otherwise, or *err = -ENOMEM. A graph run (graph-level trace) hides the
 * count. */
static uint32_t *graph_node_counts(const struct gs_input *in, const struct gs_result *res,
				   const struct gs_calibration *cal, int *err)
{
	uint32_t *nodes = NULL;
	size_t i;

	*err = 0;
	if (cal->plain_graph_ns < 0 || cal->plain_graph_node_ns < 0)
		return NULL;
	for (i = 0; i < in->n_ops; i++) {
		const struct gs_op *o = &in->ops[i];
		uint32_t api;
		if (!o->graph_id && o->kind != GS_OP_GRAPH_RUN)
			continue;
		api = gs_launch_call(res, (uint32_t)i);
		if (api == GS_NONE || api >= in->n_apis)
			continue;
		if (!nodes) {
			nodes = calloc(in->n_apis, sizeof(*nodes));
			if (!nodes) {
				*err = -ENOMEM;
				return NULL;
			}
		}
		if (o->kind == GS_OP_GRAPH_RUN)
			nodes[api] = GRAPH_NODES_UNKNOWN;
		else if (nodes[api] != GRAPH_NODES_UNKNOWN)
			nodes[api]++;
	}
	return nodes;
}

static int cmp_capture_start(const void *a, const void *b)
{
	int64_t x = ((const struct gs_capture *)a)->start,
		y = ((const struct gs_capture *)b)->start;
	return x < y ? -1 : x > y;
}

/* The n spans of v no longer than max_len, sorted by start (*kept of them),
 * or NULL when out of memory */
static struct gs_capture *by_start(const struct gs_capture *v, size_t n, int64_t max_len,
				   size_t *kept)
{
	struct gs_capture *c = malloc(n * sizeof(*c));
	size_t i;

	*kept = 0;
	if (!c)
		return NULL;
	for (i = 0; i < n; i++)
		if (v[i].end >= v[i].start && v[i].end - v[i].start <= max_len)
			c[(*kept)++] = v[i];
	qsort(c, *kept, sizeof(*c), cmp_capture_start);
	return c;
}

/* The spans of thread tid (0: any) inside [a, b), summed; c sorted by
 * start, none longer than max_len (longer ones were dropped): call-site
 * captures (GS_CAPTURE_MAX_NS) or CUPTI's stalls (GS_STALL_MAX_NS). */
#define GS_CAPTURE_MAX_NS 1000000
#define GS_STALL_MAX_NS 1000000000
static int64_t captured_in(const struct gs_capture *c, size_t n, int64_t max_len, uint32_t tid,
			   int64_t a, int64_t b)
{
	size_t lo = 0, hi = n;
	int64_t sum = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c[mid].start < a - max_len)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && c[lo].start < b; lo++) {
		int64_t s = c[lo].start > a ? c[lo].start : a, e = min64(c[lo].end, b);
		if (e > s && (!tid || !c[lo].tid || c[lo].tid == tid))
			sum += e - s;
	}
	return sum;
}

/* A host function enqueued this long before a sync may still be running
 * when the sync begins: the sync then waits for it. */
#define GS_HOSTFN_HORIZON_NS 1000000000LL

/* 1 when a host function was enqueued in [t - GS_HOSTFN_HORIZON_NS, t] */
static int hostfn_near(const struct ctx *x, int64_t t)
{
	size_t lo = 0, hi = x->n_hostfn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->hostfn[mid] < t - GS_HOSTFN_HORIZON_NS)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->n_hostfn && x->hostfn[lo] <= t;
}

/* When sync y, whose blocked piece is segment s, began to wait: at its
 * start, or after the collector's captures at its entry (in the call, on
 * its thread) where they end later */
static int64_t waits_from(const struct ctx *x, const struct gs_sync *y, const struct gs_segment *s)
{
	int64_t from = y->start;
	size_t lo = 0, hi = x->n_caps;

	while (lo < hi) { /* the first capture that may reach y's start */
		size_t mid = lo + (hi - lo) / 2;
		if (x->caps[mid].start < y->start - GS_CAPTURE_MAX_NS)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n_caps && x->caps[lo].start < s->end; lo++)
		if (x->caps[lo].corr == y->corr && x->caps[lo].end > from)
			from = x->caps[lo].end;
	return from;
}

/* A sync-wait segment of gap g in which the thread did its own work rather
 * than wait for the GPU or a host function: OWN_OP, the staging of the copy
 * that ends the gap (its launch call's cost counts it); OWN_CALL, one call
 * that did not wait, a CUDA call like the others:
 *  - one that stages an async copy from or to pageable memory, or allocates
 *    or frees device memory: the device idle throughout the gap did not
 *    hold it up (H200, gap_phases malloc_free: the captures at the entry of
 *    cudaMalloc and cudaFree, ~5.6 us each, were taken for waits and the
 *    range read 12-18% long; it reads 0-6% long counting them);
 *  - a sync of this gap's device that began once the device was idle, with
 *    no host function enqueued in the second before it and every copy in
 *    the trace: nothing was left for it to wait for (H200, transformers
 *    GPT-2 generate: 288 syncs behind call-site captures of 42 us, 12.2 ms
 *    in all, with the GPU idle; taken for waits, the range read 5% long).
 * WAIT otherwise. Where the trace has copy calls but no copy records, a
 * sync in a gap may wait for a copy the gap hides. */
enum { WAIT = 0, OWN_OP, OWN_CALL };
static int own_work(const struct ctx *x, const struct gs_gap *g, const struct gs_segment *s)
{
	const struct gs_input *in = x->in;
	const struct gs_sync *y;

	if (s->ref_kind != GS_EXPLAIN_SYNC || s->ref_idx >= in->n_syncs)
		return WAIT;
	y = &in->syncs[s->ref_idx];
	if (g->op_idx < in->n_ops && y->corr == in->ops[g->op_idx].corr)
		return OWN_OP;
	if (s->n_calls > 1)
		return WAIT;
	if (y->implicit &&
	    (y->kind == GS_SYNC_IMPLICIT_PAGEABLE || y->kind == GS_SYNC_IMPLICIT_ALLOC))
		return OWN_CALL;
	if (y->device == x->device && !x->copies_hidden && !hostfn_near(x, y->start) &&
	    waits_from(x, y, s) >= g->start)
		return OWN_CALL;
	return WAIT;
}

/* *host_bound: 1 when the GPU waited for the host in gap g (the op that
 * ends it could not have started sooner on the GPU's account) */
static int64_t gap_shrink(const struct ctx *x, const struct gs_gap *g, struct cost_acc *acc,
			  struct cost_acc *graph, uint8_t *host_bound)
{
	const struct gs_input *in = x->in;
	const struct gs_calibration *cal = x->cal;
	int graph_call = 0; /* the launch call is a graph launch, taken as one */
	int spaced_call = 0; /* it was taken against the spaced launch */
	int64_t rec_ns = 0;  /* then its record's duration */
	struct gs_segment buf[MAX_SEGS], *seg;
	/* every segment: the launch that ends a long gap is its last (a
	 * gap crossing many CUDA calls lost its launch past the 64th) */
	size_t n = gs_gap_segments_all(x->res, g, buf, MAX_SEGS, &seg), i;
	int64_t shrink;
	int64_t api_ns = 0, lat_ns = 0, gi_ns = 0, calls = 0;
	int64_t cost = (cal->launch_ns + cal->legacy_launch_ns) / 2, lcost = -1;
	uint32_t tid = 0;
	int in_call = 0; /* the launch call was still running at the gap's start */
	size_t from = 0; /* the segments after the last wait for someone else */
	int own_here = 0; /* the segment at hand is an OWN_CALL */

	if (n == (size_t)-1) /* out of memory: the first MAX_SEGS */
		n = MAX_SEGS;
	for (i = 0; i < n; i++) {
		int64_t d = seg[i].end - seg[i].start;
		int own_prev = own_here; /* segment i - 1 was an OWN_CALL */
		own_here = 0;
		switch (seg[i].cause) {
		case GS_CAUSE_SYNC_WAIT:
			/* the thread waited for the GPU or a host function: what
			 * it spent before the wait only shortened the wait. Not
			 * so in its own work (own_work), a CUDA call like the
			 * others. */
			switch (own_work(x, g, &seg[i])) {
			case OWN_OP: break;
			case OWN_CALL:
				own_here = 1;
				/* right after a CUDA API piece, no host code
				 * between: that is the same call's head (a
				 * sync's blocked time inside its call) */
				api_ns += d;
				if (!(i && seg[i - 1].cause == GS_CAUSE_CUDA_API))
					calls++;
				break;
			default:
				api_ns = 0;
				calls = 0;
				from = i + 1;
			}
			break;
		case GS_CAUSE_CUDA_API:
			api_ns += d;
			calls += seg[i].n_calls ? seg[i].n_calls : 1;
			/* right after an own call's blocked piece: its tail */
			if (own_prev)
				calls--;
			break;
		case GS_CAUSE_LAUNCH_LATENCY:
			lat_ns += d;
			if (seg[i].ref_kind == GS_EXPLAIN_LAUNCH) {
				cost = call_cost(in, cal, seg[i].ref_idx);
				lcost =
				    launch_cost(x, seg[i].ref_idx, cost, &graph_call, &spaced_call);
				if (seg[i].ref_idx < in->n_apis) {
					const struct gs_api *a = &in->apis[seg[i].ref_idx];
					tid = a->tid;
					in_call = a->end > g->start;
					rec_ns = a->end - a->start;
				}
			}
			break;
		case GS_CAUSE_GRAPH_INTERNAL: gi_ns += d; break;
		default: break;
		}
	}
	if (lcost < 0)
		lcost = cost;
	/* the GPU waited for the host, not for work it had itself queued
	 * before the gap (a sync for a host function queued behind the
	 * kernel that ends before the gap: that kernel ending sooner starts
	 * the chain sooner) */
	*host_bound = (g->host_late || in_call) && from == 0;
	if (g->host_late || in_call) {
		/* graph launches apart: theirs is a cost per graph */
		struct cost_acc *to = graph_call ? graph : acc;
		to->sum += lcost;
		to->n++;
		to->spaced += spaced_call;
		if (spaced_call)
			acc_record(to, rec_ns);
	}
	if (g->host_late) {
		int64_t a = from < n ? seg[from].start : g->end,
			cap = captured_in(x->caps, x->n_caps, GS_CAPTURE_MAX_NS, tid, a, g->end) +
			      captured_in(x->stalls, x->n_stalls, GS_STALL_MAX_NS, tid, a, g->end);
		shrink =
		    min64(min64(api_ns + lat_ns, calls * cost + lcost) + cap, g->end - g->start);
	} else if (in_call) {
		/* A launch call that began before the GPU went idle but had
		 * not returned: its op could start only after the traced
		 * call's added cost, and after what CUPTI did in it meanwhile
		 * (a buffer request inside a launch call: H200, a PyTorch
		 * training loop's launches of 5.7 and 6.6 ms, beyond the
		 * call's capped excess), so the gap loses those, at most its
		 * latency. */
		shrink =
		    min64(lat_ns, lcost + (tid ? captured_in(x->stalls, x->n_stalls,
							     GS_STALL_MAX_NS, tid, g->start, g->end)
					       : 0)) +
		    min64(gi_ns, x->node.gap);
	} else {
		shrink = min64(lat_ns, x->kernel.gap) + min64(gi_ns, x->node.gap);
	}
	if (seg != buf)
		free(seg);
	return shrink;
}

/* index of the first gap starting at or after t (gaps in time order) */
static size_t gap_lower(const struct gs_gap *g, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t op_lower(const struct gs_op *o, size_t lo, size_t hi, int64_t t)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Uploads from pageable memory. The host stages such a copy from its call's
 * start, so a gap that is the staging of the copy ending it (its call began
 * before the GPU went idle) is as long as the host was late to make the call:
 * every cost of tracing on the calling thread since the thread last waited
 * for the GPU counts, not only the costs inside the gap. Most of them fall
 * while the GPU is busy (the previous copy's DMA, which runs on after its
 * call returns), where no gap takes them (H200, gap_phases pageable_copy
 * and sync_copy: the capture after each copy and the next launch call, ~16
 * us a step while the GPU copied, left the ranges 8-12% long).
 */

/* costs further back than this are not counted */
#define GS_STAGE_HORIZON_NS 10000000LL
/* a synchronous copy's call that began while the GPU had more than this
 * to run waited for its stream (H200, gap_phases sync_copy: 5-8 us of the
 * copy before and the kernel) */
#define GS_STAGE_SYNC_SLACK_NS 20000

struct wait_end {
	uint32_t tid;
	int64_t end;
};

struct stage {
	uint32_t *ix;		/* api indices by (tid, start) */
	int64_t *cost;		/* cost[k]: the tracing cost of the calls ix[0..k) */
	struct wait_end *waits; /* the syncs' ends, by (tid, end) */
	size_t n_waits;
	struct wait_end last[16]; /* per thread, the end of its last staging gap */
	size_t n_last;
};

static int cmp_wait_end(const void *a, const void *b)
{
	const struct wait_end *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void stage_free(struct stage *st)
{
	free(st->ix);
	free(st->cost);
	free(st->waits);
	memset(st, 0, sizeof(*st));
}

/* st's call costs by thread and its waits; 0 or -ENOMEM */
static int stage_init(const struct ctx *x, struct stage *st)
{
	const struct gs_input *in = x->in;
	size_t i;
	int graph;

	st->ix = malloc((in->n_apis ? in->n_apis : 1) * sizeof(*st->ix));
	st->cost = malloc((in->n_apis + 1) * sizeof(*st->cost));
	st->waits = malloc((in->n_syncs ? in->n_syncs : 1) * sizeof(*st->waits));
	if (!st->ix || !st->cost || !st->waits) {
		stage_free(st);
		return -ENOMEM;
	}
	for (i = 0; i < in->n_apis; i++)
		st->ix[i] = (uint32_t)i;
	qsort_r(st->ix, in->n_apis, sizeof(*st->ix), cmp_api_thread, (void *)in->apis);
	/* what tracing added to each call: a launch call's launch_cost, another
	 * call's calibrated cost (launch_cost gives that too) */
	st->cost[0] = 0;
	for (i = 0; i < in->n_apis; i++)
		st->cost[i + 1] =
		    st->cost[i] +
		    launch_cost(x, st->ix[i], call_cost(in, x->cal, st->ix[i]), &graph, NULL);
	/* a copy from pageable memory and an allocation stage or allocate;
	 * every other sync may have waited */
	for (i = 0; i < in->n_syncs; i++)
		if (in->syncs[i].kind != GS_SYNC_IMPLICIT_PAGEABLE &&
		    in->syncs[i].kind != GS_SYNC_IMPLICIT_ALLOC)
			st->waits[st->n_waits++] =
			    (struct wait_end){in->syncs[i].tid, in->syncs[i].end};
	qsort(st->waits, st->n_waits, sizeof(*st->waits), cmp_wait_end);
	return 0;
}

/* the first position in st->ix of thread tid's calls starting at t or later */
static size_t call_lower(const struct ctx *x, const struct stage *st, uint32_t tid, int64_t t)
{
	size_t lo = 0, hi = x->in->n_apis;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct gs_api *a = &x->in->apis[st->ix[mid]];
		if (a->tid < tid || (a->tid == tid && a->start < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the latest end at or before t of a sync of thread tid, else INT64_MIN */
static int64_t last_wait(const struct stage *st, uint32_t tid, int64_t t)
{
	size_t lo = 0, hi = st->n_waits;

	while (lo < hi) { /* the first (tid, end) after (tid, t) */
		size_t mid = lo + (hi - lo) / 2;
		const struct wait_end *w = &st->waits[mid];
		if (w->tid < tid || (w->tid == tid && w->end <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && st->waits[lo - 1].tid == tid ? st->waits[lo - 1].end : INT64_MIN;
}

/* st->last's slot for thread tid, or NULL when the table is full */
static struct wait_end *last_stage(struct stage *st, uint32_t tid)
{
	size_t k;

	for (k = 0; k < st->n_last && st->last[k].tid != tid; k++)
		;
	if (k == st->n_last) {
		if (k == sizeof(st->last) / sizeof(st->last[0]))
			return NULL;
		st->last[st->n_last++] = (struct wait_end){tid, INT64_MIN};
	}
	return &st->last[k];
}

/* the device's busy time from t to the start of gap i (gap_len: prefix sums
 * of the gaps' lengths) */
static int64_t busy_between(const struct gs_device_result *dr, const int64_t *gap_len, size_t i,
			    int64_t t)
{
	size_t lo = 0, hi = i;
	int64_t idle;

	if (t >= dr->gaps[i].start)
		return 0;
	while (lo < hi) { /* the first gap that ends after t */
		size_t mid = lo + (hi - lo) / 2;
		if (dr->gaps[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	idle = gap_len[i] - gap_len[lo];
	if (lo < i && dr->gaps[lo].start < t)
		idle -= t - dr->gaps[lo].start;
	return dr->gaps[i].start - t - idle;
}

/* What gap i of dr loses besides own (its gap_shrink) when it is the
 * staging of an upload from pageable memory: the calling thread's tracing
 * costs from its last wait, its last staging gap's end, or
 * GS_STAGE_HORIZON_NS before the call, whichever is latest, to the gap's
 * end (its calls' costs, call-site captures, CUPTI's stalls), less what
 * the device's gaps since then already lost (gap_sum: their prefix sums),
 * at most what is left of the gap. *host_bound becomes 1 (the GPU waited
 * for the host). *err = -ENOMEM when st cannot be built. */
static int64_t staging_shrink(const struct ctx *x, struct stage *st,
			      const struct gs_device_result *dr, size_t i, const int64_t *gap_sum,
			      const int64_t *gap_len, int64_t own, uint8_t *host_bound, int *err)
{
	const struct gs_input *in = x->in;
	const struct gs_gap *g = &dr->gaps[i];
	const struct gs_op *o;
	struct wait_end *last;
	uint32_t api, tid;
	int64_t c, p, w, cost;

	if (g->host_late || g->op_idx >= in->n_ops)
		return 0;
	o = &in->ops[g->op_idx];
	if (o->kind != GS_OP_MEMCPY || !(o->flags & GS_OPF_PAGEABLE_SRC))
		return 0;
	api = gs_launch_call(x->res, g->op_idx);
	if (api == GS_NONE || api >= in->n_apis || in->apis[api].start >= g->start)
		return 0;
	/* a synchronous copy first waits for its stream: one whose call began
	 * while the GPU had long to run waited, and what came before it only
	 * shortened the wait */
	if ((gs_api_classify(gs_str(&in->strings, in->apis[api].name_id, "")) &
	     GS_APIF_SYNC_COPY) &&
	    busy_between(dr, gap_len, i, in->apis[api].start) > GS_STAGE_SYNC_SLACK_NS)
		return 0;
	if (!st->ix && (*err = stage_init(x, st)))
		return 0;
	c = in->apis[api].start;
	tid = in->apis[api].tid;
	p = c - GS_STAGE_HORIZON_NS;
	w = last_wait(st, tid, c);
	if (w > p)
		p = w;
	last = last_stage(st, tid);
	if (last && last->end > p)
		p = last->end;
	if (last)
		last->end = g->end;
	cost = st->cost[call_lower(x, st, tid, g->end)] - st->cost[call_lower(x, st, tid, p)] +
	       captured_in(x->caps, x->n_caps, GS_CAPTURE_MAX_NS, tid, p, g->end) +
	       captured_in(x->stalls, x->n_stalls, GS_STALL_MAX_NS, tid, p, g->end) -
	       (gap_sum[i] - gap_sum[gap_lower(dr->gaps, i, p)]);
	*host_bound = 1;
	return cost > 0 ? min64(cost, g->end - g->start - own) : 0;
}

int gs_correct(const struct gs_input *in, const struct gs_result *res,
	       const struct gs_calibration *cal, struct gs_corrected *out)
{
	/* per device prefix sums: gap shrink, kernel shrink, and the part of
	 * the kernel shrink that comes off the wall */
	int64_t **gap_sum = NULL, **op_sum = NULL, **wall_sum = NULL;
	uint8_t *host_bound = NULL; /* per gap of the device at hand */
	double *factor = NULL;
	struct gs_capture *caps = NULL, *stalls = NULL; /* in->captures, in->stalls by start */
	struct cost_acc acc = {0}, graph = {0};
	uint32_t *nodes = NULL;
	int64_t *before = NULL, *hostfn = NULL, *gap_len = NULL, trace_gap;
	struct ctx x;
	struct stage stage = {0};
	size_t d, i, n_caps = 0, n_stalls = 0;
	int rc = -ENOMEM, err;

	memset(out, 0, sizeof(*out));
	if (!cal->have)
		return -EINVAL;
	for (d = 0; d < res->n_devices; d++)
		if (res->devices[d].n_gaps != res->devices[d].tl.n_gaps)
			return -EINVAL; /* analysed without all_gaps */
	out->per_call_ns = (cal->launch_ns + cal->legacy_launch_ns) / 2;
	out->graph_launch_shrink_ns = out->per_call_ns; /* call_cost() of cudaGraphLaunch */
	out->alloc_call_ns = cal->alloc_pair_ns > 0 ? cal->alloc_pair_ns / 2 : 0;
	out->devices = calloc(res->n_devices ? res->n_devices : 1, sizeof(*out->devices));
	out->ranges = calloc(res->n_nvtx ? res->n_nvtx : 1, sizeof(*out->ranges));
	gap_sum = calloc(res->n_devices ? res->n_devices : 1, sizeof(*gap_sum));
	op_sum = calloc(res->n_devices ? res->n_devices : 1, sizeof(*op_sum));
	wall_sum = calloc(res->n_devices ? res->n_devices : 1, sizeof(*wall_sum));
	factor = calloc(res->n_devices ? res->n_devices : 1, sizeof(*factor));
	if (!out->devices || !out->ranges || !gap_sum || !op_sum || !wall_sum || !factor)
		goto out;
	out->n_devices = res->n_devices;
	if ((in->n_captures &&
	     !(caps = by_start(in->captures, in->n_captures, GS_CAPTURE_MAX_NS, &n_caps))) ||
	    (in->n_stalls &&
	     !(stalls = by_start(in->stalls, in->n_stalls, GS_STALL_MAX_NS, &n_stalls))))
		goto out;
	nodes = graph_node_counts(in, res, cal, &err);
	if (err)
		goto out;
	before = time_before(in, &trace_gap, &err);
	if (err)
		goto out;
	/* the calibration's figure, at most the trace's own bound; none where
	 * launch calls take the calibrated cost (no untraced launch figure) */
	out->launch_gap_ns = cal->launch_gap_ns;
	if (trace_gap >= 0 && (out->launch_gap_ns < 0 || trace_gap < out->launch_gap_ns)) {
		out->launch_gap_ns = trace_gap;
		out->launch_gap_from_trace = 1;
	}
	if (cal->plain_launch_ns < 0 && cal->plain_driver_ns < 0) {
		out->launch_gap_ns = -1;
		out->launch_gap_from_trace = 0;
	}
	if (out->launch_gap_ns < 0 && !(cal->spaced_record_ns > 0 && cal->plain_launch_ns >= 0)) {
		free(before);
		before = NULL;
	}
	x = (struct ctx){.in = in,
			 .res = res,
			 .cal = cal,
			 .caps = caps,
			 .n_caps = n_caps,
			 .stalls = stalls,
			 .n_stalls = n_stalls,
			 .nodes = nodes,
			 .before = before,
			 .launch_gap = out->launch_gap_ns,
			 .kernel = kernel_occ(cal),
			 .node = node_occ(cal)};
	if (scan_calls(in, &x, &hostfn))
		goto out;
	out->kernel_busy_ns = x.kernel.busy;
	out->occupancy = have_occupancy(cal);

	for (d = 0; d < res->n_devices; d++) {
		const struct gs_device_result *dr = &res->devices[d];
		struct gs_corrected_device *c = &out->devices[d];
		size_t nops = dr->end_op - dr->first_op;
		int64_t opsum = 0, removed, launch;

		gap_sum[d] = malloc((dr->n_gaps + 1) * sizeof(int64_t));
		op_sum[d] = malloc((nops + 1) * sizeof(int64_t));
		wall_sum[d] = malloc((nops + 1) * sizeof(int64_t));
		free(host_bound);
		host_bound = calloc(dr->n_gaps ? dr->n_gaps : 1, 1);
		if (!gap_sum[d] || !op_sum[d] || !wall_sum[d] || !host_bound)
			goto out;
		gap_sum[d][0] = 0;
		x.device = dr->device;
		stage.n_last = 0; /* the last staging gaps are this device's */
		free(gap_len);
		gap_len = malloc((dr->n_gaps + 1) * sizeof(*gap_len));
		if (!gap_len)
			goto out;
		gap_len[0] = 0;
		for (i = 0; i < dr->n_gaps; i++)
			gap_len[i + 1] = gap_len[i] + dr->gaps[i].end - dr->gaps[i].start;
		for (i = 0; i < dr->n_gaps; i++) {
			int64_t s = gap_shrink(&x, &dr->gaps[i], &acc, &graph, &host_bound[i]);
			s += staging_shrink(&x, &stage, dr, i, gap_sum[d], gap_len, s,
					    &host_bound[i], &err);
			if (err)
				goto out;
			gap_sum[d][i + 1] = gap_sum[d][i] + s;
		}
		/* kernels overlap on several streams: take off each kernel's
		 * instrumentation in the share of op time that the union kept
		 * (both within the selection: with --range, tl.busy is the
		 * selection's; summing whole ops made the share 0.08 on a
		 * PyTorch trace with a long kernel across the range, 48 ns a
		 * kernel instead of 640) */
		for (i = 0; i < nops; i++) {
			const struct gs_op *o = &in->ops[dr->first_op + i];
			opsum += gs_result_overlap(res, o->start, o->end);
		}
		factor[d] = opsum > 0 && dr->tl.busy < opsum ? (double)dr->tl.busy / opsum : 1.0;
		op_sum[d][0] = 0;
		wall_sum[d][0] = 0;
		for (i = 0; i < nops; i++) {
			const struct gs_op *o = &in->ops[dr->first_op + i];
			int64_t k = 0, w = 0;
			size_t j;
			/* with --range, the kernels in the selection: the busy
			 * time above is the selection's */
			if (o->kind == GS_OP_KERNEL && o->end > o->start &&
			    o->start >= dr->tl.first && o->end <= dr->tl.last &&
			    gs_result_selects(res, o->start, o->end)) {
				struct occ per = x.kernel;
				if (o->graph_id &&
				    (cal->store_graph_node_ns >= 0 || cal->graph_node_ns > 0)) {
					per = x.node;
					out->graph_node_shrink_ns = per.busy;
					out->graph_nodes++;
				}
				k = (int64_t)(min64(per.busy, o->end - o->start) * factor[d]);
				w = (int64_t)(min64(per.wall, o->end - o->start) * factor[d]);
			}
			j = gap_lower(dr->gaps, dr->n_gaps, o->end);
			/* occupancy: a graph node followed at once by the next
			 * node gains the idle left between them after its
			 * shrink, the GPU's switch from node to node (launched
			 * kernels gain theirs in kernel_occ), at most an
			 * untraced empty node's whole pitch */
			if (k && out->occupancy && o->graph_id && cal->plain_graph_pitch_ns > 0 &&
			    j < dr->n_gaps && dr->gaps[j].start == o->end &&
			    dr->gaps[j].cause == GS_CAUSE_GRAPH_INTERNAL && !host_bound[j]) {
				int64_t left = dr->gaps[j].end - dr->gaps[j].start -
					       (gap_sum[d][j + 1] - gap_sum[d][j]);
				if (left > 0)
					k -= (int64_t)(min64(left, cal->plain_graph_pitch_ns) *
						       factor[d]);
			}
			op_sum[d][i + 1] = op_sum[d][i] + k;
			/* a host-bound gap starting where it ends keeps its shrink
			 * on the wall */
			if (w && j < dr->n_gaps && dr->gaps[j].start == o->end && host_bound[j])
				w = 0;
			wall_sum[d][i + 1] = wall_sum[d][i] + w;
		}
		c->device = dr->device;
		c->idle_removed = gap_sum[d][dr->n_gaps];
		c->busy_removed = op_sum[d][nops];
		/* the window loses the gaps' shrink and the kernels' that a
		 * kernel followed at once; busy time loses (or gains) every
		 * kernel's; idle is the rest */
		c->window = dr->tl.busy + dr->tl.idle - c->idle_removed - wall_sum[d][nops];
		if (c->window < 0)
			c->window = 0;
		c->busy = dr->tl.busy - c->busy_removed;
		if (c->busy > c->window)
			c->busy = c->window;
		if (c->busy < 0)
			c->busy = 0;
		c->idle = c->window - c->busy;
		c->utilisation = c->window > 0 ? (double)c->busy / c->window : 0;
		removed = c->idle_removed;
		launch = (int64_t)(dr->tl.launch_overhead_share * dr->tl.window) - removed;
		c->launch_overhead_share =
		    c->window > 0 && launch > 0 ? (double)launch / c->window : 0;
	}

	out->from_trace = cal->plain_launch_ns >= 0 || cal->plain_driver_ns >= 0;
	/* of the calls per_call_ns averages, those taken against the spaced
	 * launch */
	out->spaced_calls = acc.spaced;
	out->program_spaced_ns =
	    acc.spaced && cal->program_spaced_ns > 0 && cal->plain_spaced_ns > 0
		? cal->program_spaced_ns
		: -1;
	out->plain_spaced_ns = out->program_spaced_ns > 0 ? cal->plain_spaced_ns : -1;
	out->spaced_record_cal_ns = cal->spaced_record_ns > 0 ? cal->spaced_record_ns : -1;
	out->spaced_record_p50_ns = acc.n_rec ? gs_percentile(acc.rec, acc.n_rec, 50) : -1;
	if (acc.n)
		out->per_call_ns = acc.sum / acc.n;
	out->graph_launches = graph.n;
	if (graph.n)
		out->graph_launch_shrink_ns = graph.sum / graph.n;

	/* NVTX ranges: their walls less what was removed inside them on the
	 * device that did the most work */
	{
		size_t main_dev = 0;
		for (d = 1; d < res->n_devices; d++)
			if (res->devices[d].tl.busy > res->devices[main_dev].tl.busy)
				main_dev = d;
		for (i = 0; i < res->n_nvtx; i++) {
			struct gs_corrected_range *r = &out->ranges[i];
			int64_t removed = 0;
			size_t k;

			r->text_id = res->nvtx[i].text_id;
			r->count = res->nvtx[i].count;
			r->wall = res->nvtx[i].wall;
			for (k = 0; res->n_devices && k < in->n_nvtx; k++) {
				const struct gs_nvtx *x = &in->nvtx[k];
				const struct gs_device_result *dr = &res->devices[main_dev];
				size_t a, b;
				if (x->kind != 0 || x->text_id != r->text_id)
					continue;
				/* gaps that start inside the range, ops that start in it */
				a = gap_lower(dr->gaps, dr->n_gaps, x->start);
				b = gap_lower(dr->gaps, dr->n_gaps, x->end);
				removed += gap_sum[main_dev][b] - gap_sum[main_dev][a];
				a = op_lower(in->ops, dr->first_op, dr->end_op, x->start) -
				    dr->first_op;
				b = op_lower(in->ops, dr->first_op, dr->end_op, x->end) -
				    dr->first_op;
				removed += wall_sum[main_dev][b] - wall_sum[main_dev][a];
				r->busy_removed += op_sum[main_dev][b] - op_sum[main_dev][a];
			}
			r->corrected = r->wall - removed > 0 ? r->wall - removed : 0;
			r->busy = res->nvtx[i].gpu_busy - r->busy_removed;
			if (r->busy < 0)
				r->busy = 0;
			r->busy_share =
			    r->corrected > 0 ? (double)r->busy / (double)r->corrected : 0.0;
			if (r->busy_share > 1.0)
				r->busy_share = 1.0;
		}
		out->n_ranges = res->n_nvtx;
	}
	rc = 0;
out:
	for (d = 0; gap_sum && d < res->n_devices; d++) {
		free(gap_sum[d]);
		free(op_sum ? op_sum[d] : NULL);
		free(wall_sum ? wall_sum[d] : NULL);
	}
	free(gap_sum);
	free(op_sum);
	free(wall_sum);
	free(host_bound);
	free(factor);
	free(caps);
	free(stalls);
	free(nodes);
	free(before);
	free(hostfn);
	free(gap_len);
	free(acc.rec);
	free(graph.rec);
	stage_free(&stage);
	if (rc)
		gs_corrected_free(out);
	return rc;
}

int64_t gs_corrected_slow_base(const struct gs_corrected *c)
{
	if (!c || c->spaced_record_cal_ns <= 0)
		return -1;
	if (c->program_spaced_ns > 0 && c->plain_spaced_ns > 0)
		return c->spaced_record_cal_ns + c->program_spaced_ns - c->plain_spaced_ns;
	return c->spaced_record_cal_ns;
}

int gs_corrected_slow_process(const struct gs_corrected *c)
{
	int64_t base = gs_corrected_slow_base(c);

	return base > 0 && c->spaced_calls >= GS_SLOW_PROCESS_MIN_CALLS &&
	       c->spaced_record_p50_ns > 0 &&
	       c->spaced_record_p50_ns * 100 >= base * GS_SLOW_PROCESS_PCT;
}

double gs_corrected_total(const struct gs_corrected *c, int64_t *window, int64_t *busy)
{
	size_t i;

	*window = *busy = 0;
	for (i = 0; i < c->n_devices; i++) {
		*window = gs_sat_add(*window, c->devices[i].window);
		*busy = gs_sat_add(*busy, c->devices[i].busy);
	}
	return *window > 0 ? (double)*busy / (double)*window : 0.0;
}

const char *gs_corrected_basis(const struct gs_corrected *c)
{
	if (!c->from_trace)
		return "calibrated";
	if (c->launch_gap_ns < 0)
		return "traced launch calls less untraced ones";
	return c->launch_gap_from_trace ? "traced launch calls, and CUPTI's time between them as "
					  "the trace's back-to-back launches bound it, less "
					  "untraced ones"
					: "traced launch calls and CUPTI's time between them less "
					  "untraced ones";
}

const char *gs_span_correction(int corrected, int plural)
{
	if (corrected)
		return plural ? "the corrected figures take them off where they delayed the GPU"
			      : "the corrected figures take it off where it delayed the GPU";
	return plural ? "the figures keep them: no overhead correction here (no calibration in "
			"the trace, or --no-overhead-correction)"
		      : "the figures keep it: no overhead correction here (no calibration in the "
			"trace, or --no-overhead-correction)";
}

void gs_corrected_free(struct gs_corrected *c)
{
	free(c->devices);
	free(c->ranges);
	memset(c, 0, sizeof(*c));
}
