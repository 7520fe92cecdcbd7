/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * report_common.c - what both back ends of `gapscope report` share
 * (report.h): the order report_render() calls their ops in, and the
 * wording both formats use (explanation and op-kind names, kernel names for
 * people, the graph advice sentence), and the text's line wrapping. It
 * formats only: every figure comes from the results the verb computed.
 */
#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "report.h"

const char *report_explain_name(int k)
{
	switch (k) {
	case GS_EXPLAIN_LAUNCH: return "launch";
	case GS_EXPLAIN_SYNC: return "sync";
	case GS_EXPLAIN_WAIT: return "stream-wait";
	case GS_EXPLAIN_HOST_FUNC: return "host-function";
	case GS_EXPLAIN_HOST_NODE: return "host-node";
	case GS_EXPLAIN_BEFORE_TRACE: return "before-trace";
	default: return "none";
	}
}

const char *report_kernel_name(const struct report_ctx *r, uint32_t name_id, char **tofree)
{
	const char *raw = gs_str(&r->in->strings, name_id, "?");

	if (r->full_names) {
		*tofree = gs_demangle(raw);
		return *tofree ? *tofree : raw;
	}
	*tofree = malloc(4 * REPORT_NAME_CHARS + 8); /* UTF-8: up to 4 bytes a character */
	if (!*tofree)
		return raw;
	gs_short_name(raw, *tofree, 4 * REPORT_NAME_CHARS + 8, REPORT_NAME_CHARS);
	return *tofree;
}

const char *report_op_kind_name(int kind)
{
	switch (kind) {
	case GS_OP_KERNEL: return "kernel";
	case GS_OP_MEMCPY: return "memcpy";
	case GS_OP_MEMSET: return "memset";
	case GS_OP_GRAPH_RUN: return "graph run";
	default: return "op";
	}
}

static void fmt_dur(char *b, size_t n, int64_t ns)
{
	if (ns < 10000)
		snprintf(b, n, "%lld ns", (long long)ns);
	else if (ns < 1000000)
		snprintf(b, n, "%.1f us", (double)ns / 1e3);
	else
		snprintf(b, n, "%.2f ms", (double)ns / 1e6);
}

char *report_advice_sentence(const struct report_ctx *r, const struct gs_graph_advice *a)
{
	char meas[32], est[32], seq[1024], *buf = NULL, *dem = NULL, *dem2 = NULL;
	const char *first = a->kinds[0] == GS_OP_KERNEL ? report_kernel_name(r, a->names[0], &dem)
							: report_op_kind_name(a->kinds[0]);
	int n;

	/* "the 131-op sequence from A to B (NVTX "generate")": the advice
	 * names the step by its first and last ops and where it runs */
	if (a->length > 1) {
		const char *last = a->kinds[a->length - 1] == GS_OP_KERNEL
				       ? report_kernel_name(r, a->names[a->length - 1], &dem2)
				       : report_op_kind_name(a->kinds[a->length - 1]);
		n = snprintf(seq, sizeof(seq), "the %u-op sequence from %s to %s", a->length, first,
			     last);
	} else {
		n = snprintf(seq, sizeof(seq), "the 1-op sequence %s", first);
	}
	if (a->nvtx_idx != GS_NONE && a->nvtx_idx < r->in->n_nvtx && n > 0 &&
	    (size_t)n < sizeof(seq))
		snprintf(seq + n, sizeof(seq) - (size_t)n, " (NVTX \"%.64s\")",
			 gs_str(&r->in->strings, r->in->nvtx[a->nvtx_idx].text_id, ""));
	fmt_dur(meas, sizeof(meas), a->measured);
	fmt_dur(est, sizeof(est), a->estimate);
	if (a->advise)
		n = asprintf(
		    &buf,
		    "Capture %s on stream %u (device %d) as a CUDA Graph%s: it repeats %llu "
		    "times and takes %s as launched, about %s as graph replays (%.1f%% less).",
		    seq, a->stream, a->device,
		    gs_trace_is_pytorch(r->res) ? " (PyTorch: torch.cuda.graph, or torch.compile "
						  "mode=\"reduce-overhead\")"
						: "",
		    (unsigned long long)a->count, meas, est, 100.0 * a->saving_share);
	else if (a->saving_share <= GS_ADVICE_MIN_SAVING)
		n = asprintf(&buf,
			     "No graph advice for %s on stream %u (device %d): the estimated saving "
			     "(%.1f%%) is not above 5%%.",
			     seq, a->stream, a->device, 100.0 * a->saving_share);
	else
		n = asprintf(&buf,
			     "No graph advice for %s on stream %u (device %d): it would save about %s, "
			     "less than 1%% of the device's window.",
			     seq, a->stream, a->device,
			     (fmt_dur(meas, sizeof(meas), a->saving), meas));
	if (n >= 0 && a->advise && r->verdict && r->verdict->blockers[0] &&
	    gs_verdict_comm_share(r->verdict) < GS_COMM_BOUND_SHARE) {
		/* the verdict found what stops a whole step's capture */
		char *more = NULL;
		n = asprintf(&more,
			     "%s But the step holds what stops its capture (%s): capture the parts "
			     "between them, or fuse.",
			     buf, r->verdict->blockers);
		free(buf);
		buf = n < 0 ? NULL : more;
	}
	if (n >= 0 && a->advise && gs_verdict_comm_share(r->verdict) >= GS_COMM_BOUND_SHARE) {
		/* graphs shorten the launches, not the collectives that fill the step */
		char *more = NULL;
		n = asprintf(&more,
			     "%s But the step is collective-bound (collective kernels are %.0f%% of "
			     "GPU busy): overlap communication first; a graph removes launch time, "
			     "not communication.",
			     buf, 100.0 * gs_verdict_comm_share(r->verdict));
		free(buf);
		buf = n < 0 ? NULL : more;
	}
	free(dem);
	free(dem2);
	return n < 0 ? NULL : buf;
}

int report_render(const struct report_ops *ops, struct report_ctx *r)
{
	size_t i;
	int rc;

	rc = ops->begin(r);
	for (i = 0; !rc && i < r->res->n_devices; i++)
		rc = ops->device(r, &r->res->devices[i]);
	if (!rc)
		rc = ops->launches(r);
	if (!rc)
		rc = ops->syncs(r);
	if (!rc)
		rc = ops->kernels(r);
	if (!rc)
		rc = ops->nvtx(r);
	if (!rc)
		rc = ops->advice(r);
	{
		int rc2 = ops->end(r);
		if (!rc)
			rc = rc2;
	}
	return rc;
}

/* report_put_wrapped: the text back end writes into memory and, at the
 * end, copies it out with every line longer than REPORT_LINE_MAX wrapped:
 * at the last space that fits (else hard, between UTF-8 characters), the
 * rest indented like the line plus four spaces. Without --full-names no
 * line is longer. */

/* 1 where s (n bytes) begins with a unit of time and then ends, a space
 * or punctuation: "401.962 ms" is not broken at its space */
static int unit_at(const char *s, size_t n)
{
	static const char *const units[] = {"ns", "us", "\xc2\xb5s", "ms", "s", "min"};
	size_t k, m;

	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		m = strlen(units[k]);
		if (n >= m && memcmp(s, units[k], m) == 0 &&
		    (n == m || s[m] == ' ' || s[m] == ',' || s[m] == ';' || s[m] == ')' ||
		     s[m] == ':' || s[m] == '.'))
			return 1;
	}
	return 0;
}

void report_put_wrapped(FILE *f, const char *s, size_t n)
{
	size_t indent = 0, width = REPORT_LINE_MAX, chars, i, cut, space;
	int first = 1;

	while (indent < n && s[indent] == ' ')
		indent++;
	if (indent > 40)
		indent = 40;
	while (n) {
		size_t lead = first ? 0 : indent + 4;
		/* how many bytes make width - lead characters */
		for (i = 0, chars = 0, space = 0; i < n && chars < width - lead; chars++) {
			if (s[i] == ' ' && i > 0 &&
			    !(s[i - 1] >= '0' && s[i - 1] <= '9' && unit_at(s + i + 1, n - i - 1)))
				space = i;
			i++;
			while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
				i++;
		}
		if (i >= n) {
			cut = n;
		} else if (space > (first ? indent : 0) + 8) {
			cut = space;
		} else {
			cut = i;
		}
		if (!first)
			fprintf(f, "%*s", (int)lead, "");
		fwrite(s, 1, cut, f);
		fputc('\n', f);
		s += cut;
		n -= cut;
		while (n && *s == ' ') { /* the space the line broke at */
			s++;
			n--;
		}
		first = 0;
	}
}
