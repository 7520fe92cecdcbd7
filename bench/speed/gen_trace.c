/*
 * gen_trace.c - writes a synthetic schema-v1 trace for the report benchmark:
 *   gs_gen_trace <out.db> [kernels=10000000] [streams=4]
 * Each stream is fed by its own host thread repeating an 8-kernel "step"
 * (kernel durations 2-17 us) with launch calls of 3 us, late or early so
 * that the gaps get every launch cause, a cudaStreamSynchronize every 1000
 * kernels, and one NVTX "chunk" range per 1000 kernels. Rows are written in
 * start order, in one transaction with prepared statements; indexes are
 * built at the end as the collector does. It measures nothing itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"

#define STEP 8

static int ok(sqlite3 *db, int rc, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "gen_trace: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
	return rc;
}

static void step_reset(sqlite3 *db, sqlite3_stmt *st, const char *what)
{
	ok(db, sqlite3_step(st), what);
	sqlite3_reset(st);
}

struct stream {
	int64_t next;	     /* ns: earliest start of the next kernel */
	int64_t host;	     /* ns: when the host thread is free again */
	uint64_t count;	     /* kernels so far */
	int64_t chunk_start; /* ns: start of the current NVTX chunk */
	/* the planned next kernel, so that rows can be written in start order */
	int64_t p_lstart, p_start, p_dur; /* ns */
	int p_k;
};

static uint32_t xorshift(uint32_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 17;
	*r ^= *r << 5;
	return *r;
}

/* Plan a stream's next kernel: 2-17 us long; its launch call usually early
 * (queued 6 us ahead), every 3rd one late (200 ns after the stream could
 * have started it); never before the host thread is free, and the kernel
 * never before launch + 4 us. */
static void plan(struct stream *st, uint32_t *rng)
{
	uint32_t r = xorshift(rng);

	st->p_k = (int)(st->count % STEP);
	st->p_dur = 2000 + 2000 * st->p_k + (r % 500);
	st->p_lstart = (r % 3 == 0) ? st->next + 200 : st->next - 6000;
	if (st->p_lstart < st->host)
		st->p_lstart = st->host;
	st->p_start = st->next;
	if (st->p_start < st->p_lstart + 4000)
		st->p_start = st->p_lstart + 4000;
}

int main(int argc, char **argv)
{
	static const char *const names[STEP] = {
	    "void gemm<float, 128, 64>(float const*, float const*, float*, int)",
	    "layernorm_kernel",
	    "void attention<__half, 64>(__half const*, __half*, int)",
	    "gelu_kernel",
	    "void gemm<float, 64, 32>(float const*, float const*, float*, int)",
	    "softmax_kernel",
	    "residual_add",
	    "copy_kv_cache",
	};
	uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000ull, i;
	int ns = argc > 3 ? atoi(argv[3]) : 4, s, k;
	sqlite3 *db = NULL;
	sqlite3_stmt *kst, *ast, *sst, *nst;
	struct stream *str;
	uint32_t corr = 0, rng = 2463534242u;

	/* an option (--help) is no file name: it made a 1.5 GB file "--help" */
	if (argc < 2 || argv[1][0] == '-' || n == 0 || ns < 1 || ns > 64) {
		fprintf(stderr, "usage: gs_gen_trace <out.db> [kernels] [streams]\n");
		return 2;
	}
	unlink(argv[1]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return 1;
	ok(db, sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", 0, 0, 0),
	   "pragma");
	if (gs_schema_create(db))
		return 1;
	ok(db, sqlite3_exec(db, "BEGIN", 0, 0, 0), "begin");
	ok(db,
	   sqlite3_exec(
	       db,
	       "INSERT INTO strings VALUES(1,'cudaLaunchKernel'),(2,'cudaStreamSynchronize'),"
	       "(3,'chunk');"
	       "INSERT INTO devices(id,name,cc_major,cc_minor,sm_count) "
	       "VALUES(0,'synthetic',9,0,132);",
	       0, 0, 0),
	   "strings");
	{
		sqlite3_stmt *st;
		ok(db, sqlite3_prepare_v2(db, "INSERT INTO strings VALUES(?,?)", -1, &st, 0),
		   "prep");
		for (k = 0; k < STEP; k++) {
			sqlite3_bind_int(st, 1, 10 + k);
			sqlite3_bind_text(st, 2, names[k], -1, SQLITE_STATIC);
			step_reset(db, st, "string");
		}
		sqlite3_finalize(st);
	}
	ok(db,
	   sqlite3_prepare_v2(
	       db,
	       "INSERT INTO kernels(start,end,device,context,stream,correlation_id,"
	       "name_id,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,"
	       "graph_id,graph_node_id) VALUES(?,?,0,1,?,?,?,128,1,1,256,1,1,32,0,0)",
	       -1, &kst, 0),
	   "prep kernels");
	ok(db,
	   sqlite3_prepare_v2(db,
			      "INSERT INTO api_calls(api,cbid,name_id,start,end,pid,tid,"
			      "correlation_id,return_code) VALUES(1,211,1,?,?,1,?,?,0)",
			      -1, &ast, 0),
	   "prep api");
	ok(db,
	   sqlite3_prepare_v2(db,
			      "INSERT INTO syncs(start,end,kind,implicit,api_name_id,device,stream,"
			      "correlation_id,pid,tid) VALUES(?,?,3,0,2,0,?,?,1,?)",
			      -1, &sst, 0),
	   "prep syncs");
	ok(db,
	   sqlite3_prepare_v2(
	       db, "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(?,?,0,3,1,?)", -1, &nst,
	       0),
	   "prep nvtx");
	str = calloc((size_t)ns, sizeof(*str));
	for (s = 0; s < ns; s++)
		str[s].next = str[s].host = str[s].chunk_start = 1000000 + 1300 * s;
	for (s = 0; s < ns; s++)
		plan(&str[s], &rng);
	for (i = 0; i < n; i++) {
		/* the stream whose planned kernel starts first: rows in start order */
		int b = 0;
		int64_t dur, start, lstart;
		for (s = 1; s < ns; s++)
			if (str[s].p_start < str[b].p_start)
				b = s;
		k = str[b].p_k;
		dur = str[b].p_dur;
		lstart = str[b].p_lstart;
		start = str[b].p_start;
		corr++;
		sqlite3_bind_int64(ast, 1, lstart);
		sqlite3_bind_int64(ast, 2, lstart + 3000);
		sqlite3_bind_int(ast, 3, 100 + b);
		sqlite3_bind_int64(ast, 4, corr);
		step_reset(db, ast, "api");
		sqlite3_bind_int64(kst, 1, start);
		sqlite3_bind_int64(kst, 2, start + dur);
		sqlite3_bind_int(kst, 3, 13 + b);
		sqlite3_bind_int64(kst, 4, corr);
		sqlite3_bind_int(kst, 5, 10 + k);
		step_reset(db, kst, "kernel");
		str[b].host = lstart + 3000;
		str[b].next = start + dur + (int64_t)(xorshift(&rng) % 40000);
		str[b].count++;
		if (str[b].count % 1000 == 0) {
			/* the host drains the stream, then starts a new chunk */
			int64_t se = start + dur + 2000;
			sqlite3_bind_int64(sst, 1, str[b].host);
			sqlite3_bind_int64(sst, 2, se);
			sqlite3_bind_int(sst, 3, 13 + b);
			sqlite3_bind_int64(sst, 4, ++corr);
			sqlite3_bind_int(sst, 5, 100 + b);
			step_reset(db, sst, "sync");
			sqlite3_bind_int64(nst, 1, str[b].chunk_start);
			sqlite3_bind_int64(nst, 2, se);
			sqlite3_bind_int(nst, 3, 100 + b);
			step_reset(db, nst, "nvtx");
			str[b].host = se;
			str[b].chunk_start = se;
			if (str[b].next < se + 5000)
				str[b].next = se + 5000;
		}
		plan(&str[b], &rng);
	}
	sqlite3_finalize(kst);
	sqlite3_finalize(ast);
	sqlite3_finalize(sst);
	sqlite3_finalize(nst);
	ok(db, sqlite3_exec(db, "COMMIT", 0, 0, 0), "commit");
	if (gs_schema_create_indexes(db))
		return 1;
	ok(db, sqlite3_exec(db, "INSERT OR REPLACE INTO meta VALUES('finalized','1')", 0, 0, 0),
	   "meta");
	sqlite3_close(db);
	free(str);
	printf("gen_trace: %llu kernels, %llu launch calls, %d streams -> %s\n",
	       (unsigned long long)n, (unsigned long long)n, ns, argv[1]);
	return 0;
}
