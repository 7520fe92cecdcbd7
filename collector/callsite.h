/*
 * callsite.h - call sites of blocking CUDA calls (and, optionally, of late
 * launches): a short native backtrace plus, when the calling thread holds
 * CPython's GIL, the innermost Python frames.
 *
 * The capture (gs_callsite_on_api) runs in CUPTI's API callback: it only
 * copies frame addresses and Python names into a struct gs_callsite that
 * travels to the writer thread as a pipeline event. Interning (one row set
 * per distinct stack) and symbolisation (dladdr) happen there, in
 * gs_callsite_apply. Nothing here calls libcupti, so the unit tests run
 * without a GPU; CPython is found at run time (dlsym), never linked.
 */
#ifndef GAPSCOPE_COLLECTOR_CALLSITE_H
#define GAPSCOPE_COLLECTOR_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_callbacks.h>

#include "gapscope/trace_format.h" /* enum gs_callsite_reason */

#define GS_CS_NATIVE_MAX 16 /* native frames kept (innermost first) */
#define GS_CS_PY_MAX 16	    /* Python frames kept (innermost first) */
/* Of a deeper Python stack read without the GIL (samples, call sites of a
 * thread that released it), the innermost GS_CS_PY_MAX - GS_CS_PY_OUTER and
 * the outermost GS_CS_PY_OUTER: an import chain runs 30 to 60 frames deep,
 * and the program's line that started it lies at the outer end (H100
 * training loop, 2026-12-07: none of 813 samples of a 3.6 s gap reached
 * the program's file at 8 innermost frames). */
#define GS_CS_PY_OUTER 6
#define GS_CS_SAMPLE_RAW 14 /* raw native frames a sample with Python frames walks */
#define GS_CS_TEXT 3072	    /* bytes for the Python file and function names */
#define GS_CS_FILE_MAX 200  /* a file name longer than this keeps its tail */
#define GS_CS_FUNC_MAX 80

/* GAPSCOPE_CALLSITES */
enum gs_callsite_mode {
	GS_CS_OFF = 0,
	GS_CS_SYNCS = 1,    /* blocking calls (default) */
	GS_CS_LAUNCHES = 2, /* blocking calls + launches that begin after a host pause */
};

/* Which unwinder walks the native frames (GAPSCOPE_UNWINDER). libunwind's
 * unw_backtrace caches each frame's unwind rule by address and walks a
 * stack it has seen in ~10 ns a frame, libgcc's _Unwind_Backtrace reads
 * the unwind tables again for every frame (~100 ns a frame): see
 * bench/speed/callsite_capture.c. libunwind is loaded with dlopen, never linked;
 * where it is missing, libgcc's is used. */
enum gs_unwinder {
	GS_UNWIND_AUTO = 0,	 /* libunwind if it loads, else libgcc */
	GS_UNWIND_LIBGCC = 1,	 /* libgcc's _Unwind_Backtrace only */
	GS_UNWIND_LIBUNWIND = 2, /* libunwind; libgcc's (with a warning) if it does not load */
};
/* Parse a GAPSCOPE_UNWINDER value ("auto", "libgcc", "libunwind"). Returns
 * 0 and sets *u (enum gs_unwinder), or -1. */
int gs_unwinder_parse(const char *s, int *u);
/* The GAPSCOPE_UNWINDER name of u ("?" if out of range). */
const char *gs_unwinder_str(int u);

/* When a capture walks the native frames (GAPSCOPE_NATIVE_FRAMES). The
 * report names a call site by its innermost Python frame where it has one
 * and never reads the native frames then, and a native walk costs 40-60 us
 * under PyTorch with libgcc's unwinder (H200, transformers GPT-2 generate,
 * whose syncs mostly ran with the GPU idle: the program paid it). */
enum gs_native_walk {
	GS_NATIVE_AUTO = 0,   /* only where the thread has no Python frame */
	GS_NATIVE_ALWAYS = 1, /* every capture */
};
/* Parse a GAPSCOPE_NATIVE_FRAMES value ("auto", "always"): 0 and *v, or -1. */
int gs_native_frames_parse(const char *s, int *v);
/* The GAPSCOPE_NATIVE_FRAMES name of v ("?" if out of range). */
const char *gs_native_frames_str(int v);
/* Set before callbacks are enabled (enum gs_native_walk). */
void gs_callsite_set_native(int when);

/* stack_frames.kind */
enum gs_frame_kind {
	GS_FRAME_NATIVE = 1,
	GS_FRAME_PYTHON = 2,
};

/* A call site as captured. Python names are NUL-terminated strings in
 * text at py_file[i] / py_func[i]. */
struct gs_callsite {
	uint32_t correlation_id;
	int64_t tid;
	uint8_t reason; /* enum gs_callsite_reason */
	uint8_t n_native, n_py;
	/* frames left out between the inner and the outer Python frames: the
	 * last py_outer of the n_py lie py_skipped deeper than their index */
	uint8_t py_outer;
	uint16_t py_skipped;
	/* CUPTI clock (ns): when the capture began and ended, 0 unknown. It
	 * lies outside the API record's [start, end] (CUPTI times the call
	 * inside its callbacks), yet the program was in the call: the viewer
	 * widens the call by it. */
	uint64_t t_begin, t_end;
	void *native[GS_CS_NATIVE_MAX]; /* return addresses, innermost first */
	int32_t py_line[GS_CS_PY_MAX];
	uint16_t py_file[GS_CS_PY_MAX], py_func[GS_CS_PY_MAX]; /* offsets in text */
	uint16_t text_len;
	char text[GS_CS_TEXT];
};

/* Lines of Python frames by code object and instruction (pyframes.c,
 * frame_line): one per thread for the call sites, one per sampled thread
 * for the sampler's handler (its own, so a signal never meets an entry
 * half written). Zeroed: empty. */
#define GS_PY_LINE_CACHE 64
struct gs_py_line_entry {
	const void *code, *instr, *file, *name;
	int line;
};
struct gs_py_line_cache {
	struct gs_py_line_entry e[GS_PY_LINE_CACHE];
};

/* The few CPython C-API functions used, as found with dlsym (test seam:
 * tests fill it with fakes). Objects are opaque pointers. */
struct gs_pyapi {
	int (*is_initialized)(void);		/* Py_IsInitialized */
	int (*gil_check)(void);			/* PyGILState_Check */
	void *(*tstate_get)(void);		/* PyThreadState_Get */
	void *(*tstate_get_frame)(void *);	/* PyThreadState_GetFrame: new ref */
	void *(*frame_get_code)(void *);	/* PyFrame_GetCode: new ref */
	int (*frame_get_line)(void *);		/* PyFrame_GetLineNumber */
	void *(*frame_get_back)(void *);	/* PyFrame_GetBack: new ref */
	void *(*getattr)(void *, const char *); /* PyObject_GetAttrString: new ref */
	const char *(*utf8)(void *);		/* PyUnicode_AsUTF8: borrowed */
	void (*decref)(void *);			/* Py_DecRef */
	void (*err_clear)(void);		/* PyErr_Clear */
	/* Without the GIL (CPython 3.9 to 3.13, not the free-threaded
	 * build): the calling thread's own frames read from interpreter memory
	 * at the layout of that version, as py-spy reads another process's.
	 * NULL / 0 where unsupported: then no Python frames without the GIL. */
	void *(*this_tstate)(void); /* PyGILState_GetThisThreadState */
	int (*iframe_line)(void *); /* PyUnstable_InterpreterFrame_GetLine (3.12+) */
	int (*addr2line)(void *, int); /* PyCode_Addr2Line */
	const void *code_type;	    /* &PyCode_Type */
	const void *unicode_type;   /* &PyUnicode_Type */
	const void *frame_type;	    /* &PyFrame_Type */
	const struct py_layout *layout; /* that version's offsets (pyframes.c) */
	int minor;		    /* 9 to 13, 0: not supported */
};

/* Look the functions up in the process (RTLD_DEFAULT). Returns 1 when all
 * were found (the process is CPython >= 3.9), else 0 and api is zeroed. */
int gs_pyapi_resolve(struct gs_pyapi *api);

/* Append the innermost Python frames of the calling thread to cs, if api
 * is complete and Python is initialised: through the C API when
 * PyGILState_Check() is 1; else, where api->minor is set (3.9-3.13), by reading the
 * thread's own frame chain (stable while the thread is in this call; no
 * reference count touched, nothing allocated, every code and string object
 * checked for its type before use). The GIL is never taken. Returns the
 * number of frames added. */
int gs_py_frames(const struct gs_pyapi *api, struct gs_callsite *cs);

/* The same frames from a signal handler on the thread (the sampler,
 * sampler.c): always by reading the frame chain (CPython 3.9-3.13; never
 * the C API, whether or not the thread holds the GIL), the line cache left
 * alone (lines go through cache, the sampled thread's own, or are not
 * cached where it is NULL), nothing allocated, no lock. Returns the number
 * of frames added. */
struct gs_py_line_cache;
int gs_py_frames_async(const struct gs_pyapi *api, struct gs_callsite *cs,
		       struct gs_py_line_cache *cache);
/* The calling thread's Python thread state (PyGILState_GetThisThreadState:
 * a thread-local read, safe in a signal handler), NULL where it has none or
 * this reader has no layout for the interpreter. */
void *gs_py_tstate(const struct gs_pyapi *api);
/* The frames of another thread, by its thread state (gs_py_tstate on that
 * thread), read as gs_py_frames_async reads them. Sound only while that
 * thread does not run (the sampler's off-CPU samples check its CPU time
 * around the read); the caller guards the read (sigguard.h) against a
 * thread state freed meanwhile. Returns the number of frames added. */
int gs_py_frames_of(const struct gs_pyapi *api, struct gs_callsite *cs,
		    struct gs_py_line_cache *cache, const void *tstate);

/* Without the GIL, a frame's line is remembered per thread by code object
 * and instruction (pyframes.c): on (1, the default) or off (0: CPython's
 * line-table lookup every time; GAPSCOPE_STACK_CACHE=0 turns it off with
 * the stack cache). */
void gs_py_set_line_cache(int on);

/* Native frames of the caller (with the unwinder gs_callsite_set_unwinder
 * chose: libunwind's unw_backtrace, at most 48 frames deep, or libgcc's
 * _Unwind_Backtrace, walked no further than needed), dropping `skip`
 * innermost ones (the collector's own: frame 0 is gs_native_frames itself)
 * and then the leading CUDA-side ones. Returns the number kept (at most
 * GS_CS_NATIVE_MAX). Both unwinders give the same frames. */
int gs_native_frames(struct gs_callsite *cs, int skip);

/* gs_native_frames through the calling thread's stack cache
 * (GAPSCOPE_STACK_CACHE, callsite.c): the same frames, but a stack seen
 * before at the same stack address for the same call (key: the callback
 * domain and id) is checked in place (a few loads) instead of walked. */
int gs_native_frames_cached(struct gs_callsite *cs, int skip, uint32_t key);
/* On (1, the default) or off; set before callbacks are enabled. */
void gs_callsite_set_stack_cache(int on);
/* Native walks made by gs_native_frames_cached in this process (meta
 * callsites.native_walks): captures with native frames less cache hits. */
uint64_t gs_callsite_walks(void);

/* Choose the unwinder (enum gs_unwinder); `lib` is the libunwind file to
 * dlopen (NULL: "libunwind.so.8"; tests name a missing one). Loads it once
 * and warms it on this thread. Returns the unwinder in use:
 * GS_UNWIND_LIBUNWIND or GS_UNWIND_LIBGCC (also before any choice). Call it
 * before callbacks are enabled: the choice is read without a lock. */
int gs_callsite_set_unwinder(int which, const char *lib);
/* The unwinder in use: "libunwind" or "libgcc" (meta collector.unwinder). */
const char *gs_callsite_unwinder_name(void);

/* ---- in the CUPTI callback ---- */

/* Set up once (collector start): mode, the Python API, and a first
 * backtrace() call (glibc loads libgcc_s on its first use: better at start
 * than inside an application's CUDA call). */
void gs_callsite_init(int mode);
/* The clock that times each capture (cs->t_begin, t_end; the collector's
 * CUPTI clock), read only when a capture is taken. NULL (tests): 0, not
 * timed. Set before callbacks are enabled. */
void gs_callsite_set_clock(uint64_t (*now)(void));
/* Override the Python API (tests). NULL: no Python. */
void gs_callsite_set_pyapi(const struct gs_pyapi *api);

/* Which calls get callbacks for `mode`: fills up to max (domain, cbid)
 * pairs, returns how many. */
struct gs_callsite_cbid {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
};
size_t gs_callsite_cbids(int mode, struct gs_callsite_cbid *out, size_t max);

/* Class of a call: 0 none, GS_CS_WHY_* when it is captured in `mode`. */
int gs_callsite_class(int mode, CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/* Called for every API callback (enter and exit). Returns 1 and fills cs
 * when a call site was captured (the caller hands it to the writer). */
int gs_callsite_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		       const CUpti_CallbackData *cb, struct gs_callsite *cs);
/* Thresholds (ns) of the on_api policy; tests may lower them. */
void gs_callsite_set_thresholds(uint64_t slow_copy_ns, uint64_t late_launch_ns,
				uint64_t launch_interval_ns);

/* Counters for meta: captured, with Python frames. */
void gs_callsite_counts(uint64_t *captured, uint64_t *with_python);

/* ---- in the sampler's signal handler (sampler.c) ---- */

/* Resolve what captures need (the Python API, the modules whose frames
 * lead a callback's walk or must not be interrupted), once; before any
 * capture or sample. gs_callsite_init calls it when call sites are on. */
void gs_callsite_prepare(void);
/* 1 when samples read Python frames: the process has CPython's API and a
 * frame layout this reader knows (after gs_callsite_prepare). */
int gs_callsite_python(void);
/* A sample of the calling thread, in a signal handler that interrupted it
 * at pc: Python frames as gs_py_frames_async reads them, native frames
 * (from pc outward, per gs_callsite_set_native's policy; none where pc is
 * in an unwinder or the collector). Async-signal-safe given the unwinder
 * is (libunwind's, libgcc's with _dl_find_object). Sets frames and text
 * only (tid, t_begin are the caller's). The Python frames are read under
 * guard (sigguard.h: a fault of the walk jumps back), and not at all
 * without one. Returns the frames taken, or -1 when the Python walk
 * faulted (the sample is then to be dropped). */
struct gs_sigguard;
int gs_callsite_sample(struct gs_callsite *cs, const void *pc, struct gs_py_line_cache *cache,
		       struct gs_sigguard *guard);
/* The calling thread's Python thread state, for gs_callsite_sample_of
 * (NULL: none, or samples read no Python frames). Signal-safe. */
void *gs_callsite_tstate(void);
/* A sample of another thread, off CPU, by its thread state: its Python
 * frames (gs_py_frames_of) under guard (the caller's: the thread that
 * reads), no native frame. Sets frames and text only. Returns the frames
 * taken, or -1 when the walk faulted. */
int gs_callsite_sample_of(struct gs_callsite *cs, const void *tstate,
			  struct gs_py_line_cache *cache, struct gs_sigguard *guard);

/* ---- on the writer side ---- */

struct gs_writer;
struct gs_stack_table;
struct gs_stack_table *gs_stack_table_new(void);
void gs_stack_table_free(struct gs_stack_table *t);
/* Stack id (> 0) of cs's frames: the same frames give the same id. *is_new
 * is set when this is its first sighting. Returns 0 when out of memory. */
int64_t gs_stack_intern(struct gs_stack_table *t, const struct gs_callsite *cs, int *is_new);

/* Module path, offset from its load address and nearest exported symbol
 * of a code address (dladdr). sym is "" when none. Returns 0, -1 when the
 * address is in no loaded module. */
int gs_symbolise(const void *addr, char *module, size_t mlen, uint64_t *offset, char *sym,
		 size_t slen);

/* Rows (writer.c, the call-site block): one stack_frames row; one
 * api_stacks row. String ids from gs_writer_intern (0: NULL). */
int gs_writer_stack_frame(struct gs_writer *w, int64_t stack_id, int depth, int kind,
			  int64_t module_id, int64_t offset, int64_t symbol_id, int64_t file_id,
			  int64_t line, int64_t function_id);
int gs_writer_api_stack(struct gs_writer *w, uint32_t correlation_id, int64_t stack_id, int64_t tid,
			int reason, uint64_t capture_start, uint64_t capture_end);

/* Writer thread: intern cs in t (NULL: the process's table, freed by
 * gs_callsite_reset); for a new stack, symbolise and write its
 * stack_frames rows; then the api_stacks row. */
int gs_callsite_apply(struct gs_writer *w, struct gs_stack_table *t, const struct gs_callsite *cs);
/* Writer thread: a sample (sampler.c; cs->tid, cs->t_begin its time): the
 * stack interned as gs_callsite_apply does (a sample with no frames has
 * none), then a samples row. */
int gs_sample_apply(struct gs_writer *w, struct gs_stack_table *t, const struct gs_callsite *cs);
/* One samples row (writer.c); stack_id 0: no frames. */
int gs_writer_sample(struct gs_writer *w, int64_t tid, uint64_t t, int64_t stack_id);
/* An off-CPU sample: thread tid was off CPU for ns of the time up to t
 * (table wait_samples) */
int gs_writer_wait_sample(struct gs_writer *w, int64_t tid, uint64_t t, int64_t ns,
			  int64_t stack_id);
/* At finalize: meta config.callsites and callsites.* counts, then free
 * the process's stack table. */
void gs_callsite_finish(struct gs_writer *w);

#endif
