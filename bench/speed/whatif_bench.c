/*
 * whatif_bench.c - how long the what-if replay takes on a trace: loads it
 * (trace_load), analyses it (gs_analyze, as `gapscope whatif` does: the
 * launch calls and the graph advice), then times gs_whatif_run unchanged
 * (the model built and replayed once) and with --fix launch_overhead (built,
 * replayed, transformed, replayed again), ROUNDS times each; prints every
 * phase's wall time; then the verdict without and with the findings'
 * savings (gs_verdict_compute, gs_verdict_compute_corr), and the savings
 * alone (gs_whatif_verdict on the verdict without them): what the savings
 * add to the report. It prints figures; it asserts nothing.
 *   usage: gs_bench_whatif TRACE.db [rounds]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analysis.h"
#include "trace.h"
#include "trace_load.h"
#include "whatif.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the process's CPU time: on a shared machine the wall time says as much
 * about the other processes */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct trace t;
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	char err[512];
	int rounds = argc > 2 ? atoi(argv[2]) : 3, r;
	double t0, t1;

	if (argc < 2 || rounds < 1) {
		fprintf(stderr, "usage: gs_bench_whatif TRACE.db [rounds]\n");
		return 2;
	}
	trace_library_init();
	if (trace_open(&t, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "gs_bench_whatif: %s: %s\n", argv[1], err);
		return 2;
	}
	t0 = now();
	if (trace_load(&t, GS_LOAD_ALL, &in, err, sizeof(err)) < 0) {
		fprintf(stderr, "gs_bench_whatif: %s: %s\n", argv[1], err);
		return 2;
	}
	t1 = now();
	printf("load: %.3f s (%zu ops, %zu calls)\n", t1 - t0, in.n_ops, in.n_apis);
	gs_options_init(&opt);
	opt.all_gaps = 0;
	t0 = now();
	if (gs_analyze(&in, &opt, &res) < 0) {
		fprintf(stderr, "gs_bench_whatif: analysis failed\n");
		return 1;
	}
	t1 = now();
	printf("analysis: %.3f s\n", t1 - t0);
	for (r = 0; r < rounds; r++) {
		struct gs_whatif_opts o;
		struct gs_whatif w;
		double a, b, c, ca, cb, cc;
		gs_whatif_opts_init(&o);
		ca = cpu();
		a = now();
		if (gs_whatif_run(&res, &o, &w) < 0)
			return 1;
		b = now();
		cb = cpu();
		gs_whatif_free(&w);
		o.fixes = gs_whatif_fix_bit("launch_overhead");
		if (gs_whatif_run(&res, &o, &w) < 0)
			return 1;
		c = now();
		cc = cpu();
		printf("replay unchanged: %.3f s (cpu %.3f s); with launch_overhead (two replays):"
		       " %.3f s (cpu %.3f s); saving %.3f ms of %.3f ms\n",
		       b - a, cb - ca, c - b, cc - cb, (double)w.saving_ns / 1e6,
		       (double)w.before.window / 1e6);
		gs_whatif_free(&w);
	}
	/* the report's verdict without and with the findings' savings (one
	 * model, each finding's fix replayed on it): what the savings add to
	 * `gapscope report` */
	for (r = 0; r < rounds; r++) {
		struct gs_verdict v;
		double a, b, c, ca, cb, cc;
		size_t i;
		ca = cpu();
		a = now();
		gs_verdict_compute(&res, &v);
		b = now();
		cb = cpu();
		gs_verdict_compute_corr(&res, NULL, &v);
		c = now();
		cc = cpu();
		printf("verdict: %.3f s (cpu %.3f s); with the savings: %.3f s (cpu %.3f s):",
		       b - a, cb - ca, c - b, cc - cb);
		for (i = 0; i < v.n_findings; i++)
			printf(" %s%s", gs_rule_key(v.findings[i].rule),
			       v.findings[i].saves == GS_SAVES_REPLAYED ? " (replayed)" : "");
		printf("\n");
		/* the savings alone: the findings' fixes replayed on the
		 * verdict without them (what verdict_compute_corr adds) */
		gs_verdict_compute(&res, &v);
		ca = cpu();
		a = now();
		if (gs_whatif_verdict(&res, NULL, &v) < 0)
			return 1;
		b = now();
		cb = cpu();
		printf("savings alone (gs_whatif_verdict): %.3f s (cpu %.3f s)\n", b - a, cb - ca);
	}
	gs_result_free(&res);
	trace_input_free(&in);
	trace_close(&t);
	return 0;
}
