#!/usr/bin/env bash
# The README's first command, end to end: ./fovea run from a temporary folder writes a
# complete results folder there. FOVEA_BUILD_DIR (set by ctest) keeps the driver on the
# build tree under test.
set -euo pipefail
root="$1"
# As on a server: no window, whatever desktop runs the tests.
unset DISPLAY WAYLAND_DISPLAY
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
"$root/fovea" run --frames 25 --quiet
shopt -s nullglob
runs=(results/default-*)
[ ${#runs[@]} -eq 1 ] || { echo "expected one results/default-* folder, found ${#runs[@]}"; exit 1; }
for f in config.yaml manifest.json frames.csv summary.json; do
  [ -s "${runs[0]}/$f" ] || { echo "missing or empty: ${runs[0]}/$f"; exit 1; }
done
rows=$(wc -l < "${runs[0]}/frames.csv")
[ "$rows" -eq 26 ] || { echo "frames.csv has $rows lines, expected 26"; exit 1; }
grep -q '"status": "completed"' "${runs[0]}/manifest.json" || { echo "manifest does not say completed"; exit 1; }
echo "ok: ${runs[0]}"
