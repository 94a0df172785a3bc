#include "perception/perceived_gap.hpp"

#include <cmath>

namespace fovea {
namespace {

// One gap's arithmetic, step by step, shared by the batch's loops and perceive_one: each is
// the expression View::project, View::pixels_per_metre or screen_visual_angle_deg computes,
// operand for operand (no fused multiply-adds: the build says -ffp-contract=off), so the
// results are bit for bit those of placing each gap through View; tests/perception/
// perceived_gap_test.cpp holds them to that code. Branches are selects: both sides are
// computed and one kept, and the side not kept (a division by a zero length, a projection
// behind the camera) is never read.

using Terms = GapPerceiver::Terms;

constexpr double kNear = View::kNearLimit_m;

struct Projected {
  double depth, x, y;  ///< x and y as if in front
};

/// View::project.
inline Projected project(const Terms& t, double p0, double p1, double p2) {
  const double dx = p0 - t.px, dy = p1 - t.py, dz = p2 - t.pz;
  const double d = dx * t.fx + dy * t.fy + dz * t.fz;
  const double scale = t.focal_px / d;
  return {d, t.half_width_px + scale * (dx * t.rx + dy * t.ry + dz * t.rz),
          t.half_height_px - scale * (dx * t.ux + dy * t.uy + dz * t.uz)};  // screen y down, camera up up
}

/// atan2's arguments for screen_visual_angle_deg: |a x b| and a . b.
struct AngleArgs {
  double sin, cos;
};

/// The angle between the fixation's ray and the ray to screen point (x, y).
inline AngleArgs eccentricity_args(const Terms& t, double x, double y) {
  const double ax = t.ray_x, ay = t.ray_y, az = t.ray_z;
  const double bx = (x - t.half_width_px) * t.cm_per_px_x, by = (y - t.half_height_px) * t.cm_per_px_y,
               bz = t.minus_distance_cm;
  const double cx = ay * bz - by * az, cy = az * bx - bz * ax, cz = ax * by - bx * ay;
  return {std::sqrt(cx * cx + cy * cy + cz * cz), ax * bx + ay * by + az * bz};
}

/// Whether both ends are in front, and then their distance on screen (else 0).
inline double screen_length(const Projected& a, const Projected& b) {
  return a.depth > kNear && b.depth > kNear ? std::hypot(b.x - a.x, b.y - a.y) : 0.0;
}

struct GapArgs {
  double gap_px;
  AngleArgs angle;
};

/// The gap in pixels and its visual angle's atan2 arguments: a segment gap_px long centred
/// on the centre of collision along the ends' direction on screen. With an end behind the
/// camera, the whole 3D length (end_b - end_a, plus the slack) at the centre's depth.
/// `length` is screen_length(a, b). & and not &&, and the divisions done whatever is
/// selected: no branch for the vectoriser to work around.
inline GapArgs gap_args(const Terms& t, const Projected& c, const Projected& a, const Projected& b, double length,
                        double slack, double wx, double wy, double wz) {
  const bool both_in_front = (a.depth > kNear) & (b.depth > kNear);
  const double nearer_m = b.depth < a.depth ? b.depth : a.depth;  // std::min
  const double on_screen_px = length + slack * (t.focal_px / nearer_m);
  const double whole_px = (std::sqrt(wx * wx + wy * wy + wz * wz) + slack) * (t.focal_px / c.depth);
  const double g = both_in_front ? on_screen_px : whole_px;
  const bool along = both_in_front & (length > 0);
  const double along_x = (b.x - a.x) / length, along_y = (b.y - a.y) / length;
  const double dir_x = along ? along_x : 1.0;
  const double dir_y = along ? along_y : 0.0;
  const double h = g / 2;
  const double x1 = c.x - h * dir_x, y1 = c.y - h * dir_y;
  const double x2 = c.x + h * dir_x, y2 = c.y + h * dir_y;
  const double p1x = (x1 - t.half_width_px) * t.cm_per_px_x, p1y = (y1 - t.half_height_px) * t.cm_per_px_y;
  const double p2x = (x2 - t.half_width_px) * t.cm_per_px_x, p2y = (y2 - t.half_height_px) * t.cm_per_px_y;
  const double d = t.minus_distance_cm;
  const double cx = p1y * d - p2y * d, cy = d * p2x - d * p1x, cz = p1x * p2y - p2x * p1y;
  return {g, {std::sqrt(cx * cx + cy * cy + cz * cz), p1x * p2x + p1y * p2y + d * d}};
}

inline bool on_screen(const Terms& t, double x, double y) { return x >= 0 && x <= t.width_px && y >= 0 && y <= t.height_px; }

inline double degrees_of(const AngleArgs& a) { return glm::degrees(std::atan2(a.sin, a.cos)); }

}  // namespace

GapPerceiver::GapPerceiver(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px)
    : model_(model), fixation_x_px_(fixation_x_px), fixation_y_px_(fixation_y_px) {
  // The same expressions as View::project and screen_visual_angle_deg, once a frame
  // instead of once a point: the same doubles.
  const ScreenSettings& screen = view.settings().screen;
  const Vec3 p = view.camera_position_m(), f = view.camera_forward(), r = view.camera_right(), u = view.camera_up();
  Terms& t = terms_;
  t.px = p.x, t.py = p.y, t.pz = p.z;
  t.fx = f.x, t.fy = f.y, t.fz = f.z;
  t.rx = r.x, t.ry = r.y, t.rz = r.z;
  t.ux = u.x, t.uy = u.y, t.uz = u.z;
  t.focal_px = view.focal_px();
  t.width_px = screen.width_px;
  t.height_px = screen.height_px;
  t.half_width_px = 0.5 * screen.width_px;
  t.half_height_px = 0.5 * screen.height_px;
  t.cm_per_px_x = screen.width_cm / screen.width_px;
  t.cm_per_px_y = screen.height_cm / screen.height_px;
  t.minus_distance_cm = -screen.viewing_distance_cm;
  t.ray_x = (fixation_x_px - t.half_width_px) * t.cm_per_px_x;
  t.ray_y = (fixation_y_px - t.half_height_px) * t.cm_per_px_y;
  t.ray_z = t.minus_distance_cm;
}

// The batch in five loops over its gaps: three of plain arithmetic, which GCC vectorises
// (two gaps per SSE2 instruction at the baseline x86-64; -fopt-info-vec lists them), and
// two of the libm calls, which stay scalar.
void GapPerceiver::perceive(GapBatch& batch) const {
  constexpr std::size_t K = GapBatch::kCapacity;
  const std::size_t n = batch.size;
  const Terms t = terms_;  // a local copy: no store below can change it

  // 1. The centre and both ends projected.
  double depth_c[K], x_c[K], y_c[K], depth_a[K], x_a[K], y_a[K], depth_b[K], x_b[K], y_b[K];
  const auto project_all = [&](const double (&p)[3][K], double* __restrict depth, double* __restrict x,
                               double* __restrict y) {
    const double* __restrict p0 = p[0];
    const double* __restrict p1 = p[1];
    const double* __restrict p2 = p[2];
    for (std::size_t i = 0; i < n; ++i) {
      const Projected q = project(t, p0[i], p1[i], p2[i]);
      depth[i] = q.depth;
      x[i] = q.x;
      y[i] = q.y;
    }
  };
  project_all(batch.centre_m, depth_c, x_c, y_c);
  project_all(batch.end_a_m, depth_a, x_a, y_a);
  project_all(batch.end_b_m, depth_b, x_b, y_b);

  // 2. The eccentricity's atan2 arguments.
  double ecc_sin[K], ecc_cos[K];
  for (std::size_t i = 0; i < n; ++i) {
    const AngleArgs e = eccentricity_args(t, x_c[i], y_c[i]);
    ecc_sin[i] = e.sin;
    ecc_cos[i] = e.cos;
  }

  // 3. The ends' distance on screen; not for a centre behind the camera, never placed.
  double length[K];
  for (std::size_t i = 0; i < n; ++i)
    length[i] = depth_c[i] > kNear ? screen_length({depth_a[i], x_a[i], y_a[i]}, {depth_b[i], x_b[i], y_b[i]}) : 0.0;

  // 4. The gap in pixels and its angle's atan2 arguments.
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
      const GapArgs g = gap_args(t, {depth_c[i], x_c[i], y_c[i]}, {depth_a[i], x_a[i], y_a[i]},
                                 {depth_b[i], x_b[i], y_b[i]}, length[i], slack[i], b0[i] - a0[i], b1[i] - a1[i],
                                 b2[i] - a2[i]);
      gap_px[i] = g.gap_px;
      gap_sin[i] = g.angle.sin;
      gap_cos[i] = g.angle.cos;
    }
  }

  // 5. The angles; the visible gaps packed for the model's f(e, g).
  std::size_t packed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool in_front = depth_c[i] > kNear;
    batch.in_front[i] = in_front;
    batch.probability[i] = 0;
    if (!in_front) {  // nothing for a centre behind the camera
      batch.centre_x_px[i] = batch.centre_y_px[i] = 0;
      batch.eccentricity_deg[i] = batch.gap_px[i] = batch.gap_deg[i] = 0;
      batch.visible[i] = false;
      continue;
    }
    const bool visible = on_screen(t, x_c[i], y_c[i]);
    const double e = degrees_of({ecc_sin[i], ecc_cos[i]});
    const double g = degrees_of({gap_sin[i], gap_cos[i]});
    batch.centre_x_px[i] = x_c[i];
    batch.centre_y_px[i] = y_c[i];
    batch.visible[i] = visible;
    batch.eccentricity_deg[i] = e;
    batch.gap_px[i] = gap_px[i];
    batch.gap_deg[i] = g;
    batch.packed_e[packed] = e;
    batch.packed_g[packed] = g;
    batch.packed_index[packed] = static_cast<std::uint8_t>(i);
    packed += visible;
  }
  model_.probabilities(batch.packed_e, batch.packed_g, batch.packed_f, packed);
  for (std::size_t k = 0; k < packed; ++k) batch.probability[batch.packed_index[k]] = batch.packed_f[k];
}

PerceivedGap GapPerceiver::perceive_one(const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m,
                                        bool with_eccentricity_px) const {
  const Terms& t = terms_;
  PerceivedGap p;
  const Projected c = project(t, centre_m.x, centre_m.y, centre_m.z);
  if (!(c.depth > kNear)) return p;  // behind the camera: no screen position to speak of
  p.centre_x_px = c.x;
  p.centre_y_px = c.y;
  p.visible = on_screen(t, c.x, c.y);
  if (with_eccentricity_px) p.eccentricity_px = std::hypot(c.x - fixation_x_px_, c.y - fixation_y_px_);
  p.eccentricity_deg = degrees_of(eccentricity_args(t, c.x, c.y));
  const Projected a = project(t, end_a_m.x, end_a_m.y, end_a_m.z);
  const Projected b = project(t, end_b_m.x, end_b_m.y, end_b_m.z);
  const Vec3 w = end_b_m - end_a_m;
  const GapArgs g = gap_args(t, c, a, b, screen_length(a, b), slack_m, w.x, w.y, w.z);
  p.gap_px = g.gap_px;
  p.gap_deg = degrees_of(g.angle);
  if (p.visible) p.probability = model_.probability(p.eccentricity_deg, p.gap_deg);
  return p;
}

PerceivedGap perceive_gap(const View& view, const PerceptionModel& model, double fixation_x_px, double fixation_y_px,
                          const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m, double slack_m) {
  return GapPerceiver(view, model, fixation_x_px, fixation_y_px).perceive_one(centre_m, end_a_m, end_b_m, slack_m, true);
}

}  // namespace fovea
