/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * kineto_import.h - `gapscope import`: a torch.profiler (Kineto) Chrome
 * trace JSON, plain or gzip-compressed, turned into a gapscope trace
 * database of the collector's schema (gs_schema_create), so that every verb
 * reads it. The JSON is read as a stream of events (yajl's SAX parser,
 * through zlib's gzread): memory grows with the distinct strings, not with
 * the file. docs/import.md lists what is mapped and what is not.
 *
 * It prints nothing: cmd/cmd_import.c says what happened.
 */
#ifndef GAPSCOPE_KINETO_IMPORT_H
#define GAPSCOPE_KINETO_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "import_out.h"

#define KINETO_ERR_OUTPUT IMPORT_ERR_OUTPUT /* the database could not be written */
#define KINETO_ERR_INPUT IMPORT_ERR_INPUT   /* the JSON file: missing, not JSON, hostile */
#define KINETO_ERR_TARGET IMPORT_ERR_TARGET /* the output path: a folder, a device, not writable   \
					     */

/*
 * Convert json_path (Kineto Chrome trace, .json or .json.gz) into a new
 * trace database at db_path. The database is written to a temporary file
 * beside db_path and renamed over it only when complete: a failed import
 * leaves an existing db_path as it was. `version` goes to meta
 * collector_version ("gapscope import <version>").
 *
 * Returns 0; KINETO_ERR_INPUT with a one-line reason in err when the JSON
 * is missing, not JSON, truncated, or holds a value no trace can (a time
 * past 2^62 ns, a number of the wrong type); KINETO_ERR_OUTPUT when the
 * database cannot be written (err says why); KINETO_ERR_TARGET when db_path
 * cannot be a database file (a folder, a device, "-", an unwritable folder).
 */
int kineto_import(const char *json_path, const char *db_path, const char *version,
		  struct import_stats *st, char *err, size_t errlen);

#endif
