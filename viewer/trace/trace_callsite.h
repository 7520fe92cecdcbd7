/*
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

#endif
