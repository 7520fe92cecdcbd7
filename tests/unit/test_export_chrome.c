/*
 * test_export_chrome.c - the Chrome trace exporter on the hand-made
 * fixture (test_export_fixture.c): the output parses as JSON (jansson),
 * holds exactly the events the fixture's rows call for, with times in µs
 * from the first event, hostile names intact, flow arrows from launches,
 * and "X" slices that nest on every track (Perfetto drops overlapping ones).
 * Fixture variant 3 adds schema v2 graph runs (graph-level recording); a
 * v1 trace (no graph_runs table) exports as before. A capture trace
 * (record --capture-range, schema v3) gets its windows on a track of its own.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <sqlite3.h>

#include "export.h"
#include "test_export_fixture.h"

struct fx {
	char dir[64];
	char path[128];
	struct trace t;
};

/* fixture variant `variant`; sql (NULL: none) run on it before it is opened */
static int setup_variant(void **state, int variant, const char *sql)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char err[256];

	strcpy(fx->dir, "/tmp/gs_test_chrome_XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->path, sizeof(fx->path), "%s/run.db", fx->dir);
	if (fixture_write(fx->path, variant))
		return -1;
	if (sql) {
		sqlite3 *db = NULL;
		int rc = sqlite3_open(fx->path, &db) == SQLITE_OK &&
			 sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
		sqlite3_close(db);
		if (!rc)
			return -1;
	}
	if (trace_open(&fx->t, fx->path, err, sizeof(err)))
		return -1;
	*state = fx;
	return 0;
}

static int setup(void **state)
{
	return setup_variant(state, 0, NULL);
}

/* schema v2 graph-level trace: fixture variant 3 */
static int setup_graph_level(void **state)
{
	return setup_variant(state, 3, NULL);
}

/* a v1 trace: variant 0 as a collector before schema v2 wrote it */
static int setup_v1(void **state)
{
	return setup_variant(state, 0,
			     "DROP TABLE graph_runs; DROP TABLE stack_frames; DROP TABLE api_stacks;"
			     "UPDATE meta SET value = '1' WHERE key = 'schema_version';");
}

/* record --capture-range: variant 0 with capture windows [400, 1400]
 * (rows [400, 1400] and [1000, 1200], which overlap: one window) and
 * [5000, 6000]; the first opens before the first event (900) */
#define CAPTURE_ROWS "INSERT INTO capture_windows VALUES(400,1400),(1000,1200),(5000,6000);"
static int setup_capture(void **state)
{
	return setup_variant(state, 0,
			     "INSERT OR REPLACE INTO meta VALUES('schema_version','3'),"
			     "('capture_range','cudaProfilerApi');" CAPTURE_ROWS);
}

/* the same rows in a trace recorded whole (no meta capture_range) */
static int setup_rows_whole(void **state)
{
	return setup_variant(state, 0, CAPTURE_ROWS);
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	trace_close(&fx->t);
	unlink(fx->path);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static int one_gap(void *ctx, size_t idx, struct export_event *ev)
{
	assert_int_equal(idx, 0);
	*ev = *(const struct export_event *)ctx;
	return 0;
}

/* the JSON text export_chrome writes for fx (no gaps); free() it */
static char *export_text(struct fx *fx)
{
	char *buf = NULL, err[256] = "";
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_int_equal(export_chrome(&fx->t, f, NULL, NULL, 0, err, sizeof(err)), 0);
	fclose(f);
	return buf;
}

static json_t *export_parse(struct fx *fx, struct export_event *gap)
{
	char *buf = NULL, err[256] = "";
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	json_error_t jerr;
	json_t *root;

	assert_int_equal(
	    export_chrome(&fx->t, f, gap ? one_gap : NULL, gap, gap ? 1 : 0, err, sizeof(err)), 0);
	fclose(f);
	root = json_loads(buf, 0, &jerr);
	if (!root)
		fprintf(stderr, "line %d: %s\n", jerr.line, jerr.text);
	assert_non_null(root);
	free(buf);
	return root;
}

static int count_ph(json_t *evs, const char *ph)
{
	size_t i;
	json_t *e;
	int n = 0;

	json_array_foreach(evs, i, e) if (!strcmp(json_string_value(json_object_get(e, "ph")), ph))
	    n++;
	return n;
}

/* the event with this ph and name (exactly one must exist) */
static json_t *find(json_t *evs, const char *ph, const char *name)
{
	size_t i;
	json_t *e, *found = NULL;
	int n = 0;

	json_array_foreach(evs, i, e)
	{
		const char *nm = json_string_value(json_object_get(e, "name"));
		if (!strcmp(json_string_value(json_object_get(e, "ph")), ph) && nm &&
		    !strcmp(nm, name)) {
			found = e;
			n++;
		}
	}
	assert_int_equal(n, 1);
	return found;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void assert_close(double got, double want)
{
	if (fabs(got - want) > 1e-9) {
		fprintf(stderr, "got %.9f, want %.9f\n", got, want);
		fail();
	}
}

static void test_chrome_event_counts_match_the_fixture(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");

	/* 7 metadata (GPU process name+sort, 2 streams, host process name+sort,
	 * 1 thread); 12 slices (4 kernels, 1 copy, 1 memset, 5 API calls,
	 * 1 NVTX range); 1 mark; 2 syncs as b/e; 4 launches with a recorded
	 * API call (kernels 1-3, the copy) as s/f flow pairs. */
	assert_int_equal(json_array_size(evs), 32);
	assert_int_equal(count_ph(evs, "M"), 7);
	assert_int_equal(count_ph(evs, "X"), 12);
	assert_int_equal(count_ph(evs, "i"), 1);
	assert_int_equal(count_ph(evs, "b"), 2);
	assert_int_equal(count_ph(evs, "e"), 2);
	assert_int_equal(count_ph(evs, "s"), 4);
	assert_int_equal(count_ph(evs, "f"), 4);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "otherData"), "origin_ns")),
	    "900");
	json_decref(root);
}

static void test_chrome_kernel_times_are_us_from_first_event(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");
	json_t *k = find(evs, "X", FIX_KERNEL_TEMPLATE), *args = json_object_get(k, "args");

	/* kernel 1: [2000, 4000] ns, origin 900 ns */
	assert_close(num(k, "ts"), 1.1);
	assert_close(num(k, "dur"), 2.0);
	assert_int_equal(num(k, "pid"), EXPORT_GPU_PID(0));
	assert_int_equal(num(k, "tid"), 7);
	assert_string_equal(json_string_value(json_object_get(args, "grid")), "2x1x1");
	assert_string_equal(json_string_value(json_object_get(args, "block")), "128x1x1");
	assert_int_equal(num(args, "registers"), 32);
	assert_int_equal(num(args, "shared_bytes"), 1024);
	assert_int_equal(num(args, "correlation_id"), 10);

	/* the memcpy: [5200, 6000] */
	k = find(evs, "X", "Memcpy HtoD");
	assert_close(num(k, "ts"), 4.3);
	assert_close(num(k, "dur"), 0.8);
	assert_string_equal(json_string_value(json_object_get(json_object_get(k, "args"), "src")),
			    "pageable");
	json_decref(root);
}

static void test_chrome_hostile_names_survive_intact(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");
	json_t *e;

	e = find(evs, "X", FIX_KERNEL_SCRIPT);
	assert_close(num(e, "ts"), 9.1); /* [10000, 10500] */
	e = find(evs, "X", FIX_NVTX_TEXT);
	assert_close(num(e, "ts"), 0.0); /* [900, 9900] */
	assert_close(num(e, "dur"), 9.0);
	find(evs, "X", FIX_KERNEL_UTF8);
	/* the invalid byte 0xFF became U+FFFD */
	e = find(evs, "X", "bad\xef\xbf\xbdutf8");
	assert_int_equal(num(e, "tid"), 13);
	find(evs, "i", FIX_KERNEL_SCRIPT); /* the NVTX mark */
	json_decref(root);
}

static void test_chrome_tracks_are_named(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");
	const char *want[] = {"GPU 0 (NVIDIA H200)", "process 4242 (./app --n=3)", "stream 7",
			      "stream 13", "main (thread 4243)"};
	size_t i, j;
	json_t *e;

	for (j = 0; j < sizeof(want) / sizeof(want[0]); j++) {
		int n = 0;
		json_array_foreach(evs, i, e)
		{
			const char *v =
			    json_string_value(json_object_get(json_object_get(e, "args"), "name"));
			if (!strcmp(json_string_value(json_object_get(e, "ph")), "M") && v &&
			    !strcmp(v, want[j]))
				n++;
		}
		assert_int_equal(n, 1);
	}
	json_decref(root);
}

static void test_chrome_flow_goes_from_launch_call_to_kernel(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");
	json_t *e, *s = NULL, *f = NULL;
	size_t i;

	/* kernel 1 is row 1 of kernels: flow id 1 * 3 + EXPORT_EV_KERNEL */
	json_array_foreach(evs, i, e)
	{
		json_t *id = json_object_get(e, "id");
		const char *ph = json_string_value(json_object_get(e, "ph"));
		if (!id || json_integer_value(id) != 3)
			continue;
		if (!strcmp(ph, "s"))
			s = e;
		if (!strcmp(ph, "f"))
			f = e;
	}
	assert_non_null(s);
	assert_non_null(f);
	/* mid-points: API call [1000, 1500] -> 1250; kernel [2000, 4000] -> 3000 */
	assert_close(num(s, "ts"), 0.35);
	assert_int_equal(num(s, "pid"), 4242);
	assert_int_equal(num(s, "tid"), 4243);
	assert_close(num(f, "ts"), 2.1);
	assert_int_equal(num(f, "pid"), EXPORT_GPU_PID(0));
	assert_int_equal(num(f, "tid"), 7);
	assert_string_equal(json_string_value(json_object_get(f, "bp")), "e");
	json_decref(root);
}

static void test_chrome_slices_nest_on_every_track(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");
	json_t *a, *b;
	size_t i, j;
	int pairs = 0;

	json_array_foreach(evs, i, a)
	{
		if (strcmp(json_string_value(json_object_get(a, "ph")), "X"))
			continue;
		json_array_foreach(evs, j, b)
		{
			double a0, a1, b0, b1;
			if (j <= i || strcmp(json_string_value(json_object_get(b, "ph")), "X") ||
			    num(a, "pid") != num(b, "pid") || num(a, "tid") != num(b, "tid"))
				continue;
			a0 = num(a, "ts"), a1 = a0 + num(a, "dur");
			b0 = num(b, "ts"), b1 = b0 + num(b, "dur");
			/* disjoint, or one inside the other */
			assert_true(a1 <= b0 || b1 <= a0 || (a0 <= b0 && b1 <= a1) ||
				    (b0 <= a0 && a1 <= b1));
			pairs++;
		}
	}
	/* same-track pairs: stream 7 has 5 slices (10 pairs), the host
	 * thread 6 (15 pairs); stream 13 has one */
	assert_int_equal(pairs, 25);
	json_decref(root);
}

static void test_chrome_gaps_get_their_own_track(void **state)
{
	struct export_event gap;
	json_t *root, *evs, *g;

	memset(&gap, 0, sizeof(gap));
	gap.kind = EXPORT_EV_GAP;
	gap.pid = 0;
	gap.start = 6300;
	gap.end = 10000;
	gap.name = "idle";
	/* the gap [6300, 10000) as gap model v2 cuts it (test_html.c) */
	gap.cause_name = "sync wait";
	gap.detail = "before kernel " FIX_KERNEL_SCRIPT ": 2.700 us sync wait in "
		     "cudaStreamSynchronize, then 500 ns host code on thread 4243, then "
		     "500 ns launch latency (cudaLaunchKernel)";
	root = export_parse(*state, &gap);
	evs = json_object_get(root, "traceEvents");
	/* 32 + gap track name and sort index + the gap */
	assert_int_equal(json_array_size(evs), 35);
	g = find(evs, "X", "idle");
	assert_close(num(g, "ts"), 5.4);
	assert_close(num(g, "dur"), 3.7);
	assert_int_equal(num(g, "pid"), EXPORT_GPU_PID(0));
	assert_string_equal(json_string_value(json_object_get(json_object_get(g, "args"), "cause")),
			    "sync wait");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(g, "args"), "explanation")),
	    gap.detail);
	json_decref(root);
}

/* the flow event of this phase and category with this id (exactly one) */
static json_t *find_flow(json_t *evs, const char *ph, const char *cat, json_int_t id)
{
	json_t *e, *found = NULL;
	size_t i;
	int n = 0;

	json_array_foreach(evs, i, e)
	{
		json_t *jid = json_object_get(e, "id");
		if (!jid || json_integer_value(jid) != id ||
		    strcmp(json_string_value(json_object_get(e, "ph")), ph) ||
		    strcmp(json_string_value(json_object_get(e, "cat")), cat))
			continue;
		found = e;
		n++;
	}
	assert_int_equal(n, 1);
	return found;
}

static void test_chrome_graph_run_is_one_slice_on_its_stream(void **state)
{
	char *text = export_text(*state);
	json_t *root = json_loads(text, 0, NULL);
	json_t *evs = json_object_get(root, "traceEvents"), *e;
	size_t i;
	int n = 0;

	assert_non_null(root);
	/* graph_runs row 1 [13000, 15500] on device 0, stream 21, graph 5,
	 * corr 15; origin 900: ts (13000 - 900) / 1000 = 12.100 us, dur
	 * 2.500 us, pid 10^9 + device 0, tid = stream 21. Exactly as written: */
	assert_non_null(strstr(
	    text, "{\"ph\":\"X\",\"cat\":\"graph\",\"name\":\"graph run (graph 5)\","
		  "\"pid\":1000000000,\"tid\":21,\"ts\":12.100,\"dur\":2.500,"
		  "\"args\":{\"graph_id\":5,\"correlation_id\":15,\"graph-level\":true}}"));
	/* find() wants exactly one: row 2 (graph 5 too, both times 0) is not
	 * written, nor row 3 (graph 6, begun on the host: device 2147483647) */
	e = find(evs, "X", "graph run (graph 5)");
	assert_close(num(e, "ts"), 12.1);
	assert_close(num(e, "dur"), 2.5);
	assert_true(json_is_true(json_object_get(json_object_get(e, "args"), "graph-level")));
	json_array_foreach(evs, i, e)
	{
		const char *nm = json_string_value(json_object_get(e, "name"));
		if (nm && !strcmp(nm, "graph run (graph 6)"))
			n++;
	}
	assert_int_equal(n, 0);
	/* row 2's start 0 did not become the origin */
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "otherData"), "origin_ns")),
	    "900");
	/* variant 0's 32 events + the thread name of stream 21, the slice,
	 * the cudaGraphLaunch call and its flow pair */
	assert_int_equal(json_array_size(evs), 37);
	json_decref(root);
	free(text);
}

static void test_chrome_graph_run_stream_has_a_track(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents"), *e;
	size_t i;
	int n = 0, host_gpu = 0;

	json_array_foreach(evs, i, e)
	{
		const char *v =
		    json_string_value(json_object_get(json_object_get(e, "args"), "name"));
		if (strcmp(json_string_value(json_object_get(e, "ph")), "M") || !v)
			continue;
		if (!strcmp(v, "stream 21")) {
			assert_int_equal(num(e, "pid"), EXPORT_GPU_PID(0));
			assert_int_equal(num(e, "tid"), 21);
			n++;
		}
		if (strstr(v, "GPU 2147483647"))
			host_gpu++;
	}
	assert_int_equal(n, 1);
	assert_int_equal(host_gpu, 0);
	json_decref(root);
}

static void test_chrome_flow_goes_from_graph_launch_to_graph_run(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");
	/* graph_runs row 1: its own category, id = row id 1 */
	json_t *s = find_flow(evs, "s", "graph_launch", 1);
	json_t *f = find_flow(evs, "f", "graph_launch", 1);

	/* mid-points: cudaGraphLaunch [12000, 12300] -> 12150; graph run
	 * [13000, 15500] -> 14250; origin 900 */
	assert_close(num(s, "ts"), 11.25);
	assert_int_equal(num(s, "pid"), 4242);
	assert_int_equal(num(s, "tid"), 4243);
	assert_close(num(f, "ts"), 13.35);
	assert_int_equal(num(f, "pid"), EXPORT_GPU_PID(0));
	assert_int_equal(num(f, "tid"), 21);
	assert_string_equal(json_string_value(json_object_get(f, "bp")), "e");
	/* the four launch flows of variant 0 are unchanged */
	assert_int_equal(count_ph(evs, "s"), 5);
	find_flow(evs, "f", "launch", 3); /* kernel 1: 1 * 3 + EXPORT_EV_KERNEL */
	json_decref(root);
}

static void test_chrome_v1_trace_without_graph_runs_exports_as_before(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");

	/* the same 32 events as the v2 trace of variant 0 (first test) */
	assert_int_equal(json_array_size(evs), 32);
	assert_int_equal(count_ph(evs, "X"), 12);
	assert_int_equal(count_ph(evs, "s"), 4);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "otherData"), "origin_ns")),
	    "900");
	json_decref(root);
}

static void test_chrome_capture_windows_get_their_own_track(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");
	json_t *w1 = find(evs, "X", "capture window 1"), *w2 = find(evs, "X", "capture window 2");
	json_t *e;
	size_t i;
	int named = 0;

	/* the 32 events of variant 0, the track's 3 metadata (process name
	 * and sort index, thread name) and 2 slices: the overlapping rows are
	 * one window */
	assert_int_equal(json_array_size(evs), 37);
	assert_int_equal(count_ph(evs, "X"), 14);
	/* times from the first window's start, 400 ns: [400, 1400] is 0.000
	 * for 1.000 us, [5000, 6000] 4.600 for 1.000 */
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "otherData"), "origin_ns")),
	    "400");
	assert_close(num(w1, "ts"), 0.0);
	assert_close(num(w1, "dur"), 1.0);
	assert_close(num(w2, "ts"), 4.6);
	assert_close(num(w2, "dur"), 1.0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(w2, "args"), "window")),
			 2);
	assert_string_equal(json_string_value(json_object_get(w1, "cat")), "capture");
	/* on one track of their own, listed first, named */
	assert_int_equal(json_integer_value(json_object_get(w1, "pid")),
			 json_integer_value(json_object_get(w2, "pid")));
	json_array_foreach(evs, i, e)
	{
		const char *ph = json_string_value(json_object_get(e, "ph"));
		if (strcmp(ph, "M") || json_integer_value(json_object_get(e, "pid")) !=
					   json_integer_value(json_object_get(w1, "pid")))
			continue;
		if (!strcmp(json_string_value(json_object_get(e, "name")), "process_name")) {
			assert_string_equal(
			    json_string_value(json_object_get(json_object_get(e, "args"), "name")),
			    "capture windows (record --capture-range)");
			named++;
		} else if (!strcmp(json_string_value(json_object_get(e, "name")),
				   "process_sort_index")) {
			assert_int_equal(json_integer_value(json_object_get(
					     json_object_get(e, "args"), "sort_index")),
					 -1);
			named++;
		}
	}
	assert_int_equal(named, 2);
	json_decref(root);
}

static void test_chrome_capture_rows_of_a_whole_trace_are_not_drawn(void **state)
{
	json_t *root = export_parse(*state, NULL);
	json_t *evs = json_object_get(root, "traceEvents");

	/* the 32 events of variant 0, origin its first event (900) */
	assert_int_equal(json_array_size(evs), 32);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "otherData"), "origin_ns")),
	    "900");
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_chrome_event_counts_match_the_fixture, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_kernel_times_are_us_from_first_event, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_hostile_names_survive_intact, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_tracks_are_named, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_flow_goes_from_launch_call_to_kernel, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_slices_nest_on_every_track, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_gaps_get_their_own_track, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_graph_run_is_one_slice_on_its_stream,
					    setup_graph_level, teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_graph_run_stream_has_a_track,
					    setup_graph_level, teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_flow_goes_from_graph_launch_to_graph_run,
					    setup_graph_level, teardown),
	    cmocka_unit_test_setup_teardown(
		test_chrome_v1_trace_without_graph_runs_exports_as_before, setup_v1, teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_capture_windows_get_their_own_track,
					    setup_capture, teardown),
	    cmocka_unit_test_setup_teardown(test_chrome_capture_rows_of_a_whole_trace_are_not_drawn,
					    setup_rows_whole, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
