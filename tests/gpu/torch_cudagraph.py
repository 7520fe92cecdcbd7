#!/usr/bin/env python3
"""torch_cudagraph.py - a PyTorch program that captures a few layers into a
torch.cuda.CUDAGraph and replays it, for gapscope's graph recording (issue 6):
`gapscope record -- python3 tests/gpu/torch_cudagraph.py`, then
`gapscope graph run.db` lists the captured graph and `--id N --stats` draws it.

Also runs the same step eagerly (NVTX ranges "eager" and "graph" name the
phases) and prints the median time per step of each, and checks the replayed
result against the eager one. Prints "result: PASS" (exit 0) or "result: FAIL".
"""
import statistics
import sys
import time

import torch


def main():
    if not torch.cuda.is_available():
        print("result: FAIL (torch sees no CUDA device)")
        return 1
    torch.manual_seed(7)
    layers = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU())
                                   for _ in range(8)]).cuda()
    static_x = torch.randn(32, 256, device="cuda")

    def step():
        return layers(static_x)

    # Warm up on a side stream, as torch.cuda.graphs recommends before capture.
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(s)

    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_y = step()

    def timed(fn, n=200):
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e6)
        return statistics.median(times)

    torch.cuda.nvtx.range_push("eager")
    eager_us = timed(step)
    want = step().clone()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()

    torch.cuda.nvtx.range_push("graph")
    graph_us = timed(g.replay)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()

    ok = torch.allclose(static_y, want, rtol=1e-3, atol=1e-4)
    print(f"eager step {eager_us:.1f} us, CUDA graph replay {graph_us:.1f} us (medians of 200)")
    print("result: PASS" if ok else "result: FAIL (graph replay differs from eager)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
