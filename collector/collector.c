/*
 * collector.c - libgapscope.so's entry points and everything that talks to
 * CUPTI: InitializeInjection (CUDA_INJECTION64_PATH), InitializeInjectionNvtx2
 * (NVTX_INJECTION64_PATH), activity buffers, callbacks (cudaDeviceReset,
 * context teardown, CUDA graph topology), the periodic flush, and the one
 * finalize at exit / exit() / SIGINT / SIGTERM.
 *
 * What it does not do: decode records or touch SQLite on an application
 * thread. bufferCompleted hands the buffer to the writer thread
 * (pipeline.c) and returns; decoding and inserts happen there. It never
 * exits, aborts or blocks the application: every failure is one warning
 * (config.c's gs_warn) and the application runs on.
 *
 * Locks: ours (hand_lock, fin_lock, the pipeline's) are never held while
 * calling CUPTI - CUPTI calls our callbacks with its own lock held, and the
 * reverse order deadlocks.
 *
 * Why one file of about 2,000 lines (CONVENTIONS.md: ~1,200): every section
 * below (init, callbacks, buffers, periodic flush, activities, meta,
 * finalize, signals) reads and writes the one injection state G (nearly 300
 * uses), and the lock rule above holds only while G stays private to this
 * file; a split would make G a global of the whole collector core.
 */
#define _GNU_SOURCE /* pipe2, pthread_setname_np */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <cupti.h> /* also brings the generated_*_meta.h parameter structs */

#include "internal.h"

#define GS_EXPORT __attribute__((visibility("default")))

/* Queue bound: completed buffers waiting for the writer, in bytes. */
#define GS_MAX_QUEUED_BYTES (256u << 20)
/* How long a fatal signal may wait for the finalize before the process
 * dies anyway (see the signal section). */
#define GS_SIGNAL_FINALIZE_MS 10000
#define GS_MAX_DEVICES 64
/* Capture windows kept (16 bytes each); a program that starts tracing more
 * often is not recorded after that. */
#define GS_MAX_CAPTURE_WINDOWS 65536

enum fin_state { FIN_NONE, FIN_RUNNING, FIN_DONE };

static struct {
	atomic_int init;     /* 0 never, 1 in progress/done */
	int init_result;     /* InitializeInjection's return value */
	int active;	     /* recording */
	int queries_skipped; /* skip_query_calls() took effect */
	struct gs_config cfg;
	char path[PATH_MAX]; /* expanded output path */
	char host[256];
	char *cmdline;
	long pid;
	size_t buf_bytes; /* activity buffer size, bytes */
	struct gs_writer *w;
	struct gs_decoder dec;
	struct gs_pipeline *pipe;
	CUpti_SubscriberHandle sub;
	int subscribed;
	uint64_t start_ns;		       /* CUPTI clock */
	atomic_ullong cupti_dropped;	       /* records CUPTI reported dropped */
	atomic_int first_context;	       /* device facts queried once */
	int64_t mem_clock_khz[GS_MAX_DEVICES]; /* from the driver, -1 unknown */

	/* buffer hand-off vs finalize */
	pthread_mutex_t hand_lock;
	pthread_cond_t hand_cond; /* signalled when syncers drops to 0 */
	int accepting;		  /* G.pipe may be used */
	int syncers;		  /* threads waiting in gs_pipeline_sync */

	/* periodic flush */
	pthread_t flush_thread;
	int flush_running;
	pthread_mutex_t flush_lock;
	pthread_cond_t flush_cond;
	int flush_stop;

	/* finalize */
	pthread_mutex_t fin_lock;
	pthread_cond_t fin_cond;
	int fin_state;

	/* GAPSCOPE_CAPTURE_RANGE=cudaProfilerApi: tracing is on between the
	 * program's cudaProfilerStart and cudaProfilerStop; the spans it was
	 * on (start, end pairs) are written at finalize */
	pthread_mutex_t cap_lock; /* the three below; never held over a CUPTI call */
	pthread_cond_t cap_cond;  /* cap_switching went to 0 */
	int cap_want;		  /* on (1) or off (0), as the program last asked */
	int cap_switching;	  /* a thread is switching (capture_switch) */
	pthread_mutex_t win_lock; /* what follows; never held over a CUPTI call */
	int capturing;		  /* tracing is on now */
	uint64_t cap_start;	  /* when it was switched on */
	uint64_t *cap_win;	  /* n_cap (start, end) pairs */
	size_t n_cap, cap_alloc;
	uint64_t cap_skipped; /* starts not recorded: no room for their window */

	/* signals */
	struct sigaction old_int, old_term;
	int sig_pipe[2];  /* handler -> signal thread: 'F' finalize, 'f' flush */
	int done_pipe[2]; /* signal thread -> handler: finalize done */
	pthread_t sig_thread;
	int sig_installed;
} G = {
    .hand_lock = PTHREAD_MUTEX_INITIALIZER,
    .flush_lock = PTHREAD_MUTEX_INITIALIZER,
    .flush_cond = PTHREAD_COND_INITIALIZER,
    .fin_lock = PTHREAD_MUTEX_INITIALIZER,
    .fin_cond = PTHREAD_COND_INITIALIZER,
    .cap_lock = PTHREAD_MUTEX_INITIALIZER,
    .cap_cond = PTHREAD_COND_INITIALIZER,
    .win_lock = PTHREAD_MUTEX_INITIALIZER,
    .sig_pipe = {-1, -1},
    .done_pipe = {-1, -1},
};

/* Set while this thread is inside a runtime cudaGraphLaunch, so the nested
 * driver cuGraphLaunch is not recorded a second time. */
static __thread int in_runtime_graph_launch;

static void finalize(const char *reason);

/* ------------------------------------------------------------- helpers */

/* A child forked from the recorded process (without exec) inherits the
 * collector's memory, but none of its threads, and must not use CUPTI or
 * the parent's SQLite connection: it neither flushes nor finalizes (that
 * would write the parent's trace through a copied connection, or wait for
 * threads that are not there). getpid() is async-signal-safe. */
static int in_forked_child(void)
{
	return G.pid != 0 && (long)getpid() != G.pid;
}

static const char *cupti_err(CUptiResult r)
{
	const char *s = NULL;

	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

static const char *env_get(const char *name, void *ctx)
{
	(void)ctx;
	return getenv(name);
}

static uint64_t cupti_now(void)
{
	uint64_t t = 0;

	cuptiGetTimestamp(&t);
	return t;
}

/* /proc/self/cmdline with the NULs turned into spaces. */
static char *read_cmdline(void)
{
	char buf[16384];
	ssize_t n, i;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return strdup("");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return strdup("");
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return strdup(buf);
}

/* The driver is already loaded in the process that loaded us; look up a
 * function without linking libcuda (RTLD_NOLOAD: never load a second one). */
static void *driver_sym(const char *name)
{
	static void *h;

	if (!h)
		h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	return h ? dlsym(h, name) : NULL;
}

/* ------------------------------------------------------------- seams for decode */

static int next_record(uint8_t *buf, size_t valid, CUpti_Activity **rec)
{
	return cuptiActivityGetNextRecord(buf, valid, rec) != CUPTI_SUCCESS;
}

static const char *api_name(int api, uint32_t cbid, void *ctx)
{
	const char *name = NULL;
	(void)ctx;

	if (cuptiGetCallbackName(api == GS_API_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API
						       : CUPTI_CB_DOMAIN_DRIVER_API,
				 cbid, &name) != CUPTI_SUCCESS)
		return NULL;
	return name;
}

/* ------------------------------------------------------------- buffers */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*max_records = 0; /* as many as fit */
	*buffer = NULL;
	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting)
		*buffer = gs_pipeline_get_buffer(G.pipe);
	pthread_mutex_unlock(&G.hand_lock);
	*size = *buffer ? G.buf_bytes : 0; /* NULL: CUPTI drops and counts */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	size_t dropped = 0;

	/* CUPTI's own drop count for this buffer's context/stream. Not under
	 * any lock of ours. */
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
		atomic_fetch_add(&G.cupti_dropped, dropped);

	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting) {
		/* Only a queue append: never decode or write here. */
		gs_pipeline_submit(G.pipe, buffer, size, valid);
		buffer = NULL;
	}
	pthread_mutex_unlock(&G.hand_lock);
	gs_buffer_free(buffer, G.buf_bytes); /* after finalize: one of ours */
}

/* Flush CUPTI's buffers and wait (bounded) until the writer committed them. */
static void flush_and_commit(uint32_t flag, unsigned wait_ms)
{
	CUptiResult r = cuptiActivityFlushAll(flag);

	if (r != CUPTI_SUCCESS)
		gs_log(GS_LOG_DEBUG, "cuptiActivityFlushAll: %s", cupti_err(r));
	pthread_mutex_lock(&G.hand_lock);
	if (!G.accepting) {
		pthread_mutex_unlock(&G.hand_lock);
		return;
	}
	/* Wait outside the lock (bufferCompleted must not queue behind us);
	 * finalize waits for syncers to leave before freeing the pipeline. */
	G.syncers++;
	pthread_mutex_unlock(&G.hand_lock);
	gs_pipeline_sync(G.pipe, wait_ms);
	pthread_mutex_lock(&G.hand_lock);
	if (--G.syncers == 0)
		pthread_cond_broadcast(&G.hand_cond);
	pthread_mutex_unlock(&G.hand_lock);
}

/* ------------------------------------------------------------- periodic flush */

static void *flush_main(void *arg)
{
	(void)arg;
	/* named for top -H and the trace's thread_cpu_ns.gs-flush */
	pthread_setname_np(pthread_self(), "gs-flush");
	pthread_mutex_lock(&G.flush_lock);
	while (!G.flush_stop) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += G.cfg.flush_ms / 1000;
		until.tv_nsec += (long)(G.cfg.flush_ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&G.flush_cond, &G.flush_lock, &until);
		if (G.flush_stop)
			break;
		pthread_mutex_unlock(&G.flush_lock);
		/* Default flush (0): only buffers whose records are complete,
		 * so no half-filled kernel record is written. A killed process
		 * loses at most about one period. */
		cuptiActivityFlushAll(0);
		/* and the events (syncs, call sites, graphs) that wait
		 * without waking the writer */
		pthread_mutex_lock(&G.hand_lock);
		if (G.accepting)
			gs_pipeline_kick(G.pipe);
		pthread_mutex_unlock(&G.hand_lock);
		pthread_mutex_lock(&G.flush_lock);
	}
	pthread_mutex_unlock(&G.flush_lock);
	return NULL;
}

static void stop_flush_thread(void)
{
	if (!G.flush_running)
		return;
	pthread_mutex_lock(&G.flush_lock);
	G.flush_stop = 1;
	pthread_cond_signal(&G.flush_cond);
	pthread_mutex_unlock(&G.flush_lock);
	pthread_join(G.flush_thread, NULL);
	G.flush_running = 0;
}

/* ------------------------------------------------------------- callbacks */

static void query_devices(void)
{
	CUresult (*get_count)(int *) = (CUresult(*)(int *))driver_sym("cuDeviceGetCount");
	CUresult (*get_attr)(int *, CUdevice_attribute, CUdevice) =
	    (CUresult(*)(int *, CUdevice_attribute, CUdevice))driver_sym("cuDeviceGetAttribute");
	int n = 0, i;

	/* The memory clock is not in CUPTI's device record. Asked once, at
	 * the first context creation (the driver is initialised by then; in
	 * InitializeInjection it is not). */
	if (!get_count || !get_attr || get_count(&n) != CUDA_SUCCESS)
		return;
	for (i = 0; i < n && i < GS_MAX_DEVICES; i++) {
		int khz = 0;
		if (get_attr(&khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, i) == CUDA_SUCCESS)
			G.mem_clock_khz[i] = khz;
	}
}

static void graph_event(const CUpti_GraphData *g, CUpti_CallbackId cbid)
{
	struct gs_event ev;
	uint32_t gid = 0, ogid = 0, eid = 0;
	uint64_t nid = 0, onid = 0, dep = 0;

	if (!g)
		return;
	memset(&ev, 0, sizeof(ev));
	if (g->graph)
		cuptiGetGraphId(g->graph, &gid);
	switch (cbid) {
	case CUPTI_CBID_RESOURCE_GRAPH_CREATED:
	case CUPTI_CBID_RESOURCE_GRAPH_CLONED:
		ev.kind = GS_EV_GRAPH;
		ev.u.graph.graph_id = gid;
		ev.u.graph.original_graph_id = -1;
		if (cbid == CUPTI_CBID_RESOURCE_GRAPH_CLONED && g->originalGraph &&
		    cuptiGetGraphId(g->originalGraph, &ogid) == CUPTI_SUCCESS)
			ev.u.graph.original_graph_id = ogid;
		ev.u.graph.device = -1;
		ev.u.graph.context = -1;
		ev.u.graph.created = cupti_now();
		ev.u.graph.origin = cbid == CUPTI_CBID_RESOURCE_GRAPH_CLONED ? 1 : 0;
		break;
	case CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED:
	case CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED:
		if (!g->node || cuptiGetGraphNodeId(g->node, &nid) != CUPTI_SUCCESS)
			return;
		ev.kind = GS_EV_GRAPH_NODE;
		ev.u.node.n.node_id = nid;
		ev.u.node.n.graph_id = gid;
		ev.u.node.n.type = (int)g->nodeType;
		/* CUDA 13.0's CUPTI reports nodeType 0 (kernel) for memcpy nodes
		 * (seen on the H200, 2026-12-02: the graph-conversion demo's
		 * copy nodes came out as kernels). Ask the driver, which only
		 * reads the node; keep CUPTI's value if that fails. */
		{
			static CUresult (*node_type)(CUgraphNode, CUgraphNodeType *);
			CUgraphNodeType t;
			if (!node_type)
				node_type = (CUresult(*)(CUgraphNode, CUgraphNodeType *))driver_sym(
				    "cuGraphNodeGetType");
			if (node_type && node_type(g->node, &t) == CUDA_SUCCESS)
				ev.u.node.n.type = (int)t;
		}
		ev.u.node.n.original_node_id = -1;
		/* Cloning happens for cuGraphClone and for every node of an
		 * instantiation: kernel records carry the instantiated node's
		 * id, this maps it back to the node the user built. */
		if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && g->originalNode &&
		    cuptiGetGraphNodeId(g->originalNode, &onid) == CUPTI_SUCCESS)
			ev.u.node.n.original_node_id = (int64_t)onid;
		ev.u.node.n.child_graph_id = -1;
		for (int i = 0; i < 3; i++)
			ev.u.node.n.grid[i] = ev.u.node.n.block[i] = -1;
		ev.u.node.n.bytes = -1;
		ev.u.node.n.created = cupti_now();
		break;
	case CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED:
		if (!g->node || !g->dependency ||
		    cuptiGetGraphNodeId(g->node, &nid) != CUPTI_SUCCESS ||
		    cuptiGetGraphNodeId(g->dependency, &dep) != CUPTI_SUCCESS)
			return;
		ev.kind = GS_EV_GRAPH_EDGE;
		ev.u.edge.graph_id = gid;
		ev.u.edge.from = dep; /* node depends on dependency */
		ev.u.edge.to = nid;
		break;
	case CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED:
	case CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS:
		/* cudaGraphExec*NodeSetParams, cudaGraphExecUpdate, ...: the
		 * cheap alternative to re-instantiating, worth seeing */
		if (!g->node || cuptiGetGraphNodeId(g->node, &nid) != CUPTI_SUCCESS)
			return;
		ev.kind = GS_EV_GRAPH_NODE_UPDATE;
		ev.u.update.time = cupti_now();
		ev.u.update.kind = cbid == CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED
				       ? GS_NODE_UPDATE_NODE
				       : GS_NODE_UPDATE_PARAMS;
		ev.u.update.node_id = nid;
		ev.u.update.graph_id = g->graph ? (int64_t)gid : -1;
		ev.u.update.exec_id = -1;
		if (g->graphExec && cuptiGetGraphExecId(g->graphExec, &eid) == CUPTI_SUCCESS)
			ev.u.update.exec_id = eid;
		break;
	case CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED:
		if (!g->graphExec || cuptiGetGraphExecId(g->graphExec, &eid) != CUPTI_SUCCESS)
			return;
		ev.kind = GS_EV_GRAPH_EXEC;
		ev.u.exec.exec_id = eid;
		ev.u.exec.graph_id = g->graph ? (int64_t)gid : -1;
		ev.u.exec.device = -1;
		ev.u.exec.created = cupti_now();
		break;
	default: return;
	}
	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting)
		gs_pipeline_event(G.pipe, &ev);
	pthread_mutex_unlock(&G.hand_lock);
}

static void graph_launch(const CUpti_CallbackData *cb, CUgraphExec exec, CUstream stream,
			 int per_thread)
{
	struct gs_event ev;
	uint32_t eid = 0, sid = 0;

	if (!exec || cuptiGetGraphExecId(exec, &eid) != CUPTI_SUCCESS)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_LAUNCH;
	ev.u.launch.exec_id = eid;
	ev.u.launch.stream = -1;
	if (cb->context &&
	    cuptiGetStreamIdEx(cb->context, stream, (uint8_t)per_thread, &sid) == CUPTI_SUCCESS)
		ev.u.launch.stream = sid;
	ev.u.launch.correlation_id = cb->correlationId;
	ev.u.launch.tid = (int64_t)syscall(SYS_gettid);
	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting)
		gs_pipeline_event(G.pipe, &ev);
	pthread_mutex_unlock(&G.hand_lock);
}

/* A stream capture ended and returned `graph`: mark it as made by capture.
 * CUDA 13's CUPTI has no capture resource callback; the graph is created
 * (GRAPH_CREATED) when the capture begins, so by now its row is queued. */
static void graph_captured(CUgraph graph)
{
	struct gs_event ev;
	uint32_t gid = 0;

	if (!graph || cuptiGetGraphId(graph, &gid) != CUPTI_SUCCESS)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.kind = GS_EV_GRAPH_CAPTURED;
	ev.u.captured.graph_id = gid;
	ev.u.captured.when = cupti_now();
	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting)
		gs_pipeline_event(G.pipe, &ev);
	pthread_mutex_unlock(&G.hand_lock);
}

/* ------------------------------------------------ sync and event rows */

/* The collector's id for an event handle: CUPTI's event ids come with its
 * CUDA_EVENT records, which the default leaves off (enum gs_sync_source).
 * A handle keeps its id for the life of the process; a handle reused after
 * cudaEventDestroy keeps it too, and the viewer ties a wait to the latest
 * record of the event before it, so that is harmless. 0: no id (a new
 * handle when the table is full and cannot grow). */
static struct {
	pthread_mutex_t lock;
	const void **keys;
	uint32_t *ids;
	size_t cap, used;
	uint32_t next;
} event_ids = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 0, 1};

static size_t event_slot(const void *h, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)h * 0x9E3779B97F4A7C15ull;
	return (size_t)(x >> 20) & (cap - 1);
}

static int event_ids_grow(void)
{
	size_t cap = event_ids.cap ? 2 * event_ids.cap : 1024, i;
	const void **keys = calloc(cap, sizeof(*keys));
	uint32_t *ids = calloc(cap, sizeof(*ids));

	if (!keys || !ids || cap > (1u << 24)) {
		free(keys);
		free(ids);
		return -1;
	}
	for (i = 0; i < event_ids.cap; i++)
		if (event_ids.keys[i]) {
			size_t j = event_slot(event_ids.keys[i], cap);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = event_ids.keys[i];
			ids[j] = event_ids.ids[i];
		}
	free(event_ids.keys);
	free(event_ids.ids);
	event_ids.keys = keys;
	event_ids.ids = ids;
	event_ids.cap = cap;
	return 0;
}

static uint32_t event_id(const void *h)
{
	uint32_t id = 0;
	size_t j;

	if (!h)
		return 0;
	pthread_mutex_lock(&event_ids.lock);
	/* kept at most half full; if it cannot grow, it still serves the
	 * handles it holds and takes new ones until one slot is left */
	if (2 * (event_ids.used + 1) > event_ids.cap)
		event_ids_grow();
	if (!event_ids.cap)
		goto out;
	j = event_slot(h, event_ids.cap);
	while (event_ids.keys[j] && event_ids.keys[j] != h)
		j = (j + 1) & (event_ids.cap - 1);
	if (!event_ids.keys[j]) {
		if (event_ids.used + 2 > event_ids.cap)
			goto out;
		event_ids.keys[j] = h;
		event_ids.ids[j] = event_ids.next++;
		event_ids.used++;
	}
	id = event_ids.ids[j];
out:
	pthread_mutex_unlock(&event_ids.lock);
	return id;
}

/* CUPTI's stream id of a stream handle as the call named it: the runtime's
 * special handles (cudaStreamLegacy 0x1, cudaStreamPerThread 0x2) and NULL
 * in a _ptsz call name a context's default streams. -1: unknown. */
static int64_t stream_id(CUcontext ctx, const void *stream, int per_thread)
{
	uint32_t sid = 0;

	if ((uintptr_t)stream == 0x1) {
		stream = NULL;
		per_thread = 0;
	} else if ((uintptr_t)stream == 0x2) {
		stream = NULL;
		per_thread = 1;
	}
	if (!ctx || cuptiGetStreamIdEx(ctx, (CUstream)(uintptr_t)stream, (uint8_t)per_thread,
				       &sid) != CUPTI_SUCCESS)
		return -1;
	return sid;
}

/* What a call that synchronises or records an event is: the kind of sync
 * (enum gs_sync_kind, -1 for an event record), and where in its parameters
 * the stream and the event handles are. */
struct sync_call {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	int kind;	/* GS_SYNC_*, or -1: an event record */
	int per_thread; /* a _ptsz entry point */
	int stream_at;	/* index of the stream handle among the pointer-sized
			   leading parameters, -1: none */
	int event_at;	/* the same for the event handle */
};

#define RT(x) CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##x
#define DRV(x) CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##x
static const struct sync_call sync_calls[] = {
    {RT(cudaStreamSynchronize_v3020), GS_SYNC_STREAM, 0, 0, -1},
    {RT(cudaStreamSynchronize_ptsz_v7000), GS_SYNC_STREAM, 1, 0, -1},
    {RT(cudaEventSynchronize_v3020), GS_SYNC_EVENT, 0, -1, 0},
    {RT(cudaDeviceSynchronize_v3020), GS_SYNC_CONTEXT, 0, -1, -1},
    {RT(cudaThreadSynchronize_v3020), GS_SYNC_CONTEXT, 0, -1, -1},
    {RT(cudaStreamWaitEvent_v3020), GS_SYNC_STREAM_WAIT_EVENT, 0, 0, 1},
    {RT(cudaStreamWaitEvent_ptsz_v7000), GS_SYNC_STREAM_WAIT_EVENT, 1, 0, 1},
    {RT(cudaEventRecord_v3020), -1, 0, 1, 0},
    {RT(cudaEventRecord_ptsz_v7000), -1, 1, 1, 0},
    {RT(cudaEventRecordWithFlags_v11010), -1, 0, 1, 0},
    {RT(cudaEventRecordWithFlags_ptsz_v11010), -1, 1, 1, 0},
    {DRV(cuStreamSynchronize), GS_SYNC_STREAM, 0, 0, -1},
    {DRV(cuStreamSynchronize_ptsz), GS_SYNC_STREAM, 1, 0, -1},
    {DRV(cuEventSynchronize), GS_SYNC_EVENT, 0, -1, 0},
    {DRV(cuCtxSynchronize), GS_SYNC_CONTEXT, 0, -1, -1},
    {DRV(cuCtxSynchronize_v2), GS_SYNC_CONTEXT, 0, -1, -1},
    {DRV(cuStreamWaitEvent), GS_SYNC_STREAM_WAIT_EVENT, 0, 0, 1},
    {DRV(cuStreamWaitEvent_ptsz), GS_SYNC_STREAM_WAIT_EVENT, 1, 0, 1},
    {DRV(cuEventRecord), -1, 0, 1, 0},
    {DRV(cuEventRecord_ptsz), -1, 1, 1, 0},
    {DRV(cuEventRecordWithFlags), -1, 0, 1, 0},
    {DRV(cuEventRecordWithFlags_ptsz), -1, 1, 1, 0},
};
#undef RT
#undef DRV
#define N_SYNC_CALLS (sizeof(sync_calls) / sizeof(sync_calls[0]))

/* Whether the callbacks make the rows of activity bit `act`: it is recorded,
 * but not through its CUPTI kind (gs_cupti_activities). */
static int from_callbacks(unsigned act)
{
	return (G.cfg.activities & act) &&
	       !(gs_cupti_activities(G.cfg.activities, G.cfg.sync_source) & act);
}

static int syncs_from_callbacks(void)
{
	return from_callbacks(GS_ACT_SYNC);
}

static int events_from_callbacks(void)
{
	return from_callbacks(GS_ACT_EVENT);
}

/* A runtime call of the table is in progress on this thread: the driver
 * calls it makes are not rows of their own. */
static __thread int in_runtime_sync_call;

static const struct sync_call *find_sync_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	size_t i;

	for (i = 0; i < N_SYNC_CALLS; i++)
		if (sync_calls[i].domain == domain && sync_calls[i].cbid == cbid)
			return &sync_calls[i];
	return NULL;
}

/* The row of the sync or event call in progress on this thread, made at
 * the call's entry and handed over at its exit. */
static __thread struct gs_event pending_row;
static __thread int pending_valid;
static __thread uint32_t pending_corr; /* the call the row is of */

/* The row of call sc as CUPTI's SYNCHRONIZATION and CUDA_EVENT records would
 * give it (decode.c), from the call's parameters at its entry; start = now.
 * Returns 0, or -1 when it has none (a handle CUPTI does not know). */
static int make_sync_row(const struct sync_call *sc, const CUpti_CallbackData *cb, uint64_t now,
			 struct gs_event *ev)
{
	const void *const *params = cb->functionParams;
	const void *stream = NULL, *event = NULL;
	uint32_t ctx_id = 0, dev = 0;

	/* every call of the table takes its handles first, pointer-sized;
	 * calls without parameters (cudaDeviceSynchronize) may have none */
	if ((sc->stream_at >= 0 || sc->event_at >= 0) && !params)
		return -1;
	if (sc->stream_at >= 0)
		stream = params[sc->stream_at];
	if (sc->event_at >= 0)
		event = params[sc->event_at];
	if (cb->context) {
		cuptiGetContextId(cb->context, &ctx_id);
		if (cuptiGetDeviceId(cb->context, &dev) != CUPTI_SUCCESS)
			dev = UINT32_MAX;
	}
	ev->kind = sc->kind < 0 ? GS_EV_CUDA_EVENT : GS_EV_SYNC;
	if (sc->kind < 0) {
		int64_t sid = stream_id(cb->context, stream, sc->per_thread);
		memset(&ev->u.cuda_event, 0, sizeof(ev->u.cuda_event));
		ev->u.cuda_event.event = event_id(event);
		if (sid < 0 || !ev->u.cuda_event.event)
			return -1;
		ev->u.cuda_event.stream = (uint32_t)sid;
		ev->u.cuda_event.device = dev;
		ev->u.cuda_event.context = ctx_id;
		ev->u.cuda_event.correlation_id = cb->correlationId;
		ev->u.cuda_event.start = now;
		return 0;
	}
	memset(&ev->u.sync, 0, sizeof(ev->u.sync));
	ev->u.sync.start = now;
	ev->u.sync.kind = sc->kind;
	ev->u.sync.implicit = 0;
	ev->u.sync.device = dev == UINT32_MAX || !cb->context ? -1 : (int64_t)dev;
	ev->u.sync.context = cb->context ? (int64_t)ctx_id : -1;
	ev->u.sync.stream =
	    sc->stream_at >= 0 ? stream_id(cb->context, stream, sc->per_thread) : -1;
	ev->u.sync.event = sc->event_at >= 0 && event ? (int64_t)event_id(event) : -1;
	ev->u.sync.correlation_id = cb->correlationId;
	ev->u.sync.pid = -1; /* from the API call at finalize */
	ev->u.sync.tid = -1;
	return 0;
}

/* The callback of a call in sync_calls: a sync row (start and end are the
 * call's) or an event row, with the same correlation id as the call's API
 * record, so that finalize completes them the same way. The row is made at
 * the call's entry: a sync waits for the GPU after it, so the lookups
 * (CUPTI's context, device and stream ids) overlap the GPU's work instead
 * of following it. The exit only stamps the end and hands the row over. */
static void sync_call(const struct sync_call *sc, const CUpti_CallbackData *cb)
{
	int ok;

	if (sc->kind < 0 ? !events_from_callbacks() : !syncs_from_callbacks())
		return;
	if (sc->domain == CUPTI_CB_DOMAIN_DRIVER_API && in_runtime_sync_call)
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (sc->domain == CUPTI_CB_DOMAIN_RUNTIME_API)
			in_runtime_sync_call = 1;
		pending_valid = make_sync_row(sc, cb, cupti_now(), &pending_row) == 0;
		pending_corr = cb->correlationId;
		return;
	}
	if (sc->domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		in_runtime_sync_call = 0;
		ok = cb->functionReturnValue &&
		     *(const cudaError_t *)cb->functionReturnValue == cudaSuccess;
	} else {
		ok = cb->functionReturnValue &&
		     *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
	}
	if (!pending_valid)
		return;
	pending_valid = 0;
	/* the entry's row is this call's: calls of the table do not nest (a
	 * runtime call's driver calls are skipped above) */
	if (!ok || pending_corr != cb->correlationId)
		return;
	if (pending_row.kind == GS_EV_SYNC)
		pending_row.u.sync.end = cupti_now();
	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting)
		gs_pipeline_event(G.pipe, &pending_row);
	pthread_mutex_unlock(&G.hand_lock);
}

/* A blocking call's call site (callsite.c), handed over like the graph
 * events. The capture times itself (gs_callsite_set_clock): the clock is
 * read only for a call that is captured, not for every callback. */
static void callsite(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		     const CUpti_CallbackData *cb)
{
	struct gs_event ev;

	if (!gs_callsite_on_api(domain, cbid, cb, &ev.u.callsite))
		return;
	ev.kind = GS_EV_CALLSITE;
	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting)
		gs_pipeline_event(G.pipe, &ev);
	pthread_mutex_unlock(&G.hand_lock);
}

/* A sample of a launching thread (sampler.c, its drain thread), handed over
 * like the call sites. */
static void push_sample(const struct gs_event *ev)
{
	pthread_mutex_lock(&G.hand_lock);
	if (G.accepting)
		gs_pipeline_event(G.pipe, ev);
	pthread_mutex_unlock(&G.hand_lock);
}

static void callback_body(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data);
static void capture_switch(int on);
/* Set while this thread is inside cudaProfilerStart/Stop (capture range). */
static __thread int in_runtime_profiler_call;

/* The collector's own time in the program's threads: every callback is
 * timed (two vDSO clock reads, ~40 ns) and summed; finalize stores the
 * totals in meta (collector.callback_ns, collector.callbacks). The viewer's
 * overhead correction takes this time off the host segments it lies in. */
static _Atomic uint64_t cb_ns, cb_calls;

static void CUPTIAPI callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			      const void *data)
{
	struct timespec a, b;

	(void)userdata;
	clock_gettime(CLOCK_MONOTONIC, &a);
	callback_body(domain, cbid, data);
	clock_gettime(CLOCK_MONOTONIC, &b);
	atomic_fetch_add(&cb_ns, (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000LL +
					    (b.tv_nsec - a.tv_nsec)));
	atomic_fetch_add(&cb_calls, 1);
}

static void callback_body(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API)
		gs_sampler_watch_self(); /* sampled from its first such call, not a flush later */
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		const struct sync_call *sc = find_sync_call(domain, cbid);
		if (sc)
			sync_call(sc, data);
		callsite(domain, cbid, data);
	}
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		const CUpti_CallbackData *cb = data;
		int start = domain == CUPTI_CB_DOMAIN_RUNTIME_API
				? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
				: cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
		int stop = domain == CUPTI_CB_DOMAIN_RUNTIME_API
			       ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
			       : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
		/* on after the start returns, off before the stop begins: neither
		 * call is in a window (only enabled under GAPSCOPE_CAPTURE_RANGE).
		 * The runtime call's own callbacks do it, outside the driver call
		 * it makes; the driver's only for a program that calls
		 * cuProfilerStart/Stop itself. */
		if ((start || stop) && G.cfg.capture_range == GS_CAPTURE_PROFILER_API) {
			if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
				in_runtime_profiler_call = cb->callbackSite == CUPTI_API_ENTER;
			else if (in_runtime_profiler_call)
				return;
			if (start && cb->callbackSite == CUPTI_API_EXIT)
				capture_switch(1);
			else if (stop && cb->callbackSite == CUPTI_API_ENTER)
				capture_switch(0);
			return;
		}
	}
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		const CUpti_CallbackData *cb = data;
		if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
			/* The reset destroys the context and with it records
			 * not yet delivered: hand over what is complete now
			 * and make it durable. */
			if (cb->callbackSite == CUPTI_API_ENTER)
				flush_and_commit(0, 2000);
		} else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
			   cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000) {
			if (cb->callbackSite == CUPTI_API_ENTER) {
				const cudaGraphLaunch_v10000_params *p = cb->functionParams;
				in_runtime_graph_launch = 1;
				graph_launch(
				    cb, (CUgraphExec)p->graphExec, (CUstream)p->stream,
				    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000);
			} else {
				in_runtime_graph_launch = 0;
			}
		} else if ((cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000 ||
			    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000) &&
			   cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue &&
			   *(const cudaError_t *)cb->functionReturnValue == cudaSuccess) {
			/* same layout for the _ptsz variant */
			const cudaStreamEndCapture_v10000_params *p = cb->functionParams;
			if (p && p->pGraph)
				graph_captured((CUgraph)*p->pGraph);
		}
	} else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		const CUpti_CallbackData *cb = data;
		if ((cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
		     cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) &&
		    cb->callbackSite == CUPTI_API_ENTER && !in_runtime_graph_launch) {
			const cuGraphLaunch_params *p = cb->functionParams;
			graph_launch(cb, p->hGraph, p->hStream,
				     cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz);
		} else if ((cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture ||
			    cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz) &&
			   cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue &&
			   *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS) {
			/* also reached nested in cudaStreamEndCapture: marking
			 * twice is harmless */
			const cuStreamEndCapture_params *p = cb->functionParams;
			if (p && p->phGraph)
				graph_captured(*p->phGraph);
		}
	} else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		switch (cbid) {
		case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
			if (atomic_exchange(&G.first_context, 1) == 0)
				query_devices();
			break;
		case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
			/* The context's work is done (destroy synchronizes), so
			 * a forced flush delivers complete records only. */
			flush_and_commit(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED, 2000);
			break;
		default: graph_event((const CUpti_GraphData *)rd->resourceDescriptor, cbid); break;
		}
	}
}

/* ------------------------------------------------------------- activities */

/* Graph-level mode: CUPTI times each graph launch as a whole and, while
 * GRAPH_TRACE is on, gives no kernel (memcpy, memset) records for the nodes
 * of graph launches: on Hopper each traced node costs ~1 µs of GPU time
 * (graphs of 1000 kernels 1.8 -> 2.8 µs per node, H200), which this avoids.
 * Kernels launched outside graphs are recorded as before. */
static void enable_graph_level(int on)
{
	CUptiResult r;

	if (!G.cfg.graph_level)
		return;
	r = on ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)
	       : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
	if (r != CUPTI_SUCCESS && on)
		gs_warn("activity.graph_trace",
			"cannot record graph launches as a whole (graph-level mode): %s; "
			"their nodes are recorded one by one",
			cupti_err(r));
}

static void enable_activities(int on)
{
	size_t i, n;
	const struct gs_activity_kind *kinds = gs_activity_kinds(&n);

	for (i = 0; i < n; i++) {
		CUptiResult r;
		char key[64];

		/* sync and event rows may come from callbacks (sync_call) */
		if (!(gs_cupti_activities(G.cfg.activities, G.cfg.sync_source) & kinds[i].act))
			continue;
		r = on ? cuptiActivityEnable(kinds[i].kind) : cuptiActivityDisable(kinds[i].kind);
		if (r != CUPTI_SUCCESS && on) {
			snprintf(key, sizeof(key), "activity.%s", kinds[i].name);
			gs_warn(key, "cannot enable CUPTI %s records: %s; they are not recorded",
				kinds[i].name, cupti_err(r));
		}
	}
}

/* Libraries that launch through the driver API (cuBLAS, Triton, ...) have
 * no runtime launch call: without the driver's launch entry points their
 * kernels show no launch call at all. Tracing every driver call costs a
 * record per runtime call as well; these few ids are enough
 * (cuptiActivityEnableDriverApi works without CUPTI_ACTIVITY_KIND_DRIVER). */
static void enable_driver_launches(int on)
{
	static const CUpti_CallbackId ids[] = {
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	};
	size_t i;

	if (!(G.cfg.activities & GS_ACT_RUNTIME) || (G.cfg.activities & GS_ACT_DRIVER))
		return;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		CUptiResult r = cuptiActivityEnableDriverApi(ids[i], on);
		if (r != CUPTI_SUCCESS && on) {
			gs_warn("activity.driver_launch",
				"cannot record driver-API launches: %s; kernels launched "
				"through the driver API will show no launch call",
				cupti_err(r));
			return;
		}
	}
}

/* Query calls that change nothing on the GPU and take well under a
 * microsecond, made by frameworks around every operation: PyTorch's eager
 * step of 24 kernels made 123 cudaGetDevice calls (H200, torch 2.11), and a
 * record each costs more than the call. Leaving them out loses no gap, cause
 * or sync. Switching the RUNTIME kind on again resets this, so it follows
 * every enable_activities(1). */
#define QUERY_CALL(x)                                                                              \
	{                                                                                          \
		CUPTI_RUNTIME_TRACE_CBID_##x, #x                                                   \
	}
static const struct {
	CUpti_CallbackId id;
	const char *name; /* CUPTI's versioned name */
} query_calls[] = {
    QUERY_CALL(cudaGetDevice_v3020),
    QUERY_CALL(cudaGetDeviceCount_v3020),
    QUERY_CALL(cudaGetDeviceFlags_v7000),
    QUERY_CALL(cudaGetLastError_v3020),
    QUERY_CALL(cudaPeekAtLastError_v3020),
    QUERY_CALL(cudaDeviceGetAttribute_v5000),
    QUERY_CALL(cudaDeviceGetLimit_v3020),
    QUERY_CALL(cudaThreadGetLimit_v3020),
    QUERY_CALL(cudaFuncGetAttributes_v3020),
    QUERY_CALL(cudaPointerGetAttributes_v4000),
    QUERY_CALL(cudaStreamIsCapturing_v10000),
    QUERY_CALL(cudaStreamIsCapturing_ptsz_v10000),
    QUERY_CALL(cudaStreamGetCaptureInfo_v10010),
    QUERY_CALL(cudaStreamGetCaptureInfo_ptsz_v10010),
    QUERY_CALL(cudaStreamGetCaptureInfo_v2_v11030),
    QUERY_CALL(cudaStreamGetCaptureInfo_v2_ptsz_v11030),
    QUERY_CALL(cudaStreamGetCaptureInfo_v12030),
    QUERY_CALL(cudaStreamGetCaptureInfo_ptsz_v12030),
};
#undef QUERY_CALL

static void skip_query_calls(void)
{
	size_t i;

	if (!(G.cfg.activities & GS_ACT_RUNTIME))
		return;
	for (i = 0; i < sizeof(query_calls) / sizeof(query_calls[0]); i++) {
		CUptiResult r = cuptiActivityEnableRuntimeApi(query_calls[i].id, 0);
		if (r != CUPTI_SUCCESS) {
			/* only a cost: every call is still recorded */
			gs_log(GS_LOG_DEBUG, "cannot leave out runtime query calls: %s",
			       cupti_err(r));
			return;
		}
	}
	G.queries_skipped = 1;
}

/* Whether the comma-separated list holds the name n[0..k). */
static int name_listed(const char *list, const char *n, size_t k)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		if (len == k && memcmp(p, n, k) == 0)
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* meta config.runtime_calls_left_out: the plain names (CUPTI's version
 * suffix dropped, as in api_calls), comma-separated, each once */
static void query_calls_string(char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(query_calls) / sizeof(query_calls[0]); i++) {
		const char *n = query_calls[i].name;
		size_t k = gs_api_plain_len(n);
		int w;

		if (name_listed(buf, n, k))
			continue;
		w = snprintf(buf + used, len - used, "%s%.*s", used ? "," : "", (int)k, n);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

/* The callbacks made on the program's calls (its syncs, blocking calls and
 * graph launches): on while tracing is on. */
static void enable_call_callbacks(int on)
{
	static const struct {
		CUpti_CallbackDomain domain;
		CUpti_CallbackId cbid;
	} graph_launches[] = {
	    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000},
	    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000},
	    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch},
	    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz},
	};
	CUptiResult r = CUPTI_SUCCESS;
	size_t i;

	if (G.cfg.callsites > GS_CS_OFF) {
		struct gs_callsite_cbid ids[128];
		size_t k, n = gs_callsite_cbids(G.cfg.callsites, ids, 128);
		for (k = 0; k < n; k++)
			if ((r = cuptiEnableCallback(on, G.sub, ids[k].domain, ids[k].cbid)) !=
				CUPTI_SUCCESS &&
			    on)
				gs_warn("callbacks.callsites",
					"cannot enable a call-site callback (%s); some blocking "
					"calls have no call site",
					cupti_err(r));
	}
	if (syncs_from_callbacks() || events_from_callbacks()) {
		for (i = 0; i < N_SYNC_CALLS; i++) {
			if (sync_calls[i].kind < 0 ? !events_from_callbacks()
						   : !syncs_from_callbacks())
				continue;
			r = cuptiEnableCallback(on, G.sub, sync_calls[i].domain,
						sync_calls[i].cbid);
			if (r != CUPTI_SUCCESS && on) {
				gs_warn("callbacks.syncs",
					"cannot enable the callbacks that record syncs and CUDA "
					"events (%s); some are missing",
					cupti_err(r));
				break;
			}
		}
	}
	if (!(G.cfg.activities & GS_ACT_GRAPH))
		return;
	r = CUPTI_SUCCESS;
	for (i = 0; i < sizeof(graph_launches) / sizeof(graph_launches[0]) && r == CUPTI_SUCCESS;
	     i++)
		r = cuptiEnableCallback(on, G.sub, graph_launches[i].domain,
					graph_launches[i].cbid);
	if (r != CUPTI_SUCCESS && on)
		gs_warn("callbacks.graph_launch",
			"cannot enable CUDA graph launch callbacks: %s; graph launches are not "
			"tied to their graphs",
			cupti_err(r));
}

/* Under GAPSCOPE_CAPTURE_RANGE: the callbacks on the program's
 * cudaProfilerStart/Stop, before anything (meta, the decoder's filter)
 * depends on the mode. Where they cannot be had, the whole run is recorded. */
static void watch_profiler_calls(void)
{
	CUptiResult r;

	if (G.cfg.capture_range != GS_CAPTURE_PROFILER_API)
		return;
	r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
				CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
					CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_DRIVER_API,
					CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_DRIVER_API,
					CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
	if (r != CUPTI_SUCCESS) {
		/* the callbacks that did come on then do nothing (callback_body) */
		gs_warn("callbacks.capture_range",
			"cannot watch cudaProfilerStart/Stop: %s; recording the whole run",
			cupti_err(r));
		G.cfg.capture_range = GS_CAPTURE_ALL;
	}
}

/* The callbacks on for the whole run: cudaDeviceReset, contexts, graph
 * topology (graphs are often built before a capture window). */
static int enable_callbacks(void)
{
	static const CUpti_CallbackId graph_cbids[] = {
	    CUPTI_CBID_RESOURCE_GRAPH_CREATED,
	    CUPTI_CBID_RESOURCE_GRAPH_CLONED,
	    CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
	    CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED,
	    CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED,
	    CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED,
	    CUPTI_CBID_RESOURCE_GRAPH_NODE_UPDATED,
	    CUPTI_CBID_RESOURCE_GRAPH_NODE_SET_PARAMS,
	};
	CUptiResult r;
	size_t i;

	/* Callbacks only for what needs them: per-call callbacks on the hot
	 * path would cost every launch. */
	r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
				CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE,
					CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE,
					CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
	if (r != CUPTI_SUCCESS) {
		gs_warn("callbacks",
			"cannot enable CUPTI callbacks: %s; cudaDeviceReset will not "
			"flush",
			cupti_err(r));
		return -1;
	}
	if (G.cfg.callsites > GS_CS_OFF) {
		gs_callsite_init(G.cfg.callsites);
		gs_callsite_set_unwinder(G.cfg.unwinder, NULL);
		gs_callsite_set_native(G.cfg.native_frames);
		gs_callsite_set_stack_cache(G.cfg.stack_cache);
		gs_callsite_set_clock(cupti_now);
	}
	if (!(G.cfg.activities & GS_ACT_GRAPH))
		return 0;
	for (i = 0; i < sizeof(graph_cbids) / sizeof(graph_cbids[0]) && r == CUPTI_SUCCESS; i++)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RESOURCE, graph_cbids[i]);
	/* end of stream capture: graphs.origin = 2 (rare calls, no hot path) */
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
					CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
					CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_DRIVER_API,
					CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture);
	if (r == CUPTI_SUCCESS)
		r = cuptiEnableCallback(1, G.sub, CUPTI_CB_DOMAIN_DRIVER_API,
					CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz);
	if (r != CUPTI_SUCCESS)
		gs_warn("callbacks.graph",
			"cannot enable CUDA graph callbacks: %s; graph topology "
			"is not recorded",
			cupti_err(r));
	return 0;
}

/* Tracing on or off: the activity kinds and the per-call callbacks. */
static void set_tracing(int on)
{
	enable_call_callbacks(on);
	enable_activities(on);
	if (on)
		skip_query_calls();
	if (G.cfg.capture_range != GS_CAPTURE_PROFILER_API) {
		enable_graph_level(on);
		enable_driver_launches(on);
	}
}

/* Room for one more window in G.cap_win: 1, or 0 when there is none (the
 * start is then not recorded). Under win_lock. */
static int capture_room(void)
{
	if (G.n_cap == G.cap_alloc) {
		size_t n = G.cap_alloc ? 2 * G.cap_alloc : 64;
		uint64_t *p =
		    n <= GS_MAX_CAPTURE_WINDOWS ? realloc(G.cap_win, 2 * n * sizeof(*p)) : NULL;
		if (p) {
			G.cap_win = p;
			G.cap_alloc = n;
		}
	}
	return G.n_cap < G.cap_alloc;
}

/* The program called cudaProfilerStart (on = 1, at the call's exit) or
 * cudaProfilerStop (on = 0, at its entry). The runtime call makes the
 * driver's, so each comes twice: the second does nothing.
 *
 * The switch calls CUPTI, so it runs without cap_lock (never call CUPTI
 * while holding a lock of ours: a thread inside CUPTI may be waiting for
 * it). One thread switches at a time: a call that finds a switch under way
 * leaves what it asked for in cap_want and returns, and the switching
 * thread switches again until the state is what was asked last; with
 * `wait` (finalize) it waits for that switch to end and then switches
 * itself. */
static void capture_switch_ex(int on, int wait)
{
	pthread_mutex_lock(&G.cap_lock);
	G.cap_want = on;
	if (G.cap_switching && !wait) {
		pthread_mutex_unlock(&G.cap_lock);
		return;
	}
	while (G.cap_switching)
		pthread_cond_wait(&G.cap_cond, &G.cap_lock);
	G.cap_want = on;
	G.cap_switching = 1;
	for (;;) {
		int act = 0; /* 1 switch on, -1 off */

		if (G.cap_want && !G.capturing && G.accepting) {
			/* room for the window first: one that could not be kept
			 * would be recorded but read as time outside every window */
			int room;
			pthread_mutex_lock(&G.win_lock);
			room = capture_room();
			if (!room)
				G.cap_skipped++;
			pthread_mutex_unlock(&G.win_lock);
			if (!room) {
				gs_warn("capture_range.full",
					"the program started tracing more than %d times; the spans "
					"after are not recorded",
					GS_MAX_CAPTURE_WINDOWS);
				G.cap_want = 0;
				break;
			}
			act = 1;
		} else if (!G.cap_want && G.capturing) {
			pthread_mutex_lock(&G.win_lock);
			G.cap_win[2 * G.n_cap] = G.cap_start;
			G.cap_win[2 * G.n_cap + 1] = cupti_now();
			G.n_cap++;
			G.capturing = 0;
			pthread_mutex_unlock(&G.win_lock);
			act = -1;
		}
		if (!act)
			break;
		pthread_mutex_unlock(&G.cap_lock);
		if (act > 0) {
			gs_sampler_pause(0); /* sampled in the windows only */
			set_tracing(1);
			if (G.cfg.capture_driver)
				enable_driver_launches(1);
			pthread_mutex_lock(&G.win_lock);
			G.cap_start = cupti_now();
			G.capturing = 1;
			pthread_mutex_unlock(&G.win_lock);
		} else {
			set_tracing(0);
			gs_sampler_pause(1);
			/* GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=windows: off between
			 * windows too (on from the start, see start()) */
			if (G.cfg.capture_driver)
				enable_driver_launches(0);
		}
		pthread_mutex_lock(&G.cap_lock);
	}
	G.cap_switching = 0;
	pthread_cond_broadcast(&G.cap_cond);
	pthread_mutex_unlock(&G.cap_lock);
}

static void capture_switch(int on)
{
	capture_switch_ex(on, 0);
}

/* The first capture window (closed) that ends at or after t: its index,
 * G.n_cap if none. Under win_lock. */
static size_t capture_window_at(uint64_t t)
{
	size_t lo = 0, hi = G.n_cap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (G.cap_win[2 * mid + 1] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The decoder's filter of driver launch rows under a capture range (they
 * are recorded all along, see start()): 1 when the call began inside a
 * window, closed or open. Runs on the writer thread. */
static int capture_keep_driver_call(uint64_t start)
{
	size_t k;
	int keep;

	pthread_mutex_lock(&G.win_lock);
	keep = G.capturing && start >= G.cap_start;
	if (!keep) {
		k = capture_window_at(start);
		keep = k < G.n_cap && G.cap_win[2 * k] <= start;
	}
	pthread_mutex_unlock(&G.win_lock);
	return keep;
}

/* The decoder's end for an NVTX range left open under a capture range: the
 * end of the closed window it began in, 0 if none. */
static uint64_t capture_window_end(uint64_t t)
{
	uint64_t end = 0;
	size_t k;

	pthread_mutex_lock(&G.win_lock);
	k = capture_window_at(t);
	if (k < G.n_cap && G.cap_win[2 * k] <= t)
		end = G.cap_win[2 * k + 1];
	pthread_mutex_unlock(&G.win_lock);
	return end;
}

/* ------------------------------------------------------------- meta */

static void write_start_meta(void)
{
	struct gs_writer *w = G.w;
	struct timespec rt, mono;
	uint64_t t0, t1;
	char buf[256];
	uint32_t cupti_version = 0;
	int driver_version = 0;
	CUresult (*get_driver_version)(int *) =
	    (CUresult(*)(int *))driver_sym("cuDriverGetVersion");
	struct gs_process p;

	/* Offsets: sample the host clocks between two CUPTI timestamps and
	 * use the midpoint, so host-side events can be aligned to ±(t1-t0)/2. */
	t0 = cupti_now();
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	t1 = cupti_now();
	G.start_ns = t0 + (t1 - t0) / 2;

	gs_writer_begin(w);
	gs_writer_meta(w, "collector_version", GS_COLLECTOR_VERSION);
	gs_writer_meta(w, "command_line", G.cmdline);
	gs_writer_meta_int(w, "pid", G.pid);
	gs_writer_meta(w, "hostname", G.host);
	gs_writer_meta_int(w, "start_ns", (int64_t)G.start_ns);
	gs_writer_meta_int(w, "realtime_offset_ns",
			   (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (int64_t)G.start_ns);
	gs_writer_meta_int(w, "monotonic_offset_ns",
			   (int64_t)mono.tv_sec * 1000000000 + mono.tv_nsec - (int64_t)G.start_ns);
	gs_writer_meta(w, "config.output", G.cfg.output);
	gs_writer_meta(w, "config.output_path", G.path);
	gs_activities_to_string(G.cfg.activities, buf, sizeof(buf));
	gs_writer_meta(w, "config.activities", buf);
	gs_writer_meta_int(w, "config.latency", G.cfg.latency);
	gs_writer_meta(w, "config.unwinder", gs_unwinder_str(G.cfg.unwinder));
	gs_writer_meta(w, "config.native_frames", gs_native_frames_str(G.cfg.native_frames));
	if (G.cfg.capture_range == GS_CAPTURE_PROFILER_API)
		gs_writer_meta(w, "config.capture_driver_launches",
			       G.cfg.capture_driver ? "windows" : "always");
	gs_writer_meta_int(w, "config.stack_cache", G.cfg.stack_cache);
	gs_writer_meta_int(w, "config.sample_hz_asked", G.cfg.sampling ? G.cfg.sample_hz : 0);
	gs_writer_meta_int(w, "config.graph_level", G.cfg.graph_level);
	if (G.cfg.capture_range == GS_CAPTURE_PROFILER_API) {
		/* the time outside the windows is not recorded: a v2 reader
		 * would take it for idle GPU (trace_format.h) */
		gs_writer_meta(w, "capture_range", "cudaProfilerApi");
		gs_writer_meta_int(w, "schema_version", GS_SCHEMA_VERSION);
	}
	gs_writer_meta(w, "config.capture_range",
		       G.cfg.capture_range == GS_CAPTURE_PROFILER_API ? "cudaProfilerApi" : "none");
	gs_writer_meta(w, "config.clock", G.cfg.clock == GS_CLOCK_REALTIME ? "realtime" : "cupti");
	gs_writer_meta(w, "config.sync_source",
		       G.cfg.sync_source == GS_SYNC_FROM_CUPTI ? "cupti" : "callbacks");
	gs_writer_meta_int(w, "config.flush_ms", G.cfg.flush_ms);
	gs_writer_meta(w, "config.log",
		       (const char *[]){"quiet", "warn", "info", "debug"}[G.cfg.log_level]);
	gs_writer_meta_int(w, "config.buffer_kb", G.cfg.buffer_kb);
	if (cuptiGetVersion(&cupti_version) == CUPTI_SUCCESS)
		gs_writer_meta_int(w, "cupti_version", cupti_version);
	if (get_driver_version && get_driver_version(&driver_version) == CUDA_SUCCESS)
		gs_writer_meta_int(w, "cuda_driver_version", driver_version);
	/* which rank of a multi-process job this is (the multi-trace report);
	 * only these names: the rest of the environment may hold secrets */
	{
		static const char *const rank_vars[2 * GS_RANK_ENV_N] = {GS_RANK_ENV_VARS,
									 GS_WORLD_SIZE_ENV_VARS};
		int64_t rank, world;
		int i = gs_rank_from_env(env_get, NULL, &rank, &world);
		size_t k;
		for (k = 0; k < sizeof(rank_vars) / sizeof(rank_vars[0]); k++) {
			const char *v = getenv(rank_vars[k]);
			if (v && *v && strlen(v) < 64) {
				snprintf(buf, sizeof(buf), "env.%s", rank_vars[k]);
				gs_writer_meta(w, buf, v);
			}
		}
		/* the rank as one key, whatever launched the job (trace_format.h) */
		if (i >= 0) {
			gs_writer_meta_int(w, "rank", rank);
			if (world > 0)
				gs_writer_meta_int(w, "world_size", world);
			snprintf(buf, sizeof(buf), "env.%s", rank_vars[i]);
			gs_writer_meta(w, "rank_source", buf);
		}
	}
	/* what tracing costs here, measured by gapscope-calibrate before the
	 * program (set by `gapscope record`): "key=ns,key=ns"; only plain keys
	 * with integer values are stored */
	{
		const char *cal = getenv("GAPSCOPE_CALIBRATION");
		while (cal && *cal) {
			size_t k = strspn(cal, "abcdefghijklmnopqrstuvwxyz_");
			size_t d = cal[k] == '=' ? strspn(cal + k + 1, "0123456789") : 0;
			if (k && k < 40 && d && d < 19 &&
			    (cal[k + 1 + d] == ',' || !cal[k + 1 + d])) {
				char key[64], val[24];
				snprintf(key, sizeof(key), "calibration.%.*s", (int)k, cal);
				snprintf(val, sizeof(val), "%.*s", (int)d, cal + k + 1);
				gs_writer_meta(w, key, val);
			}
			cal = strchr(cal, ',');
			cal = cal ? cal + 1 : NULL;
		}
	}
	gs_writer_meta(w, "finalized", "0");
	memset(&p, 0, sizeof(p));
	p.pid = G.pid;
	p.hostname = G.host;
	p.command_line = G.cmdline;
	p.start_ns = G.start_ns;
	gs_writer_process(w, &p);
	gs_writer_commit(w);
}

static void write_warnings(struct gs_writer *w)
{
	int i, n = gs_warning_count();

	for (i = 0; i < n; i++) {
		const char *k, *m;
		char key[96];
		if (gs_warning_get(i, &k, &m) != 0)
			continue;
		snprintf(key, sizeof(key), "warning.%s", k);
		gs_writer_meta(w, key, m);
	}
}

/* ------------------------------------------------------------- finalize */

/* Names of threads whose CPU time finalize() stores (the largest) */
#define GS_THREAD_NAMES 24

static void finalize(const char *reason)
{
	struct timespec until;
	uint64_t dropped_cupti, dropped_queue, stop_ns;
	struct gs_thread_cpu cpu[GS_THREAD_NAMES];
	int64_t process_cpu;
	struct gs_process p;
	struct gs_writer *w;
	int i, n_cpu;

	if (in_forked_child())
		return;
	pthread_mutex_lock(&G.fin_lock);
	if (!G.active || G.fin_state == FIN_DONE) {
		pthread_mutex_unlock(&G.fin_lock);
		return;
	}
	if (G.fin_state == FIN_RUNNING) {
		/* Another thread (a signal, exit() elsewhere) is finalizing:
		 * wait for it, bounded, rather than returning to a process
		 * that exits under a half-written trace. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 10;
		while (G.fin_state == FIN_RUNNING)
			if (pthread_cond_timedwait(&G.fin_cond, &G.fin_lock, &until) == ETIMEDOUT)
				break;
		pthread_mutex_unlock(&G.fin_lock);
		return;
	}
	G.fin_state = FIN_RUNNING;
	pthread_mutex_unlock(&G.fin_lock);

	/* while every thread, ours and CUPTI's included, is still there */
	n_cpu = gs_thread_cpu_scan("/proc/self/task", cpu, GS_THREAD_NAMES);
	process_cpu = gs_stat_cpu_ns("/proc/self/stat");
	stop_flush_thread();
	gs_sampler_stop(); /* its last samples go to the writer */
	/* a capture window still open ends here (after a switch another
	 * thread may be making) */
	capture_switch_ex(0, 1);
	/* No new records, then everything CUPTI holds (forced: at the end a
	 * record still incomplete will never complete). */
	enable_activities(0);
	enable_graph_level(0);
	enable_driver_launches(0);
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	stop_ns = cupti_now();

	pthread_mutex_lock(&G.hand_lock);
	G.accepting = 0;
	while (G.syncers > 0)
		pthread_cond_wait(&G.hand_cond, &G.hand_lock);
	pthread_mutex_unlock(&G.hand_lock);
	dropped_queue = gs_pipeline_dropped(G.pipe);
	gs_pipeline_stop(G.pipe); /* drains the queue, joins the writer */
	G.pipe = NULL;
	dropped_cupti = atomic_load(&G.cupti_dropped);

	w = G.w;
	gs_writer_begin(w);
	gs_decoder_flush_nvtx(&G.dec, 1, stop_ns);
	gs_decoder_free(&G.dec);
	gs_writer_meta_int(w, "collector.callback_ns", (int64_t)atomic_load(&cb_ns));
	if (G.cfg.callsites > GS_CS_OFF)
		gs_writer_meta(w, "collector.unwinder", gs_callsite_unwinder_name());
	gs_writer_meta_int(w, "collector.callbacks", (int64_t)atomic_load(&cb_calls));
	gs_writer_meta_int(w, "dropped_records", (int64_t)(dropped_cupti + dropped_queue));
	gs_writer_meta_int(w, "dropped_records.cupti", (int64_t)dropped_cupti);
	gs_writer_meta_int(w, "dropped_records.queue", (int64_t)dropped_queue);
	gs_writer_meta(w, "exit_reason", reason);
	if (G.cfg.capture_range == GS_CAPTURE_PROFILER_API) {
		size_t k;
		for (k = 0; k < G.n_cap; k++)
			gs_writer_capture_window(w, G.cap_win[2 * k], G.cap_win[2 * k + 1]);
		gs_writer_meta_int(w, "capture.windows", (int64_t)G.n_cap);
		if (G.cap_skipped)
			gs_writer_meta_int(w, "capture.starts_skipped", (int64_t)G.cap_skipped);
		if (!G.n_cap)
			gs_warn("capture_range.none",
				"the program never called cudaProfilerStart: nothing was "
				"recorded (GAPSCOPE_CAPTURE_RANGE=cudaProfilerApi)");
	}
	if (process_cpu >= 0)
		gs_writer_meta_int(w, "process.cpu_ns", process_cpu);
	for (i = 0; i < n_cpu; i++) {
		char key[64];
		snprintf(key, sizeof(key), "thread_cpu_ns.%.31s", cpu[i].name);
		gs_writer_meta_int(w, key, cpu[i].cpu_ns);
		snprintf(key, sizeof(key), "thread_count.%.31s", cpu[i].name);
		gs_writer_meta_int(w, key, cpu[i].threads);
	}
	if (G.queries_skipped) {
		char names[1024];
		query_calls_string(names, sizeof(names));
		gs_writer_meta(w, "config.runtime_calls_left_out", names);
	}
	for (i = 0; i < GS_MAX_DEVICES; i++)
		if (G.mem_clock_khz[i] > 0)
			gs_writer_device_memory_clock(w, (uint32_t)i, G.mem_clock_khz[i]);
	memset(&p, 0, sizeof(p));
	p.pid = G.pid;
	p.hostname = G.host;
	p.command_line = G.cmdline;
	p.start_ns = G.start_ns;
	p.end_ns = stop_ns;
	p.exit_reason = reason;
	gs_writer_process(w, &p);
	if (dropped_cupti + dropped_queue)
		gs_warn("dropped",
			"%llu activity records were dropped (%llu by CUPTI, %llu because "
			"the writer fell behind); try a larger GAPSCOPE_BUFFER_KB",
			(unsigned long long)(dropped_cupti + dropped_queue),
			(unsigned long long)dropped_cupti, (unsigned long long)dropped_queue);
	gs_sampler_finish(w, G.cfg.sampling, G.cfg.sample_hz);
	gs_callsite_finish(w);
	write_warnings(w);
	gs_writer_commit(w);
	if (gs_writer_finalize(w, stop_ns) == 0)
		gs_log(GS_LOG_INFO, "trace written to %s", G.path);
	G.w = NULL;

	pthread_mutex_lock(&G.fin_lock);
	G.fin_state = FIN_DONE;
	pthread_cond_broadcast(&G.fin_cond);
	pthread_mutex_unlock(&G.fin_lock);
}

/* a default-action SIGINT/SIGTERM being finalized (signal section) */
static volatile sig_atomic_t fatal_sig;
static void die_by(int sig);

static void at_exit(void)
{
	finalize("exit");
	/* exit() while a SIGINT/SIGTERM was being finalized: the process was
	 * to die by that signal, and its status says so */
	if (fatal_sig)
		die_by(fatal_sig);
}

/* ------------------------------------------------------------- signals */

/*
 * SIGINT/SIGTERM. Finalizing inside a signal handler is not
 * async-signal-safe (SQLite, malloc, CUPTI locks), so the handler only
 * writes a byte to a pipe; a dedicated thread does the work.
 *  - If the application had its own handler, it decides what happens
 *    (Python turns SIGINT into KeyboardInterrupt and exits normally, and
 *    atexit finalizes). We ask for a flush and call its handler.
 *  - If the disposition was the default (the process is about to die), the
 *    handler wakes the signal thread and returns at once: the interrupted
 *    thread may hold a CUPTI lock (it was inside a launch), and holding it
 *    in the handler while the finalize needs that lock loses the trace
 *    (seen on the H200: a SIGTERM'd launch loop left finalized = 0). The
 *    application runs on for the moment the finalize takes, unrecorded;
 *    then the signal thread restores the default and sends the signal
 *    again, so the exit status is what it would have been without us. The
 *    finalize gets at most GS_SIGNAL_FINALIZE_MS; a second signal, or an
 *    exit() meanwhile, ends the process at once with the same status.
 *  - SIG_IGN: nothing.
 */
static const struct sigaction *old_action(int sig)
{
	return sig == SIGINT ? &G.old_int : &G.old_term;
}

/* The signal's own default action, now (async-signal-safe). */
static void die_by(int sig)
{
	sigset_t set;

	sigaction(sig, old_action(sig), NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	/* the signal thread blocks every signal: another thread takes it;
	 * should none, end as that signal would have */
	sleep(1);
	_exit(128 + sig);
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	const struct sigaction *old = old_action(sig);
	int saved_errno = errno;
	char c;

	if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_IGN)
		goto out;
	if (in_forked_child()) { /* the parent's recording is not ours */
		if (old->sa_flags & SA_SIGINFO)
			old->sa_sigaction(sig, info, uctx);
		else if (old->sa_handler != SIG_DFL)
			old->sa_handler(sig);
		else {
			sigaction(sig, old, NULL);
			raise(sig); /* blocked until we return, then default action */
		}
		goto out;
	}
	if ((old->sa_flags & SA_SIGINFO) || old->sa_handler != SIG_DFL) {
		c = 'f';
		if (write(G.sig_pipe[1], &c, 1) < 0) {
			/* best effort */
		}
		if (old->sa_flags & SA_SIGINFO)
			old->sa_sigaction(sig, info, uctx);
		else
			old->sa_handler(sig);
		goto out;
	}
	if (fatal_sig) { /* a second one: the user insists */
		sigaction(sig, old, NULL);
		raise(sig); /* blocked until we return, then default action */
		goto out;
	}
	fatal_sig = sig;
	c = 'F';
	if (write(G.sig_pipe[1], &c, 1) != 1) {
		sigaction(sig, old, NULL);
		raise(sig);
	}
out:
	errno = saved_errno;
}

static void *finalize_main(void *arg)
{
	char c = 'd';
	(void)arg;

	finalize("signal");
	if (write(G.done_pipe[1], &c, 1) < 0) {
		/* the signal thread times out */
	}
	return NULL;
}

static void *signal_main(void *arg)
{
	char c;
	(void)arg;

	pthread_setname_np(pthread_self(), "gs-signal");

	while (read(G.sig_pipe[0], &c, 1) == 1) {
		if (c == 'F') {
			pthread_t t;
			struct pollfd pfd = {.fd = G.done_pipe[0], .events = POLLIN};

			/* in a thread of its own, so a stuck finalize cannot keep
			 * the process from dying */
			if (pthread_create(&t, NULL, finalize_main, NULL) == 0) {
				pthread_detach(t);
				poll(&pfd, 1, GS_SIGNAL_FINALIZE_MS);
			}
			die_by(fatal_sig);
		} else {
			flush_and_commit(0, 1000);
		}
	}
	return NULL;
}

static void install_signals(void)
{
	struct sigaction sa;
	sigset_t all, old;

	if (pipe2(G.sig_pipe, O_CLOEXEC) != 0 || pipe2(G.done_pipe, O_CLOEXEC) != 0) {
		gs_warn("signals",
			"cannot create a pipe (%s); SIGINT/SIGTERM will not finalize the "
			"trace",
			strerror(errno));
		return;
	}
	/* The signal thread must not receive the signals itself. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&G.sig_thread, NULL, signal_main, NULL) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		gs_warn("signals", "cannot start the signal thread; SIGINT/SIGTERM will not "
				   "finalize the trace");
		return;
	}
	pthread_detach(G.sig_thread);
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &G.old_int);
	sigaction(SIGTERM, &sa, &G.old_term);
	G.sig_installed = 1;
}

/* ------------------------------------------------------------- init */

static int start(void)
{
	char err[512];
	size_t max_pending;
	CUptiResult r;

	gs_config_from_env(&G.cfg, env_get, NULL);
	G.pid = (long)getpid();
	if (gethostname(G.host, sizeof(G.host) - 1) != 0)
		snprintf(G.host, sizeof(G.host), "unknown");
	G.cmdline = read_cmdline();
	for (int i = 0; i < GS_MAX_DEVICES; i++)
		G.mem_clock_khz[i] = -1;

	if (gs_path_expand(G.cfg.output, G.path, sizeof(G.path), G.pid, G.host, env_get, NULL, err,
			   sizeof(err)) != 0) {
		gs_warn("output",
			"GAPSCOPE_OUTPUT=\"%.200s\": %s; this run is not recorded, the "
			"application continues",
			G.cfg.output, err);
		return 0;
	}
	if (gs_writer_open(&G.w, G.path, G.cfg.run_start_ns, err, sizeof(err)) != 0) {
		gs_warn("output", "%s; this run is not recorded, the application continues", err);
		return 0;
	}
	{
		/* Store the absolute path of the file the writer took: `gapscope
		 * record` and users look for it after the application may have
		 * changed directory. */
		char abs[PATH_MAX];
		snprintf(G.path, sizeof(G.path), "%s", gs_writer_path(G.w));
		if (realpath(G.path, abs))
			snprintf(G.path, sizeof(G.path), "%s", abs);
	}

	r = cuptiSubscribe(&G.sub, (CUpti_CallbackFunc)callback, NULL);
	if (r != CUPTI_SUCCESS) {
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			gs_warn(
			    "subscriber",
			    "another CUPTI client is already active in this process "
			    "(torch.profiler, Nsight Systems, ...); gapscope records nothing here, "
			    "the application continues");
		else
			gs_warn("subscriber",
				"cannot subscribe to CUPTI: %s; gapscope records "
				"nothing here, the application continues",
				cupti_err(r));
		/* Leave a finalized trace that says why it is empty. */
		write_start_meta();
		gs_writer_begin(G.w);
		write_warnings(G.w);
		gs_writer_commit(G.w);
		gs_writer_finalize(G.w, cupti_now());
		G.w = NULL;
		return 0;
	}
	G.subscribed = 1;

	/* before any kind is enabled, as CUPTI asks, and before the start
	 * meta's clock offsets are taken */
	if (G.cfg.clock == GS_CLOCK_REALTIME) {
		r = cuptiActivityRegisterTimestampCallback(gs_realtime_ns);
		if (r != CUPTI_SUCCESS) {
			gs_warn("clock",
				"cannot give CUPTI the collector's clock: %s; CUPTI "
				"takes its own",
				cupti_err(r));
			G.cfg.clock = GS_CLOCK_CUPTI; /* config.clock: the one in effect */
		}
	}

	/* OS thread ids (gettid), so api_calls.tid matches /proc and NVTX. */
	r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (r != CUPTI_SUCCESS)
		gs_warn("thread_id", "cannot select OS thread ids: %s", cupti_err(r));
	watch_profiler_calls();

	G.buf_bytes = (size_t)G.cfg.buffer_kb * 1024;
	max_pending = GS_MAX_QUEUED_BYTES / G.buf_bytes;
	if (max_pending < 4)
		max_pending = 4;
	gs_decoder_init(&G.dec, G.w, G.cfg.latency, next_record, api_name, NULL);
	if (G.cfg.capture_range == GS_CAPTURE_PROFILER_API) {
		G.dec.keep_driver_call = capture_keep_driver_call;
		G.dec.window_end = capture_window_end;
	}
	write_start_meta();
	if (gs_pipeline_start(&G.pipe, &G.dec, max_pending, G.buf_bytes) != 0) {
		gs_warn("writer_thread", "cannot start the writer thread; this run is not "
					 "recorded, the application continues");
		goto fail;
	}
	G.accepting = 1;

	r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (r != CUPTI_SUCCESS) {
		gs_warn("buffers",
			"cannot register CUPTI buffer callbacks: %s; this run is not "
			"recorded, the application continues",
			cupti_err(r));
		goto fail;
	}
	if (G.cfg.latency) {
		r = cuptiActivityEnableLatencyTimestamps(1);
		if (r != CUPTI_SUCCESS)
			gs_warn("latency", "cannot enable latency timestamps: %s", cupti_err(r));
	}
	enable_callbacks();
	if (G.cfg.capture_range != GS_CAPTURE_PROFILER_API)
		set_tracing(1);
	else {
		/* turned on later, cuptiActivityEnableDriverApi has no effect
		 * (H100, CUDA 13: no driver launch row in any window), so it is
		 * on from the start and the decoder drops the rows outside
		 * the windows (capture_keep_driver_call); GRAPH_TRACE too:
		 * switched on mid-run, it crashed the program at its next graph
		 * launch (H100, CUDA 13: SIGSEGV) */
		enable_driver_launches(1);
		enable_graph_level(1);
	}
	G.active = 1;

	if (G.cfg.flush_ms > 0) {
		if (pthread_create(&G.flush_thread, NULL, flush_main, NULL) == 0)
			G.flush_running = 1;
		else
			gs_warn("flush", "cannot start the flush thread; records are flushed at "
					 "exit only");
	}
	if (G.cfg.sampling) {
		if (G.cfg.callsites <= GS_CS_OFF) {
			gs_callsite_set_unwinder(G.cfg.unwinder, NULL);
			gs_callsite_set_native(G.cfg.native_frames);
		}
		gs_sampler_set_clock(G.cfg.sample_clock);
		gs_sampler_set_waits(G.cfg.sample_waits);
		gs_sampler_start(G.cfg.sample_hz, cupti_now, push_sample);
		/* under a capture range, paused until its first window opens */
		if (G.cfg.capture_range == GS_CAPTURE_PROFILER_API)
			gs_sampler_pause(1);
	}
	if (atexit(at_exit) != 0)
		gs_warn("atexit", "cannot register the exit handler; the trace may stay "
				  "unfinalized");
	install_signals();
	gs_log(GS_LOG_INFO, "recording to %s", G.path);
	return 1;

fail:
	if (G.pipe) {
		pthread_mutex_lock(&G.hand_lock);
		G.accepting = 0;
		pthread_mutex_unlock(&G.hand_lock);
		gs_pipeline_stop(G.pipe);
		G.pipe = NULL;
	}
	gs_decoder_free(&G.dec);
	cuptiUnsubscribe(G.sub);
	G.subscribed = 0;
	gs_writer_begin(G.w);
	write_warnings(G.w);
	gs_writer_commit(G.w);
	gs_writer_finalize(G.w, cupti_now());
	G.w = NULL;
	return 0;
}

/* Called by the CUDA driver during cuInit for CUDA_INJECTION64_PATH. The
 * driver may call it more than once (several cuInit paths); only the first
 * call does anything. Returns 1 when recording. */
GS_EXPORT int InitializeInjection(void)
{
	int expected = 0;

	if (!atomic_compare_exchange_strong(&G.init, &expected, 1))
		return G.init_result;
	G.init_result = start();
	return G.init_result;
}

/* Called by NVTX for NVTX_INJECTION64_PATH (`gapscope record` points it at
 * this library). NVTX support lives in libcupti, which exports the same
 * entry point: hand the export table over to it, so NVTX calls become
 * CUPTI_ACTIVITY_KIND_MARKER records. Looked up at run time because our
 * own symbol of the same name would shadow a direct call. */
GS_EXPORT int InitializeInjectionNvtx2(const void *get_export_table)
{
	typedef int (*nvtx_init_fn)(const void *);
	void *h = dlopen("libcupti.so.13", RTLD_LAZY | RTLD_NOLOAD);
	nvtx_init_fn fn;

	if (!h)
		h = dlopen("libcupti.so", RTLD_LAZY | RTLD_NOLOAD);
	fn = h ? (nvtx_init_fn)dlsym(h, "InitializeInjectionNvtx2") : NULL;
	if (!fn) {
		gs_warn("nvtx",
			"libcupti's InitializeInjectionNvtx2 not found; NVTX ranges are not "
			"recorded");
		return 0;
	}
	return fn(get_export_table);
}
