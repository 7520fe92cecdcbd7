/*
 * pyframes.c - the innermost Python frames of the calling thread, for the
 * call sites of blocking CUDA calls (callsite.c; declared in callsite.h).
 *
 * With the GIL held by the thread: CPython's public C API, looked up with
 * dlsym (never linked; never called without the GIL; the GIL never taken).
 * Without it (PyTorch releases it around every blocking call it makes), on
 * CPython 3.12 and 3.13: the thread's own frame chain read from interpreter
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
 * cpython/pystate.h, cpython/code.h, cpython/unicodeobject.h), taken with
 * offsetof from the headers of 3.12.1 and 3.13.0 on x86-64, default (GIL)
 * builds; read on x86-64 only. */
#define PY_OB_TYPE 8		   /* PyObject.ob_type */
#define PY312_TSTATE_CFRAME 56	   /* PyThreadState.cframe */
#define PY312_CFRAME_CURRENT 0	   /* _PyCFrame.current_frame */
#define PY313_TSTATE_CURRENT 72	   /* PyThreadState.current_frame */
#define PY_IFRAME_CODE 0	   /* _PyInterpreterFrame.f_code / f_executable */
#define PY_IFRAME_PREVIOUS 8	   /* .previous */
#define PY_IFRAME_INSTR 56	   /* .prev_instr (3.12) / .instr_ptr (3.13) */
#define PY_IFRAME_OWNER 70	   /* .owner (char) */
#define PY_FRAME_OWNED_BY_CSTACK 3 /* a shim frame, no Python code */
#define PY_CODE_FILENAME 112	   /* PyCodeObject.co_filename */
#define PY_CODE_NAME 120	   /* .co_name */
#define PY_STR_LENGTH 16	   /* PyASCIIObject.length */
#define PY_STR_STATE 32		   /* .state bit field: */
#define PY_STR_COMPACT 0x20	   /*   compact */
#define PY_STR_ASCII 0x40	   /*   ascii */
#define PY_STR_ASCII_DATA 40	   /* sizeof(PyASCIIObject): where its text is */
#define PY_MAX_FRAMES_WALKED 256

/* The reading of frames without the GIL, for the versions whose layout is
 * above; off (minor 0) for any other version and for the free-threaded
 * build (whose objects and thread states are laid out differently). */
static void resolve_nogil(struct gs_pyapi *a)
{
	const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
	const char *(*get_version)(void) =
	    (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
	unsigned long v;

	a->minor = 0;
#if !defined(__x86_64__)
	(void)version;
	(void)get_version;
	return;
#else
	if (!version || !get_version)
		return;
	v = *version;
	if ((v >> 24) != 3 || (((v >> 16) & 0xff) != 12 && ((v >> 16) & 0xff) != 13))
		return;
	if (strstr(get_version(), "free-threading"))
		return;
	a->this_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	a->iframe_line =
	    (int (*)(void *))dlsym(RTLD_DEFAULT, "PyUnstable_InterpreterFrame_GetLine");
	a->code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
	a->unicode_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
	if (a->this_tstate && a->iframe_line && a->code_type && a->unicode_type)
		a->minor = (int)((v >> 16) & 0xff);
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
static int text_addn(struct gs_callsite *cs, const char *s, size_t n, size_t max)
{
	size_t off = cs->text_len;

	if (n > max) {
		s += n - max;
		n = max;
	}
	if (off + n + 1 > GS_CS_TEXT)
		return -1;
	memcpy(cs->text + off, s, n);
	cs->text[off + n] = '\0';
	cs->text_len = (uint16_t)(off + n + 1);
	return (int)off;
}

static int text_add(struct gs_callsite *cs, const char *s, size_t max)
{
	return text_addn(cs, s, strlen(s), max);
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

static const char *ptr_at(const char *base, size_t off)
{
	const char *p;

	memcpy(&p, base + off, sizeof(p));
	return p;
}

/* Copy the text of str (a compact ASCII str object, checked) into cs;
 * anything else gives "?". Returns its offset, or -1 when full. */
static int ascii_add(const struct gs_pyapi *a, const char *str, struct gs_callsite *cs, size_t max)
{
	uint32_t state;
	int64_t len;

	if (!str || ptr_at(str, PY_OB_TYPE) != a->unicode_type)
		return text_add(cs, "?", max);
	memcpy(&state, str + PY_STR_STATE, sizeof(state));
	memcpy(&len, str + PY_STR_LENGTH, sizeof(len));
	if (!(state & PY_STR_COMPACT) || !(state & PY_STR_ASCII) || len < 0)
		return text_add(cs, "?", max);
	return text_addn(cs, str + PY_STR_ASCII_DATA, (size_t)len, max);
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
#define LINE_CACHE 64
static __thread struct line_entry {
	const void *code, *instr, *file, *name;
	int line;
} line_cache[LINE_CACHE];

static int line_cache_on = 1;

void gs_py_set_line_cache(int on)
{
	line_cache_on = on;
}

static int frame_line(const struct gs_pyapi *a, const char *f, const char *code)
{
	const char *instr = ptr_at(f, PY_IFRAME_INSTR);
	const char *file = ptr_at(code, PY_CODE_FILENAME), *name = ptr_at(code, PY_CODE_NAME);
	struct line_entry *e =
	    &line_cache[(((uintptr_t)code >> 4) ^ ((uintptr_t)instr >> 1)) & (LINE_CACHE - 1)];

	if (!line_cache_on)
		return a->iframe_line((void *)f);
	if (e->code != code || e->instr != instr || e->file != file || e->name != name) {
		e->code = NULL; /* a capture in a signal handler meanwhile skips it */
		e->line = a->iframe_line((void *)f);
		e->instr = instr;
		e->file = file;
		e->name = name;
		e->code = code;
	}
	return e->line;
}

/* The calling thread's frames while it does not hold the GIL. Only this
 * thread changes its frame chain, and it is inside this call: the chain,
 * the code objects its frames hold and their strings stay as they are
 * while it is read. Nothing is written, nothing allocated; a code or string
 * object of the wrong type ends the walk. */
static int py_frames_nogil(const struct gs_pyapi *a, struct gs_callsite *cs)
{
	const char *ts, *f;
	int n = 0, hops = 0;

	if (!a->minor || !a->this_tstate || !(ts = a->this_tstate()))
		return 0;
	if (a->minor == 12) {
		const char *cframe = ptr_at(ts, PY312_TSTATE_CFRAME);
		f = cframe ? ptr_at(cframe, PY312_CFRAME_CURRENT) : NULL;
	} else {
		f = ptr_at(ts, PY313_TSTATE_CURRENT);
	}
	for (; f && cs->n_py < GS_CS_PY_MAX && hops < PY_MAX_FRAMES_WALKED; hops++) {
		const char *code = ptr_at(f, PY_IFRAME_CODE);
		if (f[PY_IFRAME_OWNER] != PY_FRAME_OWNED_BY_CSTACK) {
			int file, func;
			if (!code || ptr_at(code, PY_OB_TYPE) != a->code_type)
				break;
			file = ascii_add(a, ptr_at(code, PY_CODE_FILENAME), cs, GS_CS_FILE_MAX);
			func = file >= 0
				   ? ascii_add(a, ptr_at(code, PY_CODE_NAME), cs, GS_CS_FUNC_MAX)
				   : -1;
			if (file < 0 || func < 0)
				break; /* text full */
			cs->py_file[cs->n_py] = (uint16_t)file;
			cs->py_func[cs->n_py] = (uint16_t)func;
			cs->py_line[cs->n_py] = frame_line(a, f, code);
			cs->n_py++;
			n++;
		}
		f = ptr_at(f, PY_IFRAME_PREVIOUS);
	}
	return n;
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
		return py_frames_nogil(a, cs);
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
			cs->py_file[cs->n_py] = (uint16_t)file;
			cs->py_func[cs->n_py] = (uint16_t)func;
			cs->py_line[cs->n_py] = a->frame_get_line(frame);
			cs->n_py++;
			n++;
		}
		back = a->frame_get_back(frame);
		a->decref(frame);
		frame = back;
	}
	if (frame)
		a->decref(frame);
	return n;
}
