"""Runs and studies read into pandas (docs/python.md, "Runs and studies in pandas").

read_run reads a run's frames.csv, read_study a study's table.csv, each with what its folder
says of it (manifest.json, summary.json, sweep.json) in DataFrame.attrs. Both refuse a folder
that `fovea sweep` would not count as whole, in the command's words: a run's folder is checked
by the sweep's own code (fovea._fovea.check_run_folder, record/run_folder.hpp), a study's
against the fingerprints the sweep writes (fovea._fovea.study_fingerprints).

A damaged or hostile folder raises ResultsError naming the file, and nothing else: every file
is opened without blocking, checked on its descriptor and read within a cap (_read_file);
every JSON file's nesting is bounded before json.loads recurses (_parse_json); every CSV drops
an unfinished last line (_read_csv_text) and is checked to be as long in every row as its
header (_parse_csv). The caps are fovea's own for the same files (docs/formats.md, "What each
reader refuses").

pandas is imported when one of them is called, so `import fovea` works without it.
"""

import array
import csv
import io
import itertools
import json
import os
import stat

from . import _fovea

__all__ = ["ResultsError", "read_run", "read_study"]


class ResultsError(ValueError):
    """A results folder that read_run or read_study refuses: incomplete, damaged, or not the
    study asked for. str() is the message, `folder` the folder, `problem` what is wrong with it
    in the command's words (without the folder's name)."""

    def __init__(self, folder, problem, advice=""):
        super().__init__("%s: %s%s" % (folder, problem, "; " + advice if advice else ""))
        self.folder = folder
        self.problem = problem


# The most of each file the readers read, bytes: fovea's own limits for the same files, so
# Python reads what the program reads. docs/formats.md, "What each reader refuses", lists them.
_MAX_JSON_BYTES = 16 << 20  # manifest.json, summary.json, sweep.json: kMaxResultsJsonBytes, framework/record/json_file.hpp
_MAX_TABLE_BYTES = 256 << 20  # frames.csv, table.csv: kMaxTableFileBytes, framework/core/file_read.hpp
_MAX_CONFIG_BYTES = 1 << 20  # config.yaml: kMaxConfigFileBytes, framework/core/file_read.hpp
# The deepest a JSON file may nest arrays and objects, the top-level object counted as one:
# the limit of fovea's own JSON reader (framework/record/json_file.cpp), checked before
# json.loads recurses (100,000 levels end Python: issue 42). fovea writes at most a few.
_MAX_JSON_DEPTH = 64
# The most of any value from a file a message quotes: kMaxQuotedBytes, framework/core/format.hpp.
_MAX_QUOTED_BYTES = 80

# fovea's CSV writers leave a cell empty for a value that does not apply, and std::to_chars
# writes a NaN that is not left empty as "nan". Nothing else is missing: pandas' default list
# ("NA", "None", "null", ...) would turn factor levels such as "None" into NaN.
_MISSING_CELLS = ["", "nan", "-nan"]


def _pandas():
    try:
        import pandas
    except ImportError as error:
        raise ImportError(
            "fovea.read_run and fovea.read_study need pandas: apt install python3-pandas "
            "(./fovea build installs it), and run Debian's /usr/bin/python3 (./fovea python does)"
        ) from error
    return pandas


def _excerpt(value):
    """`value` (text, or any other JSON value as its JSON) quoted as fovea quotes input
    (core/format's excerpt): control characters escaped, so the message stays one line, and past
    80 bytes its start (never half a UTF-8 character), "..." and its whole length."""
    data = (value if isinstance(value, str) else json.dumps(value)).encode("utf-8", "backslashreplace")
    cut = len(data) > _MAX_QUOTED_BYTES
    keep = _MAX_QUOTED_BYTES - 20 if cut else len(data)
    while cut and keep > 0 and data[keep] & 0xC0 == 0x80:
        keep -= 1
    out = bytearray()
    for byte in data[:keep]:
        if byte in b"\n\t\r":
            out += {0x0A: b"\\n", 0x09: b"\\t", 0x0D: b"\\r"}[byte]
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\x%02x" % byte
        else:
            out.append(byte)
    return out.decode("utf-8", "replace") + ("... (%d bytes)" % len(data) if cut else "")


def _path_or_excerpt(value):
    """A path from a file, quoted whole where it could be one (one printable line of at most
    PATH_MAX, 4096 bytes), so that the command a message gives can be copied; anything else
    as an excerpt."""
    if isinstance(value, str) and value.isprintable() and len(value.encode("utf-8", "backslashreplace")) <= 4096:
        return value
    return _excerpt(value)


def _size_text(size):
    return "%d MiB" % (size >> 20) if size % (1 << 20) == 0 else "%d bytes" % size


def _cannot_read(folder, name, why):
    return ResultsError(folder, "its %s cannot be read (%s: %s)" % (name, os.path.join(folder, name), why))


def _damaged(folder, name, why, words="is damaged", line=None, advice=""):
    where = os.path.join(folder, name) + ("" if line is None else ":%d" % line)
    return ResultsError(folder, "its %s %s (%s: %s)" % (name, words, where, why), advice)


def _read_file(folder, name, limit):
    """The bytes of folder/name, a regular file of at most `limit` bytes; None when there is no
    such file. Opened without blocking (a FIFO answers at once) and checked on the open
    descriptor, so a path swapped after a check is not read; read to at most limit + 1 bytes
    whatever its size said. ResultsError, naming the file, for anything else."""
    path = os.path.join(folder, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        if os.path.lexists(path):  # a symbolic link to nothing is there, and not readable
            raise _cannot_read(folder, name, "a symbolic link to nothing")
        return None
    except OSError as error:
        raise _cannot_read(folder, name, error.strerror or str(error))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise _cannot_read(folder, name, "it is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise _cannot_read(folder, name, "not a regular file (a device, a pipe or a socket)")
        if info.st_size > limit:
            raise _cannot_read(folder, name, "it is %d bytes, more than the %s fovea reads" % (info.st_size, _size_text(limit)))
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise _cannot_read(folder, name, "it grew past the %s fovea reads" % _size_text(limit))
    except OSError as error:
        raise _cannot_read(folder, name, error.strerror or str(error))
    finally:
        os.close(fd)


def _utf8(folder, name, data):
    """`data` as text: fovea writes UTF-8, so anything else is a damaged file."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _damaged(folder, name, "not UTF-8 text: byte %d is 0x%02x" % (error.start, data[error.start]))


# Each byte of a JSON file outside its strings as +1 (an array or object opens), -1 (one
# closes), or nothing.
_JSON_BRACKETS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_NOT_JSON_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _json_deeper_than(data, levels):
    """Whether the JSON text `data` (bytes) nests arrays and objects more than `levels` deep, its
    brackets counted outside its strings: one linear pass, done in C, before anything recurses.
    Exact on JSON; on text that is not JSON, exact up to the first place a JSON reader refuses
    it (in UTF-8, no byte of a longer character is a bracket, a quote or a backslash)."""
    if data.count(b"[") + data.count(b"{") <= levels:
        return False
    # Inside a string a backslash escapes the next character: drop escaped backslashes, then
    # escaped quotes, and every quote left opens or closes a string.
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(data.split(b'"')[0::2]).translate(_JSON_BRACKETS, _NOT_JSON_BRACKETS)
    return max(itertools.accumulate(array.array("b", outside)), default=0) > levels


def _parse_json(folder, name, data):
    """The JSON text `data` (bytes) of folder/name as a value, refused past _MAX_JSON_DEPTH."""
    if _json_deeper_than(data, _MAX_JSON_DEPTH):
        raise _cannot_read(folder, name, "nested deeper than %d levels of arrays and objects, more than fovea reads"
                           % _MAX_JSON_DEPTH)
    text = _utf8(folder, name, data)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:  # JSONDecodeError; an integer of more than 4300 digits
        raise _damaged(folder, name, "not JSON: %s" % _excerpt(str(error)), "is cut short or damaged")


def _read_json(folder, name):
    """The JSON object in folder/name, read by _read_file within _MAX_JSON_BYTES; None where there
    is no such file. ResultsError when it is there but cannot be read or is not a JSON object."""
    data = _read_file(folder, name, _MAX_JSON_BYTES)
    if data is None:
        return None
    value = _parse_json(folder, name, data)
    if not isinstance(value, dict):
        raise ResultsError(folder, "its %s is not a JSON object" % name)
    return value


def _unfinished(folder, name, line, advice=""):
    """The refusal of a CSV whose last line, `line`, has no line end, in record/run_folder's words."""
    return _damaged(folder, name, "its last row has no line end; it was never finished", "is cut short or damaged", line, advice)


def _read_csv_text(folder, name):
    """folder/name's text, read by _read_file within _MAX_TABLE_BYTES, without a last line that
    has no line end, and that line's number (None when the file ends its last line). The one
    rule for fovea's CSVs (record/csv_reader's drop_unfinished_last_line): they are written a
    whole line at a time, so a last line without its newline never finished, and what is there
    (a number cut after a digit: 2228 as 22) must not be read as a value. None when there is no
    such file."""
    data = _read_file(folder, name, _MAX_TABLE_BYTES)
    if data is None:
        return None, None
    text = _utf8(folder, name, data)
    cut_line = None
    if text and not text.endswith("\n"):
        cut_line = text.count("\n") + 1
        text = text[: text.rfind("\n") + 1]
    return text, cut_line


def _parse_csv(pandas, folder, name, text):
    """A CSV's text as a DataFrame, every row as long as the header and the header's names
    distinct (pandas would pad a short row with NaN, take a long first row's extra cell for an
    index, and rename a second `a` to `a.1`): ResultsError otherwise, naming the line."""
    if not text.strip():
        raise ResultsError(folder, "its %s has no header row" % name)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows = 0
    try:
        header = next(reader)
        for row in reader:
            if len(row) != len(header) and not (row == [] and len(header) == 1):  # a blank line: one empty cell
                raise _damaged(folder, name, "this row has %d cells, the header %d" % (len(row), len(header)),
                               "is cut short or damaged", reader.line_num)
            rows += 1
    except csv.Error as error:
        raise _damaged(folder, name, str(error), "is cut short or damaged", reader.line_num)
    if len(set(header)) != len(header) or "" in header:
        raise _damaged(folder, name, "its header names a column twice, or leaves one unnamed")
    try:
        # round_trip: fovea writes the shortest text that reads back to its double
        # (std::to_chars), and pandas' default parser ("high") can land one bit off it.
        table = pandas.read_csv(io.StringIO(text), keep_default_na=False, na_values=_MISSING_CELLS,
                                float_precision="round_trip", index_col=False, skip_blank_lines=False)
    except (ValueError, TypeError, OverflowError, IndexError, KeyError, csv.Error) as error:
        raise _damaged(folder, name, _excerpt(str(error).strip()), "is cut short or damaged")
    if list(table.columns) != header or len(table) != rows:
        raise _damaged(folder, name, "not CSV as fovea writes it (pandas reads %d columns and %d rows, not %d and %d)"
                       % (len(table.columns), len(table), len(header), rows))
    return table


def _config_name(folder):
    """The config's `name` (results/<name>-<time>/), from config.yaml as fovea writes it
    resolved: a top-level `name: text` line. None where there is no config.yaml or no such
    line; ResultsError where config.yaml is there but cannot be read (within 1 MiB, as UTF-8)."""
    data = _read_file(folder, "config.yaml", _MAX_CONFIG_BYTES)
    if data is None:
        return None
    for line in io.StringIO(_utf8(folder, "config.yaml", data), newline=None):
        if line.startswith("name:"):
            return line[len("name:"):].strip().strip("'\"") or None
    return None


def read_run(folder, allow_incomplete=False):
    """A run's frames.csv as a pandas DataFrame, one row a frame, its columns in the file's order.

    Empty cells are NaN; text columns stay str. attrs holds:
      folder, manifest (manifest.json as a dict, None where it could not be read), config (the
      config file the run was given), name (its config's name), seed, git_commit, status
      (the manifest's: completed, interrupted, failed, running), summary (summary.json as a
      dict, None when the run wrote none), complete (True when `fovea sweep` would count the
      run whole), problem (why not, in its words; None when complete) and
      dropped_unfinished_line (True when a last line without its newline was left out).

    A folder `fovea sweep` would not count as a whole run (manifest.json missing, damaged or not
    "completed"; frames.csv missing, cut short or short of the manifest's frames_completed) raises
    ResultsError with the sweep's words, "<folder>: its manifest says interrupted". With
    allow_incomplete=True such a run is read as far as frames.csv goes (a killed run's finished
    frames), without a last line cut short mid-write; a folder with no frames.csv still raises.

    Every file is read within bounds, or refused with ResultsError naming it: a regular file
    (not a folder, a FIFO or a device), frames.csv at most 256 MiB, CSV whose every row is as
    long as its header; manifest.json and summary.json at most 16 MiB, nested at most 64 deep,
    JSON objects; config.yaml at most 1 MiB; all UTF-8.
    """
    pandas = _pandas()
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise ResultsError(folder, "no such folder" if not os.path.exists(folder) else "not a folder")
    verdict, problem, manifest_text = _check_run_folder(folder)
    if verdict != "whole" and not allow_incomplete:
        raise ResultsError(
            folder, problem,
            "read_run(folder, allow_incomplete=True) reads the frames it holds" if verdict == "incomplete" else "")
    text, cut_line = _read_csv_text(folder, "frames.csv")
    if text is None:
        raise ResultsError(folder, "it has no frames.csv")
    # A run the sweep counts whole has a frames.csv whose last line ends; one changed since the
    # check is refused as the check would have. Otherwise the cut line is dropped and said.
    if cut_line is not None and verdict == "whole":
        raise _unfinished(folder, "frames.csv", cut_line)
    frames = _parse_csv(pandas, folder, "frames.csv", text)
    manifest = _parse_json(folder, "manifest.json", manifest_text.encode()) if manifest_text is not None else None
    m = manifest or {}
    frames.attrs.update(
        folder=folder,
        manifest=manifest,
        config=m.get("config"),
        name=_config_name(folder),
        seed=m.get("seed"),
        git_commit=m.get("git_commit"),
        status=m.get("status"),
        summary=_read_json(folder, "summary.json"),
        complete=verdict == "whole",
        problem=problem or None,
        dropped_unfinished_line=cut_line is not None,
    )
    return frames


def _check_run_folder(folder):
    """fovea sweep's check of a run's folder (record/run_folder.hpp): (verdict, problem,
    manifest.json's text). manifest.json is first read here within the bounds of every JSON
    file (size, depth, a regular file), so that one the reader refuses is refused with its
    reason, as a manifest.json the OS does not give ("unreadable"), before the compiled check
    parses it."""
    try:
        data = _read_file(folder, "manifest.json", _MAX_JSON_BYTES)
        if data is not None and _json_deeper_than(data, _MAX_JSON_DEPTH):
            _parse_json(folder, "manifest.json", data)  # raises, saying so
    except ResultsError as refused:
        return "unreadable", refused.problem, None
    return _fovea.check_run_folder(folder)


def read_study(folder, study=None, overrides=None, allow_incomplete=False):
    """A study's table.csv as a pandas DataFrame, one row a run (run, the factors' columns,
    frames, the metrics' columns), as `fovea sweep` or `fovea sweep merge` wrote it.

    Empty cells are NaN; text columns stay str. attrs holds:
      folder, sweep (sweep.json as a dict), study (its name), study_file, fingerprint,
      table_fingerprint, factor_columns, metric_columns, runs_total, runs_completed (the rows a
      sweep wrote; for a merged table runs_present), runs_failed (a list of run indices),
      runs_missing (a merged table's), shard ({"index", "count"}; None for a merged table),
      status (sweep.json's: completed, running, interrupted, failed; "merged" for a merged table
      with every run, "incomplete" for one with runs missing), dropped_unfinished_line (True when
      a last line without its newline was left out).

    Refused with ResultsError: a folder without a readable sweep.json or table.csv; a sweep not
    completed (running, interrupted, failed: `fovea sweep STUDY --out FOLDER` resumes it); one
    shard of a study (merge the shards); a merged table with runs missing. allow_incomplete=True
    reads those tables as they are. When `study` (the study's YAML file, with the `overrides`
    the sweep was given, as fovea.sweep takes them) is given, a folder of another study, or of
    another version of it, is refused whatever allow_incomplete says, in `fovea sweep`'s words.

    Every file is read within bounds, or refused with ResultsError naming it, as read_run's:
    sweep.json (its fields of the types a sweep writes) and table.csv (at most 256 MiB). Unless
    allow_incomplete, table.csv must be whole: its last line ended, the columns sweep.json
    names, a row for each run it counts. allow_incomplete=True drops a last line without its
    newline and says so in attrs["dropped_unfinished_line"].
    """
    pandas = _pandas()
    folder = os.fspath(folder)
    sweep = _read_sweep(folder)
    merged = "merged_from" in sweep
    study_file = _path_or_excerpt(sweep.get("study_file") or "STUDY")
    if study is not None:
        study = os.fspath(study)
        fingerprints = _fovea.study_fingerprints(study, overrides)
        if sweep.get("fingerprint") != fingerprints["fingerprint"]:
            raise ResultsError(
                folder, "it holds another sweep (another study, or another version of this one) than %s" % study)
        if sweep.get("table_fingerprint") != fingerprints["table_fingerprint"]:
            advice = ("merge its shards again once each is resumed with the study as it is now"
                      if merged else "`fovea sweep %s --out %s` summarises its runs again" % (study, folder))
            raise ResultsError(
                folder, "its table.csv was summarised by another version of %s's metrics" % study, advice)
        study_file = study
    status = _study_status(folder, sweep, merged, study_file, allow_incomplete)
    table, cut_line = _read_table(pandas, folder, sweep, allow_incomplete,
                                  "`fovea sweep merge` of its shards' folders writes it again" if merged else
                                  "`fovea sweep %s --out %s` summarises its runs again" % (study_file, folder))
    factor_columns = list(sweep.get("factor_columns") or [])
    table.attrs.update(
        folder=folder,
        sweep=sweep,
        study=sweep.get("study"),
        study_file=sweep.get("study_file"),
        fingerprint=sweep.get("fingerprint"),
        table_fingerprint=sweep.get("table_fingerprint"),
        factor_columns=factor_columns,
        metric_columns=[c for c in sweep["columns"] if c not in ["run", "frames"] + factor_columns],
        runs_total=sweep.get("runs_total"),
        runs_completed=sweep.get("runs_present" if merged else "runs_completed"),
        runs_failed=list(sweep.get("runs_failed") or []),
        runs_missing=list(sweep.get("runs_missing") or []),
        shard=None if merged else sweep.get("shard"),
        status=status,
        dropped_unfinished_line=cut_line is not None,
    )
    return table


# What read_study reads of sweep.json, and what each field must be where it is there and not
# null (docs/studies.md, "sweep.json"); fingerprint and columns must be there.
_SWEEP_FIELDS = {
    "fingerprint": "text", "table_fingerprint": "text", "study": "text", "study_file": "text", "status": "text",
    "columns": "names", "factor_columns": "names",
    "runs_total": "count", "runs_in_shard": "count", "runs_completed": "count", "runs_present": "count",
    "runs_failed": "indices", "runs_missing": "indices", "shard": "shard",
}
_SWEEP_KINDS = {
    "text": "text",
    "names": "a list of column names",
    "count": "a whole number from 0",
    "indices": "a list of run indices (whole numbers from 0)",
    "shard": 'an object {"index": i, "count": n}, i from 0 to n - 1',
}


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_kind(value, kind):
    if kind == "text":
        return isinstance(value, str)
    if kind == "names":
        return isinstance(value, list) and all(isinstance(name, str) for name in value)
    if kind == "count":
        return _whole(value)
    if kind == "indices":
        return isinstance(value, list) and all(_whole(index) for index in value)
    return isinstance(value, dict) and _whole(value.get("index")) and _whole(value.get("count")) and value["index"] < value["count"]


def _read_sweep(folder):
    """sweep.json, every field read_study reads of the kind a sweep writes; ResultsError naming
    the field otherwise (an edited or damaged file, as `fovea sweep merge` refuses one)."""
    sweep = _read_json(folder, "sweep.json")
    if sweep is None or "fingerprint" not in sweep or "columns" not in sweep:
        raise ResultsError(folder, "no readable sweep.json", "expected a fovea sweep's output folder")
    for key, kind in _SWEEP_FIELDS.items():
        value = sweep.get(key)
        if (value is not None or key in ("fingerprint", "columns")) and not _is_kind(value, kind):
            raise _damaged(folder, "sweep.json", "%s: expected %s, found %s" % (key, _SWEEP_KINDS[kind], _excerpt(value)))
    return sweep


def _study_status(folder, sweep, merged, study_file, allow_incomplete):
    """The table's status for attrs; ResultsError, unless allow_incomplete, for a sweep not
    completed, one shard of a study, or a merged table with runs missing."""
    if merged:
        missing = sweep.get("runs_missing") or []
        if missing and not allow_incomplete:
            raise ResultsError(
                folder, "merged with %d of its %s runs missing, the first %s" % (len(missing), sweep.get("runs_total"), missing[0]),
                "a shard not given, unfinished or failed; resume it, then merge again")
        return "incomplete" if missing else "merged"
    status = sweep.get("status") or "unknown"
    shard = sweep.get("shard")
    if allow_incomplete:
        return status
    if status != "completed":
        failed = sweep.get("runs_failed") or []
        done = sweep.get("runs_completed")
        counted = " (%s of %s runs complete%s)" % (
            done, sweep.get("runs_in_shard"), ", %d failed" % len(failed) if failed else "") if done is not None else ""
        running = " (a fovea sweep under way in it, or one killed)" if status == "running" else ""
        raise ResultsError(
            folder, "its sweep.json says %s%s%s" % (_excerpt(status), running, counted),
            "`fovea sweep %s --out %s` (with the --set it was given, if any) resumes it, running what is missing"
            % (study_file, folder))
    if shard is not None and shard["count"] != 1:
        raise ResultsError(
            folder, "shard %d/%d of the study, holding only its runs" % (shard["index"], shard["count"]),
            "`fovea sweep merge` of every shard's folder makes the study's table")
    return status


def _read_table(pandas, folder, sweep, allow_incomplete, again):
    """table.csv as a DataFrame, and the line number of an unfinished last line dropped (None
    when there was none). Unless allow_incomplete, the table must be whole, as the sweep wrote
    it: its last line ended, the columns sweep.json names, a row for each run it counts (the
    rows fewer when the file was cut at a line end); otherwise ResultsError, with `again`, how
    to write it again."""
    text, cut_line = _read_csv_text(folder, "table.csv")
    if text is None:
        raise ResultsError(folder, "it has no table.csv", "a sweep writes it once its runs have ended")
    if cut_line is not None and not allow_incomplete:
        raise _unfinished(folder, "table.csv", cut_line, again)
    table = _parse_csv(pandas, folder, "table.csv", text)
    if allow_incomplete:
        return table, cut_line
    if list(table.columns) != sweep["columns"]:
        raise ResultsError(folder, "its table.csv's columns are not those its sweep.json names", again)
    counted = sweep.get("runs_present" if "merged_from" in sweep else "runs_completed")
    if counted is not None and len(table) != counted:
        raise ResultsError(folder, ("its table.csv holds %d of the %d runs its sweep.json counts" if len(table) < counted else
                                    "its table.csv holds %d runs, its sweep.json counts %d") % (len(table), counted), again)
    return table, cut_line
