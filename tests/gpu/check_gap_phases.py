#!/usr/bin/env python3
"""check_gap_phases.py GAPSCOPE TRACE.db - gap model v2 on a real GPU.

TRACE.db is tests/gpu/gap_phases.cu recorded under `gapscope record` (on the
H200: tools/gpu-realprogs.sh). Each NVTX phase of that program was built so
that one thing holds its GPU back; this prints, per phase, the idle time and
the share of each cause (`gapscope report --range PHASE --json`), and checks
that the causes the phase was designed for hold what gap model v2 says they
must (docs/metrics.md):

  host_late         150 us of host spin between launches: host code
  back_to_back      launches with nothing between them: launch latency
  sync_copy         a synchronous 4 MB cudaMemcpy to pageable memory per step:
                    sync wait
  pageable_copy     cudaMemcpyAsync to pageable memory per step: sync wait
  explicit_sync     cudaStreamSynchronize per step, waiting for a host
                    function on the stream: sync wait
  malloc_free       cudaMalloc/cudaFree per step: sync wait
  cross_stream      a host function on another stream gates each kernel: dependency
  graph_replay      graphs of 1000 kernels launched before one sync:
                    graph-internal, never sync wait
  pause_after_sync  20 ms host sleep after a short sync: host code, not sync wait

Prints a table and "N passed, N failed"; exits 1 on a failure, 2 on bad use.
"""
import json
import subprocess
import sys

# phase -> (causes that together must hold >= share of the phase's idle,
#           share, causes that must stay under 5%)
EXPECT = {
    "host_late": (["host_code"], 0.85, ["sync_wait", "dependency"]),
    "back_to_back": (["launch_latency"], 0.85, ["sync_wait", "dependency"]),
    "sync_copy": (["sync_wait"], 0.85, ["dependency"]),
    "pageable_copy": (["sync_wait"], 0.85, ["dependency"]),
    "explicit_sync": (["sync_wait"], 0.85, ["dependency"]),
    "malloc_free": (["sync_wait"], 0.85, ["dependency"]),
    "cross_stream": (["dependency"], 0.85, ["sync_wait"]),
    "graph_replay": (["graph_internal"], 0.85, ["sync_wait"]),
    "pause_after_sync": (["host_code"], 0.85, ["sync_wait"]),
}

CAUSES = ["sync_wait", "cuda_api", "host_code", "launch_latency", "graph_internal",
          "dependency", "other"]


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    gs, db = sys.argv[1:]
    passed = failed = 0
    print("%-17s %10s  %s" % ("phase", "idle", "  ".join("%9s" % c[:9] for c in CAUSES)))
    for phase, (want, share, small) in EXPECT.items():
        p = subprocess.run([gs, "report", db, "--range", phase, "--json"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("FAIL: %s: report exited %d: %s" % (phase, p.returncode, p.stderr.strip()))
            failed += 1
            continue
        rep = json.loads(p.stdout)
        if rep.get("gapscope_report") != 2:
            print("FAIL: %s: report format %r, not 2 (gap model v2)" %
                  (phase, rep.get("gapscope_report")))
            failed += 1
            continue
        dev = rep["devices"][0]
        by = dev["idle_by_cause_ns"]
        idle = sum(by.values())
        shares = {c: (by[c] / idle if idle else 0.0) for c in CAUSES}
        print("%-17s %8.3f ms  %s" % (phase, idle / 1e6,
                                       "  ".join("%8.1f%%" % (100 * shares[c]) for c in CAUSES)))
        got = sum(shares[c] for c in want)
        if idle > 0 and got >= share and all(shares[c] < 0.05 for c in small):
            print("PASS: %s: %s hold %.1f%% (>= %.0f%%), %s under 5%%" %
                  (phase, " + ".join(want), 100 * got, 100 * share, ", ".join(small)))
            passed += 1
        else:
            print("FAIL: %s: %s hold %.1f%% (want >= %.0f%%); %s" %
                  (phase, " + ".join(want), 100 * got, 100 * share,
                   ", ".join("%s %.1f%%" % (c, 100 * shares[c]) for c in small)))
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
