#pragma once

#include <cstdint>
#include <vector>

#include "spheretree/sphere_tree.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// How far one depth of a sphere tree strays from the model: the one-sided Hausdorff
/// distance from the union of the cut's spheres to the model (Hubbard 1996, section 7,
/// measures hierarchies this way, per level).
struct LevelTightness {
  int depth = 0;                       ///< levels below the root (0: the root)
  std::size_t spheres = 0;             ///< spheres in the cut at this depth
  double max_distance_voxels = 0;      ///< largest distance from a point in a sphere to the model
  double mean_distance_voxels = 0;     ///< mean over the points of the union (volume-weighted)
  double max_fraction_of_root = 0;     ///< max distance / root radius (Hubbard's unit)
  double mean_fraction_of_root = 0;    ///< mean distance / root radius
  /// An upper bound of the true maximum: the largest distance at a lattice point within half
  /// a lattice diagonal of the union, plus half a diagonal (every point of the union has a
  /// lattice point that near, and distance changes no faster than position).
  double max_upper_bound_voxels = 0;
  /// max_distance_voxels and max_upper_bound_voxels over the model's longest side (the
  /// occupied voxels' bounding box): the unit the Sphere-Tree Construction Toolkit's
  /// comparisons use.
  double max_fraction_of_side = 0;
  double max_upper_fraction_of_side = 0;  ///< max_upper_bound_voxels over the model's longest side
};

/// What measure_tightness() found, depth by depth; distances in voxels or fractions.
struct TightnessReport {
  /// Spacing of the sampling lattice in voxels (1/4 unless the model is large).
  double lattice_spacing_voxels = 0;
  /// Longest side of the occupied voxels' bounding box, voxels.
  double longest_side_voxels = 0;
  std::vector<LevelTightness> levels;  ///< depth 0 (the root) to the tree's height
};

/// Measures every depth of `tree` against `model` on a lattice of spacing 1/k voxel
/// (k = 4, lowered until the lattice holds at most `max_lattice_points`). The distance at
/// each lattice point is exact: the nearest point of a union of voxel cubes to a lattice
/// point is itself a lattice point in the union (clamping to a lattice-aligned box stays
/// on the lattice), so an exact Euclidean distance transform of the lattice points inside
/// the model gives it. Maximum and mean are then taken over the lattice points inside the
/// union of the cut's spheres. The maximum can miss the true supremum by at most a lattice
/// diagonal, sqrt(3) / k voxels: the farthest point p may lie on a sphere's rim, but the ball
/// of radius sqrt(3) / 2k lattice steps just inside p holds a lattice point (the lattice's
/// covering radius), and distance changes no faster than position. (Half a diagonal is not
/// enough near a rim: docs/spheretree.md shows a case.) Throws std::invalid_argument when
/// even k = 1 exceeds the budget.
TightnessReport measure_tightness(const VoxelModel& model, const SphereTree& tree,
                                  std::int64_t max_lattice_points = 16'000'000);

}  // namespace fovea
