/*
 * graph_conversion.cu - what converting a stream of short kernels to a CUDA
 * Graph buys, measured.
 *
 * The pitfall: a kernel that runs for a few microseconds costs about as much
 * to *launch* as to run. Launching 1000 of them one at a time (worse: with a
 * synchronize after each) leaves the GPU idle most of the time. A CUDA Graph
 * submits the whole sequence with one launch.
 *
 * This demo runs the short kernel of kernels/short_kernel.cuh (500k floats,
 * 512 threads) 1000 times three ways - launch + synchronize each, back to back
 * in one stream, one CUDA Graph captured from the stream - and then shows the
 * graph features one meets next: how graph size changes the per-kernel cost
 * and how many replays pay for capture + instantiation; memory copies inside
 * a graph; changing a kernel parameter in an instantiated graph without
 * instantiating again; two graphs on two streams ordered by events; and a
 * graph captured across two streams (fork/join). The captured topologies are
 * written as DOT files (cudaGraphDebugDotPrint) into --dot-dir.
 *
 * Every kernel does x = x * 1 + 1 in place, so after K kernels each element
 * must equal its start value + K exactly (small integers are exact in
 * float): the check proves that every launched kernel ran, once, in order.
 * Times are CUDA events around the work, 1 warm-up excluded, median of the
 * repeats. It does not trace anything itself: run it under `gapscope record`
 * to see the gaps.
 */
#include <math.h>

#include "demo_common.h"
#include "short_kernel.cuh"

static const char usage[] =
    "usage: gs_demo_graph_conversion [--quick] [--dot-dir DIR]\n"
    "\n"
    "1000 short kernels: launch+sync each, back to back, as one CUDA Graph;\n"
    "graph-size sweep with instantiation cost and replays to amortise it;\n"
    "copies in a graph; kernel parameter update without re-instantiation;\n"
    "two graphs on two streams ordered by events; a fork/join capture.\n"
    "Writes graph_conversion_<name>.dot files into DIR (default: .).\n"
    "  --quick   3 repeats instead of 10\n"
    "Exit: 0 all checks passed, 1 a check failed, 2 bad option, 77 no GPU.\n";

#define N_KERNELS 1000 /* kernels per measurement, as in the classic experiment */

/* Per-kernel microseconds of the widely cited V100 version of this experiment
 * (same kernel shape): launch+sync each, back to back, CUDA Graph. */
#define V100_SYNC_US 9.6
#define V100_B2B_US 3.8
#define V100_GRAPH_US 3.4

static int n = GS_SHORT_N;  /* floats per buffer */
static float *h_start;	    /* pinned: the start values, i % 1000 */
static float *h_out;	    /* pinned: results read back */
static int repeats;	    /* timed repeats after 1 warm-up */
static int failures;	    /* checks that failed */
static const char *dot_dir; /* where DOT files go */

/* One kernel of the chain: in place, x = x * 1 + 1. */
static void step(float *d, cudaStream_t s)
{
	CHECK(gs_launch_short(d, d, n, 1.0f, 1.0f, s));
}

/* reset() and check() use the legacy default stream, which does not wait
 * for our non-blocking streams: drain the device first. */
static void reset(float *d)
{
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(d, h_start, n * sizeof(float), cudaMemcpyHostToDevice));
}

/* Does every element of device buffer d equal start * mul + add? */
static void check(const char *what, const float *d, float mul, float add)
{
	int i, bad = 0;

	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h_out, d, n * sizeof(float), cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++)
		if (h_out[i] != h_start[i] * mul + add)
			bad++;
	if (bad) {
		printf("  check %-34s FAIL: %d of %d elements wrong (e.g. [1] = %g, want %g)\n",
		       what, bad, n, h_out[1], h_start[1] * mul + add);
		failures++;
	} else {
		printf("  check %-34s OK (x * %g + %g)\n", what, mul, add);
	}
}

static void dot_print(cudaGraph_t g, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/graph_conversion_%s.dot", dot_dir, name);
	CHECK(cudaGraphDebugDotPrint(g, path, cudaGraphDebugDotFlagsVerbose));
	printf("  topology written to %s\n", path);
}

/* Capture `count` chained kernels on stream s into a new graph. */
static cudaGraph_t capture_chain(float *d, int count, cudaStream_t s)
{
	cudaGraph_t g;
	int k;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	for (k = 0; k < count; k++)
		step(d, s);
	CHECK(cudaStreamEndCapture(s, &g));
	return g;
}

/* The three classic ways; returns per-kernel microseconds in us[3]. */
static void three_ways(float *d, cudaStream_t s, double us[3])
{
	cudaEvent_t e0, e1;
	double *t = (double *)malloc(sizeof(double) * repeats);
	cudaGraph_t g;
	cudaGraphExec_t ge;
	int r, k;

	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));

	/* 1. Launch, then wait for it: the host and GPU take turns idling. */
	gs_phase_begin("launch_sync_each");
	reset(d);
	for (r = -1; r < repeats; r++) { /* r = -1 is the warm-up */
		CHECK(cudaEventRecord(e0, s));
		for (k = 0; k < N_KERNELS; k++) {
			step(d, s);
			CHECK(cudaStreamSynchronize(s));
		}
		CHECK(cudaEventRecord(e1, s));
		if (r >= 0)
			t[r] = gs_event_ms(e0, e1) * 1e3 / N_KERNELS;
	}
	us[0] = gs_median(t, repeats);
	gs_phase_end();
	check("launch+sync each", d, 1, (float)(repeats + 1) * N_KERNELS);

	/* 2. Back to back: the host queues ahead; each launch still costs the
	 * host a call and the GPU a dispatch. */
	gs_phase_begin("back_to_back");
	reset(d);
	for (r = -1; r < repeats; r++) {
		CHECK(cudaEventRecord(e0, s));
		for (k = 0; k < N_KERNELS; k++)
			step(d, s);
		CHECK(cudaEventRecord(e1, s));
		if (r >= 0)
			t[r] = gs_event_ms(e0, e1) * 1e3 / N_KERNELS;
	}
	us[1] = gs_median(t, repeats);
	gs_phase_end();
	check("back to back", d, 1, (float)(repeats + 1) * N_KERNELS);

	/* 3. One graph of all 1000: captured once, instantiated once, then one
	 * cudaGraphLaunch submits the whole chain. Capture does not run
	 * anything, so the buffer is reset after it. */
	gs_phase_begin("graph_1000");
	g = capture_chain(d, N_KERNELS, s);
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	reset(d);
	for (r = -1; r < repeats; r++) {
		CHECK(cudaEventRecord(e0, s));
		CHECK(cudaGraphLaunch(ge, s));
		CHECK(cudaEventRecord(e1, s));
		if (r >= 0)
			t[r] = gs_event_ms(e0, e1) * 1e3 / N_KERNELS;
	}
	us[2] = gs_median(t, repeats);
	gs_phase_end();
	check("graph of 1000", d, 1, (float)(repeats + 1) * N_KERNELS);

	CHECK(cudaGraphExecDestroy(ge));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	free(t);
}

/* Graphs of 1..1000 kernels, each replayed until 1000 kernels have run.
 * Small graphs pay one graph launch per few kernels; every graph pays
 * capture + instantiation once, which replays must earn back. */
static void size_sweep(float *d, cudaStream_t s, double b2b_us)
{
	static const int sizes[] = {1, 10, 20, 50, 100, 200, 500, 1000};
	double *t = (double *)malloc(sizeof(double) * repeats);
	cudaEvent_t e0, e1;
	char label[64];
	unsigned i;

	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	gs_phase_begin("graph_size_sweep");
	printf("\nGraph size sweep (1000 kernels per repeat; back to back = %.2f us/kernel)\n",
	       b2b_us);
	printf("  %8s %12s %14s %16s %14s %18s\n", "kernels", "capture us", "instantiate us",
	       "replay us/graph", "us/kernel", "replays to amortise");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int size = sizes[i], replays = N_KERNELS / size, r, k;
		double c0, c1, c2, per_kernel, saving;
		cudaGraph_t g;
		cudaGraphExec_t ge;

		c0 = gs_host_us();
		g = capture_chain(d, size, s);
		c1 = gs_host_us();
		CHECK(cudaGraphInstantiate(&ge, g, 0));
		/* The first launch uploads the graph to the device: count it as
		 * part of the one-time cost, like instantiation. */
		CHECK(cudaGraphUpload(ge, s));
		CHECK(cudaStreamSynchronize(s));
		c2 = gs_host_us();

		reset(d);
		for (r = -1; r < repeats; r++) {
			CHECK(cudaEventRecord(e0, s));
			for (k = 0; k < replays; k++)
				CHECK(cudaGraphLaunch(ge, s));
			CHECK(cudaEventRecord(e1, s));
			if (r >= 0)
				t[r] = gs_event_ms(e0, e1) * 1e3 / (replays * size);
		}
		per_kernel = gs_median(t, repeats);
		/* One replay of this graph saves, against launching the same
		 * kernels back to back: size * (b2b - graph per kernel). */
		saving = size * (b2b_us - per_kernel);
		if (saving > 0)
			printf("  %8d %12.1f %14.1f %16.2f %14.2f %18.0f\n", size, c1 - c0, c2 - c1,
			       per_kernel * size, per_kernel, ceil((c2 - c0) / saving));
		else
			printf("  %8d %12.1f %14.1f %16.2f %14.2f %18s\n", size, c1 - c0, c2 - c1,
			       per_kernel * size, per_kernel, "never");
		snprintf(label, sizeof(label), "graph of %d x %d replays", size, replays);
		check(label, d, 1, (float)(repeats + 1) * replays * size);
		CHECK(cudaGraphExecDestroy(ge));
		CHECK(cudaGraphDestroy(g));
	}
	gs_phase_end();
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	free(t);
}

/* Copies can be captured too: host -> device, 10 kernels, device -> host in
 * one graph. The copy nodes keep the *pointers*: a replay reads whatever the
 * pinned host buffer holds at replay time. */
static void copies_in_graph(float *d, cudaStream_t s)
{
	size_t bytes = n * sizeof(float);
	float *h_in;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	double *t_eager = (double *)malloc(sizeof(double) * repeats);
	double *t_graph = (double *)malloc(sizeof(double) * repeats);
	cudaEvent_t e0, e1;
	int r, k, i;

	CHECK(cudaMallocHost(&h_in, bytes));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	gs_phase_begin("graph_with_copies");
	printf("\nCopies inside a graph (HtoD %zu bytes, 10 kernels, DtoH %zu bytes)\n", bytes,
	       bytes);
	memcpy(h_in, h_start, bytes);

	/* Eager version of the same sequence, for comparison. */
	for (r = -1; r < repeats; r++) {
		CHECK(cudaEventRecord(e0, s));
		CHECK(cudaMemcpyAsync(d, h_in, bytes, cudaMemcpyHostToDevice, s));
		for (k = 0; k < 10; k++)
			step(d, s);
		CHECK(cudaMemcpyAsync(h_out, d, bytes, cudaMemcpyDeviceToHost, s));
		CHECK(cudaEventRecord(e1, s));
		if (r >= 0)
			t_eager[r] = gs_event_ms(e0, e1) * 1e3;
	}

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK(cudaMemcpyAsync(d, h_in, bytes, cudaMemcpyHostToDevice, s));
	for (k = 0; k < 10; k++)
		step(d, s);
	CHECK(cudaMemcpyAsync(h_out, d, bytes, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	dot_print(g, "copies");
	for (r = -1; r < repeats; r++) {
		CHECK(cudaEventRecord(e0, s));
		CHECK(cudaGraphLaunch(ge, s));
		CHECK(cudaEventRecord(e1, s));
		if (r >= 0)
			t_graph[r] = gs_event_ms(e0, e1) * 1e3;
	}
	printf("  %-36s %10.1f us per iteration\n", "eager (2 copies + 10 launches)",
	       gs_median(t_eager, repeats));
	printf("  %-36s %10.1f us per iteration\n", "one graph", gs_median(t_graph, repeats));

	/* Change the input on the host, replay: the graph picks it up. */
	for (i = 0; i < n; i++)
		h_in[i] = h_start[i] + 100.0f;
	CHECK(cudaGraphLaunch(ge, s));
	CHECK(cudaStreamSynchronize(s));
	for (i = 0, k = 0; i < n; i++)
		if (h_out[i] != h_start[i] + 110.0f)
			k++;
	if (k) {
		printf("  check %-34s FAIL: %d of %d elements wrong\n",
		       "graph copies read new input", k, n);
		failures++;
	} else {
		printf("  check %-34s OK (x + 100 + 10, read back by the graph)\n",
		       "graph copies read new input");
	}
	gs_phase_end();
	CHECK(cudaGraphExecDestroy(ge));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaFreeHost(h_in));
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	free(t_eager);
	free(t_graph);
}

/* Change one kernel's arguments in an *instantiated* graph: cheap, against
 * instantiating the graph again. Only allowed when the topology and the
 * kernel stay the same. */
static void parameter_update(float *d, cudaStream_t s)
{
	cudaGraph_t g;
	cudaGraphExec_t ge, ge2;
	cudaGraphNode_t nodes[10];
	size_t count = 10;
	cudaKernelNodeParams p;
	float a = 1.0f, b = 5.0f;
	void *args[5];
	double *t_set = (double *)malloc(sizeof(double) * repeats);
	double *t_inst = (double *)malloc(sizeof(double) * repeats);
	double c0;
	int r;

	gs_phase_begin("graph_param_update");
	printf("\nKernel parameter update in an instantiated graph (10 kernels)\n");
	g = capture_chain(d, 10, s);
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	dot_print(g, "chain10");
	CHECK(cudaGraphGetNodes(g, nodes, &count));
	/* Any of the 10 nodes will do: they are all x = x * 1 + 1. Take the
	 * function and launch shape from the captured node and give it new
	 * arguments, in the kernel's order: (out, in, n, a, b). */
	CHECK(cudaGraphKernelNodeGetParams(nodes[0], &p));
	args[0] = &d;
	args[1] = &d;
	args[2] = &n;
	args[3] = &a;
	args[4] = &b;
	p.kernelParams = args;
	p.extra = NULL;
	for (r = -1; r < repeats; r++) {
		c0 = gs_host_us();
		CHECK(cudaGraphExecKernelNodeSetParams(ge, nodes[0], &p));
		if (r >= 0)
			t_set[r] = gs_host_us() - c0;
		c0 = gs_host_us();
		CHECK(cudaGraphInstantiate(&ge2, g, 0));
		if (r >= 0)
			t_inst[r] = gs_host_us() - c0;
		CHECK(cudaGraphExecDestroy(ge2));
	}
	printf("  %-36s %10.2f us\n", "cudaGraphExecKernelNodeSetParams",
	       gs_median(t_set, repeats));
	printf("  %-36s %10.2f us\n", "cudaGraphInstantiate (same graph)",
	       gs_median(t_inst, repeats));
	reset(d);
	CHECK(cudaGraphLaunch(ge, s));
	CHECK(cudaStreamSynchronize(s));
	/* 9 nodes still add 1, the updated one adds 5. */
	check("updated graph computes x + 14", d, 1, 14.0f);
	gs_phase_end();
	CHECK(cudaGraphExecDestroy(ge));
	CHECK(cudaGraphDestroy(g));
	free(t_set);
	free(t_inst);
}

/* Two graphs, two streams: a producer graph updates A (+10) on s1; a
 * consumer graph on s2 computes B = 2 * A and adds 9. Events order them:
 * the consumer waits for the producer, and the next producer waits for the
 * consumer (it must not overwrite A while B is being computed from it). */
static void graphs_across_streams(float *a_buf, float *b_buf, cudaStream_t s1, cudaStream_t s2)
{
	cudaGraph_t gp, gc;
	cudaGraphExec_t ep, ec;
	cudaEvent_t produced, consumed;
	int iters = 100, r, it, k;
	double *t = (double *)malloc(sizeof(double) * repeats), c0;

	gs_phase_begin("graphs_two_streams");
	printf("\nTwo graphs on two streams ordered by events (%d iterations)\n", iters);
	gp = capture_chain(a_buf, 10, s1);
	CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
	CHECK(gs_launch_short(b_buf, a_buf, n, 2.0f, 0.0f, s2));
	for (k = 0; k < 9; k++)
		step(b_buf, s2);
	CHECK(cudaStreamEndCapture(s2, &gc));
	CHECK(cudaGraphInstantiate(&ep, gp, 0));
	CHECK(cudaGraphInstantiate(&ec, gc, 0));
	dot_print(gp, "producer");
	dot_print(gc, "consumer");
	CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming));

	for (r = -1; r < repeats; r++) {
		reset(a_buf);
		c0 = gs_host_us();
		for (it = 0; it < iters; it++) {
			CHECK(cudaGraphLaunch(ep, s1));
			CHECK(cudaEventRecord(produced, s1));
			CHECK(cudaStreamWaitEvent(s2, produced, 0));
			CHECK(cudaGraphLaunch(ec, s2));
			CHECK(cudaEventRecord(consumed, s2));
			CHECK(cudaStreamWaitEvent(s1, consumed, 0));
		}
		CHECK(cudaStreamSynchronize(s1));
		CHECK(cudaStreamSynchronize(s2));
		if (r >= 0)
			t[r] = (gs_host_us() - c0) / iters;
	}
	printf("  %-36s %10.2f us per iteration (20 kernels)\n", "producer + consumer graphs",
	       gs_median(t, repeats));
	check("producer: A = x + 10 * iterations", a_buf, 1, 10.0f * iters);
	check("consumer: B = 2 * A + 9", b_buf, 2, 2 * 10.0f * iters + 9);
	gs_phase_end();
	CHECK(cudaEventDestroy(produced));
	CHECK(cudaEventDestroy(consumed));
	CHECK(cudaGraphExecDestroy(ep));
	CHECK(cudaGraphExecDestroy(ec));
	CHECK(cudaGraphDestroy(gp));
	CHECK(cudaGraphDestroy(gc));
	free(t);
}

/* One capture spanning two streams: an event recorded on the capturing
 * stream and waited on by another pulls that stream into the capture. The
 * result is one graph with two parallel branches (see its DOT file). */
static void fork_join_capture(float *a_buf, float *b_buf, cudaStream_t s1, cudaStream_t s2)
{
	cudaEvent_t fork, join;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	int k;

	gs_phase_begin("graph_fork_join");
	printf("\nOne graph captured across two streams (fork/join)\n");
	CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
	CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	CHECK(cudaEventRecord(fork, s1));
	CHECK(cudaStreamWaitEvent(s2, fork, 0));
	for (k = 0; k < 5; k++) {
		step(a_buf, s1);
		step(b_buf, s2);
	}
	CHECK(cudaEventRecord(join, s2));
	CHECK(cudaStreamWaitEvent(s1, join, 0));
	CHECK(cudaStreamEndCapture(s1, &g));
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	dot_print(g, "fork_join");
	reset(a_buf);
	reset(b_buf);
	CHECK(cudaGraphLaunch(ge, s1));
	CHECK(cudaStreamSynchronize(s1));
	check("branch A = x + 5", a_buf, 1, 5.0f);
	check("branch B = x + 5", b_buf, 1, 5.0f);
	gs_phase_end();
	CHECK(cudaGraphExecDestroy(ge));
	CHECK(cudaGraphDestroy(g));
	CHECK(cudaEventDestroy(fork));
	CHECK(cudaEventDestroy(join));
}

int main(int argc, char **argv)
{
	struct gs_demo_opts o;
	float *d_a, *d_b;
	cudaStream_t s1, s2;
	double us[3];
	int i;

	gs_demo_parse(argc, argv, usage, GS_DEMO_TAKES_DOT_DIR, &o);
	repeats = o.quick ? 3 : 10;
	dot_dir = o.dot_dir;
	gs_demo_require_gpu("graph_conversion");

	CHECK(cudaMallocHost(&h_start, n * sizeof(float)));
	CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
	for (i = 0; i < n; i++)
		h_start[i] = (float)(i % 1000);
	CHECK(cudaMalloc(&d_a, n * sizeof(float)));
	CHECK(cudaMalloc(&d_b, n * sizeof(float)));
	/* Non-blocking streams: stream capture is not allowed on the legacy
	 * default stream, and we do not want it to serialise s1 and s2. */
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

	printf("%d short kernels (%d floats, %d threads/block), %d repeats + 1 warm-up, "
	       "medians\n\n",
	       N_KERNELS, n, GS_SHORT_THREADS, repeats);
	three_ways(d_a, s1, us);
	printf("\n  %-28s %18s %18s %10s\n", "per kernel", "measured us", "V100 (cited) us",
	       "speed-up");
	printf("  %-28s %18.2f %18.1f %10s\n", "launch + sync each", us[0], V100_SYNC_US, "1.00x");
	printf("  %-28s %18.2f %18.1f %9.2fx\n", "back to back, one stream", us[1], V100_B2B_US,
	       us[0] / us[1]);
	printf("  %-28s %18.2f %18.1f %9.2fx\n", "one CUDA Graph of 1000", us[2], V100_GRAPH_US,
	       us[0] / us[2]);

	size_sweep(d_a, s1, us[1]);
	copies_in_graph(d_a, s1);
	parameter_update(d_a, s1);
	graphs_across_streams(d_a, d_b, s1, s2);
	fork_join_capture(d_a, d_b, s1, s2);

	CHECK(cudaStreamDestroy(s1));
	CHECK(cudaStreamDestroy(s2));
	CHECK(cudaFree(d_a));
	CHECK(cudaFree(d_b));
	CHECK(cudaFreeHost(h_start));
	CHECK(cudaFreeHost(h_out));
	printf("\n");
	return gs_demo_result(failures);
}
