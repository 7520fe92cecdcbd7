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
 * 1 s flush period were sampled only after their last CUDA call).
 *
 * What signals it, every 1/hz s of the CPU time it uses, one of two sources
 * (GAPSCOPE_SAMPLE_CLOCK; auto tries the first, per thread):
 * - perf_event: a software TASK_CLOCK event on that thread (pid = its tid),
 *   user time only (exclude_kernel: what perf_event_paranoid 2 allows), whose
 *   overflow is sent to that very thread as our signal (O_ASYNC, F_SETSIG,
 *   F_SETOWN_EX F_OWNER_TID; si_code POLL_IN or POLL_HUP, si_fd the event's
 *   fd). It is an hrtimer while the thread runs: the rate asked is the rate
 *   taken. The event is armed for SAMPLER_PERF_BURST overflows at a time
 *   (PERF_EVENT_IOC_REFRESH); the last one (POLL_HUP) disables it until the
 *   handler re-arms it, so at most that many signals per thread are ever
 *   queued: a thread that blocks the signal for a while is not sampled
 *   meanwhile, and real-time signals never pile up to RLIMIT_SIGPENDING
 *   (past it, the kernel's fasync falls back to SIGIO, whose default ends
 *   the program). Not 1: the ioctl costs ~7 us a sample where a sample
 *   costs ~30 (a Firecracker VM, 2026-12-07: 37 us a sample at a refresh of
 *   1, 30 at 16; a plain wall-clock timer's signal 26).
 * - a POSIX timer on the thread's CPU-time clock (its clockid made from its
 *   tid, as glibc's pthread_getcpuclockid does; SIGEV_THREAD_ID). Linux
 *   checks such timers only at the scheduler tick: at most CONFIG_HZ a
 *   second (250 on the H100 machine, 2026-12-07:
 *   bench/results/2026-12-07-h100-sampling-tick.md), whatever is asked.
 *   Where perf_event_open is refused (perf_event_paranoid 3, a container's
 *   seccomp, no perf events), threads are sampled this way.
 * Both count CPU time, not wall time: a thread asleep in a system call is
 * never woken by a sample (no EINTR the program has to handle), and a
 * thread that waits costs nothing; the report says what share of a segment
 * the samples cover. Meta samples.clock says which source ran and
 * samples.rate_hz what rate it gave (samples per CPU second, measured).
 *
 * The handler (async-signal-safe: no lock, no allocation, no TLS of ours)
 * takes the thread's Python frames, read from its frame chain
 * (gs_callsite_sample, pyframes.c) under its ring's fault guard (sigguard.h:
 * a chain caught half made faults, the sample is dropped and counted), and
 * its native frames where it has no Python frame, into a ring of its own (one writer: the handler on that
 * thread; one reader: the drain thread). The drain thread moves them to the
 * writer every SAMPLER_DRAIN_MS (SAMPLER_LOOK_MS with off-CPU samples) as
 * GS_EV_SAMPLE events; symbols and
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
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "callsite.h"
#include "internal.h"
#include "sigguard.h"

#define SAMPLER_RING 128    /* samples a thread holds until drained (power of 2) */
#define SAMPLER_THREADS 512 /* threads sampled at most */
#define SAMPLER_DRAIN_MS 10 /* the drain thread's period */
/* its period with off-CPU samples on: a look every 10 ms (30 in train_loop.py's
 * 307 ms steady state, H100) found its main thread in the DataLoader's wait of
 * 1.5 ms a step 4 times in the whole run; every 2 ms 27 times (46 ms, the
 * off-CPU half of its input stalls), each span placed within 2 ms of where it was */
#define SAMPLER_LOOK_MS 2
/* threads sampled by perf_event at most: each holds a file descriptor of
 * the program's table (a program near its RLIMIT_NOFILE, or one that
 * select()s on fds below FD_SETSIZE, must not be pushed over); the threads
 * past it get the timer, which holds none */
#define SAMPLER_PERF_MAX 64
/* overflows a perf event is armed for at a time: signals queued per thread
 * at most (top of file); 64 threads x 16 stay far below RLIMIT_SIGPENDING */
#define SAMPLER_PERF_BURST 16
#define SAMPLER_FD_MIN 3	  /* our fds never take 0-2 from a program that closed them */
#define SAMPLER_MAGIC 0x53414d50u /* "SAMP" */

#define CLOCK_TEXT_PERF "thread task-clock (perf_event)"
#define CLOCK_TEXT_TIMER "thread CPU time (timer, at the kernel tick)"

struct ring {
	uint32_t magic;
	int64_t tid;
	int source;	       /* GS_SAMPLE_CLOCK_PERF or _TIMER once armed, else 0 */
	timer_t timer;	       /* source timer */
	int armed;	       /* the timer or the perf event is live */
	_Atomic int perf_fd;   /* source perf: the event's fd (the handler's key),
				  -1 once stopped */
	int perf_fd_owned;     /* the fd to close at stop, -1 when none */
	clockid_t cpu_clock;   /* the thread's CPU-time clock */
	uint64_t cpu0;	       /* ns of CPU time the thread had when armed */
	_Atomic uint64_t cpu1; /* ns: its CPU time at the last look (drain, stop) */
	uint64_t cpu_paused;   /* ns of CPU time it had while sampling was paused */
	uint64_t cpu_pause0;   /* its CPU time at the pause now on (gs_sampler_pause) */
	_Atomic uint64_t head; /* written by the handler on the thread */
	_Atomic uint64_t tail; /* written by the drain thread */
	_Atomic uint64_t dropped;
	struct gs_py_line_cache lines; /* the handler's only */
	struct gs_sigguard guard;      /* its Python walks' (sigguard.h) */
	int guarded;		       /* the guard is registered */
	/* off-CPU samples (look_waits): the thread's Python thread state, as
	 * its handler last read it (NULL: none seen yet), and the wall and CPU
	 * time at the drain thread's previous look (wait_wall 0: none) */
	_Atomic(void *) tstate;
	uint64_t wait_wall, wait_cpu;
	struct gs_callsite slot[SAMPLER_RING];
};

static struct {
	int on;
	int sig;
	unsigned hz;
	int clock_mode;	     /* enum gs_sample_clock asked */
	int64_t mono_offset; /* ns: CLOCK_MONOTONIC - the collector's clock */
	void (*push)(const struct gs_event *ev);
	struct ring *rings[SAMPLER_THREADS]; /* kept until the process ends */
	_Atomic int n_rings;
	_Atomic int64_t last_tid; /* a hint for the decode thread's calls */
	int closing;		  /* under watch_lock: stopping, no new timer */
	pid_t pid;		  /* the process sampled: a forked child is not */
	uint64_t timer_errors, threads_over;
	uint64_t perf_errors; /* threads perf_event_open (or its set-up) failed for */
	int perf_fds;	      /* perf events open now (SAMPLER_PERF_MAX at most) */
	uint64_t perf_capped; /* threads past SAMPLER_PERF_MAX */
	int perf_errno;	      /* the first such failure's errno */
	int perf_refused;     /* the kernel refuses perf events: not tried again */
	int warned, warned_perf;
	pthread_t drain;
	int drain_running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop;
	_Atomic int paused; /* gs_sampler_pause: outside --capture-range's windows */
	/* the fault guard is installed and still the program's SIGSEGV and
	 * SIGBUS handler (looked at by the drain thread every period): else
	 * no Python walk, a sample keeps its pc only */
	_Atomic int guard_ok;
	int warned_guard;
	/* off-CPU samples (look_waits, on the drain thread): on, that thread's
	 * own fault guard and line cache, and counts */
	int waits;
	struct gs_sigguard dguard;
	int dguarded;
	struct gs_py_line_cache wait_lines;
	uint64_t waits_taken, waits_torn, waits_faults, waits_runnable, wait_ns;
	uint64_t jitter; /* the drain thread's xorshift state (look_ns) */
	uint64_t planned; /* ns: the period look_ns gave the look now made */
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

/* The ring whose perf event has this fd (lock-free, as is_ring), or NULL. */
static struct ring *ring_by_fd(int fd)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire);

	if (fd < 0)
		return NULL;
	for (i = 0; i < n; i++)
		if (atomic_load_explicit(&S.rings[i]->perf_fd, memory_order_acquire) == fd)
			return S.rings[i];
	return NULL;
}

static void on_sample(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno, rearm = -1;
	struct ring *r = NULL;
	const void *pc = NULL;
	struct gs_callsite *cs;
	uint64_t head, tail;

	(void)sig;
	/* only our timers' and perf events' signals, for rings we made */
	if (!si)
		goto out;
	if (si->si_code == SI_TIMER) {
		r = (struct ring *)si->si_value.sival_ptr;
		if (!r || !is_ring(r))
			goto out;
	} else if (si->si_code == POLL_IN || si->si_code == POLL_HUP) {
		/* a perf event's overflow (fasync): its fd names the ring. The
		 * thread's own, or it is a stale signal of an fd closed at a
		 * stop and reused since: the ring has one writer, its thread */
		r = ring_by_fd(si->si_fd);
		if (!r || r->tid != (int64_t)syscall(SYS_gettid))
			goto out;
		if (si->si_code == POLL_HUP) /* the burst's last: re-arm */
			rearm = si->si_fd;
	} else {
		goto out;
	}
	if (r->magic != SAMPLER_MAGIC)
		goto out;
	if (atomic_load_explicit(&S.paused, memory_order_relaxed)) {
		rearm = -1; /* gs_sampler_pause re-arms it at the resume */
		goto out;
	}
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
	/* a walk that faulted (a frame chain caught half made) is dropped:
	 * its ring's guard counts it */
	if (gs_callsite_sample(cs, pc, &r->lines,
			       r->guarded && atomic_load_explicit(&S.guard_ok, memory_order_relaxed)
				   ? &r->guard
				   : NULL) < 0)
		goto out;
	/* for the drain thread's off-CPU samples: where its frames are
	 * (a thread's state is its own for its life: read once; cleared
	 * when the thread ends) */
	if (cs->n_py && S.waits && !atomic_load_explicit(&r->tstate, memory_order_relaxed))
		atomic_store_explicit(&r->tstate, gs_callsite_tstate(), memory_order_relaxed);
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
out:
	/* an ioctl: async-signal-safe */
	if (rearm >= 0)
		ioctl(rearm, PERF_EVENT_IOC_REFRESH, SAMPLER_PERF_BURST);
	errno = saved;
}

/* The highest real-time signal below SIGRTMAX whose action is the default
 * one (no handler of the program's), or the one of an earlier start; 0 when
 * none. */
static int pick_signal(void)
{
	int s;

	/* a start after a stop: ours is still installed (gs_sampler_stop) */
	if (S.sig) {
		struct sigaction cur;
		if (sigaction(S.sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_sigaction == on_sample)
			return S.sig;
	}

	for (s = SIGRTMAX - 1; s >= SIGRTMIN + 2 && s > SIGRTMAX - 8; s--) {
		struct sigaction cur;
		if (sigaction(s, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_handler == SIG_DFL)
			return s;
	}
	return 0;
}

static int cpu_ns(clockid_t clk, uint64_t *out)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts) != 0)
		return -1; /* the thread has ended */
	*out = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 0;
}

/* Each armed ring's CPU time now; a thread that ended keeps its last. */
static void look_cpu(void)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire);

	for (i = 0; i < n; i++) {
		struct ring *r = S.rings[i];
		uint64_t t;
		if (r->armed && cpu_ns(r->cpu_clock, &t) == 0)
			atomic_store_explicit(&r->cpu1, t, memory_order_relaxed);
	}
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

/* 1 when thread tid is runnable (its state 'R' in /proc: preempted, not
 * waiting), 0 when not or unknown. A thread whose CPU time stands still is
 * asleep or waiting, or is runnable and not given a CPU: only the first is
 * a wait of the program's (a loaded machine preempts a thread mid-frame:
 * its chain may be half made, and its time is no wait). */
static int runnable(int64_t tid)
{
	char path[64], buf[512];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%lld/stat", (long long)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "tid (comm) S ...": comm may hold spaces and parentheses */
	if (!(p = strrchr(buf, ')')) || p[1] != ' ')
		return 0;
	return p[2] == 'R';
}

/* Off-CPU samples, on the drain thread every period (under watch_lock):
 * after look_cpu: a sampled thread with Python frames that is not
 * running now (its CPU time does not move from look_cpu's read to this
 * one and across the walk after it) has its frame
 * chain read by this thread, under this thread's own fault guard; the
 * sample stands for the wall time the thread spent off CPU since the
 * previous look (wall less CPU time), and is timed at this look. The CPU
 * samples cannot see that time: a thread asleep is never signalled. A
 * thread that ran during the walk gives no sample (its chain may have
 * changed under the read: counted in samples.waits_torn), nor one that is
 * runnable (preempted: samples.waits_runnable). */
static void look_waits(void)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire);
	int paused = atomic_load_explicit(&S.paused, memory_order_relaxed);
	int ok = S.waits && S.dguarded && atomic_load_explicit(&S.guard_ok, memory_order_relaxed);

	for (i = 0; i < n; i++) {
		struct ring *r = S.rings[i];
		void *ts = atomic_load_explicit(&r->tstate, memory_order_relaxed);
		uint64_t c0, c1, w, pw = r->wait_wall, pc = r->wait_cpu, off;
		struct gs_callsite *cs = &S.ev.u.callsite;
		if (!ok || paused || !r->armed || !ts) {
			r->wait_wall = 0;
			continue;
		}
		if (cpu_ns(r->cpu_clock, &c0) != 0) {
			/* the thread has ended: its thread state is gone (a
			 * thread given its tid later sets its own at its first
			 * sample) */
			atomic_store_explicit(&r->tstate, NULL, memory_order_relaxed);
			r->wait_wall = 0;
			continue;
		}
		w = mono_ns();
		r->wait_wall = w;
		r->wait_cpu = c0;
		if (!pw || c0 < pc || w <= pw || w - pw <= c0 - pc)
			continue; /* the first look, or it ran all of the period */
		/* a thread found off CPU at a look stands for the whole period
		 * since the one before (no more than was planned for it: a look
		 * made late, when this thread got a CPU back, is likelier to find
		 * the program's thread asleep): over many looks that sums to the
		 * time it spent off CPU, waits shorter than a period included.
		 * Weighed by the period's off-CPU time alone, a thread that waits
		 * in short stretches (a lock, the GIL, a pipe between its own
		 * work) counted 0.30-0.34 of it (test_sampler_waits.py: a thread
		 * asleep 0.35 ms of each ms; now 0.72-0.97) */
		off = w - pw < S.planned ? w - pw : S.planned;
		/* running now: its CPU time moved since look_cpu read it, just
		 * before; or runnable, waiting for a CPU (no wait of its own) */
		if (c0 != atomic_load_explicit(&r->cpu1, memory_order_relaxed))
			continue;
		if (runnable(r->tid)) {
			S.waits_runnable++;
			continue;
		}
		if (gs_callsite_sample_of(cs, ts, &S.wait_lines, &S.dguard) < 0) {
			S.waits_faults++;
			continue;
		}
		if (cpu_ns(r->cpu_clock, &c1) != 0 || c1 != c0) {
			S.waits_torn++;
			continue;
		}
		cs->tid = r->tid;
		cs->reason = GS_CS_WHY_OFF_CPU;
		cs->t_end = (uint64_t)((int64_t)w - S.mono_offset);
		cs->t_begin = cs->t_end - off;
		S.ev.kind = GS_EV_SAMPLE;
		S.waits_taken++;
		S.wait_ns += off;
		if (S.push)
			S.push(&S.ev);
	}
}

/* The program may install its own SIGSEGV or SIGBUS handler after ours:
 * its faults are then its own, and the walks stop (said once). */
static void check_guard(void)
{
	if (!atomic_load_explicit(&S.guard_ok, memory_order_relaxed) || gs_sigguard_intact())
		return;
	atomic_store_explicit(&S.guard_ok, 0, memory_order_relaxed);
	if (!S.warned_guard) {
		S.warned_guard = 1;
		gs_warn("sampling.guard",
			"the program installed its own SIGSEGV or SIGBUS handler: samples from now "
			"on keep the interrupted instruction only, without Python frames (the "
			"sampler reads them only where a fault of its own is caught)");
	}
}

/* ns to the next look with off-CPU samples on: SAMPLER_LOOK_MS on average,
 * uniform over half to one and a half of it, so that the looks do not lock
 * onto a loop of the program's own period (a thread asleep 0.36 ms of each
 * ms was found off CPU at 55% of the 2 ms looks: 0.56 s counted of 0.36) */
static long look_ns(void)
{
	uint64_t x = S.jitter ? S.jitter : (uint64_t)mono_ns() | 1;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	S.jitter = x;
	S.planned = SAMPLER_LOOK_MS * 500000UL + x % (SAMPLER_LOOK_MS * 1000000UL);
	return (long)S.planned;
}

static void *drain_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "gs-sampler");
	/* this thread's own guard, for the off-CPU samples' walks */
	if (S.waits && atomic_load(&S.guard_ok)) {
		pthread_mutex_lock(&watch_lock);
		/* a start after a stop: the guard is registered, for the
		 * thread of the earlier start; no walk is on */
		S.dguard.tid = (int64_t)syscall(SYS_gettid);
		if (!S.dguarded)
			S.dguarded = gs_sigguard_add(&S.dguard) == 0;
		pthread_mutex_unlock(&watch_lock);
	}
	pthread_mutex_lock(&S.lock);
	while (!S.stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += S.waits ? look_ns() : SAMPLER_DRAIN_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&S.cond, &S.lock, &until);
		if (S.stop)
			break;
		pthread_mutex_unlock(&S.lock);
		drain_rings();
		check_guard();
		/* a thread's CPU time is readable only while it lives: looked
		 * at every period, for samples.rate_hz */
		pthread_mutex_lock(&watch_lock);
		look_cpu();
		look_waits();
		pthread_mutex_unlock(&watch_lock);
		pthread_mutex_lock(&S.lock);
	}
	pthread_mutex_unlock(&S.lock);
	return NULL;
}

void gs_sampler_set_waits(int on)
{
	S.waits = !!on;
}

void gs_sampler_set_clock(int mode)
{
	if (mode >= GS_SAMPLE_CLOCK_AUTO && mode <= GS_SAMPLE_CLOCK_PERF)
		S.clock_mode = mode;
}

int gs_sampler_start(unsigned hz, uint64_t (*now)(void), void (*push)(const struct gs_event *ev))
{
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
	/* the Python walks' guard; without it, no walk (said once). A
	 * process without CPython has no walk to guard: its SIGSEGV and
	 * SIGBUS stay as they are */
	if (!gs_callsite_python()) {
		atomic_store(&S.guard_ok, 0);
	} else if (gs_sigguard_install() == 0) {
		atomic_store(&S.guard_ok, 1);
		check_guard(); /* a start after a stop: the program's since? */
	} else {
		atomic_store(&S.guard_ok, 0);
		gs_warn("sampling.guard",
			"cannot install the sampler's fault guard (%s): samples keep the "
			"interrupted instruction only, without Python frames",
			strerror(errno));
	}
	if (gs_sigguard_handler(S.sig, on_sample, &S.old) != 0) {
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

/* A TASK_CLOCK event on thread tid that signals it every 1/hz s of its user
 * CPU time, armed. 0, or -errno (nothing left open). Under watch_lock. */
static int perf_arm(struct ring *r, pid_t tid)
{
	struct perf_event_attr attr;
	struct f_owner_ex owner;
	int fd, fl, err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 1000000000u / S.hz; /* ns of the thread's CPU */
	/* kernel time is not ours to see at perf_event_paranoid 2; and a
	 * thread is only signalled from user mode, never inside a call */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1; /* armed below, once the signal goes to the thread */
	fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fd < SAMPLER_FD_MIN) {
		int high = fcntl(fd, F_DUPFD_CLOEXEC, SAMPLER_FD_MIN);
		err = errno;
		close(fd);
		if (high < 0)
			return -err;
		fd = high;
	}
	owner.type = F_OWNER_TID;
	owner.pid = tid;
	if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, S.sig) != 0 ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) != 0)
		goto fail;
	r->perf_fd_owned = fd;
	/* published before the first overflow: the handler looks it up */
	atomic_store_explicit(&r->perf_fd, fd, memory_order_release);
	/* SAMPLER_PERF_BURST overflows, then the event disables itself
	 * (POLL_HUP) until the handler refreshes it: that many signals queued
	 * at most (top of file) */
	if (!atomic_load(&S.paused) && ioctl(fd, PERF_EVENT_IOC_REFRESH, SAMPLER_PERF_BURST) != 0) {
		atomic_store_explicit(&r->perf_fd, -1, memory_order_release);
		r->perf_fd_owned = -1;
		goto fail;
	}
	return 0;
fail:
	err = errno;
	close(fd);
	return -err;
}

/* the timer's period: 1/hz s; none (disarmed) before a start set hz */
static struct itimerspec timer_period(void)
{
	struct itimerspec its;

	if (!S.hz) {
		memset(&its, 0, sizeof(its));
		return its;
	}
	its.it_interval.tv_sec = S.hz == 1 ? 1 : 0;
	its.it_interval.tv_nsec = S.hz == 1 ? 0 : (long)(1000000000u / S.hz);
	its.it_value = its.it_interval;
	return its;
}

static int timer_arm(struct ring *r, pid_t tid)
{
	struct sigevent sev;
	struct itimerspec its = timer_period();

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = S.sig;
	sev.sigev_value.sival_ptr = r;
	sev._sigev_un._tid = tid;
	if (timer_create(r->cpu_clock, &sev, &r->timer) != 0)
		return -errno;
	if (atomic_load(&S.paused)) /* made during a pause: starts at the resume */
		memset(&its, 0, sizeof(its));
	if (timer_settime(r->timer, 0, &its, NULL) != 0) {
		int err = errno;
		timer_delete(r->timer);
		return -err;
	}
	return 0;
}

/* errors of perf_event_open that say this kernel or sandbox refuses perf
 * events (not this thread): EACCES/EPERM (perf_event_paranoid 3, seccomp),
 * ENOSYS, ENOENT/EOPNOTSUPP (no such event), EINVAL (an older kernel) */
static int perf_refused(int err)
{
	return err == EACCES || err == EPERM || err == ENOSYS || err == ENOENT ||
	       err == EOPNOTSUPP || err == EINVAL;
}

void gs_sampler_watch(int64_t tid)
{
	struct ring *r;
	int i, n, err = 0;

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
	atomic_init(&r->perf_fd, -1);
	r->perf_fd_owned = -1;
	/* the thread's CPU-time clock: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)
	 * of glibc's pthread_getcpuclockid (~tid << 3 | per-thread 4 | sched 2) */
	r->cpu_clock = (clockid_t)((~(uint32_t)tid << 3) | 6u);
	if (cpu_ns(r->cpu_clock, &r->cpu0) != 0)
		r->cpu0 = 0;
	atomic_store_explicit(&r->cpu1, r->cpu0, memory_order_relaxed);
	r->cpu_pause0 = r->cpu0; /* counted as paused from here if a pause is on */
	r->guard.tid = tid;
	r->guarded = gs_sigguard_add(&r->guard) == 0; /* under watch_lock */
	/* published before a timer or event can fire: the handler checks
	 * the list */
	S.rings[n] = r;
	atomic_store_explicit(&S.n_rings, n + 1, memory_order_release);
	if (S.clock_mode != GS_SAMPLE_CLOCK_TIMER) {
		if (S.perf_refused) {
			err = -S.perf_errno; /* not asked again */
			S.perf_errors++;
		} else if (S.perf_fds >= SAMPLER_PERF_MAX) {
			err = -EMFILE;
			S.perf_capped++;
		} else {
			err = perf_arm(r, (pid_t)tid);
			if (err == 0) {
				r->source = GS_SAMPLE_CLOCK_PERF;
				r->armed = 1;
				S.perf_fds++;
				goto out;
			}
			if (err == -ESRCH)
				goto out; /* the thread has ended */
			S.perf_errors++;
			if (!S.perf_errno)
				S.perf_errno = -err;
			if (perf_refused(-err))
				S.perf_refused = 1;
		}
	}
	if (S.clock_mode == GS_SAMPLE_CLOCK_PERF) {
		/* forced: no fallback to the tick-bound timer */
		if (!S.warned_perf) {
			S.warned_perf = 1;
			gs_warn("sampling.perf",
				"GAPSCOPE_SAMPLE_CLOCK=perf: no perf event for thread %lld (%s): "
				"not sampled (auto falls back to a CPU-time timer)",
				(long long)tid,
				err == -EMFILE && S.perf_capped ? "past the threads it is used for"
								: strerror(-err));
		}
		goto out;
	}
	err = timer_arm(r, (pid_t)tid);
	if (err != 0) {
		S.timer_errors++;
		if (!S.warned && err != -EINVAL && err != -ESRCH) {
			S.warned = 1;
			gs_warn("sampling.timer",
				"cannot make a CPU-time timer for thread %lld (%s): it is not "
				"sampled",
				(long long)tid, strerror(-err));
		}
		goto out;
	}
	r->source = GS_SAMPLE_CLOCK_TIMER;
	r->armed = 1;
out:
	pthread_mutex_unlock(&watch_lock);
}

void gs_sampler_pause(int pause)
{
	struct itimerspec its, none;
	int i, n;

	pause = !!pause;
	/* never started (GAPSCOPE_SAMPLING=0, or a start that failed): nothing
	 * to pause, and no period (hz 0: 1e9 / hz was a SIGFPE that killed
	 * every program recorded with --no-sampling under --capture-range at
	 * its first window, H100, 2026-12-07) */
	if (!S.on || getpid() != S.pid)
		return;
	its = timer_period();
	memset(&none, 0, sizeof(none));
	pthread_mutex_lock(&watch_lock);
	if (S.closing || atomic_load(&S.paused) == pause)
		goto out;
	atomic_store(&S.paused, pause);
	n = atomic_load_explicit(&S.n_rings, memory_order_acquire);
	for (i = 0; i < n; i++) {
		struct ring *r = S.rings[i];
		int fd = atomic_load_explicit(&r->perf_fd, memory_order_acquire);
		uint64_t t;
		if (!r->armed)
			continue;
		if (cpu_ns(r->cpu_clock, &t) == 0) { /* else the thread has ended */
			if (pause)
				r->cpu_pause0 = t;
			else if (t > r->cpu_pause0)
				r->cpu_paused += t - r->cpu_pause0;
		}
		/* an overflow's signal already queued is dropped by the
		 * handler while paused, and does not re-arm */
		if (r->source == GS_SAMPLE_CLOCK_PERF && fd >= 0)
			ioctl(fd, pause ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_REFRESH,
			      pause ? 0 : SAMPLER_PERF_BURST);
		else if (r->source == GS_SAMPLE_CLOCK_TIMER)
			timer_settime(r->timer, 0, pause ? &none : &its, NULL);
	}
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

	/* a forked child's copies of the perf fds are the parent's events:
	 * disabling them would stop the parent's sampling */
	if (!S.on || getpid() != S.pid)
		return;
	pthread_mutex_lock(&watch_lock);
	S.closing = 1;
	look_cpu();
	n = atomic_load_explicit(&S.n_rings, memory_order_acquire);
	for (i = 0; i < n; i++) {
		struct ring *r = S.rings[i];
		if (r->armed && r->source == GS_SAMPLE_CLOCK_TIMER)
			timer_delete(r->timer);
		if (r->perf_fd_owned >= 0) {
			/* unpublished first: a signal still queued finds no ring
			 * and does not re-arm. Disabled before the close: a child
			 * forked meanwhile holds the fd too, and the event lives
			 * while any copy of it is open */
			atomic_store_explicit(&r->perf_fd, -1, memory_order_release);
			ioctl(r->perf_fd_owned, PERF_EVENT_IOC_DISABLE, 0);
			close(r->perf_fd_owned);
			r->perf_fd_owned = -1;
			S.perf_fds--;
		}
		r->armed = 0;
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

uint64_t gs_sampler_faults(void)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire);
	uint64_t f = 0;

	for (i = 0; i < n; i++)
		f += S.rings[i]->guard.faults;
	return f;
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

int gs_sampler_thread_source(int64_t tid)
{
	int i, n = atomic_load_explicit(&S.n_rings, memory_order_acquire), src = 0;

	pthread_mutex_lock(&watch_lock);
	for (i = 0; i < n; i++)
		if (S.rings[i]->tid == tid)
			src = S.rings[i]->source;
	pthread_mutex_unlock(&watch_lock);
	return src;
}

void gs_sampler_clock_text(unsigned n_perf, unsigned n_timer, char *buf, size_t len)
{
	if (n_perf && n_timer)
		snprintf(buf, len,
			 "mixed: " CLOCK_TEXT_PERF " for %u threads, " CLOCK_TEXT_TIMER " for %u",
			 n_perf, n_timer);
	else if (n_timer)
		snprintf(buf, len, CLOCK_TEXT_TIMER);
	else if (n_perf)
		snprintf(buf, len, CLOCK_TEXT_PERF);
	else
		snprintf(buf, len, "none (no thread sampled)");
}

void gs_sampler_finish(struct gs_writer *w, int configured, unsigned hz)
{
	uint64_t taken, dropped, threads, cpu = 0, taken_armed = 0;
	unsigned n_perf = 0, n_timer = 0;
	char text[160];
	int i, n;

	gs_writer_meta_int(w, "config.sampling", configured);
	if (!configured)
		return;
	gs_writer_meta_int(w, "config.sample_hz", hz);
	gs_writer_meta(w, "config.sample_clock", gs_sample_clock_str(S.clock_mode));
	gs_sampler_counts(&taken, &dropped, &threads);
	gs_writer_meta_int(w, "samples.taken", (int64_t)taken);
	gs_writer_meta_int(w, "samples.dropped", (int64_t)dropped);
	gs_writer_meta_int(w, "samples.threads", (int64_t)threads);
	gs_writer_meta_int(w, "samples.signal", S.sig);
	gs_writer_meta_int(w, "samples.timer_errors", (int64_t)S.timer_errors);
	gs_writer_meta_int(w, "samples.faults", (int64_t)gs_sampler_faults());
	gs_writer_meta_int(w, "config.sample_waits", S.waits);
	if (S.waits) {
		gs_writer_meta_int(w, "samples.waits", (int64_t)S.waits_taken);
		gs_writer_meta_int(w, "samples.wait_ns", (int64_t)S.wait_ns);
		gs_writer_meta_int(w, "samples.waits_torn", (int64_t)S.waits_torn);
		gs_writer_meta_int(w, "samples.waits_faults", (int64_t)S.waits_faults);
		gs_writer_meta_int(w, "samples.waits_runnable", (int64_t)S.waits_runnable);
	}
	pthread_mutex_lock(&watch_lock);
	n = atomic_load_explicit(&S.n_rings, memory_order_acquire);
	for (i = 0; i < n; i++) {
		struct ring *r = S.rings[i];
		uint64_t c1 = atomic_load_explicit(&r->cpu1, memory_order_relaxed);
		if (!r->source)
			continue;
		n_perf += r->source == GS_SAMPLE_CLOCK_PERF;
		n_timer += r->source == GS_SAMPLE_CLOCK_TIMER;
		/* the pauses left out, the one still on at the end too */
		if (atomic_load(&S.paused) && c1 > r->cpu_pause0)
			c1 = r->cpu_pause0;
		c1 = c1 > r->cpu_paused ? c1 - r->cpu_paused : 0;
		cpu += c1 > r->cpu0 ? c1 - r->cpu0 : 0;
		taken_armed += atomic_load(&r->head);
	}
	pthread_mutex_unlock(&watch_lock);
	gs_sampler_clock_text(n_perf, n_timer, text, sizeof(text));
	gs_writer_meta(w, "samples.clock", text);
	if (S.perf_errors || S.perf_capped) {
		size_t k = 0;
		if (S.perf_errors)
			k = (size_t)snprintf(
			    text, sizeof(text), "perf_event_open failed for %llu threads: %s; ",
			    (unsigned long long)S.perf_errors, strerror(S.perf_errno));
		if (S.perf_capped && k < sizeof(text))
			k += (size_t)snprintf(text + k, sizeof(text) - k,
					      "%llu threads past the first %d; ",
					      (unsigned long long)S.perf_capped, SAMPLER_PERF_MAX);
		if (k < sizeof(text))
			snprintf(text + k, sizeof(text) - k, "%s",
				 S.clock_mode == GS_SAMPLE_CLOCK_PERF ? "not sampled"
								      : "sampled by the timer");
		gs_writer_meta(w, "samples.source_errors", text);
	}
	/* the rate the samples stand for, measured: samples a second of the
	 * sampled threads' CPU time (user and system) while watched */
	gs_writer_meta_int(w, "samples.cpu_ns", (int64_t)cpu);
	if (cpu > 0)
		gs_writer_meta_int(w, "samples.rate_hz",
				   (int64_t)(((double)taken_armed * 1e9) / (double)cpu + 0.5));
}
