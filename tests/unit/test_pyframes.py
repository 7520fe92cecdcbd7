#!/usr/bin/env python3
"""test_pyframes.py PROBE.so - the call-site capture's Python frames on this
interpreter (collector/callsite.c, gs_py_frames), through
tests/unit/pyframes_probe.c:

- with the GIL held (ctypes.PyDLL): the C API path; the innermost frames are
  this file at the line of the call, in `caller`, then the line that called
  `caller`, in `<module>`;
- with the GIL released (ctypes.CDLL, as PyTorch releases it around its
  blocking calls): on CPython 3.9 to 3.13 the same frames, read from the
  thread's own frame chain; on other versions none (native frames only);
- the same from a second thread, and from a frame whose file name is not
  ASCII (the name reads "?", the line is still right);
- lines read again and again from the same places, as a loop's syncs read
  them (without the GIL a frame's line is remembered per code object and
  instruction): two call lines of one function in turn, and a call 400
  lines into a generated function, each time the interpreter's own line.

- the sampler's path (gs_py_frames_async): the same frames read in a signal
  handler, GIL held and released; and a CPU-time timer's samples of a busy
  loop that calls a function all the time (frames pushed and popped under
  the signal): each sample's innermost frame is busy() or inner(), at one
  of their lines.
- the sampler's fault guard (collector/sigguard.c): a wall-clock timer
  every 20 us reads the frames of a loop that enters and leaves Python
  frames from C all the time (sorts with a Python __lt__, map, generators,
  exceptions, class creation, exec, gc) for 2 s. CPython 3.12 sets
  tstate->cframe before that C frame's current_frame: without the guard a
  signal in between reads stack garbage and the program dies of SIGSEGV
  (3.12.1: within 0.1 s; GS_STRESS_GUARD=0 runs it bare, to see that). With
  it the process lives, and the samples name this file's frames.
  GS_STRESS_US sets the timer's period, GS_STRESS_ONLY=1 runs this check
  alone (ctest unit_pyframes_stress), with Python's faulthandler enabled
  first (a handler of the program's, on an alternate signal stack).

The expected lines come from the interpreter itself (f_lineno of the frame
that makes the call, read on the same line). Prints PASS/FAIL lines; exits
0, 1 on a failure, 77 (skipped) where the probe cannot be loaded.
"""
import ctypes
import inspect
import gc
import os
import time
import sys
import threading

failures = 0


def check(cond, what):
    global failures
    print(("PASS: " if cond else "FAIL: ") + what)
    if not cond:
        failures += 1


def frames(lib):
    buf = ctypes.create_string_buffer(4096)
    n = lib.gs_probe_frames(buf, 4096)
    return n, buf.value.decode("ascii", "replace").split("|") if n > 0 else []


def frames_sig(lib):
    buf = ctypes.create_string_buffer(4096)
    n = lib.gs_probe_frames_async(buf, 4096)
    return n, buf.value.decode("ascii", "replace").split("|") if n > 0 else []


def caller_sig(lib):
    (n, got), line = frames_sig(lib), sys._getframe().f_lineno
    return n, got, line


def deep(lib, k, fn):
    """fn's capture k calls deep; returns (n, frames, cut, the Python chain
    from this frame out as file:line:function)"""
    if k:
        return deep(lib, k - 1, fn)
    n, got = fn(lib)
    cut = lib.gs_probe_last_cut()
    chain, f = [], sys._getframe()
    while f:
        chain.append("%s:%d:%s" % (os.path.basename(f.f_code.co_filename), f.f_lineno,
                                   f.f_code.co_name))
        f = f.f_back
    return n, got, cut, chain


def check_deep(lib, fn, label):
    """a stack deeper than the capture keeps (GS_CS_PY_MAX = 16): the
    innermost 10 and the outermost 6, those at the interpreter's own lines,
    and how many were left out between them"""
    n, got, cut, chain = deep(lib, 40, fn)
    total = len(chain) + 1  # fn's own frame, innermost at the capture
    base = ["%s:%s:%s" % ((os.path.basename(g.rsplit(":", 2)[0]),) + tuple(g.rsplit(":", 2)[1:]))
            for g in got]
    inner_ok = n == 16 and got[0].rsplit(":", 1)[1] == fn.__name__ and \
        all(g.rsplit(":", 1)[1] == "deep" for g in got[1:10])
    check(inner_ok, "%s, 42 frames deep: 16 kept, the innermost %s() then deep() x9 "
          "(got %d: %s)" % (label, fn.__name__, n, got[:3]))
    check(base[10:] == chain[-6:],
          "%s: the outermost 6 are the interpreter's outermost 6 (got %s, want %s)"
          % (label, base[10:], chain[-6:]))
    check(cut == (total - 16) * 256 + 6,
          "%s: %d frames left out between them, 6 outer (got %d, %d)"
          % (label, total - 16, cut // 256, cut % 256))


def inner(x):
    return (x * 3 + 1) % 1000003


def busy(seconds):
    end = time.thread_time() + seconds
    x = 0
    while time.thread_time() < end:
        for _ in range(200):
            x = inner(x)
    return x


def sampled(lib):
    """the sampler's case: a CPU-time timer's signal reads the innermost
    frame wherever the interpreter is (GIL held, frames pushed and popped
    all the time); returns (samples, outside busy/inner, wrong lines)"""
    spans = {}
    for f in (busy, inner):
        src, first = inspect.getsourcelines(f)
        spans[f.__name__] = (first, first + len(src) - 1)
    if lib.gs_probe_sampling_start(1000) != 0:
        return None
    busy(0.3)
    buf = ctypes.create_string_buffer(1 << 17)
    n = lib.gs_probe_sampling_stop(buf, 1 << 17)
    outside = wrong = 0
    for s in buf.value.decode("ascii", "replace").split("|") if n > 0 else []:
        func, line = s.rsplit(":", 1)
        if func not in spans:
            outside += 1
        elif not spans[func][0] <= int(line) <= spans[func][1]:
            wrong += 1
    return n, outside, wrong


class Churn:
    def __init__(self, x):
        self.x = x

    def __lt__(self, other):
        return self.x < other.x

    def __hash__(self):
        return hash(self.x)

    def __eq__(self, other):
        return self.x == other.x


def churn_gen(k):
    for i in range(k):
        yield i * 2


def churn(seconds):
    end = time.monotonic() + seconds
    it = 0
    while time.monotonic() < end:
        ordered = sorted([Churn(i * 7 % 101) for i in range(200)])
        sum(map(lambda c: c.x, ordered))
        {Churn(i): i for i in range(50)}
        list(churn_gen(100))
        try:
            raise ValueError(it)
        except ValueError:
            pass
        type("C%d" % (it % 10), (object,), {"f": lambda self: 1})().f()
        # compiled as this file's code, and gc imported once (above): the
        # check counts walks whose innermost frame is this file's, and a
        # loop that ran "<string>" and the import machinery spent 1-20% of
        # its walks there, by the machine (pyenv's _distutils_hack among
        # them), failing a correct reader (2026-12-08)
        exec(compile("def q(z):\n    return z + 1\nq(3)", __file__, "exec"))
        if it % 50 == 0:
            gc.collect()
        it += 1
    return it


def stressed(lib):
    """(walks, with frames, innermost in this file, faulted), or None"""
    guard = int(os.environ.get("GS_STRESS_GUARD", "1"))
    us = int(os.environ.get("GS_STRESS_US", "20"))
    # the stop's function and its array made before the timer starts:
    # looked up after, ctypes' own Python code held up to 6% of the walks
    # (CPython 3.11, 2026-12-08)
    stop = lib.gs_probe_stress_stop
    out = (ctypes.c_long * 4)()
    if lib.gs_probe_stress_start(us, guard, __file__.encode()) != 0:
        return None
    churn(2.0)
    stop(out)
    return tuple(out)


def stress_check(lib):
    r = stressed(lib)
    us = os.environ.get("GS_STRESS_US", "20")
    if r is None:
        check(False, "the fault guard's stress could not start its timer")
    else:
        n, framed, here, faulted = r
        print("INFO: stress: %d walks, %d with frames, %d in this file, %d faulted "
              "and dropped" % (n, framed, here, faulted))
        check(n >= 1000 and framed >= 0.95 * n and here >= 0.95 * framed,
              "a %s us timer's walks of a loop entering and leaving Python frames from "
              "C, under the fault guard: the process lives, >= 1000 walks, >= 95%% with "
              "frames, >= 95%% of those innermost in this file (walks %d, with frames %d, "
              "in this file %d)" % (us, n, framed, here))
    return 1 if failures else 0


class Made:
    """an object whose __init__ reads the frames: called often enough, 3.13
    specialises the call (CALL_ALLOC_AND_ENTER_INIT) and runs __init__ over
    CPython's _Py_InitCleanup shim frame (file and function "__init__")"""

    def __init__(self, lib, out, sig):
        out.append(frames_sig(lib) if sig else frames(lib))


def init_shim_check(lib):
    for sig in (0, 1):
        out = []
        for _ in range(64):
            Made(lib, out, sig)
        n, got = out[-1]
        files = [g.rsplit(":", 2)[0] for g in got]
        check(n >= 3 and got[1].endswith(":__init__") and "__init__" not in files and
              got[2].endswith(":init_shim_check"),
              "%s: an __init__ called 64 times: __init__, then its caller, no shim "
              "frame (got %s)" % ("signal-safe walk" if sig else "walk with the GIL", got[:4]))


def waiting_here(lib, ev, ready, out):
    """a thread that makes itself known, then waits (off CPU, the GIL
    released) on the line after the marker"""
    out["ts"] = lib.gs_probe_tstate()
    out["line"] = sys._getframe().f_lineno + 2
    ready.set()
    ev.wait(10)  # the line read off CPU


def off_cpu_check(lib):
    """another thread's frames, read by this one while it waits (the
    sampler's off-CPU samples, collector/sampler.c look_waits)"""
    lib.gs_probe_tstate.restype = ctypes.c_ulong
    lib.gs_probe_frames_of.argtypes = [ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
    ev, ready, out = threading.Event(), threading.Event(), {}
    t = threading.Thread(target=waiting_here, args=(lib, ev, ready, out))
    t.start()
    ready.wait(10)
    time.sleep(0.2)  # in ev.wait: blocked on its lock
    buf = ctypes.create_string_buffer(4096)
    n = lib.gs_probe_frames_of(out.get("ts", 0), buf, 4096)
    ev.set()
    t.join()
    got = buf.value.decode("ascii", "replace").split("|") if n > 0 else []
    me = os.path.abspath(__file__)
    mine = [g.rsplit(":", 2) for g in got]
    mine = [f for f in mine if os.path.abspath(f[0]) == me]
    check(out.get("ts", 0) != 0 and n >= 3 and mine and mine[0][2] == "waiting_here"
          and int(mine[0][1]) == out["line"],
          "a waiting thread's frames read from another thread: the innermost of this "
          "file's is waiting_here() at line %s (frames %d: %s)" % (out.get("line"), n, got[:4]))
    check(n >= 3 and got[0].rsplit(":", 2)[2] == "wait",
          "... under threading's wait() (got %s)" % (got[:1],))


def caller(lib):
    (n, got), line = frames(lib), sys._getframe().f_lineno
    return n, got, line


def two_lines(lib, i):
    if i % 2:
        (n, got), line = frames(lib), sys._getframe().f_lineno
    else:
        (n, got), line = frames(lib), sys._getframe().f_lineno
    return n, got, line


def repeated(lib):
    """mismatches between the caller's line as read and as the interpreter
    has it, over 60 captures from two lines of one function and 20 from
    line 402 of a generated one, and the lines seen"""
    bad, seen = 0, set()
    for i in range(60):
        n, got, line = two_lines(lib, i)
        f1 = got[1].rsplit(":", 2) if n >= 2 else ["", "0", ""]
        bad += f1[2] != "two_lines" or int(f1[1]) != line
        seen.add(int(f1[1]))
    ns = {"frames": frames, "lib": lib, "sys": sys}
    src = ("def big():\n" + "".join("    x%d = %d\n" % (i, i) for i in range(400)) +
           "    (n, got), line = frames(lib), sys._getframe().f_lineno\n"
           "    return n, got, line\n")
    exec(compile(src, "/tmp/gs_big.py", "exec"), ns)
    for _ in range(20):
        n, got, line = ns["big"]()
        f1 = got[1].rsplit(":", 2) if n >= 2 else ["", "0", ""]
        bad += f1[2] != "big" or int(f1[1]) != line or line != 402
        seen.add(int(f1[1]))
    return bad, len(seen)


def expect(n, got, line, outer_line, label, fn="frames", call="caller"):
    me = os.path.abspath(__file__)
    check(n >= 2, "%s: at least 2 frames (got %d: %s)" % (label, n, got))
    if n < 2:
        return
    f0, f1 = got[0].rsplit(":", 2), got[1].rsplit(":", 2)
    # the innermost frame is `frames`, which made the call into C
    check(os.path.abspath(f0[0]) == me and f0[2] == fn,
          "%s: innermost frame is %s() in this file (got %s)" % (label, fn, got[0]))
    check(f1[2] == call and int(f1[1]) == line,
          "%s: then %s() at line %d (got %s)" % (label, call, line, got[1]))
    if outer_line is not None and n >= 3:
        f2 = got[2].rsplit(":", 2)
        check(int(f2[1]) == outer_line,
              "%s: then the line that called caller(), %d (got %s)" % (label, outer_line, got[2]))


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    try:
        gil = ctypes.PyDLL(sys.argv[1])
        nogil = ctypes.CDLL(sys.argv[1])
    except OSError as e:
        print("cannot load the probe: %s: skipped" % e)
        return 77
    minor = gil.gs_probe_minor()
    if os.environ.get("GS_STRESS_ONLY") == "1":
        # as under pytest or python -X faulthandler: a SIGSEGV handler of the
        # program's, installed first, on an alternate signal stack; the guard
        # chains to it and its jumps leave that stack
        import faulthandler
        faulthandler.enable()
        if minor <= 0:
            print("CPython %d.%d: frames without the GIL not read: no stress" %
                  sys.version_info[:2])
            return 0
        return stress_check(nogil)
    print("CPython %d.%d: frames without the GIL %s" %
          (sys.version_info[0], sys.version_info[1],
           "read (layout of 3.%d)" % minor if minor > 0 else "not read"))
    check(minor == (sys.version_info[1] if (3, 9) <= sys.version_info[:2] <= (3, 13)
                    and "free-threading" not in sys.version else 0),
          "the probe reads frames without the GIL on exactly 3.9 to 3.13 (got %d)" % minor)

    (n, got, line), outer = caller(gil), sys._getframe().f_lineno
    expect(n, got, line, outer, "GIL held")

    (n, got, line), outer = caller(nogil), sys._getframe().f_lineno
    if minor > 0:
        expect(n, got, line, outer, "GIL released")
    else:
        check(n == 0, "GIL released, version not read: no Python frames (got %d)" % n)

    res = {}
    t = threading.Thread(target=lambda: res.update(r=caller(nogil)))
    t.start()
    t.join()
    n, got, line = res["r"]
    if minor > 0:
        expect(n, got, line, None, "GIL released, second thread")
    else:
        check(n == 0, "second thread, version not read: no Python frames (got %d)" % n)

    # a frame whose file name is not ASCII: compiled here under that name
    ns = {"frames": frames, "lib": nogil}
    exec(compile("def f():\n    return frames(lib)\n", "/tmp/\u00e9t\u00e9.py", "exec"), ns)
    n, got = ns["f"]()
    if minor > 0:
        f1 = got[1].rsplit(":", 2) if n >= 2 else ["", "0", ""]
        check(n >= 2 and f1[0] == "?" and f1[1] == "2" and f1[2] == "f",
              "non-ASCII file name reads '?', line 2, function f (got %s)" % got[:2])
    if minor > 0:
        bad, lines = repeated(nogil)
        check(bad == 0 and lines == 3,
              "GIL released, 80 captures from 3 lines: each the interpreter's line "
              "(wrong: %d, lines seen: %d)" % (bad, lines))
    bad, lines = repeated(gil)
    check(bad == 0 and lines == 3,
          "GIL held, the same 80 captures (wrong: %d, lines seen: %d)" % (bad, lines))

    # the sampler's path (collector/sampler.c): in a signal handler, always
    # from the frame chain, GIL held or not
    for lib, label in ((gil, "signal handler, GIL held"), (nogil, "signal handler, GIL released")):
        (n, got, line), outer = caller_sig(lib), sys._getframe().f_lineno
        if minor > 0:
            expect(n, got, line, outer, label, "frames_sig", "caller_sig")
        else:
            check(n == 0, "%s, version not read: no Python frames (got %d)" % (label, n))
    if minor > 0:
        check_deep(nogil, frames, "GIL released")
        check_deep(gil, frames_sig, "signal handler, GIL held")
        init_shim_check(gil)
        r = sampled(gil)
        if r is None:
            print("INFO: no CPU-time timer here: the sampling check is not run")
        else:
            n, outside, wrong = r
            check(n >= 10 and outside <= 2 and wrong == 0,
                  "CPU-time samples of a busy loop (GIL held): >= 10 samples, each in busy() "
                  "or inner() at one of their lines (samples %d, elsewhere %d, "
                  "wrong line %d)" % (n, outside, wrong))
        off_cpu_check(nogil)
        stress_check(nogil)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
