/*
 * bench_common.h - what the GPU bench programs (launch_overhead.cu,
 * launch_probe.cu, api_source.cu, graph_pitch.cu) share: a CUDA call check
 * that names the program, the host clock in microseconds, the median of a
 * sample, a positive-number option, and the "mode=" line that
 * bench/overhead/overhead_pairs.py and run_overhead.sh read.
 * Define BENCH_NAME before including it.
 */
#ifndef GS_BENCH_COMMON_H
#define GS_BENCH_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_NAME
#error "define BENCH_NAME (the program's name in messages) before bench_common.h"
#endif

/* A failed CUDA call: one line naming the call and where, exit 1. */
#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, BENCH_NAME ": %s: %s (line %d)\n", #call,                  \
				cudaGetErrorString(e_), __LINE__);                                 \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* CLOCK_MONOTONIC in microseconds */
static inline double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* the median of v[0..n) (n > 0), sorting v */
static inline double median_of(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The value of option `name` ("--n 1000": a positive integer), dflt when
 * absent; anything else: one line naming the program, exit 2. */
static inline long bench_arg_long(int argc, char **argv, const char *name, long dflt)
{
	int i;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name)) {
			char *end;
			long v = strtol(argv[i + 1], &end, 10);
			if (*end || v <= 0) {
				fprintf(stderr, BENCH_NAME ": %s needs a positive number\n", name);
				exit(2);
			}
			return v;
		}
	return dflt;
}

/* "mode=<mode> per_kernel_us=<median> min_us=<min> max_us=<max>" of the
 * counted runs v[0..n) (µs; sorts v) */
static inline void bench_report_mode(const char *mode, double *v, int n)
{
	double med = median_of(v, n);

	printf("mode=%s per_kernel_us=%.3f min_us=%.3f max_us=%.3f\n", mode, med, v[0], v[n - 1]);
	fflush(stdout);
}

#endif
