/*
 * node_pitch.cu - the GPU's own time per tiny kernel, by what the kernel
 * does: what kernel tracing adds to it, for the overhead correction.
 *
 * gapscope-calibrate timed empty kernels (graph nodes and launched kernels)
 * behind a block; on the H200 tracing added 354 ns a node to those, while
 * tests/gpu/gap_phases.cu's graph of counting kernels lost only 160 ns a
 * node. This program asks whether a kernel's store is what makes the
 * difference. On the H200 (2026-12-05) it is not: empty, storing and atomic
 * nodes all grew by 343-363 ns here (docs/collector.md, "Graph nodes: what a
 * storing node grows by").
 *
 * For each kind of one-block kernel (32 threads):
 *   empty        does nothing
 *   store        thread 0 writes one int to global memory
 *   atomic       thread 0 adds 1 to a global counter (atomicAdd)
 *   spin1000     spins 1 us on the SM clock, writes nothing
 *   spin1000_store  the same, then the store
 * it queues, behind a 20 ms kernel (so the GPU never waits for the host):
 *   graph_<kind>   10 replays of a graph of 100 such kernels
 *   launch_<kind>  256 kernels launched one by one
 * times them with CUDA events (the GPU's time from the block's end to the
 * last kernel's end) and prints "mode=<graph|launch>_<kind> per_kernel_us=X"
 * (the median over --repeats, after --warmup), the format
 * bench/overhead/overhead_pairs.py reads (workload node_pitch), so a run of it gives
 * traced / untraced per kind.
 *
 *   gs_bench_node_pitch [--repeats R (9)] [--warmup W (2)]
 *
 * It prints figures, not a test: it asserts nothing about timings.
 */
#include <cuda_runtime.h>
#include <string.h>

#define BENCH_NAME "node_pitch"
#include "../bench_common.h"

#define NODES 100    /* kernels per graph */
#define REPLAYS 10   /* graph launches per measurement */
#define LAUNCHES 256 /* kernels launched one by one (below the queue's depth) */
#define BLOCK_NS 20000000ll

enum kind { EMPTY, STORE, ATOMIC, SPIN, SPIN_STORE, N_KINDS };
static const char *const kind_name[N_KINDS] = {"empty", "store", "atomic", "spin1000",
					       "spin1000_store"};

__device__ static unsigned long long globaltimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void gs_np_block(long long ns)
{
	unsigned long long t0 = globaltimer();
	while ((long long)(globaltimer() - t0) < ns)
		;
}

__global__ void gs_np_kernel(int kind, long long cycles, int *word)
{
	if (kind == SPIN || kind == SPIN_STORE) {
		long long t0 = clock64();
		while (clock64() - t0 < cycles)
			;
	}
	if (threadIdx.x != 0)
		return;
	if (kind == STORE || kind == SPIN_STORE)
		*word = 1;
	else if (kind == ATOMIC)
		atomicAdd(word, 1);
}

/* us per kernel of the work queued by queue() behind the block */
static double gpu_time(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int kernels,
		       void (*queue)(cudaStream_t, const void *), const void *arg)
{
	float ms = 0;

	gs_np_block<<<1, 1, 0, s>>>(BLOCK_NS);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(e0, s));
	queue(s, arg);
	CHECK(cudaEventRecord(e1, s));
	CHECK(cudaEventSynchronize(e1));
	CHECK(cudaEventElapsedTime(&ms, e0, e1));
	return ms * 1000.0 / kernels;
}

static void queue_graph(cudaStream_t s, const void *arg)
{
	int i;

	for (i = 0; i < REPLAYS; i++)
		CHECK(cudaGraphLaunch(*(const cudaGraphExec_t *)arg, s));
}

struct launches {
	int kind;
	long long cycles;
	int *word;
};

static void queue_launches(cudaStream_t s, const void *arg)
{
	const struct launches *l = (const struct launches *)arg;
	int i;

	for (i = 0; i < LAUNCHES; i++)
		gs_np_kernel<<<1, 32, 0, s>>>(l->kind, l->cycles, l->word);
	CHECK(cudaGetLastError());
}

int main(int argc, char **argv)
{
	int repeats = (int)bench_arg_long(argc, argv, "--repeats", 9);
	int warmup = (int)bench_arg_long(argc, argv, "--warmup", 2);
	double *v = (double *)calloc(repeats, sizeof(double));
	int clock_khz = 0, k, r, i, n = 0;
	cudaDeviceProp prop;
	cudaStream_t s;
	cudaEvent_t e0, e1;
	int *word;

	if (repeats < 1 || warmup < 0 || !v) {
		fprintf(stderr, "node_pitch: --repeats must be at least 1, --warmup at least 0\n");
		return 2;
	}
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("node_pitch: no CUDA device\n");
		return 77;
	}
	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	CHECK(cudaMalloc(&word, sizeof(int)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	printf("node_pitch: %s, one-block kernels behind a 20 ms block, graphs of %d x %d "
	       "replays, %d launches, %d repeats (median) after %d warm-up\n",
	       prop.name, NODES, REPLAYS, LAUNCHES, repeats, warmup);
	for (k = 0; k < N_KINDS; k++) {
		long long cycles =
		    (k == SPIN || k == SPIN_STORE) ? (long long)clock_khz / 1000 : 0; /* 1 us */
		struct launches l = {k, cycles, word};
		cudaGraph_t graph;
		cudaGraphExec_t exec;
		char name[48];

		CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
		for (i = 0; i < NODES; i++)
			gs_np_kernel<<<1, 32, 0, s>>>(k, cycles, word);
		CHECK(cudaGetLastError());
		CHECK(cudaStreamEndCapture(s, &graph));
		CHECK(cudaGraphInstantiate(&exec, graph, 0));
		CHECK(cudaGraphUpload(exec, s));
		CHECK(cudaStreamSynchronize(s));
		for (r = 0; r < warmup + repeats; r++) {
			double t = gpu_time(s, e0, e1, NODES * REPLAYS, queue_graph, &exec);
			if (r >= warmup)
				v[r - warmup] = t;
		}
		snprintf(name, sizeof(name), "graph_%s", kind_name[k]);
		bench_report_mode(name, v, repeats);
		for (r = 0; r < warmup + repeats; r++) {
			double t = gpu_time(s, e0, e1, LAUNCHES, queue_launches, &l);
			if (r >= warmup)
				v[r - warmup] = t;
		}
		snprintf(name, sizeof(name), "launch_%s", kind_name[k]);
		bench_report_mode(name, v, repeats);
		CHECK(cudaGraphExecDestroy(exec));
		CHECK(cudaGraphDestroy(graph));
	}
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(word));
	free(v);
	return 0;
}
