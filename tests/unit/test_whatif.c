/*
 * test_whatif.c - cmocka tests of the what-if replay model (whatif.h) on
 * hand-built timelines. Each timeline is a loop of steps whose times are
 * written out below; the replay without fixes must give every op's start
 * back exactly, and each fix's saving is worked out by hand in the comment
 * beside its assertion (docs/metrics.md, "The what-if model"). No I/O.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "gapscope/trace_format.h"
#include "whatif.h"

enum {
	S_LAUNCH = 1,
	S_SYNC,
	S_MALLOC,
	S_MEMCPYASYNC,
	S_KA,
	S_KB,
	S_KC,
	S_RECORD,
	S_WAIT,
	S_NCCL,
	S_BACKWARD,
	S_UNFLAT,
	S_ATEN_ADD,
	S_N
};
static const char *strtab[S_N] = {
    NULL,
    "cudaLaunchKernel",
    "cudaStreamSynchronize",
    "cudaMalloc",
    "cudaMemcpyAsync",
    "kA",
    "kB",
    "kC",
    "cudaEventRecord",
    "cudaStreamWaitEvent",
    "ncclDevKernel_AllReduce_Sum_f32",
    "## backward ##",
    "aten::unflatten_dense_tensors",
    "aten::add",
};

#define US 1000
#define T0 1000000 /* 1 ms: the first call */
#define TID 7
#define STREAM 13

struct tb {
	struct gs_op ops[128];
	struct gs_api apis[256];
	struct gs_sync syncs[64];
	struct gs_event events[16];
	struct gs_nvtx nvtx[48];
	struct gs_hrange hr[16];
	size_t no, na, ns, nev, nn, nh;
	uint32_t corr;
	struct gs_input in;
	struct gs_result res;
	int analysed;
};

static struct tb *tb_new(void)
{
	struct tb *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->in.strings.v = strtab;
	t->in.strings.n = S_N;
	t->in.kernel_overhead_ns = -1;
	t->in.ref_launch_spaced_ns = -1;
	return t;
}

/* a call [s, e) of name; returns its correlation id */
static uint32_t call(struct tb *t, uint32_t name, int64_t s, int64_t e)
{
	struct gs_api *a = &t->apis[t->na++];
	a->start = s;
	a->end = e;
	a->corr = ++t->corr;
	a->name_id = name;
	a->tid = TID;
	return a->corr;
}

static void op(struct tb *t, uint8_t kind, uint32_t name, uint32_t corr, int64_t s, int64_t e,
	       uint8_t flags)
{
	struct gs_op *o = &t->ops[t->no++];
	o->start = s;
	o->end = e;
	o->corr = corr;
	o->name_id = name;
	o->stream = STREAM;
	o->kind = kind;
	o->flags = flags;
}

static void sync_row(struct tb *t, uint32_t corr, uint32_t api, uint8_t kind, int implicit,
		     int64_t s, int64_t e)
{
	struct gs_sync *y = &t->syncs[t->ns++];
	y->start = s;
	y->end = e;
	y->tid = TID;
	y->stream = STREAM;
	y->corr = corr;
	y->api_name_id = api;
	y->kind = kind;
	y->implicit = (uint8_t)implicit;
	y->device = 0;
}

/* an NVTX range [s, e) of text on thread tid (add them by start) */
static void range(struct tb *t, uint32_t text, uint32_t tid, int64_t s, int64_t e)
{
	struct gs_nvtx *r = &t->nvtx[t->nn++];
	assert_true(t->nn <= sizeof(t->nvtx) / sizeof(t->nvtx[0]));
	r->start = s;
	r->end = e;
	r->text_id = text;
	r->tid = tid;
	r->kind = 0;
}

/* ops sorted by (device, start), as the loader gives them */
static void sort_ops(struct tb *t)
{
	size_t a, b;

	for (a = 1; a < t->no; a++)
		for (b = a; b > 0 && t->ops[b - 1].start > t->ops[b].start; b--) {
			struct gs_op x = t->ops[b];
			t->ops[b] = t->ops[b - 1];
			t->ops[b - 1] = x;
		}
}

static void tb_analyse(struct tb *t)
{
	struct gs_options opt;

	t->in.ops = t->ops;
	t->in.n_ops = t->no;
	t->in.apis = t->apis;
	t->in.n_apis = t->na;
	t->in.syncs = t->syncs;
	t->in.n_syncs = t->ns;
	t->in.events = t->events;
	t->in.n_events = t->nev;
	t->in.nvtx = t->nvtx;
	t->in.n_nvtx = t->nn;
	t->in.hranges = t->hr;
	t->in.n_hranges = t->nh;
	gs_options_init(&opt);
	assert_int_equal(gs_analyze(&t->in, &opt, &t->res), 0);
	t->analysed = 1;
}

static void tb_free(struct tb *t)
{
	if (t->analysed)
		gs_result_free(&t->res);
	free(t);
}

/* the unchanged replay gives every op's start back */
static void assert_exact(struct tb *t, int64_t window)
{
	struct gs_whatif_check c;

	assert_int_equal(gs_whatif_check(&t->res, &c), 0);
	assert_int_equal(c.n_ops, t->no);
	assert_int_equal(c.max_err, 0);
	assert_int_equal(c.n_off, 0);
	assert_int_equal(c.window, window);
	assert_int_equal(c.window_err, 0);
}

/* the replay with tracing's cost u taken off first, fixes applied: into w */
static void run_untraced(struct tb *t, uint32_t fixes, int every, const struct gs_whatif_untrace *u,
			 struct gs_whatif *w)
{
	struct gs_whatif_opts o;

	gs_whatif_opts_init(&o);
	o.fixes = fixes;
	if (every > 0)
		o.sync_every = every;
	o.untrace = u;
	assert_int_equal(gs_whatif_run(&t->res, &o, w), 0);
}

static int64_t saving(struct tb *t, uint32_t fixes, int every, const uint64_t *bytes, double gbps,
		      int64_t *after_window)
{
	struct gs_whatif_opts o;
	struct gs_whatif w;

	gs_whatif_opts_init(&o);
	o.fixes = fixes;
	o.sync_every = every;
	o.op_bytes = bytes;
	o.pinned_gbps = gbps;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	*after_window = w.after.window;
	{
		int64_t s = w.saving_ns;
		gs_whatif_free(&w);
		return s;
	}
}

/* 20 steps, step i at T_i = T0 + 34 us * i: cudaLaunchKernel [T_i, +5us),
 * kA [+8, +13), cudaStreamSynchronize [+5, +14) (1 us after kA ends), then
 * 20 us of host code. Window: T_0+8 .. T_19+13 = 19 x 34 + 5 = 651 us. */
static struct tb *sync_loop(void)
{
	struct tb *t = tb_new();
	int i;

	for (i = 0; i < 20; i++) {
		int64_t ti = T0 + (int64_t)i * 34 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), s;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 13 * US, 0);
		s = call(t, S_SYNC, ti + 5 * US, ti + 14 * US);
		sync_row(t, s, S_SYNC, GS_SYNC_STREAM, 0, ti + 5 * US, ti + 14 * US);
	}
	tb_analyse(t);
	return t;
}

static void test_unchanged_replay_is_exact(void **state)
{
	struct tb *t = sync_loop();
	(void)state;
	assert_exact(t, 651 * US);
	tb_free(t);
}

/* sync_every_step, one sync of 10 kept (the 10th and the 20th, the last):
 * 18 syncs dropped. Without its sync a step is launch 5 us + host 20 us =
 * 25 us instead of 34: each dropped sync saves 9 us, 18 x 9 = 162 us.
 * Check: kA follows its launch by 8 us (its measured delay) and the GPU
 * never holds it back (5 us of work every 25 us); step 9's kept sync waits
 * for kA (launch + 13 us) and returns 1 us after it, so step 10 starts
 * 14 + 20 = 34 us after step 9: launches at T0 + 25 i (i <= 9), then
 * T0 + 259 + 25 (i - 10); the last kA ends at T0 + 484 + 13 = T0 + 497 us,
 * window 497 - 8 = 489 us = 651 - 162. */
static void test_sync_every_ten_saves_nine_us_per_dropped_sync(void **state)
{
	struct tb *t = sync_loop();
	int64_t after;
	(void)state;
	assert_int_equal(saving(t, 1u << GS_RULE_SYNC_STEP, 10, NULL, 0, &after), 162 * US);
	assert_int_equal(after, 489 * US);
	tb_free(t);
}

/* The same loop, tracing's work between two calls 1 us (u.gap_ns, the
 * correction's launch_gap_ns): a dropped sync takes one boundary with it,
 * so the host time after it loses 1 us: a step without its sync is 5 + 20 -
 * 1 = 24 us. Launches at T0 + 24 i to i = 9, whose kept sync returns at
 * +14; step 10 at T0 + 216 + 34 = T0 + 250, step 19 at T0 + 466, its kA
 * ends at +479: after = 479 - 8 = 471 us (489 without), saving 180 us.
 * Before, nothing dropped: the 651 us as recorded. */
static void test_dropped_sync_takes_its_boundary(void **state)
{
	struct tb *t = sync_loop();
	struct gs_whatif_untrace u = {.gap_ns = 1 * US};
	struct gs_whatif w;
	(void)state;
	run_untraced(t, 1u << GS_RULE_SYNC_STEP, 10, &u, &w);
	assert_int_equal(w.before.window, 651 * US);
	assert_int_equal(w.after.window, 471 * US);
	assert_int_equal(w.saving_ns, 180 * US);
	gs_whatif_free(&w);
	tb_free(t);
}

/* The same loop with tracing's cost taken off first: 2 us per launch call
 * (off its 5 us: 3 us left, the host gap before it untouched), 1 us per
 * kernel (kA 4 us). Untraced a step is launch 3 + sync 10 (kA ends 12 us
 * after the launch's start: delay 8 + 4; the sync returns 1 us after, its
 * own time) + host 20 = 33 us: before = 19 x 33 + 12 - 8 = 631 us. One sync
 * of 10 kept: a step without its sync is 3 + 20 = 23 us, each of the 18
 * dropped saves 10 us: 180 us; after = 451 us (launches at T0 + 23 i to
 * i = 9, step 10 at T0 + 207 + 33 = T0 + 240, the last at T0 + 447, its
 * kA ends at +459; 459 - 8). */
static void test_untraced_sync_loop(void **state)
{
	struct tb *t = sync_loop();
	struct gs_whatif_untrace u = {.call_ns = 2 * US, .kernel_ns = 1 * US};
	struct gs_whatif w;
	(void)state;
	run_untraced(t, 1u << GS_RULE_SYNC_STEP, 10, &u, &w);
	assert_int_equal(w.untraced, 1);
	assert_int_equal(w.before.window, 631 * US);
	assert_int_equal(w.before.busy, 20 * 4 * US);
	assert_int_equal(w.after.window, 451 * US);
	assert_int_equal(w.saving_ns, 180 * US);
	gs_whatif_free(&w);
	/* the unchanged replay with the cost off is the corrected timeline */
	run_untraced(t, 0, 0, &u, &w);
	assert_int_equal(w.before.window, 631 * US);
	assert_int_equal(w.after.window, 631 * US);
	gs_whatif_free(&w);
	tb_free(t);
}

/* Input stalls. 10 steps 2010 us apart, at T_i: thread 7's
 * cudaMemcpyAsync [T_i, +5) uploads [+8, +18) (from host memory: an
 * upload), its cudaLaunchKernel [+5, +10) launches kA [+18, +28); thread
 * 8's cudaLaunchKernel [+11, +14) launches kB [+16, +18) on stream 14; then
 * both threads wait for the next batch. The device idles from kA's end
 * (+28) to the next upload (+2018): thread 7's host time in it is the gap
 * before its next cudaMemcpyAsync from +28 on, 1982 us (a stall: 1 ms or
 * more), thread 8's the gap before its next launch (+14 to +2021) inside
 * [+28, +2018], 1990 us. Window 9 x 2010 + 28 - 8 = 18 110 us. The fix
 * takes both out: thread 7's steps are 28 us, thread 8's 20 (kB runs
 * earlier, never last): 9 x 28 + 28 - 8 = 272 us, saving 17 838 = 9 x 1982.
 * Keeping half of each stall (input_keep 0.5): steps of 2010 - 991 = 1019
 * us (thread 8's 1015): 9 x 1019 + 20 = 9191 us. Without thread 8's part
 * its last kB would end 9 x 2010 + 18 us in: the window would not shrink. */
static void test_input_wait(void **state)
{
	struct tb *t = tb_new();
	struct gs_whatif_opts o;
	struct gs_whatif w;
	int i;
	(void)state;
	for (i = 0; i < 10; i++) {
		int64_t ti = T0 + (int64_t)i * 2010 * US;
		uint32_t c = call(t, S_MEMCPYASYNC, ti, ti + 5 * US);
		op(t, GS_OP_MEMCPY, 0, c, ti + 8 * US, ti + 18 * US, GS_OPF_HOST_SRC);
		c = call(t, S_LAUNCH, ti + 5 * US, ti + 10 * US);
		op(t, GS_OP_KERNEL, S_KA, c, ti + 18 * US, ti + 28 * US, 0);
		c = call(t, S_LAUNCH, ti + 11 * US, ti + 14 * US);
		t->apis[t->na - 1].tid = 8;
		op(t, GS_OP_KERNEL, S_KB, c, ti + 16 * US, ti + 18 * US, 0);
		t->ops[t->no - 1].stream = 14;
	}
	sort_ops(t);
	tb_analyse(t);
	assert_exact(t, 18110 * US);
	gs_whatif_opts_init(&o);
	o.fixes = 1u << GS_RULE_INPUT_WAIT;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.host_gaps, 9);
	assert_int_equal(w.before.window, 18110 * US);
	assert_int_equal(w.after.window, 272 * US);
	assert_int_equal(w.saving_ns, 17838 * US);
	gs_whatif_free(&w);
	o.input_keep = 0.5;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.after.window, 9191 * US);
	gs_whatif_free(&w);
	assert_int_equal(gs_whatif_fix_bit("input_wait"), 1u << GS_RULE_INPUT_WAIT);
	tb_free(t);
}

/* Fewer than 20 calls of the sync API: no per-step sync to thin out. */
static void test_sync_every_needs_twenty_calls(void **state)
{
	struct tb *t = tb_new();
	int64_t after;
	int i;
	(void)state;
	for (i = 0; i < 19; i++) {
		int64_t ti = T0 + (int64_t)i * 34 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), s;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 13 * US, 0);
		s = call(t, S_SYNC, ti + 5 * US, ti + 14 * US);
		sync_row(t, s, S_SYNC, GS_SYNC_STREAM, 0, ti + 5 * US, ti + 14 * US);
	}
	tb_analyse(t);
	assert_int_equal(saving(t, 1u << GS_RULE_SYNC_STEP, 10, NULL, 0, &after), 0);
	assert_int_equal(after, (18 * 34 + 5) * US);
	tb_free(t);
}

/* 10 steps of 35 us: launch [T, +5), kA [+8, +13), cudaMalloc [+5, +15)
 * that waited for kA (implicit sync of kind 19; it returns 2 us after kA),
 * 20 us of host code. Window 9 x 35 + 5 = 320 us. Dropping the mallocs:
 * a step is 5 + 20 = 25 us, kA still 8 us after its launch: window
 * 9 x 25 + 5 = 230 us, saving 90 us. */
static void test_alloc_in_loop_dropped(void **state)
{
	struct tb *t = tb_new();
	int64_t after;
	int i;
	(void)state;
	for (i = 0; i < 10; i++) {
		int64_t ti = T0 + (int64_t)i * 35 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), m;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 13 * US, 0);
		m = call(t, S_MALLOC, ti + 5 * US, ti + 15 * US);
		sync_row(t, m, S_MALLOC, GS_SYNC_IMPLICIT_ALLOC, 1, ti + 5 * US, ti + 15 * US);
	}
	tb_analyse(t);
	assert_exact(t, 320 * US);
	assert_int_equal(saving(t, 1u << GS_RULE_ALLOC, 0, NULL, 0, &after), 90 * US);
	assert_int_equal(after, 230 * US);
	/* an API the verdict calls warm-up stays (alloc_skip): another API
	 * skipped drops the mallocs all the same; cudaMalloc skipped, none */
	{
		struct gs_whatif_opts o;
		struct gs_whatif w;
		gs_whatif_opts_init(&o);
		o.fixes = 1u << GS_RULE_ALLOC;
		o.alloc_skip[0] = S_SYNC;
		assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
		assert_int_equal(w.calls_dropped, 10);
		assert_int_equal(w.saving_ns, 90 * US);
		gs_whatif_free(&w);
		o.alloc_skip[1] = S_MALLOC;
		assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
		assert_int_equal(w.calls_dropped, 0);
		assert_int_equal(w.saving_ns, 0);
		gs_whatif_free(&w);
	}
	tb_free(t);
}

/* The same loop traced with call-site captures: each cudaMalloc's first
 * 4 us [+5, +9) are the collector capturing its stack (api_stacks), which
 * the untraced program never spends. Dropping the mallocs keeps those
 * 4 us on the host (the traced "before" holds them too): a step is
 * 5 + 4 + 20 = 29 us, window 9 x 29 + 5 = 266 us, saving 54 us (not 90:
 * 10 x 4 us of it were tracing's). The unchanged replay stays exact. */
static void test_alloc_dropped_keeps_tracing_capture(void **state)
{
	struct tb *t = tb_new();
	struct gs_capture caps[10];
	int64_t after;
	int i;
	(void)state;
	for (i = 0; i < 10; i++) {
		int64_t ti = T0 + (int64_t)i * 35 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), m;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 13 * US, 0);
		m = call(t, S_MALLOC, ti + 5 * US, ti + 15 * US);
		sync_row(t, m, S_MALLOC, GS_SYNC_IMPLICIT_ALLOC, 1, ti + 5 * US, ti + 15 * US);
		caps[i].start = ti + 5 * US;
		caps[i].end = ti + 9 * US;
		caps[i].corr = m; /* increasing: sorted by corr */
		caps[i].tid = TID;
	}
	t->in.captures = caps;
	t->in.n_captures = 10;
	tb_analyse(t);
	assert_exact(t, 320 * US);
	assert_int_equal(saving(t, 1u << GS_RULE_ALLOC, 0, NULL, 0, &after), 54 * US);
	assert_int_equal(after, 266 * US);
	tb_free(t);
}

/* The same loop untraced first, tracing's cost 1 us per cudaMalloc or
 * cudaFree (u.alloc_ns, the calibration's alloc_pair_ns / 2): each malloc
 * returns 1 us after kA (its own time 2 us less 1), so a step is 5 + 9 +
 * 20 = 34 us and the window 9 x 34 + 5 = 311 us; dropping the mallocs
 * gives the same 230 us as before: saving 81 us, not 90 (10 x 1 us of it
 * were tracing's). */
static void test_alloc_dropped_untraced(void **state)
{
	struct tb *t = tb_new();
	struct gs_whatif_untrace u = {.alloc_ns = 1 * US};
	struct gs_whatif w;
	int i;
	(void)state;
	for (i = 0; i < 10; i++) {
		int64_t ti = T0 + (int64_t)i * 35 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), m;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 13 * US, 0);
		m = call(t, S_MALLOC, ti + 5 * US, ti + 15 * US);
		sync_row(t, m, S_MALLOC, GS_SYNC_IMPLICIT_ALLOC, 1, ti + 5 * US, ti + 15 * US);
	}
	tb_analyse(t);
	run_untraced(t, 1u << GS_RULE_ALLOC, 0, &u, &w);
	assert_int_equal(w.before.window, 311 * US);
	assert_int_equal(w.after.window, 230 * US);
	assert_int_equal(w.saving_ns, 81 * US);
	gs_whatif_free(&w);
	tb_free(t);
}

/* 10 steps of 80 us: cudaMemcpyAsync from pageable memory [T, +60) that
 * blocks while it stages (implicit sync of kind 17), its copy [+10, +58)
 * (48 us, 1 MB), 20 us of host code. Window 9 x 80 + 48 = 768 us.
 * Pinned at 40 GB/s (40 bytes/ns): 2 us set-up + 1e6 / 40 ns = 27 us per
 * copy. The call no longer waits: it takes its own 2 us after the copy
 * (60 - 58; the trace has no other launch call to take a typical one
 * from), so a step is 2 + 20 = 22 us, and the copy starts 10 us after its
 * call (the median launch delay): at most one copy every 22 us can be
 * issued but each takes 27 us, so the copies run back to back from
 * T0 + 10 us: window 10 x 27 = 270 us, saving 498 us. */
static void test_pageable_to_pinned(void **state)
{
	struct tb *t = tb_new();
	uint64_t bytes[10];
	int64_t after;
	int i;
	(void)state;
	for (i = 0; i < 10; i++) {
		int64_t ti = T0 + (int64_t)i * 80 * US;
		uint32_t c = call(t, S_MEMCPYASYNC, ti, ti + 60 * US);
		op(t, GS_OP_MEMCPY, 0, c, ti + 10 * US, ti + 58 * US,
		   GS_OPF_PAGEABLE | GS_OPF_ASYNC | GS_OPF_PAGEABLE_SRC | GS_OPF_HOST_SRC);
		sync_row(t, c, S_MEMCPYASYNC, GS_SYNC_IMPLICIT_PAGEABLE, 1, ti, ti + 60 * US);
		bytes[i] = 1000000;
	}
	tb_analyse(t);
	assert_exact(t, 768 * US);
	assert_int_equal(saving(t, 1u << GS_RULE_PAGEABLE, 0, bytes, 40.0, &after), 498 * US);
	assert_int_equal(after, 270 * US);
	/* without the bytes the copies keep their 48 us; only the staging
	 * wait goes: one copy every 48 us back to back, 10 x 48 = 480 us */
	assert_int_equal(saving(t, 1u << GS_RULE_PAGEABLE, 0, NULL, 40.0, &after), 288 * US);
	tb_free(t);
}

/* 10 steps of 25 us on thread TID: launch [T, +5), kA [+8, +13), 20 us
 * of host code before the next. Window 9 x 25 + 5 = 230 us. */
static void launch_loop_25us(struct tb *t)
{
	int i;

	for (i = 0; i < 10; i++) {
		int64_t ti = T0 + (int64_t)i * 25 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US);
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 13 * US, 0);
	}
}

/* 10 steps of 25 us: launch [T, +5), kA [+8, +13), 20 us of host code.
 * Window 9 x 25 + 5 = 230 us. host_code: the 20 us go, launches every
 * 5 us, kA 8 us after each: back to back, 10 x 5 = 50 us; saving 180. */
static void test_host_code_removed(void **state)
{
	struct tb *t = tb_new();
	int64_t after;
	(void)state;
	launch_loop_25us(t);
	tb_analyse(t);
	assert_exact(t, 230 * US);
	/* host code of 20 us a gap in a C program is its own work (5 us or
	 * more, GS_HOST_LOOP_NS, as the verdict splits it): fusion and graphs
	 * (host_code) leave it; moved off the loop (host_own_work) it goes */
	assert_int_equal(saving(t, 1u << GS_RULE_HOST_CODE, 0, NULL, 0, &after), 0);
	assert_int_equal(after, 230 * US);
	assert_int_equal(saving(t, 1u << GS_RULE_HOST_OWN, 0, NULL, 0, &after), 180 * US);
	assert_int_equal(after, 50 * US);
	tb_free(t);
}

/* 8 steps of 45 us, each three launches 15 us apart (5 us call + 10 us
 * host code), kA, kB, kC of 2 us each 8 us after their calls. Window
 * 7 x 45 + 30 + 10 = 355 - 8 = 347 us. The graph advice finds the step
 * (kA kB kC, 8 times); as graph replays: the first call launches the
 * graph (5 us, its own duration: no calibration), the other two are not
 * made; the 10 us of host code before each of them stays (in a C program
 * 5 us a gap or more is the program's own work, GS_HOST_LOOP_NS: a graph
 * removes the launching, not that), and so does the 10 us before the next
 * step: a step is 5 + 10 + 10 + 10 = 35 us of host; kA 8 us after the
 * graph launch, kB and kC each 1 us (the default per-node cost: the trace
 * has no graph launches) after the node before: kC ends 16 us after the
 * step's start. The last kC ends at T0 + 7 x 35 + 16 = T0 + 261 us: window
 * 261 - 8 = 253 us, saving 347 - 253 = 94 us. */
static struct tb *three_kernel_steps(void)
{
	struct tb *t = tb_new();
	int i, k;

	for (i = 0; i < 8; i++)
		for (k = 0; k < 3; k++) {
			int64_t ti = T0 + (int64_t)i * 45 * US + k * 15 * US;
			uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US);
			op(t, GS_OP_KERNEL, (uint32_t)(S_KA + k), c, ti + 8 * US, ti + 10 * US, 0);
		}
	tb_analyse(t);
	return t;
}

static void test_launch_overhead_as_graph_replays(void **state)
{
	struct tb *t = three_kernel_steps();
	int64_t after;
	(void)state;
	assert_exact(t, 347 * US);
	assert_true(t->res.n_advice >= 1);
	assert_int_equal(t->res.advice[0].length, 3);
	assert_int_equal(t->res.graph_node_overhead_ns, 1000);
	assert_int_equal(saving(t, 1u << GS_RULE_LAUNCH, 0, NULL, 0, &after), 94 * US);
	assert_int_equal(after, 253 * US);
	tb_free(t);
}

/* The same as graph replays in the untraced model, tracing's cost a graph
 * node 1.5 us (u.node_ns): the nodes the fix makes lose it as the trace's
 * own would, off the hole before them first (the 1 us per-node cost: 0
 * left), the other 0.5 us off their duration. kA stays 2 us (the graph's
 * first node follows its launch); kB and kC follow the node before at once,
 * 1.5 us each: kC ends 8 + 2 + 1.5 + 1.5 = 13 us after the step's start,
 * the last at T0 + 245 + 13: window 258 - 8 = 250 us, saving 347 - 250 =
 * 97 us; busy 8 x 3 x 2 = 48 us before, 8 x 5 = 40 us after. */
static void test_launch_overhead_untraced_nodes(void **state)
{
	struct tb *t = three_kernel_steps();
	struct gs_whatif_untrace u = {.node_ns = 1500};
	struct gs_whatif_opts o;
	struct gs_whatif w;
	(void)state;
	gs_whatif_opts_init(&o);
	o.fixes = 1u << GS_RULE_LAUNCH;
	o.untrace = &u;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.before.window, 347 * US);
	assert_int_equal(w.before.busy, 48 * US);
	assert_int_equal(w.after.window, 250 * US);
	assert_int_equal(w.after.busy, 40 * US);
	assert_int_equal(w.saving_ns, 97 * US);
	gs_whatif_free(&w);
	tb_free(t);
}

/* Two streams, 5 steps of 100 us from T: kA on stream 13 [+8, +18)
 * (launch [T, +5)); an NCCL all-reduce on stream 14 [+13, +63) (launch
 * [+5, +10)); cudaEventRecord on 14 [+10, +12) (the event row); stream 13
 * waits for it (cudaStreamWaitEvent [+12, +14)); kB on 13 (launch [+14,
 * +19)) starts 2 us after the all-reduce ends, [+65, +75). The device
 * window: T_0 + 8 .. T_4 + 75 = 467 us. communication: kB no longer waits
 * for the all-reduce: it starts at the later of its launch + the typical
 * launch delay (8 us: kA's and the all-reduce's, all 8 us) = +22 and kA's
 * end + the typical hole after a predecessor that bound an op (none in the
 * trace: 0) = +18, so [+22, +32); the all-reduces stay where they were and
 * the last one ends the window at T_4 + 63: 455 us, saving 12 us. */
static void test_communication_overlapped(void **state)
{
	struct tb *t = tb_new();
	int64_t after;
	int i;
	(void)state;
	for (i = 0; i < 5; i++) {
		int64_t ti = T0 + (int64_t)i * 100 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), w;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 18 * US, 0);
		c = call(t, S_LAUNCH, ti + 5 * US, ti + 10 * US);
		op(t, GS_OP_KERNEL, S_NCCL, c, ti + 13 * US, ti + 63 * US, 0);
		t->ops[t->no - 1].stream = STREAM + 1;
		call(t, S_RECORD, ti + 10 * US, ti + 12 * US);
		t->events[t->nev].start = ti + 10 * US;
		t->events[t->nev].event = 500 + (uint64_t)i;
		t->events[t->nev].stream = STREAM + 1;
		t->nev++;
		w = call(t, S_WAIT, ti + 12 * US, ti + 14 * US);
		sync_row(t, w, S_WAIT, GS_SYNC_STREAM_WAIT_EVENT, 0, ti + 12 * US, ti + 14 * US);
		t->syncs[t->ns - 1].event = 500 + (uint64_t)i;
		c = call(t, S_LAUNCH, ti + 14 * US, ti + 19 * US);
		op(t, GS_OP_KERNEL, S_KB, c, ti + 65 * US, ti + 75 * US, 0);
	}
	sort_ops(t);
	tb_analyse(t);
	assert_exact(t, 467 * US);
	assert_int_equal(saving(t, 1u << GS_WHATIF_COMMUNICATION, 0, NULL, 0, &after), 12 * US);
	assert_int_equal(after, 455 * US);
	/* no collective, no change: the legacy fix has nothing to do here */
	assert_int_equal(saving(t, 1u << GS_RULE_LEGACY, 0, NULL, 0, &after), 0);
	tb_free(t);
}

/* 4 steps of 50 us from T: launch [T, +5) of kA on stream 13 [+8, +18),
 * 20 us of host code, launch [+25, +30) of kB on stream 14 [+33, +43), 20
 * us of host code. Window T_0 + 8 .. T_3 + 43 = 185 us; 80 us of work, no
 * overlap. host_code: launches every 5 us, alternating; each kernel 8 us
 * after its launch or at its predecessor's end: kA [8,18) [18,28) [28,38)
 * [38,48), kB [13,23) [23,33) [33,43) [43,53): a window of 45 us with the
 * two streams overlapping 35 us (80 us of work in a 45 us union). The
 * trace overlapped nothing: the saving holds the window to the 80 us of
 * work, bound 35 us, saving 185 - 80 = 105 us. */
static void test_saving_bounded_by_overlap(void **state)
{
	struct tb *t = tb_new();
	struct gs_whatif_opts o;
	struct gs_whatif w;
	int i;
	(void)state;
	for (i = 0; i < 4; i++) {
		int64_t ti = T0 + (int64_t)i * 50 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US);
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 18 * US, 0);
		c = call(t, S_LAUNCH, ti + 25 * US, ti + 30 * US);
		op(t, GS_OP_KERNEL, S_KB, c, ti + 33 * US, ti + 43 * US, 0);
		t->ops[t->no - 1].stream = STREAM + 1;
	}
	sort_ops(t);
	tb_analyse(t);
	assert_exact(t, 185 * US);
	gs_whatif_opts_init(&o);
	/* all host code goes: the dispatch and the program's own (20 us gaps) */
	o.fixes = (1u << GS_RULE_HOST_CODE) | (1u << GS_RULE_HOST_OWN);
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.before.work, 80 * US);
	assert_int_equal(w.before.busy, 80 * US);
	assert_int_equal(w.after.window, 45 * US);
	assert_int_equal(w.after.busy, 45 * US);
	assert_int_equal(w.bound_ns, 35 * US);
	assert_int_equal(w.saving_ns, 105 * US);
	gs_whatif_free(&w);
	tb_free(t);
}

static void test_rules_without_fix(void **state)
{
	struct tb *t = sync_loop();
	int64_t s = -1;
	(void)state;
	assert_int_equal(gs_whatif_saving(&t->res, GS_RULE_DEPENDENCY, NULL, &s, NULL), -ENOENT);
	assert_int_equal(gs_whatif_saving(&t->res, GS_RULE_SYNC_STEP, NULL, &s, NULL), 0);
	assert_int_equal(s, 162 * US);
	{
		/* the batch: one model, each finding's fix replayed on it; the
		 * same savings as one at a time (162 us; dependency: none) */
		struct gs_finding f[3] = {{.rule = GS_RULE_DEPENDENCY},
					  {.rule = GS_RULE_SYNC_STEP},
					  {.rule = GS_RULE_ALLOC}};
		int64_t sv[3];
		double sh[3];
		assert_int_equal(gs_whatif_findings(&t->res, f, 3, NULL, sv, sh), 0);
		assert_true(sv[0] == INT64_MIN);
		assert_int_equal(sv[1], 162 * US);
		assert_true(sh[1] > 0.2488 && sh[1] < 0.2489); /* 162 / 651 */
		assert_int_equal(sv[2], 0);		       /* no allocations */
	}
	assert_int_equal(gs_whatif_fix_bit("sync_every_step"), 1u << GS_RULE_SYNC_STEP);
	assert_int_equal(gs_whatif_fix_bit("communication"), 1u << GS_WHATIF_COMMUNICATION);
	assert_int_equal(gs_whatif_fix_bit("dependency"), 0);
	tb_free(t);
}

/* The verdict of sync_loop: the program's own work (20 us a step after
 * each sync: 19 x 20 = 380 us), the per-step sync (19 x (1 us of wait +
 * 8 us of refill) = 171 us) and launch overhead (19 x 8 us = 152 us). Their
 * fixes replayed: the host work gone, a step is launch 5 + sync 9 = 14 us
 * (window 19 x 14 + 5 = 271 us: saves 380 us, 58.4%); one sync of ten
 * kept saves 162 us (test_sync_every_ten_...); the launch overhead's fix
 * finds no repeated launch sequence to capture (one launch a step, each
 * behind a sync): nothing to replay, no figure, and it goes last. */
static void test_verdict_saves_and_unchanged_fix(void **state)
{
	struct tb *t = sync_loop();
	struct gs_verdict v;
	(void)state;
	gs_verdict_compute_corr(&t->res, NULL, &v);
	assert_int_equal(v.n_findings, 3);
	assert_int_equal(v.findings[0].rule, GS_RULE_HOST_OWN);
	assert_int_equal(v.findings[0].cost_ns, 380 * US);
	assert_int_equal(v.findings[0].saves, GS_SAVES_REPLAYED);
	assert_int_equal(v.findings[0].saves_ns, 380 * US);
	assert_true(v.findings[0].saves_share > 0.5837 && v.findings[0].saves_share < 0.5838);
	assert_int_equal(v.findings[1].rule, GS_RULE_SYNC_STEP);
	assert_int_equal(v.findings[1].cost_ns, 171 * US);
	assert_int_equal(v.findings[1].saves, GS_SAVES_REPLAYED);
	assert_int_equal(v.findings[1].saves_ns, 162 * US);
	assert_int_equal(v.findings[2].rule, GS_RULE_LAUNCH);
	assert_int_equal(v.findings[2].saves, GS_SAVES_UNCHANGED);
	assert_int_equal(v.findings[2].saves_ns, 0);
	/* the plain verdict replays nothing: by cost, no figures */
	gs_verdict_compute(&t->res, &v);
	assert_int_equal(v.n_findings, 3);
	assert_int_equal(v.findings[0].saves, GS_SAVES_NONE);
	assert_int_equal(v.findings[1].saves, GS_SAVES_NONE);
	tb_free(t);
}

/* The issue's case the other way round: 20 steps of 79 us from T0, launch
 * [T, +5), kA [+8, +58) (50 us), cudaStreamSynchronize [+5, +59), then
 * 20 us of the program's own work. Window 8 .. 19 x 79 + 58: 1551 us.
 * Idle per gap (29 us): sync wait 1, host code 20, launch latency 8. By
 * cost: own work 19 x 20 = 380 us first, the sync 19 x 9 = 171 us second.
 * Replayed:
 * - own work gone: a step is 5 + 54 (the sync waits for kA, 1 us after)
 *   = 59 us; kA_19 [19 x 59 + 8, +50) ends at 1179: window 1171, saves
 *   380 us (24.5%).
 * - one sync of ten kept (steps 9 and 19): launches every 25 us while the
 *   GPU needs 50, so the kernels run back to back (the typical hole after
 *   a predecessor is 0: none bound an op in the trace): kA_i [8 + 50 i,
 *   +50) to kA_9 ending 508; its sync returns at 509, step 10 launches
 *   at 529, kA_10 at 537, kA_19 ends 537 + 10 x 50 = 1037: window 1029,
 *   saves 522 us (33.7%).
 * So the sync, which costs less, buys more: it goes first. */
static void test_verdict_ordered_by_saving(void **state)
{
	struct tb *t = tb_new();
	struct gs_verdict v;
	int i;
	(void)state;
	for (i = 0; i < 20; i++) {
		int64_t ti = T0 + (int64_t)i * 79 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), s;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 58 * US, 0);
		s = call(t, S_SYNC, ti + 5 * US, ti + 59 * US);
		sync_row(t, s, S_SYNC, GS_SYNC_STREAM, 0, ti + 5 * US, ti + 59 * US);
	}
	tb_analyse(t);
	assert_exact(t, 1551 * US);
	gs_verdict_compute(&t->res, &v); /* by cost */
	assert_int_equal(v.n_findings, 2);
	assert_int_equal(v.findings[0].rule, GS_RULE_HOST_OWN);
	assert_int_equal(v.findings[0].cost_ns, 380 * US);
	assert_int_equal(v.findings[1].rule, GS_RULE_SYNC_STEP);
	assert_int_equal(v.findings[1].cost_ns, 171 * US);
	gs_verdict_compute_corr(&t->res, NULL, &v); /* by saving */
	assert_int_equal(v.n_findings, 2);
	assert_int_equal(v.findings[0].rule, GS_RULE_SYNC_STEP);
	assert_int_equal(v.findings[0].saves, GS_SAVES_REPLAYED);
	assert_int_equal(v.findings[0].saves_ns, 522 * US);
	assert_true(v.findings[0].saves_share > 0.3365 && v.findings[0].saves_share < 0.3366);
	assert_int_equal(v.findings[1].rule, GS_RULE_HOST_OWN);
	assert_int_equal(v.findings[1].saves_ns, 380 * US);
	assert_true(v.findings[1].saves_share > 0.2450 && v.findings[1].saves_share < 0.2451);
	tb_free(t);
}

/* A host-code finding names its thread and the NVTX range its gaps lie
 * in, which may be another thread's: PyTorch's backward thread opens no
 * range, the main thread's "## backward ##" holds its host code (PARAM's
 * DLRM trace). test_host_code_removed's loop on thread 7 (launches 25 us
 * apart, 20 us of own work before each), "## backward ##" on thread 1
 * over calls 0-4: the fix for thread 7 in that range removes the gaps
 * before calls 1-4 (call 0 has none): 4 x 20 = 80 us, window 230 -> 150
 * us. The range on thread 7 only (none there) found nothing. */
static void test_host_code_range_of_another_thread(void **state)
{
	struct tb *t = tb_new();
	struct gs_whatif_opts o;
	struct gs_whatif w;
	(void)state;
	range(t, S_BACKWARD, 1, T0 - 1 * US, T0 + 101 * US);
	launch_loop_25us(t);
	tb_analyse(t);
	assert_exact(t, 230 * US);
	gs_whatif_opts_init(&o);
	o.fixes = 1u << GS_RULE_HOST_OWN;
	o.host_tid = TID;
	o.host_nvtx_id = S_BACKWARD;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.host_gaps, 4);
	assert_int_equal(w.saving_ns, 80 * US);
	assert_int_equal(w.after.window, 150 * US);
	gs_whatif_free(&w);
	tb_free(t);
}

/* The what-if's step is the program's step, as the phases read it:
 * torch.profiler's ProfilerStep#N ranges, each a text of its own (it took
 * the repeated range with the most wall instead: "nccl:all_to_all" on
 * PARAM's DLRM, the DataLoader's __next__ on a ResNet). sync_loop's 20
 * steps of 34 us in "ProfilerStep#0".."#19" on thread 7: median 34 us;
 * one sync of 10 kept, 18 steps lose 9 us: median 25 us. A collective's
 * range, repeated 20 times, is no step: with only those, no step figure. */
static const char *step_strtab[S_N + 21];

static void test_whatif_steps_are_the_programs(void **state)
{
	static char names[20][24];
	struct tb *t = sync_loop(), *u;
	struct gs_whatif_opts o;
	struct gs_whatif w;
	int i;
	(void)state;
	gs_result_free(&t->res);
	t->analysed = 0;
	memcpy(step_strtab, strtab, sizeof(strtab));
	for (i = 0; i < 20; i++) {
		int64_t ti = T0 + (int64_t)i * 34 * US;
		snprintf(names[i], sizeof(names[i]), "ProfilerStep#%d", i);
		step_strtab[S_N + i] = names[i];
		range(t, (uint32_t)(S_N + i), TID, ti, ti + 34 * US);
	}
	step_strtab[S_N + 20] = "nccl:all_to_all";
	t->in.strings.v = step_strtab;
	t->in.strings.n = S_N + 21;
	tb_analyse(t);
	gs_whatif_opts_init(&o);
	o.fixes = 1u << GS_RULE_SYNC_STEP;
	o.sync_every = 10;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.step_source, GS_STEPS_PROFILER);
	assert_int_equal(w.step_stem_len, strlen("ProfilerStep#"));
	assert_int_equal(w.before.steps, 20);
	assert_int_equal(w.before.step_ns, 34 * US);
	assert_int_equal(w.after.step_ns, 25 * US);
	gs_whatif_free(&w);
	tb_free(t);

	u = sync_loop();
	gs_result_free(&u->res);
	u->analysed = 0;
	for (i = 0; i < 20; i++) {
		int64_t ti = T0 + (int64_t)i * 34 * US;
		range(u, S_N + 20, TID, ti + 4 * US, ti + 15 * US);
	}
	u->in.strings.v = step_strtab;
	u->in.strings.n = S_N + 21;
	tb_analyse(u);
	assert_int_equal(gs_whatif_run(&u->res, &o, &w), 0);
	assert_int_equal(w.before.steps, 0);
	assert_int_equal(w.after.steps, 0);
	gs_whatif_free(&w);
	tb_free(u);
}

/* Exposed communication that no GPU op waits for. 5 steps of 100 us:
 * kA [8, 18) launched at 0, the collective on stream 14 [13, 63) launched
 * at 5, a cudaStreamWaitEvent call [12, 14), kB [78, 88) launched at 70:
 * 45 us a step of the collective overlap no compute. Nothing is ordered
 * after the collective on the GPU, so its fix changes nothing.
 * - The wait calls have no stream-wait record (a Kineto trace before
 *   PyTorch 2.1): what waits for the collective is unknown: no saving,
 *   and the finding says so (5 stream waits).
 * - Recorded (on an event no record names): nothing waits for it, and
 *   the fix says so instead of "overlap it".
 * - No stream wait at all, neither call nor record (HTA's sampled ranks
 *   keep launches and copies only): unknown too.
 * recorded: 0 calls only, 1 calls and records, 2 neither. */
static struct tb *comm_nothing_waits(int recorded)
{
	struct tb *t = tb_new();
	int i;

	for (i = 0; i < 5; i++) {
		int64_t ti = T0 + (int64_t)i * 100 * US;
		uint32_t c = call(t, S_LAUNCH, ti, ti + 5 * US), w;
		op(t, GS_OP_KERNEL, S_KA, c, ti + 8 * US, ti + 18 * US, 0);
		c = call(t, S_LAUNCH, ti + 5 * US, ti + 10 * US);
		op(t, GS_OP_KERNEL, S_NCCL, c, ti + 13 * US, ti + 63 * US, 0);
		t->ops[t->no - 1].stream = STREAM + 1;
		w = recorded == 2 ? 0 : call(t, S_WAIT, ti + 12 * US, ti + 14 * US);
		if (recorded == 1) {
			sync_row(t, w, S_WAIT, GS_SYNC_STREAM_WAIT_EVENT, 0, ti + 12 * US,
				 ti + 14 * US);
			t->syncs[t->ns - 1].event = 900 + (uint64_t)i;
		}
		c = call(t, S_LAUNCH, ti + 70 * US, ti + 75 * US);
		op(t, GS_OP_KERNEL, S_KB, c, ti + 78 * US, ti + 88 * US, 0);
	}
	sort_ops(t);
	tb_analyse(t);
	return t;
}

static const struct gs_finding *finding_of(const struct gs_verdict *v, int rule)
{
	size_t i;
	for (i = 0; i < v->n_findings; i++)
		if (v->findings[i].rule == rule)
			return &v->findings[i];
	return NULL;
}

static void test_comm_nothing_waits_for(void **state)
{
	struct tb *t = comm_nothing_waits(0);
	struct gs_verdict v;
	const struct gs_finding *f;
	(void)state;
	gs_verdict_compute_corr(&t->res, NULL, &v);
	f = finding_of(&v, GS_RULE_COMM);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 5 * 45 * US);
	assert_int_equal(f->saves, GS_SAVES_NONE);
	assert_non_null(strstr(f->why, "; 5 stream waits called, none recorded"));
	assert_string_equal(gs_finding_fix(f), gs_rule_fix(GS_RULE_COMM));
	tb_free(t);

	t = comm_nothing_waits(1);
	gs_verdict_compute_corr(&t->res, NULL, &v);
	f = finding_of(&v, GS_RULE_COMM);
	assert_non_null(f);
	assert_int_equal(f->saves, GS_SAVES_UNCHANGED);
	assert_null(strstr(f->why, "stream waits"));
	assert_int_equal(strncmp(gs_finding_fix(f), "no GPU op waits for it", 22), 0);
	tb_free(t);

	t = comm_nothing_waits(2);
	gs_verdict_compute_corr(&t->res, NULL, &v);
	f = finding_of(&v, GS_RULE_COMM);
	assert_non_null(f);
	assert_int_equal(f->saves, GS_SAVES_NONE);
	assert_non_null(strstr(f->why, "; no stream wait in the trace, called or recorded"));
	tb_free(t);
}

/* host_stalls with the operator its fix removes (DDP's buffer broadcast):
 * test_host_code_removed's loop (launches 25 us apart, 20 us of host
 * code before each, window 230 us) with a 10 us span of
 * aten::unflatten_dense_tensors in the host time before calls 3 and 6
 * ([T_3 - 15, T_3 - 5) us): 2 x 10 = 20 us go, window 210 us. Without
 * the operator named the fix changes nothing. */
static void test_host_op_removed(void **state)
{
	struct tb *t = tb_new();
	struct gs_whatif_opts o;
	struct gs_whatif w;
	int i;
	(void)state;
	launch_loop_25us(t);
	for (i = 3; i <= 6; i += 3) {
		struct gs_hrange *h = &t->hr[t->nh++];
		h->start = T0 + (int64_t)i * 25 * US - 15 * US;
		h->end = h->start + 10 * US;
		h->parent = GS_NONE;
		h->tid = TID;
		h->name_id = S_UNFLAT;
	}
	tb_analyse(t);
	assert_exact(t, 230 * US);
	gs_whatif_opts_init(&o);
	o.fixes = 1u << GS_RULE_HOST_STALL;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.host_gaps, 0);
	assert_int_equal(w.saving_ns, 0);
	gs_whatif_free(&w);
	o.host_op_id = S_UNFLAT;
	assert_int_equal(gs_whatif_run(&t->res, &o, &w), 0);
	assert_int_equal(w.host_gaps, 2);
	assert_int_equal(w.saving_ns, 20 * US);
	assert_int_equal(w.after.window, 210 * US);
	gs_whatif_free(&w);
	tb_free(t);
}

/* With an imported trace's operator spans, the host_code fix (graphs,
 * torch.compile) removes the host time inside the framework's operators
 * and host_own_work the rest, as the verdict splits them, whatever the
 * gaps' sizes (by size, HTA's event-sync trace's host_code fix removed
 * the program's own 72 us too: 156 us saved by a 68 us finding).
 * test_host_code_removed's loop (20 us before each of calls 1-9, window
 * 230 us) with an aten::add span over the host time before calls 1-4:
 * host_code removes those 4 x 20 = 80 us (window 150 us), host_own_work
 * the other 5 x 20 = 100 us (window 130 us). */
static void test_host_code_split_by_operator_spans(void **state)
{
	struct tb *t = tb_new();
	int64_t after;
	int i;
	(void)state;
	launch_loop_25us(t);
	for (i = 1; i <= 4; i++) {
		struct gs_hrange *h = &t->hr[t->nh++];
		h->start = T0 + (int64_t)i * 25 * US - 20 * US;
		h->end = h->start + 20 * US;
		h->parent = GS_NONE;
		h->tid = TID;
		h->name_id = S_ATEN_ADD;
	}
	tb_analyse(t);
	assert_exact(t, 230 * US);
	assert_int_equal(saving(t, 1u << GS_RULE_HOST_CODE, 0, NULL, 0, &after), 80 * US);
	assert_int_equal(after, 150 * US);
	assert_int_equal(saving(t, 1u << GS_RULE_HOST_OWN, 0, NULL, 0, &after), 100 * US);
	assert_int_equal(after, 130 * US);
	tb_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unchanged_replay_is_exact),
	    cmocka_unit_test(test_sync_every_ten_saves_nine_us_per_dropped_sync),
	    cmocka_unit_test(test_untraced_sync_loop),
	    cmocka_unit_test(test_input_wait),
	    cmocka_unit_test(test_dropped_sync_takes_its_boundary),
	    cmocka_unit_test(test_sync_every_needs_twenty_calls),
	    cmocka_unit_test(test_alloc_in_loop_dropped),
	    cmocka_unit_test(test_alloc_dropped_keeps_tracing_capture),
	    cmocka_unit_test(test_alloc_dropped_untraced),
	    cmocka_unit_test(test_pageable_to_pinned),
	    cmocka_unit_test(test_host_code_removed),
	    cmocka_unit_test(test_launch_overhead_as_graph_replays),
	    cmocka_unit_test(test_launch_overhead_untraced_nodes),
	    cmocka_unit_test(test_communication_overlapped),
	    cmocka_unit_test(test_saving_bounded_by_overlap),
	    cmocka_unit_test(test_rules_without_fix),
	    cmocka_unit_test(test_verdict_saves_and_unchanged_fix),
	    cmocka_unit_test(test_verdict_ordered_by_saving),
	    cmocka_unit_test(test_host_code_range_of_another_thread),
	    cmocka_unit_test(test_whatif_steps_are_the_programs),
	    cmocka_unit_test(test_comm_nothing_waits_for),
	    cmocka_unit_test(test_host_op_removed),
	    cmocka_unit_test(test_host_code_split_by_operator_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
