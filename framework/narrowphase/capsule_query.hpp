#pragma once

#include <cstdint>
#include <vector>

#include "core/math.hpp"
#include "narrowphase/collision_model.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "world/entity.hpp"

namespace fovea {

/// A capsule in world space: every point within radius_m of the segment a_m..b_m. The
/// rockfall's player (004 section 1: "a user must navigate through a rockfall"); a == b
/// makes it a sphere.
struct Capsule {
  Vec3 a_m{0.0};          ///< one end of the core segment
  Vec3 b_m{0.0};          ///< the other end
  double radius_m = 0;    ///< a person's half-width, typically 0.25 to 0.3 m
};

/// What capsule_touch found.
struct CapsuleContact {
  bool touching = false;        ///< a leaf sphere of the tree touches the capsule
  std::uint32_t node = 0;       ///< that leaf's node index (0 when not touching)
  std::uint32_t sphere_tests = 0;  ///< sphere-capsule tests made, the descent's cost
};

/// Distance from `p` to the segment a..b (a == b allowed: then the distance to a).
double segment_point_distance_m(const Vec3& a, const Vec3& b, const Vec3& p);

/// Whether a rock's sphere tree touches the player's capsule: a depth-first descent from the
/// root that tests a node against the capsule and goes into its children only when it may
/// hold a touching leaf; it stops at the first touching leaf (children in node order, so the
/// answer is deterministic). A leaf touches when the distance from its centre to the
/// capsule's segment is at most its radius plus the capsule's.
///
/// The walk is walk_leaf_reach (leaf_reach_walk.hpp), which the walls' contacts share.
/// Inner nodes are pruned on their leaf reach (CollisionModel::leaf_reach_m), not on their
/// own radius: an octree parent's sphere need not hold its children's, so pruning on the
/// radius would miss a leaf that bulges out of its parent's sphere towards the capsule. On
/// leaf reach the answer is exactly "does any leaf sphere touch"
/// (tests/narrowphase/capsule_query_test.cpp checks it against every leaf).
///
/// `stack` is scratch, reused between calls: no allocation once it has grown to the tree's
/// depth times its branching.
CapsuleContact capsule_touch(const CollisionModel& model, const EntityState& state, const Capsule& capsule,
                             std::vector<std::uint32_t>& stack);
/// The same on a tree that may be on demand (001): the nodes the search goes into grow.
CapsuleContact capsule_touch(GrowableModel model, const EntityState& state, const Capsule& capsule,
                             std::vector<std::uint32_t>& stack);

}  // namespace fovea
