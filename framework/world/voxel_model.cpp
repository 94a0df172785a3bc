#include "world/voxel_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fovea {

VoxelModel::VoxelModel(IVec3 dims, double voxel_size_m) : dims_(dims), voxel_size_m_(voxel_size_m) {
  if (dims.x <= 0 || dims.y <= 0 || dims.z <= 0) throw std::invalid_argument("voxel grid dimensions must be positive");
  if (!(voxel_size_m > 0)) throw std::invalid_argument("voxel size must be positive");
  cells_.assign(static_cast<std::size_t>(dims.x) * static_cast<std::size_t>(dims.y) * static_cast<std::size_t>(dims.z), 0);
}

double VoxelModel::farthest_voxel_corner_m(const Vec3& point_m) const {
  double distance2 = 0;
  for_each_occupied([&](int x, int y, int z) {
    // Per axis, the corner on the far side of the voxel's centre.
    const Vec3 far = glm::abs(voxel_centre_m(x, y, z) - point_m) + 0.5 * voxel_size_m_;
    distance2 = std::max(distance2, glm::dot(far, far));
  });
  return std::sqrt(distance2);
}

std::int64_t VoxelModel::occupied_count() const {
  return static_cast<std::int64_t>(cells_.size()) - std::count(cells_.begin(), cells_.end(), std::uint8_t{0});
}

VoxelModel::CellRange VoxelModel::occupied_cells() const {
  CellRange r{IVec3(std::numeric_limits<int>::max()), IVec3(std::numeric_limits<int>::min())};
  for_each_occupied([&](int x, int y, int z) {
    r.lo = glm::min(r.lo, IVec3(x, y, z));
    r.hi = glm::max(r.hi, IVec3(x, y, z) + 1);
  });
  return r;
}

}  // namespace fovea
