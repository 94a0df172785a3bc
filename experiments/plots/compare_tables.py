#!/usr/bin/env python3
"""Compare two tables of `fovea sweep` (or any two CSV files with a `run` column) cell by cell.

    python3 experiments/plots/compare_tables.py A/table.csv B/table.csv [--where COLUMN=VALUE ...]
                                                [--ignore REGEX]

Rows are matched by their `run` column; columns by name. Columns whose name matches --ignore
(default: wall-clock columns, names holding `_ms` or `_us` as a word part, such as
`step_ms_p99` or `budget_overshoot_us_max`) are left out, and so are rows not matching every
--where (e.g. `--where budget_mode=work`: runs under a wall-clock budget stop where the clock
says, so nothing of theirs repeats). Prints what was compared and the first differing cells;
exits 0 when every compared cell is the same text, 1 when one differs or a row or column is
in one table only, 2 for bad arguments. Standard library only: no matplotlib needed.
"""

import argparse
import csv
import re
import sys


def read(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        if "run" not in header:
            sys.exit(f"{path}: no run column")
        rows = {}
        for row in reader:
            rows[row[header.index("run")]] = dict(zip(header, row))
        return header, rows


def main(argv=None):
    parser = argparse.ArgumentParser(description="Compare two sweep tables cell by cell (docs/studies.md).")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                        help="compare only rows whose COLUMN is VALUE in table A (repeatable)")
    parser.add_argument("--ignore", default=r"_(ms|us)(_|$)",
                        help="leave out columns whose name matches this regular expression "
                             "(default: the wall-clock columns)")
    args = parser.parse_args(argv)
    conditions = []
    for w in args.where:
        if "=" not in w:
            parser.error(f"--where {w}: expected COLUMN=VALUE")
        conditions.append(tuple(w.split("=", 1)))
    header_a, rows_a = read(args.a)
    header_b, rows_b = read(args.b)
    ignore = re.compile(args.ignore)
    problems = []
    only_a = [c for c in header_a if c not in header_b]
    only_b = [c for c in header_b if c not in header_a]
    if only_a or only_b:
        problems.append(f"columns in one table only: {only_a + only_b}")
    columns = [c for c in header_a if c in header_b and not ignore.search(c)]
    ignored = [c for c in header_a if c in header_b and ignore.search(c)]
    kept = [r for r, row in rows_a.items() if all(row.get(c) == v for c, v in conditions)]
    kept_b = [r for r, row in rows_b.items() if all(row.get(c) == v for c, v in conditions)]
    missing = sorted(set(kept) ^ set(kept_b), key=lambda r: int(r) if r.isdigit() else r)
    if missing:
        problems.append(f"{len(missing)} runs in one table only, the first {missing[0]}")
    differing = []
    for r in kept:
        if r not in rows_b:
            continue
        for c in columns:
            if rows_a[r][c] != rows_b[r][c]:
                differing.append((r, c, rows_a[r][c], rows_b[r][c]))
    print(f"compared {len(kept)} runs x {len(columns)} columns ({len(ignored)} wall-clock columns left out); "
          f"{len(differing)} cells differ")
    for r, c, x, y in differing[:10]:
        print(f"  run {r}, {c}: {x} against {y}")
    for p in problems:
        print(p)
    return 1 if differing or problems else 0


if __name__ == "__main__":
    sys.exit(main())
