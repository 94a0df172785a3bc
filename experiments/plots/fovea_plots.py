#!/usr/bin/env python3
"""fovea's plotting entry point: every figure fovea draws comes from this script.

    python3 experiments/plots/fovea_plots.py fit FIT_JSON [--conditions CSV] [--out DIR] [--stem STEM]
    python3 experiments/plots/fovea_plots.py study SWEEP_DIR [--out DIR]
    python3 experiments/plots/fovea_plots.py table SWEEP_DIR FILE [--format markdown|csv]

- `fit`: the plots of a `fovea fit`, <stem>_psychometric.png and <stem>_threshold.png, from its
  <stem>_fit.json and <stem>_conditions.csv; psychometric.py draws them (its docstring and
  docs/cli.md, "fovea fit", say what they show).
- `study`: the figures of a `fovea sweep`, from SWEEP_DIR/table.csv as SWEEP_DIR/sweep.json's
  "figures" list them, into --out (default SWEEP_DIR/figures/); study_figures.py draws them
  (its docstring gives the table's format, every figure key, the lines printed and the exit
  statuses: 0 drawn, 2 a bad figure spec, 1 another failure).
- `table`: the numbers the lines or ratio figure whose file is FILE draws, on stdout: one line
  per subplot, series, x value and y column with the subplot's row and panel values, the
  series, x, y, n, the mean, the 95 % Student-t interval's ci_low and ci_high (empty when
  n < 2) and, for a ratio, left_out (its pairs left out there). Markdown (default) is a GitHub
  table with numbers to 3 significant digits, to quote a figure's numbers in a results README
  by a command anyone can run; csv has them in full precision. Exit status 2 for a FILE
  sweep.json does not list, a distribution or scatter figure (no means to print) or a bad
  spec; 1 for another failure. For example:

      python3 experiments/plots/fovea_plots.py table results/studies/schedulers p_ratio_work.png

The two modules are imported from this script's own folder, so a copy installed beside the
fovea binary works as the source tree's does. Needs matplotlib (and numpy); draws with the
Agg backend, so no display is needed.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import psychometric  # noqa: E402  (found through the path set just above)
import study_figures  # noqa: E402

PROG = os.path.basename(sys.argv[0]) or "fovea_plots.py"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "fit":
        psychometric.main(argv[1:], prog=f"{PROG} fit")
        return 0
    if argv and argv[0] == "study":
        return study_figures.main(argv[1:], prog=f"{PROG} study")
    if argv and argv[0] == "table":
        return study_figures.table_main(argv[1:], prog=f"{PROG} table")
    # No known subcommand: argparse prints the usage (and exits 2, or 0 for --help).
    parser = argparse.ArgumentParser(prog=PROG, description="fovea's figures: a fit's plots, a sweep's figures, "
                                                            "and the numbers behind a sweep's figure.")
    commands = parser.add_subparsers(dest="command", metavar="{fit,study,table}", required=True)
    commands.add_parser("fit", help="the plots of a fovea fit (FIT_JSON [--conditions CSV] [--out DIR] [--stem STEM])")
    commands.add_parser("study", help="the figures of a fovea sweep (SWEEP_DIR [--out DIR])")
    commands.add_parser("table", help="the numbers a sweep's lines or ratio figure draws, as a markdown or CSV table "
                                      "(SWEEP_DIR FILE [--format markdown|csv])")
    parser.parse_args(argv)
    return 2


if __name__ == "__main__":
    sys.exit(main())
