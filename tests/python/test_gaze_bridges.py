"""The EyeLink, Tobii and LSL bridges (experiments/python/*_bridge.py) against fakes of their SDKs.

pylink, tobii_research and pylsl are no Debian packages and need hardware, so each bridge runs
as its own process with tests/python/fake_sdks/ first on its path: a fake tracker plays a
scripted gaze path (a fixation, a blink, another fixation) on a clock far from fovea's. A
fovea.World with gaze.source: stream listens on a free port in this process and is stepped
until it has seen the whole path. What the frames used must be the fake's points converted
(pixels, fractions of the screen, the eyes averaged), the blink must reach fovea as invalid
samples, and the samples' ages must be small: the clock mapping is right.

Also fovea.gaze.StreamSender's refusals when no fovea listens.
"""

import json
import math
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

import fovea
from fovea.gaze import StreamSender

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
BRIDGES = os.path.join(SOURCE, "experiments", "python")
FAKE_SDKS = os.path.join(SOURCE, "tests", "python", "fake_sdks")
MODULE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(fovea.__file__)))
WIDTH_PX, HEIGHT_PX = 800, 600
# Long enough that a sample's age never makes a frame fall back while the bridge runs, even
# on a loaded machine: a frame without "stream" is then the blink's invalid samples, not a
# late sample.
MAX_AGE_MS = 2000
# The fake's blink is 500 ms; the hold (200 ms) shows, then the centre.
PATH_TIMEOUT_S = 8.0


def free_port_pair():
    """A port whose next port is free too (the stream's clock), both closed again for fovea."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port > 65533:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair")


def stream_world(port):
    return fovea.World(None, overrides={"gaze.source": "stream", "gaze.port": port, "gaze.max_age_ms": MAX_AGE_MS,
                                        "perception.view.screen.width_px": WIDTH_PX,
                                        "perception.view.screen.height_px": HEIGHT_PX})


def start_bridge(name, args, path=None, extra_env=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([FAKE_SDKS, MODULE_DIR]), **(extra_env or {}))
    if path is not None:
        env["FOVEA_FAKE_GAZE"] = json.dumps(path)
    return subprocess.Popen([sys.executable, os.path.join(BRIDGES, name)] + args, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def watch_path(world, bridge, a_px, b_px):
    """Steps the world until a frame used point B; returns every frame's gaze from the first that used A."""
    frames = []
    deadline = time.monotonic() + PATH_TIMEOUT_S
    while time.monotonic() < deadline:
        assert bridge.poll() is None, bridge.communicate()[1]
        world.step()
        gaze = world.gaze
        if frames or gaze["source"] == "stream":
            frames.append(gaze)
        if gaze["source"] == "stream" and (gaze["x_px"], gaze["y_px"]) == pytest.approx(b_px):
            return frames
        time.sleep(0.002)
    bridge.kill()
    pytest.fail(f"the world never used B {b_px} within {PATH_TIMEOUT_S} s; frames from the first stream one: "
                f"{frames[:3]} ... {frames[-3:]}; bridge: {bridge.communicate()[1]}")


def check_path(frames, a_px, b_px):
    """A, then frames without a stream sample (the blink), then B; ages small and never negative."""
    streamed = [g for g in frames if g["source"] == "stream"]
    for g in streamed:
        assert (g["x_px"], g["y_px"]) in (pytest.approx(a_px), pytest.approx(b_px)), g
        assert g["valid"] is True
        # Sample times on fovea's clock: a wrong offset shows as a dropped sample (too far
        # ahead), an age below zero, or one of seconds.
        # A sample may be stamped up to 50 ms past the frame (fovea's tolerance for a clock
        # offset measured to half a round trip; EyeLink's clock counts whole milliseconds).
        assert -50 <= g["age_ms"] < 500, g
    assert (frames[0]["x_px"], frames[0]["y_px"]) == pytest.approx(a_px)
    first_b = next(i for i, g in enumerate(frames)
                   if g["source"] == "stream" and (g["x_px"], g["y_px"]) == pytest.approx(b_px))
    blink = [g for g in frames[:first_b] if g["source"] != "stream"]
    # With max_age_ms this long, only invalid samples make the frames fall back.
    assert blink, "the blink never reached fovea as invalid samples"
    assert {g["source"] for g in blink} <= {"hold", "centre"}
    assert all(g["valid"] is False for g in blink)
    # Well-formed messages whose times never go back: fovea dropped none.
    assert frames[-1]["dropped"] == 0


def stop(bridge):
    """Ctrl-C, as a person stops a bridge: it must clean up and say what it sent."""
    bridge.send_signal(signal.SIGINT)
    out, err = bridge.communicate(timeout=5)
    assert bridge.returncode == 0, err
    return err


def test_eyelink_bridge_sends_pixels_the_eyes_averaged_and_blinks_as_invalid():
    path = [{"s": 0.6, "left": [100, 200], "right": [120, 220]},   # both eyes: their average
            {"s": 0.5, "left": None, "right": None},               # a blink: MISSING_DATA
            {"s": 5.0, "left": None, "right": [500, 400]}]          # the left eye lost: the right's
    port = free_port_pair()
    with stream_world(port) as world:
        bridge = start_bridge("eyelink_bridge.py", ["--port", str(port), "--screen-px", str(WIDTH_PX), str(HEIGHT_PX),
                                                    "--seconds", "9"], path)
        frames = watch_path(world, bridge, (110, 210), (500, 400))
        check_path(frames, (110, 210), (500, 400))
        err = stop(bridge)
    assert "fake pylink: sendCommand screen_pixel_coords = 0 0 799 599" in err
    assert "fake pylink: stopRecording" in err and "fake pylink: close" in err
    assert "eyelink_bridge: stopped; " in err


def test_eyelink_bridge_sends_the_chosen_eye_only():
    path = [{"s": 0.6, "left": [100, 200], "right": [120, 220]},
            {"s": 0.5, "left": None, "right": [300, 300]},          # the left eye blinks alone
            {"s": 5.0, "left": [600, 500], "right": [10, 10]}]
    port = free_port_pair()
    with stream_world(port) as world:
        bridge = start_bridge("eyelink_bridge.py", ["--port", str(port), "--eye", "left", "--seconds", "9",
                                                    "--screen-px", str(WIDTH_PX), str(HEIGHT_PX)], path)
        frames = watch_path(world, bridge, (100, 200), (600, 500))
        check_path(frames, (100, 200), (600, 500))
        stop(bridge)


def test_tobii_bridge_sends_display_area_fractions_the_valid_eyes_averaged():
    path = [{"s": 0.6, "left": [0.25, 0.5], "right": [0.35, 0.5]},  # both valid: (0.3, 0.5) of 800 x 600
            {"s": 0.5, "left": None, "right": None},                # both invalid
            {"s": 5.0, "left": [0.75, 0.25], "right": None}]        # the right eye invalid: the left's
    port = free_port_pair()
    with stream_world(port) as world:
        # Stops by itself after 300 samples (120 Hz: 2.5 s), past the whole path.
        bridge = start_bridge("tobii_bridge.py", ["--port", str(port), "--samples", "300"], path)
        frames = watch_path(world, bridge, (240, 300), (600, 150))
        check_path(frames, (240, 300), (600, 150))
        out, err = bridge.communicate(timeout=8)
    assert bridge.returncode == 0, err
    assert "tobii_bridge: stopped; 300 samples sent, 0 unsent" in err


def test_tobii_bridge_without_a_tracker_says_so():
    bridge = start_bridge("tobii_bridge.py", ["--port", str(free_port_pair())],
                          extra_env={"FOVEA_FAKE_TOBII_TRACKERS": "0"})
    out, err = bridge.communicate(timeout=8)
    assert bridge.returncode == 1
    assert "no Tobii eye tracker found" in err


@pytest.mark.parametrize("units, a, b, a_px, b_px", [
    ("norm", [0.1, 0.2], [0.9, 0.8], (80, 120), (720, 480)),
    ("px", [80, 120], [720, 480], (80, 120), (720, 480)),
])
def test_lsl_bridge_sends_the_chosen_channels_in_either_units(units, a, b, a_px, b_px):
    # Three channels (pupil, x, y): x and y are channels 1 and 2.
    path = [{"s": 0.6, "sample": [3.0] + a},
            {"s": 0.5, "sample": [0.0, math.nan, math.nan]},
            {"s": 5.0, "sample": [3.0] + b}]
    port = free_port_pair()
    with stream_world(port) as world:
        # Stops by itself after 3 s, past the whole path.
        bridge = start_bridge("lsl_bridge.py", ["--port", str(port), "--x-channel", "1", "--y-channel", "2",
                                                "--units", units, "--seconds", "3"], path)
        frames = watch_path(world, bridge, a_px, b_px)
        check_path(frames, a_px, b_px)
        out, err = bridge.communicate(timeout=8)
    assert bridge.returncode == 0, err
    assert "lsl_bridge: stream 'FakeGaze' (Gaze, 3 channels)" in err


def test_lsl_bridge_flips_an_upward_y():
    path = [{"s": 0.6, "sample": [0.1, 0.8]},  # 0.2 of the height from the top
            {"s": 0.5, "sample": [math.nan, math.nan]},
            {"s": 5.0, "sample": [0.9, 0.2]}]
    port = free_port_pair()
    with stream_world(port) as world:
        bridge = start_bridge("lsl_bridge.py", ["--port", str(port), "--units", "norm", "--y-up", "--seconds", "9"],
                              path)
        frames = watch_path(world, bridge, (80, 120), (720, 480))
        check_path(frames, (80, 120), (720, 480))
        stop(bridge)


def test_lsl_bridge_without_the_stream_says_so():
    bridge = start_bridge("lsl_bridge.py",
                          ["--port", str(free_port_pair()), "--type", "EEG", "--resolve-timeout", "0.2"])
    out, err = bridge.communicate(timeout=8)
    assert bridge.returncode == 1
    assert "no LSL stream with type 'EEG' found in 0.2 s" in err


@pytest.mark.parametrize("name", ["eyelink_bridge.py", "tobii_bridge.py", "lsl_bridge.py"])
def test_help_needs_no_sdk(name):
    # Without the fakes on the path: --help works where the SDK is not installed.
    out = subprocess.run([sys.executable, os.path.join(BRIDGES, name), "--help"], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=MODULE_DIR), timeout=10)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: ")
    for option in ("--host", "--port", "--seconds", "--samples"):
        assert option in out.stdout


@pytest.mark.parametrize("name, sdk", [("eyelink_bridge.py", "pylink"), ("tobii_bridge.py", "tobii_research"),
                                       ("lsl_bridge.py", "pylsl")])
def test_a_missing_sdk_is_named(name, sdk):
    out = subprocess.run([sys.executable, os.path.join(BRIDGES, name)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=MODULE_DIR), timeout=10)
    if out.returncode == 0:
        pytest.skip(f"{sdk} is installed here")
    assert out.returncode == 1
    assert f"{sdk} is not installed" in out.stderr


# fovea.gaze.StreamSender with no fovea listening.

@pytest.mark.parametrize("kwargs", [{"host": ""}, {"port": -1}, {"port": 65535}, {"request_timeout_s": 0},
                                    {"request_timeout_s": -1}, {"request_timeout_s": 61}])
def test_sender_refuses_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        StreamSender(**kwargs)


def test_sender_drops_samples_while_no_fovea_listens():
    sender = StreamSender(port=free_port_pair(), request_timeout_s=0.05)
    assert sender.send(1.0, 100, 200) is False
    assert sender.send(1.1, math.nan, math.nan, valid=False) is False
    assert (sender.sent, sender.unsent) == (0, 2)


def test_sender_clock_without_fovea():
    sender = StreamSender(port=free_port_pair(), request_timeout_s=0.05)
    assert math.isnan(sender.fovea_time())
    assert math.isnan(sender.offset_s)
    with pytest.raises(ValueError):
        sender.fovea_time_of(1.0)
    with pytest.raises(RuntimeError):
        sender.sync_clock(time.monotonic, rounds=2)
    with pytest.raises(ValueError):
        sender.fovea_time_of(1.0)  # a failed sync is no sync


def test_sender_maps_a_local_time_by_the_measured_offset():
    port = free_port_pair()
    with stream_world(port):
        sender = StreamSender(port=port)
        # A local clock 100 s behind the computer's: the offset says so.
        sync = sender.sync_clock(lambda: time.monotonic() - 100.0, rounds=5)
        assert sync.answered == 5 and 0 <= sync.round_trip_s < 0.5
        assert sender.offset_s == sync.offset_s
        assert sender.fovea_time_of(50.0) == pytest.approx(50.0 + sync.offset_s)
        assert sender.fovea_time_of(time.monotonic() - 100.0) == pytest.approx(sender.fovea_time(), abs=0.05)
