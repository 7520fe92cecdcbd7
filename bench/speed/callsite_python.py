#!/usr/bin/env python3
"""callsite_python.py LIB [--captures N] [--rounds R] - what each part of a
call-site capture costs inside a Python program (collector/callsite.c):
its Python frames (the C API path, the GIL held; and, on CPython 3.12 and
3.13, read from the thread's frames with the GIL released, as at PyTorch's
blocking calls) against its native walk with libgcc's unwinder and with
libunwind's, from Python stacks 5, 20 and 50 functions deep, and 20 deep
with the fourth frame 400 lines into its function ("20+big": there
CPython's line lookup decodes 400 lines of line table; without the GIL the
collector remembers each frame's line by code object and instruction since
2026-12-07, and "line cache off" is the same read without that, as
before). LIB is the build's lib/libgs_bench_callsite_py.so
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

PARTS = (("python frames", 0, 0), ("python frames, no GIL", 0, 0),
         ("no GIL, line cache off", 2, 0), ("native, libgcc", 1, 1), ("native, libunwind", 1, 2))


def nested(depth, fn):
    """fn() called from `depth` Python frames below this one"""
    if depth <= 1:
        return fn()
    return nested(depth - 1, fn)


# a function whose call lies 400 lines into it
BIG = ("def big(depth, fn):\n" + "".join("    x%d = %d\n" % (i, i) for i in range(400)) +
       "    return nested(depth, fn)\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lib")
    ap.add_argument("--captures", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    try:
        lib = ctypes.PyDLL(a.lib)  # the GIL stays held: the C API path
        lib_nogil = ctypes.CDLL(a.lib)  # the GIL released around the call
    except OSError as e:
        print(f"cannot load {a.lib}: {e}: skipped")
        return 77
    fns = {}
    for name, l in (("gil", lib), ("nogil", lib_nogil)):
        f = l.gs_bench_capture_ns
        f.restype = ctypes.c_double
        f.argtypes = (ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int))
        fns[name] = f
    ns = {"nested": nested}
    exec(compile(BIG, "/gs/bench/big_function.py", "exec"), ns)
    big = ns["big"]
    print(f"python {sys.version.split()[0]}; ns per capture, median of {a.rounds} rounds "
          f"of {a.captures}")
    print(f"{'depth':>6} " + " ".join(f"{name:>24}" for name, _, _ in PARTS))
    for depth in (5, 20, 50, "20+big"):
        got = {name: [] for name, _, _ in PARTS}
        frames = {}
        for _ in range(a.rounds):
            for name, part, unw in PARTS:
                n = ctypes.c_int(0)
                f = fns["nogil" if "no GIL" in name else "gil"]
                call = lambda: f(part, unw, a.captures, ctypes.byref(n))  # noqa: E731
                if depth == "20+big":
                    v = nested(17, lambda: big(2, call))
                else:
                    v = nested(depth, call)
                frames[name] = n.value
                if v >= 0:
                    got[name].append(v)
        cells = []
        for name, _, _ in PARTS:
            v = got[name]
            cells.append(f"{statistics.median(v):10.0f} ({frames[name]:2d} frames)"
                         if v and frames[name] else f"{'not available':>24}")
        print(f"{depth:>6} " + " ".join(f"{c:>24}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
