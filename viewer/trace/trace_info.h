/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_info.h - the facts of one trace as `gapscope info` prints them
 * (trace_info.c reads them; cmd/cmd_info.c prints text or JSON).
 */
#ifndef GAPSCOPE_TRACE_INFO_H
#define GAPSCOPE_TRACE_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

/* Tables of schema v1, in the order the docs list them. */
#define INFO_NTABLES 21
extern const char *const info_tables[INFO_NTABLES];

/* Tables added to schema v1 later (additively): older traces lack them,
 * which is not damage. */
int info_table_is_later(const char *name);

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

struct info_span {
	int64_t start; /* ns */
	int64_t end;   /* ns */
};

struct info_kv {
	char *key;   /* without the config./warning. prefix, cleaned */
	char *value; /* cleaned */
};

struct info {
	struct trace t;
	int failed;	   /* a query failed: the database is damaged */
	char failure[256]; /* SQLite's message for the first failed query */
	int local;	   /* the failure was this machine's (trace_local_error):
			      failure says what, the trace is not to blame */
	char damaged[256]; /* a time outside [0, TRACE_TIME_MAX] (info_check_times) */
	char *collector_version, *command_line, *hostname, *pid;
	char *cupti_version, *driver_version, *finalized, *dropped;
	char *start_ns, *stop_ns;
	/* which rank of a multi-process job (trace_rank) */
	int has_rank;
	int64_t rank, world_size; /* world_size 0: unknown */
	char *rank_source;	  /* a name ("env.RANK", "distributedInfo"), NULL unknown */
	/* what the collector cost the program (meta collector.*): its callbacks'
	 * time and count, the unwinder of the call sites; NULL when absent */
	char *callback_ns, *callbacks, *unwinder;
	struct info_device *devices;
	size_t ndevices;
	struct info_window *windows;
	size_t nwindows;
	int64_t rows[INFO_NTABLES]; /* -1: table missing */
	int64_t syncs_implicit;	    /* rows of syncs with implicit = 1 */
	/* the collector's call-site captures with times (api_stacks
	 * capture_start/end, traces since 2026-12-04): how many, their total */
	int64_t captures, capture_ns;
	int64_t native_captures; /* of those, the ones whose stack has native
				    frames (the unwinder walked); = captures
				    where the trace cannot tell */
	struct info_kv *config, *warnings;
	size_t nconfig, nwarnings;
	struct info_kv *imported; /* meta import.* of a `gapscope import`ed trace */
	size_t nimported;
	struct info_kv *calibration; /* meta calibration.* (gapscope-calibrate, ns) */
	size_t ncalibration;
	struct info_kv *sampling; /* meta samples.* (record's sampler: source, rate, counts) */
	size_t nsampling;
	struct info_kv *reference; /* meta reference.* of an untraced reference run:
				      its launch calls timed from outside (record
				      --reference; traces since 2026-12-05) */
	size_t nreference;
	/* CPU time of the recorded process at the end of recording (meta
	 * process.cpu_ns, NULL when absent) and of its threads by name (meta
	 * thread_cpu_ns.<name>, thread_count.<name>; traces since 2026-12-05) */
	char *process_cpu_ns;
	struct info_kv *thread_cpu, *thread_count;
	size_t nthread_cpu, nthread_count;
	/* record --capture-range (schema v3): the mode (meta capture_range,
	 * cleaned; NULL: the whole run was recorded) and the capture_windows
	 * rows in time order, as recorded (damaged rows, with a NULL or
	 * non-integer time or end < start, only counted) */
	char *capture_range;
	struct info_span *capture;
	size_t ncapture;
	int64_t capture_damaged;
	char *capture_dropped; /* meta capture.starts_skipped, NULL: none */
};

/* Read everything into `in`, whose t was opened by trace_open(). Returns 0,
 * or -1 when the trace is damaged: in->failed with SQLite's message in
 * in->failure (a page that cannot be read), or in->damaged (a time out of range). */
int info_load(struct info *in);
void info_free(struct info *in);

/* Copy of `s` with control characters (C0, DEL, C1) and bytes that are not
 * valid UTF-8 replaced by '?'; NULL when out of memory. */
char *info_clean(const char *s);

#endif
