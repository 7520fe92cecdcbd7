/*
 * fuzz_trace.c - libFuzzer target for the trace reader: each input is
 * written to a file and read as a trace the way the verbs read it -
 * trace_open (header, kind of file, table checks, defences), trace_load
 * of everything, gs_analyze, the verdict and the overhead correction
 * (report, html, diff), the same over a --range step --skip 1 selection,
 * info_load (info),
 * export_walk with no-op callbacks (export chrome/json) and tg_list (graph).
 * A crash, a sanitizer report, a leak or a hang (libFuzzer's -timeout) is
 * a finding; exit codes and messages are the CLI tests' business.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined by tests/cli/fuzz.cmake
 * (the project's own compiler may be gcc, which has no libFuzzer), seeded
 * with the databases the CLI tests write (tests/fuzz/seed.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "correct.h"
#include "export_walk.h"
#include "trace.h"
#include "trace_graph.h"
#include "trace_info.h"
#include "trace_load.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	trace_library_init();
	/* a query step bound short enough for the fuzzer's own -timeout */
	setenv("GAPSCOPE_QUERY_LIMIT_MS", "1000", 1);
	snprintf(path, sizeof(path), "/tmp/gapscope-fuzz-%ld.db", (long)getpid());
	return 0;
}

/* the input's file and what SQLite made beside it: an input in WAL mode
 * leaves -wal and -shm files after a read-only open (they piled up in /tmp,
 * two per fuzz run) */
static void remove_db(const char *db)
{
	static const char *const side[] = {"", "-wal", "-shm", "-journal"};
	char p[sizeof(path) + 16];
	size_t i;

	for (i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", db, side[i]);
		unlink(p);
	}
}

static int on_event(void *ctx, const struct export_event *ev)
{
	/* touch what an exporter reads */
	*(size_t *)ctx += strlen(ev->name) + strlen(ev->detail) + strlen(ev->api_name);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct info info;
	struct tg_info *graphs = NULL;
	struct export_ops ops = {0};
	size_t n = 0, touched = 0;
	char err[512];
	FILE *f;

	f = fopen(path, "wb");
	if (!f)
		return 0;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);

	if (trace_open(&t, path, err, sizeof(err)) == 0) {
		if (trace_load(&t, GS_LOAD_ALL, &in, err, sizeof(err)) == 0) {
			gs_options_init(&opt);
			if (gs_analyze(&in, &opt, &res) == 0) {
				/* what report reads from the result: the verdict,
				 * the overhead correction where the trace is calibrated */
				struct gs_verdict v;
				struct gs_corrected corr;
				gs_verdict_compute(&res, &v);
				(void)gs_graph_launch_stat(&res);
				if (in.cal.have && gs_correct(&in, &res, &in.cal, &corr) == 0)
					gs_corrected_free(&corr);
				gs_result_free(&res);
			}
			/* a selection, as report --range step --skip 1: its
			 * leading ranges and the verdict over it */
			gs_options_init(&opt);
			opt.range_name = "step";
			opt.range_skip = 1;
			if (gs_analyze(&in, &opt, &res) == 0) {
				struct gs_verdict v;
				gs_verdict_compute(&res, &v);
				gs_result_free(&res);
			}
			trace_input_free(&in);
		}
		ops.event = on_event;
		(void)export_walk(&t, &ops, &touched, err, sizeof(err));
		if (tg_list(&t, &graphs, &n, err, sizeof(err)) == 0)
			free(graphs);
		trace_close(&t);
	}
	memset(&info, 0, sizeof(info));
	if (trace_open(&info.t, path, err, sizeof(err)) == 0) {
		(void)info_load(&info);
		info_free(&info);
	}
	remove_db(path);
	return 0;
}
