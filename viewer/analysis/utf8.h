/*
 * Room viewer/analysis/: the analysis library, arrays in and results out, no I/O.
 *
 * utf8.h - the one UTF-8 check every room shares (trace names are
 * untrusted bytes): the CSV dump, the terminal sanitizer, the JSON and
 * HTML writers and the page loader all decide with it what is valid UTF-8
 * and what they replace or escape. It lives in the lowest room so each of
 * them can link it downward. No I/O.
 */
#ifndef GAPSCOPE_UTF8_H
#define GAPSCOPE_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence starting at s (1..4), or 0 when the
 * byte at s does not start one (RFC 3629 rules). n = bytes available. */
int utf8_sequence_length(const unsigned char *s, size_t n);

#endif
