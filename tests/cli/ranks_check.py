#!/usr/bin/env python3
"""CLI checks of ranks: torch.profiler traces whose distributedInfo names the
rank (`gapscope import`), labelled and paired by it in the multi-trace report,
its CSV, `info` and `gapscope diff` of two sets; the straggler evidence rule on
real traces (HTA's two sampled ranks).

usage: ranks_check.py <check> <gapscope> <hta dir> <workdir>

The synthetic job (written here as Kineto JSON, times in us from the step
start S = 1000 i, step i = 0..3, named ProfilerStep#10..#13): device 0,
stream 7, one "gemm" kernel and one nccl kernel a step, no runtime calls.

  before/ (distributedInfo world_size 3; file names not in rank order:
           a.json is rank 2, b.json rank 0, c.json rank 1; pids 501, 502, 503)
    rank 0: step [S, S+500];   gemm [S+10, S+290]; nccl [S+300, S+500]
    rank 1: step [S, S+520];   gemm [S+10, S+290]; nccl [S+300, S+520]
    rank 2: step [S+5, S+600]; gemm [S+10, S+560]; nccl [S+560, S+580]
    ends 500, 520, 600 every step: rank 2 ends last in 4 of 4 steps by
    600 - 520 = 80 us; its lag in every step 80: median 80, spread
    (median absolute deviation) 0 -> named. Exposed nccl a step: 200, 220,
    20; the others' wait: {200 x4, 220 x4}, nearest-rank median (4th of 8)
    200 us, of which 200 - 20 = 180 us waiting for it.
    windows: rank 0 [10, 3500] = 3490 us; rank 2 [10, 3580] = 3570 us
  after/ (world_size 4; x.json rank 1, y.json rank 0, z.json rank 2; pids
          701, 702, 703 - no pid in common with before/)
    rank 0 and rank 1 as before, but rank 1's steps 1 and 3 end at S+480
      (nccl [S+300, S+480]);
    rank 2: step [S+5, S+510]; gemm [S+10, S+290]; nccl [S+300, S+505]
    ends: step 0 500 520 510 (rank 1 last by 10), step 1 500 480 510
    (rank 2 by 10), step 2 as 0, step 3 as 1: ranks 1 and 2 each last
    twice by 10; the candidate is rank 1 (listed first); its lag in every
    step: 10, -30, 10, -30 -> median (2nd of -30 -30 10 10) -30,
    deviations 40 0 40 0 -> median 0: -30 is not above 0, no straggler.
    window rank 2 [10, 3505] = 3495 us: -75 us from before.
"""
import csv
import gzip
import json
import os
import shutil
import subprocess
import sys

BASE = 1765000000000000000  # baseTimeNanoseconds


def run(args, code=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != code:
        sys.exit(f"{args}: exit {p.returncode}, expected {code}\n{p.stdout}\n{p.stderr}")
    return p


def expect(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)


def us(x):
    return f"{x:.3f}"


def kineto(rank, world, pid, steps, extra_dist=None):
    """steps: per step (s0, s1, g0, g1, n0, n1) in us from S"""
    ev = [{"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0,
           "args": {"name": "python"}}]
    for i, (s0, s1, g0, g1, n0, n1) in enumerate(steps):
        S = 1000 * i
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{10 + i}",
                   "pid": pid, "tid": pid, "ts": us(S + s0), "dur": us(s1 - s0)})
        for name, a, b, corr in (("gemm", g0, g1, 2 * i + 1),
                                 ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", n0, n1, 2 * i + 2)):
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                       "ts": us(S + a), "dur": us(b - a),
                       "args": {"device": 0, "context": 1, "stream": 7, "correlation": corr}})
    dist = {"backend": "nccl", "pg_config": [{"pg_name": "0", "ranks": "all"}],
            "rank": rank, "world_size": world}
    if extra_dist is not None:
        dist = extra_dist
    # the numbers' text as Kineto writes it (ts with three decimals)
    text = json.dumps({"schemaVersion": 1, "distributedInfo": dist,
                       "baseTimeNanoseconds": BASE, "traceEvents": ev}, indent=1)
    for e in ev:
        for k in ("ts", "dur"):
            if isinstance(e.get(k), str):
                text = text.replace(f'"{k}": "{e[k]}"', f'"{k}": {e[k]}', 1)
    return text


R0 = [(0, 500, 10, 290, 300, 500)] * 4
R1 = [(0, 520, 10, 290, 300, 520)] * 4
R2 = [(5, 600, 10, 560, 560, 580)] * 4
R1_AFTER = [(0, 520 if i % 2 == 0 else 480, 10, 290, 300, 520 if i % 2 == 0 else 480)
            for i in range(4)]
R2_AFTER = [(5, 510, 10, 290, 300, 505)] * 4


def build(work, gs):
    sets = {
        "before": [("a", 2, 3, 501, R2), ("b", 0, 3, 502, R0), ("c", 1, 3, 503, R1)],
        "after": [("x", 1, 4, 701, R1_AFTER), ("y", 0, 4, 702, R0), ("z", 2, 4, 703, R2_AFTER)],
    }
    for d, files in sets.items():
        os.makedirs(os.path.join(work, d))
        for name, rank, world, pid, steps in files:
            j = os.path.join(work, d + "-json", name + ".json")
            os.makedirs(os.path.dirname(j), exist_ok=True)
            with open(j, "w") as f:
                f.write(kineto(rank, world, pid, steps))
            run([gs, "import", j, "-o", os.path.join(work, d, name + ".db")])
    return os.path.join(work, "before"), os.path.join(work, "after")


def check_width(out, what):
    for line in out.splitlines():
        expect(len(line) <= 160, f"{what}: a line of {len(line)} columns: {line}")


def main():
    check, gs, hta, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    if check == "hta":
        if not all(os.path.exists(os.path.join(hta, f"sampled_rank-{r}.json.gz")) for r in (0, 1)):
            print(f"HTA's sampled ranks are not in {hta}: skipped")
            sys.exit(77)
        # HTA's two sampled ranks of a 128-rank job: 2 profiler steps each.
        # Which rank ends each step last, and by how much, worked out here
        # from the JSON itself (the steps' ts + dur, Unix-time us)
        dbs, ends = [], []
        for r in (0, 1):
            src = os.path.join(hta, f"sampled_rank-{r}.json.gz")
            with gzip.open(src, "rt") as f:
                d = json.load(f)
            expect(d["distributedInfo"] == {"backend": "nccl", "rank": r, "world_size": 128},
                   str(d["distributedInfo"]))
            # ts: whole us since 1970 (an int in these files), dur: us; in
            # ns without a double's rounding of 1.7e18
            st = sorted((int(e["ts"]) * 1000, int(e["ts"]) * 1000 + round(e["dur"] * 1000))
                        for e in d["traceEvents"]
                        if e.get("cat") == "user_annotation" and
                        e.get("name", "").startswith("ProfilerStep#"))
            ends.append([b for _, b in st])
            db = os.path.join(work, f"rank{1 - r}-is-{r}.db")  # names not in rank order
            run([gs, "import", src, "-o", db])
            dbs.append(db)
        n = min(len(ends[0]), len(ends[1]))
        expect(n == 2, f"{n} steps")
        # per step the rank ending last (equal ends: rank 0) and its lag;
        # the candidate ends last most often, ties: the larger median lag
        last = [0 if ends[0][i] >= ends[1][i] else 1 for i in range(n)]

        def med(v):
            v = sorted(v)
            return v[(len(v) + 1) // 2 - 1] if v else 0
        lag_of = [med([abs(ends[0][i] - ends[1][i]) for i in range(n) if last[i] == r])
                  for r in (0, 1)]
        cand = max((0, 1), key=lambda r: (last.count(r), lag_of[r], -r))
        lag = lag_of[cand]
        info = run([gs, "info", "--json", dbs[1]]).stdout
        j = json.loads(info)
        expect((j["rank"], j["world_size"], j["rank_source"]) == (1, 128, "distributedInfo"),
               info[:400])
        out = run([gs, "report", dbs[1], dbs[0]]).stdout
        check_width(out, "report")
        rows = [l for l in out.splitlines() if l.startswith("  rank ")]
        expect(rows[0].startswith("  rank 0 ") and rows[1].startswith("  rank 1 "), out)
        expect("ranks: 2 of the job's 128 (world size); the others were not given\n" in out, out)
        want = (f"no straggler named: 2 steps compared (3 needed); rank {cand} ended "
                f"{last.count(cand)} of them last, by ")
        line = next((l for l in out.splitlines() if l.startswith("no straggler named")), "")
        expect(line.startswith(want), f"want {want!r}, got {line!r}")
        jr = json.loads(run([gs, "report", dbs[0], dbs[1], "--json"]).stdout)
        s = jr["stragglers"]
        expect(s["straggler"] is None and s["why_none"] == "few_steps" and s["min_steps"] == 3
               and s["candidate"] == cand, str(s))
        expect(jr["processes"][cand]["end_lag_p50_ns"] == lag, f"lag {lag}: {s}")
        expect([p["rank"] for p in jr["processes"]] == [0, 1] and
               [p["world_size"] for p in jr["processes"]] == [128, 128], str(jr["processes"]))
        return

    before, after = build(work, gs)

    if check == "report":
        out = run([gs, "report", before]).stdout
        check_width(out, "report")
        lines = out.splitlines()
        rows = [l.split()[:2] for l in lines if l.startswith("  rank ")]
        expect(rows[:3] == [["rank", "0"], ["rank", "1"], ["rank", "2"]], out)
        expect(not any(l.startswith("  pid ") for l in lines), out)
        expect("ranks:" not in out, "the whole job is there: no ranks line\n" + out)
        i = lines.index("rank 2 is the straggler: it ends step ranges last in 4 of 4 steps, "
                        "by 80.000 us (median)")
        expect(lines[i + 1] == "  its lag over all 4 steps: 80.000 us (median), above the "
               "step-to-step spread 0 ns (median absolute deviation)", lines[i + 1])
        expect(lines[i + 2] == "  the others wait 200.000 us per step in exposed nccl "
               "communication, of which about 180.000 us is waiting for it (its own: "
               "20.000 us)", lines[i + 2])
        # the rows name the trace each rank came from
        row0 = next(l for l in lines if l.startswith("  rank 0 "))
        expect(row0.endswith("[" + os.path.join(before, "b.db") + "]"), row0)

        out = run([gs, "report", after]).stdout
        check_width(out, "report")
        expect("ranks: 3 of the job's 4 (world size); the others were not given\n" in out, out)
        lines = out.splitlines()
        i = lines.index("no straggler named: rank 1 ends step ranges last in 2 of 4 steps, by "
                        "10.000 us (median), but")
        expect(lines[i + 1] == "  its lag over all 4 steps, -30.000 us (median), is not above "
               "the step-to-step spread 0 ns (median absolute deviation)", lines[i + 1])
        j = json.loads(run([gs, "report", after, "--json"]).stdout)
        s = j["stragglers"]
        expect((s["straggler"], s["candidate"], s["lag_p50_ns"], s["lag_spread_ns"],
                s["why_none"]) == (None, 1, -30000, 0, "within_spread"), str(s))
        expect([(p["rank"], p["world_size"], p["rank_source"], os.path.basename(p["trace"]))
                for p in j["processes"]] ==
               [(0, 4, "distributedInfo", "y.db"), (1, 4, "distributedInfo", "x.db"),
                (2, 4, "distributedInfo", "z.db")], str(j["processes"]))

    elif check == "csv":
        out = os.path.join(work, "csv")
        run([gs, "report", before, "--csv", out])
        with open(os.path.join(out, "processes.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        expect([(r["rank"], r["world_size"], os.path.basename(r["trace"]), r["last_ends"])
                for r in rows] == [("0", "3", "b.db", "0"), ("1", "3", "c.db", "0"),
                                   ("2", "3", "a.db", "4")], str(rows))
        with open(os.path.join(out, "steps.csv"), newline="") as f:
            st = list(csv.DictReader(f))
        expect([r["rank"] for r in st] == ["0"] * 4 + ["1"] * 4 + ["2"] * 4, str(st))

    elif check == "info":
        out = run([gs, "info", os.path.join(before, "a.db")]).stdout
        expect("rank              2 of 3 (distributedInfo)\n" in out, out)
        # distributedInfo that gives no usable rank: none, and the pid labels it
        bad = [
            ({"rank": "3", "world_size": 2}, None),  # a string: not Kineto's
            ({"rank": -1, "world_size": 2}, None),
            ({"nested": {"rank": 5}, "world_size": 2}, None),  # not its rank
            ({"backend": "gloo", "rank": 1}, (1, None)),  # no world size
            ({"rank": 2, "world_size": 2}, (2, None)),  # world size not above it
        ]
        for k, (dist, want) in enumerate(bad):
            j = os.path.join(work, f"q{k}.json")
            with open(j, "w") as f:
                f.write(kineto(0, 0, 600 + k, R0[:1], extra_dist=dist))
            db = os.path.join(work, f"q{k}.db")
            run([gs, "import", j, "-o", db])
            got = json.loads(run([gs, "info", "--json", db]).stdout)
            expect(((got["rank"], got["world_size"]) if got["rank"] is not None else None) ==
                   want, f"{dist}: {got['rank']}, {got['world_size']}")
            if k == 0:
                rep = run([gs, "report", db, os.path.join(before, "b.db")]).stdout
                expect("\n  pid 600 " in rep and "\n  rank 0 " in rep, rep)

    elif check == "diff":
        out = run([gs, "diff", before, after]).stdout
        check_width(out, "diff")
        expect("Processes, matched by rank" in out, out)
        for r, b, a in ((0, "b", "y"), (1, "c", "x"), (2, "a", "z")):
            want = f"  rank {r}  [{os.path.join(before, b + '.db')} -> " \
                   f"{os.path.join(after, a + '.db')}]"
            expect(want in out.splitlines(), f"want {want!r}\n{out}")
        expect("only in the" not in out, out)
        lines = out.splitlines()
        i = lines.index(f"  rank 2  [{os.path.join(before, 'a.db')} -> "
                        f"{os.path.join(after, 'z.db')}]")
        expect(lines[i + 1].split() == ["window", "3.570", "ms", "3.495", "ms", "-75.000", "us"],
               lines[i + 1])
        st = next(l for l in lines if l.strip().startswith("straggler "))
        expect(st.split() == ["straggler", "rank", "2", "none", "changed"], st)
        j = json.loads(run([gs, "diff", before, after, "--json"]).stdout)
        expect([(p["rank"], p["in"], os.path.basename(p["before"]["trace"]),
                 os.path.basename(p["after"]["trace"])) for p in j["processes"]] ==
               [(0, "both", "b.db", "y.db"), (1, "both", "c.db", "x.db"),
                (2, "both", "a.db", "z.db")], str(j["processes"]))
        expect(j["before"]["why_none"] is None and j["after"]["why_none"] == "within_spread",
               str(j["after"]))
    else:
        sys.exit("unknown check " + check)


if __name__ == "__main__":
    main()
