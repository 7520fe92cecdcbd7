/*
 * fuzz_nsys.c - libFuzzer target for `gapscope import` of an Nsight Systems
 * SQLite export. An input that begins with SQLite's header is the export
 * file itself (byte-level damage: pages, records, the schema); any other
 * input is SQL run into an empty database to make the export (structure:
 * tables of the wrong shape, views, triggers, virtual tables, generated
 * columns, forged sqlite_stat1, values of every type). Then nsys_import()
 * reads it as `gapscope import` does, and a database it wrote is read back
 * as every verb reads a trace (trace_open, trace_load, gs_analyze, the
 * verdict). A crash, a sanitizer report, a leak or a hang (libFuzzer's
 * -timeout) is a finding; exit codes and messages are the CLI tests'
 * business (tests/cli/nsys_check.py, hostile2_check.py).
 *
 * The SQL that makes an export runs with a step bound (a script may loop)
 * and may not ATTACH, VACUUM INTO or run PRAGMAs: it writes nothing but its
 * own database. Built by tests/cli/fuzz.cmake; seeds in
 * tests/fuzz/corpus/nsys.
 */
#define _GNU_SOURCE /* strcasestr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis.h"
#include "nsys_import.h"
#include "trace.h"
#include "trace_load.h"

static char src[96], out[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	(void)argc;
	(void)argv;
	trace_library_init();
	setenv("GAPSCOPE_QUERY_LIMIT_MS", "1000", 1);
	snprintf(src, sizeof(src), "%s/gapscope-fuzz-nsys-%ld.sqlite", dir, (long)getpid());
	snprintf(out, sizeof(out), "%s/gapscope-fuzz-nsys-%ld.db", dir, (long)getpid());
	return 0;
}

static void remove_db(const char *db)
{
	static const char *const side[] = {"", "-wal", "-shm", "-journal"};
	char p[sizeof(src) + 16];
	size_t i;

	for (i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", db, side[i]);
		unlink(p);
	}
}

static int steps_left;

static int bound(void *arg)
{
	(void)arg;
	return --steps_left < 0;
}

/* the making SQL writes its own database only */
static int authorize(void *arg, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	(void)arg;
	(void)a;
	(void)b;
	(void)c;
	(void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH || action == SQLITE_PRAGMA
		   ? SQLITE_DENY
		   : SQLITE_OK;
}

/* Run the input as SQL into a new database at src: 0, or -1 to skip it. */
static int make_export(const uint8_t *data, size_t size)
{
	sqlite3 *db = NULL;
	char *sql;
	int ok;

	sql = malloc(size + 1);
	if (!sql)
		return -1;
	memcpy(sql, data, size);
	sql[size] = '\0';
	if (strcasestr(sql, "vacuum") || strcasestr(sql, "attach")) {
		free(sql);
		return -1;
	}
	ok = sqlite3_open_v2(src, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) ==
	     SQLITE_OK;
	if (ok) {
		sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
		sqlite3_set_authorizer(db, authorize, NULL);
		steps_left = 2000; /* x 1000 instructions */
		sqlite3_progress_handler(db, 1000, bound, NULL);
		/* whatever part of the script ran makes the export */
		(void)sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	sqlite3_close(db);
	free(sql);
	return ok ? 0 : -1;
}

#include "fuzz_read_back.h" /* read the import back as the verbs do */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_stats st;
	char err[640];

	remove_db(src);
	if (size >= 16 && !memcmp(data, "SQLite format 3", 16)) {
		FILE *f = fopen(src, "wb");
		if (!f)
			return 0;
		if (fwrite(data, 1, size, f) != size) {
			fclose(f);
			return 0;
		}
		fclose(f);
	} else if (make_export(data, size) < 0) {
		remove_db(src);
		return 0;
	}
	if (nsys_import(src, out, -1, "fuzz", &st, err, sizeof(err)) == 0)
		read_back(out);
	remove_db(out);
	remove_db(src);
	return 0;
}
