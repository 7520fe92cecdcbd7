/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cli.c - helpers shared by the verbs (error lines, opening a trace, the
 * final check of standard output).
 */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "term.h"

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

int gs_cli_stdout_check(const char *verb)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return GS_EXIT_OK;
	e = errno;
	gs_error(verb, "cannot write to standard output: %s", e ? strerror(e) : "write error");
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
