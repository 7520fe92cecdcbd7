#!/usr/bin/env python3
"""ddp_gloo.py - a multi-process data-parallel loop on one GPU for the
multi-trace report (`gapscope report run-*.db`, docs/report.md "Several
traces"): torch.distributed with the gloo backend (no NCCL, no network: a
file:// rendezvous and the loopback interface), WORLD_SIZE processes on GPU
0, a small MLP, each step in an NVTX range "step" with the gradient
all-reduce in an NVTX range "allreduce". Rank SLOW_RANK (default 1) sleeps
SLOW_MS (default 10) ms at the end of every step, inside "step" and after
its optimizer step (a slow data loader or logger on one rank): it ends each
step last, starts the next one last, and the other ranks wait for it in the
next all-reduce.

Record one trace per rank (the collector is loaded into every process that
initialises CUDA; the rank is in the environment before CUDA starts):

  gapscope record -o 'run-%q{RANK}.db' -- python3 bench/real/ddp_gloo.py
  gapscope report run-0.db run-1.db run-2.db --step step --comm-range allreduce

Expected: "rank 1 is the straggler: it ends step ranges last in ~49 of 50
steps, by ~10 ms (median); the others wait ~10 ms per step in allreduce".

Started alone it spawns WORLD_SIZE (default 3) processes with
torch.multiprocessing; under torchrun (RANK and WORLD_SIZE set) it runs as
that one rank. Options: --steps N (50), --world N, --slow-rank R,
--slow-ms MS, --dim D (1024).
"""
import argparse
import os
import sys
import tempfile
import time


def run(rank, world, args, init_file):
    # before anything touches CUDA: the collector reads RANK when CUDA
    # initialises (output name %q{RANK}, meta env.RANK)
    os.environ["RANK"] = str(rank)
    os.environ["WORLD_SIZE"] = str(world)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=init_file if init_file == "env://"
                            else "file://" + init_file, rank=rank, world_size=world)
    torch.manual_seed(0)
    dev = torch.device("cuda", 0)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.dim, args.dim), torch.nn.GELU(),
        torch.nn.Linear(args.dim, args.dim), torch.nn.GELU(),
        torch.nn.Linear(args.dim, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(256, args.dim, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    params = [p for p in model.parameters()]
    times = []
    for step in range(args.steps):
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("step")
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        torch.cuda.nvtx.range_push("allreduce")
        # gloo reduces host tensors: one flat copy out, all-reduce, copy back
        flat = torch.cat([p.grad.reshape(-1) for p in params]).cpu()
        dist.all_reduce(flat)
        flat = flat.to(dev, non_blocking=False) / world
        off = 0
        for p in params:
            n = p.grad.numel()
            p.grad.copy_(flat[off:off + n].view_as(p.grad))
            off += n
        torch.cuda.nvtx.range_pop()
        opt.step()
        torch.cuda.synchronize()
        if rank == args.slow_rank:
            time.sleep(args.slow_ms / 1000.0)  # the straggler's extra host work
        torch.cuda.nvtx.range_pop()
        times.append(time.perf_counter() - t0)
    dist.barrier()
    times.sort()
    print(f"rank {rank}: {args.steps} steps, median {1e3 * times[len(times) // 2]:.2f} ms/step",
          flush=True)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--world", type=int, default=int(os.environ.get("WORLD_SIZE", "3")))
    ap.add_argument("--slow-rank", type=int, default=1)
    ap.add_argument("--slow-ms", type=float, default=10.0)
    ap.add_argument("--dim", type=int, default=1024)
    args = ap.parse_args()
    if "RANK" in os.environ and "MASTER_ADDR" in os.environ:  # under torchrun
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        run(rank, world, args, "env://")
        return 0
    import torch.multiprocessing as mp
    fd, init = tempfile.mkstemp(prefix="ddp_gloo_init_")
    os.close(fd)
    os.unlink(init)  # the file:// store creates it
    try:
        mp.spawn(run, args=(args.world, args, init), nprocs=args.world, join=True)
    finally:
        if os.path.exists(init):
            os.unlink(init)
    return 0


if __name__ == "__main__":
    sys.exit(main())
