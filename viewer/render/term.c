/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * term.c - the terminal sanitizer (term.h): escapes C0 and C1 controls and
 * bytes that are not UTF-8 in strings printed for a terminal. It decides
 * nothing about layout or truncation beyond what callers ask for.
 */
#include <string.h>

#include "utf8.h"
#include "term.h"

/* The next piece of s (len bytes left, len > 0): its escaped form in out
 * (NUL-terminated, at most 7 bytes), or out[0] = 0 when the *used bytes
 * pass through as they are. Returns the bytes of s consumed. */
static size_t next_piece(const unsigned char *s, size_t len, char out[8])
{
	int n;

	out[0] = '\0';
	if (s[0] < 0x20 || s[0] == 0x7f) {
		snprintf(out, 8, "\\x%02x", s[0]);
		return 1;
	}
	if (s[0] < 0x80)
		return 1;
	n = utf8_sequence_length(s, len);
	if (n == 0) { /* not UTF-8: as a byte, never raw */
		snprintf(out, 8, "\\x%02x", s[0]);
		return 1;
	}
	if (n == 2 && s[0] == 0xC2 && s[1] <= 0x9F) /* U+0080..U+009F: C1 */
		snprintf(out, 8, "\\u00%02x", s[1]);
	return (size_t)n;
}

int term_put_max(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len, i = 0, run = 0;
	char esc[8];

	if (!s)
		return 0;
	len = strlen(str);
	while (i < len) {
		size_t n = next_piece(s + i, len - i, esc);
		if (i + n > max)
			break;
		if (esc[0]) {
			if (i > run)
				fwrite(s + run, 1, i - run, f);
			fputs(esc, f);
			run = i + n;
		}
		i += n;
	}
	if (i > run)
		fwrite(s + run, 1, i - run, f);
	return i < len;
}

void term_put(FILE *f, const char *s)
{
	term_put_max(f, s, (size_t)-1);
}

char *term_str(char *buf, size_t cap, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len, i = 0, o = 0;
	char esc[8];

	if (!cap)
		return buf;
	buf[0] = '\0';
	if (!s)
		return buf;
	len = strlen(str);
	while (i < len) {
		size_t n = next_piece(s + i, len - i, esc);
		size_t w = esc[0] ? strlen(esc) : n;
		if (o + w >= cap)
			break;
		memcpy(buf + o, esc[0] ? (const void *)esc : (const void *)(s + i), w);
		o += w;
		i += n;
	}
	buf[o] = '\0';
	return buf;
}
