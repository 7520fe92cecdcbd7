/*
 * correct.c - the report's figures corrected for the collector's own cost.
 *
 * The model (docs/collector.md, "Overhead correction"), per idle gap of a
 * device, from its gap model v2 segments:
 *  - host late (the launch call began after the GPU went idle): tracing made
 *    every CUDA call of the launching thread slower by the calibrated cost
 *    per call, so the gap shrinks by (calls in its CUDA API segments + the
 *    launch call) x that cost, at most the time of those segments and of
 *    the launch latency (host code is the program's own and stays);
 *    and, besides, by the collector's call-site captures on that thread
 *    that lie in the gap (gs_input.captures: the loader put them inside the
 *    calls they were made in), at most the gap;
 *  - op already enqueued (launch latency, graph-internal): the GPU's added
 *    idle between back-to-back kernels (gpu_gap_ns), at most the segment.
 * Each kernel's duration shrinks by kernel_ns (CUPTI's instrumentation of a
 * launched kernel), a graph node's by graph_node_ns - gpu_gap_ns (what
 * instrumentation adds to a node, less the part that is idle between nodes:
 * H200, 339 ns per node against 640 per launched kernel; taking kernel_ns
 * for nodes took 6 ms too much off 20,000 nodes), each scaled by how much
 * of the device's op time was not overlapped.
 * The corrected window is the measured one less both. What it does not do:
 * move later work earlier when an earlier correction would have let the GPU
 * start it sooner while it was busy (a queue that was full stays full), or
 * correct gaps whose cause is the program's host code.
 * It does not read traces or print: arrays in, figures out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "correct.h"

#define MAX_SEGS 64

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* host cost of one traced call like the launch call api (an apis index) */
static int64_t call_cost(const struct gs_input *in, const struct gs_calibration *cal, uint32_t api)
{
	const char *n = api < in->n_apis ? gs_str(&in->strings, in->apis[api].name_id, "") : "";

	if (!strncmp(n, "cu", 2) && strncmp(n, "cuda", 4))
		return cal->driver_launch_ns;
	/* the stream kind of the call is not known here: the mean of the
	 * non-blocking and legacy-stream costs */
	return (cal->launch_ns + cal->legacy_launch_ns) / 2;
}

static int cmp_capture_start(const void *a, const void *b)
{
	int64_t x = ((const struct gs_capture *)a)->start,
		y = ((const struct gs_capture *)b)->start;
	return x < y ? -1 : x > y;
}

/* The captures of thread tid (0: any) inside [a, b), summed; c sorted by
 * start, none longer than GS_CAPTURE_MAX_NS (longer ones were dropped). */
#define GS_CAPTURE_MAX_NS 1000000
static int64_t captured_in(const struct gs_capture *c, size_t n, uint32_t tid, int64_t a, int64_t b)
{
	size_t lo = 0, hi = n;
	int64_t sum = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c[mid].start < a - GS_CAPTURE_MAX_NS)
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

static int64_t gap_shrink(const struct gs_input *in, const struct gs_result *res,
			  const struct gs_calibration *cal, const struct gs_capture *caps,
			  size_t n_caps, const struct gs_gap *g)
{
	struct gs_segment seg[MAX_SEGS];
	size_t n = gs_gap_segments(res, g, seg, MAX_SEGS), i;
	int64_t api_ns = 0, lat_ns = 0, gi_ns = 0, calls = 0;
	int64_t cost = (cal->launch_ns + cal->legacy_launch_ns) / 2;
	uint32_t tid = 0;

	if (n > MAX_SEGS)
		n = MAX_SEGS;
	for (i = 0; i < n; i++) {
		int64_t d = seg[i].end - seg[i].start;
		switch (seg[i].cause) {
		case GS_CAUSE_CUDA_API:
			api_ns += d;
			calls += seg[i].n_calls ? seg[i].n_calls : 1;
			break;
		case GS_CAUSE_LAUNCH_LATENCY:
			lat_ns += d;
			if (seg[i].ref_kind == GS_EXPLAIN_LAUNCH) {
				cost = call_cost(in, cal, seg[i].ref_idx);
				if (seg[i].ref_idx < in->n_apis)
					tid = in->apis[seg[i].ref_idx].tid;
			}
			break;
		case GS_CAUSE_GRAPH_INTERNAL: gi_ns += d; break;
		default: break;
		}
	}
	if (g->host_late)
		return min64(min64(api_ns + lat_ns, (calls + 1) * cost) +
				 captured_in(caps, n_caps, tid, g->start, g->end),
			     g->end - g->start);
	return min64(lat_ns, cal->gpu_gap_ns) + min64(gi_ns, cal->gpu_gap_ns);
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

int gs_correct(const struct gs_input *in, const struct gs_result *res,
	       const struct gs_calibration *cal, struct gs_corrected *out)
{
	int64_t **gap_sum = NULL, **op_sum = NULL; /* per device prefix sums */
	double *factor = NULL;
	struct gs_capture *caps = NULL; /* in->captures by start */
	size_t d, i, n_caps = 0;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!cal->have)
		return -EINVAL;
	for (d = 0; d < res->n_devices; d++)
		if (res->devices[d].n_gaps != res->devices[d].tl.n_gaps)
			return -EINVAL; /* analysed without all_gaps */
	out->per_call_ns = (cal->launch_ns + cal->legacy_launch_ns) / 2;
	out->devices = calloc(res->n_devices ? res->n_devices : 1, sizeof(*out->devices));
	out->ranges = calloc(res->n_nvtx ? res->n_nvtx : 1, sizeof(*out->ranges));
	gap_sum = calloc(res->n_devices ? res->n_devices : 1, sizeof(*gap_sum));
	op_sum = calloc(res->n_devices ? res->n_devices : 1, sizeof(*op_sum));
	factor = calloc(res->n_devices ? res->n_devices : 1, sizeof(*factor));
	if (!out->devices || !out->ranges || !gap_sum || !op_sum || !factor)
		goto out;
	out->n_devices = res->n_devices;
	if (in->n_captures) {
		caps = malloc(in->n_captures * sizeof(*caps));
		if (!caps)
			goto out;
		for (i = 0; i < in->n_captures; i++)
			if (in->captures[i].end >= in->captures[i].start &&
			    in->captures[i].end - in->captures[i].start <= GS_CAPTURE_MAX_NS)
				caps[n_caps++] = in->captures[i];
		qsort(caps, n_caps, sizeof(*caps), cmp_capture_start);
	}

	for (d = 0; d < res->n_devices; d++) {
		const struct gs_device_result *dr = &res->devices[d];
		struct gs_corrected_device *c = &out->devices[d];
		size_t nops = dr->end_op - dr->first_op;
		int64_t opsum = 0, removed, launch;

		gap_sum[d] = malloc((dr->n_gaps + 1) * sizeof(int64_t));
		op_sum[d] = malloc((nops + 1) * sizeof(int64_t));
		if (!gap_sum[d] || !op_sum[d])
			goto out;
		gap_sum[d][0] = 0;
		for (i = 0; i < dr->n_gaps; i++)
			gap_sum[d][i + 1] =
			    gap_sum[d][i] + gap_shrink(in, res, cal, caps, n_caps, &dr->gaps[i]);
		/* kernels overlap on several streams: take off each kernel's
		 * instrumentation in the share of op time that the union kept */
		for (i = 0; i < nops; i++) {
			const struct gs_op *o = &in->ops[dr->first_op + i];
			opsum += o->end - o->start;
		}
		factor[d] = opsum > 0 && dr->tl.busy < opsum ? (double)dr->tl.busy / opsum : 1.0;
		op_sum[d][0] = 0;
		for (i = 0; i < nops; i++) {
			const struct gs_op *o = &in->ops[dr->first_op + i];
			int64_t k = 0;
			if (o->kind == GS_OP_KERNEL && o->end > o->start &&
			    o->start >= dr->tl.first && o->end <= dr->tl.last) {
				int64_t per = cal->kernel_ns;
				if (o->graph_id && cal->graph_node_ns > 0)
					per = cal->graph_node_ns -
					      min64(cal->gpu_gap_ns, cal->graph_node_ns);
				k = (int64_t)(min64(per, o->end - o->start) * factor[d]);
			}
			op_sum[d][i + 1] = op_sum[d][i] + k;
		}
		c->device = dr->device;
		c->idle_removed = gap_sum[d][dr->n_gaps];
		c->busy_removed = op_sum[d][nops];
		c->busy = dr->tl.busy - c->busy_removed;
		c->idle = dr->tl.idle - c->idle_removed;
		c->window = c->busy + c->idle;
		c->utilisation = c->window > 0 ? (double)c->busy / c->window : 0;
		removed = c->idle_removed;
		launch = (int64_t)(dr->tl.launch_overhead_share * dr->tl.window) - removed;
		c->launch_overhead_share =
		    c->window > 0 && launch > 0 ? (double)launch / c->window : 0;
	}

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
				removed += op_sum[main_dev][b] - op_sum[main_dev][a];
				r->busy_removed += op_sum[main_dev][b] - op_sum[main_dev][a];
			}
			r->corrected = r->wall - removed > 0 ? r->wall - removed : 0;
		}
		out->n_ranges = res->n_nvtx;
	}
	rc = 0;
out:
	for (d = 0; gap_sum && d < res->n_devices; d++) {
		free(gap_sum[d]);
		free(op_sum ? op_sum[d] : NULL);
	}
	free(gap_sum);
	free(op_sum);
	free(factor);
	free(caps);
	if (rc)
		gs_corrected_free(out);
	return rc;
}

void gs_corrected_free(struct gs_corrected *c)
{
	free(c->devices);
	free(c->ranges);
	memset(c, 0, sizeof(*c));
}
