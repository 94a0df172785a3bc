"""Figures of a `fovea sweep` study, drawn from its table.csv as its sweep.json asks.

`fovea sweep` runs this through the one plotting entry point after writing its outputs; it can
also be run by hand on a finished sweep:

    python3 experiments/plots/fovea_plots.py study SWEEP_DIR [--out DIR]

It reads SWEEP_DIR/sweep.json and SWEEP_DIR/table.csv and draws every figure listed in
sweep.json's "figures" as a PNG into --out (default SWEEP_DIR/figures/, created when there is
a figure to draw). It prints one line per file written to stderr,

    fovea sweep: figure: runs/cost/figures/step_time.png

for a scatter figure with "diagonal", one line per subplot,

    fovea sweep: figure est_vs_true.png, placement = packed: below the diagonal: 2 of 36

and, for a ratio figure that left pairs out, one line for the figure,

    fovea sweep: figure p_ratio.png: left out 3 pairs whose reference y is 0 or missing

Exit status: 0 when every figure was drawn, also when sweep.json has no "figures" or an empty
list (then nothing is written); 2 when a figure's spec is bad, with one line per bad figure
naming its file and the problem (an unknown kind, key or column, a missing key, a value of the
wrong type, a text column where numbers are needed, no rows left after "where", a factor that
varies within a ratio's point), and then no figure is drawn; 1 on any other failure (a file
missing or unreadable, matplotlib missing).

The numbers behind a figure
---------------------------
    python3 experiments/plots/fovea_plots.py table SWEEP_DIR FILE [--format markdown|csv]

prints to stdout the numbers the lines or ratio figure whose `file` is FILE draws, so that a
results README can quote them from a command anyone can run: one line per subplot (row by
row), series, x value and y column, each in the figure's order, with the columns

    [rows column] [panels column] [series or compare column] x-column y n mean ci_low ci_high [left_out]

named after the figure's columns (e.g. placement, entities, scheduler, budget): the subplot's
row and panel values and the series (each only when the figure has that key), x as table.csv
writes it, y (the y column's name), n (the runs behind a lines mean, the pairs behind a ratio
mean), the mean, the 95 % Student-t interval's ends (empty when n < 2) and, for a ratio,
left_out: the pairs left out there (an x value whose every pair was left out is a line with
n = 0 and no mean). --format markdown (the default) is a GitHub table with numbers to 3
significant digits; --format csv has them in full precision. A ratio figure's "left out" line
goes to stderr as when drawing. Exit status 0; 2 for a FILE sweep.json does not list, a
distribution or scatter figure (a box or a point per run has no mean to print) or a bad spec;
1 on any other failure.

table.csv
---------
Plain CSV with a header row, one row per run: `run` (the run's index), the study's factor
columns (e.g. `entities`, `placement`, `scheduler`, `budget_mode`, `budget`, `seed`), `frames`,
then metric columns named <metric>_<stat> (e.g. `p_true_mean`, `step_ms_p5`, `step_ms_p25`,
`step_ms_median`, `step_ms_p75`, `step_ms_p95`, `step_ms_max`). An empty cell is a missing
value; a column is numeric when every non-empty cell is a number. A column's values are taken
in numeric order when it is numeric, else in the order they first appear in the table (the
order the study lists them); the colour of a series value is fixed by that order over the
whole table, so it is the same in every subplot and every figure (also as a ratio figure's
`compare` value). The factor columns are sweep.json's "factor_columns"; a sweep.json without it
takes the columns between `run` and `frames`.

Figure keys
-----------
A figure is a JSON object. Every kind takes:

- `file` (required): the PNG's file name, ending in .png, no folder; unique in the list.
- `kind` (required): `lines`, `distribution`, `scatter` or `ratio`.
- `title`: the figure's title, above all its subplots.
- `where`: an object, column -> value or list of values; a row is kept when, for every
  column named, its cell equals one of the values (as numbers when both parse as numbers,
  so 3000 matches "3000" and "3e3", else as text). No row left is an error.
- `panels`: a column; one subplot column per distinct value.
- `rows`: a column; one subplot row per distinct value.
- `series` (not in a ratio figure, whose series are its `compare` values): a column; one colour
  per distinct value, named in the legend (right of the plots).

Any other key is an error, so that a misspelt one does not pass unnoticed. `fovea sweep` checks
the same kinds and keys when it reads the study; `python3 experiments/plots/study_figures.py
--keys` prints this script's list, and a test checks that the two agree. An empty cell in a
`panels`, `rows`, `series`, `compare` or category column is a value of its own, shown as
"(empty)".

`lines`: the mean of y against x, over the runs that share a subplot, a series and an x value
(e.g. over the seeds), with markers at the means and a shaded 95 % Student-t interval of the
mean (n - 1 degrees of freedom; none when n < 2), translucent and under the lines. A row with
x or y missing is left out of that mean. On a log y axis a mean <= 0 has no band, and a band
whose interval reaches below 1/3 of its mean (as a 3-seed interval often reaches 0) is cut at
that third and marked there with a "v": uncut it would run to the axis's bottom and hide the
other lines. The note under the figure says so, and n.

- `x` (required): a numeric column.
- `y` (required): a list of one or more numeric columns (a single name is taken as a list of
  one); several are drawn in the series' colour with different line styles and markers, the
  legend naming "series value, column" (the column by what tells it from the others, such as
  "true" and "estimated", when the axis label says the rest).
- `log_x`, `log_y`: booleans (default false), logarithmic axes. On a log x axis with at most
  8 values, each at least 1.8 times the previous, the ticks are the values themselves.
- `x_label`, `y_label`: the axis labels (default the columns in words, below).

`distribution`: boxes of a quantity whose quantiles each run wrote, one box per category.

- `x` (required): a column whose values are the categories along the x axis (e.g. scheduler).
- `column` (required): a prefix P: the box spans P_p25 to P_p75 with a line at P_median, the
  whiskers reach P_p5 and P_p95. Each of these is the median, over the rows behind the box,
  of that column (rows missing one of them are left out). Under the figure, a note says what
  the box and whiskers are and n, the number of rows behind each box: once when every box has
  the same n, else n is written under each box.
- `whiskers`: two stat names for the whiskers instead, e.g. ["p1", "p99"] for P_p1 and P_p99.
- `log_y`: boolean (default false); `x_label`, `y_label`: the axis labels (default `x` and P
  in words).

`scatter`: one point per run with both x and y; N below counts these points.

- `x`, `y` (required): numeric columns.
- `diagonal`: boolean (default false): draw y = x across the data's range, on equal axes. A
  point with y < x (1 - 1e-9) is below it: such points are drawn again as red crosses on top,
  and each subplot's title says "below the diagonal: K of N" (K may be 0; red when K > 0).
- `log`: boolean (default false): both axes logarithmic; points with a value <= 0 are left out
  and the subplot's title says how many.
- `x_label`, `y_label`: the axis labels (default the columns in words).

`ratio`: paired ratios to a reference level, e.g. each scheduler's P over round robin's P in the
same world. For each row kept by `where` whose `compare` cell is not the reference, its
reference row is the row of the whole table (`where` may leave the reference's own rows out)
whose `compare` cell is the reference and whose every other factor column is equal; its ratio
is y / the reference row's y. A point is the mean of the ratios of a subplot, a `compare` value
and an x value, with error bars of its 95 % Student-t interval (n - 1 degrees of freedom; none
when n < 2); the series are set a little apart along x so that their bars do not overlap. The
reference itself is not drawn (it would be 1). A pair whose reference y is 0 or missing (or has
no reference row), or whose own y is missing, is left out: stderr says how many (the line
above) and so does the note under the figure, which also says n. A row with x missing is left
out, as in lines.

- `x` (required): a numeric column.
- `y` (required): one numeric column (a list of one is taken too).
- `compare` (required): a factor column, e.g. scheduler; its values other than the reference
  are the series (legend titled by it, each value in its colour in other figures).
- `reference` (required): a value of `compare`, e.g. round_robin (matched as `where` matches).
- `pair`: a list of factor columns over whose values the ratios are averaged, e.g. ["seed"].
  Every factor column other than x, `panels`, `rows`, `compare` and `pair` must have one value
  among the rows of a point, else the spec is an error naming that column (a mean over, say,
  both placements would hide them): put it in `where`, `panels`, `rows` or `pair`.
- `lines`: a list of numbers, dashed grey horizontal lines across every subplot, e.g. [1, 0.5],
  their values written right of the last subplot of each row.
- `log_x`, `log_y`: booleans (default false), as in lines; `x_label`, `y_label`: the axis
  labels (default x in words, and "y in words: ratio to reference").

Axis labels by default say what a column holds and in which unit, from the table of
METRIC_WORDS and FACTOR_WORDS below: p_true_mean is "perceived error P per frame, true",
step_ms_p95 "step time, 95th percentile (ms)", budget "budget (sphere tests per frame)" where
the rows' budget_mode is work; a column the table does not know keeps its name. A legend's
title is its column in words too.

Subplots share an axis where it holds the same thing on the same scale: the x axis of lines
and distribution figures always, a logarithmic y axis along a row of subplots, both axes of a
logarithmic scatter without a diagonal, both axes of a ratio figure (a ratio means the same in
every subplot, and its reference lines line up); a linear y axis of the other kinds is each
subplot's own, so small values in one panel are not flattened by large ones in another, and so
are both axes of a linear scatter and the equal axes of a scatter with a diagonal. PNGs are drawn at 100 dpi, about
3.2 x 2.6 inches per subplot, in at most 256 colours (tens of kB each).

Example sweep.json "figures":

    [{"file": "step_time.png", "kind": "lines", "x": "budget", "y": ["step_ms_median"],
      "series": "scheduler", "panels": "entities", "rows": "placement", "log_x": true,
      "where": {"budget_mode": "work"}, "title": "step time against the work budget"},
     {"file": "step_spread.png", "kind": "distribution", "x": "scheduler", "column": "step_ms",
      "panels": "entities", "log_y": true},
     {"file": "p_est_vs_true.png", "kind": "scatter", "x": "p_true_mean", "y": "p_est_mean",
      "series": "scheduler", "panels": "placement", "diagonal": true},
     {"file": "p_ratio.png", "kind": "ratio", "x": "budget", "y": "p_true_mean",
      "compare": "scheduler", "reference": "round_robin", "pair": ["seed"], "panels": "entities",
      "rows": "placement", "lines": [1, 0.5], "log_x": true, "where": {"budget_mode": "work"}}]
"""

import argparse
import collections
import csv
import io
import json
import math
import os
import re
import sys
import textwrap
import warnings

PREFIX = "fovea sweep"

KINDS = ("lines", "distribution", "scatter", "ratio")
COMMON_KEYS = ("file", "kind", "title", "where", "panels", "rows")
# A ratio figure has no `series`: its series are the values of `compare` other than `reference`.
KIND_KEYS = {
    "lines": ("series", "x", "y", "log_x", "log_y", "x_label", "y_label"),
    "distribution": ("series", "x", "column", "whiskers", "log_y", "x_label", "y_label"),
    "scatter": ("series", "x", "y", "diagonal", "log", "x_label", "y_label"),
    "ratio": ("x", "y", "compare", "reference", "pair", "lines", "log_x", "log_y", "x_label", "y_label"),
}
REQUIRED_KEYS = {"lines": ("x", "y"), "distribution": ("x", "column"), "scatter": ("x", "y"),
                 "ratio": ("x", "y", "compare", "reference")}
# framework/study/study_settings.cpp checks a study's figures against the same kinds and keys
# (figure_kinds()) before any run starts; tests/plots/figure_keys.sh checks that the two lists
# agree, through keys_text() below.

# The kinds whose means `table` prints: a box or a point a run has no mean to quote.
TABLE_KINDS = ("lines", "ratio")
BOOLEAN_KEYS = ("log_x", "log_y", "log", "diagonal")
TEXT_KEYS = ("title", "x_label", "y_label")

# The quartiles of a distribution's box, and its default whiskers (stat suffixes of the column).
BOX_STATS = ("p25", "median", "p75")
DEFAULT_WHISKERS = ("p5", "p95")

# y below x by more than this relative amount is below the diagonal: rounding is not.
DIAGONAL_TOLERANCE = 1e-9

# Inches per subplot and the PNGs' resolution: small files, as they are committed.
SUBPLOT_WIDTH_IN = 3.2
SUBPLOT_HEIGHT_IN = 2.6
DPI = 100

# tab10 without its red, which marks the points below the diagonal.
SERIES_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf")
SINGLE_COLOUR = "#1f77b4"
BELOW_DIAGONAL_COLOUR = "red"
# How far apart a ratio figure's series are set along x: this fraction of the gap between
# neighbouring x values, per series.
DODGE = 0.07
# A lines figure's bands: drawn this opaque, under the lines; on a log y axis, cut at this
# fraction 1/LOG_BAND_DIVISOR of their mean (band_edges says why).
BAND_ALPHA = 0.18
LOG_BAND_DIVISOR = 3
# Line style and marker of the first, second, ... y column of a lines figure.
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v")

# A number as C++ or Python writes it; not Python's float() syntax, which also takes "1_000".
NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)", re.IGNORECASE)


class StudyError(Exception):
    """A failure to report in one line: status 2 for a bad figure spec, 1 for anything else."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def spec_error(name, problem):
    return StudyError(f"{PREFIX}: figure {name}: {problem}", 2)


def keys_text():
    """The figure kinds and their keys, two lines a kind, "<kind> keys <every key it takes>" and
    "<kind> required <the keys it needs>", the keys in the order messages list them."""
    return "".join(f"{kind} keys {' '.join(COMMON_KEYS + KIND_KEYS[kind])}\n"
                   f"{kind} required {' '.join(REQUIRED_KEYS[kind])}\n" for kind in KINDS)


def parse_number(text):
    """The float a cell holds, or None when it is empty or text."""
    return float(text) if NUMBER.fullmatch(text) else None


# --- Student-t quantiles, for the lines' 95 % intervals --------------------------------------

def regularized_incomplete_beta(a, b, x):
    """I_x(a, b) by its continued fraction (Numerical Recipes, 2nd ed., section 6.4)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only on the other side
        return 1.0 - regularized_incomplete_beta(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * fraction / a


def student_t_cdf(t, df):
    tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def student_t_quantile(probability, df):
    """The t with P(T <= t) = probability, 0.5 < probability < 1, by bisection on the cdf."""
    hi = 2.0
    while student_t_cdf(hi, df) < probability:
        hi *= 2.0
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if student_t_cdf(mid, df) < probability:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return 0.5 * (lo + hi)


# t_0.975 by degrees of freedom, computed once each: a sweep has a few distinct n.
T_975 = {}


def mean_and_half_width(values):
    """The mean and the half width of its 95 % Student-t interval (NaN when n < 2)."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return mean, float("nan")
    if n - 1 not in T_975:
        T_975[n - 1] = student_t_quantile(0.975, n - 1)
    deviation = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, T_975[n - 1] * deviation / math.sqrt(n)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else 0.5 * (ordered[middle - 1] + ordered[middle])


# --- table.csv -------------------------------------------------------------------------------

class Table:
    """table.csv: the header, the rows as dicts of cell text, which columns are numeric, and
    which are the study's factors (None when that cannot be told)."""

    def __init__(self, path, factor_columns=None):
        try:
            with open(path, newline="", encoding="utf-8") as f:
                lines = list(csv.reader(f))
        except (OSError, UnicodeDecodeError, csv.Error) as e:
            raise StudyError(f"{PREFIX}: {path}: cannot read: {e}", 1)
        if not lines or not lines[0]:
            raise StudyError(f"{PREFIX}: {path}: no header row", 1)
        self.columns = lines[0]
        repeated = sorted({c for c in self.columns if self.columns.count(c) > 1})
        if repeated:
            raise StudyError(f"{PREFIX}: {path}:1: column {repeated[0]} appears more than once", 1)
        self.rows = []
        for number, cells in enumerate(lines[1:], start=2):
            if not cells:
                continue  # a blank line, such as a final one
            if len(cells) != len(self.columns):
                raise StudyError(f"{PREFIX}: {path}:{number}: {len(cells)} cells, the header has "
                                 f"{len(self.columns)}", 1)
            self.rows.append(dict(zip(self.columns, cells)))
        self.numeric = {c: all(parse_number(r[c]) is not None for r in self.rows if r[c] != "")
                        for c in self.columns}
        # sweep.json's list, else what fovea sweep writes before `frames` (after `run`).
        if factor_columns is not None:
            missing = [c for c in factor_columns if c not in self.columns]
            if missing:
                raise StudyError(f"{PREFIX}: {path}: no column {missing[0]}, which sweep.json's factor_columns "
                                 f"lists", 1)
            self.factor_columns = list(factor_columns)
        elif "frames" in self.columns:
            self.factor_columns = [c for c in self.columns[:self.columns.index("frames")] if c != "run"]
        else:
            self.factor_columns = None

    def key(self, column, cell):
        """What identifies a cell's value: its number in a numeric column, else its text;
        None for a missing value (an empty cell, or NaN)."""
        if cell == "" or not self.numeric[column]:
            return cell or None
        value = parse_number(cell)
        return None if math.isnan(value) else value

    def values(self, column, rows):
        """The distinct values of `column` in `rows` as (key, label) pairs: numeric columns in
        numeric order, text ones in order of appearance; an empty cell last, as "(empty)"."""
        labels = {}
        for r in rows:
            labels.setdefault(self.key(column, r[column]), r[column] or "(empty)")
        keys = [k for k in labels if k is not None]
        if self.numeric[column]:
            keys.sort()
        if None in labels:
            keys.append(None)
        return [(k, labels[k]) for k in keys]

    def number(self, row, column):
        """The row's value in a numeric column, or None when missing (empty or NaN)."""
        cell = row[column]
        if cell == "":
            return None
        value = float(cell)
        return None if math.isnan(value) else value


# --- figure specs ----------------------------------------------------------------------------

class Figure:
    """A checked figure spec: every key of its kind present, defaults filled in."""

    def __init__(self, spec):
        self.__dict__.update(spec)


def where_text(value):
    """A `where` value as the text of a cell it matches."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return value


def check_figure(index, spec, table, taken_files):
    """The Figure of one spec; raises StudyError (status 2) naming its file on a bad spec."""
    if not isinstance(spec, dict):
        raise spec_error(f"figures[{index}]", "expected an object")
    file = spec.get("file")
    if not isinstance(file, str) or not file:
        raise spec_error(f"figures[{index}]", 'needs "file", the PNG\'s name')
    if os.path.basename(file) != file or not file.lower().endswith(".png"):
        raise spec_error(file, 'file: expected a PNG file name ending in .png, with no folder')
    if file in taken_files:
        raise spec_error(file, "file: another figure already writes it")
    kind = spec.get("kind")
    if kind not in KINDS:
        found = f'"{kind}"' if isinstance(kind, str) else "none" if kind is None else json.dumps(kind)
        raise spec_error(file, f"kind: expected one of {', '.join(KINDS)}, found {found}")
    allowed = COMMON_KEYS + KIND_KEYS[kind]
    for key in spec:
        if key == "series" and kind == "ratio":
            raise spec_error(file, 'a ratio figure takes no "series": its series are the values of "compare" '
                                   'other than "reference"')
        if key not in allowed:
            raise spec_error(file, f'unknown key "{key}" for a {kind} figure (keys: {", ".join(allowed)})')
    for key in REQUIRED_KEYS[kind]:
        if key not in spec:
            raise spec_error(file, f'a {kind} figure needs "{key}"')

    figure = {key: spec.get(key) for key in allowed}
    for key in BOOLEAN_KEYS:
        if key in allowed:
            figure[key] = spec.get(key, False)
            if not isinstance(figure[key], bool):
                raise spec_error(file, f"{key}: expected true or false, found {json.dumps(figure[key])}")
    for key in TEXT_KEYS:
        if figure.get(key) is not None and not isinstance(figure[key], str):
            raise spec_error(file, f"{key}: expected a string, found {json.dumps(figure[key])}")

    def column(key, value, numeric=False):
        if not isinstance(value, str):
            raise spec_error(file, f"{key}: expected a column name, found {json.dumps(value)}")
        if value not in table.columns:
            raise spec_error(file, f'{key}: no column "{value}" in table.csv (columns: {", ".join(table.columns)})')
        if numeric and not table.numeric[value]:
            raise spec_error(file, f'{key}: column "{value}" holds text, not numbers')
        return value

    for key in ("panels", "rows", "series"):
        if figure.get(key) is not None:
            column(key, figure[key])
    if kind == "lines":
        column("x", figure["x"], numeric=True)
        y = figure["y"] if isinstance(figure["y"], list) else [figure["y"]]
        if not y:
            raise spec_error(file, "y: expected one or more columns, found an empty list")
        figure["y"] = [column("y", c, numeric=True) for c in y]
    elif kind == "scatter":
        column("x", figure["x"], numeric=True)
        column("y", figure["y"], numeric=True)
    elif kind == "ratio":
        check_ratio(file, figure, table, column)
    else:
        column("x", figure["x"])
        prefix = figure["column"]
        if not isinstance(prefix, str):
            raise spec_error(file, f"column: expected a column prefix, found {json.dumps(prefix)}")
        whiskers = figure["whiskers"] if figure["whiskers"] is not None else list(DEFAULT_WHISKERS)
        if not (isinstance(whiskers, list) and len(whiskers) == 2 and all(isinstance(w, str) for w in whiskers)):
            raise spec_error(file, f"whiskers: expected two stat names such as [\"p1\", \"p99\"], "
                             f"found {json.dumps(whiskers)}")
        figure["whiskers"] = whiskers
        # Lowest to highest: whisker, quartile, median, quartile, whisker.
        figure["stat_columns"] = [column("whiskers" if s in whiskers else "column", f"{prefix}_{s}", numeric=True)
                                  for s in (whiskers[0],) + BOX_STATS + (whiskers[1],)]

    where = figure["where"] if figure["where"] is not None else {}
    if not isinstance(where, dict):
        raise spec_error(file, "where: expected an object, column -> value or list of values")
    figure["where"] = {}
    for name, wanted in where.items():
        column(f"where.{name}", name)
        wanted = wanted if isinstance(wanted, list) else [wanted]
        if not all(isinstance(w, (str, int, float)) for w in wanted):
            raise spec_error(file, f"where.{name}: expected a value or a list of values (strings or numbers)")
        figure["where"][name] = [where_text(w) for w in wanted]
    return Figure(figure)


def check_ratio(file, figure, table, column):
    """Checks a ratio figure's own keys; fills in `reference_key` and `reference_label`, the
    reference's key in the `compare` column and its text. Raises StudyError (status 2) naming
    the file."""
    column("x", figure["x"], numeric=True)
    y = figure["y"]
    if isinstance(y, list):
        if len(y) != 1:
            raise spec_error(file, f"y: a ratio figure takes one column, found {json.dumps(y)}")
        y = y[0]
    figure["y"] = column("y", y, numeric=True)
    factors = table.factor_columns
    if factors is None:
        raise spec_error(file, "cannot tell the factor columns to pair on: sweep.json has no factor_columns "
                               "and table.csv no frames column (the factors are the columns before it)")
    compare = column("compare", figure["compare"])
    if compare not in factors:
        raise spec_error(file, f'compare: "{compare}" is not a factor column (factor columns: {", ".join(factors)})')
    for key in ("x", "panels", "rows"):
        if figure[key] == compare:
            raise spec_error(file, f'compare: "{compare}" is also the figure\'s {key}')
    reference = figure["reference"]
    if isinstance(reference, bool) or not isinstance(reference, (str, int, float)):
        raise spec_error(file, f"reference: expected a value of {compare}, found {json.dumps(reference)}")
    wanted = [where_text(reference)]
    found = [r[compare] for r in table.rows if cell_matches(r[compare], wanted)]
    if not found:
        present = ", ".join(label for _, label in table.values(compare, table.rows))
        raise spec_error(file, f"reference: no row has {compare} = {wanted[0]} ({compare} has {present})")
    figure["reference_key"] = table.key(compare, found[0])
    figure["reference_label"] = found[0]

    pair = figure["pair"] if figure["pair"] is not None else []
    if not isinstance(pair, list):
        raise spec_error(file, f'pair: expected a list of columns such as ["seed"], found {json.dumps(pair)}')
    for name in pair:
        column("pair", name)
        if name not in factors:
            raise spec_error(file, f'pair: "{name}" is not a factor column (factor columns: {", ".join(factors)})')
        taken = [key for key in ("x", "compare", "panels", "rows") if figure[key] == name]
        if taken or pair.count(name) > 1:
            raise spec_error(file, f'pair: "{name}" is also ' + (f"the figure's {taken[0]}" if taken else "in pair"))
    figure["pair"] = pair

    lines = figure["lines"] if figure["lines"] is not None else []
    if not (isinstance(lines, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                            and math.isfinite(v) for v in lines)):
        raise spec_error(file, f"lines: expected a list of numbers such as [1, 0.5], found {json.dumps(lines)}")
    if figure["log_y"] and any(v <= 0 for v in lines):
        raise spec_error(file, f"lines: {json.dumps(lines)} has a value <= 0, which a log y axis cannot show")
    figure["lines"] = lines


def cell_matches(cell, wanted):
    a = parse_number(cell)
    for w in wanted:
        b = parse_number(w)
        if (a == b) if a is not None and b is not None else cell == w:
            return True
    return False


def select_rows(figure, table):
    """The rows `where` keeps; raises StudyError (status 2) when none is left."""
    if not table.rows:
        raise spec_error(figure.file, "table.csv has no rows")
    rows = table.rows
    for name, wanted in figure.where.items():
        kept = [r for r in rows if cell_matches(r[name], wanted)]
        if not kept:
            if not [r for r in table.rows if cell_matches(r[name], wanted)]:
                present = ", ".join(label for _, label in table.values(name, table.rows))
                raise spec_error(figure.file, f"where: no rows left: no row has {name} = "
                                 f"{' or '.join(wanted)} ({name} has {present})")
            clauses = "; ".join(f"{n} = {' or '.join(w)}" for n, w in figure.where.items())
            raise spec_error(figure.file, f"where: no rows left: no row has all of {clauses}")
        rows = kept
    return rows


# --- ratios ----------------------------------------------------------------------------------

class RatioPairs:
    """The pairs of a ratio figure: each row `where` kept with an x value and a `compare` value
    other than the reference, and its ratio to its reference row (None when left out)."""

    def __init__(self):
        self.ratio = {}  # id(row) -> y / reference y, or None when the pair is left out
        self.reference_missing = 0  # left out: the reference row's y is 0 or missing, or no such row
        self.own_missing = 0  # left out: the row's own y is missing

    def left_out_text(self):
        """"K pairs whose reference y is 0 or missing" and the like, or "" when none was left out."""
        parts = []
        if self.reference_missing:
            parts.append(f"{pairs_text(self.reference_missing)} whose reference y is 0 or missing")
        if self.own_missing:
            parts.append(f"{pairs_text(self.own_missing)} whose own y is missing")
        return " and ".join(parts)


def pairs_text(n):
    return f"{n} pair" if n == 1 else f"{n} pairs"


def point_text(figure, row):
    """Where a row's point is, as the figure names it: "entities = 500, scheduler = x, budget = 3000"."""
    columns = [c for c in (figure.rows, figure.panels, figure.compare, figure.x) if c is not None]
    return ", ".join(f"{c} = {row[c] or '(empty)'}" for c in columns)


def pair_ratios(figure, table, rows):
    """The RatioPairs of a ratio figure. A row's reference row is the one of the whole table (so
    `where` may leave the reference's own rows out) with `compare` at the reference and every
    other factor column equal. Raises StudyError (status 2) naming the figure when a factor
    column that is not x, panels, rows, compare or pair varies among the rows of one point (its
    mean would mix that factor's levels), or when two reference rows share every factor value."""
    compare = figure.compare
    matched = [c for c in table.factor_columns if c != compare]
    references = {}
    for r in table.rows:
        if table.key(compare, r[compare]) != figure.reference_key:
            continue
        factors = tuple(table.key(c, r[c]) for c in matched)
        if factors in references:
            same = ", ".join(f"{c} = {r[c] or '(empty)'}" for c in matched)
            raise spec_error(figure.file, f"two rows of {compare} = {figure.reference_label} have {same}: "
                                          f"which one is the reference of the others cannot be told")
        references[factors] = r
    compared = [r for r in rows if table.key(compare, r[compare]) != figure.reference_key
                and table.key(figure.x, r[figure.x]) is not None]
    if not compared:
        raise spec_error(figure.file, f"where leaves no row with an x value and {compare} other than "
                                      f"{figure.reference_label}: nothing to compare")

    named = {figure.x, figure.panels, figure.rows, compare, *figure.pair}
    unnamed = [c for c in table.factor_columns if c not in named]
    first = {}  # (point, column) -> the point's first row
    for r in compared:
        point = tuple(table.key(c, r[c]) if c else None for c in (figure.rows, figure.panels, compare, figure.x))
        for c in unnamed:
            seen = first.setdefault((point, c), r)
            if table.key(c, seen[c]) != table.key(c, r[c]):
                raise spec_error(figure.file, f"{c} varies among the pairs of one point ({point_text(figure, r)}: "
                                              f"{c} = {seen[c] or '(empty)'} and {r[c] or '(empty)'}); "
                                              f"name {c} in where, panels, rows or pair")

    pairs = RatioPairs()
    for r in compared:
        reference = references.get(tuple(table.key(c, r[c]) for c in matched))
        base = table.number(reference, figure.y) if reference is not None else None
        value = table.number(r, figure.y)
        if base is None or base == 0:
            pairs.ratio[id(r)] = None
            pairs.reference_missing += 1
        elif value is None:
            pairs.ratio[id(r)] = None
            pairs.own_missing += 1
        else:
            pairs.ratio[id(r)] = value / base
    return pairs


# --- the means a lines or ratio figure draws ------------------------------------------------

# One mean of a figure: its x (key and table text), the values behind it, their mean and the
# half width of its 95 % interval (NaN when n < 2), and, for a ratio, the pairs left out there.
Mean = collections.namedtuple("Mean", "x x_label n mean half_width left_out")


def line_means(figure, table, series_rows, y_column):
    """The means of one line of a lines figure: y_column over the rows at each x that have it."""
    means = []
    for x_key, x_label in table.values(figure.x, series_rows):
        if x_key is None:
            continue
        values = [v for r in series_rows if table.key(figure.x, r[figure.x]) == x_key
                  for v in [table.number(r, y_column)] if v is not None]
        if values:
            means.append(Mean(x_key, x_label, len(values), *mean_and_half_width(values), 0))
    return means


def ratio_means(figure, table, series_rows, pairs):
    """The means of one series of a ratio figure, one per x value with a pair, also when every
    pair there was left out (n = 0, mean NaN)."""
    means = []
    for x_key, x_label in table.values(figure.x, series_rows):
        if x_key is None:
            continue
        here = [pairs.ratio[id(r)] for r in series_rows if table.key(figure.x, r[figure.x]) == x_key]
        values = [v for v in here if v is not None]
        summary = mean_and_half_width(values) if values else (float("nan"), float("nan"))
        means.append(Mean(x_key, x_label, len(values), *summary, len(here) - len(values)))
    return means


# --- axis labels -----------------------------------------------------------------------------

# Words for the columns a study's table holds, so that an axis says what it shows and in which
# unit rather than a column's name. A metric column is <metric>_<stat> (p_true_mean,
# step_ms_p95): the metric's words, its qualifier (true or estimated, for the pairs drawn on one
# axis), and its unit, or None for a count or a probability whose words say what it counts.
# docs/metrics.md and docs/results.md say what each metric is.
METRIC_WORDS = {
    "p_true": ("perceived error P per frame", "true", None),
    "p_est": ("perceived error P per frame", "estimated", None),
    "p_true_supra": ("suprathreshold perceived error P per frame", "true", None),
    "p_est_supra": ("suprathreshold perceived error P per frame", "estimated", None),
    "p_true_visible": ("visible perceived error P per frame", "true", None),
    "p_est_visible": ("visible perceived error P per frame", "estimated", None),
    "p_episodes_true": ("perceived error P of the episodes ended per frame", "true", None),
    "p_episodes_est": ("perceived error P of the episodes ended per frame", "estimated", None),
    "nabla_true": ("geometric error \u2207 per frame", "true", "m"),
    "nabla_est": ("geometric error \u2207 per frame", "estimated", "m"),
    "nabla_slack_m": ("\u2207 estimate's slack over the truth", None, "m"),
    "collisions": ("collisions per frame", None, None),
    "interrupted": ("collisions interrupted by the budget per frame", None, None),
    "resolved_colliding": ("collisions resolved as colliding per frame", None, None),
    "resolved_not_colliding": ("collisions resolved as not colliding per frame", None, None),
    "false_collisions": ("false collisions per frame", None, None),
    "missed_collisions": ("missed collisions per frame", None, None),
    "sphere_tests": ("sphere tests per frame", None, None),
    "budget_exhausted": ("share of frames that exhausted the budget", None, None),
    "budget_overshoot_us": ("budget overshoot", None, "\u00b5s"),
    "kinetic_energy_j": ("kinetic energy", None, "J"),
    "potential_energy_j": ("potential energy", None, "J"),
    "gaze_collision_deg": ("gaze to the nearest collision", None, "deg"),
    "contacts": ("contacts per frame", None, None),
    "pairs": ("broad-phase pairs per frame", None, None),
    "step_ms": ("step time", None, "ms"),
    "frame_ms": ("frame time", None, "ms"),
    "narrowphase_ms": ("narrow-phase time", None, "ms"),
    "broadphase_ms": ("broad-phase time", None, "ms"),
    "metrics_ms": ("metrics time", None, "ms"),
    "render_ms": ("render time", None, "ms"),
    "evaluate_ms": ("evaluation time", None, "ms"),
}
# The study's own columns (factors and the frame count); budget's words depend on budget_mode.
FACTOR_WORDS = {
    "entities": "number of entities",
    "placement": "entity placement",
    "scheduler": "collision scheduler",
    "seed": "world seed",
    "frames": "frames simulated",
    "budget_mode": "kind of budget",
    "world_tree": "sphere tree",
    "tree": "sphere tree",
    "scene": "scene",
    "viewer": "viewer",
}
BUDGET_WORDS = {"work": "budget (sphere tests per frame)", "wall": "budget (ms per frame)",
                "fraction": "budget (share of full resolution's tests)"}
# Stats whose words follow the metric's ("step time, 95th percentile (ms)"); a mean is how a
# per-frame metric is read, so it adds none.
STAT_WORDS = {"mean": None, "median": "median", "min": "minimum", "max": "maximum"}
STAT_PERCENTILE = re.compile(r"p(\d+)")

ColumnWords = collections.namedtuple("ColumnWords", "quantity qualifier stat unit")


def stat_words(stat):
    """The words of a stat suffix ("median", "95th percentile"), None for a mean; raises
    KeyError for a suffix that is not a stat."""
    if stat in STAT_WORDS:
        return STAT_WORDS[stat]
    match = STAT_PERCENTILE.fullmatch(stat)
    if not match:
        raise KeyError(stat)
    n = int(match.group(1))
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} percentile"


def column_words(column):
    """The ColumnWords of a metric column, <metric> or <metric>_<stat>; None when its metric is
    not in METRIC_WORDS."""
    if column in METRIC_WORDS:
        return ColumnWords(*METRIC_WORDS[column][:2], None, METRIC_WORDS[column][2])
    metric, _, stat = column.rpartition("_")
    if metric in METRIC_WORDS:
        try:
            return ColumnWords(*METRIC_WORDS[metric][:2], stat_words(stat), METRIC_WORDS[metric][2])
        except KeyError:
            return None
    return None


def words_text(words, quantity=True, qualifier=True, unit=True):
    parts = [words.quantity] if quantity else []
    parts += [w for w in ((words.qualifier if qualifier else None), words.stat) if w]
    text = ", ".join(parts)
    return f"{text} ({words.unit})" if unit and words.unit else text


def column_label(column, table=None, rows=None):
    """An axis label in words with its unit: "step time, median (ms)" for step_ms_median,
    "budget (sphere tests per frame)" for budget where the rows' budget_mode is work; the column's
    own name for a column this table does not know."""
    if column == "budget":
        if not (table and "budget_mode" in table.columns):
            return "budget per frame"
        modes = {r.get("budget_mode") for r in rows or []}
        if len(modes) == 1 and next(iter(modes)) in BUDGET_WORDS:
            return BUDGET_WORDS[next(iter(modes))]
        return "budget per frame (unit: see budget_mode)"
    if column in FACTOR_WORDS:
        return FACTOR_WORDS[column]
    words = column_words(column)
    return words_text(words) if words else column


def shared_words(columns):
    """The ColumnWords of columns drawn on one axis when all are known and share their quantity
    and unit, else None."""
    words = [column_words(c) for c in columns]
    if None in words or len({(w.quantity, w.unit) for w in words}) != 1:
        return None
    return words


def columns_label(columns, table=None, rows=None):
    """The label of an axis that holds several columns: their shared quantity and unit, and the
    stat when that is shared too ("perceived error P per frame", "step time (ms)"), the legend
    naming each; else each column's label, joined by "; "."""
    words = shared_words(columns)
    if len(columns) < 2 or words is None:
        return "; ".join(column_label(c, table, rows) for c in columns)
    stat = words[0].stat if len({w.stat for w in words}) == 1 else None
    return words_text(ColumnWords(words[0].quantity, None, stat, words[0].unit))


def legend_column_name(column, columns):
    """A y column's name in the legend of a lines figure with several: what tells it from the
    others when the axis label says the rest ("true", "95th percentile"), else its own label."""
    words = shared_words(columns)
    if words is None:
        return column_label(column)
    mine = column_words(column)
    parts = [mine.qualifier if len({w.qualifier for w in words}) > 1 else None,
             (mine.stat or "mean") if len({w.stat for w in words}) > 1 else None]
    return ", ".join(p for p in parts if p) or column


def ratio_label(figure):
    """A ratio figure's default y label: the quantity without its unit, "ratio to" the reference."""
    words = column_words(figure.y)
    quantity = words_text(words, unit=False) if words else figure.y
    return f"{quantity}: ratio to {figure.reference_label}"


# --- drawing ---------------------------------------------------------------------------------

def subplots(figure, table, rows):
    """(i, j, row label, panel label, rows) of every subplot, row by row: i counts the `rows`
    values, j the `panels` values; a label is None when the figure has no such key."""
    row_values = table.values(figure.rows, rows) if figure.rows else [(None, None)]
    panel_values = table.values(figure.panels, rows) if figure.panels else [(None, None)]
    for i, (row_key, row_label) in enumerate(row_values):
        for j, (panel_key, panel_label) in enumerate(panel_values):
            mine = [r for r in rows
                    if (figure.rows is None or table.key(figure.rows, r[figure.rows]) == row_key)
                    and (figure.panels is None or table.key(figure.panels, r[figure.panels]) == panel_key)]
            yield i, j, row_label, panel_label, mine


class Grid:
    """The subplots of a figure: one row per `rows` value, one column per `panels` value."""

    def __init__(self, plt, figure, table, rows, share_x, share_y):
        self.row_values = table.values(figure.rows, rows) if figure.rows else [(None, None)]
        self.panel_values = table.values(figure.panels, rows) if figure.panels else [(None, None)]
        self.figure_rows = len(self.row_values)
        self.figure_columns = len(self.panel_values)
        self.fig, self.axes = plt.subplots(
            self.figure_rows, self.figure_columns, squeeze=False, sharex=share_x, sharey=share_y,
            figsize=(SUBPLOT_WIDTH_IN * self.figure_columns, SUBPLOT_HEIGHT_IN * self.figure_rows))
        self.spec = figure
        self.table = table
        self.rows = rows

    def cells(self):
        """(axes, label, rows) of every subplot; label is "" for a figure of one subplot."""
        for i, j, row_label, panel_label, mine in subplots(self.spec, self.table, self.rows):
            parts = []
            if self.spec.rows is not None:
                parts.append(f"{self.spec.rows} = {row_label}")
            if self.spec.panels is not None:
                parts.append(f"{self.spec.panels} = {panel_label}")
            yield self.axes[i][j], ", ".join(parts), mine

    def label_axes(self, x_label, y_label):
        """Axis labels on the outer subplots only."""
        for i in range(self.figure_rows):
            for j in range(self.figure_columns):
                ax = self.axes[i][j]
                if i == self.figure_rows - 1:
                    ax.set_xlabel(x_label)
                if j == 0:
                    ax.set_ylabel(y_label)

    def finish(self, legend, legend_title, path, note=None):
        """Title, legend right of the subplots (never over the data), a note under them, and
        the PNG."""
        if self.spec.title:
            self.fig.suptitle(self.spec.title, fontsize=10)
        self.fig.tight_layout()
        if note:
            # Wrapped to the subplots' width (about 17 characters an inch at 7 points), so the
            # note never widens the PNG.
            characters = int(17 * SUBPLOT_WIDTH_IN * self.figure_columns)
            self.fig.text(0.01, 0.0, textwrap.fill(note, characters), fontsize=7, color="0.3", ha="left",
                          va="top", transform=self.fig.transFigure)
        entries = legend.entries()
        if entries:
            self.fig.legend([artist for _, artist in entries], [name for name, _ in entries], title=legend_title,
                            loc="upper left", bbox_to_anchor=(1.0, 0.98 if self.spec.title else 1.0),
                            bbox_transform=self.fig.transFigure, frameon=False)
        save_png(self.fig, path)


def save_png(fig, path):
    """Writes the figure as a PNG of at most 256 colours: a plot has few, and the palette makes
    the file about a third of the full-colour one (a 3 x 4 grid of bands: 70 kB, not 225 kB).
    Pillow, which matplotlib writes its PNGs with, does the quantizing; without it, the PNG is
    full colour."""
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=DPI, bbox_inches="tight", pad_inches=0.08)
    try:
        from PIL import Image
    except ImportError:
        with open(path, "wb") as f:
            f.write(png.getvalue())
        return
    # Median cut keeps the white background exactly white (the fast octree makes it 254).
    median_cut = getattr(Image, "Quantize", Image).MEDIANCUT  # Image.Quantize since Pillow 9.1
    png.seek(0)
    Image.open(png).convert("RGB").quantize(colors=256, method=median_cut).save(path, "PNG", optimize=True)


class Legend:
    """The legend's entries in a fixed order (series by series, then the marks), whichever
    subplot drew each first."""

    def __init__(self, names):
        self.artists = dict.fromkeys(names)

    def add(self, name, artist):
        if self.artists.get(name) is None:
            self.artists[name] = artist

    def entries(self):
        return [(name, artist) for name, artist in self.artists.items() if artist is not None]


def series_column(figure):
    """The column whose values are the figure's series: a ratio figure's `compare`, else
    `series` (None when the figure has none)."""
    return figure.compare if figure.kind == "ratio" else figure.series


def series_of(figure, table, rows):
    """(key, label, colour) of each series value present in `rows` (for a ratio figure, each
    `compare` value but the reference): one of no key, no label and the single colour when the
    figure has no series. Colours follow the value's place in the whole table, so a value keeps
    its colour across subplots and figures, and as a ratio's `compare` value it has the colour
    it has as a lines figure's `series` value."""
    column = series_column(figure)
    if column is None:
        return [(None, None, SINGLE_COLOUR)]
    colour = {k: SERIES_COLOURS[i % len(SERIES_COLOURS)]
              for i, (k, _) in enumerate(table.values(column, table.rows))}
    return [(k, label, colour[k]) for k, label in table.values(column, rows)
            if figure.kind != "ratio" or k != figure.reference_key]


def in_series(figure, table, rows, key):
    """The rows of one series value (all of them when the figure has no series)."""
    column = series_column(figure)
    if column is None:
        return rows
    return [r for r in rows if table.key(column, r[column]) == key]


def finish_subplot(ax, figure, label, drawn):
    """The end of a lines or ratio subplot: its title, grid and log axes, "no data" if empty."""
    if not drawn:
        note_empty(ax)
    ax.set_title(label)
    ax.grid(True, alpha=0.3)
    with warnings.catch_warnings():
        # A subplot whose values are all 0 (no P left at an ample budget) has nothing to put
        # on a log axis; it says "no data" or shows its other series, no warning needed.
        warnings.filterwarnings("ignore", message="Data has no positive values")
        if figure.log_x:
            ax.set_xscale("log")
        if figure.log_y:
            ax.set_yscale("log")


def note_empty(ax):
    ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center", color="0.5")


def tick_at_values(ax, values):
    """Ticks of a log x axis at the study's own x values (1000, 3000, 10000 rather than 10^3,
    10^4) when they are few and far enough apart for their labels not to collide."""
    points = [(k, label) for k, label in values if k is not None and k > 0]
    if not 2 <= len(points) <= 8 or any(b[0] / a[0] < 1.8 for a, b in zip(points, points[1:])):
        return
    ax.set_xticks([k for k, _ in points], [label for _, label in points])
    ax.set_xticks([], minor=True)


def band_edges(means, log_y):
    """The band of a lines figure: (x, low, high, cut) over the means with an interval, low and
    high the 95 % Student-t interval's ends. On a log y axis a mean <= 0 has no band, and a low
    end below the mean / LOG_BAND_DIVISOR (with 3 seeds the interval often reaches 0 or below,
    which a log axis would draw down to its bottom, hiding the other lines) is drawn at that
    floor instead: cut lists the indices so drawn, which the figure marks with a "v"."""
    kept = [m for m in means if not math.isnan(m.half_width) and (m.mean > 0 or not log_y)]
    low = [m.mean - m.half_width for m in kept]
    cut = []
    if log_y:
        for i, m in enumerate(kept):
            if low[i] < m.mean / LOG_BAND_DIVISOR:
                low[i] = m.mean / LOG_BAND_DIVISOR
                cut.append(i)
    return [m.x for m in kept], low, [m.mean + m.half_width for m in kept], cut


def lines_note(counts, clipped):
    """The note under a lines figure: what a line and a band are, n, and the log axis's cut."""
    behind = (f"n = {next(iter(counts))} runs behind every point" if len(counts) == 1
              else f"n = {min(counts)} to {max(counts)} runs behind a point" if counts else "no runs")
    note = f"Lines: the mean over the runs at each point; bands: its 95 % Student-t interval; {behind}."
    if clipped:
        note += (f" On the log y axis, a band whose interval reaches below 1/{LOG_BAND_DIVISOR} of its mean "
                 "(or to 0) is cut there, marked v.")
    return note


def legend_title(figure):
    """The legend's title: the series column in words (None without series)."""
    return column_label(figure.series) if figure.series is not None else None


def draw_lines(plt, figure, table, rows, path, log):
    grid = Grid(plt, figure, table, rows, share_x="all", share_y="row" if figure.log_y else False)
    all_series = series_of(figure, table, rows)

    def entry(series_label, y_column):
        """The legend's name of a line: its series value and, when there are several, its y."""
        y_name = legend_column_name(y_column, figure.y) if len(figure.y) > 1 else None
        return ", ".join(n for n in (series_label, y_name) if n is not None)

    legend = Legend(entry(label, y) for _, label, _ in all_series for y in figure.y)
    clipped, counts = False, set()
    for ax, label, mine in grid.cells():
        drawn = False
        for key, series_label, colour in all_series:
            series_rows = in_series(figure, table, mine, key)
            for k, y_column in enumerate(figure.y):
                means = line_means(figure, table, series_rows, y_column)
                if not means:
                    continue
                drawn = True
                counts.update(m.n for m in means)
                x = [m.x for m in means]
                mean = [m.mean for m in means]
                band_x, low, high, cut = band_edges(means, figure.log_y)
                ax.fill_between(band_x, low, high, color=colour, alpha=BAND_ALPHA, linewidth=0, zorder=1)
                if cut:
                    clipped = True
                    ax.plot([band_x[i] for i in cut], [low[i] for i in cut], linestyle="none", marker="v",
                            markersize=3, color=colour, alpha=0.7, zorder=2)
                (line,) = ax.plot(x, mean, color=colour, linestyle=LINE_STYLES[k % len(LINE_STYLES)],
                                  marker=MARKERS[k % len(MARKERS)], markersize=3.5, linewidth=1.3, zorder=3)
                if entry(series_label, y_column):
                    legend.add(entry(series_label, y_column), line)
        finish_subplot(ax, figure, label, drawn)
    if figure.log_x:
        tick_at_values(grid.axes[0][0], table.values(figure.x, rows))
    grid.label_axes(figure.x_label or column_label(figure.x, table, rows),
                    figure.y_label or columns_label(figure.y, table, rows))
    grid.finish(legend, legend_title(figure), path, note=lines_note(counts, clipped))
    return grid.fig


def draw_distribution(plt, figure, table, rows, path, log):
    grid = Grid(plt, figure, table, rows, share_x="all", share_y="row" if figure.log_y else False)
    categories = table.values(figure.x, rows)
    all_series = series_of(figure, table, rows)
    width = 0.8 / len(all_series)
    legend = Legend(label for _, label, _ in all_series if label is not None)
    counted = []  # (axes, position, n) of every box
    for ax, label, mine in grid.cells():
        drawn = False
        for s, (key, series_label, colour) in enumerate(all_series):
            series_rows = in_series(figure, table, mine, key)
            stats, positions, counts = [], [], []
            for c, (category, _) in enumerate(categories):
                quantiles = [[table.number(r, col) for col in figure.stat_columns]
                             for r in series_rows if table.key(figure.x, r[figure.x]) == category]
                quantiles = [q for q in quantiles if None not in q]
                if not quantiles:
                    continue
                lo, q1, med, q3, hi = (median(column) for column in zip(*quantiles))
                stats.append({"whislo": lo, "q1": q1, "med": med, "q3": q3, "whishi": hi, "fliers": []})
                positions.append(c + (s - (len(all_series) - 1) / 2) * width)
                counts.append(len(quantiles))
            if not stats:
                continue
            drawn = True
            boxes = ax.bxp(stats, positions=positions, widths=width * 0.8, patch_artist=True, showfliers=False,
                           manage_ticks=False, boxprops={"facecolor": colour, "alpha": 0.55, "linewidth": 0.8},
                           medianprops={"color": "black", "linewidth": 1.2},
                           whiskerprops={"color": colour, "linewidth": 1.0},
                           capprops={"color": colour, "linewidth": 1.0})
            counted += [(ax, position, n) for position, n in zip(positions, counts)]
            if series_label is not None:
                legend.add(series_label, boxes["boxes"][0])
        if not drawn:
            note_empty(ax)
        ax.set_title(label)
        ax.grid(True, axis="y", alpha=0.3)
        if figure.log_y:
            ax.set_yscale("log")
    labels = [category_label for _, category_label in categories]
    tilted = sum(len(t) for t in labels) > 36
    for ax in grid.axes.flat:
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=30 if tilted else 0, ha="right" if tilted else "center")
        ax.set_xlim(-0.6, len(labels) - 0.4)
    # One n for every box is said once, in the note; else each box has its own under it,
    # upright when boxes stand side by side.
    counts = {n for _, _, n in counted}
    if len(counts) > 1:
        for ax, position, n in counted:
            ax.text(position, 0.01, f"n={n}", transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                    fontsize=6, color="0.35", rotation=90 if len(all_series) > 2 else 0)
        for ax in grid.axes.flat:
            ax.margins(y=0.18 if len(all_series) > 2 else 0.1)
    behind = f"n = {counts.pop()} runs behind every box" if len(counts) == 1 else "n: the runs behind each box"
    grid.label_axes(figure.x_label or column_label(figure.x, table, rows),
                    figure.y_label or column_label(figure.column, table, rows))
    grid.finish(legend, legend_title(figure), path,
                note=f"Box: {figure.column}_p25 to _p75, line at _median; whiskers: _{figure.whiskers[0]} to "
                     f"_{figure.whiskers[1]}; each the median over the runs behind the box; {behind}.")
    return grid.fig


def draw_scatter(plt, figure, table, rows, path, log):
    # A diagonal subplot gets equal x and y limits from its own points, which shared axes
    # would overwrite with the last subplot's.
    shared = "all" if figure.log and not figure.diagonal else False
    grid = Grid(plt, figure, table, rows, share_x=shared, share_y=shared)
    all_series = series_of(figure, table, rows)
    legend = Legend([label for _, label, _ in all_series if label is not None] + ["y = x", "below the diagonal"])
    for ax, label, mine in grid.cells():
        points, below, skipped = [], [], 0
        for key, series_label, colour in all_series:
            series_rows = in_series(figure, table, mine, key)
            mine_points = []
            for r in series_rows:
                x, y = table.number(r, figure.x), table.number(r, figure.y)
                if x is None or y is None:
                    continue
                if figure.log and (x <= 0 or y <= 0):
                    skipped += 1
                    continue
                mine_points.append((x, y))
            if not mine_points:
                continue
            drawn = ax.scatter([p[0] for p in mine_points], [p[1] for p in mine_points], s=14, color=colour,
                               alpha=0.75, linewidths=0)
            if series_label is not None:
                legend.add(series_label, drawn)
            points += mine_points
        title = [label] if label else []
        if not points:
            note_empty(ax)
        if figure.diagonal:
            below = [(x, y) for x, y in points if y < x * (1 - DIAGONAL_TOLERANCE)]
            if points:
                lo = min(min(p) for p in points)
                hi = max(max(p) for p in points)
                (line,) = ax.plot([lo, hi], [lo, hi], color="0.35", linestyle="--", linewidth=1.0, zorder=1)
                legend.add("y = x", line)
                if figure.log:
                    pad = (hi / lo) ** 0.05 if hi > lo else 2.0
                    limits = (lo / pad, hi * pad)
                else:
                    pad = 0.05 * (hi - lo) if hi > lo else max(abs(hi), 1.0) * 0.05
                    limits = (lo - pad, hi + pad)
                ax.set_xlim(limits)
                ax.set_ylim(limits)
            if below:
                crosses = ax.scatter([p[0] for p in below], [p[1] for p in below], marker="x", s=40,
                                     color=BELOW_DIAGONAL_COLOUR, linewidths=1.5, zorder=5)
                legend.add("below the diagonal", crosses)
            title.append(f"below the diagonal: {len(below)} of {len(points)}")
            log(f"{PREFIX}: figure {figure.file}{', ' + label if label else ''}: "
                f"below the diagonal: {len(below)} of {len(points)}")
        if figure.log:
            ax.set_xscale("log")
            ax.set_yscale("log")
            if skipped:
                title.append(f"{skipped} with a value <= 0 left out")
        ax.set_title("\n".join(title), color=BELOW_DIAGONAL_COLOUR if below else "black")
        ax.grid(True, alpha=0.3)
    grid.label_axes(figure.x_label or column_label(figure.x, table, rows),
                    figure.y_label or column_label(figure.y, table, rows))
    grid.finish(legend, legend_title(figure), path)
    return grid.fig


def dodge(figure, table, rows, count):
    """(x, series index) -> where that series' point at x is drawn: the series set apart along
    x, centred on x, by DODGE of the smallest gap between x values (on a log axis, between their
    logarithms), so that their interval bars do not hide each other."""
    xs = [k for k, _ in table.values(figure.x, rows) if k is not None and (k > 0 or not figure.log_x)]
    scaled = [math.log10(x) for x in xs] if figure.log_x else xs
    gaps = [b - a for a, b in zip(scaled, scaled[1:])]
    step = min(DODGE, 0.6 / count) * (min(gaps) if gaps else 1.0)

    def shift(x, series):
        offset = (series - (count - 1) / 2) * step
        return x * 10 ** offset if figure.log_x else x + offset
    return shift


def plain_log_y_ticks(ax):
    """A ratio's log y axis labelled as plain numbers (0.5, not 5 x 10^-1); within 1.5 decades,
    where a decade's own ticks may be the only ones, the ticks at 2, 3 and 5 too (0.2, 0.3, 0.5)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def plain(value, _):
        return f"{value:g}"

    def leading(value, _):
        mantissa = value / 10 ** math.floor(math.log10(value) + 1e-9)
        return f"{value:g}" if any(abs(mantissa - m) < 1e-6 for m in (2, 3, 5)) else ""
    low, high = ax.get_ylim()
    ax.yaxis.set_major_formatter(FuncFormatter(plain))
    ax.yaxis.set_minor_formatter(FuncFormatter(leading) if high / low < 10 ** 1.5 else NullFormatter())


def draw_ratio(plt, figure, table, rows, path, log):
    pairs = pair_ratios(figure, table, rows)
    # One y axis for every subplot: a ratio means the same everywhere, and the reference lines
    # line up across the figure.
    grid = Grid(plt, figure, table, rows, share_x="all", share_y="all")
    all_series = series_of(figure, table, rows)
    legend = Legend(label for _, label, _ in all_series)
    shift = dodge(figure, table, rows, len(all_series))
    counts = set()
    for ax, label, mine in grid.cells():
        drawn = False
        for s, (key, series_label, colour) in enumerate(all_series):
            means = [m for m in ratio_means(figure, table, in_series(figure, table, mine, key), pairs) if m.n]
            if not means:
                continue
            drawn = True
            counts.update(m.n for m in means)
            x = [shift(m.x, s) for m in means]
            mean = [m.mean for m in means]
            (line,) = ax.plot(x, mean, color=colour, marker="o", markersize=3.5, linewidth=1.3, zorder=3)
            legend.add(series_label, line)
            with_interval = [m for m in means if not math.isnan(m.half_width)]
            if with_interval:
                ax.errorbar([shift(m.x, s) for m in with_interval], [m.mean for m in with_interval],
                            yerr=[m.half_width for m in with_interval], fmt="none", ecolor=colour,
                            elinewidth=1.0, capsize=2.5, capthick=1.0, zorder=3)
        for value in figure.lines:
            ax.axhline(value, color="0.5", linestyle="--", linewidth=0.9, zorder=1)
        finish_subplot(ax, figure, label, drawn)
    # The reference lines' values, right of the last subplot of each row (the axes are shared).
    for row in grid.axes:
        for value in figure.lines:
            row[-1].text(1.02, value, f"{value:g}", transform=row[-1].get_yaxis_transform(), ha="left",
                         va="center", fontsize=7, color="0.35", clip_on=False)
    if figure.log_x:
        tick_at_values(grid.axes[0][0], table.values(figure.x, rows))
    if figure.log_y:
        plain_log_y_ticks(grid.axes[0][0])
    reference = f"{figure.compare} = {figure.reference_label}"
    grid.label_axes(figure.x_label or column_label(figure.x, table, rows), figure.y_label or ratio_label(figure))
    paired = f" (pairs differ in {', '.join(figure.pair)})" if figure.pair else ""
    behind = (f"n = {counts.pop()} pairs behind every point" if len(counts) == 1
              else f"n = {min(counts)} to {max(counts)} pairs behind a point" if counts else "no pairs")
    note = (f"Each point: the mean, over the pairs behind it, of {figure.y} / {figure.y} at {reference} with every "
            f"other factor the same{paired}; bars: its 95 % Student-t interval; {behind}.")
    left_out = pairs.left_out_text()
    if left_out:
        note += f" Left out: {left_out}."
        log(f"{PREFIX}: figure {figure.file}: left out {left_out}")
    grid.finish(legend, column_label(figure.compare), path, note=note)
    return grid.fig


DRAW = {"lines": draw_lines, "distribution": draw_distribution, "scatter": draw_scatter, "ratio": draw_ratio}


# --- the numbers behind a figure ------------------------------------------------------------

def figure_table(figure, table, rows):
    """The numbers a lines or ratio figure draws, as (header, numeric, lines, RatioPairs or None),
    numeric saying which columns hold numbers (to align them right), lines one
    line per subplot (row by row), series, x value and y column, in that order and each in the
    figure's own order, of the row value, the panel value and the series value (each only when
    the figure has that key; in the order of the lines' sorting), x as table.csv writes it, y, n, mean, the 95 % interval's low and high (NaN when
    n < 2) and, for a ratio, the pairs left out there. A ratio's x values where every pair was
    left out are lines too, with n = 0 and a NaN mean."""
    ratio = figure.kind == "ratio"
    pairs = pair_ratios(figure, table, rows) if ratio else None
    keys = [c for c in (figure.rows, figure.panels, series_column(figure)) if c is not None]
    stats = ["n", "mean", "ci_low", "ci_high"] + (["left_out"] if ratio else [])
    header = keys + [figure.x, "y"] + stats
    numeric = [table.numeric[c] for c in keys + [figure.x]] + [False] + [True] * len(stats)
    y_columns = [figure.y] if ratio else figure.y
    lines = []
    for _, _, row_label, panel_label, mine in subplots(figure, table, rows):
        for key, series_label, _ in series_of(figure, table, mine):
            series_rows = in_series(figure, table, mine, key)
            means = {y: {m.x: m for m in (ratio_means(figure, table, series_rows, pairs) if ratio
                                          else line_means(figure, table, series_rows, y))}
                     for y in y_columns}
            labels = [label for label in (row_label, panel_label, series_label) if label is not None]
            for x_key, _ in table.values(figure.x, series_rows):
                for y in y_columns:
                    m = means[y].get(x_key)
                    if m is None:
                        continue
                    lines.append(labels + [m.x_label, y, m.n, m.mean, m.mean - m.half_width, m.mean + m.half_width]
                                 + ([m.left_out] if ratio else []))
    return header, numeric, lines, pairs


def three_digits(value):
    """A number to 3 significant digits, plainly written from 1e-4 to 1e6 ("0.500", "12300"),
    else with an exponent; "" for NaN (no interval from one value, no mean without pairs)."""
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return ""
    if value == 0 or not 1e-4 <= abs(value) < 1e6:
        return f"{value:.3g}"
    magnitude = math.floor(math.log10(abs(value)))
    if math.floor(math.log10(abs(round(value, 2 - magnitude)))) > magnitude:
        magnitude += 1  # 9.996 rounds to 10.0, which has its three digits one place further left
    return f"{round(value, 2 - magnitude):.{max(2 - magnitude, 0)}f}"


def full_precision(value):
    """A number as Python reads it back exactly; "" for NaN."""
    if isinstance(value, int):
        return str(value)
    return "" if math.isnan(value) else repr(value)


def markdown_table(header, lines, numeric):
    """A GitHub table, columns padded to their width, numeric columns aligned right."""
    cells = [header] + [[three_digits(v) if isinstance(v, (int, float)) else v for v in line] for line in lines]
    widths = [max(3, *(len(row[c]) for row in cells)) for c in range(len(header))]

    def text(row):
        return "| " + " | ".join(cell.rjust(w) if right else cell.ljust(w)
                                 for cell, w, right in zip(row, widths, numeric)) + " |\n"
    rule = "|" + "|".join("-" * (w + 1) + ":" if right else "-" * (w + 2) for w, right in zip(widths, numeric)) + "|\n"
    return text(cells[0]) + rule + "".join(text(row) for row in cells[1:])


def csv_table(header, lines):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for line in lines:
        writer.writerow([full_precision(v) if isinstance(v, (int, float)) else v for v in line])
    return out.getvalue()


def study_table(sweep_dir, file, table_format, log):
    """`table`'s output for the figure of SWEEP_DIR/sweep.json whose file is FILE; raises
    StudyError, status 2 for an unknown FILE, a figure kind without a table or a bad spec."""
    specs, factor_columns = read_sweep(sweep_dir)
    found = [i for i, spec in enumerate(specs) if isinstance(spec, dict) and spec.get("file") == file]
    if not found:
        files = [spec["file"] for spec in specs if isinstance(spec, dict) and isinstance(spec.get("file"), str)]
        raise StudyError(f"{PREFIX}: {os.path.join(sweep_dir, 'sweep.json')}: no figure {file} "
                         f"(figures: {', '.join(files) or 'none'})", 2)
    table = Table(os.path.join(sweep_dir, "table.csv"), factor_columns)
    figure = check_figure(found[0], specs[found[0]], table, set())
    if figure.kind not in TABLE_KINDS:
        raise spec_error(file, f"a {figure.kind} figure has no table: table prints the means a "
                               f"{' or '.join(TABLE_KINDS)} figure draws")
    header, numeric, lines, pairs = figure_table(figure, table, select_rows(figure, table))
    if pairs is not None and pairs.left_out_text():
        log(f"{PREFIX}: figure {figure.file}: left out {pairs.left_out_text()}")
    if table_format == "csv":
        return csv_table(header, lines)
    return markdown_table(header, lines, numeric)


# --- the study -------------------------------------------------------------------------------

def read_sweep(sweep_dir):
    """SWEEP_DIR/sweep.json's figure specs (a list, maybe empty) and factor columns (None when
    it does not list them)."""
    sweep_json = os.path.join(sweep_dir, "sweep.json")
    try:
        with open(sweep_json, encoding="utf-8") as f:
            sweep = json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"{PREFIX}: {sweep_json}: cannot read: {e}", 1)
    except json.JSONDecodeError as e:
        raise StudyError(f"{PREFIX}: {sweep_json}:{e.lineno}:{e.colno}: not JSON: {e.msg}", 1)
    if not isinstance(sweep, dict):
        raise StudyError(f"{PREFIX}: {sweep_json}: expected a JSON object", 1)
    factor_columns = sweep.get("factor_columns")
    if factor_columns is not None and not (isinstance(factor_columns, list)
                                           and all(isinstance(c, str) for c in factor_columns)):
        raise StudyError(f"{PREFIX}: {sweep_json}: factor_columns: expected a list of column names", 1)
    specs = sweep.get("figures")
    if specs is None:
        return [], factor_columns
    if not isinstance(specs, list):
        raise StudyError(f"{PREFIX}: {sweep_json}: figures: expected a list of figure objects", 2)
    return specs, factor_columns


def draw_study(sweep_dir, out_dir, log):
    """Checks every figure of SWEEP_DIR/sweep.json, then draws them; returns the PNGs' paths."""
    specs, factor_columns = read_sweep(sweep_dir)
    if not specs:
        return []
    table = Table(os.path.join(sweep_dir, "table.csv"), factor_columns)
    figures, problems = [], []
    for index, spec in enumerate(specs):
        try:
            figure = check_figure(index, spec, table, {f.file for f, _ in figures})
            rows = select_rows(figure, table)
            if figure.kind == "ratio":
                pair_ratios(figure, table, rows)  # its spec errors now, before any figure is drawn
            figures.append((figure, rows))
        except StudyError as e:
            problems.append(str(e))
    if problems:
        raise StudyError("\n".join(problems), 2)

    try:
        import matplotlib
        matplotlib.use("Agg")  # files only: no display, no GUI toolkit
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise StudyError(f"{PREFIX}: {e}: install matplotlib (apt install python3-matplotlib)", 1)
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise StudyError(f"{PREFIX}: {out_dir}: cannot create the figures' folder: {e}", 1)
    written = []
    style = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7,
             "ytick.labelsize": 7, "legend.fontsize": 7, "legend.title_fontsize": 7}
    with plt.rc_context(style):
        for figure, rows in figures:
            path = os.path.join(out_dir, figure.file)
            try:
                plt.close(DRAW[figure.kind](plt, figure, table, rows, path, log))
            except Exception as e:  # matplotlib's own errors, a file that cannot be written
                plt.close("all")
                raise StudyError(f"{PREFIX}: figure {figure.file}: drawing failed: {type(e).__name__}: {e}", 1)
            log(f"{PREFIX}: figure: {path}")
            written.append(path)
    return written


def main(argv=None, prog=None):
    """`fovea_plots.py study`: returns the exit status (0, 1 or 2, as the docstring says)."""
    parser = argparse.ArgumentParser(prog=prog, description="Figures of a fovea sweep, as its sweep.json lists them.")
    parser.add_argument("sweep_dir", metavar="SWEEP_DIR", help="the sweep's folder: sweep.json and table.csv")
    parser.add_argument("--out", metavar="DIR", help="folder for the PNGs (default: SWEEP_DIR/figures)")
    args = parser.parse_args(argv)

    def log(line):
        print(line, file=sys.stderr, flush=True)

    try:
        draw_study(args.sweep_dir, args.out or os.path.join(args.sweep_dir, "figures"), log)
    except StudyError as e:
        log(str(e))
        return e.status
    return 0


def table_main(argv=None, prog=None):
    """`fovea_plots.py table`: prints the table to stdout; returns the exit status (0; 2 for an
    unknown FILE, a figure with no table or a bad spec; 1 for another failure)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="The numbers a lines or ratio figure of a fovea sweep draws, as a table on stdout: one "
                               "line per subplot, series, x value and y column with n, the mean and its 95 % "
                               "Student-t interval (ci_low, ci_high; empty when n < 2) and, for a ratio, the pairs "
                               "left out there.")
    parser.add_argument("sweep_dir", metavar="SWEEP_DIR", help="the sweep's folder: sweep.json and table.csv")
    parser.add_argument("file", metavar="FILE", help="the figure, by its file in sweep.json (e.g. p_ratio.png)")
    parser.add_argument("--format", choices=("markdown", "csv"), default="markdown",
                        help="markdown (default): a GitHub table, numbers to 3 significant digits; "
                             "csv: numbers in full precision")
    args = parser.parse_args(argv)
    try:
        text = study_table(args.sweep_dir, args.file, args.format, lambda line: print(line, file=sys.stderr, flush=True))
    except StudyError as e:
        print(str(e), file=sys.stderr, flush=True)
        return e.status
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    # Figures are drawn through fovea_plots.py; run by itself the module only lists its keys.
    if sys.argv[1:] != ["--keys"]:
        print("usage: study_figures.py --keys   (the figure kinds and their keys; draw through fovea_plots.py study)",
              file=sys.stderr)
        sys.exit(2)
    sys.stdout.write(keys_text())
