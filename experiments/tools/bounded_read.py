#!/usr/bin/python3
"""Bounded reads for fovea's Python tools and study scripts (docs/formats.md, "Development tools").

    from bounded_read import read_bounded, csv_rows

A file is opened without blocking (a FIFO answers at once), checked on the open descriptor (a
path swapped after a check is not read) and read to at most a limit; a CSV's unfinished last
line (a run killed mid-write) is dropped and said, never parsed as a cut number. Used by
experiments/tools/same_records.py and results/studies/realtime/realtime.py; standard library
only. `python3 bounded_read.py --self-test` checks both at their limits (the suite runs it).
"""
import csv
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
    for f in failed:
        print(f"self-test FAILED: {f}")
    print("self-test: " + ("failed" if failed else
                           "a file at its limit read; past it and a FIFO refused; a cut last line dropped"))
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--self-test"]:
        print(__doc__)
        sys.exit(2)
    sys.exit(self_test())
