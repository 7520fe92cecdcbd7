#!/usr/bin/env python3
"""api_source.py - what recording the runtime's calls costs, by where the
records come from (bench/overhead/api_source.cu): each round runs
gs_bench_api_source once per mode (plain, kernel, kernel_runtime,
kernel_callbacks, callbacks_only, runtime_only, kernel_runtime_subset,
kernel_runtime_allbut, kernel_runtime_sync, and the collector's other
default kinds one at a time and together), each in its own process, and it prints
per variant the median µs per launch of each mode and the median over the
rounds of mode / plain in the same round. Runs on the GPU machine, from the
repository root:
  bench/overhead/api_source.py --build build [--rounds 5]
The question it answers (issue 18): do query calls (getdev_256: 5
cudaGetDevice per launch) stay free when runtime calls are recorded from
callbacks (kernel_callbacks) rather than CUPTI's RUNTIME kind
(kernel_runtime)? It prints figures; it does not pass or fail on them.
Exits 77 without a GPU.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

from overhead_pairs import clean_env, have_gpu  # same folder

MODES = ("plain", "kernel", "kernel_runtime", "kernel_callbacks", "callbacks_only",
         "runtime_only", "kernel_runtime_subset", "kernel_runtime_allbut",
         "kernel_runtime_sync", "kernel_runtime_event", "kernel_runtime_stream",
         "kernel_runtime_memcpy", "kernel_runtime_overhead", "default_set",
         "default_no_sync_event_stream", "kr_synccb_rt_empty", "kr_synccb_all_empty",
         "kr_synccb_all_full", "kr_synccb_rt_ctx", "kr_synccb_rt_stream", "kr_synccb_rt_time",
         "kernel_latency", "kernel_runtime_latency", "kernel_runtime_tsc",
         "kernel_runtime_rt", "kernel_runtime_drvlaunch", "drvlaunch_only")
LINE = re.compile(r"^mode=(\S+) variant=(\S+) per_launch_us=([0-9.]+)", re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--modes", help="comma list of modes to run (default: all)")
    a = ap.parse_args()
    modes = a.modes.split(",") if a.modes else MODES
    if not have_gpu():
        print("no NVIDIA GPU here (nvidia-smi -L): skipped")
        return 77
    exe = os.path.join(a.build, "bin", "gs_bench_api_source")
    env = clean_env()
    fig = {}  # (variant, mode) -> [value per round]
    for rnd in range(a.rounds):
        for m in modes:
            p = subprocess.run([exe, m], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120)
            if p.returncode != 0:
                print(f"!!! {m} exited {p.returncode}:\n{p.stdout}", flush=True)
                continue
            for mode, variant, us in LINE.findall(p.stdout):
                fig.setdefault((variant, mode), []).append((rnd, float(us)))
        print(f"round {rnd + 1}/{a.rounds} done", flush=True)
    print(f"\nmedians of {a.rounds} interleaved rounds, µs per launch; "
          "(x) = median over rounds of mode / plain in the same round")
    variants = sorted({v for v, _ in fig})
    print(f"{'mode':<23}" + "".join(f"{v:>20}" for v in variants))
    for m in modes:
        cells = []
        for v in variants:
            plain = dict(fig.get((v, "plain"), []))
            vals = fig.get((v, m), [])
            if not vals:
                cells.append(f"{'-':>20}")
                continue
            med = statistics.median(x for _, x in vals)
            ratios = [x / plain[r] for r, x in vals if plain.get(r)]
            rt = f" ({statistics.median(ratios):.2f})" if ratios and m != "plain" else ""
            cells.append(f"{med:>13.3f}{rt:>7}")
        print(f"{m:<23}" + "".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
