/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * import_out.c - the output side of `gapscope import` (see import_out.h):
 * the temporary database and its rename, and the derivations.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fatal_signals.h"
#include "gapscope/trace_format.h"
#include "import_out.h"

/* ------------------------------------------------------------ the output file */

/* The temporary database a signal must remove (async-signal-safe handler). */
static char sig_tmp[4096];
static const int sig_nums[] = {GS_FATAL_SIGNALS};
#define N_SIGS (sizeof(sig_nums) / sizeof(sig_nums[0]))
static struct sigaction sig_old[N_SIGS];
static int sig_armed[N_SIGS];

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	if (gs_signal_is_file_limit(sig, info))
		return; /* ulimit -f: SQLite's write fails, and the import says so */
	if (sig_tmp[0])
		unlink(sig_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void arm_signals(const char *tmp)
{
	struct sigaction sa;
	size_t i;

	snprintf(sig_tmp, sizeof(sig_tmp), "%s", tmp);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_SIGS; i++) {
		struct sigaction cur;
		sig_armed[i] = sigaction(sig_nums[i], NULL, &cur) == 0 &&
			       cur.sa_handler == SIG_DFL && !(cur.sa_flags & SA_SIGINFO) &&
			       sigaction(sig_nums[i], &sa, &sig_old[i]) == 0;
	}
}

static void disarm_signals(void)
{
	size_t i;

	for (i = 0; i < N_SIGS; i++)
		if (sig_armed[i])
			sigaction(sig_nums[i], &sig_old[i], NULL);
	sig_tmp[0] = '\0';
}

/* The file to replace (a symbolic link's target) and a new temporary file
 * beside it. Returns 0 or -1 with err set. */
static int make_tmp(const char *path, char **target, char **tmp, char *err, size_t errlen)
{
	struct stat st;
	char *t = NULL, *slash, *x;
	int fd;

	*target = *tmp = NULL;
	if (!*path || !strcmp(path, "-")) {
		snprintf(err, errlen, "a trace database must be a file, not standard output");
		return -1;
	}
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		t = realpath(path, NULL);
		if (!t) {
			snprintf(err, errlen, "cannot write: the link's target: %s",
				 strerror(errno));
			return -1;
		}
	} else {
		t = strdup(path);
	}
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (stat(t, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "cannot write: %s",
			 S_ISDIR(st.st_mode)
			     ? "is a directory"
			     : "not a regular file (a trace database must be a file)");
		free(t);
		return -1;
	}
	/* a file this user could not have written in place is not replaced
	 * by the rename either (out_file.c does the same) */
	if (stat(t, &st) == 0 && access(t, W_OK) != 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		free(t);
		return -1;
	}
	x = malloc(strlen(t) + 32);
	if (!x) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* at most 200 bytes of the name in the temporary one's, as
	 * out_file.c does: a name of 255 bytes is a name */
	slash = strrchr(t, '/');
	if (slash)
		sprintf(x, "%.*s/.%.200s.gapscope-XXXXXX", (int)(slash - t), t, slash + 1);
	else
		sprintf(x, ".%.200s.gapscope-XXXXXX", t);
	fd = mkstemp(x);
	if (fd < 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		free(t);
		free(x);
		return -1;
	}
	/* mkstemp makes it 0600: the mode a new file would get (umask), or
	 * the one of the file it replaces */
	if (stat(t, &st) == 0) {
		(void)fchmod(fd, st.st_mode & 07777);
	} else {
		mode_t um = umask(0);
		umask(um);
		(void)fchmod(fd, 0666 & ~um);
	}
	close(fd);
	*target = t;
	*tmp = x;
	return 0;
}

int import_out_open(struct import_out *o, const char *path, char *err, size_t errlen)
{
	sigset_t set, old;
	size_t i;

	memset(o, 0, sizeof(*o));
	/* the fatal signals wait from before the temporary file exists until
	 * its handler knows its name (out_file.c does the same): a SIGQUIT
	 * right after mkstemp left it behind */
	sigemptyset(&set);
	for (i = 0; i < N_SIGS; i++)
		sigaddset(&set, sig_nums[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	if (make_tmp(path, &o->target, &o->tmp, err, errlen) < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return IMPORT_ERR_TARGET;
	}
	arm_signals(o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	{
		/* URI file names on (nsys_import attaches its source read-only
		 * through one); our own path is never taken for one */
		char *p = malloc(strlen(o->tmp) + 3);
		int rc;
		if (!p) {
			snprintf(err, errlen, "out of memory");
			return IMPORT_ERR_OUTPUT;
		}
		sprintf(p, "%s%s", strncmp(o->tmp, "file:", 5) ? "" : "./", o->tmp);
		rc = sqlite3_open_v2(p, &o->db,
				     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, NULL);
		free(p);
		if (rc != SQLITE_OK) {
			snprintf(err, errlen, "cannot write the database (opening): %s",
				 o->db ? sqlite3_errmsg(o->db) : "out of memory");
			return IMPORT_ERR_OUTPUT;
		}
	}
	/* A private new file, renamed into place only when complete: no
	 * journal is needed (a failed import is thrown away whole), and
	 * temporary b-trees (index builds) go to files, not to memory. */
	if (sqlite3_exec(o->db,
			 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
			 " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;"
			 " PRAGMA temp_store=FILE;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    gs_schema_create(o->db) != 0) {
		snprintf(err, errlen, "cannot write the database (creating the schema): %s",
			 sqlite3_errmsg(o->db));
		return IMPORT_ERR_OUTPUT;
	}
	/* the trace verbs' defences, after the pragmas: defensive mode
	 * refuses journal_mode=OFF, which is set by then */
	o->guard = trace_guard_new();
	if (!o->guard) {
		snprintf(err, errlen, "out of memory");
		return IMPORT_ERR_OUTPUT;
	}
	if (trace_guard_db(o->guard, o->db, &o->watch, err, errlen) < 0)
		return IMPORT_ERR_OUTPUT;
	return 0;
}

int import_out_too_long(const struct import_out *o, const char *what, char *err, size_t errlen)
{
	long long ms;

	if (!trace_guard_tripped(o->guard))
		return 0;
	ms = (long long)trace_guard_limit_ms(o->guard);
	if (ms >= 1000)
		snprintf(err, errlen, "a query ran too long (over %lld s): the %s may be hostile",
			 ms / 1000, what);
	else
		snprintf(err, errlen, "a query ran too long (over %lld ms): the %s may be hostile",
			 ms, what);
	return 1;
}

int import_out_attach(struct import_out *o, const char *uri)
{
	return trace_guard_attach(&o->watch, uri, "src");
}

int import_out_commit(struct import_out *o, char *err, size_t errlen)
{
	int fd;

	if (sqlite3_exec(o->db, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot write the database (commit): %s",
			 sqlite3_errmsg(o->db));
		return IMPORT_ERR_OUTPUT;
	}
	if (sqlite3_close(o->db) != SQLITE_OK) {
		snprintf(err, errlen, "cannot write the database (closing): %s",
			 sqlite3_errmsg(o->db));
		return IMPORT_ERR_OUTPUT;
	}
	o->db = NULL;
	fd = open(o->tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return IMPORT_ERR_OUTPUT;
	}
	close(fd);
	if (rename(o->tmp, o->target) != 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		return IMPORT_ERR_OUTPUT;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void import_out_close(struct import_out *o)
{
	if (o->db)
		sqlite3_close_v2(o->db);
	o->db = NULL;
	if (o->tmp) {
		unlink(o->tmp);
		free(o->tmp);
	}
	o->tmp = NULL;
	disarm_signals();
	free(o->target);
	o->target = NULL;
	trace_guard_free(o->guard);
	o->guard = NULL;
}

int import_out_meta(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *q = NULL;
	int rc = SQLITE_ERROR;

	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", -1, &q,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, value, -1, SQLITE_STATIC);
		rc = sqlite3_step(q);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

int import_out_meta_int(sqlite3 *db, const char *key, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return import_out_meta(db, key, buf);
}

int64_t import_out_intern(sqlite3 *db, const char *s)
{
	sqlite3_stmt *q = NULL;
	int64_t id = 0;

	if (sqlite3_prepare_v2(db, "SELECT id FROM strings WHERE value = ?1 LIMIT 1", -1, &q,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, s, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (id)
		return id;
	if (sqlite3_prepare_v2(db, "INSERT INTO strings(value) VALUES(?1)", -1, &q, NULL) !=
	    SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, s, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(q);
	return id;
}

/* ------------------------------------------------------------ derivations */

struct dctx {
	sqlite3 *db;
	struct import_derived *d;
	const char **what;
};

static int fail(struct dctx *c, const char *what)
{
	*c->what = what;
	return -1;
}

static int exec(struct dctx *c, const char *sql, const char *what)
{
	if (sqlite3_exec(c->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail(c, what);
	return 0;
}

/* SQL over api_calls a: a is no driver call under a recorded runtime call
 * of its correlation id (the same call); two %d: GS_API_DRIVER,
 * GS_API_RUNTIME */
#define NOT_UNDER_RUNTIME                                                                          \
	"NOT (a.api = %d AND EXISTS (SELECT 1 FROM api_calls r"                                    \
	" WHERE r.correlation_id = a.correlation_id AND r.api = %d))"

/* The calls that block the host until the GPU is done (the collector's
 * sync_calls, collector/collector.c, less the stream waits, which block no
 * host); a name also matches with a suffix ("_ptsz", "_v2"). */
static const struct {
	const char *name;
	int kind;
} sync_apis[] = {
    {"cudaStreamSynchronize", GS_SYNC_STREAM},
    {"cudaEventSynchronize", GS_SYNC_EVENT},
    {"cudaDeviceSynchronize", GS_SYNC_CONTEXT},
    {"cudaThreadSynchronize", GS_SYNC_CONTEXT},
    {"cuStreamSynchronize", GS_SYNC_STREAM},
    {"cuEventSynchronize", GS_SYNC_EVENT},
    {"cuCtxSynchronize", GS_SYNC_CONTEXT},
    /* a GPU-side wait: it blocks no host, so it makes no sync of its own
     * below; its name still says a wait record's kind (nsys_import.c) */
    {"cudaStreamWaitEvent", GS_SYNC_STREAM_WAIT_EVENT},
    {"cuStreamWaitEvent", GS_SYNC_STREAM_WAIT_EVENT},
};

int import_out_sync_apis(sqlite3 *db)
{
	char sql[512];
	size_t i;

	if (sqlite3_exec(db,
			 "CREATE TEMP TABLE IF NOT EXISTS sync_api(name_id INTEGER PRIMARY KEY,"
			 " kind INTEGER);",
			 NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	for (i = 0; i < sizeof(sync_apis) / sizeof(sync_apis[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO temp.sync_api SELECT id, %d FROM strings"
			 " WHERE value = '%s' OR value LIKE '%s\\_%%' ESCAPE '\\';",
			 sync_apis[i].kind, sync_apis[i].name, sync_apis[i].name);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return -1;
	}
	return 0;
}

/* A sync call without a cuda_sync record of its correlation id (Kineto
 * writes them from PyTorch 2.1, and only with CUPTI's SYNCHRONIZATION
 * kind): an explicit sync row of the call's time, as the collector makes
 * one from its callback, with the stream and event unknown. Without it a
 * 158 ms cudaDeviceSynchronize was no sync at all (HTA's A100 trace of
 * torch.compile'd graphs). The device is the trace's only one, else
 * unknown. A driver call under a recorded runtime call is the same call. */
static int derive_sync_calls(struct dctx *im)
{
	char sql[1024];

	if (import_out_sync_apis(im->db) < 0)
		return fail(im, "deriving syncs from calls");
	snprintf(sql, sizeof(sql),
		 "INSERT INTO syncs(start, end, kind, implicit, api_name_id, device,"
		 " correlation_id, pid, tid)"
		 " SELECT a.start, a.end, i.kind, 0, a.name_id,"
		 " (SELECT CASE WHEN count(*) = 1 THEN min(d) END FROM"
		 "  (SELECT device AS d FROM kernels UNION SELECT device FROM memcpys"
		 "   UNION SELECT device FROM memsets)),"
		 " a.correlation_id, a.pid, a.tid"
		 " FROM api_calls a JOIN temp.sync_api i ON i.name_id = a.name_id"
		 " WHERE i.kind <> %d AND " NOT_UNDER_RUNTIME
		 /* one lookup in a list built once: a correlated NOT EXISTS
		  * over syncs (no index on its correlation id) was planned
		  * per API call, 31 s for 1M calls and 488 syncs */
		 " AND (a.correlation_id IS NULL OR a.correlation_id NOT IN (SELECT correlation_id"
		 "   FROM syncs WHERE implicit = 0 AND correlation_id IS NOT NULL))"
		 " ORDER BY a.start;",
		 GS_SYNC_STREAM_WAIT_EVENT, GS_API_DRIVER, GS_API_RUNTIME);
	if (exec(im, sql, "deriving syncs from calls") < 0)
		return -1;
	im->d->syncs_from_calls = sqlite3_changes(im->db);
	return 0;
}

/* What CUPTI's records lack and the collector completes at finalize
 * (collector/writer.c, derive_rows), done the same way: the thread and
 * API of a sync from its call (one call per correlation id, the runtime's
 * when both are there), whether a copy was an Async call, and the implicit
 * synchronisations. Not derived: legacy-default-stream syncs (Kineto does
 * not say which stream is a context's NULL stream). */
static int derive(struct dctx *im)
{
	char sql[4096];
	int64_t r_memcpy, r_pageable, r_memset;
	size_t i, n_implicit;
	const struct gs_implicit_api *implicit_apis;
	static const char one_api[] =
	    "(SELECT b.id FROM api_calls b WHERE "
	    "b.correlation_id = %s.correlation_id ORDER BY b.api LIMIT 1)";
	char one_s[256];

	r_memcpy = import_out_intern(im->db, GS_REASON_SYNC_MEMCPY);
	r_pageable = import_out_intern(im->db, GS_REASON_PAGEABLE);
	r_memset = import_out_intern(im->db, GS_REASON_MEMSET);
	if (!r_memcpy || !r_pageable || !r_memset)
		return fail(im, "adding the reasons of implicit syncs");
	snprintf(one_s, sizeof(one_s), one_api, "syncs");

	/* Kineto before PyTorch 2.1 writes no "graph id": an op launched by
	 * a cudaGraphLaunch (cuGraphLaunch, _ptsz) carries the launch's
	 * correlation id, as CUPTI gives it, which then stands in for the
	 * graph id (one per launch), so that the analysis sees graph nodes
	 * (HTA's A100 trace with torch.compile'd graphs: 100 kernels of 35
	 * graph launches read as launch overhead -> "use CUDA Graphs") */
	if (exec(im,
		 "CREATE TEMP TABLE graph_corr AS SELECT DISTINCT a.correlation_id AS c"
		 " FROM api_calls a JOIN strings s ON s.id = a.name_id"
		 " WHERE a.correlation_id IS NOT NULL AND a.correlation_id <> 0 AND"
		 " (s.value LIKE 'cudaGraphLaunch%' OR s.value LIKE 'cuGraphLaunch%');",
		 "marking graph launches") < 0)
		return -1;
	{
		static const char *const tables[] = {"kernels", "memcpys", "memsets"};
		for (i = 0; i < 3; i++) {
			snprintf(sql, sizeof(sql),
				 "UPDATE %s SET graph_id = correlation_id WHERE"
				 " COALESCE(graph_id, 0) = 0 AND"
				 " correlation_id IN (SELECT c FROM temp.graph_corr);",
				 tables[i]);
			if (exec(im, sql, "marking graph launches") < 0)
				return -1;
			im->d->graph_ops += sqlite3_changes(im->db);
		}
	}

	snprintf(sql, sizeof(sql),
		 "UPDATE syncs SET"
		 " api_name_id = (SELECT name_id FROM api_calls WHERE id = %s),"
		 " pid = (SELECT pid FROM api_calls WHERE id = %s),"
		 " tid = (SELECT tid FROM api_calls WHERE id = %s)"
		 " WHERE correlation_id IS NOT NULL;",
		 one_s, one_s, one_s);
	if (exec(im, sql, "completing sync rows") < 0)
		return -1;
	if (derive_sync_calls(im) < 0)
		return -1;
	/* event records (CUPTI's carry no host time; Kineto's are made from
	 * stream waits): at their record call */
	if (exec(im,
		 "UPDATE events SET start = COALESCE((SELECT b.start FROM api_calls b"
		 " WHERE b.correlation_id = events.correlation_id ORDER BY b.api LIMIT 1), start)"
		 " WHERE correlation_id IS NOT NULL;",
		 "placing event records") < 0)
		return -1;
	if (exec(im,
		 "CREATE TEMP TABLE async_api AS SELECT id FROM strings"
		 " WHERE instr(value, 'Async') > 0;"
		 "UPDATE memcpys SET is_async = 1 WHERE correlation_id IS NOT NULL AND"
		 " (SELECT name_id FROM api_calls b WHERE b.correlation_id = memcpys.correlation_id"
		 "  ORDER BY b.api LIMIT 1) IN (SELECT id FROM temp.async_api);"
		 "UPDATE memsets SET is_async = 1 WHERE correlation_id IS NOT NULL AND"
		 " (SELECT name_id FROM api_calls b WHERE b.correlation_id = memsets.correlation_id"
		 "  ORDER BY b.api LIMIT 1) IN (SELECT id FROM temp.async_api);",
		 "marking Async copies") < 0)
		return -1;

	/* the collector's own derivations (collector/schema.c) */
	if (gs_derive_copy_syncs(im->db, r_memcpy, r_pageable, r_memset) != SQLITE_OK)
		return fail(im, "deriving implicit syncs (copies)");
	if (gs_derive_api_tables(im->db) != SQLITE_OK)
		return fail(im, "deriving implicit syncs");
	implicit_apis = gs_implicit_apis(&n_implicit); /* the collector's list */
	for (i = 0; i < n_implicit; i++) {
		int64_t rid = import_out_intern(im->db, implicit_apis[i].reason);
		if (!rid)
			return fail(im, "adding the reasons of implicit syncs");
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO temp.implicit_api SELECT id, %d, %lld FROM strings"
			 " WHERE value = '%s';",
			 implicit_apis[i].kind, (long long)rid, implicit_apis[i].name);
		if (exec(im, sql, "deriving implicit syncs") < 0)
			return -1;
	}
	if (gs_derive_api_syncs(im->db) != SQLITE_OK)
		return fail(im, "deriving implicit syncs (API calls)");
	im->d->implicit_syncs = sqlite3_changes(im->db);
	{
		/* stream waits called but not recorded (Kineto before PyTorch
		 * 2.1 writes no cuda_sync events): what they held reads as
		 * other (docs/metrics.md, rule 5), and import says so */
		sqlite3_stmt *q = NULL;
		if (sqlite3_prepare_v2(
			im->db,
			"SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id"
			" WHERE (s.value LIKE 'cudaStreamWaitEvent%' OR"
			" s.value LIKE 'cuStreamWaitEvent%') AND NOT EXISTS"
			" (SELECT 1 FROM syncs WHERE kind = 2)",
			-1, &q, NULL) == SQLITE_OK &&
		    sqlite3_step(q) == SQLITE_ROW)
			im->d->waits_unrecorded = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	{
		sqlite3_stmt *q = NULL;
		if (sqlite3_prepare_v2(im->db, "SELECT count(*) FROM syncs WHERE implicit = 1", -1,
				       &q, NULL) == SQLITE_OK &&
		    sqlite3_step(q) == SQLITE_ROW)
			im->d->implicit_syncs = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	return 0;
}

void import_stats_add_derived(struct import_stats *st, const struct import_derived *d)
{
	st->graph_ops = d->graph_ops;
	st->syncs_from_calls = d->syncs_from_calls;
	st->syncs += d->syncs_from_calls;
	st->implicit_syncs = d->implicit_syncs;
	st->waits_unrecorded = d->waits_unrecorded;
}

int import_derive(sqlite3 *db, struct import_derived *d, const char **what)
{
	struct dctx c = {db, d, what};

	memset(d, 0, sizeof(*d));
	*what = "";
	if (derive(&c) < 0)
		return -1;
	if (import_out_meta_int(db, "import.graph_ops_from_launch", d->graph_ops) < 0 ||
	    import_out_meta_int(db, "import.syncs_from_calls", d->syncs_from_calls) < 0 ||
	    import_out_meta_int(db, "import.stream_waits_unrecorded", d->waits_unrecorded) < 0)
		return fail(&c, "meta");
	return 0;
}
