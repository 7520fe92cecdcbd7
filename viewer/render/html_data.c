/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * html_data.c - the timeline's data block of `gapscope html`'s page
 * (html_write_data, called by render_html.c for each run), the origin of
 * the page's time axis (html_origin) and the view the page opens on
 * (html_home_view).
 *
 * The timeline is drawn in the browser by html_assets/page.js from one JSON
 * block per run:
 *
 *   {"t0": "<origin, absolute ns>", "span": <ns>, "strings": [null, "..."],
 *    "syncKinds": {"3": "stream synchronize", ...},
 *    "sites": ["train.py:27 (in `step`)", ...],  (traces with call sites)
 *    "rows": [{"n": "<row name>", "k": "<kind>", "d": [flat numbers]}],
 *    "capture": {"windows": [[s, e]], "unrecorded": [[s, e]]}}  (capture
 *              traces only, ns from t0: see write_capture_spans)
 *
 * Each row's events are sorted by start and flattened with a fixed stride
 * per kind; the first number of each event is its start minus the previous
 * event's start (ns), which keeps a million events short:
 *   gap  (10): dt, dur, op name id, cause (enum gs_cause: the largest
 *              segment's), explain kind, explain name id, explain tid,
 *              explain start, explain end (ns from t0, -1 none), op kind;
 *              the gap row also has "t": one sentence per gap naming its
 *              segments (gap_segments_text, gap model v2)
 *   ops  (4):  dt, dur, name id, op kind (enum gs_op_kind: 0 kernel, 1 memcpy,
 *              2 memset, 3 graph run - a whole graph launch of a graph-level
 *              trace, name id 0)
 *   api  (3):  dt, dur, name id
 *   sync (4):  dt, dur, API name id, sync kind; when the trace has call
 *              sites the sync row also has "s": each sync's call site, an
 *              index into the block's "sites" (report_site_text of each
 *              site some call refers to, once, by gs_input.sites index),
 *              -1 unknown; for the tooltip
 *   nvtx (4):  dt, dur, text id, 0 range / 1 mark
 * Rows: per device an idle-gap row and one row per stream; per host thread
 * a CUDA API row, a sync row and an NVTX row when it has any.
 * Strings go through json_write_string(JSON_HTML_SAFE), so no "</script>"
 * can close the block whatever a kernel is called.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "names.h"
#include "render_html.h"
#include "report.h" /* gap_segments_text */
#include "utf8.h"

int64_t html_origin(const struct gs_input *in)
{
	int64_t t = INT64_MAX;
	size_t i;

	/* ops are sorted by (device, start): the first of each device suffices,
	 * but a linear pass is simple and cheap next to the rest */
	for (i = 0; i < in->n_ops; i++)
		if (in->ops[i].start < t)
			t = in->ops[i].start;
	for (i = 0; i < in->n_apis; i++)
		if (in->apis[i].start < t)
			t = in->apis[i].start;
	for (i = 0; i < in->n_syncs; i++)
		if (in->syncs[i].start < t)
			t = in->syncs[i].start;
	for (i = 0; i < in->n_nvtx; i++)
		if (in->nvtx[i].start < t)
			t = in->nvtx[i].start;
	return t == INT64_MAX ? 0 : t;
}

/* ---- the timeline's data block --------------------------------------- */

struct host_ev {
	uint32_t tid; /* host thread */
	uint32_t idx; /* index into apis/syncs/nvtx */
	int64_t start;
};

static int cmp_host_ev(const void *a, const void *b)
{
	const struct host_ev *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void row_begin(FILE *f, int *first_row, const char *name, const char *kind)
{
	fputs(*first_row ? "\n{\"n\":" : ",\n{\"n\":", f);
	*first_row = 0;
	json_write_cstr(f, name, JSON_HTML_SAFE);
	fprintf(f, ",\"k\":\"%s\",\"d\":[", kind);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The sites some call refers to (gs_input.sites indexes), sorted, each
 * once, into *out (malloc'd; NULL when none). The page lists only these:
 * sites are indexed by stack id, which a damaged trace can spread out to
 * 5e7. Returns their number, or (size_t)-1 when out of memory. */
static size_t used_sites(const struct gs_input *in, uint32_t **out)
{
	uint32_t *v;
	size_t i, k = 0, n = 0;

	*out = NULL;
	if (!in->n_site_refs)
		return 0;
	v = malloc(in->n_site_refs * sizeof(*v));
	if (!v)
		return (size_t)-1;
	for (i = 0; i < in->n_site_refs; i++)
		if (in->site_refs[i].site < in->n_sites)
			v[n++] = in->site_refs[i].site;
	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++) /* unique, in place */
		if (k == 0 || v[i] != v[k - 1])
			v[k++] = v[i];
	*out = v;
	return k;
}

/* Host rows (API, sync, NVTX) of every thread. kind 0 api, 1 sync, 2 nvtx.
 * used[0..n_used): the sites the block lists in "sites" (used_sites). */
static int write_host_rows(FILE *f, const struct html_run *r, int64_t t0, int *first_row,
			   const uint32_t *used, size_t n_used)
{
	const struct gs_input *in = r->in;
	size_t n = in->n_apis + in->n_syncs + in->n_nvtx, i, k = 0;
	struct host_ev *v;

	if (n == 0)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	/* one sorted array per kind, concatenated: [apis | syncs | nvtx] */
	for (i = 0; i < in->n_apis; i++, k++)
		v[k] = (struct host_ev){in->apis[i].tid, (uint32_t)i, in->apis[i].start};
	qsort(v, in->n_apis, sizeof(*v), cmp_host_ev);
	for (i = 0; i < in->n_syncs; i++, k++)
		v[k] = (struct host_ev){in->syncs[i].tid, (uint32_t)i, in->syncs[i].start};
	qsort(v + in->n_apis, in->n_syncs, sizeof(*v), cmp_host_ev);
	for (i = 0; i < in->n_nvtx; i++, k++)
		v[k] = (struct host_ev){in->nvtx[i].tid, (uint32_t)i, in->nvtx[i].start};
	qsort(v + in->n_apis + in->n_syncs, in->n_nvtx, sizeof(*v), cmp_host_ev);

	/* walk the threads in tid order across the three sorted ranges */
	size_t pos[3] = {0, in->n_apis, in->n_apis + in->n_syncs};
	size_t end[3] = {in->n_apis, in->n_apis + in->n_syncs, n};
	for (;;) {
		uint32_t tid = UINT32_MAX;
		int any = 0, kind;
		char *tname;
		char label[512];

		for (kind = 0; kind < 3; kind++)
			if (pos[kind] < end[kind] && (!any || v[pos[kind]].tid < tid)) {
				tid = v[pos[kind]].tid;
				any = 1;
			}
		if (!any)
			break;
		tname = trace_thread_name(r->t, tid);
		for (kind = 0; kind < 3; kind++) {
			static const char *const what[3] = {"CUDA API", "syncs", "NVTX"};
			static const char *const rk[3] = {"api", "sync", "nvtx"};
			int64_t prev = 0;
			int first = 1;
			size_t from;

			if (!(pos[kind] < end[kind] && v[pos[kind]].tid == tid))
				continue;
			if (tname)
				snprintf(label, sizeof(label), "%s (%" PRIu32 ") \xC2\xB7 %s",
					 tname, tid, what[kind]);
			else
				snprintf(label, sizeof(label), "thread %" PRIu32 " \xC2\xB7 %s",
					 tid, what[kind]);
			row_begin(f, first_row, label, rk[kind]);
			from = pos[kind];
			for (; pos[kind] < end[kind] && v[pos[kind]].tid == tid; pos[kind]++) {
				uint32_t x = v[pos[kind]].idx;
				int64_t s, e;
				if (kind == 0) {
					s = in->apis[x].start - t0, e = in->apis[x].end - t0;
					fprintf(f, "%s%" PRId64 ",%" PRId64 ",%" PRIu32,
						first ? "" : ",", s - prev, e > s ? e - s : 0,
						in->apis[x].name_id);
				} else if (kind == 1) {
					s = in->syncs[x].start - t0, e = in->syncs[x].end - t0;
					fprintf(f, "%s%" PRId64 ",%" PRId64 ",%" PRIu32 ",%d",
						first ? "" : ",", s - prev, e > s ? e - s : 0,
						in->syncs[x].api_name_id, in->syncs[x].kind);
				} else {
					s = in->nvtx[x].start - t0, e = in->nvtx[x].end - t0;
					fprintf(f, "%s%" PRId64 ",%" PRId64 ",%" PRIu32 ",%d",
						first ? "" : ",", s - prev, e > s ? e - s : 0,
						in->nvtx[x].text_id, in->nvtx[x].kind ? 1 : 0);
				}
				prev = s;
				first = 0;
			}
			fputs("]", f);
			/* sync rows of a trace with call sites: "s", the call
			 * site of each sync in the order of d (an index into
			 * "sites", -1 unknown), for the tooltip */
			if (kind == 1 && n_used) {
				size_t p;
				fputs(",\"s\":[", f);
				for (p = from; p < pos[kind]; p++) {
					uint32_t site = gs_site_of(in, in->syncs[v[p].idx].corr);
					const uint32_t *u = site == GS_NONE
								? NULL
								: bsearch(&site, used, n_used,
									  sizeof(*used), cmp_u32);
					fprintf(f, p > from ? ",%" PRId64 : "%" PRId64,
						u ? (int64_t)(u - used) : (int64_t)-1);
				}
				fputs("]", f);
			}
			fputs("}", f);
		}
		free(tname);
	}
	free(v);
	return 0;
}

/* The gap row and the stream rows of one device. */
static int write_device_rows(FILE *f, const struct html_run *r, const struct gs_device_result *dv,
			     int64_t t0, int *first_row)
{
	const struct gs_input *in = r->in;
	size_t nops = dv->end_op - dv->first_op, i, s;
	size_t *start_of = NULL, *fill = NULL;
	uint32_t *order = NULL;
	char label[128], seg[1024];
	int64_t prev = 0;

	snprintf(label, sizeof(label), "GPU %d \xC2\xB7 idle gaps", dv->device);
	row_begin(f, first_row, label, "gap");
	for (i = 0; i < dv->n_gaps; i++) {
		const struct gs_gap *g = &dv->gaps[i];
		const struct gs_op *op = &in->ops[g->op_idx];
		uint32_t ename = 0, etid = 0;
		int64_t es = -1, ee = -1, gs = g->start - t0;

		if ((g->explain_kind == GS_EXPLAIN_LAUNCH ||
		     g->explain_kind == GS_EXPLAIN_HOST_FUNC) &&
		    g->explain_idx < in->n_apis) {
			const struct gs_api *a = &in->apis[g->explain_idx];
			ename = a->name_id, etid = a->tid, es = a->start - t0, ee = a->end - t0;
		} else if ((g->explain_kind == GS_EXPLAIN_SYNC ||
			    g->explain_kind == GS_EXPLAIN_WAIT) &&
			   g->explain_idx < in->n_syncs) {
			const struct gs_sync *y = &in->syncs[g->explain_idx];
			ename = y->api_name_id, etid = y->tid, es = y->start - t0, ee = y->end - t0;
		}
		fprintf(f,
			"%s%" PRId64 ",%" PRId64 ",%" PRIu32 ",%d,%d,%" PRIu32 ",%" PRIu32
			",%" PRId64 ",%" PRId64 ",%d",
			i ? "," : "", gs - prev, g->end - g->start, op->name_id, g->cause,
			g->explain_kind, ename, etid, es, ee, op->kind);
		prev = gs;
	}
	/* the gaps' segment sentences (gap model v2), one string per gap in
	 * the order of d: the tooltip and the explanation box say them */
	fputs("],\"t\":[", f);
	for (i = 0; i < dv->n_gaps; i++) {
		gap_segments_text(seg, sizeof(seg), in, r->res, &dv->gaps[i]);
		if (i)
			putc(',', f);
		json_write_cstr(f, seg, JSON_HTML_SAFE);
	}
	fputs("]}", f);

	if (dv->n_streams == 0)
		return 0;
	/* counting sort of the device's ops by stream row, stable, so each
	 * row stays in start order */
	start_of = calloc(dv->n_streams + 1, sizeof(*start_of));
	fill = calloc(dv->n_streams + 1, sizeof(*fill));
	order = malloc((nops ? nops : 1) * sizeof(*order));
	if (!start_of || !fill || !order)
		goto nomem;
	for (i = dv->first_op; i < dv->end_op; i++) {
		size_t lo = 0, hi = dv->n_streams;
		while (lo < hi) { /* streams are sorted by id */
			size_t mid = (lo + hi) / 2;
			if (dv->streams[mid].stream < in->ops[i].stream)
				lo = mid + 1;
			else
				hi = mid;
		}
		order[i - dv->first_op] = (uint32_t)lo; /* row, for now */
		start_of[lo + 1]++;
	}
	for (s = 0; s < dv->n_streams; s++)
		start_of[s + 1] += start_of[s];
	{
		uint32_t *tmp = malloc((nops ? nops : 1) * sizeof(*tmp));
		if (!tmp)
			goto nomem;
		for (i = 0; i < nops; i++) {
			uint32_t row = order[i];
			if (row >= dv->n_streams)
				row = (uint32_t)dv->n_streams - 1; /* not in streams: defensive */
			tmp[start_of[row] + fill[row]++] = (uint32_t)(dv->first_op + i);
		}
		free(order);
		order = tmp;
	}
	for (s = 0; s < dv->n_streams; s++) {
		snprintf(label, sizeof(label), "GPU %d \xC2\xB7 stream %" PRIu32, dv->device,
			 dv->streams[s].stream);
		row_begin(f, first_row, label, "ops");
		prev = 0;
		for (i = start_of[s]; i < start_of[s] + fill[s]; i++) {
			const struct gs_op *op = &in->ops[order[i]];
			int64_t os = op->start - t0;
			fprintf(f, "%s%" PRId64 ",%" PRId64 ",%" PRIu32 ",%d",
				i == start_of[s] ? "" : ",", os - prev, op->end - op->start,
				op->name_id, op->kind);
			prev = os;
		}
		fputs("]}", f);
	}
	free(start_of);
	free(fill);
	free(order);
	return 0;
nomem:
	free(start_of);
	free(fill);
	free(order);
	return -1;
}

void html_home_view(const struct html_run *r, int64_t t0, int64_t last, int64_t *v0, int64_t *v1)
{
	const struct gs_input *in = r->in;
	int64_t a = INT64_MAX, b = INT64_MIN, margin;
	size_t i;

	if (r->range) {
		for (i = 0; i < in->n_nvtx; i++) {
			const struct gs_nvtx *n = &in->nvtx[i];
			if (n->kind != 0 || strcmp(gs_str(&in->strings, n->text_id, ""), r->range))
				continue;
			a = n->start < a ? n->start : a;
			b = n->end > b ? n->end : b;
		}
	} else {
		for (i = 0; i < in->n_ops; i++) {
			a = in->ops[i].start < a ? in->ops[i].start : a;
			b = in->ops[i].end > b ? in->ops[i].end : b;
		}
	}
	if (a >= b) { /* nothing to frame: the whole run */
		*v0 = t0;
		*v1 = last > t0 ? last : t0 + 1;
		return;
	}
	margin = (b - a) / 100; /* so the first and last op do not touch the edges */
	*v0 = a - margin > t0 ? a - margin : t0;
	*v1 = b + margin < last ? b + margin : last;
}

/* record --capture-range: "capture": {"windows": [[s, e], ...] (ns from t0,
 * merged, in time order: window 1 first), "unrecorded": [[s, e], ...] (the
 * drawn time [0, last - t0] outside every window, clipped to it: between
 * two windows, and before the first or after the last where events lie
 * there)}. page.js hatches the unrecorded spans, so the time between the
 * windows, where nothing was recorded, does not read as idle GPU. Nothing
 * in a trace recorded whole. */
static void write_capture_spans(FILE *f, const struct gs_input *in, int64_t t0, int64_t last)
{
	const int64_t *w = in->capture_windows;
	int64_t from = t0; /* the end of the recorded time so far */
	size_t i, n = 0;

	if (!in->capture_range)
		return;
	fputs(",\"capture\":{\"windows\":[", f);
	for (i = 0; i < in->n_capture_windows; i++)
		fprintf(f, "%s[%" PRId64 ",%" PRId64 "]", i ? "," : "", w[2 * i] - t0,
			w[2 * i + 1] - t0);
	fputs("],\"unrecorded\":[", f);
	for (i = 0; i <= in->n_capture_windows; i++) {
		/* the span before window i (after the last one: up to last) */
		int64_t a = from, b = i < in->n_capture_windows ? w[2 * i] : last;
		if (b > last)
			b = last;
		if (b > a)
			fprintf(f, "%s[%" PRId64 ",%" PRId64 "]", n++ ? "," : "", a - t0, b - t0);
		if (i < in->n_capture_windows && w[2 * i + 1] > from)
			from = w[2 * i + 1];
	}
	fputs("]}", f);
}

int html_write_data(FILE *f, const struct html_run *r, int idx)
{
	const struct gs_input *in = r->in;
	int64_t t0 = html_origin(in), last = t0, v0, v1;
	static const int sync_kinds[] = {0, 1, 2, 3, 4, 16, 17, 18, 19, 20, 21};
	int first_row = 1, rc;
	uint32_t *used = NULL;
	size_t i, n_used;

	for (i = 0; i < in->n_ops; i++)
		if (in->ops[i].end > last)
			last = in->ops[i].end;
	for (i = 0; i < in->n_apis; i++)
		if (in->apis[i].end > last)
			last = in->apis[i].end;
	for (i = 0; i < in->n_syncs; i++)
		if (in->syncs[i].end > last)
			last = in->syncs[i].end;
	for (i = 0; i < in->n_nvtx; i++)
		if (in->nvtx[i].end > last)
			last = in->nvtx[i].end;

	html_home_view(r, t0, last, &v0, &v1);
	fprintf(f,
		"<script type=\"application/json\" class=\"gs-data\" data-run=\"%d\">\n"
		"{\"t0\":\"%" PRId64 "\",\"span\":%" PRId64 ",\"view\":[%" PRId64 ",%" PRId64
		"],\"strings\":[",
		idx, t0, last - t0, v0 - t0, v1 - t0);
	for (i = 0; i < in->strings.n; i++) {
		if (i)
			putc(',', f);
		if (in->strings.v && in->strings.v[i]) {
			/* kernel names demangled for the tooltips, as in the tables */
			char *dm = gs_demangle(in->strings.v[i]);
			json_write_cstr(f, dm ? dm : in->strings.v[i], JSON_HTML_SAFE);
			free(dm);
		} else
			fputs("null", f);
	}
	fputs("],\"syncKinds\":{", f);
	for (i = 0; i < sizeof(sync_kinds) / sizeof(sync_kinds[0]); i++)
		fprintf(f, "%s\"%d\":\"%s\"", i ? "," : "", sync_kinds[i],
			gs_sync_kind_name(sync_kinds[i]));
	fputs("}", f);
	/* the call sites' texts once each; a sync row's "s" indexes them */
	n_used = used_sites(in, &used);
	if (n_used == (size_t)-1)
		return -1;
	if (n_used) {
		char site[512];
		fputs(",\"sites\":[", f);
		for (i = 0; i < n_used; i++) {
			report_site_text(site, sizeof(site), in, used[i]);
			if (i)
				putc(',', f);
			json_write_cstr(f, site, JSON_HTML_SAFE);
		}
		fputs("]", f);
	}
	fputs(",\"rows\":[", f);
	for (i = 0; i < r->res->n_devices; i++)
		if (write_device_rows(f, r, &r->res->devices[i], t0, &first_row)) {
			free(used);
			return -1;
		}
	rc = write_host_rows(f, r, t0, &first_row, used, n_used);
	free(used);
	if (rc)
		return -1;
	fputs("]", f);
	write_capture_spans(f, in, t0, last);
	fputs("}\n</script>\n", f);
	return 0;
}
