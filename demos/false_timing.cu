/*
 * false_timing.cu - timing asynchronous GPU work with a host clock.
 *
 * The pitfall: a kernel launch returns as soon as the kernel is *queued*.
 * A host timer around the launch measures the launch call (microseconds),
 * not the kernel (milliseconds). The two honest ways: CUDA events recorded
 * in the stream around the kernel, or a host timer that stops after a
 * synchronize. And a fourth, subtler mistake: a host timer with a
 * synchronize, started while earlier work was still queued, also times that
 * earlier work.
 *
 * The kernel is gs_busy_kernel (kernels/busy_kernel.cuh): 1M floats, each
 * doing `iters` multiply-adds x = x * 1 + 1, a few milliseconds. The check:
 * after K kernels every element equals its start value + K * iters exactly.
 * Each way is repeated (1 warm-up excluded) and the median is printed,
 * with its ratio to the CUDA-event figure. It does not judge the numbers:
 * the table is the lesson.
 */
#include "busy_kernel.cuh"
#include "demo_common.h"

static const char usage[] = "usage: gs_demo_false_timing [--quick]\n"
			    "\n"
			    "Times one few-millisecond kernel four ways: host timer around the\n"
			    "launch, CUDA events, host timer with a synchronize, and host timer\n"
			    "with a synchronize while other work was still queued.\n"
			    "  --quick   3 repeats instead of 10\n"
			    "Exit: 0 checks passed, 1 a check failed, 2 bad option, 77 no GPU.\n";

#define N_ELEMS (1 << 20) /* floats */
#define ITERS 100000	  /* multiply-adds per element per kernel */

static float *h_start, *h_out; /* pinned: start values, read-back */
static int failures;

static void reset(float *d)
{
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(d, h_start, N_ELEMS * sizeof(float), cudaMemcpyHostToDevice));
}

/* After `kernels` busy kernels, is every element start + kernels * ITERS? */
static void check(const char *what, const float *d, int kernels)
{
	float add = (float)kernels * ITERS;
	int i, bad = 0;

	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h_out, d, N_ELEMS * sizeof(float), cudaMemcpyDeviceToHost));
	for (i = 0; i < N_ELEMS; i++)
		if (h_out[i] != h_start[i] + add)
			bad++;
	if (bad) {
		printf("  check %-28s FAIL: %d of %d elements wrong\n", what, bad, N_ELEMS);
		failures++;
	} else {
		printf("  check %-28s OK (%d kernels ran: x + %d)\n", what, kernels,
		       kernels * ITERS);
	}
}

static void busy(float *d, cudaStream_t s)
{
	CHECK(gs_launch_busy(d, N_ELEMS, ITERS, 1.0f, 1.0f, 0, s));
}

int main(int argc, char **argv)
{
	struct gs_demo_opts o;
	int repeats, r, i;
	float *d;
	cudaStream_t s;
	cudaEvent_t e0, e1;
	double *t, naive, events, synced, undrained, c0;

	gs_demo_parse(argc, argv, usage, 0, &o);
	repeats = o.quick ? 3 : 10;
	gs_demo_require_gpu("false_timing");

	t = (double *)malloc(sizeof(double) * repeats);
	CHECK(cudaMallocHost(&h_start, N_ELEMS * sizeof(float)));
	CHECK(cudaMallocHost(&h_out, N_ELEMS * sizeof(float)));
	for (i = 0; i < N_ELEMS; i++)
		h_start[i] = (float)(i % 1000);
	CHECK(cudaMalloc(&d, N_ELEMS * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	printf("one kernel: %d floats x %d multiply-adds; %d repeats + 1 warm-up, medians\n\n",
	       N_ELEMS, ITERS, repeats);

	/* 1. The naive way: host clock around the launch. The launch only
	 * queues the kernel, so this measures the call. (We synchronize after
	 * stopping the clock, so each repeat starts with an idle GPU.) */
	gs_phase_begin("naive_host_timer");
	reset(d);
	for (r = -1; r < repeats; r++) {
		c0 = gs_host_us();
		busy(d, s);
		if (r >= 0)
			t[r] = gs_host_us() - c0;
		CHECK(cudaStreamSynchronize(s));
	}
	naive = gs_median(t, repeats);
	gs_phase_end();
	check("naive host timer", d, repeats + 1);

	/* 2. CUDA events: timestamps taken by the GPU in stream order, just
	 * before and just after the kernel. */
	gs_phase_begin("cuda_events");
	reset(d);
	for (r = -1; r < repeats; r++) {
		CHECK(cudaEventRecord(e0, s));
		busy(d, s);
		CHECK(cudaEventRecord(e1, s));
		if (r >= 0)
			t[r] = gs_event_ms(e0, e1) * 1e3;
		else
			CHECK(cudaEventSynchronize(e1));
	}
	events = gs_median(t, repeats);
	gs_phase_end();
	check("CUDA events", d, repeats + 1);

	/* 3. Host clock, stopped after a synchronize: right, plus the launch
	 * and wake-up latency (a few microseconds). */
	gs_phase_begin("host_timer_with_sync");
	reset(d);
	for (r = -1; r < repeats; r++) {
		CHECK(cudaStreamSynchronize(s)); /* start with nothing queued */
		c0 = gs_host_us();
		busy(d, s);
		CHECK(cudaStreamSynchronize(s));
		if (r >= 0)
			t[r] = gs_host_us() - c0;
	}
	synced = gs_median(t, repeats);
	gs_phase_end();
	check("host timer + sync", d, repeats + 1);

	/* 4. Host clock with a synchronize, but an earlier kernel is still in
	 * the queue when the clock starts: the synchronize waits for both. */
	gs_phase_begin("host_timer_undrained_queue");
	reset(d);
	for (r = -1; r < repeats; r++) {
		busy(d, s); /* earlier work, not meant to be timed */
		c0 = gs_host_us();
		busy(d, s);
		CHECK(cudaStreamSynchronize(s));
		if (r >= 0)
			t[r] = gs_host_us() - c0;
	}
	undrained = gs_median(t, repeats);
	gs_phase_end();
	check("host timer, undrained queue", d, 2 * (repeats + 1));

	printf("\n  %-44s %14s %14s\n", "how the kernel was timed", "median us", "vs events");
	printf("  %-44s %14.1f %13.3fx\n", "host timer around the launch (wrong)", naive,
	       naive / events);
	printf("  %-44s %14.1f %13.3fx\n", "CUDA events around the kernel", events, 1.0);
	printf("  %-44s %14.1f %13.3fx\n", "host timer, launch + synchronize", synced,
	       synced / events);
	printf("  %-44s %14.1f %13.3fx\n", "host timer + sync, earlier work queued (wrong)",
	       undrained, undrained / events);
	printf("\nThe naive figure is %.0f times smaller than the kernel's real time: it is "
	       "the\ncost of queueing the launch. The undrained one also counts the kernel "
	       "queued\nbefore the clock started.\n\n",
	       events / naive);

	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d));
	CHECK(cudaFreeHost(h_start));
	CHECK(cudaFreeHost(h_out));
	free(t);
	return gs_demo_result(failures);
}
