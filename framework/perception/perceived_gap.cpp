#include "perception/perceived_gap.hpp"

#include <algorithm>
#include <cmath>

namespace fovea {

PerceivedGap perceive_gap(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px,
                          const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m) {
  PerceivedGap p;
  const ScreenPoint centre = view.project(centre_m);
  p.centre_x_px = centre.x_px;
  p.centre_y_px = centre.y_px;
  p.visible = centre.on_screen;
  if (!centre.in_front) return p;  // behind the camera: no screen position to speak of
  p.eccentricity_px = std::hypot(centre.x_px - fixation_x_px, centre.y_px - fixation_y_px);
  p.eccentricity_deg = view.visual_angle_deg(fixation_x_px, fixation_y_px, centre.x_px, centre.y_px);

  // The on-screen gap: between the two ends' projections, plus the slack at the nearer
  // end's depth (the larger scale of the two). With an end behind the camera the whole 3D
  // length is drawn at the centre's depth.
  const ScreenPoint a = view.project(end_a_m);
  const ScreenPoint b = view.project(end_b_m);
  double dir_x = 1, dir_y = 0;
  if (a.in_front && b.in_front) {
    const double dx = b.x_px - a.x_px, dy = b.y_px - a.y_px;
    const double length = std::hypot(dx, dy);
    p.gap_px = length + slack_m * view.pixels_per_metre(std::min(a.depth_m, b.depth_m));
    if (length > 0) {
      dir_x = dx / length;
      dir_y = dy / length;
    }
  } else {
    p.gap_px = (glm::length(end_b_m - end_a_m) + slack_m) * view.pixels_per_metre(centre.depth_m);
  }
  // In degrees: the visual angle of a segment gap_px long, centred on the centre of
  // collision along the gap's on-screen direction.
  const double h = p.gap_px / 2;
  p.gap_deg = view.visual_angle_deg(centre.x_px - h * dir_x, centre.y_px - h * dir_y, centre.x_px + h * dir_x,
                                    centre.y_px + h * dir_y);
  if (p.visible) p.probability = model.probability(p.eccentricity_deg, p.gap_deg);
  return p;
}

}  // namespace fovea
