#!/usr/bin/env python3
"""graph_check.py - checks gapscope's graph advice against a measurement.

A PyTorch eager loop that runs ahead of the GPU (8 x [64x1024 @ 1024x1024
matmul, GELU, x0.5] per step, no per-step sync: the loop of docs/collector.md's
overhead figures), STEPS steps inside the NVTX range "eager"; then the same
step captured once as a torch.cuda.CUDAGraph and replayed STEPS times inside
"graph". Prints the wall time per step of each (one sync at the end of each
phase), and checks that the replay computes what eager does.

Record it with `gapscope record -o gc.db -- python3 bench/real/graph_check.py`
and compare `gapscope report gc.db --range eager`'s graph advice (its
estimate per occurrence) with the graph replay time printed by an untraced
run: tools/gpu-realprogs.sh does both.
Usage: graph_check.py [--steps N]
"""
import argparse
import sys
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("result: FAIL (torch sees no CUDA device)")
        return 1
    torch.manual_seed(3)
    ws = [torch.randn(1024, 1024, device="cuda") / 32 for _ in range(8)]
    x = torch.randn(64, 1024, device="cuda")

    def step():
        h = x
        for w in ws:
            h = torch.nn.functional.gelu(h @ w) * 0.5
        return h

    for _ in range(20):  # warm-up: cuBLAS handles, kernels loaded
        step()
    torch.cuda.synchronize()

    torch.cuda.nvtx.range_push("eager")
    t0 = time.perf_counter()
    for _ in range(a.steps):
        y = step()
    torch.cuda.synchronize()
    eager_us = (time.perf_counter() - t0) * 1e6 / a.steps
    torch.cuda.nvtx.range_pop()
    want = y.clone()

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = step()
    g.replay()
    torch.cuda.synchronize()

    torch.cuda.nvtx.range_push("graph")
    t0 = time.perf_counter()
    for _ in range(a.steps):
        g.replay()
    torch.cuda.synchronize()
    graph_us = (time.perf_counter() - t0) * 1e6 / a.steps
    torch.cuda.nvtx.range_pop()

    ok = torch.allclose(static_y, want, rtol=1e-3, atol=1e-4)
    print(f"eager step_us {eager_us:.1f}")
    print(f"graph step_us {graph_us:.1f}")
    print("result: PASS" if ok else "result: FAIL (graph replay differs from eager)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
