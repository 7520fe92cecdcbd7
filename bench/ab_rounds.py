"""ab_rounds.py - the rounds of the --ab mode of bench/overhead/torch_nosync.py,
bench/real/hf_generate.py and bench/real/train_loop.py: in one process,
an untraced and a traced phase of the same work per round, in alternating
order (docs/collector.md, "Tracing cost in one process").

phase(name, traced) runs one phase (its work in NVTX ranges `name`; when
traced, between torch.cuda.profiler.start() and stop(), which switch
`gapscope record --capture-range cudaProfilerApi` on and off) and returns
its time per unit in us. Prints "ab round=K untraced_us=... traced_us=...
ratio=..." per round and "ab median_ratio=... rounds=R steps=STEPS", which
corrected_accuracy.py ab reads."""
import statistics


def ab_rounds(phase, rounds, steps, traced_name):
    """R rounds of phase("ab_untraced", False) and phase(traced_name, True),
    the traced one first in every other round"""
    ratios = []
    for r in range(rounds):
        if r % 2 == 0:
            u = phase("ab_untraced", False)
            t = phase(traced_name, True)
        else:
            t = phase(traced_name, True)
            u = phase("ab_untraced", False)
        ratios.append(t / u)
        print(f"ab round={r + 1} untraced_us={u:.1f} traced_us={t:.1f} ratio={t / u:.3f}")
    print(f"ab median_ratio={statistics.median(ratios):.3f} rounds={len(ratios)} steps={steps}")
