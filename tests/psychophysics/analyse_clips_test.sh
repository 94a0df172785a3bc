#!/bin/sh
# The clip comparison's analysis, one command, on a simulated study (docs/psychophysics.md,
# "Clip comparison"): three simulated participants of configs/experiments/matched_clips.yaml at
# two repetitions, analysed by experiments/psychophysics/analyse_clips.py; the proportions are
# checked to count every trial, and its tables to be written. Skipped (exit 77), not failed,
# where there is no python3.
# usage: analyse_clips_test.sh FOVEA SOURCE_DIR
fovea="$1"
source_dir="$2"
# The first python3 with statsmodels and pandas (the regression's), else the first there is: a
# python3 earlier on PATH (pyenv's, say) must not hide Debian's, which ./fovea gives them.
python=""
for candidate in ${FOVEA_PYTHON:-python3 /usr/bin/python3}; do
  command -v "$candidate" >/dev/null 2>&1 || continue
  [ -n "$python" ] || python="$candidate"
  if "$candidate" -c 'import pandas, statsmodels' 2>/dev/null; then python="$candidate"; break; fi
done
if [ -z "$python" ]; then
  echo "skipped: no python3 to run experiments/psychophysics/analyse_clips.py"
  exit 77
fi
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
for participant in S01 S02 S03; do
  "$fovea" experiment "$source_dir/configs/experiments/matched_clips.yaml" --participant "$participant" \
    --observer "$source_dir/configs/perception/default.yaml" --out "$dir/$participant" --quiet \
    --set clip_comparison.repetitions=2 --set clip_comparison.blocks=1 || exit 1
done
out=$("$python" "$source_dir/experiments/psychophysics/analyse_clips.py" "$dir"/*/trials.csv) || exit 1
echo "$out"
# 2 scenes x 2 schedulers x 2 budgets x 2 repetitions x 3 participants.
echo "$out" | grep -q "^48 trials of 3 participants (S01, S02, S03); task 2ifc, reference full$" || { echo "FAIL: trial count"; exit 1; }
rows=$(echo "$out" | grep -c -E '^(default|rockfall) +(hybrid|round_robin) +(2000|3000) +6 ')
[ "$rows" -eq 8 ] || { echo "FAIL: expected 8 conditions of 6 trials, found $rows"; exit 1; }
echo "$out" | grep -q -E "^(mixed-effects logistic regression skipped: statsmodels is not installed|mixed-effects logistic regression \(statsmodels)" ||
  { echo "FAIL: no word on the mixed-effects regression"; exit 1; }
# The tables, without --out in the folder the trials files share: one row per condition, and,
# where the regression ran, one per term.
[ "$(wc -l < "$dir/clip_conditions.csv")" -eq 9 ] || { echo "FAIL: clip_conditions.csv is not a header and 8 conditions"; exit 1; }
if echo "$out" | grep -q "^mixed-effects logistic regression (statsmodels"; then
  grep -q "^C(scheduler)\[T.round_robin\],scheduler round_robin vs hybrid,fixed," "$dir/clip_model.csv" ||
    { echo "FAIL: clip_model.csv has no scheduler term"; exit 1; }
fi
exit 0
