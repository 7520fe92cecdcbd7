/*
 * decode.c - CUPTI activity records -> writer structs (internal.h).
 *
 * Runs on the writer's decode thread, never on an application thread. It reads the
 * record layouts of CUDA 13's CUPTI (CUpti_ActivityKernel10, Memcpy6,
 * MemcpyPtoP4, Memset4, API, Synchronization2, CudaEvent2, Context3,
 * Stream, Marker2, MarkerData2, Overhead3, Device5) and calls no CUPTI function: buffers are walked
 * with the gs_next_record_fn it is given (cuptiActivityGetNextRecord in the collector), API names
 * come from the gs_api_name_fn (cuptiGetCallbackName), so tests feed it records they build
 * themselves.
 *
 * NVTX: CUPTI reports a range as two MARKER records (START with the text,
 * END without) sharing an id, possibly in different buffers and even on
 * different threads (nvtxRangeStart/End), and the colour/category in a
 * separate MARKER_DATA record. Pending entries are kept by id until the
 * pieces are together; see gs_decoder_flush_nvtx.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct nvtx_entry {
	uint32_t id; /* CUPTI marker id */
	int have_start, have_end, have_data, is_mark;
	uint64_t start, end; /* ns */
	int64_t text_id, domain_id;
	int64_t category, color; /* -1: NULL */
	int64_t pid, tid;
};

struct gs_nvtx_pending {
	struct nvtx_entry *e;
	size_t n, cap;
};

void gs_decoder_init(struct gs_decoder *d, struct gs_writer *w, int latency, gs_next_record_fn next,
		     gs_api_name_fn api_name, void *api_name_ctx)
{
	memset(d, 0, sizeof(*d));
	d->w = w;
	d->latency = latency;
	d->next = next;
	d->api_name = api_name;
	d->api_name_ctx = api_name_ctx;
	d->nvtx = calloc(1, sizeof(*d->nvtx));
}

void gs_decoder_free(struct gs_decoder *d)
{
	if (d->nvtx)
		free(d->nvtx->e);
	free(d->nvtx);
	d->nvtx = NULL;
}

/* ------------------------------------------------------------- kinds */

/* Where and when a GPU op ran, as every op record of CUPTI names it
 * (kernels, copies, memsets, graph runs: different structs, and versions
 * of them, with the same field names - hence a macro, not a function). */
#define OP_PLACE(m, r)                                                                             \
	do {                                                                                       \
		(m).start = (r)->start;                                                            \
		(m).end = (r)->end;                                                                \
		(m).device = (r)->deviceId;                                                        \
		(m).context = (r)->contextId;                                                      \
		(m).stream = (r)->streamId;                                                        \
	} while (0)

/* The copy's fields the plain and the peer-to-peer memcpy records share
 * (all but the source and destination devices). */
#define MEMCPY_FIELDS(m, r)                                                                        \
	do {                                                                                       \
		OP_PLACE(m, r);                                                                    \
		(m).correlation_id = (r)->correlationId;                                           \
		(m).bytes = (r)->bytes;                                                            \
		(m).copy_kind = (r)->copyKind;                                                     \
		(m).src_kind = (r)->srcKind;                                                       \
		(m).dst_kind = (r)->dstKind;                                                       \
		(m).is_async = ((r)->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;               \
		(m).graph_id = (r)->graphId;                                                       \
		(m).graph_node_id = (r)->graphNodeId;                                              \
	} while (0)

static int64_t api_name_id(struct gs_decoder *d, int api, uint32_t cbid)
{
	int64_t *slot = cbid < GS_MAX_CBID ? &d->api_name_id[api - 1][cbid] : NULL;
	const char *name = NULL, *reason = NULL;
	char fallback[48], plain[128];
	int64_t id;
	int kind;

	if (slot && *slot)
		return *slot;
	if (d->api_name)
		name = d->api_name(api, cbid, d->api_name_ctx);
	if (!name) {
		snprintf(fallback, sizeof(fallback), "%s API %u",
			 api == GS_API_RUNTIME ? "runtime" : "driver", cbid);
		name = fallback;
	}
	/* cuptiGetCallbackName gives the versioned entry point
	 * ("cudaLaunchKernel_v7000"); users know the API by its plain name,
	 * and the version is kept in cbid. Variants (_ptsz, _ptds) stay. */
	{
		size_t len = gs_api_plain_len(name);
		if (name[len] && len < sizeof(plain)) {
			memcpy(plain, name, len);
			plain[len] = '\0';
			name = plain;
		}
	}
	id = gs_writer_intern(d->w, name);
	/* Implicit synchronisations that depend on the API alone (allocation,
	 * device-wide settings) are decided once per API name, here, and
	 * turned into rows at finalize: no cost per call. */
	kind = gs_implicit_api_class(name, &reason);
	if (kind && id > 0)
		gs_writer_implicit_api(d->w, id, kind, reason);
	if (slot && id > 0)
		*slot = id;
	return id;
}

static int decode_kernel(struct gs_decoder *d, const CUpti_ActivityKernel10 *r)
{
	struct gs_kernel k;

	OP_PLACE(k, r);
	k.correlation_id = r->correlationId;
	k.name_id = gs_writer_intern(d->w, r->name);
	k.grid_x = r->gridX;
	k.grid_y = r->gridY;
	k.grid_z = r->gridZ;
	k.block_x = r->blockX;
	k.block_y = r->blockY;
	k.block_z = r->blockZ;
	k.registers = r->registersPerThread;
	k.static_shared = r->staticSharedMemory;
	k.dynamic_shared = r->dynamicSharedMemory;
	k.local_memory = r->localMemoryPerThread;
	k.graph_id = r->graphId;
	k.graph_node_id = r->graphNodeId;
	/* CUPTI leaves queued/submitted at CUPTI_TIMESTAMP_UNKNOWN (0) when
	 * latency timestamps are off, and for some launches even when on. */
	k.has_latency = d->latency && r->queued != (uint64_t)CUPTI_TIMESTAMP_UNKNOWN &&
			r->submitted != (uint64_t)CUPTI_TIMESTAMP_UNKNOWN;
	k.queued = r->queued;
	k.submitted = r->submitted;
	k.launch_type = r->launchType;
	k.is_device_launched = r->isDeviceLaunched;
	return gs_writer_kernel(d->w, &k);
}

static int decode_memcpy(struct gs_decoder *d, const CUpti_ActivityMemcpy6 *r)
{
	struct gs_memcpy m;

	MEMCPY_FIELDS(m, r);
	m.src_device = -1;
	m.dst_device = -1;
	return gs_writer_memcpy(d->w, &m);
}

static int decode_memcpy_p2p(struct gs_decoder *d, const CUpti_ActivityMemcpyPtoP4 *r)
{
	struct gs_memcpy m;

	MEMCPY_FIELDS(m, r);
	m.src_device = r->srcDeviceId;
	m.dst_device = r->dstDeviceId;
	return gs_writer_memcpy(d->w, &m);
}

static int decode_memset(struct gs_decoder *d, const CUpti_ActivityMemset4 *r)
{
	struct gs_memset m;

	OP_PLACE(m, r);
	m.correlation_id = r->correlationId;
	m.bytes = r->bytes;
	m.value = r->value;
	m.mem_kind = r->memoryKind;
	m.is_async = (r->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0;
	m.graph_id = r->graphId;
	m.graph_node_id = r->graphNodeId;
	return gs_writer_memset(d->w, &m);
}

static int decode_api(struct gs_decoder *d, const CUpti_ActivityAPI *r, int api)
{
	struct gs_api_call a;

	if (api == GS_API_DRIVER && d->keep_driver_call && !d->keep_driver_call(r->start)) {
		d->skipped++;
		return 0;
	}
	a.api = api;
	a.cbid = r->cbid;
	a.name_id = api_name_id(d, api, r->cbid);
	a.start = r->start;
	a.end = r->end;
	a.pid = r->processId;
	a.tid = r->threadId;
	gs_sampler_watch(a.tid); /* a thread that makes CUDA calls: sample it */
	a.correlation_id = r->correlationId;
	a.return_code = r->returnValue;
	return gs_writer_api_call(d->w, &a);
}

static int64_t sync_field(uint32_t v)
{
	return v == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : (int64_t)v;
}

static int decode_sync(struct gs_decoder *d, const CUpti_ActivitySynchronization2 *r)
{
	struct gs_sync s;

	memset(&s, 0, sizeof(s));
	s.start = r->start;
	s.end = r->end;
	/* CUpti_ActivitySynchronizationType and enum gs_sync_kind share 0..4 */
	s.kind = (int)r->type <= GS_SYNC_CONTEXT ? (int)r->type : GS_SYNC_UNKNOWN;
	s.implicit = 0;
	s.device = -1; /* from the context at finalize */
	s.context = sync_field(r->contextId);
	s.stream = sync_field(r->streamId);
	s.event = sync_field(r->cudaEventId);
	s.correlation_id = r->correlationId;
	s.pid = -1; /* from the API call at finalize */
	s.tid = -1;
	return gs_writer_sync(d->w, &s);
}

static int decode_cuda_event(struct gs_decoder *d, const CUpti_ActivityCudaEvent2 *r)
{
	struct gs_cuda_event e;

	e.event = r->eventId;
	e.stream = r->streamId;
	e.device = r->deviceId;
	e.context = r->contextId;
	e.correlation_id = r->correlationId;
	e.start = 0; /* CUPTI's record has no host time */
	return gs_writer_cuda_event(d->w, &e);
}

static int decode_context(struct gs_decoder *d, const CUpti_ActivityContext3 *r)
{
	return gs_writer_context(d->w, r->contextId, r->deviceId, r->nullStreamId);
}

static int decode_stream(struct gs_decoder *d, const CUpti_ActivityStream *r)
{
	uint32_t flag = (uint32_t)r->flag & CUPTI_ACTIVITY_STREAM_CREATE_MASK;

	if (flag == CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL)
		return gs_writer_context(d->w, r->contextId, UINT32_MAX, r->streamId);
	return gs_writer_stream(d->w, r->contextId, r->streamId,
				flag == CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING);
}

static int decode_overhead(struct gs_decoder *d, const CUpti_ActivityOverhead3 *r)
{
	struct gs_overhead o;

	o.kind = (int)r->overheadKind;
	o.start = r->start;
	o.end = r->end;
	o.object_kind = (int)r->objectKind;
	switch (r->objectKind) {
	case CUPTI_ACTIVITY_OBJECT_PROCESS: o.object_id = r->objectId.pt.processId; break;
	case CUPTI_ACTIVITY_OBJECT_THREAD: o.object_id = r->objectId.pt.threadId; break;
	case CUPTI_ACTIVITY_OBJECT_DEVICE:
	case CUPTI_ACTIVITY_OBJECT_CONTEXT:
	case CUPTI_ACTIVITY_OBJECT_STREAM: o.object_id = r->objectId.dcs.deviceId; break;
	default: o.object_id = -1; break;
	}
	return gs_writer_overhead(d->w, &o);
}

static int decode_graph_trace(struct gs_decoder *d, const CUpti_ActivityGraphTrace2 *r)
{
	struct gs_graph_run g;

	/* under a capture range GRAPH_TRACE stays on all along (see
	 * collector.c, start()): graph runs outside the windows are dropped */
	if (d->keep_driver_call && !d->keep_driver_call(r->start)) {
		d->skipped++;
		return 0;
	}
	OP_PLACE(g, r);
	g.graph_id = r->graphId;
	g.correlation_id = r->correlationId;
	return gs_writer_graph_run(d->w, &g);
}

static int decode_device(struct gs_decoder *d, const CUpti_ActivityDevice5 *r)
{
	struct gs_device v;
	const unsigned char *u = (const unsigned char *)r->uuid.bytes;

	memset(&v, 0, sizeof(v));
	v.id = r->id;
	v.name = r->name;
	/* nvidia-smi's spelling: GPU-8-4-4-4-12 hex digits */
	snprintf(v.uuid, sizeof(v.uuid),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	v.cc_major = (int)r->computeCapabilityMajor;
	v.cc_minor = (int)r->computeCapabilityMinor;
	v.sm_count = r->numMultiprocessors;
	v.core_clock_khz = r->coreClockRate;
	v.memory_clock_khz = -1; /* not in the record; see docs/collector.md */
	v.global_memory_bytes = (int64_t)r->globalMemorySize;
	v.l2_cache_bytes = r->l2CacheSize;
	v.max_threads_per_block = r->maxThreadsPerBlock;
	return gs_writer_device(d->w, &v);
}

/* ------------------------------------------------------------- NVTX */

static struct nvtx_entry *nvtx_find(struct gs_decoder *d, uint32_t id, int create)
{
	struct gs_nvtx_pending *p = d->nvtx;
	size_t i;

	if (!p)
		return NULL;
	/* Linear: only ranges still open and this batch's marks are here. */
	for (i = p->n; i-- > 0;)
		if (p->e[i].id == id)
			return &p->e[i];
	if (!create)
		return NULL;
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 64;
		struct nvtx_entry *n = realloc(p->e, ncap * sizeof(*n));
		if (!n)
			return NULL;
		p->e = n;
		p->cap = ncap;
	}
	memset(&p->e[p->n], 0, sizeof(p->e[0]));
	p->e[p->n].id = id;
	p->e[p->n].category = -1;
	p->e[p->n].color = -1;
	p->e[p->n].pid = -1;
	p->e[p->n].tid = -1;
	return &p->e[p->n++];
}

static int nvtx_write(struct gs_decoder *d, struct nvtx_entry *e, uint64_t end_if_open)
{
	struct gs_nvtx n;

	n.start = e->start;
	n.end = e->is_mark ? e->start : e->have_end ? e->end : end_if_open;
	if (n.end < n.start)
		n.end = n.start;
	n.kind = e->is_mark ? GS_NVTX_MARK : GS_NVTX_RANGE;
	n.text_id = e->text_id;
	n.domain_id = e->domain_id;
	n.category = e->category;
	n.color = e->color;
	n.pid = e->pid;
	n.tid = e->tid;
	return gs_writer_nvtx(d->w, &n);
}

static void nvtx_remove(struct gs_decoder *d, struct nvtx_entry *e)
{
	struct gs_nvtx_pending *p = d->nvtx;
	size_t i = (size_t)(e - p->e);

	p->e[i] = p->e[--p->n];
}

/* An entry is complete when its time span is known (mark, or start + end)
 * and its data record has arrived. */
static int nvtx_complete(const struct nvtx_entry *e)
{
	return e->have_start && (e->is_mark || e->have_end) && e->have_data;
}

static int decode_marker(struct gs_decoder *d, const CUpti_ActivityMarker2 *r)
{
	struct nvtx_entry *e = nvtx_find(d, r->id, 1);
	int rc = 0;

	if (!e)
		return -1;
	if (r->flags &
	    (CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS | CUPTI_ACTIVITY_FLAG_MARKER_START)) {
		e->have_start = 1;
		e->is_mark = (r->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) != 0;
		e->start = r->timestamp;
		e->text_id = gs_writer_intern(d->w, r->name);
		e->domain_id = gs_writer_intern(d->w, r->domain);
		if (r->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
		    r->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
			e->pid = r->objectId.pt.processId;
			e->tid = r->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD
				     ? (int64_t)r->objectId.pt.threadId
				     : -1;
		}
	} else if (r->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
		e->have_end = 1;
		e->end = r->timestamp;
	} else {
		/* sync acquire/release markers (nvtxDomainSync*): not stored */
		nvtx_remove(d, e);
		d->skipped++;
		return 0;
	}
	if (nvtx_complete(e)) {
		rc = nvtx_write(d, e, 0);
		nvtx_remove(d, e);
	}
	return rc;
}

static int decode_marker_data(struct gs_decoder *d, const CUpti_ActivityMarkerData2 *r)
{
	struct nvtx_entry *e = nvtx_find(d, r->id, 1);
	int rc = 0;

	if (!e)
		return -1;
	e->have_data = 1;
	e->color = (r->flags & CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB) ? (int64_t)r->color : -1;
	e->category = r->category;
	if (nvtx_complete(e)) {
		rc = nvtx_write(d, e, 0);
		nvtx_remove(d, e);
	}
	return rc;
}

int gs_decoder_flush_nvtx(struct gs_decoder *d, int final, uint64_t stop_ns)
{
	struct gs_nvtx_pending *p = d->nvtx;
	size_t i = 0;
	int rc = 0;

	if (!p)
		return 0;
	/* CUPTI writes a MARKER_DATA record right after its MARKER in the same
	 * buffer; once a batch is done, a closed entry without one is not
	 * going to get it (e.g. MARKER_DATA not enabled). Open ranges wait for
	 * their END unless this is the end of the recording. */
	while (i < p->n) {
		struct nvtx_entry *e = &p->e[i];
		int spanned = e->have_start && (e->is_mark || e->have_end);
		if (spanned || (final && e->have_start)) {
			/* under a capture range a range still open at the end
			 * was last seen in its window: it ends with it */
			uint64_t end = stop_ns, w;
			if (!spanned && d->window_end && (w = d->window_end(e->start)) != 0)
				end = w;
			if (nvtx_write(d, e, end) != 0)
				rc = -1;
			p->e[i] = p->e[--p->n];
		} else if (final || (!e->have_start && !e->have_end)) {
			/* Data whose range was already written (its data record
			 * came in a later batch), or anything left at the end.
			 * An END alone may still meet its START (a range ended on
			 * another thread, whose buffer comes later): keep it. */
			p->e[i] = p->e[--p->n];
		} else {
			i++;
		}
	}
	return rc;
}

/* ------------------------------------------------------------- records */

int gs_decode_record(struct gs_decoder *d, const CUpti_Activity *rec)
{
	d->records++;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return decode_kernel(d, (const CUpti_ActivityKernel10 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return decode_memcpy(d, (const CUpti_ActivityMemcpy6 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return decode_memcpy_p2p(d, (const CUpti_ActivityMemcpyPtoP4 *)rec);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return decode_memset(d, (const CUpti_ActivityMemset4 *)rec);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		return decode_api(d, (const CUpti_ActivityAPI *)rec, GS_API_RUNTIME);
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return decode_api(d, (const CUpti_ActivityAPI *)rec, GS_API_DRIVER);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return decode_sync(d, (const CUpti_ActivitySynchronization2 *)rec);
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		return decode_context(d, (const CUpti_ActivityContext3 *)rec);
	case CUPTI_ACTIVITY_KIND_STREAM: return decode_stream(d, (const CUpti_ActivityStream *)rec);
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
		return decode_cuda_event(d, (const CUpti_ActivityCudaEvent2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return decode_marker(d, (const CUpti_ActivityMarker2 *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER_DATA:
		return decode_marker_data(d, (const CUpti_ActivityMarkerData2 *)rec);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
		return decode_graph_trace(d, (const CUpti_ActivityGraphTrace2 *)rec);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return decode_overhead(d, (const CUpti_ActivityOverhead3 *)rec);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return decode_device(d, (const CUpti_ActivityDevice5 *)rec);
	default: d->skipped++; return 0;
	}
}

size_t gs_decode_buffer(struct gs_decoder *d, uint8_t *buf, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t n = 0;

	if (!buf || valid == 0)
		return 0;
	while (d->next(buf, valid, &rec) == 0) {
		gs_decode_record(d, rec);
		n++;
	}
	return n;
}

size_t gs_count_records(gs_next_record_fn next, uint8_t *buf, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t n = 0;

	if (!buf || valid == 0)
		return 0;
	while (next(buf, valid, &rec) == 0)
		n++;
	return n;
}
