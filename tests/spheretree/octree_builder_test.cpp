#include <catch2/catch.hpp>

#include "core/rng.hpp"
#include "spheretree/octree_builder.hpp"
#include "support/tree_coverage.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

/// The coverage guarantees, by exhaustive search (the oracle knows nothing of cells):
/// every surface voxel inside some sphere of every cut, and inside some child of every
/// node whose cell holds it; radii within the cell's circumsphere; a valid layout.
void require_guarantees(const VoxelModel& m, const SphereTree& tree) {
  REQUIRE(test::descent_guarantee_problem(m, tree, true) == "");
  const double s = m.voxel_size_m();
  const std::vector<IVec3> surface = test::voxels_to_cover(m, true);
  for (std::uint32_t n = 0; n < tree.size(); ++n) {
    const Vec3 cell = Vec3(tree.cell_max[n] - tree.cell_min[n]) * s;
    REQUIRE(tree.radius_m[n] <= 0.5 * glm::length(cell) * (1 + 1e-12));
    if (tree.is_leaf(n)) continue;
    for (const IVec3& v : surface) {
      if (glm::any(glm::lessThan(v, tree.cell_min[n])) || glm::any(glm::greaterThanEqual(v, tree.cell_max[n]))) continue;
      bool covered = false;
      for (std::uint32_t c = tree.first_child[n]; c < tree.first_child[n] + tree.child_count[n] && !covered; ++c)
        covered = test::sphere_holds_voxel(tree, c, v, s);
      REQUIRE(covered);
    }
  }
}

}  // namespace

TEST_CASE("octree sphere tree: coverage on every built-in model at several resolutions", "[spheretree][builder]") {
  for (Shape shape : {Shape::ball, Shape::box, Shape::rock, Shape::l_shape, Shape::humanoid})
    for (int res : {1, 3, 8, 13, 16}) {
      ModelSettings settings;
      settings.shape = shape;
      settings.resolution_voxels = res;
      const VoxelModel m = make_model(settings, 7);
      INFO("shape " << static_cast<int>(shape) << " resolution " << res);
      require_guarantees(m, build_octree_sphere_tree(m));
    }
}

TEST_CASE("octree sphere tree: coverage on random voxel blobs and odd grid sizes", "[spheretree][builder]") {
  Rng rng(77);
  for (int trial = 0; trial < 12; ++trial) {
    const VoxelModel m = test::random_voxel_blob(rng, 13);
    for (int levels : {1, 2, 4, 6}) {
      INFO("trial " << trial << " levels " << levels);
      require_guarantees(m, build_octree_sphere_tree(m, {levels, true}));
    }
  }
}

TEST_CASE("octree sphere tree: a solid box keeps exactly its unhidden nodes (hand count)", "[spheretree][builder]") {
  // 8^3 solid box, 3 levels below the root: the root; 8 octants of 4^3, all on the surface;
  // 64 cells of 2^3 less the 2^3 inner ones = 56; the 512 voxels less the 6^3 inner ones
  // = 296. Without removal: 1 + 8 + 64 + 512.
  const VoxelModel box8 = make_box({8, 8, 8}, 0.1);
  const SphereTree pruned = build_octree_sphere_tree(box8, {3, true});
  CHECK(pruned.size() == 1 + 8 + 56 + 296);
  CHECK(pruned.level_begin == std::vector<std::uint32_t>{0, 1, 9, 65, 361});
  CHECK(build_octree_sphere_tree(box8, {3, false}).size() == 1 + 8 + 64 + 512);
  // 16^3, 4 levels: 1 + 8 + (64 - 8) + (512 - 216) + (4096 - 2744).
  CHECK(build_octree_sphere_tree(make_box({16, 16, 16}, 0.1), {4, true}).size() == 1 + 8 + 56 + 296 + 1352);
}

TEST_CASE("octree sphere tree: spheres, heights and levels", "[spheretree][builder]") {
  // The root sphere of a 4 x 2 x 2 box of 0.5 m voxels is around the whole box.
  const SphereTree t = build_octree_sphere_tree(make_box({4, 2, 2}, 0.5));
  CHECK(t.centre_m[0] == Vec3(1.0, 0.5, 0.5));
  CHECK(t.radius_m[0] == Approx(0.5 * std::sqrt(4.0 + 1.0 + 1.0)));
  // A branch ends at single voxels: an 8^3 model has at most 3 levels below the root.
  CHECK(build_octree_sphere_tree(make_ball({8, 8, 8}, 0.1), {4, true}).height() == 3);
  CHECK(build_octree_sphere_tree(make_ball({32, 32, 32}, 0.1), {4, true}).height() == 4);
  CHECK(build_octree_sphere_tree(make_ball({32, 32, 32}, 0.1), {0, true}).size() == 1);
  // A single voxel is a lone root.
  VoxelModel one({1, 1, 1}, 1.0);
  one.set(0, 0, 0, true);
  const SphereTree lone = build_octree_sphere_tree(one);
  CHECK(lone.size() == 1);
  CHECK(lone.height() == 0);
  CHECK(lone.radius_m[0] == Approx(std::sqrt(3.0) / 2));
}

TEST_CASE("octree sphere tree: the same model always gives the same tree", "[spheretree][builder]") {
  const VoxelModel rock = make_rock({20, 18, 16}, 0.05, 3);
  const SphereTree a = build_octree_sphere_tree(rock), b = build_octree_sphere_tree(rock);
  CHECK(a.centre_m == b.centre_m);
  CHECK(a.radius_m == b.radius_m);
  CHECK(a.first_child == b.first_child);
}
