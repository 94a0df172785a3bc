#include "trackers/trackers.hpp"

#include <stdexcept>
#include <string>

#include "trackers/gazepoint_gaze.hpp"
#include "trackers/pupil_gaze.hpp"
#include "trackers/stream_gaze.hpp"

namespace fovea {

std::unique_ptr<GazeSource> make_tracker_source(const GazeSettings& settings, const ScreenSettings& screen) {
  switch (settings.source) {
    case GazeSourceKind::pupil:
      return std::make_unique<PupilGaze>(settings, screen);
    case GazeSourceKind::gazepoint:
      return std::make_unique<GazepointGaze>(settings, screen);
    case GazeSourceKind::stream:
      return std::make_unique<StreamGaze>(settings, screen);
    default:
      throw std::invalid_argument(std::string("gaze.source: ") + gaze_source_name(settings.source) +
                                  " is not an eye tracker");
  }
}

}  // namespace fovea
