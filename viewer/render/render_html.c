/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * render_html.c - writes the page of `gapscope html` (see render_html.h).
 *
 * The markup (the verdict, cards, tables, histogram SVG) is printed here
 * from the analysis results; the timeline is drawn in the browser by
 * html_assets/page.js from one JSON block per run, written by html_data.c
 * (its format is described there).
 *
 * Why one file of about 1,400 lines (CONVENTIONS.md: ~1,200): the cards,
 * verdict, histogram, tables and comparison of the page all print through
 * the small helpers at the top (fmt_ns, put_ns, put_pct, str, the cause
 * colours), which are private to it; the timeline's data block, the one
 * part that shares none of them, is html_data.c.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "html_assets.h"
#include "names.h"
#include "render_html.h"
#include "report.h" /* gap_segments_text */
#include "utf8.h"
#include "whatif.h"

/* One colour per enum gs_cause (gap model v2), distinct from each other and
 * from the op/API/sync/NVTX colours of the timeline; page.js holds the same
 * list (CAUSE_COLORS). Host-late causes warm (sync wait red, CUDA API pink,
 * host code brown), enqueued-in-time causes olive/indigo/orange, other grey. */
static const char *const cause_colors[GS_CAUSE_COUNT] = {
    "#d62728", /* sync wait */
    "#e377c2", /* CUDA API */
    "#8c564b", /* host code */
    "#bcbd22", /* launch latency */
    "#393b79", /* graph-internal */
    "#ff9f40", /* dependency */
    "#7f7f7f", /* other */
};

/* ---- small helpers -------------------------------------------------- */

void html_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len, i = 0;

	if (!s)
		return;
	len = strlen(str);
	while (i < len) {
		unsigned char c = s[i];
		int n;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '\n':
		case '\t': putc(c, f); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fputs("\xEF\xBF\xBD", f);
			} else if (c >= 0x80) {
				n = utf8_sequence_length(s + i, len - i);
				if (n > 0) {
					fwrite(s + i, 1, (size_t)n, f);
					i += (size_t)n;
					continue;
				}
				fputs("\xEF\xBF\xBD", f);
			} else {
				putc(c, f);
			}
		}
		i++;
	}
}

/* ns with a unit, three significant digits ("9.2 µs") */
static void fmt_ns(char *buf, size_t n, int64_t ns)
{
	double a = fabs((double)ns);

	if (a < 1e3)
		snprintf(buf, n, "%" PRId64 " ns", ns);
	else if (a < 1e6)
		snprintf(buf, n, "%.3g \xC2\xB5s", (double)ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, n, "%.3g ms", (double)ns / 1e6);
	else
		snprintf(buf, n, "%.4g s", (double)ns / 1e9);
}

static void put_ns(FILE *f, int64_t ns)
{
	char b[48];

	fmt_ns(b, sizeof(b), ns);
	fputs(b, f);
}

static void put_pct(FILE *f, double share)
{
	fprintf(f, "%.1f%%", share * 100.0);
}

int html_hist_bin(int64_t dur)
{
	int64_t lim = 100;
	int b = 0;

	while (b < HTML_HIST_BINS - 1 && dur >= lim) {
		lim *= 10;
		b++;
	}
	return b;
}

void html_gap_histogram(const struct gs_result *res,
			uint64_t counts[HTML_HIST_BINS][GS_CAUSE_COUNT])
{
	size_t d, i;

	memset(counts, 0, sizeof(uint64_t) * HTML_HIST_BINS * GS_CAUSE_COUNT);
	for (d = 0; d < res->n_devices; d++)
		for (i = 0; i < res->devices[d].n_gaps; i++) {
			const struct gs_gap *g = &res->devices[d].gaps[i];
			if (g->cause < GS_CAUSE_COUNT)
				counts[html_hist_bin(g->end - g->start)][g->cause]++;
		}
}

/* A kernel name in the page's tables: the short name (as the text report
 * shows it), the whole demangled name in its tooltip. */
void html_escape_kernel(FILE *f, const char *name)
{
	char *dm = gs_demangle(name);
	char sn[4 * REPORT_NAME_CHARS + 8];

	gs_short_name(name, sn, sizeof(sn), REPORT_NAME_CHARS);
	if (!strcmp(sn, dm ? dm : name ? name : "")) {
		html_escape(f, sn);
	} else {
		fputs("<span title=\"", f);
		html_escape(f, dm ? dm : name);
		fputs("\">", f);
		html_escape(f, sn);
		fputs("</span>", f);
	}
	free(dm);
}

static const char *str(const struct gs_input *in, uint32_t id, const char *dflt)
{
	return gs_str(&in->strings, id, dflt);
}

/* ---- cards ---------------------------------------------------------- */

static void card(FILE *f, const char *key, const char *value_html)
{
	fprintf(f, "<div class=\"card\"><div class=\"k\">%s</div><div class=\"v\">%s</div>", key,
		value_html);
}

/* "−12.3% vs before" line of a card in the comparison page; lower_better
 * picks the colour */
static void card_change(FILE *f, double before, double after, int lower_better, int share)
{
	double r = diff_rel(before, after);
	int better = lower_better ? after < before : after > before;

	if (after == before) {
		fputs("<div class=\"d\">no change</div>", f);
		return;
	}
	fprintf(f, "<div class=\"d %s\">", better ? "better" : "worse");
	if (share)
		fprintf(f, "%+.1f pt", (after - before) * 100.0);
	else if (!isnan(r))
		fprintf(f, "%+.1f%%", r * 100.0);
	else
		fputs("new", f);
	fputs(" vs before</div>", f);
}

/* The figures corrected for the collector's overhead, a line per device,
 * as the text report prints them (docs/collector.md, "Overhead
 * correction"); nothing without a calibration or with
 * --no-overhead-correction. */
static void write_capture_note(FILE *f, const struct html_run *r);

static void write_corrected(FILE *f, const struct html_run *r)
{
	size_t k;

	if (!r->corr)
		return;
	for (k = 0; k < r->corr->n_devices; k++) {
		const struct gs_corrected_device *c = &r->corr->devices[k];
		fprintf(f, "<p class=\"hint\">GPU %d corrected for the collector's overhead (%s: ",
			c->device, gs_corrected_basis(r->corr));
		put_ns(f, r->corr->per_call_ns);
		fputs(" per launch call, ", f);
		if (r->corr->launch_gap_ns >= 0) { /* as in the text report */
			fputs("up to ", f);
			put_ns(f, r->corr->launch_gap_ns);
			fputs(" of it between calls, ", f);
		}
		if (r->corr->spaced_calls) { /* as in the text report */
			fprintf(f, "%lld" REPORT_SPACED_AFTER, (long long)r->corr->spaced_calls);
			if (r->corr->program_spaced_ns > 0) {
				fputs(REPORT_SPACED_PROGRAM, f);
				put_ns(f, r->corr->program_spaced_ns);
				fputs(REPORT_SPACED_REFS, f);
				put_ns(f, r->corr->plain_spaced_ns);
				fputs("), ", f);
			} else {
				fputs(REPORT_SPACED_CAL ", ", f);
			}
		}
		if (r->corr->graph_launches) {
			put_ns(f, r->corr->graph_launch_shrink_ns);
			fputs(" per graph launch call, ", f);
		}
		if (r->corr->occupancy) {
			int64_t kb = r->corr->kernel_busy_ns;
			fputs(kb > 0 ? "&minus;" : "+", f);
			put_ns(f, kb > 0 ? kb : -kb);
			fputs(" per kernel as untraced GPU time): window ", f);
		} else {
			put_ns(f, r->in->cal.kernel_ns);
			fputs(" per kernel): window ", f);
		}
		put_ns(f, c->window);
		fputs(", utilisation ", f);
		put_pct(f, c->utilisation);
		fputs(", idle ", f);
		put_ns(f, c->idle);
		fputs(", launch overhead share ", f);
		put_pct(f, c->launch_overhead_share);
		fputs(" (idle gaps &minus;", f);
		put_ns(f, c->idle_removed);
		fputs(c->busy_removed >= 0 ? ", kernels &minus;" : ", kernels +", f);
		put_ns(f, c->busy_removed >= 0 ? c->busy_removed : -c->busy_removed);
		fputs(")</p>\n", f);
	}
	if (gs_corrected_slow_process(r->corr)) { /* as the text report's line */
		/* a sentence of its own on the page: capitalised */
		int64_t base = gs_corrected_slow_base(r->corr);
		int known = r->corr->program_spaced_ns > 0; /* from reference runs */
		fputs("<p class=\"hint\">T", f);
		fputs(&REPORT_SLOW_PROCESS_HEAD[1], f); /* its first letter capitalised above */
		put_ns(f, r->corr->spaced_record_p50_ns);
		fputs(known ? " against " : REPORT_SLOW_PROCESS_MID, f);
		put_ns(f, base);
		fprintf(f, "%s (%.2f&times;)%s%s</p>\n", known ? REPORT_SLOW_PROCESS_REF_MID : "",
			(double)r->corr->spaced_record_p50_ns / (double)base,
			known ? REPORT_SLOW_PROCESS_REF_TAIL : REPORT_SLOW_PROCESS_TAIL,
			r->ref ? "" : REPORT_SLOW_PROCESS_HINT);
	}
	if (r->corr->graph_nodes) { /* as the text report's note */
		const struct gs_launch_stat *gl;
		fputs("<p class=\"hint\">The corrected figures take ", f);
		put_ns(f, r->corr->graph_node_shrink_ns);
		if (r->in->cal.store_graph_node_ns >= 0) {
			fprintf(f,
				" off each of %lld graph nodes, as calibrated on a graph of tiny "
				"kernels that store one word, traced less untraced (H200: 210 ns; "
				"empty kernels grow by 350)",
				(long long)r->corr->graph_nodes);
		} else {
			fprintf(f, " off each of %lld graph nodes and up to ",
				(long long)r->corr->graph_nodes);
			put_ns(f, r->in->cal.gpu_gap_ns);
			fputs(" off the idle after it, as calibrated on a graph of empty kernels "
			      "(H200: nodes of 0-10 µs kernels lost 0.28-0.31 µs each); corrected "
			      "graph replays can read a few % short (H200: 1000 one-block kernels "
			      "of 3.4 µs a node, 2.6-5.7%)",
			      f);
		}
		if (r->corr->occupancy && r->in->cal.plain_graph_pitch_ns > 0) {
			fputs(
			    ". A node's busy time gains the idle left before the next node of its "
			    "graph, at most ",
			    f);
			put_ns(f, r->in->cal.plain_graph_pitch_ns);
			fputs(" (an untraced empty node): the GPU's switch between nodes", f);
		}
		gl = gs_graph_launch_stat(r->res);
		if (gl && r->corr->graph_launches) {
			fputs(
			    ". A graph launch call loses its traced duration less the untraced one "
			    "for its nodes (calibrated: ",
			    f);
			put_ns(f, r->in->cal.plain_graph_ns);
			fputs(" + ", f);
			put_ns(f, r->in->cal.plain_graph_node_ns);
			fputs(" a node): ", f);
			put_ns(f, r->corr->graph_launch_shrink_ns);
			fprintf(f, " on average over %lld call%s that held the GPU back (traced ",
				(long long)r->corr->graph_launches,
				r->corr->graph_launches == 1 ? "" : "s");
			html_escape(f, gs_str(&r->in->strings, gl->name_id, "?"));
			fputs(" calls took ", f);
			put_ns(f, gl->api_dur.p50);
			fputs(", p50)", f);
		} else if (gl) {
			fputs(". A graph launch loses at most ", f);
			put_ns(f, r->corr->graph_launch_shrink_ns);
			fputs(", a launch call's calibrated cost (the calibration times no graph "
			      "launch), though traced ",
			      f);
			html_escape(f, gs_str(&r->in->strings, gl->name_id, "?"));
			fputs(" calls took ", f);
			put_ns(f, gl->api_dur.p50);
			fputs(" here (p50): where graph launches hold the GPU back, the corrected "
			      "figures stay pessimistic",
			      f);
		}
		fputs(".</p>\n", f);
	}
}

static void write_cards(FILE *f, const struct html_run *r, const struct run_totals *tot,
			const struct run_totals *before)
{
	char v[96];
	size_t c;

	fputs("<div class=\"cards\">\n", f);
	fmt_ns(v, sizeof(v), tot->wall);
	card(f,
	     tot->range_applied ? "Selected time"
	     : tot->capture	? "GPU window (captured)"
				: "GPU window",
	     v);
	if (before)
		card_change(f, (double)before->wall, (double)tot->wall, 1, 0);
	fprintf(f, "<div class=\"d\">%" PRIu64 " GPU ops</div></div>\n", tot->ops);

	snprintf(v, sizeof(v), "%.1f%%", tot->utilisation * 100.0);
	card(f, "GPU utilisation", v);
	if (before)
		card_change(f, before->utilisation, tot->utilisation, 0, 1);
	fputs("<div class=\"d\">busy ", f);
	put_ns(f, tot->busy);
	if (r->corr && r->corr->n_devices) { /* the verdict's bracket */
		int64_t cw, cb;
		fputs("; corrected ", f);
		put_pct(f, gs_corrected_total(r->corr, &cw, &cb));
	}
	fputs("</div></div>\n", f);

	snprintf(v, sizeof(v), "%.1f%%", tot->launch_overhead_share * 100.0);
	card(f, "Launch overhead share", v);
	if (before)
		card_change(f, before->launch_overhead_share, tot->launch_overhead_share, 1, 1);
	fputs("<div class=\"d\">launch latency + graph-internal idle + launch calls</div>", f);
	/* the host's own code beside it: CUDA Graphs remove both (DESIGN.md) */
	fputs("<div class=\"d\">host code share ", f);
	put_pct(f, tot->host_code_share);
	fputs("</div></div>\n", f);

	fmt_ns(v, sizeof(v), tot->idle);
	card(f, "GPU idle", v);
	if (before)
		card_change(f, (double)before->idle, (double)tot->idle, 1, 0);
	fputs("<ul>", f);
	for (c = 0; c < GS_CAUSE_COUNT; c++) {
		fprintf(f, "<li><span class=\"sw\" style=\"background:%s\"></span>%s: ",
			cause_colors[c], gs_cause_name((int)c));
		put_ns(f, tot->idle_by_cause[c]);
		fprintf(f, " (%" PRIu64 ")</li>", tot->gaps_by_cause[c]);
	}
	fputs("</ul></div>\n</div>\n", f);

	/* several devices: one line each */
	if (r->res->n_devices > 1) {
		size_t d;
		fputs("<table><tr><th class=\"name\">device</th><th>window</th><th>busy</th>"
		      "<th>utilisation</th><th>launch overhead</th><th>host "
		      "code</th><th>gaps</th></tr>\n",
		      f);
		for (d = 0; d < r->res->n_devices; d++) {
			const struct gs_timeline *tl = &r->res->devices[d].tl;
			fprintf(f, "<tr><td class=\"name\">GPU %d</td><td>",
				r->res->devices[d].device);
			put_ns(f, tl->window);
			fputs("</td><td>", f);
			put_ns(f, tl->busy);
			fputs("</td><td>", f);
			put_pct(f, tl->utilisation);
			fputs("</td><td>", f);
			put_pct(f, tl->launch_overhead_share);
			fputs("</td><td>", f);
			put_pct(f, tl->host_code_share);
			fprintf(f, "</td><td>%" PRIu64 "</td></tr>\n", tl->n_gaps);
		}
		fputs("</table>\n", f);
	}
	write_corrected(f, r);
	write_capture_note(f, r);
}

/* The collector's call-site captures, as the text report's note: where they
 * took 0.5% of the longest device window or more */
/* "<total><sep><n> <unit>, p50 <d>, <share> of the window" of a span note */
static void span_figures(FILE *f, const struct gs_capture_cost *cc, int64_t window, const char *sep,
			 const char *unit)
{
	put_ns(f, cc->total_ns);
	fprintf(f, "%s%lld %s, p50 ", sep, (long long)cc->n, unit);
	put_ns(f, cc->p50_ns);
	fputs(", ", f);
	put_pct(f, (double)cc->total_ns / (double)window);
	fputs(" of the window", f);
}

static void write_capture_note(FILE *f, const struct html_run *r)
{
	struct gs_capture_cost cc;
	int64_t window;

	if (gs_span_note(r->in->stalls, r->in->n_stalls, r->res, &cc, &window)) {
		fputs("<p class=\"hint\">CUPTI's own work on the program's threads (activity "
		      "buffer requests, buffer flushes, instrumentation) took ",
		      f);
		span_figures(f, &cc, window, ": ", "spans");
		fprintf(f, "; %s.</p>\n", gs_span_correction(r->corr != NULL, 0));
	}
	if (!gs_span_note(r->in->captures, r->in->n_captures, r->res, &cc, &window))
		return;
	fputs("<p class=\"hint\">The collector's call-site captures (the stacks of blocking "
	      "calls) took ",
	      f);
	span_figures(f, &cc, window, " in the program's threads: ", "captures");
	/* as the text report: no unwinder where no native walk ran */
	if (!r->in->n_native_captures)
		fputs(", Python frames only (no native walk)", f);
	else if (r->in->unwinder) {
		fputs(", with ", f);
		html_escape(f, r->in->unwinder);
		fputs("'s unwinder", f);
	}
	fprintf(f, "; %s. ", gs_span_correction(r->corr != NULL, 1));
	if (r->in->n_native_captures && r->in->unwinder && !strcmp(r->in->unwinder, "libgcc"))
		fputs("libunwind (Debian: libunwind8) takes 10-18× less a capture; ", f);
	fputs("<code>--no-callsites</code> records none.</p>\n", f);
}

/* The verdict, as the text report opens with it (gs_verdict_compute; rules
 * and thresholds in docs/report.md "Verdict"): the utilisation and the
 * three largest idle causes, then each finding with its cost, where it
 * happened (a sync rule's: its API's top call site) and the fix. Names
 * from the trace (API, NVTX, call site) are escaped. */
static void write_verdict(FILE *f, const struct html_run *r)
{
	const struct gs_input *in = r->in;
	const struct gs_verdict *v = r->verdict;
	struct gs_site_stat *sites = NULL;
	const struct gs_site_stat *st;
	size_t i, n_sites;
	char site[512];
	int j, n = 0;

	fputs("<div class=\"verdict\">\n<p class=\"vline\"><b>Verdict:</b> GPU busy ", f);
	put_pct(f, v->utilisation);
	fputs(" of ", f);
	put_ns(f, v->window);
	if (r->corr && r->corr->n_devices) { /* as the text report's first line */
		int64_t cw, cb;
		double cu = gs_corrected_total(r->corr, &cw, &cb);
		fputs(" (corrected ", f);
		put_pct(f, cu);
		fputs(" of ", f);
		put_ns(f, cw);
		fputs(")", f);
	}
	fputs("; idle: ", f);
	for (j = 0; j < GS_CAUSE_COUNT && n < 3; j++) {
		int c = v->cause_order[j];
		if (!v->idle_by_cause[c])
			break;
		fprintf(f, "%s<span class=\"sw\" style=\"background:%s\"></span>%s ", n ? ", " : "",
			cause_colors[c], gs_cause_name(c));
		put_pct(f, v->window ? (double)v->idle_by_cause[c] / (double)v->window : 0.0);
		n++;
	}
	if (!n)
		fputs("none", f);
	fputs("</p>\n", f);
	if (v->outside_note) {
		/* the window outside every NVTX range, as the text report's
		 * line under the verdict says it */
		char arg[4 * REPORT_RANGE_ARG_MAX + 8];
		fputs("<p class=\"hint\">", f);
		put_pct(f, (double)v->outside_ns / (double)v->window);
		fputs(" of the window (", f);
		put_ns(f, v->outside_ns);
		fputs(") is outside every NVTX range, and counted below; ", f);
		if (report_range_arg(arg, sizeof(arg), in, v)) {
			fputs("<code>gapscope html --range ", f);
			html_escape(f, arg);
			if (v->range_count == 1)
				fputs("</code> selects the range of that name (", f);
			else
				fprintf(f, "</code> selects the %" PRIu64 " ranges of that name (",
					v->range_count);
		} else {
			fputs("<code>--range</code> with the text of the longest ranges (NVTX "
			      "ranges, below) selects them (",
			      f);
		}
		put_ns(f, v->range_inside_ns);
		fputs(")</p>\n", f);
	}
	if (r->res->range_lead) {
		/* the selection's warm-up, as the text report's line says it */
		const struct gs_result *res = r->res;
		fputs("<p class=\"hint\">the first ", f);
		if (res->range_lead > 1)
			fprintf(f, "%" PRIu64 " ", res->range_lead);
		fprintf(f, "of the %" PRIu64 " ranges took ", res->range_matches);
		put_ns(f, res->range_lead_ns);
		if (res->range_lead == 1)
			fprintf(f, " (%.0f\xC3\x97 the median one, ",
				(double)res->range_lead_ns / (double)res->range_median_ns);
		else
			fprintf(f, " (each %d\xC3\x97 the median one or more, ", GS_LEAD_FACTOR);
		put_ns(f, res->range_median_ns);
		fputs("), ", f);
		put_pct(f, (double)res->range_lead_ns / (double)res->range_walls_ns);
		fprintf(f,
			" of their walls: a warm-up, counted below; <code>--skip %" PRIu64
			"</code> leaves %s out</p>\n",
			res->range_skipped + res->range_lead, res->range_lead == 1 ? "it" : "them");
	}
	if (!v->n_findings) {
		fputs("<p class=\"hint\">no rule fired (thresholds: docs/report.md, "
		      "\xE2\x80\x9CVerdict\xE2\x80\x9D)</p>\n</div>\n",
		      f);
		return;
	}
	/* out of memory: the findings without sites */
	n_sites = gs_site_stats(r->res, &sites);
	if (n_sites == (size_t)-1)
		n_sites = 0;
	fputs("<ol>\n", f);
	for (i = 0; i < v->n_findings; i++) {
		const struct gs_finding *fd = &v->findings[i];
		fputs("<li><b>", f);
		html_escape(f, gs_rule_title(fd->rule));
		fputs("</b>: ", f);
		put_ns(f, fd->cost_ns);
		fputs(" (", f);
		put_pct(f, fd->share);
		fputs(")", f);
		if (fd->api_name_id) {
			fputs(", ", f);
			html_escape(f, str(in, fd->api_name_id, "?"));
			fprintf(f, " \xC3\x97%" PRIu64, fd->count);
			/* the API's top call site, as the text verdict's " at" */
			st = report_top_site(sites, n_sites, fd->api_name_id);
			if (st) {
				report_site_text(site, sizeof(site), in, st->site);
				/* "×58, 2 at": not every call was made there */
				if (st->calls < fd->count)
					fprintf(f, ", %" PRIu64, st->calls);
				fputs(" at ", f);
				html_escape(f, site);
			}
		} else if (fd->count) {
			fprintf(f, ", %" PRIu64 " %s", fd->count,
				gs_rule_count_unit(fd->rule, fd->count));
		}
		if (fd->tid)
			fprintf(f, ", thread %" PRIu32, fd->tid);
		if (fd->op_id && fd->op_id != fd->nvtx_id) {
			fputs(" in ", f);
			html_escape(f, str(in, fd->op_id, ""));
		}
		if (fd->nvtx_id) {
			fputs(", in NVTX \xE2\x80\x9C", f);
			html_escape(f, str(in, fd->nvtx_id, ""));
			fputs("\xE2\x80\x9D", f);
		}
		fputs(" \xE2\x86\x92 <span class=\"fix\">", f);
		html_escape(f, gs_finding_fix(fd));
		fputs("</span>", f);
		/* under it, as the text verdict says them: what the fix buys,
		 * replayed (or that there is no figure), and what the rule
		 * checked */
		fputs("<br><span class=\"why\">", f);
		if (fd->saves == GS_SAVES_REPLAYED && fd->saves_ns <= 0) {
			fputs("saves: none in the replay (", f);
			put_ns(f, fd->saves_ns);
			fputs(")", f);
		} else if (fd->saves == GS_SAVES_REPLAYED) {
			fputs("<span class=\"saves\">saves \xE2\x89\x88 ", f);
			put_ns(f, fd->saves_ns);
			fputs(" (", f);
			put_pct(f, fd->saves_share);
			fputs(")</span>", f);
		} else {
			fputs(fd->saves == GS_SAVES_UNCHANGED ? "saves: the replay finds nothing to fix"
							       : "saves: not modelled",
			      f);
		}
		if (fd->why[0]) {
			fputs("; ", f);
			html_escape(f, fd->why);
		}
		fputs("</span>", f);
		fputs("</li>\n", f);
	}
	fputs("</ol>\n", f);
	{
		/* as the text verdict: each saving is its fix alone */
		char keys[512];
		if (gs_verdict_fix_list(v, in ? &in->strings : NULL, keys, sizeof(keys)) >= 2) {
			fputs("<p class=\"why\">each saving is its fix replayed alone, and together they"
			      " need not add up: <code>gapscope whatif TRACE --fix ",
			      f);
			html_escape(f, keys);
			fputs("</code> replays them at once</p>\n", f);
		}
	}
	if (gs_verdict_untraced_note(v))
		fputs("<p class=\"why\">savings replayed with tracing&#39;s cost taken off, as the"
		      " corrected figures: of the untraced program</p>\n",
		      f);
	fputs("</div>\n", f);
	free(sites);
}

/* "run.db", or "run.db · range" when the run is one NVTX range of it */
static void put_run_label(FILE *f, const struct html_run *r)
{
	html_escape(f, r->path);
	if (r->range) {
		fputs(" \xC2\xB7 ", f);
		html_escape(f, r->range);
	}
}

static void write_run_header(FILE *f, const struct html_run *r, const char *role)
{
	char *cmd = r->t ? trace_meta(r->t, "command_line") : NULL;
	size_t d;

	fputs("<h2>", f);
	if (role)
		fprintf(f, "%s: ", role);
	put_run_label(f, r);
	fputs("</h2>\n<p class=\"meta\">", f);
	if (r->res->capture) {
		/* record --capture-range: the time between the windows was
		 * not recorded, and no figure here counts it */
		if (!strcmp(r->in->capture_range, "cudaProfilerApi")) {
			fputs("<span class=\"capture\">capture: only the program\xE2\x80\x99s "
			      "cudaProfilerStart..cudaProfilerStop spans were recorded",
			      f);
		} else {
			fputs("<span class=\"capture\">capture: only the spans of "
			      "--capture-range ",
			      f);
			html_escape(f, r->in->capture_range);
			fputs(" were recorded", f);
		}
		fprintf(f, ": %" PRIu64 " window%s, ", r->res->capture_windows,
			r->res->capture_windows == 1 ? "" : "s");
		put_ns(f, r->res->capture_ns);
		fputs(" in all; time outside them is not analysed</span><br>", f);
	}
	if (r->range) {
		fputs("selection: NVTX range \xE2\x80\x9C", f);
		html_escape(f, r->range);
		fputs("\xE2\x80\x9D", f);
		if (r->res->range_skipped)
			fprintf(f, ", the first %" PRIu64 " left out", r->res->range_skipped);
		fprintf(f, ", %" PRIu64 " range%s, ", r->res->range_matches,
			r->res->range_matches == 1 ? "" : "s");
		put_ns(f, r->res->range_total);
		fputs(" in all<br>", f);
	}
	if (cmd) {
		fputs("command: ", f);
		html_escape(f, cmd);
		fputs("<br>", f);
	}
	for (d = 0; d < r->res->n_devices; d++) {
		char *name = trace_device_name(r->t, r->res->devices[d].device);
		fprintf(f, "%sGPU %d", d ? ", " : "devices: ", r->res->devices[d].device);
		if (name) {
			fputs(" (", f);
			html_escape(f, name);
			fputs(")", f);
		}
		free(name);
	}
	if (r->res->n_devices == 0)
		fputs("no GPU activity recorded", f);
	if (r->res->instrumented && r->res->kernel_overhead_ns > 0)
		fprintf(f,
			"<br>kernel durations include CUPTI's instrumentation; %" PRId64
			" ns (measured) subtracted per kernel",
			r->res->kernel_overhead_ns);
	else if (r->res->instrumented)
		fputs("<br>kernel durations include CUPTI's instrumentation (no measured "
		      "overhead in the trace, nothing subtracted)",
		      f);
	fputs("</p>\n", f);
	free(cmd);
}

/* ---- histogram (static SVG) ----------------------------------------- */

static void write_histogram(FILE *f, const struct gs_result *res)
{
	static const char *const labels[HTML_HIST_BINS] = {"&lt;100 ns",
							   "0.1\xE2\x80\x93"
							   "1 \xC2\xB5s",
							   "1\xE2\x80\x93"
							   "10 \xC2\xB5s",
							   "10\xE2\x80\x93"
							   "100 \xC2\xB5s",
							   "0.1\xE2\x80\x93"
							   "1 ms",
							   "1\xE2\x80\x93"
							   "10 ms",
							   "\xE2\x89\xA5"
							   "10 ms"};
	uint64_t counts[HTML_HIST_BINS][GS_CAUSE_COUNT], max = 0;
	const int W = 620, H = 190, left = 50, bottom = 30, bw = 70;
	int b, c;

	html_gap_histogram(res, counts);
	for (b = 0; b < HTML_HIST_BINS; b++) {
		uint64_t s = 0;
		for (c = 0; c < GS_CAUSE_COUNT; c++)
			s += counts[b][c];
		if (s > max)
			max = s;
	}
	fputs("<h3>Idle gaps by duration and cause</h3>\n", f);
	if (max == 0) {
		fputs("<p class=\"hint\">no idle gaps</p>\n", f);
		return;
	}
	fprintf(f,
		"<svg class=\"hist\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-size=\"11\">\n",
		W, H, W, H);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", left,
		H - bottom, W - 10, H - bottom);
	fprintf(f, "<text x=\"4\" y=\"14\" fill=\"#555\">gaps (max %" PRIu64 ")</text>\n", max);
	for (b = 0; b < HTML_HIST_BINS; b++) {
		double y = H - bottom;
		uint64_t total = 0;
		int x = left + 8 + b * (bw + 8);
		for (c = 0; c < GS_CAUSE_COUNT; c++) {
			/* 36 px headroom: the tallest bar's count stays below the title */
			double h = (double)counts[b][c] * (H - bottom - 36) / (double)max;
			total += counts[b][c];
			if (!counts[b][c])
				continue;
			y -= h;
			fprintf(
			    f,
			    "<rect class=\"bar\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
			    "fill=\"%s\"><title>%s: %" PRIu64 "</title></rect>\n",
			    x, y, bw, h, cause_colors[c], gs_cause_name(c), counts[b][c]);
		}
		if (total)
			fprintf(f,
				"<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\">%" PRIu64
				"</text>\n",
				x + bw / 2, y - 3, total);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x + bw / 2,
			H - bottom + 14, labels[b]);
	}
	fputs("</svg>\n<div class=\"legend\">", f);
	for (c = 0; c < GS_CAUSE_COUNT; c++)
		fprintf(f, "<span><span class=\"sw\" style=\"background:%s\"></span>%s</span>",
			cause_colors[c], gs_cause_name(c));
	fputs("</div>\n", f);
}

/* ---- tables ---------------------------------------------------------- */

static void write_top_gaps(FILE *f, const struct html_run *r)
{
	const struct gs_input *in = r->in;
	size_t d, i;
	int64_t t0 = html_origin(in);
	char seg[1024];

	for (d = 0; d < r->res->n_devices; d++) {
		const struct gs_device_result *dv = &r->res->devices[d];
		if (!dv->n_top)
			continue;
		/* a capture trace's gap is named by its capture window and the
		 * time from that window's start, as the text report does: a
		 * time from t0 would count the unrecorded time between windows */
		fprintf(f,
			"<h3>Largest idle gaps, GPU %d</h3>\n<table><tr><th>%s</th><th>idle</th>"
			"<th class=\"tag\">cause</th><th class=\"name\">next GPU op</th>"
			"<th class=\"name\">what held it back</th></tr>\n",
			dv->device,
			in->capture_range ? "capture window, time from its start" : "start");
		for (i = 0; i < dv->n_top; i++) {
			const struct gs_gap *g = &dv->gaps[dv->top_gaps[i]];
			const struct gs_op *op = &in->ops[g->op_idx];
			int64_t off = 0;
			size_t win = gs_capture_window_at(in, g->start, &off);
			fputs("<tr><td>", f);
			if (win) {
				fprintf(f, "in window %zu at +", win);
				put_ns(f, off);
			} else if (in->capture_range) {
				/* none holds it (the report's fallback): the
				 * recorded time from the device window's start */
				fputs("at +", f);
				put_ns(f, gs_capture_overlap(in, dv->tl.first, g->start));
			} else {
				put_ns(f, g->start - t0);
			}
			fputs("</td><td>", f);
			put_ns(f, g->end - g->start);
			fprintf(f,
				"</td><td class=\"tag\"><span class=\"sw\" style=\"background:%s\">"
				"</span>%s</td><td class=\"name\">",
				cause_colors[g->cause % GS_CAUSE_COUNT], gs_cause_name(g->cause));
			if (op->kind == GS_OP_KERNEL)
				html_escape_kernel(f, str(in, op->name_id, "(kernel)"));
			else
				fputs(op->kind == GS_OP_MEMCPY	 ? "memcpy"
				      : op->kind == GS_OP_MEMSET ? "memset"
								 : "graph run",
				      f);
			/* gap model v2: what held the op back, segment by segment
			 * (the sentence of the text report and the tooltips) */
			gap_segments_text(seg, sizeof(seg), in, r->res, g);
			fputs("</td><td class=\"name\">", f);
			html_escape(f, seg);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static void write_kernels(FILE *f, const struct html_run *r, size_t top)
{
	const struct gs_result *res = r->res;
	int64_t busy = 0;
	size_t i, d;

	if (!res->n_kernels)
		return;
	/* held at 2^63-1: two devices busy 2^62 ns each overflowed (UBSan) */
	for (d = 0; d < res->n_devices; d++)
		busy = gs_sat_add(busy, res->devices[d].tl.busy);
	fprintf(f, "<h3>Top kernels by GPU time</h3>\n<p class=\"hint\">%" PRIu64 " kernels",
		res->n_kernel_ops);
	if (res->n_launched_kernels == res->n_kernel_ops)
		fprintf(f, "; %.1f%% shorter", res->short_kernel_share * 100.0);
	else if (res->n_launched_kernels)
		fprintf(f,
			", %" PRIu64 " of them in graph replays; %.1f%% of the %" PRIu64
			" launched one by one shorter",
			res->n_kernel_ops - res->n_launched_kernels,
			res->short_kernel_share * 100.0, res->n_launched_kernels);
	if (res->n_launched_kernels) {
		fprintf(f, " than one launch (%s",
			res->launch_cost_measured ? "measured " : "assumed ");
		put_ns(f, res->launch_cost_ns);
		fputc(')', f);
	} else {
		fputs(", all in graph replays (no launch call each)", f);
	}
	fputs("</p>\n<table><tr><th class=\"name\">kernel</th><th>count</th><th>total</th>"
	      "<th>median</th><th>share of GPU busy</th></tr>\n",
	      f);
	for (i = 0; i < res->n_kernels && i < top; i++) {
		const struct gs_kernel_stat *k = &res->kernels[i];
		fputs("<tr><td class=\"name\">", f);
		html_escape_kernel(f, str(r->in, k->name_id, "(unnamed)"));
		fprintf(f, "</td><td>%" PRIu64 "</td><td>", k->count);
		put_ns(f, k->total);
		fputs("</td><td>", f);
		put_ns(f, k->p50);
		fputs("</td><td>", f);
		put_pct(f, busy > 0 ? (double)k->total / (double)busy : 0.0);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void put_dist(FILE *f, const struct gs_dist *d)
{
	fputs("<td>", f);
	put_ns(f, d->p50);
	fputs("</td><td>", f);
	put_ns(f, d->p90);
	fputs("</td><td>", f);
	put_ns(f, d->p99);
	fputs("</td>", f);
}

static void write_launches(FILE *f, const struct html_run *r)
{
	const struct gs_result *res = r->res;
	size_t i;

	if (!res->n_launches)
		return;
	fputs("<h3>Launches</h3>\n<table><tr><th class=\"name\">API</th><th>calls</th>"
	      "<th>API p50</th><th>p90</th><th>p99</th><th>queue p50</th><th>p90</th>"
	      "<th>p99</th><th>delay p50</th><th>p90</th><th>p99</th></tr>\n",
	      f);
	for (i = 0; i < res->n_launches; i++) {
		const struct gs_launch_stat *l = &res->launches[i];
		fputs("<tr><td class=\"name\">", f);
		html_escape(f, str(r->in, l->name_id, "(unnamed)"));
		fprintf(f, "</td><td>%" PRIu64 "</td>", l->api_dur.n);
		put_dist(f, &l->api_dur);
		put_dist(f, &l->queue);
		put_dist(f, &l->delay);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<p class=\"hint\">API: host time of the call; queue: call end to GPU "
	      "start; delay: call start to GPU start.</p>\n",
	      f);
}

static void write_syncs(FILE *f, const struct html_run *r)
{
	const struct gs_result *res = r->res;
	size_t i;

	struct gs_site_stat *sites = NULL;
	size_t n_sites;
	char site[512];

	if (!res->n_syncs)
		return;
	/* out of memory: the table without sites */
	n_sites = gs_site_stats(res, &sites);
	if (n_sites == (size_t)-1)
		n_sites = 0;
	fputs("<h3>Synchronisations</h3>\n<table><tr><th class=\"name\">type</th>"
	      "<th class=\"name\">API</th><th class=\"name\">why</th>"
	      "<th class=\"name\">call site</th><th>count</th>"
	      "<th>host blocked</th><th>GPU idle caused</th><th>gaps</th></tr>\n",
	      f);
	for (i = 0; i < res->n_syncs; i++) {
		const struct gs_sync_group *s = &res->syncs[i];
		/* the API's top site, as the text report's "at" line */
		const struct gs_site_stat *st = report_top_site(sites, n_sites, s->api_name_id);
		fprintf(f, "<tr><td class=\"name\">%s %s</td><td class=\"name\">",
			s->implicit ? "implicit" : "explicit", gs_sync_kind_name(s->kind));
		html_escape(f, str(r->in, s->api_name_id, ""));
		fputs("</td><td class=\"name\">", f);
		html_escape(f, str(r->in, s->reason_id, ""));
		fputs("</td><td class=\"name\">", f);
		if (st) {
			report_site_text(site, sizeof(site), r->in, st->site);
			html_escape(f, site);
			fprintf(f, " (%" PRIu64 " call%s, ", st->calls, st->calls == 1 ? "" : "s");
			put_ns(f, st->sync_idle_ns);
			fputs(" GPU idle)", f);
		}
		fprintf(f, "</td><td>%" PRIu64 "</td><td>", s->count);
		put_ns(f, s->blocked_ns);
		fputs("</td><td>", f);
		put_ns(f, s->gpu_idle_ns);
		fprintf(f, "</td><td>%" PRIu64 "</td></tr>\n", s->n_gaps);
	}
	fputs("</table>\n", f);
	free(sites);
}

/* "</td><td>" then the untraced median (range), and traced and corrected
 * against it, for one NVTX range text */
static void write_untraced(FILE *f, const struct gs_reference_range *g)
{
	fputs("</td><td>", f);
	if (g->runs == 0) {
		fputs("-</td><td>-</td><td>-", f);
		return;
	}
	put_ns(f, g->untraced);
	fputs(" (", f);
	put_ns(f, g->min);
	fputs(" - ", f);
	put_ns(f, g->max);
	fprintf(f, ")%s</td><td>", g->count_differs ? " *" : "");
	if (g->have_errors)
		fprintf(f, "%+.1f%%", 100.0 * g->traced_error);
	fputs("</td><td>", f);
	if (g->have_errors && g->have_corrected)
		fprintf(f, "%+.1f%%", 100.0 * g->corrected_error);
	else
		fputs("-", f);
}

static void write_nvtx(FILE *f, const struct html_run *r, size_t top)
{
	const struct gs_result *res = r->res;
	/* the corrected wall beside the measured one, and the untraced
	 * reference runs' median wall, as in the text report */
	int corr = r->corr && r->corr->n_ranges == res->n_nvtx;
	int ref = r->ref && r->ref->n_ranges == res->n_nvtx;
	size_t i;

	if (!res->n_nvtx)
		return;
	fprintf(f,
		"<h3>NVTX ranges</h3>\n<table><tr><th class=\"name\">range</th><th>count</th>"
		"<th>wall</th>%s%s<th>GPU busy</th><th>busy share</th>%s%s</tr>\n",
		corr ? "<th>corrected</th>" : "",
		ref ? "<th>untraced (median of the reference runs)</th><th>traced vs "
		      "untraced</th><th>corrected vs untraced</th>"
		    : "",
		corr ? "<th>busy share, corrected</th>" : "",
		ref ? "<th>GPU busy over the untraced wall</th>" : "");
	for (i = 0; i < res->n_nvtx && i < top; i++) {
		const struct gs_nvtx_stat *n = &res->nvtx[i];
		fputs("<tr><td class=\"name\">", f);
		html_escape(f, str(r->in, n->text_id, "(unnamed)"));
		fprintf(f, "</td><td>%" PRIu64 "</td><td>", n->count);
		put_ns(f, n->wall);
		if (corr) {
			fputs("</td><td>", f);
			put_ns(f, r->corr->ranges[i].corrected);
		}
		if (ref)
			write_untraced(f, &r->ref->ranges[i]);
		fputs("</td><td>", f);
		put_ns(f, n->gpu_busy);
		fputs("</td><td>", f);
		put_pct(f, n->busy_share);
		if (corr) {
			fputs("</td><td>", f);
			put_pct(f, r->corr->ranges[i].busy_share);
		}
		if (ref) {
			const struct gs_reference_range *g = &r->ref->ranges[i];
			fputs("</td><td>", f);
			if (g->have_errors)
				put_pct(f, g->busy_share);
			else
				fputs("-", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (ref)
		fprintf(f,
			"<p class=\"hint\">untraced: the median over %u reference run%s "
			"(gapscope record --reference: NVTX ranges only) of each run's wall, "
			"the smallest and largest in brackets; * a run held another number of "
			"these ranges; busy over the untraced wall: GPU busy in the ranges%s "
			"over it</p>\n",
			r->ref->n_runs, r->ref->n_runs == 1 ? "" : "s", corr ? " (corrected)" : "");
	else if (corr)
		fputs("<p class=\"hint\">" REPORT_CORRECTED_WALL_NOTE "</p>\n", f);
}

static void write_advice(FILE *f, const struct html_run *r)
{
	const struct gs_result *res = r->res;
	size_t i;
	uint32_t k;

	fputs("<h3>CUDA Graph advice</h3>\n", f);
	if (!res->n_advice) {
		fputs("<p class=\"hint\">no repeated launch sequence found</p>\n", f);
		return;
	}
	fputs("<table><tr><th>GPU</th><th>stream</th><th class=\"name\">sequence</th>"
	      "<th>ops</th><th>times</th><th>measured</th><th>launch idle</th>"
	      "<th>graph estimate</th><th>saving</th><th class=\"name\">advice</th></tr>\n",
	      f);
	for (i = 0; i < res->n_advice; i++) {
		const struct gs_graph_advice *a = &res->advice[i];
		fprintf(f, "<tr><td>%d</td><td>%" PRIu32 "</td><td class=\"name\">", a->device,
			a->stream);
		for (k = 0; k < a->length && k < 6; k++) {
			if (k)
				fputs(" \xE2\x86\x92 ", f);
			if (a->kinds && a->kinds[k] != GS_OP_KERNEL)
				fputs(a->kinds[k] == GS_OP_MEMCPY   ? "memcpy"
				      : a->kinds[k] == GS_OP_MEMSET ? "memset"
								    : "graph run",
				      f);
			else
				html_escape(f, str(r->in, a->names ? a->names[k] : 0, "(kernel)"));
		}
		if (a->length > 6)
			fprintf(f, " \xE2\x86\x92 \xE2\x80\xA6 (%" PRIu32 " more)", a->length - 6);
		fprintf(f, "</td><td>%" PRIu32 "</td><td>%" PRIu64 "</td><td>", a->length,
			a->count);
		put_ns(f, a->measured);
		fputs("</td><td>", f);
		put_ns(f, a->launch_idle);
		fputs("</td><td>", f);
		put_ns(f, a->estimate);
		fputs("</td><td>", f);
		put_ns(f, a->saving);
		fputs(" (", f);
		put_pct(f, a->saving_share);
		fprintf(f, ")</td><td class=\"name\">%s</td></tr>\n",
			!a->advise ? "little to gain"
			: gs_verdict_comm_share(r->verdict) >= GS_COMM_BOUND_SHARE
			    ? "<span class=\"advice\">capture as a CUDA Graph</span>, but the step is "
			      "collective-bound: overlap communication first"
			    : "<span class=\"advice\">capture as a CUDA Graph</span>");
	}
	fprintf(f, "</table>\n<p class=\"hint\">estimate: op time + ");
	put_ns(f, res->graph_node_overhead_ns);
	fprintf(f, " per graph node (%s).</p>\n",
		res->graph_node_overhead_source == 2   ? "measured in this trace"
		: res->graph_node_overhead_source == 1 ? "given option"
						       : "default");
}

/* 1 when the run holds graph runs (schema v2 graph-level recording). */
static int has_graph_runs(const struct gs_input *in)
{
	for (size_t i = 0; i < in->n_ops; i++)
		if (in->ops[i].kind == GS_OP_GRAPH_RUN)
			return 1;
	return 0;
}

static void write_timeline(FILE *f, int idx, const char *range, int graph_runs, int capture)
{
	int c;

	fputs("<div class=\"legend\"><span><span class=\"sw\" style=\"background:#4c78a8\">"
	      "</span>kernel</span><span><span class=\"sw\" style=\"background:#f58518\"></span>"
	      "memcpy</span><span><span class=\"sw\" style=\"background:#54a24b\"></span>"
	      "memset</span>",
	      f);
	/* page.js's OP_COLORS[3]; only where the trace has graph runs */
	if (graph_runs)
		fputs("<span><span class=\"sw\" style=\"background:#a0c4e8\"></span>"
		      "graph run</span>",
		      f);
	fputs("<span><span class=\"sw\" style=\"background:#9aa5b8\"></span>"
	      "CUDA API</span><span><span class=\"sw\" style=\"background:#9467bd\"></span>"
	      "sync</span><span><span class=\"sw\" style=\"background:#17becf\"></span>NVTX</span>",
	      f);
	for (c = 0; c < GS_CAUSE_COUNT; c++)
		fprintf(f,
			"<span><span class=\"sw\" style=\"background:%s\"></span>idle: %s</span>",
			cause_colors[c], gs_cause_name(c));
	/* page.js hatches the time outside the capture windows the same way
	 * (class "unrec", pattern in page.css's colours) */
	if (capture)
		fputs("<span class=\"unrec-key\"><span class=\"sw unrec\"></span>"
		      "not recorded (outside the capture windows)</span>",
		      f);
	fprintf(
	    f,
	    "</div>\n<div class=\"timeline\" data-run=\"%d\"><svg></svg></div>\n"
	    "<p class=\"hint\">Opens on %s; double-click: the whole trace (from the "
	    "first recorded call, CUDA initialisation included) and back. Wheel: zoom; drag: pan; "
	    "hover: details; click an idle gap: why. Events narrower than a pixel are "
	    "merged per pixel column.%s</p>\n<div class=\"explain\" id=\"explain-%d\"></div>\n",
	    idx, range ? "the selected NVTX ranges" : "the GPU window (first to last GPU op)",
	    capture ? " Hatched: time outside the capture windows (record --capture-range), "
		      "where nothing was recorded: no idle GPU, and no figure counts it."
		    : "",
	    idx);
}

static void write_details(FILE *f, const struct html_run *r)
{
	write_histogram(f, r->res);
	write_top_gaps(f, r);
	write_kernels(f, r, 25);
	write_launches(f, r);
	write_syncs(f, r);
	write_nvtx(f, r, 25);
	write_advice(f, r);
	html_write_graphs(f, r->t, 4);
}

/* ---- the comparison table --------------------------------------------- */

static void diff_row(FILE *f, const char *label, double b, double a, int kind, int lower_better)
{
	double r = diff_rel(b, a);
	int better = lower_better ? a < b : a > b;

	fprintf(f, "<tr><td class=\"name\">%s</td><td>", label);
	if (kind == 0) {
		put_ns(f, (int64_t)b);
		fputs("</td><td>", f);
		put_ns(f, (int64_t)a);
		fputs("</td><td>", f);
		if (a > b)
			putc('+', f);
		put_ns(f, (int64_t)(a - b));
	} else if (kind == 1) {
		fprintf(f, "%.0f</td><td>%.0f</td><td>%+.0f", b, a, a - b);
	} else {
		fprintf(f, "%.1f%%</td><td>%.1f%%</td><td>%+.1f pt", b * 100, a * 100,
			(a - b) * 100);
	}
	/* lower_better < 0: neither direction is good in itself (GPU busy
	 * falls when kernels get faster and when work is removed) */
	fprintf(f, "</td><td class=\"%s\">",
		a == b || lower_better < 0 ? ""
		: better		   ? "better"
					   : "worse");
	if (isnan(r))
		fputs(a == b ? "=" : "new", f);
	else
		fprintf(f, "%+.1f%%", r * 100);
	fputs("</td></tr>\n", f);
}

static void write_diff(FILE *f, const struct diff_result *d, const struct html_run runs[2])
{
	const struct run_totals *b = &d->run[0], *a = &d->run[1];
	const char *wall = "wall time (GPU span)";
	size_t i, c;

	if (b->range_applied && a->range_applied)
		wall = "wall time (selected ranges)";
	else if (b->range_applied || a->range_applied)
		wall = "wall time (selected ranges, else GPU span)";

	fputs("<h2>What changed</h2>\n<table><tr><th class=\"name\"></th><th>before</th>"
	      "<th>after</th><th>change</th><th>relative</th></tr>\n",
	      f);
	diff_row(f, wall, (double)b->wall, (double)a->wall, 0, 1);
	diff_row(f, "GPU busy", (double)b->busy, (double)a->busy, 0, -1);
	diff_row(f, "GPU utilisation", b->utilisation, a->utilisation, 2, 0);
	if (b->corrected && a->corrected)
		diff_row(f, "&nbsp;&nbsp;corrected for tracing", b->corrected_utilisation,
			 a->corrected_utilisation, 2, 0);
	diff_row(f, "launch overhead share", b->launch_overhead_share, a->launch_overhead_share, 2,
		 1);
	diff_row(f, "host code share", b->host_code_share, a->host_code_share, 2, 1);
	diff_row(f, "GPU idle", (double)b->idle, (double)a->idle, 0, 1);
	for (c = 0; c < GS_CAUSE_COUNT; c++) {
		char label[64];
		snprintf(label, sizeof(label), "&nbsp;&nbsp;idle %s", gs_cause_name((int)c));
		diff_row(f, label, (double)b->idle_by_cause[c], (double)a->idle_by_cause[c], 0, 1);
	}
	diff_row(f, "idle gaps", (double)b->gaps, (double)a->gaps, 1, 1);
	diff_row(f, "launch calls", (double)b->launches, (double)a->launches, 1, 1);
	diff_row(f, "kernels", (double)b->kernels, (double)a->kernels, 1, 1);
	fputs("</table>\n", f);

	if (d->n_findings) {
		/* the verdicts' findings (diff_findings): "-" where one did not fire */
		fputs("<h3>Verdict findings</h3>\n<table><tr><th class=\"name\">finding</th>"
		      "<th>GPU idle before</th><th>after</th></tr>\n",
		      f);
		for (i = 0; i < d->n_findings; i++) {
			const struct diff_finding *x = &d->findings[i];
			fputs("<tr><td class=\"name\">", f);
			html_escape(f, gs_rule_title(x->rule));
			if (x->api) {
				fputs(", ", f);
				html_escape(f, x->api);
			}
			fputs("</td><td>", f);
			if (x->cost[0])
				put_ns(f, x->cost[0]);
			else
				fputs("-", f);
			fputs("</td><td>", f);
			if (x->cost[1])
				put_ns(f, x->cost[1]);
			else
				fputs("-", f);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}

	if (d->n_kernels) {
		fputs("<h3>Kernels, matched by name</h3>\n<table><tr><th class=\"name\">kernel</th>"
		      "<th>count before</th><th>after</th><th>total before</th><th>after</th>"
		      "<th>relative</th></tr>\n",
		      f);
		for (i = 0; i < d->n_kernels && i < 25; i++) {
			const struct diff_kernel *k = &d->kernels[i];
			double r = diff_rel((double)k->total[0], (double)k->total[1]);
			fputs("<tr><td class=\"name\">", f);
			html_escape_kernel(f, k->name);
			fprintf(f, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>", k->count[0],
				k->count[1]);
			put_ns(f, k->total[0]);
			fputs("</td><td>", f);
			put_ns(f, k->total[1]);
			if (isnan(r))
				fprintf(f, "</td><td>%s</td></tr>\n", k->total[1] ? "new" : "=");
			else
				fprintf(f, "</td><td>%+.1f%%</td></tr>\n", r * 100);
		}
		fputs("</table>\n", f);
	}
	for (i = 0, c = 0; i < d->n_nvtx; i++)
		c += !diff_nvtx_is_selection(d->nvtx[i].name, runs[0].range, runs[1].range);
	if (c) {
		fputs("<h3>NVTX ranges, matched by name</h3>\n<table><tr><th "
		      "class=\"name\">range</th>"
		      "<th>count before</th><th>after</th><th>wall before</th><th>after</th>"
		      "<th>relative</th><th>GPU busy before</th><th>after</th></tr>\n",
		      f);
		for (i = 0, c = 0; i < d->n_nvtx && c < 25; i++) {
			const struct diff_nvtx *n = &d->nvtx[i];
			double r = diff_rel((double)n->wall[0], (double)n->wall[1]);
			if (diff_nvtx_is_selection(n->name, runs[0].range, runs[1].range))
				continue;
			c++;
			fputs("<tr><td class=\"name\">", f);
			html_escape(f, n->name);
			fprintf(f, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>", n->count[0],
				n->count[1]);
			put_ns(f, n->wall[0]);
			fputs("</td><td>", f);
			put_ns(f, n->wall[1]);
			if (isnan(r))
				fputs("</td><td>new", f);
			else
				fprintf(f, "</td><td>%+.1f%%", r * 100);
			fputs("</td><td>", f);
			put_pct(f, n->busy_share[0]);
			fputs("</td><td>", f);
			put_pct(f, n->busy_share[1]);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

/* ---- the page ---------------------------------------------------------- */

int render_html(FILE *f, const struct html_run *runs, size_t nruns, const struct diff_result *d,
		char *err, size_t errlen)
{
	static const char *const roles[2] = {"Before", "After"};
	size_t i;

	if (nruns < 1 || nruns > 2 || (nruns == 2 && !d)) {
		snprintf(err, errlen, "one or two runs");
		return -1;
	}

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"gapscope " GAPSCOPE_VERSION "\">\n"
	      /* no network: forbid every fetch, allow only the inline style/script */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n<title>",
	      f);
	if (nruns == 2) {
		fputs("gapscope: ", f);
		put_run_label(f, &runs[0]);
		fputs(" vs ", f);
		put_run_label(f, &runs[1]);
	} else {
		fputs("gapscope: ", f);
		put_run_label(f, &runs[0]);
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body data-status=\"loading\">\n",
		html_page_css);
	fputs("<h1>gapscope \xE2\x80\x94 where the GPU waited, and why</h1>\n", f);

	if (nruns == 2)
		write_diff(f, d, runs);
	fputs(nruns == 2 ? "<div class=\"runs\">\n" : "", f);
	for (i = 0; i < nruns; i++) {
		fputs("<section>\n", f);
		write_run_header(f, &runs[i], nruns == 2 ? roles[i] : NULL);
		write_verdict(f, &runs[i]);
		write_cards(f, &runs[i], runs[i].totals, nruns == 2 && i == 1 ? runs[0].totals : NULL);
		fputs("</section>\n", f);
	}
	fputs(nruns == 2 ? "</div>\n" : "", f);

	for (i = 0; i < nruns; i++) {
		fputs("<h2>Timeline", f);
		if (nruns == 2) {
			fprintf(f, " \xE2\x80\x94 %s: ", roles[i]);
			put_run_label(f, &runs[i]);
		}
		fputs("</h2>\n", f);
		write_timeline(f, (int)i, runs[i].range, has_graph_runs(runs[i].in),
			       runs[i].in->capture_range != NULL);
	}

	fputs(nruns == 2 ? "<div class=\"runs\">\n" : "", f);
	for (i = 0; i < nruns; i++) {
		fputs("<section>\n", f);
		if (nruns == 2) {
			fprintf(f, "<h2>%s: ", roles[i]);
			put_run_label(f, &runs[i]);
			fputs("</h2>\n", f);
		} else {
			fputs("<h2>Details</h2>\n", f);
		}
		write_details(f, &runs[i]);
		fputs("</section>\n", f);
	}
	fputs(nruns == 2 ? "</div>\n" : "", f);

	for (i = 0; i < nruns; i++)
		if (html_write_data(f, &runs[i], (int)i)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", html_page_js);
	if (fflush(f) != 0 || ferror(f)) {
		snprintf(err, errlen, "write error");
		return -1;
	}
	return 0;
}
