-- The straggler question over steps.csv (gapscope report ... --csv DIR):
-- per step (occurrence index common to all traces), the rank that ended
-- last and by how much over the next-latest; per rank, how often and by
-- how much on average. The same text runs in DuckDB and in SQLite
-- (docs/many-traces.md); tests/cli/multi_check.py runs it with sqlite3.
WITH common AS (SELECT min(n) AS n FROM (SELECT count(*) AS n FROM steps GROUP BY trace)),
r AS (SELECT step, rank, end_ns,
             row_number() OVER (PARTITION BY step ORDER BY end_ns DESC, rank) AS pos
      FROM steps WHERE step < (SELECT n FROM common)),
last AS (SELECT a.step, a.rank, a.end_ns - b.end_ns AS lag_ns
         FROM r a JOIN r b ON a.step = b.step AND a.pos = 1 AND b.pos = 2)
SELECT rank, count(*) AS steps_ended_last, avg(lag_ns) / 1e3 AS mean_lag_us
FROM last GROUP BY rank ORDER BY steps_ended_last DESC, rank;
