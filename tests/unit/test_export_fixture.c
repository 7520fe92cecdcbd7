/*
 * test_export_fixture.c - writes the small trace the render tests read
 * (see test_export_fixture.h). The rows, all times in ns:
 *
 * device 0 "NVIDIA H200"; process 4242 "./app --n=3"; thread 4243 "main".
 * api_calls (pid 4242, tid 4243):
 *   1 cudaLaunchKernel       [1000, 1500] corr 10
 *   2 cudaLaunchKernel       [2000, 2600] corr 11
 *   3 cudaMemcpyAsync        [3000, 3400] corr 12
 *   4 cudaStreamSynchronize  [3500, 9000] corr 13
 *   5 cudaLaunchKernel       [9500, 9800] corr 14
 * kernels (device 0):
 *   1 FIX_KERNEL_TEMPLATE  [2000, 4000]   stream 7  corr 10  grid 2x1x1 block 128x1x1
 *                                                   32 regs, 1024 B static shared
 *   2 FIX_KERNEL_UTF8      [4100, 5000]   stream 7  corr 11
 *   3 FIX_KERNEL_SCRIPT    [10000, 10500] stream 7  corr 14
 *   4 FIX_KERNEL_BAD_UTF8  [11000, 11200] stream 13 corr 0 (no launch recorded)
 * memcpys: 1 [5200, 6000] stream 7 corr 12, 4096 B HtoD pageable -> device, async
 * memsets: 1 [6100, 6300] stream 7 corr 0, 256 B device memory
 * syncs: 1 [3500, 9000] stream synchronize (explicit), api cudaStreamSynchronize,
 *          stream 7
 *        2 [3000, 3400] implicit pageable copy, api cudaMemcpyAsync,
 *          reason "Async copy from pageable memory"
 * nvtx: 1 range FIX_NVTX_TEXT [900, 9900]; 2 mark FIX_KERNEL_SCRIPT at 950
 *
 * So the first event starts at 900 and the last ends at 11200.
 *
 * Variant 1, "after": the same program with the copy from pinned memory,
 * the second kernel faster and the work queued sooner (same names):
 * api_calls: 1 cudaLaunchKernel [1000, 1500] corr 10; 2 cudaLaunchKernel
 *   [1600, 2100] corr 11; 3 cudaMemcpyAsync [2200, 2600] corr 12;
 *   5 cudaLaunchKernel [2700, 3000] corr 14; 4 cudaStreamSynchronize
 *   [3100, 5800] corr 13
 * kernels: 1 [2000, 4000] s7; 2 [4000, 4700] s7; 3 [5200, 5700] s7;
 *   4 [5700, 5900] s13 (corr 0)
 * memcpys: 1 [4700, 4900] s7 corr 12, 4096 B HtoD pinned -> device
 * memsets: 1 [4900, 5100] s7 corr 0
 * syncs: 1 [3100, 5800] stream synchronize (explicit) only
 * nvtx: 1 range [900, 6000]; 2 mark at 950
 *
 * Variant 2, "phases": both runs in one trace, as two phases of one
 * program: every row of variant 0, then every row of variant 1 with all
 * times + 20000 ns (ids + 10, correlation ids 20..24 for 10..14, 0 stays
 * 0), and two more NVTX ranges: "before_phase" [800, 11200] and
 * "after_phase" [20800, 26000]. Between the phases the GPU is idle
 * [11200, 22000): the launch of kernel 1 of phase two, cudaLaunchKernel
 * [21000, 21500], began after the GPU went idle (launch-bound).
 *
 * Variant 3, "graph-level" (schema v2 graph_runs): every row of variant 0,
 * plus api_calls 6 cudaGraphLaunch [12000, 12300] corr 15 and graph_runs:
 *   1 [13000, 15500] device 0 stream 21 graph 5 corr 15 (shown);
 *   2 [0, 0]         device 0 stream 21 graph 5 corr 16 (untimed: skipped);
 *   3 [16000, 17000] device 2147483647 stream 0 graph 6 corr 17 (begun on
 *     the host: skipped).
 * So the first event still starts at 900 and the last shown ends at 15500;
 * stream 21 holds only the graph run.
 */
#include <sqlite3.h>
#include <stdio.h>

#include "gapscope/trace_format.h"
#include "test_export_fixture.h"

static const char *const strings[] = {
    NULL,			       /* ids start at 1 */
    "cudaLaunchKernel",		       /* 1 */
    "cudaStreamSynchronize",	       /* 2 */
    FIX_KERNEL_TEMPLATE,	       /* 3 */
    FIX_KERNEL_SCRIPT,		       /* 4 */
    FIX_NVTX_TEXT,		       /* 5 */
    "cudaMemcpyAsync",		       /* 6 */
    FIX_KERNEL_UTF8,		       /* 7 */
    "Async copy from pageable memory", /* 8 */
    FIX_KERNEL_BAD_UTF8,	       /* 9 */
    FIX_PHASE_BEFORE,		       /* 10 */
    FIX_PHASE_AFTER,		       /* 11 */
    "cudaGraphLaunch",		       /* 12 */
};

static const char rows_v0[] =
    "INSERT INTO meta VALUES('pid','4242'),('collector_version','test');"
    "INSERT INTO devices(id, name, cc_major, cc_minor, sm_count) VALUES(0,'NVIDIA H200',9,0,132);"
    "INSERT INTO processes(pid, hostname, command_line) VALUES(4242,'host','./app --n=3');"
    "INSERT INTO threads VALUES(4243, 4242, 'main');"
    "INSERT INTO api_calls(id, api, cbid, name_id, start, end, pid, tid, correlation_id,"
    " return_code) VALUES"
    " (1,1,211,1,1000,1500,4242,4243,10,0),"
    " (2,1,211,1,2000,2600,4242,4243,11,0),"
    " (3,1,41,6,3000,3400,4242,4243,12,0),"
    " (4,1,131,2,3500,9000,4242,4243,13,0),"
    " (5,1,211,1,9500,9800,4242,4243,14,0);"
    "INSERT INTO kernels(id, start, end, device, context, stream, correlation_id, name_id,"
    " grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_shared_bytes,"
    " dynamic_shared_bytes, graph_id, graph_node_id) VALUES"
    " (1,2000,4000,0,1,7,10,3,2,1,1,128,1,1,32,1024,0,0,0),"
    " (2,4100,5000,0,1,7,11,7,1,1,1,32,1,1,16,0,0,0,0),"
    " (3,10000,10500,0,1,7,14,4,1,1,1,32,1,1,16,0,0,0,0),"
    " (4,11000,11200,0,1,13,0,9,1,1,1,32,1,1,16,0,0,0,0);"
    "INSERT INTO memcpys(id, start, end, device, context, stream, correlation_id, bytes,"
    " copy_kind, src_kind, dst_kind, is_async) VALUES (1,5200,6000,0,1,7,12,4096,1,1,3,1);"
    "INSERT INTO memsets(id, start, end, device, context, stream, correlation_id, bytes,"
    " value, mem_kind, is_async) VALUES (1,6100,6300,0,1,7,0,256,0,3,1);"
    "INSERT INTO syncs(id, start, end, kind, implicit, reason_id, api_name_id, device,"
    " context, stream, event, correlation_id, pid, tid) VALUES"
    " (1,3500,9000,3,0,NULL,2,0,1,7,NULL,13,4242,4243),"
    " (2,3000,3400,17,1,8,6,0,1,7,NULL,12,4242,4243);"
    "INSERT INTO nvtx(id, start, end, kind, text_id, domain_id, category, color, pid, tid)"
    " VALUES (1,900,9900,0,5,NULL,0,NULL,4242,4243),(2,950,950,1,4,NULL,0,NULL,4242,4243);";

static const char rows_v1[] =
    "INSERT INTO meta VALUES('pid','4242'),('collector_version','test');"
    "INSERT INTO devices(id, name, cc_major, cc_minor, sm_count) VALUES(0,'NVIDIA H200',9,0,132);"
    "INSERT INTO processes(pid, hostname, command_line) VALUES(4242,'host','./app --n=3');"
    "INSERT INTO threads VALUES(4243, 4242, 'main');"
    "INSERT INTO api_calls(id, api, cbid, name_id, start, end, pid, tid, correlation_id,"
    " return_code) VALUES"
    " (1,1,211,1,1000,1500,4242,4243,10,0),"
    " (2,1,211,1,1600,2100,4242,4243,11,0),"
    " (3,1,41,6,2200,2600,4242,4243,12,0),"
    " (4,1,131,2,3100,5800,4242,4243,13,0),"
    " (5,1,211,1,2700,3000,4242,4243,14,0);"
    "INSERT INTO kernels(id, start, end, device, context, stream, correlation_id, name_id,"
    " grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_shared_bytes,"
    " dynamic_shared_bytes, graph_id, graph_node_id) VALUES"
    " (1,2000,4000,0,1,7,10,3,2,1,1,128,1,1,32,1024,0,0,0),"
    " (2,4000,4700,0,1,7,11,7,1,1,1,32,1,1,16,0,0,0,0),"
    " (3,5200,5700,0,1,7,14,4,1,1,1,32,1,1,16,0,0,0,0),"
    " (4,5700,5900,0,1,13,0,9,1,1,1,32,1,1,16,0,0,0,0);"
    "INSERT INTO memcpys(id, start, end, device, context, stream, correlation_id, bytes,"
    " copy_kind, src_kind, dst_kind, is_async) VALUES (1,4700,4900,0,1,7,12,4096,1,2,3,1);"
    "INSERT INTO memsets(id, start, end, device, context, stream, correlation_id, bytes,"
    " value, mem_kind, is_async) VALUES (1,4900,5100,0,1,7,0,256,0,3,1);"
    "INSERT INTO syncs(id, start, end, kind, implicit, reason_id, api_name_id, device,"
    " context, stream, event, correlation_id, pid, tid) VALUES"
    " (1,3100,5800,3,0,NULL,2,0,1,7,NULL,13,4242,4243);"
    "INSERT INTO nvtx(id, start, end, kind, text_id, domain_id, category, color, pid, tid)"
    " VALUES (1,900,6000,0,5,NULL,0,NULL,4242,4243),(2,950,950,1,4,NULL,0,NULL,4242,4243);";

/* variant 2: variant 1 shifted by 20000 ns, after all of variant 0 */
static const char rows_v2_extra[] =
    "INSERT INTO api_calls(id, api, cbid, name_id, start, end, pid, tid, correlation_id,"
    " return_code) VALUES"
    " (11,1,211,1,21000,21500,4242,4243,20,0),"
    " (12,1,211,1,21600,22100,4242,4243,21,0),"
    " (13,1,41,6,22200,22600,4242,4243,22,0),"
    " (14,1,131,2,23100,25800,4242,4243,23,0),"
    " (15,1,211,1,22700,23000,4242,4243,24,0);"
    "INSERT INTO kernels(id, start, end, device, context, stream, correlation_id, name_id,"
    " grid_x, grid_y, grid_z, block_x, block_y, block_z, registers, static_shared_bytes,"
    " dynamic_shared_bytes, graph_id, graph_node_id) VALUES"
    " (11,22000,24000,0,1,7,20,3,2,1,1,128,1,1,32,1024,0,0,0),"
    " (12,24000,24700,0,1,7,21,7,1,1,1,32,1,1,16,0,0,0,0),"
    " (13,25200,25700,0,1,7,24,4,1,1,1,32,1,1,16,0,0,0,0),"
    " (14,25700,25900,0,1,13,0,9,1,1,1,32,1,1,16,0,0,0,0);"
    "INSERT INTO memcpys(id, start, end, device, context, stream, correlation_id, bytes,"
    " copy_kind, src_kind, dst_kind, is_async) VALUES (11,24700,24900,0,1,7,22,4096,1,2,3,1);"
    "INSERT INTO memsets(id, start, end, device, context, stream, correlation_id, bytes,"
    " value, mem_kind, is_async) VALUES (11,24900,25100,0,1,7,0,256,0,3,1);"
    "INSERT INTO syncs(id, start, end, kind, implicit, reason_id, api_name_id, device,"
    " context, stream, event, correlation_id, pid, tid) VALUES"
    " (11,23100,25800,3,0,NULL,2,0,1,7,NULL,23,4242,4243);"
    "INSERT INTO nvtx(id, start, end, kind, text_id, domain_id, category, color, pid, tid)"
    " VALUES (11,20900,26000,0,5,NULL,0,NULL,4242,4243),(12,20950,20950,1,4,NULL,0,NULL,4242,"
    "4243),(21,800,11200,0,10,NULL,0,NULL,4242,4243),"
    "(22,20800,26000,0,11,NULL,0,NULL,4242,4243);";

/* variant 3: variant 0 plus one graph launch recorded in graph-level mode */
static const char rows_v3_extra[] =
    "INSERT INTO api_calls(id, api, cbid, name_id, start, end, pid, tid, correlation_id,"
    " return_code) VALUES (6,1,311,12,12000,12300,4242,4243,15,0);"
    "INSERT INTO graph_runs(id, start, end, device, context, stream, graph_id, correlation_id)"
    " VALUES (1,13000,15500,0,1,21,5,15),(2,0,0,0,1,21,5,16),"
    "(3,16000,17000,2147483647,1,0,6,17);";

int fixture_write(const char *path, int variant)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;
	size_t i, nstrings;

	if (variant < 0 || variant > 3)
		return -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK)
		goto out;
	if (gs_schema_create(db) != 0)
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT INTO strings VALUES(?, ?)", -1, &st, NULL) != SQLITE_OK)
		goto out;
	/* the phase names only in variant 2 and cudaGraphLaunch only in
	 * variant 3, so each holds the strings its rows use (ids 1..9 all) */
	nstrings = variant == 2 ? 12 : 10;
	for (i = 1; i < sizeof(strings) / sizeof(strings[0]); i++) {
		if (i >= nstrings && !(variant == 3 && i == 12))
			continue;
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i);
		sqlite3_bind_text(st, 2, strings[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		sqlite3_reset(st);
	}
	if (sqlite3_exec(db, variant == 1 ? rows_v1 : rows_v0, NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	if (variant == 2 && sqlite3_exec(db, rows_v2_extra, NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	if (variant == 3 && sqlite3_exec(db, rows_v3_extra, NULL, NULL, NULL) != SQLITE_OK)
		goto out;
	if (gs_schema_create_indexes(db) != 0)
		goto out;
	ret = 0;
out:
	if (ret && db)
		fprintf(stderr, "fixture: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}
