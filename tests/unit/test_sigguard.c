/*
 * test_sigguard.c - the sampler's fault guard (collector/sigguard.c): a
 * fault inside a guarded walk jumps back to the walk's sigsetjmp, again and
 * again (the signal mask is left as it was); every other fault is the
 * program's, as without the guard: the default action ends the child by
 * SIGSEGV, a handler the program installed first is called, a fault on a
 * thread other than the guarded one is not caught, a SIGSEGV sent with
 * kill() is not taken for a fault; once the program installs its own
 * handler, the guard says it is no longer intact. Each case runs in a
 * forked child (cmocka and ASan have handlers of their own; the child
 * starts from the default action, as a program without one).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sigguard.h"

/* A read that faults: the page at 4096 is never mapped (mmap_min_addr).
 * Not instrumented: the fault is the load's own, not a sanitizer's check. */
__attribute__((no_sanitize("address"), noinline)) static int wild_read(void)
{
	return *(volatile const char *)(uintptr_t)4096;
}

static struct gs_sigguard g;

static void start_plain(void)
{
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
}

/* The child's status after fn ran in it. */
static int in_child(void (*fn)(void))
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		start_plain();
		fn();
		_exit(99);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void guarded_walks(void)
{
	int k;

	if (gs_sigguard_install() != 0)
		_exit(20);
	g.tid = (int64_t)syscall(SYS_gettid);
	if (gs_sigguard_add(&g) != 0)
		_exit(21);
	/* three walks in a row that fault: each comes back, none is left with
	 * SIGSEGV blocked (the kernel would then end the child at the next) */
	for (k = 0; k < 3; k++) {
		g.active = 1;
		if (sigsetjmp(g.jb, 0) == 0) {
			(void)wild_read();
			_exit(22); /* the read did not fault */
		}
		if (g.active != 0)
			_exit(23);
	}
	if (g.faults != 3)
		_exit(24);
	/* and a walk that does not fault leaves nothing behind */
	g.active = 1;
	if (sigsetjmp(g.jb, 0) == 0)
		g.active = 0;
	else
		_exit(25);
	_exit(g.faults == 3 ? 7 : 26);
}

static void test_guarded_walks_come_back(void **state)
{
	int st = in_child(guarded_walks);

	(void)state;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 7);
}

static void fault_unguarded(void)
{
	if (gs_sigguard_install() != 0)
		_exit(20);
	g.tid = (int64_t)syscall(SYS_gettid);
	g.active = 0; /* registered, not walking */
	gs_sigguard_add(&g);
	(void)wild_read();
	_exit(22);
}

static void test_unguarded_fault_ends_the_program(void **state)
{
	int st = in_child(fault_unguarded);

	(void)state;
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

static void on_program_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* the program's own handler, with what the kernel gave */
	_exit(sig == SIGSEGV && si && si->si_addr == (void *)(uintptr_t)4096 ? 5 : 6);
}

static void fault_with_program_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_program_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (gs_sigguard_install() != 0)
		_exit(20);
	if (!gs_sigguard_intact())
		_exit(21);
	(void)wild_read();
	_exit(22);
}

static void test_program_handler_gets_its_faults(void **state)
{
	int st = in_child(fault_with_program_handler);

	(void)state;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 5);
}

static void fault_other_thread_guarded(void)
{
	if (gs_sigguard_install() != 0)
		_exit(20);
	/* a walk on another thread (this one's tid + 1) is on */
	g.tid = (int64_t)syscall(SYS_gettid) + 1;
	gs_sigguard_add(&g);
	g.active = 1;
	if (sigsetjmp(g.jb, 0) != 0)
		_exit(23); /* taken for the other thread's walk */
	(void)wild_read();
	_exit(22);
}

static void test_other_threads_walk_does_not_catch(void **state)
{
	int st = in_child(fault_other_thread_guarded);

	(void)state;
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

static void killed_during_walk(void)
{
	if (gs_sigguard_install() != 0)
		_exit(20);
	g.tid = (int64_t)syscall(SYS_gettid);
	gs_sigguard_add(&g);
	g.active = 1;
	if (sigsetjmp(g.jb, 0) != 0)
		_exit(23); /* a SIGSEGV sent by kill() taken for a fault */
	raise(SIGSEGV);
	_exit(22);
}

static void test_sent_segv_is_not_a_fault(void **state)
{
	int st = in_child(killed_during_walk);

	(void)state;
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

static void replaced_by_program(void)
{
	if (gs_sigguard_install() != 0 || !gs_sigguard_intact())
		_exit(20);
	signal(SIGBUS, SIG_DFL); /* the program's own choice, made later */
	_exit(gs_sigguard_intact() ? 21 : 7);
}

static void test_replaced_handler_is_seen(void **state)
{
	int st = in_child(replaced_by_program);

	(void)state;
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_guarded_walks_come_back),
	    cmocka_unit_test(test_unguarded_fault_ends_the_program),
	    cmocka_unit_test(test_program_handler_gets_its_faults),
	    cmocka_unit_test(test_other_threads_walk_does_not_catch),
	    cmocka_unit_test(test_sent_segv_is_not_a_fault),
	    cmocka_unit_test(test_replaced_handler_is_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
