/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * export_walk.h - the trace's rows handed out as they are read: the event
 * walker (export_walk.c) that feeds the Chrome/Perfetto exporter and the
 * HTML page, and the raw table dump to CSV (export_csv.c), the one exporter
 * that is plain SQL with no rendering of its own.
 *
 * The walker reads the database table by table with one SQL statement each
 * and hands every row to a back end's callbacks (struct export_ops) while the
 * row is current, so no back end ever holds the whole trace in memory. It
 * does no analysis: idle gaps come from the analysis library and are handed
 * to the same callbacks by the caller. The back ends live in render/.
 */
#ifndef GAPSCOPE_EXPORT_WALK_H
#define GAPSCOPE_EXPORT_WALK_H

#include <stdint.h>
#include <stdio.h>

#include "trace.h"

#include "utf8.h" /* utf8_sequence_length, for the back ends */

/* ---- the walker (export_walk.c) ------------------------------------ */

enum export_track_kind {
	EXPORT_TRACK_STREAM = 0, /* a CUDA stream of a device: kernels, copies, memsets,
				    graph runs */
	EXPORT_TRACK_THREAD = 1, /* a host thread: API calls, NVTX, syncs */
};

struct export_track {
	enum export_track_kind kind;
	int64_t pid;		  /* device ordinal (stream) or host pid (thread) */
	int64_t tid;		  /* CUDA stream id (stream) or host tid (thread) */
	const char *process_name; /* "GPU 0 (NVIDIA H200)" / "process 42 (./app)" */
	const char *name;	  /* "stream 7" / thread name or "thread 42" */
};

enum export_event_kind {
	EXPORT_EV_KERNEL = 0,
	EXPORT_EV_MEMCPY = 1,
	EXPORT_EV_MEMSET = 2,
	EXPORT_EV_API = 3,	 /* runtime or driver API call */
	EXPORT_EV_NVTX = 4,	 /* NVTX range */
	EXPORT_EV_MARK = 5,	 /* NVTX mark (start = end) */
	EXPORT_EV_SYNC = 6,	 /* explicit or implicit synchronisation */
	EXPORT_EV_GAP = 7,	 /* idle gap from the analysis (given by the caller) */
	EXPORT_EV_GRAPH_RUN = 8, /* schema v2 graph_runs: one whole graph launch recorded
				    in graph-level mode (no kernels rows for its nodes) */
	EXPORT_EV_CAPTURE = 9,	 /* schema v3, record --capture-range: a capture window
				    (start, end; id: 1 for the first in time order, name
				    "capture window 1"), the only time that was recorded;
				    pid, tid 0. After every other table. */
	EXPORT_EV_COUNT
};

/* One row, valid only during the callback. Exception: the name of a
 * kernel, API call or NVTX range/mark (and a sync's detail and api_name)
 * comes from a table of the walk that holds each distinct strings id once,
 * so that pointer stays valid, its text unchanged, until export_walk()
 * returns (one pointer per strings id, and "" for no name): a back end may
 * key a cache on it. */
struct export_event {
	enum export_event_kind kind;
	int64_t id;		/* row id in its table */
	int64_t start, end;	/* ns, CUPTI clock */
	int64_t pid, tid;	/* track: see struct export_track */
	int64_t name_id;	/* strings.id of name, -1 if none (memcpy/memset/gap) */
	const char *name;	/* kernel/API/NVTX text, sync kind, copy kind,
				   "graph run (graph <id>)"; never NULL */
	int64_t correlation_id; /* 0 if none */
	/* GPU ops: the API call that launched it (same correlation id) */
	int has_launch;			  /* 0 when no API call was recorded */
	int64_t launch_pid, launch_tid;	  /* host process/thread of the call */
	int64_t launch_start, launch_end; /* ns */
	/* kind-specific (0 when not applicable) */
	int64_t bytes;		/* memcpy/memset: bytes */
	int copy_kind;		/* memcpy: enum gs_copy_kind */
	int src_kind;		/* memcpy: enum gs_mem_kind; memset: mem kind */
	int dst_kind;		/* memcpy: enum gs_mem_kind */
	int sync_kind;		/* sync: enum gs_sync_kind */
	int implicit;		/* sync: 1 if recognised by gapscope */
	const char *detail;	/* sync: reason (implicit) / gap: explanation; "" if none */
	const char *api_name;	/* sync: name of the API call; "" if unknown */
	int64_t stream;		/* sync: stream waited on (0 if none) */
	int grid[3];		/* kernel: grid dimensions */
	int block[3];		/* kernel: block dimensions */
	int registers;		/* kernel: registers per thread */
	int64_t shared_bytes;	/* kernel: static + dynamic shared memory, bytes */
	int64_t graph_id;	/* kernel/copy/graph run: CUDA graph id, 0 if none */
	int64_t return_code;	/* API: CUresult / cudaError_t */
	int api;		/* API: enum gs_api_kind */
	int cause;		/* gap: cause code of the analysis library */
	const char *cause_name; /* gap: printable cause */
};

struct export_info {
	const char *trace_path; /* the database file */
	int64_t origin_ns;	/* earliest start of any event; exporters write times from it */
	int64_t last_end_ns;	/* latest end of any event */
};

/* A back end. Each callback returns 0 or a negative value to stop the walk. */
struct export_ops {
	int (*begin)(void *ctx, const struct export_info *info);
	int (*track)(void *ctx, const struct export_track *track);
	int (*event)(void *ctx, const struct export_event *ev);
};

/* Time range of a trace: origin = first start, last = last end, over every
 * table with times (graph_runs where the trace has it, without the rows the
 * walk leaves out: untimed, or begun on the host). Returns 0, or -1 when the trace holds no events. */
int export_time_range(struct trace *t, int64_t *origin_ns, int64_t *last_end_ns);

/* export_walk() and export_chrome(): the trace is damaged (err says how),
 * bad input rather than a failure of ours. */
#define EXPORT_ERR_INPUT (-2)
/* export_walk(), export_chrome() and export_csv(): SQLite could not write
 * its temporary files (a full TMPDIR) or memory ran out: a failure of this
 * machine, not of the trace (err says so, trace_local_error). */
#define EXPORT_ERR_LOCAL (-3)

/* Walk a trace: begin(), every track, then every event table by table
 * (each ordered by start). Returns 0, the first negative callback result,
 * or EXPORT_ERR_INPUT (message in err) on an SQLite error - a damaged
 * trace - and, before anything is handed on, when a time of the trace
 * lies outside [0, TRACE_TIME_MAX] (err names the row); -1 (err filled)
 * when out of memory. */
int export_walk(struct trace *t, const struct export_ops *ops, void *ctx, char *err, size_t errlen);

/* ---- the raw table dump (export_csv.c) ---------------------------- */

/* export_csv() flags */
enum {
	/* keep text cells that start with = + - @ tab or CR as they are
	 * (by default a ' is put before them: see csv_write_field) */
	EXPORT_CSV_RAW = 1,
};

/* One CSV file per table of schema v1 in directory dir (created if
 * missing). Returns 0, EXPORT_ERR_INPUT (err filled: an SQLite error
 * reading the trace - a damaged trace), EXPORT_ERR_LOCAL (SQLite's
 * temporary files) or -1 (err filled: the directory or a file cannot be
 * made or written, "write error on kernels.csv: No space left on device"). The file of a table that
 * fails is removed; those written before it stay (gapscope export writes into a temporary folder,
 * out_file.h, so the target keeps its old files). One export at a time. */
int export_csv(struct trace *t, const char *dir, unsigned flags, char *err, size_t errlen);

/* csv_write_field() flags */
enum {
	CSV_FIELD_RAW = 1, /* no leading ' on a formula-like cell */
};

/* Write one CSV field, RFC 4180: quoted when it holds a comma, a quote, CR
 * or LF (quotes doubled); invalid UTF-8 bytes become U+FFFD. s may be NULL
 * (an empty field). Unless flags has CSV_FIELD_RAW, a field that starts
 * with = + - @ tab or CR gets a leading ' (inside the quotes when quoted),
 * so a spreadsheet does not run it as a formula. */
void csv_write_field(FILE *f, const char *s, size_t len, unsigned flags);

#endif
