// The placements on the threads (prioritise/perceived_collision.hpp, fast_priority.hpp): the
// collisions cut into chunks over a ThreadPool, each chunk with its own placer, give the same
// bits as one placer on the caller's thread, at 2 and 4 threads, for every way a frame
// places them: at the frame's start (from last frame's memory), the fast placement for
// ordering, a hybrid's reprioritising from the deepest spheres, and at the frame's end.

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <vector>

#include "core/thread_pool.hpp"
#include "narrowphase/descent_memory.hpp"
#include "prioritise/fast_priority.hpp"
#include "prioritise/perceived_collision.hpp"
#include "schedule/scheduler.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

/// Every field a placement writes, of every collision in list order, as bits.
std::vector<std::uint64_t> placements(const NarrowPhase& narrowphase) {
  std::vector<std::uint64_t> out;
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    for (const double v : {c.centre_x_px, c.centre_y_px, c.gap_bound_m, c.eccentricity_deg, c.gap_deg, c.probability,
                           c.priority})
      out.push_back(std::bit_cast<std::uint64_t>(v));
    out.push_back(c.visible ? 1 : 0);
  }
  return out;
}

/// A packed world's collisions after a frame stopped part way (so some have deepest pairs,
/// some frontiers, some none) and a second frame, begun from its memory, stopped part way
/// too: what every placement below reads.
struct Placed {
  std::unique_ptr<Animation> world;
  NarrowPhase narrowphase;
  DescentMemory memory;

  Placed() : world(test::world_after(dense_rocks(), 5, 4)) {
    narrowphase = NarrowPhase(std::vector<CollisionModel>(world->narrowphase().models().begin(),
                                                          world->narrowphase().models().end()));
    narrowphase.sync(world->broadphase().pairs(), world->entities(), 0);
    const std::span<const EntityState> states = world->states();
    narrowphase.begin_frame(states);
    ScheduleSettings s;
    s.kind = SchedulerKind::round_robin;
    Budget budget = Budget::work(4000);
    make_scheduler(s)->run(narrowphase, budget);
    narrowphase.interrupt(InterruptPolicy::interpenetrate);
    memory.remember(narrowphase, states);
    narrowphase.begin_frame(states, &memory);
    Budget more = Budget::work(2500);
    make_scheduler(s)->run(narrowphase, more);
    narrowphase.interrupt(InterruptPolicy::repulse);  // the unresolved ones colliding, placed at the end
  }

  /// 1,500 rocks of 8 voxels in a 7 m box: a few thousand collisions, several chunks a thread.
  static AnimationSettings dense_rocks() {
    AnimationSettings s = test::world_of(Vec3(7.0), {test::rock_group({.count = 1500, .variants = 3, .resolution_voxels = 8})});
    s.response.entity_contacts = false;
    return s;
  }
};

}  // namespace

TEST_CASE("Placements on the threads: the same bits as on one thread, at 2 and 4 threads", "[schedule][threads]") {
  Placed scene;
  NarrowPhase& narrowphase = scene.narrowphase;
  const std::span<const EntityState> states = scene.world->states();
  INFO(narrowphase.size() << " collisions");
  REQUIRE(narrowphase.size() > 4 * 512);  // chunks of 512: several a thread at 4 threads
  const Viewing viewing{scene.world->view(), scene.world->perception_model(), 700, 400};

  // Each placement, run on `pool` (null: the caller's thread), into the bits it leaves.
  const auto start = [&](ThreadPool* pool) {
    perceive_at_frame_start(narrowphase, states, viewing, &scene.memory, pool);
    return placements(narrowphase);
  };
  const auto fast_order = [&](ThreadPool* pool) {
    perceive_at_frame_start(narrowphase, states, viewing, &scene.memory);
    const PriorityOptions options{true, &scene.memory, &scene.memory, pool};
    prioritise_at_frame_start(narrowphase, states, viewing, options);
    return placements(narrowphase);
  };
  const auto reprioritised = [&](ThreadPool* pool) {
    perceive_at_frame_start(narrowphase, states, viewing, &scene.memory);
    const PriorityOptions options{false, &scene.memory, &scene.memory, pool};
    prioritise_for_order(narrowphase, states, viewing, options, narrowphase.order(), true);
    return placements(narrowphase);
  };
  const auto end = [&](ThreadPool* pool) {
    perceive_at_frame_start(narrowphase, states, viewing, &scene.memory);
    perceive_at_frame_end(narrowphase, states, viewing, pool);
    return placements(narrowphase);
  };

  ThreadPool two(2), four(4);
  int kinds_checked = 0;
  for (const auto& place : {std::function<std::vector<std::uint64_t>(ThreadPool*)>(start), {fast_order}, {reprioritised}, {end}}) {
    INFO("placement " << kinds_checked);
    const std::vector<std::uint64_t> alone = place(nullptr);
    CHECK(place(&two) == alone);
    CHECK(place(&four) == alone);
    ++kinds_checked;
  }

  // The fields differ between the placements, so a placement that wrote nothing on the
  // threads would differ from the one before it: the checks above could fail.
  CHECK(start(nullptr) != end(nullptr));
  CHECK(start(nullptr) != fast_order(nullptr));
  std::int64_t colliding_tested = 0;
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    colliding_tested += c.status == CollisionStatus::colliding && c.tested_any ? 1 : 0;
  }
  CHECK(colliding_tested > 512);  // the end's placement runs over several chunks too
}
