/*
 * busy_kernel.cu - see busy_kernel.cuh.
 */
#include "busy_kernel.cuh"

__global__ void gs_busy_kernel(float *x, int n, int iters, float a, float b)
{
	int i;

	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		float v = x[i];
		int k;

		/* a and b are run-time values, so the compiler cannot fold the
		 * loop: iters really is the amount of work. */
		for (k = 0; k < iters; k++)
			v = fmaf(v, a, b);
		x[i] = v;
	}
}

cudaError_t gs_launch_busy(float *x, int n, int iters, float a, float b, int blocks,
			   cudaStream_t stream)
{
	if (blocks <= 0)
		blocks = (n + GS_BUSY_THREADS - 1) / GS_BUSY_THREADS;
	gs_busy_kernel<<<blocks, GS_BUSY_THREADS, 0, stream>>>(x, n, iters, a, b);
	return cudaGetLastError();
}
