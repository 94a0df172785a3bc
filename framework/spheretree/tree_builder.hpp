#pragma once

#include <string_view>

#include "spheretree/octree_builder.hpp"
#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {


/// Everything that decides a built tree. Same options and model, same tree, to the bit.
struct SphereTreeBuildOptions {
  SphereTreeBuilder builder = SphereTreeBuilder::octree;  ///< octree, medial, or tightest (both, keep the tighter)
  int levels = 4;             ///< levels of spheres below the root (004 section 3.3: four)
  bool remove_hidden = true;  ///< cover only the surface voxels (004 section 3.3.1, last step)
  SphereFit fit = SphereFit::cell;  ///< octree spheres; the medial builder always fits its own
  int branching = 8;          ///< most children per node of a medial tree (octree nodes have at most 8)
};

/// What build_sphere_tree() made, and, for `tightest`, which builder won.
struct BuiltSphereTree {
  SphereTree tree;  ///< the tree built
  /// The builder that made it: `builder` itself, or the winner for `tightest`.
  SphereTreeBuilder used = SphereTreeBuilder::octree;
};

/// Builds the tree `options` ask for. Throws std::invalid_argument for a model with no occupied
/// voxel or options out of range (levels outside [0, 255], branching outside [2, 8]).
BuiltSphereTree build_sphere_tree(const VoxelModel& model, const SphereTreeBuildOptions& options);

/// How much tighter tree `a` is than tree `b` of the same model at equal sphere counts: the
/// mean, over the depths of both, of log(worst protrusion of one / worst protrusion of the
/// other at the same number of spheres), the other's interpolated linearly in log(spheres)
/// between its depths. Negative when `a` is tighter. Protrusions are the upper bounds of
/// ModelDepth::protrusion_bound_voxels, so loaded and built trees compare alike.
double compare_tree_tightness(const VoxelModel& model, const SphereTree& a, const SphereTree& b);

/// The octree options within `options` (for the on-demand grower, which grows octree trees only).
inline OctreeBuildOptions octree_build_options(const SphereTreeBuildOptions& options) {
  return {options.levels, options.remove_hidden, options.fit};
}

}  // namespace fovea
