#!/bin/sh
# Runs one pytest file of tests/python/ against the built module (docs/python.md):
#   run_pytest.sh PYTHON MODULE_DIR TEST_FILE
# Skipped (exit 77, one message), not failed, where that python3 or its NumPy or pytest is
# missing, as the plot tests are where matplotlib is; the driver installs all three.
python="$1"
module_dir="$2"
test_file="$3"
if ! "$python" -c 'import numpy, pytest' 2>/dev/null; then
  echo "skipped: $python has no NumPy or pytest (apt install python3-numpy python3-pytest; ./fovea does)"
  exit 77
fi
PYTHONPATH="$module_dir${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m pytest -q -p no:cacheprovider "$test_file"
