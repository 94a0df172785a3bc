#pragma once

// Whether a run's results folder is whole: the one check that `fovea sweep` makes before it
// summarises a run (or runs it again), and that fovea.read_run makes before it reads one
// (docs/results.md, docs/python.md). So both refuse the same folders in the same words.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "record/csv_reader.hpp"
#include "record/json_file.hpp"

namespace fovea {

/// What a run's folder holds, as far as its own files tell.
struct RunFolderCheck {
  /// Whether the folder can be read as a finished run.
  enum class Verdict {
    whole,       ///< complete: manifest.json says completed and frames.csv holds every frame it counts
    incomplete,  ///< a run that did not end well (killed, failed) or a file cut short: its frames cannot all be trusted
    unreadable,  ///< a file the OS does not give (no permission, not a regular file, too large): not known to be damaged
  };
  Verdict verdict = Verdict::incomplete;  ///< the check's answer; problem says why unless whole
  /// Why, unless whole, in words that follow the folder's name: "its manifest says interrupted".
  std::string problem;
  nlohmann::ordered_json manifest;  ///< manifest.json once it has been read as a JSON object, else null
  CsvTable frames;                  ///< frames.csv, when whole
};

/// The manifest's part of the check: manifest.json present, JSON, an object, status completed.
/// whole here means only that; check_run_frames does the rest.
RunFolderCheck check_run_manifest(const std::filesystem::path& folder);

/// The same judgement of a manifest already read (read_json_file, or parse_json_text of bytes:
/// the fuzz target's way in), `path` naming it in the problem.
RunFolderCheck check_run_manifest(JsonFile manifest_file, const std::filesystem::path& path);

/// The frames' part, for a folder whose manifest (`manifest`, as check_run_manifest read it)
/// says completed: frames.csv present, readable, whole (it parses, and its last line ends) and holding exactly the
/// frames_completed the manifest counts. A file cut short (copied in part, restored from an
/// older backup) would otherwise pass for a run of fewer frames.
RunFolderCheck check_run_frames(const std::filesystem::path& folder, const nlohmann::ordered_json& manifest);

/// Both parts, in order. `fovea sweep` calls them one by one, so as to compare the folder's
/// config.yaml with its run's between them.
RunFolderCheck check_run_folder(const std::filesystem::path& folder);

}  // namespace fovea
