/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_whatif.c - `gapscope whatif TRACE --fix RULE[,RULE]`: replay the
 * trace with the fixes of those verdict rules applied (whatif.h) and print
 * the replayed timeline's figures before and after (whatif_text.c); with
 * -o, write the replayed trace as a database (trace_whatif.c) so diff and
 * html show the prediction. --check replays it unchanged and says how
 * exactly that gives the trace back.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "correct.h"
#include "trace_load.h"
#include "trace_whatif.h"
#include "whatif.h"
#include "whatif_text.h"

static void usage(FILE *f)
{
	fputs("usage: gapscope whatif <trace.db> --fix RULE[,RULE...] [-o <replayed.db>]\n"
	      "       gapscope whatif <trace.db> --check\n"
	      "\n"
	      "Replays the trace with the fixes of verdict rules applied and prints the\n"
	      "replayed GPU window, busy time, utilisation and step time before and after,\n"
	      "and what the fixes save (docs/whatif.md; the model: docs/metrics.md).\n"
	      "\n"
	      "  --fix RULES        comma-separated rule keys (as the report's JSON names them):\n"
	      "                     sync_every_step   keep one per-step sync of N (--every)\n"
	      "                     pageable_copies   pinned host memory\n"
	      "                     sync_copies       async copies, one sync per step\n"
	      "                     alloc_in_loop     no steady-state cudaMalloc/cudaFree\n"
	      "                     launch_overhead   the repeated sequence as CUDA Graph replays\n"
	      "                     short_kernels     the same\n"
	      "                     host_code         no host code between CUDA calls (< 1 ms)\n"
	      "                     host_own_work     the same\n"
	      "                     input_wait        no input stalls: each batch ready when asked\n"
	      "                                       (every thread's host time in a device gap\n"
	      "                                       before an upload with 1 ms of it or more)\n"
	      "                     host_stalls       no host time in the spans of one host\n"
	      "                                       operator (--op; imported traces' CPU\n"
	      "                                       operators)\n"
	      "                     legacy_stream     created streams, no legacy serialisation\n"
	      "                     exposed_communication\n"
	      "                                       collectives overlapped with compute\n"
	      "                     all               every one of them (host_stalls with --op)\n"
	      "      --every N      sync_every_step: keep one sync of N (default 10)\n"
	      "      --pinned-gbps X\n"
	      "                     pageable_copies: pinned bandwidth in GB/s (default: the\n"
	      "                     trace's pinned copies of 1 MiB or more, else 50)\n"
	      "      --op NAME      host_stalls: the host operator whose spans' host time\n"
	      "                     goes (as the report names it: aten::unflatten_dense_tensors)\n"
	      "      --traced       replay the trace as recorded; by default, where the trace\n"
	      "                     has a calibration, tracing's cost is taken off the model\n"
	      "                     first (the report's overhead correction), so before and\n"
	      "                     after are the untraced program's\n"
	      "      --range NAME   the figures of the ops launched inside NVTX ranges named\n"
	      "                     NAME only (Stem#* names numbered ranges); the fixes apply\n"
	      "                     to the whole trace\n"
	      "  -o, --output FILE  also write the replayed trace there (a trace database)\n"
	      "      --check        replay unchanged: how far each op's start lands from the\n"
	      "                     recorded one (max, p99) and the window's error\n"
	      "  -h, --help         this text\n"
	      "\n"
	      "exit status: 0 done, 2 bad input (file, option, unknown rule), 1 internal\n"
	      "failure.\n",
	      f);
}

enum { OPT_FIX = 1000, OPT_EVERY, OPT_PINNED, OPT_CHECK, OPT_RANGE, OPT_TRACED, OPT_OP };

/* --fix list into bits; 0 and one line on error */
static int parse_fixes(const char *arg, uint32_t *bits)
{
	char buf[512], *p, *save = NULL;

	*bits = 0;
	if (strlen(arg) >= sizeof(buf)) {
		gs_error("whatif", "--fix: the list is too long");
		return -1;
	}
	strcpy(buf, arg);
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		uint32_t b;
		if (!strcmp(p, "all")) {
			int r;
			for (r = 0; r < 32; r++)
				if (gs_whatif_fix_key(r))
					*bits |= 1u << r;
			continue;
		}
		b = gs_whatif_fix_bit(p);
		if (!b) {
			gs_error("whatif",
				 "--fix: '%s' is no rule with a fix modelled; see 'gapscope whatif "
				 "--help'",
				 p);
			return -1;
		}
		*bits |= b;
	}
	if (!*bits) {
		gs_error("whatif", "--fix needs at least one rule; see 'gapscope whatif --help'");
		return -1;
	}
	return 0;
}

/* 1 when the --fix list names key itself (not through "all") */
static int named(const char *list, const char *key)
{
	size_t n = strlen(key);
	const char *p = list;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

int cmd_whatif(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"fix", required_argument, NULL, OPT_FIX},
	    {"every", required_argument, NULL, OPT_EVERY},
	    {"pinned-gbps", required_argument, NULL, OPT_PINNED},
	    {"output", required_argument, NULL, 'o'},
	    {"check", no_argument, NULL, OPT_CHECK},
	    {"range", required_argument, NULL, OPT_RANGE},
	    {"traced", no_argument, NULL, OPT_TRACED},
	    {"op", required_argument, NULL, OPT_OP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct gs_whatif_opts wo;
	struct gs_options opt;
	struct gs_input in;
	struct gs_result res;
	struct gs_whatif w;
	struct gs_whatif_check chk;
	struct whatif_view v;
	struct trace t;
	const char *out = NULL, *fixes = NULL, *path, *op = NULL;
	char err[512] = "", *end;
	struct gs_corrected corr;
	struct gs_whatif_untrace u;
	int c, rc, check = 0, have_w = 0, traced = 0, have_corr = 0;

	gs_whatif_opts_init(&wo);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_FIX:
			if (parse_fixes(optarg, &wo.fixes))
				return GS_EXIT_BAD_INPUT;
			fixes = optarg;
			break;
		case OPT_EVERY: {
			long n;
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > 1000000) {
				gs_error("whatif",
					 "--every needs a whole number from 1 to 1000000");
				return GS_EXIT_BAD_INPUT;
			}
			wo.sync_every = (int)n;
			break;
		}
		case OPT_PINNED:
			errno = 0;
			wo.pinned_gbps = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(wo.pinned_gbps > 0) ||
			    wo.pinned_gbps > 1e4) {
				gs_error("whatif",
					 "--pinned-gbps needs a bandwidth in GB/s above 0");
				return GS_EXIT_BAD_INPUT;
			}
			break;
		case 'o': out = optarg; break;
		case OPT_CHECK: check = 1; break;
		case OPT_TRACED: traced = 1; break;
		case OPT_RANGE:
			if (!*optarg) {
				gs_error("whatif", "--range needs a non-empty NVTX range name");
				return GS_EXIT_BAD_INPUT;
			}
			wo.range_name = optarg;
			break;
		case OPT_OP:
			if (!*optarg) {
				gs_error("whatif", "--op needs a host operator's name");
				return GS_EXIT_BAD_INPUT;
			}
			op = optarg;
			break;
		case 'h': usage(stdout); return GS_EXIT_OK;
		case ':':
			gs_error("whatif",
				 "option '%s' needs a value; see 'gapscope whatif --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		default:
			gs_error("whatif", "unknown option '%s'; see 'gapscope whatif --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		}
	}
	if (argc - optind != 1) {
		gs_error("whatif", argc - optind < 1
				       ? "which trace? usage: gapscope whatif <trace.db> --fix RULE"
				       : "one trace at a time; see 'gapscope whatif --help'");
		return GS_EXIT_BAD_INPUT;
	}
	if (!fixes && !check) {
		gs_error("whatif", "--fix RULE[,RULE] or --check; see 'gapscope whatif --help'");
		return GS_EXIT_BAD_INPUT;
	}
	if (op && !(wo.fixes & (1u << GS_RULE_HOST_STALL))) {
		gs_error("whatif", "--op names the operator of --fix host_stalls: add that fix");
		return GS_EXIT_BAD_INPUT;
	}
	if (!op && fixes && named(fixes, "host_stalls")) {
		gs_error("whatif", "--fix host_stalls needs --op NAME: the host operator whose time"
				   " goes");
		return GS_EXIT_BAD_INPUT;
	}
	if (out && !fixes) {
		gs_error("whatif", "-o writes the trace replayed with --fix: name the fixes");
		return GS_EXIT_BAD_INPUT;
	}
	path = argv[optind];
	trace_library_init();
	rc = gs_cli_load_trace(&t, path, &in);
	if (rc)
		return rc;
	/* the copies' bytes: trace_load read them (in.op_bytes, freed with in) */
	wo.op_bytes = in.op_bytes;
	if (op) {
		/* the operator's strings id, where a host span has it */
		size_t i;
		uint32_t id = 0;
		for (i = 0; i < in.n_hranges && !id; i++)
			if (!strcmp(gs_str(&in.strings, in.hranges[i].name_id, ""), op))
				id = in.hranges[i].name_id;
		if (!id) {
			gs_error(path,
				 "--op: no host operator span named \"%s\" in the trace (its CPU"
				 " operators: an imported torch.profiler trace)",
				 op);
			trace_input_free(&in);
			trace_close(&t);
			return GS_EXIT_BAD_INPUT;
		}
		wo.host_op_id = id;
	}
	gs_options_init(&opt);
	/* the replay reads the launch calls and the graph advice only; the
	 * overhead correction (tracing's cost off the model) every gap */
	opt.all_gaps = fixes && !traced && in.cal.have;
	rc = gs_analyze(&in, &opt, &res);
	if (rc < 0) {
		gs_error(path, "analysis failed: %s", strerror(-rc));
		trace_input_free(&in);
		trace_close(&t);
		return GS_EXIT_INTERNAL;
	}
	memset(&corr, 0, sizeof(corr));
	if (opt.all_gaps && gs_correct(&in, &res, &in.cal, &corr) == 0) {
		have_corr = 1;
		if (gs_whatif_untrace_from(&corr, &u) == 0)
			wo.untrace = &u;
	}
	if (check)
		rc = gs_whatif_check(&res, &chk);
	if (rc >= 0 && fixes) {
		rc = gs_whatif_run(&res, &wo, &w);
		have_w = rc >= 0;
	}
	if (rc < 0) {
		gs_error(path, "replay failed: %s", strerror(-rc));
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
	if (have_w && wo.range_name && !w.range_ops) {
		gs_error(path, "--range: no GPU op was launched inside an NVTX range named \"%s\"",
			 wo.range_name);
		rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	memset(&v, 0, sizeof(v));
	v.path = path;
	v.fixes = fixes;
	v.range = wo.range_name;
	v.sync_every = wo.sync_every;
	v.in = &in;
	v.w = have_w ? &w : NULL;
	v.check = check ? &chk : NULL;
	v.have_bytes = in.op_bytes != NULL;
	v.pageable = (wo.fixes & (1u << GS_RULE_PAGEABLE)) != 0;
	v.untrace = wo.untrace;
	v.traced_why = wo.untrace ? 0 : traced ? 1 : 2;
	whatif_text(stdout, &v);
	rc = GS_EXIT_OK;
	if (out) {
		struct trace_retime rt = {
		    .op_start = w.op_start,
		    .op_end = w.op_end,
		    .api_start = w.api_start,
		    .api_end = w.api_end,
		    .nvtx_start = w.nvtx_start,
		    .nvtx_end = w.nvtx_end,
		    .api_fix = w.api_fix,
		    .op_corr = w.op_corr,
		    .fixes = fixes,
		};
		if (trace_write_retimed(&t, &in, &rt, out, err, sizeof(err)) < 0) {
			gs_error(out, "%s", err);
			rc = GS_EXIT_BAD_INPUT;
		}
	}
out:
	if (have_corr)
		gs_corrected_free(&corr);
	if (have_w)
		gs_whatif_free(&w);
	gs_result_free(&res);
	trace_input_free(&in);
	trace_close(&t);
	return rc;
}
