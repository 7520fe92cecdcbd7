#!/usr/bin/env python3
"""test_sampler_waits.py PROBE.so - the sampler's off-CPU samples
(collector/sampler.c look_waits) in a real interpreter, through
tests/unit/sampler_probe.c (the sampler started as the collector starts it,
at 250 Hz, its events kept):

a thread is watched, spins in spin() for 0.3 s of CPU (its CPU samples give
the sampler its Python thread state), then waits 0.6 s in waiting_here() on
a threading.Event (asleep, the GIL released), then spins again. Checked:
- off-CPU samples of that thread come, each naming the wait: an innermost
  frame of this file's is waiting_here() at the line of the wait;
- they lie inside the wait (each [t - ns, t] within it, 20 ms of slack for
  the look before and after), and sum to most of it: 0.45-0.65 s of 0.6 s;
- none names spin(): while it ran, the thread was never seen off CPU.
- CPU samples name spin() (the sampler runs at all).
Then, for 1 s, it sleeps 0.3 ms and spins 0.7 ms in turn (short_waits_here()):
waits far shorter than the sampler's 2 ms look. The off-CPU samples naming that
sleep must sum to 0.6-1.6 of the time it slept (wall less CPU and runnable
time, from /proc/self/task/TID/schedstat; each sample stands for
the period since the look before; weighed by that period's off-CPU time alone,
they summed to 0.30-0.34 of it on the development machine; weighed by the
period, 0.72-0.97, and 0.87-1.37 beside the other tests on its two cores).
Prints PASS/FAIL lines; exits 0, 1 on a failure, 77 (skipped) where the
probe cannot be loaded or this CPython has no frame layout the reader knows.
"""
import ctypes
import os
import sys
import threading
import time

failures = 0


def check(cond, what):
    global failures
    print(("PASS: " if cond else "FAIL: ") + what)
    if not cond:
        failures += 1


def spin(seconds):
    t0 = time.thread_time()
    x = 0
    while time.thread_time() - t0 < seconds:
        x += 1
    return x


def waiting_here(ev, seconds, span):
    span.append(LIB.probe_now())
    ev.wait(seconds)  # the line the off-CPU samples name
    span.append(LIB.probe_now())


def schedstat():
    """this thread's ns on CPU and ns runnable waiting for one (None where the
    kernel keeps no schedstat)"""
    try:
        with open("/proc/self/task/%d/schedstat" % threading.get_native_id()) as f:
            run, queued = f.read().split()[:2]
        return int(run), int(queued)
    except (OSError, ValueError):
        return None


def short_waits_here(seconds):
    """the seconds it slept: wall less its CPU and runnable time (schedstat; a
    loaded machine leaves a thread woken from its sleep runnable, which is no
    wait), else the sleep calls' own wall time"""
    asleep = 0.0
    s0, w0 = schedstat(), time.perf_counter()
    end = w0 + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        time.sleep(0.0003)  # the short waits' line
        asleep += time.perf_counter() - t0
        spin(0.0007)
    s1, w1 = schedstat(), time.perf_counter()
    if s0 and s1:
        return (w1 - w0) - (s1[0] - s0[0] + s1[1] - s0[1]) / 1e9
    return asleep


def worker(out):
    LIB.probe_watch_self()
    out["tid"] = threading.get_native_id()
    spin(0.3)
    span = []
    waiting_here(threading.Event(), 0.6, span)
    out["span"] = span
    spin(0.1)
    out["short"] = [LIB.probe_now()]
    out["asleep"] = short_waits_here(1.0)
    out["short"].append(LIB.probe_now())
    spin(0.05)


def main():
    global LIB
    if len(sys.argv) != 2:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    try:
        LIB = ctypes.CDLL(sys.argv[1])
    except OSError as e:
        print("cannot load the probe: %s: skipped" % e)
        return 77
    if not (3, 9) <= sys.version_info[:2] <= (3, 13):
        print("CPython %d.%d: no frame layout: skipped" % sys.version_info[:2])
        return 77
    LIB.probe_now.restype = ctypes.c_ulonglong
    if LIB.probe_start(250) != 0:
        check(False, "the sampler starts")
        return 1
    out = {}
    t = threading.Thread(target=worker, args=(out,))
    t.start()
    t.join()
    n = LIB.probe_stop()
    buf = ctypes.create_string_buffer(512)
    evs = []
    for i in range(n):
        LIB.probe_event(i, buf, 512)
        kind, tid, t0, t1, *fr = buf.value.decode("ascii", "replace").split(" ", 4)
        evs.append((kind, int(tid), int(t0), int(t1), fr[0] if fr else ""))
    mine = [e for e in evs if e[1] == out["tid"]]
    off = [e for e in mine if e[0] == "off"]
    cpu = [e for e in mine if e[0] == "cpu"]
    src = open(__file__).read().split("\n")
    line = next(i + 1 for i, l in enumerate(src) if "ev.wait(seconds)  # the line" in l)
    a, b = out["span"]
    print("INFO: %d CPU samples, %d off-CPU samples of the thread; wait [%d, %d] ns" %
          (len(cpu), len(off), a, b))
    for e in off[:3]:
        print("INFO: off-CPU sample %s" % (e,))
    check(len(cpu) >= 20 and sum("spin:" in e[4] for e in cpu) >= 0.9 * len(cpu),
          "CPU samples: >= 20, >= 90%% in spin() (got %d, %d in spin)" %
          (len(cpu), sum("spin:" in e[4] for e in cpu)))
    sa, sb = out["short"]
    short = [e for e in off if e[3] > sa]
    off = [e for e in off if e[3] <= sa]
    named = [e for e in off if ("waiting_here:%d" % line) in e[4]]
    check(len(off) >= 20 and len(named) == len(off),
          "off-CPU samples: >= 20, each naming waiting_here() at line %d (got %d, %d naming it)"
          % (line, len(off), len(named)))
    slack = 20_000_000
    inside = [e for e in off if e[2] >= a - slack and e[3] <= b + slack]
    check(len(inside) == len(off),
          "each off-CPU sample's span lies in the wait (%d of %d)" % (len(inside), len(off)))
    total = sum(e[3] - e[2] for e in off) / 1e9
    check(0.45 <= total <= 0.65,
          "off-CPU samples sum to 0.45-0.65 s of the 0.6 s wait (got %.3f s)" % total)
    check(not any("spin:" in e[4] for e in off),
          "no off-CPU sample names spin()")
    sline = next(i + 1 for i, l in enumerate(src) if "time.sleep(0.0003)  # the short" in l)
    sleeping = sum(e[3] - e[2] for e in short if ("short_waits_here:%d" % sline) in e[4]) / 1e9
    print("INFO: short waits: %d off-CPU samples after %.3f s, %.3f s naming the sleep; "
          "%.3f s measured asleep" % (len(short), (sb - sa) / 1e9, sleeping, out["asleep"]))
    check(0.6 * out["asleep"] <= sleeping <= 1.6 * out["asleep"],
          "short waits: the samples naming the sleep sum to 0.6-1.6 of the %.3f s asleep "
          "(got %.3f s)" % (out["asleep"], sleeping))
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
