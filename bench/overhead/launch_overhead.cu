/*
 * launch_overhead.cu - per-kernel cost of a loop of short kernels, the
 * experiment of DESIGN.md's "Facts we measured", in three modes:
 *   back_to_back  N launches in one stream, one sync at the end
 *   launch_sync   N times: launch, then cudaStreamSynchronize
 *   graph_<N>     one CUDA Graph of N kernels (stream capture), replayed
 *   graph_100     one CUDA Graph of 100 kernels, replayed N/100 times, one sync
 * Each mode is timed with the host's CLOCK_MONOTONIC from the first launch to
 * the return of the closing synchronisation, divided by N; the figure is the
 * median over --repeats runs after --warmup runs that are not counted.
 *
 *   gs_bench_launch_overhead [--n N] [--repeats R] [--warmup W]
 *                            [--legacy 1] [--extra-streams K]
 * --legacy 1 launches on the legacy default stream (as PyTorch does) instead
 * of a non-blocking stream; --extra-streams K creates K more streams first
 * (PyTorch creates 128): both change what tracing costs per launch.
 * prints one line per mode, "mode=<name> per_kernel_us=<median> min_us=...
 * max_us=...", which bench/overhead/run_overhead.sh turns into its table.
 *
 * --ab 1 (under `gapscope record --capture-range cudaProfilerApi`): instead,
 * each repeat of each mode is a pair of runs in this one process, one
 * untraced and one traced (between cudaProfilerStart and cudaProfilerStop,
 * which switch the collector on and off), in alternating order; prints
 * "mode=<name> ab_untraced_us=<median> ab_traced_us=<median>
 * ab_ratio=<median of the pairs' traced / untraced>": what tracing costs
 * against the same process a moment before or after. Without the collector
 * both runs are untraced (the noise floor).
 *
 * It is a program that prints figures, not a test: it asserts nothing about
 * timings. It knows nothing of gapscope; run_overhead.sh runs it untraced
 * and under `gapscope record` to measure the collector's cost.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <string.h>

#define BENCH_NAME "launch_overhead"
#include "../bench_common.h"
#include "short_kernel.cuh"

/* What one repeat of a mode runs (--ab): the mode's loop, per-kernel us. */
struct ab_ctx {
	float *d_x, *d_y;
	cudaStream_t s, gs;
	cudaGraphExec_t exec_n, exec_100;
	int n;
};

static double ab_once(const struct ab_ctx *c, int mode)
{
	double t0 = now_us();
	int i;

	switch (mode) {
	case 0:
		for (i = 0; i < c->n; i++)
			CHECK(gs_launch_short(c->d_y, c->d_x, GS_SHORT_N, 2.0f, 1.0f, c->s));
		CHECK(cudaStreamSynchronize(c->s));
		break;
	case 1:
		for (i = 0; i < c->n; i++) {
			CHECK(gs_launch_short(c->d_y, c->d_x, GS_SHORT_N, 2.0f, 1.0f, c->s));
			CHECK(cudaStreamSynchronize(c->s));
		}
		break;
	case 2:
		CHECK(cudaGraphLaunch(c->exec_n, c->gs));
		CHECK(cudaStreamSynchronize(c->gs));
		break;
	default:
		for (i = 0; i < c->n / 100; i++)
			CHECK(cudaGraphLaunch(c->exec_100, c->gs));
		CHECK(cudaStreamSynchronize(c->gs));
		return (now_us() - t0) / (c->n / 100 * 100);
	}
	return (now_us() - t0) / c->n;
}

static cudaGraphExec_t ab_graph(const struct ab_ctx *c, int kernels)
{
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	int i;

	CHECK(cudaStreamBeginCapture(c->gs, cudaStreamCaptureModeGlobal));
	for (i = 0; i < kernels; i++)
		CHECK(gs_launch_short(c->d_y, c->d_x, GS_SHORT_N, 2.0f, 1.0f, c->gs));
	CHECK(cudaStreamEndCapture(c->gs, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphUpload(exec, c->gs));
	CHECK(cudaStreamSynchronize(c->gs));
	return exec;
}

/* --ab: untraced and traced runs of each mode, paired in this process. */
static int ab_main(struct ab_ctx *c, int repeats, int warmup)
{
	static const char *const names[] = {"back_to_back", "launch_sync", NULL, "graph_100"};
	double *u = (double *)calloc(repeats, sizeof(double));
	double *t = (double *)calloc(repeats, sizeof(double));
	double *q = (double *)calloc(repeats, sizeof(double));
	char gname[32];
	int mode, r;

	c->exec_n = ab_graph(c, c->n);
	c->exec_100 = ab_graph(c, 100);
	snprintf(gname, sizeof(gname), "graph_%d", c->n);
	/* whatever the first switch-on costs, once */
	CHECK(cudaProfilerStart());
	ab_once(c, 0);
	CHECK(cudaProfilerStop());
	for (mode = 0; mode < 4; mode++) {
		if (mode == 3 && c->n < 100)
			break;
		for (r = 0; r < warmup; r++)
			ab_once(c, mode);
		for (r = 0; r < repeats; r++) {
			int traced_first = r % 2;
			double a, b;
			if (traced_first)
				CHECK(cudaProfilerStart());
			a = ab_once(c, mode);
			CHECK(traced_first ? cudaProfilerStop() : cudaProfilerStart());
			b = ab_once(c, mode);
			if (!traced_first)
				CHECK(cudaProfilerStop());
			u[r] = traced_first ? b : a;
			t[r] = traced_first ? a : b;
			q[r] = t[r] / u[r];
		}
		printf("mode=%s ab_untraced_us=%.3f ab_traced_us=%.3f ab_ratio=%.3f\n",
		       mode == 2 ? gname : names[mode], median_of(u, repeats), median_of(t, repeats),
		       median_of(q, repeats));
		fflush(stdout);
	}
	free(u);
	free(t);
	free(q);
	return 0;
}

int main(int argc, char **argv)
{
	int n = (int)bench_arg_long(argc, argv, "--n", 1000);
	int repeats = (int)bench_arg_long(argc, argv, "--repeats", 30);
	int warmup = (int)bench_arg_long(argc, argv, "--warmup", 3);
	double *v = (double *)calloc(repeats, sizeof(double));
	cudaStream_t s, gs; /* gs: graphs (a capture needs a stream of its own) */
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	cudaDeviceProp prop;
	float *d_x, *d_y;
	int r, i;

	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaMalloc(&d_x, GS_SHORT_N * sizeof(float)));
	CHECK(cudaMalloc(&d_y, GS_SHORT_N * sizeof(float)));
	CHECK(cudaMemset(d_x, 0, GS_SHORT_N * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&gs, cudaStreamNonBlocking));
	if (bench_arg_long(argc, argv, "--legacy", 0) == 0)
		CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	else
		s = 0;
	for (i = 0; i < (int)bench_arg_long(argc, argv, "--extra-streams", 0); i++) {
		cudaStream_t extra;
		CHECK(cudaStreamCreateWithFlags(&extra, cudaStreamNonBlocking));
	}
	CHECK(cudaDeviceSynchronize());
	printf("launch_overhead: %s, N=%d kernels, %d repeats (median) after %d warm-up, "
	       "short kernel of %d floats, %d threads per block\n",
	       prop.name, n, repeats, warmup, GS_SHORT_N, GS_SHORT_THREADS);
	if (bench_arg_long(argc, argv, "--ab", 0)) {
		struct ab_ctx c = {d_x, d_y, s, gs, NULL, NULL, n};
		return ab_main(&c, repeats, warmup);
	}

	/* back to back: the CPU enqueues N launches; the GPU runs them as they
	 * arrive, so the figure is max(launch cost, kernel time). */
	for (r = 0; r < warmup + repeats; r++) {
		double t0 = now_us(), t1;
		for (i = 0; i < n; i++)
			CHECK(gs_launch_short(d_y, d_x, GS_SHORT_N, 2.0f, 1.0f, s));
		CHECK(cudaStreamSynchronize(s));
		t1 = now_us();
		if (r >= warmup)
			v[r - warmup] = (t1 - t0) / n;
	}
	bench_report_mode("back_to_back", v, repeats);

	/* launch + sync each: the full round trip per kernel. */
	for (r = 0; r < warmup + repeats; r++) {
		double t0 = now_us(), t1;
		for (i = 0; i < n; i++) {
			CHECK(gs_launch_short(d_y, d_x, GS_SHORT_N, 2.0f, 1.0f, s));
			CHECK(cudaStreamSynchronize(s));
		}
		t1 = now_us();
		if (r >= warmup)
			v[r - warmup] = (t1 - t0) / n;
	}
	bench_report_mode("launch_sync", v, repeats);

	/* one graph of N kernels, captured once, replayed. */
	CHECK(cudaStreamBeginCapture(gs, cudaStreamCaptureModeGlobal));
	for (i = 0; i < n; i++)
		CHECK(gs_launch_short(d_y, d_x, GS_SHORT_N, 2.0f, 1.0f, gs));
	CHECK(cudaStreamEndCapture(gs, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphUpload(exec, gs));
	CHECK(cudaStreamSynchronize(gs));
	for (r = 0; r < warmup + repeats; r++) {
		double t0 = now_us(), t1;
		CHECK(cudaGraphLaunch(exec, gs));
		CHECK(cudaStreamSynchronize(gs));
		t1 = now_us();
		if (r >= warmup)
			v[r - warmup] = (t1 - t0) / n;
	}
	{
		char name[32];
		snprintf(name, sizeof(name), "graph_%d", n);
		bench_report_mode(name, v, repeats);
	}
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));

	/* graphs of 100 kernels, launched n/100 times back to back: replays of
	 * a graph that is not worth a record per node in graph-level mode. */
	if (n >= 100) {
		int k, reps = n / 100;
		CHECK(cudaStreamBeginCapture(gs, cudaStreamCaptureModeGlobal));
		for (i = 0; i < 100; i++)
			CHECK(gs_launch_short(d_y, d_x, GS_SHORT_N, 2.0f, 1.0f, gs));
		CHECK(cudaStreamEndCapture(gs, &graph));
		CHECK(cudaGraphInstantiate(&exec, graph, 0));
		CHECK(cudaGraphUpload(exec, gs));
		CHECK(cudaStreamSynchronize(gs));
		for (r = 0; r < warmup + repeats; r++) {
			double t0 = now_us(), t1;
			for (k = 0; k < reps; k++)
				CHECK(cudaGraphLaunch(exec, gs));
			CHECK(cudaStreamSynchronize(gs));
			t1 = now_us();
			if (r >= warmup)
				v[r - warmup] = (t1 - t0) / (reps * 100);
		}
		bench_report_mode("graph_100", v, repeats);
		CHECK(cudaGraphExecDestroy(exec));
		CHECK(cudaGraphDestroy(graph));
	}
	if (s)
		CHECK(cudaStreamDestroy(s));
	CHECK(cudaStreamDestroy(gs));
	CHECK(cudaFree(d_x));
	CHECK(cudaFree(d_y));
	free(v);
	return 0;
}
