/*
 * graph_mkdb.c - test helper for the `gapscope graph` CLI tests: creates a
 * trace database with the real schema (gs_schema_create) and runs a fixture
 * SQL file into it. It checks nothing itself; the tests compare what
 * gapscope prints for the database.
 * Usage: graph_mkdb OUT.db FIXTURE.sql
 */
#include <stdio.h>
#include <stdlib.h>

#include "gapscope/trace_format.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	char *sql, *msg = NULL;
	int rc = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: graph_mkdb OUT.db FIXTURE.sql\n");
		return 2;
	}
	remove(argv[1]);
	sql = slurp(argv[2]);
	if (!sql) {
		fprintf(stderr, "graph_mkdb: cannot read %s\n", argv[2]);
		return 2;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK || gs_schema_create(db) != 0) {
		fprintf(stderr, "graph_mkdb: cannot create %s\n", argv[1]);
		goto out;
	}
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "graph_mkdb: %s: %s\n", argv[2], msg ? msg : "?");
		goto out;
	}
	if (gs_schema_create_indexes(db) != 0)
		goto out;
	rc = 0;
out:
	sqlite3_free(msg);
	sqlite3_close(db);
	free(sql);
	return rc;
}
