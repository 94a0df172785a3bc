#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "broadphase/box_keys.hpp"
#include "broadphase/pair_set.hpp"
#include "broadphase/proxy_roster.hpp"
#include "core/math.hpp"

namespace fovea {

/// The broad phase of 004 section 3.2 (after 002 section 3, I-COLLIDE): sweep and prune over
/// the three axes, the endpoint lists kept sorted by insertion sort, which coherence between
/// frames makes nearly linear; the overlapping pairs kept in a sparse PairSet.
///
/// Boxes are set by id each frame (`set_box`; a fixed-size cube moves with its entity, a
/// dynamic box also changes size) and `update()` re-sorts and reports the pairs that started
/// and stopped overlapping. Boxes touching at a face overlap (closed intervals). Static
/// proxies never pair with each other. Proxies may be added and removed between updates;
/// the update merges them in and out without a full re-sort.
///
/// Layout (docs/broadphase.md): per axis, one array of 2N endpoints of 8 bytes each, the
/// bound's 32-bit key in the high half, then a max flag and the proxy id, so the sort
/// compares one integer and a min sorts before a max at equal coordinates; and one id-indexed
/// array of each proxy's bound keys on all three axes, as sorted now and as set for the next
/// update (48 bytes, within at most two cache lines), which the sort gathers the new keys
/// from and the swap handler reads the other two axes' overlap bits from. No back-pointers from
/// proxies to endpoints: nothing is written at random when two endpoints swap. Ids, and
/// which proxies are live, static, added or removed, are kept by a ProxyRoster.
class SweepAndPrune {
 public:
  /// Proxy ids use 31 bits of an endpoint.
  static constexpr std::uint32_t kMaxProxies = ProxyRoster::kMaxProxies;

  /// A new proxy with `box`, in the lists and the pairs from the next update on. Throws
  /// std::invalid_argument for a box with a NaN coordinate or min > max, std::length_error
  /// beyond kMaxProxies.
  ProxyId add(const Aabb& box, bool is_static = false);
  /// Takes the proxy out at the next update, which reports its pairs as stopped. Its id is
  /// reused only by an add after that update.
  void remove(ProxyId id);
  /// The proxy's box for the next update. Same errors as add(). A proxy whose box is not set
  /// keeps its previous one.
  void set_box(ProxyId id, const Aabb& box) {
    roster_.check_live(id);
    roster_.check_box(id, box);
    set_keys(id, bound_key::box_keys(box));
  }

  /// add() and set_box() for a box already rounded to keys (bound_key::box_keys of a
  /// checked box), for a broad phase built of several of these (RegionSweepAndPrune), which
  /// checks and rounds each box once. `id` must be live.
  ProxyId add_keys(const BoxKeys& keys, bool is_static = false);
  /// The proxy's box for the next update, already as keys; no checks (see add_keys).
  void set_keys(ProxyId id, const BoxKeys& keys) { bounds_[id].next = keys; }
  /// set_keys for every live proxy at once, from another numbering: proxy `id`'s keys are
  /// `keys_by_global[global_of[id]]`. For RegionSweepAndPrune, whose regions take their
  /// members' boxes this way as their own tasks, just before they sort (so the sort reads
  /// bounds just written, not ones written long before by another thread).
  void gather_keys(std::span<const BoxKeys> keys_by_global, std::span<const ProxyId> global_of);

  /// Applies removals, re-sorts the three axes by the new boxes (flipping overlap state at
  /// every swap), merges in the added proxies, and leaves the result in pairs().
  void update();

  /// The overlapping pairs as of the last update, and those that started and stopped in it.
  const PairSet& pairs() const { return pairs_; }
  /// Live proxies: added and not removed (the lists change at the next update).
  std::uint32_t proxy_count() const { return roster_.live_count(); }
  /// Whether `id` was added and not removed since (ProxyRoster::is_live).
  bool is_live(ProxyId id) const { return roster_.is_live(id); }
  /// The box as stored at the last update (outward-rounded floats, as doubles); an oracle
  /// tests exactly these boxes.
  Aabb stored_box(ProxyId id) const { return bound_key::box_of(bounds_[id].sorted); }

  /// Work of the last update: endpoint swaps of the insertion sorts on all three axes.
  std::int64_t last_swap_count() const { return swaps_; }

 private:
  /// One proxy's bound keys, [axis][0 for min, 1 for max]: those its endpoints are sorted by
  /// now, and those set_box gave it for the next update. Together, so the sort's gather of
  /// `next` and write of `sorted`, and the overlap test on two other axes, each touch one
  /// cache line of the proxy.
  struct ProxyBounds {
    BoxKeys sorted;
    BoxKeys next;
  };
  static_assert(sizeof(ProxyBounds) == 48);
  static constexpr std::uint32_t kMaxFlag = 0x80000000u;

  void apply_removals();
  /// With kDropRemoved, the pass also drops the endpoints of the proxies removed this
  /// update (the roster's removed_mask()), so removals cost no pass of their own.
  template <bool kDropRemoved>
  void sort_axis(int axis);
  void insert_added();
  void find_pairs_of_added_by_scan();
  void find_pairs_of_added_by_sweep();
  static bool overlap_on(int axis, const ProxyBounds& a, const ProxyBounds& b) {
    return (a.sorted.key[axis][0] <= b.sorted.key[axis][1]) & (b.sorted.key[axis][0] <= a.sorted.key[axis][1]);
  }
  void record_if_new_pair(ProxyId a, ProxyId b);

  std::array<std::vector<std::uint64_t>, 3> endpoints_;  // sorted per axis
  std::vector<ProxyBounds> bounds_;                      // by id
  ProxyRoster roster_{"SweepAndPrune"};
  std::vector<std::uint64_t> scratch_;                   // new endpoints of one axis
  std::vector<ProxyId> active_;                          // scratch for the sweep
  std::vector<std::uint32_t> active_slot_;               // scratch: id -> index in active_
  std::int64_t swaps_ = 0;
  PairSet pairs_;
};

}  // namespace fovea
