/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * export_csv.c - one CSV file per table of trace schema v1 (RFC 4180), for
 * pandas and spreadsheets.
 *
 * Each file holds every column of its table in schema order, then extra
 * columns that resolve ids and codes into names (kernels.name from
 * strings, memcpys.copy_kind_name, ...), so a spreadsheet needs no joins.
 * A header row names the columns; NULL is an empty field. Tables the list
 * below does not know are written as they are. Rows stream from SQLite
 * straight to the file. It writes no analysis results.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <sqlite3.h>

#include "export_walk.h"
#include "utf8.h"

static const struct {
	const char *table; /* file name without .csv */
	const char *sql;
} csv_tables[] = {
    {"meta", "SELECT * FROM meta ORDER BY key"},
    {"strings", "SELECT * FROM strings ORDER BY id"},
    {"devices", "SELECT * FROM devices ORDER BY id"},
    {"processes", "SELECT * FROM processes ORDER BY pid"},
    {"threads", "SELECT * FROM threads ORDER BY tid"},
    {"kernels", "SELECT k.*, s.value AS name FROM kernels k"
		" LEFT JOIN strings s ON s.id = k.name_id ORDER BY k.id"},
    {"api_calls", "SELECT a.*, s.value AS name,"
		  " CASE a.api WHEN 1 THEN 'runtime' WHEN 2 THEN 'driver' END AS api_name"
		  " FROM api_calls a LEFT JOIN strings s ON s.id = a.name_id ORDER BY a.id"},
    {"memcpys", "SELECT m.*, gs_copy_kind_name(m.copy_kind) AS copy_kind_name,"
		" gs_mem_kind_name(m.src_kind) AS src_kind_name,"
		" gs_mem_kind_name(m.dst_kind) AS dst_kind_name FROM memcpys m ORDER BY m.id"},
    {"memsets", "SELECT m.*, gs_mem_kind_name(m.mem_kind) AS mem_kind_name"
		" FROM memsets m ORDER BY m.id"},
    {"syncs", "SELECT y.*, gs_sync_kind_name(y.kind) AS kind_name, r.value AS reason,"
	      " a.value AS api_name FROM syncs y LEFT JOIN strings r ON r.id = y.reason_id"
	      " LEFT JOIN strings a ON a.id = y.api_name_id ORDER BY y.id"},
    {"events", "SELECT * FROM events ORDER BY id"},
    {"host_ranges", "SELECT h.*, s.value AS name FROM host_ranges h"
		    " LEFT JOIN strings s ON s.id = h.name_id ORDER BY h.id"},
    {"nvtx", "SELECT n.*, CASE n.kind WHEN 0 THEN 'range' WHEN 1 THEN 'mark' END AS kind_name,"
	     " t.value AS text, d.value AS domain FROM nvtx n"
	     " LEFT JOIN strings t ON t.id = n.text_id"
	     " LEFT JOIN strings d ON d.id = n.domain_id ORDER BY n.id"},
    {"graphs", "SELECT * FROM graphs ORDER BY graph_id"},
    {"graph_nodes", "SELECT g.*, gs_graph_node_type_name(g.type) AS type_name,"
		    " s.value AS name FROM graph_nodes g"
		    " LEFT JOIN strings s ON s.id = g.name_id ORDER BY g.node_id"},
    {"graph_edges", "SELECT * FROM graph_edges ORDER BY graph_id, from_node, to_node"},
    {"graph_execs", "SELECT * FROM graph_execs ORDER BY exec_id"},
    {"graph_launches", "SELECT * FROM graph_launches ORDER BY id"},
    {"overhead", "SELECT * FROM overhead ORDER BY id"},
    /* schema v3, absent from older traces (and empty unless recorded
     * with --capture-range): in time order, as the collector writes it */
    {"capture_windows", "SELECT * FROM capture_windows ORDER BY start, end"},
};

/* export_csv()'s flags for the fields of the export under way (one
 * export at a time: the walk of a table has no context to carry them) */
static unsigned csv_export_flags;

void csv_write_field(FILE *f, const char *str, size_t len, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i, run = 0;
	int quote = 0, neutral = 0;

	if (!s)
		return;
	/* A spreadsheet (Excel, LibreOffice, Google Sheets) runs a cell that
	 * starts with = + - @ as a formula (=HYPERLINK, =WEBSERVICE, DDE), and
	 * some strip a leading tab or CR first: a kernel or NVTX name from a
	 * trace is untrusted. A leading ' makes the cell text (OWASP's advice
	 * on CSV injection); --csv-raw keeps the bytes as they are. */
	if (!(flags & CSV_FIELD_RAW) && len > 0 &&
	    (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' ||
	     s[0] == '\r'))
		neutral = 1;
	for (i = 0; i < len; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n') {
			quote = 1;
			break;
		}
	if (quote)
		putc('"', f);
	if (neutral)
		putc('\'', f);
	for (i = 0; i < len;) {
		const char *rep = NULL;
		int n = 1;

		if (s[i] == '"') {
			rep = "\"\"";
		} else if (s[i] >= 0x80) {
			n = utf8_sequence_length(s + i, len - i);
			if (n == 0) {
				rep = "\xEF\xBF\xBD"; /* U+FFFD: readers decode the file as UTF-8 */
				n = 1;
			}
		}
		if (rep) {
			if (i > run)
				fwrite(s + run, 1, i - run, f);
			fputs(rep, f);
			i += (size_t)n;
			run = i;
		} else {
			i += (size_t)n;
		}
	}
	if (len > run)
		fwrite(s + run, 1, len - run, f);
	if (quote)
		putc('"', f);
}

/* Names for codes, as SQL functions for the queries above. */
static void sqlfn_name(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const char *(*fn)(int) = (const char *(*)(int))sqlite3_user_data(cx);

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		sqlite3_result_null(cx);
	else
		sqlite3_result_text(cx, fn(sqlite3_value_int(argv[0])), -1, SQLITE_STATIC);
}

static int register_functions(sqlite3 *db)
{
	static const struct {
		const char *name;
		const char *(*fn)(int);
	} fns[] = {
	    {"gs_copy_kind_name", gs_copy_kind_name},
	    {"gs_mem_kind_name", gs_mem_kind_name},
	    {"gs_sync_kind_name", gs_sync_kind_name},
	    {"gs_graph_node_type_name", gs_graph_node_type_name},
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (sqlite3_create_function_v2(
			db, fns[i].name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, (void *)fns[i].fn,
			sqlfn_name, NULL, NULL, NULL) != SQLITE_OK)
			return -1;
	return 0;
}

/* mkdir -p */
static int make_dirs(const char *dir, char *err, size_t errlen)
{
	char path[4096];
	size_t n = strlen(dir), i;
	struct stat st;

	if (n == 0 || n >= sizeof(path)) {
		snprintf(err, errlen, "bad output directory name");
		return -1;
	}
	memcpy(path, dir, n + 1);
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "cannot create directory %s: %s", path,
				 strerror(errno));
			return -1;
		}
		path[i] = dir[i];
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "not a directory");
		return -1;
	}
	return 0;
}

static int write_table(struct trace *t, const char *dir, const char *table, const char *sql,
		       char *err, size_t errlen)
{
	char path[4096];
	sqlite3_stmt *st = NULL;
	FILE *f = NULL;
	int i, ncol, rc, ret = -1, werr = 0;

	if (sqlite3_prepare_v2(t->db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read table %s: %s", table, sqlite3_errmsg(t->db));
		ret = EXPORT_ERR_INPUT;
		goto out;
	}
	/* dir is the temporary folder, gone when the error is printed: the
	 * messages name the file as it would have been, table.csv */
	snprintf(path, sizeof(path), "%s/%s.csv", dir, table);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s.csv: %s", table, strerror(errno));
		goto out;
	}
	ncol = sqlite3_column_count(st);
	for (i = 0; i < ncol; i++) {
		const char *name = sqlite3_column_name(st, i);
		if (i)
			putc(',', f);
		csv_write_field(f, name, strlen(name), csv_export_flags);
	}
	fputs("\r\n", f); /* RFC 4180 line break */
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < ncol; i++) {
			if (i)
				putc(',', f);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				fprintf(f, "%" PRId64, (int64_t)sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT: fprintf(f, "%.17g", sqlite3_column_double(st, i)); break;
			case SQLITE_TEXT:
				csv_write_field(f, (const char *)sqlite3_column_text(st, i),
						(size_t)sqlite3_column_bytes(st, i),
						csv_export_flags);
				break;
			case SQLITE_BLOB: {
				const unsigned char *b = sqlite3_column_blob(st, i);
				int nb = sqlite3_column_bytes(st, i);
				for (int j = 0; j < nb; j++)
					fprintf(f, "%02x", b[j]);
				break;
			}
			default: /* NULL: empty field */ break;
			}
		}
		fputs("\r\n", f);
		/* the first failed write's errno, before a later call changes
		 * it (a full disk, File too large under ulimit -f) */
		if (ferror(f)) {
			werr = errno;
			break;
		}
	}
	if (werr || ferror(f)) {
		snprintf(err, errlen, "write error on %s.csv: %s", table,
			 strerror(werr ? werr : EIO));
		goto out;
	}
	if (rc != SQLITE_DONE) {
		/* a page SQLite cannot read, a table that is not what the
		 * schema says: the trace is damaged, bad input (exit 2 naming
		 * the trace), not a failure to write; but SQLite's own
		 * temporary files full is this machine's failure */
		if (trace_local_error(t->db, err, errlen)) {
			ret = EXPORT_ERR_LOCAL;
			goto out;
		}
		snprintf(err, errlen, "cannot read table %s: %s", table, sqlite3_errmsg(t->db));
		ret = EXPORT_ERR_INPUT;
		goto out;
	}
	ret = 0;
out:
	if (f && fclose(f) != 0 && ret == 0) {
		snprintf(err, errlen, "write error on %s.csv: %s", table, strerror(errno));
		ret = -1;
	}
	if (f && ret != 0)
		unlink(path); /* a table cut short is not left to be read as whole */
	sqlite3_finalize(st);
	return ret;
}

/* Tables of the file that the list above does not know (a later, additive
 * schema, or the collector's extras): exported as they are, in rowid
 * order, or in primary-key order for a WITHOUT ROWID table (which has no
 * rowid: "ORDER BY rowid" failed the whole export). Views and virtual
 * tables are not ours and not exported. Only names of letters, digits
 * and '_' are used, as they become file names. */
static int write_other_tables(struct trace *t, const char *dir, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char sql[200];
	int ret = 0, rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(t->db,
			       "SELECT name, wr FROM pragma_table_list WHERE schema = 'main'"
			       " AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
			       " ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot list tables: %s", sqlite3_errmsg(t->db));
		return EXPORT_ERR_INPUT;
	}
	while (ret == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		size_t i, known = 0;

		if (!name || !*name || strlen(name) > 64 ||
		    strspn(name,
			   "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
			strlen(name))
			continue;
		for (i = 0; i < sizeof(csv_tables) / sizeof(csv_tables[0]); i++)
			known |= !strcmp(csv_tables[i].table, name);
		if (known)
			continue;
		/* a WITHOUT ROWID table is read in its primary key's order */
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"%s", name,
			 sqlite3_column_int(st, 1) ? "" : " ORDER BY rowid");
		ret = write_table(t, dir, name, sql, err, errlen);
	}
	if (ret == 0 && rc != SQLITE_DONE) {
		snprintf(err, errlen, "cannot list tables: %s", sqlite3_errmsg(t->db));
		ret = EXPORT_ERR_INPUT;
	}
	sqlite3_finalize(st);
	return ret;
}

int export_csv(struct trace *t, const char *dir, unsigned flags, char *err, size_t errlen)
{
	size_t i;
	int rc = 0;

	/* the rule of every verb on the ops' devices and streams (a raw dump
	 * wrote a stream past 2^32-1 that every other verb refuses) */
	if (trace_check_places(t, err, errlen) < 0)
		return trace_local_error(t->db, err, errlen) ? EXPORT_ERR_LOCAL : EXPORT_ERR_INPUT;
	if (make_dirs(dir, err, errlen))
		return -1;
	if (register_functions(t->db)) {
		snprintf(err, errlen, "cannot register SQL functions: %s", sqlite3_errmsg(t->db));
		return -1;
	}
	csv_export_flags = flags & EXPORT_CSV_RAW ? CSV_FIELD_RAW : 0;
	for (i = 0; !rc && i < sizeof(csv_tables) / sizeof(csv_tables[0]); i++) {
		/* a table added to the schema later is absent from older
		 * traces: no file for it (trace_open() let only optional
		 * tables be missing) */
		if (trace_db_has_table(t->db, csv_tables[i].table) == 0)
			continue;
		rc = write_table(t, dir, csv_tables[i].table, csv_tables[i].sql, err, errlen);
	}
	if (!rc)
		rc = write_other_tables(t, dir, err, errlen);
	csv_export_flags = 0;
	return rc;
}
