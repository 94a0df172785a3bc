"""experiments/python/closed_loop_gaze.py runs as docs/python.md shows, and its loop does what it says."""

import os
import subprocess
import sys

SOURCE = os.environ.get("FOVEA_SOURCE_DIR", os.getcwd())
SCRIPT = os.path.join(SOURCE, "experiments", "python", "closed_loop_gaze.py")


def test_the_closed_loop_example_pushes_gaze_plots_p_and_records(tmp_path):
    plot = tmp_path / "p.png"
    out = subprocess.run([sys.executable, SCRIPT, "--frames", "90", "--plot", str(plot), "--record", str(tmp_path / "run")],
                         capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("pushed ") and " into 90 frames" in lines[0]
    # The recorded blink (1.0 to 1.3 s) lies past 90 frames of 10 ms: every frame had a
    # current pushed sample.
    assert lines[1] == "frames by gaze source: external 90"
    assert plot.stat().st_size > 10000 and plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    frames = (tmp_path / "run" / "frames.csv").read_text().splitlines()
    assert len(frames) == 91


def test_the_blink_shows_as_hold_then_centre(tmp_path):
    out = subprocess.run([sys.executable, SCRIPT, "--frames", "200", "--plot", str(tmp_path / "p.png")],
                         capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    counts = dict(part.rsplit(" ", 1) for part in out.stdout.splitlines()[1].split(": ", 1)[1].split(", "))
    # 30 frames without a valid sample: the hold (200 ms) covers 20, the centre the rest.
    assert int(counts["hold"]) == 20 and int(counts["centre"]) == 10
    assert int(counts["external"]) == 170
