/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * export.h - the exporters' back ends: the streaming JSON writer with its
 * string escaping (export_json.c) and the Chrome/Perfetto trace
 * (export_chrome.c), fed by the walker of trace/export_walk.h. The walker
 * reads the database; nothing here does (no SQLite in render/).
 */
#ifndef GAPSCOPE_EXPORT_H
#define GAPSCOPE_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "export_walk.h" /* the walker the back ends are fed by */

/* ---- JSON writing (export_json.c) ---------------------------------- */

/* Flags of json_write_string(). */
enum {
	/* Also escape '<', '>' and '&' as \u003c, \u003e, \u0026 so the text
	 * can sit inside an HTML <script> element: no "</script>" or "<!--"
	 * can end or confuse the element, whatever a kernel is called. */
	JSON_HTML_SAFE = 1,
};

/* Write `len` bytes of `s` as one JSON string literal (with the quotes),
 * RFC 8259: '"' and '\\' escaped, \n \r \t as themselves, other control
 * characters below 0x20 and DEL as \u00XX; valid UTF-8 passes through and
 * every byte that is not part of a valid UTF-8 sequence (overlong forms,
 * surrogates, beyond U+10FFFF, truncated) becomes U+FFFD. s may be NULL
 * (written as ""). */
void json_write_string(FILE *f, const char *s, size_t len, unsigned flags);
/* Same, for a NUL-terminated string. */
void json_write_cstr(FILE *f, const char *s, unsigned flags);

/* Write a nanosecond count as microseconds with exactly three decimals
 * ("1234.567"): exact, no floating point on the way. */
void json_write_ns_as_us(FILE *f, int64_t ns);

/* ---- back ends ------------------------------------------------------ */

/* Fills *ev with idle gap number idx (0 <= idx < ngaps) of the caller's
 * analysis: kind EXPORT_EV_GAP, pid = device, start, end, name, cause_name,
 * detail (strings valid until the next call). Returns 0 or negative. */
typedef int (*export_gap_fn)(void *ctx, size_t idx, struct export_event *ev);

/* Chrome trace event JSON, streamed to f. When gap is not NULL, ngaps idle
 * gaps (sorted by device) are fetched one at a time and written to a
 * per-device "idle gaps" track. Returns 0, EXPORT_ERR_INPUT (a damaged
 * trace, see export_walk) or -1 (err filled). */
int export_chrome(struct trace *t, FILE *f, export_gap_fn gap, void *gap_ctx, size_t ngaps,
		  char *err, size_t errlen);

/* The GPU process id used for device d in Chrome traces (host pids are
 * below 2^22 on Linux, so these cannot collide). */
#define EXPORT_GPU_PID(d) (1000000000 + (int64_t)(d))

#endif
