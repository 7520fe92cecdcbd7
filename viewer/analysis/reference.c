/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * reference.c - a trace's NVTX range walls against untraced reference runs
 * (reference.h). String ids differ from trace to trace, so each reference
 * run's range texts are matched to the traced ones by their text, once per
 * distinct id of that run.
 */
#include "reference.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gapscope/trace_format.h" /* GS_NVTX_RANGE */

/* index in res->nvtx of the stat whose text is s, or -1 */
static long stat_of_text(const struct gs_input *in, const struct gs_result *res, const char *s)
{
	size_t i;

	for (i = 0; i < res->n_nvtx; i++) {
		const char *t = gs_str(&in->strings, res->nvtx[i].text_id, NULL);
		if (t && strcmp(t, s) == 0)
			return (long)i;
	}
	return -1;
}

/* Where the trace's selection left out its first res->range_skipped
 * ranges (--skip), the start of the first range of ref that it keeps of
 * those named res->range_name (all left out: INT64_MAX) into *cut; else
 * INT64_MIN. 0 or -ENOMEM. */
static int skip_cut(const struct gs_result *res, const struct gs_input *ref, int64_t *cut)
{
	int64_t *starts;
	size_t i, n = 0;

	*cut = INT64_MIN;
	if (!res->range_skipped || !res->range_name)
		return 0;
	starts = malloc((ref->n_nvtx ? ref->n_nvtx : 1) * sizeof(*starts));
	if (!starts)
		return -ENOMEM;
	for (i = 0; i < ref->n_nvtx; i++) {
		const struct gs_nvtx *x = &ref->nvtx[i];
		if (x->kind == GS_NVTX_RANGE && x->end >= x->start &&
		    gs_name_matches(gs_str(&ref->strings, x->text_id, ""), res->range_name))
			starts[n++] = x->start;
	}
	qsort(starts, n, sizeof(*starts), gs_cmp_i64);
	*cut = res->range_skipped < n ? starts[res->range_skipped] : INT64_MAX;
	free(starts);
	return 0;
}

/* Per traced stat, this run's sum of walls (sum[]) and count of ranges
 * (count[]) of the same text (less those the selection's --skip leaves
 * out). */
static int sum_run(const struct gs_input *in, const struct gs_result *res,
		   const struct gs_input *ref, int64_t *sum, uint64_t *count)
{
	/* ref string id -> traced stat index + 1 (0: not yet looked up), -1
	 * for "no such text in the traced trace" */
	long *map = calloc(ref->strings.n ? ref->strings.n : 1, sizeof(*map));
	int64_t cut;
	size_t i;

	if (!map)
		return -ENOMEM;
	if (skip_cut(res, ref, &cut) < 0) {
		free(map);
		return -ENOMEM;
	}
	for (i = 0; i < ref->n_nvtx; i++) {
		const struct gs_nvtx *n = &ref->nvtx[i];
		long k;
		if (n->kind != GS_NVTX_RANGE || n->end < n->start || n->text_id >= ref->strings.n)
			continue;
		/* the selection's --skip leaves this run's first ones out too */
		if (n->start < cut &&
		    gs_name_matches(gs_str(&ref->strings, n->text_id, ""), res->range_name))
			continue;
		if (map[n->text_id] == 0) {
			const char *s = gs_str(&ref->strings, n->text_id, NULL);
			long st = s ? stat_of_text(in, res, s) : -1;
			map[n->text_id] = st < 0 ? -1 : st + 1;
		}
		k = map[n->text_id];
		if (k > 0) {
			sum[k - 1] += n->end - n->start;
			count[k - 1]++;
		}
	}
	free(map);
	return 0;
}

int gs_reference_activities(const char *activities)
{
	return activities && strcmp(activities, GS_REFERENCE_ACTIVITIES) == 0;
}

/* the figures of g (its untraced wall set) for the traced stat s, and its
 * corrected range c (NULL: not corrected) */
static void against_untraced(struct gs_reference_range *g, const struct gs_nvtx_stat *s,
			     const struct gs_corrected_range *c)
{
	g->have_corrected = c != NULL;
	g->busy = c ? c->busy : s->gpu_busy;
	g->have_errors = g->untraced > 0;
	if (!g->have_errors)
		return;
	g->traced_error = (double)s->wall / (double)g->untraced - 1.0;
	if (c)
		g->corrected_error = (double)c->corrected / (double)g->untraced - 1.0;
	g->busy_share = (double)g->busy / (double)g->untraced;
}

int gs_reference_compare(const struct gs_input *in, const struct gs_result *res,
			 const struct gs_corrected *corr, const struct gs_input *const *refs,
			 size_t n_refs, struct gs_reference *out)
{
	size_t n = res ? res->n_nvtx : 0, r, i;
	int64_t *sums = NULL, *vals = NULL;
	uint64_t *counts = NULL;
	int rc = 0;

	if (!in || !res || !refs || !out || n_refs == 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->n_runs = (unsigned)n_refs;
	if (n == 0)
		return 0;
	out->ranges = calloc(n, sizeof(*out->ranges));
	sums = calloc(n * n_refs, sizeof(*sums));
	counts = calloc(n * n_refs, sizeof(*counts));
	vals = calloc(n_refs, sizeof(*vals));
	if (!out->ranges || !sums || !counts || !vals) {
		rc = -ENOMEM;
		goto done;
	}
	out->n_ranges = n;
	for (r = 0; r < n_refs && rc == 0; r++)
		rc = sum_run(in, res, refs[r], sums + r * n, counts + r * n);
	for (i = 0; i < n && rc == 0; i++) {
		struct gs_reference_range *g = &out->ranges[i];
		unsigned k = 0;
		for (r = 0; r < n_refs; r++) {
			if (!counts[r * n + i])
				continue;
			vals[k++] = sums[r * n + i];
			g->count_differs += counts[r * n + i] != res->nvtx[i].count;
		}
		g->runs = k;
		g->untraced = g->min = g->max = -1;
		if (k) {
			qsort(vals, k, sizeof(*vals), gs_cmp_i64);
			g->untraced = k % 2 ? vals[k / 2] : (vals[k / 2 - 1] + vals[k / 2]) / 2;
			g->min = vals[0];
			g->max = vals[k - 1];
		}
		against_untraced(g, &res->nvtx[i],
				 corr && corr->n_ranges == n ? &corr->ranges[i] : NULL);
	}
done:
	free(sums);
	free(counts);
	free(vals);
	if (rc)
		gs_reference_free(out);
	return rc;
}

void gs_reference_free(struct gs_reference *r)
{
	if (!r)
		return;
	free(r->ranges);
	r->ranges = NULL;
	r->n_ranges = 0;
}
