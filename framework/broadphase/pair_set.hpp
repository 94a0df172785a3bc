#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <vector>

namespace fovea {

/// Index of a box in a SweepAndPrune. Reused only after the update that reported the
/// removal of its previous owner, so one frame's events never mean two boxes at once.
using ProxyId = std::uint32_t;

/// Two proxies whose boxes overlap, the smaller id first. Pairs order by (a, b), never by
/// address, so the same inputs give the same pairs in the same order on any run (the same
/// config and seed give the same bytes: docs/results.md).
struct ProxyPair {
  ProxyId a = 0;  ///< the smaller id
  ProxyId b = 0;  ///< the larger id
  friend auto operator<=>(const ProxyPair&, const ProxyPair&) = default;
};

/// The pair table of 004 section 3.1 ("all-pairs table"), made sparse: it holds only the
/// pairs whose boxes overlap in 3D, so its memory grows with the overlaps, never with N^2.
///
/// The per-axis bits of the paper's table are not stored: an axis bit is the overlap of
/// the two intervals on that axis, which SweepAndPrune reads from its id-indexed bounds
/// when a swap flips the third (docs/broadphase.md says why: at 100,000 uniform entities a
/// table of every pair overlapping on one axis would hold about 3 x 10^8 entries).
///
/// During an update the sweep records every 3D transition as an event; `finish_frame()` nets
/// them (a pair may start and stop several times within one re-sort) into the frame's
/// started and stopped lists and merges them into the current list. All three lists are
/// sorted, so iteration order depends only on the ids.
class PairSet {
 public:
  /// Every pair overlapping now, sorted.
  std::span<const ProxyPair> current() const { return current_; }
  /// Pairs that overlap now and did not before the last update, sorted.
  std::span<const ProxyPair> started() const { return started_; }
  /// Pairs that overlapped before the last update and do not now (including every pair of
  /// a removed proxy), sorted.
  std::span<const ProxyPair> stopped() const { return stopped_; }
  /// Whether `pair` (a < b) overlaps now: a binary search of current().
  bool contains(ProxyPair pair) const;
  /// Pairs overlapping now: current().size().
  std::size_t size() const { return current_.size(); }

  // The recording interface, for SweepAndPrune.

  /// Clears the previous frame's started and stopped lists and the event buffers, and makes
  /// room in every list for at least one pair per proxy, so that the first frames of a run
  /// grow the buffers and later ones rarely do.
  void begin_frame(std::size_t proxy_count);
  /// The pair's boxes began to overlap in 3D (a < b).
  void record_start(ProxyPair pair) { start_events_.push_back(pair); }
  /// The pair's boxes stopped overlapping in 3D (a < b).
  void record_stop(ProxyPair pair) { stop_events_.push_back(pair); }
  /// Records a stop for every current pair with a proxy flagged in `removed` (by id).
  void record_stops_involving(std::span<const std::uint8_t> removed);
  /// Nets the events into started and stopped and updates the current list.
  void finish_frame();

  // Or, for a broad phase that nets its events itself (RegionSweepAndPrune): the pairs that
  // started and stopped, each recorded exactly once, then finish_changes() instead of
  // finish_frame(). A pair recorded twice stays twice, in started and in current.

  /// The pair (a < b) started overlapping this update; recorded once.
  void record_started(ProxyPair pair) { started_.push_back(pair); }
  /// The pair (a < b) stopped overlapping this update, or lost a removed proxy; recorded once.
  void record_stopped(ProxyPair pair) { stopped_.push_back(pair); }
  /// Sorts the recorded started and stopped pairs and updates the current list.
  void finish_changes();

 private:
  std::vector<ProxyPair> current_;
  std::vector<ProxyPair> started_;
  std::vector<ProxyPair> stopped_;
  std::vector<ProxyPair> start_events_;
  std::vector<ProxyPair> stop_events_;
  std::vector<ProxyPair> merged_;  // scratch for finish_frame
  void merge_changes_into_current();
};

}  // namespace fovea
