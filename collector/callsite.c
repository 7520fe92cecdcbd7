/*
 * callsite.c - where the program made its blocking CUDA calls (see
 * callsite.h): capture in the API callback, interning and symbolisation on
 * the writer thread.
 *
 * The capture copies data only: frame addresses from libunwind's
 * unw_backtrace when it loads (dlopen; it caches each frame's unwind rule,
 * ~10 ns a frame on a stack it has seen), else from libgcc's unwinder
 * (_Unwind_Backtrace, what glibc's backtrace() uses, ~100 ns a frame,
 * stopped as soon as the frames kept are complete)
 * and file/line/function of the innermost Python frames: through CPython's
 * public C API when this thread holds the GIL (looked up with dlsym; never
 * linked, never called without the GIL, the GIL never taken), else, on
 * CPython 3.9 to 3.13, read from the thread's own frames (py_frames_nogil:
 * PyTorch releases the GIL around every blocking call it makes). No symbol
 * lookup, no SQLite, no lock of ours. It does not decide what the report
 * shows: the viewer picks the frame to name (docs/report.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <stdio.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "callsite.h"
#include "internal.h"
#include "sigguard.h"

/* At most this many frames are walked: the leading CUDA-side ones (CUPTI's
 * dispatch, the driver and the runtime take about ten), then the kept ones. */
#define RAW_FRAMES 48

/* ------------------------------------------------------------- which calls */

static const struct {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	uint8_t why; /* enum gs_callsite_reason */
} calls[] = {
#define RT(x, w)                                                                                   \
	{                                                                                          \
		CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##x, w                       \
	}
#define DR(x, w)                                                                                   \
	{                                                                                          \
		CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##x, w                         \
	}
    /* explicit syncs (cudaStreamWaitEvent is a GPU-side wait: not here) */
    RT(cudaStreamSynchronize_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaStreamSynchronize_ptsz_v7000, GS_CS_WHY_BLOCKING),
    RT(cudaDeviceSynchronize_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaThreadSynchronize_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaEventSynchronize_v3020, GS_CS_WHY_BLOCKING),
    DR(cuStreamSynchronize, GS_CS_WHY_BLOCKING),
    DR(cuStreamSynchronize_ptsz, GS_CS_WHY_BLOCKING),
    DR(cuCtxSynchronize, GS_CS_WHY_BLOCKING),
    DR(cuCtxSynchronize_v2, GS_CS_WHY_BLOCKING),
    DR(cuEventSynchronize, GS_CS_WHY_BLOCKING),
    /* implicit ones (syncs.kind 16, 18, 19, 20: the viewer's list) */
    RT(cudaMemcpy_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpy_ptds_v7000, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpy2D_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpy2D_ptds_v7000, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpy3D_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpy3D_ptds_v7000, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpyToSymbol_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpyToSymbol_ptds_v7000, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpyFromSymbol_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpyFromSymbol_ptds_v7000, GS_CS_WHY_BLOCKING),
    RT(cudaMemcpyPeer_v4000, GS_CS_WHY_BLOCKING),
    RT(cudaMemset_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaMemset_ptds_v7000, GS_CS_WHY_BLOCKING),
    RT(cudaMalloc_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaMallocHost_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaHostAlloc_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaFree_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaFreeHost_v3020, GS_CS_WHY_BLOCKING),
    RT(cudaDeviceSetLimit_v3020, GS_CS_WHY_BLOCKING),
    DR(cuMemcpy, GS_CS_WHY_BLOCKING),
    DR(cuMemcpy_ptds, GS_CS_WHY_BLOCKING),
    DR(cuMemcpyHtoD_v2, GS_CS_WHY_BLOCKING),
    DR(cuMemcpyHtoD_v2_ptds, GS_CS_WHY_BLOCKING),
    DR(cuMemcpyDtoH_v2, GS_CS_WHY_BLOCKING),
    DR(cuMemcpyDtoH_v2_ptds, GS_CS_WHY_BLOCKING),
    DR(cuMemsetD8_v2, GS_CS_WHY_BLOCKING),
    DR(cuMemsetD8_v2_ptds, GS_CS_WHY_BLOCKING),
    DR(cuMemsetD32_v2, GS_CS_WHY_BLOCKING),
    DR(cuMemsetD32_v2_ptds, GS_CS_WHY_BLOCKING),
    DR(cuMemAlloc_v2, GS_CS_WHY_BLOCKING),
    DR(cuMemFree_v2, GS_CS_WHY_BLOCKING),
    DR(cuMemFreeHost, GS_CS_WHY_BLOCKING),
    /* async copies block when host memory is pageable (kind 17; PyTorch's
     * tensor.item() is one): which is not known at entry without asking
     * CUDA, so these are captured at exit, and only when the call took
     * long (slow_copy_ns) */
    RT(cudaMemcpyAsync_v3020, GS_CS_WHY_SLOW_COPY),
    RT(cudaMemcpyAsync_ptsz_v7000, GS_CS_WHY_SLOW_COPY),
    DR(cuMemcpyAsync, GS_CS_WHY_SLOW_COPY),
    DR(cuMemcpyAsync_ptsz, GS_CS_WHY_SLOW_COPY),
    DR(cuMemcpyHtoDAsync_v2, GS_CS_WHY_SLOW_COPY),
    DR(cuMemcpyHtoDAsync_v2_ptsz, GS_CS_WHY_SLOW_COPY),
    DR(cuMemcpyDtoHAsync_v2, GS_CS_WHY_SLOW_COPY),
    DR(cuMemcpyDtoHAsync_v2_ptsz, GS_CS_WHY_SLOW_COPY),
    /* launches (GAPSCOPE_CALLSITES=2 only): the hot path */
    RT(cudaLaunchKernel_v7000, GS_CS_WHY_LATE_LAUNCH),
    RT(cudaLaunchKernel_ptsz_v7000, GS_CS_WHY_LATE_LAUNCH),
    RT(cudaLaunchKernelExC_v11060, GS_CS_WHY_LATE_LAUNCH),
    RT(cudaLaunchKernelExC_ptsz_v11060, GS_CS_WHY_LATE_LAUNCH),
    RT(cudaGraphLaunch_v10000, GS_CS_WHY_LATE_LAUNCH),
    RT(cudaGraphLaunch_ptsz_v10000, GS_CS_WHY_LATE_LAUNCH),
    DR(cuLaunchKernel, GS_CS_WHY_LATE_LAUNCH),
    DR(cuLaunchKernel_ptsz, GS_CS_WHY_LATE_LAUNCH),
    DR(cuLaunchKernelEx, GS_CS_WHY_LATE_LAUNCH),
    DR(cuLaunchKernelEx_ptsz, GS_CS_WHY_LATE_LAUNCH),
#undef RT
#undef DR
};
#define N_CALLS (sizeof(calls) / sizeof(calls[0]))

int gs_callsite_class(int mode, CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	size_t i;

	if (mode <= GS_CS_OFF)
		return 0;
	for (i = 0; i < N_CALLS; i++)
		if (calls[i].domain == domain && calls[i].cbid == cbid) {
			if (calls[i].why == GS_CS_WHY_LATE_LAUNCH && mode < GS_CS_LAUNCHES)
				return 0;
			return calls[i].why;
		}
	return 0;
}

size_t gs_callsite_cbids(int mode, struct gs_callsite_cbid *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < N_CALLS && n < max; i++)
		if (gs_callsite_class(mode, calls[i].domain, calls[i].cbid)) {
			out[n].domain = calls[i].domain;
			out[n].cbid = calls[i].cbid;
			n++;
		}
	return n;
}

/* ------------------------------------------------------------- native */

/* Address ranges of the CUDA-side modules (CUPTI, the driver, the runtime,
 * ourselves): their frames lead every backtrace taken in a callback and
 * say nothing about the program, so leading ones are dropped. Filled once
 * at init; read-only after. */
#define MAX_SKIP 16
static struct {
	uintptr_t lo, hi;
} skip_ranges[MAX_SKIP];
static int n_skip;

static int skip_module(const char *name)
{
	static const char *const names[] = {"libcupti.so", "libcuda.so", "libcudart.so",
					    "libgapscope.so"};
	const char *base = strrchr(name, '/');
	size_t i;

	base = base ? base + 1 : name;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strncmp(base, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
	int i;

	(void)size;
	(void)data;
	if (!info->dlpi_name || !skip_module(info->dlpi_name))
		return 0;
	for (i = 0; i < info->dlpi_phnum && n_skip < MAX_SKIP; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		skip_ranges[n_skip].lo = info->dlpi_addr + ph->p_vaddr;
		skip_ranges[n_skip].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		n_skip++;
	}
	return 0;
}

static int in_skipped(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	int i;

	for (i = 0; i < n_skip; i++)
		if (a >= skip_ranges[i].lo && a < skip_ranges[i].hi)
			return 1;
	return 0;
}

struct walk {
	struct gs_callsite *cs;
	int skip;    /* frames still to drop: the collector's own */
	int leading; /* still in the leading CUDA-side frames */
	int walked;
	/* where each kept frame's return address lies on the stack (libgcc's
	 * walk only, for the stack cache below), or NULL */
	uintptr_t *slot;
};

/* One frame of the walk, innermost first: dropped (the collector's own, the
 * leading CUDA-side ones) or kept. Returns 0 when the walk can stop. */
static int take_frame(struct walk *w, void *ip, uintptr_t slot)
{
	if (!ip || ++w->walked > RAW_FRAMES)
		return 0;
	if (w->skip > 0) {
		w->skip--;
		return 1;
	}
	if (w->leading && in_skipped(ip))
		return 1;
	w->leading = 0;
	if (w->slot)
		w->slot[w->cs->n_native] = slot;
	w->cs->native[w->cs->n_native++] = ip;
	return w->cs->n_native < GS_CS_NATIVE_MAX;
}

/* In libgcc's walk, the context of a frame whose IP is a return address
 * holds as CFA the stack pointer of the call that pushed it: on x86-64 the
 * return address lies just below it, at CFA - 8 (checked before use). */
static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct walk *w = arg;
	uintptr_t slot = w->slot ? (uintptr_t)_Unwind_GetCFA(ctx) - sizeof(void *) : 0;

	return take_frame(w, (void *)_Unwind_GetIP(ctx), slot) ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* libunwind's unw_backtrace, when gs_callsite_set_unwinder loaded it; NULL:
 * libgcc's unwinder. Set before callbacks are enabled, read-only after. */
typedef int (*unw_backtrace_fn)(void **buf, int size);
static unw_backtrace_fn unw_bt;

static const char *const unwinder_names[] = {"auto", "libgcc", "libunwind"};

const char *gs_unwinder_str(int u)
{
	return u >= 0 && u < 3 ? unwinder_names[u] : "?";
}

int gs_unwinder_parse(const char *s, int *u)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(s, unwinder_names[i])) {
			*u = i;
			return 0;
		}
	return -1;
}

int gs_callsite_set_unwinder(int which, const char *lib)
{
	void *h, *warm[4]; /* h is never closed: a walk may be in flight */
	unw_backtrace_fn fn = NULL;

	unw_bt = NULL;
	if (which == GS_UNWIND_LIBGCC)
		return GS_UNWIND_LIBGCC;
	if (!lib)
		lib = "libunwind.so.8";
	/* local: its _Unwind_* and backtrace stay out of the program's scope */
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h)
		fn = (unw_backtrace_fn)(uintptr_t)dlsym(h, "unw_backtrace");
	if (!fn) {
		if (which == GS_UNWIND_LIBUNWIND)
			gs_warn("callsite.unwinder",
				"GAPSCOPE_UNWINDER=libunwind, but %s %s; call sites use "
				"libgcc's unwinder",
				lib, h ? "has no unw_backtrace" : "does not load");
		else
			gs_log(GS_LOG_INFO, "%s does not load; call sites use libgcc's unwinder",
			       lib);
		return GS_UNWIND_LIBGCC;
	}
	/* first use: libunwind's set-up, this thread's cache, off the program's
	 * CUDA calls */
	fn(warm, 4);
	unw_bt = fn;
	return GS_UNWIND_LIBUNWIND;
}

const char *gs_callsite_unwinder_name(void)
{
	return gs_unwinder_str(unw_bt ? GS_UNWIND_LIBUNWIND : GS_UNWIND_LIBGCC);
}

/* With libgcc's unwinder, walks the stack only as far as the frames it
 * keeps: the program's frames below a deep framework stack (PyTorch: 30-50
 * native frames) are not unwound for nothing, at about 100 ns a frame.
 * libunwind's walk cannot be stopped by the caller; it goes at most
 * RAW_FRAMES deep, at about 10 ns a frame. Frame 0 is this function's own
 * either way (unw_backtrace's list begins at its caller), as it is
 * backtrace()'s in the caller. */
/* The walk itself, inlined into its callers so that frame 0 is theirs:
 * libgcc's where it must give the slots (w->slot) or is the unwinder. */
static inline __attribute__((always_inline)) void walk_native(struct walk *w)
{
	void *raw[RAW_FRAMES];
	int n, i;

	if (!unw_bt || w->slot) {
		_Unwind_Backtrace(walk_frame, w);
		return;
	}
	n = unw_bt(raw, RAW_FRAMES);
	for (i = 0; i < n && take_frame(w, raw[i], 0); i++)
		;
}

__attribute__((noinline)) int gs_native_frames(struct gs_callsite *cs, int skip)
{
	struct walk w = {cs, skip, 1, 0, NULL};

	cs->n_native = 0;
	walk_native(&w);
	return cs->n_native;
}

/* ------------------------------------------------------------- stack cache */

/* A blocking call made again from where it was made before (a loop's sync)
 * has the stack it had then: the capture checks that instead of walking it
 * (libgcc's walk of the ~26 frames a C program's sync has costs 2-4 us a
 * capture, the cause of launch + sync's 1.45x against 1.14x without call
 * sites on an H100, issue 52; a check of 16 slots costs tens of ns).
 *
 * Per thread, SC_WAYS stacks, each under the stack address of the capture
 * (sp) and the call (domain, callback id), with the frames kept and the
 * stack slot where each one's return address lies (libgcc's walk gives it:
 * CFA - 8 on x86-64, checked when learnt). A capture at the same sp for the
 * same call reads those slots; when each still holds its frame's return
 * address, the frames are taken from the entry and no walk is made. Why
 * that is the walk's answer: the frames between the capture and the
 * program's (ours, CUPTI's, the driver's, the runtime's) begin at the same
 * sp, so where they are laid out the same the program's innermost return
 * address lies in the same slot, and each frame's return address fixes
 * where its caller's lies (the CFA rules are by address); where a frame
 * was laid out differently (alloca), its slot would have to hold that
 * exact return address by chance, for every frame kept. Else the capture
 * walks as before and remembers the stack, replacing entries in turn, so a
 * loop that blocks at a few sites at the same depth hits for each.
 *
 * Slots are read only inside the thread's own stack (pthread_getattr_np,
 * once per thread) and above the capture's frame, so a read never faults;
 * a thread on another stack (a coroutine's, a signal stack) walks every
 * time. With libunwind as the unwinder, the slots come from one more walk
 * with libgcc's, made only while the cache pays (learn_ok). x86-64 only. */
#if defined(__x86_64__)
#define SC_WAYS 16
#else
#define SC_WAYS 0
#endif

struct sc_entry {
	uintptr_t sp;			  /* stack address of the capture, 0: empty */
	uint32_t key;			  /* the call (gs_native_frames_cached) */
	uint8_t n;			  /* frames kept */
	void *ip[GS_CS_NATIVE_MAX];	  /* the frames, innermost first */
	uintptr_t slot[GS_CS_NATIVE_MAX]; /* where ip[i] lies */
};

static __thread struct {
	int state;	  /* 0: stack not known yet, 1: known, -1: no cache here */
	uintptr_t lo, hi; /* the thread's stack */
	unsigned next;	  /* the entry replaced next */
	uint64_t hits, learns;
#if SC_WAYS
	struct sc_entry e[SC_WAYS];
#endif
} SC;

static int sc_on = 1;	      /* GAPSCOPE_STACK_CACHE */
static atomic_ullong n_walks; /* native walks made by captures */

void gs_callsite_set_stack_cache(int on)
{
	sc_on = on;
	gs_py_set_line_cache(on);
}

uint64_t gs_callsite_walks(void)
{
	return atomic_load(&n_walks);
}

#if SC_WAYS
/* The calling thread's stack, once: 1 when the cache may be used here. */
static int sc_ready(void)
{
	pthread_attr_t a;
	void *addr = NULL;
	size_t size = 0;

	if (SC.state)
		return SC.state > 0;
	SC.state = -1;
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return 0;
	if (pthread_attr_getstack(&a, &addr, &size) == 0 && addr && size) {
		SC.lo = (uintptr_t)addr;
		SC.hi = (uintptr_t)addr + size;
		SC.state = 1;
	}
	pthread_attr_destroy(&a);
	return SC.state > 0;
}

/* The slots of e still hold its frames (read only: they lie above sp,
 * inside this thread's stack, checked when e was learnt). No ASan: a
 * return address slot is no object of the program's. */
__attribute__((no_sanitize_address)) static int sc_holds(const struct sc_entry *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (*(void *const *)e->slot[i] != e->ip[i])
			return 0;
	return 1;
}

/* Remember the frames of cs, taken at sp, with their slots: only where
 * every slot lies in this thread's stack above sp and holds its frame. */
__attribute__((no_sanitize_address)) static void
sc_learn(uintptr_t sp, uint32_t key, const struct gs_callsite *cs, const uintptr_t *slot)
{
	struct sc_entry *e;
	int i;

	if (!cs->n_native)
		return;
	for (i = 0; i < cs->n_native; i++)
		if (slot[i] <= sp || slot[i] + sizeof(void *) > SC.hi || slot[i] % sizeof(void *) ||
		    *(void *const *)slot[i] != cs->native[i])
			return;
	e = &SC.e[SC.next++ % SC_WAYS];
	e->n = 0; /* a capture in a signal handler meanwhile skips it */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e->sp = sp;
	e->key = key;
	memcpy(e->ip, cs->native, cs->n_native * sizeof(cs->native[0]));
	memcpy(e->slot, slot, cs->n_native * sizeof(slot[0]));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e->n = cs->n_native;
}

/* With libunwind, learning takes a walk with libgcc's on top: only for the
 * first stacks of a thread, then one for every 4 hits. */
static int learn_ok(void)
{
	return !unw_bt || SC.learns < 16 + SC.hits / 4;
}
#endif

/* gs_native_frames, through the calling thread's stack cache (above):
 * the same frames, walked only where the stack is not one it has seen
 * at this stack address for this call (key). */
__attribute__((noinline)) int gs_native_frames_cached(struct gs_callsite *cs, int skip,
						      uint32_t key)
{
#if SC_WAYS
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uintptr_t slot[GS_CS_NATIVE_MAX];
	struct walk w = {cs, skip, 1, 0, NULL};
	int i;

	cs->n_native = 0;
	if (sc_on && sc_ready() && sp > SC.lo && sp < SC.hi) {
		for (i = 0; i < SC_WAYS; i++) {
			const struct sc_entry *e = &SC.e[i];
			if (e->n && e->sp == sp && e->key == key && sc_holds(e)) {
				memcpy(cs->native, e->ip, e->n * sizeof(e->ip[0]));
				cs->n_native = e->n;
				SC.hits++;
				return cs->n_native;
			}
		}
		if (learn_ok()) {
			SC.learns++;
			atomic_fetch_add(&n_walks, 1);
			if (!unw_bt) {
				w.slot = slot;
				walk_native(&w);
				sc_learn(sp, key, cs, slot);
			} else {
				/* libunwind's frames, as gs_native_frames; the
				 * slots from libgcc's walk where it gives them */
				static __thread struct gs_callsite g;
				struct walk wg = {&g, skip, 1, 0, slot};
				walk_native(&w);
				g.n_native = 0;
				walk_native(&wg);
				if (g.n_native == cs->n_native &&
				    !memcmp(g.native, cs->native, g.n_native * sizeof(g.native[0])))
					sc_learn(sp, key, cs, slot);
			}
			return cs->n_native;
		}
	}
	atomic_fetch_add(&n_walks, 1);
	walk_native(&w);
	return cs->n_native;
#else
	struct walk w = {cs, skip, 1, 0, NULL};

	(void)key;
	cs->n_native = 0;
	atomic_fetch_add(&n_walks, 1);
	walk_native(&w);
	return cs->n_native;
#endif
}

/* ------------------------------------------------------------- policy */

static int cs_mode;
static int native_when; /* enum gs_native_walk */
static struct gs_pyapi pyapi;
static int have_py;
static uint64_t slow_copy_ns = 20000;	      /* 20 us: a pageable staging copy */
static uint64_t late_launch_ns = 100000;      /* 100 us of host time before a launch */
static uint64_t launch_interval_ns = 1000000; /* at most one launch site per ms per thread */
static atomic_ullong n_captured, n_python;
static uint64_t (*cs_clock)(void); /* times captures (t_begin, t_end); NULL: not timed */
/* class by callback id for the API callback (runtime, driver), from
 * gs_callsite_init: the table search stays off the launch path */
#define LUT_IDS 1024
static uint8_t lut[2][LUT_IDS];

/* Per thread: the runtime call in progress (the driver calls it makes are
 * not captured a second time), when a maybe-blocking call began, when the
 * last call seen here returned. */
static __thread struct {
	int depth;
	uint64_t enter_ns, last_exit_ns, last_launch_ns;
	int64_t tid;
} T;

/* Modules whose code a sample's native walk must not interrupt: the
 * unwinders (a walk of this thread may be in progress: libunwind's and
 * libgcc's caches are not made to be re-entered) and the collector. */
#define MAX_NOWALK 16
static struct {
	uintptr_t lo, hi;
} nowalk_ranges[MAX_NOWALK];
static int n_nowalk;

static int add_nowalk(struct dl_phdr_info *info, size_t size, void *data)
{
	static const char *const names[] = {"libunwind.so", "libunwind-x86_64.so", "libgcc_s.so",
					    "libgapscope.so"};
	const char *base;
	size_t k;
	int i, hit = 0;

	(void)size;
	(void)data;
	if (!info->dlpi_name)
		return 0;
	base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		hit |= strncmp(base, names[k], strlen(names[k])) == 0;
	for (i = 0; hit && i < info->dlpi_phnum && n_nowalk < MAX_NOWALK; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		nowalk_ranges[n_nowalk].lo = info->dlpi_addr + ph->p_vaddr;
		nowalk_ranges[n_nowalk].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		n_nowalk++;
	}
	return 0;
}

static int prepared;

void gs_callsite_prepare(void)
{
	void *warm[2];

	if (prepared)
		return;
	prepared = 1;
	backtrace(warm, 2);
	have_py = gs_pyapi_resolve(&pyapi);
	n_skip = 0;
	dl_iterate_phdr(add_ranges, NULL);
	n_nowalk = 0;
	dl_iterate_phdr(add_nowalk, NULL);
}

int gs_callsite_python(void)
{
	return have_py && pyapi.minor > 0;
}

void gs_callsite_init(int mode)
{
	size_t i;

	cs_mode = mode;
	memset(lut, 0, sizeof(lut));
	for (i = 0; i < N_CALLS; i++)
		if (calls[i].cbid < LUT_IDS)
			lut[calls[i].domain == CUPTI_CB_DOMAIN_DRIVER_API][calls[i].cbid] =
			    (uint8_t)gs_callsite_class(mode, calls[i].domain, calls[i].cbid);
	if (mode <= GS_CS_OFF)
		return;
	gs_callsite_prepare();
}

struct raw_walk {
	void **ip;
	int n, max;
};

static _Unwind_Reason_Code raw_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct raw_walk *r = arg;

	if (r->n >= r->max)
		return _URC_END_OF_STACK;
	r->ip[r->n++] = (void *)_Unwind_GetIP(ctx);
	return _URC_NO_REASON;
}

/* The native frames of the code a signal interrupted at pc, innermost
 * first: the walk goes through the handler and the signal frame and keeps
 * what follows pc's own frame (none when pc is not found in the first
 * RAW_FRAMES, or lies in an unwinder or the collector). */
/* pc lies in an unwinder or the collector: no frame of it is taken */
static int in_nowalk(const void *pc)
{
	int i;

	for (i = 0; i < n_nowalk; i++)
		if ((uintptr_t)pc >= nowalk_ranges[i].lo && (uintptr_t)pc < nowalk_ranges[i].hi)
			return 1;
	return 0;
}

static int native_frames_at(struct gs_callsite *cs, const void *pc, int max_raw)
{
	void *raw[RAW_FRAMES];
	struct raw_walk r = {raw, 0, max_raw < RAW_FRAMES ? max_raw : RAW_FRAMES};
	int i, from = -1;

	cs->n_native = 0;
	if (in_nowalk(pc))
		return 0;
	if (unw_bt)
		r.n = unw_bt(raw, r.max);
	else
		_Unwind_Backtrace(raw_frame, &r);
	for (i = 0; i < r.n && from < 0; i++)
		if (raw[i] == pc)
			from = i;
	for (i = from; from >= 0 && i < r.n && cs->n_native < GS_CS_NATIVE_MAX; i++)
		cs->native[cs->n_native++] = raw[i];
	return cs->n_native;
}

/* a sample's frames and text emptied (tid and t_begin are the caller's) */
static void sample_reset(struct gs_callsite *cs)
{
	cs->correlation_id = 0;
	cs->reason = 0;
	cs->t_end = 0;
	cs->n_py = 0;
	cs->py_outer = 0;
	cs->py_skipped = 0;
	cs->n_native = 0;
	cs->text_len = 0;
}

int gs_callsite_sample(struct gs_callsite *cs, const void *pc, struct gs_py_line_cache *cache,
		       struct gs_sigguard *guard)
{
	sample_reset(cs);
	if (have_py && guard) {
		guard->active = 1;
		if (sigsetjmp(guard->jb, 0) != 0)
			return -1; /* the walk faulted: the handler cleared active */
		gs_py_frames_async(&pyapi, cs, cache);
		guard->active = 0;
	}
	/* the interrupted pc always: its module tells the framework's C++
	 * dispatch (libtorch, the CUDA libraries) called from a line of the
	 * program from the program's own Python or numpy (H100 eager loop,
	 * 2026-12-07: 89% of its samples named its own line 60, all of them
	 * Python frames only). That pc alone: no unwinder walk from a signal
	 * handler through code whose unwind tables may not cover the
	 * instruction it stopped at (a sampled GPT-2 generate exited 139 on
	 * an H100 with the walk); GAPSCOPE_NATIVE_FRAMES=always walks */
	if (pc && native_when != GS_NATIVE_ALWAYS) {
		if (!in_nowalk(pc)) {
			cs->native[0] = (void *)pc;
			cs->n_native = 1;
		}
	} else if (pc) {
		native_frames_at(cs, pc, cs->n_py ? GS_CS_SAMPLE_RAW : RAW_FRAMES);
	}
	return cs->n_py + cs->n_native;
}

void *gs_callsite_tstate(void)
{
	return have_py ? gs_py_tstate(&pyapi) : NULL;
}

int gs_callsite_sample_of(struct gs_callsite *cs, const void *tstate,
			  struct gs_py_line_cache *cache, struct gs_sigguard *guard)
{
	sample_reset(cs);
	if (!have_py || !guard || !tstate)
		return 0;
	guard->active = 1;
	if (sigsetjmp(guard->jb, 0) != 0)
		return -1; /* the walk faulted: the handler cleared active */
	gs_py_frames_of(&pyapi, cs, cache, tstate);
	guard->active = 0;
	return cs->n_py;
}

static const char *const native_names[] = {"auto", "always"};

const char *gs_native_frames_str(int v)
{
	return v >= 0 && v <= GS_NATIVE_ALWAYS ? native_names[v] : "?";
}

int gs_native_frames_parse(const char *s, int *v)
{
	int i;

	for (i = 0; i <= GS_NATIVE_ALWAYS; i++)
		if (strcmp(s, native_names[i]) == 0) {
			*v = i;
			return 0;
		}
	return -1;
}

void gs_callsite_set_native(int when)
{
	native_when = when;
}

void gs_callsite_set_clock(uint64_t (*now)(void))
{
	cs_clock = now;
}

void gs_callsite_set_pyapi(const struct gs_pyapi *api)
{
	if (api) {
		pyapi = *api;
		have_py = 1;
	} else {
		memset(&pyapi, 0, sizeof(pyapi));
		have_py = 0;
	}
}

void gs_callsite_set_thresholds(uint64_t slow, uint64_t late, uint64_t interval)
{
	slow_copy_ns = slow;
	late_launch_ns = late;
	launch_interval_ns = interval;
}

void gs_callsite_counts(uint64_t *captured, uint64_t *with_python)
{
	*captured = atomic_load(&n_captured);
	*with_python = atomic_load(&n_python);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void capture(struct gs_callsite *cs, uint32_t corr, int why, uint32_t key)
{
	if (!T.tid)
		T.tid = (int64_t)syscall(SYS_gettid);
	cs->correlation_id = corr;
	cs->tid = T.tid;
	cs->t_begin = cs_clock ? cs_clock() : 0;
	cs->t_end = 0;
	cs->reason = (uint8_t)why;
	cs->n_py = 0;
	cs->py_outer = 0;
	cs->py_skipped = 0;
	cs->n_native = 0;
	cs->text_len = 0;
	/* Python frames first: where there is one, the native ones (the
	 * dearer walk) are taken only when asked for */
	if (have_py && gs_py_frames(&pyapi, cs) > 0)
		atomic_fetch_add(&n_python, 1);
	if (!cs->n_py || native_when == GS_NATIVE_ALWAYS)
		gs_native_frames_cached(cs, 2, key); /* its own frame, capture's */
	atomic_fetch_add(&n_captured, 1);
	if (cs_clock)
		cs->t_end = cs_clock();
}

int gs_callsite_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		       const CUpti_CallbackData *cb, struct gs_callsite *cs)
{
	int why, got = 0;
	int enter;
	uint64_t t;
	uint32_t key = (uint32_t)domain << 24 ^ (uint32_t)cbid;

	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < LUT_IDS)
		why = lut[0][cbid];
	else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < LUT_IDS)
		why = lut[1][cbid];
	else
		why = gs_callsite_class(cs_mode, domain, cbid);
	if (!why || !cb)
		return 0;
	enter = cb->callbackSite == CUPTI_API_ENTER;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && T.depth > 0)
		return 0; /* inside a runtime call already seen */
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (enter)
			T.depth++;
		else if (T.depth > 0)
			T.depth--;
	}
	t = now_ns();
	if (enter) {
		if (why == GS_CS_WHY_BLOCKING) {
			capture(cs, cb->correlationId, why, key);
			got = 1;
		} else if (why == GS_CS_WHY_SLOW_COPY) {
			T.enter_ns = t;
		} else if (T.last_exit_ns && t - T.last_exit_ns >= late_launch_ns &&
			   (!T.last_launch_ns || t - T.last_launch_ns >= launch_interval_ns)) {
			T.last_launch_ns = t;
			capture(cs, cb->correlationId, why, key);
			got = 1;
		}
	} else {
		if (why == GS_CS_WHY_SLOW_COPY && T.enter_ns && t - T.enter_ns >= slow_copy_ns) {
			capture(cs, cb->correlationId, why, key);
			got = 1;
		}
		T.enter_ns = 0;
		T.last_exit_ns = now_ns();
	}
	return got;
}

/* ------------------------------------------------------------- interning */

struct stack_entry {
	uint64_t hash;
	int64_t id; /* 0: empty */
	struct gs_callsite *key;
};

struct gs_stack_table {
	struct stack_entry *e;
	size_t cap, n;
};

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull; /* FNV-1a */
	return h;
}

/* The identity of a stack: the frames, not the call that took it. */
static uint64_t stack_hash(const struct gs_callsite *cs)
{
	uint64_t h = 1469598103934665603ull;
	int i;

	h = mix(h, &cs->n_native, 1);
	h = mix(h, cs->native, cs->n_native * sizeof(cs->native[0]));
	h = mix(h, &cs->n_py, 1);
	h = mix(h, &cs->py_outer, 1);
	h = mix(h, &cs->py_skipped, sizeof(cs->py_skipped));
	for (i = 0; i < cs->n_py; i++) {
		const char *f = cs->text + cs->py_file[i], *g = cs->text + cs->py_func[i];
		h = mix(h, &cs->py_line[i], sizeof(cs->py_line[i]));
		h = mix(h, f, strlen(f) + 1);
		h = mix(h, g, strlen(g) + 1);
	}
	return h;
}

static int stack_equal(const struct gs_callsite *a, const struct gs_callsite *b)
{
	int i;

	if (a->n_native != b->n_native || a->n_py != b->n_py || a->py_outer != b->py_outer ||
	    a->py_skipped != b->py_skipped ||
	    memcmp(a->native, b->native, a->n_native * sizeof(a->native[0])) != 0)
		return 0;
	for (i = 0; i < a->n_py; i++)
		if (a->py_line[i] != b->py_line[i] ||
		    strcmp(a->text + a->py_file[i], b->text + b->py_file[i]) != 0 ||
		    strcmp(a->text + a->py_func[i], b->text + b->py_func[i]) != 0)
			return 0;
	return 1;
}

struct gs_stack_table *gs_stack_table_new(void)
{
	return calloc(1, sizeof(struct gs_stack_table));
}

void gs_stack_table_free(struct gs_stack_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->cap; i++)
		free(t->e[i].key);
	free(t->e);
	free(t);
}

static int table_grow(struct gs_stack_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64, i;
	struct stack_entry *e = calloc(ncap, sizeof(*e));

	if (!e)
		return -1;
	for (i = 0; i < t->cap; i++) {
		size_t j;
		if (!t->e[i].id)
			continue;
		for (j = t->e[i].hash & (ncap - 1); e[j].id; j = (j + 1) & (ncap - 1))
			;
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = ncap;
	return 0;
}

int64_t gs_stack_intern(struct gs_stack_table *t, const struct gs_callsite *cs, int *is_new)
{
	uint64_t h = stack_hash(cs);
	size_t j;
	struct gs_callsite *key;

	*is_new = 0;
	if ((t->n + 1) * 2 > t->cap && table_grow(t) != 0)
		return 0;
	for (j = h & (t->cap - 1); t->e[j].id; j = (j + 1) & (t->cap - 1))
		if (t->e[j].hash == h && stack_equal(t->e[j].key, cs))
			return t->e[j].id;
	/* only the text in use: samples make many stacks (one per Python
	 * line seen), each kept for the run */
	{
		size_t sz = offsetof(struct gs_callsite, text) +
			    (cs->text_len < GS_CS_TEXT ? cs->text_len : GS_CS_TEXT);
		key = malloc(sz);
		if (!key)
			return 0;
		memcpy(key, cs, sz);
	}
	t->e[j].hash = h;
	t->e[j].key = key;
	t->e[j].id = (int64_t)++t->n;
	*is_new = 1;
	return t->e[j].id;
}

/* ------------------------------------------------------------- symbols */

int gs_symbolise(const void *addr, char *module, size_t mlen, uint64_t *offset, char *sym,
		 size_t slen)
{
	Dl_info info;
	const ElfW(Sym) *es = NULL;

	module[0] = sym[0] = '\0';
	*offset = 0;
	if (!dladdr1(addr, &info, (void **)&es, RTLD_DL_SYMENT) || !info.dli_fname)
		return -1;
	snprintf(module, mlen, "%s", info.dli_fname);
	*offset = (uint64_t)((uintptr_t)addr - (uintptr_t)info.dli_fbase);
	/* dladdr names the nearest exported symbol *before* the address, even
	 * when the address lies in hidden code after it (a statically linked
	 * cudart's internals): keep the name only inside the symbol's size. */
	if (info.dli_sname && info.dli_saddr && es &&
	    (uintptr_t)addr - (uintptr_t)info.dli_saddr < (es->st_size ? es->st_size : 1))
		snprintf(sym, slen, "%s", info.dli_sname);
	return 0;
}

static struct gs_stack_table *process_table;

/* The stack id of cs's frames in t, with its stack_frames rows written at
 * its first sighting; 0 when out of memory, -1 for a failed write. */
static int64_t stack_rows(struct gs_writer *w, struct gs_stack_table *t,
			  const struct gs_callsite *cs)
{
	int64_t id;
	int is_new = 0, i, rc = 0;

	if (!t) {
		if (!process_table)
			process_table = gs_stack_table_new();
		t = process_table;
	}
	if (!t || !(id = gs_stack_intern(t, cs, &is_new)))
		return 0;
	for (i = 0; is_new && i < cs->n_native; i++) {
		char module[1024], sym[512];
		uint64_t off;
		/* The executable's main module comes back as "" from dladdr
		 * on some glibc versions: name it by /proc/self/exe. */
		if (gs_symbolise(cs->native[i], module, sizeof(module), &off, sym, sizeof(sym)) !=
		    0) {
			rc |= gs_writer_stack_frame(w, id, i, GS_FRAME_NATIVE, 0,
						    (int64_t)(uintptr_t)cs->native[i], 0, 0, -1, 0);
			continue;
		}
		if (!module[0]) {
			ssize_t n = readlink("/proc/self/exe", module, sizeof(module) - 1);
			module[n > 0 ? n : 0] = '\0';
		}
		rc |= gs_writer_stack_frame(w, id, i, GS_FRAME_NATIVE, gs_writer_intern(w, module),
					    (int64_t)off, sym[0] ? gs_writer_intern(w, sym) : 0, 0,
					    -1, 0);
	}
	/* the outer frames of a stack cut in the middle keep their depth */
	for (i = 0; is_new && i < cs->n_py; i++)
		rc |= gs_writer_stack_frame(w, id,
					    i >= cs->n_py - cs->py_outer ? i + cs->py_skipped : i,
					    GS_FRAME_PYTHON, 0, -1, 0,
					    gs_writer_intern(w, cs->text + cs->py_file[i]),
					    cs->py_line[i],
					    gs_writer_intern(w, cs->text + cs->py_func[i]));
	return rc ? -1 : id;
}

int gs_callsite_apply(struct gs_writer *w, struct gs_stack_table *t, const struct gs_callsite *cs)
{
	int64_t id = stack_rows(w, t, cs);

	if (id <= 0)
		return -1;
	return gs_writer_api_stack(w, cs->correlation_id, id, cs->tid, cs->reason, cs->t_begin,
				   cs->t_end);
}

int gs_sample_apply(struct gs_writer *w, struct gs_stack_table *t, const struct gs_callsite *cs)
{
	int64_t id = cs->n_native || cs->n_py ? stack_rows(w, t, cs) : 0;

	if (id < 0)
		return -1;
	/* an off-CPU sample (sampler.c): off CPU over [t_begin, t_end] */
	if (cs->reason == GS_CS_WHY_OFF_CPU)
		return gs_writer_wait_sample(w, cs->tid, cs->t_end,
					     (int64_t)(cs->t_end - cs->t_begin), id);
	return gs_writer_sample(w, cs->tid, cs->t_begin, id);
}

void gs_callsite_finish(struct gs_writer *w)
{
	uint64_t n, py;

	gs_callsite_counts(&n, &py);
	gs_writer_meta_int(w, "config.callsites", cs_mode);
	if (cs_mode > GS_CS_OFF) {
		gs_writer_meta_int(w, "callsites.captured", (int64_t)n);
		gs_writer_meta_int(w, "callsites.with_python", (int64_t)py);
		gs_writer_meta_int(w, "callsites.stacks",
				   process_table ? (int64_t)process_table->n : 0);
		gs_writer_meta_int(w, "callsites.native_walks", (int64_t)gs_callsite_walks());
	}
	gs_stack_table_free(process_table);
	process_table = NULL;
}
