/*
 * peer_devices.cu - a CUDA program on two devices, for issue 57's checks of
 * gapscope on more than one GPU (tests/gpu/two_gpu.sh, check_two_gpu.py):
 * peer copies with peer access on and off, a wait of one device for the
 * other's op, and a CUDA graph that spans both devices.
 *
 * Devices A = 0 and B = 1. With one GPU (or --same-device) B is device 0
 * too, on a stream of its own: the same program then exercises the
 * same-device path (the copies are device-to-device, the wait is for
 * another stream of the same device).
 *
 * Phases, each once inside one NVTX range named after it, after a warm-up
 * of the same pattern outside any range:
 *   peer_on    peer access enabled both ways where cudaDeviceCanAccessPeer
 *              allows (else said, and the phase runs as peer_off):
 *              COPY_STEPS x (a SPIN_SHORT_NS kernel on A, then
 *              cudaMemcpyPeerAsync of COPY_BYTES from A to B on A's stream,
 *              then the same from B to A on B's stream), one sync a step
 *   peer_off   the same with peer access disabled (the driver stages the
 *              copies through the host)
 *   cross_wait WAIT_STEPS x, all enqueued before the step's sync:
 *                A: kernel a1 spinning WAIT_NS, then event eA recorded
 *                B: kernel b1 spinning B_FIRST_NS, cudaStreamWaitEvent(eA),
 *                   kernel b2 spinning SPIN_SHORT_NS
 *              so B idles from b1's end to a1's end, about WAIT_NS -
 *              B_FIRST_NS a step, and b2's launch call was made before that
 *              gap began: the gap is a dependency on device A's op a1.
 *   graph_2dev a CUDA graph captured on A's stream that forks to B's stream
 *              through an event (a kernel on each device, joined back),
 *              launched GRAPH_LAUNCHES times; where CUDA refuses a graph of
 *              two devices it prints "graph_2dev unsupported: <error>" and
 *              goes on (not a failure)
 * It prints "devices N", "same_device 0|1", "p2p_access 0|1", the designed
 * figures ("design wait_ns ..."), "phase <name> wall_us <x>", then checks
 * the kernels' own run counts and prints "PASS" (exit 0) or "FAIL ..."
 * (exit 1). It knows nothing of gapscope; what the trace makes of the
 * phases is for the checker.
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
			fprintf(stderr, "peer_devices: %s:%d: %s failed: %s (%s)\n", __FILE__,     \
				__LINE__, #call, cudaGetErrorName(check_err_),                     \
				cudaGetErrorString(check_err_));                                   \
			printf("FAIL (CUDA error)\n");                                             \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#define COPY_BYTES (8 << 20)   /* per peer copy */
#define COPY_STEPS 20	       /* per peer phase */
#define WAIT_STEPS 20	       /* cross_wait steps */
#define WAIT_NS 500000ull      /* a1: what B waits for, 500 us */
#define B_FIRST_NS 50000ull    /* b1, 50 us: B's op before the wait */
#define SPIN_SHORT_NS 20000ull /* b2 and the copy phases' kernels */
#define GRAPH_LAUNCHES 10      /* graph_2dev replays */
#define WARMUP 3	       /* warm-up steps of each pattern */
#define COUNTERS 8	       /* run counters per device */

enum { C_SHORT, C_A1, C_B1, C_B2, C_GA, C_GB };

/* spins until ns have passed on the GPU's global timer, then counts its run */
__global__ void spin(unsigned long long ns, unsigned *count)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
	atomicAdd(count, 1u);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct side {
	int dev;
	cudaStream_t s;
	unsigned *count; /* device memory, COUNTERS */
	char *buf;	 /* COPY_BYTES */
};

static struct side A, B;
static int same_device;

static void copy_step(unsigned *want_a)
{
	CHECK(cudaSetDevice(A.dev));
	spin<<<1, 1, 0, A.s>>>(SPIN_SHORT_NS, A.count + C_SHORT);
	CHECK(cudaGetLastError());
	(*want_a)++;
	CHECK(cudaMemcpyPeerAsync(B.buf, B.dev, A.buf, A.dev, COPY_BYTES, A.s));
	CHECK(cudaSetDevice(B.dev));
	CHECK(cudaMemcpyPeerAsync(A.buf, A.dev, B.buf, B.dev, COPY_BYTES, B.s));
	CHECK(cudaStreamSynchronize(B.s));
	CHECK(cudaSetDevice(A.dev));
	CHECK(cudaStreamSynchronize(A.s));
}

static void wait_step(cudaEvent_t eA, unsigned *want_a1, unsigned *want_b)
{
	CHECK(cudaSetDevice(A.dev));
	spin<<<1, 1, 0, A.s>>>(WAIT_NS, A.count + C_A1);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(eA, A.s));
	CHECK(cudaSetDevice(B.dev));
	spin<<<1, 1, 0, B.s>>>(B_FIRST_NS, B.count + C_B1);
	CHECK(cudaGetLastError());
	CHECK(cudaStreamWaitEvent(B.s, eA, 0));
	spin<<<1, 1, 0, B.s>>>(SPIN_SHORT_NS, B.count + C_B2);
	CHECK(cudaGetLastError());
	(*want_a1)++;
	(*want_b)++;
	CHECK(cudaStreamSynchronize(B.s));
	CHECK(cudaSetDevice(A.dev));
	CHECK(cudaStreamSynchronize(A.s));
}

/* peer access both ways, on (1) or off (0); returns whether it is on */
static int set_peer(int on, int can)
{
	cudaError_t e;

	if (same_device || !can)
		return 0;
	CHECK(cudaSetDevice(A.dev));
	e = on ? cudaDeviceEnablePeerAccess(B.dev, 0) : cudaDeviceDisablePeerAccess(B.dev);
	if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled &&
	    e != cudaErrorPeerAccessNotEnabled)
		CHECK(e);
	(void)cudaGetLastError();
	CHECK(cudaSetDevice(B.dev));
	e = on ? cudaDeviceEnablePeerAccess(A.dev, 0) : cudaDeviceDisablePeerAccess(A.dev);
	if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled &&
	    e != cudaErrorPeerAccessNotEnabled)
		CHECK(e);
	(void)cudaGetLastError();
	CHECK(cudaSetDevice(A.dev));
	return on;
}

/* graph_2dev: capture A -> fork to B -> join; NULL where CUDA refuses */
static cudaGraphExec_t capture_2dev(cudaEvent_t fork, cudaEvent_t join)
{
	cudaGraph_t g = NULL;
	cudaGraphExec_t x = NULL;
	cudaError_t e;

	CHECK(cudaSetDevice(A.dev));
	e = cudaStreamBeginCapture(A.s, cudaStreamCaptureModeRelaxed);
	if (e == cudaSuccess) {
		spin<<<1, 1, 0, A.s>>>(SPIN_SHORT_NS, A.count + C_GA);
		e = cudaEventRecord(fork, A.s);
	}
	if (e == cudaSuccess) {
		CHECK(cudaSetDevice(B.dev));
		e = cudaStreamWaitEvent(B.s, fork, 0);
		if (e == cudaSuccess) {
			spin<<<1, 1, 0, B.s>>>(SPIN_SHORT_NS, B.count + C_GB);
			e = cudaGetLastError();
		}
		if (e == cudaSuccess)
			e = cudaEventRecord(join, B.s);
		CHECK(cudaSetDevice(A.dev));
		if (e == cudaSuccess)
			e = cudaStreamWaitEvent(A.s, join, 0);
	}
	{
		cudaError_t e2 = cudaStreamEndCapture(A.s, &g);
		if (e == cudaSuccess)
			e = e2;
	}
	if (e == cudaSuccess)
		e = cudaGraphInstantiate(&x, g, 0);
	if (g)
		cudaGraphDestroy(g);
	if (e != cudaSuccess) {
		printf("graph_2dev unsupported: %s\n", cudaGetErrorName(e));
		(void)cudaGetLastError();
		return NULL;
	}
	return x;
}

int main(int argc, char **argv)
{
	int n = 0, can = 0, i, p2p;
	unsigned want[2][COUNTERS], got[2][COUNTERS];
	cudaEvent_t eA, fork, join;
	cudaGraphExec_t gx;
	double t0;

	memset(want, 0, sizeof(want));
	CHECK(cudaGetDeviceCount(&n));
	same_device = n < 2 || (argc > 1 && !strcmp(argv[1], "--same-device"));
	A.dev = 0;
	B.dev = same_device ? 0 : 1;
	if (!same_device) {
		int ab = 0, ba = 0;
		CHECK(cudaDeviceCanAccessPeer(&ab, A.dev, B.dev));
		CHECK(cudaDeviceCanAccessPeer(&ba, B.dev, A.dev));
		can = ab && ba;
	}
	printf("devices %d\nsame_device %d\n", n, same_device);
	printf("design copy_bytes %d copy_steps %d wait_steps %d wait_ns %llu b_first_ns %llu "
	       "short_ns %llu graph_launches %d\n",
	       COPY_BYTES, COPY_STEPS, WAIT_STEPS, WAIT_NS, B_FIRST_NS, SPIN_SHORT_NS,
	       GRAPH_LAUNCHES);
	for (i = 0; i < 2; i++) {
		struct side *sd = i ? &B : &A;
		CHECK(cudaSetDevice(sd->dev));
		CHECK(cudaStreamCreateWithFlags(&sd->s, cudaStreamNonBlocking));
		CHECK(cudaMalloc(&sd->count, COUNTERS * sizeof(unsigned)));
		CHECK(cudaMemset(sd->count, 0, COUNTERS * sizeof(unsigned)));
		CHECK(cudaMalloc(&sd->buf, COPY_BYTES));
		CHECK(cudaMemset(sd->buf, i, COPY_BYTES));
		CHECK(cudaDeviceSynchronize());
	}
	CHECK(cudaSetDevice(A.dev));
	CHECK(cudaEventCreateWithFlags(&eA, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

	/* each side counts its kernels' runs in its own array (on its device) */
#define WANT_A(c) (&want[0][c])
#define WANT_B(c) (&want[1][c])
	p2p = set_peer(1, can);
	printf("p2p_access %d\n", p2p);
	for (i = 0; i < WARMUP; i++)
		copy_step(WANT_A(C_SHORT));
	t0 = now_us();
	nvtxRangePushA("peer_on");
	for (i = 0; i < COPY_STEPS; i++)
		copy_step(WANT_A(C_SHORT));
	nvtxRangePop();
	printf("phase peer_on wall_us %.1f\n", now_us() - t0);

	set_peer(0, can);
	for (i = 0; i < WARMUP; i++)
		copy_step(WANT_A(C_SHORT));
	t0 = now_us();
	nvtxRangePushA("peer_off");
	for (i = 0; i < COPY_STEPS; i++)
		copy_step(WANT_A(C_SHORT));
	nvtxRangePop();
	printf("phase peer_off wall_us %.1f\n", now_us() - t0);

	for (i = 0; i < WARMUP; i++) {
		wait_step(eA, WANT_A(C_A1), WANT_B(C_B1));
		(*WANT_B(C_B2))++;
	}
	t0 = now_us();
	nvtxRangePushA("cross_wait");
	for (i = 0; i < WAIT_STEPS; i++) {
		wait_step(eA, WANT_A(C_A1), WANT_B(C_B1));
		(*WANT_B(C_B2))++;
	}
	nvtxRangePop();
	printf("phase cross_wait wall_us %.1f\n", now_us() - t0);

	gx = capture_2dev(fork, join);
	if (gx) {
		CHECK(cudaGraphLaunch(gx, A.s)); /* warm-up */
		CHECK(cudaStreamSynchronize(A.s));
		t0 = now_us();
		nvtxRangePushA("graph_2dev");
		for (i = 0; i < GRAPH_LAUNCHES; i++)
			CHECK(cudaGraphLaunch(gx, A.s));
		CHECK(cudaStreamSynchronize(A.s));
		nvtxRangePop();
		printf("phase graph_2dev wall_us %.1f\n", now_us() - t0);
		(*WANT_A(C_GA)) += GRAPH_LAUNCHES + 1;
		(*WANT_B(C_GB)) += GRAPH_LAUNCHES + 1;
		CHECK(cudaGraphExecDestroy(gx));
	}

	for (i = 0; i < 2; i++) {
		struct side *sd = i ? &B : &A;
		CHECK(cudaSetDevice(sd->dev));
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(got[i], sd->count, sizeof(got[i]), cudaMemcpyDeviceToHost));
	}
	for (i = 0; i < 2; i++)
		for (int c = 0; c < COUNTERS; c++)
			if (got[i][c] != want[i][c]) {
				printf("FAIL counter %d of device %d: %u runs, %u launched\n", c,
				       i ? B.dev : A.dev, got[i][c], want[i][c]);
				return 1;
			}
	printf("PASS\n");
	return 0;
}
