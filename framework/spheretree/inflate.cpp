#include "spheretree/inflate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "spheretree/octree_builder.hpp"

namespace fovea {
namespace {

/// Distance from `centre_m` to the farthest of the eight corners of the voxel with min corner
/// `lo_m` and edge `s`: per axis, the corner coordinate farther from the centre.
double farthest_corner_m(const Vec3& centre_m, const Vec3& lo_m, double s) {
  const Vec3 far = glm::max(glm::abs(centre_m - lo_m), glm::abs(centre_m - (lo_m + s)));
  return glm::length(far);
}

class Inflater {
 public:
  Inflater(const SphereTree& tree, double voxel_size_m) : tree_(tree), s_(voxel_size_m) {}

  /// How far the voxel reaches beyond node n's sphere: negative while it is held, with room.
  double excess_m(std::uint32_t n, const Vec3& lo_m) const {
    return farthest_corner_m(tree_.centre_m[n], lo_m, s_) - tree_.radius_m[n];
  }
  /// The growth node n needs to hold the voxel: 0 when its corners are within r (1 + kInflateTolerance).
  double growth_m(std::uint32_t n, const Vec3& lo_m) const {
    const double excess = excess_m(n, lo_m);
    return excess <= tree_.radius_m[n] * kInflateTolerance ? 0.0 : excess;
  }

  /// The least, over the chains from node n down to a leaf, of the largest growth a node of the
  /// chain needs to hold the voxel: 0 when some chain holds it already. Chains needing more than
  /// `bound_m` are not searched, and then the answer is only known to exceed `bound_m`.
  double chain_growth_m(std::uint32_t n, const Vec3& lo_m, double bound_m) const {
    const double here_m = growth_m(n, lo_m);
    if (here_m > bound_m || tree_.is_leaf(n)) return here_m;
    double best_m = std::numeric_limits<double>::infinity();
    for (std::uint32_t c = tree_.first_child[n]; c < tree_.first_child[n] + tree_.child_count[n]; ++c)
      best_m = std::min(best_m, chain_growth_m(c, lo_m, std::min(best_m, bound_m)));
    return std::max(here_m, best_m);
  }

  /// The voxel's path from the root, recording in `needed_m` the radius each node on it must
  /// grow to. At each node the voxel goes on to the child with the cheapest chain below (the
  /// smallest largest growth), ties to the child with the most room to spare or the least
  /// growth itself, then to the first; the path stops where a chain holds it already.
  void assign(const Vec3& lo_m, std::vector<double>& needed_m) const {
    std::uint32_t n = 0;
    for (;;) {
      if (growth_m(n, lo_m) > 0) needed_m[n] = std::max(needed_m[n], farthest_corner_m(tree_.centre_m[n], lo_m, s_));
      if (tree_.is_leaf(n)) return;
      std::uint32_t best = 0;
      double best_chain_m = std::numeric_limits<double>::infinity(), best_excess_m = 0;
      for (std::uint32_t c = tree_.first_child[n]; c < tree_.first_child[n] + tree_.child_count[n]; ++c) {
        const double chain_m = chain_growth_m(c, lo_m, best_chain_m);
        const double excess = excess_m(c, lo_m);
        if (best == 0 || chain_m < best_chain_m || (chain_m == best_chain_m && excess < best_excess_m)) {
          best = c;
          best_chain_m = chain_m;
          best_excess_m = excess;
        }
      }
      if (best_chain_m == 0) return;  // held down to a leaf without growth
      n = best;
    }
  }

 private:
  const SphereTree& tree_;
  double s_;
};

}  // namespace

InflatedSphereTree inflate_sphere_tree(const SphereTree& tree, const VoxelModel& model, bool remove_hidden) {
  InflatedSphereTree result{tree, {}};
  const double s = model.voxel_size_m();
  const Inflater inflater(tree, s);
  // needed_m[n]: the radius node n must grow to, 0 where it holds its voxels already.
  std::vector<double> needed_m(tree.size(), 0.0);
  const std::vector<std::uint8_t> surface = remove_hidden ? surface_voxel_mask(model) : std::vector<std::uint8_t>{};
  const IVec3 d = model.dims();
  std::size_t cell = 0;
  for (int z = 0; z < d.z; ++z)
    for (int y = 0; y < d.y; ++y)
      for (int x = 0; x < d.x; ++x, ++cell)
        if (remove_hidden ? surface[cell] != 0 : model.occupied(x, y, z)) inflater.assign(Vec3(x, y, z) * s, needed_m);

  InflationReport& report = result.report;
  for (int depth = 0; depth <= tree.height(); ++depth) {
    LevelInflation level;
    level.depth = depth;
    const auto begin = tree.level_begin[static_cast<std::size_t>(depth)];
    const auto end = tree.level_begin[static_cast<std::size_t>(depth) + 1];
    level.spheres = end - begin;
    for (std::uint32_t n = begin; n < end; ++n) {
      if (needed_m[n] <= tree.radius_m[n]) continue;
      const double growth_m = needed_m[n] - tree.radius_m[n];
      ++level.grown;
      level.max_growth_m = std::max(level.max_growth_m, growth_m);
      level.max_growth_fraction = std::max(level.max_growth_fraction, growth_m / tree.radius_m[n]);
      result.tree.radius_m[n] = needed_m[n];
    }
    report.grown += level.grown;
    report.max_growth_m = std::max(report.max_growth_m, level.max_growth_m);
    report.max_growth_fraction = std::max(report.max_growth_fraction, level.max_growth_fraction);
    report.levels.push_back(level);
  }
  return result;
}

}  // namespace fovea
