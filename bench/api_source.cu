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
 * Prints "mode=M variant=V per_launch_us=X" for
 *   empty_256      back-to-back launches of an empty kernel, rounds of 256
 *   getdev_256     the same with 5 cudaGetDevice() calls before each launch
 *   lasterror_256  the same with cudaGetLastError() after each launch
 * (the median over 15 rounds of the round's wall time over its launches),
 * then "rows=N" (callback rows made, 0 without callbacks) and "PASS". Exit 1
 * on a CUDA or CUPTI error, 2 on a bad mode, 77 without a device. It judges
 * no timings: bench/api_source.py runs the modes interleaved and prints the
 * ratios. Written 2026-12-04 without device time left; not yet run on a GPU.
 */
#include <cupti.h>
#include <stdint.h>
#include <string.h>

#define BENCH_NAME "api_source"
#include "bench_common.h"

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

enum extra { NONE, GET_DEVICE, LAST_ERROR };

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

static void start_cupti(int kernels, int runtime, int callbacks)
{
	if (kernels || runtime) {
		CUPTI_CHECK(cuptiActivityRegisterCallbacks(buf_req, buf_done));
		if (kernels)
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
		if (runtime) {
			CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
			/* as the collector: the query calls' records off */
			CUPTI_CHECK(cuptiActivityEnableRuntimeApi(
			    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 0));
			CUPTI_CHECK(cuptiActivityEnableRuntimeApi(
			    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, 0));
			CUPTI_CHECK(cuptiActivityEnableRuntimeApi(
			    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020, 0));
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

/* ------------------------------------------------------------- the loop */

/* us per launch: median over ROUNDS rounds of PER launches each */
static double loop(cudaStream_t s, enum extra extra)
{
	double v[ROUNDS];
	int r, i, k, dev;

	for (r = 0; r < WARMUP + ROUNDS; r++) {
		double t0 = now_us();
		for (i = 0; i < PER; i++) {
			if (extra == GET_DEVICE)
				for (k = 0; k < 5; k++)
					CHECK(cudaGetDevice(&dev));
			api_source_empty<<<1, 32, 0, s>>>();
			if (extra == LAST_ERROR)
				CHECK(cudaGetLastError());
		}
		if (r >= WARMUP)
			v[r - WARMUP] = (now_us() - t0) / PER;
		CHECK(cudaStreamSynchronize(s));
	}
	return median_of(v, ROUNDS);
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {"plain", "kernel", "kernel_runtime", "kernel_callbacks",
					    "callbacks_only"};
	static const char *const names[] = {"empty_256", "getdev_256", "lasterror_256"};
	cudaStream_t s;
	int m, n = 0, v;

	for (m = 0; m < 5; m++)
		if (argc == 2 && !strcmp(argv[1], modes[m]))
			break;
	if (m == 5) {
		fprintf(stderr, "usage: gs_bench_api_source "
				"plain|kernel|kernel_runtime|kernel_callbacks|callbacks_only\n");
		return 2;
	}
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("api_source: no CUDA device\n");
		return 77;
	}
	/* the driver is up, no context yet: where the collector starts */
	start_cupti(m == 1 || m == 2 || m == 3, m == 2, m == 3 || m == 4);
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaDeviceSynchronize());
	for (v = 0; v < 3; v++)
		printf("mode=%s variant=%s per_launch_us=%.3f\n", modes[m], names[v],
		       loop(s, (enum extra)v));
	CHECK(cudaStreamDestroy(s));
	if (m == 1 || m == 2 || m == 3)
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	printf("rows=%llu\n", rows_made);
	/* with callbacks every launch, stream call and sync made a row */
	if ((m == 3 || m == 4) && rows_made < 3ull * (WARMUP + ROUNDS) * PER) {
		printf("FAIL: %llu callback rows for %d launches\n", rows_made,
		       3 * (WARMUP + ROUNDS) * PER);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
