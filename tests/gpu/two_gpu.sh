#!/usr/bin/env bash
# two_gpu.sh - issue 57's checks of gapscope on two GPUs (check_two_gpu.py):
#  1. tests/gpu/peer_devices.cu under `gapscope record`: peer copies with peer
#     access on and off appear with both devices, device 1's wait for device
#     0's op is a dependency of the designed length, HTML and Chrome export
#     show both devices, `gapscope graph` draws the graph of two devices;
#  2. a torchrun DDP job with the NCCL backend (bench/real/ddp_nccl.py, 30
#     steps, rank 1 sleeping SLOW_MS = 20 ms at the end of each step), each
#     rank recorded by `gapscope record -o ddp-%q{RANK}.db` (rank from
#     torchrun's environment): the multi-trace report names rank 1 and the
#     others' wait within 15% of 20 ms; exposed communication per rank
#     against its NCCL kernels' own time.
# With --one-gpu: the one-GPU path on GPU 0 only (CUDA_VISIBLE_DEVICES=0):
# the program with both "devices" on device 0, the job as one rank.
# Run from the repository root on a machine with NVIDIA GPUs:
#   GS_BUILD=build OUT=out tests/gpu/two_gpu.sh [--one-gpu]
# Exits 77 (skipped) without a GPU, or without two GPUs unless --one-gpu;
# prints the checks and "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu
n=$(nvidia-smi -L | grep -c '^GPU ')
if [ "${1:-}" = --one-gpu ]; then
	W=${OUT:-out}/one-gpu
	export CUDA_VISIBLE_DEVICES=0
	nproc=1 slow=0
else
	if [ "$n" -lt 2 ]; then
		echo "fewer than two GPUs here ($n, nvidia-smi -L): skipped"
		exit 77
	fi
	W=${OUT:-out}/two-gpu
	export CUDA_VISIBLE_DEVICES=0,1
	nproc=2 slow=${SLOW_MS:-20}
fi
GS=$B/bin/gapscope
rm -rf "$W"
mkdir -p "$W" || exit 1
fail=0

echo "== peer_devices ($nproc GPU)"
if "$GS" record -o "$W/peer.db" -- "$B/tests/gs_peer_devices" >"$W/peer.log" 2>&1; then
	cat "$W/peer.log"
	python3 tests/gpu/check_two_gpu.py peer "$GS" "$W/peer.db" "$W/peer.log" "$W" || fail=1
else
	cat "$W/peer.log"
	echo "FAIL peer_devices did not run"
	fail=1
fi

echo "== DDP over NCCL, $nproc rank(s), slow rank 1 by $slow ms"
if ! python3 -c 'import torch, torch.distributed' 2>/dev/null; then
	echo "FAIL no torch here: the DDP job cannot run"
	fail=1
elif "$GS" record -o "$W/ddp-%q{RANK}.db" -- python3 -m torch.distributed.run --standalone \
	--nproc-per-node "$nproc" bench/real/ddp_nccl.py --steps 30 --slow-ms "$slow" \
	>"$W/ddp.log" 2>&1; then
	cat "$W/ddp.log"
	dbs=()
	for ((r = 0; r < nproc; r++)); do dbs+=("$W/ddp-$r.db"); done
	python3 tests/gpu/check_two_gpu.py ddp "$GS" "$slow" "$nproc" "${dbs[@]}" || fail=1
else
	cat "$W/ddp.log"
	echo "FAIL the DDP job did not run"
	fail=1
fi
[ "$fail" = 0 ] && echo "two_gpu: all passed" || echo "two_gpu: FAILED"
exit "$fail"
