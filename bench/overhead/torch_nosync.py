#!/usr/bin/env python3
"""torch_nosync.py - the PyTorch eager loop that runs ahead of the GPU, the
workload of the collector's overhead figures (docs/collector.md): STEPS steps
of 8 x [64x1024 @ 1024x1024 matmul, GELU, x0.5], no per-step sync, one sync
at the end, inside the NVTX range "steps".

Prints, on one line,
  torch_nosync us_per_step=<wall of the range / STEPS> range_us=<wall of the
  range> gpu_us_per_step=<GPU time of one step> util_pct=<100 * gpu / step>
where gpu_us_per_step is the GPU's own time for a step, measured with CUDA
events while the steps run back to back behind a sleeping kernel (the queue is
full, so the GPU never waits for the host). Run untraced, util_pct is the
truth that a traced report's utilisation is compared with; range_us is the
truth for the traced report's wall time of the range "steps".
It prints figures; it asserts nothing.
With --op-times it instead times each op's call on the host (the launch as
the program sees it) over the same steps and prints "op=<matmul|gelu|mul>
host_us=<median>": traced against untraced, what tracing adds per launch of
a cuBLAS kernel (driver API) and of a PyTorch kernel (runtime API).
With --sample, bench/overhead/sampler.c (preloaded as libgs_sampler.so) samples the
main thread during the timed steps: where the launching thread's time goes.
With --ab R (under `gapscope record --capture-range cudaProfilerApi`) it
instead runs R rounds of two phases of STEPS steps each, in one process: one
untraced, one traced (between torch.cuda.profiler.start() and stop(), which
switch the collector on and off), in alternating order, each phase's steps in
an NVTX range ("ab_untraced", "steps") and timed by the program, and prints
"ab round=K untraced_us=<us a step> traced_us=<us a step> ratio=<traced /
untraced>" per round and "ab median_ratio=...", then "ab gpu_us_per_step=..." (measured untraced, as
below): what tracing costs the
program against the same process untraced a moment before or after, without
the scatter between processes. Run without the collector it gives the noise
floor (both phases untraced).
Usage: torch_nosync.py [--steps N] [--op-times] [--sample] [--ab R]
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ab_rounds import ab_rounds  # noqa: E402  (bench/)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--op-times", action="store_true")
    ap.add_argument("--sample", action="store_true")
    ap.add_argument("--ab", type=int, default=0, metavar="R")
    a = ap.parse_args()
    torch.manual_seed(3)
    ws = [torch.randn(1024, 1024, device="cuda") / 32 for _ in range(8)]
    x = torch.randn(64, 1024, device="cuda")

    def step():
        h = x
        for w in ws:
            h = torch.nn.functional.gelu(h @ w) * 0.5
        return h

    for _ in range(30):  # cuBLAS handles, kernels loaded, allocator warm
        step()
    torch.cuda.synchronize()

    if a.op_times:
        return op_times(ws, x, a.steps)
    if a.ab:
        return ab(step, a.steps, a.ab)
    sampler = None
    if a.sample:
        import ctypes
        sampler = ctypes.CDLL(None)  # LD_PRELOAD=libgs_sampler.so
        if sampler.gs_sampler_start() != 0:
            raise SystemExit("torch_nosync: gs_sampler_start failed")
    torch.cuda.nvtx.range_push("steps")
    t0 = time.perf_counter()
    for _ in range(a.steps):
        step()
    torch.cuda.synchronize()
    range_us = (time.perf_counter() - t0) * 1e6
    torch.cuda.nvtx.range_pop()
    if sampler:
        sampler.gs_sampler_stop()

    torch.cuda.nvtx.range_push("gpu_work")
    gpu_us = gpu_us_per_step(step, a.steps)
    torch.cuda.nvtx.range_pop()
    step_us = range_us / a.steps
    print(f"torch_nosync us_per_step={step_us:.1f} range_us={range_us:.0f} "
          f"gpu_us_per_step={gpu_us:.1f} util_pct={100 * gpu_us / step_us:.1f}")
    return 0


def gpu_us_per_step(step, steps):
    """GPU time per step with the host out of the way: chunks of 20 steps
    (480 kernels, below the launch queue's depth) queued behind a 20 ms
    sleep kernel, timed with events on the GPU."""
    chunk, total_ms, done = 20, 0.0, 0
    cycles = 40_000_000  # ~20 ms at the H200's 1.98 GHz
    while done < steps:
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles)
        e0.record()
        for _ in range(chunk):
            step()
        e1.record()
        e1.synchronize()
        total_ms += e0.elapsed_time(e1)
        done += chunk
    gpu_us = total_ms * 1e3 / done
    return gpu_us


def ab(step, steps, rounds):
    """Untraced and traced phases alternating in one process (--ab)."""
    def phase(name, traced):
        if traced:
            torch.cuda.profiler.start()
        torch.cuda.nvtx.range_push(name)
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        us = (time.perf_counter() - t0) * 1e6 / steps
        torch.cuda.nvtx.range_pop()
        if traced:
            torch.cuda.profiler.stop()
        return us

    phase("ab_warm", True)  # whatever the first switch-on costs once
    ab_rounds(phase, rounds, steps, "steps")
    # the truth for the traced phases' utilisation: GPU time per step
    # (untraced) over the untraced phases' step time
    print(f"ab gpu_us_per_step={gpu_us_per_step(step, steps):.1f}")
    return 0


def op_times(ws, x, steps):
    ns = time.perf_counter_ns
    t = {"matmul": [], "gelu": [], "mul": []}
    for _ in range(steps):
        h = x
        for w in ws:
            t0 = ns()
            m = h @ w
            t1 = ns()
            g = torch.nn.functional.gelu(m)
            t2 = ns()
            h = g * 0.5
            t3 = ns()
            t["matmul"].append(t1 - t0)
            t["gelu"].append(t2 - t1)
            t["mul"].append(t3 - t2)
    torch.cuda.synchronize()
    for k, v in t.items():
        v.sort()
        print(f"op={k} host_us={v[len(v) // 2] / 1e3:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
