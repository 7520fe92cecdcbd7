/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_diff.c - `gapscope diff before.db after.db`: what changed between two
 * runs of a program, or between two phases (NVTX ranges, --before-range and
 * --after-range) of one run, as text or --json. Loads and analyses both traces
 * (html_load.c), compares the results (diff.c) and prints; no figure is
 * computed here.
 *
 * Two sets of traces of a multi-process job (`gapscope diff before/
 * after/`, a folder of *.db each, or --before A.db,B.db --after C.db,D.db):
 * each set is loaded as `gapscope report` loads several traces
 * (multi_set_load, report_multi.c), the processes matched by rank
 * (gs_multi_pair_ranks) and printed by diff_sets.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "diff.h"
#include "render_html.h"
#include "report_multi.h"

static void usage(FILE *f)
{
	fputs("usage: gapscope diff [options] <before.db> <after.db>\n"
	      "       gapscope diff [options] --before-range A --after-range B <run.db>\n"
	      "       gapscope diff [options] <before-folder/> <after-folder/>\n"
	      "       gapscope diff [options] --before A.db,B.db --after C.db,D.db\n"
	      "\n"
	      "Compares two runs, or two phases (NVTX ranges) of one run: wall time,\n"
	      "GPU busy time and utilisation (where both traces are calibrated, also\n"
	      "corrected for tracing), launch overhead share, idle time by cause,\n"
	      "idle gaps, launch calls and kernels; the verdicts' findings of both runs;\n"
	      "then launch APIs, kernels and NVTX ranges matched by name. Every row\n"
	      "gives before, after, the change and the relative change.\n"
	      "\n"
	      "  --json               print the comparison as JSON (docs/diff.md)\n"
	      "  --range NAME         only the time inside NVTX ranges whose text is\n"
	      "                       NAME, in both runs\n"
	      "  --before-range NAME  the before side: only inside NVTX ranges NAME\n"
	      "  --after-range NAME   the after side: only inside NVTX ranges NAME\n"
	      "                       (with one trace, both are needed: its two phases\n"
	      "                       are compared; they override --range)\n"
	      "  --skip N             with a range: leave out the first N ranges of that\n"
	      "                       name on each side (a warm-up)\n"
	      "  --top N              rows per name table in the text output (default 10)\n"
	      "\n"
	      "Two sets of traces of a multi-process job (one trace per rank; a folder\n"
	      "means every *.db in it): the processes are matched by rank (recorded from\n"
	      "the launcher's RANK ..., or torch.profiler's distributedInfo) and each\n"
	      "gets window, utilisation, idle by cause (% of the window) and launch\n"
	      "overhead share, before, after and change; then each set's straggler,\n"
	      "its median end lag and the others' communication wait (docs/report.md,\n"
	      "\"Several traces\"). A rank in one set only is listed as such.\n"
	      "  --before LIST        the before set: traces or folders, comma-separated\n"
	      "  --after LIST         the after set (both needed, no other traces then)\n"
	      "  --step NAME          the step ranges (default: as gapscope report)\n"
	      "  --comm-range NAME    communication = NVTX ranges NAME (default: exposed\n"
	      "                       nccl kernels)\n"
	      "  -h, --help           this text\n"
	      "\n"
	      "With a range, the wall time row is the length of the selected ranges\n"
	      "(else the span from the first to the last GPU op).\n"
	      "\n"
	      "exit status: 0 printed, 2 bad input (file, option, no GPU activity, or a\n"
	      "range name that matches no NVTX range of its trace), 1 internal failure.\n",
	      f);
}

enum {
	OPT_JSON = 1000,
	OPT_RANGE,
	OPT_BEFORE_RANGE,
	OPT_AFTER_RANGE,
	OPT_TOP,
	OPT_BEFORE,
	OPT_AFTER,
	OPT_STEP,
	OPT_COMM_RANGE,
	OPT_SKIP
};

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* list split at commas into a malloc'ed array of pointers into *buf (a
 * malloc'ed copy); empty items are bad input */
static int split_list(const char *opt, const char *list, char **buf, char ***items, size_t *n)
{
	size_t cap = 1, i;
	char *p, *save = NULL, *tok;

	*items = NULL;
	*n = 0;
	for (i = 0; list[i]; i++)
		cap += list[i] == ',';
	if (!*list || list[0] == ',' || list[strlen(list) - 1] == ',' || strstr(list, ",,")) {
		gs_error("diff", "%s needs traces or folders separated by commas, not '%s'", opt,
			 list);
		return GS_EXIT_BAD_INPUT;
	}
	*buf = strdup(list);
	*items = calloc(cap, sizeof(**items));
	if (!*buf || !*items) {
		gs_error("diff", "out of memory");
		return GS_EXIT_INTERNAL;
	}
	for (p = *buf; (tok = strtok_r(p, ",", &save)); p = NULL)
		(*items)[(*n)++] = tok;
	return GS_EXIT_OK;
}

/* `gapscope diff` of two sets of traces, one trace per rank */
static int diff_sets(char **paths[2], const size_t n[2], const char *labels[2], const char *step,
		     const char *comm_range, int json)
{
	struct multi_set set[2];
	struct diff_set ds[2];
	struct gs_multi_pair *pairs = NULL;
	ssize_t np;
	int rc, i;

	rc = multi_set_load("diff", paths[0], n[0], step, comm_range, NULL, &set[0]);
	if (rc)
		return rc;
	rc = multi_set_load("diff", paths[1], n[1], step, comm_range, NULL, &set[1]);
	if (rc) {
		multi_set_free(&set[0]);
		return rc;
	}
	np = gs_multi_pair_ranks(set[0].t, set[0].n, set[1].t, set[1].n, &pairs);
	if (np < 0) {
		gs_error("diff", "out of memory");
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
	for (i = 0; i < 2; i++) {
		ds[i].label = labels[i];
		ds[i].t = set[i].t;
		ds[i].n = set[i].n;
		ds[i].clock = set[i].clock;
		ds[i].step = set[i].step;
		ds[i].m = &set[i].m;
	}
	if ((json ? diff_sets_write_json(stdout, ds, pairs, (size_t)np)
		  : diff_sets_write_text(stdout, ds, pairs, (size_t)np)) < 0)
		rc = GS_EXIT_INTERNAL;
	if (gs_cli_stdout_check("diff") != GS_EXIT_OK) /* one line, with the reason */
		rc = GS_EXIT_INTERNAL;
out:
	free(pairs);
	multi_set_free(&set[1]);
	multi_set_free(&set[0]);
	return rc;
}

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
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"before-range", required_argument, NULL, OPT_BEFORE_RANGE},
	    {"after-range", required_argument, NULL, OPT_AFTER_RANGE},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"before", required_argument, NULL, OPT_BEFORE},
	    {"after", required_argument, NULL, OPT_AFTER},
	    {"step", required_argument, NULL, OPT_STEP},
	    {"comm-range", required_argument, NULL, OPT_COMM_RANGE},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct html_loaded runs[2];
	struct diff_result d;
	struct gs_corrected corr[2];
	int have_corr[2] = {0, 0};
	struct gs_options opt[2];
	struct diff_side side[2];
	const char *range = NULL, *side_range[2] = {NULL, NULL}, *paths[2];
	const char *set_list[2] = {NULL, NULL}, *step = NULL, *comm_range = NULL;
	int c, rc, json = 0, i;
	long top = 10;
	uint64_t skip = 0;
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
		case OPT_SKIP:
			if (gs_cli_parse_skip("diff", optarg, &skip))
				return GS_EXIT_BAD_INPUT;
			break;
		case OPT_BEFORE:
		case OPT_AFTER: set_list[c == OPT_AFTER] = optarg; break;
		case OPT_STEP:
		case OPT_COMM_RANGE:
			if (!range_arg(c == OPT_STEP ? "--step" : "--comm-range", optarg))
				return GS_EXIT_BAD_INPUT;
			*(c == OPT_STEP ? &step : &comm_range) = optarg;
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
	if (set_list[0] || set_list[1] ||
	    (argc - optind == 2 && (is_dir(argv[optind]) || is_dir(argv[optind + 1])))) {
		char *buf[2] = {NULL, NULL}, **items[2] = {NULL, NULL};
		size_t n[2] = {0, 0};
		const char *labels[2];

		if (range || side_range[0] || side_range[1] || skip) {
			gs_error("diff", "--range, --before-range, --after-range and --skip apply "
					 "to two single traces, not to two sets");
			return GS_EXIT_BAD_INPUT;
		}
		if (set_list[0] || set_list[1]) {
			if (!set_list[0] || !set_list[1] || argc - optind != 0) {
				gs_error("diff", "--before LIST and --after LIST go together, "
						 "without other traces");
				return GS_EXIT_BAD_INPUT;
			}
			for (i = 0, rc = GS_EXIT_OK; i < 2 && rc == GS_EXIT_OK; i++)
				rc = split_list(i ? "--after" : "--before", set_list[i], &buf[i],
						&items[i], &n[i]);
			labels[0] = set_list[0];
			labels[1] = set_list[1];
		} else {
			for (i = 0, rc = GS_EXIT_OK; i < 2; i++) {
				items[i] = &argv[optind + i];
				n[i] = 1;
				labels[i] = argv[optind + i];
			}
		}
		if (rc == GS_EXIT_OK)
			rc = diff_sets(items, n, labels, step, comm_range, json);
		for (i = 0; i < 2; i++) {
			if (buf[i] || set_list[i])
				free(items[i]);
			free(buf[i]);
		}
		return rc;
	}
	if (step || comm_range) {
		gs_error("diff", "--step and --comm-range apply to two sets of traces (folders, "
				 "or --before and --after)");
		return GS_EXIT_BAD_INPUT;
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
	if (skip && !range && !side_range[0] && !side_range[1]) {
		gs_error("diff", "--skip goes with --range NAME: the ranges to leave out");
		return GS_EXIT_BAD_INPUT;
	}
	paths[0] = argv[optind];
	paths[1] = argv[argc - 1]; /* the same file when only one is given */
	for (i = 0; i < 2; i++) {
		gs_options_init(&opt[i]);
		opt[i].range_name = side_range[i] ? side_range[i] : range;
		opt[i].range_skip = opt[i].range_name ? skip : 0;
		side[i].path = paths[i];
		side[i].range = opt[i].range_name;
	}
	rc = html_load_pair(runs, paths, opt);
	if (rc)
		return rc;
	rc = GS_EXIT_OK;
	memset(corr, 0, sizeof(corr));
	if (diff_compute(&runs[0].res, &runs[1].res, &d) < 0) {
		gs_error("diff", "out of memory");
		rc = GS_EXIT_INTERNAL;
	} else {
		/* each calibrated run's utilisation corrected for tracing, as
		 * the report's; every gap is kept (the default options) */
		for (i = 0; i < 2; i++)
			have_corr[i] = runs[i].input->cal.have &&
				       gs_correct(runs[i].input, &runs[i].res, &runs[i].input->cal,
						  &corr[i]) == 0;
		diff_set_corrected(&d, have_corr[0] ? &corr[0] : NULL,
				   have_corr[1] ? &corr[1] : NULL);
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
	gs_corrected_free(&corr[0]);
	gs_corrected_free(&corr[1]);
	html_unload(&runs[1]); /* may share runs[0]'s trace */
	html_unload(&runs[0]);
	return rc;
}
