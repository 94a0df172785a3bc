#!/usr/bin/env python3
"""Every number README.md quotes from this study's table.csv, recomputed: run it from anywhere.

    python3 results/studies/schedulers/readme_numbers.py [FOLDER]

FOLDER is the study's folder (its table.csv is read; a table.csv may be named instead), by
default this script's: a sweep run elsewhere, `fovea sweep configs/studies/schedulers.yaml
--quick --out /tmp/s` say, gives its own numbers; what its runs lack is said, not computed.
Standard library only (study_figures.py imports matplotlib only to draw). Its intervals are
the plotting script's own (`mean_and_half_width`), so the ratios it prints are those of
`python3 experiments/plots/fovea_plots.py table results/studies/schedulers p_ratio_500.png`.
"""

import math
import os
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "experiments", "plots"))
from study_figures import mean_and_half_width  # noqa: E402  (found through the path just set)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "experiments", "tools"))
from bounded_read import TABLE_LIMIT, rows_or_exit  # noqa: E402
WHO = "readme_numbers.py"  # names this script in its refusals



def table_path(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        sys.exit("usage: readme_numbers.py [FOLDER]   (the study's folder, or its table.csv; default " + HERE + ")")
    path = argv[1] if len(argv) == 2 else HERE
    if os.path.isdir(path):
        path = os.path.join(path, "table.csv")
    if not os.path.isfile(path):
        sys.exit(f"readme_numbers.py: {path}: missing; a folder of ./fovea sweep configs/studies/schedulers.yaml holds it")
    return path


TABLE = table_path(sys.argv)
ROWS = list(rows_or_exit(TABLE, TABLE_LIMIT, WHO))
SCHEDULERS = ("round_robin", "sequential", "sorted_sequential", "priority_queues")


def number(text):
    return float(text) if text != "" else math.nan


def select(**cells):
    return [r for r in ROWS if all(r[k] == str(v) for k, v in cells.items())]


def mean_of(rows, column):
    values = [number(r[column]) for r in rows if r[column] != ""]
    return st.mean(values) if values else math.nan


def median_of(rows, column):
    values = [number(r[column]) for r in rows if r[column] != ""]
    return st.median(values) if values else math.nan


def paired_ratio(column, scheduler, **cells):
    """Mean over seeds of column(scheduler) / column(round robin), and its 95 % t-interval."""
    ratios = []
    for seed in range(1, 11):
        a = select(scheduler=scheduler, seed=seed, **cells)
        b = select(scheduler="round_robin", seed=seed, **cells)
        if a and b and number(b[0][column]) > 0:
            ratios.append(number(a[0][column]) / number(b[0][column]))
    if len(ratios) < 2:
        return f"n = {len(ratios)}"
    m, h = mean_and_half_width(ratios)
    return f"{m:.3g} [{m - h:.3g}, {m + h:.3g}], n = {len(ratios)}"


def main():
    print(f"{TABLE}: {len(ROWS)} runs")
    print("\n== full resolution: round robin at 1,000,000 tests (sphere tests a frame, mean; frames exhausted)")
    for contacts in ("response", "none"):
        for placement in ("packed", "uniform"):
            for entities in (100, 250, 500, 1000, 2000):
                rows = select(contacts=contacts, placement=placement, entities=entities, budget=1000000,
                              scheduler="round_robin")
                if rows:
                    print(f"{contacts:8} {placement:7} {entities:5}: {mean_of(rows, 'sphere_tests_mean'):9.0f} "
                          f"exhausted {max(number(r['budget_exhausted_mean']) for r in rows)}")

    print("\n== 500 packed: paired ratios to round robin, true P (and estimated P)")
    for contacts in ("response", "none"):
        full = mean_of(select(contacts=contacts, placement="packed", entities=500, budget=1000000,
                              scheduler="round_robin"), "sphere_tests_mean")
        for budget in (1000, 3000, 10000, 30000, 100000, 300000):
            cells = dict(contacts=contacts, placement="packed", entities=500, budget_mode="work", budget=budget)
            print(f"{contacts:8} {budget:7} ({100 * budget / full:.2g} %): "
                  f"pq {paired_ratio('p_true_mean', 'priority_queues', **cells)}; "
                  f"sorted {paired_ratio('p_true_mean', 'sorted_sequential', **cells)}; "
                  f"sequential {paired_ratio('p_true_mean', 'sequential', **cells)}; "
                  f"pq estimated {paired_ratio('p_est_mean', 'priority_queues', **cells)}")

    print("\n== 500 packed: means over seeds of collisions, interrupted, P true, budget exhausted (frames)")
    for contacts in ("response", "none"):
        for budget in (1000, 3000, 10000, 30000, 100000, 300000):
            line = []
            for s in ("round_robin", "priority_queues"):
                rows = select(contacts=contacts, placement="packed", entities=500, budget_mode="work",
                              budget=budget, scheduler=s)
                line.append(f"{s}: {mean_of(rows, 'collisions_mean'):.0f} collisions, "
                            f"{mean_of(rows, 'interrupted_mean'):.1f} interrupted, P {mean_of(rows, 'p_true_mean'):.3g}, "
                            f"exhausted {mean_of(rows, 'budget_exhausted_mean'):.2f}")
            print(f"{contacts:8} {budget:7}: " + "; ".join(line))

    print("\n== priority queues / round robin with the response, every count and placement: extremes")
    ratios = []
    for placement in ("packed", "uniform"):
        for entities in (100, 250, 500, 1000, 2000):
            for budget in (1000, 3000, 10000, 30000, 100000, 300000):
                text = paired_ratio("p_true_mean", "priority_queues", contacts="response", placement=placement,
                                    entities=entities, budget_mode="work", budget=budget)
                if not text.startswith("n = ") and text.endswith("n = 10"):
                    ratios.append((float(text.split()[0]), placement, entities, budget, text))
    ratios.sort()
    if ratios:
        print("lowest:", ratios[0][1:])
        print("highest:", ratios[-1][1:])
    else:
        print("no configuration with all 10 seeds")

    print("\n== estimated P against true P, per run")
    q = [number(r["p_est_mean"]) / number(r["p_true_mean"]) for r in ROWS
         if r["p_true_mean"] != "" and number(r["p_true_mean"]) > 0]
    if q:
        print(f"p_est / p_true: median {st.median(q):.3g}, from {min(q):.3g} to {max(q):.3g}, {len(q)} runs; "
              f"runs with p_est below p_true: {sum(1 for x in q if x < 1)}")
    slack = [number(r["nabla_slack_m_min"]) for r in ROWS if r["nabla_slack_m_min"] != ""]
    if slack:
        print(f"smallest nabla_est - nabla_true over every frame of {len(slack)} runs: {min(slack)}")
    both = [r for r in ROWS if r["contacts"] == "response" and number(r["nabla_true_mean"]) > 0
            and number(r["nabla_est_mean"]) > 0]
    print(f"runs in nabla_bound.png (contacts response, both means positive): {len(both)}; below the diagonal: "
          f"{sum(1 for r in both if number(r['nabla_est_mean']) < number(r['nabla_true_mean']))}")

    print("\n== wall-clock budgets (medians over seeds of each run's statistic; tests and P: means)")
    for placement in ("packed", "uniform"):
        for entities in (500, 2000):
            for budget in ("0.25", "1", "4"):
                print(f"{placement} {entities} rocks, {budget} ms:")
                for s in SCHEDULERS:
                    rows = select(budget_mode="wall", placement=placement, entities=entities, budget=budget,
                                  scheduler=s)
                    maxima = [number(r["budget_overshoot_us_max"]) for r in rows if r["budget_overshoot_us_max"] != ""]
                    print(f"  {s:18} tests {mean_of(rows, 'sphere_tests_mean'):7.0f}  P {mean_of(rows, 'p_true_mean'):.3g}"
                          f"  narrow phase p99 {median_of(rows, 'narrowphase_ms_p99'):.3g} ms"
                          f"  frame median {median_of(rows, 'step_ms_median'):.3g} p99 {median_of(rows, 'step_ms_p99'):.3g} ms"
                          f"  overshoot p99 {median_of(rows, 'budget_overshoot_us_p99'):.3g} us"
                          f" max {max(maxima) if maxima else math.nan:.0f} us")
    over = [number(r["budget_overshoot_us_p99"]) for r in ROWS if r["budget_overshoot_us_p99"] != ""]
    top = [number(r["budget_overshoot_us_max"]) for r in ROWS if r["budget_overshoot_us_max"] != ""]
    np99 = [number(r["narrowphase_ms_p99"]) for r in select(budget_mode="wall", budget="0.25")]
    if not (over and top and np99):
        print("no run under a wall budget of 0.25 ms with its overshoot measured")
        return
    print(f"every wall run: overshoot p99 from {min(over):.3g} to {max(over):.3g} us (median {st.median(over):.3g}); "
          f"largest single overshoot {max(top):.0f} us; narrow phase p99 under 0.25 ms: median {st.median(np99):.3g}, "
          f"max {max(np99):.3g} ms")


if __name__ == "__main__":
    main()
