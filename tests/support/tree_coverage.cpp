#include "support/tree_coverage.hpp"

namespace fovea::test {

VoxelModel random_voxel_blob(Rng& rng, int max_side) {
  const auto side = [&] { return 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(max_side))); };
  const int x_side = side(), y_side = side(), z_side = side();
  const IVec3 dims(x_side, y_side, z_side);
  VoxelModel m(dims, 0.05);
  const double density = rng.uniform(0.2, 0.9);
  for (int z = 0; z < dims.z; ++z)
    for (int y = 0; y < dims.y; ++y)
      for (int x = 0; x < dims.x; ++x)
        if (rng.uniform() < density) m.set(x, y, z, true);
  if (m.occupied_count() == 0) m.set(0, 0, 0, true);
  return m;
}

bool sphere_holds_voxel(const SphereTree& tree, std::uint32_t n, const IVec3& v, double voxel_size_m,
                        double relative_tolerance) {
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 p = Vec3(v + IVec3(corner & 1, (corner >> 1) & 1, (corner >> 2) & 1)) * voxel_size_m;
    if (glm::length(p - tree.centre_m[n]) > tree.radius_m[n] * (1 + relative_tolerance)) return false;
  }
  return true;
}

std::vector<IVec3> voxels_to_cover(const VoxelModel& model, bool surface_only) {
  std::vector<IVec3> result;
  model.for_each_occupied([&](int x, int y, int z) {
    if (!surface_only || !model.occupied(x - 1, y, z) || !model.occupied(x + 1, y, z) || !model.occupied(x, y - 1, z) ||
        !model.occupied(x, y + 1, z) || !model.occupied(x, y, z - 1) || !model.occupied(x, y, z + 1))
      result.emplace_back(x, y, z);
  });
  return result;
}

bool path_to_a_leaf(const SphereTree& tree, std::uint32_t n, const IVec3& v, double voxel_size_m,
                    double relative_tolerance) {
  if (!sphere_holds_voxel(tree, n, v, voxel_size_m, relative_tolerance)) return false;
  if (tree.is_leaf(n)) return true;
  for (std::uint32_t c = tree.first_child[n]; c < tree.first_child[n] + tree.child_count[n]; ++c)
    if (path_to_a_leaf(tree, c, v, voxel_size_m, relative_tolerance)) return true;
  return false;
}

std::string descent_guarantee_problem(const VoxelModel& model, const SphereTree& tree, bool surface_only,
                                      double relative_tolerance) {
  if (const std::string layout = tree.check_layout(); !layout.empty()) return "layout: " + layout;
  const double s = model.voxel_size_m();
  const std::vector<IVec3> voxels = voxels_to_cover(model, surface_only);
  const auto name = [](const IVec3& v) { return std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z); };
  for (int depth = 0; depth <= tree.height(); ++depth) {
    const std::vector<std::uint32_t> cut = tree.cut(depth);
    for (const IVec3& v : voxels) {
      bool covered = false;
      for (const std::uint32_t n : cut)
        if ((covered = sphere_holds_voxel(tree, n, v, s, relative_tolerance))) break;
      if (!covered) return "voxel " + name(v) + " in no sphere of the cut at depth " + std::to_string(depth);
    }
  }
  for (const IVec3& v : voxels)
    if (!path_to_a_leaf(tree, 0, v, s, relative_tolerance)) return "voxel " + name(v) + " has no path of spheres from the root to a leaf";
  return "";
}

}  // namespace fovea::test
