// The narrow phase's per-collision bookkeeping on the threads: the placements
// (prioritise/perceived_collision.hpp, fast_priority.hpp), NarrowPhase::begin_frame and
// DescentMemory::remember. The collisions cut into chunks over a ThreadPool give the same
// bits as on the caller's thread alone, at 2 and 4 threads: the placements every way a frame
// places them (at the frame's start from last frame's memory, the fast placement for
// ordering, a hybrid's reprioritising from the deepest spheres, at the frame's end), the
// restarted descents and the memory kept.

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

/// Overwrites every field the placements write (`descents`: and every field begin_frame
/// writes) with values none of them writes, so a run that left a collision alone would show.
/// The placements read the descents' state, so it is left alone for them.
void scramble(NarrowPhase& narrowphase, bool descents = false) {
  for (const std::uint32_t slot : narrowphase.order()) {
    Collision& c = narrowphase.collision(slot);
    c.centre_x_px = c.centre_y_px = c.gap_bound_m = c.eccentricity_deg = c.gap_deg = c.probability = c.priority = -7.5;
    c.visible = true;
    if (!descents) continue;
    c.b_to_a_rotation = Mat3(0.0);
    c.b_to_a_offset_m = c.overlap.lo_m = c.overlap.hi_m = c.overlap.half_m = Vec3(99.0);
    c.status = CollisionStatus::colliding;
    c.interrupted = true;
    c.levels_done = 77;
    c.tested_any = true;
    c.witness_target = SpherePair{12345, 54321};
  }
}

/// A packed world's collisions after a frame stopped part way (so some have deepest pairs,
/// some frontiers, some none) and a second frame, begun from its memory, stopped part way
/// too: what every placement below reads.
struct Placed {
  std::unique_ptr<Animation> world;
  NarrowPhase narrowphase;
  DescentMemory memory;

  Placed() : world(test::world_after(dense_rocks(), 5, 3)) {
    narrowphase = NarrowPhase(std::vector<CollisionModel>(world->narrowphase().models().begin(),
                                                          world->narrowphase().models().end()));
    narrowphase.sync(world->broadphase().pairs(), world->entities(), 0);
    const std::span<const EntityState> states = world->states();
    narrowphase.begin_frame(states);
    ScheduleSettings s;
    s.kind = SchedulerKind::round_robin;
    Budget budget = Budget::work(16000);
    make_scheduler(s)->run(narrowphase, budget);
    narrowphase.interrupt(InterruptPolicy::interpenetrate);
    memory.remember(narrowphase, states);
    narrowphase.begin_frame(states, &memory);
    Budget more = Budget::work(10000);
    make_scheduler(s)->run(narrowphase, more);
    narrowphase.interrupt(InterruptPolicy::repulse);  // the unresolved ones colliding, placed at the end
  }

  /// 9,000 rocks of 8 voxels in a 12.6 m box: enough collisions, and enough of them colliding
  /// at the end, that chunks of 512 split them differently at 2 threads (8 chunks, ThreadPool's
  /// cap of four a thread) and at 4 (more): the checks below say so.
  static AnimationSettings dense_rocks() {
    AnimationSettings s = test::world_of(Vec3(12.6), {test::rock_group({.count = 9000, .variants = 3, .resolution_voxels = 8})});
    s.response.entity_contacts = false;
    return s;
  }
};

/// The bits of a double.
std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

/// What begin_frame writes of every collision, in list order, as bits.
std::vector<std::uint64_t> restarted(const NarrowPhase& narrowphase) {
  std::vector<std::uint64_t> out;
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) out.push_back(bits(c.b_to_a_rotation[i][j]));
      for (const Vec3& v : {c.b_to_a_offset_m, c.overlap.lo_m, c.overlap.hi_m, c.overlap.half_m}) out.push_back(bits(v[i]));
    }
    out.insert(out.end(), {static_cast<std::uint64_t>(c.status), c.interrupted, static_cast<std::uint64_t>(c.levels_done), c.tested_any,
                           static_cast<std::uint64_t>(c.witness), c.witness_target.node_a, c.witness_target.node_b,
                           c.hits_begin, c.hits_end});
  }
  return out;
}

/// What `memory` holds of every collision, in list order, as bits.
std::vector<std::uint64_t> remembered(const DescentMemory& memory, const NarrowPhase& narrowphase) {
  std::vector<std::uint64_t> out;
  for (const std::uint32_t slot : narrowphase.order()) {
    const RememberedDescent* r = memory.recall(slot, narrowphase.collision(slot));
    REQUIRE(r != nullptr);
    const SpherePairGeometry& d = r->deepest;
    out.insert(out.end(), {r->has_witness, r->witness.node_a, r->witness.node_b, r->has_deepest, bits(r->unnoticed),
                           bits(d.radius_a_m), bits(d.radius_b_m), bits(d.gap_slack_a_m), bits(d.gap_slack_b_m)});
    for (int i = 0; i < 3; ++i) out.insert(out.end(), {bits(d.centre_a_m[i]), bits(d.centre_b_m[i])});
  }
  return out;
}

}  // namespace

TEST_CASE("Placements on the threads: the same bits as on one thread, at 2 and 4 threads", "[schedule][threads]") {
  Placed scene;
  NarrowPhase& narrowphase = scene.narrowphase;
  const std::span<const EntityState> states = scene.world->states();
  INFO(narrowphase.size() << " collisions");
  // Over 8 chunks' worth: 8 chunks at 2 threads (ThreadPool's cap of four a thread), more at 4.
  REQUIRE(narrowphase.size() > 9 * kCollisionsPerTask);
  const Viewing viewing{scene.world->view(), scene.world->perception_model(), 700, 400};

  // Each placement, run on `pool` (null: the caller's thread), into the bits it leaves.
  const auto start = [&](ThreadPool* pool) {
    scramble(narrowphase);
    perceive_at_frame_start(narrowphase, states, viewing, &scene.memory, pool);
    return placements(narrowphase);
  };
  const auto fast_order = [&](ThreadPool* pool) {
    scramble(narrowphase);
    perceive_at_frame_start(narrowphase, states, viewing, &scene.memory);
    const PriorityOptions options{true, &scene.memory, &scene.memory, pool};
    prioritise_at_frame_start(narrowphase, states, viewing, options);
    return placements(narrowphase);
  };
  const auto reprioritised = [&](ThreadPool* pool) {
    scramble(narrowphase);
    perceive_at_frame_start(narrowphase, states, viewing, &scene.memory);
    const PriorityOptions options{false, &scene.memory, &scene.memory, pool};
    prioritise_for_order(narrowphase, states, viewing, options, narrowphase.order(), true);
    return placements(narrowphase);
  };
  const auto end = [&](ThreadPool* pool) {
    scramble(narrowphase);
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
  std::size_t colliding_tested = 0;
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    colliding_tested += c.status == CollisionStatus::colliding && c.tested_any ? 1 : 0;
  }
  CHECK(colliding_tested > 9 * kCollisionsPerTask);  // the end's placement split differently at 2 and 4 too
}

TEST_CASE("Restarting descents and remembering them on the threads: the same bits as on one thread, at 2 and 4 threads",
          "[schedule][threads]") {
  Placed scene;
  NarrowPhase& narrowphase = scene.narrowphase;
  const std::span<const EntityState> states = scene.world->states();
  NarrowPhaseSettings pruned_and_coherent;
  pruned_and_coherent.coherence = true;  // witnesses read from the memory
  pruned_and_coherent.prune_to_overlap = true;
  narrowphase.set_settings(pruned_and_coherent);
  ThreadPool two(2), four(4);

  // The memory of the frame the scene stopped part way, into an empty memory (a collision a
  // chunk skipped would be missing: recall would answer null) and in place.
  const auto remember = [&](ThreadPool* pool, bool aged) {
    DescentMemory memory;
    memory.remember(narrowphase, states, &scene.memory, aged, pool);
    DescentMemory in_place = scene.memory;
    in_place.remember(narrowphase, states, nullptr, aged, pool);  // earlier = itself, overwritten as it goes
    std::vector<std::uint64_t> out = remembered(memory, narrowphase);
    const std::vector<std::uint64_t> second = remembered(in_place, narrowphase);
    out.insert(out.end(), second.begin(), second.end());
    return out;
  };
  for (const bool aged : {false, true}) {
    INFO("aged " << aged);
    const std::vector<std::uint64_t> alone = remember(nullptr, aged);
    CHECK(remember(&two, aged) == alone);
    CHECK(remember(&four, aged) == alone);
  }

  const auto restart = [&](ThreadPool* pool) {
    scramble(narrowphase, true);
    narrowphase.begin_frame(states, &scene.memory, pool);
    return restarted(narrowphase);
  };
  const std::vector<std::uint64_t> alone = restart(nullptr);
  CHECK(restart(&two) == alone);
  CHECK(restart(&four) == alone);
  std::size_t witnesses = 0;
  for (const std::uint32_t slot : narrowphase.order()) witnesses += narrowphase.collision(slot).witness == WitnessState::pending;
  CHECK(witnesses > 8 * kCollisionsPerTask);  // coherence's part ran over several chunks
}
