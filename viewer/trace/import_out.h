/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * import_out.h - what the importers of `gapscope import` (kineto_import.c
 * for torch.profiler JSON, nsys_import.c for Nsight Systems SQLite
 * exports) share on the output side: a new trace database of the
 * collector's schema, written to a temporary file beside its target and
 * renamed over it only when complete (a failed or interrupted import
 * leaves the target as it was), and the rows that the source's records
 * lack and that the collector derives at finalize: syncs' threads and
 * calls, Async copies, and the implicit syncs, by the collector's own code
 * (gs_derive_* in collector/schema.c).
 */
#ifndef GAPSCOPE_IMPORT_OUT_H
#define GAPSCOPE_IMPORT_OUT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "trace.h"

#define IMPORT_ERR_OUTPUT (-1) /* the database could not be written */
#define IMPORT_ERR_INPUT (-2)  /* the source file: missing, damaged, foreign, hostile */
#define IMPORT_ERR_TARGET (-3) /* the output path: a folder, a device, not writable */

struct import_out {
	sqlite3 *db;  /* the new database, in a transaction until commit */
	char *target; /* the file to replace (a symbolic link's target) */
	char *tmp;    /* the temporary file beside it, NULL once renamed */
	/* the trace verbs' defences on db (trace.h, trace_guard_db): the
	 * source is untrusted - an export attached to db, or JSON whose rows
	 * the derivations query - so no view, trigger or extension runs and
	 * no query step runs past the bound */
	struct trace_guard *guard;
	struct trace_watch watch;
};

/* Create the temporary database for `path` with the collector's schema
 * (gs_schema_create), URI file names allowed (for ATTACH), no transaction
 * begun (ATTACH needs none open): the importer begins it. A fatal signal
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, ...: fatal_signals.h) removes it until
 * import_out_close(). Returns 0, IMPORT_ERR_TARGET when
 * path cannot be a database file ("-", a folder, a device, an unwritable
 * folder) or IMPORT_ERR_OUTPUT, with a one-line reason in err. */
int import_out_open(struct import_out *o, const char *path, char *err, size_t errlen);

/* After a failure, or before the commit: when a query ran past the bound
 * (GAPSCOPE_QUERY_LIMIT_MS, as for every verb), err says so ("a query ran
 * too long (over N s): the <what> may be hostile") and 1 is returned:
 * IMPORT_ERR_INPUT. Else 0. */
int import_out_too_long(const struct import_out *o, const char *what, char *err, size_t errlen);

/* Attach the file named by uri read-only as schema "src", its planner
 * statistics unread (trace_guard_attach). SQLite's result code. */
int import_out_attach(struct import_out *o, const char *uri);

/* Commit, close, fsync and rename the database into place. Returns 0 or
 * IMPORT_ERR_OUTPUT with err set. */
int import_out_commit(struct import_out *o, char *err, size_t errlen);

/* Close what is open, remove the temporary file if it was not renamed,
 * restore the signal handlers. Safe after a failed open. */
void import_out_close(struct import_out *o);

/* temp.sync_api(name_id, kind): the strings that name a call which syncs
 * (cudaStreamSynchronize, cuCtxSynchronize, ... with their suffixes) or
 * waits on the GPU (cudaStreamWaitEvent), with the enum gs_sync_kind it
 * makes. Created once, filled from the strings there are. 0, or -1. */
int import_out_sync_apis(sqlite3 *db);

/* meta key = value (replaced if there); 0, or -1 (sqlite3_errmsg says why) */
int import_out_meta(sqlite3 *db, const char *key, const char *value);
int import_out_meta_int(sqlite3 *db, const char *key, int64_t v);

/* strings.id of s in the new database, added if missing; 0 on failure */
int64_t import_out_intern(sqlite3 *db, const char *s);

#define IMPORT_MAX_CATS 32 /* categories (tables) counted one by one; the rest as "other" */

/* What an import wrote and left out: cmd_import.c prints it once. Fields
 * marked nsys are 0 for Kineto traces; events, flows, repaired, host_ops
 * and event_records are 0 for Nsight Systems exports. */
struct import_count {
	char cat[48]; /* Kineto category or nsys table, as a meta key part: [A-Za-z0-9_] */
	int64_t n;
};

struct import_stats {
	int64_t events;						     /* objects in traceEvents */
	int64_t kernels, memcpys, memsets, api_calls, syncs, ranges; /* rows written */
	int64_t implicit_syncs; /* derived from copies, sets and API names */
	int64_t devices, threads;
	int64_t flows;		  /* "s"/"f"/"t" flow events: not needed (args.correlation) */
	int64_t repaired;	  /* strings whose invalid UTF-8 was replaced by U+FFFD */
	int64_t graph_ops;	  /* ops given their graph launch's correlation id as graph id */
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
	struct import_count unmapped[IMPORT_MAX_CATS + 1]; /* events not mapped, per category */
	size_t n_unmapped;
};

/* What import_derive() did, added to st (both importers' summary) */
struct import_derived;
void import_stats_add_derived(struct import_stats *st, const struct import_derived *d);

/* What import_derive() added or changed. */
struct import_derived {
	int64_t graph_ops;	  /* ops given their graph launch's correlation id as graph id */
	int64_t syncs_from_calls; /* explicit syncs made from sync calls without a record */
	int64_t implicit_syncs;	  /* implicit sync rows in the trace after it */
	int64_t waits_unrecorded; /* stream-wait calls when the trace has no stream-wait sync */
};

/* After the source's rows and the indexes (gs_schema_create_indexes):
 * the derivations, as the collector's finalize does them, and their
 * counts in meta (import.graph_ops_from_launch, import.syncs_from_calls,
 * import.stream_waits_unrecorded). Returns 0, or
 * -1 with *what naming the step that failed (sqlite3_errmsg(db) says
 * why). */
int import_derive(sqlite3 *db, struct import_derived *d, const char **what);

#endif
