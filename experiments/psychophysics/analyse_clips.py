#!/usr/bin/python3
"""The analysis of a clip comparison (docs/psychophysics.md, "Clip comparison"), one command:

    python3 experiments/psychophysics/analyse_clips.py results/experiments/matched_clips/*/trials.csv

Per condition (scene x scheduler x budget): the trials, how many noticed (2IFC: the test clip
chosen as the one that looked wrong; yes/no: "yes"), the proportion with its Wilson 95 %
score interval (E. B. Wilson, 1927, "Probable inference, the law of succession, and
statistical inference", JASA 22(158)), and what the episode model predicts from the clips'
P (the mean over the trials of each trial's chance of that answer).

Then a mixed-effects logistic regression of noticed on scheduler, budget and scene with a
random intercept per participant, by statsmodels' BinomialBayesMixedGLM fitted at its
posterior mode with the Laplace approximation (fit_map; priors: normal, sd 2, on each fixed
effect's log odds, and sd 1 on the log of the participants' sd), with each fixed effect's log
odds, its standard error (the Laplace posterior sd), 95 % interval (mode +- 1.96 sd), odds
ratio and a two-sided p from z = mode / sd. Not the variational fit (fit_vb) used before: over
200 simulated studies of known effects its 95 % intervals held the planted scheduler and
budget effects 84 % of the time, this one's 95 % (`tests/psychophysics/analyse_clips_model_test.py
--coverage 200`; the ctest checks this one's coverage on 30).
statsmodels (Debian: python3-statsmodels) is optional: without it this says so in one line and
the proportions stand alone. The proportions need nothing beyond Python's standard library.

Besides the summary on stdout it writes, into --out (default: the folder the trials files
share: the study's folder for several participants, the session's for one):

- clip_conditions.csv: one row per condition: scene, scheduler, budget_tests, clip (test, or
  reference for yes/no's reference trials), n_trials, noticed, proportion, ci_low, ci_high
  (Wilson 95 %), model (the episode model's prediction).
- clip_model.csv (with statsmodels): one row per term: term (statsmodels' name), label (in
  words), effect (fixed, or random for the participants' intercept sd), estimate (log odds;
  the sd for the random row), std_error, ci_low, ci_high, odds_ratio, odds_ratio_ci_low,
  odds_ratio_ci_high, p_value, n_trials, n_participants.
- clip_comparison.png and .pdf (with matplotlib): each condition's proportion with its Wilson
  interval and the model's prediction, and each fixed effect's odds ratio with its interval.
"""

import argparse
import csv
import math
import os
import re
import sys
from collections import OrderedDict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from bounded_read import TABLE_LIMIT, rows_or_exit  # noqa: E402


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
        # Bounded, never blocking on a FIFO; a row cut off by a power cut mid-write never
        # finished: it is not a trial (experiments/tools/bounded_read.py).
        for row in rows_or_exit(path, TABLE_LIMIT, "analyse_clips.py"):
            if "noticed" not in row or "scheduler" not in row:
                sys.exit(f"{path}: not a clip comparison's trials.csv (no noticed or scheduler column)")
            rows.append(row)
    return rows


def condition_of(row):
    kind = "reference" if row["order"] == "reference" else "test"
    return (row["scene"], row["scheduler"], int(row["budget_tests"]), kind)


def proportions(rows, out):
    """Prints the proportion noticed per condition; returns one dict per condition, the rows
    of clip_conditions.csv."""
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
    conditions = []
    for (scene, scheduler, budget, kind), group in groups.items():
        k = sum(int(r["noticed"]) for r in group)
        n = len(group)
        lo, hi = wilson_interval(k, n)
        model = sum(predicted_noticed(r) for r in group) / n
        name = scheduler if kind == "test" else group[0]["reference"] + " (reference)"
        print(f"{scene:<12} {name:<20} {budget:>8} {n:>5} {k:>8} {k / n:>10.3f}  [{lo:.3f}, {hi:.3f}]  {model:>6.3f}",
              file=out)
        conditions.append({"scene": scene, "scheduler": scheduler, "budget_tests": budget, "clip": kind,
                           "n_trials": n, "noticed": k, "proportion": k / n, "ci_low": lo, "ci_high": hi,
                           "model": model})
    return conditions


def model_frame(rows):
    """The trials that showed a test clip, as the regression's pandas DataFrame: noticed (0 or
    1), scheduler, budget (a category in numeric order, so the smallest budget is the baseline),
    scene, participant."""
    import pandas
    tests = [r for r in rows if r["order"] != "reference"]
    data = pandas.DataFrame([{"noticed": int(r["noticed"]), "scheduler": r["scheduler"],
                              "budget": str(r["budget_tests"]), "scene": r["scene"],
                              "participant": r["participant"]} for r in tests],
                            columns=["noticed", "scheduler", "budget", "scene", "participant"])
    budgets = sorted(set(data["budget"]), key=int)
    data["budget"] = pandas.Categorical(data["budget"], categories=budgets)
    return data


def term_label(name, data):
    """A fixed effect's name in words: "scheduler round_robin vs hybrid" for
    C(scheduler)[T.round_robin] (the baseline is the first level of that column)."""
    match = re.fullmatch(r"C\((\w+)\)\[T\.(.+)\]", name)
    if not match:
        return "intercept (log odds at the baselines)" if name == "Intercept" else name
    column, level = match.groups()
    values = data[column]
    baseline = values.cat.categories[0] if hasattr(values, "cat") else sorted(set(values))[0]
    return f"{column} {level} vs {baseline}"


def model_formula(data):
    """noticed ~ each of scheduler, budget and scene that varies among the trials."""
    terms = [t for t in ("scheduler", "budget", "scene") if data[t].nunique() > 1]
    return "noticed ~ " + (" + ".join(f"C({t})" for t in terms) if terms else "1")


def fit_mixed_model(data):
    """Fits noticed ~ the factors that vary, with a random intercept per participant, by the
    Laplace approximation at the posterior mode. Returns (formula, terms, notes): terms one
    dict per row of clip_model.csv, notes what statsmodels warned of while fitting (such as a
    mode found only to a gradient of 1e-3), for the summary to say; raises on a design
    statsmodels cannot fit."""
    import warnings
    from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM
    formula = model_formula(data)
    model = BinomialBayesMixedGLM.from_formula(formula, {"participant": "0 + C(participant)"}, data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = model.fit_map()
    notes = list(dict.fromkeys(str(w.message) for w in caught))
    counts = {"n_trials": len(data), "n_participants": data["participant"].nunique()}
    rows = []
    for name, mode, sd in zip(model.exog_names, fit.fe_mean, fit.fe_sd):
        low, high = mode - 1.96 * sd, mode + 1.96 * sd
        rows.append({"term": name, "label": term_label(name, data), "effect": "fixed", "estimate": mode,
                     "std_error": sd, "ci_low": low, "ci_high": high, "odds_ratio": math.exp(mode),
                     "odds_ratio_ci_low": math.exp(low), "odds_ratio_ci_high": math.exp(high),
                     "p_value": math.erfc(abs(mode / sd) / math.sqrt(2)) if sd > 0 else float("nan"), **counts})
    for name, log_sd, sd in zip(model.vcp_names, fit.vcp_mean, fit.vcp_sd):
        rows.append({"term": f"sd({name})", "label": "participants' intercept sd (log odds)", "effect": "random",
                     "estimate": math.exp(log_sd), "std_error": float("nan"),
                     "ci_low": math.exp(log_sd - 1.96 * sd), "ci_high": math.exp(log_sd + 1.96 * sd),
                     "odds_ratio": float("nan"), "odds_ratio_ci_low": float("nan"),
                     "odds_ratio_ci_high": float("nan"), "p_value": float("nan"), **counts})
    return formula, rows, notes


def mixed_model(rows, out):
    """Prints the regression; returns its terms (the rows of clip_model.csv), or None when it
    was not fitted (no statsmodels, no test clip, a degenerate design)."""
    try:
        import pandas  # noqa: F401  (model_frame's)
        import statsmodels  # noqa: F401
    except ImportError:
        print("mixed-effects logistic regression skipped: statsmodels is not installed "
              "(Debian: apt install python3-statsmodels)", file=out)
        return None
    data = model_frame(rows)
    if data.empty:
        print("mixed-effects logistic regression skipped: no trial showed a test clip", file=out)
        return None
    try:
        formula, terms, notes = fit_mixed_model(data)
    except Exception as error:  # a degenerate design (one participant, a separated outcome)
        print(f"mixed-effects logistic regression failed on these trials ({model_formula(data)}): {error}", file=out)
        return None
    print(f"mixed-effects logistic regression (statsmodels BinomialBayesMixedGLM, Laplace approximation at the "
          f"posterior mode): {formula}, random intercept per participant; {len(data)} trials", file=out)
    print(f"{'term':<40} {'odds ratio':>10}  95% interval      p", file=out)
    for t in terms:
        if t["effect"] == "fixed":
            print(f"{t['term']:<40} {t['odds_ratio']:>10.3f}  [{t['odds_ratio_ci_low']:.3f}, "
                  f"{t['odds_ratio_ci_high']:.3f}]  {t['p_value']:.3g}", file=out)
        else:
            print(f"{t['term']}: participants' intercept sd {t['estimate']:.3f} "
                  f"[{t['ci_low']:.3f}, {t['ci_high']:.3f}] (log odds)", file=out)
    for note in notes:
        print(f"statsmodels warned: {note}", file=out)
    return terms


def write_csv(path, rows):
    """A tidy table: a header of the rows' keys, numbers in full precision, NaN as an empty cell."""
    def cell(value):
        if isinstance(value, float):
            return "" if math.isnan(value) else repr(value)
        return value
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(list(rows[0]))
        for row in rows:
            writer.writerow([cell(v) for v in row.values()])


def condition_name(c):
    name = c["scheduler"] if c["clip"] == "test" else f"{c['scheduler']} (reference)"
    return f"{c['scene']}, {name}, {c['budget_tests']} tests"


def draw_figure(plt, conditions, terms, task, stem):
    """Left: each condition's proportion noticed with its Wilson 95 % interval (bars) and the
    episode model's prediction (open diamonds). Right: each fixed effect but the intercept as an
    odds ratio with its 95 % interval, on a log axis with 1 (no effect) marked."""
    fixed = [t for t in terms or [] if t["effect"] == "fixed" and t["term"] != "Intercept"]
    height = 1.6 + 0.3 * max(len(conditions), len(fixed), 3)
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, height), gridspec_kw={"width_ratios": [1.1, 1]})
    y = list(range(len(conditions)))[::-1]
    p = [c["proportion"] for c in conditions]
    error = [[max(c["proportion"] - c["ci_low"], 0) for c in conditions],
             [max(c["ci_high"] - c["proportion"], 0) for c in conditions]]
    left.errorbar(p, y, xerr=error, fmt="o", color="#1f77b4", capsize=2.5, markersize=4, label="observed, Wilson 95 %")
    left.plot([c["model"] for c in conditions], y, "D", markerfacecolor="none", color="0.3", markersize=5,
              label="episode model's prediction")
    if task == "2ifc":
        left.axvline(0.5, color="0.6", linestyle=":", linewidth=1, label="chance")
    left.set_yticks(y, [f"{condition_name(c)} (n = {c['n_trials']})" for c in conditions], fontsize=7)
    left.set_xlim(-0.02, 1.02)
    left.set_ylim(-0.6, len(conditions) - 0.4)
    left.set_xlabel("proportion noticed" + (" (test clip chosen as wrong)" if task == "2ifc" else " (\"yes\")"))
    left.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
    left.grid(True, axis="x", alpha=0.3)
    if fixed:
        y = list(range(len(fixed)))[::-1]
        ratio = [t["odds_ratio"] for t in fixed]
        error = [[r - t["odds_ratio_ci_low"] for r, t in zip(ratio, fixed)],
                 [t["odds_ratio_ci_high"] - r for r, t in zip(ratio, fixed)]]
        right.errorbar(ratio, y, xerr=error, fmt="s", color="#d62728", capsize=2.5, markersize=4)
        right.axvline(1.0, color="0.5", linestyle="--", linewidth=1)
        right.set_xscale("log")
        # Plain numbers (0.5, 2), not powers of ten: odds ratios span a decade or two.
        from matplotlib.ticker import FuncFormatter, LogLocator
        right.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        right.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        right.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
        right.set_yticks(y, [t["label"] for t in fixed], fontsize=7)
        right.set_ylim(-0.6, len(fixed) - 0.4)
        right.set_xlabel("odds ratio of noticing, 95 % interval")
        right.set_title("mixed-effects logistic regression", fontsize=9)
        right.grid(True, axis="x", which="major", alpha=0.3)
    else:
        right.set_axis_off()
        right.text(0.5, 0.5, "no regression: statsmodels missing,\nor nothing to compare" if terms is None
                   else "one condition: no effect to estimate", ha="center", va="center", color="0.4",
                   transform=right.transAxes)
    figure.tight_layout()
    paths = [f"{stem}.png", f"{stem}.pdf"]
    figure.savefig(paths[0], dpi=150)
    figure.savefig(paths[1])
    plt.close(figure)
    return paths


def write_outputs(out_dir, conditions, terms, task, out):
    """clip_conditions.csv, clip_model.csv (when the regression ran) and the figure (when
    matplotlib is there) into out_dir; prints each path written."""
    os.makedirs(out_dir, exist_ok=True)
    written = [os.path.join(out_dir, "clip_conditions.csv")]
    write_csv(written[0], conditions)
    if terms:
        written.append(os.path.join(out_dir, "clip_model.csv"))
        write_csv(written[-1], terms)
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display
        import matplotlib.pyplot as plt
    except ImportError:
        print("figure skipped: matplotlib is not installed (Debian: apt install python3-matplotlib)", file=out)
    else:
        written += draw_figure(plt, conditions, terms, task, os.path.join(out_dir, "clip_comparison"))
    for path in written:
        print(f"wrote {path}", file=out)


def main():
    parser = argparse.ArgumentParser(description="Proportions noticed per condition, with Wilson intervals, and a "
                                                 "mixed-effects logistic regression, from clip comparison trials.csv files.")
    parser.add_argument("trials", nargs="+", help="trials.csv files, one per participant")
    parser.add_argument("--out", help="folder for clip_conditions.csv, clip_model.csv and clip_comparison.png/.pdf "
                                      "(default: the folder the trials files share)")
    args = parser.parse_args()
    rows = read_trials(args.trials)
    if not rows:
        sys.exit("no trials in " + ", ".join(args.trials))
    designs = {(r["task"], r["reference"]) for r in rows}
    if len(designs) > 1:
        sys.exit("the files mix designs (task, reference: " + "; ".join(f"{t}, {r}" for t, r in sorted(designs)) +
                 "): analyse each design on its own")
    conditions = proportions(rows, sys.stdout)
    print(file=sys.stdout)
    terms = mixed_model(rows, sys.stdout)
    print(file=sys.stdout)
    out_dir = args.out or os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in args.trials])
    write_outputs(out_dir, conditions, terms, rows[0]["task"], sys.stdout)


if __name__ == "__main__":
    main()
