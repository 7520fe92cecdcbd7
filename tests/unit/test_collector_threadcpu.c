/*
 * test_collector_threadcpu.c - the CPU time of the process's threads by name
 * (collector/threadcpu.c): stat lines parsed, a fake task folder summed by
 * name, and the real /proc/self/task of this test.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
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

#include "internal.h"

/* A stat line whose comm holds ") (" and spaces: utime 250, stime 37. */
static void test_parse_stat(void **state)
{
	char comm[32];
	long long ticks = -1;
	(void)state;

	assert_int_equal(gs_parse_stat("1234 (we) (ird name) S 1 1234 1234 0 -1 4194560 200 0 0 0 "
				       "250 37 0 0 20 0 3 0 500 1000 50",
				       comm, sizeof(comm), &ticks),
			 0);
	assert_string_equal(comm, "we) (ird name");
	assert_int_equal(ticks, 287);
	/* a comm longer than the room is cut, the ticks still read */
	assert_int_equal(gs_parse_stat("7 (abcdefgh) R 1 7 7 0 -1 0 0 0 0 0 5 6 0 0", comm, 4, &ticks),
			 0);
	assert_string_equal(comm, "abc");
	assert_int_equal(ticks, 11);
	/* not stat lines */
	assert_int_equal(gs_parse_stat("garbage", comm, sizeof(comm), &ticks), -1);
	assert_int_equal(gs_parse_stat("7 (x) R 1 7 7", comm, sizeof(comm), &ticks), -1);
	assert_int_equal(gs_parse_stat("7 (x) R 1 7 7 0 -1 0 0 0 0 0 five 6", comm, sizeof(comm),
				       &ticks),
			 -1);
}

static void put_stat(const char *dir, const char *tid, const char *comm, int ut, int st)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, tid);
	assert_int_equal(mkdir(path, 0755), 0);
	if (!comm)
		return; /* a thread gone before its stat was read */
	snprintf(path, sizeof(path), "%s/%s/stat", dir, tid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s (%s) S 1 1 1 0 -1 0 0 0 0 0 %d %d 0 0 20 0 1 0 9 0 0\n", tid, comm, ut, st);
	fclose(f);
}

/* Two "worker" threads (120 and 30 ticks), one "main" (10), one "tiny"
 * (1), a tid without stat and a non-tid entry: by name, largest first. */
static void test_scan_fake(void **state)
{
	char dir[] = "/tmp/gs_taskXXXXXX", path[600];
	struct gs_thread_cpu out[8];
	long tck = sysconf(_SC_CLK_TCK);
	int64_t tick_ns;
	(void)state;

	assert_non_null(mkdtemp(dir));
	tick_ns = 1000000000LL / (tck > 0 ? tck : 100);
	put_stat(dir, "101", "main", 5, 5);
	put_stat(dir, "102", "worker", 100, 20);
	put_stat(dir, "103", "worker", 30, 0);
	put_stat(dir, "104", "tiny", 1, 0);
	put_stat(dir, "105", NULL, 0, 0);
	snprintf(path, sizeof(path), "%s/self", dir);
	assert_int_equal(mkdir(path, 0755), 0);

	assert_int_equal(gs_thread_cpu_scan(dir, out, 8), 3);
	assert_string_equal(out[0].name, "worker");
	assert_int_equal(out[0].cpu_ns, 150 * tick_ns);
	assert_int_equal(out[0].threads, 2);
	assert_string_equal(out[1].name, "main");
	assert_int_equal(out[1].cpu_ns, 10 * tick_ns);
	assert_int_equal(out[1].threads, 1);
	assert_string_equal(out[2].name, "tiny");
	assert_int_equal(out[2].cpu_ns, tick_ns);

	/* room for two: the two largest, whatever order readdir gives */
	memset(out, 0, sizeof(out));
	assert_int_equal(gs_thread_cpu_scan(dir, out, 2), 2);
	assert_string_equal(out[0].name, "worker");
	assert_string_equal(out[1].name, "main");
	assert_int_equal(out[2].threads, 0); /* nothing written past max */

	/* one stat file: a process's total */
	snprintf(path, sizeof(path), "%s/102/stat", dir);
	assert_int_equal(gs_stat_cpu_ns(path), 120 * tick_ns);
	snprintf(path, sizeof(path), "%s/105/stat", dir);
	assert_int_equal(gs_stat_cpu_ns(path), -1);
	assert_true(gs_stat_cpu_ns("/proc/self/stat") >= 0);

	assert_int_equal(gs_thread_cpu_scan("/nonexistent/gs_task", out, 8), -1);
	assert_int_equal(gs_thread_cpu_scan(dir, out, 0), -1);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int named, done;

static void *named_thread(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "gs-test-named");
	pthread_mutex_lock(&lk);
	named = 1;
	pthread_cond_broadcast(&cv);
	while (!done)
		pthread_cond_wait(&cv, &lk);
	pthread_mutex_unlock(&lk);
	return NULL;
}

/* This process: a thread named gs-test-named is found, once, beside the
 * test's own thread (named as /proc/self/comm says). */
static void test_scan_self(void **state)
{
	struct gs_thread_cpu out[64];
	char self[64] = "";
	pthread_t t;
	FILE *f;
	int n, i, found = 0, found_self = 0;
	(void)state;

	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(self, sizeof(self), f));
	fclose(f);
	self[strcspn(self, "\n")] = '\0';
	assert_int_equal(pthread_create(&t, NULL, named_thread, NULL), 0);
	pthread_mutex_lock(&lk);
	while (!named)
		pthread_cond_wait(&cv, &lk);
	pthread_mutex_unlock(&lk);

	n = gs_thread_cpu_scan("/proc/self/task", out, 64);
	for (i = 0; i < n; i++) {
		if (!strcmp(out[i].name, "gs-test-named")) {
			found++;
			assert_int_equal(out[i].threads, 1);
			assert_true(out[i].cpu_ns >= 0);
		}
		if (!strcmp(out[i].name, self))
			found_self++;
	}
	pthread_mutex_lock(&lk);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&lk);
	pthread_join(t, NULL);
	assert_int_equal(found, 1);
	assert_int_equal(found_self, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_scan_fake),
		cmocka_unit_test(test_scan_self),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
