/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * export_chrome.c - Chrome Trace Event Format JSON ("traceEvents"), for
 * ui.perfetto.dev and chrome://tracing.
 *
 * Layout: one process per GPU ("GPU 0 (NVIDIA H200)") with one thread per
 * CUDA stream holding its kernels, copies, memsets and graph runs (schema
 * v2, graph-level recording: one slice per graph launch) as complete ("X")
 * events, plus an "idle gaps" thread when gaps are given; one process per
 * host process with one thread per host thread holding its API calls and
 * NVTX ranges ("X"), NVTX marks (instant "i"), and synchronisations as
 * async events ("b"/"e", because a sync record need not nest exactly inside
 * the API call around it and Perfetto rejects "X" slices that overlap
 * without nesting). Each GPU op gets a flow arrow ("s" -> "f") from the API
 * call that launched it (correlation id); flow points sit mid-slice so that
 * each binds to its enclosing slice whatever order ties are read in. A
 * trace recorded with --capture-range gets a process of its own, listed
 * first, whose one track holds each capture window as an "X" slice: the
 * only time that was recorded (nothing on the other tracks between two
 * of them is no idle time).
 *
 * Times are µs (the format's unit) with three decimals, so ns survive,
 * counted from the trace's first event; otherData.origin_ns gives that
 * event's absolute CUPTI time. Events are written as they are read: memory
 * use does not grow with the trace. It does not analyse anything: gaps are
 * passed in by the caller.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h" /* gs_sat_add */
#include "export.h"

/* A thread id of the GPU process that no CUDA stream uses (stream ids are
 * small per-context counters), for the per-device "idle gaps" track. */
#define GAP_TID 2147483647

/* The process of the capture windows' track: below the GPUs' ids
 * (EXPORT_GPU_PID) and above any Linux pid (under 2^22) */
#define CAPTURE_PID (EXPORT_GPU_PID(0) - 1)

/* A name written before, as its JSON string literal (quotes included). */
struct esc_slot {
	const char *name; /* the walker's pointer (export.h: stable for the walk) */
	char *json;	  /* escaped, owned */
	size_t len;	  /* bytes of json */
};

struct chrome {
	FILE *f;
	/* names of kernels, API calls and NVTX ranges, escaped once each: a
	 * trace of 1700 kernels sharing a 2 MB name escaped it 1700 times */
	struct esc_slot *esc; /* open addressing on the pointer */
	size_t esc_cap;	      /* slots, a power of two (0 before the first) */
	size_t esc_len;	      /* used slots */
	int64_t origin;	      /* ns */
	int first;	      /* no event written yet (no comma needed) */
	int64_t last_pid;     /* process whose name was written last */
	int last_kind;	      /* kind of the track that last_pid belongs to */
	const struct export_event *gaps;
	size_t ngaps;
	int capture_named; /* the capture windows' track is named */
};

static size_t esc_hash(const char *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;
	return (size_t)(x >> 32 ^ x) & (cap - 1);
}

static int esc_grow(struct chrome *c)
{
	size_t ncap = c->esc_cap ? c->esc_cap * 2 : 64, i, j;
	struct esc_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (i = 0; i < c->esc_cap; i++) {
		if (!c->esc[i].name)
			continue;
		for (j = esc_hash(c->esc[i].name, ncap); ns[j].name; j = (j + 1) & (ncap - 1))
			;
		ns[j] = c->esc[i];
	}
	free(c->esc);
	c->esc = ns;
	c->esc_cap = ncap;
	return 0;
}

static void esc_free(struct chrome *c)
{
	for (size_t i = 0; i < c->esc_cap; i++)
		free(c->esc[i].json);
	free(c->esc);
	c->esc = NULL;
	c->esc_cap = c->esc_len = 0;
}

/* Write the name of a walker event whose name pointer is stable (kernel,
 * API call, NVTX): from the cache, escaping it the first time. The bytes
 * are those json_write_cstr() writes. Without memory for the cache, the
 * name is escaped in place as before. */
static void write_name(struct chrome *c, const char *name)
{
	struct esc_slot *e;
	size_t j;

	if (c->esc_cap)
		for (j = esc_hash(name, c->esc_cap); c->esc[j].name; j = (j + 1) & (c->esc_cap - 1))
			if (c->esc[j].name == name) {
				fwrite(c->esc[j].json, 1, c->esc[j].len, c->f);
				return;
			}
	if ((c->esc_len + 1) * 2 > c->esc_cap && esc_grow(c) < 0)
		goto plain;
	for (j = esc_hash(name, c->esc_cap); c->esc[j].name; j = (j + 1) & (c->esc_cap - 1))
		;
	e = &c->esc[j];
	{
		FILE *m = open_memstream(&e->json, &e->len);

		if (!m)
			goto plain;
		json_write_cstr(m, name, 0);
		if (fclose(m) != 0 || !e->json) {
			free(e->json);
			e->json = NULL;
			goto plain;
		}
	}
	e->name = name;
	c->esc_len++;
	fwrite(e->json, 1, e->len, c->f);
	return;
plain:
	json_write_cstr(c->f, name, 0);
}

static void sep(struct chrome *c)
{
	if (!c->first)
		fputs(",\n", c->f);
	c->first = 0;
}

static void ts(struct chrome *c, const char *key, int64_t ns)
{
	fprintf(c->f, ",\"%s\":", key);
	json_write_ns_as_us(c->f, ns - c->origin);
}

static void dur(struct chrome *c, int64_t start, int64_t end)
{
	fputs(",\"dur\":", c->f);
	json_write_ns_as_us(c->f, end > start ? end - start : 0);
}

static void meta(struct chrome *c, const char *what, int64_t pid, int64_t tid, const char *key,
		 const char *name, int64_t sort)
{
	sep(c);
	fprintf(c->f,
		"{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		",\"args\":{\"%s\":",
		what, pid, tid, key);
	if (name)
		json_write_cstr(c->f, name, 0);
	else
		fprintf(c->f, "%" PRId64, sort);
	fputs("}}", c->f);
}

static int on_begin(void *ctx, const struct export_info *info)
{
	struct chrome *c = ctx;

	c->origin = info->origin_ns;
	fputs(
	    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"gapscope " GAPSCOPE_VERSION
	    "\",\"trace\":",
	    c->f);
	json_write_cstr(c->f, info->trace_path, 0);
	fprintf(c->f,
		",\"origin_ns\":\"%" PRId64 "\",\"time_unit\":\"us from origin_ns\"},"
		"\n\"traceEvents\":[\n",
		info->origin_ns);
	c->first = 1;
	return 0;
}

/* The process id of device d's tracks, EXPORT_GPU_PID(d), held at
 * INT64_MAX/MIN instead of overflowing (export_walk refuses devices
 * outside 0..32767 first; device 2^63-1 overflowed here, UBSan). */
static int64_t gpu_pid(int64_t d)
{
	return gs_sat_add(EXPORT_GPU_PID(0), d);
}

static int on_track(void *ctx, const struct export_track *tr)
{
	struct chrome *c = ctx;
	int64_t pid = tr->kind == EXPORT_TRACK_STREAM ? gpu_pid(tr->pid) : tr->pid;

	if (c->first || pid != c->last_pid || (int)tr->kind != c->last_kind) {
		meta(c, "process_name", pid, 0, "name", tr->process_name, 0);
		/* GPUs first, then host processes, in Perfetto's track list */
		meta(c, "process_sort_index", pid, 0, "sort_index", NULL,
		     tr->kind == EXPORT_TRACK_STREAM ? tr->pid : 1000 + tr->pid % 1000000);
		c->last_pid = pid;
		c->last_kind = tr->kind;
	}
	meta(c, "thread_name", pid, tr->tid, "name", tr->name, 0);
	return 0;
}

/* Flow arrow from the launching API call to GPU op ev. */
static void flow(struct chrome *c, const struct export_event *ev, int64_t gpu_pid)
{
	/* one id per op: a graph launch shares one correlation id among
	 * all its kernels, and a flow id may only be finished once. In
	 * unsigned arithmetic, wrapping: a row id is any int64 (a damaged
	 * kernels row with id -2^63 overflowed the signed product); ids
	 * below 2^63 / 3 come out as before */
	int64_t id = (int64_t)((uint64_t)ev->id * 3 + (uint64_t)ev->kind);
	/* graph runs: id * 3 + kind covers every int64 already (3 is odd),
	 * so their arrows get a category of their own and the graph_runs row
	 * id; a v1 flow binds by category, name and id */
	const char *cat = "launch";

	if (ev->kind == EXPORT_EV_GRAPH_RUN) {
		id = ev->id;
		cat = "graph_launch";
	}
	sep(c);
	fprintf(c->f,
		"{\"ph\":\"s\",\"cat\":\"%s\",\"name\":\"launch\",\"id\":%" PRId64
		",\"pid\":%" PRId64 ",\"tid\":%" PRId64,
		cat, id, ev->launch_pid, ev->launch_tid);
	ts(c, "ts", ev->launch_start + (ev->launch_end - ev->launch_start) / 2);
	fputs("}", c->f);
	sep(c);
	fprintf(c->f,
		"{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"%s\",\"name\":\"launch\",\"id\":%" PRId64
		",\"pid\":%" PRId64 ",\"tid\":%" PRId64,
		cat, id, gpu_pid, ev->tid);
	ts(c, "ts", ev->start + (ev->end - ev->start) / 2);
	fputs("}", c->f);
}

static void complete(struct chrome *c, const char *cat, const struct export_event *ev, int64_t pid,
		     int64_t tid)
{
	sep(c);
	fprintf(c->f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", cat);
	if (ev->kind == EXPORT_EV_KERNEL || ev->kind == EXPORT_EV_API || ev->kind == EXPORT_EV_NVTX)
		write_name(c, ev->name);
	else
		json_write_cstr(c->f, ev->name, 0);
	fprintf(c->f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64, pid, tid);
	ts(c, "ts", ev->start);
	dur(c, ev->start, ev->end);
}

static int on_event(void *ctx, const struct export_event *ev)
{
	struct chrome *c = ctx;
	FILE *f = c->f;
	int64_t gpid = gpu_pid(ev->pid);

	switch (ev->kind) {
	case EXPORT_EV_KERNEL:
		complete(c, "kernel", ev, gpid, ev->tid);
		fprintf(f,
			",\"args\":{\"correlation_id\":%" PRId64
			",\"grid\":\"%dx%dx%d\",\"block\":\"%dx%dx%d\",\"registers\":%d"
			",\"shared_bytes\":%" PRId64 ",\"graph_id\":%" PRId64 "}}",
			ev->correlation_id, ev->grid[0], ev->grid[1], ev->grid[2], ev->block[0],
			ev->block[1], ev->block[2], ev->registers, ev->shared_bytes, ev->graph_id);
		break;
	case EXPORT_EV_MEMCPY:
		complete(c, "memcpy", ev, gpid, ev->tid);
		fprintf(f,
			",\"args\":{\"correlation_id\":%" PRId64 ",\"bytes\":%" PRId64
			",\"src\":\"%s\",\"dst\":\"%s\"}}",
			ev->correlation_id, ev->bytes, gs_mem_kind_name(ev->src_kind),
			gs_mem_kind_name(ev->dst_kind));
		break;
	case EXPORT_EV_MEMSET:
		complete(c, "memset", ev, gpid, ev->tid);
		fprintf(f,
			",\"args\":{\"correlation_id\":%" PRId64 ",\"bytes\":%" PRId64
			",\"memory\":\"%s\"}}",
			ev->correlation_id, ev->bytes, gs_mem_kind_name(ev->src_kind));
		break;
	case EXPORT_EV_GRAPH_RUN:
		/* the whole launch: what ran between its nodes is not recorded */
		complete(c, "graph", ev, gpid, ev->tid);
		fprintf(f,
			",\"args\":{\"graph_id\":%" PRId64 ",\"correlation_id\":%" PRId64
			",\"graph-level\":true}}",
			ev->graph_id, ev->correlation_id);
		break;
	case EXPORT_EV_API:
		complete(c, "cuda_api", ev, ev->pid, ev->tid);
		fprintf(f,
			",\"args\":{\"correlation_id\":%" PRId64 ",\"return_code\":%" PRId64
			",\"api\":\"%s\"}}",
			ev->correlation_id, ev->return_code,
			ev->api == GS_API_DRIVER ? "driver" : "runtime");
		return 0;
	case EXPORT_EV_NVTX:
		complete(c, "nvtx", ev, ev->pid, ev->tid);
		fputs("}", f);
		return 0;
	case EXPORT_EV_MARK:
		sep(c);
		fputs("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"nvtx\",\"name\":", f);
		write_name(c, ev->name);
		fprintf(f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64, ev->pid, ev->tid);
		ts(c, "ts", ev->start);
		fputs("}", f);
		return 0;
	case EXPORT_EV_SYNC:
		for (int phase = 0; phase < 2; phase++) {
			sep(c);
			fprintf(f, "{\"ph\":\"%s\",\"cat\":\"sync\",\"name\":", phase ? "e" : "b");
			json_write_cstr(f, ev->name, 0);
			fprintf(f, ",\"id\":%" PRId64 ",\"pid\":%" PRId64 ",\"tid\":%" PRId64,
				ev->id, ev->pid, ev->tid);
			ts(c, "ts", phase ? ev->end : ev->start);
			if (!phase) {
				fputs(",\"args\":{\"api\":", f);
				json_write_cstr(f, ev->api_name, 0);
				fprintf(f, ",\"implicit\":%d,\"reason\":", ev->implicit);
				json_write_cstr(f, ev->detail, 0);
				fprintf(f, ",\"stream\":%" PRId64 "}", ev->stream);
			}
			fputs("}", f);
		}
		return 0;
	case EXPORT_EV_CAPTURE:
		if (!c->capture_named) {
			meta(c, "process_name", CAPTURE_PID, 0, "name",
			     "capture windows (record --capture-range)", 0);
			meta(c, "process_sort_index", CAPTURE_PID, 0, "sort_index", NULL, -1);
			meta(c, "thread_name", CAPTURE_PID, 0, "name",
			     "recorded (nothing between windows)", 0);
			c->capture_named = 1;
		}
		complete(c, "capture", ev, CAPTURE_PID, 0);
		fprintf(f,
			",\"args\":{\"window\":%" PRId64 ",\"start_ns\":\"%" PRId64
			"\",\"end_ns\":\"%" PRId64 "\"}}",
			ev->id, ev->start, ev->end);
		return ferror(f) ? -1 : 0;
	case EXPORT_EV_GAP:
		complete(c, "gap", ev, gpid, GAP_TID);
		fputs(",\"args\":{\"cause\":", f);
		json_write_cstr(f, ev->cause_name, 0);
		fputs(",\"explanation\":", f);
		json_write_cstr(f, ev->detail, 0);
		fputs("}}", f);
		return 0;
	default: return 0;
	}
	if (ev->has_launch)
		flow(c, ev, gpid);
	return ferror(f) ? -1 : 0;
}

int export_chrome(struct trace *t, FILE *f, export_gap_fn gap, void *gap_ctx, size_t ngaps,
		  char *err, size_t errlen)
{
	struct export_event ev;
	static const struct export_ops ops = {on_begin, on_track, on_event};
	struct chrome c;
	int64_t last_dev = -1;
	size_t i;
	int rc;

	if (errlen)
		err[0] = '\0';
	memset(&c, 0, sizeof(c));
	c.f = f;
	rc = export_walk(t, &ops, &c, err, errlen);
	/* the gap tracks come last: their GPU processes are named by then */
	for (i = 0; rc == 0 && gap && i < ngaps; i++) {
		if (gap(gap_ctx, i, &ev) < 0) {
			snprintf(err, errlen, "cannot describe idle gap %zu", i);
			rc = -1;
			break;
		}
		if (ev.pid != last_dev) {
			meta(&c, "thread_name", gpu_pid(ev.pid), GAP_TID, "name", "idle gaps", 0);
			meta(&c, "thread_sort_index", gpu_pid(ev.pid), GAP_TID, "sort_index", NULL,
			     -1);
			last_dev = ev.pid;
		}
		rc = on_event(&c, &ev);
	}
	esc_free(&c);
	if (rc == 0)
		fputs("\n]}\n", f);
	if (rc == 0 && (fflush(f) != 0 || ferror(f))) {
		snprintf(err, errlen, "write error");
		rc = -1;
	} else if (rc != 0 && !*err) {
		snprintf(err, errlen, "write error");
	}
	return rc;
}
