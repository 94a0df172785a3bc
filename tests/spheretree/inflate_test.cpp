// inflate_sphere_tree (spheretree/inflate.hpp) against an exhaustive oracle that knows
// nothing of the assignment: every voxel the tree must cover has a chain of spheres holding
// it from the root to a leaf, so it is in some sphere of every cut and in a child of each
// node of its chain.

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "core/rng.hpp"
#include "spheretree/inflate.hpp"
#include "spheretree/medial_builder.hpp"
#include "spheretree/octree_builder.hpp"
#include "spheretree/sph_file.hpp"
#include "support/tree_coverage.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

/// Whether the descent's guarantee holds (support/tree_coverage.hpp).
bool covers(const VoxelModel& m, const SphereTree& tree, bool remove_hidden) {
  return test::descent_guarantee_problem(m, tree, remove_hidden).empty();
}

/// Inflation changes radii only, and never shrinks one; the report adds up.
void require_only_grown(const SphereTree& before, const InflatedSphereTree& after) {
  const SphereTree& t = after.tree;
  REQUIRE(t.check_layout() == "");
  REQUIRE(t.size() == before.size());
  CHECK(t.centre_m == before.centre_m);
  CHECK(t.first_child == before.first_child);
  CHECK(t.child_count == before.child_count);
  CHECK(t.level_begin == before.level_begin);
  std::size_t grown = 0;
  double max_growth_m = 0;
  for (std::size_t n = 0; n < t.size(); ++n) {
    REQUIRE(t.radius_m[n] >= before.radius_m[n]);
    if (t.radius_m[n] > before.radius_m[n]) ++grown;
    max_growth_m = std::max(max_growth_m, t.radius_m[n] - before.radius_m[n]);
  }
  CHECK(after.report.grown == grown);
  CHECK(after.report.max_growth_m == max_growth_m);
  REQUIRE(after.report.levels.size() == static_cast<std::size_t>(t.height() + 1));
  std::size_t per_level = 0;
  for (const LevelInflation& l : after.report.levels) {
    CHECK(l.spheres == t.level_begin[static_cast<std::size_t>(l.depth) + 1] - t.level_begin[static_cast<std::size_t>(l.depth)]);
    per_level += l.grown;
  }
  CHECK(per_level == grown);
}

VoxelModel model_of(Shape shape, int resolution, std::uint64_t seed) {
  ModelSettings settings;
  settings.shape = shape;
  settings.resolution_voxels = resolution;
  return make_model(settings, seed);
}

/// A tree through the .sph format, as a config reads it.
SphereTree through_sph(const SphereTree& tree, const VoxelModel& m) {
  std::stringstream text;
  write_sph(text, tree, model_bounds_centre_m(m));
  return read_sph(text, model_bounds_centre_m(m));
}

}  // namespace

TEST_CASE("inflate: a tree that already covers comes back unchanged", "[spheretree][inflate]") {
  for (Shape shape : {Shape::ball, Shape::box, Shape::rock, Shape::l_shape, Shape::humanoid})
    for (const bool remove_hidden : {true, false}) {
      const VoxelModel m = model_of(shape, 13, 3);
      const SphereTree built = build_octree_sphere_tree(m, {4, remove_hidden});
      INFO("shape " << static_cast<int>(shape) << " remove_hidden " << remove_hidden);
      for (const SphereTree& tree : {built, through_sph(built, m)}) {
        const InflatedSphereTree same = inflate_sphere_tree(tree, m, remove_hidden);
        CHECK(same.report.grown == 0);
        CHECK(same.report.max_growth_m == 0);
        CHECK(same.tree.radius_m == tree.radius_m);
        CHECK(same.tree.centre_m == tree.centre_m);
      }
    }
}

TEST_CASE("inflate: the medial builder's trees miss by rounding at most", "[spheretree][inflate][medial]") {
  // The medial builder holds the guarantee by construction: each radius is its farthest
  // covered voxel corner, in double precision, so inflating grows a sphere by rounding at most.
  for (Shape shape : {Shape::ball, Shape::box, Shape::rock, Shape::l_shape, Shape::humanoid})
    for (const bool remove_hidden : {true, false}) {
      const VoxelModel m = model_of(shape, 13, 3);
      const SphereTree medial = build_medial_sphere_tree(m, {4, remove_hidden, 8});
      INFO("shape " << static_cast<int>(shape) << " remove_hidden " << remove_hidden);
      const InflatedSphereTree inflated = inflate_sphere_tree(medial, m, remove_hidden);
      require_only_grown(medial, inflated);
      CHECK(inflated.report.max_growth_fraction < 1e-6);
      CHECK(covers(m, inflated.tree, remove_hidden));
    }
}

TEST_CASE("inflate: radii shrunk by a small factor grow back until the tree covers", "[spheretree][inflate]") {
  for (Shape shape : {Shape::ball, Shape::box, Shape::rock, Shape::l_shape, Shape::humanoid})
    for (const bool remove_hidden : {true, false}) {
      const VoxelModel m = model_of(shape, 16, 5);
      SphereTree shrunk = build_octree_sphere_tree(m, {4, remove_hidden});
      for (double& r : shrunk.radius_m) r *= 1 - 1e-3;
      INFO("shape " << static_cast<int>(shape) << " remove_hidden " << remove_hidden);
      REQUIRE_FALSE(covers(m, shrunk, remove_hidden));
      const InflatedSphereTree inflated = inflate_sphere_tree(shrunk, m, remove_hidden);
      require_only_grown(shrunk, inflated);
      CHECK(covers(m, inflated.tree, remove_hidden));
      CHECK(inflated.report.grown > 0);
      // No more than the builder's own chain of cells would need: each of its spheres lost
      // 1e-3 of a radius no larger than the root's.
      CHECK(inflated.report.max_growth_m <= 1e-3 * shrunk.radius_m[0] / (1 - 1e-3) * (1 + 1e-9));
    }
}

TEST_CASE("inflate: trees whose centres are off by a fraction of a voxel are made to cover", "[spheretree][inflate]") {
  // As the Toolkit's trees of a mesh nudged by a small fraction of a voxel: every centre moved
  // by up to 0.05 voxel, radii kept.
  Rng rng(11);
  for (int trial = 0; trial < 24; ++trial) {
    const Shape shape = std::array{Shape::ball, Shape::rock, Shape::humanoid, Shape::l_shape}[trial % 4];
    const VoxelModel m = model_of(shape, 6 + static_cast<int>(rng.below(14)), rng.next_u64());
    const bool remove_hidden = trial % 3 != 0;
    SphereTree tree = build_octree_sphere_tree(m, {1 + trial % 5, remove_hidden});
    const double s = m.voxel_size_m();
    for (Vec3& c : tree.centre_m) c += Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)) * (0.05 * s);
    INFO("trial " << trial);
    const InflatedSphereTree inflated = inflate_sphere_tree(tree, m, remove_hidden);
    require_only_grown(tree, inflated);
    CHECK(covers(m, inflated.tree, remove_hidden));
    // A centre off by at most sqrt(3) x 0.05 voxel needs no more than that.
    CHECK(inflated.report.max_growth_m <= std::sqrt(3.0) * 0.05 * s * (1 + 1e-9));
    // Inflating twice changes nothing more.
    CHECK(inflate_sphere_tree(inflated.tree, m, remove_hidden).report.grown == 0);
  }
}

TEST_CASE("inflate: a sphere of radius 0 dropped from a .sph leaves its voxels to its siblings", "[spheretree][inflate]") {
  // The Toolkit writes unused and degenerate spheres with radius 0.000000; the reader drops
  // them and their children, so the voxels they held must go to the spheres left.
  const VoxelModel m = model_of(Shape::rock, 12, 9);
  const SphereTree built = build_octree_sphere_tree(m);
  std::stringstream text;
  write_sph(text, built, model_bounds_centre_m(m));
  std::string file = text.str();
  // The second slot line: the root's first child.
  const std::size_t first = file.find('\n', file.find('\n') + 1) + 1;
  const std::size_t end = file.find('\n', first);
  std::istringstream slot(file.substr(first, end - first));
  double x = 0, y = 0, z = 0;
  slot >> x >> y >> z;
  file.replace(first, end - first, std::to_string(x) + " " + std::to_string(y) + " " + std::to_string(z) + " 0.000000 1");
  std::istringstream in(file);
  const SphereTree dropped = read_sph(in, model_bounds_centre_m(m));
  REQUIRE(dropped.child_count[0] + 1 == built.child_count[0]);
  REQUIRE_FALSE(covers(m, dropped, true));
  const InflatedSphereTree inflated = inflate_sphere_tree(dropped, m, true);
  require_only_grown(dropped, inflated);
  CHECK(covers(m, inflated.tree, true));
}
