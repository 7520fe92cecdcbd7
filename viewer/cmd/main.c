/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * main.c - the gapscope command: dispatches to one cmd_<verb>() per verb.
 * Adding a verb = one new viewer/cmd_<verb>.c and one row in `verbs`.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct verb verbs[] = {
    {"record", cmd_record, "run a program under the collector and write a trace database"},
    {"info", cmd_info, "what a trace holds: versions, command, devices, row counts, drops"},
    {"report", cmd_report, "summary of idle gaps, their causes, launch overhead and syncs"},
    {"html", cmd_html, "self-contained HTML page with an SVG timeline"},
    {"graph", cmd_graph, "list and draw recorded CUDA graphs (DOT, SVG, PNG)"},
    {"export", cmd_export, "export to Chrome/Perfetto trace JSON or CSV"},
    {"diff", cmd_diff, "compare two runs"},
    {"whatif", cmd_whatif, "replay a trace with verdict rules' fixes applied: what they save"},
    {"import", cmd_import,
     "convert a torch.profiler JSON or an Nsight Systems SQLite export into a trace"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: gapscope <command> [options]\n\n"
		   "gapscope finds where a CUDA program left its GPU idle, and why.\n\n"
		   "commands:\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].help);
	fprintf(f, "\nRun 'gapscope <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	gs_cli_stdout_init();
	if (argc < 2) {
		usage(stderr);
		return GS_EXIT_BAD_INPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return gs_cli_stdout_check(NULL);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gapscope %s (trace schema %d)\n", GAPSCOPE_VERSION, GS_SCHEMA_VERSION);
		return gs_cli_stdout_check(NULL);
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name)) {
			int rc = verbs[i].fn(argc - 1, argv + 1);
			/* what a verb printed must have reached standard output
			 * (graph's list to /dev/full exited 0); the line is printed
			 * once, also after a verb that failed for that reason */
			int out = gs_cli_stdout_check(verbs[i].name);
			/* a sum clamped at 2^63-1 is no true figure: said, exit 2
			 * (the verbs that write files check before the rename) */
			int sums = gs_cli_sums_check(verbs[i].name);
			if (rc == GS_EXIT_OK && sums)
				return sums;
			return rc == GS_EXIT_OK ? out : rc;
		}
	gs_error(NULL, "'%s' is not a command; see 'gapscope --help'", argv[1]);
	return GS_EXIT_BAD_INPUT;
}
