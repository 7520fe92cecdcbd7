/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_whatif.c - the database side of `gapscope whatif` (trace_whatif.h):
 * copy bytes per op, and the replayed trace written as a copy of the
 * source database with its rows moved. Rows are matched to the loaded
 * arrays by their recorded values (device, start, end, correlation id;
 * for calls and ranges their thread too): the arrays carry no row ids.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "gapscope/trace_format.h"
#include "import_out.h"
#include "trace_callsite.h"
#include "trace_whatif.h"
#include "whatif.h"

/* one row or one array element: a key of four values and what goes with
 * it (the row id, or the array index); s, e: a row's own start and end as
 * stored (its key may hold them widened, as the loader widens them) */
struct krow {
	int64_t k[4];
	int64_t v;
	int64_t s, e;
};

static int cmp_krow(const void *a, const void *b)
{
	const struct krow *x = a, *y = b;
	int i;

	for (i = 0; i < 4; i++)
		if (x->k[i] != y->k[i])
			return x->k[i] < y->k[i] ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* rows of `sql` (five integer columns: four key values, the row id) */
static int read_keys(sqlite3 *db, const char *sql, struct krow **out, size_t *n)
{
	sqlite3_stmt *st = NULL;
	struct krow *v = NULL;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int i;
		if (*n == cap) {
			struct krow *p = realloc(v, (cap ? cap * 2 : 4096) * sizeof(*p));
			if (!p) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = p;
			cap = cap ? cap * 2 : 4096;
		}
		for (i = 0; i < 4; i++)
			v[*n].k[i] = sqlite3_column_int64(st, i);
		v[*n].v = sqlite3_column_int64(st, 4);
		v[*n].s = v[*n].k[1];
		v[*n].e = v[*n].k[2];
		(*n)++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		*n = 0;
		return -1;
	}
	*out = v;
	return 0;
}

/* pair rows r (sorted) with array elements a (sorted): match[i] = row id
 * of a[i]'s row, -1 none */
static void pair_keys(const struct krow *r, size_t nr, const struct krow *a, size_t na,
		      int64_t *match)
{
	size_t i = 0, j = 0;

	while (j < na) {
		int c = 1;
		if (i < nr) {
			int k;
			c = 0;
			for (k = 0; k < 4 && !c; k++)
				c = r[i].k[k] < a[j].k[k] ? -1 : r[i].k[k] > a[j].k[k];
		}
		if (c < 0) {
			i++;
		} else if (c > 0) {
			match[j++] = -1;
		} else {
			match[j++] = (int64_t)i++;
		}
	}
}

int trace_load_copy_bytes(struct trace *t, const struct gs_input *in, uint64_t **bytes, char *err,
			  size_t errlen)
{
	struct krow *r = NULL, *a = NULL;
	size_t nr = 0, na = 0, i;
	int64_t *match = NULL;
	uint64_t *b = calloc(in->n_ops ? in->n_ops : 1, sizeof(uint64_t));
	int rc = -1;

	*bytes = NULL;
	if (!b)
		goto nomem;
	/* the row id column carries the bytes, or -1 for no host side */
	if (read_keys(t->db,
		      "SELECT coalesce(device,0), start, end, coalesce(correlation_id,0),"
		      " CASE WHEN src_kind IN (1,2) OR dst_kind IN (1,2) THEN coalesce(bytes,0)"
		      " ELSE -1 END FROM memcpys",
		      &r, &nr) < 0) {
		snprintf(err, errlen, "cannot read the copies' bytes: %s", sqlite3_errmsg(t->db));
		goto out;
	}
	for (i = 0; i < in->n_ops; i++)
		if (in->ops[i].kind == GS_OP_MEMCPY)
			na++;
	a = malloc((na ? na : 1) * sizeof(*a));
	match = malloc((na ? na : 1) * sizeof(*match));
	if (!a || !match)
		goto nomem;
	na = 0;
	for (i = 0; i < in->n_ops; i++) {
		const struct gs_op *o = &in->ops[i];
		if (o->kind != GS_OP_MEMCPY)
			continue;
		a[na].k[0] = o->device;
		a[na].k[1] = o->start;
		a[na].k[2] = o->end;
		a[na].k[3] = o->corr;
		a[na].v = (int64_t)i;
		na++;
	}
	qsort(r, nr, sizeof(*r), cmp_krow);
	qsort(a, na, sizeof(*a), cmp_krow);
	/* the loader clamps end to start: so do the rows' keys */
	for (i = 0; i < nr; i++)
		if (r[i].k[2] < r[i].k[1])
			r[i].k[2] = r[i].k[1];
	pair_keys(r, nr, a, na, match);
	for (i = 0; i < na; i++)
		if (match[i] >= 0 && r[match[i]].v > 0)
			b[a[i].v] = (uint64_t)r[match[i]].v;
	*bytes = b;
	b = NULL;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	free(b);
	free(r);
	free(a);
	free(match);
	return rc;
}

/* ---------------------------------------------------------- the writer */

struct wctx {
	sqlite3 *db;
	char *err;
	size_t errlen;
	const struct gs_input *in; /* its captures widen rows as the loader did */
};

/* move_rows' widen: none, each row by its corr (k[3]: calls), or the rows
 * whose k[3] is odd (corr * 2 + implicit: implicit syncs) */
enum { WIDEN_NONE, WIDEN_CALLS, WIDEN_IMPLICIT };

static int wfail(struct wctx *c, const char *what)
{
	snprintf(c->err, c->errlen, "cannot write the replayed trace (%s): %s", what,
		 sqlite3_errmsg(c->db));
	return -1;
}

/* Move the rows of `table` keyed by `keysql` (4 keys + rowid) to the new
 * times of the array elements a[0..na) (a[i].v: index into ns/ne); gone[i]
 * (may be NULL): delete that row instead. */
static int move_rows(struct wctx *c, const char *table, const char *keysql, struct krow *a,
		     size_t na, const int64_t *ns, const int64_t *ne, const uint8_t *gone,
		     const uint32_t *ncorr, const uint8_t *graph, int64_t graph_name, int widen)
{
	sqlite3_stmt *co = NULL;
	struct krow *r = NULL;
	size_t nr = 0, i;
	int64_t *match = malloc((na ? na : 1) * sizeof(int64_t));
	sqlite3_stmt *up = NULL, *del = NULL;
	char sql[256];
	int rc = -1;

	if (!match)
		return wfail(c, "out of memory");
	if (read_keys(c->db, keysql, &r, &nr) < 0) {
		free(match);
		return wfail(c, table);
	}
	/* keys as the loader made the rows: end no earlier than start, and a
	 * call with a call-site capture widened over it (trace_callsite.h; its
	 * keys held the stored times, so no widened call or implicit sync was
	 * found: whatif -o kept the allocations alloc_in_loop removed) */
	for (i = 0; widen != WIDEN_NONE && i < nr; i++) {
		int64_t corr = widen == WIDEN_CALLS ? r[i].k[3]
			       : (r[i].k[3] & 1)    ? r[i].k[3] >> 1
						    : 0;
		if (r[i].k[2] < r[i].k[1])
			r[i].k[2] = r[i].k[1];
		if (corr > 0 && corr <= UINT32_MAX)
			trace_widen_span(c->in->captures, c->in->n_captures, (uint32_t)corr,
					 &r[i].k[1], &r[i].k[2]);
	}
	qsort(r, nr, sizeof(*r), cmp_krow);
	qsort(a, na, sizeof(*a), cmp_krow);
	pair_keys(r, nr, a, na, match);
	snprintf(sql, sizeof(sql), "UPDATE %s SET start = ?1, end = ?2 WHERE rowid = ?3", table);
	if (sqlite3_prepare_v2(c->db, sql, -1, &up, NULL) != SQLITE_OK)
		goto fail;
	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE rowid = ?1", table);
	if (sqlite3_prepare_v2(c->db, sql, -1, &del, NULL) != SQLITE_OK)
		goto fail;
	/* a graph node: its graph launch's correlation id, and that as its
	 * graph id; a call that launches the graph: the graph launch's name */
	if (ncorr)
		snprintf(sql, sizeof(sql),
			 "UPDATE %s SET correlation_id = ?1, graph_id = ?1 WHERE rowid = ?2",
			 table);
	else
		snprintf(sql, sizeof(sql), "UPDATE %s SET name_id = ?1 WHERE rowid = ?2", table);
	if ((ncorr || graph) && sqlite3_prepare_v2(c->db, sql, -1, &co, NULL) != SQLITE_OK)
		goto fail;
	for (i = 0; i < na; i++) {
		int64_t x = a[i].v, row;
		const struct krow *y;
		if (match[i] < 0)
			continue;
		y = &r[match[i]];
		row = y->v;
		if (gone && gone[x]) {
			sqlite3_bind_int64(del, 1, row);
			if (sqlite3_step(del) != SQLITE_DONE)
				goto fail;
			sqlite3_reset(del);
			continue;
		}
		if ((ncorr && ncorr[x]) ||
		    (graph && graph[x] == GS_WHATIF_GRAPH && graph_name > 0)) {
			sqlite3_bind_int64(co, 1, ncorr ? (int64_t)ncorr[x] : graph_name);
			sqlite3_bind_int64(co, 2, row);
			if (sqlite3_step(co) != SQLITE_DONE)
				goto fail;
			sqlite3_reset(co);
		}
		if (ns[x] == a[i].k[1] && ne[x] == a[i].k[2])
			continue; /* unmoved (keys hold start, end in 1, 2) */
		/* the row keeps its own offsets from the times the model read */
		sqlite3_bind_int64(up, 1, ns[x] + (y->s - y->k[1]));
		sqlite3_bind_int64(up, 2,
				   ne[x] + (y->e - y->k[2]) > ns[x] + (y->s - y->k[1])
				       ? ne[x] + (y->e - y->k[2])
				       : ns[x] + (y->s - y->k[1]));
		sqlite3_bind_int64(up, 3, row);
		if (sqlite3_step(up) != SQLITE_DONE)
			goto fail;
		sqlite3_reset(up);
	}
	rc = 0;
	goto out;
fail:
	wfail(c, table);
out:
	sqlite3_finalize(up);
	sqlite3_finalize(del);
	sqlite3_finalize(co);
	free(r);
	free(match);
	return rc;
}

struct sync_key {
	uint32_t corr, tid, api;
};
static int cmp_sync_key(const void *a, const void *b)
{
	const struct sync_key *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->api < y->api ? -1 : x->api > y->api;
}

static int write_rows(struct wctx *c, const struct gs_input *in, const struct trace_retime *rt)
{
	static const struct {
		int kind;
		const char *table, *sql;
	} optab[] = {
	    {GS_OP_KERNEL, "kernels",
	     "SELECT coalesce(device,0), start, max(end,start), coalesce(correlation_id,0), rowid"
	     " FROM kernels"},
	    {GS_OP_MEMCPY, "memcpys",
	     "SELECT coalesce(device,0), start, max(end,start), coalesce(correlation_id,0), rowid"
	     " FROM memcpys"},
	    {GS_OP_MEMSET, "memsets",
	     "SELECT coalesce(device,0), start, max(end,start), coalesce(correlation_id,0), rowid"
	     " FROM memsets"},
	};
	size_t n = in->n_ops > in->n_apis ? in->n_ops : in->n_apis, i, k, m;
	struct krow *a;
	int64_t *ss = NULL, *se = NULL;
	uint8_t *sgone = NULL;
	struct sync_key *sk = NULL;
	int rc = -1;

	if (in->n_nvtx > n)
		n = in->n_nvtx;
	if (in->n_syncs > n)
		n = in->n_syncs;
	a = malloc((n ? n : 1) * sizeof(*a));
	if (!a)
		return wfail(c, "out of memory");
	for (k = 0; k < sizeof(optab) / sizeof(optab[0]); k++) {
		for (i = m = 0; i < in->n_ops; i++) {
			const struct gs_op *o = &in->ops[i];
			if (o->kind != optab[k].kind)
				continue;
			a[m].k[0] = o->device;
			a[m].k[1] = o->start;
			a[m].k[2] = o->end;
			a[m].k[3] = o->corr;
			a[m++].v = (int64_t)i;
		}
		/* keys: (device, start, end, corr): start and end at 1, 2 as
		 * move_rows reads them */
		if (m && move_rows(c, optab[k].table, optab[k].sql, a, m, rt->op_start, rt->op_end,
				   NULL, rt->op_corr, NULL, 0, WIDEN_NONE) < 0)
			goto out;
	}
	/* calls move; a call a fix removed goes */
	if (in->n_apis) {
		uint8_t *gone = calloc(in->n_apis, 1);
		if (!gone)
			goto out;
		for (i = 0; i < in->n_apis; i++) {
			const struct gs_api *x = &in->apis[i];
			gone[i] = rt->api_fix && rt->api_fix[i] == GS_WHATIF_GONE;
			a[i].k[0] = x->tid;
			a[i].k[1] = x->start;
			a[i].k[2] = x->end;
			a[i].k[3] = x->corr;
			a[i].v = (int64_t)i;
		}
		int64_t gname = 0;
		for (i = 0; i < in->n_apis && !gname; i++)
			if (rt->api_fix && rt->api_fix[i] == GS_WHATIF_GRAPH)
				gname = import_out_intern(c->db, "cudaGraphLaunch");
		rc = move_rows(
		    c, "api_calls",
		    "SELECT coalesce(tid,0), start, end, coalesce(correlation_id,0), rowid"
		    " FROM api_calls",
		    a, in->n_apis, rt->api_start, rt->api_end, gone, NULL, rt->api_fix, gname,
		    WIDEN_CALLS);
		free(gone);
		if (rc < 0)
			goto out;
		rc = -1;
	}
	/* syncs move with their call (by correlation id and thread) */
	if (in->n_syncs) {
		sk = malloc(in->n_apis * sizeof(*sk) + 1);
		ss = malloc(in->n_syncs * sizeof(int64_t));
		se = malloc(in->n_syncs * sizeof(int64_t));
		sgone = calloc(in->n_syncs, 1);
		if (!sk || !ss || !se || !sgone)
			goto out;
		for (i = 0; i < in->n_apis; i++) {
			sk[i].corr = in->apis[i].corr;
			sk[i].tid = in->apis[i].tid;
			sk[i].api = (uint32_t)i;
		}
		qsort(sk, in->n_apis, sizeof(*sk), cmp_sync_key);
		for (i = 0; i < in->n_syncs; i++) {
			const struct gs_sync *s = &in->syncs[i];
			struct sync_key key = {s->corr, s->tid, 0};
			size_t lo = 0, hi = in->n_apis;
			ss[i] = s->start;
			se[i] = s->end;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (cmp_sync_key(&sk[mid], &key) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < in->n_apis && sk[lo].corr == s->corr && s->corr &&
			    (!s->tid || sk[lo].tid == s->tid)) {
				uint32_t ap = sk[lo].api;
				const struct gs_api *x = &in->apis[ap];
				ss[i] = s->start + (rt->api_start[ap] - x->start);
				se[i] = s->end + (rt->api_end[ap] - x->end);
				if (se[i] < ss[i])
					se[i] = ss[i];
				sgone[i] = rt->api_fix &&
					   (rt->api_fix[ap] == GS_WHATIF_GONE ||
					    rt->api_fix[ap] == GS_WHATIF_ASYNC) &&
					   s->kind != GS_SYNC_STREAM_WAIT_EVENT;
			}
			a[i].k[0] = s->tid;
			a[i].k[1] = s->start;
			a[i].k[2] = s->end;
			a[i].k[3] = (int64_t)s->corr * 2 + (s->implicit != 0);
			a[i].v = (int64_t)i;
		}
		if (move_rows(c, "syncs",
			      "SELECT coalesce(tid,0), start, end,"
			      " coalesce(correlation_id,0) * 2 + (coalesce(implicit,0) != 0), rowid"
			      " FROM syncs",
			      a, in->n_syncs, ss, se, sgone, NULL, NULL, 0, WIDEN_IMPLICIT) < 0)
			goto out;
	}
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *r = &in->nvtx[i];
		a[i].k[0] = r->tid;
		a[i].k[1] = r->start;
		a[i].k[2] = r->end;
		a[i].k[3] = r->text_id;
		a[i].v = (int64_t)i;
	}
	if (in->n_nvtx && move_rows(c, "nvtx",
				    "SELECT coalesce(tid,0), start, end, coalesce(text_id,0), rowid"
				    " FROM nvtx",
				    a, in->n_nvtx, rt->nvtx_start, rt->nvtx_end, NULL, NULL, NULL,
				    0, WIDEN_NONE) < 0)
		goto out;
	rc = 0;
out:
	free(a);
	free(sk);
	free(ss);
	free(se);
	free(sgone);
	return rc;
}

int trace_write_retimed(struct trace *t, const struct gs_input *in, const struct trace_retime *rt,
			const char *out, char *err, size_t errlen)
{
	struct import_out o;
	struct wctx c;
	sqlite3_backup *bk;
	int rc = -1;

	if (import_out_open(&o, out, err, errlen) != 0) {
		import_out_close(&o);
		return -1;
	}
	c.db = o.db;
	c.err = err;
	c.errlen = errlen;
	c.in = in;
	/* the source as it is (every table: graphs, devices, meta ...), then
	 * the moved rows; the backup replaces the empty schema */
	bk = sqlite3_backup_init(o.db, "main", t->db, "main");
	if (!bk) {
		wfail(&c, "copying the trace");
		goto out;
	}
	if (sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
		sqlite3_backup_finish(bk);
		wfail(&c, "copying the trace");
		goto out;
	}
	if (sqlite3_backup_finish(bk) != SQLITE_OK) {
		wfail(&c, "copying the trace");
		goto out;
	}
	/* the copy keeps the source's WAL flag: a private file renamed into
	 * place needs no journal */
	if (sqlite3_exec(o.db, "PRAGMA journal_mode=DELETE; BEGIN;", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		wfail(&c, "beginning");
		goto out;
	}
	if (write_rows(&c, in, rt) < 0)
		goto out;
	if (import_out_meta(o.db, "whatif.fixes", rt->fixes ? rt->fixes : "") < 0) {
		wfail(&c, "meta");
		goto out;
	}
	if (import_out_commit(&o, err, errlen) != 0)
		goto out;
	rc = 0;
out:
	import_out_close(&o);
	return rc;
}
