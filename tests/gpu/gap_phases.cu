/*
 * gap_phases.cu - a CUDA program whose idle GPU time has a designed cause,
 * one cause per phase, for checking gap model v2 (DESIGN.md) on a real trace.
 *
 * Each phase is warmed up first (same pattern, outside any range), then runs
 * once inside one NVTX range named after it, 5-70 ms, with tiny kernels of
 * a few microseconds, so that idle time, not the kernels, fills the range:
 *   host_late         launch, then spin the CPU 150 us; no sync   -> host code
 *   back_to_back      2000 one-block kernels, one sync at the end -> launch latency
 *   sync_copy         kernel, then cudaMemcpy HtoD of 2 MB from
 *                     malloc'ed memory (a batch.to("cuda") per
 *                     step without pin_memory)                    -> sync wait (copy)
 *   pageable_copy     kernel, then cudaMemcpyAsync HtoD of 2 MB
 *                     from malloc'ed memory (implicitly sync)     -> sync wait (copy)
 *   explicit_sync     kernel, a 300 us host function on the same
 *                     stream (a logging callback), then
 *                     cudaStreamSynchronize                       -> sync wait
 *   malloc_free       cudaMalloc 4 MB, kernel, cudaFree           -> sync wait / CUDA API
 *   cross_stream      all enqueued up front: stream B runs a host
 *                     function (200 us) then records an event that
 *                     stream A waits for before its kernel        -> dependency
 *   graph_replay      a graph of 1000 kernels launched 20 times
 *                     behind a 50 ms gate kernel (so all launches
 *                     are made before the first graph runs),
 *                     then one sync (the sync explains nothing)   -> graph-internal
 *   pause_after_sync  kernel, sync, host sleeps 20 ms; 3 times    -> host code
 * For each phase it prints "phase <name> wall_us <x>" (CLOCK_MONOTONIC around
 * the range, the phase's final sync included), then checks the kernel counts
 * (the one-block kernels count their own runs) and prints "PASS" (exit 0),
 * or "FAIL ..." (exit 1). Any failed CUDA call prints where and exits 1.
 *
 * Each phase is sized so that its designed cause holds most of its idle time,
 * not only the launch latency that every relaunch adds (~6-10 us on the
 * H200): a 4-byte read-back or a bare sync per step idles the GPU mostly for
 * the next launch's latency (measured 64-70%), which is what the report must
 * then say, so those phases wait longer per step here.
 *
 * It knows nothing of gapscope: run alone it is an ordinary CUDA program, so
 * its untraced wall times are the reference for the traced ones. It judges
 * no timings itself; what the gaps are attributed to is for the checker.
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t check_err_ = (call);                                                   \
		if (check_err_ != cudaSuccess) {                                                   \
			fprintf(stderr, "gap_phases: %s:%d: %s failed: %s (%s)\n", __FILE__,       \
				__LINE__, #call, cudaGetErrorName(check_err_),                     \
				cudaGetErrorString(check_err_));                                   \
			printf("FAIL (CUDA error)\n");                                             \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#define FMA_N (64 * 1024)	  /* floats the FMA kernel writes (256 KiB) */
#define FMA_THREADS 256		  /* per block */
#define FMA_ITERS 300		  /* dependent FMAs per thread: a few us per kernel */
#define COPY_BYTES (2 << 20)	  /* sync_copy's and pageable_copy's HtoD copies:
				   * the staging grows with the size, the next
				   * launch's latency does not (1 MB: 84-92%) */
#define SCRATCH_BYTES (4 << 20)	  /* malloc_free's buffer (see malloc_free) */
#define WARMUP 10		  /* warm-up steps before each range */
#define HOST_LATE_STEPS 200	  /* x ~155 us */
#define HOST_LATE_SPIN_US 150.0	  /* host work between two launches */
#define BACK_TO_BACK_KERNELS 2000 /* one-block kernels, as short as they come */
#define SYNC_COPY_STEPS 200	  /* x ~100-200 us (pageable HtoD of 2 MB) */
#define PAGEABLE_COPY_STEPS 200	  /* x ~100-200 us */
#define EXPLICIT_SYNC_STEPS 100	  /* x ~310 us */
#define SYNC_HOSTFN_US 300.0	  /* explicit_sync's host function */
#define MALLOC_FREE_STEPS 300	  /* x ~50-100 us */
#define CROSS_STEPS 100		  /* x 200 us of host function */
#define CROSS_HOSTFN_US 200.0	  /* what stream B's host function takes */
#define GRAPH_KERNELS 1000	  /* nodes of the captured graph */
#define GRAPH_LAUNCHES 20	  /* replays, back to back */
#define GATE_NS 50000000ull	  /* graph_replay's gate kernel: 50 ms */
#define PAUSE_STEPS 3		  /* kernel, sync, sleep */
#define PAUSE_MS 20		  /* host sleep after each sync */

static_assert(COPY_BYTES >= FMA_N * sizeof(float), "d_buf holds the FMA kernel's output");
static_assert(SCRATCH_BYTES >= FMA_N * sizeof(float), "scratch holds it too");

/* Slots of the device counters the one-block kernels increment. */
enum { COUNT_BACK_TO_BACK, COUNT_CROSS, COUNT_GRAPH, COUNT_SLOTS };

/* A few hundred dependent FMAs per thread, written out so the compiler keeps
 * them. Write-only: it runs on a freshly cudaMalloc'ed buffer as well. */
__global__ void fma_kernel(float *out, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v;
	int k;

	if (i >= n)
		return;
	v = (float)i * 1e-6f;
	for (k = 0; k < iters; k++)
		v = fmaf(v, 0.999f, 0.001f);
	out[i] = v;
}

/* The shortest useful kernel: one block of one warp, thread 0 counts the run
 * (so the end check knows every launch ran, in graphs too). */
__global__ void tiny_kernel(unsigned int *count)
{
	if (threadIdx.x == 0)
		atomicAdd(count, 1u);
}

static float *d_buf;	      /* COPY_BYTES; the FMA kernel writes its first FMA_N floats */
static void *h_pageable;      /* COPY_BYTES of malloc'ed host memory */
static unsigned int *d_count; /* COUNT_SLOTS counters */
static cudaStream_t s;	      /* the single-stream phases' stream (non-blocking) */

static double host_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Busy host work for `us` microseconds: the program's own CPU time, with no
 * CUDA call in it (a sleep would give the core away and wake up late). */
static void spin_us(double us)
{
	double end = host_us() + us;

	while (host_us() < end)
		;
}

static void launch_fma(float *out, cudaStream_t stream)
{
	fma_kernel<<<FMA_N / FMA_THREADS, FMA_THREADS, 0, stream>>>(out, FMA_N, FMA_ITERS);
	CHECK(cudaGetLastError());
}

static void launch_tiny(int slot, cudaStream_t stream)
{
	tiny_kernel<<<1, 32, 0, stream>>>(d_count + slot);
	CHECK(cudaGetLastError());
}

/* host_late: the host comes back 150 us after each launch; the GPU finished
 * the kernel long before, so the idle time is the host's own code. */
static void host_late(int steps)
{
	for (int i = 0; i < steps; i++) {
		launch_fma(d_buf, s);
		spin_us(HOST_LATE_SPIN_US);
	}
	/* only to close the phase: the last kernel ended during the spin */
	CHECK(cudaStreamSynchronize(s));
}

/* back_to_back: nothing between the launches; a kernel shorter than a
 * launch call leaves the GPU waiting for the next submission. */
static void back_to_back(int kernels)
{
	for (int i = 0; i < kernels; i++)
		launch_tiny(COUNT_BACK_TO_BACK, s);
	CHECK(cudaStreamSynchronize(s));
}

/* sync_copy: a synchronous upload of 2 MB from malloc'ed memory after each
 * kernel (a batch.to("cuda") per step, without pin_memory). The kernels go
 * to the legacy default stream, as in a program that never made a stream:
 * cudaMemcpy (also on it) waits for them, then the host copies the data
 * into a pinned staging buffer, the GPU idle meanwhile, and the call returns
 * once it is staged. (A read-back, DtoH, idles the GPU far less: CUPTI's
 * copy record spans the staging, and the rest of each gap is the next
 * launch: 75-82% sync wait on the H200, 2026-12-04.) */
static void sync_copy(int steps)
{
	for (int i = 0; i < steps; i++) {
		launch_fma(d_buf, 0);
		CHECK(cudaMemcpy(d_buf, h_pageable, COPY_BYTES, cudaMemcpyHostToDevice));
	}
}

/* pageable_copy: "Async" copy from malloc'ed memory; the runtime stages it
 * through a pinned buffer before it returns, the GPU idle meanwhile. */
static void pageable_copy(int steps)
{
	for (int i = 0; i < steps; i++) {
		launch_fma(d_buf, s);
		CHECK(cudaMemcpyAsync(d_buf, h_pageable, COPY_BYTES, cudaMemcpyHostToDevice, s));
	}
	/* what a careful program adds; it finds nothing left to wait for */
	CHECK(cudaStreamSynchronize(s));
}

/* explicit_sync's host function: 300 us of CPU work on the driver's callback
 * thread (a per-step logging callback); no CUDA call in it. */
static void CUDART_CB sync_hostfn(void *arg)
{
	(void)arg;
	spin_us(SYNC_HOSTFN_US);
}

/* explicit_sync: the host waits in cudaStreamSynchronize for its stream,
 * whose last item is host work; the GPU has nothing to do meanwhile, and the
 * next kernel is launched only when the sync returns. */
static void explicit_sync(int steps)
{
	for (int i = 0; i < steps; i++) {
		launch_fma(d_buf, s);
		CHECK(cudaLaunchHostFunc(s, sync_hostfn, NULL));
		CHECK(cudaStreamSynchronize(s));
	}
}

/* malloc_free: a scratch buffer per step; cudaFree waits for the device to
 * drain before it returns, cudaMalloc is CUDA API time of its own. The
 * buffer is larger than the driver's 2 MB allocation granule: a 1 MB one,
 * once the copy buffer grew to 2 MB, was freed without waiting for the
 * device (H200, 2026-12-04, two runs: 27 us a step, 60-62% sync wait; with
 * 4 MB 138 us a step, 90%). */
static void malloc_free(int steps)
{
	float *scratch;

	for (int i = 0; i < steps; i++) {
		CHECK(cudaMalloc(&scratch, SCRATCH_BYTES));
		launch_fma(scratch, s);
		CHECK(cudaFree(scratch));
	}
}

/* Stream B's host function: 200 us of CPU work on the driver's callback
 * thread. It must make no CUDA call (cudaLaunchHostFunc's rule). */
static void CUDART_CB cross_hostfn(void *arg)
{
	(void)arg;
	spin_us(CROSS_HOSTFN_US);
}

/* cross_stream: everything is enqueued before the first host function ends,
 * so the host is never late; each kernel on A waits for B's event, which
 * comes only after B's host function: the device idles for a dependency.
 * One event per step, so each wait names its own record. */
static void cross_stream(int steps, cudaStream_t a, cudaStream_t b, cudaEvent_t *ev)
{
	for (int i = 0; i < steps; i++) {
		CHECK(cudaLaunchHostFunc(b, cross_hostfn, NULL));
		CHECK(cudaEventRecord(ev[i], b));
		CHECK(cudaStreamWaitEvent(a, ev[i], 0));
		launch_tiny(COUNT_CROSS, a);
	}
	CHECK(cudaStreamSynchronize(a));
	CHECK(cudaStreamSynchronize(b));
}

/* One thread that spins on the GPU's own clock for `ns` nanoseconds: the
 * GPU is busy, the stream behind it waits. */
__global__ void gate_kernel(unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

/* graph_replay: every launch of the graph is made before its kernels run
 * (a launch of a 1000-node graph can take longer on the host than the graph
 * on the GPU, traced: ~1.2 ms on the H200; the gate keeps the host ahead);
 * the sync at the end waits for all of them, and explains none of the gaps
 * between them (node dispatch inside the graph does). */
static void graph_replay(int launches, cudaGraphExec_t exec)
{
	gate_kernel<<<1, 1, 0, s>>>(GATE_NS);
	CHECK(cudaGetLastError());
	for (int i = 0; i < launches; i++)
		CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
}

/* pause_after_sync: a short sync, then 20 ms of the host's own business
 * (sleeping here): the idle after the sync is host code, not the sync. */
static void pause_after_sync(int steps)
{
	struct timespec pause = {0, PAUSE_MS * 1000L * 1000L};

	for (int i = 0; i < steps; i++) {
		launch_fma(d_buf, s);
		CHECK(cudaStreamSynchronize(s));
		nanosleep(&pause, NULL);
	}
	launch_fma(d_buf, s);
	CHECK(cudaStreamSynchronize(s));
}

/* Capture GRAPH_KERNELS tiny kernels on stream s into an executable graph. */
static cudaGraphExec_t make_graph(void)
{
	cudaGraph_t graph;
	cudaGraphExec_t exec;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	for (int i = 0; i < GRAPH_KERNELS; i++)
		launch_tiny(COUNT_GRAPH, s);
	CHECK(cudaStreamEndCapture(s, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphDestroy(graph));
	return exec;
}

static double t_phase; /* host_us() when the current phase's range opened */

/* Open a phase: the warm-up is done and drained, so the range starts idle. */
static void phase_begin(const char *name)
{
	CHECK(cudaDeviceSynchronize());
	t_phase = host_us();
	nvtxRangePushA(name);
}

static void phase_end(const char *name)
{
	nvtxRangePop();
	printf("phase %s wall_us %.1f\n", name, host_us() - t_phase);
	fflush(stdout);
}

int main(void)
{
	unsigned int count[COUNT_SLOTS];
	cudaStream_t a, b;
	cudaEvent_t ev[CROSS_STEPS];
	cudaGraphExec_t exec;
	int ndev = 0, bad = 0;

	CHECK(cudaGetDeviceCount(&ndev));
	h_pageable = malloc(COPY_BYTES);
	if (!h_pageable) {
		printf("FAIL (out of host memory)\n");
		return 1;
	}
	memset(h_pageable, 1, COPY_BYTES); /* its pages exist before the first copy */
	CHECK(cudaMalloc(&d_buf, COPY_BYTES)); /* the copies write all of it */
	CHECK(cudaMalloc(&d_count, COUNT_SLOTS * sizeof(unsigned int)));
	CHECK(cudaMemset(d_count, 0, COUNT_SLOTS * sizeof(unsigned int)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	for (int i = 0; i < CROSS_STEPS; i++)
		CHECK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
	exec = make_graph();

	host_late(WARMUP);
	phase_begin("host_late");
	host_late(HOST_LATE_STEPS);
	phase_end("host_late");

	back_to_back(WARMUP);
	phase_begin("back_to_back");
	back_to_back(BACK_TO_BACK_KERNELS);
	phase_end("back_to_back");

	sync_copy(WARMUP);
	phase_begin("sync_copy");
	sync_copy(SYNC_COPY_STEPS);
	phase_end("sync_copy");

	pageable_copy(WARMUP);
	phase_begin("pageable_copy");
	pageable_copy(PAGEABLE_COPY_STEPS);
	phase_end("pageable_copy");

	explicit_sync(WARMUP);
	phase_begin("explicit_sync");
	explicit_sync(EXPLICIT_SYNC_STEPS);
	phase_end("explicit_sync");

	malloc_free(WARMUP);
	phase_begin("malloc_free");
	malloc_free(MALLOC_FREE_STEPS);
	phase_end("malloc_free");

	cross_stream(WARMUP, a, b, ev);
	phase_begin("cross_stream");
	cross_stream(CROSS_STEPS, a, b, ev);
	phase_end("cross_stream");

	graph_replay(1, exec);
	phase_begin("graph_replay");
	graph_replay(GRAPH_LAUNCHES, exec);
	phase_end("graph_replay");

	pause_after_sync(1);
	phase_begin("pause_after_sync");
	pause_after_sync(PAUSE_STEPS);
	phase_end("pause_after_sync");

	/* Every one-block kernel ran: warm-ups included. */
	CHECK(cudaMemcpy(count, d_count, sizeof(count), cudaMemcpyDeviceToHost));
	if (count[COUNT_BACK_TO_BACK] != WARMUP + BACK_TO_BACK_KERNELS) {
		printf("back_to_back kernels run: %u, expected %d\n", count[COUNT_BACK_TO_BACK],
		       WARMUP + BACK_TO_BACK_KERNELS);
		bad = 1;
	}
	if (count[COUNT_CROSS] != WARMUP + CROSS_STEPS) {
		printf("cross_stream kernels run: %u, expected %d\n", count[COUNT_CROSS],
		       WARMUP + CROSS_STEPS);
		bad = 1;
	}
	if (count[COUNT_GRAPH] != (1 + GRAPH_LAUNCHES) * GRAPH_KERNELS) {
		printf("graph kernels run: %u, expected %d\n", count[COUNT_GRAPH],
		       (1 + GRAPH_LAUNCHES) * GRAPH_KERNELS);
		bad = 1;
	}

	CHECK(cudaGraphExecDestroy(exec));
	for (int i = 0; i < CROSS_STEPS; i++)
		CHECK(cudaEventDestroy(ev[i]));
	CHECK(cudaStreamDestroy(a));
	CHECK(cudaStreamDestroy(b));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d_count));
	CHECK(cudaFree(d_buf));
	free(h_pageable);
	printf(bad ? "FAIL (kernel counts)\n" : "PASS\n");
	return bad;
}
