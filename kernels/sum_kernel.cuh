/*
 * sum_kernel.cuh - exact sum of an array of integer-valued floats.
 *
 * The demos' "loss" and checksums: each element is converted to a 64-bit
 * unsigned integer and added, so the result does not depend on the order
 * of the additions and a CPU reference can match it exactly. Elements must
 * hold non-negative integer values below 2^24 (what the demos' kernels
 * produce); anything else is truncated, so this is not a float sum.
 */
#ifndef GAPSCOPE_SUM_KERNEL_CUH
#define GAPSCOPE_SUM_KERNEL_CUH

#include <cuda_runtime.h>

#define GS_SUM_THREADS 256    /* per block; a power of two (tree reduction) */
#define GS_SUM_MAX_BLOCKS 512 /* blocks stride over larger arrays */

__global__ void gs_sum_u64_kernel(unsigned long long *out, const float *in, int n);

/* Add the sum of in[0..n) to *out (atomically, so *out must be zeroed or
 * hold a running total before). Returns the launch error. */
cudaError_t gs_launch_sum_u64(unsigned long long *out, const float *in, int n, cudaStream_t stream);

#endif
