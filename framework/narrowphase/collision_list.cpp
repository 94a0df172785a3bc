#include "narrowphase/collision_list.hpp"

#include <algorithm>

#include "core/containers.hpp"

namespace fovea {

void CollisionList::sync(const PairSet& pairs, std::span<const Entity> entities, std::int64_t frame) {
  // Merge the collisions' pairs with the broad phase's current ones (both sorted): a pair
  // in both keeps its collision, one only in ours has stopped overlapping, one only in
  // theirs has started. Reading current() rather than the started and stopped events keeps
  // this right whenever it is first called.
  const std::span<const ProxyPair> current = pairs.current();
  by_pair_scratch_.clear();
  // Room for one pair per entity at least, as the broad phase's PairSet keeps: the first
  // frames grow the lists, later ones rarely do.
  const std::size_t room = std::max(current.size(), entities.size());
  reserve_geometric(by_pair_scratch_, room);
  reserve_geometric(by_pair_, room);
  reserve_geometric(collisions_, room);
  reserve_geometric(free_slots_, room);
  std::size_t mine = 0;
  for (const ProxyPair& pair : current) {
    while (mine < by_pair_.size() && by_pair_[mine].pair < pair) free_slots_.push_back(by_pair_[mine++].slot);
    if (mine < by_pair_.size() && by_pair_[mine].pair == pair) {
      by_pair_scratch_.push_back(by_pair_[mine++]);
      continue;
    }
    by_pair_scratch_.push_back({pair, kNewSlot});
  }
  while (mine < by_pair_.size()) free_slots_.push_back(by_pair_[mine++].slot);

  // Slots for the new pairs: freed ones first.
  for (PairSlot& ps : by_pair_scratch_) {
    if (ps.slot != kNewSlot) continue;
    if (free_slots_.empty()) {
      ps.slot = static_cast<std::uint32_t>(collisions_.size());
      collisions_.emplace_back();
    } else {
      ps.slot = free_slots_.back();
      free_slots_.pop_back();
    }
    Collision& c = collisions_[ps.slot];
    c.a = ps.pair.a;
    c.b = ps.pair.b;
    c.model_a = entities[c.a].model;
    c.model_b = entities[c.b].model;
    c.first_frame = frame;
  }
  by_pair_.swap(by_pair_scratch_);
  order_.clear();
  reserve_geometric(order_, room);
  for (const PairSlot& ps : by_pair_) order_.push_back(ps.slot);
}

}  // namespace fovea
