#include "spheretree/tightness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "spheretree/distance_transform.hpp"

namespace fovea {

TightnessReport measure_tightness(const VoxelModel& model, const SphereTree& tree, std::int64_t max_lattice_points) {
  const double s = model.voxel_size_m();
  // The region to sample: every sphere of the tree, and the model itself, in voxel units.
  Vec3 lo = Vec3(0.0), hi = Vec3(model.dims());
  for (std::size_t n = 0; n < tree.size(); ++n) {
    lo = glm::min(lo, (tree.centre_m[n] - tree.radius_m[n]) / s);
    hi = glm::max(hi, (tree.centre_m[n] + tree.radius_m[n]) / s);
  }
  // Lattice of spacing 1/k voxel, aligned with the voxel grid (so voxel faces lie on it).
  int k = 4;
  IVec3 first, count;
  for (;; --k) {
    first = IVec3(glm::floor(lo * double(k)));
    const IVec3 last = IVec3(glm::ceil(hi * double(k)));
    count = last - first + 1;
    const std::int64_t points = std::int64_t{count.x} * count.y * count.z;
    if (points <= max_lattice_points) break;
    if (k == 1)
      throw std::invalid_argument("model too large to measure: " + std::to_string(points) +
                                  " lattice points at one per voxel, more than " + std::to_string(max_lattice_points));
  }
  const auto index = [&](int i, int j, int l) {
    return static_cast<std::size_t>(i) +
           static_cast<std::size_t>(count.x) * (static_cast<std::size_t>(j) + static_cast<std::size_t>(count.y) * static_cast<std::size_t>(l));
  };

  // Features: lattice points inside the union of closed occupied voxel cubes. Along each
  // axis, lattice coordinate p (in 1/k voxels) lies in voxel floor(p / k), and also in the
  // voxel before it when p is on a voxel boundary: up to 8 voxels share a point.
  const auto voxels_at = [k](int p, int out[2]) {
    const int f = static_cast<int>(std::floor(static_cast<double>(p) / k));
    out[0] = f;
    out[1] = f - 1;
    return p % k == 0 ? 2 : 1;
  };
  std::vector<std::uint8_t> inside_model(static_cast<std::size_t>(count.x) * static_cast<std::size_t>(count.y) * static_cast<std::size_t>(count.z), 0);
  for (int l = 0; l < count.z; ++l)
    for (int j = 0; j < count.y; ++j)
      for (int i = 0; i < count.x; ++i) {
        const IVec3 p = first + IVec3(i, j, l);
        int vx[2], vy[2], vz[2];
        const int nx = voxels_at(p.x, vx), ny = voxels_at(p.y, vy), nz = voxels_at(p.z, vz);
        bool in = false;
        for (int c = 0; c < nz && !in; ++c)
          for (int b = 0; b < ny && !in; ++b)
            for (int a = 0; a < nx && !in; ++a) in = model.occupied(vx[a], vy[b], vz[c]);
        inside_model[index(i, j, l)] = in ? 1 : 0;
      }
  const std::vector<double> distance2 = squared_distance_transform(inside_model, count);

  TightnessReport report;
  report.lattice_spacing_voxels = 1.0 / k;
  {
    const VoxelModel::CellRange occupied = model.occupied_cells();
    const IVec3 side = model.occupied_count() == 0 ? IVec3(0) : occupied.hi - occupied.lo;  // empty: lo > hi
    report.longest_side_voxels = std::max({side.x, side.y, side.z});
  }
  // Half a lattice diagonal, in lattice steps: the lattice's covering radius.
  const double half_diagonal = std::sqrt(3.0) / 2;
  const double root_radius_voxels = tree.radius_m[0] / s;
  // 1: in the union; 2: within half a lattice diagonal of it (for the upper bound).
  std::vector<std::uint8_t> in_union(inside_model.size());
  for (int depth = 0; depth <= tree.height(); ++depth) {
    std::fill(in_union.begin(), in_union.end(), std::uint8_t{0});
    const std::vector<std::uint32_t> cut = tree.cut(depth);
    for (const std::uint32_t n : cut) {
      const Vec3 c = tree.centre_m[n] / s * double(k);  // lattice units, absolute
      const double r = tree.radius_m[n] / s * double(k);
      const double grown = r + half_diagonal;
      const IVec3 a = glm::max(IVec3(glm::ceil(c - grown)) - first, IVec3(0));
      const IVec3 b = glm::min(IVec3(glm::floor(c + grown)) - first, count - 1);
      for (int l = a.z; l <= b.z; ++l)
        for (int j = a.y; j <= b.y; ++j)
          for (int i = a.x; i <= b.x; ++i) {
            const Vec3 d = Vec3(first + IVec3(i, j, l)) - c;
            const double d2 = glm::dot(d, d);
            std::uint8_t& mark = in_union[index(i, j, l)];
            if (d2 <= r * r) mark = 1;
            else if (d2 <= grown * grown && mark == 0) mark = 2;
          }
    }
    double max2 = 0, upper2 = 0, sum = 0;
    std::int64_t points = 0;
    for (std::size_t p = 0; p < in_union.size(); ++p) {
      if (!in_union[p]) continue;
      upper2 = std::max(upper2, distance2[p]);
      if (in_union[p] != 1) continue;
      max2 = std::max(max2, distance2[p]);
      sum += std::sqrt(distance2[p]);
      ++points;
    }
    LevelTightness t;
    t.depth = depth;
    t.spheres = cut.size();
    t.max_distance_voxels = std::sqrt(max2) / k;
    t.mean_distance_voxels = points > 0 ? sum / static_cast<double>(points) / k : 0;
    t.max_fraction_of_root = t.max_distance_voxels / root_radius_voxels;
    t.mean_fraction_of_root = t.mean_distance_voxels / root_radius_voxels;
    t.max_upper_bound_voxels = (std::sqrt(upper2) + half_diagonal) / k;
    const double side = std::max(report.longest_side_voxels, 1.0);  // an empty model has none
    t.max_fraction_of_side = t.max_distance_voxels / side;
    t.max_upper_fraction_of_side = t.max_upper_bound_voxels / side;
    report.levels.push_back(t);
  }
  return report;
}

}  // namespace fovea
