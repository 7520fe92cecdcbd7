#!/usr/bin/env bash
# record_reference_check.sh <gapscope> <standin-lib> <work-dir> <case> - `gapscope
# record --reference N` without a GPU: the program is a stand-in script
# that appends one line per run to a log (its arguments, working directory
# and the GAPSCOPE_* values the collector would read) and writes its trace
# file itself. The expected lines are the spec of the reference runs: after
# a traced run that exited 0, N more runs with the same arguments and
# directory, GAPSCOPE_ACTIVITIES=nvtx, GAPSCOPE_CALLSITES=0, no
# GAPSCOPE_CALIBRATION (nor the traced run's --latency/--graph-level), each
# to the template with .ref<K> before its .db; none after a failed traced
# run; a failing reference run stops the rest and gives record its status.
# --capture-range reaches every run (its bad values: one line, exit 2).
# The collector folder holds a stand-in gapscope-calibrate, so the traced
# run gets a calibration and the test sees that the reference runs do not.
set -u
gs=$1
standin=$2
work=$3
case=$4
rm -rf "$work"
mkdir -p "$work/lib"
work=$(cd "$work" && pwd -P)
cp "$standin" "$work/lib/libgapscope.so"
cat >"$work/lib/gapscope-calibrate" <<'EOF'
#!/bin/sh
echo GAPSCOPE_CALIBRATION=standin-calibration
EOF
# prog.sh TRACED-EXIT REFERENCE-EXIT [SIGNAL]: exits with the first status in
# the traced run (GAPSCOPE_ACTIVITIES not nvtx), the second in a reference run;
# with a third argument the traced run kills itself with that signal instead.
cat >"$work/prog.sh" <<'EOF'
#!/usr/bin/env bash
printf 'args=%s cwd=%s act=%s cs=%s cal=%s lat=%s gl=%s out=%s%s\n' "$*" "$(pwd -P)" \
  "${GAPSCOPE_ACTIVITIES-unset}" "${GAPSCOPE_CALLSITES-unset}" \
  "${GAPSCOPE_CALIBRATION-unset}" "${GAPSCOPE_LATENCY-unset}" \
  "${GAPSCOPE_GRAPH_LEVEL-unset}" "${GAPSCOPE_OUTPUT-unset}" \
  "${GAPSCOPE_CAPTURE_RANGE+ cr=$GAPSCOPE_CAPTURE_RANGE}" >>"$RUN_LOG"
echo x >"${GAPSCOPE_OUTPUT//%p/$$}"
if [ "${GAPSCOPE_ACTIVITIES-}" = nvtx ]; then
  exit "$2"
fi
[ $# -ge 3 ] && kill -s "$3" $$
exit "$1"
EOF
chmod +x "$work/lib/gapscope-calibrate" "$work/prog.sh"
cd "$work" || exit 99

export GAPSCOPE_LIB=$work/lib/libgapscope.so RUN_LOG=$work/runs.log
# a value left in the environment must not reach the reference runs either
export GAPSCOPE_CALIBRATION=from-the-environment
unset GAPSCOPE_ACTIVITIES GAPSCOPE_CALLSITES GAPSCOPE_LATENCY GAPSCOPE_GRAPH_LEVEL \
  GAPSCOPE_OUTPUT GAPSCOPE_CAPTURE_RANGE CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH

fail=0
# run WANT-RC -- record-args...: runs gapscope record, checks its exit code
run() {
  local want=$1
  shift 2
  "$gs" record "$@" >out.txt 2>err.txt
  rc=$?
  echo "--- gapscope record $*"
  echo "--- exit code: $rc"
  echo "--- stdout:"; cat out.txt
  echo "--- stderr:"; cat err.txt
  echo "--- runs.log:"; cat runs.log 2>/dev/null
  echo "---"
  [ "$rc" = "$want" ] || { echo "FAIL: exit code $rc, expected $want"; fail=1; }
  [ -s out.txt ] && { echo "FAIL: stdout is not empty"; fail=1; }
}
# same FILE EXPECTED-TEXT: FILE must hold exactly these lines
same() {
  if ! diff -u <(printf '%s\n' "$2") "$1"; then
    echo "FAIL: $1 is not as expected"; fail=1
  fi
}
# matches FILE RE...: FILE must have one line per RE, each matching it whole
matches() {
  local f=$1 i=1 re
  shift
  [ "$(wc -l <"$f")" = $# ] || { echo "FAIL: $f has $(wc -l <"$f") lines, expected $#"; fail=1; }
  for re in "$@"; do
    sed -n "${i}p" "$f" | grep -Exq -- "$re" || { echo "FAIL: line $i of $f does not match: $re"; fail=1; }
    i=$((i + 1))
  done
}

w=$work
case $case in
runs)
  # traced run with the defaults (calibrated), then two reference runs
  run 0 -- --reference 2 -o "$w/t.db" -- "$w/prog.sh" 0 0
  same runs.log "args=0 0 cwd=$w act=unset cs=unset cal=standin-calibration lat=unset gl=unset out=$w/t.db
args=0 0 cwd=$w act=nvtx cs=0 cal=unset lat=unset gl=unset out=$w/t.ref1.db
args=0 0 cwd=$w act=nvtx cs=0 cal=unset lat=unset gl=unset out=$w/t.ref2.db"
  same err.txt "gapscope: trace written to $w/t.db
gapscope: untraced reference run 1 of 2 (NVTX ranges only)
gapscope: trace written to $w/t.ref1.db
gapscope: untraced reference run 2 of 2 (NVTX ranges only)
gapscope: trace written to $w/t.ref2.db"
  ;;
traced_options)
  # the tracing options reach the traced run only; a relative template
  # with %p: .ref1 before the .db, the program gets it absolute
  run 0 -- --reference 1 -o 't-%p.db' --activities kernel,runtime --latency --graph-level \
    --no-callsites --no-calibrate -- "$w/prog.sh" 0 0
  same runs.log "args=0 0 cwd=$w act=kernel,runtime cs=0 cal=unset lat=1 gl=1 out=$w/t-%p.db
args=0 0 cwd=$w act=nvtx cs=0 cal=unset lat=unset gl=unset out=$w/t-%p.ref1.db"
  matches err.txt 'gapscope: trace written to t-[0-9]+\.db' \
    'gapscope: untraced reference run 1 of 1 \(NVTX ranges only\)' \
    'gapscope: trace written to t-[0-9]+\.ref1\.db'
  ;;
no_db_suffix)
  # a template without .db gets .ref<K>.db appended; names as given
  run 0 -- --reference 1 -o trace -- "$w/prog.sh" 0 0
  same runs.log "args=0 0 cwd=$w act=unset cs=unset cal=standin-calibration lat=unset gl=unset out=$w/trace
args=0 0 cwd=$w act=nvtx cs=0 cal=unset lat=unset gl=unset out=$w/trace.ref1.db"
  same err.txt "gapscope: trace written to trace
gapscope: untraced reference run 1 of 1 (NVTX ranges only)
gapscope: trace written to trace.ref1.db"
  ;;
traced_fails)
  # the traced run exits 3: it ran once, no reference run, record exits 3
  run 3 -- --reference 2 -o "$w/t.db" -- "$w/prog.sh" 3 0
  same runs.log "args=3 0 cwd=$w act=unset cs=unset cal=standin-calibration lat=unset gl=unset out=$w/t.db"
  same err.txt "gapscope: trace written to $w/t.db
gapscope: the program failed (exit status 3); the untraced reference runs were skipped"
  ;;
traced_killed)
  # the traced run is killed by SIGTERM: no reference run, record exits 143
  run 143 -- --reference 2 -o "$w/t.db" -- "$w/prog.sh" 0 0 TERM
  same runs.log "args=0 0 TERM cwd=$w act=unset cs=unset cal=standin-calibration lat=unset gl=unset out=$w/t.db"
  same err.txt "gapscope: trace written to $w/t.db
gapscope: the program failed (killed by signal 15); the untraced reference runs were skipped"
  ;;
reference_fails)
  # the first reference run exits 5: the other two do not run, record exits 5
  run 5 -- --reference 3 -o "$w/t.db" -- "$w/prog.sh" 0 5
  same runs.log "args=0 5 cwd=$w act=unset cs=unset cal=standin-calibration lat=unset gl=unset out=$w/t.db
args=0 5 cwd=$w act=nvtx cs=0 cal=unset lat=unset gl=unset out=$w/t.ref1.db"
  same err.txt "gapscope: trace written to $w/t.db
gapscope: untraced reference run 1 of 3 (NVTX ranges only)
gapscope: trace written to $w/t.ref1.db
gapscope: untraced reference run 1 of 3 failed (exit status 5); the remaining reference runs were skipped"
  ;;
capture_range)
  # --capture-range reaches the traced run and the reference runs alike
  # (their NVTX ranges are then those inside the windows too)
  run 0 -- --reference 1 --capture-range cudaProfilerApi -o "$w/t.db" -- "$w/prog.sh" 0 0
  same runs.log "args=0 0 cwd=$w act=unset cs=unset cal=standin-calibration lat=unset gl=unset out=$w/t.db cr=cudaProfilerApi
args=0 0 cwd=$w act=nvtx cs=0 cal=unset lat=unset gl=unset out=$w/t.ref1.db cr=cudaProfilerApi"
  ;;
capture_range_bad)
  # an unknown range: one line, exit 2, the program does not run
  run 2 -- --capture-range nvtx -o "$w/t.db" -- "$w/prog.sh" 0 0
  [ -e runs.log ] && { echo "FAIL: the program ran"; fail=1; }
  same err.txt "gapscope: record: --capture-range: unknown range 'nvtx' (use cudaProfilerApi, or none for the whole run)"
  ;;
*)
  echo "record_reference_check.sh: unknown case '$case'" >&2
  exit 99
  ;;
esac
[ $fail = 0 ] && echo PASS
exit $fail
