#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/math.hpp"

namespace fovea {

/// A hierarchy of spheres bounding a model (004 section 3.3), in flat arrays: no pointers.
///
/// Nodes are stored breadth-first, so level L is the contiguous range
/// [level_begin[L], level_begin[L + 1]) and the children of node n are the contiguous range
/// [first_child[n], first_child[n] + child_count[n]). Node 0 is the root, level 0. Trees of
/// different models have different heights: a branch ends where it reaches single voxels
/// (or where a loaded tree ends), so leaves may sit above the deepest level.
struct SphereTree {
  std::vector<Vec3> centre_m;              ///< model space (the voxel grid's min corner is the origin)
  std::vector<double> radius_m;            ///< by node, metres
  std::vector<std::uint32_t> first_child;  ///< index of the first child (0 for a leaf)
  std::vector<std::uint8_t> child_count;   ///< 0 for a leaf, at most 8 for octree trees
  std::vector<std::uint8_t> level;         ///< depth below the root
  /// Where each level starts; one entry more than there are levels.
  std::vector<std::uint32_t> level_begin;
  /// The octree cell of each node, in voxels [cell_min, cell_max): present for trees the
  /// octree builder made, empty for trees loaded from files.
  std::vector<IVec3> cell_min;
  std::vector<IVec3> cell_max;             ///< by node, the cell's exclusive upper corner, voxels

  /// Nodes in the tree, all levels.
  std::size_t size() const { return radius_m.size(); }
  /// Index of the deepest level (0 for a lone root).
  int height() const { return static_cast<int>(level_begin.size()) - 2; }
  /// Whether `node` has no children: its branch ends there, at whatever level.
  bool is_leaf(std::uint32_t node) const { return child_count[node] == 0; }

  /// The tree as a descent to depth `depth` sees it: the nodes of that level, plus the leaves
  /// of shallower levels (their branch ends there). Its spheres together bound the model's
  /// surface at every depth (the builder's coverage guarantee).
  std::vector<std::uint32_t> cut(int depth) const;

  /// Checks the layout invariants above; returns "" or what is wrong (for loaders and tests).
  std::string check_layout() const;
};

}  // namespace fovea
