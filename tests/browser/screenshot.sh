#!/usr/bin/env bash
# Screenshot of a page written by `gapscope html`, for docs/ (headless
# Chromium, Debian package 'chromium'; nothing is fetched: the page is
# self-contained).
#   tests/browser/screenshot.sh <page.html> <out.png> [height, default 1500]
# The page is 1300 px wide. Exit 2 on bad arguments, 77 without Chromium.
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
page=$1 png=$2 height=${3:-1500}
[ -f "$page" ] || { echo "screenshot.sh: $page: no such file" >&2; exit 2; }
browser=""
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  command -v "$b" >/dev/null && { browser=$b; break; }
done
[ -n "$browser" ] || { echo "screenshot.sh: no chromium installed" >&2; exit 77; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: Chromium's sandbox cannot start as root in a container
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --user-data-dir="$profile" --window-size=1300,"$height" \
  --screenshot="$(realpath -m "$png")" "file://$(realpath "$page")" 2>/dev/null
[ -s "$png" ] || { echo "screenshot.sh: no picture written" >&2; exit 1; }
echo "$png"
