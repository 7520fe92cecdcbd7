/*
 * sampler.c - samples of the threads that make CUDA calls, while recording:
 * where their host time goes between launches (the report names the code
 * behind each host-code segment of a gap from them).
 *
 * A thread is sampled from its first CUDA call the collector has a
 * callback on (gs_sampler_watch_self: a blocking call, cudaMalloc, a sync,
 * an event record, a graph launch), or else from when the writer first sees
 * one of its CUDA API records (gs_sampler_watch, on the decode thread; up
 * to a flush period late: on an H100, 2026-12-07, programs shorter than the
 * 1 s flush period were sampled only after their last CUDA call): a POSIX
 * timer on that
 * thread's own CPU-time clock (its clockid made from its tid, as glibc's
 * pthread_getcpuclockid does) signals it (SIGEV_THREAD_ID) every 1/hz s of
 * CPU time it uses. A CPU-time clock, not a wall clock: a thread asleep in
 * a system call is never woken by a sample (no EINTR the program has to
 * handle), and a thread that waits costs nothing; the report says what
 * share of a segment the samples cover.
 *
 * The handler (async-signal-safe: no lock, no allocation, no TLS of ours)
 * takes the thread's Python frames, read from its frame chain
 * (gs_callsite_sample, pyframes.c), and its native frames where it has no
 * Python frame, into a ring of its own (one writer: the handler on that
 * thread; one reader: the drain thread). The drain thread moves them to the
 * writer every SAMPLER_DRAIN_MS as GS_EV_SAMPLE events; symbols and
 * interning happen there (callsite.c gs_sample_apply), off the signal path.
 *
 * The signal is a real-time one the program leaves at its default (the
 * highest such below SIGRTMAX); where none is, or the first timer cannot be
 * made, sampling says so once and the recording goes on without it. It
 * does not do what it cannot do safely: no native walk where the signal
 * interrupted an unwinder or the collector itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "callsite.h"
#include "internal.h"

#define SAMPLER_RING 128	  /* samples a thread holds until drained (power of 2) */
#define SAMPLER_THREADS 512	  /* threads sampled at most */
#define SAMPLER_DRAIN_MS 10	  /* the drain thread's period */
#define SAMPLER_MAGIC 0x53414d50u /* "SAMP" */

struct ring {
	uint32_t magic;
	int64_t tid;
	timer_t timer;
	int armed;
	_Atomic uint64_t head; /* written by the handler on the thread */
	_Atomic uint64_t tail; /* written by the drain thread */
	_Atomic uint64_t dropped;
	struct gs_py_line_cache lines; /* the handler's only */
	struct gs_callsite slot[SAMPLER_RING];
};

static struct {
	int on;
	int sig;
	unsigned hz;
	int64_t mono_offset; /* ns: CLOCK_MONOTONIC - the collector's clock */
	void (*push)(const struct gs_event *ev);
	struct ring *rings[SAMPLER_THREADS]; /* kept until the process ends */
	_Atomic int n_rings;
	_Atomic int64_t last_tid; /* a hint for the decode thread's calls */
	int closing;		  /* under watch_lock: stopping, no new timer */
	pid_t pid;		  /* the process sampled: a forked child is not */
	uint64_t timer_errors, threads_over;
	int warned;
	pthread_t drain;
	int drain_running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
	struct gs_event ev; /* the drain thread's (large: not on its stack) */
	struct sigaction old;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
/* registration (gs_sampler_watch from the decode thread and from the
 * program's threads, once each) against itself and gs_sampler_stop */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int watched_self;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int is_ring(const void *p)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire);

	for (i = 0; i < n; i++)
		if (S.rings[i] == p)
			return 1;
	return 0;
}

static void on_sample(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	struct ring *r = si ? (struct ring *)si->si_value.sival_ptr : NULL;
	const void *pc = NULL;
	struct gs_callsite *cs;
	uint64_t head, tail;

	(void)sig;
	/* only our timers' signals, for rings we made */
	if (!si || si->si_code != SI_TIMER || !r || !is_ring(r) || r->magic != SAMPLER_MAGIC)
		goto out;
	head = atomic_load_explicit(&r->head, memory_order_relaxed);
	tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (head - tail >= SAMPLER_RING) {
		atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
		goto out;
	}
	cs = &r->slot[head & (SAMPLER_RING - 1)];
	cs->tid = r->tid;
	cs->t_begin = mono_ns();
#if defined(__x86_64__)
	if (ucv)
		pc = (const void *)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#else
	(void)ucv;
#endif
	gs_callsite_sample(cs, pc, &r->lines);
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
out:
	errno = saved;
}

/* The highest real-time signal below SIGRTMAX whose action is the default
 * one (no handler of the program's), 0 when none. */
static int pick_signal(void)
{
	int s;

	for (s = SIGRTMAX - 1; s >= SIGRTMIN + 2 && s > SIGRTMAX - 8; s--) {
		struct sigaction cur;
		if (sigaction(s, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_handler == SIG_DFL)
			return s;
	}
	return 0;
}

static void drain_rings(void)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire);

	for (i = 0; i < n; i++) {
		struct ring *r = S.rings[i];
		uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
		uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
		for (; tail != head; tail++) {
			const struct gs_callsite *cs = &r->slot[tail & (SAMPLER_RING - 1)];
			size_t text = cs->text_len < GS_CS_TEXT ? cs->text_len : GS_CS_TEXT;
			S.ev.kind = GS_EV_SAMPLE;
			memcpy(&S.ev.u.callsite, cs, offsetof(struct gs_callsite, text) + text);
			S.ev.u.callsite.t_begin = (uint64_t)((int64_t)cs->t_begin - S.mono_offset);
			if (S.push)
				S.push(&S.ev);
		}
		atomic_store_explicit(&r->tail, tail, memory_order_release);
	}
}

static void *drain_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "gs-sampler");
	pthread_mutex_lock(&S.lock);
	while (!S.stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += SAMPLER_DRAIN_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&S.cond, &S.lock, &until);
		if (S.stop)
			break;
		pthread_mutex_unlock(&S.lock);
		drain_rings();
		pthread_mutex_lock(&S.lock);
	}
	pthread_mutex_unlock(&S.lock);
	return NULL;
}

int gs_sampler_start(unsigned hz, uint64_t (*now)(void), void (*push)(const struct gs_event *ev))
{
	struct sigaction sa;
	uint64_t t0, t1, m;

	if (S.on || !hz)
		return S.on ? 0 : -1;
	S.sig = pick_signal();
	if (!S.sig) {
		gs_warn("sampling.signal", "no free real-time signal for the sampler: the threads "
					   "are not sampled (host code is not attributed)");
		return -1;
	}
	gs_callsite_prepare();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sample;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(S.sig, &sa, &S.old) != 0) {
		gs_warn("sampling.signal",
			"cannot install the sampler's signal handler (%s): the "
			"threads are not sampled",
			strerror(errno));
		return -1;
	}
	t0 = now ? now() : 0;
	m = mono_ns();
	t1 = now ? now() : 0;
	S.mono_offset = now ? (int64_t)m - (int64_t)(t0 + (t1 - t0) / 2) : 0;
	S.hz = hz;
	S.push = push;
	S.stop = 0;
	atomic_store_explicit(&S.last_tid, 0, memory_order_relaxed);
	S.closing = 0;
	S.pid = getpid();
	if (pthread_create(&S.drain, NULL, drain_main, NULL) != 0) {
		sigaction(S.sig, &S.old, NULL);
		gs_warn("sampling.thread", "cannot start the sampler's thread: the threads are not "
					   "sampled");
		return -1;
	}
	S.drain_running = 1;
	S.on = 1;
	return 0;
}

int gs_sampler_active(void)
{
	return S.on;
}

void gs_sampler_watch(int64_t tid)
{
	struct sigevent sev;
	struct itimerspec its;
	struct ring *r;
	clockid_t clk;
	int i, n;

	if (!S.on || tid <= 0 || tid > INT32_MAX ||
	    tid == atomic_load_explicit(&S.last_tid, memory_order_relaxed))
		return;
	pthread_mutex_lock(&watch_lock);
	if (!S.on || S.closing)
		goto out;
	atomic_store_explicit(&S.last_tid, tid, memory_order_relaxed);
	n = atomic_load_explicit(&S.n_rings, memory_order_relaxed);
	for (i = 0; i < n; i++)
		if (S.rings[i]->tid == tid)
			goto out;
	if (n >= SAMPLER_THREADS) {
		S.threads_over++;
		goto out;
	}
	if ((long)syscall(SYS_tgkill, getpid(), (pid_t)tid, 0) != 0)
		goto out; /* the thread has ended */
	if (!(r = calloc(1, sizeof(*r))))
		goto out;
	r->magic = SAMPLER_MAGIC;
	r->tid = tid;
	/* the thread's CPU-time clock: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
	 * of glibc's pthread_getcpuclockid (~tid << 3 | per-thread 4 | sched 2) */
	clk = (clockid_t)((~(uint32_t)tid << 3) | 6u);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = S.sig;
	sev.sigev_value.sival_ptr = r;
	sev._sigev_un._tid = (pid_t)tid;
	/* published before the timer can fire: the handler checks the list */
	S.rings[n] = r;
	atomic_store_explicit(&S.n_rings, n + 1, memory_order_release);
	if (timer_create(clk, &sev, &r->timer) != 0) {
		S.timer_errors++;
		if (!S.warned && errno != EINVAL && errno != ESRCH) {
			S.warned = 1;
			gs_warn("sampling.timer",
				"cannot make a CPU-time timer for thread %lld (%s): it is not "
				"sampled",
				(long long)tid, strerror(errno));
		}
		goto out;
	}
	its.it_interval.tv_sec = 0;
	its.it_interval.tv_nsec = (long)(1000000000u / S.hz);
	if (S.hz == 1) {
		its.it_interval.tv_sec = 1;
		its.it_interval.tv_nsec = 0;
	}
	its.it_value = its.it_interval;
	if (timer_settime(r->timer, 0, &its, NULL) != 0) {
		timer_delete(r->timer);
		S.timer_errors++;
		goto out;
	}
	r->armed = 1;
out:
	pthread_mutex_unlock(&watch_lock);
}

void gs_sampler_watch_self(void)
{
	if (!S.on || watched_self)
		return;
	watched_self = 1;
	/* a child forked without exec has none of the sampler's threads and
	 * may hold watch_lock as the fork found it: it samples nothing */
	if (getpid() != S.pid)
		return;
	gs_sampler_watch((int64_t)syscall(SYS_gettid));
}

void gs_sampler_stop(void)
{
	int i, n;

	if (!S.on)
		return;
	pthread_mutex_lock(&watch_lock);
	S.closing = 1;
	n = atomic_load_explicit(&S.n_rings, memory_order_acquire);
	for (i = 0; i < n; i++)
		if (S.rings[i]->armed) {
			timer_delete(S.rings[i]->timer);
			S.rings[i]->armed = 0;
		}
	pthread_mutex_unlock(&watch_lock);
	if (S.drain_running) {
		pthread_mutex_lock(&S.lock);
		S.stop = 1;
		pthread_cond_signal(&S.cond);
		pthread_mutex_unlock(&S.lock);
		pthread_join(S.drain, NULL);
		S.drain_running = 0;
	}
	drain_rings();
	/* the handler stays installed: a signal already queued still comes
	 * after the timer is gone, and the default action would end the
	 * program */
	S.on = 0;
}

void gs_sampler_counts(uint64_t *taken, uint64_t *dropped, uint64_t *threads)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire);

	*taken = *dropped = 0;
	*threads = 0;
	for (i = 0; i < n; i++) {
		*taken += atomic_load(&S.rings[i]->head);
		*dropped += atomic_load(&S.rings[i]->dropped);
		*threads += S.rings[i]->head > 0 || S.rings[i]->armed;
	}
}

void gs_sampler_finish(struct gs_writer *w, int configured, unsigned hz)
{
	uint64_t taken, dropped, threads;

	gs_writer_meta_int(w, "config.sampling", configured);
	if (!configured)
		return;
	gs_writer_meta_int(w, "config.sample_hz", hz);
	gs_sampler_counts(&taken, &dropped, &threads);
	gs_writer_meta_int(w, "samples.taken", (int64_t)taken);
	gs_writer_meta_int(w, "samples.dropped", (int64_t)dropped);
	gs_writer_meta_int(w, "samples.threads", (int64_t)threads);
	gs_writer_meta_int(w, "samples.signal", S.sig);
	gs_writer_meta_int(w, "samples.timer_errors", (int64_t)S.timer_errors);
	gs_writer_meta(w, "samples.clock", "thread CPU time");
}
