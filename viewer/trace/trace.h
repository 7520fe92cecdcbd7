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

typedef struct sqlite3_stmt sqlite3_stmt;
struct trace_guard;

struct trace {
	sqlite3 *db;
	const char *path;
	int schema_version;
	int recording; /* 1: a collector holds the file's lock, it is still being recorded */
	struct trace_guard *guard; /* the query bound shared by every connection (trace.c) */
};

/* One connection's progress-handler state (trace_db_open); trace.c only. */
struct trace_watch {
	struct trace_guard *guard;
	sqlite3 *db;
	uint64_t sig;	/* what the connection's statements had done at `since` */
	int64_t since;	/* ns, CLOCK_MONOTONIC: when that was first seen */
	int stats_gate; /* 1 while the schema loads: stop SQLite reading sqlite_stat* */
};

/* Error codes of trace_open (negative). */
enum {
	TRACE_ERR_MISSING = -1,   /* no such file or unreadable */
	TRACE_ERR_NOT_SQLITE = -2,
	TRACE_ERR_TRUNCATED = -3,
	TRACE_ERR_FOREIGN = -4,   /* SQLite, but not a gapscope trace */
	TRACE_ERR_NEWER = -5,     /* written by a newer schema */
	TRACE_ERR_CORRUPT = -6,
	TRACE_ERR_NOT_REGULAR = -7, /* a FIFO, device, socket: never opened, never blocks */
	TRACE_ERR_SCHEMA = -8,	    /* a table gapscope reads is not a plain rowid table */
};

/* Open `path` read-only and check it. On failure returns a negative
 * TRACE_ERR_* and writes a one-line explanation (no trailing newline, no
 * file name) to `err`.
 *
 * A trace is untrusted input (docs/schema.md, "Reading untrusted traces"):
 * only a regular file is opened; the tables gapscope reads must be plain
 * rowid tables (no view, WITHOUT ROWID, virtual table or generated column)
 * holding the columns of schema v1; the connection runs with
 * trusted_schema off, views disabled, defensive mode on and the planner
 * statistics the file may carry (sqlite_stat1, sqlite_stat4) left unread;
 * and a progress handler interrupts any one query step that runs longer
 * than TRACE_QUERY_LIMIT_MS (GAPSCOPE_QUERY_LIMIT_MS in the environment
 * overrides it, for tests). */
int trace_open(struct trace *t, const char *path, char *err, size_t errlen);
void trace_close(struct trace *t);

/* The bound on one query step, ms: generous, a 10M-kernel trace's longest
 * step (one scan of a table) takes a few seconds. */
#define TRACE_QUERY_LIMIT_MS 120000

/* Another read-only connection to t's file with the same defences as
 * t->db (a loader thread's own); `w` must live as long as the connection.
 * NULL with err set when it cannot be opened. */
sqlite3 *trace_db_open(struct trace *t, struct trace_watch *w, char *err, size_t errlen);

/* After a read of t failed: if it failed because a query ran past the
 * bound on any of t's connections, err is replaced by "query ran too
 * long; the trace may be hostile" and 1 is returned, else 0. */
int trace_too_long(const struct trace *t, char *err, size_t errlen);

/* The same defences on a connection gapscope opens itself to read
 * untrusted data: the importers' (import_out.c), which writes the new
 * trace and reads an Nsight Systems export attached to it. One guard (the
 * bound, GAPSCOPE_QUERY_LIMIT_MS as for trace_open) per import;
 * trace_guard_db() hardens db as trace_open hardens its own (views,
 * triggers, extensions off, trusted_schema off, defensive, the progress
 * handler) and returns 0 or -1 with err set; `w` must outlive db.
 * trace_guard_attach() attaches the file named by uri as `schema` (a
 * fixed identifier) with its planner statistics left unread, and returns
 * SQLite's result code. trace_guard_tripped(): 1 when a query ran past
 * the bound (and was interrupted, as is every later long step). */
struct trace_guard *trace_guard_new(void);
void trace_guard_free(struct trace_guard *g);
int trace_guard_db(struct trace_guard *g, sqlite3 *db, struct trace_watch *w, char *err,
		   size_t errlen);
int trace_guard_attach(struct trace_watch *w, const char *uri, const char *schema);
int trace_guard_tripped(const struct trace_guard *g);
int64_t trace_guard_limit_ms(const struct trace_guard *g); /* the bound, ms */

/* After an SQLite call on db (a connection to a trace) failed: 1 when the
 * failure is this machine's, not the trace's - SQLite could not write its
 * temporary files (sorts, temporary tables: a full TMPDIR, File too large
 * under ulimit -f) or memory ran out - with err saying so and what to do
 * ("cannot write SQLite's temporary files in /tmp (TMPDIR): No space left
 * on device; free space there or set TMPDIR to a folder with room"); a
 * failure, exit 1, not bad input. Else 0 and err untouched. */
int trace_local_error(sqlite3 *db, char *err, size_t errlen);

/* A device ordinal or stream id outside its documented range (devices
 * 0..32767, the analysis' int16_t; streams 0..2^32-1, CUPTI's uint32_t) is
 * refused, not merged into another. */
#define TRACE_DEVICE_OK(d) ((d) >= 0 && (d) <= 32767)
#define TRACE_STREAM_OK(s) ((s) >= 0 && (s) <= (int64_t)UINT32_MAX)

/* The rule for every verb on the GPU ops' places: a kernel, copy or memset
 * whose device (0..32767) or stream (0..2^32-1) lies outside its range
 * (NULL reads as 0) makes the trace damaged. The loaders check each row
 * they read (report, html, diff, export --format chrome); the verbs that
 * do not read every op through them (info, graph, export --format csv)
 * call this first: one scan. So do they for the ops' durations in all: past
 * 2^62 ns (146 years) no sum of them fits int64, and trace_load refuses
 * the trace (its check_sums). 0, or -1 with err naming the first such row
 * ("damaged trace: kernels row 1 has stream 4294967296, out of range (0 to
 * 4294967295)"), the total, or SQLite's error. */
int trace_check_places(struct trace *t, char *err, size_t errlen);

/* After a reader met an id outside its range in `table`: find the first
 * row whose column `col` (read as sqlite3_column_int64 reads it) lies
 * outside [lo, hi] and describe it in err, e.g. "damaged trace: kernels
 * row 2 has device 70000, out of range (0 to 32767)". NULL reads as `null_as`. */
void trace_range_error(sqlite3 *db, const char *table, const char *col, int64_t lo, int64_t hi,
		       int64_t null_as, char *err, size_t errlen);

/* Once per process, before the first trace_open(): SQLite settings for
 * reading big traces (no memory statistics). */
void trace_library_init(void);

/* Name of device `dev` (devices.name) or of thread `tid` (threads.name,
 * NULL when empty), malloc'ed, or NULL when the trace has none. */
char *trace_device_name(struct trace *t, int dev);
char *trace_thread_name(struct trace *t, uint32_t tid);

/* How an Nsight Systems report (.nsys-rep, .qdrep) begins: a file only
 * Nsight Systems reads; its SQLite export is what gapscope imports. */
#define NSYS_REPORT_MAGIC "NVIDIA Tegra Profiler Report"

/* 1 when database db holds a table (or another object: a view) named
 * `name`, any case: the tables of gs_schema_table_optional() are absent
 * from older traces, which is not damage. 0 also when SQLite fails. */
int trace_db_has_table(sqlite3 *db, const char *name);
/* The same in the attached database `schema` ("src": an import's source) */
int trace_db_schema_has_table(sqlite3 *db, const char *schema, const char *name);

/* Value of meta.key as a newly allocated string, or NULL. */
char *trace_meta(struct trace *t, const char *key);

/* Which process of a multi-process job the trace is (trace_format.h,
 * docs/schema.md): meta rank, world_size and rank_source; in traces
 * recorded before those keys, the first of the launcher variables the
 * collector recorded (env.RANK, env.OMPI_COMM_WORLD_RANK, ...) and the
 * world size paired with it. Returns 1 with *rank set (0 <= rank < 2^31),
 * *world_size (0: unknown) and *source (the meta key or "distributedInfo",
 * malloc'ed, may be NULL); 0 when the trace records no rank. */
int trace_rank(struct trace *t, int64_t *rank, int64_t *world_size, char **source);

/* Write meta rows keys[i] = vals[i] (i < n, integers) into the trace file
 * at path in one transaction, replacing rows of those keys: what gapscope
 * record measured around a run, added to the trace the run just wrote (the
 * reference runs' launch times). Returns 0, or -1 with err set. */
int trace_meta_put_ints(const char *path, const char *const *keys, const int64_t *vals, size_t n,
			char *err, size_t errlen);

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
