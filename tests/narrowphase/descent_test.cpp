// The staircase descent (narrowphase/narrow_phase.hpp) against its oracles: exhaustive leaf
// tests, a plain recursive descent, and the exact voxel test; interruption against single
// steps; the steady state against the allocator.

#include <catch2/catch.hpp>


#include "broadphase/pair_set.hpp"
#include "core/rng.hpp"
#include "metrics/exact_voxel_contact.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "spheretree/octree_builder.hpp"
#include "support/allocation_counter.hpp"
#include "support/bodies.hpp"
#include "support/scenes.hpp"
#include "frame/animation.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

Vec3 world_centre(const Body& body, std::uint32_t node) {
  return body.state.position_m + body.state.orientation * body.collision.spheres[node].centre_m;
}

bool spheres_meet(const Body& a, std::uint32_t na, const Body& b, std::uint32_t nb) {
  const Vec3 d = world_centre(a, na) - world_centre(b, nb);
  const double reach = a.collision.spheres[na].radius_m + b.collision.spheres[nb].radius_m;
  return glm::dot(d, d) <= reach * reach * (1 + 1e-12);
}

/// Whether any leaf sphere of a meets any leaf sphere of b: every pair, no pruning.
bool any_leaf_pair_meets(const Body& a, const Body& b) {
  for (std::uint32_t i = 0; i < a.tree.size(); ++i) {
    if (!a.tree.is_leaf(i)) continue;
    for (std::uint32_t j = 0; j < b.tree.size(); ++j)
      if (b.tree.is_leaf(j) && spheres_meet(a, i, b, j)) return true;
  }
  return false;
}

/// The same alternating descent, written as plain recursion: (target on tree t, member on
/// the other) intersect -> leaf-leaf: colliding; else the cross-over or the unequal-height
/// rule of 004 sections 3.3.2 and 3.4.1.
bool recursive_descent(const Body* tree[2], int target_tree, std::uint32_t target, std::uint32_t member) {
  const Body& tb = *tree[target_tree];
  const Body& mb = *tree[1 - target_tree];
  const bool meet = target_tree == 0 ? spheres_meet(tb, target, mb, member) : spheres_meet(mb, member, tb, target);
  if (!meet) return false;
  const bool target_leaf = tb.tree.is_leaf(target);
  const bool member_leaf = mb.tree.is_leaf(member);
  if (target_leaf && member_leaf) return true;
  if (!target_leaf) {
    for (std::uint32_t k = 0; k < tb.tree.child_count[target]; ++k)
      if (recursive_descent(tree, 1 - target_tree, member, tb.tree.first_child[target] + k)) return true;
    return false;
  }
  for (std::uint32_t k = 0; k < mb.tree.child_count[member]; ++k)
    if (recursive_descent(tree, target_tree, target, mb.tree.first_child[member] + k)) return true;
  return false;
}

/// A voxel model of only the surface voxels of `model` (what trees without hidden nodes cover).
VoxelModel surface_only(const VoxelModel& model) {
  const std::vector<std::uint8_t> surface = surface_voxel_mask(model);
  VoxelModel out(model.dims(), model.voxel_size_m());
  std::size_t i = 0;
  const IVec3 d = model.dims();
  for (int z = 0; z < d.z; ++z)
    for (int y = 0; y < d.y; ++y)
      for (int x = 0; x < d.x; ++x, ++i) out.set(x, y, z, surface[i] != 0);
  return out;
}

/// Two random bodies of 3 to 10 voxels, posed at random (random_posed_duo).
std::pair<Body, Body> random_duo(Rng& rng, int levels, bool remove_hidden) {
  return random_posed_duo(rng, [&](std::uint64_t salt) {
    const Shape shape = kBodyShapes[rng.below(5)];
    const int resolution = 3 + static_cast<int>(rng.below(8));
    return make_body(shape, resolution, salt, levels, remove_hidden);
  });
}

ExactPose pose_of(const Body& b) { return {b.state.position_m, b.state.orientation}; }

/// The exact voxel test's verdict on two posed bodies: the truth the descent answers to.
ExactContact truth_of(const Body& a, const Body& b) {
  return exact_contact(ExactVoxelShape(a.model, a.centre_of_mass_m), pose_of(a), ExactVoxelShape(b.model, b.centre_of_mass_m),
                       pose_of(b));
}

}  // namespace

TEST_CASE("Descent: run to the end, it agrees with exhaustive leaf tests, a recursive descent and the voxels",
          "[narrowphase][descent][oracle]") {
  Rng rng(20261121);
  int colliding = 0, apart = 0, touching_voxels = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int levels = trial % 3 == 0 ? 2 : 5;  // trees that end above single voxels, and trees that reach them
    auto [a, b] = random_duo(rng, levels, false);
    Duo duo(a, b);
    const CollisionStatus outcome = duo.run_to_end();
    REQUIRE(outcome != CollisionStatus::needs_more_work);
    const Body* trees[2] = {&a, &b};
    const bool reference = recursive_descent(trees, 0, 0, 0);
    const bool touching = truth_of(a, b).touching;
    INFO("trial " << trial << ", levels " << levels);
    CHECK((outcome == CollisionStatus::colliding) == reference);
    if (outcome == CollisionStatus::colliding) {
      ++colliding;
      CHECK(any_leaf_pair_meets(a, b));
      const SpherePair leaf = duo.collision().leaf_pair;
      CHECK(a.tree.is_leaf(leaf.node_a));
      CHECK(b.tree.is_leaf(leaf.node_b));
      CHECK(spheres_meet(a, leaf.node_a, b, leaf.node_b));
    } else {
      ++apart;
      CHECK_FALSE(touching);  // spheres hold their voxels at every level: no voxel contact is missed
    }
    touching_voxels += touching;
  }
  // The sample has to exercise both outcomes, and contacts the spheres catch.
  CHECK(colliding > 60);
  CHECK(apart > 60);
  CHECK(touching_voxels > 30);
}

TEST_CASE("Descent: trees without hidden nodes never miss touching surfaces", "[narrowphase][descent][oracle]") {
  Rng rng(77);
  int apart = 0;
  for (int trial = 0; trial < 150; ++trial) {
    auto [a, b] = random_duo(rng, 5, true);
    Duo duo(a, b);
    if (duo.run_to_end() == CollisionStatus::colliding) continue;
    ++apart;
    // 004 drops hidden nodes, so only surface voxels are covered: a model wholly inside
    // another is missed by design (docs/narrowphase.md), but no surface contact is.
    const VoxelModel sa = surface_only(a.model), sb = surface_only(b.model);
    INFO("trial " << trial);
    CHECK_FALSE(exact_touching(ExactVoxelShape(sa, a.centre_of_mass_m), pose_of(a), ExactVoxelShape(sb, b.centre_of_mass_m),
                               pose_of(b)));
  }
  CHECK(apart > 30);
}

TEST_CASE("Descent: the hit lists alternate between the trees, and a leaf target stays (unequal heights)",
          "[narrowphase][descent]") {
  // Model 0 (tree A): a root of radius 2 with two leaf children at x = -1 and +1. Model 1
  // (tree B): one leaf.
  std::vector<Entity> entities(2);
  entities[1].model = 1;
  const PairSet pairs = one_pair();
  Budget unlimited = Budget::unlimited();

  SECTION("deep tree first: the lone root becomes the target and meets a leaf child") {
    entities[0].model = 0;
    NarrowPhase np(two_level_and_lone());
    std::vector<EntityState> states(2);
    states[1].position_m = Vec3(2.2, 0, 0);  // touches the +x child only
    np.sync(pairs, entities, 0);
    np.begin_frame(states);
    const std::uint32_t slot = np.order()[0];
    CHECK(np.step(slot, unlimited) == CollisionStatus::needs_more_work);
    // Root a met root b, and root a has children: root b is the target, a's children the tests.
    REQUIRE(np.hits(slot).size() == 1);
    const SphereHit h = np.hits(slot)[0];
    CHECK(h.target == 0);
    CHECK(h.target_tree == 1);
    CHECK(h.test_begin == 1);
    CHECK(h.test_count == 2);
    CHECK(np.step(slot, unlimited) == CollisionStatus::colliding);
    CHECK(np.collision(slot).leaf_pair.node_a == 2);
    CHECK(np.collision(slot).sphere_tests == 3);
  }
  SECTION("lone tree first: the leaf target stays and the other tree descends") {
    entities[0].model = 1;
    entities[1].model = 0;
    NarrowPhase np(two_level_and_lone());
    std::vector<EntityState> states(2);
    states[0].position_m = Vec3(2.2, 0, 0);
    np.sync(pairs, entities, 0);
    np.begin_frame(states);
    const std::uint32_t slot = np.order()[0];
    CHECK(np.step(slot, unlimited) == CollisionStatus::needs_more_work);
    REQUIRE(np.hits(slot).size() == 1);
    const SphereHit h = np.hits(slot)[0];
    CHECK(h.target == 0);
    CHECK(h.target_tree == 0);  // still the lone leaf, on a's tree
    CHECK(h.test_begin == 1);
    CHECK(h.test_count == 2);
    CHECK(np.step(slot, unlimited) == CollisionStatus::colliding);
    CHECK(np.collision(slot).leaf_pair.node_b == 2);
  }
  SECTION("no intersection anywhere resolves as not colliding after one test") {
    entities[0].model = 0;
    NarrowPhase np(two_level_and_lone());
    std::vector<EntityState> states(2);
    states[1].position_m = Vec3(0, 2.6, 0);
    np.sync(pairs, entities, 0);
    np.begin_frame(states);
    CHECK(np.step(np.order()[0], unlimited) == CollisionStatus::not_colliding);
    CHECK(np.sphere_tests() == 1);
  }
  SECTION("roots meet but no child does: not colliding at the second level") {
    entities[0].model = 0;
    NarrowPhase np(two_level_and_lone());
    std::vector<EntityState> states(2);
    states[1].position_m = Vec3(0, 2.2, 0);  // inside root a's reach, clear of both children
    np.sync(pairs, entities, 0);
    np.begin_frame(states);
    const std::uint32_t slot = np.order()[0];
    CHECK(np.step(slot, unlimited) == CollisionStatus::needs_more_work);
    CHECK(np.step(slot, unlimited) == CollisionStatus::not_colliding);
    CHECK(np.collision(slot).levels_done == 1);
  }
}

TEST_CASE("Descent: interrupted after any number of tests, it resumes to the same end, and level boundaries match single steps",
          "[narrowphase][descent][interruption]") {
  Rng rng(5);
  int checked_pairs = 0;
  for (int trial = 0; trial < 40; ++trial) {
    auto [a, b] = random_duo(rng, 5, true);
    // The reference: single unlimited steps, recording the state at each level boundary.
    Duo reference(a, b);
    std::vector<std::int64_t> tests_after_step;
    std::vector<std::vector<SphereHit>> hits_after_step;
    Budget unlimited = Budget::unlimited();
    while (reference.narrowphase.step(reference.slot(), unlimited) == CollisionStatus::needs_more_work) {
      tests_after_step.push_back(reference.collision().sphere_tests);
      hits_after_step.emplace_back(reference.narrowphase.hits(reference.slot()).begin(),
                                   reference.narrowphase.hits(reference.slot()).end());
    }
    const std::int64_t total_tests = reference.collision().sphere_tests;
    const CollisionStatus final_status = reference.collision().status;
    if (tests_after_step.size() < 2) continue;
    ++checked_pairs;

    for (std::int64_t limit = 0; limit <= total_tests; ++limit) {
      Duo run(a, b);
      Budget budget = Budget::work(limit);
      while (run.narrowphase.step(run.slot(), budget) == CollisionStatus::needs_more_work && !budget.was_exhausted()) {
      }
      INFO("trial " << trial << ", work budget " << limit);
      // A sphere hit is never split: the budget stops before one, so it is overshot by at
      // most one test list less one test.
      CHECK(budget.tests_spent() < limit + 8);
      const auto boundary = std::find(tests_after_step.begin(), tests_after_step.end(), run.collision().sphere_tests);
      if (run.collision().status == CollisionStatus::needs_more_work && run.collision().cursor == run.collision().hits_begin &&
          boundary != tests_after_step.end()) {
        const std::size_t k = static_cast<std::size_t>(boundary - tests_after_step.begin());
        CHECK(run.collision().levels_done == static_cast<int>(k) + 1);
        const auto hits = run.narrowphase.hits(run.slot());
        REQUIRE(hits.size() == hits_after_step[k].size());
        for (std::size_t i = 0; i < hits_after_step[k].size(); ++i) {
          CHECK(hits[i].target == hits_after_step[k][i].target);
          CHECK(hits[i].target_tree == hits_after_step[k][i].target_tree);
          CHECK(hits[i].test_begin == hits_after_step[k][i].test_begin);
        }
      }
      // Resumed without limit, it ends where the uninterrupted descent ended.
      CHECK(run.run_to_end() == final_status);
      CHECK(run.collision().sphere_tests == total_tests);
    }
  }
  CHECK(checked_pairs > 10);
}

TEST_CASE("Descent: outcome 4, interrupted collisions follow the interrupt policy", "[narrowphase][descent][interruption]") {
  Rng rng(9);
  for (const InterruptPolicy policy : {InterruptPolicy::repulse, InterruptPolicy::interpenetrate}) {
    auto [a, b] = random_duo(rng, 5, true);
    b.state.position_m = a.state.position_m;  // centres together: certainly not resolved in one test
    Duo duo(a, b);
    Budget one = Budget::work(1);
    duo.narrowphase.step(duo.slot(), one);
    duo.narrowphase.step(duo.slot(), one);  // spent: stops at once
    REQUIRE(duo.collision().status == CollisionStatus::needs_more_work);
    duo.narrowphase.interrupt(policy);
    CHECK(duo.collision().interrupted);
    CHECK(duo.collision().status ==
          (policy == InterruptPolicy::repulse ? CollisionStatus::colliding : CollisionStatus::not_colliding));
  }
}

TEST_CASE("Descent: the gap estimate bounds the exact separation, before and during the descent",
          "[narrowphase][descent][oracle]") {
  Rng rng(31);
  int separated = 0;
  for (int trial = 0; trial < 200; ++trial) {
    auto [a, b] = random_duo(rng, 5, true);
    const ExactContact truth = truth_of(a, b);
    Duo duo(a, b);
    Budget unlimited = Budget::unlimited();
    // At every level boundary of the descent the estimate must hold, including before any test.
    for (;;) {
      const GapEstimate g = duo.narrowphase.gap_estimate(duo.slot(), duo.states);
      INFO("trial " << trial << ", level " << duo.collision().levels_done);
      CHECK(g.bound_m >= truth.separation_m - 1e-12);
      if (duo.narrowphase.step(duo.slot(), unlimited) != CollisionStatus::needs_more_work) break;
    }
    separated += !truth.touching;
  }
  CHECK(separated > 40);
}

TEST_CASE("Descent: the gap estimate after the end, mid-level, and from a reused slot", "[narrowphase][descent][oracle]") {
  Rng rng(404);
  int apart_after_tests = 0;
  for (int trial = 0; trial < 120; ++trial) {
    auto [a, b] = random_duo(rng, 5, true);
    const ExactContact truth = truth_of(a, b);
    // Mid-level: a budget of 3 tests stops most descents inside their second level.
    Duo part(a, b);
    Budget three = Budget::work(3);
    while (part.narrowphase.step(part.slot(), three) == CollisionStatus::needs_more_work && !three.was_exhausted()) {
    }
    INFO("trial " << trial);
    CHECK(part.narrowphase.gap_estimate(part.slot(), part.states).bound_m >= truth.separation_m - 1e-12);
    // After the end: resolved apart, the last level's pairs stand in; resolved colliding,
    // the leaf pair. Either way a bound, taken from this frame's pairs.
    Duo full(a, b);
    const CollisionStatus outcome = full.run_to_end();
    const GapEstimate end = full.narrowphase.gap_estimate(full.slot(), full.states);
    CHECK(end.bound_m >= truth.separation_m - 1e-12);
    if (outcome == CollisionStatus::not_colliding && full.collision().levels_done > 0) ++apart_after_tests;
  }
  CHECK(apart_after_tests > 10);

  // A slot reused by another pair carries nothing of the old one: its estimate equals that
  // of a fresh narrow phase that never saw the old pair.
  Body small = make_body(Shape::box, 3, 2, 5, true);  // 3 x 3 x 3 voxels of 0.1 m
  Body other = make_body(Shape::box, 3, 3, 5, true);
  std::vector<Entity> entities(3);
  entities[1].model = 1;
  entities[2].model = 1;
  std::vector<EntityState> states = {small.state, small.state, small.state};
  states[1].position_m = Vec3(0.05, 0.1, 0.0);  // overlapping entity 0: colliding at a leaf pair
  states[2].position_m = Vec3(0.5, 0.0, 0.0);   // face to face with 0, 0.2 m apart: roots meet, leaves do not
  Budget unlimited = Budget::unlimited();
  NarrowPhase np({small.collision, other.collision});
  PairSet pairs;
  pairs.begin_frame(3);
  pairs.record_start({0, 1});
  pairs.finish_frame();
  np.sync(pairs, entities, 0);
  np.begin_frame(states);
  const std::uint32_t slot = np.order()[0];
  while (np.step(slot, unlimited) == CollisionStatus::needs_more_work) {
  }
  REQUIRE(np.collision(slot).status == CollisionStatus::colliding);
  pairs.begin_frame(3);
  pairs.record_stop({0, 1});
  pairs.record_start({0, 2});
  pairs.finish_frame();
  np.sync(pairs, entities, 1);
  REQUIRE(np.order()[0] == slot);  // the freed slot, reused
  np.begin_frame(states);
  while (np.step(slot, unlimited) == CollisionStatus::needs_more_work) {
  }
  REQUIRE(np.collision(slot).status == CollisionStatus::not_colliding);
  REQUIRE(np.collision(slot).levels_done >= 1);
  const GapEstimate reused = np.gap_estimate(slot, states);

  NarrowPhase fresh({small.collision, other.collision});
  PairSet only;
  only.begin_frame(3);
  only.record_start({0, 2});
  only.finish_frame();
  fresh.sync(only, entities, 1);
  fresh.begin_frame(states);
  while (fresh.step(fresh.order()[0], unlimited) == CollisionStatus::needs_more_work) {
  }
  const GapEstimate clean = fresh.gap_estimate(fresh.order()[0], states);
  CHECK(reused.bound_m == clean.bound_m);
  CHECK(reused.sphere_a_m == clean.sphere_a_m);
  CHECK(reused.sphere_b_m == clean.sphere_b_m);
  CHECK(clean.bound_m >= 0.2 - 1e-12);
  CHECK(clean.bound_m < 0.5);  // from the last level's pairs, tighter than the centres' distance
}

TEST_CASE("Descent: a collision resumed after another one ran finishes as if never interrupted",
          "[narrowphase][descent][interruption]") {
  Rng rng(8);
  int checked = 0;
  for (int trial = 0; trial < 30; ++trial) {
    auto [a, b] = random_duo(rng, 5, true);
    auto [c, d] = random_duo(rng, 5, true);
    c.state.position_m += Vec3(50.0);
    d.state.position_m += Vec3(50.0);
    // Reference: each pair alone, to the end.
    Duo ab(a, b), cd(c, d);
    const CollisionStatus ab_end = ab.run_to_end();
    const CollisionStatus cd_end = cd.run_to_end();
    const std::int64_t ab_tests = ab.collision().sphere_tests;
    if (ab.collision().levels_done < 2) continue;
    // Both pairs in one narrow phase: stop ab part-way through a level, run cd to the end
    // (its hits go to the pool after ab's), then resume ab.
    NarrowPhase np({a.collision, b.collision, c.collision, d.collision});
    std::vector<Entity> entities(4);
    for (EntityId i = 0; i < 4; ++i) entities[i].model = i;
    const std::vector<EntityState> states = {a.state, b.state, c.state, d.state};
    PairSet pairs;
    pairs.begin_frame(4);
    pairs.record_start({0, 1});
    pairs.record_start({2, 3});
    pairs.finish_frame();
    np.sync(pairs, entities, 0);
    np.begin_frame(states);
    const std::uint32_t first = np.order()[0], second = np.order()[1];
    Budget some = Budget::work(ab_tests / 2);
    while (np.step(first, some) == CollisionStatus::needs_more_work && !some.was_exhausted()) {
    }
    if (np.collision(first).status != CollisionStatus::needs_more_work || np.next_hits(first).empty()) continue;
    ++checked;
    Budget unlimited = Budget::unlimited();
    while (np.step(second, unlimited) == CollisionStatus::needs_more_work) {
    }
    while (np.step(first, unlimited) == CollisionStatus::needs_more_work) {
    }
    INFO("trial " << trial);
    CHECK(np.collision(first).status == ab_end);
    CHECK(np.collision(first).sphere_tests == ab_tests);
    CHECK(np.collision(second).status == cd_end);
  }
  CHECK(checked > 5);
}

TEST_CASE("Descent: the gap bound holds where sphere centres lie in empty space", "[narrowphase][descent][oracle]") {
  // A flat ring of voxels (8 x 8, the middle 4 x 4 empty) around one free voxel: the ring's
  // centre of mass and root sphere centre lie in its hole, where the free voxel sits, 1.5
  // voxels from the ring. Centre distances alone (004's estimate) would say 0.
  VoxelModel ring_model({8, 8, 1}, 0.1);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) ring_model.set(x, y, 0, x < 2 || x > 5 || y < 2 || y > 5);
  VoxelModel dot_model({1, 1, 1}, 0.1);
  dot_model.set(0, 0, 0, true);
  Body ring = body_of(std::move(ring_model), {4, true});
  Body dot = body_of(std::move(dot_model), {4, true});
  dot.state.position_m = ring.state.position_m;  // the dot in the middle of the hole
  const ExactContact truth = truth_of(ring, dot);
  REQUIRE_FALSE(truth.touching);
  CHECK(truth.separation_m == Approx(0.15).epsilon(1e-12));
  Duo duo(ring, dot);
  Budget unlimited = Budget::unlimited();
  int levels = 0;
  for (;;) {
    const GapEstimate g = duo.narrowphase.gap_estimate(duo.slot(), duo.states);
    INFO("level " << levels);
    CHECK(g.bound_m >= truth.separation_m - 1e-12);
    if (duo.narrowphase.step(duo.slot(), unlimited) != CollisionStatus::needs_more_work) break;
    ++levels;
  }
  CHECK(levels >= 1);  // the bound was checked inside the descent, not only before it
  CHECK(duo.collision().status == CollisionStatus::not_colliding);
}

TEST_CASE("Descent: a still world's frames allocate nothing once warm", "[narrowphase][descent][allocation]") {
  for (const SchedulerKind kind : {SchedulerKind::round_robin, SchedulerKind::sequential,
                                   SchedulerKind::sorted_sequential, SchedulerKind::priority_queues}) {
    AnimationSettings settings = still_packed_rocks();
    settings.schedule.kind = kind;
    settings.budget.tests = 3000;  // some frames interrupted, some levels deep
    const std::unique_ptr<Animation> world = world_after(settings, 3, 3);
    const long before = test::allocations();
    FrameStats stats;
    for (int i = 0; i < 20; ++i) stats = world->step();
    const long allocations = test::allocations() - before;  // read before INFO allocates
    INFO("scheduler " << scheduler_name(kind));
    CHECK(allocations == 0);
    CHECK(stats.collisions > 100);
  }
}
