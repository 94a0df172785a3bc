#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/column_stats.hpp"
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
  /// {column: {mean, median, p95, min, max}} over the rows written (ColumnAccumulator says
  /// when the median and p95 come from a sample: runs of over 2^20 frames).
  nlohmann::ordered_json column_summaries() const;
  /// 1 while the median and p95 are exact; else the sampling stride.
  std::int64_t quantile_stride() const;

  static std::vector<std::string> columns();

 private:
  CsvWriter csv_;
  std::vector<ColumnAccumulator> columns_;  // per column, for the summary
  std::int64_t rows_ = 0;
};

}  // namespace fovea
