#pragma once

#include <cstddef>
#include <vector>

#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// How much inflate_sphere_tree() grew the spheres of one depth.
struct LevelInflation {
  int depth = 0;                     ///< levels below the root (0: the root)
  std::size_t spheres = 0;           ///< nodes at this depth
  std::size_t grown = 0;             ///< nodes whose radius grew
  double max_growth_m = 0;           ///< largest radius growth, metres
  double max_growth_fraction = 0;    ///< largest growth over that node's radius before it grew
};

/// What inflate_sphere_tree() did to a whole tree.
struct InflationReport {
  std::size_t grown = 0;             ///< nodes whose radius grew, all depths
  double max_growth_m = 0;           ///< largest radius growth of any node, metres
  double max_growth_fraction = 0;    ///< largest growth over that node's radius before, any node
  std::vector<LevelInflation> levels;  ///< depth 0 (the root) to the tree's height
};

/// What inflate_sphere_tree() returns: the grown tree and what grew.
struct InflatedSphereTree {
  SphereTree tree;         ///< the input tree with radii grown where needed
  InflationReport report;  ///< how much grew, per depth and overall
};

/// A voxel is held by a sphere when its eight corners are at most r (1 + kInflateTolerance)
/// from the centre: a .sph file's rounding, or a write and a read, never grows a tree.
inline constexpr double kInflateTolerance = 1e-9;

/// Grows the radii of a loaded tree (a Sphere-Tree Construction Toolkit tree, whose spheres
/// may miss the voxels by a little) until the descent's guarantee holds for `model`: every
/// voxel the tree must cover (the surface voxels, or every occupied voxel when
/// `remove_hidden` is false, as for fovea's own trees) lies wholly inside the root, and each
/// voxel inside a node lies wholly inside one of its children, so every cut covers every such
/// voxel (docs/spheretree.md, "Toolkit trees that miss the voxels").
///
/// The voxels are assigned top-down: the root covers them all, and a voxel goes on from a
/// node to the child whose subtree holds it down to a leaf; where none does, to the child
/// whose cheapest chain of nodes down to a leaf needs the smallest largest growth (searched
/// exhaustively, with bounds), so a voxel is never sent into a subtree that lies far from it;
/// ties to the child that holds it with the most room, or needs the least growth itself, then
/// to the first. Each node's radius grows to its farthest assigned voxel corner where one
/// lies outside it; centres, layout and every other radius stay as they were. A tree that
/// already covers its voxels comes back unchanged, with nothing grown. Deterministic.
InflatedSphereTree inflate_sphere_tree(const SphereTree& tree, const VoxelModel& model, bool remove_hidden);

}  // namespace fovea
