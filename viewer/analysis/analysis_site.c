/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_site.c - GPU idle time by call site (gapscope report --by-site,
 * and the site named beside each sync in the report).
 *
 * Reads the segments of every device gap (gap model v2): a sync-wait
 * segment is charged to the call site of its blocking call (the segment's
 * first, as gs_segment.ref_idx names it), the host-late part of a gap
 * (host code, CUDA API, launch latency) to the call site of X's launch
 * call when it was captured as a launch (GAPSCOPE_CALLSITES=2). No I/O;
 * the sites come from the trace reader.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "gapscope/trace_format.h"

const struct gs_site_ref *gs_site_ref_of(const struct gs_input *in, uint32_t corr)
{
	size_t lo = 0, hi = in->n_site_refs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (in->site_refs[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < in->n_site_refs && in->site_refs[lo].corr == corr &&
	    in->site_refs[lo].site < in->n_sites)
		return &in->site_refs[lo];
	return NULL;
}

uint32_t gs_site_of(const struct gs_input *in, uint32_t corr)
{
	const struct gs_site_ref *r = gs_site_ref_of(in, corr);

	return r ? r->site : GS_NONE;
}

struct acc {
	struct gs_site_stat *v;
	size_t n, cap;
};

/* The entry of (site, api), created when new; NULL when out of memory.
 * Linear: a trace has a handful of blocking call sites. */
static struct gs_site_stat *slot(struct acc *a, uint32_t site, uint32_t api)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->v[i].site == site && a->v[i].api_name_id == api)
			return &a->v[i];
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 16;
		struct gs_site_stat *nv = realloc(a->v, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		a->v = nv;
		a->cap = nc;
	}
	memset(&a->v[a->n], 0, sizeof(a->v[0]));
	a->v[a->n].site = site;
	a->v[a->n].api_name_id = api;
	return &a->v[a->n++];
}

static int cmp_stat(const void *pa, const void *pb)
{
	const struct gs_site_stat *a = pa, *b = pb;
	int64_t ia = gs_sat_add(a->sync_idle_ns, a->late_idle_ns);
	int64_t ib = gs_sat_add(b->sync_idle_ns, b->late_idle_ns);

	if (ia != ib)
		return ia > ib ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->site < b->site ? -1 : a->site > b->site;
}

size_t gs_site_stats(const struct gs_result *res, struct gs_site_stat **out)
{
	const struct gs_input *in = res->in;
	struct acc a = {NULL, 0, 0};
	struct gs_segment segs[64], *sv = segs; /* a gap's segments: segs, or allocated */
	size_t i, d, g;

	*out = NULL;
	if (!in || !in->n_site_refs)
		return 0;
	for (i = 0; i < in->n_syncs; i++) {
		const struct gs_sync *s = &in->syncs[i];
		uint32_t site = gs_site_of(in, s->corr);
		struct gs_site_stat *st;
		if (site == GS_NONE || !gs_result_selects(res, s->start, s->end))
			continue;
		if (!(st = slot(&a, site, s->api_name_id)))
			goto oom;
		st->calls++;
		st->blocked_ns = gs_sat_add(st->blocked_ns, s->end - s->start);
	}
	for (d = 0; d < res->n_devices; d++) {
		const struct gs_device_result *dev = &res->devices[d];
		for (g = 0; g < dev->n_gaps; g++) {
			const struct gs_gap *gap = &dev->gaps[g];
			uint32_t call = GS_NONE, late_site = GS_NONE;
			size_t n = gs_gap_segments_all(res, gap, segs, 64, &sv), k;
			size_t seen[8], n_seen = 0, j;
			/* every segment: a long gap crosses many CUDA calls,
			 * and its waits and launch come last (HF generate, H100:
			 * 680 us of cudaMalloc's wait past the 64th segment) */
			if (n == (size_t)-1)
				goto oom;
			if (gap->host_late) {
				call = gs_launch_call(res, gap->op_idx);
				if (call != GS_NONE) {
					const struct gs_site_ref *r =
					    gs_site_ref_of(in, in->apis[call].corr);
					if (r && r->reason == GS_CS_WHY_LATE_LAUNCH)
						late_site = r->site;
				}
			}
			for (k = 0; k < n; k++) {
				const struct gs_segment *sg = &sv[k];
				struct gs_site_stat *st = NULL;
				int64_t len = sg->end - sg->start;
				if (sg->cause == GS_CAUSE_SYNC_WAIT &&
				    sg->ref_kind == GS_EXPLAIN_SYNC && sg->ref_idx < in->n_syncs) {
					const struct gs_sync *s = &in->syncs[sg->ref_idx];
					uint32_t site = gs_site_of(in, s->corr);
					if (site == GS_NONE)
						continue;
					if (!(st = slot(&a, site, s->api_name_id)))
						goto oom;
					st->sync_idle_ns = gs_sat_add(st->sync_idle_ns, len);
				} else if (late_site != GS_NONE &&
					   (sg->cause == GS_CAUSE_HOST_CODE ||
					    sg->cause == GS_CAUSE_CUDA_API ||
					    sg->cause == GS_CAUSE_LAUNCH_LATENCY)) {
					if (!(st = slot(&a, late_site, in->apis[call].name_id)))
						goto oom;
					st->late_idle_ns = gs_sat_add(st->late_idle_ns, len);
				}
				if (!st)
					continue;
				/* a gap counts once per site (entries move on realloc:
				 * compare indexes) */
				for (j = 0; j < n_seen && seen[j] != (size_t)(st - a.v); j++)
					;
				if (j == n_seen && n_seen < 8) {
					seen[n_seen++] = (size_t)(st - a.v);
					st->n_gaps++;
				}
			}
			if (sv != segs)
				free(sv);
			sv = segs;
		}
	}
	if (a.n)
		qsort(a.v, a.n, sizeof(a.v[0]), cmp_stat);
	*out = a.v;
	return a.n;
oom:
	if (sv != segs)
		free(sv);
	free(a.v);
	return (size_t)-1;
}
