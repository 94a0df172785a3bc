"""Runs and studies read into pandas (docs/python.md, "Runs and studies in pandas").

read_run reads a run's frames.csv, read_study a study's table.csv, each with what its folder
says of it (manifest.json, summary.json, sweep.json) in DataFrame.attrs. Both refuse a folder
that `fovea sweep` would not count as whole, in the command's words: a run's folder is checked
by the sweep's own code (fovea._fovea.check_run_folder, record/run_folder.hpp), a study's
against the fingerprints the sweep writes (fovea._fovea.study_fingerprints).

pandas is imported when one of them is called, so `import fovea` works without it.
"""

import io
import json
import os

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


def _read_csv(pandas, text):
    # round_trip: fovea writes the shortest text that reads back to its double (std::to_chars),
    # and pandas' default parser ("high") can land one bit off it.
    return pandas.read_csv(io.StringIO(text), keep_default_na=False, na_values=_MISSING_CELLS, float_precision="round_trip")


def _read_json(path):
    """The JSON file at `path` as a dict, or None where there is none; ResultsError when it is
    there but cannot be read or is not a JSON object."""
    try:
        with open(path, encoding="utf-8") as f:
            value = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ResultsError(os.path.dirname(path), "its %s cannot be read (%s)" % (os.path.basename(path), error))
    if not isinstance(value, dict):
        raise ResultsError(os.path.dirname(path), "its %s is not a JSON object" % os.path.basename(path))
    return value


def _config_name(folder):
    """The config's `name` (results/<name>-<time>/), from config.yaml as fovea writes it
    resolved: a top-level `name: text` line. None where there is no such line."""
    try:
        with open(os.path.join(folder, "config.yaml"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("name:"):
                    return line[len("name:"):].strip().strip("'\"") or None
    except OSError:
        pass
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
    """
    pandas = _pandas()
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise ResultsError(folder, "no such folder" if not os.path.exists(folder) else "not a folder")
    verdict, problem, manifest_text = _fovea.check_run_folder(folder)
    if verdict != "whole" and not allow_incomplete:
        raise ResultsError(
            folder, problem,
            "read_run(folder, allow_incomplete=True) reads the frames it holds" if verdict == "incomplete" else "")
    frames_path = os.path.join(folder, "frames.csv")
    try:
        with open(frames_path, encoding="utf-8", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        raise ResultsError(folder, "it has no frames.csv")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsError(folder, "its frames.csv cannot be read (%s)" % error)
    # frames.csv is written a whole row at a time, so a run killed mid-write is rare, but a
    # copy cut short or a full disk leaves a last line without its newline: dropped, as
    # record/csv_reader's drop_unfinished_last_line does.
    dropped = bool(text) and not text.endswith("\n")
    if dropped:
        text = text[: text.rfind("\n") + 1]
    if not text.strip():
        raise ResultsError(folder, "its frames.csv has no header row")
    frames = _read_csv(pandas, text)
    manifest = json.loads(manifest_text) if manifest_text is not None else None
    m = manifest or {}
    frames.attrs.update(
        folder=folder,
        manifest=manifest,
        config=m.get("config"),
        name=_config_name(folder),
        seed=m.get("seed"),
        git_commit=m.get("git_commit"),
        status=m.get("status"),
        summary=_read_json(os.path.join(folder, "summary.json")),
        complete=verdict == "whole",
        problem=problem or None,
        dropped_unfinished_line=dropped,
    )
    return frames


def read_study(folder, study=None, overrides=None, allow_incomplete=False):
    """A study's table.csv as a pandas DataFrame, one row a run (run, the factors' columns,
    frames, the metrics' columns), as `fovea sweep` or `fovea sweep merge` wrote it.

    Empty cells are NaN; text columns stay str. attrs holds:
      folder, sweep (sweep.json as a dict), study (its name), study_file, fingerprint,
      table_fingerprint, factor_columns, metric_columns, runs_total, runs_completed (the rows a
      sweep wrote; for a merged table runs_present), runs_failed (a list of run indices),
      runs_missing (a merged table's), shard ({"index", "count"}; None for a merged table),
      status (sweep.json's: completed, running, interrupted, failed; "merged" for a merged table
      with every run, "incomplete" for one with runs missing).

    Refused with ResultsError: a folder without a readable sweep.json or table.csv; a sweep not
    completed (running, interrupted, failed: `fovea sweep STUDY --out FOLDER` resumes it); one
    shard of a study (merge the shards); a merged table with runs missing. allow_incomplete=True
    reads those tables as they are. When `study` (the study's YAML file, with the `overrides`
    the sweep was given, as fovea.sweep takes them) is given, a folder of another study, or of
    another version of it, is refused whatever allow_incomplete says, in `fovea sweep`'s words.
    """
    pandas = _pandas()
    folder = os.fspath(folder)
    sweep = _read_json(os.path.join(folder, "sweep.json"))
    if sweep is None or "fingerprint" not in sweep or "columns" not in sweep:
        raise ResultsError(folder, "no readable sweep.json", "expected a fovea sweep's output folder")
    merged = "merged_from" in sweep
    study_file = sweep.get("study_file", "STUDY")
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
    shard = sweep.get("shard")
    if merged:
        missing = sweep.get("runs_missing") or []
        status = "incomplete" if missing else "merged"
        if missing and not allow_incomplete:
            raise ResultsError(
                folder, "merged with %d of its %s runs missing, the first %s" % (len(missing), sweep.get("runs_total"), missing[0]),
                "a shard not given, unfinished or failed; resume it, then merge again")
    else:
        status = sweep.get("status", "unknown")
        if not allow_incomplete:
            if status != "completed":
                failed = sweep.get("runs_failed") or []
                done = sweep.get("runs_completed")
                counted = " (%s of %s runs complete%s)" % (
                    done, sweep.get("runs_in_shard"), ", %d failed" % len(failed) if failed else "") if done is not None else ""
                running = " (a fovea sweep under way in it, or one killed)" if status == "running" else ""
                raise ResultsError(
                    folder, "its sweep.json says %s%s%s" % (status, running, counted),
                    "`fovea sweep %s --out %s` (with the --set it was given, if any) resumes it, running what is missing"
                    % (study_file, folder))
            if isinstance(shard, dict) and shard.get("count", 1) != 1:
                raise ResultsError(
                    folder, "shard %s/%s of the study, holding only its runs" % (shard.get("index"), shard.get("count")),
                    "`fovea sweep merge` of every shard's folder makes the study's table")
    table_path = os.path.join(folder, "table.csv")
    try:
        with open(table_path, encoding="utf-8", newline="") as f:
            text = f.read()
    except FileNotFoundError:
        raise ResultsError(folder, "it has no table.csv", "a sweep writes it once its runs have ended")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsError(folder, "its table.csv cannot be read (%s)" % error)
    table = _read_csv(pandas, text)
    factor_columns = list(sweep.get("factor_columns") or [])
    table.attrs.update(
        folder=folder,
        sweep=sweep,
        study=sweep.get("study"),
        study_file=sweep.get("study_file"),
        fingerprint=sweep.get("fingerprint"),
        table_fingerprint=sweep.get("table_fingerprint"),
        factor_columns=factor_columns,
        metric_columns=[c for c in sweep.get("columns", []) if c not in ["run", "frames"] + factor_columns],
        runs_total=sweep.get("runs_total"),
        runs_completed=sweep.get("runs_present" if merged else "runs_completed"),
        runs_failed=list(sweep.get("runs_failed") or []),
        runs_missing=list(sweep.get("runs_missing") or []),
        shard=None if merged else shard,
        status=status,
    )
    return table
