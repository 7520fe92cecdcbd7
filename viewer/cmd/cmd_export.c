/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_export.c - `gapscope export`: a trace database to Chrome/Perfetto
 * trace JSON or to one CSV file per table.
 *
 * Parses options, opens the trace through gs_cli_open_trace() and hands it
 * to export_chrome() / export_csv() (export_chrome.c, export_csv.c). For
 * Chrome it also runs the analysis library (unless --no-gaps) and feeds
 * its idle gaps, with a one-sentence explanation each, to the exporter.
 * Outputs go through out_file.h: a failed or interrupted export leaves
 * the old file (or the old CSV files) as they were.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "cli.h"
#include "out_file.h"
#include "export.h"
#include "report.h" /* gap_segments_text */
#include "trace_load.h"

/* Hands the analysis' gaps to export_chrome() one at a time, device by
 * device, composing each explanation in a reused buffer. */
struct gap_feed {
	const struct gs_input *in;
	const struct gs_result *res;
	size_t dev;	   /* device of the next gap */
	size_t first;	   /* index of that device's first gap */
	char name[64];	   /* "idle: host code" */
	char detail[1024]; /* the explanation */
};

/* Names go into the fixed buffers cut to what fits (strnlen, "%.*s"):
 * with a plain "%s", snprintf reads a name to its end however little of
 * it fits (glibc formats the rest into a scratch buffer), and 1700 gaps
 * after kernels of a 2 MB name spent 7 s there. The text written is the
 * same. */
static int fits(const char *s, size_t n)
{
	return (int)strnlen(s, n);
}

static const char *op_label(const struct gs_input *in, const struct gs_op *op, char *buf, size_t n)
{
	const char *name = gs_str(&in->strings, op->name_id, "(unnamed)");

	if (op->kind == GS_OP_KERNEL)
		snprintf(buf, n, "kernel %.*s", fits(name, n), name);
	else
		snprintf(buf, n, "%s", op->kind == GS_OP_MEMCPY ? "memcpy" : "memset");
	return buf;
}

static int next_gap(void *ctx, size_t idx, struct export_event *ev)
{
	struct gap_feed *g = ctx;
	const struct gs_input *in = g->in;
	const struct gs_device_result *dv;
	const struct gs_gap *gp;
	char op[384], seg[512];

	while (g->dev < g->res->n_devices && idx >= g->first + g->res->devices[g->dev].n_gaps)
		g->first += g->res->devices[g->dev++].n_gaps;
	if (g->dev >= g->res->n_devices || idx < g->first)
		return -1; /* gaps are fetched in order */
	dv = &g->res->devices[g->dev];
	gp = &dv->gaps[idx - g->first];
	op_label(in, &in->ops[gp->op_idx], op, sizeof(op));
	/* gap model v2: the gap's segments, in time order */
	gap_segments_text(seg, sizeof(seg), in, g->res, gp);
	snprintf(g->detail, sizeof(g->detail), "before %s: %s", op, seg);
	snprintf(g->name, sizeof(g->name), "idle: %s", gs_cause_name(gp->cause));
	memset(ev, 0, sizeof(*ev));
	ev->kind = EXPORT_EV_GAP;
	ev->id = (int64_t)idx;
	ev->pid = dv->device;
	ev->start = gp->start;
	ev->end = gp->end;
	ev->name_id = -1;
	ev->name = g->name;
	ev->cause = gp->cause;
	ev->cause_name = gs_cause_name(gp->cause);
	ev->detail = g->detail;
	ev->api_name = "";
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: gapscope export <trace.db> --format chrome -o <file.json | ->\n"
	      "       gapscope export <trace.db> --format csv -o <directory>\n"
	      "\n"
	      "  -f, --format FMT   chrome: Chrome trace event JSON for ui.perfetto.dev or\n"
	      "                     chrome://tracing (GPU streams, host threads with API calls\n"
	      "                     and NVTX ranges, syncs, launch flow arrows); '-' writes to\n"
	      "                     standard output.\n"
	      "                     csv: one <table>.csv per table of the trace (header row,\n"
	      "                     RFC 4180 quoting, ids resolved to names in extra columns);\n"
	      "                     the directory is created if missing.\n"
	      "  -o, --output PATH  where to write (required)\n"
	      "      --no-gaps      chrome: leave out the idle-gap tracks (skips the analysis,\n"
	      "                     which holds the trace's GPU ops and API calls in memory)\n"
	      "      --csv-raw      csv: keep cells that start with = + - @ tab or CR as\n"
	      "                     they are (by default a ' is put before them, so a\n"
	      "                     spreadsheet shows them as text, not as a formula)\n"
	      "  -h, --help         this text\n"
	      "\n"
	      "Times in the JSON are microseconds (with ns decimals) from the first event.\n",
	      f);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
	    {"no-gaps", no_argument, NULL, 'G'},      {"csv-raw", no_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	const char *format = NULL, *out = NULL, *db;
	struct gs_input in;
	struct gs_result res;
	struct gs_options opt;
	struct gap_feed feed;
	size_t ngaps = 0, d;
	int no_gaps = 0, analysed = 0, csv_raw = 0;
	struct trace t;
	char err[1024] = "";
	int c, rc;

	optind = 0; /* glibc: full re-initialisation (a verb may run twice in tests) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
		case 'G': no_gaps = 1; break;
		case 'R': csv_raw = 1; break;
		case 'h': usage(stdout); return GS_EXIT_OK;
		case ':':
			gs_error("export",
				 "option '%s' needs a value; see 'gapscope export --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		default:
			gs_error("export", "unknown option '%s'; see 'gapscope export --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		}
	}
	if (optind != argc - 1) {
		gs_error("export", optind >= argc
				       ? "which trace? usage: gapscope export <trace.db> "
					 "--format chrome|csv -o <path>"
				       : "one trace at a time; see 'gapscope export --help'");
		return GS_EXIT_BAD_INPUT;
	}
	db = argv[optind];
	if (!format) {
		gs_error("export", "say which format: --format chrome or --format csv");
		return GS_EXIT_BAD_INPUT;
	}
	if (strcmp(format, "chrome") != 0 && strcmp(format, "csv") != 0) {
		gs_error("export", "unknown format '%s' (known: chrome, csv)", format);
		return GS_EXIT_BAD_INPUT;
	}
	if (!out) {
		gs_error("export", "say where to write: -o <%s>",
			 strcmp(format, "csv") ? "file.json, or - for standard output"
					       : "directory");
		return GS_EXIT_BAD_INPUT;
	}
	if (!strcmp(format, "csv") && (!*out || !strcmp(out, "-"))) {
		/* "-" would make a folder named '-' */
		gs_error("export", "CSV is one file per table: -o names a directory, not '%s'",
			 out);
		return GS_EXIT_BAD_INPUT;
	}
	if (csv_raw && strcmp(format, "csv")) {
		gs_error("export", "--csv-raw goes with --format csv");
		return GS_EXIT_BAD_INPUT;
	}
	if ((rc = gs_cli_check_output_name(out, 0)) != 0)
		return rc; /* before any work: the rename at the end would fail */
	if ((rc = gs_cli_open_trace(&t, db)) != 0)
		return rc;

	if (!strcmp(format, "csv")) {
		struct out_dir od;
		/* the files go to a temporary folder inside the target and are
		 * renamed into it when all are whole (out_file.h) */
		if (out_dir_open(&od, out, err, sizeof(err)) < 0) {
			trace_close(&t);
			gs_error(out, "%s", err);
			return GS_EXIT_BAD_INPUT;
		}
		rc = export_csv(&t, od.tmp, csv_raw ? EXPORT_CSV_RAW : 0, err, sizeof(err));
		trace_close(&t);
		if (rc) {
			out_dir_abort(&od);
			/* a damaged trace is named as the trace (exit 2); what
			 * cannot be written, the directory (a full disk, File too
			 * large: exit 1, it said neither the reason nor the
			 * right file before); SQLite's temporary files, their
			 * folder (in err) */
			gs_error(rc == EXPORT_ERR_INPUT	  ? db
				 : rc == EXPORT_ERR_LOCAL ? NULL
							  : out,
				 "%s", err);
			return rc == EXPORT_ERR_INPUT ? GS_EXIT_BAD_INPUT : GS_EXIT_INTERNAL;
		}
		if (out_dir_commit(&od, err, sizeof(err)) < 0) {
			gs_error(out, "%s", err);
			return GS_EXIT_INTERNAL;
		}
		return GS_EXIT_OK;
	}

	/* idle gaps: load and analyse (a trace without GPU ops has none) */
	memset(&in, 0, sizeof(in));
	if (!no_gaps) {
		if (trace_load(&t, GS_LOAD_ALL, &in, err, sizeof(err)) < 0) {
			gs_error(db, "%s", err);
			trace_close(&t);
			return GS_EXIT_BAD_INPUT;
		}
		gs_options_init(&opt);
		if (in.n_ops > 0) {
			rc = gs_analyze(&in, &opt, &res);
			if (rc < 0) {
				gs_error(db, "analysis failed: %s", strerror(-rc));
				trace_input_free(&in);
				trace_close(&t);
				return GS_EXIT_INTERNAL;
			}
			analysed = 1;
			for (d = 0; d < res.n_devices; d++)
				ngaps += res.devices[d].n_gaps;
		}
	}
	memset(&feed, 0, sizeof(feed));
	feed.in = &in;
	feed.res = &res;

	int to_stdout = !strcmp(out, "-");
	struct out_file of;
	/* out_file.h: a temporary file renamed into place when complete */
	if (out_open(&of, out, err, sizeof(err)) < 0) {
		gs_error(out, "%s", err);
		rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	rc = export_chrome(&t, of.f, analysed ? next_gap : NULL, &feed, ngaps, err, sizeof(err));
	if (rc && of.err)
		rc = 0; /* a write error: out_commit below says which */
	if (!rc && !to_stdout && gs_cli_sums_check(db)) {
		out_abort(&of); /* a clamped total does not replace the old file */
		rc = GS_EXIT_BAD_INPUT;
		goto out;
	}
	if (rc) {
		out_abort(&of);
	} else if (out_commit(&of, err, sizeof(err)) < 0) {
		gs_error(to_stdout ? NULL : out, "%s", err);
		rc = GS_EXIT_INTERNAL;
		goto out;
	}
	if (rc == EXPORT_ERR_INPUT) {
		gs_error(db, "%s", err);
		rc = GS_EXIT_BAD_INPUT;
	} else if (rc == EXPORT_ERR_LOCAL) {
		gs_error(NULL, "%s", err); /* names SQLite's temporary folder */
		rc = GS_EXIT_INTERNAL;
	} else if (rc) {
		gs_error(to_stdout ? db : out, "%s", err);
		rc = GS_EXIT_INTERNAL;
	}
out:
	if (analysed)
		gs_result_free(&res);
	trace_input_free(&in);
	trace_close(&t);
	return rc;
}
