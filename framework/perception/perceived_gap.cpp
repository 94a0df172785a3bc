#include "perception/perceived_gap.hpp"

#include <cmath>

namespace fovea {

GapPerceiver::GapPerceiver(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px)
    : model_(model),
      fixation_x_px_(fixation_x_px),
      fixation_y_px_(fixation_y_px),
      position_m_(view.camera_position_m()),
      forward_(view.camera_forward()),
      right_(view.camera_right()),
      up_(view.camera_up()),
      focal_px_(view.focal_px()) {
  // The same expressions as View::project and screen_visual_angle_deg, once a frame
  // instead of once a point: the same doubles.
  const ScreenSettings& screen = view.settings().screen;
  width_px_ = screen.width_px;
  height_px_ = screen.height_px;
  half_width_px_ = 0.5 * screen.width_px;
  half_height_px_ = 0.5 * screen.height_px;
  cm_per_px_x_ = screen.width_cm / screen.width_px;
  cm_per_px_y_ = screen.height_cm / screen.height_px;
  minus_distance_cm_ = -screen.viewing_distance_cm;
  fixation_ray_[0] = (fixation_x_px - half_width_px_) * cm_per_px_x_;
  fixation_ray_[1] = (fixation_y_px - half_height_px_) * cm_per_px_y_;
  fixation_ray_[2] = minus_distance_cm_;
}

// The batch in five loops over its gaps: three of plain arithmetic, which GCC vectorises
// (two gaps per SSE2 instruction at the baseline x86-64; -fopt-info-vec lists them), and
// two of the libm calls, which stay scalar. Every value is the expression View::project,
// View::pixels_per_metre and screen_visual_angle_deg compute, operand for operand (no fused
// multiply-adds: the build says -ffp-contract=off), so the results are bit for bit those
// of placing each gap alone; tests/perception/perceived_gap_test.cpp holds it to the
// formulas written out one gap at a time. Branches become selects: both sides are
// computed and one kept, and the side not kept (a division by a zero length, a projection
// behind the camera) is never read.
void GapPerceiver::perceive(GapBatch& batch) const {
  constexpr std::size_t K = GapBatch::kCapacity;
  const std::size_t n = batch.size;
  // The per-frame terms as locals: the compiler need not reload them after each store.
  const double px = position_m_.x, py = position_m_.y, pz = position_m_.z;
  const double fx = forward_.x, fy = forward_.y, fz = forward_.z;
  const double rx = right_.x, ry = right_.y, rz = right_.z;
  const double ux = up_.x, uy = up_.y, uz = up_.z;
  const double focal = focal_px_, half_w = half_width_px_, half_h = half_height_px_;
  const double cmx = cm_per_px_x_, cmy = cm_per_px_y_, mdist = minus_distance_cm_;
  const double ax = fixation_ray_[0], ay = fixation_ray_[1], az = fixation_ray_[2];
  constexpr double near = View::kNearLimit_m;

  // 1. View::project of the centre and both ends: depth, then x and y as if in front.
  double depth_c[K], x_c[K], y_c[K], depth_a[K], x_a[K], y_a[K], depth_b[K], x_b[K], y_b[K];
  const auto project = [&](const double (&p)[3][K], double* __restrict depth, double* __restrict x,
                           double* __restrict y) {
    const double* __restrict p0 = p[0];
    const double* __restrict p1 = p[1];
    const double* __restrict p2 = p[2];
    for (std::size_t i = 0; i < n; ++i) {
      const double dx = p0[i] - px, dy = p1[i] - py, dz = p2[i] - pz;
      const double d = dx * fx + dy * fy + dz * fz;
      const double scale = focal / d;
      depth[i] = d;
      x[i] = half_w + scale * (dx * rx + dy * ry + dz * rz);
      y[i] = half_h - scale * (dx * ux + dy * uy + dz * uz);  // screen y down, camera up up
    }
  };
  project(batch.centre_m, depth_c, x_c, y_c);
  project(batch.end_a_m, depth_a, x_a, y_a);
  project(batch.end_b_m, depth_b, x_b, y_b);

  // 2. The eccentricity's atan2 arguments: |a x b| and a . b for the fixation's ray a and
  // the centre's b (screen_visual_angle_deg).
  double ecc_sin[K], ecc_cos[K];
  for (std::size_t i = 0; i < n; ++i) {
    const double bx = (x_c[i] - half_w) * cmx, by = (y_c[i] - half_h) * cmy, bz = mdist;
    const double cx = ay * bz - by * az, cy = az * bx - bz * ax, cz = ax * by - bx * ay;
    ecc_sin[i] = std::sqrt(cx * cx + cy * cy + cz * cz);
    ecc_cos[i] = ax * bx + ay * by + az * bz;
  }

  // 3. The on-screen length between the ends, where both are in front (the only place it
  // is read). Gaps whose centre is behind the camera are not placed at all.
  double length[K];
  for (std::size_t i = 0; i < n; ++i)
    length[i] = depth_c[i] > near && depth_a[i] > near && depth_b[i] > near ? std::hypot(x_b[i] - x_a[i], y_b[i] - y_a[i])
                                                                             : 0.0;

  // 4. The gap in pixels, its direction, and its visual angle's atan2 arguments: a segment
  // gap_px long centred on the centre of collision along that direction. With an end
  // behind the camera, the whole 3D length (plus the slack) at the centre's depth.
  double gap_px[K], gap_sin[K], gap_cos[K];
  {
    const double* __restrict slack = batch.slack_m;
    const double* __restrict a0 = batch.end_a_m[0];
    const double* __restrict a1 = batch.end_a_m[1];
    const double* __restrict a2 = batch.end_a_m[2];
    const double* __restrict b0 = batch.end_b_m[0];
    const double* __restrict b1 = batch.end_b_m[1];
    const double* __restrict b2 = batch.end_b_m[2];
    for (std::size_t i = 0; i < n; ++i) {
      // & and not &&, and the divisions done whatever is selected: no branch to vectorise
      // around (GCC does not speculate a division that may trap).
      const bool both_in_front = (depth_a[i] > near) & (depth_b[i] > near);
      const double nearer_m = depth_b[i] < depth_a[i] ? depth_b[i] : depth_a[i];  // std::min
      const double on_screen_px = length[i] + slack[i] * (focal / nearer_m);
      const double wx = b0[i] - a0[i], wy = b1[i] - a1[i], wz = b2[i] - a2[i];
      const double whole_px = (std::sqrt(wx * wx + wy * wy + wz * wz) + slack[i]) * (focal / depth_c[i]);
      const double g = both_in_front ? on_screen_px : whole_px;
      const bool along = both_in_front & (length[i] > 0);
      const double along_x = (x_b[i] - x_a[i]) / length[i], along_y = (y_b[i] - y_a[i]) / length[i];
      const double dir_x = along ? along_x : 1.0;
      const double dir_y = along ? along_y : 0.0;
      const double h = g / 2;
      const double x1 = x_c[i] - h * dir_x, y1 = y_c[i] - h * dir_y;
      const double x2 = x_c[i] + h * dir_x, y2 = y_c[i] + h * dir_y;
      const double p1x = (x1 - half_w) * cmx, p1y = (y1 - half_h) * cmy;
      const double p2x = (x2 - half_w) * cmx, p2y = (y2 - half_h) * cmy;
      const double cx = p1y * mdist - p2y * mdist, cy = mdist * p2x - mdist * p1x, cz = p1x * p2y - p2x * p1y;
      gap_px[i] = g;
      gap_sin[i] = std::sqrt(cx * cx + cy * cy + cz * cz);
      gap_cos[i] = p1x * p2x + p1y * p2y + mdist * mdist;
    }
  }

  // 5. The angles; f(e, g) of the visible gaps, gathered for the model's batch.
  const double w = width_px_, h = height_px_;
  double visible_e[K] = {}, visible_g[K] = {}, visible_f[K];  // zeroed for GCC's -Wmaybe-uninitialized
  std::size_t visible_index[K];
  std::size_t visible_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool in_front = depth_c[i] > near;
    batch.in_front[i] = in_front;
    batch.probability[i] = 0;
    if (!in_front) {  // nothing for a centre behind the camera
      batch.centre_x_px[i] = batch.centre_y_px[i] = 0;
      batch.eccentricity_deg[i] = batch.gap_px[i] = batch.gap_deg[i] = 0;
      batch.visible[i] = false;
      continue;
    }
    const double x = x_c[i], y = y_c[i];
    const bool visible = x >= 0 && x <= w && y >= 0 && y <= h;
    const double e = glm::degrees(std::atan2(ecc_sin[i], ecc_cos[i]));
    const double g = glm::degrees(std::atan2(gap_sin[i], gap_cos[i]));
    batch.centre_x_px[i] = x;
    batch.centre_y_px[i] = y;
    batch.visible[i] = visible;
    batch.eccentricity_deg[i] = e;
    batch.gap_px[i] = gap_px[i];
    batch.gap_deg[i] = g;
    visible_e[visible_count] = e;
    visible_g[visible_count] = g;
    visible_index[visible_count] = i;
    visible_count += visible;
  }
  model_.probabilities(visible_e, visible_g, visible_f, visible_count);
  for (std::size_t k = 0; k < visible_count; ++k) batch.probability[visible_index[k]] = visible_f[k];
}

PerceivedGap perceive_gap(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px,
                          const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m) {
  GapBatch batch;
  batch.push(centre_m, end_a_m, end_b_m, slack_m);
  GapPerceiver(view, model, fixation_x_px, fixation_y_px).perceive(batch);
  PerceivedGap p;
  p.centre_x_px = batch.centre_x_px[0];
  p.centre_y_px = batch.centre_y_px[0];
  p.visible = batch.visible[0];
  if (!batch.in_front[0]) return p;  // behind the camera: no screen position to speak of
  p.eccentricity_px = std::hypot(p.centre_x_px - fixation_x_px, p.centre_y_px - fixation_y_px);
  p.eccentricity_deg = batch.eccentricity_deg[0];
  p.gap_px = batch.gap_px[0];
  p.gap_deg = batch.gap_deg[0];
  p.probability = batch.probability[0];
  return p;
}

}  // namespace fovea
