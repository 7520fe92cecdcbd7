/*
 * writer_throughput.c - how fast the collector's writer turns CUPTI activity
 * buffers into a trace database on disk.
 *
 * Builds synthetic buffers of real CUPTI record structs first (a
 * launch-bound mix: per launch one runtime API record and one
 * CUpti_ActivityKernel10, plus a memcpy every 16 launches), then - timed -
 * hands them to the same pipeline the collector uses (queue -> writer thread
 * -> decode -> SQLite, one transaction per batch) and waits until everything
 * is committed, then finalizes (indexes, derived rows, journal switch).
 * Prints records/s by wall clock and by CPU time (the process's CPU time in
 * the timed phase, where only the writer's two threads work - decode and
 * SQLite, see pipeline.c - split into user and system time with the page
 * faults and the WAL size at the end of the recording phase, to tell
 * SQLite's own work from page-cache copies, page faults and checkpoints),
 * each stage's own CPU time (from /proc/self/task: the SQLite stage's
 * figure is the rate the writer can sustain with a core of its own, and
 * holds better than wall time when other jobs share the cores), the
 * finalize time with the same split, and the file size. It prints figures;
 * it asserts nothing.
 *
 * The kernels of the default mix share one launch configuration (grid,
 * block, registers, shared memory), so most of their columns repeat from
 * row to row, which the writer exploits (writer.c, row_filled);
 * "varied" gives each of the four kernel names its own configuration, as
 * real traces do, and every 8th launch a driver API record.
 *
 * usage: writer_throughput [records (default 4000000)] [output.db] [uniform|varied]
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define BUF_BYTES (8u << 20) /* GAPSCOPE_BUFFER_KB's default */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Process CPU time split into user and system (kernel: page faults, copies
 * into the page cache) and the minor page faults so far. */
struct cpu {
	double user, sys; /* s */
	long minflt;	  /* minor page faults */
};

static struct cpu cpu_now(void)
{
	struct rusage ru;
	struct cpu c;

	getrusage(RUSAGE_SELF, &ru);
	c.user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
	c.sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	c.minflt = ru.ru_minflt;
	return c;
}

/* CPU time (s) of this process's thread named `comm` (pipeline.c names
 * its threads), or -1 when there is none. */
static double thread_cpu(const char *comm)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	double t = -1;

	if (!dir)
		return -1;
	while ((e = readdir(dir)) != NULL) {
		char p[300], name[64] = "", stat[1024];
		unsigned long ut, st;
		const char *c;
		FILE *f;
		size_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		fclose(f);
		name[strcspn(name, "\n")] = '\0';
		if (strcmp(name, comm) != 0)
			continue;
		snprintf(p, sizeof(p), "/proc/self/task/%s/stat", e->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		n = fread(stat, 1, sizeof(stat) - 1, f);
		fclose(f);
		stat[n] = '\0';
		/* fields 14 and 15 (utime, stime) follow the ")" that ends
		 * field 2 */
		c = strrchr(stat, ')');
		if (c && sscanf(c + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
				&st) == 2)
			t = (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
	}
	closedir(dir);
	return t;
}

static const char *api_name(int api, uint32_t cbid, void *ctx)
{
	(void)ctx;
	if (api == GS_API_DRIVER)
		return cbid == 307 ? "cuLaunchKernel" : "cuMemcpyDtoHAsync_v2";
	return cbid == 211 ? "cudaLaunchKernel_v7000" : "cudaMemcpyAsync_v3020";
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 4000000;
	const char *path = argc > 2 ? argv[2] : "writer_throughput.db";
	int varied = argc > 3 && strcmp(argv[3], "varied") == 0;
	static const char *const names[] = {
	    "_Z10short_kernelPfi",
	    /* long names are split on purpose: the parentheses tell clang
	     * (-Wstring-concatenation) that no comma is missing */
	    ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
	     "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() "
	     "const::{lambda()#2}::operator()() const::{lambda(float)#1}, "
	     "at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl, "
	     "at::detail::Array<char*, 2>)"),
	    ("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_"
	     "execute_segment_k_off_kernel__5x_cublas"),
	    "_Z6reduceILi256EEvPKfPfi",
	};
	struct gs_writer *w;
	struct gs_decoder d;
	struct gs_pipeline *p;
	char err[256];
	long made = 0, launches = 0;
	uint64_t ts = 1000000000ull;
	double t0, t1, t2;
	double sq0, sq1, de0, de1; /* s: CPU time of the SQLite and decode stages */
	struct cpu c0, c1, c2;
	char wal[4200];
	double wal_bytes;
	struct stat st;
	int nbuf = 0, i;
	uint8_t **bufs = NULL;
	size_t *lens = NULL;

	if (total <= 0 || (argc > 3 && !varied && strcmp(argv[3], "uniform") != 0)) {
		fprintf(stderr, "usage: %s [records] [output.db] [uniform|varied]\n", argv[0]);
		return 2;
	}
	if (gs_writer_open(&w, path, 0, err, sizeof(err)) != 0) {
		fprintf(stderr, "writer_throughput: %s\n", err);
		return 1;
	}
	gs_decoder_init(&d, w, 0, gs_synthetic_next, api_name, NULL);
	/* Never drop here: we measure the writer, not the queue bound. */
	if (gs_pipeline_start(&p, &d, 1u << 20, BUF_BYTES) != 0)
		return 1;

	while (made < total) {
		uint8_t *buf = gs_buffer_alloc(BUF_BYTES);
		size_t used = 0, nu;
		bufs = realloc(bufs, (size_t)(nbuf + 1) * sizeof(*bufs));
		lens = realloc(lens, (size_t)(nbuf + 1) * sizeof(*lens));
		if (!buf || !bufs || !lens)
			return 1;
		for (;;) {
			CUpti_ActivityAPI a;
			CUpti_ActivityKernel10 k;
			uint32_t corr = (uint32_t)launches + 1;

			if (made >= total)
				break;
			memset(&a, 0, sizeof(a));
			a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
			a.cbid = 211;
			if (varied && launches % 8 == 7) { /* cuLaunchKernel, as cuBLAS calls */
				a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
				a.cbid = 307;
			}
			a.start = ts;
			a.end = ts + 2500;
			a.processId = 4242;
			a.threadId = 4243;
			a.correlationId = corr;
			nu = gs_synthetic_append(buf, BUF_BYTES, used, &a, sizeof(a));
			if (!nu)
				break;
			used = nu;
			made++;

			memset(&k, 0, sizeof(k));
			k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
			k.start = ts + 4000;
			k.end = ts + 6500;
			k.deviceId = 0;
			k.contextId = 1;
			k.streamId = 7;
			k.correlationId = corr;
			k.gridX = 977;
			k.gridY = k.gridZ = 1;
			k.blockX = 512;
			k.blockY = k.blockZ = 1;
			k.registersPerThread = 16;
			k.name = names[launches % 4];
			if (varied) {
				int n = (int)(launches % 4);
				k.gridX = (uint32_t)(977 + 1000 * n);
				k.gridY = (uint32_t)(1 + n % 2);
				k.blockX = (int32_t)(128 << n);
				k.registersPerThread = (uint16_t)(16 + 24 * n);
				k.staticSharedMemory = (int32_t)(1024 * n);
				k.dynamicSharedMemory = (int32_t)(n == 2 ? 49152 : 0);
			}
			nu = gs_synthetic_append(buf, BUF_BYTES, used, &k, sizeof(k));
			if (!nu)
				break;
			used = nu;
			made++;

			if (launches % 16 == 15 && made < total) {
				CUpti_ActivityMemcpy6 m;
				memset(&m, 0, sizeof(m));
				m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
				m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
				m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
				m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
				m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
				m.bytes = 4096;
				m.start = ts + 7000;
				m.end = ts + 8000;
				m.streamId = 7;
				m.correlationId = corr;
				nu = gs_synthetic_append(buf, BUF_BYTES, used, &m, sizeof(m));
				if (!nu)
					break;
				used = nu;
				made++;
			}
			launches++;
			ts += 5000;
		}
		memset(buf + used, 0, BUF_BYTES - used); /* touch every page now */
		bufs[nbuf] = buf;
		lens[nbuf] = used;
		nbuf++;
	}

	t0 = now_s();
	c0 = cpu_now();
	sq0 = thread_cpu("gs-sqlite");
	de0 = thread_cpu("gs-decode");
	for (i = 0; i < nbuf; i++)
		gs_pipeline_submit(p, bufs[i], BUF_BYTES, lens[i]);
	gs_pipeline_sync(p, 0);
	t1 = now_s();
	c1 = cpu_now();
	sq1 = thread_cpu("gs-sqlite");
	de1 = thread_cpu("gs-decode");
	snprintf(wal, sizeof(wal), "%s-wal", path);
	wal_bytes = stat(wal, &st) == 0 ? (double)st.st_size : 0;
	free(bufs);
	free(lens);
	if (gs_pipeline_dropped(p) != 0)
		fprintf(stderr, "writer_throughput: %llu records dropped\n",
			(unsigned long long)gs_pipeline_dropped(p));
	gs_pipeline_stop(p);
	gs_decoder_flush_nvtx(&d, 1, ts);
	gs_decoder_free(&d);
	if (gs_writer_finalize(w, ts) != 0) {
		fprintf(stderr, "writer_throughput: finalize failed\n");
		return 1;
	}
	t2 = now_s();
	c2 = cpu_now();
	if (stat(path, &st) != 0)
		st.st_size = 0;
	printf("records:            %ld (%ld launches, %d buffers of %u MiB, %s mix)\n", made,
	       launches, nbuf, BUF_BYTES >> 20, varied ? "varied" : "uniform");
	printf("recording (wall):   %.3f s  %.2f M records/s  (decode + insert + commit)\n",
	       t1 - t0, (double)made / (t1 - t0) / 1e6);
	printf("recording (CPU):    %.3f s  %.2f M records/s  (user %.3f s, sys %.3f s, "
	       "%ld page faults, WAL %.1f MiB)\n",
	       c1.user + c1.sys - c0.user - c0.sys,
	       (double)made / (c1.user + c1.sys - c0.user - c0.sys) / 1e6, c1.user - c0.user,
	       c1.sys - c0.sys, c1.minflt - c0.minflt, (double)wal_bytes / (1 << 20));
	if (sq0 >= 0 && sq1 > sq0)
		printf(
		    "stages (CPU):       SQLite %.2f s  %.2f M records/s;  decode %.2f s  %.2f M "
		    "records/s  (clock ticks of %ld Hz)\n",
		    sq1 - sq0, (double)made / (sq1 - sq0) / 1e6, de1 - de0,
		    de1 > de0 ? (double)made / (de1 - de0) / 1e6 : 0.0, sysconf(_SC_CLK_TCK));
	printf("finalize:           %.3f s  (indexes, derived rows, WAL -> DELETE; user %.3f s, "
	       "sys %.3f s, %ld page faults)\n",
	       t2 - t1, c2.user - c1.user, c2.sys - c1.sys, c2.minflt - c1.minflt);
	printf("end to end:         %.2f M records/s\n", (double)made / (t2 - t0) / 1e6);
	printf("file:               %s, %.1f MiB (%.1f bytes/record)\n", path,
	       (double)st.st_size / (1 << 20), (double)st.st_size / (double)made);
	if (argc <= 2)
		unlink(path);
	return 0;
}
