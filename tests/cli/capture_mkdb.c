/*
 * capture_mkdb.c - writes the databases of the capture-window CLI tests
 * (traces recorded with `gapscope record --capture-range cudaProfilerApi`,
 * schema v3) with the real schema (gs_schema_create) and plain INSERTs:
 *   capture_mkdb <out.db> capture|spanning|spanwhole|nowindows|v3whole|v2whole [SQL]
 * SQL, when given, runs last (damage, extra rows). The timeline and every
 * figure the tests expect from it are worked out by hand in
 * tests/cli/capture_check.py. Replaces an existing file.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"

/* Device 0, stream 7, launches by tid 11 (1000 ns each), times in ns.
 * Capture windows W1 [1000000, 2000000] and W2 [5000000, 6000000]:
 * nothing was recorded in [2000000, 5000000].
 *   W1: K1 gemm [1000000, 1300000] (its launch call came before the
 *       window: not recorded), K2 relu [1500000, 2000000] launched at
 *       [1450000, 1451000].
 *   W2: K3 gemm [5100000, 5400000] launched at [5040000, 5041000], K4
 *       relu [5600000, 6000000] launched at [5550000, 5551000].
 * NVTX range "step" [1200000, 5300000] on tid 11. */
static const char timeline_sql[] =
    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'gemm'),(3,'relu'),(4,'step');"
    "INSERT INTO devices(id,name,cc_major,cc_minor,sm_count) VALUES(0,'Test GPU',9,0,132);"
    "INSERT INTO api_calls(api,cbid,name_id,start,end,pid,tid,correlation_id,return_code) VALUES"
    "(1,211,1,1450000,1451000,1,11,2,0),(1,211,1,5040000,5041000,1,11,3,0),"
    "(1,211,1,5550000,5551000,1,11,4,0);"
    "INSERT INTO kernels(start,end,device,context,stream,correlation_id,name_id,graph_id,"
    "graph_node_id) VALUES"
    "(1000000,1300000,0,1,7,1,2,0,0),(1500000,2000000,0,1,7,2,3,0,0),"
    "(5100000,5400000,0,1,7,3,2,0,0),(5600000,6000000,0,1,7,4,3,0,0);"
    "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(1200000,5300000,0,4,1,11);";

/* A loop's two kernels, gemm then relu, back to back on stream 7 in
 * steps of 400000 ns, the loop going on between the windows unrecorded
 * (the graph-advice test). Capture windows as above:
 *   W1: gemm [1000000, 1200000], relu [1200000, 1400000],
 *       gemm [1400000, 1600000], relu [1600000, 1800000],
 *       gemm [1800000, 2000000] (its relu ran after W1 closed);
 *   W2: relu [5000000, 5200000], gemm [5200000, 5400000],
 *       relu [5400000, 5600000].
 * Their launch calls came long before (not recorded). */
static const char spanning_sql[] =
    "INSERT INTO strings VALUES(2,'gemm'),(3,'relu');"
    "INSERT INTO devices(id,name,cc_major,cc_minor,sm_count) VALUES(0,'Test GPU',9,0,132);"
    "INSERT INTO kernels(start,end,device,context,stream,correlation_id,name_id,graph_id,"
    "graph_node_id) VALUES"
    "(1000000,1200000,0,1,7,1,2,0,0),(1200000,1400000,0,1,7,2,3,0,0),"
    "(1400000,1600000,0,1,7,3,2,0,0),(1600000,1800000,0,1,7,4,3,0,0),"
    "(1800000,2000000,0,1,7,5,2,0,0),(5000000,5200000,0,1,7,6,3,0,0),"
    "(5200000,5400000,0,1,7,7,2,0,0),(5400000,5600000,0,1,7,8,3,0,0);";

/* what the collector writes into a capture trace's meta (schema v3) */
static const char capture_meta_sql[] = "INSERT OR REPLACE INTO meta VALUES('schema_version','3'),"
				       "('capture_range','cudaProfilerApi');";

static int exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "capture_mkdb: %s\n", err ? err : "sqlite error");
		sqlite3_free(err);
		return 1;
	}
	return 0;
}

static int make(const char *path, const char *kind, const char *extra)
{
	sqlite3 *db = NULL;
	int rc = 1;

	if (sqlite3_open(path, &db) != SQLITE_OK || gs_schema_create(db) != 0)
		goto out;
	if (!strcmp(kind, "capture")) {
		rc = exec(db, timeline_sql) || exec(db, capture_meta_sql) ||
		     exec(db, "INSERT INTO meta VALUES('capture.windows','2');"
			      "INSERT INTO capture_windows VALUES(1000000,2000000),"
			      "(5000000,6000000);");
	} else if (!strcmp(kind, "spanning") || !strcmp(kind, "spanwhole")) {
		/* the same rows recorded whole: v2, no windows */
		rc = exec(db, spanning_sql);
		if (!rc && !strcmp(kind, "spanning"))
			rc = exec(db, capture_meta_sql) ||
			     exec(db, "INSERT INTO meta VALUES('capture.windows','2');"
				      "INSERT INTO capture_windows VALUES(1000000,2000000),"
				      "(5000000,6000000);");
	} else if (!strcmp(kind, "nowindows")) {
		/* the program never called cudaProfilerStart: no rows at all */
		rc = exec(db, capture_meta_sql) ||
		     exec(db, "INSERT INTO meta VALUES('capture.windows','0');");
	} else if (!strcmp(kind, "v3whole")) {
		/* schema v3 without capture_range: the whole run was recorded */
		rc = exec(db, timeline_sql) ||
		     exec(db, "UPDATE meta SET value='3' WHERE key='schema_version';");
	} else if (!strcmp(kind, "v2whole")) {
		rc = exec(db, timeline_sql);
	} else {
		fprintf(stderr, "capture_mkdb: unknown kind '%s'\n", kind);
		goto out;
	}
	if (!rc && extra)
		rc = exec(db, extra);
out:
	sqlite3_close(db);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: capture_mkdb <out.db> "
				"capture|spanning|spanwhole|nowindows|v3whole|v2whole [SQL]\n");
		return 2;
	}
	unlink(argv[1]);
	return make(argv[1], argv[2], argc == 4 ? argv[3] : NULL);
}
