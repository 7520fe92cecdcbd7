/*
 * report_mkdb.c - writes the databases of the `gapscope report` CLI tests
 * with the real schema (gs_schema_create) and plain INSERTs:
 *   report_mkdb <out.db> basic|deps|hostpause|polls|noevents|empty|newer|foreign|
 *                        notsqlite|truncated
 * The timelines and every figure the tests expect from them are worked out
 * by hand (gap model v2, DESIGN.md) in tests/cli/report_check.py. Replaces
 * an existing file.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"

/* Device 0. Stream 7: K1 gemm [1000,2000] K2 relu [2000,2500] (back to
 * back), K3 gemm [3000,4000] (hole 500, K3 launched late at 2700: host
 * code then launch latency), K4 relu [6000,6200] (hole 2000 while
 * cudaStreamSynchronize [3900,5000] on tid 11 runs - v1 called it
 * sync-bound; K4 was launched at 3500, before the hole, so in v2 it is
 * launch latency and the sync explains none of it), K5 gemm [6500,7500]
 * (launch-latency hole 300: launched at 5100), a memcpy [8000,8100] with
 * no API record (other, 500). Stream 8: K6 relu [8050,8300]. All launches
 * by tid 11, 100 ns each. */
static const char basic_sql[] =
    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamSynchronize'),"
    "(3,'void gemm<float, 128>(float*, int)'),(4,'relu'),(5,'step'),(6,'cudaMemcpy'),"
    "(7,'synchronous copy'),(8,'tail'),(9,'odd \"name\"' || char(10) || char(27) || '[31m');"
    "INSERT INTO devices(id,name,cc_major,cc_minor,sm_count) VALUES(0,'Test GPU',9,0,132);"
    "INSERT INTO api_calls(api,cbid,name_id,start,end,pid,tid,correlation_id,return_code) VALUES"
    "(1,211,1,100,200,1,11,1,0),(1,211,1,300,400,1,11,2,0),(1,211,1,2700,2800,1,11,3,0),"
    "(1,211,1,3500,3600,1,11,4,0),(1,211,1,5100,5200,1,11,5,0),(1,211,1,5300,5400,1,11,6,0);"
    "INSERT INTO kernels(start,end,device,context,stream,correlation_id,name_id,graph_id,"
    "graph_node_id) VALUES"
    "(1000,2000,0,1,7,1,3,0,0),(2000,2500,0,1,7,2,4,0,0),(3000,4000,0,1,7,3,3,0,0),"
    "(6000,6200,0,1,7,4,4,0,0),(6500,7500,0,1,7,5,3,0,0),(8050,8300,0,1,8,6,4,0,0);"
    "INSERT INTO memcpys(start,end,device,context,stream,correlation_id,bytes,copy_kind,"
    "src_kind,dst_kind,is_async) VALUES(8000,8100,0,1,7,99,4096,1,2,3,1);"
    "INSERT INTO syncs(start,end,kind,implicit,reason_id,api_name_id,device,stream,event,"
    "correlation_id,pid,tid) VALUES(3900,5000,3,0,NULL,2,0,7,NULL,50,1,11),"
    "(7000,7200,16,1,7,6,0,0,NULL,51,1,11);"
    "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(0,3500,0,5,1,11),"
    "(3500,9000,0,8,1,11),(50,100,0,9,1,12);";

/* Two devices. Device 1, stream 20: K3 [1500,4900], launched at 230; event
 * 77 recorded on it at 240. Device 0: K1 [1000,2000] on stream 7 (launched
 * at 100), then stream 8 waits for event 77 (cudaStreamWaitEvent at 250)
 * and K2 [5000,6000] is launched on it at 300: the device-0 hole
 * [2000,5000) is a dependency on device 1 (3000 ns). */
static const char deps_sql[] =
    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamWaitEvent'),(3,'_Z6kernelPfi');"
    "INSERT INTO devices(id,name,cc_major) VALUES(0,'A',9),(1,'B',9);"
    "INSERT INTO api_calls(api,name_id,start,end,tid,correlation_id) VALUES"
    "(1,1,100,200,11,1),(1,1,300,400,11,2),(1,1,230,235,11,3);"
    "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,graph_id) VALUES"
    "(1000,2000,0,7,1,3,0),(5000,6000,0,8,2,3,0),(1500,4900,1,20,3,3,0);"
    "INSERT INTO syncs(start,end,kind,implicit,api_name_id,device,stream,event,"
    "correlation_id,tid) VALUES(250,260,2,0,2,0,8,77,4,11);"
    "INSERT INTO events(event,stream,device,correlation_id,start) VALUES(77,20,1,5,240);";

/* Device 0, stream 7, tid 11: a short cudaStreamSynchronize, then a long
 * host pause. K1 relu [1000,2000] (launched [100,200]); the host blocks in
 * cudaStreamSynchronize [1200,2300] (sync row and API row), returns 300 ns
 * after K1 ended, runs its own code for 7000 ns, and launches K2 relu
 * [9500,10500] at [9300,9400]. */
static const char hostpause_sql[] =
    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamSynchronize'),(3,'relu');"
    "INSERT INTO devices(id,name,cc_major) VALUES(0,'A',9);"
    "INSERT INTO api_calls(api,name_id,start,end,tid,correlation_id) VALUES"
    "(1,1,100,200,11,1),(1,2,1200,2300,11,3),(1,1,9300,9400,11,2);"
    "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,graph_id) VALUES"
    "(1000,2000,0,7,1,3,0),(9500,10500,0,7,2,3,0);"
    "INSERT INTO syncs(start,end,kind,implicit,api_name_id,device,stream,event,"
    "correlation_id,tid) VALUES(1200,2300,3,0,2,0,7,NULL,3,11);";

/* Device 0, stream 7, tid 11: polling. K1 relu [1000,2000] (launched
 * [100,200]); cudaEventSynchronize [300,2010] (sync row kind 1 and API
 * row); three cudaEventQuery [2100,2150] [2400,2450] [2700,2750] (API rows
 * and, as CUPTI reports them, sync rows of kind 1 too); one
 * cudaStreamQuery [2900,2920] (API row only); K2 relu [3200,4200]
 * launched at [3000,3100]. */
static const char polls_sql[] =
    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaEventSynchronize'),"
    "(3,'relu'),(4,'cudaEventQuery'),(5,'cudaStreamQuery');"
    "INSERT INTO devices(id,name,cc_major) VALUES(0,'A',9);"
    "INSERT INTO api_calls(api,name_id,start,end,tid,correlation_id) VALUES"
    "(1,1,100,200,11,1),(1,2,300,2010,11,3),(1,4,2100,2150,11,4),(1,4,2400,2450,11,5),"
    "(1,4,2700,2750,11,6),(1,5,2900,2920,11,7),(1,1,3000,3100,11,2);"
    "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,graph_id) VALUES"
    "(1000,2000,0,7,1,3,0),(3200,4200,0,7,2,3,0);"
    "INSERT INTO syncs(start,end,kind,implicit,api_name_id,device,stream,event,"
    "correlation_id,tid) VALUES(300,2010,1,0,2,0,0,5,3,11),(2100,2150,1,0,4,0,0,5,4,11),"
    "(2400,2450,1,0,4,0,0,5,5,11),(2700,2750,1,0,4,0,0,5,6,11);";

static int exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "report_mkdb: %s\n", err ? err : "sqlite error");
		sqlite3_free(err);
		return 1;
	}
	return 0;
}

static int make(const char *path, const char *kind)
{
	sqlite3 *db = NULL;
	int rc = 1;

	if (!strcmp(kind, "notsqlite")) {
		FILE *f = fopen(path, "w");
		if (!f)
			return 1;
		fputs("this is a text file, not a trace\n", f);
		return fclose(f) != 0;
	}
	if (sqlite3_open(path, &db) != SQLITE_OK)
		goto out;
	if (!strcmp(kind, "foreign")) {
		rc = exec(db, "CREATE TABLE x(a); INSERT INTO x VALUES(1);");
		goto out;
	}
	if (gs_schema_create(db) != 0)
		goto out;
	if (!strcmp(kind, "newer")) {
		rc = exec(db, "UPDATE meta SET value='99' WHERE key='schema_version';");
		goto out;
	}
	if (!strcmp(kind, "empty")) {
		rc = exec(db, "INSERT INTO strings VALUES(1,'cudaMalloc');"
			      "INSERT INTO api_calls(api,name_id,start,end,tid,correlation_id) "
			      "VALUES(1,1,10,20,11,1);");
		goto out;
	}
	if (!strcmp(kind, "deps")) {
		rc = exec(db, deps_sql);
		goto out;
	}
	if (!strcmp(kind, "hostpause")) {
		rc = exec(db, hostpause_sql);
		goto out;
	}
	if (!strcmp(kind, "polls")) {
		rc = exec(db, polls_sql);
		goto out;
	}
	if (!strcmp(kind, "noevents")) { /* a v1 trace from before the events table */
		rc = exec(db, "DROP TABLE events;") || exec(db, basic_sql);
		goto out;
	}
	if (!strcmp(kind, "basic") || !strcmp(kind, "truncated")) {
		rc = exec(db, "BEGIN;") || exec(db, basic_sql) || exec(db, "COMMIT;") ||
		     gs_schema_create_indexes(db) != 0;
		goto out;
	}
	fprintf(stderr, "report_mkdb: unknown kind '%s'\n", kind);
out:
	sqlite3_close(db);
	if (!rc && !strcmp(kind, "truncated"))
		rc = truncate(path, 8192) != 0; /* header says more pages than there are */
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr,
			"usage: report_mkdb <out.db> basic|deps|hostpause|polls|noevents|empty|newer|"
			"foreign|"
			"notsqlite|truncated\n");
		return 2;
	}
	unlink(argv[1]);
	return make(argv[1], argv[2]);
}
