#!/usr/bin/env python3
"""ddp_nccl.py - a torchrun DDP job with the NCCL backend, one GPU per rank,
for the multi-trace report on several GPUs (issue 57; docs/report.md
"Several traces"): DistributedDataParallel over a small MLP, each step in an
NVTX range "step" and read back with loss.item() (a logging step); rank
--slow-rank sleeps --slow-ms ms at the end of every step, inside "step" and
after the read-back (a slow data loader or logger on one rank). So it ends
every step last by about --slow-ms, and the other ranks wait that long in
the next step's gradient all-reduce (their NCCL kernels spin until it
arrives). Run it under torchrun, each rank recorded by `gapscope record`
(the collector reads RANK and WORLD_SIZE from torchrun's environment into
the trace's meta rank and world_size):

  gapscope record -o 'ddp-%q{RANK}.db' -- \\
      torchrun --standalone --nproc-per-node 2 bench/real/ddp_nccl.py --slow-ms 20
  gapscope report ddp-0.db ddp-1.db --step step

Expected: "rank 1 is the straggler: it ends step ranges last in ~30 of 30
steps, by ~20 ms (median)", its lag above the step-to-step spread, and "the
others wait ~20 ms per step in exposed nccl communication, of which about
~20 ms is waiting for it".

One GPU: --nproc-per-node 1 runs the same code as one rank (NCCL's
all-reduce of one rank; no straggler to find). Options: --steps N (30),
--slow-rank R (1), --slow-ms MS (20; 0: no slow rank), --dim D (1024),
--warmup N (5 steps before the NVTX ranges begin). Prints one line per rank:
"rank R world W steps N median_ms X slow_ms S".
"""
import argparse
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--slow-rank", type=int, default=1)
    ap.add_argument("--slow-ms", type=float, default=20.0)
    ap.add_argument("--dim", type=int, default=1024)
    args = ap.parse_args()
    if "RANK" not in os.environ or "LOCAL_RANK" not in os.environ:
        sys.exit("ddp_nccl.py: run it under torchrun (RANK, LOCAL_RANK, WORLD_SIZE unset)")
    rank, local = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    world = int(os.environ["WORLD_SIZE"])
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    if torch.cuda.device_count() <= local:
        sys.exit(f"ddp_nccl.py: rank {rank} needs GPU {local}; "
                 f"{torch.cuda.device_count()} visible (NCCL takes one GPU per rank)")
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=dev)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.dim, args.dim), torch.nn.GELU(),
        torch.nn.Linear(args.dim, args.dim), torch.nn.GELU(),
        torch.nn.Linear(args.dim, 10)).to(dev)
    ddp = DDP(model, device_ids=[local])
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-3)
    x = torch.randn(256, args.dim, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    slow = args.slow_ms > 0 and rank == args.slow_rank

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        loss.backward()  # DDP's all-reduce of the gradients (NCCL kernels)
        opt.step()
        loss.item()  # the step's read-back: waits for this rank's GPU work
        if slow:
            time.sleep(args.slow_ms / 1000.0)  # the straggler's extra host work

    for _ in range(args.warmup):
        step()
    dist.barrier()
    times = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("step")
        step()
        torch.cuda.nvtx.range_pop()
        times.append(time.perf_counter() - t0)
    dist.barrier()
    times.sort()
    print(f"rank {rank} world {world} steps {args.steps} median_ms "
          f"{1e3 * times[len(times) // 2]:.3f} slow_ms {args.slow_ms if slow else 0:g}",
          flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
