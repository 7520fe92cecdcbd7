/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace.c - opening and checking trace databases (see trace.h).
 *
 * The header check reads the first 100 bytes ourselves: SQLite happily opens
 * a truncated file and only fails on the first page it cannot read, which
 * would surface as a raw "database disk image is malformed" deep inside a
 * report. Comparing the header's page count with the file size catches that
 * up front.
 *
 * A trace is untrusted input, like a network packet: the defences trace_open
 * puts on every connection (SQLite's "Defense Against the Dark Arts" page
 * lists most of them) are each named where they are set below.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "trace.h"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The header and the kind of file. A FIFO or a device is refused before
 * anything reads it: opening a FIFO for reading blocks until a writer comes
 * (`info` on a FIFO hung), so the file is opened O_NONBLOCK and checked
 * with fstat on that descriptor. *recording is set when a collector holds
 * the file's flock() (collector/writer.c, claim(): taken exclusively for as
 * long as it records, dropped by the kernel when the process dies). */
static int check_header(const char *path, int *recording, int *wal, char *err, size_t errlen)
{
	unsigned char h[100];
	struct stat st;
	ssize_t got;
	size_t n = 0;
	int fd;

	*recording = 0;
	*wal = 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == EISDIR)
			snprintf(err, errlen, "is a directory, not a trace database");
		else
			snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return TRACE_ERR_MISSING;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		close(fd);
		return TRACE_ERR_MISSING;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "is a directory, not a trace database");
		close(fd);
		return TRACE_ERR_MISSING;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "is a %s, not a trace database file",
			 S_ISFIFO(st.st_mode)	? "FIFO"
			 : S_ISCHR(st.st_mode)	? "character device"
			 : S_ISBLK(st.st_mode)	? "block device"
			 : S_ISSOCK(st.st_mode) ? "socket"
						: "special file");
		close(fd);
		return TRACE_ERR_NOT_REGULAR;
	}
	if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			*recording = 1;
	} else {
		(void)flock(fd, LOCK_UN);
	}
	while (n < sizeof(h) && (got = read(fd, h + n, sizeof(h) - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (n >= 16 && memcmp(h, "SQLite format 3", 16) != 0) {
		size_t i = 0;
		while (i < n && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r'))
			i++;
		/* a torch.profiler trace given where its import is meant */
		if (n >= sizeof(NSYS_REPORT_MAGIC) - 1 &&
		    !memcmp(h, NSYS_REPORT_MAGIC, sizeof(NSYS_REPORT_MAGIC) - 1))
			snprintf(err, errlen,
				 "not a gapscope trace (an Nsight Systems report: export it with "
				 "nsys export --type sqlite, then gapscope import the .sqlite)");
		else if (h[0] == 0x1f && h[1] == 0x8b)
			snprintf(err, errlen,
				 "not a gapscope trace (gzip-compressed: a torch.profiler "
				 ".json.gz? gapscope import it first)");
		else if (i < n && (h[i] == '{' || h[i] == '['))
			snprintf(err, errlen,
				 "not a gapscope trace (JSON: a torch.profiler trace? gapscope "
				 "import it first)");
		else
			snprintf(err, errlen, "not a gapscope trace (not an SQLite database)");
		return TRACE_ERR_NOT_SQLITE;
	}
	if (n < sizeof(h)) {
		snprintf(err, errlen,
			 n < 16 ? "not a gapscope trace (file is empty or too short)"
				: "truncated database (header incomplete)");
		return n < 16 ? TRACE_ERR_NOT_SQLITE : TRACE_ERR_TRUNCATED;
	}
	/* file format write/read versions 2: WAL mode (SQLite's fileformat
	 * page, "The Database Header") */
	*wal = h[18] == 2 || h[19] == 2;
	{
		uint32_t page_size = (uint32_t)h[16] << 8 | h[17];
		uint32_t pages = be32(h + 28);
		/* The in-header size is valid only when the change counter
		 * (offset 24) equals version-valid-for (offset 92). */
		if (page_size == 1)
			page_size = 65536;
		if (pages > 0 && be32(h + 24) == be32(h + 92) &&
		    (uint64_t)st.st_size < (uint64_t)pages * page_size) {
			snprintf(err, errlen,
				 "truncated database (%lld of %llu bytes); was the copy or "
				 "the recording cut short?",
				 (long long)st.st_size, (unsigned long long)pages * page_size);
			return TRACE_ERR_TRUNCATED;
		}
	}
	return 0;
}

/* ------------------------------------------------------ the query bound */

struct trace_guard {
	atomic_int too_long;	 /* a query was interrupted: it ran past the bound */
	int64_t limit_ns;	 /* the bound on one query step */
	struct trace_watch main; /* t->db's */
	char *uri;		 /* "file:...?immutable=1" (open_name), or NULL: the path */
	int wal;		 /* the file is in WAL mode (its header says so) */
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* VM instructions between two calls of the progress handler: the handler
 * costs well under a microsecond, 100k instructions tens of them. */
#define WATCH_OPS 100000

/* Whether st is one of SQLite's own reads of the planner statistics
 * (analyze.c: "SELECT tbl,idx,stat FROM %Q.sqlite_stat1", and for
 * sqlite_stat4 "SELECT idx,count(*) ..." and "SELECT idx,neq,nlt,ndlt,sample
 * ..."). Statements prepared while the schema loads keep no SQL text
 * (sqlite3_sql() is NULL), so they are told apart by their result columns;
 * none of gapscope's own queries has those. */
static int stats_read(sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st);
	const char *c0 = n > 0 ? sqlite3_column_name(st, 0) : NULL;
	const char *c1 = n > 1 ? sqlite3_column_name(st, 1) : NULL;
	const char *c2 = n > 2 ? sqlite3_column_name(st, 2) : NULL;

	if (n == 3 && c0 && c1 && c2 && !strcmp(c0, "tbl") && !strcmp(c1, "idx") &&
	    !strcmp(c2, "stat"))
		return 1;
	return c0 && c1 && !strcmp(c0, "idx") && (!strcmp(c1, "count(*)") || !strcmp(c1, "neq"));
}

/* SQLite's progress handler. It cannot tell which statement runs, so it
 * watches what all of the connection's statements have done: each
 * sqlite3_step() that returns adds its instructions to the statement's
 * SQLITE_STMTSTATUS_VM_STEP, so a signature of those counters that has not
 * changed for limit_ns means one step has been running that long (an
 * infinite recursive CTE, a forged plan), and the step is interrupted.
 * Time the caller spends between steps never counts.
 *
 * While the schema loads (stats_gate), SQLite reads the planner statistics
 * the file carries (analyze.c, sqlite3AnalysisLoad: "SELECT tbl,idx,stat
 * FROM main.sqlite_stat1", and sqlite_stat4 where compiled in). Those are
 * the trace's to forge - a forged sqlite_stat1 made the export choose a
 * quadratic plan, 100 times slower - and no setting of SQLite 3.40 turns
 * their use off (SQLITE_DBCONFIG_ENABLE_QPSG does not; analysis_limit only
 * bounds ANALYZE). So those reads are interrupted before their first row:
 * SQLite ignores the failure and every table and index keeps its default
 * estimates, as in a trace without statistics. */
static int watch_progress(void *arg)
{
	struct trace_watch *w = arg;
	sqlite3_stmt *st;
	uint64_t sig = 0;
	int64_t now;

	/* once one step was stopped, every later long one is too: a caller
	 * that reads a failed query as "none" (a count of 0) must not go on
	 * to a result; the first failure is what it reports */
	if (atomic_load(&w->guard->too_long))
		return 1;
	for (st = sqlite3_next_stmt(w->db, NULL); st; st = sqlite3_next_stmt(w->db, st)) {
		if (w->stats_gate && sqlite3_stmt_busy(st) && stats_read(st))
			return 1;

		sig = sig * 1000003u + (uintptr_t)st +
		      (uint64_t)sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0) +
		      ((uint64_t)sqlite3_stmt_status(st, SQLITE_STMTSTATUS_RUN, 0) << 32);
	}
	/* the schema load itself is not timed (the handler runs at every
	 * instruction then: a bound of 0 ms stopped it at once); it is
	 * linear in the schema's size and runs no view */
	if (w->stats_gate)
		return 0;
	now = now_ns();
	if (sig != w->sig || !w->since) {
		w->sig = sig;
		w->since = now;
		return 0;
	}
	if (now - w->since > w->guard->limit_ns) {
		atomic_store(&w->guard->too_long, 1);
		return 1;
	}
	return 0;
}

/* The defences of every connection to a trace, set before anything reads
 * the schema. Returns 0 or -1 with err set. */
static int harden(sqlite3 *db, struct trace_watch *w, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	/* trusted_schema off: functions with side effects or not marked
	 * innocuous cannot run from the file's schema (views, generated
	 * columns, defaults); defensive: no writable_schema tricks; views off
	 * (TEMP views, ours, stay allowed): a view under a table's name is
	 * refused (check_tables says so first), and no view in the file runs;
	 * no triggers, no loading of extensions. */
	if (sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL) != SQLITE_OK ||
	    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot configure the database connection: %s",
			 sqlite3_errmsg(db));
		return -1;
	}
	w->db = db;
	w->stats_gate = 1;
	w->since = 0;
	/* every instruction while the schema loads: the statistics' read is
	 * stopped before it returns a row (the handler also runs as a step
	 * returns, sqlite3VdbeExec's vdbe_return) */
	sqlite3_progress_handler(db, 1, watch_progress, w);
	rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master LIMIT 1", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(st);
	w->stats_gate = 0;
	w->since = 0;
	sqlite3_progress_handler(db, WATCH_OPS, watch_progress, w);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

sqlite3 *trace_db_open(struct trace *t, struct trace_watch *w, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	const char *name = t->guard->uri ? t->guard->uri : t->path;

	memset(w, 0, sizeof(*w));
	w->guard = t->guard;
	if (sqlite3_open_v2(name, &db,
			    SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
				(t->guard->uri ? SQLITE_OPEN_URI : 0),
			    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open database: %s",
			 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	if (harden(db, w, err, errlen) < 0) {
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

int trace_too_long(const struct trace *t, char *err, size_t errlen)
{
	if (!trace_guard_tripped(t->guard))
		return 0;
	snprintf(err, errlen, "query ran too long; the trace may be hostile");
	return 1;
}

/* The folder SQLite puts its temporary files in (os_unix.c,
 * unixTempFileDir: SQLITE_TMPDIR, TMPDIR, /var/tmp, /usr/tmp, /tmp, the
 * first writable folder), and the variable that named it or NULL. */
static const char *sqlite_tmp_dir(const char **var)
{
	static const char *const vars[] = {"SQLITE_TMPDIR", "TMPDIR"};
	static const char *const dirs[] = {"/var/tmp", "/usr/tmp", "/tmp"};
	struct stat st;
	size_t i;

	for (i = 0; i < 2 + sizeof(dirs) / sizeof(dirs[0]); i++) {
		const char *d = i < 2 ? getenv(vars[i]) : dirs[i - 2];
		if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode) || access(d, W_OK | X_OK) != 0)
			continue;
		*var = i < 2 ? vars[i] : NULL;
		return d;
	}
	*var = NULL;
	return ".";
}

int trace_local_error(sqlite3 *db, char *err, size_t errlen)
{
	int code = sqlite3_extended_errcode(db), e;
	const char *var, *dir;

	if ((code & 0xff) == SQLITE_NOMEM || code == SQLITE_IOERR_NOMEM) {
		snprintf(err, errlen, "out of memory");
		return 1;
	}
	/* the trace is opened read-only: what SQLite writes is its own
	 * temporary files (sorts, temporary tables) */
	if ((code & 0xff) != SQLITE_FULL && code != SQLITE_IOERR_WRITE &&
	    code != SQLITE_IOERR_FSYNC && code != SQLITE_IOERR_TRUNCATE)
		return 0;
	/* SQLITE_FULL is ENOSPC, whose errno SQLite does not keep */
	e = (code & 0xff) == SQLITE_FULL ? ENOSPC : sqlite3_system_errno(db);
	dir = sqlite_tmp_dir(&var);
	snprintf(err, errlen,
		 "cannot write SQLite's temporary files in %s%s%s%s: %s%s; free space there or set "
		 "TMPDIR to a folder with room",
		 dir, var ? " (" : "", var ? var : "", var ? ")" : "",
		 e ? strerror(e) : sqlite3_errmsg(db), e == EFBIG ? " (ulimit -f)" : "");
	return 1;
}

struct trace_guard *trace_guard_new(void)
{
	struct trace_guard *g = calloc(1, sizeof(*g));
	const char *e = getenv("GAPSCOPE_QUERY_LIMIT_MS");
	char *end = NULL;
	long long ms = e ? strtoll(e, &end, 10) : -1;

	if (!g)
		return NULL;
	g->limit_ns = (int64_t)TRACE_QUERY_LIMIT_MS * 1000000;
	if (e && end != e && *end == '\0' && ms >= 0 && ms <= 86400000)
		g->limit_ns = ms * 1000000;
	g->main.guard = g;
	return g;
}

void trace_guard_free(struct trace_guard *g)
{
	if (g)
		free(g->uri);
	free(g);
}

int trace_guard_db(struct trace_guard *g, sqlite3 *db, struct trace_watch *w, char *err,
		   size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->guard = g;
	return harden(db, w, err, errlen);
}

int trace_guard_attach(struct trace_watch *w, const char *uri, const char *schema)
{
	sqlite3_stmt *q = NULL;
	char sql[64];
	int rc;

	snprintf(sql, sizeof(sql), "ATTACH DATABASE ?1 AS %s", schema);
	rc = sqlite3_prepare_v2(w->db, sql, -1, &q, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(q, 1, uri, -1, SQLITE_STATIC);
		/* ATTACH loads the file's schema, and with it the planner
		 * statistics it carries: gated as in harden() */
		w->stats_gate = 1;
		w->since = 0;
		sqlite3_progress_handler(w->db, 1, watch_progress, w);
		rc = sqlite3_step(q);
		rc = rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
		w->stats_gate = 0;
		w->since = 0;
		sqlite3_progress_handler(w->db, WATCH_OPS, watch_progress, w);
	}
	sqlite3_finalize(q);
	return rc;
}

int trace_guard_tripped(const struct trace_guard *g)
{
	return g && atomic_load(&g->too_long);
}

int64_t trace_guard_limit_ms(const struct trace_guard *g)
{
	return g ? g->limit_ns / 1000000 : TRACE_QUERY_LIMIT_MS;
}

/* ------------------------------------------------------ the table check */

/* Every table of schema v1 that the trace holds must be what the schema
 * made it: a plain rowid table with the schema's columns, none of them
 * generated. A view, a WITHOUT ROWID or virtual table under a table's name
 * read as "no rows" or as other rows than the collector's, and the report
 * said so with exit 0 (utilisation 0.5% instead of 48.2%). The expected
 * tables and columns come from gs_schema_sql itself, run on an in-memory
 * database: one owner of the format. */
static int check_tables(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *tabs = NULL, *cols = NULL, *kind = NULL, *have = NULL;
	int rc = TRACE_ERR_CORRUPT;

	if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    gs_schema_create(ref) != 0 ||
	    sqlite3_prepare_v2(ref,
			       "SELECT name FROM sqlite_master WHERE type='table' AND name NOT "
			       "LIKE 'sqlite%' ORDER BY rowid",
			       -1, &tabs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1,
			       &cols, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot build the reference schema: %s",
			 ref ? sqlite3_errmsg(ref) : "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(db,
			       "SELECT type, wr FROM pragma_table_list WHERE schema='main' "
			       "AND name=?1 COLLATE NOCASE",
			       -1, &kind, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT hidden FROM pragma_table_xinfo(?1) WHERE name=?2 "
			       "COLLATE NOCASE",
			       -1, &have, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(db));
		goto out;
	}
	while (sqlite3_step(tabs) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(tabs, 0);
		const char *type;
		int r;

		sqlite3_reset(kind);
		sqlite3_bind_text(kind, 1, name, -1, SQLITE_TRANSIENT);
		r = sqlite3_step(kind);
		if (r == SQLITE_DONE) {
			if (gs_schema_table_optional(name))
				continue;
			snprintf(err, errlen, "damaged trace: table %s is missing", name);
			rc = TRACE_ERR_SCHEMA;
			goto out;
		}
		if (r != SQLITE_ROW) {
			snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(db));
			goto out;
		}
		type = (const char *)sqlite3_column_text(kind, 0);
		if (!type || strcmp(type, "table") != 0) {
			snprintf(err, errlen, "damaged trace: %s is a %s, not a plain table", name,
				 type ? type : "(unknown)");
			rc = TRACE_ERR_SCHEMA;
			goto out;
		}
		if (sqlite3_column_int(kind, 1)) {
			snprintf(
			    err, errlen,
			    "damaged trace: table %s is WITHOUT ROWID, not a plain rowid table",
			    name);
			rc = TRACE_ERR_SCHEMA;
			goto out;
		}
		sqlite3_reset(cols);
		sqlite3_bind_text(cols, 1, name, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(cols) == SQLITE_ROW) {
			const char *col = (const char *)sqlite3_column_text(cols, 0);
			sqlite3_reset(have);
			sqlite3_bind_text(have, 1, name, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(have, 2, col, -1, SQLITE_TRANSIENT);
			r = sqlite3_step(have);
			if (r == SQLITE_ROW && sqlite3_column_int(have, 0) == 0)
				continue;
			if (r == SQLITE_DONE && gs_schema_column_optional(name, col))
				continue;
			if (r == SQLITE_ROW || r == SQLITE_DONE)
				snprintf(
				    err, errlen,
				    r == SQLITE_ROW
					? "damaged trace: column %s.%s is generated, not stored"
					: "damaged trace: table %s has no column %s",
				    name, col);
			else
				snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(db));
			rc = r == SQLITE_ROW || r == SQLITE_DONE ? TRACE_ERR_SCHEMA
								 : TRACE_ERR_CORRUPT;
			goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(tabs);
	sqlite3_finalize(cols);
	sqlite3_finalize(kind);
	sqlite3_finalize(have);
	sqlite3_close(ref);
	return rc;
}

/* ------------------------------------------------------ WAL-mode traces */

/* Size of path + suffix (the -wal or -shm file beside a trace), -1 when
 * it does not exist or cannot be examined. */
static long long side_file(const char *path, const char *suffix)
{
	char name[4096];
	struct stat st;

	if ((size_t)snprintf(name, sizeof(name), "%s%s", path, suffix) >= sizeof(name) ||
	    stat(name, &st) != 0)
		return -1;
	return (long long)st.st_size;
}

/* Whether the folder holding path is writable (SQLite must create the
 * -shm file there to read a WAL-mode database). */
static int dir_writable(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');

	if (!slash)
		return access(".", W_OK) == 0;
	if ((size_t)(slash - path) >= sizeof(dir))
		return 1; /* let SQLite say */
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash == path ? 1 : slash - path] = '\0';
	if (slash == path)
		dir[0] = '/';
	return access(dir, W_OK) == 0;
}

/* "file:" URI of path with immutable=1 (malloc'ed), every byte outside
 * [A-Za-z0-9._~/-] percent-encoded (a '?', '#' or '%' in a file name
 * would end the path part). An absolute path gets "file://" before it,
 * so that "//x" cannot read as an authority. */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path), k = 0;
	char *u = malloc(3 * n + 32);
	const unsigned char *p;

	if (!u)
		return NULL;
	k += (size_t)sprintf(u, path[0] == '/' ? "file://" : "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || strchr("._~/-", *p)) {
			u[k++] = (char)*p;
		} else {
			u[k++] = '%';
			u[k++] = hex[*p >> 4];
			u[k++] = hex[*p & 15];
		}
	}
	strcpy(u + k, "?immutable=1");
	return u;
}

/* A WAL-mode trace (the collector records in WAL mode) is read through
 * its -shm file, which SQLite creates beside it: in a folder gapscope
 * may not write, opening failed ("attempt to write a readonly
 * database"). When nothing is left in the write-ahead log (no -wal file,
 * or an empty one: the collector checkpointed at its end) and no
 * collector holds the file, the main file is the whole trace, and SQLite
 * reads it without -shm when told it is immutable (the immutable=1 URI
 * parameter; SQLite's "WAL-mode databases on read-only media"). With a
 * non-empty log the recent rows are only there: say what to do.
 * 0, or TRACE_ERR_CORRUPT with err set. */
static int wal_readonly(struct trace *t, char *err, size_t errlen)
{
	long long wal;

	if (!t->guard->wal || dir_writable(t->path) || side_file(t->path, "-shm") >= 0)
		return 0;
	wal = side_file(t->path, "-wal");
	if (wal > 0 || t->recording) {
		snprintf(err, errlen,
			 "the trace is in WAL mode, %s, and its folder is not writable (SQLite "
			 "must create %s-shm there to read it): copy the trace with its -wal file "
			 "to a writable folder",
			 t->recording ? "still being recorded" : "its rows partly in its -wal file",
			 t->path);
		return TRACE_ERR_CORRUPT;
	}
	if (!(t->guard->uri = immutable_uri(t->path))) {
		snprintf(err, errlen, "out of memory");
		return TRACE_ERR_CORRUPT;
	}
	return 0;
}

/* After the main file showed no gapscope tables: when it is in WAL mode,
 * they may be in a -wal file that is missing, or that SQLite ignored (a
 * log of another database, or a damaged one). Says so in err and returns
 * 1; 0 when that cannot be the reason. */
static int wal_missing(struct trace *t, char *err, size_t errlen)
{
	long long wal;

	if (!t->guard->wal || t->guard->uri)
		return 0;
	wal = side_file(t->path, "-wal");
	if (wal <= 0) /* (SQLite leaves an empty one where none was) */
		snprintf(err, errlen,
			 "the trace is in WAL mode and its main file holds no gapscope tables; "
			 "its write-ahead log %s-wal, which holds them, is missing or empty: copy "
			 "the trace together with its -wal file",
			 t->path);
	else
		snprintf(err, errlen,
			 "the trace is in WAL mode and its main file holds no gapscope tables; "
			 "its write-ahead log %s-wal was not read (it is damaged or belongs to "
			 "another database): copy the trace again with its own -wal file",
			 t->path);
	return 1;
}

/* Whether the database has a table (or anything) named meta. */
int trace_db_schema_has_table(sqlite3 *db, const char *schema, const char *name)
{
	sqlite3_stmt *st = NULL;
	int found;

	found = sqlite3_prepare_v2(db,
				   "SELECT 1 FROM pragma_table_list WHERE schema=?2 AND "
				   "name=?1 COLLATE NOCASE",
				   -1, &st, NULL) == SQLITE_OK &&
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
		sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC) == SQLITE_OK &&
		sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int trace_db_has_table(sqlite3 *db, const char *name)
{
	return trace_db_schema_has_table(db, "main", name);
}

static int has_meta(sqlite3 *db)
{
	return trace_db_has_table(db, "meta");
}

/* meta's schema_version is there but is no version number (1 to 999999):
 * say what it holds, as text of at most 40 bytes (the line is printed
 * through the terminal sanitizer). */
static void version_error(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db,
			       "SELECT typeof(value), value FROM meta WHERE "
			       "key='schema_version'",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		if (type && !strcmp(type, "null"))
			snprintf(err, errlen,
				 "damaged trace: meta schema_version is NULL, not a "
				 "version number");
		else
			snprintf(err, errlen,
				 "damaged trace: meta schema_version is '%.40s%s', not a version "
				 "number (1, 2, ...)",
				 v ? v : "", v && strlen(v) > 40 ? "..." : "");
	} else {
		snprintf(err, errlen, "damaged trace: meta schema_version cannot be read: %s",
			 sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
}

static void open_failed(struct trace *t, char *err, size_t errlen)
{
	trace_too_long(t, err, errlen); /* the reason, where a query was stopped */
	trace_close(t);
}

int trace_open(struct trace *t, const char *path, char *err, size_t errlen)
{
	int rc, v, wal;

	memset(t, 0, sizeof(*t));
	t->path = path;
	rc = check_header(path, &t->recording, &wal, err, errlen);
	if (rc < 0)
		return rc;
	t->guard = trace_guard_new();
	if (!t->guard) {
		snprintf(err, errlen, "out of memory");
		return TRACE_ERR_CORRUPT;
	}
	t->guard->wal = wal;
	if ((rc = wal_readonly(t, err, errlen)) < 0) {
		trace_close(t);
		return rc;
	}
	rc = sqlite3_open_v2(t->guard->uri ? t->guard->uri : path, &t->db,
			     SQLITE_OPEN_READONLY | (t->guard->uri ? SQLITE_OPEN_URI : 0), NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open database: %s",
			 t->db ? sqlite3_errmsg(t->db) : sqlite3_errstr(rc));
		open_failed(t, err, errlen);
		return TRACE_ERR_CORRUPT;
	}
	if (harden(t->db, &t->guard->main, err, errlen) < 0) {
		open_failed(t, err, errlen);
		return TRACE_ERR_CORRUPT;
	}
	/* meta first: the version is read from it */
	{
		sqlite3_stmt *st = NULL;
		const char *type = NULL;
		int wr = 0;
		if (sqlite3_prepare_v2(t->db,
				       "SELECT type, wr FROM pragma_table_list WHERE schema='main' "
				       "AND name='meta' COLLATE NOCASE",
				       -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW) {
			type = (const char *)sqlite3_column_text(st, 0);
			wr = sqlite3_column_int(st, 1);
			if (!type || strcmp(type, "table") != 0 || wr) {
				snprintf(err, errlen,
					 wr ? "damaged trace: table meta is WITHOUT ROWID, not a "
					      "plain rowid table"
					    : "damaged trace: meta is a %s, not a plain table",
					 type ? type : "(unknown)");
				sqlite3_finalize(st);
				open_failed(t, err, errlen);
				return TRACE_ERR_SCHEMA;
			}
		}
		sqlite3_finalize(st);
	}
	v = gs_schema_read_version(t->db);
	if (v == GS_SCHEMA_ERR_NOT_GAPSCOPE) {
		if (has_meta(t->db)) {
			snprintf(err, errlen,
				 "SQLite database, but not a gapscope trace (its meta "
				 "table has no schema_version)");
		} else if (wal_missing(t, err, errlen)) {
			open_failed(t, err, errlen);
			return TRACE_ERR_CORRUPT;
		} else if (trace_db_has_table(t->db, "StringIds") &&
			   (trace_db_has_table(t->db, "TARGET_INFO_GPU") ||
			    trace_db_has_table(t->db, "CUPTI_ACTIVITY_KIND_KERNEL"))) {
			snprintf(err, errlen,
				 "not a gapscope trace (an Nsight Systems SQLite export: gapscope "
				 "import it first)");
		} else {
			snprintf(err, errlen,
				 "SQLite database, but not a gapscope trace (no meta table)");
		}
		open_failed(t, err, errlen);
		return TRACE_ERR_FOREIGN;
	}
	if (v < 0) {
		/* gs_schema_read_version also fails on a value that is no
		 * version number, and SQLite's message then is "not an error" */
		if (sqlite3_errcode(t->db) == SQLITE_OK || sqlite3_errcode(t->db) == SQLITE_ROW ||
		    sqlite3_errcode(t->db) == SQLITE_DONE)
			version_error(t->db, err, errlen);
		else
			snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(t->db));
		open_failed(t, err, errlen);
		return TRACE_ERR_CORRUPT;
	}
	if (v > GS_SCHEMA_VERSION) {
		snprintf(err, errlen,
			 "trace schema version %d is newer than this gapscope reads (%d); "
			 "upgrade gapscope",
			 v, GS_SCHEMA_VERSION);
		open_failed(t, err, errlen);
		return TRACE_ERR_NEWER;
	}
	rc = check_tables(t->db, err, errlen);
	if (rc < 0) {
		open_failed(t, err, errlen);
		return rc;
	}
	t->schema_version = v;
	return 0;
}

void trace_close(struct trace *t)
{
	if (t->db)
		sqlite3_close(t->db);
	t->db = NULL;
	trace_guard_free(t->guard);
	t->guard = NULL;
}

char *trace_meta(struct trace *t, const char *key)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (sqlite3_prepare_v2(t->db, "SELECT value FROM meta WHERE key=?", -1, &st, NULL) !=
	    SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

/* meta key as a whole number 0 <= v < 2^31; 1 when it is one */
static int meta_whole(struct trace *t, const char *key, int64_t *v)
{
	char *s = trace_meta(t, key), *end = NULL;
	long long x;
	int ok = 0;

	if (s && s[0] >= '0' && s[0] <= '9') {
		errno = 0;
		x = strtoll(s, &end, 10);
		if (!errno && *end == '\0' && x <= INT32_MAX) {
			*v = x;
			ok = 1;
		}
	}
	free(s);
	return ok;
}

int trace_rank(struct trace *t, int64_t *rank, int64_t *world_size, char **source)
{
	static const char *const ranks[GS_RANK_ENV_N] = {GS_RANK_ENV_VARS};
	static const char *const sizes[GS_RANK_ENV_N] = {GS_WORLD_SIZE_ENV_VARS};
	char key[64];
	int i;

	*world_size = 0;
	*source = NULL;
	if (meta_whole(t, "rank", rank)) {
		if (!meta_whole(t, "world_size", world_size) || *world_size <= *rank)
			*world_size = 0;
		*source = trace_meta(t, "rank_source");
		/* a name, not text to print: anything else is dropped */
		if (*source &&
		    (!**source || strlen(*source) > 63 ||
		     strspn(*source, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				     "0123456789_.") != strlen(*source))) {
			free(*source);
			*source = NULL;
		}
		return 1;
	}
	/* recorded before the rank key: the launcher's variables, in the
	 * collector's order */
	for (i = 0; i < GS_RANK_ENV_N; i++) {
		snprintf(key, sizeof(key), "env.%s", ranks[i]);
		if (!meta_whole(t, key, rank))
			continue;
		*source = strdup(key);
		snprintf(key, sizeof(key), "env.%s", sizes[i]);
		if (!meta_whole(t, key, world_size) || *world_size <= *rank)
			*world_size = 0;
		return 1;
	}
	return 0;
}

int trace_meta_put_ints(const char *path, const char *const *keys, const int64_t *vals, size_t n,
			char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ok;
	size_t i;

	ok = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	     sqlite3_busy_timeout(db, 2000) == SQLITE_OK &&
	     sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK &&
	     sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", -1,
				&st, NULL) == SQLITE_OK;
	for (i = 0; ok && i < n; i++) {
		sqlite3_bind_text(st, 1, keys[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, vals[i]);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
	if (!ok)
		snprintf(err, errlen, "%s", db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_close(db); /* an open transaction is rolled back */
	return ok ? 0 : -1;
}

int trace_time_error(sqlite3 *db, const char *table, const char *col1, const char *col2, char *err,
		     size_t errlen)
{
	char sql[512];
	sqlite3_stmt *st = NULL;
	int found = 0, c;

	/* CAST AS INTEGER converts text, blobs and reals as
	 * sqlite3_column_int64 does (1e300 -> 2^63-1), NULL reads as 0 */
	for (c = 0; c < 2 && !found; c++) {
		const char *col = c ? col2 : col1;
		if (!col)
			continue;
		snprintf(sql, sizeof(sql),
			 "SELECT rowid, v FROM (SELECT rowid, coalesce(CAST(\"%s\" AS INTEGER), 0) "
			 "AS v FROM \"%s\") WHERE v NOT BETWEEN 0 AND %lld "
			 "ORDER BY rowid LIMIT 1",
			 col, table, (long long)TRACE_TIME_MAX);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW) {
			/* the value as read, not as stored: stored text could hold
			 * anything, a newline too, and the message is one line */
			snprintf(err, errlen,
				 "damaged trace: %s row %lld has %s %lld, out of range "
				 "(0 to 2^62 ns)",
				 table, (long long)sqlite3_column_int64(st, 0), col,
				 (long long)sqlite3_column_int64(st, 1));
			found = 1;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!found)
		snprintf(err, errlen, "damaged trace: a time in %s is out of range (0 to 2^62 ns)",
			 table);
	return found;
}

void trace_range_error(sqlite3 *db, const char *table, const char *col, int64_t lo, int64_t hi,
		       int64_t null_as, char *err, size_t errlen)
{
	char sql[512];
	sqlite3_stmt *st = NULL;

	snprintf(sql, sizeof(sql),
		 "SELECT rowid, v FROM (SELECT rowid, coalesce(CAST(\"%s\" AS INTEGER), %lld) "
		 "AS v FROM \"%s\") WHERE v NOT BETWEEN %lld AND %lld ORDER BY rowid LIMIT 1",
		 col, (long long)null_as, table, (long long)lo, (long long)hi);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		snprintf(err, errlen,
			 "damaged trace: %s row %lld has %s %lld, out of range (%lld to %lld)",
			 table, (long long)sqlite3_column_int64(st, 0), col,
			 (long long)sqlite3_column_int64(st, 1), (long long)lo, (long long)hi);
	else
		snprintf(err, errlen, "damaged trace: a %s in %s is out of range (%lld to %lld)",
			 col, table, (long long)lo, (long long)hi);
	sqlite3_finalize(st);
}

int trace_check_places(struct trace *t, char *err, size_t errlen)
{
	static const char *const tables[] = {"kernels", "memcpys", "memsets"};
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char sql[320];
		sqlite3_stmt *st = NULL;
		int rc, dev_bad = 0;

		/* as the loaders read them: sqlite3_column_int64, NULL as 0 */
		snprintf(
		    sql, sizeof(sql),
		    "SELECT coalesce(CAST(device AS INTEGER), 0) NOT BETWEEN 0 AND 32767 FROM %s"
		    " WHERE coalesce(CAST(device AS INTEGER), 0) NOT BETWEEN 0 AND 32767 OR"
		    " coalesce(CAST(stream AS INTEGER), 0) NOT BETWEEN 0 AND %lld LIMIT 1",
		    tables[i], (long long)UINT32_MAX);
		if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
			snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(t->db));
			return -1;
		}
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			dev_bad = sqlite3_column_int(st, 0);
		else if (rc != SQLITE_DONE)
			snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(t->db));
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW) {
			trace_range_error(t->db, tables[i], dev_bad ? "device" : "stream", 0,
					  dev_bad ? 32767 : (int64_t)UINT32_MAX, 0, err, errlen);
			return -1;
		}
		if (rc != SQLITE_DONE) {
			trace_too_long(t, err, errlen);
			return -1;
		}
	}
	/* the ops' durations in all, as trace_load's check_sums adds them
	 * (total() is a double: it cannot overflow as sum() would) */
	{
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(
		    t->db,
		    /* rows with times out of range are the time checks' to
		     * name (each verb's, with the row) */
		    "SELECT total(e - s) FROM (SELECT CAST(start AS INTEGER) AS s, CAST(end AS"
		    " INTEGER) AS e FROM (SELECT start, end FROM kernels UNION ALL SELECT start,"
		    " end FROM memcpys UNION ALL SELECT start, end FROM memsets))"
		    " WHERE s BETWEEN 0 AND 4611686018427387904 AND e BETWEEN s AND"
		    " 4611686018427387904",
		    -1, &st, NULL);
		double total = 0;
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
			total = sqlite3_column_double(st, 0);
		if (rc != SQLITE_ROW)
			snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(t->db));
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW) {
			trace_too_long(t, err, errlen);
			return -1;
		}
		if (total > (double)TRACE_TIME_MAX) {
			snprintf(
			    err, errlen,
			    "damaged trace: the GPU operations (kernels, memcpys, memsets) last "
			    "more than 2^62 ns (146 years) in all, what no recording holds; their "
			    "totals would not fit");
			return -1;
		}
	}
	return 0;
}

/* name of a device from the trace's devices table (malloc'ed) or NULL */
char *trace_device_name(struct trace *t, int dev)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (!t || !t->db ||
	    sqlite3_prepare_v2(t->db, "SELECT name FROM devices WHERE id=?", -1, &st, NULL) !=
		SQLITE_OK)
		return NULL;
	sqlite3_bind_int(st, 1, dev);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

char *trace_thread_name(struct trace *t, uint32_t tid)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (!t || !t->db ||
	    sqlite3_prepare_v2(t->db, "SELECT name FROM threads WHERE tid=?", -1, &st, NULL) !=
		SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, tid);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
	    *sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

void trace_library_init(void)
{
	/* SQLite's memory statistics take one global mutex on every
	 * allocation, which serialises trace_load()'s reader threads; we do
	 * not use them. Must precede the first connection; harmless (an error
	 * code) if SQLite was already initialised. */
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
