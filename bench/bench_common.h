/*
 * bench_common.h - what the GPU bench programs (launch_overhead.cu,
 * launch_probe.cu, api_source.cu) share: a CUDA call check that names the
 * program, the host clock in microseconds, and the median of a sample.
 * Define BENCH_NAME before including it.
 */
#ifndef GS_BENCH_COMMON_H
#define GS_BENCH_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
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

#endif
