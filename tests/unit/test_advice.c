/*
 * test_advice.c - cmocka tests of what the verdict's rules check before they
 * give a fix (viewer/analysis/advice.c, verdict.c; docs/report.md "Phases"
 * and "What each rule checks first"): the run's phases from its steps, the
 * findings of the steady state and the warm-up's own, host code told apart
 * into dispatch and the program's own work, the DataLoader precondition of
 * input stalls, capture blockers, exposed communication, and a calibrated
 * trace's launch finding giving way to tracing's cost. Every expected figure
 * is worked out by hand in the comment next to it (docs/metrics.md has the
 * gap model). No database, no I/O.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "correct.h"
#include "gapscope/trace_format.h"

enum {
	S_LAUNCH = 1,
	S_SYNC,
	S_MEMCPYASYNC,
	S_KA,
	S_TORCHK,
	S_STEP,
	S_PS1,
	S_PS2,
	S_PS3,
	S_PS4,
	S_MULTI,
	S_SINGLE,
	S_NCCL,
	S_MEASURE,
	S_OTHER,
	S_DDP,
	S_UNFLAT,
	S_N
};

static const char *strtab[S_N] = {
    NULL,
    "cudaLaunchKernel",
    "cudaStreamSynchronize",
    "cudaMemcpyAsync",
    "kA",
    "void at::native::vectorized_elementwise_kernel<4, float>(int, float)",
    "step",
    "ProfilerStep#1",
    "ProfilerStep#2",
    "ProfilerStep#3",
    "ProfilerStep#4",
    "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
    "measure",
    "other_phase",
    "DistributedDataParallel.forward",
    "aten::unflatten_dense_tensors",
};

struct tb {
	struct gs_op ops[64];
	struct gs_api apis[64];
	struct gs_sync syncs[32];
	struct gs_nvtx nvtx[16];
	struct gs_hrange hr[16];
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
	t->in.syncs = t->syncs;
	t->in.nvtx = t->nvtx;
	t->in.hranges = t->hr;
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

/* ops in (device, start) order */
static void op(struct tb *t, int kind, uint32_t name, int64_t s, int64_t e, uint32_t corr,
	       uint8_t flags)
{
	struct gs_op *o = &t->ops[t->in.n_ops++];
	assert_true(t->in.n_ops <= sizeof(t->ops) / sizeof(t->ops[0]));
	o->start = s;
	o->end = e;
	o->stream = 7;
	o->corr = corr;
	o->name_id = name;
	o->kind = (uint8_t)kind;
	o->flags = flags;
}

static void kern(struct tb *t, uint32_t name, int64_t s, int64_t e, uint32_t corr)
{
	op(t, GS_OP_KERNEL, name, s, e, corr, 0);
}

static void api(struct tb *t, uint32_t name, int64_t s, int64_t e, uint32_t corr)
{
	struct gs_api *a = &t->apis[t->in.n_apis++];
	assert_true(t->in.n_apis <= sizeof(t->apis) / sizeof(t->apis[0]));
	a->start = s;
	a->end = e;
	a->corr = corr;
	a->name_id = name;
	a->tid = 1;
}

static void range(struct tb *t, uint32_t text, int64_t s, int64_t e)
{
	struct gs_nvtx *r = &t->nvtx[t->in.n_nvtx++];
	assert_true(t->in.n_nvtx <= sizeof(t->nvtx) / sizeof(t->nvtx[0]));
	r->start = s;
	r->end = e;
	r->text_id = text;
	r->tid = 1;
	r->kind = GS_NVTX_RANGE;
}

static void run(struct tb *t)
{
	assert_int_equal(gs_analyze(&t->in, &t->opt, &t->res), 0);
	gs_verdict_compute(&t->res, &t->v);
}

static const struct gs_finding *finding(const struct tb *t, int rule)
{
	size_t i;

	for (i = 0; i < t->v.n_findings; i++)
		if (t->v.findings[i].rule == rule)
			return &t->v.findings[i];
	return NULL;
}

/* ---- host code: dispatch or the program's own work -------------------- */

/* n = 10 kernels K_i = [i P + 2000, i P + 3000] (name `name`), K_i's
 * launch call [i P + 1000, i P + 1100]. Gap i = [(i-1) P + 3000, i P +
 * 2000), P - 1000 ns: host code up to the call, P - 2000 ns, then 1000 ns
 * of launch latency. Window [2000, 9 P + 3000] = 9 P + 1000, busy 10 000. */
static struct tb *host_loop(uint32_t name, int64_t P)
{
	struct tb *t = tb_new();
	int64_t i;

	for (i = 0; i < 10; i++)
		api(t, S_LAUNCH, i * P - 1000 + 2000, i * P - 900 + 2000, (uint32_t)i + 1);
	for (i = 0; i < 10; i++)
		kern(t, name, i * P + 2000, i * P + 3000, (uint32_t)i + 1);
	run(t);
	return t;
}

static void test_c_program_own_work_is_not_told_to_capture(void **state)
{
	/* P = 22 000: each gap holds 20 000 ns of host code (>= 5 us: the
	 * program's own work in a program without a framework). Host code
	 * 9 x 20 000 = 180 000 of a window of 9 x 22 000 + 1000 = 199 000
	 * (90.5%): host_own_work, and no host_code finding (its dispatch part
	 * is 0). Launch latency 9 000 / 199 000 = 4.5%: no launch finding. */
	struct tb *t = host_loop(S_KA, 22000);
	const struct gs_finding *f;
	(void)state;
	assert_int_equal(t->v.window, 199000);
	assert_int_equal(t->v.idle_by_cause[GS_CAUSE_HOST_CODE], 180000);
	assert_int_equal(t->res.devices[0].tl.host_by_size[0], 0);
	assert_int_equal(t->res.devices[0].tl.host_by_size[1], 180000);
	assert_null(finding(t, GS_RULE_HOST_CODE));
	f = finding(t, GS_RULE_HOST_OWN);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 180000);
	assert_non_null(strstr(gs_finding_fix(f), "a CUDA Graph does not remove it"));
	tb_free(t);
}

static void test_c_launch_loop_host_code_is_dispatch(void **state)
{
	/* P = 6 000: 4 000 ns of host code a gap (< 5 us): the launch loop's;
	 * 9 x 4 000 = 36 000 of 9 x 6 000 + 1000 = 55 000 (65%): host_code.
	 * (P - 2000 = 4000.) */
	struct tb *t = host_loop(S_KA, 6000);
	const struct gs_finding *f;
	(void)state;
	assert_int_equal(t->res.devices[0].tl.host_by_size[0], 36000);
	assert_null(finding(t, GS_RULE_HOST_OWN));
	f = finding(t, GS_RULE_HOST_CODE);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 36000);
	tb_free(t);
}

static void test_pytorch_dispatch_below_50us_is_dispatch(void **state)
{
	/* the same 20 000 ns gaps in a PyTorch program (at:: kernels): one
	 * operator's dispatch takes 5-30 us, so under 50 us it is dispatch */
	struct tb *t = host_loop(S_TORCHK, 22000);
	const struct gs_finding *f;
	(void)state;
	assert_int_equal(t->v.pytorch, 1);
	assert_null(finding(t, GS_RULE_HOST_OWN));
	f = finding(t, GS_RULE_HOST_CODE);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 180000);
	tb_free(t);
}

static void test_pytorch_python_work_of_200us_is_own_work(void **state)
{
	/* P = 202 000: 200 000 ns of host code a gap (>= 50 us) */
	struct tb *t = host_loop(S_TORCHK, 202000);
	const struct gs_finding *f;
	(void)state;
	assert_null(finding(t, GS_RULE_HOST_CODE));
	f = finding(t, GS_RULE_HOST_OWN);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 9 * 200000);
	tb_free(t);
}

/* ---- phases --------------------------------------------------------------- */

/* Steps "step": step 0 = [0, 100 000], steps j = 1..5 = [100 000 + (j-1)
 * 10 000, 100 000 + j 10 000]. Step 0 holds K_0 [1000, 2000]; step j
 * holds K_j [S_j + 1000, S_j + 9000] (S_j its start). Each K is launched
 * [start - 500, start - 400]. Window [1000, 149 000] = 148 000, busy
 * 1000 + 5 x 8000 = 41 000, idle 107 000. */
static struct tb *warm_steps(void)
{
	struct tb *t = tb_new();
	int64_t j;

	range(t, S_STEP, 0, 100000);
	for (j = 1; j <= 5; j++)
		range(t, S_STEP, 100000 + (j - 1) * 10000, 100000 + j * 10000);
	api(t, S_LAUNCH, 500, 600, 1);
	for (j = 1; j <= 5; j++)
		api(t, S_LAUNCH, 100000 + (j - 1) * 10000 + 500, 100000 + (j - 1) * 10000 + 600,
		    (uint32_t)j + 1);
	kern(t, S_KA, 1000, 2000, 1);
	for (j = 1; j <= 5; j++)
		kern(t, S_KA, 100000 + (j - 1) * 10000 + 1000, 100000 + (j - 1) * 10000 + 9000,
		     (uint32_t)j + 1);
	run(t);
	return t;
}

static void test_warmup_step_and_steady_state(void **state)
{
	struct tb *t = warm_steps();
	const struct gs_phases *ph = &t->v.phases;
	const struct gs_finding *f;
	(void)state;
	assert_int_equal(t->v.window, 148000);
	assert_int_equal(t->v.busy, 41000);
	/* 6 steps; walls 100 000 and 5 x 10 000: median (the lower) 10 000;
	 * step 0 took 10x: warm-up; step 1 did not */
	assert_int_equal(ph->source, GS_STEPS_RANGES);
	assert_int_equal(ph->n_steps, 6);
	assert_int_equal(ph->warmup_steps, 1);
	assert_int_equal(ph->step_p50_ns, 10000);
	assert_int_equal(ph->steady_start, 100000);
	assert_int_equal(ph->steady_end, 149000); /* the last step's end, held to the window */
	assert_int_equal(ph->warmup_ns, 99000);	  /* [1000, 100 000) */
	assert_int_equal(ph->steady_ns, 49000);
	assert_int_equal(ph->tail_ns, 0);
	/* warm-up 99 000 / 148 000 >= 5%: the steady state analysed alone,
	 * [100 000, 149 000]: 49 000, busy 5 x 8000 */
	assert_int_equal(t->v.steady, 1);
	assert_int_equal(t->v.steady_window, 49000);
	assert_int_equal(t->v.steady_busy, 40000);
	/* idle outside it: 107 000 - (49 000 - 40 000) = 98 000, 66% of the
	 * window: the warm-up's finding, its share of the whole window */
	f = finding(t, GS_RULE_WARMUP);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 98000);
	assert_true(f->share == 98000.0 / 148000.0);
	assert_non_null(strstr(f->why, "--range 'step' --skip 1"));
	/* the steady state: host code 4 x 1500 + 500 = 6 500 (13%), launch
	 * latency 5 x 500 = 2 500 (5%): no other rule fires */
	assert_int_equal(t->v.n_findings, 1);
	tb_free(t);
}

static void test_interleaved_ranges_are_no_steps(void **state)
{
	/* three "measure" ranges with a long range of another text between
	 * two of them (a demo's phases, not a loop's steps): no phases */
	struct tb *t = tb_new();
	(void)state;
	range(t, S_MEASURE, 0, 10000);
	range(t, S_OTHER, 11000, 30000);
	range(t, S_MEASURE, 31000, 41000);
	range(t, S_MEASURE, 42000, 52000);
	api(t, S_LAUNCH, 100, 200, 1);
	kern(t, S_KA, 1000, 50000, 1);
	run(t);
	assert_int_equal(t->v.phases.source, GS_STEPS_NONE);
	assert_int_equal(t->v.steady, 0);
	tb_free(t);
}

/* ---- input stalls: the DataLoader ----------------------------------------- */

/* K0 (at:: kernel) [10 000, 11 000] (call [9000, 9100]); an upload from
 * pageable memory [2 011 000, 2 012 000] (cudaMemcpyAsync [2 010 000,
 * 2 010 100]); K1 [2 012 000, 2 013 000] (call [2 010 200, 2 010 300]).
 * Gap [11 000, 2 011 000): 1 999 000 ns of host code (a stall, >= 1 ms)
 * before an upload, then 1000 of launch latency. Window 2 003 000: input
 * stalls 99.8%. An NVTX range of text `loader` (0: none) over the stall. */
static struct tb *input_stall(uint32_t loader)
{
	struct tb *t = tb_new();
	if (loader)
		range(t, loader, 20000, 2009000);
	api(t, S_LAUNCH, 9000, 9100, 1);
	api(t, S_MEMCPYASYNC, 2010000, 2010100, 2);
	api(t, S_LAUNCH, 2010200, 2010300, 3);
	kern(t, S_TORCHK, 10000, 11000, 1);
	op(t, GS_OP_MEMCPY, 0, 2011000, 2012000, 2, GS_OPF_HOST_SRC | GS_OPF_PAGEABLE_SRC);
	kern(t, S_TORCHK, 2012000, 2013000, 3);
	run(t);
	return t;
}

static void test_input_stall_with_workers_on(void **state)
{
	struct tb *t = input_stall(S_MULTI);
	const struct gs_finding *f = finding(t, GS_RULE_INPUT_WAIT);
	(void)state;
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 1999000);
	assert_int_equal(t->v.facts.loader, GS_LOADER_WORKERS);
	assert_int_equal(t->v.facts.uploads, 1);
	assert_int_equal(t->v.facts.pageable_uploads, 1);
	/* workers are on: never "num_workers>0"; the upload was pageable */
	assert_null(strstr(gs_finding_fix(f), "num_workers>0"));
	assert_non_null(strstr(gs_finding_fix(f), "workers can't keep up"));
	assert_non_null(strstr(gs_finding_fix(f), "pin_memory=True"));
	assert_non_null(strstr(f->why, "_MultiProcessingDataLoaderIter"));
	assert_non_null(strstr(f->why, "1 of 1 uploads pageable"));
	tb_free(t);
}

static void test_input_stall_single_process_and_unknown(void **state)
{
	struct tb *t = input_stall(S_SINGLE);
	const struct gs_finding *f = finding(t, GS_RULE_INPUT_WAIT);
	(void)state;
	assert_non_null(f);
	assert_int_equal(t->v.facts.loader, GS_LOADER_SINGLE);
	assert_string_equal(gs_finding_fix(f),
			    "load inputs ahead: DataLoader(num_workers>0, pin_memory=True)");
	tb_free(t);
	t = input_stall(0);
	f = finding(t, GS_RULE_INPUT_WAIT);
	assert_non_null(f);
	assert_int_equal(t->v.facts.loader, GS_LOADER_UNKNOWN);
	assert_non_null(strstr(gs_finding_fix(f), "if off"));
	assert_non_null(strstr(f->why, "does not show whether DataLoader workers are on"));
	tb_free(t);
}

/* ---- capture blockers ------------------------------------------------------ */

/* Four steps ProfilerStep#1..#4, step j = [S, S + 10 000] with S = j 10 000
 * (j = 0..3). In each: call A [S+100, S+200] launches KA [S+1000, S+2000];
 * cudaStreamSynchronize [S+300, S+2000]; call B [S+4000, S+4100]
 * launches KB [S+4500, S+5500]; cudaStreamSynchronize [S+4200, S+5500].
 * Host code between: [S+2000, S+4000) and [S+5500, S+10 100): under
 * 5 us a gap, the launch loop's. Two blocking calls a step. */
/* n torch.profiler steps of 10 us (ProfilerStep#1..n), each two launches
 * of kA, each followed by a cudaStreamSynchronize */
static void syncing_steps(struct tb *t, int64_t n)
{
	uint32_t c = 1;
	int64_t j;

	for (j = 0; j < n; j++)
		range(t, S_PS1 + (uint32_t)j, j * 10000, j * 10000 + 10000);
	for (j = 0; j < n; j++) {
		int64_t S = j * 10000;
		struct gs_sync *y;
		api(t, S_LAUNCH, S + 100, S + 200, c);
		api(t, S_SYNC, S + 300, S + 2000, 1000 + c);
		api(t, S_LAUNCH, S + 4000, S + 4100, c + 1);
		api(t, S_SYNC, S + 4200, S + 5500, 1001 + c);
		y = &t->syncs[t->in.n_syncs++];
		*y = (struct gs_sync){.start = S + 300, .end = S + 2000, .tid = 1, .stream = 7,
				      .corr = 1000 + c, .api_name_id = S_SYNC, .kind = GS_SYNC_STREAM};
		y = &t->syncs[t->in.n_syncs++];
		*y = (struct gs_sync){.start = S + 4200, .end = S + 5500, .tid = 1, .stream = 7,
				      .corr = 1001 + c, .api_name_id = S_SYNC, .kind = GS_SYNC_STREAM};
		c += 2;
	}
	for (j = 0, c = 1; j < n; j++, c += 2) {
		kern(t, S_KA, j * 10000 + 1000, j * 10000 + 2000, c);
		kern(t, S_KA, j * 10000 + 4500, j * 10000 + 5500, c + 1);
	}
}

static void test_syncs_in_the_step_block_capture(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	(void)state;
	syncing_steps(t, 4);
	run(t);
	/* steps from ProfilerStep#N; none a warm-up (all 10 000; #1 is not
	 * iteration 0) */
	assert_int_equal(t->v.phases.source, GS_STEPS_PROFILER);
	assert_int_equal(t->v.phases.warmup_steps, 0);
	assert_int_equal(t->v.facts.steps, 4);
	assert_int_equal(t->v.facts.syncs, 8);
	f = finding(t, GS_RULE_HOST_CODE);
	assert_non_null(f);
	assert_non_null(strstr(f->why, "blocks capture: 2.0 blocking calls a step"));
	assert_non_null(strstr(f->why, "cudaStreamSynchronize"));
	assert_non_null(strstr(gs_finding_fix(f), "between the blockers"));
	tb_free(t);
}

/* a trace of one torch.profiler step (TraceLens's BERT) */
static void test_one_profiler_step_still_shows_its_blockers(void **state)
{
	struct tb *t = tb_new();
	const struct gs_finding *f;
	(void)state;
	syncing_steps(t, 1);
	run(t);
	/* one ProfilerStep#1: too few for phases (3 needed), yet torch's own
	 * step mark says what a step holds: 2 syncs in 1 step */
	assert_int_equal(t->v.phases.source, GS_STEPS_NONE);
	assert_int_equal(t->v.facts.steps, 1);
	assert_int_equal(t->v.facts.syncs, 2);
	assert_string_equal(t->v.blockers, "2.0 blocking calls a step (most: cudaStreamSynchronize)");
	f = finding(t, GS_RULE_HOST_CODE);
	assert_non_null(f);
	assert_non_null(strstr(f->why, "blocks capture: 2.0 blocking calls a step"));
	assert_non_null(strstr(f->why, "cudaStreamSynchronize"));
	assert_non_null(strstr(gs_finding_fix(f), "between the blockers"));
	tb_free(t);
}

/* ---- communication ------------------------------------------------------------ */

static void test_exposed_communication(void **state)
{
	/* an NCCL all-reduce [0, 10 000] and a compute kernel [2000, 4000]
	 * beside it: 10 000 of communication, 8 000 of it over no compute;
	 * window [0, 10 000], all busy. Exposed 80% of the window. */
	struct tb *t = tb_new();
	const struct gs_finding *f;
	(void)state;
	kern(t, S_NCCL, 0, 10000, 1);
	kern(t, S_KA, 2000, 4000, 2);
	run(t);
	assert_int_equal(t->v.facts.comm_kernels, 1);
	assert_int_equal(t->v.facts.comm_busy_ns, 10000);
	assert_int_equal(t->v.facts.comm_exposed_ns, 8000);
	f = finding(t, GS_RULE_COMM);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 8000);
	assert_int_equal(f->busy, 1);
	assert_true(f->share == 0.8);
	assert_non_null(strstr(f->why, "100% of GPU busy; 80% of their time overlaps no compute"));
	assert_int_equal(gs_kernel_is_comm("kA"), 0);
	assert_int_equal(gs_family_len("ProfilerStep#12"), strlen("ProfilerStep#"));
	assert_int_equal(gs_family_len("step"), 0);
	tb_free(t);
}

/* ---- calibrated traces --------------------------------------------------------- */

static void test_corrected_launch_idle_gives_way_to_tracing_cost(void **state)
{
	/* K_i = [1000 i, 1000 i + 100], i = 0..9, each launched [1000 i - 800,
	 * 1000 i - 799]: gaps of 900, of them 100 host code and 800 launch
	 * latency. Window 9 100, launch 7 200 (79%): launch_overhead. A
	 * correction that took 7 000 of idle off (tracing's cost) leaves it
	 * 200 (2.2% < 20%): it gives way to tracing_cost, 7 000 (76.9%). */
	struct tb *t = tb_new();
	struct gs_corrected_device cd = {.device = 0, .window = 2100, .busy = 1000,
					 .idle = 1100, .idle_removed = 7000};
	struct gs_corrected c = {.devices = &cd, .n_devices = 1};
	const struct gs_finding *f;
	int64_t i;
	(void)state;
	for (i = 0; i < 10; i++)
		api(t, S_LAUNCH, 1000 * i - 800 + 1000, 1000 * i - 799 + 1000, (uint32_t)i + 1);
	for (i = 0; i < 10; i++)
		kern(t, S_KA, 1000 * i + 1000, 1000 * i + 1100, (uint32_t)i + 1);
	run(t);
	f = finding(t, GS_RULE_LAUNCH);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 7200);
	gs_verdict_compute_corr(&t->res, &c, &t->v);
	assert_null(finding(t, GS_RULE_LAUNCH));
	f = finding(t, GS_RULE_TRACING);
	assert_non_null(f);
	assert_int_equal(f->cost_ns, 7000);
	assert_int_equal(t->v.tracing_idle_ns, 7000);
	/* corrected: 1000 busy of 2100 */
	assert_true(t->v.corrected_utilisation == 1000.0 / 2100.0);
	assert_non_null(strstr(f->why, "47.6% busy"));
	tb_free(t);
}

/* ---- host stalls -------------------------------------------------------- */

/* host_loop's 10 launches 3 ms apart: 9 host stalls of 2.998 ms, each
 * holding a 2 ms span of `op` (the host span the finding names covers
 * half its gap or more) (a Kineto CPU operator) inside an NVTX range
 * `text` on the launching thread. DDP's buffer broadcast (HTA's 2-rank NCCL
 * trace): its unflatten inside DistributedDataParallel.forward gets the
 * fix that removes it, with the operator's time (9 spans, 18.0 ms); the
 * same operator in another range keeps the rule's own fix. */
static struct tb *stall_loop(uint32_t text, uint32_t op_name)
{
	struct tb *t = tb_new();
	const int64_t P = 3000000;
	int64_t i;

	for (i = 0; i < 10; i++)
		api(t, S_LAUNCH, i * P + 1000, i * P + 1100, (uint32_t)i + 1);
	for (i = 0; i < 10; i++)
		kern(t, S_KA, i * P + 2000, i * P + 3000, (uint32_t)i + 1);
	for (i = 0; i < 9; i++) {
		struct gs_hrange *h = &t->hr[t->in.n_hranges++];
		range(t, text, i * P + 3200, (i + 1) * P + 900);
		h->start = i * P + 3500;
		h->end = i * P + 2003500;
		h->parent = GS_NONE;
		h->tid = 1;
		h->name_id = op_name;
	}
	run(t);
	return t;
}

static void test_host_stall_in_ddp_buffer_broadcast(void **state)
{
	struct tb *t = stall_loop(S_DDP, S_UNFLAT);
	const struct gs_finding *f = finding(t, GS_RULE_HOST_STALL);
	(void)state;
	assert_non_null(f);
	assert_int_equal(f->count, 9);
	assert_int_equal(f->op_id, S_UNFLAT);
	assert_non_null(strstr(gs_finding_fix(f), "broadcast_buffers=False"));
	assert_non_null(strstr(f->why, "(9 spans, 18.0 ms)"));
	assert_int_equal(f->remove_op_id, S_UNFLAT);
	/* replayed: each gap's call comes 2 ms sooner (P - 100 ns of host
	 * time less the 2 ms span), so kernel i + 1 starts as kernel i ends:
	 * window 9 x 1 ms + 1000 ns, 18 ms saved */
	gs_verdict_compute_corr(&t->res, NULL, &t->v);
	f = finding(t, GS_RULE_HOST_STALL);
	assert_non_null(f);
	assert_int_equal(f->saves, GS_SAVES_REPLAYED);
	assert_int_equal(f->saves_ns, 18000000);
	tb_free(t);

	t = stall_loop(S_OTHER, S_UNFLAT);
	f = finding(t, GS_RULE_HOST_STALL);
	assert_non_null(f);
	assert_string_equal(gs_finding_fix(f), gs_rule_fix(GS_RULE_HOST_STALL));
	assert_null(strstr(f->why, "broadcast"));
	tb_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_c_program_own_work_is_not_told_to_capture),
	    cmocka_unit_test(test_c_launch_loop_host_code_is_dispatch),
	    cmocka_unit_test(test_pytorch_dispatch_below_50us_is_dispatch),
	    cmocka_unit_test(test_pytorch_python_work_of_200us_is_own_work),
	    cmocka_unit_test(test_warmup_step_and_steady_state),
	    cmocka_unit_test(test_interleaved_ranges_are_no_steps),
	    cmocka_unit_test(test_input_stall_with_workers_on),
	    cmocka_unit_test(test_input_stall_single_process_and_unknown),
	    cmocka_unit_test(test_syncs_in_the_step_block_capture),
	    cmocka_unit_test(test_one_profiler_step_still_shows_its_blockers),
	    cmocka_unit_test(test_exposed_communication),
	    cmocka_unit_test(test_host_stall_in_ddp_buffer_broadcast),
	    cmocka_unit_test(test_corrected_launch_idle_gives_way_to_tracing_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
