#pragma once

#include <vector>

#include "spheretree/model_depth.hpp"
#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// What decides a medial tree (build_medial_sphere_tree); the same options and model give the same tree.
struct MedialBuildOptions {
  int levels = 4;             ///< levels of spheres below the root
  bool remove_hidden = true;  ///< cover the surface voxels only (as the octree tree with hidden nodes removed)
  int branching = 8;          ///< most children per node, 2 to 8
};

/// Builds a sphere tree whose spheres sit on the model's medial axis (docs/spheretree.md,
/// "The medial builder").
///
/// Each node covers a set of voxels (the surface voxels, or all occupied ones when hidden
/// nodes are kept); the root covers them all, and a node's children split its set between
/// them. A sphere's protrusion, the farthest any point of it lies from the model, is at most
/// r - D(c) for a sphere of radius r centred where the model is at least D(c) deep (the
/// sphere of radius D(c) about c lies in the model). So a node's children are chosen, among
/// centres on the medial axis of an exact distance transform, to minimise the worst of
/// r - D(c) over them: a greedy k-centre choice, then exchanges (assign each voxel to the
/// child that needs the least protrusion to hold it, move each centre downhill) in the
/// spirit of Bradshaw and O'Sullivan's medial-axis merge and expand algorithms. Each node takes
/// the fewest children within 5 % of its best split's worst bound (the Toolkit's balance rule).
///
/// The guarantee the descent needs holds by construction, as in the octree tree: every voxel
/// a node covers is wholly (all eight corners) inside its sphere and inside one child's (radii
/// are raised past floating-point rounding). A
/// branch ends at `levels` or where its node covers a single voxel. Deterministic. Has no
/// octree cells (cell_min and cell_max stay empty), so it cannot grow on demand.
SphereTree build_medial_sphere_tree(const VoxelModel& model, const MedialBuildOptions& options = {});

}  // namespace fovea
