// The schedulers (schedule/scheduler.hpp): what each may and may not have touched when the
// budget runs out, checked on a packed world's collisions.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "core/rng.hpp"
#include "schedule/scheduler.hpp"
#include "frame/animation.hpp"

using namespace fovea;

namespace {

/// A packed world's collisions in a narrow phase of the test's own, with priorities drawn
/// at random (so the tests check the schedulers' logic, not the perception model's).
struct Scene {
  std::unique_ptr<Animation> world;
  NarrowPhase narrowphase;

  explicit Scene(std::uint64_t seed) {
    WorldSettings w;
    w.box_size_m = {5, 5, 5};
    EntityGroupSettings rocks;
    rocks.count = 300;
    rocks.model.shape = Shape::rock;
    rocks.model.resolution_voxels = 12;
    rocks.model.variants = 4;
    rocks.placement = Placement::packed;
    w.entities = {rocks};
    AnimationSettings settings;
    settings.world = w;
    settings.response.entity_contacts = false;
    world = std::make_unique<Animation>(settings, seed);
    // Packing places entities apart; a few frames of motion with no response between
    // entities let some pass into each other, so both outcomes occur.
    for (int i = 0; i < 30; ++i) world->step();
    narrowphase = NarrowPhase(std::vector<CollisionModel>(world->narrowphase().models().begin(),
                                                          world->narrowphase().models().end()));
    narrowphase.sync(world->broadphase().pairs(), world->entities(), 0);
    begin(0);
    total_tests = run(SchedulerKind::sequential, Budget::unlimited());
  }
  std::int64_t total_tests = 0;  ///< sphere tests to resolve every collision
  /// Starts a frame: every collision active, priorities in [0, 1) from `seed`. The other
  /// keys a scheduler may order by come from streams of their own, independent of the
  /// priorities: the oracle's true priority in [0, 1), and a placement on screen (four in
  /// five visible, eccentricities in [0, 40) degrees, off-screen ones too).
  void begin(std::uint64_t seed) {
    narrowphase.begin_frame(world->states());
    Rng rng(seed);
    Rng truth(seed, 1);
    Rng place(seed, 2);
    for (const std::uint32_t slot : narrowphase.order()) {
      Collision& c = narrowphase.collision(slot);
      c.priority = rng.uniform();
      c.true_priority = truth.uniform();
      c.visible = place.uniform() < 0.8;
      c.eccentricity_deg = place.uniform(0, 40);
    }
  }
  /// Runs `kind` with `budget`; returns the total sphere tests.
  std::int64_t run(SchedulerKind kind, Budget budget, const std::vector<double>& edges = {0.5, 0.1}) {
    ScheduleSettings s;
    s.kind = kind;
    s.queues = static_cast<int>(edges.size()) + 1;
    s.band_edges = edges;
    make_scheduler(s)->run(narrowphase, budget);
    return narrowphase.sphere_tests();
  }
  /// Runs `scheduler` with `budget` and `context`; returns the total sphere tests.
  std::int64_t run(Scheduler& scheduler, Budget budget, const ScheduleContext& context = {}) {
    scheduler.run(narrowphase, budget, context);
    return narrowphase.sphere_tests();
  }
  /// Each collision's sphere tests after each of its steps, run alone to the end with no
  /// limit, by slot: [0] is 0, [k] the tests after k steps, the last its whole descent. A
  /// collision's own descent does not depend on the order, so its tests say how many of its
  /// steps a scheduler gave it. Leaves the collisions resolved: begin() again after.
  std::vector<std::vector<std::int64_t>> step_costs() {
    std::vector<std::vector<std::int64_t>> costs(narrowphase.slot_count());
    Budget unlimited = Budget::unlimited();
    for (const std::uint32_t slot : narrowphase.order()) {
      std::vector<std::int64_t>& c = costs[slot];
      c.push_back(0);
      for (;;) {
        const CollisionStatus status = narrowphase.step(slot, unlimited);
        c.push_back(narrowphase.collision(slot).sphere_tests);
        if (status != CollisionStatus::needs_more_work) break;
      }
    }
    return costs;
  }
  std::vector<const Collision*> collisions() const {
    std::vector<const Collision*> out;
    for (const std::uint32_t slot : narrowphase.order()) out.push_back(&narrowphase.collision(slot));
    return out;
  }
};

constexpr SchedulerKind kAll[] = {SchedulerKind::round_robin,     SchedulerKind::sequential,
                                  SchedulerKind::sorted_sequential, SchedulerKind::priority_queues,
                                  SchedulerKind::adaptive_queues,   SchedulerKind::hybrid,
                                  SchedulerKind::oracle,            SchedulerKind::eccentricity,
                                  SchedulerKind::random};

bool resolved(const Collision* c) { return c->status != CollisionStatus::needs_more_work; }

}  // namespace

TEST_CASE("Schedulers: with no limit every scheduler resolves every collision the same way",
          "[schedule][scheduler]") {
  Scene scene(1);
  REQUIRE(scene.narrowphase.size() > 100);
  std::map<std::pair<EntityId, EntityId>, CollisionStatus> first;
  std::int64_t first_tests = -1;
  for (const SchedulerKind kind : kAll) {
    scene.begin(7);
    const std::int64_t tests = scene.run(kind, Budget::unlimited());
    INFO(scheduler_name(kind));
    int colliding = 0;
    for (const Collision* c : scene.collisions()) {
      REQUIRE(resolved(c));
      colliding += c->status == CollisionStatus::colliding;
      const auto key = std::make_pair(c->a, c->b);
      if (first.count(key) != 0) {
        CHECK(first[key] == c->status);
      } else {
        first[key] = c->status;
      }
    }
    CHECK(colliding > 0);
    CHECK(colliding < static_cast<int>(scene.narrowphase.size()));
    // The order changes nothing about a collision's own descent, so the work is the same.
    if (first_tests < 0) first_tests = tests;
    CHECK(tests == first_tests);
  }
}

TEST_CASE("Schedulers: a work budget is spent to within one sphere hit, and not beyond", "[schedule][budget]") {
  Scene scene(2);
  for (const SchedulerKind kind : kAll) {
    REQUIRE(scene.total_tests > 2000);
    for (const std::int64_t limit : {std::int64_t{0}, std::int64_t{1}, std::int64_t{17}, scene.total_tests / 10,
                                     scene.total_tests / 2}) {
      scene.begin(3);
      const std::int64_t tests = scene.run(kind, Budget::work(limit));
      INFO(scheduler_name(kind) << ", budget " << limit);
      CHECK(tests >= limit);
      CHECK(tests < limit + 8);
    }
  }
}

TEST_CASE("Schedulers: round robin takes every collision one level before any goes two", "[schedule][scheduler]") {
  Scene scene(3);
  scene.begin(1);
  const auto n = static_cast<std::int64_t>(scene.narrowphase.size());
  // One root test per collision is exactly the first pass.
  scene.run(SchedulerKind::round_robin, Budget::work(n));
  for (const Collision* c : scene.collisions()) {
    CHECK(c->sphere_tests == 1);
    CHECK(c->levels_done <= 1);
  }
  // A larger budget: no collision is ever more than one level ahead of another still active.
  scene.begin(1);
  scene.run(SchedulerKind::round_robin, Budget::work(6 * n));
  int least = 1 << 30, most = 0;
  for (const Collision* c : scene.collisions()) {
    if (resolved(c)) continue;
    least = std::min(least, c->levels_done);
    most = std::max(most, c->levels_done);
  }
  CHECK(most - least <= 1);
}

TEST_CASE("Schedulers: sequential finishes collisions in list order", "[schedule][scheduler]") {
  Scene scene(4);
  scene.begin(1);
  scene.run(SchedulerKind::sequential, Budget::work(scene.total_tests / 4));
  const auto all = scene.collisions();
  // A resolved prefix, at most one collision part-way, and the rest untouched.
  std::size_t i = 0;
  while (i < all.size() && resolved(all[i])) ++i;
  CHECK(i > 5);
  REQUIRE(i < all.size());
  for (std::size_t j = i + 1; j < all.size(); ++j) CHECK(all[j]->sphere_tests == 0);
}

TEST_CASE("Schedulers: sorted sequential finishes collisions by priority", "[schedule][scheduler]") {
  Scene scene(5);
  scene.begin(11);
  scene.run(SchedulerKind::sorted_sequential, Budget::work(scene.total_tests / 4));
  double lowest_touched = 2, highest_untouched = -1;
  int touched = 0;
  for (const Collision* c : scene.collisions()) {
    if (c->sphere_tests > 0) {
      lowest_touched = std::min(lowest_touched, c->priority);
      ++touched;
    } else {
      highest_untouched = std::max(highest_untouched, c->priority);
    }
  }
  CHECK(touched > 5);
  CHECK(lowest_touched >= highest_untouched);
}

TEST_CASE("Schedulers: priority queues assign bands and serve a queue only when the ones above are resolved",
          "[schedule][scheduler]") {
  Scene scene(6);
  const std::vector<double> edges = {0.8, 0.5, 0.2};
  for (const std::int64_t limit : {scene.total_tests / 10, scene.total_tests / 3, 2 * scene.total_tests / 3}) {
    scene.begin(13);
    // Priorities exactly on the edges belong to the higher queue.
    const auto order = scene.narrowphase.order();
    scene.narrowphase.collision(order[0]).priority = 0.8;
    scene.narrowphase.collision(order[1]).priority = 0.5;
    scene.narrowphase.collision(order[2]).priority = 0.2;
    scene.narrowphase.collision(order[3]).priority = -1;  // off screen
    scene.run(SchedulerKind::priority_queues, Budget::work(limit), edges);
    CHECK(scene.narrowphase.collision(order[0]).queue == 0);
    CHECK(scene.narrowphase.collision(order[1]).queue == 1);
    CHECK(scene.narrowphase.collision(order[2]).queue == 2);
    CHECK(scene.narrowphase.collision(order[3]).queue == 3);
    const auto all = scene.collisions();
    for (const Collision* c : all) {
      const int expected = c->priority >= 0.8 ? 0 : c->priority >= 0.5 ? 1 : c->priority >= 0.2 ? 2 : 3;
      CHECK(c->queue == expected);
    }
    for (int q = 1; q < 4; ++q) {
      bool lower_touched = false, higher_open = false;
      for (const Collision* c : all) {
        lower_touched = lower_touched || (c->queue == q && c->sphere_tests > 0);
        higher_open = higher_open || (c->queue < q && !resolved(c));
      }
      INFO("budget " << limit << ", queue " << q);
      CHECK_FALSE((lower_touched && higher_open));
    }
  }
}

TEST_CASE("Schedulers: band edges must fit the queues", "[schedule][settings]") {
  ScheduleSettings s;
  CHECK(check_schedule_settings(s).empty());
  s.queues = 4;
  CHECK_THAT(check_schedule_settings(s), Catch::Contains("need 3 band edges"));
  s.band_edges = {0.5, 0.6, 0.1};
  CHECK_THAT(check_schedule_settings(s), Catch::Contains("decrease"));
  s.band_edges = {1.5, 0.6, 0.1};
  CHECK_THAT(check_schedule_settings(s), Catch::Contains("[0, 1]"));
  s.kind = SchedulerKind::priority_queues;
  CHECK_THROWS_AS(make_scheduler(s), std::invalid_argument);
}
