/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_info.c - `gapscope info [--json] trace.db`: what a trace holds.
 *
 * Prints the version of this gapscope and the facts the collector stored
 * in meta (schema and collector versions, command line, host, pid,
 * start/stop, configuration, dropped records, warnings, whether finalize
 * completed), the devices, the GPU window per device (first GPU op start ..
 * last GPU op end; GPU ops are kernels, memcpys and memsets, as in
 * DESIGN.md) and the row count of every table. With --json the same as
 * one JSON object (jansson).
 *
 * It does no analysis (that is `report`) and never changes the file. Bad
 * input (missing, not SQLite, truncated, foreign, newer schema) is turned into
 * one line and exit 2 by gs_cli_open_trace(). Text from the trace is printed
 * with control characters and invalid UTF-8 replaced by '?', so a hostile
 * command line cannot drive the terminal.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_info.h"

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

/* The threads' CPU time by name, largest first: indexes into in->thread_cpu
 * (malloc'd, *n of them; NULL when none or out of memory). */
static int info_cmp_thread_cpu(const void *a, const void *b, void *arg)
{
	const struct info *in = arg;
	int64_t x = 0, y = 0;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	info_int(in->thread_cpu[i].value, &x);
	info_int(in->thread_cpu[j].value, &y);
	if (x != y)
		return x > y ? -1 : 1;
	return i < j ? -1 : i > j;
}

static size_t *info_threads_by_cpu(const struct info *in, size_t *n)
{
	size_t *ix, i;

	*n = 0;
	if (!in->nthread_cpu || !(ix = malloc(in->nthread_cpu * sizeof(*ix))))
		return NULL;
	for (i = 0; i < in->nthread_cpu; i++)
		ix[i] = i;
	qsort_r(ix, in->nthread_cpu, sizeof(*ix), info_cmp_thread_cpu, (void *)in);
	*n = in->nthread_cpu;
	return ix;
}

/* meta thread_count.<name> of thread_cpu entry i; 0 when absent */
static int64_t info_thread_count(const struct info *in, size_t i)
{
	int64_t v = 0;
	size_t j;

	for (j = 0; j < in->nthread_count; j++)
		if (!strcmp(in->thread_count[j].key, in->thread_cpu[i].key))
			return info_int(in->thread_count[j].value, &v) ? v : 0;
	return 0;
}

static const char *info_or(const char *s, const char *dflt)
{
	return s && *s ? s : dflt;
}

/* An untraced reference run of gapscope record --reference: NVTX ranges
 * only (config.activities = nvtx). */
static int info_is_reference(const struct info *in)
{
	size_t i;

	for (i = 0; i < in->nconfig; i++)
		if (!strcmp(in->config[i].key, "activities"))
			return gs_reference_activities(in->config[i].value);
	return 0;
}

static int info_is_finalized(const struct info *in)
{
	return in->finalized && !strcmp(in->finalized, "1");
}

/* A section of its own, title then its pairs; nothing when n is 0 */
static void info_print_kv(const char *title, const struct info_kv *kv, size_t n)
{
	size_t i;

	if (n)
		printf("%s\n", title);
	for (i = 0; i < n; i++)
		printf("  %-24s %s\n", kv[i].key, kv[i].value);
}

/* a + b for a, b >= 0, held at 2^63 - 1 */
static int64_t info_sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* ns of [a, b) inside the capture windows (rows in start order, merged
 * here where they overlap) */
static int64_t info_captured(const struct info *in, int64_t a, int64_t b)
{
	int64_t sum = 0, s = 0, e = 0;
	size_t i;

	for (i = 0; i <= in->ncapture; i++) {
		if (i < in->ncapture && i > 0 && in->capture[i].start <= e) {
			if (in->capture[i].end > e)
				e = in->capture[i].end;
			continue;
		}
		if (i > 0) {
			int64_t x = s > a ? s : a, y = e < b ? e : b;
			if (y > x)
				sum = info_sat_add(sum, y - x);
		}
		if (i < in->ncapture) {
			s = in->capture[i].start;
			e = in->capture[i].end;
		}
	}
	return sum;
}

/* The windows printed one a line at most; the rest are summed up. */
#define INFO_CAPTURE_LINES 20

/* A capture trace (record --capture-range): the mode, its windows and
 * their total; outside them nothing was recorded. */
static void info_print_capture(const struct info *in)
{
	int64_t total = 0;
	char d[32];
	size_t i;

	total = info_captured(in, 0, INT64_MAX); /* rows that overlap count once */
	info_fmt_duration(total, d, sizeof(d));
	if (!in->ncapture && in->start_ns && !in->stop_ns)
		printf("%-17s %s: no window recorded: the recording did not finish (a window "
		       "the program opened before it died is lost)\n",
		       "capture range", in->capture_range);
	else if (!in->ncapture)
		printf("%-17s %s: no window: %s\n", "capture range", in->capture_range,
		       !strcmp(in->capture_range, "cudaProfilerApi")
			   ? "the program never called cudaProfilerStart, nothing was recorded"
			   : "nothing was recorded");
	else
		printf("%-17s %s: %zu window%s, %s in all; only they were recorded\n",
		       "capture range", in->capture_range, in->ncapture,
		       in->ncapture == 1 ? "" : "s", d);
	for (i = 0; i < in->ncapture && i < INFO_CAPTURE_LINES; i++) {
		const struct info_span *w = &in->capture[i];
		info_fmt_duration(w->end - w->start, d, sizeof(d));
		printf("%-17s %zu: %s (%" PRId64 " ns, start %" PRId64 " .. end %" PRId64 ")\n",
		       "capture window", i + 1, d, w->end - w->start, w->start, w->end);
	}
	if (in->ncapture > INFO_CAPTURE_LINES)
		printf("%-17s %zu more (info --json lists every one)\n", "capture window",
		       in->ncapture - INFO_CAPTURE_LINES);
	if (in->capture_dropped)
		printf("%-17s %s cudaProfilerStart calls past the collector's 65,536 windows, "
		       "not recorded\n",
		       "capture skipped", in->capture_dropped);
	if (in->capture_damaged)
		printf("%-17s %" PRId64 " damaged capture_windows row%s skipped (NULL time or end "
		       "before start)\n",
		       "capture damaged", in->capture_damaged, in->capture_damaged == 1 ? "" : "s");
}

static void info_print_text(const struct info *in, const char *path_clean)
{
	int64_t start, stop, dropped;
	char d[64];
	size_t i;

	printf("%-17s %s\n", "trace", path_clean);
	printf("%-17s %d\n", "schema version", in->t.schema_version);
	printf("%-17s %s\n", "collector", info_or(in->collector_version, "(unknown)"));
	printf("%-17s %s\n", "read by", "gapscope " GAPSCOPE_VERSION);
	if (in->cupti_version)
		printf("%-17s %s\n", "CUPTI version", in->cupti_version);
	if (in->driver_version)
		printf("%-17s %s\n", "CUDA driver", in->driver_version);
	printf("%-17s %s\n", "command line", info_or(in->command_line, "(not recorded)"));
	printf("%-17s %s\n", "host", info_or(in->hostname, "(not recorded)"));
	printf("%-17s %s\n", "pid", info_or(in->pid, "(not recorded)"));
	if (in->has_rank) {
		printf("%-17s %" PRId64, "rank", in->rank);
		if (in->world_size > 0)
			printf(" of %" PRId64, in->world_size);
		if (in->rank_source)
			printf(" (%s)", in->rank_source);
		putchar('\n');
	}
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
		printf("%-17s %s\n", "GPU window",
		       info_is_reference(in) ? "none: an untraced reference run (NVTX ranges "
					       "only, gapscope record --reference); compare it "
					       "with gapscope report TRACE.db --reference THIS.db"
					     : "no GPU operations recorded");
	for (i = 0; i < in->nwindows; i++) {
		const struct info_window *w = &in->windows[i];
		char dev[32];

		if (w->device < 0)
			snprintf(dev, sizeof(dev), "device ?");
		else
			snprintf(dev, sizeof(dev), "device %" PRId64, w->device);
		info_fmt_duration(w->end - w->start, d, sizeof(d));
		printf("%-17s %s: %s (%" PRId64 " ns, first op start %" PRId64
		       " .. last op end %" PRId64 ", %" PRId64 " GPU op%s",
		       "GPU window", dev, d, w->end - w->start, w->start, w->end, w->ops,
		       w->ops == 1 ? "" : "s");
		if (in->capture_range) { /* the rest was not recorded */
			info_fmt_duration(info_captured(in, w->start, w->end), d, sizeof(d));
			printf("; %s of it inside the capture windows", d);
		}
		fputs(")\n", stdout);
	}
	if (in->capture_range)
		info_print_capture(in);
	printf("%-17s %s\n", "finalized",
	       in->t.recording	       ? "no: being recorded"
	       : info_is_finalized(in) ? "yes"
				       : "no: recording was cut short");
	if (info_int(in->dropped, &dropped))
		printf("%-17s %" PRId64 "%s\n", "dropped records", dropped,
		       dropped ? " (CUPTI lost records: try a larger --buffer-kb)" : "");
	else
		printf("%-17s %s\n", "dropped records", "(not recorded)");
	{
		int64_t ns, n;
		if (info_int(in->callback_ns, &ns) && info_int(in->callbacks, &n)) {
			info_fmt_duration(ns, d, sizeof(d));
			printf("%-17s %s in %" PRId64 " callbacks, in the program's threads",
			       "collector cost", d, n);
			if (in->captures) {
				info_fmt_duration(in->capture_ns, d, sizeof(d));
				printf(", %s of it in %" PRId64 " call-site captures", d,
				       in->captures);
			}
			if (in->captures && !in->native_captures)
				printf("; call sites: Python frames only (no native walk)");
			else if (in->unwinder)
				printf("; call sites walked with %s", in->unwinder);
			putchar('\n');
		}
	}
	{
		/* what the process's threads ran at the end of recording:
		 * the program's, CUPTI's and the collector's */
		int64_t ns;
		size_t *ix, n, k;
		if (info_int(in->process_cpu_ns, &ns)) {
			info_fmt_duration(ns, d, sizeof(d));
			printf("%-17s %s in the process at the end of recording (user + system, "
			       "ended threads included)%s\n",
			       "CPU time", d, in->nthread_cpu ? "; by thread name:" : "");
		} else if (in->nthread_cpu) {
			printf("%-17s by thread name at the end of recording (user + system):\n",
			       "CPU time");
		}
		ix = info_threads_by_cpu(in, &n);
		for (k = 0; k < n; k++) {
			int64_t c = info_thread_count(in, ix[k]);
			if (!info_int(in->thread_cpu[ix[k]].value, &ns))
				continue;
			info_fmt_duration(ns, d, sizeof(d));
			printf("  %-22s %12s  %" PRId64 " thread%s\n", in->thread_cpu[ix[k]].key, d,
			       c, c == 1 ? "" : "s");
		}
		free(ix);
	}
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
	/* an imported trace: what `gapscope import` said of it (docs/import.md) */
	info_print_kv("import", in->imported, in->nimported);
	/* what tracing cost on this GPU before the program ran, in ns: the
	 * report's corrected figures come from it (docs/collector.md) */
	info_print_kv("calibration (ns)", in->calibration, in->ncalibration);
	/* the sampler: its source, the rate it got, what it took and dropped
	 * (docs/record.md, "Sampling") */
	info_print_kv("sampling", in->sampling, in->nsampling);
	/* an untraced reference run: the program's own launch calls, timed
	 * from outside (record --reference); report --reference reads them */
	info_print_kv("reference run's launch calls, timed from outside", in->reference,
		      in->nreference);
}

/* json_string() refuses invalid UTF-8; our strings are cleaned, but a NULL
 * from an allocation failure must not crash json_object_set_new. */
static json_t *info_jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* o[name] = an object of the n pairs kv; left out when n is 0 and not
 * always (the sections only some traces have) */
static void info_json_kv(json_t *o, const char *name, const struct info_kv *kv, size_t n,
			 int always)
{
	json_t *x;
	size_t i;

	if (!n && !always)
		return;
	x = json_object();
	for (i = 0; i < n; i++)
		json_object_set_new(x, kv[i].key, info_jstr(kv[i].value));
	json_object_set_new(o, name, x);
}

static json_t *info_jint_or_null(const char *s)
{
	int64_t v;
	return info_int(s, &v) ? json_integer(v) : json_null();
}

/* "capture": null, or the mode, its windows (as recorded, in time order)
 * and what was dropped or skipped */
static json_t *info_json_capture(const struct info *in)
{
	json_t *o, *a;
	int64_t total = 0;
	size_t i;

	if (!in->capture_range)
		return json_null();
	a = json_array();
	for (i = 0; i < in->ncapture; i++) {
		const struct info_span *w = &in->capture[i];
		json_t *x =
		    json_pack("{sI sI sI}", "start_ns", (json_int_t)w->start, "end_ns",
			      (json_int_t)w->end, "duration_ns", (json_int_t)(w->end - w->start));
		if (x)
			json_array_append_new(a, x);
	}
	total = info_captured(in, 0, INT64_MAX);
	o = json_object();
	json_object_set_new(o, "range", info_jstr(in->capture_range));
	json_object_set_new(o, "windows", a);
	json_object_set_new(o, "captured_ns", json_integer(total));
	json_object_set_new(o, "starts_skipped", info_jint_or_null(in->capture_dropped));
	json_object_set_new(o, "damaged_rows_skipped", json_integer(in->capture_damaged));
	return o;
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
	json_object_set_new(o, "gapscope_version", json_string(GAPSCOPE_VERSION));
	json_object_set_new(o, "cupti_version", info_jstr(in->cupti_version));
	json_object_set_new(o, "cuda_driver_version", info_jstr(in->driver_version));
	json_object_set_new(o, "command_line", info_jstr(in->command_line));
	json_object_set_new(o, "hostname", info_jstr(in->hostname));
	json_object_set_new(o, "pid", info_jint_or_null(in->pid));
	json_object_set_new(o, "rank", in->has_rank ? json_integer(in->rank) : json_null());
	json_object_set_new(o, "world_size",
			    in->world_size > 0 ? json_integer(in->world_size) : json_null());
	json_object_set_new(o, "rank_source", info_jstr(in->rank_source));
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
	json_object_set_new(o, "capture", info_json_capture(in));
	json_object_set_new(o, "finalized", json_boolean(info_is_finalized(in)));
	json_object_set_new(o, "being_recorded", json_boolean(in->t.recording));
	json_object_set_new(o, "dropped_records", info_jint_or_null(in->dropped));
	json_object_set_new(
	    o, "collector_cost",
	    in->callback_ns || in->callbacks
		? json_pack(
		      "{so so so sI sI sI}", "callback_ns", info_jint_or_null(in->callback_ns),
		      "callbacks", info_jint_or_null(in->callbacks), "unwinder",
		      info_jstr(in->unwinder), "captures", (json_int_t)in->captures, "capture_ns",
		      (json_int_t)in->capture_ns, "native_walks", (json_int_t)in->native_captures)
		: json_null());
	info_json_kv(o, "warnings", in->warnings, in->nwarnings, 1);
	x = json_object();
	for (i = 0; i < INFO_NTABLES; i++)
		json_object_set_new(x, info_tables[i],
				    in->rows[i] < 0 ? json_null() : json_integer(in->rows[i]));
	json_object_set_new(o, "rows", x);
	json_object_set_new(o, "implicit_syncs", json_integer(in->syncs_implicit));
	info_json_kv(o, "config", in->config, in->nconfig, 1);
	info_json_kv(o, "import", in->imported, in->nimported, 0);
	info_json_kv(o, "calibration", in->calibration, in->ncalibration, 0);
	info_json_kv(o, "sampling", in->sampling, in->nsampling, 0);
	info_json_kv(o, "reference", in->reference, in->nreference, 0);

	if (in->process_cpu_ns || in->nthread_cpu) {
		size_t *ix, n, k;
		int64_t ns;
		x = json_object();
		json_object_set_new(x, "process_ns", info_jint_or_null(in->process_cpu_ns));
		a = json_array();
		ix = info_threads_by_cpu(in, &n);
		for (k = 0; k < n; k++)
			if (info_int(in->thread_cpu[ix[k]].value, &ns))
				json_array_append_new(
				    a, json_pack("{so sI sI}", "name",
						 info_jstr(in->thread_cpu[ix[k]].key), "cpu_ns",
						 (json_int_t)ns, "threads",
						 (json_int_t)info_thread_count(in, ix[k])));
		free(ix);
		json_object_set_new(x, "threads", a);
		json_object_set_new(o, "cpu_time", x);
	}

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
		   "recording was finalized, dropped records, the CPU time of the recorded\n"
		   "process and of its threads by name at the end of recording (the\n"
		   "program's, CUPTI's, the collector's gs-*), warnings the collector stored,\n"
		   "row counts per table and the collector's configuration; for a trace\n"
		   "from `gapscope import`, what the import counted; for one recorded\n"
		   "by `gapscope record`, its calibration (what tracing cost on that\n"
		   "GPU, in ns: the report's corrected figures come from it) and what\n"
		   "its sampler did (samples.*: the source, the rate it got, samples\n"
		   "taken and dropped, walks that faulted and were dropped, and the\n"
		   "off-CPU samples: waits, wait_ns); for an\n"
		   "untraced reference run (record --reference), the program's launch\n"
		   "calls timed from outside (reference.*, ns).\n"
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

	if (info_load(&in) < 0) {
		if (in.failed && in.local) {
			gs_error(NULL, "%s", in.failure); /* names SQLite's temporary folder */
			info_free(&in);
			return GS_EXIT_INTERNAL;
		}
		if (in.failed)
			gs_error(path, "damaged database: %s", in.failure);
		else
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
	if (gs_cli_stdout_check("info") != GS_EXIT_OK) /* one line, with the reason */
		rc = GS_EXIT_INTERNAL;
	if (in.t.recording)
		gs_error(path_clean, "note: the trace is still being recorded (a collector holds "
				     "its lock); what it shows ends at the last flush");
	else if (!info_is_finalized(&in))
		gs_error(path_clean,
			 "warning: recording was cut short (the collector did not finalize: the "
			 "program was killed or crashed); events after the last flush are missing");
	free(path_clean);
	info_free(&in);
	return rc;
}
