#pragma once

#include <cstdint>
#include <vector>

#include "broadphase/box_keys.hpp"
#include "broadphase/pair_set.hpp"
#include "broadphase/proxy_roster.hpp"
#include "broadphase/region_cells.hpp"
#include "broadphase/sweep_and_prune.hpp"
#include "core/math.hpp"

namespace fovea {

class ThreadPool;

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
///
/// The grid is a RegionCells; ids, and which proxies are live, static, added or removed, are
/// kept by a ProxyRoster, as in SweepAndPrune.
class RegionSweepAndPrune {
 public:
  /// Most proxy ids it hands out, 2^31 - 1 (an endpoint holds the id in 31 bits).
  static constexpr std::uint32_t kMaxProxies = SweepAndPrune::kMaxProxies;

  /// An empty broad phase on `grid` (cell_m 0: chosen automatically); std::invalid_argument for a
  /// negative or non-finite cell_m.
  explicit RegionSweepAndPrune(const RegionGrid& grid = {});
  ~RegionSweepAndPrune();
  /// Takes over another broad phase's proxies, regions and pairs.
  RegionSweepAndPrune(RegionSweepAndPrune&&) noexcept;
  /// Takes over another broad phase's proxies, regions and pairs.
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
    roster_.check_live(id);
    roster_.check_box(id, box);
    next_[id] = bound_key::box_keys(box);
  }

  /// Moves proxies between regions, re-sorts every region (as tasks on `pool` when given),
  /// and merges the regions' reports in a fixed order: the result is the same for any
  /// number of threads.
  void update(ThreadPool* pool = nullptr);

  /// The overlapping pairs as of the last update, and those that started and stopped in it.
  const PairSet& pairs() const { return pairs_; }
  /// Live proxies: added and not removed (the lists change at the next update).
  std::uint32_t proxy_count() const { return roster_.live_count(); }
  /// Whether `id` was added and not removed since (ProxyRoster::is_live).
  bool is_live(ProxyId id) const { return roster_.is_live(id); }
  /// The box as stored at the last update (outward-rounded floats, as doubles).
  Aabb stored_box(ProxyId id) const { return bound_key::box_of(stored_[id]); }

  /// Endpoint swaps of the last update, over all regions.
  std::int64_t last_swap_count() const { return swaps_; }
  /// Regions in the grid (0 until an automatic grid is chosen, at the first update with proxies).
  std::size_t region_count() const;
  /// Proxy memberships over all regions: proxy_count() plus those of boxes on borders.
  std::int64_t membership_count() const { return memberships_; }
  /// The grid as given, or as chosen once it is.
  const RegionGrid& grid() const { return cells_.grid(); }
  /// A cell's sides, metres, per axis (once the grid is chosen).
  Vec3 cell_size_m() const { return cells_.cell_size_m(); }

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

  /// Chooses the automatic grid from the live proxies' boxes (nothing for a grid given).
  void choose_grid();
  void apply_removals();
  /// Puts the added proxies into their regions, and moves those whose boxes now touch other
  /// cells; finding which did runs in chunks on `pool` (null: on the caller), the moves after
  /// it in id order.
  void move_proxies(ThreadPool* pool);
  /// `was_in`: the proxy is in the regions of its membership now (it crossed a border).
  void enter_regions(ProxyId id, const Membership& range, bool was_in);
  /// A proxy whose box moved from its membership's cells to `range`'s.
  void cross_borders(ProxyId id, const Membership& range);
  void leave_regions(ProxyId id);
  void report(std::uint32_t region_index);

  /// Drops every region and puts every proxy into the regions of a grid chosen anew.
  void regrid();

  RegionCells cells_;
  bool automatic_ = false;             // the grid is chosen from the proxies
  bool grid_chosen_ = false;
  std::uint32_t grid_chosen_for_ = 0;  // live proxies when the grid was chosen
  std::vector<Region> regions_;
  ProxyRoster roster_{"RegionSweepAndPrune"};
  std::vector<BoxKeys> stored_;          // by id: the boxes as of the last update
  std::vector<BoxKeys> next_;            // by id: as set for the next update
  std::vector<Membership> membership_;   // by id
  std::vector<std::uint32_t> locals_;    // local ids in regions, see Membership
  std::vector<std::uint32_t> old_locals_;  // scratch: one proxy's local ids before a move
  /// A proxy whose box now touches other cells, and those cells.
  struct Crossing {
    ProxyId id;
    Membership cells;
  };
  std::vector<std::vector<Crossing>> crossing_;  // scratch per chunk: the crossers, by id
  std::int64_t swaps_ = 0;
  std::int64_t memberships_ = 0;
  PairSet pairs_;
};

}  // namespace fovea
