#!/usr/bin/env python3
"""The sphere-tree study's table (docs/spheretree.md, "What tighter trees do in a scene").

Reads the runs of ./fovea sweep configs/studies/trees.yaml and trees_default.yaml
(results/studies/trees-packed/ and trees-default/), and writes results/studies/trees/table.csv:
per scene, world tree (the trees the world ran on), evaluated tree set (evaluation.csv's `tree`:
every set on the same poses and collisions) and seed, over the frames after
metrics.warmup_frames, the mean of

  full_tests         sphere tests full resolution needs in a frame on that tree set (evaluation.csv)
  collisions         broad-phase pairs refined in a frame (frames.csv): the same for every set
  p_true_2, nabla_true_2_mm, p_true_20, nabla_true_20_mm
                     P and nabla, true, left by priority queues at 2 % and 20 % of the set's own
                     full_tests
  p_true_w2, nabla_true_w2_mm, p_true_w20, nabla_true_w20_mm
                     the same at the work budgets of about 2 % and 20 % of the octree's full_tests
                     (50 and 500 tests in the packed scene, 35 and 350 in the default): the same
                     work for every tree

then prints, per scene, world tree and evaluated tree, the mean over seeds with a 95 % t
interval, and each evaluated tree against the octree on the same frames as the mean over seeds
of the per-seed ratio, with its t interval.

  python3 results/studies/trees/analyse.py                      # the repository's two sweeps
  python3 results/studies/trees/analyse.py PACKED DEFAULT --out DIR

PACKED and DEFAULT are the two sweeps' folders (their --out), run anywhere, with --quick or
not; `-` leaves that scene out. table.csv goes to --out: beside this script only without
folders, so a study run elsewhere never overwrites the committed table unasked.
"""
import argparse
import csv
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "experiments", "tools"))
from bounded_read import JSON_LIMIT, RUN_CSV_LIMIT, TABLE_LIMIT, json_or_exit, rows_or_exit  # noqa: E402
WHO = "trees/analyse.py"  # names this script in its refusals
STUDIES = (("packed500", "trees-packed", "trees"), ("default", "trees-default", "trees_default"))
WORK_BUDGETS = {"packed500": ("50", "500"), "default": ("35", "350")}
TABLE = os.path.join(HERE, "table.csv")


def need(path, config):
    """`path`, or an exit naming it and the sweep that writes it."""
    if not os.path.isfile(path):
        sys.exit(f"analyse.py: {path}: missing; a folder of ./fovea sweep configs/studies/{config}.yaml (with its "
                 "runs/: they are not committed) is needed")
    return path
# Two-sided 95 % quantiles of Student's t by degrees of freedom.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}
METRICS = ("full_tests", "collisions", "p_true_2", "nabla_true_2_mm", "p_true_20", "nabla_true_20_mm", "p_true_w2",
           "nabla_true_w2_mm", "p_true_w20", "nabla_true_w20_mm")


def number(text):
    return float(text) if text not in ("", None) else math.nan


def mean(values):
    values = [v for v in values if not math.isnan(v)]
    return math.fsum(values) / len(values) if values else math.nan


def summarise(folders, table_path):
    rows = []
    for (scene, _, config), folder in zip(STUDIES, folders):
        if folder is None:
            continue
        table = need(os.path.join(folder, "table.csv"), config)
        for run in rows_or_exit(table, TABLE_LIMIT, WHO):
            run_folder = os.path.join(folder, "runs", f"{int(run['run']):04d}")
            warmup = json_or_exit(need(os.path.join(run_folder, "summary.json"), config), JSON_LIMIT, WHO)["warmup_frames"]
            frames = {int(r["frame"]): r for r in rows_or_exit(need(os.path.join(run_folder, "frames.csv"), config), RUN_CSV_LIMIT, WHO)}
            by_tree = {}
            for r in rows_or_exit(need(os.path.join(run_folder, "evaluation.csv"), config), RUN_CSV_LIMIT, WHO):
                if int(r["frame"]) >= warmup and r["tree"] != "run":
                    by_tree.setdefault(r["tree"], {}).setdefault(r["budget"], []).append(r)
            low, high = WORK_BUDGETS[scene]
            for tree, by_budget in by_tree.items():
                missing = [b for b in ("0.02", "0.2", low, high) if b not in by_budget]
                if missing:
                    sys.exit(f"analyse.py: {run_folder}/evaluation.csv: no rows of budget {', '.join(missing)} after "
                             f"the warm-up; the study evaluates 0.02, 0.2, {low} and {high} (configs/studies/{config}.yaml)")
                two, twenty, w_two, w_twenty = (by_budget[b] for b in ("0.02", "0.2", low, high))
                rows.append({
                    "scene": scene,
                    "world_tree": run["world_tree"],
                    "tree": tree,
                    "seed": run["seed"],
                    "frames": len(two),
                    "full_tests": mean(number(r["full_tests"]) for r in two),
                    "collisions": mean(number(frames[int(r["frame"])]["collisions"]) for r in two),
                    "p_true_2": mean(number(r["p_true"]) for r in two),
                    "nabla_true_2_mm": 1000 * mean(number(r["nabla_true"]) for r in two),
                    "p_true_20": mean(number(r["p_true"]) for r in twenty),
                    "nabla_true_20_mm": 1000 * mean(number(r["nabla_true"]) for r in twenty),
                    "p_true_w2": mean(number(r["p_true"]) for r in w_two),
                    "nabla_true_w2_mm": 1000 * mean(number(r["nabla_true"]) for r in w_two),
                    "p_true_w20": mean(number(r["p_true"]) for r in w_twenty),
                    "nabla_true_w20_mm": 1000 * mean(number(r["nabla_true"]) for r in w_twenty),
                })
    if not rows:
        sys.exit("analyse.py: no run of the sweeps has evaluation rows after its warm-up")
    with open(table_path, "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0].keys()))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return rows


def interval(values):
    values = [v for v in values if not math.isnan(v)]
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, math.nan
    return m, T975[len(values) - 1] * statistics.stdev(values) / math.sqrt(len(values))


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Without folders: results/studies/trees-packed and trees-default.")
    for scene, folder_name, config in STUDIES:
        parser.add_argument(scene, nargs="?", metavar=folder_name.split("-")[1].upper(), help=f"the folder of ./fovea sweep configs/studies/{config}.yaml "
                                                   f"(default results/studies/{folder_name}), or - to leave it out")
    parser.add_argument("--out", help="where table.csv goes (default: beside this script, only without folders)")
    args = parser.parse_args()
    given = [getattr(args, scene) for scene, _, _ in STUDIES]
    if args.out is None and any(g is not None for g in given):
        parser.error("with folders given, --out DIR says where table.csv goes (the committed one is beside this script)")
    folders = [os.path.normpath(os.path.join(HERE, "..", name)) if g is None else None if g == "-" else g
               for g, (_, name, _) in zip(given, STUDIES)]
    if all(f is None for f in folders):
        parser.error("every scene left out")
    out = args.out or HERE
    os.makedirs(out, exist_ok=True)
    return folders, os.path.join(out, "table.csv")


def main():
    folders, table_path = arguments()
    rows = summarise(folders, table_path)
    print(f"{table_path}: {len(rows)} runs\n")
    for scene, _, _ in STUDIES:
        for world_tree in ("octree", "medial"):
            mine = [r for r in rows if r["scene"] == scene and r["world_tree"] == world_tree]
            if not mine:
                continue
            trees = sorted({r["tree"] for r in mine}, key=lambda t: (t != "octree", t))
            print(f"## {scene}, the world on {world_tree} trees: mean over seeds, 95 % t interval\n")
            print("| tree | " + " | ".join(METRICS) + " |")
            print("|---|" + "---|" * len(METRICS))
            for tree in trees:
                cells = []
                for m in METRICS:
                    mu, half = interval([r[m] for r in mine if r["tree"] == tree])
                    cells.append(f"{mu:.4g} ± {half:.2g}")
                print(f"| {tree} | " + " | ".join(cells) + " |")
            print(f"\n## {scene}, the world on {world_tree} trees: each tree over the octree on the same frames, "
                  "mean of per-seed ratios, 95 % t interval\n")
            print("| tree | " + " | ".join(METRICS) + " |")
            print("|---|" + "---|" * len(METRICS))
            octree = {r["seed"]: r for r in mine if r["tree"] == "octree"}
            for tree in trees:
                if tree == "octree":
                    continue
                cells = []
                for m in METRICS:
                    ratios = [r[m] / octree[r["seed"]][m] for r in mine if r["tree"] == tree and octree[r["seed"]][m] > 0]
                    mu, half = interval(ratios)
                    cells.append(f"{mu:.3f} ± {half:.2g}")
                print(f"| {tree} | " + " | ".join(cells) + " |")
            print()

if __name__ == "__main__":
    main()
