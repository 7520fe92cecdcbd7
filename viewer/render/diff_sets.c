/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * diff_sets.c - `gapscope diff before/ after/`: two sets of traces of a
 * multi-process job (one trace per rank), as text or JSON (docs/diff.md,
 * "Two sets of traces"). Per process matched by rank: window, utilisation,
 * idle by cause as % of the window, launch overhead share, before, after
 * and change; then each set's straggler. The sets were loaded, aligned and
 * compared by the multi-trace report's code (report_multi.c, multi.c) and
 * paired by gs_multi_pair_ranks; this file computes nothing but the
 * differences it prints. Trace file names go through term.h (text) or
 * become valid UTF-8 (JSON).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "diff.h"
#include "json_str.h"
#include "multi_render.h" /* multi_rank_label */
#include "report.h"	  /* gap_dur */
#include "term.h"

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

/* a duration, or its change with a sign ("+1.000 us", "-3.000 us", "0 ns") */
static const char *dur(char *b, size_t n, int64_t ns, int sign)
{
	char t[32];

	if (!sign || ns == 0) {
		gap_dur(b, n, ns);
		return b;
	}
	gap_dur(t, sizeof(t), ns < 0 ? -ns : ns);
	snprintf(b, n, "%c%s", ns < 0 ? '-' : '+', t);
	return b;
}
#define D(ns) dur((char[40]){0}, 40, (ns), 0)
#define C(ns) dur((char[40]){0}, 40, (ns), 1)

static void row_dur(FILE *f, const char *label, int64_t b, int64_t a)
{
	fprintf(f, "    %-26s %13s %13s %13s\n", label, D(b), D(a), C(a - b));
}

/* shares as per cent, change in percentage points */
static void row_pct(FILE *f, const char *label, double b, double a)
{
	char cb[32], ca[32], cc[32];

	snprintf(cb, sizeof(cb), "%.1f%%", 100.0 * b);
	snprintf(ca, sizeof(ca), "%.1f%%", 100.0 * a);
	snprintf(cc, sizeof(cc), "%+.1f pt", 100.0 * (a - b));
	fprintf(f, "    %-26s %13s %13s %13s\n", label, cb, ca, cc);
}

static const char *clock_text(int clock)
{
	return clock == GS_MULTI_CLOCK_MONOTONIC  ? "CLOCK_MONOTONIC (one host)"
	       : clock == GS_MULTI_CLOCK_REALTIME ? "CLOCK_REALTIME (different hosts)"
						  : "not aligned (a clock offset is missing)";
}

static void process_text(FILE *f, const struct diff_set s[2], const struct gs_multi_pair *p)
{
	const struct gs_multi_trace *b = p->before != GS_NONE ? &s[0].t[p->before] : NULL;
	const struct gs_multi_trace *a = p->after != GS_NONE ? &s[1].t[p->after] : NULL;
	char lb[64];
	int k;

	fprintf(f, "  %s", multi_rank_label(lb, sizeof(lb), b ? b : a));
	if (!a || !b) {
		fprintf(f, ": only in the %s set  [", b ? "before" : "after");
		term_put(f, (b ? b : a)->path);
		fputs("]\n", f);
		return;
	}
	fputs("  [", f);
	term_put(f, b->path);
	fputs(" -> ", f);
	term_put(f, a->path);
	fputs("]\n", f);
	row_dur(f, "window", b->window, a->window);
	row_pct(f, "utilisation", b->utilisation, a->utilisation);
	for (k = 0; k < GS_CAUSE_COUNT; k++) {
		char label[64];
		snprintf(label, sizeof(label), "idle %s", gs_cause_name(k));
		row_pct(f, label, share(b->idle_by_cause[k], b->window),
			share(a->idle_by_cause[k], a->window));
	}
	row_pct(f, "launch overhead share", b->launch_overhead_share, a->launch_overhead_share);
}

/* the straggler's name in set s, or why there is none */
static const char *straggler_text(char *b, size_t n, const struct diff_set *s)
{
	if (!s->step)
		return "no steps";
	if (s->m->straggler == GS_NONE)
		return "none";
	return multi_rank_label(b, n, &s->t[s->m->straggler]);
}

static int same_straggler(const struct diff_set s[2])
{
	const struct gs_multi_trace *b = &s[0].t[s[0].m->straggler];
	const struct gs_multi_trace *a = &s[1].t[s[1].m->straggler];

	return b->has_rank && a->has_rank && b->rank == a->rank;
}

int diff_sets_write_text(FILE *f, const struct diff_set s[2], const struct gs_multi_pair *p,
			 size_t np)
{
	char l0[64], l1[64];
	int has[2];
	size_t i;

	fputs("gapscope diff: before = ", f);
	term_put(f, s[0].label);
	fprintf(f, " (%zu traces), after = ", s[0].n);
	term_put(f, s[1].label);
	fprintf(f, " (%zu traces)\n", s[1].n);
	if (s[0].clock == s[1].clock)
		fprintf(f, "  times on %s in both sets\n\n", clock_text(s[0].clock));
	else
		fprintf(f, "  times on %s before, %s after\n\n", clock_text(s[0].clock),
			clock_text(s[1].clock));
	fputs("Processes, matched by rank (idle by cause in % of the window):\n", f);
	fprintf(f, "    %-26s %13s %13s %13s\n", "", "before", "after", "change");
	for (i = 0; i < np; i++)
		process_text(f, s, &p[i]);

	fputs("\nStragglers (steps: ", f);
	if (s[0].step && s[1].step && !strcmp(s[0].step, s[1].step)) {
		fputs("NVTX range \"", f);
		term_put(f, s[0].step);
		fputs("\" in both sets):\n", f);
	} else {
		for (i = 0; i < 2; i++) {
			if (s[i].step) {
				fputs("NVTX range \"", f);
				term_put(f, s[i].step);
				fputc('"', f);
			} else {
				fputs("none found", f);
			}
			fputs(i ? " after):\n" : " before, ", f);
		}
	}
	fprintf(f, "    %-26s %13s %13s %13s\n", "", "before", "after", "change");
	for (i = 0; i < 2; i++)
		has[i] = s[i].step && s[i].m->straggler != GS_NONE;
	fprintf(f, "    %-26s %13s %13s %13s\n", "straggler", straggler_text(l0, sizeof(l0), &s[0]),
		straggler_text(l1, sizeof(l1), &s[1]),
		has[0] && has[1]   ? (same_straggler(s) ? "same" : "changed")
		: has[0] != has[1] ? "changed"
				   : "-");
	if (has[0] || has[1]) {
		int64_t lag[2] = {0, 0}, wait[2] = {0, 0}, for_it[2] = {0, 0};
		for (i = 0; i < 2; i++)
			if (has[i]) {
				lag[i] = s[i].m->ranks[s[i].m->straggler].end_lag_p50;
				wait[i] = s[i].m->others_wait_p50;
				for_it[i] = s[i].m->others_wait_for_straggler;
			}
		fprintf(f, "    %-26s %13s %13s %13s\n", "its end lag p50",
			has[0] ? D(lag[0]) : "-", has[1] ? D(lag[1]) : "-",
			has[0] && has[1] ? C(lag[1] - lag[0]) : "-");
		fprintf(f, "    %-26s %13s %13s %13s\n", "others' comm wait p50",
			has[0] ? D(wait[0]) : "-", has[1] ? D(wait[1]) : "-",
			has[0] && has[1] ? C(wait[1] - wait[0]) : "-");
		fprintf(f, "    %-26s %13s %13s %13s\n", "  of it waiting for it",
			has[0] ? D(for_it[0]) : "-", has[1] ? D(for_it[1]) : "-",
			has[0] && has[1] ? C(for_it[1] - for_it[0]) : "-");
	}
	return ferror(f) ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------ */

/* {"before", "after", "change", "relative"}; a missing side is null */
static json_t *pair_int(const int64_t *b, const int64_t *a)
{
	json_t *o = json_object();

	json_object_set_new(o, "before", b ? json_integer(*b) : json_null());
	json_object_set_new(o, "after", a ? json_integer(*a) : json_null());
	json_object_set_new(o, "change", a && b ? json_integer(*a - *b) : json_null());
	json_object_set_new(o, "relative",
			    a && b && *b ? json_real((double)(*a - *b) / (double)*b) : json_null());
	return o;
}

static json_t *pair_real(const double *b, const double *a)
{
	json_t *o = json_object();
	double r = a && b ? diff_rel(*b, *a) : NAN;

	json_object_set_new(o, "before", b ? json_real(*b) : json_null());
	json_object_set_new(o, "after", a ? json_real(*a) : json_null());
	json_object_set_new(o, "change", a && b ? json_real(*a - *b) : json_null());
	json_object_set_new(o, "relative", isnan(r) ? json_null() : json_real(r));
	return o;
}

static json_t *side_json(const struct gs_multi_trace *t)
{
	json_t *o;

	if (!t)
		return json_null();
	o = json_object();
	json_object_set_new(o, "trace", render_json_str(t->path));
	json_object_set_new(o, "pid", t->pid >= 0 ? json_integer(t->pid) : json_null());
	json_object_set_new(o, "hostname", render_json_str(t->hostname));
	return o;
}

static json_t *process_json(const struct diff_set s[2], const struct gs_multi_pair *p)
{
	const struct gs_multi_trace *t[2] = {
	    p->before != GS_NONE ? &s[0].t[p->before] : NULL,
	    p->after != GS_NONE ? &s[1].t[p->after] : NULL,
	};
	const struct gs_multi_trace *any = t[0] ? t[0] : t[1];
	json_t *o = json_object(), *c = json_object();
	double v[2][2 + GS_CAUSE_COUNT];
	int i, k;

	for (i = 0; i < 2; i++)
		if (t[i]) {
			v[i][0] = t[i]->utilisation;
			v[i][1] = t[i]->launch_overhead_share;
			for (k = 0; k < GS_CAUSE_COUNT; k++)
				v[i][2 + k] = share(t[i]->idle_by_cause[k], t[i]->window);
		}
#define V(i, x) (t[i] ? &v[i][x] : NULL)
	json_object_set_new(o, "rank", any->has_rank ? json_integer(any->rank) : json_null());
	json_object_set_new(o, "process", json_string(multi_rank_label((char[64]){0}, 64, any)));
	json_object_set_new(o, "in",
			    json_string(t[0] && t[1] ? "both"
					: t[0]	     ? "before"
						     : "after"));
	json_object_set_new(o, "before", side_json(t[0]));
	json_object_set_new(o, "after", side_json(t[1]));
	json_object_set_new(o, "window_ns",
			    pair_int(t[0] ? &t[0]->window : NULL, t[1] ? &t[1]->window : NULL));
	json_object_set_new(o, "utilisation", pair_real(V(0, 0), V(1, 0)));
	for (k = 0; k < GS_CAUSE_COUNT; k++)
		json_object_set_new(c, gs_cause_key(k), pair_real(V(0, 2 + k), V(1, 2 + k)));
	json_object_set_new(o, "idle_share", c);
	json_object_set_new(o, "launch_overhead_share", pair_real(V(0, 1), V(1, 1)));
#undef V
	return o;
}

static const char *clock_key(int clock)
{
	return clock == GS_MULTI_CLOCK_MONOTONIC  ? "monotonic"
	       : clock == GS_MULTI_CLOCK_REALTIME ? "realtime"
						  : "none";
}

static json_t *set_json(const struct diff_set *s)
{
	json_t *o = json_object(), *st;

	json_object_set_new(o, "input", render_json_str(s->label));
	json_object_set_new(o, "traces", json_integer((json_int_t)s->n));
	json_object_set_new(o, "clock", json_string(clock_key(s->clock)));
	json_object_set_new(o, "step", s->step ? render_json_str(s->step) : json_null());
	json_object_set_new(o, "steps", json_integer((json_int_t)s->m->n_steps));
	if (s->step && s->m->straggler != GS_NONE) {
		const struct gs_multi_trace *t = &s->t[s->m->straggler];
		st = json_object();
		json_object_set_new(st, "rank", t->has_rank ? json_integer(t->rank) : json_null());
		json_object_set_new(st, "process",
				    json_string(multi_rank_label((char[64]){0}, 64, t)));
		json_object_set_new(
		    st, "last_ends",
		    json_integer((json_int_t)s->m->ranks[s->m->straggler].last_ends));
		json_object_set_new(st, "end_lag_p50_ns",
				    json_integer(s->m->ranks[s->m->straggler].end_lag_p50));
		json_object_set_new(st, "others_wait_p50_ns", json_integer(s->m->others_wait_p50));
		json_object_set_new(st, "others_wait_for_straggler_ns",
				    json_integer(s->m->others_wait_for_straggler));
	} else {
		st = json_null();
	}
	json_object_set_new(o, "straggler", st);
	/* why no straggler is named (the multi-trace report's why_none) */
	json_object_set_new(o, "why_none",
			    !s->step		       ? json_string("no_steps")
			    : multi_why_key(s->m->why) ? json_string(multi_why_key(s->m->why))
						       : json_null());
	return o;
}

int diff_sets_write_json(FILE *f, const struct diff_set s[2], const struct gs_multi_pair *p,
			 size_t np)
{
	json_t *root = json_object(), *procs = json_array(), *st = json_object();
	int has[2], rc;
	int64_t lag[2] = {0, 0}, wait[2] = {0, 0};
	size_t i;

	if (!root || !procs || !st) {
		json_decref(root);
		json_decref(procs);
		json_decref(st);
		return -1;
	}
	json_object_set_new(root, "before", set_json(&s[0]));
	json_object_set_new(root, "after", set_json(&s[1]));
	for (i = 0; i < np; i++)
		json_array_append_new(procs, process_json(s, &p[i]));
	json_object_set_new(root, "processes", procs);
	for (i = 0; i < 2; i++) {
		has[i] = s[i].step && s[i].m->straggler != GS_NONE;
		if (has[i]) {
			lag[i] = s[i].m->ranks[s[i].m->straggler].end_lag_p50;
			wait[i] = s[i].m->others_wait_p50;
		}
	}
	json_object_set_new(st, "same_process",
			    has[0] && has[1] ? json_boolean(same_straggler(s)) : json_null());
	json_object_set_new(st, "end_lag_p50_ns",
			    pair_int(has[0] ? &lag[0] : NULL, has[1] ? &lag[1] : NULL));
	json_object_set_new(st, "others_wait_p50_ns",
			    pair_int(has[0] ? &wait[0] : NULL, has[1] ? &wait[1] : NULL));
	json_object_set_new(root, "straggler_change", st);
	rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (rc < 0 || fputc('\n', f) == EOF)
		return -1;
	return ferror(f) ? -1 : 0;
}
