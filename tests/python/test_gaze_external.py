"""gaze.source: external against the sources it must behave like (docs/python.md, docs/gaze.md).

A run's recorded gaze.csv pushed through World.set_gaze gives that run's frames back; with a
dropout cut in, the same frames as the replay source reading the same file: the fixation,
age, hold and fallback, and so the schedule and the metrics, every column equal but the
source's own name.
"""

import csv
import math
import os
import threading

import pytest

import fovea

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
PACKED = os.path.join(SOURCE, "configs", "studies", "packed500.yaml")
SMALL = {"world.entities[0].count": 120}
FRAMES = 60


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def without(rows, dropped):
    """Rows without the columns named in `dropped` nor the wall-clock _ms ones."""
    keep = [i for i, name in enumerate(rows[0]) if name not in dropped and not name.endswith("_ms")]
    return [[row[i] for i in keep] for row in rows]


def column(rows, name):
    i = rows[0].index(name)
    return [row[i] for row in rows[1:]]


def push_and_step(world, samples):
    """Before each frame, every sample whose time has come, as a tracker's callback hands them."""
    k = 0
    for _ in range(FRAMES):
        while k < len(samples) and samples[k][0] <= world.time_s + 1e-12:
            t, x, y, valid = samples[k]
            world.set_gaze(x, y, t_s=t, valid=valid)
            k += 1
        world.step()


def recorded_gaze(tmp_path):
    run = fovea.run(PACKED, overrides=dict(SMALL, **{"record.gaze": True, "gaze.source": "scripted"}),
                    frames=FRAMES, out=tmp_path / "recorded")
    rows = read_csv(run / "gaze.csv")
    header = rows[0]
    samples = []
    for row in rows[1:]:
        r = dict(zip(header, row))
        t = float(r["t_s"]) - float(r["age_ms"]) / 1000.0
        samples.append((t, float(r["x_px"]), float(r["y_px"]), r["valid"] == "1"))
    return run, samples


def test_a_recording_pushed_through_set_gaze_gives_the_recorded_frames(tmp_path):
    run, samples = recorded_gaze(tmp_path)
    with fovea.World(PACKED, overrides=dict(SMALL, **{"gaze.source": "external"}), record=tmp_path / "pushed") as world:
        push_and_step(world, samples)
    recorded = read_csv(run / "frames.csv")
    pushed = read_csv(tmp_path / "pushed" / "frames.csv")
    assert set(column(recorded, "gaze_source")) == {"scripted"}
    assert set(column(pushed, "gaze_source")) == {"external"}
    assert without(pushed, {"gaze_source"}) == without(recorded, {"gaze_source"})


def test_a_dropout_holds_then_falls_back_as_the_replay_source_does(tmp_path):
    _, samples = recorded_gaze(tmp_path)
    # 300 ms of lost track from 0.2 s: longer than the hold (200 ms), so the centre shows.
    cut = [(t, x, y, valid and not (0.2 <= t < 0.5)) for t, x, y, valid in samples]
    gaze_file = tmp_path / "cut.csv"
    with open(gaze_file, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["t_s", "x_px", "y_px", "valid"])
        for t, x, y, valid in cut:
            out.writerow([repr(t), repr(x), repr(y), int(valid)])
    replayed = fovea.run(PACKED, overrides=dict(SMALL, **{"gaze.source": "replay", "gaze.file": str(gaze_file)}),
                         frames=FRAMES, out=tmp_path / "replayed")
    with fovea.World(PACKED, overrides=dict(SMALL, **{"gaze.source": "external"}), record=tmp_path / "pushed") as world:
        push_and_step(world, cut)
    a = read_csv(replayed / "frames.csv")
    b = read_csv(tmp_path / "pushed" / "frames.csv")
    sources_a = ["external" if s == "replay" else s for s in column(a, "gaze_source")]
    sources_b = column(b, "gaze_source")
    assert sources_b == sources_a
    assert "hold" in sources_b and "centre" in sources_b
    assert without(b, {"gaze_source"}) == without(a, {"gaze_source"})


def test_refused_samples_raise_and_are_counted(tmp_path):
    world = fovea.World(PACKED, overrides=dict(SMALL, **{"gaze.source": "external"}))
    world.set_gaze(100, 200, t_s=0.0)
    with pytest.raises(ValueError, match="x_px"):
        world.set_gaze(math.nan, 200)
    with pytest.raises(ValueError):
        world.set_gaze(100, 200, confidence=2.0)
    world.step(2)
    with pytest.raises(ValueError):
        world.set_gaze(100, 200, t_s=-1.0)  # before the newest sample
    stats = world.step()
    assert stats["gaze_dropped"] == 3
    # The sample of t = 0 is 20 ms old at the third frame, under max_age_ms (100): still current.
    assert (stats["gaze_source"], stats["gaze_x_px"], stats["gaze_age_ms"]) == ("external", 100, 20)
    with pytest.raises(ValueError, match="^set_gaze: t_s "):
        world.set_gaze(100, 200, t_s=-1.0)

    scripted = fovea.World(PACKED, overrides=SMALL)
    with pytest.raises(fovea.ConfigError) as error:
        scripted.set_gaze(1, 2)
    assert error.value.key == "gaze.source"


def test_a_sample_from_the_far_future_is_refused_and_later_samples_are_still_used():
    # Before: one glitched time stamp (1e9 s) became the newest sample, and every real one after
    # it was refused as older: the source was locked out for the rest of the run.
    world = fovea.World(PACKED, overrides=dict(SMALL, **{"gaze.source": "external"}))
    world.set_gaze(100, 200, t_s=0.0)
    with pytest.raises(ValueError, match=r"^set_gaze: t_s 1000000000 s is more than 2 s ahead of the run's clock \(0 s"):
        world.set_gaze(500, 600, t_s=1e9)
    world.step(2)
    world.set_gaze(300, 400, t_s=world.time_s)
    stats = world.step()
    assert (stats["gaze_source"], stats["gaze_x_px"], stats["gaze_y_px"]) == ("external", 300, 400)
    assert stats["gaze_dropped"] == 1
    # The bound is 2 s past the last frame's time (World.time_s less one step), not past World.time_s.
    last_frame_s = world.time_s - world.config.time_step_s
    with pytest.raises(ValueError, match="more than 2 s ahead"):
        world.set_gaze(1, 2, t_s=last_frame_s + 2.001)
    world.set_gaze(1, 2, t_s=last_frame_s + 1.999)
    assert world.step()["gaze_dropped"] == 2


def test_a_tracker_thread_pushes_while_the_world_steps():
    world = fovea.World(PACKED, overrides=dict(SMALL, **{"gaze.source": "external"}))
    stop = threading.Event()
    stamps = []

    def tracker():
        # A tracker's callback: samples stamped on the world's clock as they come.
        while not stop.is_set():
            t = world.time_s
            world.set_gaze(960.0, 540.0, t_s=t)
            stamps.append(t)

    thread = threading.Thread(target=tracker)
    thread.start()
    try:
        stats = world.step(60)  # one call: the thread pushes while its frames run
    finally:
        stop.set()
        thread.join()
    # Pushes stamped at frames strictly inside the one step(60) call: the GIL was free.
    assert len({t for t in stamps if 0 < t < 0.59}) > 2
    # None refused: stamps read from the clock while it moves never go back. (Which source
    # the last frame used depends on when the thread last got the GIL, so it is not asserted.)
    assert stats["gaze_dropped"] == 0
