#!/usr/bin/env python3
"""corrected_accuracy.py - how close the report's overhead-corrected figures
come to the untraced program (docs/collector.md, "Overhead correction"), over
interleaved untraced/traced pairs measured in one run.

  corrected_accuracy.py run-phases --build B --out DIR [--pairs 5]
                                   [--record-args "ARGS"]
      on the GPU machine: runs B/tests/gs_gap_phases untraced, then under
      `gapscope record ARGS`, PAIRS times in turn: DIR/u<i>.log,
      DIR/t<i>.log, DIR/t<i>.db. ARGS (split on blanks) e.g.
      "--activities kernel,runtime,nvtx" to see what a kind of records
      costs. Exits 77 without a GPU.
  corrected_accuracy.py phases DIR [--gapscope BIN] [--plain-after]
      per phase of tests/gpu/gap_phases.cu: the untraced wall (the program's
      own "phase NAME wall_us X"), the traced one, and the report's corrected
      wall of the NVTX range of that name; medians over the pairs and the
      median of the per-pair errors (corrected / untraced - 1). The run-*
      commands also keep `gapscope-calibrate --plain` run right after each
      traced run (t<i>.plain.log); with --plain-after, phases and decode
      read copies of the traces whose untraced launch figures are the mean
      of the calibration's (before the program) and those: how much the
      machine's drift during a run moves the correction.
  corrected_accuracy.py run-decode --build B --out DIR [--pairs 2]
                                   [--record-args "ARGS"]
      on the GPU machine: runs B/bin/gs_demo_decode_starvation --sample
      untraced, then under `gapscope record`, PAIRS times in turn:
      DIR/dec_u<i>.log, DIR/dec_t<i>.log, DIR/dec_t<i>.db. Exits 77 without
      a GPU.
  corrected_accuracy.py decode DIR [--gapscope BIN] [--plain-after]
      per pair and range of the decode demo (decode_eager,
      decode_one_graph, decode_bucketed_graphs): the untraced wall (the
      demo's untraced µs/token x its tokens), the traced and corrected walls
      of the NVTX range, and the demo's GPU utilisation (its GPU time per
      token behind a full queue over its µs/token) against the measured and
      corrected utilisation of the range (report --range).
  corrected_accuracy.py torch DIR [--config NAME] [--gapscope BIN]
      bench/overhead/torch_nosync.py pairs kept by `overhead_pairs.py --keep-rounds`
      (DIR/torch_nosync.untraced.r<i>.log, DIR/torch_nosync.NAME.r<i>.db):
      the wall of the range "steps" and the utilisation inside it, untraced
      (the program's range_us and util_pct: GPU time per step over untraced
      step time) against measured and corrected (range GPU busy less the
      kernel time the correction removed, over the corrected wall).
  corrected_accuracy.py realprogs DIR [DIR ...] [--gapscope BIN]
      the real programs of tools/gpu-realprogs.sh (DIR/<name>.untraced.log,
      DIR/<name>.traced.log, DIR/<name>.db): transformers GPT-2 `generate`
      (range "generate" against the untraced run's wall_us) and
      graph_check.py (ranges "eager" and "graph" against the untraced
      step_us x steps; steps = the traced range's wall over the traced run's
      own step_us), and bench/real/train_loop.py (its "step" ranges but the
      first 5, its default --warmup, against the untraced step_us x their
      count: the warm-up ranges are renamed in a temporary copy of the
      trace), and bench/overhead/torch_nosync.py (range "steps" against the untraced
      range_us; and its utilisation in "steps": the program's util_pct against
      the report's measured and corrected). Where the pair ran under
      collector/launch_interpose.c (DIR/<name>.untraced.ip, DIR/<name>.traced.ip),
      the mean launch call timed from outside, untraced and traced, against
      what the report's correction takes off a launch call (per_call_ns);
      with several pairs, that correction's error over all of them, and per
      program how much dearer its untraced launches were than the
      calibration's (calibration.plain_spaced_launch_ns).
      Where the traces have the threads' CPU time (meta thread_cpu_ns.*,
      collectors since 2026-12-05), each traced process's total, its
      collector threads' (gs-*) and its other threads' by name.
      Each DIR is one pair; with several, the medians follow.
  corrected_accuracy.py ab OUT.txt [OUT.txt ...] [--range NAME] [--gapscope BIN]
      bench/overhead/torch_nosync.py --ab R run under `gapscope record --capture-range
      cudaProfilerApi` (OUT.txt: its output; the trace beside it, OUT.db, or
      its `report --json`, OUT.json; also bench/real/hf_generate.py --ab,
      --range generate, and bench/real/train_loop.py --ab, --range step): the
      truth comes from the same process,
      the untraced phases of each round, measured by the program a moment
      before or after the traced ones. The sum of the traced phases' range
      "steps" walls, traced and corrected, against the sum of the untraced
      phases'; with the program's "ab gpu_us_per_step" line, the
      utilisation inside "steps" (GPU time per step over the untraced step
      time) against the report's measured and corrected. The untraced phases
      run with the collector loaded but off (what that costs:
      docs/record.md), so this measures what the records cost.
  corrected_accuracy.py summary DIR [--gapscope BIN] [--plain-after]
      all of the above that one GPU run left in DIR: DIR/phases,
      DIR/dec_*, DIR/torch, DIR/rp and DIR/p1..pN, each where it is there.
It prints figures; it asserts nothing. `gapscope` defaults to build/bin.
"""
import argparse
import functools
import glob
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "overhead"))
from overhead_pairs import clean_env, have_gpu  # noqa: E402  (bench/overhead/)

PHASE = re.compile(r"^phase (\S+) wall_us ([0-9.]+)", re.M)
# the decode demo's table rows: approach, graphs, us/token, GPU us/tok, GPU util
DECODE = re.compile(r"^\s+(eager|one graph|graphs per bucket)\b.*?\s+(\d+)\s+([0-9.]+)\s+"
                    r"([0-9.]+)\s+([0-9.]+)%", re.M)
DECODE_RANGE = {"eager": "decode_eager", "one graph": "decode_one_graph",
                "graphs per bucket": "decode_bucketed_graphs"}
# the demo's tokens per range: "96 tokens, 1 repeat + 1 warm-up" -> 192
DECODE_TOKENS = re.compile(r"(\d+) tokens,\s*(\d+) repeats? \+ (\d+) warm-up")
TORCH = re.compile(r"^torch_nosync us_per_step=\S+ range_us=([0-9.]+) "
                   r"gpu_us_per_step=\S+ util_pct=([0-9.]+)", re.M)


def refs_of(db):
    """the untraced reference runs beside a trace (<db>.ref<K>.db, from
    record --reference), sorted"""
    return sorted(glob.glob(glob.escape(db[:-3] if db.endswith(".db") else db) +
                            ".ref[0-9]*.db"))


def meta(db, like):
    """{key: value} of a trace's meta rows whose key is LIKE like, read
    only; None when the file is no SQLite trace"""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        rows = con.execute("SELECT key, value FROM meta WHERE key LIKE ?", (like,)).fetchall()
        con.close()
    except sqlite3.Error:
        return None
    return dict(rows)


@functools.lru_cache(maxsize=None)
def report(gs, db):
    """gapscope report --json of db, given its reference runs (the
    <db>.ref<K>.db beside it, from record --reference) where it has any"""
    args = [a for r in refs_of(db) for a in ("--reference", r)]
    p = subprocess.run([gs, "report", "--json", *args, db], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print(f"!!! {gs} report --json {db}: exit {p.returncode}: {p.stderr.strip()}")
        return None
    return json.loads(p.stdout)


def ranges(rep):
    """{name: (wall_ns, corrected_wall_ns, gpu_busy_ns, kernel_time_removed_ns)}"""
    busy = {r["name"]: r.get("gpu_busy_ns", 0) for r in rep.get("nvtx") or []}
    oc = rep.get("overhead_corrected") or {}
    return {r["name"]: (r["wall_ns"], r["corrected_wall_ns"], busy.get(r["name"], 0),
                        r.get("kernel_time_removed_ns", 0))
            for r in oc.get("nvtx") or []}


def corrected_busy_pct(rep, name):
    """the report's corrected utilisation inside range `name` (its "busy
    corr."), None where the report is older than that column"""
    for r in (rep.get("overhead_corrected") or {}).get("nvtx") or []:
        if r["name"] == name and "corrected_busy_share" in r:
            return 100.0 * r["corrected_busy_share"]
    return None


def pct(a, b):
    return 100.0 * (a / b - 1.0)


def run_pairs(a, prog, prefix, timeout):
    """prog untraced, then under `gapscope record`, a.pairs times in turn:
    a.out/<prefix>u<i>.log, <prefix>t<i>.log, <prefix>t<i>.db"""
    if not have_gpu():
        print("no NVIDIA GPU here (nvidia-smi -L): skipped")
        return 77
    os.makedirs(a.out, exist_ok=True)
    gs = os.path.join(a.build, "bin", "gapscope")
    env = clean_env()
    for i in range(1, a.pairs + 1):
        for tag, cmd in (("u", prog),
                         ("t", [gs, "record", "-o", os.path.join(a.out, f"{prefix}t{i}.db")]
                          + a.record_args.split() + ["--"] + prog)):
            with open(os.path.join(a.out, f"{prefix}{tag}{i}.log"), "w") as f:
                r = subprocess.run(cmd, env=env, stdout=f, stderr=subprocess.STDOUT,
                                   timeout=timeout)
            if r.returncode != 0:
                print(f"!!! pair {i} {tag}: exit {r.returncode}")
        # the untraced launch figures again, right after the traced run: how far
        # they drift from the calibration's before it (--plain-after)
        cal = os.path.join(a.build, "lib", "gapscope-calibrate")
        if os.path.exists(cal):
            with open(os.path.join(a.out, f"{prefix}t{i}.plain.log"), "w") as f:
                subprocess.run([cal, "--plain"], env=env, stdout=f, stderr=subprocess.STDOUT,
                               timeout=60)
    return 0


PLAIN = re.compile(r"plain launch=(\d+) legacy=(\d+) driver=(\d+)")
PLAIN_KEYS = ("calibration.plain_launch_ns", "calibration.plain_legacy_launch_ns",
              "calibration.plain_driver_launch_ns")
_tmp = None


def traced_db(a, db):
    """db, or with --plain-after a copy of it whose untraced launch figures are the
    means of its calibration's and those measured after the traced run
    (<db minus .db>.plain.log), when that log exists"""
    global _tmp
    log = db[:-3] + ".plain.log"
    m = PLAIN.search(open(log).read()) if a.plain_after and os.path.exists(log) else None
    if not m:
        return db
    if _tmp is None:
        _tmp = tempfile.TemporaryDirectory()
    cp = os.path.join(_tmp.name, os.path.basename(os.path.dirname(db)) + "_" +
                      os.path.basename(db))
    shutil.copyfile(db, cp)
    con = sqlite3.connect(cp)
    for key, after in zip(PLAIN_KEYS, m.groups()):
        row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row:
            con.execute("UPDATE meta SET value = ? WHERE key = ?",
                        (str((int(row[0]) + int(after)) // 2), key))
    con.commit()
    con.close()
    return cp


def run_phases(a):
    return run_pairs(a, [os.path.join(a.build, "tests", "gs_gap_phases")], "", 120)


def phases(a):
    rows = {}
    i = 1
    while os.path.exists(os.path.join(a.dir, f"u{i}.log")):
        u = dict((m.group(1), float(m.group(2)) * 1e3)
                 for m in PHASE.finditer(open(os.path.join(a.dir, f"u{i}.log")).read()))
        rep = report(a.gapscope, traced_db(a, os.path.join(a.dir, f"t{i}.db")))
        if rep is not None:
            rg = ranges(rep)
            for name, uw in u.items():
                if name in rg:
                    rows.setdefault(name, []).append((uw, rg[name][0], rg[name][1]))
        i += 1
    if not rows:
        print(f"no pairs in {a.dir} (u<i>.log + t<i>.db)")
        return 2
    print(f"{len(next(iter(rows.values())))} pairs; ms; error = corrected / untraced - 1, "
          "median over the pairs (each pair's error after the bar)")
    print(f"{'phase':<18} {'untraced':>9} {'traced':>9} {'corrected':>9} {'error':>7} |")
    for name, v in rows.items():
        print(median_row(f"{name:<18}", v))
    return 0


def median_row(label, v):
    """label, then the medians of [(untraced, traced, corrected ns)] in ms, the median
    error and each pair's after a bar"""
    errs = [pct(c, u) for u, _, c in v]
    return (f"{label} {statistics.median(x[0] for x in v) / 1e6:9.2f} "
            f"{statistics.median(x[1] for x in v) / 1e6:9.2f} "
            f"{statistics.median(x[2] for x in v) / 1e6:9.2f} "
            f"{statistics.median(errs):+6.1f}% | " + " ".join(f"{e:+.1f}" for e in errs))


def run_decode(a):
    return run_pairs(a, [os.path.join(a.build, "bin", "gs_demo_decode_starvation"),
                         "--sample"], "dec_", 300)


def decode(a):
    out = []
    i = 1
    while os.path.exists(os.path.join(a.dir, f"dec_u{i}.log")):
        text = open(os.path.join(a.dir, f"dec_u{i}.log")).read()
        t = DECODE_TOKENS.search(text)
        db = os.path.join(a.dir, f"dec_t{i}.db")
        if t and os.path.exists(db):
            db = traced_db(a, db)
            tokens = int(t.group(1)) * (int(t.group(2)) + int(t.group(3)))
            for m in DECODE.finditer(text):
                name = DECODE_RANGE[m.group(1)]
                p = subprocess.run([a.gapscope, "report", "--json", "--range", name, db],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                if p.returncode != 0:
                    print(f"!!! {a.gapscope} report --range {name} {db}: exit {p.returncode}")
                    continue
                rep = json.loads(p.stdout)
                oc = rep.get("overhead_corrected") or {}
                rg = ranges(rep).get(name)
                if not rg or not rep.get("devices") or not oc.get("devices"):
                    continue
                out.append((i, name, float(m.group(3)) * tokens * 1e3, rg[0], rg[1],
                            float(m.group(5)), 100.0 * rep["devices"][0]["utilisation"],
                            100.0 * oc["devices"][0]["utilisation"]))
        i += 1
    if not out:
        print(f"no decode demo pairs in {a.dir} (dec_u<i>.log + dec_t<i>.db)")
        return 2
    print("decode demo; walls in ms (untraced: the demo's us/token x tokens); utilisation "
          "in % (truth: the demo's GPU util)")
    print(f"{'pair':<5} {'range':<24} {'untraced':>9} {'traced':>9} {'corrected':>9} "
          f"{'error':>7}   {'util truth':>10} {'traced':>7} {'corrected':>9} {'diff':>6}")
    for k, name, uw, tw, cw, uu, tu, cu in out:
        print(f"{k:<5} {name:<24} {uw / 1e6:9.2f} {tw / 1e6:9.2f} {cw / 1e6:9.2f} "
              f"{pct(cw, uw):+6.1f}%   {uu:10.1f} {tu:7.1f} {cu:9.1f} {cu - uu:+6.1f}")
    return 0


def torch(a):
    v = []
    i = 1
    while os.path.exists(os.path.join(a.dir, f"torch_nosync.untraced.r{i}.log")):
        m = TORCH.search(open(os.path.join(a.dir, f"torch_nosync.untraced.r{i}.log")).read())
        db = os.path.join(a.dir, f"torch_nosync.{a.config}.r{i}.db")
        rep = report(a.gapscope, db) if m and os.path.exists(db) else None
        rg = ranges(rep).get("steps") if rep else None
        if m and rg:
            wall, corr, busy, kern = rg
            v.append((float(m.group(1)) * 1e3, float(m.group(2)), wall, corr,
                      100.0 * busy / wall if wall else 0.0,
                      100.0 * (busy - kern) / corr if corr else 0.0))
        i += 1
    if not v:
        print(f"no torch_nosync pairs for config {a.config} in {a.dir}")
        return 2
    print(f"{len(v)} pairs (config {a.config}); range \"steps\": wall in ms, utilisation "
          "in % of the range")
    print(f"{'pair':<5} {'untraced':>9} {'traced':>9} {'corrected':>9} {'error':>7}   "
          f"{'util untraced':>13} {'traced':>7} {'corrected':>9} {'diff':>6}")
    for k, (uw, uu, tw, cw, tu, cu) in enumerate(v, 1):
        print(f"{k:<5} {uw / 1e6:9.2f} {tw / 1e6:9.2f} {cw / 1e6:9.2f} {pct(cw, uw):+6.1f}%   "
              f"{uu:13.1f} {tu:7.1f} {cu:9.1f} {cu - uu:+6.1f}")
    med = statistics.median
    print(f"{'med':<5} {med(x[0] for x in v) / 1e6:9.2f} {med(x[2] for x in v) / 1e6:9.2f} "
          f"{med(x[3] for x in v) / 1e6:9.2f} {med(pct(x[3], x[0]) for x in v):+6.1f}%   "
          f"{med(x[1] for x in v):13.1f} {med(x[4] for x in v):7.1f} "
          f"{med(x[5] for x in v):9.1f} {med(x[5] - x[1] for x in v):+6.1f}")
    return 0


GENERATE = re.compile(r"^generate tokens \d+ wall_us ([0-9.]+)", re.M)
STEP_US = re.compile(r"^(eager|graph) step_us ([0-9.]+)", re.M)
TRAIN_US = re.compile(r"^train step_us ([0-9.]+)", re.M)
TRAIN_WARMUP = 5  # bench/real/train_loop.py's default --warmup
# collector/launch_interpose.c's line per process
INTERPOSE = re.compile(r"^launch_interpose pid=\d+ calls=(\d+) .*?spaced=(\d+) spaced_p50_ns=\d+ "
                       r"spaced_mean_ns=(\d+) b2b=(\d+) b2b_p50_ns=\d+ b2b_mean_ns=(\d+)"
                       r"(?: exe=(\S+))?", re.M)


def interposed(path):
    """(calls, mean ns a call) of the program's process in a launch_interpose
    output, the means of its classes weighted; None without. Preloaded into
    `gapscope record`, the interposer also times gapscope-calibrate's
    processes (22390 launch calls, most back to back, more than most
    programs make): the program's is the process with the most launch calls
    of those not named gapscope-calibrate, or, in a file whose lines name no
    program (before 2026-12-05 18:30 UTC), the last line (the calibration's
    processes end before the program starts)."""
    if not os.path.exists(path):
        return None
    lines = [m.groups() for m in INTERPOSE.finditer(open(path).read())]
    if lines and all(g[5] is None for g in lines):
        lines = lines[-1:]
    best = None
    for g in lines:
        if g[5] == "gapscope-calibrate":
            continue
        calls, ns, sm, nb, bm = (int(x) for x in g[:5])
        if calls and (best is None or calls > best[0]):
            best = (calls, (ns * sm + nb * bm) / calls)
    return best


def torch_util(gapscope, d):
    """(truth, traced, corrected) utilisation in % of torch_nosync.py's range
    "steps" in one pair's DIR (as `torch` reads it), or None"""
    log, db = (os.path.join(d, "torch_nosync" + e) for e in (".untraced.log", ".db"))
    m = TORCH.search(open(log).read()) if os.path.exists(log) else None
    rep = report(gapscope, db) if m and os.path.exists(db) else None
    rg = ranges(rep).get("steps") if rep else None
    if not rg or not rg[0] or not rg[1]:
        return None
    wall, corr, busy, kern = rg
    return float(m.group(2)), 100.0 * busy / wall, 100.0 * (busy - kern) / corr


def cal_plain_spaced(db):
    """the calibration's untraced launch after host work
    (calibration.plain_spaced_launch_ns) in a trace's meta, or None"""
    v = (meta(db, "calibration.plain_spaced_launch_ns") or {}).get(
        "calibration.plain_spaced_launch_ns")
    return int(v) if v else None


def ref_launch(db):
    """the mean launch call of a trace's untraced reference runs
    (<db>.ref<K>.db, meta reference.launch_*, their spaced and back-to-back
    means weighted; the median over the runs), or None"""
    vals = []
    for ref in refs_of(db):
        m = meta(ref, "reference.launch_%") or {}
        g = lambda k: int(m.get("reference.launch_" + k, 0) or 0)
        if g("calls"):
            vals.append((g("spaced_calls") * g("spaced_mean_ns") +
                         g("b2b_calls") * g("b2b_mean_ns")) / g("calls"))
    return statistics.median(vals) if vals else None


def launch_rows(gapscope, d):
    """[(program, untraced ns, traced ns, report's ns, calibration's ns,
    reference runs' ns)] a launch call, where the pair ran under
    libgs_launch_interpose.so: what tracing added to the program's own
    launch calls, timed from outside, against what the report's correction
    takes off a launch call (overhead_corrected.per_call_ns); the
    calibration's untraced launch after host work (None where the trace has
    none), which the correction takes for the program's own untraced launch
    without reference runs; and the reference runs' own (None without)"""
    rows = []
    for prog in ("torch_nosync", "train_loop", "graph_check", "hf_generate"):
        u = interposed(os.path.join(d, prog + ".untraced.ip"))
        t = interposed(os.path.join(d, prog + ".traced.ip"))
        db = os.path.join(d, prog + ".db")
        rep = report(gapscope, db) if u and t and os.path.exists(db) else None
        oc = (rep or {}).get("overhead_corrected") or {}
        if "per_call_ns" in oc:
            rows.append((prog, u[1], t[1], oc["per_call_ns"], cal_plain_spaced(db),
                         ref_launch(db)))
    return rows


def launch_fit(runs):
    """Lines on the report's correction a call against what tracing added
    (runs: [(program, added, report, untraced, calibration's untraced,
    traced less the reference runs' launch or None)]) over all the runs: its
    mean absolute and median error, and its correlation with the truth; then
    the median of the program's untraced launch less the calibration's, per
    program (what the correction takes too much where positive); and, where
    the traces have reference runs, the error against their own launch (the
    figure the report works from: the spread between untraced runs drops
    out)"""
    med = statistics.median
    err = [r[2] - r[1] for r in runs]
    out = [f"the report's correction a launch call against what tracing added (from outside), "
           f"{len(runs)} runs: mean absolute error {statistics.mean(abs(e) for e in err):.0f} ns, "
           f"median error {med(err):+.0f} ns"]
    if len(runs) > 2 and len({r[1] for r in runs}) > 1 and len({r[2] for r in runs}) > 1:
        out[0] += f", correlation {statistics.correlation([r[2] for r in runs], [r[1] for r in runs]):.2f}"
    for prog in sorted({r[0] for r in runs}):
        v = [r for r in runs if r[0] == prog]
        gap = [r[3] - r[4] for r in v if r[4] is not None]
        line = (f"  {prog:<12} median error {med(r[2] - r[1] for r in v):+6.0f} ns over {len(v)}")
        if gap:
            line += (f"; its untraced launch less the calibration's untraced one: "
                     f"{med(gap):+6.0f} ns (median)")
        out.append(line)
    rr = [r for r in runs if r[5] is not None]
    if rr:
        err = [r[2] - r[5] for r in rr]
        out.append(f"against the reference runs' own launch (traced from outside less theirs), "
                   f"{len(rr)} runs: mean absolute error "
                   f"{statistics.mean(abs(e) for e in err):.0f} ns, median error {med(err):+.0f} ns")
        for prog in sorted({r[0] for r in rr}):
            out.append(f"  {prog:<12} median error "
                       f"{med(r[2] - r[5] for r in rr if r[0] == prog):+6.0f} ns")
    return out


def thread_cpu(db):
    """(process ns, [(thread name, ns, threads)] largest first) from a trace's
    meta process.cpu_ns / thread_cpu_ns.<name> / thread_count.<name>
    (collectors since 2026-12-05), or None"""
    m = meta(db, "%")
    if m is None:
        return None
    names = [(k.split(".", 1)[1], int(v)) for k, v in m.items()
             if k.startswith("thread_cpu_ns.") and v.isdigit()]
    if not names:
        return None
    pc = m.get("process.cpu_ns", "")
    return (int(pc) if pc.isdigit() else None,
            sorted(((n, ns, int(m.get(f"thread_count.{n}", "0") or 0)) for n, ns in names),
                   key=lambda x: -x[1]))


def thread_cpu_rows(d):
    """["program: ..."] lines of the CPU the traced processes' threads used"""
    lines = []
    for prog in ("torch_nosync", "train_loop", "graph_check", "hf_generate"):
        db = os.path.join(d, prog + ".db")
        tc = thread_cpu(db) if os.path.exists(db) else None
        if not tc:
            continue
        proc, names = tc
        ours = sum(ns for n, ns, _ in names if n.startswith("gs-"))
        rest = ", ".join([f"{n} {ns / 1e6:.0f}" + (f" ({k})" if k > 1 else "")
                          for n, ns, k in names if not n.startswith("gs-")][:5])
        lines.append(f"  {prog:<12} process {proc / 1e6 if proc is not None else float('nan'):.0f}"
                     f", the collector's gs-* threads {ours / 1e6:.0f}; {rest}")
    return lines


def realprogs(a):
    """Each DIR one pair; with several, the median error per range after."""
    every, every_launch, every_util, every_ref = {}, {}, [], {}
    for d in a.dir:
        rows = realprogs_dir(a.gapscope, d)
        if rows is None:
            print(f"no real programs in {d} (<name>.untraced.log, <name>.db)")
            continue
        print(f"{d}: ms; error = corrected / untraced - 1")
        print(f"{'program':<12} {'range':<10} {'untraced':>9} {'traced':>9} {'corrected':>9} "
              f"{'error':>7}")
        for prog, name, uw, tw, cw in rows:
            print(f"{prog:<12} {name:<10} {uw / 1e6:9.2f} {tw / 1e6:9.2f} {cw / 1e6:9.2f} "
                  f"{pct(cw, uw):+6.1f}%")
            every.setdefault((prog, name.split()[0]), []).append((uw, tw, cw))
        rr = ref_rows(a.gapscope, d)
        if rr:
            print("against the record's own untraced reference runs: ms; error = corrected / "
                  "reference - 1")
            for prog, name, rw, cw in rr:
                print(f"  {prog:<12} {name:<10} reference {rw / 1e6:9.2f} corrected "
                      f"{cw / 1e6:9.2f} {pct(cw, rw):+6.1f}%")
                every_ref.setdefault((prog, name), []).append(pct(cw, rw))
        tu = torch_util(a.gapscope, d)
        if tu:
            print(f"torch_nosync utilisation of \"steps\", %: untraced {tu[0]:.1f}, traced "
                  f"{tu[1]:.1f}, corrected {tu[2]:.1f} ({tu[2] - tu[0]:+.1f} points)")
            every_util.append(tu)
        lr = launch_rows(a.gapscope, d)
        if lr:
            print("launch calls timed from outside (libgs_launch_interpose.so), mean ns a call: "
                  "traced - untraced against the report's correction a call")
            for prog, u, t, c, cu, ru in lr:
                print(f"  {prog:<12} untraced {u:7.0f} traced {t:7.0f} added {t - u:+6.0f} "
                      f"report {c:6.0f}" + (f" reference runs {ru:7.0f}" if ru else ""))
                every_launch.setdefault(prog, []).append(
                    (t - u, c, u, cu, t - ru if ru else None))
        tl = thread_cpu_rows(d)
        if tl:
            print("CPU of the traced processes, ms (meta thread_cpu_ns; thread count after "
                  "a name where more than one):")
            print("\n".join(tl))
    if not every:
        return 2
    if len(a.dir) > 1:
        print("medians over the pairs (each pair's error after the bar)")
        for (prog, name), v in every.items():
            print(median_row(f"{prog:<12} {name:<10}", v))
        med = statistics.median
        if every_ref:
            print("against the record's own reference runs, medians (each run's error after "
                  "the bar)")
            for (prog, name), v in every_ref.items():
                print(f"{prog:<12} {name:<10} {med(v):+6.1f}% | "
                      + " ".join(f"{x:+.1f}" for x in v))
        v = every_util
        if v:
            print(f"torch_nosync utilisation, %: untraced {med(x[0] for x in v):.1f}, traced "
                  f"{med(x[1] for x in v):.1f}, corrected {med(x[2] for x in v):.1f}, "
                  f"corrected - untraced {med(x[2] - x[0] for x in v):+.1f} points "
                  f"(medians of {len(v)})")
        for prog, v in every_launch.items():
            print(f"{prog:<12} launch call: added {med(x[0] for x in v):+6.0f} ns (from outside), "
                  f"report {med(x[1] for x in v):6.0f} ns (medians of {len(v)})")
        runs = [(p,) + x for p, v in every_launch.items() for x in v]
        if len(runs) > 1:
            print("\n".join(launch_fit(runs)))
    return 0


REF_RANGES = (("hf_generate", "generate"), ("torch_nosync", "steps"), ("graph_check", "eager"),
              ("graph_check", "graph"), ("train_loop", "step"))


def ref_rows(gapscope, d):
    """[(program, range, reference wall, corrected ns)] of one pair's DIR: each
    range's corrected wall against the traced run's own untraced reference
    runs (record --reference, <name>.ref<K>.db; the report's
    nvtx[].untraced), which ran right after it, a closer truth on a noisy
    host than the pair's untraced run; [] without reference runs. The
    training loop's range counts every step, warm-up included."""
    rows = []
    for prog, name in REF_RANGES:
        db = os.path.join(d, prog + ".db")
        if not os.path.exists(db) or not refs_of(db):
            continue
        rep = report(gapscope, db)
        rg = ranges(rep).get(name) if rep else None
        u = next((r.get("untraced") for r in (rep or {}).get("nvtx") or []
                  if r["name"] == name), None)
        if rg and u and u.get("wall_ns"):
            rows.append((prog, name, u["wall_ns"], rg[1]))
    return rows


def realprogs_dir(gapscope, d):
    """[(program, range, untraced, traced, corrected ns)] of one pair's DIR, or None"""
    rows = []
    path = lambda n, ext: os.path.join(d, n + ext)
    # one range against the untraced run's own wall of it (us)
    for prog, name, pattern in (("hf_generate", "generate", GENERATE),
                                ("torch_nosync", "steps", TORCH)):
        if os.path.exists(path(prog, ".untraced.log")) and os.path.exists(path(prog, ".db")):
            m = pattern.search(open(path(prog, ".untraced.log")).read())
            rep = report(gapscope, path(prog, ".db"))
            rg = ranges(rep).get(name) if rep else None
            if m and rg:
                rows.append((prog, name, float(m.group(1)) * 1e3, rg[0], rg[1]))
    if all(os.path.exists(path("graph_check", e)) for e in (".untraced.log", ".traced.log", ".db")):
        u = dict(STEP_US.findall(open(path("graph_check", ".untraced.log")).read()))
        t = dict(STEP_US.findall(open(path("graph_check", ".traced.log")).read()))
        rep = report(gapscope, path("graph_check", ".db"))
        rg = ranges(rep) if rep else {}
        for name in ("eager", "graph"):
            if name in u and name in t and name in rg and float(t[name]) > 0:
                steps = round(rg[name][0] / (float(t[name]) * 1e3))
                rows.append(("graph_check", name, float(u[name]) * 1e3 * steps, rg[name][0],
                             rg[name][1]))
    if os.path.exists(path("train_loop", ".untraced.log")) and \
            os.path.exists(path("train_loop", ".db")):
        m = TRAIN_US.search(open(path("train_loop", ".untraced.log")).read())
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "train_loop.db")
            shutil.copy(path("train_loop", ".db"), db)
            c = sqlite3.connect(db)
            c.execute("INSERT INTO strings(id, value) SELECT max(id) + 1, 'warm-up' FROM strings")
            c.execute("UPDATE nvtx SET text_id = (SELECT id FROM strings WHERE value = "
                      "'warm-up') WHERE id IN (SELECT n.id FROM nvtx n JOIN strings s ON "
                      "s.id = n.text_id WHERE s.value = 'step' ORDER BY n.start LIMIT ?)",
                      (TRAIN_WARMUP,))
            steps = c.execute("SELECT count(*) FROM nvtx n JOIN strings s ON s.id = n.text_id "
                              "WHERE s.value = 'step'").fetchone()[0]
            c.commit()
            c.close()
            rep = report(gapscope, db)
        rg = ranges(rep).get("step") if rep else None
        if m and rg and steps:
            rows.append(("train_loop", f"step x{steps}", float(m.group(1)) * 1e3 * steps,
                         rg[0], rg[1]))
    return rows or None


AB_ROUND = re.compile(r"^ab round=\d+ untraced_us=([0-9.]+) traced_us=([0-9.]+)", re.M)
AB_STEPS = re.compile(r"^ab median_ratio=\S+ rounds=\d+ steps=(\d+)", re.M)
AB_GPU = re.compile(r"^ab gpu_us_per_step=([0-9.]+)", re.M)


def ab(a):
    """torch_nosync.py --ab runs: corrected walls against the same process's
    untraced phases"""
    v = []
    for out in a.files:
        text = open(out).read()
        rounds = [(float(u), float(t)) for u, t in AB_ROUND.findall(text)]
        steps = AB_STEPS.search(text)
        stem = out[:-4] if out.endswith(".txt") else out
        if os.path.exists(stem + ".json"):
            rep = json.load(open(stem + ".json"))
        elif os.path.exists(stem + ".db"):
            rep = report(a.gapscope, stem + ".db")
        else:
            rep = None
        rg = ranges(rep).get(a.range) if rep else None
        if not rounds or not steps or not rg or not rg[1]:
            print(f"!!! {out}: no ab rounds, no trace ({stem}.db or .json) or no range "
                  f"\"{a.range}\"")
            continue
        n = int(steps.group(1))
        u = sum(r[0] for r in rounds) * n * 1e3  # ns
        t = sum(r[1] for r in rounds) * n * 1e3
        wall, corr, busy, kern = rg
        g = AB_GPU.search(text)
        cb = corrected_busy_pct(rep, a.range)
        cb = cb if cb is not None else 100.0 * (busy - kern) / corr
        if g:  # the program measured its GPU time per step behind a full queue
            mean_u = sum(r[0] for r in rounds) / len(rounds)
            util = (100.0 * float(g.group(1)) / mean_u, 100.0 * busy / wall, cb, "queue")
        else:
            # no such measurement (generate, a training step): the GPU work is the
            # traced phases' busy time less what the correction took off the kernels,
            # done in the untraced phases too, over their wall as the program timed it
            util = (100.0 * (busy - kern) / u, 100.0 * busy / wall, cb, "kernels")
        v.append((os.path.basename(stem), len(rounds), u, t, wall, corr, util))
    if not v:
        return 2
    print(f"range \"{a.range}\", all traced phases: walls in ms; untraced = the same "
          "process's untraced phases (the program's timing)")
    print(f"{'run':<10} {'rounds':>6} {'untraced':>9} {'traced':>9} {'in trace':>9} "
          f"{'corrected':>9} {'error':>7} {'raw':>7}   {'util truth':>10} {'traced':>7} "
          f"{'corrected':>9} {'points':>6}")
    for name, k, u, t, wall, corr, util in v:
        us = (f"{util[0]:10.1f} {util[1]:7.1f} {util[2]:9.1f} {util[2] - util[0]:+6.1f} ({util[3]})"
              if util else f"{'-':>10} {'-':>7} {'-':>9}")
        print(f"{name:<10} {k:6d} {u / 1e6:9.1f} {t / 1e6:9.1f} {wall / 1e6:9.1f} "
              f"{corr / 1e6:9.1f} {pct(corr, u):+6.1f}% {pct(wall, u):+6.1f}%   {us}")
    if len(v) > 1:
        med = statistics.median
        ut = [x[6][2] - x[6][0] for x in v if x[6]]
        print(f"{'median':<10} {'':>6} {'':>9} {'':>9} {'':>9} {'':>9} "
              f"{med(pct(x[5], x[2]) for x in v):+6.1f}% {med(pct(x[4], x[2]) for x in v):+6.1f}%"
              + (f"   utilisation: corrected - untraced {med(ut):+.1f} points" if ut else ""))
    print("(util truth: (queue) the program's GPU time per step behind a full queue over its "
          "untraced step; (kernels) the traced phases' kernel busy time less the correction's "
          "kernel part over the untraced phases' wall)")
    return 0


def summary(a):
    """Everything one GPU run left in DIR, read the way the subcommands above
    read it: DIR/phases (run-phases), DIR/dec_* (run-decode), DIR/torch
    (overhead_pairs.py --keep-rounds), DIR/rp (tools/gpu-realprogs.sh) and
    DIR/p1..pN (tools/gpu-session.sh realpairs), each where it is there."""
    ran = 0
    sub = lambda **kw: argparse.Namespace(gapscope=a.gapscope, plain_after=a.plain_after, **kw)
    parts = [("phases", os.path.join(a.dir, "phases"), phases, {}),
             ("decode", a.dir, decode, {}),
             ("torch", os.path.join(a.dir, "torch"), torch, {"config": "default"})]
    for title, d, fn, extra in parts:
        probe = {"phases": "u1.log", "decode": "dec_u1.log",
                 "torch": "torch_nosync.untraced.r1.log"}[title]
        if os.path.exists(os.path.join(d, probe)):
            print(f"=== {title}: {d}")
            fn(sub(dir=d, **extra))
            ran += 1
    pairs = sorted(glob.glob(os.path.join(a.dir, "p[0-9]*")))
    for dirs, title in (([os.path.join(a.dir, "rp")], "real programs, one pair"),
                        (pairs, "real programs, interleaved pairs")):
        dirs = [d for d in dirs if os.path.isdir(d)]
        if dirs:
            print(f"=== {title}: {' '.join(dirs)}")
            realprogs(sub(dir=dirs))
            ran += 1
    if not ran:
        print(f"nothing to read in {a.dir} (phases/, dec_u1.log, torch/, rp/, p1/)")
        return 2
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, pairs in (("run-phases", 5), ("run-decode", 2)):
        r = sub.add_parser(name)
        r.add_argument("--build", default="build")
        r.add_argument("--out", required=True)
        r.add_argument("--record-args", default="",
                       help="more options for gapscope record, split on blanks")
        r.add_argument("--pairs", type=int, default=pairs)
    for name in ("phases", "decode", "torch", "realprogs", "summary"):
        p = sub.add_parser(name)
        p.add_argument("dir", nargs="+" if name == "realprogs" else None)
        p.add_argument("--gapscope", default=os.path.join("build", "bin", "gapscope"))
        if name in ("phases", "decode", "summary"):
            p.add_argument("--plain-after", action="store_true",
                           help="untraced launch figures: the mean of the calibration's "
                                "and those measured right after the traced run")
        if name == "torch":
            p.add_argument("--config", default="default")
    p = sub.add_parser("ab")
    p.add_argument("files", nargs="+", metavar="OUT.txt")
    p.add_argument("--range", default="steps", help="the traced phases' NVTX range")
    p.add_argument("--gapscope", default=os.path.join("build", "bin", "gapscope"))
    a = ap.parse_args()
    return {"ab": ab, "run-phases": run_phases, "phases": phases, "run-decode": run_decode,
            "decode": decode, "torch": torch, "realprogs": realprogs,
            "summary": summary}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
