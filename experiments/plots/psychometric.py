#!/usr/bin/env python3
"""Plots of a `fovea fit`: the psychometric functions and the threshold against eccentricity.

`fovea fit` runs this script after writing its outputs, when python3 can import matplotlib
(docs/cli.md, "fovea fit"). It can also be run by hand on a fit's JSON, directly or through
fovea's one plotting entry point, fovea_plots.py, which hands `fit` to main() here:

    python3 experiments/plots/psychometric.py results/model_fit.json [--out DIR]
    python3 experiments/plots/fovea_plots.py fit results/model_fit.json [--out DIR]

It reads <stem>_fit.json and <stem>_conditions.csv and writes two PNGs into --out (default:
the JSON's folder):

- <stem>_psychometric.png: the proportion of trials answered "seen" against the gap, on a log
  axis, one colour per eccentricity, with 95 % Wilson intervals, and the fitted f(e, g) as
  curves; one panel for the pooled fit and, with several participants, one per participant.
  Each point's area is proportional to its number of trials (the largest in the figure drawn
  at MAX_POINT_AREA square points; a legend beside the panels gives the scale), so a point of
  one trial does not look like one of fifty.
- <stem>_threshold.png: the fitted threshold T(e) = T0 (1 + e / E2) against eccentricity, its
  bootstrap band, and each eccentricity's threshold fitted on its own (with the other
  parameters held) with its likelihood interval.

The curves use f(e, g) exactly as framework/perception/perception_model.cpp computes it; the
script checks this against the fitted probabilities fovea wrote into the CSV and stops with
an error if they differ. Needs matplotlib (and numpy, which it depends on); draws with the
Agg backend, so no display is needed.
"""

import argparse
import csv
import json
import math
import os
import sys

# F at the ends of the rise that `width` spans (perception_model.cpp's kLowF, kHighF).
LOW_F = 0.05
HIGH_F = 0.95

# The area, in square points, of the point with the most trials in a psychometric figure; the
# others' areas are in proportion to their trials.
MAX_POINT_AREA = 90.0

# How far the fitted probabilities recomputed here may stray from fovea's before the script
# refuses to draw: both sides compute the same doubles, so only rounding differs.
MAX_PROBABILITY_DIFFERENCE = 1e-9


def weibull_width(shape):
    """(g95 - g05) / T of the Weibull 1 - exp(-ln 2 (g / T)^k), as perception_model.cpp."""
    la = math.log(-math.log1p(-HIGH_F) / math.log(2))
    lb = math.log(-math.log1p(-LOW_F) / math.log(2))
    return math.exp(lb / shape) * math.expm1((la - lb) / shape)


def weibull_shape_for_width(width):
    """The shape k whose 5 %-to-95 % rise spans `width` thresholds: the same bisection."""
    lo = hi = 1.0
    while weibull_width(lo) < width:
        lo *= 0.5
    while weibull_width(hi) > width:
        hi *= 2.0
    for _ in range(200):
        if not hi / lo > 1 + 1e-15:
            break
        mid = lo * math.sqrt(hi / lo)
        if weibull_width(mid) > width:
            lo = mid
        else:
            hi = mid
    return lo * math.sqrt(hi / lo)


class PerceptionModel:
    """f(e, g) = gamma + (1 - gamma - lambda) F(g; T(e), width), T(e) = T0 (1 + e / E2)."""

    def __init__(self, function, threshold_deg, eccentricity_scale_deg, width, guess_rate, lapse_rate):
        self.function = function
        self.threshold_deg0 = threshold_deg
        self.threshold_slope = threshold_deg / eccentricity_scale_deg
        self.guess_rate = guess_rate
        self.range = 1 - guess_rate - lapse_rate
        self.logistic_scale = 2 * math.log(19.0) / width
        self.weibull_shape = weibull_shape_for_width(width)

    @classmethod
    def from_fit(cls, fit):
        p = fit["parameters"]
        return cls(fit["function"], p["threshold_deg"]["value"], p["eccentricity_scale_deg"]["value"],
                   p["width"]["value"], fit["guess_rate"], p["lapse_rate"]["value"])

    def threshold_deg(self, eccentricity_deg):
        return self.threshold_deg0 + self.threshold_slope * max(eccentricity_deg, 0.0)

    def probability(self, eccentricity_deg, gap_deg):
        if not gap_deg > 0:
            return self.guess_rate
        ratio = gap_deg / self.threshold_deg(eccentricity_deg)
        if self.function == "logistic":
            rise = 1 / (1 + math.exp(-(ratio - 1) * self.logistic_scale))
        else:
            rise = -math.expm1(-math.log(2) * ratio ** self.weibull_shape)
        return self.guess_rate + self.range * rise


def number(value):
    """A JSON number, NaN for null (fovea writes NaN, an interval not computed, as null)."""
    return float("nan") if value is None else float(value)


def wilson_interval(yes, trials, z=1.959964):
    """The 95 % Wilson score interval of a binomial proportion: sensible at 0 and 1 too."""
    p = yes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(centre - half, 0.0), min(centre + half, 1.0)


def read_conditions(path):
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rows.append({
                "participant": row["participant"],
                "eccentricity_deg": float(row["eccentricity_deg"]),
                "gap_deg": float(row["gap_deg"]),
                "trials": int(row["trials"]),
                "yes": int(row["yes"]),
                "fitted_probability": float(row["fitted_probability"]),
            })
    return rows


def check_formula(fits, rows):
    """Recomputes every fitted probability fovea wrote: the curves drawn must be its f."""
    worst = 0.0
    for fit in fits:
        model = PerceptionModel.from_fit(fit)
        for r in rows:
            if r["participant"] == fit["participant"]:
                worst = max(worst, abs(model.probability(r["eccentricity_deg"], r["gap_deg"]) - r["fitted_probability"]))
    if worst > MAX_PROBABILITY_DIFFERENCE:
        sys.exit(f"psychometric.py: this script's f(e, g) differs from fovea's by up to {worst:.3g}: "
                 "it no longer matches framework/perception/perception_model.cpp")


def panel_title(fit, fit_data):
    if fit["participant"] == "pooled" and len(fit_data["participants"]) == 1:
        name = fit_data["participants"][0]["participant"]
    elif fit["participant"] == "pooled":
        name = f"pooled ({len(fit_data['participants'])} participants)"
    else:
        name = fit["participant"]
    p = fit["parameters"]
    return (f"{name}: {fit['trials']} trials, {fit['function']}\n"
            f"T0 {p['threshold_deg']['value']:.3g} deg, E2 {p['eccentricity_scale_deg']['value']:.3g} deg, "
            f"width {p['width']['value']:.3g}")


def point_areas(trials, most_trials):
    """Marker areas (square points, as matplotlib's scatter takes them) for points of these
    numbers of trials: proportional to the trials, MAX_POINT_AREA at most_trials."""
    return [MAX_POINT_AREA * n / most_trials for n in trials]


def size_legend_trials(fewest, most):
    """The trials the size legend shows: the fewest and the most in the figure and, between
    them, a round number (1, 2 or 5 times a power of ten) near their geometric mean."""
    shown = {fewest, most}
    middle = math.sqrt(fewest * most)
    if middle > 0:
        power = 10 ** math.floor(math.log10(middle))
        nice = min((m * power for m in (1, 2, 5, 10)), key=lambda v: abs(math.log(v / middle)))
        if fewest * 1.5 < nice < most / 1.5:
            shown.add(int(nice))
    return sorted(shown)


def plot_psychometric(plt, np, fit_data, fits, rows, path):
    figure = draw_psychometric(plt, np, fit_data, fits, rows)
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)


def draw_psychometric(plt, np, fit_data, fits, rows):
    """The psychometric figure, returned open (plot_psychometric saves and closes it)."""
    columns = min(3, len(fits))
    lines = math.ceil(len(fits) / columns)
    figure, axes = plt.subplots(lines, columns, figsize=(5.2 * columns, 4.2 * lines), squeeze=False)
    for ax in axes.flat[len(fits):]:
        ax.set_visible(False)
    drawn = [r for fit in fits for r in rows if r["participant"] == fit["participant"] and r["gap_deg"] > 0]
    most_trials = max((r["trials"] for r in drawn), default=1)
    for ax, fit in zip(axes.flat, fits):
        model = PerceptionModel.from_fit(fit)
        mine = [r for r in rows if r["participant"] == fit["participant"] and r["gap_deg"] > 0]
        eccentricities = sorted({r["eccentricity_deg"] for r in mine})
        gaps = [r["gap_deg"] for r in mine]
        curve_gaps = np.geomspace(min(gaps) / 1.5, max(gaps) * 1.5, 200)
        colours = plt.get_cmap("viridis")(np.linspace(0.0, 0.85, max(len(eccentricities), 1)))
        for colour, e in zip(colours, eccentricities):
            at = sorted((r for r in mine if r["eccentricity_deg"] == e), key=lambda r: r["gap_deg"])
            x = [r["gap_deg"] for r in at]
            y = [r["yes"] / r["trials"] for r in at]
            intervals = [wilson_interval(r["yes"], r["trials"]) for r in at]
            # The interval holds p; max() only drops rounding at p = 0 or 1 (matplotlib refuses
            # a bar of length -1e-17).
            error = [[max(p - lo, 0.0) for p, (lo, _) in zip(y, intervals)],
                     [max(hi - p, 0.0) for p, (_, hi) in zip(y, intervals)]]
            ax.errorbar(x, y, yerr=error, fmt="none", ecolor=colour, elinewidth=1, capsize=2, alpha=0.8)
            ax.scatter(x, y, s=point_areas([r["trials"] for r in at], most_trials), color=colour, alpha=0.85,
                       linewidths=0, zorder=3, label=f"e = {e:g} deg")
            ax.plot(curve_gaps, [model.probability(e, g) for g in curve_gaps], color=colour, linewidth=1.5)
        if fit["catch_trials"] > 0:
            ax.axhline(fit["guess_rate"], color="0.5", linestyle=":", linewidth=1, label="guess rate (catch trials)")
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("gap (deg)")
        ax.set_ylabel("proportion seen")
        ax.set_title(panel_title(fit, fit_data), fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        legend = ax.legend(fontsize=7, loc="upper left")
        # The colours' marks at one size: the size legend, not this one, says what sizes mean.
        for handle in getattr(legend, "legend_handles", None) or legend.legendHandles:
            if hasattr(handle, "set_sizes"):
                handle.set_sizes([30.0])
    figure.tight_layout()
    if drawn:
        fewest = min(r["trials"] for r in drawn)
        shown = size_legend_trials(fewest, most_trials)
        from matplotlib.lines import Line2D  # a legend's own marks, drawn on no panel
        # A marker's size is its diameter in points: the square root of scatter's area.
        handles = [Line2D([], [], linestyle="none", marker="o", markersize=math.sqrt(area), color="0.4",
                          markeredgewidth=0) for area in point_areas(shown, most_trials)]
        figure.legend(handles, [f"{n}" for n in shown], title="trials at a point\n(area in proportion)",
                      loc="upper left", bbox_to_anchor=(1.0, 0.97), fontsize=7, title_fontsize=7, frameon=False,
                      labelspacing=1.2, borderpad=0.8)
    return figure


def plot_threshold(plt, np, fit_data, fits, path):
    figure, ax = plt.subplots(figsize=(6.4, 4.6))
    several = len(fits) > 1
    colours = plt.get_cmap("tab10")
    largest = max((e["eccentricity_deg"] for f in fits for e in f["eccentricities"]), default=1.0) or 1.0
    confidence = 100 * fit_data["settings"]["confidence"]
    spacing = 0.012 * largest  # participants' points side by side, not on top of one another
    for index, fit in enumerate(fits):
        pooled = fit["participant"] == "pooled"
        colour = "black" if pooled else colours(index % 10)
        if not pooled:
            label = fit["participant"]
        elif several:
            label = "pooled"
        else:
            label = fit_data["participants"][0]["participant"]
        model = PerceptionModel.from_fit(fit)
        band = fit["threshold_band"]
        if pooled and band["eccentricity_deg"]:
            ax.fill_between(band["eccentricity_deg"], [number(v) for v in band["ci_low"]],
                            [number(v) for v in band["ci_high"]], color="0.6", alpha=0.35, linewidth=0,
                            label=f"bootstrap {confidence:g} % band of T(e)")
        e_line = np.linspace(0.0, largest, 100)
        ax.plot(e_line, [model.threshold_deg(e) for e in e_line], color=colour,
                linewidth=2.0 if pooled else 1.0, label=f"{label}: T(e) = T0 (1 + e / E2)")
        offset = (index - (len(fits) - 1) / 2) * spacing if several else 0.0
        points = [e for e in fit["eccentricities"] if e["threshold_alone_deg"]["value"] is not None]
        if points:
            x = [e["eccentricity_deg"] + offset for e in points]
            y = [number(e["threshold_alone_deg"]["value"]) for e in points]
            low = [number(e["threshold_alone_deg"]["ci_low"]) for e in points]
            high = [number(e["threshold_alone_deg"]["ci_high"]) for e in points]
            # An interval end the search did not reach (NaN) is drawn as no bar on that side.
            error = [[max(v - lo, 0.0) if not math.isnan(lo) else 0.0 for v, lo in zip(y, low)],
                     [max(hi - v, 0.0) if not math.isnan(hi) else 0.0 for v, hi in zip(y, high)]]
            ax.errorbar(x, y, yerr=error, fmt="o" if pooled else "s", color=colour, markersize=5 if pooled else 3.5,
                        capsize=2, linestyle="none",
                        label=f"each eccentricity on its own, {confidence:g} % likelihood interval" if pooled else None)
    ax.set_xlabel("eccentricity (deg)")
    ax.set_ylabel("threshold T (deg)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(-0.05 * largest, 1.05 * largest)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title("threshold against eccentricity", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv=None, prog=None):
    """Draws the two PNGs of a fit. argv: the arguments after the program name (default
    sys.argv[1:]); prog: the name usage and errors give (fovea_plots.py passes "fovea_plots.py
    fit"). Exits through sys.exit on an error, as a script does."""
    parser = argparse.ArgumentParser(prog=prog, description="Plots of a fovea fit (docs/cli.md, fovea fit).")
    parser.add_argument("fit", metavar="FIT_JSON", help="<stem>_fit.json written by fovea fit")
    parser.add_argument("--conditions", help="<stem>_conditions.csv (default: the one named in the JSON, beside it)")
    parser.add_argument("--out", help="folder for the PNGs (default: the JSON's folder)")
    parser.add_argument("--stem", help="the PNGs' name stem (default: the JSON's name without _fit.json)")
    args = parser.parse_args(argv)

    folder = os.path.dirname(args.fit) or "."
    stem = args.stem or os.path.basename(args.fit).removesuffix(".json").removesuffix("_fit")
    out = args.out or folder
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display, no GUI toolkit
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError as e:
        sys.exit(f"psychometric.py: {e}: install matplotlib (apt install python3-matplotlib)")

    with open(args.fit, encoding="utf-8") as f:
        fit_data = json.load(f)
    rows = read_conditions(args.conditions or os.path.join(folder, fit_data["conditions_file"]))
    participants = fit_data["participants"]
    fits = [fit_data["pooled"]] + (participants if len(participants) > 1 else [])
    check_formula([fit_data["pooled"]] + participants, rows)

    os.makedirs(out, exist_ok=True)
    plot_psychometric(plt, np, fit_data, fits, rows, os.path.join(out, f"{stem}_psychometric.png"))
    plot_threshold(plt, np, fit_data, fits, os.path.join(out, f"{stem}_threshold.png"))


if __name__ == "__main__":
    main()
