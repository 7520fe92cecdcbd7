/*
 * test_wrap.c - the text report's line wrapping (report_common.c
 * report_put_wrapped): a line longer than REPORT_LINE_MAX (160) breaks at
 * the last space that fits, the rest indented by four more spaces, and
 * never between a figure and its unit of time.
 */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report.h"

/* report_put_wrapped of s, as a string (the caller frees it) */
static char *wrapped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_put_wrapped(f, s, strlen(s));
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* 150 x, then " 401.962 ms (7%)": 166 characters. Its last space within
 * 160 is the one inside "401.962 ms" (index 158); the figure keeps its unit,
 * so the line breaks at index 150 */
static void test_figure_keeps_its_unit(void **state)
{
	char in[200], want[200], *got;
	(void)state;

	memset(in, 'x', 150);
	strcpy(in + 150, " 401.962 ms (7%)");
	memset(want, 'x', 150);
	strcpy(want + 150, "\n    401.962 ms (7%)\n");
	got = wrapped(in);
	assert_string_equal(got, want);
	free(got);
}

/* a number before a word that is no unit is an ordinary break: 150 x,
 * then " 5 blocking calls" (167): the last space within 160 is index 152 */
static void test_other_words_break(void **state)
{
	char in[200], want[200], *got;
	(void)state;

	memset(in, 'x', 150);
	strcpy(in + 150, " 5 blocking calls");
	memset(want, 'x', 150);
	strcpy(want + 150, " 5\n    blocking calls\n");
	got = wrapped(in);
	assert_string_equal(got, want);
	free(got);
}

/* every unit the report prints: ns, us, µs, ms, s; a line that fits is as it was */
static void test_units_and_short_lines(void **state)
{
	static const char *const units[] = {"ns", "us", "\xc2\xb5s", "ms", "s"};
	char in[200], want[200], *got;
	size_t k;
	(void)state;

	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		memset(in, 'y', 155);
		snprintf(in + 155, sizeof(in) - 155, " 12 %s, end", units[k]);
		memset(want, 'y', 155);
		snprintf(want + 155, sizeof(want) - 155, "\n    12 %s, end\n", units[k]);
		got = wrapped(in);
		assert_string_equal(got, want);
		free(got);
	}
	got = wrapped("a short line 3 ms");
	assert_string_equal(got, "a short line 3 ms\n");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_figure_keeps_its_unit),
	    cmocka_unit_test(test_other_words_break),
	    cmocka_unit_test(test_units_and_short_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
