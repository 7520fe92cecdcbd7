/*
 * schema.c - the SQL of trace schema v1 and helpers to create and check it.
 *
 * The one place where the table layout is written down in code; docs/schema.md
 * documents each column. The collector creates the tables at start and the
 * indexes at finalize; the viewer only checks the version and reads. Nothing
 * here depends on CUDA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gapscope/trace_format.h"

const char gs_schema_sql[] =
    /* key/value facts: schema_version, collector_version, command_line, pid,
     * hostname, start_ns, stop_ns, realtime_offset_ns, monotonic_offset_ns,
     * config.*, dropped_records, finalized, ... */
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    /* interned strings: kernel names, API names, NVTX texts, reasons */
    "CREATE TABLE IF NOT EXISTS strings (id INTEGER PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS devices (\n"
    "  id INTEGER PRIMARY KEY,        -- CUDA device ordinal\n"
    "  name TEXT, uuid TEXT,\n"
    "  cc_major INTEGER, cc_minor INTEGER,\n"
    "  sm_count INTEGER,\n"
    "  core_clock_khz INTEGER, memory_clock_khz INTEGER,\n"
    "  global_memory_bytes INTEGER,\n"
    "  l2_cache_bytes INTEGER,\n"
    "  max_threads_per_block INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS processes (\n"
    "  pid INTEGER PRIMARY KEY, hostname TEXT, command_line TEXT,\n"
    "  start_ns INTEGER, end_ns INTEGER, exit_reason TEXT);\n"
    "CREATE TABLE IF NOT EXISTS threads (tid INTEGER PRIMARY KEY, pid INTEGER, name TEXT);\n"
    /* The columns the report reads come first, graph_id and graph_node_id
     * among them: SQLite reaches a column by walking the row's header up
     * to it, and graph_id as the 18th column cost the report's loader a
     * third of its CPU time on kernel rows (docs/report.md, "Speed").
     * Readers and writers name their columns; the order is not part of
     * the format. */
    "CREATE TABLE IF NOT EXISTS kernels (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL,   -- ns\n"
    "  device INTEGER, context INTEGER, stream INTEGER,\n"
    "  correlation_id INTEGER,                 -- = api_calls.correlation_id of the launch\n"
    "  name_id INTEGER,                        -- strings.id (mangled name)\n"
    "  graph_id INTEGER,                       -- 0 unless launched from a graph\n"
    "  graph_node_id INTEGER,                  -- 0 unless launched from a graph\n"
    "  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,\n"
    "  block_x INTEGER, block_y INTEGER, block_z INTEGER,\n"
    "  registers INTEGER,                      -- per thread\n"
    "  static_shared_bytes INTEGER, dynamic_shared_bytes INTEGER,\n"
    "  local_memory_bytes INTEGER,             -- per thread\n"
    "  queued INTEGER, submitted INTEGER,      -- ns; NULL unless latency timestamps on\n"
    "  launch_type INTEGER,                    -- CUpti_ActivityLaunchType\n"
    "  is_device_launched INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS api_calls (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  api INTEGER NOT NULL,                   -- 1 runtime, 2 driver\n"
    "  cbid INTEGER,                           -- CUPTI callback id within that API\n"
    "  name_id INTEGER,                        -- strings.id, e.g. cudaLaunchKernel\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL,\n"
    "  pid INTEGER, tid INTEGER,\n"
    "  correlation_id INTEGER,\n"
    "  return_code INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS memcpys (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL,\n"
    "  device INTEGER, context INTEGER, stream INTEGER, correlation_id INTEGER,\n"
    "  bytes INTEGER, copy_kind INTEGER, src_kind INTEGER, dst_kind INTEGER,\n"
    "  is_async INTEGER,                       -- 1 for *Async API copies\n"
    "  src_device INTEGER, dst_device INTEGER, -- peer copies\n"
    "  graph_id INTEGER, graph_node_id INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS memsets (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL,\n"
    "  device INTEGER, context INTEGER, stream INTEGER, correlation_id INTEGER,\n"
    "  bytes INTEGER, value INTEGER, mem_kind INTEGER, is_async INTEGER,\n"
    "  graph_id INTEGER, graph_node_id INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS syncs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL, -- host time blocked (explicit) or call span "
    "(implicit)\n"
    "  kind INTEGER NOT NULL,                  -- enum gs_sync_kind\n"
    "  implicit INTEGER NOT NULL,              -- 0 explicit (CUPTI), 1 recognised by gapscope\n"
    "  reason_id INTEGER,                      -- strings.id, why it is implicit; NULL if "
    "explicit\n"
    "  api_name_id INTEGER,                    -- strings.id of the API call\n"
    "  device INTEGER, context INTEGER, stream INTEGER, event INTEGER,\n"
    "  correlation_id INTEGER, pid INTEGER, tid INTEGER);\n"
    /* one row per cudaEventRecord (CUPTI_ACTIVITY_KIND_CUDA_EVENT): ties a
     * stream-wait-event or event sync to the stream that recorded it */
    "CREATE TABLE IF NOT EXISTS events (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  event INTEGER,                          -- CUPTI event id (= syncs.event)\n"
    "  stream INTEGER, device INTEGER, context INTEGER, -- where it was recorded\n"
    "  correlation_id INTEGER,                 -- of the cudaEventRecord call\n"
    "  start INTEGER);                         -- ns, start of that call; NULL if not recorded\n"
    "CREATE TABLE IF NOT EXISTS nvtx (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL, -- end = start for marks\n"
    "  kind INTEGER NOT NULL,                  -- 0 range, 1 mark\n"
    "  text_id INTEGER, domain_id INTEGER,     -- strings.id\n"
    "  category INTEGER, color INTEGER,        -- color as 0xAARRGGBB, NULL if unset\n"
    "  pid INTEGER, tid INTEGER);\n"
    /* what host threads ran, as spans: imported torch.profiler operators
     * (cpu_op); the collector writes none */
    "CREATE TABLE IF NOT EXISTS host_ranges (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL, -- ns\n"
    "  name_id INTEGER,                        -- strings.id (\"aten::to\")\n"
    "  pid INTEGER, tid INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS graphs (\n"
    "  graph_id INTEGER PRIMARY KEY,           -- CUPTI graph id\n"
    "  original_graph_id INTEGER,              -- source of a clone, else NULL\n"
    "  device INTEGER, context INTEGER,\n"
    "  created INTEGER,                        -- ns\n"
    "  origin INTEGER);                        -- 0 created, 1 cloned, 2 stream capture\n"
    "CREATE TABLE IF NOT EXISTS graph_nodes (\n"
    "  node_id INTEGER PRIMARY KEY,            -- CUPTI graph node id\n"
    "  graph_id INTEGER NOT NULL,\n"
    "  type INTEGER,                           -- enum gs_graph_node_type (CUgraphNodeType)\n"
    "  name_id INTEGER,                        -- kernel function name (strings.id)\n"
    "  original_node_id INTEGER,               -- node it was cloned/instantiated from\n"
    "  child_graph_id INTEGER,                 -- for child-graph nodes\n"
    "  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,\n"
    "  block_x INTEGER, block_y INTEGER, block_z INTEGER,\n"
    "  bytes INTEGER,                          -- memcpy/memset size\n"
    "  created INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS graph_edges (\n"
    "  graph_id INTEGER NOT NULL, from_node INTEGER NOT NULL, to_node INTEGER NOT NULL,\n"
    "  PRIMARY KEY (from_node, to_node));\n"
    "CREATE TABLE IF NOT EXISTS graph_execs (\n"
    "  exec_id INTEGER PRIMARY KEY,            -- CUPTI graph id of the executable graph\n"
    "  graph_id INTEGER,                       -- graph it was instantiated from\n"
    "  device INTEGER, created INTEGER);\n"
    "CREATE TABLE IF NOT EXISTS graph_launches (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  exec_id INTEGER, stream INTEGER,\n"
    "  correlation_id INTEGER,                 -- shared by all kernels of this launch\n"
    "  start INTEGER, end INTEGER,             -- the launch API call\n"
    "  tid INTEGER);\n"
    /* v2: one row per graph launch recorded in graph-level mode
     * (CUPTI_ACTIVITY_KIND_GRAPH_TRACE): the graph's run on the GPU, with no
     * kernels rows for its nodes */
    "CREATE TABLE IF NOT EXISTS graph_runs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  start INTEGER NOT NULL, end INTEGER NOT NULL, -- ns, first node start .. last node end\n"
    "  device INTEGER, context INTEGER, stream INTEGER,\n"
    "  graph_id INTEGER,                       -- CUPTI id of the graph (graph_execs.exec_id)\n"
    "  correlation_id INTEGER);                -- the launch call's (api_calls)\n"
    /* v2: call sites (collector/callsite.c): one set of frame rows per
     * distinct stack, one api_stacks row per captured call */
    "CREATE TABLE IF NOT EXISTS stack_frames (\n"
    "  stack_id INTEGER NOT NULL,              -- api_stacks.stack_id\n"
    "  depth INTEGER NOT NULL,                 -- 0 innermost, per kind\n"
    "  kind INTEGER NOT NULL,                  -- 1 native, 2 Python\n"
    "  module_id INTEGER,                      -- native: module path (strings.id)\n"
    "  offset INTEGER,                         -- native: return address - module base\n"
    "  symbol_id INTEGER,                      -- native: nearest exported symbol\n"
    "  file_id INTEGER,                        -- Python: co_filename (strings.id)\n"
    "  line INTEGER,                           -- Python: line number\n"
    "  function_id INTEGER,                    -- Python: co_name (strings.id)\n"
    "  PRIMARY KEY (stack_id, kind, depth));\n"
    "CREATE TABLE IF NOT EXISTS api_stacks (\n"
    "  correlation_id INTEGER NOT NULL,        -- api_calls / syncs correlation_id\n"
    "  stack_id INTEGER NOT NULL,              -- stack_frames.stack_id\n"
    "  tid INTEGER,                            -- calling thread\n"
    "  reason INTEGER,                         -- 1 blocking call, 2 slow async copy, 3 late "
    "launch\n"
    "  capture_start INTEGER,                  -- ns: the collector's capture in the call's\n"
    "  capture_end INTEGER);                   -- callback (NULL: not timed, older traces)\n"
    /* added to v2 on 2026-12-07 (an older viewer ignores it): samples of the
     * threads that make CUDA calls, taken by a timer on each thread's CPU
     * time (collector/sampler.c); their frames are stack_frames rows */
    "CREATE TABLE IF NOT EXISTS samples (\n"
    "  tid INTEGER NOT NULL,                   -- sampled thread (api_calls.tid)\n"
    "  t INTEGER NOT NULL,                     -- ns: when the sample was taken\n"
    "  stack_id INTEGER);                      -- stack_frames.stack_id, NULL: no frame read\n"
    /* added to v2 on 2026-12-07 (an older viewer ignores it): the
     * sampler's off-CPU samples: every drain period (10 ms) a sampled
     * Python thread that is not running has its frames read by the
     * sampler's thread; the row stands for the wall time the thread spent
     * off CPU since the previous look */
    "CREATE TABLE IF NOT EXISTS wait_samples (\n"
    "  tid INTEGER NOT NULL,                   -- sampled thread (api_calls.tid)\n"
    "  t INTEGER NOT NULL,                     -- ns: when the thread was seen off CPU\n"
    "  ns INTEGER NOT NULL,                    -- ns the sample stands for: the period up to t\n"
    "  stack_id INTEGER);                      -- stack_frames.stack_id, NULL: no frame read\n"
    "CREATE TABLE IF NOT EXISTS graph_node_updates (\n"
    "  time INTEGER NOT NULL,                  -- ns, when the call changed the node\n"
    "  kind INTEGER NOT NULL,                  -- 1 node updated, 2 parameters set in an exec\n"
    "  node_id INTEGER,                        -- graph_nodes.node_id\n"
    "  graph_id INTEGER, exec_id INTEGER);     -- NULL when CUPTI gave none\n"
    /* v3: the spans recorded when only the program's cudaProfilerStart ..
     * cudaProfilerStop spans are (meta capture_range); outside them nothing
     * is recorded and nothing may be read as idle GPU */
    "CREATE TABLE IF NOT EXISTS capture_windows (\n"
    "  start INTEGER NOT NULL,                 -- ns: tracing switched on (cudaProfilerStart\n"
    "                                          -- returned)\n"
    "  end INTEGER NOT NULL);                  -- ns: switched off (cudaProfilerStop called),\n"
    "                                          -- or the recording's end if it never was\n"
    "CREATE TABLE IF NOT EXISTS overhead (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  kind INTEGER,                           -- CUpti_ActivityOverheadKind\n"
    "  start INTEGER, end INTEGER,\n"
    "  object_kind INTEGER, object_id INTEGER);\n";

const char gs_schema_index_sql[] =
    "CREATE INDEX IF NOT EXISTS kernels_start ON kernels(device, start);\n"
    "CREATE INDEX IF NOT EXISTS kernels_corr ON kernels(correlation_id);\n"
    "CREATE INDEX IF NOT EXISTS api_calls_corr ON api_calls(correlation_id);\n"
    "CREATE INDEX IF NOT EXISTS api_calls_start ON api_calls(tid, start);\n"
    "CREATE INDEX IF NOT EXISTS memcpys_start ON memcpys(device, start);\n"
    "CREATE INDEX IF NOT EXISTS memsets_start ON memsets(device, start);\n"
    "CREATE INDEX IF NOT EXISTS syncs_start ON syncs(tid, start);\n"
    "CREATE INDEX IF NOT EXISTS events_event ON events(event, start);\n"
    "CREATE INDEX IF NOT EXISTS nvtx_start ON nvtx(start);\n"
    "CREATE INDEX IF NOT EXISTS host_ranges_start ON host_ranges(tid, start);\n"
    "CREATE INDEX IF NOT EXISTS graph_runs_start ON graph_runs(device, start);\n"
    "CREATE INDEX IF NOT EXISTS api_stacks_corr ON api_stacks(correlation_id);\n"
    "CREATE INDEX IF NOT EXISTS samples_tid ON samples(tid, t);\n"
    "CREATE INDEX IF NOT EXISTS wait_samples_tid ON wait_samples(tid, t);\n"
    "CREATE INDEX IF NOT EXISTS graph_nodes_graph ON graph_nodes(graph_id);\n"
    "CREATE INDEX IF NOT EXISTS graph_edges_graph ON graph_edges(graph_id);\n";

/* API calls that synchronise the device whatever their arguments: the
 * collector marks them as implicit syncs (syncs.kind, reason) and
 * `gapscope import` does the same for other tools' traces. */
static const struct gs_implicit_api implicit_apis[] = {
    {"cudaMalloc", GS_SYNC_IMPLICIT_ALLOC,
     "cudaMalloc in steady state (after the first kernel launch)"},
    {"cudaMallocPitch", GS_SYNC_IMPLICIT_ALLOC,
     "cudaMallocPitch in steady state (after the first kernel launch)"},
    {"cudaMallocHost", GS_SYNC_IMPLICIT_ALLOC,
     "cudaMallocHost (pinned allocation) in steady state synchronizes the device"},
    {"cudaHostAlloc", GS_SYNC_IMPLICIT_ALLOC,
     "cudaHostAlloc (pinned allocation) in steady state synchronizes the device"},
    {"cudaFree", GS_SYNC_IMPLICIT_ALLOC, "cudaFree synchronizes the device"},
    {"cudaFreeHost", GS_SYNC_IMPLICIT_ALLOC, "cudaFreeHost synchronizes the device"},
    {"cuMemAlloc", GS_SYNC_IMPLICIT_ALLOC,
     "cuMemAlloc in steady state (after the first kernel launch)"},
    {"cuMemAllocPitch", GS_SYNC_IMPLICIT_ALLOC,
     "cuMemAllocPitch in steady state (after the first kernel launch)"},
    {"cuMemAllocHost", GS_SYNC_IMPLICIT_ALLOC,
     "cuMemAllocHost (pinned allocation) in steady state synchronizes the device"},
    {"cuMemHostAlloc", GS_SYNC_IMPLICIT_ALLOC,
     "cuMemHostAlloc (pinned allocation) in steady state synchronizes the device"},
    {"cuMemFree", GS_SYNC_IMPLICIT_ALLOC, "cuMemFree synchronizes the device"},
    {"cuMemFreeHost", GS_SYNC_IMPLICIT_ALLOC, "cuMemFreeHost synchronizes the device"},
    {"cudaDeviceSetLimit", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cudaDeviceSetLimit is device-wide: it waits for all work on the device"},
    {"cudaDeviceSetCacheConfig", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cudaDeviceSetCacheConfig is device-wide: it waits for all work on the device"},
    {"cudaDeviceSetSharedMemConfig", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cudaDeviceSetSharedMemConfig is device-wide: it waits for all work on the device"},
    {"cudaHostRegister", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cudaHostRegister is device-wide: it waits for all work on the device"},
    {"cudaHostUnregister", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cudaHostUnregister is device-wide: it waits for all work on the device"},
    {"cuCtxSetLimit", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cuCtxSetLimit is device-wide: it waits for all work on the device"},
    {"cuCtxSetCacheConfig", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cuCtxSetCacheConfig is device-wide: it waits for all work on the device"},
    {"cuMemHostRegister", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cuMemHostRegister is device-wide: it waits for all work on the device"},
    {"cuMemHostUnregister", GS_SYNC_IMPLICIT_DEVICE_WIDE,
     "cuMemHostUnregister is device-wide: it waits for all work on the device"},
};

/* The API call of an op or sync row x (its correlation id): the runtime
 * call when both the runtime and the driver call are recorded (they share
 * the id). SQL, the row's alias in %s. */
#define ONE_API_OF                                                                                 \
	"(SELECT b.id FROM api_calls b WHERE b.correlation_id = %s.correlation_id"                 \
	" ORDER BY b.api LIMIT 1)"

int gs_derive_copy_syncs(sqlite3 *db, int64_t r_memcpy, int64_t r_pageable, int64_t r_memset)
{
	char sql[2048], one_m[160];
	int rc;

	snprintf(one_m, sizeof(one_m), ONE_API_OF, "m");
	/* synchronous copies (not device-to-device: those do not block the
	 * host), and async copies touching pageable memory; graph nodes never
	 * block the host */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO syncs(start, end, kind, implicit, reason_id, api_name_id, device,"
		 " context, stream, correlation_id, pid, tid)"
		 " SELECT a.start, a.end, CASE WHEN m.is_async THEN %d ELSE %d END, 1,"
		 " CASE WHEN m.is_async THEN %lld ELSE %lld END,"
		 " a.name_id, m.device, m.context, m.stream, m.correlation_id, a.pid, a.tid"
		 " FROM memcpys m JOIN api_calls a ON a.id = %s"
		 " WHERE m.graph_id = 0 AND m.copy_kind <> %d"
		 " AND (m.is_async = 0 OR m.src_kind = %d OR m.dst_kind = %d)"
		 " ORDER BY a.start;",
		 GS_SYNC_IMPLICIT_PAGEABLE, GS_SYNC_IMPLICIT_MEMCPY, (long long)r_pageable,
		 (long long)r_memcpy, one_m, GS_COPY_DTOD, GS_MEM_PAGEABLE, GS_MEM_PAGEABLE);
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	/* synchronous memsets of host-visible memory */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO syncs(start, end, kind, implicit, reason_id, api_name_id, device,"
		 " context, stream, correlation_id, pid, tid)"
		 " SELECT a.start, a.end, %d, 1, %lld, a.name_id, m.device, m.context,"
		 " m.stream, m.correlation_id, a.pid, a.tid"
		 " FROM memsets m JOIN api_calls a ON a.id = %s"
		 " WHERE m.graph_id = 0 AND m.is_async = 0 AND m.mem_kind IN (%d, %d, %d)"
		 " ORDER BY a.start;",
		 GS_SYNC_IMPLICIT_MEMSET, (long long)r_memset, one_m, GS_MEM_PAGEABLE,
		 GS_MEM_PINNED, GS_MEM_MANAGED);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

int gs_derive_api_tables(sqlite3 *db)
{
	return sqlite3_exec(
	    db,
	    "CREATE TEMP TABLE implicit_api(name_id INTEGER PRIMARY KEY, kind INTEGER,"
	    " reason_id INTEGER);",
	    NULL, NULL, NULL);
}

int gs_derive_api_syncs(sqlite3 *db)
{
	char sql[1024];

	/* Allocation calls count only in steady state: after the first kernel
	 * launch (start-up allocations are expected and harmless). A driver
	 * call nested in a recorded runtime call (same correlation id) is the
	 * same event: keep the runtime one. */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO syncs(start, end, kind, implicit, reason_id, api_name_id,"
		 " correlation_id, pid, tid)"
		 " SELECT a.start, a.end, i.kind, 1, i.reason_id, a.name_id, a.correlation_id,"
		 " a.pid, a.tid FROM api_calls a JOIN temp.implicit_api i ON i.name_id = a.name_id"
		 " WHERE (i.kind <> %d OR a.start > COALESCE((SELECT MIN(b.start) FROM kernels k"
		 "   JOIN api_calls b ON b.correlation_id = k.correlation_id), %lld))"
		 " AND NOT (a.api = %d AND EXISTS (SELECT 1 FROM api_calls r"
		 "   WHERE r.correlation_id = a.correlation_id AND r.api = %d))"
		 " ORDER BY a.start;",
		 GS_SYNC_IMPLICIT_ALLOC, (long long)INT64_MAX, GS_API_DRIVER, GS_API_RUNTIME);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/*
 * Kind 21: an operation X on a context's legacy default (NULL) stream
 * cannot start before the work already issued to the context's other
 * blocking streams has finished (and later work there waits for X). A
 * launch is flagged when some operation Y of another blocking stream of the
 * same context was still running when X's API call began (Y.end >
 * call.start) and had started before X (Y.start < X.start: with legacy
 * semantics Y issued after X would start after X's end). The stream of X is
 * known to be the legacy one from the caller's temp.legacy (CUPTI's context
 * record: nullStreamId); streams created non-blocking (temp.nonblocking)
 * are not waited for. Per-thread default streams have their own stream id,
 * so work sent there is not flagged. One row per API call; graph launches
 * are left out (a graph's nodes are ordered by the graph, not by the
 * stream rules).
 *
 * The search for Y uses the (device, start) indexes: Y.start lies in
 * (call.start - longest op on that device, X.start).
 */
int gs_derive_legacy_tables(sqlite3 *db)
{
	return sqlite3_exec(db,
			    "CREATE TEMP TABLE legacy(context INTEGER PRIMARY KEY, stream INTEGER);"
			    "CREATE TEMP TABLE nonblocking(context INTEGER, stream INTEGER,"
			    " PRIMARY KEY(context, stream));",
			    NULL, NULL, NULL);
}

int gs_derive_legacy_stream(sqlite3 *db, int64_t reason_id)
{
	char sql[6144], y[3][900];
	static const char *const tables[3] = {"kernels", "memcpys", "memsets"};
	size_t i;
	int rc;

	rc = sqlite3_exec(db,
			  "CREATE TEMP TABLE op_max(device INTEGER PRIMARY KEY, dur INTEGER);"
			  "INSERT INTO temp.op_max SELECT device, MAX(dur) FROM ("
			  " SELECT device, MAX(end - start) AS dur FROM kernels GROUP BY device"
			  " UNION ALL SELECT device, MAX(end - start) FROM memcpys GROUP BY device"
			  " UNION ALL SELECT device, MAX(end - start) FROM memsets GROUP BY device)"
			  " GROUP BY device;",
			  NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return rc;
	for (i = 0; i < 3; i++)
		snprintf(y[i], sizeof(y[i]),
			 "EXISTS (SELECT 1 FROM %s y WHERE y.device = x.device"
			 " AND y.start < x.start"
			 " AND y.start >= a.start - (SELECT dur FROM temp.op_max o"
			 "  WHERE o.device = x.device)"
			 " AND y.end > a.start AND y.context = x.context AND y.stream <> x.stream"
			 " AND NOT EXISTS (SELECT 1 FROM temp.nonblocking n"
			 "  WHERE n.context = y.context AND n.stream = y.stream))",
			 tables[i]);
	/* one API call per correlation id: the runtime call when both the
	 * runtime and the driver call are recorded (they share the id) */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO syncs(start, end, kind, implicit, reason_id, api_name_id, device,"
		 " context, stream, correlation_id, pid, tid)"
		 " SELECT a.start, a.end, %d, 1, %lld, a.name_id, x.device, x.context,"
		 " x.stream, x.correlation_id, a.pid, a.tid FROM ("
		 "  SELECT device, context, stream, correlation_id, start FROM kernels"
		 "   WHERE graph_id = 0"
		 "  UNION ALL SELECT device, context, stream, correlation_id, start FROM memcpys"
		 "   WHERE graph_id = 0"
		 "  UNION ALL SELECT device, context, stream, correlation_id, start FROM memsets"
		 "   WHERE graph_id = 0) x"
		 " JOIN temp.legacy l ON l.context = x.context AND l.stream = x.stream"
		 " JOIN api_calls a ON a.id = (SELECT b.id FROM api_calls b"
		 "  WHERE b.correlation_id = x.correlation_id ORDER BY b.api LIMIT 1)"
		 " WHERE %s OR %s OR %s"
		 " GROUP BY a.id ORDER BY a.start;",
		 GS_SYNC_IMPLICIT_LEGACY_STREAM, (long long)reason_id, y[0], y[1], y[2]);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

size_t gs_api_plain_len(const char *name)
{
	const char *v = strrchr(name, '_');

	if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9' &&
	    strspn(v + 2, "0123456789") == strlen(v + 2))
		return (size_t)(v - name);
	return strlen(name);
}

const struct gs_implicit_api *gs_implicit_apis(size_t *n)
{
	*n = sizeof(implicit_apis) / sizeof(implicit_apis[0]);
	return implicit_apis;
}

int gs_schema_table_optional(const char *name)
{
	static const char *const optional[] = {
	    "events",	       "graph_node_updates",		   /* added to v1 */
	    "graph_runs",      "stack_frames",	     "api_stacks", /* v2 */
	    "host_ranges",	"samples",	     "wait_samples", /* added to v2 */
	    "capture_windows",					   /* v3 */
	};
	size_t i;

	for (i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (!strcmp(name, optional[i]))
			return 1;
	return 0;
}

int gs_schema_column_optional(const char *table, const char *col)
{
	/* call-site capture times, added to v2 on 2026-12-03 */
	return !strcmp(table, "api_stacks") &&
	       (!strcmp(col, "capture_start") || !strcmp(col, "capture_end"));
}

int gs_schema_create(sqlite3 *db)
{
	char sql[128];
	int rc;

	rc = sqlite3_exec(db, gs_schema_sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return -rc;
	snprintf(sql, sizeof(sql),
		 "PRAGMA application_id=%d;"
		 "INSERT OR REPLACE INTO meta VALUES('schema_version','%d');",
		 GS_SQLITE_APPLICATION_ID, GS_SCHEMA_VERSION_PLAIN);
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : -rc;
}

int gs_schema_create_indexes(sqlite3 *db)
{
	int rc = sqlite3_exec(db, gs_schema_index_sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : -rc;
}

int gs_schema_read_version(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	int rc, version;

	rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='schema_version'", -1,
				&st, NULL);
	if (rc != SQLITE_OK) {
		/* "no such table" means a valid SQLite file that is not ours;
		 * anything else (SQLITE_NOTADB, SQLITE_CORRUPT) is damage. */
		int ext = sqlite3_errcode(db);
		if (ext == SQLITE_ERROR && strstr(sqlite3_errmsg(db), "no such table"))
			return GS_SCHEMA_ERR_NOT_GAPSCOPE;
		return GS_SCHEMA_ERR_CORRUPT;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		char *end = NULL;
		long l = v ? strtol(v, &end, 10) : 0;
		version = (v && end != v && *end == '\0' && l > 0 && l < 1000000)
				  ? (int)l
				  : GS_SCHEMA_ERR_CORRUPT;
	} else if (rc == SQLITE_DONE) {
		version = GS_SCHEMA_ERR_NOT_GAPSCOPE;
	} else {
		version = GS_SCHEMA_ERR_CORRUPT;
	}
	sqlite3_finalize(st);
	return version;
}

const char *gs_sync_kind_name(int kind)
{
	switch (kind) {
	case GS_SYNC_EVENT: return "event synchronize";
	case GS_SYNC_STREAM_WAIT_EVENT: return "stream wait event";
	case GS_SYNC_STREAM: return "stream synchronize";
	case GS_SYNC_CONTEXT: return "device synchronize";
	case GS_SYNC_IMPLICIT_MEMCPY: return "synchronous memcpy";
	case GS_SYNC_IMPLICIT_PAGEABLE: return "async copy with pageable memory";
	case GS_SYNC_IMPLICIT_MEMSET: return "memset on host-visible memory";
	case GS_SYNC_IMPLICIT_ALLOC: return "malloc/free in steady state";
	case GS_SYNC_IMPLICIT_DEVICE_WIDE: return "device-wide call";
	case GS_SYNC_IMPLICIT_LEGACY_STREAM: return "legacy default stream";
	default: return "unknown";
	}
}

const char *gs_copy_kind_name(int kind)
{
	static const char *const names[] = { "unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					     "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP" };
	return kind >= 0 && kind <= GS_COPY_PTOP ? names[kind] : "unknown";
}

const char *gs_mem_kind_name(int kind)
{
	static const char *const names[] = { "unknown", "pageable", "pinned",        "device",
					     "array",   "managed",  "device static", "managed static" };
	return kind >= 0 && kind <= GS_MEM_MANAGED_STATIC ? names[kind] : "unknown";
}

const char *gs_graph_node_type_name(int type)
{
	static const char *const names[] = {
		"kernel", "memcpy",      "memset",     "host",   "graph",    "empty",       "wait event",
		"event record", "ext sema signal", "ext sema wait", "mem alloc", "mem free",
		"batch mem op", "conditional"
	};
	return type >= 0 && type <= GS_NODE_CONDITIONAL ? names[type] : "unknown";
}

int gs_trace_alt_path(const char *path, const char *tag, char *out, size_t outlen)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t stem;
	int n;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
	n = snprintf(out, outlen, "%.*s-%s%s", (int)stem, path, tag, path + stem);
	return n >= 0 && (size_t)n < outlen ? 0 : -1;
}
