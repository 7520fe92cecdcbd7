/*
 * busy_kernel.cuh - a kernel whose run time is set by an argument.
 *
 * Each element does `iters` dependent multiply-adds, x = x * a + b, in place.
 * With a = 1 and b = 1 the result is x + iters exactly (for integer-valued
 * x + iters below 2^24, where float is exact), so a demo can check that the
 * kernel ran, and ran the expected number of times, against a CPU
 * reference. The run time grows linearly with iters (about 1e10 FMAs per
 * 0.3 ms on an H200 when the grid fills the GPU). It is not a benchmark of
 * anything and does not touch memory beyond one load and one store per
 * element.
 */
#ifndef GAPSCOPE_BUSY_KERNEL_CUH
#define GAPSCOPE_BUSY_KERNEL_CUH

#include <cuda_runtime.h>

#define GS_BUSY_THREADS 256 /* per block */

__global__ void gs_busy_kernel(float *x, int n, int iters, float a, float b);

/* Launch the busy kernel over n floats on `stream`. blocks = 0 gives one
 * thread per element (fills the GPU); blocks > 0 limits the grid to that
 * many blocks, which then stride over the array: a kernel that occupies only
 * a few SMs for a long time (leaving the others free for other streams).
 * Returns the launch error. */
cudaError_t gs_launch_busy(float *x, int n, int iters, float a, float b, int blocks,
			   cudaStream_t stream);

#endif
