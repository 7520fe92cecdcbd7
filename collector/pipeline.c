/*
 * pipeline.c - the hand-off between CUPTI's callbacks and the writer, and
 * the writer's two stages.
 *
 * bufferCompleted (an application or CUPTI thread) only appends the buffer
 * to a queue under a short mutex and signals. The queue is bounded in
 * buffers: when the writer falls behind, new buffers are dropped and their
 * records counted, so the application is never blocked by SQLite or the
 * disk. Events made in CUPTI callbacks (graph topology, syncs, event
 * records, call sites) travel through the same queue so that they stay in
 * order with the records. They cost the program's thread little: each is
 * copied, only as long as its kind needs, into an open batch (one
 * allocation per EVENT_BATCH bytes, not two of a full struct gs_event per
 * event), and does not wake the writer. The batch joins the queue when it
 * is full, before the next buffer, at the flush thread's tick
 * (gs_pipeline_kick), a sync or stop. (A launch + sync loop with a sync row
 * per call made from callbacks, H200: 13.1 us a launch without the rows,
 * 15.3 with each row handed over alone, 14.1 with the rows made but not
 * handed over.)
 *
 * Behind the queue the work runs on two threads, so that decoding buffer
 * k+1 overlaps SQLite's work on buffer k:
 *   stage 1 (decode) takes everything queued, decodes it record by record
 *     into chunks (writer.c, "pipelined writing": rows as plain values,
 *     strings interned here) and hands each chunk on as it fills; the last
 *     chunk of what it took is marked "commit" with the hand-off count it
 *     covers;
 *   stage 2 (SQLite, the only thread that touches the connection) applies
 *     the chunks in order inside one transaction and commits at each
 *     "commit" chunk; only then does gs_pipeline_sync see the items as
 *     done.
 * At most MAX_CHUNKS chunks exist: stage 1 waits for a free one when stage
 * 2 is behind (the application never waits; the input queue fills and
 * drops instead). No CUPTI function is called here (and so none under our
 * locks).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18 /* Linux 4.14; older C libraries lack the name */
#endif

struct item {
	uint8_t *buf;  /* activity buffer, or NULL for a batch of events */
	size_t size;   /* bytes allocated at buf */
	size_t valid;  /* bytes of records in buf, or of events at evs */
	uint8_t *evs;  /* events, packed (gs_pipeline_event), or NULL */
	unsigned n_ev; /* events at evs */
	struct item *next;
};

/* Recycled buffers kept: enough for a burst of flushes, small enough not to
 * hold on to memory the application may want. */
#define MAX_FREE 8

/* Buffers the decode thread keeps in the pool with their pages touched, for
 * CUPTI's requests: CUPTI clears the buffer it is handed, inside the CUDA
 * call whose record needed it, on the application's thread. On the H200 its
 * ACTIVITY_BUFFER_REQUEST overhead records took 0.8 ms for a recycled 8 MiB
 * buffer and 3.4-7.1 ms for a fresh one, whose pages faulted in there (a
 * PyTorch training loop: two cudaLaunchKernel calls of 5.7 and 6.6 ms).
 * At most PREFAULT_BYTES of them, so large --buffer-kb sizes get none.
 * A fork shares touched pages copy-on-write with the child: the buffers
 * are wiped in the child instead (gs_buffer_alloc), else the clearing
 * faults per page again (H100, a DataLoader that forks its workers: 10.7-
 * 17.4 ms a request against 0.7 ms in GPT-2 generate). */
#define PREFAULT_BYTES ((size_t)32 << 20)
#define PREFAULT_MAX 4

/* Bytes of packed events per batch (~500 sync rows, ~36 call sites): what
 * waits where no buffer and no tick comes. */
#define EVENT_BATCH (64 * 1024)

/* A packed event: its length, then the event's first `len` bytes (its kind
 * and its member of the union), padded to 8. */
struct packed {
	uint32_t len;
	uint32_t pad;
};

/* Bytes of struct gs_event that ev uses: its kind's member of the union; of
 * a call site, the names text only as far as it is used (a native-only
 * capture, a C program's, copies ~200 bytes instead of ~1.8 KB, inside the
 * program's blocking call). */
static size_t event_len(const struct gs_event *ev)
{
	const size_t u = offsetof(struct gs_event, u);
	const struct gs_event *e = NULL;
	size_t text;

	switch (ev->kind) {
	case GS_EV_GRAPH: return u + sizeof(e->u.graph);
	case GS_EV_GRAPH_NODE: return u + sizeof(e->u.node);
	case GS_EV_GRAPH_EDGE: return u + sizeof(e->u.edge);
	case GS_EV_GRAPH_EXEC: return u + sizeof(e->u.exec);
	case GS_EV_GRAPH_LAUNCH: return u + sizeof(e->u.launch);
	case GS_EV_GRAPH_CAPTURED: return u + sizeof(e->u.captured);
	case GS_EV_GRAPH_NODE_UPDATE: return u + sizeof(e->u.update);
	case GS_EV_CALLSITE:
	case GS_EV_SAMPLE:
		text = ev->u.callsite.text_len < GS_CS_TEXT ? ev->u.callsite.text_len : GS_CS_TEXT;
		return u + offsetof(struct gs_callsite, text) + text;
	case GS_EV_SYNC: return u + sizeof(e->u.sync);
	case GS_EV_CUDA_EVENT: return u + sizeof(e->u.cuda_event);
	default: return sizeof(*e);
	}
}

static size_t packed_size(size_t len)
{
	return (sizeof(struct packed) + len + 7) & ~(size_t)7;
}

struct gs_pipeline {
	pthread_mutex_t lock;
	pthread_cond_t work;	  /* signalled on new items and on stop */
	pthread_cond_t committed; /* signalled after each commit */
	struct item *head, *tail;
	size_t pending_bufs; /* buffers queued, not yet taken */
	size_t max_pending;
	uint64_t queued_seq; /* items handed over so far */
	uint64_t done_seq;   /* items committed (or discarded) so far */
	uint64_t dropped;    /* records in buffers dropped when full */
	struct item *batch;  /* events not yet queued, or NULL */
	int stop;
	size_t buffer_bytes;	/* size of pooled buffers */
	struct item *free_bufs; /* recycled buffers (it->buf), at most MAX_FREE */
	size_t n_free;
	pthread_t thread;     /* stage 1: decode */
	pthread_t sql_thread; /* stage 2: SQLite */
	struct gs_decoder *d;
	/* stage 1 -> stage 2, under slock */
	pthread_mutex_t slock;
	pthread_cond_t ready;		  /* a chunk was handed on, or stage 1 ended */
	pthread_cond_t room;		  /* a chunk was given back */
	struct stage_item *rhead, *rtail; /* chunks to apply, in order */
	struct stage_item *spare;	  /* applied chunks for reuse */
	int n_chunks;			  /* chunks allocated */
	int decode_done;		  /* stage 1 has handed on its last chunk */
};

/* Chunks in existence: one being filled, one being applied, two waiting
 * (about 1 MiB each with CHUNK_ROWS kernel and API rows). */
#define MAX_CHUNKS 4

struct stage_item {
	struct gs_chunk *c;
	int commit;    /* commit after applying c */
	uint64_t upto; /* with commit: items handed over that this covers */
	struct stage_item *next;
};

int gs_apply_event(struct gs_writer *w, const struct gs_event *ev)
{
	switch (ev->kind) {
	case GS_EV_GRAPH: return gs_writer_graph(w, &ev->u.graph);
	case GS_EV_GRAPH_NODE: {
		struct gs_graph_node n = ev->u.node.n;
		n.name_id = ev->u.node.name[0] ? gs_writer_intern(w, ev->u.node.name) : 0;
		return gs_writer_graph_node(w, &n);
	}
	case GS_EV_GRAPH_EDGE:
		return gs_writer_graph_edge(w, ev->u.edge.graph_id, ev->u.edge.from, ev->u.edge.to);
	case GS_EV_GRAPH_EXEC:
		return gs_writer_graph_exec(w, ev->u.exec.exec_id, ev->u.exec.graph_id,
					    ev->u.exec.device, ev->u.exec.created);
	case GS_EV_GRAPH_LAUNCH: return gs_writer_graph_launch(w, &ev->u.launch);
	case GS_EV_GRAPH_CAPTURED:
		return gs_writer_graph_captured(w, ev->u.captured.graph_id, ev->u.captured.when);
	case GS_EV_GRAPH_NODE_UPDATE:
		return gs_writer_graph_node_update(w, ev->u.update.time, ev->u.update.kind,
						   ev->u.update.node_id, ev->u.update.graph_id,
						   ev->u.update.exec_id);
	case GS_EV_CALLSITE: return gs_callsite_apply(w, NULL, &ev->u.callsite);
	case GS_EV_SAMPLE: return gs_sample_apply(w, NULL, &ev->u.callsite);
	case GS_EV_SYNC: return gs_writer_sync(w, &ev->u.sync);
	case GS_EV_CUDA_EVENT: return gs_writer_cuda_event(w, &ev->u.cuda_event);
	default: return -1;
	}
}

static size_t page_round(size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pg = page > 0 ? (size_t)page : 4096;

	return (bytes + pg - 1) / pg * pg;
}

uint8_t *gs_buffer_alloc(size_t bytes)
{
	size_t len = page_round(bytes ? bytes : 1);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, len, MADV_WIPEONFORK); /* EINVAL before Linux 4.14: shared COW */
	return p;
}

void gs_buffer_free(uint8_t *buf, size_t bytes)
{
	if (buf)
		munmap(buf, page_round(bytes ? bytes : 1));
}

/* Give an item's buffer back to the pool (or free it) and free the item. */
static void recycle(struct gs_pipeline *p, struct item *it)
{
	free(it->evs);
	it->evs = NULL;
	if (it->buf && it->size == p->buffer_bytes) {
		pthread_mutex_lock(&p->lock);
		if (p->n_free < MAX_FREE) {
			it->next = p->free_bufs;
			p->free_bufs = it;
			p->n_free++;
			it = NULL;
		}
		pthread_mutex_unlock(&p->lock);
	}
	if (it) {
		gs_buffer_free(it->buf, it->size);
		free(it);
	}
}

uint8_t *gs_pipeline_get_buffer(struct gs_pipeline *p)
{
	struct item *it;
	uint8_t *buf;

	pthread_mutex_lock(&p->lock);
	it = p->free_bufs;
	if (it) {
		p->free_bufs = it->next;
		p->n_free--;
	}
	pthread_mutex_unlock(&p->lock);
	if (it) {
		buf = it->buf;
		free(it);
		return buf;
	}
	/* CUPTI wants 8-byte alignment; a mapping starts a page */
	return gs_buffer_alloc(p->buffer_bytes);
}

/* Stage 1: a chunk to fill (waits while MAX_CHUNKS are in use), or NULL
 * when out of memory. */
static struct stage_item *chunk_get(struct gs_pipeline *p)
{
	struct stage_item *it = NULL;

	pthread_mutex_lock(&p->slock);
	while (!p->spare && p->n_chunks >= MAX_CHUNKS)
		pthread_cond_wait(&p->room, &p->slock);
	if (p->spare) {
		it = p->spare;
		p->spare = it->next;
	} else {
		p->n_chunks++; /* reserved; given back below on failure */
	}
	pthread_mutex_unlock(&p->slock);
	if (!it) {
		it = calloc(1, sizeof(*it));
		if (it)
			it->c = gs_chunk_new();
		if (!it || !it->c) {
			free(it);
			pthread_mutex_lock(&p->slock);
			p->n_chunks--;
			pthread_mutex_unlock(&p->slock);
			return NULL;
		}
	}
	it->commit = 0;
	it->upto = 0;
	it->next = NULL;
	gs_writer_set_chunk(p->d->w, it->c);
	return it;
}

/* Stage 1: hand a chunk on to stage 2. */
static void chunk_put(struct gs_pipeline *p, struct stage_item *it, int commit, uint64_t upto)
{
	gs_writer_set_chunk(p->d->w, NULL);
	it->commit = commit;
	it->upto = upto;
	it->next = NULL;
	pthread_mutex_lock(&p->slock);
	if (p->rtail)
		p->rtail->next = it;
	else
		p->rhead = it;
	p->rtail = it;
	pthread_cond_signal(&p->ready);
	pthread_mutex_unlock(&p->slock);
}

/* Stage 1, after each row logged: hand a full chunk on and take the next
 * (NULL if none could be had). */
static struct stage_item *chunk_next(struct gs_pipeline *p, struct stage_item *cur)
{
	if (!gs_chunk_full(cur->c))
		return cur;
	chunk_put(p, cur, 0, 0);
	return chunk_get(p);
}

/* Decode one buffer into chunks, handing each on as it fills. Returns the
 * chunk being filled (NULL if none could be had: the rest is lost). */
static struct stage_item *decode_buffer(struct gs_pipeline *p, struct stage_item *cur, uint8_t *buf,
					size_t valid)
{
	CUpti_Activity *rec = NULL;

	while (cur && p->d->next(buf, valid, &rec) == 0) {
		gs_decode_record(p->d, rec);
		cur = chunk_next(p, cur);
	}
	return cur;
}

/* Apply a batch's events in order, like decode_buffer. */
static struct stage_item *apply_events(struct gs_pipeline *p, struct stage_item *cur,
				       const struct item *it)
{
	size_t off = 0;
	unsigned i;

	for (i = 0; i < it->n_ev && cur; i++) {
		struct packed h;
		struct gs_event ev;

		memcpy(&h, it->evs + off, sizeof(h));
		memset(&ev, 0, sizeof(ev));
		memcpy(&ev, it->evs + off + sizeof(h), h.len);
		off += packed_size(h.len);
		gs_apply_event(p->d->w, &ev);
		cur = chunk_next(p, cur);
	}
	return cur;
}

/* How many touched buffers stock_up() keeps for p's buffer size */
static size_t prefault_target(const struct gs_pipeline *p)
{
	size_t n = p->buffer_bytes ? PREFAULT_BYTES / p->buffer_bytes : 0;
	return n > PREFAULT_MAX ? PREFAULT_MAX : n;
}

/* Top the pool up to prefault_target() buffers whose pages are touched (one
 * write a page: a fresh allocation's pages fault in here, on the decode
 * thread, not in CUPTI's clearing on the application's thread). */
static void stock_up(struct gs_pipeline *p)
{
	size_t want = prefault_target(p), page = (size_t)sysconf(_SC_PAGESIZE), off;

	if (!page)
		page = 4096;
	for (;;) {
		struct item *it;
		int enough;

		pthread_mutex_lock(&p->lock);
		enough = p->n_free >= want || p->stop;
		pthread_mutex_unlock(&p->lock);
		if (enough)
			return;
		it = calloc(1, sizeof(*it));
		if (!it || !(it->buf = gs_buffer_alloc(p->buffer_bytes))) {
			free(it);
			return;
		}
		it->size = p->buffer_bytes;
		/* a mapping starts a page (gs_buffer_alloc): a write every
		 * page from it touches every page it spans */
		for (off = 0; off < it->size; off += page)
			((volatile uint8_t *)it->buf)[off] = 0;
		recycle(p, it); /* into the pool: want < MAX_FREE */
	}
}

size_t gs_pipeline_free_buffers(struct gs_pipeline *p)
{
	size_t n;

	pthread_mutex_lock(&p->lock);
	n = p->n_free;
	pthread_mutex_unlock(&p->lock);
	return n;
}

static void *decode_main(void *arg)
{
	struct gs_pipeline *p = arg;

	/* named for top -H and for the benchmark's per-stage CPU times */
	pthread_setname_np(pthread_self(), "gs-decode");
	stock_up(p);
	for (;;) {
		struct item *list, *it;
		struct stage_item *cur;
		uint64_t upto;
		size_t nbufs = 0;

		pthread_mutex_lock(&p->lock);
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->work, &p->lock);
		if (!p->head && p->stop) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		/* Take everything queued: one transaction for the lot. */
		list = p->head;
		p->head = p->tail = NULL;
		for (it = list; it; it = it->next)
			nbufs += it->buf != NULL;
		p->pending_bufs -= nbufs;
		upto = p->queued_seq;
		pthread_mutex_unlock(&p->lock);

		cur = chunk_get(p);
		while (list) {
			it = list;
			list = it->next;
			if (it->buf && cur)
				cur = decode_buffer(p, cur, it->buf, it->valid);
			else if (it->evs && cur)
				cur = apply_events(p, cur, it);
			recycle(p, it);
		}
		stock_up(p);
		if (!cur)
			cur = chunk_get(p);
		if (cur) {
			gs_decoder_flush_nvtx(p->d, 0, 0);
			chunk_put(p, cur, 1, upto);
		} else {
			/* Out of memory: what was taken is lost, but syncs must
			 * not wait for it forever. */
			pthread_mutex_lock(&p->lock);
			p->done_seq = upto;
			pthread_cond_broadcast(&p->committed);
			pthread_mutex_unlock(&p->lock);
		}
	}
	pthread_mutex_lock(&p->slock);
	p->decode_done = 1;
	pthread_cond_signal(&p->ready);
	pthread_mutex_unlock(&p->slock);
	return NULL;
}

static void *sql_main(void *arg)
{
	struct gs_pipeline *p = arg;
	struct gs_writer *w = p->d->w;

	pthread_setname_np(pthread_self(), "gs-sqlite");
	for (;;) {
		struct stage_item *it;

		pthread_mutex_lock(&p->slock);
		while (!p->rhead && !p->decode_done)
			pthread_cond_wait(&p->ready, &p->slock);
		it = p->rhead;
		if (it) {
			p->rhead = it->next;
			if (!p->rhead)
				p->rtail = NULL;
		}
		pthread_mutex_unlock(&p->slock);
		if (!it)
			break;

		/* After a SQLite error these are no-ops; the items still count
		 * as done so that syncs return. */
		gs_writer_begin(w);
		gs_writer_apply(w, it->c);
		if (it->commit) {
			gs_writer_commit(w);
			pthread_mutex_lock(&p->lock);
			p->done_seq = it->upto;
			pthread_cond_broadcast(&p->committed);
			pthread_mutex_unlock(&p->lock);
		}
		gs_chunk_reset(it->c);
		pthread_mutex_lock(&p->slock);
		it->next = p->spare;
		p->spare = it;
		pthread_cond_signal(&p->room);
		pthread_mutex_unlock(&p->slock);
	}
	return NULL;
}

static void pipeline_free(struct gs_pipeline *p)
{
	while (p->free_bufs) {
		struct item *it = p->free_bufs;
		p->free_bufs = it->next;
		gs_buffer_free(it->buf, it->size);
		free(it);
	}
	while (p->spare) {
		struct stage_item *it = p->spare;
		p->spare = it->next;
		gs_chunk_free(it->c);
		free(it);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->slock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->committed);
	pthread_cond_destroy(&p->ready);
	pthread_cond_destroy(&p->room);
	free(p);
}

int gs_pipeline_start(struct gs_pipeline **out, struct gs_decoder *d, size_t max_pending,
		      size_t buffer_bytes)
{
	struct gs_pipeline *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	*out = NULL;
	if (!p)
		return -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->slock, NULL);
	pthread_condattr_init(&ca);
	/* timed waits in gs_pipeline_sync measure a duration, not a date */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->committed, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&p->ready, NULL);
	pthread_cond_init(&p->room, NULL);
	p->max_pending = max_pending ? max_pending : 1;
	p->buffer_bytes = buffer_bytes;
	p->d = d;
	if (pthread_create(&p->sql_thread, NULL, sql_main, p) != 0) {
		pipeline_free(p);
		return -1;
	}
	if (pthread_create(&p->thread, NULL, decode_main, p) != 0) {
		pthread_mutex_lock(&p->slock);
		p->decode_done = 1;
		pthread_cond_signal(&p->ready);
		pthread_mutex_unlock(&p->slock);
		pthread_join(p->sql_thread, NULL);
		pipeline_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

/* Append it and wake the writer. */
static void enqueue_locked(struct gs_pipeline *p, struct item *it)
{
	if (p->tail)
		p->tail->next = it;
	else
		p->head = it;
	p->tail = it;
	p->queued_seq++;
	pthread_cond_signal(&p->work);
}

/* Queue the open batch of events, if any (before a buffer that follows
 * them, at a tick, a sync, stop). */
static void close_batch_locked(struct gs_pipeline *p)
{
	struct item *it = p->batch;

	if (!it)
		return;
	p->batch = NULL;
	enqueue_locked(p, it);
}

void gs_pipeline_kick(struct gs_pipeline *p)
{
	pthread_mutex_lock(&p->lock);
	close_batch_locked(p);
	pthread_mutex_unlock(&p->lock);
}

int gs_pipeline_submit(struct gs_pipeline *p, uint8_t *buf, size_t size, size_t valid)
{
	struct item *it;

	if (!buf)
		return 0;
	/* every buffer is one gs_pipeline_get_buffer handed out: freed as
	 * one of buffer_bytes, whatever size says (a munmap longer than the
	 * mapping would take its neighbours with it) */
	size = p->buffer_bytes;
	if (valid == 0) {
		/* an empty buffer (CUPTI hands them back at flushes): back
		 * to the pool, its pages still faulted in */
		struct item *e = calloc(1, sizeof(*e));
		if (e) {
			e->buf = buf;
			e->size = size;
			recycle(p, e);
		} else {
			gs_buffer_free(buf, size);
		}
		return 0;
	}
	it = malloc(sizeof(*it));
	pthread_mutex_lock(&p->lock);
	if (!it || p->pending_bufs >= p->max_pending || p->stop) {
		pthread_mutex_unlock(&p->lock);
		/* Counting walks the buffer: outside the lock, and only on
		 * this already-overloaded path. */
		uint64_t n = gs_count_records(p->d->next, buf, valid);
		pthread_mutex_lock(&p->lock);
		p->dropped += n;
		pthread_mutex_unlock(&p->lock);
		free(it);
		gs_buffer_free(buf, size);
		return -1;
	}
	it->buf = buf;
	it->size = size;
	it->valid = valid;
	it->evs = NULL;
	it->n_ev = 0;
	it->next = NULL;
	p->pending_bufs++;
	close_batch_locked(p);
	enqueue_locked(p, it);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/* A new, empty batch, or NULL when out of memory. */
static struct item *batch_new(void)
{
	struct item *it = calloc(1, sizeof(*it));

	if (it && !(it->evs = malloc(EVENT_BATCH))) {
		free(it);
		return NULL;
	}
	return it;
}

int gs_pipeline_event(struct gs_pipeline *p, const struct gs_event *ev)
{
	struct packed h = {(uint32_t)event_len(ev), 0};
	size_t need = packed_size(h.len);
	struct item *it;

	pthread_mutex_lock(&p->lock);
	if (p->stop) {
		pthread_mutex_unlock(&p->lock);
		return -1;
	}
	if (p->batch && p->batch->valid + need > EVENT_BATCH)
		close_batch_locked(p);
	if (!p->batch && !(p->batch = batch_new())) {
		pthread_mutex_unlock(&p->lock);
		return -1;
	}
	it = p->batch;
	memcpy(it->evs + it->valid, &h, sizeof(h));
	memcpy(it->evs + it->valid + sizeof(h), ev, h.len);
	it->valid += need;
	it->n_ev++;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int gs_pipeline_sync(struct gs_pipeline *p, unsigned timeout_ms)
{
	struct timespec until;
	uint64_t target;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->lock);
	close_batch_locked(p);
	target = p->queued_seq;
	while (p->done_seq < target && rc == 0) {
		if (timeout_ms == 0)
			pthread_cond_wait(&p->committed, &p->lock);
		else if (pthread_cond_timedwait(&p->committed, &p->lock, &until) == ETIMEDOUT)
			rc = p->done_seq < target ? -1 : 0;
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

uint64_t gs_pipeline_dropped(struct gs_pipeline *p)
{
	uint64_t n;

	pthread_mutex_lock(&p->lock);
	n = p->dropped;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void gs_pipeline_stop(struct gs_pipeline *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	close_batch_locked(p);
	p->stop = 1;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	/* stage 1 drains the queue and hands on its last chunk, then stage 2
	 * applies and commits everything before it ends */
	pthread_join(p->thread, NULL);
	pthread_join(p->sql_thread, NULL);
	pipeline_free(p);
}
