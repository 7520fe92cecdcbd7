/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * verdict_text.c - words of the verdict that the text report, its JSON and
 * the HTML page share: the --range that its outside-the-ranges line names.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

char *report_range_name(const struct gs_input *in, const struct gs_verdict *v)
{
	const char *t = gs_str(&in->strings, v->range_text_id, "");
	const char *h = v->range_family ? strrchr(t, '#') : NULL;
	size_t len = h ? (size_t)(h - t) + 1 : strlen(t);
	char *s = malloc(len + 2);

	if (!s)
		return NULL;
	memcpy(s, t, len);
	if (h)
		s[len++] = '*';
	s[len] = '\0';
	return s;
}

/* a byte a shell takes as itself in a word */
static int shell_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_.,:/=+@%-", c));
}

int report_range_arg(char *buf, size_t n, const struct gs_input *in, const struct gs_verdict *v)
{
	char *name = report_range_name(in, v);
	size_t len = name ? strlen(name) : 0, i, k = 0;
	int plain = 1;

	if (!len || len > REPORT_RANGE_ARG_MAX || n < 4 * len + 3) {
		free(name);
		return 0;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c < 0x20 || c == 0x7f) { /* no one types it: not spelt out */
			free(name);
			return 0;
		}
		plain &= shell_plain(c);
	}
	if (!plain)
		buf[k++] = '\''; /* in single quotes, each quote as '\'' */
	for (i = 0; i < len; i++) {
		if (!plain && name[i] == '\'') {
			memcpy(buf + k, "'\\''", 4);
			k += 4;
		} else {
			buf[k++] = name[i];
		}
	}
	if (!plain)
		buf[k++] = '\'';
	buf[k] = '\0';
	free(name);
	return 1;
}
