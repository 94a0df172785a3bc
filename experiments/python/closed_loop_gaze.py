"""A closed loop from Python: gaze pushed into a world each frame, P plotted over time.

    ./fovea python experiments/python/closed_loop_gaze.py [--gaze FILE] [--frames N] [--plot PNG]

This is the loop a lab writes around its own eye tracker's SDK (EyeLink's pylink, Tobii's
tobii_research, ...): before each frame, hand fovea the samples that arrived, then step. Here
the samples come from a recorded file instead of a device, so the script runs anywhere:
a gaze CSV with t_s, x_px, y_px and optionally valid (docs/gaze.md, "Recording and replay"),
for example a run's gaze.csv. Without --gaze, the script first records one: the packed scene
run with its scripted viewer and record.gaze, a blink of 300 ms cut into it so the fallback
shows.

The world is the packed scene (configs/studies/packed500.yaml) with gaze.source: external.
Each frame the script pushes every sample whose time has come (World.set_gaze, on the
world's clock), steps, and keeps the frame's estimated P (p_est: the probability that the
viewer notices the frame's unresolved collisions, docs/metrics.md) and where its fixation
came from. It plots P over time, the frames whose gaze fell back (held or the screen's
centre) shaded, and prints the frames per gaze source.
"""

import argparse
import csv
import os
import sys
import tempfile

import fovea

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKED = os.path.join(SOURCE, "configs", "studies", "packed500.yaml")


def record_gaze(folder, frames):
    """A gaze.csv from the packed scene's scripted viewer, with a 300 ms blink from 1 s."""
    run = fovea.run(PACKED, frames=frames, out=os.path.join(folder, "recorded"),
                    overrides={"gaze.source": "scripted", "record.gaze": True})
    rows = read_gaze(os.path.join(run, "gaze.csv"))
    blinked = [dict(r, valid=r["valid"] and not (1.0 <= r["t_s"] < 1.3)) for r in rows]
    path = os.path.join(folder, "gaze_with_blink.csv")
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["t_s", "x_px", "y_px", "valid"])
        for r in blinked:
            out.writerow([repr(r["t_s"]), repr(r["x_px"]), repr(r["y_px"]), int(r["valid"])])
    return path


def read_gaze(path):
    """t_s, x_px, y_px[, valid] rows, by header name (fovea's gaze.csv and most exports)."""
    with open(path, newline="") as f:
        rows = []
        for row in csv.DictReader(f):
            valid = row.get("valid", "1").strip().lower() in ("1", "true")
            rows.append({"t_s": float(row["t_s"]), "x_px": float(row["x_px"]), "y_px": float(row["y_px"]),
                         "valid": valid})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gaze", help="gaze CSV to push (t_s, x_px, y_px[, valid]); default: record one first")
    parser.add_argument("--frames", type=int, default=300, help="frames to step (default 300, 3 s)")
    parser.add_argument("--plot", default=os.path.join("results", "python", "closed_loop_p.png"),
                        help="the figure (default results/python/closed_loop_p.png)")
    parser.add_argument("--record", help="also write the run's results folder here (a new or empty folder)")
    args = parser.parse_args()
    if args.frames < 1:
        parser.error("--frames must be at least 1")

    with tempfile.TemporaryDirectory() as scratch:
        gaze_path = args.gaze or record_gaze(scratch, args.frames)
        samples = read_gaze(gaze_path)
        world = fovea.World(PACKED, overrides={"gaze.source": "external", "frames": args.frames}, record=args.record)
        times, p, fell_back, sources = [], [], [], {}
        next_sample = 0
        with world:
            for _ in range(args.frames):
                # The samples that have arrived by this frame, oldest first, as a tracker's
                # callback would hand them over.
                while next_sample < len(samples) and samples[next_sample]["t_s"] <= world.time_s:
                    s = samples[next_sample]
                    world.set_gaze(s["x_px"], s["y_px"], t_s=s["t_s"], valid=s["valid"])
                    next_sample += 1
                stats = world.step()
                times.append(stats["sim_time_s"])
                p.append(stats["p_est"])
                fell_back.append(stats["gaze_source"] in ("hold", "centre"))
                sources[stats["gaze_source"]] = sources.get(stats["gaze_source"], 0) + 1

    print("pushed %d samples from %s into %d frames" % (next_sample, args.gaze or "a recorded run", args.frames))
    print("frames by gaze source: " + ", ".join("%s %d" % kv for kv in sorted(sources.items())))
    print("P (p_est, expected noticed gaps): mean %.3f, max %.3f" % (sum(p) / len(p), max(p)))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 3.2))
    ax.plot(times, p, lw=1, color="tab:blue", label="P, estimated (p_est)")
    step = world.config.time_step_s
    for t, back in zip(times, fell_back):
        if back:
            ax.axvspan(t, t + step, color="0.85", lw=0)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("P: expected noticed gaps")
    ax.set_title("packed scene, gaze pushed from Python (grey: no current gaze sample, fallback)")
    ax.legend(loc="upper right")
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
    fig.savefig(args.plot, dpi=120)
    print("figure: " + args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
