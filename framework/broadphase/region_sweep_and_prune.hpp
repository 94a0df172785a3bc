#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "broadphase/pair_set.hpp"
#include "broadphase/sweep_and_prune.hpp"
#include "core/math.hpp"

namespace fovea {

class ThreadPool;

/// How RegionSweepAndPrune cuts space into regions: a grid of cells, the outer cells
/// reaching to infinity (a box beyond the grid belongs to the nearest border cells).
struct RegionGrid {
  /// Side of a (cubic) cell, metres. 0: chosen at the first update() that has proxies, from
  /// the extent of their finite boxes and their count (about `proxies_per_region` per
  /// region), and chosen again whenever the proxies have grown fourfold since; the chosen
  /// cells fit the extent, so their sides may differ by axis (RegionSweepAndPrune::cell_size_m).
  double cell_m = 0;
  /// The grid's lowest corner, metres (ignored when cell_m is 0).
  Vec3 origin_m{0.0};
  /// Cells per axis (ignored when cell_m is 0). {1, 1, 1} is one region: a single sweep.
  std::array<std::uint16_t, 3> cells{1, 1, 1};
  /// The automatic choice's target. A sweep's endpoint swaps per entity grow as its
  /// proxies^(2/3) (docs/broadphase.md, "How cost grows with N"), so fewer per region sort
  /// faster, while more proxies sit on borders and are kept in two lists or more. 300: at
  /// 10,000 uniform entities 27 regions beat the single sweep and 8 did not; at 1,000 the
  /// grid stays one region, where 8 were slower (docs/broadphase.md, "Regions").
  std::uint32_t proxies_per_region = 300;
  /// The automatic choice makes no cell smaller than this many times the mean box side, so
  /// that most boxes lie inside one cell.
  double min_cell_over_box_side = 4;
};

/// The broad phase of SweepAndPrune with space cut into regions, each its own SweepAndPrune
/// of the proxies whose boxes touch it (multi-box pruning; docs/broadphase.md, "Regions"),
/// so that each list's length, and with it the endpoint swaps a moving box makes, stays
/// bounded as the world grows at constant density.
///
/// The interface and contract are SweepAndPrune's, to the exceptions and the order of the
/// lists: closed boxes stored as outward-rounded floats, static pairs never reported, ids
/// handed out and reused by the same rule, current/started/stopped sorted by (a, b) and
/// depending only on the ids and boxes, never on the grid or the threads.
///
/// A box touching several regions is in each. A pair overlapping in several regions is
/// reported by one: the region holding the lowest corner of the two boxes' intersection
/// (its "owner", which both boxes touch). Every update each region re-sorts and reports the
/// pairs that started and stopped among its proxies; a region's start counts when it owns
/// the pair by the new boxes and the old boxes did not overlap, a stop when it owned the
/// pair by the old boxes and the new ones do not overlap (or a proxy was removed). Each
/// pair that starts or stops overall thus comes from exactly one region, whichever region
/// a box has moved into or out of.
class RegionSweepAndPrune {
 public:
  static constexpr std::uint32_t kMaxProxies = SweepAndPrune::kMaxProxies;

  explicit RegionSweepAndPrune(const RegionGrid& grid = {});
  ~RegionSweepAndPrune();
  RegionSweepAndPrune(RegionSweepAndPrune&&) noexcept;
  RegionSweepAndPrune& operator=(RegionSweepAndPrune&&) noexcept;

  /// As SweepAndPrune::add: in the lists and pairs from the next update on. Throws
  /// std::invalid_argument for a box with a NaN coordinate or min > max.
  ProxyId add(const Aabb& box, bool is_static = false);
  /// As SweepAndPrune::remove: out at the next update, its id reusable after it.
  void remove(ProxyId id);
  /// The proxy's box for the next update. Same errors as add(), std::out_of_range for an
  /// unknown id. It writes the proxy's own slot only: threads may set different proxies'
  /// boxes at once (the world does, docs/scale.md), never alongside add, remove or update.
  void set_box(ProxyId id, const Aabb& box) {
    if (!is_live(id)) throw_unknown(id);
    check_box(id, box);
    next_[id] = bound_key::box_keys(box);
  }

  /// Moves proxies between regions, re-sorts every region (as tasks on `pool` when given),
  /// and merges the regions' reports in a fixed order: the result is the same for any
  /// number of threads.
  void update(ThreadPool* pool = nullptr);

  const PairSet& pairs() const { return pairs_; }
  std::uint32_t proxy_count() const { return live_count_; }
  bool is_live(ProxyId id) const { return id < flags_.size() && (flags_[id] & kLive); }
  /// The box as stored at the last update (outward-rounded floats, as doubles).
  Aabb stored_box(ProxyId id) const;

  /// Endpoint swaps of the last update, over all regions.
  std::int64_t last_swap_count() const { return swaps_; }
  /// Regions in the grid (0 until an automatic grid is chosen, at the first update with proxies).
  std::size_t region_count() const;
  /// Proxy memberships over all regions: proxy_count() plus those of boxes on borders.
  std::int64_t membership_count() const { return memberships_; }
  const RegionGrid& grid() const { return grid_; }
  /// A cell's sides, metres, per axis (once the grid is chosen).
  Vec3 cell_size_m() const { return cell_size_m_; }

 private:
  struct Region;
  /// A proxy's cells, the inclusive range [lo, hi] per axis, and where its local ids in
  /// those regions are kept: locals_[first, first + count), in grid order (x, then y, then z
  /// slowest). `capacity` slots are its own, so a range that shrinks or moves keeps them.
  struct Membership {
    std::uint16_t lo[3];
    std::uint16_t hi[3];
    std::uint32_t first;
    std::uint32_t capacity;
    std::uint32_t count() const {
      return static_cast<std::uint32_t>(hi[0] - lo[0] + 1) * static_cast<std::uint32_t>(hi[1] - lo[1] + 1) *
             static_cast<std::uint32_t>(hi[2] - lo[2] + 1);
    }
  };
  static constexpr std::uint8_t kLive = 1, kStatic = 2, kAdded = 4, kInRegions = 8;

  void check_box(ProxyId id, const Aabb& box) const {
    for (int k = 0; k < 3; ++k)
      if (!(box.min_m[k] <= box.max_m[k])) throw_bad_box(id, box, k);  // also for NaN
  }
  [[noreturn]] static void throw_bad_box(ProxyId id, const Aabb& box, int axis);
  [[noreturn]] static void throw_unknown(ProxyId id);
  void choose_grid();
  void build_regions();
  std::uint16_t cell_of(int axis, std::uint32_t key) const;
  std::uint32_t region_index(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
    return (z * grid_.cells[1] + y) * grid_.cells[0] + x;
  }
  /// The region holding the lowest corner of the intersection of two boxes (by keys).
  std::uint32_t owner(const BoxKeys& a, const BoxKeys& b) const;
  static bool overlap(const BoxKeys& a, const BoxKeys& b);
  void apply_removals();
  void move_proxies();
  void enter_regions(ProxyId id, const Membership& range);
  void leave_regions(ProxyId id);
  void report(std::uint32_t region_index);

  /// Drops every region and puts every proxy into the regions of a grid chosen anew.
  void regrid();

  RegionGrid grid_;
  bool automatic_ = false;             // the grid is chosen from the proxies
  bool grid_chosen_ = false;
  std::uint32_t grid_chosen_for_ = 0;  // live proxies when the grid was chosen
  Vec3 cell_size_m_{0.0};
  Vec3 inverse_cell_m_{0.0};
  std::vector<Region> regions_;
  std::vector<BoxKeys> stored_;          // by id: the boxes as of the last update
  std::vector<BoxKeys> next_;            // by id: as set for the next update
  std::vector<Membership> membership_;   // by id
  std::vector<std::uint8_t> flags_;      // by id
  std::vector<std::uint32_t> locals_;    // local ids in regions, see Membership
  std::vector<std::uint32_t> old_locals_;  // scratch: one proxy's local ids before a move
  std::vector<ProxyId> added_;           // since the last update
  std::vector<ProxyId> removed_;         // since the last update
  std::vector<ProxyId> free_ids_;        // reusable now
  std::vector<std::uint8_t> removed_mask_;  // by id, 1 while this update removes it
  std::uint32_t live_count_ = 0;
  std::int64_t swaps_ = 0;
  std::int64_t memberships_ = 0;
  PairSet pairs_;
};

}  // namespace fovea
