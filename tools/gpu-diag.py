#!/usr/bin/env python3
"""gpu-diag.py DB... - what a device run's databases say about launch calls:
API call counts by name, and how many kernels have no launch call of their
correlation id (runtime or driver). Prints; judges nothing. Used by
tools/gpu-session.sh's diag step, where the databases are too big to bring back."""
import sqlite3
import sys

for path in sys.argv[1:]:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.execute("PRAGMA temp_store = MEMORY")
        print(f"== {path}")
        for name, n in db.execute(
                "SELECT s.value, count(*) FROM api_calls a JOIN strings s ON s.id = a.name_id "
                "GROUP BY s.value ORDER BY count(*) DESC LIMIT 25"):
            print(f"  api {name:40s} {n}")
        k = db.execute("SELECT count(*) FROM kernels").fetchone()[0]
        db.execute("CREATE TEMP TABLE launched AS SELECT DISTINCT correlation_id AS c FROM api_calls")
        db.execute("CREATE INDEX temp.launched_c ON launched(c)")
        orphans = db.execute(
            "SELECT count(*) FROM kernels k WHERE k.correlation_id NOT IN (SELECT c FROM launched)"
            ).fetchone()[0]
        shared = db.execute(
            "SELECT count(*) FROM (SELECT correlation_id FROM api_calls WHERE correlation_id > 0 "
            "GROUP BY correlation_id HAVING count(*) > 1)").fetchone()[0]
        print(f"  kernels {k}, without any API call of their correlation id {orphans}, "
              f"correlation ids shared by 2+ API calls {shared}")
        for name, n in db.execute(
                "SELECT substr(s.value, 1, 70), count(*) FROM kernels k JOIN strings s ON s.id = k.name_id "
                "WHERE k.correlation_id NOT IN (SELECT c FROM launched) "
                "GROUP BY k.name_id ORDER BY count(*) DESC LIMIT 5"):
            print(f"  orphan kernel {name} x{n}")
        db.close()
    except sqlite3.Error as e:
        print(f"  {path}: {e}")
