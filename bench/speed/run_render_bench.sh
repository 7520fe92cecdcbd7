#!/usr/bin/env bash
# Times the renderers on a synthetic trace of about one million events:
# `gapscope html`, `gapscope export --format chrome` and `--format csv`.
# Prints, per command, wall time, peak resident memory and output size.
# Run from the repository root:
#   bench/speed/run_render_bench.sh [steps]      (default 52632 steps = 1,000,008 events)
# GS_BUILD: build folder (default build); OUT: where files go (default out).
# Needs python3 (for wall time and peak RSS of each child). Prints figures,
# asserts nothing.
set -euo pipefail
B=${GS_BUILD:-build}
O=${OUT:-out}/render_bench
steps=${1:-52632}
mkdir -p "$O"
for x in "$B/bin/gapscope" "$B/bin/render_gen"; do
  [ -x "$x" ] || { echo "run_render_bench: $x missing (build first)" >&2; exit 2; }
done

"$B/bin/render_gen" "$O/trace.db" "$steps"
echo "trace: $(du -h "$O/trace.db" | cut -f1) on disk"

measure() { # label, then the command
  local label=$1; shift
  python3 - "$label" "$@" <<'PY'
import resource, subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
t = time.monotonic()
r = subprocess.run(cmd)
wall = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print("%-22s exit %d  wall %7.2f s  peak RSS %8.1f MiB" % (label, r.returncode, wall, rss / 1024))
sys.exit(r.returncode)
PY
}

measure "gapscope html" "$B/bin/gapscope" html "$O/trace.db" -o "$O/trace.html"
measure "export chrome" "$B/bin/gapscope" export "$O/trace.db" --format chrome -o "$O/trace.json"
measure "export csv" "$B/bin/gapscope" export "$O/trace.db" --format csv -o "$O/csv"
echo "outputs: html $(du -h "$O/trace.html" | cut -f1), chrome json $(du -h "$O/trace.json" | cut -f1), csv $(du -sh "$O/csv" | cut -f1)"
