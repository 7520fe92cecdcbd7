/*
 * html_load.c - open, load and analyse one trace for the verbs that render
 * analysis results (html, diff, and the gap track of export): the same
 * steps and the same one-line errors as `gapscope report`. It renders
 * nothing.
 */
#include <string.h>

#include "cli.h"
#include "render_html.h"
#include "trace_load.h"

int html_load(struct html_loaded *r, const char *path, const struct gs_options *opt)
{
	char err[512];
	int rc;

	memset(r, 0, sizeof(*r));
	rc = gs_cli_open_trace(&r->t, path);
	if (rc)
		return rc;
	r->state = 1;
	if (trace_load(&r->t, GS_LOAD_ALL, &r->in, err, sizeof(err)) < 0) {
		gs_error(path, "%s", err);
		html_unload(r);
		return GS_EXIT_BAD_INPUT;
	}
	r->state = 2;
	if (r->in.n_ops == 0) {
		gs_error(path, "no GPU activity in this trace (no kernels, memcpys or memsets); "
			       "was the program's CUDA work recorded?");
		html_unload(r);
		return GS_EXIT_BAD_INPUT;
	}
	rc = gs_analyze(&r->in, opt, &r->res);
	if (rc < 0) {
		gs_error(path, "analysis failed: %s", strerror(-rc));
		html_unload(r);
		return GS_EXIT_INTERNAL;
	}
	r->state = 3;
	return 0;
}

void html_unload(struct html_loaded *r)
{
	if (r->state >= 3)
		gs_result_free(&r->res);
	if (r->state >= 2)
		trace_input_free(&r->in);
	if (r->state >= 1)
		trace_close(&r->t);
	r->state = 0;
}
