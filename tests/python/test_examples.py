"""The Python examples under experiments/python/ run as `./fovea python` runs them (docs/python.md).

Run by ctest through tests/python/run_pytest.sh, from the source folder, with the built
module on the path.
"""

import os
import subprocess
import sys

import pytest

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())


def test_the_schedulers_study_example_runs_its_quick_study_and_summarises_it(tmp_path):
    folder = tmp_path / "schedulers_quick"
    script = os.path.join(SOURCE, "experiments", "python", "schedulers_study.py")
    done = subprocess.run([sys.executable, script, str(folder), "--run", "--quick"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "study schedulers_quick, 24 runs (completed)" in done.stdout
    # One line a scheduler and budget, each with its seeds and intervals.
    for scheduler in ("round_robin", "sequential", "sorted_sequential", "priority_queues"):
        assert sum(scheduler in line.split() for line in done.stdout.splitlines()) == 2
    assert " ± " in done.stdout
    assert (folder / "pandas" / "p_work.png").stat().st_size > 0
    summary = (folder / "pandas" / "summary.csv").read_text().splitlines()
    assert len(summary) == 1 + 8 and summary[0].startswith("entities,placement,contacts,scheduler,budget_mode,budget,seeds,")

    # Read again without --run: the folder as it is.
    again = subprocess.run([sys.executable, script, str(folder)], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout == done.stdout

    missing = subprocess.run([sys.executable, script, str(tmp_path / "none")], capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "holds no study; --run runs it there first" in missing.stderr
