"""The Python module's worlds against fovea run (docs/python.md): the same code, the same bytes.

Run by ctest through tests/python/run_pytest.sh, from the source folder, with the built
module on the path and FOVEA_BINARY naming the fovea program built beside it.
"""

import math
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import fovea

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
BINARY = os.environ.get("FOVEA_BINARY", fovea.fovea_binary)
PACKED = os.path.join(SOURCE, "configs", "studies", "packed500.yaml")


def without_wall_clock(csv_text):
    """frames.csv without its wall-clock columns (names ending in _ms), as the C++ tests compare it."""
    rows = [line.split(",") for line in csv_text.splitlines()]
    keep = [i for i, name in enumerate(rows[0]) if not name.endswith("_ms")]
    return "\n".join(",".join(row[i] for i in keep) for row in rows)


def test_a_world_stepped_from_python_records_the_frames_fovea_run_records(tmp_path):
    frames = 40
    sets = ["frames=%d" % frames, "world.entities[0].count=120", "record.collisions=true"]
    cli_out = tmp_path / "cli"
    command = [BINARY, "run", PACKED, "--headless", "--quiet", "--out", str(cli_out)]
    for s in sets:
        command += ["--set", s]
    subprocess.run(command, check=True)

    py_out = tmp_path / "python"
    with fovea.World(PACKED, overrides=sets, record=py_out) as world:
        for _ in range(frames):
            world.step()
    for name in ("frames.csv", "collisions.csv"):
        cli_text = (cli_out / name).read_text()
        py_text = (py_out / name).read_text()
        assert len(cli_text.splitlines()) == frames + 1 if name == "frames.csv" else len(cli_text) > 0
        if name == "frames.csv":
            assert without_wall_clock(py_text) == without_wall_clock(cli_text)
        else:
            assert py_text == cli_text
    assert (py_out / "config.yaml").read_text() == (cli_out / "config.yaml").read_text()


def test_step_returns_the_frames_csv_row_and_n_steps_at_once(tmp_path):
    world = fovea.World(PACKED, overrides={"world.entities[0].count": 60, "frames": 10}, record=tmp_path / "run")
    stats = world.step(3)
    assert world.frames_done == 3
    assert stats["frame"] == 2
    assert math.isclose(world.time_s, 3 * world.config.time_step_s)
    world.close()
    header = (tmp_path / "run" / "frames.csv").read_text().splitlines()[0].split(",")
    assert list(stats) == header
    last = (tmp_path / "run" / "frames.csv").read_text().splitlines()[-1].split(",")
    assert last[header.index("sphere_tests")] == str(stats["sphere_tests"])
    manifest = (tmp_path / "run" / "manifest.json").read_text()
    assert '"status": "completed"' in manifest and '"frames_completed": 3' in manifest
    with pytest.raises(ValueError, match="closed"):
        world.step()


def test_entities_and_collisions_are_numpy_arrays_of_the_world():
    world = fovea.World(PACKED, overrides={"world.entities[0].count": 80})
    world.step(2)
    e = world.entities()
    n = len(e["live"])
    assert n == 80 and world.live_entity_count == 80
    assert e["position_m"].shape == (n, 3) and e["orientation_xyzw"].shape == (n, 4)
    assert e["velocity_mps"].shape == (n, 3) and e["angular_velocity_radps"].shape == (n, 3)
    assert np.allclose(np.linalg.norm(e["orientation_xyzw"], axis=1), 1.0)
    # Every entity stays inside the 6 m box the config makes (centred on the origin or not,
    # its extent is 6 m per axis).
    assert np.all(np.ptp(e["position_m"], axis=0) < 6.0)
    c = world.collisions()
    k = len(c["entity_a"])
    assert k > 0, "a packed scene has collisions from its first frames"
    assert np.all(c["entity_a"] < c["entity_b"])
    assert c["colliding"].dtype == bool and c["probability"].shape == (k,)
    stats = world.stats
    assert stats["collisions"] == k


def test_live_changes_go_through_the_config_checks():
    world = fovea.World(PACKED, overrides={"world.entities[0].count": 60})
    world.set_schedule(kind="round_robin")
    assert "kind: round_robin" in world.config.yaml
    before = world.step()
    world.set_budget(tests=100)
    after = world.step()
    # A work budget stops a few tests past its count (a collision's level goes on to its end).
    assert before["sphere_tests"] > 300 and after["sphere_tests"] < 150 and after["budget_exhausted"] == 1
    with pytest.raises(fovea.ConfigError) as error:
        world.set_schedule(kind="fastest")
    assert error.value.key == "schedule.kind"
    assert "set_schedule schedule.kind=" in str(error.value)
    world.set_interrupt_policy("interpenetrate")
    assert "interrupt_policy: interpenetrate" in world.config.yaml


def test_config_errors_carry_file_line_column_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nframes: 10\nschedule:\n  kind: fastest\n")
    with pytest.raises(fovea.ConfigError) as error:
        fovea.load_config(bad)
    e = error.value
    assert (e.file, e.line, e.column, e.key) == (str(bad), 4, 9, "schedule.kind")
    assert str(e).startswith("%s:4:9: schedule.kind: " % bad)
    assert isinstance(e, ValueError)
    # The same message the command line prints.
    cli = subprocess.run([BINARY, "validate", str(bad)], capture_output=True, text=True)
    assert cli.returncode == 2 and cli.stderr.strip() == str(e)


def test_configs_from_dicts_and_overrides():
    config = fovea.load_config({"name": "dict", "frames": 5, "world": {"entities": [{"count": 7}]}},
                               overrides={"seed": 9})
    assert (config.name, config.frames, config.seed, config.source) == ("dict", 5, 9, "config dict")
    with pytest.raises(fovea.ConfigError) as error:
        fovea.load_config(None, overrides=["frames=-1"])
    assert (error.value.key, error.value.where, error.value.line) == ("frames", "override frames=-1", None)
    again = fovea.load_config(config, overrides={"frames": 6})
    assert again.frames == 6 and again.name == "dict"
    with pytest.raises(fovea.ConfigError, match="no YAML form"):
        fovea.load_config({"frames": object()})


def test_run_calls_fovea_run_and_returns_its_folder(tmp_path, capfd):
    folder = fovea.run(PACKED, overrides={"world.entities[0].count": 40}, frames=5, out=tmp_path / "r")
    assert folder == tmp_path / "r"
    assert len((folder / "frames.csv").read_text().splitlines()) == 6
    with pytest.raises(fovea.RunError) as error:
        fovea.run(PACKED, frames=5, out=folder)  # not empty: fovea run refuses it
    # In the words of the call, not of the command line.
    assert error.value.status == 1 and "out= folder is not empty" in str(error.value)
    # What fovea run refuses as bad input is a ConfigError, at the key, as World would say it.
    with pytest.raises(fovea.ConfigError) as refused:
        fovea.run(PACKED, overrides={"gaze.source": "external"}, frames=5, out=tmp_path / "never")
    assert refused.value.key == "gaze.source" and refused.value.where == "override gaze.source=\"external\""
    assert not (tmp_path / "never").exists()
    # The command's messages reach Python's sys.stderr, not only the process's.
    assert "gaze.source: external gaze is pushed by a program" in capfd.readouterr().err


def test_a_world_never_closed_records_an_interrupted_run(tmp_path):
    import gc
    import json

    world = fovea.World(PACKED, overrides={"world.entities[0].count": 40}, record=tmp_path / "run")
    world.step(3)
    del world
    gc.collect()
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (manifest["status"], manifest["frames_completed"]) == ("interrupted", 3)


def test_only_set_gaze_and_time_s_may_be_called_while_another_thread_steps(tmp_path):
    import threading

    world = fovea.World(PACKED, overrides={"gaze.source": "external"}, record=tmp_path / "run")
    errors, times = [], []
    stepping = threading.Thread(target=lambda: world.step(400))
    stepping.start()
    while stepping.is_alive():
        times.append(world.time_s)
        world.set_gaze(960.0, 540.0)
        for call in (world.close, world.entities, world.collisions, lambda: world.set_schedule(kind="round_robin")):
            try:
                call()
            except RuntimeError as e:
                errors.append(str(e))
    stepping.join()
    assert errors and all("World.step is running in another thread" in e for e in errors)
    # The clock moved while one step(400) call ran: the frames run without the GIL.
    assert len({t for t in times if 0 < t < 4.0}) > 2
    world.close()
    assert len((tmp_path / "run" / "frames.csv").read_text().splitlines()) == 401


def test_live_changes_are_recorded_in_events_csv(tmp_path):
    with fovea.World(PACKED, overrides={"world.entities[0].count": 40}, record=tmp_path / "run") as world:
        world.step(3)
        world.set_schedule(kind="round_robin")
        world.set_budget(tests=500)
        world.step(2)
    rows = [line.split(",") for line in (tmp_path / "run" / "events.csv").read_text().splitlines()]
    assert rows[0] == ["wall_time_s", "frames", "event"]
    assert [(r[1], r[2]) for r in rows[1:]] == [("3", '"schedule.kind: ""round_robin"""'), ("3", "budget.tests: 500")]
    # config.yaml stays what the run started with, as for the window's panel.
    assert "kind: priority_queues" in (tmp_path / "run" / "config.yaml").read_text()


def test_an_error_after_a_live_change_names_the_line_the_user_wrote(tmp_path):
    config = tmp_path / "g.yaml"
    config.write_text("name: g\nframes: 5\ngaze:\n  source: fixed\n  x_px: 900\n  y_px: 500\n")
    loaded = fovea.load_config(config)
    with pytest.raises(fovea.ConfigError) as direct:
        fovea.load_config(config, overrides={"perception.view.screen.width_px": 640})
    with pytest.raises(fovea.ConfigError) as reloaded:
        fovea.load_config(loaded, overrides={"perception.view.screen.width_px": 640})
    assert str(reloaded.value) == str(direct.value)


def test_ctrl_c_stops_a_long_step_between_frames_with_the_frames_kept(tmp_path):
    import json
    import signal
    import threading

    world = fovea.World(PACKED, overrides={"world.entities[0].count": 60}, record=tmp_path / "run")
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        with world:
            world.step(10_000_000)
    timer.join()
    done = world.frames_done
    assert 0 < done < 10_000_000
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (manifest["status"], manifest["frames_completed"]) == ("interrupted", done)
    assert len((tmp_path / "run" / "frames.csv").read_text().splitlines()) == done + 1


def test_ctrl_c_still_interrupts_a_blocking_call_after_a_run(tmp_path):
    # fovea.run catches SIGINT while it runs, then puts Python's handler back as it was,
    # flags included: without SA_RESTART, so a Ctrl-C ends a blocking read at once rather
    # than when the read returns.
    fovea.run(PACKED, overrides={"world.entities[0].count": 40}, frames=2, out=tmp_path / "r")
    read_end, write_end = os.pipe()
    main = threading.main_thread().ident

    def ctrl_c_then_a_byte():
        time.sleep(0.2)
        signal.pthread_kill(main, signal.SIGINT)
        time.sleep(3)
        os.write(write_end, b"x")
        os.close(write_end)

    other = threading.Thread(target=ctrl_c_then_a_byte)
    other.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            os.read(read_end, 1)
    finally:
        other.join()
    # The read was interrupted, not restarted: the byte written after it is still there.
    assert os.read(read_end, 1) == b"x"
    os.close(read_end)
