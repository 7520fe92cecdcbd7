/*
 * pyframes_probe.c - a shared library that Python loads with ctypes to test
 * collector/callsite.c's reading of Python frames on a real interpreter
 * (tests/unit/test_pyframes.py): ctypes.CDLL releases the GIL around the
 * call (the case of PyTorch's blocking calls), ctypes.PyDLL keeps it.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "callsite.h"
#include "sigguard.h"

#define EXPORT __attribute__((visibility("default")))

/* The minor version whose frames are read without the GIL (12, 13), 0 for
 * none, -1 when the process has no CPython API at all. */
EXPORT int gs_probe_minor(void)
{
	struct gs_pyapi a;

	return gs_pyapi_resolve(&a) ? a.minor : -1;
}

/* the last capture's cut: frames left out between the inner and the outer
 * ones, times 256, plus the outer frames kept (callsite.h py_skipped,
 * py_outer) */
static int last_cut;

EXPORT int gs_probe_last_cut(void)
{
	return last_cut;
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
	last_cut = cs.py_skipped * 256 + cs.py_outer;
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

/* ---- the sampler's path: frames read in a signal handler ---- */
#include <signal.h>
#include <time.h>

#define PROBE_SAMPLES 4096
static struct gs_pyapi probe_api;
static struct gs_callsite sig_cs;
static struct gs_py_line_cache sig_lines; /* the handler's, as a sampler ring's */
static int sig_n;
static struct {
	char func[32];
	int line;
} samples[PROBE_SAMPLES];
static volatile int n_samples;
static timer_t probe_timer;

static void on_probe_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	memset(&sig_cs, 0, offsetof(struct gs_callsite, text));
	sig_cs.text_len = 0;
	sig_n = gs_py_frames_async(&probe_api, &sig_cs, &sig_lines);
	if (si && si->si_code == SI_TIMER && n_samples < PROBE_SAMPLES) {
		int i = n_samples;
		samples[i].line = sig_n > 0 ? sig_cs.py_line[0] : -1;
		if (sig_n > 0)
			snprintf(samples[i].func, sizeof(samples[i].func), "%s",
				 sig_cs.text + sig_cs.py_func[0]);
		else
			samples[i].func[0] = '\0';
		n_samples = i + 1;
	}
}

static int probe_handler(void)
{
	struct sigaction sa;

	if (!gs_pyapi_resolve(&probe_api))
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_probe_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	return sigaction(SIGUSR2, &sa, NULL);
}

/* The calling thread's frames as the sampler reads them: in a handler of a
 * signal this thread sends itself, joined as gs_probe_frames joins them. */
EXPORT int gs_probe_frames_async(char *out, int len)
{
	int i, used = 0;

	if (probe_handler() != 0)
		return -1;
	sig_n = -1;
	raise(SIGUSR2);
	last_cut = sig_cs.py_skipped * 256 + sig_cs.py_outer;
	out[0] = '\0';
	for (i = 0; i < sig_cs.n_py && used < len; i++) {
		int w = snprintf(out + used, (size_t)(len - used), "%s%s:%d:%s", i ? "|" : "",
				 sig_cs.text + sig_cs.py_file[i], sig_cs.py_line[i],
				 sig_cs.text + sig_cs.py_func[i]);
		if (w < 0)
			break;
		used += w;
	}
	return sig_n;
}

/* A timer on clock clk that sends SIGUSR2 every us microseconds: to thread
 * tid, or (tid 0) to the process. 0, or -1. */
static int start_timer(clockid_t clk, pid_t tid, int us, timer_t *t)
{
	struct sigevent sev;
	struct itimerspec its;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = tid ? SIGEV_THREAD_ID : SIGEV_SIGNAL;
	sev.sigev_signo = SIGUSR2;
	if (tid)
		sev._sigev_un._tid = tid;
	if (timer_create(clk, &sev, t) != 0)
		return -1;
	its.it_interval.tv_sec = 0;
	its.it_interval.tv_nsec = us * 1000L;
	its.it_value = its.it_interval;
	return timer_settime(*t, 0, &its, NULL);
}

/* A CPU-time timer on the calling thread (every us of its CPU time) whose
 * signal reads its innermost frame wherever the interpreter is. */
EXPORT int gs_probe_sampling_start(int us)
{
	if (probe_handler() != 0)
		return -1;
	n_samples = 0;
	return start_timer(CLOCK_THREAD_CPUTIME_ID, 0, us, &probe_timer);
}

/* Stop; the samples' innermost frames as "function:line" joined by '|'. */
EXPORT int gs_probe_sampling_stop(char *out, int len)
{
	int i, used = 0;

	timer_delete(probe_timer);
	out[0] = '\0';
	for (i = 0; i < n_samples && used < len; i++) {
		int w = snprintf(out + used, (size_t)(len - used), "%s%s:%d", i ? "|" : "",
				 samples[i].func, samples[i].line);
		if (w < 0)
			break;
		used += w;
	}
	return n_samples;
}

/* ---- the sampler's fault guard (collector/sigguard.c) under stress ---- */

static struct gs_sigguard stress_guard;
static struct gs_callsite stress_cs;
static struct gs_py_line_cache stress_lines;
static volatile long stress_n, stress_framed, stress_here;
static int stress_use_guard;
static timer_t stress_timer;
static char stress_file[256];

/* As the sampler's handler (collector/sampler.c on_sample through
 * gs_callsite_sample): the frames read under the guard; a walk that
 * faulted is dropped. Without the guard (use 0) the walk is bare: a check
 * that the stress finds the fault at all. */
static void on_stress(int sig, siginfo_t *si, void *uc)
{
	int n;

	(void)sig;
	(void)si;
	(void)uc;
	memset(&stress_cs, 0, offsetof(struct gs_callsite, text));
	stress_cs.text_len = 0;
	if (stress_use_guard) {
		stress_guard.active = 1;
		if (sigsetjmp(stress_guard.jb, 0) != 0)
			return; /* faulted: counted by the guard */
	}
	n = gs_py_frames_async(&probe_api, &stress_cs, &stress_lines);
	stress_guard.active = 0;
	stress_n++;
	if (n > 0) {
		stress_framed++;
		stress_here += strcmp(stress_cs.text + stress_cs.py_file[0], stress_file) == 0;
	}
}

/* A wall-clock timer that signals the calling thread every us
 * microseconds, whose handler reads its Python frames (with the guard
 * when guard is 1); file: the test's own file name, which the innermost
 * frame of a sample is counted against. 0, or -1. */
EXPORT int gs_probe_stress_start(int us, int guard, const char *file)
{
	if (!gs_pyapi_resolve(&probe_api))
		return -1;
	snprintf(stress_file, sizeof(stress_file), "%s", file);
	stress_use_guard = guard;
	stress_n = stress_framed = stress_here = 0;
	stress_guard.tid = (int64_t)syscall(SYS_gettid);
	stress_guard.faults = 0;
	if (guard && (gs_sigguard_install() != 0 || gs_sigguard_add(&stress_guard) != 0))
		return -1;
	if (gs_sigguard_handler(SIGUSR2, on_stress, NULL) != 0)
		return -1;
	return start_timer(CLOCK_MONOTONIC, (pid_t)stress_guard.tid, us, &stress_timer);
}

/* Stop; out[0..3]: walks done, walks with Python frames, of them those
 * whose innermost frame is in the test's file, walks that faulted. */
EXPORT int gs_probe_stress_stop(long *out)
{
	timer_delete(stress_timer);
	out[0] = stress_n;
	out[1] = stress_framed;
	out[2] = stress_here;
	out[3] = (long)stress_guard.faults;
	return 0;
}

/* ---- the sampler's off-CPU samples: another thread's frames ---- */

/* The calling thread's Python thread state (gs_py_tstate), as an integer. */
EXPORT unsigned long gs_probe_tstate(void)
{
	if (!gs_pyapi_resolve(&probe_api))
		return 0;
	return (unsigned long)gs_py_tstate(&probe_api);
}

static struct gs_sigguard of_guard;
static int of_guarded;

/* The frames of the thread whose thread state is ts, read from this thread
 * under its fault guard, as the sampler's thread reads a thread off CPU
 * (collector/sampler.c look_waits): "file:line:function" joined by '|',
 * innermost first; returns how many, -1 when the walk faulted, -2 when the
 * guard could not be set up. */
static struct gs_callsite of_cs;
static struct gs_py_line_cache of_lines;

/* the walk alone, in a frame of its own for the jump (nothing the jump
 * could clobber lives in it) */
static int frames_of_guarded(unsigned long ts)
{
	memset(&of_cs, 0, offsetof(struct gs_callsite, text));
	of_cs.text_len = 0;
	of_guard.active = 1;
	if (sigsetjmp(of_guard.jb, 0) != 0)
		return -1;
	gs_py_frames_of(&probe_api, &of_cs, &of_lines, (const void *)ts);
	of_guard.active = 0;
	return of_cs.n_py;
}

EXPORT int gs_probe_frames_of(unsigned long ts, char *out, int len)
{
	int i, n, used = 0;

	if (!gs_pyapi_resolve(&probe_api))
		return -2;
	if (!of_guarded) {
		of_guard.tid = (int64_t)syscall(SYS_gettid);
		if (gs_sigguard_install() != 0 || gs_sigguard_add(&of_guard) != 0)
			return -2;
		of_guarded = 1;
	}
	if (of_guard.tid != (int64_t)syscall(SYS_gettid))
		return -2; /* the guard is the first caller's thread's */
	out[0] = '\0';
	if ((n = frames_of_guarded(ts)) < 0)
		return n;
	for (i = 0; i < of_cs.n_py && used < len; i++) {
		int w = snprintf(out + used, (size_t)(len - used), "%s%s:%d:%s", i ? "|" : "",
				 of_cs.text + of_cs.py_file[i], of_cs.py_line[i],
				 of_cs.text + of_cs.py_func[i]);
		if (w < 0)
			break;
		used += w;
	}
	return n;
}
