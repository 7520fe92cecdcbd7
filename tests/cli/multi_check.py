#!/usr/bin/env python3
"""CLI checks of the multi-trace report (`gapscope report A.db B.db ...`).

usage: multi_check.py <check> <gapscope> <multi_mkdb> <workdir>

The three traces are written by multi_mkdb.c (see its comment for the
timelines). Worked out by hand from them, on CLOCK_MONOTONIC (step i
begins at T = 10000 + 100000 i):

  starts: ranks 0 and 1 at T, rank 2 at T+2000 -> rank 2 starts last in
          5 of 5 steps, by 2000
  ends:   rank 0 T+50000, rank 1 T+51000 (step 3: T+70000), rank 2 T+62000
          -> steps 0 1 2 4: rank 2 last by 62000-51000 = 11000;
             step 3: rank 1 last by 70000-62000 = 8000
  straggler rank 2, 4 of 5 steps, median lag 11000 ns
  communication per step ("allreduce" ranges): rank 0 10000 (step 0) then
    30000; rank 1 30000; rank 2 2000 -> others pooled {10000, 30000 x 9},
    nearest-rank median 30000; totals 130000, 150000, 10000
  nccl kernels (exposed): rank 0 step 0 nccl [T+20000,T+50000] minus gemm
    [T+1000,T+25000] = 25000, then 30000 -> total 145000; rank 2: gemm ends
    where nccl begins, 2000 each -> 10000
  rank 0: window [11000, 460000] = 449000; busy 49000 + 4 x 48000 = 241000
  rank 2: window [13000, 460000] = 447000; busy 5 x 47000 = 235000
  step medians: 50000, 51000, 60000
  gaps (gaps.csv; no API calls recorded, so every gap is one segment of
  cause "other" with no thread or API): rank 0: between steps
  [T+50000, T+100000+1000] (51000) x 4, inside steps 1-4 gemm end to nccl
  start [T+19000, T+20000] (1000) x 4 -> 208000 = its idle; rank 1:
  [T+19000, T+21000] x 5 + [T+51000, T+101000] x 4 = 210000; rank 2:
  [T+50000, T+103000] x 4 = 212000
Without the clock offsets (D = 1, 5, 9 ms) rank 2 would end last in every
step by about 8 ms, so the figures above also check the alignment.
"""
import csv
import json
import os
import shutil
import subprocess
import sys


def run(args, code=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != code:
        sys.exit(f"{args}: exit {p.returncode}, expected {code}\n{p.stdout}\n{p.stderr}")
    return p


def expect(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def main():
    check, gs, mkdb, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    dbs = []
    for r in range(3):
        path = os.path.join(work, f"run-{r}.db")
        host = "nodeB" if check == "hosts" and r == 2 else "nodeA"
        run([mkdb, path, str(r), host] + (["capture"] if check == "capture" and r == 1 else []))
        dbs.append(path)
    # given out of order: rows come by rank
    args = [gs, "report", dbs[2], dbs[0], dbs[1]]

    if check == "text":
        out = run(args + ["--comm-range", "allreduce"]).stdout
        expect("times on CLOCK_MONOTONIC (one host)" in out, "clock line\n" + out)
        expect(not any(l.startswith("capture") for l in out.splitlines()),
               "no capture line for traces recorded whole\n" + out)
        rows = [l for l in out.splitlines() if l.startswith("  rank ")]
        expect(len(rows) == 6, "3 process rows + 3 straggler rows\n" + out)
        expect(rows[0].split()[:5] == ["rank", "0", "449.000", "us", "53.7%"], rows[0])
        expect(rows[2].split()[:5] == ["rank", "2", "447.000", "us", "52.6%"], rows[2])
        expect(rows[2].split()[-1] == "[" + dbs[2] + "]", rows[2])
        # rank 2 straggler row: 5/5 starts, 4/5 ends, lag 11 us, step 60 us, comm 2 us
        expect(rows[5].split() == ["rank", "2", "5/5", "4/5", "11.000", "us", "60.000", "us",
                                   "2.000", "us"], rows[5])
        expect(rows[4].split()[2:6] == ["0/5", "1/5", "8.000", "us"], rows[4])
        # of the others' 30000 a step, 30000 - rank 2's own 2000 is waiting for it
        # the evidence rule: rank 2's end minus the latest other end, every
        # step: 11000 x 4 and 62000 - 70000 = -8000 in step 3; median 11000,
        # deviations 0 x 4 and 19000: median 0 - above it, named
        expect("rank 2 is the straggler: it ends step ranges last in 4 of 5 steps, by "
               "11.000 us (median)\n"
               "  its lag over all 5 steps: 11.000 us (median), above the step-to-step "
               "spread 0 ns (median absolute deviation)\n"
               "  the others wait 30.000 us per step in allreduce, of "
               "which about 28.000 us is waiting for it (its own: 2.000 us)\n" in out, out)
        expect(max(len(l) for l in out.splitlines()) <= 160, "160 columns\n" + out)
        expect('NVTX range "step" (the most frequent name common to all), 5 steps' in out, out)
        # ranks 0 and 1 alone: rank 1 ends last in 5 of 5 steps (by 1000, step 3
        # by 20000: median 1000) and spends 30000 a step in allreduce, as much as
        # rank 0 does (median of {10000, 30000 x 4}): no wait for it to speak of
        two = run([gs, "report", dbs[0], dbs[1], "--comm-range", "allreduce"]).stdout
        # its lag in every step 1000 (step 3: 20000): median 1000, spread 0
        expect("rank 1 is the straggler: it ends step ranges last in 5 of 5 steps, by "
               "1.000 us (median)\n"
               "  its lag over all 5 steps: 1.000 us (median), above the step-to-step "
               "spread 0 ns (median absolute deviation)\n"
               "  the others wait 30.000 us per step in allreduce, no more "
               "than its own (30.000 us): not waiting for it\n" in two, two)
        expect("  step 3      rank 2 by 2.000 us, rank 1 by 8.000 us" in out, out)
    elif check in ("json", "nccl", "hosts"):
        extra = [] if check == "nccl" else ["--comm-range", "allreduce"]
        j = json.loads(run(args + extra + ["--json"]).stdout)
        expect(j["traces"] == 3, "traces")
        expect(j["clock"] == ("realtime" if check == "hosts" else "monotonic"), j["clock"])
        p = j["processes"]
        expect([x["rank"] for x in p] == [0, 1, 2], "order by rank")
        expect([x["pid"] for x in p] == [4000, 4001, 4002], "pids")
        expect(p[0]["window_ns"] == 449000 and p[0]["busy_ns"] == 241000, "rank 0 window")
        expect(p[2]["window_ns"] == 447000 and p[2]["busy_ns"] == 235000, "rank 2 window")
        expect(p[0]["idle_by_cause_ns"]["other"] == 208000, "rank 0 other idle")
        # its kernels have no launch calls: other 208000 / 449000 = 46% >= 20%
        expect(p[0]["top_finding"] is not None and
               (p[0]["top_finding"]["rule"], p[0]["top_finding"]["cost_ns"]) ==
               ("no_launch_calls", 208000), f"top finding {p[0]['top_finding']}")
        expect([x["last_ends"] for x in p] == [0, 1, 4], "last ends")
        expect([x["last_starts"] for x in p] == [0, 0, 5], "last starts")
        expect([x["end_lag_p50_ns"] for x in p] == [0, 8000, 11000], "lags")
        expect([x["step_p50_ns"] for x in p] == [50000, 51000, 60000], "step medians")
        totals = [145000, 150000, 10000] if check == "nccl" else [130000, 150000, 10000]
        expect([x["comm_total_ns"] for x in p] == totals, f"comm totals {p}")
        expect([x["comm_per_step_p50_ns"] for x in p] == [30000, 30000, 2000], "comm p50")
        s = j["stragglers"]
        expect(s["step_range"] == "step" and s["steps"] == 5, "step range")
        expect(s["straggler"] == 2 and s["straggler_last_ends"] == 4, "straggler")
        expect(s["straggler_end_lag_p50_ns"] == 11000, "lag")
        expect(s["others_wait_p50_ns"] == 30000, "others wait")
        # 30000 less rank 2's own 2000 a step (the nccl check: 30000 less its 2000 too)
        expect(s["others_wait_for_straggler_ns"] == 28000, f"wait for it {s}")
        # the evidence (see "text"): lag 11000 over all steps, spread 0
        expect((s["min_steps"], s["candidate"], s["lag_p50_ns"], s["lag_spread_ns"],
                s["why_none"]) == (3, 2, 11000, 0, None), str(s))
        # traces recorded before meta rank: env.RANK gives it, no world size
        expect([(x["rank_source"], x["world_size"]) for x in p] == [("env.RANK", None)] * 3,
               str(p))
        expect(s["comm_source"] == ("nccl" if check == "nccl" else "nvtx"), "source")
        base = 1700000000000000000 if check == "hosts" else 0
        expect([x["first_start_ns"] for x in s["per_step"]] ==
               [base + 10000 + 100000 * i for i in range(5)], "aligned step starts")
        expect(s["per_step"][3]["last_end"] == 1 and s["per_step"][3]["end_lag_ns"] == 8000,
               "step 3")
        if check == "hosts":
            out = run(args + extra).stdout
            expect("times on CLOCK_REALTIME (the traces come from different hosts, or do not say"
                   " which" in out, out)
    elif check == "dir":
        out = run([gs, "report", work, "--step", "step", "--top", "0"]).stdout
        expect("rank 2 is the straggler: it ends step ranges last in 4 of 5 steps" in out, out)
        expect('NVTX range "step", 5 steps' in out, out)
        expect("steps with the largest end lag" not in out, "--top 0")
        out = run([gs, "report", work, "--step", "nosuch"]).stdout
        expect('NVTX range "nosuch" is not in every trace; nothing to compare.' in out, out)
        expect("is the straggler" not in out, out)
    elif check == "apart":
        # rank 0 recorded an hour later (both clock offsets + 3600 s): its GPU
        # window [11000, 460000] + 3600 s begins 3600 s + 11000 - 461000 ns
        # after rank 1's ends (its last kernel ends at 5461000 on its own
        # clock, offset -5 ms): separate runs, no straggler (before: "rank 0
        # is the straggler ... by 3600.000 s")
        import sqlite3
        con = sqlite3.connect(dbs[0])
        con.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 3600000000000"
                    " WHERE key IN ('monotonic_offset_ns', 'realtime_offset_ns')")
        con.commit()
        con.close()
        two = [gs, "report", dbs[0], dbs[1], "--comm-range", "allreduce"]
        out = run(two).stdout
        expect("Stragglers: not compared: the traces do not run at the same time (one's GPU"
               " work ends 3600.000 s before another's begins)" in out, out)
        expect("straggler:" not in out and "is the straggler" not in out, out)
        j = json.loads(run(two + ["--json"]).stdout)
        expect(j["stragglers"]["apart_ns"] == 3600000000000 + 11000 - 461000, str(j["stragglers"]))
        expect(j["stragglers"]["steps"] == 0 and j["stragglers"]["straggler"] is None,
               str(j["stragglers"]))
        # the two that did run together are still compared
        j = json.loads(run([gs, "report", dbs[1], dbs[2], "--json"]).stdout)
        expect(j["stragglers"]["apart_ns"] == 0 and j["stragglers"]["steps"] == 5,
               str(j["stragglers"]))
    elif check == "single":
        # one trace alone keeps today's report
        out = run([gs, "report", dbs[0]]).stdout
        expect(out.startswith("gapscope report: " + dbs[0]), out[:200])
        expect("Processes" not in out, "single report")
    elif check == "bad":
        bad = os.path.join(work, "bad.db")
        with open(bad, "w") as f:
            f.write("not a trace\n")
        p = run(args + [bad], code=2)
        expect(p.stdout == "", "nothing on stdout")
        lines = p.stderr.splitlines()
        expect(len(lines) == 1 and lines[0].startswith("gapscope: " + bad + ": "), p.stderr)
        p = run(args + ["--range", "x"], code=2)
        expect("--range applies to a single trace" in p.stderr, p.stderr)
        empty = os.path.join(work, "empty")
        os.makedirs(empty, exist_ok=True)
        p = run([gs, "report", empty], code=2)
        expect(p.stderr.strip() == f"gapscope: {empty}: no *.db trace in this folder", p.stderr)
    elif check == "capture":
        # rank 1 recorded with --capture-range cudaProfilerApi (multi_mkdb
        # "capture"): windows [D, D+300000] and [D+310000, D+500000] on its
        # clock (D = 5000000), 300000 + 190000 = 490000 ns captured. Its
        # GPU span [T0+1000, T4+51000] = [D+11000, D+461000] (450000) holds
        # inside them 289000 + 151000 = 440000; busy 5 x (18000 + 30000) =
        # 240000, 54.5%; idle 200000 "other": its 210000 less the 10000 ns
        # [D+300000, D+310000) between the windows. Ranks 0 and 2 and the
        # stragglers are as in "text".
        out = run(args + ["--comm-range", "allreduce"]).stdout
        lines = out.splitlines()
        expect(lines[1] == "capture: rank 1: only the program's cudaProfilerStart.."
               "cudaProfilerStop spans were recorded: 2 windows, 490.000 us in all; time "
               "outside them is not analysed", lines[1])
        expect(sum(l.startswith("capture") for l in lines) == 1, "one capture line\n" + out)
        rows = [l for l in lines if l.startswith("  rank ")]
        expect(rows[0].split()[:5] == ["rank", "0", "449.000", "us", "53.7%"], rows[0])
        expect(rows[1].split()[:5] == ["rank", "1", "440.000", "us", "54.5%"], rows[1])
        expect("rank 2 is the straggler: it ends step ranges last in 4 of 5 steps, by "
               "11.000 us (median)\n" in out and
               "\n  the others wait 30.000 us per step in allreduce" in out, out)
        j = json.loads(run(args + ["--comm-range", "allreduce", "--json"]).stdout)
        pr = j["processes"]
        expect([p["capture"] for p in pr] ==
               [None, {"range": "cudaProfilerApi", "windows": 2, "captured_ns": 490000}, None],
               str([p["capture"] for p in pr]))
        expect((pr[1]["window_ns"], pr[1]["busy_ns"], pr[1]["idle_by_cause_ns"]["other"]) ==
               (440000, 240000, 200000), str(pr[1]))
        csvdir = os.path.join(work, "csv")
        run(args + ["--comm-range", "allreduce", "--csv", csvdir])
        with open(os.path.join(csvdir, "processes.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        got = [(r["rank"], r["window_ns"], r["capture_range"], r["capture_windows"],
                r["captured_ns"]) for r in rows]
        expect(got == [("0", "449000", "", "", ""),
                       ("1", "440000", "cudaProfilerApi", "2", "490000"),
                       ("2", "447000", "", "", "")], str(got))
    elif check == "csv":
        out = os.path.join(work, "csv")
        p = run(args + ["--comm-range", "allreduce", "--csv", out])
        expect(p.stdout == "", "--csv prints nothing")
        with open(os.path.join(out, "processes.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        expect([r["rank"] for r in rows] == ["0", "1", "2"], "csv order")
        expect(rows[0]["window_ns"] == "449000" and rows[0]["busy_ns"] == "241000", "csv rank 0")
        expect(rows[0]["clock_offset_ns"] == "-1000000", "csv offset")
        expect(rows[2]["last_ends"] == "4" and rows[2]["end_lag_p50_ns"] == "11000", "csv r2")
        expect(rows[0]["idle_other_ns"] == "208000", "csv idle")
        with open(os.path.join(out, "steps.csv"), newline="") as f:
            st = list(csv.DictReader(f))
        expect(len(st) == 15, "15 step rows")
        expect([st[0][k] for k in ("rank", "step", "start_ns", "end_ns", "comm_ns")] ==
               ["0", "0", "10000", "60000", "10000"], str(st[0]))
        expect([st[13][k] for k in ("rank", "step", "start_ns", "end_ns", "comm_ns")] ==
               ["2", "3", "312000", "372000", "2000"], str(st[13]))
        # docs/many-traces.md's query, with the sqlite3 shell where there is one
        sql = os.path.join(os.path.dirname(os.path.abspath(__file__)), "multi_straggler.sql")
        create = ("CREATE TABLE steps(trace TEXT, rank INTEGER, pid INTEGER, step INTEGER, "
                  "start_ns INTEGER, end_ns INTEGER, comm_ns INTEGER)")
        if shutil.which("sqlite3"):
            q = run(["sqlite3", ":memory:", create,
                     ".import --csv --skip 1 " + os.path.join(out, "steps.csv") + " steps",
                     ".read " + sql]).stdout
            expect(q.split() == ["2|4|11.0", "1|1|8.0"], q)
        else:  # the same SQL through Python's sqlite3 module
            import sqlite3
            db = sqlite3.connect(":memory:")
            db.execute(create)
            db.executemany("INSERT INTO steps VALUES(?,?,?,?,?,?,?)",
                           [tuple(r.values()) for r in st])
            q = db.execute(open(sql).read()).fetchall()
            expect(q == [(2, 4, 11.0), (1, 1, 8.0)], str(q))
        # the evidence rule's figures for rank 2 (lags 11000 x 4 and -8000:
        # median 11000, spread 0), as docs/many-traces.md queries them
        sql = os.path.join(os.path.dirname(os.path.abspath(__file__)), "multi_straggler_lag.sql")
        import sqlite3
        db = sqlite3.connect(":memory:")
        db.execute(create)
        db.executemany("INSERT INTO steps VALUES(?,?,?,?,?,?,?)",
                       [tuple(int(v) if k != "trace" else v for k, v in r.items()) for r in st])
        q = db.execute(open(sql).read()).fetchall()
        expect(q == [(11000, 0)], str(q))
        # gaps.csv: one row per gap segment, on the common clock
        with open(os.path.join(out, "gaps.csv"), newline="") as f:
            gr = list(csv.reader(f))
        expect(gr[0] == ["rank", "trace", "device", "gap_start_ns", "gap_end_ns",
                         "segment_start_ns", "segment_end_ns", "cause", "thread", "api"],
               str(gr[0]))
        gr = gr[1:]
        expect([r[0] for r in gr] == ["0"] * 8 + ["1"] * 9 + ["2"] * 4, "gap rows by rank")
        want0 = []
        for i in range(4):
            t = 10000 + 100000 * i
            want0.append([t + 50000, t + 101000])
            want0.append([t + 100000 + 19000, t + 100000 + 20000])
        for r, (a, b) in zip(gr[:8], want0):
            expect(r == ["0", dbs[0], "0", str(a), str(b), str(a), str(b), "other", "", ""],
                   f"rank 0 gap {r}, expected [{a}, {b}]")
        expect(gr[8][1:7] == [dbs[1], "0", "29000", "31000", "29000", "31000"], str(gr[8]))
        expect(gr[-1][3:7] == ["360000", "413000", "360000", "413000"], str(gr[-1]))
        # docs/many-traces.md's "idle by cause per rank" query: per rank the
        # segments add up to the idle of processes.csv
        gcreate = ("CREATE TABLE gaps(rank INTEGER, trace TEXT, device INTEGER, "
                   "gap_start_ns INTEGER, gap_end_ns INTEGER, segment_start_ns INTEGER, "
                   "segment_end_ns INTEGER, cause TEXT, thread INTEGER, api TEXT)")
        gq = ("SELECT rank, cause, sum(segment_end_ns - segment_start_ns) AS idle_ns "
              "FROM gaps GROUP BY rank, cause ORDER BY rank, cause;")
        if shutil.which("sqlite3"):
            q = run(["sqlite3", ":memory:", gcreate,
                     ".import --csv --skip 1 " + os.path.join(out, "gaps.csv") + " gaps",
                     gq]).stdout.split()
            q = [tuple(x.split("|")) for x in q]
            q = [(int(a), b, int(c)) for a, b, c in q]
        else:
            import sqlite3
            db = sqlite3.connect(":memory:")
            db.execute(gcreate)
            db.executemany("INSERT INTO gaps VALUES(?,?,?,?,?,?,?,?,?,?)", gr)
            q = db.execute(gq).fetchall()
        expect(q == [(0, "other", 208000), (1, "other", 210000), (2, "other", 212000)], str(q))
        causes = ["sync_wait", "cuda_api", "host_code", "launch_latency", "graph_internal",
                  "dependency", "other"]
        for r in rows:
            idle = {c: int(r["idle_" + c + "_ns"]) for c in causes}
            got = {c: v for (rk, c, v) in q if rk == int(r["rank"])}
            expect(got == {c: v for c, v in idle.items() if v}, f"rank {r['rank']}: {got} {idle}")
    else:
        sys.exit("unknown check " + check)


if __name__ == "__main__":
    main()
