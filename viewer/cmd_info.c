/*
 * cmd_info.c - `gapscope info [--json] trace.db`: what a trace holds.
 *
 * Prints the facts the collector stored in meta (schema and collector
 * versions, command line, host, pid, start/stop, configuration, dropped
 * records, warnings, whether finalize completed), the devices, the GPU
 * window per device (first GPU op start .. last GPU op end; GPU ops are
 * kernels, memcpys and memsets, as in DESIGN.md) and the row count of every
 * table. With --json the same as one JSON object (jansson).
 *
 * It does no analysis (that is `report`) and never changes the file. Bad
 * input (missing, not SQLite, truncated, foreign, newer schema) is turned into
 * one line and exit 2 by gs_cli_open_trace(). Text from the trace is printed
 * with control characters and invalid UTF-8 replaced by '?', so a hostile
 * command line cannot drive the terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Tables of schema v1, in the order the docs list them. */
static const char *const info_tables[] = {
    "strings",
    "devices",
    "processes",
    "threads",
    "kernels",
    "api_calls",
    "memcpys",
    "memsets",
    "syncs",
    "events",
    "nvtx",
    "graphs",
    "graph_nodes",
    "graph_edges",
    "graph_execs",
    "graph_launches",
    "graph_node_updates",
    "overhead",
};

/* Tables added to schema v1 later (additively): older traces lack them,
 * which is not damage. */
static int info_table_is_later(const char *name)
{
	return !strcmp(name, "events") || !strcmp(name, "graph_node_updates");
}
#define INFO_NTABLES (sizeof(info_tables) / sizeof(info_tables[0]))

struct info_device {
	int64_t id;	  /* CUDA device ordinal */
	char *name;	  /* cleaned */
	int64_t cc_major; /* compute capability */
	int64_t cc_minor;
	int64_t sm_count;     /* SMs */
	int64_t memory_bytes; /* bytes of global memory */
	int have_memory;      /* memory_bytes was not NULL */
};

struct info_window {
	int64_t device; /* device ordinal, -1 when NULL in the trace */
	int64_t start;	/* ns, first GPU op start */
	int64_t end;	/* ns, last GPU op end */
	int64_t ops;	/* GPU ops in the window */
};

struct info_kv {
	char *key;   /* without the config./warning. prefix, cleaned */
	char *value; /* cleaned */
};

struct info {
	struct trace t;
	int failed;	   /* a query failed: the database is damaged */
	char failure[256]; /* SQLite's message for the first failed query */
	char damaged[256]; /* a time outside [0, TRACE_TIME_MAX] (info_check_times) */
	char *collector_version, *command_line, *hostname, *pid;
	char *cupti_version, *driver_version, *finalized, *dropped;
	char *start_ns, *stop_ns;
	struct info_device *devices;
	size_t ndevices;
	struct info_window *windows;
	size_t nwindows;
	int64_t rows[INFO_NTABLES]; /* -1: table missing */
	int64_t syncs_implicit;	    /* rows of syncs with implicit = 1 */
	struct info_kv *config, *warnings;
	size_t nconfig, nwarnings;
};

/*
 * Copy `s` with control characters (C0, DEL, C1) and bytes that are not
 * valid UTF-8 replaced by '?'. Never returns NULL for non-NULL input (aborts
 * on out-of-memory through the caller's NULL check).
 */
static char *info_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	char *out;

	out = malloc(n + 1);
	if (!out)
		return NULL;
	while (i < n) {
		unsigned char c = p[i];
		size_t len = 0, k;
		uint32_t cp;

		if (c < 0x80) {
			out[o++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			cp = c & 0x07;
		} else {
			out[o++] = '?';
			i++;
			continue;
		}
		for (k = 1; k < len; k++) {
			if (i + k >= n || (p[i + k] & 0xc0) != 0x80)
				break;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		/* Reject truncated, overlong (3/4-byte forms), surrogates, > U+10FFFF
		 * and the C1 control block U+0080..U+009F. */
		if (k < len || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || (cp >= 0x80 && cp <= 0x9f)) {
			out[o++] = '?';
			i++;
			continue;
		}
		memcpy(out + o, p + i, len);
		o += len;
		i += len;
	}
	out[o] = '\0';
	return out;
}

/* meta.key, cleaned, or NULL when absent. */
static char *info_meta(struct info *in, const char *key)
{
	char *raw = trace_meta(&in->t, key), *c;

	if (!raw)
		return NULL;
	c = info_clean(raw);
	free(raw);
	return c;
}

/* Text of column i cleaned ("" for NULL). */
static char *info_col_text(sqlite3_stmt *st, int i)
{
	const char *v = (const char *)sqlite3_column_text(st, i);
	return info_clean(v ? v : "");
}

/* A query failed: keep SQLite's message now, while it is the current one
 * (read after later statements were finalized it said "not an error"). */
static void info_failed(struct info *in)
{
	if (!in->failed)
		snprintf(in->failure, sizeof(in->failure), "%s", sqlite3_errmsg(in->t.db));
	in->failed = 1;
}

static int info_prepare(struct info *in, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(in->t.db, sql, -1, st, NULL) != SQLITE_OK) {
		info_failed(in);
		return -1;
	}
	return 0;
}

/* Finish a statement; a step that ended in an error marks the trace damaged. */
static void info_finish(struct info *in, sqlite3_stmt *st, int last_rc)
{
	if (last_rc != SQLITE_DONE)
		info_failed(in);
	sqlite3_finalize(st);
}

static void info_load_kv(struct info *in, const char *prefix, struct info_kv **out, size_t *n)
{
	sqlite3_stmt *st = NULL;
	size_t plen = strlen(prefix), cap = 0;
	int rc;

	if (info_prepare(in,
			 "SELECT key, value FROM meta WHERE substr(key, 1, ?1) = ?2 ORDER BY key",
			 &st) < 0)
		return;
	sqlite3_bind_int(st, 1, (int)plen);
	sqlite3_bind_text(st, 2, prefix, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		if (*n == cap) {
			struct info_kv *g;
			cap = cap ? 2 * cap : 8;
			g = realloc(*out, cap * sizeof(**out));
			if (!g)
				break;
			*out = g;
		}
		(*out)[*n].key = info_clean(k ? k + plen : "");
		(*out)[*n].value = info_col_text(st, 1);
		(*n)++;
	}
	info_finish(in, st, rc == SQLITE_ROW ? SQLITE_DONE : rc);
}

static void info_load_devices(struct info *in)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (info_prepare(in,
			 "SELECT id, name, cc_major, cc_minor, sm_count, global_memory_bytes "
			 "FROM devices ORDER BY id",
			 &st) < 0)
		return;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct info_device *d;
		if (in->ndevices == cap) {
			cap = cap ? 2 * cap : 4;
			d = realloc(in->devices, cap * sizeof(*d));
			if (!d)
				break;
			in->devices = d;
		}
		d = &in->devices[in->ndevices++];
		d->id = sqlite3_column_int64(st, 0);
		d->name = info_col_text(st, 1);
		d->cc_major = sqlite3_column_int64(st, 2);
		d->cc_minor = sqlite3_column_int64(st, 3);
		d->sm_count = sqlite3_column_int64(st, 4);
		d->have_memory = sqlite3_column_type(st, 5) != SQLITE_NULL;
		d->memory_bytes = sqlite3_column_int64(st, 5);
	}
	info_finish(in, st, rc == SQLITE_ROW ? SQLITE_DONE : rc);
}

static void info_load_windows(struct info *in)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	if (info_prepare(in,
			 "SELECT ifnull(device, -1), min(start), max(end), count(*) FROM ("
			 " SELECT device, start, end FROM kernels UNION ALL"
			 " SELECT device, start, end FROM memcpys UNION ALL"
			 " SELECT device, start, end FROM memsets)"
			 " GROUP BY ifnull(device, -1) ORDER BY 1",
			 &st) < 0)
		return;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct info_window *w;
		if (in->nwindows == cap) {
			cap = cap ? 2 * cap : 4;
			w = realloc(in->windows, cap * sizeof(*w));
			if (!w)
				break;
			in->windows = w;
		}
		w = &in->windows[in->nwindows++];
		w->device = sqlite3_column_int64(st, 0);
		w->start = sqlite3_column_int64(st, 1);
		w->end = sqlite3_column_int64(st, 2);
		w->ops = sqlite3_column_int64(st, 3);
		/* the window's length is end - start: a time out of range (a
		 * kernel starting at -2^63) overflowed it; the same row is bad
		 * input to every verb (trace.h) */
		if (!in->damaged[0] && (!TRACE_TIME_OK(w->start) || !TRACE_TIME_OK(w->end)) &&
		    !trace_time_error(in->t.db, "kernels", "start", "end", in->damaged,
				      sizeof(in->damaged)) &&
		    !trace_time_error(in->t.db, "memcpys", "start", "end", in->damaged,
				      sizeof(in->damaged)))
			trace_time_error(in->t.db, "memsets", "start", "end", in->damaged,
					 sizeof(in->damaged));
	}
	info_finish(in, st, rc == SQLITE_ROW ? SQLITE_DONE : rc);
}

/* meta start_ns and stop_ns, when both are numbers, give the recording's
 * duration stop - start: outside [0, TRACE_TIME_MAX] (start_ns -2^63)
 * that overflowed, and no clock gives such a time. */
static void info_check_meta_time(struct info *in, const char *key, const char *value)
{
	char *end = NULL;
	long long l;

	if (in->damaged[0] || !value || !*value)
		return;
	errno = 0;
	l = strtoll(value, &end, 10);
	if (*end) /* not a number: printed as unknown */
		return;
	if (errno == ERANGE || !TRACE_TIME_OK(l))
		snprintf(in->damaged, sizeof(in->damaged),
			 "damaged trace: meta %s is %.40s, out of range (0 to 2^62 ns)", key,
			 value);
}

static void info_load_rows(struct info *in)
{
	char sql[128];
	size_t i;

	for (i = 0; i < INFO_NTABLES; i++) {
		sqlite3_stmt *st = NULL;
		int rc;

		in->rows[i] = -1;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", info_tables[i]);
		if (sqlite3_prepare_v2(in->t.db, sql, -1, &st, NULL) != SQLITE_OK) {
			/* A missing table is reported as such; anything else is damage. */
			if (!strstr(sqlite3_errmsg(in->t.db), "no such table"))
				info_failed(in);
			continue;
		}
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			in->rows[i] = sqlite3_column_int64(st, 0);
		else
			info_failed(in);
		sqlite3_finalize(st);
	}
	in->syncs_implicit = 0;
	{
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(in->t.db, "SELECT count(*) FROM syncs WHERE implicit = 1",
				       -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				in->syncs_implicit = sqlite3_column_int64(st, 0);
			else
				info_failed(in);
		}
		sqlite3_finalize(st);
	}
}

static void info_free(struct info *in)
{
	size_t i;

	free(in->collector_version);
	free(in->command_line);
	free(in->hostname);
	free(in->pid);
	free(in->cupti_version);
	free(in->driver_version);
	free(in->finalized);
	free(in->dropped);
	free(in->start_ns);
	free(in->stop_ns);
	for (i = 0; i < in->ndevices; i++)
		free(in->devices[i].name);
	free(in->devices);
	free(in->windows);
	for (i = 0; i < in->nconfig; i++) {
		free(in->config[i].key);
		free(in->config[i].value);
	}
	free(in->config);
	for (i = 0; i < in->nwarnings; i++) {
		free(in->warnings[i].key);
		free(in->warnings[i].value);
	}
	free(in->warnings);
	trace_close(&in->t);
}

/* Parse a meta integer; 0 when absent or malformed. */
static int info_int(const char *s, int64_t *v)
{
	char *end = NULL;
	long long l;

	if (!s || !*s)
		return 0;
	l = strtoll(s, &end, 10);
	if (*end)
		return 0;
	*v = (int64_t)l;
	return 1;
}

/* Human duration: "2.500 s", "12.345 ms", "3.210 µs", "850 ns". */
static void info_fmt_duration(int64_t ns, char *buf, size_t len)
{
	double a = (double)(ns < 0 ? -ns : ns);

	if (a >= 1e9)
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.3f µs", (double)ns / 1e3);
	else
		snprintf(buf, len, "%" PRId64 " ns", ns);
}

static const char *info_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

static int info_is_finalized(const struct info *in)
{
	return in->finalized && !strcmp(in->finalized, "1");
}

static void info_print_text(const struct info *in, const char *path_clean)
{
	int64_t start, stop, dropped;
	char d[64];
	size_t i;

	printf("%-17s %s\n", "trace", path_clean);
	printf("%-17s %d\n", "schema version", in->t.schema_version);
	printf("%-17s %s\n", "collector", info_or(in->collector_version, "(unknown)"));
	if (in->cupti_version)
		printf("%-17s %s\n", "CUPTI version", in->cupti_version);
	if (in->driver_version)
		printf("%-17s %s\n", "CUDA driver", in->driver_version);
	printf("%-17s %s\n", "command line", info_or(in->command_line, "(not recorded)"));
	printf("%-17s %s\n", "host", info_or(in->hostname, "(not recorded)"));
	printf("%-17s %s\n", "pid", info_or(in->pid, "(not recorded)"));
	if (in->ndevices == 0)
		printf("%-17s %s\n", "devices", "none recorded");
	for (i = 0; i < in->ndevices; i++) {
		const struct info_device *dv = &in->devices[i];
		char label[32];

		snprintf(label, sizeof(label), "device %" PRId64, dv->id);
		printf("%-17s %s, compute capability %" PRId64 ".%" PRId64 ", %" PRId64 " SMs",
		       label, info_or(dv->name, "(unnamed)"), dv->cc_major, dv->cc_minor,
		       dv->sm_count);
		if (dv->have_memory)
			printf(", %.1f GiB", (double)dv->memory_bytes / (1024.0 * 1024 * 1024));
		putchar('\n');
	}
	if (info_int(in->start_ns, &start) && info_int(in->stop_ns, &stop)) {
		info_fmt_duration(stop - start, d, sizeof(d));
		printf("%-17s %s (%" PRId64 " ns, start_ns %" PRId64 " .. stop_ns %" PRId64 ")\n",
		       "duration", d, stop - start, start, stop);
	} else if (info_int(in->start_ns, &start)) {
		printf("%-17s %s\n", "duration",
		       "unknown (no stop time: the recording did not finish)");
	} else {
		printf("%-17s %s\n", "duration", "unknown (no start time recorded)");
	}
	if (in->nwindows == 0)
		printf("%-17s %s\n", "GPU window", "no GPU operations recorded");
	for (i = 0; i < in->nwindows; i++) {
		const struct info_window *w = &in->windows[i];
		char dev[32];

		if (w->device < 0)
			snprintf(dev, sizeof(dev), "device ?");
		else
			snprintf(dev, sizeof(dev), "device %" PRId64, w->device);
		info_fmt_duration(w->end - w->start, d, sizeof(d));
		printf("%-17s %s: %s (%" PRId64 " ns, first op start %" PRId64
		       " .. last op end %" PRId64 ", %" PRId64 " GPU op%s)\n",
		       "GPU window", dev, d, w->end - w->start, w->start, w->end, w->ops,
		       w->ops == 1 ? "" : "s");
	}
	printf("%-17s %s\n", "finalized",
	       info_is_finalized(in) ? "yes" : "no: recording was cut short");
	if (info_int(in->dropped, &dropped))
		printf("%-17s %" PRId64 "%s\n", "dropped records", dropped,
		       dropped ? " (CUPTI lost records: try a larger --buffer-kb)" : "");
	else
		printf("%-17s %s\n", "dropped records", "(not recorded)");
	if (in->nwarnings == 0)
		printf("%-17s %s\n", "warnings", "none");
	for (i = 0; i < in->nwarnings; i++)
		printf("%-17s %s: %s\n", i ? "" : "warnings", in->warnings[i].key,
		       in->warnings[i].value);
	printf("rows\n");
	for (i = 0; i < INFO_NTABLES; i++) {
		if (in->rows[i] < 0) {
			printf("  %-15s %s\n", info_tables[i],
			       info_table_is_later(info_tables[i])
				   ? "(not in traces of this collector version)"
				   : "(table missing)");
			continue;
		}
		printf("  %-15s %" PRId64, info_tables[i], in->rows[i]);
		if (!strcmp(info_tables[i], "syncs") && in->rows[i] > 0)
			printf(" (%" PRId64 " explicit, %" PRId64 " implicit)",
			       in->rows[i] - in->syncs_implicit, in->syncs_implicit);
		putchar('\n');
	}
	printf("config\n");
	if (in->nconfig == 0)
		printf("  (not recorded)\n");
	for (i = 0; i < in->nconfig; i++)
		printf("  %-15s %s\n", in->config[i].key, in->config[i].value);
}

/* json_string() refuses invalid UTF-8; our strings are cleaned, but a NULL
 * from an allocation failure must not crash json_object_set_new. */
static json_t *info_jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *info_jint_or_null(const char *s)
{
	int64_t v;
	return info_int(s, &v) ? json_integer(v) : json_null();
}

static int info_print_json(const struct info *in, const char *path_clean)
{
	json_t *o = json_object(), *a, *x;
	int64_t start, stop;
	char *text;
	size_t i;

	if (!o)
		return -1;
	json_object_set_new(o, "trace", info_jstr(path_clean));
	json_object_set_new(o, "schema_version", json_integer(in->t.schema_version));
	json_object_set_new(o, "collector_version", info_jstr(in->collector_version));
	json_object_set_new(o, "cupti_version", info_jstr(in->cupti_version));
	json_object_set_new(o, "cuda_driver_version", info_jstr(in->driver_version));
	json_object_set_new(o, "command_line", info_jstr(in->command_line));
	json_object_set_new(o, "hostname", info_jstr(in->hostname));
	json_object_set_new(o, "pid", info_jint_or_null(in->pid));
	a = json_array();
	for (i = 0; i < in->ndevices; i++) {
		const struct info_device *dv = &in->devices[i];
		x = json_pack("{sI so sI sI sI}", "id", (json_int_t)dv->id, "name",
			      info_jstr(dv->name), "cc_major", (json_int_t)dv->cc_major, "cc_minor",
			      (json_int_t)dv->cc_minor, "sm_count", (json_int_t)dv->sm_count);
		if (x) {
			json_object_set_new(x, "global_memory_bytes",
					    dv->have_memory ? json_integer(dv->memory_bytes)
							    : json_null());
			json_array_append_new(a, x);
		}
	}
	json_object_set_new(o, "devices", a);
	json_object_set_new(o, "start_ns", info_jint_or_null(in->start_ns));
	json_object_set_new(o, "stop_ns", info_jint_or_null(in->stop_ns));
	json_object_set_new(o, "duration_ns",
			    info_int(in->start_ns, &start) && info_int(in->stop_ns, &stop)
				? json_integer(stop - start)
				: json_null());
	a = json_array();
	for (i = 0; i < in->nwindows; i++) {
		const struct info_window *w = &in->windows[i];
		x = json_pack("{so sI sI sI sI}", "device",
			      w->device < 0 ? json_null() : json_integer(w->device), "start_ns",
			      (json_int_t)w->start, "end_ns", (json_int_t)w->end, "duration_ns",
			      (json_int_t)(w->end - w->start), "ops", (json_int_t)w->ops);
		if (x)
			json_array_append_new(a, x);
	}
	json_object_set_new(o, "gpu_windows", a);
	json_object_set_new(o, "finalized", json_boolean(info_is_finalized(in)));
	json_object_set_new(o, "dropped_records", info_jint_or_null(in->dropped));
	x = json_object();
	for (i = 0; i < in->nwarnings; i++)
		json_object_set_new(x, in->warnings[i].key, info_jstr(in->warnings[i].value));
	json_object_set_new(o, "warnings", x);
	x = json_object();
	for (i = 0; i < INFO_NTABLES; i++)
		json_object_set_new(x, info_tables[i],
				    in->rows[i] < 0 ? json_null() : json_integer(in->rows[i]));
	json_object_set_new(o, "rows", x);
	json_object_set_new(o, "implicit_syncs", json_integer(in->syncs_implicit));
	x = json_object();
	for (i = 0; i < in->nconfig; i++)
		json_object_set_new(x, in->config[i].key, info_jstr(in->config[i].value));
	json_object_set_new(o, "config", x);

	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text)
		return -1;
	puts(text);
	free(text);
	return 0;
}

static void info_usage(FILE *f)
{
	fprintf(f, "usage: gapscope info [--json] trace.db\n"
		   "\n"
		   "What a trace database holds: schema and collector versions, command line,\n"
		   "host and pid, devices, duration (recording, and the GPU window from the\n"
		   "first GPU op start to the last GPU op end, per device), whether the\n"
		   "recording was finalized, dropped records, warnings the collector stored,\n"
		   "row counts per table and the collector's configuration.\n"
		   "\n"
		   "options:\n"
		   "  --json      print the same as one JSON object\n"
		   "  -h, --help  this help\n"
		   "\n"
		   "Exit status: 0, or 2 when the file is missing, not a gapscope trace,\n"
		   "truncated, damaged or of a newer schema version.\n");
}

int cmd_info(int argc, char **argv)
{
	struct info in;
	const char *path = NULL;
	char *path_clean;
	int json = 0, i, rc = GS_EXIT_OK, only_args = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!only_args && !strcmp(a, "--")) {
			only_args = 1;
		} else if (!only_args && (!strcmp(a, "-h") || !strcmp(a, "--help"))) {
			info_usage(stdout);
			return GS_EXIT_OK;
		} else if (!only_args && !strcmp(a, "--json")) {
			json = 1;
		} else if (!only_args && a[0] == '-' && a[1]) {
			gs_error("info", "unknown option '%s'; see 'gapscope info --help'", a);
			return GS_EXIT_BAD_INPUT;
		} else if (path) {
			gs_error("info",
				 "one trace at a time; usage: gapscope info [--json] trace.db");
			return GS_EXIT_BAD_INPUT;
		} else {
			path = a;
		}
	}
	if (!path) {
		gs_error("info", "no trace given; usage: gapscope info [--json] trace.db");
		return GS_EXIT_BAD_INPUT;
	}
	memset(&in, 0, sizeof(in));
	if (gs_cli_open_trace(&in.t, path) != 0)
		return GS_EXIT_BAD_INPUT;

	in.collector_version = info_meta(&in, "collector_version");
	in.command_line = info_meta(&in, "command_line");
	in.hostname = info_meta(&in, "hostname");
	in.pid = info_meta(&in, "pid");
	in.cupti_version = info_meta(&in, "cupti_version");
	in.driver_version = info_meta(&in, "cuda_driver_version");
	in.finalized = info_meta(&in, "finalized");
	in.dropped = info_meta(&in, "dropped_records");
	in.start_ns = info_meta(&in, "start_ns");
	in.stop_ns = info_meta(&in, "stop_ns");
	info_load_kv(&in, "config.", &in.config, &in.nconfig);
	info_load_kv(&in, "warning.", &in.warnings, &in.nwarnings);
	info_load_devices(&in);
	info_load_windows(&in);
	info_load_rows(&in);
	if (in.failed) {
		/* trace_open's checks passed but a page could not be read. */
		gs_error(path, "damaged database: %s", in.failure);
		info_free(&in);
		return GS_EXIT_BAD_INPUT;
	}
	info_check_meta_time(&in, "start_ns", in.start_ns);
	info_check_meta_time(&in, "stop_ns", in.stop_ns);
	if (in.damaged[0]) {
		gs_error(path, "%s", in.damaged);
		info_free(&in);
		return GS_EXIT_BAD_INPUT;
	}
	path_clean = info_clean(path);
	if (!path_clean) {
		info_free(&in);
		return GS_EXIT_INTERNAL;
	}
	if (json) {
		if (info_print_json(&in, path_clean) < 0) {
			gs_error("info", "cannot build JSON output (out of memory)");
			rc = GS_EXIT_INTERNAL;
		}
	} else {
		info_print_text(&in, path_clean);
	}
	if (fflush(stdout) != 0)
		rc = GS_EXIT_INTERNAL;
	if (!info_is_finalized(&in))
		gs_error(path_clean,
			 "warning: recording was cut short (the collector did not finalize: the "
			 "program was killed or crashed); events after the last flush are missing");
	free(path_clean);
	info_free(&in);
	return rc;
}
