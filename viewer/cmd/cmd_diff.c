/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_diff.c - `gapscope diff before.db after.db`: what changed between two
 * runs of a program, or between two phases (NVTX ranges, --before-range and
 * --after-range) of one run, as text or --json. Loads and analyses both traces
 * (html_load.c), compares the results (diff.c) and prints; no figure is
 * computed here.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "render_html.h"

static void usage(FILE *f)
{
	fputs("usage: gapscope diff [options] <before.db> <after.db>\n"
	      "       gapscope diff [options] --before-range A --after-range B <run.db>\n"
	      "\n"
	      "Compares two runs, or two phases (NVTX ranges) of one run: wall time,\n"
	      "GPU busy time and utilisation, launch overhead share, idle time by cause,\n"
	      "idle gaps, launch calls and kernels; then launch APIs, kernels and NVTX\n"
	      "ranges matched by name. Every row gives before, after, the change and\n"
	      "the relative change.\n"
	      "\n"
	      "  --json               print the comparison as JSON (docs/diff.md)\n"
	      "  --range NAME         only the time inside NVTX ranges whose text is\n"
	      "                       NAME, in both runs\n"
	      "  --before-range NAME  the before side: only inside NVTX ranges NAME\n"
	      "  --after-range NAME   the after side: only inside NVTX ranges NAME\n"
	      "                       (with one trace, both are needed: its two phases\n"
	      "                       are compared; they override --range)\n"
	      "  --top N              rows per name table in the text output (default 10)\n"
	      "  -h, --help           this text\n"
	      "\n"
	      "With a range, the wall time row is the length of the selected ranges\n"
	      "(else the span from the first to the last GPU op).\n"
	      "\n"
	      "exit status: 0 printed, 2 bad input (file, option, no GPU activity, or a\n"
	      "range name that matches no NVTX range of its trace), 1 internal failure.\n",
	      f);
}

enum { OPT_JSON = 1000, OPT_RANGE, OPT_BEFORE_RANGE, OPT_AFTER_RANGE, OPT_TOP };

/* The NVTX range option's value, or NULL after printing why it is bad. */
static const char *range_arg(const char *opt, const char *val)
{
	if (!*val) {
		gs_error("diff", "%s needs a non-empty NVTX range name", opt);
		return NULL;
	}
	return val;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, OPT_JSON},
	    {"range", required_argument, NULL, OPT_RANGE},
	    {"before-range", required_argument, NULL, OPT_BEFORE_RANGE},
	    {"after-range", required_argument, NULL, OPT_AFTER_RANGE},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct html_loaded runs[2];
	struct diff_result d;
	struct gs_options opt[2];
	struct diff_side side[2];
	const char *range = NULL, *side_range[2] = {NULL, NULL}, *paths[2];
	int c, rc, json = 0, i;
	long top = 10;
	char *end;

	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: json = 1; break;
		case OPT_RANGE:
		case OPT_BEFORE_RANGE:
		case OPT_AFTER_RANGE: {
			const char *v = range_arg(c == OPT_RANGE	  ? "--range"
						  : c == OPT_BEFORE_RANGE ? "--before-range"
									  : "--after-range",
						  optarg);
			if (!v)
				return GS_EXIT_BAD_INPUT;
			if (c == OPT_RANGE)
				range = v;
			else
				side_range[c == OPT_AFTER_RANGE] = v;
			break;
		}
		case OPT_TOP:
			errno = 0;
			top = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || top < 0 || top > 1000000) {
				gs_error("diff",
					 "--top needs a whole number from 0 to 1000000, not '%s'",
					 optarg);
				return GS_EXIT_BAD_INPUT;
			}
			break;
		case 'h': usage(stdout); return GS_EXIT_OK;
		case ':':
			gs_error("diff", "option '%s' needs a value; see 'gapscope diff --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		default:
			gs_error("diff", "unknown option '%s'; see 'gapscope diff --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		}
	}
	if (argc - optind == 1 && !(side_range[0] && side_range[1])) {
		gs_error("diff", "two traces needed, or one with --before-range NAME and "
				 "--after-range NAME to compare two of its phases");
		return GS_EXIT_BAD_INPUT;
	}
	if (argc - optind < 1 || argc - optind > 2) {
		gs_error("diff", "two traces needed: gapscope diff <before.db> <after.db>");
		return GS_EXIT_BAD_INPUT;
	}
	paths[0] = argv[optind];
	paths[1] = argv[argc - 1]; /* the same file when only one is given */
	for (i = 0; i < 2; i++) {
		gs_options_init(&opt[i]);
		opt[i].range_name = side_range[i] ? side_range[i] : range;
		side[i].path = paths[i];
		side[i].range = opt[i].range_name;
	}
	rc = html_load_pair(runs, paths, opt);
	if (rc)
		return rc;
	rc = GS_EXIT_OK;
	if (diff_compute(&runs[0].res, &runs[1].res, &d) < 0) {
		gs_error("diff", "out of memory");
		rc = GS_EXIT_INTERNAL;
	} else {
		if (json) {
			if (diff_write_json(stdout, &d, side) < 0)
				rc = GS_EXIT_INTERNAL;
		} else {
			diff_write_text(stdout, &d, side, (size_t)top);
		}
		if (gs_cli_stdout_check("diff") != GS_EXIT_OK) /* one line, with the reason */
			rc = GS_EXIT_INTERNAL;
		diff_free(&d);
	}
	html_unload(&runs[1]); /* may share runs[0]'s trace */
	html_unload(&runs[0]);
	return rc;
}
