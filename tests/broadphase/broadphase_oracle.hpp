#pragma once

// The broad phases' oracle, shared by the tests of SweepAndPrune and RegionSweepAndPrune:
// brute-force pairs of outward-rounded boxes, and random scenes checked against them every
// frame. A broad phase here is any class with SweepAndPrune's interface.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "broadphase/region_sweep_and_prune.hpp"
#include "broadphase/sweep_and_prune.hpp"
#include "core/rng.hpp"

namespace Catch {
template <>
struct StringMaker<fovea::ProxyPair> {
  static std::string convert(const fovea::ProxyPair& p) { return "(" + std::to_string(p.a) + ", " + std::to_string(p.b) + ")"; }
};
}  // namespace Catch

namespace fovea::test {

// The oracle's own outward rounding to float, written the slow obvious way.
inline float oracle_down(double d) {
  float f = static_cast<float>(d);
  while (static_cast<double>(f) > d) f = std::nextafterf(f, -std::numeric_limits<float>::infinity());
  return f == 0.0f ? 0.0f : f;
}
inline float oracle_up(double d) {
  float f = static_cast<float>(d);
  while (static_cast<double>(f) < d) f = std::nextafterf(f, std::numeric_limits<float>::infinity());
  return f == 0.0f ? 0.0f : f;
}

struct OracleBox {
  float min[3];
  float max[3];
};

inline OracleBox oracle_box(const Aabb& box) {
  OracleBox b;
  for (int k = 0; k < 3; ++k) {
    b.min[k] = oracle_down(box.min_m[k]);
    b.max[k] = oracle_up(box.max_m[k]);
  }
  return b;
}

inline bool oracle_overlap(const OracleBox& a, const OracleBox& b) {
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
  bool is_ground = false;  // infinite below centre_m.y and across x and z
};

inline Aabb box_of(const Body& b) {
  if (b.is_ground) {
    const double inf = std::numeric_limits<double>::infinity();
    return {Vec3(-inf), Vec3(inf, b.centre_m.y, inf)};
  }
  return {b.centre_m - b.half_m, b.centre_m + b.half_m};
}

/// All pairs of the bodies whose (outward-rounded) boxes overlap, static pairs excluded:
/// the O(N^2) answer the sweep must give.
inline std::set<ProxyPair> brute_force_pairs(const std::vector<Body>& bodies) {
  std::set<ProxyPair> pairs;
  std::vector<OracleBox> boxes;
  for (const Body& b : bodies) boxes.push_back(oracle_box(box_of(b)));
  for (std::size_t i = 0; i < bodies.size(); ++i)
    for (std::size_t j = i + 1; j < bodies.size(); ++j)
      if (!(bodies[i].is_static && bodies[j].is_static) && oracle_overlap(boxes[i], boxes[j]))
        pairs.insert({std::min(bodies[i].id, bodies[j].id), std::max(bodies[i].id, bodies[j].id)});
  return pairs;
}

inline std::set<ProxyPair> as_set(std::span<const ProxyPair> pairs) { return {pairs.begin(), pairs.end()}; }

inline std::set<ProxyPair> minus(const std::set<ProxyPair>& a, const std::set<ProxyPair>& b) {
  std::set<ProxyPair> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

/// Checks one update against the oracle: the current list, its order, the started and
/// stopped lists, and the stored boxes.
template <class BroadPhase>
void require_matches_oracle(const BroadPhase& sap, const std::vector<Body>& bodies,
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
  int growth_per_frame = 0;    // bodies added every frame, none removed
  int burst_every = 0;         // > 0: every so many frames, remove a third and add as many
  int frames = 1000;
  double ground_m = -1;        // >= 0: a static ground box, infinite below this height
};

inline Body random_body(const SceneSpec& spec, Rng& rng) {
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

inline void move(Body& b, const SceneSpec& spec, Rng& rng) {
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

/// Runs a random scene through a broad phase and checks every frame against brute force.
template <class BroadPhase>
void run_scene(const SceneSpec& spec, std::uint64_t seed) {
  Rng rng(seed);
  BroadPhase sap;
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
  if (spec.ground_m >= 0) {
    Body ground;
    ground.is_static = ground.is_ground = true;
    ground.centre_m = Vec3(0.0, spec.ground_m, 0.0);
    ground.id = sap.add(box_of(ground), true);
    bodies.push_back(ground);
  }
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
    for (int c = 0; c < spec.growth_per_frame; ++c) add_body();
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

/// Regions for the scenes' 20 m box, cut so that boxes cross borders often: cells of 3 m
/// from the origin, 7 per axis, a box of side about 1 m on a border about a third of the time.
struct SmallRegions : RegionSweepAndPrune {
  SmallRegions() : RegionSweepAndPrune(RegionGrid{3.0, Vec3(0.0), {7, 7, 7}}) {}
};
/// A grid covering only the middle of the scenes' box, so that most boxes are beyond it, in
/// the border cells that reach to infinity; cells of 1.5 m, not much larger than the boxes.
struct MiddleRegions : RegionSweepAndPrune {
  MiddleRegions() : RegionSweepAndPrune(RegionGrid{1.5, Vec3(6.0), {5, 4, 3}}) {}
};
/// The automatic grid, aimed at 25 proxies per region: several regions for 300 proxies.
struct AutoRegions : RegionSweepAndPrune {
  AutoRegions() : RegionSweepAndPrune(RegionGrid{0, Vec3(0.0), {1, 1, 1}, 25, 1}) {}
};
/// One region: the single sweep behind the regions' bookkeeping.
struct OneRegion : RegionSweepAndPrune {
  OneRegion() : RegionSweepAndPrune(RegionGrid{1.0, Vec3(0.0), {1, 1, 1}}) {}
};

}  // namespace fovea::test
