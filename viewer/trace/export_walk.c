/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * export_walk.c - reads a trace database row by row and hands each track
 * and event to a back end (see export.h). Shared by the Chrome exporter and
 * the HTML page so both show the same tracks and names.
 *
 * Schema v2's graph_runs (graph-level recording) is walked like a GPU op
 * table when the trace has it; v1 traces lack it and are walked as before.
 *
 * One SQL statement per table; each GPU op is joined to the API call that
 * launched it (same correlation id). Names (strings ids) are looked up once
 * per distinct id and kept for the walk, not joined into the sorted rows:
 * a trace of 1700 kernels sharing one 2 MB name made SQLite's ORDER BY
 * sorter copy the name with every row (3.5 GB in memory and temporary
 * files, 45 s for `export --format chrome --no-gaps`). The join goes through a GROUP BY on
 * api_calls so that a correlation id with several API rows still yields one launch per op, and so
 * that traces without the finalize-time indexes (a recording cut short) still get an automatic
 * index instead of a quadratic scan. No analysis happens here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "export_walk.h"

/* Per table: min and max of start and of end, read as integers the way
 * sqlite3_column_int64 reads each row (text 'abc' is 0, a real 1e300 is
 * 2^63-1), so that the range check below sees every value the walk will
 * hand on. (start and end of a well-formed trace are integers: CAST
 * changes nothing there.) */
#define RANGE_OF(table)                                                                            \
	"SELECT '" table "', min(CAST(start AS INTEGER)), max(CAST(end AS INTEGER)),"              \
	" min(CAST(end AS INTEGER)), max(CAST(start AS INTEGER)) FROM " table
/* The graph_runs rows the walk hands on, as trace_load.c loads them: both
 * times 0 is a run CUPTI could not time (nothing to place), device
 * 2147483647 a graph begun on the host (its GPU side is not kept). */
#define GRAPH_RUNS_SHOWN "NOT (start = 0 AND end = 0) AND device <> 2147483647"

/* one table per line */
/* clang-format off */
#define RANGE_V1 \
	RANGE_OF("kernels") \
	" UNION ALL " RANGE_OF("memcpys") \
	" UNION ALL " RANGE_OF("memsets") \
	" UNION ALL " RANGE_OF("api_calls") \
	" UNION ALL " RANGE_OF("nvtx") \
	" UNION ALL " RANGE_OF("syncs")
static const char sql_range[] = RANGE_V1;
static const char sql_range_graph_runs[] =
	RANGE_V1 " UNION ALL " RANGE_OF("graph_runs") " WHERE " GRAPH_RUNS_SHOWN;
/* clang-format on */

#define STREAM_TRACKS(more)                                                                        \
	"SELECT d, s, (SELECT name FROM devices WHERE id = d) FROM ("                              \
	" SELECT device AS d, stream AS s FROM kernels"                                            \
	" UNION SELECT device, stream FROM memcpys"                                                \
	" UNION SELECT device, stream FROM memsets" more ") ORDER BY d, s"
static const char sql_stream_tracks[] = STREAM_TRACKS("");
static const char sql_stream_tracks_graph_runs[] = STREAM_TRACKS(
    " UNION SELECT device, stream FROM graph_runs WHERE " GRAPH_RUNS_SHOWN);

static const char sql_thread_tracks[] = "SELECT p, t, (SELECT name FROM threads WHERE tid = t),"
					" (SELECT command_line FROM processes WHERE pid = p) FROM ("
					" SELECT pid AS p, tid AS t FROM api_calls"
					" UNION SELECT pid, tid FROM nvtx"
					" UNION SELECT pid, tid FROM syncs) ORDER BY p, t";

/* The launch of each correlation id: its earliest API call (a runtime call
 * encloses the driver call it makes). SQLite returns the bare columns of
 * the row holding min(start). */
#define LAUNCH_CTE                                                                                 \
	"WITH launch AS (SELECT correlation_id AS c, pid AS lp, tid AS lt, start AS ls,"           \
	" end AS le, min(start) FROM api_calls WHERE correlation_id IS NOT NULL"                   \
	" AND correlation_id != 0 GROUP BY correlation_id) "

/* columns 0..11 are the same for the three GPU op tables */
static const char sql_kernels[] =
    LAUNCH_CTE "SELECT k.id, k.start, k.end, k.device, k.stream, k.correlation_id,"
	       " l.c IS NOT NULL, l.lp, l.lt, l.ls, l.le, k.graph_id,"
	       " k.name_id, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y,"
	       " k.block_z, k.registers,"
	       " coalesce(k.static_shared_bytes, 0) + coalesce(k.dynamic_shared_bytes, 0)"
	       " FROM kernels k LEFT JOIN launch l ON l.c = k.correlation_id"
	       " ORDER BY k.start, k.id";

static const char sql_memcpys[] =
    LAUNCH_CTE "SELECT m.id, m.start, m.end, m.device, m.stream, m.correlation_id,"
	       " l.c IS NOT NULL, l.lp, l.lt, l.ls, l.le, m.graph_id,"
	       " m.bytes, m.copy_kind, m.src_kind, m.dst_kind"
	       " FROM memcpys m LEFT JOIN launch l ON l.c = m.correlation_id"
	       " ORDER BY m.start, m.id";

static const char sql_memsets[] =
    LAUNCH_CTE "SELECT m.id, m.start, m.end, m.device, m.stream, m.correlation_id,"
	       " l.c IS NOT NULL, l.lp, l.lt, l.ls, l.le, m.graph_id,"
	       " m.bytes, m.mem_kind"
	       " FROM memsets m LEFT JOIN launch l ON l.c = m.correlation_id"
	       " ORDER BY m.start, m.id";

/* columns 0..11 as for the op tables above */
static const char sql_graph_runs[] =
    LAUNCH_CTE "SELECT g.id, g.start, g.end, g.device, g.stream, g.correlation_id,"
	       " l.c IS NOT NULL, l.lp, l.lt, l.ls, l.le, g.graph_id"
	       " FROM graph_runs g LEFT JOIN launch l ON l.c = g.correlation_id"
	       " WHERE " GRAPH_RUNS_SHOWN " ORDER BY g.start, g.id";

static const char sql_api[] =
    "SELECT a.id, a.start, a.end, a.pid, a.tid, a.correlation_id, a.name_id,"
    " a.return_code, a.api FROM api_calls a ORDER BY a.start, a.id";

static const char sql_nvtx[] = "SELECT n.id, n.start, n.end, n.pid, n.tid, n.text_id, n.kind"
			       " FROM nvtx n ORDER BY n.start, n.id";

/* columns 8 and 9: the strings ids of the reason and of the API name */
static const char sql_syncs[] =
    "SELECT y.id, y.start, y.end, y.pid, y.tid, y.correlation_id, y.kind, y.implicit,"
    " y.reason_id, y.api_name_id, y.stream FROM syncs y ORDER BY y.start, y.id";

static const char sql_string[] = "SELECT value FROM strings WHERE id = ?";

/* The strings the walk has looked up, by strings id (open addressing):
 * each distinct id is read from the database once and its text kept until
 * the walk ends, so a name shared by many rows costs its length once. */
struct name_slot {
	int64_t id; /* strings.id */
	char *text; /* its value as text ("" when the id is not in the table), owned */
	size_t len; /* bytes of text */
	int used;   /* 1 when the slot holds an id */
};

struct names {
	sqlite3_stmt *st;	/* sql_string */
	struct name_slot *slot; /* cap slots */
	size_t cap, len;	/* cap: a power of two (0 before the first lookup) */
};

static size_t name_hash(int64_t id, size_t cap)
{
	uint64_t x = (uint64_t)id * 0x9e3779b97f4a7c15ULL; /* ids are mostly consecutive */
	return (size_t)(x >> 32 ^ x) & (cap - 1);
}

static int names_grow(struct names *n)
{
	size_t ncap = n->cap ? n->cap * 2 : 64, i;
	struct name_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < n->cap; i++) {
		size_t j;
		if (!n->slot[i].used)
			continue;
		for (j = name_hash(n->slot[i].id, ncap); ns[j].used; j = (j + 1) & (ncap - 1))
			;
		ns[j] = n->slot[i];
	}
	free(n->slot);
	n->slot = ns;
	n->cap = ncap;
	return 0;
}

static void names_free(struct names *n)
{
	size_t i;

	for (i = 0; i < n->cap; i++)
		free(n->slot[i].text);
	free(n->slot);
	sqlite3_finalize(n->st);
	memset(n, 0, sizeof(*n));
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : "";
}

/* The text of the strings id in column col of row, in *out (valid until
 * names_free): "" when the column is NULL or not an integer, or when the
 * strings table has no such id - what the LEFT JOIN on strings this
 * replaces gave. Returns 0, -1 when out of memory, or EXPORT_ERR_INPUT
 * (an SQLite error reading strings). */
static int name_of(struct names *n, struct trace *t, sqlite3_stmt *row, int col, const char **out,
		   char *err, size_t errlen)
{
	int64_t id;
	size_t j;
	int rc;

	*out = "";
	if (sqlite3_column_type(row, col) != SQLITE_INTEGER)
		return 0;
	id = sqlite3_column_int64(row, col);
	if (n->cap) {
		for (j = name_hash(id, n->cap); n->slot[j].used; j = (j + 1) & (n->cap - 1))
			if (n->slot[j].id == id) {
				*out = n->slot[j].text;
				return 0;
			}
	}
	if ((n->len + 1) * 2 > n->cap && names_grow(n) < 0)
		goto oom;
	if (!n->st && sqlite3_prepare_v2(t->db, sql_string, -1, &n->st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read trace: %s", sqlite3_errmsg(t->db));
		return EXPORT_ERR_INPUT;
	}
	sqlite3_reset(n->st);
	sqlite3_bind_int64(n->st, 1, id);
	rc = sqlite3_step(n->st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		snprintf(err, errlen, "cannot read trace: %s", sqlite3_errmsg(t->db));
		return EXPORT_ERR_INPUT;
	}
	for (j = name_hash(id, n->cap); n->slot[j].used; j = (j + 1) & (n->cap - 1))
		;
	{
		const char *v =
		    rc == SQLITE_ROW ? (const char *)sqlite3_column_text(n->st, 0) : NULL;
		size_t len = v ? (size_t)sqlite3_column_bytes(n->st, 0) : 0;
		char *text = malloc(len + 1);

		if (!text)
			goto oom;
		if (len)
			memcpy(text, v, len);
		text[len] = '\0';
		n->slot[j].id = id;
		n->slot[j].text = text;
		n->slot[j].len = len;
		n->slot[j].used = 1;
		n->len++;
		*out = text;
	}
	sqlite3_reset(n->st); /* no read lock or row kept between lookups */
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int prepare(struct trace *t, const char *sql, sqlite3_stmt **st, char *err, size_t errlen)
{
	if (sqlite3_prepare_v2(t->db, sql, -1, st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read trace: %s", sqlite3_errmsg(t->db));
		return EXPORT_ERR_INPUT;
	}
	return 0;
}

/* Step st to completion; returns 0 at SQLITE_DONE, EXPORT_ERR_INPUT on
 * error. Every SQLite error here is about the trace (a page that cannot
 * be read, a table missing): bad input, like trace_open's findings, not a
 * failure of ours (a zeroed page made export --format chrome exit 1 and
 * name the output file). */
static int step_error(struct trace *t, int rc, char *err, size_t errlen)
{
	if (rc == SQLITE_DONE)
		return 0;
	snprintf(err, errlen, "cannot read trace: %s", sqlite3_errmsg(t->db));
	return EXPORT_ERR_INPUT;
}

/* Time range over every table with times (export_time_range): 0, 1 when
 * the trace holds no times, or EXPORT_ERR_INPUT: an SQLite error, or a
 * time outside [0, TRACE_TIME_MAX] (err names the row).
 * Checked before anything is written, so the exporters then subtract and
 * add times without overflow (a damaged row with start -2^63 or end
 * 2^63-1 overflowed them). */
static int time_range(struct trace *t, int graph_runs, int64_t *origin_ns, int64_t *last_end_ns,
		      char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret = 1, rc, c;

	*origin_ns = INT64_MAX;
	*last_end_ns = 0;
	if (sqlite3_prepare_v2(t->db, graph_runs ? sql_range_graph_runs : sql_range, -1, &st,
			       NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read trace: %s", sqlite3_errmsg(t->db));
		return EXPORT_ERR_INPUT;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (c = 1; c <= 4; c++)
			if (sqlite3_column_type(st, c) != SQLITE_NULL &&
			    !TRACE_TIME_OK(sqlite3_column_int64(st, c))) {
				trace_time_error(t->db, (const char *)sqlite3_column_text(st, 0),
						 "start", "end", err, errlen);
				sqlite3_finalize(st);
				return EXPORT_ERR_INPUT;
			}
		if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			if (sqlite3_column_int64(st, 1) < *origin_ns)
				*origin_ns = sqlite3_column_int64(st, 1);
			ret = 0;
		}
		if (sqlite3_column_int64(st, 2) > *last_end_ns)
			*last_end_ns = sqlite3_column_int64(st, 2);
	}
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "cannot read trace: %s", sqlite3_errmsg(t->db));
		ret = EXPORT_ERR_INPUT;
	}
	sqlite3_finalize(st);
	return ret;
}

int export_time_range(struct trace *t, int64_t *origin_ns, int64_t *last_end_ns)
{
	char err[256];

	return time_range(t, trace_db_has_table(t->db, "graph_runs"), origin_ns, last_end_ns, err,
			  sizeof(err)) == 0
		   ? 0
		   : -1;
}

static const char *const op_tables[] = {"kernels", "memcpys", "memsets", "graph_runs"};

/* A GPU op's device (dev_ok 0) or stream id outside its range: name the
 * first such row of the op tables (trace_range_error); NULL reads as 0.
 * Returns EXPORT_ERR_INPUT. */
static int op_id_error(struct trace *t, int dev_ok, int graph_runs, char *err, size_t errlen)
{
	const char *col = dev_ok ? "stream" : "device";
	int64_t hi = dev_ok ? (int64_t)UINT32_MAX : 32767;
	size_t i, n = graph_runs ? 4 : 3;

	for (i = 0; i < n; i++) {
		char sql[320];
		sqlite3_stmt *st = NULL;
		int found;

		/* graph_runs: only the rows the walk shows (device 2147483647
		 * is a graph begun on the host, not damage) */
		snprintf(sql, sizeof(sql),
			 "SELECT 1 FROM %s WHERE coalesce(CAST(%s AS INTEGER), 0) NOT BETWEEN 0 "
			 "AND %lld%s LIMIT 1",
			 op_tables[i], col, (long long)hi, i == 3 ? " AND " GRAPH_RUNS_SHOWN : "");
		found = sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) == SQLITE_OK &&
			sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		if (found && i == 3) { /* trace_range_error reads every row */
			snprintf(err, errlen,
				 "damaged trace: a graph_runs row has a %s out of range (0 to %lld)",
				 col, (long long)hi);
			return EXPORT_ERR_INPUT;
		}
		if (found)
			break;
	}
	trace_range_error(t->db, op_tables[i < 3 ? i : 2], col, 0, hi, 0, err, errlen);
	return EXPORT_ERR_INPUT;
}

static int walk_tracks(struct trace *t, int graph_runs, const struct export_ops *ops, void *ctx,
		       char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char pname[512], tname[512];
	struct export_track tr;
	int rc, ret = 0;

	if (prepare(t, graph_runs ? sql_stream_tracks_graph_runs : sql_stream_tracks, &st, err,
		    errlen))
		return EXPORT_ERR_INPUT;
	while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&tr, 0, sizeof(tr));
		tr.kind = EXPORT_TRACK_STREAM;
		tr.pid = sqlite3_column_int64(st, 0);
		tr.tid = sqlite3_column_int64(st, 1);
		/* device and stream ids in their ranges (trace.h) before any
		 * back end sees them: the Chrome exporter's GPU process id
		 * 10^9 + device overflowed for device 2^63-1 (UBSan) */
		if (!TRACE_DEVICE_OK(tr.pid) || !TRACE_STREAM_OK(tr.tid)) {
			ret = op_id_error(t, TRACE_DEVICE_OK(tr.pid), graph_runs, err, errlen);
			break;
		}
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			snprintf(pname, sizeof(pname), "GPU %lld (%s)", (long long)tr.pid,
				 col_text(st, 2));
		else
			snprintf(pname, sizeof(pname), "GPU %lld", (long long)tr.pid);
		snprintf(tname, sizeof(tname), "stream %lld", (long long)tr.tid);
		tr.process_name = pname;
		tr.name = tname;
		ret = ops->track ? ops->track(ctx, &tr) : 0;
	}
	if (ret == 0)
		ret = step_error(t, rc, err, errlen);
	sqlite3_finalize(st);
	if (ret)
		return ret;

	if (prepare(t, sql_thread_tracks, &st, err, errlen))
		return EXPORT_ERR_INPUT;
	while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&tr, 0, sizeof(tr));
		tr.kind = EXPORT_TRACK_THREAD;
		tr.pid = sqlite3_column_int64(st, 0);
		tr.tid = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			snprintf(pname, sizeof(pname), "process %lld (%s)", (long long)tr.pid,
				 col_text(st, 3));
		else
			snprintf(pname, sizeof(pname), "process %lld", (long long)tr.pid);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL && *col_text(st, 2))
			snprintf(tname, sizeof(tname), "%s (thread %lld)", col_text(st, 2),
				 (long long)tr.tid);
		else
			snprintf(tname, sizeof(tname), "thread %lld", (long long)tr.tid);
		tr.process_name = pname;
		tr.name = tname;
		ret = ops->track ? ops->track(ctx, &tr) : 0;
	}
	if (ret == 0)
		ret = step_error(t, rc, err, errlen);
	sqlite3_finalize(st);
	return ret;
}

/* The columns shared by the three GPU op queries. */
static void gpu_op_columns(sqlite3_stmt *st, struct export_event *ev)
{
	ev->id = sqlite3_column_int64(st, 0);
	ev->start = sqlite3_column_int64(st, 1);
	ev->end = sqlite3_column_int64(st, 2);
	ev->pid = sqlite3_column_int64(st, 3);
	ev->tid = sqlite3_column_int64(st, 4);
	ev->correlation_id = sqlite3_column_int64(st, 5);
	ev->has_launch = sqlite3_column_int(st, 6);
	ev->launch_pid = sqlite3_column_int64(st, 7);
	ev->launch_tid = sqlite3_column_int64(st, 8);
	ev->launch_start = sqlite3_column_int64(st, 9);
	ev->launch_end = sqlite3_column_int64(st, 10);
	ev->graph_id = sqlite3_column_int64(st, 11);
}

static void clear_event(struct export_event *ev, enum export_event_kind kind)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->name_id = -1;
	ev->name = "";
	ev->detail = "";
	ev->api_name = "";
	ev->cause_name = "";
}

/* A row's event; names are looked up (name_of) by the caller. */
static void fill_kernel(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen)
{
	(void)buf;
	(void)buflen;
	clear_event(ev, EXPORT_EV_KERNEL);
	gpu_op_columns(st, ev);
	ev->name_id =
	    sqlite3_column_type(st, 12) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 12);
	for (int i = 0; i < 3; i++) {
		ev->grid[i] = sqlite3_column_int(st, 13 + i);
		ev->block[i] = sqlite3_column_int(st, 16 + i);
	}
	ev->registers = sqlite3_column_int(st, 19);
	ev->shared_bytes = sqlite3_column_int64(st, 20);
}

static void fill_memcpy(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen)
{
	clear_event(ev, EXPORT_EV_MEMCPY);
	gpu_op_columns(st, ev);
	ev->bytes = sqlite3_column_int64(st, 12);
	ev->copy_kind = sqlite3_column_int(st, 13);
	ev->src_kind = sqlite3_column_int(st, 14);
	ev->dst_kind = sqlite3_column_int(st, 15);
	snprintf(buf, buflen, "Memcpy %s", gs_copy_kind_name(ev->copy_kind));
	ev->name = buf;
}

static void fill_memset(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen)
{
	(void)buf;
	(void)buflen;
	clear_event(ev, EXPORT_EV_MEMSET);
	gpu_op_columns(st, ev);
	ev->bytes = sqlite3_column_int64(st, 12);
	ev->src_kind = sqlite3_column_int(st, 13);
	ev->name = "Memset";
}

static void fill_graph_run(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen)
{
	clear_event(ev, EXPORT_EV_GRAPH_RUN);
	gpu_op_columns(st, ev);
	snprintf(buf, buflen, "graph run (graph %lld)", (long long)ev->graph_id);
	ev->name = buf;
}

static void fill_api(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen)
{
	(void)buf;
	(void)buflen;
	clear_event(ev, EXPORT_EV_API);
	ev->id = sqlite3_column_int64(st, 0);
	ev->start = sqlite3_column_int64(st, 1);
	ev->end = sqlite3_column_int64(st, 2);
	ev->pid = sqlite3_column_int64(st, 3);
	ev->tid = sqlite3_column_int64(st, 4);
	ev->correlation_id = sqlite3_column_int64(st, 5);
	ev->name_id = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 6);
	ev->return_code = sqlite3_column_int64(st, 7);
	ev->api = sqlite3_column_int(st, 8);
}

static void fill_nvtx(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen)
{
	(void)buf;
	(void)buflen;
	clear_event(ev,
		    sqlite3_column_int(st, 6) == GS_NVTX_MARK ? EXPORT_EV_MARK : EXPORT_EV_NVTX);
	ev->id = sqlite3_column_int64(st, 0);
	ev->start = sqlite3_column_int64(st, 1);
	ev->end = sqlite3_column_int64(st, 2);
	ev->pid = sqlite3_column_int64(st, 3);
	ev->tid = sqlite3_column_int64(st, 4);
	ev->name_id = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
}

static void fill_sync(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen)
{
	(void)buf;
	(void)buflen;
	clear_event(ev, EXPORT_EV_SYNC);
	ev->id = sqlite3_column_int64(st, 0);
	ev->start = sqlite3_column_int64(st, 1);
	ev->end = sqlite3_column_int64(st, 2);
	ev->pid = sqlite3_column_int64(st, 3);
	ev->tid = sqlite3_column_int64(st, 4);
	ev->correlation_id = sqlite3_column_int64(st, 5);
	ev->sync_kind = sqlite3_column_int(st, 6);
	ev->implicit = sqlite3_column_int(st, 7);
	ev->stream = sqlite3_column_int64(st, 10);
	ev->name = gs_sync_kind_name(ev->sync_kind);
}

/* Per table: its query, the fill function, the columns holding strings
 * ids (-1: none) that name_of() resolves into ev->name and, for syncs,
 * ev->detail (the reason) and ev->api_name, and whether its rows are GPU
 * ops (device and stream checked) or need graph_runs (schema v2). */
static const struct {
	const char *sql;
	void (*fill)(sqlite3_stmt *st, struct export_event *ev, char *buf, size_t buflen);
	int name_col, detail_col, api_name_col;
	int gpu, v2;
} tables[] = {
    {sql_kernels, fill_kernel, 12, -1, -1, 1, 0},
    {sql_memcpys, fill_memcpy, -1, -1, -1, 1, 0},
    {sql_memsets, fill_memset, -1, -1, -1, 1, 0},
    {sql_graph_runs, fill_graph_run, -1, -1, -1, 1, 1},
    {sql_api, fill_api, 6, -1, -1, 0, 0},
    {sql_nvtx, fill_nvtx, 5, -1, -1, 0, 0},
    {sql_syncs, fill_sync, -1, 8, 9, 0, 0},
};

/* The capture windows of a trace recorded with --capture-range (meta
 * capture_range, schema v3), rows with integer times in time order; the
 * rows the report skips (a NULL or text time, end < start) are skipped
 * here too, and overlapping rows merged as trace_load.c does: Perfetto
 * drops "X" slices of one track that overlap without nesting. */
static const char sql_capture[] = "SELECT start, end, rowid FROM capture_windows WHERE "
				  "typeof(start) = 'integer' AND typeof(end) = 'integer' "
				  "ORDER BY start, end";

/* 1: the trace was recorded with --capture-range and holds its windows
 * (a trace recorded whole may hold the table; its rows mean nothing) */
static int has_capture(struct trace *t)
{
	char *m = trace_meta(t, "capture_range");
	int yes = m && *m && trace_db_has_table(t->db, "capture_windows");

	free(m);
	return yes;
}

/* Walk the capture windows: with ops NULL, check their times (outside
 * [0, TRACE_TIME_MAX]: damage, named as for every table) and widen
 * [*origin, *last] to hold them, *any = 1 where there is one; else hand
 * each merged window on as an EXPORT_EV_CAPTURE event. 0, a callback's
 * value, or EXPORT_ERR_INPUT. */
static int walk_capture(struct trace *t, const struct export_ops *ops, void *ctx, int64_t *origin,
			int64_t *last, int *any, char *err, size_t errlen)
{
	struct export_event ev;
	sqlite3_stmt *st = NULL;
	char name[48];
	int64_t n = 0;
	int ret, rc = SQLITE_DONE, have = 0;

	if ((ret = prepare(t, sql_capture, &st, err, errlen)))
		return ret;
	clear_event(&ev, EXPORT_EV_CAPTURE);
	ev.name = name;
	while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		if (!TRACE_TIME_OK(a) || !TRACE_TIME_OK(b)) {
			trace_time_error(t->db, "capture_windows", "start", "end", err, errlen);
			sqlite3_finalize(st);
			return EXPORT_ERR_INPUT;
		}
		if (b < a)
			continue;
		if (!ops) {
			if (a < *origin)
				*origin = a;
			if (b > *last)
				*last = b;
			*any = 1;
			continue;
		}
		if (have && a <= ev.end) { /* overlaps or touches the one before */
			if (b > ev.end)
				ev.end = b;
			continue;
		}
		if (have && ops->event)
			ret = ops->event(ctx, &ev);
		ev.id = ++n;
		snprintf(name, sizeof(name), "capture window %lld", (long long)n);
		ev.start = a;
		ev.end = b;
		have = 1;
	}
	if (ret == 0)
		ret = step_error(t, rc, err, errlen);
	if (ret == 0 && have && ops && ops->event)
		ret = ops->event(ctx, &ev);
	sqlite3_finalize(st);
	return ret;
}

static int walk(struct trace *t, const struct export_ops *ops, void *ctx, char *err, size_t errlen);

int export_walk(struct trace *t, const struct export_ops *ops, void *ctx, char *err, size_t errlen)
{
	int ret = walk(t, ops, ctx, err, errlen);

	if (ret == EXPORT_ERR_INPUT && trace_local_error(t->db, err, errlen))
		return EXPORT_ERR_LOCAL; /* SQLite's temporary files, not the trace */
	if (ret == EXPORT_ERR_INPUT)
		trace_too_long(t, err, errlen); /* the reason, where a query was stopped */
	return ret;
}

static int walk(struct trace *t, const struct export_ops *ops, void *ctx, char *err, size_t errlen)
{
	struct export_info info;
	struct export_event ev;
	struct names names = {0};
	char buf[128];
	size_t i;
	int ret = 0, rc = SQLITE_DONE, graph_runs = trace_db_has_table(t->db, "graph_runs");
	int capture = has_capture(t), windows = 0;

	memset(&info, 0, sizeof(info));
	info.trace_path = t->path;
	ret = time_range(t, graph_runs, &info.origin_ns, &info.last_end_ns, err, errlen);
	if (ret < 0)
		return ret;
	/* the capture windows count in the time range: a window opens before
	 * its first event (times are written from the origin) */
	if (capture &&
	    walk_capture(t, NULL, NULL, &info.origin_ns, &info.last_end_ns, &windows, err, errlen))
		return EXPORT_ERR_INPUT;
	if (ret > 0 && !windows)
		info.origin_ns = info.last_end_ns = 0; /* empty trace: still valid output */
	ret = 0;
	if (ops->begin && (ret = ops->begin(ctx, &info)) != 0)
		return ret;
	ret = walk_tracks(t, graph_runs, ops, ctx, err, errlen);
	for (i = 0; ret == 0 && i < sizeof(tables) / sizeof(tables[0]); i++) {
		sqlite3_stmt *st = NULL;

		if (tables[i].v2 && !graph_runs)
			continue;
		if (prepare(t, tables[i].sql, &st, err, errlen)) {
			ret = EXPORT_ERR_INPUT;
			break;
		}
		while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			tables[i].fill(st, &ev, buf, sizeof(buf));
			/* GPU ops: device (pid) and stream (tid) ids in their ranges
			 * (trace.h), as for the report; NULL reads as 0 */
			if (tables[i].gpu && (!TRACE_DEVICE_OK(ev.pid) || !TRACE_STREAM_OK(ev.tid))) {
				int dev_ok = TRACE_DEVICE_OK(ev.pid);
				if (tables[i].v2) /* trace_range_error would name a host-begun run */
					snprintf(err, errlen,
						 "damaged trace: graph_runs row %lld has %s %lld, "
						 "out of range (0 to %lld)",
						 (long long)ev.id, dev_ok ? "stream" : "device",
						 (long long)(dev_ok ? ev.tid : ev.pid),
						 dev_ok ? (long long)UINT32_MAX : 32767LL);
				else
					trace_range_error(t->db, op_tables[i],
							  dev_ok ? "stream" : "device", 0,
							  dev_ok ? (int64_t)UINT32_MAX : 32767, 0,
							  err, errlen);
				ret = EXPORT_ERR_INPUT;
				break;
			}
			if (tables[i].name_col >= 0)
				ret = name_of(&names, t, st, tables[i].name_col, &ev.name, err,
					      errlen);
			if (ret == 0 && tables[i].detail_col >= 0)
				ret = name_of(&names, t, st, tables[i].detail_col, &ev.detail, err,
					      errlen);
			if (ret == 0 && tables[i].api_name_col >= 0)
				ret = name_of(&names, t, st, tables[i].api_name_col, &ev.api_name,
					      err, errlen);
			if (ret == 0)
				ret = ops->event ? ops->event(ctx, &ev) : 0;
		}
		if (ret == 0)
			ret = step_error(t, rc, err, errlen);
		sqlite3_finalize(st);
	}
	if (ret == 0 && windows)
		ret = walk_capture(t, ops, ctx, NULL, NULL, NULL, err, errlen);
	names_free(&names);
	return ret;
}
