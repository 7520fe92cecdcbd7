/*
 * test_correct.c - cmocka tests of the overhead correction
 * (viewer/analysis/correct.c, docs/collector.md "Overhead correction") on a
 * hand-built timeline of one stream. Every expected figure is worked out by
 * hand in the comments from the model's rules; nothing is copied from the
 * code's output. No database, no I/O.
 *
 * The timeline (ns), thread 1, device 0, stream 7:
 *   cudaLaunchKernel L1 [500, 900]    -> K1 [1000, 2000]
 *   cudaMalloc          [3000, 4000]     (launches nothing)
 *   cudaLaunchKernel L2 [8000, 9500]  -> K2 [10000, 11000]
 *   cudaLaunchKernel L3 [9600, 9800]  -> K3 [11500, 12500]
 * Gaps: [2000, 10000) host late (L2 began after K1 ended): host code 1000,
 * CUDA API 1000 (one call), host code 4000, launch latency 2000;
 * [11000, 11500) K3 already enqueued: launch latency 500.
 * Calibration: 300 ns per call on a non-blocking stream, 500 on the legacy
 * stream (the model uses their mean, 400), kernel 100, GPU gap 200.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "correct.h"
#include "gapscope/trace_format.h"

enum {
	S_LAUNCH = 1,
	S_MALLOC,
	S_K,
	S_STEP,
	S_TAIL,
	S_SYNC,
	S_HOSTFN,
	S_MEMCPY,
	S_MEMCPY_ASYNC,
	S_N
};
static const char *strtab[S_N] = {
    NULL,   "cudaLaunchKernel",	     "cudaMalloc",	   "k",		 "step",
    "tail", "cudaStreamSynchronize", "cudaLaunchHostFunc", "cudaMemcpy", "cudaMemcpyAsync",
};

struct tb {
	struct gs_op ops[3];
	struct gs_api apis[6]; /* the fifth and sixth only where a test adds them */
	struct gs_sync syncs[1];
	struct gs_nvtx nvtx[2];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct gs_corrected c;
};

static void op(struct gs_op *o, int64_t s, int64_t e, uint32_t corr)
{
	memset(o, 0, sizeof(*o));
	o->start = s;
	o->end = e;
	o->corr = corr;
	o->name_id = S_K;
	o->stream = 7;
	o->kind = GS_OP_KERNEL;
}

static void api(struct gs_api *a, int64_t s, int64_t e, uint32_t corr, uint32_t name)
{
	memset(a, 0, sizeof(*a));
	a->start = s;
	a->end = e;
	a->corr = corr;
	a->name_id = name;
	a->tid = 1;
}

/* the calibration most tests use: 300 ns per call on a non-blocking
 * stream, 500 on the legacy stream, 700 per driver launch, kernel 100, GPU
 * gap 200, graph node 300; no untraced figures */
static struct gs_calibration base_cal(void)
{
	return (struct gs_calibration){.have = 1,
				       .plain_launch_ns = -1,
				       .plain_driver_ns = -1,
				       .plain_graph_ns = -1,
				       .plain_graph_node_ns = -1,
				       .store_graph_node_ns = -1,
				       .launch_gap_ns = -1,
				       .spaced_launch_ns = -1,
				       .spaced_record_ns = -1,
				       .launch_ns = 300,
				       .legacy_launch_ns = 500,
				       .driver_launch_ns = 700,
				       .kernel_ns = 100,
				       .gpu_gap_ns = 200,
				       .graph_node_ns = 300};
}

static struct tb *build(int calibrated)
{
	struct tb *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	op(&t->ops[0], 1000, 2000, 1);
	op(&t->ops[1], 10000, 11000, 2);
	op(&t->ops[2], 11500, 12500, 3);
	api(&t->apis[0], 500, 900, 1, S_LAUNCH);
	api(&t->apis[1], 3000, 4000, 10, S_MALLOC);
	api(&t->apis[2], 8000, 9500, 2, S_LAUNCH);
	api(&t->apis[3], 9600, 9800, 3, S_LAUNCH);
	t->nvtx[0] = (struct gs_nvtx){.start = 0, .end = 13000, .text_id = S_STEP, .tid = 1};
	t->nvtx[1] = (struct gs_nvtx){.start = 9000, .end = 11200, .text_id = S_TAIL, .tid = 1};
	t->in.ops = t->ops;
	t->in.n_ops = 3;
	t->in.apis = t->apis;
	t->in.n_apis = 4;
	t->in.nvtx = t->nvtx;
	t->in.n_nvtx = 2;
	t->in.strings.v = strtab;
	t->in.strings.n = S_N;
	t->in.kernel_overhead_ns = -1;
	if (calibrated)
		t->in.cal = base_cal();
	gs_options_init(&t->opt);
	t->opt.all_gaps = 1;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	return t;
}

/* A blocking call [4500, 6100] (corr 11, thread 1, device 0) as apis[4]
 * that blocked [from, to]: an explicit stream sync (stream 7), or an
 * implicit one for kind >= GS_SYNC_IMPLICIT_MEMCPY; with n captures. The
 * caller analyses again. */
static void add_sync(struct tb *t, int64_t from, int64_t to, uint32_t name, uint8_t kind,
		     const struct gs_capture *caps, size_t n)
{
	int implicit = kind >= GS_SYNC_IMPLICIT_MEMCPY;

	api(&t->apis[4], 4500, 6100, 11, name);
	t->syncs[0] = (struct gs_sync){.start = from,
				       .end = to,
				       .tid = 1,
				       .stream = implicit ? 0 : 7,
				       .corr = 11,
				       .api_name_id = name,
				       .device = 0,
				       .kind = kind,
				       .implicit = (uint8_t)implicit};
	t->in.n_apis = 5;
	t->in.syncs = t->syncs;
	t->in.n_syncs = 1;
	t->in.captures = caps;
	t->in.n_captures = n;
}

static void tb_free(struct tb *t)
{
	gs_corrected_free(&t->c);
	gs_result_free(&t->res);
	free(t);
}

/* t corrected: device 0's idle removed (t->c freed again) */
static int64_t tb_removed(struct tb *t)
{
	int64_t v;

	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	v = t->c.devices[0].idle_removed;
	gs_corrected_free(&t->c);
	return v;
}

static const struct gs_corrected_range *range(const struct tb *t, uint32_t text)
{
	size_t i;
	for (i = 0; i < t->c.n_ranges; i++)
		if (t->c.ranges[i].text_id == text)
			return &t->c.ranges[i];
	fail_msg("no range %u", text);
	return NULL;
}

/* the measured timeline is what the comment at the top says */
static void test_measured_timeline_as_built(void **state)
{
	struct tb *t = build(1);
	const struct gs_timeline *tl = &t->res.devices[0].tl;

	(void)state;
	assert_int_equal(t->res.n_devices, 1);
	assert_int_equal(tl->window, 11500); /* 1000 .. 12500 */
	assert_int_equal(tl->busy, 3000);
	assert_int_equal(tl->idle, 8500);
	assert_int_equal(tl->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 2500);
	assert_int_equal(tl->idle_by_cause[GS_CAUSE_CUDA_API], 1000);
	assert_int_equal(tl->idle_by_cause[GS_CAUSE_HOST_CODE], 5000);
	tb_free(t);
}

/* host-late gap: min(CUDA API 1000 + latency 2000, (1 call + the launch)
 * x 400) = 800; enqueued gap: min(500, 200) = 200; idle removed 1000.
 * Kernels: 3 x min(100, 1000), no overlap (factor 1) = 300. K1 is followed
 * by the host-late gap: its 100 turns into idle and stays on the window.
 * Corrected: busy 2700, idle 8500 - 1000 + 100 = 7600, window 10300,
 * utilisation 2700/10300; launch overhead share (2500 - 1000) / 10300. */
static void test_device_figures_corrected(void **state)
{
	struct tb *t = build(1);
	const struct gs_corrected_device *d;

	(void)state;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.n_devices, 1);
	d = &t->c.devices[0];
	assert_int_equal(d->idle_removed, 1000);
	assert_int_equal(d->busy_removed, 300);
	assert_int_equal(d->busy, 2700);
	assert_int_equal(d->idle, 7600);
	assert_int_equal(d->window, 10300);
	assert_true(d->utilisation > 2700.0 / 10300 - 1e-9 &&
		    d->utilisation < 2700.0 / 10300 + 1e-9);
	assert_true(d->launch_overhead_share > 1499.0 / 10300 &&
		    d->launch_overhead_share < 1501.0 / 10300);
	assert_int_equal(t->c.per_call_ns, 400);
	tb_free(t);
}

/* A calibration with full-queue pitches (occupancy model). Tiny kernels:
 * 1500 ns a kernel back to back traced, 1200 untraced, CUPTI records 1000.
 * A kernel's busy time: its duration less (1000 - 1200) = +200 each; none
 * of that comes off the window (wall 0); the idle between back-to-back
 * kernels loses 1500 - 1200 - 0 = 300. Host-late gap as before: 800; the
 * enqueued gap [11000, 11500): min(500, 300) = 300; idle removed 1100.
 * Window 11500 - 1100 = 10400; busy 3000 + 3 x 200 = 3600; idle 6800.
 * "step": 13000 - 800 - 300 = 11900, kernels +600 (busy_removed -600);
 * "tail": the gap at 11000 only: 2200 - 300 = 1900, K2 +200. */
static void test_occupancy_adds_the_switch(void **state)
{
	struct tb *t = build(1);
	const struct gs_corrected_device *d;

	(void)state;
	t->in.cal.kernel_pitch_ns = 1500;
	t->in.cal.plain_kernel_pitch_ns = 1200;
	t->in.cal.tiny_kernel_ns = 1000;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.occupancy, 1);
	assert_int_equal(t->c.kernel_busy_ns, -200);
	d = &t->c.devices[0];
	assert_int_equal(d->idle_removed, 1100);
	assert_int_equal(d->busy_removed, -600);
	assert_int_equal(d->window, 10400);
	assert_int_equal(d->busy, 3600);
	assert_int_equal(d->idle, 6800);
	assert_int_equal(range(t, S_STEP)->corrected, 11900);
	assert_int_equal(range(t, S_STEP)->busy_removed, -600);
	assert_int_equal(range(t, S_TAIL)->corrected, 1900);
	assert_int_equal(range(t, S_TAIL)->busy_removed, -200);
	/* kernels that gained: busy above the measured 3000 and 1000 */
	assert_int_equal(range(t, S_STEP)->busy, 3600);
	assert_true(range(t, S_STEP)->busy_share == 3600.0 / 11900.0);
	assert_int_equal(range(t, S_TAIL)->busy, 1200);
	assert_true(range(t, S_TAIL)->busy_share == 1200.0 / 1900.0);
	tb_free(t);
}

/* Recorded 1400 against 1200 untraced: each kernel loses 200 of busy time,
 * and where a kernel follows at once, of the window too (wall 200); the
 * back-to-back idle loses 1500 - 1200 - 200 = 100. Idle removed 800 + 100
 * = 900. Walls: K1 is followed by the host-late gap (0), K2 by the
 * enqueued gap (200), K3 ends the window (200): 400. Window 11500 - 900 -
 * 400 = 10200; busy 3000 - 600 = 2400; idle 7800. */
static void test_occupancy_shorter_than_recorded(void **state)
{
	struct tb *t = build(1);
	const struct gs_corrected_device *d;

	(void)state;
	t->in.cal.kernel_pitch_ns = 1500;
	t->in.cal.plain_kernel_pitch_ns = 1200;
	t->in.cal.tiny_kernel_ns = 1400;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	d = &t->c.devices[0];
	assert_int_equal(d->idle_removed, 900);
	assert_int_equal(d->busy_removed, 600);
	assert_int_equal(d->window, 10200);
	assert_int_equal(d->busy, 2400);
	assert_int_equal(d->idle, 7800);
	/* without the recorded duration the calibration is the old one */
	gs_corrected_free(&t->c);
	t->in.cal.tiny_kernel_ns = -1;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.occupancy, 0);
	assert_int_equal(t->c.devices[0].busy_removed, 300);
	tb_free(t);
}

/* "step" [0, 13000] holds both gaps and all three kernels, K1's shrink
 * not on the wall (host-late gap after it): 13000 - 1000 - 200 = 11800.
 * "tail" [9000, 11200] holds the gap starting at 11000 (200) and K2 (starts
 * 10000: 100): 2200 - 300 = 1900. */
static void test_range_walls_corrected(void **state)
{
	struct tb *t = build(1);

	(void)state;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(range(t, S_STEP)->wall, 13000);
	assert_int_equal(range(t, S_STEP)->corrected, 11800);
	assert_int_equal(range(t, S_TAIL)->wall, 2200);
	assert_int_equal(range(t, S_TAIL)->corrected, 1900);
	/* of that, kernels: 3 x 100 in "step", K2's 100 in "tail" */
	assert_int_equal(range(t, S_STEP)->busy_removed, 300);
	assert_int_equal(range(t, S_TAIL)->busy_removed, 100);
	/* corrected GPU busy: "step" holds K1-K3 (3000 measured), "tail" K2
	 * alone (K3 starts at 11500, after it: 1000); over the corrected walls */
	assert_int_equal(range(t, S_STEP)->busy, 2700);
	assert_true(range(t, S_STEP)->busy_share == 2700.0 / 11800.0);
	assert_int_equal(range(t, S_TAIL)->busy, 900);
	assert_true(range(t, S_TAIL)->busy_share == 900.0 / 1900.0);
	tb_free(t);
}

/* --range tail [9000, 11200]: only K2 [10000, 11000] meets the selection, and
 * the device's busy time is the selection's (1000). K2 loses its whole 100
 * (its op time is all the busy time: share 1), in the device's figures and
 * in "tail"'s; K1 and K3, outside, lose nothing. */
static void test_range_selection_keeps_kernel_cost(void **state)
{
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	t->opt.range_name = "tail";
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(t->res.devices[0].tl.busy, 1000);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].busy_removed, 100);
	assert_int_equal(range(t, S_TAIL)->busy_removed, 100);
	tb_free(t);
}

/* K3 moved to [11100, 12500]: 100 of its 1400 inside "tail" [9000, 11200].
 * Busy in the selection 1000 + 100 = 1100, the ops' time in it the same:
 * share 1, and both K2 and K3 (they meet the selection) lose 100: 200. With
 * K3's whole 1400 counted the share would be 1100 / 2400 and each would
 * lose 45. "tail" holds both starts: 200 too. */
static void test_range_selection_clips_long_kernel(void **state)
{
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	t->ops[2].start = 11100;
	t->opt.range_name = "tail";
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(t->res.devices[0].tl.busy, 1100);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].busy_removed, 200);
	assert_int_equal(range(t, S_TAIL)->busy_removed, 200);
	tb_free(t);
}

/* a launch through the driver API costs the driver figure: the host-late gap
 * loses min(3000, 2 x 700) = 1400, the enqueued one still 200 */
static void test_driver_launch_uses_driver_cost(void **state)
{
	static const char *drv[S_N] = {NULL, "cuLaunchKernel", "cudaMalloc", "k", "step", "tail"};
	struct tb *t = build(0);

	(void)state;
	gs_result_free(&t->res);
	t->in.strings.v = drv;
	t->in.cal = base_cal();
	t->in.cal.kernel_ns = 0;
	t->in.cal.graph_node_ns = 0;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1600);
	assert_int_equal(t->c.devices[0].busy_removed, 0);
	tb_free(t);
}

/* L3 moved to [10800, 11200]: it began before K2 ended at 11000 (so the
 * gap [11000, 11500) is not host late) and returned after, while K3 was not
 * yet enqueued: the gap loses the call's added cost, min(500, 400) = 400,
 * not the GPU gap's 200. Host-late gap 800 as before: idle removed 1200.
 * Both K1 and K2 are now followed by gaps where the GPU waited for the
 * host: only K3's 100 comes off the window, 11500 - 1200 - 100 = 10200. */
static void test_launch_in_progress_loses_call_cost(void **state)
{
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	t->apis[3].start = 10800;
	t->apis[3].end = 11200;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 2500);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1200);
	assert_int_equal(t->c.devices[0].busy_removed, 300);
	assert_int_equal(t->c.devices[0].window, 10200);
	tb_free(t);
}

/* CUPTI's own work on the program's threads (in->stalls: a buffer request
 * inside a call, say) delays the GPU where the thread was late. L3 moved to
 * [10800, 11200] as above, with a stall [10900, 11100] on thread 1 inside
 * it: the gap [11000, 11500) its launch was still in loses min(500, 400 +
 * the stall's 100 inside the gap) = 500 (400 without). A stall [5000, 5500]
 * on thread 1 in the host-late gap [2000, 10000) adds its 500 there: min(800
 * + 500, 8000) = 1300. Idle removed 1300 + 500 = 1800 (1200 without both).
 * The same stalls on thread 2 delay nothing: 1200. */
static void test_cupti_stalls_removed_where_the_thread_was_late(void **state)
{
	static struct gs_capture stalls[] = {
	    {.start = 10900, .end = 11100, .tid = 1},
	    {.start = 5000, .end = 5500, .tid = 1}, /* any order */
	};
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	t->apis[3].start = 10800;
	t->apis[3].end = 11200;
	t->in.stalls = stalls;
	t->in.n_stalls = 2;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(tb_removed(t), 1800);
	stalls[0].tid = stalls[1].tid = 2;
	assert_int_equal(tb_removed(t), 1200);
	tb_free(t);
}

/* With the untraced launch call known (1000 ns), a launch call's added cost
 * is its own traced duration less that: L2 [8000, 9500] took 1500, so 500.
 * Host-late gap: min(3000, 1 call x 400 + 500) = 900; the enqueued gap
 * still min(500, 200) = 200: idle removed 1100; the cost shown per launch
 * call is L2's 500 (the one launch that explained a host-late gap). */
static void test_launch_cost_from_traced_duration(void **state)
{
	struct tb *t = build(1);

	(void)state;
	t->in.cal.plain_launch_ns = 1000;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1100);
	assert_int_equal(t->c.per_call_ns, 500);
	assert_int_equal(t->c.from_trace, 1);
	tb_free(t);
}

/* With calibration.launch_gap_ns (CUPTI's time between two back-to-back
 * launch records) 300: L2 [8000, 9500] follows thread 1's cudaMalloc, which
 * ended at 4000, so its added cost is 1500 - 1000 + min(4000, 300) = 800.
 * Host-late gap: min(3000, 1 call x 400 + 800) = 1200; the enqueued gap
 * 200: idle removed 1400, per launch call 800. With launch_gap_ns 5000 the
 * thread left only 4000 before L2: 500 + 4000 = 4500 a call (the gap
 * itself loses at most its 3000 of CUDA API and latency). The same with
 * the calls in the array out of start order. */
static void test_launch_gap_adds_time_between_calls(void **state)
{
	struct tb *t = build(1);

	(void)state;
	t->in.cal.plain_launch_ns = 1000;
	t->in.cal.launch_gap_ns = 300;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1400);
	assert_int_equal(t->c.per_call_ns, 800);
	gs_corrected_free(&t->c);
	t->in.cal.launch_gap_ns = 5000;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.per_call_ns, 4500);
	assert_int_equal(t->c.devices[0].idle_removed, 3200);
	/* the calls in another order (the thread's not by start): the same */
	gs_corrected_free(&t->c);
	gs_result_free(&t->res);
	{
		struct gs_api a = t->apis[0];
		t->apis[0] = t->apis[3];
		t->apis[3] = a;
		a = t->apis[1];
		t->apis[1] = t->apis[2];
		t->apis[2] = a;
	}
	t->in.cal.launch_gap_ns = 300;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1400);
	assert_int_equal(t->c.per_call_ns, 800);
	tb_free(t);
}

/* With the calibration's spaced launch (spaced_launch_ns 600 added to a
 * launch after host work, whose traced record took spaced_record_ns 1200):
 * L2 [8000, 9500] began 4000 after thread 1's cudaMalloc ended (>= 2000:
 * spaced), so its added cost is 1500 - 1200 + 600 = 900, whatever
 * launch_gap_ns says. Host-late gap: min(3000, 400 + 900) = 1300; the
 * enqueued gap 200: idle removed 1500, per launch call 900. A record
 * shorter than the calibration's (2000): 1500 - 2000 + 600 = 100, idle
 * removed min(3000, 400 + 100) + 200 = 700. Without the spaced figures no
 * call is counted as taken against them, nor outside the selection. */
static void test_spaced_launch_against_spaced_calibration(void **state)
{
	struct tb *t = build(1);

	(void)state;
	t->in.cal.plain_launch_ns = 1000;
	t->in.cal.spaced_launch_ns = 600;
	t->in.cal.spaced_record_ns = 1200;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1500);
	assert_int_equal(t->c.per_call_ns, 900);
	/* L1 is the thread's first call, L3 began 100 after L2 */
	assert_int_equal(t->c.spaced_calls, 1);
	gs_corrected_free(&t->c);
	t->in.cal.launch_gap_ns = 300;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.per_call_ns, 900);
	assert_int_equal(t->c.program_spaced_ns, -1);
	gs_corrected_free(&t->c);
	/* the program's own untraced launch from its reference runs, 4500,
	 * against the calibration's 4000: 500 of L2's excess is the
	 * program's, 1500 - 1200 + 600 - 500 = 400; host-late gap min(3000,
	 * 400 + 400) = 800, idle removed 1000 */
	t->in.cal.plain_spaced_ns = 4000;
	t->in.cal.program_spaced_ns = 4500;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.per_call_ns, 400);
	assert_int_equal(t->c.devices[0].idle_removed, 1000);
	assert_int_equal(t->c.program_spaced_ns, 4500);
	assert_int_equal(t->c.plain_spaced_ns, 4000);
	gs_corrected_free(&t->c);
	/* cheaper than the calibration's (3800): 900 + 200 = 1100, idle
	 * removed min(3000, 400 + 1100) + 200 = 1700 */
	t->in.cal.program_spaced_ns = 3800;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.per_call_ns, 1100);
	assert_int_equal(t->c.devices[0].idle_removed, 1700);
	gs_corrected_free(&t->c);
	/* without the calibration's such launch (older calibrations) the
	 * program's figure has nothing to be set against: 900 */
	t->in.cal.plain_spaced_ns = -1;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.per_call_ns, 900);
	assert_int_equal(t->c.program_spaced_ns, -1);
	gs_corrected_free(&t->c);
	t->in.cal.program_spaced_ns = -1;
	t->in.cal.spaced_record_ns = 2000;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 700);
	assert_int_equal(t->c.per_call_ns, 100);
	gs_corrected_free(&t->c);
	t->in.cal.spaced_record_ns = -1;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.spaced_calls, 0);
	/* the count is the selection's, like per_call_ns: a range
	 * [11200, 13000] holds only K3's gap [11200, 11500], whose launch
	 * L3 began 100 after L2 (not spaced); L2's gap lies outside it */
	gs_corrected_free(&t->c);
	gs_result_free(&t->res);
	t->in.cal.spaced_record_ns = 1200;
	t->nvtx[1] = (struct gs_nvtx){.start = 11200, .end = 13000, .text_id = S_TAIL, .tid = 1};
	t->opt.range_name = "tail";
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.spaced_calls, 0);
	tb_free(t);
}

/* A launch call no slower than the untraced one (plain 2000 > L2's 1500)
 * lost nothing to tracing: the host-late gap loses only the other call's
 * min(3000, 400 + 0) = 400; idle removed 600. */
static void test_launch_faster_than_plain_costs_nothing(void **state)
{
	struct tb *t = build(1);

	(void)state;
	t->in.cal.plain_launch_ns = 2000;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 600);
	assert_int_equal(t->c.per_call_ns, 0);
	tb_free(t);
}

/* A cudaStreamSynchronize call [4500, 6100] on thread 1 that waited
 * [5000, 6000] inside the host-late gap, for the host function that thread
 * enqueued at [4200, 4300] (the device was idle: without one it would have
 * waited for nothing, test_sync_waiting_for_nothing):
 * only what follows the wait delays the next launch. After it: the sync's
 * last 100 ns of CUDA API (one call) and L2's launch latency 2000: min(100 +
 * 2000, 1 x 400 + 400) = 800 (counting the calls before the wait too, the
 * cudaMalloc and the sync's head, would give min(3600, 3 x 400 + 400) =
 * 1600). A capture [4500, 4900] at the sync's entry, before the wait, costs
 * nothing; one [6000, 6050] after it costs its 50: 850. Enqueued gap 200:
 * idle removed 1050. The gap holds a wait for the GPU, so it is not one
 * where the GPU only waited for the host: K1's shrink comes off the wall
 * with K2's and K3's, 11500 - 1050 - 300 = 10150. */
static void test_only_time_after_a_wait_delays_the_launch(void **state)
{
	static const struct gs_capture caps[] = {
	    {.start = 4500, .end = 4900, .corr = 11, .tid = 1},
	    {.start = 6000, .end = 6050, .corr = 11, .tid = 1},
	};
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	add_sync(t, 5000, 6000, S_SYNC, GS_SYNC_STREAM, caps, 2);
	api(&t->apis[5], 4200, 4300, 12, S_HOSTFN);
	t->in.n_apis = 6;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 1000);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1050);
	assert_int_equal(t->c.devices[0].window, 10150);
	tb_free(t);
}

/* The same call as an implicit sync in which the thread did its own work:
 * a cudaMalloc in steady state [4500, 6100] (implicit, the call's span),
 * with the device idle throughout the gap it waited for nobody, so what
 * came before it still delayed L2 and the call is a CUDA call like the
 * others. Host-late gap [2000, 10000): CUDA API 1000 (cudaMalloc, no sync
 * row) + 1600 (the sync) = 2600 in 2 calls, launch latency 2000: min(2600 +
 * 2000, 2 x 400 + 400) = 1200, plus both captures, 400 at its entry and 50
 * in it: 1650 (taken as a wait: 450). Enqueued gap 200: idle removed 1850.
 * The gap holds no wait, so K1's shrink stays off the wall: window 11500 -
 * 1850 - 200 = 9450. */
static void test_allocation_is_not_a_wait(void **state)
{
	static const struct gs_capture caps[] = {
	    {.start = 4500, .end = 4900, .corr = 11, .tid = 1},
	    {.start = 6000, .end = 6050, .corr = 11, .tid = 1},
	};
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	add_sync(t, 4500, 6100, S_MALLOC, GS_SYNC_IMPLICIT_ALLOC, caps, 2);
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 1600);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1850);
	assert_int_equal(t->c.devices[0].window, 9450);
	/* an explicit sync of the same span, with a host function enqueued at
	 * [4200, 4300] that it may have waited for, is a wait, both captures
	 * in it: after it only L2's latency, min(2000, 400) = 400, + 200 */
	gs_corrected_free(&t->c);
	gs_result_free(&t->res);
	t->syncs[0].kind = GS_SYNC_STREAM;
	t->syncs[0].implicit = 0;
	t->syncs[0].stream = 7;
	api(&t->apis[5], 4200, 4300, 12, S_HOSTFN);
	t->in.n_apis = 6;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(tb_removed(t), 600);
	tb_free(t);
}

/* A cudaStreamSynchronize [4500, 6100] of device 0 whose call-site capture
 * at its entry [4500, 4900] ran while K1, moved to [1000, 4700], finished:
 * it began to wait at 4900, with the device idle since 4700 and no host
 * function enqueued, so it waited for nothing: a CUDA call like the others.
 * Host-late gap [4700, 10000): sync 1400 (1 call), host code 1900, L2's
 * latency 2000: min(1400 + 2000, 1 x 400 + 400) = 800, plus the capture's
 * 200 inside the gap: 1000; the enqueued gap 200: idle removed 1200.
 * Taken as a wait (it began before the gap; a sync of device 1; a trace
 * whose copies are not recorded): min(2000, 400) = 400, + 200 = 600. */
static void test_sync_waiting_for_nothing(void **state)
{
	static const struct gs_capture caps[] = {
	    {.start = 4500, .end = 4900, .corr = 11, .tid = 1},
	};
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	t->ops[0].end = 4700;
	add_sync(t, 4500, 6100, S_SYNC, GS_SYNC_STREAM, caps, 1);
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 1400);
	assert_int_equal(tb_removed(t), 1200);
	/* without the capture it began while K1 ran */
	t->in.n_captures = 0;
	assert_int_equal(tb_removed(t), 600);
	t->in.n_captures = 1;
	/* a sync of another device */
	t->syncs[0].device = 1;
	assert_int_equal(tb_removed(t), 600);
	t->syncs[0].device = 0;
	/* a copy call and no copy record: the gap may hide the copy */
	api(&t->apis[5], 12800, 12900, 13, S_MEMCPY);
	t->in.n_apis = 6;
	gs_result_free(&t->res);
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(tb_removed(t), 600);
	tb_free(t);
}

/* Call-site captures (the collector's own time, inside the calls it was
 * spent in): one of 400 ns on thread 1 in cudaMalloc [3600, 4000] lies in
 * the host-late gap [2000, 10000) of L2 (thread 1): that gap loses
 * min(800 + 400, 8000) = 1200. One of 300 ns on thread 2 in the same gap
 * [5000, 5300] is another thread's and stays; one at [12600, 12700] is in
 * no gap. Enqueued gap 200 as before: idle removed 1400, window
 * 11500 - 1400 - 200 (K2 and K3; K1's shrink stays, see above) = 9900. */
static void test_captures_in_host_late_gaps_removed(void **state)
{
	static const struct gs_capture caps[] = {
	    {.start = 12600, .end = 12700, .corr = 40, .tid = 1}, /* any order */
	    {.start = 3600, .end = 4000, .corr = 10, .tid = 1},
	    {.start = 5000, .end = 5300, .corr = 41, .tid = 2},
	};
	struct tb *t = build(1);

	(void)state;
	t->in.captures = caps;
	t->in.n_captures = 3;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1400);
	assert_int_equal(t->c.devices[0].busy_removed, 300);
	assert_int_equal(t->c.devices[0].window, 9900);
	/* "step" [0, 13000]: 13000 - 1400 - 200 */
	assert_int_equal(range(t, S_STEP)->corrected, 11400);
	tb_free(t);
}

/* K2 a graph node (graph 5): it shrinks by graph_node_ns - gpu_gap_ns =
 * 450 - 200 = 250, not by kernel_ns (100); K1 and K3 by 100 each: busy
 * removed 450. Idle as in test_device_figures_corrected (1000): window
 * 11500 - 1000 - 350 (K2 and K3; K1 precedes the host-late gap) = 10150. */
static void test_graph_node_uses_graph_node_cost(void **state)
{
	struct tb *t = build(0);

	(void)state;
	gs_result_free(&t->res);
	t->ops[1].graph_id = 5;
	t->in.cal = base_cal();
	t->in.cal.driver_launch_ns = 0;
	t->in.cal.graph_node_ns = 450;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].busy_removed, 450);
	assert_int_equal(t->c.devices[0].idle_removed, 1000);
	assert_int_equal(t->c.devices[0].window, 10150);
	tb_free(t);
}

/* Occupancy with graph nodes: K2 and K3 are nodes of one replay (graph 5,
 * both launched by L2), so [11000, 11500) is graph-internal. Calibration:
 * tiny kernels 1500 traced, 1200 untraced, 1000 recorded (a launched kernel
 * gains 200, wall 0); nodes graph_node_ns 450 - gpu_gap_ns 200 = 250 off
 * busy and wall; an untraced empty node 250 ns (plain_graph_pitch_ns).
 * Host-late gap: 800 as before; the graph-internal one: min(500, 200) =
 * 200; idle removed 1000. K1 gains 200; K2 loses 250 and gains the 500 -
 * 200 = 300 left before K3, at most 250: 0; K3 (last) loses 250. Busy
 * removed -200 + 0 + 250 = 50; wall: K2 250, K3 250 (K1 precedes the
 * host-late gap and its wall share is 0 anyway): window 11500 - 1000 - 500
 * = 10000, busy 2950, idle 7050. Without plain_graph_pitch_ns K2 keeps its
 * 250: busy removed 300. */
/* K2 and K3 as nodes of one replay of graph 5 launched by L2, with the
 * occupancy calibration of the comment above; store: the calibration's
 * store_graph_node_ns (-1: none) */
static struct tb *build_graph_replay(int64_t store)
{
	struct tb *t = build(0);

	gs_result_free(&t->res);
	t->ops[1].graph_id = 5;
	t->ops[2].graph_id = 5;
	t->ops[2].corr = 2;
	t->in.cal = base_cal();
	t->in.cal.store_graph_node_ns = store;
	t->in.cal.launch_gap_ns = 0;
	t->in.cal.driver_launch_ns = 0;
	t->in.cal.graph_node_ns = 450;
	t->in.cal.kernel_pitch_ns = 1500;
	t->in.cal.plain_graph_pitch_ns = 250;
	t->in.cal.tiny_kernel_ns = 1000;
	t->in.cal.plain_kernel_pitch_ns = 1200;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	return t;
}

static void test_occupancy_graph_node_gains_switch(void **state)
{
	struct tb *t = build_graph_replay(-1);
	const struct gs_corrected_device *d;

	(void)state;
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_GRAPH_INTERNAL], 500);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	d = &t->c.devices[0];
	assert_int_equal(d->idle_removed, 1000);
	assert_int_equal(d->busy_removed, 50);
	assert_int_equal(d->window, 10000);
	assert_int_equal(d->busy, 2950);
	assert_int_equal(d->idle, 7050);
	gs_corrected_free(&t->c);
	t->in.cal.plain_graph_pitch_ns = -1;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].busy_removed, 300);
	tb_free(t);
}

/* The same replay with a calibration that timed nodes storing one word:
 * they grew by 150 ns a node (store_graph_node_ns), which replaces
 * graph_node_ns - gpu_gap_ns (450 - 200) and leaves no growth between nodes.
 * Host-late gap: 800 as before; the graph-internal one: min(500, 0) = 0;
 * idle removed 800. K1 gains 200 (wall 0); K2 loses 150 and gains the 500
 * left before K3, at most 250: -100; K3 (last) loses 150. Busy removed
 * -200 - 100 + 150 = -150; wall: K2 150, K3 150. Measured window 12500 -
 * 1000 = 11500, busy 3000: corrected window 11500 - 800 - 300 = 10400,
 * busy 3150, idle 7250. */
static void test_occupancy_store_node_figure(void **state)
{
	struct tb *t = build_graph_replay(150);
	const struct gs_corrected_device *d;

	(void)state;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	d = &t->c.devices[0];
	assert_int_equal(t->c.graph_nodes, 2);
	assert_int_equal(t->c.graph_node_shrink_ns, 150);
	assert_int_equal(d->idle_removed, 800);
	assert_int_equal(d->busy_removed, -150);
	assert_int_equal(d->window, 10400);
	assert_int_equal(d->busy, 3150);
	assert_int_equal(d->idle, 7250);
	tb_free(t);
}

/* L2 becomes a cudaGraphLaunch of one node (K2, graph 5), and the
 * calibration knows the untraced graph launch: 600 + 100 a node, 700 for
 * one node. L2 took 1500 traced, so it lost 800 (under the cap of 10000 +
 * 4000 a node). Host-late gap: min(1000 + 2000, 1 call x 400 + 800) = 1200;
 * enqueued gap min(500, 200) = 200: idle removed 1400. L1 and L3 are
 * cudaGraphLaunch calls too but launched no graph node: they would take
 * the calibrated cost, and explain no host-late gap or one in progress.
 * Kernels: K1 100, K2 300 - min(200, 300) = 100, K3 100: busy removed
 * 300; K1 is followed by the host-late gap, so the window loses K2's and
 * K3's: 11500 - 1400 - 200 = 9900. The per-call figure keeps the
 * calibration's 400 (no kernel launch call was taken), and the graph
 * launch's own 800 is reported apart. */
static void test_graph_launch_against_untraced_graph_launch(void **state)
{
	static const char *g[S_N] = {NULL,   "cudaGraphLaunch",	     "cudaMalloc", "k", "step",
				     "tail", "cudaStreamSynchronize"};
	struct tb *t = build(1);

	(void)state;
	gs_result_free(&t->res);
	t->in.strings.v = g;
	t->ops[1].graph_id = 5;
	t->in.cal.plain_graph_ns = 600;
	t->in.cal.plain_graph_node_ns = 100;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1400);
	assert_int_equal(t->c.devices[0].busy_removed, 300);
	assert_int_equal(t->c.devices[0].window, 9900);
	assert_int_equal(t->c.graph_launches, 1);
	assert_int_equal(t->c.graph_launch_shrink_ns, 800);
	assert_int_equal(t->c.per_call_ns, 400);
	gs_corrected_free(&t->c);

	/* untraced slower than traced (2000 + 100 > 1500): it lost nothing,
	 * the host-late gap only the cudaMalloc's min(3000, 400 + 0) = 400;
	 * idle removed 600 */
	t->in.cal.plain_graph_ns = 2000;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 600);
	assert_int_equal(t->c.graph_launches, 1);
	assert_int_equal(t->c.graph_launch_shrink_ns, 0);
	gs_corrected_free(&t->c);

	/* a calibration without the graph launch (before 2026-12-05): the
	 * launch call's calibrated 400, min(3000, 400 + 400) = 800; idle
	 * removed 1000, no graph launch taken apart */
	t->in.cal.plain_graph_ns = -1;
	t->in.cal.plain_graph_node_ns = -1;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1000);
	assert_int_equal(t->c.graph_launches, 0);
	assert_int_equal(t->c.graph_launch_shrink_ns, 400);
	gs_corrected_free(&t->c);

	/* a graph-level trace: K2 is the launch's graph run, its node count
	 * unknown: the calibrated cost again, 1000 */
	gs_result_free(&t->res);
	t->ops[1].kind = GS_OP_GRAPH_RUN;
	t->in.cal.plain_graph_ns = 600;
	t->in.cal.plain_graph_node_ns = 100;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), 0);
	assert_int_equal(t->c.devices[0].idle_removed, 1000);
	assert_int_equal(t->c.graph_launches, 0);
	tb_free(t);
}

/* An upload from pageable memory (GS_OPF_PAGEABLE_SRC) staged while the
 * GPU copied the one before, thread 1, device 0, stream 7:
 *   cudaStreamSynchronize Y [0, 1000], waited [200, 1000]
 *   cudaMemcpyAsync M1 [1200, 4000] (its capture after the copy [3200,
 *     4000], the loader's widening already made) -> C1 [2500, 5000]
 *   cudaLaunchKernel L2 [4100, 4600]   -> K2 [5100, 5300]
 *   cudaMemcpyAsync M2 [4700, 9000] (its capture at entry [4700, 5200])
 *     -> C2 [8000, 11000]
 * M1 and M2 hold implicit pageable syncs over their calls. Gaps: [5000,
 * 5100), K2 enqueued: min(100, gpu_gap_ns 200) = 100; [5300, 8000), the
 * staging of C2 in M2, which began before it: its own shrink 0, and the
 * thread's costs since Y's wait ended (1000; a pageable copy's sync is no
 * wait) to the gap's end: M1, L2 and M2 at the calibrated 400 each (plain
 * launch unknown), 1200, and both captures, 800 + 500, less the 100 the
 * gap at 5000 took: 2400, within the gap's 2700. Idle removed 2500; K2
 * precedes a gap where the GPU waited for the host, so its 100 stays on the
 * wall: window 8500 - 2500 = 6000. */
/* in analysed and corrected: device 0's idle removed */
static int64_t idle_removed(const struct gs_input *in, const struct gs_options *opt)
{
	struct gs_result res;
	struct gs_corrected c;
	int64_t v;

	assert_int_equal(gs_analyze(in, opt, &res), 0);
	assert_int_equal(gs_correct(in, &res, &in->cal, &c), 0);
	v = c.devices[0].idle_removed;
	gs_corrected_free(&c);
	gs_result_free(&res);
	return v;
}

static void test_pageable_upload_loses_costs_before_its_call(void **state)
{
	static const struct gs_capture caps[] = {
	    {.start = 3200, .end = 4000, .corr = 1, .tid = 1},
	    {.start = 4700, .end = 5200, .corr = 3, .tid = 1},
	};
	struct gs_op ops[3];
	struct gs_api apis[5];
	struct gs_sync syncs[4];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct gs_corrected c;
	uint8_t flags = GS_OPF_PAGEABLE | GS_OPF_ASYNC | GS_OPF_PAGEABLE_SRC | GS_OPF_HOST_SRC;
	int i;

	(void)state;
	op(&ops[0], 2500, 5000, 1);
	op(&ops[1], 5100, 5300, 2);
	op(&ops[2], 8000, 11000, 3);
	ops[0].kind = ops[2].kind = GS_OP_MEMCPY;
	ops[0].name_id = ops[2].name_id = 0;
	ops[0].flags = ops[2].flags = flags;
	api(&apis[0], 0, 1000, 9, S_SYNC);
	api(&apis[1], 1200, 4000, 1, S_MEMCPY_ASYNC);
	api(&apis[2], 4100, 4600, 2, S_LAUNCH);
	api(&apis[3], 4700, 9000, 3, S_MEMCPY_ASYNC);
	syncs[0] = (struct gs_sync){.start = 200,
				    .end = 1000,
				    .tid = 1,
				    .stream = 7,
				    .corr = 9,
				    .api_name_id = S_SYNC,
				    .kind = GS_SYNC_STREAM};
	for (i = 0; i < 2; i++)
		syncs[1 + i] = (struct gs_sync){.start = apis[1 + 2 * i].start,
						.end = apis[1 + 2 * i].end,
						.tid = 1,
						.corr = apis[1 + 2 * i].corr,
						.api_name_id = S_MEMCPY_ASYNC,
						.kind = GS_SYNC_IMPLICIT_PAGEABLE,
						.implicit = 1};
	memset(&in, 0, sizeof(in));
	in.ops = ops;
	in.n_ops = 3;
	in.apis = apis;
	in.n_apis = 4;
	in.syncs = syncs;
	in.n_syncs = 3;
	in.captures = caps;
	in.n_captures = 2;
	in.strings.v = strtab;
	in.strings.n = S_N;
	in.kernel_overhead_ns = -1;
	in.cal = base_cal();
	gs_options_init(&opt);
	opt.all_gaps = 1;
	assert_int_equal(gs_analyze(&in, &opt, &res), 0);
	assert_int_equal(res.devices[0].tl.idle, 2800);
	assert_int_equal(gs_correct(&in, &res, &in.cal, &c), 0);
	assert_int_equal(c.devices[0].idle_removed, 2500);
	assert_int_equal(c.devices[0].window, 6000);
	gs_corrected_free(&c);
	gs_result_free(&res);
	/* a sync that ends at 4050, after M1: the thread waited there, so only
	 * L2, M2 and M2's capture count, 1300, less 100: 1200; idle removed
	 * 1300 */
	api(&apis[4], 4000, 4050, 10, S_SYNC);
	syncs[3] = (struct gs_sync){.start = 4000,
				    .end = 4050,
				    .tid = 1,
				    .stream = 7,
				    .corr = 10,
				    .api_name_id = S_SYNC,
				    .kind = GS_SYNC_STREAM};
	in.n_apis = 5;
	in.n_syncs = 4;
	assert_int_equal(idle_removed(&in, &opt), 1300);
	/* still with that sync, M2 a synchronous cudaMemcpy [4700, 29000]
	 * behind a K2 of [5100, 25300], C2 [28000, 31000]: after its call
	 * began the GPU had 20600 - 100 (the gap at 5000) = 20.5 us to run, so
	 * it waited for its stream and nothing before its staging counts (the
	 * gap [25300, 28000) is its own op's staging: 0): 100 */
	ops[1].end = 25300;
	ops[2].start = 28000;
	ops[2].end = 31000;
	apis[3].name_id = S_MEMCPY;
	apis[3].end = 29000;
	syncs[2].kind = GS_SYNC_IMPLICIT_MEMCPY;
	syncs[2].api_name_id = S_MEMCPY;
	syncs[2].end = 29000;
	assert_int_equal(idle_removed(&in, &opt), 100);
	/* K2 ending at 23700, 18.9 us to run: as with the sync at 4050
	 * above, 100 + 1200 */
	ops[1].end = 23700;
	assert_int_equal(idle_removed(&in, &opt), 1300);
	ops[1].end = 5300;
	ops[2].start = 8000;
	ops[2].end = 11000;
	apis[3].name_id = S_MEMCPY_ASYNC;
	apis[3].end = 9000;
	/* from pinned memory C2 needs no staging and M2 holds no sync: the gap
	 * at 5300 is a copy call still running when the GPU went idle, which
	 * loses the call's cost, min(2700, 400) (test_launch_in_progress_
	 * loses_call_cost), and nothing before it: 100 + 400 */
	in.n_apis = 4;
	in.n_syncs = 2;
	ops[2].flags = GS_OPF_ASYNC | GS_OPF_HOST_SRC;
	assert_int_equal(idle_removed(&in, &opt), 500);
}

/* The timeline of test_pageable_upload_loses_costs_before_its_call twice on
 * thread 1: as it is on device 1, and 100 us later on device 0. Each device's
 * staging gap looks back only to its own thread's last wait, or its own
 * device's last staging gap: 100 + 2400 on each. (Taking device 0's later
 * staging gap as device 1's anchor left device 1 with 100.) */
static void test_pageable_upload_two_devices(void **state)
{
	static const struct gs_capture caps[] = {
	    {.start = 3200, .end = 4000, .corr = 1, .tid = 1},
	    {.start = 4700, .end = 5200, .corr = 3, .tid = 1},
	    {.start = 103200, .end = 104000, .corr = 101, .tid = 1},
	    {.start = 104700, .end = 105200, .corr = 103, .tid = 1},
	};
	static const int64_t shift[2] = {100000, 0}; /* device 0, device 1 */
	struct gs_op ops[6];
	struct gs_api apis[8];
	struct gs_sync syncs[6];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct gs_corrected c;
	uint8_t flags = GS_OPF_PAGEABLE | GS_OPF_ASYNC | GS_OPF_PAGEABLE_SRC | GS_OPF_HOST_SRC;
	int d;

	(void)state;
	for (d = 0; d < 2; d++) {
		int64_t t = shift[d];
		uint32_t k = d ? 0 : 100; /* correlation ids: device 0's from 100 */
		struct gs_op *o = &ops[3 * d];
		struct gs_api *a = &apis[4 * d];
		struct gs_sync *y = &syncs[3 * d];
		int i;
		op(&o[0], t + 2500, t + 5000, k + 1);
		op(&o[1], t + 5100, t + 5300, k + 2);
		op(&o[2], t + 8000, t + 11000, k + 3);
		o[0].kind = o[2].kind = GS_OP_MEMCPY;
		o[0].name_id = o[2].name_id = 0;
		o[0].flags = o[2].flags = flags;
		api(&a[0], t, t + 1000, k + 9, S_SYNC);
		api(&a[1], t + 1200, t + 4000, k + 1, S_MEMCPY_ASYNC);
		api(&a[2], t + 4100, t + 4600, k + 2, S_LAUNCH);
		api(&a[3], t + 4700, t + 9000, k + 3, S_MEMCPY_ASYNC);
		y[0] = (struct gs_sync){.start = t + 200,
					.end = t + 1000,
					.tid = 1,
					.stream = 7,
					.corr = k + 9,
					.api_name_id = S_SYNC,
					.kind = GS_SYNC_STREAM};
		for (i = 0; i < 2; i++)
			y[1 + i] = (struct gs_sync){.start = a[1 + 2 * i].start,
						    .end = a[1 + 2 * i].end,
						    .tid = 1,
						    .corr = a[1 + 2 * i].corr,
						    .api_name_id = S_MEMCPY_ASYNC,
						    .kind = GS_SYNC_IMPLICIT_PAGEABLE,
						    .implicit = 1};
	}
	for (d = 0; d < 6; d++)
		ops[d].device = d < 3 ? 0 : 1;
	memset(&in, 0, sizeof(in));
	in.ops = ops;
	in.n_ops = 6;
	in.apis = apis;
	in.n_apis = 8;
	in.syncs = syncs;
	in.n_syncs = 6;
	in.captures = caps;
	in.n_captures = 4;
	in.strings.v = strtab;
	in.strings.n = S_N;
	in.kernel_overhead_ns = -1;
	in.cal = base_cal();
	gs_options_init(&opt);
	opt.all_gaps = 1;
	assert_int_equal(gs_analyze(&in, &opt, &res), 0);
	assert_int_equal(res.n_devices, 2);
	assert_int_equal(gs_correct(&in, &res, &in.cal, &c), 0);
	assert_int_equal(c.devices[0].idle_removed, 2500);
	assert_int_equal(c.devices[1].idle_removed, 2500);
	gs_corrected_free(&c);
	gs_result_free(&res);
}

/* Random timelines (fixed seed): kernel launches, copies from pageable and
 * pinned memory, synchronous copies and stream syncs on two threads, with
 * captures and CUPTI stalls inside some calls, under random calibrations.
 * Whatever the input, a gap cannot lose more than its length, so the idle
 * removed lies in [0, idle]; the corrected window in [corrected busy,
 * measured window]; each range's corrected wall in [0, wall]. */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static int64_t rnd(int64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return n > 0 ? (int64_t)(rnd_state % (uint64_t)n) : 0;
}

enum { RND_STEPS = 40 };

static void test_random_timelines_stay_in_bounds(void **state)
{
	static const uint8_t pageable =
	    GS_OPF_PAGEABLE | GS_OPF_PAGEABLE_SRC | GS_OPF_HOST_SRC | GS_OPF_ASYNC;
	struct gs_op ops[RND_STEPS];
	struct gs_api apis[RND_STEPS];
	struct gs_sync syncs[RND_STEPS];
	struct gs_capture caps[RND_STEPS], stalls[RND_STEPS];
	struct gs_nvtx nvtx[2];
	struct gs_input in;
	struct gs_options opt;
	int trial;

	(void)state;
	for (trial = 0; trial < 400; trial++) {
		struct gs_result res;
		struct gs_corrected c;
		size_t n = 1 + (size_t)rnd(RND_STEPS), k, n_ops = 0, n_syncs = 0, n_caps = 0,
		       n_stalls = 0, d;
		int64_t t = 0, last_end = 0;

		memset(&in, 0, sizeof(in));
		for (k = 0; k < n; k++) {
			int kind = (int)rnd(5); /* launch, pageable, pinned, sync copy, sync */
			int64_t cs = t + rnd(5000), len = 500 + rnd(20000);
			uint32_t corr = (uint32_t)k + 1, name = kind == 0   ? S_LAUNCH
								: kind == 3 ? S_MEMCPY
								: kind == 4 ? S_SYNC
									    : S_MEMCPY_ASYNC;
			if (kind == 4 && last_end > cs + len)
				len = last_end - cs + rnd(1000); /* it waits for the GPU */
			api(&apis[k], cs, cs + len, corr, name);
			apis[k].tid = 1 + (uint32_t)rnd(2);
			if (kind < 4) {
				int64_t os = cs + rnd(len + 3000);
				if (os < last_end)
					os = last_end + rnd(2000);
				op(&ops[n_ops], os, os + 100 + rnd(50000), corr);
				if (kind) {
					ops[n_ops].kind = GS_OP_MEMCPY;
					ops[n_ops].name_id = 0;
					ops[n_ops].flags =
					    kind == 2 ? GS_OPF_ASYNC | GS_OPF_HOST_SRC : pageable;
				}
				last_end = ops[n_ops++].end;
			}
			if (kind == 1 || kind == 3 || kind == 4)
				syncs[n_syncs++] =
				    (struct gs_sync){.start = cs,
						     .end = cs + len,
						     .tid = apis[k].tid,
						     .stream = kind == 4 ? 7 : 0,
						     .corr = corr,
						     .api_name_id = name,
						     .kind = kind == 1	 ? GS_SYNC_IMPLICIT_PAGEABLE
							     : kind == 3 ? GS_SYNC_IMPLICIT_MEMCPY
									 : GS_SYNC_STREAM,
						     .implicit = kind != 4};
			if (!rnd(3))
				caps[n_caps++] =
				    (struct gs_capture){cs, cs + rnd(len), corr, apis[k].tid};
			if (!rnd(8))
				stalls[n_stalls++] =
				    (struct gs_capture){cs + rnd(len), cs + len, 0, apis[k].tid};
			t = cs + len;
		}
		nvtx[0] =
		    (struct gs_nvtx){.start = 0, .end = t + 60000, .text_id = S_STEP, .tid = 1};
		nvtx[1] = (struct gs_nvtx){
		    .start = rnd(t + 1), .end = t + 1, .text_id = S_TAIL, .tid = 1};
		if (nvtx[1].end < nvtx[1].start)
			nvtx[1].end = nvtx[1].start;
		in.ops = ops;
		in.n_ops = n_ops;
		in.apis = apis;
		in.n_apis = n;
		in.syncs = syncs;
		in.n_syncs = n_syncs;
		in.captures = caps; /* made in corr order */
		in.n_captures = n_caps;
		in.stalls = stalls;
		in.n_stalls = n_stalls;
		in.nvtx = nvtx;
		in.n_nvtx = 2;
		in.strings.v = strtab;
		in.strings.n = S_N;
		in.kernel_overhead_ns = -1;
		in.cal = base_cal();
		in.cal.plain_launch_ns = rnd(2) ? 2000 + rnd(3000) : -1;
		in.cal.launch_gap_ns = rnd(2) ? rnd(1000) : -1;
		in.cal.launch_ns = 300 + rnd(3000);
		in.cal.legacy_launch_ns = 300 + rnd(3000);
		in.cal.kernel_ns = rnd(1000);
		in.cal.gpu_gap_ns = rnd(500);
		gs_options_init(&opt);
		opt.all_gaps = 1;
		assert_int_equal(gs_analyze(&in, &opt, &res), 0);
		assert_int_equal(gs_correct(&in, &res, &in.cal, &c), 0);
		for (d = 0; d < c.n_devices; d++) {
			const struct gs_timeline *tl = &res.devices[d].tl;
			const struct gs_corrected_device *cd = &c.devices[d];
			assert_in_range(cd->idle_removed, 0, tl->idle);
			assert_in_range(cd->window, cd->busy, tl->busy + tl->idle);
		}
		for (k = 0; k < c.n_ranges; k++)
			assert_in_range(c.ranges[k].corrected, 0, c.ranges[k].wall);
		gs_corrected_free(&c);
		gs_result_free(&res);
	}
}

/* n launches (ops[i] launched by apis[i]) analysed with all gaps and
 * corrected with cal into *c (to be freed) */
static void correct_launches(struct gs_op *ops, struct gs_api *apis, int n,
			     struct gs_calibration cal, struct gs_corrected *c)
{
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;

	memset(&in, 0, sizeof(in));
	in.ops = ops;
	in.n_ops = (size_t)n;
	in.apis = apis;
	in.n_apis = (size_t)n;
	in.strings.v = strtab;
	in.strings.n = S_N;
	in.kernel_overhead_ns = -1;
	in.cal = cal;
	gs_options_init(&opt);
	opt.all_gaps = 1;
	assert_int_equal(gs_analyze(&in, &opt, &res), 0);
	assert_int_equal(gs_correct(&in, &res, &in.cal, c), 0);
	gs_result_free(&res);
}

/* The trace's own bound on CUPTI's time between launch records. Thread 1
 * launches N kernels back to back: L_i [s_i, s_i + 1000] -> K_i [s_i +
 * 1200, s_i + 1250], s_i = s_(i-1) + 1000 + b_i, b_i (the gap between two
 * launch calls) 300 for the first 10 pairs, 500 after. Each launch begins
 * after the kernel before it ended (b_i + 1000 > 1250): N - 1 host-late
 * gaps, each losing its launch call's cost, traced less untraced (1000 -
 * plain 700 = 300) plus min(b_i, launch gap) (at most the gap, >= 1250).
 * With N = 120 (119 pairs) the 5th percentile of the pairs' gaps (rank
 * ceil(0.05 x 119) = 6) is 300: each gap loses 600, 71400 in all. */
static int64_t launch_gap_case(int n_launches, int64_t cal_gap, int64_t plain, int64_t *gap,
			       int *from_trace)
{
	enum { N = 120 };
	struct gs_op ops[N];
	struct gs_api apis[N];
	struct gs_calibration cal = base_cal();
	struct gs_corrected c;
	int64_t s = 0, v;
	int i;

	assert_true(n_launches <= N);
	for (i = 0; i < n_launches; i++) {
		if (i)
			s += 1000 + (i <= 10 ? 300 : 500);
		api(&apis[i], s, s + 1000, (uint32_t)i + 1, S_LAUNCH);
		op(&ops[i], s + 1200, s + 1250, (uint32_t)i + 1);
	}
	cal.plain_launch_ns = plain;
	cal.launch_gap_ns = cal_gap;
	correct_launches(ops, apis, n_launches, cal, &c);
	v = c.devices[0].idle_removed;
	*gap = c.launch_gap_ns;
	*from_trace = c.launch_gap_from_trace;
	gs_corrected_free(&c);
	return v;
}

/* n launches, 20000 apart, each a record of 6000, 7000 or 8000 (by i % 3:
 * 7000 for i = 1, 8000 for 2, 6000 for 3, ...) and its kernel 500 after
 * the record's end: every launch but the first began 12000 or more after
 * the previous call ended (spaced) and its kernel's gap is host-late. With
 * n = 101, 100 spaced calls: 33 of 6000, 34 of 7000, 33 of 8000, whose
 * median (rank 50) is 7000. Fills *c (corrected, to be freed). */
static void slow_case(int n, int64_t cal_record, struct gs_corrected *c)
{
	enum { N = 101 };
	struct gs_op ops[N];
	struct gs_api apis[N];
	struct gs_calibration cal = base_cal();
	int i;

	assert_true(n <= N);
	for (i = 0; i < n; i++) {
		int64_t s = (int64_t)i * 20000, rec = 6000 + (i % 3) * 1000;
		api(&apis[i], s, s + rec, (uint32_t)i + 1, S_LAUNCH);
		op(&ops[i], s + rec + 500, s + rec + 1500, (uint32_t)i + 1);
	}
	cal.plain_launch_ns = 1000;
	cal.spaced_launch_ns = 600;
	cal.spaced_record_ns = cal_record;
	correct_launches(ops, apis, n, cal, c);
}

/* The process ran slower than its calibration where the spaced calls'
 * median record is 130% of the calibration's or more, over 100 calls or
 * more: 7000 against 5000 (140%) and against 5384 (130.02%) yes, against
 * 5400 (129.6%) no; 99 calls no; a calibration without the spaced record
 * takes no call against it, so no median either. */
static void test_slow_process_against_calibration(void **state)
{
	struct gs_corrected c;

	(void)state;
	slow_case(101, 5000, &c);
	assert_int_equal(c.spaced_calls, 100);
	assert_int_equal(c.spaced_record_p50_ns, 7000);
	assert_int_equal(c.spaced_record_cal_ns, 5000);
	assert_true(gs_corrected_slow_process(&c));
	gs_corrected_free(&c);
	slow_case(101, 5384, &c);
	assert_true(gs_corrected_slow_process(&c));
	gs_corrected_free(&c);
	slow_case(101, 5400, &c);
	assert_int_equal(c.spaced_record_p50_ns, 7000);
	assert_false(gs_corrected_slow_process(&c));
	gs_corrected_free(&c);
	slow_case(100, 5000, &c);
	assert_int_equal(c.spaced_calls, 99);
	assert_false(gs_corrected_slow_process(&c));
	gs_corrected_free(&c);
	slow_case(101, -1, &c);
	assert_int_equal(c.spaced_calls, 0);
	assert_int_equal(c.spaced_record_p50_ns, -1);
	assert_int_equal(c.spaced_record_cal_ns, -1);
	assert_false(gs_corrected_slow_process(&c));
	gs_corrected_free(&c);
	assert_false(gs_corrected_slow_process(NULL));
}

/* A host-late gap crossing many CUDA calls keeps its launch, which comes
 * last among its segments. K1 [1000, 2000) launched by [500, 900); 70
 * cudaMalloc calls [3000 + 2000 i, 4000 + 2000 i) on thread 1; K2
 * [200000, 201000) launched by [199000, 199500). The gap [2000, 200000)
 * has 142 segments: host code, 70 x (CUDA API 1000, host code), launch
 * latency 1000 (the launch call and its queue). Each call costs the mean
 * of the base calibration's 300 and 500, 400, and so does the launch:
 * min(70 x 1000 + 1000, 70 x 400 + 400) = 28400 ns of idle removed (with
 * only the first 64 segments, 32 calls and no launch: 13200). */
static void test_gap_with_many_calls_keeps_its_launch(void **state)
{
	struct gs_op ops[2];
	struct gs_api apis[72];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct gs_corrected c;
	int i;

	(void)state;
	memset(&in, 0, sizeof(in));
	op(&ops[0], 1000, 2000, 1);
	op(&ops[1], 200000, 201000, 2);
	api(&apis[0], 500, 900, 1, S_LAUNCH);
	for (i = 0; i < 70; i++)
		api(&apis[1 + i], 3000 + 2000 * i, 4000 + 2000 * i, 100 + (uint32_t)i, S_MALLOC);
	api(&apis[71], 199000, 199500, 2, S_LAUNCH);
	in.ops = ops;
	in.n_ops = 2;
	in.apis = apis;
	in.n_apis = 72;
	in.strings.v = strtab;
	in.strings.n = S_N;
	in.kernel_overhead_ns = -1;
	in.cal = base_cal();
	gs_options_init(&opt);
	opt.all_gaps = 1;
	assert_int_equal(gs_analyze(&in, &opt, &res), 0);
	assert_int_equal(res.devices[0].n_gaps, 1);
	assert_int_equal(gs_gap_segments(&res, &res.devices[0].gaps[0], NULL, 0), 142);
	assert_int_equal(gs_correct(&in, &res, &in.cal, &c), 0);
	assert_int_equal(c.devices[0].idle_removed, 28400);
	gs_corrected_free(&c);
	gs_result_free(&res);
}

static void test_launch_gap_bound_from_the_trace(void **state)
{
	int64_t gap;
	int from_trace;

	(void)state;
	/* no calibrated figure: the trace's 300 */
	assert_int_equal(launch_gap_case(120, -1, 700, &gap, &from_trace), 119 * 600);
	assert_int_equal(gap, 300);
	assert_true(from_trace);
	/* a calibrated 200, under the bound: 500 a gap */
	assert_int_equal(launch_gap_case(120, 200, 700, &gap, &from_trace), 119 * 500);
	assert_int_equal(gap, 200);
	assert_false(from_trace);
	/* a calibrated 400, over it: the trace's 300 */
	assert_int_equal(launch_gap_case(120, 400, 700, &gap, &from_trace), 119 * 600);
	assert_int_equal(gap, 300);
	assert_true(from_trace);
	/* 99 pairs are too few for a bound: the call's 300 alone */
	assert_int_equal(launch_gap_case(100, -1, 700, &gap, &from_trace), 99 * 300);
	assert_int_equal(gap, -1);
	assert_false(from_trace);
	/* no untraced launch figure: each call takes the calibrated cost,
	 * (300 + 500) / 2 = 400, and no time between calls */
	assert_int_equal(launch_gap_case(120, -1, -1, &gap, &from_trace), 119 * 400);
	assert_int_equal(gap, -1);
	assert_false(from_trace);
}

static void test_refused_without_calibration_or_gaps(void **state)
{
	struct tb *t = build(0);

	(void)state;
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), -EINVAL);
	assert_null(t->c.devices);
	tb_free(t);
	t = build(1);
	gs_result_free(&t->res);
	t->opt.all_gaps = 0;
	t->opt.top_n = 1;
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	assert_int_equal(gs_correct(&t->in, &t->res, &t->in.cal, &t->c), -EINVAL);
	tb_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_measured_timeline_as_built),
	    cmocka_unit_test(test_device_figures_corrected),
	    cmocka_unit_test(test_range_walls_corrected),
	    cmocka_unit_test(test_occupancy_adds_the_switch),
	    cmocka_unit_test(test_occupancy_shorter_than_recorded),
	    cmocka_unit_test(test_occupancy_graph_node_gains_switch),
	    cmocka_unit_test(test_occupancy_store_node_figure),
	    cmocka_unit_test(test_range_selection_keeps_kernel_cost),
	    cmocka_unit_test(test_range_selection_clips_long_kernel),
	    cmocka_unit_test(test_driver_launch_uses_driver_cost),
	    cmocka_unit_test(test_allocation_is_not_a_wait),
	    cmocka_unit_test(test_sync_waiting_for_nothing),
	    cmocka_unit_test(test_pageable_upload_loses_costs_before_its_call),
	    cmocka_unit_test(test_pageable_upload_two_devices),
	    cmocka_unit_test(test_launch_gap_adds_time_between_calls),
	    cmocka_unit_test(test_spaced_launch_against_spaced_calibration),
	    cmocka_unit_test(test_slow_process_against_calibration),
	    cmocka_unit_test(test_launch_gap_bound_from_the_trace),
	    cmocka_unit_test(test_captures_in_host_late_gaps_removed),
	    cmocka_unit_test(test_launch_in_progress_loses_call_cost),
	    cmocka_unit_test(test_cupti_stalls_removed_where_the_thread_was_late),
	    cmocka_unit_test(test_launch_cost_from_traced_duration),
	    cmocka_unit_test(test_launch_faster_than_plain_costs_nothing),
	    cmocka_unit_test(test_only_time_after_a_wait_delays_the_launch),
	    cmocka_unit_test(test_graph_node_uses_graph_node_cost),
	    cmocka_unit_test(test_graph_launch_against_untraced_graph_launch),
	    cmocka_unit_test(test_gap_with_many_calls_keeps_its_launch),
	    cmocka_unit_test(test_refused_without_calibration_or_gaps),
	    cmocka_unit_test(test_random_timelines_stay_in_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
