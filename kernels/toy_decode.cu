/*
 * toy_decode.cu - see toy_decode.cuh. All arithmetic is uint32 with
 * wrap-around (well defined in C and CUDA alike, and associative, so a sum
 * split over threads in any order gives the same bits), so the demo's CPU
 * reference gets the same bits. It holds the model's kernels only; timing
 * and checking are the demo's.
 */
#include "toy_decode.cuh"

#define H GS_DEC_H
#define COLS GS_DEC_COLS

/* h = emb[tok] */
__global__ void gs_dec_embed(const uint32_t *emb, const int *tok, uint32_t *h)
{
	h[threadIdx.x] = emb[*tok * H + threadIdx.x];
}

/* y = x + (sum of x) >> 3: a "norm" that needs the whole vector. One block
 * of H threads. */
__global__ void gs_dec_norm(const uint32_t *x, uint32_t *y)
{
	__shared__ uint32_t s[H];
	unsigned j = threadIdx.x, half;
	uint32_t v = x[j];

	s[j] = v;
	__syncthreads();
	for (half = H / 2; half > 0; half /= 2) {
		if (j < half)
			s[j] += s[j + half];
		__syncthreads();
	}
	y[j] = v + (s[0] >> 3);
}

/* y = a + b (residual add). One block of H threads. */
__global__ void gs_dec_add(const uint32_t *a, const uint32_t *b, uint32_t *y)
{
	y[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];
}

/* A non-linear "activation": an integer mix, in place. */
__global__ void gs_dec_act(uint32_t *x)
{
	uint32_t v = x[threadIdx.x];

	v ^= v >> 11;
	v *= 0x9E3779B1u;
	x[threadIdx.x] = v ^ (v >> 15);
}

/* Cache x at the current position, then y[j] = sum over cached positions p
 * <= pos of kv[p][j] * (p + 1). Walks `span` positions; those past pos are
 * read and multiplied by 0, as padded attention does. Grid H / COLS blocks,
 * block (COLS, GS_DEC_ATT_G): block b owns columns b * COLS + x; thread
 * (x, g) walks positions g, g + G, ... of its column, so that a long span
 * costs G times fewer dependent steps; the G partial sums are added in
 * shared memory. A block writes and reads only its own columns of the
 * cache, so the __syncthreads() below orders the write before the reads. */
__global__ void gs_dec_attend(const uint32_t *x, uint32_t *kv, const int *len, int span,
			      uint32_t *y)
{
	__shared__ uint32_t part[GS_DEC_ATT_G][COLS];
	unsigned c = threadIdx.x, g = threadIdx.y, j = blockIdx.x * COLS + c;
	int pos = *len, p;
	uint32_t acc = 0;

	if (g == 0)
		kv[pos * H + j] = x[j];
	__syncthreads();
	for (p = (int)g; p < span; p += GS_DEC_ATT_G)
		acc += kv[p * H + j] * (uint32_t)(p <= pos) * (uint32_t)(p + 1);
	part[g][c] = acc;
	__syncthreads();
	if (g == 0) {
		for (p = 1; p < GS_DEC_ATT_G; p++)
			acc += part[p][c];
		y[j] = acc;
	}
}

/* y = W x for an H-long x and n outputs (n a multiple of COLS). W is
 * input-major, w[k * n + j], so that a warp reads COLS contiguous words of
 * one row (coalesced). Grid n / COLS blocks, block (COLS, GS_DEC_MV_G):
 * thread (c, g) sums k = g, g + G, ... for output column b * COLS + c
 * (H / G = 8 independent loads in flight per thread, not a 128-long loop in
 * one block: that made the product take ~3.7 us), then the G partial sums
 * are added in shared memory. */
__global__ void gs_dec_matvec(const uint32_t *w, const uint32_t *x, int n, uint32_t *y)
{
	__shared__ uint32_t xs[H];
	__shared__ uint32_t part[GS_DEC_MV_G][COLS];
	unsigned c = threadIdx.x, g = threadIdx.y, t = g * COLS + c;
	unsigned j = blockIdx.x * COLS + c, k;
	uint32_t acc = 0;

	if (t < H)
		xs[t] = x[t];
	__syncthreads();
	/* A constant trip count, fully unrolled: all 8 loads are issued before
	 * the first one is waited for. */
#pragma unroll
	for (k = 0; k < H / GS_DEC_MV_G; k++)
		acc += w[(g + k * GS_DEC_MV_G) * n + j] * xs[g + k * GS_DEC_MV_G];
	part[g][c] = acc;
	__syncthreads();
	if (g == 0) {
		for (k = 1; k < GS_DEC_MV_G; k++)
			acc += part[k][c];
		y[j] = acc;
	}
}

/* The next token is the arg max of the logits (lowest index on ties). One
 * block of V threads. Records it and advances the position. */
__global__ void gs_dec_argmax(const uint32_t *logits, int *tok, int *len, int *out_tokens)
{
	__shared__ uint32_t val[GS_DEC_V];
	__shared__ int idx[GS_DEC_V];
	unsigned v = threadIdx.x, half;

	val[v] = logits[v];
	idx[v] = (int)v;
	__syncthreads();
	for (half = GS_DEC_V / 2; half > 0; half /= 2) {
		if (v < half) {
			uint32_t a = val[v], b = val[v + half];
			int ia = idx[v], ib = idx[v + half];

			if (b > a || (b == a && ib < ia)) {
				val[v] = b;
				idx[v] = ib;
			}
		}
		__syncthreads();
	}
	if (v == 0) {
		int pos = *len;

		*tok = idx[0];
		out_tokens[pos] = idx[0];
		*len = pos + 1;
	}
}

#define LAUNCH(launch)                                                                             \
	do {                                                                                       \
		cudaError_t e_;                                                                    \
		launch;                                                                            \
		if ((e_ = cudaGetLastError()) != cudaSuccess)                                      \
			return e_;                                                                 \
	} while (0)

cudaError_t gs_decode_step(const struct gs_decoder *d, int span, cudaStream_t stream)
{
	const dim3 mv_block(COLS, GS_DEC_MV_G), att_block(COLS, GS_DEC_ATT_G);
	int l;

	LAUNCH((gs_dec_embed<<<1, H, 0, stream>>>(d->emb, d->tok, d->h)));
	for (l = 0; l < GS_DEC_LAYERS; l++) {
		const uint32_t *w = d->w + (size_t)l * 3 * H * H;
		uint32_t *kv = d->kv + (size_t)l * GS_DEC_MAXLEN * H;

		/* attention half: h2 = h + Wo attend(norm(h)) */
		LAUNCH((gs_dec_norm<<<1, H, 0, stream>>>(d->h, d->t1)));
		LAUNCH((gs_dec_attend<<<H / COLS, att_block, 0, stream>>>(d->t1, kv, d->len, span,
									  d->t2)));
		LAUNCH((gs_dec_matvec<<<H / COLS, mv_block, 0, stream>>>(w, d->t2, H, d->t3)));
		LAUNCH((gs_dec_add<<<1, H, 0, stream>>>(d->h, d->t3, d->h2)));
		/* MLP half: h = h2 + Wdown act(Wup norm(h2)) */
		LAUNCH((gs_dec_norm<<<1, H, 0, stream>>>(d->h2, d->t1)));
		LAUNCH(
		    (gs_dec_matvec<<<H / COLS, mv_block, 0, stream>>>(w + H * H, d->t1, H, d->t3)));
		LAUNCH((gs_dec_act<<<1, H, 0, stream>>>(d->t3)));
		LAUNCH((gs_dec_matvec<<<H / COLS, mv_block, 0, stream>>>(w + 2 * H * H, d->t3, H,
									 d->t2)));
		LAUNCH((gs_dec_add<<<1, H, 0, stream>>>(d->h2, d->t2, d->h)));
	}
	LAUNCH((gs_dec_matvec<<<GS_DEC_V / COLS, mv_block, 0, stream>>>(d->wout, d->h, GS_DEC_V,
									d->logits)));
	LAUNCH(
	    (gs_dec_argmax<<<1, GS_DEC_V, 0, stream>>>(d->logits, d->tok, d->len, d->out_tokens)));
	return cudaSuccess;
}
