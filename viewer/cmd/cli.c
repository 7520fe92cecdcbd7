/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cli.c - helpers shared by the verbs (error lines, opening a trace).
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

void gs_error(const char *what, const char *fmt, ...)
{
	va_list ap;

	fputs("gapscope: ", stderr);
	if (what)
		fprintf(stderr, "%s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
