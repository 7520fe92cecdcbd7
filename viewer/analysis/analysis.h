/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis.h - the gapscope analysis library: idle gaps, their causes,
 * launch overhead, synchronisations, top kernels, NVTX breakdown and CUDA
 * Graph advice, exactly as defined in docs/metrics.md (from DESIGN.md).
 *
 * It does no I/O: arrays of intervals come in (struct gs_input, filled by
 * trace_load() from a database, or by a test by hand), one struct gs_result
 * comes out; renderers (text, JSON, HTML, Chrome, diff) only read that
 * result. Nothing here opens files, prints, or knows SQLite. All times are
 * int64_t nanoseconds on the trace's one clock (CUPTI's timestamps).
 *
 * Index conventions: every "*_idx" field is an index into the matching input
 * array (in->ops, in->apis, in->syncs, in->nvtx); GS_NONE means "none".
 * Every "*_id" naming a string is an id into in->strings (0 = none).
 */
#ifndef GAPSCOPE_ANALYSIS_H
#define GAPSCOPE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#define GS_NONE UINT32_MAX

struct gs_result;

/* ------------------------------------------------------------------ */
/* Input model                                                         */
/* ------------------------------------------------------------------ */

/* Interned strings: v[id] is the text of strings.id = id, NULL where the id
 * is unused. Ids are small and dense in practice (the collector interns). */
struct gs_strings {
	const char **v; /* indexed by id, n entries */
	uint32_t n;	/* count (max id + 1) */
};

/* Text of string `id`, or `dflt` if the id is unknown/0. Never NULL if dflt
 * is not NULL. */
const char *gs_str(const struct gs_strings *s, uint32_t id, const char *dflt);

enum gs_op_kind {
	GS_OP_KERNEL = 0,
	GS_OP_MEMCPY = 1,
	GS_OP_MEMSET = 2,
	GS_OP_GRAPH_RUN = 3, /* a whole graph launch recorded in graph-level mode
				(graph_runs): busy from its first node's start to
				its last node's end; its nodes are not known */
};

/* gs_op.flags */
#define GS_OPF_HOST_NODE_DEP 0x01 /* graph op whose node has a host-node predecessor */
#define GS_OPF_PAGEABLE 0x02	  /* memcpy/memset touching pageable host memory */
#define GS_OPF_ASYNC 0x04	  /* memcpy/memset issued by an *Async API */
#define GS_OPF_PAGEABLE_SRC                                                                        \
	0x08		     /* memcpy reading pageable host memory: staged                        \
				by the host before the copy can start */
#define GS_OPF_HOST_SRC 0x10 /* memcpy from host memory: an upload */

/* One GPU operation (kernel, memcpy, memset). 36 bytes, packed with
 * 4-byte alignment (naturally aligned it would be 40, 4 of them padding):
 * the 10M-kernel benchmark keeps all of them in memory at once, and on
 * virtual machines fresh memory costs ~1.6 s per GB to fault in. x86-64
 * loads the then only 4-aligned 64-bit fields without a fault (one that
 * straddles a cache line costs a little, far less than the memory). Do
 * not take the address of a field (it may be misaligned for its type). */
struct __attribute__((packed, aligned(4))) gs_op {
	int64_t start;	   /* ns */
	int64_t end;	   /* ns, >= start */
	uint32_t corr;	   /* correlation id of the launching API call (0: unknown) */
	uint32_t name_id;  /* strings id: kernel (mangled) name; 0 for copies/sets */
	uint32_t stream;   /* CUPTI stream id */
	uint32_t graph_id; /* CUPTI graph id, 0 unless launched from a graph */
	int16_t device;	   /* CUDA device ordinal */
	uint8_t kind;	   /* enum gs_op_kind */
	uint8_t flags;	   /* GS_OPF_* */
};

/* API classes: gs_api_classify() of the call's name (the analysis keeps
 * them in an array of its own, one byte per call). */
#define GS_APIF_CLASSIFIED 0x01
#define GS_APIF_LAUNCH 0x02	   /* puts work on a stream: kernel/graph launch, copy, set */
#define GS_APIF_HOST_FUNC 0x04	   /* cudaLaunchHostFunc, cudaStreamAddCallback, twins */
#define GS_APIF_KERNEL_LAUNCH 0x08 /* a single-kernel launch (cost of one launch) */
#define GS_APIF_POLL 0x10	   /* cudaEventQuery, cudaStreamQuery, twins: a poll, not a sync */
#define GS_APIF_SYNC_COPY 0x20	   /* a copy or set without "Async": the host waits in it */

/* One CUDA runtime or driver API call. 28 bytes, packed with 4-byte
 * alignment like gs_op (naturally aligned it would be 32, 4 of them
 * padding): the 10M-kernel benchmark holds 10M of them, and fresh memory
 * costs seconds per GB on virtual machines (docs/report.md, "Speed").
 * The analysis goes by name, never by CUPTI callback id or API kind, so
 * those columns are not carried: every column read costs the loader a
 * tenth of a second per 10M calls (bench/speed/run_report_bench.sh). Do not
 * take the address of a field (it may be misaligned for its type). */
struct __attribute__((packed, aligned(4))) gs_api {
	int64_t start;	  /* ns, host entry */
	int64_t end;	  /* ns, host return */
	uint32_t corr;	  /* correlation id (shared with the ops it launched) */
	uint32_t name_id; /* strings id, e.g. "cudaLaunchKernel" */
	uint32_t tid;	  /* host thread id */
};

/* One synchronisation (syncs table): explicit (CUPTI) or implicit
 * (recognised by the collector). kind is enum gs_sync_kind. */
struct gs_sync {
	int64_t start;	      /* ns: host blocked from (explicit) / call entry (implicit) */
	int64_t end;	      /* ns */
	uint64_t event;	      /* CUPTI event id (event syncs and stream waits), else 0 */
	uint32_t tid;	      /* host thread that made the call */
	uint32_t stream;      /* stream synchronised/waiting, 0 if none */
	uint32_t corr;	      /* correlation id of the API call */
	uint32_t api_name_id; /* strings id of the API call */
	uint32_t reason_id;   /* strings id: why it is implicit, 0 if explicit */
	int16_t device;	      /* device ordinal, -1 unknown */
	uint8_t kind;	      /* enum gs_sync_kind */
	uint8_t implicit;     /* 0 explicit, 1 implicit */
};

/* One CUDA event record (events table): where an event was recorded, so a
 * stream-wait-event can be tied to the stream whose work it waited for. */
struct gs_event {
	int64_t start;	 /* ns, start of the record call */
	uint64_t event;	 /* CUPTI event id (= gs_sync.event) */
	uint32_t stream; /* stream it was recorded on */
	int16_t device;	 /* device ordinal */
};

/* One span a host thread ran (host_ranges: imported torch.profiler
 * operators, Python functions, record_function ranges), sorted by (tid,
 * start, longer first). */
struct gs_hrange {
	int64_t start;	  /* ns */
	int64_t end;	  /* ns */
	uint32_t parent;  /* index of the span it runs inside (the latest-starting
			     earlier span of the thread still running at its
			     start), GS_NONE for none */
	uint32_t tid;	  /* host thread */
	uint32_t name_id; /* strings id */
};

/* One NVTX range or mark. */
struct gs_nvtx {
	int64_t start;	    /* ns */
	int64_t end;	    /* ns, = start for marks */
	uint32_t text_id;   /* strings id of the message */
	uint32_t domain_id; /* strings id of the domain, 0 = default */
	uint32_t tid;	    /* host thread */
	uint8_t kind;	    /* enum gs_nvtx_kind: 0 range, 1 mark */
};

/* A call site: the one frame of a recorded stack that the report names
 * (chosen by the trace reader, docs/report.md "Call sites"). */
struct gs_site {
	uint32_t file_id; /* strings id: Python file, or native module path; 0 unknown */
	uint32_t func_id; /* strings id: Python function or native symbol; 0 unknown */
	int32_t line;	  /* Python line; -1 for a native frame */
	uint64_t offset;  /* native: offset in the module */
};
/* The call site of one API call (api_stacks), sorted by corr. */
struct gs_site_ref {
	uint32_t corr;	/* correlation id of the call */
	uint32_t site;	/* index in gs_input.sites */
	uint8_t reason; /* api_stacks.reason: enum gs_callsite_reason (trace_format.h) */
};

/* The collector's own work inside one API call (api_stacks capture_start /
 * capture_end): CUPTI times the call inside its callbacks, so this time lies
 * just outside the call's recorded [start, end] although the program was in
 * the call. The loader widens the call (and its implicit sync) to cover it;
 * the overhead correction takes it off again. */
struct gs_capture {
	int64_t start, end; /* ns */
	uint32_t corr;	    /* correlation id of the call */
	uint32_t tid;	    /* calling thread, 0 unknown */
};

/* what tracing cost per event, measured before the program (ns), from meta
 * calibration.* (gapscope-calibrate, run by `gapscope record`) */
struct gs_calibration {
	int have;		  /* 1 when the trace carries a calibration */
	int64_t launch_ns;	  /* per cudaLaunchKernel, non-blocking stream */
	int64_t legacy_launch_ns; /* per cudaLaunchKernel, legacy default stream */
	int64_t driver_launch_ns; /* per cuLaunchKernel */
	int64_t kernel_ns;	  /* added to each kernel's recorded duration */
	int64_t gpu_gap_ns;	  /* added idle between back-to-back kernels */
	int64_t graph_node_ns;	  /* added GPU time per graph node */
	/* untraced time of one launch call (another process, never traced):
	 * cudaLaunchKernel (mean of the two stream kinds) and cuLaunchKernel;
	 * -1 in traces calibrated before 2026-12-04 */
	int64_t plain_launch_ns, plain_driver_ns;
	/* untraced time of one cudaGraphLaunch call of n kernels:
	 * plain_graph_ns + n x plain_graph_node_ns; -1 in traces calibrated
	 * before 2026-12-05 */
	int64_t plain_graph_ns, plain_graph_node_ns;
	/* what tracing adds to a cudaMalloc + cudaFree pair of 1 MiB (the
	 * device idle); -1 in traces calibrated before 2026-12-07 */
	int64_t alloc_pair_ns;
	/* what a tiny kernel occupies the GPU from a full queue, its switch
	 * to the next included: launched one by one traced (kernel_pitch_ns)
	 * and untraced (plain_kernel_pitch_ns), and the duration CUPTI
	 * records for it (tiny_kernel_ns); -1 in traces calibrated before
	 * 2026-12-05 (the correction then takes kernel_ns off each kernel).
	 * plain_graph_pitch_ns: the same untraced for a node of a graph of
	 * empty kernels, the most a node's switch to the next is taken to be
	 * (-1 likewise). */
	int64_t kernel_pitch_ns, plain_kernel_pitch_ns, tiny_kernel_ns;
	int64_t plain_graph_pitch_ns;
	/* what tracing adds to a graph node that stores to memory, as a
	 * program's kernels do: the pitch of a graph of such tiny kernels
	 * traced less untraced in a process that never loaded CUPTI
	 * (calibration.store_graph_pitch_ns - plain_store_graph_pitch_ns); -1
	 * in traces calibrated before 2026-12-05 05:00 UTC (the correction
	 * then takes graph_node_ns, an empty kernel's) */
	int64_t store_graph_node_ns;
	/* the time between two back-to-back cudaLaunchKernel records of the
	 * calibration's traced loops (median): CUPTI's work after a call's
	 * record ends and before the next one's starts, which the untraced
	 * launch (plain_launch_ns, a loop's pitch) does not spend between
	 * calls; -1 in traces calibrated before 2026-12-05 07:00 UTC */
	int64_t launch_gap_ns;
	/* a cudaLaunchKernel timed alone after the program's own work (the
	 * calibration passes over 1 MiB of host memory before each: a Python
	 * loop's launch, not a loop of launches): what tracing added to it,
	 * timed from outside the call (spaced_launch_ns), and the traced
	 * record's own duration (spaced_record_ns). A launch call that began
	 * GS_SPACED_LAUNCH_NS or more after its thread's previous call ended
	 * is taken against these. 0 or -1 (none) in traces calibrated before
	 * 2026-12-05 12:00 UTC, or without runtime records. */
	int64_t spaced_launch_ns, spaced_record_ns;
	/* the calibration's untraced such launch (plain_spaced_launch_ns,
	 * the children's median), and the program's own, timed from outside
	 * in its untraced reference runs (gs_input.ref_launch_spaced_ns of the
	 * reference traces; set by the command, -1 none): where both are
	 * known, a launch call after host work loses their difference less
	 * (the program's launches cost that much more untraced, which is not
	 * tracing's). -1 none. */
	int64_t plain_spaced_ns, program_spaced_ns;
	int64_t callback_ns; /* the collector's callbacks, total (meta) */
};

/* Everything the analysis reads. Order requirements:
 *   ops   sorted by (device, start, end) - the loader reads them that way;
 *   apis, syncs, nvtx: any order (the analysis builds its own indexes).
 * The analysis never modifies the input; it must outlive the result (the
 * result points into it by index only, but renderers need both). */
struct gs_input {
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_api *apis;
	size_t n_apis;
	const struct gs_sync *syncs;
	size_t n_syncs;
	const struct gs_nvtx *nvtx;
	size_t n_nvtx;
	const struct gs_event *events; /* any order; may be empty (older traces) */
	size_t n_events;
	const struct gs_hrange *hranges; /* sorted by (tid, start); empty unless imported */
	size_t n_hranges;
	const uint64_t *op_bytes; /* per op: bytes of a copy with a host side, 0 for
				     the others; NULL: unknown or no such copy
				     (the what-if's pinned copies need them) */
	/* samples of the launching threads (table samples; empty for older
	 * traces and --no-sampling) */
	const struct gs_hstack *hstacks; /* indexed by stack id; [0] unused */
	size_t n_hstacks;
	const struct gs_hsample *samples; /* sorted by (tid, t) */
	size_t n_samples;
	const struct gs_hwait *waits; /* off-CPU samples, sorted by (tid, t); none in
					 traces before 2026-12-07 */
	size_t n_waits;
	int64_t sample_cpu_ns; /* the CPU time a sample stands for (meta samples.cpu_ns /
				  samples.taken), 0 unknown (traces before 2026-12-07) */
	struct gs_strings strings;
	/* meta facts the report repeats */
	int64_t kernel_overhead_ns;    /* ns measured CUPTI instrumentation per kernel
					  (meta cupti_kernel_overhead_ns); -1 unknown */
	const char *unwinder;	       /* the collector's unwinder for call sites (meta
					  collector.unwinder: "libgcc", "libunwind"), NULL
					  unknown */
	const char *torch_options;     /* an imported torch.profiler trace: the options that
					  add host time to every operator, comma-separated
					  (meta import.torch_profiler_options), else NULL */
	int64_t graph_launches_unseen; /* an imported trace: graph launch calls none of
					  whose GPU work it holds (meta
					  import.graph_launches_unseen), else 0 */
	int64_t ref_launch_spaced_ns;  /* an untraced reference run (record --reference):
					  the mean launch call after host work of its
					  process, timed from outside (meta
					  reference.launch_spaced_mean_ns, over
					  GS_REF_LAUNCH_MIN_CALLS or more such calls),
					  else -1 */
	int gpu_arch_major;	       /* compute capability major of device 0, 0 unknown
					  (9 = Hopper: kernels software-instrumented) */
	/* call sites (schema v2 api_stacks; empty for older traces) */
	const struct gs_site *sites;
	size_t n_sites;
	const struct gs_site_ref *site_refs; /* sorted by corr */
	size_t n_site_refs;
	const struct gs_capture *captures; /* sorted by corr; empty for older traces */
	size_t n_captures;
	size_t n_native_captures; /* of those, the ones whose stack holds native
				     frames: the unwinder walked (none where
				     every capture found Python frames,
				     GAPSCOPE_NATIVE_FRAMES=auto) */
	/* CUPTI's own work on the program's threads (table overhead, kinds
	 * that only tracing causes: buffer requests and flushes,
	 * instrumentation, resources), as spans with corr 0; any order */
	const struct gs_capture *stalls;
	size_t n_stalls;
	struct gs_calibration cal; /* the collector's measured cost, have = 0 if none */
	/* record --capture-range (schema v3): the program was traced only
	 * inside these windows; outside them nothing was recorded, which is
	 * not idle GPU. The analysis reads only the time inside them. */
	const char *capture_range;	/* meta capture_range (the mode: "cudaProfilerApi"),
					   NULL: the whole run was recorded */
	const int64_t *capture_windows; /* n_capture_windows disjoint [start, end]
					   pairs, ns, sorted (rows merged where they
					   overlapped); none with capture_range set:
					   nothing was recorded */
	size_t n_capture_windows;
	uint64_t capture_damaged; /* capture_windows rows skipped: a NULL or
				     non-integer time, or end < start */
	uint64_t capture_dropped; /* meta capture.starts_skipped: the program's
				     cudaProfilerStart calls past the collector's
				     cap on windows, whose spans are not recorded */
};

/* A sampled stack (schema table samples, record's sampler), as the report
 * names it: the frame the loader picked (trace_samples.c) and whether the
 * stack is the framework's dispatch. */
struct gs_hstack {
	uint32_t file_id;  /* strings id: Python file, or native module path; 0 none */
	uint32_t func_id;  /* strings id: Python function or native symbol; 0 none */
	int32_t line;	   /* Python line; -1 native */
	uint8_t framework; /* 1: the framework's dispatch (PyTorch's code but its data
			      loading, libtorch/libc10, the CUDA libraries) */
	uint8_t via;	   /* GS_HOST_VIA_*: how the named frame holds the sample */
	uint8_t loader;	   /* enum gs_loader: the DataLoader iterator its frames show */
	uint8_t receive;   /* 1: taking in a tensor a DataLoader worker shared
			      (torch/multiprocessing/reductions.py: with the
			      file_descriptor strategy, a connection to the
			      worker's resource sharer per tensor) */
};
/* How a sample's named frame holds it: its own code, the framework's native code called
 * from that line, importing for that line (gs_hstack.via, gs_host_item.via). */
enum gs_host_via { GS_HOST_VIA_FRAME = 0, GS_HOST_VIA_FRAMEWORK = 1, GS_HOST_VIA_IMPORT = 2 };
/* One sample of a thread. */
struct gs_hsample {
	int64_t t;	/* ns */
	uint32_t tid;	/* sampled thread */
	uint32_t stack; /* index in gs_input.hstacks; 0: no frame was read */
};
/* An off-CPU sample (record's sampler, table wait_samples): thread tid was
 * off CPU (asleep, waiting) for ns of the time up to t, at the frames of
 * stack; the sample stands for [t - ns, t]. */
struct gs_hwait {
	int64_t t;	/* ns */
	int64_t ns;	/* > 0 */
	uint32_t tid;
	uint32_t stack; /* index in gs_input.hstacks; 0: no frame was read */
};

/* Name-based classification of an API call (GS_APIF_* bits incl.
 * GS_APIF_CLASSIFIED). Pure function, exported for loaders and tests. */
uint8_t gs_api_classify(const char *name);
/* 1 when name is a graph launch call (cudaGraphLaunch, cuGraphLaunch and
 * their _ptsz entry points) */
int gs_api_is_graph_launch(const char *name);

/* What thread tid was running over most of [s, e): the innermost (shortest)
 * of its host spans that covers at least half of it. Index into
 * in->hranges, or GS_NONE. */
uint32_t gs_host_range_at(const struct gs_input *in, uint32_t tid, int64_t s, int64_t e);

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

struct gs_options {
	const char *range_name;		/* NULL: whole trace; else restrict to the
					   [start,end] windows of NVTX ranges with
					   exactly this text */
	uint64_t range_skip;		/* with range_name: leave out the first N
					   of those ranges (by start): a warm-up */
	size_t top_n;			/* gaps kept per device in top_gaps (default 10) */
	int64_t graph_node_overhead_ns; /* ns per graph node in replay estimates;
					   < 0: measure from the trace's graph launches,
					   else GS_DEFAULT_GRAPH_NODE_OVERHEAD_NS */
	int64_t launch_cost_ns;		/* ns; < 0: p50 of single-kernel launch API
					   duration, else GS_DEFAULT_LAUNCH_COST_NS */
	int correct_instrumentation;	/* 1: shorten each kernel by
					   in->kernel_overhead_ns when known */
	int64_t span_start, span_end;	/* ns; span_end > span_start: analyse only
					   [span_start, span_end] (within the other
					   selections): the steady state the verdict's
					   findings read (gs_phases) */
	int all_gaps;			/* 1 (default): gs_device_result.gaps holds
					   every device gap; 0: only the gaps that
					   top_gaps and the synchronisation figures
					   need (the largest candidates and the gaps
					   a stream wait explains), for
					   callers that read nothing else (report) */
};

#define GS_DEFAULT_TOP_N 10
#define GS_DEFAULT_GRAPH_NODE_OVERHEAD_NS 1000 /* see docs/metrics.md */
/* A median hole between a graph's ops above this is waits inside the
 * graphs (event waits, host nodes), not node dispatch: not used */
#define GS_MAX_GRAPH_NODE_OVERHEAD_NS 20000
#define GS_DEFAULT_LAUNCH_COST_NS 4500	/* see docs/metrics.md */
#define GS_ADVICE_MIN_SAVING 0.05	/* advise when saving > 5% */
#define GS_ADVICE_MIN_WINDOW_SHARE 0.01 /* ... and >= 1% of the device window */
/* A launch call this long while the GPU idled was doing something besides
 * submitting work: the first launch of a kernel loads its module (CUDA's
 * lazy loading), a PTX kernel is JIT-compiled, a graph's first launch
 * uploads it. Its launch latency is counted apart (slow_launch_latency):
 * fusion or CUDA Graphs do not remove it (docs/metrics.md). */
#define GS_SLOW_LAUNCH_NS 1000000
/* A gap with this much host code or more: the launching thread was doing
 * work of its own (loading and preparing data, logging, Python between
 * steps), not the per-launch work between back-to-back launches that a
 * CUDA Graph removes. Counted apart (host_stall) and named by their own
 * rules: input_wait before uploads, host_stalls elsewhere (docs/metrics.md). */
#define GS_HOST_STALL_NS 1000000
/* Host code in a gap that is the launching itself, which a CUDA Graph
 * removes, or the program's own work, which it does not (docs/metrics.md,
 * "Host code: dispatch or the program's own work"): a C launch loop's code
 * between two launches takes under a microsecond, so a gap with
 * GS_HOST_LOOP_NS of host code or more is the program's own work in a
 * program without a framework; PyTorch's dispatch of one operator takes
 * 5-30 us untraced, and with the collector's cost per launch and a
 * model's Python between operators more (GPT-2 generate recorded on an
 * H100: 89% of its host code in gaps of 5-150 us; bench/real/
 * py_work_loop.py's numpy work: 0.7 ms a gap), so in a framework program
 * a gap holds the program's own work from GS_HOST_DISPATCH_NS on. */
#define GS_HOST_LOOP_NS 5000
#define GS_HOST_DISPATCH_NS 150000
/* A reference run's launch figure stands for the program's with this many
 * timed launch calls after host work or more (as GS_SLOW_PROCESS_MIN_CALLS) */
#define GS_REF_LAUNCH_MIN_CALLS 100
#define GS_ADVICE_HOST_HOLE_NS 50000 /* host time between steps a replay removes, at most */

void gs_options_init(struct gs_options *o);

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

/* Causes of idle time, gap model v2 (docs/metrics.md): a gap is cut into
 * consecutive segments, each with one cause, adding up to the gap. The
 * first three are the host-late cuts of [g0, C.start) by what the launching
 * thread was doing; the next three are the causes of a gap whose op was
 * already enqueued (and launch latency is also [C.start, g1) of a
 * host-late gap). */
enum gs_cause {
	GS_CAUSE_SYNC_WAIT = 0,	     /* host blocked in an explicit or implicit sync */
	GS_CAUSE_CUDA_API = 1,	     /* host inside other CUDA calls */
	GS_CAUSE_HOST_CODE = 2,	     /* host outside any CUDA call: the program's own work */
	GS_CAUSE_LAUNCH_LATENCY = 3, /* launch call start (or g0) -> op start */
	GS_CAUSE_GRAPH_INTERNAL = 4, /* X and the op before it: one graph launch */
	GS_CAUSE_DEPENDENCY = 5,     /* X waited for an event or a host function */
	GS_CAUSE_OTHER = 6,	     /* no launch call known for X */
	GS_CAUSE_COUNT = 7,
};
const char *gs_cause_name(int cause); /* "sync wait", "CUDA API", "host code", ... */
/* machine-readable name of the same ("sync_wait", "cuda_api", ...) for JSON/CSV */
const char *gs_cause_key(int cause);

/* What explains a gap (gs_gap.explain_kind; explain_idx indexes the array). */
/* X was queued (its launch call had returned when the GPU went idle) and
 * started more than GS_QUEUED_HELD_NS after: dispatch takes microseconds, so
 * all but the last GS_QUEUED_DISPATCH_NS of such a gap is "other" (something
 * the trace does not hold held X: a cross-stream wait it did not record,
 * another process on the GPU), the rest launch latency or, inside a graph
 * launch, graph-internal (gs_gap.held; docs/metrics.md). */
#define GS_QUEUED_DISPATCH_NS 50000
#define GS_QUEUED_HELD_NS 100000
enum gs_explain {
	GS_EXPLAIN_NONE = 0,	     /* cause other: no launch call found */
	GS_EXPLAIN_LAUNCH = 1,	     /* apis[idx]: the launch call C of X */
	GS_EXPLAIN_SYNC = 2,	     /* syncs[idx]: a blocking call (segments only: a
					gap is explained by its launch call) */
	GS_EXPLAIN_WAIT = 3,	     /* syncs[idx]: stream-wait-event pending for X */
	GS_EXPLAIN_HOST_FUNC = 4,    /* apis[idx]: host function/callback pending for X */
	GS_EXPLAIN_HOST_NODE = 5,    /* ops[X]: X's graph node follows a host node */
	GS_EXPLAIN_BEFORE_TRACE = 6, /* X has no launch call: it was launched before
					the trace began (no idx) */
};

/* One idle gap [start, end) on a device (or a stream), ending at op X. 32 B.
 * The gap's segments (gs_gap_segments) come from its cut; cause is the
 * cause holding the most of it (ties: the lower enum value). */
struct gs_gap {
	int64_t start;	      /* ns, g0 (clipped to the --range selection) */
	int64_t end;	      /* ns, g1 = X.start (clipped likewise) */
	uint32_t op_idx;      /* X, the op whose start ends the gap */
	uint32_t explain_idx; /* see explain_kind, GS_NONE if none */
	uint32_t nvtx_idx;    /* innermost NVTX range on X's launching thread
				 containing g0 (else any thread), GS_NONE */
	uint8_t cause;	      /* enum gs_cause: the largest segment's */
	uint8_t explain_kind; /* enum gs_explain */
	uint8_t host_late;    /* 1: X's launch call began at or after the gap's
				 start (g0 of the whole gap): the host was late */
	uint8_t held;	      /* 0, or X was queued and held (GS_QUEUED_HELD_NS):
				 the cause of the gap's last GS_QUEUED_DISPATCH_NS
				 (launch latency or graph-internal), the rest other */
};

/* One segment of a gap: [start, end) with one cause. */
struct gs_segment {
	int64_t start;	  /* ns */
	int64_t end;	  /* ns */
	uint8_t cause;	  /* enum gs_cause */
	uint8_t ref_kind; /* enum gs_explain: GS_EXPLAIN_SYNC (ref = syncs index,
			     the first blocking call of the segment), GS_EXPLAIN_LAUNCH
			     (ref = apis index: X's launch call for launch latency
			     and graph-internal, the first call of a CUDA API
			     segment), GS_EXPLAIN_WAIT/HOST_FUNC/HOST_NODE as for
			     gaps; GS_EXPLAIN_NONE for host code and other */
	uint32_t ref_idx; /* see ref_kind, GS_NONE if none */
	uint32_t tid;	  /* host thread of a host-late segment, else 0 */
	uint32_t n_calls; /* sync wait / CUDA API: blocking calls or stretches of
			     CUDA calls merged into this segment */
};

/* The segments of gap g of a device of res, in time order, consecutive
 * pieces of one cause merged; at most max written to out. Returns how many
 * there are (may exceed max: the rest are not written). The segments'
 * lengths add up to g->end - g->start. */
size_t gs_gap_segments(const struct gs_result *res, const struct gs_gap *g, struct gs_segment *out,
		       size_t max);

/* All the segments of gap g: in buf (cap of them) when they fit, else in
 * an array it allocates; *segs points at them (free it when != buf).
 * Returns how many, or (size_t)-1 when out of memory (buf then holds the
 * first cap). */
size_t gs_gap_segments_all(const struct gs_result *res, const struct gs_gap *g,
			   struct gs_segment *buf, size_t cap, struct gs_segment **segs);

/* Figures of one timeline (a device, or one stream of it). The
 * idle_by_cause values sum exactly to idle, and busy + idle = window. */
struct gs_timeline {
	int64_t first;				/* ns, window start (first op start) */
	int64_t last;				/* ns, window end (last op end) */
	int64_t window;				/* ns, selected time in [first,last] */
	int64_t busy;				/* ns, union of op intervals in window */
	int64_t idle;				/* ns, window - busy */
	uint64_t n_ops;				/* ops overlapping the window */
	uint64_t n_gaps;			/* gaps (or gap pieces) in window */
	int64_t idle_by_cause[GS_CAUSE_COUNT];	/* ns, segments by cause */
	uint64_t gaps_by_cause[GS_CAUSE_COUNT]; /* gaps (pieces) by their largest segment */
	int64_t launch_calls;			/* ns, of the CUDA API segments: time in
						   launch calls (kernel, copy, graph) */
	int64_t graph_launch_latency;		/* ns, of idle_by_cause[launch latency]: in gaps
						   that end at an op of a graph launch */
	int64_t slow_launch_latency;		/* ns, of idle_by_cause[launch latency]: in gaps
						   whose launch call ran >= GS_SLOW_LAUNCH_NS */
	int64_t slow_launch_in_calls;		/* ns, of launch_calls: in launch calls that ran
						   >= GS_SLOW_LAUNCH_NS before a gap's own call */
	uint64_t slow_launches;			/* gaps (pieces) with either */
	int64_t slow_launch_max_ns;		/* ns, the longest of their slow launch calls */
	uint32_t slow_launch_name_id;		/* strings id of its API name */
	uint32_t slow_launch_nvtx_id;		/* strings id of the NVTX range its gap
						   began in, 0 none */
	int64_t host_by_size[3];		/* ns, of idle_by_cause[host code]: in gaps
						   holding < GS_HOST_LOOP_NS of it, < GS_HOST_
						   DISPATCH_NS, < GS_HOST_STALL_NS (the rest:
						   host_stall) */
	int64_t host_framework;			/* ns, of host_by_size: in gaps whose host span
						   (imported traces' host_ranges) is the
						   framework's or the model's (aten::, forward) */
	int64_t host_stall;			/* ns, of idle_by_cause[host code]: in gaps with
						   GS_HOST_STALL_NS of host code or more */
	uint64_t host_stalls;			/* those gaps (pieces) */
	int64_t input_stall;			/* ns, of host_stall: in gaps before an upload
						   (GS_OPF_HOST_SRC) */
	uint64_t input_stalls;			/* those gaps (pieces) */
	int64_t startup_stall;			/* ns, of host_stall: in stall gaps that lie
						   half or more before the trace's first NVTX
						   range (gs_startup_gap) */
	uint64_t startup_stalls;		/* those gaps (pieces) */
	int64_t startup_input_stall;		/* ns, of startup_stall and input_stall */
	uint64_t startup_input_stalls;		/* those gaps (pieces) */
	struct gs_stall_where {			/* the largest stall (host code of its piece): */
		int64_t host_ns;		/* ns */
		uint32_t nvtx_id;		/* strings id of the innermost NVTX range at its
						   middle, 0 */
		uint32_t op_id;			/* strings id of the host operator over most of
						   it (gs_host_range_at), 0 */
		uint32_t tid;			/* the launching thread of its op, 0 unknown */
	} input_where, stall_where,		/* before uploads; elsewhere (after the */
	    startup_where;			/* first NVTX range); before it */
	int64_t other_no_call;			/* ns, of idle_by_cause[other]: in gaps whose
						   op has no launch call in the trace */
	double utilisation;			/* busy / window, 0..1 (0 if window is 0) */
	double launch_overhead_share;		/* (launch latency + graph-internal +
						   launch_calls) / window */
	double host_code_share;			/* host code / window */
};

struct gs_stream_result {
	uint32_t stream; /* CUPTI stream id */
	struct gs_timeline tl;
};

/* A device's idle in one NVTX range, by cause: the gaps whose
 * gs_gap.nvtx_idx has this text (0: gaps in no range), each gap's segments
 * added by cause. Where the verdict says a cause happened. */
struct gs_nvtx_idle {
	uint32_t text_id; /* strings id, 0: no range */
	int64_t idle_by_cause[GS_CAUSE_COUNT];
	/* per cause, the gap (piece) with the most of it: that much, and the
	 * thread of its launch call (0: none) */
	int64_t top_by_cause[GS_CAUSE_COUNT];
	uint32_t tid_by_cause[GS_CAUSE_COUNT];
};

struct gs_device_result {
	int device;			  /* ordinal */
	struct gs_timeline tl;		  /* device view */
	struct gs_stream_result *streams; /* per-stream views, by stream id */
	size_t n_streams;
	struct gs_gap *gaps; /* every device gap in the selection, time order
				(with options.all_gaps 0: the subset kept) */
	size_t n_gaps;	     /* entries in gaps (the timeline's n_gaps counts all) */
	uint32_t *top_gaps;  /* indexes into gaps, largest first (top_n) */
	size_t n_top;
	uint32_t first_op, end_op;	/* this device's ops: in->ops[first_op, end_op) */
	struct gs_nvtx_idle *nvtx_idle; /* every gap in the selection, by range text
					   (first seen first) */
	size_t n_nvtx_idle;
};

/* A distribution: nearest-rank percentiles (docs/metrics.md). */
struct gs_dist {
	uint64_t n;  /* samples */
	int64_t min; /* ns */
	int64_t p50; /* ns */
	int64_t p90; /* ns */
	int64_t p99; /* ns */
	int64_t max; /* ns */
};

/* Nearest-rank percentile p (0 < p <= 100) of v[0..n) (n > 0): the value of
 * rank ceil(p/100 * n) in ascending order. Reorders v (quickselect). */
int64_t gs_percentile(int64_t *v, size_t n, double p);
/* What spans of the collector's or CUPTI's own work on the program's threads
 * took: in->captures (call-site captures, api_stacks capture_end -
 * capture_start) or in->stalls (CUPTI's overhead rows): how many, in all,
 * and the median; all 0 without any. 0, or -ENOMEM. */
struct gs_capture_cost {
	int64_t n, total_ns, p50_ns;
};
int gs_span_cost(const struct gs_capture *v, size_t n, struct gs_capture_cost *out);
/* 1 when the n spans v took 0.5% or more of the longest device window of
 * res, the report's and the page's notes (docs/report.md, "Call-site
 * captures"), with *cc and *window filled; else 0. */
int gs_span_note(const struct gs_capture *v, size_t n, const struct gs_result *res,
		 struct gs_capture_cost *cc, int64_t *window);

/* qsort/bsearch comparator of int64_t values, ascending */
int gs_cmp_i64(const void *a, const void *b);
/* Fill d from v[0..n) (reorders v); all zero when n is 0. */
void gs_dist_compute(struct gs_dist *d, int64_t *v, size_t n);

/* Per launch API name: one sample per launch call that launched at least
 * one op in the selection (the op that starts first is "the" op). */
struct gs_launch_stat {
	uint32_t name_id;	/* strings id of the API */
	struct gs_dist api_dur; /* ns, C.end - C.start */
	struct gs_dist queue;	/* ns, op.start - C.end (can be < 0) */
	struct gs_dist delay;	/* ns, op.start - C.start */
};

/* Synchronisations grouped by (implicit, kind, API name). */
struct gs_sync_group {
	uint8_t implicit;     /* 0 explicit, 1 implicit */
	uint8_t kind;	      /* enum gs_sync_kind */
	uint32_t api_name_id; /* strings id, 0 unknown */
	uint32_t reason_id;   /* strings id of the first row's reason, 0 none */
	uint64_t count;	      /* rows */
	int64_t blocked_ns;   /* ns, sum of end - start */
	int64_t gpu_idle_ns;  /* ns, the sync-wait segments they make up (device views) */
	uint64_t n_gaps;      /* device gaps with a sync-wait segment of theirs */
	int64_t drain_ns;     /* ns, in those gaps: sync wait + launch latency (the
				 sync drained the queue; the launch latency after
				 it is the cost of refilling it) */
	/* Where the drain was (0: none, or no drain): the NVTX range holding
	 * the most of it (each call's innermost range at its entry, on its
	 * thread else on any); of that range's costliest call, the host
	 * operator over most of the call (imported traces' host_ranges)
	 * and its thread. A warm-up's allocations named as such, not as a
	 * loop's (HTA's A100 AlexNet trace: of its 6.5 s of cudaFree, all
	 * but a few ms in the range "...|warmup|forward"). */
	uint32_t where_nvtx_id; /* strings id */
	uint32_t where_op_id;	/* strings id */
	uint32_t where_tid;
};

/* Polls (cudaEventQuery, cudaStreamQuery and their driver twins): they
 * return at once, so they are not syncs; one entry per API name. */
struct gs_poll_stat {
	uint32_t api_name_id; /* strings id */
	uint64_t count;	      /* calls in the selection */
	int64_t time_ns;      /* ns, sum of their durations */
};

struct gs_kernel_stat {
	uint32_t name_id; /* strings id */
	uint64_t count;
	int64_t total; /* ns, sum of durations */
	int64_t p50;   /* ns, nearest-rank median duration */
};

struct gs_nvtx_stat {
	uint32_t text_id;  /* strings id */
	uint64_t count;	   /* ranges with this text */
	int64_t wall;	   /* ns, sum of range durations (in a capture trace,
			      of their parts inside the capture windows) */
	int64_t gpu_busy;  /* ns, time inside them when at least one GPU was busy */
	double busy_share; /* gpu_busy / wall */
};

/* A repeated op sequence on one stream and what a CUDA Graph would buy. */
struct gs_graph_advice {
	int device;
	uint32_t stream;
	uint32_t *names;       /* strings ids of the sequence's ops (0: copy/set) */
	uint8_t *kinds;	       /* enum gs_op_kind per element */
	uint32_t length;       /* ops per occurrence */
	uint64_t count;	       /* occurrences */
	uint32_t first_op_idx; /* first op of the first occurrence */
	uint32_t nvtx_idx;     /* innermost NVTX range at the first op's launch
				  (on its thread, else any thread) that most
				  occurrences share (of 63 sampled), GS_NONE */
	int64_t measured;      /* ns, sum over occurrences of (last end - first start),
				  plus the launch-caused hole before the next
				  occurrence when it follows at once */
	int64_t op_time;       /* ns, sum of op durations in occurrences */
	int64_t launch_idle;   /* ns, stream holes inside occurrences (and the
				  counted holes between them) that are
				  host code, CUDA API, launch latency or
				  graph-internal (what a graph removes) */
	int64_t estimate;      /* ns, measured - launch_idle + count * length * node overhead;
				  at least count untraced graph launch calls where the
				  trace's calibration timed one */
	int64_t saving;	       /* ns, measured - estimate (may be <= 0) */
	double saving_share;   /* saving / measured */
	int advise;	       /* 1 when saving_share > GS_ADVICE_MIN_SAVING and saving >=
				  GS_ADVICE_MIN_WINDOW_SHARE of the device window */
};

#define GS_LEAD_FACTOR 4
#define GS_LEAD_SHARE 0.10
#define GS_LEAD_MIN_RANGES 4

struct gs_result {
	struct gs_options opt; /* the options it was analysed with (a copy;
				  range_name borrowed) */
	int64_t first_range;   /* ns: the first NVTX range's start (default domain), INT64_MAX none */
	int span_applied;      /* 1: options.span_* limited the analysed time */
	/* selection */
	int range_applied;	/* 1 if options.range_name was given */
	uint64_t range_matches; /* NVTX ranges with that text (less those skipped) */
	uint64_t range_skipped; /* of those with that text, the first ones left
				   out (options.range_skip; fewer when there
				   were fewer) */
	const char *range_name; /* options.range_name (borrowed), NULL: none */
	int64_t range_total;	/* ns, length of their union (in a capture trace, of
				   its parts inside the capture windows) */
	/* The selection's leading ranges that each took GS_LEAD_FACTOR times
	 * the median range or more, where they hold GS_LEAD_SHARE of the
	 * ranges' walls or more (a training loop's first step, 487 ms of
	 * 1.063 s for 150 steps of 3.8 ms on the H200: cuDNN's and cuBLAS'
	 * set-up): a warm-up the verdict counts; 0 where none, or fewer
	 * than GS_LEAD_MIN_RANGES ranges. In a capture trace a range's wall
	 * is its part inside the capture windows. */
	uint64_t range_lead;	 /* how many */
	int64_t range_lead_ns;	 /* ns, their walls summed */
	int64_t range_median_ns; /* ns, the median wall of the selected ranges */
	int64_t range_walls_ns;	 /* ns, the selected ranges' walls summed */
	int64_t *sel;		 /* the analysed time: n_sel disjoint [start, end]
				    pairs, sorted: the ranges' union, the capture
				    windows, or the ranges' parts inside capture
				    windows (NULL when neither applies) */
	size_t n_sel;
	int selected; /* 1: sel limits the analysed time (range_applied,
			 capture, or both); 0: the whole trace */
	/* record --capture-range (gs_input.capture_range): only the capture
	 * windows were recorded and only they are analysed; with --range,
	 * range_total is the ranges' length inside them */
	int capture;		  /* 1: a capture trace */
	uint64_t capture_windows; /* how many windows (overlapping rows merged) */
	int64_t capture_ns;	  /* ns, their lengths summed */

	struct gs_device_result *devices; /* by device ordinal */
	size_t n_devices;

	struct gs_launch_stat *launches; /* by n desc */
	size_t n_launches;

	struct gs_sync_group *syncs; /* explicit first, then by blocked desc */
	size_t n_syncs;

	struct gs_poll_stat *polls; /* by count desc */
	size_t n_polls;

	struct gs_kernel_stat *kernels; /* all kernel names, by total desc */
	size_t n_kernels;
	uint64_t n_kernel_ops;	     /* kernels in the selection */
	uint64_t n_launched_kernels; /* of those, launched one by one (graph_id 0):
					a graph's nodes have no launch call each */
	uint64_t n_short_kernels;    /* of those launched one by one, duration <
					launch_cost_ns */
	double short_kernel_share;   /* n_short_kernels / n_launched_kernels */
	int64_t launch_cost_ns;	     /* ns, used for the share */
	int launch_cost_measured;    /* 1 measured from the trace, 0 default/option */

	struct gs_nvtx_stat *nvtx; /* by wall desc */
	size_t n_nvtx;

	struct gs_graph_advice *advice; /* by saving desc */
	size_t n_advice;
	int64_t graph_node_overhead_ns; /* ns used in the estimates */
	int graph_node_overhead_source; /* 0 default, 1 option, 2 measured in trace */
	int64_t graph_node_hole_p50_ns; /* ns, the median hole between a graph launch's
					   ops in the trace (>= 8 of them), else -1;
					   over GS_MAX_GRAPH_NODE_OVERHEAD_NS it is
					   not used (source 0) */

	/* instrumentation (Hopper: CUPTI instruments every kernel) */
	int instrumented;	    /* 1 kernels carry CUPTI's instrumentation (cc < 10),
				       0 not, -1 unknown */
	int64_t kernel_overhead_ns; /* ns subtracted per kernel, 0 if none */

	/* lookup built by the analysis: apis index of an op's launch call */
	const struct gs_input *in;
	uint32_t *corr_index;  /* private */
	size_t corr_index_n;   /* private */
	uint32_t *corr_sorted; /* private (fallback when corr ids are sparse) */
	uint32_t *call_of;     /* private: per op, its launch call (GS_NONE);
				  once filled the two lookups above are freed */
	void *host;	       /* private: per-thread covers for gs_gap_segments() */
};

/* ---- phases of the run, and the facts the rules check (advice.c) ---- */

#define GS_PHASE_MIN_STEPS 3	 /* steps needed to tell warm-up from steady state */
#define GS_PHASE_WARM_FACTOR 2	 /* a leading step this many times the median: warm-up */
#define GS_PHASE_VARY_SHARE 0.10 /* launches per step varying more: shapes vary */
enum gs_steps_source {
	GS_STEPS_NONE = 0,
	GS_STEPS_PROFILER = 1,	/* torch.profiler's ProfilerStep#N ranges */
	GS_STEPS_RANGES = 2,	/* the program's own repeated NVTX range (or family) */
	GS_STEPS_OPTIMIZER = 3, /* none: iterations end at torch's optimizer steps */
};
/* Start-up and warm-up, steady state, tail (docs/report.md, "Phases"):
 * the steady state runs from the first step after the warm-up steps to
 * the end of the last step; before it, start-up and warm-up; after it,
 * the tail. */
struct gs_phases {
	int source;		/* enum gs_steps_source; NONE: no phases known */
	uint32_t text_id;	/* strings id of the steps' text (a family's first) */
	const char *stem;	/* the family's stem ("ProfilerStep#"), or the text */
	size_t stem_len;	/* its length; 0: a plain text (text_id) */
	uint64_t n_steps;	/* step ranges */
	uint64_t warmup_steps;	/* the first steps counted as warm-up */
	long long first_number; /* ProfilerStep#N's N of the first step, -1 */
	int64_t step_p50_ns;	/* ns, the median step wall */
	int64_t steady_start;	/* ns */
	int64_t steady_end;	/* ns */
	int64_t warmup_ns;	/* ns of the analysed time before steady_start */
	int64_t steady_ns;	/* ns of it in [steady_start, steady_end] */
	int64_t tail_ns;	/* ns of it after steady_end */
};
/* Phases of res (analysed whole: none under --range). 0, or -1 out of
 * memory. */
int gs_phases_compute(const struct gs_result *res, struct gs_phases *ph);
/* Bytes of t that name its numbered family ("ProfilerStep#12":
 * "ProfilerStep#"), 0 for a text of no family. */
size_t gs_family_len(const char *t);
/* 1 for a collective's kernel (NCCL, RCCL) */
int gs_kernel_is_comm(const char *name);
/* A step whose GPU busy time is this much collective kernels is
 * collective-bound: graphs shorten its launches, not its communication
 * (the verdict's capture fixes and the graph advice say so). */
#define GS_COMM_BOUND_SHARE 0.50
/* the collective kernels' share of the GPU busy time in v's facts, 0 without
 * any; >= GS_COMM_BOUND_SHARE: collective-bound */
struct gs_verdict;
double gs_verdict_comm_share(const struct gs_verdict *v);

enum gs_loader { GS_LOADER_UNKNOWN = 0, GS_LOADER_SINGLE = 1, GS_LOADER_WORKERS = 2 };
/* What the analysed time shows that a fix depends on. */
struct gs_advice_facts {
	int loader;		   /* enum gs_loader: the DataLoader iterator the trace names */
	int loader_sampled;	   /* 1: known from the samples' frames, not from a name */
	uint64_t uploads;	   /* copies from host memory */
	uint64_t pageable_uploads; /* of those, from pageable memory */
	uint64_t syncs;		   /* blocking syncs: explicit, sync copies, pageable copies */
	uint32_t sync_api_id;	   /* strings id of the most frequent one's API */
	uint64_t allocs;	   /* cudaMalloc/cudaFree and twins */
	uint64_t opt_steps;	   /* torch optimizer steps (Optimizer.step#... ranges) */
	int64_t first_opt_end;	   /* ns, the first of them ended: allocations before
				      it are iteration 0's (INT64_MAX none) */
	uint64_t steps;		   /* steady-state steps (0: unknown) */
	uint64_t seq_steps;	   /* occurrences of the most repeated op sequence
				      (gs_graph_advice.count), 0 none: the steps
				      where no ranges mark them */
	uint64_t launches_min, launches_max, launches_p50; /* launch calls a step */
	int varying;		 /* 1: launches per step vary (GS_PHASE_VARY_SHARE) */
	uint64_t comm_kernels;	 /* NCCL/RCCL kernels */
	int64_t comm_busy_ns;	 /* ns, their busy time (union per device, summed) */
	int64_t comm_exposed_ns; /* ns, of it overlapping no other kernel */
	int64_t busy_ns;	 /* ns, the devices' busy time */
};
/* Facts of res (the steady state's result where phases are known; ph may
 * be NULL). 0, or -1 out of memory. */
int gs_advice_facts_compute(const struct gs_result *res, const struct gs_phases *ph,
			    struct gs_advice_facts *f);

/* ---- the verdict: the report's first lines (verdict.c) ------------- */

/* Rules, each with a threshold in docs/report.md ("Verdict"). */
enum gs_rule {
	GS_RULE_HOST_CODE = 0,	   /* host code between launches dominates */
	GS_RULE_LAUNCH = 1,	   /* launch latency of tiny kernels */
	GS_RULE_SYNC_STEP = 2,	   /* an explicit sync every step drains the queue */
	GS_RULE_PAGEABLE = 3,	   /* async copies with pageable memory */
	GS_RULE_SYNC_COPY = 4,	   /* synchronous copies / memsets */
	GS_RULE_ALLOC = 5,	   /* malloc/free in steady state */
	GS_RULE_LEGACY = 6,	   /* legacy default stream serialises streams */
	GS_RULE_DEPENDENCY = 7,	   /* streams waiting on each other / host functions */
	GS_RULE_SHORT_KERNELS = 8, /* kernels shorter than the launch cost */
	GS_RULE_GRAPH_LAUNCH = 9,  /* launch overhead, mostly before graph launches' ops */
	GS_RULE_SLOW_LAUNCH = 10,  /* launch calls of GS_SLOW_LAUNCH_NS or more (module loads) */
	GS_RULE_UNEXPLAINED = 11,  /* idle of cause other: what held the GPU is not in the trace */
	GS_RULE_NO_LAUNCH_CALLS = 12, /* the same, mostly before ops without a launch call */
	GS_RULE_INPUT_WAIT = 13,      /* host stalls (GS_HOST_STALL_NS) before uploads */
	GS_RULE_HOST_STALL = 14,      /* host stalls elsewhere */
	GS_RULE_STARTUP = 15,	      /* host stalls before the first NVTX range */
	GS_RULE_WARMUP = 16,	      /* idle before the steady state (gs_phases) */
	GS_RULE_HOST_OWN = 17,	      /* the program's own work between launches */
	GS_RULE_COMM = 18,	      /* collectives overlapping no compute */
	GS_RULE_TRACING = 19,	      /* idle the tracing itself added (calibrated) */
	GS_RULE_COUNT = 20,
};
/* The graph launch API made most in the selection (cudaGraphLaunch, its
 * _ptsz twin, cuGraphLaunch), NULL when none. */
const struct gs_launch_stat *gs_graph_launch_stat(const struct gs_result *res);
/* Whether NVTX text `text` is named by `name`: equal, or, for a name
 * ending in "#*", the part before the '*' followed by 1-18 digits (the
 * steps torch.profiler numbers: "ProfilerStep#*" names ProfilerStep#1,
 * ProfilerStep#2, ...). --range and --step read names so. */
int gs_name_matches(const char *text, const char *name);
const char *gs_rule_title(int rule); /* "host code between launches", ... */
const char *gs_rule_key(int rule);   /* "host_code", ... (JSON) */
const char *gs_rule_fix(int rule);   /* what to change, one short sentence */
struct gs_finding;
/* The fix of finding f: in a PyTorch program (gs_finding.pytorch) its
 * PyTorch words where the rule has them ("defer .item()/.cpu()/print to
 * every N steps"), else gs_rule_fix's, which name CUDA's own means. */
const char *gs_finding_fix(const struct gs_finding *f);
/* Whether the trace is of a PyTorch program: a kernel of its at::
 * namespace (at::native::..., mangled _ZN2at...) or an aten:: operator
 * among the host spans (torch.profiler imports, emit_nvtx ranges). */
int gs_trace_is_pytorch(const struct gs_result *res);
/* what gs_finding.count counts where no API is named: "kernels", "gaps"
 * ("kernel", "gap" for a count of 1) */
const char *gs_rule_count_unit(int rule, uint64_t count);

struct gs_finding {
	uint8_t rule;	      /* enum gs_rule */
	int64_t cost_ns;      /* ns of GPU idle it stands for */
	double share;	      /* cost_ns / window */
	uint32_t api_name_id; /* strings id of the call it names, 0 none */
	uint32_t nvtx_id;     /* strings id of the NVTX range where it happened, 0 none */
	uint32_t op_id;	      /* strings id of the host operator it ran in (imported
				 traces' host_ranges; host stalls), 0 none */
	uint32_t tid;	      /* host thread, 0 none */
	uint64_t count;	      /* calls (sync rules, slow launches), kernels (short kernels)
				 or gaps (host stalls) */
	uint8_t pytorch;      /* 1: found in a PyTorch program (gs_finding_fix) */
	uint8_t busy;	      /* 1: cost_ns is GPU busy time (exposed communication),
				 not idle */
	int8_t running_pct;   /* input stalls: 1 + how much of their host code the thread
				 ran, in percent (gs_host_running); 0 unknown */
	int8_t keep_pct;      /* input stalls: 1 + the share of their host time, in
				 percent, that their fix keeps (what it does not
				 remove); 0 none kept (whatif.h input_keep) */
	int8_t wait_pct;      /* input stalls: 1 + the share of their host code, in
				 percent, that the thread waited off CPU for the
				 DataLoader workers' batches (its off-CPU samples);
				 0 unknown */
	int8_t receive_pct;   /* input stalls: 1 + the share, in percent, that it took
				 in the tensors the workers shared (its samples in
				 torch.multiprocessing's rebuild, on and off CPU);
				 0 unknown */
	uint32_t remove_op_id; /* host stalls: the host operator (strings id) the fix
				  removes (gs_host_stall_fix), whose host time the
				  replay takes out; 0 none (no model) */
	const char *fix;      /* the fix that fits what the rule checked (static text),
				 NULL: the rule's own (gs_finding_fix) */
	char why[200];	      /* what the rule checked on the trace and found, "" none
				 (printed on a line of its own, at most 150) */
	/* what the fix buys, replayed (gs_verdict_compute_corr; whatif.h):
	 * GS_SAVES_REPLAYED: saves_ns and saves_share are the window the
	 * replay with the rule's fix applied saved; GS_SAVES_UNCHANGED: the
	 * fix has a model but found nothing on this trace to change;
	 * GS_SAVES_NONE: no replay (the rule's fix has no model, or the
	 * verdict was computed without savings: gs_verdict_compute) */
	uint8_t saves;	    /* GS_SAVES_* */
	int64_t saves_ns;   /* ns of GPU window, GS_SAVES_REPLAYED only */
	double saves_share; /* saves_ns / the replayed window of the ops the
			       verdict reads (the steady state's, the
			       selection's), GS_SAVES_REPLAYED only */
};
#define GS_SAVES_NONE 0
#define GS_SAVES_REPLAYED 1
#define GS_SAVES_UNCHANGED 2

/* findings the verdict keeps: the costliest, then ordered by what their
 * fixes save (gs_verdict_compute_corr) */
#define GS_VERDICT_FINDINGS 4
/* a replayed saving below this share of the window ranks with the
 * findings whose replay saves nothing (after those with no figure) */
#define GS_VERDICT_SAVES_MIN 0.01

/* What the host ran in host code */
#include "host_attr.h"

struct gs_verdict {
	int64_t window;			       /* ns, summed over devices */
	int64_t busy;			       /* ns */
	double utilisation;		       /* busy / window */
	int64_t idle_by_cause[GS_CAUSE_COUNT]; /* ns, summed over devices */
	int cause_order[GS_CAUSE_COUNT];       /* causes by idle, largest first */
	struct gs_finding findings[GS_VERDICT_FINDINGS];
	size_t n_findings;
	int pytorch; /* gs_trace_is_pytorch: the findings' fixes in PyTorch's words */
	/* The window's time outside every NVTX range, on a whole-trace
	 * selection of a trace with ranges (0 otherwise): start-up and
	 * warm-up, which the findings count as they count the steps (a
	 * PyTorch training loop on the H200: 5.13 s before the first of its
	 * 150 "step" ranges, 79% of the window, read as input stalls). */
	int64_t outside_ns;	 /* ns, summed over devices */
	int outside_note;	 /* 1: outside_ns is GS_VERDICT_OUTSIDE_SHARE of the
				    window or more, and a range text names the rest */
	uint32_t range_text_id;	 /* the range text with the most wall (of a numbered
				    family Stem#N: its first text), 0 none */
	int range_family;	 /* 1: that text is one of a numbered family, which
				    --range names Stem#* (gs_name_matches) */
	uint64_t range_count;	 /* ranges of that text or family */
	int64_t range_inside_ns; /* ns, their union in the windows, summed over devices */
	/* phases (advice.c): where a warm-up or tail holds GS_VERDICT_PHASE_
	 * SHARE of the window or more, the findings but the warm-up's count
	 * the steady state alone (analysed again over it) */
	struct gs_phases phases;
	int steady;		      /* 1: findings count the steady state */
	int64_t steady_window;	      /* ns, its window summed over devices */
	int64_t steady_busy;	      /* ns */
	struct gs_advice_facts facts; /* of the steady state (else the whole) */
	char blockers[112];	      /* what in the step stops its capture, as the
					 capture fixes name it; "" none */
	/* calibrated traces: the idle the correction took off (tracing's own
	 * cost), which launch findings no longer count */
	int corrected; /* 1: a correction was given */
	double corrected_utilisation;
	int64_t tracing_idle_ns; /* ns */
	int saves_untraced;	 /* 1: the savings were replayed with tracing's
				    cost taken off first (the correction's:
				    gs_whatif_verdict), of the untraced program */
};
#define GS_VERDICT_PHASE_SHARE 0.05
/* 1 when the verdict's savings were replayed untraced (saves_untraced) and
 * at least one finding has a replayed figure: the renderers then say so
 * under the findings */
int gs_verdict_untraced_note(const struct gs_verdict *v);
/* The report's verdict: the findings, each with what its fix saves
 * replayed on the trace (gs_finding.saves; in->op_bytes gives the copies'
 * bytes), the ones replayed first by that saving, then the others by
 * cost. With the trace's corrected figures (corr; NULL: none) launch
 * findings count only what the correction left. */
struct gs_corrected;
void gs_verdict_compute_corr(const struct gs_result *res, const struct gs_corrected *corr,
			     struct gs_verdict *v);
#define GS_VERDICT_OUTSIDE_SHARE 0.5
/* The same without correction and without the replays (findings by cost,
 * gs_finding.saves GS_SAVES_NONE): for callers that print no saving
 * (diff, multi-trace summaries) */
void gs_verdict_compute(const struct gs_result *res, struct gs_verdict *v);

/* Run the whole analysis. Returns 0, or a negative errno-style value
 * (-ENOMEM, -EINVAL for unsorted ops). On error res is left freed. */
int gs_analyze(const struct gs_input *in, const struct gs_options *opt, struct gs_result *res);
void gs_result_free(struct gs_result *res);

/* Index in in->apis of the launch call of op `op_idx` (the outermost API
 * call with its correlation id, i.e. the earliest-starting), or GS_NONE. */
uint32_t gs_launch_call(const struct gs_result *res, uint32_t op_idx);

/* ---- helpers shared with the trace reader and the renderers ------------- */

/* a + b, held at INT64_MAX / INT64_MIN instead of overflowing. For sums
 * of durations over many rows: each time of a trace lies in [0, 2^62]
 * (trace.h), so one difference cannot overflow, but two syncs of 2^62 ns
 * each did (UBSan in gs_analyze on a damaged trace); a saturated figure
 * is never shown as true (gs_sums_clamped). */
extern int gs_sum_clamped; /* set once a gs_sat_add clamped: see gs_sums_clamped */
static inline int64_t gs_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r)) {
		__atomic_store_n(&gs_sum_clamped, 1, __ATOMIC_RELAXED);
		return b > 0 ? INT64_MAX : INT64_MIN;
	}
	return r;
}

/* Whether any gs_sat_add of this process clamped a sum: the figure shown
 * would not be true. trace_load refuses the traces whose totals could
 * overflow (one kind's durations, or the devices' windows, past 2^62 ns in
 * all), so this is the net under every other sum: the verb says so, in one
 * line, and exits 2, and an output file is not replaced (gs_cli.c). */
static inline int gs_sums_clamped(void)
{
	return __atomic_load_n(&gs_sum_clamped, __ATOMIC_RELAXED);
}

/* Ask the kernel for huge pages on a big array (madvise; a hint, no error):
 * the loader's row arrays and the analysis' own (analysis_util.c). */
void big_hint(void *p, size_t bytes);

/* ---- call sites (analysis_site.c) ---------------------------------- */

/* Index in in->sites of the call with correlation id corr, or GS_NONE. */
uint32_t gs_site_of(const struct gs_input *in, uint32_t corr);
/* 1 when [a, b] meets the selection (--range and capture windows; always
 * without either). */
int gs_result_selects(const struct gs_result *res, int64_t a, int64_t b);
/* ns of [a, b) inside the selection (b - a without one) */
int64_t gs_result_overlap(const struct gs_result *res, int64_t a, int64_t b);
/* ns of [a, b) inside the capture windows of in (b - a in a trace
 * recorded whole): the recorded part of a span */
int64_t gs_capture_overlap(const struct gs_input *in, int64_t a, int64_t b);
/* In a capture trace, the capture window whose [start, end) holds time t:
 * its number (1 for the first, in time order, overlapping rows merged),
 * and t's ns from its start in *from_start (when not NULL). 0 when no
 * window holds t, or the trace was recorded whole. */
size_t gs_capture_window_at(const struct gs_input *in, int64_t t, int64_t *from_start);
/* The site reference of that call, or NULL. */
const struct gs_site_ref *gs_site_ref_of(const struct gs_input *in, uint32_t corr);

/* GPU idle caused at one call site by one API: the sync-wait segments whose
 * blocking call (the segment's first) was made there, and the host-late
 * segments (host code, CUDA API, launch latency) of gaps whose launch call
 * was captured there as a launch (GS_CS_WHY_LATE_LAUNCH: GAPSCOPE_CALLSITES=2
 * only). A copy captured because it blocked gets its sync wait, not the
 * host-late time before it: in the default mode no other launch has a
 * site, and crediting the few that do would rank them above launches
 * that caused more. */
struct gs_site_stat {
	uint32_t site;	      /* index in in->sites */
	uint32_t api_name_id; /* strings id of the call */
	uint64_t calls;	      /* syncs rows (blocking calls) at this site */
	int64_t blocked_ns;   /* ns, their end - start */
	int64_t sync_idle_ns; /* ns, sync-wait segments attributed here */
	int64_t late_idle_ns; /* ns, host-late launch segments attributed here */
	uint64_t n_gaps;      /* device gaps with a segment attributed here */
};
/* All sites of res with idle or calls, by sync_idle + late_idle desc, then
 * calls desc. *out is malloc'd (NULL when none). Returns the count, or
 * (size_t)-1 when out of memory. */
size_t gs_site_stats(const struct gs_result *res, struct gs_site_stat **out);

#endif
