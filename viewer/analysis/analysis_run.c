/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * analysis_run.c - gs_analyze(): the passes of the analysis in order, on
 * threads where they can run side by side. The API classification and the
 * indexes come from analysis_index.c, the selection from analysis_select.c,
 * the per-device passes (gaps and their causes) from analysis.c, the host
 * index from host_cover.c, the statistics from analysis_stats.c and
 * analysis_graph.c; this file owns only their order, the threads and the
 * context's memory. It sits
 * above them all so that none of them
 * calls another back (tests/unit/check_cycles.py). No I/O.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"

/* ------------------------------------------------------------------ */
/* driver                                                              */
/* ------------------------------------------------------------------ */

static void actx_free(struct actx *c)
{
	free(c->ops_copy);
	if (c->call_of != c->res->call_of) /* else the result owns it */
		free(c->call_of);
	free(c->api_cls);
	if (c->sel != c->res->sel) /* else the result owns it */
		free(c->sel);
	free(c->nvtx_tid.ents);
	free(c->nvtx_any.ents);
	free(c->waits.v);
	free(c->hostfn.v);
	free(c->stream_of);
	free(c->sv_gap);
	free(c->scratch);
	free(c->wait_rec_dev);
	free(c->wait_rec_stream);
	free(c->sync_idle);
	free(c->sync_gaps);
	free(c->sync_drain);
}

/* The launch call of ops [a, b), with the order check of the same ops
 * (each against the one before it): one pass for both. */
struct call_of_job {
	const struct gs_result *res;
	struct actx *c;	    /* set: build the host index after the ops (host_rc) */
	int host_rc;
	uint32_t *call_of;
	size_t a, b;	    /* ops [a, b) */
	size_t dev_changes; /* out: ops whose device differs from the one before */
	int unsorted;	    /* out: an op before the one before it in (device, start) */
};

static void *call_of_thread(void *arg)
{
	struct call_of_job *j = arg;
	const struct gs_op *ops = j->res->in->ops;
	size_t i;

	for (i = j->a; i < j->b; i++) {
		j->call_of[i] = gs_launch_call(j->res, (uint32_t)i);
		if (i > 0) {
			const struct gs_op *p = &ops[i - 1], *q = &ops[i];
			if (q->device < p->device || (q->device == p->device && q->start < p->start))
				j->unsorted = 1;
			j->dev_changes += q->device != p->device;
		}
	}
	if (j->c)
		j->host_rc = host_index_build(j->c, j->c->host);
	return NULL;
}

struct launches_job {
	struct actx *c;
	int rc;
};

static void *launches_thread(void *arg)
{
	struct launches_job *j = arg;

	j->rc = stats_launches(j->c);
	if (!j->rc)
		j->rc = stats_kernels(j->c);
	return NULL;
}

/* The graph advice runs beside the other statistics; the NVTX breakdown,
 * which shares nothing with either, goes to whichever of the two threads
 * is free first (on a 10M-op trace the statistics took 0.3 s longer than
 * the advice, the NVTX breakdown 0.2 s of that). */
struct advice_job {
	struct actx *c;
	atomic_int nvtx_taken; /* set by the thread that runs stats_nvtx */
	int rc;		/* of the advice */
	int nvtx_rc;	/* of stats_nvtx, where the advice thread ran it */
};

static int take_nvtx(struct advice_job *j)
{
	return !atomic_exchange(&j->nvtx_taken, 1);
}

static void *advice_thread(void *arg)
{
	struct advice_job *j = arg;

	j->rc = stats_graph_advice(j->c);
	if (!j->rc && take_nvtx(j))
		j->nvtx_rc = stats_nvtx(j->c);
	return NULL;
}

int gs_analyze(const struct gs_input *in, const struct gs_options *opt, struct gs_result *res)
{
	struct gs_options dflt;
	struct actx c;
	size_t i, n_dev = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->graph_node_hole_p50_ns = -1;
	memset(&c, 0, sizeof(c));
	if (!opt) {
		gs_options_init(&dflt);
		opt = &dflt;
	}
	res->in = in;
	res->opt = *opt;
	c.in = in;
	c.opt = opt;
	c.res = res;
	c.ops = in->ops;
	if (in->n_ops >= GS_NONE || in->n_apis >= GS_NONE || in->n_syncs >= GS_NONE ||
	    in->n_nvtx >= GS_NONE)
		return -EINVAL;
	/* Hopper and older: CUPTI times kernels by instrumenting them */
	res->instrumented = in->gpu_arch_major == 0 ? -1 : in->gpu_arch_major < 10;
	if (opt->correct_instrumentation && in->kernel_overhead_ns > 0) {
		c.ops_copy = big_malloc((in->n_ops ? in->n_ops : 1) * sizeof(struct gs_op));
		if (!c.ops_copy) {
			rc = -ENOMEM;
			goto out;
		}
		memcpy(c.ops_copy, in->ops, in->n_ops * sizeof(struct gs_op));
		for (i = 0; i < in->n_ops; i++) {
			struct gs_op *o = &c.ops_copy[i];
			if (o->kind == GS_OP_KERNEL)
				o->end = o->end - o->start > in->kernel_overhead_ns
					     ? o->end - in->kernel_overhead_ns
					     : o->start;
		}
		c.ops = c.ops_copy;
		res->kernel_overhead_ns = in->kernel_overhead_ns;
	}

	rc = classify_apis(&c);
	if (rc)
		goto out;
	c.call_of = big_malloc((in->n_ops ? in->n_ops : 1) * sizeof(uint32_t));
	c.stream_of = big_malloc((in->n_ops ? in->n_ops : 1) * sizeof(uint32_t));
	c.sv_gap = big_calloc(in->n_ops ? in->n_ops : 1, 1);
	c.scratch = big_malloc((in->n_ops ? in->n_ops : 1) * SCRATCH_PER_OP + 16);
	if (!c.call_of || !c.stream_of || !c.sv_gap || !c.scratch) {
		rc = -ENOMEM;
		goto out;
	}
	/* the launch call of every op and the order check (ops sorted by
	 * device, start; the devices counted), then the (small) indexes, on
	 * this thread, while a second one builds the host index */
	{
		struct call_of_job half[2] = {
		    {.res = res, .call_of = c.call_of, .a = 0, .b = in->n_ops},
		    {.res = res, .call_of = c.call_of, .a = in->n_ops, .b = in->n_ops}};
		pthread_t th;
		int threaded;

		/* what each host thread did, for the host-late cuts; the result
		 * keeps it for gs_gap_segments(). Built on the second thread
		 * alone: it takes about as long as the launch calls and the
		 * indexes together (on a 10M-op trace, with the launch calls
		 * split in halves, the first thread waited for it a third of
		 * the time). */
		c.host = calloc(1, sizeof(*c.host));
		c.sync_idle = calloc(in->n_syncs + 1, sizeof(int64_t));
		c.sync_gaps = calloc(in->n_syncs + 1, sizeof(uint32_t));
		c.sync_drain = calloc(in->n_syncs + 1, sizeof(int64_t));
		res->host = c.host;
		if (!c.host || !c.sync_idle || !c.sync_gaps || !c.sync_drain) {
			rc = -ENOMEM;
			goto out;
		}
		half[1].c = &c;
		threaded =
		    in->n_ops >= 65536 && pthread_create(&th, NULL, call_of_thread, &half[1]) == 0;
		call_of_thread(&half[0]);
		rc = build_selection(&c);
		if (!rc)
			rc = build_indexes(&c);
		res->first_range = c.first_range;
		if (!rc)
			rc = resolve_wait_records(&c);
		if (threaded)
			pthread_join(th, NULL);
		else
			half[1].host_rc = host_index_build(&c, c.host);
		if (!rc)
			rc = half[1].host_rc;
		if (!rc && (half[0].unsorted || (threaded && half[1].unsorted)))
			rc = -EINVAL;
		n_dev = (in->n_ops > 0) + half[0].dev_changes + (threaded ? half[1].dev_changes : 0);
	}
	if (rc)
		goto out;
	/* From here on an op's launch call is call_of[op]: the correlation
	 * table goes back before the views and statistics allocate their
	 * arrays, which then reuse its just-freed pages (fresh pages cost
	 * 2-4 s per GB on the virtual machines measured; recently freed ones
	 * a tenth of that, bench/speed/run_report_bench.sh). */
	res->call_of = c.call_of;
	free(res->corr_index);
	res->corr_index = NULL;
	res->corr_index_n = 0;
	free(res->corr_sorted);
	res->corr_sorted = NULL;

	res->devices = calloc(n_dev ? n_dev : 1, sizeof(*res->devices));
	if (!res->devices) {
		rc = -ENOMEM;
		goto out;
	}
	/* The launch and kernel statistics need the launch calls only, not
	 * the views: they run on a thread of their own beside the device
	 * passes, or after them where no thread can be had. The kernel
	 * statistics follow the launch statistics (the launch cost) in the
	 * scratch block those are done with, before the graph advice takes it
	 * over: a block of their own was 80 MB of fresh memory on a 10M-op
	 * trace. */
	{
		struct launches_job lj = {.c = &c, .rc = 0};
		pthread_t lth;
		int lthreaded = pthread_create(&lth, NULL, launches_thread, &lj) == 0;

		for (i = 0; i < in->n_ops;) {
			/* end of this device's ops: ops are sorted by device,
			 * so a binary search instead of a walk over them */
			size_t j = i + 1, hi = in->n_ops;
			while (j < hi) {
				size_t mid = j + (hi - j) / 2;
				if (in->ops[mid].device == in->ops[i].device)
					j = mid + 1;
				else
					hi = mid;
			}
			rc = device_pass(&c, &res->devices[res->n_devices++], (uint32_t)i,
					 (uint32_t)j);
			if (rc)
				break;
			i = j;
		}
		if (lthreaded)
			pthread_join(lth, NULL);
		else if (!rc)
			launches_thread(&lj);
		if (!rc)
			rc = lj.rc;
	}
	if (rc)
		goto out;

	/* The graph advice only reads the context and writes res->advice:
	 * run it beside the other statistics when a thread can be had, else
	 * after them (struct advice_job). It takes over the scratch block the
	 * launch statistics are done with: those pages are faulted in already
	 * (a fresh block of its own cost the advice, the last thread to
	 * finish, a quarter of a second on a 10M-op trace). */
	{
		struct advice_job job = {.c = &c};
		pthread_t th;
		int threaded = pthread_create(&th, NULL, advice_thread, &job) == 0;

		rc = stats_syncs(&c);
		if (!rc && (!threaded || take_nvtx(&job)))
			rc = stats_nvtx(&c);
		if (threaded) {
			pthread_join(th, NULL);
			if (!rc)
				rc = job.rc ? job.rc : job.nvtx_rc;
		} else if (!rc) {
			rc = stats_graph_advice(&c);
		}
	}
out:
	actx_free(&c);
	if (rc)
		gs_result_free(res);
	return rc;
}
