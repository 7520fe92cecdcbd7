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
 * The row functions (one per kind of record) are in writer_rows.c; indexes,
 * derived rows (implicit synchronisations, API columns of CUPTI's sync
 * records) and the switch back to a single-file DELETE journal happen in
 * gs_writer_finalize (writer_finalize.c). Both call down into this file,
 * never the other way; writer_int.h holds what the three share.
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

#include "writer_int.h"

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
    [ST_SAMPLE] = "INSERT INTO samples(tid, t, stack_id) VALUES(?,?,?)",
    [ST_WAIT_SAMPLE] = "INSERT INTO wait_samples(tid, t, ns, stack_id) VALUES(?,?,?,?)",
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
    [ST_WAIT_SAMPLE] = "writing an off-CPU sample",
    [ST_CAPTURE_WINDOW] = "writing a capture window",
};

/* ---------------------------------------------------------------- errors */

void fail(struct gs_writer *w, int rc, const char *what)
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

/* ---------------------------------------------------------------- pipelined writing */

int grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
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

void stage_text(struct bcache *c, int i, const char *s)
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
int log_op(struct gs_writer *w, int which, const struct bcache *c, int n)
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
int step(struct gs_writer *w, int which, const char *what)
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
int batch_flush(struct gs_writer *w, struct row_batch *b, int which, const char *what)
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

static int flush_rows(struct gs_writer *w)
{
	if (batch_flush(w, &w->kernels, ST_KERNEL, "writing kernels") != 0 ||
	    batch_flush(w, &w->apis, ST_API, "writing API calls") != 0)
		return -1;
	return 0;
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

int exec(struct gs_writer *w, const char *sql, const char *what)
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
