#!/usr/bin/env python3
"""Self-check of fovea_plots.py: exit status 0 when every check passes.

    python3 experiments/plots/test_study_figures.py [--keep DIR]

Builds a synthetic sweep in a temporary folder (2 placements x 3 entity counts x 2 schedulers
x 4 budgets x 3 seeds = 144 runs, figures of every kind, one scatter with exactly one point
below the diagonal, a metric whose ratio to round robin is exact), runs `fovea_plots.py study`
on it as a subprocess and checks the PNGs, the "below the diagonal" counts and the ratio's
"left out" lines it prints, the exit statuses of bad specs (2, naming the figure's file) and
of other failures (1), and the Student-t quantiles behind the lines' bands. `fovea_plots.py
table` is checked against means, intervals and left-out counts computed here from the
synthetic values: exact ones (an interval of zero width) and noisy ones (against a hand
computation with t_0.975 for 2 degrees of freedom in closed form), as markdown and as CSV.
Then `fovea_plots.py fit` on a small fit made here, whose fitted probabilities come from
psychometric.py's own f(e, g). Drawn in this process, and checked on matplotlib's own objects:
a psychometric figure's points have areas in proportion to their trials, with a size legend; every
axis label of the study figures is in words (never a column's name) and the expected words for
the columns it knows; a log y axis's bands stay above 0 and the axis's bottom where the 3 seeds'
t-interval reaches below 0. --keep DIR keeps the synthetic sweep and its figures in DIR (to
look at them). Needs matplotlib and numpy, as fovea_plots.py does.
"""

import argparse
import csv
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "fovea_plots.py")
sys.path.insert(0, HERE)

import psychometric  # noqa: E402  (found through the path set just above)
import study_figures  # noqa: E402

PLACEMENTS = ["packed", "spread"]
ENTITIES = [100, 1000, 10000]
SCHEDULERS = ["round_robin", "eccentricity"]
BUDGETS = [1000, 3000, 10000, 30000]
SEEDS = [1, 2, 3]
STATS = ["p1", "p5", "p25", "median", "p75", "p95", "p99", "max"]
COLUMNS = (["run", "entities", "placement", "scheduler", "budget_mode", "budget", "seed", "frames",
            "p_true_mean", "p_est_mean", "nabla_true_mean", "nabla_est_mean"] + [f"step_ms_{s}" for s in STATS]
           + ["work_mean"])

# work_mean: eccentricity's is exactly this times round robin's at the same placement, entities,
# budget and seed (powers of two: the products and the ratios are exact in binary).
WORK_RATIO = {1000: 1.0, 3000: 0.5, 10000: 0.25, 30000: 0.125}
# Pairs a ratio of work_mean leaves out, by (placement, entities, budget, seed): round robin's
# work_mean is 0 or empty, or eccentricity's is empty.
REFERENCE_ZERO = ("packed", 100, 1000, 1)
REFERENCE_EMPTY = ("packed", 100, 3000, 2)
OWN_EMPTY = ("spread", 10000, 30000, 3)
# t_0.975 with 2 degrees of freedom in closed form: the t cdf with 2 degrees of freedom is
# 1/2 + t / (2 sqrt(2 + t^2)), so t / sqrt(2 + t^2) = 0.95.
T_975_DF2 = math.sqrt(2 * 0.95 ** 2 / (1 - 0.95 ** 2))

# The one run whose p_est is below its p_true: the point the diagonal figure exists to show.
BELOW_RUN = 100
# A run whose p_est is below p_true by less than the tolerance (rounding): not below.
ROUNDING_RUN = 101
# A run with nabla_true 0: left out of the log scatter.
ZERO_NABLA_RUN = 7

FIGURES = [
    {"file": "step_time.png", "kind": "lines", "title": "step time against the work budget",
     "x": "budget", "y": ["step_ms_median", "step_ms_p95"], "series": "scheduler", "panels": "entities",
     "rows": "placement", "log_x": True, "log_y": True, "x_label": "work budget (sphere tests)",
     "y_label": "step (ms)", "where": {"budget_mode": "work"}},
    {"file": "p_true.png", "kind": "lines", "x": "budget", "y": ["p_true_mean"], "series": "scheduler",
     "panels": "entities", "log_x": True, "where": {"placement": "packed"}},
    {"file": "step_spread.png", "kind": "distribution", "title": "step time per scheduler, budget 3000",
     "x": "scheduler", "column": "step_ms", "series": "placement", "panels": "entities", "log_y": True,
     "y_label": "step (ms)", "where": {"budget": [3000, "3e3"]}},
    {"file": "step_tails.png", "kind": "distribution", "x": "placement", "column": "step_ms",
     "whiskers": ["p1", "p99"], "panels": "scheduler"},
    {"file": "p_est_vs_true.png", "kind": "scatter", "title": "P estimated against true",
     "x": "p_true_mean", "y": "p_est_mean", "series": "scheduler", "panels": "placement", "diagonal": True,
     "x_label": "P true (noticed gaps)", "y_label": "P estimated"},
    {"file": "nabla_log.png", "kind": "scatter", "x": "nabla_true_mean", "y": "nabla_est_mean",
     "series": "entities", "rows": "placement", "log": True, "diagonal": True},
    {"file": "frames_vs_step.png", "kind": "scatter", "x": "frames", "y": "step_ms_median"},
    {"file": "p_ratio.png", "kind": "ratio", "title": "P true: eccentricity over round robin, paired by seed",
     "x": "budget", "y": "p_true_mean", "compare": "scheduler", "reference": "round_robin", "pair": ["seed"],
     "panels": "entities", "rows": "placement", "lines": [1, 0.6], "log_x": True, "where": {"budget_mode": "work"},
     "x_label": "work budget (sphere tests)", "y_label": "P ratio to round robin"},
    {"file": "work_ratio.png", "kind": "ratio", "x": "budget", "y": ["work_mean"], "compare": "scheduler",
     "reference": "round_robin", "pair": ["seed"], "panels": "entities", "rows": "placement",
     "lines": [1, 0.5, 0.25, 0.125], "log_x": True, "log_y": True},
    # where leaves the reference's rows out: they are looked up in the whole table.
    {"file": "work_ratio_packed.png", "kind": "ratio", "x": "budget", "y": "work_mean", "compare": "scheduler",
     "reference": "round_robin", "pair": ["seed"], "panels": "entities",
     "where": {"placement": "packed", "scheduler": "eccentricity"}},
]

# The "left out" lines the study must print, one per ratio figure that left pairs out.
EXPECTED_LEFT_OUT = [
    "fovea sweep: figure work_ratio.png: left out 2 pairs whose reference y is 0 or missing "
    "and 1 pair whose own y is missing",
    "fovea sweep: figure work_ratio_packed.png: left out 2 pairs whose reference y is 0 or missing",
]

# The "below the diagonal" counts the study must print, by figure and subplot.
EXPECTED_BELOW = {
    ("p_est_vs_true.png", "placement = packed"): (0, 72),
    ("p_est_vs_true.png", "placement = spread"): (1, 72),
    ("nabla_log.png", "placement = packed"): (0, 71),
    ("nabla_log.png", "placement = spread"): (0, 72),
}

# Bad specs, each alone in a sweep.json: (spec, words its message must hold besides the file).
BAD_SPECS = [
    ({"file": "bad_kind.png", "kind": "histogram", "x": "budget"}, ["kind", "histogram"]),
    ({"file": "bad_column.png", "kind": "lines", "x": "budgt", "y": ["p_true_mean"]}, ["budgt"]),
    ({"file": "bad_y.png", "kind": "lines", "x": "budget", "y": ["p_true_mean", "p_nope"]}, ["p_nope"]),
    ({"file": "bad_series.png", "kind": "scatter", "x": "frames", "y": "frames", "series": "colour"}, ["colour"]),
    ({"file": "bad_stat.png", "kind": "distribution", "x": "scheduler", "column": "step_ms",
      "whiskers": ["p2", "p98"]}, ["step_ms_p2"]),
    ({"file": "bad_where.png", "kind": "lines", "x": "budget", "y": ["p_true_mean"],
      "where": {"entities": 7}}, ["no rows left", "entities"]),
    ({"file": "bad_where_together.png", "kind": "lines", "x": "budget", "y": ["p_true_mean"],
      "where": {"entities": 100, "run": 143}}, ["no rows left"]),
    ({"file": "bad_where_column.png", "kind": "lines", "x": "budget", "y": ["p_true_mean"],
      "where": {"colour": "red"}}, ["colour"]),
    ({"file": "bad_key.png", "kind": "lines", "x": "budget", "y": ["p_true_mean"], "log_Y": True}, ["log_Y"]),
    ({"file": "bad_missing.png", "kind": "scatter", "x": "frames"}, ['"y"']),
    ({"file": "bad_text.png", "kind": "lines", "x": "budget", "y": ["scheduler"]}, ["scheduler", "text"]),
    ({"file": "bad_bool.png", "kind": "scatter", "x": "frames", "y": "frames", "log": "yes"}, ["log"]),
    # placement varies among the pairs of a point: it is in none of where, panels, rows and pair.
    ({"file": "bad_ratio_factor.png", "kind": "ratio", "x": "budget", "y": "p_true_mean", "compare": "scheduler",
      "reference": "round_robin", "pair": ["seed"], "panels": "entities"},
     ["placement varies", "where, panels, rows or pair"]),
    ({"file": "bad_ratio_unpaired.png", "kind": "ratio", "x": "budget", "y": "p_true_mean", "compare": "scheduler",
      "reference": "round_robin", "panels": "entities", "rows": "placement"}, ["seed varies"]),
    ({"file": "bad_ratio_series.png", "kind": "ratio", "x": "budget", "y": "p_true_mean", "compare": "scheduler",
      "reference": "round_robin", "series": "placement"}, ["series", "compare"]),
    ({"file": "bad_ratio_reference.png", "kind": "ratio", "x": "budget", "y": "p_true_mean", "compare": "scheduler",
      "reference": "fifo"}, ["reference", "fifo", "round_robin"]),
    ({"file": "bad_ratio_two_y.png", "kind": "ratio", "x": "budget", "y": ["p_true_mean", "p_est_mean"],
      "compare": "scheduler", "reference": "round_robin"}, ["one column"]),
    ({"file": "bad_ratio_lines.png", "kind": "ratio", "x": "budget", "y": "p_true_mean", "compare": "scheduler",
      "reference": "round_robin", "lines": ["one"]}, ["lines"]),
    ({"file": "bad_ratio_compare.png", "kind": "ratio", "x": "budget", "y": "p_true_mean", "compare": "p_est_mean",
      "reference": 1}, ["compare", "not a factor column"]),
]

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def make_table(path):
    """Writes the synthetic table.csv; returns its rows, as dicts of the values written."""
    rng = random.Random(20240601)
    rows = []
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(COLUMNS)
        run = 0
        for placement in PLACEMENTS:
            for entities in ENTITIES:
                for scheduler in SCHEDULERS:
                    for budget in BUDGETS:
                        for seed in SEEDS:
                            crowd = 2.0 if placement == "packed" else 1.0
                            speed = 0.7 if scheduler == "eccentricity" else 1.0
                            median = 0.002 * entities ** 0.9 * crowd * speed * (1 + 0.08 * rng.random())
                            median *= 1 + 0.15 * math.log10(budget / 1000)
                            quantiles = [median * r for r in (0.6, 0.7, 0.85, 1.0, 1.2, 1.7, 2.3, 3.1)]
                            p_true = 5.0 * entities / 1000 * crowd / (1 + budget / 3000) * (1 + 0.2 * rng.random())
                            if scheduler == "eccentricity":
                                p_true *= 0.6
                            p_est = p_true * (1.05 + 0.3 * rng.random())
                            if run == BELOW_RUN:
                                p_est = 0.8 * p_true
                            if run == ROUNDING_RUN:
                                p_est = p_true * (1 - 1e-12)
                            nabla_true = 0.0 if run == ZERO_NABLA_RUN else p_true * 0.01
                            work = float(entities * (seed + 1) * (2 if placement == "packed" else 3))
                            if scheduler == "eccentricity":
                                work *= WORK_RATIO[budget]
                            at = (placement, entities, budget, seed)
                            if scheduler == "round_robin" and at == REFERENCE_ZERO:
                                work = 0.0
                            if (scheduler == "round_robin" and at == REFERENCE_EMPTY
                                    or scheduler == "eccentricity" and at == OWN_EMPTY):
                                work = ""
                            cells = [run, entities, placement, scheduler, "work", budget, seed, 600,
                                     p_true, p_est, nabla_true, nabla_true * 1.3] + quantiles + [work]
                            if run == 5:
                                cells[COLUMNS.index("step_ms_p99")] = ""  # a missing value
                            out.writerow(cells)
                            rows.append(dict(zip(COLUMNS, cells)))
                            run += 1
    return rows


def make_sweep(folder, figures, factor_columns=None):
    """The synthetic sweep in `folder`, with these figures and, when given, factor_columns in
    its sweep.json (else the plots take the columns before frames); returns the table's rows."""
    os.makedirs(folder, exist_ok=True)
    rows = make_table(os.path.join(folder, "table.csv"))
    sweep = {"name": "synthetic"}
    if figures is not None:
        sweep["figures"] = figures
    if factor_columns is not None:
        sweep["factor_columns"] = factor_columns
    with open(os.path.join(folder, "sweep.json"), "w", encoding="utf-8") as f:
        json.dump(sweep, f, indent=2)
    return rows


def run_plots(*args, stdout=False):
    """fovea_plots.py's exit status and stderr (and stdout when asked)."""
    done = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
    return (done.returncode, done.stderr, done.stdout) if stdout else (done.returncode, done.stderr)


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n"


def check_study(top):
    sweep = os.path.join(top, "sweep")
    make_sweep(sweep, FIGURES)
    status, err = run_plots("study", sweep)
    check(status == 0, f"study exits 0, not {status}: {err}")
    for spec in FIGURES:
        path = os.path.join(sweep, "figures", spec["file"])
        check(f"fovea sweep: figure: {path}\n" in err, f"study names {path} on stderr")
        check(os.path.isfile(path) and is_png(path), f"{path} is a PNG")
        if os.path.isfile(path):
            check(os.path.getsize(path) < 250_000, f"{path} is under 250 kB ({os.path.getsize(path)} bytes)")
    below = {(m[1], m[2] or ""): (int(m[3]), int(m[4]))
             for m in re.finditer(r"fovea sweep: figure (\S+?)(?:, (.+?))?: below the diagonal: (\d+) of (\d+)", err)}
    check(below == EXPECTED_BELOW, f"below the diagonal counts {below}, expected {EXPECTED_BELOW}")
    left_out = [line for line in err.splitlines() if "left out" in line]
    check(left_out == EXPECTED_LEFT_OUT, f"the ratios' left out lines {left_out}, expected {EXPECTED_LEFT_OUT}")

    out = os.path.join(top, "elsewhere")
    status, err = run_plots("study", sweep, "--out", out)
    check(status == 0 and all(is_png(os.path.join(out, s["file"])) for s in FIGURES), "study --out DIR")

    for name, figures in (("none", None), ("empty", [])):
        folder = os.path.join(top, f"figures_{name}")
        make_sweep(folder, figures)
        status, err = run_plots("study", folder)
        check(status == 0 and err == "" and not os.path.exists(os.path.join(folder, "figures")),
              f"no figures ({name}): exit 0, nothing written; got {status}: {err}")


def check_bad_specs(top):
    for spec, words in BAD_SPECS:
        folder = os.path.join(top, spec["file"].removesuffix(".png"))
        make_sweep(folder, [FIGURES[0], spec])
        status, err = run_plots("study", folder)
        lines = err.splitlines()
        check(status == 2, f"{spec['file']}: exit 2, not {status}: {err}")
        check(len(lines) == 1 and spec["file"] in err and all(w in err for w in words),
              f"{spec['file']}: one line naming the file and {words}: {err!r}")
        check(not os.path.exists(os.path.join(folder, "figures")), f"{spec['file']}: nothing drawn")
    # Every bad figure is reported, one line each.
    folder = os.path.join(top, "two_bad")
    make_sweep(folder, [BAD_SPECS[0][0], BAD_SPECS[1][0]])
    status, err = run_plots("study", folder)
    check(status == 2 and len(err.splitlines()) == 2, f"two bad figures: two lines, exit 2: {status} {err!r}")

    folder = os.path.join(top, "no_table")
    make_sweep(folder, FIGURES)
    os.remove(os.path.join(folder, "table.csv"))
    status, err = run_plots("study", folder)
    check(status == 1 and "table.csv" in err, f"a missing table.csv exits 1: {status} {err!r}")
    folder = os.path.join(top, "broken_json")
    make_sweep(folder, FIGURES)
    with open(os.path.join(folder, "sweep.json"), "w", encoding="utf-8") as f:
        f.write('{"figures": [')
    status, err = run_plots("study", folder)
    check(status == 1 and "sweep.json" in err, f"malformed sweep.json exits 1: {status} {err!r}")
    status, err = run_plots("study", os.path.join(top, "no_such_sweep"))
    check(status == 1 and "sweep.json" in err, f"a missing sweep exits 1: {status} {err!r}")


def mean_and_interval(values):
    """By hand: the mean and its 95 % t interval of three values (t_0.975 for 2 degrees of freedom)."""
    assert len(values) == 3
    mean = sum(values) / 3
    half = T_975_DF2 * math.sqrt(sum((v - mean) ** 2 for v in values) / 2) / math.sqrt(3)
    return mean, mean - half, mean + half


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


def markdown_cells(text):
    """The cells of a markdown table's lines, stripped; the rule line is dropped."""
    lines = text.splitlines()
    return [[c.strip() for c in line.strip().strip("|").split("|")] for i, line in enumerate(lines) if i != 1]


def check_table(top):
    folder = os.path.join(top, "table")
    rows = make_sweep(folder, FIGURES)

    # The exact ratios: n, mean, a zero-width interval and the pairs left out at each point.
    left_out_at = (REFERENCE_ZERO, REFERENCE_EMPTY, OWN_EMPTY)
    exact = []
    for placement in PLACEMENTS:
        for entities in ENTITIES:
            for budget in BUDGETS:
                left = sum((placement, entities, budget, seed) in left_out_at for seed in SEEDS)
                exact.append((placement, entities, budget, len(SEEDS) - left, WORK_RATIO[budget], left))
    status, err, out = run_plots("table", folder, "work_ratio.png", "--format", "csv", stdout=True)
    expected = "placement,entities,scheduler,budget,y,n,mean,ci_low,ci_high,left_out\n" + "".join(
        f"{p},{e},eccentricity,{b},work_mean,{n},{r!r},{r!r},{r!r},{left}\n" for p, e, b, n, r, left in exact)
    check(status == 0 and out == expected, f"table work_ratio.png --format csv: {status} {err}\n{out}")
    check(err == EXPECTED_LEFT_OUT[0] + "\n", f"table prints the left out line: {err!r}")
    status, err, out = run_plots("table", folder, "work_ratio.png", stdout=True)
    three = {1.0: "1.00", 0.5: "0.500", 0.25: "0.250", 0.125: "0.125"}
    expected = [["placement", "entities", "scheduler", "budget", "y", "n", "mean", "ci_low", "ci_high", "left_out"]] + [
        [p, str(e), "eccentricity", str(b), "work_mean", str(n), three[r], three[r], three[r], str(left)]
        for p, e, b, n, r, left in exact]
    check(status == 0 and markdown_cells(out) == expected, f"table work_ratio.png (markdown): {status} {err}\n{out}")
    rule = out.splitlines()[1] if out.count("\n") > 1 else ""
    check(re.fullmatch(r"\|-+\|-+:\|-+\|-+:\|-+\|-+:\|-+:\|-+:\|-+:\|-+:\|", rule),
          f"the markdown rule aligns numeric columns right: {rule}")

    # The noisy ratios, against the hand computation of every point.
    def p_true(scheduler, placement, entities, budget, seed):
        (row,) = [r for r in rows if (r["scheduler"], r["placement"], r["entities"], r["budget"], r["seed"])
                  == (scheduler, placement, entities, budget, seed)]
        return row["p_true_mean"]

    status, err, out = run_plots("table", folder, "p_ratio.png", "--format", "csv", stdout=True)
    lines = out.splitlines()
    check(status == 0 and err == "" and len(lines) == 1 + len(PLACEMENTS) * len(ENTITIES) * len(BUDGETS),
          f"table p_ratio.png --format csv: {status} {err}\n{out}")
    expected_means = {}
    for line in lines[1:]:
        p, e, scheduler, b, y, n, mean, low, high, left = line.split(",")
        ratios = [p_true("eccentricity", p, int(e), int(b), seed) / p_true("round_robin", p, int(e), int(b), seed)
                  for seed in SEEDS]
        want = mean_and_interval(ratios)
        expected_means[(p, e, b)] = want
        check(scheduler == "eccentricity" and y == "p_true_mean" and n == "3" and left == "0"
              and all(close(float(got), w) for got, w in zip((mean, low, high), want)),
              f"p_ratio.png at {p}, {e}, {b}: {line}, expected mean and interval {want}")
    status, err, out = run_plots("table", folder, "p_ratio.png", stdout=True)
    check(all(0.1 <= v < 1 for want in expected_means.values() for v in want),
          "the noisy ratios and their intervals are between 0.1 and 1 (3 significant digits: 3 decimals)")
    for cells in markdown_cells(out)[1:]:
        want = expected_means.get((cells[0], cells[1], cells[3]))
        check(want is not None and cells[6:9] == [f"{v:.3f}" for v in want],
              f"p_ratio.png (markdown) {cells}: expected {want}")

    # A lines figure's table: the mean over the seeds of each scheduler, entities and budget.
    status, err, out = run_plots("table", folder, "p_true.png", "--format", "csv", stdout=True)
    lines = out.splitlines()
    check(status == 0 and lines[:1] == ["entities,scheduler,budget,y,n,mean,ci_low,ci_high"]
          and len(lines) == 1 + len(ENTITIES) * len(SCHEDULERS) * len(BUDGETS),
          f"table p_true.png --format csv: {status} {err}\n{out}")
    for line in lines[1:]:
        e, scheduler, b, y, n, mean, low, high = line.split(",")
        want = mean_and_interval([p_true(scheduler, "packed", int(e), int(b), seed) for seed in SEEDS])
        check(y == "p_true_mean" and n == "3" and all(close(float(got), w) for got, w in zip((mean, low, high), want)),
              f"p_true.png at {e}, {scheduler}, {b}: {line}, expected {want}")
    status, err, out = run_plots("table", folder, "p_true.png", stdout=True)
    cells = markdown_cells(out)
    check(status == 0 and cells[0] == ["entities", "scheduler", "budget", "y", "n", "mean", "ci_low", "ci_high"]
          and len(cells) == len(lines), f"table p_true.png (markdown): {status} {err}\n{out}")

    # Figures with no table, unknown figures: exit 2, one line, nothing on stdout.
    for name, words in (("step_spread.png", ["distribution", "no table"]), ("p_est_vs_true.png", ["scatter"]),
                        ("nope.png", ["no figure nope.png", "p_ratio.png"])):
        status, err, out = run_plots("table", folder, name, stdout=True)
        check(status == 2 and out == "" and len(err.splitlines()) == 1 and all(w in err for w in words),
              f"table {name}: exit 2, one line with {words}: {status} {err!r} {out!r}")
    status, err, out = run_plots("table", "--help", stdout=True)
    check(status == 0 and "--format" in out and "markdown" in out, f"table --help: {status} {err}")

    # A compare value has the colour it has as a series.
    table = study_figures.Table(os.path.join(folder, "table.csv"))
    lines_figure = study_figures.check_figure(1, FIGURES[1], table, set())
    ratio_figure = study_figures.check_figure(7, FIGURES[7], table, set())
    as_series = {label: colour for _, label, colour in study_figures.series_of(lines_figure, table, table.rows)}
    as_compared = {label: colour for _, label, colour in study_figures.series_of(ratio_figure, table, table.rows)}
    check(as_compared == {"eccentricity": as_series["eccentricity"]},
          f"eccentricity's colour as compare {as_compared}, as series {as_series}")


def check_factor_columns(top):
    """sweep.json's factor_columns, when it has them, are what a ratio pairs on."""
    factors = ["entities", "placement", "scheduler", "budget_mode", "budget", "seed"]
    _, _, derived = run_plots("table", os.path.join(top, "table"), "work_ratio.png", "--format", "csv", stdout=True)
    folder = os.path.join(top, "factor_columns")
    make_sweep(folder, FIGURES, factor_columns=factors)
    status, err, out = run_plots("table", folder, "work_ratio.png", "--format", "csv", stdout=True)
    check(status == 0 and out == derived, f"factor_columns as listed pair as the columns before frames: {status} {err}")
    # Without seed among the factors (and so not in pair), each pair has three reference rows.
    unpaired = {k: v for k, v in FIGURES[8].items() if k != "pair"}
    make_sweep(folder, [unpaired], factor_columns=[c for c in factors if c != "seed"])
    status, err, out = run_plots("table", folder, "work_ratio.png", stdout=True)
    check(status == 2 and "work_ratio.png" in err and "cannot be told" in err and out == "",
          f"factor_columns without seed: two reference rows for a pair, exit 2: {status} {err!r}")
    make_sweep(folder, FIGURES, factor_columns=factors + ["colour"])
    status, err = run_plots("study", folder)
    check(status == 1 and "colour" in err, f"factor_columns naming no column: exit 1: {status} {err!r}")


def check_statistics():
    # Two-sided 95 % Student-t quantiles, t_0.975 by degrees of freedom (any statistics table).
    for df, t in ((1, 12.7062), (2, 4.3027), (3, 3.1824), (5, 2.5706), (10, 2.2281), (30, 2.0423),
                  (100, 1.9840), (10000, 1.9602)):
        got = study_figures.student_t_quantile(0.975, df)
        check(abs(got - t) < 5e-4, f"t_0.975 with {df} degrees of freedom: {got}, expected {t}")
    mean, half = study_figures.mean_and_half_width([1.0, 2.0, 3.0])
    check(mean == 2.0 and abs(half - 4.3027 / math.sqrt(3)) < 1e-3, f"interval of 1, 2, 3: {mean} +- {half}")
    check(math.isnan(study_figures.mean_and_half_width([4.0])[1]), "no interval from one value")
    check(study_figures.parse_number("1_000") is None and study_figures.parse_number("3e3") == 3000.0,
          "numbers are C++'s and Python's float text, not Python's float() syntax")


def check_fit(top):
    status, err = run_plots("fit", "--help")
    check(status == 0, f"fit --help exits 0: {status} {err}")
    check(callable(psychometric.main), "psychometric.py imports and has main")
    # A one-participant fit whose fitted probabilities are psychometric.py's own f(e, g).
    parameters = {"threshold_deg": 0.05, "eccentricity_scale_deg": 9.0, "width": 1.5, "lapse_rate": 0.03}
    model = psychometric.PerceptionModel("logistic", 0.05, 9.0, 1.5, 0.02, 0.03)
    conditions = [(e, g) for e in (0.0, 10.0) for g in (0.0, 0.03, 0.06, 0.12, 0.24)]
    folder = os.path.join(top, "fit")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "m_conditions.csv"), "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["participant", "eccentricity_deg", "gap_deg", "trials", "yes", "proportion_yes",
                      "fitted_probability"])
        for participant in ("p1", "pooled"):  # one participant: the pooled fit is the same
            for e, g in conditions:
                p = model.probability(e, g)
                out.writerow([participant, e, g, 40, round(40 * p), round(40 * p) / 40, repr(p)])
    interval = {"value": 0.05, "ci_low": 0.04, "ci_high": 0.06}
    fit = {"participant": "pooled", "participants": ["p1"], "trials": 400, "catch_trials": 80,
           "function": "logistic", "guess_rate": 0.02,
           "parameters": {k: {"value": v, "ci_low": None, "ci_high": None} for k, v in parameters.items()},
           "eccentricities": [{"eccentricity_deg": e, "threshold_alone_deg": interval} for e in (0.0, 10.0)],
           "threshold_band": {"eccentricity_deg": [0.0, 10.0], "ci_low": [0.045, 0.09], "ci_high": [0.055, 0.12]}}
    with open(os.path.join(folder, "m_fit.json"), "w", encoding="utf-8") as f:
        json.dump({"settings": {"confidence": 0.95}, "conditions_file": "m_conditions.csv",
                   "participants": [dict(fit, participant="p1")], "pooled": fit}, f)
    status, err = run_plots("fit", os.path.join(folder, "m_fit.json"), "--out", os.path.join(folder, "png"),
                            "--stem", "m")
    check(status == 0, f"fit exits 0: {status} {err}")
    for name in ("m_psychometric.png", "m_threshold.png"):
        path = os.path.join(folder, "png", name)
        check(os.path.isfile(path) and is_png(path), f"fit draws {path}")


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def check_point_sizes(top):
    """A psychometric figure's points: area in proportion to the trials behind each, the size
    legend's marks too."""
    import numpy as np
    from matplotlib.collections import PathCollection
    plt = pyplot()
    model = psychometric.PerceptionModel("logistic", 0.05, 9.0, 1.5, 0.02, 0.03)
    trials = {0.03: 1, 0.06: 5, 0.12: 20, 0.24: 40}
    rows = [{"participant": "pooled", "eccentricity_deg": 0.0, "gap_deg": g, "trials": n,
             "yes": round(n * model.probability(0.0, g)), "fitted_probability": model.probability(0.0, g)}
            for g, n in trials.items()]
    parameters = {"threshold_deg": 0.05, "eccentricity_scale_deg": 9.0, "width": 1.5, "lapse_rate": 0.03}
    fit = {"participant": "pooled", "trials": sum(trials.values()), "catch_trials": 0, "function": "logistic",
           "guess_rate": 0.02, "parameters": {k: {"value": v} for k, v in parameters.items()}}
    figure = psychometric.draw_psychometric(plt, np, {"participants": [dict(fit, participant="p1")]}, [fit], rows)
    points = [c for c in figure.axes[0].collections if isinstance(c, PathCollection)]
    sized = sorted((trials[round(x, 6)], area) for c in points
                   for (x, _), area in zip(c.get_offsets(), np.broadcast_to(c.get_sizes(), len(c.get_offsets()))))
    check(len(sized) == len(trials), f"one point per condition: {sized}")
    check(all(a[1] < b[1] for a, b in zip(sized, sized[1:])), f"a point's area grows with its trials: {sized}")
    check(all(abs(area / n - sized[-1][1] / sized[-1][0]) < 1e-9 * area / n for n, area in sized),
          f"a point's area is in proportion to its trials: {sized}")
    legends = [g for g in figure.legends if "trials" in g.get_title().get_text()]
    check(len(legends) == 1, "the figure has a legend of the points' sizes")
    if legends:
        # legend_handles since matplotlib 3.7, legendHandles before (Debian 12 has 3.6).
        handles = getattr(legends[0], "legend_handles", None) or legends[0].legendHandles
        shown = [(int(t.get_text()), h.get_markersize() ** 2) for t, h in zip(legends[0].get_texts(), handles)]
        check([n for n, _ in shown] == [1, 5, 40], f"the size legend shows 1, 5 and 40 trials: {shown}")
        check(all(abs(area - dict(sized).get(n, area)) < 1e-6 * area for n, area in shown),
              f"the size legend's marks have the points' areas: {shown} against {sized}")
    plt.close(figure)
    check(psychometric.size_legend_trials(40, 40) == [40], "one size in the legend when every point has 40 trials")


def drawn_figure(spec, table, folder, save=True):
    """A figure drawn in this process, open, for its matplotlib objects to be read; its PNG is
    written only when `save` (writing is most of the time, and check_study checks the PNGs)."""
    plt = pyplot()
    figure = study_figures.check_figure(0, spec, table, set())
    rows = study_figures.select_rows(figure, table)
    save_png = study_figures.save_png
    if not save:
        study_figures.save_png = lambda fig, path: None
    try:
        return plt, study_figures.DRAW[figure.kind](plt, figure, table, rows, os.path.join(folder, spec["file"]),
                                                    lambda line: None)
    finally:
        study_figures.save_png = save_png


# Figures without their own labels, and the words their axes must have: (x label, y label).
DEFAULT_LABELS = {
    "p_true.png": ("budget (sphere tests per frame)", "perceived error P per frame, true"),
    "step_tails.png": ("entity placement", "step time (ms)"),
    "nabla_log.png": ("geometric error \u2207 per frame, true (m)", "geometric error \u2207 per frame, estimated (m)"),
    "frames_vs_step.png": ("frames simulated", "step time, median (ms)"),
    "work_ratio.png": ("budget (sphere tests per frame)", "work_mean: ratio to round_robin"),
    "p_both.png": ("budget (sphere tests per frame)", "perceived error P per frame"),
    "step_both.png": ("budget (sphere tests per frame)", "step time (ms)"),
}
LABEL_FIGURES = [
    {"file": "p_both.png", "kind": "lines", "x": "budget", "y": ["p_true_mean", "p_est_mean"], "series": "scheduler",
     "log_x": True, "where": {"placement": "packed", "entities": 100}},
    {"file": "step_both.png", "kind": "lines", "x": "budget", "y": ["step_ms_median", "step_ms_p95"],
     "log_x": True, "where": {"placement": "packed", "entities": 100}},
]


def check_axis_labels(top):
    """Every axis label of every figure drawn is words, not a column's name; the figures without
    labels of their own get the words of column_label."""
    folder = os.path.join(top, "labels")
    make_sweep(folder, FIGURES + LABEL_FIGURES)
    table = study_figures.Table(os.path.join(folder, "table.csv"))
    for spec in FIGURES + LABEL_FIGURES:
        plt, figure = drawn_figure(spec, table, folder, save=False)
        labels = {(axis, text) for ax in figure.axes for axis, text in (("x", ax.get_xlabel()), ("y", ax.get_ylabel()))
                  if text}
        check({axis for axis, _ in labels} == {"x", "y"}, f"{spec['file']}: both axes labelled: {labels}")
        raw = [text for _, text in labels if text in table.columns]
        check(not raw, f"{spec['file']}: axis labels that are a column's name: {raw}")
        if spec["file"] in DEFAULT_LABELS:
            expected = {("x", DEFAULT_LABELS[spec["file"]][0]), ("y", DEFAULT_LABELS[spec["file"]][1])}
            check(labels == expected, f"{spec['file']}: axis labels {labels}, expected {expected}")
        if spec["file"] == "p_both.png":
            names = [t.get_text() for g in figure.legends for t in g.get_texts()]
            check("round_robin, true" in names and "round_robin, estimated" in names,
                  f"p_both.png: the legend tells true from estimated: {names}")
        plt.close(figure)
    for column, words in (("step_ms_p95", "step time, 95th percentile (ms)"), ("p_true_p1", "perceived error P "
                          "per frame, true, 1st percentile"), ("frame_ms_max", "frame time, maximum (ms)"),
                          ("work_mean", "work_mean"), ("step_ms_p9x", "step_ms_p9x"), ("colour", "colour")):
        got = study_figures.column_label(column)
        check(got == words, f"column_label({column}) = {got!r}, expected {words!r}")
    wall = [{"budget_mode": "wall"}]
    check(study_figures.column_label("budget", table, wall) == "budget (ms per frame)", "a wall budget's label")
    check("budget_mode" in study_figures.column_label("budget", table, wall + [{"budget_mode": "work"}]),
          "a budget of mixed modes says to read budget_mode")


def check_log_band(top):
    """A lines figure on a log y axis with 3 seeds whose t-interval reaches below 0: the band's
    lower edge stays above 0 and the axis's bottom, cut at the mean / LOG_BAND_DIVISOR and
    marked there; a mean of 0 gets no band."""
    from matplotlib.collections import PolyCollection
    folder = os.path.join(top, "log_band")
    os.makedirs(folder, exist_ok=True)
    values = {1000: [0.01, 1.0, 0.02], 3000: [0.3, 0.35, 0.32], 10000: [0.0, 0.004, 0.2], 30000: [0.0, 0.0, 0.0]}
    with open(os.path.join(folder, "table.csv"), "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(["run", "scheduler", "budget", "seed", "frames", "p_true_mean"])
        for run, (budget, seed) in enumerate((b, s) for b in values for s in range(3)):
            out.writerow([run, "round_robin", budget, seed, 100, values[budget][seed]])
    table = study_figures.Table(os.path.join(folder, "table.csv"))
    spec = {"file": "log_band.png", "kind": "lines", "x": "budget", "y": ["p_true_mean"], "series": "scheduler",
            "log_x": True, "log_y": True}
    interval = {b: study_figures.mean_and_half_width(v) for b, v in values.items()}
    below_zero = [b for b, (mean, half) in interval.items() if mean > 0 and mean - half <= 0]
    check(below_zero == [1000, 10000], f"the t-interval reaches below 0 at 1000 and 10000: {below_zero}")
    plt, figure = drawn_figure(spec, table, folder)
    ax = figure.axes[0]
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    edges = [y for c in bands for path in c.get_paths() for _, y in path.vertices]
    bottom = ax.get_ylim()[0]
    check(bands and edges and min(edges) > 0, f"the log axis's band is above 0: lowest edge {min(edges, default=None)}")
    check(edges and min(edges) >= bottom * (1 - 1e-9), f"the band's lower edge {min(edges, default=None)} is not "
                                                       f"below the axis's bottom {bottom}")
    cut = sorted((x, y) for line in ax.get_lines() if line.get_marker() == "v" for x, y in line.get_xydata())
    expected = [(b, interval[b][0] / study_figures.LOG_BAND_DIVISOR) for b in below_zero]
    check(len(cut) == len(expected) and all(x == b and abs(y - want) < 1e-12 for (x, y), (b, want) in zip(cut, expected)),
          f"the cut band ends are marked at the mean / {study_figures.LOG_BAND_DIVISOR}: {cut}, expected {expected}")
    check(all(c.get_alpha() is not None and c.get_alpha() < 0.5 for c in bands), "the bands are translucent")
    lines = [line for line in ax.get_lines() if line.get_marker() == "o"]
    check(lines and all(c.get_zorder() < lines[0].get_zorder() for c in bands), "the bands are under the lines")
    notes = [t.get_text() for t in figure.texts]
    check(any("cut there" in t for t in notes), f"the note says the band is cut: {notes}")
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description="Self-check of fovea_plots.py.")
    parser.add_argument("--keep", metavar="DIR", help="build the synthetic sweep in DIR and keep it")
    args = parser.parse_args()
    check_statistics()
    with tempfile.TemporaryDirectory(prefix="fovea_plots_test_") as scratch:
        top = args.keep or scratch
        os.makedirs(top, exist_ok=True)
        check_study(top)
        check_bad_specs(top)
        check_table(top)
        check_factor_columns(top)
        check_fit(top)
        check_point_sizes(top)
        check_axis_labels(top)
        check_log_band(top)
    if failures:
        print(f"test_study_figures.py: {len(failures)} checks failed", file=sys.stderr)
        return 1
    print("test_study_figures.py: all checks passed", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
