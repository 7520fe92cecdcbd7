/*
 * demo_common.h - the little pieces every gapscope demo shares.
 *
 * CHECK() for CUDA return codes, a host clock, medians of repeated
 * measurements, NVTX phase ranges, the common command line (--quick,
 * --help) and the exit-code convention the tests and demos/run_all rely on.
 * It does not measure anything by itself and holds no demo logic: each demo
 * stays readable on its own, top to bottom, in its .cu file.
 *
 * Exit codes of every demo:
 *   0  ran, and every correctness check passed (or, for a demo whose point is
 *      a wrong result, the wrong result was detected)
 *   1  a check failed, or a CUDA call failed
 *   2  bad command line
 *   77 no CUDA device here: nothing was run (ctest's SKIP_RETURN_CODE)
 * The last line of stdout is "result: PASS" or "result: FAIL ..." so that a
 * log alone says how the run went, also when run under `gapscope record`.
 */
#ifndef GAPSCOPE_DEMO_COMMON_H
#define GAPSCOPE_DEMO_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#define GS_DEMO_EXIT_PASS 0
#define GS_DEMO_EXIT_FAIL 1
#define GS_DEMO_EXIT_USAGE 2
#define GS_DEMO_EXIT_NO_GPU 77

/* Every CUDA call goes through CHECK: a failed call prints where and why and
 * ends the demo with exit code 1 (a demo that goes on after a failed call
 * prints numbers that mean nothing). */
#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t check_err_ = (call);                                                   \
		if (check_err_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,  \
				cudaGetErrorName(check_err_), cudaGetErrorString(check_err_));     \
			printf("result: FAIL (CUDA error)\n");                                     \
			exit(GS_DEMO_EXIT_FAIL);                                                   \
		}                                                                                  \
	} while (0)

/* Host time in microseconds on CLOCK_MONOTONIC: what a wall clock around
 * host code sees (not what the GPU did). */
static inline double gs_host_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Milliseconds between two recorded CUDA events; waits for `stop`. */
static inline float gs_event_ms(cudaEvent_t start, cudaEvent_t stop)
{
	float ms = 0.0f;

	CHECK(cudaEventSynchronize(stop));
	CHECK(cudaEventElapsedTime(&ms, start, stop));
	return ms;
}

static int gs_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n samples (sorts them in place). We report medians, not means:
 * one preempted repeat must not move the figure. */
static inline double gs_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), gs_cmp_double);
	if (n % 2)
		return v[n / 2];
	return 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* NVTX ranges name each phase of a demo, so that a recorded trace (and the
 * GPU tests that read it) can tell the phases apart. Push/pop must pair on
 * the same thread. */
static inline void gs_phase_begin(const char *name)
{
	nvtxRangePushA(name);
}

static inline void gs_phase_end(void)
{
	nvtxRangePop();
}

/* Options every demo understands. */
struct gs_demo_opts {
	int quick;	     /* 1: fewer repeats, for tests and scarce GPU time */
	int sample;	     /* 1: a run small enough to commit its trace (decode_starvation) */
	const char *dot_dir; /* folder for DOT files (graph_conversion only) */
};

/* Options only some demos take (the `flags` of gs_demo_parse). */
#define GS_DEMO_TAKES_DOT_DIR 1u /* --dot-dir DIR */
#define GS_DEMO_TAKES_SAMPLE 2u	 /* --sample */

/* Parse the common command line. `usage` is the demo's --help text; flags:
 * GS_DEMO_TAKES_* for the options this demo takes beyond --quick/--help.
 * Exits 0 after --help, 2 on an option it does not know. */
static inline void gs_demo_parse(int argc, char **argv, const char *usage, unsigned flags,
				 struct gs_demo_opts *o)
{
	int i;

	o->quick = 0;
	o->sample = 0;
	o->dot_dir = ".";
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			o->quick = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			exit(GS_DEMO_EXIT_PASS);
		} else if ((flags & GS_DEMO_TAKES_DOT_DIR) && !strcmp(argv[i], "--dot-dir") &&
			   i + 1 < argc) {
			o->dot_dir = argv[++i];
		} else if ((flags & GS_DEMO_TAKES_SAMPLE) && !strcmp(argv[i], "--sample")) {
			o->sample = 1;
		} else {
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", argv[0], argv[i]);
			exit(GS_DEMO_EXIT_USAGE);
		}
	}
}

/* Exit 77 with a clear line when there is no CUDA device, before any other
 * CUDA call; otherwise print which device runs the demo. */
static inline void gs_demo_require_gpu(const char *demo)
{
	int n = 0;
	cudaError_t err = cudaGetDeviceCount(&n);
	cudaDeviceProp prop;
	int drv = 0, rt = 0;

	if (err != cudaSuccess || n == 0) {
		printf("%s: no CUDA device (%s): nothing to run\n", demo,
		       err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
		exit(GS_DEMO_EXIT_NO_GPU);
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaDriverGetVersion(&drv));
	CHECK(cudaRuntimeGetVersion(&rt));
	printf("%s on %s (%d SMs, sm_%d%d), driver %d.%d, runtime %d.%d\n", demo, prop.name,
	       prop.multiProcessorCount, prop.major, prop.minor, drv / 1000, (drv % 1000) / 10,
	       rt / 1000, (rt % 1000) / 10);
}

/* The verdict line; returns the exit code to hand back from main(). */
static inline int gs_demo_result(int failures)
{
	if (failures) {
		printf("result: FAIL (%d check%s failed)\n", failures, failures > 1 ? "s" : "");
		return GS_DEMO_EXIT_FAIL;
	}
	printf("result: PASS\n");
	return GS_DEMO_EXIT_PASS;
}

#endif
