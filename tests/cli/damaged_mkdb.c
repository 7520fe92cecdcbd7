/*
 * damaged_mkdb.c - writes the databases of the damaged-trace CLI tests
 * (tests/cli/damaged_check.py): an empty schema-v1 trace made with the
 * real schema (gs_schema_create), then the SQL given on the command line,
 * which fills it and damages it:
 *   damaged_mkdb [--utf16] <out.db> <sql>
 * --utf16 makes a UTF-16le database (PRAGMA encoding, before any table).
 * The SQL may do what the collector never does (out-of-range times, rows
 * that point nowhere); it runs with the schema's NOT NULL constraints in
 * force. Replaces an existing file. Checks nothing itself.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	char *err = NULL;
	int rc = 1, utf16 = argc == 4 && !strcmp(argv[1], "--utf16");

	if (utf16) {
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: damaged_mkdb [--utf16] <out.db> <sql>\n");
		return 2;
	}
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK ||
	    (utf16 && sqlite3_exec(db, "PRAGMA encoding='UTF-16le'", NULL, NULL, NULL) != SQLITE_OK) ||
	    gs_schema_create(db) != 0) {
		fprintf(stderr, "damaged_mkdb: %s: %s\n", argv[1], sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_exec(db, argv[2], NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "damaged_mkdb: %s\n", err ? err : "sqlite error");
		sqlite3_free(err);
		goto out;
	}
	rc = 0;
out:
	sqlite3_close(db);
	return rc;
}
