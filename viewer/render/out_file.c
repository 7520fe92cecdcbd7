/*
 * Room viewer/render/: writing results (text, JSON, HTML, DOT, Chrome); reads no SQLite.
 *
 * out_file.c - writing an output file or folder so that a failed or
 * interrupted run never leaves a partial file and never removes what
 * gapscope did not create (out_file.h says what each case does). It
 * formats nothing: the renderers write into the FILE it hands out.
 *
 * Why a stdio cookie stream over the descriptor: stdio keeps only an error
 * flag, and errno after a failed fflush is whatever the last call left (a
 * full stdout once read "Operation not permitted"). The cookie records the
 * first write's errno, and once one write failed the rest fail at once, so
 * a 2 GB export to a full disk stops at the first buffer.
 */
#define _GNU_SOURCE /* fopencookie, mkostemp */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "fatal_signals.h"
#include "out_file.h"

/* ---- signal clean-up ---------------------------------------------------- */

/* The temporary file or folder a signal must remove: written with signals
 * blocked, read by the handler (only async-signal-safe calls there). */
static char sig_file[PATH_MAX];
static char sig_dir[PATH_MAX];
/* the folders out_dir_open created for the target (removed when empty):
 * sig_made[0..sig_made_len) names the first, sig_made the deepest */
static char sig_made[PATH_MAX];
static size_t sig_made_len;
static const int sig_nums[] = {GS_FATAL_SIGNALS};
#define N_SIGS (sizeof(sig_nums) / sizeof(sig_nums[0]))
static struct sigaction sig_old[N_SIGS];
static int sig_installed[N_SIGS];

struct dirent64_raw { /* the kernel's linux_dirent64 */
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Remove every entry of folder dir (our temporary folder: plain files
 * only), then the folder. Async-signal-safe: getdents64 instead of
 * opendir, which allocates. */
static void rm_tmp_dir(const char *dir)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), pass, removed;
	long n, off;

	if (fd < 0)
		return;
	/* unlinking while reading may make getdents skip names: read again
	 * from the start until a pass removes nothing */
	for (pass = 0; pass < 64; pass++) {
		removed = 0;
		if (lseek(fd, 0, SEEK_SET) < 0)
			break;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
			for (off = 0; off < n;) {
				struct dirent64_raw *d = (struct dirent64_raw *)(buf + off);
				if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
					removed += unlinkat(fd, d->d_name, 0) == 0;
				off += d->d_reclen;
			}
		if (!removed)
			break;
	}
	close(fd);
	rmdir(dir);
}

/* Remove the folders made for a target that stayed empty: path (a
 * writable copy, cut in place), then its parents up to the one of
 * length made. Async-signal-safe. */
static void rm_made(char *path, size_t made)
{
	size_t n = strlen(path);

	if (!made || made > n)
		return;
	for (;;) {
		path[n] = '\0';
		if (rmdir(path) != 0 || n <= made)
			return; /* not empty (someone else's files), or the first made */
		do
			n--;
		while (n > made && path[n] != '/');
	}
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;

	(void)uc;
	if (gs_signal_is_file_limit(sig, info))
		return; /* ulimit -f: the write fails with EFBIG, and is reported */
	if (sig_file[0])
		unlink(sig_file);
	if (sig_dir[0])
		rm_tmp_dir(sig_dir);
	if (sig_made[0])
		rm_made(sig_made, sig_made_len);
	/* the signal is blocked while its handler runs: raised again with the
	 * default action, it ends the process as it would have, on return */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

static void block_signals(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < N_SIGS; i++)
		sigaddset(&set, sig_nums[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* With signals blocked: handlers on (only where the disposition is the
 * default: an ignored SIGHUP under nohup stays ignored). */
static void arm_locked(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_SIGS; i++) {
		struct sigaction cur;
		sig_installed[i] = 0;
		if (sigaction(sig_nums[i], NULL, &cur) == 0 && cur.sa_handler == SIG_DFL &&
		    !(cur.sa_flags & SA_SIGINFO) && sigaction(sig_nums[i], &sa, &sig_old[i]) == 0)
			sig_installed[i] = 1;
	}
}

static void disarm(void)
{
	sigset_t old;
	size_t i;

	block_signals(&old);
	sig_file[0] = '\0';
	sig_dir[0] = '\0';
	sig_made[0] = '\0';
	for (i = 0; i < N_SIGS; i++)
		if (sig_installed[i]) {
			sigaction(sig_nums[i], &sig_old[i], NULL);
			sig_installed[i] = 0;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* ---- the stream --------------------------------------------------------- */

static ssize_t ck_write(void *cookie, const char *buf, size_t n)
{
	struct out_file *o = cookie;
	size_t done = 0;

	if (o->err)
		return 0; /* glibc: 0 is an error; the stream's error flag is set */
	while (done < n) {
		ssize_t w = write(o->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			return 0;
		}
		done += (size_t)w;
	}
	return (ssize_t)n;
}

static int make_stream(struct out_file *o)
{
	cookie_io_functions_t io = {.read = NULL, .write = ck_write, .seek = NULL, .close = NULL};

	o->f = fopencookie(o, "w", io);
	return o->f ? 0 : -ENOMEM;
}

/* Follow symbolic links (dangling ones too: the file is then made where the
 * link points, as fopen would). Returns a malloc'ed path or NULL. */
static char *resolve(const char *path)
{
	char *cur = strdup(path), link[PATH_MAX];
	int i;

	for (i = 0; cur && i < 40; i++) {
		struct stat st;
		ssize_t n;
		char *next, *slash;

		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0)
			return cur;
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash) {
			next = strdup(link);
		} else {
			size_t dl = (size_t)(slash - cur) + 1;
			next = malloc(dl + (size_t)n + 1);
			if (next) {
				memcpy(next, cur, dl);
				memcpy(next + dl, link, (size_t)n + 1);
			}
		}
		free(cur);
		cur = next;
	}
	return cur; /* a loop: open() will say ELOOP */
}

static void set_err(char *err, size_t errlen, const char *what, int e)
{
	snprintf(err, errlen, "%s: %s", what, strerror(e));
}

/* 1 when the file at path begins with SQLite's header */
static int is_sqlite(const char *path)
{
	char head[16];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY), is = 0;

	if (fd >= 0) {
		is = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
		     !memcmp(head, "SQLite format 3", 16);
		close(fd);
	}
	return is;
}

int out_name_check(const char *path, size_t extra, char *err, size_t errlen)
{
	const char *p = path;
	size_t n = strlen(path);

	if (!strcmp(path, "-"))
		return 0;
	/* every name in the path, the last with what is made beside it */
	while (*p) {
		size_t len = strcspn(p, "/");
		int is_last = p[len] == '\0';
		if (len + (is_last ? extra : 0) > NAME_MAX) {
			if (extra && is_last)
				snprintf(
				    err, errlen,
				    "cannot write: File name too long (a name of %zu bytes; at "
				    "most %zu, leaving room for what is written beside it)",
				    len, (size_t)NAME_MAX - extra);
			else
				snprintf(
				    err, errlen,
				    "cannot write: File name too long (a name of %zu bytes; at "
				    "most %d)",
				    len, NAME_MAX);
			return -ENAMETOOLONG;
		}
		p += len;
		while (*p == '/')
			p++;
	}
	if (n + extra >= PATH_MAX) {
		snprintf(err, errlen,
			 "cannot write: File name too long (a path of %zu bytes; at most %d)", n,
			 PATH_MAX - 1 - (int)extra);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* The descriptor a path names by number: /dev/stdout, /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N (bash's process substitution hands out
 * /dev/fd/63); else -1. Such a name is written through the descriptor
 * itself: the link behind it (pipe:[123], socket:[...]) is no path, and
 * resolving it made the output "No such file or directory". */
static int named_fd(const char *path)
{
	static const char *const pre[] = {"/dev/fd/", "/proc/self/fd/"};
	size_t i;

	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t n = strlen(pre[i]);
		const char *p = path + n;
		long v = 0;
		if (strncmp(path, pre[i], n) || !*p || strspn(p, "0123456789") != strlen(p) ||
		    strlen(p) > 9)
			continue;
		while (*p)
			v = v * 10 + (*p++ - '0');
		return (int)v;
	}
	return -1;
}

int out_open(struct out_file *o, const char *path, char *err, size_t errlen)
{
	struct stat st;
	sigset_t old;
	const char *base;
	char *tmp = NULL;
	size_t dl;
	int e, exists;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!strcmp(path, "-")) {
		fflush(stdout); /* what the verb printed comes first */
		o->direct = o->is_stdout = 1;
		o->fd = STDOUT_FILENO;
		if (make_stream(o) < 0) {
			set_err(err, errlen, "cannot write", ENOMEM);
			return -ENOMEM;
		}
		return 0;
	}
	if (!*path) {
		set_err(err, errlen, "cannot write", ENOENT);
		return -ENOENT;
	}
	if ((e = out_name_check(path, 0, err, errlen)) < 0)
		return e; /* before anything: the rename at the end would fail */
	{
		int nfd = named_fd(path);
		if (nfd >= 0) {
			/* written in place through a copy of the descriptor,
			 * like "-" (a regular file behind it too: the shell
			 * opened it, at its offset, in its mode) */
			if (nfd == STDOUT_FILENO)
				fflush(stdout);
			o->direct = 1;
			o->fd = fcntl(nfd, F_DUPFD_CLOEXEC, 3);
			if (o->fd < 0) {
				e = errno;
				goto fail;
			}
			if (make_stream(o) < 0) {
				e = ENOMEM;
				goto fail;
			}
			return 0;
		}
	}
	/* a FIFO or device named through a link that is no path (a magic
	 * link of /proc) is opened by its name: the kernel follows it */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		o->direct = 1;
		o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0) {
			e = errno;
			goto fail;
		}
		if (make_stream(o) < 0) {
			e = ENOMEM;
			goto fail;
		}
		return 0;
	}
	o->target = resolve(path);
	if (!o->target) {
		e = ENOMEM;
		goto fail;
	}
	exists = stat(o->target, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		e = EISDIR;
		goto fail;
	}
	if (exists && S_ISREG(st.st_mode) && is_sqlite(o->target)) {
		/* html, export and graph write text: replacing a database
		 * (`gapscope html run.db -o run.db`) would lose the trace */
		snprintf(err, errlen,
			 "is an SQLite database (a trace?): not replaced by this output; give the "
			 "output another name");
		out_abort(o);
		return -EEXIST;
	}
	if (exists && S_ISREG(st.st_mode) && access(o->target, W_OK) != 0) {
		/* a file this user could not have written in place (root's
		 * 0444 page in the user's folder) is not replaced either: the
		 * rename would have replaced it, and made it the user's */
		e = errno;
		goto fail;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device or FIFO: write in place; it is never unlinked */
		o->direct = 1;
		o->fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0) {
			e = errno;
			goto fail;
		}
		if (make_stream(o) < 0) {
			e = ENOMEM;
			goto fail;
		}
		return 0;
	}
	/* ".<name>.gapscope-XXXXXX" beside the target: same file system, so
	 * the rename is atomic; hidden, and named after what it will become */
	base = strrchr(o->target, '/');
	base = base ? base + 1 : o->target;
	dl = (size_t)(base - o->target);
	tmp = malloc(dl + 200 + 32);
	if (!tmp) {
		e = ENOMEM;
		goto fail;
	}
	snprintf(tmp, dl + 200 + 32, "%.*s.%.200s.gapscope-XXXXXX", (int)dl, o->target, base);
	if (strlen(tmp) >= sizeof(sig_file)) {
		e = ENAMETOOLONG;
		goto fail;
	}
	block_signals(&old);
	o->fd = mkostemp(tmp, O_CLOEXEC);
	e = errno;
	if (o->fd >= 0) {
		strcpy(sig_file, tmp);
		arm_locked();
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (o->fd < 0)
		goto fail;
	o->tmp = tmp;
	tmp = NULL;
	/* mkstemp makes 0600: give the file the mode it replaces, or what
	 * fopen would have given a new one */
	if (exists) {
		fchmod(o->fd, st.st_mode & 07777);
	} else {
		mode_t um = umask(0);
		umask(um);
		fchmod(o->fd, 0666 & ~um);
	}
	if (make_stream(o) < 0) {
		e = ENOMEM;
		goto fail;
	}
	return 0;
fail:
	free(tmp);
	set_err(err, errlen, "cannot write", e);
	out_abort(o);
	return -e;
}

int out_commit(struct out_file *o, char *err, size_t errlen)
{
	int e = 0;

	if (o->f) {
		if (fflush(o->f) != 0 || ferror(o->f))
			e = o->err ? o->err : EIO;
		fclose(o->f); /* the cookie's close is NULL: fd stays open */
		o->f = NULL;
	}
	if (o->is_stdout) {
		o->fd = -1;
		if (e) {
			set_err(err, errlen, "write error on standard output", e);
			return -e;
		}
		return 0;
	}
	/* fsync: a file renamed into place must hold its data when the
	 * rename does (a device or FIFO may not support it: EINVAL) */
	if (!e && !o->direct && fsync(o->fd) != 0)
		e = errno;
	if (o->fd >= 0 && close(o->fd) != 0 && !e)
		e = errno;
	o->fd = -1;
	if (!e && o->tmp && rename(o->tmp, o->target) != 0)
		e = errno;
	if (e) {
		set_err(err, errlen, "write error", e);
		out_abort(o);
		return -e;
	}
	free(o->tmp);
	o->tmp = NULL;
	disarm();
	free(o->target);
	o->target = NULL;
	return 0;
}

void out_abort(struct out_file *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	o->fd = -1;
	if (o->tmp) {
		unlink(o->tmp); /* ours: never the target */
		free(o->tmp);
		o->tmp = NULL;
		disarm();
	}
	free(o->target);
	o->target = NULL;
}

int out_write_all(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
	struct out_file o;
	int rc = out_open(&o, path, err, errlen);

	if (rc < 0)
		return rc;
	if (len)
		fwrite(buf, 1, len, o.f);
	return out_commit(&o, err, errlen);
}

/* ---- a folder of files -------------------------------------------------- */

/* mkdir -p; *made: the length of the leading part of dir that names the
 * first folder it created (0: none was) */
static int make_dirs(const char *dir, size_t *made)
{
	char *path = strdup(dir);
	size_t n = strlen(dir), i;

	*made = 0;
	if (!path)
		return -ENOMEM;
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0777) == 0) {
			if (!*made)
				*made = i;
		} else if (errno != EEXIST) {
			int e = errno;
			free(path);
			return -e;
		}
		path[i] = dir[i];
	}
	free(path);
	return 0;
}

int out_dir_open(struct out_dir *d, const char *path, char *err, size_t errlen)
{
	struct stat st;
	sigset_t old;
	size_t n;
	int e;

	memset(d, 0, sizeof(*d));
	if (!*path || !strcmp(path, "-")) {
		snprintf(err, errlen,
			 "not a folder name (CSV is one file per table: give a folder)");
		return -EINVAL;
	}
	if ((e = out_name_check(path, 0, err, errlen)) < 0)
		return e;
	if ((e = make_dirs(path, &d->made)) < 0) {
		set_err(err, errlen, "cannot create directory", -e);
		return e;
	}
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "not a directory");
		return -ENOTDIR;
	}
	n = strlen(path) + 32;
	d->target = strdup(path);
	d->tmp = malloc(n);
	if (!d->target || !d->tmp) {
		out_dir_abort(d);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(d->tmp, n, "%s/.gapscope-XXXXXX", path);
	if (strlen(d->tmp) >= sizeof(sig_dir) || strlen(path) >= sizeof(sig_made)) {
		free(d->tmp);
		d->tmp = NULL;
		out_dir_abort(d);
		set_err(err, errlen, "cannot write", ENAMETOOLONG);
		return -ENAMETOOLONG;
	}
	block_signals(&old);
	e = mkdtemp(d->tmp) ? 0 : errno;
	if (!e) {
		strcpy(sig_dir, d->tmp);
		if (d->made) {
			strcpy(sig_made, path);
			sig_made_len = d->made;
		}
		arm_locked();
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (e) {
		free(d->tmp);
		d->tmp = NULL;
		out_dir_abort(d);
		set_err(err, errlen, "cannot write", e);
		return -e;
	}
	return 0;
}

int out_dir_commit(struct out_dir *d, char *err, size_t errlen)
{
	DIR *dir = opendir(d->tmp);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	int e = 0;

	if (!dir) {
		e = errno;
		goto out;
	}
	/* every file on disk first, then the renames: a failure part way
	 * through the writes replaces nothing. Names are collected before
	 * renaming (readdir may skip entries of a folder that changes). */
	while (!e && (de = readdir(dir))) {
		char **nn;
		int fd;
		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fsync(fd) != 0)
			e = errno;
		if (fd >= 0)
			close(fd);
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn || !(nn[n] = strdup(de->d_name))) {
			if (nn)
				names = nn;
			e = ENOMEM;
			break;
		}
		names = nn;
		n++;
	}
	for (i = 0; !e && i < n; i++) {
		char *to = malloc(strlen(d->target) + strlen(names[i]) + 2);
		if (!to) {
			e = ENOMEM;
			break;
		}
		sprintf(to, "%s/%s", d->target, names[i]);
		if (renameat(dirfd(dir), names[i], AT_FDCWD, to) != 0)
			e = errno;
		free(to);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dir);
out:
	if (e) {
		set_err(err, errlen, "write error", e);
	} else {
		d->made = 0; /* complete: the folders made are the output's */
	}
	out_dir_abort(d);
	return -e;
}

void out_dir_abort(struct out_dir *d)
{
	if (d->tmp) {
		rm_tmp_dir(d->tmp);
		free(d->tmp);
		d->tmp = NULL;
		disarm();
	}
	/* a failed run leaves no folder it made: the target (when nothing
	 * else came into it) and the parents it created for it */
	if (d->target && d->made)
		rm_made(d->target, d->made);
	d->made = 0;
	free(d->target);
	d->target = NULL;
}
