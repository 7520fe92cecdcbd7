/*
 * toy_decode.cuh - a toy decoder step: many tiny kernels per token.
 *
 * Shaped like one token of LLM decoding (embed, then per layer: norm,
 * attention over the cached positions, projection + residual, norm, up,
 * activation, down + residual; then pick the next token), but with a
 * 128-wide hidden state and integer (uint32, wrap-around) arithmetic, so
 * that a CPU reference reproduces every value exactly. It is not a
 * language model: it exists to make launch overhead visible. Each kernel is
 * one small block; a token is GS_DEC_KERNELS_PER_TOKEN launches.
 *
 * Everything a step needs that changes from token to token (current token,
 * position) lives in device memory and is advanced by the step itself, so a
 * step can be captured once in a CUDA Graph and replayed. The one launch
 * parameter is `span`, how many cached positions the attention loop walks:
 * exactly position + 1 when launched eagerly, or a padded length (the
 * maximum, or a bucket) for a graph that must serve many positions;
 * positions beyond the current one are walked but masked out (the padding
 * costs time, not correctness).
 */
#ifndef GAPSCOPE_TOY_DECODE_CUH
#define GAPSCOPE_TOY_DECODE_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#define GS_DEC_H 128	  /* hidden width (threads per block) */
#define GS_DEC_V 512	  /* vocabulary size */
#define GS_DEC_LAYERS 4	  /* layers per token */
#define GS_DEC_MAXLEN 512 /* positions in the cache */
#define GS_DEC_ATT_G 8	  /* threads per hidden column in attention */
#define GS_DEC_KERNELS_PER_LAYER 7
#define GS_DEC_KERNELS_PER_TOKEN (2 + GS_DEC_KERNELS_PER_LAYER * GS_DEC_LAYERS)

/* Device pointers of one decoder (weights, cache, state). */
struct gs_decoder {
	const uint32_t *emb;	/* [V][H] token embeddings */
	const uint32_t *w;	/* [LAYERS][3][H][H]: projection, up, down per layer */
	const uint32_t *wout;	/* [V][H] output (logit) weights */
	uint32_t *kv;		/* [LAYERS][MAXLEN][H] cached layer inputs */
	uint32_t *h, *h2;	/* [H] residual stream */
	uint32_t *t1, *t2, *t3; /* [H] scratch */
	int *tok;		/* the current token (input of the next step) */
	int *len;		/* the current token's position = tokens decoded so far */
	int *out_tokens;	/* [MAXLEN] token chosen at each position */
};

/* Queue one token step on `stream`: GS_DEC_KERNELS_PER_TOKEN launches.
 * span: cached positions the attention walks, position + 1 <= span <=
 * GS_DEC_MAXLEN (the caller's promise; positions past it would be missed).
 * ev: NULL, or 2 * GS_DEC_KERNELS_PER_TOKEN events, recorded just before
 * and just after each kernel, to time the kernels (not while capturing).
 * Returns the first launch error. */
cudaError_t gs_decode_step(const struct gs_decoder *d, int span, cudaStream_t stream,
			   cudaEvent_t *ev);

#endif
