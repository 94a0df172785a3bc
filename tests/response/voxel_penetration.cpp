#include "response/voxel_penetration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fovea::test {
namespace {

/// Distance from `p` (model space, metres) to the nearest empty cell of `model`, searching
/// cube shells of cells outward from p's cell until no farther shell can hold a nearer one.
double depth_inside(const VoxelModel& model, const Vec3& p) {
  const double size = model.voxel_size_m();
  const Vec3 q = p / size;  // voxel units
  const IVec3 cell(static_cast<int>(std::floor(q.x)), static_cast<int>(std::floor(q.y)), static_cast<int>(std::floor(q.z)));
  if (!model.occupied(cell.x, cell.y, cell.z)) return 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (int k = 1;; ++k) {
    // Every cell of shell k is at least k - 1 voxels from p.
    if (best <= k - 1) break;
    for (int z = cell.z - k; z <= cell.z + k; ++z)
      for (int y = cell.y - k; y <= cell.y + k; ++y)
        for (int x = cell.x - k; x <= cell.x + k; ++x) {
          if (std::max({std::abs(x - cell.x), std::abs(y - cell.y), std::abs(z - cell.z)}) != k) continue;
          if (model.occupied(x, y, z)) continue;
          // Point to the closed cube [x, x + 1] x [y, y + 1] x [z, z + 1].
          const Vec3 lo(x, y, z);
          const Vec3 d = glm::max(glm::max(lo - q, q - (lo + 1.0)), Vec3(0.0));
          best = std::min(best, glm::length(d));
        }
  }
  return best * size;
}

/// The deepest voxel centre of `inner` inside `outer`.
double one_way(const VoxelModel& inner_model, const Entity& inner, const EntityState& inner_pose,
               const VoxelModel& outer_model, const Entity& outer, const EntityState& outer_pose) {
  double deepest = 0;
  const Quat to_outer = glm::conjugate(outer_pose.orientation);
  inner_model.for_each_occupied([&](int x, int y, int z) {
    const Vec3 world = to_world(inner, inner_pose, inner_model.voxel_centre_m(x, y, z));
    const Vec3 local = to_outer * (world - outer_pose.position_m) + outer.centre_of_mass_model_m;
    deepest = std::max(deepest, depth_inside(outer_model, local));
  });
  return deepest;
}

}  // namespace

double voxel_penetration_m(const VoxelModel& model_a, const Entity& a, const EntityState& pose_a,
                           const VoxelModel& model_b, const Entity& b, const EntityState& pose_b) {
  return std::max(one_way(model_a, a, pose_a, model_b, b, pose_b), one_way(model_b, b, pose_b, model_a, a, pose_a));
}

}  // namespace fovea::test
