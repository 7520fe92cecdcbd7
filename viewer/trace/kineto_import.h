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

#define KINETO_MAX_CATS 32 /* categories counted one by one; the rest as "other" */

struct kineto_count {
	char cat[48]; /* the category as a meta key part: [A-Za-z0-9_] only */
	int64_t n;
};

struct kineto_stats {
	int64_t events;						     /* objects in traceEvents */
	int64_t kernels, memcpys, memsets, api_calls, syncs, ranges; /* rows written */
	int64_t implicit_syncs; /* derived from copies, sets and API names */
	int64_t devices, threads;
	int64_t flows;	  /* "s"/"f"/"t" flow events: not needed (args.correlation) */
	int64_t repaired; /* strings whose invalid UTF-8 was replaced by U+FFFD */
	int64_t graph_ops; /* ops given their graph launch's correlation id as graph id */
	int64_t waits_unrecorded; /* cudaStreamWaitEvent calls, when no stream-wait
				     (cuda_sync) record is in the trace; else 0 */
	int64_t host_ops;	  /* cpu_op, python_function events kept in host_ranges */
	int64_t event_records;	  /* events rows made from stream waits' wait_on_stream */
	int64_t syncs_from_calls; /* explicit syncs made from sync calls that had no
				     cuda_sync record (also counted in syncs) */
	int64_t graph_runs;	  /* nsys: graph launches traced graph-level (graph_runs) */
	int64_t rows_left_out;	  /* nsys: rows with times, devices or streams no trace holds */
	int64_t graph_launches_unseen; /* nsys: graph launch calls, none of whose GPU work is
					 in the export */
	struct kineto_count unmapped[KINETO_MAX_CATS + 1]; /* events not mapped, per category */
	size_t n_unmapped;
};

/* What import_derive() did, added to st (both importers' summary) */
void kineto_stats_add_derived(struct kineto_stats *st, const struct import_derived *d);

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
		  struct kineto_stats *st, char *err, size_t errlen);

#endif
