#include "broadphase/proxy_roster.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/format.hpp"

namespace fovea {

ProxyId ProxyRoster::add(bool is_static) {
  const ProxyId id = next_id();
  if (free_ids_.empty()) {
    removed_mask_.push_back(0);
    flags_.push_back(0);  // last: flags_ defines the id count
  } else {
    free_ids_.pop_back();
  }
  flags_[id] = static_cast<std::uint8_t>(kLive | kAdded | (is_static ? kStatic : 0));
  added_.push_back(id);
  ++live_count_;
  return id;
}

void ProxyRoster::remove(ProxyId id) {
  check_live(id);
  flags_[id] = static_cast<std::uint8_t>(flags_[id] & ~kLive);
  removed_.push_back(id);
  --live_count_;
}

void ProxyRoster::begin_update() {
  if (removed_.empty()) return;
  for (ProxyId id : removed_) removed_mask_[id] = 1;
  // A proxy added and removed between two updates never reached the broad phase's lists.
  std::erase_if(added_, [&](ProxyId id) { return removed_mask_[id] != 0; });
}

void ProxyRoster::finish_update() {
  for (ProxyId id : added_) flags_[id] = static_cast<std::uint8_t>(flags_[id] & ~kAdded);
  added_.clear();
  // Ids freed by this update become reusable only now, after their stops were reported.
  for (ProxyId id : removed_) {
    removed_mask_[id] = 0;
    flags_[id] = 0;
    free_ids_.push_back(id);
  }
  removed_.clear();
}

void ProxyRoster::throw_too_many(const char* owner) {
  throw std::length_error(std::string(owner) + ": more than 2^31 - 1 proxies");
}

void ProxyRoster::throw_bad_box(const char* owner, ProxyId id, const Aabb& box, int axis) {
  throw std::invalid_argument(std::string(owner) + ": proxy " + std::to_string(id) + "'s box on axis " + "xyz"[axis] +
                              " runs from " + format_number(box.min_m[axis]) + " to " + format_number(box.max_m[axis]) +
                              " m; a box needs min <= max and no NaN");
}

void ProxyRoster::throw_unknown(const char* owner, ProxyId id) {
  throw std::out_of_range(std::string(owner) + ": proxy " + std::to_string(id) + " does not exist");
}

}  // namespace fovea
