/*
 * test_multi.c - cmocka tests of the multi-trace comparison
 * (viewer/analysis/multi.c): hand-built per-rank step and communication
 * tables; every straggler, lag, median and wait below is worked out by hand
 * in the comment next to it, not copied from the code's output. Also the
 * exposed-communication cut of gs_multi_extract on a synthetic timeline,
 * the choice of the step name and of the common clock. No I/O.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "multi.h"

#define IV(a, b) ((struct gs_multi_iv){(a), (b)})

/* Three ranks, three steps (ns):
 *   rank 0 steps [0,100] [200,300] [400,500]
 *   rank 1 steps [0,110] [210,320] [400,505]
 *   rank 2 steps [5,150] [250,360] [430,480]
 * step 0: starts 0,0,5 -> rank 2 last by 5; ends 100,110,150 -> rank 2 by 40
 * step 1: starts 200,210,250 -> rank 2 by 40; ends 300,320,360 -> rank 2 by 40
 * step 2: starts 400,400,430 -> rank 2 by 30; ends 500,505,480 -> rank 1 by 5
 * rank 2 ends last twice (lags 40, 40: median 40), rank 1 once (5): the
 * straggler is rank 2. Communication inside the steps:
 *   rank 0 [60,100] [250,300] [450,500]        -> 40, 50, 50: median 50, sum 140
 *   rank 1 [90,110] [280,320] [500,600]        -> 20, 40, 5 (only [500,505]):
 *                                                  median 20, sum 65
 *   rank 2 [140,150]                           -> 10, 0, 0: median 0
 * others' wait: {40,50,50,20,40,5} sorted 5 20 40 40 50 50, nearest rank
 * ceil(0.5 * 6) = 3rd: 40. Step medians: rank 0 {100,100,100} 100; rank 2
 * {145,110,50} -> 110. */
static void test_three_ranks_rank2_ends_last(void **state)
{
	static const struct gs_multi_iv s0[] = {IV(0, 100), IV(200, 300), IV(400, 500)};
	static const struct gs_multi_iv s1[] = {IV(0, 110), IV(210, 320), IV(400, 505)};
	static const struct gs_multi_iv s2[] = {IV(5, 150), IV(250, 360), IV(430, 480)};
	static const struct gs_multi_iv c0[] = {IV(60, 100), IV(250, 300), IV(450, 500)};
	static const struct gs_multi_iv c1[] = {IV(90, 110), IV(280, 320), IV(500, 600)};
	static const struct gs_multi_iv c2[] = {IV(140, 150)};
	const struct gs_multi_rank r[3] = {
	    {s0, 3, c0, 3},
	    {s1, 3, c1, 3},
	    {s2, 3, c2, 1},
	};
	struct gs_multi_result m;

	(void)state;
	assert_int_equal(gs_multi_compare(r, 3, &m), 0);
	assert_int_equal(m.n_steps, 3);
	assert_int_equal(m.steps[0].last_start_rank, 2);
	assert_int_equal(m.steps[0].start_lag, 5);
	assert_int_equal(m.steps[0].last_end_rank, 2);
	assert_int_equal(m.steps[0].end_lag, 40);
	assert_int_equal(m.steps[0].first_start, 0);
	assert_int_equal(m.steps[1].start_lag, 40);
	assert_int_equal(m.steps[1].end_lag, 40);
	assert_int_equal(m.steps[2].last_start_rank, 2);
	assert_int_equal(m.steps[2].start_lag, 30);
	assert_int_equal(m.steps[2].last_end_rank, 1);
	assert_int_equal(m.steps[2].end_lag, 5);
	assert_int_equal(m.ranks[2].last_starts, 3);
	assert_int_equal(m.ranks[2].last_ends, 2);
	assert_int_equal(m.ranks[1].last_ends, 1);
	assert_int_equal(m.ranks[0].last_ends, 0);
	assert_int_equal(m.ranks[2].end_lag_p50, 40);
	assert_int_equal(m.ranks[1].end_lag_p50, 5);
	assert_int_equal(m.ranks[0].end_lag_p50, 0);
	assert_int_equal(m.ranks[0].comm_p50, 50);
	assert_int_equal(m.ranks[0].comm_total, 140);
	assert_int_equal(m.ranks[1].comm_p50, 20);
	assert_int_equal(m.ranks[1].comm_total, 65);
	assert_int_equal(m.ranks[2].comm_p50, 0);
	assert_int_equal(m.ranks[2].comm_total, 10);
	assert_int_equal(m.ranks[0].step_p50, 100);
	assert_int_equal(m.ranks[2].step_p50, 110);
	assert_int_equal(m.straggler, 2);
	/* the evidence: rank 2's end minus the latest other end in every
	 * step: 150-110 = 40, 360-320 = 40, 480-505 = -25; sorted -25 40 40,
	 * median (2nd) 40; deviations from it 65 0 0, median 0: 40 > 0 */
	assert_int_equal(m.candidate, 2);
	assert_int_equal(m.lag_p50, 40);
	assert_int_equal(m.lag_spread, 0);
	assert_int_equal(m.why, GS_MULTI_NAMED);
	assert_int_equal(m.others_wait_p50, 40);
	/* rank 2's own communication a step is 0 (median of 10, 0, 0): all 40
	 * of the others' is waiting for it */
	assert_int_equal(m.others_wait_for_straggler, 40);
	gs_multi_result_free(&m);
}

/* Two ranks that each end last once: rank 0 by 10 in step 0 ([0,110] vs
 * [0,100]), rank 1 by 30 in step 1 ([200,330] vs [200,300]): equal counts,
 * the larger median lag (30) makes rank 1 the candidate - but 2 steps are
 * fewer than the 3 a straggler needs: no one is named. Its lag in every
 * step: -10, 30 (median, nearest rank 1st: -10; deviations 0, 40: 0).
 * Equal ends in step 2 ([400,500] both): the lower index, rank 0, by 0 -
 * which makes rank 0 last twice (lags 10 and 0: median, nearest rank 1st
 * of {0,10} = 0) and rank 1 once: rank 0 is the candidate, but a median
 * lag of 0 names no one (the ranks end together). Its lag in every step:
 * 10, 300-330 = -30, 0: median 0, deviations 10 30 0: median 10. */
static void test_ties(void **state)
{
	static const struct gs_multi_iv a2[] = {IV(0, 110), IV(200, 300)};
	static const struct gs_multi_iv b2[] = {IV(0, 100), IV(200, 330)};
	static const struct gs_multi_iv a3[] = {IV(0, 110), IV(200, 300), IV(400, 500)};
	static const struct gs_multi_iv b3[] = {IV(0, 100), IV(200, 330), IV(400, 500)};
	struct gs_multi_rank r[2] = {{a2, 2, NULL, 0}, {b2, 2, NULL, 0}};
	struct gs_multi_result m;

	(void)state;
	assert_int_equal(gs_multi_compare(r, 2, &m), 0);
	assert_int_equal(m.ranks[0].last_ends, 1);
	assert_int_equal(m.ranks[1].last_ends, 1);
	assert_int_equal(m.candidate, 1);
	assert_int_equal(m.lag_p50, -10);
	assert_int_equal(m.lag_spread, 0);
	assert_int_equal(m.why, GS_MULTI_FEW_STEPS);
	assert_int_equal(m.straggler, GS_NONE);
	assert_int_equal(m.others_wait_p50, 0);
	assert_int_equal(m.others_wait_for_straggler, 0); /* no communication at all */
	gs_multi_result_free(&m);

	r[0] = (struct gs_multi_rank){a3, 3, NULL, 0};
	r[1] = (struct gs_multi_rank){b3, 3, NULL, 0};
	assert_int_equal(gs_multi_compare(r, 2, &m), 0);
	assert_int_equal(m.steps[2].last_end_rank, 0);
	assert_int_equal(m.steps[2].end_lag, 0);
	assert_int_equal(m.ranks[0].last_ends, 2);
	assert_int_equal(m.ranks[0].end_lag_p50, 0);
	assert_int_equal(m.candidate, 0);
	assert_int_equal(m.lag_p50, 0);
	assert_int_equal(m.lag_spread, 10);
	assert_int_equal(m.why, GS_MULTI_END_TOGETHER);
	assert_int_equal(m.straggler, GS_NONE); /* its median lag is 0: no straggler */
	gs_multi_result_free(&m);
}

/* Step counts differ (3 and 2): only the 2 common occurrences are compared;
 * one rank alone, or no common step: no straggler. */
static void test_uneven_and_single(void **state)
{
	static const struct gs_multi_iv a[] = {IV(0, 10), IV(20, 30), IV(40, 50)};
	static const struct gs_multi_iv b[] = {IV(0, 12), IV(20, 35)};
	struct gs_multi_rank r[2] = {{a, 3, NULL, 0}, {b, 2, NULL, 0}};
	struct gs_multi_result m;

	(void)state;
	assert_int_equal(gs_multi_compare(r, 2, &m), 0);
	assert_int_equal(m.n_steps, 2);
	assert_int_equal(m.candidate, 1);	     /* ends last both times, by 2 and 5 */
	assert_int_equal(m.ranks[1].end_lag_p50, 2); /* nearest rank 1st of {2,5} */
	assert_int_equal(m.why, GS_MULTI_FEW_STEPS); /* 2 steps: not named */
	assert_int_equal(m.straggler, GS_NONE);
	gs_multi_result_free(&m);

	assert_int_equal(gs_multi_compare(r, 1, &m), 0);
	assert_int_equal(m.n_steps, 3);
	assert_int_equal(m.straggler, GS_NONE);
	assert_int_equal(m.candidate, GS_NONE);
	assert_int_equal(m.why, GS_MULTI_NOTHING);
	assert_int_equal(m.steps[0].end_lag, 0);
	gs_multi_result_free(&m);

	r[1].n_steps = 0;
	assert_int_equal(gs_multi_compare(r, 2, &m), 0);
	assert_int_equal(m.n_steps, 0);
	assert_int_equal(m.straggler, GS_NONE);
	gs_multi_result_free(&m);
}

/* The evidence rule on two ranks and five steps, rank 0 ending every step
 * at 100 i + 50 and rank 1 at 100 i + 50 + d_i.
 * (a) d = 30 -20 40 -50 10: rank 1 ends last in steps 0 2 4 (3 times),
 *     rank 0 in 1 3: rank 1 is the candidate, end lag p50 = median of
 *     {30, 40, 10} = 30 (2nd of 10 30 40). Its lag in every step is d:
 *     sorted -50 -20 10 30 40, median (3rd) 10; deviations |d - 10| =
 *     20 30 30 60 0, sorted 0 20 30 30 60, median 30: 10 is within the
 *     spread 30, so no straggler.
 * (b) d = 100 90 120 -10 100: last in 4 steps; median of -10 90 100 100
 *     120 is 100; deviations 0 10 20 110 0 -> 0 0 10 20 110, median 10:
 *     100 > 10, rank 1 is named.
 * (c) d = 10 30 -10 20 0: in step 4 the ends are equal and the tie goes
 *     to rank 0 (lag 0). Rank 1 is last in steps 0 1 3 (end lag p50 of
 *     10 30 20 = 20), the candidate; median of -10 0 10 20 30 is 10,
 *     deviations 0 20 20 10 10 -> 0 10 10 20 20, median 10: a lag equal
 *     to the spread is not above it - no straggler.
 * (d) (b) cut to its first 3 steps: 100 90 120, median 100, deviations
 *     0 10 20, median 10: three steps are enough, named. */
static void test_straggler_evidence(void **state)
{
	static const int64_t da[5] = {30, -20, 40, -50, 10}, db[5] = {100, 90, 120, -10, 100};
	static const int64_t dc[5] = {10, 30, -10, 20, 0};
	const int64_t *d[3] = {da, db, dc};
	struct gs_multi_iv s0[5], s1[5];
	struct gs_multi_rank r[2] = {{s0, 5, NULL, 0}, {s1, 5, NULL, 0}};
	struct gs_multi_result m;
	int c, i;

	(void)state;
	for (c = 0; c < 3; c++) {
		for (i = 0; i < 5; i++) {
			s0[i] = IV(100 * i, 100 * i + 50);
			s1[i] = IV(100 * i, 100 * i + 50 + d[c][i]);
		}
		assert_int_equal(gs_multi_compare(r, 2, &m), 0);
		assert_int_equal(m.candidate, 1);
		if (c == 0) {
			assert_int_equal(m.ranks[1].last_ends, 3);
			assert_int_equal(m.ranks[1].end_lag_p50, 30);
			assert_int_equal(m.lag_p50, 10);
			assert_int_equal(m.lag_spread, 30);
			assert_int_equal(m.why, GS_MULTI_IN_SPREAD);
			assert_int_equal(m.straggler, GS_NONE);
		} else if (c == 1) {
			assert_int_equal(m.ranks[1].last_ends, 4);
			assert_int_equal(m.lag_p50, 100);
			assert_int_equal(m.lag_spread, 10);
			assert_int_equal(m.why, GS_MULTI_NAMED);
			assert_int_equal(m.straggler, 1);
		} else {
			assert_int_equal(m.ranks[1].last_ends, 3);
			assert_int_equal(m.ranks[0].last_ends, 2);
			assert_int_equal(m.ranks[1].end_lag_p50, 20);
			assert_int_equal(m.lag_p50, 10);
			assert_int_equal(m.lag_spread, 10);
			assert_int_equal(m.why, GS_MULTI_IN_SPREAD);
			assert_int_equal(m.straggler, GS_NONE);
		}
		gs_multi_result_free(&m);
	}
	for (i = 0; i < 5; i++) {
		s0[i] = IV(100 * i, 100 * i + 50);
		s1[i] = IV(100 * i, 100 * i + 50 + db[i]);
	}
	r[0].n_steps = r[1].n_steps = 3;
	assert_int_equal(gs_multi_compare(r, 2, &m), 0);
	assert_int_equal(m.n_steps, 3);
	assert_int_equal(m.lag_p50, 100);
	assert_int_equal(m.lag_spread, 10);
	assert_int_equal(m.why, GS_MULTI_NAMED);
	assert_int_equal(m.straggler, 1);
	gs_multi_result_free(&m);
}

static void test_covered(void **state)
{
	static const struct gs_multi_iv c[] = {IV(10, 20), IV(30, 40), IV(50, 60)};

	(void)state;
	assert_int_equal(gs_multi_covered(c, 3, 0, 100), 30);
	assert_int_equal(gs_multi_covered(c, 3, 15, 35), 10); /* 5 + 5 */
	assert_int_equal(gs_multi_covered(c, 3, 20, 30), 0);
	assert_int_equal(gs_multi_covered(c, 3, 55, 58), 3);
	assert_int_equal(gs_multi_covered(NULL, 0, 0, 100), 0);
}

enum { S_COMPUTE = 1, S_NCCL, S_STEP, S_ALLREDUCE, S_N };
static const char *strtab[S_N] = {NULL, "gemm", "ncclDevKernel_AllReduce_Sum_f32", "step",
				  "allreduce"};

/* Device 0: gemm [0,100], nccl [50,200], gemm [150,160], nccl [300,400];
 * device 1: nccl [350,450]. Exposed: device 0 [100,150] [160,200]
 * [300,400], device 1 [350,450]; their union [100,150] [160,200] [300,450].
 * NVTX (tid 1): step [0,250], step [280,460], allreduce [40,60] and [50,70]
 * (a second thread), a mark "step" at 500 (not a range). */
static void test_extract(void **state)
{
	static const struct gs_op ops[] = {
	    {.start = 0, .end = 100, .name_id = S_COMPUTE, .stream = 7, .device = 0},
	    {.start = 50, .end = 200, .name_id = S_NCCL, .stream = 8, .device = 0},
	    {.start = 150, .end = 160, .name_id = S_COMPUTE, .stream = 7, .device = 0},
	    {.start = 300, .end = 400, .name_id = S_NCCL, .stream = 8, .device = 0},
	    {.start = 350, .end = 450, .name_id = S_NCCL, .stream = 9, .device = 1},
	};
	static const struct gs_nvtx nv[] = {
	    {.start = 280, .end = 460, .text_id = S_STEP, .tid = 1},
	    {.start = 0, .end = 250, .text_id = S_STEP, .tid = 1},
	    {.start = 40, .end = 60, .text_id = S_ALLREDUCE, .tid = 1},
	    {.start = 50, .end = 70, .text_id = S_ALLREDUCE, .tid = 2},
	    {.start = 500, .end = 500, .text_id = S_STEP, .tid = 1, .kind = 1},
	};
	struct gs_input in;
	struct gs_options o;
	struct gs_result res;
	struct gs_multi_trace t, t2;
	struct gs_multi_iv *steps = NULL;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.ops = ops;
	in.n_ops = 5;
	in.nvtx = nv;
	in.n_nvtx = 5;
	in.strings.v = strtab;
	in.strings.n = S_N;
	in.kernel_overhead_ns = -1;
	gs_options_init(&o);
	assert_int_equal(gs_analyze(&in, &o, &res), 0);

	memset(&t, 0, sizeof(t));
	assert_int_equal(gs_multi_extract(&in, &res, NULL, &t), 0);
	assert_int_equal(t.n_comm, 3);
	assert_int_equal(t.comm[0].start, 100);
	assert_int_equal(t.comm[0].end, 150);
	assert_int_equal(t.comm[1].start, 160);
	assert_int_equal(t.comm[1].end, 200);
	assert_int_equal(t.comm[2].start, 300);
	assert_int_equal(t.comm[2].end, 450);
	/* device 0 window [0,400] busy [0,200]+[300,400] = 300; device 1
	 * [350,450] busy 100: window 500, busy 400 */
	assert_int_equal(t.window, 500);
	assert_int_equal(t.busy, 400);
	assert_int_equal(t.first, 0);
	assert_int_equal(t.last, 450);
	assert_int_equal(t.n_names, 2);
	assert_int_equal(t.n_ranges, 4);	/* the mark is left out */
	assert_int_equal(t.ranges[0].start, 0); /* sorted by start */
	t.offset = 1000;
	assert_int_equal(gs_multi_steps(&t, "step", &steps), 2);
	assert_int_equal(steps[0].start, 1000);
	assert_int_equal(steps[0].end, 1250);
	assert_int_equal(steps[1].start, 1280);
	free(steps);
	assert_int_equal(gs_multi_steps(&t, "none", &steps), 0);
	assert_null(steps);

	/* the gloo case: communication = the union of "allreduce" ranges */
	memset(&t2, 0, sizeof(t2));
	assert_int_equal(gs_multi_extract(&in, &res, "allreduce", &t2), 0);
	assert_int_equal(t2.n_comm, 1);
	assert_int_equal(t2.comm[0].start, 40);
	assert_int_equal(t2.comm[0].end, 70);

	/* step name: "step" and "allreduce" occur 2 times each in both
	 * traces; steps last longer ([0,250] + [280,460] = 430 per trace,
	 * allreduce 20 + 20): "step". Then the second trace cut to its first
	 * ranges (sorted: step [0,250], allreduce [40,60], allreduce [50,70]) */
	{
		struct gs_multi_trace v[2];
		memcpy(&v[0], &t, sizeof(t));
		memcpy(&v[1], &t2, sizeof(t2));
		assert_string_equal(gs_multi_pick_step(v, 2, NULL), "step");
		assert_string_equal(gs_multi_pick_step(v, 2, "step"), "allreduce");
		v[1].n_ranges = 3; /* step 1, allreduce 2: minimum 1 vs 2 */
		assert_string_equal(gs_multi_pick_step(v, 2, NULL), "allreduce");
		v[1].n_ranges = 2; /* 1 and 1; steps 430 + 250, allreduce 40 + 20 */
		assert_string_equal(gs_multi_pick_step(v, 2, NULL), "step");
		v[1].n_ranges = 1; /* only step [0,250] */
		assert_string_equal(gs_multi_pick_step(v, 2, NULL), "step");
		assert_null(gs_multi_pick_step(v, 2, "step"));
		v[1].n_ranges = 0;
		assert_null(gs_multi_pick_step(v, 2, NULL));
	}
	gs_multi_trace_free(&t);
	gs_multi_trace_free(&t2);
	gs_result_free(&res);
}

/* torch.profiler numbers its steps (ProfilerStep#551, #552): the family is
 * the step where every trace has it, over a name more frequent in each
 * (HTA's two sampled A100 ranks: nccl:all_to_all, 4 a trace, was picked) */
static void test_profiler_steps(void **state)
{
	char *na[] = {"ProfilerStep#551", "ProfilerStep#552", "nccl:all_to_all", "ProfilerStep#x",
		      "ProfilerStep#1234567890123456789"};
	char *nb[] = {"nccl:all_to_all", "ProfilerStep#552", "ProfilerStep#551"};
	struct gs_multi_range ra[] = {{0, 100, 0},   {10, 20, 2},   {30, 40, 2},   {100, 200, 1},
				      {110, 120, 2}, {130, 140, 2}, {150, 160, 3}, {170, 180, 4}};
	struct gs_multi_range rb[] = {{5, 105, 2},   {15, 25, 0},   {35, 45, 0},
				      {105, 210, 1}, {115, 125, 0}, {135, 145, 0}};
	struct gs_multi_trace v[2];
	struct gs_multi_iv *steps = NULL;

	(void)state;
	memset(v, 0, sizeof(v));
	v[0].names = na;
	v[0].n_names = 5;
	v[0].ranges = ra;
	v[0].n_ranges = 8;
	v[1].names = nb;
	v[1].n_names = 3;
	v[1].ranges = rb;
	v[1].n_ranges = 6;
	assert_string_equal(gs_multi_pick_step(v, 2, NULL), GS_MULTI_PROFILER_STEPS);
	/* #551 [0,100] and #552 [100,200]; not "#x", nor 19 digits */
	assert_int_equal(gs_multi_steps(&v[0], GS_MULTI_PROFILER_STEPS, &steps), 2);
	assert_int_equal(steps[0].start, 0);
	assert_int_equal(steps[1].start, 100);
	assert_int_equal(steps[1].end, 200);
	free(steps);
	/* a given name still means that name only */
	assert_int_equal(gs_multi_steps(&v[0], "ProfilerStep#552", &steps), 1);
	assert_int_equal(steps[0].start, 100);
	free(steps);
	/* the second trace without profiler steps: the most frequent name */
	v[1].n_ranges = 3;
	rb[1].name = 0;
	rb[0].name = 0;
	v[1].n_names = 1;
	assert_string_equal(gs_multi_pick_step(v, 2, NULL), "nccl:all_to_all");
	/* the communication name excluded is never the step */
	assert_null(gs_multi_pick_step(v, 2, "nccl:all_to_all"));
}

/* Same host: CLOCK_MONOTONIC offsets; another host: realtime; an offset
 * missing: none. */
static void test_align(void **state)
{
	struct gs_multi_trace t[2];
	char h0[] = "node1", h1[] = "node1", h2[] = "node2";

	(void)state;
	memset(t, 0, sizeof(t));
	t[0] = (struct gs_multi_trace){
	    .hostname = h0, .has_mono = 1, .has_real = 1, .mono_offset = -100, .real_offset = 5000};
	t[1] = (struct gs_multi_trace){
	    .hostname = h1, .has_mono = 1, .has_real = 1, .mono_offset = -300, .real_offset = 7000};
	assert_int_equal(gs_multi_align(t, 2), GS_MULTI_CLOCK_MONOTONIC);
	assert_int_equal(t[0].offset, -100);
	assert_int_equal(t[1].offset, -300);
	t[1].hostname = h2;
	assert_int_equal(gs_multi_align(t, 2), GS_MULTI_CLOCK_REALTIME);
	assert_int_equal(t[1].offset, 7000);
	t[1].has_real = 0;
	assert_int_equal(gs_multi_align(t, 2), GS_MULTI_CLOCK_NONE);
	assert_int_equal(t[0].offset, 0);
}

/* Traces that ran together share an instant of their GPU windows (on the
 * common clock: first/last + offset); traces that did not are apart by
 * the latest start minus the earliest end; a trace without GPU work does
 * not count. */
static void test_apart(void **state)
{
	struct gs_multi_trace t[3];

	(void)state;
	memset(t, 0, sizeof(t));
	/* [1000, 5000] + 0 and [3000, 9000] - 1000 = [2000, 8000]: overlap */
	t[0] = (struct gs_multi_trace){.first = 1000, .last = 5000, .window = 4000, .offset = 0};
	t[1] =
	    (struct gs_multi_trace){.first = 3000, .last = 9000, .window = 6000, .offset = -1000};
	assert_int_equal(gs_multi_apart(t, 2), 0);
	/* touching at one instant: still together */
	t[1].offset = 2000; /* [5000, 11000] */
	assert_int_equal(gs_multi_apart(t, 2), 0);
	/* an hour later: [3600e9 + 3000, ...] begins 3600e9 + 3000 - 5000 after t[0] ends */
	t[1].offset = 3600000000000LL;
	assert_int_equal(gs_multi_apart(t, 2), 3600000000000LL + 3000 - 5000);
	/* a third, between them, does not change the distance of the outer two:
	 * latest start t[1] minus earliest end t[0] */
	t[2] = (struct gs_multi_trace){.first = 0, .last = 100, .window = 100, .offset = 1000000};
	assert_int_equal(gs_multi_apart(t, 3), 3600000000000LL + 3000 - 5000);
	/* a trace without GPU work is left out */
	t[2] = (struct gs_multi_trace){.first = 0, .last = 0, .window = 0, .offset = 0};
	t[1].offset = 0;
	assert_int_equal(gs_multi_apart(t, 3), 0);
	assert_int_equal(gs_multi_apart(t, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_three_ranks_rank2_ends_last),
	    cmocka_unit_test(test_ties),
	    cmocka_unit_test(test_uneven_and_single),
	    cmocka_unit_test(test_straggler_evidence),
	    cmocka_unit_test(test_covered),
	    cmocka_unit_test(test_extract),
	    cmocka_unit_test(test_profiler_steps),
	    cmocka_unit_test(test_align),
	    cmocka_unit_test(test_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
