/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * report_text.c - the terminal back end of `gapscope report`: formats a
 * struct gs_result as aligned plain text. Durations are scaled to ns/us/ms/s;
 * shares are percent of the window they belong to. Strings from the trace
 * (kernel names, NVTX text) are printed whole - templates and all - with
 * only control characters escaped (\xNN), so a name cannot move the
 * terminal's cursor or be mistaken for two lines. It computes nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "term.h"
#include "whatif.h"

/* "850 ns", "12.345 us", "1.234 ms", "2.500 s" (gap_dur, shared with the
 * gap sentences) */
static const char *dur(char *b, size_t n, int64_t ns)
{
	gap_dur(b, n, ns);
	return b;
}

#define D(ns) dur((char[32]){0}, 32, (ns))

static void put_escaped(FILE *f, const char *s)
{
	term_put(f, s); /* C0 and C1 controls escaped (term.h) */
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static void verdict_lines(struct report_ctx *r);

/* CUPTI's own stalls and the collector's call-site captures on the
 * program's threads, each where they took 0.5% of the longest device window
 * or more: what the program paid for them, and for captures the cheaper
 * ways (docs/report.md, "Call-site captures") */
/* "<n> <unit>, p50 <d>, <share>% of the window" of a span note */
static void span_figures(struct report_ctx *r, const struct gs_capture_cost *cc, int64_t window,
			 const char *unit)
{
	fprintf(r->out, "%lld %s, p50 %s, %.1f%% of the window", (long long)cc->n, unit,
		D(cc->p50_ns), pct(cc->total_ns, window));
}

static void capture_note(struct report_ctx *r)
{
	struct gs_capture_cost cc;
	int64_t window;

	if (gs_span_note(r->in->stalls, r->in->n_stalls, r->res, &cc, &window)) {
		fprintf(r->out,
			"note: CUPTI's own work on the program's threads (activity buffer "
			"requests, buffer flushes, instrumentation) took %s: ",
			D(cc.total_ns));
		span_figures(r, &cc, window, "spans");
		fprintf(r->out, "; %s\n", gs_span_correction(r->corr != NULL, 0));
	}
	if (!gs_span_note(r->in->captures, r->in->n_captures, r->res, &cc, &window))
		return;
	fprintf(r->out,
		"note: the collector's call-site captures (the stacks of blocking calls) took "
		"%s in the program's threads: ",
		D(cc.total_ns));
	span_figures(r, &cc, window, "captures");
	/* where every stack held Python frames no native walk ran: the
	 * unwinder and its advice say nothing then (H100, GPT-2 generate with
	 * GAPSCOPE_NATIVE_FRAMES=auto: 14 us a capture, all of it Python's) */
	if (!r->in->n_native_captures)
		fputs(", Python frames only (no native walk)", r->out);
	else if (r->in->unwinder) {
		fputs(", with ", r->out);
		put_escaped(r->out, r->in->unwinder);
		fputs("'s unwinder", r->out);
	}
	fprintf(r->out, "; %s. ", gs_span_correction(r->corr != NULL, 1));
	if (r->in->n_native_captures && r->in->unwinder && !strcmp(r->in->unwinder, "libgcc"))
		fputs("libunwind (Debian: libunwind8) takes 10-18x less a capture; ", r->out);
	fputs("--no-callsites records none\n", r->out);
}

/* A trace recorded with --capture-range: one line saying that only the
 * capture windows were recorded and that the time between them is not
 * read (as idle GPU or anything else); a note each on what the collector
 * dropped and on the damaged rows the reader skipped. */
static void capture_line(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	FILE *f = r->out;

	if (!strcmp(r->in->capture_range, "cudaProfilerApi")) {
		fputs("capture: only the program's cudaProfilerStart..cudaProfilerStop spans were "
		      "recorded",
		      f);
	} else {
		fputs("capture: only the spans of --capture-range ", f);
		put_escaped(f, r->in->capture_range);
		fputs(" were recorded", f);
	}
	fprintf(f, ": %llu window%s, %s in all; time outside them is not analysed",
		(unsigned long long)res->capture_windows, res->capture_windows == 1 ? "" : "s",
		D(res->capture_ns));
	fputc('\n', f);
	if (r->in->capture_dropped)
		fprintf(f,
			"note: the program started tracing %llu more time%s, past the collector's "
			"65,536 windows; %s not recorded (meta capture.starts_skipped)\n",
			(unsigned long long)r->in->capture_dropped,
			r->in->capture_dropped == 1 ? "" : "s",
			r->in->capture_dropped == 1 ? "that span was" : "those spans were");
	if (r->in->capture_damaged)
		fprintf(f,
			"note: %llu damaged capture_windows row%s skipped (a NULL time or end "
			"before start)\n",
			(unsigned long long)r->in->capture_damaged,
			r->in->capture_damaged == 1 ? "" : "s");
}

/* the text back end's state (t_end says why it writes to memory first) */
struct tstate {
	FILE *real; /* where the report goes */
	char *buf;  /* open_memstream's */
	size_t len;
};

static int t_begin(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	FILE *f;

	if (!r->full_names) {
		struct tstate *t = calloc(1, sizeof(*t));
		FILE *m;
		if (!t)
			return -1;
		m = open_memstream(&t->buf, &t->len);
		if (!m) {
			free(t);
			return -1;
		}
		t->real = r->out;
		r->out = m;
		r->priv = t;
	}
	f = r->out;

	fprintf(f, "gapscope report: ");
	put_escaped(f, r->path);
	fputc('\n', f);
	if (res->capture)
		capture_line(r);
	if (res->range_applied) {
		fprintf(f, "selection: NVTX ranges named \"");
		put_escaped(f, r->opt->range_name);
		if (res->range_matches == 0) {
			fprintf(f, "\": none in this trace - nothing to report.\n");
			return 0;
		}
		fputc('"', f);
		if (res->range_skipped)
			fprintf(f, ", the first %llu left out (--skip)",
				(unsigned long long)res->range_skipped);
		fprintf(f, ": %llu range%s, %s in all%s\n", (unsigned long long)res->range_matches,
			res->range_matches == 1 ? "" : "s", D(res->range_total),
			res->capture ? " inside the capture windows" : "");
	} else {
		fprintf(f, "selection: %s\n", res->capture ? "the capture windows" : "whole trace");
	}
	if (res->instrumented != 0) {
		fprintf(f,
			"note: %skernel durations include CUPTI's instrumentation (before "
			"Blackwell, CUPTI times kernels by instrumenting them)",
			res->instrumented < 0 ? "GPU generation unknown; " : "");
		if (res->kernel_overhead_ns > 0)
			fprintf(f, "; the measured %s per kernel is subtracted.\n",
				D(res->kernel_overhead_ns));
		else if (r->in->kernel_overhead_ns > 0)
			fprintf(f,
				"; the measured %s per kernel is NOT subtracted "
				"(--no-overhead-correction).\n",
				D(r->in->kernel_overhead_ns));
		else if (r->corr && r->corr->occupancy)
			fprintf(f,
				"; the measured figures keep it, the corrected ones count each "
				"kernel as the GPU time it takes untraced from a full queue, "
				"its switch to the next kernel included (calibrated on tiny "
				"kernels: %s recorded, %s a kernel untraced back to back; the "
				"measured figures count that switch as idle).\n",
				D(r->in->cal.tiny_kernel_ns), D(r->in->cal.plain_kernel_pitch_ns));
		else if (r->corr)
			fprintf(f,
				"; the measured figures keep it, the corrected ones take off the "
				"calibrated %s per kernel.\n",
				D(r->in->cal.kernel_ns));
		else
			fprintf(f, "; the trace holds no measured per-kernel overhead, so "
				   "nothing is subtracted.\n");
		/* graph nodes: a storing node's figure, or an empty kernel's */
		if (!res->kernel_overhead_ns && r->corr && r->corr->graph_nodes) {
			const struct gs_launch_stat *gl = gs_graph_launch_stat(res);
			if (r->in->cal.store_graph_node_ns >= 0)
				fprintf(
				    f,
				    "note: the corrected figures take %s off each of %lld graph "
				    "nodes, as calibrated on a graph of tiny kernels that store "
				    "one word, traced less untraced (H200: 210 ns; empty kernels "
				    "grow by 350)",
				    D(r->corr->graph_node_shrink_ns),
				    (long long)r->corr->graph_nodes);
			else
				fprintf(
				    f,
				    "note: the corrected figures take %s off each of %lld graph "
				    "nodes and up to %s off the idle after it, as calibrated on a "
				    "graph of empty kernels (H200: nodes of 0-10 us kernels lost "
				    "0.28-0.31 us each); corrected graph replays can read a few %% "
				    "short (H200: 1000 one-block kernels of 3.4 us a node, "
				    "2.6-5.7%%)",
				    D(r->corr->graph_node_shrink_ns),
				    (long long)r->corr->graph_nodes, D(r->in->cal.gpu_gap_ns));
			if (r->corr->occupancy && r->in->cal.plain_graph_pitch_ns > 0)
				fprintf(f,
					". A node's busy time gains the idle left before the "
					"next node of its graph, at most %s (an untraced empty "
					"node): the GPU's switch between nodes",
					D(r->in->cal.plain_graph_pitch_ns));
			if (gl && r->corr->graph_launches)
				fprintf(
				    f,
				    ". A graph launch call loses its traced duration less "
				    "the untraced one for its nodes (calibrated: %s + %s a "
				    "node): %s on average over %lld call%s that held the GPU "
				    "back (traced %s calls took %s, p50)",
				    D(r->in->cal.plain_graph_ns), D(r->in->cal.plain_graph_node_ns),
				    D(r->corr->graph_launch_shrink_ns),
				    (long long)r->corr->graph_launches,
				    r->corr->graph_launches == 1 ? "" : "s",
				    gs_str(&r->in->strings, gl->name_id, "?"), D(gl->api_dur.p50));
			else if (gl)
				fprintf(f,
					". A graph launch loses at most %s, a launch call's "
					"calibrated cost (the calibration times no graph "
					"launch), though traced %s calls took %s here (p50): "
					"where graph launches hold the GPU back, the corrected "
					"figures stay pessimistic",
					D(r->corr->graph_launch_shrink_ns),
					gs_str(&r->in->strings, gl->name_id, "?"),
					D(gl->api_dur.p50));
			fputs(".\n", f);
		}
	}
	if (r->in->graph_launches_unseen > 0)
		fprintf(f,
			"note: %lld CUDA graph launches in this trace, but none of their GPU work "
			"(traced graph-level in a layout the import did not read?): the GPU's idle "
			"time around them is not real; record with nsys --cuda-graph-trace=node\n",
			(long long)r->in->graph_launches_unseen);
	capture_note(r);
	if (r->in->torch_options) {
		fputs("note: torch.profiler ran with ", f);
		put_escaped(f, r->in->torch_options);
		fputs(": each adds host time to every operator, so host code between launches "
		      "reads longer than the program's own (profile without them to size it)\n",
		      f);
	}
	fputc('\n', f);
	verdict_lines(r);
	return 0;
}

/* ", in NVTX "<text>"" with text cut to at most `fit` bytes (and 32), at
 * a UTF-8 character, the cut marked by an ellipsis inside the quotes */
#define NVTX_MIN_SHOWN 8
#define NVTX_MAX_SHOWN 32
static void nvtx_part(char *dst, size_t cap, const char *text, size_t fit)
{
	size_t n = strlen(text), keep;

	if (fit > NVTX_MAX_SHOWN)
		fit = NVTX_MAX_SHOWN;
	if (n <= fit) {
		snprintf(dst, cap, ", in NVTX \"%s\"", text);
		return;
	}
	keep = fit > 3 ? fit - 3 : 0; /* the ellipsis is 3 bytes */
	while (keep > 0 && ((unsigned char)text[keep] & 0xc0) == 0x80)
		keep--;
	snprintf(dst, cap, ", in NVTX \"%.*s\xe2\x80\xa6\"", (int)keep, text);
}

/* The verdict's line on the window outside every NVTX range (start-up,
 * warm-up), and the --range that reports the longest ranges alone */
static void outside_line(struct report_ctx *r, const struct gs_verdict *v)
{
	char line[512], arg[4 * REPORT_RANGE_ARG_MAX + 8], out[32], in[32];
	int k;

	gap_dur(out, sizeof(out), v->outside_ns);
	gap_dur(in, sizeof(in), v->range_inside_ns);
	k = snprintf(line, sizeof(line),
		     "  %.1f%% of the window (%s) is outside every NVTX range, and counted below; ",
		     100.0 * (double)v->outside_ns / (double)v->window, out);
	if (!report_range_arg(arg, sizeof(arg), r->in, v))
		snprintf(line + k, sizeof(line) - k,
			 "--range with the text of the longest ranges (NVTX ranges, below) "
			 "selects them (%s)",
			 in);
	else if (v->range_count == 1)
		snprintf(line + k, sizeof(line) - k,
			 "--range %s selects the range of that name (%s)", arg, in);
	else
		snprintf(line + k, sizeof(line) - k,
			 "--range %s selects the %llu ranges of that name (%s)", arg,
			 (unsigned long long)v->range_count, in);
	put_escaped(r->out, line);
	fputc('\n', r->out);
}

/* The verdict's line on the run's phases, where the findings count the
 * steady state alone (gs_verdict.steady) */
static void phases_line(struct report_ctx *r, const struct gs_verdict *v)
{
	const struct gs_phases *ph = &v->phases;
	char line[512], wu[32], st[32], tl[32];

	gap_dur(wu, sizeof(wu), ph->warmup_ns);
	gap_dur(st, sizeof(st), ph->steady_ns);
	gap_dur(tl, sizeof(tl), ph->tail_ns);
	const char *stem = ph->stem_len ? ph->stem : gs_str(&r->in->strings, ph->text_id, "");
	int len = (int)(ph->stem_len ? ph->stem_len : strlen(stem));

	if (len > 40)
		len = 40;
	snprintf(line, sizeof(line),
		 "  phases (%llu steps '%.*s%s'): start-up and warm-up %s (%.1f%%, %llu step%s), "
		 "steady state %s, tail %s; other findings: share of the steady state",
		 (unsigned long long)ph->n_steps, len, stem, ph->stem_len ? "*" : "", wu,
		 100.0 * (double)ph->warmup_ns / (double)v->window,
		 (unsigned long long)ph->warmup_steps, ph->warmup_steps == 1 ? "" : "s", st, tl);
	put_escaped(r->out, line);
	fputc('\n', r->out);
}

/* The verdict's line on the selection's leading ranges that took
 * GS_LEAD_FACTOR times the median one or more (a warm-up), and the --skip
 * that leaves them out */
static void lead_line(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	char lead[32], med[32];
	unsigned long long k = (unsigned long long)res->range_lead;

	gap_dur(lead, sizeof(lead), res->range_lead_ns);
	gap_dur(med, sizeof(med), res->range_median_ns);
	if (k == 1)
		fprintf(r->out,
			"  the first of the %llu ranges took %s (%.0fx the median one, %s), ",
			(unsigned long long)res->range_matches, lead,
			(double)res->range_lead_ns / (double)res->range_median_ns, med);
	else
		fprintf(r->out,
			"  the first %llu of the %llu ranges took %s (each %dx the median one, %s, "
			"or more), ",
			k, (unsigned long long)res->range_matches, lead, GS_LEAD_FACTOR, med);
	fprintf(r->out,
		"%.1f%% of their walls: a warm-up, counted below; --skip %llu leaves %s out\n",
		100.0 * (double)res->range_lead_ns / (double)res->range_walls_ns,
		(unsigned long long)(res->range_skipped + k), k == 1 ? "it" : "them");
}

/* a saving in three significant digits: "156 us", "3.06 ms", "-12.4 us" */
static void saves_dur(char *b, size_t n, int64_t ns)
{
	double a = ns < 0 ? -(double)ns : (double)ns, v;
	const char *u;

	if (a < 1e3) {
		snprintf(b, n, "%lld ns", (long long)ns);
		return;
	}
	v = a < 1e6 ? a / 1e3 : a < 1e9 ? a / 1e6 : a / 1e9;
	u = a < 1e6 ? "us" : a < 1e9 ? "ms" : "s";
	snprintf(b, n, "%s%.*f %s", ns < 0 ? "-" : "", v < 10 ? 2 : v < 100 ? 1 : 0, v, u);
}

/* The verdict: at most 1 + GS_VERDICT_FINDINGS lines, each at most
 * VERDICT_LINE characters (names from the trace are cut to fit). */
#define VERDICT_LINE 160
static void verdict_lines(struct report_ctx *r)
{
	const struct gs_input *in = r->in;
	const struct gs_verdict *v = r->verdict;
	char line[1024], d[32];
	size_t i, k;
	int j, n = 0;

	struct gs_site_stat *sites = NULL;
	size_t n_sites;

	n_sites = gs_site_stats(r->res, &sites);
	if (n_sites == (size_t)-1)
		n_sites = 0;
	k = (size_t)snprintf(line, sizeof(line), "Verdict: GPU busy %.1f%% of %s",
			     100.0 * v->utilisation, D(v->window));
	if (r->corr && r->corr->n_devices) {
		/* the corrected figure beside the measured one: the measured
		 * one reads the traced, slower program (docs/report.md) */
		int64_t cw, cb;
		double cu = gs_corrected_total(r->corr, &cw, &cb);
		k += (size_t)snprintf(line + k, sizeof(line) - k, " (corrected %.1f%% of %s)",
				      100.0 * cu, D(cw));
	}
	k += (size_t)snprintf(line + k, sizeof(line) - k, "; idle:");
	for (j = 0; j < GS_CAUSE_COUNT && n < 3; j++) {
		int c = v->cause_order[j];
		if (!v->idle_by_cause[c])
			break;
		k += (size_t)snprintf(line + k, sizeof(line) - k, "%s %s %.1f%%", n ? "," : "",
				      gs_cause_name(c), 100.0 * (double)v->idle_by_cause[c] /
							    (double)(v->window ? v->window : 1));
		n++;
	}
	if (!n)
		k += (size_t)snprintf(line + k, sizeof(line) - k, " none");
	fprintf(r->out, "%s\n", line);
	if (v->steady)
		phases_line(r, v);
	else if (v->outside_note)
		outside_line(r, v);
	if (r->res->range_lead)
		lead_line(r);
	for (i = 0; i < v->n_findings; i++) {
		const struct gs_finding *f = &v->findings[i];
		char where[256] = "";
		size_t w = 0, room;
		int op_said = 0, site_said = 0;
		gap_dur(d, sizeof(d), f->cost_ns);
		if (f->api_name_id) {
			const struct gs_site_stat *s =
			    report_top_site(sites, n_sites, f->api_name_id);
			w += (size_t)snprintf(where + w, sizeof(where) - w, ", %.40s x%llu",
					      gs_str(&in->strings, f->api_name_id, "?"),
					      (unsigned long long)f->count);
			if (s) {
				char st[256], part[32] = "";
				report_site_text(st, sizeof(st), in, s->site);
				/* "x58, 2 at": not every call was made there */
				if (s->calls < f->count)
					snprintf(part, sizeof(part), ", %llu",
						 (unsigned long long)s->calls);
				w += (size_t)snprintf(where + w, sizeof(where) - w, "%s at %.200s",
						      part, st);
				site_said = 1;
				if (w >= sizeof(where))
					w = sizeof(where) - 1;
			}
		} else if (f->count)
			w += (size_t)snprintf(where + w, sizeof(where) - w, ", %llu %s",
					      (unsigned long long)f->count,
					      gs_rule_count_unit(f->rule, f->count));
		k = (size_t)snprintf(line, sizeof(line), "  %zu. %s: %s (%.1f%%)", i + 1,
				     gs_rule_title(f->rule), d, 100.0 * f->share);
		/* the fix always shows; the where part gives way */
		room = k + 4 + strlen(gs_finding_fix(f)) < VERDICT_LINE
			   ? VERDICT_LINE - k - 4 - strlen(gs_finding_fix(f))
			   : 0;
		/* the host operator first: it says more than the thread, which
		 * is left out where both do not fit; after a call site, which
		 * says more still, both only whole (it read "(in `main`) in …") */
		if (f->op_id && w < sizeof(where)) {
			char esc[4 * 48 + 8];
			term_str(esc, 49, gs_str(&in->strings, f->op_id, "?"));
			if (!site_said || w + 4 + strlen(esc) <= room) {
				w += (size_t)snprintf(where + w, sizeof(where) - w, " in %s", esc);
				op_said = 1;
			}
		}
		if (f->tid && w < sizeof(where) &&
		    (!(op_said || site_said) || w + 20 <= room)) /* ", thread 4294967295" */
			w += (size_t)snprintf(where + w, sizeof(where) - w, ", thread %u", f->tid);
		/* the range's text gives way first, cut inside its quotes; a
		 * range with less than NVTX_MIN_SHOWN of it left is left out
		 * (it read `in NVTX …`, naming nothing) */
		if (f->nvtx_id && !(op_said && f->nvtx_id == f->op_id) && w < sizeof(where) &&
		    w + 12 + NVTX_MIN_SHOWN <= room) /* a range the operator named already: once */
			nvtx_part(where + w, sizeof(where) - w,
				  gs_str(&in->strings, f->nvtx_id, ""), room - w - 12);
		if (strlen(where) > room) {
			/* cut at a space (else between UTF-8 characters), with
			 * room for the ellipsis that says so; the line is wrapped
			 * at 160 characters in any case: t_end */
			size_t cut = room > 2 ? room - 2 : 0, sp;
			while (cut > 0 && ((unsigned char)where[cut] & 0xc0) == 0x80)
				cut--;
			for (sp = cut; sp > 0 && where[sp] != ' '; sp--)
				;
			if (sp > cut / 2)
				cut = sp;
			/* a cut that keeps less than ", thread 1" names nothing
			 * (it read "thr \xe2\x80\xa6"): left out whole */
			if (cut < 10)
				cut = 0;
			snprintf(where + cut, sizeof(where) - cut, "%s",
				 cut ? " \xe2\x80\xa6" : "");
		}
		snprintf(line + k, sizeof(line) - k, "%s -> %s", where, gs_finding_fix(f));
		fputs("  ", r->out);
		put_escaped(r->out, line + 2);
		fputc('\n', r->out);
		/* the line under it: what the fix buys, replayed
		 * (gs_finding.saves), in three digits (an estimate), or that
		 * there is no figure (never a 0 that was not computed); then
		 * what the rule checked (trace strings in it, escaped). On a
		 * line of its own: the finding's line keeps its room for
		 * where it happened. */
		fputs("     (saves", r->out);
		if (f->saves == GS_SAVES_REPLAYED && f->saves_ns <= 0) {
			/* the replayed fix made the window no shorter (the
			 * training loop's host code: -800 us): no saving */
			char sv[32];
			saves_dur(sv, sizeof(sv), f->saves_ns);
			fprintf(r->out, ": none in the replay (%s)", sv);
		} else if (f->saves == GS_SAVES_REPLAYED) {
			char sv[32];
			saves_dur(sv, sizeof(sv), f->saves_ns);
			fprintf(r->out, " \xe2\x89\x88 %s (%.1f%%)", sv, 100.0 * f->saves_share);
		} else {
			fputs(f->saves == GS_SAVES_UNCHANGED ? ": the replay finds nothing to fix"
							     : ": not modelled",
			      r->out);
		}
		if (f->why[0]) {
			fputs("; ", r->out);
			put_escaped(r->out, f->why);
		}
		fputs(")\n", r->out);
	}
	{
		/* the savings above are each fix alone: together they need not
		 * add up (the bundled trace: 32.4 + 23.0 ms alone, 65.3 ms at
		 * once; the vLLM trace: 64.2 + 55.3 ms of an 84.5 ms window) */
		char keys[512];
		if (gs_verdict_fix_list(v, r->in ? &r->in->strings : NULL, keys, sizeof(keys)) >= 2) {
			fputs("  (each saving is its fix replayed alone, and together they need not add up:"
			      " gapscope whatif TRACE --fix ",
			      r->out);
			put_escaped(r->out, keys);
			fputs(" replays them at once)\n", r->out);
		}
	}
	if (!v->n_findings)
		fprintf(r->out, "  no rule fired (thresholds: docs/report.md, \"Verdict\")\n");
	else if (gs_verdict_untraced_note(v))
		fprintf(r->out, "  (savings replayed with tracing's cost taken off, as the corrected"
				" figures: of the untraced program)\n");
	free(sites);
}

/* --by-site, after the call sites: what ran in the host code (host_attr.c),
 * by function (samples) or host operator (an imported trace's spans) */
static void t_host_code_by_code(struct report_ctx *r)
{
	FILE *f = r->out;
	struct gs_host_attr a;
	char item[512];
	size_t i;

	if (gs_host_code_attr(r->res, &a) != 0 || a.source == GS_HOST_SRC_NONE) {
		if (r->in && !r->in->n_samples && !r->in->n_hranges)
			fprintf(f, "\nHost code by what ran: no samples in the trace (recorded "
				   "with --no-sampling, or before sampling)\n");
		else if (r->in && r->in->n_samples)
			fprintf(f,
				"\nHost code by what ran: none of the trace's %zu samples lies in "
				"the host code of the selection's gaps\n",
				r->in->n_samples);
		return;
	}
	if (a.source == GS_HOST_SRC_SAMPLES) {
		/* how much of it the threads ran, where the trace tells */
		double run = gs_host_running(r->in, &a);
		fprintf(f,
			"\nHost code by what ran (%lld samples of the launching threads in it, "
			"%.0f%% with a frame; %.0f%% the framework's dispatch",
			(long long)a.samples, pct(a.named, a.total), pct(a.framework, a.total));
		if (run >= 0.0)
			fprintf(f, "; the threads ran %.0f%% of it", 100.0 * run);
		/* off-CPU samples: the weights are time, and the waits are named */
		if (a.unit_ns)
			fprintf(f, "; off CPU %s (%.0f%%)", D(a.wait_ns), pct(a.wait_ns, a.total));
		fputs("):\n", f);
	} else
		fprintf(f,
			"\nHost code by what ran (host operator spans, their own time; %.0f%% of "
			"it inside one, %.0f%% the framework's):\n",
			pct(a.named, a.total), pct(a.framework, a.total));
	fprintf(f, "    %6s %14s  %s\n", "share",
		a.source == GS_HOST_SRC_SAMPLES && !a.unit_ns ? "samples" : "time",
		"function / operator");
	for (i = 0; i < a.n_top; i++) {
		fprintf(f, "    %5.1f%% %14s  ", pct(a.top[i].weight, a.total),
			a.source == GS_HOST_SRC_SAMPLES && !a.unit_ns
			    ? (snprintf(item, sizeof(item), "%lld", (long long)a.top[i].weight), item)
			    : D(a.top[i].weight));
		gap_host_item(item, sizeof(item), r->in, &a.top[i]);
		fputs(item, f);
		fputs(a.top[i].framework ? "  [framework]\n" : "\n", f);
	}
}

/* --by-site: GPU idle by call site, top sites first. */
static void t_by_site(struct report_ctx *r, const struct gs_site_stat *s, size_t n)
{
	FILE *f = r->out;
	char site[512];
	size_t i;

	fprintf(f, "\nGPU idle by call site (sync wait in blocking calls made there; host-late"
		   " time before launches made there):\n");
	if (!n && r->in && r->in->n_site_refs) {
		fprintf(f, "  no blocking call or late launch with a call site in the selection\n");
		return;
	}
	if (!n) {
		fprintf(f, "  no call sites recorded (GAPSCOPE_CALLSITES=0, or a trace recorded "
			   "before call sites)\n");
		return;
	}
	fprintf(f, "    %14s %14s %8s %6s  %s\n", "GPU idle", "host blocked", "calls", "gaps",
		"call site / api");
	for (i = 0; i < n && i < (size_t)r->opt->top_n; i++) {
		int64_t idle = gs_sat_add(s[i].sync_idle_ns, s[i].late_idle_ns);
		fprintf(f, "    %14s %14s %8llu %6llu  ", D(idle), D(s[i].blocked_ns),
			(unsigned long long)s[i].calls, (unsigned long long)s[i].n_gaps);
		report_site_text(site, sizeof(site), r->in, s[i].site);
		put_escaped(f, site);
		fputs(" / ", f);
		put_escaped(f, gs_str(&r->in->strings, s[i].api_name_id, "?"));
		fputc('\n', f);
	}
}

static void timeline_line(FILE *f, const struct gs_timeline *tl)
{
	fprintf(f, "window %s, busy %s (utilisation %.1f%%), idle %s, %llu op%s, %llu gap%s\n",
		D(tl->window), D(tl->busy), 100.0 * tl->utilisation, D(tl->idle),
		(unsigned long long)tl->n_ops, tl->n_ops == 1 ? "" : "s",
		(unsigned long long)tl->n_gaps, tl->n_gaps == 1 ? "" : "s");
}

static void causes_block(FILE *f, const struct gs_timeline *tl, const char *indent)
{
	int k;

	for (k = 0; k < GS_CAUSE_COUNT; k++)
		fprintf(f, "%s%-15s %14s %6.1f%% of window  %llu gap%s\n", indent, gs_cause_name(k),
			D(tl->idle_by_cause[k]), pct(tl->idle_by_cause[k], tl->window),
			(unsigned long long)tl->gaps_by_cause[k],
			tl->gaps_by_cause[k] == 1 ? "" : "s");
}

/* two streams or more with ops in the selection (a --range of one
 * stream's graph replays listed the others as rows of zeros) */
static int streams_differ(const struct gs_device_result *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->n_streams && n < 2; i++)
		n += d->streams[i].tl.n_ops > 0;
	return n > 1;
}

static int t_device(struct report_ctx *r, const struct gs_device_result *d)
{
	const struct gs_input *in = r->in;
	FILE *f = r->out;
	size_t i;

	if (r->res->range_applied && r->res->range_matches == 0)
		return 0;
	fprintf(f, "\nDevice %d: ", d->device);
	timeline_line(f, &d->tl);
	fprintf(f, "  idle by cause:\n");
	causes_block(f, &d->tl, "    ");
	fprintf(f,
		"  launch overhead share: %.1f%% of the window (launch latency + graph-internal + "
		"%s in launch calls); host code share: %.1f%%\n",
		100.0 * d->tl.launch_overhead_share, D(d->tl.launch_calls),
		100.0 * d->tl.host_code_share);
	/* from 1% of the window: a warm-up's one slow call in a long run
	 * is no news */
	if (d->tl.slow_launches &&
	    (d->tl.slow_launch_latency + d->tl.slow_launch_in_calls) * 100 >= d->tl.window)
		fprintf(f,
			"  of which %s is in or after %llu launch call%s of 1 ms or more "
			"(module loading, PTX JIT or graph upload; the longest %s)\n",
			D(d->tl.slow_launch_latency + d->tl.slow_launch_in_calls),
			(unsigned long long)d->tl.slow_launches,
			d->tl.slow_launches == 1 ? "" : "s", D(d->tl.slow_launch_max_ns));
	if (d->tl.host_stalls && d->tl.host_stall * 100 >= d->tl.window)
		fprintf(
		    f,
		    "  of the host code, %s is in %llu gap%s with 1 ms or more of it (%s in %llu "
		    "before uploads): the thread's own work, not per-launch overhead\n",
		    D(d->tl.host_stall), (unsigned long long)d->tl.host_stalls,
		    d->tl.host_stalls == 1 ? "" : "s", D(d->tl.input_stall),
		    (unsigned long long)d->tl.input_stalls);
	if (r->corr) {
		size_t k;
		for (k = 0; k < r->corr->n_devices; k++) {
			const struct gs_corrected_device *c = &r->corr->devices[k];
			if (c->device != d->device)
				continue;
			char graph[64] = "", kern[96], between[64] = "", spaced[160] = "";
			int64_t kb = r->corr->kernel_busy_ns;
			/* CUPTI's time between launch calls, as much of it as
			 * the thread left before each (in the per-call figure) */
			if (r->corr->launch_gap_ns >= 0)
				snprintf(between, sizeof(between), ", up to %s of it between calls",
					 D(r->corr->launch_gap_ns));
			/* launch calls after the program's own work: against the
			 * calibration's launch after host work */
			if (r->corr->spaced_calls && r->corr->program_spaced_ns > 0)
				snprintf(spaced, sizeof(spaced),
					 ", %llu" REPORT_SPACED_AFTER REPORT_SPACED_PROGRAM
					 "%s" REPORT_SPACED_REFS "%s)",
					 (unsigned long long)r->corr->spaced_calls,
					 D(r->corr->program_spaced_ns),
					 D(r->corr->plain_spaced_ns));
			else if (r->corr->spaced_calls)
				snprintf(spaced, sizeof(spaced),
					 ", %llu" REPORT_SPACED_AFTER REPORT_SPACED_CAL,
					 (unsigned long long)r->corr->spaced_calls);
			if (r->corr->graph_launches)
				snprintf(graph, sizeof(graph), ", %s per graph launch call",
					 D(r->corr->graph_launch_shrink_ns));
			/* a kernel's busy time loses CUPTI's instrumentation, or
			 * (occupancy) is taken as untraced from a full queue,
			 * which can add the GPU's switch to the next kernel */
			if (r->corr->occupancy)
				snprintf(kern, sizeof(kern), "%s%s per kernel as untraced GPU time",
					 kb > 0 ? "-" : "+", D(kb > 0 ? kb : -kb));
			else
				snprintf(kern, sizeof(kern), "%s per kernel",
					 D(r->in->cal.kernel_ns));
			fprintf(f,
				"  corrected for the collector's overhead (%s: %s per launch "
				"call%s%s%s, %s): window %s, utilisation %.1f%%, idle %s, "
				"launch overhead share %.1f%% (idle gaps -%s, kernels %s%s; "
				"--no-overhead-correction to hide)\n",
				gs_corrected_basis(r->corr), D(r->corr->per_call_ns), between,
				spaced, graph, kern, D(c->window), 100.0 * c->utilisation,
				D(c->idle), 100.0 * c->launch_overhead_share, D(c->idle_removed),
				c->busy_removed >= 0 ? "-" : "+",
				D(c->busy_removed >= 0 ? c->busy_removed : -c->busy_removed));
		}
		/* once, under the first device's */
		if (d == r->res->devices && gs_corrected_slow_process(r->corr)) {
			int64_t base = gs_corrected_slow_base(r->corr);
			int known = r->corr->program_spaced_ns > 0; /* from reference runs */
			fprintf(f, "  " REPORT_SLOW_PROCESS_HEAD "%s%s%s%s (%.2fx)%s%s\n",
				D(r->corr->spaced_record_p50_ns),
				known ? " against " : REPORT_SLOW_PROCESS_MID, D(base),
				known ? REPORT_SLOW_PROCESS_REF_MID : "",
				(double)r->corr->spaced_record_p50_ns / (double)base,
				known ? REPORT_SLOW_PROCESS_REF_TAIL : REPORT_SLOW_PROCESS_TAIL,
				r->ref ? "" : REPORT_SLOW_PROCESS_HINT);
		}
	}
	if (streams_differ(d)) {
		fprintf(f, "  per stream (each stream's own holes):\n");
		fprintf(f, "    %10s %12s %12s %7s %8s %12s %12s %12s %12s %12s %12s %12s\n",
			"stream", "window", "busy", "util", "ops", "sync wait", "CUDA API",
			"host code", "launch lat.", "graph-int.", "dependency", "other");
		for (i = 0; i < d->n_streams; i++) {
			const struct gs_timeline *tl = &d->streams[i].tl;
			int k;
			if (!tl->n_ops)
				continue;
			fprintf(f, "    %10u %12s %12s %6.1f%% %8llu", d->streams[i].stream,
				D(tl->window), D(tl->busy), 100.0 * tl->utilisation,
				(unsigned long long)tl->n_ops);
			for (k = 0; k < GS_CAUSE_COUNT; k++)
				fprintf(f, " %12s", D(tl->idle_by_cause[k]));
			fputc('\n', f);
		}
	}
	if (d->n_top) {
		/* a capture trace's gaps lie each inside one capture window
		 * (cut at their edges): "in window 2 at +40 us" finds one in
		 * the timeline, where an offset from the device window's start
		 * would count the unrecorded time between windows */
		fprintf(f, "  largest gaps (%s):\n",
			in->capture_range ? "capture window and time from its start"
					  : "time from the window start");
		for (i = 0; i < d->n_top; i++) {
			const struct gs_gap *g = &d->gaps[d->top_gaps[i]];
			const struct gs_op *x = &in->ops[g->op_idx];
			int64_t off = g->start - d->tl.first;
			size_t win = gs_capture_window_at(in, g->start, &off);
			fprintf(f, "    %2zu. ", i + 1);
			if (win)
				fprintf(f, "in window %zu ", win);
			else if (in->capture_range) /* none holds it: the recorded time */
				off = gs_capture_overlap(in, d->tl.first, g->start);
			fprintf(f, "at +%s: %s %s before %s ", D(off), D(g->end - g->start),
				gs_cause_name(g->cause), report_op_kind_name(x->kind));
			if (x->kind == GS_OP_KERNEL) {
				char *dem;
				put_escaped(f, report_kernel_name(r, x->name_id, &dem));
				free(dem);
				fputc(' ', f);
			}
			{
				char seg[512];
				gap_segments_text(seg, sizeof(seg), in, r->res, g);
				fprintf(f, "on stream %u: %s", x->stream, seg);
			}
			if (g->nvtx_idx != GS_NONE) {
				fprintf(f, "; in NVTX \"");
				put_escaped(
				    f, gs_str(&in->strings, in->nvtx[g->nvtx_idx].text_id, ""));
				fputc('"', f);
			}
			fputc('\n', f);
		}
	}
	return 0;
}

static void dist3(FILE *f, const struct gs_dist *d)
{
	fprintf(f, " %10s %10s %10s |", D(d->p50), D(d->p90), D(d->p99));
}

static int t_launches(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	FILE *f = r->out;
	size_t i;

	if ((res->range_applied && res->range_matches == 0) || !res->n_launches)
		return 0;
	fprintf(f, "\nLaunch calls (one sample per call; p50 / p90 / p99):\n");
	fprintf(f, "  %8s | %32s | %32s | %32s | api\n", "calls", "API duration (host)",
		"queue time (API end->op start)", "launch delay (API start->op)");
	for (i = 0; i < res->n_launches; i++) {
		const struct gs_launch_stat *l = &res->launches[i];
		fprintf(f, "  %8llu |", (unsigned long long)l->api_dur.n);
		dist3(f, &l->api_dur);
		dist3(f, &l->queue);
		dist3(f, &l->delay);
		fputc(' ', f);
		put_escaped(f, gs_str(&r->in->strings, l->name_id, "?"));
		fputc('\n', f);
	}
	return 0;
}

static int t_syncs(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	FILE *f = r->out;
	size_t i;
	int imp;

	struct gs_site_stat *sites = NULL;
	size_t n_sites;

	n_sites = gs_site_stats(res, &sites);
	if (n_sites == (size_t)-1)
		return -ENOMEM;
	if (r->by_site) {
		t_by_site(r, sites, n_sites);
		t_host_code_by_code(r);
	}
	if ((res->range_applied && res->range_matches == 0) || (!res->n_syncs && !res->n_polls)) {
		free(sites);
		return 0;
	}
	fprintf(f, "\nSynchronisations (GPU idle: the sync-wait time spent in them):\n");
	for (imp = 0; imp <= 1; imp++) {
		int header = 0;
		for (i = 0; i < res->n_syncs; i++) {
			const struct gs_sync_group *g = &res->syncs[i];
			if (g->implicit != imp)
				continue;
			if (!header) {
				fprintf(f, "  %s:\n    %8s %14s %14s  %s\n",
					imp ? "implicit (flagged by gapscope)" : "explicit",
					"count", "host blocked", "GPU idle", "kind / api");
				header = 1;
			}
			fprintf(f, "    %8llu %14s %14s  %s / ", (unsigned long long)g->count,
				D(g->blocked_ns), D(g->gpu_idle_ns), gs_sync_kind_name(g->kind));
			put_escaped(f, gs_str(&r->in->strings, g->api_name_id, "?"));
			if (g->reason_id) {
				fprintf(f, " (");
				put_escaped(f, gs_str(&r->in->strings, g->reason_id, ""));
				fputc(')', f);
			}
			fputc('\n', f);
			{
				const struct gs_site_stat *s =
				    report_top_site(sites, n_sites, g->api_name_id);
				char site[512];
				if (s) {
					report_site_text(site, sizeof(site), r->in, s->site);
					fprintf(f, "    %8s %14s %14s  at ", "", "", "");
					put_escaped(f, site);
					fprintf(f, ": %llu call%s, %s GPU idle\n",
						(unsigned long long)s->calls,
						s->calls == 1 ? "" : "s", D(s->sync_idle_ns));
				}
			}
		}
	}
	if (res->n_polls) {
		fprintf(f, "  polls (return at once; not syncs):\n    %8s %14s  %s\n", "count",
			"time", "api");
		for (i = 0; i < res->n_polls; i++) {
			fprintf(f, "    %8llu %14s  ", (unsigned long long)res->polls[i].count,
				D(res->polls[i].time_ns));
			put_escaped(f, gs_str(&r->in->strings, res->polls[i].api_name_id, "?"));
			fputc('\n', f);
		}
	}
	free(sites);
	return 0;
}

static int t_kernels(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	FILE *f = r->out;
	size_t i, n;
	int64_t all = 0;

	if ((res->range_applied && res->range_matches == 0) || !res->n_kernel_ops)
		return 0;
	if (res->n_launched_kernels == res->n_kernel_ops)
		fprintf(f, "\nKernels: %llu; %.1f%% are shorter",
			(unsigned long long)res->n_kernel_ops, 100.0 * res->short_kernel_share);
	else if (res->n_launched_kernels)
		fprintf(
		    f,
		    "\nKernels: %llu, %llu of them in graph replays; %.1f%% of the %llu launched "
		    "one by one are shorter",
		    (unsigned long long)res->n_kernel_ops,
		    (unsigned long long)(res->n_kernel_ops - res->n_launched_kernels),
		    100.0 * res->short_kernel_share, (unsigned long long)res->n_launched_kernels);
	else
		fprintf(f,
			"\nKernels: %llu, all in graph replays (no launch call each, so no "
			"short-kernel share)\n",
			(unsigned long long)res->n_kernel_ops);
	if (res->n_launched_kernels)
		fprintf(f, " than the launch cost (%s, %s)\n", D(res->launch_cost_ns),
			res->launch_cost_measured     ? "p50 of the kernel launch calls"
			: r->opt->launch_cost_ns >= 0 ? "--launch-cost"
						      : "default");
	n = res->n_kernels < r->opt->top_n ? res->n_kernels : r->opt->top_n;
	for (i = 0; i < res->n_kernels; i++)
		all += res->kernels[i].total;
	if (n)
		fprintf(f, "  %14s %7s %10s %12s  name\n", "total", "share", "count", "p50");
	for (i = 0; i < n; i++) {
		const struct gs_kernel_stat *k = &res->kernels[i];
		fprintf(f, "  %14s %6.1f%% %10llu %12s  ", D(k->total), pct(k->total, all),
			(unsigned long long)k->count, D(k->p50));
		{
			char *dem;
			put_escaped(f, report_kernel_name(r, k->name_id, &dem));
			free(dem);
		}
		fputc('\n', f);
	}
	return 0;
}

/* "+49.4%" (share as a percentage), or "-" without the figure */
static const char *t_pct(char *buf, size_t n, int have, const char *fmt, double share)
{
	if (have)
		snprintf(buf, n, fmt, 100.0 * share);
	else
		snprintf(buf, n, "-");
	return buf;
}

/* The NVTX ranges against untraced reference runs (--reference). */
static int t_reference(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	const struct gs_reference *ref = r->ref;
	int corrected = r->corr && r->corr->n_ranges == res->n_nvtx;
	FILE *f = r->out;
	size_t i;
	int differs = 0;

	if (!ref || ref->n_ranges != res->n_nvtx)
		return 0;
	fprintf(f,
		"\nAgainst %u untraced reference run%s (NVTX ranges only; the median run's "
		"wall, and the smallest and largest):\n",
		ref->n_runs, ref->n_runs == 1 ? "" : "s");
	fprintf(f, "  %8s %14s %14s %14s %25s %9s %9s %9s  name\n", "count", "traced", "corrected",
		"untraced", "runs' range", "traced", "corrected", "busy");
	for (i = 0; i < res->n_nvtx; i++) {
		const struct gs_nvtx_stat *s = &res->nvtx[i];
		const struct gs_reference_range *g = &ref->ranges[i];
		char e1[16], e2[16], span[80], busy_s[16];

		if (g->runs == 0) {
			snprintf(span, sizeof(span), "-");
		} else {
			char lo[32], hi[32];
			gap_dur(lo, sizeof(lo), g->min);
			gap_dur(hi, sizeof(hi), g->max);
			snprintf(span, sizeof(span), "%s - %s", lo, hi);
		}
		fprintf(f, "  %8llu %14s %14s %14s %25s %9s %9s %9s  ",
			(unsigned long long)s->count, D(s->wall),
			corrected ? D(r->corr->ranges[i].corrected) : "-",
			g->untraced >= 0 ? D(g->untraced) : "-", span,
			t_pct(e1, sizeof(e1), g->have_errors, "%+.1f%%", g->traced_error),
			t_pct(e2, sizeof(e2), g->have_errors && g->have_corrected, "%+.1f%%",
			      g->corrected_error),
			t_pct(busy_s, sizeof(busy_s), g->have_errors, "%.1f%%", g->busy_share));
		put_escaped(f, gs_str(&r->in->strings, s->text_id, "?"));
		if (g->count_differs) {
			fputs(" *", f);
			differs = 1;
		}
		if (g->runs && g->runs < ref->n_runs)
			fprintf(f, " (in %u of the runs)", g->runs);
		fputc('\n', f);
	}
	fprintf(f,
		"  traced, corrected: how far those walls are from the untraced one; busy: GPU "
		"busy in the ranges%s over the untraced wall.\n",
		corrected ? " (corrected)" : "");
	if (differs)
		fprintf(f, "  *: a reference run held another number of these ranges than the "
			   "trace; its wall covers other work.\n");
	return 0;
}

static int t_nvtx(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	FILE *f = r->out;
	size_t i;

	if (r->ref && !res->n_nvtx && !(res->range_applied && res->range_matches == 0))
		fprintf(f,
			"\nAgainst %u untraced reference run%s: this trace holds no NVTX "
			"range to compare (mark the program's steps with NVTX ranges).\n",
			r->ref->n_runs, r->ref->n_runs == 1 ? "" : "s");
	if ((res->range_applied && res->range_matches == 0) || !res->n_nvtx)
		return 0;
	if (r->corr && r->corr->n_ranges == res->n_nvtx)
		fprintf(f, "\nNVTX ranges:\n  %8s %14s %14s %14s %9s %10s  name\n", "count", "wall",
			"corrected", "GPU busy", "busy", "busy corr.");
	else
		fprintf(f, "\nNVTX ranges:\n  %8s %14s %14s %9s  name\n", "count", "wall",
			"GPU busy", "busy");
	for (i = 0; i < res->n_nvtx; i++) {
		const struct gs_nvtx_stat *s = &res->nvtx[i];
		fprintf(f, "  %8llu %14s ", (unsigned long long)s->count, D(s->wall));
		if (r->corr && r->corr->n_ranges == res->n_nvtx)
			fprintf(f, "%14s ", D(r->corr->ranges[i].corrected));
		fprintf(f, "%14s %8.1f%%", D(s->gpu_busy), 100.0 * s->busy_share);
		if (r->corr && r->corr->n_ranges == res->n_nvtx)
			fprintf(f, " %9.1f%%", 100.0 * r->corr->ranges[i].busy_share);
		fputs("  ", f);
		put_escaped(f, gs_str(&r->in->strings, s->text_id, "?"));
		fputc('\n', f);
	}
	if (r->corr && r->corr->n_ranges == res->n_nvtx && !r->ref)
		fputs("  " REPORT_CORRECTED_WALL_NOTE "\n", f);
	return t_reference(r);
}

static int t_advice(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	FILE *f = r->out;
	size_t i;

	if (res->range_applied && res->range_matches == 0)
		return 0;
	fprintf(f, "\nGraph advice (graph node overhead %s, %s", D(res->graph_node_overhead_ns),
		res->graph_node_overhead_source == 2   ? "measured in this trace's graph launches"
		: res->graph_node_overhead_source == 1 ? "--graph-node-overhead"
						       : "default");
	if (res->graph_node_overhead_source == 0 &&
	    res->graph_node_hole_p50_ns > GS_MAX_GRAPH_NODE_OVERHEAD_NS)
		fprintf(f,
			": the median hole between a graph launch's ops here, %s, is over 20 us: "
			"waits inside the graphs, not node dispatch",
			D(res->graph_node_hole_p50_ns));
	fprintf(f, "):\n");
	if (!res->n_advice)
		fprintf(f, "  no repeated op sequence found outside graphs.\n");
	for (i = 0; i < res->n_advice; i++) {
		const struct gs_graph_advice *a = &res->advice[i];
		fprintf(f,
			"  stream %u (device %d): %u op%s x %llu times; measured %s, ops %s, "
			"launch idle %s; as graph replays ~%s\n    ",
			a->stream, a->device, a->length, a->length == 1 ? "" : "s",
			(unsigned long long)a->count, D(a->measured), D(a->op_time),
			D(a->launch_idle), D(a->estimate));
		{
			char *sentence = report_advice_sentence(r, a);
			if (!sentence)
				return -1;
			put_escaped(f, sentence);
			free(sentence);
		}
		fputc('\n', f);
	}
	return 0;
}

static int t_end(struct report_ctx *r)
{
	struct tstate *t = r->priv;
	const char *p, *e, *nl;
	int rc = 0;

	if (!t)
		return 0;
	if (fclose(r->out) != 0)
		rc = -1;
	r->out = t->real;
	for (p = t->buf, e = t->buf ? t->buf + t->len : NULL; p && p < e; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (!nl)
			nl = e;
		if (nl > p)
			report_put_wrapped(r->out, p, (size_t)(nl - p));
		else
			fputc('\n', r->out);
	}
	free(t->buf);
	free(t);
	r->priv = NULL;
	return rc;
}

const struct report_ops report_text_ops = {
    .name = "text",
    .begin = t_begin,
    .device = t_device,
    .launches = t_launches,
    .syncs = t_syncs,
    .kernels = t_kernels,
    .nvtx = t_nvtx,
    .advice = t_advice,
    .end = t_end,
};
