"""What stepping from Python costs against `fovea run`, on the same work (docs/python.md).

    ./fovea python experiments/python/stepping_overhead.py [--repetitions 7] [--frames 300]

Runs the packed scene (configs/studies/packed500.yaml: 500 rocks, a work budget, so both
sides do the same sphere tests frame for frame) alternately as `fovea run --headless`
and as a fovea.World stepped one frame per call from Python, both recording frames.csv into
a results folder. The frame time is the frame loop's wall-clock time over its frames: for
fovea run, summary.json's wall_time_s; for Python, the loop `for _ in range(frames):
world.step()`, which also builds each frame's stats dict. A second Python loop also reads
every entity's pose and every collision as NumPy arrays each frame, as a closed-loop script
would, and a third steps all frames in one call, so the calls' own cost shows without a
second process. Both sides run with --threads (default 1). Prints each repetition's times and the mean ratio with a 95 % interval over the
repetitions (paired, on the log). The machine is shared and noisy: the ratio, measured side
by side, is the number; the milliseconds are only indications.

With --instructions, it counts instructions instead, under valgrind's callgrind (Debian
valgrind): each side runs twice, at --instructions-frames FEW and MANY frames, and the
difference over MANY - FEW is the instructions one frame costs, start-up and world building
cancelling out. The counts are exact and the same on every run, so the ratio needs no
interval; what they do not cover is time spent waiting (memory, the GIL), which the timed
loops do.
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


def cli_frame_ms(config, frames, out, threads):
    subprocess.run([fovea.fovea_binary, "run", config, "--headless", "--quiet", "--frames", str(frames), "--out", out,
                    "--set", "threads=%d" % threads], check=True)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return 1000.0 * summary["wall_time_s"] / summary["frames"]


def python_frame_ms(config, frames, out, threads, loop):
    with fovea.World(config, overrides={"frames": frames, "threads": threads}, record=out) as world:
        start = time.perf_counter()
        if loop == "one call":
            world.step(frames)
        else:
            for _ in range(frames):
                world.step()
                if loop == "arrays":
                    world.entities()
                    world.collisions()
        elapsed = time.perf_counter() - start
    return 1000.0 * elapsed / frames


# The Python side of the instruction count: the same config, recorded, a frame per call.
STEP_SCRIPT = """
import sys, fovea
config, frames, out, threads, arrays = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1"
with fovea.World(config, overrides={"frames": frames, "threads": threads}, record=out) as world:
    for _ in range(frames):
        world.step()
        if arrays:
            world.entities()
            world.collisions()
"""


def instructions(argv):
    """Instructions the command executes, counted by callgrind (all threads)."""
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    if run.returncode != 0:
        sys.exit("stepping_overhead: valgrind failed: " + run.stderr[-2000:])
    for line in run.stderr.splitlines():
        if "Collected :" in line:
            return int(line.split("Collected :")[1])
    sys.exit("stepping_overhead: no instruction count in valgrind's output")


def instructions_per_frame(args, scratch):
    few, many = args.instructions_frames
    counts = {}
    for frames in (few, many):
        out = lambda name: os.path.join(scratch, "%s%d" % (name, frames))
        counts[("fovea run", frames)] = instructions(
            [fovea.fovea_binary, "run", args.config, "--headless", "--quiet", "--frames", str(frames), "--out", out("cli"),
             "--set", "threads=%d" % args.threads])
        for name, arrays in (("World.step", "0"), ("World.step + entities() + collisions()", "1")):
            counts[(name, frames)] = instructions(
                [sys.executable, "-c", STEP_SCRIPT, args.config, str(frames), out(name.split()[0] + arrays),
                 str(args.threads), arrays])
    per_frame = {name: (counts[(name, many)] - counts[(name, few)]) / (many - few)
                 for name in ("fovea run", "World.step", "World.step + entities() + collisions()")}
    base = per_frame["fovea run"]
    print("instructions per frame, frames %d to %d of %s (callgrind):" % (few, many, os.path.basename(args.config)))
    for name, value in per_frame.items():
        print("  %-40s %12.0f  x %.4f" % (name, value, value / base))


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
    parser.add_argument("--repetitions", type=int, default=7, help="alternations of the four loops (default 7)")
    parser.add_argument("--threads", type=int, default=1,
                        help="the world's threads, both sides (default 1: the least noise on a shared machine)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under callgrind instead of timing (exact; needs valgrind)")
    parser.add_argument("--instructions-frames", type=int, nargs=2, default=(20, 120), metavar=("FEW", "MANY"),
                        help="the two run lengths whose difference is counted (default 20 120)")
    args = parser.parse_args()
    if args.instructions:
        with tempfile.TemporaryDirectory() as scratch:
            instructions_per_frame(args, scratch)
        return 0

    rows = []
    loops = ("fovea run", "World.step", "World.step + entities() + collisions()", "World.step(frames), one call")
    with tempfile.TemporaryDirectory() as scratch:
        for r in range(args.repetitions):
            out = lambda name: os.path.join(scratch, "%s%d" % (name, r))
            cli = cli_frame_ms(args.config, args.frames, out("cli"), args.threads)
            step = python_frame_ms(args.config, args.frames, out("step"), args.threads, "step")
            arrays = python_frame_ms(args.config, args.frames, out("arrays"), args.threads, "arrays")
            once = python_frame_ms(args.config, args.frames, out("once"), args.threads, "one call")
            rows.append((cli, step, arrays, once))
            print("repetition %d: " % (r + 1) + ", ".join("%s %.3f ms/frame" % (n, t) for n, t in zip(loops, rows[-1])),
                  flush=True)
    for column in (1, 2, 3):
        mean, low, high = ratio_interval([row[column] / row[0] for row in rows])
        print("%s against fovea run: frame time x %.4f [%.4f, %.4f] (mean ratio, 95 %% interval over %d repetitions)"
              % (loops[column], mean, low, high, len(rows)))
    # The calls themselves, measured in one process: a frame per call against all frames in one.
    mean, low, high = ratio_interval([row[1] / row[3] for row in rows])
    print("World.step against World.step(frames), same process: frame time x %.4f [%.4f, %.4f]" % (mean, low, high))
    return 0


if __name__ == "__main__":
    sys.exit(main())
