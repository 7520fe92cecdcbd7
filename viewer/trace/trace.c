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
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "trace.h"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int check_header(const char *path, char *err, size_t errlen)
{
	unsigned char h[100];
	struct stat st;
	FILE *f;
	size_t n;

	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return TRACE_ERR_MISSING;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "is a directory, not a trace database");
		return TRACE_ERR_MISSING;
	}
	f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return TRACE_ERR_MISSING;
	}
	n = fread(h, 1, sizeof(h), f);
	fclose(f);
	if (n >= 16 && memcmp(h, "SQLite format 3", 16) != 0) {
		snprintf(err, errlen, "not a gapscope trace (not an SQLite database)");
		return TRACE_ERR_NOT_SQLITE;
	}
	if (n < sizeof(h)) {
		snprintf(err, errlen,
			 n < 16 ? "not a gapscope trace (file is empty or too short)"
				: "truncated database (header incomplete)");
		return n < 16 ? TRACE_ERR_NOT_SQLITE : TRACE_ERR_TRUNCATED;
	}
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

int trace_open(struct trace *t, const char *path, char *err, size_t errlen)
{
	int rc, v;

	memset(t, 0, sizeof(*t));
	t->path = path;
	rc = check_header(path, err, errlen);
	if (rc < 0)
		return rc;
	rc = sqlite3_open_v2(path, &t->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open database: %s",
			 t->db ? sqlite3_errmsg(t->db) : sqlite3_errstr(rc));
		trace_close(t);
		return TRACE_ERR_CORRUPT;
	}
	v = gs_schema_read_version(t->db);
	if (v == GS_SCHEMA_ERR_NOT_GAPSCOPE) {
		snprintf(err, errlen, "SQLite database, but not a gapscope trace (no meta table)");
		trace_close(t);
		return TRACE_ERR_FOREIGN;
	}
	if (v < 0) {
		snprintf(err, errlen, "damaged database: %s", sqlite3_errmsg(t->db));
		trace_close(t);
		return TRACE_ERR_CORRUPT;
	}
	if (v > GS_SCHEMA_VERSION) {
		snprintf(err, errlen,
			 "trace schema version %d is newer than this gapscope reads (%d); "
			 "upgrade gapscope",
			 v, GS_SCHEMA_VERSION);
		trace_close(t);
		return TRACE_ERR_NEWER;
	}
	t->schema_version = v;
	return 0;
}

void trace_close(struct trace *t)
{
	if (t->db)
		sqlite3_close(t->db);
	t->db = NULL;
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
