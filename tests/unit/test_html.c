/*
 * test_html.c - the HTML page: escaping of trace strings in markup, the gap
 * histogram bins, and the page written for the hand-made fixture (one run
 * and the before/after comparison): exact card figures (worked out by hand
 * from the rows in test_export_fixture.c), the embedded JSON data parsed
 * back with jansson, no hostile string reaching the markup unescaped, and
 * nothing that would load from the network. The browser test
 * (tests/browser/check_html.py) runs the page's JavaScript.
 *
 * By hand, fixture "before": GPU ops on device 0 cover [2000,4000]
 * [4100,5000] [5200,6000] [6100,6300] [10000,10500] [11000,11200]; window
 * 9200 ns, busy 4600 ns (50.0%), 5 gaps, cut by gap model v2
 * (DESIGN.md) into segments:
 *   [4000,4100) before kernel 2: its call cudaLaunchKernel [2000,2600]
 *     began before g0 = 4000, so the host was not late: launch latency 100;
 *   [5000,5200) before the memcpy, call cudaMemcpyAsync [3000,3400] < 5000:
 *     launch latency 200;
 *   [6000,6100) before the memset and [10500,11000) before kernel 4: no
 *     launch call (corr 0): other 100 + 500;
 *   [6300,10000) before kernel 3, call cudaLaunchKernel [9500,9800] began
 *     after g0 = 6300: host late. [6300,9500) by what thread 4243 did:
 *     blocked in cudaStreamSynchronize [3500,9000] -> sync wait 9000-6300 =
 *     2700; no CUDA call in [9000,9500) -> host code 500; then [9500,10000)
 *     launch latency 500. Largest segment: sync wait.
 * By cause: sync wait 2700 (1 gap), host code 500 (0 gaps: never the
 * largest), launch latency 100+200+500 = 800 (2 gaps), other 600 (2 gaps),
 * CUDA API, graph-internal, dependency 0; 2700+500+800+600 = 4600.
 * Launch overhead share = (launch latency 800 + graph-internal 0 + launch
 * calls inside CUDA API segments 0) / 9200 = 8.70%; host code share
 * 500 / 9200 = 5.43%.
 * The verdict of "before": GPU busy 4600 / 9200 = 50.0%; the three largest
 * causes sync wait 2700 / 9200 = 29.3%, launch latency 800 / 9200 = 8.7%,
 * other 600 / 9200 = 6.5% (host code 500 is fourth). No rule fires: host
 * code 5.4% and launch overhead 8.7% are under 20%, 6 kernels are fewer
 * than 100, the one explicit sync and the one pageable copy are fewer than
 * 20 and 10 calls.
 * "After" (variant 1): ops cover [2000,5100] [5200,5900], window 3900,
 * one gap [5100,5200) before kernel 3 whose call [2700,3000] came before
 * 5100: launch latency 100; launch overhead share 100 / 3900 = 2.56%, so
 * the after card says 2.6%, -6.1 pt (2.56 - 8.70) vs before.
 */
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

#include "render_html.h"
#include "test_export_fixture.h"

struct fx {
	char dir[64];
	char path[2][128];
	struct html_loaded run[2];
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct gs_options opt;

	strcpy(fx->dir, "/tmp/gs_test_html_XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	gs_options_init(&opt);
	for (int i = 0; i < 2; i++) {
		snprintf(fx->path[i], sizeof(fx->path[i]), "%s/run%d.db", fx->dir, i);
		if (fixture_write(fx->path[i], i) || html_load(&fx->run[i], fx->path[i], &opt))
			return -1;
	}
	*state = fx;
	return 0;
}

/* run[0]: fixture variant 3 (schema v2 graph runs); run[1] not loaded */
static int setup_graph_level(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct gs_options opt;

	strcpy(fx->dir, "/tmp/gs_test_html_XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	gs_options_init(&opt);
	snprintf(fx->path[0], sizeof(fx->path[0]), "%s/graph.db", fx->dir);
	if (fixture_write(fx->path[0], 3) || html_load(&fx->run[0], fx->path[0], &opt))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	for (int i = 0; i < 2; i++) {
		html_unload(&fx->run[i]);
		if (fx->path[i][0])
			unlink(fx->path[i]);
	}
	rmdir(fx->dir);
	free(fx);
	return 0;
}

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	html_escape(f, s);
	fclose(f);
	return buf;
}

static void test_html_escape_turns_markup_into_text(void **state)
{
	char *s;

	(void)state;
	s = escaped("<script>alert('x')</script> & \"q\"");
	assert_string_equal(s,
			    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
	free(s);
	/* control characters and invalid UTF-8 become U+FFFD; \n, \t and valid
	 * UTF-8 stay */
	s = escaped("a\x01"
		    "b\n\tc\xff" FIX_KERNEL_UTF8);
	assert_string_equal(s, "a\xef\xbf\xbd"
			       "b\n\tc\xef\xbf\xbd" FIX_KERNEL_UTF8);
	free(s);
	s = escaped(NULL);
	assert_string_equal(s, "");
	free(s);
}

static void test_histogram_bins_are_decades_from_100ns(void **state)
{
	(void)state;
	assert_int_equal(html_hist_bin(0), 0);
	assert_int_equal(html_hist_bin(99), 0);
	assert_int_equal(html_hist_bin(100), 1);
	assert_int_equal(html_hist_bin(999), 1);
	assert_int_equal(html_hist_bin(1000), 2);
	assert_int_equal(html_hist_bin(99999), 3);
	assert_int_equal(html_hist_bin(100000), 4);
	assert_int_equal(html_hist_bin(9999999), 5);
	assert_int_equal(html_hist_bin(10000000), 6);
	assert_int_equal(html_hist_bin(INT64_C(1000000000000)), 6);
}

static void test_fixture_gap_histogram(void **state)
{
	struct fx *fx = *state;
	uint64_t c[HTML_HIST_BINS][GS_CAUSE_COUNT];

	html_gap_histogram(&fx->run[0].res, c);
	/* by the gap's largest segment: 100, 200 ns launch latency and 100,
	 * 500 ns other in [100 ns, 1 us); 3700 ns sync wait (2700 of it) in
	 * [1, 10 us) */
	assert_int_equal(c[1][GS_CAUSE_LAUNCH_LATENCY], 2);
	assert_int_equal(c[1][GS_CAUSE_OTHER], 2);
	assert_int_equal(c[1][GS_CAUSE_SYNC_WAIT], 0);
	assert_int_equal(c[2][GS_CAUSE_SYNC_WAIT], 1);
	uint64_t total = 0;
	for (int b = 0; b < HTML_HIST_BINS; b++)
		for (int k = 0; k < GS_CAUSE_COUNT; k++)
			total += c[b][k];
	assert_int_equal(total, 5);
}

/* the page of the fixture's first nruns runs; with two, the comparison,
 * whose findings are `findings` (n of them) when findings != NULL */
static char *page_with(struct fx *fx, int nruns, const struct diff_finding *findings, size_t n_f)
{
	struct html_run hr[2] = {{0}};
	struct gs_verdict v[2];
	struct run_totals tot[2];
	struct diff_result d;
	char *buf = NULL, err[256] = "";
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	for (int i = 0; i < nruns; i++) {
		hr[i].path = fx->path[i];
		hr[i].t = &fx->run[i].t;
		hr[i].in = &fx->run[i].in;
		hr[i].res = &fx->run[i].res;
		gs_verdict_compute_corr(hr[i].res, NULL, &v[i]); /* as the verb does */
		run_totals_compute(hr[i].res, &tot[i]);
		hr[i].verdict = &v[i];
		hr[i].totals = &tot[i];
	}
	if (nruns == 2) {
		assert_int_equal(diff_compute(&fx->run[0].res, &fx->run[1].res, &d), 0);
		if (findings) {
			memcpy(d.findings, findings, n_f * sizeof(*findings));
			d.n_findings = n_f;
		}
	}
	assert_int_equal(
	    render_html(f, hr, (size_t)nruns, nruns == 2 ? &d : NULL, err, sizeof(err)), 0);
	fclose(f);
	if (nruns == 2)
		diff_free(&d);
	return buf;
}

static char *page(struct fx *fx, int nruns)
{
	return page_with(fx, nruns, NULL, 0);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* the JSON data block of run idx, parsed */
static json_t *data_block(const char *html, int idx)
{
	char open[96];
	const char *a, *b;
	json_error_t jerr;
	json_t *j;
	char *text;

	snprintf(open, sizeof(open), "class=\"gs-data\" data-run=\"%d\">\n", idx);
	a = strstr(html, open);
	assert_non_null(a);
	a += strlen(open);
	b = strstr(a, "</script>");
	assert_non_null(b);
	text = strndup(a, (size_t)(b - a));
	j = json_loads(text, 0, &jerr);
	if (!j)
		fprintf(stderr, "data block: %s\n", jerr.text);
	assert_non_null(j);
	free(text);
	return j;
}

static void test_page_cards_show_the_fixture_figures(void **state)
{
	char *html = page(*state, 1);

	assert_non_null(
	    strstr(html, "<div class=\"k\">GPU window</div><div class=\"v\">9.2 \xc2\xb5s</div>"));
	assert_non_null(
	    strstr(html, "<div class=\"k\">GPU utilisation</div><div class=\"v\">50.0%</div>"));
	/* 800 / 9200 = 8.70%; host code 500 / 9200 = 5.43% */
	assert_non_null(strstr(
	    html, "<div class=\"k\">Launch overhead share</div><div class=\"v\">8.7%</div>"));
	assert_non_null(strstr(html, "<div class=\"d\">host code share 5.4%</div>"));
	assert_non_null(
	    strstr(html, "<div class=\"k\">GPU idle</div><div class=\"v\">4.6 \xc2\xb5s</div>"));
	/* idle by cause (ns in gaps whose largest segment it is) in enum
	 * order, one colour each */
	assert_non_null(strstr(
	    html, "<li><span class=\"sw\" style=\"background:#d62728\"></span>sync wait: "
		  "2.7 \xc2\xb5s (1)</li>"
		  "<li><span class=\"sw\" style=\"background:#e377c2\"></span>CUDA API: 0 ns (0)</li>"
		  "<li><span class=\"sw\" style=\"background:#8c564b\"></span>host code: 500 ns "
		  "(0)</li>"
		  "<li><span class=\"sw\" style=\"background:#bcbd22\"></span>launch latency: "
		  "800 ns (2)</li>"
		  "<li><span class=\"sw\" style=\"background:#393b79\"></span>graph-internal: "
		  "0 ns (0)</li>"
		  "<li><span class=\"sw\" style=\"background:#ff9f40\"></span>dependency: 0 ns "
		  "(0)</li>"
		  "<li><span class=\"sw\" style=\"background:#7f7f7f\"></span>other: 600 ns "
		  "(2)</li>"));
	/* the largest gap's row names its segments */
	assert_non_null(strstr(html, "<td class=\"name\">2.700 us sync wait in "
				     "cudaStreamSynchronize, then 500 ns host code on thread "
				     "4243, then 500 ns launch latency (cudaLaunchKernel)</td>"));
	free(html);
}

static void test_page_opens_with_the_verdict(void **state)
{
	char *html = page(*state, 1);
	const char *v, *cards;

	/* the figures of the header comment, before the cards */
	v = strstr(html, "<div class=\"verdict\">\n<p class=\"vline\"><b>Verdict:</b> GPU busy "
			 "50.0% of 9.2 \xc2\xb5s; idle: "
			 "<span class=\"sw\" style=\"background:#d62728\"></span>sync wait 29.3%, "
			 "<span class=\"sw\" style=\"background:#bcbd22\"></span>launch latency "
			 "8.7%, "
			 "<span class=\"sw\" style=\"background:#7f7f7f\"></span>other 6.5%</p>\n"
			 "<p class=\"hint\">no rule fired (thresholds: docs/report.md, "
			 "\xe2\x80\x9cVerdict\xe2\x80\x9d)</p>\n</div>\n");
	cards = strstr(html, "<div class=\"cards\">");
	assert_non_null(v);
	assert_non_null(cards);
	assert_true(v < cards);
	assert_int_equal(count(html, "<div class=\"verdict\">"), 1);
	free(html);
}

/* A run built by hand (no trace file): thread 7, device 0, stream 7; six
 * kernels K_i = [1000 + 1000 i, 1100 + 1000 i], K_0 launched at [0, 1],
 * K_i (i >= 1) at [K_i.start - 100, +1] (late). In each of the 5 gaps
 * [g0, g0 + 900) the thread is in a cudaMalloc-like call with a hostile
 * name (an implicit alloc row and its API call) over [g0 - 50, g0 + 300]:
 * sync wait 300, host code 500, launch latency 100. An NVTX range with a
 * hostile text spans everything on thread 7.
 * Window 5100, busy 600 (11.8%); idle: host code 2500 (49.0%), sync wait
 * 1500 (29.4%), launch latency 500 (9.8%).
 * Findings: host code 2500 >= 20%: 2.5 us (49.0%), where the largest top
 * gap with host code as its cause is (all 900 ns, host 500): thread 7, in
 * the range; the alloc group, 5 calls, drain 5 * (300 + 100) = 2000 of
 * 5100 = 39.2% (>= 5 calls, >= 1%): 2 us. Launch overhead 500 / 5100 =
 * 9.8%: no. */
#define HOSTILE_API "cudaMalloc<img>&\"x\""
#define HOSTILE_NVTX "<script>alert('v')</script>"
static void test_page_verdict_findings_escape_trace_strings(void **state)
{
	static const char *strs[] = {NULL, "cudaLaunchKernel", HOSTILE_API, HOSTILE_NVTX, "kA"};
	struct gs_op ops[6];
	struct gs_api apis[11];
	struct gs_sync syncs[5];
	struct gs_nvtx nvtx[1];
	struct gs_input in;
	struct gs_options opt;
	struct gs_result res;
	struct html_run hr = {0};
	struct gs_verdict v;
	struct run_totals tot;
	char *buf = NULL, err[256] = "";
	size_t n = 0, na = 0, i;
	FILE *f;

	(void)state;
	memset(ops, 0, sizeof(ops));
	memset(apis, 0, sizeof(apis));
	memset(syncs, 0, sizeof(syncs));
	memset(nvtx, 0, sizeof(nvtx));
	memset(&in, 0, sizeof(in));
	for (i = 0; i < 6; i++) {
		int64_t s = 1000 + 1000 * (int64_t)i;
		ops[i].start = s;
		ops[i].end = s + 100;
		ops[i].corr = (uint32_t)i + 1;
		ops[i].name_id = 4;
		ops[i].stream = 7;
		ops[i].kind = GS_OP_KERNEL;
		apis[na].start = i ? s - 100 : 0;
		apis[na].end = apis[na].start + 1;
		apis[na].corr = (uint32_t)i + 1;
		apis[na].name_id = 1;
		apis[na++].tid = 7;
		if (i == 5)
			break;
		/* the blocking call in the gap after K_i */
		apis[na].start = s + 100 - 50;
		apis[na].end = s + 100 + 300;
		apis[na].corr = 1000 + (uint32_t)i;
		apis[na].name_id = 2;
		apis[na++].tid = 7;
		syncs[i].start = s + 100 - 50;
		syncs[i].end = s + 100 + 300;
		syncs[i].corr = 1000 + (uint32_t)i; /* its call's, as the collector writes */
		syncs[i].kind = GS_SYNC_IMPLICIT_ALLOC;
		syncs[i].implicit = 1;
		syncs[i].api_name_id = 2;
		syncs[i].tid = 7;
		syncs[i].stream = 7;
	}
	nvtx[0].start = 0;
	nvtx[0].end = 7000;
	nvtx[0].text_id = 3;
	nvtx[0].tid = 7;
	in.ops = ops;
	in.n_ops = 6;
	in.apis = apis;
	in.n_apis = na;
	in.syncs = syncs;
	in.n_syncs = 5;
	in.nvtx = nvtx;
	in.n_nvtx = 1;
	in.strings.v = strs;
	in.strings.n = 5;
	in.kernel_overhead_ns = -1;
	gs_options_init(&opt);
	assert_int_equal(na, 11);
	assert_int_equal(gs_analyze(&in, &opt, &res), 0);

	hr.path = "hand-built.db";
	hr.in = &in;
	hr.res = &res;
	gs_verdict_compute_corr(&res, NULL, &v); /* as the verb does: with the savings */
	run_totals_compute(&res, &tot);
	hr.verdict = &v;
	hr.totals = &tot;
	f = open_memstream(&buf, &n);
	assert_int_equal(render_html(f, &hr, 1, NULL, err, sizeof(err)), 0);
	fclose(f);
	assert_non_null(strstr(
	    buf, "<div class=\"verdict\">\n<p class=\"vline\"><b>Verdict:</b> GPU busy 11.8% of "
		 "5.1 \xc2\xb5s; idle: "
		 "<span class=\"sw\" style=\"background:#8c564b\"></span>host code 49.0%, "
		 "<span class=\"sw\" style=\"background:#d62728\"></span>sync wait 29.4%, "
		 "<span class=\"sw\" style=\"background:#bcbd22\"></span>launch latency 9.8%</p>\n"
		 "<ol>\n"
		 "<li><b>host code between launches</b>: 2.5 \xc2\xb5s (49.0%), thread 7, in NVTX "
		 "\xe2\x80\x9c&lt;script&gt;alert(&#39;v&#39;)&lt;/script&gt;\xe2\x80\x9d "
		 "\xe2\x86\x92 <span class=\"fix\">capture the step in a CUDA Graph "
		 "(stream capture)</span>"
		 /* its fix replayed: the host gaps go (on thread 7, in the
		  * range): each launch follows the blocking call before it,
		  * which returns 300 ns after its kernel, and each kernel
		  * starts 100 ns after its launch: K_i [1000 + 500 i, +100),
		  * window 2600 of 5100, saves 2500 ns (49.0%) */
		 "<br><span class=\"why\"><span class=\"saves\">saves \xe2\x89\x88 2.5 "
		 "\xc2\xb5s (49.0%)</span></span></li>\n"
		 "<li><b>malloc/free in steady state</b>: 2 \xc2\xb5s (39.2%), "
		 "cudaMalloc&lt;img&gt;&amp;&quot;x&quot; \xc3\x97"
		 "5, thread 7, in NVTX "
		 "\xe2\x80\x9c&lt;script&gt;alert(&#39;v&#39;)&lt;/script&gt;\xe2\x80\x9d "
		 "\xe2\x86\x92 <span class=\"fix\">allocate once and reuse (a caching "
		 "allocator)</span>"
		 /* its fix replayed (the 5 calls not made, the host gaps
		  * around them kept: 149 ns before and 500 ns after each),
		  * then what the rule checked: the trace has no steps.
		  * Launches at 0, 1550, then every 650 ns; K_0 at 1000, K_i
		  * 100 ns after its launch: K_5 [4250, 4350), window 3350 of
		  * 5100, saves 1750 ns (34.3%) */
		 "<br><span class=\"why\"><span class=\"saves\">saves \xe2\x89\x88 1.75 "
		 "\xc2\xb5s (34.3%)</span>; the trace marks no steps: warm-up and steady "
		 "state are not told apart</span></li>\n"
		 "</ol>\n"
		 /* two replayed savings: each is its fix alone */
		 "<p class=\"why\">each saving is its fix replayed alone, and together they "
		 "need not add up: <code>gapscope whatif TRACE --fix host_code,alloc_in_loop"
		 "</code> replays them at once</p>\n</div>\n"));
	/* the raw strings reach only the JSON data block, escaped there */
	assert_null(strstr(buf, "<img>"));
	assert_null(strstr(buf, "<script>alert"));
	free(buf);
	gs_result_free(&res);
}

static void test_page_escapes_hostile_names_and_loads_nothing(void **state)
{
	char *html = page(*state, 1);

	/* our two script elements only: the data block and the page's JS */
	assert_int_equal(count(html, "<script"), 2);
	assert_null(strstr(html, "<script>alert"));
	/* in the kernels table and as the op after the largest gap */
	assert_int_equal(count(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), 2);
	assert_non_null(strstr(html, "void gemm&lt;float, 128&gt;(float const*, int)"));
	/* nothing to fetch: no external resource of any kind */
	assert_null(strstr(html, " src="));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "url("));
	assert_null(strstr(html, "@import"));
	assert_non_null(strstr(html, "default-src 'none'"));
	free(html);
}

static void test_page_data_block_holds_every_event(void **state)
{
	char *html = page(*state, 1);
	json_t *d = data_block(html, 0), *rows = json_object_get(d, "rows"), *gap;
	static const char *const names[] = {
	    "GPU 0 \xc2\xb7 idle gaps",	  "GPU 0 \xc2\xb7 stream 7",
	    "GPU 0 \xc2\xb7 stream 13",	  "main (4243) \xc2\xb7 CUDA API",
	    "main (4243) \xc2\xb7 syncs", "main (4243) \xc2\xb7 NVTX"};
	/* 5 gaps x 10, 5 ops x 4, 1 op x 4, 5 API calls x 3, 2 syncs x 4,
	 * 2 NVTX x 4 */
	static const size_t lens[] = {50, 20, 4, 15, 8, 8};
	/* first gap [4000, 4100) before kernel 2 (name id 7), launch latency
	 * (3), explained by its launch (1) cudaLaunchKernel (id 1) of thread
	 * 4243 [2000, 2600]; times from the origin 900 */
	static const json_int_t first_gap[] = {3100, 100, 7, 3, 1, 1, 4243, 1100, 1700, 0};
	json_t *t;

	assert_string_equal(json_string_value(json_object_get(d, "t0")), "900");
	assert_int_equal(json_integer_value(json_object_get(d, "span")), 10300);
	/* opens on the GPU window [2000, 11200] with 1% (92 ns) each side, cut
	 * at the trace's end 11200: [1908, 11200] - origin 900 */
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "view"), 0)), 1008);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "view"), 1)), 10300);
	assert_int_equal(json_array_size(rows), 6);
	for (size_t i = 0; i < 6; i++) {
		json_t *r = json_array_get(rows, i);
		assert_string_equal(json_string_value(json_object_get(r, "n")), names[i]);
		assert_int_equal(json_array_size(json_object_get(r, "d")), lens[i]);
	}
	gap = json_object_get(json_array_get(rows, 0), "d");
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(json_integer_value(json_array_get(gap, i)), first_gap[i]);
	/* one segment sentence per gap, in time order (the header comment) */
	t = json_object_get(json_array_get(rows, 0), "t");
	assert_int_equal(json_array_size(t), 5);
	assert_string_equal(json_string_value(json_array_get(t, 0)),
			    "100 ns launch latency (cudaLaunchKernel)");
	assert_string_equal(json_string_value(json_array_get(t, 2)),
			    "100 ns other (no launch call recorded)");
	assert_string_equal(json_string_value(json_array_get(t, 3)),
			    "2.700 us sync wait in cudaStreamSynchronize, then 500 ns host code "
			    "on thread 4243, then 500 ns launch latency (cudaLaunchKernel)");
	/* strings survive the HTML-safe escaping exactly */
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "strings"), 4)),
			    FIX_KERNEL_SCRIPT);
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "strings"), 5)),
			    FIX_NVTX_TEXT);
	json_decref(d);
	free(html);
}

static void test_comparison_page_has_both_runs_and_the_changes(void **state)
{
	char *html = page(*state, 2);
	json_t *d;

	assert_int_equal(count(html, "<script"), 3);
	assert_non_null(strstr(html, "<h2>What changed</h2>"));
	/* 9.2 us -> 3.9 us: -5.3 us, -57.6% */
	assert_non_null(strstr(html, "<td class=\"name\">wall time (GPU span)</td><td>9.2 \xc2\xb5s"
				     "</td><td>3.9 \xc2\xb5s</td><td>-5.3 \xc2\xb5s</td>"
				     "<td class=\"better\">-57.6%</td>"));
	/* utilisation 50.0% -> 97.4% (3800 / 3900) */
	assert_non_null(strstr(html, "<td class=\"name\">GPU utilisation</td><td>50.0%</td>"
				     "<td>97.4%</td><td>+47.4 pt</td>"));
	/* the after card says how the utilisation moved */
	assert_non_null(strstr(html, "<div class=\"d better\">+47.4 pt vs before</div>"));
	/* launch overhead share 8.7% -> 2.6% (100 / 3900), -6.1 pt; host code
	 * share 5.4% -> 0.0% */
	assert_non_null(strstr(html, "<div class=\"v\">2.6%</div><div class=\"d better\">"
				     "-6.1 pt vs before</div>"));
	assert_non_null(strstr(html, "<div class=\"d\">host code share 0.0%</div>"));
	assert_non_null(strstr(html, "<td class=\"name\">&nbsp;&nbsp;idle launch latency</td>"
				     "<td>800 ns</td><td>100 ns</td><td>-700 ns</td>"
				     "<td class=\"better\">-87.5%</td>"));
	assert_non_null(strstr(html, "<div class=\"timeline\" data-run=\"0\">"));
	assert_non_null(strstr(html, "<div class=\"timeline\" data-run=\"1\">"));
	d = data_block(html, 1);
	/* after: one gap [5100, 5200), origin 900, launch latency */
	assert_int_equal(
	    json_array_size(json_object_get(json_array_get(json_object_get(d, "rows"), 0), "d")),
	    10);
	json_decref(d);
	free(html);
}

static void test_comparison_page_lists_the_verdict_findings(void **state)
{
	/* one finding of the before run only, as diff_compute gives it */
	static const struct diff_finding one = {
	    .rule = GS_RULE_ALLOC, .api = "cudaFree<&>", .cost = {6500, 0}};
	char *html = page(*state, 2);

	/* the fixture's runs fire no rule (before: launch 8.7%, host code
	 * 5.4%, other 6.5%; after: launch 2.6%): no table */
	assert_null(strstr(html, "Verdict findings"));
	free(html);
	html = page_with(*state, 2, &one, 1);
	assert_non_null(strstr(html, "<h3>Verdict findings</h3>"));
	assert_non_null(strstr(html, "<td class=\"name\">malloc/free in steady state, "
				     "cudaFree&lt;&amp;&gt;</td><td>6.5 \xc2\xb5s</td><td>-</td>"));
	free(html);
}

static void test_kernel_names_are_short_with_the_whole_name_in_a_tooltip(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	(void)state;
	/* a mangled name as CUPTI records it (a demo's kernel) */
	html_escape_kernel(f, "_Z15gs_short_kernelPfPKfiff");
	fputc('|', f);
	/* a template instance: demangled, then its <> escaped */
	html_escape_kernel(f, "_Z4gemmIfLi128EEvPKfi");
	fputc('|', f);
	/* not mangled: as recorded, escaped */
	html_escape_kernel(f, FIX_KERNEL_SCRIPT);
	fclose(f);
	/* shown short (parameter list and template arguments dropped, as the
	 * text report does), the whole demangled name in the tooltip; both
	 * escaped. The script text is cut at its "(" like a parameter list. */
	assert_string_equal(
	    buf, "<span title=\"gs_short_kernel(float*, float const*, int, float, float)\">"
		 "gs_short_kernel</span>|"
		 "<span title=\"void gemm&lt;float, 128&gt;(float const*, int)\">gemm&lt;\xe2\x80\xa6&gt;"
		 "</span>|"
		 "<span title=\"&lt;script&gt;alert(1)&lt;/script&gt;\">&lt;script&gt;alert</span>");
	free(buf);
}

/* Variant 3 adds graph_runs row 1 [13000, 15500] on stream 21 (launched
 * by cudaGraphLaunch [12000, 12300]); its other two rows are skipped. The
 * GPU is idle [11200, 13000) before it: the gap's next op is the graph run. */
static void test_page_draws_and_names_graph_runs(void **state)
{
	char *html = page(*state, 1);
	json_t *d = data_block(html, 0), *rows = json_object_get(d, "rows"), *r = NULL;
	/* start 13000 - origin 900 (the first row event: dt from 0), dur
	 * 2500, no name id, op kind 3 (GS_OP_GRAPH_RUN) */
	static const json_int_t want[] = {12100, 2500, 0, 3};

	for (size_t i = 0; i < json_array_size(rows); i++)
		if (!strcmp(json_string_value(json_object_get(json_array_get(rows, i), "n")),
			    "GPU 0 \xc2\xb7 stream 21"))
			r = json_object_get(json_array_get(rows, i), "d");
	assert_non_null(r);
	assert_int_equal(json_array_size(r), 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(json_integer_value(json_array_get(r, i)), want[i]);
	/* named "graph run", not "memset", in the largest-gaps table ... */
	assert_non_null(strstr(html, "<td class=\"name\">graph run</td>"));
	/* ... in the legend (only for a trace with graph runs) ... */
	assert_int_equal(count(html, "</span>graph run</span>"), 1);
	/* ... and in page.js's op kinds, for the tooltips */
	assert_non_null(strstr(html, "'memset', 'graph run'"));
	json_decref(d);
	free(html);
}

static void test_page_legend_has_no_graph_run_without_them(void **state)
{
	char *html = page(*state, 1);

	assert_int_equal(count(html, "</span>graph run</span>"), 0);
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_html_escape_turns_markup_into_text),
	    cmocka_unit_test(test_histogram_bins_are_decades_from_100ns),
	    cmocka_unit_test(test_kernel_names_are_short_with_the_whole_name_in_a_tooltip),
	    cmocka_unit_test_setup_teardown(test_fixture_gap_histogram, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_page_cards_show_the_fixture_figures, setup,
					    teardown),
	    cmocka_unit_test(test_page_verdict_findings_escape_trace_strings),
	    cmocka_unit_test_setup_teardown(test_page_opens_with_the_verdict, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_page_escapes_hostile_names_and_loads_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_page_data_block_holds_every_event, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_comparison_page_has_both_runs_and_the_changes,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_comparison_page_lists_the_verdict_findings, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_page_draws_and_names_graph_runs, setup_graph_level,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_page_legend_has_no_graph_run_without_them, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
