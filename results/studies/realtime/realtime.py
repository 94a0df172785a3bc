#!/usr/bin/python3
"""The realtime study (results/studies/realtime/README.md): schedulers at a fixed frame time.

    /usr/bin/python3 results/studies/realtime/realtime.py run [FOLDER] [--seeds 101,102,...] [--scenes packed,pile,rockfall]
    /usr/bin/python3 results/studies/realtime/realtime.py analyse [FOLDER] [--seeds 106,107,...]

FOLDER holds the study's runs.csv and calibration.json: by default this script's folder (the
committed study); another folder makes a study of its own there, its run folders in
FOLDER/runs/ (a small one: `run /tmp/rt --seeds 101 --scenes packed`, then `analyse /tmp/rt`).

`run` does everything in one sitting on this machine, one `fovea run` at a time:
  1. calibrates each scene: a full-resolution run (round robin, no limit) of the first seed, whose
     median narrowphase_ms over the steady-state frames is the scene's full-resolution narrow phase;
     the wall budgets are shares of it (BUDGET_SHARES);
  2. runs both protocols, in one shuffled order (seeded), each run a process of its own:
     - same frames: the full-resolution world (the same bytes whoever evaluates it) with one
       scheduler variant evaluated on the side under every wall budget and two fraction budgets
       (docs/evaluation.md), repeated REPEATS times so the spread of the wall-clock rows is seen;
     - closed loop: each variant drives its own world under each wall budget;
     - closed loop at work budgets: the same under WORK_SHARES of the tests full resolution does a
       frame (the calibration run's median), so the world each drives is judged where a run
       repeats to the byte, as fovea's default budget does.
Each finished run appends its rows to runs.csv at once (a killed study keeps them; run again to
go on: the runs already in runs.csv are skipped). `analyse` prints the README's tables from
runs.csv alone. Standard library only; every file read is bounded.
"""

import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "experiments", "plots"))
sys.path.insert(0, os.path.join(ROOT, "experiments", "tools"))
from study_figures import student_t_quantile  # noqa: E402  (found through the paths just set)
from bounded_read import csv_rows, read_bounded  # noqa: E402

RUNS_CSV = "runs.csv"  # in the study's folder, as calibration.json
CALIBRATION_JSON = "calibration.json"
MAX_FRAMES_CSV_BYTES = 256 << 20
MAX_TABLE_BYTES = 64 << 20
RUN_TIMEOUT_S = 3600
ORDER_SEED = 40
REPEATS = 2
BUDGET_SHARES = (0.02, 0.05, 0.2, 0.6)
FRACTIONS = (0.05, 0.2)
WORK_SHARES = (0.05, 0.2)
EQUIVALENCE_MARGIN = 1.1

# The viewer, the truth and the visibility test every scene runs with.
COMMON = ["ground_truth=true", "gaze.source=scripted", "gaze.scripted.targets=entities", "metrics.visibility=occlusion"]
SCENES = {
    "packed": {"config": "configs/studies/packed500.yaml", "frames": 500, "warmup": 300},
    "pile": {"config": "configs/examples/pile.yaml", "frames": 450, "warmup": 250},
    "rockfall": {"config": "configs/demos/rockfall.yaml", "frames": 1500, "warmup": 500},
}
# What each arm schedules with, every setting named (fovea's defaults changed with this study).
# "004" is 004's configuration (fovea's default until this study); "sorted_refined" the best at
# equal work of issue 25 (results/studies/schedulers_v2); "hybrid_aged" the candidate, fovea's
# default since: one round-robin level, then by refined priorities aged by the episode.
VARIANTS = {
    "round_robin": ["schedule.kind=round_robin", "schedule.priorities=roots", "schedule.aging=false"],
    "004": ["schedule.kind=priority_queues", "schedule.priorities=roots", "schedule.queues=3",
            "schedule.band_edges=[0.5, 0.1]", "schedule.aging=false"],
    "sorted_refined": ["schedule.kind=sorted_sequential", "schedule.priorities=refined", "schedule.aging=false"],
    "hybrid_aged": ["schedule.kind=hybrid", "schedule.hybrid_levels=1", "schedule.priorities=refined",
                    "schedule.aging=true", "schedule.fast_priorities=false"],
    "hybrid_aged_fast": ["schedule.kind=hybrid", "schedule.hybrid_levels=1", "schedule.priorities=refined",
                         "schedule.aging=true", "schedule.fast_priorities=true"],
    "oracle": ["schedule.kind=oracle", "schedule.priorities=roots", "schedule.aging=false"],
}
CLOSED_LOOP_VARIANTS = ("round_robin", "004", "sorted_refined", "hybrid_aged", "hybrid_aged_fast")
METRICS = ("p_true_visible", "p_true", "p_true_supra", "p_episodes_true", "interrupted", "collisions", "contacts",
           "kinetic_energy_j", "sphere_tests")
EVAL_METRICS = ("p_true_visible", "p_true", "p_true_supra", "p_episodes_true", "interrupted", "sphere_tests")
COLUMNS = ("scene", "seed", "protocol", "variant", "budget", "budget_ms", "repeat", "run_s") + METRICS


def rows_of(path, limit):
    """A CSV's rows as dicts, bounded; an unfinished last line is dropped and reported."""
    return csv_rows(path, limit, "realtime.py")


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def steady_means(frames, warmup, columns):
    rows = [r for r in frames if number(r["frame"]) >= warmup]
    return {c: math.fsum(number(r[c]) for r in rows) / max(len(rows), 1) for c in columns}


def fovea_run(binary, scene, seed, sets, out):
    s = SCENES[scene]
    command = [binary, "run", os.path.join(ROOT, s["config"]), "--headless", "-q", "--out", out,
               "--frames", str(s["frames"])]
    for item in ["seed=" + str(seed), "metrics.warmup_frames=" + str(s["warmup"])] + COMMON + sets:
        command += ["--set", item]
    started = time.monotonic()
    subprocess.run(command, check=True, timeout=RUN_TIMEOUT_S, stdout=subprocess.DEVNULL)
    return time.monotonic() - started


def calibrate(binary, scenes, seed, work):
    """Each scene's full-resolution narrow phase, ms: the median over steady-state frames."""
    calibration = {}
    for scene in scenes:
        out = os.path.join(work, f"calibrate-{scene}")
        fovea_run(binary, scene, seed, ["schedule.kind=round_robin", "budget.mode=unlimited", "ground_truth=false"], out)
        frames = rows_of(os.path.join(out, "frames.csv"), MAX_FRAMES_CSV_BYTES)
        times = sorted(number(r["narrowphase_ms"]) for r in frames if number(r["frame"]) >= SCENES[scene]["warmup"])
        calibration[scene] = {"full_resolution_narrowphase_ms": times[len(times) // 2], "seed": seed}
        print(f"realtime.py: {scene}: full resolution's narrow phase {times[len(times) // 2]:.4f} ms a frame "
              f"(median of {len(times)} frames)", file=sys.stderr)
    return calibration


def full_resolution_tests(binary, scene, seed, work):
    """The median sphere tests a steady-state frame of the full-resolution run does (deterministic,
    so the calibration run's folder is reused when it is there)."""
    out = os.path.join(work, f"calibrate-{scene}")
    if not os.path.exists(os.path.join(out, "frames.csv")):
        fovea_run(binary, scene, seed, ["schedule.kind=round_robin", "budget.mode=unlimited", "ground_truth=false"], out)
    frames = rows_of(os.path.join(out, "frames.csv"), MAX_FRAMES_CSV_BYTES)
    tests = sorted(number(r["sphere_tests"]) for r in frames if number(r["frame"]) >= SCENES[scene]["warmup"])
    return tests[len(tests) // 2]


def planned_runs(scenes, seeds):
    runs = []
    for scene in scenes:
        for seed in seeds:
            for variant in VARIANTS:
                for repeat in range(1, REPEATS + 1):
                    runs.append((scene, seed, "same_frames", variant, "", repeat))
            for variant in CLOSED_LOOP_VARIANTS:
                for share in BUDGET_SHARES:
                    runs.append((scene, seed, "closed_loop", variant, str(share), 1))
    random.Random(ORDER_SEED).shuffle(runs)
    # Added after the first sitting of 10 seeds, in an order of their own, after the rest.
    work = [(scene, seed, "closed_loop_work", variant, f"work {share}", 1)
            for scene in scenes for seed in seeds for variant in CLOSED_LOOP_VARIANTS for share in WORK_SHARES]
    random.Random(ORDER_SEED + 1).shuffle(work)
    runs += work
    return runs


def run_key(scene, seed, protocol, variant, budget, repeat):
    return (scene, str(seed), protocol, variant, budget, str(repeat))


def append_rows(runs_csv, rows):
    new = not os.path.exists(runs_csv)
    with open(runs_csv, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        if new:
            w.writeheader()
        w.writerows(rows)


def one_run(binary, calibration, work, scene, seed, protocol, variant, budget, repeat):
    full_ms = calibration[scene]["full_resolution_narrowphase_ms"]
    out = os.path.join(work, f"{scene}-{seed}-{protocol}-{variant}-{budget or 'all'}-{repeat}")
    base = {"scene": scene, "seed": seed, "protocol": protocol, "variant": variant, "repeat": repeat}
    if protocol in ("closed_loop", "closed_loop_work"):
        # The variant drives its own world: under a wall budget (a share of full resolution's ms)
        # or a work budget ("work S": a share S of full resolution's tests a frame).
        if protocol == "closed_loop_work":
            tests = round(float(budget.split()[1]) * calibration[scene]["full_resolution_tests"])
            limit, budget_ms = ["budget.mode=work", f"budget.tests={tests}"], ""
        else:
            budget_ms = f"{float(budget) * full_ms:.6g}"
            limit = ["budget.mode=wall", f"budget.ms={budget_ms}"]
        seconds = fovea_run(binary, scene, seed, VARIANTS[variant] + limit, out)
        frames = rows_of(os.path.join(out, "frames.csv"), MAX_FRAMES_CSV_BYTES)
        means = steady_means(frames, SCENES[scene]["warmup"], METRICS)
        return [dict(base, budget=budget, budget_ms=budget_ms, run_s=f"{seconds:.1f}", **means)]
    # Same frames: the driver at full resolution, this variant evaluated on the side.
    budgets = [f"{{mode: wall, ms: {share * full_ms:.6g}}}" for share in BUDGET_SHARES]
    budgets += [f"{{mode: fraction, fraction: {fraction}}}" for fraction in FRACTIONS]
    kind = [s for s in VARIANTS[variant] if s.startswith("schedule.kind=")][0].split("=", 1)[1]
    sets = [s for s in VARIANTS[variant] if not s.startswith("schedule.kind=")]
    sets += ["schedule.kind=round_robin", "budget.mode=unlimited", f"evaluate.schedulers=[{kind}]",
             "evaluate.budgets=[" + ", ".join(budgets) + "]"]
    seconds = fovea_run(binary, scene, seed, sets, out)
    evaluation = rows_of(os.path.join(out, "evaluation.csv"), MAX_FRAMES_CSV_BYTES)
    frames = rows_of(os.path.join(out, "frames.csv"), MAX_FRAMES_CSV_BYTES)
    world = steady_means(frames, SCENES[scene]["warmup"], ("collisions", "contacts", "kinetic_energy_j"))
    rows = []
    for share in BUDGET_SHARES:
        ms = f"{share * full_ms:.6g}"
        mine = [r for r in evaluation if r["budget_mode"] == "wall" and number(r["budget"]) == float(ms)]
        means = steady_means(mine, SCENES[scene]["warmup"], EVAL_METRICS)
        rows.append(dict(base, budget=str(share), budget_ms=ms, run_s=f"{seconds:.1f}", **means, **world))
    for fraction in FRACTIONS:
        mine = [r for r in evaluation if r["budget_mode"] == "fraction" and number(r["budget"]) == fraction]
        means = steady_means(mine, SCENES[scene]["warmup"], EVAL_METRICS)
        rows.append(dict(base, budget=f"work {fraction}", budget_ms="", run_s=f"{seconds:.1f}", **means, **world))
    return rows


def run(args):
    scenes = args.scenes.split(",")
    unknown = [s for s in scenes if s not in SCENES]
    if unknown:
        sys.exit(f"realtime.py: --scenes: {', '.join(unknown)}: not a scene of the study ({', '.join(SCENES)})")
    seeds = [int(s) for s in args.seeds.split(",")]
    os.makedirs(args.folder, exist_ok=True)
    runs_csv, calibration_json = os.path.join(args.folder, RUNS_CSV), os.path.join(args.folder, CALIBRATION_JSON)
    work = args.work or (os.path.join(ROOT, "results", "studies", "realtime-runs") if os.path.samefile(args.folder, HERE)
                         else os.path.join(args.folder, "runs"))
    os.makedirs(work, exist_ok=True)
    if os.path.exists(calibration_json):
        calibration = json.loads(read_bounded(calibration_json, 1 << 20))
    else:
        calibration = {}
    missing = [s for s in scenes if s not in calibration]
    if missing:
        calibration.update(calibrate(args.binary, missing, seeds[0], work))
    for scene in scenes:
        if "full_resolution_tests" not in calibration[scene]:
            calibration[scene]["full_resolution_tests"] = full_resolution_tests(args.binary, scene, seeds[0], work)
    with open(calibration_json, "w") as f:
        json.dump(calibration, f, indent=1)
    done = set()
    if os.path.exists(runs_csv):
        for r in rows_of(runs_csv, MAX_TABLE_BYTES):
            done.add(run_key(r["scene"], r["seed"], r["protocol"], r["variant"],
                             "" if r["protocol"] == "same_frames" else r["budget"], r["repeat"]))
    runs = [r for r in planned_runs(scenes, seeds) if run_key(*r) not in done]
    started = time.monotonic()
    for i, r in enumerate(runs):
        append_rows(runs_csv, one_run(args.binary, calibration, work, *r))
        elapsed = time.monotonic() - started
        print(f"realtime.py: {i + 1}/{len(runs)} runs, {elapsed / 60:.1f} min, about "
              f"{elapsed / (i + 1) * (len(runs) - i - 1) / 60:.0f} min left", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# analyse: the README's tables from runs.csv alone.

def paired(rows, metric, variant, reference, **cells):
    """log(variant / reference) per seed (same frames: the mean over repeats first), and zeros."""
    def by_seed(v):
        out = {}
        for r in rows:
            if r["variant"] == v and all(r[k] == str(x) for k, x in cells.items()):
                out.setdefault(r["seed"], []).append(number(r[metric]))
        return {s: math.fsum(xs) / len(xs) for s, xs in out.items()}
    mine, ref = by_seed(variant), by_seed(reference)
    logs, zeros = [], 0
    for seed, value in mine.items():
        if seed not in ref or math.isnan(value) or math.isnan(ref[seed]):
            continue
        if value > 0 and ref[seed] > 0:
            logs.append(math.log(value / ref[seed]))
        else:
            zeros += 1
    return logs, zeros


def ratio_text(logs, zeros):
    n = len(logs)
    if n < 2:
        return f"n = {n}" + (f" ({zeros} zero)" if zeros else "")
    m = math.fsum(logs) / n
    se = math.sqrt(math.fsum((x - m) ** 2 for x in logs) / (n - 1)) / math.sqrt(n)
    t95, t90 = student_t_quantile(0.975, n - 1), student_t_quantile(0.95, n - 1)
    text = f"{math.exp(m):.2f} [{math.exp(m - t95 * se):.2f}, {math.exp(m + t95 * se):.2f}]"
    margin = math.log(EQUIVALENCE_MARGIN)
    if -margin < m - t90 * se and m + t90 * se < margin:
        text += " ≡"
    elif m - t95 * se <= 0 <= m + t95 * se:
        text += " ?"
    return text + (f" ({zeros} zero)" if zeros else "")


def repeat_spread(rows, metric, variant, **cells):
    """The median over seeds of |log(repeat 2 / repeat 1)|, as a factor: how much a wall row moves."""
    pairs = {}
    for r in rows:
        if r["variant"] == variant and all(r[k] == str(x) for k, x in cells.items()):
            pairs.setdefault(r["seed"], {})[r["repeat"]] = number(r[metric])
    spreads = sorted(abs(math.log(p["2"] / p["1"])) for p in pairs.values()
                     if "1" in p and "2" in p and p["1"] > 0 and p["2"] > 0)
    return f"{math.exp(spreads[len(spreads) // 2]):.2f}" if spreads else ""


def table(title, header, lines):
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for line in lines:
        print("| " + " | ".join(str(c) for c in line) + " |")


def analyse(args):
    runs_csv = os.path.join(args.folder, RUNS_CSV)
    if not os.path.isfile(runs_csv):
        sys.exit(f"realtime.py: {runs_csv}: missing; `realtime.py run {args.folder}` writes it")
    rows = rows_of(runs_csv, MAX_TABLE_BYTES)
    if args.seeds:
        chosen = set(args.seeds.split(","))
        held = sorted({r["seed"] for r in rows})
        rows = [r for r in rows if r["seed"] in chosen]
        if not rows:
            sys.exit(f"realtime.py: {runs_csv}: no run of seeds {args.seeds} (it holds seeds {', '.join(held) or 'none'})")
    scenes = [s for s in SCENES if any(r["scene"] == s for r in rows)]
    for scene in scenes:
        mine = [r for r in rows if r["scene"] == scene]
        seeds = sorted({r["seed"] for r in mine})
        for protocol in ("same_frames", "closed_loop", "closed_loop_work"):
            p = [r for r in mine if r["protocol"] == protocol]
            if not p:
                continue
            if protocol == "closed_loop_work":
                budgets = [f"work {f}" for f in WORK_SHARES]
            else:
                budgets = [str(b) for b in BUDGET_SHARES] + ([f"work {f}" for f in FRACTIONS] if protocol == "same_frames" else [])
            variants = [v for v in VARIANTS if any(r["variant"] == v for r in p)]
            for metric in ("p_true_visible", "p_true", "p_true_supra", "p_episodes_true", "interrupted"):
                lines = []
                for v in variants:
                    if v == "round_robin":
                        continue
                    lines.append([v] + [ratio_text(*paired(p, metric, v, "round_robin", budget=b)) for b in budgets])
                table(f"**{scene}, {protocol.replace('_', ' ')}: {metric} relative to round robin** (seeds "
                      f"{', '.join(seeds)}; geometric mean of per-seed ratios [95 % t-interval]; ≡ equivalent "
                      f"within 10 %, ? an interval holding 1)", ["variant"] + budgets, lines)
            if protocol == "same_frames":
                lines = [[v] + [repeat_spread(p, "p_true_visible", v, budget=b) for b in budgets[:len(BUDGET_SHARES)]]
                         for v in variants]
                table(f"**{scene}, same frames: spread of visible P over the two repeats** (median over seeds of "
                      f"the factor between them; 1.00 is none)", ["variant"] + budgets[:len(BUDGET_SHARES)], lines)
            lines = []
            for v in variants:
                for b in budgets[:len(BUDGET_SHARES)]:
                    sel = [r for r in p if r["variant"] == v and r["budget"] == b]
                    if sel:
                        lines.append([v, b] + [f"{math.fsum(number(r[c]) for r in sel) / len(sel):.4g}"
                                               for c in ("p_true_visible", "p_episodes_true", "interrupted",
                                                         "collisions", "contacts", "kinetic_energy_j", "sphere_tests")])
            table(f"**{scene}, {protocol.replace('_', ' ')}: means a frame over seeds and repeats**",
                  ["variant", "budget", "visible P", "episodes P", "interrupted", "collisions", "contacts",
                   "kinetic energy J", "sphere tests"], lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="calibrate, then every run one at a time in a shuffled order")
    r.add_argument("folder", nargs="?", default=HERE,
                   help="where runs.csv and calibration.json go (default: this script's, results/studies/realtime)")
    r.add_argument("--binary", default=os.path.join(ROOT, "build", "bin", "fovea"))
    r.add_argument("--seeds", default="101,102,103,104,105,106,107,108,109,110")
    r.add_argument("--scenes", default="packed,pile,rockfall")
    r.add_argument("--work", help="where the run folders go (not committed; default results/studies/realtime-runs "
                                  "for this script's folder, else FOLDER/runs)")
    r.set_defaults(func=run)
    a = sub.add_parser("analyse", help="the README's tables from runs.csv")
    a.add_argument("folder", nargs="?", default=HERE,
                   help="the folder holding runs.csv (default: this script's, results/studies/realtime)")
    a.add_argument("--seeds", default="",
                   help="only these seeds, comma-separated (default: every seed in runs.csv), e.g. the held-out ones")
    a.set_defaults(func=analyse)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
