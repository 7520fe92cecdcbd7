/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * out_file.h - the one way gapscope writes an output file (CONVENTIONS.md,
 * SQLite's atomic-commit habit). Every verb that writes a file (html -o,
 * export -o, graph -o) opens it here:
 *
 *  - a regular file (or a new one) is written to a temporary file beside it
 *    (".<name>.gapscope-XXXXXX" in the same folder) and renamed into place
 *    only when every write, the flush, fsync and close succeeded; a failed
 *    or interrupted run leaves the old file exactly as it was;
 *  - an existing file the user could not write in place (access W_OK) is
 *    refused, not replaced by the rename (which needs only the folder);
 *  - a symbolic link is followed: its target is replaced the same way, the
 *    link stays, and nothing is truncated before success;
 *  - standard output ("-"), character devices (/dev/null, /dev/full, a
 *    terminal) and FIFOs are written in place and never unlinked;
 *  - a descriptor named by path (/dev/stdout, /dev/stderr, /dev/fd/N,
 *    /proc/self/fd/N: a pipe, bash's >(...) process substitution) is
 *    written in place through a copy of that descriptor, whatever is
 *    behind it, like "-";
 *  - a folder as target is refused, and so is an SQLite database (a trace:
 *    `gapscope html run.db -o run.db` would have replaced it);
 *  - a fatal signal while the file is open (SIGINT, SIGTERM, SIGHUP,
 *    SIGQUIT, SIGPIPE, SIGXCPU, ...: fatal_signals.h) removes the temporary
 *    file (and nothing else), then ends the process as the signal would;
 *    the kernel's SIGXFSZ for a write past ulimit -f is not an end: that
 *    write fails with EFBIG and out_commit says so.
 *
 * out_dir_* is the same for a folder of files (export --format csv): the
 * files are written into a temporary folder inside the target folder and
 * renamed into it one by one when all are complete.
 *
 * Only one output is open at a time per process. Not thread-safe.
 */
#ifndef GAPSCOPE_OUT_FILE_H
#define GAPSCOPE_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

struct out_file {
	FILE *f;    /* write here (buffered; errors are kept, see out_commit) */
	int fd;	    /* the descriptor under f */
	int direct; /* 1: written in place (stdout, device, FIFO) */
	int is_stdout;
	int err;      /* errno of the first failed write, 0 if none */
	char *target; /* the file replaced (a symlink's target), malloc'ed */
	char *tmp;    /* the temporary file, or NULL when direct */
};

/* Whether path can name a file at all: every name in it at most NAME_MAX
 * (255) bytes - the last at most NAME_MAX - extra, for files made beside
 * it (a trace's -wal) - and the whole under PATH_MAX. A verb checks its -o
 * before any work (a page of a long name was generated, then the rename
 * failed: exit 1); out_open and out_dir_open check again. Returns 0, or
 * -ENAMETOOLONG with "cannot write: File name too long (a name of 260
 * bytes; at most 255)" in err. "-" passes. */
int out_name_check(const char *path, size_t extra, char *err, size_t errlen);

/* Open an output; path "-" is standard output. Returns 0, or -errno with
 * "cannot write: <reason>" in err (nothing created). */
int out_open(struct out_file *o, const char *path, char *err, size_t errlen);

/* Flush, fsync, close, and rename into place. Returns 0, or -errno with a
 * one-line reason in err ("write error: No space left on device", "write error on
 * standard output: ..."); then the temporary file is removed and
 * the old output left as it was. o is closed either way. */
int out_commit(struct out_file *o, char *err, size_t errlen);

/* Give up: close and remove the temporary file (a direct output is only
 * closed). Safe on a closed or failed-to-open o. */
void out_abort(struct out_file *o);

/* Write len bytes to path through out_open/out_commit. Same returns. */
int out_write_all(const char *path, const void *buf, size_t len, char *err, size_t errlen);

struct out_dir {
	char *target; /* the folder written to, malloc'ed */
	char *tmp;    /* the temporary folder inside it, where the files go */
	size_t made;  /* length of target's part naming the first folder out_dir_open
			 created (0: none): a failed run removes what it made */
};

/* Make the folder path (with its parents) if missing and a temporary
 * folder inside it. Refuses "-" and anything that is not a folder.
 * Returns 0, or -errno with the reason in err. */
int out_dir_open(struct out_dir *d, const char *path, char *err, size_t errlen);

/* fsync and rename every file of d->tmp into d->target, remove d->tmp.
 * Returns 0 or -errno (err filled; the files not yet moved are removed). */
int out_dir_commit(struct out_dir *d, char *err, size_t errlen);

/* Remove d->tmp and the files in it; the target folder is left as it was
 * (removed, with the parents made for it, when out_dir_open created it and
 * it is empty). A fatal signal (SIGINT, SIGQUIT, ...) does the same. */
void out_dir_abort(struct out_dir *d);

#endif
