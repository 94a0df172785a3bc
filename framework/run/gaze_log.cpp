#include "run/gaze_log.hpp"

#include <string_view>

namespace fovea {

std::vector<std::string> GazeLog::columns() { return {"t_s", "x_px", "y_px", "valid", "source", "age_ms"}; }

GazeLog::GazeLog(const std::string& path) : csv_(path, columns()) {}

void GazeLog::write(const FrameStats& stats) {
  const FrameGaze& g = stats.gaze;
  // t_s is the time the frame asked for the gaze, so a replay run, asking at the same
  // frame times, lands exactly on these rows.
  csv_.cell(stats.gaze_time_s).cell(g.x_px).cell(g.y_px).cell(std::int64_t{g.valid ? 1 : 0}).cell(std::string_view(g.source));
  csv_.cell_or_missing(g.age_ms).end_row();
}

}  // namespace fovea
