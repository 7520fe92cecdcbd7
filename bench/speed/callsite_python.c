/*
 * callsite_python.c - a library that bench/speed/callsite_python.py loads into a
 * Python process with ctypes (PyDLL: the GIL stays held) to time the two
 * parts of a call-site capture (collector/callsite.c) from inside a Python
 * program, as the collector's callback takes them at a blocking CUDA call
 * made from Python: the Python frames (gs_py_frames, the C API path) and
 * the native walk (gs_native_frames, libgcc's unwinder or libunwind's).
 * GAPSCOPE_NATIVE_FRAMES=auto, the default, skips the native walk where
 * the Python frames were found. It prints nothing; the script does.
 */
#include <time.h>

#include "callsite.h"
#include "internal.h"

#define EXPORT __attribute__((visibility("default")))

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per capture part over n captures: part 0 the Python frames, 1 the
 * native walk with unwinder (enum gs_unwinder: 1 libgcc, 2 libunwind), 2
 * the Python frames without the per-thread line cache (as before
 * 2026-12-07; it only serves frames read without the GIL).
 * Returns -1 without CPython, -2 when that unwinder does not load. *frames
 * is how many frames the last capture took. */
EXPORT double gs_bench_capture_ns(int part, int unwinder, int n, int *frames)
{
	static struct gs_callsite cs; /* large: not on the stack */
	static struct gs_pyapi api;
	static int have_api;
	double t0;
	int i, got = 0;

	if (!have_api && !(have_api = gs_pyapi_resolve(&api)))
		return -1;
	if (part == 1 && gs_callsite_set_unwinder(unwinder, NULL) != unwinder)
		return -2;
	gs_py_set_line_cache(part != 2);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		cs.n_native = cs.n_py = 0; /* as capture() starts it */
		cs.text_len = 0;
		got = part == 1 ? gs_native_frames(&cs, 1) : gs_py_frames(&api, &cs);
	}
	*frames = got;
	return (now_ns() - t0) / n;
}
