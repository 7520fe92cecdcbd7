/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * verdict.c - the report's first lines: utilisation, where the idle time
 * went, and findings, each from a rule with a stated threshold
 * (docs/report.md, "Verdict"), with the time it cost, where it happened
 * and the fix. It reads a finished struct gs_result and computes nothing
 * the analysis did not, but what each finding's fix saves, which the
 * what-if replay says (whatif_api.c, gs_whatif_verdict); the renderers
 * print it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis_int.h"
#include "correct.h"
#include "whatif.h"

#include "gapscope/trace_format.h"

/* Thresholds, as fractions of the window summed over devices. */
#define RULE_HOST_CODE_SHARE 0.20    /* host code idle */
#define RULE_LAUNCH_SHARE 0.20	     /* launch latency + graph-internal + launch calls */
#define RULE_SYNC_MIN_CALLS 20	     /* an explicit sync group called this often ... */
#define RULE_SYNC_DRAIN_SHARE 0.05   /* ... whose drain (sync wait + refill latency) is this much */
#define RULE_COPY_MIN_CALLS 10	     /* pageable / synchronous copies */
#define RULE_ALLOC_MIN_CALLS 5	     /* malloc/free in steady state */
#define RULE_CALLS_COST_SHARE 0.01   /* implicit syncs: their drain */
#define RULE_DEP_SHARE 0.20	     /* dependency idle */
#define RULE_OTHER_SHARE 0.20	     /* idle of cause other */
#define RULE_SHORT_SHARE 0.50	     /* kernels shorter than the launch cost ... */
#define RULE_SHORT_MIN_KERNELS 100   /* ... of at least this many kernels ... */
#define RULE_SHORT_LAUNCH_SHARE 0.10 /* ... with this launch overhead share */
#define RULE_SLOW_LAUNCH_SHARE 0.05  /* launch latency after launch calls >= 1 ms */
#define RULE_STALL_SHARE 0.10	     /* host stalls (gaps of >= 1 ms host code) */
#define RULE_WARMUP_SHARE 0.10	     /* idle before the steady state */
#define RULE_COMM_SHARE 0.10	     /* collectives overlapping no compute */
#define RULE_COMM_BLOCK_SHARE 0.05   /* collectives that block capture: this much of busy */

/* fix: CUDA's own means; torch_fix: the PyTorch words for the same,
 * NULL where fix says it for both (gs_finding_fix) */
static const struct {
	const char *key, *title, *fix, *torch_fix;
} rules[GS_RULE_COUNT] = {
    [GS_RULE_HOST_CODE] = {"host_code", "host code between launches",
			   "capture the step in a CUDA Graph (stream capture)",
			   "capture the step in a CUDA Graph (torch.compile reduce-overhead)"},
    [GS_RULE_LAUNCH] = {"launch_overhead", "launch overhead",
			"fewer, larger kernels (fusion) or CUDA Graphs",
			"fewer, larger kernels (torch.compile) or CUDA Graphs"},
    [GS_RULE_SYNC_STEP] = {"sync_every_step", "a sync every step drains the GPU",
			   "sync every N steps, not every step",
			   "defer .item()/.cpu()/print to every N steps"},
    [GS_RULE_PAGEABLE] = {"pageable_copies", "async copies with pageable memory",
			  "pinned host memory (cudaHostAlloc or cudaHostRegister)",
			  "pinned host memory (pin_memory=True)"},
    [GS_RULE_SYNC_COPY] = {"sync_copies", "synchronous copies or memsets",
			   "async copies on a stream, one sync per step", NULL},
    /* PyTorch allocates through its caching allocator already: a
     * cudaMalloc in the loop is a cache miss (a new size), a cudaFree an
     * emptied cache (torch.cuda.empty_cache(), or a failed allocation
     * retried after freeing the cache) */
    [GS_RULE_ALLOC] = {"alloc_in_loop", "malloc/free in steady state",
		       "allocate once and reuse (a caching allocator)",
		       "keep PyTorch's cache: fixed shapes, no empty_cache()"},
    [GS_RULE_LEGACY] = {"legacy_stream", "legacy default stream serialises streams",
			"use created streams, not the legacy default", NULL},
    [GS_RULE_DEPENDENCY] = {"dependency", "streams waiting on each other",
			    "check the stream DAG: gapscope graph --streams", NULL},
    [GS_RULE_SHORT_KERNELS] = {"short_kernels", "kernels shorter than their launch",
			       "fuse them or capture them into a CUDA Graph",
			       "fuse them (torch.compile) or capture them into a CUDA Graph"},
    [GS_RULE_GRAPH_LAUNCH] = {"graph_launch_overhead", "launch overhead of graph launches",
			      "capture more steps per graph (fewer graph launches)", NULL},
    [GS_RULE_SLOW_LAUNCH] = {"slow_launch_calls", "launch calls over 1 ms (module loading)",
			     "warm up first, or CUDA_MODULE_LOADING=EAGER", NULL},
    [GS_RULE_UNEXPLAINED] = {"unexplained", "idle the trace does not explain",
			     "record stream waits (gapscope record); check other GPU users", NULL},
    [GS_RULE_NO_LAUNCH_CALLS] = {"no_launch_calls", "idle before ops with no launch call recorded",
				 "record the CUDA API calls too (gapscope record's default)", NULL},
    [GS_RULE_INPUT_WAIT] = {"input_wait", "input stalls before uploads",
			    "load inputs ahead (a loader thread, pinned buffers)",
			    "load inputs ahead: DataLoader(num_workers>0, pin_memory=True)"},
    [GS_RULE_HOST_STALL] = {"host_stalls", "host stalls of 1 ms or more",
			    "overlap it with GPU work; a CUDA Graph does not remove it", NULL},
    [GS_RULE_STARTUP] = {"startup_stalls", "host stalls before the first NVTX range",
			 "start-up where the ranges mark the loop: --range selects it", NULL},
    [GS_RULE_WARMUP] = {"warmup", "outside the steady state",
			"one-time: leave it out (--range, --capture-range)", NULL},
    [GS_RULE_HOST_OWN] = {"host_own_work", "the program's own CPU work between launches",
			  "overlap it with GPU work, move it off the step or batch it; "
			  "a CUDA Graph does not remove it",
			  NULL},
    [GS_RULE_COMM] =
	{"exposed_communication", "communication overlapping no compute",
	 "overlap collectives with compute (a separate stream, earlier launches)",
	 "overlap it: DDP bucket_cap_mb, no_sync() gradient accumulation, FSDP prefetch"},
    [GS_RULE_TRACING] = {"tracing_cost", "idle that tracing itself added",
			 "read the corrected figures; --graph-level records graph replays for less",
			 NULL},
};

const char *gs_rule_title(int rule)
{
	return rule >= 0 && rule < GS_RULE_COUNT ? rules[rule].title : "unknown";
}

const char *gs_rule_key(int rule)
{
	return rule >= 0 && rule < GS_RULE_COUNT ? rules[rule].key : "unknown";
}

const char *gs_rule_count_unit(int rule, uint64_t count)
{
	if (rule == GS_RULE_INPUT_WAIT || rule == GS_RULE_HOST_STALL || rule == GS_RULE_STARTUP)
		return count == 1 ? "gap" : "gaps";
	return count == 1 ? "kernel" : "kernels";
}

const char *gs_rule_fix(int rule)
{
	return rule >= 0 && rule < GS_RULE_COUNT ? rules[rule].fix : "";
}

const char *gs_finding_fix(const struct gs_finding *f)
{
	if (f->fix)
		return f->fix;
	if (f->pytorch && f->rule < GS_RULE_COUNT && rules[f->rule].torch_fix)
		return rules[f->rule].torch_fix;
	return gs_rule_fix(f->rule);
}

/* keep the GS_VERDICT_FINDINGS costliest (ties: the lower rule) */
static void add_finding(struct gs_verdict *v, const struct gs_finding *fin)
{
	size_t pos = v->n_findings;
	struct gs_finding capped = *fin, *f = &capped;
	int64_t idle = v->window - v->busy;

	f->pytorch = (uint8_t)v->pytorch;

	/* a sum over calls can count one gap for two rows of a group:
	 * never more than the idle time there was */
	if (!f->busy && f->cost_ns > idle)
		f->cost_ns = idle;

	while (pos > 0 && (f->cost_ns > v->findings[pos - 1].cost_ns ||
			   (f->cost_ns == v->findings[pos - 1].cost_ns &&
			    f->rule < v->findings[pos - 1].rule)))
		pos--;
	if (pos >= GS_VERDICT_FINDINGS)
		return;
	if (v->n_findings < GS_VERDICT_FINDINGS)
		v->n_findings++;
	memmove(&v->findings[pos + 1], &v->findings[pos], (v->n_findings - 1 - pos) * sizeof(*f));
	v->findings[pos] = *f;
}

/* Where cause's idle happened: the NVTX range holding the most of it over
 * the devices (gs_device_result.nvtx_idle; none when most lie in no range),
 * and the launching thread of the gap with the most of that cause in that
 * range. The largest gap alone named a phase that held
 * one 117 us gap, where another held 45 of the 77 ms of launch latency in
 * small gaps (H200 decode demo: "decode_one_graph" for "decode_eager"). On
 * equal idle, the range with the lowest string id. */
struct text_idle {
	uint32_t text;
	int64_t idle;
};

static int cmp_text(const void *a, const void *b)
{
	uint32_t x = ((const struct text_idle *)a)->text, y = ((const struct text_idle *)b)->text;
	return x < y ? -1 : x > y;
}

static void where_of(const struct gs_result *res, int cause, struct gs_finding *f)
{
	struct text_idle *v;
	uint32_t text = 0;
	int64_t most = 0, top = 0;
	size_t d, i, n = 0;

	/* every device's (range, idle) pairs, summed per range after a sort:
	 * a program may name each step's range apart (10,000 texts) */
	for (d = 0; d < res->n_devices; d++)
		n += res->devices[d].n_nvtx_idle;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (v) {
		n = 0;
		for (d = 0; d < res->n_devices; d++)
			for (i = 0; i < res->devices[d].n_nvtx_idle; i++) {
				v[n].text = res->devices[d].nvtx_idle[i].text_id;
				v[n++].idle = res->devices[d].nvtx_idle[i].idle_by_cause[cause];
			}
		qsort(v, n, sizeof(*v), cmp_text);
		for (i = 0; i < n;) {
			size_t j = i;
			int64_t sum = 0;
			for (; j < n && v[j].text == v[i].text; j++)
				sum = gs_sat_add(sum, v[j].idle);
			if (sum > most) {
				most = sum;
				text = v[i].text;
			}
			i = j;
		}
		free(v);
	}
	f->nvtx_id = text;
	/* the thread of the gap with the most of that cause in that range */
	for (d = 0; d < res->n_devices; d++)
		for (i = 0; i < res->devices[d].n_nvtx_idle; i++) {
			const struct gs_nvtx_idle *e = &res->devices[d].nvtx_idle[i];
			if (e->text_id == text && e->top_by_cause[cause] > top) {
				top = e->top_by_cause[cause];
				f->tid = e->tid_by_cause[cause];
			}
		}
}

const struct gs_launch_stat *gs_graph_launch_stat(const struct gs_result *res)
{
	const struct gs_launch_stat *best = NULL;
	size_t i;

	for (i = 0; i < res->n_launches; i++) {
		const struct gs_launch_stat *l = &res->launches[i];
		if (gs_api_is_graph_launch(gs_str(&res->in->strings, l->name_id, "")) &&
		    (!best || l->api_dur.n > best->api_dur.n))
			best = l;
	}
	return best;
}

/* the where of GS_RULE_GRAPH_LAUNCH: the graph launch API and its calls */
static void graph_launch_api(const struct gs_result *res, struct gs_finding *f)
{
	const struct gs_launch_stat *l = gs_graph_launch_stat(res);

	if (l) {
		f->api_name_id = l->name_id;
		f->count = l->api_dur.n;
	}
}

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

double gs_verdict_comm_share(const struct gs_verdict *v)
{
	return v && v->facts.comm_kernels ? share(v->facts.comm_busy_ns, v->facts.busy_ns) : 0.0;
}

/* ---- the window outside the NVTX ranges -------------------------------- */

struct span {
	int64_t s, e;
};

static int cmp_span(const void *a, const void *b)
{
	int64_t x = ((const struct span *)a)->s, y = ((const struct span *)b)->s;
	return x < y ? -1 : x > y;
}

/* The length of the union of v[0..n) (sorted by start) inside [first, last]. */
static int64_t covered(const struct span *v, size_t n, int64_t first, int64_t last)
{
	int64_t sum = 0, s = 0, e = 0;
	size_t i;

	for (i = 0; i <= n; i++) {
		if (i < n && i > 0 && v[i].s <= e) {
			if (v[i].e > e)
				e = v[i].e;
			continue;
		}
		if (i > 0) {
			int64_t a = s > first ? s : first, b = e < last ? e : last;
			if (b > a)
				sum = gs_sat_add(sum, b - a);
		}
		if (i < n) {
			s = v[i].s;
			e = v[i].e;
		}
	}
	return sum;
}

/* covered() over the analysed part of [first, last]: in a capture trace
 * only the capture windows (res->sel) were recorded, and the time between
 * them is neither inside nor outside a range. */
static int64_t covered_sel(const struct gs_result *res, const struct span *v, size_t n,
			   int64_t first, int64_t last)
{
	int64_t sum = 0;
	size_t k;

	if (!res->selected)
		return covered(v, n, first, last);
	for (k = 0; k < res->n_sel; k++) {
		int64_t a = res->sel[2 * k] > first ? res->sel[2 * k] : first;
		int64_t b = res->sel[2 * k + 1] < last ? res->sel[2 * k + 1] : last;
		if (b > a)
			sum = gs_sat_add(sum, covered(v, n, a, b));
	}
	return sum;
}

struct text_wall {
	const char *t;
	size_t len; /* of the family's stem, or the whole text */
	int family;
	uint32_t id;
	int64_t wall;
	uint64_t count;
};

static int cmp_text_wall(const void *a, const void *b)
{
	const struct text_wall *x = a, *y = b;
	int c;

	if (x->family != y->family)
		return x->family - y->family;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = memcmp(x->t, y->t, x->len);
	if (c)
		return c;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int names_range(const struct gs_verdict *v, const struct gs_strings *st, uint32_t id,
		       const char *stem, size_t len)
{
	const char *t;

	if (!v->range_family)
		return id == v->range_text_id;
	t = gs_str(st, id, "");
	return gs_family_len(t) == len && !memcmp(t, stem, len);
}

/* v->outside_*, v->range_*: how much of the whole-trace window (in a capture
 * trace, its part inside the capture windows) lies
 * outside every NVTX range, and the range text (or numbered family) with
 * the most wall, which --range reports alone. Out of memory: nothing. */
static void outside_ranges(const struct gs_result *res, struct gs_verdict *v)
{
	const struct gs_input *in = res->in;
	struct text_wall *tw;
	struct span *all, *mine;
	size_t i, j, n = 0, n_mine = 0, best = 0, len;
	int64_t inside = 0;
	const char *stem;
	int found = 0;

	if (res->range_applied || !res->n_nvtx || !in->n_nvtx || v->window <= 0)
		return;
	tw = malloc(res->n_nvtx * sizeof(*tw));
	all = malloc(in->n_nvtx * sizeof(*all));
	mine = malloc(in->n_nvtx * sizeof(*mine));
	if (!tw || !all || !mine)
		goto out;
	for (i = 0; i < res->n_nvtx; i++) {
		const char *t = gs_str(&in->strings, res->nvtx[i].text_id, "");
		size_t f = gs_family_len(t);
		tw[i] = (struct text_wall){t,
					   f ? f : strlen(t),
					   f != 0,
					   res->nvtx[i].text_id,
					   res->nvtx[i].wall,
					   res->nvtx[i].count};
	}
	/* a family's texts next to each other, summed into its first */
	qsort(tw, res->n_nvtx, sizeof(*tw), cmp_text_wall);
	for (i = 0; i < res->n_nvtx; i = j) {
		int64_t wall = 0;
		uint64_t count = 0;
		for (j = i; j < res->n_nvtx && tw[j].family && tw[j].family == tw[i].family &&
			    tw[j].len == tw[i].len && !memcmp(tw[j].t, tw[i].t, tw[i].len);
		     j++) {
			wall = gs_sat_add(wall, tw[j].wall);
			count += tw[j].count;
		}
		if (j == i) { /* no family: its own */
			wall = tw[i].wall;
			count = tw[i].count;
			j = i + 1;
		}
		tw[i].wall = wall;
		tw[i].count = count;
		if (!found || wall > tw[best].wall ||
		    (wall == tw[best].wall && tw[i].id < tw[best].id)) {
			best = i;
			found = 1;
		}
	}
	if (!found || tw[best].wall <= 0)
		goto out;
	v->range_text_id = tw[best].id;
	v->range_family = tw[best].family;
	v->range_count = tw[best].count;
	stem = tw[best].t;
	len = tw[best].len;
	for (i = 0; i < in->n_nvtx; i++) {
		const struct gs_nvtx *x = &in->nvtx[i];
		if (x->kind != GS_NVTX_RANGE || x->end <= x->start)
			continue;
		all[n++] = (struct span){x->start, x->end};
		if (names_range(v, &in->strings, x->text_id, stem, len))
			mine[n_mine++] = (struct span){x->start, x->end};
	}
	qsort(all, n, sizeof(*all), cmp_span);
	qsort(mine, n_mine, sizeof(*mine), cmp_span);
	for (i = 0; i < res->n_devices; i++) {
		const struct gs_timeline *tl = &res->devices[i].tl;
		inside = gs_sat_add(inside, covered_sel(res, all, n, tl->first, tl->last));
		v->range_inside_ns = gs_sat_add(
		    v->range_inside_ns, covered_sel(res, mine, n_mine, tl->first, tl->last));
	}
	v->outside_ns = v->window > inside ? v->window - inside : 0;
	v->outside_note =
	    v->range_inside_ns > 0 && share(v->outside_ns, v->window) >= GS_VERDICT_OUTSIDE_SHARE;
out:
	free(tw);
	free(all);
	free(mine);
}

/* 1 when the trace's host spans include operators (an imported
 * torch.profiler trace's aten:: cpu_ops), which say what the host ran; a
 * recorded trace's host spans are its NVTX ranges, which do not */
static void verdict_of(const struct gs_result *res, const struct gs_phases *ph,
		       struct gs_verdict *v)
{
	int64_t launch = 0, slow = 0, slow_max = 0, stall = 0, input = 0, start = 0, start_in = 0;
	uint64_t n_stall = 0, n_input = 0, n_start = 0, n_start_in = 0;
	struct gs_stall_where iw = {0}, sw = {0}, uw = {0};
	struct gs_finding sf = {.rule = GS_RULE_SLOW_LAUNCH};
	size_t d, i;
	int k, j;

	memset(v, 0, sizeof(*v));
	v->pytorch = gs_trace_is_pytorch(res);
	for (d = 0; d < res->n_devices; d++) {
		const struct gs_timeline *tl = &res->devices[d].tl;
		v->window = gs_sat_add(v->window, tl->window);
		v->busy = gs_sat_add(v->busy, tl->busy);
		for (k = 0; k < GS_CAUSE_COUNT; k++)
			v->idle_by_cause[k] = gs_sat_add(v->idle_by_cause[k], tl->idle_by_cause[k]);
		launch = gs_sat_add(launch, tl->launch_calls);
		slow =
		    gs_sat_add(slow, gs_sat_add(tl->slow_launch_latency, tl->slow_launch_in_calls));
		sf.count += tl->slow_launches;
		if (tl->slow_launch_max_ns > slow_max) {
			slow_max = tl->slow_launch_max_ns;
			sf.api_name_id = tl->slow_launch_name_id;
			sf.nvtx_id = tl->slow_launch_nvtx_id;
		}
	}
	v->utilisation = share(v->busy, v->window);
	for (k = 0; k < GS_CAUSE_COUNT; k++) { /* by idle, largest first; ties: enum order */
		for (j = k; j > 0 && v->idle_by_cause[k] > v->idle_by_cause[v->cause_order[j - 1]];
		     j--)
			v->cause_order[j] = v->cause_order[j - 1];
		v->cause_order[j] = k;
	}

	/* Host code in gaps of 1 ms or more of it is the thread's own
	 * work, which a CUDA Graph does not remove (the TensorBoard
	 * plugin's ResNet-50 sample with num_workers=0: ~50 ms of data
	 * loading a step before the batch upload, 45.7% of the window, read
	 * as "host code between launches -> capture the step in a CUDA
	 * Graph"); before uploads it is the input pipeline. Before the
	 * first NVTX range it is start-up where the ranges mark the loop:
	 * a finding of its own, out of the other two (a training loop's
	 * DataLoader starting its workers, 6.58 s in one gap, read as 84%
	 * "input stalls -> load inputs ahead"; H100, 2026-12-05) */
	for (d = 0; d < res->n_devices; d++) {
		const struct gs_timeline *tl = &res->devices[d].tl;
		stall = gs_sat_add(stall, tl->host_stall);
		input = gs_sat_add(input, tl->input_stall);
		start = gs_sat_add(start, tl->startup_stall);
		start_in = gs_sat_add(start_in, tl->startup_input_stall);
		n_stall += tl->host_stalls;
		n_input += tl->input_stalls;
		n_start += tl->startup_stalls;
		n_start_in += tl->startup_input_stalls;
		if (tl->input_where.host_ns > iw.host_ns)
			iw = tl->input_where;
		if (tl->stall_where.host_ns > sw.host_ns)
			sw = tl->stall_where;
		if (tl->startup_where.host_ns > uw.host_ns)
			uw = tl->startup_where;
	}
	/* what the samples show in each kind of stall: the finding's second line names it (a
	 * loop's own numpy work of 1.2 ms a step, a training loop's 7.4 s of imports; H100) */
	struct gs_host_attr sa[3];
	int stall_sampled = res->in && res->in->n_samples && gs_host_stall_attr(res, sa) == 0;
	if (share(start, v->window) >= RULE_STALL_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_STARTUP,
				       .cost_ns = start,
				       .count = n_start,
				       .nvtx_id = uw.nvtx_id,
				       .op_id = uw.op_id,
				       .tid = uw.tid};
		if (stall_sampled)
			gs_host_why_append(f.why, sizeof(f.why), 0, res->in, &sa[0], sa[0].total);
		add_finding(v, &f);
	}
	if (share(input - start_in, v->window) >= RULE_STALL_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_INPUT_WAIT,
				       .cost_ns = input - start_in,
				       .count = n_input - n_start_in,
				       .nvtx_id = iw.nvtx_id,
				       .op_id = iw.op_id,
				       .tid = iw.tid};
		/* its reason is input_fix's (the loader, uploads): the samples
		 * give it how much of the stalls the thread ran */
		double run = stall_sampled ? gs_host_running(res->in, &sa[1]) : -1.0;
		f.running_pct = (int8_t)(run >= 0.0 ? 1.5 + 100.0 * run : 0);
		/* where the samples weigh time (off-CPU samples on): how much
		 * of the stalls the thread waited for the workers' batches, and
		 * how much it took in the tensors they shared (input_fix), as
		 * shares of the time the samples stand for: the rest of the
		 * stalls (runnable, or between samples) is taken to go alike.
		 * Of the wall instead, bench/real/train_loop.py's 372 ms of
		 * stalls were 18% taking in, where the measured fix
		 * (file_system) took 40% of them away; of the samples, 34% (H100,
		 * 2026-12-08) */
		if (stall_sampled && sa[1].unit_ns && sa[1].total > 0) {
			double wt = (double)(sa[1].loader_wait - sa[1].loader_receive_wait) /
				    (double)sa[1].total,
			       rc = (double)sa[1].loader_receive / (double)sa[1].total;
			f.wait_pct = (int8_t)(1.5 + 100.0 * (wt < 1.0 ? (wt > 0.0 ? wt : 0.0) : 1.0));
			f.receive_pct = (int8_t)(1.5 + 100.0 * (rc < 1.0 ? rc : 1.0));
		}
		add_finding(v, &f);
	}
	if (share(stall - input - (start - start_in), v->window) >= RULE_STALL_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_HOST_STALL,
				       .cost_ns = stall - input - (start - start_in),
				       .count = n_stall - n_input - (n_start - n_start_in),
				       .nvtx_id = sw.nvtx_id,
				       .op_id = sw.op_id,
				       .tid = sw.tid};
		if (stall_sampled)
			gs_host_why_append(f.why, sizeof(f.why), 0, res->in, &sa[2], sa[2].total);
		add_finding(v, &f);
	}
	/* Host code below the stalls: the launching itself (a launch loop's
	 * or the framework's dispatch: a CUDA Graph removes it) or the
	 * program's own work between launches (it does not), told apart by
	 * how much host code its gap holds (GS_HOST_LOOP_NS in a program
	 * without a framework, GS_HOST_DISPATCH_NS in a PyTorch one). A C
	 * program with 20 us of its own work after each sync, and a PyTorch
	 * loop with 200 us of Python a step, were told "capture the step in a
	 * CUDA Graph" (issue 51). Either part is a finding where host code
	 * as a whole passes the rule's threshold and the part holds half of
	 * it. */
	{
		int64_t hs[3] = {0, 0, 0}, dispatch, own, fw = 0;
		int64_t host = v->idle_by_cause[GS_CAUSE_HOST_CODE] - stall;
		for (d = 0; d < res->n_devices; d++) {
			fw = gs_sat_add(fw, res->devices[d].tl.host_framework);
			for (k = 0; k < 3; k++)
				hs[k] = gs_sat_add(hs[k], res->devices[d].tl.host_by_size[k]);
		}
		dispatch = v->pytorch ? gs_sat_add(hs[0], hs[1]) : hs[0];
		own = v->pytorch ? hs[2] : gs_sat_add(hs[1], hs[2]);
		/* host spans name what ran: the framework's and the model's
		 * (aten::, forward) is what capture removes, whatever its size */
		if (gs_has_op_spans(res->in)) {
			dispatch = fw;
			own = gs_sat_add(gs_sat_add(hs[0], hs[1]), hs[2]) - fw;
		}
		/* the samples of the launching threads name the code itself
		 * (host_attr.c): the framework's dispatch against the program's
		 * own work by what ran, not by the gaps' sizes */
		struct gs_host_attr ha[3];
		int sampled = res->in && res->in->n_samples && gs_host_code_attr_split(res, ha) == 0 &&
			      ha[0].source == GS_HOST_SRC_SAMPLES && ha[0].samples >= GS_HOST_MIN_SAMPLES;
		if (sampled) {
			int64_t all = gs_sat_add(dispatch, own);
			dispatch = (int64_t)((double)all * (double)ha[0].framework /
					     (double)ha[0].total);
			own = all - dispatch;
		}
		if (share(host, v->window) >= RULE_HOST_CODE_SHARE) {
			if (share(dispatch, v->window) >= RULE_HOST_CODE_SHARE / 2) {
				struct gs_finding f = {.rule = GS_RULE_HOST_CODE,
						       .cost_ns = dispatch};
				where_of(res, GS_CAUSE_HOST_CODE, &f);
				if (sampled)
					gs_host_why_append(f.why, sizeof(f.why), 0, res->in,
							   &ha[1], ha[0].total);
				add_finding(v, &f);
			}
			if (share(own, v->window) >= RULE_HOST_CODE_SHARE / 2) {
				struct gs_finding f = {.rule = GS_RULE_HOST_OWN, .cost_ns = own};
				where_of(res, GS_CAUSE_HOST_CODE, &f);
				if (gs_has_op_spans(res->in))
					snprintf(f.why, sizeof(f.why),
						 "the host spans over its gaps are no operator, "
						 "autograd or module forward");
				else
					snprintf(f.why, sizeof(f.why),
						 "each of its gaps holds %s or more of host code; %s "
						 "takes less",
						 v->pytorch ? "150 us" : "5 us",
						 v->pytorch ? "one operator's dispatch"
							    : "a launch loop's own code between launches");
				if (sampled) {
					gs_host_why_append(f.why, sizeof(f.why), 0, res->in,
							   &ha[2], ha[0].total);
					f.fix = gs_host_loader_fix(&ha[0]);
				}
				add_finding(v, &f);
			}
		}
	}
	/* a launch call that ran 1 ms or more while the GPU idled loaded a
	 * module or compiled PTX (HTA's A100 AlexNet trace: one 3.06 s
	 * cudaLaunchKernel, 23.7% of the window, read as launch overhead
	 * that fusion or graphs would remove): a finding of its own */
	launch = gs_sat_add(launch, gs_sat_add(v->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY],
					       v->idle_by_cause[GS_CAUSE_GRAPH_INTERNAL]));
	launch -= slow < launch ? slow : launch;
	if (share(slow, v->window) >= RULE_SLOW_LAUNCH_SHARE) {
		sf.cost_ns = slow;
		add_finding(v, &sf);
	}
	if (share(launch, v->window) >= RULE_LAUNCH_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_LAUNCH, .cost_ns = launch};
		int64_t graph = v->idle_by_cause[GS_CAUSE_GRAPH_INTERNAL];
		for (d = 0; d < res->n_devices; d++)
			graph = gs_sat_add(graph, res->devices[d].tl.graph_launch_latency);
		where_of(res, GS_CAUSE_LAUNCH_LATENCY, &f);
		/* the program launches graphs already: "use CUDA Graphs" is no
		 * fix when most of the latency and graph-internal idle comes
		 * before and inside graph launches (H200 decode demo, one graph
		 * a token: 83 us of launch latency before each) */
		if (graph > (v->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY] - slow +
			     v->idle_by_cause[GS_CAUSE_GRAPH_INTERNAL]) /
				2) {
			f.rule = GS_RULE_GRAPH_LAUNCH;
			graph_launch_api(res, &f);
		}
		add_finding(v, &f);
	}
	if (share(v->idle_by_cause[GS_CAUSE_DEPENDENCY], v->window) >= RULE_DEP_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_DEPENDENCY,
				       .cost_ns = v->idle_by_cause[GS_CAUSE_DEPENDENCY]};
		where_of(res, GS_CAUSE_DEPENDENCY, &f);
		add_finding(v, &f);
	}
	/* Queued ops that started long after the GPU went idle with no wait
	 * recorded, or ops without a launch call: no fix of the program's
	 * launches applies; say what is missing instead of nothing (HTA's
	 * A100 torch.compile trace: 45.5% of the window, "no rule fired") */
	if (share(v->idle_by_cause[GS_CAUSE_OTHER], v->window) >= RULE_OTHER_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_UNEXPLAINED,
				       .cost_ns = v->idle_by_cause[GS_CAUSE_OTHER]};
		int64_t no_call = 0;
		for (d = 0; d < res->n_devices; d++)
			no_call = gs_sat_add(no_call, res->devices[d].tl.other_no_call);
		/* mostly before ops whose launch the trace lacks: the fix is
		 * recording the calls, not the waits */
		if (no_call > v->idle_by_cause[GS_CAUSE_OTHER] - no_call)
			f.rule = GS_RULE_NO_LAUNCH_CALLS;
		where_of(res, GS_CAUSE_OTHER, &f);
		add_finding(v, &f);
	}
	/* tiny kernels are a finding of their own only where the launch
	 * overhead one did not fire (they name the same idle) */
	if (share(launch, v->window) < RULE_LAUNCH_SHARE &&
	    res->n_launched_kernels >= RULE_SHORT_MIN_KERNELS &&
	    res->short_kernel_share >= RULE_SHORT_SHARE &&
	    share(launch, v->window) >= RULE_SHORT_LAUNCH_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_SHORT_KERNELS,
				       .cost_ns = v->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY],
				       .count = res->n_short_kernels};
		add_finding(v, &f);
	}
	for (i = 0; i < res->n_syncs; i++) {
		const struct gs_sync_group *g = &res->syncs[i];
		struct gs_finding f = {.api_name_id = g->api_name_id,
				       .count = g->count,
				       .nvtx_id = g->where_nvtx_id,
				       .op_id = g->where_op_id,
				       .tid = g->where_tid};
		int64_t cost = g->drain_ns;

		if (!g->implicit) {
			if (g->kind == GS_SYNC_STREAM_WAIT_EVENT ||
			    g->count < RULE_SYNC_MIN_CALLS ||
			    share(g->drain_ns, v->window) < RULE_SYNC_DRAIN_SHARE)
				continue;
			f.rule = GS_RULE_SYNC_STEP;
			f.cost_ns = g->drain_ns;
		} else if (g->kind == GS_SYNC_IMPLICIT_LEGACY_STREAM) {
			f.rule = GS_RULE_LEGACY;
			f.cost_ns = cost;
		} else {
			uint64_t min = g->kind == GS_SYNC_IMPLICIT_ALLOC ? RULE_ALLOC_MIN_CALLS
									 : RULE_COPY_MIN_CALLS;
			if (g->count < min || share(cost, v->window) < RULE_CALLS_COST_SHARE)
				continue;
			if (g->kind == GS_SYNC_IMPLICIT_PAGEABLE)
				f.rule = GS_RULE_PAGEABLE;
			else if (g->kind == GS_SYNC_IMPLICIT_MEMCPY ||
				 g->kind == GS_SYNC_IMPLICIT_MEMSET)
				f.rule = GS_RULE_SYNC_COPY;
			else if (g->kind == GS_SYNC_IMPLICIT_ALLOC)
				f.rule = GS_RULE_ALLOC;
			else
				continue;
			f.cost_ns = cost;
		}
		add_finding(v, &f);
	}
	/* collectives that overlap no compute on their device: busy time,
	 * but time the step waits for communication (one rank of an 8-rank
	 * NCCL job, NCCL ~85% of its busy time, was told only "host code
	 * between launches -> capture the step in a CUDA Graph") */
	if (gs_advice_facts_compute(res, ph, &v->facts) == 0 &&
	    share(v->facts.comm_exposed_ns, v->window) >= RULE_COMM_SHARE) {
		struct gs_finding f = {.rule = GS_RULE_COMM,
				       .cost_ns = v->facts.comm_exposed_ns,
				       .count = v->facts.comm_kernels,
				       .busy = 1};
		snprintf(
		    f.why, sizeof(f.why),
		    "collective kernels are %.0f%% of GPU busy; %.0f%% of their time overlaps no "
		    "compute",
		    100.0 * share(v->facts.comm_busy_ns, v->facts.busy_ns),
		    100.0 * share(v->facts.comm_exposed_ns, v->facts.comm_busy_ns));
		add_finding(v, &f);
	}
	for (i = 0; i < v->n_findings; i++)
		v->findings[i].share = share(v->findings[i].cost_ns, v->window);
	outside_ranges(res, v);
}

/* ---- what each rule checks before it gives its fix ------------------- */

/* the rule's threshold, as a share of the window its findings read */
static double rule_share(int rule)
{
	switch (rule) {
	case GS_RULE_LAUNCH:
	case GS_RULE_GRAPH_LAUNCH: return RULE_LAUNCH_SHARE;
	case GS_RULE_SHORT_KERNELS: return RULE_SHORT_LAUNCH_SHARE;
	case GS_RULE_HOST_CODE:
	case GS_RULE_HOST_OWN: return RULE_HOST_CODE_SHARE / 2;
	default: return 0.0;
	}
}

/* a rule whose fix is a CUDA Graph (or fusion) of the step */
static int capture_rule(int rule)
{
	return rule == GS_RULE_HOST_CODE || rule == GS_RULE_LAUNCH || rule == GS_RULE_SHORT_KERNELS;
}

/* What in the steady state blocks capturing the step into a CUDA Graph
 * (docs/report.md, "What each rule checks first"): syncs (two or more a
 * step where steps are known: the one sync that ends a step, a loss read
 * back, leaves the step before it capturable), allocations, collectives,
 * and a launch count that varies from step to step (shapes or control
 * flow that change). Written into buf; returns how many blockers. */
static int capture_blockers(const struct gs_verdict *v, const struct gs_input *in, char *buf,
			    size_t n)
{
	const struct gs_advice_facts *f = &v->facts;
	size_t k = 0;
	int b = 0;

#define PART(...)                                                                                  \
	do {                                                                                       \
		if (k < n)                                                                         \
			k += (size_t)snprintf(buf + k, n - k, "%s", b ? ", " : "");                \
		if (k < n)                                                                         \
			k += (size_t)snprintf(buf + k, n - k, __VA_ARGS__);                        \
		b++;                                                                               \
	} while (0)
	uint64_t steps = f->steps ? f->steps : f->seq_steps;

	buf[0] = '\0';
	if (steps && f->syncs >= 2 * steps)
		PART("%.1f blocking calls a %s (most: %.28s)", (double)f->syncs / (double)steps,
		     f->steps ? "step" : "repeat of its op sequence",
		     gs_str(&in->strings, f->sync_api_id, "?"));
	else if (!steps && f->syncs >= RULE_SYNC_MIN_CALLS)
		PART("%llu blocking calls (most: %.28s)", (unsigned long long)f->syncs,
		     gs_str(&in->strings, f->sync_api_id, "?"));
	if ((steps && f->allocs >= steps) || (!steps && f->allocs >= RULE_ALLOC_MIN_CALLS))
		PART("allocations x%llu", (unsigned long long)f->allocs);
	/* a collective a step, or communication that is a part of the busy
	 * time worth naming (a vLLM batch on the B200 with one NCCL kernel,
	 * 0.2% of busy: no blocker) */
	if ((steps && f->comm_kernels >= steps) ||
	    (f->comm_kernels && share(f->comm_busy_ns, f->busy_ns) >= RULE_COMM_BLOCK_SHARE))
		PART("collectives (%llu NCCL kernels)", (unsigned long long)f->comm_kernels);
	if (f->varying)
		PART("%llu-%llu launches a step (shapes vary)", (unsigned long long)f->launches_min,
		     (unsigned long long)f->launches_max);
#undef PART
	return b;
}

/* 1 when NVTX text `id` says warm-up ("warmup", "warm_up", "warm-up", any case) */
static int warmup_text(const struct gs_input *in, uint32_t id)
{
	const char *t = id ? gs_str(&in->strings, id, "") : "";
	size_t i;

	for (i = 0; t[i]; i++)
		if ((t[i] | 0x20) == 'w' && !strncasecmp(t + i, "warm", 4)) {
			const char *u = t + i + 4;
			if (*u == '_' || *u == '-' || *u == ' ')
				u++;
			if (!strncasecmp(u, "up", 2))
				return 1;
		}
	return 0;
}

/* calls of allocation API `api` that began at or after t */
static uint64_t allocs_after(const struct gs_input *in, uint32_t api, int64_t t)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < in->n_syncs; i++)
		n += in->syncs[i].kind == GS_SYNC_IMPLICIT_ALLOC &&
		     in->syncs[i].api_name_id == api && in->syncs[i].start >= t;
	return n;
}

static void preconditions(struct gs_verdict *v, const struct gs_input *in)
{
	const struct gs_advice_facts *f = &v->facts;
	double comm = gs_verdict_comm_share(v);
	char blk[112];
	size_t i;
	int nb = capture_blockers(v, in, blk, sizeof(blk));

	snprintf(v->blockers, sizeof(v->blockers), "%s", nb ? blk : "");

	for (i = 0; i < v->n_findings; i++) {
		struct gs_finding *fd = &v->findings[i];
		if (fd->rule == GS_RULE_INPUT_WAIT) {
			gs_input_fix(v, fd);
		} else if (fd->rule == GS_RULE_HOST_STALL) {
			gs_host_stall_fix(in, fd);
		} else if (capture_rule(fd->rule) && comm >= GS_COMM_BOUND_SHARE) {
			/* graphs shorten launches, not collectives */
			fd->fix = v->pytorch
				      ? "the step is collective-bound: overlap communication "
					"first (DDP buckets, no_sync); then torch.compile"
				      : "the step is collective-bound: overlap communication "
					"first; then fuse or capture the launches";
			snprintf(fd->why, sizeof(fd->why),
				 "collective kernels are %.0f%% of GPU busy%s%.96s", 100.0 * comm,
				 nb ? "; also " : "", nb ? blk : "");
		} else if (capture_rule(fd->rule) && nb) {
			/* the step holds what stops its capture: name it */
			/* short: the finding's line keeps its NVTX name (one
			 * ProfilerStep with 4 syncs read 'in NVTX "Profi…"') */
			fd->fix = v->pytorch ? "torch.compile, or torch.cuda.graph between the blockers"
					     : "fuse kernels, or CUDA Graphs between the blockers";
			snprintf(fd->why, sizeof(fd->why), "blocks capture: %s", blk);
		} else if (fd->rule == GS_RULE_ALLOC && warmup_text(in, fd->nvtx_id)) {
			/* the program names the range warm-up (param's
			 * "[...|warmup|forward]" in HTA's A100 AlexNet trace) */
			fd->rule = GS_RULE_WARMUP;
			snprintf(fd->why, sizeof(fd->why),
				 "the range holding most of it is the program's warm-up");
		} else if (fd->rule == GS_RULE_ALLOC && f->opt_steps >= 2 &&
			   !allocs_after(in, fd->api_name_id, f->first_opt_end)) {
			/* every allocation before the first optimizer step
			 * ended: iteration 0 */
			fd->rule = GS_RULE_WARMUP;
			snprintf(fd->why, sizeof(fd->why),
				 "all before the first of %llu Optimizer.step ranges ended "
				 "(iteration 0)",
				 (unsigned long long)f->opt_steps);
		} else if (fd->rule == GS_RULE_ALLOC && !fd->why[0]) {
			if (v->steady)
				snprintf(fd->why, sizeof(fd->why),
					 "in the steady state (after %llu warm-up step%s)",
					 (unsigned long long)v->phases.warmup_steps,
					 v->phases.warmup_steps == 1 ? "" : "s");
			else if (v->phases.source == GS_STEPS_NONE)
				snprintf(fd->why, sizeof(fd->why),
					 "the trace marks no steps: warm-up and steady state are "
					 "not told apart");
		} else if (fd->rule == GS_RULE_SYNC_STEP && f->steps && !fd->why[0]) {
			snprintf(fd->why, sizeof(fd->why), "%.1f a step over %llu steps",
				 (double)fd->count / (double)f->steps,
				 (unsigned long long)f->steps);
		}
	}
}

/* the findings costliest first again (a correction may have reordered) */
static void sort_findings(struct gs_verdict *v)
{
	size_t i, j;

	for (i = 1; i < v->n_findings; i++)
		for (j = i; j > 0 && v->findings[j].cost_ns > v->findings[j - 1].cost_ns; j--) {
			struct gs_finding t = v->findings[j];
			v->findings[j] = v->findings[j - 1];
			v->findings[j - 1] = t;
		}
}

/* A calibrated trace: the idle the correction took off was tracing's own
 * (the collector's per-launch and per-node cost). Launch findings no
 * longer count it, and a finding whose rest falls under its threshold
 * gives way to one that says the idle was tracing's (a 400-node graph
 * replayed behind a full queue: 39% idle traced, "launch overhead of
 * graph launches -> capture more steps per graph", 99.6% busy
 * corrected). */
static void apply_correction(struct gs_verdict *v, const struct gs_corrected *c)
{
	int64_t cw, cb, removed = 0, left, scope = v->steady ? v->steady_window : v->window;
	size_t d, i, n = 0;
	int dropped = 0;

	v->corrected = 1;
	v->corrected_utilisation = gs_corrected_total(c, &cw, &cb);
	for (d = 0; d < c->n_devices; d++)
		removed = gs_sat_add(removed, c->devices[d].idle_removed);
	v->tracing_idle_ns = removed;
	if (removed <= 0 || v->window <= 0)
		return;
	if (v->steady) /* the steady state's part of it, pro rata */
		removed = (int64_t)((double)removed * share(v->steady_window, v->window));
	left = removed;
	for (i = 0; i < v->n_findings; i++) {
		struct gs_finding *f = &v->findings[i];
		int64_t take;
		if (!(capture_rule(f->rule) || f->rule == GS_RULE_GRAPH_LAUNCH))
			continue;
		take = f->cost_ns < left ? f->cost_ns : left;
		f->cost_ns -= take;
		left -= take;
	}
	for (i = 0; i < v->n_findings; i++) {
		struct gs_finding *f = &v->findings[i];
		if ((capture_rule(f->rule) || f->rule == GS_RULE_GRAPH_LAUNCH) &&
		    share(f->cost_ns, scope) < rule_share(f->rule)) {
			dropped = 1;
			continue;
		}
		v->findings[n++] = *f;
	}
	v->n_findings = n;
	if (dropped && share(removed - left, scope) >= RULE_LAUNCH_SHARE / 2) {
		struct gs_finding f = {.rule = GS_RULE_TRACING, .cost_ns = removed - left};
		snprintf(f.why, sizeof(f.why),
			 "corrected for tracing the GPU is %.1f%% busy: the collector's per-launch "
			 "and per-node cost made this idle",
			 100.0 * v->corrected_utilisation);
		add_finding(v, &f);
	}
	sort_findings(v);
}

/* the warm-up's own finding: the idle outside the steady state, with what
 * the trace shows of it (allocations, module loads) */
static void warmup_finding(const struct gs_result *res, const struct gs_result *st,
			   const struct gs_verdict *whole, const struct gs_verdict *sv,
			   struct gs_verdict *v)
{
	const struct gs_input *in = res->in;
	const struct gs_phases *ph = &v->phases;
	int64_t idle = (whole->window - whole->busy) - (sv->window - sv->busy);
	uint64_t slow = 0, allocs;
	size_t d, k;
	struct gs_finding f = {.rule = GS_RULE_WARMUP};

	if (share(idle, whole->window) < RULE_WARMUP_SHARE)
		return;
	for (d = 0; d < res->n_devices; d++)
		slow += res->devices[d].tl.slow_launches;
	for (d = 0; d < st->n_devices; d++)
		slow -= slow >= st->devices[d].tl.slow_launches ? st->devices[d].tl.slow_launches
								: slow;
	allocs =
	    whole->facts.allocs > sv->facts.allocs ? whole->facts.allocs - sv->facts.allocs : 0;
	f.cost_ns = idle;
	f.count = 0;
	{
		const char *stem = ph->stem_len ? ph->stem : gs_str(&in->strings, ph->text_id, "");
		int len = (int)(ph->stem_len ? ph->stem_len : strlen(stem));
		if (len > 40)
			len = 40;
		if (ph->source == GS_STEPS_OPTIMIZER)
			k = (size_t)snprintf(
			    f.why, sizeof(f.why),
			    "iterations end at Optimizer.step; the first %llu of %llu "
			    "are warm-up",
			    (unsigned long long)ph->warmup_steps, (unsigned long long)ph->n_steps);
		else if (ph->warmup_steps)
			k = (size_t)snprintf(f.why, sizeof(f.why),
					     "--range '%.*s%s' --skip %llu reads the steady state",
					     len, stem, ph->stem_len ? "*" : "",
					     (unsigned long long)ph->warmup_steps);
		else
			k = (size_t)snprintf(f.why, sizeof(f.why),
					     "before the first and after the last step; --range "
					     "'%.*s%s' reads the steps",
					     len, stem, ph->stem_len ? "*" : "");
		if (ph->tail_ns > ph->warmup_ns && k < sizeof(f.why))
			k += (size_t)snprintf(f.why + k, sizeof(f.why) - k, "; mostly the tail");
	}
	if (allocs && k < sizeof(f.why))
		k += (size_t)snprintf(f.why + k, sizeof(f.why) - k, "; allocations x%llu",
				      (unsigned long long)allocs);
	if (slow && k < sizeof(f.why))
		k += (size_t)snprintf(f.why + k, sizeof(f.why) - k,
				      "; %llu launch call%s over 1 ms (module loading)",
				      (unsigned long long)slow, slow == 1 ? "" : "s");
	/* what the host ran there (the training loop's 7.4 s: "imports from
	 * real/train_loop.py:main line 141", its optimizer's first
	 * construction; H100, 2026-12-07) */
	if (in->n_samples) {
		struct gs_host_attr a;
		if (gs_host_code_attr_outside(res, ph->steady_start, ph->steady_end, &a) == 0)
			k = gs_host_why_append(f.why, sizeof(f.why), k, in, &a, a.total);
	}
	if (slow)
		f.fix = "one-time: leave it out (--range, --capture-range); "
			"CUDA_MODULE_LOADING=EAGER loads up front";
	add_finding(v, &f);
}

/* a finding's rank in the verdict: 0 its replayed fix saves time (1% of
 * the window or more, GS_VERDICT_SAVES_MIN), 1 its fix has no figure (no
 * model, or the trace lacks what it needs), 2 the replay finds nothing to
 * fix, or a window no shorter or hardly shorter. A fix the replay says
 * buys nothing goes after one whose gain is not known (PARAM's DLRM: host
 * code saving 0 ns was first, above 42.6% of exposed communication; HTA's
 * NCCL rank: host code saving 0.2% above host stalls of 22.6%) */
static int saves_rank(const struct gs_finding *f)
{
	if (f->saves == GS_SAVES_REPLAYED && f->saves_ns > 0 &&
	    f->saves_share >= GS_VERDICT_SAVES_MIN)
		return 0;
	return f->saves == GS_SAVES_NONE ? 1 : 2;
}

/* 1 when finding a goes before b: by rank, in rank 0 by the saving
 * (largest first); otherwise the order they had (by cost) */
static int saves_before(const struct gs_finding *a, const struct gs_finding *b)
{
	int ra = saves_rank(a), rb = saves_rank(b);

	if (ra != rb)
		return ra < rb;
	return !ra && a->saves_ns > b->saves_ns;
}

/* Each finding with what its fix saves, replayed (whatif_api.c), and the
 * findings ordered by it: what a user should change first is what buys
 * the most, not what costs the most (a loop whose host is the bottleneck
 * either way gains little from dropping its sync). Out of memory: no
 * savings, the order by cost. */
static void verdict_saves(const struct gs_result *res, const struct gs_corrected *corr,
			  struct gs_verdict *v)
{
	size_t i, j;

	if (gs_whatif_verdict(res, corr, v) < 0)
		return;
	gs_comm_unchanged(res->in, v);
	for (i = 1; i < v->n_findings; i++) /* stable: ties keep the cost order */
		for (j = i; j > 0 && saves_before(&v->findings[j], &v->findings[j - 1]); j--) {
			struct gs_finding t = v->findings[j];
			v->findings[j] = v->findings[j - 1];
			v->findings[j - 1] = t;
		}
}

static void verdict_compute(const struct gs_result *res, const struct gs_corrected *corr,
			    struct gs_verdict *v, int saves)
{
	struct gs_phases ph;
	struct gs_result st;
	size_t i;

	if (gs_phases_compute(res, &ph))
		memset(&ph, 0, sizeof(ph));
	verdict_of(res, &ph, v);
	v->phases = ph;
	if (ph.source != GS_STEPS_NONE && v->window > 0 &&
	    share(gs_sat_add(ph.warmup_ns, ph.tail_ns), v->window) >= GS_VERDICT_PHASE_SHARE) {
		/* the findings of the steady state alone: its own analysis */
		struct gs_options o = res->opt;
		o.span_start = ph.steady_start;
		o.span_end = ph.steady_end;
		/* the top gaps, or all where host_attr.c attributes host code */
		o.all_gaps = res->opt.all_gaps && (res->in->n_samples || res->in->n_hranges);
		if (gs_analyze(res->in, &o, &st) == 0) {
			struct gs_verdict *sv = malloc(sizeof(*sv)),
					  *whole = malloc(sizeof(*whole));
			if (sv && whole) {
				verdict_of(&st, &ph, sv);
				*whole = *v;
				v->steady = 1;
				v->steady_window = sv->window;
				v->steady_busy = sv->busy;
				v->facts = sv->facts;
				memcpy(v->findings, sv->findings, sizeof(v->findings));
				v->n_findings = sv->n_findings;
				warmup_finding(res, &st, whole, sv, v);
			}
			free(sv);
			free(whole);
			gs_result_free(&st);
		}
	}
	preconditions(v, res->in);
	if (corr && corr->n_devices)
		apply_correction(v, corr);
	/* a steady-state finding's share is of the steady state, the
	 * warm-up's of the whole window (the phases line says so) */
	for (i = 0; i < v->n_findings; i++)
		v->findings[i].share =
		    share(v->findings[i].cost_ns, v->steady && v->findings[i].rule != GS_RULE_WARMUP
						      ? v->steady_window
						      : v->window);
	if (saves)
		verdict_saves(res, corr, v);
}

int gs_verdict_untraced_note(const struct gs_verdict *v)
{
	size_t i;

	for (i = 0; v->saves_untraced && i < v->n_findings; i++)
		if (v->findings[i].saves == GS_SAVES_REPLAYED)
			return 1;
	return 0;
}

void gs_verdict_compute_corr(const struct gs_result *res, const struct gs_corrected *corr,
			     struct gs_verdict *v)
{
	verdict_compute(res, corr, v, 1);
}

void gs_verdict_compute(const struct gs_result *res, struct gs_verdict *v)
{
	verdict_compute(res, NULL, v, 0);
}
