/*
 * launch_probe.cu - gs_bench_launch_probe: which property of a launch makes
 * tracing dear (issue 18). On the H200 gapscope-calibrate's empty launches
 * cost 0.4-1.3 us more traced, while a launch loop of tests/gpu/gap_phases.cu
 * cost 3.2 us more and PyTorch's 7-12 us (docs/collector.md). This program
 * times the same back-to-back launch loop in variants that each change one
 * thing from the calibration's loop, so that untraced/traced pairs
 * (bench/overhead/overhead_pairs.py --workloads probe) say which one costs:
 *
 *   empty_256     empty kernel, no arguments, non-blocking stream, rounds of
 *                 256 launches then a sync (gapscope-calibrate's loop)
 *   empty_2000    the same in rounds of 2000 (a deeper queue per round)
 *   arg_256       a kernel with a pointer argument that counts its runs
 *   lasterror_256 arg_256 with cudaGetLastError() after each launch (a
 *                 query call, made by PyTorch around every launch)
 *   getdev_256    arg_256 with 5 cudaGetDevice() calls before each launch
 *                 (PyTorch's count per kernel, H200, torch 2.11)
 *   legacy_256    arg_256 on the legacy default stream
 *   spin_256      arg_256 with a kernel that spins 8 us, longer than a
 *                 launch: the GPU falls behind and the queue fills, as in
 *                 a program whose kernels do work
 *   bigarg_256    arg_256 with a 512-byte argument (PyTorch's kernels take
 *                 structs of sizes and strides)
 *   exc_256       arg_256 through cudaLaunchKernelExC (as PyTorch's
 *                 CUTLASS/cuBLASLt paths)
 *   busy_256      arg_256 after 16 more streams, 64 events and a 1000-node
 *                 graph were made (a process with more CUDA state)
 *
 * Prints, per variant, "variant=NAME per_launch_us=X" (the median over 15
 * rounds of the round's wall time over its launches, the final sync of each
 * round outside the timing), and "PASS" when every kernel of arg variants
 * ran. Exit 1 on a CUDA error, 77 without a device. It judges no timings.
 */
#include <string.h>

#define BENCH_NAME "launch_probe"
#include "../bench_common.h"

#define ROUNDS 15
#define WARMUP 2

__global__ void probe_empty(void)
{
}

__global__ void probe_count(unsigned long long *n)
{
	if (threadIdx.x == 0)
		atomicAdd(n, 1ull);
}

struct big {
	unsigned long long *n;
	long long pad[63];
};

__global__ void probe_big(struct big b)
{
	if (threadIdx.x == 0)
		atomicAdd(b.n, 1ull + (unsigned long long)b.pad[5]);
}

__global__ void probe_spin(unsigned long long *n, long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
	if (threadIdx.x == 0)
		atomicAdd(n, 1ull);
}

enum extra { NONE, LAST_ERROR, GET_DEVICE, SPIN, BIG, EXC };

/* us per launch: median over ROUNDS rounds of `per` launches each */
static double loop(cudaStream_t s, int per, unsigned long long *count, enum extra extra)
{
	double v[ROUNDS];
	int r, i, k, dev;

	for (r = 0; r < WARMUP + ROUNDS; r++) {
		double t0 = now_us();
		for (i = 0; i < per; i++) {
			if (extra == GET_DEVICE)
				for (k = 0; k < 5; k++)
					CHECK(cudaGetDevice(&dev));
			if (extra == SPIN) {
				probe_spin<<<1, 32, 0, s>>>(count, 8000);
			} else if (extra == BIG) {
				struct big b;
				memset(&b, 0, sizeof(b));
				b.n = count;
				probe_big<<<1, 32, 0, s>>>(b);
			} else if (extra == EXC) {
				cudaLaunchConfig_t cfg = {};
				cudaLaunchAttribute attr = {};
				cfg.gridDim = dim3(1);
				cfg.blockDim = dim3(32);
				cfg.stream = s;
				attr.id = cudaLaunchAttributeClusterDimension;
				attr.val.clusterDim.x = 1;
				attr.val.clusterDim.y = 1;
				attr.val.clusterDim.z = 1;
				cfg.attrs = &attr;
				cfg.numAttrs = 1;
				CHECK(cudaLaunchKernelEx(&cfg, probe_count, count));
			} else if (count)
				probe_count<<<1, 32, 0, s>>>(count);
			else
				probe_empty<<<1, 32, 0, s>>>();
			if (extra == LAST_ERROR)
				CHECK(cudaGetLastError());
		}
		if (r >= WARMUP)
			v[r - WARMUP] = (now_us() - t0) / per;
		CHECK(cudaStreamSynchronize(s));
	}
	return median_of(v, ROUNDS);
}

static void report(const char *name, double us)
{
	printf("variant=%s per_launch_us=%.3f\n", name, us);
	fflush(stdout);
}

int main(void)
{
	cudaStream_t s, more[16];
	cudaEvent_t ev[64];
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	unsigned long long *d_count, got = 0, want = 0;
	int n = 0, i;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("launch_probe: no CUDA device\n");
		return 77;
	}
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&d_count, sizeof(*d_count)));
	CHECK(cudaMemset(d_count, 0, sizeof(*d_count)));
	CHECK(cudaDeviceSynchronize());

	report("empty_256", loop(s, 256, NULL, NONE));
	report("empty_2000", loop(s, 2000, NULL, NONE));
	report("arg_256", loop(s, 256, d_count, NONE));
	report("lasterror_256", loop(s, 256, d_count, LAST_ERROR));
	report("getdev_256", loop(s, 256, d_count, GET_DEVICE));
	report("legacy_256", loop(0, 256, d_count, NONE));
	report("spin_256", loop(s, 256, d_count, SPIN));
	report("bigarg_256", loop(s, 256, d_count, BIG));
	report("exc_256", loop(s, 256, d_count, EXC));
	/* arg, lasterror, getdev, legacy, spin, bigarg, exc */
	want += 7ull * (WARMUP + ROUNDS) * 256;

	for (i = 0; i < 16; i++)
		CHECK(cudaStreamCreateWithFlags(&more[i], cudaStreamNonBlocking));
	for (i = 0; i < 64; i++)
		CHECK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
	CHECK(cudaStreamBeginCapture(more[0], cudaStreamCaptureModeThreadLocal));
	for (i = 0; i < 1000; i++)
		probe_empty<<<1, 32, 0, more[0]>>>();
	CHECK(cudaStreamEndCapture(more[0], &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	report("busy_256", loop(s, 256, d_count, NONE));
	want += 1ull * (WARMUP + ROUNDS) * 256;

	CHECK(cudaMemcpy(&got, d_count, sizeof(got), cudaMemcpyDeviceToHost));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	for (i = 0; i < 64; i++)
		CHECK(cudaEventDestroy(ev[i]));
	for (i = 0; i < 16; i++)
		CHECK(cudaStreamDestroy(more[i]));
	CHECK(cudaFree(d_count));
	CHECK(cudaStreamDestroy(s));
	if (got != want) {
		printf("FAIL: %llu counting kernels ran, %llu launched\n", got, want);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
