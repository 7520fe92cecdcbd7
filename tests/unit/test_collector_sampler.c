/*
 * test_collector_sampler.c - the sampler of launching threads
 * (collector/sampler.c) on this machine's real timers and signals: a thread
 * watched spins in a known function, its samples reach the writer's hand-off
 * with that function among their native frames, timed inside the spin; a
 * thread never watched gets none; samples with and without frames become
 * samples rows (stack_id NULL for none) with the stack rows written once.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "callsite.h"
#include "internal.h"

#define MAX_EV 20000
static struct gs_callsite got[MAX_EV];
static size_t n_got;

static void push(const struct gs_event *ev)
{
	if (ev->kind == GS_EV_SAMPLE && n_got < MAX_EV)
		got[n_got++] = ev->u.callsite;
}

static uint64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/* spins until this thread has used cpu_ns of CPU time */
__attribute__((noinline)) void gs_test_spin(uint64_t cpu_ns)
{
	uint64_t end = thread_cpu() + cpu_ns, x = 1;

	while (thread_cpu() < end) {
		int i;
		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		sink = x;
	}
}
__attribute__((noinline)) void gs_test_spin_end(void)
{
	sink++;
}

static void test_watched_thread_sampled_in_its_spin(void **state)
{
	uint64_t t0, t1, taken, dropped, threads;
	int64_t tid = (int64_t)syscall(SYS_gettid);
	size_t i, in_spin = 0;
	(void)state;

	n_got = 0;
	gs_callsite_set_pyapi(NULL);
	gs_callsite_set_native(GS_NATIVE_AUTO);
	/* no collector clock: samples keep CLOCK_MONOTONIC */
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	assert_int_equal(gs_sampler_active(), 1);
	gs_sampler_watch(tid);
	t0 = mono();
	gs_test_spin(300000000); /* 300 ms of CPU: 300 samples at 1 kHz */
	t1 = mono();
	gs_sampler_stop();
	gs_sampler_counts(&taken, &dropped, &threads);
	/* a CPU-time timer of 1 ms over 300 ms of CPU: 300 expirations; the
	 * kernel checks CPU timers at its tick, so some may merge (overrun) */
	assert_true(n_got >= 30);
	assert_true(n_got <= 301);
	assert_int_equal(taken, n_got);
	assert_int_equal(dropped, 0);
	assert_int_equal(threads, 1);
	for (i = 0; i < n_got; i++) {
		int k, hit = 0;
		assert_int_equal(got[i].tid, tid);
		assert_true(got[i].t_begin >= t0 && got[i].t_begin <= t1);
		assert_int_equal(got[i].n_py, 0);
		for (k = 0; k < got[i].n_native; k++)
			hit |= (uintptr_t)got[i].native[k] >= (uintptr_t)gs_test_spin &&
			       (uintptr_t)got[i].native[k] < (uintptr_t)gs_test_spin_end;
		in_spin += hit;
	}
	/* the spin (or thread_cpu's vDSO call inside it) is on every stack
	 * walked; allow a few interrupted in code the walk does not cross */
	print_message("samples %zu, with the spin on the stack %zu\n", n_got, in_spin);
	assert_true(in_spin * 10 >= n_got * 9);
}

/* Two threads that register themselves (as the collector's CUDA callbacks
 * do, gs_sampler_watch_self) at the same moment, twice each, then spin:
 * two threads sampled, each sample of its own thread inside its spin. */
static pthread_barrier_t both;
static int64_t self_tid[2];

static void *self_watcher(void *arg)
{
	int k = (int)(intptr_t)arg;

	self_tid[k] = (int64_t)syscall(SYS_gettid);
	pthread_barrier_wait(&both);
	gs_sampler_watch_self();
	gs_sampler_watch_self(); /* once per thread */
	gs_test_spin(100000000);
	return NULL;
}

static void test_threads_watch_themselves(void **state)
{
	uint64_t taken, dropped, threads, taken0, dropped0, threads0;
	pthread_t th[2];
	size_t i, mine[2] = {0, 0};
	int k;
	(void)state;

	n_got = 0;
	gs_callsite_set_pyapi(NULL);
	gs_callsite_set_native(GS_NATIVE_AUTO);
	/* the counts are the process's (rings stay): what this test adds */
	gs_sampler_counts(&taken0, &dropped0, &threads0);
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	assert_int_equal(pthread_barrier_init(&both, NULL, 2), 0);
	for (k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&th[k], NULL, self_watcher, (void *)(intptr_t)k), 0);
	for (k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	pthread_barrier_destroy(&both);
	gs_sampler_stop();
	gs_sampler_counts(&taken, &dropped, &threads);
	assert_int_equal(threads - threads0, 2);
	assert_int_equal(dropped - dropped0, 0);
	assert_int_equal(taken - taken0, n_got);
	for (i = 0; i < n_got; i++) {
		assert_true(got[i].tid == self_tid[0] || got[i].tid == self_tid[1]);
		mine[got[i].tid == self_tid[1]]++;
	}
	/* 100 ms of CPU each at 1 kHz (fewer at a coarse tick) */
	print_message("samples: thread 1 %zu, thread 2 %zu\n", mine[0], mine[1]);
	assert_true(mine[0] >= 10 && mine[1] >= 10);
}

static void test_unwatched_thread_not_sampled(void **state)
{
	uint64_t taken, dropped, threads;
	(void)state;

	n_got = 0;
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	gs_test_spin(50000000);
	gs_sampler_stop();
	gs_sampler_counts(&taken, &dropped, &threads);
	assert_int_equal(n_got, 0);
}

static void test_samples_rows_and_stacks(void **state)
{
	char dir[] = "/tmp/gs-sampler-XXXXXX", path[128], err[256];
	struct gs_writer *w;
	struct gs_stack_table *t = gs_stack_table_new();
	static struct gs_callsite a, b;
	sqlite3 *db;
	sqlite3_stmt *st;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(gs_writer_open(&w, path, 0, err, sizeof(err)), 0);
	memset(&a, 0, sizeof(a));
	a.tid = 77;
	a.t_begin = 5000;
	a.n_native = 1;
	a.native[0] = (void *)(uintptr_t)gs_test_spin;
	b = a;
	b.t_begin = 6000;
	memset(&a.native, 0, sizeof(a.native));
	assert_int_equal(gs_writer_begin(w), 0);
	assert_int_equal(gs_sample_apply(w, t, &b), 0);
	b.t_begin = 7000;
	assert_int_equal(gs_sample_apply(w, t, &b), 0);
	a.n_native = 0; /* no frame read */
	assert_int_equal(gs_sample_apply(w, t, &a), 0);
	assert_int_equal(gs_writer_commit(w), 0);
	assert_int_equal(gs_writer_finalize(w, 100), 0);
	gs_stack_table_free(t);

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT group_concat(tid || ':' || t || ':' || "
					    "coalesce(stack_id, 'n'), ' ') FROM (SELECT * FROM "
					    "samples ORDER BY t)",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0),
			    "77:5000:n 77:6000:1 77:7000:1");
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM stack_frames", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_watched_thread_sampled_in_its_spin),
	    cmocka_unit_test(test_threads_watch_themselves),
	    cmocka_unit_test(test_unwatched_thread_not_sampled),
	    cmocka_unit_test(test_samples_rows_and_stacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
