#pragma once

#include <span>
#include <vector>

#include "core/math.hpp"
#include "narrowphase/collision_model.hpp"
#include "world/entity.hpp"

// Whether the viewer can see a world point, a gap between two entities, or whether another
// entity stands in the way: the straight segment from the eye (View::camera_position_m())
// to the point is blocked when it passes through or touches a leaf sphere of another live
// entity.
//
// Why leaf spheres and not voxels: they are what the frame already holds for every entity
// (CollisionModel), and a segment-sphere test is a handful of operations. Leaf spheres
// over-cover the voxels by the tree's protrusion (a one-voxel leaf's sphere reaches
// (sqrt(3) - 1) / 2, about 0.37 of a voxel, past its faces; a larger leaf further), so a
// segment that passes just outside an entity's voxels may count as blocked: occlusion is
// slightly overestimated. It is never underestimated for an eye outside every entity: a
// segment that reaches a voxel crosses a surface voxel first, and an octree tree's leaves
// hold every surface voxel (spheretree/octree_builder.hpp). The gap's own two entities are
// skipped: the point lies between them or on one of them, inside or beside their bulging
// leaves, so they would hide it always. The world box's walls are not occluders: the
// camera looks into the box through them. On a tree grown on demand (001), a node whose children are
// not built yet stands for its leaves by its leaf reach, a bound on them, so there too
// occlusion errs towards blocked.
//
// OcclusionQuery is the fast path; occluded_by_any_leaf the brute-force oracle of its tests
// (tests/metrics/visibility_test.cpp). Both test leaves with the same function in the same
// frame, and the fast path prunes only with a margin above rounding, so they give exactly
// the same answer. Neither is wired into the frame.

namespace fovea {

/// The occluders of one frame: every live entity with spheres, as a world-space sphere that
/// holds all its leaf spheres. Built once a frame by begin_frame(), then any number of
/// segment queries. Cost of a query: one segment-sphere test per occluder (a linear scan,
/// 3 to 5 ns each in Release: 3 to 5 us for 1000 entities), plus a descent of the trees of
/// those whose bounding sphere the segment touches, ended by the first leaf that blocks.
/// No allocation once the storage has grown to the entity count.
class OcclusionQuery {
 public:
  /// Takes this frame's world. `models` and `states` are kept, not copied: they must stay
  /// valid and unchanged until the last query of the frame. `states` is indexed as `entities`;
  /// `models` by Entity::model, each either empty (the entity is skipped) or a tree whose
  /// leaf_reach_m is set (make_collision_model, TreeGrower).
  void begin_frame(std::span<const CollisionModel> models, std::span<const Entity> entities,
                   std::span<const EntityState> states);

  /// Whether the segment from `eye_m` to `point_m` (world space) passes through or touches
  /// (closed test) a leaf sphere of any live entity other than `skip_a` and `skip_b`, the
  /// gap's own two entities (pass the same id twice for a point of one entity). Exactly
  /// occluded_by_any_leaf's answer on the world begin_frame() took.
  bool occluded(const Vec3& eye_m, const Vec3& point_m, EntityId skip_a, EntityId skip_b) const;

  /// Entities that can occlude this frame: live, with spheres.
  std::size_t occluder_count() const { return occluders_.size(); }

 private:
  /// A live entity's leaf spheres held by one world sphere: its root's centre and leaf reach.
  struct Occluder {
    Vec3 centre_m{0.0};  ///< the root sphere's centre, world space
    double reach_m = 0;  ///< CollisionModel::leaf_reach_m of the root
    ModelId model = 0;
    EntityId entity = 0;
  };

  std::span<const CollisionModel> models_;
  std::span<const EntityState> states_;
  std::vector<Occluder> occluders_;  ///< in entity order
};

/// The oracle: the same question answered by testing the segment against every leaf sphere
/// of every other live entity, no pruning. Cost: about 13 ns per leaf of the world (0.3 ms
/// for a visible point among 200 rocks of 10 voxels, 25 000 leaves); for tests.
bool occluded_by_any_leaf(std::span<const CollisionModel> models, std::span<const Entity> entities,
                          std::span<const EntityState> states, const Vec3& eye_m, const Vec3& point_m, EntityId skip_a,
                          EntityId skip_b);

}  // namespace fovea
