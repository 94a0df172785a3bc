#!/usr/bin/python3
"""Bounded reads for fovea's Python tools and study scripts (docs/formats.md, "Development tools").

    from bounded_read import read_bounded, csv_rows

A file is opened without blocking (a FIFO answers at once), checked on the open descriptor (a
path swapped after a check is not read) and read to at most a limit; a CSV's unfinished last
line (a run killed mid-write) is dropped and said, never parsed as a cut number. Used by
experiments/tools/same_records.py, every study script under results/studies/ and
experiments/psychophysics/analyse_clips.py; standard library only. `python3 bounded_read.py --self-test` checks both at their limits (the suite runs it).
"""
import csv
import json
import os
import stat
import sys
import tempfile
from pathlib import Path


def read_bounded(path, limit):
    """The text of `path`, a regular file of at most `limit` bytes. Raises ValueError saying
    why not. Invalid UTF-8 is kept byte for byte (surrogateescape), so two files that differ
    in an invalid byte still read differently."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path}: not a regular file")
        if info.st_size > limit:
            raise ValueError(f"{path}: {info.st_size} bytes, more than the {limit} this reads")
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:
                raise ValueError(f"{path}: grew past {limit} bytes while read")
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", errors="surrogateescape")
    finally:
        os.close(fd)


def csv_rows(path, limit, who):
    """A CSV's rows as dicts, read by read_bounded. An unfinished last line (no newline) is
    dropped and reported on stderr as `who: path: ...`."""
    text = read_bounded(path, limit)
    if text and not text.endswith("\n"):
        print(f"{who}: {path}: its last line is unfinished; left out", file=sys.stderr)
        text = text[: text.rfind("\n") + 1]
    return list(csv.DictReader(text.splitlines()))


# The limits the study scripts and the clip analysis read with (docs/formats.md, "Development
# tools"): far above what fovea writes (a 10,000-frame run's frames.csv is a few MB), small
# enough that a wrong path cannot exhaust memory.
TABLE_LIMIT = 64 << 20    # a study's table.csv, a session's trials.csv
RUN_CSV_LIMIT = 256 << 20  # a run's frames.csv or evaluation.csv
JSON_LIMIT = 1 << 20      # a run's summary.json


def rows_or_exit(path, limit, who):
    """csv_rows, or the program's end with one line `who: reason` when the file cannot be read
    (missing, not a regular file, past `limit`)."""
    try:
        return csv_rows(path, limit, who)
    except (OSError, ValueError) as problem:
        sys.exit(f"{who}: {problem}")


def json_or_exit(path, limit, who):
    """The JSON value of `path` read by read_bounded, or the program's end with one line `who:
    reason` (unreadable, past `limit`, not JSON, nested past Python's recursion limit)."""
    try:
        return json.loads(read_bounded(path, limit))
    except (OSError, ValueError, RecursionError) as problem:
        sys.exit(f"{who}: {path}: {str(problem)[:200]}")


def self_test():
    """read_bounded at and past its limit and on a FIFO, csv_rows on a cut last line: 0 when
    each is read, refused or dropped as it must be."""
    failed = []
    with tempfile.TemporaryDirectory() as folder:
        at, past, fifo, cut = (Path(folder) / n for n in ("at.csv", "past.csv", "fifo.csv", "cut.csv"))
        at.write_text("x" * 1000)
        past.write_text("x" * 1001)
        os.mkfifo(fifo)
        for path, readable in ((at, True), (past, False), (fifo, False)):
            try:
                read_bounded(path, 1000)
                read, why = True, ""
            except ValueError as problem:
                read, why = False, str(problem)
            if read != readable:
                failed.append(f"{path.name} {'read' if read else 'refused: ' + why}")
        cut.write_text("a,b\n1,2228\n3,22")  # the last value cut from 2228
        rows = csv_rows(cut, 1000, "self-test")
        if [r["b"] for r in rows] != ["2228"]:
            failed.append(f"cut.csv read as {rows}")
        # The study scripts' forms: the same refusals as one line and an exit, never a traceback.
        deep = Path(folder) / "deep.json"
        deep.write_text("[" * 100000 + "]" * 100000)
        good = Path(folder) / "good.json"
        good.write_text('{"warmup_frames": 3}')
        for call, path, limit, expected in ((rows_or_exit, at, 1000, None), (rows_or_exit, past, 1000, "more than"),
                                            (rows_or_exit, fifo, 1000, "not a regular file"),
                                            (json_or_exit, good, 1000, None), (json_or_exit, deep, 1 << 20, "recursion"),
                                            (json_or_exit, at, 1000, "Expecting value")):
            try:
                call(path, limit, "self-test")
                outcome = None
            except SystemExit as refused:
                outcome = str(refused.code)
            if (outcome is None) != (expected is None) or (expected and expected not in outcome):
                failed.append(f"{call.__name__}({path.name}): {outcome!r}, expected {expected!r}")
    for f in failed:
        print(f"self-test FAILED: {f}")
    print("self-test: " + ("failed" if failed else
                           "a file at its limit read; past it and a FIFO refused; a cut last line dropped; "
                           "rows_or_exit and json_or_exit refuse in one line"))
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--self-test"]:
        print(__doc__)
        sys.exit(2)
    sys.exit(self_test())
