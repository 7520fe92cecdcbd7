#!/usr/bin/env python3
"""torch_smoke.py - a short PyTorch program for the collector's GPU tests:
a few matmul + relu on the GPU, a synchronize, and a result checked against
the same computation on the CPU. Prints "result: PASS" (exit 0) or
"result: FAIL" (exit 1).

  --profiler   run the GPU work inside torch.profiler (CUDA activities), a
               second CUPTI client beside gapscope's collector: the program
               must still run and exit 0.

It knows nothing of gapscope; `gapscope record -- python3 torch_smoke.py`
records it unmodified.
"""
import contextlib
import sys

import torch


def work(x, ws):
    for w in ws:
        x = torch.relu(x @ w)
    return x


def main():
    use_profiler = "--profiler" in sys.argv[1:]
    if not torch.cuda.is_available():
        print("result: FAIL (torch sees no CUDA device)")
        return 1
    g = torch.Generator().manual_seed(7)
    x = torch.randn(64, 256, generator=g)
    ws = [torch.randn(256, 256, generator=g) / 16 for _ in range(4)]
    want = work(x, ws)

    ctx = contextlib.nullcontext()
    if use_profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CUDA])
    with ctx:
        xd = x.cuda()
        wd = [w.cuda() for w in ws]
        for _ in range(5):
            y = work(xd, wd)
        torch.cuda.synchronize()
        got = y.cpu()
    # TF32 may be on for matmuls: compare loosely, it is a smoke test.
    ok = torch.allclose(got, want, rtol=2e-2, atol=2e-2)
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}: "
          f"max |diff| {float((got - want).abs().max()):.3g}")
    print("result: PASS" if ok else "result: FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
