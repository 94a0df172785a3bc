#include "record/gaze_log.hpp"

#include <cmath>
#include <string_view>

namespace fovea {

std::vector<std::string> GazeLog::columns() { return {"t_s", "x_px", "y_px", "valid", "source", "age_ms"}; }

GazeLog::GazeLog(const std::string& path) : csv_(path, columns()) {}

void GazeLog::write(const FrameStats& stats) {
  const FrameGaze& g = stats.gaze;
  // t_s is the time the frame asked for the gaze, so a replay run, asking at the same
  // frame times, lands exactly on these rows.
  csv_.cell(stats.gaze_time_s).cell(g.x_px).cell(g.y_px).cell(std::int64_t{g.valid ? 1 : 0}).cell(std::string_view(g.source));
  if (std::isnan(g.age_ms))
    csv_.cell_missing();
  else
    csv_.cell(g.age_ms);
  csv_.end_row();
}

}  // namespace fovea
