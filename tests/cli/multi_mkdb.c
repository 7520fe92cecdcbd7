/*
 * multi_mkdb.c - writes one rank's trace for the multi-trace report's CLI
 * test (tests/cli/multi_check.py), with the real schema (gs_schema_create):
 *   multi_mkdb <out.db> <rank 0|1|2> [hostname] [early|capture]
 *
 * Three ranks of one job, 5 steps. On the common clock (CLOCK_MONOTONIC),
 * step i begins at T = 10000 + 100000 i (ns). Each trace's CUPTI clock is
 * the monotonic clock + D (D = 1e6, 5e6, 9e6 ns for ranks 0, 1, 2), and
 * meta monotonic_offset_ns = -D says so; realtime_offset_ns = -D + 1.7e18.
 *   rank 0: step [T, T+50000]; "allreduce" [T+20000, T+50000] (step 0:
 *           [T+40000, T+50000]); kernels gemm [T+1000, T+19000] (step 0:
 *           [T+1000, T+25000]) and ncclDevKernel [T+20000, T+50000]
 *   rank 1: step [T, T+51000] (step 3: [T, T+70000], a host pause after
 *           the allreduce); "allreduce" [T+21000, T+51000]; gemm
 *           [T+1000, T+19000], nccl [T+21000, T+51000]
 *   rank 2 (the slow one): step [T+2000, T+62000]; gemm [T+3000, T+48000];
 *           "allreduce" and nccl [T+48000, T+50000]; then 12000 ns of host
 *           code before the step ends
 * With "early" (the after set of `gapscope diff before/ after/`,
 * diff_sets_check.py), rank 2 is less late: gemm [T+3000, T+40000],
 * "allreduce" and nccl [T+40000, T+42000], the same 12000 ns of host code,
 * so its step is [T+2000, T+54000]; the other ranks are unchanged.
 * With "capture", the trace says it was recorded with `gapscope record
 * --capture-range cudaProfilerApi` (schema v3), its capture windows
 * [D, D+300000] (steps 0-2) and [D+310000, D+500000] (steps 3 and 4) on
 * its own clock: nothing happened between them, but the viewer reads
 * only the time inside them.
 * Every figure the test expects is worked out from these in
 * multi_check.py. Replaces an existing file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"

static int exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "multi_mkdb: %s\n", err ? err : "sqlite error");
		sqlite3_free(err);
		return 1;
	}
	return 0;
}

static int execf(sqlite3 *db, const char *fmt, long long a, long long b, long long c)
{
	char sql[512];

	snprintf(sql, sizeof(sql), fmt, a, b, c);
	return exec(db, sql);
}

int main(int argc, char **argv)
{
	static const long long D[3] = {1000000, 5000000, 9000000};
	sqlite3 *db = NULL;
	const char *host = argc > 3 ? argv[3] : "nodeA";
	long long d, i;
	char sql[512];
	int r, rc = 1, early = argc > 4 && !strcmp(argv[4], "early");
	int capture = argc > 4 && !strcmp(argv[4], "capture");

	if (argc < 3 || argc > 5 || (r = atoi(argv[2])) < 0 || r > 2 ||
	    (argc > 4 && !early && !capture)) {
		fprintf(stderr,
			"usage: multi_mkdb <out.db> <rank 0|1|2> [hostname] [early|capture]\n");
		return 2;
	}
	d = D[r];
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK || gs_schema_create(db) != 0)
		goto out;
	if (exec(db, "BEGIN;") ||
	    exec(db, "INSERT INTO strings VALUES(1,'gemm'),"
		     "(2,'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),(3,'step'),(4,'allreduce');"
		     "INSERT INTO devices(id,name,cc_major) VALUES(0,'Test GPU',9);"))
		goto out;
	snprintf(sql, sizeof(sql),
		 "INSERT OR REPLACE INTO meta VALUES('pid','%d'),('hostname','%s'),"
		 "('env.RANK','%d'),('monotonic_offset_ns','%lld'),"
		 "('realtime_offset_ns','%lld');",
		 4000 + r, host, r, -d, -d + 1700000000000000000LL);
	if (exec(db, sql))
		goto out;
	if (capture) {
		snprintf(sql, sizeof(sql),
			 "INSERT OR REPLACE INTO meta VALUES('schema_version','3'),"
			 "('capture_range','cudaProfilerApi'),('capture.windows','2');"
			 "INSERT INTO capture_windows VALUES(%lld,%lld),(%lld,%lld);",
			 d, d + 300000, d + 310000, d + 500000);
		if (exec(db, sql))
			goto out;
	}
	for (i = 0; i < 5; i++) {
		long long t = 10000 + 100000 * i + d; /* T on this trace's clock */
		long long s0, s1, a0, a1, g0, g1, n0, n1;
		if (r == 0) {
			s0 = t, s1 = t + 50000;
			a0 = i == 0 ? t + 40000 : t + 20000, a1 = t + 50000;
			g0 = t + 1000, g1 = i == 0 ? t + 25000 : t + 19000;
			n0 = t + 20000, n1 = t + 50000;
		} else if (r == 1) {
			s0 = t, s1 = i == 3 ? t + 70000 : t + 51000;
			a0 = t + 21000, a1 = t + 51000;
			g0 = t + 1000, g1 = t + 19000;
			n0 = t + 21000, n1 = t + 51000;
		} else if (early) {
			s0 = t + 2000, s1 = t + 54000;
			a0 = t + 40000, a1 = t + 42000;
			g0 = t + 3000, g1 = t + 40000;
			n0 = t + 40000, n1 = t + 42000;
		} else {
			s0 = t + 2000, s1 = t + 62000;
			a0 = t + 48000, a1 = t + 50000;
			g0 = t + 3000, g1 = t + 48000;
			n0 = t + 48000, n1 = t + 50000;
		}
		if (execf(db,
			  "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) "
			  "VALUES(%lld,%lld,0,3,1,%lld);",
			  s0, s1, 11) ||
		    execf(db,
			  "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) "
			  "VALUES(%lld,%lld,0,4,1,%lld);",
			  a0, a1, 11) ||
		    execf(db,
			  "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,"
			  "graph_id) VALUES(%lld,%lld,0,7,%lld,1,0);",
			  g0, g1, 2 * i + 1) ||
		    execf(db,
			  "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,"
			  "graph_id) VALUES(%lld,%lld,0,8,%lld,2,0);",
			  n0, n1, 2 * i + 2))
			goto out;
	}
	rc = exec(db, "COMMIT;") || gs_schema_create_indexes(db) != 0;
out:
	sqlite3_close(db);
	return rc;
}
