/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_load.h - turn an opened trace database into the analysis library's
 * input arrays (struct gs_input, analysis.h).
 *
 * One sequential query per table, decoded into compact arrays grown by
 * doubling (no per-row malloc); ops are returned sorted by (device, start,
 * end). Tables are read on parallel connections (each big table in
 * several rowid ranges, one thread each) because a 10M-kernel trace is
 * dominated by SQLite row decoding.
 * This module only reads; it does not analyse or print.
 */
#ifndef GAPSCOPE_TRACE_LOAD_H
#define GAPSCOPE_TRACE_LOAD_H

#include <stddef.h>

#include "analysis.h"
#include "trace.h"

/* What to load (bit set); GS_LOAD_ALL for the report. */
#define GS_LOAD_OPS 0x01     /* kernels, memcpys, memsets */
#define GS_LOAD_APIS 0x02    /* api_calls */
#define GS_LOAD_SYNCS 0x04   /* syncs, and events (where waited-for events were recorded) */
#define GS_LOAD_NVTX 0x08    /* nvtx */
#define GS_LOAD_STRINGS 0x10 /* strings (needed to print any name) */
#define GS_LOAD_ALL 0x1f

/* Load `what` from t into *in (zeroed first). Returns 0, or a negative
 * value with a one-line reason in err (no file name, no newline). A trace
 * with zero GPU ops is NOT an error here (callers decide). */
int trace_load(struct trace *t, unsigned what, struct gs_input *in, char *err, size_t errlen);

/* Most rowid ranges ("parts") one big table is read in. */
#define GS_LOAD_MAX_PARTS 64
/* Most reader threads taking those ranges from their queue. */
#define GS_LOAD_MAX_READERS 16

/* trace_load() with each big table (kernels, api_calls) read in `parts`
 * rowid ranges (clamped to 1..GS_LOAD_MAX_PARTS), which one reader thread
 * per usable core (2..GS_LOAD_MAX_READERS) takes from a queue;
 * trace_load() picks parts from the number of readers. Internal: for the
 * loader's tests, which check every part count gives the same rows. */
int trace_load_parts(struct trace *t, unsigned what, int parts, struct gs_input *in, char *err,
		     size_t errlen);

/* Free everything trace_load() allocated in *in and zero it. */
void trace_input_free(struct gs_input *in);

#endif
