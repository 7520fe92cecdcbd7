/*
 * launch_delay.cu - gs_bench_launch_delay: how long after the host enters a
 * launch call the GPU starts its first kernel, for a kernel launch and for
 * graph launches of 1, 10 and 40 nodes (issue 18: the overhead correction
 * takes a traced launch call's excess off the launch latency; for graph
 * launches the untraced call returns in ~1 us whatever the node count, so
 * what follows the call decides where the first node starts).
 *
 * The first kernel writes %globaltimer at its start; the host reads
 * CLOCK_REALTIME just before the call. That difference means something only
 * where %globaltimer follows the host's realtime clock, which the program
 * checks first: 50 kernels stamp %globaltimer between two host readings
 * around launch + sync; "clock ok" when every stamp lies between them (then
 * the clocks agree to within the round trip), else it prints "clock
 * unusable" with the offsets and measures nothing.
 *
 * Prints, per mode, "mode=NAME call_us=X delay_us=Y" (medians over --repeats
 * launches, default 50, each from an idle stream: launch, then sync before
 * the next), call_us the launch call's own host time, delay_us from the
 * call's entry to the first kernel's start. Exit 1 on a CUDA error, 77
 * without a device. It judges no timings. Run it untraced and under
 * `gapscope record` to see what tracing moves.
 */
#include <string.h>
#include <time.h>

#define BENCH_NAME "launch_delay"
#include "../bench_common.h"

static int64_t realtime_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* node i of a graph: the first (stamp != NULL) writes its start time */
__global__ void delay_stamp(unsigned long long *stamp)
{
	if (stamp && threadIdx.x == 0) {
		unsigned long long t;
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
		*stamp = t;
	}
}

static cudaGraphExec_t make_graph(cudaStream_t s, int nodes, unsigned long long *stamp)
{
	cudaGraph_t g;
	cudaGraphExec_t e;
	int i;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (i = 0; i < nodes; i++)
		delay_stamp<<<1, 32, 0, s>>>(i == 0 ? stamp : NULL);
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&e, g, 0));
	CHECK(cudaGraphDestroy(g));
	return e;
}

int main(int argc, char **argv)
{
	long repeats = bench_arg_long(argc, argv, "--repeats", 50);
	static const int sizes[] = {1, 10, 40};
	unsigned long long *d_stamp, *h_stamp;
	double *call, *delay;
	cudaStream_t s;
	int n = 0, bad = 0;
	long i;
	size_t k;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		fprintf(stderr, "launch_delay: no CUDA device\n");
		return 77;
	}
	if (repeats < 5)
		repeats = 5;
	call = (double *)calloc(repeats, sizeof(double));
	delay = (double *)calloc(repeats, sizeof(double));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&d_stamp, sizeof(*d_stamp)));
	CHECK(cudaMallocHost(&h_stamp, sizeof(*h_stamp)));

	/* do the clocks agree? every stamp between the host's two readings */
	for (i = 0; i < 50; i++) {
		int64_t a = realtime_ns(), b;
		delay_stamp<<<1, 32, 0, s>>>(d_stamp);
		CHECK(cudaMemcpyAsync(h_stamp, d_stamp, sizeof(*h_stamp), cudaMemcpyDeviceToHost, s));
		CHECK(cudaStreamSynchronize(s));
		b = realtime_ns();
		if ((int64_t)*h_stamp < a || (int64_t)*h_stamp > b) {
			if (bad < 3)
				printf("clock: stamp %lld ns after the host's first reading, round "
				       "trip %lld ns\n",
				       (long long)((int64_t)*h_stamp - a), (long long)(b - a));
			bad++;
		}
	}
	if (bad) {
		printf("clock unusable: %d of 50 stamps outside the host's readings\n", bad);
		return 0;
	}
	printf("clock ok\n");

	/* a kernel launch */
	for (i = 0; i < repeats; i++) {
		int64_t t0 = realtime_ns(), t1;
		delay_stamp<<<1, 32, 0, s>>>(d_stamp);
		t1 = realtime_ns();
		CHECK(cudaMemcpyAsync(h_stamp, d_stamp, sizeof(*h_stamp), cudaMemcpyDeviceToHost, s));
		CHECK(cudaStreamSynchronize(s));
		call[i] = (t1 - t0) / 1e3;
		delay[i] = ((int64_t)*h_stamp - t0) / 1e3;
	}
	printf("mode=kernel call_us=%.3f delay_us=%.3f\n", median_of(call, (int)repeats),
	       median_of(delay, (int)repeats));

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		cudaGraphExec_t e = make_graph(s, sizes[k], d_stamp);
		CHECK(cudaGraphLaunch(e, s)); /* the first launch uploads it */
		CHECK(cudaStreamSynchronize(s));
		for (i = 0; i < repeats; i++) {
			int64_t t0 = realtime_ns(), t1;
			CHECK(cudaGraphLaunch(e, s));
			t1 = realtime_ns();
			CHECK(cudaMemcpyAsync(h_stamp, d_stamp, sizeof(*h_stamp),
					      cudaMemcpyDeviceToHost, s));
			CHECK(cudaStreamSynchronize(s));
			call[i] = (t1 - t0) / 1e3;
			delay[i] = ((int64_t)*h_stamp - t0) / 1e3;
		}
		printf("mode=graph%d call_us=%.3f delay_us=%.3f\n", sizes[k],
		       median_of(call, (int)repeats), median_of(delay, (int)repeats));
		CHECK(cudaGraphExecDestroy(e));
	}
	CHECK(cudaFreeHost(h_stamp));
	CHECK(cudaFree(d_stamp));
	CHECK(cudaStreamDestroy(s));
	free(call);
	free(delay);
	return 0;
}
