/*
 * internal.h - private interfaces between the parts of libgapscope.
 *
 * The collector is split so that everything but the CUPTI glue can be built
 * and tested on a machine without a GPU:
 *   config.c    environment variables, output path template, logging
 *   writer.c    the SQLite writer (plain C structs in, schema-v1 rows out)
 *   decode.c    CUPTI activity records (const CUpti_Activity *) -> writer structs
 *   pipeline.c  the bounded buffer queue and the writer's two threads (decode, SQLite)
 *   synthetic.c a buffer format for synthetic records (tests, benchmark)
 *   threadcpu.c the CPU time of the process's threads, by name (at the end)
 *   collector.c the injection entry points and CUPTI calls (libgapscope.so only)
 * Only collector.c calls into libcupti; the others use CUPTI's headers for
 * the record layouts and nothing else. Nothing here is public API: the trace
 * format (gapscope/trace_format.h) is the contract with the viewer.
 */
#ifndef GAPSCOPE_COLLECTOR_INTERNAL_H
#define GAPSCOPE_COLLECTOR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cupti_activity.h>

#include "callsite.h"
#include "log.h"
#include "gapscope/trace_format.h"

#define GS_COLLECTOR_VERSION "0.1.0"

/* ---------------------------------------------------------------- config */

/* GAPSCOPE_ACTIVITIES words, as bits. */
enum gs_activity {
	GS_ACT_KERNEL = 1u << 0,
	GS_ACT_MEMCPY = 1u << 1,
	GS_ACT_MEMSET = 1u << 2,
	GS_ACT_RUNTIME = 1u << 3,
	GS_ACT_DRIVER = 1u << 4,
	GS_ACT_SYNC = 1u << 5,
	GS_ACT_NVTX = 1u << 6,
	GS_ACT_GRAPH = 1u << 7,
	GS_ACT_OVERHEAD = 1u << 8,
	GS_ACT_EVENT = 1u << 9,	  /* CUDA_EVENT records: the stream of each event */
	GS_ACT_STREAM = 1u << 10, /* STREAM records: which streams are non-blocking */
};
#define GS_ACT_ALL 0x7ffu
/* Driver API records double the API rows of every runtime call and cost the
 * most; they are opt-in. */
#define GS_ACT_DEFAULT (GS_ACT_ALL & ~GS_ACT_DRIVER)

#define GS_DEFAULT_OUTPUT "gapscope-%p.db"
#define GS_DEFAULT_FLUSH_MS 1000u
#define GS_DEFAULT_BUFFER_KB 8192u
#define GS_MIN_BUFFER_KB 64u
#define GS_MAX_BUFFER_KB 1048576u
#define GS_MAX_FLUSH_MS 3600000u
#define GS_DEFAULT_SAMPLE_HZ 250u
#define GS_MAX_SAMPLE_HZ 10000u

struct gs_config {
	char output[4096];    /* path template as in effect (not expanded) */
	unsigned activities;  /* enum gs_activity bits */
	int latency;	      /* 0/1: cuptiActivityEnableLatencyTimestamps */
	int clock;	      /* enum gs_clock: where CUPTI's CPU timestamps come from */
	int graph_level;      /* 0/1: graph launches as one graph_runs row each
				 (GRAPH_TRACE) instead of a record per node */
	unsigned flush_ms;    /* ms between forced flushes; 0 = off */
	int log_level;	      /* enum gs_log_level */
	unsigned buffer_kb;   /* KiB per CUPTI activity buffer */
	int callsites;	      /* enum gs_callsite_mode (GAPSCOPE_CALLSITES) */
	int unwinder;	      /* enum gs_unwinder (GAPSCOPE_UNWINDER) */
	int native_frames;    /* enum gs_native_walk (GAPSCOPE_NATIVE_FRAMES) */
	int stack_cache;      /* 0/1: call sites' per-thread stack cache
				 (GAPSCOPE_STACK_CACHE) */
	int sampling;	      /* 0/1: sample the launching threads (GAPSCOPE_SAMPLING) */
	unsigned sample_hz;   /* samples per second of a thread's CPU time
				 (GAPSCOPE_SAMPLE_HZ) */
	int sample_clock;     /* enum gs_sample_clock (GAPSCOPE_SAMPLE_CLOCK) */
	int sample_waits;     /* 0/1: off-CPU samples of the sampled Python threads
				 (GAPSCOPE_SAMPLE_WAITS, default 1) */
	int sync_source;      /* enum gs_sync_source (GAPSCOPE_SYNC_SOURCE) */
	int capture_range;    /* enum gs_capture_range (GAPSCOPE_CAPTURE_RANGE) */
	int capture_driver;   /* 0: the driver's launch records on all run long,
				 1: only inside capture windows (experimental,
				 GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=windows) */
	int64_t run_start_ns; /* ns since the epoch (CLOCK_REALTIME): when the
				 `gapscope record` run this process belongs to
				 began (GAPSCOPE_RECORD_START_NS), 0 outside one */
};

/* What times the samples (GAPSCOPE_SAMPLE_CLOCK, sampler.c): a perf_event
 * task-clock per thread where the kernel allows it, else a POSIX timer on
 * the thread's CPU-time clock (checked at the kernel's tick only: 250 Hz on
 * a HZ=250 kernel, whatever rate is asked); or one of them forced. */
enum gs_sample_clock {
	GS_SAMPLE_CLOCK_AUTO = 0,
	GS_SAMPLE_CLOCK_TIMER = 1,
	GS_SAMPLE_CLOCK_PERF = 2
};
/* "auto" / "timer" / "perf". Returns 0 and sets *mode, or -1. */
int gs_sample_clock_parse(const char *s, int *mode);
const char *gs_sample_clock_str(int mode);

/* Where the `sync` and `event` rows come from. CUPTI's SYNCHRONIZATION and
 * CUDA_EVENT kinds make every cudaGetDevice dearer while they are on (0.4-0.5
 * us a call on the H200; PyTorch makes ~5 per kernel), so by default the
 * collector makes those rows itself from callbacks on the few calls that
 * synchronise or record an event (docs/collector.md, "Sync and event rows
 * from callbacks"). */
enum gs_sync_source { GS_SYNC_FROM_CALLBACKS = 0, GS_SYNC_FROM_CUPTI = 1 };

/* What is recorded (GAPSCOPE_CAPTURE_RANGE): the whole run, or only the
 * spans between the program's cudaProfilerStart and cudaProfilerStop calls
 * (every one), as Nsight Systems' --capture-range=cudaProfilerApi. Outside
 * them tracing is off: no activity kind, no per-call callback. */
enum gs_capture_range { GS_CAPTURE_ALL = 0, GS_CAPTURE_PROFILER_API = 1 };
/* "none" / "cudaProfilerApi" (any case). Returns 0 and sets *mode, or -1. */
int gs_capture_range_parse(const char *s, int *mode);

/* Where CUPTI takes the CPU timestamps of its records (GAPSCOPE_CLOCK): its
 * own clock, or a timestamp callback of the collector's that reads
 * CLOCK_REALTIME, the clock CUPTI documents for Linux, so the times are the
 * same either way (bench/results/2026-12-05-correction-h200.md, "Two more of CUPTI's levers"). */
enum gs_clock { GS_CLOCK_CUPTI = 0, GS_CLOCK_REALTIME = 1 };

/* Where environment values come from (getenv in the library, a table in
 * tests). Returns NULL when the variable is unset. */
typedef const char *(*gs_getenv_fn)(const char *name, void *ctx);

/* Fill `c` from GAPSCOPE_* variables. Each invalid value gives one warning
 * (gs_warn) and the default is used. Returns the number of invalid values. */
int gs_config_from_env(struct gs_config *c, gs_getenv_fn get, void *ctx);

/* The process's rank in a multi-process job from the launcher's variables
 * (GS_RANK_ENV_VARS, trace_format.h): the first that holds a whole number
 * 0 <= v < 2^31 gives *rank; the world-size variable paired with it gives
 * *world_size when it holds a whole number above *rank, else 0. Returns the
 * index of the rank's variable in GS_RANK_ENV_VARS, or -1 (rank unknown). */
int gs_rank_from_env(gs_getenv_fn get, void *ctx, int64_t *rank, int64_t *world_size);
void gs_config_defaults(struct gs_config *c);

/* "kernel,memcpy,..." for the bits in `act` (buf always terminated). */
void gs_activities_to_string(unsigned act, char *buf, size_t len);
/* Parse a GAPSCOPE_ACTIVITIES value. Returns 0 and sets *act, or -1. */
int gs_activities_parse(const char *s, unsigned *act);
/* The activity words gs_activities_parse knows, "kernel, memcpy, ...,
 * overhead", into buf (cut to len). */
void gs_activities_words(char *buf, size_t len);
/* Parse a GAPSCOPE_SYNC_SOURCE value ("callbacks", "cupti"). Returns 0 and
 * sets *src (enum gs_sync_source), or -1. */
int gs_sync_source_parse(const char *s, int *src);
/* Parse a GAPSCOPE_CLOCK value ("cupti", "realtime"). Returns 0 and sets
 * *clock (enum gs_clock), or -1. */
int gs_clock_parse(const char *s, int *clock);
/* CLOCK_REALTIME in ns: CUPTI's timestamp callback under GS_CLOCK_REALTIME */
uint64_t CUPTIAPI gs_realtime_ns(void);
/* The activity bits of `act` recorded through their CUPTI activity kinds
 * (gs_activity_kinds): all but `sync` and `event` when the collector makes
 * those rows from callbacks (sync_source GS_SYNC_FROM_CALLBACKS). The
 * collector enables these kinds; gapscope-calibrate the same ones. */
unsigned gs_cupti_activities(unsigned act, int sync_source);

/* The CUPTI activity kinds behind the activity bits: enable kinds[i].kind
 * when act & kinds[i].act. Returns the table, *n its length. */
struct gs_activity_kind {
	unsigned act;		 /* enum gs_activity bit(s) */
	CUpti_ActivityKind kind; /* what CUPTI records for it */
	const char *name;	 /* for warnings */
};
const struct gs_activity_kind *gs_activity_kinds(size_t *n);

/* Expand an output path template: %p pid, %h hostname, %q{VAR} the value of
 * an environment variable (empty when unset), %% a literal %. Returns 0, or
 * -1 with a reason in err for malformed templates ("%z", "%q{", trailing
 * "%") and results that do not fit in `out`. */
int gs_path_expand(const char *tmpl, char *out, size_t outlen, long pid, const char *host,
		   gs_getenv_fn get, void *ctx, char *err, size_t errlen);

/* Logging and warnings: log.h (log.c). */

/* ---------------------------------------------------------------- writer */

/* Records as the writer takes them. Times are ns on CUPTI's clock. A
 * negative value in a field marked "-1: NULL" is stored as SQL NULL. String
 * fields are ids from gs_writer_intern (0: NULL). */
struct gs_kernel {
	uint64_t start, end; /* ns */
	uint32_t device, context, stream;
	uint32_t correlation_id;
	int64_t name_id;		   /* strings.id of the mangled name */
	int32_t grid_x, grid_y, grid_z;	   /* blocks */
	int32_t block_x, block_y, block_z; /* threads */
	uint32_t registers;		   /* per thread */
	int32_t static_shared;		   /* bytes */
	int32_t dynamic_shared;		   /* bytes */
	uint32_t local_memory;		   /* bytes per thread */
	uint32_t graph_id;		   /* 0 unless from a graph launch */
	uint64_t graph_node_id;		   /* 0 unless from a graph launch */
	int has_latency;		   /* queued/submitted valid */
	uint64_t queued, submitted;	   /* ns */
	uint8_t launch_type;		   /* CUpti_ActivityLaunchType */
	uint8_t is_device_launched;
};

struct gs_api_call {
	int api; /* GS_API_RUNTIME / GS_API_DRIVER */
	uint32_t cbid;
	int64_t name_id;
	uint64_t start, end; /* ns */
	uint32_t pid, tid;   /* tid: OS thread id */
	uint32_t correlation_id;
	int64_t return_code; /* cudaError_t / CUresult */
};

struct gs_memcpy {
	uint64_t start, end; /* ns */
	uint32_t device, context, stream, correlation_id;
	uint64_t bytes;
	uint8_t copy_kind;	    /* enum gs_copy_kind */
	uint8_t src_kind, dst_kind; /* enum gs_mem_kind */
	int is_async;
	int64_t src_device, dst_device; /* -1: NULL (peer copies only) */
	uint32_t graph_id;
	uint64_t graph_node_id;
};

struct gs_memset {
	uint64_t start, end; /* ns */
	uint32_t device, context, stream, correlation_id;
	uint64_t bytes;
	uint32_t value;
	uint16_t mem_kind; /* enum gs_mem_kind */
	int is_async;
	uint32_t graph_id;
	uint64_t graph_node_id;
};

struct gs_sync {
	uint64_t start, end; /* ns */
	int kind;	     /* enum gs_sync_kind */
	int implicit;
	int64_t reason_id, api_name_id;		/* strings.id, 0: NULL */
	int64_t device, context, stream, event; /* -1: NULL */
	uint32_t correlation_id;
	int64_t pid, tid; /* -1: NULL (filled at finalize from the API call) */
};

/* A cudaEventRecord (CUPTI_ACTIVITY_KIND_CUDA_EVENT): where an event was
 * recorded. The record API call's start is filled at finalize. */
struct gs_cuda_event {
	uint32_t event;	 /* CUPTI event id, as in gs_sync.event (or the
			    collector's, for rows made from callbacks) */
	uint32_t stream; /* CUPTI stream id where it was recorded */
	uint32_t device, context;
	uint32_t correlation_id; /* of the record API call */
	uint64_t start;		 /* ns, the record call's start; 0: unknown
				    (taken from the API call at finalize) */
};

struct gs_nvtx {
	uint64_t start, end;	    /* ns; end = start for marks */
	int kind;		    /* enum gs_nvtx_kind */
	int64_t text_id, domain_id; /* strings.id, 0: NULL */
	int64_t category;	    /* -1: NULL */
	int64_t color;		    /* 0xAARRGGBB, -1: NULL */
	int64_t pid, tid;	    /* -1: NULL */
};

/* a graph launch timed as a whole (graph-level mode, GRAPH_TRACE) */
struct gs_graph_run {
	uint64_t start, end; /* ns, first node start .. last node end */
	uint32_t device, context, stream;
	uint32_t graph_id;
	uint32_t correlation_id;
};

struct gs_overhead {
	int kind;	     /* CUpti_ActivityOverheadKind */
	uint64_t start, end; /* ns */
	int object_kind;     /* CUpti_ActivityObjectKind */
	int64_t object_id;   /* thread id or device id */
};

struct gs_device {
	uint32_t id; /* CUDA device ordinal */
	const char *name;
	char uuid[48]; /* "GPU-xxxxxxxx-..." or "" */
	int cc_major, cc_minor;
	int64_t sm_count;
	int64_t core_clock_khz;	     /* kHz */
	int64_t memory_clock_khz;    /* kHz, -1: NULL */
	int64_t global_memory_bytes; /* bytes */
	int64_t l2_cache_bytes;	     /* bytes */
	int64_t max_threads_per_block;
};

struct gs_process {
	int64_t pid;
	const char *hostname, *command_line;
	uint64_t start_ns, end_ns; /* ns */
	const char *exit_reason;
};

/* Graph topology (CUPTI resource callbacks). */
struct gs_graph {
	uint32_t graph_id;
	int64_t original_graph_id; /* -1: NULL */
	int64_t device, context;   /* -1: NULL */
	uint64_t created;	   /* ns */
	int origin;		   /* 0 created, 1 cloned, 2 stream capture */
};

struct gs_graph_node {
	uint64_t node_id;
	uint32_t graph_id;
	int type;		   /* CUgraphNodeType, -1: NULL */
	int64_t name_id;	   /* kernel function name, 0: NULL */
	int64_t original_node_id;  /* -1: NULL */
	int64_t child_graph_id;	   /* -1: NULL */
	int64_t grid[3], block[3]; /* -1: NULL */
	int64_t bytes;		   /* -1: NULL */
	uint64_t created;	   /* ns */
};

struct gs_graph_launch {
	uint32_t exec_id;
	int64_t stream; /* -1: NULL */
	uint32_t correlation_id;
	int64_t tid;
};

struct gs_writer;

/* Create the database at `path`, set WAL and create the schema. A `path`
 * that holds another process's trace of this run - one a live writer
 * holds (flock), or, with run_start_ns > 0, a file written since then (a
 * process of the same `gapscope record` run that has finished) - is left
 * alone: the writer takes gs_trace_alt_path(path, pid) instead and warns
 * once; gs_writer_path() says which. Any older file there is replaced. On
 * failure returns a negative value and a sentence in err. */
int gs_writer_open(struct gs_writer **out, const char *path, int64_t run_start_ns, char *err,
		   size_t errlen);

/* The database the writer records to (see gs_writer_open). */
const char *gs_writer_path(const struct gs_writer *w);
/* Close without finalizing (the file stays a valid, unfinalized WAL db). */
void gs_writer_close(struct gs_writer *w);
/* Non-zero once a SQLite error stopped the writer (it warned once). */
int gs_writer_failed(const struct gs_writer *w);

int gs_writer_begin(struct gs_writer *w);
int gs_writer_commit(struct gs_writer *w);

/* Intern a string: same text -> same id (>0); NULL -> 0. */
int64_t gs_writer_intern(struct gs_writer *w, const char *s);
/* Number of distinct strings interned so far. */
int64_t gs_writer_string_count(const struct gs_writer *w);

int gs_writer_meta(struct gs_writer *w, const char *key, const char *value);
int gs_writer_meta_int(struct gs_writer *w, const char *key, int64_t value);

int gs_writer_kernel(struct gs_writer *w, const struct gs_kernel *k);
int gs_writer_api_call(struct gs_writer *w, const struct gs_api_call *a);
int gs_writer_memcpy(struct gs_writer *w, const struct gs_memcpy *m);
int gs_writer_memset(struct gs_writer *w, const struct gs_memset *m);
int gs_writer_sync(struct gs_writer *w, const struct gs_sync *s);
int gs_writer_cuda_event(struct gs_writer *w, const struct gs_cuda_event *e);
/* Context and stream facts for the legacy-default-stream derivation
 * (GS_SYNC_IMPLICIT_LEGACY_STREAM): the CUPTI stream id of a context's NULL
 * (legacy default) stream, from CUPTI_ACTIVITY_KIND_CONTEXT (also written to
 * meta as "context.<id>.null_stream"), and streams created with
 * cudaStreamNonBlocking (CUPTI_ACTIVITY_KIND_STREAM), which the legacy
 * stream does not wait for. Kept in memory until finalize. */
int gs_writer_context(struct gs_writer *w, uint32_t context, uint32_t device, uint32_t null_stream);
int gs_writer_stream(struct gs_writer *w, uint32_t context, uint32_t stream, int non_blocking);
int gs_writer_nvtx(struct gs_writer *w, const struct gs_nvtx *n);
int gs_writer_overhead(struct gs_writer *w, const struct gs_overhead *o);
/* A span tracing was on under GAPSCOPE_CAPTURE_RANGE=cudaProfilerApi
 * (capture_windows) */
int gs_writer_capture_window(struct gs_writer *w, uint64_t start, uint64_t end);
int gs_writer_graph_run(struct gs_writer *w, const struct gs_graph_run *g);
int gs_writer_device(struct gs_writer *w, const struct gs_device *d);
int gs_writer_process(struct gs_writer *w, const struct gs_process *p);
/* devices.memory_clock_khz of an existing device row (not in CUPTI's
 * device record; the collector asks the driver). */
int gs_writer_device_memory_clock(struct gs_writer *w, uint32_t device, int64_t khz);
int gs_writer_thread(struct gs_writer *w, int64_t tid, int64_t pid, const char *name);
int gs_writer_graph(struct gs_writer *w, const struct gs_graph *g);
int gs_writer_graph_node(struct gs_writer *w, const struct gs_graph_node *n);
int gs_writer_graph_edge(struct gs_writer *w, uint32_t graph_id, uint64_t from, uint64_t to);
int gs_writer_graph_exec(struct gs_writer *w, uint32_t exec_id, int64_t graph_id, int64_t device,
			 uint64_t created);
int gs_writer_graph_launch(struct gs_writer *w, const struct gs_graph_launch *l);
/* The graph was made by stream capture (cudaStreamEndCapture returned it):
 * graphs.origin = 2. Adds the row (created = `when`) if the graph is not
 * known yet. */
int gs_writer_graph_captured(struct gs_writer *w, uint32_t graph_id, uint64_t when);
/* A node changed after creation: kind GS_NODE_UPDATE_*; graph_id, exec_id
 * -1 when unknown (stored as NULL). */
int gs_writer_graph_node_update(struct gs_writer *w, uint64_t time, int kind, uint64_t node_id,
				int64_t graph_id, int64_t exec_id);

/* Remember that API calls named by `name_id` are implicit synchronizations of
 * `kind` (GS_SYNC_IMPLICIT_ALLOC or _DEVICE_WIDE) for `reason`. The rows are
 * derived at finalize (ALLOC ones only after the first kernel launch). */
int gs_writer_implicit_api(struct gs_writer *w, int64_t name_id, int kind, const char *reason);

/* Finalize: derive implicit syncs, complete explicit sync rows from their API
 * calls, complete graph launches, build indexes, write meta stop_ns and
 * finalized=1, checkpoint and switch the journal back to DELETE so the result
 * is one self-contained file, then close. Returns 0 or negative; the writer
 * is freed either way. */
int gs_writer_finalize(struct gs_writer *w, uint64_t stop_ns);

/* Counters. */
struct gs_writer_stats {
	uint64_t rows;	  /* rows inserted */
	uint64_t batches; /* committed transactions */
};
void gs_writer_get_stats(const struct gs_writer *w, struct gs_writer_stats *s);

/* Pipelined writing (pipeline.c): a chunk holds rows logged by the row
 * functions above, to be executed later on the thread that owns the
 * connection. Between gs_writer_set_chunk(w, c) and gs_writer_set_chunk(w,
 * NULL) the row functions, gs_writer_intern and gs_writer_meta only log
 * into c (they touch no SQLite object); gs_writer_apply(w, c) then
 * executes c's rows in order, inside the caller's transaction. The two
 * may run on two threads at once (one logging into one chunk, the other
 * applying another); nothing else of the writer may be called meanwhile. */
struct gs_chunk;
struct gs_chunk *gs_chunk_new(void);
void gs_chunk_free(struct gs_chunk *c);
/* Empty a chunk for reuse. */
void gs_chunk_reset(struct gs_chunk *c);
/* Non-zero once a chunk holds enough rows to be handed on. */
int gs_chunk_full(const struct gs_chunk *c);
void gs_writer_set_chunk(struct gs_writer *w, struct gs_chunk *c);
int gs_writer_apply(struct gs_writer *w, const struct gs_chunk *c);

/* Implicit synchronisation by API name (version suffixes like "_v3020" or
 * "_v2" ignored). Returns GS_SYNC_IMPLICIT_ALLOC, GS_SYNC_IMPLICIT_DEVICE_WIDE
 * or 0, and the plain-English reason. */
int gs_implicit_api_class(const char *api_name, const char **reason);

/* ---------------------------------------------------------------- decode */

/* Same signature as cuptiActivityGetNextRecord: the collector passes that;
 * tests and the benchmark pass gs_synthetic_next. Returns 0 and sets *rec to
 * the next record (start with *rec = NULL), non-zero at the end. */
typedef int (*gs_next_record_fn)(uint8_t *buf, size_t valid, CUpti_Activity **rec);
/* Name of an API callback id (cuptiGetCallbackName in the collector). */
typedef const char *(*gs_api_name_fn)(int api, uint32_t cbid, void *ctx);

#define GS_MAX_CBID 2048

struct gs_nvtx_pending;

struct gs_decoder {
	struct gs_writer *w;
	int latency; /* latency timestamps were enabled */
	gs_next_record_fn next;
	gs_api_name_fn api_name;
	void *api_name_ctx;
	int64_t api_name_id[2][GS_MAX_CBID]; /* 0 unknown yet */
	struct gs_nvtx_pending *nvtx;	     /* open NVTX ranges by marker id */
	uint64_t records;		     /* records decoded */
	uint64_t skipped;		     /* records of kinds we do not store */
	/* NULL, or: 0 drops the driver API record or graph-level run that
	 * began at start (outside the capture windows) */
	int (*keep_driver_call)(uint64_t start);
	/* NULL, or: the end of the capture window holding t (0: none). An
	 * NVTX range still open when the recording ends (its END came while
	 * tracing was off) ends with the window it started in. */
	uint64_t (*window_end)(uint64_t t);
};

void gs_decoder_init(struct gs_decoder *d, struct gs_writer *w, int latency, gs_next_record_fn next,
		     gs_api_name_fn api_name, void *api_name_ctx);
void gs_decoder_free(struct gs_decoder *d);
/* Decode one record into the writer (inside the caller's transaction). */
int gs_decode_record(struct gs_decoder *d, const CUpti_Activity *rec);
/* Decode every record of a completed buffer; returns the number of records. */
size_t gs_decode_buffer(struct gs_decoder *d, uint8_t *buf, size_t valid);
/* Count the records of a buffer without decoding (for drop accounting). */
size_t gs_count_records(gs_next_record_fn next, uint8_t *buf, size_t valid);
/* Called after each batch and at finalize: write NVTX marks whose data
 * record has been seen or will not come (end of batch); at finalize
 * (`final`), ranges never closed are written with end = stop_ns. */
int gs_decoder_flush_nvtx(struct gs_decoder *d, int final, uint64_t stop_ns);

/* ---------------------------------------------------------------- pipeline */

/* An event made in a CUPTI callback (graph topology, a sync, an event record,
 * a call site), queued to the writer thread in order with the activity
 * buffers. */
enum gs_event_kind {
	GS_EV_GRAPH = 1,
	GS_EV_GRAPH_NODE,
	GS_EV_GRAPH_EDGE,
	GS_EV_GRAPH_EXEC,
	GS_EV_GRAPH_LAUNCH,
	GS_EV_GRAPH_CAPTURED,	 /* a stream capture ended with this graph */
	GS_EV_GRAPH_NODE_UPDATE, /* a node's parameters changed */
	GS_EV_CALLSITE,		 /* a blocking call's stack (callsite.c) */
	GS_EV_SYNC,		 /* an explicit sync, made from callbacks */
	GS_EV_CUDA_EVENT,	 /* an event record, made from callbacks */
	GS_EV_SAMPLE,		 /* a sample of a launching thread (sampler.c) */
};

struct gs_event {
	int kind; /* enum gs_event_kind */
	union {
		struct gs_graph graph;
		struct {
			struct gs_graph_node n; /* name_id unused: name below */
			char name[256];		/* kernel function name or "" */
		} node;
		struct {
			uint32_t graph_id;
			uint64_t from, to;
		} edge;
		struct {
			uint32_t exec_id;
			int64_t graph_id, device;
			uint64_t created;
		} exec;
		struct gs_graph_launch launch;
		struct {
			uint32_t graph_id;
			uint64_t when; /* ns, end of the capture */
		} captured;
		struct {
			uint64_t time;		   /* ns */
			int kind;		   /* GS_NODE_UPDATE_* */
			uint64_t node_id;	   /* CUPTI graph node id */
			int64_t graph_id, exec_id; /* -1: unknown */
		} update;
		struct gs_callsite callsite; /* GS_EV_CALLSITE, GS_EV_SAMPLE */
		struct gs_sync sync;
		struct gs_cuda_event cuda_event;
	} u;
};

/* CPU time (user + system) of the threads of a process, summed over the
 * threads of one name. */
struct gs_thread_cpu {
	char name[32];	/* the thread's comm (at most 15 bytes on Linux) */
	int64_t cpu_ns; /* ns, in clock ticks' steps (10 ms at 100 Hz) */
	int threads;	/* threads of that name alive at the scan */
};

/* The threads under task_dir (/proc/self/task), by name, largest CPU time
 * first: the max largest names (the rest are left out). The number of names, or
 * -1 when task_dir cannot be read. Threads that ended before it are not
 * counted (the process's own total, /proc/self/stat, has them). */
int gs_thread_cpu_scan(const char *task_dir, struct gs_thread_cpu *out, int max);
/* user + system CPU time in the stat file at stat_path (/proc/self/stat: the
 * whole process, ended threads included), ns; -1 when unreadable. */
int64_t gs_stat_cpu_ns(const char *stat_path);
/* One /proc/<pid>/task/<tid>/stat line: its comm (cut to comm_len - 1 bytes)
 * and utime + stime in clock ticks. 0, or -1 when it is not such a line. */
int gs_parse_stat(const char *line, char *comm, size_t comm_len, long long *ticks);

struct gs_pipeline;

/* An activity buffer of `bytes`: a private anonymous mapping of its own,
 * wiped in a child forked from the process (MADV_WIPEONFORK, Linux 4.14;
 * kept as it is where the kernel lacks it). A forked child (a PyTorch
 * DataLoader worker) then shares none of its pages, so CUPTI's clearing
 * of the buffer on the program's thread takes no copy-on-write fault per
 * page after each fork (H100 training loop: buffer requests of 10.7-17.4
 * ms after its workers were forked, 0.7 ms in a program that forks none).
 * Page-aligned; NULL when out of memory. Freed with gs_buffer_free(buf,
 * bytes) only. */
uint8_t *gs_buffer_alloc(size_t bytes);
void gs_buffer_free(uint8_t *buf, size_t bytes);

/* Start the writer's threads (decode and SQLite, see pipeline.c). They own
 * d and d->w from now until gs_pipeline_stop.
 * max_pending: completed buffers waiting to be written before new ones are
 * dropped (never block the application). buffer_bytes: size of the buffers
 * gs_pipeline_get_buffer hands out. */
int gs_pipeline_start(struct gs_pipeline **out, struct gs_decoder *d, size_t max_pending,
		      size_t buffer_bytes);
/* A buffer of buffer_bytes (8-byte aligned) for CUPTI to fill: a recycled
 * one when available, so steady-state recording neither mallocs nor
 * page-faults on the application's threads. NULL when out of memory. */
uint8_t *gs_pipeline_get_buffer(struct gs_pipeline *p);
/* Buffers in the pool now: the decode thread keeps up to 4 (at most 32 MiB)
 * there with their pages touched, so that even CUPTI's first requests
 * neither malloc nor page-fault on the application's threads (tests). */
size_t gs_pipeline_free_buffers(struct gs_pipeline *p);
/* Hand over a completed buffer of `size` bytes holding `valid` bytes of
 * records (from gs_pipeline_get_buffer, or gs_buffer_alloc of the
 * pipeline's buffer_bytes; the pipeline recycles or frees it as one of
 * buffer_bytes). Returns 0, or -1 when the queue is full:
 * the buffer is dropped and its records counted. Never blocks on the
 * writer. */
int gs_pipeline_submit(struct gs_pipeline *p, uint8_t *buf, size_t size, size_t valid);
/* Queue an event (copied into a batch; -1 when out of memory). It does not
 * wake the writer: the batch waits until it is full (64 KiB), a buffer
 * follows, gs_pipeline_kick, sync or stop. */
int gs_pipeline_event(struct gs_pipeline *p, const struct gs_event *ev);
/* Queue the events that wait, and wake the writer (the flush thread's tick). */
void gs_pipeline_kick(struct gs_pipeline *p);
/* Wait until everything handed over so far is committed, at most
 * timeout_ms (0: no limit). Returns 0, or -1 on timeout. */
int gs_pipeline_sync(struct gs_pipeline *p, unsigned timeout_ms);
/* Records dropped because the queue was full. */
uint64_t gs_pipeline_dropped(struct gs_pipeline *p);
/* Drain the queue, stop and join the writer's threads, free the pipeline (the
 * writer is the caller's again). */
void gs_pipeline_stop(struct gs_pipeline *p);

/* Apply one event to the writer (used by the decode thread; tests). */
int gs_apply_event(struct gs_writer *w, const struct gs_event *ev);

/* ---------------------------------------------------------------- synthetic */

/* A synthetic activity buffer: each record is stored as an 8-byte header
 * (its size) followed by the record, 8-byte aligned. Only tests and the
 * benchmark build these; CUPTI's own buffers are walked by
 * cuptiActivityGetNextRecord. */
size_t gs_synthetic_append(uint8_t *buf, size_t cap, size_t used, const void *rec, size_t size);
int gs_synthetic_next(uint8_t *buf, size_t valid, CUpti_Activity **rec);

/* ---------------------------------------------------------------- sampler */

/* Sampling of the threads that make CUDA calls (sampler.c). Start: install
 * the signal handler and the drain thread; hz samples a second of each
 * thread's CPU time; now: the collector's clock (samples are timed on it);
 * push: hands a GS_EV_SAMPLE event to the writer (from the drain thread).
 * 0, or -1 (warned once; the recording goes on unsampled). */
int gs_sampler_start(unsigned hz, uint64_t (*now)(void), void (*push)(const struct gs_event *ev));
/* Which source to use (enum gs_sample_clock) for the threads watched from
 * now on; call before gs_sampler_start. Default: auto. */
void gs_sampler_set_clock(int mode);
/* Off-CPU samples of the sampled Python threads (1, GAPSCOPE_SAMPLE_WAITS)
 * or none (0); call before gs_sampler_start. Default: none. */
void gs_sampler_set_waits(int on);
/* 1 while sampling. */
int gs_sampler_active(void);
/* What samples thread tid: GS_SAMPLE_CLOCK_PERF, GS_SAMPLE_CLOCK_TIMER, or 0
 * (not watched, or neither source could be made). */
int gs_sampler_thread_source(int64_t tid);
/* meta samples.clock for n_perf threads sampled by perf_event and n_timer by
 * the POSIX timer (mixed: both, with the counts). */
void gs_sampler_clock_text(unsigned n_perf, unsigned n_timer, char *buf, size_t len);
/* The decode thread saw a CUDA call of thread tid: sample it from now on
 * (once per thread; cheap when tid is the last one seen). */
void gs_sampler_watch(int64_t tid);
/* The calling thread makes a CUDA call (from a CUPTI callback): sample it
 * from now on (a thread-local flag after the first call). */
void gs_sampler_watch_self(void);
/* Stop every timer and hand over what the rings hold (before the writer
 * stops accepting events). */
void gs_sampler_stop(void);
/* Pause (1) or resume (0) sampling: the threads' perf events disabled or
 * their timers stopped, and re-armed at the resume; samples.cpu_ns leaves
 * the paused CPU time out. Under --capture-range, paused outside its
 * windows. */
void gs_sampler_pause(int pause);
/* Samples taken (handed to the writer), dropped (a ring full), threads sampled. */
void gs_sampler_counts(uint64_t *taken, uint64_t *dropped, uint64_t *threads);
/* Python walks of samples that faulted (a frame chain caught half made), dropped. */
uint64_t gs_sampler_faults(void);
/* meta config.sampling, config.sample_hz, config.sample_clock, samples.*
 * (samples.clock, samples.cpu_ns and samples.rate_hz: samples taken per
 * second of the sampled threads' CPU time while watched) */
void gs_sampler_finish(struct gs_writer *w, int configured, unsigned hz);

#endif
