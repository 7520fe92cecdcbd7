/*
 * short_kernel.cuh - the microsecond kernel of the launch-overhead experiments.
 *
 * 500k floats, 512 threads per block (DESIGN.md's measured facts use exactly
 * this shape): y = x * a + b over the array, a few microseconds on an H200,
 * so that launch cost, not the kernel, dominates a loop of them.
 */
#ifndef GAPSCOPE_SHORT_KERNEL_CUH
#define GAPSCOPE_SHORT_KERNEL_CUH

#include <cuda_runtime.h>

#define GS_SHORT_N (500 * 1000)  /* floats */
#define GS_SHORT_THREADS 512     /* per block */

__global__ void gs_short_kernel(float *out, const float *in, int n, float a, float b);

/* Launch one short kernel on `stream` over n floats. Returns the launch error. */
cudaError_t gs_launch_short(float *out, const float *in, int n, float a, float b,
                            cudaStream_t stream);

#endif
