#!/usr/bin/env bash
# run_unwinder_gpu.sh - the call sites' two unwinders (GAPSCOPE_UNWINDER) on
# real CUDA programs, on the GPU machine, from the repository root:
#
#   GS_BUILD=build OUT=out bench/overhead/run_unwinder_gpu.sh [rounds (default 5)]
#
# 1. Same frames: records tests/gpu/gs_callsite_copy (C++) and, if python3
#    has torch, tests/gpu/callsite_train.py (PyTorch) once with each
#    unwinder (GAPSCOPE_NATIVE_FRAMES=always, so the Python program's captures
#    walk them too), and once with the default (native frames only where no
#    Python frame: the capture times say what that saves), and compares the native frames of every call site (module and
#    offset, in order) between the two traces of a program: PASS when both
#    hold the same distinct stacks. Prints the unwinder each trace says it
#    used and the median capture time (api_stacks.capture_end - start).
# 2. Cost: bench/overhead/overhead_pairs.py on the launch loops (launch_sync makes a
#    blocking call per kernel), untraced against the default recording (libunwind's
#    unwinder where it loads), GAPSCOPE_UNWINDER=libgcc and
#    GAPSCOPE_CALLSITES=0, in interleaved rounds.
# Where the machine has no libunwind.so.8, one in ${GS_BUILD}/lib/unw (copied
# there from the build machine) is put on LD_LIBRARY_PATH.
# Exits 77 without a GPU, 1 if the frames differ or a recording failed. The
# cost part prints figures; it does not pass or fail on them.
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
OUT=${OUT:-out}
ROUNDS=${1:-5}
W="$OUT/unwinder"
gs="$B/bin/gapscope"
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu
mkdir -p "$W"
if ldconfig -p | grep -q 'libunwind\.so\.8 '; then
	echo "INFO: libunwind.so.8 is installed here"
elif [ -f "$B/lib/unw/libunwind.so.8" ]; then
	echo "INFO: no libunwind.so.8 here: using $B/lib/unw"
	export LD_LIBRARY_PATH="$PWD/$B/lib/unw${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
	echo "INFO: no libunwind.so.8 here: the default recording uses libgcc's unwinder"
fi
fail=0
result() { if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=$((fail + 1)); fi; }

# same_frames NAME CMD...: one recording per unwinder, frames compared
same_frames() {
	local name=$1 u
	shift
	for u in libunwind libgcc; do
		GAPSCOPE_NATIVE_FRAMES=always GAPSCOPE_UNWINDER=$u "$gs" record -o "$W/$name.$u.db" \
			-- "$@" > "$W/$name.$u.log" 2>&1
		result $? "$name: record with GAPSCOPE_UNWINDER=$u (log: $W/$name.$u.log)"
	done
	# the default: native frames only where a capture finds no Python frame
	GAPSCOPE_UNWINDER=libgcc "$gs" record -o "$W/$name.auto.db" -- "$@" > "$W/$name.auto.log" 2>&1
	result $? "$name: record with GAPSCOPE_NATIVE_FRAMES=auto, libgcc (log: $W/$name.auto.log)"
	python3 - "$W/$name.auto.db" "$name" <<'PY'
import sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
t = [e - b for b, e in db.execute("select capture_start, capture_end from api_stacks "
                                  "where capture_start > 0 and capture_end >= capture_start")]
n = db.execute("select count(*) from api_stacks a where exists (select 1 from stack_frames f "
               "where f.stack_id = a.stack_id and f.kind = 1)").fetchone()[0]
print(f"INFO: {sys.argv[2]}: GAPSCOPE_NATIVE_FRAMES=auto with libgcc: {len(t)} captures, "
      f"median {statistics.median(t) if t else 0:.0f} ns, {n} with native frames")
PY
	python3 - "$W/$name.libunwind.db" "$W/$name.libgcc.db" "$name" <<'PY'
import sqlite3, statistics, sys
def sites(path):
    db = sqlite3.connect(path)
    meta = dict(db.execute("select key, value from meta where key like '%unwinder%'"))
    s = lambda i: db.execute("select value from strings where id=?", (i,)).fetchone()[0] if i else ""
    frames = {}
    for sid, m, o in db.execute("select stack_id, module_id, offset from stack_frames "
                                "where kind=1 order by stack_id, depth"):
        frames.setdefault(sid, []).append((s(m).rsplit("/", 1)[-1], o))
    calls = [tuple(frames.get(sid, [])) for (sid,) in db.execute("select stack_id from api_stacks")]
    took = [e - b for b, e in db.execute("select capture_start, capture_end from api_stacks "
                                         "where capture_start > 0 and capture_end >= capture_start")]
    return meta, calls, took
(mu, a, ta), (mg, b, tb) = sites(sys.argv[1]), sites(sys.argv[2])
name = sys.argv[3]
med = lambda t: f"{statistics.median(t):.0f} ns" if t else "-"
print(f"INFO: {name}: meta {mu} | {mg}")
print(f"INFO: {name}: call sites {len(a)} | {len(b)}, distinct native stacks {len(set(a))} | {len(set(b))}")
print(f"INFO: {name}: capture time (median of capture_end - capture_start, the whole capture "
      f"with Python frames) libunwind {med(ta)}, libgcc {med(tb)}")
# module + offset do not depend on where the modules were loaded, so the
# two processes' stacks compare as they are
only_u, only_g = set(a) - set(b), set(b) - set(a)
for st in list(only_u)[:2]:
    print(f"  only with libunwind: {st[:8]}")
for st in list(only_g)[:2]:
    print(f"  only with libgcc:    {st[:8]}")
ok = a and not only_u and not only_g and mu.get("collector.unwinder") == "libunwind"
print(("PASS" if ok else "FAIL") + f": {name}: the same distinct native stacks with both unwinders"
      + ("" if mu.get("collector.unwinder") == "libunwind" else " (libunwind was not used)"))
sys.exit(0 if ok else 1)
PY
	[ $? = 0 ] || fail=$((fail + 1))
}

same_frames copy "$B/bin/gs_callsite_copy"
have_torch=0
python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && have_torch=1
[ $have_torch = 1 ] && same_frames train python3 tests/gpu/callsite_train.py

# the launch loops only: torch_nosync makes no blocking call in its steps
wl=launch
echo "=== cost: overhead_pairs.py --workloads $wl --rounds $ROUNDS"
python3 bench/overhead/overhead_pairs.py --build "$B" --rounds "$ROUNDS" --workloads "$wl" --values \
	--out "$W/pairs" --config default= --config libgcc=GAPSCOPE_UNWINDER=libgcc \
	--config nocallsites=GAPSCOPE_CALLSITES=0
result $? "overhead pairs ran"
rm -f "$W"/pairs/*.db
echo "$fail failed"
[ $fail = 0 ]
