// Entities and models made and removed while the world runs (Animation::add_model, spawn,
// retire), and on-demand trees in a running world (sphere_tree.on_demand).

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <set>

#include "frame/animation.hpp"
#include "support/scenes.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

AnimationSettings rock_world(bool on_demand) {
  EntityGroupSettings rocks =
      test::rock_group({.count = 80, .variants = 3, .resolution_voxels = 12, .size_m = 0.6, .name = "rocks"});
  rocks.sphere_tree.on_demand = on_demand;
  rocks.sphere_tree.evict_after_frames = 10;
  AnimationSettings s = test::world_of(Vec3(6.0), {rocks});
  s.response.gravity_mps2 = {0, -9.81, 0};
  s.ground_truth = true;
  return s;
}

/// The frame's record without its wall-clock times and tree-growth counts.
bool same_frame(const FrameStats& a, const FrameStats& b) {
  return a.collisions == b.collisions && a.metrics.resolved_colliding == b.metrics.resolved_colliding &&
         a.metrics.resolved_not_colliding == b.metrics.resolved_not_colliding && a.metrics.interrupted == b.metrics.interrupted &&
         a.sphere_tests == b.sphere_tests && a.pairs == b.pairs && a.metrics.nabla_est_m == b.metrics.nabla_est_m &&
         a.metrics.p_est == b.metrics.p_est && a.metrics.nabla_true_m == b.metrics.nabla_true_m && a.response.contacts == b.response.contacts &&
         a.response.contact_points == b.response.contact_points && a.response.contact_tests == b.response.contact_tests;
}

bool same_bytes(std::span<const EntityState> a, std::span<const EntityState> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

}  // namespace

TEST_CASE("Lifecycle: on-demand trees give the frames and poses of whole trees, building a fraction of them",
          "[world][lifecycle][on_demand]") {
  for (const bool budgeted : {false, true}) {
    AnimationSettings whole_settings = rock_world(false);
    AnimationSettings lazy_settings = rock_world(true);
    if (!budgeted) whole_settings.budget.mode = lazy_settings.budget.mode = BudgetMode::unlimited;
    if (budgeted) {
      whole_settings.budget.tests = lazy_settings.budget.tests = 400;  // interrupted most frames
      whole_settings.budget.ms = lazy_settings.budget.ms = 0;
    }
    Animation whole(whole_settings, 5);
    Animation lazy(lazy_settings, 5);
    std::int64_t built = 0, evicted = 0, most_nodes = 0, interrupted = 0;
    for (int frame = 0; frame < 300; ++frame) {
      const FrameStats a = whole.step();
      const FrameStats b = lazy.step();
      INFO("frame " << frame << (budgeted ? " budgeted" : ""));
      REQUIRE(same_frame(a, b));
      REQUIRE(same_bytes(whole.states(), lazy.states()));
      CHECK(a.tree_nodes == 0);
      built += b.tree_nodes_built;
      evicted += b.tree_nodes_evicted;
      most_nodes = std::max(most_nodes, b.tree_nodes);
      interrupted += b.metrics.interrupted;
    }
    INFO((budgeted ? "budgeted" : "no limit"));
    if (budgeted) CHECK(interrupted > 100);
    std::size_t whole_nodes = 0;
    for (const SphereTree& tree : whole.model_library().trees()) whole_nodes += tree.size();
    CHECK(built > 0);
    CHECK(evicted > 0);  // branches idle for 10 frames went
    CHECK(most_nodes < static_cast<std::int64_t>(whole_nodes));
  }
}

TEST_CASE("Lifecycle: spawned entities collide, retired ones leave every list, ids and model slots are reused",
          "[world][lifecycle]") {
  AnimationSettings s = rock_world(false);
  s.world.entities[0].count = 4;
  s.world.entities[0].placement = Placement::random;
  s.response.gravity_mps2 = {0, 0, 0};
  Animation world(s, 9);
  REQUIRE(world.live_entity_count() == 4);

  // A fragment-like model, released when unused, on demand.
  VoxelModel block = make_box({6, 6, 6}, 0.05);
  const ModelId block_model = world.add_model(block, 0, ModelLifetime::released_when_unused);
  CHECK(world.model_library().has_model(block_model));
  CHECK(world.model_library().generations()[block_model] == 1);
  CHECK(world.model_library().trees()[block_model].size() == 0);  // on demand: the narrow phase holds it
  CHECK(world.narrowphase().model(block_model).spheres.size() == 1);

  // Two blocks heading at each other: they meet and the response pushes them apart.
  EntityState left, right;
  left.position_m = {2.0, 3.0, 3.0};
  left.linear_velocity_mps = {1.0, 0, 0};
  right.position_m = {2.5, 3.0, 3.0};
  right.linear_velocity_mps = {-1.0, 0, 0};
  const EntityId a = world.spawn(block_model, left);
  const EntityId b = world.spawn(block_model, right);
  CHECK(a == 4);
  CHECK(b == 5);
  CHECK(world.live_entity_count() == 6);
  bool met = false;
  for (int i = 0; i < 40; ++i) {
    const FrameStats f = world.step();
    CHECK(f.entity_count == 6);
    for (const std::uint32_t slot : world.narrowphase().order()) {
      const Collision& c = world.narrowphase().collision(slot);
      met = met || (c.a == a && c.b == b && c.status == CollisionStatus::colliding);
    }
  }
  CHECK(met);
  CHECK(world.states()[a].linear_velocity_mps.x < 0);  // bounced
  CHECK(world.states()[b].linear_velocity_mps.x > 0);

  // Retired: out of the count at once, out of the broad phase and collisions at the next step.
  world.retire(a);
  world.retire(b);
  CHECK_FALSE(world.is_live(a));
  CHECK(world.live_entity_count() == 4);
  const FrameStats after = world.step();
  CHECK(after.entity_count == 4);
  CHECK_FALSE(world.broadphase().is_live(a));
  for (const std::uint32_t slot : world.narrowphase().order()) {
    const Collision& c = world.narrowphase().collision(slot);
    CHECK(c.a != a);
    CHECK(c.b != a);
    CHECK(c.a != b);
    CHECK(c.b != b);
  }
  // The released model went with its last entity; its slot holds the next model added.
  CHECK_FALSE(world.model_library().has_model(block_model));
  const ModelId next = world.add_model(make_ball({8, 8, 8}, 0.05), 0, ModelLifetime::released_when_unused);
  CHECK(next == block_model);
  CHECK(world.model_library().generations()[next] == 2);
  // And the retired ids go to new entities, which start clean.
  EntityState still;
  still.position_m = {3.0, 1.0, 1.0};
  const EntityId c = world.spawn(next, still);
  CHECK((c == a || c == b));
  CHECK(world.entities()[c].live);
  CHECK(world.entities()[c].model == next);
  for (int i = 0; i < 5; ++i) world.step();
  CHECK(world.states()[c].position_m == still.position_m);  // nothing moved it, no stale correction
}

TEST_CASE("Lifecycle: a kept model stays for later spawns when its last entity retires", "[world][lifecycle]") {
  AnimationSettings s = rock_world(true);
  s.world.entities[0].count = 0;
  Animation world(s, 1);
  const ModelId rock = world.add_model(make_rock({10, 10, 10}, 0.05, 3), 0, ModelLifetime::kept);
  EntityState at;
  at.position_m = {3, 3, 3};
  const EntityId e = world.spawn(rock, at);
  world.step();
  world.retire(e);
  for (int i = 0; i < 3; ++i) world.step();
  CHECK(world.model_library().has_model(rock));
  CHECK(world.model_library().generations()[rock] == 1);
  const EntityId again = world.spawn(rock, at);
  CHECK(world.is_live(again));
  const FrameStats f = world.step();
  CHECK(f.entity_count == 1);
  CHECK(std::isfinite(world.states()[again].position_m.y));
}

TEST_CASE("Lifecycle: spawning entities elsewhere changes nothing for a body resting against the walls",
          "[world][lifecycle][response]") {
  // The walls are solver bodies after the entities, so a spawn that adds a slot moves their
  // indices; their warm-start impulses must stay theirs (a resting box in a corner, leaning
  // on two walls, would otherwise start from the other wall's load).
  AnimationSettings s = rock_world(false);
  s.world.entities[0].count = 0;
  s.ground_truth = false;
  Animation plain(s, 2), spawned(s, 2);
  const VoxelModel cube = make_box({6, 6, 6}, 0.05);
  EntityState corner;
  corner.position_m = {0.16, 0.15, 3.0};                    // touching the -x wall and the floor
  corner.linear_velocity_mps = {-0.5, 0, 0};                // pressing into the wall
  for (Animation* w : {&plain, &spawned}) w->spawn(w->add_model(cube, 0, ModelLifetime::kept), corner);
  for (int i = 0; i < 30; ++i) {
    plain.step();
    spawned.step();
  }
  REQUIRE(plain.states()[0].position_m == spawned.states()[0].position_m);
  EntityState far;
  far.position_m = {5.0, 5.0, 5.0};
  const ModelId ball = spawned.add_model(make_ball({6, 6, 6}, 0.05), 0, ModelLifetime::kept);
  spawned.spawn(ball, far);
  far.position_m = {5.0, 3.0, 1.0};
  spawned.spawn(ball, far);
  for (int i = 0; i < 10; ++i) {
    plain.step();
    spawned.step();
    INFO("frame " << i);
    REQUIRE(plain.states()[0].position_m == spawned.states()[0].position_m);
    REQUIRE(plain.states()[0].linear_velocity_mps == spawned.states()[0].linear_velocity_mps);
  }
}
