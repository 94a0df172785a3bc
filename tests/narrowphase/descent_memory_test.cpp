// DescentMemory (narrowphase/descent_memory.hpp) on trees grown on demand (001), against its
// oracle, the same trees built whole: what it remembers of a collision's tightest sphere
// pair is the pair's geometry, so the refined priority (PriorityGap::refined) it gives is the
// whole tree's bit for bit, and evicting the pair's nodes between frames changes nothing.

#include <catch2/catch.hpp>

#include <cstring>

#include "core/rng.hpp"
#include "frame/animation.hpp"
#include "narrowphase/descent_memory.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "support/bodies.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

/// 120 packed rocks under a work budget short enough to interrupt most frames, sorted by
/// refined priorities; with `on_demand` their trees grow as needed and a branch idle for 2
/// frames is evicted, so remembered pairs' nodes go and their indices are reused.
AnimationSettings refined_rocks(bool on_demand, SchedulerKind kind) {
  EntityGroupSettings rocks =
      test::rock_group({.count = 120, .variants = 3, .resolution_voxels = 12, .size_m = 0.5, .name = "rocks"});
  rocks.sphere_tree.on_demand = on_demand;
  rocks.sphere_tree.evict_after_frames = 2;
  AnimationSettings s = test::world_of(Vec3(4.0), {rocks});
  s.budget.mode = BudgetMode::work;
  s.budget.tests = 600;
  s.schedule.kind = kind;
  s.schedule.priorities = PriorityGap::refined;
  s.gaze.source = GazeSourceKind::scripted;
  return s;
}

bool same_bytes(std::span<const EntityState> a, std::span<const EntityState> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

}  // namespace

TEST_CASE("DescentMemory: on on-demand trees the refined priorities are the whole trees', frame after frame",
          "[narrowphase][descent_memory][on_demand][oracle]") {
  // The hybrid reads the memory twice: at the frame's start and when it places the rest again
  // (FramePerception::reprioritise).
  for (const SchedulerKind kind : {SchedulerKind::sorted_sequential, SchedulerKind::hybrid}) {
    INFO(scheduler_name(kind));
    Animation whole(refined_rocks(false, kind), 3);
    Animation lazy(refined_rocks(true, kind), 3);
    std::int64_t evicted = 0, interrupted = 0, visible = 0, refined = 0;
    for (int frame = 0; frame < 120; ++frame) {
      INFO("frame " << frame);
      const FrameStats w = whole.step();
      const FrameStats l = lazy.step();
      REQUIRE(w.collisions == l.collisions);
      REQUIRE(w.sphere_tests == l.sphere_tests);
      const NarrowPhase& wn = whole.narrowphase();
      const NarrowPhase& ln = lazy.narrowphase();
      for (std::size_t i = 0; i < wn.order().size(); ++i) {
        const Collision& cw = wn.collision(wn.order()[i]);
        const Collision& cl = ln.collision(ln.order()[i]);
        REQUIRE(cw.a == cl.a);
        REQUIRE(cw.b == cl.b);
        REQUIRE(cw.priority == cl.priority);  // bit for bit: the same bound, the same f
        REQUIRE(cw.status == cl.status);
        visible += cl.priority >= 0 ? 1 : 0;
        // Placed at the frame's end from its own spheres only when resolved colliding; any
        // other keeps the start's bound, which the remembered pair made tighter than the
        // entities' centres give (the records read the same poses the frame saw).
        if (cl.status != CollisionStatus::colliding || !cl.tested_any)
          refined += cl.gap_bound_m < ln.initial_gap_estimate(ln.order()[i], lazy.states()).bound_m ? 1 : 0;
      }
      REQUIRE(same_bytes(whole.states(), lazy.states()));
      evicted += l.tree_nodes_evicted;
      interrupted += l.metrics.interrupted;
    }
    CHECK(interrupted > 300);  // the budget was short: the order mattered
    CHECK(visible > 2000);     // and the priorities ordered collisions on screen
    CHECK(evicted > 500);      // remembered pairs' branches went between frames
    CHECK(refined > 1000);     // the memory engaged on the on-demand trees
  }
}

TEST_CASE("DescentMemory: evicting a remembered pair's nodes changes neither its bound nor the whole tree's",
          "[narrowphase][descent_memory][on_demand][eviction][oracle]") {
  Rng rng(40);
  int remembered = 0, nodes_reused = 0;
  for (int trial = 0; trial < 200; ++trial) {
    INFO("trial " << trial);
    const auto [a, b] = test::random_posed_duo(rng, [&](std::uint64_t salt) {
      return test::make_body(test::kBodyShapes[rng.below(5)], 8 + static_cast<int>(rng.below(10)), salt, 4, true);
    });
    test::Duo whole(a, b);
    test::Duo lazy(a, b, {true, true});
    // Up to the whole descent: interrupted frontiers and leaf pairs alike.
    const std::int64_t tests = static_cast<std::int64_t>(rng.below(60));
    Budget budget_whole = Budget::work(tests), budget_lazy = Budget::work(tests);
    whole.run(budget_whole);
    lazy.run(budget_lazy);
    whole.narrowphase.interrupt(InterruptPolicy::repulse);
    lazy.narrowphase.interrupt(InterruptPolicy::repulse);
    DescentMemory whole_memory, lazy_memory;
    whole_memory.remember(whole.narrowphase, whole.states);
    lazy_memory.remember(lazy.narrowphase, lazy.states);
    const RememberedDescent* w = whole_memory.recall(whole.slot(), whole.collision());
    const RememberedDescent* l = lazy_memory.recall(lazy.slot(), lazy.collision());
    REQUIRE(w != nullptr);
    REQUIRE(l != nullptr);
    REQUIRE(w->has_deepest == l->has_deepest);
    if (!l->has_deepest) continue;
    ++remembered;
    CHECK_FALSE(l->has_witness);  // coherence is whole-tree-only
    SpherePair deepest;
    REQUIRE(lazy.narrowphase.deepest_pair(lazy.slot(), deepest));
    const double nodes_bound_m = lazy.narrowphase.pair_gap_estimate(lazy.slot(), lazy.states, deepest).bound_m;
    const SpherePairGeometry before = lazy.narrowphase.pair_geometry(lazy.slot(), deepest);

    // Between frames: every branch is evicted (idle past 120 frames), then b moves to a's
    // other side and the next frame grows what its descent needs there into the freed runs.
    lazy.narrowphase.evict_idle(1000);
    CHECK(lazy.narrowphase.grown_nodes() == 2);  // the roots alone
    lazy.states[1].position_m = 2.0 * a.state.position_m - b.state.position_m;
    lazy.narrowphase.begin_frame(lazy.states, &lazy_memory);
    lazy.run_to_end();
    const SpherePairGeometry now = lazy.narrowphase.pair_geometry(lazy.slot(), deepest);
    nodes_reused += std::memcmp(&now, &before, sizeof now) != 0 ? 1 : 0;

    // Recalled after all that, at the first frame's poses: the bound of the nodes it came
    // from, and the whole tree's remembered bound, to the bit.
    lazy.states[1] = b.state;
    const RememberedDescent* recalled = lazy_memory.recall(lazy.slot(), lazy.collision());
    REQUIRE(recalled != nullptr);
    const GapEstimate from_memory = lazy.narrowphase.pair_gap_estimate(lazy.slot(), lazy.states, recalled->deepest);
    const GapEstimate whole_from_memory = whole.narrowphase.pair_gap_estimate(whole.slot(), whole.states, w->deepest);
    CHECK(from_memory.bound_m == nodes_bound_m);
    CHECK(from_memory.bound_m == whole_from_memory.bound_m);
    CHECK(from_memory.centre_m == whole_from_memory.centre_m);
    CHECK(from_memory.radius_a_m == whole_from_memory.radius_a_m);
    CHECK(from_memory.radius_b_m == whole_from_memory.radius_b_m);
  }
  CHECK(remembered > 100);
  CHECK(nodes_reused > 10);  // the pair's node indices now hold other spheres (or none)
}
