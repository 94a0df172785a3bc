#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

#include "gaze/gaze_source.hpp"

namespace fovea {

/// One row of a gaze recording: fovea's own gaze.csv (record: {gaze: true}) or any CSV of
/// t_s, x_px, y_px[, valid] a tracker's software exported.
struct GazeRecordRow {
  double t_s = 0;       ///< when, on the run's clock (a frame's time in fovea's recordings)
  double x_px = 0;      ///< screen pixels, top-left origin, y down
  double y_px = 0;      ///< screen pixels from the top edge, y down
  bool valid = true;    ///< false: the recording had no fixation here (x, y are not used)
  double age_s = 0;     ///< how old the sample was at t_s (fovea's age_ms column); 0 when absent
};

/// Reads a gaze CSV. With a header row, columns are found by name: t_s, x_px and y_px are
/// required, valid (1/0, true/false) and age_ms are optional, others (source) are ignored.
/// Without one, columns are t_s, x_px, y_px[, valid] in that order. Empty lines and lines
/// starting with '#' are skipped; times must increase strictly; a valid row needs finite
/// coordinates, an invalid one may leave them empty. Throws std::runtime_error naming the
/// file and line of the first problem; FileReadError (core/file_read.hpp) for a path that is
/// not a regular file of at most kMaxTableFileBytes.
std::vector<GazeRecordRow> read_gaze_csv(const std::string& path);
/// The same from a stream; `name` names it in messages.
std::vector<GazeRecordRow> parse_gaze_csv(std::istream& in, const std::string& name);

/// Plays a gaze recording back on the run's clock, like a tracker giving its newest sample:
/// between two valid rows at most `max_gap_s` apart the point is interpolated linearly;
/// after a valid row followed by an invalid one, by a longer gap (an export that leaves out
/// the rows where tracking was lost) or by the end, that row stays the newest sample and
/// ages, so the frame's max_age_ms and hold decide as they would live; at or after an
/// invalid row there is no fixation; before the first row neither.
///
/// At exactly a row's time the row itself comes back, bit for bit, with time_s = t_s -
/// age_s: a run's own gaze.csv therefore replays to the same fixation, validity and age in
/// every frame (docs/gaze.md, "Recording and replay").
class ReplayGaze final : public GazeSource {
 public:
  /// Throws std::invalid_argument when `rows` is empty or its times do not increase, or
  /// `max_gap_s` is negative. The factory passes gaze.max_age_ms.
  ReplayGaze(std::vector<GazeRecordRow> rows, double max_gap_s);

  /// The recording at `now_s` (run clock, s): interpolated, held or invalid as the class says.
  GazeSample sample(double now_s) override;

 private:
  std::vector<GazeRecordRow> rows_;
  double max_gap_s_;        ///< rows further apart are not interpolated between
  std::size_t cursor_ = 0;  ///< the last row at or before the previous call's time
};

}  // namespace fovea
