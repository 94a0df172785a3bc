#pragma once

// The table of a study (docs/studies.md#the-table): one row per run, its factors' cells,
// then the number of frames summarised, then each metric's statistics over those frames.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "record/csv_reader.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"

namespace fovea {

/// Rows by run index; each row holds every column of the table as text.
using StudyRows = std::map<std::int64_t, std::vector<std::string>>;

/// The row of `run` from its frames.csv, its first max(skip_frames, `warmup_frames`) frames
/// left out (the study's metrics.skip_frames, the run's metrics.warmup_frames). Throws
/// std::runtime_error naming the metric, its place in the study file and the file, when
/// frames.csv lacks a column a metric reads.
std::vector<std::string> summarise_run(const StudySettings& study, const PlannedRun& run, const CsvTable& frames,
                                       const std::string& frames_path, std::int64_t warmup_frames = 0);

/// Writes the table: a header of `columns`, then the rows in run order. Written beside
/// `path` first and renamed over it, so a reader never sees half a table. Throws
/// std::runtime_error when it cannot be written.
void write_study_table(const std::string& path, const std::vector<std::string>& columns, const StudyRows& rows);

/// Reads a table written by write_study_table. Throws std::runtime_error ("path:line: what")
/// for a malformed file, one whose last row has no line end (cut short), a header other than
/// `columns`, a run index that is not a whole number, or one that appears twice.
StudyRows read_study_table(const std::string& path, const std::vector<std::string>& columns);

}  // namespace fovea
