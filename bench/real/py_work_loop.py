#!/usr/bin/env python3
"""py_work_loop.py - an eager PyTorch loop that does the program's own CPU work
between steps, as a real program to record with `gapscope record`: what the
host-code rule must tell apart from the framework's dispatch.

Each step (an NVTX range "step") runs 8 small Linear+GELU layers on the GPU
(launch-bound: a few microseconds of GPU work each), then the program's own
work in prepare_next(): a numpy sort and a Python loop over a list (about a
millisecond on a server CPU), with the GPU left idle meanwhile. There is no
per-step sync. Prints "pywork step_us <mean>" over --steps steps after
--warmup steps.

  py_work_loop.py [--steps N] [--warmup N] [--work N]
"""
import argparse
import time

import numpy as np
import torch
import torch.nn as nn


def prepare_next(rng, n):
    """the program's own CPU work: shuffle and sort a batch of scores in numpy,
    then a Python pass over them"""
    a = rng.random(n)
    a.sort()
    acc = 0.0
    for v in a[: n // 20].tolist():
        acc += v * 0.5
    return acc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--work", type=int, default=60000)
    a = ap.parse_args()
    dev = torch.device("cuda")
    layers = nn.Sequential(*[nn.Sequential(nn.Linear(256, 256), nn.GELU()) for _ in range(8)]).to(dev)
    x = torch.randn(64, 256, device=dev)
    rng = np.random.default_rng(0)
    t0 = None
    with torch.no_grad():
        for i in range(a.warmup + a.steps):
            if i == a.warmup:
                torch.cuda.synchronize()
                t0 = time.perf_counter()
            torch.cuda.nvtx.range_push("step")
            y = layers(x)
            x = y * 0.5 + x * 0.5
            prepare_next(rng, a.work)
            torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"pywork step_us {dt / a.steps * 1e6:.1f}")
    assert torch.isfinite(x).all()


if __name__ == "__main__":
    main()
