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
	S_MALLOC,
	S_EVENTQUERY,
	S_CULAUNCH,
	S_CUMEMALLOC,
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
    "cudaMalloc",
    "cudaEventQuery",
    "cuLaunchKernel",
    "cuMemAlloc_v2",
};

struct tb {
	struct gs_op ops[64];
	struct gs_api apis[64];
	struct gs_sync syncs[16];
	struct gs_nvtx nvtx[48];
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

/* The invariants of gap model v2 on a result, checked for every timeline
 * this file builds (tb_free() runs it): per timeline (device and stream
 * views) idle_by_cause sums to idle; per device gap, gs_gap_segments()
 * gives consecutive segments from g0 to g1 whose lengths add up to the
 * gap, and the gap's cause is its largest segment's (ties: the lower
 * enum value). With every gap kept (options.all_gaps), the segments of
 * all gaps add up per cause to the device's idle_by_cause and the gaps
 * per cause to gaps_by_cause. */
static void check_invariants(const struct gs_result *res, int all_gaps)
{
	size_t d, i, k, n;
	int c;

	for (d = 0; d < res->n_devices; d++) {
		const struct gs_device_result *dr = &res->devices[d];
		int64_t seg_by_cause[GS_CAUSE_COUNT] = {0};
		uint64_t gaps_by_cause[GS_CAUSE_COUNT] = {0};
		int64_t sum = 0;

		for (c = 0; c < GS_CAUSE_COUNT; c++)
			sum += dr->tl.idle_by_cause[c];
		assert_int_equal(sum, dr->tl.idle);
		for (k = 0; k < dr->n_streams; k++) {
			sum = 0;
			for (c = 0; c < GS_CAUSE_COUNT; c++)
				sum += dr->streams[k].tl.idle_by_cause[c];
			assert_int_equal(sum, dr->streams[k].tl.idle);
		}
		for (i = 0; i < dr->n_gaps; i++) {
			const struct gs_gap *g = &dr->gaps[i];
			struct gs_segment seg[32];
			int64_t amt[GS_CAUSE_COUNT] = {0}, len = 0;
			int best = 0;

			n = gs_gap_segments(res, g, seg, 32);
			assert_true(n >= 1 && n <= 32);
			assert_int_equal(seg[0].start, g->start);
			assert_int_equal(seg[n - 1].end, g->end);
			for (k = 0; k < n; k++) {
				assert_true(seg[k].end > seg[k].start);
				if (k)
					assert_int_equal(seg[k].start, seg[k - 1].end);
				len += seg[k].end - seg[k].start;
				amt[seg[k].cause] += seg[k].end - seg[k].start;
			}
			assert_int_equal(len, g->end - g->start);
			for (c = 1; c < GS_CAUSE_COUNT; c++)
				if (amt[c] > amt[best])
					best = c;
			assert_int_equal(g->cause, best);
			for (c = 0; c < GS_CAUSE_COUNT; c++)
				seg_by_cause[c] += amt[c];
			gaps_by_cause[g->cause]++;
		}
		if (!all_gaps)
			continue;
		assert_int_equal(dr->n_gaps, dr->tl.n_gaps);
		for (c = 0; c < GS_CAUSE_COUNT; c++) {
			assert_int_equal(seg_by_cause[c], dr->tl.idle_by_cause[c]);
			assert_int_equal(gaps_by_cause[c], dr->tl.gaps_by_cause[c]);
		}
	}
}

static void tb_free(struct tb *t)
{
	if (t->res.n_devices)
		check_invariants(&t->res, t->opt.all_gaps);
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

static void test_gap_after_late_launch_splits_host_code_and_launch_latency(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 250, 260, 2, 1); /* starts after g0 = 200 */
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	/* window [100,400] = 300; gap [200,300) = 100, host late (C2 at
	 * 250 >= g0 = 200): [200,250) thread 1 in no call = host code 50,
	 * [250,300) launch latency 50; tie 50/50 -> the lower enum value,
	 * host code */
	assert_int_equal(dev0(t)->tl.window, 300);
	assert_int_equal(dev0(t)->tl.busy, 200);
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->gaps[0].start, 200);
	assert_int_equal(dev0(t)->gaps[0].end, 300);
	assert_int_equal(dev0(t)->gaps[0].host_late, 1);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_LAUNCH);
	assert_int_equal(dev0(t)->gaps[0].explain_idx, 1);
	assert_int_equal(dev0(t)->gaps[0].op_idx, 1);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 50);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_HOST_CODE], 1);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_LAUNCH_LATENCY], 0);
	/* launch overhead share = 50 / 300 (no launch call inside [200,250)),
	 * host code share 50 / 300 */
	assert_true(dev0(t)->tl.launch_overhead_share == 50.0 / 300.0);
	assert_true(dev0(t)->tl.host_code_share == 50.0 / 300.0);
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

static void test_sync_over_gap_start_is_sync_wait_until_it_returns(void **state)
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
	/* host late (C2 at 260 >= g0 = 200); thread 1's sync [190,255]
	 * covers [200,255) = 55 sync wait, [255,260) = 5 host code, then
	 * [260,300) = 40 launch latency: sync wait is the largest. Thread
	 * 2's sync does not count. */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(dev0(t)->gaps[0].host_late, 1);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_LAUNCH);
	assert_int_equal(dev0(t)->gaps[0].explain_idx, 1);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 55);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 5);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 40);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 0);
	/* the explicit groups: stream sync (1 row, blocked 65, its sync wait
	 * 55) and device sync (1 row, blocked 300, none: another thread) */
	assert_int_equal(t->res.n_syncs, 2);
	/* explicit first, by blocked time: device sync 300 then stream sync 65 */
	assert_int_equal(t->res.syncs[0].kind, GS_SYNC_CONTEXT);
	assert_int_equal(t->res.syncs[0].blocked_ns, 300);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 0);
	assert_int_equal(t->res.syncs[1].kind, GS_SYNC_STREAM);
	assert_int_equal(t->res.syncs[1].count, 1);
	assert_int_equal(t->res.syncs[1].blocked_ns, 65);
	assert_int_equal(t->res.syncs[1].gpu_idle_ns, 55);
	assert_int_equal(t->res.syncs[1].n_gaps, 1);
	assert_int_equal(t->res.syncs[0].n_gaps, 0);
	tb_free(t);
}

static void test_sync_on_other_thread_is_not_sync_wait(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 260, 270, 2, 1);
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 190, 255, 2, 7);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	/* thread 1 (C2's) in no call over [200,260): host code 60; [260,300)
	 * launch latency 40; thread 2's sync is no sync wait */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 60);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 40);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 0);
	tb_free(t);
}

static void test_implicit_sync_does_not_explain_gap_of_enqueued_op(void **state)
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
	/* K2 was enqueued at 150 < g0 = 200: the host was not late and the
	 * copy in progress explains nothing: launch latency 100 */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[0].host_late, 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].implicit, 1);
	assert_int_equal(t->res.syncs[0].blocked_ns, 110);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 0);
	assert_int_equal(t->res.syncs[0].n_gaps, 0);
	tb_free(t);
}

static void test_implicit_sync_before_late_launch_is_sync_wait(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 50, 60, 1, 1);
	api(t, S_LAUNCH, 295, 297, 2, 1); /* after the copy returned */
	/* a synchronous cudaMemcpy [180,290] on thread 1 spans g0 = 200 */
	sync_row(t, GS_SYNC_IMPLICIT_MEMCPY, 1, S_MEMCPY, 180, 290, 1, 0);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 300, 400, 2, S_KB);
	run(t);
	/* host late: [200,290) blocked in the copy = sync wait 90, [290,295)
	 * host code 5, [295,300) launch latency 5 */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 90);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 5);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 5);
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].implicit, 1);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 90);
	assert_int_equal(t->res.syncs[0].n_gaps, 1);
	tb_free(t);
}

/* A synchronous cudaMemcpy [s,e] on thread 1 with correlation id corr: its
 * API row and its implicit-sync row (kind 16). Returns the sync index. */
static uint32_t copy_call(struct tb *t, int64_t s, int64_t e, uint32_t corr)
{
	uint32_t y;

	api(t, S_MEMCPY, s, e, corr, 1);
	y = sync_row(t, GS_SYNC_IMPLICIT_MEMCPY, 1, S_MEMCPY, s, e, 1, 0);
	t->syncs[y].corr = corr;
	return y;
}

/* its copy on stream 7, [s,e], with op flags GS_OPF_* */
static void copy_op(struct tb *t, int64_t s, int64_t e, uint32_t corr, uint8_t flags)
{
	uint32_t o = kern(t, 0, 7, s, e, corr, 0);

	t->ops[o].kind = GS_OP_MEMCPY;
	t->ops[o].flags = flags;
}

/* X's own call staging X's data. A synchronous upload from pageable memory
 * (cudaMemcpy [300,900], its sync row, corr 2) made after K1 ended at 200
 * (host late), its copy [850,950]: [200,300) host code 100, [300,850) sync
 * wait 550 (the host copying into the staging buffer), no launch latency.
 * K2 [1000,1400], launched at 960: [950,960) host code 10, [960,1000)
 * launch latency 40. A second upload, called at 1010 while K2 ran (it
 * waits for K2, then stages), returns at 1850, its copy [1900,2100]: the
 * gap [1400,1900) is sync wait [1400,1850) 450, then launch latency 50
 * (all launch latency before 2026-12-04).
 * By cause: sync wait 1000, host code 110, launch latency 90. */
static void test_copy_call_staging_its_own_data_is_sync_wait(void **state)
{
	struct tb *t = tb_new();
	struct gs_segment seg[4];
	uint32_t y1, y2;
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	y1 = copy_call(t, 300, 900, 2);
	api(t, S_LAUNCH, 960, 970, 3, 1);
	y2 = copy_call(t, 1010, 1850, 4);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	copy_op(t, 850, 950, 2, GS_OPF_PAGEABLE | GS_OPF_PAGEABLE_SRC);
	kern(t, 0, 7, 1000, 1400, 3, S_KB);
	copy_op(t, 1900, 2100, 4, GS_OPF_PAGEABLE | GS_OPF_PAGEABLE_SRC);
	run(t);
	assert_int_equal(dev0(t)->n_gaps, 3);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 1000);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 110);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 90);
	/* the first gap: host code, then the staging, named by its sync row */
	assert_int_equal(dev0(t)->gaps[0].host_late, 1);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 4), 2);
	assert_int_equal(seg[0].start, 200);
	assert_int_equal(seg[0].end, 300);
	assert_int_equal(seg[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(seg[1].start, 300);
	assert_int_equal(seg[1].end, 850);
	assert_int_equal(seg[1].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(seg[1].ref_kind, GS_EXPLAIN_SYNC);
	assert_int_equal(seg[1].ref_idx, y1);
	/* the third: enqueued before the GPU went idle, mostly in the call */
	assert_int_equal(dev0(t)->gaps[2].host_late, 0);
	assert_int_equal(dev0(t)->gaps[2].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(dev0(t)->gaps[2].explain_kind, GS_EXPLAIN_SYNC);
	assert_int_equal(dev0(t)->gaps[2].explain_idx, y2);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[2], seg, 4), 2);
	assert_int_equal(seg[0].start, 1400);
	assert_int_equal(seg[0].end, 1850);
	assert_int_equal(seg[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(seg[0].ref_idx, y2);
	assert_int_equal(seg[1].start, 1850);
	assert_int_equal(seg[1].end, 1900);
	assert_int_equal(seg[1].cause, GS_CAUSE_LAUNCH_LATENCY);
	/* the sync table: both copies in one group, 550 + 450 of GPU idle */
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 1000);
	assert_int_equal(t->res.syncs[0].n_gaps, 2);
	tb_free(t);
}

/* The same synchronous copy as a read-back (to pageable memory: it stages
 * after its copy, not before): cudaMemcpy [300,900] after K1 ended at
 * 200, its copy [850,950]: host code 100, then launch latency 550. And a
 * stream sync [150,300] that drained K1 right before the staging upload of
 * test_copy_call_staging_its_own_data_is_sync_wait would be one segment
 * with it if both were merged: they are two, each named by its call. */
static void test_readback_copy_call_before_its_copy_is_launch_latency(void **state)
{
	struct tb *t = tb_new();
	struct gs_segment seg[4];
	uint32_t y0, y1;
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	y1 = copy_call(t, 300, 900, 2);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	copy_op(t, 850, 950, 2, GS_OPF_PAGEABLE); /* pageable destination only */
	run(t);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 550);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	tb_free(t);

	/* an upload right after a stream sync: [200,300) the sync's wait,
	 * [300,850) the upload's staging, two segments */
	t = tb_new();
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_STREAMSYNC, 150, 300, 10, 1);
	y0 = sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 150, 300, 1, 7);
	y1 = copy_call(t, 300, 900, 2);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	copy_op(t, 850, 950, 2, GS_OPF_PAGEABLE | GS_OPF_PAGEABLE_SRC);
	run(t);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 650);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 4), 2);
	assert_int_equal(seg[0].end, 300);
	assert_int_equal(seg[0].ref_idx, y0);
	assert_int_equal(seg[1].start, 300);
	assert_int_equal(seg[1].end, 850);
	assert_int_equal(seg[1].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(seg[1].ref_idx, y1);
	tb_free(t);
}

static void test_stream_wait_event_is_dependency(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* stream 8 runs K0 (launched at 5) before K2: K2's dependency
	 * window is (K0's launch 5, K2's launch 30] (v2: the first op of a
	 * stream looks only from g0 on) */
	api(t, S_LAUNCH, 5, 6, 3, 1);
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1); /* early: without the wait, launch-latency */
	/* cudaStreamWaitEvent on stream 8 enqueued at 25, before K2's launch */
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 25, 28, 1, 8);
	kern(t, 0, 8, 50, 60, 3, S_KC);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 8, 300, 400, 2, S_KB);
	run(t);
	/* [60,100) before K1 (launched at 10, first op of stream 7): launch
	 * latency 40; [200,300) before K2: the wait, dependency 100 */
	assert_int_equal(dev0(t)->n_gaps, 2);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_DEPENDENCY);
	assert_int_equal(dev0(t)->gaps[1].explain_kind, GS_EXPLAIN_WAIT);
	assert_int_equal(dev0(t)->gaps[1].explain_idx, 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 40);
	/* the wait group caused 100 ns of idle */
	assert_int_equal(t->res.syncs[0].kind, GS_SYNC_STREAM_WAIT_EVENT);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 100);
	tb_free(t);
}

/* The same timeline as test_stream_wait_event_is_dependency, with the
 * waited-for event's record known: stream 8 waits (at 25) for event 5.
 * Device gaps: [60,100) before K1 (launch latency), [200,300) before K2. */
static struct tb *wait_timeline(int rec_dev, uint32_t rec_stream)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 5, 6, 3, 1);
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 25, 28, 1, 8);
	t->syncs[0].event = 5;
	event_record(t, 5, rec_dev, rec_stream, 5); /* the record the wait sees */
	event_record(t, 5, 0, 8, 26);		    /* a later one: ignored */
	kern(t, 0, 8, 50, 60, 3, S_KC);
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
	assert_int_equal(dev0(t)->gaps[1].start, 200);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_DEPENDENCY);
	assert_int_equal(dev0(t)->gaps[1].explain_kind, GS_EXPLAIN_WAIT);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 100);
	tb_free(t);
}

static void test_wait_on_event_of_same_device_is_not_device_dependency(void **state)
{
	struct tb *t = wait_timeline(0, 7);
	(void)state;
	/* recorded on stream 7 of device 0: in the device view that work was
	 * done when the device went idle, so no dependency: K2 was launched
	 * at 30 < 200, launch-latency (40 + 100 with [60,100)) */
	assert_int_equal(dev0(t)->gaps[1].start, 200);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 140);
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
	/* per stream: stream 1 has its own hole [200,300), host late (C 250
	 * >= 200): [200,250) host code 50, [250,300) launch latency 50;
	 * window [100,400] = 300, busy 200; stream 2: [150,350], no hole */
	assert_int_equal(dev0(t)->n_streams, 2);
	assert_int_equal(dev0(t)->streams[0].stream, 1);
	assert_int_equal(dev0(t)->streams[0].tl.window, 300);
	assert_int_equal(dev0(t)->streams[0].tl.busy, 200);
	assert_int_equal(dev0(t)->streams[0].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(dev0(t)->streams[0].tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 50);
	assert_int_equal(dev0(t)->streams[0].tl.gaps_by_cause[GS_CAUSE_HOST_CODE], 1);
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
	/* gap [150,170) inside the graph launch (its kernel before it has
	 * the same call, started at 10 < 150): graph-internal 20. Gap
	 * [300,420): the next cudaLaunchKernel started at 400 >= 300, host
	 * late: [300,400) host code 100, [400,420) launch latency 20. */
	assert_int_equal(dev0(t)->n_gaps, 2);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_LAUNCH);
	assert_int_equal(dev0(t)->gaps[0].explain_idx, 0);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_GRAPH_INTERNAL], 20);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 20);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 100);
	/* window [100,430] = 330: launch overhead (20 + 20 + 0) / 330 */
	assert_true(dev0(t)->tl.launch_overhead_share == 40.0 / 330.0);
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
	/* K1 [0,100]; gap [100,150) host late (C2 at 120): host code
	 * [100,120) 20, launch latency [120,150) 30;
	 * K2 [150,200]; gap [200,270) latency 70 (C3 at 50);
	 * K3 [270,300]; gap [300,333) host late (C4 at 320): sync wait
	 * [300,310) 10 (sync [290,310] on tid 1), host code [310,320) 10,
	 * launch latency [320,333) 13;
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
	/* host code 20 + 10 = 30; latency 30 + 70 + 13 = 113 */
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 30);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 113);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 10);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 90);
	/* by largest segment: [100,150) latency 30 > 20; [300,333) latency
	 * 13 > 10, 10 */
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_LAUNCH_LATENCY], 3);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_OTHER], 1);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_DEPENDENCY], 1);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_HOST_CODE], 0);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	for (k = 0; k < GS_CAUSE_COUNT; k++)
		sum += dev0(t)->tl.idle_by_cause[k];
	/* 30+113+10+100+90 = 343; busy = 100+50+30+67+10+100 = 357 */
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
	 * 50, 10, 70, 70, 20, 90, 10 (sync wait 5, then latency 5), 30; each
	 * launch begins at g0, so the other holes are all launch latency */
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

static void test_report_keeps_top_gap_candidates_and_sync_figures(void **state)
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
	/* kept: 50, 10 (heap not full), 70 (> 10), 70 (> 50), 90 (> 70);
	 * dropped: 20, the sync-wait 10 and 30 (<= the 2nd largest so far):
	 * v2 credits sync waits to their calls as gaps are cut, so the sync
	 * figures need only the stream-wait gaps kept */
	assert_int_equal(dev0(t)->n_gaps, 5);
	/* top 2: 90 at [820, 910), then the first 70 at [360, 430) */
	assert_int_equal(dev0(t)->n_top, 2);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[0]].start, 820);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[0]].end, 910);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[1]].start, 360);
	assert_int_equal(dev0(t)->gaps[dev0(t)->top_gaps[1]].end, 430);
	assert_int_equal(dev0(all)->gaps[dev0(all)->top_gaps[0]].start, 820);
	assert_int_equal(dev0(all)->gaps[dev0(all)->top_gaps[1]].start, 360);
	/* the hole [1010,1020): launch at 1015, thread 1 blocked in the sync
	 * [1000,1015] over [1010,1015) = sync wait 5, launch latency
	 * [1015,1020) 5; tie -> sync wait (lower enum value) */
	assert_int_equal(dev0(all)->gaps[6].start, 1010);
	assert_int_equal(dev0(all)->gaps[6].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(dev0(all)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 5);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 5);
	/* 50+10+70+70+20+90+5+30 = 345 */
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 345);
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 5);
	assert_int_equal(t->res.syncs[0].n_gaps, 1);
	assert_int_equal(all->res.syncs[0].gpu_idle_ns, 5);
	assert_int_equal(all->res.syncs[0].n_gaps, 1);
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
	 * the host-late gap [200,300) (C2 at 260) clipped to [200,250) = 50,
	 * all before C2: host code 50 (its launch latency [260,300) is out
	 * of the selection); busy 100; one op (K1) overlaps the selection */
	assert_int_equal(t->res.range_matches, 1);
	assert_int_equal(t->res.range_total, 250);
	assert_int_equal(dev0(t)->tl.window, 150);
	assert_int_equal(dev0(t)->tl.idle, 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 0);
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

/* "step" ranges of the given walls, one after another 10000 apart from 0,
 * and one kernel in the first; range_name "step", skip */
static struct tb *steps_of(const int64_t *walls, size_t n, uint64_t skip)
{
	struct tb *t = tb_new();
	size_t i;

	for (i = 0; i < n; i++)
		range(t, S_STEP, 10000 * (int64_t)i, 10000 * (int64_t)i + walls[i], 1);
	kern(t, 0, 7, 10, 20, 1, S_KA);
	t->opt.range_name = "step";
	t->opt.range_skip = skip;
	run(t);
	return t;
}

static void test_range_skip_and_leading_ranges(void **state)
{
	static const int64_t w[5] = {9000, 100, 100, 120, 100};
	struct tb *t;
	(void)state;
	/* walls sorted 100 100 100 120 9000: the lower median 100; the first
	 * (9000 >= 4 x 100) leads, the second (100) stops it, at most 5 / 2
	 * of them anyway; 9000 of 9420 >= 10% */
	t = steps_of(w, 5, 0);
	assert_int_equal(t->res.range_matches, 5);
	assert_int_equal(t->res.range_skipped, 0);
	assert_int_equal(t->res.range_median_ns, 100);
	assert_int_equal(t->res.range_walls_ns, 9420);
	assert_int_equal(t->res.range_lead, 1);
	assert_int_equal(t->res.range_lead_ns, 9000);
	assert_int_equal(t->res.range_total, 9420);
	tb_free(t);
	/* --skip 1: four ranges 100 100 120 100, total 420, none leads */
	t = steps_of(w, 5, 1);
	assert_int_equal(t->res.range_matches, 4);
	assert_int_equal(t->res.range_skipped, 1);
	assert_int_equal(t->res.range_total, 420);
	assert_int_equal(t->res.range_median_ns, 100);
	assert_int_equal(t->res.range_lead, 0);
	/* the kernel [10,20] lay in the skipped range: nothing selected */
	assert_int_equal(t->res.n_kernel_ops, 0);
	tb_free(t);
	/* --skip past them all: none selected, 5 skipped */
	t = steps_of(w, 5, 9);
	assert_int_equal(t->res.range_matches, 0);
	assert_int_equal(t->res.range_skipped, 5);
	tb_free(t);
}

static void test_leading_ranges_thresholds(void **state)
{
	int64_t w[40];
	struct tb *t;
	size_t i;
	(void)state;
	/* three ranges: fewer than GS_LEAD_MIN_RANGES, none leads */
	w[0] = 9000;
	w[1] = w[2] = 100;
	t = steps_of(w, 3, 0);
	assert_int_equal(t->res.range_lead, 0);
	assert_int_equal(t->res.range_median_ns, 100);
	tb_free(t);
	/* 400 then 39 x 100: 4 x the median exactly leads, but 400 of 4300
	 * is 9.3% < 10%: no note */
	w[0] = 400;
	for (i = 1; i < 40; i++)
		w[i] = 100;
	t = steps_of(w, 40, 0);
	assert_int_equal(t->res.range_lead, 0);
	tb_free(t);
	/* 400 then 9 x 100: 400 of 1300 = 30.8% leads */
	t = steps_of(w, 10, 0);
	assert_int_equal(t->res.range_lead, 1);
	assert_int_equal(t->res.range_lead_ns, 400);
	assert_int_equal(t->res.range_walls_ns, 1300);
	tb_free(t);
	/* 399: under 4 x 100 */
	w[0] = 399;
	t = steps_of(w, 10, 0);
	assert_int_equal(t->res.range_lead, 0);
	tb_free(t);
	/* two leading (500, 450) of 6: at most 3 may lead, both do (the
	 * lower median of 100 100 100 100 450 500 is 100) */
	w[0] = 500;
	w[1] = 450;
	for (i = 2; i < 6; i++)
		w[i] = 100;
	t = steps_of(w, 6, 0);
	assert_int_equal(t->res.range_lead, 2);
	assert_int_equal(t->res.range_lead_ns, 950);
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

/* K0 [0,100] (call [-20,-10]); K1, launched by a call [10,20] that had
 * returned before the GPU went idle at 100, starts d ns later */
static struct tb *queued_late(int64_t d)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, -20, -10, 1, 1);
	api(t, S_LAUNCH, 10, 20, 2, 1);
	kern(t, 0, 7, 0, 100, 1, S_KA);
	kern(t, 0, 7, 100 + d, 200 + d, 2, S_KB);
	run(t);
	return t;
}

static void test_queued_op_held_over_100us_is_other(void **state)
{
	struct tb *t = queued_late(100001);
	struct gs_segment seg[4];
	size_t n;
	(void)state;
	/* 100001 ns > 100 us after the GPU went idle, no wait recorded:
	 * dispatch is the last 50000 ns, launch latency; the 50001 before,
	 * other (something the trace does not hold held K1) */
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_OTHER);
	assert_int_equal(dev0(t)->gaps[0].host_late, 0);
	assert_int_equal(dev0(t)->gaps[0].held, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 50001);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 50000);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_OTHER], 1);
	n = gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 4);
	assert_int_equal(n, 2);
	assert_int_equal(seg[0].cause, GS_CAUSE_OTHER);
	assert_int_equal(seg[0].start, 100);
	assert_int_equal(seg[0].end, 50101);
	assert_int_equal(seg[1].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(seg[1].start, 50101);
	assert_int_equal(seg[1].end, 100101);
	tb_free(t);
	/* 100000 ns: launch latency, all of it */
	t = queued_late(100000);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100000);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 0);
	tb_free(t);
}

/* K0 [0, 100] (correlation 5), K1 [100 + d, 200 + d] (correlation 6),
 * neither with a call in the trace, whose only call (correlation 10,
 * [500000, 500010]) launched K2 [600000, 600100]: K0 and K1 were launched
 * before the trace began (torch.profiler's window opened while the GPU
 * ran work queued earlier) */
static struct tb *before_trace(int64_t d)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 500000, 500010, 10, 1);
	kern(t, 0, 7, 0, 100, 5, S_KA);
	kern(t, 0, 7, 100 + d, 200 + d, 6, S_KB);
	kern(t, 0, 7, 600000, 600100, 10, S_KA);
	run(t);
	return t;
}

static void test_op_launched_before_the_trace_is_queued(void **state)
{
	struct tb *t = before_trace(40);
	struct gs_segment seg[4];
	(void)state;
	/* the 40 ns before K1: dispatch of a queued op, launch latency (it
	 * was "other, no launch call recorded") */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_BEFORE_TRACE);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 4), 1);
	assert_int_equal(seg[0].ref_kind, GS_EXPLAIN_BEFORE_TRACE);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 0);
	tb_free(t);
	/* 100001 ns: held by something unrecorded, as a queued op is: other
	 * 50001, then 50000 of dispatch; not counted as no-call idle (the
	 * trace records calls; these were made before it began) */
	t = before_trace(100001);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_OTHER);
	assert_int_equal(dev0(t)->gaps[0].held, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 50001);
	assert_int_equal(dev0(t)->tl.other_no_call, 0);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 4), 2);
	assert_int_equal(seg[0].cause, GS_CAUSE_OTHER);
	assert_int_equal(seg[0].end, 50101);
	assert_int_equal(seg[0].ref_kind, GS_EXPLAIN_BEFORE_TRACE);
	assert_int_equal(seg[1].cause, GS_CAUSE_LAUNCH_LATENCY);
	tb_free(t);
	/* K1's correlation id after the first call's: not before the trace;
	 * its call is missing: other, no-call idle */
	t = tb_new();
	api(t, S_LAUNCH, 500000, 500010, 10, 1);
	kern(t, 0, 7, 0, 100, 5, S_KA);
	kern(t, 0, 7, 140, 240, 11, S_KB);
	kern(t, 0, 7, 600000, 600100, 10, S_KA);
	run(t);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_OTHER);
	assert_int_equal(dev0(t)->gaps[0].explain_kind, GS_EXPLAIN_NONE);
	assert_int_equal(dev0(t)->tl.other_no_call, 40);
	tb_free(t);
}

/* gs_host_range_at: thread 5's spans A [0, 1000], B [100, 300] and C [400,
 * 401] inside A, and thread 6's D [0, 5000], sorted by (tid, start) with
 * their parents */
static void test_host_range_at_picks_the_innermost_covering_half(void **state)
{
	static const struct gs_hrange h[] = {{0, 1000, GS_NONE, 5, 1},
					     {100, 300, 0, 5, 2},
					     {400, 401, 0, 5, 3},
					     {0, 5000, GS_NONE, 6, 4}};
	struct gs_input in = {.hranges = h, .n_hranges = 4};
	(void)state;
	/* [100, 300): B covers all of it and is shorter than A */
	assert_int_equal(gs_host_range_at(&in, 5, 100, 300), 1);
	/* [200, 400): B covers 100 of 200, exactly half: B */
	assert_int_equal(gs_host_range_at(&in, 5, 200, 400), 1);
	/* [200, 401): B covers 100 of 201, under half: A */
	assert_int_equal(gs_host_range_at(&in, 5, 200, 401), 0);
	/* [395, 405): C covers 1 of 10: A */
	assert_int_equal(gs_host_range_at(&in, 5, 395, 405), 0);
	/* [900, 2100): A covers 100 of 1200: none of thread 5 */
	assert_int_equal(gs_host_range_at(&in, 5, 900, 2100), GS_NONE);
	/* thread 6: D; a thread without spans: none; an empty interval: none */
	assert_int_equal(gs_host_range_at(&in, 6, 900, 2100), 3);
	assert_int_equal(gs_host_range_at(&in, 7, 0, 10), GS_NONE);
	assert_int_equal(gs_host_range_at(&in, 5, 10, 10), GS_NONE);
}

static void test_graph_node_held_over_100us_is_other(void **state)
{
	struct tb *t = tb_new();
	struct gs_segment seg[4];
	(void)state;
	/* two nodes of one graph launch (call [0,10], corr 1): A [100,200],
	 * B [200200,200300]; the hole of 200000 ns > 100 us is no node
	 * dispatch: graph-internal the last 50000, other 150000 */
	api(t, S_GRAPHLAUNCH, 0, 10, 1, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 200200, 200300, 1, S_KB);
	t->ops[0].graph_id = 3;
	t->ops[1].graph_id = 3;
	run(t);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_OTHER);
	assert_int_equal(dev0(t)->gaps[0].held, GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 150000);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_GRAPH_INTERNAL], 50000);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 4), 2);
	assert_int_equal(seg[1].cause, GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(seg[1].start, 150200);
	tb_free(t);
}

/* K0 [0,100] (call [-20,-10]); K1's call [200,216] began after the GPU
 * went idle (host late) and K1 started d ns after the call returned */
static struct tb *late_then_held(int64_t d)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, -20, -10, 1, 1);
	api(t, S_LAUNCH, 200, 216, 2, 1);
	kern(t, 0, 7, 0, 100, 1, S_KA);
	kern(t, 0, 7, 216 + d, 316 + d, 2, S_KB);
	run(t);
	return t;
}

static void test_late_launch_then_held_over_100us_is_other(void **state)
{
	struct tb *t = late_then_held(100001);
	struct gs_segment seg[6];
	(void)state;
	/* gap [100, 100217): host code [100,200) 100, the call [200,216) 16
	 * of launch latency, then K1 sat queued 100001 ns > 100 us: other
	 * [216, 50217) 50001, launch latency (dispatch) [50217, 100217)
	 * 50000. Launch latency 50016 > other 50001: the gap's cause. (HTA's
	 * sampled A100 trace: a 16 us cudaLaunchKernel, 56.2 ms to its kernel) */
	assert_int_equal(dev0(t)->gaps[0].host_late, 1);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 50001);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 50016);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 6), 4);
	assert_int_equal(seg[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(seg[1].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(seg[1].end, 216);
	assert_int_equal(seg[2].cause, GS_CAUSE_OTHER);
	assert_int_equal(seg[2].start, 216);
	assert_int_equal(seg[2].end, 50217);
	assert_int_equal(seg[3].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(seg[3].end, 100217);
	tb_free(t);
	/* 100000 ns after the call: launch latency, all 100016 of it */
	t = late_then_held(100000);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_OTHER], 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100016);
	tb_free(t);
}

static void test_launch_call_running_at_idle_stays_launch_latency(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* K1's call [10, 150000] had not returned when the GPU went idle at
	 * 100: the call's own time, launch latency whatever its length (a
	 * graph launch submitting its nodes) */
	api(t, S_LAUNCH, -20, -10, 1, 1);
	api(t, S_LAUNCH, 10, 150000, 2, 1);
	kern(t, 0, 7, 0, 100, 1, S_KA);
	kern(t, 0, 7, 200100, 200200, 2, S_KB);
	run(t);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 200000);
	tb_free(t);
}

static void test_name_matches(void **state)
{
	(void)state;
	/* a plain name: equal only */
	assert_true(gs_name_matches("step", "step"));
	assert_false(gs_name_matches("step2", "step"));
	/* "#*": the part before '*' and 1-18 digits */
	assert_true(gs_name_matches("ProfilerStep#0", "ProfilerStep#*"));
	assert_true(gs_name_matches("ProfilerStep#551", "ProfilerStep#*"));
	assert_true(gs_name_matches("ProfilerStep#123456789012345678", "ProfilerStep#*"));
	assert_false(gs_name_matches("ProfilerStep#1234567890123456789", "ProfilerStep#*"));
	assert_false(gs_name_matches("ProfilerStep#", "ProfilerStep#*"));
	assert_false(gs_name_matches("ProfilerStep#5x", "ProfilerStep#*"));
	assert_false(gs_name_matches("ProfilerStep#x", "ProfilerStep#*"));
	assert_false(gs_name_matches("profilerStep#5", "ProfilerStep#*"));
	/* the literal text "ProfilerStep#*" is not one of the family */
	assert_false(gs_name_matches("ProfilerStep#*", "ProfilerStep#*"));
	/* a '*' elsewhere is a plain character */
	assert_true(gs_name_matches("a*", "a*"));
	assert_false(gs_name_matches("ab", "a*"));
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

/* The same loop with a calibration that timed the untraced graph launch
 * call (base 500 + 20 a node: 560 for 3 nodes): 3 replays take at least
 * 3 x 560 = 1680 > 1350, so the estimate is 1680 and the saving 4100 -
 * 1680 = 2420. With base 300: 3 x 360 = 1080 < 1350, estimate stays. */
static void test_graph_advice_at_least_the_graph_launch_calls(void **state)
{
	static const uint32_t seq[3] = {S_KA, S_KB, S_KC};
	int i, k;
	(void)state;
	for (k = 0; k < 2; k++) {
		struct tb *t = tb_new();
		for (i = 0; i < 9; i++)
			api(t, S_LAUNCH, 500 * i - 50, 500 * i - 40, (uint32_t)(i + 1), 1);
		for (i = 0; i < 9; i++)
			kern(t, 0, 7, 500 * i, 500 * i + 100, (uint32_t)(i + 1), seq[i % 3]);
		t->opt.graph_node_overhead_ns = 50;
		t->in.cal.have = 1;
		t->in.cal.plain_graph_ns = k ? 300 : 500;
		t->in.cal.plain_graph_node_ns = 20;
		run(t);
		assert_int_equal(t->res.n_advice, 1);
		assert_int_equal(t->res.advice[0].estimate, k ? 1350 : 1680);
		assert_int_equal(t->res.advice[0].saving, k ? 2750 : 2420);
		tb_free(t);
	}
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

static void test_graph_advice_long_host_hole_between_steps_stays(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* A 1-op loop of kernel A, 5 times, 100 ns each, with holes between
	 * the occurrences of four kinds:
	 *   op0 [0, 100]         call [-20, -10]
	 *   op1 [40100, 40200]   call [40090, 40095]: host late, 39990 host code
	 *                        then 10 launch latency: host time, 40000 <= 50 us
	 *   op2 [100200, 100300] call [100190, 100195]: host time, 60000 > 50 us:
	 *                        the program's own work between steps, stays
	 *   op3 [170300, 170400] call [100290, 100295], begun before op2 ended:
	 *                        70000 of launch latency, goes whatever its length
	 *   op4 [170800, 170900] call [170790, 170795]: host time, 400
	 * measured = 5 x 100 + 40000 + 70000 + 400 = 110900; launch idle
	 * 110400; estimate = 110900 - 110400 + 5 x 50 = 750. Before the host
	 * holes between steps were bounded, the 60000 counted too (170900). */
	api(t, S_LAUNCH, -20, -10, 1, 1);
	kern(t, 0, 7, 0, 100, 1, S_KA);
	api(t, S_LAUNCH, 40090, 40095, 2, 1);
	kern(t, 0, 7, 40100, 40200, 2, S_KA);
	api(t, S_LAUNCH, 100190, 100195, 3, 1);
	kern(t, 0, 7, 100200, 100300, 3, S_KA);
	api(t, S_LAUNCH, 100290, 100295, 4, 1);
	kern(t, 0, 7, 170300, 170400, 4, S_KA);
	api(t, S_LAUNCH, 170790, 170795, 5, 1);
	kern(t, 0, 7, 170800, 170900, 5, S_KA);
	t->opt.graph_node_overhead_ns = 50;
	run(t);
	assert_int_equal(dev0(t)->n_gaps, 4);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[2].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[3].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(t->res.n_advice, 1);
	assert_int_equal(t->res.advice[0].length, 1);
	assert_int_equal(t->res.advice[0].count, 5);
	assert_int_equal(t->res.advice[0].measured, 110900);
	assert_int_equal(t->res.advice[0].launch_idle, 110400);
	assert_int_equal(t->res.advice[0].estimate, 750);
	tb_free(t);
}

/* A B three times on stream 7, thread 1: A [b, b + 100] (call [b - 20,
 * b - 10]), B after a hole of h that the host held (B's call [b + 90 + h,
 * b + 95 + h]: host code h - 10, launch latency 10), then 200 ns to the
 * next A (host code 180, latency 20): b advances by h + 400. Returns the
 * advice. */
static const struct gs_graph_advice *host_hole_inside(struct tb *t, int64_t h)
{
	int i;

	for (i = 0; i < 3; i++) {
		int64_t b = i * (h + 400);
		api(t, S_LAUNCH, b - 20, b - 10, (uint32_t)(10 + i), 1);
		kern(t, 0, 7, b, b + 100, (uint32_t)(10 + i), S_KA);
		api(t, S_LAUNCH, b + 90 + h, b + 95 + h, (uint32_t)(20 + i), 1);
		kern(t, 0, 7, b + 100 + h, b + 200 + h, (uint32_t)(20 + i), S_KB);
	}
	t->opt.graph_node_overhead_ns = 50;
	run(t);
	return t->res.n_advice == 1 ? &t->res.advice[0] : NULL;
}

static void test_graph_advice_host_stall_inside_a_step_stays(void **state)
{
	struct tb *t = tb_new();
	const struct gs_graph_advice *a = host_hole_inside(t, 1000000);
	(void)state;
	/* the A-B holes are host stalls (1 ms, GS_HOST_STALL_NS: a batch
	 * loaded inside the step, TraceLens' H100 OWLv2 trace): a replay does
	 * not remove them; launch idle is the B -> A holes only, 2 x 200.
	 * measured = 3 x (200 + 1000000) + 2 x 200 */
	assert_non_null(a);
	assert_int_equal(a->length, 2);
	assert_int_equal(a->count, 3);
	assert_int_equal(a->measured, 3000000 + 600 + 400);
	assert_int_equal(a->launch_idle, 400);
	tb_free(t);
	/* 1 ns shorter: host time between launches, counted */
	t = tb_new();
	a = host_hole_inside(t, 999999);
	assert_non_null(a);
	assert_int_equal(a->launch_idle, 3 * 999999 + 400);
	tb_free(t);
}

/* Stream 9 runs A [1000 i, +100] and B [1000 i + 600, +100], i = 0..2,
 * each launched by thread 1 50 ns before it, after the op before it ended
 * (host late). Stream 7 runs C [1000 i + c0, 1000 i + c1] (thread 2,
 * launched 30 ns before it). Returns stream 9's advice (the 2-op
 * sequence A B x 3), with a graph node overhead of 50 ns. */
static const struct gs_graph_advice *two_streams(struct tb *t, int64_t c0, int64_t c1)
{
	size_t k;
	int i;

	for (i = 0; i < 3; i++) {
		int64_t b = 1000 * i;
		api(t, S_LAUNCH, b - 50, b - 40, (uint32_t)(10 + i), 1);
		api(t, S_LAUNCH, b + c0 - 30, b + c0 - 20, (uint32_t)(20 + i), 2);
		api(t, S_LAUNCH, b + 550, b + 560, (uint32_t)(30 + i), 1);
	}
	for (i = 0; i < 3; i++) {
		int64_t b = 1000 * i;
		kern(t, 0, 9, b, b + 100, (uint32_t)(10 + i), S_KA);
		kern(t, 0, 7, b + c0, b + c1, (uint32_t)(20 + i), S_KC);
		kern(t, 0, 9, b + 600, b + 700, (uint32_t)(30 + i), S_KB);
	}
	t->opt.graph_node_overhead_ns = 50;
	run(t);
	for (k = 0; k < t->res.n_advice; k++)
		if (t->res.advice[k].stream == 9)
			return &t->res.advice[k];
	return NULL;
}

static void test_graph_advice_hole_filled_by_another_stream_stays(void **state)
{
	struct tb *t = tb_new();
	const struct gs_graph_advice *a = two_streams(t, 200, 500);
	(void)state;
	/* C [1000 i + 200, 1000 i + 500] inside each A-B hole: the device was
	 * busy there, so a graph of A B would not make B sooner (NCCL's
	 * stream in a DDP step, HTA's A100 trace). Stream 9's sequence:
	 * measured 3 x 700 + the holes B -> next A, quiet and host late (250
	 * + 50 ns of host time), 2 x 300 = 2700; launch idle only those 600
	 * (the A-B holes, 3 x 500, counted too before). */
	assert_non_null(a);
	assert_int_equal(a->length, 2);
	assert_int_equal(a->count, 3);
	assert_int_equal(a->measured, 2700);
	assert_int_equal(a->launch_idle, 600);
	tb_free(t);
}

static void test_graph_advice_hole_under_a_long_kernel_stays(void **state)
{
	struct tb *t = tb_new();
	const struct gs_graph_advice *a = two_streams(t, 50, 550);
	(void)state;
	/* C [1000 i + 50, 1000 i + 550] begins while A still runs: no op
	 * starts inside the A-B hole [1000 i + 100, 1000 i + 600), yet C runs
	 * through most of it (a 2.5 ms NCCL kernel beside the backward pass).
	 * Launch idle: the B -> next A holes only, 2 x 300 = 600 (1500 more
	 * when only starts were checked) */
	assert_non_null(a);
	assert_int_equal(a->count, 3);
	assert_int_equal(a->measured, 2700);
	assert_int_equal(a->launch_idle, 600);
	tb_free(t);
}

static void test_graph_advice_named_after_the_range_most_steps_are_in(void **state)
{
	struct tb *t = tb_new();
	static const uint32_t seq[3] = {S_KA, S_KB, S_KC};
	uint32_t warm, step;
	int i;
	(void)state;
	/* the 3 x (A B C) loop of the first advice test (occurrences' first
	 * ops launched at -50, 1450, 2950 on thread 1); a warm-up range holds
	 * the first launch, a step range the other two: the advice is named
	 * after the step range */
	for (i = 0; i < 9; i++) {
		api(t, S_LAUNCH, 500 * i - 50, 500 * i - 40, (uint32_t)(i + 1), 1);
		kern(t, 0, 7, 500 * i, 500 * i + 100, (uint32_t)(i + 1), seq[i % 3]);
	}
	warm = range(t, S_OTHER, -100, 400, 1);
	step = range(t, S_STEP, 1000, 5000, 1);
	t->opt.graph_node_overhead_ns = 50;
	run(t);
	assert_int_equal(t->res.n_advice, 1);
	assert_int_equal(t->res.advice[0].count, 3);
	assert_int_not_equal(t->res.advice[0].nvtx_idx, warm);
	assert_int_equal(t->res.advice[0].nvtx_idx, step);
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

/* one graph launch of 10 kernels whose holes are 20000 + d ns each */
static struct tb *graph_holes(int64_t d)
{
	struct tb *t = tb_new();
	int64_t s = 100;
	int i;
	api(t, S_GRAPHLAUNCH, 0, 10, 1, 1);
	for (i = 0; i < 10; i++) {
		kern(t, 0, 7, s, s + 100, 1, S_KA);
		t->ops[i].graph_id = 2;
		s += 100 + 20000 + d;
	}
	run(t);
	return t;
}

static void test_graph_node_overhead_over_20us_is_not_used(void **state)
{
	struct tb *t = graph_holes(1);
	(void)state;
	/* 9 holes of 20001 ns: the median, 20001, is over 20 us: waits in the
	 * graph, not dispatch; the default 1000 is used and the median kept */
	assert_int_equal(t->res.graph_node_hole_p50_ns, 20001);
	assert_int_equal(t->res.graph_node_overhead_source, 0);
	assert_int_equal(t->res.graph_node_overhead_ns, 1000);
	tb_free(t);
	/* 20000 exactly is used */
	t = graph_holes(0);
	assert_int_equal(t->res.graph_node_hole_p50_ns, 20000);
	assert_int_equal(t->res.graph_node_overhead_source, 2);
	assert_int_equal(t->res.graph_node_overhead_ns, 20000);
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

static void test_graph_nodes_are_no_short_launched_kernels(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* kA 100 and kB 1000 launched one by one; two kA nodes of a graph
	 * (100 each): 4 kernels, 2 launched one by one, of which 1 (100) is
	 * shorter than 250: share 1/2, not 3/4 */
	kern(t, 0, 7, 0, 100, 0, S_KA);
	kern(t, 0, 7, 200, 1200, 0, S_KB);
	kern(t, 0, 7, 1300, 1400, 0, S_KA);
	kern(t, 0, 7, 1500, 1600, 0, S_KA);
	t->ops[2].graph_id = 5;
	t->ops[3].graph_id = 5;
	t->opt.launch_cost_ns = 250;
	run(t);
	assert_int_equal(t->res.n_kernel_ops, 4);
	assert_int_equal(t->res.n_launched_kernels, 2);
	assert_int_equal(t->res.n_short_kernels, 1);
	assert_true(t->res.short_kernel_share == 0.5);
	/* the kernel table still counts all of them: kA 3 x, 300 */
	assert_int_equal(t->res.kernels[1].name_id, S_KA);
	assert_int_equal(t->res.kernels[1].count, 3);
	assert_int_equal(t->res.kernels[1].total, 300);
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

/* Lookups of host covers and NVTX ranges for gaps that alternate between
 * two host threads (tids 1 and 9: the same slot of the analysis's lookup
 * cache) and, in the stream views, go back in time for one thread (stream
 * 9's hole starts at 120, after stream 8's at 250 was cut, before the
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
	api(t, S_LAUNCH, 392, 395, 4, 9); /* D: after its sync returned */
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
	/* before C (tid 1, no calls in [250,290)): host code 40, launch
	 * latency [290,300) 10; tid 1's innermost range at 250 is r0 (r1
	 * starts at 400) */
	assert_int_equal(dev0(t)->gaps[0].op_idx, 3);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->gaps[0].nvtx_idx, r0);
	/* before D (tid 9, call at 392): its sync [320,390] gives sync wait
	 * [380,390) 10, host code [390,392) 2, launch latency [392,400) 8;
	 * range r2 */
	assert_int_equal(dev0(t)->gaps[1].op_idx, 4);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(dev0(t)->gaps[1].explain_idx, 4);
	assert_int_equal(dev0(t)->gaps[1].nvtx_idx, r2);
	{
		struct gs_segment seg[4];
		assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[1], seg, 4), 3);
		assert_int_equal(seg[0].cause, GS_CAUSE_SYNC_WAIT);
		assert_int_equal(seg[0].ref_kind, GS_EXPLAIN_SYNC);
		assert_int_equal(seg[0].ref_idx, s_late);
		assert_int_equal(seg[0].tid, 9);
		assert_int_equal(seg[0].end, 390);
	}
	/* before E (tid 1): call at 460: host code [450,460) 10, launch
	 * latency [460,500) 40; innermost range r1 */
	assert_int_equal(dev0(t)->gaps[2].op_idx, 6);
	assert_int_equal(dev0(t)->gaps[2].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[2].nvtx_idx, r1);
	/* before F (tid 9): no call of tid 9 in [550,560): host code 10,
	 * launch latency [560,600) 40; range r2 */
	assert_int_equal(dev0(t)->gaps[3].op_idx, 7);
	assert_int_equal(dev0(t)->gaps[3].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->gaps[3].nvtx_idx, r2);
	/* device: sync 10, host 40 + 2 + 10 + 10 = 62, latency 10+8+40+40 = 98 */
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 10);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 62);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 98);
	/* stream views, by stream id 7, 8, 9:
	 * 7 (tid 1): [200,300) call 290: host 90, latency 10; [380,500) call
	 *    460: host 80, latency 40 -> host 170, latency 50
	 * 8 (tid 9): [250,400) call 392: sync [320,390] 70, host 72, latency
	 *    8; [450,600) call 560: host 110, latency 40 -> sync 70, host
	 *    182, latency 48
	 * 9 (tid 9): [120,420) cut after stream 8's [250,392) (back in
	 *    time), call at 410: syncs [140,200] 60 + [320,390] 70 = 130,
	 *    CUDA API D [392,395] 3, host 290 - 133 = 157, latency 10 */
	assert_int_equal(dev0(t)->n_streams, 3);
	assert_int_equal(dev0(t)->streams[0].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 170);
	assert_int_equal(dev0(t)->streams[0].tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 50);
	assert_int_equal(dev0(t)->streams[1].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 70);
	assert_int_equal(dev0(t)->streams[1].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 182);
	assert_int_equal(dev0(t)->streams[1].tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 48);
	assert_int_equal(dev0(t)->streams[2].stream, 9);
	assert_int_equal(dev0(t)->streams[2].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 130);
	assert_int_equal(dev0(t)->streams[2].tl.idle_by_cause[GS_CAUSE_CUDA_API], 3);
	assert_int_equal(dev0(t)->streams[2].tl.launch_calls, 3);
	assert_int_equal(dev0(t)->streams[2].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 157);
	assert_int_equal(dev0(t)->streams[2].tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 10);
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
	/* every hole [1000i + 900, 1000(i+1) + 800) is host late: the next
	 * call starts at 1000(i+1) + 500, after g0: host code 600, launch
	 * latency 300. The three holes before a twin's op: the twin starts
	 * at 1000(i+1) + 300: host code 400, launch latency 500. */
	assert_int_equal(res.devices[0].n_gaps, N - 1);
	assert_int_equal(res.devices[0].tl.gaps_by_cause[GS_CAUSE_HOST_CODE], N - 4);
	assert_int_equal(res.devices[0].tl.gaps_by_cause[GS_CAUSE_LAUNCH_LATENCY], 3);
	assert_int_equal(res.devices[0].tl.idle_by_cause[GS_CAUSE_HOST_CODE],
			 (int64_t)(N - 4) * 600 + 3 * 400);
	assert_int_equal(res.devices[0].tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY],
			 (int64_t)(N - 4) * 300 + 3 * 500);
	assert_int_equal(res.devices[0].gaps[twin_corr[1] - 2].cause, GS_CAUSE_LAUNCH_LATENCY);
	check_invariants(&res, 1);
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

/* ---- gap model v2: segments ------------------------------------------ */

/* A thread's calls given out of start order (rows need not be sorted):
 * the host index sorts them, and the cut is the one of the sorted input. */
static void test_calls_out_of_order_cut_as_sorted(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* thread 1: the later calls first, then the first launch */
	api(t, S_LAUNCH, 900, 910, 2, 1);
	api(t, S_STREAMSYNC, 195, 230, 10, 1);
	api(t, S_LAUNCH, 10, 20, 1, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 950, 1000, 2, S_KB);
	run(t);
	/* gap [200,950), K2's call at 900: CUDA API [200,230) in the
	 * cudaStreamSynchronize call (no sync row here) 30, host code
	 * [230,900) 670, launch latency [900,950) 50 */
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 30);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 670);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	tb_free(t);
}

static void test_gap_after_short_sync_and_long_host_pause_splits_by_segment(void **state)
{
	struct tb *t = tb_new();
	uint32_t c2, y;
	struct gs_segment seg[4];
	const struct gs_gap *g;
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	/* cudaStreamSynchronize [195,230] on thread 1: its API row and its
	 * sync row (one stretch, counted once) */
	api(t, S_STREAMSYNC, 195, 230, 10, 1);
	y = sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 195, 230, 1, 7);
	c2 = api(t, S_LAUNCH, 900, 910, 2, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 950, 1000, 2, S_KB);
	run(t);
	/* gap [200,950): sync wait [200,230) 30, host code [230,900) 670,
	 * launch latency [900,950) 50 */
	g = &dev0(t)->gaps[0];
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(g->host_late, 1);
	assert_int_equal(g->cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 30);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 670);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 50);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_HOST_CODE], 1);
	assert_int_equal(gs_gap_segments(&t->res, g, seg, 4), 3);
	assert_int_equal(seg[0].start, 200);
	assert_int_equal(seg[0].end, 230);
	assert_int_equal(seg[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(seg[0].ref_kind, GS_EXPLAIN_SYNC);
	assert_int_equal(seg[0].ref_idx, y);
	assert_int_equal(seg[0].tid, 1);
	assert_int_equal(seg[0].n_calls, 1);
	assert_int_equal(seg[1].start, 230);
	assert_int_equal(seg[1].end, 900);
	assert_int_equal(seg[1].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(seg[1].ref_kind, GS_EXPLAIN_NONE);
	assert_int_equal(seg[1].ref_idx, GS_NONE);
	assert_int_equal(seg[2].start, 900);
	assert_int_equal(seg[2].end, 950);
	assert_int_equal(seg[2].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(seg[2].ref_kind, GS_EXPLAIN_LAUNCH);
	assert_int_equal(seg[2].ref_idx, c2);
	/* room for one: the count is still 3, the first one written */
	memset(seg, 0, sizeof(seg));
	assert_int_equal(gs_gap_segments(&t->res, g, seg, 1), 3);
	assert_int_equal(seg[0].end, 230);
	assert_int_equal(seg[1].end, 0);
	/* the sync: blocked 35, its sync wait 30, in one gap */
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].blocked_ns, 35);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 30);
	assert_int_equal(t->res.syncs[0].n_gaps, 1);
	/* window [100,1000] = 900 */
	assert_true(dev0(t)->tl.launch_overhead_share == 50.0 / 900.0);
	assert_true(dev0(t)->tl.host_code_share == 670.0 / 900.0);
	tb_free(t);
}

static void test_cuda_calls_and_polls_in_late_gap_are_cuda_api(void **state)
{
	struct tb *t = tb_new();
	uint32_t m, q1, q2;
	struct gs_segment seg[10];
	static const int64_t want[8][3] = {
	    {200, 250, GS_CAUSE_HOST_CODE}, {250, 300, GS_CAUSE_CUDA_API},
	    {300, 400, GS_CAUSE_HOST_CODE}, {400, 410, GS_CAUSE_CUDA_API},
	    {410, 420, GS_CAUSE_HOST_CODE}, {420, 425, GS_CAUSE_CUDA_API},
	    {425, 500, GS_CAUSE_HOST_CODE}, {500, 600, GS_CAUSE_LAUNCH_LATENCY}};
	size_t i;
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	m = api(t, S_MALLOC, 250, 300, 20, 1);
	q1 = api(t, S_EVENTQUERY, 400, 410, 21, 1);
	q2 = api(t, S_EVENTQUERY, 420, 425, 22, 1);
	/* CUPTI reports the first query as an event sync: still a poll */
	sync_row(t, GS_SYNC_EVENT, 0, S_EVENTQUERY, 400, 410, 1, 0);
	api(t, S_LAUNCH, 500, 510, 2, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 600, 700, 2, S_KB);
	run(t);
	/* gap [200,600), C2 at 500: CUDA API = malloc 50 + queries 10 + 5 =
	 * 65; host code 50 + 100 + 10 + 75 = 235; latency [500,600) 100 */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 65);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 235);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(dev0(t)->tl.launch_calls, 0);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 10), 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(seg[i].start, want[i][0]);
		assert_int_equal(seg[i].end, want[i][1]);
		assert_int_equal(seg[i].cause, want[i][2]);
	}
	assert_int_equal(seg[1].ref_kind, GS_EXPLAIN_LAUNCH);
	assert_int_equal(seg[1].ref_idx, m);
	assert_int_equal(seg[3].ref_idx, q1);
	assert_int_equal(seg[5].ref_idx, q2);
	/* polls are not syncs: no sync group; one poll entry, 2 calls, 15 ns */
	assert_int_equal(t->res.n_syncs, 0);
	assert_int_equal(t->res.n_polls, 1);
	assert_int_equal(t->res.polls[0].api_name_id, S_EVENTQUERY);
	assert_int_equal(t->res.polls[0].count, 2);
	assert_int_equal(t->res.polls[0].time_ns, 15);
	tb_free(t);
}

static void test_nested_runtime_and_driver_calls_count_once(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	/* a launch to device 1: cudaLaunchKernel [300,340] with its driver
	 * call cuLaunchKernel [305,335] inside (same corr) */
	api(t, S_LAUNCH, 300, 340, 5, 1);
	api(t, S_CULAUNCH, 305, 335, 5, 1);
	/* cudaMalloc [420,460] with cuMemAlloc_v2 [425,455] inside */
	api(t, S_MALLOC, 420, 460, 6, 1);
	api(t, S_CUMEMALLOC, 425, 455, 6, 1);
	api(t, S_LAUNCH, 500, 510, 2, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 600, 700, 2, S_KB);
	kern(t, 1, 3, 350, 360, 5, S_KC);
	run(t);
	/* device 0 gap [200,600): host [200,300) 100, CUDA API [300,340) 40
	 * (not 40 + 30), host [340,420) 80, CUDA API [420,460) 40, host
	 * [460,500) 40, latency [500,600) 100: API 80, host 220; launch
	 * calls 40 (the launch's union, once) */
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 80);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 220);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100);
	assert_int_equal(dev0(t)->tl.launch_calls, 40);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_HOST_CODE);
	{
		struct gs_segment seg[8];
		assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[0], seg, 8), 6);
		assert_int_equal(seg[1].start, 300);
		assert_int_equal(seg[1].end, 340);
		assert_int_equal(seg[1].cause, GS_CAUSE_CUDA_API);
		assert_int_equal(seg[1].n_calls, 1);
		assert_int_equal(seg[3].start, 420);
		assert_int_equal(seg[3].end, 460);
	}
	/* window [100,700] = 600: (100 + 0 + 40) / 600; host 220 / 600 */
	assert_true(dev0(t)->tl.launch_overhead_share == 140.0 / 600.0);
	assert_true(dev0(t)->tl.host_code_share == 220.0 / 600.0);
	tb_free(t);
}

static void test_gaps_inside_graph_replay_before_sync_are_graph_internal(void **state)
{
	struct tb *t = tb_new();
	struct gs_segment seg[2];
	(void)state;
	api(t, S_GRAPHLAUNCH, 10, 20, 5, 1);
	/* then the host waits for the replay: sync [25,320] on thread 1 */
	api(t, S_STREAMSYNC, 25, 320, 6, 1);
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 25, 320, 1, 7);
	kern(t, 0, 7, 100, 150, 5, S_KA);
	kern(t, 0, 7, 170, 220, 5, S_KB);
	kern(t, 0, 7, 260, 300, 5, S_KC);
	t->ops[0].graph_id = t->ops[1].graph_id = t->ops[2].graph_id = 9;
	run(t);
	/* [150,170) and [220,260): the kernels were enqueued (at 10) before
	 * the gaps; one graph launch: graph-internal 20 + 40. The sync in
	 * progress explains nothing. */
	assert_int_equal(dev0(t)->n_gaps, 2);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(dev0(t)->gaps[1].host_late, 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_GRAPH_INTERNAL], 60);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(dev0(t)->tl.gaps_by_cause[GS_CAUSE_GRAPH_INTERNAL], 2);
	assert_int_equal(gs_gap_segments(&t->res, &dev0(t)->gaps[1], seg, 2), 1);
	assert_int_equal(seg[0].start, 220);
	assert_int_equal(seg[0].end, 260);
	assert_int_equal(seg[0].cause, GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(seg[0].ref_kind, GS_EXPLAIN_LAUNCH);
	assert_int_equal(seg[0].ref_idx, 0);
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].blocked_ns, 295);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 0);
	assert_int_equal(t->res.syncs[0].n_gaps, 0);
	/* window [100,300] = 200: launch overhead 60 / 200 */
	assert_true(dev0(t)->tl.launch_overhead_share == 60.0 / 200.0);
	assert_true(dev0(t)->tl.host_code_share == 0.0);
	tb_free(t);
}

static void test_kernel_launch_reported_as_sync_is_not_sync_wait(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	/* a launch on the legacy default stream [210,260], which CUPTI
	 * reports as a sync too */
	api(t, S_LAUNCH, 210, 260, 3, 1);
	sync_row(t, GS_SYNC_IMPLICIT_LEGACY_STREAM, 1, S_LAUNCH, 210, 260, 1, 0);
	api(t, S_LAUNCH, 300, 305, 2, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 400, 500, 2, S_KB);
	run(t);
	/* gap [200,400): host [200,210) 10, CUDA API (a launch call)
	 * [210,260) 50, host [260,300) 40, latency [300,400) 100 */
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100);
	assert_int_equal(dev0(t)->tl.launch_calls, 50);
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 0);
	/* window [100,500] = 400: (100 + 0 + 50) / 400 = 0.375 */
	assert_true(dev0(t)->tl.launch_overhead_share == 0.375);
	assert_true(dev0(t)->tl.host_code_share == 50.0 / 400.0);
	tb_free(t);
}

static void test_host_func_long_before_first_op_of_stream_is_not_dependency(void **state)
{
	struct tb *t = tb_new(), *u = tb_new();
	uint32_t h;
	(void)state;
	/* K2 is the first op of stream 8, launched at 40; a host function
	 * enqueued at 30 by the same thread: the dependency window starts
	 * at g0 = 200, so the host function does not explain [200,300) */
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_HOSTFN, 30, 35, 3, 1);
	api(t, S_LAUNCH, 40, 45, 2, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 8, 300, 400, 2, S_KB);
	run(t);
	assert_int_equal(dev0(t)->n_gaps, 1);
	assert_int_equal(dev0(t)->gaps[0].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 0);
	/* the same with K0 on stream 8 launched at 5: the window is (5, 40]
	 * and the host function at 30 is K2's dependency */
	api(u, S_LAUNCH, 5, 6, 4, 1);
	api(u, S_LAUNCH, 10, 20, 1, 1);
	h = api(u, S_HOSTFN, 30, 35, 3, 1);
	api(u, S_LAUNCH, 40, 45, 2, 1);
	kern(u, 0, 8, 50, 60, 4, S_KC);
	kern(u, 0, 7, 100, 200, 1, S_KA);
	kern(u, 0, 8, 300, 400, 2, S_KB);
	run(u);
	assert_int_equal(dev0(u)->n_gaps, 2);
	assert_int_equal(dev0(u)->gaps[1].cause, GS_CAUSE_DEPENDENCY);
	assert_int_equal(dev0(u)->gaps[1].explain_kind, GS_EXPLAIN_HOST_FUNC);
	assert_int_equal(dev0(u)->gaps[1].explain_idx, h);
	assert_int_equal(dev0(u)->tl.idle_by_cause[GS_CAUSE_DEPENDENCY], 100);
	tb_free(t);
	tb_free(u);
}

static void test_launch_overhead_share_counts_latency_graph_internal_and_launch_calls(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	api(t, S_GRAPHLAUNCH, 10, 20, 5, 1);
	api(t, S_LAUNCH, 220, 230, 8, 1); /* a launch to device 1 */
	api(t, S_LAUNCH, 260, 270, 2, 1);
	kern(t, 0, 7, 100, 150, 5, S_KA);
	kern(t, 0, 7, 170, 200, 5, S_KB);
	kern(t, 0, 7, 300, 400, 2, S_KC);
	kern(t, 1, 3, 240, 250, 8, S_KA);
	t->ops[0].graph_id = t->ops[1].graph_id = 4;
	run(t);
	/* [150,170) graph-internal 20; [200,300) host late (C at 260): host
	 * [200,220) 20, CUDA API [220,230) 10 (a launch call), host [230,260)
	 * 30, latency [260,300) 40. Window [100,400] = 300:
	 * launch overhead = (40 + 20 + 10) / 300, host code 50 / 300 */
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_GRAPH_INTERNAL], 20);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 40);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_CUDA_API], 10);
	assert_int_equal(dev0(t)->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(dev0(t)->tl.launch_calls, 10);
	assert_int_equal(dev0(t)->gaps[1].cause, GS_CAUSE_HOST_CODE);
	assert_true(dev0(t)->tl.launch_overhead_share == 70.0 / 300.0);
	assert_true(dev0(t)->tl.host_code_share == 50.0 / 300.0);
	tb_free(t);
}

static void test_range_cuts_host_late_gap_segments_per_piece(void **state)
{
	struct tb *t = tb_new();
	struct gs_segment seg[4];
	const struct gs_device_result *d;
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 180, 260, 1, 7);
	api(t, S_LAUNCH, 400, 410, 2, 1);
	range(t, S_STEP, 0, 230, 1);
	range(t, S_STEP, 350, 450, 1);
	range(t, S_STEP, 480, 1000, 1);
	kern(t, 0, 7, 100, 200, 1, S_KA);
	kern(t, 0, 7, 500, 600, 2, S_KB);
	t->opt.range_name = "step";
	run(t);
	d = dev0(t);
	/* whole gap [200,500): sync wait [200,260), host [260,400), latency
	 * [400,500). Pieces in the selection: [200,230) sync wait 30;
	 * [350,450) host 50 + latency 50 (tie: host code); [480,500) latency
	 * 20. Window = [100,230] 130 + [350,450] 100 + [480,600] 120 = 350,
	 * idle 150, busy 200 */
	assert_int_equal(t->res.range_matches, 3);
	assert_int_equal(d->tl.window, 350);
	assert_int_equal(d->tl.idle, 150);
	assert_int_equal(d->tl.busy, 200);
	assert_int_equal(d->n_gaps, 3);
	assert_int_equal(d->tl.n_gaps, 3);
	assert_int_equal(d->tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 30);
	assert_int_equal(d->tl.idle_by_cause[GS_CAUSE_HOST_CODE], 50);
	assert_int_equal(d->tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 70);
	assert_int_equal(d->tl.gaps_by_cause[GS_CAUSE_SYNC_WAIT], 1);
	assert_int_equal(d->tl.gaps_by_cause[GS_CAUSE_HOST_CODE], 1);
	assert_int_equal(d->tl.gaps_by_cause[GS_CAUSE_LAUNCH_LATENCY], 1);
	assert_int_equal(d->gaps[0].start, 200);
	assert_int_equal(d->gaps[0].end, 230);
	assert_int_equal(d->gaps[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(gs_gap_segments(&t->res, &d->gaps[0], seg, 4), 1);
	assert_int_equal(seg[0].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(seg[0].ref_idx, 0);
	assert_int_equal(d->gaps[1].start, 350);
	assert_int_equal(d->gaps[1].end, 450);
	assert_int_equal(d->gaps[1].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(gs_gap_segments(&t->res, &d->gaps[1], seg, 4), 2);
	assert_int_equal(seg[0].start, 350);
	assert_int_equal(seg[0].end, 400);
	assert_int_equal(seg[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(seg[1].start, 400);
	assert_int_equal(seg[1].end, 450);
	assert_int_equal(seg[1].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(d->gaps[2].start, 480);
	assert_int_equal(d->gaps[2].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(gs_gap_segments(&t->res, &d->gaps[2], seg, 4), 1);
	assert_int_equal(seg[0].start, 480);
	assert_int_equal(seg[0].end, 500);
	/* the sync's wait inside the selection: 30 */
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 30);
	assert_int_equal(t->res.syncs[0].n_gaps, 1);
	tb_free(t);
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

/* A sum clamped at the int64 bounds is never shown as true: the clamp is
 * remembered (gs_sums_clamped) for the verb to say so (issue 55, item 8). */
static void test_sat_add_remembers_a_clamp(void **state)
{
	(void)state;
	gs_sum_clamped = 0; /* whatever an earlier test of this process added */
	assert_int_equal(gs_sat_add(INT64_MAX - 5, 5), INT64_MAX);
	assert_int_equal(gs_sums_clamped(), 0); /* exact: no clamp */
	assert_int_equal(gs_sat_add((int64_t)1 << 62, (int64_t)1 << 62), INT64_MAX);
	assert_int_equal(gs_sums_clamped(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_back_to_back_kernels_have_no_gap),
	    cmocka_unit_test(test_gap_after_late_launch_splits_host_code_and_launch_latency),
	    cmocka_unit_test(test_gap_with_early_launch_is_launch_latency),
	    cmocka_unit_test(test_sync_over_gap_start_is_sync_wait_until_it_returns),
	    cmocka_unit_test(test_sync_on_other_thread_is_not_sync_wait),
	    cmocka_unit_test(test_implicit_sync_does_not_explain_gap_of_enqueued_op),
	    cmocka_unit_test(test_implicit_sync_before_late_launch_is_sync_wait),
	    cmocka_unit_test(test_copy_call_staging_its_own_data_is_sync_wait),
	    cmocka_unit_test(test_readback_copy_call_before_its_copy_is_launch_latency),
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
	    cmocka_unit_test(test_range_skip_and_leading_ranges),
	    cmocka_unit_test(test_leading_ranges_thresholds),
	    cmocka_unit_test(test_report_keeps_top_gap_candidates_and_sync_figures),
	    cmocka_unit_test(test_nvtx_range_that_matches_nothing_selects_nothing),
	    cmocka_unit_test(test_nvtx_breakdown_busy_share),
	    cmocka_unit_test(test_name_matches),
	    cmocka_unit_test(test_queued_op_held_over_100us_is_other),
	    cmocka_unit_test(test_op_launched_before_the_trace_is_queued),
	    cmocka_unit_test(test_host_range_at_picks_the_innermost_covering_half),
	    cmocka_unit_test(test_launch_call_running_at_idle_stays_launch_latency),
	    cmocka_unit_test(test_late_launch_then_held_over_100us_is_other),
	    cmocka_unit_test(test_graph_node_held_over_100us_is_other),
	    cmocka_unit_test(test_graph_advice_detects_repeated_sequence),
	    cmocka_unit_test(test_graph_advice_at_least_the_graph_launch_calls),
	    cmocka_unit_test(test_graph_advice_not_given_when_back_to_back),
	    cmocka_unit_test(test_graph_advice_finds_body_despite_rare_op),
	    cmocka_unit_test(test_graph_advice_long_host_hole_between_steps_stays),
	    cmocka_unit_test(test_graph_advice_host_stall_inside_a_step_stays),
	    cmocka_unit_test(test_graph_advice_hole_filled_by_another_stream_stays),
	    cmocka_unit_test(test_graph_advice_hole_under_a_long_kernel_stays),
	    cmocka_unit_test(test_graph_advice_named_after_the_range_most_steps_are_in),
	    cmocka_unit_test(test_graph_advice_small_saving_in_long_window_not_advised),
	    cmocka_unit_test(test_graph_node_overhead_measured_from_graph_launches),
	    cmocka_unit_test(test_graph_node_overhead_over_20us_is_not_used),
	    cmocka_unit_test(test_top_kernels_and_short_kernel_share),
	    cmocka_unit_test(test_graph_nodes_are_no_short_launched_kernels),
	    cmocka_unit_test(test_launch_distributions_per_api),
	    cmocka_unit_test(test_instrumentation_overhead_is_subtracted),
	    cmocka_unit_test(test_devices_are_separate_timelines),
	    cmocka_unit_test(test_unsorted_ops_are_rejected),
	    cmocka_unit_test(test_unsorted_ops_are_rejected_in_either_half),
	    cmocka_unit_test(test_lookups_alternate_threads_and_go_back_in_time),
	    cmocka_unit_test(test_gap_after_short_sync_and_long_host_pause_splits_by_segment),
	    cmocka_unit_test(test_calls_out_of_order_cut_as_sorted),
	    cmocka_unit_test(test_cuda_calls_and_polls_in_late_gap_are_cuda_api),
	    cmocka_unit_test(test_nested_runtime_and_driver_calls_count_once),
	    cmocka_unit_test(test_gaps_inside_graph_replay_before_sync_are_graph_internal),
	    cmocka_unit_test(test_kernel_launch_reported_as_sync_is_not_sync_wait),
	    cmocka_unit_test(test_host_func_long_before_first_op_of_stream_is_not_dependency),
	    cmocka_unit_test(
		test_launch_overhead_share_counts_latency_graph_internal_and_launch_calls),
	    cmocka_unit_test(test_range_cuts_host_late_gap_segments_per_piece),
	    cmocka_unit_test(test_api_classification),
	    cmocka_unit_test(test_sat_add_remembers_a_clamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
