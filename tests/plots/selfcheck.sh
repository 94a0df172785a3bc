#!/bin/sh
# Runs a plotting script's self-check under the python3 fovea would draw with (FOVEA_PYTHON,
# else python3 on PATH, else Debian's /usr/bin/python3). matplotlib is optional for fovea,
# so without it the test is reported as skipped (exit 77), not failed.
script="$1"
for python in ${FOVEA_PYTHON:-python3 /usr/bin/python3}; do
  if "$python" -c 'import matplotlib' 2>/dev/null; then
    exec "$python" "$script"
  fi
done
echo "skipped: no python3 with matplotlib (apt install python3-matplotlib)"
exit 77
