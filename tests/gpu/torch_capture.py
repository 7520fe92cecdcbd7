"""A PyTorch loop that traces only its middle steps with
torch.cuda.profiler.start()/stop() (cudaProfilerStart/Stop), for the GPU test
of `gapscope record --capture-range cudaProfilerApi` (run_gpu_tests.sh).
20 steps in NVTX ranges "gs_outside_step", then 10 in "gs_capture_step"
between start and stop, then 20 more "gs_outside_step": only the 10 are
recorded, and "gs_around_stop", pushed before the stop and popped after it,
which ends with the window. Prints "result: PASS" when the last result is right."""
import torch
import torch.cuda.nvtx as nvtx


def step(x, w):
    return torch.relu(x @ w) * 0.5


def main():
    # torch_nosync.py's shapes: cuBLAS launches these through the driver
    # API (cuLaunchKernel), whose records the collector keeps on all along
    x = torch.ones(64, 1024, device="cuda")
    w = torch.full((1024, 1024), 1.0 / 1024, device="cuda")
    for _ in range(20):
        nvtx.range_push("gs_outside_step")
        y = step(x, w)
        nvtx.range_pop()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _ in range(10):
        nvtx.range_push("gs_capture_step")
        y = step(x, w)
        nvtx.range_pop()
    torch.cuda.synchronize()
    # a range around the stop: recorded from its push to the window's end
    nvtx.range_push("gs_around_stop")
    torch.cuda.profiler.stop()
    nvtx.range_pop()
    for _ in range(20):
        nvtx.range_push("gs_outside_step")
        y = step(x, w)
        nvtx.range_pop()
    ok = abs(float(y[0, 0]) - 0.5) < 1e-3
    print("result:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
