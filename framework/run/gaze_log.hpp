#pragma once

#include <string>
#include <vector>

#include "record/csv_writer.hpp"
#include "frame/animation.hpp"

namespace fovea {

/// gaze.csv (config `record: {gaze: true}`): the fixation each frame used, one row per
/// frame, flushed as written. Columns t_s, x_px, y_px, valid, source, age_ms, then the used
/// sample's sample_t_s, tracker_t_s and arrival_t_s (empty when unknown): the format the
/// replay source reads, so `gaze: {source: replay, file: .../gaze.csv}` plays a session
/// back (docs/gaze.md, "Recording and replay").
class GazeLog {
 public:
  /// Creates (or truncates) gaze.csv at `path` and writes its header; throws when it cannot.
  explicit GazeLog(const std::string& path);
  /// The frame's fixation as one row, t_s the time the frame asked for it; flushed at once.
  void write(const FrameStats& stats);

  /// The header: t_s, x_px, y_px, valid, source, age_ms, sample_t_s, tracker_t_s, arrival_t_s.
  static std::vector<std::string> columns();

 private:
  CsvWriter csv_;
};

}  // namespace fovea
