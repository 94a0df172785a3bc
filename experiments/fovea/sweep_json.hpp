#pragma once

// sweep.json (docs/studies.md, "What a sweep writes"): what a study's folder holds and how
// far its sweep got, written when the sweep starts and again when it ends; `fovea sweep
// merge` reads the shards' and writes its own.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "fovea/sweep_plan.hpp"
#include "record/results_folder.hpp"

namespace fovea {

/// sweep.json as a sweep keeps it: its fields, written whole (atomically) each time.
class SweepJson {
 public:
  SweepJson(std::filesystem::path path, nlohmann::ordered_json fields);
  nlohmann::ordered_json& fields() { return fields_; }
  /// Writes the fields; false when they cannot be written, said on stderr with the status
  /// the file on the disk still gives.
  bool write();

 private:
  std::filesystem::path path_;
  nlohmann::ordered_json fields_;
  std::string status_on_disk_;  ///< "status" as this sweep last wrote it
};

/// The fields a sweep starts with, status "running": the study, its fingerprints, its runs and
/// shard, its timed runs in launch order, the table's columns, the build, the command line,
/// the machine and the start time.
nlohmann::ordered_json starting_sweep_fields(const SweepPlan& plan, const SweepOptions& options, WallTime start);

/// The build that wrote a sweep.json: version, commit, whether the tree was dirty.
nlohmann::ordered_json build_description();

/// `j[key]` when `j` is an object that has it, else null: a file read back may hold anything.
nlohmann::ordered_json member(const nlohmann::ordered_json& j, const char* key);

}  // namespace fovea
