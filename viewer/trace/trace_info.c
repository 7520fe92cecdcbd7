/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_info.c - what `gapscope info` shows, read from a trace: the meta
 * facts the collector stored, the devices, the GPU window per device and
 * the row count of every table. It prints nothing (cmd/cmd_info.c does);
 * text from the trace is cleaned here (controls and invalid UTF-8 as '?')
 * so that nothing read can drive a terminal.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gapscope/trace_format.h"
#include "trace_callsite.h"
#include "trace_info.h"

/* Tables of schema v1 (and samples, v2), in the order the docs list them. */
const char *const info_tables[INFO_NTABLES] = {
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
    "host_ranges",
    "graphs",
    "graph_nodes",
    "graph_edges",
    "graph_execs",
    "graph_launches",
    "graph_node_updates",
    "graph_runs",
    "overhead",
    "samples",
};

/* Tables older traces lack, which is not damage (gs_schema_table_optional). */
int info_table_is_later(const char *name)
{
	return gs_schema_table_optional(name);
}

/*
 * Copy `s` with control characters (C0, DEL, C1) and bytes that are not
 * valid UTF-8 replaced by '?'. Never returns NULL for non-NULL input (aborts
 * on out-of-memory through the caller's NULL check).
 */
char *info_clean(const char *s)
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
	/* this machine's failure (SQLite's temporary files: a full TMPDIR,
	 * ulimit -f; memory), not the trace's: said as such */
	if (!in->failed && trace_local_error(in->t.db, in->failure, sizeof(in->failure)))
		in->local = 1;
	else if (!in->failed)
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

/* A GPU window's device outside 0..32767 (trace.h; NULL is "unknown",
 * shown as -1): name the first such row of the op tables, as the other
 * verbs do (a device of 2^63-1 was listed as a GPU window of its own). */
static void info_device_error(struct info *in)
{
	static const char *const tables[3] = {"kernels", "memcpys", "memsets"};
	int i;

	for (i = 0; i < 3 && !in->damaged[0]; i++) {
		char sql[200];
		sqlite3_stmt *st = NULL;
		int found;

		snprintf(sql, sizeof(sql),
			 "SELECT 1 FROM %s WHERE device IS NOT NULL AND "
			 "CAST(device AS INTEGER) NOT BETWEEN 0 AND 32767 LIMIT 1",
			 tables[i]);
		found = sqlite3_prepare_v2(in->t.db, sql, -1, &st, NULL) == SQLITE_OK &&
			sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		if (found)
			trace_range_error(in->t.db, tables[i], "device", 0, 32767, 0, in->damaged,
					  sizeof(in->damaged));
	}
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
		if (!in->damaged[0] && !TRACE_DEVICE_OK(w->device))
			info_device_error(in);
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
	in->captures = in->capture_ns = in->native_captures = 0;
	{
		/* older traces have no capture times: no column, nothing */
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(in->t.db,
				       "SELECT count(*), total(capture_end - capture_start) FROM "
				       "api_stacks WHERE capture_start > 0 AND capture_end >= "
				       "capture_start",
				       -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW) {
				double ns = sqlite3_column_double(st, 1);
				in->captures = sqlite3_column_int64(st, 0);
				/* a double past int64 converted is undefined, and a
				 * clamped total would read as true */
				if (ns > (double)TRACE_TIME_MAX && !in->damaged[0])
					snprintf(
					    in->damaged, sizeof(in->damaged),
					    "damaged trace: the stack captures (api_stacks) "
					    "last more than 2^62 ns (146 years) in all, what no "
					    "recording holds");
				in->capture_ns = ns > (double)TRACE_TIME_MAX ? 0 : (int64_t)ns;
			} else {
				info_failed(in);
			}
		}
		sqlite3_finalize(st);
		/* those that walked native frames (stack_frames.kind 1) */
		in->native_captures =
		    in->captures ? trace_native_captures(in->t.db, in->captures) : 0;
	}
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

/* A capture trace's windows (record --capture-range, schema v3), read
 * only when meta capture_range names the mode: the table is empty in the
 * others. A time outside [0, TRACE_TIME_MAX] is named as the other verbs
 * name it. */
static void info_load_capture(struct info *in)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	in->capture_range = info_meta(in, "capture_range");
	if (in->capture_range && !*in->capture_range) {
		free(in->capture_range);
		in->capture_range = NULL;
	}
	if (!in->capture_range)
		return;
	in->capture_dropped = info_meta(in, "capture.starts_skipped");
	if (!trace_db_has_table(in->t.db, "capture_windows"))
		return;
	if (info_prepare(in,
			 "SELECT start, end, typeof(start) = 'integer' AND typeof(end) = 'integer' "
			 "FROM capture_windows ORDER BY start, end",
			 &st) < 0)
		return;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		if (sqlite3_column_int(st, 2) && (!TRACE_TIME_OK(a) || !TRACE_TIME_OK(b))) {
			if (!in->damaged[0])
				trace_time_error(in->t.db, "capture_windows", "start", "end",
						 in->damaged, sizeof(in->damaged));
			break;
		}
		if (!sqlite3_column_int(st, 2) || b < a) {
			in->capture_damaged++;
			continue;
		}
		if (in->ncapture == cap) {
			struct info_span *g;
			cap = cap ? 2 * cap : 8;
			g = realloc(in->capture, cap * sizeof(*g));
			if (!g)
				break;
			in->capture = g;
		}
		in->capture[in->ncapture].start = a;
		in->capture[in->ncapture].end = b;
		in->ncapture++;
	}
	info_finish(in, st, rc == SQLITE_ROW ? SQLITE_DONE : rc);
}

static void info_free_kv(struct info_kv *kv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

void info_free(struct info *in)
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
	free(in->callback_ns);
	free(in->callbacks);
	free(in->unwinder);
	for (i = 0; i < in->ndevices; i++)
		free(in->devices[i].name);
	free(in->devices);
	free(in->windows);
	info_free_kv(in->config, in->nconfig);
	info_free_kv(in->warnings, in->nwarnings);
	info_free_kv(in->imported, in->nimported);
	info_free_kv(in->calibration, in->ncalibration);
	info_free_kv(in->sampling, in->nsampling);
	info_free_kv(in->reference, in->nreference);
	free(in->capture_range);
	free(in->capture);
	free(in->rank_source);
	free(in->capture_dropped);
	free(in->process_cpu_ns);
	info_free_kv(in->thread_cpu, in->nthread_cpu);
	info_free_kv(in->thread_count, in->nthread_count);
	trace_close(&in->t);
}

int info_load(struct info *in)
{
	in->collector_version = info_meta(in, "collector_version");
	in->command_line = info_meta(in, "command_line");
	in->hostname = info_meta(in, "hostname");
	in->pid = info_meta(in, "pid");
	in->has_rank = trace_rank(&in->t, &in->rank, &in->world_size, &in->rank_source);
	in->cupti_version = info_meta(in, "cupti_version");
	in->driver_version = info_meta(in, "cuda_driver_version");
	in->finalized = info_meta(in, "finalized");
	in->dropped = info_meta(in, "dropped_records");
	in->start_ns = info_meta(in, "start_ns");
	in->stop_ns = info_meta(in, "stop_ns");
	in->callback_ns = info_meta(in, "collector.callback_ns");
	in->callbacks = info_meta(in, "collector.callbacks");
	in->unwinder = info_meta(in, "collector.unwinder");
	info_load_kv(in, "config.", &in->config, &in->nconfig);
	info_load_kv(in, "warning.", &in->warnings, &in->nwarnings);
	info_load_kv(in, "import.", &in->imported, &in->nimported);
	info_load_kv(in, "calibration.", &in->calibration, &in->ncalibration);
	info_load_kv(in, "samples.", &in->sampling, &in->nsampling);
	info_load_kv(in, "reference.", &in->reference, &in->nreference);
	in->process_cpu_ns = info_meta(in, "process.cpu_ns");
	info_load_kv(in, "thread_cpu_ns.", &in->thread_cpu, &in->nthread_cpu);
	info_load_kv(in, "thread_count.", &in->thread_count, &in->nthread_count);
	info_load_devices(in);
	info_load_windows(in);
	/* the same rule as every verb: a stream past 2^32-1 was counted in
	 * the GPU window (trace.h, trace_check_places) */
	if (!in->damaged[0] && !in->failed)
		(void)trace_check_places(&in->t, in->damaged, sizeof(in->damaged));
	info_load_rows(in);
	info_load_capture(in);
	if (in->failed && !in->local && trace_too_long(&in->t, in->damaged, sizeof(in->damaged))) {
		in->failed = 0; /* not damage SQLite found: a query was stopped */
		return -1;
	}
	if (in->failed) /* trace_open's checks passed but a page could not be read */
		return -1;
	info_check_meta_time(in, "start_ns", in->start_ns);
	info_check_meta_time(in, "stop_ns", in->stop_ns);
	return in->damaged[0] ? -1 : 0;
}
