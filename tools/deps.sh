#!/usr/bin/env bash
# Installs the Debian packages gapscope needs to build and test (viewer and
# tests; the collector and demos also need the CUDA Toolkit, which is not a
# Debian package here and is used when present). Safe to run twice.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libsqlite3-dev sqlite3 libcmocka-dev
      libgraphviz-dev graphviz libjansson-dev python3 chromium)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
