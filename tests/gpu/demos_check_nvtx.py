#!/usr/bin/env python3
"""demos_check_nvtx.py - does a trace recorded from a demo hold its phases?

usage: demos_check_nvtx.py TRACE.db DEMO
       demos_check_nvtx.py --phases DEMO    (print the demo's phase names)

Reads the gapscope trace database (schema v1: table nvtx, texts in strings)
with the standard library's sqlite3 and checks that every phase the demo
names with an NVTX range (demos/<demo>.cu, gs_phase_begin) was recorded as a
range (kind 0) with end > start. Prints one line per phase and a last
summary line; exits 0 when all are there, 1 when one is missing, 2 on bad
input. It checks names and presence only, not timings.
"""
import sqlite3
import sys

# The phases each demo pushes, in the order it runs them.
PHASES = {
    "graph_conversion": [
        "launch_sync_each", "back_to_back", "graph_1000", "graph_size_sweep",
        "graph_with_copies", "graph_param_update", "graphs_two_streams",
        "graph_fork_join",
    ],
    "false_timing": [
        "naive_host_timer", "cuda_events", "host_timer_with_sync",
        "host_timer_undrained_queue",
    ],
    "implicit_sync": [
        "loss_every_step", "loss_every_50_steps", "pageable_upload",
        "malloc_free_each_step",
    ],
    "stream_race": [
        "race_no_wait", "fixed_with_event", "pipeline_events",
        "pipeline_device_sync_each_step",
    ],
    "decode_starvation": [
        "decode_eager", "decode_one_graph", "decode_bucketed_graphs",
    ],
}


def main(argv):
    if len(argv) == 3 and argv[1] == "--phases" and argv[2] in PHASES:
        print("\n".join(PHASES[argv[2]]))
        return 0
    if len(argv) != 3 or argv[2] not in PHASES:
        print("usage: demos_check_nvtx.py TRACE.db DEMO (DEMO: %s)" % ", ".join(PHASES))
        return 2
    path, demo = argv[1], argv[2]
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        rows = db.execute(
            "SELECT s.value, COUNT(*), MIN(n.end - n.start) FROM nvtx n "
            "JOIN strings s ON s.id = n.text_id WHERE n.kind = 0 GROUP BY s.value"
        ).fetchall()
    except sqlite3.Error as e:
        print("%s: cannot read NVTX ranges: %s" % (path, e))
        return 2
    found = {text: (count, shortest) for text, count, shortest in rows}
    missing = []
    for phase in PHASES[demo]:
        if phase not in found:
            print("missing  %s" % phase)
            missing.append(phase)
        elif found[phase][1] is None or found[phase][1] <= 0:
            print("empty    %s (a range with end <= start)" % phase)
            missing.append(phase)
        else:
            print("found    %s (%d range%s)" % (phase, found[phase][0],
                                               "s" if found[phase][0] > 1 else ""))
    if missing:
        print("%d of %d phases missing or empty: %s" % (len(missing), len(PHASES[demo]),
                                                        ", ".join(missing)))
        return 1
    print("all %d phases recorded as NVTX ranges" % len(PHASES[demo]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
