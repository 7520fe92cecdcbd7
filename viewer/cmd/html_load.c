/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * html_load.c - open, load and analyse one trace for the verbs that render
 * analysis results (html, diff): the same steps and the same one-line
 * errors as `gapscope report`, plus one more: a --range that names no NVTX
 * range of the trace is bad input here (a page or a comparison of an empty
 * selection would show only zeros), and the error line lists the range
 * names the trace does have. A second analysis of the same file (another
 * range of one run) shares the loaded arrays. It renders nothing.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "render_html.h"
#include "trace_load.h"
#include "utf8.h"

#define MAX_LISTED_RANGES 6
#define MAX_LISTED_CHARS 48

/* Append s to buf (size len, NUL-terminated) in double quotes, '"' and
 * '\\' escaped with a backslash, control characters and bytes that are not
 * valid UTF-8 as '?' (the line goes to a terminal), cut after
 * MAX_LISTED_CHARS characters. */
static void append_name(char *buf, size_t len, const char *s)
{
	size_t k = strlen(buf), i = 0, n = strlen(s), chars = 0;

	if (k + 2 >= len)
		return;
	buf[k++] = '"';
	while (i < n && chars < MAX_LISTED_CHARS && k + 8 < len) {
		int l = utf8_sequence_length((const unsigned char *)s + i, n - i);
		if (l <= 0 || (l == 1 && ((unsigned char)s[i] < 0x20 || s[i] == 0x7f))) {
			buf[k++] = '?';
			i += l > 0 ? (size_t)l : 1;
		} else if (s[i] == '"' || s[i] == '\\') { /* keep the quoting unambiguous */
			buf[k++] = '\\';
			buf[k++] = s[i++];
		} else {
			memcpy(buf + k, s + i, (size_t)l);
			k += (size_t)l;
			i += (size_t)l;
		}
		chars++;
	}
	if (i < n && k + 4 < len) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k++] = '"';
	buf[k] = '\0';
}

/* The one-line error for a range name that matched nothing. */
static void range_not_found(const char *path, const struct gs_input *in, const char *name)
{
	uint32_t seen[MAX_LISTED_RANGES];
	size_t n_seen = 0, more = 0, i, j;
	char want[256] = "", have[1024] = "";

	append_name(want, sizeof(want), name);
	for (i = 0; i < in->n_nvtx; i++) {
		uint32_t id = in->nvtx[i].text_id;
		if (in->nvtx[i].kind != 0)
			continue;
		for (j = 0; j < n_seen && seen[j] != id; j++)
			;
		if (j < n_seen)
			continue;
		if (n_seen == MAX_LISTED_RANGES) {
			more = 1;
			continue;
		}
		seen[n_seen++] = id;
		if (n_seen > 1)
			strncat(have, ", ", sizeof(have) - strlen(have) - 1);
		append_name(have, sizeof(have), gs_str(&in->strings, id, ""));
	}
	if (n_seen == 0)
		gs_error(path, "no NVTX range named %s: this trace has no NVTX ranges", want);
	else
		gs_error(path, "no NVTX range named %s; its ranges: %s%s", want, have,
			 more ? ", ..." : "");
}

static int analyse(struct html_loaded *r, const char *path, const struct gs_options *opt)
{
	int rc = gs_analyze(r->input, opt, &r->res);

	if (rc < 0) {
		gs_error(path, "analysis failed: %s", strerror(-rc));
		return GS_EXIT_INTERNAL;
	}
	if (opt->range_name && r->res.range_matches == 0 && r->res.range_skipped) {
		char want[256] = "";
		append_name(want, sizeof(want), opt->range_name);
		gs_error(path, "--skip %llu leaves none of its %llu NVTX ranges named %s",
			 (unsigned long long)opt->range_skip,
			 (unsigned long long)r->res.range_skipped, want);
		gs_result_free(&r->res);
		return GS_EXIT_BAD_INPUT;
	}
	if (opt->range_name && r->res.range_matches == 0) {
		range_not_found(path, r->input, opt->range_name);
		gs_result_free(&r->res);
		return GS_EXIT_BAD_INPUT;
	}
	return 0;
}

int html_load(struct html_loaded *r, const char *path, const struct gs_options *opt)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->trace = &r->t;
	r->input = &r->in;
	rc = gs_cli_load_trace(&r->t, path, &r->in);
	if (rc)
		return rc;
	r->state = 2;
	rc = analyse(r, path, opt);
	if (rc) {
		html_unload(r);
		return rc;
	}
	r->state = 3;
	return 0;
}

int html_load_again(struct html_loaded *r, const struct html_loaded *from, const char *path,
		    const struct gs_options *opt)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->trace = from->trace;
	r->input = from->input;
	rc = analyse(r, path, opt);
	if (rc)
		return rc;
	r->state = 4; /* only the analysis is ours */
	return 0;
}

void html_unload(struct html_loaded *r)
{
	if (r->state >= 3)
		gs_result_free(&r->res);
	if (r->state == 2 || r->state == 3)
		trace_input_free(&r->in);
	if (r->state >= 1 && r->state <= 3)
		trace_close(&r->t);
	r->state = 0;
}

int html_load_pair(struct html_loaded runs[2], const char *const paths[2],
		   const struct gs_options opts[2])
{
	int rc = html_load(&runs[0], paths[0], &opts[0]);

	if (rc)
		return rc;
	/* one file, two ranges: load it once, analyse it twice */
	if (!strcmp(paths[0], paths[1]))
		rc = html_load_again(&runs[1], &runs[0], paths[1], &opts[1]);
	else
		rc = html_load(&runs[1], paths[1], &opts[1]);
	if (rc)
		html_unload(&runs[0]);
	return rc;
}
