#!/bin/sh
# correct_check.sh GAPSCOPE MKDB DB - the report's and the HTML page's figures
# corrected for the collector's overhead, end to end from the meta keys gapscope-calibrate
# writes (callsite_mkdb "calibrated" / "calibrated_old": the call-site
# trace with a calibration). Worked out by hand from the model
# (docs/collector.md, "Overhead correction") on callsite_mkdb.c's timeline:
#   window [1000, 22000) = 21000 ns, busy 3 kernels x 1000, idle 18000;
#   gap [2000, 12000): host code 100, sync wait 7900 (cudaStreamSynchronize,
#     a wait for the GPU: nothing before it counts), host code 1000, launch
#     latency 1000 of L2 [11000, 11100);
#   gap [13000, 21000): host code 100, sync wait 6900, host code 500, launch
#     latency 500 of L3 [20500, 20600); both host late.
# Calibration: launch_ns 300, legacy_launch_ns 500 (their mean 400 a call),
# kernel_ns 100; "calibrated" adds plain_launch_ns 40 and
# plain_legacy_launch_ns 60 (an untraced launch call takes 50).
# calibrated: each launch call took 100 traced, 50 more than untraced: each
#   gap loses min(its latency, 0 calls x 400 + 50) = 50; idle -100. The
#   kernels lose 100 each (busy 2700); both gaps hold a wait for the GPU
#   (the syncs), so K1's and K2's ends start those waits' ends sooner: all
#   300 come off the window, 21000 - 100 - 300 = 20600, idle 18000 - 100 =
#   17900, utilisation 2700 / 20600 = 13.1%, launch overhead share
#   (1500 - 100) / 20600 = 6.8%.
#   The NVTX range "all" [0, 22500] holds both gaps and the three kernels:
#   22500 - 100 - 300 = 22100 corrected; its GPU busy 3000 measured (13.3%
#   of 22500), 2700 corrected: 2700 / 22100 = 12.2% ("busy corr."; in the
#   cases below 2700 / 21400 = 12.6%, 2700 / 22060 = 12.2%, 2850 / 21550 =
#   13.2% and 2700 / 22040 = 12.3%).
# calibrated_old: the calibrated 400 a launch call: min(1000, 400) +
#   min(500, 400) = 800; window 21000 - 800 - 300 = 19900, idle 18000 - 800 =
#   17200, utilisation 2700 / 19900 = 13.6%, share 700 / 19900 = 3.5%;
#   "all": 22500 - 800 - 300 = 21400.
# calibrated_graph: "calibrated" with the three kernels as graph nodes, each
#   launched by a cudaGraphLaunch (the calls [500,600], [11000,11100],
#   [20500,20600]): each node loses graph_node_ns 300 - gpu_gap_ns 200 = 100
#   (= kernel_ns here), and each graph launch the calibrated 400 of a launch
#   call (no untraced graph launch is known): min(1000, 400) + min(500, 400)
#   = 800, as calibrated_old: window 19900, idle 17200, utilisation 13.6%.
#   The report says it took 100 ns off each of 3 graph nodes, and at most
#   400 ns off a graph launch, whose traced p50 was 100 ns; "calibrated" has
#   no graph node and says nothing of them.
# calibrated_graph_launch: calibrated_graph whose calibration timed the
#   untraced graph launch, 20 + 10 a node: each launch of one node took 100
#   traced, 30 untraced, so lost 70: min(1000, 70) + min(500, 70) = 140
#   (the syncs' waits leave no CUDA API call to count); window 21000 - 140
#   - 300 = 20560, idle 17860, utilisation 2700 / 20560 = 13.1%, share
#   (1500 - 140) / 20560 = 6.6%; "all" 22500 - 140 - 300 = 22060. No
#   kernel launch call explained a gap: the per-call figure stays the
#   calibration's 400, and 70 per graph launch call over the 2 calls.
# calibrated_graph_store: calibrated_graph whose calibration timed storing
#   nodes, 500 traced and 450 untraced: each node loses 50 instead of 100;
#   the gaps lose 800 as in calibrated_graph (host late, no graph-internal
#   gap): window 21000 - 800 - 150 = 20050, busy 3000 - 150 = 2850, idle
#   17200, utilisation 2850 / 20050 = 14.2%; "all" 22500 - 800 - 150 =
#   21550.
# calibrated_gap: "calibrated" whose calibration also measured CUPTI's time
#   between back-to-back launch records, launch_gap_ns 30: L2 [11000, 11100)
#   follows the sync that ended at 10000 and L3 [20500, 20600) the copy that
#   ended at 20000, both more than 30 before, so each launch call lost 50 +
#   30 = 80: each gap loses min(its latency, 80), idle -160; window 21000 -
#   160 - 300 = 20540, idle 17840, utilisation 2700 / 20540 = 13.1%, share
#   (1500 - 160) / 20540 = 6.5%; "all" 22500 - 160 - 300 = 22040.
# calibrated_slow: 100 launch calls after host work whose records' median is
#   7000 ns against the calibration's 5000 (1.40x, >= 1.30 over >= 100
#   calls): the report says the process ran slower than its calibration;
#   "calibrated" (no spaced_record_ns) does not.
set -u
gs=$1 mk=$2 db=$3
fail=0
expect() { # text, pattern (fixed string)
	if printf '%s\n' "$1" | grep -qF -- "$2"; then echo "ok: $2"; else echo "FAIL: missing: $2"; fail=1; fi
}
"$mk" "$db" calibrated || { echo "FAIL: callsite_mkdb calibrated"; exit 1; }
out=$("$gs" report "$db" | tr -s ' \n' '  ') || { echo "FAIL: report exit $?"; exit 1; }
expect "$out" "corrected for the collector's overhead (traced launch calls less untraced ones: 50 ns per launch call, 100 ns per kernel): window 20.600 us, utilisation 13.1%, idle 17.900 us, launch overhead share 6.8% (idle gaps -100 ns, kernels -300 ns;"
expect "$out" "1 22.500 us 22.100 us 3.000 us 13.3% 12.2% all"
# the verdict's first line: measured 3000 / 21000, corrected 2700 / 20600
expect "$out" "Verdict: GPU busy 14.3% of 21.000 us (corrected 13.1% of 20.600 us); idle: sync wait 70.5%"
expect "$out" "corrected: the wall less what tracing spent in the calls and spans it recorded; the program's own code between them can run slower traced too, which stays in (gapscope record --reference N times these ranges untraced). busy corr.: the corrected GPU busy time over the corrected wall"
expect "$out" "the measured figures keep it, the corrected ones take off the calibrated 100 ns per kernel."
case $out in *"graph nodes"*) echo "FAIL: a trace without graph kernels has a graph-node note"; fail=1 ;; *) echo "ok: no graph-node note" ;; esac
out=$("$gs" report --json "$db" | tr -d ' \n') || { echo "FAIL: report --json exit $?"; exit 1; }
expect "$out" '"per_call_ns":50,"per_call_from_trace":true'
expect "$out" '"graph_nodes":0,"graph_node_shrink_ns":null,"graph_launch_shrink_ns":null'
expect "$out" '"window_ns":20600,"busy_ns":2700,"idle_ns":17900,"idle_removed_ns":100,"busy_removed_ns":300'
expect "$out" '"utilisation":0.14285714285714285,"pytorch":false,"corrected_window_ns":20600,"corrected_utilisation":0.13106796116504854'
expect "$out" '"name":"all","count":1,"wall_ns":22500,"corrected_wall_ns":22100,"kernel_time_removed_ns":300,"corrected_busy_ns":2700,"corrected_busy_share":0.1221719'
out=$("$gs" report --no-overhead-correction "$db") || { echo "FAIL: report exit $?"; exit 1; }
case $out in *"corrected for"*) echo "FAIL: --no-overhead-correction still corrects"; fail=1 ;; *) echo "ok: --no-overhead-correction" ;; esac
case $out in *"corrected: the wall less"*) echo "FAIL: --no-overhead-correction still explains the corrected walls"; fail=1 ;; *) echo "ok: no corrected walls, no line on them" ;; esac
expect "$out" "Verdict: GPU busy 14.3% of 21.000 us; idle:"

# whatif takes the same per-call and per-kernel figures off its model first
# (docs/whatif.md, "Traced or untraced"); --traced keeps them
out=$("$gs" whatif "$db" --fix all) || { echo "FAIL: whatif exit $?"; exit 1; }
expect "$out" "tracing's cost taken off first (the report's overhead correction): 50 ns per launch call, 100 ns per kernel, 0 ns per graph node"
expect "$out" "  GPU busy              2.70 us"
out=$("$gs" whatif "$db" --fix all --traced) || { echo "FAIL: whatif --traced exit $?"; exit 1; }
expect "$out" "replayed as recorded (--traced): the figures keep tracing's cost"
expect "$out" "  GPU busy              3.00 us"
out=$("$gs" report --json "$db" | tr -d ' \n') || { echo "FAIL: report --json exit $?"; exit 1; }
expect "$out" '"saves_basis":"untraced"'
out=$("$gs" report --json --no-overhead-correction "$db" | tr -d ' \n') || { echo "FAIL: report --json exit $?"; exit 1; }
expect "$out" '"saves_basis":"traced"'

"$mk" "$db.old.db" calibrated_old || { echo "FAIL: callsite_mkdb calibrated_old"; exit 1; }
out=$("$gs" report "$db.old.db" | tr -s ' \n' '  ') || { echo "FAIL: report (old) exit $?"; exit 1; }
expect "$out" "corrected for the collector's overhead (calibrated: 400 ns per launch call, 100 ns per kernel): window 19.900 us, utilisation 13.6%, idle 17.200 us, launch overhead share 3.5% (idle gaps -800 ns, kernels -300 ns;"
expect "$out" "1 22.500 us 21.400 us 3.000 us 13.3% 12.6% all"
out=$("$gs" report --json "$db.old.db" | tr -d ' \n') || { echo "FAIL: report --json (old) exit $?"; exit 1; }
expect "$out" '"per_call_ns":400,"per_call_from_trace":false'
# the HTML page carries the same line per run (the compare page: both)
"$gs" html "$db" -o "$db.html" || { echo "FAIL: html exit $?"; exit 1; }
out=$(cat "$db.html")
expect "$out" "GPU 0 corrected for the collector's overhead (traced launch calls less untraced ones: 50 ns per launch call, 100 ns per kernel): window 20.6 µs, utilisation 13.1%, idle 17.9 µs, launch overhead share 6.8% (idle gaps &minus;100 ns, kernels &minus;300 ns)"
expect "$out" '<th>wall</th><th>corrected</th><th>GPU busy</th>'
expect "$out" '<b>Verdict:</b> GPU busy 14.3% of 21 µs (corrected 13.1% of 20.6 µs); idle: '
expect "$out" '<div class="v">14.3%</div><div class="d">busy 3 µs; corrected 13.1%</div>'
expect "$out" '<td class="name">all</td><td>1</td><td>22.5 µs</td><td>22.1 µs</td><td>3 µs</td><td>13.3%</td><td>12.2%</td></tr>'
expect "$out" '<th>busy share</th><th>busy share, corrected</th></tr>'
expect "$out" '<p class="hint">corrected: the wall less what tracing spent in the calls and spans it recorded;'
"$gs" html --no-overhead-correction "$db" -o "$db.raw.html" || { echo "FAIL: html exit $?"; exit 1; }
if grep -q "corrected for the collector" "$db.raw.html"; then echo "FAIL: html --no-overhead-correction still corrects"; fail=1; else echo "ok: html --no-overhead-correction"; fi
"$gs" html "$db" "$db.old.db" -o "$db.cmp.html" || { echo "FAIL: html compare exit $?"; exit 1; }
out=$(cat "$db.cmp.html")
expect "$out" "(calibrated: 400 ns per launch call, 100 ns per kernel): window 19.9 µs, utilisation 13.6%"
expect "$out" "(traced launch calls less untraced ones: 50 ns per launch call, 100 ns per kernel): window 20.6 µs"
# the comparison's table: each run's corrected utilisation, 2700 / 20600 and
# 2700 / 19900 (13.57%)
expect "$out" '<tr><td class="name">&nbsp;&nbsp;corrected for tracing</td><td>13.1%</td><td>13.6%</td><td>+0.5 pt</td>'
# gapscope diff: the same row; JSON null where a run has no calibration
out=$("$gs" diff "$db" "$db.old.db" | tr -s ' \n' '  ') || { echo "FAIL: diff exit $?"; exit 1; }
expect "$out" "GPU utilisation 14.3% 14.3% +0.0 pt +0.0% corrected for tracing 13.1% 13.6% +0.5 pt +3.5%"
out=$("$gs" diff --json "$db" "$db.old.db" | tr -d ' \n') || { echo "FAIL: diff --json exit $?"; exit 1; }
expect "$out" '"corrected_utilisation":{"before":0.13106796116504854,"after":0.135678391959799,'
"$mk" "$db.plain.db" || { echo "FAIL: callsite_mkdb (uncalibrated)"; exit 1; }
out=$("$gs" diff --json "$db" "$db.plain.db" | tr -d ' \n') || { echo "FAIL: diff --json (one uncalibrated) exit $?"; exit 1; }
expect "$out" '"corrected_utilisation":null'
case $("$gs" diff "$db" "$db.plain.db") in *"corrected for tracing"*) echo "FAIL: diff corrects one run only"; fail=1 ;; *) echo "ok: no corrected row with one run uncalibrated" ;; esac

"$mk" "$db.graph.db" calibrated_graph || { echo "FAIL: callsite_mkdb calibrated_graph"; exit 1; }
out=$("$gs" report "$db.graph.db" | tr -s ' \n' '  ') || { echo "FAIL: report (graph) exit $?"; exit 1; }
expect "$out" "note: the corrected figures take 100 ns off each of 3 graph nodes and up to 200 ns off the idle after it, as calibrated on a graph of empty kernels (H200: nodes of 0-10 us kernels lost 0.28-0.31 us each); corrected graph replays can read a few % short"
expect "$out" "A graph launch loses at most 400 ns, a launch call's calibrated cost (the calibration times no graph launch), though traced cudaGraphLaunch calls took 100 ns here (p50)"
expect "$out" "window 19.900 us, utilisation 13.6%, idle 17.200 us"
out=$("$gs" report --json "$db.graph.db" | tr -d ' \n') || { echo "FAIL: report --json (graph) exit $?"; exit 1; }
expect "$out" '"graph_nodes":3,"graph_node_shrink_ns":100,"graph_launch_shrink_ns":400'
"$gs" html "$db.graph.db" -o "$db.graph.html" || { echo "FAIL: html (graph) exit $?"; exit 1; }
expect "$(cat "$db.graph.html")" "The corrected figures take 100 ns off each of 3 graph nodes and up to 200 ns off the idle after it"
expect "$(cat "$db.graph.html")" "A graph launch loses at most 400 ns, a launch call's calibrated cost (the calibration times no graph launch), though traced cudaGraphLaunch calls took 100 ns here (p50)"
if grep -q "graph nodes" "$db.html"; then echo "FAIL: html of a trace without graph kernels notes graph nodes"; fail=1; else echo "ok: html without graph-node note"; fi
"$mk" "$db.gl.db" calibrated_graph_launch || { echo "FAIL: callsite_mkdb calibrated_graph_launch"; exit 1; }
out=$("$gs" report "$db.gl.db" | tr -s ' \n' '  ') || { echo "FAIL: report (graph launch) exit $?"; exit 1; }
expect "$out" "corrected for the collector's overhead (traced launch calls less untraced ones: 400 ns per launch call, 70 ns per graph launch call, 100 ns per kernel): window 20.560 us, utilisation 13.1%, idle 17.860 us, launch overhead share 6.6% (idle gaps -140 ns, kernels -300 ns;"
expect "$out" "A graph launch call loses its traced duration less the untraced one for its nodes (calibrated: 20 ns + 10 ns a node): 70 ns on average over 2 calls that held the GPU back (traced cudaGraphLaunch calls took 100 ns, p50)."
expect "$out" "1 22.500 us 22.060 us 3.000 us 13.3% 12.2% all"
out=$("$gs" report --json "$db.gl.db" | tr -d ' \n') || { echo "FAIL: report --json (graph launch) exit $?"; exit 1; }
expect "$out" '"graph_launch_shrink_ns":70,"graph_launches":2,"plain_graph_launch_ns":20,"plain_graph_node_ns":10'
expect "$("$gs" report --json "$db.graph.db" | tr -d ' \n')" '"graph_launches":0,"plain_graph_launch_ns":null,"plain_graph_node_ns":null'
"$gs" html "$db.gl.db" -o "$db.gl.html" || { echo "FAIL: html (graph launch) exit $?"; exit 1; }
expect "$(cat "$db.gl.html")" "400 ns per launch call, 70 ns per graph launch call, 100 ns per kernel): window 20.6 µs"
expect "$(cat "$db.gl.html")" "A graph launch call loses its traced duration less the untraced one for its nodes (calibrated: 20 ns + 10 ns a node): 70 ns on average over 2 calls that held the GPU back (traced cudaGraphLaunch calls took 100 ns, p50)"
# info lists the calibration the correction read, in ns (sorted by key)
out=$("$gs" info "$db.gl.db") || { echo "FAIL: info exit $?"; exit 1; }
expect "$out" "calibration (ns)
  driver_launch_ns         700
  gpu_gap_ns               200
  graph_node_ns            300
  kernel_ns                100
  launch_ns                300
  legacy_launch_ns         500
  plain_driver_launch_ns   30
  plain_graph_launch_ns    20
  plain_graph_node_ns      10
  plain_launch_ns          40
  plain_legacy_launch_ns   60"
expect "$("$gs" info --json "$db.gl.db" | tr -d ' \n')" '"calibration":{"driver_launch_ns":"700","gpu_gap_ns":"200"'
"$mk" "$db.plain.db" || { echo "FAIL: callsite_mkdb"; exit 1; }
case $("$gs" info "$db.plain.db") in *"calibration"*) echo "FAIL: info of an uncalibrated trace has a calibration section"; fail=1 ;; *) echo "ok: no calibration section without one" ;; esac
expect "$("$gs" report --json "$db.graph.db" | tr -d ' \n')" '"graph_node_store_calibrated":false'
"$mk" "$db.gs.db" calibrated_graph_store || { echo "FAIL: callsite_mkdb calibrated_graph_store"; exit 1; }
out=$("$gs" report "$db.gs.db" | tr -s ' \n' '  ') || { echo "FAIL: report (graph store) exit $?"; exit 1; }
expect "$out" "note: the corrected figures take 50 ns off each of 3 graph nodes, as calibrated on a graph of tiny kernels that store one word, traced less untraced (H200: 210 ns; empty kernels grow by 350)"
expect "$out" "window 20.050 us, utilisation 14.2%, idle 17.200 us"
expect "$out" "1 22.500 us 21.550 us 3.000 us 13.3% 13.2% all"
out=$("$gs" report --json "$db.gs.db" | tr -d ' \n') || { echo "FAIL: report --json (graph store) exit $?"; exit 1; }
expect "$out" '"graph_nodes":3,"graph_node_shrink_ns":50,'
expect "$out" '"graph_node_store_calibrated":true'
expect "$out" '"window_ns":20050,"busy_ns":2850,"idle_ns":17200'
"$gs" html "$db.gs.db" -o "$db.gs.html" || { echo "FAIL: html (graph store) exit $?"; exit 1; }
expect "$(cat "$db.gs.html")" "The corrected figures take 50 ns off each of 3 graph nodes, as calibrated on a graph of tiny kernels that store one word"
out=$("$gs" report --no-overhead-correction "$db.graph.db") || { echo "FAIL: report exit $?"; exit 1; }
case $out in *"graph nodes"*) echo "FAIL: --no-overhead-correction still notes graph nodes"; fail=1 ;; *) echo "ok: no graph-node note without correction" ;; esac
"$mk" "$db.gap.db" calibrated_gap || { echo "FAIL: callsite_mkdb calibrated_gap"; exit 1; }
out=$("$gs" report "$db.gap.db" | tr -s ' \n' '  ') || { echo "FAIL: report (gap) exit $?"; exit 1; }
expect "$out" "corrected for the collector's overhead (traced launch calls and CUPTI's time between them less untraced ones: 80 ns per launch call, up to 30 ns of it between calls, 100 ns per kernel): window 20.540 us, utilisation 13.1%, idle 17.840 us, launch overhead share 6.5% (idle gaps -160 ns, kernels -300 ns;"
expect "$out" "1 22.500 us 22.040 us 3.000 us 13.3% 12.3% all"
expect "$("$gs" report --json "$db.gap.db" | tr -d ' \n')" '"per_call_ns":80,"per_call_from_trace":true,"launch_gap_ns":30'
expect "$("$gs" report --json "$db" | tr -d ' \n')" '"per_call_from_trace":true,"launch_gap_ns":null'
"$gs" html "$db.gap.db" -o "$db.gap.html" || { echo "FAIL: html (gap) exit $?"; exit 1; }
expect "$(cat "$db.gap.html")" "(traced launch calls and CUPTI's time between them less untraced ones: 80 ns per launch call, up to 30 ns of it between calls, 100 ns per kernel): window 20.5 µs"
SLOW="this traced process's launch calls after host work took a median record of 7.000 us against the calibration's 5.000 us (1.40x): either the process ran slower traced, its own code between calls too, which the corrected figures keep, or its launches cost more than the calibration's empty kernel, which they take as tracing's (gapscope record --reference N times the NVTX ranges untraced)"
"$mk" "$db.slow.db" calibrated_slow || { echo "FAIL: callsite_mkdb calibrated_slow"; exit 1; }
out=$("$gs" report "$db.slow.db" | tr -s ' \n' '  ') || { echo "FAIL: report (slow) exit $?"; exit 1; }
expect "$out" "$SLOW"
expect "$("$gs" report --json "$db.slow.db" | tr -d ' \n')" '"spaced_launch_calls":100,"spaced_record_p50_ns":7000,"spaced_record_cal_ns":5000,"slow_process":true'
expect "$("$gs" report --json "$db" | tr -d ' \n')" '"spaced_record_p50_ns":null,"spaced_record_cal_ns":null,"slow_process":false'
"$gs" html "$db.slow.db" -o "$db.slow.html" || { echo "FAIL: html (slow) exit $?"; exit 1; }
expect "$(cat "$db.slow.html")" "<p class=\"hint\">This traced process's launch calls after host work took a median record of 7 µs against the calibration's 5 µs (1.40&times;): either the process ran slower traced"
case $("$gs" report "$db") in *"launch calls after host work took"*) echo "FAIL: a trace without the spaced calibration says the process ran slower"; fail=1 ;; *) echo "ok: no slow-process line without the spaced calibration" ;; esac
# with reference runs given, the line leaves out its pointer to them
"$mk" "$db.slowref.db" calibrated_slow_ref || { echo "FAIL: callsite_mkdb calibrated_slow_ref"; exit 1; }
out=$("$gs" report --reference "$db.slowref.db" "$db.slow.db" | tr -s ' \n' '  ') || { echo "FAIL: report --reference (slow) exit $?"; exit 1; }
expect "$out" "which they take as tracing's "
case $out in *"(gapscope record --reference N"*) echo "FAIL: with --reference the slow-process line still points to it"; fail=1 ;; *) echo "ok: no --reference pointer with reference runs" ;; esac
case $("$gs" report --no-overhead-correction "$db.slow.db") in *"launch calls after host work took"*) echo "FAIL: --no-overhead-correction still says the process ran slower"; fail=1 ;; *) echo "ok: no slow-process line without correction" ;; esac
# a reference run that timed the program's own launches (record --reference):
# 6000 ns after host work, 2000 more than the calibration's untraced 4000, is
# the program's, not tracing's: of the 100 spaced calls (records 6000 x33,
# 7000 x34, 8000 x33) each loses record - 5000 + 600 - 2000, at least 0:
# (34 x 600 + 33 x 1600) / 100 = 732 a call (2600 without); their median
# record 7000 is then what 5000 + 2000 expects: no slow-process line
"$mk" "$db.slowrefl.db" calibrated_slow_ref_launch || { echo "FAIL: callsite_mkdb calibrated_slow_ref_launch"; exit 1; }
out=$("$gs" report --reference "$db.slowrefl.db" "$db.slow.db" | tr -s ' \n' '  ') || { echo "FAIL: report --reference (launch) exit $?"; exit 1; }
expect "$out" "732 ns per launch call, 100 after host work against the program's own untraced launch (6.000 us in the reference runs, the calibration's 4.000 us)"
case $out in *"launch calls after host work took"*) echo "FAIL: launches the reference runs found dearer still read as a slow process"; fail=1 ;; *) echo "ok: no slow-process line where the program's launches are dearer" ;; esac
expect "$("$gs" report --json --reference "$db.slowrefl.db" "$db.slow.db" | tr -d ' \n')" '"per_call_ns":732,'
expect "$("$gs" report --json --reference "$db.slowrefl.db" "$db.slow.db" | tr -d ' \n')" '"slow_process":false,"program_spaced_launch_ns":6000,"plain_spaced_launch_ns":4000'
expect "$("$gs" report --json --reference "$db.slowref.db" "$db.slow.db" | tr -d ' \n')" '"slow_process":true,"program_spaced_launch_ns":null,"plain_spaced_launch_ns":null'
# 4100 ns: 100 dearer, the median record expected 5100: 1.37x, a slow process
"$mk" "$db.slowrefs.db" calibrated_slow_ref_launch_slow || { echo "FAIL: callsite_mkdb calibrated_slow_ref_launch_slow"; exit 1; }
out=$("$gs" report --reference "$db.slowrefs.db" "$db.slow.db" | tr -s ' \n' '  ') || { echo "FAIL: report --reference (launch, slow) exit $?"; exit 1; }
expect "$out" "this traced process's launch calls after host work took a median record of 7.000 us against 5.100 us expected from the calibration's record and the program's own untraced launch in the reference runs (1.37x): the process ran slower traced, its own code between calls too, which the corrected figures keep "
"$gs" html --reference "$db.slowrefl.db" "$db.slow.db" -o "$db.slowrefl.html" || { echo "FAIL: html --reference (launch) exit $?"; exit 1; }
expect "$(cat "$db.slowrefl.html")" "732 ns per launch call, 100 after host work against the program's own untraced launch (6 µs in the reference runs, the calibration's 4 µs), 100 ns per kernel"
expect "$(cat "$db.slow.html")" "2.6 µs per launch call, 100 after host work against the calibration's such launch, 100 ns per kernel"
# both reference runs: their nearest-rank median, the lower of two (4100);
# a reference run without launch figures does not count
expect "$("$gs" report --json --reference "$db.slowrefl.db" --reference "$db.slowrefs.db" --reference "$db.slowref.db" "$db.slow.db" | tr -d ' \n')" '"program_spaced_launch_ns":4100,'
"$gs" html --reference "$db.slowrefs.db" "$db.slow.db" -o "$db.slowrefs.html" || { echo "FAIL: html --reference (launch, slow) exit $?"; exit 1; }
expect "$(cat "$db.slowrefs.html")" "This traced process's launch calls after host work took a median record of 7 µs against 5.1 µs expected from the calibration's record and the program's own untraced launch in the reference runs (1.37&times;): the process ran slower traced"
exit $fail
