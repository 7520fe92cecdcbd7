/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_import.c - `gapscope import`: a torch.profiler (Kineto) Chrome trace
 * JSON (.json or .json.gz) or an Nsight Systems SQLite export into a
 * gapscope trace database, which every other verb then reads. The
 * conversion is kineto_import() or nsys_import() (trace/); this
 * file parses the options and prints one summary, and what could not be
 * mapped, once at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "kineto_import.h"
#include "nsys_import.h"
#include "term.h"

static void import_usage(FILE *f)
{
	fprintf(f, "usage: gapscope import trace.json[.gz] -o trace.db\n"
		   "       gapscope import report.sqlite -o trace.db\n"
		   "\n"
		   "Converts a torch.profiler (Kineto) Chrome trace, as written by\n"
		   "prof.export_chrome_trace() or tensorboard_trace_handler (plain or gzip),\n"
		   "into a gapscope trace database: kernels, memcpy/memset (pageable or\n"
		   "pinned from their names), CUDA runtime/driver calls with their\n"
		   "correlation ids, cuda_sync events, record_function ranges (as NVTX\n"
		   "ranges), devices and thread names. Sync calls without a cuda_sync\n"
		   "event (PyTorch before 2.1) become syncs over the call's time.\n"
		   "PyTorch 1.8-1.10 traces (Kernel, Memcpy, Memset, Runtime) are read too.\n"
		   "Operators, Python functions and record_function ranges are kept as\n"
		   "host spans (host_ranges): the report names host code by them.\n"
		   "\n"
		   "An Nsight Systems SQLite export (nsys export --type sqlite, or nsys\n"
		   "profile --export=sqlite; told apart by its SQLite header) is read\n"
		   "read-only: its CUPTI kernels, copies, memsets, runtime and driver calls,\n"
		   "syncs and CUDA event records, NVTX ranges, threads, processes and GPUs.\n"
		   "Record it with --trace=cuda (and --cuda-graph-trace=node for graphs).\n"
		   "\n"
		   "Every verb reads the result: gapscope report trace.db. What could not be\n"
		   "mapped is counted per category (or table), printed once and kept in\n"
		   "meta (import.unmapped.*). docs/import.md lists the mapping.\n"
		   "The database is written to a temporary file beside trace.db and renamed\n"
		   "into place when complete: a failed import leaves trace.db as it was.\n"
		   "\n"
		   "options:\n"
		   "  -o, --output FILE  the trace database to write (a trace there is replaced;\n"
		   "                     any other file is not)\n"
		   "  -q, --quiet        print nothing on success\n"
		   "      --pid PID      Nsight Systems export of several processes with GPU\n"
		   "                     work (ranks of one job): the one to import (a trace\n"
		   "                     is one process's); without it such an export is\n"
		   "                     refused, with the pids\n"
		   "  -h, --help         this help\n"
		   "\n"
		   "Exit status: 0; 2 when the file is missing, not JSON, truncated, holds\n"
		   "values no trace can, is an Nsight Systems report (.nsys-rep: export it\n"
		   "to SQLite first), an SQLite database that is no Nsight Systems export\n"
		   "(or one without CUDA trace), one whose tables are views, a file whose\n"
		   "queries run past the bound every verb has (GAPSCOPE_QUERY_LIMIT_MS), or\n"
		   "FILE is a folder, the file imported, or a file that is no gapscope\n"
		   "trace (not replaced); 1 when the database cannot be written.\n");
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"pid", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *json;
	struct import_stats st;
	char err[640];
	int c, quiet = 0, rc, nsys;
	long long pid = -1;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qp:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		case 'p': {
			char *end = NULL;
			errno = 0;
			pid = strtoll(optarg, &end, 10);
			if (errno || !*optarg || *end || pid < 0 || pid > 16777215) {
				gs_error("import",
					 "--pid wants a process id (0 to 16777215), not '%s'",
					 optarg);
				return GS_EXIT_BAD_INPUT;
			}
			break;
		}
		case 'h': import_usage(stdout); return GS_EXIT_OK;
		default: import_usage(stderr); return GS_EXIT_BAD_INPUT;
		}
	}
	if (optind + 1 != argc || !out) {
		gs_error("import", "%s",
			 optind + 1 != argc ? "give one trace.json or report.sqlite (see --help)"
					    : "give the database to write: -o trace.db");
		return GS_EXIT_BAD_INPUT;
	}
	json = argv[optind];
	if ((rc = gs_cli_check_output_name(out, 0)) != 0)
		return rc;
	{
		/* -o naming the input itself (or a link to it) would replace the
		 * trace being read with its import: the export is lost */
		struct stat si, so;
		if (stat(json, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino) {
			gs_error(out, "is the file being imported: give the database another name");
			return GS_EXIT_BAD_INPUT;
		}
	}
	if (gs_cli_output_is_foreign(out)) {
		gs_error(out, "exists and is not a gapscope trace: not replaced; give the database "
			      "another name (or remove the file)");
		return GS_EXIT_BAD_INPUT;
	}
	if (nsys_file_is_report(json)) {
		gs_error(json,
			 "an Nsight Systems report, which only Nsight Systems reads: export it"
			 " (nsys export --type sqlite -o report.sqlite <report>) and import"
			 " the .sqlite");
		return GS_EXIT_BAD_INPUT;
	}
	nsys = nsys_file_is_sqlite(json);
	if (pid >= 0 && !nsys) {
		gs_error("import", "--pid is for Nsight Systems exports (a torch.profiler trace is"
				   " one process's)");
		return GS_EXIT_BAD_INPUT;
	}
	rc = nsys ? nsys_import(json, out, pid, GAPSCOPE_VERSION, &st, err, sizeof(err))
		  : kineto_import(json, out, GAPSCOPE_VERSION, &st, err, sizeof(err));
	if (rc == KINETO_ERR_INPUT) {
		gs_error(json, "%s", err);
		return GS_EXIT_BAD_INPUT;
	}
	if (rc == KINETO_ERR_TARGET) {
		gs_error(out, "%s", err);
		return GS_EXIT_BAD_INPUT;
	}
	if (rc != 0) {
		gs_error(out, "%s", err);
		return GS_EXIT_INTERNAL;
	}
	if (quiet)
		return GS_EXIT_OK;
	fputs("imported ", stdout);
	term_put(stdout, json);
	fputs(" -> ", stdout);
	term_put(stdout, out);
	printf(": %" PRId64 " kernels, %" PRId64 " memcpys, %" PRId64 " memsets, %" PRId64
	       " API calls, %" PRId64 " syncs (%" PRId64 " implicit), %" PRId64 " ranges, %" PRId64
	       " devices\n",
	       st.kernels, st.memcpys, st.memsets, st.api_calls, st.syncs + st.implicit_syncs,
	       st.implicit_syncs, st.ranges, st.devices);
	if (st.n_unmapped || st.unmapped[IMPORT_MAX_CATS].n) {
		const char *sep = "";
		fputs(nsys ? "not mapped (rows per table):" : "not mapped (events per category):",
		      stdout);
		for (i = 0; i <= IMPORT_MAX_CATS; i++) {
			if (!st.unmapped[i].n)
				continue;
			printf("%s %s %" PRId64, sep, st.unmapped[i].cat, st.unmapped[i].n);
			sep = ",";
		}
		putchar('\n');
	}
	if (st.rows_left_out)
		printf("%" PRId64 " rows were left out: their times, device or stream are none a"
		       " trace can hold (damaged export?)\n",
		       st.rows_left_out);
	if (st.graph_runs)
		printf("%" PRId64 " CUDA graph launches were traced graph-level: one GPU span each,"
		       " no kernels of their nodes\n",
		       st.graph_runs);
	if (st.graph_launches_unseen)
		printf("note: %" PRId64 " CUDA graph launches, but none of their GPU work is in the"
		       " export (traced graph-level in a layout gapscope does not read?): the GPU"
		       " reads as idle while they ran; record with nsys --cuda-graph-trace=node\n",
		       st.graph_launches_unseen);
	if (st.host_ops)
		printf("%" PRId64 " host spans (operators, Python functions): the report names host"
		       " code by them\n",
		       st.host_ops);
	if (st.repaired)
		printf("%" PRId64 " strings held invalid UTF-8, stored with U+FFFD in its place\n",
		       st.repaired);
	if (st.graph_ops)
		printf("%" PRId64 " ops of graph launches had no graph id: each took its launch's"
		       " correlation id\n",
		       st.graph_ops);
	if (st.syncs_from_calls)
		printf("%" PRId64 " sync calls had no %s record: each is a sync of the call's"
		       " time (stream or event not known)\n",
		       st.syncs_from_calls, nsys ? "synchronization" : "cuda_sync");
	if (st.waits_unrecorded)
		printf("note: %" PRId64
		       " cudaStreamWaitEvent calls but no stream-wait records (%s);"
		       " the report counts what they held as other\n",
		       st.waits_unrecorded,
		       nsys ? "no CUPTI synchronization records in the export"
			    : "no cuda_sync events: torch.profiler before PyTorch 2.1");
	return GS_EXIT_OK;
}
