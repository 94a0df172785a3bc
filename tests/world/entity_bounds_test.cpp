#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <set>

#include "core/rng.hpp"
#include "frame/animation.hpp"
#include "world/entity_bounds.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

/// The tight box the slow obvious way: every corner of every occupied voxel, rotated.
Aabb brute_force_tight_box(const VoxelModel& model, const Vec3& com_m, const Quat& q, const Vec3& position_m) {
  Vec3 lo(std::numeric_limits<double>::infinity()), hi(-std::numeric_limits<double>::infinity());
  model.for_each_occupied([&](int x, int y, int z) {
    for (int c = 0; c < 8; ++c) {
      const Vec3 corner = Vec3(x + (c & 1), y + ((c >> 1) & 1), z + (c >> 2)) * model.voxel_size_m() - com_m;
      const Vec3 w = q * corner;
      lo = glm::min(lo, w);
      hi = glm::max(hi, w);
    }
  });
  return {position_m + lo, position_m + hi};
}

}  // namespace

TEST_CASE("tight_box of the hull points equals the box of every voxel corner", "[world][bounds]") {
  Rng rng(21);
  const std::vector<VoxelModel> models = {make_rock({12, 9, 15}, 0.1, 3), make_l_shape({10, 10, 4}, 0.05),
                                          make_humanoid({6, 18, 4}, 0.1), make_ball({9, 9, 9}, 0.2),
                                          make_box({20, 2, 2}, 0.1)};
  for (const VoxelModel& model : models) {
    const Vec3 com(0.37, 0.51, 0.29);
    const std::vector<Vec3> points = hull_points(model, com);
    std::int64_t corners = 0;
    model.for_each_occupied([&](int, int, int) { corners += 8; });
    CHECK(static_cast<std::int64_t>(points.size()) < corners);  // a reduction, not a copy
    for (int i = 0; i < 200; ++i) {
      const Quat q = rng.rotation();
      const Vec3 position(rng.uniform(-5, 5), rng.uniform(-5, 5), rng.uniform(-5, 5));
      const Aabb fast = tight_box(points, q, position);
      const Aabb slow = brute_force_tight_box(model, com, q, position);
      for (int k = 0; k < 3; ++k) {
        REQUIRE(fast.min_m[k] == Approx(slow.min_m[k]).epsilon(0).margin(1e-12));
        REQUIRE(fast.max_m[k] == Approx(slow.max_m[k]).epsilon(0).margin(1e-12));
      }
    }
  }
}

TEST_CASE("auto bounds: dynamic for long thin models, fixed for compact ones", "[world][bounds]") {
  CHECK(elongation(make_ball({8, 8, 8}, 0.1)) == 1.0);
  CHECK(elongation(make_box({16, 4, 4}, 0.1)) == 4.0);
  CHECK(resolve_bounds(BoundsKind::automatic, make_ball({8, 8, 8}, 0.1)) == BoundsKind::fixed);
  CHECK(resolve_bounds(BoundsKind::automatic, make_box({16, 4, 4}, 0.1)) == BoundsKind::dynamic);
  CHECK(resolve_bounds(BoundsKind::automatic, make_box({15, 8, 8}, 0.1)) == BoundsKind::fixed);  // 1.875
  CHECK(resolve_bounds(BoundsKind::fixed, make_box({16, 4, 4}, 0.1)) == BoundsKind::fixed);
  CHECK(resolve_bounds(BoundsKind::dynamic, make_ball({8, 8, 8}, 0.1)) == BoundsKind::dynamic);
  // The built-in shapes as docs/broadphase.md says: humanoids dynamic, rocks and balls fixed.
  ModelSettings humanoid;
  humanoid.shape = Shape::humanoid;
  humanoid.resolution_voxels = 16;
  CHECK(resolve_bounds(BoundsKind::automatic, make_model(humanoid, 1)) == BoundsKind::dynamic);
  ModelSettings rock;
  rock.shape = Shape::rock;
  rock.resolution_voxels = 16;
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    CHECK(resolve_bounds(BoundsKind::automatic, make_model(rock, seed)) == BoundsKind::fixed);
}

TEST_CASE("Animation: the broad phase's pairs equal brute force over the entity boxes every frame",
          "[world][bounds][broadphase]") {
  WorldSettings w;
  w.box_size_m = Vec3(4.0);
  EntityGroupSettings rods;
  rods.name = "rods";
  rods.count = 40;
  rods.model.shape = Shape::box;
  rods.model.aspect = Vec3(4.0, 1.0, 1.0);
  rods.speed_mps = 3;
  rods.spin_radps = 4;
  EntityGroupSettings balls;
  balls.name = "balls";
  balls.count = 40;
  balls.bounds = BoundsKind::fixed;
  balls.speed_mps = 3;
  EntityGroupSettings posts;
  posts.name = "posts";
  posts.count = 10;
  posts.is_static = true;
  w.entities = {rods, balls, posts};
  Animation world(w, 5);
  REQUIRE(world.entities()[0].bounds == BoundsKind::dynamic);
  REQUIRE(world.entities()[40].bounds == BoundsKind::fixed);

  std::int64_t total_pairs = 0, dynamic_tighter = 0;
  for (int frame = 0; frame < 300; ++frame) {
    const FrameStats stats = world.step();
    std::set<ProxyPair> expected;
    const auto n = static_cast<EntityId>(world.entities().size());
    for (EntityId a = 0; a < n; ++a) {
      const Aabb box_a = world.bounds_of(a);
      const Entity& ea = world.entities()[a];
      if (ea.bounds == BoundsKind::dynamic) {
        const Aabb cube = fixed_cube(world.states()[a].position_m, ea.bounding_radius_m);
        dynamic_tighter += glm::all(glm::greaterThanEqual(box_a.min_m, cube.min_m)) &&
                           glm::all(glm::lessThanEqual(box_a.max_m, cube.max_m));
      }
      for (EntityId b = a + 1; b < n; ++b) {
        if (ea.is_static && world.entities()[b].is_static) continue;
        if (overlaps(box_a, world.bounds_of(b))) expected.insert({a, b});
      }
    }
    const auto current = world.broadphase().pairs().current();
    // The sweep stores boxes as outward-rounded floats: it may add pairs closer than a float
    // step, never miss one. Every pair it reports must be within rounding of overlapping.
    for (const ProxyPair& p : expected) REQUIRE(world.broadphase().pairs().contains(p));
    for (const ProxyPair& p : current) {
      REQUIRE_FALSE((world.entities()[p.a].is_static && world.entities()[p.b].is_static));
      if (expected.count(p)) continue;
      const Aabb box_a = world.bounds_of(p.a), box_b = world.bounds_of(p.b);
      for (int k = 0; k < 3; ++k) {
        REQUIRE(box_a.min_m[k] <= box_b.max_m[k] + 1e-6);  // a float step at 4 m is 4.8e-7 m
        REQUIRE(box_b.min_m[k] <= box_a.max_m[k] + 1e-6);
      }
    }
    REQUIRE(stats.pairs == static_cast<std::int64_t>(current.size()));
    total_pairs += stats.pairs;
  }
  CHECK(total_pairs > 300);                // the scene is crowded enough to test something
  CHECK(dynamic_tighter == 300 * 40);      // a rod's tight box always lies inside its cube
}
