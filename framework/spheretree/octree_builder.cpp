#include "spheretree/octree_builder.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "spheretree/enclosing_sphere.hpp"

namespace fovea {

OctreeCell octree_root_cell(const VoxelModel& model) {
  const IVec3 dims = model.dims();
  return {IVec3(0), IVec3(std::max({dims.x, dims.y, dims.z}))};
}

OctreeCellScan scan_octree_cell(const VoxelModel& model, const std::vector<std::uint8_t>& surface, const OctreeCell& cell) {
  // Summed over a level the cells' volumes are at most the grid's, so a whole build is
  // O(voxels x levels).
  const IVec3 dims = model.dims();
  const IVec3 lo = glm::max(cell.lo, IVec3(0));
  const IVec3 hi = glm::min(cell.hi, dims);
  OctreeCellScan scan;
  for (int z = lo.z; z < hi.z; ++z)
    for (int y = lo.y; y < hi.y; ++y) {
      const std::size_t row = static_cast<std::size_t>(dims.x) * (static_cast<std::size_t>(y) + static_cast<std::size_t>(dims.y) * static_cast<std::size_t>(z));
      for (int x = lo.x; x < hi.x; ++x) {
        if (model.colour_index(x, y, z) == 0) continue;
        const IVec3 v(x, y, z);
        if (!scan.occupied) {
          scan.occupied = true;
          scan.box_min = scan.box_max = v;
        } else {
          scan.box_min = glm::min(scan.box_min, v);
          scan.box_max = glm::max(scan.box_max, v);
        }
        scan.has_surface = scan.has_surface || surface[row + static_cast<std::size_t>(x)] != 0;
      }
    }
  return scan;
}

int split_octree_cell(const OctreeCell& cell, std::array<OctreeCell, 8>& children) {
  const IVec3 lo = cell.lo, hi = cell.hi;
  if (hi - lo == IVec3(1)) return 0;
  // Split points per axis: [lo, mid) and [mid, hi), or the whole axis when it is 1 long.
  IVec3 mid;
  for (int a = 0; a < 3; ++a) mid[a] = hi[a] - lo[a] > 1 ? lo[a] + (hi[a] - lo[a] + 1) / 2 : hi[a];
  int count = 0;
  for (int cz = 0; cz < 2; ++cz)
    for (int cy = 0; cy < 2; ++cy)
      for (int cx = 0; cx < 2; ++cx) {
        const IVec3 c(cx, cy, cz);
        OctreeCell child;
        bool empty_half = false;
        for (int a = 0; a < 3; ++a) {
          child.lo[a] = c[a] == 0 ? lo[a] : mid[a];
          child.hi[a] = c[a] == 0 ? mid[a] : hi[a];
          empty_half = empty_half || child.lo[a] >= child.hi[a];
        }
        if (!empty_half) children[static_cast<std::size_t>(count++)] = child;
      }
  return count;
}

void octree_node_sphere(const VoxelModel& model, const std::vector<std::uint8_t>& surface, const OctreeCell& cell,
                        const OctreeCellScan& scan, const OctreeBuildOptions& options, const ModelDepth* depth,
                        Vec3& centre_m, double& radius_m) {
  const double s = model.voxel_size_m();
  // The sphere around the occupied box [box_min, box_max + 1) in voxel units.
  const Vec3 box_lo = Vec3(scan.box_min) * s;
  const Vec3 box_hi = Vec3(scan.box_max + 1) * s;
  centre_m = 0.5 * (box_lo + box_hi);
  radius_m = 0.5 * glm::length(box_hi - box_lo);
  if (options.fit == SphereFit::cell) return;
  // The corners of the covered voxels of one x row lie in the box from its first covered
  // voxel to its last, so that box's eight corners stand for the row: at most 8 points a row.
  const IVec3 dims = model.dims();
  const IVec3 lo = glm::max(cell.lo, IVec3(0));
  const IVec3 hi = glm::min(cell.hi, dims);
  std::vector<Vec3> corners;
  for (int z = lo.z; z < hi.z; ++z)
    for (int y = lo.y; y < hi.y; ++y) {
      const std::size_t row = static_cast<std::size_t>(dims.x) * (static_cast<std::size_t>(y) + static_cast<std::size_t>(dims.y) * static_cast<std::size_t>(z));
      int first = -1, last = -1;
      for (int x = lo.x; x < hi.x; ++x) {
        const bool covered = options.remove_hidden ? surface[row + static_cast<std::size_t>(x)] != 0 : model.colour_index(x, y, z) != 0;
        if (!covered) continue;
        if (first < 0) first = x;
        last = x;
      }
      if (first < 0) continue;
      for (const int cz : {z, z + 1})
        for (const int cy : {y, y + 1})
          for (const int cx : {first, last + 1}) corners.emplace_back(cx, cy, cz);
    }
  // In voxel units about the cell's corner, where the coordinates are small exact integers.
  const Vec3 origin(lo);
  for (Vec3& c : corners) c -= origin;
  const Sphere fitted = minimum_enclosing_sphere(corners);
  const Vec3 fitted_centre_voxels = fitted.centre + origin;
  const double fitted_protrusion = depth->protrusion_bound_voxels(fitted_centre_voxels, fitted.radius);
  const double cell_protrusion = depth->protrusion_bound_voxels(centre_m / s, radius_m / s);
  if (fitted_protrusion < cell_protrusion || (fitted_protrusion == cell_protrusion && fitted.radius * s < radius_m)) {
    centre_m = fitted_centre_voxels * s;
    // Raised by 1e-12 of itself: more than the rounding of the move to metres, so every
    // covered corner is inside in floating point too.
    radius_m = fitted.radius * s * (1 + 1e-12);
  }
}


std::vector<std::uint8_t> surface_voxel_mask(const VoxelModel& model) {
  const IVec3 d = model.dims();
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(d.x) * static_cast<std::size_t>(d.y) * static_cast<std::size_t>(d.z), 0);
  std::size_t i = 0;
  for (int z = 0; z < d.z; ++z)
    for (int y = 0; y < d.y; ++y)
      for (int x = 0; x < d.x; ++x, ++i)
        if (model.colour_index(x, y, z) != 0)
          mask[i] = !model.occupied(x - 1, y, z) || !model.occupied(x + 1, y, z) || !model.occupied(x, y - 1, z) ||
                    !model.occupied(x, y + 1, z) || !model.occupied(x, y, z - 1) || !model.occupied(x, y, z + 1);
  return mask;
}

void check_octree_build(const VoxelModel& model, const OctreeBuildOptions& options) {
  if (model.occupied_count() == 0) throw std::invalid_argument("a sphere tree needs at least one occupied voxel");
  if (options.levels < 0 || options.levels > 255) throw std::invalid_argument("sphere tree levels must be in [0, 255]");
}

SphereTree build_octree_sphere_tree(const VoxelModel& model, const OctreeBuildOptions& options) {
  check_octree_build(model, options);
  const std::vector<std::uint8_t> surface = surface_voxel_mask(model);
  const std::unique_ptr<ModelDepth> model_depth = options.fit == SphereFit::voxels ? std::make_unique<ModelDepth>(model) : nullptr;

  SphereTree tree;
  const auto add_node = [&](const OctreeCellScan& scan, const OctreeCell& cell, int depth) {
    Vec3 centre;
    double radius = 0;
    octree_node_sphere(model, surface, cell, scan, options, model_depth.get(), centre, radius);
    tree.centre_m.push_back(centre);
    tree.radius_m.push_back(radius);
    tree.first_child.push_back(0);
    tree.child_count.push_back(0);
    tree.level.push_back(static_cast<std::uint8_t>(depth));
    tree.cell_min.push_back(cell.lo);
    tree.cell_max.push_back(cell.hi);
  };

  const OctreeCell root = octree_root_cell(model);
  add_node(scan_octree_cell(model, surface, root), root, 0);
  tree.level_begin = {0, 1};

  std::array<OctreeCell, 8> children;
  for (int depth = 0; depth < options.levels; ++depth) {
    const std::uint32_t begin = tree.level_begin[static_cast<std::size_t>(depth)];
    const std::uint32_t end = tree.level_begin[static_cast<std::size_t>(depth) + 1];
    for (std::uint32_t n = begin; n < end; ++n) {
      const int count = split_octree_cell({tree.cell_min[n], tree.cell_max[n]}, children);  // 0: a single voxel, the branch ends
      const auto first = static_cast<std::uint32_t>(tree.size());
      for (int k = 0; k < count; ++k) {
        const OctreeCell& child = children[static_cast<std::size_t>(k)];
        const OctreeCellScan scan = scan_octree_cell(model, surface, child);
        if (!keeps_octree_child(scan, options)) continue;
        add_node(scan, child, depth + 1);
      }
      tree.child_count[n] = static_cast<std::uint8_t>(tree.size() - first);
      tree.first_child[n] = tree.child_count[n] > 0 ? first : 0;
    }
    if (tree.size() == end) break;  // no node went deeper
    tree.level_begin.push_back(static_cast<std::uint32_t>(tree.size()));
  }
  return tree;
}

}  // namespace fovea
