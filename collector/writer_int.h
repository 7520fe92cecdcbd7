/*
 * writer_int.h - what the writer's files share (writer.c: the connection,
 * statements, batches, chunks and strings; writer_rows.c: one function per
 * row kind; writer_finalize.c: derived rows, indexes, the last commit):
 * the statement numbers, the writer's state and the cached binds. Private
 * to those three files; the rest of the collector uses internal.h.
 */
#ifndef GS_WRITER_INT_H
#define GS_WRITER_INT_H

#include <stdint.h>

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
	ST_WAIT_SAMPLE, /* their off-CPU samples (sampler.c) */
	ST_CAPTURE_WINDOW,
	ST_COUNT
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

/* writer.c, for writer_rows.c and writer_finalize.c. fail: the first SQLite
 * error stops the writer (one warning); grow: a growable array, `first`
 * entries at first; log_op: statement `which`'s staged parameters as one
 * op of the chunk; step: a row function's last step (run, or log while
 * pipelined); batch_flush: insert b's pending rows; exec: run SQL text. */
void fail(struct gs_writer *w, int rc, const char *what);
int grow(void **p, size_t *cap, size_t need, size_t elem, size_t first);
int log_op(struct gs_writer *w, int which, const struct bcache *c, int n);
int step(struct gs_writer *w, int which, const char *what);
int batch_flush(struct gs_writer *w, struct row_batch *b, int which, const char *what);
int exec(struct gs_writer *w, const char *sql, const char *what);

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

/* writer.c: copy s into the chunk of a staging cache, as parameter i */
void stage_text(struct bcache *c, int i, const char *s);

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

#endif
