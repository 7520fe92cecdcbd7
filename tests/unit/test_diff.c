/*
 * test_diff.c - comparing the fixture's "before" and "after" runs
 * (test_export_fixture.c): totals, names matched across runs, relative
 * changes, and the text and JSON writers (JSON parsed back with jansson).
 *
 * By hand (gap model v2; test_html.c's header cuts each gap): before =
 * window [2000, 11200] 9200 ns, busy 4600, idle 4600 = sync wait 2700 (1
 * gap: [6300,9000) of [6300,10000) in cudaStreamSynchronize [3500,9000])
 * + host code 500 ([9000,9500), 0 gaps) + launch latency 100 + 200 + 500
 * = 800 (2 gaps) + other 600 (2 gaps); launch overhead share 800/9200,
 * host code share 500/9200; 4 launch calls, 4 kernels.
 * After = ops cover [2000, 5100] and [5200, 5900]: window 3900, busy 3800,
 * one gap [5100, 5200) before kernel 3, whose cudaLaunchKernel [2700, 3000]
 * came before 5100 (the sync [3100, 5800] in progress does not explain an
 * op already enqueued): launch latency 100; launch overhead share
 * 100/3900; 4 launch calls, 4 kernels. Kernel "ядро_λ" 900 -> 700 ns;
 * the NVTX range 9000 -> 5100 ns of wall time, GPU busy inside it 3900
 * ([2000,9900] minus the gaps) -> 3800 ns.
 *
 * Phases of one trace (fixture variant 2, --before-range before_phase
 * [800, 11200], --after-range after_phase [20800, 26000]): the device
 * window of the whole trace is [2000, 25900]; a selection keeps its part
 * inside the ranges (docs/metrics.md, --range). Before: [2000, 11200] =
 * 9200 ns, the same gaps as variant 0 (the idle stretch between the phases,
 * [11200, 22000), leaves an empty piece in [800, 11200]): busy 4600, idle
 * 4600, 5 gaps, cut as in variant 0. After: [20800, 25900] = 5100 ns;
 * idle = [20800, 22000) + [25100, 25200) = 1300 in 2 gaps. The first is
 * host late (the launch call [21000, 21500] began after the GPU went idle
 * at 11200; thread 4243 made no CUDA call in [9800, 21000)): host code
 * [20800, 21000) 200, then launch latency [21000, 22000) 1000 (largest).
 * The second: kernel 3's call [22700, 23000] came before 25100: launch
 * latency 100. So host code 200 (0 gaps), launch latency 1100 (2 gaps);
 * busy 3800; utilisation 3800/5100; launch overhead share 1100/5100 =
 * 21.6% (before 800/9200 = 8.7%: +12.9 pt, +148.0%); host code share
 * 200/5100 = 3.9% (before 500/9200 = 5.4%: -1.5 pt, -27.8%). Wall
 * time is the ranges' length: 10400 -> 5200. Kernels and launch calls:
 * those of each phase, 4 and 4. NVTX ranges starting in each selection:
 * before_phase 10400 (busy 4600 inside), the fixture's range 9000 (busy
 * 3900) -> 5100 ([20900, 26000], busy 3800), after_phase 5200 (busy 3800).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "diff.h"
#include "render_html.h"
#include "test_export_fixture.h"

struct fx {
	char dir[64];
	char path[2][128];
	struct html_loaded run[2];
	struct diff_result d;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct gs_options opt;

	strcpy(fx->dir, "/tmp/gs_test_diff_XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	gs_options_init(&opt);
	for (int i = 0; i < 2; i++) {
		snprintf(fx->path[i], sizeof(fx->path[i]), "%s/run%d.db", fx->dir, i);
		if (fixture_write(fx->path[i], i) || html_load(&fx->run[i], fx->path[i], &opt))
			return -1;
	}
	if (diff_compute(&fx->run[0].res, &fx->run[1].res, &fx->d))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	diff_free(&fx->d);
	for (int i = 0; i < 2; i++) {
		html_unload(&fx->run[i]);
		unlink(fx->path[i]);
	}
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static void test_relative_change(void **state)
{
	(void)state;
	assert_true(fabs(diff_rel(2.0, 3.0) - 0.5) < 1e-12);
	assert_true(fabs(diff_rel(4.0, 1.0) + 0.75) < 1e-12);
	assert_true(isnan(diff_rel(0.0, 5.0)));
	assert_true(isnan(diff_rel(0.0, 0.0)));
}

static void test_totals_of_both_runs(void **state)
{
	struct fx *fx = *state;
	const struct run_totals *b = &fx->d.run[0], *a = &fx->d.run[1];

	assert_int_equal(b->wall, 9200);
	assert_int_equal(b->busy, 4600);
	assert_int_equal(b->idle, 4600);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_SYNC_WAIT], 2700);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_CUDA_API], 0);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_HOST_CODE], 500);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 800);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_GRAPH_INTERNAL], 0);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_DEPENDENCY], 0);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_OTHER], 600);
	assert_int_equal(b->gaps_by_cause[GS_CAUSE_SYNC_WAIT], 1);
	assert_int_equal(b->gaps_by_cause[GS_CAUSE_HOST_CODE], 0);
	assert_int_equal(b->gaps_by_cause[GS_CAUSE_LAUNCH_LATENCY], 2);
	assert_int_equal(b->gaps_by_cause[GS_CAUSE_OTHER], 2);
	assert_int_equal(b->gaps, 5);
	assert_int_equal(b->launches, 4);
	assert_int_equal(b->kernels, 4);
	assert_int_equal(b->launch_calls, 0);
	assert_true(fabs(b->utilisation - 0.5) < 1e-12);
	assert_true(fabs(b->launch_overhead_share - 800.0 / 9200.0) < 1e-12);
	assert_true(fabs(b->host_code_share - 500.0 / 9200.0) < 1e-12);

	assert_int_equal(a->wall, 3900);
	assert_int_equal(a->busy, 3800);
	assert_int_equal(a->idle, 100);
	assert_int_equal(a->idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(a->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 100);
	assert_int_equal(a->gaps_by_cause[GS_CAUSE_LAUNCH_LATENCY], 1);
	assert_int_equal(a->gaps, 1);
	assert_int_equal(a->launches, 4);
	assert_true(fabs(a->utilisation - 3800.0 / 3900.0) < 1e-12);
	assert_true(fabs(a->launch_overhead_share - 100.0 / 3900.0) < 1e-12);
	assert_true(fabs(a->host_code_share) < 1e-12);
}

static void test_names_are_matched_across_runs(void **state)
{
	struct fx *fx = *state;
	const struct diff_result *d = &fx->d;

	/* four kernels, ordered by their larger total */
	assert_int_equal(d->n_kernels, 4);
	assert_string_equal(d->kernels[0].name, FIX_KERNEL_TEMPLATE);
	assert_int_equal(d->kernels[0].total[0], 2000);
	assert_int_equal(d->kernels[0].total[1], 2000);
	assert_string_equal(d->kernels[1].name, FIX_KERNEL_UTF8);
	assert_int_equal(d->kernels[1].total[0], 900);
	assert_int_equal(d->kernels[1].total[1], 700);
	assert_int_equal(d->kernels[1].count[0], 1);
	assert_int_equal(d->kernels[1].count[1], 1);
	assert_string_equal(d->kernels[2].name, FIX_KERNEL_SCRIPT);
	assert_string_equal(d->kernels[3].name, FIX_KERNEL_BAD_UTF8);

	assert_int_equal(d->n_launches, 2);
	assert_string_equal(d->launches[0].name, "cudaLaunchKernel");
	assert_int_equal(d->launches[0].count[0], 3);
	assert_int_equal(d->launches[0].count[1], 3);
	assert_string_equal(d->launches[1].name, "cudaMemcpyAsync");

	assert_int_equal(d->n_nvtx, 1);
	assert_string_equal(d->nvtx[0].name, FIX_NVTX_TEXT);
	assert_int_equal(d->nvtx[0].wall[0], 9000);
	assert_int_equal(d->nvtx[0].wall[1], 5100);
	assert_true(fabs(d->nvtx[0].busy_share[0] - 3900.0 / 9000.0) < 1e-9);
	assert_true(fabs(d->nvtx[0].busy_share[1] - 3800.0 / 5100.0) < 1e-9);
}

static const struct diff_side runs_side[2] = {{"before.db", NULL}, {"after.db", NULL}};

static char *text(struct fx *fx)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	diff_write_text(f, &fx->d, runs_side, 10);
	fclose(f);
	return buf;
}

static void test_text_output(void **state)
{
	char *s = text(*state);

	assert_non_null(strstr(s, "\n  wall time (GPU span)               9.2 us       3.9 us      "
				  "-5.3 us    -57.6%\n"));
	assert_non_null(strstr(s, "\n  GPU utilisation                     50.0%        97.4%     "
				  "+47.4 pt    +94.9%\n"));
	assert_non_null(strstr(s, "\n    idle other                       600 ns         0 ns      "
				  "-600 ns   -100.0%\n"));
	/* 800 ns -> 100 ns: -700 ns, -87.5%; shares 8.7% -> 2.6% (-6.1 pt,
	 * 0.02564 / 0.08696 - 1 = -70.5%) and 5.4% -> 0.0% */
	assert_non_null(strstr(s, "\n    idle launch latency              800 ns       100 ns      "
				  "-700 ns    -87.5%\n"));
	assert_non_null(strstr(s, "\n    idle sync wait                   2.7 us         0 ns      "
				  "-2.7 us   -100.0%\n"));
	assert_non_null(strstr(s, "\n  launch overhead share                8.7%         2.6%      "
				  "-6.1 pt    -70.5%\n"));
	assert_non_null(strstr(s, "\n  host code share                      5.4%         0.0%      "
				  "-5.4 pt   -100.0%\n"));
	assert_non_null(strstr(
	    s, "     900 ns ->    700 ns   -22.2%       1 ->      1  " FIX_KERNEL_UTF8 "\n"));
	/* through the terminal sanitizer (term.h): the NVTX text's newline
	 * and \x01 are printed as \x0a and \x01, the invalid
	 * UTF-8 byte of a kernel name too */
	assert_non_null(strstr(s, "step \"one\", back\\slash\\x0aline2\\x01\n"));
	assert_non_null(strstr(s, "bad\\xffutf8\n"));
	free(s);
}

static void test_json_output_parses_back(void **state)
{
	struct fx *fx = *state;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	json_error_t jerr;
	json_t *j, *wall, *k, *idle;

	assert_int_equal(diff_write_json(f, &fx->d, runs_side), 0);
	fclose(f);
	j = json_loads(buf, 0, &jerr);
	assert_non_null(j);
	wall = json_object_get(json_object_get(j, "totals"), "wall_ns");
	assert_int_equal(json_integer_value(json_object_get(wall, "before")), 9200);
	assert_int_equal(json_integer_value(json_object_get(wall, "after")), 3900);
	assert_int_equal(json_integer_value(json_object_get(wall, "change")), -5300);
	assert_true(fabs(json_real_value(json_object_get(wall, "relative")) + 5300.0 / 9200.0) <
		    1e-12);
	/* the causes under their JSON keys (gs_cause_key); no relative
	 * change from zero: null */
	idle = json_object_get(json_object_get(j, "totals"), "idle_by_cause_ns");
	assert_int_equal(json_object_size(idle), 7);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(idle, "sync_wait"),
							    "before")),
			 2700);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(idle, "host_code"),
							    "before")),
			 500);
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(idle, "launch_latency"), "after")),
			 100);
	assert_true(json_is_null(json_object_get(json_object_get(idle, "dependency"), "relative")));
	assert_true(fabs(json_real_value(json_object_get(
			     json_object_get(json_object_get(j, "totals"), "host_code_share"),
			     "before")) -
			 500.0 / 9200.0) < 1e-12);
	k = json_object_get(j, "kernels");
	assert_int_equal(json_array_size(k), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(k, 2), "name")),
			    FIX_KERNEL_SCRIPT);
	assert_string_equal(json_string_value(json_object_get(json_array_get(k, 3), "name")),
			    "bad\xef\xbf\xbdutf8");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(j, "nvtx"), 0), "name")),
			    FIX_NVTX_TEXT);
	assert_true(json_is_null(json_object_get(j, "before_range")));
	assert_true(json_is_null(json_object_get(j, "after_range")));
	json_decref(j);
	free(buf);
}

static void test_text_shows_kernels_demangled_json_keeps_both(void **state)
{
	struct diff_kernel k = {.name = "_Z15gs_short_kernelPfPKfiff",
				.count = {2, 1},
				.total = {3000, 1000},
				.p50 = {1500, 1000}};
	struct diff_result d = {.kernels = &k, .n_kernels = 1};
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	json_error_t jerr;
	json_t *j, *jk;

	(void)state;
	diff_write_text(f, &d, runs_side, 10);
	fclose(f);
	/* 3 us -> 1 us is -66.7%; the name as the report shows it: short (the
	 * mangled name demangled, its parameter list dropped) */
	assert_non_null(strstr(buf, "\n       3 us ->      1 us   -66.7%       2 ->      1  "
				    "gs_short_kernel\n"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &n);
	assert_int_equal(diff_write_json(f, &d, runs_side), 0);
	fclose(f);
	j = json_loads(buf, 0, &jerr);
	assert_non_null(j);
	jk = json_array_get(json_object_get(j, "kernels"), 0);
	assert_string_equal(json_string_value(json_object_get(jk, "name")),
			    "_Z15gs_short_kernelPfPKfiff");
	assert_string_equal(json_string_value(json_object_get(jk, "demangled")),
			    "gs_short_kernel(float*, float const*, int, float, float)");
	json_decref(j);
	free(buf);
}

/* ---- two phases (NVTX ranges) of one trace ---------------------------- */

static int setup_phases(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct gs_options opt[2];
	const char *paths[2];

	strcpy(fx->dir, "/tmp/gs_test_diff_XXXXXX");
	if (!fx || !mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path[0], sizeof(fx->path[0]), "%s/phases.db", fx->dir);
	if (fixture_write(fx->path[0], 2))
		return -1;
	paths[0] = paths[1] = fx->path[0];
	gs_options_init(&opt[0]);
	gs_options_init(&opt[1]);
	opt[0].range_name = FIX_PHASE_BEFORE;
	opt[1].range_name = FIX_PHASE_AFTER;
	if (html_load_pair(fx->run, paths, opt) ||
	    diff_compute(&fx->run[0].res, &fx->run[1].res, &fx->d))
		return -1;
	*state = fx;
	return 0;
}

static int teardown_phases(void **state)
{
	struct fx *fx = *state;

	diff_free(&fx->d);
	html_unload(&fx->run[1]); /* shares run[0]'s trace */
	html_unload(&fx->run[0]);
	unlink(fx->path[0]);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static void test_phases_share_one_loaded_trace(void **state)
{
	struct fx *fx = *state;

	assert_ptr_equal(fx->run[1].input, fx->run[0].input);
	assert_ptr_equal(fx->run[1].trace, fx->run[0].trace);
	assert_int_equal(fx->run[0].res.range_matches, 1);
	assert_int_equal(fx->run[1].res.range_matches, 1);
}

static void test_phase_totals(void **state)
{
	struct fx *fx = *state;
	const struct run_totals *b = &fx->d.run[0], *a = &fx->d.run[1];

	assert_int_equal(b->range_applied, 1);
	assert_int_equal(b->range_total, 10400);
	assert_int_equal(b->wall, 10400);
	assert_int_equal(b->window, 9200);
	assert_int_equal(b->busy, 4600);
	assert_int_equal(b->idle, 4600);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_SYNC_WAIT], 2700);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_HOST_CODE], 500);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 800);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_OTHER], 600);
	assert_int_equal(b->gaps, 5);
	assert_int_equal(b->launches, 4);
	assert_int_equal(b->kernels, 4);

	assert_int_equal(a->range_total, 5200);
	assert_int_equal(a->wall, 5200);
	assert_int_equal(a->window, 5100);
	assert_int_equal(a->busy, 3800);
	assert_int_equal(a->idle, 1300);
	assert_int_equal(a->idle_by_cause[GS_CAUSE_HOST_CODE], 200);
	assert_int_equal(a->idle_by_cause[GS_CAUSE_LAUNCH_LATENCY], 1100);
	assert_int_equal(a->idle_by_cause[GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(a->gaps_by_cause[GS_CAUSE_LAUNCH_LATENCY], 2);
	assert_int_equal(a->gaps_by_cause[GS_CAUSE_HOST_CODE], 0);
	assert_int_equal(a->gaps, 2);
	assert_int_equal(a->launches, 4);
	assert_int_equal(a->kernels, 4);
	assert_true(fabs(a->utilisation - 3800.0 / 5100.0) < 1e-12);
	assert_true(fabs(a->launch_overhead_share - 1100.0 / 5100.0) < 1e-12);
	assert_true(fabs(a->host_code_share - 200.0 / 5100.0) < 1e-12);
}

static void test_phase_findings(void **state)
{
	struct fx *fx = *state;
	const struct diff_result *d = &fx->d;

	/* the verdicts: before, launch overhead 800 / 9200 = 8.7%, host code
	 * 5.4%, other 6.5%, one explicit sync: nothing fires; after, launch
	 * latency 1100 / 5100 = 21.6% >= 20%: launch overhead, 1100 ns (no
	 * API named). So one row, "-" -> 1100 */
	assert_int_equal(d->n_findings, 1);
	assert_int_equal(d->findings[0].rule, GS_RULE_LAUNCH);
	assert_null(d->findings[0].api);
	assert_int_equal(d->findings[0].cost[0], 0);
	assert_int_equal(d->findings[0].cost[1], 1100);
	assert_true(fabs(d->findings[0].share[1] - 1100.0 / 5100.0) < 1e-12);
}

static void test_phase_nvtx_and_kernels(void **state)
{
	struct fx *fx = *state;
	const struct diff_result *d = &fx->d;

	assert_int_equal(d->n_nvtx, 3);
	assert_string_equal(d->nvtx[0].name, FIX_PHASE_BEFORE);
	assert_int_equal(d->nvtx[0].wall[0], 10400);
	assert_int_equal(d->nvtx[0].wall[1], 0);
	assert_true(fabs(d->nvtx[0].busy_share[0] - 4600.0 / 10400.0) < 1e-9);
	assert_string_equal(d->nvtx[1].name, FIX_NVTX_TEXT);
	assert_int_equal(d->nvtx[1].wall[0], 9000);
	assert_int_equal(d->nvtx[1].wall[1], 5100);
	assert_true(fabs(d->nvtx[1].busy_share[1] - 3800.0 / 5100.0) < 1e-9);
	assert_string_equal(d->nvtx[2].name, FIX_PHASE_AFTER);
	assert_int_equal(d->nvtx[2].wall[0], 0);
	assert_int_equal(d->nvtx[2].wall[1], 5200);

	assert_int_equal(d->n_kernels, 4);
	assert_string_equal(d->kernels[1].name, FIX_KERNEL_UTF8);
	assert_int_equal(d->kernels[1].total[0], 900);
	assert_int_equal(d->kernels[1].total[1], 700);
}

static void test_phase_text_output(void **state)
{
	struct fx *fx = *state;
	const struct diff_side side[2] = {{"phases.db", FIX_PHASE_BEFORE},
					  {"phases.db", FIX_PHASE_AFTER}};
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	diff_write_text(f, &fx->d, side, 10);
	fclose(f);
	assert_non_null(strstr(s, "gapscope diff\n"
				  "  before: phases.db, NVTX range \"before_phase\": 1 range, "
				  "10.4 us in all\n"
				  "  after:  phases.db, NVTX range \"after_phase\": 1 range, "
				  "5.2 us in all\n\n"));
	assert_non_null(strstr(s, "\n  wall time (selected ranges)       10.4 us       5.2 us"
				  "      -5.2 us    -50.0%\n"));
	assert_non_null(strstr(s, "\n  GPU utilisation                     50.0%        74.5%"
				  "     +24.5 pt    +49.0%\n"));
	assert_non_null(strstr(s, "\n  launch overhead share                8.7%        21.6%"
				  "     +12.9 pt   +148.0%\n"));
	assert_non_null(strstr(s, "\n  host code share                      5.4%         3.9%"
				  "      -1.5 pt    -27.8%\n"));
	assert_non_null(strstr(s, "\n  idle                               4.6 us       1.3 us"
				  "      -3.3 us    -71.7%\n"));
	/* 800 ns -> 1100 ns: +300 ns, +37.5%; 500 -> 200: -300 ns, -60.0% */
	assert_non_null(strstr(s, "\n    idle launch latency              800 ns       1.1 us"
				  "      +300 ns    +37.5%\n"));
	assert_non_null(strstr(s, "\n    idle host code                   500 ns       200 ns"
				  "      -300 ns    -60.0%\n"));
	/* the findings: launch overhead fired after only, 1100 ns */
	assert_non_null(strstr(s, "\nverdict findings (the GPU idle each stood for, before -> "
				  "after; -: did not fire)\n"
				  "          - ->    1.1 us  launch overhead\n"));
	assert_non_null(strstr(s, "\n  idle gaps                               5            2"
				  "           -3    -60.0%\n"));
	/* the NVTX table leaves out the two selections (only -100% and new)
	 * and keeps the range both phases have */
	assert_non_null(strstr(s,
			       "\nNVTX ranges (wall before -> after, GPU busy share)\n"
			       "       9 us ->    5.1 us   -43.3%   43.3% ->  74.5%  step \"one\", "
			       "back\\slash\\x0aline2\\x01\n"));
	assert_null(strstr(s, "  " FIX_PHASE_BEFORE "\n"));
	assert_null(strstr(s, "  " FIX_PHASE_AFTER "\n"));
	assert_true(diff_nvtx_is_selection(FIX_PHASE_AFTER, FIX_PHASE_BEFORE, FIX_PHASE_AFTER));
	assert_false(diff_nvtx_is_selection(FIX_NVTX_TEXT, FIX_PHASE_BEFORE, FIX_PHASE_AFTER));
	/* one range on both sides: its row is a real comparison */
	assert_false(diff_nvtx_is_selection(FIX_PHASE_AFTER, FIX_PHASE_AFTER, FIX_PHASE_AFTER));
	assert_false(diff_nvtx_is_selection(FIX_PHASE_AFTER, NULL, FIX_PHASE_AFTER));
	free(s);
}

static void test_phase_json_names_the_ranges(void **state)
{
	struct fx *fx = *state;
	const struct diff_side side[2] = {{"phases.db", FIX_PHASE_BEFORE},
					  {"phases.db", FIX_PHASE_AFTER}};
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	json_error_t jerr;
	json_t *j, *tot;

	assert_int_equal(diff_write_json(f, &fx->d, side), 0);
	fclose(f);
	j = json_loads(buf, 0, &jerr);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "before_range")),
			    FIX_PHASE_BEFORE);
	assert_string_equal(json_string_value(json_object_get(j, "after_range")), FIX_PHASE_AFTER);
	tot = json_object_get(j, "totals");
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(tot, "wall_ns"), "after")), 5200);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(tot, "selected_ranges"), "before")),
	    1);
	json_decref(j);
	free(buf);
}

static void test_range_not_in_trace_is_bad_input(void **state)
{
	char dir[64] = "/tmp/gs_test_diff_XXXXXX", path[128];
	struct html_loaded r;
	struct gs_options opt;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/phases.db", dir);
	assert_int_equal(fixture_write(path, 2), 0);
	gs_options_init(&opt);
	opt.range_name = "no_such_phase";
	assert_int_equal(html_load(&r, path, &opt), 2);
	assert_int_equal(r.state, 0); /* nothing left loaded */
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_relative_change),
	    cmocka_unit_test_setup_teardown(test_totals_of_both_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_names_are_matched_across_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_text_output, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_json_output_parses_back, setup, teardown),
	    cmocka_unit_test(test_text_shows_kernels_demangled_json_keeps_both),
	    cmocka_unit_test_setup_teardown(test_phases_share_one_loaded_trace, setup_phases,
					    teardown_phases),
	    cmocka_unit_test_setup_teardown(test_phase_totals, setup_phases, teardown_phases),
	    cmocka_unit_test_setup_teardown(test_phase_findings, setup_phases, teardown_phases),
	    cmocka_unit_test_setup_teardown(test_phase_nvtx_and_kernels, setup_phases,
					    teardown_phases),
	    cmocka_unit_test_setup_teardown(test_phase_text_output, setup_phases, teardown_phases),
	    cmocka_unit_test_setup_teardown(test_phase_json_names_the_ranges, setup_phases,
					    teardown_phases),
	    cmocka_unit_test(test_range_not_in_trace_is_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
