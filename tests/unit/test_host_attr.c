/*
 * test_host_attr.c - cmocka tests of what the host ran in host code
 * (viewer/analysis/host_attr.c) and of the samples' loader
 * (viewer/trace/trace_samples.c), on hand-built timelines and a small
 * database made here: the samples of a host-code segment by function with
 * their shares, the line most of them were at, the framework's share; the
 * sum over every host-code segment, split into the framework's and the
 * program's own; an imported trace's host spans by their own time; the
 * gap's sentence and the verdict's host-code findings naming them. Every
 * expected figure is worked out by hand in the comment next to it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "analysis.h"
#include "report.h"
#include "trace_samples.h"

enum {
	S_LAUNCH = 1,
	S_KA,
	S_TRAIN,    /* /home/u/train.py */
	S_STEPFN,   /* step */
	S_TORCHF,   /* .../site-packages/torch/nn/functional.py */
	S_LINEAR,   /* linear */
	S_ATEN_ADD, /* aten::addmm */
	S_ATEN_LIN, /* aten::linear */
	S_MYFUNC,   /* my_func */
	S_OTHER,    /* other_thread_op */
	S_TORCHK,   /* a PyTorch kernel */
	S_MEMCPY,   /* cudaMemcpyAsync */
	S_LOADER,   /* .../site-packages/torch/utils/data/dataloader.py */
	S_TRYGET,   /* _try_get_data */
	S_N
};

static const char *strtab[S_N] = {
    NULL,
    "cudaLaunchKernel",
    "kA",
    "/home/u/train.py",
    "step",
    "/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py",
    "linear",
    "aten::addmm",
    "aten::linear",
    "my_func",
    "other_thread_op",
    "void at::native::vectorized_elementwise_kernel<4>(int)",
    "cudaMemcpyAsync",
    "/opt/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py",
    "_try_get_data",
};

struct tb {
	struct gs_op ops[32];
	struct gs_api apis[32];
	struct gs_hstack hstacks[5];
	struct gs_hsample samples[64];
	struct gs_hwait waits[16];
	struct gs_hrange hranges[8];
	struct gs_nvtx nvtx[16];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct gs_verdict v;
};

static struct tb *tb_new(void)
{
	struct tb *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	t->in.ops = t->ops;
	t->in.apis = t->apis;
	t->in.strings.v = strtab;
	t->in.strings.n = S_N;
	t->in.kernel_overhead_ns = -1;
	/* stack 1: train.py step line 41 (own); 2: torch's linear line 125
	 * (framework); 3: train.py step line 42 (own) */
	t->hstacks[1] = (struct gs_hstack){S_TRAIN, S_STEPFN, 41, 0, 0, 0, 0};
	t->hstacks[2] = (struct gs_hstack){S_TORCHF, S_LINEAR, 125, 1, 0, 0, 0};
	t->hstacks[3] = (struct gs_hstack){S_TRAIN, S_STEPFN, 42, 0, 0, 0, 0};
	/* 4: the DataLoader waiting for its workers' batch (not the framework) */
	t->hstacks[4] = (struct gs_hstack){S_LOADER, S_TRYGET, 1133, 0, 0, 0, 0};
	t->in.hstacks = t->hstacks;
	t->in.n_hstacks = 5;
	t->in.samples = t->samples;
	t->in.waits = t->waits;
	gs_options_init(&t->opt);
	return t;
}

static void tb_free(struct tb *t)
{
	gs_result_free(&t->res);
	free(t);
}

/* thread 1, device 0, stream 7, n kernels K_i = [1000 + 1000 i, +100]
 * (corr i + 1), K_i's launch call (i >= 1) [K_i.start - 100, +1]: gap i =
 * [1100 + 1000 i, +900) is host code for 800, then launch latency 100. */
static void steps_every(struct tb *t, size_t n, int64_t pitch)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t s = 1000 + pitch * (int64_t)i;
		struct gs_api *a = &t->apis[t->in.n_apis++];
		struct gs_op *o = &t->ops[t->in.n_ops++];
		a->start = i ? s - 100 : 0;
		a->end = a->start + 1;
		a->corr = (uint32_t)i + 1;
		a->name_id = S_LAUNCH;
		a->tid = 1;
		o->start = s;
		o->end = s + 100;
		o->stream = 7;
		o->corr = (uint32_t)i + 1;
		o->name_id = S_KA;
		o->kind = GS_OP_KERNEL;
	}
}

static void steps(struct tb *t, size_t n)
{
	steps_every(t, n, 1000);
}

/* samples must come in (tid, t) order */
static void sample(struct tb *t, uint32_t tid, int64_t at, uint32_t stack)
{
	t->samples[t->in.n_samples++] = (struct gs_hsample){at, tid, stack};
}

static void run(struct tb *t)
{
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	gs_verdict_compute(&t->res, &t->v);
}

/* the verdict's (last) finding of rule, or NULL */
static const struct gs_finding *finding_of(const struct tb *t, int rule)
{
	const struct gs_finding *f = NULL;
	size_t i;

	for (i = 0; i < t->v.n_findings; i++)
		if (t->v.findings[i].rule == rule)
			f = &t->v.findings[i];
	return f;
}

/* Gap 0's host code [1100, 1900) on thread 1 holds the samples at 1100
 * (stack 1), 1150 (1), 1160 (no frame), 1350 (3), 1450 (2); those at 1900
 * (launch latency) and on thread 2 are not in it. So 5 samples, 4 with a
 * frame, 1 the framework's; step (stacks 1, 3) 3 = 60% at line 41 (2 of
 * its 3), linear 1 = 20%. */
static void gap0_samples(struct tb *t)
{
	sample(t, 1, 1100, 1);
	sample(t, 1, 1150, 1);
	sample(t, 1, 1160, 0);
	sample(t, 1, 1350, 3);
	sample(t, 1, 1450, 2);
	sample(t, 1, 1900, 2);
}

static void test_segment_samples_by_function_with_shares(void **state)
{
	struct tb *t = tb_new();
	struct gs_host_attr a;
	(void)state;

	steps(t, 3);
	gap0_samples(t);
	sample(t, 2, 1500, 2);
	gs_host_attribute(&t->in, 1, 1100, 1900, &a);
	assert_int_equal(a.source, GS_HOST_SRC_SAMPLES);
	assert_int_equal(a.total, 5);
	assert_int_equal(a.named, 4);
	assert_int_equal(a.framework, 1);
	assert_int_equal(a.n_top, 2);
	assert_int_equal(a.top[0].file_id, S_TRAIN);
	assert_int_equal(a.top[0].func_id, S_STEPFN);
	assert_int_equal(a.top[0].line, 41);
	assert_int_equal(a.top[0].weight, 3);
	assert_int_equal(a.top[0].framework, 0);
	assert_int_equal(a.top[1].func_id, S_LINEAR);
	assert_int_equal(a.top[1].weight, 1);
	assert_int_equal(a.top[1].framework, 1);
	/* thread 2 over the same time: its one sample, linear */
	gs_host_attribute(&t->in, 2, 1100, 1900, &a);
	assert_int_equal(a.total, 1);
	assert_int_equal(a.top[0].func_id, S_LINEAR);
	/* an empty span: nothing */
	gs_host_attribute(&t->in, 1, 1600, 1700, &a);
	assert_int_equal(a.total, 0);
	assert_int_equal(a.source, GS_HOST_SRC_NONE);
	tb_free(t);
}

static void test_gap_sentence_names_top_functions(void **state)
{
	struct tb *t = tb_new();
	char buf[512];
	(void)state;

	steps(t, 3);
	gap0_samples(t);
	run(t);
	assert_int_equal(t->res.devices[0].n_gaps, 2);
	gap_segments_text(buf, sizeof(buf), &t->in, &t->res, &t->res.devices[0].gaps[0]);
	/* 60% and 20% (the second is named at 20% or more); the file from
	 * the package on, or its last two parts */
	assert_string_equal(buf, "800 ns host code on thread 1: 60% u/train.py:step line 41, 20% "
				 "torch/nn/functional.py:linear line 125, then 100 ns launch "
				 "latency (cudaLaunchKernel)");
	/* gap 1 has no sample: the sentence as before */
	gap_segments_text(buf, sizeof(buf), &t->in, &t->res, &t->res.devices[0].gaps[1]);
	assert_string_equal(buf, "800 ns host code on thread 1, then 100 ns launch latency "
				 "(cudaLaunchKernel)");
	tb_free(t);
}

/* cmocka before 1.1.6 has no assert_double_equal */
#define assert_near(x, y) assert_true(fabs((double)(x) - (double)(y)) < 1e-9)

/* gs_host_running of thread tid's [1100, 1900) */
static double running(struct tb *t, uint32_t tid)
{
	struct gs_host_attr a;

	gs_host_attribute(&t->in, tid, 1100, 1900, &a);
	return gs_host_running(&t->in, &a);
}

/* How much of a segment the thread ran: its samples there times the CPU
 * time each stands for, over the segment's length. Gap 0's host code
 * [1100, 1900) on thread 1 holds 5 samples (gap0_samples); at 40 ns each
 * that is 200 of 800 ns, 25%. */
static void test_running_share_of_a_segment(void **state)
{
	struct tb *t = tb_new();
	char buf[512];
	int i;
	(void)state;

	steps(t, 3);
	sample(t, 1, 500, 1); /* thread 1 sampled before the gap */
	gap0_samples(t);
	sample(t, 2, 1500, 2); /* thread 2's first sample: not before 1100 */
	sample(t, 3, 0, 1);    /* thread 3: 21 samples in [1100, 1900) */
	for (i = 0; i < 21; i++)
		sample(t, 3, 1100 + i, 1);
	t->in.sample_cpu_ns = 40;
	run(t);
	assert_near(running(t, 1), 0.25);
	/* not sampled yet at the segment's start: unknown */
	assert_near(running(t, 2), -1.0);
	/* 21 x 40 = 840 ns in 800: at most all of it */
	assert_near(running(t, 3), 1.0);
	gap_segments_text(buf, sizeof(buf), &t->in, &t->res, &t->res.devices[0].gaps[0]);
	assert_string_equal(buf, "800 ns host code on thread 1 (running 25% of it): 60% u/train.py:step "
				 "line 41, 20% torch/nn/functional.py:linear line 125, then 100 ns "
				 "launch latency (cudaLaunchKernel)");
	/* 50 ns a sample: 800 ns is under 20 of them, too short to tell */
	t->in.sample_cpu_ns = 50;
	assert_near(running(t, 1), -1.0);
	/* 20 ns a sample: 5 x 20 = 100 of 800 ns, 12.5% */
	t->in.sample_cpu_ns = 20;
	assert_near(running(t, 1), 0.125);
	/* the trace has no such figure (before 2026-12-07): nothing said */
	t->in.sample_cpu_ns = 0;
	assert_near(running(t, 1), -1.0);
	gap_segments_text(buf, sizeof(buf), &t->in, &t->res, &t->res.devices[0].gaps[0]);
	assert_string_equal(buf, "800 ns host code on thread 1: 60% u/train.py:step line 41, 20% "
				 "torch/nn/functional.py:linear line 125, then 100 ns launch "
				 "latency (cudaLaunchKernel)");
	tb_free(t);
}

/* waits must come in (tid, t) order */
static void wait_at(struct tb *t, uint32_t tid, int64_t at, int64_t ns, uint32_t stack)
{
	t->waits[t->in.n_waits++] = (struct gs_hwait){at, ns, tid, stack};
}

/* Off-CPU samples weigh the time they stand for, CPU samples the CPU time
 * each stands for (40 ns here). Gap 0's host code [1100, 1900) on thread 1:
 * CPU samples at 1100 and 1150 (stack 1, step line 41): 2 x 40 = 80 ns;
 * off-CPU samples of stack 4 (the DataLoader's _try_get_data) standing for
 * [950, 1050] (before it: none), [1100, 1400] (300), [1400, 1800] (400),
 * [1850, 2000] (its part up to 1900: 50); thread 2's is not thread 1's.
 * Total 80 + 750 = 830 ns; waiting 750 = 90.4%, step 80 = 9.6%. 5 samples. */
static void test_off_cpu_samples_weigh_their_time(void **state)
{
	struct tb *t = tb_new();
	struct gs_host_attr a;
	char buf[512];
	(void)state;

	steps(t, 3);
	sample(t, 1, 500, 1); /* sampled before the gap */
	sample(t, 1, 1100, 1);
	sample(t, 1, 1150, 1);
	wait_at(t, 1, 1050, 100, 4);
	wait_at(t, 1, 1400, 300, 4);
	wait_at(t, 1, 1800, 400, 4);
	wait_at(t, 1, 2000, 150, 4);
	wait_at(t, 2, 1500, 400, 4);
	t->in.sample_cpu_ns = 40;
	gs_host_attribute(&t->in, 1, 1100, 1900, &a);
	assert_int_equal(a.source, GS_HOST_SRC_SAMPLES);
	assert_int_equal(a.unit_ns, 1);
	assert_int_equal(a.samples, 5);
	assert_int_equal(a.total, 830);
	assert_int_equal(a.named, 830);
	assert_int_equal(a.wait_ns, 750);
	assert_int_equal(a.n_top, 2);
	assert_int_equal(a.top[0].func_id, S_TRYGET);
	assert_int_equal(a.top[0].wait, 1);
	assert_int_equal(a.top[0].weight, 750);
	assert_int_equal(a.top[0].line, 1133);
	assert_int_equal(a.top[1].func_id, S_STEPFN);
	assert_int_equal(a.top[1].wait, 0);
	assert_int_equal(a.top[1].weight, 80);
	/* the thread ran 80 of its 800 ns: 10% */
	assert_near(gs_host_running(&t->in, &a), 0.1);
	run(t);
	gap_segments_text(buf, sizeof(buf), &t->in, &t->res, &t->res.devices[0].gaps[0]);
	assert_string_equal(buf, "800 ns host code on thread 1 (running 10% of it): 90% waiting in "
				 "torch/utils/data/dataloader.py:_try_get_data line 1133, then 100 "
				 "ns launch latency (cudaLaunchKernel)");
	/* without the CPU time a sample stands for (it cannot be weighed
	 * against the waits): the samples alone, counted as before */
	t->in.sample_cpu_ns = 0;
	gs_host_attribute(&t->in, 1, 1100, 1900, &a);
	assert_int_equal(a.unit_ns, 0);
	assert_int_equal(a.total, 2);
	assert_int_equal(a.samples, 2);
	assert_int_equal(a.top[0].func_id, S_STEPFN);
	tb_free(t);
}

/* The advice learns that DataLoader workers are on from an off-CPU sample
 * alone (the main thread waiting in _try_get_data, stack 4, loader frame):
 * without it, from these CPU samples (step, no loader frame), it cannot. */
static void test_loader_known_from_off_cpu_samples(void **state)
{
	struct tb *t = tb_new();
	(void)state;

	t->hstacks[4].loader = GS_LOADER_WORKERS;
	steps(t, 3);
	sample(t, 1, 1100, 1);
	sample(t, 1, 1150, 1);
	t->in.sample_cpu_ns = 40;
	run(t);
	assert_int_equal(t->v.facts.loader, GS_LOADER_UNKNOWN);
	gs_result_free(&t->res);
	wait_at(t, 1, 1800, 400, 4);
	run(t);
	assert_int_equal(t->v.facts.loader, GS_LOADER_WORKERS);
	assert_int_equal(t->v.facts.loader_sampled, 1);
	tb_free(t);
}

/* The own-work finding of a loop whose own host code is mostly the main
 * thread waiting for its DataLoader's workers (off-CPU samples of stack 4,
 * _try_get_data) gives the input stall's fix, not "overlap it or move it off
 * the step". 11 kernels 20 us apart: 10 gaps of 19 800 ns host code (own
 * work in a program without a framework: over 5 us a gap). Each gap: CPU
 * samples of step (stack 1) at +100 and +200, and an off-CPU sample of
 * stack 4 for [+1000, +16000] (15 000 ns). At 1000 ns a CPU sample: own
 * 10 x (2000 + 15 000) = 170 000, of it waiting in the loader 150 000:
 * more than half. Without the off-CPU samples, the rule's own fix. */
static void test_own_work_waiting_for_the_loader_gets_the_loader_fix(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f = NULL;
	size_t i;
	(void)state;

	t->hstacks[4].loader = GS_LOADER_WORKERS;
	steps_every(t, 11, 20000);
	for (i = 0; i < 10; i++) {
		int64_t g0 = 1100 + 20000 * (int64_t)i;
		sample(t, 1, g0 + 100, 1);
		sample(t, 1, g0 + 200, 1);
	}
	t->in.sample_cpu_ns = 1000;
	run(t);
	f = finding_of(t, GS_RULE_HOST_OWN);
	assert_non_null(f);
	assert_string_equal(gs_finding_fix(f), gs_rule_fix(GS_RULE_HOST_OWN));
	gs_result_free(&t->res);
	for (i = 0; i < 10; i++)
		wait_at(t, 1, 1100 + 20000 * (int64_t)i + 16000, 15000, 4);
	run(t);
	f = finding_of(t, GS_RULE_HOST_OWN);
	assert_non_null(f);
	assert_string_equal(gs_finding_fix(f),
			    "the DataLoader's workers can't keep up: more num_workers, "
			    "prefetch_factor, persistent_workers, cheaper transforms");
	/* its samples line names the wait: 150 000 of 170 000, 88% */
	assert_non_null(strstr(f->why, "88% waiting in torch/utils/data/dataloader.py:_try_get_data "
					"line 1133"));
	tb_free(t);
}

/* A share below all of it never prints as 100% */
static void test_share_below_all_is_not_100(void **state)
{
	(void)state;
	assert_near(gs_host_pct(995, 1000), 99.0);
	assert_near(gs_host_pct(1000, 1000), 100.0);
	assert_near(gs_host_pct(994, 1000), 99.4);
	assert_near(gs_host_pct(1, 4), 25.0);
}

static void test_sum_over_host_code_split_framework_and_own(void **state)
{
	struct tb *t = tb_new();
	struct gs_host_attr a[3];
	(void)state;

	steps(t, 3);
	gap0_samples(t);
	/* gap 1's host code [2100, 2900): linear 3 times */
	sample(t, 1, 2200, 2);
	sample(t, 1, 2300, 2);
	sample(t, 1, 2400, 2);
	run(t);
	/* 5 + 3 = 8 samples, 7 with a frame, 1 + 3 = 4 the framework's;
	 * linear 4, step 3 */
	assert_int_equal(gs_host_code_attr_split(&t->res, a), 0);
	assert_int_equal(a[0].total, 8);
	assert_int_equal(a[0].named, 7);
	assert_int_equal(a[0].framework, 4);
	assert_int_equal(a[0].n_top, 2);
	assert_int_equal(a[0].top[0].func_id, S_LINEAR);
	assert_int_equal(a[0].top[0].weight, 4);
	assert_int_equal(a[0].top[1].func_id, S_STEPFN);
	assert_int_equal(a[0].top[1].weight, 3);
	assert_int_equal(a[1].n_top, 1);
	assert_int_equal(a[1].top[0].func_id, S_LINEAR);
	assert_int_equal(a[2].n_top, 1);
	assert_int_equal(a[2].top[0].func_id, S_STEPFN);
	assert_int_equal(a[2].total, 8); /* shares stay of all the host code */
	tb_free(t);
}

static void test_verdict_splits_host_code_by_samples(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *fw = NULL, *own = NULL;
	size_t i;
	(void)state;

	/* 11 kernels, 10 gaps: host code 10 * 800 = 8000 of a window of
	 * 10100 (79%). Each gap's host code holds 3 samples: step, step,
	 * linear: 30 samples (>= GS_HOST_MIN_SAMPLES), 10 the framework's.
	 * Without samples the gaps' size (800 ns < GS_HOST_LOOP_NS) would
	 * call all 8000 dispatch; with them: dispatch 8000 * 10 / 30 = 2666
	 * (26.4%), own 5334 (52.8%), each over half the rule's 20%. */
	steps(t, 11);
	for (i = 0; i < 10; i++) {
		int64_t g0 = 1100 + 1000 * (int64_t)i;
		sample(t, 1, g0 + 100, 1);
		sample(t, 1, g0 + 200, 1);
		sample(t, 1, g0 + 300, 2);
	}
	run(t);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 8000);
	fw = finding_of(t, GS_RULE_HOST_CODE);
	own = finding_of(t, GS_RULE_HOST_OWN);
	assert_non_null(fw);
	assert_non_null(own);
	assert_int_equal(fw->cost_ns, 2666);
	assert_int_equal(own->cost_ns, 5334);
	/* shares of all 30: linear 10 = 33%, step 20 = 67% */
	assert_string_equal(fw->why, "samples: 33% torch/nn/functional.py:linear line 125");
	assert_string_equal(own->why, "samples: 67% u/train.py:step line 41");
	tb_free(t);
}

static void test_verdict_few_samples_keep_the_size_rule(void **state)
{
	struct tb *t = tb_new();
	size_t i;
	(void)state;

	/* the same 10 gaps with 19 samples (< 20), all step: the gaps' size
	 * decides, 8000 dispatch, no own-work finding, the rule's own why */
	steps(t, 11);
	for (i = 0; i < 19; i++)
		sample(t, 1, 1100 + 1000 * (int64_t)(i / 2) + 100 + (int64_t)(i % 2), 1);
	run(t);
	assert_int_equal(t->v.findings[0].rule, GS_RULE_HOST_CODE);
	assert_int_equal(t->v.findings[0].cost_ns, 8000);
	assert_string_equal(t->v.findings[0].why, "");
	for (i = 0; i < t->v.n_findings; i++)
		assert_int_not_equal(t->v.findings[i].rule, GS_RULE_HOST_OWN);
	tb_free(t);
}

/* The steady state's findings come from its own analysis, which keeps only
 * the top gaps (top_n) where it needn't walk them all; the samples of the
 * host code are in every gap. Steps "step" (thread 1): step 0 = [0, 20 000]
 * (warm-up: 20x the median), steps j = 1..11 = [R_j, R_j + 1000], R_j =
 * 20 000 + 1000 (j - 1); K_0 = [1000, 1100], K_j = [R_j + 900, R_j + 1000],
 * each launched at its start - 100. The steady state [20 000, 31 000]
 * holds 11 gaps of host code [R_j, R_j + 800): 8800 ns (80%). Gaps j =
 * 2..11 hold 2 samples each of stack 1 (train.py step line 41): 20 samples
 * (GS_HOST_MIN_SAMPLES), none the framework's, so all 8800 are the
 * program's own work and its finding names them. With top_n 3, the top 3
 * gaps alone held 6 samples (the samples line then went missing on
 * py_work_loop.py, H100, 250 Hz). */
static void test_steady_state_samples_of_every_gap(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	int64_t j;
	(void)state;

	for (j = 0; j <= 11; j++) {
		int64_t r = 20000 + 1000 * (j - 1), s = j ? r + 900 : 1000;
		struct gs_api *a = &t->apis[t->in.n_apis++];
		struct gs_op *o = &t->ops[t->in.n_ops++];
		*a = (struct gs_api){.start = s - 100, .end = s - 99, .corr = (uint32_t)j + 1,
				     .name_id = S_LAUNCH, .tid = 1};
		*o = (struct gs_op){.start = s, .end = s + 100, .stream = 7,
				    .corr = (uint32_t)j + 1, .name_id = S_KA, .kind = GS_OP_KERNEL};
		t->nvtx[j] = (struct gs_nvtx){.start = j ? r : 0, .end = j ? r + 1000 : 20000,
					      .text_id = S_STEPFN, .tid = 1};
	}
	t->in.nvtx = t->nvtx;
	t->in.n_nvtx = 12;
	for (j = 2; j <= 11; j++) {
		sample(t, 1, 20000 + 1000 * (j - 1) + 100, 1);
		sample(t, 1, 20000 + 1000 * (j - 1) + 200, 1);
	}
	t->opt.top_n = 3;
	run(t);
	assert_int_equal(t->v.steady, 1);
	assert_int_equal(t->v.steady_window, 11000);
	f = finding_of(t, GS_RULE_HOST_OWN);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 8800);
	assert_string_equal(f->why, "samples: 100% u/train.py:step line 41");
	assert_null(finding_of(t, GS_RULE_HOST_CODE));
	tb_free(t);
}

/* Gaps of 2 ms of host code are stalls (GS_HOST_STALL_NS): the host
 * stalls finding names what their samples show; a sample whose frames
 * show the multi-process DataLoader tells the advice its workers are on. */
static void test_verdict_names_the_stalls_samples(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f = NULL;
	struct gs_host_attr sa[3];
	size_t i;
	(void)state;

	/* 11 kernels 2 ms apart: 10 gaps [1100 + 2e6 i, +1999900), host code
	 * 1999800 then launch latency 100; no NVTX range (no start-up), no
	 * upload: all 10 are "other" stalls. 3 samples each: step (stack 1)
	 * twice, linear (2) once: 30, step 20 (67%) at line 41, linear 10
	 * (33%). Stack 3 carries the multi-process DataLoader's frames: one
	 * sample of it in the last gap's host code makes 31, step 21 (68%),
	 * linear 10 (32%). */
	t->hstacks[3].loader = GS_LOADER_WORKERS;
	steps_every(t, 11, 2000000);
	for (i = 0; i < 10; i++) {
		int64_t g0 = 1100 + 2000000 * (int64_t)i;
		sample(t, 1, g0 + 100, 1);
		sample(t, 1, g0 + 200, 1);
		sample(t, 1, g0 + 300, 2);
	}
	sample(t, 1, 1100 + 2000000 * 9 + 400, 3);
	run(t);
	assert_int_equal(gs_host_stall_attr(&t->res, sa), 0);
	assert_int_equal(sa[0].total, 0);
	assert_int_equal(sa[1].total, 0);
	assert_int_equal(sa[2].total, 31);
	assert_int_equal(sa[2].framework, 10);
	f = finding_of(t, GS_RULE_HOST_STALL);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 10 * 1999800);
	assert_string_equal(f->why, "samples: 68% u/train.py:step line 41, "
				    "32% torch/nn/functional.py:linear line 125");
	assert_int_equal(t->v.facts.loader, GS_LOADER_WORKERS);
	assert_int_equal(t->v.facts.loader_sampled, 1);
	/* 0.1 ms of CPU a sample: thread 1's first sample (1200) is inside gap
	 * 0, so gap 0 is not counted; gaps 1-9 are 9 x 1999800 ns, their
	 * samples 8 x 3 + 4 = 28, 2.8 ms: the thread ran 15.6% of it */
	t->in.sample_cpu_ns = 100000;
	assert_int_equal(gs_host_stall_attr(&t->res, sa), 0);
	assert_int_equal(sa[2].wall_ns, 9 * 1999800);
	assert_int_equal(sa[2].run_ns, 2800000);
	gs_verdict_compute(&t->res, &t->v);
	f = finding_of(t, GS_RULE_HOST_STALL);
	assert_non_null(f);
	assert_string_equal(f->why, "samples (running 16% of it): 68% u/train.py:step line 41, "
				    "32% torch/nn/functional.py:linear line 125");
	tb_free(t);
}

/* An input stall of a PyTorch program whose DataLoader workers are on
 * (stack 3 carries their frames): K0 [10 000, 11 000] (call [9000, 9100]),
 * an upload from pageable memory [2 011 000, 2 012 000] (call [2 010 000,
 * 2 010 100]), K1 [2 012 000, 2 013 000] (call [2 010 200, 2 010 300]). The
 * host code [11 000, 2 010 000) is 1 999 000 ns; thread 1 is sampled at 5000
 * (before it) and 30 times in it. At 20 us of CPU a sample it ran 600 000
 * of 1 999 000 ns, 30%: the finding says so beside the workers. */
/* the input stall's timeline of test_input_stall_running_share */
static void input_stall(struct tb *t)
{
	static const int64_t at[3][3] = {
	    {9000, 9100, 10000}, {2010000, 2010100, 2011000}, {2010200, 2010300, 2012000}};
	size_t i;

	for (i = 0; i < 3; i++) {
		struct gs_api *a = &t->apis[t->in.n_apis++];
		struct gs_op *o = &t->ops[t->in.n_ops++];
		*a = (struct gs_api){.start = at[i][0], .end = at[i][1], .corr = (uint32_t)i + 1,
				     .name_id = i == 1 ? S_MEMCPY : S_LAUNCH, .tid = 1};
		o->start = at[i][2];
		o->end = at[i][2] + 1000;
		o->stream = 7;
		o->corr = (uint32_t)i + 1;
		o->name_id = i == 1 ? 0 : S_TORCHK;
		o->kind = i == 1 ? GS_OP_MEMCPY : GS_OP_KERNEL;
		o->flags = i == 1 ? GS_OPF_HOST_SRC | GS_OPF_PAGEABLE_SRC : 0;
	}
}

static void test_input_stall_running_share(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f = NULL;
	size_t i;
	(void)state;

	t->hstacks[3].loader = GS_LOADER_WORKERS;
	input_stall(t);
	sample(t, 1, 5000, 1);
	for (i = 0; i < 30; i++)
		sample(t, 1, 20000 + 50000 * (int64_t)i, 3);
	t->in.sample_cpu_ns = 20000;
	run(t);
	f = finding_of(t, GS_RULE_INPUT_WAIT);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 1999000);
	assert_int_equal(f->running_pct, 1 + 30);
	assert_string_equal(f->why, "1 of 1 uploads pageable; DataLoader workers on (samples: "
				    "batches received from its worker processes; the thread "
				    "running 30% of the stalls)");
	tb_free(t);
}

/* The same stall with off-CPU samples too (the samples then weigh time):
 * stack 3 is torch.multiprocessing's rebuild of a tensor a worker shared
 * (receive), stack 4 the iterator's wait for a batch (both the workers'
 * loader frames). The 30 CPU samples of stack 3 weigh 30 x 20 000 = 600 000
 * ns; off CPU: stack 4 for [800 000, 1 000 000] (200 000 ns), stack 3 for
 * [1 400 000, 1 500 000] (100 000): 900 000 ns sampled. Shares of that
 * (the rest of the stall taken to go alike): taking in 700 000 = 77.8%,
 * waiting for a batch 200 000 = 22.2%. More than 20% and more than the
 * wait: the fix is the thread's own taking in, and the what-if keeps 22%
 * of the stall (keep_pct 1 + 22, from the rounded 78). */
static void test_input_stall_taken_in_by_the_thread(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f = NULL;
	size_t i;
	(void)state;

	t->hstacks[3].loader = GS_LOADER_WORKERS;
	t->hstacks[3].receive = 1;
	t->hstacks[4].loader = GS_LOADER_WORKERS;
	input_stall(t);
	sample(t, 1, 5000, 1);
	for (i = 0; i < 30; i++)
		sample(t, 1, 20000 + 50000 * (int64_t)i, 3);
	wait_at(t, 1, 1000000, 200000, 4);
	wait_at(t, 1, 1500000, 100000, 3);
	t->in.sample_cpu_ns = 20000;
	run(t);
	f = finding_of(t, GS_RULE_INPUT_WAIT);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 1999000);
	assert_int_equal(f->receive_pct, 1 + 78);
	assert_int_equal(f->wait_pct, 1 + 22);
	assert_int_equal(f->keep_pct, 1 + 22);
	assert_string_equal(gs_finding_fix(f),
			    "the main thread takes in each shared tensor itself: fewer tensors a "
			    "batch, or torch.multiprocessing.set_sharing_strategy('file_system')");
	assert_string_equal(f->why, "1 of 1 uploads pageable; DataLoader workers on; samples: 78% "
				    "of the stalls taking in the tensors they shared "
				    "(torch/multiprocessing/reductions.py), 22% waiting for a batch");
	gs_result_free(&t->res);
	/* the wait longer than the taking in: 1 200 000 ns more of stack 4
	 * ([200 000, 900 000] and [1 500 000, 2 000 000]): 2 100 000 sampled,
	 * waiting 1 400 000 = 66.7%, taking in 33.3%; the workers can't keep
	 * up, and the what-if keeps 33% (the samples in time order, as the
	 * loader gives them) */
	t->in.n_waits = 0;
	wait_at(t, 1, 900000, 700000, 4);
	wait_at(t, 1, 1000000, 200000, 4);
	wait_at(t, 1, 1500000, 100000, 3);
	wait_at(t, 1, 2000000, 500000, 4);
	run(t);
	f = finding_of(t, GS_RULE_INPUT_WAIT);
	assert_non_null(f);
	assert_int_equal(f->receive_pct, 1 + 33);
	assert_int_equal(f->wait_pct, 1 + 67);
	assert_int_equal(f->keep_pct, 1 + 33);
	assert_string_equal(gs_finding_fix(f),
			    "workers can't keep up: more num_workers, prefetch_factor, "
			    "persistent_workers, cheaper transforms; pin_memory=True");
	tb_free(t);
}

/* The host code outside [a, b] (a steady state's warm-up and tail): gaps
 * inside it left out, a gap across b counted from b on. */
static void test_host_code_outside_a_window(void **state)
{
	struct tb *t = tb_new();
	struct gs_host_attr a;
	(void)state;

	/* 11 kernels 1000 apart: gap i's host code [1100 + 1000 i, +800).
	 * Outside [3000, 6500]: gap 1's [2100, 2900) whole (sample 2200,
	 * stack 1), gap 3's not at all (4200, stack 2), gap 5's [6100, 6900)
	 * from 6500 on (6200, stack 1, not; 6600, stack 3, counted), gap 7's
	 * whole (8200, stack 2). So 3 samples: step (stacks 1, 3) 2 = 67%,
	 * linear 1 = 33%, the framework's 1. */
	steps(t, 11);
	sample(t, 1, 2200, 1);
	sample(t, 1, 4200, 2);
	sample(t, 1, 6200, 1);
	sample(t, 1, 6600, 3);
	sample(t, 1, 8200, 2);
	run(t);
	assert_int_equal(gs_host_code_attr_outside(&t->res, 3000, 6500, &a), 0);
	assert_int_equal(a.total, 3);
	assert_int_equal(a.framework, 1);
	assert_int_equal(a.n_top, 2);
	assert_int_equal(a.top[0].func_id, S_STEPFN);
	assert_int_equal(a.top[0].weight, 2);
	assert_int_equal(a.top[1].func_id, S_LINEAR);
	assert_int_equal(a.top[1].weight, 1);
	tb_free(t);
}

static void test_host_spans_by_own_time(void **state)
{
	struct tb *t = tb_new();
	struct gs_host_attr a;
	(void)state;

	/* thread 1: D [500,900) ends before the segment; A aten::linear
	 * [1000,1500) with its child B aten::addmm [1200,1400); C my_func
	 * [1600,1700); thread 2: E [1100,1800). Over [1100,1900): A's own
	 * time 400 - 200 = 200, B 200, C 100; in a span 500 (A 400 + C 100)
	 * of 800; the framework's (aten::) 400. A and B tie: the lower
	 * string id first (aten::addmm). */
	t->in.n_samples = 0;
	t->hranges[0] = (struct gs_hrange){500, 900, GS_NONE, 1, S_OTHER};
	t->hranges[1] = (struct gs_hrange){1000, 1500, GS_NONE, 1, S_ATEN_LIN};
	t->hranges[2] = (struct gs_hrange){1200, 1400, 1, 1, S_ATEN_ADD};
	t->hranges[3] = (struct gs_hrange){1600, 1700, GS_NONE, 1, S_MYFUNC};
	t->hranges[4] = (struct gs_hrange){1100, 1800, GS_NONE, 2, S_OTHER};
	t->in.hranges = t->hranges;
	t->in.n_hranges = 5;
	gs_host_attribute(&t->in, 1, 1100, 1900, &a);
	assert_int_equal(a.source, GS_HOST_SRC_SPANS);
	assert_int_equal(a.total, 800);
	assert_int_equal(a.named, 500);
	assert_int_equal(a.framework, 400);
	assert_int_equal(a.n_top, 3);
	assert_int_equal(a.top[0].func_id, S_ATEN_ADD);
	assert_int_equal(a.top[0].weight, 200);
	assert_int_equal(a.top[0].span, 1);
	assert_int_equal(a.top[1].func_id, S_ATEN_LIN);
	assert_int_equal(a.top[1].weight, 200);
	assert_int_equal(a.top[2].func_id, S_MYFUNC);
	assert_int_equal(a.top[2].weight, 100);
	assert_int_equal(a.top[2].framework, 0);
	tb_free(t);
}

/* ---- the loader: which frame names a stack, the framework's ---------- */

static void exec_ok(sqlite3 *db, const char *sql)
{
	char *e = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &e);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, e ? e : "?");
}

static void test_loader_picks_frames_and_framework(void **state)
{
	static const char *str[] = {
	    NULL,
	    "/usr/lib/python3.11/multiprocessing/popen_fork.py", /* 1 */
	    "_launch",						 /* 2 */
	    "/x/site-packages/torch/utils/data/dataloader.py",	 /* 3 */
	    "__init__",						 /* 4 */
	    "/home/u/train.py",					 /* 5 */
	    "main",						 /* 6 */
	    "/x/site-packages/torch/nn/functional.py",		 /* 7 */
	    "linear",						 /* 8 */
	    "/lib/x86_64-linux-gnu/libc.so.6",			 /* 9 */
	    "memcpy",						 /* 10 */
	    "/x/site-packages/torch/lib/libtorch_cpu.so",	 /* 11 */
	    "at::foo",						 /* 12 */
	    "/home/u/app",					 /* 13 */
	    "work",						 /* 14 */
	    "/opt/torch/.venv/lib/python3.12/site-packages/sympy/core/basic.py", /* 15 */
	    "<module>",							  /* 16 */
	    "/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py", /* 17 */
	    "/home/u/pytorch/torch/nn/functional.py",				   /* 18 */
	};
	struct gs_input in;
	sqlite3 *db;
	char err[256];
	(void)state;

	memset(&in, 0, sizeof(in));
	in.strings.v = str;
	in.strings.n = sizeof(str) / sizeof(str[0]);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	/* no samples table: nothing, no error */
	assert_int_equal(trace_load_samples(db, &in, err, sizeof(err)), 0);
	assert_int_equal(in.n_samples, 0);
	exec_ok(db, "CREATE TABLE stack_frames(stack_id, depth, kind, module_id, offset, "
		    "symbol_id, file_id, line, function_id);"
		    "CREATE TABLE samples(tid, t, stack_id);"
		    /* 1: fork inside the DataLoader's start-up, from train.py */
		    "INSERT INTO stack_frames VALUES(1,0,2,NULL,NULL,NULL,1,300,2);"
		    "INSERT INTO stack_frames VALUES(1,1,2,NULL,NULL,NULL,3,1042,4);"
		    "INSERT INTO stack_frames VALUES(1,2,2,NULL,NULL,NULL,5,7,6);"
		    /* 2: torch's linear */
		    "INSERT INTO stack_frames VALUES(2,0,2,NULL,NULL,NULL,7,125,8);"
		    /* 3: native, memcpy in libc from libtorch from the program */
		    "INSERT INTO stack_frames VALUES(3,0,1,9,16,10,NULL,NULL,NULL);"
		    "INSERT INTO stack_frames VALUES(3,1,1,11,32,12,NULL,NULL,NULL);"
		    "INSERT INTO stack_frames VALUES(3,2,1,13,48,6,NULL,NULL,NULL);"
		    /* 4: native, the program's own work */
		    "INSERT INTO stack_frames VALUES(4,0,1,13,64,14,NULL,NULL,NULL);"
		    "INSERT INTO stack_frames VALUES(4,1,1,9,80,10,NULL,NULL,NULL);"
		    /* 5-7: a virtual environment under /opt/torch/: sympy there is
		     * not PyTorch's; torch there is, and so is a source checkout's */
		    "INSERT INTO stack_frames VALUES(5,0,2,NULL,NULL,NULL,15,10,16);"
		    "INSERT INTO stack_frames VALUES(6,0,2,NULL,NULL,NULL,17,125,8);"
		    "INSERT INTO stack_frames VALUES(7,0,2,NULL,NULL,NULL,18,125,8);"
		    "INSERT INTO samples VALUES(5,30,2),(5,10,1),(3,20,NULL),(5,20,4),(5,40,3),"
		    "(5,50,5),(5,60,6),(5,70,7);");
	assert_int_equal(trace_load_samples(db, &in, err, sizeof(err)), 0);
	assert_int_equal(in.n_hstacks, 8);
	assert_int_equal(in.hstacks[5].file_id, 15);
	assert_int_equal(in.hstacks[5].framework, 0);
	assert_int_equal(in.hstacks[6].file_id, 17);
	assert_int_equal(in.hstacks[6].framework, 1);
	assert_int_equal(in.hstacks[7].file_id, 18);
	assert_int_equal(in.hstacks[7].framework, 1);
	/* 1: the innermost frame outside the standard library; torch's data
	 * loading is not the framework's dispatch */
	assert_int_equal(in.hstacks[1].file_id, 3);
	assert_int_equal(in.hstacks[1].func_id, 4);
	assert_int_equal(in.hstacks[1].line, 1042);
	assert_int_equal(in.hstacks[1].framework, 0);
	assert_int_equal(in.hstacks[2].func_id, 8);
	assert_int_equal(in.hstacks[2].framework, 1);
	/* 3: libc skipped, libtorch's frame named and the framework's */
	assert_int_equal(in.hstacks[3].file_id, 11);
	assert_int_equal(in.hstacks[3].func_id, 12);
	assert_int_equal(in.hstacks[3].line, -1);
	assert_int_equal(in.hstacks[3].framework, 1);
	assert_int_equal(in.hstacks[4].file_id, 13);
	assert_int_equal(in.hstacks[4].func_id, 14);
	assert_int_equal(in.hstacks[4].framework, 0);
	/* sorted by thread and time; a NULL stack is 0 */
	assert_int_equal(in.n_samples, 8);
	assert_int_equal(in.samples[0].tid, 3);
	assert_int_equal(in.samples[0].stack, 0);
	assert_int_equal(in.samples[1].t, 10);
	assert_int_equal(in.samples[1].stack, 1);
	assert_int_equal(in.samples[2].stack, 4);
	assert_int_equal(in.samples[3].stack, 2);
	assert_int_equal(in.samples[4].stack, 3);
	trace_samples_free(&in);
	sqlite3_close(db);
}

/* The off-CPU samples (table wait_samples, since 2026-12-07): read sorted
 * by thread and time, their stacks named as the CPU samples' are (a stack
 * only they use too), a NULL stack 0, a row of no time left out. */
static void test_loader_reads_off_cpu_samples(void **state)
{
	static const char *str[] = {
	    NULL,
	    "/usr/lib/python3.11/multiprocessing/connection.py", /* 1 */
	    "poll",						 /* 2 */
	    "/x/site-packages/torch/utils/data/dataloader.py",	 /* 3 */
	    "_try_get_data",					 /* 4 */
	    "/home/u/train.py",					 /* 5 */
	    "main",						 /* 6 */
	};
	struct gs_input in;
	sqlite3 *db;
	char err[256];
	(void)state;

	memset(&in, 0, sizeof(in));
	in.strings.v = str;
	in.strings.n = sizeof(str) / sizeof(str[0]);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	exec_ok(db, "CREATE TABLE stack_frames(stack_id, depth, kind, module_id, offset, "
		    "symbol_id, file_id, line, function_id);"
		    "CREATE TABLE samples(tid, t, stack_id);"
		    "CREATE TABLE wait_samples(tid, t, ns, stack_id);"
		    /* 1: the program's main */
		    "INSERT INTO stack_frames VALUES(1,0,2,NULL,NULL,NULL,5,9,6);"
		    /* 2 (off-CPU samples only): poll in the standard library under
		     * the DataLoader's _try_get_data under main */
		    "INSERT INTO stack_frames VALUES(2,0,2,NULL,NULL,NULL,1,440,2);"
		    "INSERT INTO stack_frames VALUES(2,1,2,NULL,NULL,NULL,3,1133,4);"
		    "INSERT INTO stack_frames VALUES(2,2,2,NULL,NULL,NULL,5,12,6);"
		    "INSERT INTO samples VALUES(5,10,1);"
		    "INSERT INTO wait_samples VALUES(5,300,100,2),(5,200,90,2),(4,250,50,NULL),"
		    "(5,400,0,2);");
	assert_int_equal(trace_load_samples(db, &in, err, sizeof(err)), 0);
	assert_int_equal(in.n_hstacks, 3);
	assert_int_equal(in.hstacks[2].file_id, 3);
	assert_int_equal(in.hstacks[2].func_id, 4);
	assert_int_equal(in.hstacks[2].line, 1133);
	assert_int_equal(in.hstacks[2].framework, 0);
	assert_int_equal(in.n_samples, 1);
	assert_int_equal(in.n_waits, 3);
	assert_int_equal(in.waits[0].tid, 4);
	assert_int_equal(in.waits[0].stack, 0);
	assert_int_equal(in.waits[1].t, 200);
	assert_int_equal(in.waits[1].ns, 90);
	assert_int_equal(in.waits[1].stack, 2);
	assert_int_equal(in.waits[2].t, 300);
	trace_samples_free(&in);
	assert_int_equal(in.n_waits, 0);
	sqlite3_close(db);
}

/* Native frames under the program's Python line tell the framework's C++
 * (and the CUDA libraries) it called from the interpreter and numpy; a
 * stack in the import machinery is named by the line that imported. */
static void test_loader_native_under_python_and_imports(void **state)
{
	static const char *str[] = {
	    NULL,
	    "/home/u/train.py",						/* 1 */
	    "step",							/* 2 */
	    "/lib/x86_64-linux-gnu/libc.so.6",				/* 3 */
	    "/x/site-packages/torch/lib/libtorch_cpu.so",		/* 4 */
	    "/usr/lib/libpython3.12.so.1.0",				/* 5 */
	    "/x/site-packages/numpy/_core/_multiarray_umath.cpython-312.so", /* 6 */
	    "/usr/lib/x86_64-linux-gnu/libcuda.so.1",			/* 7 */
	    "/x/site-packages/sympy/core/__init__.py",			/* 8 */
	    "<module>",							/* 9 */
	    "<frozen importlib._bootstrap>",				/* 10 */
	    "_call_with_frames_removed",				/* 11 */
	    "/x/site-packages/torch/_dynamo/__init__.py",		/* 12 */
	    "main",							/* 13 */
	    "/x/site-packages/torch/nn/functional.py",			/* 14 */
	    "linear",							/* 15 */
	    "/x/site-packages/gapscope/lib/libgapscope.so",		/* 16 */
	    "/x/site-packages/torch/_compile.py",			/* 17 */
	    "inner",							/* 18 */
	    "/x/site-packages/torch/utils/data/dataloader.py",		/* 19 */
	    "_try_get_data",						/* 20 */
	    "/x/site-packages/torch/multiprocessing/reductions.py",	/* 21 */
	    "rebuild_storage_fd",					/* 22 */
	    "/x/site-packages/torch/utils/data/_utils/fetch.py",	/* 23 */
	    "fetch",							/* 24 */
	};
	struct gs_input in;
	struct gs_host_attr a;
	sqlite3 *db;
	char err[256], name[200];
	(void)state;

	memset(&in, 0, sizeof(in));
	in.strings.v = str;
	in.strings.n = sizeof(str) / sizeof(str[0]);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	exec_ok(db, "CREATE TABLE stack_frames(stack_id, depth, kind, module_id, offset, "
		    "symbol_id, file_id, line, function_id);"
		    "CREATE TABLE samples(tid, t, stack_id);"
		    /* 1: train.py:60 into libtorch, through a libc memcpy */
		    "INSERT INTO stack_frames VALUES(1,0,2,NULL,NULL,NULL,1,60,2);"
		    "INSERT INTO stack_frames VALUES(1,0,1,3,16,NULL,NULL,NULL,NULL);"
		    "INSERT INTO stack_frames VALUES(1,1,1,4,32,NULL,NULL,NULL,NULL);"
		    /* 2: the same line in the interpreter */
		    "INSERT INTO stack_frames VALUES(2,0,2,NULL,NULL,NULL,1,60,2);"
		    "INSERT INTO stack_frames VALUES(2,0,1,5,48,NULL,NULL,NULL,NULL);"
		    "INSERT INTO stack_frames VALUES(2,1,1,4,64,NULL,NULL,NULL,NULL);"
		    /* 3: in numpy: the program's own */
		    "INSERT INTO stack_frames VALUES(3,0,2,NULL,NULL,NULL,1,60,2);"
		    "INSERT INTO stack_frames VALUES(3,0,1,6,80,NULL,NULL,NULL,NULL);"
		    /* 4: in the driver under the collector's frame */
		    "INSERT INTO stack_frames VALUES(4,0,2,NULL,NULL,NULL,1,60,2);"
		    "INSERT INTO stack_frames VALUES(4,0,1,16,96,NULL,NULL,NULL,NULL);"
		    "INSERT INTO stack_frames VALUES(4,1,1,7,112,NULL,NULL,NULL,NULL);"
		    /* 5: sympy imported by torch._dynamo imported by main line
		     * 141, its middle frames left out (depths 4..29) */
		    "INSERT INTO stack_frames VALUES(5,0,2,NULL,NULL,NULL,8,5,9);"
		    "INSERT INTO stack_frames VALUES(5,1,2,NULL,NULL,NULL,10,488,11);"
		    "INSERT INTO stack_frames VALUES(5,2,2,NULL,NULL,NULL,12,3,9);"
		    "INSERT INTO stack_frames VALUES(5,3,2,NULL,NULL,NULL,10,488,11);"
		    "INSERT INTO stack_frames VALUES(5,30,2,NULL,NULL,NULL,1,141,13);"
		    "INSERT INTO stack_frames VALUES(5,31,2,NULL,NULL,NULL,1,165,9);"
		    /* 6: torch's own Python in the interpreter: the framework's */
		    "INSERT INTO stack_frames VALUES(6,0,2,NULL,NULL,NULL,14,125,15);"
		    "INSERT INTO stack_frames VALUES(6,0,1,5,48,NULL,NULL,NULL,NULL);"
		    /* 7: importing, but no frame outside the machinery kept */
		    "INSERT INTO stack_frames VALUES(7,0,2,NULL,NULL,NULL,8,5,9);"
		    "INSERT INTO stack_frames VALUES(7,1,2,NULL,NULL,NULL,10,488,11);"
		    /* 8: imported lazily by torch's code that the program's
		     * main line 150 called: named by the program's line */
		    "INSERT INTO stack_frames VALUES(8,0,2,NULL,NULL,NULL,8,5,9);"
		    "INSERT INTO stack_frames VALUES(8,1,2,NULL,NULL,NULL,10,488,11);"
		    "INSERT INTO stack_frames VALUES(8,2,2,NULL,NULL,NULL,17,27,18);"
		    "INSERT INTO stack_frames VALUES(8,20,2,NULL,NULL,NULL,1,150,13);"
		    /* 9: the same without a frame of the program: torch's */
		    "INSERT INTO stack_frames VALUES(9,0,2,NULL,NULL,NULL,8,5,9);"
		    "INSERT INTO stack_frames VALUES(9,1,2,NULL,NULL,NULL,10,488,11);"
		    "INSERT INTO stack_frames VALUES(9,2,2,NULL,NULL,NULL,17,27,18);"
		    /* 10: the multi-process DataLoader waiting for a batch; 11:
		     * rebuilding a worker's shared tensor under it (data loading,
		     * not the framework's dispatch); 12: the main thread
		     * fetching a batch itself */
		    "INSERT INTO stack_frames VALUES(10,0,2,NULL,NULL,NULL,19,1310,20);"
		    "INSERT INTO stack_frames VALUES(10,1,2,NULL,NULL,NULL,1,159,13);"
		    "INSERT INTO stack_frames VALUES(11,0,2,NULL,NULL,NULL,21,540,22);"
		    "INSERT INTO stack_frames VALUES(11,1,2,NULL,NULL,NULL,19,1310,20);"
		    "INSERT INTO stack_frames VALUES(12,0,2,NULL,NULL,NULL,23,52,24);"
		    "INSERT INTO stack_frames VALUES(12,1,2,NULL,NULL,NULL,1,159,13);"
		    "INSERT INTO samples VALUES(9,100,1),(9,110,1),(9,120,2),(9,130,5),(9,140,3),"
		    "(9,150,4),(9,160,6),(9,170,7),(9,180,8),(9,190,9),(9,200,10),(9,210,11),"
		    "(9,220,12);");
	assert_int_equal(trace_load_samples(db, &in, err, sizeof(err)), 0);
	assert_int_equal(in.n_hstacks, 13);
	assert_int_equal(in.hstacks[10].loader, GS_LOADER_WORKERS);
	assert_int_equal(in.hstacks[10].file_id, 19);
	assert_int_equal(in.hstacks[11].loader, GS_LOADER_WORKERS);
	assert_int_equal(in.hstacks[11].file_id, 21);
	assert_int_equal(in.hstacks[11].framework, 0);
	assert_int_equal(in.hstacks[12].loader, GS_LOADER_SINGLE);
	assert_int_equal(in.hstacks[1].loader, GS_LOADER_UNKNOWN);
	assert_int_equal(in.hstacks[8].file_id, 1);
	assert_int_equal(in.hstacks[8].line, 150);
	assert_int_equal(in.hstacks[8].via, GS_HOST_VIA_IMPORT);
	assert_int_equal(in.hstacks[9].file_id, 17);
	assert_int_equal(in.hstacks[9].line, 27);
	assert_int_equal(in.hstacks[9].via, GS_HOST_VIA_IMPORT);
	/* 1: named by the program's line, the framework's, through it */
	assert_int_equal(in.hstacks[1].file_id, 1);
	assert_int_equal(in.hstacks[1].line, 60);
	assert_int_equal(in.hstacks[1].framework, 1);
	assert_int_equal(in.hstacks[1].via, GS_HOST_VIA_FRAMEWORK);
	/* 2: the interpreter is innermost (libtorch further out is not): own */
	assert_int_equal(in.hstacks[2].framework, 0);
	assert_int_equal(in.hstacks[2].via, GS_HOST_VIA_FRAME);
	/* 3: numpy: own */
	assert_int_equal(in.hstacks[3].framework, 0);
	/* 4: libgapscope is skipped as a runtime; libcuda innermost then */
	assert_int_equal(in.hstacks[4].framework, 1);
	assert_int_equal(in.hstacks[4].via, GS_HOST_VIA_FRAMEWORK);
	/* 5: the frame outside the outermost importlib frame: main line 141 */
	assert_int_equal(in.hstacks[5].file_id, 1);
	assert_int_equal(in.hstacks[5].func_id, 13);
	assert_int_equal(in.hstacks[5].line, 141);
	assert_int_equal(in.hstacks[5].via, GS_HOST_VIA_IMPORT);
	assert_int_equal(in.hstacks[5].framework, 0);
	/* 6: torch's file names it: the framework's, its own code */
	assert_int_equal(in.hstacks[6].framework, 1);
	assert_int_equal(in.hstacks[6].via, GS_HOST_VIA_FRAME);
	/* 7: the innermost frame outside the standard library, as before */
	assert_int_equal(in.hstacks[7].file_id, 8);
	assert_int_equal(in.hstacks[7].via, GS_HOST_VIA_FRAME);

	/* thread 9's host code [100, 145): samples 100, 110 (stack 1), 120
	 * (2), 130 (5), 140 (3): line 60 in the framework 2 of 5 (40%), line
	 * 60's own 2 (stacks 2 and 3, 40%), imports 1 (20%); the framework's
	 * 2 of 5 */
	gs_host_attribute(&in, 9, 100, 145, &a);
	assert_int_equal(a.total, 5);
	assert_int_equal(a.framework, 2);
	assert_int_equal(a.n_top, 3);
	assert_int_equal(a.top[0].weight, 2);
	assert_int_equal(a.top[1].weight, 2);
	assert_int_equal(a.top[2].weight, 1);
	/* equal weights: by file, function, then own code before the
	 * framework's */
	gs_host_item_name(name, sizeof(name), &in, &a.top[0]);
	assert_string_equal(name, "u/train.py:step line 60");
	gs_host_item_name(name, sizeof(name), &in, &a.top[1]);
	assert_string_equal(name, "u/train.py:step line 60 (in the framework)");
	gs_host_item_name(name, sizeof(name), &in, &a.top[2]);
	assert_string_equal(name, "imports from u/train.py:main line 141");
	trace_samples_free(&in);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_segment_samples_by_function_with_shares),
	    cmocka_unit_test(test_gap_sentence_names_top_functions),
	    cmocka_unit_test(test_running_share_of_a_segment),
	    cmocka_unit_test(test_share_below_all_is_not_100),
	    cmocka_unit_test(test_sum_over_host_code_split_framework_and_own),
	    cmocka_unit_test(test_verdict_splits_host_code_by_samples),
	    cmocka_unit_test(test_verdict_few_samples_keep_the_size_rule),
	    cmocka_unit_test(test_steady_state_samples_of_every_gap),
	    cmocka_unit_test(test_verdict_names_the_stalls_samples),
	    cmocka_unit_test(test_input_stall_running_share),
	    cmocka_unit_test(test_input_stall_taken_in_by_the_thread),
	    cmocka_unit_test(test_host_code_outside_a_window),
	    cmocka_unit_test(test_host_spans_by_own_time),
	    cmocka_unit_test(test_loader_picks_frames_and_framework),
	    cmocka_unit_test(test_loader_native_under_python_and_imports),
	    cmocka_unit_test(test_off_cpu_samples_weigh_their_time),
	    cmocka_unit_test(test_loader_reads_off_cpu_samples),
	    cmocka_unit_test(test_loader_known_from_off_cpu_samples),
	    cmocka_unit_test(test_own_work_waiting_for_the_loader_gets_the_loader_fix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
