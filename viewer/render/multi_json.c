/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * multi_json.c - `gapscope report A.db B.db ... --json`: the multi-trace
 * report as one JSON object (format in docs/report.md, "Several traces").
 * Strings from traces are kept where they are valid UTF-8, else each bad
 * byte becomes U+FFFD. It computes nothing.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_str.h"
#include "multi_render.h"


static const char *clock_key(int clock)
{
	return clock == GS_MULTI_CLOCK_MONOTONIC  ? "monotonic"
	       : clock == GS_MULTI_CLOCK_REALTIME ? "realtime"
						  : "none";
}

const char *multi_why_key(int why)
{
	switch (why) {
	case GS_MULTI_NAMED: return NULL;
	case GS_MULTI_FEW_STEPS: return "few_steps";
	case GS_MULTI_END_TOGETHER: return "end_together";
	case GS_MULTI_IN_SPREAD: return "within_spread";
	default: return "no_steps";
	}
}

static json_t *process(const struct gs_multi_trace *t, const struct gs_multi_rank_stat *s)
{
	json_t *o = json_object(), *c = json_object();
	int k;

	json_object_set_new(o, "trace", render_json_str(t->path));
	json_object_set_new(o, "rank", t->has_rank ? json_integer(t->rank) : json_null());
	json_object_set_new(o, "world_size",
			    t->world_size > 0 ? json_integer(t->world_size) : json_null());
	json_object_set_new(o, "rank_source", render_json_str(t->rank_source));
	json_object_set_new(o, "pid", t->pid >= 0 ? json_integer(t->pid) : json_null());
	json_object_set_new(o, "hostname", render_json_str(t->hostname));
	json_object_set_new(o, "clock_offset_ns", json_integer(t->offset));
	json_object_set_new(o, "window_ns", json_integer(t->window));
	json_object_set_new(o, "busy_ns", json_integer(t->busy));
	json_object_set_new(o, "utilisation", json_real(t->utilisation));
	for (k = 0; k < GS_CAUSE_COUNT; k++)
		json_object_set_new(c, gs_cause_key(k), json_integer(t->idle_by_cause[k]));
	json_object_set_new(o, "idle_by_cause_ns", c);
	json_object_set_new(o, "launch_overhead_share", json_real(t->launch_overhead_share));
	/* record --capture-range: the figures read only these windows (the
	 * one-trace report's "capture", its first three keys) */
	if (t->capture_range) {
		json_t *cap = json_object();
		json_object_set_new(cap, "range", render_json_str(t->capture_range));
		json_object_set_new(cap, "windows", json_integer((json_int_t)t->capture_windows));
		json_object_set_new(cap, "captured_ns", json_integer(t->capture_ns));
		json_object_set_new(o, "capture", cap);
	} else {
		json_object_set_new(o, "capture", json_null());
	}
	if (t->has_finding) {
		json_t *f = json_object();
		json_object_set_new(f, "rule", json_string(gs_rule_key(t->top.rule)));
		json_object_set_new(f, "title", json_string(gs_rule_title(t->top.rule)));
		json_object_set_new(f, "cost_ns", json_integer(t->top.cost_ns));
		json_object_set_new(f, "share", json_real(t->top.share));
		json_object_set_new(f, "fix", json_string(gs_finding_fix(&t->top)));
		json_object_set_new(o, "top_finding", f);
	} else {
		json_object_set_new(o, "top_finding", json_null());
	}
	if (s) {
		json_object_set_new(o, "last_starts", json_integer((json_int_t)s->last_starts));
		json_object_set_new(o, "last_ends", json_integer((json_int_t)s->last_ends));
		json_object_set_new(o, "end_lag_p50_ns", json_integer(s->end_lag_p50));
		json_object_set_new(o, "step_p50_ns", json_integer(s->step_p50));
		json_object_set_new(o, "comm_per_step_p50_ns", json_integer(s->comm_p50));
		json_object_set_new(o, "comm_total_ns", json_integer(s->comm_total));
	}
	return o;
}

int multi_render_json(FILE *f, const struct multi_report *r)
{
	const struct gs_multi_result *m = r->m;
	json_t *root = json_object(), *procs = json_array(), *st = json_object(), *steps;
	size_t i;
	int rc;

	if (!root || !procs || !st)
		return -1;
	json_object_set_new(root, "traces", json_integer((json_int_t)r->n));
	json_object_set_new(root, "clock", json_string(clock_key(r->clock)));
	for (i = 0; i < r->n; i++)
		json_array_append_new(procs,
				      process(&r->t[i], m && m->n_steps ? &m->ranks[i] : NULL));
	json_object_set_new(root, "processes", procs);
	json_object_set_new(st, "step_range", render_json_str(r->step_name));
	json_object_set_new(st, "step_range_given", json_boolean(r->step_given));
	json_object_set_new(st, "communication",
			    r->comm_range ? render_json_str(r->comm_range) : json_string("nccl_kernels"));
	json_object_set_new(st, "comm_source", json_string(r->comm_range ? "nvtx" : "nccl"));
	json_object_set_new(st, "steps", json_integer(m ? (json_int_t)m->n_steps : 0));
	/* > 0: the traces ran at different times, no step comparison */
	json_object_set_new(st, "apart_ns", json_integer(r->apart));
	if (m && m->straggler != GS_NONE) {
		json_object_set_new(st, "straggler", json_integer((json_int_t)m->straggler));
		json_object_set_new(st, "straggler_last_ends",
				    json_integer((json_int_t)m->ranks[m->straggler].last_ends));
		json_object_set_new(st, "straggler_end_lag_p50_ns",
				    json_integer(m->ranks[m->straggler].end_lag_p50));
		json_object_set_new(st, "others_wait_p50_ns", json_integer(m->others_wait_p50));
		/* what of it is waiting for the straggler (the text's "of which
		 * about"): beyond the straggler's own, 0 when none */
		json_object_set_new(st, "others_wait_for_straggler_ns",
				    json_integer(m->others_wait_for_straggler));
	} else {
		json_object_set_new(st, "straggler", json_null());
	}
	/* the evidence rule: who would be named, with what lag and spread, and
	 * why no one is (docs/report.md, "Several traces") */
	json_object_set_new(st, "min_steps", json_integer(GS_MULTI_MIN_STEPS));
	if (m && m->candidate != GS_NONE) {
		json_object_set_new(st, "candidate", json_integer((json_int_t)m->candidate));
		json_object_set_new(st, "lag_p50_ns", json_integer(m->lag_p50));
		json_object_set_new(st, "lag_spread_ns", json_integer(m->lag_spread));
	} else {
		json_object_set_new(st, "candidate", json_null());
		json_object_set_new(st, "lag_p50_ns", json_null());
		json_object_set_new(st, "lag_spread_ns", json_null());
	}
	json_object_set_new(st, "why_none",
			    !m			    ? json_string("no_steps")
			    : multi_why_key(m->why) ? json_string(multi_why_key(m->why))
						    : json_null());
	steps = json_array();
	for (i = 0; m && i < m->n_steps; i++) {
		const struct gs_multi_step *s = &m->steps[i];
		json_t *o = json_object();
		json_object_set_new(o, "first_start_ns", json_integer(s->first_start));
		json_object_set_new(o, "last_start", json_integer(s->last_start_rank));
		json_object_set_new(o, "start_lag_ns", json_integer(s->start_lag));
		json_object_set_new(o, "last_end", json_integer(s->last_end_rank));
		json_object_set_new(o, "end_lag_ns", json_integer(s->end_lag));
		json_array_append_new(steps, o);
	}
	json_object_set_new(st, "per_step", steps);
	json_object_set_new(root, "stragglers", st);
	rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!rc)
		fputc('\n', f);
	fflush(f);
	return rc || ferror(f) ? -1 : 0;
}
