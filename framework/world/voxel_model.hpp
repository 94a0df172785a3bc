#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/math.hpp"

namespace fovea {

/// A dense 3D occupancy grid (004 section 3.1: "a 3-dimensional array of 1's and 0's").
///
/// Model space: the grid's min corner is the origin and voxel (x, y, z) spans
/// [x, x+1] * voxel_size_m along x (likewise y, z). Cells are stored x fastest, then y, z.
/// Each cell holds a colour index: 0 is empty, 1 to 255 name an entry of the palette
/// (MagicaVoxel's convention), so colour costs no memory beyond occupancy.
class VoxelModel {
 public:
  VoxelModel() = default;
  /// An empty grid of `dims` voxels, each a cube of edge `voxel_size_m` metres; throws
  /// std::invalid_argument unless every dimension and the size are positive.
  VoxelModel(IVec3 dims, double voxel_size_m);

  /// Grid size in voxels along x, y, z; (0, 0, 0) for a default-made model.
  IVec3 dims() const { return dims_; }
  /// Edge length of one (cubic) voxel, metres.
  double voxel_size_m() const { return voxel_size_m_; }
  /// Rescales the model (files carry no unit: the config says how large a model is).
  void set_voxel_size_m(double voxel_size_m) { voxel_size_m_ = voxel_size_m; }
  /// The grid's extent in metres.
  Vec3 extent_m() const { return Vec3(dims_) * voxel_size_m_; }

  /// Whether voxel coordinates (x, y, z) lie inside the grid (0 <= x < dims().x, likewise y, z).
  bool in_grid(int x, int y, int z) const {
    return x >= 0 && y >= 0 && z >= 0 && x < dims_.x && y < dims_.y && z < dims_.z;
  }
  /// Occupancy; cells outside the grid are empty.
  bool occupied(int x, int y, int z) const {
    return in_grid(x, y, z) && cells_[index(x, y, z)] != 0;
  }
  /// Fills (colour index 1) or empties (0) a voxel inside the grid; no bounds check.
  void set(int x, int y, int z, bool occupied) { cells_[index(x, y, z)] = occupied ? 1 : 0; }
  /// 0 for an empty cell, else the palette index of its colour.
  std::uint8_t colour_index(int x, int y, int z) const { return cells_[index(x, y, z)]; }
  /// Sets a voxel inside the grid to palette entry `colour_index` (0 empties it); no bounds check.
  void set_colour_index(int x, int y, int z, std::uint8_t colour_index) { cells_[index(x, y, z)] = colour_index; }
  /// 256 RGBA colours (red in the low byte), entry i for colour index i; empty when the model
  /// has no colours of its own (built-in shapes take their group's material colour).
  const std::vector<std::uint32_t>& palette() const { return palette_; }
  /// Replaces the palette (256 entries as palette() describes, or empty for none).
  void set_palette(std::vector<std::uint32_t> palette) { palette_ = std::move(palette); }

  /// Number of occupied voxels (a pass over every cell: not free).
  std::int64_t occupied_count() const;
  /// The cells the occupied voxels span: [lo, hi) in voxel coordinates; lo > hi when none is.
  struct CellRange {
    IVec3 lo;  ///< lowest occupied voxel coordinate per axis (inclusive)
    IVec3 hi;  ///< one past the highest per axis (exclusive)
  };
  /// The occupied voxels' bounding range of cells (a pass over every cell: not free).
  CellRange occupied_cells() const;
  /// Distance from `point_m` (model space) to the farthest corner of any occupied voxel: the
  /// radius of the smallest sphere about that point holding the whole model.
  double farthest_voxel_corner_m(const Vec3& point_m) const;
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
  std::vector<std::uint32_t> palette_;
};

}  // namespace fovea
