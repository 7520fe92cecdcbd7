/*
 * test_verdict.c - cmocka tests of the verdict (viewer/analysis/verdict.c):
 * for every rule a hand-built timeline that makes it fire and one just
 * under its threshold (the #defines at the top of verdict.c, listed in
 * docs/report.md "Verdict"); findings kept costliest first, at most
 * GS_VERDICT_FINDINGS; a gap's drain shared by the sync calls in it; the short-kernels
 * rule silent where the launch rule fired; the causes in order. Every
 * expected figure is worked out by hand in the comment next to it
 * (docs/metrics.md has the gap model); nothing is copied from the code's
 * output. No database, no I/O.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "report.h"
#include "gapscope/trace_format.h"

enum {
	S_LAUNCH = 1,
	S_STREAMSYNC,
	S_EVENTSYNC,
	S_WAIT,
	S_KA,
	S_STEP,
	S_MEMCPY,
	S_MEMCPYASYNC,
	S_MEMSET,
	S_MALLOC,
	S_SETLIMIT,
	S_EVENTQUERY,
	S_GRAPHLAUNCH,
	S_PS1,
	S_PS2,
	S_WARM,
	S_LONG,
	S_SCAN,
	S_CCCL,
	S_ATEN,
	S_TORCHK,
	S_TORCHM,
	S_N
};

static const char *strtab[S_N] = {
    NULL,
    "cudaLaunchKernel",
    "cudaStreamSynchronize",
    "cudaEventSynchronize",
    "cudaStreamWaitEvent",
    "kA",
    "step",
    "cudaMemcpy",
    "cudaMemcpyAsync",
    "cudaMemset",
    "cudaMalloc",
    "cudaDeviceSetLimit",
    "cudaEventQuery",
    "cudaGraphLaunch",
    "ProfilerStep#1",
    "ProfilerStep#2",
    "warm'up",
    "a_range_name_of_forty_nine_bytes_xxxxxxxxxxxxxxxx",
    "cub::DeviceScan::InclusiveScan",
    "CCCL",
    "aten::conv2d",
    "void at::native::vectorized_elementwise_kernel<4, float>(int, float)",
    "_ZN2at6native29vectorized_elementwise_kernelILi4EEEviT_",
};

struct tb {
	struct gs_op ops[128];
	struct gs_api apis[256];
	struct gs_sync syncs[96];
	struct gs_nvtx nvtx[8];
	struct gs_hrange hranges[4];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct gs_verdict v;
	uint32_t corr; /* next correlation id of a call that launches nothing */
};

static struct tb *tb_new(void)
{
	struct tb *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->in.ops = t->ops;
	t->in.apis = t->apis;
	t->in.syncs = t->syncs;
	t->in.nvtx = t->nvtx;
	t->in.strings.v = strtab;
	t->in.strings.n = S_N;
	t->in.kernel_overhead_ns = -1;
	t->corr = 100000;
	gs_options_init(&t->opt);
	return t;
}

static void tb_free(struct tb *t)
{
	gs_result_free(&t->res);
	free(t);
}

/* Ops must be added in (device, start) order. */
static void kern(struct tb *t, int dev, uint32_t stream, int64_t s, int64_t e, uint32_t corr)
{
	struct gs_op *o = &t->ops[t->in.n_ops++];
	assert_true(t->in.n_ops <= sizeof(t->ops) / sizeof(t->ops[0]));
	o->start = s;
	o->end = e;
	o->device = (int16_t)dev;
	o->stream = stream;
	o->corr = corr;
	o->name_id = S_KA;
	o->kind = GS_OP_KERNEL;
}

static void api(struct tb *t, uint32_t name, int64_t s, int64_t e, uint32_t corr, uint32_t tid)
{
	struct gs_api *a = &t->apis[t->in.n_apis++];
	assert_true(t->in.n_apis <= sizeof(t->apis) / sizeof(t->apis[0]));
	a->start = s;
	a->end = e;
	a->corr = corr;
	a->name_id = name;
	a->tid = tid;
}

static void sync_row(struct tb *t, int kind, int implicit, uint32_t name, int64_t s, int64_t e,
		     uint32_t tid, uint32_t stream)
{
	struct gs_sync *y = &t->syncs[t->in.n_syncs++];
	assert_true(t->in.n_syncs <= sizeof(t->syncs) / sizeof(t->syncs[0]));
	y->start = s;
	y->end = e;
	y->kind = (uint8_t)kind;
	y->implicit = (uint8_t)implicit;
	y->api_name_id = name;
	y->tid = tid;
	y->stream = stream;
	y->device = 0;
}

static void range(struct tb *t, uint32_t text, int64_t s, int64_t e, uint32_t tid)
{
	struct gs_nvtx *r = &t->nvtx[t->in.n_nvtx++];
	r->start = s;
	r->end = e;
	r->text_id = text;
	r->tid = tid;
	r->kind = GS_NVTX_RANGE;
}

static void run(struct tb *t)
{
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	gs_verdict_compute(&t->res, &t->v);
}

/* the finding of `rule`, NULL when it did not fire */
static const struct gs_finding *finding(const struct tb *t, int rule)
{
	size_t i;

	for (i = 0; i < t->v.n_findings; i++)
		if (t->v.findings[i].rule == rule)
			return &t->v.findings[i];
	return NULL;
}

/*
 * The step timeline: thread 1, device 0, stream 7, n kernels K_i =
 * [1000 + 1000 i, 1100 + 1000 i] (corr i + 1). K_0's launch call is
 * [0, 1]; K_i's (i >= 1) starts l before K_i, [K_i.start - l, +1], after
 * the gap began: host late. So gap i (after K_i, i = 0..n-2) is
 * [g0, g0 + 900) with g0 = 1100 + 1000 i, and its last l ns are launch
 * latency. Window = 1000 (n - 1) + 100, busy 100 n, idle 900 (n - 1).
 * What the thread did in [g0, g0 + 900 - l) comes from block(): without
 * one, host code.
 */
static void steps(struct tb *t, size_t n, int64_t l)
{
	size_t i;

	api(t, S_LAUNCH, 0, 1, 1, 1);
	for (i = 0; i < n; i++) {
		int64_t s = 1000 + 1000 * (int64_t)i;
		if (i)
			api(t, S_LAUNCH, s - l, s - l + 1, (uint32_t)i + 1, 1);
		kern(t, 0, 7, s, s + 100, (uint32_t)i + 1);
	}
}

/* A blocking call of thread 1 in gap `gap` of steps(): a syncs row and its
 * API call (same span; the call launches nothing) over [g0 + s, g0 + e]. */
static void block_at(struct tb *t, size_t gap, int kind, int implicit, uint32_t name, int64_t s,
		     int64_t e)
{
	int64_t g0 = 1100 + 1000 * (int64_t)gap;

	api(t, name, g0 + s, g0 + e, t->corr++, 1);
	sync_row(t, kind, implicit, name, g0 + s, g0 + e, 1, 7);
}

/* ... from 50 ns before the gap to w ns into it: w ns of sync wait (the
 * 50 ns before g0 do not count) */
static void block(struct tb *t, size_t gap, int kind, int implicit, uint32_t name, int64_t w)
{
	block_at(t, gap, kind, implicit, name, -50, w);
}

/* ---- host code ---------------------------------------------------------- */

/* K0 [100,200] (call [10,20]), K1 [300,400] (call [c,c+10], thread 7,
 * late): gap [200,300) = host code [200,c) + launch latency [c,300).
 * Window [100,400] = 300. An NVTX range "step" [150,350] on thread 7. */
static struct tb *host_gap(int64_t c)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 10, 20, 1, 7);
	api(t, S_LAUNCH, c, c + 10, 2, 7);
	range(t, S_STEP, 150, 350, 7);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300, 400, 2);
	run(t);
	return t;
}

static void test_host_code_at_a_fifth_of_the_window_fires(void **state)
{
	struct tb *t = host_gap(260);
	const struct gs_finding *f;
	(void)state;
	/* host code [200,260) = 60 = 20% of 300 (threshold: >= 0.20); launch
	 * latency [260,300) = 40: launch share 40 / 300 = 13.3%, no launch
	 * finding */
	assert_int_equal(t->v.window, 300);
	assert_int_equal(t->v.busy, 200);
	assert_true(t->v.utilisation == 200.0 / 300.0);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 60);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 40);
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_HOST_CODE);
	assert_int_equal(f->cost_ns, 60);
	assert_true(f->share == 60.0 / 300.0);
	/* where: the range holding the host code, "step" (it holds g0 = 200
	 * of the one gap), and the thread of the largest gap of that cause in
	 * it (host 60 > latency 40): K1's call, thread 7 */
	assert_int_equal(f->tid, 7);
	assert_int_equal(f->nvtx_id, S_STEP);
	assert_int_equal(f->api_name_id, 0);
	assert_int_equal(f->count, 0);
	tb_free(t);
}

static void test_host_code_just_under_a_fifth_does_not_fire(void **state)
{
	struct tb *t = host_gap(259);
	(void)state;
	/* host code 59 / 300 = 19.7% < 20%; launch latency 41 / 300 = 13.7% */
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 59);
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

/* ---- launch overhead ---------------------------------------------------- */

/* Device 0: K0 [100,200] (call [10,20]), K1 [300,400] launched late by
 * thread 1 at [c, c+1]. In the gap thread 1 also launches K2 for device 1
 * ([210, e], corr 3; K2 runs [1000,1100] on device 1). Device-0 gap
 * [200,300): host [200,210) 10, CUDA API [210,e) (a launch call: launch
 * calls), host [e,c), launch latency [c,300). Device 1: window 100, all
 * busy. The verdict's window: 300 + 100 = 400. */
static struct tb *launch_gap(int64_t e, int64_t c)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 210, e, 3, 1);
	api(t, S_LAUNCH, c, c + 1, 2, 1);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300, 400, 2);
	kern(t, 1, 9, 1000, 1100, 3);
	run(t);
	return t;
}

static void test_launch_overhead_at_a_fifth_fires_with_launch_calls(void **state)
{
	struct tb *t = launch_gap(230, 240);
	const struct gs_finding *f;
	(void)state;
	/* host [200,210) 10 + [230,240) 10 = 20, CUDA API [210,230) 20 (all of
	 * it a launch call), launch latency [240,300) 60. Launch = 60 + 0 +
	 * 20 = 80 = 20% of 400: fires. Host code 20 / 400 = 5%. */
	assert_int_equal(t->v.window, 400);
	assert_int_equal(t->v.busy, 300); /* 200 on device 0, 100 on device 1 */
	assert_true(t->v.utilisation == 0.75);
	assert_int_equal(t->res.devices[0].tl.launch_calls, 20);
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_LAUNCH);
	assert_int_equal(f->cost_ns, 80);
	assert_true(f->share == 80.0 / 400.0);
	/* where: no range holds the launch latency (no NVTX); the gap's
	 * largest segment is launch latency (60), its launch call thread 1's */
	assert_int_equal(f->tid, 1);
	assert_int_equal(f->nvtx_id, 0);
	/* causes by idle: launch latency 60, then CUDA API 20 and host code
	 * 20 (tie: enum order), then the zeros in enum order */
	assert_int_equal(t->v.cause_order[0], GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(t->v.cause_order[1], GS_CAUSE_CUDA_API);
	assert_int_equal(t->v.cause_order[2], GS_CAUSE_HOST_CODE);
	assert_int_equal(t->v.cause_order[3], GS_CAUSE_SYNC_WAIT);
	assert_int_equal(t->v.cause_order[4], GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(t->v.cause_order[5], GS_CAUSE_DEPENDENCY);
	assert_int_equal(t->v.cause_order[6], GS_CAUSE_OTHER);
	tb_free(t);
}

/* Where: the range that holds the most launch latency, not the one with
 * the largest gap. Device 0, thread 1: K0 [100,200]; K1..K5 of 100 ns each
 * 40 ns apart, each launched before the kernel ahead ended (K1 [240,340]
 * ... K5 [800,900], calls [prev end - 10, prev end - 5]): five gaps of 40
 * of launch latency, their starts in "step" [0,899); then K6 [1050,1150],
 * launched at [895,896]: one gap of 150, its start (900) in "kA"
 * [899,2000]. Launch latency 200 in "step", 150 in "kA": "step". */
static void test_launch_overhead_named_after_the_range_with_the_most(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	int i;
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	kern(t, 0, 7, 100, 200, 1);
	for (i = 1; i <= 5; i++) {
		int64_t prev_end = 200 + 140 * (i - 1), s = prev_end + 40;
		api(t, S_LAUNCH, prev_end - 10, prev_end - 5, (uint32_t)(i + 1), 1);
		kern(t, 0, 7, s, s + 100, (uint32_t)(i + 1));
	}
	api(t, S_LAUNCH, 895, 896, 7, 1);
	kern(t, 0, 7, 1050, 1150, 7);
	range(t, S_STEP, 0, 899, 1);
	range(t, S_KA, 899, 2000, 1);
	run(t);
	assert_int_equal(t->v.window, 1050);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 350);
	f = finding(t, GS_RULE_LAUNCH);
	assert_non_null(f);
	assert_int_equal(f->nvtx_id, S_STEP);
	assert_int_equal(f->tid, 1);
	tb_free(t);
}

/* A program that launches graphs already is not told to use them. Device 0:
 * K0 [100,200] (cudaLaunchKernel [10,20]); cudaGraphLaunch [150,260] (begun
 * before the GPU went idle) runs nodes N1 [300,400] and N2 [410,510] of
 * graph 7; K3 [600,700] launched late at [560,561]. Gaps: [200,300) launch
 * latency 100 before the graph's first node; [400,410) graph-internal 10;
 * [510,600) host code 50 then launch latency 40. Window 600, busy 400.
 * Launch = 140 + 10 = 150 = 25%: the rule fires; of its latency and
 * graph-internal idle (150), 100 + 10 = 110 come before and inside the
 * graph launch, more than half: the graph-launch finding, naming
 * cudaGraphLaunch and its one call. */
static void test_launch_overhead_before_graph_launches_is_its_own_finding(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	(void)state;
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_GRAPHLAUNCH, 150, 260, 2, 1);
	api(t, S_LAUNCH, 560, 561, 3, 1);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300, 400, 2);
	t->ops[t->in.n_ops - 1].graph_id = 7;
	kern(t, 0, 7, 410, 510, 2);
	t->ops[t->in.n_ops - 1].graph_id = 7;
	kern(t, 0, 7, 600, 700, 3);
	run(t);
	assert_int_equal(t->v.window, 600);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 140);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_GRAPH_INTERNAL], 10);
	assert_int_equal(t->res.devices[0].tl.graph_launch_latency, 100);
	assert_null(finding(t, GS_RULE_LAUNCH));
	f = finding(t, GS_RULE_GRAPH_LAUNCH);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 150);
	assert_int_equal(f->api_name_id, S_GRAPHLAUNCH);
	assert_int_equal(f->count, 1);
	assert_string_equal(gs_rule_key(GS_RULE_GRAPH_LAUNCH), "graph_launch_overhead");
	tb_free(t);
}

static void test_launch_overhead_just_under_a_fifth_does_not_fire(void **state)
{
	struct tb *t = launch_gap(229, 240);
	(void)state;
	/* launch call [210,229) 19, host 10 + 11, latency 60: 79 / 400 */
	assert_int_equal(t->res.devices[0].tl.launch_calls, 19);
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

/* ---- dependency ----------------------------------------------------------- */

/* Stream 8: K0 [100,200] (call [5,6]), a cudaStreamWaitEvent on stream 8
 * at [25,28] (no record of its event: it counts), K1 [k1,400] launched
 * early at [30,40]. Gap [200,k1): not host late, the wait lies in
 * (5, 30]: dependency. Window [100,400] = 300. NVTX "step" [150,350]. */
static struct tb *dep_gap(int64_t k1)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 5, 6, 3, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	sync_row(t, GS_SYNC_STREAM_WAIT_EVENT, 0, S_WAIT, 25, 28, 1, 8);
	range(t, S_STEP, 150, 350, 1);
	kern(t, 0, 8, 100, 200, 3);
	kern(t, 0, 8, k1, 400, 2);
	run(t);
	return t;
}

static void test_dependency_at_a_fifth_fires(void **state)
{
	struct tb *t = dep_gap(260);
	const struct gs_finding *f;
	(void)state;
	/* dependency 60 / 300 = 20%; the wait group (explicit, stream wait)
	 * is never a sync-every-step finding */
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_DEPENDENCY], 60);
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_DEPENDENCY);
	assert_int_equal(f->cost_ns, 60);
	assert_true(f->share == 60.0 / 300.0);
	/* where: explained by the wait, not a launch call: no thread; the
	 * NVTX range on K1's launching thread that holds g0 = 200 */
	assert_int_equal(f->tid, 0);
	assert_int_equal(f->nvtx_id, S_STEP);
	tb_free(t);
}

static void test_dependency_just_under_a_fifth_does_not_fire(void **state)
{
	struct tb *t = dep_gap(259);
	(void)state;
	/* 59 / 300 = 19.7% */
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_DEPENDENCY], 59);
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

/* ---- a sync every step ------------------------------------------------ */

static void test_sync_every_step_fires_at_twenty_calls(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	size_t i;
	(void)state;
	/* 21 kernels, 20 gaps of 900; in each a cudaStreamSynchronize giving
	 * 600 sync wait, then host 200, launch latency 100. Window 20100.
	 * Drain per gap 600 + 100 = 700, 20 calls: 14000 = 69.7% (>= 5%,
	 * >= 20 calls). Host code 4000 / 20100 = 19.9%, launch 2000 / 20100
	 * = 9.95%: no other finding. */
	steps(t, 21, 100);
	for (i = 0; i < 20; i++)
		block(t, i, GS_SYNC_STREAM, 0, S_STREAMSYNC, 600);
	run(t);
	assert_int_equal(t->v.window, 20100);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_SYNC_WAIT], 12000);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 4000);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 2000);
	assert_int_equal(t->res.syncs[0].drain_ns, 14000);
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_SYNC_STEP);
	assert_int_equal(f->cost_ns, 14000);
	assert_true(f->share == 14000.0 / 20100.0);
	assert_int_equal(f->count, 20);
	assert_int_equal(f->api_name_id, S_STREAMSYNC);
	assert_int_equal(f->tid, 1); /* the thread of the calls (block_at) */
	assert_int_equal(f->nvtx_id, 0);
	assert_int_equal(f->op_id, 0);
	assert_int_equal(t->v.pytorch, 0);
	assert_string_equal(gs_finding_fix(f), "sync every N steps, not every step");
	/* causes: sync wait 12000, host code 4000, launch latency 2000 */
	assert_int_equal(t->v.cause_order[0], GS_CAUSE_SYNC_WAIT);
	assert_int_equal(t->v.cause_order[1], GS_CAUSE_HOST_CODE);
	assert_int_equal(t->v.cause_order[2], GS_CAUSE_LAUNCH_LATENCY);
	tb_free(t);
}

static void test_sync_every_step_needs_twenty_calls(void **state)
{
	struct tb *t = tb_new();
	size_t i;
	(void)state;
	/* the same with 20 kernels: 19 syncs, drain 19 * 700 = 13300 of
	 * 19100 (69.6%), but 19 < 20 calls. Host code 3800 / 19100 = 19.9%,
	 * launch 1900 / 19100 = 9.9%: nothing fires */
	steps(t, 20, 100);
	for (i = 0; i < 19; i++)
		block(t, i, GS_SYNC_STREAM, 0, S_STREAMSYNC, 600);
	run(t);
	assert_int_equal(t->res.syncs[0].count, 19);
	assert_int_equal(t->res.syncs[0].drain_ns, 13300);
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

/* 21 kernels, a cudaEventSynchronize giving 1 ns of sync wait in each of
 * the 20 gaps, launch latency l: drain 20 (1 + l) of 20100; the 5% is
 * 1005 ns */
static struct tb *short_syncs(int64_t l)
{
	struct tb *t = tb_new();
	size_t i;

	steps(t, 21, l);
	for (i = 0; i < 20; i++)
		block(t, i, GS_SYNC_EVENT, 0, S_EVENTSYNC, 1);
	run(t);
	return t;
}

static void test_sync_every_step_counts_the_refill_latency(void **state)
{
	struct tb *t = short_syncs(50);
	const struct gs_finding *f;
	(void)state;
	/* 20 * (1 + 50) = 1020 = 5.07%: the wait alone (20 ns) would not do */
	f = finding(t, GS_RULE_SYNC_STEP);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 1020);
	assert_true(f->share == 1020.0 / 20100.0);
	assert_int_equal(f->count, 20);
	assert_int_equal(f->api_name_id, S_EVENTSYNC);
	/* host code 20 * 849 = 16980 fires too, and costs more: first */
	assert_int_equal(t->v.findings[0].rule, GS_RULE_HOST_CODE);
	assert_int_equal(t->v.findings[0].cost_ns, 16980);
	assert_int_equal(t->v.n_findings, 2);
	tb_free(t);
}

static void test_sync_every_step_just_under_five_percent_does_not_fire(void **state)
{
	struct tb *t = short_syncs(49);
	(void)state;
	/* 20 * (1 + 49) = 1000 = 4.98% of 20100 */
	assert_int_equal(t->res.syncs[0].drain_ns, 1000);
	assert_null(finding(t, GS_RULE_SYNC_STEP));
	assert_non_null(finding(t, GS_RULE_HOST_CODE));
	tb_free(t);
}

static void test_sync_calls_of_one_gap_share_its_drain(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	size_t i;
	(void)state;
	/* two separate cudaStreamSynchronize calls per gap, [g0-50, g0+300]
	 * and [g0+310, g0+610]: sync wait 300 + 300, host 10 + 190, latency
	 * 100. Each call takes its own wait, the later one the latency too:
	 * 300 + 400 = 700 a gap, 20 * 700 = 14000 for the group, within the
	 * idle 20 * 900 = 18000 there was (each taking the gap's whole 700
	 * made 28000). Host code 4000 / 20100 = 19.9%: only the sync finding. */
	steps(t, 21, 100);
	for (i = 0; i < 20; i++) {
		block_at(t, i, GS_SYNC_STREAM, 0, S_STREAMSYNC, -50, 300);
		block_at(t, i, GS_SYNC_STREAM, 0, S_STREAMSYNC, 310, 610);
	}
	run(t);
	assert_int_equal(t->res.syncs[0].count, 40);
	assert_int_equal(t->res.syncs[0].drain_ns, 14000);
	assert_int_equal(t->v.window - t->v.busy, 18000);
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_SYNC_STEP);
	assert_int_equal(f->cost_ns, 14000);
	assert_true(f->share == 14000.0 / 20100.0);
	assert_int_equal(f->count, 40);
	tb_free(t);
}

static void test_two_groups_in_one_gap_do_not_both_take_it(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *fm;
	size_t i;
	(void)state;
	/* HTA's AlexNet trace (A100): cudaFree and cudaMalloc in the same
	 * gaps, each group's finding cost the whole idle. Here 20 gaps, each
	 * with an implicit alloc-kind cudaMalloc [g0-50, g0+500] (wait 500)
	 * and a cudaStreamSynchronize [g0+520, g0+620] (wait 100); latency
	 * 100, host 20 + 180. Malloc group: drain 20 * 500 = 10000 (the
	 * latency is the later sync's); sync group: 20 * (100 + 100) = 4000.
	 * Before, both took the gap's 700: 14000 each. Window 20100: malloc
	 * 10000 = 49.8% >= 1% with 20 >= 5 calls: fires at 10000; the sync
	 * group 4000 = 19.9% >= 5% with 20 calls: fires at 4000. Host code
	 * 20 * 200 = 4000 = 19.9%, launch 2000 = 9.95%: neither fires. */
	steps(t, 21, 100);
	for (i = 0; i < 20; i++) {
		block(t, i, GS_SYNC_IMPLICIT_ALLOC, 1, S_MALLOC, 500);
		block_at(t, i, GS_SYNC_STREAM, 0, S_STREAMSYNC, 520, 620);
	}
	run(t);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_SYNC_WAIT], 12000);
	assert_int_equal(t->v.n_findings, 2);
	fm = &t->v.findings[0];
	assert_int_equal(fm->rule, GS_RULE_ALLOC);
	assert_int_equal(fm->cost_ns, 10000);
	assert_int_equal(fm->api_name_id, S_MALLOC);
	assert_int_equal(fm->count, 20);
	assert_int_equal(t->v.findings[1].rule, GS_RULE_SYNC_STEP);
	assert_int_equal(t->v.findings[1].cost_ns, 4000);
	tb_free(t);
}

static void test_polls_and_device_wide_calls_are_no_finding(void **state)
{
	struct tb *t = tb_new();
	size_t i;
	(void)state;
	/* 20 gaps, each with a cudaDeviceSetLimit (implicit, device-wide:
	 * no rule) of 600 sync wait and, after it, a cudaEventQuery poll (an
	 * event-sync row too, as CUPTI reports it: not a sync) [g0+650,
	 * g0+700]: CUDA API 50; host 600-650 and 700-800 = 150, latency 100.
	 * Device-wide drain 20 * 700 = 14000 = 69.7%, still no finding; host
	 * code 3000 / 20100 = 14.9%, launch 2000 / 20100 = 9.95% */
	steps(t, 21, 100);
	for (i = 0; i < 20; i++) {
		block(t, i, GS_SYNC_IMPLICIT_DEVICE_WIDE, 1, S_SETLIMIT, 600);
		block_at(t, i, GS_SYNC_EVENT, 0, S_EVENTQUERY, 650, 700);
	}
	run(t);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_SYNC_WAIT], 12000);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_CUDA_API], 1000);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 3000);
	assert_int_equal(t->res.n_syncs, 1); /* the poll is no sync group */
	assert_int_equal(t->res.syncs[0].drain_ns, 14000);
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

/* ---- launch calls of 1 ms or more ------------------------------------- */

/* K0 [100,200] (call [10,20]), K1 [300 + d, 400 + d] whose call began at
 * 250 and ran d ns (K1 starts 50 ns after it returned); a
 * cudaStreamSynchronize [150,240] of thread 7 waits 40 ns in the gap. Gap
 * [200, 300 + d): sync wait [200,240) = 40, host code [240,250) = 10,
 * launch latency [250, 300 + d) = d + 50. Window [100, 400 + d] = 300 + d.
 * All in an NVTX range "step" of thread 7. */
static struct tb *slow_call(int64_t d)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 10, 20, 1, 7);
	api(t, S_STREAMSYNC, 150, 240, 3, 7);
	api(t, S_LAUNCH, 250, 250 + d, 2, 7);
	sync_row(t, GS_SYNC_STREAM, 0, S_STREAMSYNC, 150, 240, 7, 7);
	range(t, S_STEP, 0, 3000000, 7);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300 + d, 400 + d, 2);
	run(t);
	return t;
}

static void test_a_launch_call_of_1ms_is_no_launch_overhead(void **state)
{
	struct tb *t = slow_call(1000000);
	const struct gs_finding *f;
	(void)state;
	/* the call ran 1 ms (the threshold, inclusive): its 1000050 ns of
	 * latency are slow-launch latency, 99.97% >= 5%: a finding of its
	 * own, the call's name, 1 call; launch overhead 1000050 - 1000050 =
	 * 0: none. The sync's drain is its 40 ns of wait only: the latency
	 * after a slow launch is no refill */
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 1000050);
	assert_int_equal(t->res.devices[0].tl.slow_launch_latency, 1000050);
	assert_int_equal(t->res.devices[0].tl.slow_launches, 1);
	assert_int_equal(t->res.devices[0].tl.slow_launch_max_ns, 1000000);
	assert_int_equal(t->res.devices[0].tl.slow_launch_name_id, S_LAUNCH);
	assert_int_equal(t->res.syncs[0].drain_ns, 40);
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_SLOW_LAUNCH);
	assert_int_equal(f->cost_ns, 1000050);
	assert_int_equal(f->api_name_id, S_LAUNCH);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->nvtx_id, S_STEP); /* where the slowest call's gap began */
	assert_null(finding(t, GS_RULE_LAUNCH));
	assert_string_equal(gs_rule_key(GS_RULE_SLOW_LAUNCH), "slow_launch_calls");
	tb_free(t);
}

static void test_a_launch_call_under_1ms_is_launch_overhead(void **state)
{
	struct tb *t = slow_call(999999);
	const struct gs_finding *f;
	(void)state;
	/* 1 ns under the threshold: the 1000049 ns of latency are launch
	 * overhead (>= 20%), and the sync's drain takes them: 40 + 1000049 */
	assert_int_equal(t->res.devices[0].tl.slow_launch_latency, 0);
	assert_int_equal(t->res.devices[0].tl.slow_launches, 0);
	assert_int_equal(t->res.syncs[0].drain_ns, 1000089);
	assert_null(finding(t, GS_RULE_SLOW_LAUNCH));
	f = finding(t, GS_RULE_LAUNCH);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 1000049);
	tb_free(t);
}

/* K0 [100,200] from a launch call [10, 10 + d] that went on after its
 * kernel ran (Kineto's PyTorch 1.x trace in HTA's test data: a 1.414 ms
 * cudaLaunchKernel whose kernel started 12 us into it), K1 [60 + d,
 * 160 + d] from a call [20 + d, 30 + d]. Gap [200, 60 + d): CUDA API in
 * the first call [200, 10 + d) = d - 190, host code 10, launch latency
 * [20 + d, 60 + d) = 40. Window [100, 160 + d] = 60 + d. */
static struct tb *slow_call_before(int64_t d)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 10, 10 + d, 1, 7);
	api(t, S_LAUNCH, 20 + d, 30 + d, 2, 7);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 60 + d, 160 + d, 2);
	run(t);
	return t;
}

static void test_time_inside_a_launch_call_of_1ms_is_no_launch_overhead(void **state)
{
	struct tb *t = slow_call_before(1000000);
	const struct gs_finding *f;
	(void)state;
	/* the first call ran 1 ms: its 999810 ns in the gap are slow-launch
	 * time (99.98% of the window), no launch overhead; what is left of
	 * the launch overhead, 999810 + 40 - 999810 = 40 ns, is no finding */
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_CUDA_API], 999810);
	assert_int_equal(t->res.devices[0].tl.launch_calls, 999810);
	assert_int_equal(t->res.devices[0].tl.slow_launch_in_calls, 999810);
	assert_int_equal(t->res.devices[0].tl.slow_launch_latency, 0);
	assert_int_equal(t->res.devices[0].tl.slow_launches, 1);
	assert_int_equal(t->res.devices[0].tl.slow_launch_max_ns, 1000000);
	f = finding(t, GS_RULE_SLOW_LAUNCH);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 999810);
	assert_int_equal(f->api_name_id, S_LAUNCH);
	assert_int_equal(f->count, 1);
	assert_null(finding(t, GS_RULE_LAUNCH));
	tb_free(t);
	/* 1 ns shorter: launch overhead, 999809 + 40 */
	t = slow_call_before(999999);
	assert_int_equal(t->res.devices[0].tl.slow_launch_in_calls, 0);
	assert_int_equal(t->res.devices[0].tl.slow_launches, 0);
	assert_null(finding(t, GS_RULE_SLOW_LAUNCH));
	f = finding(t, GS_RULE_LAUNCH);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 999849);
	tb_free(t);
}

/* ---- host stalls: gaps with 1 ms or more of host code ------------------ */

/* Thread 7, with a CUB scan range of domain CCCL [0, 50] (a library's: not
 * the program's first range) and NVTX "step" [step, 5000000] (none when
 * step < 0); each op's call 20 ns before it (launch latency 20), the thread
 * in no call between:
 *   K0 [100, 1100]
 *   an upload (cudaMemcpyAsync, pinned source) [2001120, 2001220]: gap
 *     [1100, 2001120), host code 2000000 -> a stall before an upload
 *   K2 [3001240, 3002240]: host code 1000000 (the threshold, inclusive)
 *   K3 [4002259, 4003259]: host code 999999: no stall
 * Window [100, 4003259] = 4003159. */
static struct tb *stalls_with_ranges(int64_t step)
{
	struct tb *t = tb_new();
	struct gs_op *o;
	range(t, S_SCAN, 0, 50, 7);
	t->nvtx[t->in.n_nvtx - 1].domain_id = S_CCCL;
	if (step >= 0)
		range(t, S_STEP, step, 5000000, 7);
	api(t, S_LAUNCH, 0, 10, 1, 7);
	kern(t, 0, 7, 100, 1100, 1);
	api(t, S_MEMCPYASYNC, 2001100, 2001110, 2, 7);
	kern(t, 0, 7, 2001120, 2001220, 2);
	o = &t->ops[t->in.n_ops - 1];
	o->kind = GS_OP_MEMCPY;
	o->name_id = 0;
	o->flags = GS_OPF_ASYNC | GS_OPF_HOST_SRC;
	api(t, S_LAUNCH, 3001220, 3001230, 3, 7);
	kern(t, 0, 7, 3001240, 3002240, 3);
	api(t, S_LAUNCH, 4002239, 4002249, 4, 7);
	kern(t, 0, 7, 4002259, 4003259, 4);
	run(t);
	return t;
}

/* "step" from 0: the stalls lie inside it */
static void test_host_stalls_are_no_per_launch_overhead(void **state)
{
	struct tb *t = stalls_with_ranges(0);
	const struct gs_finding *f;
	(void)state;
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 3999999);
	assert_int_equal(t->res.devices[0].tl.host_stall, 3000000);
	assert_int_equal(t->res.devices[0].tl.host_stalls, 2);
	assert_int_equal(t->res.devices[0].tl.input_stall, 2000000);
	assert_int_equal(t->res.devices[0].tl.input_stalls, 1);
	/* costliest first: the upload's stall, the other stall, then the
	 * host code between launches less the stalls: 999999 (24.98% >= 20%),
	 * all of it in one gap of this C program: 5 us or more, the program's
	 * own work (docs/metrics.md, "Host code: dispatch or the program's own
	 * work"), which a CUDA Graph does not remove */
	assert_int_equal(t->v.n_findings, 3);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_INPUT_WAIT);
	assert_int_equal(f->cost_ns, 2000000);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->tid, 7);
	assert_int_equal(f->nvtx_id, S_STEP);
	f = &t->v.findings[1];
	assert_int_equal(f->rule, GS_RULE_HOST_STALL);
	assert_int_equal(f->cost_ns, 1000000);
	assert_int_equal(f->count, 1);
	assert_int_equal(t->v.findings[2].rule, GS_RULE_HOST_OWN);
	assert_int_equal(t->v.findings[2].cost_ns, 999999);
	assert_null(finding(t, GS_RULE_HOST_CODE));
	assert_string_equal(gs_rule_key(GS_RULE_INPUT_WAIT), "input_wait");
	assert_string_equal(gs_rule_count_unit(GS_RULE_HOST_STALL, f->count), "gap");
	assert_string_equal(gs_rule_count_unit(GS_RULE_HOST_STALL, 2), "gaps");
	assert_string_equal(gs_rule_count_unit(GS_RULE_SHORT_KERNELS, 1), "kernel");
	assert_string_equal(gs_rule_count_unit(GS_RULE_SHORT_KERNELS, 0), "kernels");
	tb_free(t);
}

/* Stalls before the first NVTX range are start-up: the upload's gap
 * [1100, 2001120) lies all but 120 ns before "step" at 2001000, so its
 * 2000000 of host code is a start-up stall, not an input wait; the stall
 * before K2 starts after the range began and stays a host stall. The CCCL
 * range at 0 is a library's: it does not count as the first range. */
static void test_stalls_before_the_first_range_are_startup(void **state)
{
	struct tb *t = stalls_with_ranges(2001000);
	const struct gs_timeline *tl = &t->res.devices[0].tl;
	const struct gs_finding *f;
	(void)state;
	assert_int_equal(tl->host_stall, 3000000);
	assert_int_equal(tl->input_stall, 2000000);
	assert_int_equal(tl->startup_stall, 2000000);
	assert_int_equal(tl->startup_stalls, 1);
	assert_int_equal(tl->startup_input_stall, 2000000);
	assert_int_equal(tl->startup_input_stalls, 1);
	/* 2000000 (49.96%), the host stall 1000000 (24.98%), the host code
	 * between launches 999999; no input wait left */
	assert_int_equal(t->v.n_findings, 3);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_STARTUP);
	assert_int_equal(f->cost_ns, 2000000);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->tid, 7);
	assert_int_equal(f->nvtx_id, 0); /* no range of the thread at its middle */
	assert_int_equal(t->v.findings[1].rule, GS_RULE_HOST_STALL);
	assert_int_equal(t->v.findings[1].cost_ns, 1000000);
	assert_int_equal(t->v.findings[1].count, 1);
	assert_int_equal(t->v.findings[2].rule, GS_RULE_HOST_OWN); /* one gap of 999999 */
	assert_null(finding(t, GS_RULE_INPUT_WAIT));
	assert_string_equal(gs_rule_count_unit(GS_RULE_STARTUP, 1), "gap");
	tb_free(t);
	/* "step" from 1001109: of the gap [1100, 2001120), 1000009 lies before
	 * it and 1000011 after: no longer start-up */
	t = stalls_with_ranges(1001109);
	assert_int_equal(t->res.devices[0].tl.startup_stall, 0);
	assert_null(finding(t, GS_RULE_STARTUP));
	f = finding(t, GS_RULE_INPUT_WAIT);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 2000000);
	tb_free(t);
	/* from 1001110, the gap's middle: 1000010 before and after, start-up */
	t = stalls_with_ranges(1001110);
	assert_int_equal(t->res.devices[0].tl.startup_stall, 2000000);
	tb_free(t);
	/* only the library's range: nothing is start-up */
	t = stalls_with_ranges(-1);
	assert_int_equal(t->res.devices[0].tl.startup_stall, 0);
	assert_int_equal(t->res.devices[0].tl.startup_stalls, 0);
	assert_non_null(finding(t, GS_RULE_INPUT_WAIT));
	assert_null(finding(t, GS_RULE_STARTUP));
	tb_free(t);
}

/* --range cuts a stall: its piece stays a stall (the whole gap decides) */
static void test_a_range_keeps_a_cut_stall(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* K0 [100, 200], K1's call [2000200, 2000210], K1 [2000300, 2000400]:
	 * gap [200, 2000300) with 2000000 of host code; ranges [300200,
	 * 600200] and [1500200, 2000400] on thread 7 take 300000 and
	 * [1500200, 2000200) = 500000 of it: one stall, in two pieces */
	range(t, S_STEP, 300200, 600200, 7);
	range(t, S_STEP, 1500200, 2000400, 7);
	api(t, S_LAUNCH, 0, 10, 1, 7);
	kern(t, 0, 7, 100, 200, 1);
	api(t, S_LAUNCH, 2000200, 2000210, 2, 7);
	kern(t, 0, 7, 2000300, 2000400, 2);
	t->opt.range_name = "step";
	run(t);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 800000);
	assert_int_equal(t->res.devices[0].tl.host_stall, 800000);
	assert_int_equal(t->res.devices[0].tl.host_stalls, 1);
	assert_int_equal(t->res.devices[0].tl.input_stall, 0);
	tb_free(t);
}

/* ---- implicit syncs: pageable copies, synchronous copies, alloc -------- */

/* n kernels, one implicit row of kind/name in each gap with 1 ns of sync
 * wait, latency l: drain (n - 1)(1 + l) of 1000 (n - 1) + 100 */
static struct tb *implicit_rows(size_t n, int kind, uint32_t name, int64_t w, int64_t l)
{
	struct tb *t = tb_new();
	size_t i;

	steps(t, n, l);
	for (i = 0; i + 1 < n; i++)
		block(t, i, kind, 1, name, w);
	run(t);
	return t;
}

static void check_implicit(struct tb *t, int rule, int64_t cost, int64_t window, uint64_t count,
			   uint32_t name)
{
	const struct gs_finding *f = finding(t, rule);

	assert_int_equal(t->v.window, window);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, cost);
	assert_true(f->share == (double)cost / (double)window);
	assert_int_equal(f->count, count);
	assert_int_equal(f->api_name_id, name);
	assert_int_equal(f->tid, 1);
	assert_int_equal(f->nvtx_id, 0);
}

/* A sync finding is placed in the NVTX range that holds the most of its
 * drain, summed over its calls, not in the range of its costliest call:
 * steps() with 20 stream syncs, the one in gap 0 waiting 800 (drain 800 +
 * 100 launch latency = 900) inside range "warm'up", the 19 in gaps 1-19
 * waiting 600 (drain 700 each, 13300) inside range "step". The host
 * operator is the one over that range's costliest call (the first of the
 * equal ones: gap 1's, [2050, 2700]), on thread 1. */
static void test_sync_finding_names_the_range_with_the_most_drain(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	size_t i;
	(void)state;

	steps(t, 21, 100);
	block(t, 0, GS_SYNC_STREAM, 0, S_STREAMSYNC, 800);
	for (i = 1; i < 20; i++)
		block(t, i, GS_SYNC_STREAM, 0, S_STREAMSYNC, 600);
	range(t, S_WARM, 0, 1999, 1);
	range(t, S_STEP, 2000, 30000, 1);
	t->hranges[0] = (struct gs_hrange){
	    .start = 2000, .end = 2800, .parent = GS_NONE, .tid = 1, .name_id = S_ATEN};
	t->in.hranges = t->hranges;
	t->in.n_hranges = 1;
	run(t);
	f = finding(t, GS_RULE_SYNC_STEP);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 900 + 19 * 700);
	assert_int_equal(f->nvtx_id, S_STEP);
	assert_int_equal(f->op_id, S_ATEN);
	assert_int_equal(f->tid, 1);
	/* an aten:: operator among the host spans: a PyTorch program */
	assert_int_equal(t->v.pytorch, 1);
	assert_int_equal(f->pytorch, 1);
	assert_string_equal(gs_finding_fix(f), "defer .item()/.cpu()/print to every N steps");
	tb_free(t);
}

/* PyTorch is told by its kernels' names, demangled or mangled; a C
 * program's kernels (kA) and NVTX texts do not make it one. */
static void test_pytorch_told_by_kernel_names(void **state)
{
	static const uint32_t names[] = {S_KA, S_TORCHK, S_TORCHM};
	size_t k;
	(void)state;

	for (k = 0; k < 3; k++) {
		struct tb *t = tb_new();
		steps(t, 21, 100);
		t->ops[5].name_id = names[k];
		range(t, S_ATEN, 0, 30000, 1); /* no host span: the loader makes them */
		run(t);
		assert_int_equal(t->v.pytorch, k > 0);
		assert_int_equal(gs_trace_is_pytorch(&t->res), k > 0);
		tb_free(t);
	}
}

static void test_pageable_copies_fire_at_one_percent(void **state)
{
	/* 11 kernels, 10 rows: 10 * (1 + 10) = 110 of 10100 = 1.09% */
	struct tb *t = implicit_rows(11, GS_SYNC_IMPLICIT_PAGEABLE, S_MEMCPYASYNC, 1, 10);
	(void)state;
	check_implicit(t, GS_RULE_PAGEABLE, 110, 10100, 10, S_MEMCPYASYNC);
	tb_free(t);
}

static void test_pageable_copies_just_under_one_percent_do_not_fire(void **state)
{
	/* 10 * (1 + 9) = 100 of 10100 = 0.99% */
	struct tb *t = implicit_rows(11, GS_SYNC_IMPLICIT_PAGEABLE, S_MEMCPYASYNC, 1, 9);
	(void)state;
	assert_int_equal(t->res.syncs[0].drain_ns, 100);
	assert_null(finding(t, GS_RULE_PAGEABLE));
	tb_free(t);
}

static void test_pageable_copies_need_ten_calls(void **state)
{
	/* 10 kernels, 9 rows of 600 wait: 9 * 700 = 6300 of 9100, 9 < 10 */
	struct tb *t = implicit_rows(10, GS_SYNC_IMPLICIT_PAGEABLE, S_MEMCPYASYNC, 600, 100);
	(void)state;
	assert_int_equal(t->res.syncs[0].drain_ns, 6300);
	assert_null(finding(t, GS_RULE_PAGEABLE));
	tb_free(t);
}

static void test_synchronous_copies_fire_at_one_percent(void **state)
{
	struct tb *t = implicit_rows(11, GS_SYNC_IMPLICIT_MEMCPY, S_MEMCPY, 1, 10);
	(void)state;
	check_implicit(t, GS_RULE_SYNC_COPY, 110, 10100, 10, S_MEMCPY);
	tb_free(t);
}

static void test_synchronous_memsets_are_synchronous_copies(void **state)
{
	struct tb *t = implicit_rows(11, GS_SYNC_IMPLICIT_MEMSET, S_MEMSET, 1, 10);
	(void)state;
	check_implicit(t, GS_RULE_SYNC_COPY, 110, 10100, 10, S_MEMSET);
	tb_free(t);
}

static void test_synchronous_copies_just_under_one_percent_do_not_fire(void **state)
{
	struct tb *t = implicit_rows(11, GS_SYNC_IMPLICIT_MEMCPY, S_MEMCPY, 1, 9);
	(void)state;
	assert_int_equal(t->res.syncs[0].drain_ns, 100);
	assert_null(finding(t, GS_RULE_SYNC_COPY));
	tb_free(t);
}

static void test_synchronous_copies_need_ten_calls(void **state)
{
	struct tb *t = implicit_rows(10, GS_SYNC_IMPLICIT_MEMCPY, S_MEMCPY, 600, 100);
	(void)state;
	assert_int_equal(t->res.syncs[0].count, 9);
	assert_null(finding(t, GS_RULE_SYNC_COPY));
	tb_free(t);
}

static void test_alloc_in_loop_fires_at_five_calls_and_one_percent(void **state)
{
	/* 6 kernels, 5 rows: 5 * (1 + 10) = 55 of 5100 = 1.08% */
	struct tb *t = implicit_rows(6, GS_SYNC_IMPLICIT_ALLOC, S_MALLOC, 1, 10);
	(void)state;
	check_implicit(t, GS_RULE_ALLOC, 55, 5100, 5, S_MALLOC);
	tb_free(t);
}

static void test_alloc_in_loop_just_under_one_percent_does_not_fire(void **state)
{
	/* 5 * (1 + 9) = 50 of 5100 = 0.98% */
	struct tb *t = implicit_rows(6, GS_SYNC_IMPLICIT_ALLOC, S_MALLOC, 1, 9);
	(void)state;
	assert_int_equal(t->res.syncs[0].drain_ns, 50);
	assert_null(finding(t, GS_RULE_ALLOC));
	tb_free(t);
}

static void test_alloc_in_loop_needs_five_calls(void **state)
{
	/* 5 kernels, 4 rows: 4 * 700 = 2800 of 4100, 4 < 5 */
	struct tb *t = implicit_rows(5, GS_SYNC_IMPLICIT_ALLOC, S_MALLOC, 600, 100);
	(void)state;
	assert_int_equal(t->res.syncs[0].drain_ns, 2800);
	assert_null(finding(t, GS_RULE_ALLOC));
	tb_free(t);
}

/* ---- legacy default stream ---------------------------------------------- */

static void test_legacy_stream_fires_on_any_row(void **state)
{
	struct tb *t = tb_new(), *u = tb_new();
	const struct gs_finding *f;
	(void)state;
	/* launches into the legacy default stream while another stream
	 * runs: the collector's implicit rows (kind 21) on the launch calls.
	 * The rule has no threshold: 2 rows fire it. A kernel launch is no
	 * wait of the host, so its drain, the cost, is 0. K0 [100,200] and
	 * K1 [300,400] launched early (calls [10,20], [30,40]): launch
	 * latency 100 of 300 = 33.3%, the launch finding (100) first. */
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	sync_row(t, GS_SYNC_IMPLICIT_LEGACY_STREAM, 1, S_LAUNCH, 10, 20, 1, 0);
	sync_row(t, GS_SYNC_IMPLICIT_LEGACY_STREAM, 1, S_LAUNCH, 30, 40, 1, 0);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300, 400, 2);
	run(t);
	assert_int_equal(t->v.n_findings, 2);
	assert_int_equal(t->v.findings[0].rule, GS_RULE_LAUNCH);
	assert_int_equal(t->v.findings[0].cost_ns, 100);
	f = &t->v.findings[1];
	assert_int_equal(f->rule, GS_RULE_LEGACY);
	assert_int_equal(f->cost_ns, 0);
	assert_true(f->share == 0.0);
	assert_int_equal(f->count, 2);
	assert_int_equal(f->api_name_id, S_LAUNCH);
	/* the same without the rows: only the launch finding */
	api(u, S_LAUNCH, 10, 20, 1, 1);
	api(u, S_LAUNCH, 30, 40, 2, 1);
	kern(u, 0, 7, 100, 200, 1);
	kern(u, 0, 7, 300, 400, 2);
	run(u);
	assert_int_equal(u->v.n_findings, 1);
	assert_null(finding(u, GS_RULE_LEGACY));
	tb_free(t);
	tb_free(u);
}

static void test_legacy_stream_copy_costs_its_drain(void **state)
{
	/* a synchronous cudaMemcpy on the legacy stream blocks: 10 gaps
	 * with 1 ns wait, latency 10: drain 10 * 11 = 110 */
	struct tb *t = implicit_rows(11, GS_SYNC_IMPLICIT_LEGACY_STREAM, S_MEMCPY, 1, 10);
	(void)state;
	check_implicit(t, GS_RULE_LEGACY, 110, 10100, 10, S_MEMCPY);
	tb_free(t);
}

/* ---- short kernels -------------------------------------------------------- */

/* n kernels on stream 7 (thread 3), n_short of duration 900 then n - n_short
 * of 1000, one after another with `gap` ns between; all launched long
 * before (call i at [2i, 2i+1]): every gap is launch latency. Launch cost
 * 1000 (option): 900 is short, 1000 is not. Window = sum of durations +
 * (n - 1) gap; launch share = (n - 1) gap / window. */
static struct tb *tiny(size_t n, size_t n_short, int64_t gap)
{
	struct tb *t = tb_new();
	int64_t s = 1000;
	size_t i;

	t->opt.launch_cost_ns = 1000;
	for (i = 0; i < n; i++) {
		int64_t d = i < n_short ? 900 : 1000;
		api(t, S_LAUNCH, 2 * (int64_t)i, 2 * (int64_t)i + 1, (uint32_t)i + 1, 3);
		kern(t, 0, 7, s, s + d, (uint32_t)i + 1);
		s += d + gap;
	}
	run(t);
	assert_int_equal(t->res.n_kernel_ops, n);
	assert_int_equal(t->res.n_short_kernels, n_short);
	return t;
}

static void test_short_kernels_fire_below_the_launch_rule(void **state)
{
	struct tb *t = tiny(100, 100, 227);
	const struct gs_finding *f;
	(void)state;
	/* 99 gaps of 227 = 22473 of 90000 + 22473 = 112473: launch share
	 * 19.98% (>= 10%, < 20%), 100 kernels, all short */
	assert_int_equal(t->v.window, 112473);
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_SHORT_KERNELS);
	assert_int_equal(f->cost_ns, 22473); /* the launch latency */
	assert_true(f->share == 22473.0 / 112473.0);
	assert_int_equal(f->count, 100);
	assert_int_equal(f->api_name_id, 0);
	assert_int_equal(f->tid, 0);
	tb_free(t);
}

static void test_short_kernels_leave_graph_nodes_out(void **state)
{
	struct tb *t = tb_new();
	int64_t s = 1000;
	size_t i;
	(void)state;
	/* tiny(100, 100, 227) with its last 50 kernels nodes of one graph:
	 * the same window (112473) and launch share (19.98%), but only 50
	 * kernels launched one by one, under the rule's 100 */
	t->opt.launch_cost_ns = 1000;
	for (i = 0; i < 100; i++) {
		api(t, S_LAUNCH, 2 * (int64_t)i, 2 * (int64_t)i + 1, (uint32_t)i + 1, 3);
		kern(t, 0, 7, s, s + 900, (uint32_t)i + 1);
		if (i >= 50)
			t->ops[i].graph_id = 9;
		s += 900 + 227;
	}
	run(t);
	assert_int_equal(t->v.window, 112473);
	assert_int_equal(t->res.n_kernel_ops, 100);
	assert_int_equal(t->res.n_launched_kernels, 50);
	assert_int_equal(t->res.n_short_kernels, 50);
	assert_null(finding(t, GS_RULE_SHORT_KERNELS));
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

static void test_short_kernels_silent_when_launch_rule_fired(void **state)
{
	struct tb *t = tiny(100, 100, 228);
	const struct gs_finding *f;
	(void)state;
	/* 99 * 228 = 22572 of 112572 = 20.05%: the launch finding names the
	 * same idle; no short-kernels finding */
	assert_int_equal(t->v.n_findings, 1);
	f = &t->v.findings[0];
	assert_int_equal(f->rule, GS_RULE_LAUNCH);
	assert_int_equal(f->cost_ns, 22572);
	assert_true(f->share == 22572.0 / 112572.0);
	/* where: the largest launch-latency top gap (all 228 ns: the first
	 * of them), launched by thread 3 */
	assert_int_equal(f->tid, 3);
	assert_null(finding(t, GS_RULE_SHORT_KERNELS));
	tb_free(t);
}

static void test_short_kernels_need_ten_percent_launch_share(void **state)
{
	struct tb *t = tiny(100, 100, 101), *u = tiny(100, 100, 102);
	(void)state;
	/* 99 * 101 = 9999 of 99999 = 9.9991%: no; 99 * 102 = 10098 of 100098
	 * = 10.09%: yes */
	assert_int_equal(t->v.n_findings, 0);
	assert_int_equal(u->v.n_findings, 1);
	assert_int_equal(u->v.findings[0].rule, GS_RULE_SHORT_KERNELS);
	assert_int_equal(u->v.findings[0].cost_ns, 10098);
	tb_free(t);
	tb_free(u);
}

static void test_short_kernels_need_half_of_the_kernels_short(void **state)
{
	struct tb *t = tiny(100, 49, 200), *u = tiny(100, 50, 200);
	(void)state;
	/* 49 short: 19800 of 44100 + 51000 + 19800 = 114900 (17.2%), short
	 * share 0.49: no. 50 short: 19800 of 114800, share 0.50: fires */
	assert_int_equal(t->v.n_findings, 0);
	assert_int_equal(u->v.window, 114800);
	assert_int_equal(u->v.n_findings, 1);
	assert_int_equal(u->v.findings[0].rule, GS_RULE_SHORT_KERNELS);
	assert_int_equal(u->v.findings[0].cost_ns, 19800);
	assert_int_equal(u->v.findings[0].count, 50);
	tb_free(t);
	tb_free(u);
}

static void test_short_kernels_need_a_hundred_kernels(void **state)
{
	struct tb *t = tiny(99, 99, 200);
	(void)state;
	/* 98 * 200 = 19600 of 89100 + 19600 = 108700 (18.0%), all short, but
	 * 99 < 100 kernels */
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

/* ---- order, the cap on findings ------------------------------------- */

static void test_findings_are_the_four_costliest_in_order(void **state)
{
	struct tb *t = tb_new();
	size_t i;
	(void)state;
	/* 61 kernels, 60 gaps of 900, each with 300 launch latency; window
	 * 60100. In the gaps (sync wait w, host 600 - w):
	 *   0-19  cudaStreamSynchronize w 100: drain 20 * 400 = 8000, host 10000
	 *   20-39 pageable cudaMemcpyAsync w 300: drain 20 * 600 = 12000, host 6000
	 *   40-49 cudaMemcpy w 600: drain 10 * 900 = 9000, host 0
	 *   50-54 cudaMalloc w 500: drain 5 * 800 = 4000, host 500
	 *   55-59 nothing: host 5 * 600 = 3000
	 * Host code 19500 (32.4%), launch 60 * 300 = 18000 (29.95%).
	 * Candidates: host 19500, launch 18000, pageable 12000, memcpy 9000,
	 * sync 8000, alloc 4000: the first four are kept, in that order
	 * (the explicit sync is added before the copies and drops out). */
	steps(t, 61, 300);
	for (i = 0; i < 20; i++)
		block(t, i, GS_SYNC_STREAM, 0, S_STREAMSYNC, 100);
	for (i = 20; i < 40; i++)
		block(t, i, GS_SYNC_IMPLICIT_PAGEABLE, 1, S_MEMCPYASYNC, 300);
	for (i = 40; i < 50; i++)
		block(t, i, GS_SYNC_IMPLICIT_MEMCPY, 1, S_MEMCPY, 600);
	for (i = 50; i < 55; i++)
		block(t, i, GS_SYNC_IMPLICIT_ALLOC, 1, S_MALLOC, 500);
	t->opt.top_n = 100; /* every gap a top gap: where is well defined */
	run(t);
	assert_int_equal(t->v.window, 60100);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 19500);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 18000);
	assert_int_equal(t->v.n_findings, GS_VERDICT_FINDINGS);
	assert_int_equal(t->v.findings[0].rule, GS_RULE_HOST_CODE);
	assert_int_equal(t->v.findings[0].cost_ns, 19500);
	assert_int_equal(t->v.findings[0].tid, 1);
	assert_int_equal(t->v.findings[1].rule, GS_RULE_LAUNCH);
	assert_int_equal(t->v.findings[1].cost_ns, 18000);
	/* where: no NVTX range; the thread of the gap with the most launch
	 * latency (every gap has 300, after thread 1's launch call), though
	 * no gap's largest segment is launch latency (300 at most, beside
	 * host 500/600 or a tie that goes to sync wait) */
	assert_int_equal(t->v.findings[1].tid, 1);
	assert_int_equal(t->v.findings[1].nvtx_id, 0);
	assert_int_equal(t->v.findings[2].rule, GS_RULE_PAGEABLE);
	assert_int_equal(t->v.findings[2].cost_ns, 12000);
	assert_int_equal(t->v.findings[2].count, 20);
	assert_int_equal(t->v.findings[3].rule, GS_RULE_SYNC_COPY);
	assert_int_equal(t->v.findings[3].cost_ns, 9000);
	assert_int_equal(t->v.findings[3].count, 10);
	for (i = 0; i < GS_VERDICT_FINDINGS; i++)
		assert_true(t->v.findings[i].share == (double)t->v.findings[i].cost_ns / 60100.0);
	assert_null(finding(t, GS_RULE_SYNC_STEP));
	assert_null(finding(t, GS_RULE_ALLOC));
	tb_free(t);
}

static void test_equal_costs_go_to_the_lower_rule(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* 21 kernels, latency 100. Gaps 0-9: cudaMalloc [g0-80, g0+300],
	 * gaps 10-19: pageable cudaMemcpyAsync [g0-50, g0+300]: both drain
	 * 10 * 400 = 4000 (the malloc blocks longer: 3800 vs 3500, so it
	 * comes first in the sync table). Host 20 * 500 = 10000 (49.8%).
	 * Order: host code, then pageable (rule 3) before alloc (rule 5). */
	steps(t, 21, 100);
	for (size_t i = 0; i < 10; i++)
		block_at(t, i, GS_SYNC_IMPLICIT_ALLOC, 1, S_MALLOC, -80, 300);
	for (size_t i = 10; i < 20; i++)
		block(t, i, GS_SYNC_IMPLICIT_PAGEABLE, 1, S_MEMCPYASYNC, 300);
	run(t);
	assert_int_equal(t->res.syncs[0].kind, GS_SYNC_IMPLICIT_ALLOC);
	assert_int_equal(t->res.syncs[0].blocked_ns, 3800);
	assert_int_equal(t->v.n_findings, 3);
	assert_int_equal(t->v.findings[0].rule, GS_RULE_HOST_CODE);
	assert_int_equal(t->v.findings[0].cost_ns, 10000);
	assert_int_equal(t->v.findings[1].rule, GS_RULE_PAGEABLE);
	assert_int_equal(t->v.findings[1].cost_ns, 4000);
	assert_int_equal(t->v.findings[2].rule, GS_RULE_ALLOC);
	assert_int_equal(t->v.findings[2].cost_ns, 4000);
	tb_free(t);
}

static void test_cause_order_is_by_idle_then_enum_order(void **state)
{
	struct tb *t = tb_new();
	int seen[GS_CAUSE_COUNT] = {0}, k;
	(void)state;
	/* device 0, thread 1:
	 *   K0 [100,200] (call [10,20]);
	 *   gap [200,300) before K1 (call [240,241], late): host [200,210)
	 *     10, cudaMalloc [210,230) CUDA API 20, host [230,240) 10,
	 *     launch latency [240,300) 60;
	 *   K1 [300,400];
	 *   gap [400,700) before K2 (no launch call: corr 99): other 300;
	 *   K2 [700,800].
	 * Idle: other 300, latency 60, CUDA API 20, host code 20, the rest 0.
	 * Order: other, latency, CUDA API before host code (tie: enum), then
	 * sync wait, graph-internal, dependency. */
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_MALLOC, 210, 230, 50, 1);
	api(t, S_LAUNCH, 240, 241, 2, 1);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300, 400, 2);
	kern(t, 0, 7, 700, 800, 99);
	run(t);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_OTHER], 300);
	assert_int_equal(t->v.cause_order[0], GS_CAUSE_OTHER);
	assert_int_equal(t->v.cause_order[1], GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(t->v.cause_order[2], GS_CAUSE_CUDA_API);
	assert_int_equal(t->v.cause_order[3], GS_CAUSE_HOST_CODE);
	assert_int_equal(t->v.cause_order[4], GS_CAUSE_SYNC_WAIT);
	assert_int_equal(t->v.cause_order[5], GS_CAUSE_GRAPH_INTERNAL);
	assert_int_equal(t->v.cause_order[6], GS_CAUSE_DEPENDENCY);
	for (k = 0; k < GS_CAUSE_COUNT; k++)
		seen[t->v.cause_order[k]]++;
	for (k = 0; k < GS_CAUSE_COUNT; k++)
		assert_int_equal(seen[k], 1); /* a permutation */
	/* window 700, idle 400 (57.1%), launch (60 + 0 + 0) / 700 = 8.6%, host
	 * code 20 / 700 = 2.9%: no finding of theirs; other 300 / 700 = 42.9%
	 * >= 20%, all of it before K2, which has no launch call: the
	 * no-launch-calls one (the trace lacks the calls, not a wait) */
	assert_int_equal(t->v.n_findings, 1);
	assert_int_equal(t->v.findings[0].rule, GS_RULE_NO_LAUNCH_CALLS);
	assert_int_equal(t->v.findings[0].cost_ns, 300);
	tb_free(t);
}

/* K0 [100,200] (call [10,20]), K1 [300,400] (call [290,291], late: launch
 * latency 10, host 90), K2 [400 + o, 500 + o] with no launch call: other
 * o. Window 400 + o. */
static struct tb *other_gap(int64_t o)
{
	struct tb *t = tb_new();
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 290, 291, 2, 1);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300, 400, 2);
	kern(t, 0, 7, 400 + o, 500 + o, 99);
	run(t);
	return t;
}

static void test_no_launch_calls_at_a_fifth_fires(void **state)
{
	struct tb *t = other_gap(100);
	(void)state;
	/* other 100 / 500 = 20% (>= 0.20), all before K2 (no launch call):
	 * fires as no_launch_calls, cost 100; host code 90 / 500 = 18%,
	 * launch 10 / 500 = 2%: nothing else */
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_OTHER], 100);
	assert_int_equal(t->res.devices[0].tl.other_no_call, 100);
	assert_int_equal(t->v.n_findings, 1);
	assert_int_equal(t->v.findings[0].rule, GS_RULE_NO_LAUNCH_CALLS);
	assert_int_equal(t->v.findings[0].cost_ns, 100);
	assert_string_equal(gs_rule_key(GS_RULE_NO_LAUNCH_CALLS), "no_launch_calls");
	tb_free(t);
	/* 99 / 499 = 19.8%: no finding */
	t = other_gap(99);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_OTHER], 99);
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

static void test_queued_op_held_is_unexplained(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* K0 [100,200] (call [10,20]); K1's call [30,40] had returned when
	 * the GPU went idle at 200, and K1 starts 200000 ns later: other
	 * 150000, launch latency (dispatch) 50000. Window [100, 200300] =
	 * 200200: other 74.9% -> unexplained (its op has a launch call: a
	 * wait the trace does not hold), cost 150000; launch 50000 / 200200
	 * = 25.0% -> launch overhead, 50000, after it */
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_LAUNCH, 30, 40, 2, 1);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 200200, 200300, 2);
	run(t);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_OTHER], 150000);
	assert_int_equal(t->res.devices[0].tl.other_no_call, 0);
	assert_int_equal(t->v.n_findings, 2);
	assert_int_equal(t->v.findings[0].rule, GS_RULE_UNEXPLAINED);
	assert_int_equal(t->v.findings[0].cost_ns, 150000);
	assert_string_equal(gs_rule_key(GS_RULE_UNEXPLAINED), "unexplained");
	assert_int_equal(t->v.findings[1].rule, GS_RULE_LAUNCH);
	assert_int_equal(t->v.findings[1].cost_ns, 50000);
	tb_free(t);
}

/* ---- a synchronous copy in a host-late gap --------------------------- */

static void test_synchronous_copy_is_sync_wait_not_launch_time(void **state)
{
	struct tb *t = tb_new();
	struct gs_segment seg[8];
	size_t n;
	(void)state;
	/* thread 1: K0 [100,200] (call [10,20]); in the gap cudaMalloc
	 * [210,230] (an API call, no sync row), then cudaMemcpy [230,280]
	 * (API call and its implicit memcpy row; it launches a copy the trace
	 * does not hold), then K1's call [290,291]; K1 [300,400].
	 * Gap [200,300), host late: the calls touch, one stretch [210,280]:
	 *   host code [200,210) 10
	 *   CUDA API [210,230) 20 (the malloc)
	 *   sync wait [230,280) 50 (the copy: in the sync cover)
	 *   host code [280,290) 10
	 *   launch latency [290,300) 10
	 * The copy is a launch API by name but GS_APIF_SYNC_COPY: the
	 * stretch's launch time is 0, so launch_calls is 0 (taking the copy
	 * as launch time would have put min(50, 20) = 20 of the malloc's CUDA
	 * API time there). */
	api(t, S_LAUNCH, 10, 20, 1, 1);
	api(t, S_MALLOC, 210, 230, 50, 1);
	api(t, S_MEMCPY, 230, 280, 51, 1);
	sync_row(t, GS_SYNC_IMPLICIT_MEMCPY, 1, S_MEMCPY, 230, 280, 1, 0);
	api(t, S_LAUNCH, 290, 291, 2, 1);
	kern(t, 0, 7, 100, 200, 1);
	kern(t, 0, 7, 300, 400, 2);
	run(t);
	assert_true(gs_api_classify("cudaMemcpy") & GS_APIF_SYNC_COPY);
	assert_true(gs_api_classify("cudaMemcpy") & GS_APIF_LAUNCH);
	assert_false(gs_api_classify("cudaMemcpyAsync") & GS_APIF_SYNC_COPY);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_SYNC_WAIT], 50);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_CUDA_API], 20);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_HOST_CODE], 20);
	assert_int_equal(t->res.devices[0].tl.idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 10);
	assert_int_equal(t->res.devices[0].tl.launch_calls, 0);
	/* window [100,400] = 300: launch overhead share (10 + 0 + 0) / 300 */
	assert_true(t->res.devices[0].tl.launch_overhead_share == 10.0 / 300.0);
	n = gs_gap_segments(&t->res, &t->res.devices[0].gaps[0], seg, 8);
	assert_int_equal(n, 5);
	assert_int_equal(seg[0].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(seg[1].cause, GS_CAUSE_CUDA_API);
	assert_int_equal(seg[1].start, 210);
	assert_int_equal(seg[1].end, 230);
	assert_int_equal(seg[2].cause, GS_CAUSE_SYNC_WAIT);
	assert_int_equal(seg[2].start, 230);
	assert_int_equal(seg[2].end, 280);
	assert_int_equal(seg[3].cause, GS_CAUSE_HOST_CODE);
	assert_int_equal(seg[4].cause, GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(seg[4].start, 290);
	/* the copy's group: GPU idle 50, drain 50 + 10 = 60 */
	assert_int_equal(t->res.n_syncs, 1);
	assert_int_equal(t->res.syncs[0].gpu_idle_ns, 50);
	assert_int_equal(t->res.syncs[0].drain_ns, 60);
	/* the verdict: sync wait first, then CUDA API, host code (tie: enum
	 * order), launch latency; 1 call < 10: no finding; launch 10 / 300,
	 * host 20 / 300: none */
	assert_int_equal(t->v.cause_order[0], GS_CAUSE_SYNC_WAIT);
	assert_int_equal(t->v.cause_order[1], GS_CAUSE_CUDA_API);
	assert_int_equal(t->v.cause_order[2], GS_CAUSE_HOST_CODE);
	assert_int_equal(t->v.cause_order[3], GS_CAUSE_LAUNCH_LATENCY);
	assert_int_equal(t->v.n_findings, 0);
	tb_free(t);
}

/* ---- names ------------------------------------------------------------- */

/* ---- the window outside the NVTX ranges ------------------------------- */

/* kernels [0, 100] and [999900, 1000000] on device 0: a window of 1000000 */
static void two_kernels(struct tb *t)
{
	kern(t, 0, 7, 0, 100, 1);
	kern(t, 0, 7, 999900, 1000000, 2);
}

static void test_outside_ranges_note_at_half_the_window(void **state)
{
	struct tb *t = tb_new();
	char arg[64];
	(void)state;
	/* "step" [500000, 700000] and [600000, 1100000]: their union in the
	 * window is [500000, 1000000] = 500000, so 500000 of 1000000 lies
	 * outside: half, the note's threshold. Wall 200000 + 500000 */
	two_kernels(t);
	range(t, S_STEP, 500000, 700000, 7);
	range(t, S_STEP, 600000, 1100000, 7);
	run(t);
	assert_int_equal(t->v.window, 1000000);
	assert_int_equal(t->v.outside_ns, 500000);
	assert_int_equal(t->v.outside_note, 1);
	assert_int_equal(t->v.range_text_id, S_STEP);
	assert_int_equal(t->v.range_family, 0);
	assert_int_equal(t->v.range_count, 2);
	assert_int_equal(t->v.range_inside_ns, 500000);
	assert_int_equal(report_range_arg(arg, sizeof(arg), &t->in, &t->v), 1);
	assert_string_equal(arg, "step");
	tb_free(t);
}

static void test_outside_ranges_just_under_half_has_no_note(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* "step" [499999, 1000000]: 500001 inside, 499999 outside */
	two_kernels(t);
	range(t, S_STEP, 499999, 1000000, 7);
	run(t);
	assert_int_equal(t->v.outside_ns, 499999);
	assert_int_equal(t->v.outside_note, 0);
	assert_int_equal(t->v.range_inside_ns, 500001);
	tb_free(t);
}

static void test_outside_ranges_name_the_numbered_family_of_most_wall(void **state)
{
	struct tb *t = tb_new();
	char arg[64];
	char *name;
	(void)state;
	/* ProfilerStep#1 [100000, 300000] and #2 [300000, 500000] (200000
	 * each, 400000 as a family) against warm'up [0, 350000] (350000):
	 * the family. All ranges' union [0, 500000]: 500000 outside. A mark
	 * covers nothing */
	two_kernels(t);
	range(t, S_WARM, 0, 350000, 7);
	range(t, S_PS1, 100000, 300000, 7);
	range(t, S_PS2, 300000, 500000, 7);
	range(t, S_STEP, 600000, 600000, 7);
	t->nvtx[3].kind = GS_NVTX_MARK;
	run(t);
	assert_int_equal(t->v.outside_ns, 500000);
	assert_int_equal(t->v.outside_note, 1);
	assert_int_equal(t->v.range_text_id, S_PS1);
	assert_int_equal(t->v.range_family, 1);
	assert_int_equal(t->v.range_count, 2);
	assert_int_equal(t->v.range_inside_ns, 400000);
	name = report_range_name(&t->in, &t->v);
	assert_string_equal(name, "ProfilerStep#*");
	free(name);
	assert_int_equal(report_range_arg(arg, sizeof(arg), &t->in, &t->v), 1);
	assert_string_equal(arg, "'ProfilerStep#*'");
	tb_free(t);
}

static void test_outside_ranges_quote_and_long_names(void **state)
{
	struct tb *t = tb_new();
	char arg[256];
	(void)state;
	/* warm'up [0, 450000] has the most wall (450000 against 200000) */
	two_kernels(t);
	range(t, S_WARM, 0, 450000, 7);
	range(t, S_PS1, 100000, 300000, 7);
	run(t);
	assert_int_equal(t->v.range_text_id, S_WARM);
	assert_int_equal(t->v.range_family, 0);
	assert_int_equal(report_range_arg(arg, sizeof(arg), &t->in, &t->v), 1);
	assert_string_equal(arg, "'warm'\\''up'");
	/* 4 * 7 + 3 bytes are needed for a 7-byte name */
	assert_int_equal(report_range_arg(arg, 30, &t->in, &t->v), 0);
	tb_free(t);

	t = tb_new();
	two_kernels(t);
	range(t, S_LONG, 0, 100000, 7);
	run(t);
	assert_int_equal(t->v.range_text_id, S_LONG);
	assert_int_equal(report_range_arg(arg, sizeof(arg), &t->in, &t->v), 0);
	tb_free(t);
}

static void test_outside_ranges_sum_over_devices(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	/* device 0 [0, 1000000], device 1 [400000, 600000]; "step"
	 * [500000, 1000000] covers 500000 and 100000 of them: 600000 of
	 * 1200000 inside */
	two_kernels(t);
	kern(t, 1, 9, 400000, 600000, 3);
	range(t, S_STEP, 500000, 1000000, 7);
	run(t);
	assert_int_equal(t->v.window, 1200000);
	assert_int_equal(t->v.outside_ns, 600000);
	assert_int_equal(t->v.range_inside_ns, 600000);
	assert_int_equal(t->v.outside_note, 1);
	tb_free(t);
}

static void test_outside_ranges_none_on_a_range_selection_or_without_ranges(void **state)
{
	struct tb *t = tb_new();
	(void)state;
	two_kernels(t);
	range(t, S_STEP, 500000, 600000, 7);
	t->opt.range_name = "step";
	run(t);
	assert_int_equal(t->v.outside_ns, 0);
	assert_int_equal(t->v.outside_note, 0);
	assert_int_equal(t->v.range_text_id, 0);
	tb_free(t);

	t = tb_new();
	two_kernels(t);
	run(t);
	assert_int_equal(t->v.outside_ns, 0);
	assert_int_equal(t->v.outside_note, 0);
	assert_int_equal(t->v.range_count, 0);
	tb_free(t);
}

static void test_rule_names_and_fixes(void **state)
{
	static const char *const keys[GS_RULE_COUNT] = {
	    "host_code",	 "launch_overhead",
	    "sync_every_step",	 "pageable_copies",
	    "sync_copies",	 "alloc_in_loop",
	    "legacy_stream",	 "dependency",
	    "short_kernels",	 "graph_launch_overhead",
	    "slow_launch_calls", "unexplained",
	    "no_launch_calls",	 "input_wait",
	    "host_stalls",	 "startup_stalls",
	    "warmup",		 "host_own_work",
	    "exposed_communication", "tracing_cost"};
	int r;
	(void)state;
	for (r = 0; r < GS_RULE_COUNT; r++) {
		assert_string_equal(gs_rule_key(r), keys[r]);
		assert_true(strlen(gs_rule_title(r)) > 0);
		assert_true(strlen(gs_rule_fix(r)) > 0);
	}
	assert_string_equal(gs_rule_title(GS_RULE_SYNC_STEP), "a sync every step drains the GPU");
	assert_string_equal(gs_rule_fix(GS_RULE_SYNC_STEP), "sync every N steps, not every step");
	/* a rule without PyTorch words of its own gives its fix to both */
	{
		struct gs_finding f = {.rule = GS_RULE_DEPENDENCY, .pytorch = 1};
		assert_string_equal(gs_finding_fix(&f), gs_rule_fix(GS_RULE_DEPENDENCY));
		f.rule = GS_RULE_LAUNCH;
		assert_string_equal(gs_finding_fix(&f),
				    "fewer, larger kernels (torch.compile) or CUDA Graphs");
		f.rule = GS_RULE_ALLOC;
		assert_string_equal(gs_finding_fix(&f),
				    "keep PyTorch's cache: fixed shapes, no empty_cache()");
		f.pytorch = 0;
		assert_string_equal(gs_finding_fix(&f),
				    "allocate once and reuse (a caching allocator)");
	}
	assert_string_equal(gs_rule_key(-1), "unknown");
	assert_string_equal(gs_rule_title(GS_RULE_COUNT), "unknown");
	assert_string_equal(gs_rule_fix(GS_RULE_COUNT), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_code_at_a_fifth_of_the_window_fires),
	    cmocka_unit_test(test_host_code_just_under_a_fifth_does_not_fire),
	    cmocka_unit_test(test_launch_overhead_at_a_fifth_fires_with_launch_calls),
	    cmocka_unit_test(test_launch_overhead_named_after_the_range_with_the_most),
	    cmocka_unit_test(test_launch_overhead_before_graph_launches_is_its_own_finding),
	    cmocka_unit_test(test_launch_overhead_just_under_a_fifth_does_not_fire),
	    cmocka_unit_test(test_dependency_at_a_fifth_fires),
	    cmocka_unit_test(test_dependency_just_under_a_fifth_does_not_fire),
	    cmocka_unit_test(test_sync_every_step_fires_at_twenty_calls),
	    cmocka_unit_test(test_sync_finding_names_the_range_with_the_most_drain),
	    cmocka_unit_test(test_pytorch_told_by_kernel_names),
	    cmocka_unit_test(test_sync_every_step_needs_twenty_calls),
	    cmocka_unit_test(test_sync_every_step_counts_the_refill_latency),
	    cmocka_unit_test(test_sync_every_step_just_under_five_percent_does_not_fire),
	    cmocka_unit_test(test_sync_calls_of_one_gap_share_its_drain),
	    cmocka_unit_test(test_two_groups_in_one_gap_do_not_both_take_it),
	    cmocka_unit_test(test_a_launch_call_of_1ms_is_no_launch_overhead),
	    cmocka_unit_test(test_a_launch_call_under_1ms_is_launch_overhead),
	    cmocka_unit_test(test_time_inside_a_launch_call_of_1ms_is_no_launch_overhead),
	    cmocka_unit_test(test_host_stalls_are_no_per_launch_overhead),
	    cmocka_unit_test(test_stalls_before_the_first_range_are_startup),
	    cmocka_unit_test(test_a_range_keeps_a_cut_stall),
	    cmocka_unit_test(test_no_launch_calls_at_a_fifth_fires),
	    cmocka_unit_test(test_queued_op_held_is_unexplained),
	    cmocka_unit_test(test_polls_and_device_wide_calls_are_no_finding),
	    cmocka_unit_test(test_pageable_copies_fire_at_one_percent),
	    cmocka_unit_test(test_pageable_copies_just_under_one_percent_do_not_fire),
	    cmocka_unit_test(test_pageable_copies_need_ten_calls),
	    cmocka_unit_test(test_synchronous_copies_fire_at_one_percent),
	    cmocka_unit_test(test_synchronous_memsets_are_synchronous_copies),
	    cmocka_unit_test(test_synchronous_copies_just_under_one_percent_do_not_fire),
	    cmocka_unit_test(test_synchronous_copies_need_ten_calls),
	    cmocka_unit_test(test_alloc_in_loop_fires_at_five_calls_and_one_percent),
	    cmocka_unit_test(test_alloc_in_loop_just_under_one_percent_does_not_fire),
	    cmocka_unit_test(test_alloc_in_loop_needs_five_calls),
	    cmocka_unit_test(test_legacy_stream_fires_on_any_row),
	    cmocka_unit_test(test_legacy_stream_copy_costs_its_drain),
	    cmocka_unit_test(test_short_kernels_fire_below_the_launch_rule),
	    cmocka_unit_test(test_short_kernels_leave_graph_nodes_out),
	    cmocka_unit_test(test_short_kernels_silent_when_launch_rule_fired),
	    cmocka_unit_test(test_short_kernels_need_ten_percent_launch_share),
	    cmocka_unit_test(test_short_kernels_need_half_of_the_kernels_short),
	    cmocka_unit_test(test_short_kernels_need_a_hundred_kernels),
	    cmocka_unit_test(test_findings_are_the_four_costliest_in_order),
	    cmocka_unit_test(test_equal_costs_go_to_the_lower_rule),
	    cmocka_unit_test(test_cause_order_is_by_idle_then_enum_order),
	    cmocka_unit_test(test_synchronous_copy_is_sync_wait_not_launch_time),
	    cmocka_unit_test(test_outside_ranges_note_at_half_the_window),
	    cmocka_unit_test(test_outside_ranges_just_under_half_has_no_note),
	    cmocka_unit_test(test_outside_ranges_name_the_numbered_family_of_most_wall),
	    cmocka_unit_test(test_outside_ranges_quote_and_long_names),
	    cmocka_unit_test(test_outside_ranges_sum_over_devices),
	    cmocka_unit_test(test_outside_ranges_none_on_a_range_selection_or_without_ranges),
	    cmocka_unit_test(test_rule_names_and_fixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
