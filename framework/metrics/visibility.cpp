#include "metrics/visibility.hpp"

#include <algorithm>

#include "narrowphase/capsule_query.hpp"
#include "narrowphase/on_demand_tree.hpp"

namespace fovea {

namespace {

/// A bounding sphere or an inner node's leaf reach rejects the segment only when the segment
/// misses it by more than this. It covers rounding: the root's centre moved to the world,
/// the segment moved to the model frame, and each leaf reach a sum of rounded terms
/// (|c_child - c_node| + reach_child) are each off by a few ulp of the coordinates, about
/// 1e-14 m in a world tens of metres across. Without it, a leaf that the segment just touches
/// could be pruned by rounding in its parent's test, and the fast path would disagree with
/// the oracle. It only ever sends the descent one node further.
constexpr double kPruneMargin_m = 1e-9;

/// The segment in an entity's centre-of-mass frame, where its spheres' centres are:
/// p' = R^T (p - position), two rotations per entity instead of one per sphere visited.
/// Both paths test leaves in this frame, so that they round alike.
struct ModelSegment {
  Vec3 eye_m{0.0};
  Vec3 point_m{0.0};
};

ModelSegment to_model_frame(const EntityState& state, const Vec3& eye_m, const Vec3& point_m) {
  const Quat to_model = glm::conjugate(state.orientation);
  return {to_model * (eye_m - state.position_m), to_model * (point_m - state.position_m)};
}

/// Whether the descent stops at `node`: a leaf, or a node of an on-demand tree whose
/// children are not built (its first_child and child_count then say nothing about children).
bool ends_descent(const CollisionModel& m, std::uint32_t node) {
  return m.child_count[node] == 0 || m.child_count[node] == kChildrenNotBuilt;
}

/// The one closed test of a node where the descent stops, shared by both paths: the segment
/// comes within the leaf's radius of its centre. A node whose children are not built stands
/// for its leaves by its leaf reach, which holds them all (the header's paragraph).
bool end_node_blocks(const CollisionModel& m, std::uint32_t node, const ModelSegment& s) {
  const double radius_m = m.is_leaf(node) ? m.spheres[node].radius_m : m.leaf_reach_m[node];
  return segment_point_distance_m(s.eye_m, s.point_m, m.spheres[node].centre_m) <= radius_m;
}

/// The fast path's descent below `node`, pruned on leaf reach (not on a node's own radius:
/// an octree parent's sphere need not hold its children's). Recursive rather than on a
/// stack vector so that the query needs no scratch: the depth is the tree's, at most 255.
bool descent_blocks(const CollisionModel& m, std::uint32_t node, const ModelSegment& s) {
  if (ends_descent(m, node)) return end_node_blocks(m, node, s);
  if (segment_point_distance_m(s.eye_m, s.point_m, m.spheres[node].centre_m) > m.leaf_reach_m[node] + kPruneMargin_m)
    return false;
  for (std::uint32_t k = 0; k < m.child_count[node]; ++k)
    if (descent_blocks(m, m.first_child[node] + k, s)) return true;
  return false;
}

}  // namespace

void OcclusionQuery::begin_frame(std::span<const CollisionModel> models, std::span<const Entity> entities,
                                 std::span<const EntityState> states) {
  models_ = models;
  states_ = states;
  occluders_.clear();
  for (std::size_t i = 0; i < entities.size(); ++i) {
    const Entity& e = entities[i];
    if (!e.live) continue;
    const CollisionModel& m = models[e.model];
    if (m.spheres.empty()) continue;
    // The root's leaf reach, not bounding_radius_m: that one holds the voxels (their
    // farthest corner), and leaf spheres bulge past them.
    const EntityState& state = states[i];
    occluders_.push_back({state.position_m + state.orientation * m.spheres[0].centre_m, m.leaf_reach_m[0], e.model,
                          static_cast<EntityId>(i)});
  }
}

bool OcclusionQuery::occluded(const Vec3& eye_m, const Vec3& point_m, EntityId skip_a, EntityId skip_b) const {
  // The segment eye + t d, t in [0, 1]; 1 / |d|^2 once per query, as the scan below runs
  // once per entity. A point segment (eye == point) has t = 0.
  const Vec3 d = point_m - eye_m;
  const double length_sq = glm::dot(d, d);
  const double inverse_length_sq = length_sq > 0 ? 1.0 / length_sq : 0.0;
  for (const Occluder& o : occluders_) {
    if (o.entity == skip_a || o.entity == skip_b) continue;
    const Vec3 to_centre = o.centre_m - eye_m;
    const double t = std::clamp(glm::dot(to_centre, d) * inverse_length_sq, 0.0, 1.0);
    const Vec3 off = to_centre - t * d;
    const double reach_m = o.reach_m + kPruneMargin_m;
    if (glm::dot(off, off) > reach_m * reach_m) continue;
    if (descent_blocks(models_[o.model], 0, to_model_frame(states_[o.entity], eye_m, point_m))) return true;
  }
  return false;
}

bool occluded_by_any_leaf(std::span<const CollisionModel> models, std::span<const Entity> entities,
                          std::span<const EntityState> states, const Vec3& eye_m, const Vec3& point_m, EntityId skip_a,
                          EntityId skip_b) {
  std::vector<std::uint32_t> stack;
  for (std::size_t i = 0; i < entities.size(); ++i) {
    const auto id = static_cast<EntityId>(i);
    if (id == skip_a || id == skip_b || !entities[i].live) continue;
    const CollisionModel& m = models[entities[i].model];
    if (m.spheres.empty()) continue;
    const ModelSegment s = to_model_frame(states[i], eye_m, point_m);
    // Every node reachable from the root, none skipped; only those where the descent stops
    // are tested.
    stack.assign(1, 0);
    while (!stack.empty()) {
      const std::uint32_t node = stack.back();
      stack.pop_back();
      if (ends_descent(m, node)) {
        if (end_node_blocks(m, node, s)) return true;
        continue;
      }
      for (std::uint32_t k = 0; k < m.child_count[node]; ++k) stack.push_back(m.first_child[node] + k);
    }
  }
  return false;
}

}  // namespace fovea
