#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "core/math.hpp"

namespace fovea {

/// The proxies of a broad phase by id, and what changed since its last update: the
/// bookkeeping SweepAndPrune and RegionSweepAndPrune share, so that both hand out and reuse
/// ids by one rule (the pairs, their order and every record of a run depend on the ids).
///
/// The rule: an add takes the id freed most recently (the free ids are a stack), or a new id,
/// one past the largest so far, when none is free. A removed proxy's id is freed only by
/// finish_update(), after the update that takes the proxy out has reported its pairs as
/// stopped, so one update's report never means two proxies by one id.
///
/// Each id has one byte of flags (kLive, kStatic, kAdded). The broad phase keeps its own side
/// tables by id (its boxes), id_count() long: it grows them for next_id() before add().
class ProxyRoster {
 public:
  /// Ids use 31 bits of a SweepAndPrune endpoint.
  static constexpr std::uint32_t kMaxProxies = 0x7fffffffu;
  /// Flags of an id: added and not removed; never paired with another static proxy; added
  /// since the last update (which merges it in).
  static constexpr std::uint8_t kLive = 1, kStatic = 2, kAdded = 4;

  /// `owner` names the broad phase in error messages ("SweepAndPrune: proxy 7 does not
  /// exist"); a string literal, not copied.
  explicit ProxyRoster(const char* owner) : owner_(owner) {}

  /// The id the next add() hands out. Throws std::length_error when that would be a new id
  /// beyond kMaxProxies.
  ProxyId next_id() const {
    if (!free_ids_.empty()) return free_ids_.back();
    if (flags_.size() >= kMaxProxies) throw_too_many(owner_);
    return static_cast<ProxyId>(flags_.size());
  }
  /// Makes next_id() a live proxy, added since the last update. Same error as next_id().
  ProxyId add(bool is_static);
  /// Takes a live proxy out at the next update (the broad phase's update()); std::out_of_range
  /// for an id that is not live.
  void remove(ProxyId id);

  /// Throws std::invalid_argument, naming proxy `id`, unless `box` has min <= max on every
  /// axis (which no NaN does).
  void check_box(ProxyId id, const Aabb& box) const {
    for (int k = 0; k < 3; ++k)
      if (!(box.min_m[k] <= box.max_m[k])) throw_bad_box(owner_, id, box, k);  // also for NaN
  }
  /// Throws std::out_of_range unless `id` is live.
  void check_live(ProxyId id) const {
    if (!is_live(id)) throw_unknown(owner_, id);
  }

  /// Whether `id` was added and not removed since (false at once after remove(), unlike the lists).
  bool is_live(ProxyId id) const { return id < flags_.size() && (flags_[id] & kLive); }
  /// Live proxies: added and not removed.
  std::uint32_t live_count() const { return live_count_; }
  /// Ids handed out so far, live or free: the length of every table by id.
  std::size_t id_count() const { return flags_.size(); }
  /// Flags by id (id_count() of them).
  std::span<const std::uint8_t> flags() const { return flags_; }
  /// Proxies added since the last update, in the order added; begin_update() drops those
  /// removed again meanwhile.
  std::span<const ProxyId> added() const { return added_; }
  /// Proxies removed since the last update, in the order removed.
  std::span<const ProxyId> removed() const { return removed_; }
  /// By id: 1 for the removed() proxies from begin_update() to finish_update(), else 0.
  std::span<const std::uint8_t> removed_mask() const { return removed_mask_; }

  /// The start of the broad phase's update: marks removed() in removed_mask(), and drops
  /// from added() the proxies removed again before they were ever merged in.
  void begin_update();
  /// The end of the broad phase's update, after its pairs are reported: the added proxies
  /// are merged in (kAdded cleared), and the removed ones' ids freed (flags 0, reusable).
  void finish_update();

 private:
  // Static, the owner's name passed in: the checks' fast path then needs nothing of the
  // roster but the flags.
  [[noreturn]] static void throw_too_many(const char* owner);
  [[noreturn]] static void throw_bad_box(const char* owner, ProxyId id, const Aabb& box, int axis);
  [[noreturn]] static void throw_unknown(const char* owner, ProxyId id);

  const char* owner_;
  std::vector<std::uint8_t> flags_;         // by id; its size is the id count
  std::vector<ProxyId> added_;              // since the last update
  std::vector<ProxyId> removed_;            // since the last update
  std::vector<ProxyId> free_ids_;           // reusable now: the last freed at the back
  std::vector<std::uint8_t> removed_mask_;  // by id
  std::uint32_t live_count_ = 0;
};

}  // namespace fovea
