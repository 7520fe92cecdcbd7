#!/usr/bin/env python3
"""peer_torchprof.py - runs a Python program under torch.profiler, the peer that
gapscope's tracing cost is compared with (bench/overhead/overhead_pairs.py's `@torchprof`
and `@torchprof_cpu` configurations).

  peer_torchprof.py [--cpu] [--windows] PROGRAM.py [ARGS...]

The profiler is on for the whole run of PROGRAM (as `gapscope record` is):
activities CUDA only, or CPU and CUDA with --cpu; no trace is exported, so
what the program's own timers measure is the profiler's cost while it
records. The program's output and exit status are passed through.

With --windows it records only between the program's torch.cuda.profiler.start()
and stop() (as `gapscope record --capture-range cudaProfilerApi` does): each
start opens a torch.profiler session and its stop closes it. A program's --ab
mode (bench/ab_rounds.py) then prints its traced phases against the untraced
phases of the same process for torch.profiler too, the in-process ratio that
`corrected_accuracy.py ab` reads for gapscope (tools/gpu-call.sh PARTS=abpeer).
"""
import runpy
import sys

import torch
from torch.profiler import ProfilerActivity, profile


def run(path):
    """the program as __main__: its exit status"""
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return 0


def windows(acts):
    """torch.cuda.profiler.start()/stop() open and close a profiler session"""
    state = {"p": None}

    def start():
        if state["p"] is None:
            state["p"] = profile(activities=acts)
            state["p"].__enter__()

    def stop():
        if state["p"] is not None:
            torch.cuda.synchronize()
            state["p"].__exit__(None, None, None)
            state["p"] = None

    torch.cuda.profiler.start = start
    torch.cuda.profiler.stop = stop
    return stop


def main():
    args = sys.argv[1:]
    acts = [ProfilerActivity.CUDA]
    in_windows = False
    while args and args[0] in ("--cpu", "--windows"):
        if args[0] == "--cpu":
            acts.insert(0, ProfilerActivity.CPU)
        else:
            in_windows = True
        args = args[1:]
    if not args:
        print("usage: peer_torchprof.py [--cpu] [--windows] PROGRAM.py [ARGS...]",
              file=sys.stderr)
        return 2
    sys.argv = args
    if in_windows:
        stop = windows(acts)
        code = run(args[0])
        stop()  # a window still open at the end
    else:
        with profile(activities=acts):
            code = run(args[0])
    torch.cuda.synchronize()
    return code


if __name__ == "__main__":
    sys.exit(main())
