#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "frame/frame_stats.hpp"
#include "record/column_stats.hpp"
#include "record/csv_writer.hpp"
#include "run/frame_columns.hpp"

namespace fovea {

/// frames.csv, one row per frame (docs/results.md lists the columns; run/frame_columns.cpp
/// declares them), and the statistics of every column for summary.json. Columns ending in
/// `_ms` or `_us` are wall-clock times; all the others are deterministic for a given config
/// and seed with a work budget. A value that does not apply to a frame (NaN: the overshoot of
/// a budget that did not run out) is an empty cell, which pandas and R read as missing, and
/// is left out of the summary.
class FrameLog {
 public:
  /// The first `warmup_frames` rows are written but left out of column_summaries().
  explicit FrameLog(const std::string& path, FrameLogColumns optional = {}, std::int64_t warmup_frames = 0);

  /// `demo_values`: the demo's columns (FrameLogColumns::demo), in their order.
  void write(const FrameStats& stats, const FrameMeasures& measures, std::span<const double> demo_values = {});
  /// Rows written so far, warm-up rows included.
  std::int64_t rows() const { return rows_; }
  /// {column: {mean, median, p95, min, max}} over the rows written after the warm-up (ColumnAccumulator says
  /// when the median and p95 come from a sample: runs of over 2^20 frames).
  nlohmann::ordered_json column_summaries() const;
  /// 1 while the median and p95 are exact; else the sampling stride.
  std::int64_t quantile_stride() const;

  /// The column names for `optional`, in file order.
  static std::vector<std::string> columns(const FrameLogColumns& optional = {});

 private:
  std::size_t demo_count_ = 0;
  std::vector<FrameColumn> columns_;
  CsvWriter csv_;
  std::vector<ColumnAccumulator> stats_;  // per column, for the summary
  std::int64_t rows_ = 0;
  std::int64_t warmup_frames_ = 0;
};

}  // namespace fovea
