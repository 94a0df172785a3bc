#pragma once

#include <cstddef>
#include <cstdint>

#include "core/math.hpp"
#include "world/entity.hpp"

namespace fovea {

/// Collisions one task takes when a frame's per-collision bookkeeping runs on the threads
/// (restarting the descents, placing collisions on screen, remembering them). Serially, the
/// two placements of a 100,000-ball frame took 9.2 ms for about 10,800 collisions
/// (docs/scale.md), some 400 ns a collision each: a task of 512 is about 0.2 ms of work, far
/// above what waking a thread costs, and 10,000 collisions still make about 20 tasks, which
/// ThreadPool caps at four a thread.
inline constexpr std::size_t kCollisionsPerTask = 512;

/// A record of the descent's state (004 section 3.3.2): a target sphere on one tree and a
/// test list on the other. The test list is always a run of siblings, the children of one
/// node (or the other tree's root at the start), so two indices hold it.
struct SphereHit {
  std::uint32_t target = 0;      ///< node on the target's tree
  std::uint32_t test_begin = 0;  ///< first node of the test list, on the other tree
  std::uint16_t test_count = 0;  ///< nodes in the test list
  std::uint8_t target_tree = 0;  ///< 0: the target is on entity a's tree; 1: on b's
};

/// 004 section 3.1: "colliding, not colliding, or further processing required".
enum class CollisionStatus : std::uint8_t {
  needs_more_work,  ///< on the active list
  colliding,        ///< on the real list: a leaf-leaf intersection, or interrupted and accepted
  not_colliding,    ///< resolved apart, or interrupted and dropped
};

/// Where coherence across frames stands for one collision this frame
/// (step_witness in narrow_phase.cpp).
enum class WitnessState : std::uint8_t {
  none,     ///< nothing from last frame: the descent starts at the roots
  pending,  ///< the chain of pairs down to last frame's deepest pair is being tested
  below,    ///< the chain held: the descent goes on below that pair (or found a leaf pair there)
  failed,   ///< the chain broke, or nothing below the pair intersects: the descent starts at the roots
};

/// Two spheres found intersecting, one on each tree: the deepest such pair bounds the gap
/// and places the centre of collision (004 section 3.4.2, figure 4).
struct SpherePair {
  std::uint32_t node_a = 0;  ///< on entity a's tree
  std::uint32_t node_b = 0;  ///< on entity b's tree
};

/// What a sphere pair's gap bound reads of its two nodes (NarrowPhase::pair_gap_estimate), copied
/// out of the trees: the bound at any later poses needs no node, so it outlives an on-demand
/// tree's eviction (DescentMemory, refined priorities). Each sphere in its own entity's
/// centre-of-mass frame, as CollisionModel holds it.
struct SpherePairGeometry {
  Vec3 centre_a_m{0.0};      ///< a's sphere's centre, m in a's centre-of-mass frame
  Vec3 centre_b_m{0.0};      ///< b's sphere's centre, m in b's centre-of-mass frame
  double radius_a_m = 0;     ///< a's sphere's radius, m
  double radius_b_m = 0;     ///< b's sphere's radius, m
  double gap_slack_a_m = 0;  ///< a's sphere's gap slack (CollisionModel::gap_slack_m), m
  double gap_slack_b_m = 0;  ///< b's sphere's gap slack, m
};

/// An axis-aligned box in entity a's centre-of-mass frame: the region every contact of a
/// collision's two trees lies in, when the descent prunes to the overlap region (003;
/// narrow_phase.cpp, set_overlap_region). Empty (lo_m +inf, hi_m and half_m -inf) when the
/// two trees' leaves cannot touch.
struct OverlapRegion {
  Vec3 lo_m{0.0};    ///< the box's low corner, m in a's centre-of-mass frame
  Vec3 hi_m{0.0};    ///< the box's high corner, m in the same frame
  Vec3 half_m{0.0};  ///< (hi_m - lo_m) / 2
};

/// One potential collision: a pair of entities whose broad-phase boxes overlap (004 section
/// 3.1, "Collision"). It lives while the pair overlaps; its descent starts again from the
/// roots every frame, because the poses have moved and last frame's hits prove nothing,
/// unless coherence across frames hands it last frame's deepest pair to re-test first
/// (`witness`, narrow_phase.cpp).
///
/// Its sphere hits live in the NarrowPhase's shared pool (ranges below), so a Collision is
/// plain data and the descent allocates nothing in the steady state.
struct Collision {
  EntityId a = 0;  ///< a < b
  EntityId b = 0;  ///< the pair's other entity, b > a
  ModelId model_a = 0;  ///< entity a's model: the CollisionModel the descent walks on a's side
  ModelId model_b = 0;  ///< entity b's model
  CollisionStatus status = CollisionStatus::needs_more_work;  ///< where the descent stands (004 section 3.1)
  /// Set when the budget ran out with the collision unresolved (outcome 4); the status then
  /// says what the interrupt policy made of it.
  bool interrupted = false;
  /// The first frame of the current overlap.
  std::int64_t first_frame = 0;

  // The descent (narrowphase/narrow_phase.cpp), as ranges of the hit pool.
  std::uint32_t hits_begin = 0;      ///< the current level's sphere hits: [hits_begin, hits_end)
  std::uint32_t hits_end = 0;        ///< one past the current level's last hit
  std::uint32_t cursor = 0;          ///< the next hit of the current level to process
  std::uint32_t next_begin = 0;      ///< the next level's, made as the current one is processed
  std::uint32_t next_end = 0;        ///< one past the next level's last hit so far
  std::int32_t levels_done = 0;      ///< levels of the descent completed this frame
  std::int64_t sphere_tests = 0;     ///< sphere-sphere tests this frame
  bool tested_any = false;           ///< whether any sphere pair has been found intersecting
  SpherePair leaf_pair;              ///< the leaf-leaf intersection, when resolved colliding

  // Coherence across frames (NarrowPhaseSettings::coherence): last frame's deepest sphere
  // pair, whose chain of sphere pairs from the roots is re-tested before the descent goes on
  // below it; from the roots where it does not hold.
  WitnessState witness = WitnessState::none;  ///< how far this frame's re-test of that chain got
  std::uint8_t witness_split = 0;    ///< the tree split last on the chain: 0 a's, 1 b's
  SpherePair witness_target;         ///< last frame's deepest pair: its leaf pair, or its frontier's tightest
  SpherePair witness_at;             ///< the chain's next pair to test
  std::int64_t witness_tests = 0;    ///< sphere tests the chain took this frame

  // b's model space to a's: a tree-b centre c sits at b_to_a_rotation * c + b_to_a_offset_m
  // in a's model space, where a's centres need no transform (narrow_phase.cpp).
  Mat3 b_to_a_rotation{1.0};  ///< rotates b's centre-of-mass frame into a's: R_a^T R_b, set by begin_frame
  Vec3 b_to_a_offset_m{0.0};  ///< b's centre of mass in a's frame, m: R_a^T (p_b - p_a)
  /// The overlap region (003), in a's model space: set by begin_frame only while
  /// NarrowPhaseSettings::prune_to_overlap is on, and read only then.
  OverlapRegion overlap;

  // Perception (004 section 3.4.2). The priority is f(e, g) at the start of the frame, from
  // the entities' centres; the placement below is that too, except for collisions treated
  // as colliding, placed again at the end of the frame from their deepest spheres.
  double centre_x_px = 0;         ///< the centre of collision on the screen (meaningless when not visible)
  double centre_y_px = 0;         ///< from the screen's top edge, y down
  double gap_bound_m = 0;         ///< upper bound on the 3D gap between the two models
  double eccentricity_deg = 0;    ///< visual angle from the fixation point to the centre of collision, deg
  double gap_deg = 0;             ///< the gap bound as the eye sees it at the centre of collision, deg
  bool visible = false;           ///< the centre of collision is on screen
  double probability = 0;         ///< f(e, g) for the placement above; 0 when not visible
  double priority = 0;            ///< f(e, g) at the start of the frame when visible, -1 otherwise
  std::int32_t queue = 0;         ///< priority queue, for the priority-queue schedulers
  /// The oracle's key: f at the true gap from the exact voxel test, 0 where the voxels touch
  /// (repulsing them leaves no gap): what leaving it unresolved adds to p_true. Set only for
  /// the oracle.
  double true_priority = 0;
};

}  // namespace fovea
