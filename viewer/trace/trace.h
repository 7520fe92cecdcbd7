/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace.h - the viewer's one way into a trace database.
 *
 * trace_open() checks what a user may hand us (missing file, not SQLite,
 * truncated, foreign SQLite, newer schema) and turns each into one clear
 * sentence. Loaders that turn tables into the analysis library's arrays are
 * declared here as they are added (trace_load_*), so every verb reads the
 * database the same way.
 */
#ifndef GAPSCOPE_TRACE_H
#define GAPSCOPE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "gapscope/trace_format.h"

/* SQLite stays inside trace/: the handle is opaque to the rooms above. */
typedef struct sqlite3 sqlite3;

struct trace {
	sqlite3 *db;
	const char *path;
	int schema_version;
};

/* Error codes of trace_open (negative). */
enum {
	TRACE_ERR_MISSING = -1,   /* no such file or unreadable */
	TRACE_ERR_NOT_SQLITE = -2,
	TRACE_ERR_TRUNCATED = -3,
	TRACE_ERR_FOREIGN = -4,   /* SQLite, but not a gapscope trace */
	TRACE_ERR_NEWER = -5,     /* written by a newer schema */
	TRACE_ERR_CORRUPT = -6,
};

/* Open `path` read-only and check it. On failure returns a negative
 * TRACE_ERR_* and writes a one-line explanation (no trailing newline, no
 * file name) to `err`. */
int trace_open(struct trace *t, const char *path, char *err, size_t errlen);
void trace_close(struct trace *t);

/* Once per process, before the first trace_open(): SQLite settings for
 * reading big traces (no memory statistics). */
void trace_library_init(void);

/* Name of device `dev` (devices.name) or of thread `tid` (threads.name,
 * NULL when empty), malloc'ed, or NULL when the trace has none. */
char *trace_device_name(struct trace *t, int dev);
char *trace_thread_name(struct trace *t, uint32_t tid);

/* Value of meta.key as a newly allocated string, or NULL. */
char *trace_meta(struct trace *t, const char *key);

/* The latest time a trace may hold: 2^62 ns on CUPTI's clock (nanoseconds
 * since the epoch) is the year 2116. Readers reject a row with a time
 * outside [0, TRACE_TIME_MAX] as damage: with every time in that range,
 * the difference or sum of two times cannot overflow int64 (a damaged row
 * with start -2^63 made the analysis and the exporters overflow). */
#define TRACE_TIME_MAX ((int64_t)1 << 62)
#define TRACE_TIME_OK(ns) ((uint64_t)(ns) <= (uint64_t)TRACE_TIME_MAX)

/* After a reader met a time outside [0, TRACE_TIME_MAX] in `table`: find
 * the first such row (time columns col1 and, unless NULL, col2, read as
 * sqlite3_column_int64 reads them: a real 1e300 is 2^63-1) and describe it
 * in err, e.g. "damaged trace: kernels row 17 has end 9223372036854775807,
 * out of range (0 to 2^62 ns)". Returns 1 when a row was found, else 0
 * (err then says only that some time in the table is out of range). */
int trace_time_error(sqlite3 *db, const char *table, const char *col1, const char *col2, char *err,
		     size_t errlen);

#endif
