#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "broadphase/box_keys.hpp"
#include "core/math.hpp"

namespace fovea {

/// How RegionSweepAndPrune cuts space into regions: a grid of cells, the outer cells
/// reaching to infinity (a box beyond the grid belongs to the nearest border cells).
struct RegionGrid {
  /// Side of a (cubic) cell, metres. 0: chosen at the first update() that has proxies, from
  /// the extent of their finite boxes and their count (about `proxies_per_region` per
  /// region), and chosen again whenever the proxies have grown fourfold since; the chosen
  /// cells fit the extent, so their sides may differ by axis (RegionSweepAndPrune::cell_size_m).
  double cell_m = 0;
  /// The grid's lowest corner, metres (ignored when cell_m is 0).
  Vec3 origin_m{0.0};
  /// Cells per axis (ignored when cell_m is 0). {1, 1, 1} is one region: a single sweep.
  std::array<std::uint16_t, 3> cells{1, 1, 1};
  /// The automatic choice's target. A sweep's endpoint swaps per entity grow as its
  /// proxies^(2/3) (docs/broadphase.md, "How cost grows with N"), so fewer per region sort
  /// faster, while more proxies sit on borders and are kept in two lists or more. 300: at
  /// 10,000 uniform entities 27 regions beat the single sweep and 8 did not; at 1,000 the
  /// grid stays one region, where 8 were slower (docs/broadphase.md, "Regions").
  std::uint32_t proxies_per_region = 300;
  /// The automatic choice makes no cell smaller than this many times the mean box side, so
  /// that most boxes lie inside one cell.
  double min_cell_over_box_side = 4;
};

/// What an automatic grid is fitted to: the extent of the finite boxes and their sizes.
struct BoxSpread {
  double lo_m[3] = {kInfinity, kInfinity, kInfinity};     ///< lowest min of the finite boxes per axis, metres
  double hi_m[3] = {-kInfinity, -kInfinity, -kInfinity};  ///< highest max of the finite boxes per axis, metres
  double side_sum_m = 0;    ///< sum of each finite box's largest side
  std::size_t finite = 0;   ///< boxes with no infinite coordinate: those counted above

  /// Counts `box` in, unless a coordinate is infinite (a wall, a floor).
  void add(const Aabb& box) {
    bool is_finite = true;
    for (int k = 0; k < 3; ++k) is_finite &= std::isfinite(box.min_m[k]) && std::isfinite(box.max_m[k]);
    if (!is_finite) return;
    ++finite;
    const Vec3 size = box.size_m();
    side_sum_m += std::max({size.x, size.y, size.z});
    for (int k = 0; k < 3; ++k) {
      lo_m[k] = std::min(lo_m[k], box.min_m[k]);
      hi_m[k] = std::max(hi_m[k], box.max_m[k]);
    }
  }

 private:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();
};

/// RegionSweepAndPrune's grid as chosen: its cells' sides, and which cell, so which region,
/// a bound falls in. Regions are numbered x fastest, then y, then z (region_index).
class RegionCells {
 public:
  /// The cells of `grid` as given: cubes of grid.cell_m from grid.origin_m. With cell_m 0
  /// (an automatic grid not chosen yet) the settings only, and cells of size 0.
  explicit RegionCells(const RegionGrid& grid);
  /// A grid fitted to `boxes` by `settings`' proxies_per_region and min_cell_over_box_side
  /// (RegionGrid::cell_m 0: see region_cells.cpp); one region when they are too few.
  static RegionCells fitted(const RegionGrid& settings, const BoxSpread& boxes);

  /// The grid: as given, or as chosen (its cell_m then the largest of cell_size_m()).
  const RegionGrid& grid() const { return grid_; }
  /// A cell's sides, metres, per axis.
  Vec3 cell_size_m() const { return cell_size_m_; }
  /// Regions (cells) in the grid: the product of grid().cells.
  std::size_t region_count() const {
    return static_cast<std::size_t>(grid_.cells[0]) * grid_.cells[1] * grid_.cells[2];
  }
  /// The number of the region at cell (x, y, z): x fastest, then y, then z.
  std::uint32_t region_index(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
    return (z * grid_.cells[1] + y) * grid_.cells[0] + x;
  }

  /// The cell along `axis` of a bound key: those beyond the grid go to its border cells.
  std::uint16_t cell_of(int axis, std::uint32_t key) const {
    const std::uint16_t last = grid_.cells[axis] - 1;
    if (last == 0) return 0;
    // Monotone in the key (subtraction and multiplication by a positive number keep float
    // order), so a box's cells are those of its min to those of its max, and the owner of a
    // pair, the cell of a point inside both boxes, is among the cells of each.
    const double t = (static_cast<double>(bound_key::to_float(key)) - grid_.origin_m[axis]) * inverse_cell_m_[axis];
    if (!(t > 0)) return 0;
    if (t >= last) return last;
    return static_cast<std::uint16_t>(t);
  }
  /// The cells a box touches, [lo, hi] per axis.
  void cell_range(const BoxKeys& box, std::uint16_t lo[3], std::uint16_t hi[3]) const {
    for (int k = 0; k < 3; ++k) {
      lo[k] = cell_of(k, box.key[k][0]);
      hi[k] = cell_of(k, box.key[k][1]);
    }
  }
  /// The region holding the lowest corner of the intersection of two boxes: the one that
  /// reports their pair (RegionSweepAndPrune).
  std::uint32_t owner(const BoxKeys& a, const BoxKeys& b) const {
    std::uint32_t cell[3];
    for (int k = 0; k < 3; ++k) cell[k] = cell_of(k, std::max(a.key[k][0], b.key[k][0]));
    return region_index(cell[0], cell[1], cell[2]);
  }

 private:
  RegionGrid grid_;
  Vec3 cell_size_m_{0.0};
  Vec3 inverse_cell_m_{0.0};
};

}  // namespace fovea
