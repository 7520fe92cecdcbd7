/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_callsite.c - read the call sites of a trace (schema v2 tables
 * stack_frames and api_stacks) into the analysis input: one struct gs_site
 * per recorded stack, the frame the report names, and the correlation id
 * -> site map. Traces without these tables (v1, or GAPSCOPE_CALLSITES=0)
 * load as before, with no sites.
 *
 * Which frame names a stack (docs/report.md, "Call sites"): the innermost
 * Python frame outside the libraries (site-packages, dist-packages, the
 * standard library, "<frozen ...>"), else the innermost Python frame; a
 * stack without Python frames: the innermost native frame outside the CUDA
 * libraries and the collector whose symbol is not a CUDA API entry point
 * (cuda*, cu[A-Z]*: a statically linked runtime), preferring one with a
 * symbol name, else the innermost one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "trace.h"
#include "trace_callsite.h"

static int library_file(const char *f)
{
	return !f || f[0] == '<' || strstr(f, "/site-packages/") || strstr(f, "/dist-packages/") ||
	       strstr(f, "/lib/python3");
}

static int cuda_module(const char *m)
{
	static const char *const names[] = {"libcuda.so", "libcudart.so", "libcupti.so",
					    "libgapscope.so"};
	const char *b;
	size_t i;

	if (!m)
		return 0;
	b = strrchr(m, '/');
	b = b ? b + 1 : m;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(b, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

static int cuda_symbol(const char *s)
{
	return s && (strncmp(s, "cuda", 4) == 0 || strncmp(s, "__cuda", 6) == 0 ||
		     (s[0] == 'c' && s[1] == 'u' && s[2] >= 'A' && s[2] <= 'Z'));
}

/* Candidate quality of a frame: higher wins; within a stack the innermost
 * of the best quality is kept (rows come innermost first). */
static int quality(const struct gs_strings *str, int kind, const struct gs_site *s)
{
	if (kind == 2)
		return library_file(gs_str(str, s->file_id, NULL)) ? 4 : 5;
	if (cuda_module(gs_str(str, s->file_id, NULL)) ||
	    cuda_symbol(gs_str(str, s->func_id, NULL)))
		return 1;
	/* a frame without a symbol is often a statically linked CUDA runtime
	 * inside the program (H200: cudaMemcpy's frame in the demo binary had
	 * no name): a named frame of the program further out says more */
	return s->func_id ? 3 : 2;
}

int trace_load_callsites(sqlite3 *db, struct gs_input *in, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct gs_site *sites = NULL;
	struct gs_site_ref *refs = NULL;
	int *best = NULL;
	size_t n_sites = 0, n_refs = 0, cap = 0;
	int64_t max_id = 0;
	int rc;

	if (!trace_db_has_table(db, "stack_frames") || !trace_db_has_table(db, "api_stacks"))
		return 0;
	if (sqlite3_prepare_v2(db, "SELECT max(stack_id) FROM stack_frames", -1, &st, NULL) !=
	    SQLITE_OK)
		goto sqlerr;
	if (sqlite3_step(st) == SQLITE_ROW)
		max_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (max_id <= 0 || max_id > 50000000) {
		if (max_id > 0) {
			snprintf(err, errlen, "stack_frames.stack_id %lld is out of range",
				 (long long)max_id);
			return -1;
		}
		return 0;
	}
	n_sites = (size_t)max_id + 1;
	sites = calloc(n_sites, sizeof(*sites));
	best = calloc(n_sites, sizeof(*best));
	if (!sites || !best)
		goto oom;
	if (sqlite3_prepare_v2(db,
			       "SELECT stack_id, kind, coalesce(module_id, file_id, 0), "
			       "coalesce(symbol_id, function_id, 0), coalesce(line, -1), "
			       "coalesce(offset, 0) FROM stack_frames ORDER BY stack_id, depth",
			       -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), fid = sqlite3_column_int64(st, 2),
			nid = sqlite3_column_int64(st, 3);
		int kind = sqlite3_column_int(st, 1), q;
		struct gs_site s;
		if (id <= 0 || id > max_id)
			continue;
		s.file_id = fid > 0 && fid < in->strings.n ? (uint32_t)fid : 0;
		s.func_id = nid > 0 && nid < in->strings.n ? (uint32_t)nid : 0;
		s.line = kind == 2 ? (int32_t)sqlite3_column_int(st, 4) : -1;
		s.offset = kind == 2 ? 0 : (uint64_t)sqlite3_column_int64(st, 5);
		q = quality(&in->strings, kind, &s);
		if (q > best[id]) {
			best[id] = q;
			sites[id] = s;
		}
	}
	if (rc != SQLITE_DONE)
		goto sqlerr;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db,
			       "SELECT correlation_id, stack_id, coalesce(reason, 0) "
			       "FROM api_stacks ORDER BY correlation_id",
			       -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t corr = sqlite3_column_int64(st, 0), id = sqlite3_column_int64(st, 1);
		if (id <= 0 || id > max_id || !best[id] || corr < 0 || corr > UINT32_MAX)
			continue;
		if (n_refs == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct gs_site_ref *nr = realloc(refs, nc * sizeof(*nr));
			if (!nr)
				goto oom;
			refs = nr;
			cap = nc;
		}
		refs[n_refs].corr = (uint32_t)corr;
		refs[n_refs].site = (uint32_t)id;
		refs[n_refs].reason = (uint8_t)sqlite3_column_int(st, 2);
		n_refs++;
	}
	if (rc != SQLITE_DONE)
		goto sqlerr;
	sqlite3_finalize(st);
	free(best);
	in->sites = sites;
	in->n_sites = n_sites;
	in->site_refs = refs;
	in->n_site_refs = n_refs;
	return 0;
sqlerr:
	snprintf(err, errlen, "cannot read call sites: %s", sqlite3_errmsg(db));
	goto fail;
oom:
	snprintf(err, errlen, "out of memory reading call sites");
fail:
	sqlite3_finalize(st);
	free(sites);
	free(best);
	free(refs);
	return -1;
}

void trace_callsites_free(struct gs_input *in)
{
	free((void *)in->sites);
	free((void *)in->site_refs);
	free((void *)in->captures);
	free((void *)in->stalls);
	in->sites = NULL;
	in->site_refs = NULL;
	in->captures = NULL;
	in->stalls = NULL;
	in->n_sites = in->n_site_refs = in->n_captures = in->n_stalls = 0;
	in->n_native_captures = 0;
}

static int column_present(sqlite3 *db, const char *table, const char *col)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* The rows of sql (correlation id, start, end, thread) as spans, *out and
 * *n; what names them in err. 0, or -1 with err. */
static int load_spans(sqlite3 *db, const char *sql, const char *what, struct gs_capture **out,
		      size_t *n_out, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct gs_capture *c = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t corr = sqlite3_column_int64(st, 0);
		if (corr < 0 || corr > UINT32_MAX)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct gs_capture *nv = realloc(c, nc * sizeof(*nv));
			if (!nv) {
				snprintf(err, errlen, "out of memory reading %s", what);
				goto fail;
			}
			c = nv;
			cap = nc;
		}
		c[n].corr = (uint32_t)corr;
		c[n].start = sqlite3_column_int64(st, 1);
		c[n].end = sqlite3_column_int64(st, 2);
		c[n].tid = (uint32_t)sqlite3_column_int64(st, 3);
		n++;
	}
	if (rc != SQLITE_DONE)
		goto sqlerr;
	sqlite3_finalize(st);
	*out = c;
	*n_out = n;
	return 0;
sqlerr:
	snprintf(err, errlen, "cannot read %s: %s", what, sqlite3_errmsg(db));
fail:
	sqlite3_finalize(st);
	free(c);
	return -1;
}

int64_t trace_native_captures(sqlite3 *db, int64_t unknown)
{
	sqlite3_stmt *st = NULL;
	int64_t n = unknown;

	if (!trace_db_has_table(db, "stack_frames") || !column_present(db, "stack_frames", "kind"))
		return unknown;
	if (sqlite3_prepare_v2(
		db,
		"SELECT count(*) FROM api_stacks a WHERE capture_start > 0 AND "
		"capture_end >= capture_start AND EXISTS (SELECT 1 FROM stack_frames "
		"f WHERE f.stack_id = a.stack_id AND f.kind = 1)",
		-1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int trace_load_captures(sqlite3 *db, struct gs_input *in, char *err, size_t errlen)
{
	struct gs_capture *c = NULL;

	if (!trace_db_has_table(db, "api_stacks") ||
	    !column_present(db, "api_stacks", "capture_end"))
		return 0;
	if (load_spans(db,
		       "SELECT correlation_id, capture_start, capture_end, tid FROM api_stacks "
		       "WHERE capture_start > 0 AND capture_end >= capture_start "
		       "ORDER BY correlation_id",
		       "call-site capture times", &c, &in->n_captures, err, errlen))
		return -1;
	in->captures = c;
	{
		int64_t n = trace_native_captures(db, (int64_t)in->n_captures);
		/* unknown: as if all walked */
		in->n_native_captures =
		    n >= 0 && (uint64_t)n <= in->n_captures ? (size_t)n : in->n_captures;
	}
	return 0;
}

int trace_load_stalls(sqlite3 *db, struct gs_input *in, char *err, size_t errlen)
{
	/* CUpti_ActivityOverheadKind: CUPTI_BUFFER_FLUSH 1<<16,
	 * CUPTI_INSTRUMENTATION 2<<16, CUPTI_RESOURCE 3<<16,
	 * ACTIVITY_BUFFER_REQUEST 7<<16, UVM_ACTIVITY_INIT 8<<16 (the driver's
	 * compiler, module loading, lazy function loading and a full command
	 * buffer happen untraced too); CUPTI_ACTIVITY_OBJECT_THREAD 2 */
	static const char sql[] =
	    "SELECT 0, start, end, object_id FROM overhead WHERE object_kind = 2 AND end > start "
	    "AND start > 0 AND kind IN (65536, 131072, 196608, 458752, 524288) "
	    "AND EXISTS (SELECT 1 FROM api_calls WHERE api_calls.tid = overhead.object_id)";
	struct gs_capture *c = NULL;

	if (!trace_db_has_table(db, "overhead"))
		return 0;
	if (load_spans(db, sql, "CUPTI's overhead records", &c, &in->n_stalls, err, errlen))
		return -1;
	in->stalls = c;
	return 0;
}

/* the capture of corr, or NULL (c sorted by corr) */
static const struct gs_capture *capture_of(const struct gs_capture *c, size_t n, uint32_t corr)
{
	size_t lo = 0, hi = n;

	if (!n || corr < c[0].corr || corr > c[n - 1].corr)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && c[lo].corr == corr ? &c[lo] : NULL;
}

/* [*s, *e] widened to cover the capture x when x lies next to it */
static void widen(int64_t *s, int64_t *e, const struct gs_capture *x)
{
	if (x->end < *s - GS_CAPTURE_SLACK_NS || x->start > *e + GS_CAPTURE_SLACK_NS)
		return;
	if (x->start < *s)
		*s = x->start;
	if (x->end > *e)
		*e = x->end;
}

void trace_widen_span(const struct gs_capture *c, size_t n, uint32_t corr, int64_t *s, int64_t *e)
{
	const struct gs_capture *x = n ? capture_of(c, n, corr) : NULL;

	if (x)
		widen(s, e, x);
}

void trace_widen_by_captures(const struct gs_capture *c, size_t n, struct gs_api *apis,
			     size_t n_apis, struct gs_sync *syncs, size_t n_syncs)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n_apis; i++) {
		int64_t s = apis[i].start, e = apis[i].end; /* packed struct: no field addresses */
		trace_widen_span(c, n, apis[i].corr, &s, &e);
		apis[i].start = s;
		apis[i].end = e;
	}
	/* an implicit sync is the call itself; an explicit one is CUPTI's
	 * blocked time inside the call, which the capture is not */
	for (i = 0; i < n_syncs; i++)
		if (syncs[i].implicit)
			trace_widen_span(c, n, syncs[i].corr, &syncs[i].start, &syncs[i].end);
}
