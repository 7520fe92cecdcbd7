/*
 * render_gen.c - writes a synthetic, launch-bound trace of a chosen size for
 * the render benchmark (bench/speed/run_render_bench.sh) and the browser test:
 *
 *   render_gen <out.db> <steps>
 *
 * Each step is one NVTX range "decode step" on thread 100 holding 8 kernel
 * launches on stream 7 of device 0 and one cudaStreamSynchronize. Launch i
 * of a step is the API call [t, t + 4 us] and its kernel runs
 * [t + 5 us, t + 7 us]; the next launch starts 4.5 us after the previous
 * one, so every kernel but the very first follows a 2.5 us idle gap. Then
 * the synchronize call runs from the last launch's end to the last
 * kernel's end (+1 us). Per step: 8 kernels, 9 API calls, 1 sync, 1 NVTX
 * range = 19 rows; 52632 steps make 1,000,008 events (plus the analysis'
 * 8 * steps - 1 gaps in the HTML page). It is synthetic data, not a model
 * of any real program.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gapscope/trace_format.h"

static const char *const names[] = {
    "cudaLaunchKernel",
    "cudaStreamSynchronize",
    "decode step",
    "void attention<float, 128>(float const*, float*, int)",
    "void gemm<__half, 64, 64>(__half const*, __half const*, __half*)",
    "rms_norm_kernel",
    "rotary_embedding",
    "void softmax<float>(float*, int)",
    "silu_and_mul",
    "void gemm<__half, 128, 32>(__half const*, __half const*, __half*)",
    "residual_add",
};

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		int rc_ = (x); /* evaluated once: x is often a sqlite3_step() */                   \
		if (rc_ != SQLITE_OK && rc_ != SQLITE_DONE) {                                      \
			fprintf(stderr, "render_gen: %s\n", sqlite3_errmsg(db));                   \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

int main(int argc, char **argv)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *api, *kern, *sync, *nvtx, *str;
	long steps, s;
	long long t = 1000000, corr = 1, id_api = 1, id_k = 1;
	int i;

	if (argc != 3 || (steps = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: render_gen <out.db> <steps>\n");
		return 2;
	}
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK || gs_schema_create(db) != 0) {
		fprintf(stderr, "render_gen: cannot create %s\n", argv[1]);
		return 1;
	}
	CHECK(sqlite3_exec(
	    db,
	    "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"
	    "INSERT INTO meta VALUES('pid','99'),('collector_version','render_gen');"
	    "INSERT INTO devices(id, name, cc_major, cc_minor) VALUES(0,'synthetic',9,0);"
	    "INSERT INTO processes(pid, command_line) VALUES(99,'render_gen');"
	    "INSERT INTO threads VALUES(100, 99, 'main');",
	    NULL, NULL, NULL));
	CHECK(sqlite3_prepare_v2(db, "INSERT INTO strings VALUES(?,?)", -1, &str, NULL));
	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		sqlite3_bind_int(str, 1, i + 1);
		sqlite3_bind_text(str, 2, names[i], -1, SQLITE_STATIC);
		CHECK(sqlite3_step(str));
		sqlite3_reset(str);
	}
	sqlite3_finalize(str);
	CHECK(
	    sqlite3_prepare_v2(db,
			       "INSERT INTO api_calls(id, api, cbid, name_id, start, end, pid, tid,"
			       " correlation_id, return_code) VALUES(?,1,?,?,?,?,99,100,?,0)",
			       -1, &api, NULL));
	CHECK(sqlite3_prepare_v2(
	    db,
	    "INSERT INTO kernels(id, start, end, device, context, stream,"
	    " correlation_id, name_id, grid_x, grid_y, grid_z, block_x, block_y,"
	    " block_z, graph_id, graph_node_id) VALUES(?,?,?,0,1,7,?,?,1,1,1,256,1,1,0,0)",
	    -1, &kern, NULL));
	CHECK(
	    sqlite3_prepare_v2(db,
			       "INSERT INTO syncs(start, end, kind, implicit, api_name_id, device,"
			       " stream, correlation_id, pid, tid) VALUES(?,?,3,0,2,0,7,?,99,100)",
			       -1, &sync, NULL));
	CHECK(sqlite3_prepare_v2(db,
				 "INSERT INTO nvtx(start, end, kind, text_id, pid, tid)"
				 " VALUES(?,?,0,3,99,100)",
				 -1, &nvtx, NULL));
	for (s = 0; s < steps; s++) {
		long long step_start = t, last_end = 0, sync_start;
		for (i = 0; i < 8; i++) {
			sqlite3_bind_int64(api, 1, id_api++);
			sqlite3_bind_int(api, 2, 211);
			sqlite3_bind_int(api, 3, 1);
			sqlite3_bind_int64(api, 4, t);
			sqlite3_bind_int64(api, 5, t + 4000);
			sqlite3_bind_int64(api, 6, corr);
			CHECK(sqlite3_step(api));
			sqlite3_reset(api);
			sqlite3_bind_int64(kern, 1, id_k++);
			sqlite3_bind_int64(kern, 2, t + 5000);
			sqlite3_bind_int64(kern, 3, t + 7000);
			sqlite3_bind_int64(kern, 4, corr);
			sqlite3_bind_int(kern, 5, 4 + i);
			CHECK(sqlite3_step(kern));
			sqlite3_reset(kern);
			last_end = t + 7000;
			corr++;
			t += 4500;
		}
		sync_start = t - 4500 + 4000; /* the last launch call's end */
		sqlite3_bind_int64(api, 1, id_api++);
		sqlite3_bind_int(api, 2, 131);
		sqlite3_bind_int(api, 3, 2);
		sqlite3_bind_int64(api, 4, sync_start);
		sqlite3_bind_int64(api, 5, last_end + 1000);
		sqlite3_bind_int64(api, 6, corr);
		CHECK(sqlite3_step(api));
		sqlite3_reset(api);
		sqlite3_bind_int64(sync, 1, sync_start);
		sqlite3_bind_int64(sync, 2, last_end + 1000);
		sqlite3_bind_int64(sync, 3, corr);
		CHECK(sqlite3_step(sync));
		sqlite3_reset(sync);
		corr++;
		t = last_end + 1500;
		sqlite3_bind_int64(nvtx, 1, step_start);
		sqlite3_bind_int64(nvtx, 2, t - 200);
		CHECK(sqlite3_step(nvtx));
		sqlite3_reset(nvtx);
	}
	sqlite3_finalize(api);
	sqlite3_finalize(kern);
	sqlite3_finalize(sync);
	sqlite3_finalize(nvtx);
	CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL));
	if (gs_schema_create_indexes(db) != 0) {
		fprintf(stderr, "render_gen: cannot index: %s\n", sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_close(db);
	printf("%s: %ld steps, %ld events\n", argv[1], steps, steps * 19);
	return 0;
}
