#!/usr/bin/env python3
"""CLI checks of `gapscope report` on the databases report_mkdb writes.

usage: report_check.py CHECK GAPSCOPE REPORT_MKDB WORKDIR

Every expected figure below is worked out by hand from the "basic" timeline
described in report_mkdb.c (device 0, times in ns):
  stream 7: K1 gemm [1000,2000] K2 relu [2000,2500] | hole 500 | K3 gemm
  [3000,4000] | hole 2000 | K4 relu [6000,6200] | hole 300 | K5 gemm
  [6500,7500] | hole 500 | memcpy [8000,8100];  stream 8: K6 relu [8050,8300]
  window [1000,8300] = 7300; busy 1500+1000+200+1000+300 = 4000; idle 3300:
  launch-bound 500 (K3's call at 2700 >= 2500), sync-bound 2000
  (cudaStreamSynchronize [3900,5000] on tid 11 spans 4000), launch-latency 300
  (K5's call at 5100 < 6200), other 500 (the memcpy has no API record).
"""
import json
import os
import re
import subprocess
import sys

CHECK, GAPSCOPE, MKDB, WORK = sys.argv[1:5]
os.makedirs(WORK, exist_ok=True)
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def mkdb(kind):
    path = os.path.join(WORK, kind + ".db")
    subprocess.run([MKDB, path, kind], check=True)
    return path


def report(*args):
    return subprocess.run([GAPSCOPE, "report", *args], capture_output=True, text=True)


def check_text():
    db = mkdb("basic")
    p = report(db)
    out = p.stdout
    expect(p.returncode == 0, f"exit {p.returncode}, stderr {p.stderr!r}")
    expect("window 7.300 us, busy 4.000 us (utilisation 54.8%), idle 3.300 us, 7 ops, 4 gaps"
           in out, "device line")
    # shares of the 7300 ns window: 2000 -> 27.4%, 500 -> 6.8%, 300 -> 4.1%
    expect(re.search(r"sync-bound\s+2\.000 us\s+27\.4% of window\s+1 gaps", out), "sync-bound row")
    expect(re.search(r"launch-bound\s+500 ns\s+6\.8% of window\s+1 gaps", out), "launch-bound row")
    expect(re.search(r"launch-latency\s+300 ns\s+4\.1% of window\s+1 gaps", out), "latency row")
    expect(re.search(r"other\s+500 ns\s+6\.8% of window\s+1 gaps", out), "other row")
    # (500 + 300) / 7300 = 10.96%
    expect("launch overhead share: 11.0% of the window" in out, "launch overhead share")
    # largest gap: the 2000 ns sync-bound hole at 4000 - 1000 = +3 us, in NVTX "tail"
    expect(re.search(r"1\. at \+3\.000 us: 2\.000 us sync-bound before kernel relu on stream 7; "
                     r"cudaStreamSynchronize \(explicit stream synchronize, tid 11, 1\.100 us\); "
                     r"in NVTX \"tail\"", out), "largest gap line")
    # the template kernel name is printed whole
    expect("void gemm<float, 128>(float*, int)" in out, "template name intact")
    # control characters of an NVTX text are escaped, never raw
    expect('odd "name"\\x0a\\x1b[31m' in out, "escaped NVTX text")
    expect("\x1b" not in out, "raw ESC in output")
    # queue times 800 1600 200 2400 1300 2650 -> p50 (rank 3) 1300, p90 (rank 6) 2650
    expect(re.search(r"6 \|\s+100 ns\s+100 ns\s+100 ns \|\s+1\.300 us\s+2\.650 us\s+2\.650 us \|",
                     out), "launch distribution row")
    # relu durations 500 200 250: total 950, p50 250
    expect(re.search(r"950 ns\s+24\.1%\s+3\s+250 ns\s+relu", out), "relu row")
    expect("Kernels: 6; 0.0% are shorter than the launch cost (100 ns, p50 of the kernel "
           "launch calls)" in out, "kernel summary")


def check_json():
    db = mkdb("basic")
    p = report(db, "--json")
    expect(p.returncode == 0, f"exit {p.returncode}")
    j = json.loads(p.stdout)
    expect(j["gapscope_report"] == 1, "format version")
    d = j["devices"][0]
    expect(d["device"] == 0, "device")
    expect((d["window_start_ns"], d["window_end_ns"], d["window_ns"]) == (1000, 8300, 7300), "window")
    expect((d["busy_ns"], d["idle_ns"], d["ops"], d["gaps"]) == (4000, 3300, 7, 4), "busy/idle")
    expect(d["idle_by_cause_ns"] == {"sync-bound": 2000, "launch-bound": 500, "dependency": 0,
                                     "launch-latency": 300, "other": 500}, "idle by cause")
    expect(sum(d["idle_by_cause_ns"].values()) == d["idle_ns"], "causes sum to idle")
    expect(abs(d["launch_overhead_share"] - 800 / 7300) < 1e-12, "launch overhead share")
    expect(abs(d["utilisation"] - 4000 / 7300) < 1e-12, "utilisation")
    s7, s8 = d["streams"]
    # stream 7 alone: window [1000,8100] = 7100, same holes -> busy 3800
    expect((s7["stream"], s7["window_ns"], s7["busy_ns"], s7["ops"]) == (7, 7100, 3800, 6), "stream 7")
    expect((s8["stream"], s8["window_ns"], s8["idle_ns"]) == (8, 250, 0), "stream 8")
    g = d["top_gaps"]
    expect([x["duration_ns"] for x in g] == [2000, 500, 500, 300], "top gap durations")
    # ties (500, 500) keep time order: launch-bound at 2500 before other at 7500
    expect([x["cause"] for x in g] == ["sync-bound", "launch-bound", "other", "launch-latency"],
           "top gap causes")
    expect(g[0]["offset_ns"] == 3000 and g[0]["start_ns"] == 4000, "gap time")
    expect(g[0]["explained_by"]["type"] == "sync"
           and g[0]["explained_by"]["api"] == "cudaStreamSynchronize"
           and g[0]["explained_by"]["tid"] == 11, "sync explanation")
    expect(g[1]["explained_by"]["type"] == "launch" and g[1]["explained_by"]["start_ns"] == 2700,
           "launch explanation")
    expect(g[2]["explained_by"] is None and g[2]["op"]["kind"] == "memcpy", "other gap")
    expect(g[0]["nvtx"] == "tail" and g[1]["nvtx"] == "step", "gap NVTX")
    expect(g[1]["op"]["name"] == "void gemm<float, 128>(float*, int)", "op name")
    la = j["launch_apis"][0]
    expect(la["api"] == "cudaLaunchKernel" and la["calls"] == 6, "launch api")
    expect(la["queue_ns"] == {"min": 200, "p50": 1300, "p90": 2650, "p99": 2650, "max": 2650},
           "queue distribution")
    expect(la["launch_delay_ns"]["p50"] == 1400, "launch delay p50")
    ex, im = j["syncs"]["explicit"], j["syncs"]["implicit"]
    expect(len(ex) == 1 and ex[0]["count"] == 1 and ex[0]["blocked_ns"] == 1100
           and ex[0]["gpu_idle_ns"] == 2000 and ex[0]["kind"] == "stream synchronize", "explicit syncs")
    expect(len(im) == 1 and im[0]["blocked_ns"] == 200 and im[0]["gpu_idle_ns"] == 0
           and im[0]["reason"] == "synchronous copy" and im[0]["api"] == "cudaMemcpy", "implicit syncs")
    k = j["kernels"]
    expect((k["count"], k["launch_cost_ns"], k["launch_cost_source"], k["short_count"]) ==
           (6, 100, "measured", 0), "kernel summary")
    expect(k["top"][0] == {"name": "void gemm<float, 128>(float*, int)", "demangled": None,
                           "count": 3, "total_ns": 3000, "p50_ns": 1000}, "top kernel")
    expect(k["top"][1]["p50_ns"] == 250, "relu p50")
    nv = {x["name"]: x for x in j["nvtx"]}
    # tail [3500,9000]: busy 500+200+1000+300 = 2000; step [0,3500]: 1500+500 = 2000
    expect(nv["tail"]["wall_ns"] == 5500 and nv["tail"]["gpu_busy_ns"] == 2000, "nvtx tail")
    expect(nv["step"]["wall_ns"] == 3500 and nv["step"]["gpu_busy_ns"] == 2000, "nvtx step")
    expect('odd "name"\n\x1b[31m' in nv, "NVTX text round-trips through JSON")
    ga = j["graph_advice"]
    expect(ga["node_overhead_ns"] == 1000 and ga["node_overhead_source"] == "default", "node overhead")
    sq = ga["sequences"][0]
    # relu gemm twice: spans 2000 + 1500; ops 500+1000+200+1000 = 2700;
    # launch idle 500 + 300; estimate 2700 + 4 * 1000 = 6700
    expect((sq["length"], sq["count"], sq["measured_ns"], sq["op_time_ns"], sq["launch_idle_ns"],
            sq["estimate_ns"], sq["advise"]) == (2, 2, 3500, 2700, 800, 6700, False), "advice")
    expect(sq["ops"] == ["relu", "void gemm<float, 128>(float*, int)"], "advice ops")
    expect(j["instrumentation"]["kernels_instrumented"] is True, "instrumented (cc 9)")


def check_deps():
    # deps: the device-0 hole [2000,5000) waits on an event recorded on device 1
    j = json.loads(report(mkdb("deps"), "--json").stdout)
    d0, d1 = j["devices"]
    expect(d0["device"] == 0 and d0["idle_by_cause_ns"]["dependency"] == 3000, "cross-device dependency")
    expect(d0["top_gaps"][0]["explained_by"]["type"] == "stream-wait"
           and d0["top_gaps"][0]["explained_by"]["api"] == "cudaStreamWaitEvent", "wait explanation")
    expect(d1["device"] == 1 and d1["idle_ns"] == 0 and d1["window_ns"] == 3400, "device 1")
    ex = j["syncs"]["explicit"]
    expect(len(ex) == 1 and ex[0]["kind"] == "stream wait event" and ex[0]["gpu_idle_ns"] == 3000,
           "wait group idle")
    # the kernel's mangled name is shown demangled, and kept as recorded in "name"
    top = j["kernels"]["top"][0]
    expect(top["name"] == "_Z6kernelPfi" and top["demangled"] == "kernel(float*, int)", "demangled json")
    expect(d0["top_gaps"][0]["op"]["demangled"] == "kernel(float*, int)", "demangled gap op")
    expect("kernel(float*, int)" in report(mkdb("deps")).stdout, "demangled text")
    # a schema-v1 trace written before the events table still reports
    p = report(mkdb("noevents"), "--json")
    expect(p.returncode == 0 and json.loads(p.stdout)["devices"][0]["idle_ns"] == 3300, "no events table")


def check_range():
    db = mkdb("basic")
    p = report(db, "--json", "--range", "step")
    expect(p.returncode == 0, f"exit {p.returncode}")
    j = json.loads(p.stdout)
    expect(j["selection"] == {"range": "step", "matches": 1, "total_ns": 3500}, "selection")
    d = j["devices"][0]
    # [1000,8300] & [0,3500] = 2500; hole [2500,3000) launch-bound 500;
    # busy = 1500 + [3000,3500] 500 = 2000; K1 K2 K3 overlap
    expect((d["window_ns"], d["busy_ns"], d["idle_ns"], d["ops"]) == (2500, 2000, 500, 3), "range window")
    expect(d["idle_by_cause_ns"]["launch-bound"] == 500 and d["idle_by_cause_ns"]["sync-bound"] == 0,
           "range causes")
    # with a graph-node overhead of 100 the advice is for the whole trace only
    p = report(db, "--range", "step")
    expect("selection: NVTX ranges named \"step\": 1 ranges, 3.500 us in all" in p.stdout, "text selection")
    expect("window 2.500 us, busy 2.000 us (utilisation 80.0%)" in p.stdout, "text range window")


def check_range_nomatch():
    db = mkdb("basic")
    p = report(db, "--range", "nosuch")
    expect(p.returncode == 0, f"exit {p.returncode}")
    expect('NVTX ranges named "nosuch": none in this trace - nothing to report.' in p.stdout,
           "says nothing matched")
    p = report(db, "--json", "--range", "nosuch")
    j = json.loads(p.stdout)
    expect(p.returncode == 0 and j["selection"]["matches"] == 0, "json nomatch")
    expect(j["devices"][0]["window_ns"] == 0, "json nomatch window")


def check_options():
    db = mkdb("basic")
    # --launch-cost 300: relu 200 and 250 are shorter -> 2 of 6
    j = json.loads(report(db, "--json", "--launch-cost", "300").stdout)
    expect(j["kernels"]["short_count"] == 2 and j["kernels"]["launch_cost_source"] == "option",
           "launch cost option")
    # --graph-node-overhead 100: estimate 2700 + 4*100 = 3100, saving 400 of 3500 = 11.4% > 5%
    j = json.loads(report(db, "--json", "--graph-node-overhead", "100").stdout)
    sq = j["graph_advice"]["sequences"][0]
    expect(sq["estimate_ns"] == 3100 and sq["saving_ns"] == 400 and sq["advise"] is True, "advice on")
    expect(sq["sentence"].startswith("Capture the 2-op sequence starting with relu on stream 7"),
           "advice sentence")
    # --top 1 keeps one gap and one kernel
    j = json.loads(report(db, "--json", "--top", "1").stdout)
    expect(len(j["devices"][0]["top_gaps"]) == 1 and len(j["kernels"]["top"]) == 1, "--top 1")
    # options after the file work too, and --help exits 0
    expect(report(db, "--top", "2").returncode == 0, "options before file")
    h = report("--help")
    expect(h.returncode == 0 and "--range NAME" in h.stdout, "--help")


def one_line_exit2(p, what, needle):
    lines = p.stderr.strip().split("\n")
    expect(p.returncode == 2, f"{what}: exit {p.returncode}")
    expect(len(lines) == 1 and lines[0].startswith("gapscope: ") and needle in lines[0],
           f"{what}: stderr {p.stderr!r}")
    expect(p.stdout == "", f"{what}: stdout not empty")


def check_bad_input():
    one_line_exit2(report(os.path.join(WORK, "missing.db")), "missing", "cannot open")
    one_line_exit2(report(mkdb("notsqlite")), "not sqlite", "not an SQLite database")
    one_line_exit2(report(mkdb("foreign")), "foreign", "not a gapscope trace")
    one_line_exit2(report(mkdb("newer")), "newer", "newer than this gapscope")
    one_line_exit2(report(mkdb("truncated")), "truncated", "truncated")
    one_line_exit2(report(mkdb("empty")), "empty", "no GPU activity")
    db = mkdb("basic")
    one_line_exit2(report(db, "--top", "abc"), "bad --top", "--top needs a whole number")
    one_line_exit2(report(db, "--top", "-3"), "negative --top", "--top needs a whole number")
    one_line_exit2(report(db, "--bogus"), "unknown option", "unknown option '--bogus'")
    one_line_exit2(report(db, "--range"), "missing value", "needs a value")
    one_line_exit2(report(), "no file", "no trace given")
    one_line_exit2(report(db, db), "two files", "exactly one trace")


{"text": check_text, "json": check_json, "deps": check_deps, "range": check_range, "range_nomatch": check_range_nomatch,
 "options": check_options, "bad_input": check_bad_input}[CHECK]()
if failures:
    for f in failures:
        print("FAIL:", f)
    sys.exit(1)
print("ok:", CHECK)
