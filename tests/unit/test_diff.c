/*
 * test_diff.c - comparing the fixture's "before" and "after" runs
 * (test_export_fixture.c): totals, names matched across runs, relative
 * changes, and the text and JSON writers (JSON parsed back with jansson).
 *
 * By hand: before = window [2000, 11200] 9200 ns, busy 4600, idle 4600
 * (sync-bound 4000 in 3 gaps, other 600 in 2), 4 launch calls, 4 kernels.
 * After = ops cover [2000, 5100] and [5200, 5900]: window 3900, busy 3800,
 * one gap [5100, 5200) sync-bound (cudaStreamSynchronize [3100, 5800] in
 * progress), 4 launch calls, 4 kernels. Kernel "ядро_λ" 900 -> 700 ns;
 * the NVTX range 9000 -> 5100 ns of wall time, GPU busy inside it 3900
 * ([2000,9900] minus the gaps) -> 3800 ns.
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
	assert_int_equal(b->idle_by_cause[GS_CAUSE_SYNC_BOUND], 4000);
	assert_int_equal(b->idle_by_cause[GS_CAUSE_OTHER], 600);
	assert_int_equal(b->gaps_by_cause[GS_CAUSE_SYNC_BOUND], 3);
	assert_int_equal(b->gaps, 5);
	assert_int_equal(b->launches, 4);
	assert_int_equal(b->kernels, 4);
	assert_true(fabs(b->utilisation - 0.5) < 1e-12);
	assert_true(fabs(b->launch_overhead_share) < 1e-12);

	assert_int_equal(a->wall, 3900);
	assert_int_equal(a->busy, 3800);
	assert_int_equal(a->idle, 100);
	assert_int_equal(a->idle_by_cause[GS_CAUSE_SYNC_BOUND], 100);
	assert_int_equal(a->gaps, 1);
	assert_int_equal(a->launches, 4);
	assert_true(fabs(a->utilisation - 3800.0 / 3900.0) < 1e-12);
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

static char *text(struct fx *fx)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	diff_write_text(f, &fx->d, "before.db", "after.db", 10);
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
	assert_non_null(strstr(
	    s, "     900 ns ->    700 ns   -22.2%       1 ->      1  " FIX_KERNEL_UTF8 "\n"));
	/* the NVTX text's newline and \x01 are printed as '?', the invalid
	 * UTF-8 byte of a kernel name too */
	assert_non_null(strstr(s, "step \"one\", back\\slash?line2?\n"));
	assert_non_null(strstr(s, "bad?utf8\n"));
	free(s);
}

static void test_json_output_parses_back(void **state)
{
	struct fx *fx = *state;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	json_error_t jerr;
	json_t *j, *wall, *k;

	assert_int_equal(diff_write_json(f, &fx->d, "before.db", "after.db"), 0);
	fclose(f);
	j = json_loads(buf, 0, &jerr);
	assert_non_null(j);
	wall = json_object_get(json_object_get(j, "totals"), "wall_ns");
	assert_int_equal(json_integer_value(json_object_get(wall, "before")), 9200);
	assert_int_equal(json_integer_value(json_object_get(wall, "after")), 3900);
	assert_int_equal(json_integer_value(json_object_get(wall, "change")), -5300);
	assert_true(fabs(json_real_value(json_object_get(wall, "relative")) + 5300.0 / 9200.0) <
		    1e-12);
	/* no relative change from zero: null */
	assert_true(json_is_null(json_object_get(
	    json_object_get(json_object_get(json_object_get(j, "totals"), "idle_by_cause_ns"),
			    "launch-bound"),
	    "relative")));
	k = json_object_get(j, "kernels");
	assert_int_equal(json_array_size(k), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(k, 2), "name")),
			    FIX_KERNEL_SCRIPT);
	assert_string_equal(json_string_value(json_object_get(json_array_get(k, 3), "name")),
			    "bad\xef\xbf\xbdutf8");
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(json_object_get(j, "nvtx"), 0), "name")),
			    FIX_NVTX_TEXT);
	json_decref(j);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_relative_change),
	    cmocka_unit_test_setup_teardown(test_totals_of_both_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_names_are_matched_across_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_text_output, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_json_output_parses_back, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
