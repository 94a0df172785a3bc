#include "broadphase/region_cells.hpp"

#include <cmath>

namespace fovea {

RegionCells::RegionCells(const RegionGrid& grid) : grid_(grid) {
  if (grid.cell_m > 0) {
    cell_size_m_ = Vec3(grid.cell_m);
    inverse_cell_m_ = 1.0 / cell_size_m_;
  }
}

// The automatic grid, chosen from the boxes of the first update with proxies and again when
// the proxy count has grown fourfold (RegionSweepAndPrune::update): a cell side s giving
// about proxies_per_region proxies per cell over the extent of the finite boxes (axes
// flatter than s get one cell, so a flat world is cut in two dimensions), and no smaller
// than min_cell_over_box_side mean box sides.
RegionCells RegionCells::fitted(const RegionGrid& settings, const BoxSpread& boxes) {
  RegionGrid grid = settings;
  grid.cells = {1, 1, 1};
  grid.origin_m = Vec3(0.0);
  grid.cell_m = 1;
  const double target_regions =
      static_cast<double>(boxes.finite) / std::max<std::uint32_t>(settings.proxies_per_region, 1);
  if (target_regions > 1.5) {
    const double min_cell_m = settings.min_cell_over_box_side * boxes.side_sum_m / static_cast<double>(boxes.finite);
    double extent_m[3];
    for (int k = 0; k < 3; ++k) extent_m[k] = std::max(boxes.hi_m[k] - boxes.lo_m[k], 1e-9);
    // The side that cuts the volume into target_regions cubes, taken again over the axes
    // longer than it until no flat axis is left among them.
    double cell_m = std::cbrt(extent_m[0] * extent_m[1] * extent_m[2] / target_regions);
    for (int round = 0; round < 3; ++round) {
      double volume = 1;
      int long_axes = 0;
      for (int k = 0; k < 3; ++k)
        if (extent_m[k] > cell_m) {
          volume *= extent_m[k];
          ++long_axes;
        }
      if (long_axes == 0) break;
      cell_m = std::pow(volume / target_regions, 1.0 / long_axes);
    }
    cell_m = std::max(cell_m, min_cell_m);
    if (cell_m > 0 && std::isfinite(cell_m)) {
      // Whole cells over the extent, at most 1024 per axis (so that no grid holds more
      // regions than memory allows), each stretched to fit it: a last cell hanging mostly
      // beyond the extent would leave its neighbours holding more than their share.
      RegionCells cells(grid);
      cells.grid_.origin_m = Vec3(boxes.lo_m[0], boxes.lo_m[1], boxes.lo_m[2]);
      for (int k = 0; k < 3; ++k) {
        cells.grid_.cells[k] = static_cast<std::uint16_t>(std::clamp(std::round(extent_m[k] / cell_m), 1.0, 1024.0));
        cells.cell_size_m_[k] = extent_m[k] / cells.grid_.cells[k];
      }
      cells.grid_.cell_m = std::max({cells.cell_size_m_.x, cells.cell_size_m_.y, cells.cell_size_m_.z});
      cells.inverse_cell_m_ = 1.0 / cells.cell_size_m_;
      return cells;
    }
  }
  return RegionCells(grid);
}

}  // namespace fovea
