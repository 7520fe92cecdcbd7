/*
 * sum_kernel.cu - see sum_kernel.cuh.
 */
#include "sum_kernel.cuh"

__global__ void gs_sum_u64_kernel(unsigned long long *out, const float *in, int n)
{
	__shared__ unsigned long long part[GS_SUM_THREADS];
	unsigned long long acc = 0;
	int i, half;

	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		acc += (unsigned long long)in[i];
	part[threadIdx.x] = acc;
	__syncthreads();
	for (half = blockDim.x / 2; half > 0; half /= 2) {
		if ((int)threadIdx.x < half)
			part[threadIdx.x] += part[threadIdx.x + half];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, part[0]);
}

cudaError_t gs_launch_sum_u64(unsigned long long *out, const float *in, int n, cudaStream_t stream)
{
	int blocks = (n + GS_SUM_THREADS - 1) / GS_SUM_THREADS;

	if (blocks > GS_SUM_MAX_BLOCKS)
		blocks = GS_SUM_MAX_BLOCKS;
	if (blocks < 1)
		blocks = 1;
	gs_sum_u64_kernel<<<blocks, GS_SUM_THREADS, 0, stream>>>(out, in, n);
	return cudaGetLastError();
}
