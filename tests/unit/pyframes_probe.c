/*
 * pyframes_probe.c - a shared library that Python loads with ctypes to test
 * collector/callsite.c's reading of Python frames on a real interpreter
 * (tests/unit/test_pyframes.py): ctypes.CDLL releases the GIL around the
 * call (the case of PyTorch's blocking calls), ctypes.PyDLL keeps it.
 */
#include <stdio.h>
#include <string.h>

#include "callsite.h"

#define EXPORT __attribute__((visibility("default")))

/* The minor version whose frames are read without the GIL (12, 13), 0 for
 * none, -1 when the process has no CPython API at all. */
EXPORT int gs_probe_minor(void)
{
	struct gs_pyapi a;

	return gs_pyapi_resolve(&a) ? a.minor : -1;
}

/* The calling thread's Python frames as "file:line:function" joined by
 * '|', innermost first, into out; returns how many (-1: no CPython). */
EXPORT int gs_probe_frames(char *out, int len)
{
	static struct gs_callsite cs; /* large: not on the stack */
	struct gs_pyapi a;
	int i, n, used = 0;

	if (!gs_pyapi_resolve(&a))
		return -1;
	memset(&cs, 0, sizeof(cs));
	n = gs_py_frames(&a, &cs);
	out[0] = '\0';
	for (i = 0; i < cs.n_py && used < len; i++) {
		int w = snprintf(out + used, (size_t)(len - used), "%s%s:%d:%s", i ? "|" : "",
				 cs.text + cs.py_file[i], cs.py_line[i], cs.text + cs.py_func[i]);
		if (w < 0)
			break;
		used += w;
	}
	return n;
}
