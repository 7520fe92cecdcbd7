/*
 * test_export_csv.c - RFC 4180 quoting of single fields, and the CSV export
 * of the hand-made fixture (test_export_fixture.c): which files appear and
 * the exact bytes of some of them, written out by hand from the fixture's
 * rows. tests/cli/render_check.py parses the same files with Python's csv
 * module.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "export.h"
#include "test_export_fixture.h"

static const char *const tables[] = {
    "meta",	   "strings",	  "devices",	 "processes",	   "threads", "kernels",
    "api_calls",   "memcpys",	  "memsets",	 "syncs",	   "nvtx",    "graphs",
    "graph_nodes", "graph_edges", "graph_execs", "graph_launches", "overhead"};

static void check_field(const char *in, size_t len, const char *want)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	csv_write_field(f, in, len);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_csv_fields_are_quoted_only_when_needed(void **state)
{
	(void)state;
	check_field("plain", 5, "plain");
	check_field("", 0, "");
	check_field(NULL, 0, "");
	check_field("a,b", 3, "\"a,b\"");
	check_field("say \"hi\"", 8, "\"say \"\"hi\"\"\"");
	check_field("l1\nl2", 5, "\"l1\nl2\"");
	check_field("cr\r", 3, "\"cr\r\"");
	/* a lone quote still needs the field quoted and the quote doubled */
	check_field("\"", 1, "\"\"\"\"");
	/* spaces and angle brackets are ordinary characters in CSV */
	check_field(" <x> ", 5, " <x> ");
	check_field(FIX_KERNEL_TEMPLATE, strlen(FIX_KERNEL_TEMPLATE),
		    "\"void gemm<float, 128>(float const*, int)\"");
}

static void test_csv_invalid_utf8_becomes_replacement_character(void **state)
{
	(void)state;
	check_field("a\xff", 2, "a\xef\xbf\xbd");
	check_field(FIX_KERNEL_UTF8, strlen(FIX_KERNEL_UTF8), FIX_KERNEL_UTF8);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_csv_export_writes_every_table_exactly(void **state)
{
	char dir[64] = "/tmp/gs_test_csv_XXXXXX", db[128], out[160], path[256], err[256] = "";
	struct trace t;
	size_t i;
	char *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/run.db", dir);
	assert_int_equal(fixture_write(db, 0), 0);
	assert_int_equal(trace_open(&t, db, err, sizeof(err)), 0);
	/* a nested directory that does not exist yet */
	snprintf(out, sizeof(out), "%s/csv/out", dir);
	assert_int_equal(export_csv(&t, out, err, sizeof(err)), 0);
	trace_close(&t);

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s.csv", out, tables[i]);
		assert_int_equal(stat(path, &st), 0);
	}

	snprintf(path, sizeof(path), "%s/kernels.csv", out);
	s = slurp(path);
	assert_string_equal(
	    s, "id,start,end,device,context,stream,correlation_id,name_id,grid_x,grid_y,"
	       "grid_z,block_x,block_y,block_z,registers,static_shared_bytes,"
	       "dynamic_shared_bytes,local_memory_bytes,graph_id,graph_node_id,queued,"
	       "submitted,launch_type,is_device_launched,name\r\n"
	       "1,2000,4000,0,1,7,10,3,2,1,1,128,1,1,32,1024,0,,0,0,,,,,"
	       "\"void gemm<float, 128>(float const*, int)\"\r\n"
	       "2,4100,5000,0,1,7,11,7,1,1,1,32,1,1,16,0,0,,0,0,,,,," FIX_KERNEL_UTF8 "\r\n"
	       "3,10000,10500,0,1,7,14,4,1,1,1,32,1,1,16,0,0,,0,0,,,,,<script>alert(1)</script>\r\n"
	       "4,11000,11200,0,1,13,0,9,1,1,1,32,1,1,16,0,0,,0,0,,,,,bad\xef\xbf\xbdutf8\r\n");
	free(s);

	snprintf(path, sizeof(path), "%s/memcpys.csv", out);
	s = slurp(path);
	assert_string_equal(s, "id,start,end,device,context,stream,correlation_id,bytes,copy_kind,"
			       "src_kind,dst_kind,is_async,src_device,dst_device,graph_id,"
			       "graph_node_id,copy_kind_name,src_kind_name,dst_kind_name\r\n"
			       "1,5200,6000,0,1,7,12,4096,1,1,3,1,,,,,HtoD,pageable,device\r\n");
	free(s);

	snprintf(path, sizeof(path), "%s/nvtx.csv", out);
	s = slurp(path);
	assert_string_equal(s, "id,start,end,kind,text_id,domain_id,category,color,pid,tid,"
			       "kind_name,text,domain\r\n"
			       "1,900,9900,0,5,,0,,4242,4243,range,"
			       "\"step \"\"one\"\", back\\slash\nline2\x01\",\r\n"
			       "2,950,950,1,4,,0,,4242,4243,mark,<script>alert(1)</script>,\r\n");
	free(s);

	snprintf(path, sizeof(path), "%s/syncs.csv", out);
	s = slurp(path);
	assert_string_equal(s, "id,start,end,kind,implicit,reason_id,api_name_id,device,context,"
			       "stream,event,correlation_id,pid,tid,kind_name,reason,api_name\r\n"
			       "1,3500,9000,3,0,,2,0,1,7,,13,4242,4243,stream synchronize,,"
			       "cudaStreamSynchronize\r\n"
			       "2,3000,3400,17,1,8,6,0,1,7,,12,4242,4243,"
			       "async copy with pageable memory,Async copy from pageable memory,"
			       "cudaMemcpyAsync\r\n");
	free(s);

	/* an empty table still has its header */
	snprintf(path, sizeof(path), "%s/graph_edges.csv", out);
	s = slurp(path);
	assert_string_equal(s, "graph_id,from_node,to_node\r\n");
	free(s);

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.csv", out, tables[i]);
		unlink(path);
	}
	rmdir(out);
	snprintf(path, sizeof(path), "%s/csv", dir);
	rmdir(path);
	unlink(db);
	rmdir(dir);
}

static void test_csv_export_into_a_file_path_fails_cleanly(void **state)
{
	char dir[64] = "/tmp/gs_test_csv_XXXXXX", db[128], err[256] = "";
	struct trace t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/run.db", dir);
	assert_int_equal(fixture_write(db, 0), 0);
	assert_int_equal(trace_open(&t, db, err, sizeof(err)), 0);
	/* the output "directory" is the database file itself */
	assert_int_equal(export_csv(&t, db, err, sizeof(err)), -1);
	assert_string_equal(err, "not a directory");
	trace_close(&t);
	unlink(db);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_csv_fields_are_quoted_only_when_needed),
	    cmocka_unit_test(test_csv_invalid_utf8_becomes_replacement_character),
	    cmocka_unit_test(test_csv_export_writes_every_table_exactly),
	    cmocka_unit_test(test_csv_export_into_a_file_path_fails_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
