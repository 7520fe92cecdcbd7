#!/usr/bin/env python3
"""CLI checks of the viewer on capture traces (record --capture-range
cudaProfilerApi, schema v3) written by capture_mkdb.

usage: capture_check.py CHECK GAPSCOPE CAPTURE_MKDB WORKDIR

The timeline (capture_mkdb.c), device 0, stream 7, tid 11, times in ns:
  capture windows W1 [1000000, 2000000], W2 [5000000, 6000000]; nothing
  was recorded in [2000000, 5000000].
  W1: K1 gemm [1000000, 1300000] (no launch call), K2 relu [1500000, 2000000]
      launched at [1450000, 1451000].
  W2: K3 gemm [5100000, 5400000] launched at [5040000, 5041000], K4 relu
      [5600000, 6000000] launched at [5550000, 5551000].
  NVTX range "step" [1200000, 5300000].

Worked out by hand (gap model v2, DESIGN.md), inside the windows only:
  device window [1000000, 6000000] inside W1 and W2 = 1000000 + 1000000
  = 2000000; busy 300000 + 500000 + 300000 + 400000 = 1500000; utilisation
  1500000 / 2000000 = 75.0%; idle 500000 in three gaps:
  [1300000, 1500000): K2's call began at 1450000, after the GPU went idle:
    host code 150000 then launch latency 50000.
  [2000000, 5100000) before K3 is cut at the windows' edges: only
    [5000000, 5100000) is read: host code [5000000, 5040000) 40000, launch
    latency 60000. The 3000000 ns between the windows are no gap, no host
    code, and no host stall (1 ms or more of host code in one gap).
  [5400000, 5600000): host code 150000, launch latency 50000.
  host code 150000 + 40000 + 150000 = 340000 (17.0%); launch latency
  50000 + 60000 + 50000 = 160000 (8.0%).
  NVTX "step": wall inside the windows 800000 + 300000 = 1100000, GPU busy
  in it 100000 (K1 from 1200000) + 500000 + 200000 (K3 to 5300000) = 800000.

The same rows read as a trace recorded whole (v2, or v3 without meta
capture_range): window 5000000, busy 1500000 (30.0%), idle 3500000, host
code 150000 + 3040000 + 150000 = 3340000, launch latency 160000.
"""
import csv
import json
import os
import re
import subprocess
import sys

CHECK, GAPSCOPE, MKDB, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
failures = []

CAPTURE_LINE = ("capture: only the program's cudaProfilerStart..cudaProfilerStop spans were "
                "recorded: 2 windows, 2.000 ms in all; time outside them is not analysed")
NEVER = ("the program never called cudaProfilerStart: nothing was recorded "
         "(recorded with --capture-range cudaProfilerApi)")
CAUSES = ["sync_wait", "cuda_api", "host_code", "launch_latency", "graph_internal", "dependency",
          "other"]


def expect(cond, what):
    if not cond:
        failures.append(what)


def mkdb(name, kind, extra=None):
    path = os.path.join(WORK, name + ".db")
    subprocess.run([MKDB, path, kind] + ([extra] if extra else []), check=True)
    return path


def run(*args):
    return subprocess.run([GAPSCOPE, *args], capture_output=True, text=True, errors="replace")


def report_json(*args):
    p = run("report", "--json", *args)
    expect(p.returncode == 0, f"report --json {args}: exit {p.returncode} {p.stderr[:300]!r}")
    return json.loads(p.stdout) if p.returncode == 0 else None


def causes(**kw):
    return {c: kw.get(c, 0) for c in CAUSES}


def check_figures():
    db = mkdb("cap", "capture")
    p = run("report", db)
    expect(p.returncode == 0, f"report: exit {p.returncode} {p.stderr!r}")
    lines = p.stdout.splitlines()
    expect(lines[1:3] == [CAPTURE_LINE, "selection: the capture windows"],
           f"report: top lines {lines[1:3]!r}")
    expect("Device 0: window 2.000 ms, busy 1.500 ms (utilisation 75.0%), idle 500.000 us, "
           "4 ops, 3 gaps" in lines, "report: device line")
    expect("Verdict: GPU busy 75.0% of 2.000 ms; idle: host code 17.0%, launch latency 8.0%"
           in lines, "report: verdict line")
    expect(not any("1 ms or more" in l for l in lines), "report: a host stall was counted")
    # each gap is named by its capture window and its time from that
    # window's start: [1300000, ...) is 300000 into W1, [5400000, ...)
    # 400000 into W2, [5000000, ...) at W2's start (0 ns). Counted from the
    # device window's start they read +300 us, +4.4 ms and +4 ms, the
    # 3000000 ns between the windows included.
    at = [l.split(":")[0].strip() for l in lines if l.startswith("     ") and " at +" in l]
    expect("  largest gaps (capture window and time from its start):" in lines,
           "report: largest gaps heading")
    expect(at == ["1. in window 1 at +300.000 us", "2. in window 2 at +400.000 us",
                  "3. in window 2 at +0 ns"], f"report: gap offsets {at!r}")
    j = report_json(db)
    if j:
        expect(j["capture"] == {"range": "cudaProfilerApi", "windows": 2, "captured_ns": 2000000,
                                "starts_skipped": 0, "damaged_rows_skipped": 0},
               f"json capture {j['capture']}")
        expect(j["selection"] is None, f"json selection {j['selection']}")
        d = j["devices"][0]
        expect((d["window_ns"], d["busy_ns"], d["idle_ns"], d["gaps"], d["ops"]) ==
               (2000000, 1500000, 500000, 3, 4), f"json device {d}")
        expect(abs(d["utilisation"] - 0.75) < 1e-9, f"json utilisation {d['utilisation']}")
        expect(d["idle_by_cause_ns"] == causes(host_code=340000, launch_latency=160000),
               f"json idle by cause {d['idle_by_cause_ns']}")
        expect(d["host_stall_ns"] == 0 and d["host_stalls"] == 0,
               f"json host stall {d['host_stall_ns']} in {d['host_stalls']}")
        gaps = sorted((g["start_ns"], g["duration_ns"]) for g in d["top_gaps"])
        # no gap covers any of [2000000, 5000000)
        expect(gaps == [(1300000, 200000), (5000000, 100000), (5400000, 200000)],
               f"json gaps {gaps}")
        # offset_ns: recorded time from window_start_ns 1000000, the 3000000
        # ns between the windows left out: 300000; 1000000 (all of W1) + 0;
        # 1000000 + 400000. capture_window: the window and the time from
        # its start, as the text says.
        offs = sorted((g["start_ns"], g["offset_ns"], g["capture_window"])
                      for g in d["top_gaps"])
        expect(offs == [(1300000, 300000, {"window": 1, "offset_ns": 300000}),
                        (5000000, 1000000, {"window": 2, "offset_ns": 0}),
                        (5400000, 1400000, {"window": 2, "offset_ns": 400000})],
               f"json gap offsets {offs}")
        nv = [(n["name"], n["wall_ns"], n["gpu_busy_ns"]) for n in j["nvtx"]]
        expect(nv == [("step", 1100000, 800000)], f"json nvtx {nv}")


def check_range():
    # --range step [1200000, 5300000] inside the windows: [1200000, 2000000]
    # and [5000000, 5300000] = 800000 + 300000 = 1100000 ns. Busy: K1 from
    # 1200000 100000, K2 500000, K3 to 5300000 200000 = 800000 (72.7%).
    # Idle 300000: [1300000, 1500000) host code 150000 + launch latency
    # 50000; [5000000, 5100000) host code 40000 + launch latency 60000;
    # [5400000, 5600000) lies outside the selection.
    db = mkdb("cap", "capture")
    p = run("report", "--range", "step", db)
    expect(p.returncode == 0, f"range: exit {p.returncode} {p.stderr!r}")
    lines = p.stdout.splitlines()
    expect(lines[1:3] == [CAPTURE_LINE, 'selection: NVTX ranges named "step": 1 range, '
                          '1.100 ms in all inside the capture windows'],
           f"range: top lines {lines[1:3]!r}")
    j = report_json("--range", "step", db)
    if j:
        expect(j["selection"] == {"range": "step", "matches": 1, "skipped": 0,
                                  "total_ns": 1100000}, f"range: selection {j['selection']}")
        d = j["devices"][0]
        expect((d["window_ns"], d["busy_ns"], d["idle_ns"]) == (1100000, 800000, 300000),
               f"range: device {d}")
        expect(abs(d["utilisation"] - 800000 / 1100000) < 1e-9, f"range: util {d['utilisation']}")
        expect(d["idle_by_cause_ns"] == causes(host_code=190000, launch_latency=110000),
               f"range: idle by cause {d['idle_by_cause_ns']}")
        # window_start_ns stays K1's start 1000000: the gap at 5000000 is
        # 1000000 ns of recorded time after it (all of W1), W2's start
        offs = sorted((g["start_ns"], g["offset_ns"], g["capture_window"])
                      for g in d["top_gaps"])
        expect(offs == [(1300000, 300000, {"window": 1, "offset_ns": 300000}),
                        (5000000, 1000000, {"window": 2, "offset_ns": 0})],
               f"range: gap offsets {offs}")
    # the same range on the trace recorded whole: [1200000, 5300000] =
    # 4100000 ns, idle 200000 + 3100000 (the whole gap before K3) = 3300000
    j = report_json("--range", "step", mkdb("v2", "v2whole"))
    if j:
        d = j["devices"][0]
        expect((d["window_ns"], d["busy_ns"], d["idle_ns"]) == (4100000, 800000, 3300000),
               f"range, whole trace: device {d}")


def check_nowindows():
    # the program never called cudaProfilerStart: every analysing verb says
    # so in one line and exits 2, as for a trace without GPU activity
    db = mkdb("nowin", "nowindows")
    out = os.path.join(WORK, "nowin")
    for argv in (["report", db], ["report", "--json", db], ["html", db, "-o", out + ".html"],
                 ["diff", db, db], ["report", db, db]):
        p = run(*argv)
        expect(p.returncode == 2, f"{argv[:2]}: exit {p.returncode}")
        expect(p.stdout == "", f"{argv[:2]}: stdout {p.stdout[:200]!r}")
        want = f"gapscope: {db}: {NEVER}\n"
        expect(p.stderr == want or (argv[1] == db and argv[0] == "report" and len(argv) == 3 and
                                    p.stderr.startswith(want)),
               f"{argv[:2]}: stderr {p.stderr!r}")
    p = run("info", db)
    expect(p.returncode == 0, f"info: exit {p.returncode}")
    expect("capture range     cudaProfilerApi: no window: the program never called "
           "cudaProfilerStart, nothing was recorded\n" in p.stdout, f"info: {p.stdout!r}")
    p = run("info", "--json", db)
    if p.returncode == 0:
        expect(json.loads(p.stdout)["capture"] ==
               {"range": "cudaProfilerApi", "windows": [], "captured_ns": 0,
                "starts_skipped": None, "damaged_rows_skipped": 0},
               f"info --json: {p.stdout[:300]!r}")
    # a recording that did not finish (start_ns, no stop_ns: the program died
    # inside its first cudaProfilerStart, as --no-sampling made it do on an
    # H100 on 2026-12-07) cannot tell whether a window was opened: it does not
    # say the program never called cudaProfilerStart
    db = mkdb("nowin_cut", "nowindows", "INSERT INTO meta VALUES('start_ns','1000');")
    p = run("report", db)
    cut = (f"gapscope: {db}: no capture window recorded: the recording did not finish (the "
           "program died or was killed before the collector wrote its windows; a window it "
           "opened is lost): nothing to analyse\n")
    expect(p.returncode == 2 and p.stdout == "" and p.stderr.endswith(cut) and
           "never called" not in p.stderr, f"unfinished: {p.returncode} {p.stderr!r}")
    p = run("info", db)
    expect(p.returncode == 0 and "capture range     cudaProfilerApi: no window recorded: the "
           "recording did not finish (a window the program opened before it died is lost)\n"
           in p.stdout, f"unfinished info: {p.stdout!r}")
    # GPU work outside every window (a damaged or odd trace): named too
    db = mkdb("nowin_ops", "nowindows", "INSERT INTO capture_windows VALUES(10,20);")
    p = run("report", db)
    expect(p.returncode == 2 and p.stderr ==
           f"gapscope: {db}: no GPU activity inside the 1 capture window (10 ns in all; "
           "recorded with --capture-range): the program's GPU work ran outside them, where "
           "nothing is recorded\n", f"no ops in windows: {p.returncode} {p.stderr!r}")


def check_whole():
    # schema v3 without meta capture_range, and v2: the whole run was
    # recorded, every figure over the GPU span
    for kind in ("v3whole", "v2whole"):
        db = mkdb(kind, kind)
        p = run("report", db)
        expect(p.returncode == 0 and p.stdout.splitlines()[1] == "selection: whole trace" and
               not any(l.startswith("capture") for l in p.stdout.splitlines()),
               f"{kind}: {p.stdout[:400]!r}")
        # offsets count from the window's start, all of it recorded: the gap
        # before K3 at 2000000 is +1.000 ms, the one before K4 at 5400000
        # +4.400 ms
        at = [l.split(":")[0].strip() for l in p.stdout.splitlines()
              if l.startswith("     ") and " at +" in l]
        expect("  largest gaps (time from the window start):" in p.stdout.splitlines() and
               at == ["1. at +1.000 ms", "2. at +300.000 us", "3. at +4.400 ms"],
               f"{kind}: gap offsets {at!r}")
        j = report_json(db)
        if j:
            d = j["devices"][0]
            expect(j["capture"] is None, f"{kind}: capture {j['capture']}")
            offs = sorted((g["start_ns"], g["offset_ns"], g["capture_window"])
                          for g in d["top_gaps"])
            expect(offs == [(1300000, 300000, None), (2000000, 1000000, None),
                            (5400000, 4400000, None)], f"{kind}: gap offsets {offs}")
            expect((d["window_ns"], d["busy_ns"], d["idle_ns"]) == (5000000, 1500000, 3500000),
                   f"{kind}: device {d}")
            expect(d["idle_by_cause_ns"] == causes(host_code=3340000, launch_latency=160000),
                   f"{kind}: idle by cause {d['idle_by_cause_ns']}")
        p = run("info", "--json", db)
        if p.returncode == 0:
            j = json.loads(p.stdout)
            expect(j["schema_version"] == (3 if kind == "v3whole" else 2) and
                   j["capture"] is None, f"{kind}: info {j['schema_version']} {j['capture']}")


# rows with a NULL or text time, or end < start, and a row inside W1 (the
# schema says NOT NULL: a damaged file's own table without it)
DAMAGED_ROWS = ("CREATE TABLE cw(start INTEGER, end INTEGER);"
                "INSERT INTO cw SELECT start, end FROM capture_windows ORDER BY rowid;"
                "DROP TABLE capture_windows; ALTER TABLE cw RENAME TO capture_windows;"
                "INSERT INTO capture_windows VALUES(NULL,3000000),(7000000,6500000),"
                "('x','y'),(1500000,1800000);"
                "INSERT INTO meta VALUES('capture.starts_skipped','4');")


def chrome_windows(path):
    """(origin_ns, [(name, ts, dur, window)]) of a Chrome export's capture
    track; the file must parse as JSON and name the track"""
    j = json.load(open(path, encoding="utf-8"))
    ev = j["traceEvents"]
    pids = {e["pid"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name" and
            e["args"]["name"] == "capture windows (record --capture-range)"}
    w = [(e["name"], e["ts"], e["dur"], e["args"]["window"]) for e in ev
         if e.get("cat") == "capture" and e["ph"] == "X" and e["pid"] in pids]
    expect(len(w) == sum(e.get("cat") == "capture" for e in ev), "capture slices off the track")
    return int(j["otherData"]["origin_ns"]), w


def check_damaged():
    # rows with a NULL or text time, or end < start, are skipped and counted;
    # a row inside W1 merges into it: the figures stay those of check_figures
    db = mkdb("skip", "capture", DAMAGED_ROWS)
    p = run("report", db)
    expect(p.returncode == 0, f"damaged rows: exit {p.returncode} {p.stderr!r}")
    expect(p.stdout.splitlines()[1:4] == [
        CAPTURE_LINE,
        "note: the program started tracing 4 more times, past the collector's 65,536 windows; "
        "those spans were not recorded (meta capture.starts_skipped)",
        "note: 3 damaged capture_windows rows skipped (a NULL time or end before start)"],
        f"damaged rows: {p.stdout.splitlines()[1:4]!r}")
    j = report_json(db)
    if j:
        expect(j["capture"] == {"range": "cudaProfilerApi", "windows": 2, "captured_ns": 2000000,
                                "starts_skipped": 4, "damaged_rows_skipped": 3},
               f"damaged rows: capture {j['capture']}")
        expect(j["devices"][0]["window_ns"] == 2000000, "damaged rows: window")
    p = run("info", db)
    # info lists the rows as recorded (the overlapping one too, counted
    # once in the total: W1 and W2, 2.000 ms)
    for want in ("capture range     cudaProfilerApi: 3 windows, 2.000 ms in all; only they were "
                 "recorded",
                 "capture window    2: 300.000 \u00b5s (300000 ns, start 1500000 .. end 1800000)",
                 "capture skipped   4 cudaProfilerStart calls past the collector's 65,536 "
                 "windows, not recorded",
                 "capture damaged   3 damaged capture_windows rows skipped (NULL time or end "
                 "before start)"):
        expect(want in p.stdout.splitlines(), f"damaged rows: info has no line {want!r}")
    # a time outside [0, 2^62] ns is damage, named as in every table
    db = mkdb("badtime", "capture", "INSERT INTO capture_windows VALUES(-5,100);")
    line = (f"gapscope: {db}: damaged trace: capture_windows row 3 has start -5, "
            "out of range (0 to 2^62 ns)\n")
    for argv in (["report", db], ["report", "--json", db], ["info", db],
                 ["html", db, "-o", os.path.join(WORK, "bad.html")], ["diff", db, db],
                 ["export", db, "--format", "chrome", "-o", os.path.join(WORK, "bad.json")],
                 ["export", db, "--format", "chrome", "--no-gaps", "-o",
                  os.path.join(WORK, "bad.json")]):
        p = run(*argv)
        expect(p.returncode == 2 and p.stderr == line,
               f"bad time: {argv[0]}: exit {p.returncode} {p.stderr!r}")


def check_verbs():
    db = mkdb("cap", "capture")
    page = os.path.join(WORK, "cap.html")
    p = run("html", db, "-o", page)
    expect(p.returncode == 0, f"html: exit {p.returncode} {p.stderr!r}")
    if p.returncode == 0:
        h = open(page, encoding="utf-8").read()
        expect("capture: only the program\u2019s cudaProfilerStart..cudaProfilerStop spans were "
               "recorded: 2 windows, 2 ms in all; time outside them is not analysed" in h,
               "html: capture note")
        expect("GPU window (captured)" in h, "html: card")
    check_html_page()
    p = run("diff", db, db)
    expect(p.returncode == 0, f"diff: exit {p.returncode} {p.stderr!r}")
    lines = p.stdout.splitlines()
    expect(f"  before: {db}, capture windows: 2, 2 ms in all (only they were recorded)" in lines,
           f"diff: {lines[:4]!r}")
    expect(any(l.split()[:4] == ["wall", "time", "(GPU", "span)"] and l.split()[4:7] ==
               ["2", "ms", "2"] for l in lines), f"diff: wall row {lines!r}")
    p = run("diff", "--json", db, mkdb("v2", "v2whole"))
    if p.returncode == 0:
        t = json.loads(p.stdout)["totals"]
        expect((t["wall_ns"]["before"], t["wall_ns"]["after"]) == (2000000, 5000000),
               f"diff --json wall {t['wall_ns']}")
        expect((t["capture_windows"]["before"], t["capture_windows"]["after"],
                t["captured_ns"]["before"]) == (2, 0, 2000000), f"diff --json capture {t}")
    else:
        expect(False, f"diff --json: exit {p.returncode} {p.stderr!r}")
    out = os.path.join(WORK, "cap.json")
    p = run("export", db, "--format", "chrome", "-o", out)
    expect(p.returncode == 0, f"chrome: exit {p.returncode} {p.stderr!r}")
    # the capture windows on a track of their own: times in us from the
    # first event, K1 at 1000000 = W1's start: W1 at 0.0 for 1000.0, W2
    # at 4000.0 for 1000.0
    if p.returncode == 0:
        expect(chrome_windows(out) == (1000000, [("capture window 1", 0.0, 1000.0, 1),
                                                 ("capture window 2", 4000.0, 1000.0, 2)]),
               f"chrome windows {chrome_windows(out)}")
    # the same with --no-gaps (no analysis), and with the damaged rows of
    # check_damaged: skipped, the row inside W1 merged into it
    for name, kind, extra, args in (
            ("nogaps", "capture", None, ["--no-gaps"]),
            ("skip", "capture", DAMAGED_ROWS, [])):
        o = os.path.join(WORK, name + ".json")
        p = run("export", mkdb(name, kind, extra), "--format", "chrome", *args, "-o", o)
        expect(p.returncode == 0 and chrome_windows(o)[1] ==
               [("capture window 1", 0.0, 1000.0, 1), ("capture window 2", 4000.0, 1000.0, 2)],
               f"chrome {name}: exit {p.returncode} {p.stderr!r}")
    # W1 opened at 500000, before the first event (K1 at 1000000): the
    # origin is the window's start, W1 at 0.0 for 1500.0, W2 at 4500.0, K1
    # at 500.0
    o = os.path.join(WORK, "early.json")
    p = run("export", mkdb("early", "capture", "UPDATE capture_windows SET start=500000 "
                           "WHERE start=1000000;"), "--format", "chrome", "-o", o)
    if p.returncode == 0:
        expect(chrome_windows(o) == (500000, [("capture window 1", 0.0, 1500.0, 1),
                                              ("capture window 2", 4500.0, 1000.0, 2)]),
               f"chrome early window {chrome_windows(o)}")
        k1 = [e["ts"] for e in json.load(open(o))["traceEvents"]
              if e.get("cat") == "kernel" and e["ts"] < 1000]
        expect(k1 == [500.0], f"chrome early window: K1 at {k1}")
    else:
        expect(False, f"chrome early window: exit {p.returncode} {p.stderr!r}")
    # a trace recorded whole has no such track
    o = os.path.join(WORK, "v2.json")
    p = run("export", mkdb("v2", "v2whole"), "--format", "chrome", "-o", o)
    expect(p.returncode == 0 and chrome_windows(o) == (1000000, []),
           f"chrome, whole trace: {p.returncode} {p.stderr!r}")
    csvdir = os.path.join(WORK, "csv")
    p = run("export", db, "--format", "csv", "-o", csvdir)
    expect(p.returncode == 0, f"csv: exit {p.returncode} {p.stderr!r}")
    if p.returncode == 0:
        rows = list(csv.reader(open(os.path.join(csvdir, "capture_windows.csv"), newline="")))
        expect(rows == [["start", "end"], ["1000000", "2000000"], ["5000000", "6000000"]],
               f"csv: {rows}")
        # the mode, in meta.csv as capture_mkdb wrote it (docs/export.md: a
        # capture trace's CSV export); captured_ns is the windows' sum,
        # 1000000 + 1000000, which the export leaves to the reader
        meta = dict(csv.reader(open(os.path.join(csvdir, "meta.csv"), newline="")))
        expect(meta.get("capture_range") == "cudaProfilerApi", f"csv: meta {meta}")
    p = run("info", db)
    expect(p.returncode == 0, f"info: exit {p.returncode}")
    for want in ("GPU window        device 0: 5.000 ms (5000000 ns, first op start 1000000 .. "
                 "last op end 6000000, 4 GPU ops; 2.000 ms of it inside the capture windows)",
                 "capture range     cudaProfilerApi: 2 windows, 2.000 ms in all; only they were "
                 "recorded",
                 "capture window    1: 1.000 ms (1000000 ns, start 1000000 .. end 2000000)",
                 "capture window    2: 1.000 ms (1000000 ns, start 5000000 .. end 6000000)"):
        expect(want in p.stdout.splitlines(), f"info: no line {want!r}")
    p = run("info", "--json", db)
    if p.returncode == 0:
        c = json.loads(p.stdout)["capture"]
        expect(c["windows"] == [{"start_ns": 1000000, "end_ns": 2000000, "duration_ns": 1000000},
                                {"start_ns": 5000000, "end_ns": 6000000, "duration_ns": 1000000}]
               and c["captured_ns"] == 2000000, f"info --json capture {c}")


def html_page(db, name):
    """the page `gapscope html` writes for db, or None (a failure noted)"""
    page = os.path.join(WORK, name + ".html")
    p = run("html", db, "-o", page)
    expect(p.returncode == 0, f"html {name}: exit {p.returncode} {p.stderr!r}")
    return open(page, encoding="utf-8").read() if p.returncode == 0 else None


def html_capture_block(h):
    """the "capture" object of the page's JSON data block, or None"""
    m = re.search(r'<script type="application/json" class="gs-data" data-run="0">\n(.*?)\n'
                  r'</script>', h, re.S)
    return json.loads(m.group(1)).get("capture") if m else "no data block"


def html_gap_cells(h):
    """the first cells of the largest-gaps table: its header, then each row's"""
    m = re.search(r"<h3>Largest idle gaps, GPU 0</h3>\n<table>(.*?)</table>", h, re.S)
    return re.findall(r"<tr><t[hd]>([^<]*)</t[hd]>", m.group(1)) if m else None


UNREC_KEY = ('<span class="unrec-key"><span class="sw unrec"></span>not recorded (outside the '
             'capture windows)</span>')


def check_html_page():
    # the page's timeline data, ns from t0 = the first event, K1's start
    # 1000000 (the first API call is at 1450000, NVTX "step" at 1200000),
    # to the last event's end, K4's 6000000: W1 [0, 1000000], W2 [4000000,
    # 5000000]; not recorded (hatched by page.js) only between them,
    # [1000000, 4000000]: nothing lies before W1 or after W2
    h = html_page(mkdb("cap", "capture"), "capture")
    if h:
        expect(html_capture_block(h) == {"windows": [[0, 1000000], [4000000, 5000000]],
                                         "unrecorded": [[1000000, 4000000]]},
               f"html: capture block {html_capture_block(h)}")
        expect(h.count(UNREC_KEY) == 1, "html: legend key of the not-recorded spans")
        expect("Hatched: time outside the capture windows (record --capture-range), where "
               "nothing was recorded: no idle GPU, and no figure counts it." in h,
               "html: hatch hint")
        # the largest gaps named as the text report names them (page units,
        # 3 significant digits): 300 us into W1, 400 us into W2, W2's start
        cells = html_gap_cells(h)
        expect(cells == ["capture window, time from its start", "in window 1 at +300 \u00b5s",
                         "in window 2 at +400 \u00b5s", "in window 2 at +0 ns"],
               f"html: gap table {cells}")
    # a launch call at [800000, 801000] before W1 (not in any window) and an
    # NVTX range [5900000, 6500000] past W2's end: t0 = 800000, last =
    # 6500000; W1 [200000, 1200000], W2 [4200000, 5200000]; not recorded:
    # [0, 200000] before W1, [1200000, 4200000] between, [5200000, 5700000]
    # after W2
    h = html_page(mkdb("edges", "capture",
                       "INSERT INTO api_calls(api,cbid,name_id,start,end,pid,tid,correlation_id,"
                       "return_code) VALUES(1,211,1,800000,801000,1,11,9,0);"
                       "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) "
                       "VALUES(5900000,6500000,0,4,1,11);"), "edges")
    if h:
        expect(html_capture_block(h) == {"windows": [[200000, 1200000], [4200000, 5200000]],
                                         "unrecorded": [[0, 200000], [1200000, 4200000],
                                                        [5200000, 5700000]]},
               f"html edges: capture block {html_capture_block(h)}")
    # W1 opening at 500000, before the first event (K1 at 1000000): its
    # start lies before t0 (-500000); nothing before it is hatched
    h = html_page(mkdb("early", "capture", "UPDATE capture_windows SET start=500000 "
                       "WHERE start=1000000;"), "early")
    if h:
        expect(html_capture_block(h) == {"windows": [[-500000, 1000000], [4000000, 5000000]],
                                         "unrecorded": [[1000000, 4000000]]},
               f"html early: capture block {html_capture_block(h)}")
    # recorded whole: no capture block, no key, no hint; the gaps' start
    # from t0 = 1000000: 1300000 -> 300 us, 2000000 -> 1 ms, 5400000 -> 4.4 ms
    h = html_page(mkdb("v2", "v2whole"), "v2whole")
    if h:
        expect(html_capture_block(h) is None, f"html whole: {html_capture_block(h)}")
        expect("unrec-key" not in h and "Hatched:" not in h, "html whole: hatch key or hint")
        cells = html_gap_cells(h)
        expect(cells == ["start", "1 ms", "300 \u00b5s", "4.4 ms"], f"html whole: gaps {cells}")


def check_advice():
    # capture_mkdb "spanning": gemm, relu back to back in steps of 400000 ns,
    # W1 [1000000, 2000000] holding gemm relu gemm relu gemm (the last from
    # 1800000), W2 [5000000, 6000000] relu (5000000) gemm relu (to 5600000).
    # Occurrences of "gemm relu" begin at gemm 1000000, 1400000, 1800000
    # and 5200000; the third ends with the relu of W2 at 5200000, across
    # the 3000000 ns nobody recorded (the loop went on there), so it is no
    # measured repetition and is left out: 3 occurrences of 400000 ns,
    # back to back within W1 (no hole) = measured 1200000, ops 1200000,
    # launch idle 0; as graph replays 1200000 + 3 x 2 x 1000 (default node
    # overhead) = 1206000: a saving of -6000 (-0.5%), no advice.
    # Device window: 1000000 of W1 + [5000000, 5600000] of W2 = 1600000.
    db = mkdb("span", "spanning")
    p = run("report", db)
    expect(p.returncode == 0, f"advice: exit {p.returncode} {p.stderr!r}")
    lines = p.stdout.splitlines()
    expect("Device 0: window 1.600 ms, busy 1.600 ms (utilisation 100.0%), idle 0 ns, 8 ops, "
           "0 gaps" in lines, f"advice: device line {lines!r}")
    expect("  stream 7 (device 0): 2 ops x 3 times; measured 1.200 ms, ops 1.200 ms, launch "
           "idle 0 ns; as graph replays ~1.206 ms" in lines, f"advice: sequence line {lines!r}")
    j = report_json(db)
    if j:
        q = [(a["ops"], a["count"], a["measured_ns"], a["op_time_ns"], a["launch_idle_ns"],
              a["estimate_ns"], a["advise"]) for a in j["graph_advice"]["sequences"]]
        expect(q == [(["gemm", "relu"], 3, 1200000, 1200000, 0, 1206000, False)],
               f"advice: json {q}")
    # the same rows recorded whole: the third occurrence is one, from 1800000
    # to 5200000 (the 3000000 ns hole between the kernels was traced):
    # 4 occurrences, measured 400000 x 3 + 3400000 = 4600000, ops 8 x
    # 200000 = 1600000, as graph replays 4600000 + 4 x 2 x 1000 = 4608000
    j = report_json(mkdb("spanw", "spanwhole"))
    if j:
        q = [(a["count"], a["measured_ns"], a["op_time_ns"], a["estimate_ns"])
             for a in j["graph_advice"]["sequences"]]
        expect(q == [(4, 4600000, 1600000, 4608000)], f"advice, whole trace: json {q}")


def check_lead():
    # --range step on capture_mkdb "spanning" (W1 [1000000, 2000000], W2
    # [5000000, 6000000]) with 4 ranges "step"; a range's wall for the
    # warm-up check is its part inside the windows.
    step = ("INSERT INTO strings VALUES(4,'step');"
            "INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES")
    # A: [1800000, 5200000] spans the 3000000 ns between the windows: full
    # wall 3400000, recorded 200000 + 200000 = 400000; then [5200000,
    # 5400000], [5400000, 5600000], [5600000, 5800000] of 200000 each.
    # Recorded walls 400000, 200000 x 3: lower median 200000, and 400000 is
    # 2x it, under 4x: no warm-up. (Full walls made the first 17x the
    # median, 85.0% of the walls: a warm-up that never was.)
    db = mkdb("leadA", "spanning", step + "(1800000,5200000,0,4,1,11),(5200000,5400000,0,4,1,11),"
              "(5400000,5600000,0,4,1,11),(5600000,5800000,0,4,1,11);")
    p = run("report", "--range", "step", db)
    expect(p.returncode == 0 and not any("a warm-up" in l for l in p.stdout.splitlines()),
           f"lead A: {p.returncode} {p.stdout[:900]!r}")
    j = report_json("--range", "step", db)
    if j:
        expect(j["verdict"]["leading_ranges"] is None,
               f"lead A: json {j['verdict']['leading_ranges']}")
    # B: [1000000, 2000000] all inside W1, then three of 200000 in W2:
    # walls 1000000, 200000 x 3, median 200000; 1000000 / 4 = 250000 >=
    # 200000: the first is a warm-up, 1000000 of 1600000 = 62.5%
    db = mkdb("leadB", "spanning", step + "(1000000,2000000,0,4,1,11),(5000000,5200000,0,4,1,11),"
              "(5200000,5400000,0,4,1,11),(5400000,5600000,0,4,1,11);")
    p = run("report", "--range", "step", db)
    expect("  the first of the 4 ranges took 1.000 ms (5x the median one, 200.000 us), 62.5% of "
           "their walls: a warm-up, counted below; --skip 1 leaves it out"
           in p.stdout.splitlines(), f"lead B: {p.stdout[:900]!r}")
    j = report_json("--range", "step", db)
    if j:
        expect(j["verdict"]["leading_ranges"] == {"count": 1, "wall_ns": 1000000, "share": 0.625,
                                                  "median_ns": 200000, "skip": 1},
               f"lead B: json {j['verdict']['leading_ranges']}")


CHECKS = {"advice": check_advice, "lead": check_lead, "figures": check_figures, "range": check_range, "nowindows": check_nowindows,
          "whole": check_whole, "damaged": check_damaged, "verbs": check_verbs}
CHECKS[CHECK]()
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
