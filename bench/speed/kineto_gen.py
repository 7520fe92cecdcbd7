#!/usr/bin/env python3
"""Writes a synthetic torch.profiler (Kineto) Chrome trace of about --mb
megabytes, laid out as libkineto's output_json.cpp writes one: for each
step a user_annotation range, and per op a cpu_op, a cudaLaunchKernel
(cuda_runtime), its kernel with the full args (grid, block, registers,
shared memory...), and the ac2g flow pair; every 50 ops a pageable
cudaMemcpyAsync with its gpu_memcpy and a cuda_sync. Used by
bench/speed/run_import_bench.py (the benchmark of `gapscope import`).

usage: kineto_gen.py --mb 200 -o big.json
"""
import argparse
import sys

NAMES = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
    "TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::operator()() const::{lambda()"
    "#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native"
    "::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#1}::"
    "operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::"
    "Array<char*, 2>)",
    "sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_"
    "segment_k_off_kernel__5x_cublas",
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float,"
    " float, at::native::binary_internal::MulFunctor<float> >, at::detail::Array<char*, 2> >"
    "(int, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::"
    "MulFunctor<float> >, at::detail::Array<char*, 2>)",
]
CPU = ["aten::mm", "aten::gelu", "aten::mul"]


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=200)
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    target = int(a.mb * 1e6)
    pid, tid = 4242, 4242
    f = open(a.out, "w")
    f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA'
            ' H200", "totalGlobalMem": 150754820096, "computeMajor": 9, "computeMinor": 0,'
            ' "maxThreadsPerBlock": 1024, "numSms": 132}\n  ],\n  "displayTimeUnit": "ms",\n'
            '  "baseTimeNanoseconds": 1765000000000000000,\n  "traceEvents": [\n')
    f.write('  {"name": "process_name", "ph": "M", "ts": 0.000, "pid": %d, "tid": 0, "args":'
            ' {"name": "python"}},\n' % pid)
    f.write('  {"name": "thread_name", "ph": "M", "ts": 0.000, "pid": %d, "tid": %d, "args":'
            ' {"name": "thread %d (python)"}},\n' % (pid, tid, tid))
    written, t, corr, ext, step, ops = 0, 1_000_000, 1, 1, 0, 0
    while written < target:
        chunk = []
        step_start = t
        for i in range(24):
            k = i % 3
            corr += 1
            ext += 1
            ops += 1
            launch = t + 2000
            kstart = launch + 9000 + (i * 37) % 5000
            kdur = 3000 + (i * 911) % 20000
            chunk.append(
                '  {\n    "ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d,\n'
                '    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,'
                ' "Record function id": 0, "Sequence number": %d, "Fwd thread id": 0,'
                ' "Ev Idx": %d\n    }\n  },\n' % (CPU[k], pid, tid, us(t), us(6500), ext, ext, ops))
            chunk.append(
                '  {\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d,'
                ' "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,\n'
                '      "cbid": 211, "correlation": %d\n    }\n  },\n'
                % (pid, tid, us(launch), us(4200), ext, corr))
            chunk.append(
                '  {\n    "ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7,\n'
                '    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d,\n'
                '      "queued": 0, "device": 0, "context": 1,\n      "stream": 7,'
                ' "correlation": %d,\n      "registers per thread": 32,\n      "shared memory":'
                ' 0,\n      "blocks per SM": 0.484848,\n      "warps per SM": 1.939394,\n'
                '      "grid": [64, 1, 1],\n      "block": [128, 1, 1],\n'
                '      "est. achieved occupancy %%": 3\n    }\n  },\n'
                % (NAMES[k], us(kstart), us(kdur), ext, corr))
            chunk.append(
                '  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
                '    "cat": "ac2g", "name": "ac2g"\n  },\n' % (corr, pid, tid, us(launch)))
            chunk.append(
                '  {\n    "ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %s,\n'
                '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  },\n' % (corr, us(kstart)))
            t += 8000
        corr += 1
        chunk.append(
            '  {\n    "ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": %d,'
            ' "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n      "cbid": 41,'
            ' "correlation": %d\n    }\n  },\n' % (pid, tid, us(t), us(30000), corr))
        chunk.append(
            '  {\n    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)",'
            ' "pid": 0, "tid": 7,\n    "ts": %s, "dur": %s,\n    "args": {\n      "device": 0,'
            ' "context": 1,\n      "stream": 7, "correlation": %d,\n      "bytes": 4,'
            ' "memory bandwidth (GB/s)": 0.002\n    }\n  },\n' % (us(t + 25000), us(1500), corr))
        t += 32000
        chunk.append(
            '  {\n    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d,'
            ' "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n      "External id": %d\n'
            '    }\n  },\n' % (step, pid, tid, us(step_start), us(t - step_start), ext))
        step += 1
        s = "".join(chunk)
        f.write(s)
        written += len(s)
    f.write('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n    "pid": "",'
            ' "tid": "", "ts": %s\n  }\n  ],\n  "traceName": "%s"\n}\n' % (us(t), a.out))
    f.close()
    print(f"{a.out}: {written / 1e6:.0f} MB, {ops} kernels, {step} steps", file=sys.stderr)


main()
