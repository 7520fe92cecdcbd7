/*
 * fuzz_kineto.c - libFuzzer target for `gapscope import` of a torch.profiler
 * (Kineto) Chrome trace: each input is written to a file and imported by
 * kineto_import() (yajl's parser through zlib's gzread: gzip inputs too),
 * and a database it wrote is read back as every verb reads a trace:
 * trace_open, trace_load, gs_analyze and the verdict. A crash, a sanitizer
 * report, a leak or a hang (libFuzzer's -timeout) is a finding; exit codes
 * and messages are the CLI tests' business (tests/cli/kineto_check.py).
 *
 * Built with clang -fsanitize=fuzzer,address,undefined by
 * tests/cli/fuzz.cmake; seeds in tests/fuzz/corpus/kineto.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "kineto_import.h"
#include "trace.h"
#include "trace_load.h"

static char src[96], out[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	(void)argc;
	(void)argv;
	trace_library_init();
	/* a query step bound short enough for the fuzzer's own -timeout */
	setenv("GAPSCOPE_QUERY_LIMIT_MS", "1000", 1);
	snprintf(src, sizeof(src), "%s/gapscope-fuzz-kineto-%ld.json", dir, (long)getpid());
	snprintf(out, sizeof(out), "%s/gapscope-fuzz-kineto-%ld.db", dir, (long)getpid());
	return 0;
}

#include "fuzz_read_back.h" /* read the import back as the verbs do */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_stats st;
	char err[640];
	FILE *f = fopen(src, "wb");

	if (!f)
		return 0;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return 0;
	}
	fclose(f);
	if (kineto_import(src, out, "fuzz", &st, err, sizeof(err)) == 0)
		read_back(out);
	unlink(out);
	unlink(src);
	return 0;
}
