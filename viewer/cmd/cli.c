/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cli.c - helpers shared by the verbs (error lines, opening a trace, the
 * final check of standard output).
 */
#define _GNU_SOURCE /* vasprintf, fopencookie */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "out_file.h"
#include "report.h" /* gap_dur */
#include "term.h"
#include "trace_load.h"

void gs_error(const char *what, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	/* file names and the trace strings quoted in messages are anyone's
	 * bytes: the line goes through the terminal sanitizer (term.h) */
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	fputs("gapscope: ", stderr);
	if (what) {
		term_put(stderr, what);
		fputs(": ", stderr);
	}
	term_put(stderr, msg ? msg : fmt);
	fputc('\n', stderr);
	free(msg);
}

/* Standard output through a stdio cookie stream (as out_file.c does for
 * files): stdio keeps only an error flag, and errno after a failed write
 * is whatever later calls left there ("Operation not permitted" for a
 * full stdout), so the cookie keeps the first failed write's errno; after
 * it every write fails at once. */
static int stdout_errno; /* errno of the first failed write, 0 while none */
static int stdout_told;	 /* the error line was printed */

static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;

	(void)cookie;
	if (stdout_errno) {
		errno = stdout_errno;
		return -1;
	}
	while (done < n) {
		ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			stdout_errno = w < 0 ? errno : EIO;
			errno = stdout_errno;
			return -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

void gs_cli_stdout_init(void)
{
	cookie_io_functions_t io = {
	    .read = NULL, .write = stdout_write, .seek = NULL, .close = NULL};
	FILE *f = fopencookie(NULL, "w", io);

	if (!f)
		return; /* plain stdout: the check below still sees its error flag */
	/* as stdio buffers the standard output: by line on a terminal */
	setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

int gs_cli_stdout_check(const char *verb)
{
	(void)verb; /* the line names the standard output, whichever verb wrote */
	if (fflush(stdout) == 0 && !ferror(stdout) && !stdout_errno)
		return GS_EXIT_OK;
	if (!stdout_told)
		gs_error(NULL, "write error on standard output: %s",
			 strerror(stdout_errno ? stdout_errno : EIO));
	stdout_told = 1;
	return GS_EXIT_INTERNAL;
}

int gs_cli_open_trace(struct trace *t, const char *path)
{
	char err[512];

	if (trace_open(t, path, err, sizeof(err)) < 0) {
		gs_error(path, "%s", err);
		return GS_EXIT_BAD_INPUT;
	}
	return 0;
}

int gs_cli_load_trace(struct trace *t, const char *path, struct gs_input *in)
{
	char err[512];
	int rc = gs_cli_open_trace(t, path);

	if (rc)
		return rc;
	if (trace_load(t, GS_LOAD_ALL, in, err, sizeof(err)) < 0) {
		gs_error(path, "%s", err);
		trace_close(t);
		return GS_EXIT_BAD_INPUT;
	}
	if (gs_cli_nothing_text(t, in, err, sizeof(err))) {
		gs_error(path, "%s", err);
		trace_input_free(in);
		trace_close(t);
		return GS_EXIT_BAD_INPUT;
	}
	return 0;
}

/* Open and load an untraced reference run (NVTX ranges and strings). A
 * trace that recorded more than NVTX ranges is not untraced: its walls
 * carry the collector's overhead, and comparing with them would hide it. */
static int load_reference(const char *path, struct trace *t, struct gs_input *in)
{
	char err[512], *act;
	int rc = gs_cli_open_trace(t, path);

	if (rc)
		return rc;
	act = trace_meta(t, "config.activities");
	if (!gs_reference_activities(act)) {
		gs_error(path,
			 "not an untraced reference run: it recorded %s%s%s, not NVTX ranges "
			 "only (make them with gapscope record --reference N)",
			 act ? "the activities '" : "no list of activities", act ? act : "",
			 act ? "'" : "");
		free(act);
		trace_close(t);
		return GS_EXIT_BAD_INPUT;
	}
	free(act);
	if (trace_load(t, GS_LOAD_NVTX | GS_LOAD_STRINGS, in, err, sizeof(err)) < 0) {
		gs_error(path, "%s", err);
		trace_close(t);
		return GS_EXIT_BAD_INPUT;
	}
	return 0;
}

int gs_cli_parse_skip(const char *verb, const char *arg, uint64_t *out)
{
	char *end = NULL;
	unsigned long long v;

	errno = 0;
	v = *arg && *arg != '-' && *arg != '+' ? strtoull(arg, &end, 10) : 0;
	if (!end || *end || errno) {
		gs_error(verb, "--skip needs a whole number of ranges, not '%s'", arg);
		return GS_EXIT_BAD_INPUT;
	}
	*out = v;
	return 0;
}

int gs_cli_refs_add(struct gs_cli_refs *r, const char *verb, const char *arg)
{
	if (!*arg) {
		gs_error(verb, "--reference needs a trace file");
		return GS_EXIT_BAD_INPUT;
	}
	if (r->n == GS_REFERENCE_MAX_RUNS) {
		gs_error(verb, "at most %d --reference traces", GS_REFERENCE_MAX_RUNS);
		return GS_EXIT_BAD_INPUT;
	}
	r->paths[r->n++] = arg;
	return 0;
}

/* the first k of r's references, loaded */
static void refs_close(struct gs_cli_refs *r, size_t k)
{
	while (k-- > 0) {
		trace_input_free(&r->in[k]);
		trace_close(&r->t[k]);
	}
}

int gs_cli_refs_load(struct gs_cli_refs *r)
{
	size_t k;

	for (k = 0; k < r->n; k++) {
		int rc;
		memset(&r->in[k], 0, sizeof(r->in[k]));
		rc = load_reference(r->paths[k], &r->t[k], &r->in[k]);
		if (rc) {
			refs_close(r, k);
			r->n = 0;
			return rc;
		}
		r->ptr[k] = &r->in[k];
	}
	return 0;
}

struct gs_calibration gs_cli_refs_calibration(const struct gs_cli_refs *r,
					      const struct gs_input *in)
{
	struct gs_calibration cal = in->cal;
	int64_t v[GS_REFERENCE_MAX_RUNS];
	size_t k, n = 0;

	for (k = 0; k < r->n; k++)
		if (r->in[k].ref_launch_spaced_ns > 0)
			v[n++] = r->in[k].ref_launch_spaced_ns;
	cal.program_spaced_ns = n ? gs_percentile(v, n, 50) : -1;
	return cal;
}

void gs_cli_refs_free(struct gs_cli_refs *r)
{
	refs_close(r, r->n);
	r->n = 0;
}

const char *gs_cli_no_ops_text(struct trace *t, char *buf, size_t n)
{
	char *act = trace_meta(t, "config.activities");

	if (gs_reference_activities(act))
		snprintf(buf, n,
			 "an untraced reference run (NVTX ranges only, gapscope record "
			 "--reference): no GPU activity to report; compare it with its traced "
			 "run: gapscope report TRACE.db --reference %s",
			 t->path ? t->path : "THIS.db");
	else
		snprintf(buf, n,
			 "no GPU activity in this trace (no kernels, memcpys or memsets); "
			 "was the program's CUDA work recorded?");
	free(act);
	return buf;
}

const char *gs_cli_nothing_text(struct trace *t, const struct gs_input *in, char *buf, size_t n)
{
	char len[32];
	int64_t captured = 0;
	size_t i;

	if (in->capture_range && !in->n_capture_windows) {
		/* a recording that did not finish (a start time, no stop
		 * time: the program died before the collector wrote its
		 * windows) cannot tell whether a window was opened */
		char *start = trace_meta(t, "start_ns"), *stop = trace_meta(t, "stop_ns");
		int unfinished = start && !stop;
		free(start);
		free(stop);
		if (unfinished)
			snprintf(
			    buf, n,
			    "no capture window recorded: the recording did not finish (the "
			    "program died or was killed before the collector wrote its windows; "
			    "a window it opened is lost): nothing to analyse");
		/* the mode is the trace's bytes: named only when it is the
		 * one gapscope records */
		else if (!strcmp(in->capture_range, "cudaProfilerApi"))
			snprintf(buf, n,
				 "the program never called cudaProfilerStart: nothing was recorded "
				 "(recorded with --capture-range cudaProfilerApi)");
		else
			snprintf(buf, n,
				 "no capture window in this trace: nothing was recorded "
				 "(recorded with a --capture-range)");
		return buf;
	}
	if (in->n_ops)
		return NULL;
	if (in->capture_range) {
		for (i = 0; i < in->n_capture_windows; i++)
			captured = gs_sat_add(captured, in->capture_windows[2 * i + 1] -
							    in->capture_windows[2 * i]);
		gap_dur(len, sizeof(len), captured);
		snprintf(buf, n,
			 "no GPU activity inside the %zu capture window%s (%s in all; "
			 "recorded with --capture-range): the program's GPU work ran outside "
			 "them, where nothing is recorded",
			 in->n_capture_windows, in->n_capture_windows == 1 ? "" : "s", len);
		return buf;
	}
	return gs_cli_no_ops_text(t, buf, n);
}

int gs_cli_output_is_foreign(const char *path)
{
	struct trace t;
	struct stat st;
	char err[256];
	int rc;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	rc = trace_open(&t, path, err, sizeof(err));
	if (rc == 0)
		trace_close(&t);
	return rc == TRACE_ERR_NOT_SQLITE || rc == TRACE_ERR_FOREIGN;
}

int gs_cli_check_output_name(const char *path, size_t extra)
{
	char err[256];

	if (out_name_check(path, extra, err, sizeof(err)) < 0) {
		gs_error(path, "%s", err);
		return GS_EXIT_BAD_INPUT;
	}
	return 0;
}

int gs_cli_sums_check(const char *what)
{
	static int said;

	if (!gs_sums_clamped())
		return 0;
	if (!said)
		gs_error(what, "damaged trace: its times add up past 2^63 ns (292 years), what no "
			       "recording holds; a total would have been shown clamped");
	said = 1;
	return GS_EXIT_BAD_INPUT;
}
