#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "broadphase/sweep_and_prune.hpp"
#include "core/rng.hpp"

using namespace fovea;

namespace Catch {
template <>
struct StringMaker<ProxyPair> {
  static std::string convert(const ProxyPair& p) { return "(" + std::to_string(p.a) + ", " + std::to_string(p.b) + ")"; }
};
}  // namespace Catch

namespace {

// The oracle's own outward rounding to float, written the slow obvious way.
float oracle_down(double d) {
  float f = static_cast<float>(d);
  while (static_cast<double>(f) > d) f = std::nextafterf(f, -std::numeric_limits<float>::infinity());
  return f == 0.0f ? 0.0f : f;
}
float oracle_up(double d) {
  float f = static_cast<float>(d);
  while (static_cast<double>(f) < d) f = std::nextafterf(f, std::numeric_limits<float>::infinity());
  return f == 0.0f ? 0.0f : f;
}

struct OracleBox {
  float min[3];
  float max[3];
};

OracleBox oracle_box(const Aabb& box) {
  OracleBox b;
  for (int k = 0; k < 3; ++k) {
    b.min[k] = oracle_down(box.min_m[k]);
    b.max[k] = oracle_up(box.max_m[k]);
  }
  return b;
}

bool oracle_overlap(const OracleBox& a, const OracleBox& b) {
  for (int k = 0; k < 3; ++k)
    if (a.min[k] > b.max[k] || b.min[k] > a.max[k]) return false;
  return true;
}

/// A moving proxy of a random scene.
struct Body {
  ProxyId id = 0;
  Vec3 centre_m{0.0};
  Vec3 half_m{0.5};
  Vec3 velocity_mpf{0.0};  // metres per frame
  bool is_static = false;
};

Aabb box_of(const Body& b) { return {b.centre_m - b.half_m, b.centre_m + b.half_m}; }

/// All pairs of the bodies whose (outward-rounded) boxes overlap, static pairs excluded:
/// the O(N^2) answer the sweep must give.
std::set<ProxyPair> brute_force_pairs(const std::vector<Body>& bodies) {
  std::set<ProxyPair> pairs;
  std::vector<OracleBox> boxes;
  for (const Body& b : bodies) boxes.push_back(oracle_box(box_of(b)));
  for (std::size_t i = 0; i < bodies.size(); ++i)
    for (std::size_t j = i + 1; j < bodies.size(); ++j)
      if (!(bodies[i].is_static && bodies[j].is_static) && oracle_overlap(boxes[i], boxes[j]))
        pairs.insert({std::min(bodies[i].id, bodies[j].id), std::max(bodies[i].id, bodies[j].id)});
  return pairs;
}

std::set<ProxyPair> as_set(std::span<const ProxyPair> pairs) { return {pairs.begin(), pairs.end()}; }

std::set<ProxyPair> minus(const std::set<ProxyPair>& a, const std::set<ProxyPair>& b) {
  std::set<ProxyPair> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

/// Checks one update against the oracle: the current list, its order, the started and
/// stopped lists, and the stored boxes.
void require_matches_oracle(const SweepAndPrune& sap, const std::vector<Body>& bodies,
                            const std::set<ProxyPair>& before, std::set<ProxyPair>& after) {
  after = brute_force_pairs(bodies);
  const auto current = sap.pairs().current();
  REQUIRE(std::is_sorted(current.begin(), current.end()));
  REQUIRE(as_set(current) == after);
  REQUIRE(current.size() == after.size());
  REQUIRE(as_set(sap.pairs().started()) == minus(after, before));
  REQUIRE(as_set(sap.pairs().stopped()) == minus(before, after));
  REQUIRE(sap.proxy_count() == bodies.size());
  for (const Body& b : bodies) {
    const OracleBox expected = oracle_box(box_of(b));
    const Aabb stored = sap.stored_box(b.id);
    for (int k = 0; k < 3; ++k) {
      REQUIRE(stored.min_m[k] == static_cast<double>(expected.min[k]));
      REQUIRE(stored.max_m[k] == static_cast<double>(expected.max[k]));
    }
  }
}

struct SceneSpec {
  int count = 300;
  double box_m = 20;           // bodies live in [0, box_m]^3
  double spawn_m = 20;         // and start in [0, spawn_m]^3 ("packed into a corner" when small)
  double max_speed_mpf = 0.05; // per axis
  double min_half_m = 0.3;
  double max_half_m = 0.7;
  bool resize_each_frame = false;  // dynamic boxes: the half extents change every frame
  double grid_m = 0;           // > 0: positions snapped to this grid, so coordinates tie often
  double static_fraction = 0;
  int churn_per_frame = 0;     // bodies removed and added every frame
  int burst_every = 0;         // > 0: every so many frames, remove a third and add as many
  int frames = 1000;
};

Body random_body(const SceneSpec& spec, Rng& rng) {
  Body b;
  const double half = rng.uniform(spec.min_half_m, spec.max_half_m);
  b.half_m = Vec3(half);
  if (spec.resize_each_frame) b.half_m = Vec3(rng.uniform(spec.min_half_m, spec.max_half_m), rng.uniform(spec.min_half_m, spec.max_half_m), rng.uniform(spec.min_half_m, spec.max_half_m));
  for (int k = 0; k < 3; ++k) {
    b.centre_m[k] = rng.uniform(0, spec.spawn_m);
    b.velocity_mpf[k] = rng.uniform(-spec.max_speed_mpf, spec.max_speed_mpf);
  }
  if (spec.grid_m > 0) b.centre_m = glm::round(b.centre_m / spec.grid_m) * spec.grid_m;
  b.is_static = rng.uniform() < spec.static_fraction;
  if (b.is_static) b.velocity_mpf = Vec3(0.0);
  return b;
}

void move(Body& b, const SceneSpec& spec, Rng& rng) {
  if (b.is_static) return;
  b.centre_m += b.velocity_mpf;
  for (int k = 0; k < 3; ++k) {
    if (b.centre_m[k] < 0) b.velocity_mpf[k] = std::abs(b.velocity_mpf[k]);
    if (b.centre_m[k] > spec.box_m) b.velocity_mpf[k] = -std::abs(b.velocity_mpf[k]);
  }
  if (spec.grid_m > 0) b.centre_m = glm::round(b.centre_m / spec.grid_m) * spec.grid_m;
  if (spec.resize_each_frame)
    for (int k = 0; k < 3; ++k) b.half_m[k] = std::clamp(b.half_m[k] * rng.uniform(0.9, 1.1), spec.min_half_m, spec.max_half_m);
}

/// Runs a random scene through the sweep and checks every frame against brute force.
void run_scene(const SceneSpec& spec, std::uint64_t seed) {
  Rng rng(seed);
  SweepAndPrune sap;
  std::vector<Body> bodies;
  auto add_body = [&] {
    Body b = random_body(spec, rng);
    b.id = sap.add(box_of(b), b.is_static);
    bodies.push_back(b);
  };
  auto remove_body = [&] {
    const auto i = static_cast<std::size_t>(rng.below(bodies.size()));
    sap.remove(bodies[i].id);
    bodies.erase(bodies.begin() + static_cast<std::ptrdiff_t>(i));
  };
  for (int i = 0; i < spec.count; ++i) add_body();
  std::set<ProxyPair> before, after;
  sap.update();
  require_matches_oracle(sap, bodies, before, after);
  for (int frame = 1; frame < spec.frames; ++frame) {
    before = after;
    for (Body& b : bodies) {
      move(b, spec, rng);
      if (!b.is_static) sap.set_box(b.id, box_of(b));
    }
    for (int c = 0; c < spec.churn_per_frame && !bodies.empty(); ++c) remove_body();
    for (int c = 0; c < spec.churn_per_frame; ++c) add_body();
    if (spec.burst_every > 0 && frame % spec.burst_every == 0) {
      const std::size_t third = bodies.size() / 3;
      for (std::size_t c = 0; c < third; ++c) remove_body();
      for (std::size_t c = 0; c < third; ++c) add_body();
    }
    sap.update();
    INFO("frame " << frame);
    require_matches_oracle(sap, bodies, before, after);
  }
}

}  // namespace

TEST_CASE("SweepAndPrune: uniform scene matches brute force every frame", "[broadphase]") {
  run_scene({}, 1);
}

TEST_CASE("SweepAndPrune: scene packed into a corner matches brute force", "[broadphase]") {
  SceneSpec spec;
  spec.spawn_m = 4;  // 300 boxes of side about 1 in a 4 m corner of a 20 m box: dozens of pairs each
  spec.max_speed_mpf = 0.02;
  run_scene(spec, 2);
}

TEST_CASE("SweepAndPrune: all moving fast matches brute force", "[broadphase]") {
  SceneSpec spec;
  spec.box_m = 10;
  spec.spawn_m = 10;
  spec.max_speed_mpf = 0.8;  // most of a box side per frame: long insertion runs
  run_scene(spec, 3);
}

TEST_CASE("SweepAndPrune: all still matches brute force and reports no change", "[broadphase]") {
  SceneSpec spec;
  spec.max_speed_mpf = 0;
  spec.frames = 50;
  run_scene(spec, 4);
}

TEST_CASE("SweepAndPrune: proxies added and removed every frame match brute force", "[broadphase]") {
  SceneSpec spec;
  spec.churn_per_frame = 3;
  spec.max_speed_mpf = 0.1;
  run_scene(spec, 5);
}

TEST_CASE("SweepAndPrune: bursts of additions and removals match brute force", "[broadphase]") {
  SceneSpec spec;
  spec.burst_every = 50;  // a third of the world at once: the sweep path, not the scan
  spec.spawn_m = 8;
  spec.frames = 400;
  run_scene(spec, 6);
}

TEST_CASE("SweepAndPrune: dynamic boxes resized every frame match brute force", "[broadphase]") {
  SceneSpec spec;
  spec.resize_each_frame = true;
  spec.min_half_m = 0.05;
  spec.max_half_m = 1.5;
  run_scene(spec, 7);
}

TEST_CASE("SweepAndPrune: coordinates on a coarse grid, ties everywhere, match brute force", "[broadphase]") {
  SceneSpec spec;
  spec.grid_m = 0.25;       // boxes of half 0.25 on a 0.25 grid: faces touch all the time
  spec.min_half_m = 0.25;
  spec.max_half_m = 0.25;
  spec.box_m = 6;
  spec.spawn_m = 6;
  spec.max_speed_mpf = 0.3;
  run_scene(spec, 8);
}

TEST_CASE("SweepAndPrune: static proxies never pair with each other", "[broadphase]") {
  SceneSpec spec;
  spec.static_fraction = 0.5;
  spec.spawn_m = 6;
  spec.churn_per_frame = 1;
  spec.frames = 300;
  run_scene(spec, 9);

  SweepAndPrune sap;
  const Aabb big{Vec3(0.0), Vec3(10.0)};
  const ProxyId wall = sap.add(big, true);
  const ProxyId floor = sap.add(big, true);
  const ProxyId rock = sap.add({Vec3(1.0), Vec3(2.0)});
  sap.update();
  REQUIRE(as_set(sap.pairs().current()) == std::set<ProxyPair>{{wall, rock}, {floor, rock}});
}

TEST_CASE("SweepAndPrune: touching faces overlap, one float apart do not", "[broadphase]") {
  SweepAndPrune sap;
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
  SweepAndPrune hair;
  const ProxyId low = hair.add({Vec3(0.0), Vec3(1.0 - 1e-12)});
  const ProxyId high = hair.add({Vec3(1.0, 0.0, 0.0), Vec3(2.0, 1.0, 1.0)});
  hair.update();
  REQUIRE(hair.pairs().contains({low, high}));
  REQUIRE(hair.stored_box(low).max_m.x >= 1.0 - 1e-12);
}

TEST_CASE("SweepAndPrune: proxies at the same position all pair", "[broadphase]") {
  SweepAndPrune sap;
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

TEST_CASE("SweepAndPrune: one proxy, and none", "[broadphase]") {
  SweepAndPrune empty;
  empty.update();
  empty.update();
  REQUIRE(empty.pairs().current().empty());
  REQUIRE(empty.proxy_count() == 0);

  SweepAndPrune one;
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

TEST_CASE("SweepAndPrune: removal reports stops and frees the id only after the update", "[broadphase]") {
  SweepAndPrune sap;
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

TEST_CASE("SweepAndPrune: a NaN or inverted box is refused and changes nothing", "[broadphase]") {
  SweepAndPrune sap;
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
