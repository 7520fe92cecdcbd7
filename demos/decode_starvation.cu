/*
 * decode_starvation.cu - a token-at-a-time decode loop that starves its GPU.
 *
 * The pitfall: decoding generates one token at a time, and at batch 1 each
 * token is a long chain of tiny kernels (here 38: kernels/toy_decode.cuh:
 * norms, residual adds, activations and small matrix-vector products of a
 * 128-wide state, each meant to take a microsecond or so of GPU time). Launching a kernel
 * costs the host more than that (about 4-5 us back to back on an H200), and
 * the loop reads the chosen token back every step, as a naive decode loop
 * does (to stream it out or to stop at end-of-sequence), so the host never
 * gets ahead of the GPU: the GPU waits for launches most of the wall time.
 * Capturing the token step once as a CUDA Graph and replaying it turns 38
 * launches into 1. But a graph freezes its launch parameters, and
 * attention's length changes with every token: one graph must then walk the
 * padded maximum length (wasted work on padding), or one graph per length
 * bucket is kept (less padding, more graphs and memory).
 *
 * Three approaches, each decoding the same tokens from the same start:
 *   eager        38 launches per token, attention over exactly pos + 1
 *   one graph    one graph per token step, attention padded to 512
 *   buckets      graphs for 64, 128, 256 and 512 positions; each token
 *                uses the smallest bucket that holds it
 * Printed per approach: microseconds per token (CUDA events around the
 * whole decode loop, host read-back included; 1 warm-up excluded, median of
 * the repeats); the GPU time per token; time-utilisation = GPU time / wall
 * time; attention positions walked per token (padding); device memory the
 * approach added (cudaMemGetInfo before/after building its graphs, in whole
 * pages as the driver reports them).
 *
 * How the GPU time is measured (the "gated batch"): events around each
 * kernel would time the launch queueing and dispatch as well (an earlier
 * version did that and printed utilisations over 100%). Instead the same
 * token steps are queued GATE_BATCH at a time behind a gate kernel that
 * spins on a flag in host-mapped memory, so that every launch of the batch
 * is in the queue before the GPU starts on it; then the host raises the
 * flag and two events around the batch time its back-to-back execution.
 * GPU time per token = sum of the batch times / tokens. Nothing there waits
 * for the host, so this is the time the GPU itself needs for the work; it
 * includes the GPU's own switch from one kernel to the next (a trace's
 * kernel-interval union leaves that out), so it is an upper bound of the
 * busy time a profiler would show, and the utilisation printed is too. The
 * gate gives up after GATE_TIMEOUT_NS (the host could not queue the batch:
 * the queue was full), and the demo then says the figure is not clean
 * instead of hanging.
 *
 * The checks: every approach's tokens, in every timed run and in the gated
 * pass, equal a CPU reference run of the same integer model, token for
 * token. It does not judge the timings.
 */
#include <stdint.h>

#include "demo_common.h"
#include "toy_decode.cuh"

static const char usage[] =
    "usage: gs_demo_decode_starvation [--quick | --sample]\n"
    "\n"
    "A toy decode loop (38 tiny kernels per token) eager, as one graph per\n"
    "token step (attention padded to the maximum), and as bucketed graphs;\n"
    "prints time per token, the GPU's own time per token (gated batches),\n"
    "GPU time-utilisation and memory of each, and checks every token against\n"
    "a CPU reference.\n"
    "  --quick    128 tokens x 2 repeats (+ 1 warm-up) instead of 256 x 5\n"
    "  --sample   96 tokens x 1 repeat (+ 1 warm-up): a run whose trace stays\n"
    "             small (about 34k GPU operations), for a committed sample\n"
    "Exit: 0 checks passed, 1 a check failed, 2 bad option, 77 no GPU.\n";

#define H GS_DEC_H
#define V GS_DEC_V
#define L GS_DEC_LAYERS
#define MAXLEN GS_DEC_MAXLEN
#define K GS_DEC_KERNELS_PER_TOKEN
#define N_BUCKETS 4
#define START_TOKEN 1

static const int buckets[N_BUCKETS] = {64, 128, 256, MAXLEN}; /* positions */

/* Host copies of the weights (for the CPU reference). */
static uint32_t h_emb[V * H], h_w[L * 3 * H * H], h_wout[H * V];
static int ref_tokens[MAXLEN]; /* CPU reference: token chosen at each position */

/* Deterministic small pseudo-random weights. */
static uint32_t lcg(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return *state >> 24; /* 0..255 */
}

/* ---- CPU reference: the same model, plain loops ------------------------- */

static void cpu_norm(const uint32_t *x, uint32_t *y)
{
	uint32_t s = 0;
	int j;

	for (j = 0; j < H; j++)
		s += x[j];
	for (j = 0; j < H; j++)
		y[j] = x[j] + (s >> 3);
}

static void cpu_matvec(const uint32_t *w, const uint32_t *x, const uint32_t *res, uint32_t *y)
{
	uint32_t tmp[H];
	int j, k;

	for (j = 0; j < H; j++) {
		uint32_t acc = 0;

		for (k = 0; k < H; k++)
			acc += w[k * H + j] * x[k]; /* input-major, as on the GPU */
		tmp[j] = acc + (res ? res[j] : 0);
	}
	memcpy(y, tmp, sizeof(tmp));
}

static void cpu_decode(int tokens)
{
	static uint32_t kv[L][MAXLEN][H];
	uint32_t h[H], h2[H], t1[H], t2[H], t3[H];
	int tok = START_TOKEN, pos, l, j, p, v;

	memset(kv, 0, sizeof(kv));
	for (pos = 0; pos < tokens; pos++) {
		for (j = 0; j < H; j++)
			h[j] = h_emb[tok * H + j];
		for (l = 0; l < L; l++) {
			const uint32_t *w = h_w + (size_t)l * 3 * H * H;

			cpu_norm(h, t1);
			for (j = 0; j < H; j++) {
				uint32_t acc = 0;

				kv[l][pos][j] = t1[j];
				for (p = 0; p <= pos; p++)
					acc += kv[l][p][j] * (uint32_t)(p + 1);
				t2[j] = acc;
			}
			cpu_matvec(w, t2, h, h2);
			cpu_norm(h2, t1);
			cpu_matvec(w + H * H, t1, NULL, t3);
			for (j = 0; j < H; j++) {
				uint32_t x = t3[j];

				x ^= x >> 11;
				x *= 0x9E3779B1u;
				t3[j] = x ^ (x >> 15);
			}
			cpu_matvec(w + 2 * H * H, t3, h2, h);
		}
		{
			uint32_t best = 0;
			int best_v = 0;

			for (v = 0; v < V; v++) {
				uint32_t logit = 0;

				for (j = 0; j < H; j++)
					logit += h_wout[j * V + v] * h[j];
				if (v == 0 || logit > best) {
					best = logit;
					best_v = v;
				}
			}
			tok = best_v;
		}
		ref_tokens[pos] = tok;
	}
}

/* ---- the three approaches ------------------------------------------------ */

enum approach { EAGER, ONE_GRAPH, BUCKETS, N_APPROACHES };
static const char *const approach_label[N_APPROACHES] = {
    "eager (38 launches/token)", "one graph, padded to 512", "graphs per bucket 64..512"};
static const char *const approach_phase[N_APPROACHES] = {"decode_eager", "decode_one_graph",
							 "decode_bucketed_graphs"};

/* Attention positions the approach walks for the token at `pos`. */
static int span_for(enum approach a, int pos)
{
	int b;

	if (a == EAGER)
		return pos + 1;
	if (a == ONE_GRAPH)
		return MAXLEN;
	for (b = 0; b < N_BUCKETS; b++)
		if (pos + 1 <= buckets[b])
			return buckets[b];
	return MAXLEN;
}

static int bucket_index(int pos)
{
	int b;

	for (b = 0; b < N_BUCKETS - 1; b++)
		if (pos + 1 <= buckets[b])
			return b;
	return N_BUCKETS - 1;
}

/* Queue the token step at `pos` the way the approach does. */
static void queue_step(enum approach a, const struct gs_decoder *d, cudaGraphExec_t *execs, int pos,
		       cudaStream_t s)
{
	if (a == EAGER)
		CHECK(gs_decode_step(d, pos + 1, s));
	else if (a == ONE_GRAPH)
		CHECK(cudaGraphLaunch(execs[0], s));
	else
		CHECK(cudaGraphLaunch(execs[bucket_index(pos)], s));
}

/* Back to the start: token START_TOKEN at position 0. */
static void reset_state(const struct gs_decoder *d)
{
	int tok = START_TOKEN, len = 0;

	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(d->tok, &tok, sizeof(tok), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d->len, &len, sizeof(len), cudaMemcpyHostToDevice));
	/* A copy from pageable memory may return before its DMA is done, and
	 * our stream does not wait for the legacy stream: wait here. */
	CHECK(cudaDeviceSynchronize());
}

/* Decode `tokens` tokens; the host reads every token back (as a naive loop
 * does, to stream it out or to stop at end-of-sequence) before it launches
 * the next step. Writes the tokens to got[] and returns microseconds per
 * token. */
static double decode(enum approach a, const struct gs_decoder *d, cudaGraphExec_t *execs,
		     int tokens, int *h_tok, int *got, cudaStream_t s, cudaEvent_t e0,
		     cudaEvent_t e1)
{
	int pos;

	reset_state(d);
	CHECK(cudaEventRecord(e0, s));
	for (pos = 0; pos < tokens; pos++) {
		queue_step(a, d, execs, pos, s);
		CHECK(cudaMemcpyAsync(h_tok, d->tok, sizeof(*h_tok), cudaMemcpyDeviceToHost, s));
		CHECK(cudaStreamSynchronize(s));
		got[pos] = *h_tok;
	}
	CHECK(cudaEventRecord(e1, s));
	return gs_event_ms(e0, e1) * 1e3 / tokens;
}

/* ---- the GPU's own time: gated batches ----------------------------------- */

#define GATE_BATCH                                                                                 \
	8			     /* token steps queued behind one gate: 8 x 38 = 304 launches, \
				      * well inside the launch queue (the host blocks in a launch  \
				      * call when the queue holds about a thousand) */
#define GATE_TIMEOUT_NS 200000000ull /* 200 ms; queueing a batch takes ~2 ms */

/* Spin until the host raises *flag (host-mapped memory: the volatile read
 * goes to the host each time, so the store is seen), or give up after
 * timeout_ns of %globaltimer and say so in *timed_out. */
__global__ void gate_kernel(const volatile int *flag, unsigned long long timeout_ns, int *timed_out)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	while (*flag == 0) {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
		if (t - t0 > timeout_ns) {
			*timed_out = 1;
			return;
		}
		__nanosleep(200);
	}
}

struct gate {
	volatile int *h_flag; /* host side of the mapped flag */
	int *d_flag;	      /* its device address */
	int *d_timed_out;     /* set by gate_kernel when it gave up */
};

/* Run the approach's `tokens` steps in gated batches; returns the GPU time
 * per token in microseconds. Writes the tokens chosen (read from the
 * device's out_tokens) to got[] and the number of gates that opened by
 * timeout to *timeouts. */
static double gpu_time_per_token(enum approach a, const struct gs_decoder *d,
				 cudaGraphExec_t *execs, int tokens, const struct gate *g, int *got,
				 int *timeouts, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1)
{
	double sum_ms = 0;
	int pos = 0, i, zero = 0;

	CHECK(cudaMemcpy(g->d_timed_out, &zero, sizeof(zero), cudaMemcpyHostToDevice));
	reset_state(d); /* ends with a device synchronize: the zero has landed */
	while (pos < tokens) {
		int n = tokens - pos < GATE_BATCH ? tokens - pos : GATE_BATCH;

		*g->h_flag = 0;
		gate_kernel<<<1, 1, 0, s>>>(g->d_flag, GATE_TIMEOUT_NS, g->d_timed_out);
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(e0, s)); /* completes when the gate opens */
		for (i = 0; i < n; i++)
			queue_step(a, d, execs, pos + i, s);
		CHECK(cudaEventRecord(e1, s));
		*g->h_flag = 1; /* everything is queued: let the GPU go */
		sum_ms += gs_event_ms(e0, e1);
		pos += n;
	}
	CHECK(cudaMemcpy(got, d->out_tokens, sizeof(int) * (size_t)tokens, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(timeouts, g->d_timed_out, sizeof(int), cudaMemcpyDeviceToHost));
	return sum_ms * 1e3 / tokens;
}

/* Capture one token step with the given attention span. */
static cudaGraphExec_t build_graph(const struct gs_decoder *d, int span, cudaStream_t s)
{
	cudaGraph_t g;
	cudaGraphExec_t ge;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK(gs_decode_step(d, span, s));
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	CHECK(cudaGraphUpload(ge, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaGraphDestroy(g)); /* the executable graph keeps what it needs */
	return ge;
}

/* Count and report tokens that differ from the CPU reference. */
static int count_bad(const int *got, int tokens)
{
	int pos, bad = 0;

	for (pos = 0; pos < tokens; pos++)
		if (got[pos] != ref_tokens[pos])
			bad++;
	return bad;
}

int main(int argc, char **argv)
{
	struct gs_demo_opts o;
	struct gs_decoder d;
	struct gate gate;
	uint32_t *d_emb, *d_w, *d_wout;
	int *h_tok, got[MAXLEN], timeouts[N_APPROACHES];
	cudaStream_t s;
	cudaEvent_t e0, e1;
	cudaGraphExec_t execs[N_BUCKETS];
	double wall[N_APPROACHES], busy[N_APPROACHES], walked[N_APPROACHES], mem_mib[N_APPROACHES];
	int n_graphs[N_APPROACHES];
	int tokens, repeats, warmups, i, r, pos, failures = 0, any_timeout = 0;
	uint32_t seed = 12345;
	double *t;

	gs_demo_parse(argc, argv, usage, GS_DEMO_TAKES_SAMPLE, &o);
	if (o.sample) {
		tokens = 96; /* buckets 64 and 128 both used */
		repeats = 1;
	} else if (o.quick) {
		tokens = 128;
		repeats = 2;
	} else {
		tokens = 256;
		repeats = 5;
	}
	warmups = 1;
	gs_demo_require_gpu("decode_starvation");

	t = (double *)malloc(sizeof(double) * repeats);
	for (i = 0; i < V * H; i++)
		h_emb[i] = lcg(&seed);
	for (i = 0; i < L * 3 * H * H; i++)
		h_w[i] = lcg(&seed);
	for (i = 0; i < V * H; i++)
		h_wout[i] = lcg(&seed);
	cpu_decode(tokens);

	CHECK(cudaMalloc(&d_emb, sizeof(h_emb)));
	CHECK(cudaMalloc(&d_w, sizeof(h_w)));
	CHECK(cudaMalloc(&d_wout, sizeof(h_wout)));
	CHECK(cudaMemcpy(d_emb, h_emb, sizeof(h_emb), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_w, h_w, sizeof(h_w), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_wout, h_wout, sizeof(h_wout), cudaMemcpyHostToDevice));
	d.emb = d_emb;
	d.w = d_w;
	d.wout = d_wout;
	CHECK(cudaMalloc(&d.kv, sizeof(uint32_t) * L * MAXLEN * H));
	/* Padded attention reads positions not written yet (and multiplies
	 * them by 0): give them defined contents. */
	CHECK(cudaMemset(d.kv, 0, sizeof(uint32_t) * L * MAXLEN * H));
	CHECK(cudaMalloc(&d.h, sizeof(uint32_t) * H));
	CHECK(cudaMalloc(&d.h2, sizeof(uint32_t) * H));
	CHECK(cudaMalloc(&d.t1, sizeof(uint32_t) * H));
	CHECK(cudaMalloc(&d.t2, sizeof(uint32_t) * H));
	CHECK(cudaMalloc(&d.t3, sizeof(uint32_t) * H));
	CHECK(cudaMalloc(&d.logits, sizeof(uint32_t) * V));
	CHECK(cudaMalloc(&d.tok, sizeof(int)));
	CHECK(cudaMalloc(&d.len, sizeof(int)));
	CHECK(cudaMalloc(&d.out_tokens, sizeof(int) * MAXLEN));
	CHECK(cudaMallocHost(&h_tok, sizeof(int)));
	CHECK(cudaHostAlloc((void **)&gate.h_flag, sizeof(int), cudaHostAllocMapped));
	CHECK(cudaHostGetDevicePointer((void **)&gate.d_flag, (void *)gate.h_flag, 0));
	CHECK(cudaMalloc(&gate.d_timed_out, sizeof(int)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));

	printf("toy decode: %d layers, %d kernels per token, hidden %d, vocabulary %d; "
	       "%d tokens,\n%d repeat%s + %d warm-up, medians\n\n",
	       L, K, H, V, tokens, repeats, repeats > 1 ? "s" : "", warmups);

	/* Load the kernels (CUDA loads modules lazily, at first launch) outside
	 * the timed phases. */
	*gate.h_flag = 0;
	gs_phase_begin("load_kernels");
	reset_state(&d);
	CHECK(gs_decode_step(&d, 1, s));
	CHECK(cudaStreamSynchronize(s));
	gate_kernel<<<1, 1, 0, s>>>(gate.d_flag, 0, gate.d_timed_out);
	CHECK(cudaGetLastError());
	CHECK(cudaStreamSynchronize(s));
	gs_phase_end();

	for (i = 0; i < N_APPROACHES; i++) {
		enum approach a = (enum approach)i;
		size_t free0, free1, total;
		int bad = 0, bad_gated, b;

		/* Build what the approach needs, and see what it cost the device
		 * (outside the phase range: the range shows the decoding). */
		gs_phase_begin("build_graphs");
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemGetInfo(&free0, &total));
		n_graphs[a] = 0;
		if (a == ONE_GRAPH) {
			execs[0] = build_graph(&d, MAXLEN, s);
			n_graphs[a] = 1;
		} else if (a == BUCKETS) {
			for (b = 0; b < N_BUCKETS; b++)
				execs[b] = build_graph(&d, buckets[b], s);
			n_graphs[a] = N_BUCKETS;
		}
		CHECK(cudaMemGetInfo(&free1, &total));
		mem_mib[a] = ((double)free0 - (double)free1) / (1024.0 * 1024.0);
		gs_phase_end();

		gs_phase_begin(approach_phase[a]);
		for (r = -warmups; r < repeats; r++) {
			double x = decode(a, &d, execs, tokens, h_tok, got, s, e0, e1);

			if (r >= 0)
				t[r] = x;
			bad += count_bad(got, tokens);
		}
		gs_phase_end();
		wall[a] = gs_median(t, repeats);

		/* Its own range: this pass keeps the GPU busy on purpose, and
		 * must not count in the phase's utilisation. */
		gs_phase_begin("measure_gpu_time");
		busy[a] =
		    gpu_time_per_token(a, &d, execs, tokens, &gate, got, &timeouts[a], s, e0, e1);
		gs_phase_end();
		bad_gated = count_bad(got, tokens);
		any_timeout |= timeouts[a];

		walked[a] = 0;
		for (pos = 0; pos < tokens; pos++)
			walked[a] += span_for(a, pos);
		walked[a] /= tokens;
		for (b = 0; b < n_graphs[a]; b++)
			CHECK(cudaGraphExecDestroy(execs[b]));

		if (bad || bad_gated) {
			printf(
			    "  check %-28s FAIL: %d of %d tokens differ from the CPU reference\n",
			    approach_label[a], bad + bad_gated, tokens * (repeats + warmups + 1));
			failures++;
		} else {
			printf(
			    "  check %-28s OK (%d tokens x %d runs = CPU reference, e.g. %d %d %d "
			    "...)\n",
			    approach_label[a], tokens, repeats + warmups + 1, ref_tokens[0],
			    ref_tokens[1], ref_tokens[2]);
		}
	}

	printf("\n  %-27s %6s %9s %10s %8s %12s %13s %10s\n", "approach", "graphs", "us/token",
	       "GPU us/tok", "GPU util", "GPU us/kern", "positions/tok", "memory MiB");
	for (i = 0; i < N_APPROACHES; i++)
		printf("  %-27s %6d %9.1f %10.1f %7.1f%% %12.2f %13.1f %10.1f\n", approach_label[i],
		       n_graphs[i], wall[i], busy[i], 100.0 * busy[i] / wall[i], busy[i] / K,
		       walked[i], mem_mib[i]);
	printf("\n  us/token: wall time per token, token read-back included. GPU us/tok: the\n"
	       "  GPU's own time for the same steps, queued %d tokens at a time behind a gate\n"
	       "  (nothing waits for the host; includes the GPU's switch between kernels, so\n"
	       "  an upper bound of kernel-busy time). GPU util = GPU us/tok / us/token.\n"
	       "  positions/tok: attention positions walked per token; eager walks exactly\n"
	       "  the %0.1f needed on average.\n",
	       GATE_BATCH, walked[EAGER]);
	if (any_timeout)
		printf("  note: a gate opened by its %.0f ms timeout before the batch was queued\n"
		       "  (launch queue full?): the GPU figures include host time; not clean.\n",
		       GATE_TIMEOUT_NS / 1e6);
	printf("\n");

	CHECK(cudaEventDestroy(e0));
	CHECK(cudaEventDestroy(e1));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d_emb));
	CHECK(cudaFree(d_w));
	CHECK(cudaFree(d_wout));
	CHECK(cudaFree(d.kv));
	CHECK(cudaFree(d.h));
	CHECK(cudaFree(d.h2));
	CHECK(cudaFree(d.t1));
	CHECK(cudaFree(d.t2));
	CHECK(cudaFree(d.t3));
	CHECK(cudaFree(d.logits));
	CHECK(cudaFree(d.tok));
	CHECK(cudaFree(d.len));
	CHECK(cudaFree(d.out_tokens));
	CHECK(cudaFree(gate.d_timed_out));
	CHECK(cudaFreeHost((void *)gate.h_flag));
	CHECK(cudaFreeHost(h_tok));
	free(t);
	return gs_demo_result(failures);
}
