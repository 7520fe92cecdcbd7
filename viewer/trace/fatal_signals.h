/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * fatal_signals.h - the signals whose default action ends the process and
 * that a handler can catch: while gapscope writes an output through a
 * temporary file (render/out_file.c, trace/import_out.c), each of them
 * removes that file first, then ends the process as the signal would have
 * (SIGQUIT and SIGXFSZ left hidden .name.gapscope-* files behind when only
 * SIGINT, SIGTERM and SIGHUP were caught). SIGKILL and SIGSTOP cannot be
 * caught. Where a signal is not at its default action (ignored under nohup,
 * or taken by a sanitizer), it is left alone.
 *
 * SIGXFSZ that the kernel sends for a write past RLIMIT_FSIZE (ulimit -f) is
 * not an end: the write then fails with EFBIG and the writer says so and
 * cleans up (exit 1), as for a full disk. The kernel sends it as SI_USER
 * from the writing process itself (send_sig(SIGXFSZ, current, 0)); sent by
 * another process, it ends the run like the others.
 */
#ifndef GAPSCOPE_FATAL_SIGNALS_H
#define GAPSCOPE_FATAL_SIGNALS_H

#include <signal.h>
#include <unistd.h>

#define GS_FATAL_SIGNALS                                                                           \
	SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1, SIGSEGV,        \
	    SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,    \
	    SIGIO, SIGPWR, SIGSYS

/* In a SA_SIGINFO handler: 1 when this is the kernel's SIGXFSZ for a write
 * past the file size limit (the write fails with EFBIG), not an end. */
static inline int gs_signal_is_file_limit(int sig, const siginfo_t *info)
{
	return sig == SIGXFSZ && info && info->si_code == SI_USER && info->si_pid == getpid();
}

#endif
