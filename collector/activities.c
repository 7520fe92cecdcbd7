/*
 * activities.c - the GAPSCOPE_ACTIVITIES words, their bits and the CUPTI
 * activity kinds behind them (internal.h). Shared by the collector (part of
 * gs_collector_core) and gapscope-calibrate (compiled into it: the
 * calibration enables what the recording enables). No state, no I/O.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "internal.h"

/* ------------------------------------------------------------- activities */

static const struct {
	const char *word;
	unsigned bit;
} act_words[] = {
    {"kernel", GS_ACT_KERNEL},	 {"memcpy", GS_ACT_MEMCPY},	{"memset", GS_ACT_MEMSET},
    {"runtime", GS_ACT_RUNTIME}, {"driver", GS_ACT_DRIVER},	{"sync", GS_ACT_SYNC},
    {"event", GS_ACT_EVENT},	 {"stream", GS_ACT_STREAM},	{"nvtx", GS_ACT_NVTX},
    {"graph", GS_ACT_GRAPH},	 {"overhead", GS_ACT_OVERHEAD},
};

#define N_ACT_WORDS (sizeof(act_words) / sizeof(act_words[0]))

void gs_activities_words(char *buf, size_t len)
{
	size_t i, used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < N_ACT_WORDS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 act_words[i].word);
}

int gs_activities_parse(const char *s, unsigned *act)
{
	unsigned bits = 0;
	const char *p = s;

	if (!s)
		return -1;
	for (;;) {
		const char *b, *e;
		size_t n, i;
		int found = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		b = p;
		while (*p && *p != ',')
			p++;
		e = p;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		n = (size_t)(e - b);
		if (n == 0)
			return -1; /* empty item: "kernel,,memcpy" or "" */
		if (n == 3 && strncmp(b, "all", 3) == 0) {
			bits |= GS_ACT_ALL;
			found = 1;
		}
		for (i = 0; i < N_ACT_WORDS && !found; i++) {
			if (strlen(act_words[i].word) == n &&
			    strncmp(b, act_words[i].word, n) == 0) {
				bits |= act_words[i].bit;
				found = 1;
			}
		}
		if (!found)
			return -1;
		if (*p == '\0')
			break;
		p++; /* the comma */
	}
	*act = bits;
	return 0;
}

void gs_activities_to_string(unsigned act, char *buf, size_t len)
{
	size_t i, used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < N_ACT_WORDS; i++) {
		if (!(act & act_words[i].bit))
			continue;
		int n =
		    snprintf(buf + used, len - used, "%s%s", used ? "," : "", act_words[i].word);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

/* CUPTI activity kinds of each GAPSCOPE_ACTIVITIES word (the collector enables
 * them; gapscope-calibrate enables the same ones to measure their cost) */
static const struct gs_activity_kind kinds[] = {
    {GS_ACT_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernel"},
    {GS_ACT_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"},
    {GS_ACT_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, "memcpy2"},
    {GS_ACT_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET, "memset"},
    {GS_ACT_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME, "runtime"},
    {GS_ACT_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER, "driver"},
    {GS_ACT_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "sync"},
    /* which stream recorded each event, for the waits in syncs */
    {GS_ACT_EVENT, CUPTI_ACTIVITY_KIND_CUDA_EVENT, "cuda_event"},
    {GS_ACT_NVTX, CUPTI_ACTIVITY_KIND_MARKER, "nvtx"},
    {GS_ACT_NVTX, CUPTI_ACTIVITY_KIND_MARKER_DATA, "nvtx_data"},
    {GS_ACT_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD, "overhead"},
    {GS_ACT_ALL, CUPTI_ACTIVITY_KIND_DEVICE, "device"},
    /* each context's NULL (legacy default) stream id, and which streams
     * are non-blocking: for the legacy-default-stream derivation; one
     * record per context/stream creation */
    {GS_ACT_ALL, CUPTI_ACTIVITY_KIND_CONTEXT, "context"},
    {GS_ACT_STREAM, CUPTI_ACTIVITY_KIND_STREAM, "stream"},
};

int gs_sync_source_parse(const char *s, int *src)
{
	if (strcmp(s, "callbacks") == 0)
		*src = GS_SYNC_FROM_CALLBACKS;
	else if (strcmp(s, "cupti") == 0)
		*src = GS_SYNC_FROM_CUPTI;
	else
		return -1;
	return 0;
}

int gs_capture_range_parse(const char *s, int *mode)
{
	if (strcasecmp(s, "none") == 0)
		*mode = GS_CAPTURE_ALL;
	else if (strcasecmp(s, "cudaProfilerApi") == 0)
		*mode = GS_CAPTURE_PROFILER_API;
	else
		return -1;
	return 0;
}

int gs_clock_parse(const char *s, int *clock)
{
	if (strcmp(s, "cupti") == 0)
		*clock = GS_CLOCK_CUPTI;
	else if (strcmp(s, "realtime") == 0)
		*clock = GS_CLOCK_REALTIME;
	else
		return -1;
	return 0;
}

uint64_t CUPTIAPI gs_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

unsigned gs_cupti_activities(unsigned act, int sync_source)
{
	if (sync_source == GS_SYNC_FROM_CALLBACKS)
		act &= ~(unsigned)(GS_ACT_SYNC | GS_ACT_EVENT);
	return act;
}

const struct gs_activity_kind *gs_activity_kinds(size_t *n)
{
	*n = sizeof(kinds) / sizeof(kinds[0]);
	return kinds;
}
