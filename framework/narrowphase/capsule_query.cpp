#include "narrowphase/capsule_query.hpp"

namespace fovea {

double segment_point_distance_m(const Vec3& a, const Vec3& b, const Vec3& p) {
  const Vec3 ab = b - a;
  const double length_sq = glm::dot(ab, ab);
  // The nearest point a + t (b - a), t clamped to the segment; a point segment has t = 0.
  const double t = length_sq > 0 ? glm::clamp(glm::dot(p - a, ab) / length_sq, 0.0, 1.0) : 0.0;
  return glm::length(p - (a + t * ab));
}

namespace {

/// The search, with `use_children(node)` called before a node's children are read.
template <class UseChildren>
CapsuleContact touch(const CollisionModel& model, const EntityState& state, const Capsule& capsule,
                     std::vector<std::uint32_t>& stack, UseChildren&& use_children) {
  CapsuleContact contact;
  if (model.spheres.empty()) return contact;
  // The segment is moved into the centre-of-mass frame once (c = R^T (x - p)) instead of
  // every sphere centre into the world: distances are the same under a rigid motion.
  const Quat to_model = glm::conjugate(state.orientation);
  const Vec3 a_m = to_model * (capsule.a_m - state.position_m);
  const Vec3 b_m = to_model * (capsule.b_m - state.position_m);
  stack.clear();
  stack.push_back(0);
  while (!stack.empty()) {
    const std::uint32_t node = stack.back();
    stack.pop_back();
    ++contact.sphere_tests;
    // A leaf's reach is its own radius, so one test serves leaves and inner nodes.
    const double distance_m = segment_point_distance_m(a_m, b_m, model.spheres[node].centre_m);
    if (distance_m > model.leaf_reach_m[node] + capsule.radius_m) continue;
    if (model.is_leaf(node)) {
      contact.touching = true;
      contact.node = node;
      return contact;
    }
    use_children(node);
    // Children pushed last first, so they are visited in node order.
    for (std::uint32_t k = model.child_count[node]; k-- > 0;) stack.push_back(model.first_child[node] + k);
  }
  return contact;
}

}  // namespace

CapsuleContact capsule_touch(const CollisionModel& model, const EntityState& state, const Capsule& capsule,
                             std::vector<std::uint32_t>& stack) {
  return touch(model, state, capsule, stack, [](std::uint32_t) {});
}

CapsuleContact capsule_touch(GrowableModel model, const EntityState& state, const Capsule& capsule,
                             std::vector<std::uint32_t>& stack) {
  return touch(*model.model, state, capsule, stack, [&](std::uint32_t node) { model.use_children(node); });
}

}  // namespace fovea
