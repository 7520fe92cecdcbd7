/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_html.c - `gapscope html`: one trace, or a before/after pair (two
 * traces, or two NVTX ranges of one), to one self-contained HTML page
 * (render_html.c). Parses options, loads and
 * analyses each trace (html_load.c), computes the comparison for two
 * (diff.c), and writes the page through out_file.h (a failed or
 * interrupted run leaves the old page as it was).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "out_file.h"
#include "render_html.h"

static void usage(FILE *f)
{
	fputs("usage: gapscope html <trace.db> -o <page.html>\n"
	      "       gapscope html <before.db> <after.db> -o <compare.html>\n"
	      "       gapscope html --before-range A --after-range B <run.db> -o <compare.html>\n"
	      "\n"
	      "Writes one self-contained HTML file (no network access, opens offline):\n"
	      "summary cards (GPU window, utilisation, launch overhead share, idle time by\n"
	      "cause), a zoomable SVG timeline (GPU streams, idle gaps coloured by cause,\n"
	      "host threads with CUDA API calls, syncs and NVTX ranges), a histogram of\n"
	      "gap durations by cause, and tables of the largest gaps, top kernels,\n"
	      "launches, synchronisations, NVTX ranges and CUDA Graph advice. With two\n"
	      "traces, or two NVTX ranges of one: what changed, and both side by side.\n"
	      "\n"
	      "  -o, --output FILE  where to write ('-': standard output; required)\n"
	      "      --range NAME   only the time inside NVTX ranges whose text is NAME\n"
	      "                     (in both runs; the timeline opens on the selected\n"
	      "                     ranges, a double-click shows the whole run)\n"
	      "      --skip N       with a range: leave out the first N ranges of that\n"
	      "                     name in each run (a warm-up)\n"
	      "      --before-range NAME, --after-range NAME\n"
	      "                     the same for one side of a comparison; with one\n"
	      "                     trace and both, its two phases are compared\n"
	      "      --no-overhead-correction\n"
	      "                     figures as recorded only: no kernel durations\n"
	      "                     shortened by CUPTI's measured per-kernel overhead,\n"
	      "                     and no line of figures corrected for the collector's\n"
	      "                     overhead (traces recorded with a calibration have\n"
	      "                     one per device; docs/collector.md)\n"
	      "      --reference REF.db\n"
	      "                     an untraced reference run of the same program\n"
	      "                     (gapscope record --reference N); repeat for each\n"
	      "                     run, at most 16; one trace only. The NVTX table\n"
	      "                     gains the runs' median untraced wall, how far the\n"
	      "                     traced and corrected walls are from it, and GPU\n"
	      "                     busy over it (docs/report.md)\n"
	      "  -h, --help         this text\n"
	      "\n"
	      "Without a range the timeline opens on the GPU window (first to last GPU\n"
	      "op); a double-click switches to the whole run and back.\n"
	      "\n"
	      "exit status: 0 written, 2 bad input (file, option, no GPU activity, or a\n"
	      "range name that matches no NVTX range of its trace), 1 internal failure.\n",
	      f);
}

enum { OPT_RANGE = 1000, OPT_BEFORE_RANGE, OPT_AFTER_RANGE, OPT_NOCORR, OPT_REF, OPT_SKIP };

int cmd_html(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"range", required_argument, NULL, OPT_RANGE},
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"before-range", required_argument, NULL, OPT_BEFORE_RANGE},
	    {"after-range", required_argument, NULL, OPT_AFTER_RANGE},
	    {"no-overhead-correction", no_argument, NULL, OPT_NOCORR},
	    {"reference", required_argument, NULL, OPT_REF},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct html_loaded runs[2];
	struct html_run hr[2];
	struct gs_verdict verdict[2];
	struct run_totals tot[2];
	struct diff_result d;
	struct gs_options opt[2];
	struct gs_corrected corr[2];
	struct gs_reference ref = {0};
	struct gs_cli_refs refs;
	const char *out = NULL, *range = NULL, *side_range[2] = {NULL, NULL}, *paths[2];
	char err[512] = "";
	int c, rc, nruns, i, to_stdout, have_diff = 0, correct = 1;
	uint64_t skip = 0;
	struct out_file of;

	refs.n = 0;
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_RANGE:
		case OPT_BEFORE_RANGE:
		case OPT_AFTER_RANGE:
			if (!*optarg) {
				gs_error("html", "%s needs a non-empty NVTX range name",
					 c == OPT_RANGE		 ? "--range"
					 : c == OPT_BEFORE_RANGE ? "--before-range"
								 : "--after-range");
				return GS_EXIT_BAD_INPUT;
			}
			if (c == OPT_RANGE)
				range = optarg;
			else
				side_range[c == OPT_AFTER_RANGE] = optarg;
			break;
		case OPT_NOCORR: correct = 0; break;
		case OPT_SKIP:
			if (gs_cli_parse_skip("html", optarg, &skip))
				return GS_EXIT_BAD_INPUT;
			break;
		case OPT_REF:
			if (gs_cli_refs_add(&refs, "html", optarg))
				return GS_EXIT_BAD_INPUT;
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
	if ((side_range[0] != NULL) != (side_range[1] != NULL) && nruns == 1) {
		gs_error("html", "to compare two phases of one trace give both --before-range "
				 "and --after-range");
		return GS_EXIT_BAD_INPUT;
	}
	if (skip && !range && !side_range[0] && !side_range[1]) {
		gs_error("html", "--skip goes with --range NAME: the ranges to leave out");
		return GS_EXIT_BAD_INPUT;
	}
	if (refs.n && (nruns == 2 || side_range[0])) {
		gs_error("html", "--reference applies to a page of one trace");
		return GS_EXIT_BAD_INPUT;
	}
	if ((rc = gs_cli_check_output_name(out, 0)) != 0)
		return rc; /* before the page is made: its rename would fail */
	to_stdout = !strcmp(out, "-");
	if (nruns == 1 && side_range[0])
		nruns = 2; /* one file, two ranges */
	paths[0] = argv[optind];
	paths[1] = argv[argc - 1];
	for (i = 0; i < nruns; i++) {
		gs_options_init(&opt[i]);
		opt[i].range_name = side_range[i] ? side_range[i] : range;
		opt[i].range_skip = opt[i].range_name ? skip : 0;
		opt[i].correct_instrumentation = correct;
	}
	memset(corr, 0, sizeof(corr));
	rc = nruns == 2 ? html_load_pair(runs, paths, opt) : html_load(&runs[0], paths[0], &opt[0]);
	if (rc)
		return rc;
	rc = gs_cli_refs_load(&refs);
	if (rc) {
		html_unload(&runs[0]);
		return rc;
	}
	for (i = 0; i < nruns; i++) {
		/* references go with a page of one trace */
		struct gs_calibration cal = gs_cli_refs_calibration(&refs, runs[i].input);
		hr[i].path = paths[i];
		hr[i].range = opt[i].range_name;
		hr[i].t = runs[i].trace;
		hr[i].in = runs[i].input;
		hr[i].res = &runs[i].res;
		/* every gap is kept (the default options): the correction can
		 * run; -EINVAL only without a calibration */
		hr[i].corr = correct && runs[i].input->cal.have &&
				     gs_correct(runs[i].input, &runs[i].res, &cal, &corr[i]) == 0
				 ? &corr[i]
				 : NULL;
		hr[i].ref = NULL;
		/* what the page shows, computed once here: the renderer renders */
		gs_verdict_compute_corr(&runs[i].res, hr[i].corr, &verdict[i]);
		run_totals_compute(&runs[i].res, &tot[i]);
		hr[i].verdict = &verdict[i];
		hr[i].totals = &tot[i];
	}
	if (refs.n) {
		if (gs_reference_compare(runs[0].input, &runs[0].res, hr[0].corr, refs.ptr, refs.n,
					 &ref) < 0) {
			gs_error("html", "out of memory");
			rc = GS_EXIT_INTERNAL;
			goto out;
		}
		hr[0].ref = &ref;
	}
	rc = GS_EXIT_OK;
	if (nruns == 2) {
		if (diff_compute(&runs[0].res, &runs[1].res, &d) < 0) {
			gs_error("html", "out of memory");
			rc = GS_EXIT_INTERNAL;
			goto out;
		}
		diff_set_corrected(&d, hr[0].corr, hr[1].corr);
		have_diff = 1;
	}
	/* out_file.h: a temporary file renamed into place when complete; a
	 * failed or interrupted run leaves the old page, and a device, FIFO
	 * or stdout is written in place and never removed */
	if (out_open(&of, out, err, sizeof(err)) < 0) {
		gs_error(out, "%s", err);
		rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	if (render_html(of.f, hr, (size_t)nruns, have_diff ? &d : NULL, err, sizeof(err)) < 0 &&
	    !of.err) {
		/* not a write error (those are out_commit's to tell) */
		gs_error(to_stdout ? NULL : out, "%s", err);
		out_abort(&of);
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
	if (!to_stdout && gs_cli_sums_check(paths[0])) {
		out_abort(&of); /* a clamped total does not replace the old page */
		rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	if (out_commit(&of, err, sizeof(err)) < 0) {
		gs_error(to_stdout ? NULL : out, "%s", err);
		rc = GS_EXIT_INTERNAL;
	}
out:
	gs_reference_free(&ref);
	gs_cli_refs_free(&refs);
	gs_corrected_free(&corr[0]);
	gs_corrected_free(&corr[1]);
	if (have_diff)
		diff_free(&d);
	while (nruns-- > 0) /* a shared run before the run it shares */
		html_unload(&runs[nruns]);
	return rc;
}
