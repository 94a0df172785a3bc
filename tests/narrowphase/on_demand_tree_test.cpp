// On-demand sphere trees (narrowphase/on_demand_tree.hpp, after 001) against the whole trees
// the octree builder makes: grown everywhere they are the same tree; the descent, the contact
// pairs and the wall contacts give the same answers on both; eviction frees and regrowth
// restores.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <memory>

#include "broadphase/pair_set.hpp"
#include "core/rng.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "narrowphase/capsule_query.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "response/plane_contact.hpp"
#include "spheretree/octree_builder.hpp"
#include "world/mass_properties.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

constexpr Shape kShapes[] = {Shape::rock, Shape::l_shape, Shape::humanoid, Shape::ball, Shape::box};

/// A model with its whole tree and an on-demand one holding only the root.
struct Body {
  VoxelModel model;
  OctreeBuildOptions options;
  CollisionModel whole;
  CollisionModel grown;
  std::unique_ptr<TreeGrower> grower;
  EntityState state;
};

Body make_body(Shape shape, int resolution, std::uint64_t seed, int levels, bool remove_hidden) {
  Body b;
  ModelSettings ms;
  ms.shape = shape;
  ms.resolution_voxels = resolution;
  ms.size_m = 0.1 * resolution;
  b.model = make_model(ms, seed);
  b.options = {levels, remove_hidden};
  const MassProperties props = compute_mass_properties(b.model, 1000);
  b.whole = make_collision_model(build_octree_sphere_tree(b.model, b.options), b.model, props.centre_of_mass_m,
                                 props.bounding_radius_m);
  b.grower = std::make_unique<TreeGrower>(b.model, b.options, props.centre_of_mass_m, props.bounding_radius_m, b.grown);
  return b;
}

/// Grows every node of an on-demand tree.
void grow_everything(CollisionModel& m, TreeGrower& grower) {
  std::vector<std::uint32_t> stack{0};
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    if (m.child_count[n] == kChildrenNotBuilt) grower.grow(m, n);
    for (std::uint32_t k = 0; k < m.child_count[n]; ++k) stack.push_back(m.first_child[n] + k);
  }
}

/// The farthest any leaf sphere below `node` reaches from its centre: every leaf, no bound.
double exact_leaf_reach_m(const CollisionModel& m, std::uint32_t node) {
  double reach_m = 0;
  std::vector<std::uint32_t> stack{node};
  while (!stack.empty()) {
    const std::uint32_t n = stack.back();
    stack.pop_back();
    if (m.is_leaf(n)) {
      reach_m = std::max(reach_m, glm::length(m.spheres[n].centre_m - m.spheres[node].centre_m) + m.spheres[n].radius_m);
      continue;
    }
    for (std::uint32_t k = 0; k < m.child_count[n]; ++k) stack.push_back(m.first_child[n] + k);
  }
  return reach_m;
}

/// Walks both trees together and requires the same nodes: spheres, slack, children.
void require_same_tree(const CollisionModel& whole, const CollisionModel& grown) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{0, 0}};
  std::size_t visited = 0;
  while (!stack.empty()) {
    const auto [w, g] = stack.back();
    stack.pop_back();
    ++visited;
    REQUIRE(whole.spheres[w].centre_m == grown.spheres[g].centre_m);
    REQUIRE(whole.spheres[w].radius_m == grown.spheres[g].radius_m);
    REQUIRE(whole.gap_slack_m[w] == grown.gap_slack_m[g]);
    REQUIRE(whole.child_count[w] == grown.child_count[g]);
    // The grown tree's reach is a bound that may be looser than the whole tree's (or
    // tighter: that one sums distances level by level), never below the farthest leaf.
    REQUIRE(grown.leaf_reach_m[g] >= exact_leaf_reach_m(whole, w) * (1 - 1e-12));
    if (whole.is_leaf(w)) REQUIRE(grown.leaf_reach_m[g] == whole.leaf_reach_m[w]);
    for (std::uint32_t k = 0; k < whole.child_count[w]; ++k) {
      REQUIRE(grown.parent[grown.first_child[g] + k] == g);
      stack.push_back({whole.first_child[w] + k, grown.first_child[g] + k});
    }
  }
  REQUIRE(visited == whole.spheres.size());
}

/// The collision between two bodies in a narrow phase of their whole trees or of their
/// on-demand trees (the narrow phase then owns copies of the growers' state: fresh roots).
struct Duo {
  NarrowPhase narrowphase;
  std::vector<Entity> entities{2};
  std::vector<EntityState> states;
  PairSet pairs;

  /// `on_demand` per tree: a's, b's.
  Duo(const Body& a, const Body& b, std::array<bool, 2> on_demand) {
    for (const Body* body : {&a, &b}) {
      const ModelId id = body == &a ? 0 : 1;
      if (!on_demand[id]) {
        narrowphase.set_model(id, body->whole, nullptr);
        continue;
      }
      const MassProperties props = compute_mass_properties(body->model, 1000);
      CollisionModel root;
      auto grower =
          std::make_unique<TreeGrower>(body->model, body->options, props.centre_of_mass_m, props.bounding_radius_m, root);
      narrowphase.set_model(id, std::move(root), std::move(grower));
    }
    entities[0].model = 0;
    entities[1].model = 1;
    states = {a.state, b.state};
    pairs.begin_frame(2);
    pairs.record_start({0, 1});
    pairs.finish_frame();
    narrowphase.sync(pairs, entities, 0);
    narrowphase.begin_frame(states);
  }
  std::uint32_t slot() const { return narrowphase.order()[0]; }
  const Collision& collision() const { return narrowphase.collision(slot()); }
  CollisionStatus run(Budget& budget) {
    while (narrowphase.step(slot(), budget) == CollisionStatus::needs_more_work)
      if (budget.exhausted()) break;
    return collision().status;
  }
  Vec3 centre(int tree, std::uint32_t node) const {
    const CollisionModel& m = narrowphase.model(static_cast<ModelId>(tree));
    return states[static_cast<std::size_t>(tree)].position_m + states[static_cast<std::size_t>(tree)].orientation * m.spheres[node].centre_m;
  }
};

std::pair<Body, Body> random_duo(Rng& rng, int levels) {
  const auto pick = [&](std::uint64_t salt) {
    return make_body(kShapes[rng.below(5)], 4 + static_cast<int>(rng.below(12)), salt, levels, rng.below(2) == 0);
  };
  Body a = pick(rng.next_u64());
  Body b = pick(rng.next_u64());
  a.state.orientation = rng.rotation();
  b.state.orientation = rng.rotation();
  a.state.position_m = Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
  const double reach = a.whole.bounding_radius_m + b.whole.bounding_radius_m;
  b.state.position_m = a.state.position_m + rng.unit_vector() * (reach * rng.uniform(0.3, 1.05));
  return {std::move(a), std::move(b)};
}

}  // namespace

TEST_CASE("On-demand tree: grown everywhere, it is the octree builder's tree", "[narrowphase][on_demand][oracle]") {
  Rng rng(91);
  for (int trial = 0; trial < 60; ++trial) {
    const Shape shape = kShapes[trial % 5];
    const int levels = 1 + trial % 7;
    const bool remove_hidden = trial % 2 == 0;
    Body b = make_body(shape, 3 + static_cast<int>(rng.below(20)), rng.next_u64(), levels, remove_hidden);
    INFO("trial " << trial << " levels " << levels);
    REQUIRE(b.grower->live_nodes() == 1);
    REQUIRE(b.grown.spheres.size() == 1);
    grow_everything(b.grown, *b.grower);
    REQUIRE(b.grower->live_nodes() == static_cast<std::int64_t>(b.whole.spheres.size()));
    REQUIRE(b.grower->stats().nodes_built + 1 == b.grower->live_nodes());
    require_same_tree(b.whole, b.grown);
  }
}

TEST_CASE("On-demand tree: the descent and contact pairs are those of the whole tree, growing only what they visit",
          "[narrowphase][on_demand][oracle]") {
  Rng rng(20261121);
  std::int64_t grown_nodes = 0, whole_nodes = 0;
  int colliding = 0, apart = 0;
  for (int trial = 0; trial < 250; ++trial) {
    auto [a, b] = random_duo(rng, trial % 3 == 0 ? 3 : 6);
    Duo whole(a, b, {false, false});
    // Both trees on demand, or one of each (the rockfall's rock against its whole ravine).
    const std::array<bool, 2> which = trial % 3 == 1 ? std::array<bool, 2>{true, false}
                                      : trial % 3 == 2 ? std::array<bool, 2>{false, true}
                                                       : std::array<bool, 2>{true, true};
    Duo lazy(a, b, which);
    // Interrupted part-way as often as not, at the same test count in both.
    const std::int64_t limit = trial % 2 == 0 ? 1'000'000'000 : static_cast<std::int64_t>(rng.below(60));
    Budget budget_whole = Budget::work(limit);
    Budget budget_lazy = Budget::work(limit);
    const CollisionStatus s_whole = whole.run(budget_whole);
    const CollisionStatus s_lazy = lazy.run(budget_lazy);
    INFO("trial " << trial);
    REQUIRE(s_whole == s_lazy);
    REQUIRE(whole.collision().sphere_tests == lazy.collision().sphere_tests);
    REQUIRE(whole.collision().levels_done == lazy.collision().levels_done);
    REQUIRE(whole.narrowphase.hits(whole.slot()).size() == lazy.narrowphase.hits(lazy.slot()).size());
    REQUIRE(whole.narrowphase.next_hits(whole.slot()).size() == lazy.narrowphase.next_hits(lazy.slot()).size());
    if (s_whole == CollisionStatus::colliding) {
      ++colliding;
      const SpherePair pw = whole.collision().leaf_pair, pl = lazy.collision().leaf_pair;
      REQUIRE(whole.centre(0, pw.node_a) == lazy.centre(0, pl.node_a));
      REQUIRE(whole.centre(1, pw.node_b) == lazy.centre(1, pl.node_b));
      // The contact area: every intersecting leaf pair, the same spheres in the same order.
      std::vector<SphereHit> stack;
      std::vector<SpherePair> out_whole, out_lazy;
      const std::int64_t tests_whole = whole.narrowphase.contact_pairs(whole.slot(), 64, stack, out_whole);
      const std::int64_t tests_lazy = lazy.narrowphase.contact_pairs(lazy.slot(), 64, stack, out_lazy);
      REQUIRE(tests_whole == tests_lazy);
      REQUIRE(out_whole.size() == out_lazy.size());
      for (std::size_t i = 0; i < out_whole.size(); ++i) {
        REQUIRE(whole.centre(0, out_whole[i].node_a) == lazy.centre(0, out_lazy[i].node_a));
        REQUIRE(whole.centre(1, out_whole[i].node_b) == lazy.centre(1, out_lazy[i].node_b));
      }
    } else if (s_whole == CollisionStatus::not_colliding) {
      ++apart;
    }
    grown_nodes += lazy.narrowphase.grown_nodes();
    for (int t = 0; t < 2; ++t)
      if (which[static_cast<std::size_t>(t)]) whole_nodes += static_cast<std::int64_t>((t == 0 ? a : b).whole.spheres.size());
  }
  CHECK(colliding > 30);
  CHECK(apart > 30);
  // Built as needed: well under the whole trees (17 % of their nodes on this sample).
  CHECK(grown_nodes < whole_nodes / 2);
}

TEST_CASE("On-demand tree: idle branches are evicted, and growing them again restores the same tree in the freed space",
          "[narrowphase][on_demand][eviction]") {
  Rng rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    Body b = make_body(Shape::rock, 16, rng.next_u64(), 4, true);
    b.grower->set_frame(0);
    grow_everything(b.grown, *b.grower);
    const std::size_t full_size = b.grown.spheres.size();
    // Used at frame 10: nothing is evicted after 5 idle frames at frame 12.
    b.grower->set_frame(10);
    b.grower->touch(0);
    b.grower->set_frame(12);
    CHECK(b.grower->evict_idle(b.grown, 5) > 0);  // the deeper nodes, last used at frame 0
    CHECK(b.grown.child_count[0] != kChildrenNotBuilt);
    // Nothing used for 20 frames: back to the root alone.
    b.grower->set_frame(40);
    b.grower->evict_idle(b.grown, 20);
    CHECK(b.grower->live_nodes() == 1);
    CHECK(b.grown.child_count[0] == kChildrenNotBuilt);
    CHECK(b.grower->stats().nodes_evicted == b.grower->stats().nodes_built);
    // Regrown: the same tree, in the runs the eviction freed (the arrays do not grow).
    grow_everything(b.grown, *b.grower);
    CHECK(b.grown.spheres.size() == full_size);
    require_same_tree(b.whole, b.grown);
  }
}

TEST_CASE("On-demand tree: wall contacts are those of the whole tree", "[narrowphase][on_demand][oracle]") {
  Rng rng(3);
  int with_contacts = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Body b = make_body(kShapes[trial % 5], 4 + static_cast<int>(rng.below(14)), rng.next_u64(), 2 + trial % 5, true);
    b.state.orientation = rng.rotation();
    b.state.position_m = Vec3(0, rng.uniform(-0.2, 1.0) * b.whole.bounding_radius_m, 0);
    const Plane floor{Vec3(0, 1, 0), 0.0};
    std::vector<std::uint32_t> stack;
    std::vector<ContactCandidate> from_whole, from_grown;
    plane_contacts(GrowableModel{&b.whole, nullptr}, b.state, floor, stack, from_whole);
    plane_contacts(GrowableModel{&b.grown, b.grower.get()}, b.state, floor, stack, from_grown);
    INFO("trial " << trial);
    REQUIRE(from_whole.size() == from_grown.size());
    for (std::size_t i = 0; i < from_whole.size(); ++i) {
      CHECK(from_whole[i].point_m == from_grown[i].point_m);
      CHECK(from_whole[i].depth_m == from_grown[i].depth_m);
    }
    with_contacts += from_whole.empty() ? 0 : 1;
  }
  CHECK(with_contacts > 50);
}

TEST_CASE("On-demand tree: the player's capsule finds what it finds on the whole tree", "[narrowphase][on_demand][oracle]") {
  Rng rng(11);
  int touching = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Body b = make_body(kShapes[trial % 5], 4 + static_cast<int>(rng.below(14)), rng.next_u64(), 2 + trial % 5, true);
    b.state.orientation = rng.rotation();
    const double r = b.whole.bounding_radius_m;
    const Vec3 foot = rng.unit_vector() * (r * rng.uniform(0.2, 1.5));
    const Capsule capsule{foot, foot + Vec3(0, r, 0), 0.05 * r};
    std::vector<std::uint32_t> stack;
    const CapsuleContact on_whole = capsule_touch(b.whole, b.state, capsule, stack);
    const CapsuleContact on_grown = capsule_touch(GrowableModel{&b.grown, b.grower.get()}, b.state, capsule, stack);
    INFO("trial " << trial);
    REQUIRE(on_whole.touching == on_grown.touching);
    if (on_whole.touching) {
      CHECK(b.whole.spheres[on_whole.node].centre_m == b.grown.spheres[on_grown.node].centre_m);
      ++touching;
    }
  }
  CHECK(touching > 40);
  CHECK(touching < 180);
}
