/*
 * pyframes.c - the innermost Python frames of the calling thread, for the
 * call sites of blocking CUDA calls (callsite.c; declared in callsite.h).
 *
 * With the GIL held by the thread: CPython's public C API, looked up with
 * dlsym (never linked; never called without the GIL; the GIL never taken).
 * Without it (PyTorch releases it around every blocking call it makes), on
 * CPython 3.9 to 3.13: the thread's own frame chain read from interpreter
 * memory at that version's layout, as py-spy reads another process's;
 * nothing written, nothing allocated, every object's type checked first.
 * Separate from callsite.c so that a test can load it into a real Python
 * (tests/unit/pyframes_probe.c) without the writer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "callsite.h"

/* Layouts of CPython's internals (Include/internal/pycore_frame.h,
 * cpython/pystate.h, cpython/frameobject.h, cpython/code.h,
 * cpython/unicodeobject.h), taken with offsetof from the headers of 3.9.18,
 * 3.10.13, 3.11.7, 3.12.1 and 3.13.0 on x86-64, default (GIL) builds
 * (the program that printed them: tools/pyoffsets.c); read on x86-64 only.
 * Up to 3.10 a frame is a heap object (PyFrameObject) reached from
 * PyThreadState.frame; from 3.11 an _PyInterpreterFrame in the thread's
 * data stack, reached through the C frame (3.11, 3.12) or directly (3.13). */
#define PY_OB_TYPE 8 /* PyObject.ob_type */
#define PY_FRAME_OWNED_BY_GENERATOR 1
#define PY_FRAME_OWNED_BY_CSTACK 3 /* 3.12+: a shim frame, no Python code */
#define PY_STR_LENGTH 16	   /* PyASCIIObject.length */
#define PY_STR_STATE 32		   /* .state bit field: */
#define PY_STR_COMPACT 0x20	   /*   compact */
#define PY_STR_ASCII 0x40	   /*   ascii */
#define PY_MAX_FRAMES_WALKED 256

/* The functions that read the interpreter's memory without the GIL: not
 * instrumented in a sanitizer build. What they read is CPython's (never
 * ASan's to check), and in a signal handler the chain may be caught half
 * made: a wild read must fault plainly, for the sampler's guard to catch
 * (sigguard.h), not inside the sanitizer's own shadow check. Copies are
 * byte loops (no memcpy: a sanitizer intercepts it). */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define GS_FOREIGN __attribute__((no_sanitize("address")))
#endif
#endif
#ifndef GS_FOREIGN
#define GS_FOREIGN
#endif

GS_FOREIGN static void copy_foreign(void *dst, const void *src, size_t n)
{
	const volatile unsigned char *s = src;
	unsigned char *d = dst;

	while (n--)
		*d++ = *s++;
}

struct py_layout {
	int minor;
	int tstate_frame;   /* PyThreadState.frame (<= 3.10), .cframe (3.11, 3.12),
			     * .current_frame (3.13) */
	int cframe_current; /* _PyCFrame.current_frame (3.11, 3.12), -1 none */
	int frame_code;	    /* f_code / f_executable */
	int frame_back;	    /* f_back (<= 3.10) / previous */
	int frame_instr;    /* f_lasti, an int (<= 3.10) / prev_instr, instr_ptr */
	int frame_lineno;   /* f_lineno, an int (<= 3.10), -1 none */
	int frame_trace;    /* f_trace (3.9), -1 none */
	int frame_owner;    /* owner, a char (>= 3.11), -1 none */
	int code_filename, code_name;
	int code_adaptive; /* co_code_adaptive: the instructions (3.11) */
	int code_first;	   /* _co_firsttraceable (3.11) */
	int str_data;	   /* sizeof(PyASCIIObject): where its text is */
};

static const struct py_layout py_layouts[] = {
    {9, 24, -1, 32, 24, 104, 108, 80, -1, 104, 112, 0, 0, 48},
    {10, 24, -1, 32, 24, 96, 100, -1, -1, 104, 112, 0, 0, 48},
    {11, 56, 8, 32, 48, 56, -1, -1, 69, 112, 120, 184, 168, 48},
    {12, 56, 0, 0, 8, 56, -1, -1, 70, 112, 120, 192, 176, 40},
    {13, 72, -1, 0, 8, 56, -1, -1, 70, 112, 120, 200, 184, 40},
};

/* The reading of frames without the GIL, for the versions whose layout is
 * above; off (minor 0) for any other version and for the free-threaded
 * build (whose objects and thread states are laid out differently). */
static void resolve_nogil(struct gs_pyapi *a)
{
	const char *(*get_version)(void) =
	    (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
	const char *ver;
	int minor;
	size_t i;

	a->minor = 0;
	a->layout = NULL;
#if !defined(__x86_64__)
	(void)get_version;
	(void)i;
	(void)ver;
	(void)minor;
	return;
#else
	/* Py_Version is 3.11+; Py_GetVersion ("3.9.18 (main, ...") is in all */
	if (!get_version || !(ver = get_version()) || strncmp(ver, "3.", 2) != 0)
		return;
	if (ver[2] < '0' || ver[2] > '9')
		return;
	minor = ver[2] - '0';
	if (ver[3] >= '0' && ver[3] <= '9')
		minor = minor * 10 + (ver[3] - '0');
	if (strstr(ver, "free-threading"))
		return;
	a->this_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	a->iframe_line =
	    (int (*)(void *))dlsym(RTLD_DEFAULT, "PyUnstable_InterpreterFrame_GetLine");
	a->addr2line = (int (*)(void *, int))dlsym(RTLD_DEFAULT, "PyCode_Addr2Line");
	a->code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
	a->unicode_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
	a->frame_type = dlsym(RTLD_DEFAULT, "PyFrame_Type");
	if (!a->this_tstate || !a->addr2line || !a->code_type || !a->unicode_type ||
	    !a->frame_type || (minor >= 12 && !a->iframe_line))
		return;
	for (i = 0; i < sizeof(py_layouts) / sizeof(py_layouts[0]); i++)
		if (py_layouts[i].minor == minor) {
			a->layout = &py_layouts[i];
			a->minor = minor;
		}
#endif
}

int gs_pyapi_resolve(struct gs_pyapi *a)
{
#define SYM(f, name) (a->f = (__typeof__(a->f))dlsym(RTLD_DEFAULT, name)) != NULL
	memset(a, 0, sizeof(*a));
	if (SYM(is_initialized, "Py_IsInitialized") && SYM(gil_check, "PyGILState_Check") &&
	    SYM(tstate_get, "PyThreadState_Get") &&
	    SYM(tstate_get_frame, "PyThreadState_GetFrame") &&
	    SYM(frame_get_code, "PyFrame_GetCode") &&
	    SYM(frame_get_line, "PyFrame_GetLineNumber") &&
	    SYM(frame_get_back, "PyFrame_GetBack") && SYM(getattr, "PyObject_GetAttrString") &&
	    SYM(utf8, "PyUnicode_AsUTF8") && SYM(decref, "Py_DecRef") &&
	    SYM(err_clear, "PyErr_Clear")) {
		resolve_nogil(a);
		return 1;
	}
#undef SYM
	memset(a, 0, sizeof(*a));
	return 0;
}

/* Copy the n bytes at s into cs->text (at most max; a longer text keeps its tail,
 * where a path's file name is). Returns its offset, or -1 when full. */
GS_FOREIGN static int text_addn(struct gs_callsite *cs, const char *s, size_t n, size_t max)
{
	size_t off = cs->text_len;

	if (n > max) {
		s += n - max;
		n = max;
	}
	if (off + n + 1 > GS_CS_TEXT)
		return -1;
	copy_foreign(cs->text + off, s, n);
	cs->text[off + n] = '\0';
	cs->text_len = (uint16_t)(off + n + 1);
	return (int)off;
}

static int text_add(struct gs_callsite *cs, const char *s, size_t max)
{
	return text_addn(cs, s, strlen(s), max);
}

/* Whether the frame just copied (file and func, offsets in cs->text) is
 * CPython's _Py_InitCleanup shim, the frame 3.13 pushes under an __init__
 * it calls from a specialised CALL: a code object whose co_filename and
 * co_name are both "__init__", no Python source. The walks drop it and
 * its text (test_pyframes.py's stress: 0.6-0.7% of the walks on 3.13
 * named "__init__" the innermost file). */
static int init_shim(const struct gs_pyapi *a, struct gs_callsite *cs, int file, int func)
{
	if (a->minor < 12 || strcmp(cs->text + file, "__init__") != 0 ||
	    strcmp(cs->text + func, "__init__") != 0)
		return 0;
	cs->text_len = (uint16_t)file;
	return 1;
}

/* co_filename / co_name of a code object, copied; -1 if not a string. */
static int code_attr(const struct gs_pyapi *a, void *code, const char *attr, struct gs_callsite *cs,
		     size_t max)
{
	void *o = a->getattr(code, attr);
	const char *s;
	int off = -1;

	if (!o) {
		a->err_clear();
		return -1;
	}
	s = a->utf8(o);
	if (s)
		off = text_add(cs, s, max);
	else
		a->err_clear();
	a->decref(o);
	return off;
}

GS_FOREIGN static const char *ptr_at(const char *base, size_t off)
{
	const char *p;

	copy_foreign(&p, base + off, sizeof(p));
	return p;
}

/* Copy the text of str (a compact ASCII str object, checked) into cs;
 * anything else gives "?". Returns its offset, or -1 when full. */
GS_FOREIGN static int ascii_add(const struct gs_pyapi *a, const char *str, struct gs_callsite *cs, size_t max)
{
	uint32_t state;
	int64_t len;

	if (!str || ptr_at(str, PY_OB_TYPE) != a->unicode_type)
		return text_add(cs, "?", max);
	copy_foreign(&state, str + PY_STR_STATE, sizeof(state));
	copy_foreign(&len, str + PY_STR_LENGTH, sizeof(len));
	if (!(state & PY_STR_COMPACT) || !(state & PY_STR_ASCII) || len < 0)
		return text_add(cs, "?", max);
	return text_addn(cs, str + a->layout->str_data, (size_t)len, max);
}

/* The line of a frame, remembered per thread by its code object and
 * instruction pointer. CPython finds it by decoding the code's line table
 * from its start (PyCode_Addr2Line): ~4-7 us for a frame 400 lines into a
 * function on the development machine (3.12.1, 3.13.0), where a whole
 * capture of 8 small frames takes ~0.35 us, and a loop that blocks does so
 * from the same lines again and again. The line is a function of the code
 * object and the instruction, both live while the frame is; a code object
 * freed and another made at the same address would have to hold the same
 * file and name objects too, at the same instruction address, to be taken
 * for it. */
static __thread struct gs_py_line_cache line_cache;

static int line_cache_on = 1;

void gs_py_set_line_cache(int on)
{
	line_cache_on = on;
}

GS_FOREIGN static int32_t int_at(const char *base, int off)
{
	int32_t v;

	copy_foreign(&v, base + off, sizeof(v));
	return v;
}

/* CPython's own line of frame f (code: its code object), as
 * PyFrame_GetLineNumber computes it in that version, without touching
 * anything: PyCode_Addr2Line only reads the code object's line table. */
static int frame_line_uncached(const struct gs_pyapi *a, const char *f, const char *code)
{
	const struct py_layout *l = a->layout;

	if (l->minor >= 12)
		return a->iframe_line((void *)f);
	if (l->minor == 11) {
		const char *instr = ptr_at(f, l->frame_instr);
		const char *first = code + l->code_adaptive;
		return a->addr2line((void *)code, (int)(instr - first));
	}
	/* 3.9: f_lineno is kept while a trace function runs; 3.10: when set */
	if (l->minor == 9 ? ptr_at(f, l->frame_trace) != NULL : int_at(f, l->frame_lineno) != 0)
		return int_at(f, l->frame_lineno);
	/* f_lasti: a byte offset in 3.9, an instruction index in 3.10 */
	return a->addr2line((void *)code, l->minor == 9 ? int_at(f, l->frame_instr)
							: int_at(f, l->frame_instr) * 2);
}

/* cache: the thread's own (line_cache) for a capture in a CUDA call; in a
 * signal handler the sampler's cache of that thread (its ring's: only the
 * handler touches it, and a handler is not interrupted by itself), never
 * line_cache: the handler may have interrupted this thread's own update of
 * an entry, and the TLS may not be set up yet (a first access to a dlopen'ed
 * module's TLS can allocate). NULL: not cached. */
static int frame_line(const struct gs_pyapi *a, const char *f, const char *code,
		      struct gs_py_line_cache *cache)
{
	const struct py_layout *l = a->layout;
	/* the instruction: a pointer from 3.11, an offset in the frame before */
	const char *instr = l->minor >= 11 ? ptr_at(f, l->frame_instr)
					   : (const char *)(intptr_t)int_at(f, l->frame_instr);
	const char *file = ptr_at(code, l->code_filename), *name = ptr_at(code, l->code_name);
	struct gs_py_line_entry *e;

	/* up to 3.10 a line set by a trace function is read from the frame */
	if (!line_cache_on || l->minor <= 10 || !cache)
		return frame_line_uncached(a, f, code);
	e = &cache->e[(((uintptr_t)code >> 4) ^ ((uintptr_t)instr >> 1)) & (GS_PY_LINE_CACHE - 1)];
	if (e->code != code || e->instr != instr || e->file != file || e->name != name) {
		e->code = NULL; /* a capture in a signal handler meanwhile skips it */
		e->line = frame_line_uncached(a, f, code);
		e->instr = instr;
		e->file = file;
		e->name = name;
		e->code = code;
	}
	return e->line;
}

/* 3.11: a frame not yet past its first traceable instruction (one being
 * set up) is skipped, as PyFrame_GetBack skips it. */
GS_FOREIGN static int frame_incomplete(const struct py_layout *l, const char *f, const char *code)
{
	if (l->minor != 11 || f[l->frame_owner] == PY_FRAME_OWNED_BY_GENERATOR)
		return 0;
	return ptr_at(f, l->frame_instr) <
	       code + l->code_adaptive + 2 * int_at(code, l->code_first);
}

/* The calling thread's frames while it does not hold the GIL. Only this
 * thread changes its frame chain, and it is inside this call: the chain,
 * the code objects its frames hold and their strings stay as they are
 * while it is read. Nothing is written, nothing allocated; a frame, code
 * or string object of the wrong type ends the walk. */
/* Whether frame f is one the walk keeps (1), passes (0: a C-stack shim, a
 * 3.11 frame not yet started) or ends at (-1: not a frame, no code). */
GS_FOREIGN static int frame_kept(const struct gs_pyapi *a, const struct py_layout *l, const char *f,
		      const char **codep)
{
	const char *code = ptr_at(f, l->frame_code);

	if (l->minor <= 10 && ptr_at(f, PY_OB_TYPE) != a->frame_type)
		return -1;
	if (l->frame_owner >= 0 && f[l->frame_owner] == PY_FRAME_OWNED_BY_CSTACK)
		return 0;
	if (!code || ptr_at(code, PY_OB_TYPE) != a->code_type)
		return -1;
	*codep = code;
	return frame_incomplete(l, f, code) ? 0 : 1;
}

/* The frames of thread state ts (the calling thread's, or a thread's that
 * does not run while they are read: pyframes_of) */
static int py_frames_ts(const struct gs_pyapi *a, struct gs_callsite *cs,
			struct gs_py_line_cache *cache, const char *ts)
{
	const struct py_layout *l = a->layout;
	const char *f, *first, *code = NULL;
	int n = 0, hops = 0, total = 0, idx = 0, outer_from = GS_CS_PY_MAX, k;

	cs->py_outer = 0;
	cs->py_skipped = 0;
	if (!a->minor || !l || !ts)
		return 0;
	f = ptr_at(ts, l->tstate_frame);
	if (l->cframe_current >= 0)
		f = f ? ptr_at(f, l->cframe_current) : NULL;
	/* In a signal handler the chain may be caught half made (3.11 pops a
	 * frame, freeing its data-stack chunk, before it sets current_frame to
	 * the caller; 3.12 sets tstate->cframe a few instructions before that C
	 * frame's current_frame): the sampler walks under a fault guard
	 * (sigguard.h), and every object's type is checked before it is used. */
	/* first the depth: past GS_CS_PY_MAX frames the walk keeps the
	 * innermost and the outermost GS_CS_PY_OUTER (the chain is this
	 * thread's and does not change while it is read) */
	first = f;
	for (; f && hops < PY_MAX_FRAMES_WALKED; hops++) {
		if ((k = frame_kept(a, l, f, &code)) < 0)
			break;
		total += k;
		f = ptr_at(f, l->frame_back);
	}
	if (total > GS_CS_PY_MAX)
		outer_from = total - GS_CS_PY_OUTER;
	for (f = first, hops = 0; f && cs->n_py < GS_CS_PY_MAX && hops < PY_MAX_FRAMES_WALKED;
	     hops++) {
		int file, func;
		if ((k = frame_kept(a, l, f, &code)) < 0)
			break;
		if (!k)
			goto next;
		if (idx >= GS_CS_PY_MAX - GS_CS_PY_OUTER && idx < outer_from) {
			idx++;
			goto next;
		}
		file = ascii_add(a, ptr_at(code, l->code_filename), cs, GS_CS_FILE_MAX);
		func = file >= 0 ? ascii_add(a, ptr_at(code, l->code_name), cs, GS_CS_FUNC_MAX) : -1;
		if (file < 0 || func < 0)
			break; /* text full */
		if (init_shim(a, cs, file, func))
			goto next;
		cs->py_file[cs->n_py] = (uint16_t)file;
		cs->py_func[cs->n_py] = (uint16_t)func;
		cs->py_line[cs->n_py] = frame_line(a, f, code, cache);
		if (idx >= outer_from) {
			cs->py_outer++;
			cs->py_skipped = (uint16_t)(outer_from - (GS_CS_PY_MAX - GS_CS_PY_OUTER));
		}
		cs->n_py++;
		n++;
		idx++;
	next:
		f = ptr_at(f, l->frame_back);
	}
	return n;
}

static int py_frames_nogil(const struct gs_pyapi *a, struct gs_callsite *cs,
			   struct gs_py_line_cache *cache)
{
	if (!a->minor || !a->layout || !a->this_tstate)
		return 0;
	return py_frames_ts(a, cs, cache, a->this_tstate());
}

int gs_py_frames(const struct gs_pyapi *a, struct gs_callsite *cs)
{
	void *frame;
	int n = 0;

	if (!a || !a->gil_check || !a->is_initialized())
		return 0;
	/* With the GIL held by this thread, through the C API: the thread
	 * state, its frames and every reference count below are then ours to
	 * touch. A thread that released it (PyTorch does around every
	 * blocking call it makes) is read without touching anything. */
	if (a->gil_check() != 1)
		return py_frames_nogil(a, cs, &line_cache);
	frame = a->tstate_get_frame(a->tstate_get());
	while (frame && cs->n_py < GS_CS_PY_MAX) {
		void *code = a->frame_get_code(frame), *back;
		if (code) {
			int file = code_attr(a, code, "co_filename", cs, GS_CS_FILE_MAX);
			int func =
			    file >= 0 ? code_attr(a, code, "co_name", cs, GS_CS_FUNC_MAX) : -1;
			a->decref(code);
			if (file < 0 || func < 0)
				break; /* text full */
			if (init_shim(a, cs, file, func))
				goto next_frame;
			cs->py_file[cs->n_py] = (uint16_t)file;
			cs->py_func[cs->n_py] = (uint16_t)func;
			cs->py_line[cs->n_py] = a->frame_get_line(frame);
			cs->n_py++;
			n++;
		}
	next_frame:
		back = a->frame_get_back(frame);
		a->decref(frame);
		frame = back;
	}
	if (frame)
		a->decref(frame);
	return n;
}

int gs_py_frames_async(const struct gs_pyapi *a, struct gs_callsite *cs,
		       struct gs_py_line_cache *cache)
{
	/* Py_IsInitialized only reads a flag; after finalization began the
	 * thread states may be freed */
	if (!a || !a->is_initialized || !a->minor || !a->is_initialized())
		return 0;
	return py_frames_nogil(a, cs, cache);
}

void *gs_py_tstate(const struct gs_pyapi *a)
{
	if (!a || !a->is_initialized || !a->minor || !a->layout || !a->this_tstate ||
	    !a->is_initialized())
		return NULL;
	return a->this_tstate();
}

int gs_py_frames_of(const struct gs_pyapi *a, struct gs_callsite *cs,
		    struct gs_py_line_cache *cache, const void *tstate)
{
	if (!a || !a->is_initialized || !a->minor || !tstate || !a->is_initialized())
		return 0;
	return py_frames_ts(a, cs, cache, tstate);
}
