/*
 * api_source.cu - gs_bench_api_source: what recording the runtime's calls
 * costs, by where the records come from (issue 18). On the H200 a query call
 * (cudaGetDevice, cudaGetLastError, ...) costs ~0.46 us more while CUPTI
 * traces runtime calls, even with the query calls' own records switched off,
 * and nothing when only kernels are traced (docs/collector.md, "Overhead
 * correction"); PyTorch makes ~5 of them per kernel. Whether runtime calls
 * could be recorded from the collector's own callbacks, enabled for every
 * call but the queries, without that cost is what this program measures.
 *
 *   gs_bench_api_source MODE
 *
 * MODE, one per process (CUPTI set up once stays in a process):
 *   plain              no CUPTI at all
 *   kernel             CONCURRENT_KERNEL records only
 *   kernel_runtime     + CUPTI's RUNTIME records (the collector's way)
 *   kernel_callbacks   + a runtime callback on every call but the three
 *                      query calls below: enter/exit timestamps and a
 *                      48-byte row into a thread-local buffer (what a
 *                      callback-made record would cost)
 *   callbacks_only     the callbacks alone, no kernel records
 *   runtime_only       CUPTI's RUNTIME records alone, no kernel records
 *   kernel_runtime_subset  kernel records + runtime records switched on
 *                      call by call (cuptiActivityEnableRuntimeApi) for the
 *                      launch, stream, event, copy and sync calls only,
 *                      without the RUNTIME kind
 *   kernel_runtime_allbut  the same for every runtime call id but the three
 *                      query calls
 *   kernel_runtime_sync    kernel_runtime + SYNCHRONIZATION records
 *   kernel_runtime_event   kernel_runtime + CUDA_EVENT records
 *   kernel_runtime_stream  kernel_runtime + STREAM records
 *   kernel_runtime_memcpy  kernel_runtime + MEMCPY, MEMCPY2, MEMSET records
 *   kernel_runtime_overhead  kernel_runtime + OVERHEAD records
 *   default_set        the collector's default kinds (all of the above)
 *   default_no_sync_event_stream  the default kinds less SYNCHRONIZATION,
 *                      CUDA_EVENT and STREAM
 *   kr_synccb_*        kernel_runtime + callbacks on the sync and event-record
 *                      calls the collector makes rows from (sync_calls in
 *                      collector.c): _rt_empty runtime ids, returning at once;
 *                      _all_empty runtime and driver ids, returning at once;
 *                      _all_full both, with the collector's CUPTI queries
 *                      (timestamps, context, device and stream ids); _rt_ctx,
 *                      _rt_stream, _rt_time one of those queries alone
 *   kernel_latency     kernel records with CUPTI's latency timestamps (queued,
 *                      submitted), no runtime records: whether a kernel's
 *                      queued time could stand in for its launch call's
 *   kernel_runtime_latency  kernel_runtime with latency timestamps
 *   kernel_runtime_tsc kernel_runtime with CUPTI's CPU timestamps taken from
 *                      a callback that reads the TSC (rdtsc, not scaled to ns:
 *                      the records' times are wrong, only the cost counts)
 *                      instead of clock_gettime(CLOCK_REALTIME): what CUPTI's
 *                      own timestamps cost a launch
 *   kernel_runtime_rt  the same with a callback that reads CLOCK_REALTIME
 *                      (the clock CUPTI documents for its own; the collector's
 *                      GAPSCOPE_CLOCK=realtime)
 *   kernel_runtime_drvlaunch  kernel_runtime + the driver's launch calls'
 *                      records (cuptiActivityEnableDriverApi, as the
 *                      collector: a runtime launch's nested cuLaunchKernel
 *                      is recorded too)
 *   drvlaunch_only     the driver's launch records alone: what the
 *                      collector leaves on outside the windows of
 *                      --capture-range
 * Prints "mode=M variant=V per_launch_us=X" for
 *   empty_256      back-to-back launches of an empty kernel, rounds of 256
 *   getdev_256     the same with 5 cudaGetDevice() calls before each launch
 *   lasterror_256  the same with cudaGetLastError() after each launch
 *   sync_256       each launch followed by cudaStreamSynchronize()
 *   graph_1000     a CUDA graph of 1000 empty kernels (stream capture, made
 *                  once), replayed and synchronised: us per node (what the
 *                  per-node kernel records cost graph replays, CUPTI alone)
 * (the median over 15 rounds of the round's wall time over its launches),
 * then "rows=N" (callback rows made, 0 without callbacks) and "PASS". Exit 1
 * on a CUDA or CUPTI error, 2 on a bad mode, 77 without a device. It judges
 * no timings: bench/overhead/api_source.py runs the modes interleaved and prints the
 * ratios. Run on the H200 2026-12-04 (runs r23, r24; docs/collector.md).
 */
#include <cupti.h>
#include <stdint.h>
#include <x86intrin.h>
#include <string.h>

#define BENCH_NAME "api_source"
#include "../bench_common.h"

#define ROUNDS 15
#define WARMUP 2
#define PER 256

#define CUPTI_CHECK(call)                                                                          \
	do {                                                                                       \
		CUptiResult r_ = (call);                                                           \
		if (r_ != CUPTI_SUCCESS) {                                                         \
			const char *s_ = NULL;                                                     \
			cuptiGetResultString(r_, &s_);                                             \
			fprintf(stderr, "api_source: %s: %s (line %d)\n", #call, s_ ? s_ : "?",    \
				__LINE__);                                                         \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void api_source_empty(void)
{
}

enum extra { NONE, GET_DEVICE, LAST_ERROR, SYNC_EACH, GRAPH_1000 };

/* ------------------------------------------------------------- CUPTI side */

static void CUPTIAPI buf_req(uint8_t **b, size_t *size, size_t *max)
{
	*size = 8 << 20;
	*b = (uint8_t *)aligned_alloc(8, *size);
	*max = 0;
}

static void CUPTIAPI buf_done(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid)
{
	(void)c;
	(void)s;
	(void)size;
	(void)valid;
	free(b); /* what the records say is not this program's question */
}

/* A row as a callback-made API record would hold it. */
struct row {
	uint64_t start, end;
	uint32_t cbid, corr, tid, ret;
	uint64_t pad[2];
};

#define ROWS 4096
static __thread struct row rows[ROWS];
static __thread unsigned n_rows;
static unsigned long long rows_made; /* summed at exit of each round; one thread */

static void CUPTIAPI on_api(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			    const void *data)
{
	const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
	uint64_t t = 0;

	(void)ud;
	(void)dom;
	cuptiGetTimestamp(&t);
	if (cb->callbackSite == CUPTI_API_ENTER) {
		*cb->correlationData = t;
	} else {
		struct row *r = &rows[n_rows++ % ROWS];
		r->start = *cb->correlationData;
		r->end = t;
		r->cbid = cbid;
		r->corr = cb->correlationId;
		r->tid = 0;
		r->ret = cb->functionReturnValue ? *(const uint32_t *)cb->functionReturnValue : 0;
		rows_made++;
	}
}

static int is_query(CUpti_CallbackId id)
{
	return id == CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020 ||
	       id == CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020 ||
	       id == CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020;
}

/* the calls the collector needs records of, for the subset mode */
static const CUpti_CallbackId subset[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
};

enum runtime_how { RT_NONE, RT_KIND, RT_SUBSET, RT_ALL_BUT };

/* extra activity kinds of the collector's default set */
enum {
	K_SYNC = 1,	/* SYNCHRONIZATION */
	K_EVENT = 2,	/* CUDA_EVENT */
	K_STREAM = 4,	/* STREAM */
	K_MEMCPY = 8,	/* MEMCPY, MEMCPY2, MEMSET */
	K_OVERHEAD = 16 /* OVERHEAD */
};

/* extra settings, X_* */
enum { X_LATENCY = 1, X_TSC = 2, X_REALTIME = 4, X_DRIVER_LAUNCH = 8 };

static uint64_t CUPTIAPI tsc_now(void)
{
	return (uint64_t)__rdtsc();
}

/* what the collector's GAPSCOPE_CLOCK=realtime registers */
static uint64_t CUPTIAPI realtime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void start_cupti(int kernels, enum runtime_how runtime, unsigned kinds, int callbacks,
			unsigned extra)
{
	if (kernels || runtime != RT_NONE || kinds || (extra & X_DRIVER_LAUNCH)) {
		size_t i;
		if (extra & X_TSC) /* before any kind is enabled */
			CUPTI_CHECK(cuptiActivityRegisterTimestampCallback(tsc_now));
		if (extra & X_REALTIME)
			CUPTI_CHECK(cuptiActivityRegisterTimestampCallback(realtime_now));
		CUPTI_CHECK(cuptiActivityRegisterCallbacks(buf_req, buf_done));
		if (extra & X_LATENCY)
			CUPTI_CHECK(cuptiActivityEnableLatencyTimestamps(1));
		if (kernels)
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
		if (runtime == RT_SUBSET)
			for (i = 0; i < sizeof subset / sizeof subset[0]; i++)
				CUPTI_CHECK(cuptiActivityEnableRuntimeApi(subset[i], 1));
		if (runtime == RT_ALL_BUT) /* ids CUPTI refuses are skipped */
			for (i = 1; i < CUPTI_RUNTIME_TRACE_CBID_SIZE; i++)
				if (!is_query((CUpti_CallbackId)i))
					cuptiActivityEnableRuntimeApi((CUpti_CallbackId)i, 1);
		if (kinds & K_SYNC)
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION));
		if (kinds & K_EVENT)
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT));
		if (kinds & K_STREAM)
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM));
		if (kinds & K_MEMCPY) {
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2));
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
		}
		if (kinds & K_OVERHEAD)
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD));
		if (runtime == RT_KIND) {
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
			/* as the collector: the query calls' records off */
			CUPTI_CHECK(cuptiActivityEnableRuntimeApi(
			    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 0));
			CUPTI_CHECK(cuptiActivityEnableRuntimeApi(
			    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, 0));
			CUPTI_CHECK(cuptiActivityEnableRuntimeApi(
			    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020, 0));
		}
		if (extra & X_DRIVER_LAUNCH) {
			/* as the collector (enable_driver_launches): the driver's
			 * launch calls, which a runtime launch makes nested */
			static const CUpti_CallbackId drv[] = {
			    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
			    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
			    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
			    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
			    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
			    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
			};
			for (i = 0; i < sizeof drv / sizeof drv[0]; i++)
				CUPTI_CHECK(cuptiActivityEnableDriverApi(drv[i], 1));
		}
	}
	if (callbacks) {
		CUpti_SubscriberHandle sub;
		CUpti_CallbackId id;
		CUPTI_CHECK(cuptiSubscribe(&sub, on_api, NULL));
		for (id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; id++)
			if (!is_query(id))
				cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id);
	}
}

/* Callbacks on the calls the collector makes sync and event rows from
 * (collector.c, sync_calls), by how much each does: what the collector's
 * GAPSCOPE_SYNC_SOURCE=callbacks costs a launch + sync loop, part by part. */
enum synccb {
	SCB_NONE,
	SCB_RT_EMPTY,  /* runtime ids, the callback returns at once */
	SCB_ALL_EMPTY, /* runtime and driver ids, returns at once */
	SCB_ALL_FULL,  /* runtime and driver ids, the collector's queries */
	SCB_RT_CTX,    /* runtime ids, cuptiGetContextId + cuptiGetDeviceId */
	SCB_RT_STREAM, /* runtime ids, cuptiGetStreamIdEx */
	SCB_RT_TIME    /* runtime ids, two cuptiGetTimestamp */
};

static enum synccb synccb_how;
static unsigned long long synccb_calls;

static void CUPTIAPI on_sync(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
			     const void *data)
{
	const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
	uint32_t ctx = 0, dev = 0, sid = 0;
	uint64_t t = 0;

	(void)ud;
	(void)dom;
	(void)cbid;
	synccb_calls++;
	if (synccb_how == SCB_RT_EMPTY || synccb_how == SCB_ALL_EMPTY)
		return;
	if (synccb_how == SCB_ALL_FULL || synccb_how == SCB_RT_TIME) {
		cuptiGetTimestamp(&t);
		cuptiGetTimestamp(&t);
	}
	if (cb->callbackSite != CUPTI_API_EXIT || !cb->context)
		return;
	if (synccb_how == SCB_ALL_FULL || synccb_how == SCB_RT_CTX) {
		cuptiGetContextId(cb->context, &ctx);
		cuptiGetDeviceId(cb->context, &dev);
	}
	if ((synccb_how == SCB_ALL_FULL || synccb_how == SCB_RT_STREAM) && cb->functionParams) {
		CUstream st = *(CUstream const *)cb->functionParams;
		cuptiGetStreamIdEx(cb->context, st, 0, &sid);
	}
}

static void start_synccb(enum synccb how)
{
	static const CUpti_CallbackId rt[] = {
	    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
	    CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000,
	    CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
	    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
	    CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
	    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
	};
	static const CUpti_CallbackId drv[] = {
	    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
	    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,	 CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
	    CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
	};
	CUpti_SubscriberHandle sub;
	size_t i;

	if (how == SCB_NONE)
		return;
	synccb_how = how;
	CUPTI_CHECK(cuptiSubscribe(&sub, on_sync, NULL));
	for (i = 0; i < sizeof rt / sizeof rt[0]; i++)
		CUPTI_CHECK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, rt[i]));
	if (how == SCB_ALL_EMPTY || how == SCB_ALL_FULL)
		for (i = 0; i < sizeof drv / sizeof drv[0]; i++)
			CUPTI_CHECK(
			    cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, drv[i]));
}

/* ------------------------------------------------------------- the loop */

#define GRAPH_NODES 1000

/* the graph of graph_1000, made once by stream capture */
static cudaGraphExec_t graph_exec(cudaStream_t s)
{
	static cudaGraphExec_t exec;
	cudaGraph_t g;
	int i;

	if (exec)
		return exec;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	for (i = 0; i < GRAPH_NODES; i++)
		api_source_empty<<<1, 32, 0, s>>>();
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&exec, g, 0));
	CHECK(cudaGraphUpload(exec, s));
	CHECK(cudaStreamSynchronize(s));
	return exec;
}

/* us per launch: median over ROUNDS rounds of PER launches each (per node
 * of one replay for GRAPH_1000) */
static double loop(cudaStream_t s, enum extra extra)
{
	double v[ROUNDS];
	int r, i, k, dev;

	for (r = 0; r < WARMUP + ROUNDS; r++) {
		double t0 = now_us();
		if (extra == GRAPH_1000) {
			cudaGraphExec_t exec = graph_exec(s);
			t0 = now_us();
			CHECK(cudaGraphLaunch(exec, s));
			CHECK(cudaStreamSynchronize(s));
			if (r >= WARMUP)
				v[r - WARMUP] = (now_us() - t0) / GRAPH_NODES;
			continue;
		}
		for (i = 0; i < PER; i++) {
			if (extra == GET_DEVICE)
				for (k = 0; k < 5; k++)
					CHECK(cudaGetDevice(&dev));
			api_source_empty<<<1, 32, 0, s>>>();
			if (extra == LAST_ERROR)
				CHECK(cudaGetLastError());
			if (extra == SYNC_EACH)
				CHECK(cudaStreamSynchronize(s));
		}
		if (r >= WARMUP)
			v[r - WARMUP] = (now_us() - t0) / PER;
		CHECK(cudaStreamSynchronize(s));
	}
	return median_of(v, ROUNDS);
}

/* one process runs one mode: what it switches on */
static const struct mode {
	const char *name;
	int kernels;
	enum runtime_how runtime;
	unsigned kinds; /* extra activity kinds, K_* */
	int callbacks;
	enum synccb synccb;
	unsigned extra; /* X_* */
} modes[] = {
    {"plain", 0, RT_NONE, 0, 0, SCB_NONE, 0},
    {"kernel", 1, RT_NONE, 0, 0, SCB_NONE, 0},
    {"kernel_runtime", 1, RT_KIND, 0, 0, SCB_NONE, 0},
    {"kernel_callbacks", 1, RT_NONE, 0, 1, SCB_NONE, 0},
    {"callbacks_only", 0, RT_NONE, 0, 1, SCB_NONE, 0},
    {"runtime_only", 0, RT_KIND, 0, 0, SCB_NONE, 0},
    {"kernel_runtime_subset", 1, RT_SUBSET, 0, 0, SCB_NONE, 0},
    {"kernel_runtime_allbut", 1, RT_ALL_BUT, 0, 0, SCB_NONE, 0},
    {"kernel_runtime_sync", 1, RT_KIND, K_SYNC, 0, SCB_NONE, 0},
    {"kernel_runtime_event", 1, RT_KIND, K_EVENT, 0, SCB_NONE, 0},
    {"kernel_runtime_stream", 1, RT_KIND, K_STREAM, 0, SCB_NONE, 0},
    {"kernel_runtime_memcpy", 1, RT_KIND, K_MEMCPY, 0, SCB_NONE, 0},
    {"kernel_runtime_overhead", 1, RT_KIND, K_OVERHEAD, 0, SCB_NONE, 0},
    {"default_set", 1, RT_KIND, K_SYNC | K_EVENT | K_STREAM | K_MEMCPY | K_OVERHEAD, 0, SCB_NONE,
     0},
    {"default_no_sync_event_stream", 1, RT_KIND, K_MEMCPY | K_OVERHEAD, 0, SCB_NONE, 0},
    {"kr_synccb_rt_empty", 1, RT_KIND, 0, 0, SCB_RT_EMPTY, 0},
    {"kr_synccb_all_empty", 1, RT_KIND, 0, 0, SCB_ALL_EMPTY, 0},
    {"kr_synccb_all_full", 1, RT_KIND, 0, 0, SCB_ALL_FULL, 0},
    {"kr_synccb_rt_ctx", 1, RT_KIND, 0, 0, SCB_RT_CTX, 0},
    {"kr_synccb_rt_stream", 1, RT_KIND, 0, 0, SCB_RT_STREAM, 0},
    {"kr_synccb_rt_time", 1, RT_KIND, 0, 0, SCB_RT_TIME, 0},
    {"kernel_latency", 1, RT_NONE, 0, 0, SCB_NONE, X_LATENCY},
    {"kernel_runtime_latency", 1, RT_KIND, 0, 0, SCB_NONE, X_LATENCY},
    {"kernel_runtime_tsc", 1, RT_KIND, 0, 0, SCB_NONE, X_TSC},
    {"kernel_runtime_rt", 1, RT_KIND, 0, 0, SCB_NONE, X_REALTIME},
    {"kernel_runtime_drvlaunch", 1, RT_KIND, 0, 0, SCB_NONE, X_DRIVER_LAUNCH},
    {"drvlaunch_only", 0, RT_NONE, 0, 0, SCB_NONE, X_DRIVER_LAUNCH},
};
#define N_MODES (int)(sizeof modes / sizeof modes[0])

int main(int argc, char **argv)
{
	static const char *const names[] = {"empty_256", "getdev_256", "lasterror_256", "sync_256",
					    "graph_1000"};
	const struct mode *md;
	cudaStream_t s;
	int m, n = 0, v;

	for (m = 0; m < N_MODES; m++)
		if (argc == 2 && !strcmp(argv[1], modes[m].name))
			break;
	if (m == N_MODES) {
		fprintf(stderr, "usage: gs_bench_api_source MODE, one of:");
		for (m = 0; m < N_MODES; m++)
			fprintf(stderr, " %s", modes[m].name);
		fprintf(stderr, "\n");
		return 2;
	}
	md = &modes[m];
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("api_source: no CUDA device\n");
		return 77;
	}
	/* the driver is up, no context yet: where the collector starts */
	start_cupti(md->kernels, md->runtime, md->kinds, md->callbacks, md->extra);
	start_synccb(md->synccb);
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaDeviceSynchronize());
	for (v = 0; v < 5; v++)
		printf("mode=%s variant=%s per_launch_us=%.3f\n", md->name, names[v],
		       loop(s, (enum extra)v));
	CHECK(cudaStreamDestroy(s));
	if (md->kernels || md->runtime != RT_NONE || md->kinds || (md->extra & X_DRIVER_LAUNCH))
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	printf("rows=%llu sync_callbacks=%llu\n", rows_made, synccb_calls);
	/* every sync_256 launch's sync entered and left the callback */
	if (md->synccb != SCB_NONE && synccb_calls < 2ull * (WARMUP + ROUNDS) * PER) {
		printf("FAIL: %llu sync callbacks for %d syncs\n", synccb_calls,
		       (WARMUP + ROUNDS) * PER);
		return 1;
	}
	/* with callbacks every launch, stream call and sync made a row */
	if (md->callbacks && rows_made < 4ull * (WARMUP + ROUNDS) * PER) {
		printf("FAIL: %llu callback rows for %d launches\n", rows_made,
		       4 * (WARMUP + ROUNDS) * PER);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
