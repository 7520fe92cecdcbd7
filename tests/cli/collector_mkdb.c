/*
 * collector_mkdb.c - builds the small trace databases the `gapscope info`
 * CLI tests read: `collector_mkdb <out.db> <variant>`.
 *
 * The tables come from the real schema (gs_schema_create), never from a
 * copy; the rows are fixed values chosen by hand so that the expected output
 * files next to this one can be worked out on paper (see the comments at
 * each insert). Variants:
 *   full      finalized trace: 2 devices, 3 kernels, 2 memcpys, 1 memset,
 *             4 API calls, 3 syncs (1 implicit), 2 NVTX rows, 5 strings,
 *             1 process, 2 threads, config and no warnings
 *   cutshort  like a process killed mid-run: no stop_ns, finalized missing,
 *             one stored warning, 1 kernel
 *   v99       meta.schema_version = 99 (a newer gapscope wrote it)
 *   foreign   a valid SQLite database that is not a gapscope trace
 *   ctrl      command line and host name holding control characters and an
 *             invalid UTF-8 byte
 *   walcut    cutshort written in WAL mode, then one more kernel committed to
 *             the WAL, and the process exits without closing the database,
 *             as a killed collector leaves it (-wal and -shm files beside it)
 * Except walcut, it does not write WAL files (default rollback journal), so
 * the header's page count is valid and a `head -c` copy reads as truncated.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gapscope/trace_format.h"

static int exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "collector_mkdb: %s\n  in: %s\n", msg ? msg : "?", sql);
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Rows shared by full and ctrl. Times in ns; the GPU window of device 0 is
 * 1400000000 (first memcpy start) .. 3000400000 (last memcpy end) =
 * 1600400000 ns, 5 ops; device 1 holds one memset of 500 ns. */
static const char full_rows[] =
    "INSERT INTO meta VALUES('collector_version','0.1.0');"
    "INSERT INTO meta VALUES('pid','4242');"
    "INSERT INTO meta VALUES('start_ns','1000000000');"
    "INSERT INTO meta VALUES('stop_ns','3500000000');" /* 2.5 s */
    "INSERT INTO meta VALUES('realtime_offset_ns','1700000000000000000');"
    "INSERT INTO meta VALUES('monotonic_offset_ns','0');"
    "INSERT INTO meta VALUES('cupti_version','130000');"
    "INSERT INTO meta VALUES('cuda_driver_version','13000');"
    "INSERT INTO meta VALUES('dropped_records','0');"
    "INSERT INTO meta VALUES('collector.callback_ns','1234567');"
    "INSERT INTO meta VALUES('collector.callbacks','890');"
    "INSERT INTO meta VALUES('collector.unwinder','libunwind');"
    /* the process's CPU time and its threads' by name, keys in another
     * order than their times */
    "INSERT INTO meta VALUES('process.cpu_ns','2345678901');"
    "INSERT INTO meta VALUES('thread_cpu_ns.cuda-EvtHandlr','120000000');"
    "INSERT INTO meta VALUES('thread_count.cuda-EvtHandlr','2');"
    "INSERT INTO meta VALUES('thread_cpu_ns.gs-decode','30000000');"
    "INSERT INTO meta VALUES('thread_count.gs-decode','1');"
    "INSERT INTO meta VALUES('thread_cpu_ns.python3','2000000000');"
    "INSERT INTO meta VALUES('thread_count.python3','1');"
    "INSERT INTO meta VALUES('finalized','1');"
    "INSERT INTO meta VALUES('config.activities','kernel,memcpy,memset,runtime,sync,nvtx');"
    "INSERT INTO meta VALUES('config.flush_ms','1000');"
    "INSERT INTO meta VALUES('config.latency','0');"
    "INSERT INTO strings VALUES(1,'_Z6kernelPf'),(2,'cudaLaunchKernel'),"
    " (3,'cudaMemcpy'),(4,'step'),(5,'synchronous memcpy');"
    /* 132 GiB = 132 * 2^30 bytes; 80 GiB = 80 * 2^30 */
    "INSERT INTO devices VALUES(0,'NVIDIA H200','GPU-0',9,0,132,1980000,3201000,"
    " 141733920768,52428800,1024);"
    "INSERT INTO devices VALUES(1,'NVIDIA H100 80GB HBM3','GPU-1',9,0,132,1980000,2619000,"
    " 85899345920,52428800,1024);"
    "INSERT INTO processes VALUES(4242,'h200-test','./app --steps 3',1000000000,3500000000,"
    " 'exit');"
    "INSERT INTO threads VALUES(4242,4242,'app'),(4243,4242,'worker');"
    "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id) VALUES"
    " (1500000000,1500002000,0,7,10,1),(1500010000,1500013000,0,7,11,1),"
    " (2000000000,2000004000,0,7,12,1);"
    "INSERT INTO memcpys(start,end,device,stream,correlation_id,bytes,copy_kind,src_kind,"
    " dst_kind,is_async) VALUES(1400000000,1400100000,0,7,9,4096,1,1,3,0),"
    " (3000000000,3000400000,0,7,13,4096,2,3,1,0);"
    "INSERT INTO memsets(start,end,device,stream,correlation_id,bytes,value,mem_kind,is_async)"
    " VALUES(2500000000,2500000500,1,0,14,1024,0,3,1);"
    "INSERT INTO api_calls(api,cbid,name_id,start,end,pid,tid,correlation_id,return_code)"
    " VALUES(1,211,2,1499990000,1499995000,4242,4242,10,0),"
    " (1,211,2,1500005000,1500009000,4242,4242,11,0),"
    " (1,211,2,1999990000,1999995000,4242,4242,12,0),"
    " (1,31,3,1399990000,1400200000,4242,4242,9,0);"
    "INSERT INTO syncs(start,end,kind,implicit,reason_id,api_name_id,device,stream,"
    " correlation_id,pid,tid) VALUES(1399990000,1400200000,16,1,5,3,0,7,9,4242,4242),"
    " (2000005000,2000010000,3,0,NULL,NULL,0,7,15,4242,4242),"
    " (3000500000,3000600000,4,0,NULL,NULL,0,0,16,4242,4243);"
    "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES"
    " (1499000000,2100000000,0,4,4242,4242),(1600000000,1600000000,1,4,4242,4242);";

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	const char *variant;
	int rc = 1;

	if (argc != 3) {
		fprintf(stderr,
			"usage: collector_mkdb <out.db> full|cutshort|v99|foreign|ctrl|walcut\n");
		return 2;
	}
	variant = argv[2];
	remove(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
		fprintf(stderr, "collector_mkdb: %s: %s\n", argv[1], sqlite3_errmsg(db));
		goto out;
	}
	if (!strcmp(variant, "foreign")) {
		if (exec(db, "CREATE TABLE songs(title TEXT, year INTEGER);"
			     "INSERT INTO songs VALUES('Blue Monday', 1983);"))
			goto out;
		rc = 0;
		goto out;
	}
	if (gs_schema_create(db) != 0) {
		fprintf(stderr, "collector_mkdb: gs_schema_create failed\n");
		goto out;
	}
	if (!strcmp(variant, "walcut") && exec(db, "PRAGMA journal_mode=WAL"))
		goto out;
	if (exec(db, "BEGIN"))
		goto out;
	if (!strcmp(variant, "full")) {
		if (exec(db, full_rows) ||
		    exec(db, "INSERT INTO meta VALUES('command_line','./app --steps 3');"
			     "INSERT INTO meta VALUES('hostname','h200-test');"))
			goto out;
	} else if (!strcmp(variant, "ctrl")) {
		/* ESC [2J (clear screen), a newline, a BEL, and 0xff (never valid
		 * UTF-8); the UTF-8 'é' must survive. */
		if (exec(db, full_rows) ||
		    exec(db, "INSERT INTO meta VALUES('command_line',"
			     " './app ' || char(27) || '[2J' || char(10) || 'x' || char(7) ||"
			     " ' caf' || char(233));"
			     "INSERT INTO meta VALUES('hostname', CAST(X'6E6FFF6465' AS TEXT));"
			     /* a thread named with an ESC, and no process total */
			     "INSERT INTO meta VALUES('thread_cpu_ns.w' || char(27) || '[1m',"
			     " '10000000');"
			     "DELETE FROM meta WHERE key = 'process.cpu_ns';"))
			goto out;
	} else if (!strcmp(variant, "cutshort") || !strcmp(variant, "walcut")) {
		if (exec(db, "INSERT INTO meta VALUES('collector_version','0.1.0');"
			     "INSERT INTO meta VALUES('command_line','python3 train.py');"
			     "INSERT INTO meta VALUES('hostname','h200-test');"
			     "INSERT INTO meta VALUES('pid','77');"
			     "INSERT INTO meta VALUES('start_ns','5000');"
			     "INSERT INTO meta VALUES('dropped_records','12');"
			     "INSERT INTO meta VALUES('warning.subscriber','another CUPTI "
			     "subscriber is active (torch.profiler?); recording API calls only');"
			     "INSERT INTO strings VALUES(1,'k');"
			     "INSERT INTO kernels(start,end,device,correlation_id,name_id)"
			     " VALUES(6000,8500,0,1,1);"))
			goto out;
	} else if (!strcmp(variant, "v99")) {
		if (exec(db, "UPDATE meta SET value='99' WHERE key='schema_version';"))
			goto out;
	} else {
		fprintf(stderr, "collector_mkdb: unknown variant '%s'\n", variant);
		goto out;
	}
	if (exec(db, "COMMIT"))
		goto out;
	if (!strcmp(variant, "walcut")) {
		/* A second batch, in the WAL only; then die without closing. */
		if (exec(db, "INSERT INTO kernels(start,end,device,correlation_id,name_id)"
			     " VALUES(9000,9500,0,2,1)"))
			goto out;
		fflush(NULL);
		_exit(0);
	}
	rc = 0;
out:
	sqlite3_close(db);
	return rc;
}
