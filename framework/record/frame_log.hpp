#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/csv_writer.hpp"
#include "world/animation.hpp"

namespace fovea {

/// What a frame contributes to frames.csv besides the Animation's own FrameStats.
struct FrameMeasures {
  double kinetic_energy_j = 0;
};

/// frames.csv, one row per frame (docs/results.md lists the columns), and the statistics
/// of every column for summary.json. Columns ending in `_ms` are wall-clock times; all the
/// others are deterministic for a given config and seed.
class FrameLog {
 public:
  explicit FrameLog(const std::string& path);

  void write(const FrameStats& stats, const FrameMeasures& measures);
  std::int64_t rows() const { return rows_; }
  /// {column: {mean, median, p95, min, max}} over the rows written.
  nlohmann::ordered_json column_summaries() const;

  static std::vector<std::string> columns();

 private:
  CsvWriter csv_;
  std::vector<std::vector<double>> values_;  // per column, for the summary
  std::int64_t rows_ = 0;
};

}  // namespace fovea
