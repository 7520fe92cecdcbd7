#!/usr/bin/env python3
"""callsite_python.py LIB [--captures N] [--rounds R] - what each part of a
call-site capture costs inside a Python program (collector/callsite.c):
its Python frames (the C API path, the GIL held) against its native walk
with libgcc's unwinder and with libunwind's, from Python stacks 5, 20 and
50 functions deep. LIB is the build's lib/libgs_bench_callsite_py.so
(bench/speed/callsite_python.c). The default GAPSCOPE_NATIVE_FRAMES=auto takes
the Python frames alone where it finds them; `always` takes both.

Prints, per depth, ns per capture of each part (median over the rounds,
which alternate the parts) and the frames each took. It prints figures; it
asserts nothing. Exits 77 where the library cannot be loaded.
"""
import argparse
import ctypes
import statistics
import sys

PARTS = (("python frames", 0, 0), ("native, libgcc", 1, 1), ("native, libunwind", 1, 2))


def nested(depth, fn):
    """fn() called from `depth` Python frames below this one"""
    if depth <= 1:
        return fn()
    return nested(depth - 1, fn)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lib")
    ap.add_argument("--captures", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    try:
        lib = ctypes.PyDLL(a.lib)  # the GIL stays held: the C API path
    except OSError as e:
        print(f"cannot load {a.lib}: {e}: skipped")
        return 77
    f = lib.gs_bench_capture_ns
    f.restype = ctypes.c_double
    f.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int))
    print(f"python {sys.version.split()[0]}; ns per capture, median of {a.rounds} rounds "
          f"of {a.captures}")
    print(f"{'depth':>5} " + " ".join(f"{name:>24}" for name, _, _ in PARTS))
    for depth in (5, 20, 50):
        got = {name: [] for name, _, _ in PARTS}
        frames = {}
        for _ in range(a.rounds):
            for name, part, unw in PARTS:
                n = ctypes.c_int(0)
                v = nested(depth, lambda: f(part, unw, a.captures, ctypes.byref(n)))
                frames[name] = n.value
                if v >= 0:
                    got[name].append(v)
        cells = []
        for name, _, _ in PARTS:
            v = got[name]
            cells.append(f"{statistics.median(v):10.0f} ({frames[name]:2d} frames)" if v
                         else f"{'not available':>24}")
        print(f"{depth:>5} " + " ".join(f"{c:>24}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
