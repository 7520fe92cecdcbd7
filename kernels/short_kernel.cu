/*
 * short_kernel.cu - see short_kernel.cuh.
 */
#include "short_kernel.cuh"

__global__ void gs_short_kernel(float *out, const float *in, int n, float a, float b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i] * a + b;
}

cudaError_t gs_launch_short(float *out, const float *in, int n, float a, float b,
                            cudaStream_t stream)
{
	int blocks = (n + GS_SHORT_THREADS - 1) / GS_SHORT_THREADS;
	gs_short_kernel<<<blocks, GS_SHORT_THREADS, 0, stream>>>(out, in, n, a, b);
	return cudaGetLastError();
}
