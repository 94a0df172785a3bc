// CollisionList (narrowphase/collision_list.hpp) against the broad phase's pairs, frame by
// frame: one collision per pair, in pair order, kept while its pair overlaps, slots reused.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "core/rng.hpp"
#include "narrowphase/collision_list.hpp"

using namespace fovea;

namespace {

/// The pair set of one frame, as the broad phase reports it after `before`.
void set_pairs(PairSet& pairs, const std::set<ProxyPair>& before, const std::set<ProxyPair>& now) {
  pairs.begin_frame(now.size());
  for (const ProxyPair& p : now)
    if (!before.contains(p)) pairs.record_start(p);
  for (const ProxyPair& p : before)
    if (!now.contains(p)) pairs.record_stop(p);
  pairs.finish_frame();
}

}  // namespace

TEST_CASE("CollisionList: one collision per pair, in pair order, kept while its pair overlaps", "[narrowphase]") {
  constexpr std::uint32_t kEntities = 12;
  std::vector<Entity> entities(kEntities);
  for (std::uint32_t e = 0; e < kEntities; ++e) entities[e].model = e % 3;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    CollisionList list;
    PairSet pairs;
    std::set<ProxyPair> before;
    std::map<ProxyPair, std::uint32_t> slot_of;  // last frame's slot of each pair
    std::map<ProxyPair, std::int64_t> first_frame_of;
    for (std::int64_t frame = 0; frame < 60; ++frame) {
      // Each pair overlaps or not at random, most keeping last frame's state.
      std::set<ProxyPair> now;
      for (ProxyId a = 0; a < kEntities; ++a)
        for (ProxyId b = a + 1; b < kEntities; ++b) {
          const bool was = before.contains({a, b});
          if (rng.uniform() < (was ? 0.8 : 0.1)) now.insert({a, b});
        }
      set_pairs(pairs, before, now);
      const std::size_t slots_before = list.slot_count();
      list.sync(pairs, entities, frame);

      // The list is the pairs, ascending.
      REQUIRE(list.size() == now.size());
      std::vector<ProxyPair> listed;
      std::set<std::uint32_t> slots;
      for (const std::uint32_t slot : list.order()) {
        REQUIRE(slot < list.slot_count());
        const Collision& c = list.collision(slot);
        listed.push_back({c.a, c.b});
        slots.insert(slot);
        REQUIRE(c.model_a == entities[c.a].model);
        REQUIRE(c.model_b == entities[c.b].model);
      }
      REQUIRE(listed == std::vector<ProxyPair>(now.begin(), now.end()));
      REQUIRE(slots.size() == now.size());  // one slot each
      // A pair that went on overlapping keeps its slot and first frame; a new one starts now.
      std::map<ProxyPair, std::uint32_t> slot_now;
      for (const std::uint32_t slot : list.order()) {
        const Collision& c = list.collision(slot);
        const ProxyPair p{c.a, c.b};
        slot_now[p] = slot;
        if (before.contains(p)) {
          REQUIRE(slot == slot_of.at(p));
          REQUIRE(c.first_frame == first_frame_of.at(p));
        } else {
          REQUIRE(c.first_frame == frame);
          first_frame_of[p] = frame;
        }
      }
      // Freed slots are taken before new ones: the table grows only past the pairs.
      REQUIRE(list.slot_count() == std::max(slots_before, now.size()));
      slot_of = slot_now;
      before = now;
    }
  }
}
