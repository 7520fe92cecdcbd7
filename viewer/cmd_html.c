/*
 * cmd_html.c - `gapscope html`: one trace, or a before/after pair, to one
 * self-contained HTML page (render_html.c). Parses options, loads and
 * analyses each trace (html_load.c), computes the comparison for two
 * (diff.c), and removes a partly written page on failure.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "render_html.h"

static void usage(FILE *f)
{
	fputs("usage: gapscope html <trace.db> -o <page.html>\n"
	      "       gapscope html <before.db> <after.db> -o <compare.html>\n"
	      "\n"
	      "Writes one self-contained HTML file (no network access, opens offline):\n"
	      "summary cards (GPU window, utilisation, launch overhead share, idle time by\n"
	      "cause), a zoomable SVG timeline (GPU streams, idle gaps coloured by cause,\n"
	      "host threads with CUDA API calls, syncs and NVTX ranges), a histogram of\n"
	      "gap durations by cause, and tables of the largest gaps, top kernels,\n"
	      "launches, synchronisations, NVTX ranges and CUDA Graph advice. With two\n"
	      "traces: what changed, and both runs side by side.\n"
	      "\n"
	      "  -o, --output FILE  where to write ('-': standard output; required)\n"
	      "      --range NAME   only the time inside NVTX ranges whose text is NAME\n"
	      "                     (the timeline still shows the whole run)\n"
	      "  -h, --help         this text\n"
	      "\n"
	      "exit status: 0 written, 2 bad input (file, option, or no GPU activity),\n"
	      "1 internal failure.\n",
	      f);
}

enum { OPT_RANGE = 1000 };

int cmd_html(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"range", required_argument, NULL, OPT_RANGE},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct html_loaded runs[2];
	struct html_run hr[2];
	struct diff_result d;
	struct gs_options opt;
	const char *out = NULL;
	char err[512] = "";
	int c, rc, nruns, i, to_stdout, have_diff = 0;
	FILE *f;

	gs_options_init(&opt);
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_RANGE:
			if (!*optarg) {
				gs_error("html", "--range needs a non-empty NVTX range name");
				return GS_EXIT_BAD_INPUT;
			}
			opt.range_name = optarg;
			break;
		case 'h': usage(stdout); return GS_EXIT_OK;
		case ':':
			gs_error("html", "option '%s' needs a value; see 'gapscope html --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		default:
			gs_error("html", "unknown option '%s'; see 'gapscope html --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		}
	}
	nruns = argc - optind;
	if (nruns < 1 || nruns > 2) {
		gs_error("html", nruns < 1
				     ? "which trace? usage: gapscope html <trace.db> "
				       "[<after.db>] -o <page.html>"
				     : "one trace, or two to compare; see 'gapscope html --help'");
		return GS_EXIT_BAD_INPUT;
	}
	if (!out) {
		gs_error("html", "say where to write: -o <page.html> (or - for standard output)");
		return GS_EXIT_BAD_INPUT;
	}
	for (i = 0; i < nruns; i++) {
		rc = html_load(&runs[i], argv[optind + i], &opt);
		if (rc) {
			while (--i >= 0)
				html_unload(&runs[i]);
			return rc;
		}
		hr[i].path = argv[optind + i];
		hr[i].t = &runs[i].t;
		hr[i].in = &runs[i].in;
		hr[i].res = &runs[i].res;
	}
	rc = GS_EXIT_OK;
	if (nruns == 2) {
		if (diff_compute(&runs[0].res, &runs[1].res, &d) < 0) {
			gs_error("html", "out of memory");
			rc = GS_EXIT_INTERNAL;
			goto out;
		}
		have_diff = 1;
	}
	to_stdout = !strcmp(out, "-");
	f = to_stdout ? stdout : fopen(out, "w");
	if (!f) {
		gs_error(out, "cannot write: %m");
		rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	if (render_html(f, hr, (size_t)nruns, have_diff ? &d : NULL, err, sizeof(err)) < 0)
		rc = GS_EXIT_INTERNAL;
	if (!to_stdout && fclose(f) != 0 && rc == GS_EXIT_OK) {
		snprintf(err, sizeof(err), "write error: %m");
		rc = GS_EXIT_INTERNAL;
	}
	if (rc != GS_EXIT_OK) {
		gs_error(to_stdout ? "html" : out, "%s", err);
		if (!to_stdout)
			unlink(out);
	}
out:
	if (have_diff)
		diff_free(&d);
	for (i = 0; i < nruns; i++)
		html_unload(&runs[i]);
	return rc;
}
