#!/usr/bin/env python3
"""What a person reading a Kineto trace sees, worked out from its JSON alone.

usage: corpus_facts.py TRACE.json[.gz] ...   (prints the facts as JSON)
       corpus_facts.py --markdown TRACE ...   (as tests/cli/corpus/EXPECTED.md lists them)
       import corpus_facts; corpus_facts.facts(path)

Nothing here comes from gapscope: this is the independent reading that
tests/cli/corpus_check.py holds the report and the verdict against, and
that tests/cli/corpus/EXPECTED.md was written from. Times are integer ns:
Kineto's ts/dur are microseconds with (at most) three decimals, read as
decimal text, so ns = the digits without the point.

Definitions (each fact's name as it appears in the output):
  devices            per GPU (args.device, else pid): window = [first GPU op
                     start, last GPU op end], busy = the union of kernel,
                     memcpy and memset intervals (docs/metrics.md);
  steps              ProfilerStep#N ranges on the host (count, first start);
  opt_steps          Optimizer.step#... ranges (count, end of the first);
  loader             the DataLoader iterator named in enumerate(DataLoader)#X
                     ranges; workers_on = X is _MultiProcessingDataLoaderIter;
  uploads            HtoD copies by source kind (Pageable / Pinned);
  nccl               per device: busy time of kernels whose name holds "nccl",
                     its share of busy, and the part that overlaps no other
                     GPU op of that device ("exposed") as a share of busy and
                     of the window;
  syncs_per_step     explicit sync calls (cudaStreamSynchronize,
                     cudaDeviceSynchronize, cudaEventSynchronize) that start
                     inside a ProfilerStep range, over the number of steps
                     (else inside Optimizer-step iterations; else all / 1);
  allocs             cudaMalloc/cudaFree (and cuMemAlloc/cuMemFree) calls
                     that start before the first Optimizer.step ends
                     ("warmup") and after it ("steady"); with no optimizer
                     step, before the first ProfilerStep starts and after;
  loader_late_share_of_window  of the host-late time (below), the part inside
                     an enumerate(DataLoader)# range, over the window;
  host_late          per device: the idle gaps in which the host was late
                     (the op ending the gap was launched, by correlation id,
                     at the gap's start or later: docs/metrics.md, gap model
                     v2), up to that launch call's start; of that time, the
                     part the launching thread spent inside an aten:: operator,
                     inside another operator (cpu_op), and inside no operator;
                     python_ns = the part inside no operator but inside a
                     python_function frame (traces with with_stack only), and
                     the innermost frames that hold most of it.
"""
import bisect
import gzip
import json
import re
import sys
from decimal import Decimal

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")
CALL_CATS = ("cuda_runtime", "cuda_driver", "Runtime")
OP_CATS = ("cpu_op", "Operator")
RANGE_CATS = ("cpu_op", "Operator", "user_annotation")
SYNC_CALLS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize")
ALLOC_CALLS = ("cudaMalloc", "cudaFree", "cuMemAlloc", "cuMemAlloc_v2", "cuMemFree",
               "cuMemFree_v2")


def ns(v):
    return int(Decimal(str(v)) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    return doc if isinstance(doc, dict) else {"traceEvents": doc}


def union(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def total(u):
    return sum(e - s for s, e in u)


def minus(a, b):
    """Length of union a outside union b (both sorted, disjoint)."""
    t, j = 0, 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                t += b[k][0] - cur
            cur = max(cur, b[k][1])
            k += 1
        if cur < e:
            t += e - cur
    return t


def cover(u, a, b):
    """Length of [a, b) covered by union u (sorted, disjoint)."""
    t = 0
    for s, e in u[max(0, bisect.bisect_right(u, [a]) - 1):]:
        if s >= b:
            break
        t += max(0, min(e, b) - max(s, a))
    return t


def span(e):
    s = ns(e["ts"])
    return s, s + ns(e.get("dur", 0))


def facts(path):
    doc = load(path)
    ev = [e for e in doc["traceEvents"] if isinstance(e, dict)]
    X = [e for e in ev if e.get("ph") == "X" and "ts" in e]
    gpu = [e for e in X if e.get("cat") in GPU_CATS]
    calls = [e for e in X if e.get("cat") in CALL_CATS]
    f = {"file": path.rsplit("/", 1)[-1]}
    di = doc.get("distributedInfo") or {}
    f["rank"] = di.get("rank")
    f["world_size"] = di.get("world_size")

    def dev(e):
        a = e.get("args", {})
        return a["device"] if "device" in a else e.get("pid")

    ops_by_dev = {}
    for e in gpu:
        ops_by_dev.setdefault(dev(e), []).append(e)

    def ranges(prefix):
        return sorted(span(e) for e in X if e.get("cat") in RANGE_CATS
                      and str(e.get("name", "")).startswith(prefix))

    steps = ranges("ProfilerStep#")
    opts = ranges("Optimizer.step#")
    f["steps"] = len(steps)
    f["first_step_start_ns"] = steps[0][0] if steps else None
    f["opt_steps"] = len(opts)
    f["first_opt_end_ns"] = opts[0][1] if opts else None
    loaders = sorted({e["name"].split("#", 1)[1].split(".")[0] for e in X
                      if str(e.get("name", "")).startswith("enumerate(DataLoader)#")})
    f["loader"] = loaders
    f["workers_on"] = "_MultiProcessingDataLoaderIter" in loaders
    up = {}
    for e in gpu:
        n = e.get("name", "")
        if e.get("cat") in ("gpu_memcpy", "Memcpy") and "HtoD" in n and "(" in n:
            k = n.split("(", 1)[1].split(" ", 1)[0]
            up[k] = up.get(k, 0) + 1
    f["uploads"] = up
    f["uploads_pageable"] = up.get("Pageable", 0)
    f["uploads_pinned"] = up.get("Pinned", 0)
    f["has_loader"] = bool(loaders)
    # stream waits: the calls, and the records (cuda_sync) that say what waited
    f["stream_wait_calls"] = sum(1 for e in calls if e.get("name") == "cudaStreamWaitEvent")
    f["cuda_sync_events"] = sum(1 for e in X if e.get("cat") == "cuda_sync")
    # allocation calls outside the ranges the program names warm-up
    warm = [span(e) for e in X if e.get("cat") in RANGE_CATS
            and re.search(r"warm[-_ ]?up", str(e.get("name", "")), re.I)]
    f["alloc_ns_outside_warmup"] = sum(
        b - a for a, b in (span(e) for e in calls if e.get("name") in ("cudaMalloc", "cudaFree"))
        if not any(s <= a and b <= e for s, e in warm))
    # DDP's buffer broadcast: CPU unflattens inside its forward's range
    ddp = ranges("DistributedDataParallel.forward")
    unfl = [span(e) for e in X if e.get("name") == "aten::unflatten_dense_tensors"]
    f["ddp_forward_unflattens"] = sum(1 for a, b in unfl
                                      if any(s <= a and b <= e for s, e in ddp))

    # syncs per step
    scall = sorted(span(e)[0] for e in calls if e.get("name") in SYNC_CALLS)
    if steps:
        per = [sum(1 for t in scall if a <= t < b) for a, b in steps]
    elif len(opts) >= 2:
        per = [sum(1 for t in scall if opts[i][1] <= t < opts[i + 1][1])
               for i in range(len(opts) - 1)]
    else:
        per = [len(scall)]
    f["syncs"] = len(scall)
    f["syncs_per_step"] = per
    f["syncs_per_step_min"] = min(per)

    # allocations: warm-up vs steady state
    border = f["first_opt_end_ns"] if opts else f["first_step_start_ns"]
    al = {}
    for e in calls:
        n = e.get("name")
        if n in ALLOC_CALLS:
            key = n.replace("_v2", "")
            t = span(e)[0]
            ph = "warmup" if border is None or t < border else "steady"
            al.setdefault(key, {"warmup": 0, "steady": 0})[ph] += 1
    f["allocs"] = al
    f["allocs_steady"] = sum(v["steady"] for v in al.values())
    f["allocs_warmup"] = sum(v["warmup"] for v in al.values())
    f["frees_warmup"] = al.get("cudaFree", {}).get("warmup", 0)
    f["frees_steady"] = al.get("cudaFree", {}).get("steady", 0)

    # host ranges per thread, for the host-late breakdown
    call_by_corr = {}
    for e in calls:
        c = e.get("args", {}).get("correlation")
        if c is not None:
            call_by_corr[c] = (span(e)[0], e.get("tid"))
    ops_aten, ops_other, pyf, loader = {}, {}, {}, {}
    for e in X:
        c = e.get("cat")
        if c in OP_CATS:
            d = ops_aten if str(e.get("name", "")).startswith("aten::") else ops_other
            d.setdefault(e.get("tid"), []).append(span(e))
        if str(e.get("name", "")).startswith("enumerate(DataLoader)#"):
            loader.setdefault(e.get("tid"), []).append(span(e))
        if c == "python_function":
            pyf.setdefault(e.get("tid"), []).append(span(e) + (e.get("name", ""),))
    U = {}

    def uni(d, tid):
        key = (id(d), tid)
        if key not in U:
            U[key] = union([x[:2] for x in d.get(tid, [])])
        return U[key]

    f["devices"] = {}
    for d, es in sorted(ops_by_dev.items(), key=lambda kv: str(kv[0])):
        iv = [span(e) for e in es]
        u = union(iv)
        window = u[-1][1] - u[0][0]
        busy = total(u)
        nc = union([span(e) for e in es if "nccl" in e.get("name", "").lower()])
        other = union([span(e) for e in es if "nccl" not in e.get("name", "").lower()])
        exposed = minus(nc, other)
        # host-late gaps
        seq = sorted((span(e) + (e.get("args", {}).get("correlation"),) for e in es))
        late, end = [], seq[0][1]
        for s, e_, c in seq[1:]:
            if s > end and c in call_by_corr and call_by_corr[c][0] >= end:
                late.append((end, min(call_by_corr[c][0], s), call_by_corr[c][1]))
            end = max(end, e_)
        hl = {"late_ns": 0, "aten_ns": 0, "other_op_ns": 0, "no_op_ns": 0, "python_ns": 0,
              "loader_ns": 0}
        frames = {}
        for a, b, tid in late:
            ua, uo = uni(ops_aten, tid), uni(ops_other, tid)
            if ("any", tid) not in U:
                U[("any", tid)] = union(ua + uo)
            anyop = U[("any", tid)]
            L = b - a
            in_aten = cover(ua, a, b)
            in_any = cover(anyop, a, b)
            hl["late_ns"] += L
            hl["aten_ns"] += in_aten
            hl["other_op_ns"] += in_any - in_aten
            hl["no_op_ns"] += L - in_any
            hl["loader_ns"] += cover(uni(loader, tid), a, b)
            if tid in pyf and L - in_any > 0:
                # outside operators: the innermost python frame over each piece
                holes, cur = [], a
                for s, e in anyop[max(0, bisect.bisect_right(anyop, [a]) - 1):]:
                    if s >= b:
                        break
                    if e <= a:
                        continue
                    if s > cur:
                        holes.append((cur, s))
                    cur = max(cur, e)
                if cur < b:
                    holes.append((cur, b))
                for s, e in holes:
                    inside = [x for x in pyf[tid] if x[0] <= s and x[1] >= e]
                    if inside:
                        hl["python_ns"] += e - s
                        name = min(inside, key=lambda x: x[1] - x[0])[2]
                        frames[name] = frames.get(name, 0) + e - s
        hl["top_frames"] = sorted(frames.items(), key=lambda kv: -kv[1])[:3]
        f["devices"][str(d)] = {
            "window_ns": window, "busy_ns": busy, "window_start_ns": u[0][0],
            "nccl_busy_ns": total(nc), "nccl_share_of_busy": total(nc) / busy if busy else 0,
            "nccl_exposed_ns": exposed,
            "nccl_exposed_share_of_busy": exposed / busy if busy else 0,
            "nccl_exposed_share_of_window": exposed / window if window else 0,
            "host_late": hl,
        }
    main_dev = max(f["devices"], key=lambda k: f["devices"][k]["busy_ns"])
    m = f["devices"][main_dev]
    f["main_device"] = main_dev
    f["nccl_exposed_share_of_window"] = m["nccl_exposed_share_of_window"]
    f["nccl_share_of_busy"] = m["nccl_share_of_busy"]
    hl = m["host_late"]
    f["busy_share"] = m["busy_ns"] / m["window_ns"]
    f["host_late_share_of_window"] = hl["late_ns"] / m["window_ns"]
    f["loader_late_share_of_window"] = hl["loader_ns"] / m["window_ns"]
    f["host_late_python_share"] = hl["python_ns"] / hl["late_ns"] if hl["late_ns"] else 0
    f["host_late_in_aten_share"] = hl["aten_ns"] / hl["late_ns"] if hl["late_ns"] else 0
    f["host_late_outside_ops_share"] = hl["no_op_ns"] / hl["late_ns"] if hl["late_ns"] else 0
    return f


def ms(v):
    return f"{v / 1e6:.3f} ms"


def markdown(f):
    """The facts of one trace as the lines of tests/cli/corpus/EXPECTED.md."""
    m = f["devices"][f["main_device"]]
    hl = m["host_late"]
    L = hl["late_ns"] or 1
    out = [f"- device {f['main_device']}: window {ms(m['window_ns'])}, busy {ms(m['busy_ns'])} "
           f"({f['busy_share']:.1%})" + (f"; rank {f['rank']} of {f['world_size']}"
                                          if f["rank"] is not None else "")]
    ph = []
    if f["steps"]:
        ph.append(f"{f['steps']} ProfilerStep ranges")
    if f["opt_steps"]:
        ph.append(f"{f['opt_steps']} Optimizer.step ranges")
    w0 = m["window_start_ns"]
    if f["steps"]:
        ph.append(f"the first step starts at {ms(f['first_step_start_ns'] - w0)} from the window start")
    if f["opt_steps"]:
        ph.append(f"the first Optimizer.step ends at {ms(f['first_opt_end_ns'] - w0)}")
    out.append("- phases: " + (", ".join(ph) if ph else "no step ranges"))
    out.append("- DataLoader: " + (", ".join(f["loader"]) + (" (workers on)" if f["workers_on"]
                                                               else " (workers off)")
                                   if f["loader"] else "none in the trace"))
    out.append("- uploads (HtoD): " + (", ".join(f"{v} {k}" for k, v in sorted(f["uploads"].items()))
                                       if f["uploads"] else "none"))
    out.append(f"- NCCL: {m['nccl_share_of_busy']:.1%} of busy; exposed (overlapping no other op) "
               f"{ms(m['nccl_exposed_ns'])} = {m['nccl_exposed_share_of_busy']:.1%} of busy, "
               f"{m['nccl_exposed_share_of_window']:.1%} of the window")
    out.append(f"- explicit syncs: {f['syncs']} in all; per step {f['syncs_per_step']}")
    al = ", ".join(f"{k} {v['warmup']} before / {v['steady']} after" for k, v in
                   sorted(f["allocs"].items()))
    out.append("- allocation calls (before / after the first Optimizer.step ends, or the first "
               "ProfilerStep starts): " + (al or "none"))
    out.append(f"- host late: {ms(hl['late_ns'])} ({f['host_late_share_of_window']:.1%} of the "
               f"window); of it inside aten:: operators {hl['aten_ns'] / L:.0%}, other "
               f"operators {hl['other_op_ns'] / L:.0%}, no operator {hl['no_op_ns'] / L:.0%} "
               f"(in Python frames {hl['python_ns'] / L:.0%}); inside a DataLoader range "
               f"{ms(hl['loader_ns'])} ({f['loader_late_share_of_window']:.1%} of the window)")
    if hl["top_frames"]:
        out.append("- innermost Python frames outside operators: " +
                   "; ".join(f"`{n}` {ms(t)}" for n, t in hl["top_frames"]))
    return "\n".join(out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--markdown"]:
        for p in sys.argv[2:]:
            print(f"### {p.rsplit('/', 2)[-2]}/{p.rsplit('/', 1)[-1]}\n")
            print(markdown(facts(p)) + "\n")
    else:
        print(json.dumps([facts(p) for p in sys.argv[1:]], indent=1, default=str))
