#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "narrowphase/narrow_phase.hpp"

namespace fovea {

/// Collisions sorted by a key, highest first, ties in list order: the order of every
/// scheduler that sorts (004 section 3.4.3: "the active collision list is then sorted based
/// on this priority"). Its storage is kept between frames, so sorting allocates nothing once
/// warm.
class SortedSlots {
 public:
  /// Sorts `slots`, given in list order, by `key_of(collision)`.
  template <class KeyOf>
  void sort(const NarrowPhase& narrowphase, std::span<const std::uint32_t> slots, KeyOf key_of) {
    clear(narrowphase.size());
    for (const std::uint32_t slot : slots) add(slot, key_of(narrowphase.collision(slot)));
    sort();
  }
  /// The slots in sorted order.
  std::span<const std::uint32_t> slots() const { return slots_; }

 private:
  /// A collision's place: its key, then its position in list order, which makes the keys
  /// unique.
  struct Keyed {
    double key;
    std::uint32_t position;
    std::uint32_t slot;
  };
  void clear(std::size_t collisions);
  void add(std::uint32_t slot, double key) { keyed_.push_back({key, static_cast<std::uint32_t>(keyed_.size()), slot}); }
  void sort();

  std::vector<Keyed> keyed_;
  std::vector<std::uint32_t> slots_;
};

}  // namespace fovea
