/*
 * log.h - the collector's logging and remembered warnings (log.c). Every
 * collector file includes it through internal.h; it needs nothing else of
 * the collector, so the files that warn depend on it and not on each other.
 */
#ifndef GAPSCOPE_COLLECTOR_LOG_H
#define GAPSCOPE_COLLECTOR_LOG_H

/* GAPSCOPE_LOG levels */
enum gs_log_level {
	GS_LOG_QUIET = 0,
	GS_LOG_WARN = 1,
	GS_LOG_INFO = 2,
	GS_LOG_DEBUG = 3,
};

/* Logging: messages go to stderr as "gapscope: <msg>" when the level allows.
 * gs_warn also remembers the message under `key` so that it ends up in the
 * trace as meta "warning.<key>"; a key warns only once. */
void gs_log_set_level(int level);
int gs_log_get_level(void);
void gs_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gs_warn(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Test seam: where log lines go (NULL restores stderr). */
void gs_log_set_sink(void (*sink)(const char *line, void *ctx), void *ctx);
/* Number of remembered warnings, and the i-th (key, message). */
int gs_warning_count(void);
int gs_warning_get(int i, const char **key, const char **msg);
void gs_warnings_reset(void);

#endif
