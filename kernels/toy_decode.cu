/*
 * toy_decode.cu - see toy_decode.cuh. All arithmetic is uint32 with
 * wrap-around (well defined in C and CUDA alike), so the demo's CPU
 * reference gets the same bits.
 */
#include "toy_decode.cuh"

#define H GS_DEC_H

/* h = emb[tok] */
__global__ void gs_dec_embed(const uint32_t *emb, const int *tok, uint32_t *h)
{
	h[threadIdx.x] = emb[*tok * H + threadIdx.x];
}

/* y = x + (sum of x) >> 3: a "norm" that needs the whole vector. */
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

/* Cache x at the current position, then y[j] = sum over cached positions p
 * <= pos of kv[p][j] * (p + 1). Walks `span` positions; those past pos are
 * read and multiplied by 0, as padded attention does. Block (H, GS_DEC_ATT_G):
 * thread (j, g) walks positions g, g + G, ... of column j, so that a long
 * span costs G times fewer dependent steps; the G partial sums are added in
 * shared memory (uint32 addition wraps, so the order does not matter). */
__global__ void gs_dec_attend(const uint32_t *x, uint32_t *kv, const int *len, int span,
			      uint32_t *y)
{
	__shared__ uint32_t part[GS_DEC_ATT_G][H];
	unsigned j = threadIdx.x, g = threadIdx.y;
	int pos = *len, p;
	uint32_t acc = 0;

	if (g == 0)
		kv[pos * H + j] = x[j];
	__syncthreads(); /* the write above is read by the other g below */
	for (p = (int)g; p < span; p += GS_DEC_ATT_G)
		acc += kv[p * H + j] * (uint32_t)(p <= pos) * (uint32_t)(p + 1);
	part[g][j] = acc;
	__syncthreads();
	if (g == 0) {
		for (p = 1; p < GS_DEC_ATT_G; p++)
			acc += part[p][j];
		y[j] = acc;
	}
}

/* y = W x (+ res): one output per thread. W is stored input-major,
 * w[k * H + j], so that at each k the block reads one contiguous row
 * (coalesced) instead of each thread striding through its own. */
__global__ void gs_dec_matvec(const uint32_t *w, const uint32_t *x, const uint32_t *res,
			      uint32_t *y)
{
	__shared__ uint32_t xs[H];
	unsigned j = threadIdx.x, k;
	uint32_t acc = 0;

	xs[j] = x[j];
	__syncthreads();
	for (k = 0; k < H; k++)
		acc += w[k * H + j] * xs[k];
	if (res)
		acc += res[j];
	y[j] = acc;
}

/* A non-linear "activation": an integer mix. */
__global__ void gs_dec_act(uint32_t *x)
{
	uint32_t v = x[threadIdx.x];

	v ^= v >> 11;
	v *= 0x9E3779B1u;
	x[threadIdx.x] = v ^ (v >> 15);
}

/* logits = Wout h; the next token is the arg max (lowest index on ties).
 * One thread per vocabulary entry; Wout is input-major, wout[k * V + v]
 * (coalesced, as in gs_dec_matvec). Advances the position. */
__global__ void gs_dec_pick(const uint32_t *wout, const uint32_t *h, int *tok, int *len,
			    int *out_tokens)
{
	__shared__ uint32_t hs[H];
	__shared__ uint32_t val[GS_DEC_V];
	__shared__ int idx[GS_DEC_V];
	unsigned v = threadIdx.x, k, half;
	uint32_t logit = 0;

	if (v < H)
		hs[v] = h[v];
	__syncthreads();
	for (k = 0; k < H; k++)
		logit += wout[k * GS_DEC_V + v] * hs[k];
	val[v] = logit;
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

/* Record ev[2k] / ev[2k + 1] around kernel k when timing. */
#define TIMED(k, launch)                                                                           \
	do {                                                                                       \
		cudaError_t e_;                                                                    \
		if (ev && (e_ = cudaEventRecord(ev[2 * (k)], stream)) != cudaSuccess)              \
			return e_;                                                                 \
		launch;                                                                            \
		if ((e_ = cudaGetLastError()) != cudaSuccess)                                      \
			return e_;                                                                 \
		if (ev && (e_ = cudaEventRecord(ev[2 * (k) + 1], stream)) != cudaSuccess)          \
			return e_;                                                                 \
		(k)++;                                                                             \
	} while (0)

cudaError_t gs_decode_step(const struct gs_decoder *d, int span, cudaStream_t stream,
			   cudaEvent_t *ev)
{
	int l, k = 0;

	TIMED(k, (gs_dec_embed<<<1, H, 0, stream>>>(d->emb, d->tok, d->h)));
	for (l = 0; l < GS_DEC_LAYERS; l++) {
		const uint32_t *w = d->w + (size_t)l * 3 * H * H;
		uint32_t *kv = d->kv + (size_t)l * GS_DEC_MAXLEN * H;

		TIMED(k, (gs_dec_norm<<<1, H, 0, stream>>>(d->h, d->t1)));
		TIMED(k, (gs_dec_attend<<<1, dim3(H, GS_DEC_ATT_G), 0, stream>>>(d->t1, kv, d->len,
										 span, d->t2)));
		TIMED(k, (gs_dec_matvec<<<1, H, 0, stream>>>(w, d->t2, d->h, d->h2)));
		TIMED(k, (gs_dec_norm<<<1, H, 0, stream>>>(d->h2, d->t1)));
		TIMED(k, (gs_dec_matvec<<<1, H, 0, stream>>>(w + H * H, d->t1, NULL, d->t3)));
		TIMED(k, (gs_dec_act<<<1, H, 0, stream>>>(d->t3)));
		TIMED(k, (gs_dec_matvec<<<1, H, 0, stream>>>(w + 2 * H * H, d->t3, d->h2, d->h)));
	}
	TIMED(k, (gs_dec_pick<<<1, GS_DEC_V, 0, stream>>>(d->wout, d->h, d->tok, d->len,
							  d->out_tokens)));
	return cudaSuccess;
}
