// callsite_copy.cu - call-site GPU test (tests/gpu/callsite_gpu.sh): the
// synchronous cudaMemcpy is made from copy_results_back(), which the report
// must name (the executable is linked with ENABLE_EXPORTS so dladdr finds it).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = p[i] * 1.0001f + 1.0f;
}

extern "C" __attribute__((noinline, noclone)) void copy_results_back(float *host, const float *dev, int n)
{
	/* checked, so the call is not a tail call (a jmp leaves no frame of
	 * this function on the stack) */
	if (cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess)
		std::abort();
}

int main()
{
	const int n = 1 << 20;
	float *d = nullptr;
	static float h[1 << 20];
	if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess)
		return 1;
	cudaMemset(d, 0, n * sizeof(float));
	for (int step = 0; step < 100; step++) {
		for (int k = 0; k < 20; k++)
			scale<<<(n + 255) / 256, 256>>>(d, n);
		copy_results_back(h, d, n);
	}
	std::printf("callsite_copy: h[0] = %f\n", h[0]);
	cudaFree(d);
	return 0;
}
