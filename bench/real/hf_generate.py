#!/usr/bin/env python3
"""hf_generate.py - greedy text generation with Hugging Face transformers,
as a real program to record with `gapscope record` (tools/gpu-realprogs.sh).

A small GPT-2 (4 layers, 256 wide, 4 heads, 5000-token vocabulary) with
random weights - nothing is downloaded - generates 72 new tokens from a
random 16-token prompt with model.generate(do_sample=False): the eager
per-token decode loop of transformers, one small forward pass plus the
framework's logits processing and stopping checks per token, which is
mostly launch overhead and host code on a GPU. One warm-up generation runs
first; the timed one is inside the NVTX range "generate".

  hf_generate.py [--ab R]

Prints "generate tokens 72 wall_us <x>" (host wall time of the timed
generate call, GPU drained on both sides). It checks only that 72 tokens
were generated.
With --ab R (under `gapscope record --capture-range cudaProfilerApi`) it
instead runs R rounds of two generate calls, one untraced (range
"ab_untraced") and one traced (between torch.cuda.profiler.start() and
stop(), range "generate"), in alternating order, and prints "ab round=K
untraced_us=<us a token> traced_us=<us a token> ratio=..." and "ab
median_ratio=... rounds=R steps=72" (steps: tokens), as
bench/overhead/torch_nosync.py --ab does; corrected_accuracy.py ab --range generate
reads them.
"""
import argparse
import os
import sys
import time

# Random weights from a config: there is nothing to fetch, and the GPU
# machine has no network; say so, so no library tries.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ab_rounds import ab_rounds  # noqa: E402  (bench/)

PROMPT_TOKENS = 16
NEW_TOKENS = 72
VOCAB = 5000
EOS = VOCAB - 1  # GPT2Config's default eos/bos (50256) lies outside this vocabulary


def ab(model, prompt, kwargs, rounds):
    """Untraced and traced generate calls alternating in one process (--ab)."""
    def phase(name, traced):
        torch.cuda.synchronize()
        if traced:
            torch.cuda.profiler.start()
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push(name)
        model.generate(prompt, **kwargs)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        us = (time.perf_counter() - t0) * 1e6 / NEW_TOKENS
        if traced:
            torch.cuda.profiler.stop()
        return us

    phase("ab_warm", True)  # whatever the first switch-on costs once
    ab_rounds(phase, rounds, NEW_TOKENS, "generate")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ab", type=int, default=0, metavar="R")
    a = ap.parse_args()
    torch.manual_seed(0)
    config = GPT2Config(n_layer=4, n_embd=256, n_head=4, vocab_size=VOCAB,
                        bos_token_id=EOS, eos_token_id=EOS)
    model = GPT2LMHeadModel(config).cuda().eval()
    prompt = torch.randint(0, VOCAB - 1, (1, PROMPT_TOKENS), device="cuda")
    mask = torch.ones_like(prompt)
    kwargs = dict(attention_mask=mask, do_sample=False,
                  min_new_tokens=NEW_TOKENS, max_new_tokens=NEW_TOKENS,
                  pad_token_id=EOS, eos_token_id=EOS)

    with torch.no_grad():
        model.generate(prompt, **kwargs)  # warm-up
        torch.cuda.synchronize()
        if a.ab:
            return ab(model, prompt, kwargs, a.ab)
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push("generate")
        out = model.generate(prompt, **kwargs)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        wall_us = (time.perf_counter() - t0) * 1e6

    got = out.shape[1] - PROMPT_TOKENS
    if got != NEW_TOKENS:
        print(f"FAIL (generated {got} tokens, expected {NEW_TOKENS})")
        raise SystemExit(1)
    print(f"generate tokens {NEW_TOKENS} wall_us {wall_us:.1f}")


if __name__ == "__main__":
    main()
