#!/usr/bin/env python3
"""The schedulers_v2 study's numbers: every table of README.md, recomputed. Standard library only.

    /usr/bin/python3 results/studies/schedulers_v2/analyse.py summarise   # run folders -> table.csv
    /usr/bin/python3 results/studies/schedulers_v2/analyse.py             # table.csv -> README.md's tables

    analyse.py summarise [PACKED [PILE]] [--out DIR]    # two sweeps run anywhere (- leaves one out)
    analyse.py [FOLDER]                                 # the tables of FOLDER/table.csv

Without folders, `summarise` reads the repository's two sweeps and writes table.csv beside
this script; with folders it needs --out DIR, so a study run elsewhere (`fovea sweep ...
--quick --out ...`, say) never overwrites the committed table unasked.

`summarise` reads the two sweeps' folders (results/studies/schedulers_v2-packed/ and
results/studies/schedulers_v2-pile/: their table.csv for each run's factors, and each run's
summary.json, frames.csv and evaluation.csv) and writes table.csv beside this script: one row
per run, evaluated scheduler and budget, every metric averaged over the frames after the
run's warm-up (summary.json's warmup_frames). The run folders are not committed
(docs/studies.md); table.csv is, so the tables can be recomputed from it alone.

Ratios are paired by seed (the same world, gaze path, collisions and budget: the evaluation
runs every scheduler on the same frames) and averaged on the log scale: the geometric mean of
the per-seed ratios, with its 95 % Student-t interval; seeds where either side is 0 are
counted apart. "No difference" is tested as equivalence (two one-sided tests at 5 %: the 90 %
interval inside [1 / 1.1, 1.1]), marked ≡; ? marks a 95 % interval that holds 1.
"""

import argparse
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "experiments", "plots"))
from study_figures import student_t_quantile  # noqa: E402  (found through the path just set)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "experiments", "tools"))
from bounded_read import JSON_LIMIT, RUN_CSV_LIMIT, TABLE_LIMIT, json_or_exit, rows_or_exit  # noqa: E402
WHO = "schedulers_v2/analyse.py"  # names this script in its refusals

STUDIES = (("packed", "schedulers_v2-packed", "schedulers_v2"), ("pile", "schedulers_v2-pile", "schedulers_v2_pile"))
TABLE = os.path.join(HERE, "table.csv")
METRICS = ("p_true", "p_true_supra", "p_true_visible", "p_episodes_true", "p_est", "interrupted",
           "resolved_colliding", "resolved_not_colliding", "sphere_tests", "budget_tests", "full_tests", "evaluate_ms")
EQUIVALENCE_MARGIN = 1.1
KINDS = ("round_robin", "sequential", "sorted_sequential", "priority_queues", "adaptive_queues", "hybrid", "oracle",
         "eccentricity", "random")
PERCEPTUAL = ("sorted_sequential", "priority_queues", "adaptive_queues", "hybrid")
FRACTIONS = ("0.01", "0.05", "0.2", "0.6")
VARIANTS = ("004", "refined", "coherent")


def number(text):
    return float(text) if text not in ("", None) else math.nan


def mean(values):
    values = [v for v in values if not math.isnan(v)]
    return math.fsum(values) / len(values) if values else math.nan


def need(path, what):
    """`path`, or an exit naming it and what writes it."""
    if not os.path.isfile(path):
        sys.exit(f"analyse.py: {path}: missing; {what}")
    return path


# --- summarise: run folders -> table.csv -------------------------------------------------------

def summarise(folders, table_path):
    out_rows = []
    for (scene, _, study_file), folder in zip(STUDIES, folders):
        if folder is None:
            continue
        what = f"a folder of ./fovea sweep configs/studies/{study_file}.yaml (with its runs/: they are not committed)"
        table = need(os.path.join(folder, "table.csv"), what)
        for run in rows_or_exit(table, TABLE_LIMIT, WHO):
            run_folder = os.path.join(folder, "runs", f"{int(run['run']):04d}")
            warmup = json_or_exit(need(os.path.join(run_folder, "summary.json"), what), JSON_LIMIT, WHO)["warmup_frames"]
            frames = [r for r in rows_or_exit(need(os.path.join(run_folder, "frames.csv"), what), RUN_CSV_LIMIT, WHO)
                      if int(r["frame"]) >= warmup]
            # The driver runs at full resolution; with coherence on, its own descent is the
            # coherent one, beside evaluation.csv's full_tests (the descent from the roots).
            driver_tests = mean(number(r["sphere_tests"]) for r in frames)
            collisions = mean(number(r["collisions"]) for r in frames)
            colliding = mean(number(r["resolved_colliding"]) for r in frames)
            narrowphase_ms = sorted(number(r["narrowphase_ms"]) for r in frames)
            groups = {}
            for r in rows_or_exit(need(os.path.join(run_folder, "evaluation.csv"), what), RUN_CSV_LIMIT, WHO):
                if int(r["frame"]) >= warmup:
                    budget = r["budget"] if r["budget_mode"] != "wall" else r["budget"] + "ms"
                    groups.setdefault((r["scheduler"], budget), []).append(r)
            for (scheduler, budget), rows in groups.items():
                row = {"scene": scene, "variant": run["variant"], "split": run["split"], "seed": run["seed"],
                       "scheduler": scheduler, "budget": budget, "frames": len(rows)}
                for m in METRICS:
                    row[m] = mean(number(r[m]) for r in rows)
                row["collisions"] = collisions
                row["driver_colliding"] = colliding
                row["driver_tests"] = driver_tests
                row["driver_narrowphase_ms_median"] = narrowphase_ms[len(narrowphase_ms) // 2] if narrowphase_ms else math.nan
                out_rows.append(row)
    if not out_rows:
        sys.exit("analyse.py: no run of the sweeps has evaluation rows after its warm-up")
    columns = list(out_rows[0].keys())
    with open(table_path, "w", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for row in out_rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})
    print(f"{table_path}: {len(out_rows)} rows")


# --- tables: table.csv -> the README's numbers ------------------------------------------------

ROWS = []


def select(**cells):
    return [r for r in ROWS if all(r[k] == str(v) for k, v in cells.items())]


def paired_logs(metric, scheduler, reference, ref_cells=None, **cells):
    """Per seed: log(metric(scheduler, cells) / metric(reference, ref_cells or cells))."""
    logs, zeros = [], 0
    for r in select(scheduler=scheduler, **cells):
        rc = dict(cells)
        rc.update(ref_cells or {})
        ref = select(scheduler=reference, seed=r["seed"], **rc)
        if not ref:
            continue
        a, b = number(r[metric]), number(ref[0][metric])
        if math.isnan(a) or math.isnan(b):
            continue
        if a > 0 and b > 0:
            logs.append(math.log(a / b))
        else:
            zeros += 1
    return logs, zeros


def summary(logs):
    n = len(logs)
    if n < 2:
        return None
    m = math.fsum(logs) / n
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in logs) / (n - 1))
    se = sd / math.sqrt(n)
    t95, t90 = student_t_quantile(0.975, n - 1), student_t_quantile(0.95, n - 1)
    return m, (m - t95 * se, m + t95 * se), (m - t90 * se, m + t90 * se)


def ratio(metric, scheduler, reference="round_robin", ref_cells=None, **cells):
    """(geometric mean ratio, text) of scheduler to reference, paired by seed."""
    logs, zeros = paired_logs(metric, scheduler, reference, ref_cells, **cells)
    s = summary(logs)
    if s is None:
        return math.nan, f"n = {len(logs)}" + (f" ({zeros} zero)" if zeros else "")
    m, (lo95, hi95), (lo90, hi90) = s
    text = f"{math.exp(m):.2f} [{math.exp(lo95):.2f}, {math.exp(hi95):.2f}]"
    if -math.log(EQUIVALENCE_MARGIN) < lo90 and hi90 < math.log(EQUIVALENCE_MARGIN):
        text += " ≡"
    elif lo95 <= 0 <= hi95:
        text += " ?"
    if zeros:
        text += f" ({zeros} zero)"
    return math.exp(m), text


def mean_of(metric, **cells):
    return mean(number(r[metric]) for r in select(**cells))


def table(title, header, lines):
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for line in lines:
        print("| " + " | ".join(str(c) for c in line) + " |")


def fmt(x, digits=3):
    return "" if math.isnan(x) else f"{x:.{digits}g}"


def tables(table_path):
    ROWS.extend(rows_or_exit(need(table_path, "`analyse.py summarise` writes it from the sweeps' folders"),
                             TABLE_LIMIT, WHO))
    scenes = [s for s, _, _ in STUDIES if select(scene=s)]
    budgets_of = {s: sorted({r["budget"] for r in select(scene=s)}, key=lambda b: (b.endswith("ms"), float(b.rstrip("ms"))))
                  for s in scenes}

    for metric, what in (("p_true_visible", "visible P"), ("p_true", "P"), ("p_true_supra", "suprathreshold P")):
        for scene in scenes:
            lines = []
            for variant in VARIANTS:
                for kind in KINDS:
                    if kind == "round_robin":
                        continue
                    cells = [ratio(metric, kind, scene=scene, variant=variant, split="main", budget=b)[1]
                             for b in budgets_of[scene]]
                    lines.append([variant, kind] + cells)
            rr = [fmt(mean_of(metric, scene=scene, variant="004", split="main", scheduler="round_robin", budget=b))
                  for b in budgets_of[scene]]
            lines.append(["004", "round robin's own, a frame"] + rr)
            table(f"**{what} relative to round robin of the same variant, {scene}** (geometric mean over seeds "
                  f"[95 % interval]; budgets as shares of full resolution, or wall-clock ms)",
                  ["variant", "scheduler"] + budgets_of[scene], lines)

    # Against the oracle, and the goals.
    for scene in scenes:
        lines = []
        for variant in VARIANTS:
            for kind in PERCEPTUAL + ("round_robin",):
                cells = []
                for b in budgets_of[scene]:
                    if b.endswith("ms"):
                        continue
                    cells.append(ratio("p_true_visible", kind, "oracle", scene=scene, variant=variant, split="main",
                                       budget=b)[1])
                lines.append([variant, kind] + cells)
        table(f"**Visible P relative to the oracle (same variant, same budget), {scene}**",
              ["variant", "scheduler"] + [b for b in budgets_of[scene] if not b.endswith("ms")], lines)
        lines = []
        for variant in VARIANTS:
            for kind in PERCEPTUAL + ("round_robin",):
                cells = [ratio("p_true", kind, "oracle", scene=scene, variant=variant, split="main", budget=b)[1]
                         for b in budgets_of[scene] if not b.endswith("ms")]
                lines.append([variant, kind] + cells)
        table(f"**P relative to the oracle (same variant, same budget), {scene}**",
              ["variant", "scheduler"] + [b for b in budgets_of[scene] if not b.endswith("ms")], lines)

    # Every variant against 004's round robin: what the new starting points give each kind.
    for scene in scenes:
        lines = []
        for variant in VARIANTS:
            for kind in ("round_robin", "sorted_sequential", "priority_queues", "adaptive_queues", "hybrid"):
                cells = [ratio("p_true_visible", kind, "round_robin", ref_cells={"variant": "004"}, scene=scene,
                               variant=variant, split="main", budget=b)[1] for b in budgets_of[scene]]
                lines.append([variant, kind] + cells)
        table(f"**Visible P relative to 004's round robin (variant 004), {scene}**", ["variant", "scheduler"] +
              budgets_of[scene], lines)

    # The hybrid's split.
    for scene in scenes:
        lines = []
        for split, levels in (("hybrid1", 1), ("main", 2), ("hybrid4", 4)):
            cells = [ratio("p_true_visible", "hybrid", scene=scene, variant="coherent", split=split, budget=b)[1]
                     for b in budgets_of[scene]]
            lines.append([levels] + cells)
        table(f"**The hybrid's split: visible P relative to round robin, coherent variant, {scene}**",
              ["hybrid_levels"] + budgets_of[scene], lines)

    # Coherence: tests at full resolution, and what budgets resolve.
    lines = []
    for scene in scenes:
        for variant in VARIANTS:
            rows = select(scene=scene, variant=variant, split="main", scheduler="round_robin", budget="0.2")
            full = mean(number(r["full_tests"]) for r in rows)
            driver = mean(number(r["driver_tests"]) for r in rows)
            ms = mean(number(r["driver_narrowphase_ms_median"]) for r in rows)
            logs = [math.log(number(r["driver_tests"]) / number(r["full_tests"])) for r in rows]
            s = summary(logs)
            text = f"{math.exp(s[0]):.3f} [{math.exp(s[1][0]):.3f}, {math.exp(s[1][1]):.3f}]" if s else ""
            lines.append([scene, variant, fmt(mean_of("collisions", scene=scene, variant=variant, split="main"), 4),
                          fmt(mean_of("driver_colliding", scene=scene, variant=variant, split="main"), 4),
                          fmt(full, 5), fmt(driver, 5), text, fmt(ms, 3)])
    table("**Coherence at full resolution: sphere tests a frame, the driver's own descent against the descent from "
          "the roots** (same frames: coherence leaves the world unchanged at full resolution)",
          ["scene", "variant", "collisions", "resolved colliding", "tests from the roots", "driver's tests",
           "ratio [95 %]", "driver's narrow phase, ms (median)"], lines)
    lines = []
    for scene in scenes:
        for kind in ("round_robin", "sorted_sequential", "hybrid"):
            for b in [b for b in budgets_of[scene] if not b.endswith("ms")]:
                lines.append([scene, kind, b] + [fmt(mean_of("interrupted", scene=scene, variant=v, split="main",
                                                              scheduler=kind, budget=b), 4) for v in VARIANTS] +
                             [ratio("p_true_visible", kind, kind, ref_cells={"variant": "refined"}, scene=scene,
                                    variant="coherent", split="main", budget=b)[1]])
    table("**What coherence does under a budget: collisions left interrupted a frame, and visible P with coherence "
          "relative to without (both with refined priorities)**",
          ["scene", "scheduler", "budget"] + [f"interrupted, {v}" for v in VARIANTS] + ["visible P, coherent / refined"],
          lines)

    # Wall-clock budgets: tests done, relative to round robin.
    for scene in scenes:
        lines = []
        for variant in VARIANTS:
            for kind in KINDS:
                if kind in ("round_robin", "oracle"):
                    continue
                cells = []
                for b in budgets_of[scene]:
                    if not b.endswith("ms"):
                        continue
                    cells.append(ratio("sphere_tests", kind, scene=scene, variant=variant, split="main", budget=b)[1])
                lines.append([variant, kind] + cells)
        table(f"**Wall-clock budgets: sphere tests done relative to round robin, {scene}** (perceiving is paid "
              f"from the budget)", ["variant", "scheduler"] + [b for b in budgets_of[scene] if b.endswith("ms")], lines)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "summarise":
        parser = argparse.ArgumentParser(prog="analyse.py summarise", description="the sweeps' run folders -> table.csv")
        for scene, folder_name, study_file in STUDIES:
            parser.add_argument(scene, nargs="?", metavar=scene.upper(),
                                help=f"the folder of ./fovea sweep configs/studies/{study_file}.yaml (default "
                                     f"results/studies/{folder_name}), or - to leave it out")
        parser.add_argument("--out", help="where table.csv goes (default: beside this script, only without folders)")
        args = parser.parse_args(sys.argv[2:])
        given = [getattr(args, scene) for scene, _, _ in STUDIES]
        if args.out is None and any(g is not None for g in given):
            parser.error("with folders given, --out DIR says where table.csv goes (the committed one is beside this "
                         "script)")
        folders = [os.path.normpath(os.path.join(HERE, "..", name)) if g is None else None if g == "-" else g
                   for g, (_, name, _) in zip(given, STUDIES)]
        if all(f is None for f in folders):
            parser.error("every scene left out")
        os.makedirs(args.out or HERE, exist_ok=True)
        summarise(folders, os.path.join(args.out or HERE, "table.csv"))
    else:
        parser = argparse.ArgumentParser(prog="analyse.py", description="table.csv -> README.md's tables; "
                                         "`analyse.py summarise --help` for the step before")
        parser.add_argument("folder", nargs="?", default=HERE,
                            help="the folder holding table.csv (default: this script's, results/studies/schedulers_v2)")
        tables(os.path.join(parser.parse_args().folder, "table.csv"))


if __name__ == "__main__":
    main()
