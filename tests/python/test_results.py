"""fovea.read_run and fovea.read_study against the files the runs wrote (docs/python.md, "Runs
and studies in pandas"): the same values, NaN where a cell is empty, and the refusals of
`fovea sweep` in its words.

Run by ctest through tests/python/run_pytest.sh, from the source folder, with the built
module on the path and FOVEA_BINARY naming the fovea program built beside it.
"""

import csv
import json
import math
import os
import signal
import subprocess
import threading
import time

import pytest

import fovea

pandas = pytest.importorskip("pandas")

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
BINARY = os.environ.get("FOVEA_BINARY", fovea.fovea_binary)
PACKED = os.path.join(SOURCE, "configs", "studies", "packed500.yaml")
SMALL = {"world.entities[0].count": 40}


def assert_matches_csv(frame, path):
    """`frame` holds exactly the CSV file at `path` as the csv module reads it: its columns in
    order, its rows, numbers as numbers, empty cells as NaN, text as str."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, records = rows[0], rows[1:]
    assert list(frame.columns) == header
    assert len(frame) == len(records)
    empty_cells = 0
    for i, record in enumerate(records):
        for name, cell in zip(header, record):
            value = frame[name].iloc[i]
            if cell == "":
                empty_cells += 1
                assert isinstance(value, float) and math.isnan(value), (name, i)
                continue
            try:
                number = float(cell)
            except ValueError:
                assert isinstance(value, str) and value == cell, (name, i)
            else:
                assert float(value) == number, (name, i, cell, value)
    return empty_cells


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    return fovea.run(PACKED, overrides=SMALL, out=tmp_path_factory.mktemp("runs") / "whole", frames=5)


def copy_run(folder, to):
    to.mkdir()
    for name in os.listdir(folder):
        (to / name).write_bytes((folder / name).read_bytes())
    return to


def test_read_run_gives_frames_csv_with_its_manifest(run_folder):
    frames = fovea.read_run(run_folder)
    empty_cells = assert_matches_csv(frames, run_folder / "frames.csv")
    # budget_overshoot_us does not apply under a work budget: its cells are empty, so NaN.
    assert empty_cells > 0 and frames["budget_overshoot_us"].isna().all()
    assert frames["frame"].dtype.kind == "i" and list(frames["frame"]) == [0, 1, 2, 3, 4]
    manifest = json.loads((run_folder / "manifest.json").read_text())
    assert frames.attrs["manifest"] == manifest
    assert list(frames.attrs["manifest"]) == list(manifest)  # in the file's order
    assert frames.attrs["status"] == "completed" and frames.attrs["seed"] == 1
    assert frames.attrs["git_commit"] == fovea.git_commit
    assert frames.attrs["config"] == manifest["config"] and frames.attrs["name"] == "packed500"
    assert frames.attrs["summary"] == json.loads((run_folder / "summary.json").read_text())
    assert frames.attrs["complete"] and frames.attrs["problem"] is None
    assert not frames.attrs["dropped_unfinished_line"]


def test_read_run_refuses_what_the_sweep_would_run_again(run_folder, tmp_path):
    interrupted = copy_run(run_folder, tmp_path / "interrupted")
    manifest = json.loads((interrupted / "manifest.json").read_text())
    manifest["status"] = "interrupted"
    (interrupted / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(fovea.ResultsError, match="^%s: its manifest says interrupted; " % str(interrupted)) as caught:
        fovea.read_run(interrupted)
    assert isinstance(caught.value, ValueError) and caught.value.problem == "its manifest says interrupted"
    assert len(fovea.read_run(interrupted, allow_incomplete=True)) == 5

    short = copy_run(run_folder, tmp_path / "short")
    lines = (short / "frames.csv").read_text().splitlines(keepends=True)
    (short / "frames.csv").write_text("".join(lines[:-1]))
    with pytest.raises(fovea.ResultsError, match="its frames.csv holds 4 of the 5 frames its manifest.json counts"):
        fovea.read_run(short)

    # A last line cut mid-write: the sweep calls the file damaged; allowed, the line is dropped.
    cut = copy_run(run_folder, tmp_path / "cut")
    (cut / "frames.csv").write_text("".join(lines[:-1]) + lines[-1][:7])
    with pytest.raises(fovea.ResultsError, match=r"its frames.csv is cut short or damaged \(.*frames.csv:6: its last row "
                                                  r"has no line end; it was never finished\)"):
        fovea.read_run(cut)
    partial = fovea.read_run(cut, allow_incomplete=True)
    assert len(partial) == 4 and partial.attrs["dropped_unfinished_line"] and not partial.attrs["complete"]

    (short / "manifest.json").unlink()
    with pytest.raises(fovea.ResultsError, match="it has no manifest.json"):
        fovea.read_run(short)
    assert fovea.read_run(short, allow_incomplete=True).attrs["manifest"] is None
    with pytest.raises(fovea.ResultsError, match="no such folder"):
        fovea.read_run(tmp_path / "nothing")


def test_a_killed_run_is_refused_and_its_finished_frames_read(tmp_path):
    out = tmp_path / "killed"
    command = [BINARY, "run", PACKED, "--headless", "--quiet", "--frames", "100000", "--out", str(out),
               "--set", "world.entities[0].count=40"]
    process = subprocess.Popen(command)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            frames_csv = out / "frames.csv"
            if frames_csv.exists() and frames_csv.read_text().count("\n") >= 3:
                break
            time.sleep(0.02)
        else:
            pytest.fail("the run wrote no frames in 30 s")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    with pytest.raises(fovea.ResultsError, match="^%s: its manifest says running" % str(out)):
        fovea.read_run(out)
    frames = fovea.read_run(out, allow_incomplete=True)
    text = (out / "frames.csv").read_text()
    # frames.csv is written a whole row at a time: a SIGKILL leaves it on a row boundary.
    assert len(frames) == text.count("\n") - 1 >= 2
    assert list(frames["frame"]) == list(range(len(frames)))
    assert frames.attrs["status"] == "running" and frames.attrs["summary"] is None
    assert frames.attrs["problem"] == "its manifest says running"


STUDY = """\
name: {name}
base: {base}
set:
  frames: 4
  "world.entities[0].count": 40
factors:
  scheduler:
    key: schedule.kind
    values: [round_robin, priority_queues]
  seed: {{key: seed, values: {seeds}}}
metrics:
  columns:
    p_est: [mean]
    sphere_tests: [mean, max]
    budget_overshoot_us: [median]
"""


def write_study(path, name="tiny", seeds="[1, 2]"):
    path.write_text(STUDY.format(name=name, base=PACKED, seeds=seeds))
    return path


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("study")
    study_file = write_study(folder / "tiny.yaml")
    out = fovea.sweep(study_file, out=folder / "out", jobs=2, figures=False)
    return study_file, out


def test_read_study_gives_table_csv_with_its_sweep_json(study):
    study_file, out = study
    table = fovea.read_study(out, study=study_file)
    empty_cells = assert_matches_csv(table, out / "table.csv")
    assert empty_cells == 4 and table["budget_overshoot_us_median"].isna().all()  # a work budget: no overshoot
    assert list(table["scheduler"]) == ["round_robin", "round_robin", "priority_queues", "priority_queues"]
    assert table["seed"].dtype.kind == "i" and table["run"].dtype.kind == "i"
    sweep = json.loads((out / "sweep.json").read_text())
    assert table.attrs["sweep"] == sweep and table.attrs["study"] == "tiny"
    assert table.attrs["status"] == "completed" and table.attrs["runs_completed"] == 4 and table.attrs["runs_failed"] == []
    assert table.attrs["factor_columns"] == ["scheduler", "seed"]
    assert table.attrs["metric_columns"] == ["p_est_mean", "sphere_tests_mean", "sphere_tests_max", "budget_overshoot_us_median"]
    assert table.attrs["fingerprint"] == fovea._fovea.study_fingerprints(study_file)["fingerprint"]
    # Its runs read as runs.
    assert fovea.read_run(out / "runs" / "0000").attrs["seed"] == 1


def test_read_study_refuses_another_study_and_an_unfinished_sweep(study, tmp_path):
    study_file, out = study
    other = write_study(tmp_path / "other.yaml", seeds="[1, 3]")
    with pytest.raises(fovea.ResultsError, match="holds another sweep .* than %s" % str(other)):
        fovea.read_study(out, study=other)
    # The same runs given with an override are another sweep, as `fovea sweep --set` makes them.
    with pytest.raises(fovea.ResultsError, match="holds another sweep"):
        fovea.read_study(out, study=study_file, overrides={"budget.tests": 500})
    with pytest.raises(fovea.ConfigError):
        fovea.read_study(out, study=write_study(tmp_path / "bad.yaml", seeds="one"))
    # fovea.sweep refuses the folder too, naming its out= argument rather than the CLI's --out.
    with pytest.raises(fovea.ConfigError, match="holds another sweep .*; give a new out=, or remove it"):
        fovea.sweep(other, out=out, figures=False)
    # Its overrides are named as overrides, as fovea.run's are, not as the command's --set.
    with pytest.raises(fovea.ConfigError, match=r"override seed=4: seed is set by the factor seed; a value for every run"):
        fovea.sweep(study_file, overrides={"seed": 4}, out=tmp_path / "never", figures=False)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(fovea.ConfigError, match="not empty and not a sweep's folder; choose a new out=$"):
        fovea.sweep(study_file, out=tmp_path / "notes", figures=False)

    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    sweep = json.loads((out / "sweep.json").read_text())
    sweep.update(status="interrupted", runs_completed=3)
    (unfinished / "sweep.json").write_text(json.dumps(sweep))
    (unfinished / "table.csv").write_bytes((out / "table.csv").read_bytes())
    with pytest.raises(fovea.ResultsError) as caught:
        fovea.read_study(unfinished, study=study_file)
    assert str(caught.value) == (
        "%s: its sweep.json says interrupted (3 of 4 runs complete); `fovea sweep %s --out %s` (with the --set it "
        "was given, if any) resumes it, running what is missing" % (unfinished, study_file, unfinished))
    table = fovea.read_study(unfinished, allow_incomplete=True)
    assert table.attrs["status"] == "interrupted" and len(table) == 4

    with pytest.raises(fovea.ResultsError, match="no readable sweep.json; expected a fovea sweep's output folder"):
        fovea.read_study(tmp_path)


def test_a_second_sweep_of_the_same_folder_in_this_process_resumes_it(study):
    # The first sweep's lock on its folder is let go when it returns, not when Python ends:
    # so fovea.sweep after fovea.sweep (after a Ctrl-C, say) resumes instead of being refused
    # as "in use by another fovea sweep".
    study_file, out = study
    assert fovea.sweep(study_file, out=out, figures=False) == out
    sweep = json.loads((out / "sweep.json").read_text())
    assert sweep["status"] == "completed" and sweep["runs_completed_before"] == 4


def test_a_sweep_reaps_its_own_runs_only(tmp_path):
    # fovea.sweep runs inside Python: a child process the program starts beside it keeps its
    # exit status for subprocess, instead of being reaped by the sweep as one of its runs.
    study_file = tmp_path / "long.yaml"
    # Two runs of the whole packed scene, 1000 frames: seconds each.
    study_file.write_text(STUDY.format(name="long", base=PACKED, seeds="[1]").replace("frames: 4", "frames: 1000")
                          .replace('"world.entities[0].count": 40', '"world.entities[0].count": 500'))
    swept = {}
    sweep = threading.Thread(target=lambda: swept.update(folder=fovea.sweep(study_file, out=tmp_path / "out", jobs=1, figures=False)))
    sweep.start()
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "out" / "runs" / "0000").exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        child = subprocess.Popen(["sh", "-c", "exit 7"])
        time.sleep(0.3)  # ended, and the sweep has looked for ended runs some 60 times
        sweeping = sweep.is_alive()
        assert child.wait() == 7
    finally:
        sweep.join()
    assert sweeping, "the sweep ended before the child did: make its runs longer"
    assert swept["folder"] == tmp_path / "out"
