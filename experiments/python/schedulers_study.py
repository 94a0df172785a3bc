"""The schedulers study (configs/studies/schedulers.yaml, docs/studies.md) analysed in pandas,
without a notebook: its table read by fovea.read_study, every scheduler and budget summarised
over the seeds (the study's replications) with 95 % Student-t intervals, and a figure.

    ./fovea python experiments/python/schedulers_study.py [FOLDER]            # results/studies/schedulers
    ./fovea python experiments/python/schedulers_study.py /tmp/s              # after fovea sweep ... --quick --out /tmp/s
    ./fovea python experiments/python/schedulers_study.py FOLDER --run        # run the study first (hours)
    ./fovea python experiments/python/schedulers_study.py FOLDER --run --quick  # a small version, under a minute

Writes summary.csv (the table printed, every group) and p_work.png into FOLDER/pandas/ (or
--out). --quick runs the study's design at its smallest (100 packed rocks with the response, the
four schedulers, two work budgets, three seeds, 30 frames): the study's factors cannot be
narrowed by --set, so it is a study file of its own, written to a temporary folder.
"""

import argparse
import json
import os
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

import fovea  # noqa: E402

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUDY = os.path.join(SOURCE, "configs", "studies", "schedulers.yaml")
# The intervals of the study's own figures (experiments/plots/study_figures.py, standard
# library only), so the numbers printed here are those its lines and ratios show.
sys.path.insert(0, os.path.join(SOURCE, "experiments", "plots"))
from study_figures import mean_and_half_width  # noqa: E402

SCHEDULERS = ["round_robin", "sequential", "sorted_sequential", "priority_queues"]
# The table's main metrics: perceived (P) and geometric (nabla) inaccuracy, true and as the
# run estimated them, the work done and the frame time without the ground truth's own cost.
METRICS = ["p_true_mean", "p_est_mean", "nabla_true_mean", "nabla_est_mean", "sphere_tests_mean", "step_ms_median"]

QUICK_STUDY = """\
# schedulers.yaml at its smallest (experiments/python/schedulers_study.py --quick): the same
# factors and metric columns, a level or two of each.
name: schedulers_quick
base: {base}
set:
  frames: 30
  ground_truth: true
  gaze.source: scripted
factors:
  entities:
    - {{value: 100, set: {{"world.entities[0].count": 100, world.box_size_m: [5.3, 5.3, 5.3]}}}}
  placement:
    - {{value: packed, set: {{"world.entities[0].placement": packed}}}}
  contacts:
    - {{value: response, set: {{response.entity_contacts: true}}}}
  scheduler:
    key: schedule.kind
    values: [round_robin, sequential, sorted_sequential, priority_queues]
  budget:
    - {{value: {{budget_mode: work, budget: 1000}}, set: {{budget.mode: work, budget.tests: 1000}}}}
    - {{value: {{budget_mode: work, budget: 10000}}, set: {{budget.mode: work, budget.tests: 10000}}}}
  seed:
    key: seed
    values: [1, 2, 3]
metrics:
  skip_frames: 1
  columns:
    p_true: [mean]
    p_est: [mean]
    nabla_true: [mean]
    nabla_est: [mean]
    sphere_tests: [mean, max]
    step_ms: {{column: frame_ms, minus: metrics_ms, stats: [median]}}
"""


def read_json(path):
    with open(path) as f:
        return json.load(f)


def summarise(table, group_columns):
    """One row a group (every factor but the seed): the seeds counted, and each metric's mean
    over them with the half width of its 95 % t-interval (NaN with one seed)."""
    import pandas as pd

    rows = []
    for keys, group in table.groupby(group_columns, sort=False):
        row = dict(zip(group_columns, keys if isinstance(keys, tuple) else (keys,)))
        row["seeds"] = group["seed"].nunique()
        for metric in METRICS:
            values = group[metric].dropna().tolist()
            mean, half_width = mean_and_half_width(values) if values else (float("nan"), float("nan"))
            row[metric] = mean
            row[metric + "_ci95"] = half_width
        rows.append(row)
    return pd.DataFrame(rows)


def number(x, digits):
    """`x` to `digits` significant digits, or to the unit once it has that many (84971, not 8.5e+04)."""
    return "%.0f" % x if abs(x) >= 10 ** (digits - 1) else "%.*g" % (digits, x)


def printed(summary, group_columns):
    """The summary as text: each metric as "mean ± half width" (3 and 2 significant digits)."""
    shown = summary[group_columns + ["seeds"]].copy()
    if "budget" in shown:
        shown["budget"] = shown["budget"].map("{:.10g}".format)  # a float column (0.25 ms beside 1000 tests)
    for metric in METRICS:
        shown[metric.replace("_mean", "").replace("_median", " median")] = [
            number(m, 3) + (" ± " + number(h, 2) if h == h else "")
            for m, h in zip(summary[metric], summary[metric + "_ci95"])
        ]
    return shown.to_string(index=False)


def figure(summary, path):
    """True P against the work budget, one line a scheduler with its 95 % interval, one panel
    an entity count (packed rocks with the response): the study's p_work.png, with intervals."""
    work = summary[(summary["budget_mode"] == "work") & (summary["placement"] == "packed") & (summary["contacts"] == "response")]
    counts = sorted(work["entities"].unique())
    fig, axes = plt.subplots(1, len(counts), figsize=(3.2 * len(counts) + 1, 3.6), squeeze=False, sharey=True)
    for ax, count in zip(axes[0], counts):
        panel = work[work["entities"] == count]
        for scheduler in SCHEDULERS:
            # A log axis has no 0: a budget that resolves every collision (P = 0) ends the line.
            line = panel[(panel["scheduler"] == scheduler) & (panel["p_true_mean"] > 0)].sort_values("budget")
            if line.empty:
                continue
            ax.errorbar(line["budget"], line["p_true_mean"], yerr=line["p_true_mean_ci95"].fillna(0), capsize=2,
                        marker="o", markersize=3, label=scheduler)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title("%d packed rocks" % count, fontsize=9)
        ax.set_xlabel("budget, sphere tests a frame")
    axes[0][0].set_ylabel("true P, noticed gaps a frame")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("P against the work budget, mean over seeds with 95 % t-intervals (P = 0 not drawn)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", help="the study's folder, anywhere (default the repository's "
                                                  "results/studies/schedulers, results/studies/schedulers_quick with "
                                                  "--quick)")
    parser.add_argument("--run", action="store_true", help="run the study into FOLDER first (or resume it) with fovea.sweep")
    parser.add_argument("--quick", action="store_true", help="with --run: a small version of the study, under a minute")
    parser.add_argument("--jobs", type=int, default=0, help="runs at a time (default: the machine's cores)")
    parser.add_argument("--out", help="where summary.csv and p_work.png go (default FOLDER/pandas)")
    args = parser.parse_args()
    folder = args.folder or os.path.join(SOURCE, "results", "studies", "schedulers_quick" if args.quick else "schedulers")
    if args.quick and not args.run:
        parser.error("--quick goes with --run: it names the small study to run")

    with tempfile.TemporaryDirectory() as scratch:
        study = STUDY
        if args.quick:
            study = os.path.join(scratch, "schedulers_quick.yaml")
            with open(study, "w") as f:
                f.write(QUICK_STUDY.format(base=os.path.join(SOURCE, "configs", "studies", "packed500.yaml")))
        if args.run:
            fovea.sweep(study, out=folder, jobs=args.jobs, figures=not args.quick, quiet=False)
        elif not os.path.exists(os.path.join(folder, "sweep.json")):
            sys.exit("schedulers_study.py: %s holds no study; --run runs it there first (4,560 runs: hours), "
                     "--run --quick a small version (24 runs: under a minute)" % folder)
        elif read_json(os.path.join(folder, "sweep.json")).get("study") != "schedulers":
            study = None  # a folder of --quick's study, whose file is gone: read as it is
        elif read_json(os.path.join(folder, "sweep.json")).get("quick"):
            study = None  # `fovea sweep schedulers.yaml --quick`: fewer runs than the file's, read as they are
        # Checked against the study's file: a folder of another version of it is refused.
        table = fovea.read_study(folder, study=study)

    group_columns = [c for c in table.attrs["factor_columns"] if c != "seed"]
    summary = summarise(table, group_columns)
    out = args.out or os.path.join(folder, "pandas")
    os.makedirs(out, exist_ok=True)
    summary.to_csv(os.path.join(out, "summary.csv"), index=False)
    figure(summary, os.path.join(out, "p_work.png"))

    print("%s: study %s, %d runs (%s), fovea %s" % (folder, table.attrs["study"], len(table), table.attrs["status"],
                                                      table.attrs["sweep"].get("git_commit", "?")[:12]))
    # The whole summary when it is short; else the slice 004 compared schedulers on: 500
    # packed rocks with the response, under work budgets.
    shown = summary
    if len(summary) > 40:
        shown = summary[(summary["entities"] == 500) & (summary["placement"] == "packed") &
                        (summary["contacts"] == "response") & (summary["budget_mode"] == "work")]
        print("500 packed rocks with the response, work budgets (every group: %s):" % os.path.join(out, "summary.csv"))
    print(printed(shown, group_columns))
    print("figure: %s" % os.path.join(out, "p_work.png"))


if __name__ == "__main__":
    main()
