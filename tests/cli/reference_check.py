#!/usr/bin/env python3
"""reference_check.py GAPSCOPE MKDB DIR - `gapscope report --reference`: a
trace's NVTX range walls against untraced reference runs (docs/report.md,
"Untraced reference runs"), end to end on hand-made traces.

The traced trace is callsite_mkdb's "calibrated" one: NVTX range "all"
[0, 22500] on thread 11, corrected wall 22100 and 300 ns of kernel time
taken off inside it (worked out in correct_check.sh), GPU busy 3000 in it.
The reference runs are copies of it with everything but the NVTX ranges and
strings removed and config.activities = nvtx (as `gapscope record
--reference` writes them):
  r1: "all" [0, 20000]                      -> 20000
  r2: "all" [0, 10000] and [20000, 31000],  -> 21000, 2 ranges against the
      its text under another string id         trace's 1: count differs
  r3: "all" [0, 19000]                      -> 19000
Median 20000, smallest 19000, largest 21000. Traced 22500 / 20000 - 1 =
+12.5%, corrected 22100 / 20000 - 1 = +10.5%, busy (3000 - 300) / 20000 =
13.5%.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

gs, mk, d = sys.argv[1:4]
d = os.path.join(d, "reference")
os.makedirs(d, exist_ok=True)
fails = 0


def check(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    fails += 0 if cond else 1


def run(*args):
    p = subprocess.run([gs, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def make_ref(path, ranges, new_id=None):
    shutil.copy(f"{d}/t.db", path)
    c = sqlite3.connect(path)
    for t in ("kernels", "memcpys", "memsets", "api_calls", "syncs", "api_stacks", "nvtx"):
        c.execute(f"DELETE FROM {t}")
    c.execute("DELETE FROM meta WHERE key LIKE 'calibration.%'")
    c.execute("INSERT OR REPLACE INTO meta VALUES('config.activities', 'nvtx')")
    tid = c.execute("SELECT id FROM strings WHERE value = 'all'").fetchone()[0]
    if new_id is not None:
        c.execute("UPDATE strings SET id = ? WHERE id = ?", (new_id, tid))
        tid = new_id
    for s, e in ranges:
        c.execute("INSERT INTO nvtx(start, end, kind, text_id, pid, tid) VALUES(?, ?, 0, ?, 1, 11)",
                  (s, e, tid))
    c.commit()
    c.close()


subprocess.run([mk, f"{d}/t.db", "calibrated"], check=True)
make_ref(f"{d}/r1.db", [(0, 20000)])
make_ref(f"{d}/r2.db", [(0, 10000), (20000, 31000)], new_id=99)
make_ref(f"{d}/r3.db", [(0, 19000)])
refs = ["--reference", f"{d}/r1.db", "--reference", f"{d}/r2.db", "--reference", f"{d}/r3.db"]

rc, out, err = run("report", f"{d}/t.db", *refs)
check(rc == 0, f"report with 3 references exits 0 (got {rc}: {err.strip()})")
check("Against 3 untraced reference runs" in out, "the section names the 3 runs")
flat = " ".join(out.split())
check("1 22.500 us 22.100 us 20.000 us 19.000 us - 21.000 us +12.5% +10.5% 13.5% all *" in flat,
      "the row of 'all': traced, corrected, median, range, errors, busy, count mark")
check("another number of these ranges" in out, "the count mark is explained")
check("--reference N times these ranges" not in out,
      "with reference runs given, no pointer to them under the NVTX table")

rc, out, err = run("report", "--json", f"{d}/t.db", *refs)
check(rc == 0, "report --json exits 0")
j = json.loads(out)
row = [n for n in j["nvtx"] if n["name"] == "all"][0]
u = row.get("untraced", {})
check({k: u.get(k) for k in ("runs", "count_differs", "wall_ns", "min_ns", "max_ns")} ==
      {"runs": 3, "count_differs": 1, "wall_ns": 20000, "min_ns": 19000, "max_ns": 21000},
      f"JSON untraced: {u}")
check(abs(u.get("traced_error", 9) - 0.125) < 1e-9 and abs(u.get("corrected_error", 9) - 0.105) < 1e-9
      and u.get("busy_ns") == 2700 and abs(u.get("busy_share", 9) - 0.135) < 1e-9,
      "JSON: traced +12.5%, corrected +10.5%, busy 2700 ns = 13.5% of the untraced wall")
corr = [n for n in j["overhead_corrected"]["nvtx"] if n["name"] == "all"][0]
check(corr["corrected_wall_ns"] == 22100, f"JSON corrected wall 22100 beside it: {corr}")
check(j.get("reference", {}).get("runs") == 3 and len(j["reference"]["traces"]) == 3,
      "JSON reference: 3 runs, their files")

# two references: the median of an even number is the mean of the middle two
rc, out, err = run("report", "--json", f"{d}/t.db", "--reference", f"{d}/r1.db",
                   "--reference", f"{d}/r3.db")
row = [n for n in json.loads(out)["nvtx"] if n["name"] == "all"][0]
check(row["untraced"]["wall_ns"] == 19500, f"median of 20000 and 19000 is 19500: {row['untraced']}")

# the HTML page's NVTX table has the same figures
rc, out, err = run("html", f"{d}/t.db", *refs, "-o", f"{d}/t.html")
page = open(f"{d}/t.html", encoding="utf-8").read() if rc == 0 else ""
check(rc == 0, f"html with 3 references exits 0 ({rc}: {err.strip()})")
check("<td>20 µs (19 µs - 21 µs) *</td><td>+12.5%</td><td>+10.5%</td>" in page,
      "html: untraced median (range) *, traced and corrected against it")
check("<td>13.5%</td></tr>" in page, "html: busy over the untraced wall")
rc, out, err = run("html", f"{d}/t.db", f"{d}/t.db", "--reference", f"{d}/r1.db", "-o", f"{d}/x.html")
check(rc == 2 and len(err.strip().splitlines()) == 1, f"html --reference with two traces: exit 2 ({err.strip()})")
rc, out, err = run("html", f"{d}/t.db", "--reference", f"{d}/t.db", "-o", f"{d}/x.html")
check(rc == 2 and "not an untraced reference run" in err, "html: a full trace is refused as reference")

# bad input: one line, exit 2
for args, what in (
        (["report", f"{d}/t.db", "--reference", f"{d}/t.db"], "a full trace as the reference"),
        (["report", f"{d}/t.db", "--reference", f"{d}/missing.db"], "a missing reference"),
        (["report", f"{d}/t.db", "--reference", ""], "an empty --reference"),
        (["report", f"{d}/t.db", f"{d}/r1.db", "--reference", f"{d}/r3.db"], "--reference with two traces"),
        (["report", f"{d}/t.db"] + ["--reference", f"{d}/r1.db"] * 17, "17 references")):
    rc, out, err = run(*args)
    check(rc == 2 and len(err.strip().splitlines()) == 1 and out == "",
          f"{what}: exit 2, one line ({rc}: {err.strip()})")
rc, out, err = run("report", f"{d}/t.db", "--reference", f"{d}/t.db")
check("not an untraced reference run" in err, "a full trace is refused as not untraced")

# a reference run alone has no GPU activity: one line says what it is for
for verb in (["report"], ["html", "-o", f"{d}/r.html"]):
    rc, out, err = run(*verb, f"{d}/r1.db")
    check(rc == 2 and len(err.strip().splitlines()) == 1 and "an untraced reference run" in err
          and f"--reference {d}/r1.db" in err, f"{verb[0]} of a reference run: exit 2, says how to use it")
rc, out, err = run("info", f"{d}/r1.db")
check(rc == 0 and "GPU window        none: an untraced reference run" in out,
      "info of a reference run says what it is")
# a folder of traces (a job's processes) leaves the reference runs out, says so once
job = os.path.join(d, "job")
os.makedirs(job, exist_ok=True)
shutil.copy(f"{d}/t.db", f"{job}/t.db")
shutil.copy(f"{d}/r1.db", f"{job}/t.ref1.db")
shutil.copy(f"{d}/r3.db", f"{job}/t.ref12.db")
rc, out, err = run("report", "--json", job)
procs = json.loads(out)["processes"] if rc == 0 else []
check(rc == 0 and len(procs) == 1 and "2 untraced reference runs (*.ref<K>.db) left out" in err,
      f"folder: 1 process, 2 reference runs left out ({rc}: {err.strip()})")

# a trace without NVTX ranges says it has nothing to compare
subprocess.run([mk, f"{d}/plain.db"], check=True)
rc, out, err = run("report", f"{d}/plain.db", "--reference", f"{d}/r1.db")
check(rc == 0 and "holds no NVTX range to compare" in out, "no NVTX ranges: said so")
sys.exit(1 if fails else 0)
