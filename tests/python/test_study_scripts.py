"""The studies' analysis scripts read a study wherever it was run (docs/studies.md, "Analysing a
study run elsewhere"): quick sweeps in a temporary folder analysed there, the committed tables
left as they are, and a folder that lacks a file named with that file.

Run by ctest through tests/python/run_pytest.sh, from the source folder; FOVEA_BINARY names
the fovea program.
"""

import os
import shutil
import subprocess
import sys

import pytest

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
FOVEA = os.environ.get("FOVEA_BINARY", os.path.join(SOURCE, "build", "bin", "fovea"))
STUDIES = os.path.join(SOURCE, "results", "studies")


def script(*parts):
    return os.path.join(STUDIES, *parts)


def run(*argv, cwd=None):
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=300, cwd=cwd)


def quick_sweep(study, out):
    done = subprocess.run([FOVEA, "sweep", os.path.join(SOURCE, "configs", "studies", study), "--quick", "--out",
                           str(out), "--no-figures", "-q"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_the_trees_table_of_quick_sweeps_run_elsewhere_goes_where_out_says(tmp_path):
    if not os.access(FOVEA, os.X_OK):
        pytest.skip("no fovea binary at " + FOVEA)
    committed = read_bytes(script("trees", "table.csv"))
    quick_sweep("trees.yaml", tmp_path / "packed")
    quick_sweep("trees_default.yaml", tmp_path / "default")
    analyse = script("trees", "analyse.py")
    # From another folder: nothing depends on where it is run from.
    done = run(analyse, str(tmp_path / "packed"), str(tmp_path / "default"), "--out", str(tmp_path / "a"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = (tmp_path / "a" / "table.csv").read_text().splitlines()
    scenes = [line.split(",")[0] for line in rows[1:]]
    # 2 quick runs a scene (world tree octree and medial, seed 1), 3 evaluated tree sets each.
    assert sorted(set(scenes)) == ["default", "packed500"] and len(scenes) == 12
    assert "## default, the world on octree trees" in done.stdout
    # `-` leaves a scene out.
    one = run(analyse, str(tmp_path / "packed"), "-", "--out", str(tmp_path / "b"))
    assert one.returncode == 0, one.stderr
    assert {line.split(",")[0] for line in (tmp_path / "b" / "table.csv").read_text().splitlines()[1:]} == {"packed500"}
    # Folders without --out: refused, so the committed table is never overwritten unasked.
    refused = run(analyse, str(tmp_path / "packed"), str(tmp_path / "default"))
    assert refused.returncode == 2 and "--out DIR says where table.csv goes" in refused.stderr
    assert read_bytes(script("trees", "table.csv")) == committed


def test_the_schedulers_numbers_of_a_quick_sweep(tmp_path):
    if not os.access(FOVEA, os.X_OK):
        pytest.skip("no fovea binary at " + FOVEA)
    quick_sweep("schedulers.yaml", tmp_path / "s")
    done = run(script("schedulers", "readme_numbers.py"), str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr
    # The quick study's 32 runs, read from its folder; the sections its runs lack are said.
    assert done.stdout.startswith(str(tmp_path / "s" / "table.csv") + ": 32 runs\n")
    assert "no configuration with all 10 seeds" in done.stdout
    # A table named instead of its folder, as before.
    again = run(script("schedulers", "readme_numbers.py"), str(tmp_path / "s" / "table.csv"))
    assert again.returncode == 0 and again.stdout == done.stdout


@pytest.mark.parametrize("argv, missing", [
    (["schedulers/readme_numbers.py", "{empty}"], "{empty}/table.csv"),
    (["trees/analyse.py", "{empty}", "-", "--out", "{out}"], "{empty}/table.csv"),
    (["trees/analyse.py", "{table_only}", "-", "--out", "{out}"], "{table_only}/runs/0000/summary.json"),
    (["schedulers_v2/analyse.py", "summarise", "-", "{empty}", "--out", "{out}"], "{empty}/table.csv"),
    (["schedulers_v2/analyse.py", "{empty}"], "{empty}/table.csv"),
    (["counterfactual/analyse.py", "summarise", "{table_only}", "-", "-", "--out", "{out}"],
     "{table_only}/runs/0000/summary.json"),
    (["counterfactual/analyse.py", "{empty}"], "{empty}/evaluation_table.csv"),
    (["realtime/realtime.py", "analyse", "{empty}"], "{empty}/runs.csv"),
    (["gaze/gaze.py", "analyse", "{empty}"], "{empty}/same_frames.csv and {empty}/closed_loop.csv"),
])
def test_a_folder_that_lacks_a_file_is_refused_naming_the_file(tmp_path, argv, missing):
    empty = tmp_path / "empty"
    table_only = tmp_path / "table_only"
    empty.mkdir()
    table_only.mkdir()
    # A sweep's table.csv without its run folders, as the repository keeps them.
    shutil.copy(script("trees-packed", "table.csv"), table_only / "table.csv")
    names = {"empty": str(empty), "table_only": str(table_only), "out": str(tmp_path / "out")}
    done = run(script(argv[0]), *[a.format(**names) for a in argv[1:]])
    assert done.returncode == 1
    assert missing.format(**names) + ": missing" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "table.csv").exists()


@pytest.mark.parametrize("argv, fifo", [
    (["schedulers/readme_numbers.py", "{folder}"], "table.csv"),
    (["trees/analyse.py", "{folder}", "-", "--out", "{out}"], "table.csv"),
    (["trees/analyse.py", "{folder}", "-", "--out", "{out}"], "runs/0000/summary.json"),
    (["trees/analyse.py", "{folder}", "-", "--out", "{out}"], "runs/0000/frames.csv"),
    (["schedulers_v2/analyse.py", "{folder}"], "table.csv"),
    (["counterfactual/analyse.py", "{folder}"], "evaluation_table.csv"),
])
def test_a_fifo_where_a_file_belongs_is_refused_at_once(tmp_path, argv, fifo):
    """The scripts read a folder anyone can hand them: a FIFO (or any file that is not a
    regular one) is refused in one line, not waited on (experiments/tools/bounded_read.py)."""
    folder = tmp_path / "study"
    (folder / "runs" / "0000").mkdir(parents=True)
    shutil.copy(script("trees-packed", "table.csv"), folder / "table.csv")
    (folder / "runs" / "0000" / "summary.json").write_text('{"warmup_frames": 0}')
    target = folder / fifo
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    names = {"folder": str(folder), "out": str(tmp_path / "out")}
    done = run(script(argv[0]), *[a.format(**names) for a in argv[1:]])  # run() has a timeout
    assert done.returncode == 1
    # Refused by name: "missing" where the script checks a path first (need() asks for a
    # regular file), "not a regular file" where the bounded read does.
    assert f"{target}: missing" in done.stderr or f"{target}: not a regular file" in done.stderr
    assert "Traceback" not in done.stderr
