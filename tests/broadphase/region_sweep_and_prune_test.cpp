#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "broadphase/region_sweep_and_prune.hpp"
#include "broadphase/sweep_and_prune.hpp"
#include "broadphase_oracle.hpp"
#include "core/rng.hpp"
#include "core/thread_pool.hpp"

using namespace fovea;
using namespace fovea::test;

// The scenes of sweep_and_prune_test.cpp run against the regions too; these are the ones
// that make boxes cross region borders as much as possible.

namespace {

/// Cells of 0.8 m, smaller than most boxes of the scenes below, over the middle of a 10 m
/// box: every box spans several regions, and many lie beyond the grid.
struct TinyRegions : RegionSweepAndPrune {
  TinyRegions() : RegionSweepAndPrune(RegionGrid{0.8, Vec3(2.0), {8, 8, 8}}) {}
};
/// Cells of 0.5 m from the origin: on a 0.25 m grid with half sides of 0.25 m, every other
/// box has its faces exactly on cell borders.
struct BorderRegions : RegionSweepAndPrune {
  BorderRegions() : RegionSweepAndPrune(RegionGrid{0.5, Vec3(0.0), {12, 12, 12}}) {}
};
/// Cells of 10 m: a scene packed into a 4 m corner lies in one region, with a few
/// boxes reaching the neighbours.
struct LargeRegions : RegionSweepAndPrune {
  LargeRegions() : RegionSweepAndPrune(RegionGrid{10.0, Vec3(0.0), {2, 2, 2}}) {}
};

}  // namespace

TEMPLATE_TEST_CASE("RegionSweepAndPrune: fast boxes larger than a region match brute force", "[broadphase]",
                   TinyRegions, SmallRegions) {
  // Speeds of up to a region or more per frame.
  run_scene<TestType>(
      {.box_m = 10, .spawn_m = 10, .max_speed_mpf = 0.8, .min_half_m = 0.3, .max_half_m = 1.5, .churn_per_frame = 2,
       .frames = 400},
      21);
}

TEST_CASE("RegionSweepAndPrune: faces on region borders match brute force", "[broadphase]") {
  run_scene<BorderRegions>(
      {.box_m = 6, .spawn_m = 6, .max_speed_mpf = 0.3, .min_half_m = 0.25, .max_half_m = 0.25, .grid_m = 0.25,
       .frames = 400},
      22);
}

TEST_CASE("RegionSweepAndPrune: all proxies in one region match brute force", "[broadphase]") {
  // A 9 m box: inside the first 10 m cell but for boxes reaching past 9.3 m.
  run_scene<LargeRegions>({.box_m = 9, .spawn_m = 4, .max_speed_mpf = 0.05, .frames = 400}, 23);
}

TEMPLATE_TEST_CASE("RegionSweepAndPrune: an infinite ground box matches brute force", "[broadphase]", SweepAndPrune,
                   SmallRegions, MiddleRegions, AutoRegions, TinyRegions) {
  // A ground at 5 m: a quarter of the boxes touch it.
  run_scene<TestType>({.max_speed_mpf = 0.2, .churn_per_frame = 1, .frames = 300, .ground_m = 5}, 24);
}

TEST_CASE("RegionSweepAndPrune: the automatic grid cuts a large world into regions", "[broadphase]") {
  RegionGrid grid;
  grid.proxies_per_region = 100;
  RegionSweepAndPrune regions(grid);
  Rng rng(25);
  for (int i = 0; i < 4000; ++i) {
    const Vec3 centre(rng.uniform(0, 60), rng.uniform(0, 2), rng.uniform(0, 60));  // a flat world
    regions.add({centre - 0.5, centre + 0.5});
  }
  const double inf = std::numeric_limits<double>::infinity();
  regions.add({Vec3(-inf), Vec3(inf, 0.0, inf)}, true);  // not part of the extent
  regions.update();
  // About 40 regions, cut in x and z only: the world is flatter than a cell.
  CHECK(regions.region_count() >= 20);
  CHECK(regions.region_count() <= 100);
  CHECK(regions.grid().cells[1] == 1);
  // The ground is in every region; some boxes are on borders.
  CHECK(regions.membership_count() > 4000 + static_cast<std::int64_t>(regions.region_count()));
}

TEST_CASE("RegionSweepAndPrune: a world that grows is cut again and matches brute force", "[broadphase]") {
  // 20 bodies, then 3 more every frame, churn besides: the automatic grid (25 per region)
  // is chosen for 20 and chosen again at 100 and 400.
  run_scene<AutoRegions>(
      {.count = 20, .max_speed_mpf = 0.2, .churn_per_frame = 1, .growth_per_frame = 3, .frames = 200}, 27);

  AutoRegions regions;
  Rng rng(28);
  std::vector<std::size_t> region_counts;
  for (int frame = 0; frame < 200; ++frame) {
    for (int c = 0; c < (frame == 0 ? 20 : 3); ++c) {
      const Vec3 centre(rng.uniform(0, 20), rng.uniform(0, 20), rng.uniform(0, 20));
      regions.add({centre - 0.5, centre + 0.5});
    }
    regions.update();
    region_counts.push_back(regions.region_count());
  }
  CHECK(region_counts.front() == 1);
  CHECK(region_counts.back() >= 8);
}

TEST_CASE("RegionSweepAndPrune: refuses a bad grid", "[broadphase]") {
  REQUIRE_THROWS_AS(RegionSweepAndPrune(RegionGrid{-1.0}), std::invalid_argument);
  REQUIRE_THROWS_AS(RegionSweepAndPrune(RegionGrid{std::numeric_limits<double>::infinity()}), std::invalid_argument);
  REQUIRE_THROWS_AS(RegionSweepAndPrune(RegionGrid{1.0, Vec3(0.0), {1, 0, 1}}), std::invalid_argument);
}

namespace {

struct ChangeCounts {
  std::size_t started = 0;  ///< after the first update
  std::size_t stopped = 0;
  std::size_t membership_changes = 0;  ///< updates whose memberships changed: boxes crossed into other cells
};

/// Runs `spec` on one, two and four threads, on one broad phase whose updates take turns
/// with four threads, two and none (so per-chunk scratch left by a larger pool meets a
/// smaller one), and on a single sweep, requiring the same lists and memberships every frame.
ChangeCounts compare_thread_counts(const SceneSpec& spec, std::uint64_t seed) {
  RegionGrid grid;
  grid.proxies_per_region = 50;
  grid.min_cell_over_box_side = 1;
  RegionSweepAndPrune serial(grid), two_threads(grid), four_threads(grid), taking_turns(grid);
  SweepAndPrune single;
  ThreadPool pool2(2), pool4(4);
  Rng rng(seed);
  std::vector<Body> bodies;
  auto add_body = [&] {
    Body b = random_body(spec, rng);
    b.id = serial.add(box_of(b), b.is_static);
    REQUIRE(two_threads.add(box_of(b), b.is_static) == b.id);
    REQUIRE(four_threads.add(box_of(b), b.is_static) == b.id);
    REQUIRE(taking_turns.add(box_of(b), b.is_static) == b.id);
    REQUIRE(single.add(box_of(b), b.is_static) == b.id);
    bodies.push_back(b);
  };
  for (int i = 0; i < spec.count; ++i) add_body();
  const auto same = [](std::span<const ProxyPair> a, std::span<const ProxyPair> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  };
  ChangeCounts counts;
  std::int64_t memberships_before = 0;
  for (int frame = 0; frame < spec.frames; ++frame) {
    if (frame > 0) {
      for (Body& b : bodies) {
        move(b, spec, rng);
        for (auto* bp : {&serial, &two_threads, &four_threads, &taking_turns}) bp->set_box(b.id, box_of(b));
        single.set_box(b.id, box_of(b));
      }
      for (int c = 0; c < 5; ++c) {
        const auto i = static_cast<std::size_t>(rng.below(bodies.size()));
        for (auto* bp : {&serial, &two_threads, &four_threads, &taking_turns}) bp->remove(bodies[i].id);
        single.remove(bodies[i].id);
        bodies.erase(bodies.begin() + static_cast<std::ptrdiff_t>(i));
      }
      for (int c = 0; c < 5; ++c) add_body();
    }
    serial.update();
    two_threads.update(&pool2);
    four_threads.update(&pool4);
    ThreadPool* const turns[] = {&pool4, &pool2, nullptr};
    taking_turns.update(turns[frame % 3]);
    single.update();
    INFO("frame " << frame);
    REQUIRE(serial.region_count() > 30);
    for (const RegionSweepAndPrune* bp : {&two_threads, &four_threads, &taking_turns}) {
      // A box that crosses a border almost always goes from one cell to two or back: a
      // crosser the chunked search missed would show here at once.
      REQUIRE(bp->membership_count() == serial.membership_count());
      REQUIRE(same(bp->pairs().current(), serial.pairs().current()));
      REQUIRE(same(bp->pairs().started(), serial.pairs().started()));
      REQUIRE(same(bp->pairs().stopped(), serial.pairs().stopped()));
      REQUIRE(bp->last_swap_count() == serial.last_swap_count());
    }
    REQUIRE(same(single.pairs().current(), serial.pairs().current()));
    REQUIRE(same(single.pairs().started(), serial.pairs().started()));
    REQUIRE(same(single.pairs().stopped(), serial.pairs().stopped()));
    if (frame > 0) {
      counts.started += serial.pairs().started().size();
      counts.stopped += serial.pairs().stopped().size();
      counts.membership_changes += serial.membership_count() != memberships_before;
    }
    memberships_before = serial.membership_count();
  }
  return counts;
}

}  // namespace

// The regions' sorts run as pool tasks and their reports are merged in region order, so the
// lists must be the same bytes for any thread count, and the same as the single sweep's.
TEST_CASE("RegionSweepAndPrune: 1, 2 and 4 threads give identical lists every frame", "[broadphase]") {
  const ChangeCounts changes =
      compare_thread_counts({.count = 3000, .box_m = 30, .spawn_m = 30, .max_speed_mpf = 0.3, .frames = 150}, 26);
  // The scene is busy enough to mean something.
  CHECK(changes.started > 5000);
  CHECK(changes.stopped > 5000);
}

// The passes over every proxy (which boxes crossed into other cells, the copy of the new
// boxes) run in chunks of at least 1,024 proxies, at most four a thread: 20,000 proxies are
// cut into 8 chunks on two threads and 16 on four, whose ends include ids the two-thread
// chunks run through.
TEST_CASE("RegionSweepAndPrune: 20,000 proxies cut into chunks give one thread's lists", "[broadphase]") {
  const ChangeCounts changes =
      compare_thread_counts({.count = 20000, .box_m = 55, .spawn_m = 55, .max_speed_mpf = 0.3, .frames = 12}, 27);
  // Every moving frame has boxes crossing borders, and pairs starting and stopping.
  CHECK(changes.membership_changes == 11);
  CHECK(changes.started > 1000);
  CHECK(changes.stopped > 1000);
}
