#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "broadphase/sweep_and_prune.hpp"
#include "broadphase_oracle.hpp"
#include "core/rng.hpp"

using namespace fovea;

using namespace fovea::test;

// Every scene and edge case runs against the single sweep and the regioned one, cut four
// ways (broadphase_oracle.hpp): the regions must keep the single sweep's contract exactly.
#define BROAD_PHASES SweepAndPrune, SmallRegions, MiddleRegions, AutoRegions, OneRegion

TEMPLATE_TEST_CASE("broad phase: uniform scene matches brute force every frame", "[broadphase]", BROAD_PHASES) {
  run_scene<TestType>({}, 1);
}

TEMPLATE_TEST_CASE("broad phase: scene packed into a corner matches brute force", "[broadphase]", BROAD_PHASES) {
  // 300 boxes of side about 1 in a 4 m corner of a 20 m box: dozens of pairs each.
  run_scene<TestType>({.spawn_m = 4, .max_speed_mpf = 0.02}, 2);
}

TEMPLATE_TEST_CASE("broad phase: all moving fast matches brute force", "[broadphase]", BROAD_PHASES) {
  // Speeds of most of a box side per frame: long insertion runs.
  run_scene<TestType>({.box_m = 10, .spawn_m = 10, .max_speed_mpf = 0.8}, 3);
}

TEMPLATE_TEST_CASE("broad phase: all still matches brute force and reports no change", "[broadphase]", BROAD_PHASES) {
  run_scene<TestType>({.max_speed_mpf = 0, .frames = 50}, 4);
}

TEMPLATE_TEST_CASE("broad phase: proxies added and removed every frame match brute force", "[broadphase]", BROAD_PHASES) {
  run_scene<TestType>({.max_speed_mpf = 0.1, .churn_per_frame = 3}, 5);
}

TEMPLATE_TEST_CASE("broad phase: bursts of additions and removals match brute force", "[broadphase]", BROAD_PHASES) {
  // Bursts of a third of the world at once: the sweep path, not the scan.
  run_scene<TestType>({.spawn_m = 8, .burst_every = 50, .frames = 400}, 6);
}

TEMPLATE_TEST_CASE("broad phase: dynamic boxes resized every frame match brute force", "[broadphase]", BROAD_PHASES) {
  run_scene<TestType>({.min_half_m = 0.05, .max_half_m = 1.5, .resize_each_frame = true}, 7);
}

TEMPLATE_TEST_CASE("broad phase: coordinates on a coarse grid, ties everywhere, match brute force", "[broadphase]", BROAD_PHASES) {
  // Boxes of half 0.25 on a 0.25 grid: faces touch all the time.
  run_scene<TestType>(
      {.box_m = 6, .spawn_m = 6, .max_speed_mpf = 0.3, .min_half_m = 0.25, .max_half_m = 0.25, .grid_m = 0.25}, 8);
}

TEMPLATE_TEST_CASE("broad phase: static proxies never pair with each other", "[broadphase]", BROAD_PHASES) {
  run_scene<TestType>({.spawn_m = 6, .static_fraction = 0.5, .churn_per_frame = 1, .frames = 300}, 9);

  TestType sap;
  const Aabb big{Vec3(0.0), Vec3(10.0)};
  const ProxyId wall = sap.add(big, true);
  const ProxyId floor = sap.add(big, true);
  const ProxyId rock = sap.add({Vec3(1.0), Vec3(2.0)});
  sap.update();
  REQUIRE(as_set(sap.pairs().current()) == std::set<ProxyPair>{{wall, rock}, {floor, rock}});
}

TEMPLATE_TEST_CASE("broad phase: touching faces overlap, one float apart do not", "[broadphase]", BROAD_PHASES) {
  TestType sap;
  const ProxyId a = sap.add({Vec3(0.0), Vec3(1.0)});
  const ProxyId b = sap.add({Vec3(1.0, 0.0, 0.0), Vec3(2.0, 1.0, 1.0)});       // shares the face x = 1
  const ProxyId c = sap.add({Vec3(1.0, 1.0, 1.0), Vec3(2.0)});                 // touches a at one corner
  sap.update();
  REQUIRE(as_set(sap.pairs().current()) == std::set<ProxyPair>{{a, b}, {a, c}, {b, c}});

  // One float past the face: apart. Set from the far side of the sort, so the max of a and
  // the min of b swap in the insertion sort.
  const double just_past = static_cast<double>(std::nextafterf(1.0f, 2.0f));
  sap.set_box(b, {Vec3(just_past, 0.0, 0.0), Vec3(2.0, 1.0, 1.0)});
  sap.update();
  REQUIRE(as_set(sap.pairs().stopped()) == std::set<ProxyPair>{{a, b}});
  REQUIRE(as_set(sap.pairs().current()) == std::set<ProxyPair>{{a, c}, {b, c}});
  sap.set_box(b, {Vec3(1.0, 0.0, 0.0), Vec3(2.0, 1.0, 1.0)});
  sap.update();
  REQUIRE(as_set(sap.pairs().started()) == std::set<ProxyPair>{{a, b}});

  // A coordinate between two floats is rounded outward: a box ending a hair below 1 still
  // meets one starting at 1, never the other way round.
  TestType hair;
  const ProxyId low = hair.add({Vec3(0.0), Vec3(1.0 - 1e-12)});
  const ProxyId high = hair.add({Vec3(1.0, 0.0, 0.0), Vec3(2.0, 1.0, 1.0)});
  hair.update();
  REQUIRE(hair.pairs().contains({low, high}));
  REQUIRE(hair.stored_box(low).max_m.x >= 1.0 - 1e-12);
}

TEMPLATE_TEST_CASE("broad phase: proxies at the same position all pair", "[broadphase]", BROAD_PHASES) {
  TestType sap;
  std::vector<ProxyId> ids;
  for (int i = 0; i < 40; ++i) ids.push_back(sap.add({Vec3(3.0), Vec3(4.0)}));
  sap.update();
  REQUIRE(sap.pairs().size() == 40 * 39 / 2);
  // All move together: nothing starts or stops.
  for (ProxyId id : ids) sap.set_box(id, {Vec3(3.5), Vec3(4.5)});
  sap.update();
  REQUIRE(sap.pairs().size() == 40 * 39 / 2);
  REQUIRE(sap.pairs().started().empty());
  REQUIRE(sap.pairs().stopped().empty());
}

TEMPLATE_TEST_CASE("broad phase: one proxy, and none", "[broadphase]", BROAD_PHASES) {
  TestType empty;
  empty.update();
  empty.update();
  REQUIRE(empty.pairs().current().empty());
  REQUIRE(empty.proxy_count() == 0);

  TestType one;
  const ProxyId id = one.add({Vec3(0.0), Vec3(1.0)});
  one.update();
  one.set_box(id, {Vec3(-5.0), Vec3(5.0)});
  one.update();
  REQUIRE(one.pairs().current().empty());
  one.remove(id);
  one.update();
  REQUIRE(one.proxy_count() == 0);
  REQUIRE(one.pairs().current().empty());
}

TEMPLATE_TEST_CASE("broad phase: removal reports stops and frees the id only after the update", "[broadphase]", BROAD_PHASES) {
  TestType sap;
  const ProxyId a = sap.add({Vec3(0.0), Vec3(1.0)});
  const ProxyId b = sap.add({Vec3(0.5), Vec3(1.5)});
  sap.update();
  REQUIRE(sap.pairs().contains({a, b}));

  sap.remove(b);
  REQUIRE_FALSE(sap.is_live(b));
  const ProxyId c = sap.add({Vec3(0.5), Vec3(1.5)});
  REQUIRE(c != b);  // not reused within the frame that reports b's stops
  sap.update();
  REQUIRE(as_set(sap.pairs().stopped()) == std::set<ProxyPair>{{a, b}});
  REQUIRE(as_set(sap.pairs().started()) == std::set<ProxyPair>{{a, c}});
  REQUIRE(sap.add({Vec3(9.0), Vec3(10.0)}) == b);  // reused now

  // Added and removed between two updates: never seen.
  const ProxyId ghost = sap.add({Vec3(0.0), Vec3(1.0)});
  sap.remove(ghost);
  sap.update();
  REQUIRE_FALSE(sap.pairs().contains({a, ghost}));
  REQUIRE(sap.proxy_count() == 3);
  REQUIRE_THROWS_AS(sap.remove(ghost), std::out_of_range);
}

TEMPLATE_TEST_CASE("broad phase: a NaN or inverted box is refused and changes nothing", "[broadphase]", BROAD_PHASES) {
  TestType sap;
  const ProxyId a = sap.add({Vec3(0.0), Vec3(1.0)});
  const ProxyId b = sap.add({Vec3(0.5), Vec3(1.5)});
  sap.update();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  REQUIRE_THROWS_AS(sap.set_box(a, {Vec3(nan, 0.0, 0.0), Vec3(1.0)}), std::invalid_argument);
  REQUIRE_THROWS_AS(sap.set_box(a, {Vec3(2.0), Vec3(1.0)}), std::invalid_argument);
  REQUIRE_THROWS_AS(sap.add({Vec3(0.0), Vec3(nan)}), std::invalid_argument);
  REQUIRE_THROWS_AS(sap.set_box(99, {Vec3(0.0), Vec3(1.0)}), std::out_of_range);
  sap.update();
  REQUIRE(sap.proxy_count() == 2);
  REQUIRE(sap.pairs().contains({a, b}));
  REQUIRE(sap.pairs().started().empty());
  REQUIRE(sap.pairs().stopped().empty());

  // Infinite extents are boxes like any other (an unbounded ground plane).
  const double inf = std::numeric_limits<double>::infinity();
  const ProxyId ground = sap.add({Vec3(-inf, -inf, -inf), Vec3(inf, 0.75, inf)}, true);
  sap.update();
  REQUIRE(as_set(sap.pairs().started()) == std::set<ProxyPair>{{a, ground}, {b, ground}});
}

TEST_CASE("bound_key: integer order is float order, and rounding is outward", "[broadphase]") {
  Rng rng(11);
  std::vector<float> values = {-std::numeric_limits<float>::infinity(), -1e30f, -1.0f, -1e-40f, 0.0f,
                               1e-40f, 1.0f, 3.5f, 1e30f, std::numeric_limits<float>::infinity()};
  for (int i = 0; i < 2000; ++i) values.push_back(static_cast<float>(rng.uniform(-1e3, 1e3)));
  for (float x : values) {
    REQUIRE(bound_key::to_float(bound_key::from_float(x)) == x);
    for (float y : values) REQUIRE((bound_key::from_float(x) < bound_key::from_float(y)) == (x < y));
  }
  // -0 is stored as +0, so a max at -0 still touches a min at +0.
  REQUIRE(bound_key::from_float(bound_key::float_at_or_below(-0.0)) == bound_key::from_float(0.0f));
  REQUIRE(bound_key::from_float(bound_key::float_at_or_above(-0.0)) == bound_key::from_float(0.0f));
  SweepAndPrune touch;
  const ProxyId left = touch.add({Vec3(-1.0), Vec3(-0.0, 1.0, 1.0)});
  const ProxyId right = touch.add({Vec3(0.0, -1.0, -1.0), Vec3(1.0)});
  touch.update();
  REQUIRE(touch.pairs().contains({left, right}));
  for (int i = 0; i < 10000; ++i) {
    const double d = rng.uniform(-1e4, 1e4) * std::pow(10.0, rng.uniform(-30, 30));
    REQUIRE(static_cast<double>(bound_key::float_at_or_below(d)) <= d);
    REQUIRE(static_cast<double>(bound_key::float_at_or_above(d)) >= d);
    REQUIRE(bound_key::float_at_or_below(d) == oracle_down(d));
    REQUIRE(bound_key::float_at_or_above(d) == oracle_up(d));
  }
  REQUIRE(bound_key::float_at_or_below(1e300) == std::numeric_limits<float>::max());
  REQUIRE(bound_key::float_at_or_above(1e300) == std::numeric_limits<float>::infinity());
  REQUIRE(bound_key::float_at_or_below(-1e300) == -std::numeric_limits<float>::infinity());
}

TEST_CASE("bound_key: key_at_or_below/above give the keys of float_at_or_below/above", "[broadphase]") {
  // The fast keys (no std::nextafter) against the float rounding they replace: every double
  // class, the edges of the floats, the zeros and subnormals, and random bit patterns.
  const auto same = [](double d) {
    INFO("d = " << d);
    REQUIRE(bound_key::key_at_or_below(d) == bound_key::from_float(bound_key::float_at_or_below(d)));
    REQUIRE(bound_key::key_at_or_above(d) == bound_key::from_float(bound_key::float_at_or_above(d)));
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double fmax = std::numeric_limits<float>::max(), fmin = std::numeric_limits<float>::denorm_min();
  for (const double d : {0.0, -0.0, kInf, -kInf, fmax, -fmax, std::nextafter(fmax, kInf), -std::nextafter(fmax, kInf),
                         std::nextafter(fmax, 0.0), fmin, -fmin, 0.5 * fmin, -0.5 * fmin, 0.7 * fmin, -0.7 * fmin,
                         1e-46, -1e-46, 1e-45, -1e-45, 1e-300, -1e-300, 1e300, -1e300, 1.0, -1.0, 0.1, -0.1,
                         static_cast<double>(std::numeric_limits<float>::min()),
                         -static_cast<double>(std::numeric_limits<float>::min())})
    same(d);
  Rng rng(43);
  for (int i = 0; i < 200000; ++i) {
    // Random bits (NaN skipped: boxes have none), and doubles near floats, where rounding decides.
    const auto bits = (static_cast<std::uint64_t>(rng.uniform(0.0, 4294967296.0)) << 32) |
                      static_cast<std::uint64_t>(rng.uniform(0.0, 4294967296.0));
    const double random_bits = std::bit_cast<double>(bits);
    if (!std::isnan(random_bits)) same(random_bits);
    const auto f = static_cast<float>(rng.uniform(-1e3, 1e3) * std::pow(10.0, rng.uniform(-40, 38)));
    same(static_cast<double>(f));
    same(std::nextafter(static_cast<double>(f), kInf));
    same(std::nextafter(static_cast<double>(f), -kInf));
  }
}
