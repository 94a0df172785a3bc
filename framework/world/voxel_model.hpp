#pragma once

#include <cstdint>
#include <vector>

#include "core/math.hpp"

namespace fovea {

/// A dense 3D occupancy grid (004 section 3.1: "a 3-dimensional array of 1's and 0's").
///
/// Model space: the grid's min corner is the origin and voxel (x, y, z) spans
/// [x, x+1] * voxel_size_m along x (likewise y, z). Cells are stored x fastest, then y, z.
class VoxelModel {
 public:
  VoxelModel() = default;
  VoxelModel(IVec3 dims, double voxel_size_m);

  IVec3 dims() const { return dims_; }
  double voxel_size_m() const { return voxel_size_m_; }
  /// The grid's extent in metres.
  Vec3 extent_m() const { return Vec3(dims_) * voxel_size_m_; }

  bool in_grid(int x, int y, int z) const {
    return x >= 0 && y >= 0 && z >= 0 && x < dims_.x && y < dims_.y && z < dims_.z;
  }
  /// Occupancy; cells outside the grid are empty.
  bool occupied(int x, int y, int z) const {
    return in_grid(x, y, z) && cells_[index(x, y, z)] != 0;
  }
  void set(int x, int y, int z, bool occupied) { cells_[index(x, y, z)] = occupied ? 1 : 0; }

  std::int64_t occupied_count() const;
  /// Centre of voxel (x, y, z) in model space.
  Vec3 voxel_centre_m(int x, int y, int z) const { return (Vec3(x, y, z) + 0.5) * voxel_size_m_; }

  /// Calls f(x, y, z) for every occupied voxel, in storage order.
  template <class F>
  void for_each_occupied(F&& f) const {
    for (int z = 0; z < dims_.z; ++z)
      for (int y = 0; y < dims_.y; ++y)
        for (int x = 0; x < dims_.x; ++x)
          if (cells_[index(x, y, z)]) f(x, y, z);
  }

 private:
  std::size_t index(int x, int y, int z) const {
    return static_cast<std::size_t>(x) +
           static_cast<std::size_t>(dims_.x) * (static_cast<std::size_t>(y) +
                                                static_cast<std::size_t>(dims_.y) * static_cast<std::size_t>(z));
  }

  IVec3 dims_{0, 0, 0};
  double voxel_size_m_ = 1.0;
  std::vector<std::uint8_t> cells_;
};

}  // namespace fovea
