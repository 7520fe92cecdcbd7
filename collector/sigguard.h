/*
 * sigguard.h - a walk of memory that may fault, made safe in a signal
 * handler: a SIGSEGV or SIGBUS raised while a thread's guard is active
 * jumps back to where the guard was taken (sigsetjmp) instead of ending the
 * program; any other fault goes to the program's own handler, or to the
 * default action, as without us.
 *
 * Why: the sampler reads a thread's Python frame chain from its signal
 * handler, wherever the interpreter was interrupted, and the chain is not
 * always whole. CPython 3.12's _PyEval_EvalFrameDefault sets
 * tstate->cframe to its C frame a few instructions before it sets that
 * frame's current_frame: a signal in between finds stack garbage there
 * (reproduced on 3.12.1: a timer at 20 us killed the program within
 * seconds; two of nine sampled torch processes on an H100, 2026-12-07).
 *
 * Use (the jump needs sigsetjmp in the caller's own frame):
 *	g->active = 1;
 *	if (sigsetjmp(g->jb, 0) == 0) { walk(); g->active = 0; }
 *	else { the walk faulted: g->active is 0, g->faults counts it }
 */
#ifndef GS_SIGGUARD_H
#define GS_SIGGUARD_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>

struct gs_sigguard {
	int64_t tid;		      /* the thread whose walks it guards */
	volatile sig_atomic_t active; /* a walk is on: a fault jumps to jb */
	volatile uint64_t faults;     /* walks that faulted */
	sigjmp_buf jb;
};

/* Installs the fault handler (once; it keeps the program's handler, if any,
 * to hand it every fault that is not a guarded walk's). 0, or -1 when
 * sigaction failed. */
int gs_sigguard_install(void);

/* Registers a guard for g->tid (set first; the callers serialize their
 * calls). 0, or -1 when the table is full: then the caller must not walk. */
int gs_sigguard_add(struct gs_sigguard *g);

/* 1 while the handler installed by gs_sigguard_install is still the one for
 * SIGSEGV and SIGBUS (a program may install its own later: its faults are
 * its own, and a walk must then not fault). A sigaction call each. */
int gs_sigguard_intact(void);

/* Installs fn as sig's handler (SA_SIGINFO, SA_RESTART) for a handler whose
 * walks are guarded: every other signal blocked while it runs, but not
 * SIGSEGV and SIGBUS (a fault blocked while it is raised ends the program:
 * the guard's must reach its handler). Returns sigaction's result; old:
 * the action before, or NULL. */
int gs_sigguard_handler(int sig, void (*fn)(int, siginfo_t *, void *), struct sigaction *old);

#endif
