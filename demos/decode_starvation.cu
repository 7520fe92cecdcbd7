/*
 * decode_starvation.cu - a token-at-a-time decode loop that starves its GPU.
 *
 * The pitfall: decoding generates one token at a time, and each token is a
 * long chain of tiny kernels (here 30: kernels/toy_decode.cuh). Each runs
 * for a microsecond or two; launching it costs the host about as much, and
 * the loop reads the chosen token back every step, so the host never gets
 * ahead of the GPU. The GPU spends most of the wall time waiting for
 * launches. Capturing the token step once as a CUDA Graph and replaying it
 * turns 30 launches into 1. But a graph freezes its launch parameters, and
 * attention's length changes with every token: one graph must then walk
 * the padded maximum length (wasted work on padding), or one graph per
 * length bucket is kept (less padding, more graphs and memory).
 *
 * Three approaches, each decoding the same tokens from the same start:
 *   eager        30 launches per token, attention over exactly pos + 1
 *   one graph    one graph per token step, attention padded to 512
 *   buckets      graphs for 64, 128, 256 and 512 positions; each token
 *                uses the smallest bucket that holds it
 * Printed per approach: microseconds per token (CUDA events around the
 * whole decode, 1 warm-up excluded, median of the repeats); GPU busy time
 * per token, from a separate pass that puts events around every kernel of
 * the same work; time-utilisation = busy / wall; attention positions walked
 * per token (padding); device memory the approach added (cudaMemGetInfo
 * before/after building its graphs, in whole pages as the driver reports
 * them). The check: every approach's tokens equal a CPU reference run of
 * the same integer model, token for token.
 */
#include <stdint.h>

#include "demo_common.h"
#include "toy_decode.cuh"

static const char usage[] =
    "usage: gs_demo_decode_starvation [--quick]\n"
    "\n"
    "A toy decode loop (30 tiny kernels per token) eager, as one graph per\n"
    "token step (attention padded to the maximum), and as bucketed graphs;\n"
    "prints time per token, GPU utilisation and memory of each.\n"
    "  --quick   128 tokens x 2 repeats instead of 256 x 5\n"
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
    "eager (30 launches/token)", "one graph, padded to 512", "graphs per bucket 64..512"};
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

/* Decode `tokens` tokens; the host reads every token back (as a real loop
 * does, to stream it out or to stop at end-of-sequence). Writes the tokens
 * to got[] and returns microseconds per token. */
static double decode(enum approach a, const struct gs_decoder *d, cudaGraphExec_t *execs,
		     int tokens, int *h_tok, int *got, cudaStream_t s, cudaEvent_t e0,
		     cudaEvent_t e1)
{
	int pos;

	reset_state(d);
	CHECK(cudaEventRecord(e0, s));
	for (pos = 0; pos < tokens; pos++) {
		if (a == EAGER)
			CHECK(gs_decode_step(d, pos + 1, s, NULL));
		else if (a == ONE_GRAPH)
			CHECK(cudaGraphLaunch(execs[0], s));
		else
			CHECK(cudaGraphLaunch(execs[bucket_index(pos)], s));
		CHECK(cudaMemcpyAsync(h_tok, d->tok, sizeof(*h_tok), cudaMemcpyDeviceToHost, s));
		CHECK(cudaStreamSynchronize(s));
		got[pos] = *h_tok;
	}
	CHECK(cudaEventRecord(e1, s));
	return gs_event_ms(e0, e1) * 1e3 / tokens;
}

/* The same work launched eagerly with an event pair around every kernel:
 * returns the summed kernel time per token, in microseconds. (Events add
 * launches of their own, so this pass is not timed as a whole.) */
static double busy_per_token(enum approach a, const struct gs_decoder *d, int tokens,
			     cudaEvent_t *ev, cudaStream_t s)
{
	double sum_ms = 0;
	int pos, k;

	reset_state(d);
	for (pos = 0; pos < tokens; pos++) {
		CHECK(gs_decode_step(d, span_for(a, pos), s, ev));
		CHECK(cudaStreamSynchronize(s));
		for (k = 0; k < K; k++)
			sum_ms += gs_event_ms(ev[2 * k], ev[2 * k + 1]);
	}
	return sum_ms * 1e3 / tokens;
}

/* Capture one token step with the given attention span. */
static cudaGraphExec_t build_graph(const struct gs_decoder *d, int span, cudaStream_t s)
{
	cudaGraph_t g;
	cudaGraphExec_t ge;

	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK(gs_decode_step(d, span, s, NULL));
	CHECK(cudaStreamEndCapture(s, &g));
	CHECK(cudaGraphInstantiate(&ge, g, 0));
	CHECK(cudaGraphUpload(ge, s));
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaGraphDestroy(g)); /* the executable graph keeps what it needs */
	return ge;
}

int main(int argc, char **argv)
{
	struct gs_demo_opts o;
	struct gs_decoder d;
	uint32_t *d_emb, *d_w, *d_wout;
	int *h_tok, got[MAXLEN];
	cudaStream_t s;
	cudaEvent_t e0, e1, ev[2 * K];
	cudaGraphExec_t execs[N_BUCKETS];
	double wall[N_APPROACHES], busy[N_APPROACHES], walked[N_APPROACHES], mem_mib[N_APPROACHES];
	int n_graphs[N_APPROACHES];
	int tokens, repeats, i, r, pos, failures = 0;
	uint32_t seed = 12345;
	double *t;

	gs_demo_parse(argc, argv, usage, 0, &o);
	tokens = o.quick ? 128 : 256;
	repeats = o.quick ? 2 : 5;
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
	CHECK(cudaMalloc(&d.tok, sizeof(int)));
	CHECK(cudaMalloc(&d.len, sizeof(int)));
	CHECK(cudaMalloc(&d.out_tokens, sizeof(int) * MAXLEN));
	CHECK(cudaMallocHost(&h_tok, sizeof(int)));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	for (i = 0; i < 2 * K; i++)
		CHECK(cudaEventCreate(&ev[i]));

	printf("toy decode: %d layers, %d kernels per token, hidden %d, vocabulary %d; "
	       "%d tokens,\n%d repeats + 1 warm-up, medians\n\n",
	       L, K, H, V, tokens, repeats);

	for (i = 0; i < N_APPROACHES; i++) {
		enum approach a = (enum approach)i;
		size_t free0, free1, total;
		int bad = 0, b;

		gs_phase_begin(approach_phase[a]);
		/* Build what the approach needs, and see what it cost the device. */
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

		for (r = -1; r < repeats; r++) {
			double x = decode(a, &d, execs, tokens, h_tok, got, s, e0, e1);

			if (r >= 0)
				t[r] = x;
			for (pos = 0; pos < tokens; pos++)
				if (got[pos] != ref_tokens[pos])
					bad++;
		}
		wall[a] = gs_median(t, repeats);
		busy[a] = busy_per_token(a, &d, tokens, ev, s);
		walked[a] = 0;
		for (pos = 0; pos < tokens; pos++)
			walked[a] += span_for(a, pos);
		walked[a] /= tokens;
		for (b = 0; b < n_graphs[a]; b++)
			CHECK(cudaGraphExecDestroy(execs[b]));
		gs_phase_end();

		if (bad) {
			printf(
			    "  check %-28s FAIL: %d of %d tokens differ from the CPU reference\n",
			    approach_label[a], bad, tokens * (repeats + 1));
			failures++;
		} else {
			printf("  check %-28s OK (%d tokens = CPU reference, e.g. %d %d %d ...)\n",
			       approach_label[a], tokens, ref_tokens[0], ref_tokens[1],
			       ref_tokens[2]);
		}
	}

	printf("\n  %-27s %6s %10s %12s %12s %13s %11s\n", "approach", "graphs", "us/token",
	       "GPU busy us", "utilisation", "positions/tok", "memory MiB");
	for (i = 0; i < N_APPROACHES; i++)
		printf("  %-27s %6d %10.1f %12.1f %11.1f%% %13.0f %11.1f\n", approach_label[i],
		       n_graphs[i], wall[i], busy[i], 100.0 * busy[i] / wall[i], walked[i],
		       mem_mib[i]);
	printf("\n  (positions/tok: attention positions walked per token; eager walks exactly\n"
	       "  the %0.1f needed on average. GPU busy: kernel times from events, summed.)\n\n",
	       walked[EAGER]);

	for (i = 0; i < 2 * K; i++)
		CHECK(cudaEventDestroy(ev[i]));
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
	CHECK(cudaFree(d.tok));
	CHECK(cudaFree(d.len));
	CHECK(cudaFree(d.out_tokens));
	CHECK(cudaFreeHost(h_tok));
	free(t);
	return gs_demo_result(failures);
}
