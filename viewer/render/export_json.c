/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * export_json.c - the small streaming JSON writer used by the Chrome
 * exporter and the HTML page: string literals with RFC 8259 escaping and
 * UTF-8 validation, and exact ns -> µs numbers.
 *
 * Hand-written rather than json_dumps() per string because the exporters
 * write millions of short strings and allocate nothing per string here;
 * tests/unit/test_export_json.c parses the output back with jansson. It
 * writes values only: the exporters write the structure around them.
 */
#include <inttypes.h>
#include <string.h>

#include "export.h"
#include "utf8.h"

void json_write_string(FILE *f, const char *str, size_t len, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0; /* bytes [run, i) are pending, to be written verbatim */

	putc('"', f);
	if (!s)
		len = 0;
	while (i < len) {
		unsigned char c = s[i];
		const char *esc = NULL;
		char u[7];
		int n;

		if (c >= 0x80) {
			n = utf8_sequence_length(s + i, len - i);
			if (n > 0) {
				i += (size_t)n;
				continue;
			}
			esc = "\xEF\xBF\xBD"; /* U+FFFD for the one bad byte */
		} else if (c == '"') {
			esc = "\\\"";
		} else if (c == '\\') {
			esc = "\\\\";
		} else if (c == '\n') {
			esc = "\\n";
		} else if (c == '\r') {
			esc = "\\r";
		} else if (c == '\t') {
			esc = "\\t";
		} else if (c < 0x20 || c == 0x7F ||
			   ((flags & JSON_HTML_SAFE) && (c == '<' || c == '>' || c == '&'))) {
			u[0] = '\\';
			u[1] = 'u';
			u[2] = '0';
			u[3] = '0';
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			u[6] = '\0';
			esc = u;
		} else {
			i++;
			continue;
		}
		if (i > run)
			fwrite(s + run, 1, i - run, f);
		fputs(esc, f);
		i++;
		run = i;
	}
	if (i > run)
		fwrite(s + run, 1, i - run, f);
	putc('"', f);
}

void json_write_cstr(FILE *f, const char *s, unsigned flags)
{
	json_write_string(f, s, s ? strlen(s) : 0, flags);
}

void json_write_ns_as_us(FILE *f, int64_t ns)
{
	/* Split in integer arithmetic: printf("%.3f", ns / 1e3) would round
	 * large timestamps (doubles hold 15-16 digits). */
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000, (unsigned)(a % 1000));
}
