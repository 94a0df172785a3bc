#include "spheretree/tree_builder.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "spheretree/medial_builder.hpp"

namespace fovea {
namespace {

/// Per depth: spheres in the cut and the worst protrusion bound over them, in voxels.
struct LevelProtrusion {
  double spheres = 0;
  double protrusion_voxels = 0;
};

std::vector<LevelProtrusion> level_protrusions(const SphereTree& tree, const ModelDepth& depth, double voxel_size_m) {
  std::vector<LevelProtrusion> levels;
  for (int d = 0; d <= tree.height(); ++d) {
    const std::vector<std::uint32_t> cut = tree.cut(d);
    LevelProtrusion l{static_cast<double>(cut.size()), 0};
    for (const std::uint32_t n : cut)
      l.protrusion_voxels = std::max(l.protrusion_voxels,
                                     depth.protrusion_bound_voxels(tree.centre_m[n] / voxel_size_m, tree.radius_m[n] / voxel_size_m));
    levels.push_back(l);
  }
  return levels;
}

/// The worst protrusion of a tree at `spheres` spheres: linear in log(spheres) between its
/// depths, its deepest depth's beyond them.
double protrusion_at(const std::vector<LevelProtrusion>& levels, double spheres) {
  if (spheres <= levels.front().spheres) return levels.front().protrusion_voxels;
  for (std::size_t i = 1; i < levels.size(); ++i) {
    if (spheres > levels[i].spheres) continue;
    const double span = std::log(levels[i].spheres) - std::log(levels[i - 1].spheres);
    const double t = span > 0 ? (std::log(spheres) - std::log(levels[i - 1].spheres)) / span : 1;
    return levels[i - 1].protrusion_voxels + t * (levels[i].protrusion_voxels - levels[i - 1].protrusion_voxels);
  }
  return levels.back().protrusion_voxels;
}

}  // namespace

double compare_tree_tightness(const VoxelModel& model, const SphereTree& a, const SphereTree& b) {
  const ModelDepth depth(model);
  const double s = model.voxel_size_m();
  const std::vector<LevelProtrusion> la = level_protrusions(a, depth, s), lb = level_protrusions(b, depth, s);
  // At each of a's depths, against b at a's sphere count, and at each of b's against a; the
  // mean log ratio, so a tree tighter by the same factor everywhere scores that factor.
  // A floor of 1/100 voxel keeps a perfect fit (a single voxel) from dividing by zero.
  constexpr double kFloor = 0.01;
  double sum = 0;
  int terms = 0;
  for (const LevelProtrusion& l : la) {
    sum += std::log(std::max(l.protrusion_voxels, kFloor) / std::max(protrusion_at(lb, l.spheres), kFloor));
    ++terms;
  }
  for (const LevelProtrusion& l : lb) {
    sum -= std::log(std::max(l.protrusion_voxels, kFloor) / std::max(protrusion_at(la, l.spheres), kFloor));
    ++terms;
  }
  return sum / terms;
}

BuiltSphereTree build_sphere_tree(const VoxelModel& model, const SphereTreeBuildOptions& options) {
  if (options.branching < 2 || options.branching > 8) throw std::invalid_argument("sphere tree branching must be in [2, 8]");
  const MedialBuildOptions medial{options.levels, options.remove_hidden, options.branching};
  switch (options.builder) {
    case SphereTreeBuilder::octree: return {build_octree_sphere_tree(model, octree_build_options(options)), SphereTreeBuilder::octree};
    case SphereTreeBuilder::medial: return {build_medial_sphere_tree(model, medial), SphereTreeBuilder::medial};
    case SphereTreeBuilder::tightest: break;
  }
  SphereTree octree = build_octree_sphere_tree(model, octree_build_options(options));
  SphereTree medial_tree = build_medial_sphere_tree(model, medial);
  // Ties go to the octree, 004's tree.
  if (compare_tree_tightness(model, medial_tree, octree) < 0) return {std::move(medial_tree), SphereTreeBuilder::medial};
  return {std::move(octree), SphereTreeBuilder::octree};
}

}  // namespace fovea
