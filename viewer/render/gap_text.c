/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * gap_text.c - one sentence for the segments of an idle gap (gap model v2),
 * shared by the text report, the HTML tooltips and the Chrome export's gap
 * track, so they all say the same: "4.700 us sync wait in
 * cudaStreamSynchronize, then 3.720 s host code on thread 1063, then
 * 9.000 us launch latency (cudaLaunchKernel)". Names from the trace go
 * through the terminal sanitizer (term.h); it computes nothing the
 * analysis did not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gapscope/trace_format.h"
#include "report.h"
#include "term.h"

#define GAP_TEXT_SEGMENTS 5 /* segments named; the rest summed as "more" */

void gap_dur(char *b, size_t n, int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;

	if (a < 1000)
		snprintf(b, n, "%lld ns", (long long)ns);
	else if (a < 1000000)
		snprintf(b, n, "%.3f us", (double)ns / 1e3);
	else if (a < 1000000000)
		snprintf(b, n, "%.3f ms", (double)ns / 1e6);
	else
		snprintf(b, n, "%.3f s", (double)ns / 1e9);
}

static void put(char *buf, size_t n, size_t *k, const char *s);

/* append s escaped by the one terminal sanitizer (term.h), at most max
 * bytes of it, cut between characters */
static void put_name(char *buf, size_t n, size_t *k, const char *s, size_t max)
{
	char esc[4 * 96 + 8];

	if (max + 1 > sizeof(esc))
		max = sizeof(esc) - 1;
	put(buf, n, k, term_str(esc, max + 1, s ? s : ""));
	if (s && strlen(esc) < strlen(s) && strlen(esc) == max)
		put(buf, n, k, "\xe2\x80\xa6"); /* cut: U+2026 says so */
}

static void put(char *buf, size_t n, size_t *k, const char *s)
{
	int w = snprintf(buf + *k, n - *k, "%s", s);
	if (w > 0)
		*k += (size_t)w < n - *k ? (size_t)w : n - *k - 1;
}

static const char *api_name(const struct gs_input *in, uint32_t idx, const char *dflt)
{
	return idx < in->n_apis ? gs_str(&in->strings, in->apis[idx].name_id, dflt) : dflt;
}

/* one segment's words: "<dur> <cause>[ in <call> | on thread <tid> | ...]" */
static void put_segment(char *buf, size_t n, size_t *k, const struct gs_input *in,
			const struct gs_segment *s, int64_t len, uint32_t gap_nvtx)
{
	char d[32];

	gap_dur(d, sizeof(d), len);
	put(buf, n, k, d);
	put(buf, n, k, " ");
	put(buf, n, k, gs_cause_name(s->cause));
	switch (s->cause) {
	case GS_CAUSE_SYNC_WAIT:
		if (s->ref_idx < in->n_syncs) {
			put(buf, n, k, " in ");
			put_name(buf, n, k,
				 gs_str(&in->strings, in->syncs[s->ref_idx].api_name_id,
					gs_sync_kind_name(in->syncs[s->ref_idx].kind)),
				 64);
		}
		break;
	case GS_CAUSE_CUDA_API:
		put(buf, n, k, " in ");
		put_name(buf, n, k, api_name(in, s->ref_idx, "CUDA calls"), 64);
		if (s->n_calls > 1) {
			snprintf(d, sizeof(d), " and %u more", s->n_calls - 1);
			put(buf, n, k, d);
		}
		break;
	case GS_CAUSE_HOST_CODE: {
		/* what the thread ran, where the trace says (imported
		 * torch.profiler operators): "in aten::unflatten_dense_tensors" */
		uint32_t h = gs_host_range_at(in, s->tid, s->start, s->end);
		snprintf(d, sizeof(d), " on thread %u", s->tid);
		put(buf, n, k, d);
		/* what its samples ran (record's sampler): "88% train.py:step
		 * line 41" */
		if (in->n_samples) {
			struct gs_host_attr at;
			size_t j;
			/* a thread that ran under half of it waited (a worker
			 * process, I/O, a lock) or was in the kernel (page faults,
			 * fork): the samples name what it ran, not the rest */
			double run;
			gs_host_attribute(in, s->tid, s->start, s->end, &at);
			run = gs_host_running(in, &at);
			if (run >= 0.0 && run < 0.5) {
				snprintf(d, sizeof(d), " (running %.0f%% of it)", 100.0 * run);
				put(buf, n, k, d);
			}
			for (j = 0; j < at.n_top && j < 2 && at.total > 0; j++) {
				char item[320];
				double sh = (double)at.top[j].weight / (double)at.total;
				if (j && sh < 0.2)
					break;
				snprintf(d, sizeof(d), "%s%.0f%% ", j ? ", " : ": ",
					 gs_host_pct(at.top[j].weight, at.total));
				put(buf, n, k, d);
				gap_host_item(item, sizeof(item), in, &at.top[j]);
				put(buf, n, k, item);
			}
			break;
		}
		/* not the range the gap's line names anyway ("in NVTX ...") */
		if (h != GS_NONE && in->hranges[h].name_id != gap_nvtx) {
			put(buf, n, k, " in ");
			put_name(buf, n, k, gs_str(&in->strings, in->hranges[h].name_id, "?"), 96);
		}
		break;
	}
	case GS_CAUSE_LAUNCH_LATENCY:
	case GS_CAUSE_GRAPH_INTERNAL:
		if (s->ref_kind == GS_EXPLAIN_BEFORE_TRACE) {
			put(buf, n, k, " (launched before the trace began)");
			break;
		}
		put(buf, n, k, " (");
		put_name(buf, n, k, api_name(in, s->ref_idx, "?"), 64);
		put(buf, n, k, ")");
		break;
	case GS_CAUSE_DEPENDENCY:
		if (s->ref_kind == GS_EXPLAIN_WAIT && s->ref_idx < in->n_syncs) {
			put(buf, n, k, " on ");
			put_name(buf, n, k,
				 gs_str(&in->strings, in->syncs[s->ref_idx].api_name_id,
					"a stream wait"),
				 64);
		} else if (s->ref_kind == GS_EXPLAIN_HOST_FUNC) {
			put(buf, n, k, " on host function ");
			put_name(buf, n, k, api_name(in, s->ref_idx, "?"), 64);
		} else if (s->ref_kind == GS_EXPLAIN_HOST_NODE) {
			put(buf, n, k, " on a host node of its graph");
		}
		break;
	default:
		/* a queued op held by what the trace does not hold (gap
		 * model, rule 5): its launch call is known */
		if (s->ref_kind == GS_EXPLAIN_LAUNCH) {
			put(buf, n, k, " (queued by ");
			put_name(buf, n, k, api_name(in, s->ref_idx, "?"), 64);
			put(buf, n, k, ", held by no recorded wait)");
		} else if (s->ref_kind == GS_EXPLAIN_BEFORE_TRACE) {
			put(buf, n, k,
			    " (launched before the trace began, held by no recorded wait)");
		} else {
			put(buf, n, k, " (no launch call recorded)");
		}
		break;
	}
}

void gap_host_item(char *buf, size_t n, const struct gs_input *in, const struct gs_host_item *it)
{
	char raw[320];
	size_t k = 0;

	if (!n)
		return;
	buf[0] = '\0';
	gs_host_item_name(raw, sizeof(raw), in, it);
	put_name(buf, n, &k, raw, 96);
}

void gap_segments_text(char *buf, size_t n, const struct gs_input *in,
		       const struct gs_result *res, const struct gs_gap *g)
{
	struct gs_segment seg[GAP_TEXT_SEGMENTS], *all;
	size_t ns, i, k = 0;
	uint32_t gap_nvtx = g->nvtx_idx < in->n_nvtx ? in->nvtx[g->nvtx_idx].text_id : 0;

	if (!n)
		return;
	buf[0] = '\0';
	ns = gs_gap_segments_all(res, g, seg, GAP_TEXT_SEGMENTS, &all);
	if (ns == (size_t)-1)
		return;
	if (all == seg) { /* in time order */
		for (i = 0; i < ns; i++) {
			if (i)
				put(buf, n, &k, ", then ");
			put_segment(buf, n, &k, in, &seg[i], seg[i].end - seg[i].start, gap_nvtx);
		}
		return;
	}
	/* Many segments (a host-late gap crossing many CUDA calls): each
	 * cause once, in the order it first appears, with its total, so the
	 * long segments are never the ones left out. */
	put(buf, n, &k, "in all: ");
	{
		int c, first = 1;
		size_t order[GS_CAUSE_COUNT], no = 0, j;
		int64_t tot[GS_CAUSE_COUNT] = {0};
		size_t longest[GS_CAUSE_COUNT];
		int seen[GS_CAUSE_COUNT] = {0};
		for (i = 0; i < ns; i++) {
			c = all[i].cause;
			if (!seen[c]) {
				seen[c] = 1;
				longest[c] = i;
				order[no++] = (size_t)c;
			}
			/* each cause is named by its longest segment: its call,
			 * sync or host operator (HTA's AlexNet trace: "740.834
			 * ms CUDA API in cudaDeviceSynchronize and 18 more", a 2
			 * us call that began the gap, for a 732.657 ms
			 * cudaStreamCreateWithFlags) */
			if (all[i].end - all[i].start > all[longest[c]].end - all[longest[c]].start)
				longest[c] = i;
			tot[c] += all[i].end - all[i].start;
		}
		for (j = 0; j < no; j++) {
			struct gs_segment s = all[longest[order[j]]];
			uint32_t calls = 0;
			for (i = 0; i < ns; i++)
				if (all[i].cause == s.cause)
					calls += all[i].n_calls;
			s.n_calls = calls;
			if (!first)
				put(buf, n, &k, ", ");
			first = 0;
			put_segment(buf, n, &k, in, &s, tot[order[j]], gap_nvtx);
		}
	}
	free(all);
}
