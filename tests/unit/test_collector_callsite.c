/*
 * test_collector_callsite.c - call sites (collector/callsite.c): stack
 * interning, dladdr symbolisation of a function of this binary (linked
 * with ENABLE_EXPORTS), the Python-frame reader against a fake CPython API
 * (with and without the GIL, references balanced), the capture policy of
 * the API callback, and the rows the writer stores. No GPU needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <sqlite3.h>

#include "internal.h"

/* ------------------------------------------------------------- helpers */

static void add_py(struct gs_callsite *cs, const char *file, int line, const char *func)
{
	size_t a = strlen(file) + 1, b = strlen(func) + 1;

	cs->py_file[cs->n_py] = cs->text_len;
	memcpy(cs->text + cs->text_len, file, a);
	cs->text_len = (uint16_t)(cs->text_len + a);
	cs->py_func[cs->n_py] = cs->text_len;
	memcpy(cs->text + cs->text_len, func, b);
	cs->text_len = (uint16_t)(cs->text_len + b);
	cs->py_line[cs->n_py++] = line;
}

static void native3(struct gs_callsite *cs, uintptr_t a, uintptr_t b, uintptr_t c)
{
	memset(cs, 0, sizeof(*cs));
	cs->native[0] = (void *)a;
	cs->native[1] = (void *)b;
	cs->native[2] = (void *)c;
	cs->n_native = 3;
}

/* ------------------------------------------------------------- interning */

static void test_same_stack_same_id_different_stack_new_id(void **state)
{
	struct gs_stack_table *t = gs_stack_table_new();
	struct gs_callsite a, b, c, d;
	int is_new;
	(void)state;

	native3(&a, 0x1000, 0x2000, 0x3000);
	add_py(&a, "train.py", 27, "train_one_epoch");
	b = a;
	b.correlation_id = 99; /* another call from the same place */
	b.tid = 5;
	native3(&c, 0x1000, 0x2000, 0x3008); /* one frame differs */
	add_py(&c, "train.py", 27, "train_one_epoch");
	native3(&d, 0x1000, 0x2000, 0x3000); /* same native, other line */
	add_py(&d, "train.py", 28, "train_one_epoch");

	assert_int_equal(gs_stack_intern(t, &a, &is_new), 1);
	assert_int_equal(is_new, 1);
	assert_int_equal(gs_stack_intern(t, &b, &is_new), 1);
	assert_int_equal(is_new, 0);
	assert_int_equal(gs_stack_intern(t, &c, &is_new), 2);
	assert_int_equal(is_new, 1);
	assert_int_equal(gs_stack_intern(t, &d, &is_new), 3);
	assert_int_equal(is_new, 1);
	assert_int_equal(gs_stack_intern(t, &a, &is_new), 1);
	assert_int_equal(is_new, 0);
	gs_stack_table_free(t);
}

static void test_intern_survives_growth(void **state)
{
	struct gs_stack_table *t = gs_stack_table_new();
	struct gs_callsite cs;
	int is_new, i;
	(void)state;

	for (i = 0; i < 1000; i++) {
		native3(&cs, 0x1000, (uintptr_t)i * 16 + 0x4000, 0x3000);
		assert_int_equal(gs_stack_intern(t, &cs, &is_new), i + 1);
		assert_int_equal(is_new, 1);
	}
	native3(&cs, 0x1000, 500 * 16 + 0x4000, 0x3000);
	assert_int_equal(gs_stack_intern(t, &cs, &is_new), 501);
	assert_int_equal(is_new, 0);
	gs_stack_table_free(t);
}

/* ------------------------------------------------------------- symbols */

/* exported from the test executable (ENABLE_EXPORTS) */
__attribute__((noinline, visibility("default"))) int gs_test_copy_back(int x);
__attribute__((noinline, visibility("default"))) int gs_test_copy_back(int x)
{
	return x * 3 + 1;
}

static void test_symbolise_names_a_function_of_the_executable(void **state)
{
	char module[1024], sym[256], exe[1024];
	uint64_t off = 0, off2 = 0;
	const char *base;
	ssize_t n;
	(void)state;

	/* an address 4 bytes into the function, like a return address */
	assert_int_equal(gs_symbolise((const char *)(uintptr_t)gs_test_copy_back + 4, module,
				      sizeof(module), &off, sym, sizeof(sym)),
			 0);
	assert_string_equal(sym, "gs_test_copy_back");
	base = strrchr(module, '/');
	assert_non_null(base);
	assert_string_equal(base + 1, "test_collector_callsite");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_string_equal(strrchr(exe, '/'), base);
	/* offsets are relative to the module: two addresses 4 bytes apart */
	assert_int_equal(gs_symbolise((const char *)(uintptr_t)gs_test_copy_back + 8, module,
				      sizeof(module), &off2, sym, sizeof(sym)),
			 0);
	assert_int_equal(off2 - off, 4);
	assert_true(off < (uint64_t)64 << 20);
	assert_int_equal(gs_test_copy_back(1), 4);
}

static void test_symbolise_unknown_address_fails(void **state)
{
	char module[64], sym[64];
	uint64_t off = 7;
	(void)state;
	assert_int_equal(gs_symbolise((void *)16, module, sizeof(module), &off, sym, sizeof(sym)),
			 -1);
	assert_int_equal(off, 0);
	assert_string_equal(module, "");
}

/* ------------------------------------------------------------- fake CPython */

struct fobj {
	int type; /* 1 frame, 2 code, 3 str */
	int refs; /* references the code under test holds */
	int line;
	struct fobj *back, *code;
	const char *file, *name, *s;
	struct fobj *file_str, *name_str;
};

static struct {
	int gil, initialized;
	int calls_tstate, news, decrefs;
	struct fobj frames[3], codes[3], strs[6];
} F;

static void *take(struct fobj *o)
{
	if (o) {
		o->refs++;
		F.news++;
	}
	return o;
}
static int f_init(void)
{
	return F.initialized;
}
static int f_gil(void)
{
	return F.gil;
}
static void *f_tstate(void)
{
	F.calls_tstate++;
	return &F;
}
static void *f_get_frame(void *ts)
{
	assert_ptr_equal(ts, &F);
	return take(&F.frames[0]);
}
static void *f_code(void *f)
{
	return take(((struct fobj *)f)->code);
}
static int f_line(void *f)
{
	return ((struct fobj *)f)->line;
}
static void *f_back(void *f)
{
	return take(((struct fobj *)f)->back);
}
static void *f_getattr(void *o, const char *name)
{
	struct fobj *c = o;
	assert_int_equal(c->type, 2);
	if (strcmp(name, "co_filename") == 0)
		return take(c->file_str);
	if (strcmp(name, "co_name") == 0)
		return take(c->name_str);
	return NULL;
}
static const char *f_utf8(void *o)
{
	return ((struct fobj *)o)->s;
}
static void f_decref(void *o)
{
	struct fobj *x = o;
	assert_true(x->refs > 0);
	x->refs--;
	F.decrefs++;
}
static void f_clear(void)
{
}

static const struct gs_pyapi fake_api = {
    f_init,   f_gil,   f_tstate, f_get_frame, f_code, f_line, f_back, f_getattr, f_utf8,
    f_decref, f_clear, NULL,	 NULL,	      NULL,   NULL,   NULL, NULL, NULL,
    0, /* no reading without the GIL */
};

static void fake_python(void)
{
	static const char *const files[3] = {"/usr/lib/python3/site-packages/torch/_tensor.py",
					     "/home/u/train.py", "/home/u/train.py"};
	static const char *const names[3] = {"item", "train_one_epoch", "<module>"};
	static const int lines[3] = {41, 27, 60};
	int i;

	memset(&F, 0, sizeof(F));
	F.gil = F.initialized = 1;
	for (i = 0; i < 3; i++) {
		F.strs[2 * i] = (struct fobj){.type = 3, .s = files[i]};
		F.strs[2 * i + 1] = (struct fobj){.type = 3, .s = names[i]};
		F.codes[i] = (struct fobj){
		    .type = 2, .file_str = &F.strs[2 * i], .name_str = &F.strs[2 * i + 1]};
		F.frames[i] = (struct fobj){.type = 1,
					    .line = lines[i],
					    .code = &F.codes[i],
					    .back = i < 2 ? &F.frames[i + 1] : NULL};
	}
}

static void test_python_frames_innermost_first_refs_balanced(void **state)
{
	struct gs_callsite cs;
	int i;
	(void)state;

	fake_python();
	memset(&cs, 0, sizeof(cs));
	assert_int_equal(gs_py_frames(&fake_api, &cs), 3);
	assert_int_equal(cs.n_py, 3);
	assert_string_equal(cs.text + cs.py_file[0],
			    "/usr/lib/python3/site-packages/torch/_tensor.py");
	assert_string_equal(cs.text + cs.py_func[0], "item");
	assert_int_equal(cs.py_line[0], 41);
	assert_string_equal(cs.text + cs.py_file[1], "/home/u/train.py");
	assert_string_equal(cs.text + cs.py_func[1], "train_one_epoch");
	assert_int_equal(cs.py_line[1], 27);
	assert_string_equal(cs.text + cs.py_func[2], "<module>");
	assert_int_equal(cs.py_line[2], 60);
	/* every new reference given back: 3 frames, 3 codes, 6 strings */
	assert_int_equal(F.news, 12);
	assert_int_equal(F.decrefs, 12);
	for (i = 0; i < 3; i++)
		assert_int_equal(F.frames[i].refs + F.codes[i].refs, 0);
}

static void test_python_frames_not_read_without_the_gil(void **state)
{
	struct gs_callsite cs;
	(void)state;

	fake_python();
	F.gil = 0;
	memset(&cs, 0, sizeof(cs));
	assert_int_equal(gs_py_frames(&fake_api, &cs), 0);
	assert_int_equal(cs.n_py, 0);
	assert_int_equal(F.calls_tstate, 0); /* not even the thread state */
	assert_int_equal(F.news, 0);
	fake_python();
	F.initialized = 0;
	assert_int_equal(gs_py_frames(&fake_api, &cs), 0);
	assert_int_equal(F.calls_tstate, 0);
	assert_int_equal(gs_py_frames(NULL, &cs), 0);
}

static void test_python_long_path_keeps_its_tail_and_depth_is_bounded(void **state)
{
	struct gs_callsite cs;
	char longpath[400];
	int i;
	(void)state;

	fake_python();
	memset(longpath, 'd', sizeof(longpath));
	memcpy(longpath + sizeof(longpath) - 10, "/train.py", 10);
	F.strs[2].s = longpath;
	/* a cycle: an endless stack must stop at GS_CS_PY_MAX */
	F.frames[2].back = &F.frames[0];
	memset(&cs, 0, sizeof(cs));
	assert_int_equal(gs_py_frames(&fake_api, &cs), GS_CS_PY_MAX);
	assert_int_equal(strlen(cs.text + cs.py_file[1]), GS_CS_FILE_MAX);
	assert_string_equal(cs.text + cs.py_file[1] + GS_CS_FILE_MAX - 9, "/train.py");
	assert_int_equal(F.news, F.decrefs);
	for (i = 0; i < 3; i++)
		assert_int_equal(F.frames[i].refs, 0);
}

/* ------------------------------------------------------------- policy */

static int on(CUpti_CallbackDomain d, CUpti_CallbackId id, int enter, uint32_t corr,
	      struct gs_callsite *cs)
{
	CUpti_CallbackData cb;

	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = enter ? CUPTI_API_ENTER : CUPTI_API_EXIT;
	cb.correlationId = corr;
	return gs_callsite_on_api(d, id, &cb, cs);
}

#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define DR CUPTI_CB_DOMAIN_DRIVER_API

/* Recurses n times, then takes glibc's backtrace() (the reference) and the
 * collector's frames (skip 1: gs_native_frames' own). The volatile adds
 * after the calls keep each level a real frame (no tail calls). */
static volatile int sink;
static __attribute__((noinline)) int recurse(int n, struct gs_callsite *cs, void **ref, int *nref)
{
	int r;

	if (n == 0) {
		*nref = backtrace(ref, 64);
		r = gs_native_frames(cs, 1);
		sink += r;
		return r;
	}
	r = recurse(n - 1, cs, ref, nref);
	sink += r;
	return r;
}

static void test_native_frames_match_backtrace_and_stop_at_the_cap(void **state)
{
	struct gs_callsite cs;
	void *ref[64];
	int nref = 0, k, j;
	(void)state;

	/* 12 levels, this test, cmocka, main and libc: deeper than kept, so
	 * the walk stops at GS_CS_NATIVE_MAX, and the last frames kept are
	 * this test's callers, each at its own address */
	memset(&cs, 0, sizeof(cs));
	assert_int_equal(recurse(12, &cs, ref, &nref), GS_CS_NATIVE_MAX);
	assert_int_equal(cs.n_native, GS_CS_NATIVE_MAX);
	assert_true(nref > GS_CS_NATIVE_MAX);
	/* frame 0 is in recurse(0) after a different call; the callers are
	 * the same return addresses as backtrace() gives, from its frame 1 on
	 * (from 2 under ASan, whose backtrace() interceptor is a frame too) */
	for (j = 1; j < 3 && ref[j] != cs.native[1]; j++)
		;
	assert_true(j < 3);
	assert_true(nref - (j - 1) > GS_CS_NATIVE_MAX);
	for (k = 1; k < GS_CS_NATIVE_MAX; k++)
		assert_ptr_equal(cs.native[k], ref[j - 1 + k]);
	assert_ptr_not_equal(cs.native[GS_CS_NATIVE_MAX - 1], cs.native[1]);
	/* 3 levels: the whole stack, as deep as backtrace()'s */
	memset(&cs, 0, sizeof(cs));
	recurse(3, &cs, ref, &nref);
	if (nref - (j - 1) < GS_CS_NATIVE_MAX) {
		assert_int_equal(cs.n_native, nref - (j - 1));
		for (k = 1; k < cs.n_native; k++)
			assert_ptr_equal(cs.native[k], ref[j - 1 + k]);
	}
}

/* libunwind's unwinder for the test, or skip it where libunwind.so.8 is
 * not installed (tools/deps.sh test installs it) */
static void use_libunwind_or_skip(void)
{
	if (gs_callsite_set_unwinder(GS_UNWIND_AUTO, NULL) != GS_UNWIND_LIBUNWIND) {
		gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
		skip();
	}
}

/* The same stack walked by libgcc's unwinder and by libunwind's, from one
 * frame: the frames past the walkers' own call site are the same addresses,
 * as many of them. */
static __attribute__((noinline)) int recurse_both(int n, struct gs_callsite *gcc,
						  struct gs_callsite *unw)
{
	int r;

	if (n == 0) {
		gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
		r = gs_native_frames(gcc, 1);
		gs_callsite_set_unwinder(GS_UNWIND_LIBUNWIND, NULL);
		r += gs_native_frames(unw, 1);
		sink += r;
		return r;
	}
	r = recurse_both(n - 1, gcc, unw);
	sink += r;
	return r;
}

static void test_libunwind_walks_the_frames_libgcc_walks(void **state)
{
	static const int depths[] = {12, 3, 30};
	struct gs_callsite gcc, unw;
	size_t d;
	int k;
	(void)state;

	use_libunwind_or_skip();
	assert_string_equal(gs_callsite_unwinder_name(), "libunwind");
	for (d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		memset(&gcc, 0, sizeof(gcc));
		memset(&unw, 0, sizeof(unw));
		recurse_both(depths[d], &gcc, &unw);
		/* 12 and 30 levels are deeper than kept, 3 is not (cmocka,
		 * main and libc below it: fewer than 16) */
		assert_int_equal(gcc.n_native, depths[d] > 3 ? GS_CS_NATIVE_MAX : gcc.n_native);
		assert_int_equal(unw.n_native, gcc.n_native);
		/* frame 0: each walker's own call site in recurse_both(0) */
		assert_ptr_not_equal(unw.native[0], gcc.native[0]);
		for (k = 1; k < gcc.n_native; k++)
			assert_ptr_equal(unw.native[k], gcc.native[k]);
	}
	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
	assert_string_equal(gs_callsite_unwinder_name(), "libgcc");
}

#if defined(__x86_64__)
/* A frame without unwind information, as hand-written assembly in a driver
 * may have: gs_test_nocfi_call(fn, arg) has no FDE (no .cfi directives),
 * puts an address that is not mapped into %rbp (where libunwind's fallback
 * looks for a frame-pointer chain) and calls fn(arg). */
__asm__(".text\n"
	".globl gs_test_nocfi_call\n"
	".type gs_test_nocfi_call, @function\n"
	"gs_test_nocfi_call:\n"
	"	push %rbp\n"
	"	movabs $0x00007ff0deadbee0, %rbp\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	call *%rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size gs_test_nocfi_call, .-gs_test_nocfi_call\n");
void gs_test_nocfi_call(void (*fn)(void *), void *arg);

struct two_walks {
	struct gs_callsite gcc, unw;
};

static __attribute__((noinline)) void walk_both(void *arg)
{
	struct two_walks *t = arg;

	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
	sink += gs_native_frames(&t->gcc, 1);
	gs_callsite_set_unwinder(GS_UNWIND_LIBUNWIND, NULL);
	sink += gs_native_frames(&t->unw, 1);
}

/* Walking through that frame neither crashes nor reads the bad %rbp:
 * libgcc's walk ends at it; libunwind's gives the same frames up to it
 * (then may go on by what it can check). */
static void test_frame_without_unwind_info_is_walked_safely(void **state)
{
	struct two_walks t;
	int k;
	(void)state;

	use_libunwind_or_skip();
	memset(&t, 0, sizeof(t));
	gs_test_nocfi_call(walk_both, &t);
	/* walk_both's call sites, then the return into gs_test_nocfi_call */
	assert_int_equal(t.gcc.n_native, 2);
	assert_true(t.unw.n_native >= 2);
	assert_ptr_equal(t.unw.native[1], t.gcc.native[1]);
	assert_true((uintptr_t)t.gcc.native[1] > (uintptr_t)gs_test_nocfi_call &&
		    (uintptr_t)t.gcc.native[1] < (uintptr_t)gs_test_nocfi_call + 32);
	for (k = 0; k < t.unw.n_native; k++)
		assert_true((uintptr_t)t.unw.native[k] != 0x00007ff0deadbee0u + 8);
	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
}
#endif

/* CUDA calls come from many threads at once (PyTorch's autograd and data
 * threads): libunwind keeps a cache per thread. Four threads each capture
 * 2000 times from one call site: every capture is the same, its frame 0
 * lies in gs_test_capture_loop (exported, for dladdr) and frames below it
 * (the thread's start) were walked. */
__attribute__((noinline, visibility("default"))) void *gs_test_capture_loop(void *arg);
__attribute__((noinline, visibility("default"))) void *gs_test_capture_loop(void *arg)
{
	struct gs_callsite first, cs;
	int *bad = arg, i, k;

	memset(&first, 0, sizeof(first));
	for (i = 0; i < 2000; i++) {
		memset(&cs, 0, sizeof(cs));
		sink += gs_native_frames(&cs, 1);
		if (i == 0) {
			first = cs;
			continue;
		}
		if (cs.n_native != first.n_native)
			(*bad)++;
		for (k = 0; k < cs.n_native && k < first.n_native; k++)
			if (cs.native[k] != first.native[k])
				(*bad)++;
	}
	{
		Dl_info info;
		if (first.n_native < 2 || !dladdr(first.native[0], &info) ||
		    info.dli_saddr != (void *)gs_test_capture_loop)
			(*bad) += 1000000;
	}
	return NULL;
}

static void test_libunwind_captures_from_many_threads(void **state)
{
	pthread_t t[4];
	int bad[4] = {0, 0, 0, 0}, i;
	(void)state;

	use_libunwind_or_skip();
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, gs_test_capture_loop, &bad[i]), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(bad[i], 0);
	}
	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
}

/* A process that forks after libunwind was set up (a data loader's
 * workers): the child's captures are the frames libgcc's unwinder walks. */
static void test_libunwind_in_a_forked_child(void **state)
{
	struct gs_callsite gcc, unw;
	int status = -1, k;
	pid_t pid;
	(void)state;

	use_libunwind_or_skip();
	memset(&unw, 0, sizeof(unw));
	gs_native_frames(&unw, 1); /* the parent's cache is warm */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int bad = 0;
		memset(&gcc, 0, sizeof(gcc));
		memset(&unw, 0, sizeof(unw));
		recurse_both(5, &gcc, &unw);
		if (unw.n_native != gcc.n_native || unw.n_native < 6)
			bad = 1;
		for (k = 1; k < gcc.n_native; k++)
			if (unw.native[k] != gcc.native[k])
				bad = 1;
		_exit(bad ? 3 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
}

/* A libunwind that does not load: libgcc's unwinder, one warning when it
 * was asked for by name, none for auto; captures still work. */
static void test_missing_libunwind_falls_back_to_libgcc(void **state)
{
	struct gs_callsite cs;
	const char *k, *m;
	(void)state;

	gs_warnings_reset();
	assert_int_equal(gs_callsite_set_unwinder(GS_UNWIND_AUTO, "libgs-no-such-unwind.so.8"),
			 GS_UNWIND_LIBGCC);
	assert_int_equal(gs_warning_count(), 0);
	assert_int_equal(gs_callsite_set_unwinder(GS_UNWIND_LIBUNWIND, "libgs-no-such-unwind.so.8"),
			 GS_UNWIND_LIBGCC);
	assert_string_equal(gs_callsite_unwinder_name(), "libgcc");
	assert_int_equal(gs_warning_count(), 1);
	assert_int_equal(gs_warning_get(0, &k, &m), 0);
	assert_string_equal(k, "callsite.unwinder");
	assert_non_null(strstr(m, "libgs-no-such-unwind.so.8 does not load"));
	/* a library without unw_backtrace (libm) is no libunwind either */
	assert_int_equal(gs_callsite_set_unwinder(GS_UNWIND_AUTO, "libm.so.6"), GS_UNWIND_LIBGCC);
	memset(&cs, 0, sizeof(cs));
	assert_true(gs_native_frames(&cs, 1) > 0);
	gs_warnings_reset();
}

/* ------------------------------------------------------------- stack cache */

/* The capture at the leaf: through the stack cache (c) and walked (p),
 * one after the other from this one frame. */
static __attribute__((noinline)) int cap_both(struct gs_callsite *c, struct gs_callsite *p)
{
	int r = gs_native_frames_cached(c, 1, 9);

	r += gs_native_frames(p, 1);
	sink += r;
	return r;
}

static __attribute__((noinline)) int chain(int n, struct gs_callsite *c, struct gs_callsite *p)
{
	int r = n ? chain(n - 1, c, p) : cap_both(c, p);

	sink += r;
	return r;
}

/* Two call sites of the same chain at the same depth: the leaf's stack
 * address is the same for both, and the stacks differ only in the return
 * address into outer, 5 frames out. */
static __attribute__((noinline)) int outer(int which, struct gs_callsite *c, struct gs_callsite *p)
{
	int r;

	if (which)
		r = chain(3, c, p);
	else
		r = chain(3, c, p) + 1;
	sink += r;
	return r;
}

/* The cached frames are the walked ones (frame 0 aside: each is its own
 * call's return address in cap_both), as many */
static void assert_same_frames(const struct gs_callsite *c, const struct gs_callsite *p)
{
	int k;

	assert_int_equal(c->n_native, p->n_native);
	assert_true(c->n_native > 6);
	for (k = 1; k < c->n_native; k++)
		assert_ptr_equal(c->native[k], p->native[k]);
}

/* 40 captures alternating between the two call sites of outer: each gives
 * the frames a walk gives there, and only the first capture at each site
 * walks (2 walks); the two stacks differ in frame 5 (outer's), which the
 * cache tells apart. With the cache off, every capture walks. */
static void stack_cache_two_sites(void)
{
	struct gs_callsite c, p, first[2];
	uint64_t w0 = gs_callsite_walks();
	int i;

	for (i = 0; i < 40; i++) {
		memset(&c, 0, sizeof(c));
		memset(&p, 0, sizeof(p));
		outer(i % 2, &c, &p);
		assert_same_frames(&c, &p);
		if (i < 2)
			first[i] = c;
		else
			assert_memory_equal(c.native, first[i % 2].native,
					    sizeof(c.native[0]) * c.n_native);
	}
	/* the sites differ in outer's frame, nowhere else above the chain */
	assert_ptr_not_equal(first[0].native[5], first[1].native[5]);
	assert_ptr_equal(first[0].native[4], first[1].native[4]);
	assert_ptr_equal(first[0].native[6], first[1].native[6]);
#if defined(__x86_64__)
	assert_int_equal(gs_callsite_walks() - w0, 2);
#endif
	gs_callsite_set_stack_cache(0);
	w0 = gs_callsite_walks();
	for (i = 0; i < 10; i++) {
		memset(&c, 0, sizeof(c));
		memset(&p, 0, sizeof(p));
		outer(i % 2, &c, &p);
		assert_same_frames(&c, &p);
	}
	assert_int_equal(gs_callsite_walks() - w0, 10);
	gs_callsite_set_stack_cache(1);
}

static void test_stack_cache_gives_the_walked_frames_one_walk_per_stack(void **state)
{
	(void)state;
	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
	stack_cache_two_sites();
}

/* The same with libunwind as the unwinder (the slots then come from a
 * walk with libgcc's when the stack is learnt). */
static void test_stack_cache_with_libunwind(void **state)
{
	(void)state;
	use_libunwind_or_skip();
	stack_cache_two_sites();
	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
}

/* A frame that changes under the same stack address and call (the return
 * address into the chain's caller is overwritten between captures, as a
 * stack reused by other code would be): the cache walks again. Here the
 * chain's caller is the same function at the same depth, called from two
 * loops: the 2nd capture (other loop) must not come from the cache. */
static __attribute__((noinline)) void two_loops(struct gs_callsite *c, struct gs_callsite *p,
						void **site_a, void **site_b)
{
	int i;

	for (i = 0; i < 3; i++) {
		chain(2, c, p);
		*site_a = c->native[4];
	}
	for (i = 0; i < 3; i++) {
		chain(2, c, p);
		*site_b = c->native[4];
		sink += i;
	}
}

static void test_stack_cache_tells_a_changed_caller(void **state)
{
	struct gs_callsite c, p;
	void *a = NULL, *b = NULL;
	(void)state;

	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
	memset(&c, 0, sizeof(c));
	memset(&p, 0, sizeof(p));
	two_loops(&c, &p, &a, &b);
	/* frame 4: the return into two_loops, one per loop */
	assert_non_null(a);
	assert_ptr_not_equal(a, b);
	assert_ptr_equal(b, p.native[4]);
	assert_same_frames(&c, &p);
}

/* Threads each capture from their own stack: 4 threads, 500 captures
 * each from one site, every capture the walked frames, one walk each. */
static __attribute__((noinline)) void *cache_thread(void *arg)
{
	struct gs_callsite c, p;
	int *bad = arg, i, k;

	for (i = 0; i < 500; i++) {
		memset(&c, 0, sizeof(c));
		memset(&p, 0, sizeof(p));
		chain(2, &c, &p);
		if (c.n_native != p.n_native || c.n_native < 4)
			(*bad)++;
		for (k = 1; k < c.n_native; k++)
			if (c.native[k] != p.native[k])
				(*bad)++;
	}
	return NULL;
}

static void test_stack_cache_per_thread(void **state)
{
	pthread_t t[4];
	int bad[4] = {0, 0, 0, 0}, i;
	uint64_t w0;
	(void)state;

	gs_callsite_set_unwinder(GS_UNWIND_LIBGCC, NULL);
	w0 = gs_callsite_walks();
	for (i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, cache_thread, &bad[i]), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(bad[i], 0);
	}
#if defined(__x86_64__)
	assert_int_equal(gs_callsite_walks() - w0, 4);
#endif
}

static void test_sync_captured_at_entry_once_with_python(void **state)
{
	struct gs_callsite cs;
	(void)state;

	gs_callsite_init(GS_CS_SYNCS);
	fake_python();
	gs_callsite_set_pyapi(&fake_api);
	memset(&cs, 0, sizeof(cs));
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1, 42, &cs),
			 1);
	assert_int_equal(cs.correlation_id, 42);
	assert_int_equal(cs.reason, GS_CS_WHY_BLOCKING);
	assert_int_equal(cs.tid, (int64_t)syscall(SYS_gettid));
	/* Python frames name the site: no native walk by default */
	assert_int_equal(cs.n_native, 0);
	assert_int_equal(cs.n_py, 3);
	assert_int_equal(cs.py_line[1], 27);
	on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 0, 42, &cs);
	/* GAPSCOPE_NATIVE_FRAMES=always: both */
	gs_callsite_set_native(GS_NATIVE_ALWAYS);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1, 42, &cs),
			 1);
	assert_true(cs.n_native > 0);
	assert_int_equal(cs.n_py, 3);
	on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 0, 42, &cs);
	gs_callsite_set_native(GS_NATIVE_AUTO);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1, 42, &cs),
			 1);
	/* the driver call the runtime makes is not a second call site */
	assert_int_equal(on(DR, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 1, 42, &cs), 0);
	assert_int_equal(on(DR, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 0, 42, &cs), 0);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 0, 42, &cs),
			 0);
	/* a driver sync on its own is one */
	assert_int_equal(on(DR, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, 1, 43, &cs), 1);
	assert_int_equal(cs.correlation_id, 43);
	on(DR, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, 0, 43, &cs);
	/* stream-wait-event does not block the host: never captured */
	assert_int_equal(gs_callsite_class(GS_CS_LAUNCHES, RT,
					   CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020),
			 0);
	/* without the GIL: native frames only */
	F.gil = 0;
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 1, 44, &cs), 1);
	assert_int_equal(cs.n_py, 0);
	assert_true(cs.n_native > 0);
	on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 0, 44, &cs);
	gs_callsite_set_pyapi(NULL);
}

/* A clock that counts its reads: 1000, 2000, ... */
static uint64_t clock_reads;
static uint64_t counting_clock(void)
{
	return 1000 * ++clock_reads;
}

/* The capture times itself with the collector's clock: begin and end of
 * the capture, two reads; callbacks that capture nothing (the exit, the
 * driver call nested in the runtime's) read it not at all. */
static void test_capture_timed_clock_read_only_when_captured(void **state)
{
	struct gs_callsite cs;
	(void)state;

	gs_callsite_init(GS_CS_SYNCS);
	gs_callsite_set_pyapi(NULL);
	gs_callsite_set_clock(counting_clock);
	clock_reads = 0;
	memset(&cs, 0, sizeof(cs));
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1, 60, &cs),
			 1);
	assert_int_equal(cs.t_begin, 1000);
	assert_int_equal(cs.t_end, 2000);
	assert_int_equal(on(DR, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 1, 60, &cs), 0);
	assert_int_equal(on(DR, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 0, 60, &cs), 0);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 0, 60, &cs),
			 0);
	/* a call of no interest: nothing */
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 61, &cs), 0);
	assert_int_equal(clock_reads, 2);
	gs_callsite_set_clock(NULL);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 1, 62, &cs),
			 1);
	assert_int_equal(cs.t_begin, 0);
	assert_int_equal(cs.t_end, 0);
	on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 0, 62, &cs);
}

static void test_async_copy_only_when_slow_launch_only_in_mode_2(void **state)
{
	struct gs_callsite cs;
	(void)state;

	gs_callsite_init(GS_CS_SYNCS);
	gs_callsite_set_thresholds(UINT64_MAX / 2, UINT64_MAX / 2, 0);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 1, 50, &cs), 0);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 0, 50, &cs), 0);
	gs_callsite_set_thresholds(1, UINT64_MAX / 2, 0); /* every copy is "slow" */
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 1, 51, &cs), 0);
	usleep(1000);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, 0, 51, &cs), 1);
	assert_int_equal(cs.reason, GS_CS_WHY_SLOW_COPY);
	assert_int_equal(cs.correlation_id, 51);
	/* launches are not looked at in mode 1 */
	assert_int_equal(
	    gs_callsite_class(GS_CS_SYNCS, RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000), 0);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 52, &cs), 0);

	gs_callsite_init(GS_CS_LAUNCHES);
	gs_callsite_set_thresholds(1, 500000 /* 0.5 ms */, 0);
	/* right after the copy's exit: not late */
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 53, &cs), 0);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 53, &cs), 0);
	usleep(2000); /* host pause before the next launch */
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1, 54, &cs), 1);
	assert_int_equal(cs.reason, GS_CS_WHY_LATE_LAUNCH);
	on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0, 54, &cs);
	gs_callsite_set_thresholds(20000, 100000, 1000000);
	gs_callsite_init(GS_CS_OFF);
	assert_int_equal(on(RT, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 1, 55, &cs),
			 0);
}

static void test_cbids_list_follows_mode(void **state)
{
	struct gs_callsite_cbid ids[128];
	size_t n0 = gs_callsite_cbids(GS_CS_OFF, ids, 128);
	size_t n1 = gs_callsite_cbids(GS_CS_SYNCS, ids, 128);
	size_t n2 = gs_callsite_cbids(GS_CS_LAUNCHES, ids, 128), i;
	int launch = 0;
	(void)state;

	assert_int_equal(n0, 0);
	/* 42 blocking calls + 8 async copies; + 10 launch calls */
	assert_int_equal(n1, 50);
	assert_int_equal(n2, 60);
	for (i = 0; i < n2; i++)
		if (ids[i].domain == RT &&
		    ids[i].cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000)
			launch = 1;
	assert_true(launch);
}

/* ------------------------------------------------------------- writer rows */

static void test_writer_stores_frames_once_per_stack(void **state)
{
	char dir[] = "/tmp/gs-callsite-XXXXXX", path[128], err[256];
	struct gs_writer *w;
	struct gs_stack_table *t = gs_stack_table_new();
	struct gs_callsite a, b;
	sqlite3 *db;
	sqlite3_stmt *st;
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(gs_writer_open(&w, path, 0, err, sizeof(err)), 0);
	native3(&a, (uintptr_t)gs_test_copy_back + 4, 0x10, 0x20);
	a.n_native = 2;
	add_py(&a, "/home/u/train.py", 27, "train_one_epoch");
	a.correlation_id = 7;
	a.tid = 1001;
	a.reason = GS_CS_WHY_BLOCKING;
	a.t_begin = 1000; /* timed capture: stored */
	a.t_end = 4250;
	b = a;
	b.correlation_id = 9;
	b.t_begin = b.t_end = 0; /* not timed: NULL */
	assert_int_equal(gs_writer_begin(w), 0);
	assert_int_equal(gs_callsite_apply(w, t, &a), 0);
	assert_int_equal(gs_callsite_apply(w, t, &b), 0);
	a.n_py = 0; /* another stack: the same native frames, no Python */
	a.correlation_id = 11;
	a.reason = GS_CS_WHY_SLOW_COPY;
	a.t_begin = 9000; /* ends before it begins: not stored */
	a.t_end = 8000;
	assert_int_equal(gs_callsite_apply(w, t, &a), 0);
	assert_int_equal(gs_writer_commit(w), 0);
	assert_int_equal(gs_writer_finalize(w, 100), 0);
	gs_stack_table_free(t);

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(
	    sqlite3_prepare_v2(
		db,
		"SELECT group_concat(correlation_id || ':' || stack_id || ':' || "
		"tid || ':' || reason || ':' || coalesce(capture_start, 'n') || ':' || "
		"coalesce(capture_end, 'n'), ' ') FROM (SELECT * FROM api_stacks "
		"ORDER BY correlation_id)",
		-1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0),
			    "7:1:1001:1:1000:4250 9:1:1001:1:n:n 11:2:1001:2:n:n");
	sqlite3_finalize(st);
	/* stack 1: 2 native + 1 Python rows; stack 2: 2 native */
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT stack_id, count(*), sum(kind = 2) FROM "
					    "stack_frames GROUP BY stack_id ORDER BY stack_id",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 1), 3);
	assert_int_equal(sqlite3_column_int(st, 2), 1);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 2);
	assert_int_equal(sqlite3_column_int(st, 1), 2);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(
	    sqlite3_prepare_v2(db,
			       "SELECT sf.line, f.value, fn.value FROM stack_frames sf "
			       "JOIN strings f ON f.id = sf.file_id JOIN strings fn ON fn.id = "
			       "sf.function_id WHERE sf.stack_id = 1 AND sf.kind = 2",
			       -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 27);
	assert_string_equal((const char *)sqlite3_column_text(st, 1), "/home/u/train.py");
	assert_string_equal((const char *)sqlite3_column_text(st, 2), "train_one_epoch");
	sqlite3_finalize(st);
	/* the first native frame is resolved: symbol and module */
	assert_int_equal(
	    sqlite3_prepare_v2(db,
			       "SELECT s.value, m.value FROM stack_frames sf JOIN strings s ON "
			       "s.id = sf.symbol_id JOIN strings m ON m.id = sf.module_id "
			       "WHERE sf.stack_id = 1 AND sf.kind = 1 AND sf.depth = 0",
			       -1, &st, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "gs_test_copy_back");
	assert_non_null(
	    strstr((const char *)sqlite3_column_text(st, 1), "test_collector_callsite"));
	sqlite3_finalize(st);
	sqlite3_close(db);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_stack_same_id_different_stack_new_id),
		cmocka_unit_test(test_intern_survives_growth),
		cmocka_unit_test(test_symbolise_names_a_function_of_the_executable),
		cmocka_unit_test(test_symbolise_unknown_address_fails),
		cmocka_unit_test(test_python_frames_innermost_first_refs_balanced),
		cmocka_unit_test(test_python_frames_not_read_without_the_gil),
		cmocka_unit_test(test_python_long_path_keeps_its_tail_and_depth_is_bounded),
		cmocka_unit_test(test_native_frames_match_backtrace_and_stop_at_the_cap),
		cmocka_unit_test(test_libunwind_walks_the_frames_libgcc_walks),
		cmocka_unit_test(test_missing_libunwind_falls_back_to_libgcc),
		cmocka_unit_test(test_libunwind_captures_from_many_threads),
		cmocka_unit_test(test_libunwind_in_a_forked_child),
#if defined(__x86_64__)
		cmocka_unit_test(test_frame_without_unwind_info_is_walked_safely),
#endif
		cmocka_unit_test(test_stack_cache_gives_the_walked_frames_one_walk_per_stack),
		cmocka_unit_test(test_stack_cache_with_libunwind),
		cmocka_unit_test(test_stack_cache_tells_a_changed_caller),
		cmocka_unit_test(test_stack_cache_per_thread),
		cmocka_unit_test(test_sync_captured_at_entry_once_with_python),
		cmocka_unit_test(test_capture_timed_clock_read_only_when_captured),
		cmocka_unit_test(test_async_copy_only_when_slow_launch_only_in_mode_2),
		cmocka_unit_test(test_cbids_list_follows_mode),
		cmocka_unit_test(test_writer_stores_frames_once_per_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
