/*
 * test_reference.c - cmocka tests of gs_reference_compare
 * (viewer/analysis/reference.c): NVTX range walls of a trace against
 * untraced reference runs, matched by text. The traced side is a hand-made
 * result (two range texts); every expected figure is worked out in the
 * comments. No database.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <cmocka.h>

#include "analysis.h"
#include "correct.h"
#include "reference.h"
#include "gapscope/trace_format.h"

/* traced: "step" x 2 (ids 1), "load" x 1 (id 2) */
static const char *traced_str[] = {NULL, "step", "load"};
static struct gs_nvtx_stat traced_stats[] = {{1, 2, 900, 0, 0.0}, {2, 1, 50, 0, 0.0}};

static void traced(struct gs_input *in, struct gs_result *res)
{
	memset(in, 0, sizeof(*in));
	memset(res, 0, sizeof(*res));
	in->strings.v = traced_str;
	in->strings.n = 3;
	res->nvtx = traced_stats;
	res->n_nvtx = 2;
}

static struct gs_nvtx range(int64_t s, int64_t e, uint32_t text, uint8_t kind)
{
	struct gs_nvtx n;

	memset(&n, 0, sizeof(n));
	n.start = s;
	n.end = e;
	n.text_id = text;
	n.tid = 1;
	n.kind = kind;
	return n;
}

/* a reference run's input: its strings and NVTX rows */
static void run_of(struct gs_input *x, const char **str, uint32_t n_str, struct gs_nvtx *n,
		   size_t n_n)
{
	memset(x, 0, sizeof(*x));
	x->strings.v = str;
	x->strings.n = n_str;
	x->nvtx = n;
	x->n_nvtx = n_n;
}

/* Run A: the texts under other ids ("load" 1, "step" 3, "other" 2):
 *   step [0,300] + [400,700] = 600 (2 ranges, as traced), a mark "step" at
 *   800 (not a range: left out), "other" [0,1000] (not traced: left out),
 *   load [0,40] -> 40.
 * Run B: step [0,500] -> 500 (1 range against 2: count differs); no load.
 * Run C: step [0,350] + [350,700] = 700; load [0,60] -> 60.
 * step: runs 3, {600, 500, 700} -> median 600, min 500, max 700, 1 differs.
 * load: runs 2 (A, C), {40, 60} -> median (40 + 60) / 2 = 50, min 40, max 60. */
static void test_matched_by_text(void **state)
{
	static const char *a_str[] = {NULL, "load", "other", "step"};
	static const char *b_str[] = {NULL, "step"};
	static const char *c_str[] = {NULL, "step", "load"};
	struct gs_nvtx a_n[5], b_n[1], c_n[3];
	struct gs_input in, a, b, c;
	const struct gs_input *refs[3] = {&a, &b, &c};
	struct gs_result res;
	struct gs_reference out;
	(void)state;

	traced(&in, &res);
	a_n[0] = range(0, 300, 3, GS_NVTX_RANGE);
	a_n[1] = range(400, 700, 3, GS_NVTX_RANGE);
	a_n[2] = range(800, 800, 3, GS_NVTX_MARK);
	a_n[3] = range(0, 1000, 2, GS_NVTX_RANGE);
	a_n[4] = range(0, 40, 1, GS_NVTX_RANGE);
	run_of(&a, a_str, 4, a_n, 5);
	b_n[0] = range(0, 500, 1, GS_NVTX_RANGE);
	run_of(&b, b_str, 2, b_n, 1);
	c_n[0] = range(0, 350, 1, GS_NVTX_RANGE);
	c_n[1] = range(350, 700, 1, GS_NVTX_RANGE);
	c_n[2] = range(0, 60, 2, GS_NVTX_RANGE);
	run_of(&c, c_str, 3, c_n, 3);

	assert_int_equal(gs_reference_compare(&in, &res, NULL, refs, 3, &out), 0);
	assert_int_equal(out.n_runs, 3);
	assert_int_equal(out.n_ranges, 2);
	assert_int_equal(out.ranges[0].runs, 3);
	assert_int_equal(out.ranges[0].untraced, 600);
	assert_int_equal(out.ranges[0].min, 500);
	assert_int_equal(out.ranges[0].max, 700);
	assert_int_equal(out.ranges[0].count_differs, 1);
	assert_int_equal(out.ranges[1].runs, 2);
	assert_int_equal(out.ranges[1].untraced, 50);
	assert_int_equal(out.ranges[1].min, 40);
	assert_int_equal(out.ranges[1].max, 60);
	assert_int_equal(out.ranges[1].count_differs, 0);
	/* against the untraced walls, not corrected: step 900 / 600 - 1 = 0.5,
	 * load 50 / 50 - 1 = 0; no GPU busy */
	assert_true(out.ranges[0].have_errors && !out.ranges[0].have_corrected);
	assert_true(out.ranges[0].traced_error > 0.5 - 1e-12 &&
		    out.ranges[0].traced_error < 0.5 + 1e-12);
	assert_true(out.ranges[1].traced_error > -1e-12 && out.ranges[1].traced_error < 1e-12);
	assert_int_equal(out.ranges[0].busy, 0);
	gs_reference_free(&out);
	assert_null(out.ranges);
}

/* The same runs against a corrected trace: step corrected 660 (660 / 600 - 1
 * = 0.1), GPU busy 300 less 60 of kernel time taken off = 240 (as
 * gs_correct gives it in gs_corrected_range.busy; 240 / 600 = 0.4); load
 * corrected 45 (45 / 50 - 1 = -0.1). */
static void test_corrected_figures_against_untraced(void **state)
{
	static const char *a_str[] = {NULL, "step", "load"};
	struct gs_nvtx a_n[3];
	struct gs_nvtx_stat stats[2] = {{1, 2, 900, 300, 0.0}, {2, 1, 50, 0, 0.0}};
	struct gs_corrected_range cr[2] = {{1, 2, 900, 660, 60, 240, 240.0 / 660.0},
					   {2, 1, 50, 45, 0, 0, 0.0}};
	struct gs_corrected corr;
	struct gs_input in, a;
	const struct gs_input *refs[1] = {&a};
	struct gs_result res;
	struct gs_reference out;
	(void)state;

	traced(&in, &res);
	res.nvtx = stats;
	memset(&corr, 0, sizeof(corr));
	corr.ranges = cr;
	corr.n_ranges = 2;
	a_n[0] = range(0, 300, 1, GS_NVTX_RANGE);
	a_n[1] = range(400, 700, 1, GS_NVTX_RANGE);
	a_n[2] = range(0, 50, 2, GS_NVTX_RANGE);
	run_of(&a, a_str, 3, a_n, 3);
	assert_int_equal(gs_reference_compare(&in, &res, &corr, refs, 1, &out), 0);
	assert_int_equal(out.ranges[0].untraced, 600);
	assert_true(out.ranges[0].have_corrected);
	assert_true(out.ranges[0].corrected_error > 0.1 - 1e-12 &&
		    out.ranges[0].corrected_error < 0.1 + 1e-12);
	assert_int_equal(out.ranges[0].busy, 240);
	assert_true(out.ranges[0].busy_share > 0.4 - 1e-12 &&
		    out.ranges[0].busy_share < 0.4 + 1e-12);
	assert_true(out.ranges[1].corrected_error > -0.1 - 1e-12 &&
		    out.ranges[1].corrected_error < -0.1 + 1e-12);
	gs_reference_free(&out);
}

/* A run without any of the traced texts: runs 0, untraced -1. */
/* The trace's selection --range step --skip 1 (traced "step" x 2, as if
 * three were recorded and the first left out): each run leaves out its
 * first "step" too. Run A: step [0,900] (the warm-up), [1000,1300],
 * [1400,1700] -> 600 over 2 ranges; load [0,40] is no "step": kept (40).
 * Run B: step [0,500] alone -> all left out: no figure from B for step. */
static void test_skip_leaves_the_runs_first_ranges_out(void **state)
{
	static const char *a_str[] = {NULL, "step", "load"};
	static const char *b_str[] = {NULL, "step"};
	struct gs_nvtx a_n[4], b_n[1];
	struct gs_input in, a, b;
	const struct gs_input *refs[2] = {&a, &b};
	struct gs_result res;
	struct gs_reference out;
	(void)state;

	traced(&in, &res);
	res.range_name = "step";
	res.range_skipped = 1;
	a_n[0] = range(1000, 1300, 1, GS_NVTX_RANGE);
	a_n[1] = range(0, 900, 1, GS_NVTX_RANGE);
	a_n[2] = range(1400, 1700, 1, GS_NVTX_RANGE);
	a_n[3] = range(0, 40, 2, GS_NVTX_RANGE);
	run_of(&a, a_str, 3, a_n, 4);
	b_n[0] = range(0, 500, 1, GS_NVTX_RANGE);
	run_of(&b, b_str, 2, b_n, 1);
	assert_int_equal(gs_reference_compare(&in, &res, NULL, refs, 2, &out), 0);
	assert_int_equal(out.ranges[0].runs, 1);
	assert_int_equal(out.ranges[0].untraced, 600);
	assert_int_equal(out.ranges[0].count_differs, 0);
	assert_int_equal(out.ranges[1].runs, 1);
	assert_int_equal(out.ranges[1].untraced, 40);
	gs_reference_free(&out);
}

static void test_no_match(void **state)
{
	static const char *x_str[] = {NULL, "warmup"};
	struct gs_nvtx x_n[1];
	struct gs_input in, x;
	const struct gs_input *refs[1] = {&x};
	struct gs_result res;
	struct gs_reference out;
	(void)state;

	traced(&in, &res);
	x_n[0] = range(0, 100, 1, GS_NVTX_RANGE);
	run_of(&x, x_str, 2, x_n, 1);
	assert_int_equal(gs_reference_compare(&in, &res, NULL, refs, 1, &out), 0);
	assert_int_equal(out.ranges[0].runs, 0);
	assert_int_equal(out.ranges[0].untraced, -1);
	assert_int_equal(out.ranges[1].untraced, -1);
	gs_reference_free(&out);
}

static void test_bad_arguments(void **state)
{
	struct gs_input in;
	struct gs_result res;
	struct gs_reference out;
	const struct gs_input *refs[1] = {&in};
	(void)state;

	traced(&in, &res);
	assert_int_equal(gs_reference_compare(&in, &res, NULL, refs, 0, &out), -EINVAL);
	assert_int_equal(gs_reference_compare(&in, NULL, NULL, refs, 1, &out), -EINVAL);
	assert_int_equal(gs_reference_compare(&in, &res, NULL, NULL, 1, &out), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_matched_by_text),
	    cmocka_unit_test(test_corrected_figures_against_untraced),
	    cmocka_unit_test(test_skip_leaves_the_runs_first_ranges_out),
	    cmocka_unit_test(test_no_match),
	    cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
