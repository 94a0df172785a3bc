"""What stepping from Python costs against `fovea run`, on the same work (docs/python.md).

    ./fovea python experiments/python/stepping_overhead.py [--repetitions 7] [--frames 300]

Runs the packed scene (configs/studies/packed500.yaml: 500 rocks, a work budget, so both
sides do the same sphere tests frame for frame) alternately as `fovea run --headless`
and as a fovea.World stepped one frame per call from Python, both recording frames.csv into
a results folder. The frame time is the frame loop's wall-clock time over its frames: for
fovea run, summary.json's wall_time_s; for Python, the loop `for _ in range(frames):
world.step()`, which also builds each frame's stats dict. A second Python loop also reads
every entity's pose and every collision as NumPy arrays each frame, as a closed-loop script
would. Prints each repetition's times and the mean ratio with a 95 % interval over the
repetitions (paired, on the log). The machine is shared and noisy: the ratio, measured side
by side, is the number; the milliseconds are only indications.
"""

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import fovea

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Two-sided 95 % Student t quantiles by degrees of freedom, for the interval over repetitions.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 19: 2.093, 24: 2.064, 29: 2.045}


def t95(df):
    return T95.get(df) or T95[max(k for k in T95 if k <= df)]


def cli_frame_ms(config, frames, out):
    subprocess.run([fovea.fovea_binary, "run", config, "--headless", "--quiet", "--frames", str(frames), "--out", out],
                   check=True)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return 1000.0 * summary["wall_time_s"] / summary["frames"]


def python_frame_ms(config, frames, out, read_arrays):
    with fovea.World(config, overrides={"frames": frames}, record=out) as world:
        start = time.perf_counter()
        for _ in range(frames):
            world.step()
            if read_arrays:
                world.entities()
                world.collisions()
        elapsed = time.perf_counter() - start
    return 1000.0 * elapsed / frames


def ratio_interval(ratios):
    logs = [math.log(r) for r in ratios]
    mean = statistics.mean(logs)
    if len(logs) < 2:
        return math.exp(mean), float("nan"), float("nan")
    half = t95(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=os.path.join(SOURCE, "configs", "studies", "packed500.yaml"))
    parser.add_argument("--frames", type=int, default=300, help="frames per run (default 300)")
    parser.add_argument("--repetitions", type=int, default=7, help="alternations of the three loops (default 7)")
    args = parser.parse_args()

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(args.repetitions):
            cli = cli_frame_ms(args.config, args.frames, os.path.join(scratch, "cli%d" % r))
            step = python_frame_ms(args.config, args.frames, os.path.join(scratch, "py%d" % r), False)
            arrays = python_frame_ms(args.config, args.frames, os.path.join(scratch, "arrays%d" % r), True)
            rows.append((cli, step, arrays))
            print("repetition %d: fovea run %.3f ms/frame, World.step %.3f, World.step + arrays %.3f" %
                  (r + 1, cli, step, arrays), flush=True)
    for name, column in (("World.step", 1), ("World.step + entities() + collisions()", 2)):
        mean, low, high = ratio_interval([row[column] / row[0] for row in rows])
        print("%s against fovea run: frame time x %.4f [%.4f, %.4f] (mean ratio, 95 %% interval over %d repetitions)"
              % (name, mean, low, high, len(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
