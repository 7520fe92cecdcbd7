/*
 * Room viewer/cmd/: the gapscope command, one cmd_<verb>.c per verb.
 *
 * cmd_record.c - `gapscope record [options] [--] program [args...]`.
 *
 * Runs a program under the collector: finds libgapscope.so, points
 * CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH at it, turns the options
 * into the GAPSCOPE_* environment variables the collector reads, then forks,
 * execs the program and passes its exit status through (128+signo when a
 * signal killed it, as a shell does). At the end it names on stderr the
 * trace database(s) the run wrote. With --reference N it then runs the
 * program N more times as untraced reference runs (the collector records
 * NVTX ranges only, to TEMPLATE.ref<K>.db), whose range walls `gapscope
 * report --reference` compares with the traced ones.
 *
 * It does not record anything itself: the collector library does, inside
 * the program, and only once the program initialises CUDA (a program that
 * never touches CUDA runs exactly as without gapscope). It does not ptrace,
 * preload or otherwise touch the program.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gapscope/trace_format.h"
#include "trace.h"

#define RECORD_DEFAULT_OUTPUT "gapscope-%p.db" /* the collector's own default */
#define RECORD_LIB_NAME "libgapscope.so"

/* The activity names the collector understands (GAPSCOPE_ACTIVITIES). */
static const char *const record_activities[] = {"kernel", "memcpy", "memset",  "runtime",
						"driver", "sync",   "event",   "stream",
						"nvtx",	  "graph",  "overhead"};

static const char *const record_log_levels[] = {"quiet", "warn", "info", "debug"};

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: gapscope record [options] [--] program [args...]\n"
		"\n"
		"Runs program with the gapscope collector (libgapscope.so) injected through\n"
		"CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH, and writes one trace\n"
		"database per process that initialises CUDA. Exits with the program's exit\n"
		"status (128+N if signal N killed it; with --reference, that of the first\n"
		"reference run that fails); 2 for bad options, or when a file that is no\n"
		"gapscope trace is at the output name (not replaced; the program does not run).\n"
		"\n"
		"options (each sets the collector's environment variable in brackets;\n"
		"without the option, a value already in the environment is kept):\n"
		"  -o, --output TEMPLATE  database path [GAPSCOPE_OUTPUT] (default %s)\n"
		"                         %%p pid, %%h hostname, %%q{VAR} environment variable\n"
		"                         VAR, %%%% a literal %%. A process that finds the\n"
		"                         name taken by another of this run records to\n"
		"                         NAME-<pid>.EXT instead (and says so)\n"
		"      --activities LIST  what to record [GAPSCOPE_ACTIVITIES]: comma list of\n"
		"                         kernel, memcpy, memset, runtime, driver, sync, event,\n"
		"                         stream, nvtx, graph, overhead, or all (default: all\n"
		"                         but driver).\n"
		"                         runtime: cuda* calls but query calls such as\n"
		"                         cudaGetDevice, cudaGetLastError (docs/record.md),\n"
		"                         and the driver's launch calls (cuLaunchKernel*)\n"
		"      --latency          also record kernels' queued/submitted times (latency\n"
		"                         timestamps; more overhead) [GAPSCOPE_LATENCY=1]\n"
		"  --no-callsites         no call sites (stacks) of blocking calls\n"
		"                         [GAPSCOPE_CALLSITES=0]\n"
		"      --sampling         sample the threads that make CUDA calls, so that the\n"
		"                         report names the code behind host code (the\n"
		"                         default) [GAPSCOPE_SAMPLING=1]\n"
		"      --no-sampling      do not sample them [GAPSCOPE_SAMPLING=0]\n"
		"      --sample-rate HZ   samples per second of each such thread's CPU time,\n"
		"                         1..10000; without perf_event_open the kernel's tick\n"
		"                         caps it (250 Hz on a HZ=250 kernel; meta\n"
		"                         samples.rate_hz) [GAPSCOPE_SAMPLE_HZ] (default 250);\n"
		"                         a Python thread found waiting (off CPU) has its\n"
		"                         frames read every 2 ms too [GAPSCOPE_SAMPLE_WAITS]\n"
		"      --graph-level      time each CUDA graph launch as a whole, without a\n"
		"                         record per node: far less overhead on graph replays,\n"
		"                         but no kernel names, durations or gaps inside them\n"
		"                         (docs/record.md) [GAPSCOPE_GRAPH_LEVEL=1]\n"
		"      --capture-range cudaProfilerApi\n"
		"                         record only between the program's cudaProfilerStart\n"
		"                         and cudaProfilerStop calls (torch.cuda.profiler.start\n"
		"                         and .stop), every such span; outside them nothing is\n"
		"                         recorded or analysed, but the collector stays loaded\n"
		"                         (what that costs: docs/record.md)\n"
		"                         [GAPSCOPE_CAPTURE_RANGE] (default none: the whole run)\n"
		"      --no-calibrate     do not measure the collector's overhead before the\n"
		"                         program (gapscope-calibrate, ~1.5 s); the report then\n"
		"                         shows uncorrected figures only\n"
		"      --flush-ms N       write to disk every N ms, 0 = only at exit\n"
		"                         [GAPSCOPE_FLUSH_MS] (default 1000)\n"
		"      --buffer-kb N      CUPTI activity buffer size in KiB, 64..1048576\n"
		"                         [GAPSCOPE_BUFFER_KB] (default 8192)\n"
		"      --log LEVEL        collector messages: quiet, warn, info or debug\n"
		"                         [GAPSCOPE_LOG] (default warn)\n"
		"      --reference N      then run the program N more times (1..9) as\n"
		"                         untraced reference runs (below)\n"
		"  -h, --help             this help\n"
		"\n"
		"Untraced reference runs (--reference N): once the traced run has exited\n"
		"with status 0, the program runs N more times, with the same arguments and\n"
		"working directory, and the collector records only its NVTX ranges\n"
		"(GAPSCOPE_ACTIVITIES=nvtx, GAPSCOPE_CALLSITES=0, GAPSCOPE_SAMPLING=0, no\n"
		"calibration), which costs the program next to nothing; --activities,\n"
		"--latency, --graph-level, --no-callsites, --no-sampling, --sample-rate and\n"
		"--no-calibrate apply to the traced run only. Run K\n"
		"writes the output name with .refK before its .db (run.db -> run.ref1.db;\n"
		"a name without .db gets .refK.db). As the program runs N+1 times, it\n"
		"should do the same work each time and have no side effects you mind.\n"
		"A reference run that fails stops the ones after it. Where\n"
		"libgs_launch_interpose.so lies beside the collector, it is preloaded\n"
		"into the reference runs (before any LD_PRELOAD of yours) to time the\n"
		"program's kernel launch calls from outside (a runtime linked statically\n"
		"is not seen); each reference trace keeps them (meta reference.launch_*).\n"
		"Then\n"
		"  gapscope report run.db --reference run.ref1.db --reference run.ref2.db\n"
		"compares each NVTX range's traced wall with its untraced ones, and\n"
		"corrects the traced launch calls against the program's own untraced ones.\n"
		"\n"
		"The collector is looked up beside the gapscope binary, as installed\n"
		"(" GAPSCOPE_LIB_RELDIR "/" RECORD_LIB_NAME ") or as built (../lib/" RECORD_LIB_NAME
		"); set\n"
		"GAPSCOPE_LIB=/path/to/" RECORD_LIB_NAME " to use another one.\n"
		"\n"
		"example:\n"
		"  gapscope record -o run.db -- ./my_app --its-args\n"
		"  gapscope info run.db\n"
		"  gapscope record -o run.db --reference 2 -- ./my_app --its-args\n"
		"  gapscope report run.db --reference run.ref1.db --reference run.ref2.db\n",
		RECORD_DEFAULT_OUTPUT);
}

/* Is `word` (of length n) one of `names`? */
static int record_in_list(const char *word, size_t n, const char *const *names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (strlen(names[i]) == n && !strncmp(word, names[i], n))
			return 1;
	return 0;
}

/* Check an --activities list; on error print why and return -1. */
static int record_check_activities(const char *list)
{
	const char *p = list, *comma;
	size_t n;

	if (!*list) {
		gs_error("record", "--activities: empty list (use e.g. 'kernel,runtime' or 'all')");
		return -1;
	}
	for (;;) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		/* blanks around a word, as the collector's parser skips them
		 * (collector/activities.c): " kernel , memcpy " was refused
		 * here though GAPSCOPE_ACTIVITIES took it */
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!(n == 3 && !strncmp(p, "all", 3)) &&
		    !record_in_list(p, n, record_activities,
				    sizeof(record_activities) / sizeof(record_activities[0]))) {
			gs_error(
			    "record",
			    "--activities: unknown activity '%.*s' (known: kernel, memcpy, "
			    "memset, runtime, driver, sync, event, stream, nvtx, graph, overhead, "
			    "all)",
			    (int)n, p);
			return -1;
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* Parse a non-negative decimal integer option; on error print why. */
static int record_parse_uint(const char *opt, const char *s, long min, long max, long *out)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max) {
		gs_error("record", "%s: '%s' is not a whole number between %ld and %ld", opt, s, min,
			 max);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * Expand an output template the way the collector does, with `pid` for %p
 * (or "*" when pid is 0, to build a glob pattern; glob metacharacters in the
 * literal parts are then escaped). Returns 0, or -1 with `why` set for a
 * malformed template.
 */
static int record_expand(const char *tmpl, pid_t pid, char *out, size_t outlen, const char **why)
{
	size_t o = 0;
	const char *p;
	char host[256];
	int pattern = pid == 0;

#define PUT(c)                                                                                     \
	do {                                                                                       \
		if (o + 1 >= outlen) {                                                             \
			*why = "expanded path is too long";                                        \
			return -1;                                                                 \
		}                                                                                  \
		out[o++] = (c);                                                                    \
	} while (0)
	/* A literal character; escaped when building a glob pattern. */
#define PUT_LIT(c)                                                                                 \
	do {                                                                                       \
		if (pattern && strchr("*?[\\", (c)))                                               \
			PUT('\\');                                                                 \
		PUT(c);                                                                            \
	} while (0)

	for (p = tmpl; *p; p++) {
		const char *s = NULL;
		char num[32];

		if (*p != '%') {
			PUT_LIT(*p);
			continue;
		}
		switch (p[1]) {
		case '%':
			PUT_LIT('%');
			p++;
			continue;
		case 'p':
			if (pattern) {
				PUT('*');
				p++;
				continue;
			}
			snprintf(num, sizeof(num), "%ld", (long)pid);
			s = num;
			p++;
			break;
		case 'h':
			if (gethostname(host, sizeof(host)) != 0)
				strcpy(host, "unknown");
			host[sizeof(host) - 1] = '\0';
			s = host;
			p++;
			break;
		case 'q': {
			const char *close;
			char var[256];
			size_t n;

			if (p[2] != '{' || !(close = strchr(p + 3, '}'))) {
				*why = "%q must be followed by {VARIABLE}";
				return -1;
			}
			n = (size_t)(close - (p + 3));
			if (n == 0 || n >= sizeof(var)) {
				*why = "%q{} needs a variable name";
				return -1;
			}
			memcpy(var, p + 3, n);
			var[n] = '\0';
			s = getenv(var);
			if (!s)
				s = ""; /* an unset variable expands to nothing */
			p = close;
			break;
		}
		case '\0': *why = "ends with a lone %"; return -1;
		default: *why = "unknown %-escape (use %p, %h, %q{VAR} or %%)"; return -1;
		}
		for (; *s; s++)
			PUT_LIT(*s);
	}
	out[o] = '\0';
	return 0;
#undef PUT
#undef PUT_LIT
}

/* Does the directory part of `path` exist? (Only checked when it is fixed.) */
static int record_dir_exists(const char *path, char *dir, size_t dirlen)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	size_t n;

	if (!slash)
		return 1;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= dirlen)
		return 1;
	memcpy(dir, path, n);
	dir[n] = '\0';
	if (strchr(dir, '%'))
		return 1; /* depends on the run; the collector will warn if needed */
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Where an installed collector sits relative to the installed gapscope, set
 * by CMake from GNUInstallDirs (bin -> lib/<multiarch>/gapscope on Debian
 * with prefix /usr, bin -> lib/gapscope elsewhere). The library is private
 * (loaded only through CUDA_INJECTION64_PATH, never linked), hence its own
 * folder outside the loader's search path.
 */
#ifndef GAPSCOPE_LIB_RELDIR
#define GAPSCOPE_LIB_RELDIR "../lib/gapscope"
#endif

/*
 * Find the collector library: $GAPSCOPE_LIB, else beside our binary as
 * installed (GAPSCOPE_LIB_RELDIR), else as in the build tree (../lib).
 * With `quiet` nothing is printed (for --help); else a failure says where
 * it looked. Returns 0 with the real path in out, or -1.
 */
/* 1 when path is a regular file that starts as an ELF shared object
 * (magic, and e_type ET_DYN) */
static int record_is_elf_so(const char *path)
{
	unsigned char h[18];
	struct stat st;
	FILE *f;
	size_t n;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	n = fread(h, 1, sizeof(h), f);
	fclose(f);
	/* e_type at offset 16, little-endian on the machines CUDA runs on */
	return n == sizeof(h) && !memcmp(h, "\177ELF", 4) && h[16] == 3 && h[17] == 0;
}

static int record_find_lib(char *out, size_t outlen, int quiet)
{
	const char *env = getenv("GAPSCOPE_LIB");
	char exe[PATH_MAX], installed[PATH_MAX + 64], built[PATH_MAX + 32];
	char *slash;
	ssize_t n;

	if (env && *env) {
		if (!realpath(env, out) || access(out, R_OK) != 0) {
			if (!quiet)
				gs_error(env, "GAPSCOPE_LIB: collector library not found (%s)",
					 strerror(errno));
			return -1;
		}
		if (!record_is_elf_so(out)) {
			/* the driver would skip it silently: no trace and no word */
			if (!quiet)
				gs_error(env, "GAPSCOPE_LIB: not a shared library (%s is no ELF "
					      "shared object); point it at libgapscope.so",
					 out);
			return -1;
		}
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		if (!quiet)
			gs_error("record",
				 "cannot find the gapscope binary's folder (%s); set GAPSCOPE_LIB",
				 strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(installed, sizeof(installed), "%s/" GAPSCOPE_LIB_RELDIR "/" RECORD_LIB_NAME, exe);
	snprintf(built, sizeof(built), "%s/../lib/" RECORD_LIB_NAME, exe);
	if (outlen >= PATH_MAX && ((realpath(installed, out) && access(out, R_OK) == 0) ||
				   (realpath(built, out) && access(out, R_OK) == 0)))
		return 0;
	if (!quiet)
		gs_error(built,
			 "collector library not found there nor at %s (was gapscope built with "
			 "the CUDA Toolkit?); set GAPSCOPE_LIB=/path/to/" RECORD_LIB_NAME,
			 installed);
	return -1;
}

/* --help ends with the collector this gapscope would use. */
static void record_help(void)
{
	char lib[PATH_MAX];

	record_usage(stdout);
	if (record_find_lib(lib, sizeof(lib), 1) == 0)
		printf("\ncollector: %s\n", lib);
	else
		printf("\ncollector: not found (set GAPSCOPE_LIB)\n");
}

static volatile sig_atomic_t record_child_pid;

/* SIGTERM/SIGHUP to us go on to the program, so that its collector can
 * flush (it chains the program's handlers) and we still report. */
static void record_forward(int sig)
{
	if (record_child_pid > 0)
		kill((pid_t)record_child_pid, sig);
}

/*
 * Fork and exec the program (argv[0], looked up in PATH) with our current
 * environment and wait for it. Returns 0 with its pid and wait status, or
 * an exit code for cmd_record after one line on stderr: 2 when exec
 * failed (no such program), 1 when pipe, fork or waitpid did.
 */
static int record_run(char *const argv[], pid_t *pid_out, int *status)
{
	struct sigaction ign, fwd, old_int, old_quit, old_term, old_hup;
	int pipefd[2], child_errno = 0;
	pid_t pid;
	ssize_t n;

	/* A close-on-exec pipe tells us whether exec worked: it is closed by a
	 * successful exec, and carries errno when exec fails. */
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		gs_error("record", "pipe: %s", strerror(errno));
		return GS_EXIT_INTERNAL;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		gs_error("record", "fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		return GS_EXIT_INTERNAL;
	}
	if (pid == 0) {
		int e;

		close(pipefd[0]);
		execvp(argv[0], argv);
		e = errno;
		if (write(pipefd[1], &e, sizeof(e)) < 0) {
			/* nothing more we can say */
		}
		_exit(127);
	}
	close(pipefd[1]);

	/* Like a shell waiting for a foreground job: the terminal's SIGINT and
	 * SIGQUIT reach the program directly (same process group); we outlive
	 * it to report. SIGTERM/SIGHUP sent to us alone are passed on. */
	record_child_pid = pid;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	memset(&fwd, 0, sizeof(fwd));
	fwd.sa_handler = record_forward;
	sigemptyset(&fwd.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);

	do
		n = read(pipefd[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			gs_error("record", "waitpid: %s", strerror(errno));
			return GS_EXIT_INTERNAL;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	record_child_pid = 0;

	if (n == (ssize_t)sizeof(child_errno)) {
		gs_error(argv[0], "cannot run: %s",
			 child_errno == ENOENT ? "no such program (not found in PATH)"
					       : strerror(child_errno));
		return GS_EXIT_BAD_INPUT;
	}
	*pid_out = pid;
	return 0;
}

/* A wait status as a shell reports it: the exit status, 128+signo. */
static int record_exit_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : GS_EXIT_INTERNAL;
}

/* "exit status 3" or "killed by signal 15", for a one-line message. */
static void record_describe_status(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "exit status %d", record_exit_status(status));
}

/* Is this path a SQLite side file rather than a database? */
static int record_is_side_file(const char *path)
{
	static const char *const sfx[] = {"-wal", "-shm", "-journal"};
	size_t i, n = strlen(path);

	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t m = strlen(sfx[i]);
		if (n > m && !strcmp(path + n - m, sfx[i]))
			return 1;
	}
	return 0;
}

/*
 * The template the program gets: a relative one is made absolute against our
 * working directory, so a program that changes directory before it
 * initialises CUDA still writes where the user asked (and where
 * record_report_outputs, which runs here, looks). The directory is literal
 * text in a template: its '%' are doubled. Returns 0, or -1 when the
 * directory cannot be read or the result does not fit.
 */
static int record_absolute_template(const char *tmpl, char *out, size_t outlen)
{
	char cwd[PATH_MAX];
	size_t o = 0;
	const char *p;

	if (tmpl[0] == '/') {
		if (strlen(tmpl) >= outlen)
			return -1;
		strcpy(out, tmpl);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	for (p = cwd; *p; p++) {
		if (o + 3 >= outlen)
			return -1;
		if (*p == '%')
			out[o++] = '%';
		out[o++] = *p;
	}
	if (o > 0 && out[o - 1] != '/')
		out[o++] = '/';
	if (o + strlen(tmpl) >= outlen)
		return -1;
	strcpy(out + o, tmpl);
	return 0;
}

/* Does the template use %p (not the literal "%%p")? */
static int record_has_pid(const char *tmpl)
{
	for (; *tmpl; tmpl++)
		if (*tmpl == '%') {
			if (tmpl[1] == 'p')
				return 1;
			if (tmpl[1])
				tmpl++;
		}
	return 0;
}

/* The output template of reference run k: ".ref<k>" inserted before a
 * trailing ".db", or ".ref<k>.db" appended to a template without one
 * (run.db -> run.ref1.db, gapscope-%p.db -> gapscope-%p.ref1.db, trace ->
 * trace.ref1.db). Returns 0, or -1 when it does not fit. */
static int record_ref_template(const char *tmpl, int k, char *out, size_t outlen)
{
	size_t n = strlen(tmpl);
	int w;

	if (n >= 3 && !strcmp(tmpl + n - 3, ".db"))
		n -= 3;
	w = snprintf(out, outlen, "%.*s.ref%d.db", (int)n, tmpl, k);
	return w < 0 || (size_t)w >= outlen ? -1 : 0;
}

/* Name on stderr the databases the run wrote: the program's own (template
 * with its pid), and any other file matching the template with %p as a
 * wildcard that was modified since the start (processes it started). A
 * template without %p also matches the names that processes take when
 * another one holds the given name (gs_trace_alt_path: "run-<pid>.db"). */
static void record_report_outputs(const char *tmpl, pid_t child, const struct timespec *t0,
				  void (*each)(const char *path, void *arg), void *arg)
{
	char own[PATH_MAX], pat[2][PATH_MAX * 2];
	const char *why = NULL;
	char line[4096];
	size_t used = 0;
	int found = 0, n_pat = 1, k;
	size_t i;

	if (record_expand(tmpl, child, own, sizeof(own), &why) < 0 ||
	    record_expand(tmpl, 0, pat[0], sizeof(pat[0]), &why) < 0)
		return;
	if (!record_has_pid(tmpl) &&
	    gs_trace_alt_path(pat[0], "[0-9]*", pat[1], sizeof(pat[1])) == 0)
		n_pat = 2;
	line[0] = '\0';
	for (k = 0; k < n_pat; k++) {
		glob_t g;

		memset(&g, 0, sizeof(g));
		if (glob(pat[k], 0, NULL, &g) != 0) {
			globfree(&g);
			continue;
		}
		for (i = 0; i < g.gl_pathc; i++) {
			const char *p = g.gl_pathv[i];
			struct stat st;

			if (record_is_side_file(p) || stat(p, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			if (st.st_mtim.tv_sec < t0->tv_sec ||
			    (st.st_mtim.tv_sec == t0->tv_sec && st.st_mtim.tv_nsec < t0->tv_nsec))
				continue; /* left over from an earlier run */
			if (used + strlen(p) + 3 < sizeof(line))
				used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
							 found ? ", " : "", p);
			found++;
			if (each)
				each(p, arg);
		}
		globfree(&g);
	}
	if (found == 1)
		fprintf(stderr, "gapscope: trace written to %s\n", line);
	else if (found > 1)
		fprintf(stderr, "gapscope: %d traces written: %s\n", found, line);
	else
		fprintf(stderr,
			"gapscope: no trace written to %s (the program did not initialise CUDA, "
			"or the collector could not write; see any warning above)\n",
			own);
}

/*
 * Run gapscope-calibrate (beside the collector library) and put its figures
 * in GAPSCOPE_CALIBRATION for the collector to store (meta calibration.*).
 * It must not hold the program back: 60 s at most, then it is killed; any
 * failure only means the trace carries no calibration (one line says so).
 */
static void record_calibrate(const char *lib)
{
	char exe[PATH_MAX], line[4096];
	const char *slash = strrchr(lib, '/');
	size_t used = 0;
	int fd[2], status, waited = 0;
	pid_t pid;

	if (!slash || (size_t)(slash - lib) + sizeof("/gapscope-calibrate") > sizeof(exe))
		return;
	snprintf(exe, sizeof(exe), "%.*s/gapscope-calibrate", (int)(slash - lib), lib);
	if (access(exe, X_OK) != 0)
		return; /* a collector without it: no calibration, no word */
	if (pipe2(fd, O_CLOEXEC) != 0)
		return;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pid == 0) {
		/* its own messages (a machine without a GPU or driver) are not
		 * the user's business: one line below says what it means */
		int null = open("/dev/null", O_WRONLY);
		dup2(fd[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		struct pollfd p = {fd[0], POLLIN, 0};
		ssize_t n;
		int r = poll(&p, 1, 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			if (++waited >= 60) {
				kill(pid, SIGKILL);
				break;
			}
			continue;
		}
		n = read(fd[0], line + used, sizeof(line) - 1 - used);
		if (n <= 0)
			break;
		used += (size_t)n;
		if (used == sizeof(line) - 1)
			break;
	}
	close(fd[0]);
	line[used] = '\0';
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
	    !strncmp(line, "GAPSCOPE_CALIBRATION=", 21)) {
		line[strcspn(line, "\n")] = '\0';
		setenv("GAPSCOPE_CALIBRATION", line + 21, 1);
	} else if (WIFEXITED(status) &&
		   (WEXITSTATUS(status) == 77 || WEXITSTATUS(status) == 127)) {
		/* no GPU or no CUDA driver here (77), or it could not even be
		 * loaded without libcuda (127): the program will not use CUDA
		 * either, and record says so after it */
	} else {
		fprintf(stderr, "gapscope: warning: calibration failed; the report's figures "
				"will not be corrected for the collector's overhead\n");
	}
}

/* The start of a run, in *t0 and in GAPSCOPE_RECORD_START_NS. The kernel
 * stamps files with the coarse clock: compare like with like, here and in
 * the collector, which leaves alone a trace that a process of this run
 * wrote since. Returns setenv's result. */
static int record_mark_start(struct timespec *t0)
{
	char ns[24];

	clock_gettime(CLOCK_REALTIME_COARSE, t0);
	snprintf(ns, sizeof(ns), "%lld", (long long)t0->tv_sec * 1000000000LL + t0->tv_nsec);
	return setenv("GAPSCOPE_RECORD_START_NS", ns, 1);
}

/*
 * The program's own launch calls, timed from outside in the reference runs:
 * libgs_launch_interpose.so (collector/launch_interpose.c), found beside the
 * collector library, is preloaded into them and appends a line per process
 * to a file of ours; each trace of a run then gets its process's figures in
 * meta reference.launch_* (docs/schema.md), which the report's overhead
 * correction takes for the program's untraced launch instead of the
 * calibration's empty kernel (docs/collector.md). Nothing here may stop a
 * reference run: a failure says so once, and the traces then keep no launch
 * figures.
 */
struct launch_timer {
	char path[PATH_MAX]; /* GS_INTERPOSE_OUT */
	int fd;		     /* -1: off */
	int warned;
	int stored; /* traces given launch figures */
};

/* The interposer's line of process pid in t's file, its numbers into v in
 * the line's order (calls p25 p50 p75 spaced spaced_p50 spaced_mean b2b
 * b2b_p50 b2b_mean). Returns 1 when found. */
static int launch_timer_line(const struct launch_timer *t, long long pid, long long v[10])
{
	char line[512];
	FILE *f = fopen(t->path, "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		long long p;
		if (sscanf(
			line,
			"launch_interpose pid=%lld calls=%lld p25_ns=%lld p50_ns=%lld p75_ns=%lld "
			"spaced=%lld spaced_p50_ns=%lld spaced_mean_ns=%lld b2b=%lld "
			"b2b_p50_ns=%lld b2b_mean_ns=%lld",
			&p, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
			&v[9]) == 11 &&
		    p == pid)
			found = 1;
	}
	fclose(f);
	return found;
}

/* Give trace `path` its process's launch figures (a callback of
 * record_report_outputs; arg: the struct launch_timer). A process that made
 * too few launches to time has no line, and its trace no figures. */
static void launch_timer_store(const char *path, void *arg)
{
	static const char *const keys[] = {
	    "reference.launch_calls",	      "reference.launch_spaced_calls",
	    "reference.launch_spaced_p50_ns", "reference.launch_spaced_mean_ns",
	    "reference.launch_b2b_calls",     "reference.launch_b2b_mean_ns"};
	struct launch_timer *t = arg;
	struct trace tr;
	char err[256], *pid = NULL;
	long long v[10];

	if (trace_open(&tr, path, err, sizeof(err)) == 0) {
		pid = trace_meta(&tr, "pid");
		trace_close(&tr);
	}
	if (pid && launch_timer_line(t, strtoll(pid, NULL, 10), v)) {
		const int64_t val[] = {v[0], v[4], v[5], v[6], v[7], v[9]};
		if (trace_meta_put_ints(path, keys, val, sizeof(keys) / sizeof(keys[0]), err,
					sizeof(err)) == 0)
			t->stored++;
		else if (!t->warned) {
			fprintf(
			    stderr,
			    "gapscope: warning: cannot store the launch times of a reference run "
			    "in %s (%s); the report corrects with the calibration's launch "
			    "instead\n",
			    path, err);
			t->warned = 1;
		}
	}
	free(pid);
}

/* Preload the launch timer beside collector library lib into the runs to
 * come, where there is one (t->fd >= 0 then). */
static void launch_timer_start(struct launch_timer *t, const char *lib)
{
	const char *slash = strrchr(lib, '/'), *tmp = getenv("TMPDIR"), *old = getenv("LD_PRELOAD");
	const char *asan;
	char so[PATH_MAX], *pre = NULL, *opts = NULL;
	size_t n;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (!slash || (size_t)(slash - lib) + sizeof("/libgs_launch_interpose.so") > sizeof(so))
		return;
	snprintf(so, sizeof(so), "%.*s/libgs_launch_interpose.so", (int)(slash - lib), lib);
	if (access(so, R_OK) != 0)
		return; /* a collector without it: the calibration's launch, no word */
	snprintf(t->path, sizeof(t->path), "%s/gapscope-launch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	t->fd = mkstemp(t->path);
	n = strlen(so) + (old ? strlen(old) : 0) + 2;
	if (t->fd >= 0)
		pre = malloc(n);
	if (pre)
		snprintf(pre, n, "%s%s%s", so, old && *old ? ":" : "", old ? old : "");
	/* a program built with AddressSanitizer refuses to start when a
	 * preloaded library comes before its runtime, which the interposer
	 * (no allocation, no sanitizer) does not need: that check only */
	asan = getenv("ASAN_OPTIONS");
	n = (asan ? strlen(asan) : 0) + sizeof(":verify_asan_link_order=0");
	opts = pre ? malloc(n) : NULL;
	if (opts)
		snprintf(opts, n, "%s%sverify_asan_link_order=0", asan ? asan : "",
			 asan && *asan ? ":" : "");
	if (!opts || setenv("LD_PRELOAD", pre, 1) || setenv("GS_INTERPOSE_OUT", t->path, 1) ||
	    setenv("ASAN_OPTIONS", opts, 1)) {
		fprintf(stderr,
			"gapscope: warning: cannot time the launch calls of the reference runs "
			"(%s); the report corrects with the calibration's launch instead\n",
			strerror(errno));
		if (t->fd >= 0) {
			unlink(t->path);
			close(t->fd);
		}
		t->fd = -1;
	}
	free(pre);
	free(opts);
}

/* Before a run: the interposer appends, so the file starts empty (were it
 * not, an earlier run's line would have another pid, matching no trace). */
static void launch_timer_reset(struct launch_timer *t)
{
	if (t->fd >= 0 && ftruncate(t->fd, 0) != 0) {
		/* see above */
	}
}

/* After the last run: where no trace got launch figures, say why once */
static void launch_timer_stop(struct launch_timer *t, int done)
{
	if (t->fd < 0)
		return;
	if (done && !t->stored && !t->warned)
		fprintf(stderr,
			"gapscope: the reference runs made no launch call the dynamic linker "
			"could time (200 or fewer, or a CUDA runtime linked statically); the "
			"report corrects with the calibration's launch\n");
	unlink(t->path);
	close(t->fd);
	t->fd = -1;
}

/*
 * The reference runs of --reference: the same program n more times with
 * the collector recording NVTX ranges only (next to no overhead), so the
 * report can tell how far tracing stretched each range. Run k writes to
 * the reference template of abs_tmpl (the program's) and is named after
 * that of tmpl (the user's, as the traced run's trace is). Returns the
 * exit status of record: 0, or that of the first run that fails.
 */
static int record_reference_runs(char *const argv[], int n, const char *tmpl, const char *abs_tmpl,
				 const char *lib)
{
	char ref[PATH_MAX * 2 + 16], abs_ref[PATH_MAX * 2 + 16], what[48];
	struct launch_timer timer;
	struct timespec t0;
	int k, rc, status;
	pid_t pid;

	/* whatever the traced run was given, these runs stay untraced: NVTX
	 * ranges only, no call sites, no latency timestamps, no GRAPH_TRACE
	 * (graph-level mode enables it whatever the activities), and no
	 * calibration, which is about the traced run's overhead */
	if (setenv("GAPSCOPE_ACTIVITIES", "nvtx", 1) || setenv("GAPSCOPE_CALLSITES", "0", 1) ||
	    setenv("GAPSCOPE_SAMPLING", "0", 1) ||
	    unsetenv("GAPSCOPE_LATENCY") || unsetenv("GAPSCOPE_GRAPH_LEVEL") ||
	    unsetenv("GAPSCOPE_CALIBRATION")) {
		gs_error("record", "cannot set the environment: %s", strerror(errno));
		return GS_EXIT_INTERNAL;
	}
	launch_timer_start(&timer, lib);
	for (k = 1; k <= n; k++) {
		if (record_ref_template(tmpl, k, ref, sizeof(ref)) < 0 ||
		    record_ref_template(abs_tmpl, k, abs_ref, sizeof(abs_ref)) < 0) {
			gs_error(tmpl, "output path too long for the reference runs");
			return GS_EXIT_INTERNAL;
		}
		/* each run is a run of its own for the collector's "a process
		 * of this run wrote it" and for naming what it wrote */
		if (setenv("GAPSCOPE_OUTPUT", abs_ref, 1) || record_mark_start(&t0)) {
			gs_error("record", "cannot set the environment: %s", strerror(errno));
			return GS_EXIT_INTERNAL;
		}
		fprintf(stderr, "gapscope: untraced reference run %d of %d (NVTX ranges only%s)\n",
			k, n, timer.fd >= 0 ? "; launch calls timed from outside" : "");
		launch_timer_reset(&timer);
		rc = record_run(argv, &pid, &status);
		if (rc) {
			launch_timer_stop(&timer, 0);
			return rc;
		}
		record_report_outputs(ref, pid, &t0, timer.fd >= 0 ? launch_timer_store : NULL,
				      &timer);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			record_describe_status(status, what, sizeof(what));
			fprintf(stderr, "gapscope: untraced reference run %d of %d failed (%s)%s\n",
				k, n, what,
				k < n ? "; the remaining reference runs were skipped" : "");
			launch_timer_stop(&timer, 0);
			return record_exit_status(status);
		}
	}
	launch_timer_stop(&timer, 1);
	return GS_EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"activities", required_argument, NULL, 'a'},
	    {"latency", no_argument, NULL, 'l'},
	    {"no-callsites", no_argument, NULL, 'S'},
	    {"no-sampling", no_argument, NULL, 'P'},
	    {"sampling", no_argument, NULL, 'Q'},
	    {"sample-rate", required_argument, NULL, 'r'},
	    {"graph-level", no_argument, NULL, 'g'},
	    {"no-calibrate", no_argument, NULL, 'C'},
	    {"capture-range", required_argument, NULL, 'c'},
	    {"flush-ms", required_argument, NULL, 'f'},
	    {"buffer-kb", required_argument, NULL, 'b'},
	    {"log", required_argument, NULL, 'L'},
	    {"reference", required_argument, NULL, 'R'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *output = NULL, *activities = NULL, *log = NULL;
	const char *flush = NULL, *buffer = NULL, *reference = NULL, *tmpl, *why = NULL, *old;
	const char *capture = NULL, *sample_rate = NULL;
	int no_sampling = 0;
	char lib[PATH_MAX], probe[PATH_MAX], dir[PATH_MAX], abs_tmpl[PATH_MAX * 2];
	struct timespec t0;
	char what[48];
	int latency = 0, graph_level = 0, calibrate = 1, c, status, rc, no_callsites = 0;
	long v, n_ref = 0;
	pid_t pid;

	/* '+': stop at the program's name, so its own options are left alone. */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'a': activities = optarg; break;
		case 'l': latency = 1; break;
		case 'S': no_callsites = 1; break;
		case 'P': no_sampling = 1; break;
		case 'Q': no_sampling = -1; break;
		case 'r': sample_rate = optarg; break;
		case 'g': graph_level = 1; break;
		case 'C': calibrate = 0; break;
		case 'c': capture = optarg; break;
		case 'f': flush = optarg; break;
		case 'b': buffer = optarg; break;
		case 'L': log = optarg; break;
		case 'R': reference = optarg; break;
		case 'h': record_help(); return GS_EXIT_OK;
		case ':':
			gs_error("record",
				 "option '%s' needs a value; see 'gapscope record --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		default:
			gs_error("record", "unknown option '%s'; see 'gapscope record --help'",
				 argv[optind - 1]);
			return GS_EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc) {
		gs_error("record", "no program given; usage: gapscope record [options] [--] "
				   "program [args...]");
		return GS_EXIT_BAD_INPUT;
	}
	if (activities && record_check_activities(activities) < 0)
		return GS_EXIT_BAD_INPUT;
	if (sample_rate && record_parse_uint("--sample-rate", sample_rate, 1, 10000L, &v) < 0)
		return GS_EXIT_BAD_INPUT; /* as GAPSCOPE_SAMPLE_HZ */
	if (flush &&
	    record_parse_uint("--flush-ms", flush, 0, 3600000L, &v) < 0) /* as GAPSCOPE_FLUSH_MS */
		return GS_EXIT_BAD_INPUT;
	/* Same bounds as the collector's GAPSCOPE_BUFFER_KB (64 KiB .. 1 GiB). */
	if (buffer && record_parse_uint("--buffer-kb", buffer, 64, 1048576L, &v) < 0)
		return GS_EXIT_BAD_INPUT;
	if (reference && record_parse_uint("--reference", reference, 1, 9, &n_ref) < 0)
		return GS_EXIT_BAD_INPUT;
	/* the collector's GAPSCOPE_CAPTURE_RANGE values */
	if (capture && strcasecmp(capture, "cudaProfilerApi") && strcasecmp(capture, "none")) {
		gs_error("record",
			 "--capture-range: unknown range '%s' (use cudaProfilerApi, or none for "
			 "the whole run)",
			 capture);
		return GS_EXIT_BAD_INPUT;
	}
	if (log && !record_in_list(log, strlen(log), record_log_levels,
				   sizeof(record_log_levels) / sizeof(record_log_levels[0]))) {
		gs_error("record", "--log: unknown level '%s' (use quiet, warn, info or debug)",
			 log);
		return GS_EXIT_BAD_INPUT;
	}
	if (output && !*output) {
		/* an empty -o silently recorded to the default path */
		gs_error("record", "-o needs a file name (or template), not an empty string");
		return GS_EXIT_BAD_INPUT;
	}
	tmpl = output ? output : getenv("GAPSCOPE_OUTPUT");
	if (!tmpl || !*tmpl)
		tmpl = RECORD_DEFAULT_OUTPUT;
	if (record_expand(tmpl, getpid(), probe, sizeof(probe), &why) < 0) {
		gs_error(tmpl, "bad output template: %s", why);
		return GS_EXIT_BAD_INPUT;
	}
	{
		/* a folder as the trace: the collector could not open it and
		 * the run would end with no trace */
		struct stat st;
		size_t pl = strlen(probe);
		int is_dir = pl && probe[pl - 1] == '/';
		if (is_dir || (stat(probe, &st) == 0 && S_ISDIR(st.st_mode))) {
			gs_error(tmpl, "is a directory; -o names the trace file (e.g. %s/run.db)",
				 tmpl);
			return GS_EXIT_BAD_INPUT;
		}
	}
	/* the collector writes the trace in WAL mode: SQLite makes
	 * <name>-wal and <name>-shm beside it, 4 bytes longer */
	if (gs_cli_check_output_name(probe, 4) != 0)
		return GS_EXIT_BAD_INPUT;
	if (!record_dir_exists(tmpl, dir, sizeof(dir))) {
		gs_error(dir, "output folder does not exist");
		return GS_EXIT_BAD_INPUT;
	}
	/* The collector replaces the file at the output name (a trace of an
	 * earlier run). Anything else there is the user's (a source file, an
	 * Nsight Systems export named by a slip of -o): refused before the
	 * program runs. */
	if (gs_cli_output_is_foreign(probe)) {
		gs_error(probe, "exists and is not a gapscope trace: not replaced; give the trace "
				"another name (or remove the file)");
		return GS_EXIT_BAD_INPUT;
	}
	if (record_find_lib(lib, sizeof(lib), 0) < 0)
		return GS_EXIT_BAD_INPUT;
	errno = 0;
	if (record_absolute_template(tmpl, abs_tmpl, sizeof(abs_tmpl)) < 0) {
		gs_error(tmpl, "cannot make the output path absolute: %s",
			 errno ? strerror(errno) : "path too long");
		return GS_EXIT_BAD_INPUT;
	}

	/* Another injection (e.g. Nsight Systems') would be replaced: say so. */
	old = getenv("CUDA_INJECTION64_PATH");
	if (old && *old && strcmp(old, lib))
		fprintf(stderr,
			"gapscope: warning: CUDA_INJECTION64_PATH was %s; replaced by the gapscope "
			"collector (only one CUDA injection library can be active)\n",
			old);
	if (setenv("CUDA_INJECTION64_PATH", lib, 1) || setenv("NVTX_INJECTION64_PATH", lib, 1) ||
	    setenv("GAPSCOPE_OUTPUT", abs_tmpl, 1) || record_mark_start(&t0) ||
	    (activities && setenv("GAPSCOPE_ACTIVITIES", activities, 1)) ||
	    (latency && setenv("GAPSCOPE_LATENCY", "1", 1)) ||
	    (no_callsites && setenv("GAPSCOPE_CALLSITES", "0", 1)) ||
	    (no_sampling > 0 && setenv("GAPSCOPE_SAMPLING", "0", 1)) ||
	    (no_sampling < 0 && setenv("GAPSCOPE_SAMPLING", "1", 1)) ||
	    (sample_rate && setenv("GAPSCOPE_SAMPLE_HZ", sample_rate, 1)) ||
	    (graph_level && setenv("GAPSCOPE_GRAPH_LEVEL", "1", 1)) ||
	    (capture && setenv("GAPSCOPE_CAPTURE_RANGE", capture, 1)) ||
	    (flush && setenv("GAPSCOPE_FLUSH_MS", flush, 1)) ||
	    (buffer && setenv("GAPSCOPE_BUFFER_KB", buffer, 1)) ||
	    (log && setenv("GAPSCOPE_LOG", log, 1))) {
		gs_error("record", "cannot set the environment: %s", strerror(errno));
		return GS_EXIT_INTERNAL;
	}

	/* before the program, with the collector's settings in the environment
	 * but not yet injected (the calibration drives CUPTI itself) */
	unsetenv("GAPSCOPE_CALIBRATION");
	if (calibrate) {
		unsetenv("CUDA_INJECTION64_PATH");
		record_calibrate(lib);
		if (setenv("CUDA_INJECTION64_PATH", lib, 1)) {
			gs_error("record", "cannot set the environment: %s", strerror(errno));
			return GS_EXIT_INTERNAL;
		}
	}

	rc = record_run(argv + optind, &pid, &status);
	if (rc)
		return rc;
	record_report_outputs(tmpl, pid, &t0, NULL, NULL);
	if (WIFSIGNALED(status) && n_ref <= 0)
		/* (with reference runs, the line below says it) its trace was not finalized;
		 * without this line "trace written" read as a whole run (a SIGFPE in the collector
		 * at the first capture window went unseen, 2026-12-07) */
		fprintf(stderr,
			"gapscope: the program was killed by signal %d (%s); a trace it was "
			"writing may be unfinished (`gapscope info` says whether it was "
			"finalized)\n",
			WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (n_ref > 0) {
		/* a reference for a run that failed would compare nothing */
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			return record_reference_runs(argv + optind, (int)n_ref, tmpl, abs_tmpl,
						     lib);
		record_describe_status(status, what, sizeof(what));
		fprintf(stderr,
			"gapscope: the program failed (%s); the untraced reference runs were "
			"skipped\n",
			what);
	}
	return record_exit_status(status);
}
