/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * json_str.h - one way to make a JSON string from trace bytes (kernel and
 * NVTX names are untrusted and may hold any bytes): valid UTF-8 is kept,
 * every other byte becomes U+FFFD. Defined in report_json.c.
 */
#ifndef GAPSCOPE_JSON_STR_H
#define GAPSCOPE_JSON_STR_H

#include <jansson.h>

/* json_null() for NULL; NULL only when out of memory */
json_t *render_json_str(const char *s);

#endif
