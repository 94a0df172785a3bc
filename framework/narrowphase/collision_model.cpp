#include "narrowphase/collision_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fovea {

double distance_to_voxels_m(const VoxelModel& model, const Vec3& point_m) {
  const double s = model.voxel_size_m();
  const IVec3 dims = model.dims();
  const Vec3 u = point_m / s;  // in voxel units
  // The cell holding the point, clamped into the grid: every cell at Chebyshev distance j
  // from it is at least (j - 1) voxels away along some axis, inside the grid or out.
  const IVec3 c = glm::clamp(IVec3(glm::floor(u)), IVec3(0), dims - 1);
  double best_sq = std::numeric_limits<double>::infinity();  // voxel units squared
  const auto visit = [&](int x, int y, int z) {
    if (!model.occupied(x, y, z)) return;
    const Vec3 lo(x, y, z);
    const Vec3 d = glm::max(glm::max(lo - u, u - (lo + 1.0)), Vec3(0.0));
    best_sq = std::min(best_sq, glm::dot(d, d));
  };
  const int max_ring = std::max({dims.x, dims.y, dims.z});
  for (int j = 0; j <= max_ring; ++j) {
    if (j >= 1 && static_cast<double>(j - 1) * static_cast<double>(j - 1) >= best_sq) break;
    const int z0 = std::max(c.z - j, 0), z1 = std::min(c.z + j, dims.z - 1);
    const int y0 = std::max(c.y - j, 0), y1 = std::min(c.y + j, dims.y - 1);
    for (int z = z0; z <= z1; ++z)
      for (int y = y0; y <= y1; ++y) {
        if (std::abs(z - c.z) == j || std::abs(y - c.y) == j) {
          for (int x = std::max(c.x - j, 0); x <= std::min(c.x + j, dims.x - 1); ++x) visit(x, y, z);
        } else {  // only the two x ends of the shell
          if (c.x - j >= 0) visit(c.x - j, y, z);
          if (j > 0 && c.x + j < dims.x) visit(c.x + j, y, z);
        }
      }
  }
  return std::sqrt(best_sq) * s;
}

double leaf_reach_from_children_m(const CollisionModel& m, std::uint32_t node) {
  double reach_m = 0;
  for (std::uint32_t k = 0; k < m.child_count[node]; ++k) {
    const std::uint32_t child = m.first_child[node] + k;
    reach_m = std::max(reach_m, glm::length(m.spheres[child].centre_m - m.spheres[node].centre_m) + m.leaf_reach_m[child]);
  }
  return reach_m;
}

CollisionModel make_collision_model(const SphereTree& tree, const VoxelModel& model, const Vec3& centre_of_mass_model_m,
                                    double bounding_radius_m) {
  CollisionModel m;
  const std::size_t n = tree.size();
  m.spheres.resize(n);
  m.gap_slack_m.resize(n);
  m.parent.assign(n, 0);
  m.first_child = tree.first_child;
  m.child_count = tree.child_count;
  for (std::size_t i = 0; i < n; ++i) {
    m.spheres[i] = {tree.centre_m[i] - centre_of_mass_model_m, tree.radius_m[i]};
    m.gap_slack_m[i] = distance_to_voxels_m(model, tree.centre_m[i]);
    for (std::uint32_t k = 0; k < tree.child_count[i]; ++k) m.parent[tree.first_child[i] + k] = static_cast<std::uint32_t>(i);
  }
  // Leaf reach, bottom-up (children come after their parents): a parent's sphere need not
  // hold its children's, so a search for leaves (the walls' contacts) prunes on this.
  m.leaf_reach_m.assign(n, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    const auto node = static_cast<std::uint32_t>(i);
    m.leaf_reach_m[i] = m.is_leaf(node) ? m.spheres[i].radius_m : leaf_reach_from_children_m(m, node);
  }
  m.centre_slack_m = distance_to_voxels_m(model, centre_of_mass_model_m);
  m.bounding_radius_m = bounding_radius_m;
  return m;
}

}  // namespace fovea
