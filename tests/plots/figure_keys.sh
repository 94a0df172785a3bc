#!/bin/sh
# The figure kinds and keys the study check accepts (framework/study/study_settings.cpp,
# printed by the program $1) must be those the plotting script draws ($2, study_figures.py
# --keys): a key one side lacks would pass the study's check and fail the drawing, or the
# other way round. Listing the keys needs python3 only, not matplotlib; without a python3
# the test is reported as skipped (exit 77), not failed, as fovea does not require one.
printer="$1"
script="$2"
for python in ${FOVEA_PYTHON:-python3 /usr/bin/python3}; do
  if "$python" -c '' 2>/dev/null; then
    accepted=$("$printer") || { echo "failed: $printer"; exit 1; }
    drawn=$("$python" "$script" --keys) || { echo "failed: $python $script --keys"; exit 1; }
    if [ "$accepted" = "$drawn" ]; then
      echo "the study check and the plotting script agree on every figure kind and key"
      exit 0
    fi
    printf 'the study check and the plotting script differ.\nstudy_settings.cpp accepts:\n%s\nstudy_figures.py draws:\n%s\n' \
      "$accepted" "$drawn"
    exit 1
  fi
done
echo "skipped: no python3 to list the plotting script's keys"
exit 77
