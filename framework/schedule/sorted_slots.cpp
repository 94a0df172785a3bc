#include "schedule/sorted_slots.hpp"

#include <algorithm>

#include "core/containers.hpp"

namespace fovea {

void SortedSlots::clear(std::size_t collisions) {
  keyed_.clear();
  reserve_geometric(keyed_, collisions);
  reserve_geometric(slots_, collisions);
}

void SortedSlots::sort() {
  // std::sort on (key, list position) rather than std::stable_sort, which allocates a buffer
  // on every call; the position makes the keys unique, so the order is the same.
  std::sort(keyed_.begin(), keyed_.end(), [](const Keyed& x, const Keyed& y) {
    return x.key != y.key ? x.key > y.key : x.position < y.position;
  });
  slots_.clear();
  for (const Keyed& k : keyed_) slots_.push_back(k.slot);
}

}  // namespace fovea
