#!/usr/bin/env python3
"""kineto_export.py - one PyTorch loop, recorded two ways, to compare
`gapscope import` of a torch.profiler trace with `gapscope record` (issue 21).

Each step: 8 x [x = gelu(x @ W_i) * 0.5] with x 64x1024 and W_i 1024x1024
(cuBLAS matmul, gelu, mul: 24 kernels), then loss = x.sum() (one more
kernel); loss.item() every 10 steps (a device-to-host copy and a sync). 5
warm-up steps (range "warmup") come first, then --steps steps (default 50),
each in an NVTX range and a record_function range, both named "step":
`gapscope record` sees the NVTX one, torch.profiler the record_function one
(as a user_annotation, which `gapscope import` maps to an NVTX range), so
`gapscope report --range step` selects the same steps in both traces.

  # 1. torch.profiler (CPU + CUDA activities) -> Chrome trace JSON
  python3 kineto_export.py --out kineto.json
  gapscope import kineto.json -o kineto.db
  # 2. the same loop under gapscope's collector
  gapscope record -o recorded.db -- python3 kineto_export.py
  # compare: kernels and launches per step, idle by cause
  gapscope report kineto.db --range step --json > k.json
  gapscope report recorded.db --range step --json > r.json

With --out the profiler runs around the measured steps only (warm-up
outside it) and the trace is written with prof.export_chrome_trace(); a
name ending in .gz is compressed. It prints "steps N step_us X".
"""
import argparse
import gzip
import os
import shutil
import time

import torch
import torch.nn.functional as F


def step(x0, ws):
    x = x0
    for w in ws:
        x = F.gelu(x @ w) * 0.5
    return x.sum()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="write torch.profiler's Chrome trace here (.json or .json.gz)")
    ap.add_argument("--steps", type=int, default=50)
    a = ap.parse_args()
    dev = torch.device("cuda")
    torch.manual_seed(0)
    x0 = torch.randn(64, 1024, device=dev)
    ws = [torch.randn(1024, 1024, device=dev) / 32 for _ in range(8)]

    with torch.cuda.nvtx.range("warmup"):
        for _ in range(5):
            step(x0, ws).item()
    torch.cuda.synchronize()

    def loop():
        t0 = time.perf_counter()
        for i in range(a.steps):
            with torch.cuda.nvtx.range("step"), torch.profiler.record_function("step"):
                loss = step(x0, ws)
                if i % 10 == 9:
                    loss.item()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / a.steps * 1e6

    if a.out:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            us = loop()
        path = a.out[:-3] if a.out.endswith(".gz") else a.out
        prof.export_chrome_trace(path)
        if a.out.endswith(".gz"):
            with open(path, "rb") as src, gzip.open(a.out, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.unlink(path)
    else:
        us = loop()
    print(f"steps {a.steps} step_us {us:.1f}")


if __name__ == "__main__":
    main()
