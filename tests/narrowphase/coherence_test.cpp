// Coherence across frames (NarrowPhaseSettings::coherence, narrowphase/descent_memory.hpp)
// against its oracle, the plain descent from the roots: on the same pairs and poses, frame
// after frame of random motion, a narrow phase that re-tests last frame's deepest pairs
// first resolves every collision exactly as one that does not, and hands the response the
// same contact pairs; only the sphere tests may differ.

#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "core/rng.hpp"
#include "frame/animation.hpp"
#include "narrowphase/descent_memory.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "schedule/scheduler.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

/// A packed world of rocks that pass through each other (no response between entities) and
/// whose own narrow phase does nothing (a budget of no tests): it only moves the poses,
/// turning the rocks as it goes. Before each step a random third of the rocks take a small
/// random step more, a turn of up to 0.05 rad included.
struct MovingRocks {
  std::unique_ptr<Animation> world;
  Rng rng;

  explicit MovingRocks(std::uint64_t seed) : rng(seed, 99) {
    AnimationSettings settings = test::rocks_passing_through();
    settings.budget.mode = BudgetMode::work;
    settings.budget.tests = 0;
    world = test::world_after(settings, seed, 30);
  }

  void step() {
    for (EntityId id = 0; id < world->entities().size(); ++id) {
      if (rng.uniform() >= 1.0 / 3) continue;
      EntityState s = world->states()[id];
      s.position_m += rng.uniform(0, 0.01) * rng.unit_vector();
      s.orientation = glm::normalize(glm::angleAxis(rng.uniform(0, 0.05), rng.unit_vector()) * s.orientation);
      world->set_state(id, s);
    }
    world->step();
  }

  /// A narrow phase of the world's models, coherence on or off.
  NarrowPhase narrowphase(bool coherence) const {
    NarrowPhase np(std::vector<CollisionModel>(world->narrowphase().models().begin(),
                                               world->narrowphase().models().end()));
    NarrowPhaseSettings settings;
    settings.coherence = coherence;
    np.set_settings(settings);
    return np;
  }
};

void run_to_end(NarrowPhase& np) {
  ScheduleSettings s;
  s.kind = SchedulerKind::sequential;
  Budget unlimited = Budget::unlimited();
  make_scheduler(s)->run(np, unlimited);
}

}  // namespace

TEST_CASE("Coherence: random motion resolves every collision as the descent from the roots does, in fewer tests",
          "[narrowphase][coherence]") {
  // Schedulers that leave different frontiers when the budget stops them.
  const SchedulerKind budgeted_kinds[] = {SchedulerKind::round_robin, SchedulerKind::sequential, SchedulerKind::hybrid,
                                          SchedulerKind::random};
  std::int64_t frames_compared = 0, frames_cheaper = 0;
  std::int64_t colliding = 0, not_colliding = 0, below = 0, failed = 0, budget_frames = 0;
  std::int64_t contact_collisions = 0, contact_below = 0;
  std::size_t most_collisions = 0;
  for (const std::uint64_t seed : {1u, 2u}) {
    MovingRocks rocks(seed);
    NarrowPhase coherent = rocks.narrowphase(true);
    NarrowPhase plain = rocks.narrowphase(false);
    DescentMemory memory;
    Rng budgets(seed, 7);
    std::vector<SphereHit> stack;
    std::vector<SpherePair> pairs_coherent, pairs_plain;
    for (std::int64_t frame = 0; frame < 80; ++frame) {
      INFO("seed " << seed << ", frame " << frame);
      rocks.step();
      const std::span<const EntityState> states = rocks.world->states();
      coherent.sync(rocks.world->broadphase().pairs(), rocks.world->entities(), frame);
      plain.sync(rocks.world->broadphase().pairs(), rocks.world->entities(), frame);
      REQUIRE(coherent.size() == plain.size());
      most_collisions = std::max(most_collisions, plain.size());
      coherent.begin_frame(states, &memory);
      plain.begin_frame(states);
      run_to_end(plain);

      // Some frames under a random work budget: the memory then holds interrupted frontiers
      // and chains cut short. What the budget did resolve must agree all the same.
      const bool budgeted = frame % 4 == 1 || frame % 4 == 2;
      if (budgeted) {
        ++budget_frames;
        ScheduleSettings s;
        s.kind = budgeted_kinds[budgets.below(4)];
        Budget budget = Budget::work(static_cast<std::int64_t>(budgets.below(static_cast<std::uint64_t>(plain.sphere_tests()))));
        make_scheduler(s, seed)->run(coherent, budget, ScheduleContext{frame, nullptr});
        coherent.interrupt(InterruptPolicy::repulse);
      } else {
        run_to_end(coherent);
      }

      std::int64_t differ = 0, unresolved = 0;
      for (const std::uint32_t slot : plain.order()) {
        const Collision& c = coherent.collision(slot);
        const Collision& p = plain.collision(slot);
        REQUIRE(c.a == p.a);
        REQUIRE(c.b == p.b);
        if (c.interrupted) {
          ++unresolved;
          continue;
        }
        if (c.status != p.status) ++differ;
        if (budgeted) continue;
        colliding += p.status == CollisionStatus::colliding ? 1 : 0;
        not_colliding += p.status == CollisionStatus::not_colliding ? 1 : 0;
        below += c.witness == WitnessState::below ? 1 : 0;
        failed += c.witness == WitnessState::failed ? 1 : 0;
      }
      CHECK(differ == 0);
      if (!budgeted) {
        CHECK(unresolved == 0);
        ++frames_compared;
        frames_cheaper += coherent.sphere_tests() < plain.sphere_tests() ? 1 : 0;
      }

      // Every other full frame the response's contact pairs, before the memory (as the frame
      // does): a collision resolved below last frame's pair gets the plain descent's pairs,
      // pair for pair, and the frame's counts are left as they were.
      if (!budgeted && frame % 8 == 3) {
        std::int64_t pairs_differ = 0, counts_changed = 0;
        const std::int64_t frame_tests = coherent.sphere_tests();
        for (const std::uint32_t slot : plain.order()) {
          const Collision& c = coherent.collision(slot);
          if (c.status != CollisionStatus::colliding) continue;
          const WitnessState witness = c.witness;
          const std::int64_t tests = c.sphere_tests;
          coherent.contact_pairs(slot, 256, stack, pairs_coherent);
          plain.contact_pairs(slot, 256, stack, pairs_plain);
          bool same = pairs_coherent.size() == pairs_plain.size();
          for (std::size_t i = 0; same && i < pairs_plain.size(); ++i)
            same = pairs_coherent[i].node_a == pairs_plain[i].node_a && pairs_coherent[i].node_b == pairs_plain[i].node_b;
          pairs_differ += same ? 0 : 1;
          counts_changed += c.sphere_tests != tests || c.witness != witness || c.status != CollisionStatus::colliding ? 1 : 0;
          ++contact_collisions;
          contact_below += witness == WitnessState::below ? 1 : 0;
        }
        CHECK(pairs_differ == 0);
        CHECK(counts_changed == 0);
        CHECK(coherent.sphere_tests() == frame_tests);
      }
      memory.remember(coherent, states);
    }
  }
  CHECK(most_collisions > 100);
  CHECK(frames_compared >= 80);
  CHECK(budget_frames >= 80);
  CHECK(colliding > 0);
  CHECK(not_colliding > 0);
  // Coherence engaged: chains held, and some broke and went back to the roots ...
  CHECK(below > 0);
  CHECK(failed > 0);
  // ... and it saved tests in some frames (in none would mean it never helps).
  CHECK(frames_cheaper > 0);
  CHECK(contact_below > 0);
  CHECK(contact_collisions > contact_below);
}
