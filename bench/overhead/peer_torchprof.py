#!/usr/bin/env python3
"""peer_torchprof.py - runs a Python program under torch.profiler, the peer that
gapscope's tracing cost is compared with (bench/overhead/overhead_pairs.py's `@torchprof`
and `@torchprof_cpu` configurations).

  peer_torchprof.py [--cpu] PROGRAM.py [ARGS...]

The profiler is on for the whole run of PROGRAM (as `gapscope record` is):
activities CUDA only, or CPU and CUDA with --cpu; no trace is exported, so
what the program's own timers measure is the profiler's cost while it
records. The program's output and exit status are passed through.
"""
import runpy
import sys

import torch
from torch.profiler import ProfilerActivity, profile


def main():
    args = sys.argv[1:]
    acts = [ProfilerActivity.CUDA]
    if args and args[0] == "--cpu":
        acts.insert(0, ProfilerActivity.CPU)
        args = args[1:]
    if not args:
        print("usage: peer_torchprof.py [--cpu] PROGRAM.py [ARGS...]", file=sys.stderr)
        return 2
    sys.argv = args
    code = 0
    with profile(activities=acts):
        try:
            runpy.run_path(args[0], run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    torch.cuda.synchronize()
    return code


if __name__ == "__main__":
    sys.exit(main())
