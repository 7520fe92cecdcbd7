/*
 * test_export_json.c - the streaming JSON writer's string escaping
 * (RFC 8259, UTF-8 validation, the HTML-safe mode) and its ns -> µs
 * numbers. Expected texts are written out by hand; the valid ones are also
 * parsed back with jansson to check they are JSON that means the input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "export.h"

/* json_write_string(s, len, flags) into a new string (caller frees) */
static char *esc(const char *s, size_t len, unsigned flags)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	json_write_string(f, s, len, flags);
	fclose(f);
	return buf;
}

static void check(const char *in, size_t len, unsigned flags, const char *want)
{
	char *got = esc(in, len, flags);
	assert_string_equal(got, want);
	free(got);
}

/* the output parses back (jansson) to `decoded` */
static void check_roundtrip(const char *in, size_t len, unsigned flags, const char *decoded,
			    size_t declen)
{
	char *got = esc(in, len, flags);
	json_error_t jerr;
	json_t *j = json_loads(got, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);

	assert_non_null(j);
	assert_true(json_is_string(j));
	assert_int_equal(json_string_length(j), declen);
	assert_memory_equal(json_string_value(j), decoded, declen);
	json_decref(j);
	free(got);
}

static void test_quotes_and_backslashes_are_escaped(void **state)
{
	(void)state;
	check("a\"b\\c", 5, 0, "\"a\\\"b\\\\c\"");
	check_roundtrip("a\"b\\c", 5, 0, "a\"b\\c", 5);
	check("", 0, 0, "\"\"");
	check(NULL, 0, 0, "\"\"");
}

static void test_control_characters_are_escaped(void **state)
{
	(void)state;
	check("\n\r\t\x01\x1f\x7f", 6, 0, "\"\\n\\r\\t\\u0001\\u001f\\u007f\"");
	/* an embedded NUL is a control character too */
	check("a\0b", 3, 0, "\"a\\u0000b\"");
	check_roundtrip("x\ny\x01", 4, 0, "x\ny\x01", 4);
}

static void test_valid_utf8_passes_through(void **state)
{
	(void)state;
	/* 2-byte (я), 2-byte (λ), 3-byte (€), 4-byte (U+1F600) sequences */
	const char *s = "\xd1\x8f\xce\xbb\xe2\x82\xac\xf0\x9f\x98\x80";
	check(s, strlen(s), 0, "\"\xd1\x8f\xce\xbb\xe2\x82\xac\xf0\x9f\x98\x80\"");
	check_roundtrip(s, strlen(s), 0, s, strlen(s));
}

static void test_invalid_utf8_bytes_become_replacement_characters(void **state)
{
	(void)state;
#define R "\xef\xbf\xbd"
	check("a\xff"
	      "b",
	      3, 0, "\"a" R "b\"");
	/* overlong '/' (C0 AF): both bytes invalid */
	check("\xc0\xaf", 2, 0, "\"" R R "\"");
	/* UTF-16 surrogate U+D800 encoded (ED A0 80): three bad bytes */
	check("\xed\xa0\x80", 3, 0, "\"" R R R "\"");
	/* beyond U+10FFFF (F4 90 80 80) */
	check("\xf4\x90\x80\x80", 4, 0, "\"" R R R R "\"");
	/* truncated 3-byte sequence at the end */
	check("x\xe2\x82", 3, 0, "\"x" R R "\"");
	check_roundtrip("a\xff"
			"b",
			3, 0, "a" R "b", 5);
#undef R
}

static void test_html_safe_mode_hides_markup(void **state)
{
	(void)state;
	const char *s = "</script><!--&";
	check(s, strlen(s), JSON_HTML_SAFE, "\"\\u003c/script\\u003e\\u003c!--\\u0026\"");
	/* without the flag the text is left alone (it is still valid JSON) */
	check(s, strlen(s), 0, "\"</script><!--&\"");
	check_roundtrip(s, strlen(s), JSON_HTML_SAFE, s, strlen(s));
}

static void test_utf8_sequence_length_follows_rfc3629(void **state)
{
	(void)state;
	assert_int_equal(utf8_sequence_length((const unsigned char *)"A", 1), 1);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xc2\x80", 2), 2);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xc1\xbf", 2), 0);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xe0\x9f\xbf", 3), 0);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xe0\xa0\x80", 3), 3);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xed\x9f\xbf", 3), 3);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xf0\x8f\xbf\xbf", 4), 0);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xf4\x8f\xbf\xbf", 4), 4);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xf5\x80\x80\x80", 4), 0);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\xf0\x9f\x98", 3), 0);
	assert_int_equal(utf8_sequence_length((const unsigned char *)"\x80", 1), 0);
}

static char *us(int64_t ns)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	json_write_ns_as_us(f, ns);
	fclose(f);
	return buf;
}

static void test_ns_are_written_as_exact_microseconds(void **state)
{
	static const struct {
		int64_t ns;
		const char *want;
	} cases[] = {
	    {0, "0.000"},
	    {1, "0.001"},
	    {1234567, "1234.567"},
	    {-1500, "-1.500"},
	    /* a CUPTI timestamp: a double would round the last digits */
	    {INT64_C(1700000000123456789), "1700000000123456.789"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = us(cases[i].ns);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quotes_and_backslashes_are_escaped),
	    cmocka_unit_test(test_control_characters_are_escaped),
	    cmocka_unit_test(test_valid_utf8_passes_through),
	    cmocka_unit_test(test_invalid_utf8_bytes_become_replacement_characters),
	    cmocka_unit_test(test_html_safe_mode_hides_markup),
	    cmocka_unit_test(test_utf8_sequence_length_follows_rfc3629),
	    cmocka_unit_test(test_ns_are_written_as_exact_microseconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
