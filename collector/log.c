/*
 * log.c - the collector's one way to speak: log lines on stderr as
 * "gapscope: <msg>" when GAPSCOPE_LOG's level allows, and warnings, each
 * remembered under its key (once) so the writer stores them in the trace's
 * meta table as warning.<key>. Declared in log.h.
 *
 * It sits below config.c, callsite.c and writer.c, which all warn: before
 * it had a file of its own it lived in config.c, and config.c <->
 * callsite.c was a circle (tests/unit/check_cycles.py). Nothing here
 * touches CUDA, CUPTI or SQLite.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

/* ------------------------------------------------------------- logging */

#define GS_MAX_WARNINGS 32

static int log_level = GS_LOG_WARN;
static void (*log_sink)(const char *line, void *ctx);
static void *log_sink_ctx;
static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char key[64];
	char msg[400];
} warnings[GS_MAX_WARNINGS];
static int n_warnings;

void gs_log_set_level(int level)
{
	log_level = level;
}

int gs_log_get_level(void)
{
	return log_level;
}

void gs_log_set_sink(void (*sink)(const char *line, void *ctx), void *ctx)
{
	log_sink = sink;
	log_sink_ctx = ctx;
}

static void emit(const char *msg)
{
	char line[512];

	snprintf(line, sizeof(line), "gapscope: %s\n", msg);
	if (log_sink)
		log_sink(line, log_sink_ctx);
	else
		fputs(line, stderr); /* one fputs: lines of threads do not interleave */
}

void gs_log(int level, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (level > log_level || level == GS_LOG_QUIET)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit(msg);
}

void gs_warn(const char *key, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	int i, seen = 0;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&warn_lock);
	for (i = 0; i < n_warnings; i++)
		if (strcmp(warnings[i].key, key) == 0)
			seen = 1;
	if (!seen && n_warnings < GS_MAX_WARNINGS) {
		snprintf(warnings[n_warnings].key, sizeof(warnings[0].key), "%s", key);
		snprintf(warnings[n_warnings].msg, sizeof(warnings[0].msg), "%s", msg);
		n_warnings++;
	}
	pthread_mutex_unlock(&warn_lock);
	if (!seen && log_level >= GS_LOG_WARN)
		emit(msg);
}

int gs_warning_count(void)
{
	int n;

	pthread_mutex_lock(&warn_lock);
	n = n_warnings;
	pthread_mutex_unlock(&warn_lock);
	return n;
}

int gs_warning_get(int i, const char **key, const char **msg)
{
	if (i < 0 || i >= gs_warning_count())
		return -1;
	/* Entries are never modified once added (until reset), so handing out
	 * pointers after the count check is safe. */
	*key = warnings[i].key;
	*msg = warnings[i].msg;
	return 0;
}

void gs_warnings_reset(void)
{
	pthread_mutex_lock(&warn_lock);
	n_warnings = 0;
	pthread_mutex_unlock(&warn_lock);
}
