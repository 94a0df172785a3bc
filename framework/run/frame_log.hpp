#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "record/column_stats.hpp"
#include "record/csv_writer.hpp"
#include "frame/animation.hpp"

namespace fovea {

/// What a frame contributes to frames.csv besides the Animation's own FrameStats.
struct FrameMeasures {
  double kinetic_energy_j = 0;    ///< dynamic entities, after the frame's response
  double potential_energy_j = 0;  ///< -m g . x summed over dynamic entities, zero at the world origin
  // Drawn runs only (docs/render.md): written when the log is made with `rendered`.
  double render_ms = 0;           ///< drawing the frame: scene, overlays, panel, on the CPU's clock
  double frame_interval_ms = 0;   ///< from the previous frame shown to this one (NaN for the first)
};

/// Which optional column groups frames.csv has.
struct FrameLogColumns {
  bool ground_truth = false;  ///< the true metrics (settings ground_truth)
  bool rendered = false;      ///< render_ms and frame_interval_ms (a drawn run)
  bool tree_growth = false;   ///< on-demand sphere trees: nodes built, evicted, alive, and the time
  std::vector<std::string> demo;  ///< a demo's own columns, last (docs/demos.md)
};

/// frames.csv, one row per frame (docs/results.md lists the columns), and the statistics
/// of every column for summary.json. Columns ending in `_ms` or `_us` are wall-clock times;
/// all the others are deterministic for a given config and seed with a work budget. A
/// value that does not apply to a frame (NaN: the overshoot of a budget that did not run
/// out) is an empty cell, which pandas and R read as missing, and is left out of the summary.
class FrameLog {
 public:
  explicit FrameLog(const std::string& path, FrameLogColumns optional = {});

  /// `demo_values`: the demo's columns (FrameLogColumns::demo), in their order.
  void write(const FrameStats& stats, const FrameMeasures& measures, std::span<const double> demo_values = {});
  std::int64_t rows() const { return rows_; }
  /// {column: {mean, median, p95, min, max}} over the rows written (ColumnAccumulator says
  /// when the median and p95 come from a sample: runs of over 2^20 frames).
  nlohmann::ordered_json column_summaries() const;
  /// 1 while the median and p95 are exact; else the sampling stride.
  std::int64_t quantile_stride() const;

  static std::vector<std::string> columns(FrameLogColumns optional = {});

 private:
  FrameLogColumns optional_;
  CsvWriter csv_;
  std::vector<ColumnAccumulator> columns_;  // per column, for the summary
  std::int64_t rows_ = 0;
};

}  // namespace fovea
