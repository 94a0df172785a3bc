#!/bin/bash
# What evaluating k schedulers adds per frame (docs/evaluation.md, "What it costs"): the
# packed scene of packed500.yaml, priority queues driving at 2,000 tests, 300 frames, k = 0,
# 1, 2 and 4 schedulers evaluated under the run's budget, with and without ground truth,
# three runs each, one at a time. Prints the wall time per frame from each summary.json.
#
#   results/studies/counterfactual/evaluation_cost.sh [BUILD_DIR]     # default: build/
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
fovea=${1:-$root/build}/bin/fovea
config=$root/configs/studies/packed500.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ground_truth in false true; do
  for k in 0 1 2 4; do
    case $k in
      0) evaluate=() ;;
      1) evaluate=(--set "evaluate.schedulers=[round_robin]") ;;
      2) evaluate=(--set "evaluate.schedulers=[round_robin, priority_queues]") ;;
      4) evaluate=(--set "evaluate.schedulers=[round_robin, sequential, sorted_sequential, priority_queues]") ;;
    esac
    for rep in 1 2 3; do
      out=$work/run-$ground_truth-$k-$rep
      "$fovea" run "$config" --headless --quiet --frames 300 --out "$out" --set ground_truth=$ground_truth \
        ${evaluate[@]+"${evaluate[@]}"}
      python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
print(f'ground_truth={sys.argv[2]} k={sys.argv[3]} run={sys.argv[4]}: {1000 * s[\"wall_time_s\"] / s[\"frames\"]:.3f} ms a frame')
" "$out/summary.json" $ground_truth $k $rep
    done
  done
done
