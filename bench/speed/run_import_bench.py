#!/usr/bin/env python3
"""Benchmark of `gapscope import` (issue 21: a 1 GB Kineto trace in <= 20 s
and <= 2 GB of memory). Writes a synthetic Kineto trace of --mb megabytes
with bench/speed/kineto_gen.py (unless it exists), imports it --runs times, and
prints the wall time, CPU time and peak resident memory (the child's
ru_maxrss, from wait4) of each run, then the rate and the figures
extrapolated to 1 GB (time linearly; memory does not grow with the file,
measured at two sizes to show it).

With --nsys-kernels N it benchmarks the import of Nsight Systems SQLite
exports instead: synthetic ones of N / 4 and N kernels (and as many API
calls and OS runtime calls) written by bench/speed/nsys_gen.py.

usage: bench/speed/run_import_bench.py GAPSCOPE [--mb 200] [--runs 3] [--dir /tmp]
       bench/speed/run_import_bench.py GAPSCOPE --nsys-kernels 1000000 [--runs 3]
Use a Release build (no sanitizers).
"""
import argparse
import os
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("gapscope")
ap.add_argument("--mb", type=float, default=200)
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--dir", default="/tmp")
ap.add_argument("--nsys-kernels", type=int, default=0)
a = ap.parse_args()
here = os.path.dirname(os.path.abspath(__file__))


def trace(mb):
    path = os.path.join(a.dir, f"gapscope_kineto_{int(mb)}mb.json")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(here, "kineto_gen.py"), "--mb", str(mb),
                        "-o", path], check=True)
    return path


def export(kernels):
    path = os.path.join(a.dir, f"gapscope_nsys_{kernels}_kernels.sqlite")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(here, "nsys_gen.py"), "--kernels",
                        str(kernels), "-o", path], check=True)
    return path


def run(src):
    out = src.rsplit(".", 1)[0] + ".db"
    t0 = time.monotonic()
    p = subprocess.Popen([a.gapscope, "import", "-q", src, "-o", out])
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"import failed: {status}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0  # MiB


def bench(src, label, rate):
    """Import src --runs times; print each run, then the best with rate(best)."""
    res = [run(src) for _ in range(a.runs)]
    best = min(r[0] for r in res)
    print(f"{label} ({os.path.basename(src)}):")
    for wall, cpu, rss in res:
        print(f"  wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak RSS {rss:6.1f} MiB")
    print(f"  best {best:.2f} s = {rate(best)}; peak RSS {max(r[2] for r in res):.1f} MiB")


if a.nsys_kernels:
    for n in (a.nsys_kernels // 4, a.nsys_kernels):
        src = export(n)
        size = os.path.getsize(src) / 1e6
        bench(src, f"{n} kernels, {size:.0f} MB", lambda best: f"{n / best / 1e6:.2f} M kernels/s")
    sys.exit(0)

for mb in (a.mb / 4, a.mb):
    src = trace(mb)
    size = os.path.getsize(src) / 1e6
    bench(src, f"{size:.0f} MB",
          lambda best: f"{size / best:.0f} MB/s -> 1 GB in ~{1000 / (size / best):.1f} s")
