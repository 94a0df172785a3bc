#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/csv_writer.hpp"

namespace fovea {

/// A moment on the system (calendar) clock, for folder names and manifests; not for durations.
using WallTime = std::chrono::system_clock::time_point;

/// "20261121T040536Z": UTC, sortable, safe in file names.
std::string utc_compact(WallTime t);
/// "2026-11-21T04:05:36.123Z": ISO 8601 UTC with milliseconds, for manifests.
std::string utc_iso8601(WallTime t);

/// Creates `parent`/<name>-<UTC time>/ (with -2, -3, ... when two runs start in the same
/// second) and returns it. Throws std::runtime_error.
std::filesystem::path create_run_folder(const std::filesystem::path& parent, const std::string& name, WallTime t);

/// Creates the folder a user named with --out (or, from Python, record=: `option` names it
/// in messages). It may exist only as an empty folder, so an earlier run's results are never
/// mixed with or overwritten by a new one.
std::filesystem::path create_named_run_folder(const std::filesystem::path& out, const char* option = "--out");

/// Creates `folder` and the folders above it that are missing. Throws std::runtime_error
/// "<folder>: cannot create the folder: <the OS's reason>".
void create_folders(const std::filesystem::path& folder);

/// Whether a file can be written at `path` as the writers below write it (a temporary beside
/// it, renamed over it), asked before work that would be lost if it could not: "" when it
/// can, else the OS's reason ("Not a directory" for a path under a file, "Is a directory" for
/// a folder where the file would go, "No such file or directory" for a folder that is
/// missing, "Permission denied" or "Read-only file system" for a folder that takes no new
/// file). So a read-only file in a folder that can be written passes (the rename replaces
/// it), and a file that can be written in a folder that cannot fails. Nothing is left
/// changed: a file of a name of its own is created in the folder and removed.
std::string file_write_problem(const std::filesystem::path& path);

/// The same for a folder that files are to be written into: "" when it is a folder a file can
/// be created in, or is missing and can be created (as create_folders would; the first
/// missing folder on the way is made and removed).
std::string folder_write_problem(const std::filesystem::path& folder);

/// Writes `text` to `path` through a temporary file (`<path>.tmp`) and a rename, so readers
/// (and a run killed mid-write) see the old whole file or the new whole file, never half of
/// one. Throws std::runtime_error "<path>: cannot write: <the OS's reason>" (a full disk, a
/// folder that cannot be written); a write that fails leaves the file as it was and removes
/// its temporary.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

/// `json` indented by 2 with a final newline, written atomically as above (manifest.json,
/// summary.json, a fit's JSON, sweep.json).
void write_json_atomically(const std::filesystem::path& path, const nlohmann::ordered_json& json);

/// A CSV file of `columns` whose rows `write_rows` writes, made durable (fsync) under
/// `<path>.partial` and then renamed to `path`: a reader sees the old whole table or the new
/// whole table, never part of one (a sweep's table.csv, a fit's conditions). Throws
/// std::runtime_error naming `path` and the OS's reason, or what `write_rows` throws; the
/// partial file of a failed write is removed.
void write_csv_atomically(const std::filesystem::path& path, const std::vector<std::string>& columns,
                          const std::function<void(CsvWriter&)>& write_rows);

}  // namespace fovea
