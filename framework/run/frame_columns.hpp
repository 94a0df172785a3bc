#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frame/frame_stats.hpp"

namespace fovea {

/// What a frame contributes to frames.csv besides the Animation's own FrameStats.
struct FrameMeasures {
  double kinetic_energy_j = 0;    ///< dynamic entities, after the frame's response
  double potential_energy_j = 0;  ///< -m g . x summed over dynamic entities, zero at the world origin
  // Drawn runs only (docs/render.md): written when the log is made with `rendered`.
  double render_ms = 0;           ///< drawing the frame: scene, overlays, panel, on the CPU's clock
  double frame_interval_ms = 0;   ///< from the previous frame shown to this one (NaN for the first)
};

/// Everything one row of frames.csv is read from.
struct FrameRow {
  const FrameStats& stats;         ///< the Animation's own figures of the frame (frame/frame_stats.hpp)
  const FrameMeasures& measures;   ///< the energies and, in a drawn run, the drawing times
  std::span<const double> demo_values;  ///< the demo's columns, in FrameLogColumns::demo's order
};

/// Which optional column groups frames.csv has.
struct FrameLogColumns {
  bool ground_truth = false;  ///< the true metrics (settings ground_truth)
  bool rendered = false;      ///< render_ms and frame_interval_ms (a drawn run)
  bool tree_growth = false;   ///< on-demand sphere trees: nodes built, evicted, alive, and the time
  std::vector<std::string> demo;  ///< a demo's own columns, last (docs/demos.md)
  bool visibility = false;    ///< the visible P columns (metrics.visibility: occlusion)
};

/// A cell's value: a count, a measure (NaN: does not apply, an empty cell), or a text.
using FrameCell = std::variant<std::int64_t, double, std::string_view>;

/// One column of frames.csv, declared once with the value it holds, so a name cannot drift
/// from its value (run/frame_columns.cpp holds the declarations, in file order).
struct FrameColumn {
  std::string name;  ///< its header, as docs/results.md lists it ("sim_time_s")
  /// Reads the column's value from a row; `index` is the column's own (a phase, a demo value).
  FrameCell (*value)(const FrameRow& row, std::size_t index) = nullptr;
  std::size_t index = 0;  ///< passed to `value`: which phase or demo value this column is
  bool summarised = true;  ///< in summary.json's statistics (not the frame index, not a text)
};

/// The columns of frames.csv with the groups `optional` asks for, in file order
/// (docs/results.md lists them).
std::vector<FrameColumn> frame_columns(const FrameLogColumns& optional);

}  // namespace fovea
