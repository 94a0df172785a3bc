#include <catch2/catch.hpp>

#include <cmath>

#include "core/rng.hpp"
#include "spheretree/distance_transform.hpp"
#include "spheretree/octree_builder.hpp"
#include "spheretree/tightness.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

TEST_CASE("distance transform: exact squared distances against brute force", "[spheretree][tightness]") {
  Rng rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    const IVec3 dims(1 + static_cast<int>(rng.below(14)), 1 + static_cast<int>(rng.below(10)),
                     1 + static_cast<int>(rng.below(12)));
    std::vector<std::uint8_t> feature(static_cast<std::size_t>(dims.x * dims.y * dims.z), 0);
    std::vector<IVec3> points;
    const double density = trial == 0 ? 0.0 : rng.uniform(0.001, 0.2);
    std::size_t i = 0;
    for (int z = 0; z < dims.z; ++z)
      for (int y = 0; y < dims.y; ++y)
        for (int x = 0; x < dims.x; ++x, ++i)
          if (rng.uniform() < density) {
            feature[i] = 1;
            points.emplace_back(x, y, z);
          }
    const std::vector<double> d = squared_distance_transform(feature, dims);
    i = 0;
    for (int z = 0; z < dims.z; ++z)
      for (int y = 0; y < dims.y; ++y)
        for (int x = 0; x < dims.x; ++x, ++i) {
          double best = std::numeric_limits<double>::infinity();
          for (const IVec3& p : points) {
            const IVec3 e = p - IVec3(x, y, z);
            best = std::min(best, double(e.x * e.x + e.y * e.y + e.z * e.z));
          }
          REQUIRE(d[i] == best);
        }
  }
}

namespace {

/// Distance in voxels from point p (voxel units) to the union of the model's voxel cubes,
/// by brute force over every occupied voxel.
double brute_distance(const VoxelModel& m, const Vec3& p) {
  double best = 1e300;
  m.for_each_occupied([&](int x, int y, int z) {
    const Vec3 lo(x, y, z), hi = lo + 1.0;
    const Vec3 nearest = glm::clamp(p, lo, hi);
    best = std::min(best, glm::length(p - nearest));
  });
  return best;
}

}  // namespace

TEST_CASE("tightness: per-depth distances agree with brute force on the same lattice", "[spheretree][tightness]") {
  const VoxelModel rock = make_rock({7, 6, 7}, 0.1, 4);
  const SphereTree tree = build_octree_sphere_tree(rock, {3, true});
  const TightnessReport report = measure_tightness(rock, tree);
  REQUIRE(report.lattice_spacing_voxels == 0.25);
  REQUIRE(report.levels.size() == static_cast<std::size_t>(tree.height()) + 1);
  for (int depth = 0; depth <= tree.height(); ++depth) {
    // Oracle: every lattice point (quarter voxels) in the union of the cut's spheres.
    double max_d = 0, sum = 0;
    long points = 0;
    const auto cut = tree.cut(depth);
    for (int l = -40; l <= 70; ++l)
      for (int j = -40; j <= 70; ++j)
        for (int i = -40; i <= 70; ++i) {
          const Vec3 p = Vec3(i, j, l) / 4.0;  // voxel units
          bool inside = false;
          for (const auto n : cut) {
            const Vec3 c = tree.centre_m[n] / 0.1;
            const double r = tree.radius_m[n] / 0.1;
            // Same test as the measure: squared distance in lattice units against r^2.
            const Vec3 e = Vec3(i, j, l) - c * 4.0;
            if ((inside = glm::dot(e, e) <= (4 * r) * (4 * r))) break;
          }
          if (!inside) continue;
          const double d = brute_distance(rock, p);
          max_d = std::max(max_d, d);
          sum += d;
          ++points;
        }
    INFO("depth " << depth);
    CHECK(report.levels[static_cast<std::size_t>(depth)].max_distance_voxels == Approx(max_d).margin(1e-12));
    CHECK(report.levels[static_cast<std::size_t>(depth)].mean_distance_voxels == Approx(sum / double(points)).epsilon(1e-9));
    CHECK(report.levels[static_cast<std::size_t>(depth)].spheres == cut.size());
  }
}

TEST_CASE("tightness: a cube's circumsphere strays (sqrt 3 - 1) / 2 of a side", "[spheretree][tightness]") {
  // The root sphere of an 8^3 box bulges past each face by 8 (sqrt(3) - 1) / 2 = 2.93 voxels;
  // the lattice finds it to within a lattice diagonal, and never above it. At depth 4 of a
  // 32^3 box the leaves (2^3 cells) bulge by sqrt(3) - 1 = 0.73 voxels, which the quarter-voxel
  // lattice sees as 0.5: more than half a diagonal (0.22) short, within a whole one (0.43).
  const VoxelModel box = make_box({8, 8, 8}, 0.1);
  const TightnessReport report = measure_tightness(box, build_octree_sphere_tree(box));
  const double analytic = 8 * (std::sqrt(3.0) - 1) / 2;
  CHECK(report.levels[0].max_distance_voxels <= analytic);
  CHECK(analytic - report.levels[0].max_distance_voxels <= std::sqrt(3.0) * 0.25);
  const VoxelModel big = make_box({32, 32, 32}, 0.1);
  const TightnessReport deep = measure_tightness(big, build_octree_sphere_tree(big));
  CHECK(deep.levels[4].max_distance_voxels <= std::sqrt(3.0) - 1);
  CHECK(std::sqrt(3.0) - 1 - deep.levels[4].max_distance_voxels <= std::sqrt(3.0) * 0.25);
  CHECK(report.levels[0].max_fraction_of_root == Approx(report.levels[0].max_distance_voxels / (4 * std::sqrt(3.0))));
  // The upper bound holds the true value; it exceeds the lattice value by at most two lattice
  // diagonals (the true value is within one of the lattice value, the bound within one of it).
  CHECK(report.levels[0].max_upper_bound_voxels >= analytic);
  CHECK(deep.levels[4].max_upper_bound_voxels >= std::sqrt(3.0) - 1);
  for (const TightnessReport* r : {&report, &deep})
    for (const LevelTightness& l : r->levels) {
      CHECK(l.max_upper_bound_voxels - l.max_distance_voxels <= 2 * std::sqrt(3.0) * 0.25 + 1e-12);
      CHECK(l.max_fraction_of_side == Approx(l.max_distance_voxels / r->longest_side_voxels));
    }
  CHECK(report.longest_side_voxels == 8);
  CHECK(deep.longest_side_voxels == 32);
}

TEST_CASE("tightness: on every built-in model the mean distance falls with depth", "[spheretree][tightness]") {
  for (Shape shape : {Shape::ball, Shape::box, Shape::rock, Shape::l_shape, Shape::humanoid}) {
    ModelSettings settings;
    settings.shape = shape;
    settings.resolution_voxels = 16;
    const VoxelModel m = make_model(settings, 3);
    const TightnessReport r = measure_tightness(m, build_octree_sphere_tree(m));
    INFO("shape " << static_cast<int>(shape));
    REQUIRE(r.levels.size() >= 4);
    for (std::size_t d = 1; d < r.levels.size(); ++d) CHECK(r.levels[d].mean_distance_voxels < r.levels[d - 1].mean_distance_voxels);
  }
}
