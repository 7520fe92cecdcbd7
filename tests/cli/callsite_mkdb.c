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
 * No verdict rule fires (a sync rule needs 20 calls): the findings are [].
 *
 * With a second argument "escape" the Python function of stacks 1 and 3
 * is named <lambda> & "x" instead of train_one_epoch (a trace string is
 * untrusted): same figures, sites "train.py:27 (in `<lambda> & "x"`)", for
 * the escaping of the site text in HTML and JSON.
 *
 * With "sampled", samples of the launching thread (table samples) and a
 * stack 4: Python /home/u/train.py:35 `prepare`. The first gap's second
 * host-code segment [10000,11000) holds 4 of them: 10100, 10200, 10300
 * (stack 4) and 10400 (stack 1, named for samples by its innermost frame
 * outside the standard library: torch/_tensor.py:41 `item`, PyTorch's own
 * code: the framework's): 75% prepare, 25% item. The second gap's
 * [20000,20500) holds 20100 (stack 4). 5000 (in the sync wait) and thread
 * 12's 10500 are in no host code. Over all the host code: 5 samples, all
 * with a frame, 1 the framework's (20%): prepare 4 (80%), item 1 (20%).
 *
 * "sampled_via" is "sampled" whose samples at 10100 and 10200 are stack
 * 5: train.py:35 `prepare` over libcudart (its innermost native frame: the
 * framework's, called from that line), and at 10300 stack 6: torch/
 * _tensor.py's `<module>` being imported (`<frozen importlib._bootstrap>`)
 * for train.py:12 `prepare`, 19 frames left out between. The first gap's
 * host code [10000,11000): 10100, 10200 (5), 10300 (6), 10400 (1): 50%
 * prepare line 35 in the framework, 25% item, 25% imports from prepare
 * line 12 (equal shares by file id: torch/_tensor.py's 6 first). Over all 5
 * (20100 is stack 4): prepare line 35 in the framework 2 (40%), item 1,
 * prepare line 35 1, imports 1 (20% each, by file and function, then own
 * code, the framework's, imports); the framework's 3 (60%).
 *
 * With "aten", stack 2's program frame is PyTorch's instead: module
 * /opt/torch/lib/libtorch_cuda.so, symbol
 * _ZN2at6native24_local_scalar_dense_cudaERKNS_6TensorE (what `.item()`
 * runs; PyTorch releases the GIL there, so no Python frame is read): named
 * "`at::native::_local_scalar_dense_cuda` (PyTorch: tensor.item() /
 * float(tensor)) in libtorch_cuda.so+0x1a2b", same figures.
 *
 * With "calibrated", the first trace carries a calibration (meta
 * calibration.*, as gapscope-calibrate writes it) and an NVTX range "all"
 * [0, 22500] on thread 11 for the overhead
 * correction's CLI test (correct_check.sh works out its figures); with
 * "calibrated_old" the same without the plain_* keys (a trace calibrated
 * before 2026-12-04); with "calibrated_graph" the same as "calibrated" with
 * the three kernels as nodes of graph 5, each launched by its own
 * cudaGraphLaunch (the launch calls renamed); "calibrated_graph_launch" is
 * "calibrated_graph" whose calibration also timed the untraced graph launch
 * (plain_graph_launch_ns 20, plain_graph_node_ns 10); "calibrated_graph_store"
 * is "calibrated_graph" whose calibration also timed graphs of storing
 * kernels (store_graph_pitch_ns 500 traced, plain_store_graph_pitch_ns 450);
 * "calibrated_gap" is "calibrated" whose calibration also measured CUPTI's
 * time between back-to-back launch records (launch_gap_ns 30).
 *
 * "calibrated_slow" is another trace: 101 cudaLaunchKernel calls on thread
 * 11, call i at 20000 i with a record of 6000, 7000 or 8000 ns (6000 + 1000
 * (i % 3)), its kernel 500 after the record's end for 1000; a calibration
 * whose spaced launch's record took 5000 (spaced_record_ns). The 100 calls
 * after the first began 12000 or more after the previous one ended (after
 * host work), 33 of 6000, 34 of 7000, 33 of 8000: median 7000, 1.40x the
 * calibration's, so the report says the process ran slower than it. An
 * NVTX range "all" [0, 2020000] covers them; "calibrated_slow_ref" is an
 * untraced reference run of it (that range only, 1.5 ms);
 * "calibrated_slow_ref_launch" the same whose launch calls were timed from
 * outside (record --reference): 100 after host work, 6000 ns on average,
 * 2000 more than the calibration's untraced such launch (4000); and
 * "calibrated_slow_ref_launch_slow" with 4100 ns, 100 more.
 *
 * "many_calls" is the first trace with 40 more CUDA calls on thread 11 in
 * the first gap's host code after the sync: cudaFuncGetAttributes
 * [10000 + 20 k, 10000 + 20 k + 10) for k = 0..39, correlation ids 100 + k,
 * no stack. The gap then has 83 segments (host code 100, sync wait 7900,
 * CUDA API 10 and host code 10 39 times, CUDA API 10, host code 210,
 * launch latency 1000),
 * the launch of K2 (train.py:30, a late launch) past the 64th; its
 * host-late part is still 100 + 400 + 600 + 1000 = 2100 ns.
 *
 * With "steps" instead, a training loop whose sync rule fires: 20 steps,
 * step i at b = 10000 i: cudaLaunchKernel [b+500,b+600) corr 2i+1, its
 * kernel [b+1000,b+2000), cudaStreamSynchronize [b+2100,b+9000) corr 2i+2
 * with stack 1 (train.py:27). Window [1000,192000) = 191000 ns. The 19
 * gaps [b+2000,b+11000): host code 100, sync wait 6900, host code 1500,
 * launch latency 500 (the next launch call's start to its kernel). Verdict:
 * sync_every_step, 20 calls, drain 19 x (6900 + 500) = 140600 ns
 * (73.6% >= 5%), at train.py:27; host code 19 x 1600 = 30400 (15.9%) and
 * launch latency 19 x 500 = 9500 (5.0%) stay under their 20%.
 *
 * "steps_partial" is "steps" with the stacks of steps 5..19 not captured
 * (no api_stacks rows for correlation ids > 10): the same verdict, whose
 * top site now holds 5 of the 20 calls ("x20, 5 at train.py:27").
 * "steps_captured" is "steps" whose syncs' stacks were captured at their
 * entry in [b+1900, b+2100) (200 ns each, 4000 in all: 2.1% of the window)
 * with libgcc's unwinder (meta collector.unwinder), of 5000 ns in 40
 * callbacks (collector.callback_ns, collector.callbacks), and CUPTI's
 * overhead rows: on thread 11 a buffer request [100000, 103000) and a flush
 * [150000, 151000), on thread 12 (no CUDA call) a request of 10000.
 */
#include <stdio.h>
#include <string.h>
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
    "(2,1,11,1),(4,2,11,1),(3,3,11,3),"
    /* the last launch, captured as a slow async copy would be (reason 2):
     * its host-late 1000 ns are not credited to py30 (only reason 3) */
    "(5,3,11,2);";

/* the "steps" trace (above), executed on db; 0 or 1 */
static int steps(sqlite3 *db, char **msg)
{
	char row[1024];
	int i, rc;

	rc = sqlite3_exec(db,
			  "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),"
			  "(2,'cudaStreamSynchronize'),(3,'k'),(8,'/home/u/train.py'),"
			  "(9,'train_one_epoch'),(10,'first5');"
			  "INSERT INTO devices(id,name,cc_major) VALUES(0,'A',9);"
			  /* an NVTX range over the first 5 steps' syncs (the 5th
			   * ends at 49000) for --by-site --range */
			  "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) "
			  "VALUES(0,49500,0,10,1,11);"
			  "INSERT INTO stack_frames(stack_id,depth,kind,module_id,offset,symbol_id,"
			  "file_id,line,function_id) VALUES(1,0,2,NULL,NULL,NULL,8,27,9);",
			  NULL, NULL, msg);
	for (i = 0; i < 20 && rc == SQLITE_OK; i++) {
		long b = 10000L * i;
		snprintf(row, sizeof(row),
			 "INSERT INTO api_calls(api,name_id,start,end,tid,correlation_id) VALUES"
			 "(1,1,%ld,%ld,11,%d),(1,2,%ld,%ld,11,%d);"
			 "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,"
			 "graph_id) VALUES(%ld,%ld,0,7,%d,3,0);"
			 "INSERT INTO syncs(start,end,kind,implicit,reason_id,api_name_id,device,"
			 "stream,event,correlation_id,pid,tid) VALUES(%ld,%ld,3,0,NULL,2,0,7,NULL,"
			 "%d,1,11);"
			 "INSERT INTO api_stacks(correlation_id,stack_id,tid,reason) "
			 "VALUES(%d,1,11,1);",
			 b + 500, b + 600, 2 * i + 1, b + 2100, b + 9000, 2 * i + 2, b + 1000,
			 b + 2000, 2 * i + 1, b + 2100, b + 9000, 2 * i + 2, 2 * i + 2);
		rc = sqlite3_exec(db, row, NULL, NULL, msg);
	}
	return rc == SQLITE_OK ? 0 : 1;
}

/* sql on db; 0, or 1 after saying why */
static int exec_sql(sqlite3 *db, const char *sql_text)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql_text, NULL, NULL, &msg);

	if (rc != SQLITE_OK)
		fprintf(stderr, "callsite_mkdb: %s\n", msg ? msg : "?");
	sqlite3_free(msg);
	return rc == SQLITE_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	sqlite3 *db;
	char *msg = NULL;
	int rc;

	int mode = argc == 3 && !strcmp(argv[2], "escape")			      ? 1
		   : argc == 3 && !strcmp(argv[2], "steps")			      ? 2
		   : argc == 3 && !strcmp(argv[2], "aten")			      ? 3
		   : argc == 3 && !strcmp(argv[2], "calibrated")		      ? 4
		   : argc == 3 && !strcmp(argv[2], "calibrated_old")		      ? 5
		   : argc == 3 && !strcmp(argv[2], "steps_partial")		      ? 6
		   : argc == 3 && !strcmp(argv[2], "calibrated_graph")		      ? 7
		   : argc == 3 && !strcmp(argv[2], "calibrated_graph_launch")	      ? 8
		   : argc == 3 && !strcmp(argv[2], "calibrated_graph_store")	      ? 9
		   : argc == 3 && !strcmp(argv[2], "calibrated_gap")		      ? 10
		   : argc == 3 && !strcmp(argv[2], "steps_captured")		      ? 11
		   : argc == 3 && !strcmp(argv[2], "steps_captured_native")	      ? 12
		   : argc == 3 && !strcmp(argv[2], "calibrated_slow")		      ? 13
		   : argc == 3 && !strcmp(argv[2], "calibrated_slow_ref")	      ? 14
		   : argc == 3 && !strcmp(argv[2], "calibrated_slow_ref_launch")      ? 15
		   : argc == 3 && !strcmp(argv[2], "calibrated_slow_ref_launch_slow") ? 16
		   : argc == 3 && !strcmp(argv[2], "many_calls")		      ? 17
		   : argc == 3 && !strcmp(argv[2], "sampled")			      ? 18
		   : argc == 3 && !strcmp(argv[2], "sampled_via")		      ? 19
										      : 0;

	if (argc != 2 && !mode) {
		fprintf(stderr,
			"usage: callsite_mkdb <out.db> "
			"[escape|steps|steps_partial|aten|calibrated|calibrated_old|"
			"calibrated_graph|calibrated_graph_launch|calibrated_graph_store|"
			"calibrated_gap|calibrated_slow|calibrated_slow_ref|"
			"calibrated_slow_ref_launch|calibrated_slow_ref_launch_slow|steps_captured|"
			"steps_captured_native|many_calls|sampled|sampled_via]\n");
		return 2;
	}
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 1;
	rc = gs_schema_create(db);
	if (rc == 0 && mode == 13) {
		rc = exec_sql(
		    db,
		    "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(3,'k'),(13,'all');"
		    "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(0,2020000,0,13,1,11);"
		    "INSERT INTO devices(id,name,cc_major) VALUES(0,'A',9);"
		    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 100) "
		    "INSERT INTO api_calls(api,name_id,start,end,tid,correlation_id) "
		    "SELECT 1, 1, 20000 * i, 20000 * i + 6000 + 1000 * (i % 3), 11, i + 1 FROM n;"
		    "INSERT INTO kernels(start,end,device,stream,correlation_id,name_id,graph_id) "
		    "SELECT end + 500, end + 1500, 0, 7, correlation_id, 3, 0 FROM api_calls;"
		    "INSERT INTO meta VALUES('calibration.launch_ns','300'),"
		    "('calibration.legacy_launch_ns','500'),('calibration.driver_launch_ns','700'),"
		    "('calibration.kernel_ns','100'),('calibration.gpu_gap_ns','200'),"
		    "('calibration.graph_node_ns','300'),('calibration.plain_launch_ns','4000'),"
		    "('calibration.plain_legacy_launch_ns','4000'),"
		    "('calibration.plain_driver_launch_ns','3000'),"
		    "('calibration.plain_spaced_launch_ns','4000'),"
		    "('calibration.spaced_launch_ns','600'),"
		    "('calibration.spaced_record_ns','5000');");
	} else if (rc == 0 && mode >= 14 && mode <= 16) {
		rc = exec_sql(db, "INSERT INTO strings VALUES(13,'all');"
				  "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) "
				  "VALUES(0,1500000,0,13,1,11);"
				  "INSERT INTO meta VALUES('config.activities','nvtx');");
		if (rc == 0 && mode >= 15)
			rc = exec_sql(db, mode == 15
					      ? "INSERT INTO meta VALUES"
						"('reference.launch_spaced_calls','100'),"
						"('reference.launch_spaced_mean_ns','6000');"
					      : "INSERT INTO meta VALUES"
						"('reference.launch_spaced_calls','100'),"
						"('reference.launch_spaced_mean_ns','4100');");
	} else if (rc == 0 && (mode == 2 || mode == 6 || mode == 11 || mode == 12
				   ? steps(db, &msg) != 0
				   : sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)) {
		fprintf(stderr, "callsite_mkdb: %s\n", msg ? msg : "?");
		rc = 1;
	}
	if (rc == 0 && mode == 12) /* the same stacks with a native frame: walked */
		rc = exec_sql(db, "INSERT INTO strings VALUES(11,'/usr/lib/libfoo.so');"
				  "INSERT INTO stack_frames(stack_id,depth,kind,module_id,offset,"
				  "symbol_id,file_id,line,function_id) VALUES(1,0,1,11,4096,NULL,"
				  "NULL,NULL,NULL);");
	if (rc == 0 && (mode == 11 || mode == 12)) /* step i's sync: corr 2i+2, b = 10000 i */
		rc =
		    exec_sql(db, "UPDATE api_stacks SET "
				 "capture_start = 10000 * (correlation_id / 2 - 1) + 1900, "
				 "capture_end = 10000 * (correlation_id / 2 - 1) + 2100;"
				 "INSERT INTO meta VALUES('collector.unwinder','libgcc'),"
				 "('collector.callback_ns','5000'),('collector.callbacks','40');"
				 /* CUPTI's: a buffer request and a flush on the
				  * steps' thread, a request on another thread */
				 "INSERT INTO overhead(kind,start,end,object_kind,object_id) VALUES"
				 "(458752,100000,103000,2,11),(65536,150000,151000,2,11),"
				 "(458752,160000,170000,2,12);");
	if (rc == 0 && mode == 17) /* 40 more calls in the first gap, after its sync */
		rc = exec_sql(db,
			      "INSERT INTO strings VALUES(14,'cudaFuncGetAttributes');"
			      "WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n "
			      "WHERE k < 39) INSERT INTO api_calls(api,name_id,start,end,tid,"
			      "correlation_id) SELECT 1, 14, 10000 + 20 * k, 10010 + 20 * k, 11, "
			      "100 + k FROM n;");
	if (rc == 0 && (mode == 18 || mode == 19)) /* samples of thread 11: see "sampled" above */
		rc = exec_sql(db, "INSERT INTO strings VALUES(14,'prepare');"
				  "INSERT INTO stack_frames(stack_id,depth,kind,module_id,offset,"
				  "symbol_id,file_id,line,function_id) VALUES"
				  "(4,0,2,NULL,NULL,NULL,8,35,14);"
				  "INSERT INTO samples(tid,t,stack_id) VALUES(11,10100,4),"
				  "(11,10200,4),(11,10300,4),(11,10400,1),(11,20100,4),"
				  "(11,5000,4),(12,10500,4);");
	if (rc == 0 && mode == 19) /* "sampled_via" above */
		rc = exec_sql(db, "INSERT INTO strings VALUES(15,'<frozen importlib._bootstrap>'),"
				  "(16,'<module>'),(17,'_find_and_load');"
				  "INSERT INTO stack_frames(stack_id,depth,kind,module_id,offset,"
				  "symbol_id,file_id,line,function_id) VALUES"
				  "(5,0,2,NULL,NULL,NULL,8,35,14),(5,0,1,10,512,NULL,NULL,NULL,NULL),"
				  "(6,0,2,NULL,NULL,NULL,6,1,16),(6,1,2,NULL,NULL,NULL,15,1360,17),"
				  "(6,20,2,NULL,NULL,NULL,8,12,14);"
				  "UPDATE samples SET stack_id = 5 WHERE t IN (10100, 10200);"
				  "UPDATE samples SET stack_id = 6 WHERE t = 10300;");
	if (rc == 0 && mode == 6) /* the stacks of steps 5..19 not captured */
		rc = exec_sql(db, "DELETE FROM api_stacks WHERE correlation_id > 10");
	if (rc == 0 && mode == 1)
		rc = exec_sql(db, "UPDATE strings SET value='<lambda> & \"x\"' WHERE id=9");
	if (rc == 0 && mode == 3)
		rc = exec_sql(
		    db, "UPDATE strings SET value='/opt/torch/lib/libtorch_cuda.so' WHERE id=11;"
			"UPDATE strings SET value='_ZN2at6native24_local_scalar_dense_cudaERKNS_"
			"6TensorE' WHERE id=12");
	if (rc == 0 && (mode == 7 || mode == 8 || mode == 9))
		rc = exec_sql(db, "UPDATE kernels SET graph_id=5, graph_node_id=rowid;"
				  "UPDATE strings SET value='cudaGraphLaunch' WHERE id=1");
	if (rc == 0 && (mode == 4 || mode == 5 || (mode >= 7 && mode <= 12)))
		rc = exec_sql(
		    db,
		    "INSERT INTO strings VALUES(13,'all');"
		    "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(0,22500,0,13,1,11);"
		    "INSERT INTO meta VALUES('calibration.launch_ns','300'),"
		    "('calibration.legacy_launch_ns','500'),"
		    "('calibration.driver_launch_ns','700'),('calibration.kernel_ns','100'),"
		    "('calibration.gpu_gap_ns','200'),('calibration.graph_node_ns','300');");
	if (rc == 0 && (mode == 4 || (mode >= 7 && mode <= 12)))
		rc = exec_sql(db, "INSERT INTO meta VALUES('calibration.plain_launch_ns','40'),"
				  "('calibration.plain_legacy_launch_ns','60'),"
				  "('calibration.plain_driver_launch_ns','30');");
	if (rc == 0 && mode == 8)
		rc = exec_sql(db,
			      "INSERT INTO meta VALUES('calibration.plain_graph_launch_ns','20'),"
			      "('calibration.plain_graph_node_ns','10');");
	if (rc == 0 && mode == 10)
		rc = exec_sql(db, "INSERT INTO meta VALUES('calibration.launch_gap_ns','30');");
	if (rc == 0 && mode == 9)
		rc = exec_sql(db,
			      "INSERT INTO meta VALUES('calibration.store_graph_pitch_ns','500'),"
			      "('calibration.plain_store_graph_pitch_ns','450');");
	if (rc == 0)
		rc = gs_schema_create_indexes(db) ? 1 : 0;
	if (rc == 0)
		sqlite3_exec(db, "INSERT OR REPLACE INTO meta VALUES('finalized','1')", NULL, NULL,
			     NULL);
	sqlite3_free(msg);
	sqlite3_close(db);
	return rc ? 1 : 0;
}
