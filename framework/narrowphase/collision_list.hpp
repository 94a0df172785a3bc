#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "narrowphase/collision.hpp"
#include "world/entity.hpp"

namespace fovea {

/// The narrow phase's collisions: one Collision per overlapping broad-phase pair, kept while
/// the pair overlaps (its slot, its first_frame), listed in pair order (by entity pair),
/// which is the order round robin and sequential scheduling follow.
///
/// Storage: collisions live in slots that are reused when a pair stops overlapping, and the
/// pair index is merged with the broad phase's pairs each frame, not rebuilt; in the steady
/// state nothing is allocated.
class CollisionList {
 public:
  /// Brings the collisions in line with the broad phase's current pairs: a new Collision
  /// for each pair that overlaps and had none (its first_frame is `frame`, its models the
  /// entities'), and the collision of each pair that no longer overlaps removed.
  void sync(const PairSet& pairs, std::span<const Entity> entities, std::int64_t frame);

  /// Slots of all collisions, in list order (ascending entity pair).
  std::span<const std::uint32_t> order() const { return order_; }
  /// The collision in `slot` (one of order()); the reference is good until the next sync().
  Collision& collision(std::uint32_t slot) { return collisions_[slot]; }
  /// The collision in `slot`, read-only; good until the next sync().
  const Collision& collision(std::uint32_t slot) const { return collisions_[slot]; }
  /// Collisions in the list.
  std::size_t size() const { return order_.size(); }
  /// One more than the largest slot in use: the size of a side table by slot.
  std::size_t slot_count() const { return collisions_.size(); }

 private:
  static constexpr std::uint32_t kNewSlot = 0xffffffffu;
  struct PairSlot {
    ProxyPair pair;
    std::uint32_t slot = 0;
  };

  std::vector<Collision> collisions_;      // by slot
  std::vector<std::uint32_t> free_slots_;
  std::vector<PairSlot> by_pair_;          // sorted by pair
  std::vector<PairSlot> by_pair_scratch_;  // the next by_pair_, swapped in
  std::vector<std::uint32_t> order_;       // slots, in by_pair_ order
};

}  // namespace fovea
