/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * term.h - the one way a trace's string (or a file name) reaches a
 * terminal. A trace file is untrusted input: a kernel or NVTX name can hold
 * ESC (C0) or CSI/OSC (C1: U+009B, U+009D) sequences that move the cursor,
 * retitle the window or write to the clipboard. Everything printed for a
 * terminal - report and diff text, graph's lines, every gapscope: error
 * line - goes through here. It does not shorten names for layout (callers
 * say how much to print).
 */
#ifndef GAPSCOPE_TERM_H
#define GAPSCOPE_TERM_H

#include <stddef.h>
#include <stdio.h>

/* Escapes, so what is printed can be read back unambiguously:
 *   C0 controls (0x00..0x1f) and DEL      -> \xNN    ("\x1b", "\x0a")
 *   C1 controls U+0080..U+009F (C2 80..9F) -> \u00NN  ("\u009b")
 *   a byte that is not part of valid UTF-8 -> \xNN    (a lone 0x9b is CSI to
 *                                                      an 8-bit terminal)
 * Valid UTF-8 beyond U+009F and printable ASCII pass through. */

/* Write s (NULL: nothing) escaped to f. */
void term_put(FILE *f, const char *s);

/* Write at most max bytes of s (whole UTF-8 sequences) escaped to f.
 * Returns 1 when s was cut, 0 when all of it was written. */
int term_put_max(FILE *f, const char *s, size_t max);

/* s escaped into buf (always NUL-terminated, cut to fit on a character
 * boundary). Returns buf. */
char *term_str(char *buf, size_t n, const char *s);

#endif
