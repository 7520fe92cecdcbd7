#!/usr/bin/env python3
"""whatif_check.py GAPSCOPE WORKDIR - CLI test of `gapscope whatif`.

Writes a torch.profiler (Kineto) JSON of a hand-built loop, imports it with
`gapscope import`, and checks what `gapscope whatif` prints against values
worked out by hand here: 20 steps, step i at T_i = T0 + 34 us * i:
cudaLaunchKernel [T_i, +5 us), its kernel [+8, +13), cudaStreamSynchronize
[+5, +14), then 20 us of host code; each step in an NVTX-like range whose
name holds an ESC byte. Window: T_0 + 8 .. T_19 + 13 = 19 x 34 + 5 = 651 us.
--fix sync_every_step keeps the 10th and the 20th sync (one of 10, and the
last): each of the 18 others takes 9 us (5 .. 14) that the step no longer
spends, 18 x 9 = 162 us saved (24.9% of 651); the kernels never wait for
the GPU (5 us of work every 25 us). Then -o: the replayed trace holds 18
calls and 18 syncs fewer, and `report --json` reads its window as 489 us;
bad input ends in one line and exit 2, and leaves an existing output as it
was.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

G, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([G] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


T0 = 1000.0  # us
ev = [
    {"name": "process_name", "ph": "M", "ts": T0, "pid": 42, "tid": 0, "args": {"name": "python"}},
    {"name": "thread_name", "ph": "M", "ts": T0, "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
]
corr = 100
for i in range(20):
    t = T0 + 34.0 * i
    ev.append({"ph": "X", "cat": "user_annotation", "name": "st\u001bep", "pid": 42, "tid": 42,
               "ts": t, "dur": 34.0, "args": {}})
    corr += 1
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 42, "tid": 42,
               "ts": t, "dur": 5.0, "args": {"cbid": 211, "correlation": corr}})
    ev.append({"ph": "X", "cat": "kernel", "name": "kA", "pid": 0, "tid": 7, "ts": t + 8.0,
               "dur": 5.0, "args": {"device": 0, "context": 1, "stream": 7, "correlation": corr,
                                    "grid": [1, 1, 1], "block": [32, 1, 1]}})
    corr += 1
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 42,
               "tid": 42, "ts": t + 5.0, "dur": 9.0, "args": {"cbid": 131, "correlation": corr}})
trace = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200",
                                                    "computeMajor": 9, "computeMinor": 0}],
         "traceEvents": ev}
src = os.path.join(WORK, "loop.json")
db = os.path.join(WORK, "loop.db")
out = os.path.join(WORK, "replayed.db")
with open(src, "w") as f:
    json.dump(trace, f)
for p in (db, out):
    if os.path.exists(p):
        os.unlink(p)
rc, o, e = run("import", src, "-o", db, "-q")
check(rc == 0, "import: rc %d %s" % (rc, e))

rc, o, e = run("whatif", db, "--check")
check(rc == 0 and "20 ops, start error max 0 ns, p99 0 ns, 0 ops off" in o and
      "replayed +0 ns" in o, "--check: exact replay\n" + o + e)

rc, o, e = run("whatif", db, "--fix", "sync_every_step", "--traced")
check(rc == 0 and "replayed as recorded (--traced): the figures keep tracing's cost" in o,
      "--traced says so\n" + o + e)

rc, o, e = run("whatif", db, "--fix", "sync_every_step")
lines = o.splitlines()
check(rc == 0, "--fix sync_every_step: rc %d %s" % (rc, e))
check("fixes: sync_every_step\nreplayed as recorded: no calibration in the trace, the figures keep"
      " tracing's cost\n  changed: 18 calls removed" in o, "18 syncs removed, as recorded\n" + o)
check(any(l.split()[:2] == ["GPU", "window"] and "651.00 us" in l and "489.00 us" in l and
          "-162.00 us (-24.9%)" in l for l in lines), "window 651 -> 489 us\n" + o)
check("saves ~ 162.00 us (24.9% of the GPU window)" in o, "saves 162 us\n" + o)
# the step ranges: their text escaped, medians 34 us -> 25 us (18 of 20
# steps lost their 9 us sync: the median is a step without one)
check('NVTX ranges "st\\x1bep"' in o and "\x1b" not in o, "step name escaped\n" + o)
check(any(l.split()[:1] == ["step"] and "34.00 us" in l and "25.00 us" in l for l in lines),
      "step 34 -> 25 us\n" + o)

# --every 5: one sync of 5 kept (5th, 10th, 15th, 20th): 16 dropped, 144 us
rc, o, e = run("whatif", db, "--fix", "sync_every_step", "--every", "5")
check("saves ~ 144.00 us" in o, "--every 5 saves 16 x 9 us\n" + o + e)

# the replayed trace
rc, o, e = run("whatif", db, "--fix", "sync_every_step", "-o", out)
check(rc == 0 and os.path.exists(out), "-o: rc %d %s" % (rc, e))
c0 = sqlite3.connect(db)
c1 = sqlite3.connect(out)
n0 = c0.execute("SELECT count(*) FROM api_calls").fetchone()[0]
n1 = c1.execute("SELECT count(*) FROM api_calls").fetchone()[0]
s0 = c0.execute("SELECT count(*) FROM syncs").fetchone()[0]
s1 = c1.execute("SELECT count(*) FROM syncs").fetchone()[0]
check(n0 - n1 == 18, "replayed trace: 18 calls fewer (%d -> %d)" % (n0, n1))
check(s0 - s1 == 18, "replayed trace: 18 syncs fewer (%d -> %d)" % (s0, s1))
fix = c1.execute("SELECT value FROM meta WHERE key = 'whatif.fixes'").fetchone()
check(fix is not None and fix[0] == "sync_every_step", "meta whatif.fixes")
c0.close()
c1.close()
rc, o, e = run("report", "--json", out)
check(rc == 0, "report of the replayed trace: rc %d %s" % (rc, e))
if rc == 0:
    j = json.loads(o)
    check(j["devices"][0]["window_ns"] == 489000, "replayed window 489 us: %s" %
          j["devices"][0].get("window_ns"))

# calls that the loader widens over their call-site capture (trace_callsite.h:
# a capture within 1 ms of the call): each sync's capture ends 2 us after the
# sync's record (the model reads an 11 us sync). The replayed trace still drops
# 18 syncs and their rows (it kept them all: their keys held the stored times),
# and a call that moves keeps its stored span: the last sync (kept) moves
# earlier, 9 us long as stored, not the 11 the model read
wide = os.path.join(WORK, "wide.db")
wout = os.path.join(WORK, "wide_replayed.db")
for p in (wide, wout):
    if os.path.exists(p):
        os.unlink(p)
shutil.copyfile(db, wide)
cw = sqlite3.connect(wide)
cw.execute("CREATE TABLE IF NOT EXISTS api_stacks (correlation_id INTEGER NOT NULL, stack_id "
           "INTEGER NOT NULL, tid INTEGER, reason INTEGER, capture_start INTEGER, capture_end "
           "INTEGER)")
syncs = cw.execute("SELECT a.correlation_id, a.start, a.tid FROM api_calls a JOIN strings s "
                   "ON s.id = a.name_id WHERE s.value = 'cudaStreamSynchronize' "
                   "ORDER BY a.start").fetchall()
cw.executemany("INSERT INTO api_stacks VALUES (?, 0, ?, 1, ?, ?)",
               [(c, tid, st + 9000 + 100, st + 9000 + 2000) for c, st, tid in syncs])
cw.commit()
cw.close()
rc, o, e = run("whatif", wide, "--fix", "sync_every_step", "-o", wout)
check(rc == 0 and "saves ~ " in o, "-o of widened calls: rc %d %s" % (rc, e))
c0 = sqlite3.connect(wide)
c1 = sqlite3.connect(wout)
n0, n1 = (c.execute("SELECT count(*) FROM api_calls").fetchone()[0] for c in (c0, c1))
s0, s1 = (c.execute("SELECT count(*) FROM syncs").fetchone()[0] for c in (c0, c1))
check(n0 - n1 == 18 and s0 - s1 == 18,
      "widened calls: 18 calls and 18 syncs fewer (%d -> %d, %d -> %d)" % (n0, n1, s0, s1))
last = syncs[-1][0]
r0, r1 = (c.execute("SELECT start, end FROM api_calls WHERE correlation_id = ?",
                    (last,)).fetchone() for c in (c0, c1))
check(r1 is not None and r1[0] < r0[0] and r1[1] - r1[0] == 9000 == r0[1] - r0[0],
      "the kept sync moved earlier with its own 9 us span: %s -> %s" % (r0, r1))
c0.close()
c1.close()

# the report's verdict: each finding with its fix replayed (saves), ordered
# by it. The program's own work (20 us a step, 19 gaps: 380 us) removed: a
# step is launch 5 + sync 9 = 14 us, window 19 x 14 + 5 = 271 us, saves
# 380 us (58.4%); the per-step sync as above, 162 us (24.9%); the launch
# overhead's fix finds no repeated launches to capture (one a step, each
# behind a sync): no figure (null), and last.
rc, o, e = run("report", "--json", db)
check(rc == 0, "report --json: rc %d %s" % (rc, e))
if rc == 0:
    fs = json.loads(o)["verdict"]["findings"]
    got = [(f["rule"], f["saves"], f["saves_ns"],
            None if f["saves_pct"] is None else round(f["saves_pct"], 1)) for f in fs]
    check(got == [("host_own_work", "replayed", 380000, 58.4),
                  ("sync_every_step", "replayed", 162000, 24.9),
                  ("launch_overhead", "unchanged", None, None)], "verdict saves: %s" % got)
    wf = json.loads(o)["verdict"]["whatif_fixes"]
    check(wf == "host_own_work,sync_every_step", "verdict whatif_fixes: %r" % wf)
rc, o, e = run("report", db)
check(rc == 0, "report: rc %d %s" % (rc, e))
lines = o.splitlines()
for title, saves in (("the program's own CPU work between launches:", "(saves \u2248 380 us (58.4%); "),
                     ("a sync every step drains the GPU:", "(saves \u2248 162 us (24.9%); "),
                     ("launch overhead:", "(saves: the replay finds nothing to fix)")):
    at = [k for k, l in enumerate(lines) if title in l]
    # the finding's line (wrapped where longer than 160), then the saving's
    nxt = [l.strip() for l in lines[at[0] + 1:at[0] + 3]] if at else []
    check(any(l.startswith(saves) for l in nxt), "text verdict: %s %s\n%s" % (title, saves, o))
# two findings with a replayed saving: each is its fix alone, and the
# line after the findings names the whatif list that replays both
check("  (each saving is its fix replayed alone, and together they need not add up: gapscope"
      " whatif TRACE --fix host_own_work,sync_every_step replays them at once)" in lines,
      "the line of the fixes together\n" + o)
check(max(len(l) for l in lines) <= 160, "text lines <= 160")

# bad input: one line, exit 2, the output left as it was
before = open(out, "rb").read()
for args, what in ((["--fix", "nope"], "unknown rule"), (["--fix", ""], "empty list"),
                   (["--every", "0", "--fix", "sync_every_step"], "bad --every"),
                   (["--fix", "host_code", "--range", "nosuch"], "range matching nothing"),
                   (["--pinned-gbps", "x", "--fix", "pageable_copies"], "bad bandwidth"),
                   ([], "no --fix"), (["-o", out], "-o without --fix"),
                   (["--fix", "host_stalls"], "host_stalls without --op"),
                   (["--fix", "sync_copies,host_stalls"], "host_stalls in a list without --op"),
                   (["--fix", "host_code", "--op", "aten::mm"], "--op without host_stalls"),
                   (["--fix", "host_stalls", "--op", "aten::mm"], "--op naming no span"),
                   (["--fix", "host_stalls", "--op", ""], "empty --op")):
    rc, o, e = run("whatif", db, *args)
    check(rc == 2 and len(e.splitlines()) == 1 and e.startswith("gapscope: "),
          "%s: rc %d, stderr %r" % (what, rc, e))
rc, o, e = run("whatif", os.path.join(WORK, "missing.db"), "--fix", "host_code")
check(rc == 2 and len(e.splitlines()) == 1, "missing trace: rc %d %r" % (rc, e))
rc, o, e = run("whatif", db, "--fix", "host_code", "-o", WORK)
check(rc == 2 and len(e.splitlines()) == 1, "-o a folder: rc %d %r" % (rc, e))
check(open(out, "rb").read() == before, "a failed run left the output as it was")
leftovers = [f for f in os.listdir(WORK) if ".gapscope-" in f]
check(not leftovers, "no temporary files left: %s" % leftovers)

print("%d failed" % len(failures) if failures else "ok")
sys.exit(1 if failures else 0)
