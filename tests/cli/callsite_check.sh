#!/bin/sh
# callsite_check.sh GAPSCOPE MKDB DB [PYTHON3] - the report names call
# sites, and --by-site totals them (values worked out by hand in
# callsite_mkdb.c); --json carries the same sites (checked with PYTHON3's
# json module; skipped, and said so, without it), and the HTML page shows
# them escaped.
set -u
gs=$1 mk=$2 db=$3 py=${4:-}
fail=0
"$mk" "$db" || { echo "FAIL: callsite_mkdb"; exit 1; }
out=$("$gs" report "$db") || { echo "FAIL: report exit $?"; exit 1; }
expect() { # text, pattern (fixed string)
	if printf '%s\n' "$1" | grep -qF -- "$2"; then echo "ok: $2"; else echo "FAIL: missing: $2"; fail=1; fi
}
expect "$out" 'at train.py:27 (in `train_one_epoch`): 1 call, 7.900 us GPU idle'
expect "$out" 'at `copy_results_back` in demo+0x1a2b: 1 call, 6.900 us GPU idle'
out=$("$gs" report --by-site "$db") || { echo "FAIL: report --by-site exit $?"; exit 1; }
expect "$out" '7.900 us       7.900 us        1      1  train.py:27 (in `train_one_epoch`) / cudaStreamSynchronize'
expect "$out" '6.900 us       6.900 us        1      1  `copy_results_back` in demo+0x1a2b / cudaMemcpy'
expect "$out" '2.100 us           0 ns        0      1  train.py:30 (in `train_one_epoch`) / cudaLaunchKernel'
# a gap crossing 40 more CUDA calls keeps its late launch's whole host-late
# time, past its 64th segment (callsite_mkdb.c, "many_calls")
"$mk" "$db.many.db" many_calls || { echo "FAIL: callsite_mkdb many_calls"; exit 1; }
out=$("$gs" report --by-site "$db.many.db") || { echo "FAIL: report --by-site (many) exit $?"; exit 1; }
expect "$out" '2.100 us           0 ns        0      1  train.py:30 (in `train_one_epoch`) / cudaLaunchKernel'
# a PyTorch frame: the C++ symbol in its short demangled form, and the
# Python call that runs it (callsite_mkdb.c, "aten")
"$mk" "$db.aten.db" aten || { echo "FAIL: callsite_mkdb aten"; exit 1; }
out=$("$gs" report --full-names "$db.aten.db") || { echo "FAIL: report (aten) exit $?"; exit 1; }
expect "$out" 'at `at::native::_local_scalar_dense_cuda` (PyTorch: tensor.item() / float(tensor)) in libtorch_cuda.so+0x1a2b: 1 call, 6.900 us GPU idle'
out=$("$gs" report --by-site "$db") || { echo "FAIL: report --by-site exit $?"; exit 1; }
# top site first
first=$(printf '%s\n' "$out" | grep -A2 'GPU idle by call site' | tail -1)
case $first in *train.py:27*) echo "ok: top site first" ;; *) echo "FAIL: top site: $first"; fail=1 ;; esac

# samples (callsite_mkdb.c, "sampled"): the gap's host code named by them,
# --by-site's host code by what ran; a trace without samples says so
"$mk" "$db.sampled.db" sampled || { echo "FAIL: callsite_mkdb sampled"; exit 1; }
out=$("$gs" report --full-names "$db.sampled.db") || { echo "FAIL: report (sampled) exit $?"; exit 1; }
expect "$out" '1.000 us host code on thread 11: 75% u/train.py:prepare line 35, 25% torch/_tensor.py:item line 41, then 1.000 us launch latency'
expect "$out" '500 ns host code on thread 11: 100% u/train.py:prepare line 35, then 500 ns launch latency'
out=$("$gs" report --by-site "$db.sampled.db") || { echo "FAIL: report --by-site (sampled) exit $?"; exit 1; }
expect "$out" "Host code by what ran (5 samples of the launching threads in it, 100% with a frame; 20% the framework's dispatch):"
expect "$out" '     80.0%              4  u/train.py:prepare line 35'
expect "$out" '     20.0%              1  torch/_tensor.py:item line 41  [framework]'
# how much of a segment its thread ran: its samples there times the CPU time each stands
# for. The timer source: the sampled threads' CPU time over the samples taken, 125 ns / 5
# = 25 ns; 4 samples in the 1 us segment are 10% of it, 1 in the 500 ns one 5%
cp "$db.sampled.db" "$db.running.db" && sqlite3 "$db.running.db" "INSERT OR REPLACE INTO meta
	VALUES('samples.clock','thread CPU time (timer, at the kernel tick)'),('samples.cpu_ns','125'),('samples.taken','5')" ||
	{ echo "FAIL: sqlite3 on $db.running.db"; exit 1; }
out=$("$gs" report --full-names "$db.running.db") || { echo "FAIL: report (running) exit $?"; exit 1; }
expect "$out" '1.000 us host code on thread 11 (running 10% of it): 75% u/train.py:prepare line 35, 25% torch/_tensor.py:item line 41, then'
expect "$out" '500 ns host code on thread 11 (running 5% of it): 100% u/train.py:prepare line 35, then'
out=$("$gs" report --by-site "$db.running.db") || { echo "FAIL: report --by-site (running) exit $?"; exit 1; }
expect "$out" "Host code by what ran (5 samples of the launching threads in it, 100% with a frame; 20% the framework's dispatch; the threads ran 8% of it):"
if [ -n "$py" ]; then # the same in JSON: the segments' running_share, and over both
	"$gs" report --json --by-site "$db.running.db" >"$db.running.json" ||
		{ echo "FAIL: report --json (running) exit $?"; exit 1; }
	"$py" - "$db.running.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
runs = sorted(s["running_share"] for g in d["devices"][0]["top_gaps"] for s in g["segments"]
              if "running_share" in s)
# 4 x 25 of 1000 ns, 1 x 25 of 500. Over all the host code: those and the 100 ns at 13000
# (no sample; thread 11 sampled since 5000), not the 100 ns at 2000 (before its first
# sample): 125 of 1600 ns
both = d["host_code_by_code"]["running_share"]
ok = runs == [0.05, 0.1] and abs(both - 125 / 1600) < 1e-9
print(("ok" if ok else "FAIL") + ": --json running_share %s, over both %s" % (runs, both))
sys.exit(0 if ok else 1)
PY
fi
# perf_event: a sample every 1/HZ s of user time, here 1 MHz asked, 1 us: under 20 of them
# in either segment, too coarse to tell, so nothing is said (not 25 ns from the CPU time)
sqlite3 "$db.running.db" "INSERT OR REPLACE INTO meta VALUES('samples.clock','thread task-clock (perf_event)'),
	('config.sample_hz','1000000')" || { echo "FAIL: sqlite3 on $db.running.db"; exit 1; }
out=$("$gs" report --full-names "$db.running.db") || { echo "FAIL: report (running, perf) exit $?"; exit 1; }
expect "$out" '1.000 us host code on thread 11: 75% u/train.py:prepare line 35'
# both sources in one run (past 64 threads the timer takes over): which thread had which
# is not kept, so nothing is said either
sqlite3 "$db.running.db" "INSERT OR REPLACE INTO meta VALUES('samples.clock',
	'mixed: thread task-clock (perf_event) for 64 threads, thread CPU-time timer for 2'),
	('config.sample_hz','1000')" || { echo "FAIL: sqlite3 on $db.running.db"; exit 1; }
out=$("$gs" report --full-names "$db.running.db") || { echo "FAIL: report (running, mixed) exit $?"; exit 1; }
expect "$out" '1.000 us host code on thread 11: 75% u/train.py:prepare line 35'
# info: the samples table's rows (7: 6 of thread 11, 1 of 12) and the sampler's meta
out=$("$gs" info "$db.running.db") || { echo "FAIL: info (running) exit $?"; exit 1; }
expect "$out" '  samples         7'
expect "$out" '  clock                    mixed: thread task-clock (perf_event) for 64 threads, thread CPU-time timer for 2'
expect "$out" '  taken                    5'
# "sampled_via" (callsite_mkdb.c): a line calling into the framework's native code, an
# import named by the program's line that led to it; text, --by-site, HTML, JSON
"$mk" "$db.via.db" sampled_via || { echo "FAIL: callsite_mkdb sampled_via"; exit 1; }
out=$("$gs" report --full-names "$db.via.db") || { echo "FAIL: report (via) exit $?"; exit 1; }
expect "$out" '1.000 us host code on thread 11: 50% u/train.py:prepare line 35 (in the framework), 25% torch/_tensor.py:item line 41, then 1.000 us launch latency'
out=$("$gs" report --by-site "$db.via.db") || { echo "FAIL: report --by-site (via) exit $?"; exit 1; }
expect "$out" "Host code by what ran (5 samples of the launching threads in it, 100% with a frame; 60% the framework's dispatch):"
expect "$out" '     40.0%              2  u/train.py:prepare line 35 (in the framework)  [framework]'
expect "$out" '     20.0%              1  u/train.py:prepare line 35'
expect "$out" '     20.0%              1  imports from u/train.py:prepare line 12'
"$gs" html -o "$db.via.html" "$db.via.db" >/dev/null 2>&1 || { echo "FAIL: html (via) exit $?"; exit 1; }
expect "$(cat "$db.via.html")" '50% u/train.py:prepare line 35 (in the framework), 25% torch/_tensor.py:item line 41'
if [ -n "$py" ]; then
	"$gs" report --json --by-site "$db.via.db" >"$db.via.json" ||
		{ echo "FAIL: report --json --by-site (via) exit $?"; exit 1; }
	"$py" - "$db.via.json" <<'PY' || fail=1
import json, sys
h = json.load(open(sys.argv[1]))["host_code_by_code"]
top = [(t["name"], t["weight"], t["framework"], t["line"], t["via"]) for t in h["top"]]
ok = h["framework"] == 3 and top == [
    ("u/train.py:prepare line 35 (in the framework)", 2, True, 35, "framework"),
    ("torch/_tensor.py:item line 41", 1, True, 41, "frame"),
    ("u/train.py:prepare line 35", 1, False, 35, "frame"),
    ("imports from u/train.py:prepare line 12", 1, False, 12, "import")]
print(("ok" if ok else "FAIL") + ": --json host_code_by_code (via) %s" % top)
sys.exit(0 if ok else 1)
PY
fi
# samples only outside host code (the sync wait's at 5000, thread 12's): said, not silent
cp "$db.sampled.db" "$db.outside.db" &&
	sqlite3 "$db.outside.db" "DELETE FROM samples WHERE t IN (10100, 10200, 10300, 10400, 20100)" ||
	{ echo "FAIL: sqlite3 on $db.outside.db"; exit 1; }
out=$("$gs" report --by-site "$db.outside.db") || { echo "FAIL: report --by-site (outside) exit $?"; exit 1; }
expect "$out" "Host code by what ran: none of the trace's 2 samples lies in the host code of the selection's gaps"
out=$("$gs" report --by-site "$db") || { echo "FAIL: report --by-site exit $?"; exit 1; }
expect "$out" 'Host code by what ran: no samples in the trace (recorded with --no-sampling, or before sampling)'
# off-CPU samples (table wait_samples): thread 11 seen off CPU at stack 4 (prepare line
# 35) for [10100, 10900] (800 ns, inside the 1 us segment [10000, 11000)) and for
# [29900, 30000] (in no host code). Samples weigh time then: the segment holds 4 CPU
# samples x 25 ns = 100 and 800 waited, 900: 89% waiting in prepare (800), prepare's own
# 75 (8%, under the 20% a second item needs). Over all the host code: 6 samples, 5 x 25
# + 800 = 925 ns, waiting 800 (86.5%), prepare 100 (10.8%), item 25 (2.7%, the
# framework's: 3%). In JSON every host-code segment of the top gaps says how much of it
# was seen off CPU: 0.8 of that 1 us, 0 of the other three
cp "$db.sampled.db" "$db.waits.db" && sqlite3 "$db.waits.db" "INSERT OR REPLACE INTO meta
	VALUES('samples.clock','thread CPU time (timer, at the kernel tick)'),('samples.cpu_ns','125'),('samples.taken','5');
	INSERT INTO wait_samples(tid,t,ns,stack_id) VALUES(11,10900,800,4),(11,30000,100,4)" ||
	{ echo "FAIL: sqlite3 on $db.waits.db"; exit 1; }
out=$("$gs" report --full-names "$db.waits.db") || { echo "FAIL: report (waits) exit $?"; exit 1; }
expect "$out" '1.000 us host code on thread 11 (running 10% of it): 89% waiting in u/train.py:prepare line 35, then 1.000 us launch latency'
out=$("$gs" report --by-site --full-names "$db.waits.db") || { echo "FAIL: report --by-site (waits) exit $?"; exit 1; }
expect "$out" "Host code by what ran (6 samples of the launching threads in it, 100% with a frame; 3% the framework's dispatch; the threads ran 8% of it; off CPU 800 ns (86%)):"
expect "$out" '     86.5%         800 ns  waiting in u/train.py:prepare line 35'
expect "$out" '     10.8%         100 ns  u/train.py:prepare line 35'
if [ -n "$py" ]; then
	"$gs" report --json --by-site "$db.waits.db" >"$db.waits.json" ||
		{ echo "FAIL: report --json (waits) exit $?"; exit 1; }
	"$py" - "$db.waits.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
h = d["host_code_by_code"]
got = {k: h[k] for k in ("unit", "samples", "off_cpu_ns", "total", "framework")}
top = [(t["name"], t["weight"], t["off_cpu"]) for t in h["top"]]
offs = [s["off_cpu_share"] for g in d["devices"][0]["top_gaps"] for s in g["segments"]
        if "off_cpu_share" in s]
ok = (got == {"unit": "ns", "samples": 6, "off_cpu_ns": 800, "total": 925, "framework": 25}
      and top == [("waiting in u/train.py:prepare line 35", 800, True),
                  ("u/train.py:prepare line 35", 100, False),
                  ("torch/_tensor.py:item line 41", 25, False)]
      and sorted(offs) == [0.0, 0.0, 0.0, 0.8])
print(("ok" if ok else "FAIL") + ": --json off-CPU samples %s %s %s" % (got, top, offs))
sys.exit(0 if ok else 1)
PY
fi
"$gs" html -o "$db.sampled.html" "$db.sampled.db" >/dev/null 2>&1 ||
	{ echo "FAIL: html (sampled) exit $?"; exit 1; }
expect "$(cat "$db.sampled.html")" '75% u/train.py:prepare line 35, 25% torch/_tensor.py:item line 41'
if [ -n "$py" ]; then
	"$gs" report --json --by-site "$db.sampled.db" >"$db.sampled.json" ||
		{ echo "FAIL: report --json --by-site (sampled) exit $?"; exit 1; }
	"$py" - "$db.sampled.json" <<'PY' || fail=1
import json, sys
h = json.load(open(sys.argv[1]))["host_code_by_code"]
want = {"source": "samples", "total": 5, "named": 5, "framework": 1}
got = {k: h[k] for k in want}
top = [(t["name"], t["weight"], t["framework"], t["line"], t["via"]) for t in h["top"]]
ok = got == want and top == [("u/train.py:prepare line 35", 4, False, 35, "frame"),
                             ("torch/_tensor.py:item line 41", 1, True, 41, "frame")]
print(("ok" if ok else "FAIL") + ": --json host_code_by_code %s %s" % (got, top))
sys.exit(0 if ok else 1)
PY
fi

# --json: the sites of the sync groups, the findings, and by_site
if [ -n "$py" ]; then
	"$gs" report --json "$db" >"$db.json" || { echo "FAIL: report --json exit $?"; exit 1; }
	"$gs" report --json --by-site "$db" >"$db.site.json" ||
		{ echo "FAIL: report --json --by-site exit $?"; exit 1; }
	"$mk" "$db.esc.db" escape || { echo "FAIL: callsite_mkdb escape"; exit 1; }
	"$gs" report --json "$db.esc.db" >"$db.esc.json" ||
		{ echo "FAIL: report --json (escape) exit $?"; exit 1; }
	"$py" - "$db.json" "$db.site.json" "$db.esc.json" <<'PY' || fail=1
import json, sys
plain, site, esc = (json.load(open(p)) for p in sys.argv[1:4])
bad = 0
def eq(what, got, want):
    global bad
    if got == want:
        print("ok: json " + what)
    else:
        print("FAIL: json %s: %r, want %r" % (what, got, want))
        bad = 1
py27 = {"file": "/home/u/train.py", "line": 27, "function": "train_one_epoch",
        "module": None, "offset": None, "text": "train.py:27 (in `train_one_epoch`)"}
py30 = dict(py27, line=30, text="train.py:30 (in `train_one_epoch`)")
demo = {"file": None, "line": None, "function": "copy_results_back",
        "module": "/opt/app/demo", "offset": 0x1a2b,
        "text": "`copy_results_back` in demo+0x1a2b"}
ex, im = plain["syncs"]["explicit"], plain["syncs"]["implicit"]
eq("explicit sync site", [(g["api"], g["site"], g["site_calls"], g["site_gpu_idle_ns"])
                          for g in ex], [("cudaStreamSynchronize", py27, 1, 7900)])
eq("implicit sync site", [(g["api"], g["site"], g["site_calls"], g["site_gpu_idle_ns"])
                          for g in im], [("cudaMemcpy", demo, 1, 6900)])
eq("no findings (1 call: no rule fires)", plain["verdict"]["findings"], [])
eq("no by_site without --by-site", "by_site" in plain, False)
eq("by_site", site["by_site"], [
    {"idle_ns": 7900, "sync_idle_ns": 7900, "late_idle_ns": 0, "host_blocked_ns": 7900,
     "calls": 1, "gaps": 1, "site": py27, "api": "cudaStreamSynchronize"},
    {"idle_ns": 6900, "sync_idle_ns": 6900, "late_idle_ns": 0, "host_blocked_ns": 6900,
     "calls": 1, "gaps": 1, "site": demo, "api": "cudaMemcpy"},
    {"idle_ns": 2100, "sync_idle_ns": 0, "late_idle_ns": 2100, "host_blocked_ns": 0,
     "calls": 0, "gaps": 1, "site": py30, "api": "cudaLaunchKernel"}])
eq("escaped site", esc["syncs"]["explicit"][0]["site"],
   dict(py27, function='<lambda> & "x"', text='train.py:27 (in `<lambda> & "x"`)'))
sys.exit(bad)
PY
	# a loop whose sync rule fires: the finding names the site
	"$mk" "$db.steps.db" steps || { echo "FAIL: callsite_mkdb steps"; exit 1; }
	"$gs" report --json "$db.steps.db" >"$db.steps.json" ||
		{ echo "FAIL: report --json (steps) exit $?"; exit 1; }
	"$py" - "$db.steps.json" <<'PY' || fail=1
import json, sys
f = json.load(open(sys.argv[1]))["verdict"]["findings"]
got = [(x["rule"], x["cost_ns"], x["api"], x["count"], x["site"]) for x in f]
want = [("sync_every_step", 140600, "cudaStreamSynchronize", 20,
         {"file": "/home/u/train.py", "line": 27, "function": "train_one_epoch",
          "module": None, "offset": None, "text": "train.py:27 (in `train_one_epoch`)"})]
if got == want:
    print("ok: json finding site")
else:
    print("FAIL: json findings: %r, want %r" % (got, want))
    sys.exit(1)
PY
	# the escaped quote as jansson writes it
	expect "$(cat "$db.esc.json")" '"text": "train.py:27 (in `<lambda> & \"x\"`)"'
else
	echo "skip: --json checks (no python3)"
	"$mk" "$db.esc.db" escape || { echo "FAIL: callsite_mkdb escape"; exit 1; }
	"$mk" "$db.steps.db" steps || { echo "FAIL: callsite_mkdb steps"; exit 1; }
fi
out=$("$gs" report "$db.steps.db") || { echo "FAIL: report (steps) exit $?"; exit 1; }
# --range: only the 5 syncs inside the range "first5", 6.9 us of sync wait
# each (sync [b+2100, b+9000]): 34.5 us, 5 calls, 5 gaps (20 calls without)
site=$("$gs" report --by-site --range first5 "$db.steps.db") ||
	{ echo "FAIL: report --by-site --range exit $?"; exit 1; }
expect "$site" '         34.500 us      34.500 us        5      5  train.py:27 (in `train_one_epoch`) / cudaStreamSynchronize'
# a range that matches nothing: the trace has sites, the selection none
site=$("$gs" report --by-site --range nosuchrange "$db.steps.db") ||
	{ echo "FAIL: report --by-site --range nosuchrange exit $?"; exit 1; }
expect "$site" '  no blocking call or late launch with a call site in the selection'
# a trace recorded before call sites (the bundled sample): says so
old="$(dirname "$0")/../../samples/h200-decode-starvation.db"
site=$("$gs" report --by-site "$old") || { echo "FAIL: report --by-site (sample) exit $?"; exit 1; }
expect "$site" '  no call sites recorded (GAPSCOPE_CALLSITES=0, or a trace recorded before call sites)'
# after the site, the thread only whole (it fits with neither): the site in full
expect "$out" '  1. a sync every step drains the GPU: 140.600 us (73.6%), cudaStreamSynchronize x20 at train.py:27 (in `train_one_epoch`) -> sync every N steps, not every step'
# what the fix buys, replayed (docs/metrics.md, "The what-if model"): one
# sync of 10 kept (steps 9 and 19). A dropped sync takes no time, so a step
# is launch 100 + host 1500 + host 1500 = 3100 ns and each kernel starts
# 500 ns after its launch (launch 0 at 500): launch 9 at 28400, its sync
# (kept, its kernel ended at 29900 before it began at 30000) takes its own
# 6900 to 36900, launch 10 at 38400, launch 19 at 38400 + 9 x 3100 = 66300,
# its kernel ends at 67800: window 66800 of 191000, saves 124200 ns (65.0%)
expect "$out" '     (saves ≈ 124 us (65.0%))'

# html: the synchronisation table and the sync rows' tooltips name the
# site, escaped (markup: entities; the timeline's data block: JSON with
# \u003c for <, so no tag can open there; "sites" and the sync row's "s"
# as render_html.c's header describes them)
"$gs" html "$db.esc.db" -o "$db.html" || { echo "FAIL: html exit $?"; exit 1; }
out=$(cat "$db.html")
expect "$out" '<th class="name">call site</th>'
expect "$out" '<td class="name">train.py:27 (in `&lt;lambda&gt; &amp; &quot;x&quot;`) (1 call, 7.9 µs GPU idle)</td>'
expect "$out" '<td class="name">`copy_results_back` in demo+0x1a2b (1 call, 6.9 µs GPU idle)</td>'
# the texts of the sites calls refer to, once each (stacks 1, 2, 3), and
# each sync's index among them in "s"
expect "$out" '"sites":["train.py:27 (in `\u003clambda\u003e \u0026 \"x\"`)","`copy_results_back` in demo+0x1a2b","train.py:30 (in `\u003clambda\u003e \u0026 \"x\"`)"]'
expect "$out" '"k":"sync","d":[1600,7900,2,3,11000,6900,4,16],"s":[0,1]}'
if printf '%s\n' "$out" | grep -qF '<lambda>'; then
	echo "FAIL: unescaped <lambda> in the page"; fail=1
else
	echo "ok: no unescaped site text in the page"
fi
"$gs" html "$db.steps.db" -o "$db.steps.html" || { echo "FAIL: html (steps) exit $?"; exit 1; }
expect "$(cat "$db.steps.html")" 'cudaStreamSynchronize ×20 at train.py:27 (in `train_one_epoch`), thread 11 → <span class="fix">'
# only 5 of the 20 syncs have a captured stack: the verdict says how many
# were made at the site it names
"$mk" "$db.partial.db" steps_partial || { echo "FAIL: callsite_mkdb steps_partial"; exit 1; }
out=$("$gs" report "$db.partial.db") || { echo "FAIL: report (steps_partial) exit $?"; exit 1; }
# (and the site text gives way to the fix: cut at a space, with an ellipsis)
expect "$out" 'cudaStreamSynchronize x20, 5 at train.py:27 (in … -> sync every N steps, not every step'
"$gs" html "$db.partial.db" -o "$db.partial.html" || { echo "FAIL: html (steps_partial) exit $?"; exit 1; }
expect "$(cat "$db.partial.html")" 'cudaStreamSynchronize ×20, 5 at train.py:27 (in `train_one_epoch`), thread 11 → <span class="fix">'
# what the captures cost: a note where they took 0.5% of the window or more
# (20 x 200 ns of a 191 us window: 2.1%), none in the same trace without
# capture times
"$mk" "$db.capt.db" steps_captured || { echo "FAIL: callsite_mkdb steps_captured"; exit 1; }
out=$("$gs" report "$db.capt.db" | tr -s ' \n' '  ') || { echo "FAIL: report (steps_captured) exit $?"; exit 1; }
# its stacks hold Python frames only: no native walk ran, so no unwinder is
# named and no libunwind advised (steps_captured_native below: walked)
expect "$out" "note: the collector's call-site captures (the stacks of blocking calls) took 4.000 us in the program's threads: 20 captures, p50 200 ns, 2.1% of the window, Python frames only (no native walk); the corrected figures take them off where they delayed the GPU. --no-callsites records none"
expect "$("$gs" report --json "$db.capt.db" | tr -d ' \n')" '"callsite_captures":{"count":20,"total_ns":4000,"p50_ns":200,"unwinder":"libgcc","native_walks":0}'
# CUPTI's stalls on the steps' thread: 3000 + 1000 ns (the one on thread 12,
# which made no CUDA call, left out), 2.1% of the window, median 1000
expect "$out" "note: CUPTI's own work on the program's threads (activity buffer requests, buffer flushes, instrumentation) took 4.000 us: 2 spans, p50 1.000 us, 2.1% of the window; the corrected figures take it off where it delayed the GPU"
expect "$("$gs" report --json "$db.capt.db" | tr -d ' \n')" '"cupti_stalls":{"count":2,"total_ns":4000,"p50_ns":1000}'
# without the correction the notes say the figures keep that time
out=$("$gs" report --no-overhead-correction "$db.capt.db" | tr -s ' \n' '  ') || { echo "FAIL: report --no-overhead-correction (steps_captured) exit $?"; exit 1; }
expect "$out" "2.1% of the window, Python frames only (no native walk); the figures keep them: no overhead correction here (no calibration in the trace, or --no-overhead-correction). --no-callsites"
expect "$out" "2.1% of the window; the figures keep it: no overhead correction here (no calibration in the trace, or --no-overhead-correction)"
"$gs" html "$db.capt.db" -o "$db.capt.html" || { echo "FAIL: html (steps_captured) exit $?"; exit 1; }
expect "$(cat "$db.capt.html")" "CUPTI's own work on the program's threads (activity buffer requests, buffer flushes, instrumentation) took 4 µs: 2 spans, p50 1 µs, 2.1% of the window"
expect "$(cat "$db.capt.html")" "The collector's call-site captures (the stacks of blocking calls) took 4 µs in the program's threads: 20 captures, p50 200 ns, 2.1% of the window, Python frames only (no native walk)"
# the same stacks with a native frame: the walk ran, with libgcc's unwinder
"$mk" "$db.captn.db" steps_captured_native || { echo "FAIL: callsite_mkdb steps_captured_native"; exit 1; }
out=$("$gs" report "$db.captn.db" | tr -s ' \n' '  ') || { echo "FAIL: report (steps_captured_native) exit $?"; exit 1; }
expect "$out" "note: the collector's call-site captures (the stacks of blocking calls) took 4.000 us in the program's threads: 20 captures, p50 200 ns, 2.1% of the window, with libgcc's unwinder; the corrected figures take them off where they delayed the GPU. libunwind (Debian: libunwind8) takes 10-18x less a capture; --no-callsites records none"
expect "$("$gs" report --json "$db.captn.db" | tr -d ' \n')" '"callsite_captures":{"count":20,"total_ns":4000,"p50_ns":200,"unwinder":"libgcc","native_walks":20}'
"$gs" html "$db.captn.db" -o "$db.captn.html" || { echo "FAIL: html (steps_captured_native) exit $?"; exit 1; }
# a calibrated trace whose verdict replays a saving: the savings are of the untraced
# program, and the text and the HTML page say so under the findings
expect "$out" "(savings replayed with tracing's cost taken off, as the corrected figures: of the untraced program)"
expect "$(cat "$db.captn.html")" '<p class="why">savings replayed with tracing&#39;s cost taken off, as the corrected figures: of the untraced program</p>'
expect "$(cat "$db.captn.html")" "2.1% of the window, with libgcc's unwinder; the corrected figures take them off where they delayed the GPU. libunwind (Debian: libunwind8) takes 10-18× less a capture"
expect "$("$gs" info "$db.capt.db")" "collector cost    5.000 µs in 40 callbacks, in the program's threads, 4.000 µs of it in 20 call-site captures; call sites: Python frames only (no native walk)"
expect "$("$gs" info --json "$db.capt.db" | tr -d ' \n')" '"collector_cost":{"callback_ns":5000,"callbacks":40,"unwinder":"libgcc","captures":20,"capture_ns":4000,"native_walks":0}'
expect "$("$gs" info "$db.captn.db")" "collector cost    5.000 µs in 40 callbacks, in the program's threads, 4.000 µs of it in 20 call-site captures; call sites walked with libgcc"
expect "$("$gs" info --json "$db.captn.db" | tr -d ' \n')" '"native_walks":20'
case $("$gs" report "$db.steps.db") in *"call-site captures"*) echo "FAIL: a capture note without capture times"; fail=1 ;; *) echo "ok: no capture note without capture times" ;; esac
expect "$("$gs" report --json "$db.steps.db" | tr -d ' \n')" '"callsite_captures":null,"cupti_stalls":null'
exit $fail
