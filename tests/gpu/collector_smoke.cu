/*
 * collector_smoke.cu - a CUDA program whose activity is known exactly, for
 * the collector's GPU tests (run_gpu_tests.sh records it, check_collector.py
 * compares the database with the counts it prints).
 *
 * What it does, in this order (every count is a constant below):
 *   - 2 non-blocking streams (no legacy-default-stream serialisation)
 *   - 2 synchronous cudaMemcpy HtoD from pageable memory, then
 *     3 cudaMemcpyAsync HtoD from pinned memory on stream A
 *   - 1 cudaMemset (device memory) and 1 cudaMemsetAsync on stream B
 *   - 100 short kernels (gs_launch_short -> cudaLaunchKernel), alternating
 *     between the streams in 4 steps of 25, each step inside an NVTX range
 *     "gs_smoke_step" nested in one range "gs_smoke_outer"; one NVTX mark
 *   - 1 cudaStreamWaitEvent (B waits for an event of A), 2
 *     cudaEventSynchronize, 3 cudaStreamSynchronize, 2 cudaDeviceSynchronize
 *   - 2 cudaMemcpyAsync DtoH into pinned memory on stream B and
 *     1 synchronous cudaMemcpy DtoH into pageable memory
 * then checks the results on the CPU (y = x * 2 + 1 applied per kernel) and
 * prints "GS_SMOKE_COUNTS key=value ..." and "result: PASS" (exit 0) or
 * "result: FAIL" (exit 1).
 *
 * --forever: after the above, launch kernels (with a stream sync every 1000)
 * until killed, printing "GS_SMOKE_LOOPING" once; for the SIGTERM test.
 *
 * --fork-exit / --fork-term: once CUDA is initialised, fork a child that
 * makes no CUDA call and ends at once, by exit(0) or by a SIGTERM to itself
 * (default action); wait for it, print "GS_SMOKE_CHILD exit=N" or
 * "GS_SMOKE_CHILD signal=N", then go on as above. For the test that a
 * forked child leaves the recording alone (and is not held up by it).
 *
 * It knows nothing of gapscope: run alone, it is an ordinary CUDA program.
 * It frees nothing before exit (cudaFree's implicit synchronisation would add
 * rows whose number is not part of the test); the process exit releases all.
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "short_kernel.cuh"

#define SMOKE_KERNELS 100	 /* kernel launches */
#define SMOKE_STEPS 4		 /* NVTX step ranges, 25 kernels each */
#define SMOKE_COPY_N (16 * 1024) /* floats per copy: 64 KiB, one CUPTI record each */
#define SMOKE_SYNC_HTOD 2	 /* synchronous HtoD copies (pageable source) */
#define SMOKE_ASYNC_HTOD 3	 /* async HtoD copies (pinned source) */
#define SMOKE_ASYNC_DTOH 2	 /* async DtoH copies (pinned destination) */
#define SMOKE_SYNC_DTOH 1	 /* synchronous DtoH copies (pageable destination) */

#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "collector_smoke: %s failed: %s (line %d)\n", #call,       \
				cudaGetErrorString(e_), __LINE__);                                 \
			printf("result: FAIL\n");                                                  \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	int forever = argc > 1 && !strcmp(argv[1], "--forever");
	int fork_exit = argc > 1 && !strcmp(argv[1], "--fork-exit");
	int fork_term = argc > 1 && !strcmp(argv[1], "--fork-term");
	cudaStream_t a, b;
	cudaEvent_t ev_a, ev_b;
	float *pageable_in, *pageable_out, *pinned_in, *pinned_out;
	float *d_x, *d_y, *d_scratch;
	int i, bad = 0;

	pageable_in = (float *)malloc(SMOKE_COPY_N * sizeof(float));
	pageable_out = (float *)malloc(SMOKE_COPY_N * sizeof(float));
	if (!pageable_in || !pageable_out) {
		printf("result: FAIL\n");
		return 1;
	}
	for (i = 0; i < SMOKE_COPY_N; i++)
		pageable_in[i] = (float)(i % 1000);
	CHECK(cudaMallocHost(&pinned_in, SMOKE_COPY_N * sizeof(float)));
	CHECK(cudaMallocHost(&pinned_out, 2 * SMOKE_COPY_N * sizeof(float)));
	memcpy(pinned_in, pageable_in, SMOKE_COPY_N * sizeof(float));
	{
		/* query calls the collector leaves out (collector.c's query_calls):
		 * made here so the test sees that they are not recorded */
		int dev = -1;
		CHECK(cudaGetDevice(&dev));
		CHECK(cudaGetLastError());
		CHECK(cudaPeekAtLastError());
	}
	CHECK(cudaMalloc(&d_x, GS_SHORT_N * sizeof(float)));
	CHECK(cudaMalloc(&d_y, GS_SHORT_N * sizeof(float)));
	CHECK(cudaMalloc(&d_scratch, SMOKE_COPY_N * sizeof(float)));
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev_a, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&ev_b, cudaEventDisableTiming));
	if (fork_exit || fork_term) {
		int status = 0;
		pid_t child;
		fflush(stdout);
		child = fork();
		if (child == 0) {
			if (fork_term)
				kill(getpid(), SIGTERM);
			exit(0); /* runs the atexit handlers, the collector's among them */
		}
		if (child < 0 || waitpid(child, &status, 0) != child) {
			printf("result: FAIL (fork)\n");
			return 1;
		}
		if (WIFSIGNALED(status))
			printf("GS_SMOKE_CHILD signal=%d\n", WTERMSIG(status));
		else
			printf("GS_SMOKE_CHILD exit=%d\n", WEXITSTATUS(status));
	}

	nvtxRangePushA("gs_smoke_outer");
	/* Copies in. Synchronous copies from pageable memory: each is an
	 * implicit synchronisation the collector must flag. */
	CHECK(cudaMemset(d_x, 0, GS_SHORT_N * sizeof(float)));
	CHECK(cudaMemcpy(d_x, pageable_in, SMOKE_COPY_N * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_scratch, pageable_in, SMOKE_COPY_N * sizeof(float),
			 cudaMemcpyHostToDevice));
	for (i = 0; i < SMOKE_ASYNC_HTOD; i++)
		CHECK(cudaMemcpyAsync(d_scratch, pinned_in, SMOKE_COPY_N * sizeof(float),
				      cudaMemcpyHostToDevice, a));
	CHECK(cudaMemsetAsync(d_y, 0, GS_SHORT_N * sizeof(float), b));
	CHECK(cudaStreamSynchronize(b)); /* sync 1 of 3: d_y zeroed before kernels */

	/* 100 kernels in 4 NVTX steps. Each kernel reads d_x and writes d_y
	 * (y = x*2+1), so the result is independent of their order. Even
	 * kernels on A, odd on B. */
	for (i = 0; i < SMOKE_KERNELS; i++) {
		if (i % (SMOKE_KERNELS / SMOKE_STEPS) == 0)
			nvtxRangePushA("gs_smoke_step");
		if (i == SMOKE_KERNELS / 2)
			nvtxMarkA("gs_smoke_mark");
		CHECK(gs_launch_short(d_y, d_x, GS_SHORT_N, 2.0f, 1.0f, i % 2 ? b : a));
		if (i % (SMOKE_KERNELS / SMOKE_STEPS) == SMOKE_KERNELS / SMOKE_STEPS - 1)
			nvtxRangePop();
	}
	CHECK(cudaEventRecord(ev_a, a));
	CHECK(cudaStreamWaitEvent(b, ev_a, 0)); /* GPU-side wait: a sync row of kind 2 */
	CHECK(cudaEventRecord(ev_b, b));
	CHECK(cudaEventSynchronize(ev_a));
	CHECK(cudaEventSynchronize(ev_b));
	CHECK(cudaStreamSynchronize(a)); /* sync 2 of 3 */
	CHECK(cudaDeviceSynchronize());	 /* device sync 1 of 2 */

	/* Copies out: two async into pinned memory on B, one synchronous
	 * into pageable memory. */
	for (i = 0; i < SMOKE_ASYNC_DTOH; i++)
		CHECK(cudaMemcpyAsync(pinned_out + i * SMOKE_COPY_N, d_y,
				      SMOKE_COPY_N * sizeof(float), cudaMemcpyDeviceToHost, b));
	CHECK(cudaStreamSynchronize(b)); /* sync 3 of 3 */
	CHECK(cudaMemcpy(pageable_out, d_y, SMOKE_COPY_N * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaDeviceSynchronize()); /* device sync 2 of 2 */
	nvtxRangePop();

	for (i = 0; i < SMOKE_COPY_N; i++) {
		float want = pageable_in[i] * 2.0f + 1.0f;
		if (pageable_out[i] != want || pinned_out[i] != want ||
		    pinned_out[SMOKE_COPY_N + i] != want)
			bad++;
	}
	printf("GS_SMOKE_COUNTS kernels=%d launch_calls=%d memcpy_htod=%d memcpy_htod_pageable=%d "
	       "memcpy_dtoh=%d memcpy_dtoh_pageable=%d memcpy_async=%d memcpy_sync=%d "
	       "memsets=%d sync_stream=%d sync_device=%d sync_event=%d sync_stream_wait_event=%d "
	       "implicit_sync_memcpy=%d nvtx_outer=%d nvtx_step=%d nvtx_mark=%d\n",
	       SMOKE_KERNELS, SMOKE_KERNELS, SMOKE_SYNC_HTOD + SMOKE_ASYNC_HTOD, SMOKE_SYNC_HTOD,
	       SMOKE_ASYNC_DTOH + SMOKE_SYNC_DTOH, SMOKE_SYNC_DTOH,
	       SMOKE_ASYNC_HTOD + SMOKE_ASYNC_DTOH, SMOKE_SYNC_HTOD + SMOKE_SYNC_DTOH, 2, 3, 2, 2,
	       1, SMOKE_SYNC_HTOD + SMOKE_SYNC_DTOH, 1, SMOKE_STEPS, 1);
	if (bad) {
		printf("result: FAIL (%d wrong values)\n", bad);
		return 1;
	}
	printf("result: PASS\n");
	fflush(stdout);
	if (forever) {
		printf("GS_SMOKE_LOOPING\n");
		fflush(stdout);
		for (i = 0;; i++) {
			CHECK(gs_launch_short(d_y, d_x, GS_SHORT_N, 2.0f, 1.0f, a));
			if (i % 1000 == 999)
				CHECK(cudaStreamSynchronize(a));
		}
	}
	return 0;
}
