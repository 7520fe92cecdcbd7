/*
 * callsite_mkdb.c - writes a small trace with call sites (schema v2
 * stack_frames / api_stacks) for the CLI test of the report's call-site
 * lines and `gapscope report --by-site` (callsite_check.sh). Every figure
 * it leads to is worked out by hand in the comment below.
 *
 * Device 0, stream 7, thread 11.
 *   K1 [1000,2000) launched by cudaLaunchKernel [500,600) corr 1
 *   cudaStreamSynchronize [2100,10000) corr 2 (explicit sync, kind 3)
 *   K2 [12000,13000) launched by cudaLaunchKernel [11000,11100) corr 3
 *   cudaMemcpy [13100,20000) corr 4 (implicit sync, kind 16)
 *   K3 [21000,22000) launched [20500,20600) corr 5
 * Gap [2000,12000): host code 100, sync wait 7900 (corr 2), host code
 * 1000, launch latency 1000. Gap [13000,21000): host code 100, sync wait
 * 6900 (corr 4), host code 500, launch latency 500.
 * Stacks: 1 (corr 2) Python: torch/_tensor.py:41 `item` (a library frame),
 * /home/u/train.py:27 `train_one_epoch` -> named "train.py:27";
 * 2 (corr 4) native: libcudart.so.13 `cudaMemcpy`, /opt/app/demo
 * `copy_results_back` +0x1a2b -> named "`copy_results_back` in demo+0x1a2b";
 * 3 (corr 3, a late launch) Python /home/u/train.py:30 -> the host-late
 * part of the first gap: 100 + 1000 + 1000 = 2100 ns.
 */
#include <stdio.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"

static const char sql[] =
    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamSynchronize'),"
    "(3,'k'),(4,'cudaMemcpy'),(5,'cudaMemcpy is synchronous'),"
    "(6,'/usr/lib/python3/dist-packages/torch/_tensor.py'),(7,'item'),"
    "(8,'/home/u/train.py'),(9,'train_one_epoch'),(10,'/usr/lib/libcudart.so.13'),"
    "(11,'/opt/app/demo'),(12,'copy_results_back');"
    "INSERT INTO devices(id,name,cc_major) VALUES(0,'A',9);"
    "INSERT INTO api_calls(api,name_id,start,end,tid,correlation_id) VALUES"
    "(1,1,500,600,11,1),(1,2,2100,10000,11,2),(1,1,11000,11100,11,3),"
    "(1,4,13100,20000,11,4),(1,1,20500,20600,11,5);"
    "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,graph_id) VALUES"
    "(1000,2000,0,7,1,3,0),(12000,13000,0,7,3,3,0),(21000,22000,0,7,5,3,0);"
    "INSERT INTO syncs(start,end,kind,implicit,reason_id,api_name_id,device,stream,event,"
    "correlation_id,pid,tid) VALUES(2100,10000,3,0,NULL,2,0,7,NULL,2,1,11),"
    "(13100,20000,16,1,5,4,0,7,NULL,4,1,11);"
    "INSERT INTO stack_frames(stack_id,depth,kind,module_id,offset,symbol_id,file_id,line,"
    "function_id) VALUES"
    "(1,0,1,10,4096,2,NULL,NULL,NULL),(1,0,2,NULL,NULL,NULL,6,41,7),"
    "(1,1,2,NULL,NULL,NULL,8,27,9),"
    "(2,0,1,10,8192,4,NULL,NULL,NULL),(2,1,1,11,6699,12,NULL,NULL,NULL),"
    "(3,0,2,NULL,NULL,NULL,8,30,9);"
    "INSERT INTO api_stacks(correlation_id,stack_id,tid,reason) VALUES"
    "(2,1,11,1),(4,2,11,1),(3,3,11,3);";

int main(int argc, char **argv)
{
	sqlite3 *db;
	char *msg = NULL;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: callsite_mkdb <out.db>\n");
		return 2;
	}
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 1;
	rc = gs_schema_create(db);
	if (rc == 0 && sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "callsite_mkdb: %s\n", msg ? msg : "?");
		rc = 1;
	}
	if (rc == 0)
		rc = gs_schema_create_indexes(db) ? 1 : 0;
	if (rc == 0)
		sqlite3_exec(db, "INSERT OR REPLACE INTO meta VALUES('finalized','1')", NULL, NULL,
			     NULL);
	sqlite3_free(msg);
	sqlite3_close(db);
	return rc ? 1 : 0;
}
