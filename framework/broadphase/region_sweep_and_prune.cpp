#include "broadphase/region_sweep_and_prune.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/containers.hpp"
#include "core/format.hpp"
#include "core/thread_pool.hpp"

namespace fovea {

namespace {

/// Slots of locals_ a proxy gets at first: most boxes touch one region, a box on a border
/// two or four, one at a grid corner eight.
constexpr std::uint32_t kInitialLocalSlots = 4;

/// The fewest proxies per chunk of the passes over every proxy that run on the threads (at
/// most four chunks a thread: ThreadPool::for_chunks).
constexpr std::size_t kProxiesPerChunk = 1024;

/// Whether a proxy with these flags was merged in by an earlier update and not removed since.
bool merged_in(std::uint8_t flags) {
  return (flags & (ProxyRoster::kLive | ProxyRoster::kAdded)) == ProxyRoster::kLive;
}

bool inside(const std::uint16_t lo[3], const std::uint16_t hi[3], std::uint32_t x, std::uint32_t y, std::uint32_t z) {
  return x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1] && z >= lo[2] && z <= hi[2];
}

}  // namespace

/// One region: a sweep of the proxies whose boxes touch its cell, under its own local ids.
struct RegionSweepAndPrune::Region {
  SweepAndPrune sweep;
  std::vector<ProxyId> global_of_local;
  /// The pairs this region owns among those its last update started and stopped, in global
  /// ids: its share of the frame's report.
  std::vector<ProxyPair> started;
  std::vector<ProxyPair> stopped;
};

RegionSweepAndPrune::RegionSweepAndPrune(const RegionGrid& grid) : cells_(grid), automatic_(grid.cell_m == 0) {
  if (!(grid.cell_m >= 0) || !std::isfinite(grid.cell_m))
    throw std::invalid_argument("RegionSweepAndPrune: cell side " + format_number(grid.cell_m) +
                                " m; it must be finite and >= 0 (0 for an automatic grid)");
  if (grid.cell_m > 0) {
    for (int k = 0; k < 3; ++k)
      if (grid.cells[k] == 0) throw std::invalid_argument("RegionSweepAndPrune: a grid needs at least one cell per axis");
    grid_chosen_ = true;
    regions_.resize(cells_.region_count());
  }
}

RegionSweepAndPrune::~RegionSweepAndPrune() = default;
RegionSweepAndPrune::RegionSweepAndPrune(RegionSweepAndPrune&&) noexcept = default;
RegionSweepAndPrune& RegionSweepAndPrune::operator=(RegionSweepAndPrune&&) noexcept = default;

ProxyId RegionSweepAndPrune::add(const Aabb& box, bool is_static) {
  const ProxyId id = roster_.next_id();
  roster_.check_box(id, box);
  if (id == next_.size()) {  // before the roster counts the id, in case one throws
    stored_.push_back(kEmptyBoxKeys);
    next_.push_back(kEmptyBoxKeys);
    membership_.push_back({{0, 0, 0}, {0, 0, 0}, 0, 0});
  }
  roster_.add(is_static);
  stored_[id] = kEmptyBoxKeys;
  next_[id] = bound_key::box_keys(box);
  return id;
}

void RegionSweepAndPrune::remove(ProxyId id) { roster_.remove(id); }

std::size_t RegionSweepAndPrune::region_count() const { return regions_.size(); }

// Chosen at the first update with proxies, and again when the proxy count has grown fourfold
// (update(), regrid()): RegionCells::fitted to their boxes as set for this update.
void RegionSweepAndPrune::choose_grid() {
  grid_chosen_ = true;
  grid_chosen_for_ = roster_.live_count();
  if (!automatic_) return;
  BoxSpread boxes;
  const std::span<const std::uint8_t> flags = roster_.flags();
  for (ProxyId id = 0; id < flags.size(); ++id)
    if (flags[id] & ProxyRoster::kLive) boxes.add(bound_key::box_of(next_[id]));
  cells_ = RegionCells::fitted(cells_.grid(), boxes);
  regions_.clear();
  regions_.resize(cells_.region_count());
}

void RegionSweepAndPrune::update(ThreadPool* pool) {
  if (!grid_chosen_ && roster_.live_count() > 0) choose_grid();
  pairs_.begin_frame(roster_.live_count());

  roster_.begin_update();
  apply_removals();
  // A world that grew far beyond the one the grid was chosen for (entities spawned after
  // the start) would otherwise keep regions of ever more proxies. Rare: fourfold growth.
  const bool regridding = automatic_ && grid_chosen_ &&
                          roster_.live_count() >= 4 * std::max(grid_chosen_for_, cells_.grid().proxies_per_region);
  if (regridding) regrid();
  move_proxies(pool);

  // Each region takes its members' new keys, sorts and reports its share, writing only that
  // region's data and reading the proxies' keys, which nothing writes until the batch ends:
  // the regions are independent tasks, in any order, on any thread. Taking the keys in the
  // task (not in move_proxies, which now touches a region only where a box crossed a border)
  // means the sort reads keys its own thread has just written: perf showed the sort's first
  // pass stalled on keys move_proxies had written long before, in entity order.
  const auto region_task = [this](std::size_t r) {
    Region& region = regions_[r];
    region.sweep.gather_keys(next_, region.global_of_local);
    region.sweep.update();
    report(static_cast<std::uint32_t>(r));
  };
  if (pool != nullptr && regions_.size() > 1)
    pool->run(regions_.size(), region_task);
  else
    for (std::size_t r = 0; r < regions_.size(); ++r) region_task(r);

  // Merged in region order; each pair comes from exactly one region, and finish_changes sorts.
  swaps_ = 0;
  memberships_ = 0;
  for (const Region& region : regions_) {
    for (const ProxyPair& p : region.started) pairs_.record_started(p);
    for (const ProxyPair& p : region.stopped) pairs_.record_stopped(p);
    swaps_ += region.sweep.last_swap_count();
    memberships_ += region.sweep.proxy_count();
  }
  // The new regions hold every proxy as new, so they report no stops: the pairs that
  // stopped are those of the list before that no longer overlap.
  if (regridding) {
    const std::span<const std::uint8_t> removed = roster_.removed_mask();
    for (const ProxyPair& p : pairs_.current())
      if (removed[p.a] || removed[p.b] || !bound_key::overlap(next_[p.a], next_[p.b])) pairs_.record_stopped(p);
  }
  pairs_.finish_changes();

  // The new boxes become the stored ones: read as the old boxes until here. A free id's
  // are both empty, and a removed one's are emptied below, so the whole array can be copied
  // (no allocation: the two have the same size), in chunks on the threads (2.4 MB at
  // 100,000 proxies).
  for_ranges(pool, next_.size(), kProxiesPerChunk, [this](std::size_t begin, std::size_t end) {
    std::copy(next_.begin() + static_cast<std::ptrdiff_t>(begin), next_.begin() + static_cast<std::ptrdiff_t>(end),
              stored_.begin() + static_cast<std::ptrdiff_t>(begin));
  });
  for (ProxyId id : roster_.removed()) stored_[id] = next_[id] = kEmptyBoxKeys;
  roster_.finish_update();  // the removed ids reusable only now, after their stops were reported
}

void RegionSweepAndPrune::regrid() {
  choose_grid();  // new, empty regions: every proxy enters them afresh
  Membership range{};
  const std::span<const std::uint8_t> flags = roster_.flags();
  for (ProxyId id = 0; id < flags.size(); ++id) {
    if (!merged_in(flags[id])) continue;  // added ones enter in move_proxies
    cells_.cell_range(next_[id], range.lo, range.hi);
    enter_regions(id, range, false);
  }
}

// Every proxy merged in by an update is in the regions of its membership until it is
// removed: those added since the last update are in none yet.
void RegionSweepAndPrune::apply_removals() {
  const std::span<const std::uint8_t> flags = roster_.flags();
  for (ProxyId id : roster_.removed())
    if (!(flags[id] & ProxyRoster::kAdded)) leave_regions(id);
}

void RegionSweepAndPrune::leave_regions(ProxyId id) {
  const Membership& m = membership_[id];
  std::uint32_t slot = m.first;
  for (std::uint32_t z = m.lo[2]; z <= m.hi[2]; ++z)
    for (std::uint32_t y = m.lo[1]; y <= m.hi[1]; ++y)
      for (std::uint32_t x = m.lo[0]; x <= m.hi[0]; ++x)
        regions_[cells_.region_index(x, y, z)].sweep.remove(locals_[slot++]);
}

// Takes `range`'s slots (moving the proxy's slots to the end of locals_ if it needs more)
// and adds the proxy to every region of the range not in its old one, keeping its local id
// in those of both; the old regions it left are done by the caller beforehand.
void RegionSweepAndPrune::enter_regions(ProxyId id, const Membership& range, bool was_in) {
  Membership& m = membership_[id];
  const std::uint32_t count = range.count();
  if (count > m.capacity) {
    m.capacity = std::max({count, 2 * m.capacity, kInitialLocalSlots});
    m.first = static_cast<std::uint32_t>(locals_.size());
    locals_.resize(locals_.size() + m.capacity);
  }
  const bool is_static = (roster_.flags()[id] & ProxyRoster::kStatic) != 0;
  const BoxKeys& keys = next_[id];
  std::uint32_t slot = m.first;
  for (std::uint32_t z = range.lo[2]; z <= range.hi[2]; ++z)
    for (std::uint32_t y = range.lo[1]; y <= range.hi[1]; ++y)
      for (std::uint32_t x = range.lo[0]; x <= range.hi[0]; ++x) {
        Region& region = regions_[cells_.region_index(x, y, z)];
        if (was_in && inside(m.lo, m.hi, x, y, z)) {
          // Still in this region: the local id it had, found by its place in the old range.
          const std::uint32_t old_slot = ((z - m.lo[2]) * (m.hi[1] - m.lo[1] + 1u) + (y - m.lo[1])) * (m.hi[0] - m.lo[0] + 1u) + (x - m.lo[0]);
          // Its keys are taken by the region's task, as every member's are.
          locals_[slot++] = old_locals_[old_slot];
        } else {
          const ProxyId local = region.sweep.add_keys(keys, is_static);
          if (local >= region.global_of_local.size()) region.global_of_local.resize(local + 1);
          region.global_of_local[local] = id;
          locals_[slot++] = local;
        }
      }
  for (int k = 0; k < 3; ++k) {
    m.lo[k] = range.lo[k];
    m.hi[k] = range.hi[k];
  }
}

void RegionSweepAndPrune::move_proxies(ThreadPool* pool) {
  Membership range{};
  for (ProxyId id : roster_.added()) {
    cells_.cell_range(next_[id], range.lo, range.hi);
    enter_regions(id, range, false);
  }
  // The proxies merged in before this update, all in their regions (apply_removals), whose
  // boxes now touch other cells. Finding them reads every proxy's keys, old and new, and its
  // cells (7 MB at 100,000 proxies; when it was serial, 2.5 % of the 100,000-ball frame at two
  // threads): it runs in chunks, each listing its crossers in id order. The moves themselves
  // write the regions and locals_, so they stay on this thread, in id order, as before.
  const std::span<const std::uint8_t> flags = roster_.flags();
  crossing_.resize(std::max(crossing_.size(), max_chunk_count(pool)));
  for (std::vector<Crossing>& crossing : crossing_) crossing.clear();
  for_chunks(pool, flags.size(), kProxiesPerChunk, [&](std::size_t chunk, std::size_t begin, std::size_t end) {
    std::vector<Crossing>& crossing = crossing_[chunk];
    Membership cells{};
    for (auto id = static_cast<ProxyId>(begin); id < end; ++id) {
      if (!merged_in(flags[id]) || next_[id] == stored_[id]) continue;
      cells_.cell_range(next_[id], cells.lo, cells.hi);
      const Membership& m = membership_[id];
      // Compared element by element: std::equal merged the 16-bit cells into wider loads of
      // `cells`, just written 16 bits at a time, and the failed store forwarding cost more
      // than the rest of this loop (perf annotate: 38% of it on that compare).
      bool same_cells = true;
      for (int k = 0; k < 3; ++k) same_cells &= (cells.lo[k] == m.lo[k]) & (cells.hi[k] == m.hi[k]);
      // The common case: the box moved within the same regions, which take its keys in their
      // own tasks (update()).
      if (!same_cells) crossing.push_back({id, cells});
    }
  });
  for (const std::vector<Crossing>& crossing : crossing_)  // chunks in id order
    for (const Crossing& c : crossing) cross_borders(c.id, c.cells);
}

// Out of the regions the proxy left, into those it entered.
void RegionSweepAndPrune::cross_borders(ProxyId id, const Membership& range) {
  const Membership& m = membership_[id];
  old_locals_.assign(locals_.begin() + m.first, locals_.begin() + m.first + m.count());
  std::uint32_t slot = 0;
  for (std::uint32_t z = m.lo[2]; z <= m.hi[2]; ++z)
    for (std::uint32_t y = m.lo[1]; y <= m.hi[1]; ++y)
      for (std::uint32_t x = m.lo[0]; x <= m.hi[0]; ++x, ++slot)
        if (!inside(range.lo, range.hi, x, y, z))
          regions_[cells_.region_index(x, y, z)].sweep.remove(old_locals_[slot]);
  enter_regions(id, range, true);
}

// A region's started and stopped pairs, kept when this region is the one to report them
// (see the class comment). Runs as a task: reads only keys, flags and the region itself.
void RegionSweepAndPrune::report(std::uint32_t region_index) {
  Region& region = regions_[region_index];
  region.started.clear();
  region.stopped.clear();
  const PairSet& local = region.sweep.pairs();
  reserve_geometric(region.started, local.started().size());
  reserve_geometric(region.stopped, local.stopped().size());
  const std::span<const std::uint8_t> flags = roster_.flags();
  const std::span<const std::uint8_t> removed = roster_.removed_mask();
  for (const ProxyPair& p : local.started()) {
    const ProxyId a = region.global_of_local[p.a];
    const ProxyId b = region.global_of_local[p.b];
    if (cells_.owner(next_[a], next_[b]) != region_index) continue;
    const bool overlapped_before =
        !((flags[a] | flags[b]) & ProxyRoster::kAdded) && bound_key::overlap(stored_[a], stored_[b]);
    if (!overlapped_before) region.started.push_back(a < b ? ProxyPair{a, b} : ProxyPair{b, a});
  }
  for (const ProxyPair& p : local.stopped()) {
    const ProxyId a = region.global_of_local[p.a];
    const ProxyId b = region.global_of_local[p.b];
    if (cells_.owner(stored_[a], stored_[b]) != region_index) continue;
    const bool overlaps_now = !(removed[a] | removed[b]) && bound_key::overlap(next_[a], next_[b]);
    if (!overlaps_now) region.stopped.push_back(a < b ? ProxyPair{a, b} : ProxyPair{b, a});
  }
}

}  // namespace fovea
