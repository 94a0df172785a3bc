#!/usr/bin/env python3
"""The counterfactual study's figures, from evaluation_table.csv (analyse.py makes it).

    python3 results/studies/counterfactual/figures.py      # figures/*.png beside this script
    python3 results/studies/counterfactual/figures.py FOLDER [--out DIR]

FOLDER holds evaluation_table.csv (`analyse.py summarise --out FOLDER` writes it; default this
script's folder); the figures go to --out (default FOLDER/figures/).

Needs matplotlib (Debian's python3-matplotlib). Every point is a geometric mean over seeds
of a scheduler's P divided by round robin's on the same frames, with its 95 % interval,
exactly as analyse.py prints them.
"""

import argparse
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import analyse  # noqa: E402

COLOURS = {"sorted_sequential": "tab:green", "priority_queues": "tab:blue", "sequential": "tab:grey"}
SHARES = [float(b) for b in analyse.BUDGETS]


def ratio(metric, scheduler, **cells):
    """Geometric mean ratio to round robin and its 95 % interval, or NaNs."""
    logs, _ = analyse.paired_log_ratios(metric, scheduler, **cells)
    n = len(logs)
    if n < 2:
        return math.nan, math.nan, math.nan
    m = math.fsum(logs) / n
    se = math.sqrt(math.fsum((x - m) ** 2 for x in logs) / (n - 1)) / math.sqrt(n)
    t = analyse.student_t_quantile(0.975, n - 1)
    return math.exp(m), math.exp(m - t * se), math.exp(m + t * se)


def panel(ax, metric, schedulers, title, **cells):
    """One panel; budgets where no seed has P in both schedulers are left out (none left: said)."""
    drawn = False
    for scheduler in schedulers:
        points = [(s, ratio(metric, scheduler, budget=b, **cells)) for s, b in zip(SHARES, analyse.BUDGETS)]
        points = [(s, p) for s, p in points if not math.isnan(p[0])]
        if not points:
            continue
        drawn = True
        xs = [s for s, _ in points]
        ys = [p[0] for _, p in points]
        low = [p[0] - p[1] if not math.isnan(p[1]) else 0 for _, p in points]
        high = [p[2] - p[0] if not math.isnan(p[2]) else 0 for _, p in points]
        ax.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3, color=COLOURS[scheduler], label=scheduler)
    if not drawn:
        ax.text(0.5, 0.5, "no P left to compare", transform=ax.transAxes, ha="center")
    ax.set_ylim(0.01, 10)
    ax.set_xlim(0.007, 0.9)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(SHARES)
    ax.set_xticklabels([f"{100 * s:g} %" for s in SHARES])
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)


def save(fig, out, name):
    os.makedirs(out, exist_ok=True)
    fig.savefig(os.path.join(out, name), dpi=110, bbox_inches="tight")
    plt.close(fig)
    print(os.path.join(out, name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", default=HERE,
                        help="the folder holding evaluation_table.csv (default: this script's)")
    parser.add_argument("--out", help="where the figures go (default FOLDER/figures)")
    args = parser.parse_args()
    out = args.out or os.path.join(args.folder, "figures")
    analyse.read_table(args.folder)
    schedulers = ("sorted_sequential", "priority_queues", "sequential")
    packed = dict(scene="packed", entities=500, driver="full", f="logistic")

    fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
    for ax, viewer in zip(axes, ("screen", "entities", "collisions")):
        panel(ax, "p_true", schedulers, f"viewer: {viewer}", viewer=viewer, **packed)
    axes[0].set_ylabel("P / P(round robin), same frames")
    axes[1].set_xlabel("budget, share of the frame's full-resolution tests")
    axes[0].legend(fontsize=8)
    fig.suptitle("500 packed rocks, response on, full-resolution driver: P left by each scheduler relative to round robin")
    save(fig, out, "p_ratio_packed500.png")

    scenes = (("100 packed rocks", dict(scene="packed", entities=100, driver="full")),
              ("500 packed rocks", dict(scene="packed", entities=500, driver="full")),
              ("2000 packed rocks (5 seeds)", dict(scene="packed", entities=2000, driver="full")),
              ("gravity pile, 50 rocks", dict(scene="pile")),
              ("rockfall", dict(scene="rockfall")))
    fig, axes = plt.subplots(1, len(scenes), figsize=(18, 4), sharey=True)
    for ax, (title, cells) in zip(axes, scenes):
        panel(ax, "p_true", schedulers, title, viewer="collisions", f="logistic", **cells)
    axes[0].set_ylabel("P / P(round robin)")
    axes[2].set_xlabel("budget, share of the frame's full-resolution tests")
    axes[0].legend(fontsize=8)
    fig.suptitle("Every scene, a viewer that watches the collisions: P relative to round robin")
    save(fig, out, "p_ratio_scenes.png")

    metrics = (("p_true", "P"), ("p_true_supra", "suprathreshold P (f >= 0.05)"), ("p_true_visible", "visible P"),
               ("p_episodes_true", "P of episodes"))
    fig, axes = plt.subplots(1, len(metrics), figsize=(16, 4), sharey=True)
    for ax, (metric, title) in zip(axes, metrics):
        panel(ax, metric, ("sorted_sequential", "priority_queues"), title, viewer="collisions", **packed)
    axes[0].set_ylabel("ratio to round robin")
    axes[0].legend(fontsize=8)
    fig.suptitle("500 packed rocks, collision viewer: what a viewer can see, relative to round robin")
    save(fig, out, "metrics_packed500.png")

    fs = (("logistic", "logistic (004)"), ("weibull", "Weibull, F(0) = 0"), ("logistic_2t0", "logistic, 2 x T0"))
    fig, axes = plt.subplots(1, len(fs), figsize=(13, 4), sharey=True)
    for ax, (f, title) in zip(axes, fs):
        panel(ax, "p_true", ("sorted_sequential", "priority_queues"), title, scene="packed", entities=500,
              driver="full", viewer="collisions", f=f)
    axes[0].set_ylabel("P / P(round robin)")
    axes[0].legend(fontsize=8)
    fig.suptitle("500 packed rocks, collision viewer: the ratios under three f(e, g)")
    save(fig, out, "f_sensitivity_packed500.png")


if __name__ == "__main__":
    main()
