/*
 * calibrate.cu - gapscope-calibrate: what tracing costs on this machine, so
 * the viewer can correct a trace's figures for it (docs/collector.md,
 * "Overhead correction"). `gapscope record` runs it once before the program,
 * on the same GPU, and hands its figures to the collector, which stores them
 * in meta (calibration.*).
 *
 * The traced figures come from this process, which enables the kinds the
 * collector will record (from GAPSCOPE_ACTIVITIES as `record` sets it;
 * default: all but `driver`) and the driver's launch calls before CUDA is
 * initialised, as the injected collector does. The untraced ones come from
 * child processes (`gapscope-calibrate --plain`) that never touch CUPTI: once
 * CUPTI has been set up in a process its launches stay dearer even with
 * every kind switched off, so an untraced phase in the same process hid most
 * of the cost (H200: 0.4-1.3 us a launch, against 2.4 us between a traced
 * and an untraced process). The GPU's figures (graph pitch) compare this
 * process with its kinds on and off. Three traced phases alternate with
 * three children, and it prints one line:
 *   GAPSCOPE_CALIBRATION=launch_ns=N,legacy_launch_ns=N,driver_launch_ns=N,
 *                        kernel_ns=N,gpu_gap_ns=N,graph_node_ns=N
 *   launch_ns         added host time per cudaLaunchKernel (non-blocking stream):
 *                     the time of rounds of back-to-back launches over their
 *                     count, so the occasional slow call (CUPTI switching
 *                     buffers) counts as it does in a program's loop
 *   legacy_launch_ns  the same on the legacy default stream (PyTorch's)
 *   driver_launch_ns  added host time per cuLaunchKernel
 *   kernel_ns         added to a kernel's recorded duration (CUPTI's duration
 *                     minus the kernel's own %globaltimer duration, same launch)
 *   gpu_gap_ns        added idle between back-to-back kernels on the GPU
 *   graph_node_ns     added GPU time per node of a graph replay
 *   plain_launch_ns, plain_legacy_launch_ns, plain_driver_launch_ns
 *                     the untraced time per launch call (the children's):
 *                     the correction takes a traced launch call's duration
 *                     less this as what tracing added to that call
 *   plain_graph_launch_ns, plain_graph_node_ns
 *                     the untraced time of one cudaGraphLaunch call, as
 *                     base + node_ns x nodes (from graphs of GRAPH_SMALL and
 *                     NODES empty kernels, each call timed alone, the
 *                     children's): the correction takes a traced graph
 *                     launch's duration less this for its node count
 *   graph_launch_ns   added host time per cudaGraphLaunch of NODES kernels
 *                     (informative: the correction reads the trace's own)
 * then the GPU's time per tiny kernel from a full queue (print_occupancy):
 *   kernel_pitch_ns, plain_kernel_pitch_ns, off_kernel_pitch_ns, tiny_kernel_ns
 *                     empty kernels launched one by one behind a block: traced,
 *                     untraced child, this process with its kinds off, and the
 *                     duration CUPTI records
 *   graph_pitch_ns, plain_graph_pitch_ns, off_graph_pitch_ns, node_kernel_ns
 *                     the same as nodes of a graph of NODES empty kernels
 *   store_*           the same eight for kernels that store one word, as a
 *                     program's do (the correction takes store_graph_pitch_ns
 *                     - plain_store_graph_pitch_ns off each graph node)
 * and last, where the recording has runtime API records:
 *   launch_gap_ns     the time from one cudaLaunchKernel record's end to the
 *                     next one's start on the thread, back-to-back launches
 *                     with no other runtime call between (median over the
 *                     traced phases of their medians): CUPTI's work between
 *                     two calls' records, which the untraced pitch
 *                     (plain_launch_ns) does not spend; the correction adds it
 *                     to a launch call's excess, at most the time the
 *                     program left before that call
 * and last:
 *   plain_spaced_launch_ns  the untraced time of one cudaLaunchKernel on the
 *                     legacy default stream timed alone after a pass over
 *                     1 MiB of host memory (a program's work between its
 *                     launches), the children's median
 *   spaced_launch_ns  what tracing adds to that call, timed from outside it
 *   spaced_record_ns  the traced CUPTI record's duration of such a call
 *                     (where the recording has runtime records)
 *   plain_alloc_pair_ns, alloc_pair_ns
 *                     a cudaMalloc + cudaFree pair of 1 MiB on an idle device:
 *                     the children's time, and what tracing adds to it
 * Differences of the medians over the phases; negative ones are printed as 0.
 * It does not know the program's kernels: figures are for tiny kernels and
 * plain launches, the common case of launch-bound work.
 * Exit 0 with the line; 77 without a CUDA device or driver; 1 (and a message
 * on stderr) when CUDA, CUPTI or a child fails: record then goes on without
 * calibration. `--plain` prints "plain launch=N legacy=N driver=N".
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

extern "C" {
#include "internal.h"
}

#define PHASES 3
#define CALLS 256 /* launches timed per round */
#define ROUNDS 12 /* rounds per phase */
#define SPINS 24  /* spin kernels per phase */
#define NODES 100 /* kernels per graph */
#define GRAPH_SMALL 10 /* kernels of the second graph (graph launch calls) */
#define GRAPH_CALLS 24 /* graph launch calls timed per phase and graph */
#define SPIN_NS 20000

#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "gapscope-calibrate: %s: %s\n", #call,                     \
				cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void gs_cal_empty(void)
{
}

/* the same, launched one by one behind a block (a name of its own: its
 * records are the stream pitch's) */
__global__ void gs_cal_tiny(void)
{
}

/* a tiny kernel that writes memory, as a program's kernels do: on the H200
 * tracing added 354 ns a node to graphs of empty kernels and 153-160 ns to
 * two programs' graphs of kernels that store (tests/gpu/gap_phases.cu, the
 * decode demo); launched one by one (gs_cal_store_tiny) and as graph nodes */
__global__ void gs_cal_store(int *word)
{
	if (threadIdx.x == 0)
		*word = 1;
}

__global__ void gs_cal_store_tiny(int *word)
{
	if (threadIdx.x == 0)
		*word = 1;
}

__device__ static unsigned long long globaltimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* spins for ns on the GPU clock; writes its own duration to *out */
__global__ void gs_cal_spin(long long ns, unsigned long long *out)
{
	unsigned long long t0 = globaltimer(), t;
	do
		t = globaltimer();
	while ((long long)(t - t0) < ns);
	*out = t - t0;
}

/* holds the stream while the host queues work behind it (a kernel of its
 * own name: gs_cal_spin's records are the spin kernels') */
__global__ void gs_cal_block(long long ns)
{
	unsigned long long t0 = globaltimer();
	while ((long long)(globaltimer() - t0) < ns)
		;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int64_t median(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

/* ------------------------------------------------------------- CUPTI */

static int64_t spin_dur[SPINS * 2]; /* CUPTI durations of the spin kernels */
static size_t n_spin;
/* CUPTI durations of the stream-launched tiny kernels (gs_cal_tiny) and of
 * the graph nodes (gs_cal_empty in a graph) since the last phase */
#define MAX_DUR 4096
static int64_t tiny_dur[MAX_DUR], node_dur[MAX_DUR];
static size_t n_tiny, n_node;
/* the same for the storing kernels (gs_cal_store_tiny, gs_cal_store) */
static int64_t stiny_dur[MAX_DUR], snode_dur[MAX_DUR];
static size_t n_stiny, n_snode;

/* the runtime API records since the last phase: their start, end, thread
 * and whether the call was cudaLaunchKernel (launch_gap) */
#define MAX_API 32768
struct api_rec {
	uint64_t start, end;
	uint32_t tid;
	int launch;
};
static struct api_rec api_rec[MAX_API];
static size_t n_api;

static void CUPTIAPI buf_req(uint8_t **b, size_t *size, size_t *max)
{
	*size = 4 << 20;
	*b = (uint8_t *)aligned_alloc(8, *size);
	*max = 0;
}

static void CUPTIAPI buf_done(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid)
{
	CUpti_Activity *r = NULL;
	(void)c;
	(void)s;
	(void)size;
	while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS) {
		if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
			const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
			int64_t d = (int64_t)(k->end - k->start);
			if (strstr(k->name, "gs_cal_spin") && n_spin < SPINS * 2)
				spin_dur[n_spin++] = d;
			else if (strstr(k->name, "gs_cal_store_tiny") && n_stiny < MAX_DUR)
				stiny_dur[n_stiny++] = d;
			else if (strstr(k->name, "gs_cal_store") && k->graphId && n_snode < MAX_DUR)
				snode_dur[n_snode++] = d;
			else if (strstr(k->name, "gs_cal_tiny") && n_tiny < MAX_DUR)
				tiny_dur[n_tiny++] = d;
			else if (strstr(k->name, "gs_cal_empty") && k->graphId && n_node < MAX_DUR)
				node_dur[n_node++] = d;
		} else if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME && n_api < MAX_API) {
			const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
			api_rec[n_api].start = a->start;
			api_rec[n_api].end = a->end;
			api_rec[n_api].tid = a->threadId;
			api_rec[n_api].launch =
			    a->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
			n_api++;
		}
	}
	free(b);
}

static unsigned activities = GS_ACT_DEFAULT;

/* the collector's set-up: its kinds, and the driver's launch calls where the
 * runtime's are recorded without every driver call (collector.c); off: the
 * kinds off and their records flushed */
static void set_tracing(int on)
{
	static const CUpti_CallbackId drv[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
					       CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
					       CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch};
	size_t i, n;
	const struct gs_activity_kind *kinds = gs_activity_kinds(&n);

	/* the spin kernels' durations are read from the kernel records */
	if (on)
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	for (i = 0; i < n; i++)
		if (activities & kinds[i].act) {
			if (on)
				cuptiActivityEnable(kinds[i].kind);
			else
				cuptiActivityDisable(kinds[i].kind);
		}
	if (!on)
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if ((activities & GS_ACT_RUNTIME) && !(activities & GS_ACT_DRIVER))
		for (i = 0; i < sizeof(drv) / sizeof(drv[0]); i++)
			cuptiActivityEnableDriverApi(drv[i], on);
	if (!on)
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* ------------------------------------------------------------- figures */

struct phase {
	int64_t launch, legacy, driver; /* ns, median call time */
	int64_t graph_small, graph_big; /* ns, median cudaGraphLaunch call time */
	int64_t pitch;			/* ns per kernel, back to back (graph) */
	int64_t kpitch;			/* ns per kernel, back to back (stream launches) */
	int64_t spitch, skpitch;	/* the same for the storing kernels */
	int64_t tiny_cupti, node_cupti; /* ns, median recorded durations */
	int64_t stiny_cupti, snode_cupti; /* the same for the storing kernels */
	int64_t spin_cupti, spin_self;	/* ns, median durations */
	int64_t launch_gap;		/* ns, launch_gap(); -1 none */
	int64_t spaced;			/* ns, median spaced launch call (spaced_call_time) */
	int64_t spaced_rec;		/* ns, median record of those calls; -1 none */
	int64_t alloc;			/* ns, median cudaMalloc + cudaFree pair (alloc_time) */
};

/* ns per launch: each round's back-to-back launches timed as a whole, the
 * median over the rounds of their mean */
static int64_t call_time(cudaStream_t s, CUfunction f)
{
	int64_t v[ROUNDS];
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		int64_t t0 = now_ns();
		for (i = 0; i < CALLS; i++) {
			if (f) {
				if (cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, (CUstream)s, NULL,
						   NULL) != CUDA_SUCCESS)
					exit(1);
			} else {
				gs_cal_empty<<<1, 32, 0, s>>>();
			}
		}
		v[r] = (now_ns() - t0) / CALLS;
		CK(cudaStreamSynchronize(s));
	}
	return median(v, ROUNDS);
}

/* ns per cudaMalloc + cudaFree pair of ALLOC_BYTES, the device idle (a
 * training loop's allocation in each step, gs_demo_implicit_sync's
 * "cudaMalloc/cudaFree each step": traced 13.7 us a step dearer, untraced
 * 2.4-3.7 on an H100, which the what-if's alloc_in_loop read as the fix's
 * saving): each round's pairs timed as a whole, the median over the rounds
 * of their mean; -1 where an allocation failed (none then) */
#define ALLOC_BYTES (1 << 20)
#define ALLOCS 16
static int64_t alloc_time(void)
{
	int64_t v[ROUNDS];
	int r, i;

	if (cudaDeviceSynchronize() != cudaSuccess)
		return -1;
	for (r = 0; r < ROUNDS; r++) {
		int64_t t0 = now_ns();
		for (i = 0; i < ALLOCS; i++) {
			void *p = NULL;
			if (cudaMalloc(&p, ALLOC_BYTES) != cudaSuccess || cudaFree(p) != cudaSuccess)
				return -1;
		}
		v[r] = (now_ns() - t0) / ALLOCS;
	}
	return median(v, ROUNDS);
}

/* ns per cudaGraphLaunch call: each call timed alone, the stream drained
 * before the next (a program's per-step graph launch meets an idle or
 * nearly idle queue), the median over the calls */
static int64_t graph_call_time(cudaStream_t s, cudaGraphExec_t e)
{
	int64_t v[GRAPH_CALLS];
	int i;

	CK(cudaGraphLaunch(e, s)); /* the first launch uploads the graph */
	CK(cudaStreamSynchronize(s));
	for (i = 0; i < GRAPH_CALLS; i++) {
		int64_t t0 = now_ns();
		CK(cudaGraphLaunch(e, s));
		v[i] = now_ns() - t0;
		CK(cudaStreamSynchronize(s));
	}
	return median(v, GRAPH_CALLS);
}

/* A launch inside a program has the program's own work between it and the
 * previous one (PyTorch: ~10 us of Python and ATen): its caches and branch
 * predictors hold the program's state, not the driver's, and the call may
 * take longer than a loop's pitch, and tracing may add to it a different
 * amount. SPACED calls on the legacy default stream (PyTorch's), each timed
 * alone after a pass over SCRATCH bytes of host memory; the median. A
 * phase's last launches (spaced_record reads their records). */
#define SPACED 256
#define SCRATCH (1 << 20)
static volatile unsigned char scratch[SCRATCH];

static int64_t spaced_call_time(void)
{
	int64_t v[SPACED];
	unsigned sum = 0;
	int i;
	size_t k;

	CK(cudaStreamSynchronize(0));
	for (i = 0; i < SPACED; i++) {
		int64_t t0;
		for (k = 0; k < SCRATCH; k += 64) {
			sum += scratch[k];
			scratch[k] = (unsigned char)(sum + i);
		}
		t0 = now_ns();
		gs_cal_empty<<<1, 32>>>();
		v[i] = now_ns() - t0;
	}
	CK(cudaStreamSynchronize(0));
	return median(v, SPACED);
}

/* what a process with or without tracing measures alike */
struct setup {
	cudaStream_t s;
	cudaFunction_t rf;
	cudaGraphExec_t exec;	    /* NODES empty kernels */
	cudaGraphExec_t exec_small; /* GRAPH_SMALL of them */
	cudaGraphExec_t exec_store; /* NODES storing kernels */
	unsigned long long *d_out;
	int *d_word;
};

/* a graph of nodes empty kernels, or storing kernels where word is set */
static cudaGraphExec_t tiny_graph(cudaStream_t s, int nodes, int *word)
{
	cudaGraphExec_t exec;
	cudaGraph_t graph;
	int i;

	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (i = 0; i < nodes; i++) {
		if (word)
			gs_cal_store<<<1, 32, 0, s>>>(word);
		else
			gs_cal_empty<<<1, 32, 0, s>>>();
	}
	CK(cudaStreamEndCapture(s, &graph));
	CK(cudaGraphInstantiate(&exec, graph, 0));
	CK(cudaGraphDestroy(graph));
	return exec;
}

static void set_up(struct setup *u)
{
	CK(cudaFree(0));
	CK(cudaStreamCreateWithFlags(&u->s, cudaStreamNonBlocking));
	CK(cudaMalloc(&u->d_out, sizeof(*u->d_out)));
	CK(cudaMalloc(&u->d_word, sizeof(*u->d_word)));
	CK(cudaGetFuncBySymbol(&u->rf, (const void *)gs_cal_empty));
	u->exec = tiny_graph(u->s, NODES, NULL);
	u->exec_small = tiny_graph(u->s, GRAPH_SMALL, NULL);
	u->exec_store = tiny_graph(u->s, NODES, u->d_word);
}

static void measure_host(struct phase *p, const struct setup *u)
{
	p->launch = call_time(u->s, NULL);
	p->legacy = call_time(0, NULL);
	p->driver = call_time(u->s, (CUfunction)u->rf);
	p->graph_small = graph_call_time(u->s, u->exec_small);
	p->graph_big = graph_call_time(u->s, u->exec);
	p->alloc = alloc_time();
}

/* ns per node of 10 replays of exec (NODES nodes) behind a block */
static int64_t graph_pitch(const struct setup *u, cudaGraphExec_t exec)
{
	cudaEvent_t e0, e1;
	float ms = 0;
	int i;

	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	CK(cudaGraphLaunch(exec, u->s)); /* warm */
	/* the replays queued behind a 20 ms kernel, so the GPU never waits
	 * for the host: traced, each launch call of the 100 nodes takes
	 * 80-134 us (H200), longer than the replay, and the pitch measured
	 * without the block took that host time in (342-703 ns a node,
	 * where the GPU's own added time is ~0.3 us a node whatever the
	 * kernels' length: bench/gpu_time/graph_pitch.cu, 2026-12-05) */
	gs_cal_block<<<1, 1, 0, u->s>>>(20000000);
	CK(cudaEventRecord(e0, u->s));
	for (i = 0; i < 10; i++)
		CK(cudaGraphLaunch(exec, u->s));
	CK(cudaEventRecord(e1, u->s));
	CK(cudaEventSynchronize(e1));
	CK(cudaEventElapsedTime(&ms, e0, e1));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
	return (int64_t)(ms * 1e6 / (10 * NODES));
}

static void measure_pitch(struct phase *p, const struct setup *u)
{
	p->pitch = graph_pitch(u, u->exec);
	p->spitch = graph_pitch(u, u->exec_store);
}

/* the GPU's time per tiny kernel launched one by one, back to back behind a
 * 20 ms kernel (the queue full: what a kernel occupies the GPU, its switch
 * to the next included); KPITCH launches stay below the queue's depth */
#define KPITCH 256
static void tiny_launch(const struct setup *u, int store)
{
	if (store)
		gs_cal_store_tiny<<<1, 32, 0, u->s>>>(u->d_word);
	else
		gs_cal_tiny<<<1, 32, 0, u->s>>>();
}

static int64_t kernel_pitch(const struct setup *u, int store)
{
	cudaEvent_t e0, e1;
	float ms = 0;
	int i;

	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	tiny_launch(u, store); /* warm */
	gs_cal_block<<<1, 1, 0, u->s>>>(20000000);
	CK(cudaEventRecord(e0, u->s));
	for (i = 0; i < KPITCH; i++)
		tiny_launch(u, store);
	CK(cudaEventRecord(e1, u->s));
	CK(cudaEventSynchronize(e1));
	CK(cudaEventElapsedTime(&ms, e0, e1));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));
	return (int64_t)(ms * 1e6 / KPITCH);
}

static void measure_kpitch(struct phase *p, const struct setup *u)
{
	p->kpitch = kernel_pitch(u, 0);
	p->skpitch = kernel_pitch(u, 1);
}

/* the spin kernels' own durations; CUPTI's come with the next flush */
static void measure_spins(struct phase *p, const struct setup *u)
{
	static int64_t self[SPINS];
	unsigned long long h;
	int i;

	n_spin = 0;
	for (i = 0; i < SPINS; i++) {
		gs_cal_spin<<<1, 1, 0, u->s>>>(SPIN_NS, u->d_out);
		CK(cudaMemcpyAsync(&h, u->d_out, sizeof(h), cudaMemcpyDeviceToHost, u->s));
		CK(cudaStreamSynchronize(u->s));
		self[i] = (int64_t)h;
	}
	p->spin_self = median(self, SPINS);
}

static int cmp_api_rec(const void *a, const void *b)
{
	const struct api_rec *x = (const struct api_rec *)a, *y = (const struct api_rec *)b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The median time between back-to-back cudaLaunchKernel records of one
 * thread (no other runtime call between) in api_rec; -1 if none */
static int64_t launch_gap(void)
{
	static int64_t gap[MAX_API];
	size_t i, n = 0;

	qsort(api_rec, n_api, sizeof(api_rec[0]), cmp_api_rec);
	for (i = 1; i < n_api; i++) {
		const struct api_rec *a = &api_rec[i - 1], *b = &api_rec[i];
		if (a->launch && b->launch && a->tid == b->tid && b->start >= a->end)
			gap[n++] = (int64_t)(b->start - a->end);
	}
	return n ? median(gap, n) : -1;
}

/* The median duration of the last SPACED cudaLaunchKernel records of the
 * phase (api_rec sorted by launch_gap; one thread): the spaced calls'; -1
 * if there are fewer */
static int64_t spaced_record(void)
{
	static int64_t d[SPACED];
	size_t i = n_api, n = 0;

	while (i-- > 0 && n < SPACED)
		if (api_rec[i].launch)
			d[n++] = (int64_t)(api_rec[i].end - api_rec[i].start);
	return n == SPACED ? median(d, n) : -1;
}

/* --plain: the untraced figures of a process that never touched CUPTI */
static int plain_main(void)
{
	struct setup u;
	struct phase p;

	set_up(&u);
	measure_host(&p, &u);
	measure_pitch(&p, &u);
	measure_kpitch(&p, &u);
	p.spaced = spaced_call_time();
	printf("plain launch=%lld legacy=%lld driver=%lld graph_small=%lld graph_big=%lld "
	       "pitch=%lld kpitch=%lld spitch=%lld skpitch=%lld spaced=%lld alloc=%lld\n",
	       (long long)p.launch, (long long)p.legacy, (long long)p.driver,
	       (long long)p.graph_small, (long long)p.graph_big, (long long)p.pitch,
	       (long long)p.kpitch, (long long)p.spitch, (long long)p.skpitch, (long long)p.spaced,
	       (long long)p.alloc);
	return 0;
}

/* Run `self --plain` and read its figures into *p; 0 on success. */
static int plain_child(const char *self, struct phase *p)
{
	char line[384], *argv[] = {(char *)self, (char *)"--plain", NULL};
	posix_spawn_file_actions_t fa;
	long long l, g, d, gs, gb, pi, kp, sp, skp, spc, al;
	size_t used = 0;
	int fd[2], status = 0, rc;
	pid_t pid;
	FILE *f;

	if (pipe(fd) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addclose(&fa, fd[1]);
	rc = posix_spawn(&pid, self, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		return -1;
	}
	f = fdopen(fd[0], "r");
	line[0] = '\0';
	if (f) {
		used = fread(line, 1, sizeof(line) - 1, f);
		fclose(f);
	} else {
		close(fd[0]);
	}
	line[used] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    sscanf(line,
		   "plain launch=%lld legacy=%lld driver=%lld graph_small=%lld graph_big=%lld "
		   "pitch=%lld kpitch=%lld spitch=%lld skpitch=%lld spaced=%lld alloc=%lld",
		   &l, &g, &d, &gs, &gb, &pi, &kp, &sp, &skp, &spc, &al) != 11)
		return -1;
	p->launch = l;
	p->legacy = g;
	p->driver = d;
	p->graph_small = gs;
	p->graph_big = gb;
	p->pitch = pi;
	p->kpitch = kp;
	p->spitch = sp;
	p->skpitch = skp;
	p->spaced = spc;
	p->alloc = al;
	return 0;
}

/* ",kernel_pitch_ns=N,...": the eight occupancy figures of the empty
 * (store 0) or storing (store 1, keys store_*) tiny kernels, medians over the
 * phases: traced (t), untraced in the children (ck: launched, cg: graph),
 * untraced with the kinds off (u), recorded by CUPTI (t) */
static void print_occupancy(int store, const struct phase *t, const struct phase *u, int64_t *ck,
			    int64_t *cg)
{
	int64_t a[PHASES], b[PHASES], c[PHASES], e[PHASES], g[PHASES], h[PHASES];
	const char *s = store ? "store_" : "";
	int i;

	for (i = 0; i < PHASES; i++) {
		a[i] = store ? t[i].skpitch : t[i].kpitch;
		b[i] = store ? u[i].skpitch : u[i].kpitch;
		c[i] = store ? t[i].stiny_cupti : t[i].tiny_cupti;
		e[i] = store ? t[i].snode_cupti : t[i].node_cupti;
		g[i] = store ? t[i].spitch : t[i].pitch;
		h[i] = store ? u[i].spitch : u[i].pitch;
	}
	printf(",%skernel_pitch_ns=%lld,plain_%skernel_pitch_ns=%lld,off_%skernel_pitch_ns=%lld,"
	       "%stiny_kernel_ns=%lld,%sgraph_pitch_ns=%lld,plain_%sgraph_pitch_ns=%lld,"
	       "off_%sgraph_pitch_ns=%lld,%snode_kernel_ns=%lld",
	       s, (long long)median(a, PHASES), s, (long long)median(ck, PHASES), s,
	       (long long)median(b, PHASES), s, (long long)median(c, PHASES), s,
	       (long long)median(g, PHASES), s, (long long)median(cg, PHASES), s,
	       (long long)median(h, PHASES), s, (long long)median(e, PHASES));
}

int main(int argc, char **argv)
{
	struct phase u[PHASES], t[PHASES];
	int64_t fig[6], plain[5], node, cpitch[PHASES], ckpitch[PHASES];
	int64_t cspitch[PHASES], cskpitch[PHASES];
	struct setup su;
	int i, k;

	if (argc > 1 && strcmp(argv[1], "--plain") == 0) {
		int n = 0;
		if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
			return 77;
		return plain_main();
	}
	{
		const char *a = getenv("GAPSCOPE_ACTIVITIES");
		const char *s = getenv("GAPSCOPE_SYNC_SOURCE");
		const char *k = getenv("GAPSCOPE_CLOCK");
		int src = GS_SYNC_FROM_CALLBACKS, clock = GS_CLOCK_CUPTI;
		if (a && *a && gs_activities_parse(a, &activities) != 0)
			activities = GS_ACT_DEFAULT; /* the collector warns about it */
		if (s && *s && gs_sync_source_parse(s, &src) != 0)
			src = GS_SYNC_FROM_CALLBACKS; /* likewise */
		/* the kinds the collector enables: sync and event rows made
		 * from callbacks need none (this loop makes no such call) */
		activities = gs_cupti_activities(activities, src);
		/* the collector's CPU clock for CUPTI, before any kind is on */
		if (k && *k && gs_clock_parse(k, &clock) == 0 && clock == GS_CLOCK_REALTIME &&
		    cuptiActivityRegisterTimestampCallback(gs_realtime_ns) != CUPTI_SUCCESS) {
			/* as the collector, which then goes on with CUPTI's */
			fprintf(stderr, "gapscope-calibrate: CUPTI refused the collector's clock; "
					"timing with CUPTI's own\n");
		}
	}
	if (cuptiActivityRegisterCallbacks(buf_req, buf_done) != CUPTI_SUCCESS) {
		fprintf(stderr, "gapscope-calibrate: CUPTI is not usable here\n");
		return 1;
	}
	{
		int n = 0;
		cudaError_t e = cudaGetDeviceCount(&n);
		if (e != cudaSuccess || n == 0) {
			fprintf(stderr, "gapscope-calibrate: no CUDA device: %s\n",
				cudaGetErrorString(e));
			return 77;
		}
	}
	/* the driver is up, no context yet: where the collector's injection
	 * enables its kinds */
	set_tracing(1);
	set_up(&su);

	for (i = 0; i < PHASES; i++) {
		if (plain_child("/proc/self/exe", &u[i]) != 0) {
			fprintf(stderr, "gapscope-calibrate: the untraced child failed\n");
			return 1;
		}
		/* the child's GPU pitches: untraced, CUPTI never loaded */
		cpitch[i] = u[i].pitch;
		ckpitch[i] = u[i].kpitch;
		cspitch[i] = u[i].spitch;
		cskpitch[i] = u[i].skpitch;
		n_tiny = n_node = n_stiny = n_snode = n_api = 0;
		measure_host(&t[i], &su);
		measure_pitch(&t[i], &su);
		measure_kpitch(&t[i], &su);
		measure_spins(&t[i], &su);
		t[i].spaced = spaced_call_time(); /* the phase's last launches */
		/* the GPU's figure untraced in this process, kinds off (which
		 * flushes the spin kernels' records): the host's lingering cost
		 * does not reach the GPU, and against a child's pitch the node
		 * cost came out 1.0 us where a program's graphs lost 0.16 (H200) */
		set_tracing(0);
		t[i].tiny_cupti = median(tiny_dur, n_tiny);
		t[i].node_cupti = median(node_dur, n_node);
		t[i].stiny_cupti = median(stiny_dur, n_stiny);
		t[i].snode_cupti = median(snode_dur, n_snode);
		t[i].launch_gap = launch_gap();
		t[i].spaced_rec = spaced_record();
		measure_pitch(&u[i], &su);
		measure_kpitch(&u[i], &su);
		set_tracing(1);
		if (!n_spin) {
			fprintf(stderr, "gapscope-calibrate: no kernel records from CUPTI\n");
			return 1;
		}
		t[i].spin_cupti = median(spin_dur, n_spin);
	}
	/* differences of medians: the phases of the two kinds run in
	 * different processes, so they do not pair one to one */
	for (k = 0; k < 7; k++) {
		int64_t a[PHASES], b[PHASES], m;
		for (i = 0; i < PHASES; i++) {
			const struct phase *x = &t[i], *y = &u[i];
			switch (k) {
			case 0: a[i] = x->launch, b[i] = y->launch; break;
			case 1: a[i] = x->legacy, b[i] = y->legacy; break;
			case 2: a[i] = x->driver, b[i] = y->driver; break;
			case 3: a[i] = x->spin_cupti, b[i] = x->spin_self; break;
			case 4: a[i] = x->pitch, b[i] = y->pitch; break;
			case 5: a[i] = x->graph_big, b[i] = y->graph_big; break;
			default: a[i] = x->graph_small, b[i] = y->graph_small; break;
			}
		}
		if (k < 3 || k > 4)
			plain[k < 3 ? k : k - 2] = median(b, PHASES);
		if (k == 6)
			break; /* the small graph's untraced time only */
		m = median(a, PHASES) - median(b, PHASES);
		fig[k] = m < 0 ? 0 : m;
	}
	/* untraced graph launch: a line through the two graphs' call times */
	node = (plain[3] - plain[4]) / (NODES - GRAPH_SMALL);
	if (node < 0)
		node = 0;
	/* the pitch grows by the node's instrumentation; of that, kernel_ns
	 * shows as longer kernels and the rest as idle between them */
	printf("GAPSCOPE_CALIBRATION=launch_ns=%lld,legacy_launch_ns=%lld,driver_launch_ns=%lld,"
	       "kernel_ns=%lld,gpu_gap_ns=%lld,graph_node_ns=%lld,plain_launch_ns=%lld,"
	       "plain_legacy_launch_ns=%lld,plain_driver_launch_ns=%lld,graph_launch_ns=%lld,"
	       "plain_graph_launch_ns=%lld,plain_graph_node_ns=%lld",
	       (long long)fig[0], (long long)fig[1], (long long)fig[2], (long long)fig[3],
	       (long long)(fig[4] > fig[3] ? fig[4] - fig[3] : 0), (long long)fig[4],
	       (long long)plain[0], (long long)plain[1], (long long)plain[2], (long long)fig[5],
	       (long long)(plain[4] - node * GRAPH_SMALL > 0 ? plain[4] - node * GRAPH_SMALL : 0),
	       (long long)node);
	/* what a kernel occupies the GPU, from a full queue: launched one by
	 * one (traced, untraced in the child, untraced in this process with
	 * the kinds off) and as a graph node, and the durations CUPTI records
	 * for those kernels (the correction of a trace's utilisation reads
	 * them: docs/collector.md); for empty kernels, then for kernels that
	 * store one word */
	print_occupancy(0, t, u, ckpitch, cpitch);
	print_occupancy(1, t, u, cskpitch, cspitch);
	{
		/* the phases that had runtime records */
		int64_t g[PHASES];
		int n = 0;
		for (i = 0; i < PHASES; i++)
			if (t[i].launch_gap >= 0)
				g[n++] = t[i].launch_gap;
		if (n)
			printf(",launch_gap_ns=%lld", (long long)median(g, (size_t)n));
	}
	{
		/* the spaced launches: untraced (children), what tracing
		 * added (traced less untraced, both timed from outside the
		 * call) and, with runtime records, the traced records' own
		 * duration (spaced_record_ns) */
		int64_t a[PHASES], b[PHASES], r[PHASES], d;
		int n = 0;
		for (i = 0; i < PHASES; i++) {
			a[i] = t[i].spaced;
			b[i] = u[i].spaced;
			if (t[i].spaced_rec >= 0)
				r[n++] = t[i].spaced_rec;
		}
		d = median(a, PHASES) - median(b, PHASES);
		printf(",plain_spaced_launch_ns=%lld,spaced_launch_ns=%lld",
		       (long long)median(b, PHASES), (long long)(d < 0 ? 0 : d));
		if (n)
			printf(",spaced_record_ns=%lld", (long long)median(r, (size_t)n));
	}
	{
		/* a cudaMalloc + cudaFree pair: untraced (children) and what
		 * tracing added; left out where an allocation failed */
		int64_t a[PHASES], b[PHASES], d;
		int n = 0;
		for (i = 0; i < PHASES; i++)
			if (t[i].alloc >= 0 && u[i].alloc >= 0) {
				a[n] = t[i].alloc;
				b[n++] = u[i].alloc;
			}
		if (n) {
			d = median(a, (size_t)n) - median(b, (size_t)n);
			printf(",plain_alloc_pair_ns=%lld,alloc_pair_ns=%lld",
			       (long long)median(b, (size_t)n), (long long)(d < 0 ? 0 : d));
		}
	}
	printf("\n");
	cudaGraphExecDestroy(su.exec);
	cudaGraphExecDestroy(su.exec_small);
	cudaGraphExecDestroy(su.exec_store);
	cudaFree(su.d_word);
	cudaFree(su.d_out);
	cudaStreamDestroy(su.s);
	return 0;
}
