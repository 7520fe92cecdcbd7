/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_callsite.h - the call sites of a trace (stack_frames, api_stacks)
 * into struct gs_input (sites, site_refs). See trace_callsite.c.
 */
#ifndef GAPSCOPE_TRACE_CALLSITE_H
#define GAPSCOPE_TRACE_CALLSITE_H

#include <stddef.h>

#include <sqlite3.h>

#include "analysis.h"

/* Fill in->sites and in->site_refs; in->strings must be loaded. A trace
 * without the tables gets none (returns 0). Returns 0, or -1 with a
 * one-line reason in err. */
int trace_load_callsites(sqlite3 *db, struct gs_input *in, char *err, size_t errlen);
void trace_callsites_free(struct gs_input *in);

/* Fill in->captures (api_stacks capture_start/capture_end, sorted by corr;
 * none where the columns are absent) and in->n_native_captures. Returns 0,
 * or -1 with err. */
int trace_load_captures(sqlite3 *db, struct gs_input *in, char *err, size_t errlen);

/* How many of the trace's timed captures have a stack with native frames
 * (stack_frames.kind 1: the unwinder walked), or `unknown` where the trace
 * cannot tell (no stack_frames.kind, or a failed query). */
int64_t trace_native_captures(sqlite3 *db, int64_t unknown);

/* Fill in->stalls: the overhead table's rows of kinds that only tracing
 * causes (CUPTI's buffer flushes, instrumentation, resources, activity
 * buffer requests, UVM activity set-up), on a thread (object kind 2) that
 * made CUDA calls (not the collector's flush thread); none in a trace
 * without the table. Returns 0, or -1 with err. */
int trace_load_stalls(sqlite3 *db, struct gs_input *in, char *err, size_t errlen);

/* Widen each call that has a capture, and the implicit sync of that call,
 * to cover the capture when it lies next to the call (within
 * GS_CAPTURE_SLACK_NS of its start or end): the program was in the call. */
#define GS_CAPTURE_SLACK_NS 1000000
/* [*s, *e] widened as trace_widen_by_captures widens a call of
 * correlation id corr (c sorted by corr) */
void trace_widen_span(const struct gs_capture *c, size_t n, uint32_t corr, int64_t *s, int64_t *e);
void trace_widen_by_captures(const struct gs_capture *c, size_t n, struct gs_api *apis,
			     size_t n_apis, struct gs_sync *syncs, size_t n_syncs);

#endif
