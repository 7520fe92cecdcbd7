#!/usr/bin/env python3
"""Build the corpus of real public traces (tests/cli/corpus/expected.json).

usage: corpus_fetch.py [--git OWNER/NAME=GITDIR ...] [--out DIR]

For every trace named in tests/cli/corpus/expected.json: take the file from
its project at the pinned commit (from a local git clone or mirror given
with --git, else https://raw.githubusercontent.com/OWNER/NAME/COMMIT/PATH),
check its SHA-256 against the manifest, take the member out of a tarball
where the manifest names one, cut its tail where the manifest says so (see
trim() below: whole time ranges only), and write it gzipped (mtime 0, so
the bytes are reproducible) to DIR/<project>/<file>; the project's licence
file at the same commit goes beside it as DIR/<project>/LICENSE. The
written file's SHA-256 must equal the manifest's `sha256`: the advice
constraints were written for exactly those bytes.

DIR defaults to tests/cli/corpus/traces, where tests/cli/corpus.cmake looks
(CMake option GAPSCOPE_CORPUS_DIR). The test never touches the network;
this script is the only step that may, and only when no --git is given for
a project.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import urllib.request
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "..", "tests", "cli", "corpus", "expected.json")

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")
CALL_CATS = ("cuda_runtime", "cuda_driver", "Runtime")


def die(msg):
    print(f"corpus_fetch: {msg}", file=sys.stderr)
    sys.exit(2)


def source_bytes(repo, commit, path, gits):
    if repo in gits:
        p = subprocess.run(["git", "--git-dir", gits[repo], "show", f"{commit}:{path}"],
                           capture_output=True)
        if p.returncode != 0:
            die(f"{repo}: {commit}:{path}: {p.stderr.decode(errors='replace').strip()}")
        return p.stdout
    url = f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


# ---- trim: cut the tail of a trace at a step boundary -----------------------
# The only edit made to a trace: every event from a chosen moment T on is
# left out, so what stays is the run's first part exactly as recorded.
#   T = the start (ts) of the index-th event (0-based, by ts) whose name
#       starts with the given prefix, e.g. the 4th ProfilerStep#: 3 steps stay;
#   host events (not GPU ops) stay when they start before T;
#   a GPU op stays when the call that launched it (same correlation id)
#       stayed, or, with no such call in the trace, when it starts before T;
#   flow events stay when their start ('s') stayed; metadata ('M') stays.
# Numbers keep their original text (parsed as Decimal, written back as is).

def trim(doc, prefix, index):
    ev = doc["traceEvents"]
    marks = sorted(Decimal(e["ts"]) for e in ev
                   if e.get("ph") == "X" and str(e.get("name", "")).startswith(prefix))
    if len(marks) <= index:
        die(f"trim: only {len(marks)} events named {prefix}*, cannot cut at #{index}")
    cut = marks[index]
    calls = {}
    for e in ev:
        if e.get("cat") in CALL_CATS and "correlation" in e.get("args", {}):
            calls[e["args"]["correlation"]] = Decimal(e["ts"]) < cut
    keep, flows = [], set()
    for e in ev:
        ph = e.get("ph")
        if ph == "M" or "ts" not in e:
            keep.append(e)
            continue
        early = Decimal(e["ts"]) < cut
        if e.get("cat") in GPU_CATS:
            c = e.get("args", {}).get("correlation")
            ok = calls[c] if c in calls else early
        elif ph in ("s", "f", "t"):
            continue  # decided below, once the ends are known
        else:
            ok = early
        if ok:
            keep.append(e)
    for e in ev:
        if e.get("ph") == "s" and Decimal(e["ts"]) < cut:
            flows.add((e.get("cat"), e.get("id")))
            keep.append(e)
    for e in ev:
        if e.get("ph") in ("f", "t") and (e.get("cat"), e.get("id")) in flows:
            keep.append(e)
    order = {id(e): i for i, e in enumerate(ev)}
    keep.sort(key=lambda e: order[id(e)])
    out = dict(doc)
    out["traceEvents"] = keep
    return out


def dump(o, w):
    """JSON text with numbers as they were read (Decimal), keys in order."""
    if isinstance(o, dict):
        w("{")
        for i, (k, v) in enumerate(o.items()):
            w(("," if i else "") + json.dumps(k) + ":")
            dump(v, w)
        w("}")
    elif isinstance(o, list):
        w("[")
        for i, v in enumerate(o):
            if i:
                w(",\n" if isinstance(v, dict) else ",")
            dump(v, w)
        w("]")
    elif isinstance(o, Decimal):
        w(str(o))
    else:
        w(json.dumps(o))


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as f:
        f.write(data)
    return buf.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=GITDIR")
    ap.add_argument("--update", action="store_true",
                    help="write the SHA-256 of what was written into the manifest (after a change "
                    "to the manifest's trims or sources, never to make a mismatch go away)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "tests", "cli", "corpus", "traces"))
    a = ap.parse_args()
    gits = dict(g.split("=", 1) for g in a.git)
    with open(MANIFEST) as f:
        man = json.load(f)
    projects = man["projects"]
    for name, pr in projects.items():
        os.makedirs(os.path.join(a.out, name), exist_ok=True)
        lic = source_bytes(pr["repo"], pr["commit"], pr["license_file"], gits)
        with open(os.path.join(a.out, name, "LICENSE"), "wb") as f:
            f.write(lic)
    for t in man["traces"]:
        pr = projects[t["project"]]
        commit = t.get("commit", pr["commit"])
        raw = source_bytes(pr["repo"], commit, t["path"], gits)
        if hashlib.sha256(raw).hexdigest() != t["source_sha256"]:
            die(f"{t['file']}: {pr['repo']}@{commit}:{t['path']} is not the file the corpus "
                f"was written for (SHA-256 differs)")
        if "member" in t:
            with tarfile.open(fileobj=io.BytesIO(raw)) as tf:
                raw = tf.extractfile(t["member"]).read()
        if t.get("trim"):
            text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
            doc = json.loads(text, parse_float=Decimal)
            doc = trim(doc, t["trim"]["cut_at_prefix"], t["trim"]["index"])
            parts = []
            dump(doc, parts.append)
            data = gz("".join(parts).encode())
        elif raw[:2] == b"\x1f\x8b":
            data = raw  # unchanged
        else:
            data = gz(raw)
        dst = os.path.join(a.out, t["project"], t["file"])
        tmp = dst + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, dst)
        got = hashlib.sha256(data).hexdigest()
        if got != t.get("sha256"):
            if not a.update:
                die(f"{t['file']}: written, but its SHA-256 {got} is not the manifest's "
                    f"{t.get('sha256')}: the trim or the source changed")
            t["sha256"] = got
        print(f"{t['project']}/{t['file']}: {len(data)} bytes")
    if a.update:
        with open(MANIFEST + ".tmp", "w") as f:
            json.dump(man, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(MANIFEST + ".tmp", MANIFEST)


if __name__ == "__main__":
    main()
