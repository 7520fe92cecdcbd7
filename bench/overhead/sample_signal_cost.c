/*
 * sample_signal_cost.c - what the kernel's side of one sample costs a busy
 * thread, by source (collector/sampler.c): a fixed spin (user code, no
 * system call) runs once unsampled and once under each way of signalling the
 * thread, and the extra CPU time it took, over the signals it got, is the
 * cost of one signal with an empty handler (the handler's own work, reading
 * the stack, is measured elsewhere: docs/record.md "What it costs").
 *
 *   sample_signal_cost [HZ [ROUNDS]]      (default 10000 Hz, 3 rounds)
 *
 * Sources: perf_event task-clock armed for 1 or for 16 overflows at a time
 * (PERF_EVENT_IOC_REFRESH, the sampler's SAMPLER_PERF_BURST), a POSIX timer
 * on the thread's CPU-time clock (at the kernel's tick), and a wall-clock
 * POSIX timer for reference. Rounds are interleaved; each line gives the
 * round's figures. A figure printer: it asserts nothing, needs no GPU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPIN 1500000000L /* iterations: ~1.7 s on a 2026 x86-64 core */

enum { NONE, PERF1, PERF16, CPUTIMER, WALLTIMER, N_MODES };
static const char *const names[N_MODES] = {"none", "perf refresh 1", "perf refresh 16",
					   "timer thread CPU", "timer wall clock"};

static volatile long n_sig;
static int perf_fd = -1, refresh = 1;

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	n_sig++;
	if (si->si_code == POLL_HUP && si->si_fd == perf_fd)
		ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, refresh);
}

static double thread_cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* one spin under mode; CPU seconds, signals in *sigs; < 0 if the source
 * cannot be made here */
static double run(int mode, unsigned hz, int sig, long *sigs)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	timer_t tm = 0;
	volatile uint64_t x = 1;
	double c0, c1;
	long i;

	n_sig = 0;
	if (mode == PERF1 || mode == PERF16) {
		struct perf_event_attr a;
		struct f_owner_ex o = {F_OWNER_TID, tid};
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.sample_period = 1000000000u / hz;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.disabled = 1;
		perf_fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (perf_fd < 0)
			return -1;
		refresh = mode == PERF16 ? 16 : 1;
		fcntl(perf_fd, F_SETOWN_EX, &o);
		fcntl(perf_fd, F_SETSIG, sig);
		fcntl(perf_fd, F_SETFL, fcntl(perf_fd, F_GETFL) | O_ASYNC);
		ioctl(perf_fd, PERF_EVENT_IOC_REFRESH, refresh);
	} else if (mode == CPUTIMER || mode == WALLTIMER) {
		struct sigevent sev;
		struct itimerspec its = {{0, (long)(1000000000u / hz)},
					 {0, (long)(1000000000u / hz)}};
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = sig;
		sev._sigev_un._tid = tid;
		if (timer_create(mode == CPUTIMER ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &sev,
				 &tm) != 0 ||
		    timer_settime(tm, 0, &its, NULL) != 0)
			return -1;
	}
	c0 = thread_cpu();
	for (i = 0; i < SPIN; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	c1 = thread_cpu();
	if (perf_fd >= 0) {
		ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
		close(perf_fd);
		perf_fd = -1;
	}
	if (tm)
		timer_delete(tm);
	*sigs = n_sig;
	return c1 - c0;
}

int main(int argc, char **argv)
{
	unsigned hz = argc > 1 ? (unsigned)atoi(argv[1]) : 10000;
	int rounds = argc > 2 ? atoi(argv[2]) : 3, r, m, sig = SIGRTMAX - 1;
	struct sigaction sa;

	if (hz < 1 || hz > 100000 || rounds < 1) {
		fprintf(stderr, "usage: sample_signal_cost [HZ [ROUNDS]]\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	printf("%u Hz asked, %d rounds; per source: CPU s of the spin, signals, signals a CPU s, "
	       "us of CPU a signal over the unsampled spin\n",
	       hz, rounds);
	for (r = 0; r < rounds; r++) {
		double base = 0;
		for (m = 0; m < N_MODES; m++) {
			long sigs = 0;
			double cpu = run(m, hz, sig, &sigs);
			if (m == NONE)
				base = cpu;
			if (cpu < 0)
				printf("round %d  %-17s cannot be made here (%s)\n", r + 1,
				       names[m], strerror(errno));
			else if (m == NONE)
				printf("round %d  %-17s %.4f s\n", r + 1, names[m], cpu);
			else
				printf("round %d  %-17s %.4f s %7ld signals %6.0f/s %6.1f us\n",
				       r + 1, names[m], cpu, sigs, (double)sigs / cpu,
				       sigs ? (cpu - base) * 1e6 / (double)sigs : 0.0);
		}
	}
	return 0;
}
