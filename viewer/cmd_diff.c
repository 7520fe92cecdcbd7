/*
 * cmd_diff.c - `gapscope diff before.db after.db`: what changed between two
 * runs of a program, as text or --json. Loads and analyses both traces
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
	      "\n"
	      "Compares two runs: wall time (first to last GPU op), GPU busy time and\n"
	      "utilisation, launch overhead share, idle time by cause, idle gaps, launch\n"
	      "calls and kernels; then launch APIs, kernels and NVTX ranges matched by\n"
	      "name. Every row gives before, after, the change and the relative change.\n"
	      "\n"
	      "  --json           print the comparison as JSON (docs/diff.md)\n"
	      "  --range NAME     only the time inside NVTX ranges whose text is NAME,\n"
	      "                   in both runs\n"
	      "  --top N          rows per name table in the text output (default 10)\n"
	      "  -h, --help       this text\n"
	      "\n"
	      "exit status: 0 printed, 2 bad input (file, option, or no GPU activity),\n"
	      "1 internal failure.\n",
	      f);
}

enum { OPT_JSON = 1000, OPT_RANGE, OPT_TOP };

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, OPT_JSON},
	    {"range", required_argument, NULL, OPT_RANGE},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct html_loaded runs[2];
	struct diff_result d;
	struct gs_options opt;
	int c, rc, json = 0, i;
	long top = 10;
	char *end;

	gs_options_init(&opt);
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: json = 1; break;
		case OPT_RANGE:
			if (!*optarg) {
				gs_error("diff", "--range needs a non-empty NVTX range name");
				return GS_EXIT_BAD_INPUT;
			}
			opt.range_name = optarg;
			break;
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
	if (argc - optind != 2) {
		gs_error("diff", "two traces needed: gapscope diff <before.db> <after.db>");
		return GS_EXIT_BAD_INPUT;
	}
	for (i = 0; i < 2; i++) {
		rc = html_load(&runs[i], argv[optind + i], &opt);
		if (rc) {
			if (i)
				html_unload(&runs[0]);
			return rc;
		}
	}
	rc = GS_EXIT_OK;
	if (diff_compute(&runs[0].res, &runs[1].res, &d) < 0) {
		gs_error("diff", "out of memory");
		rc = GS_EXIT_INTERNAL;
	} else {
		if (json) {
			if (diff_write_json(stdout, &d, argv[optind], argv[optind + 1]) < 0)
				rc = GS_EXIT_INTERNAL;
		} else {
			diff_write_text(stdout, &d, argv[optind], argv[optind + 1], (size_t)top);
		}
		if (fflush(stdout) != 0 || ferror(stdout)) {
			gs_error("diff", "write error on standard output");
			rc = GS_EXIT_INTERNAL;
		}
		diff_free(&d);
	}
	html_unload(&runs[0]);
	html_unload(&runs[1]);
	return rc;
}
