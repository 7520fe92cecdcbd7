/*
 * launch_user.c - libgs_launch_user.so: a library that launches through a
 * CUDA runtime it needs itself (the stand-in runtime under its soname
 * libcudart.so.13), as a Python extension does. gs_launch_standin --local
 * dlopen()s it with RTLD_LOCAL: its calls bind to the preloaded interposer,
 * found first, and the interposer must still reach that runtime, loaded in
 * a scope of its own (record_reference_launch_check.sh). Its loop is also
 * built into gs_launch_standin, which launches so itself without --local.
 */
#include <stddef.h>
#include <time.h>

struct dim3_abi {
	unsigned x, y, z;
};
int cudaLaunchKernel(const void *f, struct dim3_abi g, struct dim3_abi b, void **a, size_t sh,
		     void *s);
int gs_launch_user(int n, long spaced_ns);

/* n launches, each after spaced_ns of the caller's own work; 0, or the
 * first launch's error */
int gs_launch_user(int n, long spaced_ns)
{
	int i;

	for (i = 0; i < n; i++) {
		struct dim3_abi one = {1, 1, 1};
		struct timespec t0, t;
		int rc;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do
			clock_gettime(CLOCK_MONOTONIC, &t);
		while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < spaced_ns);
		rc = cudaLaunchKernel(NULL, one, one, NULL, 0, NULL);
		if (rc)
			return rc;
	}
	return 0;
}
