/*
 * calibrate.cu - gapscope-calibrate: what tracing costs on this machine, so
 * the viewer can correct a trace's figures for it (docs/collector.md,
 * "Overhead correction"). `gapscope record` runs it once before the program,
 * on the same GPU, and hands its figures to the collector, which stores them
 * in meta (calibration.*).
 *
 * In one process it alternates untraced and traced phases (CUPTI activity
 * kinds switched on and off: the kinds the collector will record, from
 * GAPSCOPE_ACTIVITIES as `record` sets it (default: all but `driver`), and
 * the driver's launch calls), three of each, and prints one line:
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
 * Medians over the phases; negative differences are printed as 0.
 * It does not know the program's kernels: figures are for tiny kernels and
 * plain launches, the common case of launch-bound work.
 * Exit 0 with the line; 77 without a CUDA device or driver; 1 (and a message
 * on stderr) when CUDA or CUPTI fails: record then goes on without
 * calibration.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern "C" {
#include "internal.h"
}

#define PHASES 3
#define CALLS 256 /* launches timed per round */
#define ROUNDS 12 /* rounds per phase */
#define SPINS 24  /* spin kernels per phase */
#define NODES 100 /* kernels per graph */
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
			if (strstr(k->name, "gs_cal_spin") && n_spin < SPINS * 2)
				spin_dur[n_spin++] = (int64_t)(k->end - k->start);
		}
	}
	free(b);
}

static unsigned activities = GS_ACT_DEFAULT;

static void tracing(int on)
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
	int64_t pitch;			/* ns per kernel, back to back (graph) */
	int64_t spin_cupti, spin_self;	/* ns, median durations */
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

static void measure(struct phase *p, cudaStream_t s, CUfunction f, cudaGraphExec_t g,
		    unsigned long long *d_out)
{
	static int64_t self[SPINS];
	unsigned long long h;
	cudaEvent_t e0, e1;
	float ms = 0;
	int i;

	p->launch = call_time(s, NULL);
	p->legacy = call_time(0, NULL);
	p->driver = call_time(s, f);

	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	CK(cudaGraphLaunch(g, s)); /* warm */
	CK(cudaEventRecord(e0, s));
	for (i = 0; i < 10; i++)
		CK(cudaGraphLaunch(g, s));
	CK(cudaEventRecord(e1, s));
	CK(cudaEventSynchronize(e1));
	CK(cudaEventElapsedTime(&ms, e0, e1));
	p->pitch = (int64_t)(ms * 1e6 / (10 * NODES));
	CK(cudaEventDestroy(e0));
	CK(cudaEventDestroy(e1));

	n_spin = 0;
	for (i = 0; i < SPINS; i++) {
		gs_cal_spin<<<1, 1, 0, s>>>(SPIN_NS, d_out);
		CK(cudaMemcpyAsync(&h, d_out, sizeof(h), cudaMemcpyDeviceToHost, s));
		CK(cudaStreamSynchronize(s));
		self[i] = (int64_t)h;
	}
	p->spin_self = median(self, SPINS);
}

int main(void)
{
	struct phase u[PHASES], t[PHASES];
	int64_t v[6][PHASES];
	cudaStream_t s;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	cudaFunction_t rf;
	unsigned long long *d_out;
	int i, k;

	{
		const char *a = getenv("GAPSCOPE_ACTIVITIES");
		if (a && *a && gs_activities_parse(a, &activities) != 0)
			activities = GS_ACT_DEFAULT; /* the collector warns about it */
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
	CK(cudaFree(0));
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaMalloc(&d_out, sizeof(*d_out)));
	CK(cudaGetFuncBySymbol(&rf, (const void *)gs_cal_empty));
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (i = 0; i < NODES; i++)
		gs_cal_empty<<<1, 32, 0, s>>>();
	CK(cudaStreamEndCapture(s, &graph));
	CK(cudaGraphInstantiate(&exec, graph, 0));

	for (i = 0; i < PHASES; i++) {
		measure(&u[i], s, (CUfunction)rf, exec, d_out);
		tracing(1);
		measure(&t[i], s, (CUfunction)rf, exec, d_out);
		tracing(0);
		t[i].spin_cupti = median(spin_dur, n_spin);
		if (!n_spin) {
			fprintf(stderr, "gapscope-calibrate: no kernel records from CUPTI\n");
			return 1;
		}
	}
	for (i = 0; i < PHASES; i++) {
		v[0][i] = t[i].launch - u[i].launch;
		v[1][i] = t[i].legacy - u[i].legacy;
		v[2][i] = t[i].driver - u[i].driver;
		v[3][i] = t[i].spin_cupti - t[i].spin_self;
		v[4][i] = t[i].pitch - u[i].pitch;
	}
	for (k = 0; k < 5; k++) {
		int64_t m = median(v[k], PHASES);
		v[k][0] = m < 0 ? 0 : m;
	}
	/* the pitch grows by the node's instrumentation; of that, kernel_ns
	 * shows as longer kernels and the rest as idle between them */
	printf("GAPSCOPE_CALIBRATION=launch_ns=%lld,legacy_launch_ns=%lld,driver_launch_ns=%lld,"
	       "kernel_ns=%lld,gpu_gap_ns=%lld,graph_node_ns=%lld\n",
	       (long long)v[0][0], (long long)v[1][0], (long long)v[2][0], (long long)v[3][0],
	       (long long)(v[4][0] > v[3][0] ? v[4][0] - v[3][0] : 0), (long long)v[4][0]);
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(graph);
	cudaFree(d_out);
	cudaStreamDestroy(s);
	return 0;
}
