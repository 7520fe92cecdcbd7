/*
 * pipeline.c - the hand-off between CUPTI's callbacks and the writer thread.
 *
 * bufferCompleted (an application or CUPTI thread) only appends the buffer
 * to a queue under a short mutex and signals; the writer thread takes
 * everything queued, decodes it and commits it as one transaction. The
 * queue is bounded in buffers: when the writer falls behind, new buffers
 * are dropped and their records counted, so the application is never
 * blocked by SQLite or the disk. Graph-topology events from CUPTI callbacks
 * travel through the same queue so that they stay in order with the
 * records. No CUPTI function is called here (and so none under our lock).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

struct item {
	uint8_t *buf;	     /* activity buffer, or NULL for an event */
	size_t size;	     /* bytes allocated at buf */
	size_t valid;	     /* bytes of records in buf */
	struct gs_event *ev; /* event, or NULL */
	struct item *next;
};

/* Recycled buffers kept: enough for a burst of flushes, small enough not to
 * hold on to memory the application may want. */
#define MAX_FREE 8

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
	int stop;
	size_t buffer_bytes;	/* size of pooled buffers */
	struct item *free_bufs; /* recycled buffers (it->buf), at most MAX_FREE */
	size_t n_free;
	pthread_t thread;
	struct gs_decoder *d;
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
	default: return -1;
	}
}

/* Give an item's buffer back to the pool (or free it) and free the item. */
static void recycle(struct gs_pipeline *p, struct item *it)
{
	free(it->ev);
	it->ev = NULL;
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
		free(it->buf);
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
	/* CUPTI wants 8-byte alignment; malloc gives 16. */
	return malloc(p->buffer_bytes);
}

static void *writer_main(void *arg)
{
	struct gs_pipeline *p = arg;

	for (;;) {
		struct item *list, *it;
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

		gs_writer_begin(p->d->w);
		while (list) {
			it = list;
			list = it->next;
			if (it->buf)
				gs_decode_buffer(p->d, it->buf, it->valid);
			else if (it->ev)
				gs_apply_event(p->d->w, it->ev);
			recycle(p, it);
		}
		gs_decoder_flush_nvtx(p->d, 0, 0);
		gs_writer_commit(p->d->w);

		pthread_mutex_lock(&p->lock);
		p->done_seq = upto;
		pthread_cond_broadcast(&p->committed);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
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
	pthread_condattr_init(&ca);
	/* timed waits in gs_pipeline_sync measure a duration, not a date */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->committed, &ca);
	pthread_condattr_destroy(&ca);
	p->max_pending = max_pending ? max_pending : 1;
	p->buffer_bytes = buffer_bytes;
	p->d = d;
	if (pthread_create(&p->thread, NULL, writer_main, p) != 0) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->work);
		pthread_cond_destroy(&p->committed);
		free(p);
		return -1;
	}
	*out = p;
	return 0;
}

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

int gs_pipeline_submit(struct gs_pipeline *p, uint8_t *buf, size_t size, size_t valid)
{
	struct item *it;

	if (!buf)
		return 0;
	if (valid == 0) {
		free(buf);
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
		free(buf);
		return -1;
	}
	it->buf = buf;
	it->size = size;
	it->valid = valid;
	it->ev = NULL;
	it->next = NULL;
	p->pending_bufs++;
	enqueue_locked(p, it);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int gs_pipeline_event(struct gs_pipeline *p, const struct gs_event *ev)
{
	struct item *it = malloc(sizeof(*it));
	struct gs_event *copy = malloc(sizeof(*copy));

	if (!it || !copy) {
		free(it);
		free(copy);
		return -1;
	}
	*copy = *ev;
	it->buf = NULL;
	it->size = 0;
	it->valid = 0;
	it->ev = copy;
	it->next = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->stop) {
		pthread_mutex_unlock(&p->lock);
		free(it);
		free(copy);
		return -1;
	}
	enqueue_locked(p, it);
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
	p->stop = 1;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	while (p->free_bufs) {
		struct item *it = p->free_bufs;
		p->free_bufs = it->next;
		free(it->buf);
		free(it);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->committed);
	free(p);
}
