/*
 * launch_standin.c - gs_launch_standin: a program for `gapscope record
 * --reference` without a GPU (record_reference_launch_check.sh). It
 * appends its LD_PRELOAD to $RUN_LOG, makes 400 cudaLaunchKernel calls
 * through libgs_cudart_standin.so, each after 5 us of its own work (so every
 * call is one after host work; launch_user.c's loop, built in), and writes the trace a collector
 * would have written at $GAPSCOPE_OUTPUT (%p: its pid): the schema, meta pid and config.activities.
 * With `--local LIB` the launches are made by LIB (launch_user.c), dlopen()ed with RTLD_LOCAL,
 * through the runtime it needs itself; with `--calls N`, N calls instead of 400. `gs_launch_standin
 * --meta DB KEY` prints DB's meta KEY ("none" when it has no such row). Built without the
 * sanitizers: their runtime must come first among the libraries a process loads, and record
 * preloads the interposer before it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"

int gs_launch_user(int n, long spaced_ns); /* launch_user.c, built in */

#define CALLS 400

static int print_meta(const char *path, const char *key)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = 1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) ==
		SQLITE_OK) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		printf("%s\n",
		       sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0)
						      : "none");
		rc = 0;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int main(int argc, char **argv)
{
	const char *out = getenv("GAPSCOPE_OUTPUT"), *log = getenv("RUN_LOG");
	const char *pre = getenv("LD_PRELOAD");
	char path[4096], sql[256], *p;
	sqlite3 *db = NULL;
	FILE *f;
	int calls = CALLS;

	if (argc == 4 && !strcmp(argv[1], "--meta"))
		return print_meta(argv[2], argv[3]);
	f = log ? fopen(log, "a") : NULL;
	if (f) {
		fprintf(f, "preload=%s act=%s\n", pre ? pre : "unset",
			getenv("GAPSCOPE_ACTIVITIES") ? getenv("GAPSCOPE_ACTIVITIES") : "unset");
		fclose(f);
	}
	if (argc == 3 && !strcmp(argv[1], "--calls"))
		calls = atoi(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--local")) {
		void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
		int (*user)(int, long) = h ? (int (*)(int, long))dlsym(h, "gs_launch_user") : NULL;
		if (!user) {
			fprintf(stderr, "gs_launch_standin: %s\n", dlerror());
			return 1;
		}
		if (user(calls, 5000) != 0) {
			fprintf(stderr, "gs_launch_standin: a launch failed\n");
			return 1;
		}
	} else if (gs_launch_user(calls, 5000) != 0) {
		return 1;
	}
	if (!out || strlen(out) >= sizeof(path) - 16)
		return 1;
	snprintf(path, sizeof(path), "%s", out);
	p = strstr(path, "%p");
	if (p) {
		char rest[4096];
		snprintf(rest, sizeof(rest), "%s", p + 2);
		snprintf(p, sizeof(path) - (size_t)(p - path), "%d%s", (int)getpid(), rest);
	}
	unlink(path);
	snprintf(sql, sizeof(sql),
		 "INSERT OR REPLACE INTO meta VALUES('pid','%d'),('config.activities','%s');",
		 (int)getpid(), getenv("GAPSCOPE_ACTIVITIES") ? getenv("GAPSCOPE_ACTIVITIES") : "");
	if (sqlite3_open(path, &db) != SQLITE_OK || gs_schema_create(db) != 0 ||
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return 1;
	}
	sqlite3_close(db);
	return 0;
}
