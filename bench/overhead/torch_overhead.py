#!/usr/bin/env python3
"""torch_overhead.py - time per step of a PyTorch eager loop of 8 small
matmul + gelu layers (DESIGN.md's "Facts we measured": ~300-360 us per step
plain on an H200), so bench/overhead/run_overhead.sh can compare it untraced, under
`gapscope record`, and under torch.profiler in one run.

  torch_overhead.py [--profiler cuda|cpu+cuda] [--steps N] [--warmup N]

Each step runs the 8 layers and synchronizes (an inference/decode step
whose output the host needs); prints the median time per step as
"torch_eager mode=<plain|profiler-cuda|profiler-cpu+cuda> us_per_step=<x>".
It prints figures; it asserts nothing.
"""
import argparse
import contextlib
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiler", choices=["cuda", "cpu+cuda"])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=50)
    a = ap.parse_args()

    torch.manual_seed(0)
    dev = torch.device("cuda")
    layers = [torch.randn(256, 256, device=dev) / 16 for _ in range(8)]
    x = torch.randn(16, 256, device=dev)

    def step(h):
        for w in layers:
            h = torch.nn.functional.gelu(h @ w)
        torch.cuda.synchronize()
        return h

    for _ in range(a.warmup):
        step(x)
    ctx = contextlib.nullcontext()
    if a.profiler:
        from torch.profiler import ProfilerActivity, profile
        acts = [ProfilerActivity.CUDA]
        if a.profiler == "cpu+cuda":
            acts.insert(0, ProfilerActivity.CPU)
        ctx = profile(activities=acts)
    times = []
    with ctx:
        for _ in range(a.steps):
            t0 = time.perf_counter()
            step(x)
            times.append(time.perf_counter() - t0)
    times.sort()
    mode = "plain" if not a.profiler else "profiler-" + a.profiler
    print(f"torch_eager mode={mode} us_per_step={times[len(times) // 2] * 1e6:.1f}")


if __name__ == "__main__":
    main()
