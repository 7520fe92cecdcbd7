/*
 * trace_load.c - read a trace database into the analysis input arrays
 * (trace_load.h). Only reads; never analyses or prints.
 *
 * Speed matters (the 10M-kernel benchmark must stay within 3x of one
 * sqlite3 scan of the kernel table): each table is read with one plain
 * sequential scan in rowid order (no ORDER BY: walking the (device,start)
 * index costs a rowid lookup per row), into arrays pre-sized from
 * max(rowid); the rows are then sorted in memory only if they were not
 * already in (device, start) order, which the collector's append order
 * nearly always gives. kernels and api_calls, the two big tables, are read
 * on their own threads with their own read-only connections (SQLite
 * connections must not be shared across threads without its mutexes).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trace_load.h"

struct vec {
	void *p;
	size_t n, cap, elem;
};

/* Ask for transparent huge pages on the 2 MB-aligned interior of a big
 * array before it is first written: on virtual machines every 4 KB page
 * fault is expensive, and a 10M-op trace touches ~1 GB. Only a hint. */
static void hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);

	if (bytes >= 8 * huge && b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

static void *vec_push(struct vec *v)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 1024;
		void *np = realloc(v->p, nc * v->elem);
		if (!np)
			return NULL;
		v->p = np;
		v->cap = nc;
	}
	return (char *)v->p + v->elem * v->n++;
}

static int vec_reserve(struct vec *v, size_t cap)
{
	void *np;

	if (cap <= v->cap)
		return 0;
	np = realloc(v->p, cap * v->elem);
	if (!np)
		return -ENOMEM;
	hint_huge((char *)np + v->n * v->elem, (cap - v->n) * v->elem);
	v->p = np;
	v->cap = cap;
	return 0;
}

/* one loading job: a table read on one connection */
struct job {
	const char *path;
	sqlite3 *db; /* NULL: open our own connection on path */
	int (*fn)(struct job *j);
	struct vec out;
	int fixed;	/* out is a slice of a shared buffer: never grow or free it */
	int64_t lo, hi; /* kernels: rowid range (lo, hi] */
	int rc;
	char err[256];
};

static int job_fail(struct job *j, sqlite3 *db, const char *what)
{
	snprintf(j->err, sizeof(j->err), "cannot read %s: %s", what,
		 db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

static int64_t max_rowid(sqlite3 *db, const char *table)
{
	char sql[96];
	sqlite3_stmt *st = NULL;
	int64_t n = 0;

	snprintf(sql, sizeof(sql), "SELECT max(rowid) FROM %s", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n > 0 && n < (int64_t)1 << 32 ? n : 0;
}

static int i32(sqlite3_stmt *st, int col)
{
	return sqlite3_column_int(st, col);
}

static uint32_t u32(sqlite3_stmt *st, int col)
{
	return (uint32_t)sqlite3_column_int64(st, col);
}

static int64_t i64(sqlite3_stmt *st, int col)
{
	return sqlite3_column_int64(st, col);
}

/* kernels / memcpys / memsets -> gs_op */
static int load_ops_table(struct job *j, sqlite3 *db, const char *table, int kind)
{
	static const char *const sql[] = {
	    "SELECT start,end,device,stream,correlation_id,name_id,graph_id,graph_node_id,"
	    "0,0,0 FROM kernels WHERE rowid > ?1 AND rowid <= ?2",
	    "SELECT start,end,device,stream,correlation_id,0,graph_id,graph_node_id,"
	    "src_kind,dst_kind,is_async FROM memcpys",
	    "SELECT start,end,device,stream,correlation_id,0,graph_id,graph_node_id,"
	    "mem_kind,0,is_async FROM memsets",
	};
	sqlite3_stmt *st = NULL;
	int rc;

	if (!j->fixed && vec_reserve(&j->out, j->out.n + (size_t)max_rowid(db, table)))
		return job_fail(j, NULL, table);
	if (sqlite3_prepare_v2(db, sql[kind], -1, &st, NULL) != SQLITE_OK)
		return job_fail(j, db, table);
	if (kind == GS_OP_KERNEL) {
		sqlite3_bind_int64(st, 1, j->lo);
		sqlite3_bind_int64(st, 2, j->hi);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_op *o = j->fixed && j->out.n == j->out.cap ? NULL : vec_push(&j->out);
		if (!o) {
			sqlite3_finalize(st);
			return job_fail(j, NULL, table);
		}
		o->start = i64(st, 0);
		o->end = i64(st, 1);
		if (o->end < o->start)
			o->end = o->start; /* a damaged row must not make negative time */
		o->device = (int16_t)i32(st, 2);
		o->stream = u32(st, 3);
		o->corr = u32(st, 4);
		o->name_id = u32(st, 5);
		o->graph_id = u32(st, 6);
		o->graph_node_id = u32(st, 7);
		o->kind = (uint8_t)kind;
		o->flags = 0;
		if (kind != GS_OP_KERNEL) {
			if (i32(st, 8) == GS_MEM_PAGEABLE || i32(st, 9) == GS_MEM_PAGEABLE)
				o->flags |= GS_OPF_PAGEABLE;
			if (i32(st, 10))
				o->flags |= GS_OPF_ASYNC;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return job_fail(j, db, table);
	return 0;
}

static int job_kernels(struct job *j)
{
	return load_ops_table(j, j->db, "kernels", GS_OP_KERNEL);
}

static int job_copies(struct job *j)
{
	int rc = load_ops_table(j, j->db, "memcpys", GS_OP_MEMCPY);
	return rc ? rc : load_ops_table(j, j->db, "memsets", GS_OP_MEMSET);
}

static int job_apis(struct job *j)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (vec_reserve(&j->out, (size_t)max_rowid(j->db, "api_calls")))
		return job_fail(j, NULL, "api_calls");
	if (sqlite3_prepare_v2(
		j->db, "SELECT start,end,correlation_id,name_id,tid,cbid,api FROM api_calls", -1,
		&st, NULL) != SQLITE_OK)
		return job_fail(j, j->db, "api_calls");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_api *a = vec_push(&j->out);
		if (!a) {
			sqlite3_finalize(st);
			return job_fail(j, NULL, "api_calls");
		}
		a->start = i64(st, 0);
		a->end = i64(st, 1);
		if (a->end < a->start)
			a->end = a->start;
		a->corr = u32(st, 2);
		a->name_id = u32(st, 3);
		a->tid = u32(st, 4);
		a->cbid = (uint16_t)i32(st, 5);
		a->api = (uint8_t)i32(st, 6);
		a->flags = 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return job_fail(j, j->db, "api_calls");
	return 0;
}

static void *job_thread(void *arg)
{
	struct job *j = arg;
	sqlite3 *own = NULL;

	if (!j->db) {
		if (sqlite3_open_v2(j->path, &own, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
				    NULL) != SQLITE_OK) {
			snprintf(j->err, sizeof(j->err), "cannot open database: %s",
				 own ? sqlite3_errmsg(own) : "out of memory");
			sqlite3_close(own);
			j->rc = -1;
			return NULL;
		}
		j->db = own;
	}
	j->rc = j->fn(j);
	if (own) {
		sqlite3_close(own);
		j->db = NULL;
	}
	return NULL;
}

static int cmp_op(const void *a, const void *b)
{
	const struct gs_op *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int op_before(const struct gs_op *x, const struct gs_op *y)
{
	return cmp_op(x, y) < 0;
}

static void sort_ops_if_needed(struct gs_op *o, size_t n)
{
	size_t i;

	/* the analysis needs (device, start) order only; ties in start may
	 * stay in table order, so a trace written in time order is not sorted
	 * again (a sort of 10M ops costs seconds) */
	for (i = 1; i < n; i++)
		if (o[i].device < o[i - 1].device ||
		    (o[i].device == o[i - 1].device && o[i].start < o[i - 1].start))
			break;
	if (i < n)
		qsort(o, n, sizeof(*o), cmp_op);
}

/* Merge sorted b[0..nb) into sorted a[0..na), where a has room for na+nb:
 * backwards, so it is done in place without a second big array. */
static void merge_ops_into(struct gs_op *a, size_t na, const struct gs_op *b, size_t nb)
{
	size_t i = na, j = nb, k = na + nb;

	while (j > 0) {
		if (i > 0 && op_before(&b[j - 1], &a[i - 1]))
			a[--k] = a[--i];
		else
			a[--k] = b[--j];
	}
}

static int load_strings(sqlite3 *db, struct gs_strings *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t max_id = 0, bytes = 0;
	char *arena;
	size_t used = 0;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT max(id), sum(length(CAST(value AS BLOB))+1) FROM strings",
			       -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	if (sqlite3_step(st) == SQLITE_ROW) {
		max_id = sqlite3_column_int64(st, 0);
		bytes = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (max_id < 0 || max_id >= (int64_t)1 << 31) {
		snprintf(err, errlen, "strings table has an out-of-range id (%lld)",
			 (long long)max_id);
		return -1;
	}
	/* one block: the pointer table followed by the text arena, so the
	 * whole table is freed with one free(s->v) */
	s->n = (uint32_t)max_id + 1;
	s->v = calloc(1, s->n * sizeof(char *) + (size_t)bytes + 1);
	if (!s->v) {
		snprintf(err, errlen, "out of memory reading strings");
		return -1;
	}
	arena = (char *)(s->v + s->n);
	if (sqlite3_prepare_v2(db, "SELECT id, CAST(value AS BLOB) FROM strings", -1, &st, NULL) !=
	    SQLITE_OK)
		goto sqlerr;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const void *txt = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		if (id <= 0 || id > max_id || used + len + 1 > (size_t)bytes + 1)
			continue;
		if (len)
			memcpy(arena + used, txt, len);
		arena[used + len] = '\0';
		s->v[id] = arena + used;
		used += len + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto sqlerr2;
	return 0;
sqlerr:
	sqlite3_finalize(st);
sqlerr2:
	snprintf(err, errlen, "cannot read strings: %s", sqlite3_errmsg(db));
	return -1;
}

static int load_syncs(sqlite3 *db, struct vec *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db,
			       "SELECT start,end,event,tid,stream,correlation_id,api_name_id,"
			       "reason_id,coalesce(device,-1),kind,implicit FROM syncs",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_sync *s = vec_push(v);
		if (!s)
			goto fail;
		s->start = i64(st, 0);
		s->end = i64(st, 1);
		if (s->end < s->start)
			s->end = s->start;
		s->event = (uint64_t)i64(st, 2);
		s->tid = u32(st, 3);
		s->stream = u32(st, 4);
		s->corr = u32(st, 5);
		s->api_name_id = u32(st, 6);
		s->reason_id = u32(st, 7);
		s->device = (int16_t)i32(st, 8);
		s->kind = (uint8_t)i32(st, 9);
		s->implicit = i32(st, 10) != 0;
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	snprintf(err, errlen, "cannot read syncs: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return -1;
}

static int load_nvtx(sqlite3 *db, struct vec *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT start,end,kind,text_id,domain_id,tid FROM nvtx", -1, &st,
			       NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_nvtx *r = vec_push(v);
		if (!r)
			goto fail;
		r->start = i64(st, 0);
		r->end = i64(st, 1);
		if (r->end < r->start)
			r->end = r->start;
		r->kind = (uint8_t)i32(st, 2);
		r->text_id = u32(st, 3);
		r->domain_id = u32(st, 4);
		r->tid = u32(st, 5);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	snprintf(err, errlen, "cannot read nvtx: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return -1;
}

/* The events table came after the first schema-v1 traces (an additive
 * change): a trace without it simply has no records to resolve. */
static int load_events(sqlite3 *db, struct vec *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, exists = 0;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_master WHERE type='table' AND name='events'",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	exists = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	st = NULL;
	if (!exists)
		return 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT start,event,stream,coalesce(device,-1) FROM events "
			       "WHERE start IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct gs_event *e = vec_push(v);
		if (!e)
			goto fail;
		e->start = i64(st, 0);
		e->event = (uint64_t)i64(st, 1);
		e->stream = u32(st, 2);
		e->device = (int16_t)i32(st, 3);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	return 0;
fail:
	snprintf(err, errlen, "cannot read events: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return -1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Mark graph ops whose node (or the node it was instantiated from) has a
 * host-function node as a direct predecessor. */
static int mark_host_node_deps(sqlite3 *db, struct gs_op *ops, size_t n, char *err, size_t errlen)
{
	static const char sql[] =
	    "WITH h(node) AS (SELECT e.to_node FROM graph_edges e JOIN graph_nodes n "
	    "ON n.node_id = e.from_node WHERE n.type = 3) "
	    "SELECT node FROM h UNION SELECT node_id FROM graph_nodes "
	    "WHERE original_node_id IN (SELECT node FROM h)";
	sqlite3_stmt *st = NULL;
	struct vec v = {.elem = sizeof(uint32_t)};
	size_t i;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t *p = vec_push(&v);
		if (!p)
			goto fail;
		*p = u32(st, 0);
	}
	if (rc != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	if (v.n) {
		qsort(v.p, v.n, sizeof(uint32_t), cmp_u32);
		for (i = 0; i < n; i++)
			if (ops[i].graph_node_id &&
			    bsearch(&ops[i].graph_node_id, v.p, v.n, sizeof(uint32_t), cmp_u32))
				ops[i].flags |= GS_OPF_HOST_NODE_DEP;
	}
	free(v.p);
	return 0;
fail:
	snprintf(err, errlen, "cannot read graph nodes: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(v.p);
	return -1;
}

static void load_meta_facts(struct trace *t, struct gs_input *in)
{
	char *v = trace_meta(t, "cupti_kernel_overhead_ns");
	sqlite3_stmt *st = NULL;

	in->kernel_overhead_ns = -1;
	if (v) {
		char *end = NULL;
		long long x = strtoll(v, &end, 10);
		if (end != v && *end == '\0' && x >= 0)
			in->kernel_overhead_ns = x;
		free(v);
	}
	if (sqlite3_prepare_v2(t->db, "SELECT cc_major FROM devices ORDER BY id LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		in->gpu_arch_major = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
}

int trace_load(struct trace *t, unsigned what, struct gs_input *in, char *err, size_t errlen)
{
	struct job jk = {.path = t->path, .fn = job_kernels, .out.elem = sizeof(struct gs_op)};
	struct job jk2 = {.path = t->path, .fn = job_kernels, .out.elem = sizeof(struct gs_op)};
	struct job ja = {.path = t->path, .fn = job_apis, .out.elem = sizeof(struct gs_api)};
	struct job jc = {.db = t->db, .fn = job_copies, .out.elem = sizeof(struct gs_op)};
	struct vec vs = {.elem = sizeof(struct gs_sync)}, vn = {.elem = sizeof(struct gs_nvtx)};
	struct vec ve = {.elem = sizeof(struct gs_event)};
	struct job *bg[3];
	pthread_t th[3];
	int started[3] = {0, 0, 0}, n_bg = 0, k, rc = -1;
	struct gs_op *kbuf = NULL;
	int64_t kmax = 0, mid = 0;

	memset(in, 0, sizeof(*in));
	in->kernel_overhead_ns = -1;
	/* The kernel table in two halves by rowid, each writing its own slice
	 * of one buffer, and api_calls, each on a thread of its own with its
	 * own connection; the small tables on the caller's connection
	 * meanwhile. If a thread cannot be started, the job runs here. */
	if (what & GS_LOAD_OPS) {
		kmax = max_rowid(t->db, "kernels");
		mid = kmax / 2;
		if (kmax) {
			kbuf = malloc((size_t)kmax * sizeof(struct gs_op));
			if (!kbuf) {
				snprintf(err, errlen, "out of memory for %lld kernels",
					 (long long)kmax);
				return -1;
			}
			hint_huge(kbuf, (size_t)kmax * sizeof(struct gs_op));
		}
		jk.fixed = jk2.fixed = 1;
		jk.out.p = kbuf;
		jk.out.cap = (size_t)mid;
		jk.lo = 0;
		jk.hi = mid;
		jk2.out.p = kbuf ? kbuf + mid : NULL;
		jk2.out.cap = (size_t)(kmax - mid);
		jk2.lo = mid;
		jk2.hi = kmax;
		if (mid)
			bg[n_bg++] = &jk;
		if (kmax)
			bg[n_bg++] = &jk2;
	}
	if (what & GS_LOAD_APIS)
		bg[n_bg++] = &ja;
	for (k = 0; k < n_bg; k++)
		started[k] = pthread_create(&th[k], NULL, job_thread, bg[k]) == 0;
	for (k = 0; k < n_bg; k++)
		if (!started[k])
			job_thread(bg[k]);
	if (what & GS_LOAD_OPS)
		job_thread(&jc);
	if ((what & GS_LOAD_STRINGS) && load_strings(t->db, &in->strings, err, errlen))
		goto join;
	if ((what & GS_LOAD_SYNCS) &&
	    (load_syncs(t->db, &vs, err, errlen) || load_events(t->db, &ve, err, errlen)))
		goto join;
	if ((what & GS_LOAD_NVTX) && load_nvtx(t->db, &vn, err, errlen))
		goto join;
	load_meta_facts(t, in);
	rc = 0;
join:
	for (k = 0; k < n_bg; k++)
		if (started[k])
			pthread_join(th[k], NULL);
	if (rc)
		goto out;
	rc = -1;
	if (jk.rc || jk2.rc || ja.rc || jc.rc) {
		snprintf(err, errlen, "%s",
			 jk.rc	  ? jk.err
			 : jk2.rc ? jk2.err
			 : ja.rc  ? ja.err
				  : jc.err);
		goto out;
	}
	if (what & GS_LOAD_OPS) {
		struct gs_op *ops;
		/* close the hole between the two halves; the buffer becomes a
		 * plain growable vector again */
		if (jk2.out.n) /* (kbuf is NULL when there are no kernels) */
			memmove(kbuf + jk.out.n, kbuf + mid, jk2.out.n * sizeof(struct gs_op));
		jk.out.p = kbuf;
		jk.out.n += jk2.out.n;
		jk.out.cap = (size_t)kmax;
		jk.fixed = 0;
		kbuf = NULL;
		sort_ops_if_needed(jk.out.p, jk.out.n);
		sort_ops_if_needed(jc.out.p, jc.out.n);
		if (jc.out.n && vec_reserve(&jk.out, jk.out.n + jc.out.n)) {
			snprintf(err, errlen, "out of memory merging GPU operations");
			goto out;
		}
		merge_ops_into(jk.out.p, jk.out.n, jc.out.p, jc.out.n);
		ops = jk.out.p;
		jk.out.p = NULL;
		in->ops = ops;
		in->n_ops = jk.out.n + jc.out.n;
		if (mark_host_node_deps(t->db, ops, in->n_ops, err, errlen))
			goto out;
	}
	in->apis = ja.out.p;
	in->n_apis = ja.out.n;
	ja.out.p = NULL;
	in->syncs = vs.p;
	in->n_syncs = vs.n;
	vs.p = NULL;
	in->nvtx = vn.p;
	in->n_nvtx = vn.n;
	vn.p = NULL;
	in->events = ve.p;
	in->n_events = ve.n;
	ve.p = NULL;
	rc = 0;
out:
	free(kbuf); /* still set only if we failed before taking it over */
	if (!jk.fixed)
		free(jk.out.p);
	free(ja.out.p);
	free(jc.out.p);
	free(vs.p);
	free(vn.p);
	free(ve.p);
	if (rc)
		trace_input_free(in);
	return rc;
}

void trace_input_free(struct gs_input *in)
{
	free((void *)in->ops);
	free((void *)in->apis);
	free((void *)in->syncs);
	free((void *)in->nvtx);
	free((void *)in->events);
	free((void *)in->strings.v);
	memset(in, 0, sizeof(*in));
}
