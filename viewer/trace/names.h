/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * names.h - kernel names for people: demangling and short labels.
 *
 * CUPTI reports kernel names as the compiler emitted them, usually
 * Itanium-mangled ("_Z13gs_dec_matvecPKjS0_S0_Pj"). gs_demangle() turns such a
 * name into C++ ("gs_dec_matvec(unsigned int const*, ...)") with libstdc++'s
 * demangler; gs_short_name() makes the short form drawn in labels. Every
 * output (graph, report, html, export) should use these two so that a kernel
 * reads the same everywhere. They do no escaping: that is each renderer's job.
 */
#ifndef GAPSCOPE_NAMES_H
#define GAPSCOPE_NAMES_H

#include <stddef.h>

/* The demangled form of an Itanium-mangled name ("_Z..."), as a malloc'ed
 * string the caller frees; NULL when name is NULL, is not mangled, or the
 * demangler does not understand it (then show the name as recorded). */
char *gs_demangle(const char *name);

/* Short label for a kernel name, written to out (always NUL-terminated): the
 * function's qualified name without return type, parameter list or template
 * arguments, which become "<…>". Mangled names are demangled first (and, if
 * the demangler refuses them, shortened from their encoding). E.g.
 * "void foo<float, 4>(float*, int)" -> "foo<…>",
 * "_Z13gs_dec_matvecPKjS0_S0_Pj" -> "gs_dec_matvec",
 * "_ZNSt6vectorIiE4sizeEv" -> "std::vector<…>::size".
 * A short name longer than max_chars characters loses its leading
 * qualifiers ("at::native::") one by one while it is too long and has any;
 * then it is cut and ends in "…" (max_chars 0: no limit other than outlen). */
void gs_short_name(const char *name, char *out, size_t outlen, size_t max_chars);

#endif
