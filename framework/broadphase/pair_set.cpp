#include "broadphase/pair_set.hpp"

#include <algorithm>
#include <cassert>

#include "core/containers.hpp"

namespace fovea {

bool PairSet::contains(ProxyPair pair) const {
  return std::binary_search(current_.begin(), current_.end(), pair);
}

void PairSet::begin_frame(std::size_t proxy_count) {
  const std::size_t room = std::max<std::size_t>(64, proxy_count);
  for (auto* v : {&current_, &started_, &stopped_, &start_events_, &stop_events_, &merged_}) reserve_geometric(*v, room);
  started_.clear();
  stopped_.clear();
  start_events_.clear();
  stop_events_.clear();
}

void PairSet::record_stops_involving(std::span<const std::uint8_t> removed) {
  for (const ProxyPair& p : current_)
    if (removed[p.a] || removed[p.b]) stop_events_.push_back(p);
}

void PairSet::finish_frame() {
  std::sort(start_events_.begin(), start_events_.end());
  std::sort(stop_events_.begin(), stop_events_.end());

  // A pair's events alternate from its state before the update (in: stop, start, stop...;
  // out: start, stop, start...), so starts minus stops is +1 (started), -1 (stopped) or 0.
  std::size_t i = 0, j = 0;
  while (i < start_events_.size() || j < stop_events_.size()) {
    ProxyPair pair;
    if (j == stop_events_.size() || (i < start_events_.size() && start_events_[i] < stop_events_[j]))
      pair = start_events_[i];
    else
      pair = stop_events_[j];
    int net = 0;
    for (; i < start_events_.size() && start_events_[i] == pair; ++i) ++net;
    for (; j < stop_events_.size() && stop_events_[j] == pair; ++j) --net;
    assert(net >= -1 && net <= 1);
    if (net > 0) started_.push_back(pair);
    if (net < 0) stopped_.push_back(pair);
  }
  merge_changes_into_current();
}

void PairSet::finish_changes() {
  std::sort(started_.begin(), started_.end());
  std::sort(stopped_.begin(), stopped_.end());
  merge_changes_into_current();
}

void PairSet::merge_changes_into_current() {
  if (started_.empty() && stopped_.empty()) return;

  // current = (current - stopped) + started, all sorted: one linear merge.
  merged_.clear();
  reserve_geometric(merged_, current_.size() + started_.size());
  auto stop_it = stopped_.begin();
  auto start_it = started_.begin();
  for (const ProxyPair& p : current_) {
    while (start_it != started_.end() && *start_it < p) merged_.push_back(*start_it++);
    while (stop_it != stopped_.end() && *stop_it < p) ++stop_it;
    if (stop_it != stopped_.end() && *stop_it == p) continue;
    merged_.push_back(p);
  }
  merged_.insert(merged_.end(), start_it, started_.end());
  // Copied back rather than swapped: each buffer then only grows, to the largest pair count
  // seen, and the steady state allocates nothing.
  reserve_geometric(current_, merged_.size());
  current_.assign(merged_.begin(), merged_.end());
}

}  // namespace fovea
