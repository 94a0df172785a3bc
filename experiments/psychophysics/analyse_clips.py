#!/usr/bin/python3
"""The analysis of a clip comparison (docs/psychophysics.md, "Clip comparison"), one command:

    python3 experiments/psychophysics/analyse_clips.py results/experiments/matched_clips/*/trials.csv

Per condition (scene x scheduler x budget): the trials, how many noticed (2IFC: the test clip
chosen as the one that looked wrong; yes/no: "yes"), the proportion with its Wilson 95 %
score interval (E. B. Wilson, 1927, "Probable inference, the law of succession, and
statistical inference", JASA 22(158)), and what the episode model predicts from the clips'
P (the mean over the trials of each trial's chance of that answer).

Then a mixed-effects logistic regression of noticed on scheduler, budget and scene with a
random intercept per participant, by statsmodels' BinomialBayesMixedGLM (variational Bayes),
with each fixed effect's odds ratio and 95 % interval (posterior mean +- 1.96 posterior sd on
the log-odds scale). statsmodels (Debian: python3-statsmodels) is optional: without it this
says so in one line and the proportions stand alone. The proportions need nothing beyond
Python's standard library.
"""

import argparse
import csv
import math
import sys
from collections import OrderedDict


def wilson_interval(k, n, z=1.959963984540054):
    """Wilson's score interval for k successes in n trials."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def predicted_noticed(row):
    """The episode model's chance of this trial's "noticed": 2IFC, the test clip seen wrong
    alone, or a guess (1/2) when both or neither were; yes/no, the shown clip's P."""
    if row["task"] == "2ifc":
        pt, pr = float(row["p_test"]), float(row["p_reference"])
        only_test, only_reference = pt * (1 - pr), pr * (1 - pt)
        return only_test + 0.5 * (1 - only_test - only_reference)
    shown = row["p_test"] if row["order"] == "test" else row["p_reference"]
    return float(shown)


def read_trials(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            text = f.read()
        # A row cut off by a power cut mid-write never finished: it is not a trial.
        if text and not text.endswith("\n"):
            text = text[: text.rfind("\n") + 1]
        for row in csv.DictReader(text.splitlines()):
            if "noticed" not in row or "scheduler" not in row:
                sys.exit(f"{path}: not a clip comparison's trials.csv (no noticed or scheduler column)")
            rows.append(row)
    return rows


def condition_of(row):
    kind = "reference" if row["order"] == "reference" else "test"
    return (row["scene"], row["scheduler"], int(row["budget_tests"]), kind)


def proportions(rows, out):
    groups = OrderedDict()
    for row in sorted(rows, key=condition_of):
        groups.setdefault(condition_of(row), []).append(row)
    participants = sorted({r["participant"] for r in rows})
    task = rows[0]["task"]
    reference = rows[0]["reference"]
    print(f"{len(rows)} trials of {len(participants)} participant{'s' if len(participants) > 1 else ''} "
          f"({', '.join(participants)}); task {task}, "
          f"reference {reference}", file=out)
    print("noticed: " + ("the test clip chosen as the one that looked wrong (chance 0.5)" if task == "2ifc"
                         else "\"yes, I saw an error\""), file=out)
    header = f"{'scene':<12} {'scheduler':<20} {'budget':>8} {'n':>5} {'noticed':>8} {'proportion':>10}  {'95% Wilson':<15} {'model':>6}"
    print(header, file=out)
    for (scene, scheduler, budget, kind), group in groups.items():
        k = sum(int(r["noticed"]) for r in group)
        n = len(group)
        lo, hi = wilson_interval(k, n)
        model = sum(predicted_noticed(r) for r in group) / n
        name = scheduler if kind == "test" else group[0]["reference"] + " (reference)"
        print(f"{scene:<12} {name:<20} {budget:>8} {n:>5} {k:>8} {k / n:>10.3f}  [{lo:.3f}, {hi:.3f}]  {model:>6.3f}",
              file=out)


def mixed_model(rows, out):
    try:
        import pandas
        from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM
    except ImportError:
        print("mixed-effects logistic regression skipped: statsmodels is not installed "
              "(Debian: apt install python3-statsmodels)", file=out)
        return
    tests = [r for r in rows if r["order"] != "reference"]
    if not tests:
        print("mixed-effects logistic regression skipped: no trial showed a test clip", file=out)
        return
    data = pandas.DataFrame([{"noticed": int(r["noticed"]), "scheduler": r["scheduler"],
                              "budget": str(r["budget_tests"]), "scene": r["scene"],
                              "participant": r["participant"]} for r in tests])
    terms = [t for t in ("scheduler", "budget", "scene") if data[t].nunique() > 1]
    formula = "noticed ~ " + (" + ".join(f"C({t})" for t in terms) if terms else "1")
    try:
        model = BinomialBayesMixedGLM.from_formula(formula, {"participant": "0 + C(participant)"}, data)
        fit = model.fit_vb()
    except Exception as error:  # a degenerate design (one participant, a separated outcome)
        print(f"mixed-effects logistic regression failed on these trials ({formula}): {error}", file=out)
        return
    print(f"mixed-effects logistic regression (statsmodels BinomialBayesMixedGLM, variational Bayes): {formula}, "
          "random intercept per participant", file=out)
    print(f"{'term':<40} {'odds ratio':>10}  95% interval", file=out)
    for name, mean, sd in zip(model.exog_names, fit.fe_mean, fit.fe_sd):
        print(f"{name:<40} {math.exp(mean):>10.3f}  [{math.exp(mean - 1.96 * sd):.3f}, {math.exp(mean + 1.96 * sd):.3f}]",
              file=out)
    for name, mean, sd in zip(model.vcp_names, fit.vcp_mean, fit.vcp_sd):
        print(f"{name}: participants' intercept sd {math.exp(mean):.3f} (log sd {mean:.3f} +- {sd:.3f})", file=out)


def main():
    parser = argparse.ArgumentParser(description="Proportions noticed per condition, with Wilson intervals, and a "
                                                 "mixed-effects logistic regression, from clip comparison trials.csv files.")
    parser.add_argument("trials", nargs="+", help="trials.csv files, one per participant")
    args = parser.parse_args()
    rows = read_trials(args.trials)
    if not rows:
        sys.exit("no trials in " + ", ".join(args.trials))
    designs = {(r["task"], r["reference"]) for r in rows}
    if len(designs) > 1:
        sys.exit("the files mix designs (task, reference: " + "; ".join(f"{t}, {r}" for t, r in sorted(designs)) +
                 "): analyse each design on its own")
    proportions(rows, sys.stdout)
    print(file=sys.stdout)
    mixed_model(rows, sys.stdout)


if __name__ == "__main__":
    main()
