"""World driven as pybullet users drive a world (docs/python.md, "Driving a world like pybullet"):
poses and velocities set and read by entity id, entities added and removed, the world reset,
offscreen pictures, and fovea.experiment and fovea.fit beside fovea.run.

Run by ctest through tests/python/run_pytest.sh, from the source folder, with the built
module on the path and FOVEA_BINARY naming the fovea program built beside it.
"""

import csv
import json
import math
import os
import signal
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

import fovea

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
BINARY = os.environ.get("FOVEA_BINARY", fovea.fovea_binary)
SPEC = os.path.join(SOURCE, "configs", "experiments", "gap_eccentricity.yaml")
OBSERVER = os.path.join(SOURCE, "configs", "perception", "default.yaml")
EXAMPLE = os.path.join(SOURCE, "experiments", "python", "world_api_example.py")


def scene(count=1, **keys):
    """A 10 m box without gravity, `count` balls of 0.5 m, every collision resolved."""
    config = {"name": "api", "frames": 100,
              "world": {"box_size_m": [10, 10, 10],
                        "entities": [{"name": "balls", "count": count,
                                      "model": {"shape": "ball", "size_m": 0.5, "resolution_voxels": 8}}]},
              "response": {"gravity_mps2": [0, 0, 0]},
              "budget": {"mode": "unlimited"}}
    config.update(keys)
    return config


def quaternion_about(axis, angle_rad):
    """(x, y, z, w) of a rotation by angle_rad about the unit `axis`, scalar last."""
    s = math.sin(angle_rad / 2)
    return np.array([axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle_rad / 2)])


def without_wall_clock(stats):
    """A frames.csv row without its wall-clock columns, NaN (an empty cell) as text so rows compare."""
    return {k: ("nan" if isinstance(v, float) and math.isnan(v) else v) for k, v in stats.items()
            if not k.endswith("_ms")}


def same_arrays(a, b):
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def read_png(path):
    """An 8-bit RGB PNG (as fovea's capture writes them) as a (height, width, 3) uint8 array:
    the zlib stream and the five row filters of the PNG specification, nothing more."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, stream = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            stream += body
    assert (depth, colour) == (8, 2)
    raw, stride = zlib.decompress(stream), width * 3
    rows, previous = [], [0] * stride
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        row = [0] * stride
        for x in range(stride):
            a = row[x - 3] if x >= 3 else 0
            b = previous[x]
            c = previous[x - 3] if x >= 3 else 0
            if kind == 0:
                p = 0
            elif kind == 1:
                p = a
            elif kind == 2:
                p = b
            elif kind == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            row[x] = (line[x] + p) & 255
        rows.append(row)
        previous = row
    return np.array(rows, dtype=np.uint8).reshape(height, width, 3)


# Poses and velocities.

def test_poses_and_velocities_read_back_in_metres_and_quaternions_scalar_last():
    world = fovea.World(scene(count=4))
    q = quaternion_about([0, 0, 1], 0.5)
    world.set_pose(2, [4.0, 5.0, 6.0], q)
    position, orientation = world.pose(2)
    assert position.shape == (3,) and orientation.shape == (4,)
    assert position.tolist() == [4.0, 5.0, 6.0]
    assert np.allclose(orientation, q, rtol=0, atol=1e-15)
    # entities() is the other reader of the same state.
    e = world.entities()
    assert e["position_m"][2].tolist() == [4.0, 5.0, 6.0] and np.array_equal(e["orientation_xyzw"][2], orientation)
    # A batch: rows in the order of the ids, orientation kept where not given.
    ids = np.array([3, 0])
    world.set_pose(ids, [[1.0, 1.0, 1.0], [9.0, 9.0, 9.0]])
    positions, orientations = world.pose(ids)
    assert positions.tolist() == [[1.0, 1.0, 1.0], [9.0, 9.0, 9.0]] and orientations.shape == (2, 4)
    assert np.array_equal(orientations[0], e["orientation_xyzw"][3])
    # A quaternion off unit length by rounding is normalised.
    world.set_pose(1, orientation_xyzw=np.float32([0, 0.6, 0, 0.8]))
    assert math.isclose(np.linalg.norm(world.pose(1)[1]), 1.0, rel_tol=1e-15)
    world.set_velocity(2, [0.5, -1.0, 2.0], [0.0, 0.0, 3.0])
    linear, angular = world.velocity(2)
    assert linear.tolist() == [0.5, -1.0, 2.0] and angular.tolist() == [0.0, 0.0, 3.0]
    assert world.velocity([2])[0].shape == (1, 3)
    assert world.pose([])[0].shape == (0, 3)


def test_one_step_moves_an_entity_by_v_dt_and_turns_it_by_w_dt_about_the_world_axis():
    # A lone ball in the middle of an empty box: the integrator moves it first (x += v dt,
    # docs/world.md) and turns it by exactly |w| dt, its inertia being isotropic.
    world = fovea.World(scene(count=1))
    dt = world.config.time_step_s
    start = quaternion_about([1, 0, 0], 0.3)
    world.set_pose(0, [5.0, 5.0, 5.0], start)
    world.set_velocity(0, [1.0, 2.0, -0.5], [0.0, 0.0, 2.0])
    world.step()
    position, orientation = world.pose(0)
    assert np.allclose(position, [5.0 + 1.0 * dt, 5.0 + 2.0 * dt, 5.0 - 0.5 * dt], rtol=0, atol=1e-12)
    # World frame: the turn about z is applied after (to the left of) the starting rotation.
    turn = quaternion_about([0, 0, 1], 2.0 * dt)
    x1, y1, z1, w1 = turn
    x2, y2, z2, w2 = start
    expected = np.array([w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2, w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                         w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2, w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2])
    assert np.allclose(orientation, expected, rtol=0, atol=1e-12) or np.allclose(orientation, -expected, rtol=0, atol=1e-12)
    assert np.allclose(world.velocity(0)[1], [0.0, 0.0, 2.0], rtol=0, atol=1e-12)


def test_bad_poses_and_velocities_are_refused_and_change_nothing():
    world = fovea.World(scene(count=3))
    before = world.entities()
    refused = [
        (ValueError, "is not one of this world's", lambda: world.pose(3)),
        (ValueError, "is not one of this world's", lambda: world.pose(-1)),
        (ValueError, "is not one of this world's", lambda: world.pose(2**70)),
        (TypeError, "entity ids are ints", lambda: world.pose(1.0)),
        (TypeError, "entity ids are ints", lambda: world.pose(True)),
        (TypeError, "entity ids are ints", lambda: world.pose("0")),
        (ValueError, "1-D array", lambda: world.pose([[0, 1]])),
        (ValueError, "named twice", lambda: world.set_pose([1, 1], [[5, 5, 5], [6, 6, 6]])),
        (ValueError, "give position_m, orientation_xyzw or both", lambda: world.set_pose(0)),
        (ValueError, r"shape \(3,\) for one entity; got \(2,\)", lambda: world.set_pose(0, [5, 5])),
        (ValueError, r"shape \(2, 3\) for 2 entities", lambda: world.set_pose([0, 1], [5, 5, 5])),
        (ValueError, "must have shape", lambda: world.set_pose(0, np.zeros((10**6, 3)))),
        (ValueError, "every value must be finite", lambda: world.set_pose(0, [5, math.nan, 5])),
        (ValueError, "every value must be finite", lambda: world.set_pose([0, 1], [[5, 5, 5], [5, 5, math.inf]])),
        (ValueError, "outside the world box", lambda: world.set_pose([0, 1], [[5, 5, 5], [5, 5, 10.5]])),
        (ValueError, "outside the world box", lambda: world.set_pose(0, [-1e308, 5, 5])),
        (ValueError, "has norm 0;", lambda: world.set_pose(0, orientation_xyzw=[0, 0, 0, 0])),
        (ValueError, "has norm 2;", lambda: world.set_pose(0, orientation_xyzw=[0, 0, 0, 2])),
        (ValueError, "has norm", lambda: world.set_pose([0, 1], [[5, 5, 5], [6, 6, 6]], [[0, 0, 0, 1], [1, 1, 1, 1]])),
        (TypeError, "holds numbers", lambda: world.set_pose(0, [True, False, True])),
        (TypeError, "holds numbers", lambda: world.set_pose(0, ["5", "5", "5"])),
        (TypeError, "holds numbers", lambda: world.set_pose(0, [5, None, 5])),
        (TypeError, "holds numbers", lambda: world.set_pose(0, [5j, 5, 5])),
        (ValueError, None, lambda: world.set_pose(0, [[5, 5], [5]])),  # ragged: NumPy's own ValueError
        (ValueError, "faster than 1000000", lambda: world.set_velocity(0, [1e6, 1e6, 0])),
        (ValueError, "faster than 1000000", lambda: world.set_velocity(0, angular_velocity_radps=[0, 0, 2e6])),
        (ValueError, "every value must be finite", lambda: world.set_velocity(0, [0, 0, -math.inf])),
        (ValueError, "give velocity_mps, angular_velocity_radps or both", lambda: world.set_velocity(0)),
    ]
    for error, message, call in refused:
        with pytest.raises(error, match=message):
            call()
    assert same_arrays(world.entities(), before)


def test_generated_hostile_arguments_are_refused_with_value_or_type_errors_and_change_nothing():
    hypothesis = pytest.importorskip(
        "hypothesis", reason="needs python3-hypothesis (apt install python3-hypothesis; ./fovea test installs it)")
    import tempfile
    import time

    from hypothesis import HealthCheck, given, settings, strategies as st
    from hypothesis.configuration import set_hypothesis_home_dir
    from hypothesis.extra import numpy as hnp

    # As test_hostile_api.py: no cache in the source folder, the same examples every run
    # unless FOVEA_HYPOTHESIS_RANDOM=1.
    set_hypothesis_home_dir(os.path.join(tempfile.gettempdir(), "fovea-hypothesis"))
    random = os.environ.get("FOVEA_HYPOTHESIS_RANDOM", "") not in ("", "0")
    dtypes = st.sampled_from([np.float64, np.float32, np.float16, np.int64, np.uint64, np.int8, np.uint8, np.bool_,
                              np.complex128, np.dtype("U2")])
    arrays = hnp.arrays(dtypes, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=3), st.binary(max_size=3))
    values = st.one_of(arrays, scalars, st.lists(st.one_of(scalars, st.lists(scalars, max_size=4)), max_size=5),
                       st.lists(st.floats(-20, 20), min_size=3, max_size=3),
                       st.lists(st.lists(st.floats(-20, 20), min_size=4, max_size=4), min_size=1, max_size=3))
    ids = st.one_of(st.integers(-3, 8), st.integers(), st.lists(st.integers(-1, 8), max_size=4), arrays, scalars)
    world = fovea.World(scene(count=6))
    model = int(world.entities()["model"][0])
    calls = st.one_of(
        st.tuples(st.just("set_pose"), ids, values, values),
        st.tuples(st.just("set_velocity"), ids, values, values),
        st.tuples(st.just("pose"), ids),
        st.tuples(st.just("add_entity"), st.one_of(st.just(model), scalars), values, values),
        st.tuples(st.just("add_model"), values, st.one_of(st.just(0), scalars), st.one_of(st.just(0.1), st.floats())),
    )

    @settings(max_examples=300, deadline=None, database=None, derandomize=not random,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(calls)
    def check(call):
        before = world.entities()
        start = time.process_time()
        try:
            getattr(world, call[0])(*call[1:])
        except (ValueError, TypeError):
            assert same_arrays(world.entities(), before)
        assert time.process_time() - start < 2.0

    check()
    # The world still steps and reads whole.
    world.step(2)
    e = world.entities()
    assert np.isfinite(e["position_m"]).all() and np.allclose(np.linalg.norm(e["orientation_xyzw"], axis=1), 1.0)


# Entities added and removed.

def test_an_added_voxel_model_is_indexed_x_y_z_and_collides_where_its_voxels_are():
    # A bar of 20 voxels along x (2 m) and a one-voxel cube beside it: touching its end along
    # x, clear of it along y at the same distance. Every collision is resolved exactly.
    world = fovea.World(scene(count=1))
    world.set_pose(0, [1.0, 1.0, 1.0])
    bar = world.add_model(np.ones((20, 1, 1), dtype=bool), 0, voxel_size_m=0.1)
    dot = world.add_model(np.ones((1, 1, 1), dtype=np.uint8), "balls", voxel_size_m=0.1)
    centre = np.array([5.0, 5.0, 5.0])
    a = world.add_entity(bar, centre)
    along_x = world.add_entity(dot, centre + [0.9, 0.0, 0.0])
    along_y = world.add_entity(dot, centre + [0.0, 0.9, 0.0])
    assert world.live_entity_count == 4
    e = world.entities()
    assert e["model"][[a, along_x, along_y]].tolist() == [bar, dot, dot]
    assert e["group"][[a, along_x, along_y]].tolist() == [0, 0, 0]
    world.step()
    c = world.collisions()
    colliding = {(int(x), int(y)) for x, y, hit in zip(c["entity_a"], c["entity_b"], c["colliding"]) if hit}
    assert (min(a, along_x), max(a, along_x)) in colliding
    assert (min(a, along_y), max(a, along_y)) not in colliding


def test_entities_of_an_existing_model_are_added_and_removed_as_pybullet_bodies_are():
    world = fovea.World(scene(count=3))
    model = int(world.entities()["model"][0])
    q = quaternion_about([0, 1, 0], 1.0)
    new = world.add_entity(model, [2.0, 3.0, 4.0], q, velocity_mps=[1.0, 0.0, 0.0])
    assert new == 3 and world.live_entity_count == 4
    position, orientation = world.pose(new)
    assert position.tolist() == [2.0, 3.0, 4.0] and np.allclose(orientation, q, rtol=0, atol=1e-15)
    assert world.velocity(new)[0].tolist() == [1.0, 0.0, 0.0]
    world.step()
    world.remove_entity([new, 1])
    assert world.live_entity_count == 2
    e = world.entities()
    assert e["live"].tolist() == [True, False, True, False]
    assert np.array_equal(e["velocity_mps"][new], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="was removed"):
        world.pose(new)
    with pytest.raises(ValueError, match="was removed"):
        world.remove_entity(1)
    world.step()
    c = world.collisions()
    assert not ({1, new} & set(c["entity_a"].tolist() + c["entity_b"].tolist()))
    # A removed entity's id is given again once a step has taken it out of the broad phase.
    assert world.add_entity(model, [5.0, 5.0, 5.0]) in (1, new)


def test_bad_models_and_entities_are_refused():
    world = fovea.World(scene(count=2, world={"box_size_m": [10, 10, 10], "entities": [
        {"name": "balls", "count": 2, "model": {"shape": "ball", "size_m": 0.5, "resolution_voxels": 8}},
        {"name": "floor", "count": 1, "static": True,
         "model": {"shape": "box", "size_m": 1, "resolution_voxels": 4}}]}))
    cube = np.ones((2, 2, 2), dtype=bool)
    refused = [
        (TypeError, "bool or uint8", lambda: world.add_model(np.ones((2, 2, 2)), 0, 0.1)),
        (TypeError, "bool or uint8", lambda: world.add_model(np.ones((2, 2, 2), dtype=np.int64), 0, 0.1)),
        (TypeError, "bool or uint8", lambda: world.add_model([[["x"]]], 0, 0.1)),
        (ValueError, "3-D array", lambda: world.add_model(np.ones((2, 2), dtype=bool), 0, 0.1)),
        (ValueError, "1 to 256 voxels", lambda: world.add_model(np.broadcast_to(np.True_, (257, 1, 1)), 0, 0.1)),
        (ValueError, "1 to 256 voxels", lambda: world.add_model(np.broadcast_to(np.True_, (10**9, 10**9, 1)), 0, 0.1)),
        (ValueError, "1 to 256 voxels", lambda: world.add_model(np.ones((0, 2, 2), dtype=bool), 0, 0.1)),
        (ValueError, "no voxel is occupied", lambda: world.add_model(np.zeros((3, 3, 3), dtype=bool), 0, 0.1)),
        (ValueError, "1e-6 to 1e6 m", lambda: world.add_model(cube, 0, 0.0)),
        (ValueError, "1e-6 to 1e6 m", lambda: world.add_model(cube, 0, math.nan)),
        (ValueError, "1e-6 to 1e6 m", lambda: world.add_model(cube, 0, 1e6)),
        (ValueError, "1e-6 to 1e6 m", lambda: world.add_model(cube, 0, -0.1)),
        (ValueError, r"not an index into world.entities \(0 to 1\)", lambda: world.add_model(cube, 2, 0.1)),
        (ValueError, "not an index", lambda: world.add_model(cube, -1, 0.1)),
        (ValueError, "not an index", lambda: world.add_model(cube, 10**30, 0.1)),
        (ValueError, "no entity group is named 'rocks'; the groups are 'balls', 'floor'",
         lambda: world.add_model(cube, "rocks", 0.1)),
        (TypeError, "group is an index", lambda: world.add_model(cube, True, 0.1)),
        (TypeError, "group is an index", lambda: world.add_model(cube, 0.5, 0.1)),
        (ValueError, "is not a model of this world", lambda: world.add_entity(99, [5, 5, 5])),
        (ValueError, "is not a model of this world", lambda: world.add_entity(-1, [5, 5, 5])),
        (TypeError, "model is a model id", lambda: world.add_entity(True, [5, 5, 5])),
        (TypeError, "model is a model id", lambda: world.add_entity("0", [5, 5, 5])),
        (ValueError, "outside the world box", lambda: world.add_entity(0, [5, 5, 11])),
        (ValueError, "has norm", lambda: world.add_entity(0, [5, 5, 5], [1, 1, 0, 0])),
        (ValueError, "faster than", lambda: world.add_entity(0, [5, 5, 5], velocity_mps=[2e6, 0, 0])),
        (ValueError, "static group: its entities never move",
         lambda: world.add_entity(int(world.entities()["model"][2]), [5, 5, 5], velocity_mps=[1, 0, 0])),
        (ValueError, r"is static \(group 'floor', is_static\)", lambda: world.set_velocity(2, [1, 0, 0])),
        (ValueError, "is not one of this world's", lambda: world.remove_entity(7)),
    ]
    before = world.entities()
    for error, message, call in refused:
        with pytest.raises(error, match=message):
            call()
    assert same_arrays(world.entities(), before) and world.live_entity_count == 3
    # A static entity may be moved, as pybullet's fixed bodies may.
    world.set_pose(2, [3.0, 3.0, 3.0])
    assert world.pose(2)[0].tolist() == [3.0, 3.0, 3.0]


def test_a_world_with_a_demo_refuses_to_remove_the_entities_it_drives():
    world = fovea.World(os.path.join(SOURCE, "configs", "demos", "crowd.yaml"))
    with pytest.raises(ValueError, match="demo.kind crowd drives entities by their ids"):
        world.remove_entity(0)
    assert world.live_entity_count == len(world.entities()["live"])


# Reset.

def test_a_reset_world_steps_to_the_same_arrays_as_a_fresh_one():
    config = scene(count=30)
    world = fovea.World(config)
    world.step(4)
    world.set_pose(0, [5.0, 5.0, 5.0])
    world.set_velocity(1, [3.0, 0.0, 0.0])
    world.add_entity(int(world.entities()["model"][0]), [2.0, 2.0, 2.0])
    world.remove_entity(5)
    world.set_budget(mode="work", tests=300)  # a live change: kept by reset, as world.config says
    world.step(2)
    world.reset()
    assert world.frames_done == 0 and world.live_entity_count == 30
    fresh = fovea.World(world.config)
    for _ in range(6):
        assert without_wall_clock(world.step()) == without_wall_clock(fresh.step())
    assert same_arrays(world.entities(), fresh.entities())
    assert same_arrays(world.collisions(), fresh.collisions())

    # Another seed: the world a fresh World of that seed starts with, and not the first one.
    world.reset(seed=7)
    assert world.config.seed == 7
    other = fovea.World(config, overrides={"seed": 7})
    first = fovea.World(config)
    assert same_arrays(world.entities(), other.entities())
    assert not np.array_equal(world.entities()["position_m"], first.entities()["position_m"])
    world.step(3)
    other.step(3)
    assert same_arrays(world.entities(), other.entities())
    with pytest.raises(fovea.ConfigError, match="seed"):
        world.reset(seed=-1)
    assert world.frames_done == 3 and world.config.seed == 7


def test_a_recorded_world_records_its_changes_and_resets_in_events_csv(tmp_path):
    with fovea.World(scene(count=5), record=tmp_path / "run") as world:
        world.step(2)
        world.set_pose(0, [5.0, 5.0, 5.0], [0.0, 0.0, 0.0, 1.0])
        new = world.add_entity(0, [2.0, 2.0, 2.0], velocity_mps=[0.5, 0.0, 0.0])
        world.remove_entity(new)
        world.step()
        world.reset()
        world.step(2)
    events = list(csv.reader((tmp_path / "run" / "events.csv").read_text().splitlines()))
    assert [(frames, event.split(":")[0]) for _, frames, event in events[1:]] == [
        ("2", "set_pose"), ("2", "add_entity"), ("2", "remove_entity"), ("3", "reset")]
    assert events[1][2] == "set_pose: {entity: 0, position_m: [5, 5, 5], orientation_xyzw: [0, 0, 0, 1]}"
    assert "velocity_mps: [0.5, 0, 0]" in events[2][2]
    frames = list(csv.DictReader((tmp_path / "run" / "frames.csv").read_text().splitlines()))
    assert [row["frame"] for row in frames] == ["0", "1", "2", "0", "1"]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (manifest["status"], manifest["frames_completed"]) == ("completed", 5)


# Pictures.

def test_render_draws_the_frame_fovea_run_captures(tmp_path):
    sets = ["world.entities[0].count=40", "render.width_px=96", "render.height_px=54", "frames=3"]
    capture = tmp_path / "capture"
    subprocess.run([BINARY, "run", "--offscreen", "--quiet", "--capture", str(capture), "--out", str(tmp_path / "run")]
                   + [x for s in sets for x in ("--set", s)], check=True)
    world = fovea.World(None, overrides=sets)
    world.step(3)
    picture = world.render()
    assert picture.shape == (54, 96, 3) and picture.dtype == np.uint8
    assert np.array_equal(picture, read_png(capture / "frame_000002.png"))


def test_render_has_the_size_asked_and_shows_an_entity_moved_into_view():
    world = fovea.World(scene(count=1))
    world.set_pose(0, [0.5, 0.5, 0.5])
    world.step()
    # The camera frames the box and looks at its centre: the picture's centre pixel.
    empty = world.render(120, 80, overlays=False)
    assert empty.shape == (80, 120, 3)
    assert len(np.unique(empty.reshape(-1, 3), axis=0)) > 1, "the box's far corner ball and the background"
    world.set_pose(0, [5.0, 5.0, 5.0])
    shown = world.render(120, 80, overlays=False)
    assert not np.array_equal(shown[40, 60], empty[40, 60])
    assert np.array_equal(empty[40, 60], empty[40, 2]), "the centre was background before"
    # One side given: the other from the screen's aspect (16:9 by default); a square picture
    # letterboxed, black above and below.
    assert world.render(width_px=64).shape == (36, 64, 3)
    assert world.render(height_px=90).shape == (90, 160, 3)
    square = world.render(100, 100)
    assert square.shape == (100, 100, 3) and not square[0].any() and not square[-1].any() and square[50].any()
    # From another thread, the same picture (the context follows the caller).
    import threading
    pictures = []
    drawing = threading.Thread(target=lambda: pictures.append(world.render(120, 80, overlays=False)))
    drawing.start()
    drawing.join()
    assert np.array_equal(pictures[0], shown)
    # After a reset, and with another world between, each picture is of its own world.
    other = fovea.World(scene(count=60))
    crowded = other.render(120, 80, overlays=False)
    world.reset()
    assert not np.array_equal(crowded, world.render(120, 80, overlays=False))
    assert np.array_equal(world.render(120, 80, overlays=False), fovea.World(scene(count=1)).render(120, 80, overlays=False))


def test_render_refuses_sizes_outside_its_bounds():
    world = fovea.World(scene(count=1))
    for width, height in ((0, 10), (10, 0), (-5, 10), (4097, 10), (10, 10**12)):
        with pytest.raises(ValueError, match="outside 1 to 4096 pixels"):
            world.render(width, height)
    with pytest.raises(TypeError):
        world.render("wide")


def test_rendering_leaves_sigterm_to_python():
    # SDL, started for the picture, would take SIGTERM for its own quit event, and the
    # interpreter would no longer end by it.
    script = ("import os, signal, time, fovea\n"
              "fovea.World({'world': {'entities': [{'count': 2}]}}).render(32, 18)\n"
              "os.kill(os.getpid(), signal.SIGTERM)\n"
              "time.sleep(30)\n")
    done = subprocess.run([sys.executable, "-c", script], timeout=60)
    assert done.returncode == -signal.SIGTERM


# Experiments and fits.

def test_experiment_and_fit_write_what_the_commands_write(tmp_path):
    sets = {"constant_stimuli.repetitions": 2, "constant_stimuli.blocks": 1}
    folder = fovea.experiment(SPEC, "P01", observer=OBSERVER, overrides=sets, out=tmp_path / "py" / "P01")
    assert folder == tmp_path / "py" / "P01"
    cli = tmp_path / "cli" / "P01"
    subprocess.run([BINARY, "experiment", SPEC, "--participant", "P01", "--observer", OBSERVER, "--out", str(cli),
                    "--quiet"] + [x for k, v in sets.items() for x in ("--set", "%s=%s" % (k, v))], check=True)

    def trials(path):
        rows = list(csv.DictReader(open(path / "trials.csv")))
        return [{k: v for k, v in row.items() if not k.endswith("_utc")} for row in rows]

    # 6 gaps x 4 eccentricities x 2 repetitions and the block's catch trials, as the spec says.
    py_trials = trials(folder)
    assert len(py_trials) == 6 * 4 * 2 + 8 and py_trials == trials(cli)
    assert (folder / "experiment.yaml").read_bytes() == (cli / "experiment.yaml").read_bytes()

    model = fovea.fit(folder / "trials.csv", tmp_path / "py_fit" / "model.yaml", bootstrap=20, plots=False)
    assert model == tmp_path / "py_fit" / "model.yaml"
    subprocess.run([BINARY, "fit", str(cli / "trials.csv"), "-o", str(tmp_path / "cli_fit" / "model.yaml"),
                    "--bootstrap", "20", "--no-plots"], check=True, capture_output=True)
    for name in ("model.yaml", "model_conditions.csv"):
        assert (tmp_path / "py_fit" / name).read_bytes() == (tmp_path / "cli_fit" / name).read_bytes()
    fitted = json.loads((tmp_path / "py_fit" / "model_fit.json").read_text())
    assert fitted["pooled"]["trials"] == len(py_trials) and fitted["command_line"][-1] == "fovea.fit"
    # The model loads as a run's perception model.
    assert fovea.load_config(None, {"perception.model.file": str(model)}).name == "default"

    # A second session in the same folder, without resume: refused as the command refuses it,
    # in its words (exit status 2, nothing run).
    again = subprocess.run([BINARY, "experiment", SPEC, "--participant", "P01", "--observer", OBSERVER, "--out",
                            str(cli), "--quiet"] + [x for k, v in sets.items() for x in ("--set", "%s=%s" % (k, v))],
                           capture_output=True, text=True)
    assert again.returncode == 2
    with pytest.raises(fovea.ConfigError) as refused:
        fovea.experiment(SPEC, "P01", observer=OBSERVER, overrides=sets, out=folder)
    assert str(refused.value).replace(str(folder), str(cli)) == again.stderr.strip().splitlines()[-1]
    assert len(trials(folder)) == len(py_trials)


def test_experiment_and_fit_refuse_bad_arguments_with_the_commands_messages(tmp_path):
    out = tmp_path / "p"
    refused = [
        (fovea.ConfigError, "--participant a/b: expected a name",
         lambda: fovea.experiment(SPEC, "a/b", observer=OBSERVER, out=out)),
        (fovea.ConfigError, "constant_stimuli.repetitions",
         lambda: fovea.experiment(SPEC, "P", observer=OBSERVER, out=out, overrides={"constant_stimuli.repetitions": -1})),
        (ValueError, "observer_pace_ms nan is outside 0 to 600000",
         lambda: fovea.experiment(SPEC, "P", observer=OBSERVER, out=out, observer_pace_ms=math.nan)),
        (ValueError, "holds a NUL byte", lambda: fovea.experiment(SPEC + "\0x", "P", observer=OBSERVER, out=out)),
        (ValueError, "holds a NUL byte", lambda: fovea.experiment(SPEC, "P\0", observer=OBSERVER, out=out)),
        (TypeError, "os.PathLike", lambda: fovea.experiment(SPEC, "P", observer=5, out=out)),
        (fovea.ConfigError, "--bootstrap: Value -1 not in range 0 to 100000",
         lambda: fovea.fit(tmp_path / "t.csv", out / "m.yaml", bootstrap=-1)),
        (fovea.ConfigError, r"--function: probit not in \{logistic,weibull\}",
         lambda: fovea.fit(tmp_path / "t.csv", out / "m.yaml", function="probit")),
        (fovea.ConfigError, "--max-lapse: Value 0.9 not in range",
         lambda: fovea.fit(tmp_path / "t.csv", out / "m.yaml", max_lapse=0.9)),
        (fovea.ConfigError, "trials is required", lambda: fovea.fit([], out / "m.yaml")),
        (ValueError, "holds a NUL byte", lambda: fovea.fit(["a\0.csv"], out / "m.yaml")),
        (TypeError, None, lambda: fovea.fit(5, out / "m.yaml")),
        (ValueError, "more than 100000 trials files", lambda: fovea.fit(iter(lambda: "t.csv", None), out / "m.yaml")),
        (fovea.ConfigError, "cannot", lambda: fovea.fit(tmp_path / "missing.csv", out / "m.yaml", plots=False)),
    ]
    for error, message, call in refused:
        with pytest.raises(error, match=message):
            call()
    assert not out.exists()


# The example.

def test_the_world_api_example_runs(tmp_path):
    done = subprocess.run([sys.executable, EXAMPLE, "--frames", "20", "--out", str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("added entity ") for line in lines)
    assert "a reset world steps as a fresh one: True" in lines
    for name in ("before.png", "after.png"):
        picture = read_png(tmp_path / name)
        assert picture.shape == (180, 320, 3) and len(np.unique(picture.reshape(-1, 3), axis=0)) > 1
