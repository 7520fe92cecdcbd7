/*
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

#include <sqlite3.h>
#include <stddef.h>

#include "gapscope/trace_format.h"

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

/* Value of meta.key as a newly allocated string, or NULL. */
char *trace_meta(struct trace *t, const char *key);

#endif
