/*
 * stream_race.cu - two streams, a producer and a consumer, and no ordering.
 *
 * The pitfall: work in two different streams is unordered. A consumer
 * kernel launched on stream 2 after a producer kernel on stream 1 - later
 * in the program text, later on the host clock - may still run before, or
 * during, the producer, and read data that is not written yet. Nothing
 * fails: the result is just wrong. The fix is an event recorded after the
 * producer and waited on by the consumer's stream (cudaStreamWaitEvent), a
 * GPU-side wait that costs the host nothing. Over-synchronising - a
 * cudaDeviceSynchronize after every step - is correct too, but makes the
 * host wait for the GPU and the GPU wait for the host.
 *
 * The producer (kernels/busy_kernel.cuh) runs a few milliseconds on only 8
 * blocks, A = x + 2000, leaving most SMs free, so the unordered consumer
 * (B = 2 * A, kernels/short_kernel.cuh) reliably runs while A is still
 * being written: the demo compares B with the CPU reference and must find
 * it wrong (it exits 0 only if it detected the race, and 1 if the race did
 * not show, e.g. when a tool serialises kernels). The fixed version must
 * be right. Then a 200-step producer/consumer pipeline is timed both ways
 * (CUDA events, 1 warm-up excluded, median of the repeats), and checked.
 */
#include "busy_kernel.cuh"
#include "demo_common.h"
#include "short_kernel.cuh"

static const char usage[] =
    "usage: gs_demo_stream_race [--quick]\n"
    "\n"
    "A consumer stream that does not wait for its producer: shows that the\n"
    "wrong result is detected, fixes it with an event, and times a pipeline\n"
    "ordered by events against one with cudaDeviceSynchronize per step.\n"
    "  --quick   3 repeats instead of 10\n"
    "Exit: 0 race detected and every other check passed, 1 a check\n"
    "failed (or the race did not show), 2 bad option, 77 no GPU.\n";

#define N_ELEMS (1 << 20) /* floats */
#define RACE_ITERS 2000	  /* producer's multiply-adds per element: milliseconds */
#define RACE_BLOCKS 8	  /* producer's blocks: a few SMs, the rest stay free */
#define RACE_ATTEMPTS 3	  /* tries to see the race before calling it not shown */
#define PIPE_STEPS 200	  /* steps of the timed pipeline */
#define PIPE_ITERS 100	  /* producer's multiply-adds per element in the pipeline */

static float *h_start, *h_out; /* pinned: start values x = i % 1000, read-back */
static int failures;

static void reset(float *d)
{
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(d, h_start, N_ELEMS * sizeof(float), cudaMemcpyHostToDevice));
}

/* How many elements of d differ from x * mul + add? */
static int count_wrong(const float *d, float mul, float add)
{
	int i, bad = 0;

	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h_out, d, N_ELEMS * sizeof(float), cudaMemcpyDeviceToHost));
	for (i = 0; i < N_ELEMS; i++)
		if (h_out[i] != h_start[i] * mul + add)
			bad++;
	return bad;
}

static void check(const char *what, const float *d, float mul, float add)
{
	int bad = count_wrong(d, mul, add);

	if (bad) {
		printf("  check %-40s FAIL: %d of %d elements wrong\n", what, bad, N_ELEMS);
		failures++;
	} else {
		printf("  check %-40s OK (x * %g + %g)\n", what, mul, add);
	}
}

/* One producer/consumer round. wait = 0: the consumer does not wait. */
static void produce_consume(float *a, float *b, cudaStream_t s1, cudaStream_t s2,
			    cudaEvent_t produced, int wait)
{
	reset(a);
	CHECK(cudaMemset(b, 0, N_ELEMS * sizeof(float)));
	CHECK(cudaDeviceSynchronize());
	CHECK(gs_launch_busy(a, N_ELEMS, RACE_ITERS, 1.0f, 1.0f, RACE_BLOCKS, s1));
	if (wait) {
		CHECK(cudaEventRecord(produced, s1));
		CHECK(cudaStreamWaitEvent(s2, produced, 0));
	}
	CHECK(gs_launch_short(b, a, N_ELEMS, 2.0f, 0.0f, s2));
}

/* The timed pipeline: PIPE_STEPS x (producer A += PIPE_ITERS on s1, then
 * consumer B = 2 * A on s2). device_sync = 0: ordered by events only (the
 * next producer also waits for the consumer, which still reads A);
 * device_sync = 1: cudaDeviceSynchronize after each producer and each
 * consumer instead. Returns microseconds per step. */
static double pipeline(float *a, float *b, cudaStream_t s1, cudaStream_t s2, int device_sync,
		       cudaEvent_t produced, cudaEvent_t consumed, cudaEvent_t e0, cudaEvent_t e1)
{
	int k;

	reset(a);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaEventRecord(e0, s1));
	for (k = 0; k < PIPE_STEPS; k++) {
		if (device_sync) {
			CHECK(gs_launch_busy(a, N_ELEMS, PIPE_ITERS, 1.0f, 1.0f, 0, s1));
			CHECK(cudaDeviceSynchronize());
			CHECK(gs_launch_short(b, a, N_ELEMS, 2.0f, 0.0f, s2));
			CHECK(cudaDeviceSynchronize());
		} else {
			if (k > 0)
				CHECK(cudaStreamWaitEvent(s1, consumed, 0));
			CHECK(gs_launch_busy(a, N_ELEMS, PIPE_ITERS, 1.0f, 1.0f, 0, s1));
			CHECK(cudaEventRecord(produced, s1));
			CHECK(cudaStreamWaitEvent(s2, produced, 0));
			CHECK(gs_launch_short(b, a, N_ELEMS, 2.0f, 0.0f, s2));
			CHECK(cudaEventRecord(consumed, s2));
		}
	}
	if (!device_sync)
		CHECK(cudaStreamWaitEvent(s1, consumed, 0));
	CHECK(cudaEventRecord(e1, s1));
	return gs_event_ms(e0, e1) * 1e3 / PIPE_STEPS;
}

int main(int argc, char **argv)
{
	struct gs_demo_opts o;
	float *a, *b;
	cudaStream_t s1, s2;
	cudaEvent_t produced, consumed, e0, e1;
	double *t, us[2];
	int repeats, i, r, mode, attempt, bad = 0;
	static const char *const mode_phase[2] = {"pipeline_events",
						  "pipeline_device_sync_each_step"};
	static const char *const mode_label[2] = {"ordered by events",
						  "cudaDeviceSynchronize per step"};

	gs_demo_parse(argc, argv, usage, 0, &o);
	repeats = o.quick ? 3 : 10;
	gs_demo_require_gpu("stream_race");

	t = (double *)malloc(sizeof(double) * repeats);
	CHECK(cudaMallocHost(&h_start, N_ELEMS * sizeof(float)));
	CHECK(cudaMallocHost(&h_out, N_ELEMS * sizeof(float)));
	for (i = 0; i < N_ELEMS; i++)
		h_start[i] = (float)(i % 1000);
	CHECK(cudaMalloc(&a, N_ELEMS * sizeof(float)));
	CHECK(cudaMalloc(&b, N_ELEMS * sizeof(float)));
	/* Non-blocking streams, so that the legacy default stream (used by
	 * reset's cudaMemcpy) does not order them behind our back. */
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&consumed, cudaEventDisableTiming));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));

	/* 1. The race: the consumer does not wait. Expected B = 2 * (x + 2000). */
	gs_phase_begin("race_no_wait");
	printf("1. consumer on stream 2 does not wait for the producer on stream 1\n");
	for (attempt = 1; attempt <= RACE_ATTEMPTS && !bad; attempt++) {
		produce_consume(a, b, s1, s2, produced, 0);
		bad = count_wrong(b, 2.0f, 2.0f * RACE_ITERS);
	}
	gs_phase_end();
	if (bad) {
		printf("  race detected (attempt %d): %d of %d elements of B are wrong - the "
		       "consumer\n  read A before the producer had written it\n",
		       attempt - 1, bad, N_ELEMS);
	} else {
		printf("  check %-40s FAIL: the race did not show in %d attempts (were the\n"
		       "  kernels serialised, e.g. by a profiler?): nothing was demonstrated\n",
		       "race detected", RACE_ATTEMPTS);
		failures++;
	}
	check("producer finished: A = x + 2000", a, 1.0f, RACE_ITERS);

	/* 2. The fix: an event after the producer, waited on by stream 2. */
	gs_phase_begin("fixed_with_event");
	printf("\n2. the consumer's stream waits for an event recorded after the producer\n");
	produce_consume(a, b, s1, s2, produced, 1);
	check("with the event: B = 2 * (x + 2000)", b, 2.0f, 2.0f * RACE_ITERS);
	gs_phase_end();

	/* 3. The cost of over-synchronising. */
	printf("\n3. %d-step pipeline, %d repeats + 1 warm-up, medians\n", PIPE_STEPS, repeats);
	for (mode = 0; mode < 2; mode++) {
		gs_phase_begin(mode_phase[mode]);
		for (r = -1; r < repeats; r++) {
			double x = pipeline(a, b, s1, s2, mode, produced, consumed, e0, e1);

			if (r >= 0)
				t[r] = x;
		}
		us[mode] = gs_median(t, repeats);
		gs_phase_end();
		check(mode_label[mode], b, 2.0f, 2.0f * PIPE_STEPS * PIPE_ITERS);
	}
	printf("\n  %-36s %12s %12s\n", "pipeline", "us/step", "vs events");
	printf("  %-36s %12.1f %11.2fx\n", mode_label[0], us[0], 1.0);
	printf("  %-36s %12.1f %11.2fx\n\n", mode_label[1], us[1], us[1] / us[0]);

	CHECK(cudaEventDestroy(produced));
	CHECK(cudaEventDestroy(consumed));
	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	CHECK(cudaStreamDestroy(s1));
	CHECK(cudaStreamDestroy(s2));
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFreeHost(h_start));
	CHECK(cudaFreeHost(h_out));
	free(t);
	return gs_demo_result(failures);
}
