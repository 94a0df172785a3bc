#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fovea/exit_status.hpp"
#include "record/csv_reader.hpp"
#include "study/study_table.hpp"

namespace fovea {

struct RunJob;

/// What a sweep has gathered so far: a table row per run finished, the runs that failed, and
/// the first problem that stops it.
struct SweepTally {
  StudyRows rows;                     ///< by run index: finished runs, whether now or before (resumed)
  std::vector<std::int64_t> failed;   ///< run indices, in the order they failed
  /// A problem that stops the sweep (a metric's column missing from frames.csv, a folder
  /// to keep, fovea that cannot be started); "" while there is none. The first is kept: runs
  /// stopped because of it may fail too.
  std::string fatal;
  int fatal_status = kExitBadInput;   ///< the exit status `fatal` ends the sweep with

  /// The run's row from its frames.csv into `rows`; false, with `fatal` set if it is the
  /// first problem, when the row cannot be made.
  bool summarise(const StudySettings& study, const RunJob& job, const std::filesystem::path& folder,
                 const CsvTable& frames);
};

}  // namespace fovea
