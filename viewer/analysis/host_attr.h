/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * host_attr.h - what the host ran in host code (host_attr.c): included by
 * analysis.h, where it stands (it uses gs_input and gs_result), not on its own.
 */
#ifndef GS_HOST_ATTR_H
#define GS_HOST_ATTR_H

#define GS_HOST_TOP 5 /* functions (or host operators) named, largest first */
enum { GS_HOST_SRC_NONE = 0, GS_HOST_SRC_SAMPLES = 1, GS_HOST_SRC_SPANS = 2 };
struct gs_host_item {
	uint32_t file_id;  /* strings id of the file or module, 0 none (a span) */
	uint32_t func_id;  /* strings id of the function, symbol or span name */
	int32_t line;	   /* the line most of its samples were at; -1 none */
	uint8_t span;	   /* 1: a host operator span (imported trace) */
	uint8_t framework; /* 1: the framework's dispatch */
	uint8_t via;	   /* enum gs_host_via */
	uint8_t wait;	   /* 1: off-CPU samples (the thread waited at these frames) */
	int64_t weight;	   /* samples, or ns (of the span's own time; of the samples' time
			      where the trace has off-CPU samples: gs_host_attr.unit_ns) */
};
struct gs_host_attr {
	uint8_t source;	   /* GS_HOST_SRC_*: what the weights count; NONE: nothing known */
	uint8_t unit_ns;   /* samples weighed as time (ns): the trace has off-CPU samples, so
			      a CPU sample weighs the CPU time it stands for
			      (gs_input.sample_cpu_ns) and an off-CPU one its time in the
			      host code; 0: a sample weighs 1 */
	int64_t samples;   /* samples in the host code (on and off CPU; spans: = total) */
	int64_t wait_ns;   /* of total, the off-CPU samples' (unit_ns) */
	/* of total (all items, whatever the top's class): off-CPU samples waiting
	 * in the multi-process DataLoader for its workers' batch, and samples in
	 * the single-process one's fetch (gs_hstack.loader) */
	int64_t loader_wait, loader_fetch;
	/* of total: samples (on and off CPU) taking in the tensors a worker
	 * shared (gs_hstack.receive) */
	int64_t loader_receive, loader_receive_wait; /* the latter: off CPU */
	int64_t total;	   /* samples in the host code, or its ns (spans, unit_ns) */
	int64_t named;	   /* of total: samples with a frame, or ns inside a span */
	int64_t framework; /* of total: the framework's dispatch */
	int64_t wall_ns;   /* ns of the host code summed whose thread was sampled before it
			      (and the trace says what a sample stands for, gs_input.sample_cpu_ns) */
	int64_t run_ns;	   /* of it, the time its thread ran: its samples x sample_cpu_ns */
	size_t n_top;
	struct gs_host_item top[GS_HOST_TOP];
};
/* [a, b) of thread tid: its samples there, else (no samples in the trace)
 * its host spans' own time there. */
void gs_host_attribute(const struct gs_input *in, uint32_t tid, int64_t a, int64_t b,
		       struct gs_host_attr *out);
/* The same over every host-code segment of res's gaps (0, -1: no memory; out holds what
 * was summed); split: [0] all, [1] top of the framework's, [2] of the program's own. */
int gs_host_code_attr(const struct gs_result *res, struct gs_host_attr *out);
int gs_host_code_attr_split(const struct gs_result *res, struct gs_host_attr out[3]);
/* The same over the stalls' host code (GS_HOST_STALL_NS or more in a gap): [0] start-up,
 * [1] input, [2] the others; and over the host code outside [a, b]. 0, -1: no memory. */
int gs_host_stall_attr(const struct gs_result *res, struct gs_host_attr out[3]);
int gs_host_code_attr_outside(const struct gs_result *res, int64_t a, int64_t b,
			      struct gs_host_attr *out);
/* Append "[; ]samples: 71% a.py:f line 3, ..." to buf at k where a has GS_HOST_MIN_SAMPLES. */
size_t gs_host_why_append(char *buf, size_t n, size_t k, const struct gs_input *in,
			  const struct gs_host_attr *a, int64_t total);
/* Fewest samples of host code for them to decide, in the verdict, how much
 * of it is the framework's dispatch (below: the gaps' sizes decide). */
#define GS_HOST_MIN_SAMPLES 20
/* The longest span an off-CPU sample is taken to stand for: the sampler
 * looks every 10 ms (a longer one: its thread was held up; clipped). */
#define GS_HOST_WAIT_MAX_NS 50000000
/* The path as the report shows it: from the package on (after
 * site-packages/, dist-packages/, the standard library's python3.X/), else
 * its last two parts. Points into p. */
const char *gs_host_short_path(const char *p);
/* An item's name, not escaped: "torch/nn/functional.py:gelu line 1610",
 * "libtorch_cpu.so:symbol", or a host span's name. */
void gs_host_item_name(char *buf, size_t n, const struct gs_input *in, const struct gs_host_item *it);
/* w's share of total in percent to print with %.0f: 99 where less than all rounds to 100 */
double gs_host_pct(int64_t w, int64_t total);
/* "88% a.py:f line 3, 6% ..." for a's top, shares of total (whole items only; not escaped). */
void gs_host_attr_text(char *buf, size_t n, const struct gs_input *in,
		       const struct gs_host_attr *a, int64_t total);
/* The share of a's host code that its threads ran (on a CPU), from their samples there
 * (each stands for in->sample_cpu_ns): run_ns / wall_ns, at most 1; -1 unknown: no such
 * figure, or wall_ns under GS_HOST_ON_CPU_SAMPLES of them (a thread is not counted where
 * it was not yet sampled at a segment's start: it is sampled from its first CUDA call). */
double gs_host_running(const struct gs_input *in, const struct gs_host_attr *a);
#define GS_HOST_ON_CPU_SAMPLES 20
/* The fix of the program's own host code whose samples (h, over all of it) are
 * mostly its DataLoader's: waiting for the workers' batches (off CPU), or the
 * single-process loader's fetch; NULL: neither. */
const char *gs_host_loader_fix(const struct gs_host_attr *h);
/* An accumulator of such spans (gs_host_code_attr's, for other sums). */
struct gs_host_acc;
struct gs_host_acc *gs_host_acc_new(void);
void gs_host_acc_add(struct gs_host_acc *acc, const struct gs_input *in, uint32_t tid, int64_t a,
		     int64_t b);
void gs_host_acc_result(const struct gs_host_acc *acc, struct gs_host_attr *out);
void gs_host_acc_free(struct gs_host_acc *acc);
/* 1: a host span of this name is the framework's or the model's
 * (aten::, autograd, Optimizer., module forward/backward) */
int gs_host_span_framework(const char *name);

#endif
