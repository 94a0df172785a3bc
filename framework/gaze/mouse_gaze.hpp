#pragma once

#include "gaze/gaze_source.hpp"

namespace fovea {

/// The mouse pointer as the fixation point: the researcher's stand-in for an eye tracker
/// while building a scene. The window's pixels are scaled onto the configured screen's, so
/// a window smaller than the screen still gives screen pixels; a pointer outside the window
/// gives no sample. Samples are stamped on the wall clock when read.
class MouseGaze final : public GazeSource {
 public:
  /// `pointer` must outlive the source (the window's input, owned by render/).
  MouseGaze(PointerInput& pointer, const ScreenSettings& screen) : pointer_(pointer), screen_(screen) {}

  /// The pointer now, scaled to screen px; `now_s` is ignored. Invalid outside the window.
  GazeSample sample(double now_s) override;
  /// Wall: samples are stamped with gaze_wall_clock_s() when the pointer is read.
  GazeClock clock() const override { return GazeClock::wall; }

 private:
  PointerInput& pointer_;
  ScreenSettings screen_;
};

}  // namespace fovea
