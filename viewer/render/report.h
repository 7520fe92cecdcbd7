/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * report.h - the renderers of `gapscope report`: one ops table, two back
 * ends (report_text.c for the terminal, report_json.c for --json), both
 * reading the same struct gs_result. Renderers only format; every figure
 * comes from the analysis library. Adding a format = one file filling
 * struct report_ops.
 */
#ifndef GAPSCOPE_REPORT_H
#define GAPSCOPE_REPORT_H

#include <stdio.h>

#include "analysis.h"
#include "correct.h"
#include "reference.h"
#include "gapscope/trace_format.h" /* gs_sync_kind_name */

struct report_ctx {
	FILE *out;
	const char *path;	      /* the trace file as given */
	const struct gs_input *in;    /* what was loaded */
	const struct gs_result *res;  /* what was found */
	const struct gs_verdict *verdict; /* gs_verdict_compute_corr(res, corr), by the verb */
	const struct gs_options *opt; /* how (range, top_n, overrides) */
	int full_names;		      /* 1: kernel names whole (demangled), lines
					 not wrapped (--full-names) */
	int by_site;		      /* 1: the idle-by-call-site table (--by-site) */
	const struct gs_corrected *corr; /* figures corrected for the collector's
					    overhead, NULL: none (no calibration
					    in the trace, --no-overhead-correction) */
	const struct gs_reference *ref;	 /* NVTX walls of untraced reference runs
					    (--reference), NULL: none */
	const char *const *ref_paths;	 /* their files, ref->n_runs of them */
	void *priv;		      /* the back end's state */
};

/* The text report's longest line without --full-names (names shortened,
 * long lines wrapped at a space). */
#define REPORT_LINE_MAX 160
/* line of s (n bytes, no newline) to f, wrapped at REPORT_LINE_MAX (report_common.c) */
void report_put_wrapped(FILE *f, const char *s, size_t n);
/* characters of a short kernel name (gs_short_name's max_chars) */
#define REPORT_NAME_CHARS 80

/* Under a table of corrected NVTX walls without reference runs (text and
 * HTML): what the correction cannot see. A traced program's own code runs
 * slower too (H100, GPT-2 generate: ~125 ms of the 196 that tracing added
 * to the range lay outside every recorded call, docs/report.md). */
#define REPORT_CORRECTED_WALL_NOTE                                                                 \
	"corrected: the wall less what tracing spent in the calls and spans it recorded; the "     \
	"program's own code between them can run slower traced too, which stays in (gapscope "     \
	"record --reference N times these ranges untraced). busy corr.: the corrected GPU busy "   \
	"time over the corrected wall"

/* The corrected line's launch calls after host work (text and HTML): N,
 * then what they were taken against, the program's own untraced launch
 * from its reference runs (PROGRAM, its figure, REFS, the calibration's
 * figure, ")") or the calibration's (CAL) */
#define REPORT_SPACED_AFTER " after host work against "
#define REPORT_SPACED_PROGRAM "the program's own untraced launch ("
#define REPORT_SPACED_REFS " in the reference runs, the calibration's "
#define REPORT_SPACED_CAL "the calibration's such launch"

/* Where gs_corrected_slow_process(): the traced process's launch records
 * after host work ran longer than its calibration's (text and HTML; the two
 * figures go between HEAD and MID, the ratio after MID; the page
 * capitalises its first letter). Two causes read alike, and pull the
 * corrected figures opposite ways: a traced process that ran slower as a
 * whole (GPT-2 generate, H100 14:42 UTC: 1.57x, its corrected range 67%
 * long), and launches dearer than the calibration's empty kernel (the
 * training loop of bench/real, H100 2026-12-05: 1.51x in 4 of 5 runs, its
 * untraced launches 1.35x the calibration's, timed from outside). */
#define REPORT_SLOW_PROCESS_HEAD                                                                   \
	"this traced process's launch calls after host work took a median record of "
#define REPORT_SLOW_PROCESS_MID " against the calibration's "
#define REPORT_SLOW_PROCESS_TAIL                                                                   \
	": either the process ran slower traced, its own code between calls too, which the "       \
	"corrected figures keep, or its launches cost more than the calibration's empty kernel, "  \
	"which they take as tracing's"
/* With the program's own untraced launch from its reference runs, the
 * median is set against the record that launch would have had traced
 * (gs_corrected_slow_base): only a slow process is left */
#define REPORT_SLOW_PROCESS_REF_MID                                                                \
	" expected from the calibration's record and the program's own untraced launch in the "    \
	"reference runs"
#define REPORT_SLOW_PROCESS_REF_TAIL                                                               \
	": the process ran slower traced, its own code between calls too, which the corrected "    \
	"figures keep"
/* after the tail where no reference runs were given */
#define REPORT_SLOW_PROCESS_HINT " (gapscope record --reference N times the NVTX ranges untraced)"

/* Called in this order: begin, one device() per device, then the
 * whole-trace sections, then end. Each returns 0 or a negative error. */
struct report_ops {
	const char *name;
	int (*begin)(struct report_ctx *r);
	int (*device)(struct report_ctx *r, const struct gs_device_result *d);
	int (*launches)(struct report_ctx *r);
	int (*syncs)(struct report_ctx *r);
	int (*kernels)(struct report_ctx *r);
	int (*nvtx)(struct report_ctx *r);
	int (*advice)(struct report_ctx *r);
	int (*end)(struct report_ctx *r); /* also frees priv, even after an error */
};

extern const struct report_ops report_text_ops;
extern const struct report_ops report_json_ops;

/* Run all callbacks of ops on r. Returns 0 or the first error. */
int report_render(const struct report_ops *ops, struct report_ctx *r);

/* Shared wording, so both formats say the same thing. */
const char *report_explain_name(int explain_kind); /* "launch", "sync", ... */
/* The advice sentence for a, newly allocated (names whole, never cut);
 * NULL on ENOMEM. */
char *report_advice_sentence(const struct report_ctx *r, const struct gs_graph_advice *a);
/* A kernel name for people: with r->full_names, the demangled form
 * (names.h) when the name is mangled and the demangler knows it, else the
 * name as recorded, whole; else the short form of gs_short_name()
 * ("at::native::vectorized_elementwise_kernel<…>", at most 80 characters).
 * *tofree receives what the caller must free (may be NULL). */
const char *report_kernel_name(const struct report_ctx *r, uint32_t name_id, char **tofree);

/* gap_text.c: what a host-code item names, escaped: "torch/nn/functional.py:
 * gelu line 1610" (Python), "libtorch_cpu.so:at::foo" (native), or a host
 * operator span's name */
void gap_host_item(char *buf, size_t n, const struct gs_input *in, const struct gs_host_item *it);
/* gap_text.c: "850 ns", "12.345 us", "1.234 ms", "2.500 s" */
void gap_dur(char *b, size_t n, int64_t ns);
/* The segments of gap g as one sentence into buf (n bytes, always
 * terminated; cut at n): "4.700 us sync wait in cudaStreamSynchronize,
 * then 3.720 s host code on thread 1063, then 9.000 us launch latency
 * (cudaLaunchKernel)". Trace names go through the terminal sanitizer. */
void gap_segments_text(char *buf, size_t n, const struct gs_input *in,
		       const struct gs_result *res, const struct gs_gap *g);

/* Name of op kind for display: "kernel", "memcpy", "memset". */
const char *report_op_kind_name(int kind);
/* A call site as the report names it, into buf (n bytes, always
 * terminated, not escaped): "train.py:27 (in `train_one_epoch`)" for a
 * Python frame (file's last component), "`copy_back` in demo+0x1a2b" for
 * a native one (site_text.c). */
void report_site_text(char *buf, size_t n, const struct gs_input *in, uint32_t site);
/* The site with the most GPU idle (then calls) among stats[0..n) for the
 * API api_name_id, or NULL (site_text.c). */
const struct gs_site_stat *report_top_site(const struct gs_site_stat *stats, size_t n,
					   uint32_t api_name_id);

/* The --range NAME that selects the verdict's v->range_text_id (its text,
 * or its numbered family's Stem#*), newly allocated; NULL on ENOMEM
 * (verdict_text.c). */
char *report_range_name(const struct gs_input *in, const struct gs_verdict *v);
/* That name as a shell word into buf (n bytes): in single quotes where a
 * shell would read it otherwise ('\'' for a quote; not escaped for the
 * terminal or HTML). 0 where the name is over REPORT_RANGE_ARG_MAX bytes,
 * holds a control character, or buf is too small: the line names no
 * command then. */
#define REPORT_RANGE_ARG_MAX 48
int report_range_arg(char *buf, size_t n, const struct gs_input *in, const struct gs_verdict *v);

#endif
