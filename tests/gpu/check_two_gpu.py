#!/usr/bin/env python3
"""check_two_gpu.py - issue 57's checks on traces recorded by two_gpu.sh.

usage: check_two_gpu.py ddp <gapscope> <slow_ms> <world> <ddp-0.db> [<ddp-1.db> ...]
       check_two_gpu.py peer <gapscope> <peer.db> <peer.log> <outdir>

ddp: every trace carries meta rank = its index and world_size; with two
ranks or more the multi-trace report names rank 1 (the slowed one) the
straggler, its median end lag and the others' wait for it within 15% of
the designed delay, and per rank the exposed communication inside the steps
is no more than the NCCL kernels' own time there (and at least half of it:
nothing overlaps a rank's all-reduce in this job). With one rank: the trace
has rank 0 of 1 and its single-trace report runs.

peer: the program passed its own run counts; the peer copies appear with
both devices (source and destination) in both peer phases, as many as it
made; in cross_wait, device B's idle is a dependency (a wait for device A's
op: the wait's event was recorded on device A) of about the designed
WAIT_NS - B_FIRST_NS a step (70% to 110%); the HTML report and the Chrome
export show both devices; `gapscope graph` draws the graph of two devices
where CUDA made one, and the stream-ordered work of cross_wait. With one
device (same_device 1) the copies are device 0 to device 0 and the wait is
one of stream B for stream A: the device is not idle for it (device view),
stream B is (per-stream view, dependency).

Prints one line per check ("ok ..." or "FAIL ...") with the measured figures,
then "N passed, M failed"; exit 1 when any failed.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys

passed = failed = 0


def result(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def meta(db, key):
    con = sqlite3.connect(db)
    r = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    con.close()
    return r[0] if r else None


def within(x, want, lo, hi):
    return want * lo <= x <= want * hi


def nccl_in_steps(db):
    """per rank: the NCCL kernels' own time inside the "step" ranges, ns"""
    con = sqlite3.connect(db)
    steps = con.execute("SELECT n.start, n.end FROM nvtx n JOIN strings s ON s.id = n.text_id "
                        "WHERE s.value = 'step' AND n.kind = 0 ORDER BY n.start").fetchall()
    ks = con.execute("SELECT k.start, k.end FROM kernels k JOIN strings s ON s.id = k.name_id "
                     "WHERE s.value LIKE '%nccl%'").fetchall()
    con.close()
    total = 0
    for a, b in steps:
        for s, e in ks:
            lo, hi = max(a, s), min(b, e)
            if hi > lo:
                total += hi - lo
    return total, len(steps)


def ddp(gs, slow_ms, world, dbs):
    design = slow_ms * 1e6
    for r, db in enumerate(dbs):
        got = (meta(db, "rank"), meta(db, "world_size"), meta(db, "rank_source"))
        result(got == (str(r), str(world), "env.RANK"),
               f"{db}: meta rank, world_size, rank_source = {got}")
        rc, out, err = run([gs, "info", db])
        line = next((l for l in out.splitlines() if l.startswith("rank ")), "")
        result(rc == 0 and line == f"rank              {r} of {world} (env.RANK)",
               f"{db}: info says {line!r}")
    if len(dbs) == 1:
        rc, out, err = run([gs, "report", dbs[0], "--json"])
        result(rc == 0, f"one rank: report exit {rc} {err.strip()}")
        return
    rc, out, err = run([gs, "report"] + dbs + ["--step", "step"])
    print(out)
    result(rc == 0 and "rank 1 is the straggler:" in out, "the text names rank 1 the straggler")
    result(all(len(l) <= 160 for l in out.splitlines()), "every line within 160 columns")
    rc, out, err = run([gs, "report"] + dbs + ["--step", "step", "--json"])
    j = json.loads(out)
    s = j["stragglers"]
    p = j["processes"]
    result(s["straggler"] is not None and p[s["straggler"]]["rank"] == 1,
           f"straggler = rank 1 (got index {s['straggler']}, why_none {s['why_none']})")
    if s["straggler"] is None:
        return
    lag = s["straggler_end_lag_p50_ns"]
    result(within(lag, design, 0.85, 1.15),
           f"its end lag p50 {lag / 1e6:.3f} ms, designed {slow_ms} ms (15%)")
    result(s["lag_p50_ns"] > s["lag_spread_ns"],
           f"lag over all steps {s['lag_p50_ns'] / 1e6:.3f} ms above the spread "
           f"{s['lag_spread_ns'] / 1e6:.3f} ms")
    w = s["others_wait_for_straggler_ns"]
    result(within(w, design, 0.85, 1.15),
           f"the others' wait for it {w / 1e6:.3f} ms (of {s['others_wait_p50_ns'] / 1e6:.3f} "
           f"ms in communication), designed {slow_ms} ms (15%)")
    for r, db in enumerate(dbs):
        own, nsteps = nccl_in_steps(db)
        exp = p[r]["comm_total_ns"]
        result(own > 0 and exp <= own + 1000 and exp >= 0.5 * own,
               f"rank {r}: exposed communication in its {nsteps} steps {exp / 1e6:.3f} ms, "
               f"its NCCL kernels' own time there {own / 1e6:.3f} ms "
               f"({exp / own:.0%} exposed)" if own else f"rank {r}: no NCCL kernel in its steps")


def peer(gs, db, log, outdir):
    text = open(log).read()
    result("\nPASS" in "\n" + text, "the program's own run counts")
    same = re.search(r"^same_device (\d)", text, re.M)
    same = same is not None and same.group(1) == "1"
    d = dict(re.findall(r"(\w+) (\d+)", re.search(r"^design (.*)$", text, re.M).group(1)))
    steps, wait_steps = int(d["copy_steps"]), int(d["wait_steps"])
    per_wait = int(d["wait_ns"]) - int(d["b_first_ns"])
    b = 0 if same else 1
    con = sqlite3.connect(db)
    devs = [r[0] for r in con.execute("SELECT id FROM devices ORDER BY id")]
    result(devs == ([0] if same else [0, 1]), f"devices table {devs}")
    for ph in ("peer_on", "peer_off"):
        rng = con.execute("SELECT n.start, n.end FROM nvtx n JOIN strings s ON s.id = n.text_id "
                          "WHERE s.value = ? AND n.kind = 0", (ph,)).fetchone()
        rows = con.execute("SELECT src_device, dst_device, copy_kind, bytes, device FROM "
                           "memcpys WHERE start >= ? AND end <= ?", rng).fetchall() if rng else []
        ab = sum(1 for r in rows if (r[0], r[1]) == (0, b) and r[3] == int(d["copy_bytes"]))
        ba = sum(1 for r in rows if (r[0], r[1]) == (b, 0) and r[3] == int(d["copy_bytes"]))
        kinds = sorted({r[2] for r in rows})
        if same:
            # one device: device-to-device copies (copy_kind 8, src/dst_device
            # -1: CUPTI's plain memcpy record) or peer records of 0 -> 0
            dd = sum(1 for r in rows if r[4] == 0 and r[3] == int(d["copy_bytes"]) and
                     r[2] in (8, 10))
            result(dd == 2 * steps, f"{ph}: {dd} copies on device 0 (kinds {kinds}), "
                   f"{2 * steps} made")
        else:
            result(ab == steps and ba == steps,
                   f"{ph}: {ab} copies 0 -> 1 and {ba} copies 1 -> 0 (kinds {kinds}), "
                   f"{steps} each made")
    # where the cross_wait events were recorded
    ev = con.execute("SELECT DISTINCT device FROM events").fetchall()
    con.close()
    rc, out, err = run([gs, "report", db, "--range", "cross_wait", "--json"])
    result(rc == 0, f"report --range cross_wait exit {rc} {err.strip()[:200]}")
    if rc == 0:
        j = json.loads(out)
        dv = {x["device"]: x for x in j.get("devices", [])}
        want = per_wait * wait_steps
        if same:
            dep = dv[0]["idle_by_cause_ns"]["dependency"]
            st = [x for x in dv[0].get("streams", []) if x["idle_by_cause_ns"]["dependency"] > 0]
            sdep = max((x["idle_by_cause_ns"]["dependency"] for x in st), default=0)
            result(dep < 0.1 * want and within(sdep, want, 0.7, 1.1),
                   f"cross_wait, one device: device dependency {dep / 1e6:.3f} ms (the device "
                   f"is busy with A's op), stream B's dependency {sdep / 1e6:.3f} ms, designed "
                   f"{want / 1e6:.3f} ms")
        else:
            dep = dv.get(1, {}).get("idle_by_cause_ns", {}).get("dependency", 0)
            result(within(dep, want, 0.7, 1.1),
                   f"cross_wait: device 1 idle in dependency {dep / 1e6:.3f} ms, designed "
                   f"{wait_steps} x {per_wait / 1e3:.0f} us = {want / 1e6:.3f} ms (70%-110%); "
                   f"events recorded on devices {sorted(x[0] for x in ev)}")
            gaps = dv.get(1, {}).get("top_gaps", [])
            apis = {seg.get("api") for g in gaps for seg in g.get("segments", [])
                    if seg.get("cause") == "dependency"}
            result("cudaStreamWaitEvent" in apis,
                   f"device 1's top gaps explained by the wait (segments' api {sorted(map(str, apis))})")
    html = os.path.join(outdir, "peer.html")
    rc, out, err = run([gs, "html", db, "-o", html])
    h = open(html, errors="replace").read() if rc == 0 else ""
    result(rc == 0 and ("GPU 1" in h or "device 1" in h or same),
           f"HTML {html}: exit {rc}, mentions device 1: {'GPU 1' in h or 'device 1' in h}")
    chrome = os.path.join(outdir, "peer.chrome.json")
    rc, out, err = run([gs, "export", db, "--format", "chrome", "-o", chrome])
    names = set()
    if rc == 0:
        c = json.load(open(chrome))
        evs = c["traceEvents"] if isinstance(c, dict) else c
        names = {e["args"]["name"] for e in evs
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
    gpus = sorted(n for n in names if n.startswith("GPU "))
    result(rc == 0 and len(gpus) == (1 if same else 2), f"Chrome export: GPU tracks {gpus}")
    rc, out, err = run([gs, "graph", db])
    print(out)
    m = re.findall(r"^\s*(\d+)\s", out, re.M)
    drawn = False
    for gid in m:
        rc2, dot, err2 = run([gs, "graph", db, "--id", gid])
        if rc2 == 0 and dot.count("spin") >= 2:
            open(os.path.join(outdir, f"graph-{gid}.dot"), "w").write(dot)
            drawn = True
            break
    if "graph_2dev unsupported" in text:
        print("note: CUDA refused a graph of two devices: " +
              re.search(r"graph_2dev unsupported: (.*)", text).group(1))
    else:
        result(drawn, "graph: the two-device graph drawn (both spin nodes)")
    rc, dot, err = run([gs, "graph", db, "--streams", "--range", "cross_wait"])
    if rc == 0:
        open(os.path.join(outdir, "cross_wait-streams.dot"), "w").write(dot)
    result(rc == 0, f"graph --streams --range cross_wait: exit {rc} {err.strip()[:200]}")


def main():
    what = sys.argv[1]
    if what == "ddp":
        gs, slow_ms, world = sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
        ddp(gs, slow_ms, world, sys.argv[5:])
    else:
        peer(*sys.argv[2:6])
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
