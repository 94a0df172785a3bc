#!/usr/bin/env python3
"""The counterfactual study's numbers: every table of README.md, recomputed. Standard library only.

    python3 results/studies/counterfactual/analyse.py summarise   # the sweeps' run folders -> evaluation_table.csv
    python3 results/studies/counterfactual/analyse.py             # evaluation_table.csv -> README.md's tables

    analyse.py summarise [PACKED [PILE [ROCKFALL]]] [--out DIR]   # sweeps run anywhere (- leaves one out)
    analyse.py [FOLDER]                                           # the tables of FOLDER's two CSVs

Without folders, `summarise` reads the repository's three sweeps and writes
evaluation_table.csv and settling.csv beside this script; with folders it needs --out DIR,
so a study run elsewhere (`fovea sweep ... --quick --out ...`, say) never overwrites the
committed tables unasked.

`summarise` reads the three sweeps' folders (results/studies/counterfactual-packed/,
results/studies/counterfactual-pile/, results/studies/counterfactual-rockfall/: their
table.csv for each run's factors, and each run's summary.json, frames.csv and
evaluation.csv) and writes evaluation_table.csv beside this script: one row per run,
evaluated scheduler and budget, every metric averaged over the run's frames after its
warm-up (summary.json's warmup_frames). The run folders are not committed (docs/studies.md);
evaluation_table.csv is, so the tables can be recomputed from it alone.

Ratios to round robin are paired by seed (the same world, gaze path and collisions: the
evaluation runs every scheduler on the same frames) and averaged on the log scale: the
geometric mean of the per-seed ratios, with its 95 % Student-t interval. "No difference" is
tested as equivalence (two one-sided tests at 5 %: the 90 % interval inside the margin
[1 / 1.1, 1.1]), in every cell.
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
WHO = "counterfactual/analyse.py"  # names this script in its refusals

STUDIES = (("packed", "counterfactual-packed"), ("pile", "counterfactual-pile"), ("rockfall", "counterfactual-rockfall"))
TABLE = os.path.join(HERE, "evaluation_table.csv")
METRICS = ("p_true", "p_true_supra", "p_true_visible", "p_episodes_true", "p_est", "p_est_supra", "interrupted",
           "sphere_tests", "budget_tests", "full_tests", "nabla_true")
# A frame's fixation is "on the action" when a collision's centre lies within this many degrees.
ON_ACTION_DEG = 5.0
EQUIVALENCE_MARGIN = 1.1
SCHEDULERS = ("round_robin", "sequential", "sorted_sequential", "priority_queues")
BUDGETS = ("0.01", "0.05", "0.2", "0.6")


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


STUDY_FILES = {"packed": "counterfactual", "pile": "counterfactual_pile", "rockfall": "counterfactual_rockfall"}


def sweep_folder(scene):
    return (f"a folder of ./fovea sweep configs/studies/{STUDY_FILES[scene]}.yaml (with its runs/: they are not "
            "committed)")


# --- summarise: run folders -> evaluation_table.csv -------------------------------------------

def summarise(folders, out):
    out_rows = []
    for (scene, _), folder in zip(STUDIES, folders):
        if folder is None:
            continue
        table = need(os.path.join(folder, "table.csv"), sweep_folder(scene))
        for run in rows_or_exit(table, TABLE_LIMIT, WHO):
            run_folder = os.path.join(folder, "runs", f"{int(run['run']):04d}")
            warmup = json_or_exit(need(os.path.join(run_folder, "summary.json"), sweep_folder(scene)), JSON_LIMIT,
                                  WHO)["warmup_frames"]
            frames = {int(r["frame"]): r
                      for r in rows_or_exit(need(os.path.join(run_folder, "frames.csv"), sweep_folder(scene)),
                                            RUN_CSV_LIMIT, WHO)}
            groups = {}
            for r in rows_or_exit(need(os.path.join(run_folder, "evaluation.csv"), sweep_folder(scene)), RUN_CSV_LIMIT,
                                  WHO):
                groups.setdefault((r["scheduler"], r["budget"]), []).append(r)
            for (scheduler, budget), rows in groups.items():
                steady = [r for r in rows if int(r["frame"]) >= warmup]
                early = [r for r in rows if int(r["frame"]) < warmup]
                on = [r for r in steady if number(r["gaze_collision_deg"]) <= ON_ACTION_DEG]
                off = [r for r in steady if not number(r["gaze_collision_deg"]) <= ON_ACTION_DEG]
                row = {
                    "scene": scene,
                    "entities": run.get("entities", "50" if scene == "pile" else "demo"),
                    "driver": run.get("driver", "full"),
                    "viewer": run["viewer"],
                    "f": run["f"],
                    "seed": run["seed"],
                    "scheduler": scheduler,
                    "budget": budget,
                    "frames": len(steady),
                }
                for m in METRICS:
                    row[m] = mean(number(r[m]) for r in steady)
                row["collisions"] = mean(number(frames[int(r["frame"])]["collisions"]) for r in steady)
                row["frames_on_action"] = len(on)
                row["p_true_on_action"] = mean(number(r["p_true"]) for r in on)
                row["p_true_off_action"] = mean(number(r["p_true"]) for r in off)
                row["p_true_warmup"] = mean(number(r["p_true"]) for r in early)
                out_rows.append(row)
    if not out_rows:
        sys.exit("analyse.py: no run of the sweeps has evaluation rows")
    write_settling(folders, os.path.join(out, os.path.basename(SETTLING)))
    columns = list(out_rows[0].keys())
    table_path = os.path.join(out, os.path.basename(TABLE))
    with open(table_path, "w", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for row in out_rows:
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    print(f"{table_path}: {len(out_rows)} rows")


SETTLING = os.path.join(HERE, "settling.csv")
WINDOW = 100


def write_settling(folders, settling_path):
    """settling.csv: per scene, the collision count and kinetic energy in windows of 100
    frames, averaged over the seeds of the runs driven at full resolution (one viewer and one
    f: with a full-resolution driver neither changes the world)."""
    lines = []
    for (scene, _), folder in zip(STUDIES, folders):
        if folder is None:
            continue
        sums = {}
        for run in rows_or_exit(os.path.join(folder, "table.csv"), TABLE_LIMIT, WHO):
            if run.get("driver", "full") != "full" or run["f"] != "logistic" or run["viewer"] != "collisions":
                continue
            entities = run.get("entities", "50" if scene == "pile" else "demo")
            path = os.path.join(folder, "runs", f"{int(run['run']):04d}", "frames.csv")
            for r in rows_or_exit(path, RUN_CSV_LIMIT, WHO):
                key = (scene, entities, int(r["frame"]) // WINDOW * WINDOW)
                acc = sums.setdefault(key, [0.0, 0.0, 0])
                acc[0] += number(r["collisions"])
                acc[1] += number(r["kinetic_energy_j"])
                acc[2] += 1
        for (scene_, entities, start), (collisions, energy, n) in sorted(sums.items(), key=lambda kv: (kv[0][0], int(kv[0][1]) if kv[0][1].isdigit() else 0, kv[0][2])):
            lines.append([scene_, entities, start, f"{collisions / n:.4g}", f"{energy / n:.4g}"])
    with open(settling_path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["scene", "entities", "frames_from", "collisions", "kinetic_energy_j"])
        writer.writerows(lines)
    print(f"{settling_path}: {len(lines)} rows")


# --- tables: evaluation_table.csv -> the README's numbers -------------------------------------

ROWS = []


def select(**cells):
    return [r for r in ROWS if all(r[k] == str(v) for k, v in cells.items())]


def paired_log_ratios(metric, scheduler, **cells):
    """Per seed: log(metric(scheduler) / metric(round robin)); seeds where either is 0 left out."""
    logs, zeros = [], 0
    for r in select(scheduler=scheduler, **cells):
        ref = select(scheduler="round_robin", seed=r["seed"], **cells)
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


def ratio_text(metric, scheduler, **cells):
    """'0.81 [0.72, 0.91]': geometric mean ratio to round robin and its 95 % interval; with
    ' ≡' when the 90 % interval lies inside the equivalence margin (equivalent within 10 %),
    ' ?' when the 95 % interval holds 1 and equivalence is not shown either."""
    logs, zeros = paired_log_ratios(metric, scheduler, **cells)
    n = len(logs)
    if n < 2:
        return f"n = {n}" + (f" ({zeros} zero)" if zeros else "")
    m = math.fsum(logs) / n
    sd = math.sqrt(math.fsum((x - m) ** 2 for x in logs) / (n - 1))
    se = sd / math.sqrt(n)
    lo95, hi95 = m - student_t_quantile(0.975, n - 1) * se, m + student_t_quantile(0.975, n - 1) * se
    lo90, hi90 = m - student_t_quantile(0.95, n - 1) * se, m + student_t_quantile(0.95, n - 1) * se
    text = f"{math.exp(m):.2f} [{math.exp(lo95):.2f}, {math.exp(hi95):.2f}]"
    # Equivalence is tested whether or not the interval holds 1: a difference of 1 % can be
    # real (the interval excludes 1) and still inside the margin, too small to matter.
    equivalent = -math.log(EQUIVALENCE_MARGIN) < lo90 and hi90 < math.log(EQUIVALENCE_MARGIN)
    if equivalent:
        text += " ≡"
    elif lo95 <= 0 <= hi95:
        text += " ?"
    if zeros:
        text += f" ({zeros} zero)"
    return text


def mean_of(metric, **cells):
    return mean(number(r[metric]) for r in select(**cells))


def table(title, header, lines):
    print(f"\n{title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for line in lines:
        print("| " + " | ".join(str(c) for c in line) + " |")


def read_table(folder):
    """FOLDER's evaluation_table.csv into ROWS; its path."""
    path = need(os.path.join(folder, os.path.basename(TABLE)),
                "`analyse.py summarise` writes it from the sweeps' folders")
    ROWS.extend(rows_or_exit(path, TABLE_LIMIT, WHO))
    return path


def tables(folder):
    table_path = read_table(folder)
    print(f"{table_path}: {len(ROWS)} rows")
    settling = rows_or_exit(need(os.path.join(folder, os.path.basename(SETTLING)),
                                 "`analyse.py summarise` writes it beside evaluation_table.csv"), TABLE_LIMIT, WHO)
    table("Settling: collisions and kinetic energy a frame, by window of 100 frames (full-resolution driver, mean over seeds)",
          ["scene", "entities", "frames from", "collisions", "kinetic energy, J"],
          [[r["scene"], r["entities"], r["frames_from"], r["collisions"], r["kinetic_energy_j"]] for r in settling])
    base = dict(scene="packed", entities=500, driver="full")

    table("Headline: P left (p_true) relative to round robin, logistic f, every viewer; packed 500 rocks, full-resolution driver",
          ["viewer", "share of full resolution", "P round robin", "sorted_sequential / rr", "priority_queues / rr",
           "sequential / rr"],
          [[v, b, f"{mean_of('p_true', scheduler='round_robin', viewer=v, budget=b, f='logistic', **base):.3g}",
            ratio_text("p_true", "sorted_sequential", viewer=v, budget=b, f="logistic", **base),
            ratio_text("p_true", "priority_queues", viewer=v, budget=b, f="logistic", **base),
            ratio_text("p_true", "sequential", viewer=v, budget=b, f="logistic", **base)]
           for v in ("screen", "entities", "collisions") for b in BUDGETS])

    for scene, cells in (("pile", dict(scene="pile")), ("rockfall", dict(scene="rockfall")),
                         ("packed, 100 rocks", dict(scene="packed", entities=100, driver="full")),
                         ("packed, 2000 rocks (5 seeds, collision viewer)", dict(scene="packed", entities=2000, driver="full"))):
        viewers = ("collisions",) if "2000" in scene else ("screen", "entities", "collisions")
        table(f"{scene}: P relative to round robin, logistic f",
              ["viewer", "share", "P round robin", "sorted_sequential / rr", "priority_queues / rr"],
              [[v, b, f"{mean_of('p_true', scheduler='round_robin', viewer=v, budget=b, f='logistic', **cells):.3g}",
                ratio_text("p_true", "sorted_sequential", viewer=v, budget=b, f="logistic", **cells),
                ratio_text("p_true", "priority_queues", viewer=v, budget=b, f="logistic", **cells)]
               for v in viewers for b in BUDGETS])

    table("What a viewer can see: priority_queues / round robin by metric, packed 500, full driver, logistic f",
          ["viewer", "share", "P", "suprathreshold P", "visible P", "episodes", "estimated P"],
          [[v, b] + [ratio_text(m, "priority_queues", viewer=v, budget=b, f="logistic", **base)
                     for m in ("p_true", "p_true_supra", "p_true_visible", "p_episodes_true", "p_est")]
           for v in ("screen", "collisions") for b in BUDGETS])
    table("The same for sorted_sequential / round robin",
          ["viewer", "share", "P", "suprathreshold P", "visible P", "episodes", "estimated P"],
          [[v, b] + [ratio_text(m, "sorted_sequential", viewer=v, budget=b, f="logistic", **base)
                     for m in ("p_true", "p_true_supra", "p_true_visible", "p_episodes_true", "p_est")]
           for v in ("screen", "collisions") for b in BUDGETS])

    table("Sensitivity to f: P ratios to round robin under three f, packed 500, full driver, collision viewer",
          ["f", "share", "sorted_sequential / rr", "priority_queues / rr", "pq suprathreshold", "pq visible"],
          [[f, b, ratio_text("p_true", "sorted_sequential", viewer="collisions", budget=b, f=f, **base),
            ratio_text("p_true", "priority_queues", viewer="collisions", budget=b, f=f, **base),
            ratio_text("p_true_supra", "priority_queues", viewer="collisions", budget=b, f=f, **base),
            ratio_text("p_true_visible", "priority_queues", viewer="collisions", budget=b, f=f, **base)]
           for f in ("logistic", "weibull", "logistic_2t0") for b in BUDGETS])
    for scene in ("pile", "rockfall"):
        table(f"Sensitivity to f, {scene}: logistic against Weibull, collision viewer",
              ["f", "share", "sorted_sequential / rr", "priority_queues / rr"],
              [[f, b, ratio_text("p_true", "sorted_sequential", scene=scene, viewer="collisions", budget=b, f=f),
                ratio_text("p_true", "priority_queues", scene=scene, viewer="collisions", budget=b, f=f)]
               for f in ("logistic", "weibull") for b in BUDGETS])

    table("The driver: the same ratios when round robin or priority queues drive at 15,000 tests a frame (packed 500, collision viewer, logistic)",
          ["driver", "share", "collisions a frame", "sorted_sequential / rr", "priority_queues / rr"],
          [[d, b, f"{mean_of('collisions', scene='packed', entities=500, driver=d, viewer='collisions', f='logistic', scheduler='round_robin', budget=b):.0f}",
            ratio_text("p_true", "sorted_sequential", scene="packed", entities=500, driver=d, viewer="collisions", budget=b, f="logistic"),
            ratio_text("p_true", "priority_queues", scene="packed", entities=500, driver=d, viewer="collisions", budget=b, f="logistic")]
           for d in ("full", "round_robin", "priority_queues") for b in BUDGETS])

    lines = []
    for v in ("screen", "entities", "collisions"):
        rows = select(scheduler="round_robin", budget="0.2", f="logistic", viewer=v, **base)
        share = math.fsum(int(r["frames_on_action"]) for r in rows) / max(1, math.fsum(int(r["frames"]) for r in rows))
        lines.append([v, f"{100 * share:.0f} %",
                      ratio_text("p_true_on_action", "priority_queues", viewer=v, budget="0.2", f="logistic", **base),
                      ratio_text("p_true_off_action", "priority_queues", viewer=v, budget="0.2", f="logistic", **base),
                      ratio_text("p_true_on_action", "sorted_sequential", viewer=v, budget="0.2", f="logistic", **base),
                      ratio_text("p_true_off_action", "sorted_sequential", viewer=v, budget="0.2", f="logistic", **base)])
    table(f"Gaze on the action (a collision within {ON_ACTION_DEG:g} degrees of fixation) or elsewhere: packed 500, 20 % of full resolution",
          ["viewer", "frames on the action", "pq / rr on", "pq / rr off", "sorted / rr on", "sorted / rr off"], lines)

    table("The start-up transient: P per frame in the warm-up against the steady state (round robin, 20 %, logistic, collision viewer)",
          ["scene", "P a frame, warm-up", "P a frame, after it", "priority_queues / rr in the warm-up", "after"],
          [[name, f"{mean_of('p_true_warmup', scheduler='round_robin', budget='0.2', f='logistic', viewer='collisions', **cells):.3g}",
            f"{mean_of('p_true', scheduler='round_robin', budget='0.2', f='logistic', viewer='collisions', **cells):.3g}",
            ratio_text("p_true_warmup", "priority_queues", budget="0.2", f="logistic", viewer="collisions", **cells),
            ratio_text("p_true", "priority_queues", budget="0.2", f="logistic", viewer="collisions", **cells)]
           for name, cells in (("packed 500", base), ("pile", dict(scene="pile")), ("rockfall", dict(scene="rockfall")))])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "summarise":
        parser = argparse.ArgumentParser(prog="analyse.py summarise",
                                         description="the sweeps' run folders -> evaluation_table.csv, settling.csv")
        for scene, folder_name in STUDIES:
            parser.add_argument(scene, nargs="?", metavar=scene.upper(),
                                help=f"the folder of ./fovea sweep configs/studies/{STUDY_FILES[scene]}.yaml "
                                     f"(default results/studies/{folder_name}), or - to leave it out")
        parser.add_argument("--out", help="where the two CSVs go (default: beside this script, only without folders)")
        args = parser.parse_args(sys.argv[2:])
        given = [getattr(args, scene) for scene, _ in STUDIES]
        if args.out is None and any(g is not None for g in given):
            parser.error("with folders given, --out DIR says where the CSVs go (the committed ones are beside this "
                         "script)")
        folders = [os.path.normpath(os.path.join(HERE, "..", name)) if g is None else None if g == "-" else g
                   for g, (_, name) in zip(given, STUDIES)]
        if all(f is None for f in folders):
            parser.error("every scene left out")
        os.makedirs(args.out or HERE, exist_ok=True)
        summarise(folders, args.out or HERE)
    else:
        parser = argparse.ArgumentParser(prog="analyse.py", description="evaluation_table.csv -> README.md's tables; "
                                         "`analyse.py summarise --help` for the step before")
        parser.add_argument("folder", nargs="?", default=HERE, help="the folder holding evaluation_table.csv and "
                            "settling.csv (default: this script's, results/studies/counterfactual)")
        tables(parser.parse_args().folder)


if __name__ == "__main__":
    main()
