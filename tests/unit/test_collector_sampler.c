/*
 * test_collector_sampler.c - the sampler of launching threads
 * (collector/sampler.c) on this machine's real timers and signals: a thread
 * watched spins in a known function, its samples reach the writer's hand-off
 * with that function among their native frames, timed inside the spin; a
 * thread never watched gets none; samples with and without frames become
 * samples rows (stack_id NULL for none) with the stack rows written once.
 * The two sources: where this machine allows perf_event_open, a thread gets
 * the rate asked (more than a 250 Hz tick allows) and the meta says so;
 * GAPSCOPE_SAMPLE_CLOCK=timer forces the timer; with either, a thread
 * blocked in poll() and read() is never interrupted (no EINTR) and has no
 * sample while asleep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* The calling thread's task clock, as the sampler's perf events count it
 * (ns it was on a CPU). On a virtual machine it includes the time the host
 * took the CPU away (steal), which the thread's CPU-time clock leaves out:
 * there the perf source gives more samples a CPU-time second than asked.
 * An upper bound of any source's samples: one a period of it. Where perf
 * is refused, the thread's CPU-time clock (then only the timer samples). */
static int task_clock_open(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t task_clock_ns(int fd)
{
	uint64_t v;

	if (fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		return v;
	return thread_cpu();
}

static volatile uint64_t sink;

/* gs_test_spin's code lies between its address and gs_test_spin_end's: GCC
 * at -O2 put gs_test_spin_end first (20 bytes before it), and every
 * sample then missed the spin; no_reorder keeps them in source order */
#if defined(__GNUC__) && !defined(__clang__)
#define GS_IN_ORDER __attribute__((noinline, no_reorder))
#else
#define GS_IN_ORDER __attribute__((noinline))
#endif

/* spins until this thread has used cpu_ns of CPU time */
GS_IN_ORDER void gs_test_spin(uint64_t cpu_ns)
{
	uint64_t end = thread_cpu() + cpu_ns, x = 1;

	while (thread_cpu() < end) {
		int i;
		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		sink = x;
	}
}
GS_IN_ORDER void gs_test_spin_end(void)
{
	sink++;
}

/* One sampled spin (spin_sampled's), run on the thread that calls it. */
struct spin_run {
	int native, start_rc, active;
	int64_t tid;
	uint64_t t0, t1, t_stop, tc0, tc1, taken, dropped, threads, taken0, dropped0, threads0;
};

static void *spin_body(void *arg)
{
	struct spin_run *r = arg;
	int tc;

	r->tid = (int64_t)syscall(SYS_gettid);
	gs_callsite_set_pyapi(NULL);
	gs_callsite_set_native(r->native);
	/* the counts are the process's (rings stay): what this run adds */
	gs_sampler_counts(&r->taken0, &r->dropped0, &r->threads0);
	/* no collector clock: samples keep CLOCK_MONOTONIC */
	r->start_rc = gs_sampler_start(1000, NULL, push);
	r->active = gs_sampler_active();
	gs_sampler_watch(r->tid);
	tc = task_clock_open();
	r->tc0 = task_clock_ns(tc);
	r->t0 = mono();
	gs_test_spin(300000000); /* 300 ms of CPU: 300 samples at 1 kHz */
	r->t1 = mono();
	r->tc1 = task_clock_ns(tc);
	if (tc >= 0)
		close(tc);
	gs_sampler_stop();
	r->t_stop = mono();
	gs_callsite_set_native(GS_NATIVE_AUTO);
	gs_sampler_counts(&r->taken, &r->dropped, &r->threads);
	return NULL;
}

/* 300 ms of CPU of a new thread (a thread sampled once keeps its ring, and
 * a ring is armed once), sampled at 1 kHz with native frames taken as
 * `native` says: the samples' checks common to both ways; how many samples
 * have the spin among their native frames (*in_spin) and how many have
 * exactly one native frame (*one) */
static void spin_sampled(int native, size_t *in_spin, size_t *one)
{
	struct spin_run r = {.native = native};
	pthread_t th;
	size_t i, after = 0;

	n_got = 0;
	*in_spin = *one = 0;
	assert_int_equal(pthread_create(&th, NULL, spin_body, &r), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(r.start_rc, 0);
	assert_int_equal(r.active, 1);
	/* 1 ms of CPU a sample over 300 ms of CPU: 300 periods; a timer is
	 * checked at the kernel's tick, so some merge (overrun); a perf event
	 * counts user time only, and this spin reads its clock (a system
	 * call) every ~1 us */
	assert_true(n_got >= 30);
	assert_true((double)n_got <= (double)(r.tc1 - r.tc0) / 1e6 + 1);
	assert_int_equal(r.taken - r.taken0, n_got);
	assert_int_equal(r.dropped - r.dropped0, 0);
	assert_int_equal(r.threads - r.threads0, 1);
	for (i = 0; i < n_got; i++) {
		int k, hit = 0;
		assert_int_equal(got[i].tid, r.tid);
		/* in the spin; the event counts the thread's user time to the
		 * stop, so the period the spin left almost full may end in
		 * the few instructions after it (one sample at most) */
		assert_true(got[i].t_begin >= r.t0 && got[i].t_begin <= r.t_stop);
		after += got[i].t_begin > r.t1;
		assert_int_equal(got[i].n_py, 0);
		for (k = 0; k < got[i].n_native; k++)
			hit |= (uintptr_t)got[i].native[k] >= (uintptr_t)gs_test_spin &&
			       (uintptr_t)got[i].native[k] < (uintptr_t)gs_test_spin_end;
		*in_spin += hit;
		*one += got[i].n_native == 1;
	}
	assert_true(after <= 1);
}

/* GAPSCOPE_NATIVE_FRAMES=always: the native frames walked from the
 * handler have the spin on (nearly) every stack */
static void test_watched_thread_sampled_in_its_spin(void **state)
{
	size_t in_spin, one;
	(void)state;

	spin_sampled(GS_NATIVE_ALWAYS, &in_spin, &one);
	/* the spin (or thread_cpu's vDSO call inside it) is on every stack
	 * walked; allow a few interrupted in code the walk does not cross */
	print_message("samples %zu, with the spin on the stack %zu\n", n_got, in_spin);
	assert_true(in_spin * 10 >= n_got * 9);
}

/* The default: no walk from the handler, the interrupted pc alone; the
 * spin's own code (between its clock reads) holds some of them */
static void test_sample_takes_the_pc_alone(void **state)
{
	size_t in_spin, one;
	(void)state;

	spin_sampled(GS_NATIVE_AUTO, &in_spin, &one);
	print_message("samples %zu, one frame %zu, the pc in the spin %zu\n", n_got, one, in_spin);
	assert_int_equal(one, n_got);
	assert_true(in_spin >= 1);
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
		assert_int_equal(pthread_create(&th[k], NULL, self_watcher, (void *)(intptr_t)k),
				 0);
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

/* spins for cpu_ns of this thread's CPU time, nearly all of it in user
 * mode: the clock (a system call) is read once per ~1 ms of work, so a
 * user-time source (perf_event, exclude_kernel) sees all of it */
__attribute__((noinline)) static void spin_user(uint64_t cpu_ns)
{
	uint64_t end = thread_cpu() + cpu_ns, x = 1;

	while (thread_cpu() < end) {
		int i;
		for (i = 0; i < 1000000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		sink = x;
	}
}

/* Can this process sample a thread of its own with a task-clock event,
 * as the sampler asks for it? 0, or the errno that refuses it. */
static int perf_probe(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static size_t samples_of(int64_t tid, uint64_t from, uint64_t to)
{
	size_t i, n = 0;

	for (i = 0; i < n_got; i++)
		n += got[i].tid == tid && got[i].t_begin >= from && got[i].t_begin <= to;
	return n;
}

/* A thread that watches itself, spins spin_ns of CPU, then waits (no CPU)
 * until the test has stopped the sampler, so the sampler's last look at
 * its CPU time comes after all of it. */
struct spinner {
	uint64_t spin_ns;
	int64_t tid;
	uint64_t tc0, tc1;   /* ns of its task clock around the spin */
	uint64_t cpu0, cpu1; /* ns of its CPU time around the spin */
	int hold[2];	     /* a pipe: the test writes when it may end */
};

static void *spinner_main(void *arg)
{
	struct spinner *sp = arg;
	char c;

	int tc = task_clock_open();

	sp->tid = (int64_t)syscall(SYS_gettid);
	gs_sampler_watch_self();
	sp->tc0 = task_clock_ns(tc);
	sp->cpu0 = thread_cpu();
	spin_user(sp->spin_ns);
	sp->tc1 = task_clock_ns(tc);
	__atomic_store_n(&sp->cpu1, thread_cpu(), __ATOMIC_RELEASE);
	if (tc >= 0)
		close(tc);
	while (read(sp->hold[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void meta_of(const char *path, const char *key, char *out, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	out[0] = '\0';
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Run before any other test makes a ring in this process: its thread is
 * the only one the sampler has seen, so the meta's figures are its alone. */
static void test_perf_source_gives_the_rate_asked(void **state)
{
	char dir[] = "/tmp/gs-sampler-XXXXXX", path[128], err[256], v[256];
	struct spinner sp = {.spin_ns = 300000000};
	struct gs_writer *w;
	pthread_t th;
	double cpu_s, expect;
	size_t n;
	int perr = perf_probe();
	(void)state;

	if (perr) {
		print_message("perf_event_open refused here (%s, perf_event_paranoid or seccomp): "
			      "the perf source cannot be checked\n",
			      strerror(perr));
		skip();
	}
	n_got = 0;
	gs_callsite_set_pyapi(NULL);
	gs_callsite_set_native(GS_NATIVE_AUTO);
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	assert_int_equal(pipe(sp.hold), 0);
	assert_int_equal(pthread_create(&th, NULL, spinner_main, &sp), 0);
	while (__atomic_load_n(&sp.cpu1, __ATOMIC_ACQUIRE) == 0)
		usleep(10000);
	gs_sampler_stop();
	assert_int_equal(write(sp.hold[1], "x", 1), 1);
	pthread_join(th, NULL);
	close(sp.hold[0]);
	close(sp.hold[1]);

	assert_int_equal(gs_sampler_thread_source(sp.tid), GS_SAMPLE_CLOCK_PERF);
	n = samples_of(sp.tid, 0, UINT64_MAX);
	cpu_s = (double)(sp.cpu1 - sp.cpu0) / 1e9;
	expect = cpu_s * 1000; /* one sample per ms of CPU */
	print_message("perf source: %zu samples in %.3f s of CPU = %.0f a CPU second\n", n, cpu_s,
		      (double)n / cpu_s);
	/* a 250 Hz tick gives at most 75 + 1 here; a sample stands for a
	 * whole period of the task clock, so never more than its periods in
	 * the spin (+2: the time between the watch and tc0) */
	assert_true(n >= 200);
	assert_true((double)n >= 0.9 * expect);
	assert_true((double)n <= (double)(sp.tc1 - sp.tc0) / 1e6 + 2);

	/* the meta: the source, and the rate measured from the sampler's own
	 * look at the thread's CPU clock (watch to stop) */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(gs_writer_open(&w, path, 0, err, sizeof(err)), 0);
	assert_int_equal(gs_writer_begin(w), 0);
	gs_sampler_finish(w, 1, 1000);
	assert_int_equal(gs_writer_commit(w), 0);
	assert_int_equal(gs_writer_finalize(w, 100), 0);
	meta_of(path, "samples.clock", v, sizeof(v));
	assert_string_equal(v, "thread task-clock (perf_event)");
	meta_of(path, "config.sample_clock", v, sizeof(v));
	assert_string_equal(v, "auto");
	meta_of(path, "samples.source_errors", v, sizeof(v));
	assert_string_equal(v, "");
	meta_of(path, "samples.rate_hz", v, sizeof(v));
	print_message("meta samples.rate_hz %s (the test's own: %.1f)\n", v, (double)n / cpu_s);
	assert_true(labs(atol(v) - (long)((double)n / cpu_s + 0.5)) <= 2);
	meta_of(path, "samples.cpu_ns", v, sizeof(v));
	assert_true(atoll(v) >= (long long)(sp.cpu1 - sp.cpu0));
	assert_true(atoll(v) <= (long long)(sp.cpu1 - sp.cpu0) + 5000000);
	unlink(path);
	rmdir(dir);
}

/* gs_sampler_pause: a thread spins 100 ms of CPU sampled, 200 ms paused,
 * 100 ms resumed; the test pauses and resumes between its steps. */
struct pauser {
	int64_t tid;
	_Atomic int step; /* the thread's: 1 first spin done, 2 paused spin done, 3 end */
	_Atomic int ack;  /* the test's: 1 paused, 2 resumed, 3 stopped */
	uint64_t t[6];	  /* mono around each spin */
	uint64_t c[6];	  /* its CPU time there */
};

static void *pauser_main(void *arg)
{
	struct pauser *p = arg;
	int k;

	p->tid = (int64_t)syscall(SYS_gettid);
	gs_sampler_watch(p->tid);
	for (k = 0; k < 3; k++) {
		p->t[2 * k] = mono();
		p->c[2 * k] = thread_cpu();
		gs_test_spin(k == 1 ? 200000000 : 100000000);
		p->t[2 * k + 1] = mono();
		p->c[2 * k + 1] = thread_cpu();
		atomic_store(&p->step, k + 1);
		/* after the last spin too: alive until the sampler has stopped,
		 * so that its last look at the thread's CPU time sees all of it */
		while (atomic_load(&p->ack) < k + 1)
			usleep(1000);
	}
	return NULL;
}

/* meta samples.cpu_ns as the sampler would write it now */
static long long cpu_meta(void)
{
	char dir[] = "/tmp/gs-sampler-XXXXXX", path[128], err[256], v[64];
	struct gs_writer *w;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(gs_writer_open(&w, path, 0, err, sizeof(err)), 0);
	assert_int_equal(gs_writer_begin(w), 0);
	gs_sampler_finish(w, 1, 1000);
	assert_int_equal(gs_writer_commit(w), 0);
	assert_int_equal(gs_writer_finalize(w, 100), 0);
	meta_of(path, "samples.cpu_ns", v, sizeof(v));
	unlink(path);
	rmdir(dir);
	return atoll(v);
}

/* gs_sampler_pause without a start (GAPSCOPE_SAMPLING=0 under --capture-range:
 * the collector pauses and resumes at every window) does nothing: it computed
 * the timer's period, 1e9 / hz, before its check, and hz is 0 until a start
 * sets it, a SIGFPE in the program at its first window (H100, 2026-12-07).
 * In a child, so that the signal ends the child, not the suite; first in the
 * list, while no start has set hz in this process. */
static void test_pause_without_start(void **state)
{
	pid_t pid;
	int status = 0;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		gs_sampler_pause(1);
		gs_sampler_pause(0);
		gs_sampler_pause(1);
		_exit(7);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		print_message("the child died of signal %d\n", WTERMSIG(status));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 7);
}

/* Paused, a spinning thread gets no sample and its CPU time is not counted
 * as sampled; resumed, it is sampled again: with the source `clock` (auto:
 * perf where this machine allows it) */
static void pause_and_resume(int clock)
{
	struct pauser p = {0};
	pthread_t th;
	long long before, after, active;
	size_t s0, s1, s2;

	n_got = 0;
	gs_callsite_set_pyapi(NULL);
	gs_callsite_set_native(GS_NATIVE_AUTO);
	gs_sampler_set_clock(clock);
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	before = cpu_meta();
	assert_int_equal(pthread_create(&th, NULL, pauser_main, &p), 0);
	while (atomic_load(&p.step) < 1)
		usleep(1000);
	gs_sampler_pause(1);
	atomic_store(&p.ack, 1);
	while (atomic_load(&p.step) < 2)
		usleep(1000);
	gs_sampler_pause(0);
	atomic_store(&p.ack, 2);
	while (atomic_load(&p.step) < 3)
		usleep(1000);
	gs_sampler_stop();
	atomic_store(&p.ack, 3);
	pthread_join(th, NULL);
	after = cpu_meta();
	s0 = samples_of(p.tid, p.t[0], p.t[1]);
	s1 = samples_of(p.tid, p.t[2], p.t[3]);
	s2 = samples_of(p.tid, p.t[4], p.t[5]);
	active = (long long)(p.c[1] - p.c[0] + p.c[5] - p.c[4]);
	print_message("source %d: samples before the pause %zu, paused %zu, resumed %zu; cpu_ns "
		      "counted %lld, the sampled spins' %lld, the paused one's %llu\n",
		      gs_sampler_thread_source(p.tid), s0, s1, s2, after - before, active,
		      (unsigned long long)(p.c[3] - p.c[2]));
	/* 100 ms of CPU at 1 kHz (25 at a 250 Hz tick); none while paused. A
	 * CPU-time timer fires at the ticks that find the thread running, its
	 * expiries between them merged into one: on a loaded machine (ctest -j8
	 * on 2 cores) a resumed timer gave 6 in 100 ms, so it needs a few there;
	 * perf counts the thread's own clock and gives the rate asked */
	if (gs_sampler_thread_source(p.tid) == GS_SAMPLE_CLOCK_TIMER)
		assert_true(s0 >= 3 && s2 >= 3);
	else
		assert_true(s0 >= 20 && s2 >= 20);
	assert_int_equal(s1, 0);
	/* the paused 200 ms left out: the two spins, and the little the
	 * thread used around them (its waits, the watch) */
	assert_true(after - before >= active);
	assert_true(after - before <= active + 20000000);
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
}

static void test_pause_and_resume(void **state)
{
	(void)state;
	pause_and_resume(GS_SAMPLE_CLOCK_AUTO);
}

static void test_pause_and_resume_timer(void **state)
{
	(void)state;
	pause_and_resume(GS_SAMPLE_CLOCK_TIMER);
}

static const char *env_of(const char *name, void *ctx)
{
	return strcmp(name, "GAPSCOPE_SAMPLE_CLOCK") == 0 ? (const char *)ctx : NULL;
}

static void test_sample_clock_from_env(void **state)
{
	struct gs_config c;
	(void)state;

	assert_int_equal(gs_config_from_env(&c, env_of, NULL), 0);
	assert_int_equal(c.sample_clock, GS_SAMPLE_CLOCK_AUTO);
	assert_int_equal(gs_config_from_env(&c, env_of, "timer"), 0);
	assert_int_equal(c.sample_clock, GS_SAMPLE_CLOCK_TIMER);
	assert_int_equal(gs_config_from_env(&c, env_of, "perf"), 0);
	assert_int_equal(c.sample_clock, GS_SAMPLE_CLOCK_PERF);
	/* one warning, the default */
	assert_int_equal(gs_config_from_env(&c, env_of, "hrtimer"), 1);
	assert_int_equal(c.sample_clock, GS_SAMPLE_CLOCK_AUTO);
	assert_string_equal(gs_sample_clock_str(GS_SAMPLE_CLOCK_TIMER), "timer");
}

static void test_clock_text_names_each_source(void **state)
{
	char b[160];
	(void)state;

	gs_sampler_clock_text(0, 3, b, sizeof(b));
	assert_string_equal(b, "thread CPU time (timer, at the kernel tick)");
	gs_sampler_clock_text(3, 0, b, sizeof(b));
	assert_string_equal(b, "thread task-clock (perf_event)");
	gs_sampler_clock_text(2, 1, b, sizeof(b));
	assert_string_equal(b, "mixed: thread task-clock (perf_event) for 2 threads, thread CPU "
			       "time (timer, at the kernel tick) for 1");
}

/* GAPSCOPE_SAMPLE_CLOCK=timer, as the collector passes it: the thread is
 * sampled by the timer even where perf_event_open works. */
static void test_timer_forced(void **state)
{
	struct gs_config c;
	struct spinner sp = {.spin_ns = 100000000};
	pthread_t th;
	size_t n;
	(void)state;

	n_got = 0;
	assert_int_equal(gs_config_from_env(&c, env_of, "timer"), 0);
	gs_sampler_set_clock(c.sample_clock);
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	assert_int_equal(pipe(sp.hold), 0);
	assert_int_equal(pthread_create(&th, NULL, spinner_main, &sp), 0);
	while (__atomic_load_n(&sp.cpu1, __ATOMIC_ACQUIRE) == 0)
		usleep(10000);
	gs_sampler_stop();
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
	assert_int_equal(write(sp.hold[1], "x", 1), 1);
	pthread_join(th, NULL);
	close(sp.hold[0]);
	close(sp.hold[1]);
	assert_int_equal(gs_sampler_thread_source(sp.tid), GS_SAMPLE_CLOCK_TIMER);
	n = samples_of(sp.tid, 0, UINT64_MAX);
	print_message("timer source: %zu samples in %.3f s of CPU = %.0f a CPU second\n", n,
		      (double)(sp.cpu1 - sp.cpu0) / 1e9,
		      (double)n * 1e9 / (double)(sp.cpu1 - sp.cpu0));
	/* at most one a period of CPU; at least half a 100 Hz tick gives */
	assert_true(n >= 5);
	assert_true((double)n <= (double)(sp.cpu1 - sp.cpu0) / 1e6 + 2);
}

/* A watched thread spins, blocks 200 ms in poll() (which SA_RESTART does
 * not restart: a signal there is EINTR), spins, blocks 200 ms in read() on
 * a pipe, and spins again: both calls return their data, and no sample
 * falls while it slept, though samples come before, between and after. A
 * wall-clock timer would fail this. */
struct blocker {
	int fd[2];
	int64_t tid;
	uint64_t t_in[2], t_out[2]; /* ns, CLOCK_MONOTONIC: around each call */
	int poll_rc, poll_errno, read_rc, read_errno;
};

static void *blocker_main(void *arg)
{
	struct blocker *b = arg;
	struct pollfd pfd = {.fd = b->fd[0], .events = POLLIN};
	char c[2];

	b->tid = (int64_t)syscall(SYS_gettid);
	gs_sampler_watch_self();
	spin_user(30000000);
	__atomic_store_n(&b->t_in[0], mono(), __ATOMIC_RELEASE);
	errno = 0;
	b->poll_rc = poll(&pfd, 1, 5000);
	b->poll_errno = errno;
	b->t_out[0] = mono();
	if (read(b->fd[0], c, 1) != 1) /* the byte that woke poll */
		b->poll_rc = -2;
	spin_user(30000000);
	__atomic_store_n(&b->t_in[1], mono(), __ATOMIC_RELEASE);
	errno = 0;
	b->read_rc = (int)read(b->fd[0], c, 2);
	b->read_errno = errno;
	b->t_out[1] = mono();
	spin_user(30000000);
	return NULL;
}

static void blocked_thread_not_interrupted(int mode)
{
	struct blocker b;
	pthread_t th;
	size_t before, during = 0, between, after;
	int k;

	memset(&b, 0, sizeof(b));
	n_got = 0;
	gs_sampler_set_clock(mode);
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	assert_int_equal(pipe(b.fd), 0);
	assert_int_equal(pthread_create(&th, NULL, blocker_main, &b), 0);
	for (k = 0; k < 2; k++) {
		while (__atomic_load_n(&b.t_in[k], __ATOMIC_ACQUIRE) == 0)
			usleep(1000);
		usleep(200000);
		assert_int_equal(write(b.fd[1], "x", 1), 1);
	}
	pthread_join(th, NULL);
	gs_sampler_stop();
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
	close(b.fd[0]);
	close(b.fd[1]);
	/* a sample may fall in the few instructions between the clock read
	 * and the call (or the call's return and the clock read): 2 ms off
	 * each end; a wall-clock timer would give ~200 inside each */
	for (k = 0; k < 2; k++)
		during += samples_of(b.tid, b.t_in[k] + 2000000, b.t_out[k] - 2000000);
	before = samples_of(b.tid, 0, b.t_in[0]);
	between = samples_of(b.tid, b.t_out[0], b.t_in[1]);
	after = samples_of(b.tid, b.t_out[1], UINT64_MAX);
	print_message("source %d: samples before %zu, asleep %zu, between %zu, after %zu\n",
		      gs_sampler_thread_source(b.tid), before, during, between, after);
	assert_int_equal(b.poll_rc, 1);
	assert_int_equal(b.poll_errno, 0);
	assert_int_equal(b.read_rc, 1);
	assert_int_equal(b.read_errno, 0);
	for (k = 0; k < 2; k++)
		assert_true(b.t_out[k] - b.t_in[k] >= 190000000u);
	assert_int_equal(during, 0);
	assert_true(before >= 1 && between >= 1 && after >= 1);
}

static void test_blocked_thread_not_interrupted(void **state)
{
	(void)state;
	blocked_thread_not_interrupted(GS_SAMPLE_CLOCK_AUTO);
}

static void test_blocked_thread_not_interrupted_timer(void **state)
{
	(void)state;
	blocked_thread_not_interrupted(GS_SAMPLE_CLOCK_TIMER);
}

/* perf_event_open refused, as a container's seccomp filter or
 * perf_event_paranoid 3 refuse it: in a child process whose filter makes
 * it fail with EACCES, auto samples the thread by the timer and the meta
 * says so and why; forced perf samples nothing. The child reports through
 * its exit status: 0, or the number of the check that failed. */
static int refused_child(void)
{
	struct sock_filter insns[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(insns) / sizeof(insns[0]), .filter = insns};
	char dir[] = "/tmp/gs-sampler-XXXXXX", path[128], err[256], v[256];
	struct spinner sp = {.spin_ns = 50000000}, sp2 = {.spin_ns = 20000000};
	struct gs_writer *w;
	pthread_t th;
	int rc = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return 100; /* no seccomp here */
	if (perf_probe() != EACCES)
		return 1;
	n_got = 0;
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
	if (gs_sampler_start(1000, NULL, push) != 0 || pipe(sp.hold) != 0 ||
	    pthread_create(&th, NULL, spinner_main, &sp) != 0)
		return 2;
	while (__atomic_load_n(&sp.cpu1, __ATOMIC_ACQUIRE) == 0)
		usleep(10000);
	gs_sampler_stop();
	if (write(sp.hold[1], "x", 1) != 1)
		return 3;
	pthread_join(th, NULL);
	if (gs_sampler_thread_source(sp.tid) != GS_SAMPLE_CLOCK_TIMER)
		return 4;
	if (samples_of(sp.tid, 0, UINT64_MAX) < 3) /* 50 ms of CPU at 100 Hz or more */
		return 5;
	/* forced perf: the next thread is not sampled */
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_PERF);
	if (gs_sampler_start(1000, NULL, push) != 0 || pipe(sp2.hold) != 0 ||
	    pthread_create(&th, NULL, spinner_main, &sp2) != 0)
		return 6;
	while (__atomic_load_n(&sp2.cpu1, __ATOMIC_ACQUIRE) == 0)
		usleep(10000);
	gs_sampler_stop();
	if (write(sp2.hold[1], "x", 1) != 1)
		return 7;
	pthread_join(th, NULL);
	if (gs_sampler_thread_source(sp2.tid) != 0 || samples_of(sp2.tid, 0, UINT64_MAX) != 0)
		return 8;
	if (!mkdtemp(dir))
		return 9;
	snprintf(path, sizeof(path), "%s/t.db", dir);
	if (gs_writer_open(&w, path, 0, err, sizeof(err)) != 0 || gs_writer_begin(w) != 0)
		return 10;
	gs_sampler_finish(w, 1, 1000);
	if (gs_writer_commit(w) != 0 || gs_writer_finalize(w, 100) != 0)
		return 11;
	meta_of(path, "samples.clock", v, sizeof(v));
	if (strcmp(v, "thread CPU time (timer, at the kernel tick)") != 0)
		rc = 12;
	meta_of(path, "samples.source_errors", v, sizeof(v));
	/* the thread the timer sampled, the one forced perf left: the mode
	 * at the end is perf */
	if (!rc && strcmp(v, "perf_event_open failed for 2 threads: Permission denied; not "
			     "sampled") != 0)
		rc = 13;
	meta_of(path, "config.sample_clock", v, sizeof(v));
	if (!rc && strcmp(v, "perf") != 0)
		rc = 14;
	if (rc)
		fprintf(stderr, "child: check %d, value \"%s\"\n", rc, v);
	unlink(path);
	rmdir(dir);
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
	return rc;
}

static void test_perf_refused_falls_back_to_timer(void **state)
{
	pid_t pid;
	int status;
	(void)state;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(refused_child());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 100) {
		print_message("no seccomp filter can be installed here: the refusal cannot be "
			      "simulated\n");
		skip();
	}
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A thread that blocks the sampler's signal while it runs: the perf event
 * stops after its burst of overflows (SAMPLER_PERF_BURST, 16), so at most
 * that many signals wait (real-time signals past RLIMIT_SIGPENDING would
 * become a SIGIO that ends the program); once unblocked they are taken,
 * the event is re-armed and the thread sampled as before. */
struct masked {
	int64_t tid;
	uint64_t t_block, t_unblock, t_end; /* ns, CLOCK_MONOTONIC */
};

static void *masked_main(void *arg)
{
	struct masked *m = arg;
	sigset_t rt;
	int s;

	m->tid = (int64_t)syscall(SYS_gettid);
	sigemptyset(&rt);
	for (s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(&rt, s);
	gs_sampler_watch_self();
	pthread_sigmask(SIG_BLOCK, &rt, NULL);
	m->t_block = mono();
	spin_user(200000000);			 /* 200 periods of 1 ms */
	pthread_sigmask(SIG_UNBLOCK, &rt, NULL); /* the waiting ones run here */
	m->t_unblock = mono();
	spin_user(50000000);
	m->t_end = mono();
	return NULL;
}

static void test_perf_signals_wait_bounded_while_blocked(void **state)
{
	struct masked m;
	pthread_t th;
	size_t waited, later;
	int perr = perf_probe();
	(void)state;

	if (perr) {
		print_message("perf_event_open refused here (%s): nothing to bound\n",
			      strerror(perr));
		skip();
	}
	memset(&m, 0, sizeof(m));
	n_got = 0;
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	assert_int_equal(pthread_create(&th, NULL, masked_main, &m), 0);
	pthread_join(th, NULL);
	gs_sampler_stop();
	assert_int_equal(gs_sampler_thread_source(m.tid), GS_SAMPLE_CLOCK_PERF);
	waited = samples_of(m.tid, m.t_block, m.t_unblock);
	later = samples_of(m.tid, m.t_unblock, m.t_end);
	print_message("200 ms blocked: %zu signals waited; 50 ms after: %zu samples\n", waited,
		      later);
	assert_true(waited >= 1 && waited <= 16);
	/* re-armed: 50 ms of CPU at 1 kHz (more under steal, see
	 * task_clock_open) */
	assert_true(later >= 40);
}

/* A child forked while a thread is sampled holds copies of the perf fds,
 * which are the parent's events: its collector stopping at exit must not
 * disable them (gs_sampler_stop's pid check), and it samples nothing. */
struct forkee {
	int armed[2], go[2];
	int64_t tid;
	uint64_t t_mark, t_end; /* ns, CLOCK_MONOTONIC */
};

static void *forkee_main(void *arg)
{
	struct forkee *f = arg;
	char c = 'x';

	f->tid = (int64_t)syscall(SYS_gettid);
	gs_sampler_watch_self();
	spin_user(30000000);
	if (write(f->armed[1], &c, 1) != 1)
		return NULL;
	while (read(f->go[0], &c, 1) < 0 && errno == EINTR)
		;
	f->t_mark = mono();
	spin_user(100000000);
	f->t_end = mono();
	return NULL;
}

static void test_forked_child_stop_leaves_parent_sampled(void **state)
{
	struct forkee f;
	pthread_t th;
	pid_t pid;
	int status, perr = perf_probe();
	size_t after;
	char c;
	(void)state;

	if (perr) {
		print_message("perf_event_open refused here (%s): no shared event to check\n",
			      strerror(perr));
		skip();
	}
	memset(&f, 0, sizeof(f));
	n_got = 0;
	gs_sampler_set_clock(GS_SAMPLE_CLOCK_AUTO);
	assert_int_equal(gs_sampler_start(1000, NULL, push), 0);
	assert_int_equal(pipe(f.armed), 0);
	assert_int_equal(pipe(f.go), 0);
	assert_int_equal(pthread_create(&th, NULL, forkee_main, &f), 0);
	assert_int_equal(read(f.armed[0], &c, 1), 1);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* what the child's exit would do; its own thread is not watched */
		gs_sampler_watch_self();
		gs_sampler_stop();
		_exit(gs_sampler_thread_source((int64_t)syscall(SYS_gettid)));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(write(f.go[1], "x", 1), 1);
	pthread_join(th, NULL);
	gs_sampler_stop();
	close(f.armed[0]);
	close(f.armed[1]);
	close(f.go[0]);
	close(f.go[1]);
	assert_int_equal(gs_sampler_thread_source(f.tid), GS_SAMPLE_CLOCK_PERF);
	after = samples_of(f.tid, f.t_mark, f.t_end);
	print_message("after the child's stop: %zu samples in 100 ms of CPU\n", after);
	assert_true(after >= 80);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pause_without_start),
	    /* (its child starts nothing here) then these two: the sampler keeps its threads' rings
	     * for the process's life, and the meta these check must be their own threads' alone
	     * (the first forks before any ring is made) */
	    cmocka_unit_test(test_perf_refused_falls_back_to_timer),
	    cmocka_unit_test(test_perf_source_gives_the_rate_asked),
	    cmocka_unit_test(test_sample_clock_from_env),
	    cmocka_unit_test(test_clock_text_names_each_source),
	    cmocka_unit_test(test_timer_forced),
	    cmocka_unit_test(test_blocked_thread_not_interrupted),
	    cmocka_unit_test(test_perf_signals_wait_bounded_while_blocked),
	    cmocka_unit_test(test_forked_child_stop_leaves_parent_sampled),
	    cmocka_unit_test(test_blocked_thread_not_interrupted_timer),
	    cmocka_unit_test(test_watched_thread_sampled_in_its_spin),
	    cmocka_unit_test(test_sample_takes_the_pc_alone),
	    cmocka_unit_test(test_threads_watch_themselves),
	    cmocka_unit_test(test_unwatched_thread_not_sampled),
	    cmocka_unit_test(test_samples_rows_and_stacks),
	    cmocka_unit_test(test_pause_and_resume),
	    cmocka_unit_test(test_pause_and_resume_timer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
