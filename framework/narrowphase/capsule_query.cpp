#include "narrowphase/capsule_query.hpp"

#include "narrowphase/leaf_reach_walk.hpp"

namespace fovea {

double segment_point_distance_m(const Vec3& a, const Vec3& b, const Vec3& p) {
  const Vec3 ab = b - a;
  const double length_sq = glm::dot(ab, ab);
  // The nearest point a + t (b - a), t clamped to the segment; a point segment has t = 0.
  const double t = length_sq > 0 ? glm::clamp(glm::dot(p - a, ab) / length_sq, 0.0, 1.0) : 0.0;
  return glm::length(p - (a + t * ab));
}

namespace {

/// The search on `tree`, a whole CollisionModel or a GrowableModel over `model`.
template <class Tree>
CapsuleContact touch(const Tree& tree, const CollisionModel& model, const EntityState& state, const Capsule& capsule,
                     std::vector<std::uint32_t>& stack) {
  CapsuleContact contact;
  // The segment is moved into the centre-of-mass frame once (c = R^T (x - p)) instead of
  // every sphere centre into the world: distances are the same under a rigid motion.
  const Quat to_model = glm::conjugate(state.orientation);
  const Vec3 a_m = to_model * (capsule.a_m - state.position_m);
  const Vec3 b_m = to_model * (capsule.b_m - state.position_m);
  walk_leaf_reach(
      tree, stack,
      [&](std::uint32_t node) {
        ++contact.sphere_tests;
        // A leaf's reach is its own radius, so one test serves leaves and inner nodes.
        const double distance_m = segment_point_distance_m(a_m, b_m, model.spheres[node].centre_m);
        return distance_m > model.leaf_reach_m[node] + capsule.radius_m;
      },
      [&](std::uint32_t node) {
        contact.touching = true;
        contact.node = node;
        return false;  // the first touching leaf answers
      });
  return contact;
}

}  // namespace

CapsuleContact capsule_touch(const CollisionModel& model, const EntityState& state, const Capsule& capsule,
                             std::vector<std::uint32_t>& stack) {
  return touch(model, model, state, capsule, stack);
}

CapsuleContact capsule_touch(GrowableModel model, const EntityState& state, const Capsule& capsule,
                             std::vector<std::uint32_t>& stack) {
  return touch(model, *model.model, state, capsule, stack);
}

}  // namespace fovea
