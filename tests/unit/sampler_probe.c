/*
 * sampler_probe.c - a shared library that Python loads with ctypes to test
 * the sampler (collector/sampler.c) in a real interpreter
 * (tests/unit/test_sampler_waits.py): started as the collector starts it,
 * it watches the calling thread, and the events it hands to the writer are
 * kept here, CPU samples and off-CPU samples alike, each with its Python
 * frames.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "callsite.h"
#include "internal.h"

#define EXPORT __attribute__((visibility("default")))
#define PROBE_EVENTS 8192

static struct {
	int off;	 /* an off-CPU sample */
	int64_t tid;
	uint64_t t0, t1; /* CPU sample: t0 its time; off-CPU: [t0, t1] */
	char frames[200];
} evs[PROBE_EVENTS];
static int n_evs;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the writer's hand-off (the drain thread's; the caller's at the stop) */
static void push(const struct gs_event *ev)
{
	const struct gs_callsite *cs = &ev->u.callsite;
	int i, k = 0;

	if (ev->kind != GS_EV_SAMPLE)
		return;
	pthread_mutex_lock(&lock);
	if (n_evs < PROBE_EVENTS) {
		i = n_evs++;
		evs[i].off = cs->reason == GS_CS_WHY_OFF_CPU;
		evs[i].tid = cs->tid;
		evs[i].t0 = cs->t_begin;
		evs[i].t1 = cs->t_end;
		evs[i].frames[0] = '\0';
		/* "function:line" of the innermost 3 Python frames, '|' between */
		for (int j = 0; j < cs->n_py && j < 3 && k < (int)sizeof(evs[i].frames); j++) {
			int w = snprintf(evs[i].frames + k, sizeof(evs[i].frames) - (size_t)k,
					 "%s%s:%d", j ? "|" : "", cs->text + cs->py_func[j],
					 cs->py_line[j]);
			if (w < 0)
				break;
			k += w;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* Start the sampler at hz (off-CPU samples on), as the collector does. */
EXPORT int probe_start(unsigned hz)
{
	n_evs = 0;
	gs_sampler_set_waits(1);
	return gs_sampler_start(hz, now, push);
}

/* Sample the calling thread from now on. */
EXPORT void probe_watch_self(void)
{
	gs_sampler_watch_self();
}

/* Stop; the events kept. */
EXPORT int probe_stop(void)
{
	gs_sampler_stop();
	return n_evs;
}

/* Event i as "off|cpu TID T0 T1 frames" into out. */
EXPORT int probe_event(int i, char *out, int len)
{
	if (i < 0 || i >= n_evs)
		return -1;
	return snprintf(out, (size_t)len, "%s %lld %llu %llu %s", evs[i].off ? "off" : "cpu",
			(long long)evs[i].tid, (unsigned long long)evs[i].t0,
			(unsigned long long)evs[i].t1, evs[i].frames);
}

/* The monotonic clock the events are timed on, ns. */
EXPORT unsigned long long probe_now(void)
{
	return (unsigned long long)now();
}
