#pragma once

#include "gaze/gaze.hpp"
#include "prioritise/perceived_collision.hpp"
#include "schedule/schedule_settings.hpp"

namespace fovea {

/// What a frame places collisions on the screen with: the camera, f and the fixation, for
/// the meter (the eye's) and for a scheduler (what its gaze input, schedule.gaze, gives it).
/// Borrows everything: made for one frame's stages.
struct FrameViewings {
  const View& view;                     ///< camera and screen
  const PerceptionModel& model;         ///< f(e, g)
  const PerceptionModel& blind_model;   ///< f(0, g) (PerceptionModel::without_eccentricity)
  const FrameGaze& gaze;                ///< this frame's eye, tracked and landing points

  /// The eye's: what the meter and the records place collisions with.
  Viewing eye() const { return {view, model, gaze.x_px, gaze.y_px}; }
  /// A scheduler's with gaze input `input`: the tracked point, the predicted landing point,
  /// or the tracked point with f's eccentricity term removed (blind: the point then matters
  /// for the records' eccentricities only).
  Viewing scheduler(SchedulerGaze input) const {
    switch (input) {
      case SchedulerGaze::landing: return {view, model, gaze.landing_x_px, gaze.landing_y_px};
      case SchedulerGaze::blind: return {view, blind_model, gaze.tracked_x_px, gaze.tracked_y_px};
      case SchedulerGaze::tracked: break;
    }
    return {view, model, gaze.tracked_x_px, gaze.tracked_y_px};
  }
};

/// Whether a scheduler with gaze input `input` may place a collision elsewhere than the eye's
/// placement, so that the records must place it again from the eye: any input but tracked,
/// and tracked behind a simulated tracker.
inline bool scheduler_sees_other_than_eye(SchedulerGaze input, bool tracker_simulated) {
  return input != SchedulerGaze::tracked || tracker_simulated;
}

}  // namespace fovea
