/*
 * cmd_export.c - `gapscope export`: a trace database to Chrome/Perfetto
 * trace JSON or to one CSV file per table.
 *
 * Parses options, opens the trace through gs_cli_open_trace() and hands it
 * to export_chrome() / export_csv() (export_chrome.c, export_csv.c). A
 * partially written output file is removed on failure.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"

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
	      "  -h, --help         this text\n"
	      "\n"
	      "Times in the JSON are microseconds (with ns decimals) from the first event.\n",
	      f);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"output", required_argument, NULL, 'o'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *format = NULL, *out = NULL, *db;
	struct trace t;
	char err[1024] = "";
	int c, rc;

	optind = 0; /* glibc: full re-initialisation (a verb may run twice in tests) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'o': out = optarg; break;
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
	if ((rc = gs_cli_open_trace(&t, db)) != 0)
		return rc;

	if (!strcmp(format, "csv")) {
		rc = export_csv(&t, out, err, sizeof(err));
		trace_close(&t);
		if (rc) {
			gs_error(out, "%s", err);
			return GS_EXIT_BAD_INPUT;
		}
		return GS_EXIT_OK;
	}

	int to_stdout = !strcmp(out, "-");
	FILE *f = to_stdout ? stdout : fopen(out, "w");
	if (!f) {
		gs_error(out, "cannot write: %m");
		trace_close(&t);
		return GS_EXIT_BAD_INPUT;
	}
	rc = export_chrome(&t, f, NULL, 0, err, sizeof(err));
	trace_close(&t);
	if (!to_stdout) {
		if (fclose(f) != 0 && rc == 0) {
			snprintf(err, sizeof(err), "write error: %m");
			rc = -1;
		}
		if (rc)
			unlink(out);
	}
	if (rc) {
		gs_error(to_stdout ? db : out, "%s", err);
		return GS_EXIT_INTERNAL;
	}
	return GS_EXIT_OK;
}
