/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * render_html.h - the self-contained HTML page of `gapscope html`: summary
 * cards, an SVG timeline drawn by embedded JavaScript from compact JSON,
 * a histogram of gap durations by cause, and the analysis tables; with two
 * runs, a comparison (diff.h) on top and both runs side by side.
 *
 * It renders the analysis library's results and the loaded input arrays,
 * and the verdict and totals the verb computed; it computes no gaps itself and fetches nothing (CSS and JS are embedded,
 * see html_assets/). Every string from a trace is escaped for its place:
 * html_escape() in markup, JSON_HTML_SAFE inside the <script> data block.
 */
#ifndef GAPSCOPE_RENDER_HTML_H
#define GAPSCOPE_RENDER_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "correct.h"
#include "reference.h"
#include "diff.h"
#include "trace.h"

struct html_run {
	const char *path;	     /* trace file: the run's title */
	const char *range;	     /* NVTX range text res was restricted to,
					NULL: the whole trace */
	struct trace *t;	     /* open trace: device names, command line, threads */
	const struct gs_input *in;   /* loaded arrays (trace_load) */
	const struct gs_result *res; /* gs_analyze() of in */
	const struct gs_verdict *verdict; /* gs_verdict_compute_corr(res, corr), by the verb */
	const struct run_totals *totals;  /* run_totals_compute(res), by the verb */
	const struct gs_corrected *corr; /* figures corrected for the collector's
					    overhead (gs_correct), NULL: none */
	const struct gs_reference *ref;	 /* NVTX walls of untraced reference runs
					    (--reference), NULL: none */
};

/* Write the page for one run, or for two (nruns = 2, diff of runs[0] ->
 * runs[1] given in d; d is NULL for one run). Returns 0, or -1 with a
 * reason in err (out of memory, write error). */
int render_html(FILE *f, const struct html_run *runs, size_t nruns, const struct diff_result *d,
		char *err, size_t errlen);

/* Text made safe for HTML text and quoted attribute values: & < > " '
 * as entities, control characters (but \n and \t) and bytes that are not
 * valid UTF-8 as U+FFFD. s may be NULL. */
void html_escape(FILE *f, const char *s);

/* html_escape() of a kernel name, demangled first when it is an
 * Itanium-mangled one (names.h), as the report shows it. */
void html_escape_kernel(FILE *f, const char *name);

/* Gap-duration histogram bins: [0,100 ns) [100 ns,1 us) [1,10 us)
 * [10,100 us) [100 us,1 ms) [1,10 ms) [10 ms, inf). */
#define HTML_HIST_BINS 7
int html_hist_bin(int64_t dur_ns);
/* Count every device gap of res into counts[bin][cause]. */
void html_gap_histogram(const struct gs_result *res,
			uint64_t counts[HTML_HIST_BINS][GS_CAUSE_COUNT]);

/* Start of the page's time axis for a run: the earliest start of any op,
 * API call, sync or NVTX record (0 if none). Times in the page's data are
 * ns from this origin. */
int64_t html_origin(const struct gs_input *in);

/* The part of the run the timeline opens on, in trace ns: the extent of
 * the NVTX ranges named r->range, else the GPU window (first op start to
 * last op end), with a 1% margin, within [t0, last]; [t0, last] when there
 * is nothing to frame. The whole run (CUDA initialisation before the first
 * GPU op can take seconds) is a double-click away in the page. */
void html_home_view(const struct html_run *r, int64_t t0, int64_t last, int64_t *v0, int64_t *v1);

/* html_data.c: the <script> block of run r's timeline data (the page's
 * run idx); 0, or -1 when out of memory (the block is then incomplete). */
int html_write_data(FILE *f, const struct html_run *r, int idx);

/* Inline SVG diagrams of up to `max` recorded CUDA graphs (most launched
 * first; html_graphs.c, drawn by render_dot.c). Writes nothing when the
 * trace has no graphs. Returns the number drawn. */
int html_write_graphs(FILE *f, struct trace *t, size_t max);

/* ---- loading a run (html_load.c), shared by html, diff and export ---- */

/* One trace opened, loaded and analysed. */
struct html_loaded {
	struct trace t;		      /* private: the trace this run opened */
	struct gs_input in;	      /* private: its loaded arrays */
	struct gs_result res;	      /* gs_analyze() of *input */
	struct trace *trace;	      /* the open trace: &t, or the run's it shares */
	const struct gs_input *input; /* the loaded arrays: &in, or shared */
	int state;		      /* private: what to free */
};

/* Open path, load it and analyse it (options opt). On failure prints the
 * one-line error (gs_error) and returns the exit code (2 bad input, also
 * for a trace without GPU activity, and for opt->range_name matching no
 * NVTX range: the line names the ranges the trace has; 1 internal); 0 on
 * success. */
int html_load(struct html_loaded *r, const char *path, const struct gs_options *opt);
/* Analyse the trace `from` already loaded again with other options (another
 * --range of the same file), sharing its trace and arrays: `from` must
 * outlive r. Errors and return values as html_load. */
int html_load_again(struct html_loaded *r, const struct html_loaded *from, const char *path,
		    const struct gs_options *opt);
/* The two runs of a comparison: paths[i] analysed with opts[i]; when both
 * paths are the same string the file is loaded once (html_load_again).
 * On failure nothing stays loaded; errors and return values as html_load. */
int html_load_pair(struct html_loaded runs[2], const char *const paths[2],
		   const struct gs_options opts[2]);
/* Free r (for a shared run only its own analysis). */
void html_unload(struct html_loaded *r);

#endif
