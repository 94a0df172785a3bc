#include "render/overlays.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace fovea {
namespace {

int outcome_rank(const Collision& c) {
  if (c.interrupted) return 3;
  if (c.status == CollisionStatus::colliding) return 2;
  if (c.status == CollisionStatus::not_colliding) return 1;
  return 0;
}

}  // namespace

void collision_tints(const Animation& world, const OutcomeColours& colours, std::vector<EntityTint>& tints) {
  tints.assign(world.entities().size(), EntityTint{});
  std::vector<int> rank(world.entities().size(), 0);
  const NarrowPhase& narrow = world.narrowphase();
  for (const std::uint32_t slot : narrow.order()) {
    const Collision& c = narrow.collision(slot);
    const int r = outcome_rank(c);
    if (r == 0) continue;
    EntityTint tint = colours.resolved_not_colliding;
    if (c.interrupted)
      tint = c.status == CollisionStatus::colliding ? colours.interrupted_accepted : colours.interrupted_dropped;
    else if (c.status == CollisionStatus::colliding)
      tint = colours.resolved_colliding;
    // Static scenery (a ravine) meets everything near it: one outcome would paint it all.
    for (const EntityId e : {c.a, c.b})
      if (!world.entities()[e].is_static && r > rank[e]) {
        rank[e] = r;
        tints[e] = tint;
      }
  }
}

double eccentricity_radius_px(const ScreenSettings& screen, double fixation_x_px, double fixation_y_px,
                              double angle_rad, double eccentricity_deg) {
  const double dx = std::cos(angle_rad), dy = std::sin(angle_rad);
  const auto angle_at = [&](double r) {
    return screen_visual_angle_deg(screen, fixation_x_px, fixation_y_px, fixation_x_px + r * dx, fixation_y_px + r * dy);
  };
  // The angle grows with r along the ray; bracket the ring, then bisect to a hundredth of a pixel.
  double hi = 0.25 * std::max(screen.width_px, screen.height_px);
  constexpr double kFarthest_px = 1e7;
  while (angle_at(hi) < eccentricity_deg) {
    hi *= 2;
    if (hi > kFarthest_px) return std::numeric_limits<double>::quiet_NaN();
  }
  double lo = 0;
  while (hi - lo > 0.01) {
    const double mid = 0.5 * (lo + hi);
    (angle_at(mid) < eccentricity_deg ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void draw_fixation(Canvas& canvas, const ScreenSettings& screen, const FrameGaze& gaze, std::span<const double> rings_deg) {
  const double x = gaze.x_px, y = gaze.y_px;
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  // Pixels scale with the screen: a cross of about 1/60 of its height.
  const double arm = std::max(6.0, screen.height_px / 60.0), width = 2.0;
  const Rgba8 marker{255, 255, 255, 230};
  canvas.line(x - arm, y, x + arm, y, width, marker);
  canvas.line(x, y - arm, x, y + arm, width, marker);
  constexpr int kDirections = 96;
  std::vector<double> xy;
  for (const double e : rings_deg) {
    xy.clear();
    for (int i = 0; i < kDirections; ++i) {
      const double a = 2 * std::numbers::pi * i / kDirections;
      const double r = eccentricity_radius_px(screen, x, y, a, e);
      if (!std::isfinite(r)) {
        xy.clear();
        break;
      }
      xy.push_back(x + r * std::cos(a));
      xy.push_back(y + r * std::sin(a));
    }
    if (!xy.empty()) canvas.polygon(xy, width, Rgba8{255, 255, 255, 110});
  }
}

void draw_world_box(Canvas& canvas, const View& view, const Aabb& box) {
  const auto corner = [&](int i) {
    return Vec3((i & 1) ? box.max_m.x : box.min_m.x, (i & 2) ? box.max_m.y : box.min_m.y, (i & 4) ? box.max_m.z : box.min_m.z);
  };
  for (int i = 0; i < 8; ++i)
    for (int axis = 1; axis < 8; axis <<= 1) {
      if (i & axis) continue;  // each edge once, from its lower corner
      const ScreenPoint a = view.project(corner(i)), b = view.project(corner(i | axis));
      // An edge that crosses behind the camera would need clipping; leave it out instead.
      if (a.in_front && b.in_front) canvas.line(a.x_px, a.y_px, b.x_px, b.y_px, 1.5, Rgba8{160, 170, 190, 140});
    }
}

void draw_gaps(Canvas& canvas, const Animation& world) {
  const NarrowPhase& narrow = world.narrowphase();
  const double width = 2.5;
  for (const std::uint32_t slot : narrow.order()) {
    const Collision& c = narrow.collision(slot);
    if (!c.interrupted || c.status != CollisionStatus::colliding) continue;
    const GapEstimate g = narrow.gap_estimate(slot, world.states());
    const ScreenPoint a = world.view().project(g.sphere_a_m), b = world.view().project(g.sphere_b_m);
    if (!a.in_front || !b.in_front) continue;
    canvas.line(a.x_px, a.y_px, b.x_px, b.y_px, width, Rgba8{255, 60, 200, 255});
  }
}

void draw_sphere_tree(Canvas& canvas, const Animation& world, EntityId entity, int level) {
  if (!world.is_live(entity)) return;
  const Entity& e = world.entities()[entity];
  const EntityState& s = world.states()[entity];
  // The narrow phase's tree: the whole tree, or of an on-demand tree (001) the nodes built
  // so far, so the picture shows how deep collisions have made it. A branch not built as
  // deep as `level` is drawn where it ends.
  const CollisionModel& tree = world.narrowphase().model(e.model);
  const View& view = world.view();
  std::vector<std::pair<std::uint32_t, int>> stack{{0, 0}};
  while (!stack.empty() && !tree.spheres.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    const std::uint8_t children = tree.child_count[node];
    if (depth < level && children != 0 && children != kChildrenNotBuilt) {
      for (std::uint32_t k = 0; k < children; ++k) stack.push_back({tree.first_child[node] + k, depth + 1});
      continue;
    }
    const ScreenPoint p = view.project(s.position_m + s.orientation * tree.spheres[node].centre_m);
    if (!p.in_front) continue;
    // A sphere's outline on the screen, taken as the circle of its radius at its centre's
    // depth: exact on the axis, a little small toward the picture's edges.
    const double r = tree.spheres[node].radius_m * view.pixels_per_metre(p.depth_m);
    canvas.circle(p.x_px, p.y_px, r, 1.5, Rgba8{80, 220, 255, 200}, 32);
  }
}

void draw_frame_graph(Canvas& canvas, const ScreenSettings& screen, std::span<const float> frame_ms, double target_ms) {
  if (frame_ms.empty()) return;
  const double height = screen.height_px / 8.0, bar = std::max(1.0, screen.width_px / 4.0 / 240.0);
  const double left = 10, bottom = screen.height_px - 10.0;
  // The scale holds twice the target, or the slowest frame shown.
  double top_ms = 2 * target_ms;
  for (const float ms : frame_ms) top_ms = std::max(top_ms, double{ms});
  canvas.rectangle(left, bottom - height, left + bar * static_cast<double>(frame_ms.size()), bottom, Rgba8{0, 0, 0, 120});
  for (std::size_t i = 0; i < frame_ms.size(); ++i) {
    const double h = std::clamp(frame_ms[i] / top_ms, 0.0, 1.0) * height;
    const bool late = frame_ms[i] > target_ms * 1.05;
    canvas.rectangle(left + bar * static_cast<double>(i), bottom - h, left + bar * static_cast<double>(i + 1), bottom,
                     late ? Rgba8{255, 90, 60, 220} : Rgba8{120, 220, 120, 220});
  }
  const double target_y = bottom - target_ms / top_ms * height;
  canvas.line(left, target_y, left + bar * static_cast<double>(frame_ms.size()), target_y, 1.0, Rgba8{255, 255, 255, 200});
}

long pick_entity(const Animation& world, double x_px, double y_px) {
  long best = -1;
  double best_depth = std::numeric_limits<double>::infinity();
  const View& view = world.view();
  for (EntityId id = 0; id < world.entities().size(); ++id) {
    if (!world.entities()[id].live) continue;
    const ScreenPoint p = view.project(world.states()[id].position_m);
    if (!p.in_front) continue;
    const double r = world.entities()[id].bounding_radius_m * view.pixels_per_metre(p.depth_m);
    if (std::hypot(p.x_px - x_px, p.y_px - y_px) <= r && p.depth_m < best_depth) {
      best_depth = p.depth_m;
      best = static_cast<long>(id);
    }
  }
  return best;
}

}  // namespace fovea
