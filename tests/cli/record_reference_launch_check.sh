#!/usr/bin/env bash
# record_reference_launch_check.sh <gapscope> <standin-lib> <interposer> <program> <runtime> <user-lib> <work-dir>
# - `gapscope record --reference` times the program's own launch calls in
# its untraced reference runs, without a GPU: the collector folder holds a
# stand-in collector and libgs_launch_interpose.so; the program
# (launch_standin.c) makes 400 cudaLaunchKernel calls through a stand-in
# runtime, each after 5 us of its own work, logs its LD_PRELOAD and writes
# its trace itself. Expected: the traced run runs with the user's LD_PRELOAD
# alone and its trace gets no launch figures; each reference run has the
# interposer preloaded before the user's LD_PRELOAD, and its trace gets
# meta reference.launch_calls = 200 (the interposer leaves out a process's
# first 200 calls), reference.launch_spaced_calls = 200 (every call after 5
# us of work: 2 us or more since the previous one), and a mean of 1 us or
# more (the stand-in spends 1 us a call); no temporary file is left. Then the
# same where a library the program dlopen()s with RTLD_LOCAL makes the calls,
# through a runtime of its own (soname libcudart.so.13), loaded in that
# library's scope: the calls still reach it (the program exits 0) and are
# timed.
set -u
gs=$1
standin=$2
interposer=$3
prog=$4
user_pre=$5 # the user's own LD_PRELOAD: the stand-in runtime (loaded anyway)
user_lib=$6
work=$7
rm -rf "$work"
mkdir -p "$work/lib" "$work/tmp"
work=$(cd "$work" && pwd -P)
cp "$standin" "$work/lib/libgapscope.so"
cp "$interposer" "$work/lib/libgs_launch_interpose.so"
cd "$work" || exit 99
export GAPSCOPE_LIB=$work/lib/libgapscope.so RUN_LOG=$work/runs.log TMPDIR=$work/tmp LD_PRELOAD=$user_pre
# a sanitizer build's gapscope now starts with a library preloaded before
# its sanitizer runtime (the test's, not a user's concern): let it
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
unset GAPSCOPE_ACTIVITIES GAPSCOPE_CALLSITES GAPSCOPE_OUTPUT CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH
fail=0
"$gs" record --no-calibrate --reference 2 -o "$work/t.db" -- "$prog" >out.txt 2>err.txt
rc=$?
echo "--- exit code: $rc"; echo "--- stderr:"; cat err.txt; echo "--- runs.log:"; cat runs.log
[ "$rc" = 0 ] || { echo "FAIL: exit code $rc"; fail=1; }
grep -qx "gapscope: untraced reference run 1 of 2 (NVTX ranges only; launch calls timed from outside)" err.txt &&
  echo "ok: record says the reference runs' launch calls are timed" || { echo "FAIL: no such line in stderr"; fail=1; }
grep -q "made no launch call" err.txt && { echo "FAIL: record says no launch call was timed"; fail=1; }
want="preload=$user_pre act=unset
preload=$work/lib/libgs_launch_interpose.so:$user_pre act=nvtx
preload=$work/lib/libgs_launch_interpose.so:$user_pre act=nvtx"
if ! diff -u <(printf '%s\n' "$want") runs.log; then echo "FAIL: runs.log"; fail=1; fi
meta() { "$prog" --meta "$1" "$2"; }
for k in launch_calls launch_spaced_calls launch_spaced_mean_ns; do
  v=$(meta t.db "reference.$k")
  [ "$v" = none ] && echo "ok: the traced run's trace has no reference.$k" ||
    { echo "FAIL: the traced run's trace has reference.$k = $v"; fail=1; }
done
for r in 1 2; do
  v=$(meta "t.ref$r.db" reference.launch_calls)
  [ "$v" = 200 ] && echo "ok: ref$r launch_calls 200" || { echo "FAIL: ref$r launch_calls $v, expected 200"; fail=1; }
  v=$(meta "t.ref$r.db" reference.launch_spaced_calls)
  [ "$v" = 200 ] && echo "ok: ref$r launch_spaced_calls 200" || { echo "FAIL: ref$r launch_spaced_calls $v, expected 200"; fail=1; }
  v=$(meta "t.ref$r.db" reference.launch_spaced_mean_ns)
  [ "$v" != none ] && [ "$v" -ge 1000 ] && [ "$v" -le 30000 ] && echo "ok: ref$r launch_spaced_mean_ns $v (1000..30000)" ||
    { echo "FAIL: ref$r launch_spaced_mean_ns $v, expected 1000..30000"; fail=1; }
  v=$(meta "t.ref$r.db" reference.launch_b2b_calls)
  [ "$v" = 0 ] && echo "ok: ref$r launch_b2b_calls 0" || { echo "FAIL: ref$r launch_b2b_calls $v, expected 0"; fail=1; }
done
# gapscope info shows them (the key less its reference. prefix)
"$gs" info t.ref1.db >info.txt 2>/dev/null
grep -Eq '^  launch_spaced_calls +200$' info.txt && echo "ok: info shows launch_spaced_calls 200" ||
  { echo "FAIL: gapscope info does not show launch_spaced_calls 200:"; cat info.txt; fail=1; }
"$gs" info --json t.ref1.db 2>/dev/null | tr -d ' \n' | grep -q '"reference":{"launch_b2b_calls":"0","launch_b2b_mean_ns":"0","launch_calls":"200","launch_spaced_calls":"200"' &&
  echo "ok: info --json reference" || { echo "FAIL: info --json has no reference object as expected"; fail=1; }
# launches from a library in a local scope (a Python extension's way)
RUN_LOG=$work/runs2.log "$gs" record --no-calibrate --reference 1 -o "$work/l.db" -- "$prog" --local "$user_lib" >out2.txt 2>err2.txt
rc=$?
echo "--- local scope: exit code $rc"; cat err2.txt
[ "$rc" = 0 ] && echo "ok: the program's launches from a local scope reached the runtime" ||
  { echo "FAIL: record --reference of the local-scope program exited $rc"; fail=1; }
v=$(meta l.ref1.db reference.launch_calls)
[ "$v" = 200 ] && echo "ok: local scope: ref1 launch_calls 200" || { echo "FAIL: local scope: ref1 launch_calls $v, expected 200"; fail=1; }
# 50 launches: too few to time (the first 200 are left out); record says so
RUN_LOG=$work/runs3.log "$gs" record --no-calibrate --reference 1 -o "$work/f.db" -- "$prog" --calls 50 >out3.txt 2>err3.txt
rc=$?
echo "--- too few: exit code $rc"; cat err3.txt
[ "$rc" = 0 ] || { echo "FAIL: record --reference of 50 launches exited $rc"; fail=1; }
grep -qx "gapscope: the reference runs made no launch call the dynamic linker could time (200 or fewer, or a CUDA runtime linked statically); the report corrects with the calibration's launch" err3.txt &&
  echo "ok: record says none was timed" || { echo "FAIL: no line saying none was timed"; fail=1; }
v=$(meta f.ref1.db reference.launch_calls)
[ "$v" = none ] && echo "ok: too few: no launch figures" || { echo "FAIL: too few: reference.launch_calls $v"; fail=1; }
# preloaded by hand (bench/accuracy/run_realpairs.sh's way), the line names the file
# its process runs, so that a reader can tell it from gapscope-calibrate's,
# whose rounds run as /proc/self/exe: here the program is started through a
# link named exe, and the line still names the program
ln -sf "$prog" "$work/exe"
GS_INTERPOSE_OUT=$work/ip.txt LD_PRELOAD=$work/lib/libgs_launch_interpose.so:$user_pre \
  RUN_LOG=$work/runs4.log GAPSCOPE_OUTPUT=$work/h.db "$work/exe" >out4.txt 2>err4.txt
line=$(cat ip.txt 2>/dev/null)
case $line in
"launch_interpose pid="*" calls=200 "*" exe=$(basename "$prog")") echo "ok: the line names the program: $line" ;;
*) echo "FAIL: interposer line: '$line', expected calls=200 ... exe=$(basename "$prog")"; fail=1 ;;
esac
left=$(ls tmp)
[ -z "$left" ] && echo "ok: no temporary file left" || { echo "FAIL: left in TMPDIR: $left"; fail=1; }
exit $fail
