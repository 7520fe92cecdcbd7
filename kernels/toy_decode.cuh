/*
 * toy_decode.cuh - a toy decoder step: many tiny kernels per token.
 *
 * Shaped like one token of LLM decoding at batch 1 (embed; per layer: norm,
 * attention over the cached positions, output projection, residual add,
 * norm, up projection, activation, down projection, residual add; then the
 * logits and the arg max that picks the next token), but with a 128-wide
 * hidden state and integer (uint32, wrap-around) arithmetic, so that a CPU
 * reference reproduces every value exactly. It is not a language model: it
 * exists to make launch overhead visible. As at batch 1 in a real model,
 * every op works on one small vector, so each kernel is meant to run for a
 * microsecond or so: the matrix-vector products and the attention are spread over
 * a few blocks (4 for 128 outputs, 16 for the 512 logits) with several
 * threads per output, so that no thread walks a long dependent loop. A token
 * is GS_DEC_KERNELS_PER_TOKEN launches.
 *
 * Everything a step needs that changes from token to token (current token,
 * position) lives in device memory and is advanced by the step itself, so a
 * step can be captured once in a CUDA Graph and replayed. The one launch
 * parameter is `span`, how many cached positions the attention loop walks:
 * exactly position + 1 when launched eagerly, or a padded length (the
 * maximum, or a bucket) for a graph that must serve many positions;
 * positions beyond the current one are walked but masked out (the padding
 * costs time, not correctness). It does not time anything itself.
 */
#ifndef GAPSCOPE_TOY_DECODE_CUH
#define GAPSCOPE_TOY_DECODE_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#define GS_DEC_H 128	  /* hidden width */
#define GS_DEC_V 512	  /* vocabulary size */
#define GS_DEC_LAYERS 4	  /* layers per token */
#define GS_DEC_MAXLEN 512 /* positions in the cache */
#define GS_DEC_COLS 32	  /* output columns per block (one warp wide: coalesced rows) */
#define GS_DEC_MV_G 16	  /* threads per output column in a matrix-vector product */
#define GS_DEC_ATT_G 16	  /* threads per hidden column in attention */
#define GS_DEC_KERNELS_PER_LAYER 9
#define GS_DEC_KERNELS_PER_TOKEN (2 + GS_DEC_KERNELS_PER_LAYER * GS_DEC_LAYERS)

/* Device pointers of one decoder (weights, cache, state). */
struct gs_decoder {
	const uint32_t *emb;	/* [V][H] token embeddings */
	const uint32_t *w;	/* [LAYERS][3][H][H] input-major: projection, up, down */
	const uint32_t *wout;	/* [H][V] input-major output (logit) weights */
	uint32_t *kv;		/* [LAYERS][MAXLEN][H] cached layer inputs */
	uint32_t *h, *h2;	/* [H] residual stream */
	uint32_t *t1, *t2, *t3; /* [H] scratch */
	uint32_t *logits;	/* [V] scratch */
	int *tok;		/* the current token (input of the next step) */
	int *len;		/* the current token's position = tokens decoded so far */
	int *out_tokens;	/* [MAXLEN] token chosen at each position */
};

/* Queue one token step on `stream`: GS_DEC_KERNELS_PER_TOKEN launches.
 * span: cached positions the attention walks, position + 1 <= span <=
 * GS_DEC_MAXLEN (the caller's promise; positions past it would be missed).
 * Returns the first launch error. */
cudaError_t gs_decode_step(const struct gs_decoder *d, int span, cudaStream_t stream);

#endif
