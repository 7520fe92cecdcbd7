/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * multi_text.c - the terminal text of the multi-trace report
 * (multi_render.h): the clock line, a line per trace recorded with
 * --capture-range (only its capture windows were read), a row per process (window,
 * utilisation, idle by cause as shares of the window, launch overhead
 * share, the verdict's first finding), then the stragglers: per rank how
 * often it started and ended a step last, its median lag, step and
 * communication time; the straggler sentence; the steps with the largest
 * end lag. Trace file names and NVTX texts go through term.h. It computes
 * nothing.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi_render.h"
#include "report.h" /* gap_dur */
#include "term.h"

static const char *dur(char *b, size_t n, int64_t ns)
{
	gap_dur(b, n, ns);
	return b;
}
#define D(ns) dur((char[32]){0}, 32, (ns))

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

const char *multi_rank_label(char *b, size_t n, const struct gs_multi_trace *t)
{
	if (t->has_rank)
		snprintf(b, n, "rank %lld", (long long)t->rank);
	else
		snprintf(b, n, "pid %lld", (long long)t->pid);
	return b;
}

static const char *clock_text(int clock)
{
	switch (clock) {
	case GS_MULTI_CLOCK_MONOTONIC: return "CLOCK_MONOTONIC (one host)";
	case GS_MULTI_CLOCK_REALTIME:
		return "CLOCK_REALTIME (the traces come from different hosts, or do not "
		       "say which: aligned only as well as their clocks agree)";
	default:
		return "the clocks as recorded (a trace lacks its clock offsets: "
		       "times across traces are not aligned)";
	}
}

/* the text of the communication source, for the sentence */
static void comm_text(FILE *f, const struct multi_report *r)
{
	if (r->comm_range) {
		fputs("in ", f);
		term_put(f, r->comm_range);
	} else {
		fputs("in exposed nccl communication", f);
	}
}

static int cmp_lag(const void *a, const void *b, void *ctx)
{
	const struct gs_multi_step *s = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (s[x].end_lag != s[y].end_lag)
		return s[x].end_lag > s[y].end_lag ? -1 : 1;
	return (x > y) - (x < y);
}

static void stragglers(FILE *f, const struct multi_report *r)
{
	const struct gs_multi_result *m = r->m;
	char lb[64];
	size_t i, *order;

	fputc('\n', f);
	if (r->apart > 0) {
		fprintf(
		    f,
		    "Stragglers: not compared: the traces do not run at the same time (one's GPU "
		    "work ends %s before another's begins); they are separate runs, not ranks of "
		    "one job (gapscope diff compares two runs).\n",
		    D(r->apart));
		return;
	}
	if (!r->step_name) {
		fprintf(f, "Stragglers: no NVTX range name occurs in every trace; name the step "
			   "ranges with --step NAME.\n");
		return;
	}
	fputs("Stragglers: NVTX range \"", f);
	term_put(f, r->step_name);
	if (!m->n_steps) {
		fprintf(f, "\" is not in every trace; nothing to compare.\n");
		return;
	}
	fprintf(f,
		"\"%s, %zu steps in every trace (occurrence i of each compared)\n"
		"  communication: ",
		r->step_given ? ""
		: !strcmp(r->step_name, GS_MULTI_PROFILER_STEPS)
		    ? " (torch.profiler's numbered steps, in every trace)"
		    : " (the most frequent name common to all)",
		m->n_steps);
	if (r->comm_range) {
		fputs("NVTX ranges \"", f);
		term_put(f, r->comm_range);
		fputs("\"\n", f);
	} else {
		fputs("nccl kernels overlapping no other GPU work\n", f);
	}
	fprintf(f, "  %-12s %11s %11s %13s %12s %15s\n", "process", "last start", "last end",
		"end lag p50", "step p50", "comm/step p50");
	for (i = 0; i < m->n_ranks; i++) {
		const struct gs_multi_rank_stat *s = &m->ranks[i];
		char a[32], b[32];
		snprintf(a, sizeof(a), "%llu/%zu", (unsigned long long)s->last_starts, m->n_steps);
		snprintf(b, sizeof(b), "%llu/%zu", (unsigned long long)s->last_ends, m->n_steps);
		fprintf(f, "  %-12s %11s %11s %13s %12s %15s\n",
			multi_rank_label(lb, sizeof(lb), &r->t[i]), a, b,
			s->last_ends ? D(s->end_lag_p50) : "-", D(s->step_p50), D(s->comm_p50));
	}
	if (m->straggler != GS_NONE) {
		const struct gs_multi_rank_stat *s = &m->ranks[m->straggler];
		/* three lines, not one of 258 columns (HTA's two sampled ranks) */
		fprintf(f,
			"%s is the straggler: it ends step ranges last in %llu of %zu steps, by %s "
			"(median)\n",
			multi_rank_label(lb, sizeof(lb), &r->t[m->straggler]),
			(unsigned long long)s->last_ends, m->n_steps, D(s->end_lag_p50));
		fprintf(
		    f,
		    "  its lag over all %zu steps: %s (median), above the step-to-step spread %s "
		    "(median absolute deviation)\n",
		    m->n_steps, D(m->lag_p50), D(m->lag_spread));
		fprintf(f, "  the others wait %s per step ", D(m->others_wait_p50));
		comm_text(f, r);
		/* the straggler arrives last and waits least: what the others
		 * spend there beyond its own time is what waiting for it costs
		 * them; the rest is the communication's own time (HTA's two
		 * sampled ranks: a 784 us end lag, 164 ms of the others' 164 ms
		 * read as waiting for it, where it spent 134 ms there too) */
		if (m->others_wait_for_straggler > 0)
			fprintf(f, ", of which about %s is waiting for it (its own: %s)",
				D(m->others_wait_for_straggler), D(s->comm_p50));
		else
			fprintf(f, ", no more than its own (%s): not waiting for it",
				D(s->comm_p50));
		fputc('\n', f);
	} else if (m->candidate != GS_NONE) {
		const struct gs_multi_rank_stat *s = &m->ranks[m->candidate];
		/* why no one is named (the evidence rule, docs/report.md) */
		switch (m->why) {
		case GS_MULTI_FEW_STEPS:
			fprintf(
			    f,
			    "no straggler named: %zu step%s compared (%d needed); %s ended %llu "
			    "of %s last, by %s (median)\n",
			    m->n_steps, m->n_steps == 1 ? "" : "s", GS_MULTI_MIN_STEPS,
			    multi_rank_label(lb, sizeof(lb), &r->t[m->candidate]),
			    (unsigned long long)s->last_ends, m->n_steps == 1 ? "it" : "them",
			    D(s->end_lag_p50));
			break;
		case GS_MULTI_END_TOGETHER:
			fputs("no straggler named: no rank ends the step ranges last by a margin "
			      "(median end lag 0)\n",
			      f);
			break;
		default:
			fprintf(
			    f,
			    "no straggler named: %s ends step ranges last in %llu of %zu steps, "
			    "by %s (median), but\n",
			    multi_rank_label(lb, sizeof(lb), &r->t[m->candidate]),
			    (unsigned long long)s->last_ends, m->n_steps, D(s->end_lag_p50));
			fprintf(f,
				"  its lag over all %zu steps, %s (median), is not above the "
				"step-to-step spread %s (median absolute deviation)\n",
				m->n_steps, D(m->lag_p50), D(m->lag_spread));
			break;
		}
	}
	if (!r->top || m->n_ranks < 2)
		return;
	order = malloc(m->n_steps * sizeof(*order));
	if (!order)
		return;
	for (i = 0; i < m->n_steps; i++)
		order[i] = i;
	qsort_r(order, m->n_steps, sizeof(*order), cmp_lag, m->steps);
	fprintf(f, "  steps with the largest end lag (step: last to start, last to end):\n");
	for (i = 0; i < m->n_steps && i < r->top; i++) {
		const struct gs_multi_step *st = &m->steps[order[i]];
		char l2[64];
		fprintf(f, "  step %-6zu %s by %s, %s by %s\n", order[i],
			multi_rank_label(lb, sizeof(lb), &r->t[st->last_start_rank]),
			D(st->start_lag),
			multi_rank_label(l2, sizeof(l2), &r->t[st->last_end_rank]), D(st->end_lag));
	}
	free(order);
}

/* A line per trace recorded with --capture-range, as the one-trace
 * report's capture line: its figures read only its capture windows */
static void capture_lines(FILE *f, const struct multi_report *r)
{
	char lb[64];
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct gs_multi_trace *t = &r->t[i];
		if (!t->capture_range)
			continue;
		fprintf(f, "capture: %s: ", multi_rank_label(lb, sizeof(lb), t));
		if (!strcmp(t->capture_range, "cudaProfilerApi")) {
			fputs("only the program's cudaProfilerStart..cudaProfilerStop spans were "
			      "recorded",
			      f);
		} else {
			fputs("only the spans of --capture-range ", f);
			term_put(f, t->capture_range);
			fputs(" were recorded", f);
		}
		/* the trace's path is on its row below: this line stays within
		 * 160 columns */
		fprintf(f, ": %llu window%s, %s in all; time outside them is not analysed\n",
			(unsigned long long)t->capture_windows, t->capture_windows == 1 ? "" : "s",
			D(t->capture_ns));
	}
}

/* How the traces' ranks sit in their job, where the traces record its
 * size (meta world_size): a line only when they are not the whole job, or
 * do not agree on its size */
static void world_line(FILE *f, const struct multi_report *r)
{
	int64_t world = 0;
	size_t i, ranked = 0, sized = 0;
	int differ = 0;

	for (i = 0; i < r->n; i++) {
		const struct gs_multi_trace *t = &r->t[i];
		ranked += t->has_rank;
		if (!t->has_rank || t->world_size <= 0)
			continue;
		if (sized++ && t->world_size != world)
			differ = 1;
		world = t->world_size;
	}
	if (!sized)
		return;
	if (differ)
		fputs("ranks: the traces do not agree on the size of their job (meta world_size): "
		      "are they ranks of one job?\n",
		      f);
	else if ((int64_t)ranked < world)
		fprintf(f, "ranks: %zu of the job's %lld (world size); the others were not given\n",
			ranked, (long long)world);
}

int multi_render_text(FILE *f, const struct multi_report *r)
{
	char lb[64];
	size_t i;
	int c;

	fprintf(f, "gapscope report: %zu traces; times on %s\n", r->n, clock_text(r->clock));
	world_line(f, r);
	capture_lines(f, r);
	fprintf(f, "\nProcesses (idle by cause in %% of the window, docs/metrics.md):\n");
	/* the top finding on a line of its own: the row, a rule's title and a
	 * path on one line ran past 160 columns (HTA's sampled ranks: 198) */
	fprintf(f, "  %-12s %11s %6s %5s %5s %5s %6s %5s %5s %5s %9s  %s\n", "process", "window",
		"util", "sync", "api", "host", "launch", "graph", "dep", "other", "launch-ovh",
		"[trace]; then its top finding");
	for (i = 0; i < r->n; i++) {
		const struct gs_multi_trace *t = &r->t[i];
		fprintf(f, "  %-12s %11s %5.1f%%", multi_rank_label(lb, sizeof(lb), t),
			D(t->window), 100.0 * t->utilisation);
		for (c = 0; c < GS_CAUSE_COUNT; c++)
			fprintf(f, " %*.1f", c == GS_CAUSE_LAUNCH_LATENCY ? 6 : 5,
				pct(t->idle_by_cause[c], t->window));
		fprintf(f, " %9.1f%%  [", 100.0 * t->launch_overhead_share);
		term_put(f, t->path);
		fputs("]\n    top finding: ", f);
		if (t->has_finding)
			fprintf(f, "%s %s (%.1f%%)\n", gs_rule_title(t->top.rule),
				D(t->top.cost_ns), 100.0 * t->top.share);
		else
			fputs("no rule fired\n", f);
	}
	stragglers(f, r);
	fflush(f);
	return ferror(f) ? -1 : 0;
}
