// On-demand sphere trees (narrowphase/on_demand_tree.hpp, after 001) against the whole trees
// the octree builder makes: grown everywhere they are the same tree; the descent, the contact
// pairs and the wall contacts give the same answers on both; eviction frees and regrowth
// restores.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>

#include "core/rng.hpp"
#include "narrowphase/capsule_query.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "response/plane_contact.hpp"
#include "support/bodies.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

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

/// Two random bodies of 4 to 15 voxels, with and without hidden nodes, posed at random
/// (random_posed_duo).
std::pair<Body, Body> random_duo(Rng& rng, int levels) {
  return random_posed_duo(rng, [&](std::uint64_t salt) {
    return make_body(kBodyShapes[rng.below(5)], 4 + static_cast<int>(rng.below(12)), salt, levels, rng.below(2) == 0);
  });
}

/// The wall and capsule tests' body of trial `trial`: 4 to 17 voxels, 2 to 6 levels, turned
/// at random about its centre of mass at the origin.
Body random_turned_body(Rng& rng, int trial) {
  Body b = make_body(kBodyShapes[trial % 5], 4 + static_cast<int>(rng.below(14)), rng.next_u64(), 2 + trial % 5, true);
  b.state.orientation = rng.rotation();
  return b;
}

}  // namespace

TEST_CASE("On-demand tree: grown everywhere, it is the octree builder's tree", "[narrowphase][on_demand][oracle]") {
  Rng rng(91);
  for (int trial = 0; trial < 60; ++trial) {
    const Shape shape = kBodyShapes[trial % 5];
    const int levels = 1 + trial % 7;
    const bool remove_hidden = trial % 2 == 0;
    Body b = make_body(shape, 3 + static_cast<int>(rng.below(20)), rng.next_u64(), levels, remove_hidden);
    // Every third trial with spheres fitted to the voxels (sphere_tree.fit: voxels).
    if (trial % 3 == 2) b = body_of(b.model, {levels, remove_hidden, SphereFit::voxels});
    OnDemandTree grown = make_on_demand_tree(b);
    INFO("trial " << trial << " levels " << levels << " fit " << static_cast<int>(b.options.fit));
    REQUIRE(grown.grower->live_nodes() == 1);
    REQUIRE(grown.model.spheres.size() == 1);
    grow_everything(grown.model, *grown.grower);
    REQUIRE(grown.grower->live_nodes() == static_cast<std::int64_t>(b.collision.spheres.size()));
    REQUIRE(grown.grower->stats().nodes_built + 1 == grown.grower->live_nodes());
    require_same_tree(b.collision, grown.model);
  }
}

TEST_CASE("On-demand tree: with fitted spheres, every node's leaf reach before growth holds its leaves",
          "[narrowphase][on_demand][oracle]") {
  // Fitted spheres (sphere_tree.fit: voxels) move a node's centre off its occupied box's, so the
  // bound written before a node grows must not assume 004's sphere: checked against the whole
  // tree's leaves on models large enough for the fitted centres to move.
  for (const Shape shape : kBodyShapes)
    for (const int levels : {1, 2, 3}) {
      const Body whole = body_of(make_body(shape, 32, 3, levels, true).model, {levels, true, SphereFit::voxels});
      OnDemandTree grown = make_on_demand_tree(whole);
      INFO("shape " << static_cast<int>(shape) << " levels " << levels);
      // Grow level by level; each node's bound is read when it is made, before it grows.
      std::vector<std::uint32_t> frontier{0};
      while (!frontier.empty()) {
        std::vector<std::uint32_t> next;
        for (const std::uint32_t n : frontier) {
          if (grown.model.child_count[n] != kChildrenNotBuilt) continue;
          grown.grower->grow(grown.model, n);
          for (std::uint32_t k = 0; k < grown.model.child_count[n]; ++k) next.push_back(grown.model.first_child[n] + k);
        }
        frontier = std::move(next);
      }
      require_same_tree(whole.collision, grown.model);
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
      if (which[static_cast<std::size_t>(t)]) whole_nodes += static_cast<std::int64_t>((t == 0 ? a : b).collision.spheres.size());
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
    const Body b = make_body(Shape::rock, 16, rng.next_u64(), 4, true);
    OnDemandTree grown = make_on_demand_tree(b);
    TreeGrower& grower = *grown.grower;
    grower.set_frame(0);
    grow_everything(grown.model, grower);
    const std::size_t full_size = grown.model.spheres.size();
    // Used at frame 10: nothing is evicted after 5 idle frames at frame 12.
    grower.set_frame(10);
    grower.touch(0);
    grower.set_frame(12);
    CHECK(grower.evict_idle(grown.model, 5) > 0);  // the deeper nodes, last used at frame 0
    CHECK(grown.model.child_count[0] != kChildrenNotBuilt);
    // Nothing used for 20 frames: back to the root alone.
    grower.set_frame(40);
    grower.evict_idle(grown.model, 20);
    CHECK(grower.live_nodes() == 1);
    CHECK(grown.model.child_count[0] == kChildrenNotBuilt);
    CHECK(grower.stats().nodes_evicted == grower.stats().nodes_built);
    // Regrown: the same tree, in the runs the eviction freed (the arrays do not grow).
    grow_everything(grown.model, grower);
    CHECK(grown.model.spheres.size() == full_size);
    require_same_tree(b.collision, grown.model);
  }
}

TEST_CASE("On-demand tree: wall contacts are those of the whole tree", "[narrowphase][on_demand][oracle]") {
  Rng rng(3);
  int with_contacts = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Body b = random_turned_body(rng, trial);
    OnDemandTree grown = make_on_demand_tree(b);
    b.state.position_m = Vec3(0, rng.uniform(-0.2, 1.0) * b.collision.bounding_radius_m, 0);
    const Plane floor{Vec3(0, 1, 0), 0.0};
    std::vector<std::uint32_t> stack;
    std::vector<ContactCandidate> from_whole, from_grown;
    plane_contacts(GrowableModel{&b.collision, nullptr}, b.state, floor, stack, from_whole);
    plane_contacts(grown.growable(), b.state, floor, stack, from_grown);
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
    Body b = random_turned_body(rng, trial);
    OnDemandTree grown = make_on_demand_tree(b);
    const double r = b.collision.bounding_radius_m;
    const Vec3 foot = rng.unit_vector() * (r * rng.uniform(0.2, 1.5));
    const Capsule capsule{foot, foot + Vec3(0, r, 0), 0.05 * r};
    std::vector<std::uint32_t> stack;
    const CapsuleContact on_whole = capsule_touch(b.collision, b.state, capsule, stack);
    const CapsuleContact on_grown = capsule_touch(grown.growable(), b.state, capsule, stack);
    INFO("trial " << trial);
    REQUIRE(on_whole.touching == on_grown.touching);
    if (on_whole.touching) {
      CHECK(b.collision.spheres[on_whole.node].centre_m == grown.model.spheres[on_grown.node].centre_m);
      ++touching;
    }
  }
  CHECK(touching > 40);
  CHECK(touching < 180);
}
