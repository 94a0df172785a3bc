"""Figures of a `fovea sweep` study, drawn from its table.csv as its sweep.json asks.

`fovea sweep` runs this through the one plotting entry point after writing its outputs; it can
also be run by hand on a finished sweep:

    python3 experiments/plots/fovea_plots.py study SWEEP_DIR [--out DIR]

It reads SWEEP_DIR/sweep.json and SWEEP_DIR/table.csv and draws every figure listed in
sweep.json's "figures" as a PNG into --out (default SWEEP_DIR/figures/, created when there is
a figure to draw). It prints one line per file written to stderr,

    fovea sweep: figure: runs/cost/figures/step_time.png

and, for a scatter figure with "diagonal", one line per subplot,

    fovea sweep: figure est_vs_true.png, placement = packed: below the diagonal: 2 of 36

Exit status: 0 when every figure was drawn, also when sweep.json has no "figures" or an empty
list (then nothing is written); 2 when a figure's spec is bad, with one line per bad figure
naming its file and the problem (an unknown kind, key or column, a missing key, a value of the
wrong type, a text column where numbers are needed, no rows left after "where"), and then no
figure is drawn; 1 on any other failure (a file missing or unreadable, matplotlib missing).

table.csv
---------
Plain CSV with a header row, one row per run: `run` (the run's index), the study's factor
columns (e.g. `entities`, `placement`, `scheduler`, `budget_mode`, `budget`, `seed`), `frames`,
then metric columns named <metric>_<stat> (e.g. `p_true_mean`, `step_ms_p5`, `step_ms_p25`,
`step_ms_median`, `step_ms_p75`, `step_ms_p95`, `step_ms_max`). An empty cell is a missing
value; a column is numeric when every non-empty cell is a number. A column's values are taken
in numeric order when it is numeric, else in the order they first appear in the table (the
order the study lists them); the colour of a series value is fixed by that order over the
whole table, so it is the same in every subplot and every figure.

Figure keys
-----------
A figure is a JSON object. Every kind takes:

- `file` (required): the PNG's file name, ending in .png, no folder; unique in the list.
- `kind` (required): `lines`, `distribution` or `scatter`.
- `title`: the figure's title, above all its subplots.
- `where`: an object, column -> value or list of values; a row is kept when, for every
  column named, its cell equals one of the values (as numbers when both parse as numbers,
  so 3000 matches "3000" and "3e3", else as text). No row left is an error.
- `panels`: a column; one subplot column per distinct value.
- `rows`: a column; one subplot row per distinct value.
- `series`: a column; one colour per distinct value, named in the legend (right of the plots).

Any other key is an error, so that a misspelt one does not pass unnoticed. An empty cell in a
`panels`, `rows`, `series` or category column is a value of its own, shown as "(empty)".

`lines`: the mean of y against x, over the runs that share a subplot, a series and an x value
(e.g. over the seeds), with markers at the means and a shaded 95 % Student-t interval of the
mean (n - 1 degrees of freedom; none when n < 2). A row with x or y missing is left out of
that mean.

- `x` (required): a numeric column.
- `y` (required): a list of one or more numeric columns (a single name is taken as a list of
  one); several are drawn in the series' colour with different line styles and markers, the
  legend naming "series value, column".
- `log_x`, `log_y`: booleans (default false), logarithmic axes. On a log x axis with at most
  8 values, each at least 1.8 times the previous, the ticks are the values themselves.
- `x_label`, `y_label`: the axis labels (default the column names).

`distribution`: boxes of a quantity whose quantiles each run wrote, one box per category.

- `x` (required): a column whose values are the categories along the x axis (e.g. scheduler).
- `column` (required): a prefix P: the box spans P_p25 to P_p75 with a line at P_median, the
  whiskers reach P_p5 and P_p95. Each of these is the median, over the rows behind the box,
  of that column (rows missing one of them are left out). Under the figure, a note says what
  the box and whiskers are and n, the number of rows behind each box: once when every box has
  the same n, else n is written under each box.
- `whiskers`: two stat names for the whiskers instead, e.g. ["p1", "p99"] for P_p1 and P_p99.
- `log_y`: boolean (default false); `x_label`, `y_label`: the axis labels (default `x`, P).

`scatter`: one point per run with both x and y; N below counts these points.

- `x`, `y` (required): numeric columns.
- `diagonal`: boolean (default false): draw y = x across the data's range, on equal axes. A
  point with y < x (1 - 1e-9) is below it: such points are drawn again as red crosses on top,
  and each subplot's title says "below the diagonal: K of N" (K may be 0; red when K > 0).
- `log`: boolean (default false): both axes logarithmic; points with a value <= 0 are left out
  and the subplot's title says how many.
- `x_label`, `y_label`: the axis labels (default the column names).

Subplots share an axis where it holds the same thing on the same scale: the x axis of lines
and distribution figures always, a logarithmic y axis along a row of subplots, both axes of a
logarithmic scatter without a diagonal; a linear y axis is each subplot's own, so small values
in one panel are not flattened by large ones in another, and so are both axes of a linear
scatter and the equal axes of a scatter with a diagonal. PNGs are drawn at 100 dpi, about
3.2 x 2.6 inches per subplot, in at most 256 colours (tens of kB each).

Example sweep.json "figures":

    [{"file": "step_time.png", "kind": "lines", "x": "budget", "y": ["step_ms_median"],
      "series": "scheduler", "panels": "entities", "rows": "placement", "log_x": true,
      "where": {"budget_mode": "work"}, "title": "step time against the work budget"},
     {"file": "step_spread.png", "kind": "distribution", "x": "scheduler", "column": "step_ms",
      "panels": "entities", "log_y": true},
     {"file": "p_est_vs_true.png", "kind": "scatter", "x": "p_true_mean", "y": "p_est_mean",
      "series": "scheduler", "panels": "placement", "diagonal": true}]
"""

import argparse
import csv
import io
import json
import math
import os
import re
import sys
import textwrap

PREFIX = "fovea sweep"

KINDS = ("lines", "distribution", "scatter")
COMMON_KEYS = ("file", "kind", "title", "where", "panels", "rows", "series")
KIND_KEYS = {
    "lines": ("x", "y", "log_x", "log_y", "x_label", "y_label"),
    "distribution": ("x", "column", "whiskers", "log_y", "x_label", "y_label"),
    "scatter": ("x", "y", "diagonal", "log", "x_label", "y_label"),
}
REQUIRED_KEYS = {"lines": ("x", "y"), "distribution": ("x", "column"), "scatter": ("x", "y")}
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
    """table.csv: the header, the rows as dicts of cell text, and which columns are numeric."""

    def __init__(self, path):
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
        if figure[key] is not None:
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


# --- drawing ---------------------------------------------------------------------------------

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
        spec, table = self.spec, self.table
        for i, (row_key, row_label) in enumerate(self.row_values):
            for j, (panel_key, panel_label) in enumerate(self.panel_values):
                mine = [r for r in self.rows
                        if (spec.rows is None or table.key(spec.rows, r[spec.rows]) == row_key)
                        and (spec.panels is None or table.key(spec.panels, r[spec.panels]) == panel_key)]
                parts = []
                if spec.rows is not None:
                    parts.append(f"{spec.rows} = {row_label}")
                if spec.panels is not None:
                    parts.append(f"{spec.panels} = {panel_label}")
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


def series_of(figure, table, rows):
    """(key, label, colour) of each series value present in `rows`: one of no key, no label
    and the single colour when the figure has no series. Colours follow the value's place in
    the whole table, so a value keeps its colour across subplots and figures."""
    if figure.series is None:
        return [(None, None, SINGLE_COLOUR)]
    colour = {k: SERIES_COLOURS[i % len(SERIES_COLOURS)]
              for i, (k, _) in enumerate(table.values(figure.series, table.rows))}
    return [(k, label, colour[k]) for k, label in table.values(figure.series, rows)]


def in_series(figure, table, rows, key):
    """The rows of one series value (all of them when the figure has no series)."""
    if figure.series is None:
        return rows
    return [r for r in rows if table.key(figure.series, r[figure.series]) == key]


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


def draw_lines(plt, figure, table, rows, path, log):
    grid = Grid(plt, figure, table, rows, share_x="all", share_y="row" if figure.log_y else False)
    all_series = series_of(figure, table, rows)

    def entry(series_label, y_column):
        """The legend's name of a line: its series value and, when there are several, its y."""
        names = [n for n in (series_label, y_column if len(figure.y) > 1 else None) if n is not None]
        return ", ".join(names)

    legend = Legend(entry(label, y) for _, label, _ in all_series for y in figure.y)
    for ax, label, mine in grid.cells():
        drawn = False
        for key, series_label, colour in all_series:
            series_rows = in_series(figure, table, mine, key)
            for k, y_column in enumerate(figure.y):
                points = []
                for x_key, _ in table.values(figure.x, series_rows):
                    if x_key is None:
                        continue
                    values = [v for r in series_rows if table.key(figure.x, r[figure.x]) == x_key
                              for v in [table.number(r, y_column)] if v is not None]
                    if values:
                        points.append((x_key,) + mean_and_half_width(values))
                if not points:
                    continue
                drawn = True
                x = [p[0] for p in points]
                mean = [p[1] for p in points]
                low = [p[1] - p[2] for p in points]
                high = [p[1] + p[2] for p in points]
                ax.fill_between(x, low, high, color=colour, alpha=0.18, linewidth=0)
                (line,) = ax.plot(x, mean, color=colour, linestyle=LINE_STYLES[k % len(LINE_STYLES)],
                                  marker=MARKERS[k % len(MARKERS)], markersize=3.5, linewidth=1.3)
                if entry(series_label, y_column):
                    legend.add(entry(series_label, y_column), line)
        if not drawn:
            note_empty(ax)
        ax.set_title(label)
        ax.grid(True, alpha=0.3)
        if figure.log_x:
            ax.set_xscale("log")
        if figure.log_y:
            ax.set_yscale("log")
    if figure.log_x:
        tick_at_values(grid.axes[0][0], table.values(figure.x, rows))
    grid.label_axes(figure.x_label or figure.x, figure.y_label or ", ".join(figure.y))
    grid.finish(legend, figure.series, path)
    plt.close(grid.fig)


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
    grid.label_axes(figure.x_label or figure.x, figure.y_label or figure.column)
    grid.finish(legend, figure.series, path,
                note=f"Box: {figure.column}_p25 to _p75, line at _median; whiskers: _{figure.whiskers[0]} to "
                     f"_{figure.whiskers[1]}; each the median over the runs behind the box; {behind}.")
    plt.close(grid.fig)


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
    grid.label_axes(figure.x_label or figure.x, figure.y_label or figure.y)
    grid.finish(legend, figure.series, path)
    plt.close(grid.fig)


DRAW = {"lines": draw_lines, "distribution": draw_distribution, "scatter": draw_scatter}


# --- the study -------------------------------------------------------------------------------

def read_figure_specs(sweep_json):
    try:
        with open(sweep_json, encoding="utf-8") as f:
            sweep = json.load(f)
    except (OSError, UnicodeDecodeError) as e:
        raise StudyError(f"{PREFIX}: {sweep_json}: cannot read: {e}", 1)
    except json.JSONDecodeError as e:
        raise StudyError(f"{PREFIX}: {sweep_json}:{e.lineno}:{e.colno}: not JSON: {e.msg}", 1)
    if not isinstance(sweep, dict):
        raise StudyError(f"{PREFIX}: {sweep_json}: expected a JSON object", 1)
    specs = sweep.get("figures")
    if specs is None:
        return []
    if not isinstance(specs, list):
        raise StudyError(f"{PREFIX}: {sweep_json}: figures: expected a list of figure objects", 2)
    return specs


def draw_study(sweep_dir, out_dir, log):
    """Checks every figure of SWEEP_DIR/sweep.json, then draws them; returns the PNGs' paths."""
    specs = read_figure_specs(os.path.join(sweep_dir, "sweep.json"))
    if not specs:
        return []
    table = Table(os.path.join(sweep_dir, "table.csv"))
    figures, problems = [], []
    for index, spec in enumerate(specs):
        try:
            figure = check_figure(index, spec, table, {f.file for f, _ in figures})
            figures.append((figure, select_rows(figure, table)))
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
                DRAW[figure.kind](plt, figure, table, rows, path, log)
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
