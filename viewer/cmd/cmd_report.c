/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_report.c - `gapscope report`: load a trace, run the analysis
 * library, hand the result to a renderer (text, or JSON with --json).
 *
 * This file owns option parsing and the bad-input rules (one line, exit 2);
 * it computes the results (analysis, verdict, correction, reference runs)
 * once and hands them to the renderer (render/report_common.c and the back
 * ends).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "report_multi.h"
#include "reference.h"
#include "report.h"
#include "trace_load.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gapscope report [options] TRACE.db\n"
		"       gapscope report [options] A.db B.db ... | FOLDER   (several processes)\n"
		"\n"
		"Where each GPU was idle and why: each gap cut into segments of sync wait,\n"
		"CUDA API, host code, launch latency, graph-internal, dependency or other;\n"
		"launch overhead and host code shares, synchronisations and polls, top\n"
		"kernels, NVTX ranges and CUDA Graph advice. Metric definitions:\n"
		"docs/metrics.md.\n"
		"\n"
		"options:\n"
		"  --json                 print the same figures as JSON (docs/report.md)\n"
		"  --range NAME           only the time inside NVTX ranges whose text is NAME\n"
		"                         (NAME ending in #*: its numbered ranges, e.g.\n"
		"                         ProfilerStep#* for torch.profiler's steps)\n"
		"  --skip N               with --range: leave out the first N of those ranges\n"
		"                         (a warm-up; the verdict names the leading ranges\n"
		"                         that took 4x the median one or more)\n"
		"  --top N                how many largest gaps and kernels to list (default %d)\n"
		"  --graph-node-overhead NS\n"
		"                         per-node cost of a CUDA Graph replay in the graph\n"
		"                         advice, 0 to 1e9 ns (default: measured from the\n"
		"                         trace's graph launches, else %d ns)\n"
		"  --launch-cost NS       launch cost for the short-kernel share, 0 to 1e9 ns\n"
		"                         (default: p50 of the trace's kernel launch calls,\n"
		"                         else %d ns)\n"
		"  --no-overhead-correction\n"
		"                         figures as recorded only: no kernel durations\n"
		"                         shortened by a measured CUPTI per-kernel overhead,\n"
		"                         no figures corrected for the collector's overhead\n"
		"                         (shown beside the measured ones when the trace\n"
		"                         holds a calibration: docs/collector.md)\n"
		"  --full-names           kernel names whole and demangled, lines not wrapped\n"
		"                         (default: short names such as\n"
		"                         at::native::vectorized_elementwise_kernel<…>, and no\n"
		"                         line over 160 characters; --json always has both)\n"
		"  --by-site              GPU idle time by call site of the blocking calls\n"
		"                         (and of late launches), top sites first; then what\n"
		"                         ran in the host code (samples of the launching\n"
		"                         threads, or an imported trace's host spans)\n"
		"  --reference REF.db     an untraced reference run of the same program\n"
		"                         (gapscope record --reference N writes them, NVTX\n"
		"                         ranges only); repeat for each run, at most %d. The\n"
		"                         NVTX ranges are compared with the runs' median\n"
		"                         untraced wall: how far the traced and corrected\n"
		"                         walls are off, and GPU busy over the untraced wall\n"
		"  -h, --help             this help\n"
		"\n"
		"several traces (one per process of a job; a FOLDER means every *.db in it):\n"
		"a row per process (rank from the recorded RANK, OMPI_COMM_WORLD_RANK,\n"
		"PMI_RANK, SLURM_PROCID or LOCAL_RANK, or torch.profiler's distributedInfo,\n"
		"else the pid), then the stragglers: per NVTX step range, which rank started\n"
		"and ended last and by how much, and the time the others spent in\n"
		"communication. A straggler is named from 3 steps on, when its lag over all\n"
		"steps is above the lag's step-to-step spread; else the report says why not\n"
		"(docs/report.md, \"Several traces\"). --json and --top apply; --range and\n"
		"the cost options do not.\n"
		"  --step NAME            the step ranges: NVTX ranges named NAME; a NAME\n"
		"                         ending in #* names its numbered ranges\n"
		"                         (ProfilerStep#* : ProfilerStep#1, #2, ...). Default:\n"
		"                         torch.profiler's ProfilerStep#* where every trace\n"
		"                         has them, else the most frequent range name common\n"
		"                         to all traces\n"
		"  --comm-range NAME      communication = NVTX ranges named NAME (gloo and\n"
		"                         other backends without GPU kernels); default: nccl\n"
		"                         kernels that overlapped no other GPU work\n"
		"  --csv DIR              write processes.csv, steps.csv and gaps.csv (one row\n"
		"                         per gap segment, with its cause) into DIR instead\n"
		"                         (for DuckDB and other engines: docs/many-traces.md)\n"
		"  (--step, --comm-range or --csv with a single trace: this report for it)\n"
		"\n"
		"exit status: 0 report printed (also when --range matches nothing),\n"
		"2 bad input (file, option, or no GPU activity), 1 internal failure.\n",
		GS_DEFAULT_TOP_N, GS_DEFAULT_GRAPH_NODE_OVERHEAD_NS, GS_DEFAULT_LAUNCH_COST_NS,
		GS_REFERENCE_MAX_RUNS);
}

/* Non-negative integer option value, or -1 if malformed. */
static long long parse_count(const char *s)
{
	char *end = NULL;
	long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end != '\0' || v < 0)
		return -1;
	return v;
}

enum {
	OPT_JSON = 1000,
	OPT_RANGE,
	OPT_TOP,
	OPT_NODE,
	OPT_LAUNCH,
	OPT_NOCORR,
	OPT_FULL,
	OPT_STEP,
	OPT_COMM,
	OPT_CSV,
	OPT_BYSITE,
	OPT_REF,
	OPT_SKIP,
};

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, OPT_JSON},
	    {"range", required_argument, NULL, OPT_RANGE},
	    {"skip", required_argument, NULL, OPT_SKIP},
	    {"top", required_argument, NULL, OPT_TOP},
	    {"graph-node-overhead", required_argument, NULL, OPT_NODE},
	    {"launch-cost", required_argument, NULL, OPT_LAUNCH},
	    {"no-overhead-correction", no_argument, NULL, OPT_NOCORR},
	    {"full-names", no_argument, NULL, OPT_FULL},
	    {"by-site", no_argument, NULL, OPT_BYSITE},
	    {"reference", required_argument, NULL, OPT_REF},
	    {"step", required_argument, NULL, OPT_STEP},
	    {"comm-range", required_argument, NULL, OPT_COMM},
	    {"csv", required_argument, NULL, OPT_CSV},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct report_ops *ops = &report_text_ops;
	struct gs_options opt;
	struct gs_input in;
	struct gs_result res;
	struct report_ctx rc_ctx;
	struct gs_verdict verdict;
	struct gs_corrected corr = {0};
	struct gs_reference ref = {0};
	struct gs_calibration cal;
	struct gs_cli_refs refs;
	struct trace t;
	const char *path;
	long long v;
	int c, rc, written, full_names = 0, by_site = 0, have_corr = 0;
	struct report_multi_opts mo = {NULL, NULL, 0, GS_DEFAULT_TOP_N, NULL};
	struct stat st;

	refs.n = 0;
	gs_options_init(&opt);
	opt.all_gaps = 0; /* the renderers read top_gaps only */
	memset(&in, 0, sizeof(in));
	opterr = 0; /* our own one-line messages */
	optind = 0; /* full re-initialisation (glibc), in case of a second call */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON: ops = &report_json_ops; break;
		case OPT_FULL: full_names = 1; break;
		case OPT_BYSITE: by_site = 1; break;
		case OPT_REF:
			if (gs_cli_refs_add(&refs, "report", optarg))
				return GS_EXIT_BAD_INPUT;
			break;
		case OPT_CSV: mo.csv_dir = optarg; break;
		case OPT_STEP:
		case OPT_COMM:
			if (!*optarg) {
				gs_error("report", "--%s needs a non-empty NVTX range name",
					 c == OPT_STEP ? "step" : "comm-range");
				return GS_EXIT_BAD_INPUT;
			}
			if (c == OPT_STEP)
				mo.step = optarg;
			else
				mo.comm_range = optarg;
			break;
		case OPT_RANGE:
			if (!*optarg) {
				gs_error("report", "--range needs a non-empty NVTX range name");
				return GS_EXIT_BAD_INPUT;
			}
			opt.range_name = optarg;
			break;
		case OPT_SKIP:
			if (gs_cli_parse_skip("report", optarg, &opt.range_skip))
				return GS_EXIT_BAD_INPUT;
			break;
		case OPT_TOP:
			v = parse_count(optarg);
			if (v < 0 || v > 1000000) {
				gs_error("report",
					 "--top needs a whole number from 0 to 1000000, not '%s'",
					 optarg);
				return GS_EXIT_BAD_INPUT;
			}
			opt.top_n = (size_t)v;
			break;
		case OPT_NODE:
		case OPT_LAUNCH:
			v = parse_count(optarg);
			if (v < 0 || v > 1000000000LL) {
				gs_error(
				    "report", "--%s needs a duration in ns (0 to 1e9), not '%s'",
				    c == OPT_NODE ? "graph-node-overhead" : "launch-cost", optarg);
				return GS_EXIT_BAD_INPUT;
			}
			if (c == OPT_NODE)
				opt.graph_node_overhead_ns = v;
			else
				opt.launch_cost_ns = v;
			break;
		case OPT_NOCORR: opt.correct_instrumentation = 0; break;
		case 'h': usage(stdout); return GS_EXIT_OK;
		case ':':
			gs_error("report",
				 "option '%s' needs a value; see 'gapscope report --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		default:
			gs_error("report", "unknown option '%s'; see 'gapscope report --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc) {
		gs_error("report", "no trace given; usage: gapscope report [options] TRACE.db");
		return GS_EXIT_BAD_INPUT;
	}
	/* several traces, a folder, or a multi-trace option: the multi-trace
	 * report (report_multi.c); one trace file alone: the report below */
	if (optind != argc - 1 || mo.step || mo.comm_range || mo.csv_dir ||
	    (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode))) {
		if (opt.range_name) {
			gs_error("report", "--range applies to a single trace; with several, "
					   "name the step ranges with --step");
			return GS_EXIT_BAD_INPUT;
		}
		if (refs.n) {
			gs_error("report", "--reference applies to a single trace");
			return GS_EXIT_BAD_INPUT;
		}
		mo.json = ops == &report_json_ops;
		mo.top = opt.top_n;
		return report_multi(argv + optind, (size_t)(argc - optind), &mo);
	}
	if (opt.range_skip && !opt.range_name) {
		gs_error("report", "--skip goes with --range NAME: the ranges to leave out");
		return GS_EXIT_BAD_INPUT;
	}
	path = argv[optind];
	trace_library_init(); /* before the first connection */
	rc = gs_cli_load_trace(&t, path, &in);
	if (rc)
		return rc;
	rc = gs_cli_refs_load(&refs);
	if (rc) {
		trace_input_free(&in);
		trace_close(&t);
		return rc;
	}
	if (in.n_site_refs)
		opt.all_gaps = 1; /* idle by call site reads every gap's segments */
	if (in.cal.have && opt.correct_instrumentation)
		opt.all_gaps = 1; /* the overhead correction too */
	rc = gs_analyze(&in, &opt, &res);
	cal = gs_cli_refs_calibration(&refs, &in);
	if (rc >= 0 && in.cal.have && opt.correct_instrumentation &&
	    gs_correct(&in, &res, &cal, &corr) == 0)
		have_corr = 1;
	if (rc >= 0 && refs.n &&
	    gs_reference_compare(&in, &res, have_corr ? &corr : NULL, refs.ptr, refs.n, &ref) < 0) {
		gs_corrected_free(&corr);
		gs_result_free(&res);
		rc = -ENOMEM;
	}
	if (rc < 0) {
		gs_error(path, "analysis failed: %s", strerror(-rc));
		gs_cli_refs_free(&refs);
		trace_input_free(&in);
		trace_close(&t);
		return GS_EXIT_INTERNAL;
	}
	if (res.range_skipped && !res.range_matches) {
		gs_error(path, "--skip %llu leaves none of its %llu NVTX ranges named \"%s\"",
			 (unsigned long long)opt.range_skip, (unsigned long long)res.range_skipped,
			 opt.range_name);
		gs_corrected_free(&corr);
		gs_reference_free(&ref);
		gs_cli_refs_free(&refs);
		gs_result_free(&res);
		trace_input_free(&in);
		trace_close(&t);
		return GS_EXIT_BAD_INPUT;
	}
	memset(&rc_ctx, 0, sizeof(rc_ctx));
	rc_ctx.out = stdout;
	rc_ctx.path = path;
	rc_ctx.in = &in;
	rc_ctx.res = &res;
	/* once, for whichever renderer */
	gs_verdict_compute_corr(&res, have_corr ? &corr : NULL, &verdict);
	rc_ctx.verdict = &verdict;
	rc_ctx.opt = &opt;
	rc_ctx.full_names = full_names;
	rc_ctx.by_site = by_site;
	if (refs.n) {
		rc_ctx.ref = &ref;
		rc_ctx.ref_paths = refs.paths;
	}
	if (have_corr)
		rc_ctx.corr = &corr;
	rc = report_render(ops, &rc_ctx);
	gs_corrected_free(&corr);
	gs_reference_free(&ref);
	gs_cli_refs_free(&refs);
	/* a failed write to stdout is told once, with its reason (cli.h) */
	written = gs_cli_stdout_check("report");
	gs_result_free(&res);
	trace_input_free(&in);
	trace_close(&t);
	if (written != GS_EXIT_OK)
		return written;
	if (rc) {
		gs_error("report", "cannot write the report: %s", strerror(rc < 0 ? -rc : rc));
		return GS_EXIT_INTERNAL;
	}
	return GS_EXIT_OK;
}
