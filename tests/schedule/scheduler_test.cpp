// The schedulers (schedule/scheduler.hpp): what each may and may not have touched when the
// budget runs out, checked on a packed world's collisions; through whole worlds, that every
// kind allocates nothing once warm; and that each kind's row of kSchedulerKinds
// (schedule/scheduler_kinds.hpp) says what its scheduler does.

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/rng.hpp"
#include "schedule/scheduler.hpp"
#include "frame/animation.hpp"
#include "prioritise/perceived_collision.hpp"
#include "narrowphase/descent_memory.hpp"
#include "support/allocation_counter.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

/// A packed world's collisions in a narrow phase of the test's own, with priorities drawn
/// at random (so the tests check the schedulers' logic, not the perception model's).
struct Scene {
  std::unique_ptr<Animation> world;
  NarrowPhase narrowphase;

  explicit Scene(std::uint64_t seed) : world(test::world_after(test::rocks_passing_through(), seed, 30)) {
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

bool resolved(const Collision* c) { return c->status != CollisionStatus::needs_more_work; }

}  // namespace

TEST_CASE("Schedulers: with no limit every scheduler resolves every collision the same way",
          "[schedule][scheduler]") {
  Scene scene(1);
  REQUIRE(scene.narrowphase.size() > 100);
  std::map<std::pair<EntityId, EntityId>, CollisionStatus> first;
  std::int64_t first_tests = -1;
  for (const SchedulerKindInfo& each : kSchedulerKinds) {
    const SchedulerKind kind = each.kind;
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
  for (const SchedulerKindInfo& each : kSchedulerKinds) {
    const SchedulerKind kind = each.kind;
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

namespace {

/// Checks a sequential order by `key`, highest first: every collision touched ranks at or
/// above every one untouched, at most one is part-way, and more than a few were touched.
template <class Key>
void check_sequential_by(const Scene& scene, Key key) {
  double lowest_touched = std::numeric_limits<double>::infinity();
  double highest_untouched = -std::numeric_limits<double>::infinity();
  int touched = 0, part_way = 0;
  for (const Collision* c : scene.collisions()) {
    if (c->sphere_tests > 0) {
      lowest_touched = std::min(lowest_touched, key(*c));
      ++touched;
      part_way += resolved(c) ? 0 : 1;
    } else {
      highest_untouched = std::max(highest_untouched, key(*c));
    }
  }
  CHECK(touched > 5);
  CHECK(part_way <= 1);
  CHECK(lowest_touched >= highest_untouched);
}

/// The collisions by priority, highest first, ties in list order: the ranks adaptive queues
/// band.
std::vector<const Collision*> by_priority(const Scene& scene) {
  std::vector<const Collision*> all = scene.collisions();
  std::stable_sort(all.begin(), all.end(), [](const Collision* x, const Collision* y) { return x->priority > y->priority; });
  return all;
}

/// A Reprioritiser that places nothing: it sets each collision's priority from a fixed
/// function of its pair, unrelated to the priorities the frame started with, and keeps the
/// slots it was asked about.
class FakeReprioritiser final : public Reprioritiser {
 public:
  static double priority_of(const Collision& c) {
    std::uint64_t z = ((static_cast<std::uint64_t>(c.a) << 32) | c.b) + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdull;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ull;
    z ^= z >> 33;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }
  void reprioritise(NarrowPhase& narrowphase, std::span<const std::uint32_t> slots) override {
    calls.emplace_back(slots.begin(), slots.end());
    for (const std::uint32_t slot : slots) narrowphase.collision(slot).priority = priority_of(narrowphase.collision(slot));
  }
  std::vector<std::vector<std::uint32_t>> calls;
};

}  // namespace

TEST_CASE("Schedulers: adaptive queues band by priority rank, each band as large as last frame resolved",
          "[schedule][scheduler]") {
  Scene scene(7);
  ScheduleSettings s;
  s.kind = SchedulerKind::adaptive_queues;
  s.queues = 3;
  const std::unique_ptr<Scheduler> scheduler = make_scheduler(s);
  const std::int64_t limit = scene.total_tests / 4;
  const std::size_t n = scene.narrowphase.size();
  // Every collision in the queue its rank gives with bands of `band`, and a queue touched
  // only once every queue above it is resolved.
  const auto check_frame = [&](std::size_t band) {
    const std::vector<const Collision*> ranked = by_priority(scene);
    std::size_t wrong = 0;
    for (std::size_t rank = 0; rank < ranked.size(); ++rank) {
      const auto expected = static_cast<std::int32_t>(std::min<std::size_t>(rank / band, 2));
      if (ranked[rank]->queue != expected) ++wrong;
    }
    INFO("band " << band << " of " << n << " collisions");
    CHECK(wrong == 0);
    for (int q = 1; q < 3; ++q) {
      bool lower_touched = false, higher_open = false;
      for (const Collision* c : ranked) {
        lower_touched = lower_touched || (c->queue == q && c->sphere_tests > 0);
        higher_open = higher_open || (c->queue < q && !resolved(c));
      }
      INFO("queue " << q);
      CHECK_FALSE((lower_touched && higher_open));
    }
  };
  const auto count_resolved = [&] {
    std::size_t count = 0;
    for (const Collision* c : scene.collisions()) count += resolved(c) ? 1 : 0;
    return count;
  };
  const auto count_in_queue_0 = [&] {
    std::size_t count = 0;
    for (const Collision* c : scene.collisions()) count += c->queue == 0 ? 1 : 0;
    return count;
  };

  // The first frame has no history: bands of one collision.
  scene.begin(17);
  scene.run(*scheduler, Budget::work(limit));
  {
    INFO("first frame");
    check_frame(1);
  }
  const std::size_t resolved_first = count_resolved();
  REQUIRE(resolved_first > 2);
  REQUIRE(resolved_first < n);

  // The same collisions and priorities again: queue 0 is the first frame's resolved count.
  scene.begin(17);
  scene.run(*scheduler, Budget::work(limit));
  {
    INFO("second frame");
    check_frame(resolved_first);
    CHECK(count_in_queue_0() == resolved_first);
  }

  // A frame that resolves everything: the next one's queue 0 takes every collision.
  scene.begin(17);
  scene.run(*scheduler, Budget::unlimited());
  CHECK(count_resolved() == n);
  scene.begin(17);
  scene.run(*scheduler, Budget::work(limit));
  {
    INFO("after a frame that resolved all");
    check_frame(n);
    CHECK(count_in_queue_0() == n);
  }
}

TEST_CASE("Schedulers: hybrid takes every collision its first levels in round robin, then goes by priority placed again",
          "[schedule][scheduler]") {
  Scene scene(8);
  scene.begin(19);
  const std::vector<std::vector<std::int64_t>> costs = scene.step_costs();
  const std::vector<std::uint32_t> order(scene.narrowphase.order().begin(), scene.narrowphase.order().end());
  const auto steps_needed = [&](std::uint32_t slot) { return costs[slot].size() - 1; };
  for (const int levels : {1, 2}) {
    INFO("hybrid_levels " << levels);
    ScheduleSettings s;
    s.kind = SchedulerKind::hybrid;
    s.hybrid_levels = levels;
    const auto first_steps = [&](std::uint32_t slot) { return std::min<std::size_t>(levels, steps_needed(slot)); };
    // What `levels` passes of round robin cost, and the collisions they leave active.
    std::int64_t passes = 0;
    std::vector<std::uint32_t> still_active;
    for (const std::uint32_t slot : order) {
      passes += costs[slot][first_steps(slot)];
      if (steps_needed(slot) > static_cast<std::size_t>(levels)) still_active.push_back(slot);
    }
    REQUIRE(still_active.size() > 20);
    REQUIRE(passes < scene.total_tests / 2);

    // Budgets that end inside the passes: no collision goes past them, no priority is asked.
    for (const std::int64_t limit : {passes / 2, passes - 1}) {
      scene.begin(19);
      FakeReprioritiser fake;
      scene.run(*make_scheduler(s), Budget::work(limit), ScheduleContext{0, &fake});
      INFO("budget " << limit << " of the passes' " << passes);
      CHECK(fake.calls.empty());
      std::size_t past = 0;
      for (const std::uint32_t slot : order)
        past += scene.narrowphase.collision(slot).sphere_tests > costs[slot][first_steps(slot)] ? 1 : 0;
      CHECK(past == 0);
    }

    // A budget past the passes, about a quarter of the rest.
    const std::int64_t limit = passes + (scene.total_tests - passes) / 4;
    scene.begin(19);
    FakeReprioritiser fake;
    scene.run(*make_scheduler(s), Budget::work(limit), ScheduleContext{0, &fake});
    // Every collision had its first levels (or all it needed) ...
    std::size_t short_of_passes = 0;
    for (const std::uint32_t slot : order)
      short_of_passes += scene.narrowphase.collision(slot).sphere_tests < costs[slot][first_steps(slot)] ? 1 : 0;
    CHECK(short_of_passes == 0);
    // ... then the priorities were asked once, for exactly the collisions still active ...
    REQUIRE(fake.calls.size() == 1);
    std::vector<std::uint32_t> asked = fake.calls[0];
    std::sort(asked.begin(), asked.end());
    std::vector<std::uint32_t> expected = still_active;
    std::sort(expected.begin(), expected.end());
    CHECK(asked == expected);
    // ... and the rest of the budget went sequentially by those priorities, highest first.
    double lowest_past = 2, highest_not_past = -1;
    int past = 0, part_way = 0;
    for (const std::uint32_t slot : still_active) {
      const Collision& c = scene.narrowphase.collision(slot);
      CHECK(c.priority == FakeReprioritiser::priority_of(c));
      if (c.sphere_tests > costs[slot][static_cast<std::size_t>(levels)]) {
        lowest_past = std::min(lowest_past, c.priority);
        ++past;
        part_way += resolved(&c) ? 0 : 1;
      } else {
        highest_not_past = std::max(highest_not_past, c.priority);
      }
    }
    CHECK(past > 5);
    CHECK(part_way <= 1);
    CHECK(lowest_past >= highest_not_past);
  }

  // A budget smaller than one pass: round robin's first pass, in list order, one step each.
  std::int64_t one_pass = 0;
  for (const std::uint32_t slot : order) one_pass += costs[slot][1];
  for (const int levels : {1, 2}) {
    ScheduleSettings s;
    s.kind = SchedulerKind::hybrid;
    s.hybrid_levels = levels;
    scene.begin(19);
    FakeReprioritiser fake;
    scene.run(*make_scheduler(s), Budget::work(one_pass / 2), ScheduleContext{0, &fake});
    INFO("hybrid_levels " << levels << ", budget " << one_pass / 2);
    CHECK(fake.calls.empty());
    std::size_t touched = 0, beyond_one_step = 0, gaps = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::int64_t tests = scene.narrowphase.collision(order[i]).sphere_tests;
      if (tests > costs[order[i]][1]) ++beyond_one_step;
      if (tests > 0 && touched < i) ++gaps;  // touched after an untouched one: not list order
      touched += tests > 0 ? 1 : 0;
    }
    CHECK(beyond_one_step == 0);
    CHECK(gaps == 0);
    CHECK(touched >= static_cast<std::size_t>(one_pass / 2) / 8);
  }
}

TEST_CASE("Schedulers: the oracle finishes collisions by their true priority", "[schedule][scheduler]") {
  Scene scene(9);
  scene.begin(23);
  scene.run(SchedulerKind::oracle, Budget::work(scene.total_tests / 4));
  check_sequential_by(scene, [](const Collision& c) { return c.true_priority; });
}

TEST_CASE("Schedulers: eccentricity finishes visible collisions nearest the fixation first, off-screen ones last",
          "[schedule][scheduler]") {
  Scene scene(10);
  const auto key = [](const Collision& c) {
    return c.visible ? -c.eccentricity_deg : -std::numeric_limits<double>::infinity();
  };
  scene.begin(29);
  scene.run(SchedulerKind::eccentricity, Budget::work(scene.total_tests / 4));
  check_sequential_by(scene, key);
  // Enough budget to reach the off-screen ones: every visible collision is resolved by then.
  scene.begin(29);
  scene.run(SchedulerKind::eccentricity, Budget::work(scene.total_tests * 9 / 10));
  check_sequential_by(scene, key);
  int off_screen_touched = 0, visible_open = 0;
  for (const Collision* c : scene.collisions()) {
    off_screen_touched += !c->visible && c->sphere_tests > 0 ? 1 : 0;
    visible_open += c->visible && !resolved(c) ? 1 : 0;
  }
  CHECK(off_screen_touched > 0);
  CHECK(visible_open == 0);
}

TEST_CASE("Schedulers: random is sequential in an order fixed by the seed and the frame, any collision first",
          "[schedule][scheduler]") {
  Scene scene(11);
  const std::int64_t limit = scene.total_tests / 4;
  // Each collision's tests after one frame of `seed`'s random scheduler at `frame`.
  const auto tests_of = [&](std::uint64_t seed, std::int64_t frame) {
    scene.begin(31);
    ScheduleSettings s;
    s.kind = SchedulerKind::random;
    scene.run(*make_scheduler(s, seed), Budget::work(limit), ScheduleContext{frame, nullptr});
    std::vector<std::int64_t> tests;
    for (const Collision* c : scene.collisions()) tests.push_back(c->sphere_tests);
    return tests;
  };
  const std::vector<std::int64_t> first = tests_of(5, 3);
  CHECK(first == tests_of(5, 3));   // the same seed and frame: the same order
  CHECK(first != tests_of(5, 4));   // another frame
  CHECK(first != tests_of(6, 3));   // another seed
  // Sequential: a run of resolved collisions, one part-way at most; not list order.
  std::size_t touched = 0, part_way = 0, prefix = 0;
  const std::vector<const Collision*> all = scene.collisions();
  tests_of(5, 3);
  for (const Collision* c : all) {
    touched += c->sphere_tests > 0 ? 1 : 0;
    part_way += c->sphere_tests > 0 && !resolved(c) ? 1 : 0;
  }
  while (prefix < all.size() && all[prefix]->sphere_tests > 0) ++prefix;
  CHECK(touched > 5);
  CHECK(part_way <= 1);
  CHECK(prefix < touched);

  // Over many frames every collision comes first at some frame: one test of budget touches
  // only the first.
  ScheduleSettings s;
  s.kind = SchedulerKind::random;
  const std::unique_ptr<Scheduler> scheduler = make_scheduler(s, 5);
  const std::size_t n = scene.narrowphase.size();
  std::set<std::pair<EntityId, EntityId>> firsts;
  for (std::int64_t frame = 0; frame < static_cast<std::int64_t>(20 * n); ++frame) {
    scene.narrowphase.begin_frame(scene.world->states());
    scene.run(*scheduler, Budget::work(1), ScheduleContext{frame, nullptr});
    int touched_now = 0;
    for (const std::uint32_t slot : scene.narrowphase.order()) {
      const Collision& c = scene.narrowphase.collision(slot);
      if (c.sphere_tests == 0) continue;
      ++touched_now;
      firsts.insert({c.a, c.b});
    }
    REQUIRE(touched_now == 1);
  }
  CHECK(firsts.size() == n);
}

TEST_CASE("Schedulers: every kind's frames allocate nothing once warm, coherence on and priorities refined",
          "[schedule][allocation]") {
  // Whole frames of a still world, as tests/narrowphase/descent_test.cpp counts them for
  // 004's four with neither: the memory, the refined placements and the hybrid's
  // FramePerception included. Not the kinds that read the exact voxel test's verdict (the
  // oracle): it needs ground truth, whose exact voxel test allocates as it goes
  // (metrics/exact_voxel_contact.cpp) whatever the scheduler; their schedulers alone are
  // counted below.
  for (const SchedulerKindInfo& each : kSchedulerKinds) {
    if (each.uses_true_priority) continue;
    const SchedulerKind kind = each.kind;
    AnimationSettings settings = test::still_packed_rocks();
    settings.schedule.kind = kind;
    settings.schedule.priorities = PriorityGap::refined;
    settings.narrowphase.coherence = true;
    settings.budget.tests = 800;  // frames interrupted, coherence or not
    settings.interrupt_policy = InterruptPolicy::interpenetrate;  // no repulsion moves the still world
    const std::unique_ptr<Animation> world = test::world_after(settings, 3, 3);
    const long before = test::allocations();
    FrameStats stats;
    std::int64_t interrupted = 0;
    for (int i = 0; i < 20; ++i) {
      stats = world->step();
      interrupted += stats.metrics.interrupted;
    }
    const long allocations = test::allocations() - before;  // read before INFO allocates
    INFO("scheduler " << scheduler_name(kind));
    CHECK(allocations == 0);
    CHECK(stats.collisions > 100);
    CHECK(interrupted > 0);
  }

  // Each kind's scheduler on its own, the oracle included, as a frame runs it: coherence
  // from its own memory, priorities placed from it (perceive_at_frame_start, FramePerception
  // for the hybrid), random budgets that leave interrupted frontiers in the memory.
  Scene scene(12);
  NarrowPhaseSettings coherent;
  coherent.coherence = true;
  scene.narrowphase.set_settings(coherent);
  const std::span<const EntityState> states = scene.world->states();
  const Viewing viewing{scene.world->view(), scene.world->perception_model(), 900, 500};
  for (const SchedulerKindInfo& each : kSchedulerKinds) {
    const SchedulerKind kind = each.kind;
    ScheduleSettings s;
    s.kind = kind;
    const std::unique_ptr<Scheduler> scheduler = make_scheduler(s, 4);
    DescentMemory memory;
    Rng rng(static_cast<std::uint64_t>(kind));
    long allocations = 0;
    std::int64_t interrupted = 0;
    for (std::int64_t frame = 0; frame < 25; ++frame) {
      const long before = test::allocations();
      scene.narrowphase.begin_frame(states, &memory);
      perceive_at_frame_start(scene.narrowphase, states, viewing, &memory);
      for (const std::uint32_t slot : scene.narrowphase.order()) scene.narrowphase.collision(slot).true_priority = rng.uniform();
      FramePerception perception(states, viewing, &memory);
      // The warm-up frames run to the end: the pool grows to a whole frame's hits.
      Budget budget = frame < 3 ? Budget::unlimited()
                                : Budget::work(static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(scene.total_tests))));
      scheduler->run(scene.narrowphase, budget, ScheduleContext{frame, &perception});
      scene.narrowphase.interrupt(InterruptPolicy::repulse);
      memory.remember(scene.narrowphase, states);
      if (frame >= 5) allocations += test::allocations() - before;
      for (const std::uint32_t slot : scene.narrowphase.order()) interrupted += scene.narrowphase.collision(slot).interrupted ? 1 : 0;
    }
    INFO("scheduler " << scheduler_name(kind));
    CHECK(allocations == 0);
    CHECK(interrupted > 0);
  }
}

TEST_CASE("Schedulers: each row's factory makes a scheduler of its kind that asks the frame for what the row says",
          "[schedule][scheduler]") {
  for (const SchedulerKindInfo& each : kSchedulerKinds) {
    INFO(each.name);
    ScheduleSettings s;
    s.kind = each.kind;
    const std::unique_ptr<Scheduler> scheduler = make_scheduler(s, 1);
    CHECK(scheduler->kind() == each.kind);
    CHECK(scheduler->uses_priority() == each.uses_priority);
    CHECK(scheduler->uses_true_priority() == each.uses_true_priority);
    CHECK(std::string(scheduler_name(each.kind)) == each.name);
  }
  CHECK_THROWS_AS(scheduler_kind_info(static_cast<SchedulerKind>(kSchedulerKinds.size())), std::invalid_argument);
}

TEST_CASE("Schedulers: only the kinds whose row says they remember carry anything from one frame to the next",
          "[schedule][scheduler]") {
  // A second frame run by a scheduler that ran a first one, against the same frame run by a
  // new scheduler: the same work per collision unless the kind remembers (adaptive queues'
  // bands are as large as what the last frame resolved).
  Scene scene(13);
  const std::int64_t limit = scene.total_tests / 4;
  for (const SchedulerKindInfo& each : kSchedulerKinds) {
    INFO(each.name);
    ScheduleSettings s;
    s.kind = each.kind;
    const std::unique_ptr<Scheduler> warm = make_scheduler(s, 2);
    scene.begin(5);
    scene.run(*warm, Budget::work(limit));
    scene.begin(6);
    scene.run(*warm, Budget::work(limit));
    std::vector<std::int64_t> after_warm;
    for (const Collision* c : scene.collisions()) after_warm.push_back(c->sphere_tests);
    scene.begin(6);
    scene.run(*make_scheduler(s, 2), Budget::work(limit));
    std::vector<std::int64_t> after_new;
    for (const Collision* c : scene.collisions()) after_new.push_back(c->sphere_tests);
    CHECK((after_warm != after_new) == each.remembers);
  }
}
