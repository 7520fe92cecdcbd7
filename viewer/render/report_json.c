/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * report_json.c - the --json back end of `gapscope report`: the same
 * figures as the text report, as one JSON object built with jansson and
 * written at the end. Key names and units are a stable interface, written
 * down in docs/report.md (format version "gapscope_report": 2, since gap
 * model v2 renamed the causes); otherwise change them only by adding keys. All durations are
 * integer nanoseconds (keys end in _ns), shares are fractions 0..1. Strings from the trace are
 * passed through jansson, which escapes them; bytes that are not valid UTF-8 are replaced by U+FFFD
 * first because jansson refuses such strings. Call sites (the sync groups', the findings',
 * --by-site's "by_site") come from gs_site_stats() and carry the text report's wording in "text".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "names.h"
#include "json_str.h"
#include "report.h"
#include "whatif.h"

struct jstate {
	json_t *root;
	json_t *devices;
};

/* A JSON string from trace bytes: valid UTF-8 kept, anything else U+FFFD
 * (json_str.h; the multi-trace JSON uses it too). */
json_t *render_json_str(const char *s)
{
	size_t n, i, o = 0;
	char *buf;
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	n = strlen(s);
	buf = malloc(3 * n + 1);
	if (!buf)
		return NULL;
	for (i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80	      ? 1
			     : (c >> 5) == 6  ? 2
			     : (c >> 4) == 14 ? 3
			     : (c >> 3) == 30 ? 4
					      : 0;
		size_t k;
		int ok = len > 0 && i + len <= n;
		for (k = 1; ok && k < len; k++)
			ok = ((unsigned char)s[i + k] >> 6) == 2;
		json_t *t = ok ? json_stringn(s + i, len) : NULL; /* validates overlongs etc. */
		if (t) {
			json_decref(t);
			memcpy(buf + o, s + i, len);
			o += len;
			i += len;
		} else {
			memcpy(buf + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

static json_t *jstrid(const struct report_ctx *r, uint32_t id)
{
	const char *s = gs_str(&r->in->strings, id, NULL);
	return s ? render_json_str(s) : json_null();
}

/* the demangled form of a kernel name, or null when it is not mangled */
static json_t *jdemangled(const struct report_ctx *r, uint32_t id)
{
	char *d = gs_demangle(gs_str(&r->in->strings, id, NULL));
	json_t *j = d ? render_json_str(d) : json_null();

	free(d);
	return j;
}

static json_t *jint(int64_t v)
{
	return json_integer((json_int_t)v);
}

/* verdict.phases: the run's phases (advice.c), null where the trace marks
 * no steps */
static json_t *jphases(const struct report_ctx *r, const struct gs_verdict *v)
{
	const struct gs_phases *ph = &v->phases;
	json_t *o;
	char stem[256];

	if (ph->source == GS_STEPS_NONE)
		return json_null();
	o = json_object();
	snprintf(stem, sizeof(stem), "%.*s%s", (int)(ph->stem_len ? ph->stem_len : 200),
		 ph->stem_len ? ph->stem : gs_str(&r->in->strings, ph->text_id, ""),
		 ph->stem_len ? "*" : "");
	json_object_set_new(o, "source",
			    json_string(ph->source == GS_STEPS_PROFILER	   ? "profiler_steps"
					: ph->source == GS_STEPS_OPTIMIZER ? "optimizer_steps"
									   : "nvtx_ranges"));
	json_object_set_new(o, "steps_name", render_json_str(stem));
	json_object_set_new(o, "steps", jint((int64_t)ph->n_steps));
	json_object_set_new(o, "warmup_steps", jint((int64_t)ph->warmup_steps));
	json_object_set_new(o, "step_median_ns", jint(ph->step_p50_ns));
	json_object_set_new(o, "steady_start_ns", jint(ph->steady_start));
	json_object_set_new(o, "steady_end_ns", jint(ph->steady_end));
	json_object_set_new(o, "warmup_ns", jint(ph->warmup_ns));
	json_object_set_new(o, "steady_ns", jint(ph->steady_ns));
	json_object_set_new(o, "tail_ns", jint(ph->tail_ns));
	json_object_set_new(o, "findings_steady", json_boolean(v->steady));
	json_object_set_new(o, "steady_window_ns",
			    v->steady ? jint(v->steady_window) : json_null());
	json_object_set_new(o, "steady_busy_ns", v->steady ? jint(v->steady_busy) : json_null());
	return o;
}

/* verdict.facts: what the rules checked before their fixes */
static json_t *jfacts(const struct report_ctx *r, const struct gs_advice_facts *f)
{
	static const char *loader[] = {"unknown", "single_process", "workers"};
	json_t *o = json_object();

	json_object_set_new(o, "dataloader", json_string(loader[f->loader % 3]));
	json_object_set_new(o, "uploads", jint((int64_t)f->uploads));
	json_object_set_new(o, "pageable_uploads", jint((int64_t)f->pageable_uploads));
	json_object_set_new(o, "syncs", jint((int64_t)f->syncs));
	json_object_set_new(o, "sync_api",
			    f->sync_api_id ? jstrid(r, f->sync_api_id) : json_null());
	json_object_set_new(o, "allocations", jint((int64_t)f->allocs));
	json_object_set_new(o, "steps", jint((int64_t)f->steps));
	json_object_set_new(o, "launches_per_step_min", jint((int64_t)f->launches_min));
	json_object_set_new(o, "launches_per_step_median", jint((int64_t)f->launches_p50));
	json_object_set_new(o, "launches_per_step_max", jint((int64_t)f->launches_max));
	json_object_set_new(o, "launches_vary", json_boolean(f->varying));
	json_object_set_new(o, "comm_kernels", jint((int64_t)f->comm_kernels));
	json_object_set_new(o, "comm_busy_ns", jint(f->comm_busy_ns));
	json_object_set_new(o, "comm_exposed_ns", jint(f->comm_exposed_ns));
	json_object_set_new(o, "busy_ns", jint(f->busy_ns));
	return o;
}

/* A call site (gs_input.sites[site]) as an object: a Python frame has
 * file, line and function (module and offset null), a native one module,
 * offset and function (the symbol as recorded; file and line null); "text"
 * is what the text report prints (report_site_text). null when there is
 * none. */
static json_t *jsite(const struct report_ctx *r, uint32_t site)
{
	const struct gs_site *s;
	json_t *o;
	char text[512];

	if (site == GS_NONE || site >= r->in->n_sites)
		return json_null();
	s = &r->in->sites[site];
	o = json_object();
	if (s->line >= 0) {
		json_object_set_new(o, "file", jstrid(r, s->file_id));
		json_object_set_new(o, "line", jint(s->line));
	} else {
		json_object_set_new(o, "file", json_null());
		json_object_set_new(o, "line", json_null());
	}
	json_object_set_new(o, "function", jstrid(r, s->func_id));
	if (s->line >= 0) {
		json_object_set_new(o, "module", json_null());
		json_object_set_new(o, "offset", json_null());
	} else {
		json_object_set_new(o, "module", jstrid(r, s->file_id));
		/* an offset past 2^63 - 1 only comes from a damaged trace:
		 * JSON integers are signed 64-bit in jansson */
		json_object_set_new(
		    o, "offset", s->offset <= INT64_MAX ? jint((int64_t)s->offset) : json_null());
	}
	report_site_text(text, sizeof(text), r->in, site);
	json_object_set_new(o, "text", render_json_str(text));
	return o;
}

/* The site object of the top site of api_name_id among stats, or null. */
static json_t *jtop_site(const struct report_ctx *r, const struct gs_site_stat *stats, size_t n,
			 uint32_t api_name_id)
{
	const struct gs_site_stat *t = report_top_site(stats, n, api_name_id);

	return t ? jsite(r, t->site) : json_null();
}

static json_t *timeline(const struct gs_timeline *tl)
{
	json_t *o = json_object(), *by = json_object(), *cnt = json_object();
	int k;

	for (k = 0; k < GS_CAUSE_COUNT; k++) {
		json_object_set_new(by, gs_cause_key(k), jint(tl->idle_by_cause[k]));
		json_object_set_new(cnt, gs_cause_key(k), jint((int64_t)tl->gaps_by_cause[k]));
	}
	json_object_set_new(o, "window_start_ns", jint(tl->first));
	json_object_set_new(o, "window_end_ns", jint(tl->last));
	json_object_set_new(o, "window_ns", jint(tl->window));
	json_object_set_new(o, "busy_ns", jint(tl->busy));
	json_object_set_new(o, "idle_ns", jint(tl->idle));
	json_object_set_new(o, "utilisation", json_real(tl->utilisation));
	json_object_set_new(o, "ops", jint((int64_t)tl->n_ops));
	json_object_set_new(o, "gaps", jint((int64_t)tl->n_gaps));
	json_object_set_new(o, "idle_by_cause_ns", by);
	json_object_set_new(o, "gaps_by_cause", cnt);
	json_object_set_new(o, "launch_overhead_share", json_real(tl->launch_overhead_share));
	json_object_set_new(o, "launch_calls_in_cuda_api_ns", jint(tl->launch_calls));
	json_object_set_new(o, "slow_launch_latency_ns", jint(tl->slow_launch_latency));
	json_object_set_new(o, "slow_launch_in_calls_ns", jint(tl->slow_launch_in_calls));
	json_object_set_new(o, "slow_launches", jint((int64_t)tl->slow_launches));
	{
		json_t *hb = json_array();
		for (int k = 0; k < 3; k++)
			json_array_append_new(hb, jint(tl->host_by_size[k]));
		json_object_set_new(o, "host_by_size_ns", hb);
	}
	json_object_set_new(o, "host_stall_ns", jint(tl->host_stall));
	json_object_set_new(o, "host_stalls", jint((int64_t)tl->host_stalls));
	json_object_set_new(o, "input_stall_ns", jint(tl->input_stall));
	json_object_set_new(o, "input_stalls", jint((int64_t)tl->input_stalls));
	json_object_set_new(o, "startup_stall_ns", jint(tl->startup_stall));
	json_object_set_new(o, "startup_stalls", jint((int64_t)tl->startup_stalls));
	json_object_set_new(o, "startup_input_stall_ns", jint(tl->startup_input_stall));
	json_object_set_new(o, "startup_input_stalls", jint((int64_t)tl->startup_input_stalls));
	json_object_set_new(o, "host_code_share", json_real(tl->host_code_share));
	return o;
}

static json_t *dist(const struct gs_dist *d)
{
	json_t *o = json_object();

	json_object_set_new(o, "min", jint(d->min));
	json_object_set_new(o, "p50", jint(d->p50));
	json_object_set_new(o, "p90", jint(d->p90));
	json_object_set_new(o, "p99", jint(d->p99));
	json_object_set_new(o, "max", jint(d->max));
	return o;
}

static int j_begin(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	struct jstate *s = calloc(1, sizeof(*s));
	json_t *sel, *ins;

	if (!s)
		return -1;
	r->priv = s;
	s->root = json_object();
	s->devices = json_array();
	if (!s->root || !s->devices)
		return -1;
	/* 2: gap model v2 (cause keys, segments per gap, polls) */
	json_object_set_new(s->root, "gapscope_report", json_integer(2));
	{
		/* the verdict: rules and thresholds in docs/report.md */
		const struct gs_verdict *v = r->verdict;
		json_t *vo = json_object(), *causes = json_array(), *finds = json_array();
		struct gs_site_stat *sites = NULL;
		size_t i, n_sites;
		int j;
		n_sites = gs_site_stats(r->res, &sites);
		if (n_sites == (size_t)-1)
			n_sites = 0; /* out of memory: no sites, as the text report */
		json_object_set_new(vo, "window_ns", jint(v->window));
		json_object_set_new(vo, "busy_ns", jint(v->busy));
		json_object_set_new(vo, "utilisation", json_real(v->utilisation));
		/* the findings' fixes are in PyTorch's words */
		json_object_set_new(vo, "pytorch", json_boolean(v->pytorch));
		/* the same summed over overhead_corrected.devices, null
		 * without a correction */
		if (r->corr && r->corr->n_devices) {
			int64_t cw, cb;
			double cu = gs_corrected_total(r->corr, &cw, &cb);
			json_object_set_new(vo, "corrected_window_ns", jint(cw));
			json_object_set_new(vo, "corrected_utilisation", json_real(cu));
		} else {
			json_object_set_new(vo, "corrected_window_ns", json_null());
			json_object_set_new(vo, "corrected_utilisation", json_null());
		}
		for (j = 0; j < GS_CAUSE_COUNT; j++) {
			int c = v->cause_order[j];
			json_t *co;
			if (!v->idle_by_cause[c])
				break;
			co = json_object();
			json_object_set_new(co, "cause", json_string(gs_cause_key(c)));
			json_object_set_new(co, "idle_ns", jint(v->idle_by_cause[c]));
			json_object_set_new(co, "share", json_real(v->window ? (double)v->idle_by_cause[c] /
									  (double)v->window
									: 0.0));
			json_array_append_new(causes, co);
		}
		for (i = 0; i < v->n_findings; i++) {
			const struct gs_finding *f = &v->findings[i];
			json_t *fo = json_object();
			json_object_set_new(fo, "rule", json_string(gs_rule_key(f->rule)));
			json_object_set_new(fo, "title", json_string(gs_rule_title(f->rule)));
			json_object_set_new(fo, "cost_ns", jint(f->cost_ns));
			json_object_set_new(fo, "share", json_real(f->share));
			json_object_set_new(
			    fo, "api", f->api_name_id ? jstrid(r, f->api_name_id) : json_null());
			json_object_set_new(fo, "count", jint((int64_t)f->count));
			json_object_set_new(fo, "site",
					    f->api_name_id
						? jtop_site(r, sites, n_sites, f->api_name_id)
						: json_null());
			json_object_set_new(fo, "tid", f->tid ? jint(f->tid) : json_null());
			json_object_set_new(fo, "nvtx",
					    f->nvtx_id ? jstrid(r, f->nvtx_id) : json_null());
			json_object_set_new(fo, "host_op",
					    f->op_id ? jstrid(r, f->op_id) : json_null());
			json_object_set_new(fo, "fix", json_string(gs_finding_fix(f)));
			json_object_set_new(fo, "why",
					    f->why[0] ? render_json_str(f->why) : json_null());
			json_object_set_new(fo, "busy", json_boolean(f->busy));
			/* what the fix buys, replayed: null where no figure */
			json_object_set_new(fo, "saves",
					    json_string(f->saves == GS_SAVES_REPLAYED ? "replayed"
							: f->saves == GS_SAVES_UNCHANGED
							    ? "unchanged"
							    : "not_modelled"));
			json_object_set_new(fo, "saves_ns",
					    f->saves == GS_SAVES_REPLAYED ? jint(f->saves_ns)
									  : json_null());
			json_object_set_new(fo, "saves_pct",
					    f->saves == GS_SAVES_REPLAYED
						? json_real(100.0 * f->saves_share)
						: json_null());
			json_array_append_new(finds, fo);
		}
		free(sites);
		json_object_set_new(vo, "phases", jphases(r, v));
		json_object_set_new(vo, "facts", jfacts(r, &v->facts));
		json_object_set_new(vo, "tracing_idle_ns",
				    v->corrected ? jint(v->tracing_idle_ns) : json_null());
		if (v->range_text_id) {
			/* the window outside every NVTX range; the range text
			 * of the most wall (verdict.c outside_ranges) */
			json_t *oo = json_object();
			char *name = report_range_name(r->in, v);
			json_object_set_new(oo, "outside_ns", jint(v->outside_ns));
			json_object_set_new(oo, "share",
					    json_real((double)v->outside_ns / (double)v->window));
			json_object_set_new(oo, "note", json_boolean(v->outside_note));
			json_object_set_new(oo, "range", render_json_str(name));
			json_object_set_new(oo, "ranges", jint((int64_t)v->range_count));
			json_object_set_new(oo, "range_ns", jint(v->range_inside_ns));
			free(name);
			json_object_set_new(vo, "outside_ranges", oo);
		} else {
			json_object_set_new(vo, "outside_ranges", json_null());
		}
		if (r->res->range_lead) {
			/* the selection's leading ranges of GS_LEAD_FACTOR
			 * times the median one or more (analysis.c) */
			json_t *lo = json_object();
			json_object_set_new(lo, "count", jint((int64_t)r->res->range_lead));
			json_object_set_new(lo, "wall_ns", jint(r->res->range_lead_ns));
			json_object_set_new(lo, "share",
					    json_real((double)r->res->range_lead_ns /
						      (double)r->res->range_walls_ns));
			json_object_set_new(lo, "median_ns", jint(r->res->range_median_ns));
			json_object_set_new(
			    lo, "skip",
			    jint((int64_t)(r->res->range_skipped + r->res->range_lead)));
			json_object_set_new(vo, "leading_ranges", lo);
		} else {
			json_object_set_new(vo, "leading_ranges", json_null());
		}
		json_object_set_new(vo, "idle_by_cause", causes);
		json_object_set_new(vo, "findings", finds);
		json_object_set_new(vo, "saves_basis",
				    json_string(v->saves_untraced ? "untraced" : "traced"));
		{
			/* the whatif --fix list of the replayed savings: each is
			 * its fix alone, and they need not add up */
			char keys[512];
			size_t nk = gs_verdict_fix_list(v, r->in ? &r->in->strings : NULL, keys,
							sizeof(keys));
			json_object_set_new(vo, "whatif_fixes",
					    nk >= 2 ? render_json_str(keys) : json_null());
		}
		json_object_set_new(s->root, "verdict", vo);
	}
	json_object_set_new(s->root, "trace", render_json_str(r->path));
	if (res->range_applied) {
		sel = json_object();
		json_object_set_new(sel, "range", render_json_str(r->opt->range_name));
		json_object_set_new(sel, "matches", jint((int64_t)res->range_matches));
		json_object_set_new(sel, "skipped", jint((int64_t)res->range_skipped));
		json_object_set_new(sel, "total_ns", jint(res->range_total));
	} else {
		sel = json_null();
	}
	json_object_set_new(s->root, "selection", sel);
	/* record --capture-range: only these windows were recorded and read */
	if (res->capture) {
		json_t *cap = json_object();
		json_object_set_new(cap, "range", render_json_str(r->in->capture_range));
		json_object_set_new(cap, "windows", jint((int64_t)res->capture_windows));
		json_object_set_new(cap, "captured_ns", jint(res->capture_ns));
		json_object_set_new(cap, "starts_skipped", jint((int64_t)r->in->capture_dropped));
		json_object_set_new(cap, "damaged_rows_skipped",
				    jint((int64_t)r->in->capture_damaged));
		json_object_set_new(s->root, "capture", cap);
	} else {
		json_object_set_new(s->root, "capture", json_null());
	}
	ins = json_object();
	json_object_set_new(ins, "kernels_instrumented",
			    res->instrumented < 0 ? json_null() : json_boolean(res->instrumented));
	json_object_set_new(ins, "measured_kernel_overhead_ns",
			    r->in->kernel_overhead_ns >= 0 ? jint(r->in->kernel_overhead_ns)
							   : json_null());
	json_object_set_new(ins, "subtracted_per_kernel_ns", jint(res->kernel_overhead_ns));
	/* an imported torch.profiler trace: the options that add host time */
	json_object_set_new(ins, "torch_profiler_options", render_json_str(r->in->torch_options));
	/* an imported trace with graph launches whose GPU work it lacks */
	json_object_set_new(ins, "graph_launches_unseen", jint(r->in->graph_launches_unseen));
	/* what the collector's call-site captures and CUPTI's own stalls took
	 * in the program's threads */
	{
		struct gs_capture_cost cc;
		json_object_set_new(
		    ins, "callsite_captures",
		    gs_span_cost(r->in->captures, r->in->n_captures, &cc) || !cc.n
			? json_null()
			: json_pack("{sIsIsIsosI}", "count", (json_int_t)cc.n, "total_ns",
				    (json_int_t)cc.total_ns, "p50_ns", (json_int_t)cc.p50_ns,
				    "unwinder", render_json_str(r->in->unwinder), "native_walks",
				    (json_int_t)r->in->n_native_captures));
		json_object_set_new(ins, "cupti_stalls",
				    gs_span_cost(r->in->stalls, r->in->n_stalls, &cc) || !cc.n
					? json_null()
					: json_pack("{sIsIsI}", "count", (json_int_t)cc.n,
						    "total_ns", (json_int_t)cc.total_ns, "p50_ns",
						    (json_int_t)cc.p50_ns));
	}
	json_object_set_new(s->root, "instrumentation", ins);
	if (r->corr) { /* docs/collector.md, "Overhead correction" */
		json_t *c = json_object(), *devs = json_array(), *rg = json_array();
		size_t i;
		json_object_set_new(c, "per_call_ns", jint(r->corr->per_call_ns));
		json_object_set_new(c, "per_call_from_trace", json_boolean(r->corr->from_trace));
		/* CUPTI's time between back-to-back launch records, added to
		 * each launch call's (at most the time before the call) */
		json_object_set_new(c, "launch_gap_ns",
				    r->corr->launch_gap_ns >= 0 ? jint(r->corr->launch_gap_ns)
								: json_null());
		json_object_set_new(c, "launch_gap_from_trace",
				    json_boolean(r->corr->launch_gap_from_trace));
		/* launch calls after the program's own work, taken against the
		 * calibration's spaced launch (calibration.spaced_*) */
		json_object_set_new(c, "spaced_launch_calls", jint(r->corr->spaced_calls));
		/* their median traced record against the calibration's such
		 * record: slow_process where the process ran slower than the
		 * calibration (GS_SLOW_PROCESS_*) */
		json_object_set_new(c, "spaced_record_p50_ns",
				    r->corr->spaced_record_p50_ns >= 0
					? jint(r->corr->spaced_record_p50_ns)
					: json_null());
		json_object_set_new(c, "spaced_record_cal_ns",
				    r->corr->spaced_record_cal_ns >= 0
					? jint(r->corr->spaced_record_cal_ns)
					: json_null());
		json_object_set_new(c, "slow_process",
				    json_boolean(gs_corrected_slow_process(r->corr)));
		/* and, where the reference runs timed the program's own
		 * untraced such launch, that against the calibration's */
		json_object_set_new(c, "program_spaced_launch_ns",
				    r->corr->program_spaced_ns > 0
					? jint(r->corr->program_spaced_ns)
					: json_null());
		json_object_set_new(c, "plain_spaced_launch_ns",
				    r->corr->plain_spaced_ns > 0 ? jint(r->corr->plain_spaced_ns)
								 : json_null());
		json_object_set_new(c, "kernel_ns", jint(r->in->cal.kernel_ns));
		json_object_set_new(c, "gpu_gap_ns", jint(r->in->cal.gpu_gap_ns));
		/* the occupancy model (calibration *_pitch_ns): what a launched
		 * kernel's busy time lost, negative where it gained the GPU's
		 * switch to the next kernel */
		json_object_set_new(c, "occupancy", json_boolean(r->corr->occupancy));
		json_object_set_new(c, "kernel_busy_ns", jint(r->corr->kernel_busy_ns));
		json_object_set_new(c, "plain_kernel_pitch_ns",
				    r->corr->occupancy ? jint(r->in->cal.plain_kernel_pitch_ns)
						       : json_null());
		json_object_set_new(c, "tiny_kernel_ns",
				    r->corr->occupancy ? jint(r->in->cal.tiny_kernel_ns)
						       : json_null());
		json_object_set_new(c, "graph_nodes", jint(r->corr->graph_nodes));
		json_object_set_new(c, "graph_node_shrink_ns",
				    r->corr->graph_nodes ? jint(r->corr->graph_node_shrink_ns)
							 : json_null());
		json_object_set_new(c, "graph_launch_shrink_ns",
				    gs_graph_launch_stat(r->res)
					? jint(r->corr->graph_launch_shrink_ns)
					: json_null());
		json_object_set_new(c, "graph_launches", jint(r->corr->graph_launches));
		json_object_set_new(c, "plain_graph_launch_ns",
				    r->in->cal.plain_graph_ns >= 0 ? jint(r->in->cal.plain_graph_ns)
								   : json_null());
		json_object_set_new(c, "plain_graph_node_ns",
				    r->in->cal.plain_graph_node_ns >= 0
					? jint(r->in->cal.plain_graph_node_ns)
					: json_null());
		/* where graph_node_shrink_ns came from: a graph of storing
		 * kernels, or (false) an empty kernel's graph_node_ns */
		json_object_set_new(c, "graph_node_store_calibrated",
				    json_boolean(r->in->cal.store_graph_node_ns >= 0));
		for (i = 0; i < r->corr->n_devices; i++) {
			const struct gs_corrected_device *d = &r->corr->devices[i];
			json_t *o = json_object();
			json_object_set_new(o, "device", json_integer(d->device));
			json_object_set_new(o, "window_ns", jint(d->window));
			json_object_set_new(o, "busy_ns", jint(d->busy));
			json_object_set_new(o, "idle_ns", jint(d->idle));
			json_object_set_new(o, "idle_removed_ns", jint(d->idle_removed));
			json_object_set_new(o, "busy_removed_ns", jint(d->busy_removed));
			json_object_set_new(o, "utilisation", json_real(d->utilisation));
			json_object_set_new(o, "launch_overhead_share",
					    json_real(d->launch_overhead_share));
			json_array_append_new(devs, o);
		}
		for (i = 0; i < r->corr->n_ranges; i++) {
			json_t *o = json_object();
			json_object_set_new(o, "name", jstrid(r, r->corr->ranges[i].text_id));
			json_object_set_new(o, "count", jint((int64_t)r->corr->ranges[i].count));
			json_object_set_new(o, "wall_ns", jint(r->corr->ranges[i].wall));
			json_object_set_new(o, "corrected_wall_ns",
					    jint(r->corr->ranges[i].corrected));
			json_object_set_new(o, "kernel_time_removed_ns",
					    jint(r->corr->ranges[i].busy_removed));
			/* the corrected GPU busy time and its share of the
			 * corrected wall (the text's "busy corr.") */
			json_object_set_new(o, "corrected_busy_ns", jint(r->corr->ranges[i].busy));
			json_object_set_new(o, "corrected_busy_share",
					    json_real(r->corr->ranges[i].busy_share));
			json_array_append_new(rg, o);
		}
		json_object_set_new(c, "devices", devs);
		json_object_set_new(c, "nvtx", rg);
		json_object_set_new(s->root, "overhead_corrected", c);
	} else {
		json_object_set_new(s->root, "overhead_corrected", json_null());
	}
	json_object_set(s->root, "devices", s->devices);
	return 0;
}

static json_t *explained_by(const struct report_ctx *r, const struct gs_gap *g)
{
	const struct gs_input *in = r->in;
	json_t *o;

	if (g->explain_kind == GS_EXPLAIN_NONE)
		return json_null();
	o = json_object();
	json_object_set_new(o, "type", json_string(report_explain_name(g->explain_kind)));
	switch (g->explain_kind) {
	case GS_EXPLAIN_LAUNCH:
	case GS_EXPLAIN_HOST_FUNC: {
		const struct gs_api *a = &in->apis[g->explain_idx];
		json_object_set_new(o, "api", jstrid(r, a->name_id));
		json_object_set_new(o, "tid", jint(a->tid));
		json_object_set_new(o, "start_ns", jint(a->start));
		json_object_set_new(o, "end_ns", jint(a->end));
		json_object_set_new(o, "correlation_id", jint(a->corr));
		break;
	}
	case GS_EXPLAIN_SYNC:
	case GS_EXPLAIN_WAIT: {
		const struct gs_sync *sy = &in->syncs[g->explain_idx];
		json_object_set_new(o, "api", jstrid(r, sy->api_name_id));
		json_object_set_new(o, "sync_kind", json_string(gs_sync_kind_name(sy->kind)));
		json_object_set_new(o, "implicit", json_boolean(sy->implicit));
		json_object_set_new(o, "tid", jint(sy->tid));
		json_object_set_new(o, "start_ns", jint(sy->start));
		json_object_set_new(o, "end_ns", jint(sy->end));
		json_object_set_new(o, "stream", jint(sy->stream));
		break;
	}
	default: break;
	}
	return o;
}

/* the gap's segments (gap model v2), in time order */
static json_t *segments(const struct report_ctx *r, const struct gs_gap *g)
{
	const struct gs_input *in = r->in;
	struct gs_segment buf[64], *v;
	size_t n = gs_gap_segments_all(r->res, g, buf, 64, &v), i;
	json_t *a = json_array();

	if (n == (size_t)-1)
		return a;
	for (i = 0; i < n; i++) {
		json_t *o = json_object();
		const char *ref = NULL;
		json_object_set_new(o, "cause", json_string(gs_cause_key(v[i].cause)));
		json_object_set_new(o, "start_ns", jint(v[i].start));
		json_object_set_new(o, "duration_ns", jint(v[i].end - v[i].start));
		if (v[i].tid)
			json_object_set_new(o, "tid", jint(v[i].tid));
		if (v[i].n_calls)
			json_object_set_new(o, "calls", jint(v[i].n_calls));
		if (v[i].cause == GS_CAUSE_HOST_CODE) {
			uint32_t h = gs_host_range_at(in, v[i].tid, v[i].start, v[i].end);
			if (h != GS_NONE)
				json_object_set_new(o, "host_op",
						    jstrid(r, in->hranges[h].name_id));
			if (in->n_samples && in->sample_cpu_ns > 0) {
				/* how much of it the thread ran (gs_host_running) */
				struct gs_host_attr at;
				double run;
				gs_host_attribute(in, v[i].tid, v[i].start, v[i].end, &at);
				run = gs_host_running(in, &at);
				if (run >= 0.0)
					json_object_set_new(o, "running_share", json_real(run));
				/* off-CPU samples: the share of it the thread waited */
				if (at.unit_ns && v[i].end > v[i].start)
					json_object_set_new(
					    o, "off_cpu_share",
					    json_real((double)at.wait_ns /
						      (double)(v[i].end - v[i].start)));
			}
		}
		if ((v[i].ref_kind == GS_EXPLAIN_SYNC || v[i].ref_kind == GS_EXPLAIN_WAIT) &&
		    v[i].ref_idx < in->n_syncs)
			ref = gs_str(&in->strings, in->syncs[v[i].ref_idx].api_name_id, NULL);
		else if ((v[i].ref_kind == GS_EXPLAIN_LAUNCH ||
			  v[i].ref_kind == GS_EXPLAIN_HOST_FUNC) &&
			 v[i].ref_idx < in->n_apis)
			ref = gs_str(&in->strings, in->apis[v[i].ref_idx].name_id, NULL);
		if (ref)
			json_object_set_new(o, "api", render_json_str(ref));
		json_array_append_new(a, o);
	}
	if (v != buf)
		free(v);
	return a;
}

static int j_device(struct report_ctx *r, const struct gs_device_result *d)
{
	struct jstate *s = r->priv;
	json_t *o = timeline(&d->tl), *streams = json_array(), *gaps = json_array();
	size_t i;

	json_object_set_new(o, "device", json_integer(d->device));
	for (i = 0; i < d->n_streams; i++) {
		json_t *so = timeline(&d->streams[i].tl);
		json_object_set_new(so, "stream", jint(d->streams[i].stream));
		json_array_append_new(streams, so);
	}
	for (i = 0; i < d->n_top; i++) {
		const struct gs_gap *g = &d->gaps[d->top_gaps[i]];
		const struct gs_op *x = &r->in->ops[g->op_idx];
		json_t *go = json_object(), *op = json_object();
		json_object_set_new(go, "start_ns", jint(g->start));
		/* a capture trace: the recorded time from window_start_ns (the
		 * device window counts no time between capture windows, nor
		 * does this), and the capture window that holds the gap */
		json_object_set_new(go, "offset_ns",
				    jint(gs_capture_overlap(r->in, d->tl.first, g->start)));
		if (r->in->capture_range) {
			int64_t off = 0;
			size_t win = gs_capture_window_at(r->in, g->start, &off);
			json_t *cw = json_object();
			json_object_set_new(cw, "window", win ? jint((int64_t)win) : json_null());
			json_object_set_new(cw, "offset_ns", win ? jint(off) : json_null());
			json_object_set_new(go, "capture_window", cw);
		} else {
			json_object_set_new(go, "capture_window", json_null());
		}
		json_object_set_new(go, "duration_ns", jint(g->end - g->start));
		json_object_set_new(go, "cause", json_string(gs_cause_key(g->cause)));
		json_object_set_new(go, "host_late", json_boolean(g->host_late));
		json_object_set_new(go, "segments", segments(r, g));
		json_object_set_new(op, "kind", json_string(report_op_kind_name(x->kind)));
		json_object_set_new(op, "name",
				    x->kind == GS_OP_KERNEL ? jstrid(r, x->name_id) : json_null());
		json_object_set_new(op, "demangled",
				    x->kind == GS_OP_KERNEL ? jdemangled(r, x->name_id)
							    : json_null());
		json_object_set_new(op, "stream", jint(x->stream));
		json_object_set_new(op, "correlation_id", jint(x->corr));
		json_object_set_new(op, "start_ns", jint(x->start));
		json_object_set_new(go, "op", op);
		json_object_set_new(go, "explained_by", explained_by(r, g));
		json_object_set_new(go, "nvtx",
				    g->nvtx_idx == GS_NONE
					? json_null()
					: jstrid(r, r->in->nvtx[g->nvtx_idx].text_id));
		json_array_append_new(gaps, go);
	}
	json_object_set_new(o, "streams", streams);
	json_object_set_new(o, "top_gaps", gaps);
	return json_array_append_new(s->devices, o) ? -1 : 0;
}

static int j_launches(struct report_ctx *r)
{
	struct jstate *s = r->priv;
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->res->n_launches; i++) {
		const struct gs_launch_stat *l = &r->res->launches[i];
		json_t *o = json_object();
		json_object_set_new(o, "api", jstrid(r, l->name_id));
		json_object_set_new(o, "calls", jint((int64_t)l->api_dur.n));
		json_object_set_new(o, "api_duration_ns", dist(&l->api_dur));
		json_object_set_new(o, "queue_ns", dist(&l->queue));
		json_object_set_new(o, "launch_delay_ns", dist(&l->delay));
		json_array_append_new(a, o);
	}
	return json_object_set_new(s->root, "launch_apis", a) ? -1 : 0;
}

/* --by-site: GPU idle by call site, top sites first, --top N of them */
static json_t *by_site(const struct report_ctx *r, const struct gs_site_stat *st, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n && i < (size_t)r->opt->top_n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "idle_ns",
				    jint(gs_sat_add(st[i].sync_idle_ns, st[i].late_idle_ns)));
		json_object_set_new(o, "sync_idle_ns", jint(st[i].sync_idle_ns));
		json_object_set_new(o, "late_idle_ns", jint(st[i].late_idle_ns));
		json_object_set_new(o, "host_blocked_ns", jint(st[i].blocked_ns));
		json_object_set_new(o, "calls", jint((int64_t)st[i].calls));
		json_object_set_new(o, "gaps", jint((int64_t)st[i].n_gaps));
		json_object_set_new(o, "site", jsite(r, st[i].site));
		json_object_set_new(o, "api", jstrid(r, st[i].api_name_id));
		json_array_append_new(a, o);
	}
	return a;
}

/* --by-site: what ran in the host code (host_attr.c); null when nothing
 * tells (no samples, no host spans) */
static json_t *host_by_code(const struct report_ctx *r)
{
	struct gs_host_attr a;
	json_t *o, *top;
	double run;
	size_t i;

	if (gs_host_code_attr(r->res, &a) != 0 || a.source == GS_HOST_SRC_NONE)
		return json_null();
	o = json_object();
	top = json_array();
	json_object_set_new(o, "source",
			    json_string(a.source == GS_HOST_SRC_SAMPLES ? "samples" : "host_spans"));
	/* "samples": weights count samples; "ns": time (a trace with
	 * off-CPU samples: each weighs the time it stands for) */
	json_object_set_new(o, "unit", json_string(a.source == GS_HOST_SRC_SAMPLES && !a.unit_ns
							   ? "samples"
							   : "ns"));
	json_object_set_new(o, "samples", jint(a.samples));
	json_object_set_new(o, "off_cpu_ns", a.unit_ns ? jint(a.wait_ns) : json_null());
	json_object_set_new(o, "total", jint(a.total));
	json_object_set_new(o, "named", jint(a.named));
	json_object_set_new(o, "framework", jint(a.framework));
	run = gs_host_running(r->in, &a);
	json_object_set_new(o, "running_share", run >= 0.0 ? json_real(run) : json_null());
	for (i = 0; i < a.n_top; i++) {
		json_t *t = json_object();
		char name[320];
		gs_host_item_name(name, sizeof(name), r->in, &a.top[i]);
		json_object_set_new(t, "name", render_json_str(name));
		json_object_set_new(t, "file", a.top[i].span ? json_null()
							       : jstrid(r, a.top[i].file_id));
		json_object_set_new(t, "function", jstrid(r, a.top[i].func_id));
		json_object_set_new(t, "line", a.top[i].line >= 0 ? jint(a.top[i].line) : json_null());
		json_object_set_new(t, "weight", jint(a.top[i].weight));
		json_object_set_new(t, "framework", json_boolean(a.top[i].framework));
		json_object_set_new(t, "off_cpu", json_boolean(a.top[i].wait));
		json_object_set_new(t, "via",
				    json_string(a.top[i].via == GS_HOST_VIA_IMPORT	? "import"
						: a.top[i].via == GS_HOST_VIA_FRAMEWORK ? "framework"
											: "frame"));
		json_array_append_new(top, t);
	}
	json_object_set_new(o, "top", top);
	return o;
}

static int j_syncs(struct report_ctx *r)
{
	struct jstate *s = r->priv;
	json_t *o = json_object(), *ex = json_array(), *im = json_array();
	struct gs_site_stat *sites = NULL;
	size_t i, n_sites;

	n_sites = gs_site_stats(r->res, &sites);
	if (n_sites == (size_t)-1) {
		json_decref(o);
		json_decref(ex);
		json_decref(im);
		return -1;
	}
	if (r->by_site) {
		json_object_set_new(s->root, "by_site", by_site(r, sites, n_sites));
		json_object_set_new(s->root, "host_code_by_code", host_by_code(r));
	}
	for (i = 0; i < r->res->n_syncs; i++) {
		const struct gs_sync_group *g = &r->res->syncs[i];
		json_t *go = json_object();
		json_object_set_new(go, "kind", json_string(gs_sync_kind_name(g->kind)));
		json_object_set_new(go, "api", jstrid(r, g->api_name_id));
		if (g->implicit)
			json_object_set_new(go, "reason", jstrid(r, g->reason_id));
		json_object_set_new(go, "count", jint((int64_t)g->count));
		json_object_set_new(go, "blocked_ns", jint(g->blocked_ns));
		json_object_set_new(go, "gpu_idle_ns", jint(g->gpu_idle_ns));
		json_object_set_new(go, "gaps", jint((int64_t)g->n_gaps));
		{
			/* the top site of the group's API, as the text report's
			 * "at <site>: N calls, X GPU idle" line */
			const struct gs_site_stat *t =
			    report_top_site(sites, n_sites, g->api_name_id);
			json_object_set_new(go, "site", t ? jsite(r, t->site) : json_null());
			json_object_set_new(go, "site_calls",
					    t ? jint((int64_t)t->calls) : json_null());
			json_object_set_new(go, "site_gpu_idle_ns",
					    t ? jint(t->sync_idle_ns) : json_null());
		}
		json_array_append_new(g->implicit ? im : ex, go);
	}
	free(sites);
	json_object_set_new(o, "explicit", ex);
	json_object_set_new(o, "implicit", im);
	{
		json_t *pa = json_array();
		for (i = 0; i < r->res->n_polls; i++) {
			const struct gs_poll_stat *p = &r->res->polls[i];
			json_t *po = json_object();
			json_object_set_new(po, "api", jstrid(r, p->api_name_id));
			json_object_set_new(po, "count", jint((int64_t)p->count));
			json_object_set_new(po, "time_ns", jint(p->time_ns));
			json_array_append_new(pa, po);
		}
		json_object_set_new(s->root, "polls", pa);
	}
	return json_object_set_new(s->root, "syncs", o) ? -1 : 0;
}

static int j_kernels(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	struct jstate *s = r->priv;
	json_t *o = json_object(), *top = json_array();
	size_t i, n = res->n_kernels < r->opt->top_n ? res->n_kernels : r->opt->top_n;

	json_object_set_new(o, "count", jint((int64_t)res->n_kernel_ops));
	json_object_set_new(o, "names", jint((int64_t)res->n_kernels));
	json_object_set_new(o, "launch_cost_ns", jint(res->launch_cost_ns));
	json_object_set_new(o, "launch_cost_source",
			    json_string(res->launch_cost_measured     ? "measured"
					: r->opt->launch_cost_ns >= 0 ? "option"
								      : "default"));
	json_object_set_new(o, "launched_count", jint((int64_t)res->n_launched_kernels));
	json_object_set_new(o, "short_count", jint((int64_t)res->n_short_kernels));
	json_object_set_new(o, "short_share", json_real(res->short_kernel_share));
	for (i = 0; i < n; i++) {
		const struct gs_kernel_stat *k = &res->kernels[i];
		json_t *ko = json_object();
		json_object_set_new(ko, "name", jstrid(r, k->name_id));
		json_object_set_new(ko, "demangled", jdemangled(r, k->name_id));
		json_object_set_new(ko, "count", jint((int64_t)k->count));
		json_object_set_new(ko, "total_ns", jint(k->total));
		json_object_set_new(ko, "p50_ns", jint(k->p50));
		json_array_append_new(top, ko);
	}
	json_object_set_new(o, "top", top);
	return json_object_set_new(s->root, "kernels", o) ? -1 : 0;
}

/* one range's walls in the untraced reference runs (--reference) */
static json_t *j_untraced(const struct gs_reference_range *g)
{
	json_t *o = json_object();

	json_object_set_new(o, "runs", jint(g->runs));
	json_object_set_new(o, "count_differs", jint(g->count_differs));
	json_object_set_new(o, "wall_ns", g->runs ? jint(g->untraced) : json_null());
	json_object_set_new(o, "min_ns", g->runs ? jint(g->min) : json_null());
	json_object_set_new(o, "max_ns", g->runs ? jint(g->max) : json_null());
	json_object_set_new(o, "traced_error",
			    g->have_errors ? json_real(g->traced_error) : json_null());
	json_object_set_new(o, "corrected_error",
			    g->have_errors && g->have_corrected ? json_real(g->corrected_error)
								: json_null());
	json_object_set_new(o, "busy_ns", jint(g->busy));
	json_object_set_new(o, "busy_share",
			    g->have_errors ? json_real(g->busy_share) : json_null());
	return o;
}

static int j_nvtx(struct report_ctx *r)
{
	struct jstate *s = r->priv;
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->res->n_nvtx; i++) {
		const struct gs_nvtx_stat *n = &r->res->nvtx[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", jstrid(r, n->text_id));
		json_object_set_new(o, "count", jint((int64_t)n->count));
		json_object_set_new(o, "wall_ns", jint(n->wall));
		json_object_set_new(o, "gpu_busy_ns", jint(n->gpu_busy));
		json_object_set_new(o, "gpu_busy_share", json_real(n->busy_share));
		if (r->ref && r->ref->n_ranges == r->res->n_nvtx)
			json_object_set_new(o, "untraced", j_untraced(&r->ref->ranges[i]));
		json_array_append_new(a, o);
	}
	if (r->ref) {
		json_t *ro = json_object(), *paths = json_array();
		unsigned k;
		for (k = 0; k < r->ref->n_runs; k++)
			json_array_append_new(paths, render_json_str(r->ref_paths[k]));
		json_object_set_new(ro, "runs", jint(r->ref->n_runs));
		json_object_set_new(ro, "traces", paths);
		json_object_set_new(s->root, "reference", ro);
	}
	return json_object_set_new(s->root, "nvtx", a) ? -1 : 0;
}

static int j_advice(struct report_ctx *r)
{
	const struct gs_result *res = r->res;
	struct jstate *s = r->priv;
	json_t *o = json_object(), *seqs = json_array();
	size_t i, k;

	json_object_set_new(o, "node_overhead_ns", jint(res->graph_node_overhead_ns));
	json_object_set_new(o, "node_overhead_source",
			    json_string(res->graph_node_overhead_source == 2   ? "measured"
					: res->graph_node_overhead_source == 1 ? "option"
									       : "default"));
	json_object_set_new(o, "node_hole_p50_ns",
			    res->graph_node_hole_p50_ns >= 0 ? jint(res->graph_node_hole_p50_ns)
							     : json_null());
	for (i = 0; i < res->n_advice; i++) {
		const struct gs_graph_advice *a = &res->advice[i];
		json_t *ao = json_object(), *ops = json_array();
		char *sentence = report_advice_sentence(r, a);
		for (k = 0; k < a->length; k++)
			json_array_append_new(ops,
					      a->kinds[k] == GS_OP_KERNEL
						  ? jstrid(r, a->names[k])
						  : json_string(report_op_kind_name(a->kinds[k])));
		json_object_set_new(ao, "device", json_integer(a->device));
		json_object_set_new(ao, "stream", jint(a->stream));
		json_object_set_new(ao, "length", jint(a->length));
		json_object_set_new(ao, "count", jint((int64_t)a->count));
		json_object_set_new(ao, "ops", ops);
		json_object_set_new(ao, "measured_ns", jint(a->measured));
		json_object_set_new(ao, "op_time_ns", jint(a->op_time));
		json_object_set_new(ao, "launch_idle_ns", jint(a->launch_idle));
		json_object_set_new(ao, "estimate_ns", jint(a->estimate));
		json_object_set_new(ao, "saving_ns", jint(a->saving));
		json_object_set_new(ao, "saving_share", json_real(a->saving_share));
		json_object_set_new(ao, "advise", json_boolean(a->advise));
		json_object_set_new(ao, "sentence",
				    sentence ? render_json_str(sentence) : json_null());
		free(sentence);
		json_array_append_new(seqs, ao);
	}
	json_object_set_new(o, "sequences", seqs);
	return json_object_set_new(s->root, "graph_advice", o) ? -1 : 0;
}

static int j_end(struct report_ctx *r)
{
	struct jstate *s = r->priv;
	int rc = -1;

	if (!s)
		return -1;
	if (s->root && json_dumpf(s->root, r->out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0) {
		fputc('\n', r->out);
		rc = 0;
	}
	json_decref(s->devices);
	json_decref(s->root);
	free(s);
	r->priv = NULL;
	return rc;
}

const struct report_ops report_json_ops = {
    .name = "json",
    .begin = j_begin,
    .device = j_device,
    .launches = j_launches,
    .syncs = j_syncs,
    .kernels = j_kernels,
    .nvtx = j_nvtx,
    .advice = j_advice,
    .end = j_end,
};
