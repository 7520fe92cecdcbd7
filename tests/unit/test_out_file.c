/*
 * test_out_file.c - the output helper (viewer/render/out_file.c) and the
 * terminal sanitizer (viewer/render/term.c): what a failed, interrupted or
 * successful write leaves on disk, and how control characters are shown.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "out_file.h"
#include "term.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_out_file-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* entries of dir besides . and .. */
static int count_entries(const char *d)
{
	DIR *dir = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dir);
	return n;
}

static void test_abort_leaves_the_old_file_and_no_temporary(void **state)
{
	char path[128], err[256];
	struct out_file o;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.txt", dir);
	put_file(path, "old\n");
	assert_int_equal(out_open(&o, path, err, sizeof(err)), 0);
	fputs("half of the new", o.f);
	fflush(o.f);
	assert_string_equal(slurp(path), "old\n"); /* not truncated before success */
	out_abort(&o);
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(count_entries(dir), 1);
}

static void test_commit_replaces_the_file(void **state)
{
	char path[128], err[256];
	struct out_file o;

	(void)state;
	snprintf(path, sizeof(path), "%s/b.txt", dir);
	put_file(path, "old\n");
	assert_int_equal(out_open(&o, path, err, sizeof(err)), 0);
	fputs("new\n", o.f);
	assert_int_equal(out_commit(&o, err, sizeof(err)), 0);
	assert_string_equal(slurp(path), "new\n");
}

static void test_full_device_fails_and_is_not_removed(void **state)
{
	char err[256];
	struct out_file o;
	struct stat st;

	(void)state;
	/* /dev/full itself: only written to, and out_file never unlinks a
	 * device (the gapscope before this helper did, as root) */
	assert_int_equal(out_open(&o, "/dev/full", err, sizeof(err)), 0);
	assert_int_equal(o.direct, 1);
	fputs("x", o.f);
	assert_int_equal(out_commit(&o, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "write error: No space left on device");
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

static void test_folder_is_refused(void **state)
{
	char err[256];
	struct out_file o;

	(void)state;
	assert_int_equal(out_open(&o, dir, err, sizeof(err)), -EISDIR);
	assert_string_equal(err, "cannot write: Is a directory");
}

static void test_sigterm_removes_only_the_temporary_file(void **state)
{
	char path[128], err[256];
	int status, fds[2], before, during;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/c.txt", dir);
	put_file(path, "old\n");
	before = count_entries(dir);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct out_file o;
		char c = 'x';
		if (out_open(&o, path, err, sizeof(err)) < 0)
			_exit(3);
		fputs("partial", o.f);
		fflush(o.f);
		if (write(fds[1], &c, 1) != 1) /* the temporary file exists now */
			_exit(4);
		pause(); /* killed here, mid-write */
		_exit(5);
	}
	{
		char c;
		assert_int_equal(read(fds[0], &c, 1), 1);
	}
	during = count_entries(dir);
	kill(pid, SIGTERM); /* before any assertion: the child must not outlive us */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(during, before + 1); /* the temporary file existed */
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(count_entries(dir), before);
	close(fds[0]);
	close(fds[1]);
}

/* A child opens path (out_open, or out_dir_open when dir_mode) and writes
 * part of it, the parent sends sig mid-write: returns the child's status.
 * Core dumps off (SIGQUIT's default action dumps core). */
static int kill_mid_write(const char *path, int dir_mode, int sig, int *during)
{
	char err[256];
	int status, fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit no_core = {0, 0};
		char c = 'x';
		setrlimit(RLIMIT_CORE, &no_core);
		/* as a plain program starts: cmocka's own handlers (SIGSEGV,
		 * SIGSYS, ...) are not the defaults out_open arms over */
		signal(sig, SIG_DFL);
		if (dir_mode) {
			struct out_dir d;
			char f[256];
			if (out_dir_open(&d, path, err, sizeof(err)) < 0)
				_exit(3);
			snprintf(f, sizeof(f), "%s/t.csv", d.tmp);
			put_file(f, "partial");
		} else {
			struct out_file o;
			if (out_open(&o, path, err, sizeof(err)) < 0)
				_exit(3);
			fputs("partial", o.f);
			fflush(o.f);
		}
		if (write(fds[1], &c, 1) != 1) /* the temporary file exists now */
			_exit(4);
		pause(); /* killed here, mid-write */
		_exit(5);
	}
	{
		char c;
		assert_int_equal(read(fds[0], &c, 1), 1);
	}
	*during = count_entries(dir);
	kill(pid, sig); /* before any assertion: the child must not outlive us */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fds[0]);
	close(fds[1]);
	return status;
}

/* Every fatal signal that can be caught removes the temporary file, then
 * ends the process as it would have (SIGQUIT and SIGXFSZ left
 * .c.txt.gapscope-* behind, caught were only SIGINT, SIGTERM, SIGHUP). */
static void test_fatal_signals_remove_the_temporary_file(void **state)
{
	static const int sigs[] = {SIGQUIT, SIGXFSZ,   SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM,
				   SIGPIPE, SIGVTALRM, SIGPROF, SIGPWR,	 SIGSYS,  SIGABRT};
	char path[128];
	size_t i;
	int before, during, status;

	(void)state;
	snprintf(path, sizeof(path), "%s/c.txt", dir);
	put_file(path, "old\n");
	before = count_entries(dir);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		status = kill_mid_write(path, 0, sigs[i], &during);
		assert_int_equal(during, before + 1);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != sigs[i])
			fail_msg("signal %d: child status %#x", sigs[i], status);
		assert_string_equal(slurp(path), "old\n");
		if (count_entries(dir) != before)
			fail_msg("signal %d left the temporary file", sigs[i]);
	}
}

/* The same for a CSV folder: the temporary folder and the folders
 * out_dir_open made for the target are removed. */
static void test_fatal_signal_removes_the_temporary_folder(void **state)
{
	char path[128];
	int before, during, status;

	(void)state;
	snprintf(path, sizeof(path), "%s/made/csv", dir);
	before = count_entries(dir);
	status = kill_mid_write(path, 1, SIGQUIT, &during);
	assert_int_equal(during, before + 1); /* "made" */
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGQUIT);
	assert_int_equal(count_entries(dir), before);
}

/* A write past ulimit -f: the kernel's SIGXFSZ does not end the process
 * (its default action would, leaving the temporary file): the write fails
 * with EFBIG, out_commit says so, the old file stays, nothing is left. */
static void test_file_size_limit_is_a_write_error(void **state)
{
	char path[128];
	int status, before;
	pid_t pid;

	(void)state;
	snprintf(path, sizeof(path), "%s/big.txt", dir);
	put_file(path, "old\n");
	before = count_entries(dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit lim = {4096, 4096};
		struct out_file o;
		char err[256], buf[1024];
		int k;
		signal(SIGXFSZ, SIG_DFL);
		setrlimit(RLIMIT_FSIZE, &lim);
		memset(buf, 'x', sizeof(buf));
		if (out_open(&o, path, err, sizeof(err)) < 0)
			_exit(3);
		for (k = 0; k < 64; k++)
			fwrite(buf, 1, sizeof(buf), o.f);
		if (out_commit(&o, err, sizeof(err)) != -EFBIG)
			_exit(4);
		_exit(strcmp(err, "write error: File too large") ? 6 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child status %#x", status);
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(count_entries(dir), before);
}

static void test_out_dir_commit_and_abort(void **state)
{
	char path[128], f[192], err[256];
	struct out_dir d;

	(void)state;
	snprintf(path, sizeof(path), "%s/csv", dir);
	assert_int_equal(out_dir_open(&d, path, err, sizeof(err)), 0);
	snprintf(f, sizeof(f), "%s/t.csv", d.tmp);
	put_file(f, "one\n");
	assert_int_equal(out_dir_commit(&d, err, sizeof(err)), 0);
	snprintf(f, sizeof(f), "%s/t.csv", path);
	assert_string_equal(slurp(f), "one\n");
	assert_int_equal(count_entries(path), 1);
	assert_int_equal(out_dir_open(&d, path, err, sizeof(err)), 0);
	snprintf(f, sizeof(f), "%s/t.csv", d.tmp);
	put_file(f, "two\n");
	out_dir_abort(&d);
	snprintf(f, sizeof(f), "%s/t.csv", path);
	assert_string_equal(slurp(f), "one\n");
	assert_int_equal(count_entries(path), 1);
	assert_int_equal(out_dir_open(&d, "-", err, sizeof(err)), -EINVAL);
}

static void check_term(const char *in, const char *want)
{
	char *buf = NULL, small[256];
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	term_put(f, in);
	fclose(f);
	assert_string_equal(buf, want);
	assert_string_equal(term_str(small, sizeof(small), in), want);
	free(buf);
}

static void test_term_escapes_c0_and_c1_controls(void **state)
{
	(void)state;
	check_term("plain <x> \"q\" \\", "plain <x> \"q\" \\");
	check_term("esc\x1b[31m", "esc\\x1b[31m");
	check_term("nl\ntab\tdel\x7f", "nl\\x0atab\\x09del\\x7f");
	/* U+009B CSI and U+009D OSC, as UTF-8 */
	check_term("a\xc2\x9b"
		   "2Jb\xc2\x9d"
		   "0;t\xc2\x9c",
		   "a\\u009b2Jb\\u009d0;t\\u009c");
	/* a lone 0x9b byte is CSI to an 8-bit terminal */
	check_term("x\x9b"
		   "y\xff",
		   "x\\x9by\\xff");
	/* U+00A0 and beyond pass */
	check_term("\xc2\xa0\xc3\xa9\xe2\x9c\x93", "\xc2\xa0\xc3\xa9\xe2\x9c\x93");
}

static void test_term_put_max_cuts_on_a_character(void **state)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	(void)state;
	assert_int_equal(term_put_max(f, "ab\xc3\xa9z", 3), 1);
	fclose(f);
	assert_string_equal(buf, "ab");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_abort_leaves_the_old_file_and_no_temporary),
	    cmocka_unit_test(test_commit_replaces_the_file),
	    cmocka_unit_test(test_full_device_fails_and_is_not_removed),
	    cmocka_unit_test(test_folder_is_refused),
	    cmocka_unit_test(test_sigterm_removes_only_the_temporary_file),
	    cmocka_unit_test(test_fatal_signals_remove_the_temporary_file),
	    cmocka_unit_test(test_fatal_signal_removes_the_temporary_folder),
	    cmocka_unit_test(test_file_size_limit_is_a_write_error),
	    cmocka_unit_test(test_out_dir_commit_and_abort),
	    cmocka_unit_test(test_term_escapes_c0_and_c1_controls),
	    cmocka_unit_test(test_term_put_max_cuts_on_a_character),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
