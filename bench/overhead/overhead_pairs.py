#!/usr/bin/env python3
"""overhead_pairs.py - what the collector costs, as traced/untraced ratios of
interleaved runs in one go (the machines are noisy: only figures measured
side by side are compared). Runs on the GPU machine, from the repository root:

  bench/overhead/overhead_pairs.py --build build [--rounds 5] [--config NAME=ENV ...] [--fixed-order]
                          [--workloads launch,torch_nosync,torch_sync] [--out DIR]

Each round runs every workload once untraced and once per configuration, in
an order rotated by one each round (untraced first in round 1, the first
configuration first in round 2, ...): on the H100 and H200 a run's place in
the round moved GPT-2 generate's traced wall by more than the collectors
being compared differed (2026-12-05); --fixed-order keeps one order. A
configuration is `gapscope record` with environment settings, e.g.
  --config default=            (the collector's defaults)
  --config kernel=GAPSCOPE_ACTIVITIES=kernel
  --config graphs=GAPSCOPE_GRAPH_LEVEL=1;GAPSCOPE_ACTIVITIES=kernel,runtime
A configuration whose value starts with @ runs a peer profiler instead of
gapscope (Python workloads only; others skip it):
  --config torchprof=@torchprof       torch.profiler, CUDA activities
  --config torchprof_cpu=@torchprof_cpu  torch.profiler, CPU and CUDA
(bench/overhead/peer_torchprof.py; Nsight Systems does not run on the lent GPU
machines, docs/collector.md).
Workloads and the figures they print:
  launch        gs_bench_launch_overhead: µs per kernel, back_to_back,
                launch_sync, graph_100, graph_1000
  torch_nosync  bench/overhead/torch_nosync.py: µs per step (no per-step sync)
  torch_sync    bench/overhead/torch_overhead.py: µs per step (sync every step)
  probe         gs_bench_launch_probe: µs per launch in variants that each
                change one thing from gapscope-calibrate's loop
  graph_pitch   gs_bench_graph_pitch: µs per graph node, by the node
                kernel's spin length (spin0 ... spin10000, ns)
  node_pitch    gs_bench_node_pitch: the GPU's µs per tiny kernel behind a
                block, graph nodes and launched kernels, by what the kernel
                does (empty, store, atomic, spin1000, spin1000_store)
For every figure it prints the untraced median and, per configuration, the
traced median and the median of the per-round ratios traced/untraced. The
traces of the last round stay in DIR (default out/pairs) for the report;
with --keep-rounds every round's logs and traces stay, named
WORKLOAD.CONFIG.rN.log/.db (bench/accuracy/corrected_accuracy.py reads them).
It prints figures; it does not pass or fail on them. Exits 77 without a GPU.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

# the injection paths and every collector setting (as tools/gpu-env.sh's
# gs_clean_env)
INJECTIONS = ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")


# peer profilers: what runs instead of `gapscope record` (Python programs)
PEERS = {
    "@torchprof": ["bench/overhead/peer_torchprof.py"],
    "@torchprof_cpu": ["bench/overhead/peer_torchprof.py", "--cpu"],
}


def round_order(configs, rnd, fixed=False):
    """The configurations in the order round rnd (from 0) runs them: rotated
    by rnd, so each takes every place in the round in turn."""
    if fixed or not configs:
        return list(configs)
    k = rnd % len(configs)
    return list(configs[k:]) + list(configs[:k])


def workloads(build):
    return {
        "launch": ([os.path.join(build, "bin", "gs_bench_launch_overhead"),
                    "--repeats", "20"],
                   r"^mode=(\S+) per_kernel_us=([0-9.]+)", "us/kernel"),
        "torch_nosync": (["python3", "bench/overhead/torch_nosync.py"],
                         r"^torch_(nosync) us_per_step=([0-9.]+)", "us/step"),
        # a transformers GPT-2 greedy decode of 72 tokens (bench/real)
        "hf_generate": (["python3", "bench/real/hf_generate.py"],
                        r"^(generate) tokens \d+ wall_us ([0-9.]+)", "us/generate"),
        # the PyTorch training loop of bench/real (step time, warm-up left out)
        "train_loop": (["python3", "bench/real/train_loop.py"],
                       r"^(train) step_us ([0-9.]+)", "us/step"),
        "torch_sync": (["python3", "bench/overhead/torch_overhead.py"],
                       r"^torch_eager mode=(plain) us_per_step=([0-9.]+)", "us/step"),
        # what tracing adds per launch call, by op (diagnosis)
        "torch_ops": (["python3", "bench/overhead/torch_nosync.py", "--op-times"],
                      r"^op=(\S+) host_us=([0-9.]+)", "us/call"),
        # short kernels on the legacy default stream / with 128 streams made
        "launch_legacy": ([os.path.join(build, "bin", "gs_bench_launch_overhead"),
                           "--repeats", "20", "--legacy", "1"],
                          r"^mode=(back_to_back|launch_sync) per_kernel_us=([0-9.]+)",
                          "us/kernel"),
        # which property of a launch makes tracing dear (launch_probe.cu)
        "probe": ([os.path.join(build, "bin", "gs_bench_launch_probe")],
                  r"^variant=(\S+) per_launch_us=([0-9.]+)", "us/launch"),
        # GPU time per graph node by how long each node's kernel spins
        # (graph_pitch.cu): what tracing adds to a node, as a curve
        "graph_pitch": ([os.path.join(build, "bin", "gs_bench_graph_pitch")],
                        r"^mode=(\S+) per_kernel_us=([0-9.]+)", "us/node"),
        # the GPU's time per tiny kernel by what it does (node_pitch.cu)
        "node_pitch": ([os.path.join(build, "bin", "gs_bench_node_pitch")],
                       r"^mode=(\S+) per_kernel_us=([0-9.]+)", "us/kernel"),
        "launch_streams": ([os.path.join(build, "bin", "gs_bench_launch_overhead"),
                            "--repeats", "20", "--extra-streams", "128"],
                           r"^mode=(back_to_back|launch_sync) per_kernel_us=([0-9.]+)",
                           "us/kernel"),
    }


def have_gpu():
    """nvidia-smi is there and lists a GPU"""
    return shutil.which("nvidia-smi") is not None and subprocess.run(
        ["nvidia-smi", "-L"], stdout=subprocess.DEVNULL).returncode == 0


def clean_env():
    """the environment without collector settings or another injection"""
    return {k: v for k, v in os.environ.items()
            if k not in INJECTIONS and not k.startswith("GAPSCOPE_")}


def run_once(cmd, env, log):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    with open(log, "w") as f:
        f.write(p.stdout)
    if p.returncode != 0:
        print(f"!!! {' '.join(cmd)} exited {p.returncode}; see {log}", flush=True)
    return p.stdout


def table(fig, configs, done, values):
    """the medians of the rounds done so far (printed after each round, so that
    a run cut off by its time limit still shows what it measured)"""
    print(f"\nMedians of {done} interleaved rounds; ratio = median over rounds of "
          "traced/untraced in the same round")
    hdr = f"{'workload':<14} {'figure':<13} {'untraced':>9}"
    for cname, extra in configs[1:]:
        hdr += f" {cname[:14]:>14} {'ratio':>6}"
    print(hdr)
    for (w, f, unit), per in fig.items():
        u = [v for v in per.get("untraced", []) if v is not None]
        line = f"{w:<14} {f:<13} {statistics.median(u) if u else float('nan'):>9.3f}"
        for cname, _ in configs[1:]:
            t = per.get(cname, [])
            pairs = [tv / uv for tv, uv in zip(t, per.get("untraced", []))
                     if tv is not None and uv]
            tv = [v for v in t if v is not None]
            line += (f" {statistics.median(tv):>14.3f} {statistics.median(pairs):>6.2f}"
                     if tv and pairs else f" {'-':>14} {'-':>6}")
        print(line + f"  ({unit})")
        if values:
            for cname, _ in configs:
                print(f"    {cname}: " + " ".join(
                    "-" if v is None else f"{v:g}" for v in per.get(cname, [])))
    print("configurations: " + "; ".join(
        f"{n}: " + (e if isinstance(e, str) else
                    ' '.join(f'{k}={v}' for k, v in e.items()) or 'defaults')
        for n, e in configs[1:]), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--config", action="append", default=[])
    ap.add_argument("--workloads", default="launch,torch_nosync,torch_sync")
    ap.add_argument("--out", default="out/pairs")
    ap.add_argument("--pin", default="", help='command prefix, e.g. "taskset -c 4-7"')
    ap.add_argument("--values", action="store_true", help="print every round's figure")
    ap.add_argument("--fixed-order", action="store_true",
                    help="run untraced, then each configuration, in this order every round")
    ap.add_argument("--keep-rounds", action="store_true",
                    help="keep every round's logs and traces (WORKLOAD.CONFIG.rN.*)")
    a = ap.parse_args()
    if not have_gpu():
        print("no NVIDIA GPU here (nvidia-smi -L): skipped")
        return 77
    gs = os.path.join(a.build, "bin", "gapscope")
    os.makedirs(a.out, exist_ok=True)
    base = clean_env()
    configs = [("untraced", None)]
    for c in a.config or ["default="]:
        name, _, envs = c.partition("=")
        if envs.startswith("@"):
            if envs not in PEERS:
                print(f"unknown peer {envs}; known: {', '.join(PEERS)}")
                return 2
            configs.append((name, envs))
            continue
        extra = dict(kv.split("=", 1) for kv in envs.split(";") if kv)
        configs.append((name, extra))
    wl = workloads(a.build)
    names = [w for w in a.workloads.split(",") if w]
    for w in names:
        if w not in wl:
            print(f"unknown workload {w}; known: {', '.join(wl)}")
            return 2
    # fig[(workload, figure)][config] = [value per round]
    fig = {}
    for rnd in range(a.rounds):
        for w in names:
            cmd, pat, unit = wl[w]
            cmd = a.pin.split() + cmd
            for cname, extra in round_order(configs, rnd, a.fixed_order):
                tag = f"{w}.{cname}" + (f".r{rnd + 1}" if a.keep_rounds else "")
                log = os.path.join(a.out, tag + ".log")
                if extra is None:
                    out = run_once(cmd, base, log)
                elif isinstance(extra, str):  # a peer profiler
                    prog = cmd[len(a.pin.split()):]
                    if prog[0] != "python3":
                        continue
                    out = run_once(a.pin.split() + ["python3"] + PEERS[extra] + prog[1:],
                                   base, log)
                else:
                    db = os.path.join(a.out, tag + ".db")
                    for sfx in ("", "-wal", "-shm"):
                        if os.path.exists(db + sfx):
                            os.remove(db + sfx)
                    env = dict(base, **extra)
                    out = run_once(a.pin.split() + [gs, "record", "-o", db, "--"] +
                                   cmd[len(a.pin.split()):], env, log)
                for m in re.finditer(pat, out, re.M):
                    fig.setdefault((w, m.group(1), unit), {}).setdefault(
                        cname, [None] * a.rounds)[rnd] = float(m.group(2))
        print(f"round {rnd + 1}/{a.rounds} done", flush=True)
        table(fig, configs, rnd + 1, a.values)

    return 0


if __name__ == "__main__":
    sys.exit(main())
