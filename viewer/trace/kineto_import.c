/*
 * Room viewer/trace/: reading traces; the only viewer code that knows SQLite.
 *
 * kineto_import.c - torch.profiler (Kineto) Chrome trace JSON -> a gapscope
 * trace database (see kineto_import.h).
 *
 * The JSON is parsed by yajl's event-driven parser (a hand-written parser
 * would be one more thing to fuzz; jansson builds the whole tree, several
 * times the file's size). Each object of traceEvents is gathered into one
 * struct kev - only the fields that are mapped; other values are skipped
 * unparsed - and written as one row when its closing brace arrives, so
 * memory grows with the distinct strings (kernel and API names), not with
 * the file. Kineto's layout, as written by libkineto's output_json.cpp and
 * CuptiActivity.cpp:
 *
 *   {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": ...}],
 *    "baseTimeNanoseconds": ..., "traceEvents": [
 *     {"ph": "X", "cat": "kernel", "name": "...", "pid": 0, "tid": 7,
 *      "ts": 123.456, "dur": 2.112, "args": {"device": 0, "stream": 7,
 *      "correlation": 345, "grid": [1, 1, 1], ...}}, ...]}
 *
 * ts and dur are microseconds with three decimals (exact nanoseconds,
 * relative to baseTimeNanoseconds); they are read from the number's text,
 * never through a double (a double has 15-16 digits). GPU events carry the
 * device as pid and the stream as tid; host events the process and thread.
 *
 * What it does not do: it never opens the database it writes for reading
 * through trace_open (the verbs do), and it prints nothing.
 *
 * Why one file of about 1,900 lines (CONVENTIONS.md: ~1,200): the yajl
 * callbacks, the event gathered in struct kev and the mapping of each event
 * to rows are one streaming state machine over struct importer (its
 * prepared statements, name maps, open spans and counters); a split would
 * publish struct importer to pieces that only work together.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>
#include <yajl/yajl_parse.h>
#include <zlib.h>

#include "gapscope/trace_format.h"
#include "import_out.h"
#include "kineto_import.h"
#include "trace.h"

/* ------------------------------------------------------------ buffers */

struct sbuf {
	char *p;
	size_t n, cap;
};

static int sbuf_set(struct sbuf *b, const void *s, size_t n)
{
	if (n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;
		while (cap < n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p, s, n);
	b->p[n] = '\0';
	b->n = n;
	return 0;
}

static int sbuf_eq(const struct sbuf *b, const char *s)
{
	return b->p && !strcmp(b->p, s);
}

/* ------------------------------------------------------------ UTF-8 */

/* Whether s[0..n) is valid UTF-8 without NUL (the rules of info_clean:
 * no overlong forms, surrogates or code points past U+10FFFF). */
static int utf8_ok(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t len, k;
		uint32_t cp;

		if (c < 0x80) {
			if (!c)
				return 0;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07;
		else
			return 0;
		if (i + len > n)
			return 0;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return 0;
		i += len;
	}
	return 1;
}

/* s with every byte that does not start a valid sequence (and NUL)
 * replaced by U+FFFD, into out. */
static int utf8_repair(const unsigned char *s, size_t n, struct sbuf *out)
{
	size_t i = 0, o = 0;

	if (sbuf_set(out, NULL, 0) < 0 || n > SIZE_MAX / 3 - 1)
		return -1;
	if (3 * n + 1 > out->cap) {
		char *p = realloc(out->p, 3 * n + 1);
		if (!p)
			return -1;
		out->p = p;
		out->cap = 3 * n + 1;
	}
	while (i < n) {
		size_t len = 1;
		unsigned char c = s[i];
		if (c >= 0xc2 && c <= 0xdf)
			len = 2;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4;
		else if (c >= 0x80)
			len = 0;
		if (len && i + len <= n && utf8_ok(s + i, len)) {
			memcpy(out->p + o, s + i, len);
			o += len;
			i += len;
		} else {
			memcpy(out->p + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out->p[o] = '\0';
	out->n = o;
	return 0;
}

/* ------------------------------------------------------------ numbers */

enum { NUM_OK = 0, NUM_RANGE = -1, NUM_SYNTAX = -2 };

/* An integer id: optionally negative, up to 2^64 - 1. Ids above INT64_MAX
 * (Kineto prints CUPTI's unsigned ids as they are) are kept as the same 64
 * bits, so that equal ids stay equal in SQLite's signed integers. A value
 * with a fraction or an exponent counts when it is a whole number. */
static int parse_id(const char *s, size_t n, int64_t *out)
{
	char buf[64];
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0;

	if (n && s[0] == '-')
		neg = 1, i = 1;
	if (i == n)
		return NUM_SYNTAX;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return NUM_RANGE;
		v = v * 10 + d;
	}
	if (i < n) { /* 1.0, 1e3: whole numbers only, within int64 */
		double x;
		char *end;
		if (n >= sizeof(buf))
			return NUM_RANGE;
		memcpy(buf, s, n);
		buf[n] = '\0';
		x = strtod(buf, &end);
		if (*end || !isfinite(x) || x != floor(x) || fabs(x) >= 9.2e18)
			return isfinite(x) && x == floor(x) ? NUM_RANGE : NUM_SYNTAX;
		*out = (int64_t)x;
		return NUM_OK;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return NUM_RANGE;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		*out = (int64_t)v; /* above INT64_MAX: the same bits */
	}
	return NUM_OK;
}

/* Microseconds (Kineto: "123.456") -> nanoseconds in [0, TRACE_TIME_MAX],
 * from the digits: a fourth decimal and beyond rounds to the nearest ns. */
static int parse_us(const char *s, size_t n, int64_t *ns)
{
	const int64_t max_us = TRACE_TIME_MAX / 1000;
	int64_t us = 0, frac = 0;
	size_t i = 0, k;
	int digits = 0;

	if (n && s[0] == '-') {
		/* "-0", "-0.000": zero; anything else is before the trace */
		for (k = 1; k < n; k++)
			if (s[k] != '0' && s[k] != '.')
				return NUM_RANGE;
		*ns = 0;
		return n > 1 ? NUM_OK : NUM_SYNTAX;
	}
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (us > max_us / 10 + 1)
			return NUM_RANGE;
		us = us * 10 + (s[i] - '0');
	}
	if (!digits)
		return NUM_SYNTAX;
	if (i < n && s[i] == '.') {
		int fd = 0;
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++) {
			if (fd < 3)
				frac = frac * 10 + (s[i] - '0');
			else if (fd == 3 && s[i] >= '5')
				frac++;
		}
		for (; fd < 3; fd++)
			frac *= 10;
	}
	if (i < n) { /* an exponent: through long double, still range-checked */
		char buf[128];
		long double x;
		char *end;
		if (n >= sizeof(buf))
			return NUM_RANGE;
		memcpy(buf, s, n);
		buf[n] = '\0';
		x = strtold(buf, &end);
		if (*end)
			return NUM_SYNTAX;
		if (!(x >= 0) || x * 1000.0L > (long double)TRACE_TIME_MAX)
			return NUM_RANGE;
		*ns = (int64_t)llroundl(x * 1000.0L);
		return NUM_OK;
	}
	if (us > max_us)
		return NUM_RANGE;
	*ns = us * 1000 + frac;
	return *ns <= TRACE_TIME_MAX ? NUM_OK : NUM_RANGE;
}

/* ------------------------------------------------------------ one event */

enum arg {
	A_CORR,
	A_CBID,
	A_DEVICE,
	A_CONTEXT,
	A_STREAM,
	A_REGS,
	A_SHMEM,
	A_BYTES,
	A_GRAPH,
	A_GRAPH_NODE,
	A_EVENT,
	A_FROM_DEVICE,
	A_TO_DEVICE,
	A_IN_DEVICE,
	A_WAIT_STREAM,
	A_WAIT_REC_CORR,
	A_N
};

/* args keys that are mapped (Kineto's spelling) */
static const char *const arg_keys[A_N] = {
    [A_CORR] = "correlation",
    [A_CBID] = "cbid",
    [A_DEVICE] = "device",
    [A_CONTEXT] = "context",
    [A_STREAM] = "stream",
    [A_REGS] = "registers per thread",
    [A_SHMEM] = "shared memory",
    [A_BYTES] = "bytes",
    [A_GRAPH] = "graph id",
    [A_GRAPH_NODE] = "graph node id",
    [A_EVENT] = "wait_on_cuda_event_id",
    [A_FROM_DEVICE] = "fromDevice",
    [A_TO_DEVICE] = "toDevice",
    [A_IN_DEVICE] = "inDevice",
    [A_WAIT_STREAM] = "wait_on_stream",
    [A_WAIT_REC_CORR] = "wait_on_cuda_event_record_corr_id",
};

struct kev {
	char ph;	       /* 0: none */
	struct sbuf name, cat; /* raw bytes as parsed */
	struct sbuf arg_name;  /* args.name (metadata events) */
	struct sbuf sync_kind; /* args.cuda_sync_kind */
	int have_pid, have_tid, have_ts, have_dur;
	int64_t pid, tid; /* host pid/tid, or device/stream on GPU rows */
	int64_t ts, dur;  /* ns */
	uint32_t have;	  /* 1 << enum arg */
	int64_t a[A_N];
	int64_t grid[3], block[3];
	int ngrid, nblock;
};

static void kev_reset(struct kev *e)
{
	e->ph = 0;
	e->name.n = e->cat.n = e->arg_name.n = e->sync_kind.n = 0;
	if (e->name.p)
		e->name.p[0] = '\0';
	if (e->cat.p)
		e->cat.p[0] = '\0';
	if (e->arg_name.p)
		e->arg_name.p[0] = '\0';
	if (e->sync_kind.p)
		e->sync_kind.p[0] = '\0';
	e->have_pid = e->have_tid = e->have_ts = e->have_dur = 0;
	e->have = 0;
	e->ngrid = e->nblock = 0;
}

static void kev_free(struct kev *e)
{
	free(e->name.p);
	free(e->cat.p);
	free(e->arg_name.p);
	free(e->sync_kind.p);
}

static int kev_copy(struct kev *dst, const struct kev *src)
{
	struct kev d = *src;

	memset(&d.name, 0, sizeof(d.name));
	memset(&d.cat, 0, sizeof(d.cat));
	memset(&d.arg_name, 0, sizeof(d.arg_name));
	memset(&d.sync_kind, 0, sizeof(d.sync_kind));
	if (sbuf_set(&d.name, src->name.p, src->name.n) < 0 ||
	    sbuf_set(&d.cat, src->cat.p, src->cat.n) < 0 ||
	    sbuf_set(&d.arg_name, src->arg_name.p, src->arg_name.n) < 0 ||
	    sbuf_set(&d.sync_kind, src->sync_kind.p, src->sync_kind.n) < 0) {
		kev_free(&d);
		return -1;
	}
	*dst = d;
	return 0;
}

/* ------------------------------------------------------------ importer */

enum ctx {
	C_ROOT,	  /* before the top value */
	C_TOP,	  /* the top object */
	C_EVENTS, /* traceEvents */
	C_EVENT,  /* one event */
	C_ARGS,	  /* its args */
	C_DIM,	  /* args.grid / args.block */
	C_DEVS,	  /* deviceProperties */
	C_DEV,	  /* one device */
	C_DIST,	  /* distributedInfo (torch.distributed: rank, world_size, backend) */
};

enum {
	ST_STRING,
	ST_KERNEL,
	ST_API,
	ST_MEMCPY,
	ST_MEMSET,
	ST_SYNC,
	ST_NVTX,
	ST_DEVICE,
	ST_THREAD,
	ST_PROCESS,
	ST_EVENT,
	ST_HRANGE,
	ST_N
};

static const char *const st_sql[ST_N] = {
    [ST_STRING] = "INSERT INTO strings(id, value) VALUES(?1, ?2)",
    [ST_KERNEL] =
	"INSERT INTO kernels(start, end, device, context, stream, correlation_id, "
	"name_id, graph_id, graph_node_id, grid_x, grid_y, grid_z, block_x, block_y, "
	"block_z, registers, static_shared_bytes) "
	"VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
    [ST_API] = "INSERT INTO api_calls(api, cbid, name_id, start, end, pid, tid, correlation_id) "
	       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_MEMCPY] = "INSERT INTO memcpys(start, end, device, context, stream, correlation_id, "
		  "bytes, copy_kind, src_kind, dst_kind, is_async, src_device, dst_device, "
		  "graph_id, graph_node_id) "
		  "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, ?11, ?12, ?13, ?14)",
    [ST_MEMSET] = "INSERT INTO memsets(start, end, device, context, stream, correlation_id, "
		  "bytes, mem_kind, is_async, graph_id, graph_node_id) "
		  "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10)",
    [ST_SYNC] = "INSERT INTO syncs(start, end, kind, implicit, device, context, stream, event, "
		"correlation_id) VALUES(?1, ?2, ?3, 0, ?4, ?5, ?6, ?7, ?8)",
    [ST_NVTX] = "INSERT INTO nvtx(start, end, kind, text_id, pid, tid) "
		"VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_DEVICE] = "INSERT OR REPLACE INTO devices(id, name, cc_major, cc_minor, sm_count, "
		  "global_memory_bytes, max_threads_per_block) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    [ST_THREAD] = "INSERT OR REPLACE INTO threads(tid, pid, name) VALUES(?1, ?2, ?3)",
    [ST_PROCESS] = "INSERT OR REPLACE INTO processes(pid, command_line) VALUES(?1, ?2)",
    [ST_EVENT] = "INSERT INTO events(event, stream, device, context, correlation_id, start) "
		 "VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_HRANGE] = "INSERT INTO host_ranges(start, end, name_id, pid, tid) "
		  "VALUES(?1, ?2, ?3, ?4, ?5)",
};

/* interned strings: open addressing, the id is the strings.id */
struct istr {
	uint64_t hash;
	char *s;
	size_t n;
	int64_t id;
};

/* process and thread names from "M" events, written at the end */
struct pname {
	int64_t pid, tid; /* tid -1: a process name */
	char *name;
};

/* device properties being gathered */
struct kdev {
	int have_id;
	int64_t id, cc_major, cc_minor, sms, mem, max_threads;
	uint32_t have; /* bits: 1 cc_major, 2 cc_minor, 4 sms, 8 mem, 16 max_threads */
	struct sbuf name;
};

struct importer {
	const char *json_path;
	sqlite3 *db;
	sqlite3_stmt *st[ST_N];
	yajl_handle yh;
	struct import_stats *stats;

	/* parse state */
	enum ctx stack[16];
	int depth;     /* entries used in stack */
	int64_t skip;  /* > 0: inside a value that is not mapped */
	char key[64];  /* the last map key at the current level */
	int key_long;  /* it did not fit: matches nothing */
	int dim_which; /* C_DIM: 0 grid, 1 block */
	int seen_events;
	struct kev ev;
	struct kdev dev;
	int64_t base_ns;
	int have_base;
	char cupti_version[32], driver_version[32], runtime_version[32];
	unsigned torch_opts; /* bit i: torch_opt_keys[i] was 1 at the top level */
	/* distributedInfo: which rank of a torch.distributed job this is */
	int have_rank, have_world;
	int64_t rank, world_size;
	char backend[32];

	/* B events waiting for their E */
	struct kev *open;
	size_t n_open, cap_open;

	struct istr *tab;
	size_t tab_cap, tab_n;
	int64_t next_string;

	struct pname *names;
	size_t n_names, cap_names;
	int64_t *host_pids; /* processes of host events (small) */
	size_t n_host_pids, cap_host_pids;

	int64_t min_ns, max_ns; /* over every row written */
	struct sbuf fix;	/* utf8_repair's output */

	int failed;   /* a callback stopped the parse: err is set */
	int err_kind; /* KINETO_ERR_* of that failure */
	char err[512];
};

static int fail_input(struct importer *im, const char *fmt, const char *a, const char *b)
{
	if (!im->failed) {
		snprintf(im->err, sizeof(im->err), fmt, a, b);
		im->failed = 1;
		im->err_kind = KINETO_ERR_INPUT;
	}
	return 0; /* yajl: cancel */
}

static int fail_db(struct importer *im, const char *what)
{
	if (!im->failed) {
		snprintf(im->err, sizeof(im->err), "cannot write the database (%s): %s", what,
			 im->db ? sqlite3_errmsg(im->db) : "out of memory");
		im->failed = 1;
		im->err_kind = KINETO_ERR_OUTPUT;
	}
	return 0;
}

static int fail_oom(struct importer *im)
{
	if (!im->failed) {
		snprintf(im->err, sizeof(im->err), "out of memory");
		im->failed = 1;
		im->err_kind = KINETO_ERR_OUTPUT;
	}
	return 0;
}

static int run(struct importer *im, int which, const char *what)
{
	sqlite3_stmt *s = im->st[which];
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE) {
		fail_db(im, what);
		return -1;
	}
	return 0;
}

static void bind_opt(sqlite3_stmt *s, int i, int have, int64_t v)
{
	if (have)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* Text stored in the trace: valid UTF-8 (repaired if need be). */
static const char *clean_text(struct importer *im, const char *s, size_t n, size_t *out_n)
{
	if (utf8_ok((const unsigned char *)s, n)) {
		*out_n = n;
		return s;
	}
	if (utf8_repair((const unsigned char *)s, n, &im->fix) < 0)
		return NULL;
	im->stats->repaired++;
	*out_n = im->fix.n;
	return im->fix.p;
}

/* strings.id of s[0..n) (raw bytes; repaired as stored), 0 on failure */
static int64_t intern(struct importer *im, const char *s, size_t n)
{
	uint64_t h = fnv(s, n);
	size_t i, mask;
	const char *txt;
	size_t tn;

	if (im->tab_n * 2 >= im->tab_cap) {
		size_t cap = im->tab_cap ? im->tab_cap * 2 : 1024, j;
		struct istr *t = calloc(cap, sizeof(*t));
		if (!t)
			return fail_oom(im);
		for (j = 0; j < im->tab_cap; j++)
			if (im->tab[j].s) {
				size_t k = im->tab[j].hash & (cap - 1);
				while (t[k].s)
					k = (k + 1) & (cap - 1);
				t[k] = im->tab[j];
			}
		free(im->tab);
		im->tab = t;
		im->tab_cap = cap;
	}
	mask = im->tab_cap - 1;
	for (i = h & mask; im->tab[i].s; i = (i + 1) & mask)
		if (im->tab[i].hash == h && im->tab[i].n == n && !memcmp(im->tab[i].s, s, n))
			return im->tab[i].id;
	im->tab[i].s = malloc(n + 1);
	if (!im->tab[i].s)
		return fail_oom(im);
	memcpy(im->tab[i].s, s, n);
	im->tab[i].s[n] = '\0';
	im->tab[i].n = n;
	im->tab[i].hash = h;
	im->tab[i].id = im->next_string++;
	im->tab_n++;
	txt = clean_text(im, s, n, &tn);
	if (!txt)
		return fail_oom(im);
	sqlite3_bind_int64(im->st[ST_STRING], 1, im->tab[i].id);
	sqlite3_bind_text(im->st[ST_STRING], 2, txt, (int)tn, SQLITE_TRANSIENT);
	if (run(im, ST_STRING, "strings") < 0)
		return 0;
	return im->tab[i].id;
}

static void span(struct importer *im, int64_t start, int64_t end)
{
	if (start < im->min_ns)
		im->min_ns = start;
	if (end > im->max_ns)
		im->max_ns = end;
}

/* A category name as a meta key part: [A-Za-z0-9_], at most 40 bytes. */
static void cat_key(const char *cat, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	if (!n) {
		snprintf(out, outlen, "no_category");
		return;
	}
	for (i = 0; i < n && o + 1 < outlen && o < 40; i++) {
		char c = cat[i];
		out[o++] = ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '_')
			       ? c
			       : '_';
	}
	out[o] = '\0';
}

static void unmapped(struct importer *im, const char *cat, size_t n)
{
	struct import_stats *st = im->stats;
	char key[48];
	size_t i;

	cat_key(cat, n, key, sizeof(key));
	for (i = 0; i < st->n_unmapped; i++)
		if (!strcmp(st->unmapped[i].cat, key)) {
			st->unmapped[i].n++;
			return;
		}
	if (st->n_unmapped == IMPORT_MAX_CATS) { /* the last slot: everything else */
		snprintf(st->unmapped[IMPORT_MAX_CATS].cat, sizeof(st->unmapped[0].cat), "other");
		st->unmapped[IMPORT_MAX_CATS].n++;
		return;
	}
	snprintf(st->unmapped[st->n_unmapped].cat, sizeof(st->unmapped[0].cat), "%s", key);
	st->unmapped[st->n_unmapped++].n = 1;
}

static void unmapped_s(struct importer *im, const char *why)
{
	unmapped(im, why, strlen(why));
}

static int host_pid(struct importer *im, int64_t pid)
{
	size_t i;

	for (i = 0; i < im->n_host_pids; i++)
		if (im->host_pids[i] == pid)
			return 0;
	if (im->n_host_pids == im->cap_host_pids) {
		size_t cap = im->cap_host_pids ? im->cap_host_pids * 2 : 8;
		int64_t *p = realloc(im->host_pids, cap * sizeof(*p));
		if (!p)
			return -1;
		im->host_pids = p;
		im->cap_host_pids = cap;
	}
	im->host_pids[im->n_host_pids++] = pid;
	return 0;
}

#define HAS(e, k) (((e)->have >> (k)) & 1u)

static int dev_ok(int64_t d)
{
	return TRACE_DEVICE_OK(d);
}

/* "Memcpy HtoD (Pageable -> Device)": CUPTI's kind names as libkineto's
 * memcpyKindString / memoryKindString spell them. */
static int copy_kind(const char *name)
{
	static const char *const k[] = {"HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					"AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	size_t i;

	if (strncmp(name, "Memcpy ", 7) != 0)
		return GS_COPY_UNKNOWN;
	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strncmp(name + 7, k[i], 4) && (name[11] == ' ' || name[11] == '\0'))
			return (int)i + 1;
	return GS_COPY_UNKNOWN;
}

static int mem_kind(const char *s, size_t n)
{
	static const char *const k[] = {"Unknown", "Pageable", "Pinned",	"Device",
					"Array",   "Managed",  "Device Static", "Managed Static"};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strlen(k[i]) == n && !strncmp(s, k[i], n))
			return (int)i;
	return GS_MEM_UNKNOWN;
}

/* the memory kinds in "(<src> -> <dst>)" or "(<kind>)" */
static void mem_kinds(const char *name, int *src, int *dst)
{
	const char *o = strchr(name, '('), *c, *arrow;

	*src = *dst = GS_MEM_UNKNOWN;
	if (!o || !(c = strchr(o, ')')))
		return;
	o++;
	arrow = strstr(o, " -> ");
	if (arrow && arrow < c) {
		*src = mem_kind(o, (size_t)(arrow - o));
		*dst = mem_kind(arrow + 4, (size_t)(c - arrow - 4));
	} else {
		*src = *dst = mem_kind(o, (size_t)(c - o));
	}
}

/* cuda_sync: args.cuda_sync_kind or the name (libkineto's syncTypeString) */
static int sync_kind(const struct kev *e)
{
	const char *s = e->sync_kind.n ? e->sync_kind.p : (e->name.p ? e->name.p : "");

	if (strstr(s, "Wait Event") || strstr(s, "wait_event"))
		return GS_SYNC_STREAM_WAIT_EVENT;
	if (strstr(s, "Event") || strstr(s, "event"))
		return GS_SYNC_EVENT;
	if (strstr(s, "Stream") || strstr(s, "stream"))
		return GS_SYNC_STREAM;
	if (strstr(s, "Context") || strstr(s, "context") || strstr(s, "Device"))
		return GS_SYNC_CONTEXT;
	return GS_SYNC_UNKNOWN;
}

/* device and stream of a GPU row: args first, else pid/tid; 0 when the
 * row cannot be placed */
static int gpu_place(const struct kev *e, int64_t *dev, int64_t *stream)
{
	/* peer copies (CUpti_ActivityMemcpy2) say inDevice, not device */
	int hd = HAS(e, A_DEVICE) || HAS(e, A_IN_DEVICE) || e->have_pid;
	int hs = HAS(e, A_STREAM) || e->have_tid;

	*dev = HAS(e, A_DEVICE) ? e->a[A_DEVICE] : HAS(e, A_IN_DEVICE) ? e->a[A_IN_DEVICE] : e->pid;
	*stream = HAS(e, A_STREAM) ? e->a[A_STREAM] : e->tid;
	return hd && hs && dev_ok(*dev) && TRACE_STREAM_OK(*stream);
}

/* torch.profiler's options that Kineto writes at the top level (1 when
 * on): each adds host time to every operator it records */
static const char *const torch_opt_keys[] = {"record_shapes", "profile_memory", "with_stack",
					     "with_flops", "with_modules"};
#define N_TORCH_OPTS (sizeof(torch_opt_keys) / sizeof(torch_opt_keys[0]))

/* A ROCm trace (PyTorch on AMD GPUs: HIP calls in the runtime category,
 * their arguments as strings): gapscope's analysis knows CUDA's calls
 * only, and would give HIP's launches and syncs no cause */
static int rocm_trace(struct importer *im)
{
	char where[64];

	snprintf(where, sizeof(where), "traceEvents[%lld]", (long long)im->stats->events);
	return fail_input(im,
			  "%s: a ROCm (HIP) trace (%.40s): gapscope reads traces of CUDA programs"
			  " only",
			  where, im->ev.name.p);
}

static int is_hip(const struct kev *e)
{
	return e->name.p && !strncmp(e->name.p, "hip", 3);
}

/* The category as libkineto spells it today. Until November 2021
 * (PyTorch 1.8-1.10) it wrote "Kernel", "Memcpy", "Memset" and "Runtime"
 * (output_json.cpp before kineto bc4eaef5 and 1679e50e); the events are
 * the same otherwise. */
static const char *canon_cat(const char *cat)
{
	static const char *const old[][2] = {{"Kernel", "kernel"},
					     {"Memcpy", "gpu_memcpy"},
					     {"Memset", "gpu_memset"},
					     {"Runtime", "cuda_runtime"}};
	size_t i;

	for (i = 0; i < sizeof(old) / sizeof(old[0]); i++)
		if (!strcmp(cat, old[i][0]))
			return old[i][1];
	return cat;
}

/* a span host thread e->tid ran, name strings id `id` (host_ranges) */
static int host_span(struct importer *im, const struct kev *e, int64_t start, int64_t end,
		     int64_t id)
{
	sqlite3_stmt *s = im->st[ST_HRANGE];

	sqlite3_bind_int64(s, 1, start);
	sqlite3_bind_int64(s, 2, end);
	sqlite3_bind_int64(s, 3, id);
	bind_opt(s, 4, e->have_pid, e->pid);
	bind_opt(s, 5, e->have_tid, e->tid);
	return run(im, ST_HRANGE, "host_ranges");
}

/* One complete event (ph X, or a B/E pair, or an instant) -> one row. */
static int emit(struct importer *im, const struct kev *e, int instant)
{
	const char *cat = canon_cat(e->cat.p ? e->cat.p : "");
	int64_t start = e->ts, end, dev, stream, id;
	sqlite3_stmt *s;

	if (!e->have_ts) {
		unmapped_s(im, "no_ts");
		return 0;
	}
	/* a complete event ("ph": "X") without dur has no end: read as
	 * zero-length it made a kernel that never ran (GPU busy 0.0%, exit
	 * 0); counted as unmapped, as one without ts is */
	if (!instant && !e->have_dur) {
		unmapped_s(im, "no_dur");
		return 0;
	}
	end = start + (e->have_dur ? e->dur : 0);
	if (end > TRACE_TIME_MAX) {
		char where[64];
		snprintf(where, sizeof(where), "traceEvents[%lld]", (long long)im->stats->events);
		return fail_input(im, "%s: ts + dur is out of range (past 2^62 ns)%s", where, ""),
		       -1;
	}
	if (!strcmp(cat, "kernel") && !instant) {
		if (!gpu_place(e, &dev, &stream)) {
			unmapped_s(im, "kernel_without_device_or_stream");
			return 0;
		}
		id = intern(im, e->name.p ? e->name.p : "", e->name.n);
		if (!id)
			return -1;
		s = im->st[ST_KERNEL];
		sqlite3_bind_int64(s, 1, start);
		sqlite3_bind_int64(s, 2, end);
		sqlite3_bind_int64(s, 3, dev);
		bind_opt(s, 4, HAS(e, A_CONTEXT), e->a[A_CONTEXT]);
		sqlite3_bind_int64(s, 5, stream);
		bind_opt(s, 6, HAS(e, A_CORR), e->a[A_CORR]);
		sqlite3_bind_int64(s, 7, id);
		sqlite3_bind_int64(s, 8, HAS(e, A_GRAPH) ? e->a[A_GRAPH] : 0);
		sqlite3_bind_int64(s, 9, HAS(e, A_GRAPH_NODE) ? e->a[A_GRAPH_NODE] : 0);
		for (int k = 0; k < 3; k++) {
			bind_opt(s, 10 + k, e->ngrid > k, e->grid[k]);
			bind_opt(s, 13 + k, e->nblock > k, e->block[k]);
		}
		bind_opt(s, 16, HAS(e, A_REGS), e->a[A_REGS]);
		bind_opt(s, 17, HAS(e, A_SHMEM), e->a[A_SHMEM]);
		if (run(im, ST_KERNEL, "kernels") < 0)
			return -1;
		im->stats->kernels++;
	} else if ((!strcmp(cat, "gpu_memcpy") || !strcmp(cat, "gpu_memset")) && !instant) {
		int copy = !strcmp(cat, "gpu_memcpy");
		int src, dst;
		if (!gpu_place(e, &dev, &stream)) {
			unmapped_s(im, copy ? "memcpy_without_device_or_stream"
					    : "memset_without_device_or_stream");
			return 0;
		}
		mem_kinds(e->name.p ? e->name.p : "", &src, &dst);
		s = im->st[copy ? ST_MEMCPY : ST_MEMSET];
		sqlite3_bind_int64(s, 1, start);
		sqlite3_bind_int64(s, 2, end);
		sqlite3_bind_int64(s, 3, dev);
		bind_opt(s, 4, HAS(e, A_CONTEXT), e->a[A_CONTEXT]);
		sqlite3_bind_int64(s, 5, stream);
		bind_opt(s, 6, HAS(e, A_CORR), e->a[A_CORR]);
		bind_opt(s, 7, HAS(e, A_BYTES), e->a[A_BYTES]);
		if (copy) {
			sqlite3_bind_int(s, 8, copy_kind(e->name.p ? e->name.p : ""));
			sqlite3_bind_int(s, 9, src);
			sqlite3_bind_int(s, 10, dst);
			bind_opt(s, 11, HAS(e, A_FROM_DEVICE), e->a[A_FROM_DEVICE]);
			bind_opt(s, 12, HAS(e, A_TO_DEVICE), e->a[A_TO_DEVICE]);
			sqlite3_bind_int64(s, 13, HAS(e, A_GRAPH) ? e->a[A_GRAPH] : 0);
			sqlite3_bind_int64(s, 14, HAS(e, A_GRAPH_NODE) ? e->a[A_GRAPH_NODE] : 0);
		} else {
			sqlite3_bind_int(s, 8, src);
			sqlite3_bind_int64(s, 9, HAS(e, A_GRAPH) ? e->a[A_GRAPH] : 0);
			sqlite3_bind_int64(s, 10, HAS(e, A_GRAPH_NODE) ? e->a[A_GRAPH_NODE] : 0);
		}
		if (run(im, copy ? ST_MEMCPY : ST_MEMSET, copy ? "memcpys" : "memsets") < 0)
			return -1;
		if (copy)
			im->stats->memcpys++;
		else
			im->stats->memsets++;
	} else if ((!strcmp(cat, "cuda_runtime") || !strcmp(cat, "cuda_driver")) && !instant) {
		if (is_hip(e))
			return rocm_trace(im), -1;
		id = intern(im, e->name.p ? e->name.p : "", e->name.n);
		if (!id)
			return -1;
		s = im->st[ST_API];
		sqlite3_bind_int(s, 1, cat[5] == 'r' ? GS_API_RUNTIME : GS_API_DRIVER);
		bind_opt(s, 2, HAS(e, A_CBID), e->a[A_CBID]);
		sqlite3_bind_int64(s, 3, id);
		sqlite3_bind_int64(s, 4, start);
		sqlite3_bind_int64(s, 5, end);
		bind_opt(s, 6, e->have_pid, e->pid);
		bind_opt(s, 7, e->have_tid, e->tid);
		bind_opt(s, 8, HAS(e, A_CORR), e->a[A_CORR]);
		if (run(im, ST_API, "api_calls") < 0)
			return -1;
		if (e->have_pid && host_pid(im, e->pid) < 0)
			return fail_oom(im), -1;
		im->stats->api_calls++;
	} else if (!strcmp(cat, "cuda_sync") && !instant) {
		int64_t d = HAS(e, A_DEVICE) ? e->a[A_DEVICE] : e->pid;
		int hd = (HAS(e, A_DEVICE) || e->have_pid) && dev_ok(d);
		/* CUPTI's invalid stream (context and device syncs) is
		 * 0xffffffff, which libkineto prints as it is */
		int64_t str = HAS(e, A_STREAM) ? e->a[A_STREAM] : -1;
		int kind = sync_kind(e);
		s = im->st[ST_SYNC];
		sqlite3_bind_int64(s, 1, start);
		sqlite3_bind_int64(s, 2, end);
		sqlite3_bind_int(s, 3, kind);
		bind_opt(s, 4, hd, d);
		bind_opt(s, 5, HAS(e, A_CONTEXT), e->a[A_CONTEXT]);
		bind_opt(s, 6, str >= 0 && str < 0xffffffffll, str);
		bind_opt(s, 7, HAS(e, A_EVENT), e->a[A_EVENT]);
		bind_opt(s, 8, HAS(e, A_CORR), e->a[A_CORR]);
		if (run(im, ST_SYNC, "syncs") < 0)
			return -1;
		im->stats->syncs++;
		/* a stream wait says where its event was recorded (PyTorch
		 * 2.1+: wait_on_stream, the record call's correlation id):
		 * an event record, so that a wait for the same stream or
		 * device explains no idle (docs/metrics.md, dependency). Its
		 * time is the wait's until derive() finds the record call. */
		if (kind == GS_SYNC_STREAM_WAIT_EVENT && HAS(e, A_EVENT) && HAS(e, A_WAIT_STREAM) &&
		    e->a[A_WAIT_STREAM] >= 0 && TRACE_STREAM_OK(e->a[A_WAIT_STREAM]) && hd) {
			s = im->st[ST_EVENT];
			sqlite3_bind_int64(s, 1, e->a[A_EVENT]);
			sqlite3_bind_int64(s, 2, e->a[A_WAIT_STREAM]);
			sqlite3_bind_int64(s, 3, d);
			bind_opt(s, 4, HAS(e, A_CONTEXT), e->a[A_CONTEXT]);
			bind_opt(s, 5, HAS(e, A_WAIT_REC_CORR) && e->a[A_WAIT_REC_CORR] >= 0,
				 e->a[A_WAIT_REC_CORR]);
			sqlite3_bind_int64(s, 6, start);
			if (run(im, ST_EVENT, "events") < 0)
				return -1;
			im->stats->event_records++;
		}
	} else if (!strcmp(cat, "user_annotation") ||
		   (!strcmp(cat, "Operator") && e->name.p && strchr(e->name.p, '#'))) {
		/* PyTorch 1.8-1.10 wrote its own record_function ranges as
		 * operators, named "<what>#<which>": "ProfilerStep#5" (the
		 * steps --step selects), "enumerate(DataLoader)#_Single
		 * ProcessDataLoaderIter.__next__", "Optimizer.step#SGD.step";
		 * no operator or autograd node has a '#' in its name */
		id = intern(im, e->name.p ? e->name.p : "", e->name.n);
		if (!id)
			return -1;
		s = im->st[ST_NVTX];
		sqlite3_bind_int64(s, 1, start);
		sqlite3_bind_int64(s, 2, end);
		sqlite3_bind_int(s, 3, instant ? GS_NVTX_MARK : GS_NVTX_RANGE);
		sqlite3_bind_int64(s, 4, id);
		bind_opt(s, 5, e->have_pid, e->pid);
		bind_opt(s, 6, e->have_tid, e->tid);
		if (run(im, ST_NVTX, "nvtx") < 0)
			return -1;
		if (e->have_pid && host_pid(im, e->pid) < 0)
			return fail_oom(im), -1;
		im->stats->ranges++;
		/* a record_function range is something the thread ran too:
		 * host code inside "enumerate(DataLoader)#..." is named so */
		if (!instant) {
			if (host_span(im, e, start, end, id) < 0)
				return -1;
		}
	} else if ((!strcmp(cat, "cpu_op") || !strcmp(cat, "Operator") ||
		    !strcmp(cat, "python_function")) &&
		   !instant) {
		/* an operator the host ran ("aten::to"; PyTorch 1.8-1.10:
		 * "Operator"), or a Python function (with_stack=True:
		 * "inspect.py(3081): from_callable"): what the report names
		 * host code by */
		id = intern(im, e->name.p ? e->name.p : "", e->name.n);
		if (!id)
			return -1;
		if (host_span(im, e, start, end, id) < 0)
			return -1;
		im->stats->host_ops++;
	} else {
		unmapped(im, e->cat.p ? e->cat.p : "", e->cat.n);
		return 0;
	}
	span(im, start, end);
	return 0;
}

static int add_name(struct importer *im, int64_t pid, int64_t tid, const struct sbuf *name)
{
	size_t i;
	char *copy;

	if (!name->n)
		return 0;
	copy = malloc(name->n + 1);
	if (!copy)
		return -1;
	memcpy(copy, name->p, name->n + 1);
	for (i = 0; i < im->n_names; i++)
		if (im->names[i].pid == pid && im->names[i].tid == tid) {
			free(im->names[i].name);
			im->names[i].name = copy;
			return 0;
		}
	if (im->n_names == im->cap_names) {
		size_t cap = im->cap_names ? im->cap_names * 2 : 16;
		struct pname *p = realloc(im->names, cap * sizeof(*p));
		if (!p) {
			free(copy);
			return -1;
		}
		im->names = p;
		im->cap_names = cap;
	}
	im->names[im->n_names].pid = pid;
	im->names[im->n_names].tid = tid;
	im->names[im->n_names++].name = copy;
	return 0;
}

/* An object of traceEvents is complete. */
static int on_event(struct importer *im)
{
	struct kev *e = &im->ev;
	size_t i;

	im->stats->events++;
	switch (e->ph) {
	case 'X': return emit(im, e, 0) < 0 ? 0 : 1;
	case 'i':
	case 'I': return emit(im, e, 1) < 0 ? 0 : 1;
	case 'B':
		if (im->n_open == im->cap_open) {
			size_t cap = im->cap_open ? im->cap_open * 2 : 16;
			struct kev *p = realloc(im->open, cap * sizeof(*p));
			if (!p)
				return fail_oom(im);
			im->open = p;
			im->cap_open = cap;
		}
		if (kev_copy(&im->open[im->n_open], e) < 0)
			return fail_oom(im);
		im->n_open++;
		return 1;
	case 'E':
		/* the innermost open B of the same process and thread */
		for (i = im->n_open; i-- > 0;) {
			struct kev *b = &im->open[i];
			if (b->have_pid == e->have_pid && (!e->have_pid || b->pid == e->pid) &&
			    b->have_tid == e->have_tid && (!e->have_tid || b->tid == e->tid)) {
				int rc = 1;
				if (e->have_ts && b->have_ts) {
					b->have_dur = 1;
					b->dur = e->ts > b->ts ? e->ts - b->ts : 0;
					rc = emit(im, b, 0) < 0 ? 0 : 1;
				} else {
					unmapped_s(im, "no_ts");
				}
				kev_free(b);
				memmove(b, b + 1, (im->n_open - i - 1) * sizeof(*b));
				im->n_open--;
				return rc;
			}
		}
		unmapped_s(im, "unmatched_E");
		return 1;
	case 'M':
		if (e->have_pid && (sbuf_eq(&e->name, "process_name") ||
				    (sbuf_eq(&e->name, "thread_name") && e->have_tid))) {
			if (add_name(im, e->pid, e->name.p[0] == 'p' ? -1 : e->tid, &e->arg_name) <
			    0)
				return fail_oom(im);
		}
		return 1; /* other metadata (sort indexes, labels): nothing to map */
	case 's':
	case 'f':
	case 't':
		im->stats->flows++; /* links already given by args.correlation */
		return 1;
	case 0: unmapped_s(im, "no_ph"); return 1;
	default: unmapped(im, e->cat.p ? e->cat.p : "", e->cat.n); return 1;
	}
}

static int on_device(struct importer *im)
{
	struct kdev *d = &im->dev;
	sqlite3_stmt *s = im->st[ST_DEVICE];
	size_t n;
	const char *name;

	if (!d->have_id || !dev_ok(d->id)) {
		unmapped_s(im, "device_without_id");
		return 1;
	}
	name = d->name.n ? clean_text(im, d->name.p, d->name.n, &n) : NULL;
	sqlite3_bind_int64(s, 1, d->id);
	if (name)
		sqlite3_bind_text(s, 2, name, (int)n, SQLITE_TRANSIENT);
	bind_opt(s, 3, d->have & 1, d->cc_major);
	bind_opt(s, 4, d->have & 2, d->cc_minor);
	bind_opt(s, 5, d->have & 4, d->sms);
	bind_opt(s, 6, d->have & 8, d->mem);
	bind_opt(s, 7, d->have & 16, d->max_threads);
	if (run(im, ST_DEVICE, "devices") < 0)
		return 0;
	im->stats->devices++;
	return 1;
}

/* ------------------------------------------------------------ yajl callbacks */

#define TOP(im) ((im)->stack[(im)->depth - 1])

static int push(struct importer *im, enum ctx c)
{
	if (im->depth == (int)(sizeof(im->stack) / sizeof(im->stack[0])))
		return fail_input(im, "nesting too deep%s%s", "", "");
	im->stack[im->depth++] = c;
	im->key[0] = '\0';
	return 1;
}

static int key_is(const struct importer *im, const char *k)
{
	return !im->key_long && !strcmp(im->key, k);
}

static const char *type_name(int t)
{
	static const char *const n[] = {"null",	    "a boolean", "a number",
					"a string", "an object", "an array"};
	return t >= 0 && t <= 5 ? n[t] : "?";
}

/* an event field of the wrong type: the event is named by its index */
static int wrong_type(struct importer *im, const char *what, int t)
{
	char where[128];

	if (is_hip(&im->ev))
		return rocm_trace(im);
	snprintf(where, sizeof(where), "traceEvents[%lld]: %s", (long long)im->stats->events, what);
	return fail_input(im, "%s is %s, not the type Kineto writes", where, type_name(t));
}

static int bad_number(struct importer *im, const char *what, int rc, const char *s, size_t n)
{
	char where[192], val[48];

	snprintf(val, sizeof(val), "%.*s%s", (int)(n > 32 ? 32 : n), s, n > 32 ? "..." : "");
	snprintf(where, sizeof(where), "traceEvents[%lld]: %s %s", (long long)im->stats->events,
		 what, val);
	return fail_input(
	    im, rc == NUM_RANGE ? "%s is out of range%s" : "%s is not a number gapscope can read%s",
	    where, im->depth && TOP(im) == C_DEV ? " (deviceProperties)" : "");
}

/* A scalar value: t 0 null, 1 boolean, 2 number, 3 string (s, n: its text). */
static int on_scalar(struct importer *im, int t, const char *s, size_t n)
{
	int64_t v;
	int rc, k;

	if (im->skip)
		return 1;
	switch (TOP(im)) {
	case C_ROOT:
		return fail_input(im, "not a Chrome trace: the JSON is %s, not an object%s",
				  type_name(t), "");
	case C_TOP:
		if (key_is(im, "traceEvents") || key_is(im, "deviceProperties")) {
			if (t == 0)
				return 1;
			return fail_input(im, "%s is %s, not an array", im->key, type_name(t));
		}
		if (t == 2 && n == 1 && s[0] == '1') {
			size_t i;
			for (i = 0; i < N_TORCH_OPTS; i++)
				if (key_is(im, torch_opt_keys[i]))
					im->torch_opts |= 1u << i;
		}
		if (t == 2 && key_is(im, "baseTimeNanoseconds")) {
			if (parse_id(s, n, &v) == NUM_OK && v >= 0) {
				im->base_ns = v;
				im->have_base = 1;
			}
		} else if ((t == 2 || t == 3) && n < 31) {
			char *dst = key_is(im, "cupti_version")		 ? im->cupti_version
				    : key_is(im, "cuda_driver_version")	 ? im->driver_version
				    : key_is(im, "cuda_runtime_version") ? im->runtime_version
									 : NULL;
			if (dst && utf8_ok((const unsigned char *)s, n)) {
				memcpy(dst, s, n);
				dst[n] = '\0';
			}
		}
		return 1;
	case C_EVENTS:
		im->stats->events++;
		unmapped_s(im, "not_an_object");
		return 1;
	case C_EVENT:
		if (t == 0)
			return 1;
		if (key_is(im, "ph") || key_is(im, "cat") || key_is(im, "name")) {
			if (t != 3)
				return wrong_type(im, im->key, t);
			if (im->key[0] == 'p')
				im->ev.ph = n ? s[0] : 0;
			else if (sbuf_set(im->key[0] == 'c' ? &im->ev.cat : &im->ev.name, s, n) < 0)
				return fail_oom(im);
			return 1;
		}
		if (key_is(im, "ts") || key_is(im, "dur")) {
			int64_t ns;
			if (t != 2)
				return wrong_type(im, im->key, t);
			rc = parse_us(s, n, &ns);
			if (rc != NUM_OK)
				return bad_number(im, im->key, rc, s, n);
			if (im->key[0] == 't')
				im->ev.ts = ns, im->ev.have_ts = 1;
			else
				im->ev.dur = ns, im->ev.have_dur = 1;
			return 1;
		}
		if (key_is(im, "pid") || key_is(im, "tid")) {
			/* Chrome allows names here ("Spans", "stream 7"): no
			 * number then. PyTorch 1.8-1.9 wrote host thread ids
			 * as strings of digits ("4093687616"): the number */
			size_t i;
			if (t == 3) {
				for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
					;
				if (!n || i < n || n > 19 || parse_id(s, n, &v) != NUM_OK)
					return 1;
				rc = NUM_OK;
			} else if (t != 2) {
				return 1;
			} else {
				rc = parse_id(s, n, &v);
			}
			if (rc != NUM_OK)
				return bad_number(im, im->key, rc, s, n);
			if (im->key[0] == 'p')
				im->ev.pid = v, im->ev.have_pid = 1;
			else
				im->ev.tid = v, im->ev.have_tid = 1;
		}
		return 1;
	case C_ARGS:
		if (t == 0)
			return 1;
		if (key_is(im, "name") || key_is(im, "cuda_sync_kind")) {
			if (t == 3 &&
			    sbuf_set(im->key[0] == 'n' ? &im->ev.arg_name : &im->ev.sync_kind, s,
				     n) < 0)
				return fail_oom(im);
			return 1;
		}
		for (k = 0; k < A_N; k++)
			if (key_is(im, arg_keys[k]))
				break;
		if (k == A_N)
			return 1;
		if (t != 2)
			return wrong_type(im, arg_keys[k], t);
		rc = parse_id(s, n, &v);
		if (rc != NUM_OK)
			return bad_number(im, arg_keys[k], rc, s, n);
		im->ev.a[k] = v;
		im->ev.have |= 1u << k;
		return 1;
	case C_DIM:
		if (t != 2)
			return wrong_type(im, im->dim_which ? "block" : "grid", t);
		rc = parse_id(s, n, &v);
		if (rc != NUM_OK)
			return bad_number(im, im->dim_which ? "block" : "grid", rc, s, n);
		if (im->dim_which == 0 && im->ev.ngrid < 3)
			im->ev.grid[im->ev.ngrid++] = v;
		else if (im->dim_which == 1 && im->ev.nblock < 3)
			im->ev.block[im->ev.nblock++] = v;
		return 1;
	case C_DEVS: return 1;
	case C_DIST:
		/* Kineto writes numbers and a string; anything else, or a
		 * negative or huge rank, is not taken (the trace gets no rank) */
		if (t == 2 && (key_is(im, "rank") || key_is(im, "world_size")) &&
		    parse_id(s, n, &v) == NUM_OK && v >= 0 && v <= INT32_MAX) {
			if (im->key[0] == 'r')
				im->rank = v, im->have_rank = 1;
			else
				im->world_size = v, im->have_world = 1;
		} else if (t == 3 && key_is(im, "backend") && n < sizeof(im->backend) &&
			   utf8_ok((const unsigned char *)s, n)) {
			memcpy(im->backend, s, n);
			im->backend[n] = '\0';
		}
		return 1;
	case C_DEV: {
		static const char *const keys[] = {"computeMajor", "computeMinor", "numSms",
						   "totalGlobalMem", "maxThreadsPerBlock"};
		struct kdev *d = &im->dev;
		if (key_is(im, "name")) {
			if (t == 3 && sbuf_set(&d->name, s, n) < 0)
				return fail_oom(im);
			return 1;
		}
		if (t != 2)
			return 1;
		if (key_is(im, "id")) {
			if (parse_id(s, n, &d->id) == NUM_OK)
				d->have_id = 1;
			return 1;
		}
		for (k = 0; k < 5; k++)
			if (key_is(im, keys[k]) && parse_id(s, n, &v) == NUM_OK) {
				int64_t *dst[] = {&d->cc_major, &d->cc_minor, &d->sms, &d->mem,
						  &d->max_threads};
				*dst[k] = v;
				d->have |= 1u << k;
			}
		return 1;
	}
	}
	return 1;
}

static int cb_null(void *ctx)
{
	return on_scalar(ctx, 0, "", 0);
}

static int cb_boolean(void *ctx, int b)
{
	return on_scalar(ctx, 1, b ? "true" : "false", b ? 4 : 5);
}

static int cb_number(void *ctx, const char *s, size_t n)
{
	return on_scalar(ctx, 2, s, n);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	return on_scalar(ctx, 3, (const char *)s, n);
}

static int cb_map_key(void *ctx, const unsigned char *s, size_t n)
{
	struct importer *im = ctx;

	if (im->skip)
		return 1;
	im->key_long = n >= sizeof(im->key);
	if (!im->key_long) {
		memcpy(im->key, s, n);
		im->key[n] = '\0';
		/* "a\u0000b" is not the key "a" */
		if (memchr(s, 0, n))
			im->key_long = 1;
	}
	return 1;
}

static int cb_start_map(void *ctx)
{
	struct importer *im = ctx;

	if (im->skip) {
		im->skip++;
		return 1;
	}
	switch (TOP(im)) {
	case C_ROOT: return push(im, C_TOP);
	case C_EVENTS: kev_reset(&im->ev); return push(im, C_EVENT);
	case C_EVENT:
		if (key_is(im, "args"))
			return push(im, C_ARGS);
		break;
	case C_DEVS:
		free(im->dev.name.p);
		memset(&im->dev, 0, sizeof(im->dev));
		return push(im, C_DEV);
	case C_TOP:
		if (key_is(im, "traceEvents") || key_is(im, "deviceProperties"))
			return fail_input(im, "%s is an object, not an array%s", im->key, "");
		if (key_is(im, "distributedInfo"))
			return push(im, C_DIST);
		break;
	default: break;
	}
	if (TOP(im) == C_ARGS) {
		int k;
		for (k = 0; k < A_N; k++)
			if (key_is(im, arg_keys[k]))
				return wrong_type(im, arg_keys[k], 4);
	}
	if (TOP(im) == C_EVENT && (key_is(im, "ts") || key_is(im, "dur") || key_is(im, "ph") ||
				   key_is(im, "name") || key_is(im, "cat")))
		return wrong_type(im, im->key, 4);
	if (TOP(im) == C_EVENTS)
		unmapped_s(im, "not_an_object");
	im->skip = 1;
	return 1;
}

static int cb_end_map(void *ctx)
{
	struct importer *im = ctx;
	enum ctx c;

	if (im->skip) {
		im->skip--;
		return 1;
	}
	c = TOP(im);
	im->depth--;
	im->key[0] = '\0';
	if (c == C_EVENT)
		return on_event(im);
	if (c == C_DEV)
		return on_device(im);
	return 1;
}

static int cb_start_array(void *ctx)
{
	struct importer *im = ctx;

	if (im->skip) {
		im->skip++;
		return 1;
	}
	switch (TOP(im)) {
	case C_ROOT: /* the JSON Array Format: a bare list of events */
		im->seen_events = 1;
		return push(im, C_EVENTS);
	case C_TOP:
		if (key_is(im, "traceEvents")) {
			im->seen_events = 1;
			return push(im, C_EVENTS);
		}
		if (key_is(im, "deviceProperties"))
			return push(im, C_DEVS);
		break;
	case C_ARGS:
		if (key_is(im, "grid") || key_is(im, "block")) {
			im->dim_which = im->key[0] == 'b';
			return push(im, C_DIM);
		}
		break;
	case C_EVENTS:
		im->stats->events++;
		unmapped_s(im, "not_an_object");
		break;
	case C_EVENT:
		if (key_is(im, "ts") || key_is(im, "dur") || key_is(im, "ph") ||
		    key_is(im, "name") || key_is(im, "cat"))
			return wrong_type(im, im->key, 5);
		break;
	default: break;
	}
	im->skip = 1;
	return 1;
}

static int cb_end_array(void *ctx)
{
	struct importer *im = ctx;

	if (im->skip) {
		im->skip--;
		return 1;
	}
	im->depth--;
	im->key[0] = '\0';
	return 1;
}

static const yajl_callbacks callbacks = {
    .yajl_null = cb_null,
    .yajl_boolean = cb_boolean,
    .yajl_number = cb_number,
    .yajl_string = cb_string,
    .yajl_start_map = cb_start_map,
    .yajl_map_key = cb_map_key,
    .yajl_end_map = cb_end_map,
    .yajl_start_array = cb_start_array,
    .yajl_end_array = cb_end_array,
};

/* ------------------------------------------------------------ finalize */

/* 2001-09-09 in Unix time, ns: times past it are taken for Unix times */
#define GS_UNIX_2001_NS 1000000000000000000LL

static int meta(struct importer *im, const char *key, const char *value)
{
	return import_out_meta(im->db, key, value) < 0 ? fail_db(im, "meta"), -1 : 0;
}

static int meta_int(struct importer *im, const char *key, int64_t v)
{
	return import_out_meta_int(im->db, key, v) < 0 ? fail_db(im, "meta"), -1 : 0;
}

/* processes, threads, meta, indexes, derived rows */
static int finish(struct importer *im, const char *version)
{
	struct import_stats *st = im->stats;
	char buf[256];
	size_t i, n;
	const char *txt;

	for (i = 0; i < im->n_host_pids; i++) {
		const char *name = NULL;
		size_t k;
		for (k = 0; k < im->n_names; k++)
			if (im->names[k].pid == im->host_pids[i] && im->names[k].tid == -1)
				name = im->names[k].name;
		sqlite3_bind_int64(im->st[ST_PROCESS], 1, im->host_pids[i]);
		if (name && (txt = clean_text(im, name, strlen(name), &n)))
			sqlite3_bind_text(im->st[ST_PROCESS], 2, txt, (int)n, SQLITE_TRANSIENT);
		if (run(im, ST_PROCESS, "processes") < 0)
			return -1;
	}
	/* thread names of host processes only: a GPU "thread" is a stream,
	 * whose number could be taken for a host thread id */
	for (i = 0; i < im->n_names; i++) {
		size_t k;
		int host = 0;
		if (im->names[i].tid < 0)
			continue;
		for (k = 0; k < im->n_host_pids; k++)
			host |= im->host_pids[k] == im->names[i].pid;
		if (!host ||
		    !(txt = clean_text(im, im->names[i].name, strlen(im->names[i].name), &n)))
			continue;
		sqlite3_bind_int64(im->st[ST_THREAD], 1, im->names[i].tid);
		sqlite3_bind_int64(im->st[ST_THREAD], 2, im->names[i].pid);
		sqlite3_bind_text(im->st[ST_THREAD], 3, txt, (int)n, SQLITE_TRANSIENT);
		if (run(im, ST_THREAD, "threads") < 0)
			return -1;
		st->threads++;
	}
	for (i = 0; i < im->n_open; i++)
		unmapped(im, im->open[i].cat.p ? im->open[i].cat.p : "", im->open[i].cat.n);

	snprintf(buf, sizeof(buf), "gapscope import %s", version ? version : "");
	if (meta(im, "source", "kineto") < 0 || meta(im, "collector_version", buf) < 0 ||
	    meta(im, "import.source_file", im->json_path) < 0 ||
	    meta_int(im, "import.events", st->events) < 0 ||
	    meta_int(im, "import.flow_events", st->flows) < 0 ||
	    meta_int(im, "import.repaired_strings", st->repaired) < 0)
		return -1;
	if (im->have_base && meta_int(im, "import.base_time_ns", im->base_ns) < 0)
		return -1;
	/* Kineto's clock is Unix time: ts is relative to baseTimeNanoseconds,
	 * or, without it, Unix time already (times after 2001, 1e18 ns). So
	 * the ranks of one job line up on it in `gapscope report A.db B.db`
	 * (HTA's two sampled A100 ranks: "times across traces are not
	 * aligned" before) */
	if ((im->have_base || (im->min_ns <= im->max_ns && im->min_ns >= GS_UNIX_2001_NS)) &&
	    meta_int(im, "realtime_offset_ns", im->have_base ? im->base_ns : 0) < 0)
		return -1;
	if (im->cupti_version[0] && meta(im, "cupti_version", im->cupti_version) < 0)
		return -1;
	if (im->driver_version[0] && meta(im, "cuda_driver_version", im->driver_version) < 0)
		return -1;
	if (im->runtime_version[0] && meta(im, "cuda_runtime_version", im->runtime_version) < 0)
		return -1;
	if (im->torch_opts) {
		char opts[96] = "";
		size_t k;
		for (k = 0; k < N_TORCH_OPTS; k++)
			if (im->torch_opts >> k & 1u)
				snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s",
					 opts[0] ? "," : "", torch_opt_keys[k]);
		if (meta(im, "import.torch_profiler_options", opts) < 0)
			return -1;
	}
	if (im->n_host_pids == 1 && meta_int(im, "pid", im->host_pids[0]) < 0)
		return -1;
	/* torch.distributed's rank (trace_format.h): the multi-trace report
	 * and `diff` of two sets name and pair the ranks by it (HTA's two
	 * sampled ranks were "pid 4037" and "pid ..." before) */
	if (im->have_rank &&
	    (meta_int(im, "rank", im->rank) < 0 || meta(im, "rank_source", "distributedInfo") < 0))
		return -1;
	if (im->have_rank && im->have_world && im->world_size > im->rank &&
	    meta_int(im, "world_size", im->world_size) < 0)
		return -1;
	if (im->backend[0] && meta(im, "distributed.backend", im->backend) < 0)
		return -1;
	if (im->min_ns <= im->max_ns &&
	    (meta_int(im, "start_ns", im->min_ns) < 0 || meta_int(im, "stop_ns", im->max_ns) < 0))
		return -1;
	for (i = 0; i <= IMPORT_MAX_CATS; i++) {
		if (i == st->n_unmapped && i < IMPORT_MAX_CATS)
			i = IMPORT_MAX_CATS;
		if (!st->unmapped[i].n)
			continue;
		snprintf(buf, sizeof(buf), "import.unmapped.%s", st->unmapped[i].cat);
		if (meta_int(im, buf, st->unmapped[i].n) < 0)
			return -1;
	}
	if (gs_schema_create_indexes(im->db) != 0)
		return fail_db(im, "building indexes"), -1;
	{
		struct import_derived d;
		const char *what;
		if (import_derive(im->db, &d, &what) < 0)
			return fail_db(im, what), -1;
		import_stats_add_derived(st, &d);
	}
	if (meta_int(im, "import.event_records_from_waits", st->event_records) < 0 ||
	    meta_int(im, "import.host_ops", st->host_ops) < 0)
		return -1;
	return meta(im, "finalized", "1");
}

/* ------------------------------------------------------------ the import */

/* the importer's statements, on the database import_out_open() made */
static int prepare(struct importer *im)
{
	int i;

	if (sqlite3_exec(im->db, "BEGIN;", NULL, NULL, NULL) != SQLITE_OK)
		return fail_db(im, "starting"), -1;
	for (i = 0; i < ST_N; i++)
		if (sqlite3_prepare_v3(im->db, st_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &im->st[i],
				       NULL) != SQLITE_OK)
			return fail_db(im, "preparing"), -1;
	return 0;
}

/* Read the JSON through yajl. Returns 0 or -1 (im->err set). */
static int parse(struct importer *im, int fd)
{
	enum { CHUNK = 1 << 20 };
	unsigned char *buf = NULL;
	gzFile gz;
	int64_t consumed = 0;
	int rc = -1, n;
	yajl_status ys;

	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return fail_oom(im), -1;
	}
	gzbuffer(gz, 1 << 18);
	buf = malloc(CHUNK);
	im->yh = yajl_alloc(&callbacks, NULL, im);
	if (!buf || !im->yh) {
		fail_oom(im);
		goto out;
	}
	/* strings are checked and repaired where they are stored: a trace
	 * with one bad byte in a kernel name is still a trace */
	yajl_config(im->yh, yajl_dont_validate_strings, 1);
	im->stack[0] = C_ROOT;
	im->depth = 1;
	while ((n = gzread(gz, buf, CHUNK)) > 0) {
		ys = yajl_parse(im->yh, buf, (size_t)n);
		if (ys != yajl_status_ok)
			goto parse_error;
		consumed += n;
	}
	if (n < 0) {
		int zerr;
		const char *m = gzerror(gz, &zerr);
		if (!im->failed)
			snprintf(im->err, sizeof(im->err), "cannot read: %s",
				 zerr == Z_ERRNO	? strerror(errno)
				 : zerr == Z_DATA_ERROR ? "damaged gzip data"
							: (m && *m ? m : "read error"));
		im->failed = 1;
		im->err_kind = KINETO_ERR_INPUT;
		goto out;
	}
	/* gzread() returns 0 at the end of a cut-short .gz too */
	{
		int zerr;
		const char *m = gzerror(gz, &zerr);
		if (zerr != Z_OK && zerr != Z_STREAM_END) {
			snprintf(im->err, sizeof(im->err), "truncated or damaged gzip data (%s)",
				 m && *m ? m : "zlib error");
			im->failed = 1;
			im->err_kind = KINETO_ERR_INPUT;
			goto out;
		}
	}
	if (consumed == 0) {
		snprintf(im->err, sizeof(im->err), "not a Chrome trace: the file is empty");
		im->failed = 1;
		im->err_kind = KINETO_ERR_INPUT;
		goto out;
	}
	ys = yajl_complete_parse(im->yh);
	if (ys != yajl_status_ok) {
		buf[0] = '\0';
		n = 0;
		goto parse_error;
	}
	if (!im->seen_events) {
		snprintf(im->err, sizeof(im->err),
			 "not a Chrome trace: no traceEvents array (is it a torch.profiler "
			 "export_chrome_trace file?)");
		im->failed = 1;
		im->err_kind = KINETO_ERR_INPUT;
		goto out;
	}
	rc = 0;
	goto out;
parse_error:
	if (!im->failed) {
		/* yajl's own message is "parse error: <what>\n" plus, when
		 * verbose, the text around: keep the first line, add where */
		unsigned char *m = yajl_get_error(im->yh, 0, buf, (size_t)n);
		char msg[200];
		size_t k;
		snprintf(msg, sizeof(msg), "%s", m ? (const char *)m : "parse error");
		for (k = 0; msg[k]; k++)
			if (msg[k] == '\n' || (unsigned char)msg[k] < 0x20)
				msg[k] = msg[k] == '\n' ? '\0' : ' ';
		if (m)
			yajl_free_error(im->yh, m);
		snprintf(im->err, sizeof(im->err), "not valid JSON (byte %lld): %s",
			 (long long)(consumed + (int64_t)yajl_get_bytes_consumed(im->yh)), msg);
		if (strstr(msg, "premature EOF"))
			snprintf(im->err, sizeof(im->err),
				 "truncated JSON: the file ends inside a value (byte %lld)",
				 (long long)consumed);
		im->failed = 1;
		im->err_kind = KINETO_ERR_INPUT;
	}
out:
	if (im->yh)
		yajl_free(im->yh);
	im->yh = NULL;
	free(buf);
	gzclose(gz);
	return rc;
}

static void importer_free(struct importer *im)
{
	size_t i;
	int k;

	for (k = 0; k < ST_N; k++)
		sqlite3_finalize(im->st[k]);
	if (im->db)
		sqlite3_close(im->db);
	kev_free(&im->ev);
	free(im->dev.name.p);
	for (i = 0; i < im->n_open; i++)
		kev_free(&im->open[i]);
	free(im->open);
	for (i = 0; i < im->tab_cap; i++)
		free(im->tab[i].s);
	free(im->tab);
	for (i = 0; i < im->n_names; i++)
		free(im->names[i].name);
	free(im->names);
	free(im->host_pids);
	free(im->fix.p);
}

int kineto_import(const char *json_path, const char *db_path, const char *version,
		  struct import_stats *st, char *err, size_t errlen)
{
	struct importer im;
	struct stat sb;
	struct import_out out;
	int fd, rc = KINETO_ERR_OUTPUT;

	memset(st, 0, sizeof(*st));
	memset(&im, 0, sizeof(im));
	im.json_path = json_path;
	im.stats = st;
	im.next_string = 1;
	im.min_ns = INT64_MAX;
	im.max_ns = INT64_MIN;

	/* only a regular file: a FIFO would block, a device never end */
	fd = open(json_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &sb) != 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return KINETO_ERR_INPUT;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s, not a trace file",
			 S_ISDIR(sb.st_mode)	? "is a directory"
			 : S_ISFIFO(sb.st_mode) ? "is a FIFO"
						: "is not a regular file");
		close(fd);
		return KINETO_ERR_INPUT;
	}
	rc = import_out_open(&out, db_path, err, errlen);
	if (rc != 0) {
		close(fd);
		import_out_close(&out);
		return rc;
	}
	im.db = out.db;
	rc = KINETO_ERR_OUTPUT;
	if (prepare(&im) < 0) {
		close(fd);
		goto out;
	}
	if (parse(&im, fd) < 0 || finish(&im, version) < 0 ||
	    import_out_too_long(&out, "trace", im.err, sizeof(im.err))) {
		/* a query stopped by the bound (the derivations run on the
		 * trace's rows): the input's doing, whatever the step made of
		 * its failure */
		if (import_out_too_long(&out, "trace", im.err, sizeof(im.err))) {
			im.failed = 1;
			im.err_kind = KINETO_ERR_INPUT;
		}
		goto out;
	}
	for (int k = 0; k < ST_N; k++) {
		sqlite3_finalize(im.st[k]);
		im.st[k] = NULL;
	}
	im.db = NULL; /* out's */
	if (import_out_commit(&out, im.err, sizeof(im.err)) != 0) {
		im.failed = 1;
		im.err_kind = KINETO_ERR_OUTPUT;
		goto out;
	}
	rc = 0;
out:
	if (rc != 0)
		rc = im.failed ? im.err_kind : KINETO_ERR_OUTPUT;
	if (rc != 0)
		snprintf(err, errlen, "%s", im.failed ? im.err : "import failed");
	im.db = NULL; /* out's: closed by import_out_close() */
	importer_free(&im);
	import_out_close(&out);
	return rc;
}
