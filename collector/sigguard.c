/*
 * sigguard.c - faults of guarded walks jump back; every other fault is the
 * program's (sigguard.h).
 *
 * The handler runs with SA_NODEFER and an empty mask: the jump back
 * (siglongjmp without the mask) then leaves the signal mask as it was in
 * the walk, with no sigprocmask call per walk. SA_ONSTACK: a program that
 * set an alternate stack (Python's faulthandler does, for stack overflows)
 * still gets its faults there. A fault that is not ours is chained: to the
 * program's handler as it was when we installed ours (called as the kernel
 * would call it), or, where it was the default action, by putting that back
 * and returning: the faulting instruction runs again and the program ends
 * as it would have without us, its core dump included.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sigguard.h"

#define GS_SIGGUARD_MAX 1024

static struct gs_sigguard *guards[GS_SIGGUARD_MAX];
static _Atomic int n_guards;
static _Atomic int installed;
static struct sigaction old_segv, old_bus;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;

	/* a fault the kernel raised (si_code > 0), not a kill() */
	if (si && si->si_code > 0) {
		int64_t tid = (int64_t)syscall(SYS_gettid);
		int i, n = atomic_load_explicit(&n_guards, memory_order_acquire);
		for (i = 0; i < n; i++) {
			struct gs_sigguard *g = guards[i];
			if (g && g->active && g->tid == tid) {
				g->active = 0;
				g->faults++;
				siglongjmp(g->jb, 1);
			}
		}
	}
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
		old->sa_handler(sig);
		return;
	}
	/* the default action (or an ignored fault, which the kernel turns into
	 * it): the program's disposition back, the instruction again; a
	 * signal sent by kill() is sent again */
	sigaction(sig, old, NULL);
	if (!si || si->si_code <= 0)
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
}

int gs_sigguard_install(void)
{
	struct sigaction sa;
	int expect = 0;

	if (!atomic_compare_exchange_strong(&installed, &expect, 1))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv) != 0)
		goto fail;
	if (sigaction(SIGBUS, &sa, &old_bus) != 0) {
		sigaction(SIGSEGV, &old_segv, NULL);
		goto fail;
	}
	return 0;
fail:
	atomic_store(&installed, 0);
	return -1;
}

int gs_sigguard_add(struct gs_sigguard *g)
{
	int i = atomic_load_explicit(&n_guards, memory_order_relaxed);

	if (i >= GS_SIGGUARD_MAX)
		return -1;
	g->active = 0;
	guards[i] = g;
	/* published after the slot is written: the handler reads up to it */
	atomic_store_explicit(&n_guards, i + 1, memory_order_release);
	return 0;
}

static int ours(int sig)
{
	struct sigaction cur;

	return sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	       cur.sa_sigaction == on_fault;
}

int gs_sigguard_intact(void)
{
	return atomic_load(&installed) && ours(SIGSEGV) && ours(SIGBUS);
}

int gs_sigguard_handler(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	return sigaction(sig, &sa, old);
}
