// Prune to the overlap region (narrowphase.prune_to_overlap; 003, docs/narrowphase.md) against
// the descent without it: run to the end, the same status, the same leaf pair and the same
// contact pairs, never more sphere tests, on octree, fitted, medial and on-demand trees of
// random models at random poses; deterministic and resumable under a work budget; and in a
// world, the same frames and no allocation.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "core/rng.hpp"
#include "frame/animation.hpp"
#include "metrics/exact_voxel_contact.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "spheretree/tree_builder.hpp"
#include "support/allocation_counter.hpp"
#include "support/bodies.hpp"
#include "support/scenes.hpp"
#include "support/tree_coverage.hpp"
#include "world/mass_properties.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

NarrowPhaseSettings pruning(bool on) {
  NarrowPhaseSettings s;
  s.prune_to_overlap = on;
  return s;
}

/// `model` as a body whose tree build_sphere_tree() makes with `options` (any builder; the
/// Body's octree options stay the defaults and matter only to on-demand trees).
Body body_with_tree(VoxelModel model, const SphereTreeBuildOptions& options) {
  Body b;
  b.model = std::move(model);
  b.options = octree_build_options(options);
  b.tree = build_sphere_tree(b.model, options).tree;
  const MassProperties props = compute_mass_properties(b.model, 1000);
  b.centre_of_mass_m = props.centre_of_mass_m;
  b.collision = make_collision_model(b.tree, b.model, props.centre_of_mass_m, props.bounding_radius_m);
  return b;
}

/// The kinds of tree the oracle draws from.
enum class TreeKind { octree, fitted, medial, blob_octree, blob_medial, on_demand, count };

const char* kind_name(TreeKind k) {
  switch (k) {
    case TreeKind::octree: return "octree";
    case TreeKind::fitted: return "fitted octree";
    case TreeKind::medial: return "medial";
    case TreeKind::blob_octree: return "octree of a blob";
    case TreeKind::blob_medial: return "medial of a blob";
    case TreeKind::on_demand: return "on-demand octree";
    case TreeKind::count: break;
  }
  return "?";
}

/// A random body of `kind`: generated shapes of 3 to 10 voxels of 0.1 m, or random blobs of 1
/// to 9 voxels of 0.05 m a side, trees of 1 to 5 levels, hidden nodes removed or kept.
Body random_body(Rng& rng, TreeKind kind, std::uint64_t salt) {
  const int levels = 1 + static_cast<int>(rng.below(5));
  const bool remove_hidden = rng.below(2) == 0;
  const bool blob = kind == TreeKind::blob_octree || kind == TreeKind::blob_medial;
  VoxelModel model = blob ? random_voxel_blob(rng, 9)
                          : make_body(kBodyShapes[rng.below(5)], 3 + static_cast<int>(rng.below(8)), salt, 1, true).model;
  SphereTreeBuildOptions options;
  options.levels = levels;
  options.remove_hidden = remove_hidden;
  if (kind == TreeKind::fitted) options.fit = SphereFit::voxels;
  if (kind == TreeKind::medial || kind == TreeKind::blob_medial) {
    options.builder = SphereTreeBuilder::medial;
    options.branching = 2 + static_cast<int>(rng.below(7));
  }
  return body_with_tree(std::move(model), options);
}

/// A node's path from the root, as the rank of each step among its siblings: the same node of
/// the same tree whether it is whole or grown on demand in any order (TreeGrower).
std::vector<std::uint32_t> path_of(const CollisionModel& m, std::uint32_t node) {
  std::vector<std::uint32_t> path;
  while (node != 0) {
    const std::uint32_t parent = m.parent[node];
    path.push_back(node - m.first_child[parent]);
    node = parent;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

/// A leaf pair as two paths, comparable across whole and on-demand trees.
using PathPair = std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>>;

PathPair paths_of(const Duo& duo, const SpherePair& p) {
  return {path_of(duo.narrowphase.model(0), p.node_a), path_of(duo.narrowphase.model(1), p.node_b)};
}

/// Every intersecting leaf pair the descent finds, in the order contact_pairs() gives them.
std::vector<PathPair> contact_paths(Duo& duo) {
  std::vector<SphereHit> stack;
  std::vector<SpherePair> pairs;
  duo.narrowphase.contact_pairs(duo.slot(), std::numeric_limits<std::size_t>::max(), stack, pairs);
  std::vector<PathPair> out;
  for (const SpherePair& p : pairs) out.push_back(paths_of(duo, p));
  return out;
}

/// Restarts a duo's frame with pruning on or off.
void restart(Duo& duo, bool prune) {
  duo.narrowphase.set_settings(pruning(prune));
  duo.narrowphase.begin_frame(duo.states);
}

ExactPose pose_of(const Body& b) { return {b.state.position_m, b.state.orientation}; }

}  // namespace

TEST_CASE("Prune to overlap: run to the end, the same status, leaf pair and contact pairs, never more tests",
          "[narrowphase][prune][oracle]") {
  Rng rng(20261203);
  const int kinds = static_cast<int>(TreeKind::count);
  std::array<int, 6> colliding{}, apart{}, fewer{}, empty_region{};
  std::int64_t tests_off = 0, tests_on = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const auto kind = static_cast<TreeKind>(trial % kinds);
    const auto k = static_cast<std::size_t>(kind);
    const TreeKind body_kind = kind == TreeKind::on_demand ? (rng.below(2) == 0 ? TreeKind::octree : TreeKind::fitted) : kind;
    auto [a, b] = random_posed_duo(rng, [&](std::uint64_t salt) { return random_body(rng, body_kind, salt); });
    // random_posed_duo sets centres 0.3 to 1.05 bounding radii apart; every third pair is
    // moved out to 1.6 times that, where the overlap region is often small or empty.
    if (trial % 3 == 2) b.state.position_m = a.state.position_m + (b.state.position_m - a.state.position_m) * rng.uniform(1.0, 1.6);
    // On-demand trials: a's tree, b's, or both grow as the descent needs them.
    std::array<bool, 2> on_demand = {false, false};
    if (kind == TreeKind::on_demand) {
      const std::uint64_t which = 1 + rng.below(3);
      on_demand = {(which & 1) != 0, (which & 2) != 0};
    }
    INFO("trial " << trial << ", " << kind_name(kind) << ", on demand " << on_demand[0] << on_demand[1]);

    // The reference: whole trees, no pruning.
    Duo off(a, b);
    const CollisionStatus off_status = off.run_to_end();
    const std::int64_t off_tests = off.collision().sphere_tests;
    Duo on(a, b, on_demand);
    restart(on, true);
    const CollisionStatus on_status = on.run_to_end();
    const std::int64_t on_tests = on.collision().sphere_tests;
    REQUIRE(off_status != CollisionStatus::needs_more_work);
    CHECK(on_status == off_status);
    CHECK(on_tests <= off_tests);
    CHECK(on.narrowphase.sphere_tests() == on_tests);
    // A pruned member costs a sphere-box check: at least one per test, one per target more.
    CHECK(on.narrowphase.overlap_checks() >= on_tests);
    CHECK(off.narrowphase.overlap_checks() == 0);
    tests_off += off_tests;
    tests_on += on_tests;
    fewer[k] += on_tests < off_tests;
    const OverlapRegion& region = on.collision().overlap;
    empty_region[k] += region.lo_m.x > region.hi_m.x;
    if (off_status == CollisionStatus::colliding) {
      ++colliding[k];
      CHECK(paths_of(on, on.collision().leaf_pair) == paths_of(off, off.collision().leaf_pair));
      // Finishing the descent for the response finds the same leaf pairs in the same order.
      CHECK(contact_paths(on) == contact_paths(off));
    } else {
      ++apart[k];
      // The gap bound, from the pruned descent's last level, still bounds the separation.
      if (!on_demand[0] && !on_demand[1] && on.collision().levels_done > 0) {
        const ExactContact truth = exact_contact(ExactVoxelShape(a.model, a.centre_of_mass_m), pose_of(a),
                                                 ExactVoxelShape(b.model, b.centre_of_mass_m), pose_of(b));
        CHECK(on.narrowphase.gap_estimate(on.slot(), on.states).bound_m >= truth.separation_m - 1e-12);
      }
    }
  }
  // The sample must exercise both outcomes on every kind of tree, and pruning must have
  // removed tests on every kind (else the checks above would pass without it).
  for (int k = 0; k < kinds; ++k) {
    INFO(kind_name(static_cast<TreeKind>(k)) << ": colliding " << colliding[static_cast<std::size_t>(k)] << ", apart "
                                             << apart[static_cast<std::size_t>(k)] << ", fewer tests "
                                             << fewer[static_cast<std::size_t>(k)] << ", empty region "
                                             << empty_region[static_cast<std::size_t>(k)]);
    CHECK(colliding[static_cast<std::size_t>(k)] > 15);
    CHECK(apart[static_cast<std::size_t>(k)] > 15);
    CHECK(fewer[static_cast<std::size_t>(k)] > 15);
  }
  CHECK(std::accumulate(empty_region.begin(), empty_region.end(), 0) > 5);
  // Most of these pairs overlap deeply, where the region is large: pruning saves a few per
  // cent of their tests (and more in grazing contacts, the packed scenes' kind).
  INFO("sphere tests: " << tests_on << " pruned, " << tests_off << " not");
  CHECK(tests_on < tests_off);
}

TEST_CASE("Prune to overlap: hand-made trees, a pruned child and an empty region", "[narrowphase][prune]") {
  // Tree A (model 0): a root of radius 2 with two leaf children at x = -1 and +1, radius 1;
  // its leaf reach is 2. Tree B (model 1): one leaf of radius 0.5.
  std::vector<Entity> entities(2);
  entities[0].model = 0;
  entities[1].model = 1;
  const PairSet pairs = one_pair();

  const auto run = [&](const Vec3& b_position, bool prune) {
    NarrowPhase np(two_level_and_lone());
    np.set_settings(pruning(prune));
    std::vector<EntityState> states(2);
    states[1].position_m = b_position;
    np.sync(pairs, entities, 0);
    np.begin_frame(states);
    Budget unlimited = Budget::unlimited();
    while (np.step(np.order()[0], unlimited) == CollisionStatus::needs_more_work) {
    }
    return np.collision(np.order()[0]);
  };

  SECTION("the child on the far side cannot reach the overlap and is not tested") {
    // B at x = 2.2: the overlap region is x in [1.7, 2], |y|, |z| <= 0.5. The -x child's reach
    // ball (x in [-2, 0]) misses it; the +x child meets B.
    const Collision off = run(Vec3(2.2, 0, 0), false);
    const Collision on = run(Vec3(2.2, 0, 0), true);
    REQUIRE(off.status == CollisionStatus::colliding);
    CHECK(off.sphere_tests == 3);  // roots, then B against both children
    CHECK(on.status == CollisionStatus::colliding);
    CHECK(on.leaf_pair.node_a == 2);
    CHECK(on.leaf_pair.node_a == off.leaf_pair.node_a);
    CHECK(on.sphere_tests == 2);  // roots, then B against the +x child only
    CHECK(on.overlap.lo_m.x == Approx(1.7));
    CHECK(on.overlap.hi_m.x == Approx(2.0));
  }
  SECTION("boxes apart: an empty region, not colliding after no test") {
    // B at y = 2.6: A's box ends at y = 2, B's begins at 2.1.
    const Collision off = run(Vec3(0, 2.6, 0), false);
    const Collision on = run(Vec3(0, 2.6, 0), true);
    CHECK(off.status == CollisionStatus::not_colliding);
    CHECK(off.sphere_tests == 1);
    CHECK(on.status == CollisionStatus::not_colliding);
    CHECK(on.sphere_tests == 0);
    CHECK_FALSE(on.tested_any);
    CHECK(on.overlap.lo_m.x > on.overlap.hi_m.x);
  }
  SECTION("touching counts: spheres that only touch are never pruned") {
    // B touches the +x child at x = 2.5 (1 + 1 + 0.5): the region is the plane x = 2, to rounding.
    const Collision off = run(Vec3(2.5, 0, 0), false);
    const Collision on = run(Vec3(2.5, 0, 0), true);
    REQUIRE(off.status == CollisionStatus::colliding);
    CHECK(on.status == CollisionStatus::colliding);
    CHECK(on.leaf_pair.node_a == 2);
  }
}

TEST_CASE("Prune to overlap: leaves touching at the edge of the region are never pruned", "[narrowphase][prune][oracle]") {
  // Random poses seldom put a contact on the region's boundary: a box around a reach ball is
  // wider than the leaves, except along a direction in which a leaf realises the reach. Rows
  // of voxels along an axis of a's frame realise it along the row, so two rows end to end,
  // their end leaves touching (or just overlapping, or just apart), put the contact on the
  // region's face, where a bound a little too small would prune the very pair that touches
  // (a reach 3% short passes the random oracle above, and fails here).
  Rng rng(1212);
  int colliding = 0, apart = 0, fewer = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int axis = trial % 3;
    const auto row = [&](std::uint64_t) {
      IVec3 dims(1);
      dims[axis] = 1 + static_cast<int>(rng.below(12));
      VoxelModel m(dims, 0.1);
      for (int i = 0; i < dims[axis]; ++i) {
        IVec3 v(0);
        v[axis] = i;
        m.set(v.x, v.y, v.z, true);
      }
      Body body = body_of(std::move(m), {1 + static_cast<int>(rng.below(4)), rng.below(2) == 0});
      // Each inner sphere grown to its leaf reach (as inflated trees are, docs/spheretree.md):
      // then every sphere holds its leaves, and the descent finds every pair of leaf spheres
      // that touch, here the two rows' tips.
      for (std::uint32_t n = 0; n < body.tree.size(); ++n)
        if (!body.tree.is_leaf(n)) body.collision.spheres[n].radius_m = body.collision.leaf_reach_m[n];
      return body;
    };
    Body a = row(0), b = row(0);
    Vec3 along(0.0);
    along[axis] = 1;
    // Turned about the row's own axis, the rows stay on it; b may also face the other way.
    a.state.orientation = glm::angleAxis(rng.uniform(0, 6.3), along);
    b.state.orientation = glm::angleAxis(rng.uniform(0, 6.3), along);
    if (rng.below(2) == 0) b.state.orientation = glm::angleAxis(3.14159265358979, Vec3(along.y, along.z, along.x)) * b.state.orientation;
    // a's leaves reach to a_max along the axis; b's begin at b_min from its centre.
    double a_max = -1e9, b_min = 1e9;
    for (std::uint32_t n = 0; n < a.tree.size(); ++n)
      if (a.tree.is_leaf(n))
        a_max = std::max(a_max, glm::dot(a.state.orientation * a.collision.spheres[n].centre_m, along) + a.collision.spheres[n].radius_m);
    for (std::uint32_t n = 0; n < b.tree.size(); ++n)
      if (b.tree.is_leaf(n))
        b_min = std::min(b_min, glm::dot(b.state.orientation * b.collision.spheres[n].centre_m, along) - b.collision.spheres[n].radius_m);
    constexpr double kOverlap[] = {0, 1e-13, 1e-9, 1e-6, -1e-9, -1e-6};
    const double overlap_m = kOverlap[rng.below(6)];
    b.state.position_m = a.state.position_m + along * (a_max - b_min - overlap_m);
    INFO("trial " << trial << ", axis " << axis << ", overlap " << overlap_m);
    Duo off(a, b);
    const CollisionStatus off_status = off.run_to_end();
    Duo on(a, b);
    restart(on, true);
    CHECK(on.run_to_end() == off_status);
    CHECK(on.collision().sphere_tests <= off.collision().sphere_tests);
    fewer += on.collision().sphere_tests < off.collision().sphere_tests;
    if (off_status == CollisionStatus::colliding) {
      ++colliding;
      CHECK(on.collision().leaf_pair.node_a == off.collision().leaf_pair.node_a);
      CHECK(on.collision().leaf_pair.node_b == off.collision().leaf_pair.node_b);
      CHECK(contact_paths(on) == contact_paths(off));
    } else {
      ++apart;
    }
  }
  CHECK(colliding > 100);
  CHECK(apart > 50);
  CHECK(fewer > 50);
}

TEST_CASE("Prune to overlap: under a work budget, deterministic, and resumed to the same end",
          "[narrowphase][prune][interruption]") {
  Rng rng(606);
  int checked = 0, pruned_some = 0;
  for (int trial = 0; trial < 30; ++trial) {
    auto [a, b] = random_posed_duo(rng, [&](std::uint64_t salt) {
      return make_body(kBodyShapes[rng.below(5)], 3 + static_cast<int>(rng.below(8)), salt, 5, true);
    });
    Duo reference(a, b);
    restart(reference, true);
    const CollisionStatus final_status = reference.run_to_end();
    const std::int64_t total_tests = reference.collision().sphere_tests;
    const SpherePair final_pair = reference.collision().leaf_pair;
    Duo unpruned(a, b);
    unpruned.run_to_end();
    pruned_some += total_tests < unpruned.collision().sphere_tests;
    if (reference.collision().levels_done < 2) continue;
    ++checked;
    for (std::int64_t limit = 0; limit <= total_tests; ++limit) {
      INFO("trial " << trial << ", work budget " << limit);
      // Two runs under the same budget stop in the same state.
      std::array<Duo, 2> runs = {Duo(a, b), Duo(a, b)};
      std::array<std::vector<SphereHit>, 2> hits;
      for (std::size_t r = 0; r < 2; ++r) {
        restart(runs[r], true);
        Budget budget = Budget::work(limit);
        runs[r].run(budget);
        CHECK(budget.tests_spent() < limit + 8);  // a test list is never split
        const auto h = runs[r].narrowphase.hits(runs[r].slot());
        hits[r].assign(h.begin(), h.end());
      }
      CHECK(runs[0].collision().status == runs[1].collision().status);
      CHECK(runs[0].collision().sphere_tests == runs[1].collision().sphere_tests);
      CHECK(runs[0].collision().cursor == runs[1].collision().cursor);
      REQUIRE(hits[0].size() == hits[1].size());
      for (std::size_t i = 0; i < hits[0].size(); ++i) {
        CHECK(hits[0][i].target == hits[1][i].target);
        CHECK(hits[0][i].test_begin == hits[1][i].test_begin);
        CHECK(hits[0][i].target_tree == hits[1][i].target_tree);
      }
      // Resumed without limit, it ends where the uninterrupted pruned descent ended.
      CHECK(runs[0].run_to_end() == final_status);
      CHECK(runs[0].collision().sphere_tests == total_tests);
      if (final_status == CollisionStatus::colliding) {
        CHECK(runs[0].collision().leaf_pair.node_a == final_pair.node_a);
        CHECK(runs[0].collision().leaf_pair.node_b == final_pair.node_b);
      }
    }
  }
  CHECK(checked > 10);
  CHECK(pruned_some > 5);
}

namespace {

AnimationSettings packed_rocks(int count) { return world_of(Vec3(4.0), {rock_group({.count = count, .variants = 3})}); }

}  // namespace

TEST_CASE("Prune to overlap: with no budget limit a world runs the same frames, for fewer tests",
          "[narrowphase][prune][frame]") {
  // Every collision resolved the same way with the same leaf pair and contact pairs: the
  // response, and so the motion, is the same to the bit.
  AnimationSettings settings = packed_rocks(120);
  settings.budget.mode = BudgetMode::unlimited;
  settings.ground_truth = false;
  AnimationSettings pruned_settings = settings;
  pruned_settings.narrowphase.prune_to_overlap = true;
  Animation plain(settings, 11), pruned(pruned_settings, 11);
  std::int64_t tests_plain = 0, tests_pruned = 0, collisions = 0;
  for (int frame = 0; frame < 40; ++frame) {
    const FrameStats s = plain.step();
    const FrameStats p = pruned.step();
    INFO("frame " << frame);
    REQUIRE(s.collisions == p.collisions);
    CHECK(p.sphere_tests <= s.sphere_tests);
    tests_plain += s.sphere_tests;
    tests_pruned += p.sphere_tests;
    collisions += s.collisions;
    const NarrowPhase& np = plain.narrowphase();
    const NarrowPhase& pp = pruned.narrowphase();
    REQUIRE(np.size() == pp.size());
    for (std::size_t i = 0; i < np.size(); ++i) {
      const Collision& c = np.collision(np.order()[i]);
      const Collision& d = pp.collision(pp.order()[i]);
      CHECK(c.status == d.status);
      CHECK(c.leaf_pair.node_a == d.leaf_pair.node_a);
      CHECK(c.leaf_pair.node_b == d.leaf_pair.node_b);
    }
    const auto a = plain.states();
    const auto b = pruned.states();
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      REQUIRE(a[i].position_m == b[i].position_m);
      REQUIRE(a[i].orientation == b[i].orientation);
    }
  }
  CHECK(collisions > 400);
  INFO("sphere tests: " << tests_pruned << " pruned, " << tests_plain << " not");
  CHECK(tests_pruned < tests_plain);
}

TEST_CASE("Prune to overlap: a still world's frames allocate nothing once warm", "[narrowphase][prune][allocation]") {
  for (const SchedulerKind kind : {SchedulerKind::round_robin, SchedulerKind::sequential,
                                   SchedulerKind::sorted_sequential, SchedulerKind::priority_queues}) {
    AnimationSettings settings = packed_rocks(120);
    settings.world.entities[0].speed_mps = 0;
    settings.world.entities[0].spin_radps = 0;
    settings.schedule.kind = kind;
    settings.budget.tests = 3000;  // some frames interrupted, some levels deep
    settings.narrowphase.prune_to_overlap = true;
    Animation world(settings, 3);
    for (int i = 0; i < 3; ++i) world.step();
    const long before = test::allocations();
    FrameStats stats;
    for (int i = 0; i < 20; ++i) stats = world.step();
    const long allocations = test::allocations() - before;  // read before INFO allocates
    INFO("scheduler " << scheduler_name(kind));
    CHECK(allocations == 0);
    CHECK(stats.collisions > 100);
    CHECK(world.narrowphase().overlap_checks() > 0);  // pruning ran
  }
}
