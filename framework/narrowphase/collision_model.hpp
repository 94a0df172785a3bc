#pragma once

#include <cstdint>
#include <vector>

#include "core/math.hpp"
#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// A sphere in the descent's layout: centre and radius together, 32 bytes, so a test list
/// (a run of siblings) is one contiguous read.
struct DescentSphere {
  Vec3 centre_m{0.0};  ///< relative to the model's centre of mass
  double radius_m = 0;  ///< the sphere's radius, m
};

/// A model's sphere tree as the descent reads it (narrow_phase.cpp), built once per model.
///
/// Centres are moved to the centre-of-mass frame, where entity poses apply directly. Each
/// sphere also carries its gap slack: the distance from its centre to the nearest point of
/// the model's voxels. 004 section 3.4.2 bounds the gap left by two intersecting spheres by
/// the distance between their centres; that holds only where both centres lie in the model,
/// and an octree sphere's centre may sit in empty space (the middle of an L, between a
/// figure's legs). Adding both slacks makes it a bound that always holds: the two nearest
/// model points are at most |c_a - c_b| + slack_a + slack_b apart (docs/narrowphase.md).
struct CollisionModel {
  std::vector<DescentSphere> spheres;       ///< by node, as in the SphereTree
  std::vector<std::uint32_t> first_child;   ///< as in the SphereTree
  std::vector<std::uint8_t> child_count;    ///< by node: 0 for a leaf, kChildrenNotBuilt where not grown
  std::vector<std::uint32_t> parent;        ///< parent node; the root's is itself
  std::vector<double> gap_slack_m;          ///< by node, see above
  /// By node: the radius about its centre that holds every leaf sphere below it (a leaf's
  /// own radius). Leaf spheres bulge past the voxels, and an octree parent's sphere need not
  /// hold its children's, so neither the bounding radius nor a node's sphere bounds them.
  std::vector<double> leaf_reach_m;
  double centre_slack_m = 0;                ///< the same for the centre of mass
  double bounding_radius_m = 0;             ///< around the centre of mass, any orientation

  /// No children, ever: an on-demand node not grown yet (kChildrenNotBuilt) is not a leaf.
  bool is_leaf(std::uint32_t node) const { return child_count[node] == 0; }
};

/// The leaf reach of inner node `node` from its children's: max over the children of
/// |c_child - c_node| + leaf_reach_child, a child's leaf spheres being no farther than its
/// reach from its own centre. Reads the children's spheres and leaf reach, which must be set.
double leaf_reach_from_children_m(const CollisionModel& m, std::uint32_t node);

/// Prepares `tree` of `model` for the descent; `centre_of_mass_model_m` is the entity's
/// centre of mass in model space.
CollisionModel make_collision_model(const SphereTree& tree, const VoxelModel& model, const Vec3& centre_of_mass_model_m,
                                    double bounding_radius_m);

/// Exact distance from `point_m` (model space) to the nearest point of the model's occupied
/// voxels (closed cubes): 0 inside or on one. Searches outward from the point's cell, shell
/// by shell, and stops once no farther shell can hold anything nearer.
double distance_to_voxels_m(const VoxelModel& model, const Vec3& point_m);

}  // namespace fovea
