#!/usr/bin/env python3
"""CLI checks on the corpus of real public traces (tests/cli/corpus/).

usage: corpus_check.py figures|advice GAPSCOPE MANIFEST CORPUS_DIR WORKDIR

Every trace the manifest (tests/cli/corpus/expected.json) names is imported
with `gapscope import` and reported with `gapscope report --json` and
`gapscope report`; what the report says is held against what
corpus_facts.py works out from the trace's JSON alone (never from gapscope):

  figures  the window and busy time of every device, exact to the ns, and
           the number of devices; the file is the one the manifest was
           written for (its SHA-256).
  advice   the manifest's verdict constraints: each is a regular expression
           (case-insensitive) that the verdict must not say (`must_not`) or
           must say (`must`), with the facts that make it so (`because`,
           e.g. "workers_on == true"). The premise is checked first against
           the facts: a constraint whose premise is false is itself wrong
           and fails. What "the verdict says" is the text report's verdict
           section (from "Verdict:" to the first empty line) and every
           string of the JSON verdict's findings, so a line cut at 160
           columns cannot hide a word. Every line of the text report stays
           within 160 columns. Where every step holds a blocking sync
           (syncs_per_step_min >= 1), each sequence the graph advice advises
           capturing must say what stops the capture. A set (`sets`: the ranks of one job) is
           reported together (`gapscope report A.db B.db ...`) and its
           constraints are held against that whole text, with the set's facts
           (steps_min: the fewest steps of its traces; ranks_known: every
           trace carries distributedInfo.rank).

The corpus files are not in the repository (they are built by
tools/corpus_fetch.py); without them the test is skipped (exit 77).
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_facts  # noqa: E402

MODE, GAPSCOPE, MANIFEST, CORPUS, WORK = sys.argv[1:6]
SKIP = 77

with open(MANIFEST) as f:
    man = json.load(f)
paths = [os.path.join(CORPUS, t["project"], t["file"]) for t in man["traces"]]
missing = [p for p in paths if not os.path.exists(p)]
if missing:
    print(f"SKIP: {len(missing)} of {len(paths)} corpus traces are not in {CORPUS} "
          f"(build them with tools/corpus_fetch.py), e.g. {missing[0]}")
    sys.exit(SKIP)

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
failures = []


def expect(what, ok, detail=""):
    if not ok:
        failures.append(f"{what} {detail}".rstrip())


def gs(*args):
    return subprocess.run([GAPSCOPE, *args], capture_output=True, text=True, errors="replace",
                          timeout=300)


OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">=": lambda a, b: a >= b,
       "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}


def premise(expr, facts):
    """'name op json-value [and ...]' against the facts; (ok, what was seen)."""
    seen = []
    ok = True
    for part in expr.split(" and "):
        m = re.fullmatch(r"\s*(\w+)\s*(==|!=|>=|<=|>|<)\s*(.+?)\s*", part)
        if not m or m.group(1) not in facts:
            return False, f"cannot read premise '{part}'"
        v = facts[m.group(1)]
        ok = ok and OPS[m.group(2)](v, json.loads(m.group(3)))
        seen.append(f"{m.group(1)}={v!r}")
    return ok, ", ".join(seen)


def strings(o, out):
    if isinstance(o, str):
        out.append(o)
    elif isinstance(o, dict):
        for v in o.values():
            strings(v, out)
    elif isinstance(o, list):
        for v in o:
            strings(v, out)
    return out


def check_said(name, kind, c, facts, said, shown):
    ok, seen = premise(c["because"], facts)
    if not ok:
        expect(f"{name}: premise of {kind} /{c['say']}/", False,
               f"'{c['because']}' is false on the trace ({seen})")
        return
    rx = re.compile(c["say"], re.I)
    hits = [s for s in said if rx.search(s)]
    if kind == "must_not":
        line = next((l for l in shown.split("\n") if rx.search(l)), hits[0] if hits else "")
        expect(f"{name}: must not say /{c['say']}/ ({seen})", not hits,
               f"but says: {line.strip()[:200]}")
    else:
        expect(f"{name}: must say /{c['say']}/ ({seen})", bool(hits),
               f"verdict: {shown[:300]!r}")


for t, path in zip(man["traces"], paths):
    name = f"{t['project']}/{t['file']}"
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    expect(f"{name}: SHA-256", digest == t["sha256"],
           f"{digest}, manifest {t['sha256']}: not the file the constraints were written for")
    db = os.path.join(WORK, t["project"] + "_" + t["file"].replace(".json.gz", ".db"))
    p = gs("import", "-q", path, "-o", db)
    if p.returncode != 0:
        expect(f"{name}: import", False, p.stderr.strip()[:300])
        continue
    p = gs("report", "--json", db)
    if p.returncode != 0:
        expect(f"{name}: report --json", False, p.stderr.strip()[:300])
        continue
    r = json.loads(p.stdout)
    facts = corpus_facts.facts(path)
    if MODE == "figures":
        got = {str(d["device"]): (d["window_ns"], d["busy_ns"]) for d in r["devices"]}
        want = {k: (v["window_ns"], v["busy_ns"]) for k, v in facts["devices"].items()}
        expect(f"{name}: devices' (window, busy) ns", got == want, f"{got} want {want}")
        continue
    p = gs("report", db)
    text = p.stdout if p.returncode == 0 else ""
    m = re.search(r"^Verdict:.*?(?=\n\n|\Z)", text, re.S | re.M)
    verdict = m.group(0) if m else ""
    expect(f"{name}: text report has a verdict", bool(verdict), p.stderr.strip()[:300])
    said = [verdict] + [" | ".join(strings(fd, []))
                        for fd in r.get("verdict", {}).get("findings", [])]
    long = [l for l in text.split("\n") if len(l) > 160]
    expect(f"{name}: report lines within 160 columns", not long,
           "; ".join(f"{len(l)}: {l[:60]}..." for l in long))
    for kind in ("must_not", "must"):
        for c in t.get("verdict", {}).get(kind, []):
            check_said(name, kind, c, facts, said, verdict)
    # graph advice: a sequence advised for capture in a trace whose every step
    # holds a blocking sync (corpus_facts.py, from the raw JSON) must say what
    # stops the capture (or that the step is collective-bound)
    if (facts.get("syncs_per_step_min") or 0) >= 1:
        for sq in (r.get("graph_advice") or {}).get("sequences", []):
            if sq.get("advise"):
                s = sq.get("sentence") or ""
                expect(f"{name}: graph advice names what stops the capture "
                       f"(syncs_per_step_min {facts['syncs_per_step_min']})",
                       re.search(r"stops its capture|collective-bound", s) is not None, s[:200])


# ---- sets: several traces of one job in one multi-trace report ---------------
# The databases are named t<k>.db in an order unrelated to the ranks, so a
# file name can never pass for a rank label.
if MODE == "advice":
    for st in man.get("sets", []):
        d = os.path.join(WORK, "set_" + st["name"])
        os.makedirs(d)
        fs = [corpus_facts.facts(os.path.join(CORPUS, x)) for x in st["files"]]
        facts = {"steps_min": min(f["steps"] for f in fs),
                 "ranks_known": all(f["rank"] is not None for f in fs),
                 "traces": len(fs)}
        dbs = []
        for i, x in enumerate(st["files"]):
            db = os.path.join(d, f"t{(5 * i + 3) % len(st['files'])}.db")
            p = gs("import", "-q", os.path.join(CORPUS, x), "-o", db)
            expect(f"set {st['name']}: import {x}", p.returncode == 0, p.stderr.strip()[:300])
            dbs.append(db)
        p = gs("report", *dbs)
        expect(f"set {st['name']}: report", p.returncode == 0, p.stderr.strip()[:300])
        out = p.stdout.replace(d + os.sep, "")
        long = [l for l in out.split("\n") if len(l) > 160]
        expect(f"set {st['name']}: report lines within 160 columns", not long,
               f"{len(long)} longer: " + "; ".join(f"{len(l)}: {l[:60]}..." for l in long))
        for kind in ("must_not", "must"):
            for c in st.get("verdict", {}).get(kind, []):
                check_said(f"set {st['name']}", kind, c, facts, [out], out)

for f in failures:
    print("FAIL:", f)
print(f"{MODE}: {len(paths)} traces, {len(failures)} failures")
sys.exit(1 if failures else 0)
