/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_load.c - read a trace database into the analysis input arrays
 * (trace_load.h). Only reads; never analyses or prints.
 *
 * Speed matters (the 10M-kernel benchmark must stay within 3x of one
 * sqlite3 scan of the kernel table): each table is read with one plain
 * sequential scan in rowid order (no ORDER BY: walking the (device,start)
 * index costs a rowid lookup per row), into arrays pre-sized from
 * max(rowid); the rows are then sorted in memory only if they were not
 * already in (device, start) order, which the collector's append order
 * nearly always gives. kernels and api_calls, the two big tables, are read
 * each in several rowid ranges (more on machines with more cores) on
 * threads with their own read-only connections (SQLite connections must
 * not be shared across threads without its mutexes).
 *
 * Why one file of about 1,500 lines (CONVENTIONS.md: ~1,200): the ops and
 * API tables are read by jobs of one threaded scan (struct job, the job
 * queue, the split into rowid ranges), the small tables by plain loaders,
 * all through the same growable arrays (struct vec) into one gs_input whose
 * filling order trace_load_parts owns. The small tables' loaders (about 450
 * lines) are the one clean seam; they stay while issue 54 adds its table.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis.h" /* the arrays it fills; big_hint: huge pages for them */
#include "trace_load.h"
#include "trace_whatif.h"
#include "trace_callsite.h"
#include "trace_samples.h"

struct vec {
	void *p;
	size_t n, cap, elem;
};

/* Fault in [p, p + bytes) for writing in one call (MADV_POPULATE_WRITE,
 * Linux 5.14) instead of one page fault per page as the rows are written:
 * on the virtual machines we measured (bench/speed/run_report_bench.sh), fresh
 * memory costs 2-4 s of kernel time per GB when faulted page by page, a
 * quarter to a third less when populated in bulk. Each loader thread
 * populates its own slice, so this runs on all cores. Only for memory
 * that is written whole next; a kernel without it (EINVAL) simply faults
 * as before. */
static void prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t page = 4096;
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(page - 1);

	if (bytes >= ((size_t)1 << 20) && b > a)
		(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)bytes;
#endif
}

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 1024;
		void *np = realloc(v->p, nc * v->elem);
		if (!np)
			return NULL;
		v->p = np;
		v->cap = nc;
	}
	return (char *)v->p + v->elem * v->n++;
}

static int vec_reserve(struct vec *v, size_t cap)
{
	void *np;

	if (cap <= v->cap)
		return 0;
	np = realloc(v->p, cap * v->elem);
	if (!np)
		return -ENOMEM;
	big_hint((char *)np + v->n * v->elem, (cap - v->n) * v->elem);
	v->p = np;
	v->cap = cap;
	return 0;
}

/* The next row slot of a job's output: a slice of a shared buffer (fixed:
 * never grown; NULL when full) or a growable vector. */
#define JOB_SLOT(j)                                                                                \
	((j)->fixed ? ((j)->out.n < (j)->out.cap                                                   \
			   ? (void *)((char *)(j)->out.p + (j)->out.elem * (j)->out.n++)           \
			   : NULL)                                                                 \
		    : vec_push(&(j)->out))

/* one loading job: a table read on one connection */
/* Graph node ids (CUPTI's 64-bit ids) with a host-function node as a direct
 * predecessor, or cloned from such a node: sorted, read before the ops. */
struct node_set {
	int64_t *v;
	size_t n;
};

struct job {
	sqlite3 *db; /* the connection it reads on (a reader's own, or the caller's) */
	int (*fn)(struct job *j);
	struct vec out;
	int fixed;	/* out is a slice of a shared buffer: never grow or free it */
	int64_t lo, hi; /* kernels, api_calls: rowid range [lo, hi] */
	int kind;	/* ops tables: enum gs_op_kind of the rows */
	const struct node_set *host_deps; /* ops tables: GS_OPF_HOST_NODE_DEP nodes */
	uint32_t strings_end;		  /* 1 + the largest strings.id (string_ref) */
	int bad_time;	    /* a row had a time outside [0, TRACE_TIME_MAX]: the scan stopped */
	const char *bad_id; /* a row had this id column out of range: the scan stopped */
	/* ops tables: whether a row came before the one read before it in
	 * (device, start) order, checked as rows are written (a pass of its
	 * own over 10M ops cost 0.1 s with one core idle). The analysis
	 * needs that order only; ties in start keep table order, so rows
	 * written in time order are not sorted again (seconds for 10M). */
	int unsorted;
	int16_t last_device;
	int64_t last_start; /* ns; INT64_MIN before the first row */
	int rc;
	char err[256];
};

static int job_fail(struct job *j, sqlite3 *db, const char *what)
{
	snprintf(j->err, sizeof(j->err), "cannot read %s: %s", what,
		 db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

/* The most rows the trace's files can hold: every row of a table takes at
 * least 5 bytes of a page (a 2-byte cell pointer, the payload size and the
 * rowid as varints of at least a byte each, a record header of at least a
 * byte), in the database or in its write-ahead log (a recording that was
 * cut short may still have rows there). */
static int64_t rows_files_can_hold(const char *path)
{
	char wal[4096];
	struct stat st;
	int64_t bytes = 0;

	if (stat(path, &st) == 0)
		bytes += st.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &st) == 0)
		bytes += st.st_size;
	return bytes / 5 + 1;
}

/* The largest rowid of table as a capacity hint: 0 (none) when it is more
 * than the files can hold (a damaged rowid of 10^8 would reserve gigabytes). */
static int64_t max_rowid(sqlite3 *db, const char *table)
{
	char sql[96];
	sqlite3_stmt *st = NULL;
	int64_t n = 0;

	snprintf(sql, sizeof(sql), "SELECT max(rowid) FROM %s", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (n > 0 && n < (int64_t)1 << 32 && sqlite3_db_filename(db, "main") &&
	    n < rows_files_can_hold(sqlite3_db_filename(db, "main")))
		return n;
	return 0;
}

/* A string id read from a row (kernel and API names, NVTX texts, sync
 * reasons): an id the strings table does not hold - negative, or beyond
 * its largest id - becomes 0, "no string", as the analysis expects of
 * every id (analysis.h). A damaged row then shows as an unknown name,
 * instead of making the analysis size its per-name tables from the id. */
static uint32_t string_ref(int64_t id, uint32_t strings_end)
{
	return id > 0 && id < (int64_t)strings_end ? (uint32_t)id : 0;
}

static int i32(sqlite3_stmt *st, int col)
{
	return sqlite3_column_int(st, col);
}

static uint32_t u32(sqlite3_stmt *st, int col)
{
	return (uint32_t)sqlite3_column_int64(st, col);
}

static int64_t i64(sqlite3_stmt *st, int col)
{
	return sqlite3_column_int64(st, col);
}

/* Rows are handed to the loader by SQLite itself: each table is read with
 * "SELECT count(gs_row(col, ...)) FROM table", gs_row() being an
 * application-defined function registered on the connection for the
 * duration of the query, called once per row with the row's values. On a
 * 10M-row table this costs a quarter less CPU than sqlite3_step() +
 * sqlite3_column_int64() per value (no result row to build and hand
 * back per row); the values are the same (sqlite3_column_int64 is
 * sqlite3_value_int64 of the column). The function stops the query with an
 * error when the job's output is full or cannot grow. */
static int scan_rows(struct job *j, sqlite3 *db, const char *table, const char *sql, int nargs,
		     void (*row)(sqlite3_context *ctx, int argc, sqlite3_value **v))
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_create_function_v2(db, "gs_row", nargs, SQLITE_UTF8 | SQLITE_DIRECTONLY, j, row,
				       NULL, NULL, NULL) != SQLITE_OK)
		return job_fail(j, db, table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		job_fail(j, db, table);
		goto out;
	}
	if (sqlite3_bind_parameter_count(st) == 2) {
		sqlite3_bind_int64(st, 1, j->lo);
		sqlite3_bind_int64(st, 2, j->hi);
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		if (j->bad_time) /* say which row: only on this path, the scan stays lean */
			trace_time_error(db, table, "start", "end", j->err, sizeof(j->err));
		else if (j->bad_id)
			trace_range_error(db, table, j->bad_id, 0,
					  strcmp(j->bad_id, "device") ? (int64_t)UINT32_MAX : 32767,
					  0, j->err, sizeof(j->err));
		else
			job_fail(j, db, table); /* before finalize: keep SQLite's message */
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	/* unregister: the caller's own connection outlives the load */
	sqlite3_create_function_v2(db, "gs_row", nargs, SQLITE_UTF8, NULL, NULL, NULL, NULL, NULL);
	return rc;
}

static void *row_slot(sqlite3_context *ctx, struct job *j)
{
	void *p = JOB_SLOT(j);

	if (!p) {
		if (j->fixed) /* a slice sized from the rowid range: cannot happen */
			sqlite3_result_error(ctx, "more rows than the rowid range holds", -1);
		else
			sqlite3_result_error_nomem(ctx);
	}
	return p;
}

/* A time outside [0, TRACE_TIME_MAX] stops the scan (scan_rows names the
 * row): the analysis subtracts times, and start -2^63 overflowed it. */
static int row_time_bad(sqlite3_context *ctx, struct job *j, int64_t start, int64_t end)
{
	if (TRACE_TIME_OK(start) && TRACE_TIME_OK(end))
		return 0;
	j->bad_time = 1;
	sqlite3_result_error(ctx, "time out of range", -1);
	return 1;
}

/* gs_row(start, end, device, stream, correlation_id, name_id, graph_id,
 * graph_node_id, src_kind, dst_kind, is_async) -> one gs_op of j->kind */
static void row_op(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
	struct job *j = sqlite3_user_data(ctx);
	struct gs_op *o = row_slot(ctx, j);

	(void)argc;
	if (!o)
		return;
	o->start = sqlite3_value_int64(v[0]);
	o->end = sqlite3_value_int64(v[1]);
	if (row_time_bad(ctx, j, o->start, o->end))
		return;
	if (o->end < o->start)
		o->end = o->start; /* a damaged row must not make negative time */
	/* an id outside its range is refused, not cut to fit: device 65536
	 * read as int16_t became device 0, merging two devices' timelines
	 * (NULL reads as 0, as before) */
	{
		int64_t dev = sqlite3_value_int64(v[2]), stream = sqlite3_value_int64(v[3]);
		if (!TRACE_DEVICE_OK(dev) || !TRACE_STREAM_OK(stream)) {
			j->bad_id = TRACE_DEVICE_OK(dev) ? "stream" : "device";
			sqlite3_result_error(ctx, "id out of range", -1);
			return;
		}
		o->device = (int16_t)dev;
		o->stream = (uint32_t)stream;
	}
	o->corr = (uint32_t)sqlite3_value_int64(v[4]);
	o->name_id = string_ref(sqlite3_value_int64(v[5]), j->strings_end);
	o->graph_id = (uint32_t)sqlite3_value_int64(v[6]);
	o->kind = (uint8_t)j->kind;
	o->flags = 0;
	if (o->device < j->last_device || (o->device == j->last_device && o->start < j->last_start))
		j->unsorted = 1;
	j->last_device = o->device;
	j->last_start = o->start;
	if (j->host_deps && j->host_deps->n) {
		int64_t node = sqlite3_value_int64(v[7]);
		if (node &&
		    bsearch(&node, j->host_deps->v, j->host_deps->n, sizeof(int64_t), gs_cmp_i64))
			o->flags |= GS_OPF_HOST_NODE_DEP;
	}
	if (j->kind != GS_OP_KERNEL) {
		if (sqlite3_value_int(v[8]) == GS_MEM_PAGEABLE ||
		    sqlite3_value_int(v[9]) == GS_MEM_PAGEABLE)
			o->flags |= GS_OPF_PAGEABLE;
		if (sqlite3_value_int(v[10]))
			o->flags |= GS_OPF_ASYNC;
		if (j->kind == GS_OP_MEMCPY && sqlite3_value_int(v[8]) == GS_MEM_PAGEABLE)
			o->flags |= GS_OPF_PAGEABLE_SRC;
		if (j->kind == GS_OP_MEMCPY && (sqlite3_value_int(v[8]) == GS_MEM_PAGEABLE ||
						sqlite3_value_int(v[8]) == GS_MEM_PINNED))
			o->flags |= GS_OPF_HOST_SRC;
	}
}

/* kernels / memcpys / memsets -> gs_op */
static int load_ops_table(struct job *j, sqlite3 *db, const char *table, int kind)
{
	/* graph_node_id only matters when some node follows a host node: the
	 * first query leaves it out (SQLite decodes every column named, and
	 * it is the 20th of a kernel row) */
	static const char *const sql[] = {
	    "SELECT count(gs_row(start,end,device,stream,correlation_id,name_id,graph_id,"
	    "0,0,0,0)) FROM kernels WHERE rowid >= ?1 AND rowid <= ?2",
	    "SELECT count(gs_row(start,end,device,stream,correlation_id,0,graph_id,graph_node_id,"
	    "src_kind,dst_kind,is_async)) FROM memcpys",
	    "SELECT count(gs_row(start,end,device,stream,correlation_id,0,graph_id,graph_node_id,"
	    "mem_kind,0,is_async)) FROM memsets",
	    /* graph-level mode: both times 0 when CUPTI could not time the run
	     * (nothing to place on the timeline); device INT_MAX: the graph
	     * began on the host, its GPU work is on endDevice (not kept) */
	    "SELECT count(gs_row(start,end,device,stream,correlation_id,0,graph_id,0,0,0,0)) "
	    "FROM graph_runs WHERE NOT (start = 0 AND end = 0) AND device <> 2147483647",
	};

	if (!j->fixed && kind != GS_OP_KERNEL &&
	    vec_reserve(&j->out, j->out.n + (size_t)max_rowid(db, table)))
		return job_fail(j, NULL, table);
	static const char kernels_nodes[] =
	    "SELECT count(gs_row(start,end,device,stream,correlation_id,name_id,graph_id,"
	    "graph_node_id,0,0,0)) FROM kernels WHERE rowid >= ?1 AND rowid <= ?2";

	j->kind = kind;
	return scan_rows(j, db, table,
			 kind == GS_OP_KERNEL && j->host_deps && j->host_deps->n ? kernels_nodes
										 : sql[kind],
			 11, row_op);
}

static int job_kernels(struct job *j)
{
	return load_ops_table(j, j->db, "kernels", GS_OP_KERNEL);
}

static int job_copies(struct job *j)
{
	int rc = load_ops_table(j, j->db, "memcpys", GS_OP_MEMCPY);
	if (!rc)
		rc = load_ops_table(j, j->db, "memsets", GS_OP_MEMSET);
	/* schema v2; absent from v1 traces */
	if (!rc && trace_db_has_table(j->db, "graph_runs"))
		rc = load_ops_table(j, j->db, "graph_runs", GS_OP_GRAPH_RUN);
	return rc;
}

/* gs_row(start, end, correlation_id, name_id, tid) -> one gs_api */
static void row_api(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
	struct job *j = sqlite3_user_data(ctx);
	struct gs_api *a = row_slot(ctx, j);

	(void)argc;
	if (!a)
		return;
	a->start = sqlite3_value_int64(v[0]);
	a->end = sqlite3_value_int64(v[1]);
	if (row_time_bad(ctx, j, a->start, a->end))
		return;
	if (a->end < a->start)
		a->end = a->start;
	a->corr = (uint32_t)sqlite3_value_int64(v[2]);
	a->name_id = string_ref(sqlite3_value_int64(v[3]), j->strings_end);
	a->tid = (uint32_t)sqlite3_value_int64(v[4]);
}

static int job_apis(struct job *j)
{
	return scan_rows(
	    j, j->db, "api_calls",
	    "SELECT count(gs_row(start,end,correlation_id,name_id,tid)) FROM api_calls "
	    "WHERE rowid >= ?1 AND rowid <= ?2",
	    5, row_api);
}

/* A read-only connection of a reader thread's own, with trace_open's
 * defences (trace_db_open); NULL with err set when it cannot be opened. */
static sqlite3 *open_reader(struct trace *t, struct trace_watch *w, char *err, size_t errlen)
{
	sqlite3 *db = trace_db_open(t, w, err, errlen);

	if (!db)
		return NULL;
	/* a rowid-order scan reads each page once: a small page cache (the
	 * root-to-leaf path and little else) touches less fresh memory than
	 * SQLite's default 2 MB per connection */
	(void)sqlite3_exec(db, "PRAGMA cache_size=-256", NULL, NULL, NULL);
	return db;
}

/* Run one job on j->db. */
static void run_job(struct job *j)
{
	if (j->fixed) /* a slice sized from its rowid range: written whole */
		prefault(j->out.p, j->out.cap * j->out.elem);
	j->rc = j->fn(j);
}

/* The rowid ranges of the two big tables, read by a few threads that each
 * take the next range from the queue until none is left (kernels first:
 * their rows cost more to decode). With one range per thread the threads
 * finished up to 0.45 s apart on a 10M-kernel trace, one core idle
 * meanwhile; ranges of a sixteenth of the table or less leave a shorter
 * tail. */
struct job_queue {
	struct job **jobs;
	int n;
	atomic_int next;
	struct trace *t;
};

static void *queue_worker(void *arg)
{
	struct job_queue *q = arg;
	sqlite3 *db = NULL;
	struct trace_watch watch;
	char err[256] = "";
	int k;

	while ((k = atomic_fetch_add(&q->next, 1)) < q->n) {
		struct job *j = q->jobs[k];
		if (!db && !err[0])
			db = open_reader(q->t, &watch, err, sizeof(err));
		if (!db) {
			snprintf(j->err, sizeof(j->err), "%s", err);
			j->rc = -1;
			continue;
		}
		j->db = db;
		run_job(j);
		j->db = NULL;
	}
	sqlite3_close(db);
	return NULL;
}

static int cmp_op(const void *a, const void *b)
{
	const struct gs_op *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int op_before(const struct gs_op *x, const struct gs_op *y)
{
	return cmp_op(x, y) < 0;
}

/* Merge sorted b[0..nb) into sorted a[0..na), where a has room for na+nb:
 * backwards, so it is done in place without a second big array. */
static void merge_ops_into(struct gs_op *a, size_t na, const struct gs_op *b, size_t nb)
{
	size_t i = na, j = nb, k = na + nb;

	while (j > 0) {
		if (i > 0 && op_before(&b[j - 1], &a[i - 1]))
			a[--k] = a[--i];
		else
			a[--k] = b[--j];
	}
}

/* 1 + the largest strings.id (1 for an empty table) in *end, read before
 * anything that refers to strings (string_ref); -1 and err set when it is
 * unreadable. Ids beyond the rows the files can hold exist only in a
 * damaged table (the collector numbers strings from 1): those strings are
 * left out, and rows that name them show as unknown, like rows naming ids
 * the table does not hold (string_ref). Sizing the name table from such
 * an id (2^31 - 1) made every verb allocate 16 GB and run for minutes. */
static int strings_end(sqlite3 *db, uint32_t *end, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t max_id = 0, can_hold;

	if (sqlite3_prepare_v2(db, "SELECT max(id) FROM strings", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read strings: %s", sqlite3_errmsg(db));
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		max_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	can_hold = sqlite3_db_filename(db, "main")
		       ? rows_files_can_hold(sqlite3_db_filename(db, "main"))
		       : 0;
	if (max_id > can_hold)
		max_id = can_hold;
	if (max_id > ((int64_t)1 << 31) - 2) /* name ids are 32-bit in the analysis */
		max_id = ((int64_t)1 << 31) - 2;
	if (max_id < 0)
		max_id = 0;
	*end = (uint32_t)max_id + 1;
	return 0;
}

/* The strings with ids below `end` (strings_end). */
static int load_strings(sqlite3 *db, uint32_t end, struct gs_strings *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t max_id = (int64_t)end - 1, bytes = 0;
	char *arena;
	size_t used = 0;
	int rc;

	int utf8 = 1;

	/* The text is read as UTF-8 whatever the database's encoding: a
	 * UTF-16 trace read through CAST(value AS BLOB) gave each name as its
	 * first character (the UTF-16 bytes stop at the first NUL). In a
	 * UTF-8 database the blob is the text, without a conversion or check
	 * per row; elsewhere SQLite converts, and a UTF-16 code unit (2 bytes)
	 * becomes at most 3 bytes of UTF-8. */
	if (sqlite3_prepare_v2(db, "PRAGMA encoding", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		utf8 = !strcmp((const char *)sqlite3_column_text(st, 0), "UTF-8");
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT sum(length(CAST(value AS BLOB))+1) FROM strings", -1,
			       &st, NULL) != SQLITE_OK)
		goto sqlerr;
	if (sqlite3_step(st) == SQLITE_ROW)
		bytes = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (!utf8)
		bytes += bytes / 2;
	/* one block: the pointer table followed by the text arena, so the
	 * whole table is freed with one free(s->v) */
	s->n = end;
	s->v = calloc(1, s->n * sizeof(char *) + (size_t)bytes + 1);
	if (!s->v) {
		snprintf(err, errlen, "out of memory reading strings");
		return -1;
	}
	arena = (char *)(s->v + s->n);
	if (sqlite3_prepare_v2(db,
			       utf8 ? "SELECT id, CAST(value AS BLOB) FROM strings"
				    : "SELECT id, value FROM strings",
			       -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		/* text before bytes: the length of the UTF-8 form */
		const void *txt = utf8 ? sqlite3_column_blob(st, 1) : sqlite3_column_text(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		if (id <= 0 || id > max_id || used + len + 1 > (size_t)bytes + 1)
			continue;
		if (len)
			memcpy(arena + used, txt, len);
		arena[used + len] = '\0';
		s->v[id] = arena + used;
		used += len + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto sqlerr2;
	return 0;
sqlerr:
	sqlite3_finalize(st);
sqlerr2:
	snprintf(err, errlen, "cannot read strings: %s", sqlite3_errmsg(db));
	return -1;
}

static int load_syncs(sqlite3 *db, uint32_t strings_end, struct vec *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT start,end,event,tid,stream,correlation_id,api_name_id,"
			       "reason_id,coalesce(device,-1),kind,implicit FROM syncs",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_sync *s = vec_push(v);
		if (!s)
			goto fail;
		s->start = i64(st, 0);
		s->end = i64(st, 1);
		if (!TRACE_TIME_OK(s->start) || !TRACE_TIME_OK(s->end))
			goto bad_time;
		if (s->end < s->start)
			s->end = s->start;
		s->event = (uint64_t)i64(st, 2);
		s->tid = u32(st, 3);
		s->stream = u32(st, 4);
		s->corr = u32(st, 5);
		s->api_name_id = string_ref(i64(st, 6), strings_end);
		s->reason_id = string_ref(i64(st, 7), strings_end);
		if (i64(st, 8) < -1 || i64(st, 8) > 32767) /* -1: none (NULL reads so too) */
			goto bad_id;
		s->device = (int16_t)i32(st, 8);
		s->kind = (uint8_t)i32(st, 9);
		s->implicit = i32(st, 10) != 0;
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	snprintf(err, errlen, "cannot read syncs: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return -1;
bad_time:
	sqlite3_finalize(st);
	trace_time_error(db, "syncs", "start", "end", err, errlen);
	return -1;
bad_id:
	sqlite3_finalize(st);
	trace_range_error(db, "syncs", "device", -1, 32767, -1, err, errlen);
	return -1;
}

static int load_nvtx(sqlite3 *db, uint32_t strings_end, struct vec *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT start,end,kind,text_id,domain_id,tid FROM nvtx", -1, &st,
			       NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_nvtx *r = vec_push(v);
		if (!r)
			goto fail;
		r->start = i64(st, 0);
		r->end = i64(st, 1);
		if (!TRACE_TIME_OK(r->start) || !TRACE_TIME_OK(r->end))
			goto bad_time;
		if (r->end < r->start)
			r->end = r->start;
		r->kind = (uint8_t)i32(st, 2);
		r->text_id = string_ref(i64(st, 3), strings_end);
		r->domain_id = string_ref(i64(st, 4), strings_end);
		r->tid = u32(st, 5);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	snprintf(err, errlen, "cannot read nvtx: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return -1;
bad_time:
	sqlite3_finalize(st);
	trace_time_error(db, "nvtx", "start", "end", err, errlen);
	return -1;
}

/* host_ranges (imported torch.profiler operators) came with schema v2's
 * later traces: a trace without the table has no host spans. Sorted by
 * (tid, start) through its index, with each thread's running latest end. */
/* Each span's parent over spans sorted by (tid, start, longer first): the
 * latest-starting earlier span of the thread still running at its start,
 * kept on a stack. Returns 0, or -1 out of memory. */
static int hranges_nest(struct gs_hrange *h, size_t n)
{
	uint32_t *stack = NULL, top = 0, cap = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		while (top &&
		       (h[stack[top - 1]].tid != h[i].tid || h[stack[top - 1]].end <= h[i].start))
			top--;
		h[i].parent = top ? stack[top - 1] : GS_NONE;
		if (top == cap) {
			uint32_t nc = cap ? cap * 2 : 64, *ns = realloc(stack, nc * sizeof(*ns));
			if (!ns) {
				free(stack);
				return -1;
			}
			stack = ns;
			cap = nc;
		}
		stack[top++] = (uint32_t)i;
	}
	free(stack);
	return 0;
}

static int cmp_hrange(const void *a, const void *b)
{
	const struct gs_hrange *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

static int load_hranges(sqlite3 *db, uint32_t strings_end, struct vec *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!trace_db_has_table(db, "host_ranges"))
		return 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT start,end,tid,name_id FROM host_ranges"
			       " ORDER BY tid, start, end DESC",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_hrange *r = vec_push(v);
		if (!r || v->n >= GS_NONE)
			goto fail;
		r->start = i64(st, 0);
		r->end = i64(st, 1);
		if (!TRACE_TIME_OK(r->start) || !TRACE_TIME_OK(r->end))
			goto bad_time;
		if (r->end < r->start)
			r->end = r->start;
		r->tid = u32(st, 2);
		r->name_id = string_ref(i64(st, 3), strings_end);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	if (hranges_nest(v->p, v->n)) {
		snprintf(err, errlen, "out of memory nesting host_ranges");
		return -1;
	}
	return 0;
fail:
	snprintf(err, errlen, "cannot read host_ranges: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return -1;
bad_time:
	sqlite3_finalize(st);
	trace_time_error(db, "host_ranges", "start", "end", err, errlen);
	return -1;
}

/* A trace without host_ranges (the collector's): its NVTX ranges are the
 * spans its threads ran ("load_batch" inside "step"; with PyTorch's
 * emit_nvtx(), every operator). Returns 0, or -1 out of memory. */
static int hranges_from_nvtx(struct vec *vh, const struct gs_nvtx *nv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct gs_hrange *r;
		if (nv[i].kind != GS_NVTX_RANGE || !nv[i].tid || nv[i].end <= nv[i].start)
			continue;
		if (vh->n + 1 >= GS_NONE || !(r = vec_push(vh)))
			return -1;
		r->start = nv[i].start;
		r->end = nv[i].end;
		r->tid = nv[i].tid;
		r->name_id = nv[i].text_id;
	}
	if (!vh->n)
		return 0;
	qsort(vh->p, vh->n, sizeof(struct gs_hrange), cmp_hrange);
	return hranges_nest(vh->p, vh->n);
}

/* The events table came after the first schema-v1 traces (an additive
 * change): a trace without it simply has no records to resolve. */
static int load_events(sqlite3 *db, struct vec *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!trace_db_has_table(db, "events"))
		return 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT start,event,stream,coalesce(device,-1) FROM events "
			       "WHERE start IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_event *e = vec_push(v);
		if (!e)
			goto fail;
		e->start = i64(st, 0);
		if (!TRACE_TIME_OK(e->start))
			goto bad_time;
		e->event = (uint64_t)i64(st, 1);
		e->stream = u32(st, 2);
		if (i64(st, 3) < -1 || i64(st, 3) > 32767) {
			sqlite3_finalize(st);
			trace_range_error(db, "events", "device", -1, 32767, -1, err, errlen);
			return -1;
		}
		e->device = (int16_t)i32(st, 3);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	snprintf(err, errlen, "cannot read events: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return -1;
bad_time:
	sqlite3_finalize(st);
	trace_time_error(db, "events", "start", NULL, err, errlen);
	return -1;
}

/* The graph nodes whose ops get GS_OPF_HOST_NODE_DEP: a host-function node
 * is a direct predecessor of the node or of the node it was instantiated
 * from. Node ids are 64-bit (CUPTI puts the graph id in the high half), so
 * they are matched whole while the rows are read. */
static int load_host_deps(sqlite3 *db, struct node_set *hd, char *err, size_t errlen)
{
	static const char sql[] =
	    "WITH h(node) AS (SELECT e.to_node FROM graph_edges e JOIN graph_nodes n "
	    "ON n.node_id = e.from_node WHERE n.type = 3) "
	    "SELECT node FROM h UNION SELECT node_id FROM graph_nodes "
	    "WHERE original_node_id IN (SELECT node FROM h)";
	sqlite3_stmt *st = NULL;
	struct vec v = {.elem = sizeof(int64_t)};
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t *p = vec_push(&v);
		if (!p)
			goto fail;
		*p = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	if (v.n > 1) /* (qsort of a NULL array is undefined even when empty: UBSan) */
		qsort(v.p, v.n, sizeof(int64_t), gs_cmp_i64); /* UNION's order is not promised */
	hd->v = v.p;
	hd->n = v.n;
	return 0;
fail:
	snprintf(err, errlen, "cannot read graph nodes: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(v.p);
	return -1;
}

/* Schema v3: a trace recorded with --capture-range names its mode in meta
 * capture_range and holds the spans tracing was on in capture_windows
 * (outside them nothing was recorded: that time must not read as idle
 * GPU). A trace without the meta key was recorded whole: its windows, if
 * any, mean nothing and are not read. The windows come out sorted and
 * merged where they overlap or touch, as [start, end] pairs. A row with
 * a NULL or non-integer time, or end < start, says nothing about when
 * tracing was on: it is skipped and counted (the report says so); a time
 * outside [0, TRACE_TIME_MAX] is damage, refused as in every other table. */
static int load_capture_windows(struct trace *t, struct gs_input *in, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t *w = NULL;
	size_t n = 0, cap = 0;
	char *dropped;
	int rc;

	in->capture_range = trace_meta(t, "capture_range");
	if (in->capture_range && !*in->capture_range) {
		free((void *)in->capture_range);
		in->capture_range = NULL;
	}
	if (!in->capture_range)
		return 0;
	dropped = trace_meta(t, "capture.starts_skipped");
	if (dropped) {
		char *end = NULL;
		long long x = strtoll(dropped, &end, 10);
		in->capture_dropped = end != dropped && *end == '\0' && x > 0 ? (uint64_t)x : 0;
		free(dropped);
	}
	if (!trace_db_has_table(t->db, "capture_windows"))
		return 0;
	/* typeof(), not the value: sqlite3_column_int64 reads NULL as 0 */
	if (sqlite3_prepare_v2(t->db,
			       "SELECT start, end, typeof(start) = 'integer' AND typeof(end) = "
			       "'integer' FROM capture_windows ORDER BY start, end",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		if (sqlite3_column_int(st, 2) && (!TRACE_TIME_OK(a) || !TRACE_TIME_OK(b))) {
			sqlite3_finalize(st);
			free(w);
			trace_time_error(t->db, "capture_windows", "start", "end", err, errlen);
			return -1;
		}
		if (!sqlite3_column_int(st, 2) || b < a) {
			in->capture_damaged++;
			continue;
		}
		if (n && a <= w[2 * n - 1]) { /* overlaps or touches the one before */
			if (b > w[2 * n - 1])
				w[2 * n - 1] = b;
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			int64_t *nw = realloc(w, 2 * nc * sizeof(*w));
			if (!nw)
				goto fail;
			w = nw;
			cap = nc;
		}
		w[2 * n] = a;
		w[2 * n + 1] = b;
		n++;
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	in->capture_windows = w;
	in->n_capture_windows = n;
	return 0;
fail:
	snprintf(err, errlen, "cannot read capture_windows: %s", sqlite3_errmsg(t->db));
	sqlite3_finalize(st);
	free(w);
	return -1;
}

/* meta key's count (0 up to INT64_MAX), -1 absent or not one */
static int64_t meta_count(struct trace *t, const char *key)
{
	char *v = trace_meta(t, key), *end = NULL;
	long long x = -1;

	if (v) {
		errno = 0;
		x = strtoll(v, &end, 10);
		if (end == v || *end != '\0' || x < 0 || errno == ERANGE)
			x = -1;
		free(v);
	}
	return x;
}

/* meta key's ns figure (0 to 1 s), -1 absent or not one */
static int64_t meta_ns(struct trace *t, const char *key)
{
	int64_t x = meta_count(t, key);

	return x > 1000000000LL ? -1 : x;
}

/* The CPU time one sample stands for (gs_input.sample_cpu_ns): perf_event
 * signals every 1/HZ s of the thread's user time (config.sample_hz); the
 * timer, at most at the kernel's tick, so the sampled threads' CPU time over
 * the samples taken; 0 without samples or these facts, or where the threads
 * had both ("mixed": past 64 threads the timer takes over) */
static int64_t sample_cpu_ns(struct trace *t)
{
	char *clk = trace_meta(t, "samples.clock");
	int64_t hz = meta_count(t, "config.sample_hz"), cpu = meta_count(t, "samples.cpu_ns"),
		n = meta_count(t, "samples.taken"), r = 0;

	if (!clk || strncmp(clk, "mixed", 5) == 0)
		r = 0; /* which thread had which source is not kept: unknown */
	else if (strstr(clk, "perf_event") && hz > 0 && hz <= 1000000)
		r = 1000000000LL / hz;
	else if (cpu > 0 && n > 0)
		r = cpu / n;
	free(clk);
	return r;
}

/* meta calibration.* (gapscope-calibrate, schema v2 collectors): the five
 * figures the correction needs, or none (graph_node_ns and the collector's
 * callback time are informative) */
static void load_calibration(struct trace *t, struct gs_calibration *c)
{
	memset(c, 0, sizeof(*c));
	c->launch_ns = meta_ns(t, "calibration.launch_ns");
	c->legacy_launch_ns = meta_ns(t, "calibration.legacy_launch_ns");
	c->driver_launch_ns = meta_ns(t, "calibration.driver_launch_ns");
	c->kernel_ns = meta_ns(t, "calibration.kernel_ns");
	c->gpu_gap_ns = meta_ns(t, "calibration.gpu_gap_ns");
	c->graph_node_ns = meta_ns(t, "calibration.graph_node_ns");
	c->alloc_pair_ns = meta_ns(t, "calibration.alloc_pair_ns");
	c->callback_ns = meta_ns(t, "collector.callback_ns");
	{
		int64_t a = meta_ns(t, "calibration.plain_launch_ns"),
			b = meta_ns(t, "calibration.plain_legacy_launch_ns");
		c->plain_launch_ns = a >= 0 && b >= 0 ? (a + b) / 2 : -1;
		c->plain_driver_ns = meta_ns(t, "calibration.plain_driver_launch_ns");
		a = meta_ns(t, "calibration.plain_graph_launch_ns");
		b = meta_ns(t, "calibration.plain_graph_node_ns");
		c->plain_graph_ns = a >= 0 && b >= 0 ? a : -1;
		c->plain_graph_node_ns = a >= 0 && b >= 0 ? b : -1;
	}
	{
		/* all three of a kind, or none */
		int64_t a = meta_ns(t, "calibration.kernel_pitch_ns"),
			b = meta_ns(t, "calibration.plain_kernel_pitch_ns"),
			k = meta_ns(t, "calibration.tiny_kernel_ns");
		int ok = a > 0 && b > 0 && k > 0;
		c->kernel_pitch_ns = ok ? a : -1;
		c->plain_kernel_pitch_ns = ok ? b : -1;
		c->tiny_kernel_ns = ok ? k : -1;
		a = meta_ns(t, "calibration.plain_graph_pitch_ns");
		c->plain_graph_pitch_ns = ok && a > 0 ? a : -1;
	}
	{
		int64_t a = meta_ns(t, "calibration.store_graph_pitch_ns"),
			b = meta_ns(t, "calibration.plain_store_graph_pitch_ns");
		c->store_graph_node_ns = a > 0 && b > 0 ? (a > b ? a - b : 0) : -1;
	}
	c->launch_gap_ns = meta_ns(t, "calibration.launch_gap_ns");
	{
		/* both, or none */
		int64_t a = meta_ns(t, "calibration.spaced_launch_ns"),
			b = meta_ns(t, "calibration.spaced_record_ns");
		c->spaced_launch_ns = a >= 0 && b > 0 ? a : -1;
		c->spaced_record_ns = a >= 0 && b > 0 ? b : -1;
		a = meta_ns(t, "calibration.plain_spaced_launch_ns");
		c->plain_spaced_ns = c->spaced_record_ns > 0 && a > 0 ? a : -1;
	}
	c->program_spaced_ns = -1; /* the command's, from reference traces */
	c->have = c->launch_ns >= 0 && c->legacy_launch_ns >= 0 && c->driver_launch_ns >= 0 &&
		  c->kernel_ns >= 0 && c->gpu_gap_ns >= 0;
}

static void load_meta_facts(struct trace *t, struct gs_input *in)
{
	sqlite3_stmt *st = NULL;

	load_calibration(t, &in->cal);
	in->kernel_overhead_ns = meta_ns(t, "cupti_kernel_overhead_ns");
	in->sample_cpu_ns = sample_cpu_ns(t);
	in->torch_options = trace_meta(t, "import.torch_profiler_options");
	in->unwinder = trace_meta(t, "collector.unwinder");
	in->graph_launches_unseen = meta_ns(t, "import.graph_launches_unseen");
	in->ref_launch_spaced_ns =
	    meta_ns(t, "reference.launch_spaced_calls") >= GS_REF_LAUNCH_MIN_CALLS
		? meta_ns(t, "reference.launch_spaced_mean_ns")
		: -1;
	if (in->ref_launch_spaced_ns <= 0)
		in->ref_launch_spaced_ns = -1;
	if (in->graph_launches_unseen < 0)
		in->graph_launches_unseen = 0;
	if (sqlite3_prepare_v2(t->db, "SELECT cc_major FROM devices ORDER BY id LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		in->gpu_arch_major = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
}

/* A big table read as `n` rowid ranges ("parts") on threads with
 * connections of their own, each writing its own slice of one buffer sized
 * from the rowid span: part p holds the rows of rowids
 * [lo + first(p), lo + first(p + 1)), first(p) = span * p / n. */
struct split {
	struct job part[GS_LOAD_MAX_PARTS];
	int n;	     /* parts set up (1 for the one unbounded job) */
	char *buf;   /* max rows of elem bytes; NULL when the table is empty */
	int64_t max; /* rows at most (rowid span); -1: one unbounded job */
};

static int split_setup(struct split *sp, struct trace *t, const char *table,
		       int (*fn)(struct job *j), size_t elem, int nparts, char *err, size_t errlen)
{
	char sql[96];
	sqlite3_stmt *st = NULL;
	int64_t lo = 0, hi = 0;
	int h, p, any = 0;

	memset(sp, 0, sizeof(*sp));
	for (p = 0; p < GS_LOAD_MAX_PARTS; p++) {
		sp->part[p].fn = fn;
		sp->part[p].out.elem = elem;
		sp->part[p].last_device = INT16_MIN;
		sp->part[p].last_start = INT64_MIN;
	}
	/* min and max of the rowid: two b-tree descents, no scan. (Two
	 * statements: SQLite's min/max optimisation only applies to a query
	 * with a single min() or max(); "SELECT min(rowid), max(rowid)"
	 * scans the whole table.) */
	for (h = 0; h < 2; h++) {
		snprintf(sql, sizeof(sql), "SELECT %s(rowid) FROM %s", h ? "max" : "min", table);
		if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
			*(h ? &hi : &lo) = sqlite3_column_int64(st, 0);
			any++;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (any < 2)
		return 0; /* empty table: nothing to read */
	if ((uint64_t)hi - (uint64_t)lo >= (uint64_t)1 << 31 ||
	    hi - lo >= rows_files_can_hold(t->path)) {
		/* rowids too spread out to size a buffer from them (not
		 * something the collector writes; a damaged file with rowids
		 * 1 and 10^8 had a 500 KB trace allocate and fault in 3.5 GB):
		 * one unbounded job, grown as it goes, so memory follows the
		 * rows there are */
		sp->part[0].lo = INT64_MIN;
		sp->part[0].hi = INT64_MAX;
		sp->part[0].out.cap = 0;
		sp->n = 1;
		sp->max = -1;
		return 0;
	}
	sp->n = nparts < 1 ? 1 : nparts > GS_LOAD_MAX_PARTS ? GS_LOAD_MAX_PARTS : nparts;
	sp->max = hi - lo + 1;
	sp->buf = malloc((size_t)sp->max * elem);
	if (!sp->buf) {
		snprintf(err, errlen, "out of memory for %lld rows of %s", (long long)sp->max,
			 table);
		return -1;
	}
	big_hint(sp->buf, (size_t)sp->max * elem);
	for (p = 0; p < sp->n; p++) {
		struct job *j = &sp->part[p];
		/* max < 2^31 and n <= 64: the products fit in 64 bits */
		int64_t first = sp->max * p / sp->n, next = sp->max * (p + 1) / sp->n;
		j->fixed = 1;
		j->lo = lo + first;
		j->hi = lo + next - 1;
		j->out.p = sp->buf + (size_t)first * elem;
		j->out.cap = (size_t)(next - first); /* 0 when span < n: not run */
	}
	return 0;
}

/* Jobs of a split to run: the parts with rows to read (or the one
 * unbounded job). */
static int split_jobs(struct split *sp, struct job **bg)
{
	int n = 0, p;

	if (sp->max < 0) {
		bg[n++] = &sp->part[0];
		return n;
	}
	for (p = 0; p < sp->n; p++)
		if (sp->part[p].out.cap)
			bg[n++] = &sp->part[p];
	return n;
}

/* Move each part's rows down to follow the previous part's (closing the
 * holes left where rowids had gaps; nothing moves when they had none)
 * and hand the buffer over as a vector of n rows with room for max. */
static void split_take(struct split *sp, struct vec *v)
{
	size_t elem = sp->part[0].out.elem, n = 0;
	int p;

	if (sp->max < 0) { /* the unbounded job's own vector */
		*v = sp->part[0].out;
		memset(&sp->part[0].out, 0, sizeof(sp->part[0].out));
		return;
	}
	for (p = 0; p < sp->n; p++) {
		const struct job *j = &sp->part[p];
		if (j->out.n && (char *)j->out.p != sp->buf + n * elem)
			memmove(sp->buf + n * elem, j->out.p, j->out.n * elem);
		n += j->out.n;
	}
	v->p = sp->buf;
	v->n = n;
	v->cap = (size_t)sp->max;
	v->elem = elem;
	sp->buf = NULL;
}

/* Whether the ops split_take() put together are in (device, start)
 * order: each part's rows were (job.unsorted), and each part's first row
 * follows the previous part's last. */
static int split_ops_in_order(const struct split *sp, const struct gs_op *o)
{
	size_t n = 0;
	int p;

	if (sp->max < 0)
		return !sp->part[0].unsorted;
	for (p = 0; p < sp->n; p++) {
		const struct job *j = &sp->part[p];
		if (j->unsorted)
			return 0;
		if (j->out.n && n > 0 &&
		    (o[n].device < o[n - 1].device ||
		     (o[n].device == o[n - 1].device && o[n].start < o[n - 1].start)))
			return 0;
		n += j->out.n;
	}
	return 1;
}

static const char *split_err(const struct split *sp)
{
	int p;

	for (p = 0; p < sp->n; p++)
		if (sp->part[p].rc)
			return sp->part[p].err;
	return NULL;
}

/* The cores this process may run on (taskset, a container's cpuset), as
 * nproc counts them, not all the machine has. */
static int usable_cores(void)
{
	cpu_set_t set;
	long cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
								  : sysconf(_SC_NPROCESSORS_ONLN);

	return cores < 1 ? 1 : cores > 1024 ? 1024 : (int)cores;
}

/* Reader threads: one per usable core, at least 2 and at most
 * GS_LOAD_MAX_READERS (more than 16 were never measured). */
static int load_readers(void)
{
	int cores = usable_cores();

	return cores < 2 ? 2 : cores > GS_LOAD_MAX_READERS ? GS_LOAD_MAX_READERS : cores;
}

/* Rowid ranges per big table: 8 per reader thread, at least 16 and at most
 * GS_LOAD_MAX_PARTS (each range prepares a statement and descends the
 * b-tree once: well under a millisecond). */
static int load_parts_default(void)
{
	int k = 8 * load_readers();

	return k < 16 ? 16 : k > GS_LOAD_MAX_PARTS ? GS_LOAD_MAX_PARTS : k;
}

int trace_load(struct trace *t, unsigned what, struct gs_input *in, char *err, size_t errlen)
{
	return trace_load_parts(t, what, load_parts_default(), in, err, errlen);
}

static int load_parts(struct trace *t, unsigned what, int parts, struct gs_input *in, char *err,
		      size_t errlen);
static int check_sums(const struct gs_input *in, char *err, size_t errlen);

int trace_load_parts(struct trace *t, unsigned what, int parts, struct gs_input *in, char *err,
		     size_t errlen)
{
	int rc = load_parts(t, what, parts, in, err, errlen);
	size_t i;

	if (rc) {
		trace_too_long(t, err, errlen); /* the reason, where a query was stopped */
		return rc;
	}
	/* the host copies' bytes, for the verdict's what-if (pinned copies
	 * take bytes / bandwidth): only where the trace holds copies, and
	 * without them where they cannot be read (the copies then keep
	 * their durations in the replay; the report goes on) */
	for (i = 0; (what & GS_LOAD_OPS) && i < in->n_ops; i++)
		if (in->ops[i].kind == GS_OP_MEMCPY) {
			uint64_t *b = NULL;
			char e2[256];
			if (trace_load_copy_bytes(t, in, &b, e2, sizeof(e2)) == 0)
				in->op_bytes = b;
			break;
		}
	return 0;
}

static int load_parts(struct trace *t, unsigned what, int parts, struct gs_input *in, char *err,
		      size_t errlen)
{
	struct split sk, sa;
	struct job jc = {.db = t->db,
			 .fn = job_copies,
			 .out.elem = sizeof(struct gs_op),
			 .last_device = INT16_MIN,
			 .last_start = INT64_MIN};
	struct vec vk = {.elem = sizeof(struct gs_op)}, va = {.elem = sizeof(struct gs_api)};
	struct vec vs = {.elem = sizeof(struct gs_sync)}, vn = {.elem = sizeof(struct gs_nvtx)};
	struct vec ve = {.elem = sizeof(struct gs_event)}, vh = {.elem = sizeof(struct gs_hrange)};
	struct node_set hd = {NULL, 0};
	struct job *bg[2 * GS_LOAD_MAX_PARTS];
	struct job_queue q = {.jobs = bg, .t = t};
	pthread_t th[GS_LOAD_MAX_READERS];
	int started[GS_LOAD_MAX_READERS] = {0}, n_bg = 0, n_th, k, rc = -1;
	uint32_t str_end = 1;
	const char *jerr;

	memset(in, 0, sizeof(*in));
	memset(&sk, 0, sizeof(sk));
	memset(&sa, 0, sizeof(sa));
	in->kernel_overhead_ns = -1;
	/* kernels and api_calls, the two big tables, each in `parts` rowid
	 * ranges (load_parts_default()) that reader threads take from a
	 * queue; the small tables on the caller's connection meanwhile, after
	 * which this thread reads from the queue too (all of it where no
	 * thread could be started). */
	if (strings_end(t->db, &str_end, err, errlen))
		return -1;
	if ((what & GS_LOAD_OPS) && load_host_deps(t->db, &hd, err, errlen))
		return -1;
	if ((what & GS_LOAD_OPS) &&
	    split_setup(&sk, t, "kernels", job_kernels, sizeof(struct gs_op), parts, err, errlen)) {
		free(hd.v);
		return -1;
	}
	for (k = 0; k < GS_LOAD_MAX_PARTS; k++) {
		sk.part[k].host_deps = &hd;
		sk.part[k].strings_end = str_end;
	}
	jc.host_deps = &hd;
	jc.strings_end = str_end;
	if ((what & GS_LOAD_APIS) &&
	    split_setup(&sa, t, "api_calls", job_apis, sizeof(struct gs_api), parts, err, errlen)) {
		free(sk.buf);
		free(hd.v);
		return -1;
	}
	for (k = 0; k < GS_LOAD_MAX_PARTS; k++)
		sa.part[k].strings_end = str_end;
	n_bg = split_jobs(&sk, bg);
	n_bg += split_jobs(&sa, bg + n_bg);
	q.n = n_bg;
	atomic_init(&q.next, 0);
	n_th = n_bg < load_readers() ? n_bg : load_readers();
	for (k = 0; k < n_th; k++)
		started[k] = pthread_create(&th[k], NULL, queue_worker, &q) == 0;
	if (what & GS_LOAD_OPS)
		run_job(&jc);
	if ((what & GS_LOAD_STRINGS) && load_strings(t->db, str_end, &in->strings, err, errlen))
		goto join;
	if ((what & GS_LOAD_SYNCS) &&
	    (load_syncs(t->db, str_end, &vs, err, errlen) || load_events(t->db, &ve, err, errlen)))
		goto join;
	if ((what & GS_LOAD_NVTX) && (load_nvtx(t->db, str_end, &vn, err, errlen) ||
				      load_hranges(t->db, str_end, &vh, err, errlen)))
		goto join;
	if ((what & GS_LOAD_SYNCS) && (what & GS_LOAD_STRINGS) &&
	    (trace_load_callsites(t->db, in, err, errlen) ||
	     trace_load_samples(t->db, in, err, errlen)))
		goto join;
	if ((what & (GS_LOAD_APIS | GS_LOAD_SYNCS)) &&
	    (trace_load_captures(t->db, in, err, errlen) ||
	     trace_load_stalls(t->db, in, err, errlen)))
		goto join;
	if (load_capture_windows(t, in, err, errlen))
		goto join;
	load_meta_facts(t, in);
	queue_worker(&q);
	rc = 0;
join:
	for (k = 0; k < n_th; k++)
		if (started[k])
			pthread_join(th[k], NULL);
	if (rc)
		goto out;
	rc = -1;
	jerr = split_err(&sk) ? split_err(&sk) : split_err(&sa) ? split_err(&sa) : NULL;
	if (jerr || jc.rc) {
		snprintf(err, errlen, "%s", jerr ? jerr : jc.err);
		goto out;
	}
	split_take(&sa, &va);
	if (what & GS_LOAD_OPS) {
		split_take(&sk, &vk);
		if (!split_ops_in_order(&sk, vk.p))
			qsort(vk.p, vk.n, sizeof(struct gs_op), cmp_op);
		if (jc.unsorted) /* copies and sets, as row_op() met them */
			qsort(jc.out.p, jc.out.n, sizeof(struct gs_op), cmp_op);
		if (jc.out.n && vec_reserve(&vk, vk.n + jc.out.n)) {
			snprintf(err, errlen, "out of memory merging GPU operations");
			goto out;
		}
		merge_ops_into(vk.p, vk.n, jc.out.p, jc.out.n);
		in->ops = vk.p;
		in->n_ops = vk.n + jc.out.n;
		vk.p = NULL;
	}
	trace_widen_by_captures(in->captures, in->n_captures, va.p, va.n, vs.p, vs.n);
	in->apis = va.p;
	in->n_apis = va.n;
	va.p = NULL;
	in->syncs = vs.p;
	in->n_syncs = vs.n;
	vs.p = NULL;
	in->nvtx = vn.p;
	in->n_nvtx = vn.n;
	vn.p = NULL;
	in->events = ve.p;
	in->n_events = ve.n;
	ve.p = NULL;
	if (!vh.n && (what & GS_LOAD_NVTX) && hranges_from_nvtx(&vh, in->nvtx, in->n_nvtx)) {
		snprintf(err, errlen, "out of memory building host spans from NVTX ranges");
		goto out;
	}
	in->hranges = vh.p;
	in->n_hranges = vh.n;
	vh.p = NULL;
	if (check_sums(in, err, errlen) < 0)
		goto out;
	rc = 0;
out:
	free(hd.v);
	free(sk.buf); /* still set only if we failed before taking it over */
	free(sa.buf);
	free(sk.max < 0 ? sk.part[0].out.p : NULL); /* likewise an unbounded job's */
	free(sa.max < 0 ? sa.part[0].out.p : NULL);
	free(vk.p);
	free(va.p);
	free(jc.out.p);
	free(vs.p);
	free(vn.p);
	free(ve.p);
	free(vh.p);
	if (rc)
		trace_input_free(in);
	return rc;
}

/* The durations of one kind of event, added up exactly (each lies in [0,
 * 2^62]: loaders refuse other times). */
#define SUM_DURATIONS(arr, n, total)                                                               \
	do {                                                                                       \
		for (size_t k_ = 0; k_ < (n); k_++)                                                \
			(total) += (unsigned __int128)(uint64_t)((arr)[k_].end - (arr)[k_].start); \
	} while (0)

/* Every sum the report, the page, diff and export make of one kind of
 * event (the kernels' total, a graph advice's "ops" time, NVTX ranges'
 * wall, syncs' host blocked, ...) is at most the kind's total: a trace
 * whose durations of one kind add up past 2^62 ns (146 years, what no
 * recording holds) is refused here, before anything is printed - sixteen
 * kernels of 2^62 ns each made the kernel total print the int64 maximum,
 * exit 0. With each total at most 2^62, every sum of them fits int64. */
static int check_sums(const struct gs_input *in, char *err, size_t errlen)
{
	static const unsigned __int128 max = (unsigned __int128)TRACE_TIME_MAX;
	unsigned __int128 ops = 0, apis = 0, syncs = 0, nvtx = 0, hr = 0;
	const char *what = NULL;

	SUM_DURATIONS(in->ops, in->n_ops, ops);
	SUM_DURATIONS(in->apis, in->n_apis, apis);
	SUM_DURATIONS(in->syncs, in->n_syncs, syncs);
	SUM_DURATIONS(in->nvtx, in->n_nvtx, nvtx);
	SUM_DURATIONS(in->hranges, in->n_hranges, hr);
	/* the devices' GPU windows in all: the report and diff add their
	 * windows, idle and causes over devices (four devices, each with an
	 * op at 0 and one at 2^62, made "idle 9.223e+09 s", clamped) */
	{
		int64_t *lo = NULL, *hi = NULL;
		unsigned __int128 win = 0;
		if (in->n_ops) {
			lo = malloc(32768 * sizeof(*lo));
			hi = malloc(32768 * sizeof(*hi));
			if (!lo || !hi) {
				free(lo);
				free(hi);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			for (size_t d = 0; d < 32768; d++)
				lo[d] = INT64_MAX, hi[d] = INT64_MIN;
			for (size_t k = 0; k < in->n_ops; k++) {
				int d = in->ops[k].device; /* 0..32767: the loader refused others */
				if (d < 0)
					continue;
				if (in->ops[k].start < lo[d])
					lo[d] = in->ops[k].start;
				if (in->ops[k].end > hi[d])
					hi[d] = in->ops[k].end;
			}
			for (size_t d = 0; d < 32768; d++)
				if (hi[d] >= lo[d])
					win += (uint64_t)(hi[d] - lo[d]);
		}
		free(lo);
		free(hi);
		if (win > max)
			what = "the devices' GPU windows (first to last op, per device)";
	}
	if (what)
		;
	else if (ops > max)
		what = "the GPU operations (kernels, memcpys, memsets)";
	else if (apis > max)
		what = "the API calls";
	else if (syncs > max)
		what = "the syncs";
	else if (nvtx > max)
		what = "the NVTX ranges";
	else if (hr > max)
		what = "the host spans";
	if (!what)
		return 0;
	snprintf(err, errlen,
		 "damaged trace: %s last more than 2^62 ns (146 years) in all, what no recording "
		 "holds; their totals would not fit",
		 what);
	return -1;
}

void trace_input_free(struct gs_input *in)
{
	free((void *)in->ops);
	free((void *)in->apis);
	free((void *)in->syncs);
	free((void *)in->nvtx);
	free((void *)in->events);
	free((void *)in->hranges);
	free((void *)in->op_bytes);
	free((void *)in->strings.v);
	free((void *)in->torch_options);
	free((void *)in->unwinder);
	free((void *)in->capture_range);
	free((void *)in->capture_windows);
	trace_callsites_free(in);
	trace_samples_free(in);
	memset(in, 0, sizeof(*in));
}
