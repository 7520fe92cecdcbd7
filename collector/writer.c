/*
 * writer.c - the SQLite side of the collector: plain C records in, schema-v1
 * rows out (see gapscope/trace_format.h).
 *
 * One connection, owned by whoever holds the writer (the SQLite thread while
 * recording). One prepared statement per table, reused with bind/step/reset,
 * inside one transaction per batch (SQLite's speedtest1 pattern); kernels and
 * API calls, nearly every record, are collected and inserted 4096 rows per
 * statement instead (see "batches of rows"); WAL journal
 * with synchronous=OFF while recording: a killed application keeps every
 * committed batch (the WAL is in the page cache), only a power cut can lose
 * them. Strings are interned in a hash map here so each name is stored once.
 * Indexes, derived rows (implicit synchronisations, API columns of CUPTI's
 * sync records) and the switch back to a single-file DELETE journal happen
 * in gs_writer_finalize.
 *
 * While the pipeline runs, the row functions are called on the decode
 * thread and only log rows into chunks that the SQLite thread applies (see
 * "pipelined writing"): same rows, same order, same ids.
 *
 * It does not know CUPTI: decode.c turns activity records into the structs
 * of internal.h. On the first SQLite error (disk full, file removed, ...)
 * the writer warns once and turns every later call into a no-op: the
 * application must never notice.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "internal.h"

enum {
	ST_BEGIN,
	ST_COMMIT,
	ST_STRING,
	ST_META,
	ST_KERNEL,
	ST_API,
	ST_MEMCPY,
	ST_MEMSET,
	ST_SYNC,
	ST_CUDA_EVENT,
	ST_NVTX,
	ST_OVERHEAD,
	ST_DEVICE,
	ST_PROCESS,
	ST_THREAD,
	ST_GRAPH,
	ST_GRAPH_NODE,
	ST_GRAPH_EDGE,
	ST_GRAPH_EXEC,
	ST_GRAPH_LAUNCH,
	ST_GRAPH_RUN,
	ST_GRAPH_CAPTURED,
	ST_GRAPH_NODE_UPDATE,
	ST_STACK_FRAME, /* call sites (callsite.c) */
	ST_API_STACK,
	ST_SAMPLE, /* samples of launching threads (sampler.c) */
	ST_CAPTURE_WINDOW,
	ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN",
    [ST_COMMIT] = "COMMIT",
    [ST_STRING] = "INSERT INTO strings(id, value) VALUES(?,?)",
    [ST_META] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)",
    /* The two batch inserts are OR FAIL: a multi-row statement that may
     * ABORT (start/end are NOT NULL) makes SQLite open a statement journal
     * and check every page written against it; with FAIL it need not (a
     * failing batch fails the writer either way). 2.3% fewer instructions
     * on the SQLite thread (callgrind, bench/writer_throughput 200000). */
    [ST_KERNEL] =
	"INSERT OR FAIL INTO kernels(start, end, device, context, stream, correlation_id, "
	"name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, "
	"static_shared_bytes, dynamic_shared_bytes, local_memory_bytes, graph_id, "
	"graph_node_id, queued, submitted, launch_type, is_device_launched) "
	"SELECT * FROM gs_batch_kernels",
    [ST_API] =
	"INSERT OR FAIL INTO api_calls(api, cbid, name_id, start, end, pid, tid, correlation_id, "
	"return_code) SELECT * FROM gs_batch_api_calls",
    [ST_MEMCPY] = "INSERT INTO memcpys(start, end, device, context, stream, correlation_id, "
		  "bytes, copy_kind, src_kind, dst_kind, is_async, src_device, dst_device, "
		  "graph_id, graph_node_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_MEMSET] = "INSERT INTO memsets(start, end, device, context, stream, correlation_id, "
		  "bytes, value, mem_kind, is_async, graph_id, graph_node_id) "
		  "VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_SYNC] = "INSERT INTO syncs(start, end, kind, implicit, reason_id, api_name_id, device, "
		"context, stream, event, correlation_id, pid, tid) "
		"VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_CUDA_EVENT] = "INSERT INTO events(event, stream, device, context, correlation_id, start) "
		      "VALUES(?,?,?,?,?,?)",
    [ST_NVTX] = "INSERT INTO nvtx(start, end, kind, text_id, domain_id, category, color, pid, "
		"tid) VALUES(?,?,?,?,?,?,?,?,?)",
    [ST_OVERHEAD] = "INSERT INTO overhead(kind, start, end, object_kind, object_id) "
		    "VALUES(?,?,?,?,?)",
    [ST_CAPTURE_WINDOW] = "INSERT INTO capture_windows(start, end) VALUES(?,?)",
    [ST_DEVICE] = "INSERT OR REPLACE INTO devices(id, name, uuid, cc_major, cc_minor, sm_count, "
		  "core_clock_khz, memory_clock_khz, global_memory_bytes, l2_cache_bytes, "
		  "max_threads_per_block) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
    [ST_PROCESS] = "INSERT OR REPLACE INTO processes(pid, hostname, command_line, start_ns, "
		   "end_ns, exit_reason) VALUES(?,?,?,?,?,?)",
    [ST_THREAD] = "INSERT OR IGNORE INTO threads(tid, pid, name) VALUES(?,?,?)",
    [ST_GRAPH] = "INSERT OR REPLACE INTO graphs(graph_id, original_graph_id, device, context, "
		 "created, origin) VALUES(?,?,?,?,?,?)",
    [ST_GRAPH_NODE] = "INSERT OR REPLACE INTO graph_nodes(node_id, graph_id, type, name_id, "
		      "original_node_id, child_graph_id, grid_x, grid_y, grid_z, block_x, "
		      "block_y, block_z, bytes, created) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_GRAPH_EDGE] = "INSERT OR IGNORE INTO graph_edges(graph_id, from_node, to_node) "
		      "VALUES(?,?,?)",
    [ST_GRAPH_EXEC] = "INSERT OR REPLACE INTO graph_execs(exec_id, graph_id, device, created) "
		      "VALUES(?,?,?,?)",
    [ST_GRAPH_LAUNCH] = "INSERT INTO graph_launches(exec_id, stream, correlation_id, tid) "
			"VALUES(?,?,?,?)",
    [ST_GRAPH_RUN] = "INSERT INTO graph_runs(start, end, device, context, stream, graph_id, "
		     "correlation_id) VALUES(?,?,?,?,?,?,?)",
    /* the graph row normally exists (created when the capture began) */
    [ST_GRAPH_NODE_UPDATE] = "INSERT INTO graph_node_updates(time, kind, node_id, graph_id, "
			     "exec_id) VALUES(?,?,?,?,?)",
    [ST_GRAPH_CAPTURED] = "INSERT INTO graphs(graph_id, created, origin) VALUES(?,?,2) "
			  "ON CONFLICT(graph_id) DO UPDATE SET origin = 2",
    [ST_STACK_FRAME] = "INSERT OR IGNORE INTO stack_frames(stack_id, depth, kind, module_id, "
		       "offset, symbol_id, file_id, line, function_id) VALUES(?,?,?,?,?,?,?,?,?)",
    [ST_API_STACK] = "INSERT INTO api_stacks(correlation_id, stack_id, tid, reason, "
		     "capture_start, capture_end) VALUES(?,?,?,?,?,?)",
    [ST_SAMPLE] = "INSERT INTO samples(tid, t, stack_id) VALUES(?,?,?)",
};

/* What a statement was doing, for the one warning of a failed write. */
static const char *const stmt_what[ST_COUNT] = {
    [ST_BEGIN] = "starting a batch",
    [ST_COMMIT] = "committing a batch",
    [ST_STRING] = "storing a string",
    [ST_META] = "writing meta",
    [ST_KERNEL] = "writing kernels",
    [ST_API] = "writing API calls",
    [ST_MEMCPY] = "writing a memcpy",
    [ST_MEMSET] = "writing a memset",
    [ST_SYNC] = "writing a sync",
    [ST_CUDA_EVENT] = "writing a CUDA event record",
    [ST_NVTX] = "writing an NVTX range",
    [ST_OVERHEAD] = "writing an overhead record",
    [ST_DEVICE] = "writing a device",
    [ST_PROCESS] = "writing the process",
    [ST_THREAD] = "writing a thread",
    [ST_GRAPH] = "writing a graph",
    [ST_GRAPH_NODE] = "writing a graph node",
    [ST_GRAPH_EDGE] = "writing a graph edge",
    [ST_GRAPH_EXEC] = "writing a graph exec",
    [ST_GRAPH_LAUNCH] = "writing a graph launch",
    [ST_GRAPH_RUN] = "writing a graph run",
    [ST_GRAPH_CAPTURED] = "marking a captured graph",
    [ST_GRAPH_NODE_UPDATE] = "writing a graph node update",
    [ST_STACK_FRAME] = "writing a call-site frame",
    [ST_API_STACK] = "writing a call site",
    [ST_SAMPLE] = "writing a sample",
    [ST_CAPTURE_WINDOW] = "writing a capture window",
};

struct str_slot {
	uint64_t hash;
	int64_t id; /* 0: empty slot */
	char *s;
};

struct implicit_api {
	int64_t name_id;
	int kind;
	char reason[128];
};

/* What is bound to one prepared statement (see bind_i64). BC_TEXT only in
 * a staging cache (st == NULL, see "pipelined writing"): v is the offset of
 * the text in the chunk's text arena. */
enum { BC_UNKNOWN, BC_INT, BC_NULL, BC_TEXT };
#define BC_MAX_PARAMS 24 /* kernels: 23 */
struct gs_writer;
struct bcache {
	sqlite3_stmt *st;	      /* NULL: a staging cache (values logged, not bound) */
	struct gs_writer *owner;      /* staging caches: whose chunk takes the text */
	int64_t v[BC_MAX_PARAMS];     /* value bound to parameter i (1-based) */
	uint8_t state[BC_MAX_PARAMS]; /* BC_* */
};

/*
 * Rows of the two tables that take nearly every record (kernels, api_calls)
 * are collected here and inserted BATCH_ROWS at a time with one
 * "INSERT INTO t SELECT * FROM gs_batch_t" whose source is an eponymous
 * virtual table reading this array. One sqlite3_step per row paid SQLite's
 * per-statement work (OP_Transaction, opening and seeking a write cursor,
 * VdbeHalt, reset, freeing the statement's memory cells) for every row:
 * about a fifth of the writer's instructions for the 9-column api_calls
 * rows. The rows keep their order, so ids are the same as row-by-row
 * inserts; pending rows are inserted before every COMMIT.
 */
#define BATCH_ROWS 4096
#define BATCH_NULL INT64_MIN /* a column value stored as SQL NULL */
#define BATCH_VARIANTS 8     /* prepared INSERTs kept per batched table */
#define KERNEL_COLS 23
#define API_COLS 9
struct row_batch {
	const char *table; /* "gs_batch_kernels", ... */
	int ncol;	   /* columns per row */
	int n;		   /* rows pending */
	int cap;	   /* rows allocated at v (BATCH_ROWS in the writer) */
	uint32_t same;	   /* bit i set while column i equals row 0's (row_filled) */
	int64_t *v;	   /* cap * ncol values, BATCH_NULL = NULL */
	/* The writer's batches: INSERT statements by mask of the columns that
	 * are bound as parameters (see batch_stmt), least recently used
	 * replaced. */
	struct {
		uint32_t mask;	  /* bit i: column i is parameter ?(i+1) */
		sqlite3_stmt *st; /* NULL: slot free */
		uint64_t used;	  /* tick of last use */
	} var[BATCH_VARIANTS];
	uint64_t tick;
};

/*
 * Pipelined writing. While the pipeline runs, decoding (stage 1) and SQLite
 * (stage 2) are on two threads: stage 1 calls the gs_writer_* row functions
 * as always, but with a chunk set (gs_writer_set_chunk) they only log the
 * row - kernels and API calls into the chunk's own row arrays, every other
 * row as an `op` (statement + parameter values, text copied into the
 * chunk) - and stage 2 executes a chunk's rows with gs_writer_apply, in
 * order. String interning, the thread set, the implicit-API list and the
 * context/stream facts stay on stage 1 (ids are assigned there, once); a
 * new string is logged as a strings row in the same chunk as its first
 * user, and a chunk's rows are applied in one transaction, so no row ever
 * refers to a string that is not stored. The connection, the prepared
 * statements and their bind caches belong to stage 2 alone.
 */
#define OP_EXEC ST_COUNT /* an op whose v[0] is SQL text to sqlite3_exec */
struct op {
	int which;		      /* ST_* or OP_EXEC */
	int n;			      /* parameters */
	uint8_t state[BC_MAX_PARAMS]; /* BC_INT, BC_NULL or BC_TEXT, 1-based */
	int64_t v[BC_MAX_PARAMS];     /* values; BC_TEXT: offset in text */
};

#define CHUNK_ROWS BATCH_ROWS /* rows per table before a chunk is handed on */
#define CHUNK_OPS 4096	      /* other rows before a chunk is handed on */
#define CHUNK_TEXT (1u << 20) /* bytes of text before a chunk is handed on */
struct gs_chunk {
	struct row_batch kernels, apis; /* rows as the writer's own batches hold them */
	struct op *ops;			/* other rows, in call order */
	size_t n_ops, ops_cap;
	char *text; /* text parameters of ops, NUL-terminated */
	size_t text_len, text_cap;
};

struct gs_writer {
	sqlite3 *db;
	char path[4096];
	/* SQLite result code that stopped us, 0 while healthy. Atomic: set by
	 * the SQLite stage, read by the decode stage while pipelined. */
	_Atomic int failed;
	int in_tx;
	sqlite3_stmt *st[ST_COUNT];
	struct bcache bc[ST_COUNT]; /* bc[i].st == st[i] */
	int nparam[ST_COUNT];	    /* parameters of st[i] */
	/* While pipelined (chunk != NULL), the decode stage's row calls are
	 * logged into `chunk` through these staging caches (st == NULL). */
	struct gs_chunk *chunk;
	struct bcache stage[ST_COUNT];
	struct row_batch kernels, apis; /* pending rows (see BATCH_ROWS) */
	int tx_locked;			/* a batched row was inserted in this transaction */
	/* string interning: open addressing, power-of-two capacity */
	struct str_slot *strs;
	size_t str_cap, str_n;
	/* Last id seen for a string *address* (direct-mapped, see
	 * gs_writer_intern): CUPTI hands every record of one kernel the same
	 * name pointer. */
	struct {
		const char *p;	  /* caller's pointer */
		const char *copy; /* our copy (strs[].s) */
		int64_t id;
	} pcache[256];
	/* threads already written: open addressing set of tids (+1, 0 = empty) */
	int64_t *tids;
	size_t tid_cap, tid_n;
	long self_pid;
	int lock_fd; /* the trace file, flock()ed while we record it; -1 none */
	struct implicit_api *impl;
	size_t impl_n, impl_cap;
	/* contexts' NULL streams and non-blocking streams (gs_writer_context,
	 * gs_writer_stream): a handful per process */
	struct ctx_stream {
		uint32_t context, stream;
	} * nulls, *nonblocking;
	size_t nulls_n, nulls_cap, nb_n, nb_cap;
	struct gs_writer_stats stats;
};

/* ---------------------------------------------------------------- errors */

static void fail(struct gs_writer *w, int rc, const char *what)
{
	if (w->failed)
		return;
	w->failed = rc ? rc : SQLITE_ERROR;
	if ((rc & 0xff) == SQLITE_FULL)
		gs_warn("writer",
			"%s: disk full while %s; recording stops here, the "
			"application continues (the trace keeps what was committed)",
			w->path, what);
	else
		gs_warn("writer",
			"%s: SQLite error while %s: %s; recording stops here, the "
			"application continues",
			w->path, what, w->db ? sqlite3_errmsg(w->db) : sqlite3_errstr(rc));
	if (w->in_tx && w->db) {
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
		w->in_tx = 0;
	}
}

int gs_writer_failed(const struct gs_writer *w)
{
	return w->failed;
}

/* Run a prepared statement whose parameters are bound; reset it. */
static int step_now(struct gs_writer *w, int which, const char *what)
{
	sqlite3_stmt *st = w->st[which];
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		fail(w, rc, what);
		return -1;
	}
	w->stats.rows++;
	return 0;
}

/*
 * Bindings survive sqlite3_reset, so a parameter whose value is the one
 * already bound needs no new bind. Trace rows repeat most columns from one
 * row to the next (device, context, stream, grid, block, registers, graph
 * ids, pid, tid, ...); skipping those binds removed about a fifth of the
 * writer's instructions per record (callgrind, bench/writer_throughput).
 * Each statement keeps what is bound in `v`/`state`; text binds are never
 * cached.
 */
static inline void bind_i64(struct bcache *c, int i, int64_t v)
{
	if (c->state[i] == BC_INT && c->v[i] == v)
		return;
	if (c->st)
		sqlite3_bind_int64(c->st, i, v);
	c->state[i] = BC_INT;
	c->v[i] = v;
}

static inline void bind_null(struct bcache *c, int i)
{
	if (c->state[i] == BC_NULL)
		return;
	if (c->st)
		sqlite3_bind_null(c->st, i);
	c->state[i] = BC_NULL;
}

/* -1 (or any negative) -> NULL */
static inline void bind_opt(struct bcache *c, int i, int64_t v)
{
	if (v < 0)
		bind_null(c, i);
	else
		bind_i64(c, i, v);
}

/* string id: 0 -> NULL */
static inline void bind_sid(struct bcache *c, int i, int64_t id)
{
	if (id <= 0)
		bind_null(c, i);
	else
		bind_i64(c, i, id);
}

static void stage_text(struct bcache *c, int i, const char *s);

static inline void bind_text(struct bcache *c, int i, const char *s)
{
	if (s && !c->st) {
		stage_text(c, i, s);
	} else if (s) {
		sqlite3_bind_text(c->st, i, s, -1, SQLITE_TRANSIENT);
		c->state[i] = BC_UNKNOWN;
	} else {
		bind_null(c, i);
	}
}

/* ---------------------------------------------------------------- pipelined writing */

/* Where a row function binds: the statement itself, or while pipelined
 * the staging cache of the chunk being filled. */
static inline struct bcache *params(struct gs_writer *w, int which)
{
	return w->chunk ? &w->stage[which] : &w->bc[which];
}

static int grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t ncap = *cap ? *cap : first;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*p, ncap * elem);
	if (!n)
		return -1;
	*p = n;
	*cap = ncap;
	return 0;
}

static void stage_text(struct bcache *c, int i, const char *s)
{
	struct gs_chunk *k = c->owner->chunk;
	size_t len = strlen(s) + 1;

	if (grow((void **)&k->text, &k->text_cap, k->text_len + len, 1, 4096) != 0) {
		/* out of memory: the row gets NULL rather than a wrong text */
		c->state[i] = BC_NULL;
		return;
	}
	memcpy(k->text + k->text_len, s, len);
	c->state[i] = BC_TEXT;
	c->v[i] = (int64_t)k->text_len;
	k->text_len += len;
}

/* Log the staged parameters of statement `which` as one op of the chunk. */
static int log_op(struct gs_writer *w, int which, const struct bcache *c, int n)
{
	struct gs_chunk *k = w->chunk;
	struct op *o;

	if (grow((void **)&k->ops, &k->ops_cap, k->n_ops + 1, sizeof(*k->ops), 64) != 0)
		return -1;
	o = &k->ops[k->n_ops++];
	o->which = which;
	o->n = n;
	memcpy(o->state + 1, c->state + 1, (size_t)n);
	memcpy(o->v + 1, c->v + 1, (size_t)n * sizeof(o->v[0]));
	return 0;
}

/* A row function's last step: run the statement, or log it while
 * pipelined. */
static int step(struct gs_writer *w, int which, const char *what)
{
	if (w->chunk)
		return log_op(w, which, &w->stage[which], w->nparam[which]);
	return step_now(w, which, what);
}

/* ---------------------------------------------------------------- batches of rows */

/* The virtual table that hands a row_batch to SQLite: eponymous-only (no
 * CREATE VIRTUAL TABLE, nothing stored in the trace), read-only, full scan. */
struct batch_vtab {
	sqlite3_vtab base;
	struct row_batch *b;
};

struct batch_cursor {
	sqlite3_vtab_cursor base;
	const struct row_batch *b;
	int row;
};

static int batch_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			 sqlite3_vtab **out, char **err)
{
	struct row_batch *b = aux;
	struct batch_vtab *t;
	char sql[256];
	size_t len;
	int i, rc;

	(void)argc;
	(void)argv;
	(void)err;
	len = (size_t)snprintf(sql, sizeof(sql), "CREATE TABLE x(");
	for (i = 0; i < b->ncol && len < sizeof(sql); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%sc%d", i ? "," : "", i);
	if (len + 2 >= sizeof(sql))
		return SQLITE_ERROR;
	snprintf(sql + len, sizeof(sql) - len, ")");
	rc = sqlite3_declare_vtab(db, sql);
	if (rc != SQLITE_OK)
		return rc;
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->b = b;
	*out = &t->base;
	return SQLITE_OK;
}

static int batch_disconnect(sqlite3_vtab *t)
{
	sqlite3_free(t);
	return SQLITE_OK;
}

static int batch_best_index(sqlite3_vtab *t, sqlite3_index_info *info)
{
	info->estimatedCost = (double)BATCH_ROWS;
	info->estimatedRows = ((struct batch_vtab *)t)->b->n;
	return SQLITE_OK;
}

static int batch_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
	struct batch_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->b = ((struct batch_vtab *)t)->b;
	*out = &c->base;
	return SQLITE_OK;
}

static int batch_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int batch_filter(sqlite3_vtab_cursor *c, int idx, const char *idxs, int argc,
			sqlite3_value **argv)
{
	(void)idx;
	(void)idxs;
	(void)argc;
	(void)argv;
	((struct batch_cursor *)c)->row = 0;
	return SQLITE_OK;
}

static int batch_next(sqlite3_vtab_cursor *c)
{
	((struct batch_cursor *)c)->row++;
	return SQLITE_OK;
}

static int batch_eof(sqlite3_vtab_cursor *c)
{
	const struct batch_cursor *bc = (const struct batch_cursor *)c;
	return bc->row >= bc->b->n;
}

static int batch_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	const struct batch_cursor *bc = (const struct batch_cursor *)c;
	int64_t v = bc->b->v[(size_t)bc->row * (size_t)bc->b->ncol + (size_t)col];

	if (v == BATCH_NULL)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int batch_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
	*rowid = ((const struct batch_cursor *)c)->row;
	return SQLITE_OK;
}

static const sqlite3_module batch_module = {
    .iVersion = 1,
    .xConnect = batch_connect, /* no xCreate: eponymous-only */
    .xBestIndex = batch_best_index,
    .xDisconnect = batch_disconnect,
    .xOpen = batch_open,
    .xClose = batch_close,
    .xFilter = batch_filter,
    .xNext = batch_next,
    .xEof = batch_eof,
    .xColumn = batch_column,
    .xRowid = batch_rowid,
};

/*
 * Columns whose value is the same in every pending row (device, context,
 * graph ids, launch type, often grid/block, pid, tid, return code, ...) are
 * bound once as parameters instead of being read from the virtual table
 * row by row: SQLite's OP_Variable copies a bound value (~20 instructions)
 * where OP_VColumn calls xColumn, sqlite3_result_int64 and more (~90).
 * One prepared statement per mask of such columns; the masks repeat from
 * batch to batch, so a handful are kept (BATCH_VARIANTS). Each batch keeps
 * its mask up to date as rows are filled (row_filled).
 */
/* The INSERT for `b` with the columns of `mask` as parameters, or NULL
 * (the writer has failed). */
static sqlite3_stmt *batch_stmt(struct gs_writer *w, struct row_batch *b, int which, uint32_t mask,
				const char *what)
{
	const char *sel = strstr(stmt_sql[which], "SELECT * FROM");
	char sql[1024];
	size_t len;
	int i, slot = -1, rc;

	if (mask == 0)
		return w->st[which];
	for (i = 0; i < BATCH_VARIANTS; i++)
		if (b->var[i].st && b->var[i].mask == mask) {
			b->var[i].used = ++b->tick;
			return b->var[i].st;
		}
	for (i = 0; i < BATCH_VARIANTS && slot < 0; i++)
		if (!b->var[i].st)
			slot = i;
	if (slot < 0) /* all taken: replace the least recently used */
		for (slot = 0, i = 1; i < BATCH_VARIANTS; i++)
			if (b->var[i].used < b->var[slot].used)
				slot = i;
	len = sel ? (size_t)(sel - stmt_sql[which]) : sizeof(sql);
	if (len + 16 >= sizeof(sql)) {
		fail(w, SQLITE_ERROR, what);
		return NULL;
	}
	memcpy(sql, stmt_sql[which], len);
	len += (size_t)snprintf(sql + len, sizeof(sql) - len, "SELECT ");
	for (i = 0; i < b->ncol && len < sizeof(sql); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s%s%d", i ? "," : "",
					(mask >> i) & 1 ? "?" : "c", (mask >> i) & 1 ? i + 1 : i);
	if (len < sizeof(sql))
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, " FROM %s", b->table);
	if (len >= sizeof(sql)) {
		fail(w, SQLITE_ERROR, what);
		return NULL;
	}
	sqlite3_finalize(b->var[slot].st);
	b->var[slot].st = NULL;
	rc = sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &b->var[slot].st, NULL);
	if (rc != SQLITE_OK) {
		fail(w, rc, what);
		return NULL;
	}
	b->var[slot].mask = mask;
	b->var[slot].used = ++b->tick;
	return b->var[slot].st;
}

/* Insert the pending rows of `b` with statement `which`, the columns of
 * b->same bound as parameters. */
static int batch_flush(struct gs_writer *w, struct row_batch *b, int which, const char *what)
{
	const uint32_t mask = b->same;
	sqlite3_stmt *st;
	int rc, i;

	if (b->n == 0 || w->failed)
		return w->failed ? -1 : 0;
	st = batch_stmt(w, b, which, mask, what);
	if (!st)
		return -1;
	for (i = 0; i < b->ncol; i++)
		if ((mask >> i) & 1) {
			if (b->v[i] == BATCH_NULL)
				sqlite3_bind_null(st, i + 1);
			else
				sqlite3_bind_int64(st, i + 1, b->v[i]);
		}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	w->stats.rows += (uint64_t)b->n;
	b->n = 0;
	if (rc != SQLITE_DONE) {
		fail(w, rc, what);
		return -1;
	}
	return 0;
}

/* A row was filled in `b`: keep its `same` mask up to date. Row by row,
 * on the thread that fills the batch (the decode thread while pipelined),
 * rather than a column-wise pass over the batch on the SQLite thread at
 * flush (that pass was ~5% of the SQLite thread's time in perf, from cache
 * misses). */
static inline void row_filled(struct row_batch *b)
{
	const int64_t *row = b->v + (size_t)(b->n - 1) * (size_t)b->ncol;
	int c;

	if (b->n == 1) {
		b->same = (uint32_t)((1ull << b->ncol) - 1);
		return;
	}
	for (c = 0; c < b->ncol; c++)
		if (row[c] != b->v[c])
			b->same &= ~(1u << c);
}

static int flush_rows(struct gs_writer *w)
{
	if (batch_flush(w, &w->kernels, ST_KERNEL, "writing kernels") != 0 ||
	    batch_flush(w, &w->apis, ST_API, "writing API calls") != 0)
		return -1;
	return 0;
}

/* The next row slot of `b` (flushing a full batch first), or NULL; *in
 * says which batch holds it. While pipelined, the slot is in the chunk's
 * batch of the same table instead (the pipeline hands a chunk on once it
 * holds CHUNK_ROWS rows, so it grows only if a caller goes on without
 * asking gs_chunk_full). */
static inline int64_t *batch_row(struct gs_writer *w, struct row_batch *b, int which,
				 const char *what, struct row_batch **in)
{
	if (w->chunk) {
		b = which == ST_KERNEL ? &w->chunk->kernels : &w->chunk->apis;
		*in = b;
		if (b->n == b->cap) {
			size_t cap = (size_t)b->cap;
			if (grow((void **)&b->v, &cap, cap + 1, (size_t)b->ncol * sizeof(*b->v),
				 CHUNK_ROWS) != 0)
				return NULL;
			b->cap = (int)cap;
		}
		return b->v + (size_t)b->n++ * (size_t)b->ncol;
	}
	*in = b;
	if (b->n == b->cap && batch_flush(w, b, which, what) != 0)
		return NULL;
	return b->v + (size_t)b->n++ * (size_t)b->ncol;
}

static int batch_init(struct gs_writer *w, struct row_batch *b, const char *table, int ncol)
{
	b->table = table;
	b->ncol = ncol;
	b->n = 0;
	b->cap = BATCH_ROWS;
	b->v = malloc((size_t)BATCH_ROWS * (size_t)ncol * sizeof(*b->v));
	if (!b->v)
		return SQLITE_NOMEM;
	return sqlite3_create_module_v2(w->db, table, &batch_module, b, NULL);
}

/* ---------------------------------------------------------------- open */

static int exec(struct gs_writer *w, const char *sql, const char *what)
{
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK) {
		fail(w, rc, what);
		return -1;
	}
	return 0;
}

/* Open (creating) `path` and take an exclusive flock() on it without
 * waiting: the fd, or -1 with errno (EWOULDBLOCK: another live recording
 * holds it). A file system without flock() counts as free. flock() locks
 * are apart from the POSIX record locks SQLite takes, and the fd stays open
 * until after sqlite3_close (closing any fd of a file drops the process's
 * POSIX locks on it). */
static int claim(const char *path, int64_t run_start_ns)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	struct stat st;

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
		goto taken;
	/* a trace that a finished process of this run wrote */
	if (run_start_ns > 0 && fstat(fd, &st) == 0 && st.st_size > 0 &&
	    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec >= run_start_ns)
		goto taken;
	return fd;
taken:
	close(fd);
	errno = EWOULDBLOCK;
	return -1;
}

int gs_writer_open(struct gs_writer **out, const char *path, int64_t run_start_ns, char *err,
		   size_t errlen)
{
	struct gs_writer *w;
	char side[4200];
	int rc, i;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->self_pid = (long)getpid();

	/* Create the file ourselves first: SQLite's "unable to open database
	 * file" does not say why, errno does. A trace of the same name that
	 * another process is recording (several CUDA processes given one
	 * fixed name) is left alone: this process records to the name with
	 * its pid added instead, and says so. Any other file of that name (a
	 * trace of an earlier run) is replaced, together with its WAL and
	 * shared-memory files (stale ones would be replayed into the new
	 * database). */
	w->lock_fd = claim(w->path, run_start_ns);
	if (w->lock_fd < 0 && errno == EWOULDBLOCK) {
		char pid[24], alt[sizeof(w->path)];
		snprintf(pid, sizeof(pid), "%ld", w->self_pid);
		if (gs_trace_alt_path(path, pid, alt, sizeof(alt)) == 0 &&
		    (w->lock_fd = claim(alt, run_start_ns)) >= 0) {
			snprintf(w->path, sizeof(w->path), "%s", alt);
			gs_warn("output",
				"%s holds another process's trace of this run; this process "
				"(pid %ld) records to %s (put %%p in the output name for one "
				"trace per process)",
				path, w->self_pid, w->path);
		} else if (errno == EWOULDBLOCK) {
			errno = EBUSY;
		}
	}
	if (w->lock_fd < 0 || ftruncate(w->lock_fd, 0) != 0) {
		snprintf(err, errlen, "cannot create %s: %s", w->path, strerror(errno));
		if (w->lock_fd >= 0)
			close(w->lock_fd);
		free(w);
		return -1;
	}
	path = w->path;
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);

	/* SQLite's memory statistics take a global mutex on every malloc and
	 * free (this libsqlite3 is built with OMIT_LOOKASIDE, so that is
	 * several per insert: ~7% of the writer's instructions). Turn them off
	 * for the process. sqlite3_config only works before SQLite is first
	 * initialised and returns SQLITE_MISUSE (changing nothing) after, e.g.
	 * when the application uses SQLite itself and got there first; all the
	 * setting loses is sqlite3_memory_used() and the soft heap limit. */
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);

	/* NOMUTEX: one thread at a time uses the connection (the writer
	 * thread while recording, the finalizing thread after it is joined),
	 * so SQLite's per-call mutexes are pure cost (~15% of insert time). */
	rc = sqlite3_open_v2(
	    path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open %s as SQLite: %s", path,
			 w->db ? sqlite3_errmsg(w->db) : sqlite3_errstr(rc));
		goto out;
	}
	/* page_size before the first table; WAL while recording (readers such
	 * as `gapscope info` can look during the run); synchronous=OFF since
	 * durability against power loss is not worth a fsync per batch. 64 KiB
	 * pages and a small (8 MiB) cache measured fastest in
	 * bench/writer_throughput (fewer page splits and WAL frames; a big
	 * cache only costs page faults while it grows); checkpoints every 1
	 * GiB of WAL (16384 pages): a checkpoint copies every page a second
	 * time, and at 2048 pages (128 MiB) that copying cost a quarter of
	 * the writer's time (1.47 -> 2.0 M records/s); 1 GiB bounds the extra
	 * disk a long recording needs. */
	rc = sqlite3_exec(w->db,
			  "PRAGMA page_size=65536;"
			  "PRAGMA journal_mode=WAL;"
			  "PRAGMA synchronous=OFF;"
			  "PRAGMA temp_store=MEMORY;"
			  "PRAGMA secure_delete=OFF;"
			  "PRAGMA cache_size=-8192;"
			  "PRAGMA wal_autocheckpoint=16384;",
			  NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot write %s: %s", path, sqlite3_errmsg(w->db));
		goto out;
	}
	rc = gs_schema_create(w->db);
	if (rc != 0) {
		snprintf(err, errlen, "cannot create the trace schema in %s: %s", path,
			 sqlite3_errmsg(w->db));
		goto out;
	}
	if (batch_init(w, &w->kernels, "gs_batch_kernels", KERNEL_COLS) != SQLITE_OK ||
	    batch_init(w, &w->apis, "gs_batch_api_calls", API_COLS) != SQLITE_OK) {
		snprintf(err, errlen, "cannot set up the row batches for %s: out of memory", path);
		goto out;
	}
	for (i = 0; i < ST_COUNT; i++) {
		rc = sqlite3_prepare_v3(w->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					&w->st[i], NULL);
		if (rc != SQLITE_OK) {
			snprintf(err, errlen, "cannot prepare statement %d in %s: %s", i, path,
				 sqlite3_errmsg(w->db));
			goto out;
		}
		w->bc[i].st = w->st[i];
		w->stage[i].owner = w;
		w->nparam[i] = sqlite3_bind_parameter_count(w->st[i]);
		if (sqlite3_bind_parameter_count(w->st[i]) >= BC_MAX_PARAMS) {
			snprintf(err, errlen, "statement %d has too many parameters", i);
			goto out;
		}
	}
	w->str_cap = 1024;
	w->strs = calloc(w->str_cap, sizeof(*w->strs));
	w->tid_cap = 64;
	w->tids = calloc(w->tid_cap, sizeof(*w->tids));
	if (!w->strs || !w->tids) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	*out = w;
	return 0;
out:
	snprintf(side, sizeof(side), "%s", w->path);
	gs_writer_close(w);
	unlink(side);
	return -1;
}

const char *gs_writer_path(const struct gs_writer *w)
{
	return w->path;
}

void gs_writer_close(struct gs_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(w->st[i]);
	for (i = 0; i < BATCH_VARIANTS; i++) {
		sqlite3_finalize(w->kernels.var[i].st);
		sqlite3_finalize(w->apis.var[i].st);
	}
	if (w->db)
		sqlite3_close(w->db);
	if (w->lock_fd >= 0)
		close(w->lock_fd); /* after SQLite's own fds: see claim() */
	for (i = 0; i < w->str_cap && w->strs; i++)
		free(w->strs[i].s);
	free(w->strs);
	free(w->kernels.v);
	free(w->apis.v);
	free(w->tids);
	free(w->impl);
	free(w->nulls);
	free(w->nonblocking);
	free(w);
}

/* ---------------------------------------------------------------- batches */

int gs_writer_begin(struct gs_writer *w)
{
	if (w->failed)
		return -1;
	if (w->in_tx)
		return 0;
	if (sqlite3_step(w->st[ST_BEGIN]) != SQLITE_DONE) {
		int rc = sqlite3_errcode(w->db);
		sqlite3_reset(w->st[ST_BEGIN]);
		fail(w, rc, "starting a batch");
		return -1;
	}
	sqlite3_reset(w->st[ST_BEGIN]);
	w->in_tx = 1;
	w->tx_locked = 0;
	return 0;
}

int gs_writer_commit(struct gs_writer *w)
{
	int rc;

	if (w->failed)
		return -1;
	if (!w->in_tx)
		return 0;
	if (flush_rows(w) != 0)
		return -1;
	rc = sqlite3_step(w->st[ST_COMMIT]);
	sqlite3_reset(w->st[ST_COMMIT]);
	if (rc != SQLITE_DONE) {
		fail(w, rc, "committing a batch");
		return -1;
	}
	w->in_tx = 0;
	w->stats.batches++;
	return 0;
}

void gs_writer_get_stats(const struct gs_writer *w, struct gs_writer_stats *s)
{
	*s = w->stats;
}

/* ---------------------------------------------------------------- chunks */

struct gs_chunk *gs_chunk_new(void)
{
	struct gs_chunk *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->kernels.ncol = KERNEL_COLS;
	k->apis.ncol = API_COLS;
	k->kernels.cap = k->apis.cap = CHUNK_ROWS;
	k->kernels.v = malloc((size_t)CHUNK_ROWS * KERNEL_COLS * sizeof(int64_t));
	k->apis.v = malloc((size_t)CHUNK_ROWS * API_COLS * sizeof(int64_t));
	if (!k->kernels.v || !k->apis.v) {
		gs_chunk_free(k);
		return NULL;
	}
	return k;
}

void gs_chunk_free(struct gs_chunk *k)
{
	if (!k)
		return;
	free(k->kernels.v);
	free(k->apis.v);
	free(k->ops);
	free(k->text);
	free(k);
}

void gs_chunk_reset(struct gs_chunk *k)
{
	k->kernels.n = k->apis.n = 0;
	k->n_ops = 0;
	k->text_len = 0;
}

int gs_chunk_full(const struct gs_chunk *k)
{
	return k->kernels.n >= CHUNK_ROWS || k->apis.n >= CHUNK_ROWS || k->n_ops >= CHUNK_OPS ||
	       k->text_len >= CHUNK_TEXT;
}

void gs_writer_set_chunk(struct gs_writer *w, struct gs_chunk *k)
{
	w->chunk = k;
}

/* Insert a chunk's rows of one batched table through the writer's own
 * batch (whose virtual table SQLite reads) pointed at the chunk's array. */
static int apply_batch(struct gs_writer *w, struct row_batch *b, const struct row_batch *from,
		       int which, const char *what)
{
	int64_t *own = b->v;
	int rc;

	if (from->n == 0)
		return 0;
	b->v = from->v;
	b->n = from->n;
	b->same = from->same;
	rc = batch_flush(w, b, which, what);
	b->v = own;
	b->n = 0;
	return rc;
}

int gs_writer_apply(struct gs_writer *w, const struct gs_chunk *k)
{
	size_t i;
	int j;

	if (w->failed)
		return -1;
	/* rows batched before the pipeline started go first (none in practice) */
	if (flush_rows(w) != 0)
		return -1;
	for (i = 0; i < k->n_ops; i++) {
		const struct op *o = &k->ops[i];
		struct bcache *c;

		if (o->which == OP_EXEC) {
			if (exec(w, k->text + o->v[1], "writing a device") != 0)
				return -1;
			continue;
		}
		c = &w->bc[o->which];
		for (j = 1; j <= o->n; j++) {
			if (o->state[j] == BC_INT) {
				bind_i64(c, j, o->v[j]);
			} else if (o->state[j] == BC_TEXT) {
				/* TRANSIENT: the binding outlives the chunk's text */
				sqlite3_bind_text(c->st, j, k->text + o->v[j], -1,
						  SQLITE_TRANSIENT);
				c->state[j] = BC_UNKNOWN;
			} else {
				bind_null(c, j);
			}
		}
		if (step_now(w, o->which, stmt_what[o->which]) != 0)
			return -1;
	}
	if (apply_batch(w, &w->kernels, &k->kernels, ST_KERNEL, "writing kernels") != 0 ||
	    apply_batch(w, &w->apis, &k->apis, ST_API, "writing API calls") != 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------------- strings */

static uint64_t hash_str(const char *s, size_t *len)
{
	/* FNV-1a: kernel names are long C++ templates; a byte loop is cheap
	 * next to one SQLite insert. */
	uint64_t h = 1469598103934665603ull;
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		h ^= *p++;
		h *= 1099511628211ull;
	}
	*len = (size_t)(p - (const unsigned char *)s);
	return h;
}

static int str_grow(struct gs_writer *w)
{
	size_t ncap = w->str_cap * 2, i;
	struct str_slot *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; i < w->str_cap; i++) {
		size_t j;
		if (!w->strs[i].id)
			continue;
		for (j = w->strs[i].hash & (ncap - 1); n[j].id; j = (j + 1) & (ncap - 1))
			;
		n[j] = w->strs[i];
	}
	free(w->strs);
	w->strs = n;
	w->str_cap = ncap;
	return 0;
}

int64_t gs_writer_intern(struct gs_writer *w, const char *s)
{
	size_t len, j, pc;
	uint64_t h;
	sqlite3_stmt *st;
	char *copy;
	int64_t id;

	if (!s || w->failed)
		return 0;
	/* Kernel names are C++ templates of hundreds of bytes; hashing one per
	 * kernel record was ~6% of the writer's time. CUPTI shares one name
	 * string among all records of a kernel, so remember ids by address.
	 * The strcmp keeps this correct if the address is reused for another
	 * text (module unloaded, buffer recycled): it is much cheaper than the
	 * hash (vectorised, no multiply chain). */
	pc = ((uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull >> 56;
	if (w->pcache[pc].p == s && strcmp(w->pcache[pc].copy, s) == 0)
		return w->pcache[pc].id;
	h = hash_str(s, &len);
	for (j = h & (w->str_cap - 1); w->strs[j].id; j = (j + 1) & (w->str_cap - 1))
		if (w->strs[j].hash == h && strcmp(w->strs[j].s, s) == 0) {
			w->pcache[pc].p = s;
			w->pcache[pc].copy = w->strs[j].s;
			return w->pcache[pc].id = w->strs[j].id;
		}

	copy = malloc(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, len + 1);
	id = (int64_t)w->str_n + 1;
	if (w->chunk) {
		/* pipelined: the strings row goes in the chunk of its first user */
		struct bcache *c = &w->stage[ST_STRING];
		bind_i64(c, 1, id);
		bind_text(c, 2, copy);
		if (c->state[2] != BC_TEXT || log_op(w, ST_STRING, c, 2) != 0) {
			free(copy);
			return 0;
		}
	} else {
		st = w->st[ST_STRING];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, copy, (int)len, SQLITE_STATIC);
		if (step_now(w, ST_STRING, "storing a string") != 0) {
			free(copy);
			return 0;
		}
	}
	w->strs[j].hash = h;
	w->strs[j].id = id;
	w->strs[j].s = copy;
	w->str_n++;
	w->pcache[pc].p = s;
	w->pcache[pc].copy = copy;
	w->pcache[pc].id = id;
	if (w->str_n * 2 > w->str_cap)
		str_grow(w); /* on failure the table just gets fuller */
	return id;
}

int64_t gs_writer_string_count(const struct gs_writer *w)
{
	return (int64_t)w->str_n;
}

/* ---------------------------------------------------------------- meta */

int gs_writer_meta(struct gs_writer *w, const char *key, const char *value)
{
	struct bcache *st = params(w, ST_META);

	if (w->failed)
		return -1;
	bind_text(st, 1, key);
	bind_text(st, 2, value ? value : "");
	return step(w, ST_META, "writing meta");
}

int gs_writer_meta_int(struct gs_writer *w, const char *key, int64_t value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, value);
	return gs_writer_meta(w, key, buf);
}

/* ---------------------------------------------------------------- rows */

static void note_thread(struct gs_writer *w, int64_t tid, int64_t pid)
{
	size_t j;
	int64_t key = tid + 1;

	if (tid < 0)
		return;
	for (j = (uint64_t)tid * 0x9e3779b97f4a7c15ull >> 40 & (w->tid_cap - 1); w->tids[j];
	     j = (j + 1) & (w->tid_cap - 1))
		if (w->tids[j] == key)
			return;
	w->tids[j] = key;
	w->tid_n++;
	{
		/* A thread's name is only readable while it lives, and only for
		 * our own process; it is a best effort. */
		char name[64] = "", path[64];
		int have = 0;
		if (pid == w->self_pid) {
			FILE *f;
			snprintf(path, sizeof(path), "/proc/self/task/%" PRId64 "/comm", tid);
			f = fopen(path, "r");
			if (f) {
				if (fgets(name, sizeof(name), f)) {
					name[strcspn(name, "\n")] = '\0';
					have = 1;
				}
				fclose(f);
			}
		}
		gs_writer_thread(w, tid, pid, have ? name : NULL);
	}
	if (w->tid_n * 2 > w->tid_cap) {
		size_t ncap = w->tid_cap * 2, i;
		int64_t *n = calloc(ncap, sizeof(*n));
		if (!n)
			return;
		for (i = 0; i < w->tid_cap; i++) {
			int64_t t = w->tids[i];
			if (!t)
				continue;
			for (j = (uint64_t)(t - 1) * 0x9e3779b97f4a7c15ull >> 40 & (ncap - 1); n[j];
			     j = (j + 1) & (ncap - 1))
				;
			n[j] = t;
		}
		free(w->tids);
		w->tids = n;
		w->tid_cap = ncap;
	}
}

int gs_writer_thread(struct gs_writer *w, int64_t tid, int64_t pid, const char *name)
{
	struct bcache *st = params(w, ST_THREAD);

	if (w->failed)
		return -1;
	bind_i64(st, 1, tid);
	bind_opt(st, 2, pid);
	bind_text(st, 3, name);
	return step(w, ST_THREAD, "writing a thread");
}

/* Outside a transaction a row is inserted at once (autocommit, as a
 * single-row INSERT would be); inside one, at the next full batch or
 * COMMIT - except the transaction's first batched row, which goes in at
 * once: that takes SQLite's write lock, so a locked, read-only or vanished
 * database is still reported on the first row written, not a batch later. */
static inline int batch_done(struct gs_writer *w, struct row_batch *b, int which, const char *what)
{
	if (w->chunk)
		return 0; /* logged: gs_writer_apply inserts it */
	if (w->in_tx && w->tx_locked)
		return 0;
	w->tx_locked = w->in_tx;
	return batch_flush(w, b, which, what);
}

int gs_writer_kernel(struct gs_writer *w, const struct gs_kernel *k)
{
	struct row_batch *in;
	int64_t *v;

	if (w->failed)
		return -1;
	v = batch_row(w, &w->kernels, ST_KERNEL, "writing kernels", &in);
	if (!v)
		return -1;
	v[0] = (int64_t)k->start;
	v[1] = (int64_t)k->end;
	v[2] = k->device;
	v[3] = k->context;
	v[4] = k->stream;
	v[5] = k->correlation_id;
	v[6] = k->name_id > 0 ? k->name_id : BATCH_NULL;
	v[7] = k->grid_x;
	v[8] = k->grid_y;
	v[9] = k->grid_z;
	v[10] = k->block_x;
	v[11] = k->block_y;
	v[12] = k->block_z;
	v[13] = k->registers;
	v[14] = k->static_shared;
	v[15] = k->dynamic_shared;
	v[16] = k->local_memory;
	v[17] = k->graph_id;
	v[18] = (int64_t)k->graph_node_id;
	v[19] = k->has_latency ? (int64_t)k->queued : BATCH_NULL;
	v[20] = k->has_latency ? (int64_t)k->submitted : BATCH_NULL;
	v[21] = k->launch_type;
	v[22] = k->is_device_launched;
	row_filled(in);
	return batch_done(w, &w->kernels, ST_KERNEL, "writing kernels");
}

int gs_writer_api_call(struct gs_writer *w, const struct gs_api_call *a)
{
	struct row_batch *in;
	int64_t *v;

	if (w->failed)
		return -1;
	note_thread(w, a->tid, a->pid);
	v = batch_row(w, &w->apis, ST_API, "writing API calls", &in);
	if (!v)
		return -1;
	v[0] = a->api;
	v[1] = a->cbid;
	v[2] = a->name_id > 0 ? a->name_id : BATCH_NULL;
	v[3] = (int64_t)a->start;
	v[4] = (int64_t)a->end;
	v[5] = a->pid;
	v[6] = a->tid;
	v[7] = a->correlation_id;
	v[8] = a->return_code;
	row_filled(in);
	return batch_done(w, &w->apis, ST_API, "writing API calls");
}

int gs_writer_memcpy(struct gs_writer *w, const struct gs_memcpy *m)
{
	struct bcache *st = params(w, ST_MEMCPY);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)m->start);
	bind_i64(st, 2, (int64_t)m->end);
	bind_i64(st, 3, m->device);
	bind_i64(st, 4, m->context);
	bind_i64(st, 5, m->stream);
	bind_i64(st, 6, m->correlation_id);
	bind_i64(st, 7, (int64_t)m->bytes);
	bind_i64(st, 8, m->copy_kind);
	bind_i64(st, 9, m->src_kind);
	bind_i64(st, 10, m->dst_kind);
	bind_i64(st, 11, m->is_async ? 1 : 0);
	bind_opt(st, 12, m->src_device);
	bind_opt(st, 13, m->dst_device);
	bind_i64(st, 14, m->graph_id);
	bind_i64(st, 15, (int64_t)m->graph_node_id);
	return step(w, ST_MEMCPY, "writing a memcpy");
}

int gs_writer_memset(struct gs_writer *w, const struct gs_memset *m)
{
	struct bcache *st = params(w, ST_MEMSET);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)m->start);
	bind_i64(st, 2, (int64_t)m->end);
	bind_i64(st, 3, m->device);
	bind_i64(st, 4, m->context);
	bind_i64(st, 5, m->stream);
	bind_i64(st, 6, m->correlation_id);
	bind_i64(st, 7, (int64_t)m->bytes);
	bind_i64(st, 8, m->value);
	bind_i64(st, 9, m->mem_kind);
	bind_i64(st, 10, m->is_async ? 1 : 0);
	bind_i64(st, 11, m->graph_id);
	bind_i64(st, 12, (int64_t)m->graph_node_id);
	return step(w, ST_MEMSET, "writing a memset");
}

int gs_writer_sync(struct gs_writer *w, const struct gs_sync *s)
{
	struct bcache *st = params(w, ST_SYNC);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)s->start);
	bind_i64(st, 2, (int64_t)s->end);
	bind_i64(st, 3, s->kind);
	bind_i64(st, 4, s->implicit ? 1 : 0);
	bind_sid(st, 5, s->reason_id);
	bind_sid(st, 6, s->api_name_id);
	bind_opt(st, 7, s->device);
	bind_opt(st, 8, s->context);
	bind_opt(st, 9, s->stream);
	bind_opt(st, 10, s->event);
	bind_i64(st, 11, s->correlation_id);
	bind_opt(st, 12, s->pid);
	bind_opt(st, 13, s->tid);
	return step(w, ST_SYNC, "writing a sync");
}

int gs_writer_cuda_event(struct gs_writer *w, const struct gs_cuda_event *e)
{
	struct bcache *st = params(w, ST_CUDA_EVENT);

	if (w->failed)
		return -1;
	bind_i64(st, 1, e->event);
	bind_i64(st, 2, e->stream);
	bind_i64(st, 3, e->device);
	bind_i64(st, 4, e->context);
	bind_i64(st, 5, e->correlation_id);
	bind_opt(st, 6, e->start ? (int64_t)e->start : -1); /* 0: unknown, NULL */
	return step(w, ST_CUDA_EVENT, "writing a CUDA event record");
}

int gs_writer_nvtx(struct gs_writer *w, const struct gs_nvtx *n)
{
	struct bcache *st = params(w, ST_NVTX);

	if (w->failed)
		return -1;
	note_thread(w, n->tid, n->pid);
	bind_i64(st, 1, (int64_t)n->start);
	bind_i64(st, 2, (int64_t)n->end);
	bind_i64(st, 3, n->kind);
	bind_sid(st, 4, n->text_id);
	bind_sid(st, 5, n->domain_id);
	bind_opt(st, 6, n->category);
	bind_opt(st, 7, n->color);
	bind_opt(st, 8, n->pid);
	bind_opt(st, 9, n->tid);
	return step(w, ST_NVTX, "writing an NVTX range");
}

int gs_writer_overhead(struct gs_writer *w, const struct gs_overhead *o)
{
	struct bcache *st = params(w, ST_OVERHEAD);

	if (w->failed)
		return -1;
	bind_i64(st, 1, o->kind);
	bind_i64(st, 2, (int64_t)o->start);
	bind_i64(st, 3, (int64_t)o->end);
	bind_i64(st, 4, o->object_kind);
	bind_opt(st, 5, o->object_id);
	return step(w, ST_OVERHEAD, "writing an overhead record");
}

int gs_writer_capture_window(struct gs_writer *w, uint64_t start, uint64_t end)
{
	struct bcache *st = params(w, ST_CAPTURE_WINDOW);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)start);
	bind_i64(st, 2, (int64_t)end);
	return step(w, ST_CAPTURE_WINDOW, "writing a capture window");
}

int gs_writer_device(struct gs_writer *w, const struct gs_device *d)
{
	struct bcache *st = params(w, ST_DEVICE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, d->id);
	bind_text(st, 2, d->name);
	bind_text(st, 3, d->uuid[0] ? d->uuid : NULL);
	bind_i64(st, 4, d->cc_major);
	bind_i64(st, 5, d->cc_minor);
	bind_opt(st, 6, d->sm_count);
	bind_opt(st, 7, d->core_clock_khz);
	bind_opt(st, 8, d->memory_clock_khz);
	bind_opt(st, 9, d->global_memory_bytes);
	bind_opt(st, 10, d->l2_cache_bytes);
	bind_opt(st, 11, d->max_threads_per_block);
	return step(w, ST_DEVICE, "writing a device");
}

int gs_writer_device_memory_clock(struct gs_writer *w, uint32_t device, int64_t khz)
{
	char sql[128];

	if (w->failed)
		return -1;
	snprintf(sql, sizeof(sql),
		 "UPDATE devices SET memory_clock_khz = %" PRId64 " WHERE id = %" PRIu32 ";", khz,
		 device);
	if (w->chunk) {
		struct bcache c; /* a staging cache for this one text */
		memset(&c, 0, sizeof(c));
		c.owner = w;
		bind_text(&c, 1, sql);
		if (c.state[1] != BC_TEXT)
			return -1;
		return log_op(w, OP_EXEC, &c, 1);
	}
	return exec(w, sql, "writing a device");
}

int gs_writer_process(struct gs_writer *w, const struct gs_process *p)
{
	struct bcache *st = params(w, ST_PROCESS);

	if (w->failed)
		return -1;
	bind_i64(st, 1, p->pid);
	bind_text(st, 2, p->hostname);
	bind_text(st, 3, p->command_line);
	bind_i64(st, 4, (int64_t)p->start_ns);
	if (p->end_ns)
		bind_i64(st, 5, (int64_t)p->end_ns);
	else
		bind_null(st, 5);
	bind_text(st, 6, p->exit_reason);
	return step(w, ST_PROCESS, "writing the process");
}

int gs_writer_graph(struct gs_writer *w, const struct gs_graph *g)
{
	struct bcache *st = params(w, ST_GRAPH);

	if (w->failed)
		return -1;
	bind_i64(st, 1, g->graph_id);
	bind_opt(st, 2, g->original_graph_id);
	bind_opt(st, 3, g->device);
	bind_opt(st, 4, g->context);
	bind_i64(st, 5, (int64_t)g->created);
	bind_i64(st, 6, g->origin);
	return step(w, ST_GRAPH, "writing a graph");
}

int gs_writer_graph_node(struct gs_writer *w, const struct gs_graph_node *n)
{
	struct bcache *st = params(w, ST_GRAPH_NODE);
	int i;

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)n->node_id);
	bind_i64(st, 2, n->graph_id);
	bind_opt(st, 3, n->type);
	bind_sid(st, 4, n->name_id);
	bind_opt(st, 5, n->original_node_id);
	bind_opt(st, 6, n->child_graph_id);
	for (i = 0; i < 3; i++) {
		bind_opt(st, 7 + i, n->grid[i]);
		bind_opt(st, 10 + i, n->block[i]);
	}
	bind_opt(st, 13, n->bytes);
	bind_i64(st, 14, (int64_t)n->created);
	return step(w, ST_GRAPH_NODE, "writing a graph node");
}

int gs_writer_graph_edge(struct gs_writer *w, uint32_t graph_id, uint64_t from, uint64_t to)
{
	struct bcache *st = params(w, ST_GRAPH_EDGE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, graph_id);
	bind_i64(st, 2, (int64_t)from);
	bind_i64(st, 3, (int64_t)to);
	return step(w, ST_GRAPH_EDGE, "writing a graph edge");
}

int gs_writer_graph_exec(struct gs_writer *w, uint32_t exec_id, int64_t graph_id, int64_t device,
			 uint64_t created)
{
	struct bcache *st = params(w, ST_GRAPH_EXEC);

	if (w->failed)
		return -1;
	bind_i64(st, 1, exec_id);
	bind_opt(st, 2, graph_id);
	bind_opt(st, 3, device);
	bind_i64(st, 4, (int64_t)created);
	return step(w, ST_GRAPH_EXEC, "writing a graph exec");
}

int gs_writer_graph_launch(struct gs_writer *w, const struct gs_graph_launch *l)
{
	struct bcache *st = params(w, ST_GRAPH_LAUNCH);

	if (w->failed)
		return -1;
	bind_i64(st, 1, l->exec_id);
	bind_opt(st, 2, l->stream);
	bind_i64(st, 3, l->correlation_id);
	bind_opt(st, 4, l->tid);
	return step(w, ST_GRAPH_LAUNCH, "writing a graph launch");
}

int gs_writer_graph_run(struct gs_writer *w, const struct gs_graph_run *g)
{
	struct bcache *st = params(w, ST_GRAPH_RUN);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)g->start);
	bind_i64(st, 2, (int64_t)g->end);
	bind_i64(st, 3, g->device);
	bind_i64(st, 4, g->context);
	bind_i64(st, 5, g->stream);
	bind_i64(st, 6, g->graph_id);
	bind_i64(st, 7, g->correlation_id);
	return step(w, ST_GRAPH_RUN, "writing a graph run");
}

static int ctx_stream_add(struct ctx_stream **a, size_t *n, size_t *cap, uint32_t context,
			  uint32_t stream)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*a)[i].context == context && (*a)[i].stream == stream)
			return 0;
	if (grow((void **)a, cap, *n + 1, sizeof(**a), 8) != 0)
		return -1;
	(*a)[*n].context = context;
	(*a)[*n].stream = stream;
	(*n)++;
	return 1;
}

int gs_writer_context(struct gs_writer *w, uint32_t context, uint32_t device, uint32_t null_stream)
{
	char key[64];
	int rc;

	(void)device;
	rc = ctx_stream_add(&w->nulls, &w->nulls_n, &w->nulls_cap, context, null_stream);
	if (rc <= 0)
		return rc;
	snprintf(key, sizeof(key), "context.%" PRIu32 ".null_stream", context);
	return gs_writer_meta_int(w, key, null_stream);
}

int gs_writer_stream(struct gs_writer *w, uint32_t context, uint32_t stream, int non_blocking)
{
	if (!non_blocking)
		return 0;
	return ctx_stream_add(&w->nonblocking, &w->nb_n, &w->nb_cap, context, stream) < 0 ? -1 : 0;
}

int gs_writer_graph_captured(struct gs_writer *w, uint32_t graph_id, uint64_t when)
{
	struct bcache *st = params(w, ST_GRAPH_CAPTURED);

	if (w->failed)
		return -1;
	bind_i64(st, 1, graph_id);
	bind_i64(st, 2, (int64_t)when);
	return step(w, ST_GRAPH_CAPTURED, "marking a captured graph");
}

int gs_writer_graph_node_update(struct gs_writer *w, uint64_t time, int kind, uint64_t node_id,
				int64_t graph_id, int64_t exec_id)
{
	struct bcache *st = params(w, ST_GRAPH_NODE_UPDATE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, (int64_t)time);
	bind_i64(st, 2, kind);
	bind_i64(st, 3, (int64_t)node_id);
	bind_opt(st, 4, graph_id);
	bind_opt(st, 5, exec_id);
	return step(w, ST_GRAPH_NODE_UPDATE, "writing a graph node update");
}

/* ---------------------------------------------------------------- call sites */

/* Rows of callsite.c's tables (see callsite.h); interning and symbols are
 * done by the caller. */
int gs_writer_stack_frame(struct gs_writer *w, int64_t stack_id, int depth, int kind,
			  int64_t module_id, int64_t offset, int64_t symbol_id, int64_t file_id,
			  int64_t line, int64_t function_id)
{
	struct bcache *st = params(w, ST_STACK_FRAME);

	if (w->failed)
		return -1;
	bind_i64(st, 1, stack_id);
	bind_i64(st, 2, depth);
	bind_i64(st, 3, kind);
	bind_sid(st, 4, module_id);
	if (kind == GS_FRAME_NATIVE)
		bind_i64(st, 5, offset);
	else
		bind_null(st, 5);
	bind_sid(st, 6, symbol_id);
	bind_sid(st, 7, file_id);
	bind_opt(st, 8, line);
	bind_sid(st, 9, function_id);
	return step(w, ST_STACK_FRAME, "writing a call-site frame");
}

int gs_writer_api_stack(struct gs_writer *w, uint32_t correlation_id, int64_t stack_id, int64_t tid,
			int reason, uint64_t capture_start, uint64_t capture_end)
{
	struct bcache *st = params(w, ST_API_STACK);
	int timed =
	    capture_start > 0 && capture_end >= capture_start && capture_end <= (uint64_t)INT64_MAX;

	if (w->failed)
		return -1;
	bind_i64(st, 1, correlation_id);
	bind_i64(st, 2, stack_id);
	bind_opt(st, 3, tid);
	bind_i64(st, 4, reason);
	bind_opt(st, 5, timed ? (int64_t)capture_start : -1);
	bind_opt(st, 6, timed ? (int64_t)capture_end : -1);
	return step(w, ST_API_STACK, "writing a call site");
}

int gs_writer_sample(struct gs_writer *w, int64_t tid, uint64_t t, int64_t stack_id)
{
	struct bcache *st = params(w, ST_SAMPLE);

	if (w->failed)
		return -1;
	bind_i64(st, 1, tid);
	bind_i64(st, 2, (int64_t)t);
	bind_opt(st, 3, stack_id > 0 ? stack_id : -1);
	return step(w, ST_SAMPLE, "writing a sample");
}

/* ---------------------------------------------------------------- implicit syncs */

/* The list is the trace format's (gs_implicit_apis, schema.c). */
int gs_implicit_api_class(const char *api_name, const char **reason)
{
	size_t n_implicit, n, i;
	const struct gs_implicit_api *implicit_apis = gs_implicit_apis(&n_implicit);
	const char *v;

	if (!api_name)
		return 0;
	/* cuptiGetCallbackName gives "cudaMalloc_v3020", "cuMemAlloc_v2":
	 * compare without a trailing "_v<digits>" (and "_ptsz"/"_ptds"). */
	n = strlen(api_name);
	v = strstr(api_name, "_v");
	if (v) {
		const char *d = v + 2;
		if (*d >= '0' && *d <= '9') {
			while (*d >= '0' && *d <= '9')
				d++;
			if (*d == '\0' || *d == '_')
				n = (size_t)(v - api_name);
		}
	}
	for (i = 0; i < n_implicit; i++) {
		if (strlen(implicit_apis[i].name) == n &&
		    strncmp(implicit_apis[i].name, api_name, n) == 0) {
			if (reason)
				*reason = implicit_apis[i].reason;
			return implicit_apis[i].kind;
		}
	}
	return 0;
}

int gs_writer_implicit_api(struct gs_writer *w, int64_t name_id, int kind, const char *reason)
{
	size_t i;

	if (name_id <= 0)
		return -1;
	for (i = 0; i < w->impl_n; i++)
		if (w->impl[i].name_id == name_id)
			return 0;
	if (grow((void **)&w->impl, &w->impl_cap, w->impl_n + 1, sizeof(*w->impl), 16) != 0)
		return -1;
	w->impl[w->impl_n].name_id = name_id;
	w->impl[w->impl_n].kind = kind;
	snprintf(w->impl[w->impl_n].reason, sizeof(w->impl[0].reason), "%s", reason);
	w->impl_n++;
	return 0;
}

/* ---------------------------------------------------------------- finalize */

/* Kind 21 (gs_derive_legacy_stream, collector/schema.c): the contexts'
 * NULL streams (CUPTI's context records) and the non-blocking streams
 * (stream records) seen while recording. */
static int derive_legacy_stream(struct gs_writer *w)
{
	char sql[160];
	int64_t rid;
	size_t i;

	if (w->nulls_n == 0)
		return 0;
	if (gs_derive_legacy_tables(w->db) != 0)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (legacy stream)"),
		       -1;
	for (i = 0; i < w->nulls_n; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT OR REPLACE INTO temp.legacy VALUES(%" PRIu32 ", %" PRIu32 ");",
			 w->nulls[i].context, w->nulls[i].stream);
		if (exec(w, sql, "deriving implicit syncs (legacy stream)") != 0)
			return -1;
	}
	for (i = 0; i < w->nb_n; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO temp.nonblocking VALUES(%" PRIu32 ", %" PRIu32 ");",
			 w->nonblocking[i].context, w->nonblocking[i].stream);
		if (exec(w, sql, "deriving implicit syncs (legacy stream)") != 0)
			return -1;
	}
	rid = gs_writer_intern(w, GS_REASON_LEGACY_STREAM);
	if (w->failed)
		return -1;
	if (gs_derive_legacy_stream(w->db, rid) != 0)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (legacy stream)"),
		       -1;
	return 0;
}

static int derive_rows(struct gs_writer *w)
{
	char sql[4096];
	int64_t r_memcpy, r_pageable, r_memset;
	size_t i;
	/* One API call per correlation id: the runtime call when both the
	 * runtime and the driver call are recorded (they share the id). */
	static const char one_api[] =
	    "(SELECT b.id FROM api_calls b WHERE "
	    "b.correlation_id = %s.correlation_id ORDER BY b.api LIMIT 1)";
	char one_s[256], one_g[256], one_e[256];

	r_memcpy = gs_writer_intern(w, GS_REASON_SYNC_MEMCPY);
	r_pageable = gs_writer_intern(w, GS_REASON_PAGEABLE);
	r_memset = gs_writer_intern(w, GS_REASON_MEMSET);
	if (w->failed)
		return -1;
	snprintf(one_s, sizeof(one_s), one_api, "syncs");
	snprintf(one_g, sizeof(one_g), one_api, "graph_launches");
	snprintf(one_e, sizeof(one_e), one_api, "events");

	/* CUPTI's sync records carry the correlation id but not the thread or
	 * the API name, and a context but not a device. */
	snprintf(
	    sql, sizeof(sql),
	    "CREATE TEMP TABLE ctx_dev AS SELECT context, MIN(device) AS device FROM ("
	    " SELECT context, device FROM kernels UNION SELECT context, device FROM memcpys"
	    " UNION SELECT context, device FROM memsets) GROUP BY context;"
	    "UPDATE syncs SET"
	    " api_name_id = COALESCE(api_name_id, (SELECT name_id FROM api_calls WHERE id = %s)),"
	    " pid = COALESCE(pid, (SELECT pid FROM api_calls WHERE id = %s)),"
	    " tid = COALESCE(tid, (SELECT tid FROM api_calls WHERE id = %s)),"
	    " device = COALESCE(device, (SELECT device FROM temp.ctx_dev c"
	    "   WHERE c.context = syncs.context))"
	    " WHERE implicit = 0;",
	    one_s, one_s, one_s);
	if (exec(w, sql, "completing sync rows") != 0)
		return -1;

	/* CUPTI's event records carry no host time: take the record call's
	 * (rows made from callbacks have their own, kept without the call). */
	snprintf(sql, sizeof(sql),
		 "UPDATE events SET start = COALESCE((SELECT start FROM api_calls WHERE id = %s), "
		 "start);",
		 one_e);
	if (exec(w, sql, "completing CUDA event records") != 0)
		return -1;

	snprintf(sql, sizeof(sql),
		 "UPDATE graph_launches SET"
		 " start = (SELECT start FROM api_calls WHERE id = %s),"
		 " end = (SELECT end FROM api_calls WHERE id = %s),"
		 " tid = COALESCE(tid, (SELECT tid FROM api_calls WHERE id = %s));",
		 one_g, one_g, one_g);
	if (exec(w, sql, "completing graph launches") != 0)
		return -1;

	/* Graph nodes: CUPTI's node callbacks give ids and types only. The
	 * kernel name and launch configuration (and memcpy/memset sizes) come
	 * from the activity records of launched nodes, which carry the id of
	 * the *instantiated* node; clones point back at the node the user
	 * built (original_node_id), which gets the same facts. No driver call
	 * is made from inside CUPTI's callbacks for this. */
	if (exec(
		w,
		"CREATE TEMP TABLE node_facts AS SELECT node, MIN(name_id) AS name_id,"
		" MIN(gx) AS gx, MIN(gy) AS gy, MIN(gz) AS gz, MIN(bx) AS bx, MIN(by) AS by,"
		" MIN(bz) AS bz, MIN(bytes) AS bytes FROM ("
		"  SELECT graph_node_id AS node, name_id, grid_x AS gx, grid_y AS gy, grid_z AS gz,"
		"   block_x AS bx, block_y AS by, block_z AS bz, NULL AS bytes FROM kernels"
		"   WHERE graph_node_id <> 0"
		"  UNION ALL SELECT graph_node_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, bytes"
		"   FROM memcpys WHERE graph_node_id <> 0"
		"  UNION ALL SELECT graph_node_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, bytes"
		"   FROM memsets WHERE graph_node_id <> 0) GROUP BY node;"
		"CREATE TEMP TABLE node_src AS"
		" SELECT n.node_id AS node_id, f.* FROM graph_nodes n JOIN temp.node_facts f"
		"  ON f.node = n.node_id"
		" UNION ALL SELECT n.original_node_id, f.* FROM graph_nodes n JOIN temp.node_facts "
		"f"
		"  ON f.node = n.node_id WHERE n.original_node_id IS NOT NULL;"
		"UPDATE graph_nodes SET"
		" name_id = COALESCE(name_id, (SELECT MIN(name_id) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" grid_x = COALESCE(grid_x, (SELECT MIN(gx) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" grid_y = COALESCE(grid_y, (SELECT MIN(gy) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" grid_z = COALESCE(grid_z, (SELECT MIN(gz) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" block_x = COALESCE(block_x, (SELECT MIN(bx) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" block_y = COALESCE(block_y, (SELECT MIN(by) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" block_z = COALESCE(block_z, (SELECT MIN(bz) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" bytes = COALESCE(bytes, (SELECT MIN(bytes) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id))"
		" WHERE node_id IN (SELECT node_id FROM temp.node_src);",
		"completing graph nodes") != 0)
		return -1;

	/* implicit syncs of copies and memsets (collector/schema.c, shared
	 * with `gapscope import`) */
	if (gs_derive_copy_syncs(w->db, r_memcpy, r_pageable, r_memset) != SQLITE_OK)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (copies)"), -1;

	if (derive_legacy_stream(w) != 0)
		return -1;

	if (w->impl_n == 0)
		return 0;
	if (gs_derive_api_tables(w->db) != SQLITE_OK)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs"), -1;
	for (i = 0; i < w->impl_n; i++) {
		int64_t rid = gs_writer_intern(w, w->impl[i].reason);
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO temp.implicit_api VALUES(%" PRId64 ", %d, %" PRId64
			 ");",
			 w->impl[i].name_id, w->impl[i].kind, rid);
		if (exec(w, sql, "deriving implicit syncs") != 0)
			return -1;
	}
	if (gs_derive_api_syncs(w->db) != SQLITE_OK)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (API calls)"), -1;
	return 0;
}

/*
 * Build the indexes (at finalize, inside its transaction). Each CREATE
 * INDEX sorts the keys of a whole table. With temp_store=MEMORY (the
 * recording setting) SQLite's sorter has no memory bound: it mallocs every
 * key separately and keeps them all (vdbesort.c bounds its memory only when
 * temporary storage is on disk), which for 2 M records cost ~22000 extra
 * page faults and a quarter of finalize's time (bench/writer_throughput:
 * finalize 1.51-1.54 s -> 1.12-1.20 s, 30365 -> 8098 page faults). With
 * temp_store=FILE it sorts in runs of SQLITE_DEFAULT_PMASZ pages and merges
 * them through a deleted temporary file (SQLITE_TMPDIR, TMPDIR, /var/tmp,
 * /tmp). If that file cannot be written (no writable temporary directory,
 * a full disk there), the keys are sorted in memory as before.
 */
static int build_indexes(struct gs_writer *w)
{
	if (gs_schema_create_indexes(w->db) == 0)
		return 0;
	gs_log(GS_LOG_DEBUG,
	       "%s: index build through a temporary file failed (%s); sorting in memory", w->path,
	       sqlite3_errmsg(w->db));
	/* Start the transaction again under temp_store=MEMORY: nothing was
	 * written in it before the indexes, and a transaction begun with
	 * temporary storage on disk keeps its statement journal there too.
	 * (An I/O error may already have rolled it back.) */
	if (!sqlite3_get_autocommit(w->db))
		sqlite3_exec(w->db, "ROLLBACK;", NULL, NULL, NULL);
	w->in_tx = 0;
	if (sqlite3_exec(w->db, "PRAGMA temp_store=MEMORY;", NULL, NULL, NULL) != SQLITE_OK ||
	    gs_writer_begin(w) != 0)
		return -1;
	return gs_schema_create_indexes(w->db);
}

int gs_writer_finalize(struct gs_writer *w, uint64_t stop_ns)
{
	int rc = -1;

	if (!w)
		return -1;
	if (w->failed)
		goto out;
	if (w->in_tx && gs_writer_commit(w) != 0)
		goto out;
	/* Sort index keys through temporary files (see build_indexes). Set
	 * outside a transaction: SQLite refuses to change temp_store inside
	 * one once temporary storage is open. */
	sqlite3_exec(w->db, "PRAGMA temp_store=FILE;", NULL, NULL, NULL);
	if (gs_writer_begin(w) != 0)
		goto out;
	/* Indexes first: the derivations below join on correlation ids. */
	if (build_indexes(w) != 0) {
		fail(w, sqlite3_errcode(w->db), "building indexes");
		goto out;
	}
	/* the derivations' temporary tables are small: in memory, as always */
	sqlite3_exec(w->db, "PRAGMA temp_store=MEMORY;", NULL, NULL, NULL);
	if (derive_rows(w) != 0)
		goto out;
	if (gs_writer_meta_int(w, "stop_ns", (int64_t)stop_ns) != 0 ||
	    gs_writer_meta(w, "finalized", "1") != 0)
		goto out;
	if (gs_writer_commit(w) != 0)
		goto out;
	/* Fold the WAL into the main file and go back to a rollback journal:
	 * the trace is then one self-contained file that can be copied. */
	if (exec(w, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;",
		 "switching the journal back to DELETE") != 0)
		goto out;
	rc = 0;
out:
	gs_writer_close(w);
	return rc;
}
