// schedule.aging (prioritise/fast_priority.hpp): a pair accepted unresolved is ordered by its
// episode's chance of being noticed, 1 - (1 - f) prod(1 - f before). Against its oracle: the
// same world without aging, whose priorities are the plain f, and the formula worked by hand
// from them.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <utility>

#include "frame/animation.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

/// 120 packed rocks sorted by refined priority under a short work budget: many collisions
/// are left unresolved, and the same pairs again the next frame.
AnimationSettings starved_rocks(bool aging) {
  EntityGroupSettings rocks =
      test::rock_group({.count = 120, .variants = 3, .resolution_voxels = 12, .size_m = 0.5, .name = "rocks"});
  AnimationSettings s = test::world_of(Vec3(4.0), {rocks});
  s.budget.mode = BudgetMode::work;
  s.budget.tests = 100;
  s.schedule.kind = SchedulerKind::sorted_sequential;
  s.schedule.priorities = PriorityGap::refined;
  s.schedule.aging = aging;
  s.gaze.source = GazeSourceKind::scripted;
  s.response.gravity_mps2 = Vec3(0.0);
  return s;
}

bool same_bytes(std::span<const EntityState> a, std::span<const EntityState> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

using Pair = std::pair<EntityId, EntityId>;

}  // namespace

TEST_CASE("Aging: an unresolved pair's priority is 1 - (1 - f)(1 - f before), the others' f, against the world without",
          "[frame][schedule][aging][oracle]") {
  // Both worlds without aging until the pack has settled into pairs that last; then one ages
  // (a live change). Its first aged frame has no episode behind it, so both order by f alike
  // and leave the same world.
  Animation aged(starved_rocks(false), 7);
  Animation plain(starved_rocks(false), 7);
  for (int frame = 0; frame < 10; ++frame) {
    aged.step();
    plain.step();
  }
  ScheduleSettings aging = aged.settings().schedule;
  aging.aging = true;
  aged.set_schedule(aging);
  aged.step();
  plain.step();
  REQUIRE(same_bytes(aged.states(), plain.states()));
  std::map<Pair, double> unresolved_f;  // the pairs frame 10 accepted unresolved, and their f then
  const NarrowPhase& before = plain.narrowphase();
  for (const std::uint32_t slot : before.order()) {
    const Collision& c = before.collision(slot);
    if (c.interrupted && c.status == CollisionStatus::colliding && c.priority >= 0) unresolved_f[{c.a, c.b}] = c.priority;
  }
  REQUIRE(unresolved_f.size() > 10);
  // Frame 11 starts from the same poses and bounds: its priorities are set before any test,
  // and sorted sequential keeps them through the run.
  aged.step();
  plain.step();
  const NarrowPhase& a = aged.narrowphase();
  const NarrowPhase& p = plain.narrowphase();
  REQUIRE(a.order().size() == p.order().size());
  int aged_pairs = 0, raised = 0, kept = 0;
  for (std::size_t i = 0; i < a.order().size(); ++i) {
    const Collision& ca = a.collision(a.order()[i]);
    const Collision& cp = p.collision(p.order()[i]);
    REQUIRE(ca.a == cp.a);
    REQUIRE(ca.b == cp.b);
    INFO("pair " << ca.a << "-" << ca.b << ", f " << cp.priority << ", aged " << ca.priority);
    const auto it = unresolved_f.find({ca.a, ca.b});
    if (it == unresolved_f.end() || cp.priority < 0) {
      CHECK(ca.priority == cp.priority);
      ++kept;
      continue;
    }
    const double expected = 1 - (1 - cp.priority) * (1 - it->second);
    CHECK(std::abs(ca.priority - expected) <= 1e-12);
    CHECK(ca.priority >= cp.priority);
    ++aged_pairs;
    raised += ca.priority > cp.priority ? 1 : 0;
  }
  CHECK(aged_pairs > 5);  // the formula was checked on pairs left unresolved twice
  CHECK(raised > 0);      // and aging changed some order key
  CHECK(kept > 10);
}
