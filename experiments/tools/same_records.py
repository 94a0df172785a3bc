#!/usr/bin/env python3
"""Whether two builds of fovea write the same records for every config in configs/.

A refactor that must not change behaviour (docs/architecture.md) is checked with this: each
config is run by both programs for a few frames, headless, and every CSV record the runs
write (frames.csv, collisions.csv, evaluation.csv, gaze.csv, events.csv) is compared to the
byte with its wall-clock columns left out (names ending in _ms or _us, as run/frame_columns.cpp
declares them), and config.yaml whole. Studies are swept with one run in --every of each,
and the frame's variants (every scheduler, refined priorities, coherence, the oracle with
ground truth, visibility, an evaluation) on the default scene. What depends on the machine's
speed is not compared: the records of a run under a wall-clock budget (config.yaml aside) and
evaluation.csv's rows under wall-clock budgets.

    python3 experiments/tools/same_records.py --before /tmp/before/bin/fovea --after build/bin/fovea

Prints one line a comparison and exits 1 if any differs. Needs only Debian's python3.
Reads records of at most 256 MiB, regular files only, and waits at most an hour for a run
(docs/formats.md, "Development tools"); `--self-test` checks that reader.
"""
import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bounded_read  # noqa: E402  (the folder just put on the path)

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ("frames.csv", "collisions.csv", "evaluation.csv", "gaze.csv", "events.csv")
# Configs that are not a world to run: experiment specs and the observer model.
NOT_RUNS = ("experiments", "perception", "studies")
# Bounds on what is read and waited for (docs/formats.md, "Development tools"): a record
# larger than fovea's own readers take, or a run that outlives this, is a failed comparison.
MAX_RECORD_BYTES = 256 << 20
MAX_CONFIG_BYTES = 1 << 20  # as fovea's own reader of configs (core/file_read.hpp)
RUN_TIMEOUT_S = 3600


def read_bounded(path, limit=MAX_RECORD_BYTES):
    """The text of `path`, at most `limit` bytes, read without blocking (bounded_read.py)."""
    return bounded_read.read_bounded(path, limit)


SCHEDULERS = ("round_robin", "sequential", "sorted_sequential", "priority_queues", "adaptive_queues",
              "hybrid", "eccentricity", "random")
VARIANTS = [[f"schedule.kind={k}", "budget.mode=work", "budget.tests=400"] for k in SCHEDULERS] + [
    ["schedule.kind=sorted_sequential", "schedule.priorities=refined", "budget.mode=work", "budget.tests=400"],
    ["narrowphase.coherence=true", "budget.mode=work", "budget.tests=400"],
    ["ground_truth=true", "schedule.kind=oracle", "budget.mode=work", "budget.tests=400"],
    ["metrics.visibility=occlusion", "ground_truth=true"],
    ["evaluate.schedulers=[round_robin,hybrid]", "evaluate.budgets=[{mode: fraction, fraction: 0.2}]",
     "schedule.priorities=refined", "metrics.visibility=occlusion"],
    ["evaluate.schedulers=[oracle,sorted_sequential]", "ground_truth=true", "schedule.kind=oracle",
     "budget.mode=work", "budget.tests=300"],
    ["threads=1"],
]


def without_wall_clock(text):
    """The CSV without its wall-clock columns, and without the rows of evaluation.csv whose
    budget is a wall-clock one: what those schedulers did depends on the machine's speed."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return text
    keep = [i for i, name in enumerate(rows[0]) if not (name.endswith("_ms") or name.endswith("_us"))]
    mode = rows[0].index("budget_mode") if "budget_mode" in rows[0] else -1
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        if mode >= 0 and mode < len(row) and row[mode] == "wall":
            continue
        writer.writerow([row[i] for i in keep if i < len(row)])
    return out.getvalue()


def driven_by_wall_clock(config_text):
    """Whether the run's own budget is a wall-clock one (config.yaml's top-level budget)."""
    lines = config_text.splitlines()
    for n, line in enumerate(lines):
        if line == "budget:":
            return any(l.strip() == "mode: wall" for l in lines[n + 1:n + 4])
    return False


def run(program, args, out):
    try:
        done = subprocess.run([program, *args, "--out", str(out), "-q"], cwd=ROOT, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"no end after {RUN_TIMEOUT_S} s"
    if done.returncode != 0:
        return f"exit {done.returncode}: {done.stderr.strip()[:300]}"
    return ""


def compare_folders(a, b):
    """Differences between two run folders, or two sweep folders (one run folder each)."""
    problems = []
    folders_a = sorted(p.parent.relative_to(a) for p in a.rglob("frames.csv"))
    folders_b = sorted(p.parent.relative_to(b) for p in b.rglob("frames.csv"))
    if folders_a != folders_b:
        return [f"different runs: {len(folders_a)} vs {len(folders_b)}"]
    if not folders_a:
        return ["no frames.csv written"]
    for rel in folders_a:
        # A run under a wall-clock budget refines as far as the machine gets: only its config
        # and the evaluation's rows under work budgets can be the same.
        try:
            config = a / rel / "config.yaml"
            wall = driven_by_wall_clock(read_bounded(config, limit=MAX_CONFIG_BYTES)) if config.exists() else False
        except (OSError, ValueError) as problem:
            problems.append(str(problem))
            continue
        for name in RECORDS + ("config.yaml",):
            if wall and name in ("frames.csv", "collisions.csv", "gaze.csv"):
                continue
            fa, fb = a / rel / name, b / rel / name
            if fa.exists() != fb.exists():
                problems.append(f"{rel / name}: written by one only")
                continue
            if not fa.exists():
                continue
            try:
                ta, tb = read_bounded(fa), read_bounded(fb)
            except (OSError, ValueError) as problem:
                problems.append(str(problem))
                continue
            if name.endswith(".csv"):
                ta, tb = without_wall_clock(ta), without_wall_clock(tb)
            if ta != tb:
                problems.append(f"{rel / name}: differs")
    return problems


def self_test():
    """The shared reader's own check (bounded_read.py, which the suite runs): 0 when it holds."""
    return bounded_read.self_test()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    parser.add_argument("--before", required=True, help="the fovea program before the change")
    parser.add_argument("--after", default=str(ROOT / "build/bin/fovea"), help="after (default build/bin/fovea)")
    parser.add_argument("--frames", type=int, default=40, help="frames a run (default 40)")
    parser.add_argument("--every", type=int, default=16, help="a study's runs: one in EVERY (default 16)")
    parser.add_argument("--only", default="", help="only the comparisons whose label holds this text")
    options = parser.parse_args()

    cases = []  # (label, arguments for both programs)
    frames = ["--set", f"frames={options.frames}"]
    for config in sorted((ROOT / "configs").rglob("*.yaml")):
        rel = config.relative_to(ROOT)
        if rel.parts[1] in NOT_RUNS:
            continue
        cases.append((str(rel), ["run", str(rel), "--headless", *frames]))
    for variant in VARIANTS:
        sets = [x for s in variant for x in ("--set", s)]
        cases.append(("configs/default.yaml " + " ".join(variant), ["run", "configs/default.yaml", "--headless", *frames, *sets]))
    bases = []  # the run configs kept beside the studies (their base), run after the studies
    for study in sorted((ROOT / "configs/studies").glob("*.yaml")):
        rel = study.relative_to(ROOT)
        if "base:" not in read_bounded(study, limit=MAX_CONFIG_BYTES):
            bases.append((str(rel), ["run", str(rel), "--headless", *frames]))
            continue
        cases.append((f"{rel} (one run in {options.every})",
                      ["sweep", str(rel), "--shard", f"0/{options.every}", "--jobs", "2", "--no-figures", *frames]))
    cases += bases

    cases = [c for c in cases if options.only in c[0]]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="same_records-") as scratch:
        for n, (label, args) in enumerate(cases):
            a, b = Path(scratch) / f"{n}-before", Path(scratch) / f"{n}-after"
            err = run(options.before, args, a) or run(options.after, args, b)
            problems = [err] if err else compare_folders(a, b)
            print(("same      " if not problems else "DIFFERENT ") + label + ("" if not problems else ": " + "; ".join(problems[:4])),
                  flush=True)
            failed += bool(problems)
    print(f"{len(cases) - failed} of {len(cases)} the same")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
