#include "broadphase/sweep_and_prune.hpp"

#include <algorithm>

namespace fovea {

namespace {

constexpr std::uint32_t kIdMask = 0x7fffffffu;

std::uint64_t endpoint(std::uint32_t key, std::uint32_t id_and_flag) {
  return (std::uint64_t{key} << 32) | id_and_flag;
}

ProxyPair ordered(ProxyId a, ProxyId b) { return a < b ? ProxyPair{a, b} : ProxyPair{b, a}; }

}  // namespace

ProxyId SweepAndPrune::add(const Aabb& box, bool is_static) {
  roster_.check_box(roster_.next_id(), box);
  return add_keys(bound_key::box_keys(box), is_static);
}

ProxyId SweepAndPrune::add_keys(const BoxKeys& keys, bool is_static) {
  const ProxyId id = roster_.next_id();
  if (id == bounds_.size()) bounds_.emplace_back();  // before the roster counts the id, in case it throws
  roster_.add(is_static);
  bounds_[id].sorted = kEmptyBoxKeys;  // not in the lists until the update merges it in
  bounds_[id].next = keys;
  return id;
}

void SweepAndPrune::remove(ProxyId id) { roster_.remove(id); }

void SweepAndPrune::gather_keys(std::span<const BoxKeys> keys_by_global, std::span<const ProxyId> global_of) {
  const std::span<const std::uint8_t> flags = roster_.flags();
  ProxyBounds* const bounds = bounds_.data();
  for (ProxyId id = 0; id < flags.size(); ++id)
    if (flags[id] & ProxyRoster::kLive) bounds[id].next = keys_by_global[global_of[id]];
}

void SweepAndPrune::update() {
  pairs_.begin_frame(roster_.live_count());
  swaps_ = 0;
  roster_.begin_update();
  apply_removals();
  if (roster_.removed().empty()) {
    for (int k = 0; k < 3; ++k) sort_axis<false>(k);
  } else {
    for (int k = 0; k < 3; ++k) sort_axis<true>(k);
  }
  insert_added();
  pairs_.finish_frame();
  roster_.finish_update();
}

void SweepAndPrune::apply_removals() {
  if (roster_.removed().empty()) return;
  pairs_.record_stops_involving(roster_.removed_mask());
  // Bounds that overlap nothing, so that the scan over all ids of insert_added needs no
  // liveness test.
  for (ProxyId id : roster_.removed()) bounds_[id].sorted = bounds_[id].next = kEmptyBoxKeys;
}

// 004 section 3.2 and 002 section 3: insertion sort of a nearly sorted list. Each endpoint
// takes its new key as the pass reaches it (the gather from `next`) and sinks left past the
// larger keys. A swap of a min past a max flips that pair's overlap bit on this axis: a min
// moving left past another proxy's max starts their overlap on the axis, a max moving left
// past another proxy's min ends it. The other two bits are read from the bounds those axes'
// lists are sorted by right now (new for axes already sorted this update, old for the rest),
// so the pair's 3D state changes exactly when the flipped bit completes or breaks all three.
template <bool kDropRemoved>
void SweepAndPrune::sort_axis(int axis) {
  // Raw pointers in locals: the event pushes below cannot then make the compiler reload them.
  std::uint64_t* const ep = endpoints_[axis].data();
  ProxyBounds* const bounds = bounds_.data();
  const std::uint8_t* const flags = roster_.flags().data();
  const int axis1 = (axis + 1) % 3;
  const int axis2 = (axis + 2) % 3;
  const std::uint8_t* const removed = roster_.removed_mask().data();
  const std::size_t n = endpoints_[axis].size();
  std::int64_t swaps = 0;
  // The sorted prefix is ep[0, kept): without removals, kept is i.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto id_and_flag = static_cast<std::uint32_t>(ep[i]);
    const ProxyId a = id_and_flag & kIdMask;
    if constexpr (kDropRemoved)
      if (removed[a]) continue;
    const std::uint32_t is_max = id_and_flag >> 31;
    ProxyBounds& mine = bounds[a];
    const std::uint32_t key = mine.next.key[axis][is_max];
    mine.sorted.key[axis][is_max] = key;
    const std::uint64_t moving = endpoint(key, id_and_flag);
    std::size_t j = kept;
    while (j > 0 && ep[j - 1] > moving) {
      const std::uint64_t passed = ep[j - 1];
      ep[j] = passed;
      --j;
      // Evaluated without branches: whether a min passed a max is a coin toss per swap, and
      // a mispredicted branch costs more than reading the other proxy's bounds every time.
      const auto passed_id_and_flag = static_cast<std::uint32_t>(passed);
      const ProxyId b = passed_id_and_flag & kIdMask;
      const ProxyBounds& theirs = bounds[b];
      const bool flip = ((passed_id_and_flag ^ id_and_flag) & kMaxFlag) != 0;
      const bool other_axes = overlap_on(axis1, mine, theirs) & overlap_on(axis2, mine, theirs);
      if (flip & other_axes & !(flags[a] & flags[b] & ProxyRoster::kStatic)) [[unlikely]] {
        if (is_max)
          pairs_.record_stop(ordered(a, b));
        else
          pairs_.record_start(ordered(a, b));
      }
    }
    swaps += static_cast<std::int64_t>(kept - j);
    ep[j] = moving;
    ++kept;
  }
  if constexpr (kDropRemoved) endpoints_[axis].resize(kept);
  swaps_ += swaps;
}

void SweepAndPrune::insert_added() {
  const std::span<const ProxyId> added = roster_.added();
  if (added.empty()) return;
  for (ProxyId id : added) bounds_[id].sorted = bounds_[id].next;

  // Merge the new endpoints in, per axis: sort them (M log M), then one backward merge into
  // the grown list, so adding M proxies to N costs O(N + M log M), not a re-sort.
  for (int k = 0; k < 3; ++k) {
    scratch_.clear();
    for (ProxyId id : added) {
      scratch_.push_back(endpoint(bounds_[id].sorted.key[k][0], id));
      scratch_.push_back(endpoint(bounds_[id].sorted.key[k][1], id | kMaxFlag));
    }
    std::sort(scratch_.begin(), scratch_.end());
    std::vector<std::uint64_t>& list = endpoints_[k];
    std::size_t old_end = list.size();
    std::size_t new_end = scratch_.size();
    list.resize(old_end + new_end);
    for (std::size_t out = list.size(); new_end > 0;) {
      if (old_end > 0 && list[old_end - 1] > scratch_[new_end - 1])
        list[--out] = list[--old_end];
      else
        list[--out] = scratch_[--new_end];
    }
  }

  // The added proxies' pairs. Testing each against every id costs M * N box tests; one
  // sweep along x costs the x-overlaps K_x. Count K_x (one pass) and take the cheaper,
  // unless the scan costs no more than the count alone (a few proxies added: a box that
  // moved into a region of RegionSweepAndPrune). The roster's finish_update() then clears
  // their kAdded flags, which both searches read.
  const auto scan_cost = static_cast<std::int64_t>(added.size()) * static_cast<std::int64_t>(roster_.id_count());
  if (scan_cost <= static_cast<std::int64_t>(endpoints_[0].size())) {
    find_pairs_of_added_by_scan();
    return;
  }
  std::int64_t open = 0, x_overlaps = 0;
  for (std::uint64_t e : endpoints_[0]) {
    if (static_cast<std::uint32_t>(e) & kMaxFlag)
      --open;
    else
      x_overlaps += open++;
  }
  if (scan_cost <= x_overlaps + static_cast<std::int64_t>(endpoints_[0].size()))
    find_pairs_of_added_by_scan();
  else
    find_pairs_of_added_by_sweep();
}

void SweepAndPrune::record_if_new_pair(ProxyId a, ProxyId b) {
  const std::span<const std::uint8_t> flags = roster_.flags();
  if (flags[a] & flags[b] & ProxyRoster::kStatic) return;
  pairs_.record_start(ordered(a, b));
}

void SweepAndPrune::find_pairs_of_added_by_scan() {
  const std::span<const std::uint8_t> flags = roster_.flags();
  const auto ids = static_cast<ProxyId>(flags.size());
  for (ProxyId a : roster_.added())
    for (ProxyId b = 0; b < ids; ++b) {
      // Two added proxies are tested once, when the outer loop is at the smaller id; empty
      // slots never overlap.
      if (b == a || ((flags[b] & ProxyRoster::kAdded) && b < a)) continue;
      const ProxyBounds& ba = bounds_[a];
      const ProxyBounds& bb = bounds_[b];
      if (overlap_on(0, ba, bb) && overlap_on(1, ba, bb) && overlap_on(2, ba, bb)) record_if_new_pair(a, b);
    }
}

// The sweep of the first frame (004 section 3.2: "Any intervals that overlap are then
// detected"): along x, every min meets the proxies whose x interval is open there.
void SweepAndPrune::find_pairs_of_added_by_sweep() {
  const std::span<const std::uint8_t> flags = roster_.flags();
  active_.clear();
  active_slot_.resize(flags.size());
  for (std::uint64_t e : endpoints_[0]) {
    const auto id_and_flag = static_cast<std::uint32_t>(e);
    const ProxyId id = id_and_flag & kIdMask;
    if (id_and_flag & kMaxFlag) {
      const std::uint32_t slot = active_slot_[id];
      active_[slot] = active_.back();
      active_slot_[active_[slot]] = slot;
      active_.pop_back();
      continue;
    }
    const bool id_added = flags[id] & ProxyRoster::kAdded;
    for (ProxyId other : active_)
      if ((id_added || (flags[other] & ProxyRoster::kAdded)) && overlap_on(1, bounds_[id], bounds_[other]) &&
          overlap_on(2, bounds_[id], bounds_[other]))
        record_if_new_pair(id, other);
    active_slot_[id] = static_cast<std::uint32_t>(active_.size());
    active_.push_back(id);
  }
}

}  // namespace fovea
