/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_samples.h - the samples of a trace's launching threads (samples,
 * stack_frames) into struct gs_input (hstacks, samples). See
 * trace_samples.c.
 */
#ifndef GAPSCOPE_TRACE_SAMPLES_H
#define GAPSCOPE_TRACE_SAMPLES_H

#include <stddef.h>

#include <sqlite3.h>

#include "analysis.h"

/* Fill in->hstacks and in->samples; in->strings must be loaded. A trace
 * without the table gets none (returns 0). Returns 0, or -1 with a
 * one-line reason in err. */
int trace_load_samples(sqlite3 *db, struct gs_input *in, char *err, size_t errlen);
void trace_samples_free(struct gs_input *in);

#endif
