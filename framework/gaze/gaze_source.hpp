#pragma once

#include <cstdint>
#include <memory>

#include "gaze/gaze_settings.hpp"
#include "perception/perception_settings.hpp"

namespace fovea {

/// Where the viewer looks at one moment (004 section 2.3: the point of gaze fixation).
struct GazeSample {
  double x_px = 0;          ///< from the screen's left edge
  double y_px = 0;          ///< from the screen's top edge, y down
  bool valid = false;       ///< false: the source has no fixation to give now
  double time_s = 0;        ///< when the sample was taken, on the run's clock
  double confidence = 1.0;  ///< the source's confidence in [0, 1]; 1 for synthetic sources
};

/// A source of fixation points. The frame loop asks once per frame, with the run's clock
/// (simulated time in headless runs, so a run is reproducible).
class GazeSource {
 public:
  virtual ~GazeSource() = default;
  /// The fixation at time `now_s`. Calls come with non-decreasing times.
  virtual GazeSample sample(double now_s) = 0;
};

/// The source the settings name, for a screen of `screen`'s size; `seed` feeds the scripted
/// source. Throws std::invalid_argument when a fixed point lies off the screen.
std::unique_ptr<GazeSource> make_gaze_source(const GazeSettings& settings, const ScreenSettings& screen,
                                             std::uint64_t seed);

}  // namespace fovea
