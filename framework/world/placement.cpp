#include "world/placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

#include "core/format.hpp"

namespace fovea {
namespace {

constexpr int kRandomTriesPerEntity = 1000;

std::string box_text(const Aabb& box) {
  const Vec3 s = box.size_m();
  return format_number(s.x) + " x " + format_number(s.y) + " x " + format_number(s.z) + " m box";
}

}  // namespace

SphereOccupancy::SphereOccupancy(double cell_size_m) : cell_size_m_(cell_size_m) {}

IVec3 SphereOccupancy::cell_of(const Vec3& p) const {
  // Clamped to the key's range: cells beyond it share the edge cells, which keeps every
  // test exact (neighbours stay neighbours under clamping) and only slows a world more
  // than 2^20 cells across, which the caller avoids by its choice of cell size.
  const Vec3 cell = glm::clamp(glm::floor(p / cell_size_m_), Vec3(-kCellLimit), Vec3(kCellLimit - 1));
  return IVec3(cell);
}

std::int64_t SphereOccupancy::key(const IVec3& c) const {
  // 21 bits per axis; c + kCellLimit lies in [0, 2^21) once the neighbour offset is added to
  // a clamped cell, wrapping at worst onto a far cell (a slower search, never a wrong one).
  const auto part = [](int v) { return static_cast<std::int64_t>(v + kCellLimit) & 0x1FFFFF; };
  return part(c.x) | (part(c.y) << 21) | (part(c.z) << 42);
}

bool SphereOccupancy::is_free(const Vec3& centre_m, double radius_m) const {
  // A sphere overlapping this one has its centre within radius_m + the largest radius added,
  // which is one cell when the cell size is at least the largest diameter.
  const int reach = std::max(1, static_cast<int>(std::ceil((radius_m + max_radius_added_m_) / cell_size_m_)));
  const IVec3 c = cell_of(centre_m);
  for (int dz = -reach; dz <= reach; ++dz)
    for (int dy = -reach; dy <= reach; ++dy)
      for (int dx = -reach; dx <= reach; ++dx) {
        const auto it = cells_.find(key(c + IVec3(dx, dy, dz)));
        if (it == cells_.end()) continue;
        for (const std::uint32_t i : it->second) {
          const Sphere& s = spheres_[i];
          const double limit = (s.radius_m + radius_m) * (1 - 1e-9);
          const Vec3 d = s.centre_m - centre_m;
          if (glm::dot(d, d) < limit * limit) return false;
        }
      }
  return true;
}

void SphereOccupancy::add(const Vec3& centre_m, double radius_m) {
  cells_[key(cell_of(centre_m))].push_back(static_cast<std::uint32_t>(spheres_.size()));
  spheres_.push_back({centre_m, radius_m});
  max_radius_added_m_ = std::max(max_radius_added_m_, radius_m);
}

namespace {

/// Placement::floor: one entity, unrotated, its grid centred on the floor.
std::vector<Vec3> place_on_floor(const Aabb& box, const GroupToPlace& group) {
  const Vec3 extent = group.grid_extent_m;
  if (group.radii_m.size() != 1)
    throw PlacementError(group.index, "entity group '" + group.name + "': placement floor places one entity, not " +
                                          std::to_string(group.radii_m.size()));
  if (extent.x > box.size_m().x || extent.y > box.size_m().y || extent.z > box.size_m().z)
    throw PlacementError(group.index, "entity group '" + group.name + "': its model (" + format_significant(extent.x) +
                                          " x " + format_significant(extent.y) + " x " + format_significant(extent.z) +
                                          " m) does not fit in the world box");
  const Vec3 corner(box.centre_m().x - 0.5 * extent.x, box.min_m.y, box.centre_m().z - 0.5 * extent.z);
  return {corner + group.centre_of_mass_model_m};
}

/// Placement::demo: a waiting lattice through the box, one cell per entity.
std::vector<Vec3> place_for_demo(const Aabb& box, std::size_t count) {
  const Vec3 size = box.size_m();
  const double cell_m = std::cbrt(size.x * size.y * size.z / static_cast<double>(count));
  const IVec3 cells = glm::max(IVec3(glm::ceil(size / cell_m)), IVec3(1));
  std::vector<Vec3> centres;
  for (int i = 0; i < static_cast<int>(count); ++i) {
    const IVec3 c(i % cells.x, (i / cells.x) % cells.y, i / (cells.x * cells.y));
    centres.push_back(box.min_m + (Vec3(c) + 0.5) * (size / Vec3(cells)));
  }
  return centres;
}

}  // namespace

std::vector<Vec3> place_group(const Aabb& box, const GroupToPlace& group, SphereOccupancy& occupied, Rng& rng) {
  const std::span<const double> radii_m = group.radii_m;
  const Placement placement = group.placement;
  const std::uint32_t group_index = group.index;
  std::vector<Vec3> centres;
  if (radii_m.empty()) return centres;
  if (placement == Placement::floor) return place_on_floor(box, group);
  if (placement == Placement::demo) return place_for_demo(box, radii_m.size());
  centres.reserve(radii_m.size());
  const double max_radius_m = *std::max_element(radii_m.begin(), radii_m.end());
  const Vec3 size = box.size_m();
  const std::string what = "'" + group.name + "' (bounding radius " + format_significant(max_radius_m) + " m)";
  if (2 * max_radius_m > std::min({size.x, size.y, size.z}))
    throw PlacementError(group_index, "world too small for its entities: an entity of " + what +
                                          " does not fit in a " + box_text(box));
  const auto too_small = [&](std::size_t placed) {
    // Random placement jams far below the lattice's capacity (random sequential packing of
    // spheres stops near 38 % of the volume, the cubic lattice holds 52 %): say so.
    return PlacementError(group_index, "world too small for its entities: placed " + std::to_string(placed) +
                                           " of " + std::to_string(radii_m.size()) + " " + what + " in a " +
                                           box_text(box) +
                                           (placement == Placement::random ? "; placement: packed fits more" : ""));
  };

  if (placement == Placement::random) {
    for (const double r : radii_m) {
      bool placed = false;
      for (int attempt = 0; attempt < kRandomTriesPerEntity && !placed; ++attempt) {
        const Vec3 c(rng.uniform(box.min_m.x + r, box.max_m.x - r), rng.uniform(box.min_m.y + r, box.max_m.y - r),
                     rng.uniform(box.min_m.z + r, box.max_m.z - r));
        if (occupied.is_free(c, r)) {
          occupied.add(c, r);
          centres.push_back(c);
          placed = true;
        }
      }
      if (!placed) throw too_small(centres.size());
    }
    return centres;
  }

  // packed: lattice cells (i, j, k) at min + r + (i, j, k) * 2r, taken nearest the corner
  // first. Only a corner cube of `reach` cells per axis is searched: every cell within
  // distance reach - 1 (in cells) of the corner lies in it, so when the last cell taken is
  // that near, no cell outside could have been nearer. Otherwise the cube grows. An octant
  // ball of radius R holds about pi/6 R^3 cells, hence the first guess.
  // Cell coordinates and squared distances are 64-bit: a long thin box can hold more than
  // 46341 cells along one axis. No axis needs more cells than there are entities.
  const double spacing_m = 2 * max_radius_m;
  const auto count = static_cast<std::int64_t>(radii_m.size());
  std::int64_t cells_per_axis[3];
  for (int a = 0; a < 3; ++a)
    cells_per_axis[a] = 1 + static_cast<std::int64_t>(
                                std::min(std::floor((size[a] - spacing_m) / spacing_m + 1e-9), static_cast<double>(count)));
  using Cell = std::array<std::int64_t, 3>;
  const auto distance2 = [](const Cell& c) { return c[0] * c[0] + c[1] * c[1] + c[2] * c[2]; };
  auto reach = 2 + static_cast<std::int64_t>(std::ceil(std::cbrt(6.0 / 3.14159 * static_cast<double>(count))));
  for (;;) {
    const Cell limit = {std::min(cells_per_axis[0], reach), std::min(cells_per_axis[1], reach),
                        std::min(cells_per_axis[2], reach)};
    const bool whole_box = limit[0] == cells_per_axis[0] && limit[1] == cells_per_axis[1] && limit[2] == cells_per_axis[2];
    std::vector<Cell> cells;
    cells.reserve(static_cast<std::size_t>(limit[0] * limit[1] * limit[2]));
    for (std::int64_t k = 0; k < limit[2]; ++k)
      for (std::int64_t j = 0; j < limit[1]; ++j)
        for (std::int64_t i = 0; i < limit[0]; ++i) cells.push_back({i, j, k});
    // Nearest the corner first; ties keep the (k, j, i) order, so the result is fully defined.
    std::stable_sort(cells.begin(), cells.end(),
                     [&](const Cell& a, const Cell& b) { return distance2(a) < distance2(b); });
    std::vector<Vec3> free_cells;
    std::int64_t last_distance2 = 0;
    for (const Cell& cell : cells) {
      const Vec3 c = box.min_m + max_radius_m +
                     Vec3(static_cast<double>(cell[0]), static_cast<double>(cell[1]), static_cast<double>(cell[2])) * spacing_m;
      if (!occupied.is_free(c, max_radius_m)) continue;
      free_cells.push_back(c);
      last_distance2 = distance2(cell);
      if (free_cells.size() == radii_m.size()) break;
    }
    const bool complete = free_cells.size() == radii_m.size();
    if (complete && (whole_box || last_distance2 <= (reach - 1) * (reach - 1))) {
      for (std::size_t n = 0; n < radii_m.size(); ++n) occupied.add(free_cells[n], radii_m[n]);
      return free_cells;
    }
    if (whole_box) throw too_small(free_cells.size());
    reach += std::max<std::int64_t>(1, reach / 4);
  }
}

}  // namespace fovea
