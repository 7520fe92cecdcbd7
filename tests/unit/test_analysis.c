/*
 * test_analysis.c - cmocka tests of the analysis library on synthetic
 * timelines. Every expected figure is worked out by hand in the comment
 * next to the assertion (docs/metrics.md has the definitions); nothing is
 * copied from the code's output. No database, no I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "gapscope/trace_format.h"

/* string ids of the synthetic string table */
enum {
	S_LAUNCH = 1,
	S_GRAPHLAUNCH,
	S_STREAMSYNC,
	S_KA,
	S_KB,
	S_KC,
	S_STEP,
	S_WAIT,
	S_HOSTFN,
	S_MEMCPY,
	S_OTHER,
	S_N
};

static const char *strtab[S_N] = {
    NULL,
    "cudaLaunchKernel",
    "cudaGraphLaunch",
    "cudaStreamSynchronize",
    "kA<float, 4>",
    "kB",
    "kC",
    "step",
    "cudaStreamWaitEvent",
    "cudaLaunchHostFunc",
    "cudaMemcpy",
    "other",
};

struct tb {
	struct gs_op ops[64];
	struct gs_api apis[64];
	struct gs_sync syncs[16];
	struct gs_nvtx nvtx[16];
	struct gs_event events[8];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
};

static struct tb *tb_new(void)
{
	struct tb *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->in.ops = t->ops;
	t->in.apis = t->apis;
	t->in.syncs = t->syncs;
	t->in.nvtx = t->nvtx;
	t->in.events = t->events;
	t->in.strings.v = strtab;
	t->in.strings.n = S_N;
	t->in.kernel_overhead_ns = -1;
	gs_options_init(&t->opt);
	return t;
}

static void tb_free(struct tb *t)
{
	gs_result_free(&t->res);
	free(t);
}

/* Ops must be added in (device, start) order. */
static uint32_t kern(struct tb *t, int dev, uint32_t stream, int64_t s, int64_t e, uint32_t corr,
		     uint32_t name)
{
	struct gs_op *o = &t->ops[t->in.n_ops];
	o->start = s;
	o->end = e;
	o->device = (int16_t)dev;
	o->stream = stream;
	o->corr = corr;
	o->name_id = name;
	o->kind = GS_OP_KERNEL;
	return (uint32_t)t->in.n_ops++;
}

static uint32_t api(struct tb *t, uint32_t name, int64_t s, int64_t e, uint32_t corr, uint32_t tid)
{
	struct gs_api *a = &t->apis[t->in.n_apis];
	a->start = s;
	a->end = e;
	a->corr = corr;
	a->name_id = name;
	a->tid = tid;
	return (uint32_t)t->in.n_apis++;
}

static uint32_t sync_row(struct tb *t, int kind, int implicit, uint32_t name, int64_t s, int64_t e,
			 uint32_t tid, uint32_t stream)
{
	struct gs_sync *y = &t->syncs[t->in.n_syncs];
	y->start = s;
	y->end = e;
	y->kind = (uint8_t)kind;
	y->implicit = (uint8_t)implicit;
	y->api_name_id = name;
	y->tid = tid;
	y->stream = stream;
	y->device = 0;
	return (uint32_t)t->in.n_syncs++;
}

static uint32_t range(struct tb *t, uint32_t text, int64_t s, int64_t e, uint32_t tid)
{
	struct gs_nvtx *r = &t->nvtx[t->in.n_nvtx];
	r->start = s;
	r->end = e;
	r->text_id = text;
	r->tid = tid;
	r->kind = GS_NVTX_RANGE;
	return (uint32_t)t->in.n_nvtx++;
}

static void event_record(struct tb *t, uint64_t event, int dev, uint32_t stream, int64_t start)
{
	struct gs_event *e = &t->events[t->in.n_events++];
	e->event = event;
	e->device = (int16_t)dev;
	e->stream = stream;
	e->start = start;
}

static void run(struct tb *t)
{
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
}

static const struct gs_device_result *dev0(struct tb *t)
{
	assert_true(t->res.n_devices >= 1);
	return &t->res.devices[0];
}

static void test_back_to_back_kernels_have_no_gap(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 200, 300, 2, S_KB);
	run(t);
	/* window [100,300] = 200, all busy */
	assert_int_equal(dev0(t)->tl.window, 200);
	assert_int_equal(dev0(t)->tl.busy, 200);
	assert_int_equal(dev0(t)->tl.idle, 0);
	assert_int_equal(dev0(t)->n_gaps, 0);
	assert_int_equal(dev0(t)->tl.n_ops, 2);
	assert_true(dev0(t)->tl.utilisation == 1.0);
	tb_free(t);
}

static void test_gap_after_late_launch_is_launch_bound(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 250, 260, 2, 1); /* starts after g0 = 200 */
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	/* window [100,400] = 300; gap [200,300) = 100 launch-bound */
	assert_int_equal(dev0(t)->tl.window, 300);
	assert_int_equal(dev0(t)->tl.busy, 200);
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->gaps[0].start, 200);
	assert_int_equal(dev0(t)->gaps[0].end, 300);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_LAUNCH);
	assert_int_equal(dev0(t)->gaps[0].explain_idx, 1);
	assert_int_equal(dev0(t)->gaps[0].op_idx, 1);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 100);
	/* launch overhead share = 100 / 300 */
	assert_true(dev0(t)->tl.launch_overhead_share > 0.33333 &&
		    dev0(t)->tl.launch_overhead_share < 0.33334);
	tb_free(t);
}

static void test_gap_with_early_launch_is_launch_latency(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 150, 160, 2, 1); /* before g0 = 200, op starts at 300 */
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 0);
	tb_free(t);
}

static void test_sync_covering_gap_is_sync_bound(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 260, 270, 2, 1);
	/* another thread's sync also spans g0: must not count */
	sync_row(t, GS_SYNC_CONTEXT, 0, S_STREAMSYNC, 100, 400, 2, 0);
	/* thread 1 blocked in cudaStreamSynchronize [190,255] spans g0 = 200 */
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 190, 255, 1, 7);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	/* rule 1 comes before rule 2 (C.start 260 >= g0 would be launch-bound) */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_SYNC);
	assert_int_equal(dev0(t)->gaps[0].explain_idx, 1);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 100);
	/* the explicit groups: stream sync (1 row, blocked 65, caused 100 idle)
	 * and device sync (1 row, blocked 300, caused none) */
	assert_int_equal(t->res.n_syncs, 2);
	/* explicit first, by blocked time: device sync 300 then stream sync 65 */
	assert_int_equal(t->res.syncs[0].kind, GS_SYNC_CONTEXT);
	assert_int_equal(t->res.syncs[0].blocked_ns, 300);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 0);
	assert_int_equal(t->res.syncs[1].kind, GS_SYNC_STREAM);
	assert_int_equal(t->res.syncs[1].count, 1);
	assert_int_equal(t->res.syncs[1].blocked_ns, 65);
	assert_int_equal(t->res.syncs[1].gpu_idle_ns, 100);
	tb_free(t);
}

static void test_sync_on_other_thread_does_not_make_sync_bound(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 260, 270, 2, 1);
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 190, 255, 2, 7);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	tb_free(t);
}

static void test_implicit_sync_is_sync_bound(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 150, 160, 2, 1);
	/* a synchronous cudaMemcpy [180,290] on thread 1 spans g0 = 200 */
	sync_row(t, GS_SYNC_IMPLICIT_MEMCPY, 1, S_MEMCPY, 180, 290, 1, 0);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].implicit, 1);
	assert_int_equal(t->res.syncs[0].blocked_ns, 110);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 100);
	tb_free(t);
}

static void test_stream_wait_event_is_dependency(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1); /* early: without the wait, launch-latency */
	/* cudaStreamWaitEvent on stream 8 enqueued at 25, before K2's launch */
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 25, 28, 1, 8);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 8, 300, 400, 2, S_KB);
	run(t);
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_DEPENDENCY);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_WAIT);
	assert_int_equal(dev0(t)->gaps[0].explain_idx, 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 100);
	/* the wait group caused 100 ns of idle */
	assert_int_equal(t->res.syncs[0].kind, GS_SYNC_STREAM_WAIT_EVENT);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 100);
	tb_free(t);
}

/* The same timeline as test_stream_wait_event_is_dependency, with the
 * waited-for event's record known: stream 8 waits (at 25) for event 5. */
static struct tb *wait_timeline(int rec_dev, uint32_t rec_stream)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 25, 28, 1, 8);
	t->syncs[0].event = 5;
	event_record(t, 5, rec_dev, rec_stream, 5); /* the record the wait sees */
	event_record(t, 5, 0, 8, 26);		    /* a later one: ignored */
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 8, 300, 400, 2, S_KB);
	run(t);
	return t;
}

static void test_wait_on_event_of_another_device_is_dependency(void **state)
{
	struct tb *t = wait_timeline(1, 20);
	(void)state;
	/* recorded on device 1: the device-0 gap [200,300) is a dependency */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_DEPENDENCY);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_WAIT);
	tb_free(t);
}

static void test_wait_on_event_of_same_device_is_not_device_dependency(void **state)
{
	struct tb *t = wait_timeline(0, 7);
	(void)state;
	/* recorded on stream 7 of device 0: in the device view that work was
	 * done when the device went idle, so no dependency: K2 was launched
	 * at 30 < 200, launch-latency */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 0);
	tb_free(t);
}

static void test_stream_view_counts_wait_on_other_stream(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* stream 8: K0 [50,60], then K2 [300,400] launched at 30 after a wait
	 * (at 25) for event 5, recorded on stream 7 of the same device.
	 * Stream 7: K1 [40,320]. Device: busy [40,400], no gap. Stream 8's
	 * own hole [60,300) = 240 is a dependency in its view. */
	api(t, S_LAUNCH, 10, 11, 3, 1);
	api(t, S_LAUNCH, 12, 13, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 25, 28, 1, 8);
	t->syncs[0].event = 5;
	event_record(t, 5, 0, 7, 20);
	kern(t, 0, 7, 40, 320, 1, S_KA);
	kern(t, 0, 8, 50, 60, 3, S_KC);
	kern(t, 0, 8, 300, 400, 2, S_KB);
	run(t);
	assert_int_equal(dev0(t)->n_gaps, 0);
	assert_int_equal(dev0(t)->streams[1].stream, 8);
	assert_int_equal(dev0(t)->streams[1].tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 240);
	tb_free(t);
}

static void test_wait_before_previous_launch_is_not_dependency(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* stream 8: K0 launched at 15, then K2 launched at 30. The wait at 12
	 * precedes K0's launch, so it is K0's dependency, not K2's. */
	api(t, S_LAUNCH, 10, 11, 1, 1);
	api(t, S_LAUNCH, 15, 16, 3, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 12, 13, 1, 8);
	kern(t, 0, 8, 50, 60, 3, S_KC);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 8, 300, 400, 2, S_KB);
	run(t);
	/* device gaps: [60,100) before K1 (C.start 10 < 60, stream 7 has no
	 * wait: latency) and [200,300) before K2: latency */
	assert_int_equal(dev0(t)->n_gaps, 2);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[1].start, 200);
	tb_free(t);
}

static void test_host_node_before_graph_kernel_is_dependency(void **state)
{
	struct tb *t = tb_new();
	uint32_t k;
	(void)state;
	api(t, S_GRAPHLAUNCH, 10, 20, 5, 1);
	kern(t, 0, 7, 100, 200, 5, S_KA);
	k = kern(t, 0, 7, 300, 400, 5, S_KB);
	t->ops[0].graph_id = t->ops[1].graph_id = 3;
	t->ops[k].flags |= GS_OPF_HOST_NODE_DEP;
	run(t);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_DEPENDENCY);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_HOST_NODE);
	tb_free(t);
}

static void test_op_without_launch_call_is_other(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	/* corr 99 has no API call, even though a sync spans g0 on thread 1 */
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 150, 250, 1, 7);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 99, S_KB);
	run(t);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_OTHER);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_NONE);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 100);
	tb_free(t);
}

static void test_overlap_between_streams_covers_gap(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	api(t, S_LAUNCH, 250, 260, 3, 1);
	kern(t, 0, 1, 100, 200, 1, S_KA);
	kern(t, 0, 2, 150, 350, 2, S_KB);
	kern(t, 0, 1, 300, 400, 3, S_KC);
	run(t);
	/* device: union [100,400], no hole */
	assert_int_equal(dev0(t)->n_gaps, 0);
	assert_int_equal(dev0(t)->tl.idle, 0);
	assert_int_equal(dev0(t)->tl.busy, 300);
	/* per stream: stream 1 has its own hole [200,300) launch-bound (C 250 >= 200),
	 * window [100,400] = 300, busy 200; stream 2: [150,350], no hole */
	assert_int_equal(dev0(t)->n_streams, 2);
	assert_int_equal(dev0(t)->streams[0].stream, 1);
	assert_int_equal(dev0(t)->streams[0].tl.window, 300);
	assert_int_equal(dev0(t)->streams[0].tl.busy, 200);
	assert_int_equal(dev0(t)->streams[0].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 100);
	assert_int_equal(dev0(t)->streams[0].tl.n_ops, 2);
	assert_int_equal(dev0(t)->streams[1].stream, 2);
	assert_int_equal(dev0(t)->streams[1].tl.window, 200);
	assert_int_equal(dev0(t)->streams[1].tl.idle, 0);
	tb_free(t);
}

static void test_graph_launch_kernels_share_correlation_id(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_GRAPHLAUNCH, 10, 20, 5, 1);
	api(t, S_LAUNCH, 400, 410, 6, 1);
	kern(t, 0, 7, 100, 150, 5, S_KA);
	kern(t, 0, 7, 170, 220, 5, S_KB);
	kern(t, 0, 7, 220, 300, 5, S_KC);
	kern(t, 0, 7, 420, 430, 6, S_KA);
	t->ops[0].graph_id = t->ops[1].graph_id = t->ops[2].graph_id = 9;
	run(t);
	/* gap [150,170) inside the graph launch: its call started at 10 < 150,
	 * so not launch-bound: launch-latency. Gap [300,420): the next
	 * cudaLaunchKernel started at 400 >= 300: launch-bound. */
	assert_int_equal(dev0(t)->n_gaps, 2);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[0].explain_idx, 0);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 20);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 120);
	/* one sample per launch call: cudaGraphLaunch api 10, queue 100-20 =
	 * 80, delay 100-10 = 90 (its first kernel) */
	assert_int_equal(t->res.n_launches, 2);
	{
		size_t i, found = 0;
		for (i = 0; i < t->res.n_launches; i++) {
			const struct gs_launch_stat *l = &t->res.launches[i];
			if (l->name_id == S_GRAPHLAUNCH) {
				found = 1;
				assert_int_equal(l->api_dur.n, 1);
				assert_int_equal(l->api_dur.p50, 10);
				assert_int_equal(l->queue.p50, 80);
				assert_int_equal(l->delay.p50, 90);
			}
		}
		assert_true(found);
	}
	assert_int_equal(gs_launch_call(&t->res, 2), 0);
	tb_free(t);
}

static void test_idle_by_cause_sums_exactly_to_idle(void **state)
{
	struct tb *t = tb_new();
	int64_t sum = 0;
	int k;
	(void)state;
	/* K1 [0,100]; gap [100,150) launch-bound (C2 at 120);
	 * K2 [150,200]; gap [200,270) latency (C3 at 50);
	 * K3 [270,300]; gap [300,333) sync-bound (sync [290,310] on tid 1);
	 * K4 [333,400]; gap [400,500) other (corr 77 unknown);
	 * K5 [500,510]; gap [510,600) dependency: a wait on stream 7 at 405,
	 * after the launch of the last op with a known call (K4, 320) and
	 * before K6's launch at 406 */
	api(t, S_LAUNCH, 0, 1, 1, 1);
	api(t, S_LAUNCH, 120, 130, 2, 1);
	api(t, S_LAUNCH, 50, 60, 3, 1);
	api(t, S_LAUNCH, 320, 321, 4, 1);
	api(t, S_LAUNCH, 400, 401, 5, 1);
	api(t, S_LAUNCH, 406, 407, 6, 1);
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 290, 310, 1, 7);
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 405, 405, 1, 7);
	kern(t, 0, 7, 0, 100, 1, S_KA);
	kern(t, 0, 7, 150, 200, 2, S_KA);
	kern(t, 0, 7, 270, 300, 3, S_KA);
	kern(t, 0, 7, 333, 400, 4, S_KA);
	kern(t, 0, 7, 500, 510, 77, S_KA);
	kern(t, 0, 7, 600, 700, 6, S_KA);
	run(t);
	assert_int_equal(dev0(t)->tl.window, 700);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 70);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 33);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 90);
	for (k = 0; k < GS_CAUSE_COUNT; k++)
		sum += dev0(t)->tl.idle_by_cause[k];
	/* 50+70+33+100+90 = 343; busy = 100+50+30+67+10+100 = 357 */
	assert_int_equal(dev0(t)->tl.idle, 343);
	assert_int_equal(sum, 343);
	assert_int_equal(dev0(t)->tl.busy, 357);
	/* largest gaps first: other 100, dependency 90, latency 70 */
	assert_int_equal(dev0(t)->n_top, 5);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[0]].cause, GS_CAUSE_OTHER);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[1]].cause, GS_CAUSE_DEPENDENCY);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[2]].cause, GS_CAUSE_LAUNCH_LATENCY);
	tb_free(t);
}

static void test_percentile_is_nearest_rank(void **state)
{
	int64_t v[] = {50, 15, 40, 35, 20}; /* sorted: 15 20 35 40 50 */
	int64_t w[10] = {7, 3, 10, 1, 9, 2, 8, 4, 6, 5};
	struct gs_dist d;
	(void)state;
	/* rank = ceil(p/100 * n): p50 of 5 -> rank 3 -> 35; p90 -> rank 5 -> 50;
	 * p20 -> rank 1 -> 15; p40 -> rank 2 -> 20 */
	assert_int_equal(gs_percentile(v, 5, 50), 35);
	assert_int_equal(gs_percentile(v, 5, 90), 50);
	assert_int_equal(gs_percentile(v, 5, 20), 15);
	assert_int_equal(gs_percentile(v, 5, 40), 20);
	/* 1..10: p50 -> rank 5 -> 5; p90 -> rank 9 -> 9; p99 -> rank 10 */
	gs_dist_compute(&d, w, 10);
	assert_int_equal(d.n, 10);
	assert_int_equal(d.min, 1);
	assert_int_equal(d.p50, 5);
	assert_int_equal(d.p90, 9);
	assert_int_equal(d.p99, 10);
	assert_int_equal(d.max, 10);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_percentile_matches_sorting_on_random_data(void **state)
{
	enum { N = 1001 };
	int64_t *a = malloc(N * sizeof(int64_t)), *b = malloc(N * sizeof(int64_t));
	unsigned seed = 12345;
	size_t i, n;
	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (n = 1; n <= N; n += 97) {
		struct gs_dist d;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			a[i] = b[i] = (int64_t)(seed >> 16) % 50; /* many duplicates */
		}
		qsort(b, n, sizeof(int64_t), cmp64);
		gs_dist_compute(&d, a, n);
		/* rank ceil(p n / 100), 1-based, in the sorted copy */
		assert_int_equal(d.p50, b[(50 * n + 99) / 100 - 1]);
		assert_int_equal(d.p90, b[(90 * n + 99) / 100 - 1]);
		assert_int_equal(d.p99, b[(99 * n + 99) / 100 - 1]);
		assert_int_equal(d.min, b[0]);
		assert_int_equal(d.max, b[n - 1]);
	}
	free(a);
	free(b);
}

/* Large sample counts take the histogram path of gs_dist_compute and
 * gs_percentile: values within a narrow range (one value per bucket), a
 * wide range with negative values and one far outlier (most samples in
 * one bucket), the whole int64 range (each rank in a bucket of its own),
 * and 95% of the samples in a narrow cluster under a thin spread up to
 * 1e9 (p50 and p90 in one bucket, p99 in a higher one). Expected: ranks
 * of a sorted copy. */
static void test_percentile_histogram_path_matches_sorting(void **state)
{
	enum { N = 50000 };
	int64_t *a = malloc(N * sizeof(int64_t)), *b = malloc(N * sizeof(int64_t));
	int64_t *c = malloc(N * sizeof(int64_t));
	unsigned seed = 777;
	size_t i, n = N;
	int shape;
	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	for (shape = 0; shape < 4; shape++) {
		struct gs_dist d;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			if (shape == 0)
				a[i] = 3000 + (int64_t)(seed >> 16) % 700;
			else if (shape == 1)
				a[i] = i == 17 ? (int64_t)1 << 40
					       : (int64_t)(seed >> 8) % 100000 - 5000;
			else if (shape == 3)
				a[i] = (seed >> 16) % 100 < 95
					   ? 1000 + (int64_t)(seed >> 8) % 100
					   : (int64_t)(seed >> 2) % 1000000000;
			else
				a[i] =
				    i == 0 ? INT64_MIN
				    : i == 1
					? INT64_MAX
					: (int64_t)(((uint64_t)seed << 32) ^ (seed * 2654435761u));
			b[i] = c[i] = a[i];
		}
		qsort(b, n, sizeof(int64_t), cmp64);
		/* one rank alone (gs_percentile), then p37 of the reordered copy */
		assert_int_equal(gs_percentile(c, n, 75), b[(75 * n + 99) / 100 - 1]);
		assert_int_equal(gs_percentile(c, n, 37), b[(37 * n + 99) / 100 - 1]);
		gs_dist_compute(&d, a, n);
		assert_int_equal(d.n, n);
		assert_int_equal(d.p50, b[(50 * n + 99) / 100 - 1]);
		assert_int_equal(d.p90, b[(90 * n + 99) / 100 - 1]);
		assert_int_equal(d.p99, b[(99 * n + 99) / 100 - 1]);
		assert_int_equal(d.min, b[0]);
		assert_int_equal(d.max, b[n - 1]);
	}
	free(a);
	free(b);
	free(c);
}

/* options.all_gaps 0 (the report): the device keeps only the gaps that can
 * be among the top_n largest when met, and those a sync explains; the top
 * list and the sync figures are those of the full list. */
static void build_top_gap_timeline(struct tb *t)
{
	/* kernels of 100 ns on one stream, holes (in time order)
	 * 50, 10, 70, 70, 20, 90, 10 (sync-bound), 30 */
	static const int64_t starts[9] = {0, 150, 260, 430, 600, 720, 910, 1020, 1150};
	int i;

	for (i = 0; i < 9; i++) {
		/* each launch begins at the start of the hole before its kernel */
		int64_t g0 = i ? starts[i - 1] + 100 : -20;
		if (i == 7)
			g0 = 1015; /* after the sync below */
		api(t, S_LAUNCH, g0, g0 + 3, (uint32_t)i + 1, 1);
		kern(t, 0, 7, starts[i], starts[i] + 100, (uint32_t)i + 1, S_KA);
	}
	/* thread 1 blocked over g0 = 1010 of the hole before the 8th kernel */
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 1000, 1015, 1, 7);
	t->opt.top_n = 2;
}

static void test_report_keeps_top_gap_candidates_and_sync_gaps(void **state)
{
	struct tb *t = tb_new(), *all = tb_new();
	(void)state;
	build_top_gap_timeline(t);
	build_top_gap_timeline(all);
	t->opt.all_gaps = 0;
	run(t);
	run(all);
	/* all 8 holes count in the timeline either way */
	assert_int_equal(dev0(all)->n_gaps, 8);
	assert_int_equal(dev0(t)->tl.n_gaps, 8);
	/* kept: 50, 10 (heap not full), 70 (> 10), 70 (> 50), 90 (> 70) and
	 * the sync-bound 10; dropped: 20 and 30 (<= the 2nd largest so far) */
	assert_int_equal(dev0(t)->n_gaps, 6);
	/* top 2: 90 at [820, 910), then the first 70 at [360, 430) */
	assert_int_equal(dev0(t)->n_top, 2);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[0]].start, 820);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[0]].end, 910);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[1]].start, 360);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[1]].end, 430);
	assert_int_equal(dev0(all)->gaps[dev0(all)->top_gaps[0]].start, 820);
	assert_int_equal(dev0(all)->gaps[dev0(all)->top_gaps[1]].start, 360);
	/* the sync explains the 10 ns hole [1010, 1020) in both */
	assert_int_equal(dev0(t)->gaps[5].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 10);
	assert_int_equal(t->res.syncs[0].n_gaps, 1);
	assert_int_equal(all->res.syncs[0].gpu_idle_ns, 10);
	tb_free(t);
	tb_free(all);
}

static void test_nvtx_range_restricts_window(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 90, 95, 1, 1);
	api(t, S_LAUNCH, 260, 270, 2, 1);
	range(t, S_STEP, 0, 250, 1);
	range(t, S_OTHER, 250, 1000, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	t->opt.range_name = "step";
	run(t);
	/* selection [0,250]: window = [100,400] & [0,250] = [100,250] = 150;
	 * the launch-bound gap [200,300) clipped to [200,250) = 50; busy 100;
	 * one op (K1) overlaps the selection */
	assert_int_equal(t->res.range_matches, 1);
	assert_int_equal(t->res.range_total, 250);
	assert_int_equal(dev0(t)->tl.window, 150);
	assert_int_equal(dev0(t)->tl.idle, 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(dev0(t)->tl.busy, 100);
	assert_int_equal(dev0(t)->tl.n_ops, 1);
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->gaps[0].end, 250);
	/* the gap's NVTX range: innermost on thread 1 containing g0 = 200 */
	assert_int_equal(dev0(t)->gaps[0].nvtx_idx, 0);
	/* launches are sampled by call start in the selection: only C1 (90),
	 * not C2 (260) */
	assert_int_equal(t->res.n_launches, 1);
	assert_int_equal(t->res.launches[0].api_dur.n, 1);
	assert_int_equal(t->res.n_kernel_ops, 1);
	tb_free(t);
}

static void test_nvtx_range_that_matches_nothing_selects_nothing(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 90, 95, 1, 1);
	range(t, S_STEP, 0, 250, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	t->opt.range_name = "no such range";
	run(t);
	assert_int_equal(t->res.range_applied, 1);
	assert_int_equal(t->res.range_matches, 0);
	assert_int_equal(dev0(t)->tl.window, 0);
	assert_int_equal(dev0(t)->tl.n_ops, 0);
	tb_free(t);
}

static void test_nvtx_breakdown_busy_share(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 90, 95, 1, 1);
	api(t, S_LAUNCH, 250, 260, 2, 1);
	range(t, S_STEP, 0, 250, 1);
	range(t, S_OTHER, 250, 1000, 1);
	range(t, S_STEP, 300, 350, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	/* "other" [250,1000]: wall 750, busy = [300,400] = 100.
	 * "step": [0,250] busy 100 + [300,350] busy 50 -> 2 ranges, wall 300,
	 * busy 150, share 0.5. Sorted by wall: other, step. */
	assert_int_equal(t->res.n_nvtx, 2);
	assert_int_equal(t->res.nvtx[0].text_id, S_OTHER);
	assert_int_equal(t->res.nvtx[0].wall, 750);
	assert_int_equal(t->res.nvtx[0].gpu_busy, 100);
	assert_int_equal(t->res.nvtx[1].text_id, S_STEP);
	assert_int_equal(t->res.nvtx[1].count, 2);
	assert_int_equal(t->res.nvtx[1].wall, 300);
	assert_int_equal(t->res.nvtx[1].gpu_busy, 150);
	assert_true(t->res.nvtx[1].busy_share == 0.5);
	tb_free(t);
}

static void test_graph_advice_detects_repeated_sequence(void **state)
{
	struct tb *t = tb_new();
	static const uint32_t seq[3] = {S_KA, S_KB, S_KC};
	int i;
	(void)state;
	/* A B C repeated 3 times; op i runs [500 i, 500 i + 100]; each launch
	 * call starts 50 ns before its op, i.e. after the previous op ended
	 * (400 ns earlier): every hole is launch-bound. */
	for (i = 0; i < 9; i++)
		api(t, S_LAUNCH, 500 * i - 50, 500 * i - 40, (uint32_t)(i + 1), 1);
	for (i = 0; i < 9; i++)
		kern(t, 0, 7, 500 * i, 500 * i + 100, (uint32_t)(i + 1), seq[i % 3]);
	t->opt.graph_node_overhead_ns = 50;
	run(t);
	assert_int_equal(t->res.n_advice, 1);
	{
		const struct gs_graph_advice *a = &t->res.advice[0];
		assert_int_equal(a->length, 3);
		assert_int_equal(a->count, 3);
		assert_int_equal(a->names[0], S_KA);
		assert_int_equal(a->names[1], S_KB);
		assert_int_equal(a->names[2], S_KC);
		/* per occurrence: span 0..1100 = 1100 with two inner holes of
		 * 400; the hole to the next occurrence (400) counts for the
		 * first two. measured = 3*1100 + 2*400 = 4100;
		 * launch idle = 3*800 + 2*400 = 3200; op time = 9*100 = 900;
		 * estimate = 900 + 9 * 50 = 1350; saving = 2750 */
		assert_int_equal(a->measured, 4100);
		assert_int_equal(a->launch_idle, 3200);
		assert_int_equal(a->op_time, 900);
		assert_int_equal(a->estimate, 1350);
		assert_int_equal(a->saving, 2750);
		assert_int_equal(a->advise, 1);
	}
	assert_int_equal(t->res.graph_node_overhead_ns, 50);
	assert_int_equal(t->res.graph_node_overhead_source, 1);
	tb_free(t);
}

static void test_graph_advice_not_given_when_back_to_back(void **state)
{
	struct tb *t = tb_new();
	int i;
	(void)state;
	/* kA kB kA kB back to back: nothing to save */
	for (i = 0; i < 4; i++) {
		api(t, S_LAUNCH, i, i + 1, (uint32_t)(i + 1), 1);
		kern(t, 0, 7, 100 + 100 * i, 200 + 100 * i, (uint32_t)(i + 1), i % 2 ? S_KB : S_KA);
	}
	t->opt.graph_node_overhead_ns = 10;
	run(t);
	assert_int_equal(t->res.n_advice, 1);
	/* measured 2 x 200 = 400, estimate 400 + 4 * 10 = 440: saving -40 */
	assert_int_equal(t->res.advice[0].measured, 400);
	assert_int_equal(t->res.advice[0].saving, -40);
	assert_int_equal(t->res.advice[0].advise, 0);
	tb_free(t);
}

static void test_graph_advice_finds_body_despite_rare_op(void **state)
{
	struct tb *t = tb_new();
	static const uint32_t seq[11] = {S_OTHER, S_KA, S_KB, S_KC, S_KA,   S_KB,
					 S_KC,	  S_KA, S_KB, S_KC, S_OTHER};
	int i;
	(void)state;
	/* G A B C A B C A B C G: the rarest repeating token G (twice) cuts one
	 * piece only, which is no repetition; the body A B C is found with the
	 * next candidate. Timing as in the test above (op i at 500 i, 100 ns,
	 * launch-bound holes of 400): occurrences at ops 1, 4, 7;
	 * measured = 3 x 1100 + 2 x 400 = 4100; launch idle = 3 x 800 + 2 x 400
	 * = 3200; estimate = 4100 - 3200 + 9 x 50 = 1350; saving 2750, i.e.
	 * 67 % of measured and 54 % of the 5100 ns window: advised. */
	for (i = 0; i < 11; i++) {
		api(t, S_LAUNCH, 500 * i - 50, 500 * i - 40, (uint32_t)(i + 1), 1);
		kern(t, 0, 7, 500 * i, 500 * i + 100, (uint32_t)(i + 1), seq[i]);
	}
	t->opt.graph_node_overhead_ns = 50;
	run(t);
	assert_int_equal(t->res.n_advice, 1);
	assert_int_equal(t->res.advice[0].length, 3);
	assert_int_equal(t->res.advice[0].count, 3);
	assert_int_equal(t->res.advice[0].names[0], S_KA);
	assert_int_equal(t->res.advice[0].measured, 4100);
	assert_int_equal(t->res.advice[0].launch_idle, 3200);
	assert_int_equal(t->res.advice[0].estimate, 1350);
	assert_int_equal(t->res.advice[0].advise, 1);
	tb_free(t);
}

static void test_graph_advice_small_saving_in_long_window_not_advised(void **state)
{
	struct tb *t = tb_new();
	static const uint32_t seq[3] = {S_KA, S_KB, S_KC};
	int i;
	(void)state;
	/* the 3 x (A B C) loop of the first advice test (saving 2750 ns, 67 %)
	 * plus one kernel on another stream at 1,000,000 ns: the window is
	 * 1,000,100 ns and 1 % of it (10,001 ns) is more than the saving, so
	 * the sequence is reported but not advised */
	for (i = 0; i < 9; i++) {
		api(t, S_LAUNCH, 500 * i - 50, 500 * i - 40, (uint32_t)(i + 1), 1);
		kern(t, 0, 7, 500 * i, 500 * i + 100, (uint32_t)(i + 1), seq[i % 3]);
	}
	api(t, S_LAUNCH, 999000, 999010, 100, 1);
	kern(t, 0, 8, 1000000, 1000100, 100, S_OTHER);
	t->opt.graph_node_overhead_ns = 50;
	run(t);
	assert_int_equal(t->res.n_advice, 1);
	assert_int_equal(t->res.advice[0].stream, 7);
	assert_int_equal(t->res.advice[0].saving, 2750);
	assert_int_equal(t->res.advice[0].advise, 0);
	tb_free(t);
}

static void test_graph_node_overhead_measured_from_graph_launches(void **state)
{
	struct tb *t = tb_new();
	int i;
	(void)state;
	/* one graph launch of 10 kernels, holes 30 30 30 30 30 40 40 40 40:
	 * sorted 30x5, 40x4 -> nearest-rank p50 of 9 = rank 5 = 30 */
	api(t, S_GRAPHLAUNCH, 0, 10, 1, 1);
	{
		int64_t s = 100;
		for (i = 0; i < 10; i++) {
			kern(t, 0, 7, s, s + 100, 1, S_KA);
			t->ops[i].graph_id = 2;
			s += 100 + (i < 5 ? 30 : 40);
		}
	}
	run(t);
	assert_int_equal(t->res.graph_node_overhead_source, 2);
	assert_int_equal(t->res.graph_node_overhead_ns, 30);
	tb_free(t);
}

static void test_top_kernels_and_short_kernel_share(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	kern(t, 0, 7, 0, 100, 0, S_KA);
	kern(t, 0, 7, 200, 500, 0, S_KA);
	kern(t, 0, 7, 600, 800, 0, S_KA);
	kern(t, 0, 7, 900, 1900, 0, S_KB);
	t->opt.launch_cost_ns = 250;
	run(t);
	/* kB: 1 x 1000; kA: 3, total 600, durations 100 300 200 -> p50 rank 2
	 * = 200. Shorter than 250: 100 and 200 -> 2 of 4 */
	assert_int_equal(t->res.n_kernels, 2);
	assert_int_equal(t->res.kernels[0].name_id, S_KB);
	assert_int_equal(t->res.kernels[0].total, 1000);
	assert_int_equal(t->res.kernels[1].name_id, S_KA);
	assert_int_equal(t->res.kernels[1].count, 3);
	assert_int_equal(t->res.kernels[1].total, 600);
	assert_int_equal(t->res.kernels[1].p50, 200);
	assert_int_equal(t->res.n_short_kernels, 2);
	assert_true(t->res.short_kernel_share == 0.5);
	assert_int_equal(t->res.launch_cost_ns, 250);
	assert_int_equal(t->res.launch_cost_measured, 0);
	tb_free(t);
}

static void test_launch_distributions_per_api(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* three cudaLaunchKernel calls: durations 10, 30, 20; ops start
	 * 100 after each call's start: queue = 100 - duration */
	api(t, S_LAUNCH, 0, 10, 1, 1);
	api(t, S_LAUNCH, 1000, 1030, 2, 1);
	api(t, S_LAUNCH, 2000, 2020, 3, 1);
	kern(t, 0, 7, 100, 150, 1, S_KA);
	kern(t, 0, 7, 1100, 1150, 2, S_KA);
	kern(t, 0, 7, 2100, 2150, 3, S_KA);
	run(t);
	assert_int_equal(t->res.n_launches, 1);
	/* durations 10 20 30: p50 rank 2 = 20, p90 rank 3 = 30;
	 * queue 90 70 80 -> sorted 70 80 90: p50 80; delay all 100 */
	assert_int_equal(t->res.launches[0].api_dur.p50, 20);
	assert_int_equal(t->res.launches[0].api_dur.p90, 30);
	assert_int_equal(t->res.launches[0].queue.p50, 80);
	assert_int_equal(t->res.launches[0].queue.min, 70);
	assert_int_equal(t->res.launches[0].delay.p99, 100);
	/* measured launch cost = p50 of kernel launch durations = 20;
	 * kernels are 50 long, none shorter */
	assert_int_equal(t->res.launch_cost_ns, 20);
	assert_int_equal(t->res.launch_cost_measured, 1);
	assert_int_equal(t->res.n_short_kernels, 0);
	tb_free(t);
}

static void test_instrumentation_overhead_is_subtracted(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 200, 300, 2, S_KA);
	t->in.kernel_overhead_ns = 20;
	t->in.gpu_arch_major = 9;
	run(t);
	/* kernels become [100,180] and [200,280]: window 180, busy 160, one
	 * 20 ns gap (launch-latency: C 30 < 180) */
	assert_int_equal(t->res.instrumented, 1);
	assert_int_equal(t->res.kernel_overhead_ns, 20);
	assert_int_equal(dev0(t)->tl.window, 180);
	assert_int_equal(dev0(t)->tl.busy, 160);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 20);
	tb_free(t);
}

static void test_devices_are_separate_timelines(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	api(t, S_LAUNCH, 50, 60, 3, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 3, S_KA);
	kern(t, 1, 9, 150, 350, 2, S_KB); /* busy on device 1 does not cover device 0 */
	range(t, S_STEP, 0, 1000, 1);
	run(t);
	/* NVTX busy counts any GPU: [100,200] u [150,350] u [300,400] = [100,400] */
	assert_int_equal(t->res.n_nvtx, 1);
	assert_int_equal(t->res.nvtx[0].gpu_busy, 300);
	assert_int_equal(t->res.n_devices, 2);
	assert_int_equal(t->res.devices[0].device, 0);
	assert_int_equal(t->res.devices[0].tl.idle, 100);
	assert_int_equal(t->res.devices[1].device, 1);
	assert_int_equal(t->res.devices[1].tl.window, 200);
	assert_int_equal(t->res.devices[1].tl.idle, 0);
	tb_free(t);
}

static void test_unsorted_ops_are_rejected(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	kern(t, 0, 7, 300, 400, 1, S_KA);
	kern(t, 0, 7, 100, 200, 2, S_KA);
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), -EINVAL);
	tb_free(t);
}

/* 100k ops (the order is checked on two threads, one half each): one op
 * out of order right after the halves meet, near the end, or a device
 * that goes back: -EINVAL each time; in order, the devices are counted. */
static void test_unsorted_ops_are_rejected_in_either_half(void **state)
{
	enum { N = 100000 };
	const size_t bad[3] = {N / 2, N - 10, N / 2 + 3};
	struct gs_op *ops = calloc(N, sizeof(*ops));
	struct gs_input in;
	struct gs_result res;
	size_t i, k;

	(void)state;
	assert_non_null(ops);
	memset(&in, 0, sizeof(in));
	in.ops = ops;
	in.n_ops = N;
	in.strings.v = strtab;
	in.strings.n = S_N;
	in.kernel_overhead_ns = -1;
	for (k = 0; k <= 3; k++) {
		for (i = 0; i < N; i++) /* device 0 for the first 3/4, then 1 */
			ops[i] = (struct gs_op){.start = 1000 * (int64_t)i,
						.end = 1000 * (int64_t)i + 100,
						.stream = 7,
						.device = i < 3 * N / 4 ? 0 : 1,
						.kind = GS_OP_KERNEL};
		if (k < 2) { /* starts before the op before it */
			ops[bad[k]].start = ops[bad[k] - 1].start - 1;
			ops[bad[k]].end = ops[bad[k]].start + 10;
		} else if (k == 2) { /* device 1, then device 0 again */
			ops[bad[k]].device = 1;
		}
		if (k < 3) {
			assert_int_equal(gs_analyze(&in, NULL, &res), -EINVAL);
		} else {
			assert_int_equal(gs_analyze(&in, NULL, &res), 0);
			assert_int_equal(res.n_devices, 2);
			assert_int_equal(res.devices[0].end_op, 3 * N / 4);
			assert_int_equal(res.devices[1].first_op, 3 * N / 4);
			gs_result_free(&res);
		}
	}
	free(ops);
}

/* Lookups of syncs and NVTX ranges for gaps that alternate between two
 * host threads (tids 1 and 9: the same slot of the analysis's lookup
 * cache) and, in the stream views, go back in time for one thread (stream
 * 9's hole starts at 120, after stream 8's at 250 was looked up, past the
 * sync [140,200]): every answer must be the one a fresh search gives. */
static void test_lookups_alternate_threads_and_go_back_in_time(void **state)
{
	struct tb *t = tb_new();
	uint32_t r0, r1, r2, s_late;
	(void)state;
	r0 = range(t, S_STEP, 0, 1000, 1);
	r1 = range(t, S_OTHER, 400, 600, 1); /* inside r0 */
	r2 = range(t, S_OTHER, 250, 700, 9);
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 140, 200, 9, 9);
	s_late = sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 320, 390, 9, 8);
	api(t, S_LAUNCH, 1, 5, 7, 9);	  /* H0 */
	api(t, S_LAUNCH, 10, 20, 1, 1);	  /* A */
	api(t, S_LAUNCH, 30, 40, 2, 9);	  /* B */
	api(t, S_LAUNCH, 290, 295, 3, 1); /* C */
	api(t, S_LAUNCH, 330, 335, 4, 9); /* D */
	api(t, S_LAUNCH, 410, 415, 8, 9); /* H */
	api(t, S_LAUNCH, 460, 470, 5, 1); /* E */
	api(t, S_LAUNCH, 560, 565, 6, 9); /* F */
	kern(t, 0, 9, 50, 120, 7, S_KA);  /* 0 H0 */
	kern(t, 0, 7, 100, 200, 1, S_KA); /* 1 A */
	kern(t, 0, 8, 150, 250, 2, S_KA); /* 2 B */
	kern(t, 0, 7, 300, 380, 3, S_KB); /* 3 C */
	kern(t, 0, 8, 400, 450, 4, S_KB); /* 4 D */
	kern(t, 0, 9, 420, 440, 8, S_KB); /* 5 H */
	kern(t, 0, 7, 500, 550, 5, S_KC); /* 6 E */
	kern(t, 0, 8, 600, 650, 6, S_KC); /* 7 F */
	run(t);
	/* device holes: [250,300) [380,400) [450,500) [550,600) */
	assert_int_equal(dev0(t)->n_gaps, 4);
	/* before C (tid 1, no syncs): call at 290 >= 250, launch-bound; tid
	 * 1's innermost range at 250 is r0 (r1 starts at 400) */
	assert_int_equal(dev0(t)->gaps[0].op_idx, 3);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[0].nvtx_idx, r0);
	/* before D (tid 9): its sync [320,390] spans 380; range r2 */
	assert_int_equal(dev0(t)->gaps[1].op_idx, 4);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(dev0(t)->gaps[1].explain_idx, s_late);
	assert_int_equal(dev0(t)->gaps[1].nvtx_idx, r2);
	/* before E (tid 1): call at 460 >= 450; innermost range r1 */
	assert_int_equal(dev0(t)->gaps[2].op_idx, 6);
	assert_int_equal(dev0(t)->gaps[2].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[2].nvtx_idx, r1);
	/* before F (tid 9): no sync spans 550, call at 560; range r2 */
	assert_int_equal(dev0(t)->gaps[3].op_idx, 7);
	assert_int_equal(dev0(t)->gaps[3].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[3].nvtx_idx, r2);
	/* stream views, by stream id 7, 8, 9:
	 * 7: [200,300) call 290 >= 200, [380,500) call 460: launch-bound 220
	 * 8: [250,400) no sync spans 250, call 330; [450,600) call 560:
	 *    launch-bound 300
	 * 9: [120,420) asked after stream 8's 250: the sync [140,200] began
	 *    after 120, so no sync spans it; call at 410: launch-bound 300 */
	assert_int_equal(dev0(t)->n_streams, 3);
	assert_int_equal(dev0(t)->streams[0].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 220);
	assert_int_equal(dev0(t)->streams[1].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 300);
	assert_int_equal(dev0(t)->streams[1].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(dev0(t)->streams[2].stream, 9);
	assert_int_equal(dev0(t)->streams[2].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(dev0(t)->streams[2].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 300);
	tb_free(t);
}

/* 100k launches: enough for the analysis to split the API classification
 * and the correlation table over two threads (halves of the calls, one
 * table). Driver twins appended at the end (second half of the calls)
 * that start earlier than the runtime call of the same id (first half)
 * must win, at low and high ids; one that starts later must not, nor one
 * that starts at the same time (the earlier index wins the tie). */
static void test_launch_calls_of_many_calls_with_twins(void **state)
{
	enum { N = 100000 };
	const uint32_t twin_corr[3] = {3, N / 2 + 7, N - 2}; /* earlier twins */
	const uint32_t late_corr = N / 2 + 9;		     /* later twin */
	const uint32_t tie_corr = 11;			     /* twin, same start */
	struct gs_op *ops = calloc(N, sizeof(*ops));
	struct gs_api *apis = calloc(N + 5, sizeof(*apis));
	struct gs_input in;
	struct gs_result res;
	uint32_t i, k;

	(void)state;
	assert_non_null(ops);
	assert_non_null(apis);
	memset(&in, 0, sizeof(in));
	for (i = 0; i < N; i++) {
		/* call i: [1000i + 500, +10], corr i + 1; its kernel
		 * [1000i + 800, +100] */
		apis[i] = (struct gs_api){.start = 1000 * (int64_t)i + 500,
					  .end = 1000 * (int64_t)i + 510,
					  .corr = i + 1,
					  .name_id = S_LAUNCH,
					  .tid = 1};
		ops[i] = (struct gs_op){.start = 1000 * (int64_t)i + 800,
					.end = 1000 * (int64_t)i + 900,
					.corr = i + 1,
					.name_id = S_KA,
					.stream = 7,
					.kind = GS_OP_KERNEL};
	}
	for (k = 0; k < 3; k++) /* [1000(c-1) + 300, +400]: 200 ns earlier */
		apis[N + k] = (struct gs_api){.start = 1000 * (int64_t)(twin_corr[k] - 1) + 300,
					      .end = 1000 * (int64_t)(twin_corr[k] - 1) + 700,
					      .corr = twin_corr[k],
					      .name_id = S_LAUNCH,
					      .tid = 1};
	apis[N + 3] = (struct gs_api){.start = 1000 * (int64_t)(late_corr - 1) + 505,
				      .end = 1000 * (int64_t)(late_corr - 1) + 520,
				      .corr = late_corr,
				      .name_id = S_LAUNCH,
				      .tid = 1};
	/* same start as the runtime call (first half): the earlier index,
	 * the runtime call, stays the launch call */
	apis[N + 4] = (struct gs_api){.start = 1000 * (int64_t)(tie_corr - 1) + 500,
				      .end = 1000 * (int64_t)(tie_corr - 1) + 505,
				      .corr = tie_corr,
				      .name_id = S_LAUNCH,
				      .tid = 1};
	in.ops = ops;
	in.n_ops = N;
	in.apis = apis;
	in.n_apis = N + 5;
	in.strings.v = strtab;
	in.strings.n = S_N;
	in.kernel_overhead_ns = -1;
	assert_int_equal(gs_analyze(&in, NULL, &res), 0);
	for (k = 0; k < 3; k++)
		assert_int_equal(gs_launch_call(&res, twin_corr[k] - 1), N + k);
	assert_int_equal(gs_launch_call(&res, late_corr - 1), late_corr - 1);
	assert_int_equal(gs_launch_call(&res, tie_corr - 1), tie_corr - 1);
	assert_int_equal(gs_launch_call(&res, 0), 0);
	assert_int_equal(gs_launch_call(&res, N / 2 - 1), N / 2 - 1); /* corr N/2: last of half 1 */
	assert_int_equal(gs_launch_call(&res, N / 2), N / 2);
	assert_int_equal(gs_launch_call(&res, N - 1), N - 1);
	/* every hole [1000i + 900, 1000(i+1) + 800) is launch-bound: the next
	 * call starts at 1000(i+1) + 500 (a twin at + 300), after g0 */
	assert_int_equal(res.devices[0].n_gaps, N - 1);
	assert_int_equal(res.devices[0].tl.gaps_by_cause[GS_CAUSE_HOST_CODE], N - 1);
	assert_int_equal(res.devices[0].gaps[twin_corr[1] - 2].explain_idx, N + 1);
	/* one sample per launching call, all classified cudaLaunchKernel
	 * (both halves): N samples, three of 400 ns, the rest 10 ns */
	assert_int_equal(res.n_launches, 1);
	assert_int_equal(res.launches[0].name_id, S_LAUNCH);
	assert_int_equal(res.launches[0].api_dur.n, N);
	assert_int_equal(res.launches[0].api_dur.p99, 10);
	assert_int_equal(res.launches[0].api_dur.max, 400);
	assert_int_equal(res.launch_cost_ns, 10);
	gs_result_free(&res);
	free(ops);
	free(apis);
}

static void test_api_classification(void **state)
{
	(void)state;
	assert_true(gs_api_classify("cudaLaunchKernel") & GS_APIF_KERNEL_LAUNCH);
	assert_true(gs_api_classify("cuLaunchKernel_ptsz") & GS_APIF_KERNEL_LAUNCH);
	assert_true(gs_api_classify("cudaGraphLaunch") & GS_APIF_LAUNCH);
	assert_false(gs_api_classify("cudaGraphLaunch") & GS_APIF_KERNEL_LAUNCH);
	assert_true(gs_api_classify("cudaLaunchHostFunc") & GS_APIF_HOST_FUNC);
	assert_false(gs_api_classify("cudaLaunchHostFunc") & GS_APIF_LAUNCH);
	assert_int_equal(gs_api_classify("cudaMalloc"), GS_APIF_CLASSIFIED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_back_to_back_kernels_have_no_gap),
	    cmocka_unit_test(test_gap_after_late_launch_is_launch_bound),
	    cmocka_unit_test(test_gap_with_early_launch_is_launch_latency),
	    cmocka_unit_test(test_sync_covering_gap_is_sync_bound),
	    cmocka_unit_test(test_sync_on_other_thread_does_not_make_sync_bound),
	    cmocka_unit_test(test_implicit_sync_is_sync_bound),
	    cmocka_unit_test(test_stream_wait_event_is_dependency),
	    cmocka_unit_test(test_wait_before_previous_launch_is_not_dependency),
	    cmocka_unit_test(test_wait_on_event_of_another_device_is_dependency),
	    cmocka_unit_test(test_wait_on_event_of_same_device_is_not_device_dependency),
	    cmocka_unit_test(test_stream_view_counts_wait_on_other_stream),
	    cmocka_unit_test(test_host_node_before_graph_kernel_is_dependency),
	    cmocka_unit_test(test_op_without_launch_call_is_other),
	    cmocka_unit_test(test_overlap_between_streams_covers_gap),
	    cmocka_unit_test(test_graph_launch_kernels_share_correlation_id),
	    cmocka_unit_test(test_launch_calls_of_many_calls_with_twins),
	    cmocka_unit_test(test_idle_by_cause_sums_exactly_to_idle),
	    cmocka_unit_test(test_percentile_is_nearest_rank),
	    cmocka_unit_test(test_percentile_matches_sorting_on_random_data),
	    cmocka_unit_test(test_percentile_histogram_path_matches_sorting),
	    cmocka_unit_test(test_nvtx_range_restricts_window),
	    cmocka_unit_test(test_report_keeps_top_gap_candidates_and_sync_gaps),
	    cmocka_unit_test(test_nvtx_range_that_matches_nothing_selects_nothing),
	    cmocka_unit_test(test_nvtx_breakdown_busy_share),
	    cmocka_unit_test(test_graph_advice_detects_repeated_sequence),
	    cmocka_unit_test(test_graph_advice_not_given_when_back_to_back),
	    cmocka_unit_test(test_graph_advice_finds_body_despite_rare_op),
	    cmocka_unit_test(test_graph_advice_small_saving_in_long_window_not_advised),
	    cmocka_unit_test(test_graph_node_overhead_measured_from_graph_launches),
	    cmocka_unit_test(test_top_kernels_and_short_kernel_share),
	    cmocka_unit_test(test_launch_distributions_per_api),
	    cmocka_unit_test(test_instrumentation_overhead_is_subtracted),
	    cmocka_unit_test(test_devices_are_separate_timelines),
	    cmocka_unit_test(test_unsorted_ops_are_rejected),
	    cmocka_unit_test(test_unsorted_ops_are_rejected_in_either_half),
	    cmocka_unit_test(test_lookups_alternate_threads_and_go_back_in_time),
	    cmocka_unit_test(test_api_classification),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
