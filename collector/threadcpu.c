/*
 * threadcpu.c - the CPU time of the recorded process's threads, by name
 * (see internal.h): what the program's own threads, CUPTI's and ours spent
 * while it was recorded. Read once, at the end of recording, from
 * /proc/self/task/<tid>/stat; nothing on the program's CUDA calls.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* utime + stime of one /proc/.../stat line, in clock ticks, and its comm
 * (between the first '(' and the last ')': a name may hold either). 0, or
 * -1 when the line is not a stat line. */
int gs_parse_stat(const char *line, char *comm, size_t comm_len, long long *ticks)
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')'), *p;
	unsigned long long ut, st;
	size_t n;
	int field;

	if (!open || !close || close < open || comm_len == 0)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= comm_len)
		n = comm_len - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	/* after ") ": state is field 3, utime 14, stime 15 (proc(5)) */
	p = close + 1;
	for (field = 3; field < 14; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -1;
	}
	if (sscanf(p, " %llu %llu", &ut, &st) != 2)
		return -1;
	*ticks = (long long)(ut + st);
	return 0;
}

/* clock ticks to ns */
static int64_t ticks_ns(long long ticks)
{
	long tck = sysconf(_SC_CLK_TCK);

	return ticks * (1000000000LL / (tck > 0 ? tck : 100));
}

int64_t gs_stat_cpu_ns(const char *stat_path)
{
	char line[1024], comm[32];
	long long ticks;
	FILE *f = fopen(stat_path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) && gs_parse_stat(line, comm, sizeof(comm), &ticks) == 0;
	fclose(f);
	return ok ? ticks_ns(ticks) : -1;
}

static int by_cpu(const void *a, const void *b)
{
	const struct gs_thread_cpu *x = a, *y = b;

	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

int gs_thread_cpu_scan(const char *task_dir, struct gs_thread_cpu *out, int max)
{
	struct gs_thread_cpu *all = NULL, *grown;
	struct dirent *e;
	int n = 0, cap = 0, i;
	DIR *d;

	if (max <= 0 || !(d = opendir(task_dir)))
		return -1;
	while ((e = readdir(d))) {
		char path[512], line[1024], comm[sizeof(out->name)];
		long long ticks;
		FILE *f;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", task_dir, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* the thread ended since readdir */
		if (!fgets(line, sizeof(line), f) ||
		    gs_parse_stat(line, comm, sizeof(comm), &ticks) != 0) {
			fclose(f);
			continue;
		}
		fclose(f);
		for (i = 0; i < n && strcmp(all[i].name, comm); i++)
			;
		if (i == n) {
			if (n == cap) {
				cap = cap ? 2 * cap : 32;
				grown = realloc(all, (size_t)cap * sizeof(*all));
				if (!grown)
					break; /* out of memory: the names so far */
				all = grown;
			}
			memset(&all[n], 0, sizeof(all[n]));
			memcpy(all[n].name, comm, sizeof(comm));
			n++;
		}
		all[i].cpu_ns += ticks_ns(ticks);
		all[i].threads++;
	}
	closedir(d);
	if (n)
		qsort(all, (size_t)n, sizeof(*all), by_cpu);
	if (n > max)
		n = max; /* the largest */
	if (n)
		memcpy(out, all, (size_t)n * sizeof(*out));
	free(all);
	return n;
}
