/*
 * capture_range.cu - a CUDA program that turns tracing on and off with
 * cudaProfilerStart/cudaProfilerStop, for the GPU test of
 * `gapscope record --capture-range cudaProfilerApi` (run_gpu_tests.sh).
 * Each phase launches its own kernel, so the trace tells which phases were
 * recorded:
 *   50 k_before, sync                                  (not recorded)
 *   start; 30 k_inside, cudaDeviceSynchronize; stop   (recorded)
 *   40 k_between, sync, 20 ms of host sleep            (not recorded)
 *   start; 20 k_inside, cudaStreamSynchronize; stop   (recorded)
 *   10 k_after, sync                                   (not recorded)
 * With "open": then start; 5 k_open, sync; and exit without a stop (the
 * window ends with the recording). With "never": no start at all.
 * Prints "result: PASS" when every kernel ran (a counter in device memory).
 * It knows nothing of gapscope: run alone, it is an ordinary CUDA program.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__global__ void k_before(int *n) { atomicAdd(n, 1); }
__global__ void k_inside(int *n) { atomicAdd(n, 1); }
__global__ void k_between(int *n) { atomicAdd(n, 1); }
__global__ void k_after(int *n) { atomicAdd(n, 1); }
__global__ void k_open(int *n) { atomicAdd(n, 1); }

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int never = !strcmp(mode, "never"), open = !strcmp(mode, "open");
	int *d, n = 0, want = 0, i;

	if (cudaMalloc(&d, sizeof(int)) != cudaSuccess || cudaMemset(d, 0, sizeof(int)) != cudaSuccess)
		return 1;
	for (i = 0; i < 50; i++)
		k_before<<<1, 1>>>(d);
	want += 50;
	cudaDeviceSynchronize();
	if (!never)
		cudaProfilerStart();
	for (i = 0; i < 30; i++)
		k_inside<<<1, 1>>>(d);
	want += 30;
	cudaDeviceSynchronize();
	if (!never)
		cudaProfilerStop();
	for (i = 0; i < 40; i++)
		k_between<<<1, 1>>>(d);
	want += 40;
	cudaDeviceSynchronize();
	usleep(20000);
	if (!never)
		cudaProfilerStart();
	for (i = 0; i < 20; i++)
		k_inside<<<1, 1>>>(d);
	want += 20;
	cudaStreamSynchronize(0);
	if (!never)
		cudaProfilerStop();
	for (i = 0; i < 10; i++)
		k_after<<<1, 1>>>(d);
	want += 10;
	cudaDeviceSynchronize();
	if (open) {
		cudaProfilerStart();
		for (i = 0; i < 5; i++)
			k_open<<<1, 1>>>(d);
		want += 5;
		cudaDeviceSynchronize();
	}
	cudaMemcpy(&n, d, sizeof(int), cudaMemcpyDeviceToHost);
	printf("kernels run: %d of %d\nresult: %s\n", n, want, n == want ? "PASS" : "FAIL");
	return n == want ? 0 : 1;
}
