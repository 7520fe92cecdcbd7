#!/usr/bin/env bash
# tools/gpu-call.sh - one GPU call made of parts, each capped to what is left of BUDGET seconds
# (default 280) and packed into $OUT as it ends, so a call cut off still brings back what finished.
# PARTS (default "sampling gputests whatif abacc"), in the order given:
#   sampling  tests/gpu/sampling_gpu.sh with its 5 interleaved cost pairs (up to SAMPLING s, default 165)
#   gputests  tests/gpu/run_gpu_tests.sh (up to GPUTESTS s, default 100), under env GPUTESTS_ENV (e.g. GAPSCOPE_SAMPLING=1)
#   whatif    tests/gpu/whatif_gpu.sh (up to 65 s)
#   abacc     one --ab 5 process per workload read by corrected_accuracy.py ab (issue 52 item 3)
#   peers     overhead_pairs.py: untraced / gapscope default / GAPSCOPE_SAMPLING=1 / torch.profiler
#             CUDA-only, 5 interleaved rounds of the three workloads (issue 52 item 1; up to PEERS s, default 420;
#             PEERS_CONFIGS: other --config arguments); the table is printed after every round
#   crashhunt GPT-2 generate recorded with sampling CRASHRUNS times (default 5) under python3 -X faulthandler:
#             the exit status of each, the log's tail of any that failed (a sampled run exited 139 once, 09:35 UTC)
#   signalcost  bench/overhead/sample_signal_cost.c (bin/gs_bench_sample_signal_cost): the kernel's CPU cost of one
#             sample by source, at 10 kHz and 1 kHz asked, 3 rounds each
#   sharing   bench/real/train_loop.py recorded with torch.multiprocessing's sharing strategy
#             file_descriptor (Linux's default) and file_system, then 4 interleaved untraced rounds of
#             each: the input-stall finding's saving against the measured fix (loop_us)
#   abpair    sampling's cost inside one process: each workload's --ab 5 process under --capture-range with
#             GAPSCOPE_SAMPLING=0 then =1, ABPAIRS times (default 1); the per-round ratios, the medians and
#             corrected_accuracy.py's figures of each (issue 54's cost, issue 52 item 3)
#   abpeer    the peers in one process each (issue 52 item 1, the precise side): each workload's --ab 5
#             process under `record --capture-range cudaProfilerApi` (defaults) and under
#             peer_torchprof.py --windows (torch.profiler, CUDA activities, between the same start/stop),
#             alternating, ABPEERS times (default 2); each process's per-round traced/untraced ratios
#             and their median, then the medians per workload and tool
#   s0diag    GAPSCOPE_SAMPLING=0 under --capture-range (every such process of abpair at 14:05 UTC on
#             2026-12-07 ended without its output, its trace unfinalized): torch_nosync.py --ab 2 under
#             python3 -u -X faulthandler with the exit status, with and without the capture range, with call
#             sites off, and sampling on for comparison; then one run under gdb where the image has it
#   windows   torch_nosync.py --ab 3 under --capture-range with the driver's launch records always on
#             and with GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=windows (issue 52 item 2)
# On the GPU machine, from the repository root, with a build carried by tools/gpu-carry.sh build-gpu .devrun/b:
#   PARTS="sampling gputests" BUDGET=500 OUT=out GS_BUILD=.devrun/b tools/gpu-call.sh
cd "$(dirname "$0")/.." || exit 1
R=${OUT:-out}; export GS_BUILD=${GS_BUILD:-.devrun/b}; T=/tmp/gs1; mkdir -p "$R" $T
gs=$GS_BUILD/bin/gapscope; P="taskset -c 4-11"; S0=$SECONDS; BUDGET=${BUDGET:-280}
left() { echo $((BUDGET - (SECONDS - S0))); }
cap() { local l=$(left); [ $1 -lt $l ] && echo $1 || echo $((l > 5 ? l - 3 : 1)); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; python3 -c 'import torch,sys;print(torch.__version__, sys.version.split()[0])'; } > "$R/info.txt" 2>&1

part_sampling() { # issue 54: checks (a)-(c) and 5 interleaved pairs
	OUT=$T timeout $(cap ${SAMPLING:-165}) bash tests/gpu/sampling_gpu.sh > "$R/sampling.txt" 2>&1
	echo "sampling exit $? at $((SECONDS-S0)) s" >> "$R/sampling.txt"
	(cd $T && tar cJf "$R/sampling.tar.xz" sampling-gpu 2>/dev/null); rm -rf $T/sampling-gpu
	grep -E 'PASS|FAIL|INFO|exit|median|ratio|sampling' "$R/sampling.txt" | cut -c1-300 | tail -30
}
part_gputests() {
	OUT=$T/t timeout $(cap ${GPUTESTS:-100}) env $GPUTESTS_ENV tests/gpu/run_gpu_tests.sh > "$R/gputests.txt" 2>&1
	echo "gputests exit $? at $((SECONDS-S0)) s" >> "$R/gputests.txt"
	grep -E '^FAIL|passed|failed' "$R/gputests.txt" | tail -12
}
part_whatif() { # issue 53 item 4: what-if against measured fixes
	OUT=$T/w timeout $(cap 65) bash tests/gpu/whatif_gpu.sh > "$R/whatif.txt" 2>&1
	echo "whatif exit $? at $((SECONDS-S0)) s" >> "$R/whatif.txt"
	(cd $T/w && tar cJf "$R/whatif.tar.xz" . 2>/dev/null); tail -14 "$R/whatif.txt"
}
part_abacc() { # issue 52 item 3: corrected figures against the same process's untraced phases
	local A=$T/abacc w name prog opt range; mkdir -p $A
	for w in "torch_nosync bench/overhead/torch_nosync.py --ab 5 steps" "hf_generate bench/real/hf_generate.py --ab 5 generate" "train_loop bench/real/train_loop.py --ab 5 step"; do
		[ $(left) -gt 30 ] || break
		set -- $w; name=$1 prog=$2 opt="$3 $4" range=$5
		$P timeout $(cap 60) "$gs" record -o "$A/$name.1.db" --capture-range cudaProfilerApi -- python3 $prog $opt > "$A/$name.1.txt" 2>&1
		"$gs" report --json "$A/$name.1.db" > "$A/$name.1.json" 2>/dev/null
		echo "== $name at $((SECONDS-S0)) s" >> "$R/abacc.txt"
		python3 bench/accuracy/corrected_accuracy.py ab "$A/$name".1.txt --range $range --gapscope "$gs" >> "$R/abacc.txt" 2>&1
		rm -f $A/*.db; (cd $T && tar cJf "$R/abacc.tar.xz" abacc)
	done
	cat "$R/abacc.txt" 2>/dev/null
}
part_sharing() { # the input-stall finding's saving against its fix measured (issue 53)
	local A=$T/sharing i s; mkdir -p $A
	for s in file_descriptor file_system; do
		$P timeout $(cap 90) "$gs" record -o $A/train.$s.db -- python3 bench/real/train_loop.py \
			--steps 150 --sharing $s > $A/train.$s.traced.log 2>&1
		"$gs" report $A/train.$s.db > $A/train.$s.report.txt 2>&1
		echo "== traced $s at $((SECONDS-S0)) s: $(grep -E 'loop_us|step_us' $A/train.$s.traced.log | tr '\n' ' ')" >> "$R/sharing.txt"
		grep -A3 "input stalls" $A/train.$s.report.txt | head -4 >> "$R/sharing.txt"
		(cd $T && tar cJf "$R/sharing.tar.xz" sharing)
	done
	for i in 1 2 3 4; do for s in file_descriptor file_system; do
		[ $(left) -gt 25 ] || break 2
		$P timeout $(cap 60) python3 bench/real/train_loop.py --steps 150 --sharing $s > $A/u.$s.$i.log 2>&1
		echo "untraced $s $i: $(grep -E 'loop_us|step_us' $A/u.$s.$i.log | tr '\n' ' ')" >> "$R/sharing.txt"
	done; done
	(cd $T && tar cJf "$R/sharing.tar.xz" sharing); cat "$R/sharing.txt"
}
part_abpair() {
	local A=$T/abpair w name prog opt range i s; mkdir -p $A
	for i in $(seq ${ABPAIRS:-1}); do
	for w in "torch_nosync bench/overhead/torch_nosync.py --ab 5 steps" "train_loop bench/real/train_loop.py --ab 5 step" "hf_generate bench/real/hf_generate.py --ab 5 generate"; do
		set -- $w; name=$1 prog=$2 opt="$3 $4" range=$5
		for s in 0 1; do
			[ $(left) -gt 30 ] || break 3
			$P timeout $(cap 60) env GAPSCOPE_SAMPLING=$s "$gs" record -o "$A/$name.s$s.$i.db" --capture-range cudaProfilerApi -- python3 $prog $opt > "$A/$name.s$s.$i.txt" 2>&1
			echo "== $name sampling=$s run $i at $((SECONDS-S0)) s" >> "$R/abpair.txt"
			grep -E '^ab (round|median)' "$A/$name.s$s.$i.txt" >> "$R/abpair.txt"
			python3 bench/accuracy/corrected_accuracy.py ab "$A/$name.s$s.$i.txt" --range $range --gapscope "$gs" 2>&1 | sed -n 3p >> "$R/abpair.txt"
			"$gs" info "$A/$name.s$s.$i.db" 2>&1 | grep -iE 'sampl' >> "$R/abpair.txt"
			python3 -c 'import sqlite3,sys; print(" ".join("%s=%s" % r for r in sqlite3.connect(sys.argv[1]).execute("select key,value from meta where key in (\x27samples.faults\x27,\x27samples.dropped\x27)")))' "$A/$name.s$s.$i.db" >> "$R/abpair.txt" 2>&1
			grep -q 'killed by signal' "$A/$name.s$s.$i.txt" && tail -5 "$A/$name.s$s.$i.txt" >> "$R/abpair.txt"
			rm -f $A/*.db; (cd $T && tar cJf "$R/abpair.tar.xz" abpair)
		done
	done; done
	grep -E '^==|median|^[a-z_]+\.s' "$R/abpair.txt"
}
part_abpeer() {
	local A=$T/abpeer w name prog opt i tool m; mkdir -p $A
	for i in $(seq ${ABPEERS:-2}); do
	for w in "torch_nosync bench/overhead/torch_nosync.py --ab 5" "train_loop bench/real/train_loop.py --ab 5" "hf_generate bench/real/hf_generate.py --ab 5"; do
		set -- $w; name=$1 prog=$2 opt="$3 $4"
		for tool in gapscope torchprof; do
			[ $(left) -gt 30 ] || break 3
			if [ $tool = gapscope ]; then
				$P timeout $(cap 60) "$gs" record -o "$A/$name.db" --capture-range cudaProfilerApi -- python3 $prog $opt > "$A/$name.$tool.$i.txt" 2>&1
			else
				$P timeout $(cap 60) python3 bench/overhead/peer_torchprof.py --windows $prog $opt > "$A/$name.$tool.$i.txt" 2>&1
			fi
			echo "exit $?" >> "$A/$name.$tool.$i.txt"; rm -f $A/*.db*
			m=$(grep -o 'median_ratio=[0-9.]*' "$A/$name.$tool.$i.txt" | cut -d= -f2)
			echo "$name $tool run $i: median ${m:-none} ($(grep -o 'ratio=[0-9.]*$' "$A/$name.$tool.$i.txt" | cut -d= -f2 | tr '\n' ' '))" | tee -a "$R/abpeer.txt"
			(cd $T && tar cJf "$R/abpeer.tar.xz" abpeer)
		done
	done; done
	python3 - "$R/abpeer.txt" <<'PY'
import re, statistics, sys
got = {}
for l in open(sys.argv[1]):
    m = re.match(r"(\S+) (\S+) run \d+: median ([\d.]+)", l)
    if m:
        got.setdefault((m[1], m[2]), []).append(float(m[3]))
for (w, t), v in sorted(got.items()):
    print(f"{w:14s} {t:10s} processes {len(v)}  median of medians {statistics.median(v):.3f}  ({' '.join(map(str, v))})")
PY
}
part_s0diag() {
	local tag
	s0run() { tag=$1; shift
		timeout $(cap 40) env "$@" "$gs" record -o $T/$tag.db ${CR:+--capture-range cudaProfilerApi} -- \
			python3 -u -X faulthandler bench/overhead/torch_nosync.py --ab 2 > "$R/s0diag.$tag.txt" 2>&1
		echo "$tag: exit $? at $((SECONDS-S0)) s" | tee -a "$R/s0diag.txt"
		tail -25 "$R/s0diag.$tag.txt" | cut -c1-300
		"$gs" info $T/$tag.db 2>&1 | grep -iE 'sampl|finali|windows' | head -8; rm -f $T/$tag.db*
	}
	CR=1 s0run cr_s0 GAPSCOPE_SAMPLING=0
	CR= s0run nocr_s0 GAPSCOPE_SAMPLING=0
	CR=1 s0run cr_s0_nocs GAPSCOPE_SAMPLING=0 GAPSCOPE_CALLSITES=0
	CR=1 s0run cr_s1 GAPSCOPE_SAMPLING=1
	if command -v gdb >/dev/null && [ $(left) -gt 70 ]; then
		timeout 60 env GAPSCOPE_SAMPLING=0 GAPSCOPE_CAPTURE_RANGE=cudaProfilerApi GAPSCOPE_OUTPUT=$T/gdb.db \
			CUDA_INJECTION64_PATH=$PWD/$GS_BUILD/lib/libgapscope.so gdb -batch -ex run -ex bt \
			--args python3 bench/overhead/torch_nosync.py --ab 2 > "$R/s0diag.gdb.txt" 2>&1
		grep -vE '^\[(New )?Thread' "$R/s0diag.gdb.txt" | tail -30 | cut -c1-250
	fi
}
part_peers() { # issue 52 item 1
	timeout $(cap ${PEERS:-420}) python3 -u bench/overhead/overhead_pairs.py --build $GS_BUILD --rounds 5 \
		--workloads torch_nosync,train_loop,hf_generate --values --out $T/peers \
		${PEERS_CONFIGS:---config default= --config sampling=GAPSCOPE_SAMPLING=1 --config torchprof=@torchprof} > "$R/peers.txt" 2>&1
	echo "peers exit $? at $((SECONDS-S0)) s" >> "$R/peers.txt"; tail -20 "$R/peers.txt"
}
part_crashhunt() {
	local i rc
	for i in $(seq ${CRASHRUNS:-5}); do
		[ $(left) -gt 25 ] || break
		timeout $(cap 60) env GAPSCOPE_SAMPLING=1 "$gs" record -o $T/hunt.db -- python3 -X faulthandler bench/real/hf_generate.py > $T/hunt.log 2>&1
		rc=$?; echo "crashhunt run $i: exit $rc at $((SECONDS-S0)) s" | tee -a "$R/crashhunt.txt"
		[ $rc -eq 0 ] || tail -40 $T/hunt.log >> "$R/crashhunt.txt"
		python3 -c 'import sqlite3,sys; print(" ".join("%s=%s" % r for r in sqlite3.connect(sys.argv[1]).execute("select key,value from meta where key in (\x27samples.taken\x27,\x27samples.faults\x27,\x27samples.dropped\x27)")))' $T/hunt.db >> "$R/crashhunt.txt" 2>&1
		rm -f $T/hunt.db
	done
}
part_signalcost() {
	local b=$GS_BUILD/bin/gs_bench_sample_signal_cost
	[ -x $b ] || { echo "no $b" | tee "$R/signalcost.txt"; return; }
	{ timeout $(cap 40) $b 10000 3; timeout $(cap 40) $b 1000 3; } > "$R/signalcost.txt" 2>&1
	echo "signalcost exit $? at $((SECONDS-S0)) s" >> "$R/signalcost.txt"; tail -20 "$R/signalcost.txt"
}
part_windows() { # issue 52 item 2: do the windows' kernels keep their launch calls?
	local m
	for m in always windows; do
		[ $(left) -gt 20 ] || break
		$P timeout $(cap 60) env GAPSCOPE_CAPTURE_DRIVER_LAUNCHES=$m "$gs" record -o $T/win.$m.db --capture-range cudaProfilerApi \
			-- python3 bench/overhead/torch_nosync.py --ab 3 > "$R/win.$m.txt" 2>&1
		"$gs" report $T/win.$m.db >> "$R/win.$m.txt" 2>&1
		grep -E 'ab median|no launch call|^ *kernels|launch calls' "$R/win.$m.txt" | head -8; rm -f $T/win.$m.db
	done
}
for p in ${PARTS:-sampling gputests whatif abacc}; do
	[ $(left) -gt 30 ] || { echo "part $p not run: $(left) s left"; continue; }
	echo "== part $p at $((SECONDS-S0)) s"; part_$p
done
echo "end at $((SECONDS-S0)) s"
