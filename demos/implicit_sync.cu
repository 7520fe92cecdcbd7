/*
 * implicit_sync.cu - calls that quietly make the host wait for the GPU.
 *
 * The pitfall: a training loop that looks asynchronous is not, when each
 * step does something that must wait for the GPU - reading the loss back
 * (a tiny device-to-host copy: PyTorch's loss.item()), uploading the batch
 * from pageable (not pinned) host memory, or cudaMalloc/cudaFree of a
 * scratch buffer. Each makes the host wait until the GPU has drained, so
 * the host can no longer queue the next step while the GPU runs this one,
 * and the GPU idles while the host launches.
 *
 * The step (the same in every variant): upload a 1 MB batch; five short
 * kernels from kernels/ ("forward/backward": y = batch + k, then three
 * times y += 1; then the loss = exact sum of y, kernels/sum_kernel.cuh);
 * the loss goes to a slot of a device array. Variants:
 *   1. loss read back every step
 *   2. loss read back every 50 steps (the good loop)
 *   3. as 2, but the batch comes from pageable memory
 *   4. as 2, but y is cudaMalloc'ed and cudaFree'd in every step
 * Each variant runs `steps` steps (1 warm-up run excluded, median of the
 * repeats, CUDA events around the whole run); the table gives microseconds
 * per step and steps per second. The check: every loss read back equals
 * the CPU's exact value sum(batch) + n * (k + 3) for step k.
 */
#include <stdint.h>

#include "demo_common.h"
#include "short_kernel.cuh"
#include "sum_kernel.cuh"

static const char usage[] = "usage: gs_demo_implicit_sync [--quick]\n"
			    "\n"
			    "A training-style loop four ways: loss read back every step vs every\n"
			    "50 steps; pinned vs pageable batch upload; cudaMalloc/cudaFree in\n"
			    "the loop vs a reused buffer. Prints microseconds per step.\n"
			    "  --quick   100 steps x 3 repeats instead of 500 x 5\n"
			    "Exit: 0 checks passed, 1 a check failed, 2 bad option, 77 no GPU.\n";

#define N_ELEMS (256 * 1024) /* floats per batch (1 MB) */
#define READ_EVERY 50	     /* steps between loss read-backs in the good loop */

struct variant {
	const char *label; /* for the table */
	const char *phase; /* NVTX range name */
	int read_every;	   /* steps between loss read-backs */
	int pageable;	   /* 1: upload the batch from malloc'ed memory */
	int malloc_each;   /* 1: cudaMalloc/cudaFree y in every step */
};

static const struct variant variants[] = {
    {"loss read back every step", "loss_every_step", 1, 0, 0},
    {"loss read back every 50 steps", "loss_every_50_steps", READ_EVERY, 0, 0},
    {"  + batch from pageable memory", "pageable_upload", READ_EVERY, 1, 0},
    {"  + cudaMalloc/cudaFree each step", "malloc_free_each_step", READ_EVERY, 0, 1},
};

static float *h_batch_pinned;	   /* the batch, pinned */
static float *h_batch_pageable;	   /* the same batch, ordinary malloc */
static unsigned long long *h_loss; /* pinned: READ_EVERY losses read back */
static uint64_t batch_sum;	   /* CPU reference: sum of the batch */
static int steps, repeats;
static int bad_losses; /* losses that differed from the CPU reference */

/* Run one variant `steps` steps; returns microseconds per step (events). */
static double run(const struct variant *v, float *d_batch, float *d_y, unsigned long long *d_loss,
		  cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1)
{
	size_t bytes = N_ELEMS * sizeof(float);
	const float *src = v->pageable ? h_batch_pageable : h_batch_pinned;
	int k, j;

	CHECK(cudaEventRecord(e0, s));
	for (k = 0; k < steps; k++) {
		float *y = d_y;
		unsigned long long *slot = &d_loss[k % v->read_every];

		/* A pageable source makes this "Async" copy wait: the driver
		 * stages it through its own pinned buffer. */
		CHECK(cudaMemcpyAsync(d_batch, src, bytes, cudaMemcpyHostToDevice, s));
		if (v->malloc_each)
			CHECK(cudaMalloc(&y, bytes));
		CHECK(gs_launch_short(y, d_batch, N_ELEMS, 1.0f, (float)k, s));
		for (j = 0; j < 3; j++)
			CHECK(gs_launch_short(y, y, N_ELEMS, 1.0f, 1.0f, s));
		CHECK(cudaMemsetAsync(slot, 0, sizeof(*slot), s));
		CHECK(gs_launch_sum_u64(slot, y, N_ELEMS, s));
		/* cudaFree waits for the whole device before it returns. */
		if (v->malloc_each)
			CHECK(cudaFree(y));
		if ((k + 1) % v->read_every == 0) {
			/* Reading the loss: the host must wait for the step. */
			CHECK(cudaMemcpyAsync(h_loss, d_loss, v->read_every * sizeof(*h_loss),
					      cudaMemcpyDeviceToHost, s));
			CHECK(cudaStreamSynchronize(s));
			for (j = 0; j < v->read_every; j++) {
				int step = k + 1 - v->read_every + j;
				uint64_t want = batch_sum + (uint64_t)N_ELEMS * (step + 3);

				if (h_loss[j] != want)
					bad_losses++;
			}
		}
	}
	CHECK(cudaEventRecord(e1, s));
	return gs_event_ms(e0, e1) * 1e3 / steps;
}

int main(int argc, char **argv)
{
	struct gs_demo_opts o;
	size_t bytes = N_ELEMS * sizeof(float);
	float *d_batch, *d_y;
	unsigned long long *d_loss;
	cudaStream_t s;
	cudaEvent_t e0, e1;
	double *t, us[sizeof(variants) / sizeof(variants[0])];
	unsigned v;
	int i, r, failures = 0;

	gs_demo_parse(argc, argv, usage, 0, &o);
	steps = o.quick ? 100 : 500;
	repeats = o.quick ? 3 : 5;
	gs_demo_require_gpu("implicit_sync");

	t = (double *)malloc(sizeof(double) * repeats);
	h_batch_pageable = (float *)malloc(bytes);
	if (!t || !h_batch_pageable) {
		printf("result: FAIL (out of host memory)\n");
		return GS_DEMO_EXIT_FAIL;
	}
	CHECK(cudaMallocHost(&h_batch_pinned, bytes));
	CHECK(cudaMallocHost(&h_loss, READ_EVERY * sizeof(*h_loss)));
	batch_sum = 0;
	for (i = 0; i < N_ELEMS; i++) {
		h_batch_pinned[i] = h_batch_pageable[i] = (float)(i % 1000);
		batch_sum += i % 1000;
	}
	CHECK(cudaMalloc(&d_batch, bytes));
	CHECK(cudaMalloc(&d_y, bytes));
	CHECK(cudaMalloc(&d_loss, READ_EVERY * sizeof(*d_loss)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	printf("training-style loop: %d steps (1 MB batch upload, 5 kernels, loss), "
	       "%d repeats + 1 warm-up, medians\n\n",
	       steps, repeats);

	for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++) {
		int before = bad_losses;

		gs_phase_begin(variants[v].phase);
		for (r = -1; r < repeats; r++) {
			double x = run(&variants[v], d_batch, d_y, d_loss, s, e0, e1);

			if (r >= 0)
				t[r] = x;
		}
		us[v] = gs_median(t, repeats);
		gs_phase_end();
		if (bad_losses != before) {
			printf("  check %-36s FAIL: %d losses differ from the CPU reference\n",
			       variants[v].label, bad_losses - before);
			failures++;
		} else {
			printf("  check %-36s OK (%d losses = CPU reference)\n", variants[v].label,
			       steps * (repeats + 1));
		}
	}

	printf("\n  %-38s %12s %12s %14s\n", "loop", "us/step", "steps/s", "vs every 50");
	for (v = 0; v < sizeof(variants) / sizeof(variants[0]); v++)
		printf("  %-38s %12.1f %12.0f %13.2fx\n", variants[v].label, us[v], 1e6 / us[v],
		       us[v] / us[1]);
	printf("\n");

	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d_batch));
	CHECK(cudaFree(d_y));
	CHECK(cudaFree(d_loss));
	CHECK(cudaFreeHost(h_batch_pinned));
	CHECK(cudaFreeHost(h_loss));
	free(h_batch_pageable);
	free(t);
	return gs_demo_result(failures);
}
