/*
 * writer_finalize.c - the end of a recording (gs_writer_finalize): the rows
 * derived from what was recorded (implicit synchronisations, API columns of
 * CUPTI's sync records, the legacy default stream), the indexes (created
 * after the bulk load, DESIGN.md), the last meta rows and the switch back to
 * a single-file DELETE journal. Calls down into writer.c and writer_rows.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer_int.h"

/* ---------------------------------------------------------------- finalize */

/* Kind 21 (gs_derive_legacy_stream, collector/schema.c): the contexts'
 * NULL streams (CUPTI's context records) and the non-blocking streams
 * (stream records) seen while recording. */
static int derive_legacy_stream(struct gs_writer *w)
{
	char sql[160];
	int64_t rid;
	size_t i;

	if (w->nulls_n == 0)
		return 0;
	if (gs_derive_legacy_tables(w->db) != 0)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (legacy stream)"),
		       -1;
	for (i = 0; i < w->nulls_n; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT OR REPLACE INTO temp.legacy VALUES(%" PRIu32 ", %" PRIu32 ");",
			 w->nulls[i].context, w->nulls[i].stream);
		if (exec(w, sql, "deriving implicit syncs (legacy stream)") != 0)
			return -1;
	}
	for (i = 0; i < w->nb_n; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO temp.nonblocking VALUES(%" PRIu32 ", %" PRIu32 ");",
			 w->nonblocking[i].context, w->nonblocking[i].stream);
		if (exec(w, sql, "deriving implicit syncs (legacy stream)") != 0)
			return -1;
	}
	rid = gs_writer_intern(w, GS_REASON_LEGACY_STREAM);
	if (w->failed)
		return -1;
	if (gs_derive_legacy_stream(w->db, rid) != 0)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (legacy stream)"),
		       -1;
	return 0;
}

static int derive_rows(struct gs_writer *w)
{
	char sql[4096];
	int64_t r_memcpy, r_pageable, r_memset;
	size_t i;
	/* One API call per correlation id: the runtime call when both the
	 * runtime and the driver call are recorded (they share the id). */
	static const char one_api[] =
	    "(SELECT b.id FROM api_calls b WHERE "
	    "b.correlation_id = %s.correlation_id ORDER BY b.api LIMIT 1)";
	char one_s[256], one_g[256], one_e[256];

	r_memcpy = gs_writer_intern(w, GS_REASON_SYNC_MEMCPY);
	r_pageable = gs_writer_intern(w, GS_REASON_PAGEABLE);
	r_memset = gs_writer_intern(w, GS_REASON_MEMSET);
	if (w->failed)
		return -1;
	snprintf(one_s, sizeof(one_s), one_api, "syncs");
	snprintf(one_g, sizeof(one_g), one_api, "graph_launches");
	snprintf(one_e, sizeof(one_e), one_api, "events");

	/* CUPTI's sync records carry the correlation id but not the thread or
	 * the API name, and a context but not a device. */
	snprintf(
	    sql, sizeof(sql),
	    "CREATE TEMP TABLE ctx_dev AS SELECT context, MIN(device) AS device FROM ("
	    " SELECT context, device FROM kernels UNION SELECT context, device FROM memcpys"
	    " UNION SELECT context, device FROM memsets) GROUP BY context;"
	    "UPDATE syncs SET"
	    " api_name_id = COALESCE(api_name_id, (SELECT name_id FROM api_calls WHERE id = %s)),"
	    " pid = COALESCE(pid, (SELECT pid FROM api_calls WHERE id = %s)),"
	    " tid = COALESCE(tid, (SELECT tid FROM api_calls WHERE id = %s)),"
	    " device = COALESCE(device, (SELECT device FROM temp.ctx_dev c"
	    "   WHERE c.context = syncs.context))"
	    " WHERE implicit = 0;",
	    one_s, one_s, one_s);
	if (exec(w, sql, "completing sync rows") != 0)
		return -1;

	/* CUPTI's event records carry no host time: take the record call's
	 * (rows made from callbacks have their own, kept without the call). */
	snprintf(sql, sizeof(sql),
		 "UPDATE events SET start = COALESCE((SELECT start FROM api_calls WHERE id = %s), "
		 "start);",
		 one_e);
	if (exec(w, sql, "completing CUDA event records") != 0)
		return -1;

	snprintf(sql, sizeof(sql),
		 "UPDATE graph_launches SET"
		 " start = (SELECT start FROM api_calls WHERE id = %s),"
		 " end = (SELECT end FROM api_calls WHERE id = %s),"
		 " tid = COALESCE(tid, (SELECT tid FROM api_calls WHERE id = %s));",
		 one_g, one_g, one_g);
	if (exec(w, sql, "completing graph launches") != 0)
		return -1;

	/* Graph nodes: CUPTI's node callbacks give ids and types only. The
	 * kernel name and launch configuration (and memcpy/memset sizes) come
	 * from the activity records of launched nodes, which carry the id of
	 * the *instantiated* node; clones point back at the node the user
	 * built (original_node_id), which gets the same facts. No driver call
	 * is made from inside CUPTI's callbacks for this. */
	if (exec(
		w,
		"CREATE TEMP TABLE node_facts AS SELECT node, MIN(name_id) AS name_id,"
		" MIN(gx) AS gx, MIN(gy) AS gy, MIN(gz) AS gz, MIN(bx) AS bx, MIN(by) AS by,"
		" MIN(bz) AS bz, MIN(bytes) AS bytes FROM ("
		"  SELECT graph_node_id AS node, name_id, grid_x AS gx, grid_y AS gy, grid_z AS gz,"
		"   block_x AS bx, block_y AS by, block_z AS bz, NULL AS bytes FROM kernels"
		"   WHERE graph_node_id <> 0"
		"  UNION ALL SELECT graph_node_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, bytes"
		"   FROM memcpys WHERE graph_node_id <> 0"
		"  UNION ALL SELECT graph_node_id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, bytes"
		"   FROM memsets WHERE graph_node_id <> 0) GROUP BY node;"
		"CREATE TEMP TABLE node_src AS"
		" SELECT n.node_id AS node_id, f.* FROM graph_nodes n JOIN temp.node_facts f"
		"  ON f.node = n.node_id"
		" UNION ALL SELECT n.original_node_id, f.* FROM graph_nodes n JOIN temp.node_facts "
		"f"
		"  ON f.node = n.node_id WHERE n.original_node_id IS NOT NULL;"
		"UPDATE graph_nodes SET"
		" name_id = COALESCE(name_id, (SELECT MIN(name_id) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" grid_x = COALESCE(grid_x, (SELECT MIN(gx) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" grid_y = COALESCE(grid_y, (SELECT MIN(gy) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" grid_z = COALESCE(grid_z, (SELECT MIN(gz) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" block_x = COALESCE(block_x, (SELECT MIN(bx) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" block_y = COALESCE(block_y, (SELECT MIN(by) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" block_z = COALESCE(block_z, (SELECT MIN(bz) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id)),"
		" bytes = COALESCE(bytes, (SELECT MIN(bytes) FROM temp.node_src s"
		"  WHERE s.node_id = graph_nodes.node_id))"
		" WHERE node_id IN (SELECT node_id FROM temp.node_src);",
		"completing graph nodes") != 0)
		return -1;

	/* implicit syncs of copies and memsets (collector/schema.c, shared
	 * with `gapscope import`) */
	if (gs_derive_copy_syncs(w->db, r_memcpy, r_pageable, r_memset) != SQLITE_OK)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (copies)"), -1;

	if (derive_legacy_stream(w) != 0)
		return -1;

	if (w->impl_n == 0)
		return 0;
	if (gs_derive_api_tables(w->db) != SQLITE_OK)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs"), -1;
	for (i = 0; i < w->impl_n; i++) {
		int64_t rid = gs_writer_intern(w, w->impl[i].reason);
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO temp.implicit_api VALUES(%" PRId64 ", %d, %" PRId64
			 ");",
			 w->impl[i].name_id, w->impl[i].kind, rid);
		if (exec(w, sql, "deriving implicit syncs") != 0)
			return -1;
	}
	if (gs_derive_api_syncs(w->db) != SQLITE_OK)
		return fail(w, sqlite3_errcode(w->db), "deriving implicit syncs (API calls)"), -1;
	return 0;
}

/*
 * Build the indexes (at finalize, inside its transaction). Each CREATE
 * INDEX sorts the keys of a whole table. With temp_store=MEMORY (the
 * recording setting) SQLite's sorter has no memory bound: it mallocs every
 * key separately and keeps them all (vdbesort.c bounds its memory only when
 * temporary storage is on disk), which for 2 M records cost ~22000 extra
 * page faults and a quarter of finalize's time (bench/writer_throughput:
 * finalize 1.51-1.54 s -> 1.12-1.20 s, 30365 -> 8098 page faults). With
 * temp_store=FILE it sorts in runs of SQLITE_DEFAULT_PMASZ pages and merges
 * them through a deleted temporary file (SQLITE_TMPDIR, TMPDIR, /var/tmp,
 * /tmp). If that file cannot be written (no writable temporary directory,
 * a full disk there), the keys are sorted in memory as before.
 */
static int build_indexes(struct gs_writer *w)
{
	if (gs_schema_create_indexes(w->db) == 0)
		return 0;
	gs_log(GS_LOG_DEBUG,
	       "%s: index build through a temporary file failed (%s); sorting in memory", w->path,
	       sqlite3_errmsg(w->db));
	/* Start the transaction again under temp_store=MEMORY: nothing was
	 * written in it before the indexes, and a transaction begun with
	 * temporary storage on disk keeps its statement journal there too.
	 * (An I/O error may already have rolled it back.) */
	if (!sqlite3_get_autocommit(w->db))
		sqlite3_exec(w->db, "ROLLBACK;", NULL, NULL, NULL);
	w->in_tx = 0;
	if (sqlite3_exec(w->db, "PRAGMA temp_store=MEMORY;", NULL, NULL, NULL) != SQLITE_OK ||
	    gs_writer_begin(w) != 0)
		return -1;
	return gs_schema_create_indexes(w->db);
}

int gs_writer_finalize(struct gs_writer *w, uint64_t stop_ns)
{
	int rc = -1;

	if (!w)
		return -1;
	if (w->failed)
		goto out;
	if (w->in_tx && gs_writer_commit(w) != 0)
		goto out;
	/* Sort index keys through temporary files (see build_indexes). Set
	 * outside a transaction: SQLite refuses to change temp_store inside
	 * one once temporary storage is open. */
	sqlite3_exec(w->db, "PRAGMA temp_store=FILE;", NULL, NULL, NULL);
	if (gs_writer_begin(w) != 0)
		goto out;
	/* Indexes first: the derivations below join on correlation ids. */
	if (build_indexes(w) != 0) {
		fail(w, sqlite3_errcode(w->db), "building indexes");
		goto out;
	}
	/* the derivations' temporary tables are small: in memory, as always */
	sqlite3_exec(w->db, "PRAGMA temp_store=MEMORY;", NULL, NULL, NULL);
	if (derive_rows(w) != 0)
		goto out;
	if (gs_writer_meta_int(w, "stop_ns", (int64_t)stop_ns) != 0 ||
	    gs_writer_meta(w, "finalized", "1") != 0)
		goto out;
	if (gs_writer_commit(w) != 0)
		goto out;
	/* Fold the WAL into the main file and go back to a rollback journal:
	 * the trace is then one self-contained file that can be copied. */
	if (exec(w, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;",
		 "switching the journal back to DELETE") != 0)
		goto out;
	rc = 0;
out:
	gs_writer_close(w);
	return rc;
}
