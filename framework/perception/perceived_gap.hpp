#pragma once

#include "core/math.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"

namespace fovea {

/// A gap between two entities as the viewer sees it (004 section 3.4.2).
struct PerceivedGap {
  double centre_x_px = 0;        ///< the centre of collision on screen
  double centre_y_px = 0;
  bool visible = false;          ///< the centre of collision is in front of the camera and on screen
  double eccentricity_px = 0;    ///< screen distance from the fixation point to the centre
  double eccentricity_deg = 0;   ///< the same as a visual angle at the eye
  double gap_px = 0;             ///< on-screen length of the gap
  double gap_deg = 0;            ///< the same as a visual angle, placed at the centre of collision
  double probability = 0;        ///< f(e, g); 0 when not visible: nobody notices what is not shown
};

/// How a gap between two world points looks from the fixation point (fixation_x_px,
/// fixation_y_px). The gap runs from `end_a_m` to `end_b_m` and is longer by `slack_m` (a
/// 3D allowance, drawn on screen at the nearer end's depth): for an estimate, the two
/// sphere centres and their slacks (narrowphase/narrow_phase.hpp GapEstimate); for the truth,
/// the two closest points and 0. `centre_m` is the centre of collision.
PerceivedGap perceive_gap(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px,
                          const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m);

}  // namespace fovea
