// The capsule test (narrowphase/capsule_query.hpp) against its oracle: every leaf sphere of
// the tree tested against the capsule, no pruning.

#include <catch2/catch.hpp>

#include <algorithm>

#include "core/rng.hpp"
#include "narrowphase/capsule_query.hpp"
#include "spheretree/octree_builder.hpp"
#include "support/allocation_counter.hpp"
#include "support/bodies.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

/// Whether leaf `node` touches the capsule, its centre taken to the world as the brief of
/// the rockfall states it (world = position + orientation * centre).
bool leaf_touches(const Body& body, std::uint32_t node, const Capsule& capsule) {
  const DescentSphere& s = body.collision.spheres[node];
  const Vec3 centre_m = body.state.position_m + body.state.orientation * s.centre_m;
  return segment_point_distance_m(capsule.a_m, capsule.b_m, centre_m) <= s.radius_m + capsule.radius_m;
}

/// The oracle: every leaf sphere, brute force.
bool any_leaf_touches(const Body& body, const Capsule& capsule) {
  for (std::uint32_t i = 0; i < body.tree.size(); ++i)
    if (body.tree.is_leaf(i) && leaf_touches(body, i, capsule)) return true;
  return false;
}

std::uint32_t leaf_count(const SphereTree& tree) {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < tree.size(); ++i) n += tree.is_leaf(i);
  return n;
}

/// kBodyShapes in another order, the one this file's samples were drawn with.
constexpr Shape kShapes[] = {Shape::rock, Shape::ball, Shape::l_shape, Shape::humanoid, Shape::box};

/// A random body in a random pose near the origin, its tree without hidden nodes.
Body random_body(Rng& rng) {
  const Shape shape = kShapes[rng.below(5)];
  const int resolution = 3 + static_cast<int>(rng.below(14));
  // Trees that end above single voxels, and trees that reach them.
  const int levels = 2 + static_cast<int>(rng.below(4));
  Body b = make_body(shape, resolution, rng.next_u64(), levels, true);
  b.state.orientation = rng.rotation();
  b.state.position_m = Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
  return b;
}

/// A random capsule whose segment passes between 0 and 2 bounding radii from the body's
/// centre of mass: about as often touching as not. One in eight is a sphere (a == b).
Capsule random_capsule(Rng& rng, const Body& body) {
  const double reach_m = body.collision.bounding_radius_m;
  Capsule c;
  c.radius_m = rng.uniform(0.0, 0.4);
  const Vec3 middle_m = body.state.position_m + rng.unit_vector() * (reach_m + c.radius_m) * rng.uniform(0.0, 2.0);
  const Vec3 half_m = rng.below(8) == 0 ? Vec3(0.0) : rng.unit_vector() * rng.uniform(0.0, 1.0);
  c.a_m = middle_m - half_m;
  c.b_m = middle_m + half_m;
  return c;
}

}  // namespace

TEST_CASE("Capsule: segment_point_distance_m against points sampled along the segment", "[narrowphase][capsule]") {
  CHECK(segment_point_distance_m({0, 0, 0}, {2, 0, 0}, {1, 3, 0}) == Approx(3.0));   // beside the middle
  CHECK(segment_point_distance_m({0, 0, 0}, {2, 0, 0}, {-3, 4, 0}) == Approx(5.0));  // past the a end
  CHECK(segment_point_distance_m({0, 0, 0}, {2, 0, 0}, {5, 0, 4}) == Approx(5.0));   // past the b end
  CHECK(segment_point_distance_m({1, 1, 1}, {1, 1, 1}, {1, 1, 3}) == Approx(2.0));   // a == b
  CHECK(segment_point_distance_m({1, 1, 1}, {1, 1, 1}, {1, 1, 1}) == 0.0);
  Rng rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 a(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    const Vec3 b = trial % 10 == 0 ? a : Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    const Vec3 p(rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-2, 2));
    double sampled_m = 1e300;
    constexpr int kSamples = 20000;
    for (int i = 0; i <= kSamples; ++i)
      sampled_m = std::min(sampled_m, glm::length(p - glm::mix(a, b, static_cast<double>(i) / kSamples)));
    const double d_m = segment_point_distance_m(a, b, p);
    INFO("trial " << trial);
    CHECK(d_m <= sampled_m + 1e-12);           // never farther than a point of the segment
    CHECK(d_m >= sampled_m - 4.0 / kSamples);  // within a sampling step (segments are under 3.5 m)
  }
}

TEST_CASE("Capsule: the descent agrees with every leaf tested brute force, over random trees, poses and capsules",
          "[narrowphase][capsule][oracle]") {
  std::vector<std::uint32_t> stack;
  int touching = 0, apart = 0, pruned = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed, 9);
    const Body body = random_body(rng);
    const std::uint32_t leaves = leaf_count(body.tree);
    for (int trial = 0; trial < 100; ++trial) {
      const Capsule capsule = random_capsule(rng, body);
      const CapsuleContact contact = capsule_touch(body.collision, body.state, capsule, stack);
      const bool expected = any_leaf_touches(body, capsule);
      INFO("seed " << seed << ", trial " << trial << ", nodes " << body.tree.size());
      REQUIRE(contact.touching == expected);
      CHECK(contact.sphere_tests >= 1);
      CHECK(contact.sphere_tests <= body.tree.size());
      if (contact.touching) {
        ++touching;
        CHECK(body.tree.is_leaf(contact.node));
        CHECK(leaf_touches(body, contact.node, capsule));
      } else {
        ++apart;
        pruned += contact.sphere_tests < leaves;
      }
    }
  }
  // The sample has to exercise both outcomes, and misses settled without testing every leaf.
  CHECK(touching > 1500);
  CHECK(apart > 1500);
  CHECK(pruned > 1000);
}

TEST_CASE("Capsule: pruning on a node's own radius would miss leaves that bulge out of their parent",
          "[narrowphase][capsule][oracle]") {
  // Why capsule_touch prunes on leaf reach: an octree parent's sphere need not hold its
  // children's (a 4 x 1 x 1 box's sphere does not hold that of its 2 x 1 x 1 half). A point
  // (a capsule of no length and no radius) inside such a leaf but outside its parent's sphere
  // touches the leaf, and the same descent pruned on node radii never reaches it.
  std::vector<std::uint32_t> stack;
  int bulging = 0, missed_on_radius = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed, 9);
    const Body body = random_body(rng);
    CollisionModel on_radius = body.collision;
    for (std::uint32_t i = 0; i < on_radius.spheres.size(); ++i)
      on_radius.leaf_reach_m[i] = on_radius.spheres[i].radius_m;
    const CollisionModel& m = body.collision;
    for (std::uint32_t leaf = 1; leaf < m.spheres.size(); ++leaf) {
      if (!m.is_leaf(leaf)) continue;
      const DescentSphere& parent = m.spheres[m.parent[leaf]];
      const Vec3 out = m.spheres[leaf].centre_m - parent.centre_m;
      const double out_m = glm::length(out);
      const double bulge_m = out_m + m.spheres[leaf].radius_m - parent.radius_m;
      if (bulge_m < 1e-6 || out_m == 0) continue;
      ++bulging;
      // Half the bulge inside the leaf's sphere, so half of it outside the parent's.
      const double from_parent_m = out_m + m.spheres[leaf].radius_m - 0.5 * bulge_m;
      const Vec3 point_m = body.state.position_m + body.state.orientation * (parent.centre_m + out * (from_parent_m / out_m));
      const Capsule probe{point_m, point_m, 0.0};
      INFO("seed " << seed << ", leaf " << leaf);
      REQUIRE(any_leaf_touches(body, probe));
      CHECK(capsule_touch(m, body.state, probe, stack).touching);
      missed_on_radius += !capsule_touch(on_radius, body.state, probe, stack).touching;
    }
  }
  CHECK(bulging > 1000);
  CHECK(missed_on_radius > 200);
}

TEST_CASE("Capsule: a far capsule costs one test, a touching one fewer than the leaves", "[narrowphase][capsule]") {
  const Body rock = make_body(Shape::rock, 16, 3, 4, true);
  const std::uint32_t leaves = leaf_count(rock.tree);
  REQUIRE(leaves > 50);
  std::vector<std::uint32_t> stack;
  const double r_m = rock.collision.bounding_radius_m;
  // Far: the root's reach settles it.
  const CapsuleContact far = capsule_touch(rock.collision, rock.state, {{3 * r_m, -1, 0}, {3 * r_m, 1, 0}, 0.3}, stack);
  CHECK_FALSE(far.touching);
  CHECK(far.sphere_tests == 1);
  // Just outside the rock's bounding sphere but within its leaves' reach: a few branches
  // looked into, far fewer tests than leaves.
  const Capsule beside{{1.15 * r_m, -1, 0}, {1.15 * r_m, 1, 0}, 0.1};
  const CapsuleContact near = capsule_touch(rock.collision, rock.state, beside, stack);
  CHECK_FALSE(near.touching);
  CHECK(near.sphere_tests > 1);
  CHECK(near.sphere_tests < leaves);
  // Through the middle: the first touching leaf ends the search.
  const Capsule across{{-2 * r_m, 0, 0}, {2 * r_m, 0, 0}, 0.1};
  const CapsuleContact through = capsule_touch(rock.collision, rock.state, across, stack);
  CHECK(through.touching);
  CHECK(through.sphere_tests < leaves);
}

TEST_CASE("Capsule: moving and turning the body and the capsule together changes nothing", "[narrowphase][capsule]") {
  std::vector<std::uint32_t> stack;
  Rng rng(11);
  int touching = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Body body = random_body(rng);
    const Capsule capsule = random_capsule(rng, body);
    const CapsuleContact before = capsule_touch(body.collision, body.state, capsule, stack);
    // x -> turn x + shift_m, applied to the body's pose and to the capsule's ends.
    const Quat turn = rng.rotation();
    const Vec3 shift_m(rng.uniform(-5, 5), rng.uniform(-5, 5), rng.uniform(-5, 5));
    body.state.position_m = turn * body.state.position_m + shift_m;
    body.state.orientation = turn * body.state.orientation;
    const Capsule moved{turn * capsule.a_m + shift_m, turn * capsule.b_m + shift_m, capsule.radius_m};
    const CapsuleContact after = capsule_touch(body.collision, body.state, moved, stack);
    INFO("trial " << trial);
    CHECK(after.touching == before.touching);
    CHECK(after.node == before.node);
    CHECK(after.sphere_tests == before.sphere_tests);
    touching += before.touching;
  }
  CHECK(touching > 50);
  CHECK(touching < 150);
}

TEST_CASE("Capsule: the steady state allocates nothing", "[narrowphase][capsule]") {
  const Body rock = make_body(Shape::rock, 16, 4, 4, true);
  std::vector<std::uint32_t> stack;
  Rng rng(12);
  std::vector<Capsule> capsules;
  for (int i = 0; i < 200; ++i) capsules.push_back(random_capsule(rng, rock));
  for (const Capsule& c : capsules) capsule_touch(rock.collision, rock.state, c, stack);  // the stack grows here, once
  const long before = test::allocations();
  std::uint32_t touching = 0;
  for (const Capsule& c : capsules) touching += capsule_touch(rock.collision, rock.state, c, stack).touching;
  const long allocations = test::allocations() - before;  // read before CHECK allocates
  CHECK(allocations == 0);
  CHECK(touching > 0);
}
