/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cli.h - what every gapscope verb shares: the verb table entry, and the
 * error conventions (CONVENTIONS.md): "gapscope: <file>: <what>" on stderr,
 * exit 2 for bad input, 1 for internal failure.
 */
#ifndef GAPSCOPE_CLI_H
#define GAPSCOPE_CLI_H

#include <stddef.h>

#include "analysis.h"  /* struct gs_input */
#include "reference.h" /* GS_REFERENCE_MAX_RUNS */
#include "trace.h"

#define GS_EXIT_OK 0
#define GS_EXIT_INTERNAL 1
#define GS_EXIT_BAD_INPUT 2

/* One verb per file: viewer/cmd_<verb>.c defines int cmd_<verb>(int, char **).
 * argv[0] is the verb's name. */
int cmd_record(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_whatif(int argc, char **argv);

/* Print "gapscope: <what>: <fmt...>" to stderr (what may be NULL). */
void gs_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "gapscope: <what>: <fmt...>" with what and the formatted message
 * through the terminal sanitizer (term.h): C0/C1 controls escaped. */

/* Before any verb: standard output becomes a stream that keeps the errno
 * of its first failed write (stdio keeps only a flag). */
void gs_cli_stdout_init(void);

/* After a verb (and wherever a verb must know): flush standard output;
 * when that or an earlier write to it failed (a full disk, /dev/full, a
 * closed pipe's EPIPE), print once the line "gapscope: write error on
 * standard output: <why>" and return GS_EXIT_INTERNAL (1), else 0. */
int gs_cli_stdout_check(const char *verb);

/* Open a trace for a verb; on failure print the one-line error and return
 * GS_EXIT_BAD_INPUT (2); on success 0. */
int gs_cli_open_trace(struct trace *t, const char *path);

/* 1 when a file is at path that a trace written there would destroy: a
 * regular, non-empty file that is no gapscope trace (not SQLite, or another
 * program's SQLite database). A trace of an earlier run (even a damaged
 * one), an empty file, a missing name: 0. record and import refuse the
 * first kind rather than replace it. */
int gs_cli_output_is_foreign(const char *path);

/* After a verb computed what it shows (before an output file replaces
 * the old one, and once more after the verb): when a sum was clamped at
 * 2^63-1 ns (gs_sums_clamped: the trace's times add up past what int64
 * holds), print "gapscope: <what>: damaged trace: ..." once and return
 * GS_EXIT_BAD_INPUT; else 0. */
int gs_cli_sums_check(const char *what);

/* Before any work: whether -o path can name a file (out_name_check: no name
 * in it over 255 bytes, less `extra` for the last, for what is written
 * beside it). 0, or GS_EXIT_BAD_INPUT after one line "gapscope: <path>:
 * cannot write: File name too long (...)". */
int gs_cli_check_output_name(const char *path, size_t extra);

/* The untraced reference runs named with --reference (report, html): the
 * files as given, then, once loaded, their traces and inputs (NVTX ranges
 * and strings) and ptr[k] = &in[k] for gs_reference_compare. */
struct gs_cli_refs {
	const char *paths[GS_REFERENCE_MAX_RUNS];
	struct trace t[GS_REFERENCE_MAX_RUNS];
	struct gs_input in[GS_REFERENCE_MAX_RUNS];
	const struct gs_input *ptr[GS_REFERENCE_MAX_RUNS];
	size_t n;
};

/* --reference ARG of verb: remembered. Returns 0, or GS_EXIT_BAD_INPUT
 * after one line (an empty name, more than GS_REFERENCE_MAX_RUNS). */
int gs_cli_refs_add(struct gs_cli_refs *r, const char *verb, const char *arg);
/* Open and load them all, or none after one line on stderr
 * (GS_EXIT_BAD_INPUT: a file that cannot be read, or a trace that recorded
 * more than NVTX ranges, whose walls carry the collector's overhead).
 * Returns 0 or the exit code. */
int gs_cli_refs_load(struct gs_cli_refs *r);
/* The calibration the overhead correction of trace `in` uses: its own, with
 * the program's own untraced launch after host work where its loaded
 * reference runs timed it (program_spaced_ns: the nearest-rank median of
 * their ref_launch_spaced_ns; -1 when none timed one). */
struct gs_calibration gs_cli_refs_calibration(const struct gs_cli_refs *r,
					      const struct gs_input *in);
/* Close what gs_cli_refs_load opened (and nothing after a failed load). */
void gs_cli_refs_free(struct gs_cli_refs *r);

/* --skip N of verb (report, html, diff): a whole number of ranges into
 * *out. Returns 0, or GS_EXIT_BAD_INPUT after one line. */
int gs_cli_parse_skip(const char *verb, const char *arg, uint64_t *out);

/* Why a trace holds no GPU activity, into buf (n bytes): an untraced
 * reference run (config.activities = nvtx) says how to use it, any other
 * trace asks whether the program's CUDA work was recorded. Returns buf. */
const char *gs_cli_no_ops_text(struct trace *t, char *buf, size_t n);

struct gs_input;
/* Why a loaded trace holds nothing to analyse, into buf (n bytes), or NULL
 * when it does: a trace recorded with --capture-range whose program never
 * opened a capture window (nothing was recorded: said so, not taken for
 * an empty trace), a capture trace whose windows hold no GPU activity, or
 * gs_cli_no_ops_text()'s reasons. */
const char *gs_cli_nothing_text(struct trace *t, const struct gs_input *in, char *buf, size_t n);

/* Open the trace at path and load all of it into in (the report, whatif
 * and html verbs): on a bad trace, or one with nothing to analyse
 * (gs_cli_nothing_text), print the one-line error, close what was opened
 * and return GS_EXIT_BAD_INPUT (2); on success 0, t open and in loaded. */
int gs_cli_load_trace(struct trace *t, const char *path, struct gs_input *in);

#endif
