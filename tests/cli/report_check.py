#!/usr/bin/env python3
"""CLI checks of `gapscope report` on the databases report_mkdb writes.

usage: report_check.py CHECK GAPSCOPE REPORT_MKDB WORKDIR

Every expected figure below is worked out by hand (gap model v2, DESIGN.md:
a gap is cut into consecutive segments, one cause each) from the timelines
described in report_mkdb.c. The "basic" one (device 0, times in ns):
  stream 7: K1 gemm [1000,2000] K2 relu [2000,2500] | hole 500 | K3 gemm
  [3000,4000] | hole 2000 | K4 relu [6000,6200] | hole 300 | K5 gemm
  [6500,7500] | hole 500 | memcpy [8000,8100];  stream 8: K6 relu [8050,8300]
  window [1000,8300] = 7300; busy 1500+1000+200+1000+300 = 4000; idle 3300.
  All calls on tid 11; its CUDA calls: launches [100,200] [300,400]
  [2700,2800] [3500,3600] [5100,5200] [5300,5400], blocking syncs
  cudaStreamSynchronize [3900,5000], cudaMemcpy [7000,7200].
  [2500,3000) before K3: K3's call began at 2700 >= 2500, the host was late:
    [2500,2700) tid 11 in no CUDA call -> host code 200; [2700,3000) launch
    latency 300 (largest segment: launch latency).
  [4000,6000) before K4: K4's call began at 3500 < 4000, enqueued before the
    hole; no stream wait or host function on stream 7 in [2700,3500) ->
    launch latency 2000 (the sync running at 4000 explains none of it).
  [6200,6500) before K5: call at 5100 < 6200 -> launch latency 300.
  [7500,8000) before the memcpy: no API record -> other 500.
  By cause: host code 200, launch latency 300+2000+300 = 2600, other 500
  (sum 3300); gaps by largest segment: launch latency 3, other 1.
  No launch call lies inside a host-late segment: 0 ns in launch calls.
"""
import json
import shutil
import sqlite3
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


CAUSES = ["sync_wait", "cuda_api", "host_code", "launch_latency", "graph_internal", "dependency",
          "other"]


def by_cause(**kw):
    """idle_by_cause_ns / gaps_by_cause with every key, 0 where not given"""
    return {k: kw.get(k, 0) for k in CAUSES}


def check_text():
    db = mkdb("basic")
    # --full-names: kernel names whole and lines not wrapped, so the sentences
    # below are matched as single lines; the default form is checked after
    p = report(db, "--full-names")
    out = p.stdout
    expect(p.returncode == 0, f"exit {p.returncode}, stderr {p.stderr!r}")
    expect("window 7.300 us, busy 4.000 us (utilisation 54.8%), idle 3.300 us, 7 ops, 4 gaps"
           in out, "device line")
    # shares of the 7300 ns window: 200 -> 2.7%, 2600 -> 35.6%, 500 -> 6.8%
    expect(re.search(r"sync wait\s+0 ns\s+0\.0% of window\s+0 gaps", out), "sync wait row")
    expect(re.search(r"CUDA API\s+0 ns\s+0\.0% of window\s+0 gaps", out), "CUDA API row")
    expect(re.search(r"host code\s+200 ns\s+2\.7% of window\s+0 gaps", out), "host code row")
    expect(re.search(r"launch latency\s+2\.600 us\s+35\.6% of window\s+3 gaps", out), "latency row")
    expect(re.search(r"graph-internal\s+0 ns\s+0\.0% of window\s+0 gaps", out), "graph row")
    expect(re.search(r"dependency\s+0 ns\s+0\.0% of window\s+0 gaps", out), "dependency row")
    expect(re.search(r"other\s+500 ns\s+6\.8% of window\s+1 gap\n", out), "other row")
    # (2600 + 0 + 0) / 7300 = 35.62%; host code 200 / 7300 = 2.74%
    expect("launch overhead share: 35.6% of the window (launch latency + graph-internal + 0 ns in "
           "launch calls); host code share: 2.7%" in out, "launch overhead share")
    # largest gap: the 2000 ns hole at 4000 - 1000 = +3 us, in NVTX "tail"; K4 was
    # launched at 3500, so the cudaStreamSynchronize running then is not named
    expect(re.search(r"1\. at \+3\.000 us: 2\.000 us launch latency before kernel relu on stream 7: "
                     r"2\.000 us launch latency \(cudaLaunchKernel\); in NVTX \"tail\"", out),
           "largest gap line")
    # second: the 500 ns hole at 2500 - 1000 = +1.5 us, host late (call at 2700)
    expect(re.search(r"2\. at \+1\.500 us: 500 ns launch latency before kernel void gemm<float, 128>"
                     r"\(float\*, int\) on stream 7: 200 ns host code on thread 11, then 300 ns "
                     r"launch latency \(cudaLaunchKernel\); in NVTX \"step\"", out), "second gap line")
    expect(re.search(r"3\. at \+6\.500 us: 500 ns other before memcpy on stream 7: 500 ns other "
                     r"\(no launch call recorded\)", out), "other gap line")
    # sync table: blocked 1100 ns, GPU idle 0 (no sync-wait segment anywhere)
    expect(re.search(r"\n\s+1\s+1\.100 us\s+0 ns\s+stream synchronize / cudaStreamSynchronize\n", out),
           "explicit sync row")
    expect("polls (return at once" not in out, "no polls list without polls")
    # the template kernel name is printed whole with --full-names
    expect("void gemm<float, 128>(float*, int)" in out, "template name intact")
    # by default: short (template arguments and parameters dropped), wrapped at 160
    short = report(db).stdout
    expect("before kernel gemm<…> on stream 7: 200 ns host code on thread 11, then 300 ns"
           in short, "short name in the gap line")
    expect("void gemm<float, 128>" not in short, "no long name by default")
    expect(max(len(l) for l in short.split("\n")) <= 160, "no line over 160 characters")
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


def seg(cause, start, dur, **kw):
    d = {"cause": cause, "start_ns": start, "duration_ns": dur}
    d.update(kw)
    return d


def check_json():
    db = mkdb("basic")
    p = report(db, "--json")
    expect(p.returncode == 0, f"exit {p.returncode}")
    j = json.loads(p.stdout)
    expect(j["gapscope_report"] == 2, "format version")
    d = j["devices"][0]
    expect(d["device"] == 0, "device")
    expect((d["window_start_ns"], d["window_end_ns"], d["window_ns"]) == (1000, 8300, 7300), "window")
    expect((d["busy_ns"], d["idle_ns"], d["ops"], d["gaps"]) == (4000, 3300, 7, 4), "busy/idle")
    expect(d["idle_by_cause_ns"] == by_cause(host_code=200, launch_latency=2600, other=500),
           "idle by cause")
    expect(sum(d["idle_by_cause_ns"].values()) == d["idle_ns"], "causes sum to idle")
    expect(d["gaps_by_cause"] == by_cause(launch_latency=3, other=1), "gaps by cause")
    expect(d["launch_calls_in_cuda_api_ns"] == 0, "launch calls in CUDA API")
    expect(abs(d["launch_overhead_share"] - 2600 / 7300) < 1e-12, "launch overhead share")
    expect(abs(d["host_code_share"] - 200 / 7300) < 1e-12, "host code share")
    expect(abs(d["utilisation"] - 4000 / 7300) < 1e-12, "utilisation")
    s7, s8 = d["streams"]
    # stream 7 alone: window [1000,8100] = 7100, the same four holes -> busy 3800
    expect((s7["stream"], s7["window_ns"], s7["busy_ns"], s7["ops"]) == (7, 7100, 3800, 6), "stream 7")
    expect(s7["idle_by_cause_ns"] == by_cause(host_code=200, launch_latency=2600, other=500),
           "stream 7 causes")
    expect((s8["stream"], s8["window_ns"], s8["idle_ns"]) == (8, 250, 0), "stream 8")
    g = d["top_gaps"]
    expect([x["duration_ns"] for x in g] == [2000, 500, 500, 300], "top gap durations")
    # ties (500, 500) keep time order: the hole at 2500 before the one at 7500
    expect([x["cause"] for x in g] == ["launch_latency", "launch_latency", "other", "launch_latency"],
           "top gap causes")
    expect([x["host_late"] for x in g] == [False, True, False, False], "host late")
    expect(g[0]["offset_ns"] == 3000 and g[0]["start_ns"] == 4000, "gap time")
    # K4's call [3500,3600], not the sync [3900,5000] in progress at 4000
    expect(g[0]["explained_by"]["type"] == "launch" and g[0]["explained_by"]["start_ns"] == 3500
           and g[0]["explained_by"]["tid"] == 11, "enqueued-before explanation")
    expect(g[0]["segments"] == [seg("launch_latency", 4000, 2000, api="cudaLaunchKernel")],
           "segments of the 2000 ns hole")
    expect(g[1]["explained_by"]["type"] == "launch" and g[1]["explained_by"]["start_ns"] == 2700,
           "launch explanation")
    # [2500,2700) host code on tid 11, inside its NVTX range "step" [0,3500]
    # (a host span: JSON host_op), [2700,3000) launch latency
    expect(g[1]["segments"] == [seg("host_code", 2500, 200, tid=11, host_op="step"),
                                seg("launch_latency", 2700, 300, api="cudaLaunchKernel")],
           "segments of the host-late hole")
    expect(g[2]["explained_by"] is None and g[2]["op"]["kind"] == "memcpy", "other gap")
    expect(g[2]["segments"] == [seg("other", 7500, 500)], "segments of the other hole")
    expect(g[3]["segments"] == [seg("launch_latency", 6200, 300, api="cudaLaunchKernel")],
           "segments of the 300 ns hole")
    for x in g:
        expect(sum(s["duration_ns"] for s in x["segments"]) == x["duration_ns"],
               f"segments add up at {x['start_ns']}")
    expect(g[0]["nvtx"] == "tail" and g[1]["nvtx"] == "step", "gap NVTX")
    expect(g[1]["op"]["name"] == "void gemm<float, 128>(float*, int)", "op name")
    la = j["launch_apis"][0]
    expect(la["api"] == "cudaLaunchKernel" and la["calls"] == 6, "launch api")
    expect(la["queue_ns"] == {"min": 200, "p50": 1300, "p90": 2650, "p99": 2650, "max": 2650},
           "queue distribution")
    expect(la["launch_delay_ns"]["p50"] == 1400, "launch delay p50")
    ex, im = j["syncs"]["explicit"], j["syncs"]["implicit"]
    # GPU idle = sync-wait segments spent in the call: none (v1 said 2000)
    expect(len(ex) == 1 and ex[0]["count"] == 1 and ex[0]["blocked_ns"] == 1100
           and ex[0]["gpu_idle_ns"] == 0 and ex[0]["kind"] == "stream synchronize", "explicit syncs")
    expect(len(im) == 1 and im[0]["blocked_ns"] == 200 and im[0]["gpu_idle_ns"] == 0
           and im[0]["reason"] == "synchronous copy" and im[0]["api"] == "cudaMemcpy", "implicit syncs")
    expect(j["polls"] == [], "no polls")
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
    # relu gemm twice: K2 K3 spans [2000,4000] = 2000 with its launch-latency hole 500
    # inside; the next occurrence follows at once and the device is quiet in
    # [4000,6000), a launch-latency hole (v1: sync-bound, not counted) -> +2000;
    # K4 K5 spans [6000,7500] = 1500 with the 300 hole. measured 2000+2000+1500 = 5500;
    # ops 500+1000+200+1000 = 2700; launch idle 500+2000+300 = 2800;
    # estimate 5500 - 2800 + 4 * 1000 = 6700 (no saving)
    expect((sq["length"], sq["count"], sq["measured_ns"], sq["op_time_ns"], sq["launch_idle_ns"],
            sq["estimate_ns"], sq["advise"]) == (2, 2, 5500, 2700, 2800, 6700, False), "advice")
    expect(sq["ops"] == ["relu", "void gemm<float, 128>(float*, int)"], "advice ops")
    expect(j["instrumentation"]["kernels_instrumented"] is True, "instrumented (cc 9)")


def check_deps():
    # deps: the device-0 hole [2000,5000) before K2 on stream 8. K2 was launched at
    # 300 < 2000 (enqueued before the hole); stream 8 waits for event 77 (recorded
    # on device 1's stream 20 at 240, behind K3 [1500,4900]) by the
    # cudaStreamWaitEvent at 250, enqueued before K2's launch: a dependency, 3000.
    # K2 is the first op of stream 8, as a side stream's first op waiting on an
    # event usually is.
    j = json.loads(report(mkdb("deps"), "--json").stdout)
    d0, d1 = j["devices"]
    expect(d0["device"] == 0 and d0["idle_by_cause_ns"] == by_cause(dependency=3000),
           "cross-device dependency")
    g = d0["top_gaps"][0]
    expect(g["host_late"] is False and g["cause"] == "dependency", "dependency gap")
    expect(g["explained_by"] is not None and g["explained_by"]["type"] == "stream-wait"
           and g["explained_by"]["api"] == "cudaStreamWaitEvent", "wait explanation")
    expect(g["segments"] == [seg("dependency", 2000, 3000, api="cudaStreamWaitEvent")],
           "dependency segment")
    expect(d1["device"] == 1 and d1["idle_ns"] == 0 and d1["window_ns"] == 3400, "device 1")
    ex = j["syncs"]["explicit"]
    # a stream wait's GPU idle: the device gaps it is the dependency of
    expect(len(ex) == 1 and ex[0]["kind"] == "stream wait event" and ex[0]["gpu_idle_ns"] == 3000,
           "wait group idle")
    # the kernel's mangled name is shown demangled, and kept as recorded in "name"
    top = j["kernels"]["top"][0]
    expect(top["name"] == "_Z6kernelPfi" and top["demangled"] == "kernel(float*, int)", "demangled json")
    expect(g["op"]["demangled"] == "kernel(float*, int)", "demangled gap op")
    out = report(mkdb("deps"), "--full-names").stdout
    expect("kernel(float*, int)" in out, "demangled text")
    out = report(mkdb("deps")).stdout
    expect(re.search(r"before kernel kernel on stream", out), "short demangled name by default")
    expect("3.000 us dependency on cudaStreamWaitEvent" in out, "dependency sentence")
    # a schema-v1 trace written before the events table still reports
    p = report(mkdb("noevents"), "--json")
    expect(p.returncode == 0 and json.loads(p.stdout)["devices"][0]["idle_ns"] == 3300, "no events table")


def check_hostpause():
    # K1 [1000,2000], K2 [9500,10500] on stream 7; window 9500, busy 2000, idle 7500.
    # The hole [2000,9500): K2's call began at 9300 >= 2000 (host late). Tid 11 in
    # [2000,9300): blocked in cudaStreamSynchronize [1200,2300] until 2300 -> sync
    # wait 300; no CUDA call in [2300,9300) -> host code 7000; [9300,9500) launch
    # latency 200. 300 + 7000 + 200 = 7500.
    db = mkdb("hostpause")
    p = report(db, "--full-names")  # the gap sentence on one line
    out = p.stdout
    expect(p.returncode == 0, f"exit {p.returncode}, stderr {p.stderr!r}")
    expect("window 9.500 us, busy 2.000 us (utilisation 21.1%), idle 7.500 us, 2 ops, 1 gap\n"
           in out, "device line")
    # 300 / 9500 = 3.2%, 7000 / 9500 = 73.7%, 200 / 9500 = 2.1%
    expect(re.search(r"sync wait\s+300 ns\s+3\.2% of window\s+0 gaps", out), "sync wait row")
    expect(re.search(r"host code\s+7\.000 us\s+73\.7% of window\s+1 gap\n", out), "host code row")
    expect(re.search(r"launch latency\s+200 ns\s+2\.1% of window\s+0 gaps", out), "latency row")
    expect("launch overhead share: 2.1% of the window (launch latency + graph-internal + 0 ns in "
           "launch calls); host code share: 73.7%" in out, "shares")
    expect("1. at +1.000 us: 7.500 us host code before kernel relu on stream 7: 300 ns sync wait "
           "in cudaStreamSynchronize, then 7.000 us host code on thread 11, then 200 ns launch "
           "latency (cudaLaunchKernel)\n" in out, "largest gap line")
    # the sync's GPU idle is its overlap with the hole, [2000,2300) = 300; blocked 1100
    expect(re.search(r"\n\s+1\s+1\.100 us\s+300 ns\s+stream synchronize / cudaStreamSynchronize\n",
                     out), "sync row")
    j = json.loads(report(db, "--json").stdout)
    d = j["devices"][0]
    expect((d["window_ns"], d["busy_ns"], d["idle_ns"], d["gaps"]) == (9500, 2000, 7500, 1), "window")
    expect(d["idle_by_cause_ns"] == by_cause(sync_wait=300, host_code=7000, launch_latency=200),
           "idle by cause")
    expect(d["gaps_by_cause"] == by_cause(host_code=1), "gaps by cause")
    expect(abs(d["launch_overhead_share"] - 200 / 9500) < 1e-12, "launch overhead share")
    expect(abs(d["host_code_share"] - 7000 / 9500) < 1e-12, "host code share")
    g = d["top_gaps"][0]
    expect(g["host_late"] is True and g["cause"] == "host_code", "gap cause")
    expect(g["segments"] == [seg("sync_wait", 2000, 300, tid=11, calls=1, api="cudaStreamSynchronize"),
                             seg("host_code", 2300, 7000, tid=11),
                             seg("launch_latency", 9300, 200, api="cudaLaunchKernel")], "segments")
    ex = j["syncs"]["explicit"]
    expect(len(ex) == 1 and ex[0]["api"] == "cudaStreamSynchronize" and ex[0]["blocked_ns"] == 1100
           and ex[0]["gpu_idle_ns"] == 300, "explicit sync: GPU idle is the overlap only")


def check_polls():
    # K1 [1000,2000], K2 [3200,4200] on stream 7; hole [2000,3200) = 1200, K2's call
    # at 3000 >= 2000 (host late). Tid 11 in [2000,3000): cudaEventSynchronize
    # [300,2010] -> sync wait [2000,2010) 10; host code [2010,2100) 90; cudaEventQuery
    # [2100,2150] (a poll: CUDA API, not sync wait, though a sync row names it) 50;
    # host code 250; cudaEventQuery 50; host code 250; cudaEventQuery 50; host code
    # [2750,2900) 150; cudaStreamQuery [2900,2920) 20; host code [2920,3000) 80;
    # launch latency [3000,3200) 200. Sync wait 10, CUDA API 170, host code 820,
    # launch latency 200: 1200. Window [1000,4200] = 3200, busy 2000.
    db = mkdb("polls")
    j = json.loads(report(db, "--json").stdout)
    d = j["devices"][0]
    expect((d["window_ns"], d["busy_ns"], d["idle_ns"]) == (3200, 2000, 1200), "window")
    expect(d["idle_by_cause_ns"] == by_cause(sync_wait=10, cuda_api=170, host_code=820,
                                             launch_latency=200), "idle by cause")
    expect(d["launch_calls_in_cuda_api_ns"] == 0, "no launch call in the CUDA API time")
    # (200 + 0 + 0) / 3200; 820 / 3200
    expect(abs(d["launch_overhead_share"] - 200 / 3200) < 1e-12, "launch overhead share")
    expect(abs(d["host_code_share"] - 820 / 3200) < 1e-12, "host code share")
    g = d["top_gaps"][0]
    expect(g["cause"] == "host_code" and g["host_late"] is True, "gap cause")
    expect(g["segments"] == [
        seg("sync_wait", 2000, 10, tid=11, calls=1, api="cudaEventSynchronize"),
        seg("host_code", 2010, 90, tid=11),
        seg("cuda_api", 2100, 50, tid=11, calls=1, api="cudaEventQuery"),
        seg("host_code", 2150, 250, tid=11),
        seg("cuda_api", 2400, 50, tid=11, calls=1, api="cudaEventQuery"),
        seg("host_code", 2450, 250, tid=11),
        seg("cuda_api", 2700, 50, tid=11, calls=1, api="cudaEventQuery"),
        seg("host_code", 2750, 150, tid=11),
        seg("cuda_api", 2900, 20, tid=11, calls=1, api="cudaStreamQuery"),
        seg("host_code", 2920, 80, tid=11),
        seg("launch_latency", 3000, 200, api="cudaLaunchKernel")], "segments")
    # explicit syncs: cudaEventSynchronize only (blocked 2010 - 300 = 1710, GPU idle
    # its 10 ns of sync wait); the three cudaEventQuery sync rows are polls
    ex = j["syncs"]["explicit"]
    expect([(x["api"], x["count"], x["blocked_ns"], x["gpu_idle_ns"]) for x in ex] ==
           [("cudaEventSynchronize", 1, 1710, 10)], "explicit syncs without polls")
    expect(j["syncs"]["implicit"] == [], "no implicit syncs")
    # polls by count: cudaEventQuery 3 calls of 50 = 150, cudaStreamQuery 1 of 20
    expect(j["polls"] == [{"api": "cudaEventQuery", "count": 3, "time_ns": 150},
                          {"api": "cudaStreamQuery", "count": 1, "time_ns": 20}], "polls")
    out = report(db, "--full-names").stdout  # the gap sentence on one line
    expect(re.search(r"polls \(return at once; not syncs\):\n\s+count\s+time\s+api\n"
                     r"\s+3\s+150 ns\s+cudaEventQuery\n\s+1\s+20 ns\s+cudaStreamQuery\n", out),
           "text polls list")
    expect(not re.search(r"event synchronize / cudaEventQuery", out), "no poll among the syncs")
    expect(re.search(r"\n\s+1\s+1\.710 us\s+10 ns\s+event synchronize / cudaEventSynchronize\n", out),
           "event sync row")
    # 11 segments, more than five: each cause once, in the order it first appears,
    # with its total: sync wait 10, host code 90+250+250+150+80 = 820, CUDA API
    # 50+50+50+20 = 170 in 4 stretches of calls (the first in cudaEventQuery),
    # launch latency 200
    expect("1. at +1.000 us: 1.200 us host code before kernel relu on stream 7: in all: 10 ns sync "
           "wait in cudaEventSynchronize, 820 ns host code on thread 11, 170 ns CUDA API in "
           "cudaEventQuery and 3 more, 200 ns launch latency (cudaLaunchKernel)\n" in out,
           "largest gap line")


def check_longnames():
    # basic.db with gemm's name replaced by a 5 kB template instance, as PyTorch's
    # elementwise kernels have: no report line over 160 characters by default, the
    # short name "gemm<…>" in the text, the whole name with --full-names and in JSON
    db = mkdb("basic")
    long_db = os.path.join(WORK, "longnames.db")
    shutil.copyfile(db, long_db)
    args = ", ".join("at::native::Functor<float, %d, std::array<char*, 3ul> >" % i
                     for i in range(90))
    name = "void gemm<%s>(float*, int)" % args
    expect(len(name) > 5000, "a 5 kB name")
    con = sqlite3.connect(long_db)
    n = con.execute("UPDATE strings SET value = ? WHERE value = ?",
                    (name, "void gemm<float, 128>(float*, int)")).rowcount
    con.commit()
    con.close()
    expect(n == 1, "the name replaced")
    p = report(long_db)
    expect(p.returncode == 0, f"exit {p.returncode}, stderr {p.stderr!r}")
    lines = p.stdout.split("\n")
    expect(max(len(l) for l in lines) <= 160, "no line over 160 characters: %d" %
           max(len(l) for l in lines))
    expect("gemm<…>" in p.stdout, "short name")
    expect(name not in p.stdout, "no whole name")
    full = report(long_db, "--full-names").stdout
    expect(name in full, "whole name with --full-names")
    j = json.loads(report(long_db, "--json").stdout)
    expect(any(k["name"] == name for k in j["kernels"]["top"]), "whole name in JSON")


def check_range():
    db = mkdb("basic")
    p = report(db, "--json", "--range", "step")
    expect(p.returncode == 0, f"exit {p.returncode}")
    j = json.loads(p.stdout)
    expect(j["selection"] == {"range": "step", "matches": 1, "skipped": 0, "total_ns": 3500},
           "selection")
    d = j["devices"][0]
    # [1000,8300] & [0,3500] = 2500; hole [2500,3000): host code 200 + launch latency 300;
    # busy = 1500 + [3000,3500] 500 = 2000; K1 K2 K3 overlap
    expect((d["window_ns"], d["busy_ns"], d["idle_ns"], d["ops"]) == (2500, 2000, 500, 3), "range window")
    expect(d["idle_by_cause_ns"] == by_cause(host_code=200, launch_latency=300), "range causes")
    expect(d["top_gaps"][0]["segments"] == [seg("host_code", 2500, 200, tid=11, host_op="step"),
                                            seg("launch_latency", 2700, 300, api="cudaLaunchKernel")],
           "range gap segments")
    # with a graph-node overhead of 100 the advice is for the whole trace only
    p = report(db, "--range", "step")
    expect("selection: NVTX ranges named \"step\": 1 range, 3.500 us in all" in p.stdout, "text selection")
    expect("window 2.500 us, busy 2.000 us (utilisation 80.0%)" in p.stdout, "text range window")


def check_outside():
    db = mkdb("basic")
    # basic's ranges step [0,3500], tail [3500,9000] and the odd one [50,100]
    # cover the whole window [1000,8300]: nothing outside, no line. The most
    # wall is tail's (5500): its union in the window [3500,8300] = 4800
    j = json.loads(report(db, "--json").stdout)
    expect(j["verdict"]["outside_ranges"] == {"outside_ns": 0, "share": 0.0, "note": False,
                                              "range": "tail", "ranges": 1, "range_ns": 4800},
           "covered window")
    expect("outside every NVTX range" not in report(db).stdout, "no line when covered")
    # without tail: [1000,3500] = 2500 inside, 4800 of 7300 outside = 65.8%
    con = sqlite3.connect(db)
    con.execute("DELETE FROM nvtx WHERE text_id = 8")
    con.commit()
    con.close()
    j = json.loads(report(db, "--json").stdout)
    o = j["verdict"]["outside_ranges"]
    expect((o["outside_ns"], o["note"], o["range"], o["ranges"], o["range_ns"])
           == (4800, True, "step", 1, 2500), "outside json")
    expect(abs(o["share"] - 4800 / 7300) < 1e-12, "outside share")
    out = report(db).stdout
    expect("\nVerdict: GPU busy 54.8% of 7.300 us; idle: launch latency 35.6%, other 6.8%, "
           "host code 2.7%\n  65.8% of the window (4.800 us) is outside every NVTX range, and "
           "counted below; --range step selects the range of that name (2.500 us)\n" in out,
           "outside line under the verdict")
    # a selection is the ranges: no line, null in JSON
    expect(json.loads(report(db, "--json", "--range", "step").stdout)["verdict"]["outside_ranges"]
           is None, "null on a selection")
    # per stream: stream 8 (K6 [8050,8300]) has no op in step's [0,3500]: no table of
    # one stream's rows and a row of zeros; the whole trace lists both
    expect("per stream" not in report(db, "--range", "step").stdout, "one stream in the range")
    expect(re.search(r"\n\s+8\s+250 ns\s+250 ns\s+100\.0%\s+1 ", out), "stream 8 row, whole trace")
    # the longest range named with a newline and an escape sequence: no command
    # spelt out (no one types it), and nothing raw on the terminal
    con = sqlite3.connect(db)
    con.execute("DELETE FROM nvtx WHERE text_id = 5")
    con.execute("UPDATE nvtx SET start = 1000, end = 2000 WHERE text_id = 9")
    con.commit()
    con.close()
    out = report(db).stdout
    expect("  86.3% of the window (6.300 us) is outside every NVTX range, and counted below; "
           "--range with the text of the longest ranges (NVTX ranges, below) selects them" in out,
           "no command for an untypable name")
    expect("\x1b" not in out, "no raw escape")
    j = json.loads(report(db, "--json").stdout)
    expect(j["verdict"]["outside_ranges"]["range"] == 'odd "name"\n\x1b[31m', "json keeps the name")


def check_skip():
    db = mkdb("basic")
    # four more "step" ranges of 100 ns after basic's [0,3500]: walls 3500 100 100 100
    # 100, lower median 100; the first took 35x it, 3500 of 3900 = 89.7%
    con = sqlite3.connect(db)
    con.executemany("INSERT INTO nvtx(start,end,kind,text_id,pid,tid) VALUES(?,?,0,5,1,11)",
                    [(3500 + 100 * i, 3600 + 100 * i) for i in range(4)])
    con.commit()
    con.close()
    p = report(db, "--range", "step")
    expect(p.returncode == 0, f"exit {p.returncode}")
    expect("\n  the first of the 5 ranges took 3.500 us (35x the median one, 100 ns), 89.7% of "
           "their walls: a warm-up, counted below; --skip 1 leaves it out\n" in p.stdout,
           "leading range line")
    j = json.loads(report(db, "--json", "--range", "step").stdout)
    lo = j["verdict"]["leading_ranges"]
    expect((lo["count"], lo["wall_ns"], lo["median_ns"], lo["skip"]) == (1, 3500, 100, 1),
           "leading json")
    expect(abs(lo["share"] - 3500 / 3900) < 1e-12, "leading share")
    # --skip 1: the four of 100 ns, [3500,3900]: 400 ns, no leading line
    p = report(db, "--range", "step", "--skip", "1")
    expect(p.returncode == 0, f"skip exit {p.returncode}")
    expect("selection: NVTX ranges named \"step\", the first 1 left out (--skip): 4 ranges, "
           "400 ns in all\n" in p.stdout, "skip header")
    expect("warm-up" not in p.stdout, "no leading line after the skip")
    j = json.loads(report(db, "--json", "--range", "step", "--skip", "1").stdout)
    expect(j["selection"] == {"range": "step", "matches": 4, "skipped": 1, "total_ns": 400},
           "skip selection json")
    expect(j["verdict"]["leading_ranges"] is None, "leading null after the skip")
    # bad uses: one line, exit 2
    for args, msg in ((["--range", "step", "--skip", "5"],
                       '--skip 5 leaves none of its 5 NVTX ranges named "step"'),
                      (["--skip", "1"], "--skip goes with --range NAME"),
                      (["--range", "step", "--skip", "-1"], "--skip needs a whole number"),
                      (["--range", "step", "--skip", "1x"], "--skip needs a whole number")):
        p = report(db, *args)
        expect(p.returncode == 2 and msg in p.stderr and p.stderr.count("\n") == 1,
               f"{args}: exit {p.returncode}, {p.stderr!r}")
    # the page: the same selection, and the same refusal
    page = os.path.join(WORK, "skip.html")
    p = subprocess.run([GAPSCOPE, "html", "--range", "step", "--skip", "1", "-o", page, db],
                       capture_output=True, text=True)
    expect(p.returncode == 0 and "the first 1 left out, 4 ranges" in open(page).read(),
           f"html skip: {p.returncode} {p.stderr!r}")
    p = subprocess.run([GAPSCOPE, "html", "--range", "step", "--skip", "5", "-o", page, db],
                       capture_output=True, text=True)
    expect(p.returncode == 2 and "leaves none of its 5" in p.stderr, "html skip past all")
    # the comparison: both sides' selections leave the first out
    p = subprocess.run([GAPSCOPE, "diff", "--range", "step", "--skip", "1", db, db],
                       capture_output=True, text=True)
    expect(p.returncode == 0 and p.stdout.count('NVTX range "step": 4 ranges, 400 ns in all') == 2,
           f"diff skip: {p.returncode} {p.stdout[:300]!r}")
    p = subprocess.run([GAPSCOPE, "diff", "--skip", "1", db, db], capture_output=True, text=True)
    expect(p.returncode == 2 and "--skip goes with --range" in p.stderr, "diff skip alone")


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
    # --graph-node-overhead 100: estimate 5500 - 2800 + 4*100 = 3100 (check_json), saving
    # 2400 of 5500 = 43.6% > 5% and 2400 >= 1% of the 7300 window
    j = json.loads(report(db, "--json", "--graph-node-overhead", "100").stdout)
    sq = j["graph_advice"]["sequences"][0]
    expect(sq["estimate_ns"] == 3100 and sq["saving_ns"] == 2400 and sq["advise"] is True, "advice on")
    # the sequence relu (K2, launched at 300 on tid 11) .. gemm (K3): named by its first
    # and last ops (short names) and the NVTX range on tid 11 at 300: "step" [0,3500]
    expect(sq["sentence"].startswith("Capture the 2-op sequence from relu to gemm<…> "
                                     "(NVTX \"step\") on stream 7 (device 0) as a CUDA Graph: "),
           "advice sentence: no PyTorch words in a program without at:: kernels")
    expect(j["verdict"]["pytorch"] is False, "not a PyTorch program")
    # the same trace with relu named as PyTorch's kernel: the advice says how PyTorch
    # captures a graph, and the verdict is PyTorch's
    torch_db = os.path.join(WORK, "basic_torch.db")
    shutil.copy(db, torch_db)
    c = sqlite3.connect(torch_db)
    c.execute("UPDATE strings SET value = 'void at::native::relu_kernel<float>(float*)' "
              "WHERE value = 'relu'")
    c.commit()
    c.close()
    j = json.loads(report(torch_db, "--json", "--graph-node-overhead", "100").stdout)
    expect(j["verdict"]["pytorch"] is True, "at:: kernels: a PyTorch program")
    expect("on stream 7 (device 0) as a CUDA Graph (PyTorch: torch.cuda.graph, or torch.compile "
           "mode=\"reduce-overhead\"): it repeats" in j["graph_advice"]["sequences"][0]["sentence"],
           "advice sentence in PyTorch's words")
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
    # a torch.profiler trace given to report: say to import it
    js = os.path.join(WORK, "t.json")
    with open(js, "w") as f:
        f.write('  {"traceEvents": []}')
    one_line_exit2(report(js), "json", "not a gapscope trace (JSON: a torch.profiler trace?"
                   " gapscope import it first)")
    gz = os.path.join(WORK, "t.json.gz")
    import gzip
    with gzip.open(gz, "wb") as f:
        f.write(b'{"traceEvents": []}' * 4)
    one_line_exit2(report(gz), "gzip", "(gzip-compressed: a torch.profiler .json.gz?")
    # an Nsight Systems SQLite export (its string and GPU tables)
    nsys = os.path.join(WORK, "nsys.sqlite")
    import sqlite3
    if os.path.exists(nsys):
        os.unlink(nsys)
    con = sqlite3.connect(nsys)
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL)")
    con.commit()
    con.close()
    one_line_exit2(report(nsys), "nsys", "an Nsight Systems SQLite export: gapscope import it first")
    one_line_exit2(report(mkdb("newer")), "newer", "newer than this gapscope")
    one_line_exit2(report(mkdb("truncated")), "truncated", "truncated")
    one_line_exit2(report(mkdb("empty")), "empty", "no GPU activity")
    db = mkdb("basic")
    one_line_exit2(report(db, "--top", "abc"), "bad --top", "--top needs a whole number")
    one_line_exit2(report(db, "--top", "-3"), "negative --top", "--top needs a whole number")
    one_line_exit2(report(db, "--bogus"), "unknown option", "unknown option '--bogus'")
    one_line_exit2(report(db, "--range"), "missing value", "needs a value")
    one_line_exit2(report(), "no file", "no trace given")
    # two files are the multi-trace report now (tests/cli/multi_check.py);
    # a bad one among them is named in one line
    one_line_exit2(report(db, mkdb("empty")), "two files, one empty", "no GPU activity")


{"text": check_text, "json": check_json, "deps": check_deps, "hostpause": check_hostpause,
 "polls": check_polls, "longnames": check_longnames, "range": check_range, "outside": check_outside, "skip": check_skip, "range_nomatch": check_range_nomatch,
 "options": check_options, "bad_input": check_bad_input}[CHECK]()
if failures:
    for f in failures:
        print("FAIL:", f)
    sys.exit(1)
print("ok:", CHECK)
