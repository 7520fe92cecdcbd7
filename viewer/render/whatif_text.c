/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * whatif_text.c - `gapscope whatif`'s text (whatif_text.h).
 */
#include <stdio.h>

#include "term.h"
#include "whatif_text.h"

static const char *fmt_ns(char *buf, size_t n, int64_t ns)
{
	double a = ns < 0 ? -(double)ns : (double)ns;

	if (a >= 1e9)
		snprintf(buf, n, "%.3f s", (double)ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%.3f ms", (double)ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%.2f us", (double)ns / 1e3);
	else
		snprintf(buf, n, "%lld ns", (long long)ns);
	return buf;
}

static void row(FILE *f, const char *what, int64_t b, int64_t a)
{
	char x[32], y[32], d[32];

	fprintf(f, "  %-14s %14s %14s %14s", what, fmt_ns(x, sizeof(x), b), fmt_ns(y, sizeof(y), a),
		fmt_ns(d, sizeof(d), a - b));
	if (b > 0)
		fprintf(f, " (%+.1f%%)", 100.0 * (double)(a - b) / (double)b);
	fputc('\n', f);
}

int whatif_text(FILE *f, const struct whatif_view *v)
{
	char x[32], y[32], t[128];
	const struct gs_whatif *w = v->w;

	fputs("whatif: ", f);
	term_put(f, v->path);
	fputc('\n', f);
	if (v->check) {
		const struct gs_whatif_check *c = v->check;
		fprintf(f,
			"unchanged replay: %llu ops, start error max %s, p99 %s, %llu ops off;"
			" window %s, replayed %+lld ns\n",
			(unsigned long long)c->n_ops, fmt_ns(x, sizeof(x), c->max_err),
			fmt_ns(y, sizeof(y), c->p99_err), (unsigned long long)c->n_off,
			fmt_ns(t, sizeof(t), c->window), (long long)c->window_err);
		fprintf(f, "  %llu API calls, start error max %s\n", (unsigned long long)c->n_calls,
			fmt_ns(x, sizeof(x), c->call_max_err));
	}
	if (!w)
		return ferror(f) ? -1 : 0;
	fputs("fixes: ", f);
	term_put_max(f, v->fixes, 140);
	fputc('\n', f);
	if (v->untrace) {
		char z[32];
		fprintf(f,
			"tracing's cost taken off first (the report's overhead correction): %s per"
			" launch call, %s per kernel, %s per graph node\n",
			fmt_ns(x, sizeof(x), v->untrace->call_ns),
			fmt_ns(y, sizeof(y), v->untrace->kernel_ns),
			fmt_ns(z, sizeof(z), v->untrace->node_ns));
		if (v->untrace->alloc_ns > 0)
			fprintf(f, "  and %s per cudaMalloc or cudaFree\n",
				fmt_ns(x, sizeof(x), v->untrace->alloc_ns));
	} else if (v->traced_why) {
		fputs(v->traced_why == 1 ? "replayed as recorded (--traced): the figures keep"
					   " tracing's cost\n"
					 : "replayed as recorded: no calibration in the trace, the"
					   " figures keep tracing's cost\n",
		      f);
	}
	if (w->calls_dropped || w->calls_unblocked || w->ops_changed || w->graph_replays ||
	    w->host_gaps)
		fprintf(
		    f,
		    "  changed: %llu calls removed, %llu made async, %llu ops changed, %llu graph"
		    " replays, %llu host-code stretches removed\n",
		    (unsigned long long)w->calls_dropped, (unsigned long long)w->calls_unblocked,
		    (unsigned long long)w->ops_changed, (unsigned long long)w->graph_replays,
		    (unsigned long long)w->host_gaps);
	else
		fputs("  nothing in the trace for them to change\n", f);
	if (w->pinned_gbps > 0)
		fprintf(f, "pinned copies at %.1f GB/s (%s)\n", w->pinned_gbps,
			w->pinned_measured ? "measured on the trace's pinned copies" : "assumed");
	else if (!v->have_bytes && w->ops_changed && w->pinned_measured == 0 && v->pageable)
		fputs("copy bytes unknown: pageable copies keep their durations\n", f);
	if (v->range) {
		fprintf(f, "figures of the %llu ops launched in NVTX ranges \"",
			(unsigned long long)w->range_ops);
		term_put_max(f, v->range, 60);
		fputs("\"\n", f);
	}
	fprintf(f, "  %-14s %14s %14s %14s\n", "", "before", "after", "change");
	row(f, "GPU window", w->before.window, w->after.window);
	row(f, "GPU busy", w->before.busy, w->after.busy);
	fprintf(f, "  %-14s %13.1f%% %13.1f%%\n", "utilisation", 100.0 * w->before.utilisation,
		100.0 * w->after.utilisation);
	if (w->before.steps) {
		if (w->step_source == GS_STEPS_OPTIMIZER) {
			fprintf(
			    f,
			    "  step: the median of %llu iterations, each ending with an NVTX range"
			    " \"Optimizer.step#*\"\n",
			    (unsigned long long)w->before.steps);
		} else {
			fprintf(f, "  step: the median of %llu NVTX ranges \"",
				(unsigned long long)w->before.steps);
			if (w->step_stem_len && w->step_stem) {
				char stem[256];
				snprintf(stem, sizeof(stem), "%.*s*",
					 (int)(w->step_stem_len < 200 ? w->step_stem_len : 200),
					 w->step_stem);
				term_put_max(f, stem, 60);
			} else
				term_put_max(f, gs_str(&v->in->strings, w->step_text_id, "?"), 60);
			fputs("\"\n", f);
		}
		row(f, "step", w->before.step_ns, w->after.step_ns);
	}
	if (w->bound_ns > 0)
		fprintf(
		    f,
		    "note: the replay overlaps ops more than the trace did: the saving holds the"
		    " window to %s, their work\n      overlapped as much as in the trace (ops"
		    " that overlap more share the GPU)\n",
		    fmt_ns(x, sizeof(x), w->after.window + w->bound_ns));
	fprintf(f, "saves ~ %s (%.1f%% of the GPU window)\n", fmt_ns(x, sizeof(x), w->saving_ns),
		100.0 * w->saving_share);
	return ferror(f) ? -1 : 0;
}
