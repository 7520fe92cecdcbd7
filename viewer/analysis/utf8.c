/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * utf8.c - the shared UTF-8 check (utf8.h). No I/O.
 */
#include "utf8.h"

int utf8_sequence_length(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
	int len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0; /* continuation byte, C0/C1 (overlong) or F5..FF */
	/* RFC 3629 section 4: the second byte's range excludes overlong forms
	 * (E0, F0), UTF-16 surrogates (ED) and code points past U+10FFFF (F4). */
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if ((size_t)len > n)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}
