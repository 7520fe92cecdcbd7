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

/* A CPU-time timer on the calling thread (every us of its CPU time) whose
 * signal reads its innermost frame wherever the interpreter is. */
EXPORT int gs_probe_sampling_start(int us)
{
	struct sigevent sev;
	struct itimerspec its;

	if (probe_handler() != 0)
		return -1;
	n_samples = 0;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGUSR2;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &probe_timer) != 0)
		return -1;
	its.it_interval.tv_sec = 0;
	its.it_interval.tv_nsec = us * 1000L;
	its.it_value = its.it_interval;
	return timer_settime(probe_timer, 0, &its, NULL);
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
