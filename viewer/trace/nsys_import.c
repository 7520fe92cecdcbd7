/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * nsys_import.c - an Nsight Systems SQLite export -> a gapscope trace
 * database (see nsys_import.h).
 *
 * The export holds CUPTI's records much as the collector gets them, one
 * table per kind (CUPTI_ACTIVITY_KIND_KERNEL, _RUNTIME, _MEMCPY, _MEMSET,
 * _SYNCHRONIZATION, _CUDA_EVENT), names in StringIds, NVTX in NVTX_EVENTS.
 * It is attached read-only to the new database and copied with INSERT ...
 * SELECT, SQLite doing the work. The layout, from the exports of Nsight
 * Systems 2022.1 to 2025.5 (and NVIDIA's "SQLite Export Schema Reference"):
 *
 *   - times are ns since the session start (TARGET_INFO_SESSION_START_TIME
 *     .utcEpochNs is that start in Unix time);
 *   - threads and processes are "global ids": (vm << 48) | (pid << 24) | tid;
 *   - ENUM_CUDA_MEM_KIND counts from 0 (pageable), CUPTI's from 1: +1;
 *     copy kinds are CUPTI's own numbers, sync types only in 2025 exports
 *     (copy_syncs: before, the call's name says the kind);
 *   - calls are named with their CUPTI callback's version suffix
 *     (cudaLaunchKernel_v7000, cuMemAlloc_v2), which the collector's names
 *     do not have;
 *   - a context sync has stream and event 0xffffffff (CUPTI's "invalid").
 *
 * Columns that some versions lack are read only when present (has_col).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"
#include "import_out.h"
#include "nsys_import.h"

#define KERNEL_T "CUPTI_ACTIVITY_KIND_KERNEL"
#define RUNTIME_T "CUPTI_ACTIVITY_KIND_RUNTIME"
#define MEMCPY_T "CUPTI_ACTIVITY_KIND_MEMCPY"
#define MEMSET_T "CUPTI_ACTIVITY_KIND_MEMSET"
#define SYNC_T "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
#define EVENT_T "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
#define GRAPH_T "CUPTI_ACTIVITY_KIND_GRAPH_TRACE"

/* a global thread or process id's pid and tid (SQL over column x) */
#define PID_OF(x) "((" x ") >> 24 & 16777215)"
#define TID_OF(x) "((" x ") & 16777215)"
/* a row's times (columns prefix start, prefix end) are ns a trace can
 * hold: integers, in order, from 0 to 2^62; other rows are left out */
#define TIMES(p)                                                                                   \
	"typeof(" p "start) = 'integer' AND typeof(" p "end) = 'integer' AND " p                   \
	"start >= 0 AND " p "end >= " p "start AND " p "end < 4611686018427387904"
/* a GPU op's device and stream are ones a trace can hold (trace.h,
 * TRACE_DEVICE_OK, TRACE_STREAM_OK); other rows are left out */
#define PLACE " AND deviceId BETWEEN 0 AND 32767 AND streamId BETWEEN 0 AND 4294967295"
/* CUPTI's "invalid" stream or event id of a sync record */
#define SYNC_NONE "4294967295"

struct nim {
	sqlite3 *db; /* the new trace, the export attached as "src" */
	struct import_out *out; /* db's owner: its defences (views off, the query bound) */
	struct import_stats *st;
	char err[512];
	int err_kind; /* IMPORT_ERR_* */
	/* with one process imported: " AND <its globalPid>", " AND <its
	 * globalTid>" (SQL over the export's rows); else "" */
	char only_p[64], only_t[64], only_t_e[64];
	int64_t pid; /* that process, or -1 */
};

static int fail_db(struct nim *m, const char *what)
{
	int code = sqlite3_extended_errcode(m->db) & 0xff;

	/* the new database is ours and fresh: damage SQLite meets is the
	 * export's (a corrupt page read may also end the transaction, so
	 * that a later write is the step that fails) */
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
		snprintf(m->err, sizeof(m->err), "damaged Nsight Systems export (%s): %s", what,
			 sqlite3_errmsg(m->db));
		m->err_kind = IMPORT_ERR_INPUT;
		return -1;
	}
	snprintf(m->err, sizeof(m->err), "cannot write the database (%s): %s", what,
		 sqlite3_errmsg(m->db));
	m->err_kind = IMPORT_ERR_OUTPUT;
	return -1;
}

static int fail_input(struct nim *m, const char *msg)
{
	snprintf(m->err, sizeof(m->err), "%s", msg);
	m->err_kind = IMPORT_ERR_INPUT;
	return -1;
}

/* Run sql; on failure the export was unreadable (damaged) or the database
 * unwritable: SQLite's error code tells which. */
static int exec(struct nim *m, const char *sql, const char *what)
{
	int rc = sqlite3_exec(m->db, sql, NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		return 0;
	rc = sqlite3_extended_errcode(m->db) & 0xff;
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB || rc == SQLITE_ERROR) {
		/* SQLITE_ERROR: a column of the wrong kind, a missing table the
		 * export's schema promised */
		snprintf(m->err, sizeof(m->err), "damaged or unexpected Nsight Systems export (%s): %s",
			 what, sqlite3_errmsg(m->db));
		m->err_kind = IMPORT_ERR_INPUT;
		return -1;
	}
	return fail_db(m, what);
}

static int64_t query_int(struct nim *m, const char *sql, int64_t otherwise)
{
	sqlite3_stmt *q = NULL;
	int64_t v = otherwise;

	if (sqlite3_prepare_v2(m->db, sql, -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

static int has_table(struct nim *m, const char *table)
{
	return trace_db_schema_has_table(m->db, "src", table);
}

static int has_col(struct nim *m, const char *table, const char *col)
{
	sqlite3_stmt *q = NULL;
	int found;

	found = sqlite3_prepare_v2(m->db,
				   "SELECT 1 FROM pragma_table_info(?1, 'src') WHERE name = ?2", -1,
				   &q, NULL) == SQLITE_OK &&
		sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC) == SQLITE_OK &&
		sqlite3_bind_text(q, 2, col, -1, SQLITE_STATIC) == SQLITE_OK &&
		sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return found;
}

/* the column's name when the table has it, else `otherwise` (SQL) */
static const char *col(struct nim *m, const char *table, const char *c, const char *otherwise)
{
	return has_col(m, table, c) ? c : otherwise;
}

/* ------------------------------------------------------------ the source */

/* 1 when the regular file at path begins with the n bytes of head */
static int file_begins(const char *path, const char *head, size_t n)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat sb;
	int is = 0;

	if (fd < 0)
		return 0;
	if (n <= sizeof(buf) && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    read(fd, buf, n) == (ssize_t)n)
		is = !memcmp(buf, head, n);
	close(fd);
	return is;
}

int nsys_file_is_report(const char *path)
{
	return file_begins(path, NSYS_REPORT_MAGIC, sizeof(NSYS_REPORT_MAGIC) - 1);
}

int nsys_file_is_sqlite(const char *path)
{
	return file_begins(path, "SQLite format 3", 16); /* with its NUL */
}

/* "file:" URI of path, read-only: every byte but [A-Za-z0-9/._~-]
 * percent-encoded (a '?' or '#' in a file name is no query) */
static char *ro_uri(const char *path)
{
	static const char keep[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789/._~-";
	size_t n = strlen(path), i, o = 0;
	char *u = malloc(n * 3 + 32);

	if (!u)
		return NULL;
	o += (size_t)sprintf(u, "file:");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];
		if (c && strchr(keep, c))
			u[o++] = (char)c;
		else
			o += (size_t)sprintf(u + o, "%%%02X", c);
	}
	sprintf(u + o, "?mode=ro");
	return u;
}

/* The export's tables that the import reads by name (count_unmapped
 * reads the others, plain tables only). */
static const char *const read_tables[] = {
    KERNEL_T,
    RUNTIME_T,
    MEMCPY_T,
    MEMSET_T,
    SYNC_T,
    EVENT_T,
    GRAPH_T,
    "StringIds",
    "NVTX_EVENTS",
    "ThreadNames",
    "PROCESSES",
    "ProcessStreams",
    "EXPORT_META_DATA",
    "META_DATA_CAPTURE",
    "META_DATA_EXPORT",
    "TARGET_INFO_CUDA_CONTEXT_INFO",
    "TARGET_INFO_CUDA_DEVICE",
    "TARGET_INFO_CUDA_NULL_STREAM",
    "TARGET_INFO_CUDA_STREAM",
    "TARGET_INFO_GPU",
    "TARGET_INFO_SESSION_START_TIME",
    "TARGET_INFO_SYSTEM_ENV",
    "meta",
};

/* Every table the import reads must be a plain table, as for the trace
 * verbs (trace.c, check_tables): a view (an endless recursive CTE under
 * StringIds hung the import) or a virtual table is refused by name. The
 * connection runs with views off anyway (trace_guard_db): this is the
 * clear line instead of SQLite's "access to view prohibited". */
static int check_plain(struct nim *m)
{
	sqlite3_stmt *q = NULL;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(m->db,
			       "SELECT type FROM pragma_table_list WHERE schema = 'src' AND"
			       " name = ?1 COLLATE NOCASE",
			       -1, &q, NULL) != SQLITE_OK)
		return exec(m, "SELECT 1 FROM pragma_table_list", "listing tables");
	for (i = 0; !rc && i < sizeof(read_tables) / sizeof(read_tables[0]); i++) {
		const char *type;
		sqlite3_reset(q);
		sqlite3_bind_text(q, 1, read_tables[i], -1, SQLITE_STATIC);
		if (sqlite3_step(q) != SQLITE_ROW)
			continue;
		type = (const char *)sqlite3_column_text(q, 0);
		if (type && !strcmp(type, "table"))
			continue;
		snprintf(m->err, sizeof(m->err),
			 "damaged or hostile Nsight Systems export: %s is a %s, not a plain table",
			 read_tables[i], type && strlen(type) < 16 ? type : "(unknown)");
		m->err_kind = IMPORT_ERR_INPUT;
		rc = -1;
	}
	sqlite3_finalize(q);
	return rc;
}

/* Attach the export and check that it is one. */
static int attach(struct nim *m, const char *path)
{
	char *uri = ro_uri(path);
	int rc;

	if (!uri)
		return fail_input(m, "out of memory");
	rc = import_out_attach(m->out, uri);
	free(uri);
	/* a damaged file fails at the ATTACH (which reads its schema), or at
	 * the first read */
	if (rc != SQLITE_OK || sqlite3_exec(m->db, "SELECT count(*) FROM src.sqlite_master", NULL,
					    NULL, NULL) != SQLITE_OK) {
		int code = sqlite3_extended_errcode(m->db) & 0xff;
		if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
			snprintf(m->err, sizeof(m->err), "%s",
				 code == SQLITE_NOTADB
				     ? "not an SQLite database (nor a Kineto JSON trace)"
				     : "damaged SQLite database (truncated or corrupt)");
		else
			snprintf(m->err, sizeof(m->err), "cannot open: %s", sqlite3_errmsg(m->db));
		m->err_kind = IMPORT_ERR_INPUT;
		return -1;
	}
	if (has_table(m, "meta") && query_int(m,
					       "SELECT count(*) FROM src.meta WHERE key ="
					       " 'schema_version'",
					       0) > 0)
		return fail_input(m, "already a gapscope trace: every verb reads it as it is, "
				     "no import needed");
	if (check_plain(m) < 0)
		return -1;
	if (!has_table(m, "StringIds"))
		return fail_input(m, "SQLite database, but not an Nsight Systems export "
				     "(no StringIds table)");
	if (!has_table(m, KERNEL_T) && !has_table(m, RUNTIME_T) && !has_table(m, MEMCPY_T) &&
	    !has_table(m, MEMSET_T))
		return fail_input(m, "an Nsight Systems export without CUDA trace (no kernels, "
				     "copies or CUDA calls): profile with nsys --trace=cuda");
	return 0;
}

/* The process to import: `want` (-1: the only one with GPU work, or all
 * when none has any). A trace is one process's: an export of several
 * processes with GPU work (ranks of one job, each with its device 0) is
 * imported one process at a time. */
static int choose_process(struct nim *m, int64_t want)
{
	static const char *const gpu[] = {KERNEL_T, MEMCPY_T, MEMSET_T};
	char sql[1024], list[160] = "";
	sqlite3_stmt *q = NULL;
	size_t i, n = 0;
	int64_t count = 0, one = -1;
	int found = 0;

	n += (size_t)snprintf(sql, sizeof(sql), "SELECT pid FROM (SELECT NULL AS pid");
	for (i = 0; i < 3; i++)
		if (has_table(m, gpu[i]) && has_col(m, gpu[i], "globalPid"))
			n += (size_t)snprintf(
			    sql + n, sizeof(sql) - n,
			    " UNION SELECT DISTINCT " PID_OF("globalPid") " FROM src.%s", gpu[i]);
	snprintf(sql + n, sizeof(sql) - n, ") WHERE pid IS NOT NULL ORDER BY pid");
	if (sqlite3_prepare_v2(m->db, sql, -1, &q, NULL) != SQLITE_OK)
		return exec(m, sql, "listing processes");
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t p = sqlite3_column_int64(q, 0);
		size_t len = strlen(list);
		if (count < 8 && len + 24 < sizeof(list))
			snprintf(list + len, sizeof(list) - len, "%s%lld", count ? ", " : "",
				 (long long)p);
		found |= p == want;
		one = p;
		count++;
	}
	sqlite3_finalize(q);
	if (count > 8)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", ...");
	if (want < 0 && count > 1) {
		snprintf(
		    m->err, sizeof(m->err),
		    "the export holds %lld processes with GPU work (pids %s): a gapscope trace "
		    "is one process's; import each with --pid PID",
		    (long long)count, list);
		m->err_kind = IMPORT_ERR_INPUT;
		return -1;
	}
	if (want >= 0 && !found) {
		if (count)
			snprintf(m->err, sizeof(m->err),
				 "no GPU work of process %lld in the export (processes with GPU "
				 "work: %s)",
				 (long long)want, list);
		else
			snprintf(m->err, sizeof(m->err),
				 "--pid %lld: the export holds no GPU work of any process",
				 (long long)want);
		m->err_kind = IMPORT_ERR_INPUT;
		return -1;
	}
	if (want < 0)
		want = count == 1 ? one : -1;
	m->pid = want;
	if (want >= 0) {
		snprintf(m->only_p, sizeof(m->only_p), " AND " PID_OF("globalPid") " = %lld",
			 (long long)want);
		snprintf(m->only_t, sizeof(m->only_t), " AND " PID_OF("r.globalTid") " = %lld",
			 (long long)want);
		snprintf(m->only_t_e, sizeof(m->only_t_e), " AND " PID_OF("e.globalTid") " = %lld",
			 (long long)want);
	}
	return 0;
}

/* ------------------------------------------------------------ the rows */

/* A CUDA call's name as the collector writes it: CUPTI's function name
 * without the version suffix of its callback id (cudaLaunchKernel_v7000,
 * cuMemAlloc_v2 -> cudaLaunchKernel, cuMemAlloc; cudaMemcpyAsync_ptsz_v7000
 * -> cudaMemcpyAsync_ptsz): gs_api_plain_len(), as the collector's */
static void api_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char *s = (const char *)sqlite3_value_text(argv[0]);

	(void)argc;
	if (!s)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_text(ctx, s, (int)gs_api_plain_len(s), SQLITE_TRANSIENT);
}

/* strings: the export's ids are kept, so name columns copy as they are;
 * only the names the mapped tables use (StringIds also holds file paths,
 * command lines and the like); call names get their own (suffix-less)
 * strings */
static int copy_strings(struct nim *m)
{
	static const struct {
		const char *table, *column;
	} uses[] = {
	    {KERNEL_T, "demangledName"},
	    {RUNTIME_T, "nameId"},
	    {"NVTX_EVENTS", "textId"},
	    {"ThreadNames", "nameId"},
	};
	char sql[1024];
	size_t i, n = 0;

	n += (size_t)snprintf(sql, sizeof(sql),
			      "INSERT INTO strings(id, value) SELECT id, value FROM src.StringIds"
			      " WHERE value IS NOT NULL AND id IN (SELECT NULL");
	for (i = 0; i < sizeof(uses) / sizeof(uses[0]); i++)
		if (has_table(m, uses[i].table) && has_col(m, uses[i].table, uses[i].column))
			n += (size_t)snprintf(sql + n, sizeof(sql) - n,
					      " UNION SELECT %s FROM src.%s", uses[i].column,
					      uses[i].table);
	snprintf(sql + n, sizeof(sql) - n, ") ORDER BY id;");
	if (exec(m, sql, "copying names") < 0)
		return -1;
	if (sqlite3_create_function(m->db, "gs_nsys_api_name", 1,
				    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, api_name, NULL,
				    NULL) != SQLITE_OK)
		return fail_db(m, "registering a function");
	if (exec(m, "CREATE TEMP TABLE api_map(src INTEGER PRIMARY KEY, dst INTEGER);", "API names") <
	    0)
		return -1;
	if (!has_table(m, RUNTIME_T))
		return 0;
	return exec(m,
		    "CREATE TEMP TABLE api_src AS SELECT s.id AS id, gs_nsys_api_name(s.value) AS name"
		    " FROM strings s WHERE s.id IN (SELECT DISTINCT nameId FROM src." RUNTIME_T ");"
		    "INSERT INTO strings(value) SELECT DISTINCT a.name FROM temp.api_src a"
		    " WHERE a.name NOT IN (SELECT value FROM strings);"
		    "CREATE TEMP TABLE api_ids AS SELECT value, MIN(id) AS id FROM strings"
		    " WHERE value IN (SELECT name FROM temp.api_src) GROUP BY value;"
		    "INSERT INTO temp.api_map SELECT a.id, i.id FROM temp.api_src a"
		    " JOIN temp.api_ids i ON i.value = a.name;",
		    "API names");
}

/* Rows of the export's table (of the process imported: filter, over the
 * rows as alias names them) that were not written, having times, a device
 * or a stream no trace can hold: counted, and said once at the end. */
static void left_out(struct nim *m, const char *table, const char *alias, const char *filter,
		     int64_t written)
{
	char sql[256];
	int64_t n;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM src.%s%s WHERE 1%s", table, alias, filter);
	n = query_int(m, sql, written);
	if (n > written)
		m->st->rows_left_out += n - written;
}

static int copy_api_calls(struct nim *m)
{
	char sql[1024];

	if (!has_table(m, RUNTIME_T))
		return 0;
	/* cuda* are runtime calls, other cu* driver calls (ENUM_NSYS_EVENT_CLASS
	 * says so too, but older exports lack that table) */
	snprintf(
	    sql, sizeof(sql),
	    "INSERT INTO api_calls(api, name_id, start, end, pid, tid, correlation_id,"
	    " return_code)"
	    " SELECT CASE WHEN s.value LIKE 'cuda%%' THEN %d ELSE %d END, a.dst, r.start, r.end,"
	    " " PID_OF("r.globalTid") ", " TID_OF(
		"r.globalTid") ", r.correlationId,"
			       " r.returnValue"
			       " FROM src." RUNTIME_T " r JOIN temp.api_map a ON a.src = r.nameId"
			       " JOIN strings s ON s.id = a.dst"
			       " WHERE " TIMES("r.") " AND s.value LIKE 'cu%%'%s ORDER BY r.start;",
	    GS_API_RUNTIME, GS_API_DRIVER, m->only_t);
	if (exec(m, sql, "CUDA calls") < 0)
		return -1;
	m->st->api_calls = sqlite3_changes(m->db);
	left_out(m, RUNTIME_T, " r", m->only_t, m->st->api_calls);
	return 0;
}

/* ENUM_CUDA_MEM_KIND (0 pageable .. 6 managed static, 7 unknown) as
 * CUPTI's CUpti_ActivityMemoryKind (1 pageable .. 7, 0 unknown) */
#define MEM_KIND(x) "CASE WHEN " x " BETWEEN 0 AND 6 THEN " x " + 1 ELSE 0 END"

static int copy_gpu_ops(struct nim *m)
{
	char sql[4096];

	if (has_table(m, KERNEL_T)) {
		/* the name with its templates and arguments (demangledName):
		 * the report shortens it; mangledName is missing from some
		 * versions and shortName drops the templates */
		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO kernels(start, end, device, context, stream, correlation_id,"
		    " name_id, graph_id, graph_node_id, grid_x, grid_y, grid_z, block_x, block_y,"
		    " block_z, registers, static_shared_bytes, dynamic_shared_bytes,"
		    " local_memory_bytes, launch_type)"
		    " SELECT start, end, deviceId, contextId, streamId, correlationId,"
		    " demangledName, %s, COALESCE(%s, 0), gridX, gridY, gridZ, blockX, blockY,"
		    " blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory,"
		    " %s, %s FROM src." KERNEL_T " WHERE " TIMES("") PLACE "%s ORDER BY start;",
		    col(m, KERNEL_T, "graphId", "0"), col(m, KERNEL_T, "graphNodeId", "0"),
		    col(m, KERNEL_T, "localMemoryPerThread", "NULL"),
		    col(m, KERNEL_T, "launchType", "NULL"), m->only_p);
		if (exec(m, sql, "kernels") < 0)
			return -1;
		m->st->kernels = sqlite3_changes(m->db);
		left_out(m, KERNEL_T, "", m->only_p, m->st->kernels);
	}
	if (has_table(m, MEMCPY_T)) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO memcpys(start, end, device, context, stream, correlation_id,"
			 " bytes, copy_kind, src_kind, dst_kind, is_async, src_device, dst_device,"
			 " graph_id, graph_node_id)"
			 " SELECT start, end, deviceId, contextId, streamId, correlationId, bytes,"
			 " copyKind, " MEM_KIND("srcKind") ", " MEM_KIND(
			     "dstKind") ", 0, %s, %s,"
					" %s, COALESCE(%s, 0) FROM src." MEMCPY_T
					" WHERE " TIMES("") PLACE "%s ORDER BY start;",
			 col(m, MEMCPY_T, "srcDeviceId", "NULL"),
			 col(m, MEMCPY_T, "dstDeviceId", "NULL"), col(m, MEMCPY_T, "graphId", "0"),
			 col(m, MEMCPY_T, "graphNodeId", "0"), m->only_p);
		if (exec(m, sql, "copies") < 0)
			return -1;
		m->st->memcpys = sqlite3_changes(m->db);
		left_out(m, MEMCPY_T, "", m->only_p, m->st->memcpys);
	}
	if (has_table(m, MEMSET_T)) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO memsets(start, end, device, context, stream, correlation_id,"
			 " bytes, value, mem_kind, is_async, graph_id, graph_node_id)"
			 " SELECT start, end, deviceId, contextId, streamId, correlationId, bytes,"
			 " %s, " MEM_KIND("%s") ", 0, %s, COALESCE(%s, 0) FROM src." MEMSET_T
						" WHERE " TIMES("") PLACE "%s ORDER BY start;",
			 col(m, MEMSET_T, "value", "NULL"), col(m, MEMSET_T, "memKind", "-1"),
			 col(m, MEMSET_T, "memKind", "-1"), col(m, MEMSET_T, "graphId", "0"),
			 col(m, MEMSET_T, "graphNodeId", "0"), m->only_p);
		if (exec(m, sql, "memsets") < 0)
			return -1;
		m->st->memsets = sqlite3_changes(m->db);
		left_out(m, MEMSET_T, "", m->only_p, m->st->memsets);
	}
	/* graphs traced graph-level (nsys --cuda-graph-trace=graph): one span
	 * per launch (CUpti_ActivityGraphTrace's fields), no kernel rows,
	 * as the collector's graph-level mode writes them */
	if (has_table(m, GRAPH_T) && has_col(m, GRAPH_T, "start") && has_col(m, GRAPH_T, "end") &&
	    has_col(m, GRAPH_T, "deviceId") && has_col(m, GRAPH_T, "contextId") &&
	    has_col(m, GRAPH_T, "streamId") && has_col(m, GRAPH_T, "correlationId") &&
	    has_col(m, GRAPH_T, "graphId")) {
		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO graph_runs(start, end, device, context, stream, graph_id,"
		    " correlation_id) SELECT start, end, deviceId, contextId, streamId, graphId,"
		    " correlationId FROM src." GRAPH_T " WHERE " TIMES("") PLACE
		    " AND end > start%s"
		    " ORDER BY start;",
		    has_col(m, GRAPH_T, "globalPid") ? m->only_p : "");
		if (exec(m, sql, "graph launches") < 0)
			return -1;
		m->st->graph_runs = sqlite3_changes(m->db);
	}
	return 0;
}

static int copy_syncs(struct nim *m)
{
	char sql[1024];

	if (has_table(m, SYNC_T)) {
		/* explicit syncs, as CUPTI records them; the derivations add
		 * their calls' names and threads. syncType is CUPTI's number
		 * only in exports that also have deprecatedSyncType (2025):
		 * before, cudaDeviceSynchronize was 1 (2023.3), and
		 * cudaStreamSynchronize 2 (2024.6) or 3; the kind is then
		 * taken from the call's name (sync_kinds_from_calls) */
		snprintf(
		    sql, sizeof(sql),
		    "INSERT INTO syncs(start, end, kind, implicit, device, context, stream, event,"
		    " correlation_id)"
		    " SELECT start, end, %s, 0, deviceId, contextId,"
		    " NULLIF(streamId, " SYNC_NONE "), NULLIF(eventId, " SYNC_NONE "),"
		    " correlationId FROM src." SYNC_T " WHERE " TIMES("") PLACE
		    "%s ORDER BY start;",
		    has_col(m, SYNC_T, "deprecatedSyncType")
			? "CASE WHEN syncType BETWEEN 1 AND 4 THEN syncType ELSE 0 END"
			: "0",
		    m->only_p);
		if (exec(m, sql, "synchronisations") < 0)
			return -1;
		m->st->syncs = sqlite3_changes(m->db);
		left_out(m, SYNC_T, "", m->only_p, m->st->syncs);
	}
	if (has_table(m, EVENT_T)) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO events(event, stream, device, context, correlation_id)"
			 " SELECT eventId, streamId, deviceId, contextId, correlationId"
			 " FROM src." EVENT_T " WHERE 1" PLACE "%s;",
			 has_col(m, EVENT_T, "globalPid") ? m->only_p : "");
		if (exec(m, sql, "CUDA event records") < 0)
			return -1;
		m->st->event_records = sqlite3_changes(m->db);
	}
	return 0;
}

/* NVTX ranges (push/pop and start/end, of the NVTX API and of Nsight's
 * own NVTX text events) and marks; text from the row or from StringIds,
 * the domain from its NvtxDomainCreate row */
static int copy_nvtx(struct nim *m)
{
	char sql[2048];

	if (!has_table(m, "NVTX_EVENTS"))
		return 0;
	if (exec(m,
		 "CREATE TEMP TABLE nvtx_text(value TEXT PRIMARY KEY, id INTEGER);"
		 "INSERT INTO strings(value) SELECT DISTINCT text FROM src.NVTX_EVENTS"
		 " WHERE text IS NOT NULL AND text NOT IN (SELECT value FROM strings);"
		 "INSERT INTO temp.nvtx_text SELECT value, MIN(id) FROM strings"
		 " WHERE value IN (SELECT text FROM src.NVTX_EVENTS) GROUP BY value;"
		 "CREATE TEMP TABLE nvtx_domain(domain INTEGER PRIMARY KEY, id INTEGER);"
		 "INSERT OR IGNORE INTO temp.nvtx_domain SELECT e.domainId,"
		 " COALESCE(t.id, e.textId) FROM src.NVTX_EVENTS e"
		 " LEFT JOIN temp.nvtx_text t ON t.value = e.text"
		 " WHERE e.eventType = 75 AND e.domainId IS NOT NULL;",
		 "NVTX texts") < 0)
		return -1;
	snprintf(
	    sql, sizeof(sql),
	    "INSERT INTO nvtx(start, end, kind, text_id, domain_id, category, color, pid, tid)"
	    " SELECT e.start, CASE WHEN e.eventType IN (34, 65) THEN e.start ELSE e.end END,"
	    " CASE WHEN e.eventType IN (34, 65) THEN 1 ELSE 0 END,"
	    " COALESCE(t.id, e.textId), d.id, NULLIF(e.category, 0), e.color,"
	    " " PID_OF("e.globalTid") ", " TID_OF(
		"e.globalTid") " FROM src.NVTX_EVENTS e"
			       " LEFT JOIN temp.nvtx_text t ON t.value = e.text"
			       " LEFT JOIN temp.nvtx_domain d ON d.domain = e.domainId"
			       " WHERE (e.eventType IN (34, 65) OR (e.eventType IN (59, 60, 70, 71)"
			       " AND " TIMES("e.") "))%s"
						   " ORDER BY e.start;",
	    m->only_t_e);
	if (exec(m, sql, "NVTX ranges") < 0)
		return -1;
	m->st->ranges = sqlite3_changes(m->db);
	return 0;
}

/* threads and processes of the rows written; GPUs of the ops */
static int copy_places(struct nim *m)
{
	char sql[2048], match[256];

	snprintf(sql, sizeof(sql),
		 "INSERT OR IGNORE INTO threads(tid, pid, name)"
		 " SELECT x.tid, x.pid, %s FROM (SELECT DISTINCT tid, pid FROM api_calls"
		 "  UNION SELECT DISTINCT tid, pid FROM nvtx) x ORDER BY x.tid;",
		 has_table(m, "ThreadNames")
		     ? "(SELECT s.value FROM src.ThreadNames n JOIN strings s ON s.id = n.nameId"
		       " WHERE " TID_OF("n.globalTid") " = x.tid AND " PID_OF("n.globalTid")
		       " = x.pid LIMIT 1)"
		     : "NULL");
	if (exec(m, sql, "threads") < 0)
		return -1;
	m->st->threads = sqlite3_changes(m->db);
	snprintf(sql, sizeof(sql),
		 "INSERT OR IGNORE INTO processes(pid, hostname, command_line)"
		 " SELECT x.pid, %s, %s FROM (SELECT DISTINCT pid FROM threads) x ORDER BY x.pid;",
		 has_table(m, "TARGET_INFO_SYSTEM_ENV") && has_col(m, "TARGET_INFO_SYSTEM_ENV", "name")
		     ? "(SELECT value FROM src.TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'"
		       " LIMIT 1)"
		     : "NULL",
		 has_table(m, "PROCESSES")
		     ? "(SELECT p.name FROM src.PROCESSES p WHERE p.pid = x.pid LIMIT 1)"
		     : "NULL");
	if (exec(m, sql, "processes") < 0)
		return -1;

	/* a GPU row of the op's CUDA device: TARGET_INFO_CUDA_DEVICE maps CUDA
	 * ids to GPUs (2025), else the GPU's cuDevice (2024), else its id */
	if (has_table(m, "TARGET_INFO_CUDA_DEVICE") &&
	    has_col(m, "TARGET_INFO_CUDA_DEVICE", "cudaId"))
		snprintf(match, sizeof(match),
			 "g.id = (SELECT c.gpuId FROM src.TARGET_INFO_CUDA_DEVICE c"
			 " WHERE c.cudaId = d.id LIMIT 1)");
	else if (has_table(m, "TARGET_INFO_GPU") && has_col(m, "TARGET_INFO_GPU", "cuDevice"))
		snprintf(match, sizeof(match), "g.cuDevice = d.id");
	else
		snprintf(match, sizeof(match), "g.id = d.id");
	if (has_table(m, "TARGET_INFO_GPU"))
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO devices(id, name, uuid, cc_major, cc_minor, sm_count,"
			 " core_clock_khz, global_memory_bytes, l2_cache_bytes,"
			 " max_threads_per_block)"
			 " SELECT d.id, g.name, g.uuid, %s, %s, g.smCount, g.clockRate / 1000,"
			 " g.totalMemory, g.l2CacheSize, %s FROM (SELECT device AS id FROM kernels"
			 "  UNION SELECT device FROM memcpys UNION SELECT device FROM memsets) d"
			 " LEFT JOIN src.TARGET_INFO_GPU g ON g.rowid = (SELECT g.rowid FROM"
			 "  src.TARGET_INFO_GPU g WHERE %s LIMIT 1)"
			 " WHERE d.id IS NOT NULL ORDER BY d.id;",
			 col(m, "TARGET_INFO_GPU", "computeMajor", "NULL"),
			 col(m, "TARGET_INFO_GPU", "computeMinor", "NULL"),
			 col(m, "TARGET_INFO_GPU", "maxThreadsPerBlock", "NULL"), match);
	else
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO devices(id) SELECT d.id FROM (SELECT device AS id"
			 " FROM kernels UNION SELECT device FROM memcpys UNION SELECT device"
			 " FROM memsets) d WHERE d.id IS NOT NULL ORDER BY d.id;");
	if (exec(m, sql, "GPUs") < 0)
		return -1;
	m->st->devices = sqlite3_changes(m->db);
	return 0;
}

/* Rows of the export's tables that have no place in the trace, per
 * table: what is not there for the report to see. Tables of facts
 * (ENUM_*, TARGET_INFO_*, META_DATA_*, ...) and the mapped ones are left
 * out. */
static int count_unmapped(struct nim *m)
{
	static const char *const mapped[] = {
	    KERNEL_T,	  RUNTIME_T,	"StringIds", MEMCPY_T,	  MEMSET_T,	  SYNC_T,
	    EVENT_T,	  "NVTX_EVENTS", "ThreadNames", "PROCESSES", "ProcessStreams",
	};
	int graphs = m->st->graph_runs > 0; /* mapped when its columns were there */
	sqlite3_stmt *q = NULL;
	struct import_stats *st = m->st;

	if (sqlite3_prepare_v2(
		m->db,
		"SELECT name FROM pragma_table_list WHERE schema = 'src' AND type = 'table' AND"
		" name NOT LIKE 'ENUM\\_%' ESCAPE '\\' AND"
		" name NOT LIKE 'TARGET\\_INFO\\_%' ESCAPE '\\' AND"
		" name NOT LIKE '%META\\_DATA%' ESCAPE '\\' AND"
		" name NOT LIKE 'ANALYSIS\\_%' ESCAPE '\\' AND"
		" name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND"
		" name NOT IN ('DIAGNOSTIC_EVENT', 'PROFILER_OVERHEAD', 'SystemInfo',"
		" 'UnwindMethodType')"
		" ORDER BY name",
		-1, &q, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 0);
		char sql[160];
		int64_t n;
		size_t i, known = 0, len;

		if (!name || (len = strlen(name)) == 0 || len >= sizeof(st->unmapped[0].cat) ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
			len)
			continue;
		for (i = 0; i < sizeof(mapped) / sizeof(mapped[0]); i++)
			known |= !strcmp(mapped[i], name);
		known |= graphs && !strcmp(name, GRAPH_T);
		if (known)
			continue;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM src.\"%s\"", name);
		n = query_int(m, sql, 0);
		if (n <= 0)
			continue;
		if (st->n_unmapped < IMPORT_MAX_CATS) {
			snprintf(st->unmapped[st->n_unmapped].cat, sizeof(st->unmapped[0].cat), "%s",
				 name);
			st->unmapped[st->n_unmapped++].n = n;
		} else {
			snprintf(st->unmapped[IMPORT_MAX_CATS].cat, sizeof(st->unmapped[0].cat),
				 "other");
			st->unmapped[IMPORT_MAX_CATS].n += n;
		}
	}
	sqlite3_finalize(q);
	return 0;
}

/* A sync record's kind from the call that made it, where the name says
 * it (any export version), else as copied (copy_syncs) */
static int sync_kinds_from_calls(struct nim *m)
{
	if (import_out_sync_apis(m->db) < 0)
		return fail_db(m, "naming sync kinds");
	return exec(m,
		    "UPDATE syncs SET kind = COALESCE((SELECT i.kind FROM api_calls a"
		    " JOIN temp.sync_api i ON i.name_id = a.name_id"
		    " WHERE a.correlation_id = syncs.correlation_id ORDER BY a.api LIMIT 1), kind)"
		    " WHERE implicit = 0 AND correlation_id IS NOT NULL;",
		    "naming sync kinds");
}

/* Kind 21, the legacy default stream (gs_derive_legacy_stream), as the
 * collector derives it: the contexts' NULL streams from
 * TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId; TARGET_INFO_CUDA_NULL_STREAM
 * before 2023), the streams created non-blocking from
 * TARGET_INFO_CUDA_STREAM (flag 2, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_
 * BLOCKING in every export seen). Without the NULL streams, nothing. */
static int legacy_streams(struct nim *m)
{
	const char *t = NULL, *null_col = NULL;
	char sql[512], pid[48] = "";
	int64_t rid;
	int rc;

	if (has_table(m, "TARGET_INFO_CUDA_CONTEXT_INFO") &&
	    has_col(m, "TARGET_INFO_CUDA_CONTEXT_INFO", "nullStreamId") &&
	    has_col(m, "TARGET_INFO_CUDA_CONTEXT_INFO", "contextId"))
		t = "TARGET_INFO_CUDA_CONTEXT_INFO", null_col = "nullStreamId";
	else if (has_table(m, "TARGET_INFO_CUDA_NULL_STREAM") &&
		 has_col(m, "TARGET_INFO_CUDA_NULL_STREAM", "streamId") &&
		 has_col(m, "TARGET_INFO_CUDA_NULL_STREAM", "contextId"))
		t = "TARGET_INFO_CUDA_NULL_STREAM", null_col = "streamId";
	if (!t)
		return 0;
	if (gs_derive_legacy_tables(m->db) != SQLITE_OK)
		return fail_db(m, "legacy default streams");
	if (m->pid >= 0 && has_col(m, t, "processId"))
		snprintf(pid, sizeof(pid), " AND processId = %lld", (long long)m->pid);
	snprintf(sql, sizeof(sql),
		 "INSERT OR REPLACE INTO temp.legacy SELECT contextId, %s FROM src.%s"
		 " WHERE typeof(contextId) = 'integer'%s;",
		 null_col, t, pid);
	if (exec(m, sql, "legacy default streams") < 0)
		return -1;
	if (has_table(m, "TARGET_INFO_CUDA_STREAM") &&
	    has_col(m, "TARGET_INFO_CUDA_STREAM", "flag")) {
		pid[0] = '\0';
		if (m->pid >= 0 && has_col(m, "TARGET_INFO_CUDA_STREAM", "processId"))
			snprintf(pid, sizeof(pid), " AND processId = %lld", (long long)m->pid);
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO temp.nonblocking SELECT contextId, streamId"
			 " FROM src.TARGET_INFO_CUDA_STREAM WHERE flag = 2%s;",
			 pid);
		if (exec(m, sql, "non-blocking streams") < 0)
			return -1;
	}
	rid = import_out_intern(m->db, GS_REASON_LEGACY_STREAM);
	if (!rid)
		return fail_db(m, "legacy default streams");
	rc = gs_derive_legacy_stream(m->db, rid);
	if (rc != SQLITE_OK)
		return fail_db(m, "deriving implicit syncs (legacy stream)");
	m->st->implicit_syncs += sqlite3_changes(m->db);
	return 0;
}

static int meta(struct nim *m, const char *key, const char *value)
{
	return import_out_meta(m->db, key, value) < 0 ? fail_db(m, "meta") : 0;
}

static int meta_int(struct nim *m, const char *key, int64_t v)
{
	return import_out_meta_int(m->db, key, v) < 0 ? fail_db(m, "meta") : 0;
}

/* meta value from a query's text, if it gives one */
static int meta_query(struct nim *m, const char *key, const char *sql)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;

	int step = SQLITE_DONE;

	if (sqlite3_prepare_v2(m->db, sql, -1, &q, NULL) == SQLITE_OK &&
	    (step = sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL) {
		char v[4100];
		snprintf(v, sizeof(v), "%s", (const char *)sqlite3_column_text(q, 0));
		rc = meta(m, key, v);
	}
	sqlite3_finalize(q);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return fail_db(m, key); /* the export's table could not be read */
	return rc;
}

static int finish(struct nim *m, const char *src_path, const char *version)
{
	struct import_stats *st = m->st;
	struct import_derived d;
	const char *what;
	char buf[256];
	int64_t lo, hi, pids;

	snprintf(buf, sizeof(buf), "gapscope import %s", version ? version : "");
	if (meta(m, "source", "nsys") < 0 || meta(m, "collector_version", buf) < 0 ||
	    meta(m, "import.source_file", src_path) < 0)
		return -1;
	/* the version's table: META_DATA_EXPORT, before 2023 EXPORT_META_DATA */
	if (has_table(m, "META_DATA_EXPORT") &&
	    meta_query(m, "import.nsys_version",
		       "SELECT value FROM src.META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'"
		       " LIMIT 1") < 0)
		return -1;
	if (has_table(m, "EXPORT_META_DATA") &&
	    meta_query(
		m, "import.nsys_version",
		"SELECT value FROM src.EXPORT_META_DATA WHERE name = 'EXPORT_PRODUCT_VERSION'"
		" LIMIT 1") < 0)
		return -1;
	/* times are ns since the session's start, which is this in Unix time */
	if (has_table(m, "TARGET_INFO_SESSION_START_TIME") &&
	    has_col(m, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs") &&
	    meta_query(m, "realtime_offset_ns",
		       "SELECT utcEpochNs FROM src.TARGET_INFO_SESSION_START_TIME LIMIT 1") < 0)
		return -1;
	if (has_table(m, "TARGET_INFO_SYSTEM_ENV") && has_col(m, "TARGET_INFO_SYSTEM_ENV", "name") &&
	    meta_query(m, "hostname",
		       "SELECT value FROM src.TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'"
		       " LIMIT 1") < 0)
		return -1;
	if (has_table(m, "TARGET_INFO_SYSTEM_ENV") && has_col(m, "TARGET_INFO_SYSTEM_ENV", "name") &&
	    meta_query(m, "cuda_driver_version",
		       "SELECT value FROM src.TARGET_INFO_SYSTEM_ENV WHERE name ="
		       " 'CudaDriverVersion' LIMIT 1") < 0)
		return -1;
	/* the program nsys launched, when it launched one (an `nsys profile`
	 * command line), as the collector keeps its own: command and
	 * arguments joined by spaces. The environment beside it is not read */
	if (has_table(m, "META_DATA_CAPTURE") && has_col(m, "META_DATA_CAPTURE", "name") &&
	    query_int(
		m, "SELECT count(*) FROM src.META_DATA_CAPTURE WHERE name GLOB 'PROCESS_*:COMMAND'",
		0) == 1 &&
	    meta_query(m, "command_line",
		       "SELECT substr(group_concat(value, ' '), 1, 4096) FROM (SELECT value FROM"
		       " src.META_DATA_CAPTURE WHERE name = 'PROCESS_0:COMMAND' UNION ALL"
		       " SELECT value FROM (SELECT value FROM src.META_DATA_CAPTURE"
		       "  WHERE name GLOB 'PROCESS_0:ARGUMENT_[0-9]*'"
		       "  ORDER BY CAST(substr(name, 20) AS INTEGER)))") < 0)
		return -1;
	pids = query_int(m, "SELECT count(DISTINCT pid) FROM api_calls", 0);
	if (pids == 1 && meta_query(m, "pid", "SELECT MIN(pid) FROM api_calls") < 0)
		return -1;
	if (meta_int(m, "import.processes", pids) < 0)
		return -1;
	lo = query_int(m,
		       "SELECT MIN(t) FROM (SELECT MIN(start) AS t FROM kernels UNION ALL"
		       " SELECT MIN(start) FROM api_calls UNION ALL SELECT MIN(start) FROM memcpys"
		       " UNION ALL SELECT MIN(start) FROM memsets UNION ALL SELECT MIN(start)"
		       " FROM nvtx)",
		       INT64_MAX);
	hi = query_int(m,
		       "SELECT MAX(t) FROM (SELECT MAX(end) AS t FROM kernels UNION ALL"
		       " SELECT MAX(end) FROM api_calls UNION ALL SELECT MAX(end) FROM memcpys"
		       " UNION ALL SELECT MAX(end) FROM memsets UNION ALL SELECT MAX(end)"
		       " FROM nvtx)",
		       INT64_MIN);
	if (lo <= hi && (meta_int(m, "start_ns", lo) < 0 || meta_int(m, "stop_ns", hi) < 0))
		return -1;
	if (count_unmapped(m) < 0 || meta_int(m, "import.rows_left_out", st->rows_left_out) < 0)
		return -1;
	for (size_t i = 0; i <= IMPORT_MAX_CATS; i++) {
		if (!st->unmapped[i].n)
			continue;
		snprintf(buf, sizeof(buf), "import.unmapped.%s", st->unmapped[i].cat);
		if (meta_int(m, buf, st->unmapped[i].n) < 0)
			return -1;
	}
	if (gs_schema_create_indexes(m->db) != 0)
		return fail_db(m, "building indexes");
	if (sync_kinds_from_calls(m) < 0)
		return -1;
	if (import_derive(m->db, &d, &what) < 0)
		return fail_db(m, what);
	import_stats_add_derived(st, &d);
	if (legacy_streams(m) < 0)
		return -1;
	/* Graph launches whose GPU work is nowhere in the export (nsys
	 * --cuda-graph-trace=graph in a layout not read here): the GPU would
	 * read as idle while they ran, so import says so */
	if (query_int(m,
		      "SELECT (SELECT count(*) FROM kernels WHERE graph_id <> 0) +"
		      " (SELECT count(*) FROM memcpys WHERE graph_id <> 0) +"
		      " (SELECT count(*) FROM memsets WHERE graph_id <> 0) +"
		      " (SELECT count(*) FROM graph_runs)",
		      0) == 0)
		st->graph_launches_unseen = query_int(
		    m,
		    "SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id WHERE"
		    " s.value GLOB 'cudaGraphLaunch*' OR s.value GLOB 'cuGraphLaunch*'",
		    0);
	if (meta_int(m, "import.graph_launches_unseen", st->graph_launches_unseen) < 0)
		return -1;
	return meta(m, "finalized", "1");
}

int nsys_import(const char *src_path, const char *db_path, int64_t pid, const char *version,
		struct import_stats *st, char *err, size_t errlen)
{
	struct import_out out;
	struct nim m;
	struct stat sb;
	int rc;

	memset(st, 0, sizeof(*st));
	memset(&m, 0, sizeof(m));
	m.st = st;
	/* only a regular file: SQLite would wait on a FIFO */
	if (stat(src_path, &sb) != 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return IMPORT_ERR_INPUT;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s, not a trace file",
			 S_ISDIR(sb.st_mode) ? "is a directory" : "is not a regular file");
		return IMPORT_ERR_INPUT;
	}
	rc = import_out_open(&out, db_path, err, errlen);
	if (rc != 0) {
		import_out_close(&out);
		return rc;
	}
	m.db = out.db;
	m.out = &out;
	m.err_kind = IMPORT_ERR_OUTPUT;
	rc = attach(&m, src_path);
	if (rc == 0)
		rc = exec(&m, "BEGIN;", "starting");
	if (rc == 0)
		rc = choose_process(&m, pid);
	if (rc == 0)
		rc = copy_strings(&m);
	if (rc == 0)
		rc = copy_api_calls(&m);
	if (rc == 0)
		rc = copy_gpu_ops(&m);
	if (rc == 0)
		rc = copy_syncs(&m);
	if (rc == 0)
		rc = copy_nvtx(&m);
	if (rc == 0)
		rc = copy_places(&m);
	if (rc == 0)
		rc = finish(&m, src_path, version);
	/* a query stopped by the bound, whatever the step made of its
	 * failure (a count read as 0 goes on): the export's doing */
	if (import_out_too_long(&out, "export", m.err, sizeof(m.err))) {
		m.err_kind = IMPORT_ERR_INPUT;
		rc = -1;
	}
	if (rc == 0 && import_out_commit(&out, m.err, sizeof(m.err)) != 0) {
		m.err_kind = IMPORT_ERR_OUTPUT;
		rc = -1;
	}
	if (rc != 0) {
		snprintf(err, errlen, "%s", m.err[0] ? m.err : "import failed");
		rc = m.err_kind ? m.err_kind : IMPORT_ERR_OUTPUT;
	}
	import_out_close(&out);
	return rc;
}
