#!/usr/bin/env python3
"""train_loop.py - a small PyTorch training loop written the way users write
one, as a real program to record with `gapscope record` (tools/gpu-realprogs.sh).

A synthetic image dataset (4096 samples of 3x32x32 with labels; each
__getitem__ makes its sample and does a little CPU augmentation), a
DataLoader with 2 worker processes and pageable batches (pin_memory=False),
a small CNN trained with Adam, and the loss read back with loss.item()
every step: the usual sources of GPU idle time (host-side Python and data
loading, the per-step implicit sync of .item(), pageable uploads) with
nothing tuned away. Each step is one NVTX range "step".

  train_loop.py [--steps N] [--warmup N] [--ab R] [--sharing STRATEGY]

Runs N steps (default 150; the loader is iterated again, epoch after epoch,
until then) and prints the mean time per step, the first --warmup steps
(default 5: worker start, cuDNN's first calls) left out, as
"train step_us <x>", and the mean wall of a whole loop iteration (taking
the next batch from the loader included) as "train loop_us <x>". It prints
figures; it asserts nothing but a finite loss. --sharing sets
torch.multiprocessing's sharing strategy (file_descriptor, Linux's default,
or file_system) before the loader starts: how the workers hand their batches'
tensors to this process (the what-if's input_wait check, tests/gpu/whatif_gpu.sh).
With --ab R (under `gapscope record --capture-range cudaProfilerApi`) it
instead runs the --warmup steps, then R rounds of two phases of 20 steps,
one untraced (ranges "ab_untraced") and one traced (between
torch.cuda.profiler.start() and stop(), ranges "step"), in alternating order,
and prints "ab round=K untraced_us=<mean us a step> traced_us=... ratio=..."
and "ab median_ratio=... rounds=R steps=20", as bench/overhead/torch_nosync.py --ab
does (a step's time: from its batch in hand to its loss read back; loading
the next batch is outside it); corrected_accuracy.py ab --range step reads
them.
"""
import argparse
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ab_rounds import ab_rounds  # noqa: E402  (bench/)


class SyntheticImages(Dataset):
    """Random 3x32x32 images with labels 0..9, the same for the same index."""

    def __init__(self, n=4096):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        img = torch.rand(3, 36, 36, generator=g)
        # the CPU work of a typical transform: random crop, flip, normalize
        top, left = torch.randint(0, 5, (2,), generator=g).tolist()
        img = img[:, top:top + 32, left:left + 32]
        if torch.rand(1, generator=g).item() < 0.5:
            img = img.flip(2)
        img = (img - 0.5) / 0.25
        return img.contiguous(), i % 10


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.conv3 = nn.Conv2d(64, 128, 3, padding=1)
        self.fc1 = nn.Linear(128 * 4 * 4, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # 16x16
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # 8x8
        x = F.max_pool2d(F.relu(self.conv3(x)), 2)  # 4x4
        x = F.relu(self.fc1(x.flatten(1)))
        return self.fc2(x)


AB_STEPS = 20  # steps a phase of --ab


def train_step(name, model, opt, x, y, dev):
    """one training step inside NVTX range `name`; returns its loss (the
    .item() syncs, as a training loop that logs its loss does)"""
    torch.cuda.nvtx.range_push(name)
    x, y = x.to(dev), y.to(dev)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    value = loss.item()
    torch.cuda.nvtx.range_pop()
    return value


def ab(loader, model, opt, dev, warmup, rounds):
    """Untraced and traced phases of training steps alternating in one
    process (--ab); returns the loss's sum"""
    def batches():
        while True:
            yield from loader

    it = batches()
    total = 0.0

    def phase(name, traced, steps=AB_STEPS):
        nonlocal total
        if traced:
            torch.cuda.profiler.start()
        spent = 0.0
        for _ in range(steps):
            x, y = next(it)
            t0 = time.perf_counter()
            total += train_step(name, model, opt, x, y, dev)
            spent += time.perf_counter() - t0
        if traced:
            torch.cuda.profiler.stop()
        return spent * 1e6 / steps

    phase("ab_warmup", False, max(warmup, 1))
    phase("ab_warm", True, 2)  # whatever the first switch-on costs once
    ab_rounds(phase, rounds, AB_STEPS, "step")
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--ab", type=int, default=0, metavar="R")
    ap.add_argument("--sharing", choices=("file_descriptor", "file_system"))
    a = ap.parse_args()
    if a.sharing:
        torch.multiprocessing.set_sharing_strategy(a.sharing)

    torch.manual_seed(0)
    dev = torch.device("cuda")
    loader = DataLoader(SyntheticImages(), batch_size=64, shuffle=True,
                        num_workers=2, pin_memory=False)
    model = SmallCNN().to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    if a.ab:
        total = ab(loader, model, opt, dev, a.warmup, a.ab)
        if not math.isfinite(total):
            print("FAIL (loss not finite)")
            raise SystemExit(1)
        return

    times = []
    loops = []  # each iteration's start, the batch's wait included
    total_loss = 0.0
    step = 0
    epoch = 0
    while step < a.steps:
        for x, y in loader:
            if step >= a.steps:
                break
            t0 = time.perf_counter()
            loops.append(t0)
            total_loss += train_step("step", model, opt, x, y, dev)
            times.append(time.perf_counter() - t0)
            step += 1
        epoch += 1
        print(f"epoch {epoch} steps {step} mean_loss {total_loss / step:.4f}")

    timed = times[a.warmup:] if len(times) > a.warmup else times
    if not math.isfinite(total_loss):
        print("FAIL (loss not finite)")
        raise SystemExit(1)
    print(f"train step_us {sum(timed) / len(timed) * 1e6:.1f}")
    # from the first timed step's start to the last one's: whole iterations,
    # the epochs' restarts (the workers' first batches) included
    if len(loops) > a.warmup + 1:
        w = loops[a.warmup:]
        print(f"train loop_us {(w[-1] - w[0]) / (len(w) - 1) * 1e6:.1f}")


if __name__ == "__main__":  # DataLoader workers may be started by spawn/forkserver
    main()
