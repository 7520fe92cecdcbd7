/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_whatif.h - what `gapscope whatif` needs from the database beyond
 * trace_load(): the bytes of host copies (pageable -> pinned), and the
 * replayed trace written as a new database (a copy of the source with
 * the replayed times), through import_out's temporary file and rename.
 */
#ifndef GAPSCOPE_TRACE_WHATIF_H
#define GAPSCOPE_TRACE_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "trace.h"

/* Per op of in (loaded from t): the bytes of a memcpy with a host side
 * (pageable or pinned source or destination), else 0. *bytes is
 * malloc'ed. 0, or -1 with a one-line reason in err. */
int trace_load_copy_bytes(struct trace *t, const struct gs_input *in, uint64_t **bytes, char *err,
			  size_t errlen);

/* The replayed times of a trace: per op, API call and NVTX range of in. */
struct trace_retime {
	const int64_t *op_start, *op_end;
	const int64_t *api_start, *api_end;
	const int64_t *nvtx_start, *nvtx_end;
	const uint8_t *api_fix;	 /* GS_WHATIF_GONE: the call and its syncs go;
				    GS_WHATIF_ASYNC: its syncs go; GS_WHATIF_GRAPH:
				    named cudaGraphLaunch */
	const uint32_t *op_corr; /* per op: a new correlation (and graph) id, 0 none;
				    may be NULL */
	const char *fixes;	 /* meta whatif.fixes */
};

/* Copy t's database to `out` (atomically replaced), with kernels,
 * memcpys, memsets, api_calls, syncs and nvtx rows moved to the replayed
 * times. 0, or -1 with a one-line reason in err. */
int trace_write_retimed(struct trace *t, const struct gs_input *in, const struct trace_retime *rt,
			const char *out, char *err, size_t errlen);

#endif
