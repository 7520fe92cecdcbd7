/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * trace_samples.c - read the samples of the launching threads (table
 * samples, record's sampler; their frames are stack_frames rows) into the
 * analysis input: per stack, the frame the report names and whether the
 * stack is the framework's dispatch (gs_hstack), and the samples sorted by
 * thread and time. A trace without the table (older, --no-sampling,
 * imported) loads with none.
 *
 * Which frame names a sample's stack (docs/report.md, "What the host
 * ran"): the innermost Python frame outside the standard library
 * (".../lib/python3.X/" not under site-packages or dist-packages, or
 * "<frozen ...>"), so a sample inside multiprocessing's fork names the
 * DataLoader code that started it; else the innermost Python frame; a stack
 * without Python frames: the innermost native frame outside the C and C++
 * runtimes, the unwinders and the CUDA tools, preferring one with a symbol.
 * A stack in the import machinery ("<frozen importlib._bootstrap...>") is
 * named instead by the line that imported (GS_HOST_VIA_IMPORT; not the
 * framework's dispatch): out of its outermost such frame, the first frame
 * of the program's own code (neither the standard library nor an
 * installed package), else the frame just outside.
 * The framework's dispatch: the named Python frame is PyTorch's own code
 * (".../torch/" but torch/utils/data/, its data loading); or the innermost
 * native frame outside the runtimes lies in libtorch, libc10 or a CUDA
 * library (libcudart, libcuda, libcublas, libcudnn, libnccl): with a
 * Python frame of the program named, that line called into the framework
 * (GS_HOST_VIA_FRAMEWORK); without Python frames, any native frame in
 * libtorch or libc10 makes it so. A sample in libpython or numpy under the
 * program's line is the program's own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "trace.h"
#include "trace_samples.h"

static const char *base_name(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;
	return b ? b + 1 : p ? p : "";
}

static int prefixed(const char *s, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strncmp(s, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

static int stdlib_file(const char *f)
{
	return !f || f[0] == '<' ||
	       (strstr(f, "/lib/python3") && !strstr(f, "/site-packages/") &&
		!strstr(f, "/dist-packages/"));
}

/* PyTorch's own code but its data loading. An installed package is named by
 * its path after site-packages/ or dist-packages/ (a virtual environment
 * under /opt/torch/ holds sympy too: H100 image, 2026-12-07); elsewhere (a
 * source checkout) by a "torch/" part of the path. */
static int torch_file(const char *f)
{
	const char *t;

	if (!f)
		return 0;
	if (strstr(f, "/site-packages/") || strstr(f, "/dist-packages/")) {
		t = gs_host_short_path(f);
		if (strncmp(t, "torch/", 6) != 0)
			return 0;
	} else if ((t = strstr(f, "/torch/"))) {
		t++;
	} else if (strncmp(f, "torch/", 6) == 0) {
		t = f;
	} else {
		return 0;
	}
	/* data loading: the DataLoader, and the shared-memory tensors its
	 * worker processes send (torch/multiprocessing/reductions.py) */
	return strncmp(t, "torch/utils/data/", 17) != 0 && strncmp(t, "torch/multiprocessing/", 22) != 0;
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = s ? strlen(s) : 0, b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

/* The DataLoader iterator a Python frame shows (enum gs_loader): the
 * multi-process one waiting for or rebuilding a batch from its workers
 * (_MultiProcessingDataLoaderIter's _try_get_data and _get_data, torch.
 * multiprocessing's rebuild of a shared tensor), or the main thread
 * fetching samples itself (_utils/fetch.py: in the single-process one; a
 * worker process fetches too, but the collector samples no forked child). */
static int loader_frame(const char *file, const char *func)
{
	if (!file)
		return GS_LOADER_UNKNOWN;
	if ((ends_with(file, "torch/utils/data/dataloader.py") && func &&
	     (!strcmp(func, "_try_get_data") || !strcmp(func, "_get_data"))) ||
	    ends_with(file, "torch/multiprocessing/reductions.py"))
		return GS_LOADER_WORKERS;
	if (ends_with(file, "torch/utils/data/_utils/fetch.py"))
		return GS_LOADER_SINGLE;
	return GS_LOADER_UNKNOWN;
}

static int runtime_module(const char *m)
{
	static const char *const names[] = {"libc.so",	   "libc-",	"libm.so",  "libpthread",
					    "ld-linux",	   "libstdc++", "libgcc_s", "libunwind",
					    "libgapscope", "libcupti",	"libdl.so", "librt.so"};
	return prefixed(base_name(m), names, sizeof(names) / sizeof(names[0]));
}

static int framework_module(const char *m, int innermost)
{
	static const char *const fw[] = {"libtorch", "libc10"};
	static const char *const cuda[] = {"libcudart", "libcuda.so", "libcublas", "libcudnn",
					   "libnccl"};
	const char *b = base_name(m);

	return prefixed(b, fw, 2) || (innermost && prefixed(b, cuda, 5));
}

static int importlib_file(const char *f)
{
	return f && strncmp(f, "<frozen importlib._bootstrap", 28) == 0;
}

/* what one stack's rows showed, as they are read (innermost first per kind) */
struct stack_scan {
	int best;	  /* quality of the frame that names it so far */
	int native_seen;  /* the innermost native frame outside the runtimes was met */
	int native_fw;	  /* ... and lies in the framework */
	int any_fw;	  /* a native frame lies in libtorch or libc10 */
	int in_import;	  /* the last Python frame read was the import machinery's */
	int imported;	  /* a frame of the import machinery was met */
	uint32_t imp_file, imp_func;
	int32_t imp_line; /* the frame just outside the outermost one so far */
	uint32_t prog_file, prog_func;
	int32_t prog_line; /* the first of the program's own frames out of that */
	int loader;	   /* enum gs_loader of its frames (workers win) */
	int receive;	   /* a frame of torch.multiprocessing's rebuild of a shared tensor */
};

/* the program's own code: neither the standard library nor an installed
 * package */
static int program_file(const char *f)
{
	return f && !stdlib_file(f) && !strstr(f, "/site-packages/") &&
	       !strstr(f, "/dist-packages/");
}

static void stack_done(const struct gs_strings *str, struct gs_hstack *h, const struct stack_scan *c)
{
	h->loader = (uint8_t)c->loader;
	h->receive = (uint8_t)c->receive;
	if (c->best >= 5) { /* a Python frame names it */
		if (c->imported && c->imp_file) {
			/* the program's line that led to the import (torch's
			 * lazy import of torch._dynamo from the optimizer's
			 * constructor: the program's line that made the
			 * optimizer), else the importing frame */
			int prog = c->prog_file != 0;
			h->file_id = prog ? c->prog_file : c->imp_file;
			h->func_id = prog ? c->prog_func : c->imp_func;
			h->line = prog ? c->prog_line : c->imp_line;
			h->via = GS_HOST_VIA_IMPORT;
			h->framework = 0;
			return;
		}
		h->framework = (uint8_t)torch_file(gs_str(str, h->file_id, NULL));
		if (!h->framework && c->native_fw) {
			h->framework = 1;
			h->via = GS_HOST_VIA_FRAMEWORK;
		}
		return;
	}
	h->framework = (uint8_t)(c->any_fw || c->native_fw);
}

/* Candidate quality of a frame (higher wins; the innermost of the best). */
static int quality(const struct gs_strings *str, int kind, uint32_t file, uint32_t func)
{
	if (kind == 2)
		return stdlib_file(gs_str(str, file, NULL)) ? 5 : 6;
	if (runtime_module(gs_str(str, file, "")))
		return 1;
	return func ? 3 : 2;
}

int trace_load_samples(sqlite3 *db, struct gs_input *in, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct gs_hstack *hs = NULL;
	struct gs_hsample *v = NULL;
	struct gs_hwait *wv = NULL;
	size_t n_w = 0, cap_w = 0;
	int waits;
	struct stack_scan scan;
	int64_t max_id = 0, cur = 0;
	size_t n = 0, cap = 0, n_stacks = 1;
	int rc;

	if (!trace_db_has_table(db, "samples"))
		return 0;
	/* off-CPU samples: recorded since 2026-12-07 (older traces have none) */
	waits = trace_db_has_table(db, "wait_samples");
	if (trace_db_has_table(db, "stack_frames")) {
		if (sqlite3_prepare_v2(db,
				       /* max(a, b) of SQL is NULL where either is */
				       waits ? "SELECT max(coalesce((SELECT max(stack_id) FROM "
					       "samples), 0), coalesce((SELECT max(stack_id) FROM "
					       "wait_samples), 0))"
					     : "SELECT max(stack_id) FROM samples",
				       -1, &st, NULL) != SQLITE_OK)
			goto sqlerr;
		if (sqlite3_step(st) == SQLITE_ROW)
			max_id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
		if (max_id < 0 || max_id > 50000000) {
			snprintf(err, errlen, "samples.stack_id %lld is out of range",
				 (long long)max_id);
			return -1;
		}
	}
	n_stacks = (size_t)max_id + 1;
	hs = calloc(n_stacks, sizeof(*hs));
	if (!hs)
		goto oom;
	memset(&scan, 0, sizeof(scan));
	if (max_id > 0) {
		/* kind 1 native before kind 2 Python is no matter: quality
		 * decides; within a kind rows go innermost first */
		if (sqlite3_prepare_v2(
			db,
			waits ? "SELECT stack_id, kind, coalesce(module_id, file_id, 0), "
				"coalesce(symbol_id, function_id, 0), coalesce(line, -1), depth "
				"FROM stack_frames WHERE stack_id IN (SELECT stack_id FROM "
				"samples UNION SELECT stack_id FROM wait_samples) "
				"ORDER BY stack_id, kind, depth"
			      : "SELECT stack_id, kind, coalesce(module_id, file_id, 0), "
				"coalesce(symbol_id, function_id, 0), coalesce(line, -1), depth "
				"FROM stack_frames WHERE stack_id IN (SELECT DISTINCT stack_id "
				"FROM samples) ORDER BY stack_id, kind, depth",
			-1, &st, NULL) != SQLITE_OK)
			goto sqlerr;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0), fid = sqlite3_column_int64(st, 2),
				nid = sqlite3_column_int64(st, 3);
			int kind = sqlite3_column_int(st, 1), q;
			uint32_t file, func;
			const char *name;
			if (id <= 0 || id > max_id || (kind != 1 && kind != 2))
				continue;
			if (id != cur) {
				if (cur > 0)
					stack_done(&in->strings, &hs[cur], &scan);
				memset(&scan, 0, sizeof(scan));
				cur = id;
			}
			file = fid > 0 && fid < in->strings.n ? (uint32_t)fid : 0;
			func = nid > 0 && nid < in->strings.n ? (uint32_t)nid : 0;
			name = gs_str(&in->strings, file, "");
			if (kind == 1) {
				if (framework_module(name, 0))
					scan.any_fw = 1;
				if (!scan.native_seen && file && !runtime_module(name)) {
					scan.native_seen = 1;
					scan.native_fw = framework_module(name, 1);
				}
			} else if (importlib_file(name)) {
				scan.imported = scan.in_import = 1;
				scan.prog_file = 0;
			} else if (scan.in_import) {
				scan.in_import = 0;
				scan.imp_file = file;
				scan.imp_func = func;
				scan.imp_line = (int32_t)sqlite3_column_int(st, 4);
			}
			/* enum gs_loader: the multi-process iterator (2) wins */
			if (kind == 2 &&
			    (q = loader_frame(name, gs_str(&in->strings, func, NULL))) > scan.loader)
				scan.loader = q;
			if (kind == 2 && ends_with(name, "torch/multiprocessing/reductions.py"))
				scan.receive = 1;
			if (kind == 2 && scan.imported && !scan.in_import && !scan.prog_file &&
			    program_file(gs_str(&in->strings, file, NULL))) {
				scan.prog_file = file;
				scan.prog_func = func;
				scan.prog_line = (int32_t)sqlite3_column_int(st, 4);
			}
			q = quality(&in->strings, kind, file, func);
			if (q > scan.best) {
				scan.best = q;
				hs[id].file_id = file;
				hs[id].func_id = func;
				hs[id].line = kind == 2 ? (int32_t)sqlite3_column_int(st, 4) : -1;
			}
		}
		if (rc != SQLITE_DONE)
			goto sqlerr;
		if (cur > 0)
			stack_done(&in->strings, &hs[cur], &scan);
		sqlite3_finalize(st);
		st = NULL;
	}
	if (sqlite3_prepare_v2(db,
			       "SELECT tid, t, coalesce(stack_id, 0) FROM samples "
			       "WHERE tid > 0 AND tid <= 4294967295 ORDER BY tid, t",
			       -1, &st, NULL) != SQLITE_OK)
		goto sqlerr;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 2);
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			struct gs_hsample *nv = realloc(v, nc * sizeof(*nv));
			if (!nv)
				goto oom;
			v = nv;
			cap = nc;
		}
		v[n].tid = (uint32_t)sqlite3_column_int64(st, 0);
		v[n].t = sqlite3_column_int64(st, 1);
		v[n].stack = id > 0 && (size_t)id < n_stacks ? (uint32_t)id : 0;
		n++;
	}
	if (rc != SQLITE_DONE)
		goto sqlerr;
	sqlite3_finalize(st);
	st = NULL;
	if (waits) {
		if (sqlite3_prepare_v2(db,
				       "SELECT tid, t, ns, coalesce(stack_id, 0) FROM wait_samples "
				       "WHERE tid > 0 AND tid <= 4294967295 AND ns > 0 "
				       "ORDER BY tid, t",
				       -1, &st, NULL) != SQLITE_OK)
			goto sqlerr;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 3);
			if (n_w == cap_w) {
				size_t nc = cap_w ? cap_w * 2 : 256;
				struct gs_hwait *nv = realloc(wv, nc * sizeof(*nv));
				if (!nv)
					goto oom;
				wv = nv;
				cap_w = nc;
			}
			wv[n_w].tid = (uint32_t)sqlite3_column_int64(st, 0);
			wv[n_w].t = sqlite3_column_int64(st, 1);
			wv[n_w].ns = sqlite3_column_int64(st, 2);
			wv[n_w].stack = id > 0 && (size_t)id < n_stacks ? (uint32_t)id : 0;
			n_w++;
		}
		if (rc != SQLITE_DONE)
			goto sqlerr;
		sqlite3_finalize(st);
	}
	in->hstacks = hs;
	in->n_hstacks = n_stacks;
	in->samples = v;
	in->n_samples = n;
	in->waits = wv;
	in->n_waits = n_w;
	return 0;
sqlerr:
	snprintf(err, errlen, "cannot read samples: %s", sqlite3_errmsg(db));
	goto fail;
oom:
	snprintf(err, errlen, "out of memory reading samples");
fail:
	sqlite3_finalize(st);
	free(hs);
	free(v);
	free(wv);
	return -1;
}

void trace_samples_free(struct gs_input *in)
{
	free((void *)in->hstacks);
	free((void *)in->samples);
	free((void *)in->waits);
	in->hstacks = NULL;
	in->samples = NULL;
	in->waits = NULL;
	in->n_hstacks = in->n_samples = in->n_waits = 0;
}
