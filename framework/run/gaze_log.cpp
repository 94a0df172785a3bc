#include "run/gaze_log.hpp"

#include <string_view>

namespace fovea {

std::vector<std::string> GazeLog::columns() { return {"t_s", "x_px", "y_px", "valid", "source", "age_ms", "sample_t_s", "tracker_t_s", "arrival_t_s"}; }

GazeLog::GazeLog(const std::string& path) : csv_(path, columns()) {}

void GazeLog::write(const FrameStats& stats) {
  const FrameGaze& g = stats.gaze;
  // t_s is the time the frame asked for the gaze, so a replay run, asking at the same
  // frame times, lands exactly on these rows.
  csv_.cell(stats.gaze_time_s).cell(g.x_px).cell(g.y_px).cell(std::int64_t{g.valid ? 1 : 0}).cell(std::string_view(g.source));
  // Where the used sample came from in time: its own time on the source's clock, the
  // tracker's stamp and fovea's receipt (docs/gaze.md, "Latency"): empty when not known.
  csv_.cell_or_missing(g.age_ms).cell_or_missing(g.sample_time_s).cell_or_missing(g.tracker_time_s);
  csv_.cell_or_missing(g.arrival_s).end_row();
}

}  // namespace fovea
