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
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "export.h"
#include "test_export_fixture.h"

/* every table of the current schema (collector/schema.c), one file each:
 * the export writes these and nothing else */
static const char *const tables[] = {"meta",
				     "strings",
				     "devices",
				     "processes",
				     "threads",
				     "kernels",
				     "api_calls",
				     "memcpys",
				     "memsets",
				     "syncs",
				     "events",
				     "nvtx",
				     "host_ranges",
				     "graphs",
				     "graph_nodes",
				     "graph_edges",
				     "graph_execs",
				     "graph_launches",
				     "graph_node_updates",
				     "graph_runs",
				     "overhead",
				     "stack_frames",
				     "api_stacks",
				     "samples",
				     "wait_samples",
				     "capture_windows"};

static void check_field(const char *in, size_t len, const char *want)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	csv_write_field(f, in, len, 0);
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

static void check_field_flags(const char *in, unsigned flags, const char *want)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	csv_write_field(f, in, strlen(in), flags);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_csv_formula_cells_get_a_leading_quote(void **state)
{
	(void)state;
	check_field_flags("=1+2", 0, "'=1+2");
	check_field_flags("+cmd", 0, "'+cmd");
	check_field_flags("-2", 0, "'-2");
	check_field_flags("@SUM(A1)", 0, "'@SUM(A1)");
	check_field_flags("\t=x", 0, "'\t=x");
	check_field_flags("\r=x", 0, "\"'\r=x\"");
	check_field_flags("=HYPERLINK(\"u\",\"t\")", 0, "\"'=HYPERLINK(\"\"u\"\",\"\"t\"\")\"");
	check_field_flags("a=b", 0, "a=b");
	check_field_flags("=1+2", CSV_FIELD_RAW, "=1+2");
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

/* A strict RFC 4180 reader for the files under test: fields separated by
 * commas, records by CRLF, quoted fields with doubled quotes. Fills
 * cells[] (malloc'ed strings), returns the number of records; fails the
 * test on anything else. */
static size_t parse_csv(const char *s, char ***cells, size_t *ncells, size_t *width)
{
	size_t n = 0, cap = 64, rows = 0, col = 0;
	char **v = malloc(cap * sizeof(*v));

	*width = 0;
	while (*s) {
		char *field = malloc(strlen(s) + 1);
		size_t k = 0;
		if (*s == '"') {
			for (s++;; s++) {
				assert_true(*s != '\0'); /* unterminated quote */
				if (*s == '"' && s[1] == '"')
					field[k++] = '"', s++;
				else if (*s == '"')
					break;
				else
					field[k++] = *s;
			}
			s++;
		} else {
			while (*s && *s != ',' && *s != '\r' && *s != '\n') {
				assert_true(*s != '"'); /* a quote in an unquoted field */
				field[k++] = *s++;
			}
		}
		field[k] = '\0';
		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = field;
		col++;
		if (*s == ',') {
			s++;
			continue;
		}
		assert_true(s[0] == '\r' && s[1] == '\n'); /* records end in CRLF */
		s += 2;
		if (rows == 0)
			*width = col;
		assert_int_equal(col, *width);
		rows++;
		col = 0;
	}
	*cells = v;
	*ncells = n;
	return rows;
}

/* The CSV file at path holds nrows data rows; in each, the columns named
 * in cols have the values in rows (row-major), every other column is empty,
 * and the header ends with the column `last`. */
static void check_table(const char *path, const char *const *cols, size_t ncols,
			const char *const *rows, size_t nrows, const char *last)
{
	char *text = slurp(path), **cells;
	size_t ncells, width, records, r, c, k;

	records = parse_csv(text, &cells, &ncells, &width);
	assert_int_equal(records, nrows + 1);
	assert_string_equal(cells[width - 1], last);
	for (c = 0; c < width; c++) {
		const char *name = cells[c];
		for (k = 0; k < ncols && strcmp(cols[k], name); k++)
			;
		for (r = 0; r < nrows; r++) {
			const char *got = cells[(r + 1) * width + c];
			if (k < ncols) {
				if (strcmp(got, rows[r * ncols + k]))
					fprintf(stderr, "%s row %zu column %s: '%s', want '%s'\n",
						path, r + 1, name, got, rows[r * ncols + k]);
				assert_string_equal(got, rows[r * ncols + k]);
			} else {
				/* a column this test does not know: NULL in the fixture */
				if (*got)
					fprintf(stderr, "%s: unexpected value '%s' in column %s\n",
						path, got, name);
				assert_string_equal(got, "");
			}
		}
	}
	for (k = 0; k < ncols; k++) { /* every expected column exists */
		for (c = 0; c < width && strcmp(cells[c], cols[k]); c++)
			;
		assert_true(c < width);
	}
	for (k = 0; k < ncells; k++)
		free(cells[k]);
	free(cells);
	free(text);
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
	assert_int_equal(export_csv(&t, out, 0, err, sizeof(err)), 0);
	trace_close(&t);

	/* exactly one file per table, no more */
	{
		DIR *d = opendir(out);
		struct dirent *e;
		size_t nfiles = 0;

		assert_non_null(d);
		while ((e = readdir(d))) {
			size_t k, found = 0;
			if (e->d_name[0] == '.')
				continue;
			for (k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
				snprintf(path, sizeof(path), "%s.csv", tables[k]);
				found |= !strcmp(path, e->d_name);
			}
			if (!found)
				fail_msg("unexpected file %s", e->d_name);
			nfiles++;
		}
		closedir(d);
		assert_int_equal(nfiles, sizeof(tables) / sizeof(tables[0]));
	}

	/* Every row by column name: the schema may gain columns, and
	 * check_table() wants those empty for this fixture. */
	{
		static const char *const cols[] = {
		    "id",
		    "start",
		    "end",
		    "device",
		    "context",
		    "stream",
		    "correlation_id",
		    "name_id",
		    "grid_x",
		    "grid_y",
		    "grid_z",
		    "block_x",
		    "block_y",
		    "block_z",
		    "registers",
		    "static_shared_bytes",
		    "dynamic_shared_bytes",
		    "local_memory_bytes",
		    "graph_id",
		    "graph_node_id",
		    "queued",
		    "submitted",
		    "launch_type",
		    "is_device_launched",
		    "name",
		};
		static const char *const rows[] = {
		    "1",    "2000",  "4000",  "0", "1",
		    "7",    "10",    "3",     "2", "1",
		    "1",    "128",   "1",     "1", "32",
		    "1024", "0",     "",      "0", "0",
		    "",	    "",	     "",      "",  FIX_KERNEL_TEMPLATE,
		    "2",    "4100",  "5000",  "0", "1",
		    "7",    "11",    "7",     "1", "1",
		    "1",    "32",    "1",     "1", "16",
		    "0",    "0",     "",      "0", "0",
		    "",	    "",	     "",      "",  FIX_KERNEL_UTF8,
		    "3",    "10000", "10500", "0", "1",
		    "7",    "14",    "4",     "1", "1",
		    "1",    "32",    "1",     "1", "16",
		    "0",    "0",     "",      "0", "0",
		    "",	    "",	     "",      "",  FIX_KERNEL_SCRIPT,
		    "4",    "11000", "11200", "0", "1",
		    "13",   "0",     "9",     "1", "1",
		    "1",    "32",    "1",     "1", "16",
		    "0",    "0",     "",      "0", "0",
		    "",	    "",	     "",      "",  "bad\xef\xbf\xbdutf8",
		};
		snprintf(path, sizeof(path), "%s/kernels.csv", out);
		check_table(path, cols, 25, rows, 4, "name");
		/* the comma in the template name needs quotes */
		s = slurp(path);
		assert_non_null(strstr(s, ",\"void gemm<float, 128>(float const*, int)\"\r\n"));
		free(s);
	}
	{
		static const char *const cols[] = {
		    "id",
		    "start",
		    "end",
		    "device",
		    "context",
		    "stream",
		    "correlation_id",
		    "bytes",
		    "copy_kind",
		    "src_kind",
		    "dst_kind",
		    "is_async",
		    "src_device",
		    "dst_device",
		    "graph_id",
		    "graph_node_id",
		    "copy_kind_name",
		    "src_kind_name",
		    "dst_kind_name",
		};
		static const char *const rows[] = {
		    "1", "5200", "6000", "0", "1", "7", "12",	"4096",	    "1",      "1",
		    "3", "1",	 "",	 "",  "",  "",	"HtoD", "pageable", "device",
		};
		snprintf(path, sizeof(path), "%s/memcpys.csv", out);
		check_table(path, cols, 19, rows, 1, "dst_kind_name");
	}
	{
		static const char *const cols[] = {
		    "id",    "start", "end", "kind",	  "text_id", "domain_id", "category",
		    "color", "pid",   "tid", "kind_name", "text",    "domain",
		};
		static const char *const rows[] = {
		    "1",     "900",	    "9900", "0",    "5",
		    "",	     "0",	    "",	    "4242", "4243",
		    "range", FIX_NVTX_TEXT, "",	    "2",    "950",
		    "950",   "1",	    "4",    "",	    "0",
		    "",	     "4242",	    "4243", "mark", FIX_KERNEL_SCRIPT,
		    "",
		};
		snprintf(path, sizeof(path), "%s/nvtx.csv", out);
		check_table(path, cols, 13, rows, 2, "domain");
		/* the text's quotes doubled, its newline kept inside the quotes */
		s = slurp(path);
		assert_non_null(strstr(s, ",\"step \"\"one\"\", back\\slash\nline2\x01\","));
		free(s);
	}
	{
		static const char *const cols[] = {
		    "id",	   "start",  "end",	  "kind",   "implicit", "reason_id",
		    "api_name_id", "device", "context",	  "stream", "event",	"correlation_id",
		    "pid",	   "tid",    "kind_name", "reason", "api_name",
		};
		static const char *const rows[] = {
		    "1",
		    "3500",
		    "9000",
		    "3",
		    "0",
		    "",
		    "2",
		    "0",
		    "1",
		    "7",
		    "",
		    "13",
		    "4242",
		    "4243",
		    "stream synchronize",
		    "",
		    "cudaStreamSynchronize",
		    "2",
		    "3000",
		    "3400",
		    "17",
		    "1",
		    "8",
		    "6",
		    "0",
		    "1",
		    "7",
		    "",
		    "12",
		    "4242",
		    "4243",
		    "async copy with pageable memory",
		    "Async copy from pageable memory",
		    "cudaMemcpyAsync",
		};
		snprintf(path, sizeof(path), "%s/syncs.csv", out);
		check_table(path, cols, 17, rows, 2, "api_name");
	}

	/* an empty table still has its header */
	snprintf(path, sizeof(path), "%s/graph_edges.csv", out);
	s = slurp(path);
	assert_string_equal(s, "graph_id,from_node,to_node\r\n");
	free(s);
	/* the fixture was not recorded with --capture-range: no windows */
	snprintf(path, sizeof(path), "%s/capture_windows.csv", out);
	s = slurp(path);
	assert_string_equal(s, "start,end\r\n");
	free(s);

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.csv", out, tables[i]);
		unlink(path);
	}
	assert_int_equal(rmdir(out), 0);
	snprintf(path, sizeof(path), "%s/csv", dir);
	assert_int_equal(rmdir(path), 0);
	unlink(db);
	assert_int_equal(rmdir(dir), 0);
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
	assert_int_equal(export_csv(&t, db, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "not a directory");
	trace_close(&t);
	unlink(db);
	rmdir(dir);
}

/* A trace written before the events, host_ranges and capture_windows
 * tables existed (they are optional: older traces lack them; a schema v2
 * collector wrote no capture_windows) exports every table it has, and no
 * file for the three it lacks. */
static void test_csv_export_of_an_older_trace_skips_tables_it_lacks(void **state)
{
	char dir[64] = "/tmp/gs_test_csv_XXXXXX", db[128], out[160], path[256], err[256] = "";
	struct trace t;
	sqlite3 *raw;
	size_t i, nfiles = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/old.db", dir);
	assert_int_equal(fixture_write(db, 0), 0);
	assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
	assert_int_equal(
	    sqlite3_exec(raw,
			 "DROP TABLE events; DROP TABLE host_ranges; DROP TABLE capture_windows;",
			 NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(trace_open(&t, db, err, sizeof(err)), 0);
	snprintf(out, sizeof(out), "%s/out", dir);
	assert_int_equal(export_csv(&t, out, 0, err, sizeof(err)), 0);
	trace_close(&t);

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		int absent = !strcmp(tables[i], "events") || !strcmp(tables[i], "host_ranges") ||
			     !strcmp(tables[i], "capture_windows");
		snprintf(path, sizeof(path), "%s/%s.csv", out, tables[i]);
		assert_int_equal(access(path, F_OK) == 0, !absent);
		if (!absent) {
			nfiles++;
			unlink(path);
		}
	}
	assert_int_equal(nfiles, sizeof(tables) / sizeof(tables[0]) - 3);
	assert_int_equal(rmdir(out), 0);
	unlink(db);
	assert_int_equal(rmdir(dir), 0);
}

/* A capture trace's windows (schema v3) come out in time order whatever
 * the rows' order in the table: the second row written, [1000000,
 * 2000000], first. */
static void test_csv_export_writes_capture_windows_in_time_order(void **state)
{
	char dir[64] = "/tmp/gs_test_csv_XXXXXX", db[128], out[160], path[256], err[256] = "";
	struct trace t;
	sqlite3 *raw;
	size_t i;
	char *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/cap.db", dir);
	assert_int_equal(fixture_write(db, 0), 0);
	assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw,
				      "INSERT INTO capture_windows VALUES(5000000,6000000),"
				      "(1000000,2000000);"
				      "INSERT OR REPLACE INTO meta VALUES('schema_version','3'),"
				      "('capture_range','cudaProfilerApi');",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(trace_open(&t, db, err, sizeof(err)), 0);
	snprintf(out, sizeof(out), "%s/out", dir);
	assert_int_equal(export_csv(&t, out, 0, err, sizeof(err)), 0);
	trace_close(&t);
	snprintf(path, sizeof(path), "%s/capture_windows.csv", out);
	s = slurp(path);
	assert_string_equal(s, "start,end\r\n1000000,2000000\r\n5000000,6000000\r\n");
	free(s);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.csv", out, tables[i]);
		unlink(path);
	}
	assert_int_equal(rmdir(out), 0);
	unlink(db);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_csv_fields_are_quoted_only_when_needed),
	    cmocka_unit_test(test_csv_invalid_utf8_becomes_replacement_character),
	    cmocka_unit_test(test_csv_formula_cells_get_a_leading_quote),
	    cmocka_unit_test(test_csv_export_writes_every_table_exactly),
	    cmocka_unit_test(test_csv_export_into_a_file_path_fails_cleanly),
	    cmocka_unit_test(test_csv_export_of_an_older_trace_skips_tables_it_lacks),
	    cmocka_unit_test(test_csv_export_writes_capture_windows_in_time_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
