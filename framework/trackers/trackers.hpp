#pragma once

#include <memory>

#include "gaze/gaze_source.hpp"

namespace fovea {

/// The eye trackers' source for `settings.source` (pupil: trackers/pupil_gaze.hpp, gazepoint:
/// trackers/gazepoint_gaze.hpp, stream: trackers/stream_gaze.hpp), for GazeEnvironment::make_tracker. Part of fovea_trackers, the
/// library that links ZeroMQ and msgpack; throws std::invalid_argument for other sources.
std::unique_ptr<GazeSource> make_tracker_source(const GazeSettings& settings, const ScreenSettings& screen);

/// `environment` with the trackers in it.
inline GazeEnvironment with_trackers(GazeEnvironment environment) {
  environment.make_tracker = &make_tracker_source;
  return environment;
}

}  // namespace fovea
