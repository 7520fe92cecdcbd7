/*
 * fuzz_read_back.h - what the import fuzz targets (fuzz_kineto.c,
 * fuzz_nsys.c) do with the database an import wrote: read it back as the
 * verbs do (open, load, analyse, verdict). Included by each target (one
 * translation unit each); its includes are the targets' own.
 */
#ifndef GS_FUZZ_READ_BACK_H
#define GS_FUZZ_READ_BACK_H

static void read_back(const char *db)
{
	struct trace t;
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	char err[512];

	if (trace_open(&t, db, err, sizeof(err)) != 0)
		return;
	if (trace_load(&t, GS_LOAD_ALL, &in, err, sizeof(err)) == 0) {
		gs_options_init(&opt);
		if (gs_analyze(&in, &opt, &res) == 0) {
			struct gs_verdict v;
			gs_verdict_compute(&res, &v);
			gs_result_free(&res);
		}
		trace_input_free(&in);
	}
	trace_close(&t);
}

#endif
