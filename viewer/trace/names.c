/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * names.c - demangling (libstdc++'s __cxa_demangle) and short labels for
 * kernel names; see names.h.
 *
 * It does not escape anything for DOT, SVG, HTML or JSON (the renderers do),
 * and it does not look names up in a trace.
 */
#include <stdlib.h>
#include <string.h>

#include "names.h"

/* The C++ ABI's demangler. <cxxabi.h> is a C++ header, but the function is
 * declared extern "C" there, so C can declare and call it; it lives in
 * libstdc++ (gs_viewer links stdc++). The result is malloc'ed: free() it. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* Longer mangled names are shown shortened from their encoding instead: the
 * demangler's time and memory grow with the name, and a kernel name this
 * long is not one a person reads anyway. */
#define DEMANGLE_MAX 65536

char *gs_demangle(const char *name)
{
	int status = 0;
	char *d;

	/* "_Z" is the Itanium prefix; __cxa_demangle would also "demangle" a
	 * plain identifier such as "i" (to "int"), which must stay as it is. */
	if (!name || strncmp(name, "_Z", 2) || strnlen(name, DEMANGLE_MAX) == DEMANGLE_MAX)
		return NULL;
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0 || !d || !*d) {
		free(d);
		return NULL;
	}
	return d;
}

/* ---- short names --------------------------------------------------------- */

struct sbuf {
	char *p;
	size_t len, cap; /* bytes used (without NUL) and size of p */
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	while (n-- && b->len + 1 < b->cap)
		b->p[b->len++] = *s++;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, UTF-8 */

/* Itanium-mangled, for names the demangler refuses (e.g. cut short): read
 * the function's (nested) name, stop at its template arguments ("<…>") or
 * its parameters. Returns 0 when the name was understood
 * well enough, -1 to fall back to the raw text. */
static int short_mangled(const char *s, struct sbuf *b)
{
	const char *p = s + 2;
	int nested = 0, parts = 0;

	if (*p == 'L')
		p++; /* internal linkage */
	if (*p == 'N') {
		nested = 1;
		p++;
		while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
			p++;
	}
	for (;;) {
		if (*p >= '0' && *p <= '9') {
			size_t n = 0;
			while (*p >= '0' && *p <= '9' && n < 100000)
				n = n * 10 + (size_t)(*p++ - '0');
			if (n == 0 || strnlen(p, n) < n)
				return -1;
			if (parts++)
				sb_puts(b, "::");
			if (n >= 12 && !strncmp(p, "_GLOBAL__N_", 11))
				sb_puts(b, "(anonymous namespace)");
			else
				sb_putn(b, p, n);
			p += n;
		} else if (p[0] == 'S' && p[1] == 't' && !parts) {
			sb_puts(b, "std");
			parts++;
			p += 2;
		} else if (*p == 'I' && parts) {
			sb_puts(b, "<" ELLIPSIS ">");
			return 0; /* what follows is template arguments, then parameters */
		} else {
			break;
		}
		if (!nested)
			break;
	}
	if (!parts)
		return -1;
	if (nested && *p != 'E')
		return -1;
	/* a plain name may still be a template: _Z3fooIfEvPT_ */
	if (!nested && *p == 'I')
		sb_puts(b, "<" ELLIPSIS ">");
	return 0;
}

/* Demangled (or source-like) name: drop the parameter list, the return type
 * and template arguments. Returns 0, or -1 when brackets do not balance. */
static int short_plain(const char *s, struct sbuf *b)
{
	size_t end = strlen(s), i, beg = 0;
	int depth;

	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	/* parameter list: the bracket group ending at the last ')' */
	for (i = end; i > 0; i--)
		if (s[i - 1] == ')')
			break;
	if (i > 0) {
		depth = 0;
		while (i > 0) {
			char c = s[--i];
			if (c == ')')
				depth++;
			else if (c == '(' && --depth == 0)
				break;
		}
		if (depth != 0)
			return -1;
		if (i > 0)
			end = i;
	}
	/* return type: everything up to the last space outside brackets */
	depth = 0;
	for (i = 0; i < end; i++) {
		char c = s[i];
		if (c == '<' || c == '(' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0)
			beg = i + 1;
	}
	/* template arguments at any nesting level of the qualified name; a '<'
	 * that opens a name component ("<lambda>", "ns::<unnamed>") is part of
	 * the name and is kept */
	depth = 0;
	{
		int literal = 0;
		for (i = beg; i < end; i++) {
			char c = s[i];
			if (c == '<') {
				if (depth++ == 0) {
					literal = i == beg || (i >= beg + 2 && s[i - 1] == ':' &&
							       s[i - 2] == ':');
					if (!literal)
						sb_puts(b, "<" ELLIPSIS ">");
				}
				if (literal)
					sb_putn(b, &c, 1);
			} else if (c == '>' && depth > 0) {
				depth--;
				if (literal)
					sb_putn(b, &c, 1);
			} else if (depth == 0 || literal) {
				sb_putn(b, &c, 1);
			}
		}
	}
	return depth == 0 && b->len > 0 ? 0 : -1;
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Length of the first "name::" outside brackets (so "A<x::y>::" and
 * "(anonymous namespace)::" are one qualifier), or 0 when there is none. */
static size_t first_qualifier(const char *s)
{
	int depth = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		char c = s[i];
		if (c == '<' || c == '(' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == ']') && depth > 0)
			depth--;
		else if (c == ':' && s[i + 1] == ':' && depth == 0 && i > 0)
			return i + 2;
	}
	return 0;
}

void gs_short_name(const char *name, char *out, size_t outlen, size_t max_chars)
{
	struct sbuf b = {out, 0, outlen};
	size_t i, chars = 0;

	if (!outlen)
		return;
	out[0] = '\0';
	if (!name)
		return;
	if (!strncmp(name, "_Z", 2)) {
		char *d = gs_demangle(name);
		if (d) {
			if (short_plain(d, &b) < 0) {
				b.len = 0;
				sb_puts(&b, d);
			}
			free(d);
		} else if (short_mangled(name, &b) < 0) {
			/* neither the demangler nor our reading of the encoding
			 * understood it: show it as recorded */
			b.len = 0;
			sb_puts(&b, name);
		}
	} else if (short_plain(name, &b) < 0) {
		b.len = 0;
		sb_puts(&b, name);
	}
	/* too long: drop leading qualifiers ("at::native::") first, as the
	 * last component is the name people know the kernel by; the tooltip
	 * keeps the full name */
	while (max_chars > 0 && utf8_chars(out) > max_chars) {
		size_t q = first_qualifier(out);
		if (!q)
			break;
		memmove(out, out + q, b.len - q + 1);
		b.len -= q;
	}
	/* cut at max_chars characters (UTF-8 aware), leaving room for "…" */
	for (i = 0; max_chars > 0 && i < b.len; i++) {
		if (((unsigned char)out[i] & 0xc0) == 0x80)
			continue;
		if (chars++ == max_chars) {
			/* step back one character to make room for the ellipsis */
			size_t cut = i;
			do
				cut--;
			while (cut > 0 && ((unsigned char)out[cut] & 0xc0) == 0x80);
			b.len = cut;
			out[cut] = '\0';
			if (b.len + sizeof(ELLIPSIS) <= outlen)
				sb_puts(&b, ELLIPSIS);
			break;
		}
	}
	out[b.len] = '\0';
}
