#!/usr/bin/env python3
"""How much faster one build's frame is than another's, as ratios measured side by side.

Two `fovea_bench_frame` programs (the frame benchmark, docs/scale.md; the driver builds it
with -DFOVEA_BENCH=ON) run the same scene in turn, `--reps` times, in a seeded shuffled
order within each pair, so that a noisy machine's slow spells fall on both builds alike.
Each run gives each phase's median over its timed frames; each pair gives the ratio after /
before. Printed per phase: both builds' medians over the runs, and the median ratio with the
lowest and highest of the pairs (the spread: on a shared machine a single pair can be off by
a third; read the median ratio, and trust it only where the range is on one side of 1).

    python3 experiments/tools/compare_builds.py --before /tmp/before/fovea_bench_frame \\
        --after build/bin/fovea_bench_frame --reps 8 --threads 2 -- \\
        --entities 100000 --shapes balls --layouts uniform

What follows `--` goes to both programs (the scene); `--threads`, `--frames`, `--warmup`,
`--fovea-only` and `--out` are set here. `--csv FILE` also writes the runs, tidy: one row per
build, pair and phase. Needs only Debian's python3; reads each bench CSV within 16 MiB
(bounded_read.py). `--self-test` checks the ratios against fake programs of known speed.
"""
import argparse
import csv
import io
import os
import random
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bounded_read  # noqa: E402  (the folder just put on the path)

PHASES = ["integrate", "broadphase", "narrowphase", "response", "metrics", "frame"]
MAX_CSV_BYTES = 16 << 20
MAX_REPS = 1000


def run_once(program, scene, threads, frames, warmup, out):
    """One run of `program`: {phase: median ms} of fovea's rows."""
    command = [program, *scene, "--threads", str(threads), "--frames", str(frames), "--warmup", str(warmup),
               "--fovea-only", "--out", out]
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=3600)
    text = bounded_read.read_bounded(out, MAX_CSV_BYTES)
    rows = [row for row in csv.DictReader(io.StringIO(text)) if row.get("engine") == "fovea"]
    if not rows:
        raise SystemExit("compare_builds: %s wrote no fovea rows to %s" % (program, out))
    return {row["phase"]: float(row["median_ms"]) for row in rows if row["phase"] in PHASES}


def summarise(before_runs, after_runs):
    """Per phase: (median before, median after, median ratio, lowest ratio, highest ratio)."""
    summary = {}
    for phase in PHASES:
        pairs = [(b[phase], a[phase]) for b, a in zip(before_runs, after_runs) if phase in b and phase in a]
        if not pairs:
            continue
        ratios = sorted(a / b for b, a in pairs if b > 0)
        if not ratios:
            continue
        summary[phase] = (statistics.median(b for b, _ in pairs), statistics.median(a for _, a in pairs),
                          statistics.median(ratios), ratios[0], ratios[-1])
    return summary


def compare(before, after, scene, reps, threads, frames, warmup, seed, progress=True):
    rng = random.Random(seed)
    runs = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="fovea-compare-") as folder:
        for rep in range(reps):
            order = [("before", before), ("after", after)]
            rng.shuffle(order)
            for name, program in order:
                runs[name].append(run_once(program, scene, threads, frames, warmup, os.path.join(folder, name + ".csv")))
            if progress:
                print("compare_builds: pair %d of %d done" % (rep + 1, reps), file=sys.stderr)
    return runs


def self_test():
    """Two fake benches, the second 0.8 times the first's time in every phase but the metrics
    (1.0), with noise that hits both alike: the ratios must come out at 0.8 and 1.0."""
    with tempfile.TemporaryDirectory(prefix="fovea-compare-test-") as folder:
        fakes = []
        for name, factor in (("slow", 1.0), ("fast", 0.8)):
            path = os.path.join(folder, name)
            with open(path, "w") as f:
                f.write("#!%s\nimport sys\nargs = sys.argv\nout = args[args.index('--out') + 1]\n"
                        "base = {'integrate': 10, 'broadphase': 30, 'narrowphase': 12, 'response': 20, 'metrics': 5}\n"
                        "with open(out, 'w') as f:\n"
                        "    f.write('engine,phase,median_ms\\n')\n"
                        "    for p, ms in base.items():\n"
                        "        k = 1.0 if p == 'metrics' else %r\n"
                        "        f.write('fovea,%%s,%%r\\n' %% (p, ms * k))\n"
                        "    f.write('fovea,frame,%%r\\n' %% sum(ms * (1.0 if p == 'metrics' else %r) for p, ms in base.items()))\n"
                        % (sys.executable, factor, factor))
            os.chmod(path, 0o755)
            fakes.append(path)
        runs = compare(fakes[0], fakes[1], [], 3, 1, 1, 0, 1, progress=False)
        summary = summarise(runs["before"], runs["after"])
        assert abs(summary["broadphase"][2] - 0.8) < 1e-12, summary
        assert abs(summary["metrics"][2] - 1.0) < 1e-12, summary
        assert summary["frame"][3] <= summary["frame"][2] <= summary["frame"][4]
        # A program that writes no fovea rows is an error, not a ratio of nothing.
        empty = os.path.join(folder, "empty")
        with open(empty, "w") as f:
            f.write("#!%s\nimport sys\nopen(sys.argv[sys.argv.index('--out') + 1], 'w').write('engine,phase,median_ms\\n')\n"
                    % sys.executable)
        os.chmod(empty, 0o755)
        try:
            compare(empty, fakes[1], [], 1, 1, 1, 0, 1, progress=False)
        except SystemExit as e:
            assert "wrote no fovea rows" in str(e)
        else:
            raise AssertionError("a bench without fovea rows was accepted")
    print("compare_builds.py self-test passed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--before", help="the fovea_bench_frame of the build to compare against")
    parser.add_argument("--after", help="the fovea_bench_frame of the build compared")
    parser.add_argument("--reps", type=int, default=8, help="pairs of runs (default 8)")
    parser.add_argument("--threads", type=int, default=2, help="fovea's threads in both (default 2)")
    parser.add_argument("--frames", type=int, default=30, help="timed frames a run (default 30)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed frames first (default 10)")
    parser.add_argument("--seed", type=int, default=7, help="the shuffle's seed (default 7)")
    parser.add_argument("--csv", help="also write every run's medians here, tidy")
    parser.add_argument("--self-test", action="store_true", help="check the tool against fake benches, then exit")
    parser.add_argument("scene", nargs="*", help="after --: the scene's options for both programs")
    args = parser.parse_args()
    if args.self_test:
        self_test()
        return
    if not args.before or not args.after:
        parser.error("--before and --after are both needed")
    if not 1 <= args.reps <= MAX_REPS:
        parser.error("--reps must be from 1 to %d" % MAX_REPS)
    runs = compare(args.before, args.after, args.scene, args.reps, args.threads, args.frames, args.warmup, args.seed)
    print("%-12s %12s %12s %14s  %s" % ("phase", "before ms", "after ms", "after/before", "range over pairs"))
    for phase, (b, a, ratio, low, high) in summarise(runs["before"], runs["after"]).items():
        print("%-12s %12.3f %12.3f %14.3f  [%.3f, %.3f]" % (phase, b, a, ratio, low, high))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["build", "pair", "phase", "median_ms"])
            for name in ("before", "after"):
                for pair, run in enumerate(runs[name]):
                    for phase in PHASES:
                        if phase in run:
                            writer.writerow([name, pair, phase, repr(run[phase])])


if __name__ == "__main__":
    main()
