#pragma once

#include <memory>
#include <vector>

#include "core/math.hpp"
#include "world/voxel_model.hpp"

namespace fovea {

/// The model's depth field: the exact distance from points of a half-voxel lattice to the
/// nearest point outside the model (the closed empty voxels and everything beyond the grid).
/// The ball of radius D(c) about c lies in the model, so a sphere (c, r) protrudes at most
/// r - D(c) past it: protrusion_bound_voxels() gives that bound for any sphere, conservatively
/// between lattice points. Exact at lattice points: the nearest point of a closed empty cube
/// to a lattice point is itself a lattice point (docs/spheretree.md, "The medial builder").
/// Holds a float per lattice point: (2 (n + 2) + 1)^3 of them for an n^3 grid (1.3 MB at 32^3).
class ModelDepth {
 public:
  /// The depth field of `model`, computed now: time and memory grow with the lattice (above).
  explicit ModelDepth(const VoxelModel& model);

  /// Depth D in voxels at lattice point (i, j, l) (lattice units, 0 at one voxel before the grid's
  /// min corner); 0 outside the model or on its surface.
  double depth_voxels(IVec3 lattice) const;
  /// A lower bound of the depth at any point (voxel units, the grid's min corner at 0).
  double depth_lower_bound_voxels(const Vec3& point_voxels) const;
  /// An upper bound of the farthest any point of the sphere lies from the model, in voxels.
  double protrusion_bound_voxels(const Vec3& centre_voxels, double radius_voxels) const;

  /// Lattice points per axis: 2 (n + 2) + 1 for n voxels (a voxel of empty space each side).
  IVec3 lattice_count() const { return count_; }
  /// Voxel coordinates of a lattice point.
  Vec3 point_voxels(IVec3 lattice) const { return Vec3(lattice) * 0.5 - 1.0; }
  /// Position of a lattice point in the flat depth array, x fastest, then y, then z.
  std::size_t index(IVec3 lattice) const {
    return static_cast<std::size_t>(lattice.x) +
           static_cast<std::size_t>(count_.x) * (static_cast<std::size_t>(lattice.y) + static_cast<std::size_t>(count_.y) * static_cast<std::size_t>(lattice.z));
  }
  /// Lattice points in all: the product of lattice_count().
  std::size_t size() const { return size_; }

 private:
  IVec3 count_{0};
  std::unique_ptr<float[]> depth_;  ///< by lattice point, voxels
  std::size_t size_ = 0;
  std::vector<IVec3> surface_voxels_;  ///< for the distance to the model from outside it
};

}  // namespace fovea
