-- docs/many-traces.md: the straggler evidence of rank 2 (its lag over all
-- steps, nearest-rank median, and the median absolute deviation of it),
-- over steps.csv; checked by tests/cli/multi_check.py csv
WITH e AS (SELECT step, rank, end_ns FROM steps WHERE step < (SELECT min(n) FROM
           (SELECT count(*) AS n FROM steps GROUP BY trace))),
l AS (SELECT a.step, a.end_ns - max(b.end_ns) AS lag_ns FROM e a JOIN e b
      ON a.step = b.step AND b.rank <> a.rank WHERE a.rank = 2 GROUP BY a.step),
m AS (SELECT lag_ns FROM l ORDER BY lag_ns
      LIMIT 1 OFFSET ((SELECT count(*) FROM l) + 1) / 2 - 1)
SELECT (SELECT lag_ns FROM m) AS lag_ns,
       (SELECT abs(lag_ns - (SELECT lag_ns FROM m)) AS d FROM l ORDER BY d
        LIMIT 1 OFFSET ((SELECT count(*) FROM l) + 1) / 2 - 1) AS spread_ns;
