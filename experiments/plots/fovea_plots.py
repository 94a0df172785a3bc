#!/usr/bin/env python3
"""fovea's plotting entry point: every figure fovea draws comes from this script.

    python3 experiments/plots/fovea_plots.py fit FIT_JSON [--conditions CSV] [--out DIR] [--stem STEM]
    python3 experiments/plots/fovea_plots.py study SWEEP_DIR [--out DIR]

- `fit`: the plots of a `fovea fit`, <stem>_psychometric.png and <stem>_threshold.png, from its
  <stem>_fit.json and <stem>_conditions.csv; psychometric.py draws them (its docstring and
  docs/cli.md, "fovea fit", say what they show).
- `study`: the figures of a `fovea sweep`, from SWEEP_DIR/table.csv as SWEEP_DIR/sweep.json's
  "figures" list them, into --out (default SWEEP_DIR/figures/); study_figures.py draws them
  (its docstring gives the table's format, every figure key, the lines printed and the exit
  statuses: 0 drawn, 2 a bad figure spec, 1 another failure).

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
    # No known subcommand: argparse prints the usage (and exits 2, or 0 for --help).
    parser = argparse.ArgumentParser(prog=PROG, description="fovea's figures: a fit's plots or a sweep's figures.")
    commands = parser.add_subparsers(dest="command", metavar="{fit,study}", required=True)
    commands.add_parser("fit", help="the plots of a fovea fit (FIT_JSON [--conditions CSV] [--out DIR] [--stem STEM])")
    commands.add_parser("study", help="the figures of a fovea sweep (SWEEP_DIR [--out DIR])")
    parser.parse_args(argv)
    return 2


if __name__ == "__main__":
    sys.exit(main())
