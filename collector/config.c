/*
 * config.c - the collector's configuration (GAPSCOPE_* environment
 * variables, read once at init) and output path templates. Its warnings go
 * through log.c, which every other file of the collector uses too.
 *
 * Every invalid value produces exactly one warning and falls back to the
 * default: a typo in an environment variable must never stop the profiled
 * application. Warnings are also remembered so the writer can store them in
 * the trace's meta table. Nothing here touches CUDA, CUPTI or SQLite.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ------------------------------------------------------------- env */

void gs_config_defaults(struct gs_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->output, sizeof(c->output), "%s", GS_DEFAULT_OUTPUT);
	c->activities = GS_ACT_DEFAULT;
	c->latency = 0;
	c->callsites = GS_CS_SYNCS;
	c->unwinder = GS_UNWIND_AUTO;
	c->native_frames = GS_NATIVE_AUTO;
	/* on: the GPU tests pass with it on, and no sampled run has crashed
	 * since samples stopped walking the stack (docs/record.md, "Sampling") */
	c->sampling = 1;
	c->sample_hz = GS_DEFAULT_SAMPLE_HZ;
	c->sample_clock = GS_SAMPLE_CLOCK_AUTO;
	c->sample_waits = 1;
	c->stack_cache = 1;
	c->sync_source = GS_SYNC_FROM_CALLBACKS;
	c->clock = GS_CLOCK_CUPTI;
	c->flush_ms = GS_DEFAULT_FLUSH_MS;
	c->log_level = GS_LOG_WARN;
	c->buffer_kb = GS_DEFAULT_BUFFER_KB;
}

/* Strict unsigned decimal: digits only, no sign, no trailing junk. */
static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static const char *const sample_clocks[] = {"auto", "timer", "perf"};

int gs_sample_clock_parse(const char *s, int *mode)
{
	int i;

	for (i = 0; i < 3; i++)
		if (strcmp(s, sample_clocks[i]) == 0) {
			*mode = i; /* the order of enum gs_sample_clock */
			return 0;
		}
	return -1;
}

const char *gs_sample_clock_str(int mode)
{
	return mode >= 0 && mode < 3 ? sample_clocks[mode] : "auto";
}

static int parse_log_level(const char *s)
{
	static const char *const names[] = {"quiet", "warn", "info", "debug"};
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

int gs_config_from_env(struct gs_config *c, gs_getenv_fn get, void *ctx)
{
	const char *v;
	int bad = 0;

	gs_config_defaults(c);

	/* The log level first, so that GAPSCOPE_LOG=quiet also silences the
	 * warnings about the other variables. */
	v = get("GAPSCOPE_LOG", ctx);
	if (v && *v) {
		int l = parse_log_level(v);
		if (l < 0) {
			gs_warn("config.log",
				"GAPSCOPE_LOG=\"%.64s\" is not one of quiet, warn, info, debug; "
				"using warn",
				v);
			bad++;
		} else {
			c->log_level = l;
		}
	}
	gs_log_set_level(c->log_level);

	v = get("GAPSCOPE_OUTPUT", ctx);
	if (v && *v) {
		char tmp[4096], err[160];
		/* Check the syntax now (with dummy values) so a bad template
		 * warns once at init rather than losing the trace at the end. */
		if (strlen(v) >= sizeof(c->output) ||
		    gs_path_expand(v, tmp, sizeof(tmp), 1, "h", get, ctx, err, sizeof(err)) != 0) {
			char shown[112];
			size_t n = strlen(v);
			/* a long value is shown by its start and its end, where the
			 * mistake usually is, and its length: the whole warning
			 * fits its line (it was cut mid-sentence) */
			if (n <= 96)
				snprintf(shown, sizeof(shown), "\"%s\"", v);
			else
				snprintf(shown, sizeof(shown), "\"%.48s...%s\" (%zu bytes)", v,
					 v + n - 40, n);
			if (strlen(v) >= sizeof(c->output))
				snprintf(err, sizeof(err), "longer than %zu bytes",
					 sizeof(c->output) - 1);
			gs_warn("config.output", "GAPSCOPE_OUTPUT=%s: %s; using \"%s\"", shown, err,
				GS_DEFAULT_OUTPUT);
			bad++;
		} else {
			snprintf(c->output, sizeof(c->output), "%s", v);
		}
	}

	v = get("GAPSCOPE_ACTIVITIES", ctx);
	if (v && *v) {
		unsigned act;
		if (gs_activities_parse(v, &act) != 0) {
			char words[160];
			gs_activities_words(words, sizeof(words));
			/* the words from the parser's own table: event and stream
			 * were missing from a list written out by hand */
			gs_warn("config.activities",
				"GAPSCOPE_ACTIVITIES=\"%.64s%s\" is not a comma list of %s or "
				"\"all\"; using the default",
				v, strlen(v) > 64 ? "..." : "", words);
			bad++;
		} else {
			c->activities = act;
		}
	}

	v = get("GAPSCOPE_LATENCY", ctx);
	if (v && *v) {
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
			c->latency = v[0] == '1';
		} else {
			gs_warn("config.latency",
				"GAPSCOPE_LATENCY=\"%.64s\" is not 0 or 1; using 0", v);
			bad++;
		}
	}

	v = get("GAPSCOPE_CALLSITES", ctx);
	if (v && *v) {
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0 || strcmp(v, "2") == 0) {
			c->callsites = v[0] - '0';
		} else {
			gs_warn("config.callsites",
				"GAPSCOPE_CALLSITES=\"%.64s\" is not 0, 1 or 2; using 1", v);
			bad++;
		}
	}

	v = get("GAPSCOPE_SAMPLING", ctx);
	if (v && *v) {
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
			c->sampling = v[0] - '0';
		} else {
			gs_warn("config.sampling", "GAPSCOPE_SAMPLING=\"%.64s\" is not 0 or 1; using 1",
				v);
			bad++;
		}
	}

	v = get("GAPSCOPE_SAMPLE_HZ", ctx);
	if (v && *v) {
		char *end;
		unsigned long hz = strtoul(v, &end, 10);
		if (*end || end == v || v[0] == '-' || hz < 1 || hz > GS_MAX_SAMPLE_HZ) {
			gs_warn("config.sample_hz",
				"GAPSCOPE_SAMPLE_HZ=\"%.64s\" is not a whole number from 1 to %u; "
				"using %u",
				v, GS_MAX_SAMPLE_HZ, GS_DEFAULT_SAMPLE_HZ);
			bad++;
		} else {
			c->sample_hz = (unsigned)hz;
		}
	}

	v = get("GAPSCOPE_SAMPLE_WAITS", ctx);
	if (v && *v) {
		if ((v[0] == '0' || v[0] == '1') && !v[1]) {
			c->sample_waits = v[0] - '0';
		} else {
			gs_warn("config.sample_waits",
				"GAPSCOPE_SAMPLE_WAITS=\"%.64s\" is not 0 or 1; using 1", v);
			bad++;
		}
	}

	v = get("GAPSCOPE_SAMPLE_CLOCK", ctx);
	if (v && *v) {
		if (gs_sample_clock_parse(v, &c->sample_clock) != 0) {
			gs_warn("config.sample_clock",
				"GAPSCOPE_SAMPLE_CLOCK=\"%.64s\" is not auto, timer or perf; using "
				"auto",
				v);
			bad++;
		}
	}

	v = get("GAPSCOPE_UNWINDER", ctx);
	if (v && *v) {
		if (gs_unwinder_parse(v, &c->unwinder) != 0) {
			gs_warn("config.unwinder",
				"GAPSCOPE_UNWINDER=\"%.64s\" is not auto, libgcc or libunwind; "
				"using auto",
				v);
			bad++;
		}
	}

	v = get("GAPSCOPE_NATIVE_FRAMES", ctx);
	if (v && *v) {
		if (gs_native_frames_parse(v, &c->native_frames) != 0) {
			gs_warn(
			    "config.native_frames",
			    "GAPSCOPE_NATIVE_FRAMES=\"%.64s\" is not auto or always; using auto",
			    v);
			bad++;
		}
	}

	v = get("GAPSCOPE_STACK_CACHE", ctx);
	if (v && *v) {
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
			c->stack_cache = v[0] - '0';
		} else {
			gs_warn("config.stack_cache",
				"GAPSCOPE_STACK_CACHE=\"%.64s\" is not 0 or 1; using 1", v);
			bad++;
		}
	}

	v = get("GAPSCOPE_SYNC_SOURCE", ctx);
	if (v && *v) {
		if (gs_sync_source_parse(v, &c->sync_source) != 0) {
			gs_warn("config.sync_source",
				"GAPSCOPE_SYNC_SOURCE=\"%.64s\" is not callbacks or cupti; using "
				"callbacks",
				v);
			bad++;
		}
	}

	v = get("GAPSCOPE_CAPTURE_DRIVER_LAUNCHES", ctx);
	if (v && *v) {
		if (strcmp(v, "always") == 0 || strcmp(v, "windows") == 0) {
			c->capture_driver = v[0] == 'w';
		} else {
			gs_warn("config.capture_driver_launches",
				"GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=\"%.64s\" is not always or "
				"windows; using always",
				v);
			bad++;
		}
	}

	v = get("GAPSCOPE_CAPTURE_RANGE", ctx);
	if (v && *v) {
		if (gs_capture_range_parse(v, &c->capture_range) != 0) {
			gs_warn("config.capture_range",
				"GAPSCOPE_CAPTURE_RANGE=\"%.64s\" is not none or cudaProfilerApi; "
				"recording the whole run",
				v);
			bad++;
		}
	}

	v = get("GAPSCOPE_CLOCK", ctx);
	if (v && *v) {
		if (gs_clock_parse(v, &c->clock) != 0) {
			gs_warn("config.clock",
				"GAPSCOPE_CLOCK=\"%.64s\" is not cupti or realtime; using %s", v,
				c->clock == GS_CLOCK_REALTIME ? "realtime" : "cupti");
			bad++;
		}
	}

	v = get("GAPSCOPE_GRAPH_LEVEL", ctx);
	if (v && *v) {
		if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
			c->graph_level = v[0] == '1';
		} else {
			gs_warn("config.graph_level",
				"GAPSCOPE_GRAPH_LEVEL=\"%.64s\" is not 0 or 1; using 0", v);
			bad++;
		}
	}

	v = get("GAPSCOPE_FLUSH_MS", ctx);
	if (v && *v) {
		unsigned ms;
		if (parse_uint(v, 0, GS_MAX_FLUSH_MS, &ms) != 0) {
			gs_warn("config.flush_ms",
				"GAPSCOPE_FLUSH_MS=\"%.64s\" is not a number of milliseconds "
				"(0..%u); using %u",
				v, GS_MAX_FLUSH_MS, GS_DEFAULT_FLUSH_MS);
			bad++;
		} else {
			c->flush_ms = ms;
		}
	}

	/* set by `gapscope record`, not by users: no warning, 0 if unusable */
	v = get("GAPSCOPE_RECORD_START_NS", ctx);
	if (v && *v) {
		char *end = NULL;
		long long ns;
		errno = 0;
		ns = strtoll(v, &end, 10);
		if (errno == 0 && end != v && *end == '\0' && ns > 0)
			c->run_start_ns = ns;
	}

	v = get("GAPSCOPE_BUFFER_KB", ctx);
	if (v && *v) {
		unsigned kb;
		if (parse_uint(v, GS_MIN_BUFFER_KB, GS_MAX_BUFFER_KB, &kb) != 0) {
			gs_warn(
			    "config.buffer_kb",
			    "GAPSCOPE_BUFFER_KB=\"%.64s\" is not a size in KiB (%u..%u); using %u",
			    v, GS_MIN_BUFFER_KB, GS_MAX_BUFFER_KB, GS_DEFAULT_BUFFER_KB);
			bad++;
		} else {
			c->buffer_kb = kb;
		}
	}
	return bad;
}

/* ------------------------------------------------------------- path template */

static int put(char *out, size_t outlen, size_t *used, const char *s, size_t n)
{
	if (*used + n >= outlen)
		return -1;
	memcpy(out + *used, s, n);
	*used += n;
	out[*used] = '\0';
	return 0;
}

/* v: a whole decimal number 0 <= v < 2^31, nothing else (no sign, no
 * spaces: "03" is 3, "3x", "-1" and "" are not numbers) */
static int env_whole(const char *v, int64_t *out)
{
	int64_t x = 0;
	size_t i;

	if (!v || !*v || strlen(v) > 10)
		return 0;
	for (i = 0; v[i]; i++) {
		if (v[i] < '0' || v[i] > '9')
			return 0;
		x = x * 10 + (v[i] - '0');
	}
	if (x > INT32_MAX)
		return 0;
	*out = x;
	return 1;
}

int gs_rank_from_env(gs_getenv_fn get, void *ctx, int64_t *rank, int64_t *world_size)
{
	static const char *const ranks[GS_RANK_ENV_N] = {GS_RANK_ENV_VARS};
	static const char *const sizes[GS_RANK_ENV_N] = {GS_WORLD_SIZE_ENV_VARS};
	int i;

	for (i = 0; i < GS_RANK_ENV_N; i++) {
		if (!env_whole(get(ranks[i], ctx), rank))
			continue;
		if (!env_whole(get(sizes[i], ctx), world_size) || *world_size <= *rank)
			*world_size = 0;
		return i;
	}
	return -1;
}

int gs_path_expand(const char *tmpl, char *out, size_t outlen, long pid, const char *host,
		   gs_getenv_fn get, void *ctx, char *err, size_t errlen)
{
	size_t used = 0;
	const char *p;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	if (!tmpl || !*tmpl) {
		snprintf(err, errlen, "empty path");
		return -1;
	}
	for (p = tmpl; *p; p++) {
		char num[32];
		int rc = 0;

		if (*p != '%') {
			rc = put(out, outlen, &used, p, 1);
		} else {
			p++;
			switch (*p) {
			case 'p':
				snprintf(num, sizeof(num), "%ld", pid);
				rc = put(out, outlen, &used, num, strlen(num));
				break;
			case 'h':
				rc = put(out, outlen, &used, host ? host : "",
					 host ? strlen(host) : 0);
				break;
			case '%': rc = put(out, outlen, &used, "%", 1); break;
			case 'q': {
				const char *close, *val;
				char name[256];
				size_t n;

				if (p[1] != '{') {
					snprintf(err, errlen, "%%q must be followed by {VAR}");
					return -1;
				}
				close = strchr(p + 2, '}');
				if (!close) {
					snprintf(err, errlen, "unterminated %%q{ (missing })");
					return -1;
				}
				n = (size_t)(close - (p + 2));
				if (n == 0) {
					snprintf(err, errlen, "%%q{} needs a variable name");
					return -1;
				}
				if (n >= sizeof(name)) {
					snprintf(err, errlen,
						 "%%q{VAR}: a variable name of %zu bytes (at "
						 "most %zu)",
						 n, sizeof(name) - 1);
					return -1;
				}
				memcpy(name, p + 2, n);
				name[n] = '\0';
				val = get(name, ctx);
				if (val)
					rc = put(out, outlen, &used, val, strlen(val));
				p = close;
				break;
			}
			case '\0':
				snprintf(err, errlen,
					 "lone %% at the end (write %%%% for a literal %%)");
				return -1;
			default:
				snprintf(err, errlen,
					 "unknown %%%c (use %%p, %%h, %%q{VAR} or %%%%)",
					 isprint((unsigned char)*p) ? *p : '?');
				return -1;
			}
		}
		if (rc != 0) {
			snprintf(err, errlen, "expanded path is too long");
			return -1;
		}
	}
	return 0;
}
