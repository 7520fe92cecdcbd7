/*
 * cudart_standin.c - libgs_cudart_standin.so: a CUDA runtime stand-in with
 * one entry point, cudaLaunchKernel, that spends about 1 us and returns 0
 * (cudaSuccess). gs_launch_standin (launch_standin.c) links it as a program
 * links libcudart.so, so libgs_launch_interpose.so, preloaded by `gapscope
 * record --reference`, wraps its calls (record_reference_launch_check.sh).
 */
#include <stddef.h>
#include <time.h>

struct dim3_abi {
	unsigned x, y, z;
};

int cudaLaunchKernel(const void *f, struct dim3_abi g, struct dim3_abi b, void **a, size_t sh,
		     void *s);

int cudaLaunchKernel(const void *f, struct dim3_abi g, struct dim3_abi b, void **a, size_t sh,
		     void *s)
{
	struct timespec t0, t;

	(void)f, (void)g, (void)b, (void)a, (void)sh, (void)s;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000);
	return 0;
}
