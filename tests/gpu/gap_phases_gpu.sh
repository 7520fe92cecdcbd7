#!/usr/bin/env bash
# gap_phases_gpu.sh - records tests/gpu/gap_phases.cu under `gapscope record`
# and checks gap model v2 on it (check_gap_phases.py): each phase's designed
# causes. Run from the repository root on a machine with an NVIDIA GPU:
#   GS_BUILD=build OUT=out tests/gpu/gap_phases_gpu.sh
# Exits 77 (skipped) where `nvidia-smi -L` finds no GPU; prints the checker's
# table and "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
B=${GS_BUILD:-build}
W=${OUT:-out}/gap-phases
. tools/gpu-env.sh
gs_clean_env
gs_need_gpu
mkdir -p "$W" || exit 1
rm -f "$W"/gap_phases.db*
if ! "$B/bin/gapscope" record -o "$W/gap_phases.db" -- "$B/tests/gs_gap_phases" >"$W/run.log" 2>&1; then
	cat "$W/run.log"
	echo "0 passed, 1 failed"
	exit 1
fi
grep -q '^PASS' "$W/run.log" || { cat "$W/run.log"; echo "0 passed, 1 failed"; exit 1; }
exec python3 tests/gpu/check_gap_phases.py "$B/bin/gapscope" "$W/gap_phases.db"
