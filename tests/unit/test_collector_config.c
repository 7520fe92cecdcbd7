/*
 * test_collector_config.c - the collector's environment parsing and output
 * path templates (collector/config.c), without CUDA.
 *
 * Environment values come from a table (the getenv seam), warnings are
 * captured through the log sink so each test checks exactly what a user
 * would see on stderr.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

/* ---- a fake environment */
struct env {
	const char *kv[16][2];
};

static const char *env_get(const char *name, void *ctx)
{
	struct env *e = ctx;
	int i;

	for (i = 0; i < 16 && e->kv[i][0]; i++)
		if (strcmp(e->kv[i][0], name) == 0)
			return e->kv[i][1];
	return NULL;
}

/* ---- captured log lines */
static char last_line[512];
static int n_lines;

static void sink(const char *line, void *ctx)
{
	(void)ctx;
	snprintf(last_line, sizeof(last_line), "%s", line);
	n_lines++;
}

static int setup(void **state)
{
	(void)state;
	gs_warnings_reset();
	gs_log_set_sink(sink, NULL);
	gs_log_set_level(GS_LOG_WARN);
	last_line[0] = '\0';
	n_lines = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	gs_log_set_sink(NULL, NULL);
	return 0;
}

/* ---- path templates */
static void expand_ok(const char *tmpl, struct env *e, const char *want)
{
	char out[256], err[128] = "";
	int rc =
	    gs_path_expand(tmpl, out, sizeof(out), 4242, "node7", env_get, e, err, sizeof(err));
	if (rc != 0)
		fail_msg("template \"%s\" failed: %s", tmpl, err);
	assert_string_equal(out, want);
}

static void test_path_pid_host_percent(void **state)
{
	struct env e = {{{NULL, NULL}}};
	(void)state;
	expand_ok("gapscope-%p.db", &e, "gapscope-4242.db");
	expand_ok("/tmp/%h/run-%p.db", &e, "/tmp/node7/run-4242.db");
	expand_ok("100%%-%p", &e, "100%-4242");
	expand_ok("plain.db", &e, "plain.db");
}

static void test_path_env_variable(void **state)
{
	struct env e = {{{"RANK", "3"}, {"JOB", "abc"}}};
	(void)state;
	expand_ok("r%q{RANK}-%q{JOB}.db", &e, "r3-abc.db");
	/* An unset variable expands to nothing. */
	expand_ok("r%q{NOPE}.db", &e, "r.db");
}

static void expand_bad(const char *tmpl, const char *why)
{
	struct env e = {{{NULL, NULL}}};
	char out[256], err[128] = "";
	assert_int_equal(
	    gs_path_expand(tmpl, out, sizeof(out), 1, "h", env_get, &e, err, sizeof(err)), -1);
	if (!strstr(err, why))
		fail_msg("template \"%s\": error \"%s\" does not mention \"%s\"", tmpl, err, why);
}

static void test_path_malformed(void **state)
{
	(void)state;
	expand_bad("a%q{", "unterminated");
	expand_bad("a%q{RANK", "unterminated");
	expand_bad("a%qRANK", "%q must be followed");
	expand_bad("a%q{}b", "variable name");
	expand_bad("a%z", "unknown %z");
	expand_bad("trailing%", "lone %");
	expand_bad("", "empty");
}

static void test_path_too_long(void **state)
{
	struct env e = {{{NULL, NULL}}};
	char out[8], err[128];
	(void)state;
	assert_int_equal(
	    gs_path_expand("abcdefgh", out, sizeof(out), 1, "h", env_get, &e, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "too long"));
	/* Exactly 7 characters + NUL fit. */
	assert_int_equal(
	    gs_path_expand("abc%p", out, sizeof(out), 1234, "h", env_get, &e, err, sizeof(err)), 0);
	assert_string_equal(out, "abc1234");
}

/* ---- environment */
static void test_env_defaults(void **state)
{
	struct env e = {{{NULL, NULL}}};
	struct gs_config c;
	char acts[128];
	(void)state;
	assert_int_equal(gs_config_from_env(&c, env_get, &e), 0);
	assert_string_equal(c.output, "gapscope-%p.db");
	assert_int_equal(c.activities, GS_ACT_ALL & ~GS_ACT_DRIVER);
	gs_activities_to_string(c.activities, acts, sizeof(acts));
	assert_string_equal(acts,
			    "kernel,memcpy,memset,runtime,sync,event,stream,nvtx,graph,overhead");
	assert_int_equal(c.latency, 0);
	assert_int_equal(c.flush_ms, 1000);
	assert_int_equal(c.log_level, GS_LOG_WARN);
	assert_int_equal(c.buffer_kb, 8192);
	assert_int_equal(c.sync_source, GS_SYNC_FROM_CALLBACKS);
	assert_int_equal(c.unwinder, GS_UNWIND_AUTO);
	assert_int_equal(c.native_frames, GS_NATIVE_AUTO);
	assert_int_equal(c.stack_cache, 1);
	assert_int_equal(c.capture_range, GS_CAPTURE_ALL);
	assert_int_equal(c.capture_driver, 0);
	assert_int_equal(n_lines, 0);
	assert_int_equal(gs_warning_count(), 0);
}

static void test_env_valid_values(void **state)
{
	struct env e = {{
	    {"GAPSCOPE_OUTPUT", "out/%q{RANK}-%p.db"},
	    {"GAPSCOPE_ACTIVITIES", " kernel, runtime ,nvtx"},
	    {"GAPSCOPE_LATENCY", "1"},
	    {"GAPSCOPE_GRAPH_LEVEL", "1"},
	    {"GAPSCOPE_FLUSH_MS", "0"},
	    {"GAPSCOPE_LOG", "debug"},
	    {"GAPSCOPE_BUFFER_KB", "1024"},
	    {"GAPSCOPE_SYNC_SOURCE", "cupti"},
	    {"GAPSCOPE_UNWINDER", "libgcc"},
	    {"GAPSCOPE_CLOCK", "realtime"},
	    {"GAPSCOPE_NATIVE_FRAMES", "always"},
	    {"GAPSCOPE_CAPTURE_RANGE", "cudaprofilerapi"}, /* any case, as nsys */
	    {"GAPSCOPE_STACK_CACHE", "0"},
	    {"GAPSCOPE_CAPTURE_DRIVER_LAUNCHES", "windows"},
	}};
	struct gs_config c;
	(void)state;
	assert_int_equal(gs_config_from_env(&c, env_get, &e), 0);
	assert_string_equal(c.output, "out/%q{RANK}-%p.db");
	assert_int_equal(c.activities, GS_ACT_KERNEL | GS_ACT_RUNTIME | GS_ACT_NVTX);
	assert_int_equal(c.latency, 1);
	assert_int_equal(c.graph_level, 1);
	assert_int_equal(c.flush_ms, 0);
	assert_int_equal(c.log_level, GS_LOG_DEBUG);
	assert_int_equal(gs_log_get_level(), GS_LOG_DEBUG);
	assert_int_equal(c.buffer_kb, 1024);
	assert_int_equal(c.sync_source, GS_SYNC_FROM_CUPTI);
	assert_int_equal(c.unwinder, GS_UNWIND_LIBGCC);
	assert_int_equal(c.clock, GS_CLOCK_REALTIME);
	assert_int_equal(c.native_frames, GS_NATIVE_ALWAYS);
	assert_int_equal(c.capture_range, GS_CAPTURE_PROFILER_API);
	assert_int_equal(c.stack_cache, 0);
	assert_int_equal(c.capture_driver, 1);
	assert_int_equal(n_lines, 0);
}

static void test_env_all_activities(void **state)
{
	struct env e = {{{"GAPSCOPE_ACTIVITIES", "all"}}};
	struct gs_config c;
	(void)state;
	assert_int_equal(gs_config_from_env(&c, env_get, &e), 0);
	assert_int_equal(c.activities, 0x7ff);
	assert_true(c.activities & GS_ACT_DRIVER);
}

/* One invalid variable: exactly one warning line naming it, default kept. */
static void check_one_bad(const char *var, const char *value, const char *key)
{
	struct env e = {{{var, value}}};
	struct gs_config c, d;
	const char *k, *m;

	setup(NULL);
	gs_config_defaults(&d);
	assert_int_equal(gs_config_from_env(&c, env_get, &e), 1);
	assert_int_equal(n_lines, 1);
	if (strncmp(last_line, "gapscope: ", 10) != 0 || !strstr(last_line, var))
		fail_msg("warning for %s=%s is \"%s\"", var, value, last_line);
	assert_int_equal(gs_warning_count(), 1);
	assert_int_equal(gs_warning_get(0, &k, &m), 0);
	if (key)
		assert_string_equal(k, key);
	/* the defaults are in effect */
	assert_string_equal(c.output, d.output);
	assert_int_equal(c.activities, d.activities);
	assert_int_equal(c.latency, d.latency);
	assert_int_equal(c.flush_ms, d.flush_ms);
	assert_int_equal(c.buffer_kb, d.buffer_kb);
	assert_int_equal(c.sync_source, d.sync_source);
	assert_int_equal(c.unwinder, d.unwinder);
	assert_int_equal(c.clock, d.clock);
	assert_int_equal(c.native_frames, d.native_frames);
	assert_int_equal(c.stack_cache, d.stack_cache);
	assert_int_equal(c.capture_driver, d.capture_driver);
	assert_int_equal(c.sampling, d.sampling);
}

/* A 0-or-1 setting given something else: the warning names the value in
 * effect, the default (GAPSCOPE_LATENCY's once said "using 1" and used 0) */
static void check_bool_bad(const char *var, int dflt)
{
	char want[64];

	check_one_bad(var, "yes", NULL);
	snprintf(want, sizeof(want), "is not 0 or 1; using %d", dflt);
	if (!strstr(last_line, want))
		fail_msg("warning for %s=yes is \"%s\", not \"... %s\"", var, last_line, want);
}

static void test_env_invalid_values(void **state)
{
	(void)state;
	check_one_bad("GAPSCOPE_OUTPUT", "x%z.db", "config.output");
	check_one_bad("GAPSCOPE_OUTPUT", "x%q{RANK", "config.output");
	check_one_bad("GAPSCOPE_ACTIVITIES", "kernel,gpu", "config.activities");
	check_one_bad("GAPSCOPE_ACTIVITIES", "kernel,,memcpy", "config.activities");
	check_one_bad("GAPSCOPE_LATENCY", "yes", "config.latency");
	check_one_bad("GAPSCOPE_LATENCY", "2", "config.latency");
	check_one_bad("GAPSCOPE_GRAPH_LEVEL", "on", "config.graph_level");
	check_one_bad("GAPSCOPE_CLOCK", "tsc", "config.clock");
	check_one_bad("GAPSCOPE_CLOCK", "REALTIME", "config.clock");
	check_one_bad("GAPSCOPE_SYNC_SOURCE", "CUPTI", "config.sync_source");
	check_one_bad("GAPSCOPE_CAPTURE_RANGE", "nvtx", "config.capture_range");
	check_one_bad("GAPSCOPE_CAPTURE_RANGE", "1", "config.capture_range");
	check_one_bad("GAPSCOPE_SYNC_SOURCE", "1", "config.sync_source");
	check_one_bad("GAPSCOPE_UNWINDER", "libunwind.so.8", "config.unwinder");
	check_one_bad("GAPSCOPE_UNWINDER", "2", "config.unwinder");
	check_one_bad("GAPSCOPE_NATIVE_FRAMES", "1", "config.native_frames");
	check_one_bad("GAPSCOPE_NATIVE_FRAMES", "Always", "config.native_frames");
	check_one_bad("GAPSCOPE_STACK_CACHE", "off", "config.stack_cache");
	check_one_bad("GAPSCOPE_STACK_CACHE", "2", "config.stack_cache");
	check_one_bad("GAPSCOPE_CAPTURE_DRIVER_LAUNCHES", "window",
		      "config.capture_driver_launches");
	check_one_bad("GAPSCOPE_FLUSH_MS", "-5", "config.flush_ms");
	check_one_bad("GAPSCOPE_SAMPLING", "on", "config.sampling");
	{
		struct gs_config d;
		gs_config_defaults(&d);
		check_bool_bad("GAPSCOPE_LATENCY", d.latency);
		check_bool_bad("GAPSCOPE_SAMPLING", d.sampling);
		check_bool_bad("GAPSCOPE_STACK_CACHE", d.stack_cache);
		check_bool_bad("GAPSCOPE_GRAPH_LEVEL", d.graph_level);
	}
	check_one_bad("GAPSCOPE_FLUSH_MS", "10ms", "config.flush_ms");
	check_one_bad("GAPSCOPE_FLUSH_MS", "3600001", "config.flush_ms");
	check_one_bad("GAPSCOPE_BUFFER_KB", "8", "config.buffer_kb");
	check_one_bad("GAPSCOPE_BUFFER_KB", "lots", "config.buffer_kb");
	check_one_bad("GAPSCOPE_LOG", "verbose", "config.log");
}

/* Which activity bits go through CUPTI's kinds: sync and event rows are made
 * from callbacks unless GAPSCOPE_SYNC_SOURCE=cupti. */
static void test_cupti_activities(void **state)
{
	unsigned all_but_driver = GS_ACT_ALL & ~GS_ACT_DRIVER;
	(void)state;
	assert_int_equal(gs_cupti_activities(all_but_driver, GS_SYNC_FROM_CUPTI), all_but_driver);
	assert_int_equal(gs_cupti_activities(all_but_driver, GS_SYNC_FROM_CALLBACKS),
			 GS_ACT_KERNEL | GS_ACT_MEMCPY | GS_ACT_MEMSET | GS_ACT_RUNTIME |
			     GS_ACT_STREAM | GS_ACT_NVTX | GS_ACT_GRAPH | GS_ACT_OVERHEAD);
	assert_int_equal(gs_cupti_activities(GS_ACT_SYNC, GS_SYNC_FROM_CALLBACKS), 0);
	assert_int_equal(gs_cupti_activities(GS_ACT_KERNEL, GS_SYNC_FROM_CALLBACKS), GS_ACT_KERNEL);
}

static void test_env_quiet_silences_warnings(void **state)
{
	struct env e = {{{"GAPSCOPE_LOG", "quiet"}, {"GAPSCOPE_LATENCY", "maybe"}}};
	struct gs_config c;
	(void)state;
	assert_int_equal(gs_config_from_env(&c, env_get, &e), 1);
	assert_int_equal(n_lines, 0);
	/* still remembered for the trace's meta table */
	assert_int_equal(gs_warning_count(), 1);
	gs_log_set_level(GS_LOG_WARN);
}

/* GAPSCOPE_RECORD_START_NS, set by `gapscope record`: a positive decimal
 * number of ns, else 0 (outside a run) without a warning. */
static void test_env_record_start(void **state)
{
	struct env ok = {{{"GAPSCOPE_RECORD_START_NS", "1796211816159485182"}}};
	struct env bad = {{{"GAPSCOPE_RECORD_START_NS", "12x"}}};
	struct env neg = {{{"GAPSCOPE_RECORD_START_NS", "-5"}}};
	struct env none = {{{NULL, NULL}}};
	struct gs_config c;
	(void)state;

	assert_int_equal(gs_config_from_env(&c, env_get, &ok), 0);
	assert_true(c.run_start_ns == 1796211816159485182LL);
	assert_int_equal(gs_config_from_env(&c, env_get, &bad), 0);
	assert_true(c.run_start_ns == 0);
	assert_int_equal(gs_config_from_env(&c, env_get, &neg), 0);
	assert_true(c.run_start_ns == 0);
	assert_int_equal(gs_config_from_env(&c, env_get, &none), 0);
	assert_true(c.run_start_ns == 0);
	assert_int_equal(n_lines, 0);
}

static void test_warning_key_warns_once(void **state)
{
	(void)state;
	gs_warn("subscriber", "first");
	gs_warn("subscriber", "second");
	gs_warn("writer", "third");
	assert_int_equal(n_lines, 2);
	assert_string_equal(last_line, "gapscope: third\n");
	assert_int_equal(gs_warning_count(), 2);
}

/* The GAPSCOPE_ACTIVITIES warning lists every word the parser knows (it
 * left out event and stream), and a long GAPSCOPE_OUTPUT's warning is
 * whole: its start, its end and its length, then what is used instead (it
 * was cut mid-sentence). Issue 55, item 10. */
static void test_warnings_are_whole(void **state)
{
	char value[400];
	struct gs_config c;
	size_t n;

	(void)state;
	{
		struct env e = {{{"GAPSCOPE_ACTIVITIES", "kernel,gpu"}}};
		assert_int_equal(gs_config_from_env(&c, env_get, &e), 1);
		assert_string_equal(
		    last_line, "gapscope: GAPSCOPE_ACTIVITIES=\"kernel,gpu\" is not a comma list "
			       "of kernel, memcpy, memset, runtime, driver, sync, event, stream, "
			       "nvtx, graph, overhead or \"all\"; using the default\n");
	}
	setup(NULL);
	memset(value, 'a', 300);
	strcpy(value + 300, "/x%z.db"); /* 307 bytes, the mistake at the end */
	{
		struct env e = {{{"GAPSCOPE_OUTPUT", value}}};
		assert_int_equal(gs_config_from_env(&c, env_get, &e), 1);
	}
	n = strlen(last_line);
	assert_true(n > 0 && last_line[n - 1] == '\n');
	assert_non_null(strstr(last_line,
			       "...aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/x%z.db\" (307 bytes): "
			       "unknown %z (use %p, %h, %q{VAR} or %%); using "
			       "\"gapscope-%p.db\"\n"));
	assert_int_equal(strncmp(last_line, "gapscope: GAPSCOPE_OUTPUT=\"aaaa", 31), 0);
	/* a %q{VAR} name too long is said so (it read "needs a variable name") */
	setup(NULL);
	memset(value, 'V', 300);
	value[300] = '\0';
	{
		char tmpl[420];
		snprintf(tmpl, sizeof(tmpl), "t%%q{%.300s}.db", value);
		struct env e = {{{"GAPSCOPE_OUTPUT", tmpl}}};
		assert_int_equal(gs_config_from_env(&c, env_get, &e), 1);
	}
	assert_non_null(strstr(last_line, "(308 bytes): %q{VAR}: a variable name of 300 bytes (at "
					  "most 255); using \"gapscope-%p.db\"\n"));
}

/* The rank and world size from the launchers' variables: torchrun's RANK
 * before its LOCAL_RANK, Open MPI's, PMI's, Slurm's; the world size only
 * from the variable paired with the rank's, and only when above the rank. */
static void rank_case(const struct env *e, int want_i, int64_t want_rank, int64_t want_world)
{
	int64_t rank = -7, world = -7;
	int i = gs_rank_from_env(env_get, (void *)e, &rank, &world);

	assert_int_equal(i, want_i);
	if (want_i >= 0) {
		assert_int_equal(rank, want_rank);
		assert_int_equal(world, want_world);
	}
}

static void test_rank_from_launcher_env(void **state)
{
	const struct env torchrun = {
	    {{"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "4"}, {"RANK", "3"}, {"WORLD_SIZE", "8"}}};
	const struct env ompi = {{{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "16"}}};
	const struct env slurm = {
	    {{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}, {"WORLD_SIZE", "9"}}};
	const struct env bad_rank = {{{"RANK", "abc"}, {"PMI_RANK", "7"}, {"PMI_SIZE", "8"}}};
	const struct env local = {{{"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"}}};
	const struct env size_le_rank = {{{"RANK", "4"}, {"WORLD_SIZE", "4"}}};
	const struct env zero = {{{"RANK", "03"}, {"WORLD_SIZE", "x"}}};
	const struct env neg = {{{"RANK", "-1"}}}, big = {{{"RANK", "2147483648"}}};
	const struct env empty = {{{"RANK", ""}}}, none = {{{NULL, NULL}}};

	(void)state;
	rank_case(&torchrun, 0, 3, 8);
	rank_case(&ompi, 1, 5, 16);
	rank_case(&slurm, 3, 2, 4); /* WORLD_SIZE is not Slurm's pair */
	rank_case(&bad_rank, 2, 7, 8);
	rank_case(&local, 4, 1, 0); /* LOCAL_WORLD_SIZE unset */
	rank_case(&size_le_rank, 0, 4, 0);
	rank_case(&zero, 0, 3, 0);
	rank_case(&neg, -1, 0, 0);
	rank_case(&big, -1, 0, 0);
	rank_case(&empty, -1, 0, 0);
	rank_case(&none, -1, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_path_pid_host_percent, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_path_env_variable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_path_malformed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_path_too_long, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_defaults, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_valid_values, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_all_activities, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_invalid_values, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cupti_activities, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_quiet_silences_warnings, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_env_record_start, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_warning_key_warns_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_warnings_are_whole, setup, teardown),
	    cmocka_unit_test(test_rank_from_launcher_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
