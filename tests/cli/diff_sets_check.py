#!/usr/bin/env python3
"""CLI checks of `gapscope diff` of two sets of traces (docs/diff.md).

usage: diff_sets_check.py <check> <gapscope> <multi_mkdb> <workdir>

before/ holds multi_mkdb's three ranks (run-0.db .. run-2.db), after/ the
same with rank 2 written "early" (see multi_mkdb.c). Worked out by hand,
on CLOCK_MONOTONIC, T = 10000 + 100000 i for step i:

  ranks 0 and 1: identical in both sets (window 449000 / 450000 ns,
    utilisation 53.7% / 53.3%, idle "other" 46.3% / 46.7%, all changes 0)
  rank 2 before: gemm [T+3000, T+48000], nccl [T+48000, T+50000] ->
    window [13000, 460000] = 447000, busy 5 x 47000 = 235000: 52.6%,
    idle other 212000 / 447000 = 47.4%
  rank 2 after: gemm [T+3000, T+40000], nccl [T+40000, T+42000] ->
    window [13000, 452000] = 439000, busy 5 x 39000 = 195000: 44.4%
    (-8.2 pt), idle other 244000 / 439000 = 55.6% (+8.2 pt); window
    change -8000 ns
  no API calls are recorded: every gap is "other", launch overhead 0.
  straggler before: rank 2 (step ends T+62000 vs rank 1's T+51000, 4 of 5
    steps), median end lag 11000 ns (multi_check.py)
  straggler after: step ends rank 0 T+50000, rank 1 T+51000 (step 3:
    T+70000), rank 2 T+54000 -> steps 0 1 2 4: rank 2 by 54000 - 51000 =
    3000; step 3: rank 1 by 70000 - 54000 = 16000 -> still rank 2, 4 of 5,
    median lag 3000 ns: change -8000 ns
  others' wait ("allreduce" inside the step, ranks 0 and 1): rank 0 10000
    (step 0) then 30000, rank 1 30000 -> median 30000 in both sets (change 0)
"""
import json
import os
import shutil
import sys

from multi_check import expect, run  # the same helpers, beside this file


def rows(out, label):
    """the rows of one process block, by label"""
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("  " + label + "  ["))
    block = {}
    for l in lines[start + 1:]:
        if not l.startswith("    "):
            break
        parts = l.split()
        # label words, then before, after, change (durations are two words)
        block[l[4:30].strip()] = l[30:].split()
    return block


def main():
    check, gs, mkdb, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    before, after = os.path.join(work, "before"), os.path.join(work, "after")
    os.makedirs(before)
    os.makedirs(after)
    for r in range(3):
        run([mkdb, os.path.join(before, f"run-{r}.db"), str(r)])
        run([mkdb, os.path.join(after, f"run-{r}.db"), str(r), "nodeA"] +
            (["early"] if r == 2 else []))

    if check == "text":
        out = run([gs, "diff", before, after, "--comm-range", "allreduce"]).stdout
        expect(out.startswith(f"gapscope diff: before = {before} (3 traces), after = {after} "
                              "(3 traces)\n  times on CLOCK_MONOTONIC (one host) in both sets"),
               out)
        r0 = rows(out, "rank 0")
        expect(r0["window"] == ["449.000", "us", "449.000", "us", "0", "ns"], str(r0))
        expect(r0["utilisation"] == ["53.7%", "53.7%", "+0.0", "pt"], str(r0))
        r2 = rows(out, "rank 2")
        expect(r2["window"] == ["447.000", "us", "439.000", "us", "-8.000", "us"], str(r2))
        expect(r2["utilisation"] == ["52.6%", "44.4%", "-8.2", "pt"], str(r2))
        expect(r2["idle other"] == ["47.4%", "55.6%", "+8.2", "pt"], str(r2))
        expect(r2["idle sync wait"] == ["0.0%", "0.0%", "+0.0", "pt"], str(r2))
        expect(r2["launch overhead share"] == ["0.0%", "0.0%", "+0.0", "pt"], str(r2))
        expect(len(r2) == 10, "10 rows per process\n" + out)
        expect('Stragglers (steps: NVTX range "step" in both sets):' in out, out)
        st = [l.split() for l in out.splitlines() if l.startswith("    straggler ")
              or l.startswith("    its end lag") or l.startswith("    others'")]
        expect(st[0] == ["straggler", "rank", "2", "rank", "2", "same"], str(st))
        expect(st[1][-6:] == ["11.000", "us", "3.000", "us", "-8.000", "us"], str(st))
        expect(st[2][-6:] == ["30.000", "us", "30.000", "us", "0", "ns"], str(st))
        # rank 2's own "allreduce" is 2000 a step in both sets ([T+48000, T+50000],
        # early [T+40000, T+42000]): 30000 - 2000 of the others' wait is for it
        wf = [l.split() for l in out.splitlines() if l.startswith("      of it waiting")]
        expect(wf and wf[0][-6:] == ["28.000", "us", "28.000", "us", "0", "ns"], str(wf))
    elif check == "json":
        d = json.loads(run([gs, "diff", "--json", before, after]).stdout)
        expect(d["before"]["traces"] == 3 and d["after"]["clock"] == "monotonic", str(d["after"]))
        expect(d["before"]["step"] == "step" and d["after"]["steps"] == 5, str(d["after"]))
        p = {x["rank"]: x for x in d["processes"]}
        expect(sorted(p) == [0, 1, 2] and all(x["in"] == "both" for x in p.values()), str(p))
        expect(p[2]["window_ns"] == {"before": 447000, "after": 439000, "change": -8000,
                                     "relative": -8000 / 447000}, str(p[2]["window_ns"]))
        u = p[2]["utilisation"]
        expect(abs(u["before"] - 235000 / 447000) < 1e-12 and
               abs(u["after"] - 195000 / 439000) < 1e-12, str(u))
        o = p[2]["idle_share"]["other"]
        expect(abs(o["after"] - 244000 / 439000) < 1e-12, str(o))
        expect(p[2]["after"]["trace"] == os.path.join(after, "run-2.db"), str(p[2]["after"]))
        expect(p[0]["window_ns"]["change"] == 0, str(p[0]))
        sb, sa = d["before"]["straggler"], d["after"]["straggler"]
        expect(sb["rank"] == 2 and sb["end_lag_p50_ns"] == 11000 and sb["last_ends"] == 4, str(sb))
        expect(sa["rank"] == 2 and sa["end_lag_p50_ns"] == 3000, str(sa))
        expect(sb["others_wait_for_straggler_ns"] == sa["others_wait_for_straggler_ns"] == 28000,
               f"{sb} {sa}")
        c = d["straggler_change"]
        expect(c["same_process"] is True and c["end_lag_p50_ns"]["change"] == -8000 and
               c["others_wait_p50_ns"] == {"before": 30000, "after": 30000, "change": 0,
                                           "relative": 0.0}, str(c))
    elif check == "lists":
        # --before/--after lists give the same as the folders
        b = ",".join(os.path.join(before, f"run-{r}.db") for r in (2, 0, 1))
        a = ",".join(os.path.join(after, f"run-{r}.db") for r in range(3))
        d = json.loads(run([gs, "diff", "--json", "--before", b, "--after", a]).stdout)
        expect([x["rank"] for x in d["processes"]] == [0, 1, 2], str(d["processes"]))
        expect(d["straggler_change"]["end_lag_p50_ns"]["change"] == -8000, str(d))
        expect(d["before"]["input"] == b, d["before"]["input"])
    elif check == "only":
        # rank 2 missing from the after set: listed as such; after that set's
        # two ranks, rank 1 ends last in every step (by 1000 ns, step 3 by
        # 20000 ns: median 1000)
        os.remove(os.path.join(after, "run-2.db"))
        out = run([gs, "diff", before, after]).stdout
        expect(f"  rank 2: only in the before set  [{before}/run-2.db]" in out, out)
        st = [l.split() for l in out.splitlines() if l.startswith("    straggler ")
              or l.startswith("    its end lag")]
        expect(st[0] == ["straggler", "rank", "2", "rank", "1", "changed"], str(st))
        expect(st[1][-6:] == ["11.000", "us", "1.000", "us", "-10.000", "us"], str(st))
        d = json.loads(run([gs, "diff", "--json", before, after]).stdout)
        p2 = d["processes"][2]
        expect(p2["rank"] == 2 and p2["in"] == "before" and p2["after"] is None and
               p2["window_ns"] == {"before": 447000, "after": None, "change": None,
                                   "relative": None}, str(p2))
        expect(d["straggler_change"]["same_process"] is False, str(d["straggler_change"]))
    elif check == "bad":
        empty = os.path.join(work, "empty")
        os.makedirs(empty)
        p = run([gs, "diff", before, empty], 2)
        expect(p.stdout == "" and p.stderr == f"gapscope: {empty}: no *.db trace in this folder\n",
               p.stderr)
        junk = os.path.join(after, "run-9.db")
        with open(junk, "w") as f:
            f.write("not a trace\n")
        p = run([gs, "diff", before, after], 2)
        expect(p.stdout == "" and p.stderr.startswith(f"gapscope: {junk}: ") and
               p.stderr.count("\n") == 1, p.stderr)
        p = run([gs, "diff", "--before", os.path.join(before, "run-0.db")], 2)
        expect(p.stderr.count("\n") == 1 and "--after" in p.stderr, p.stderr)
        p = run([gs, "diff", "--range", "step", before, after], 2)
        expect(p.stderr.count("\n") == 1, p.stderr)
        p = run([gs, "diff", "--before", "a.db,,b.db", "--after", after], 2)
        expect(p.stderr.count("\n") == 1, p.stderr)
    elif check == "single":
        # two single traces: today's diff, unchanged
        b, a = os.path.join(before, "run-2.db"), os.path.join(after, "run-2.db")
        out = run([gs, "diff", b, a]).stdout
        expect(out.startswith(f"gapscope diff: before = {b}, after = {a}\n"), out)
        expect("  wall time (GPU span)" in out and "Processes" not in out, out)
        p = run([gs, "diff", "--step", "step", b, a], 2)
        expect(p.stderr.count("\n") == 1, p.stderr)
    else:
        sys.exit("unknown check " + check)


if __name__ == "__main__":
    main()
