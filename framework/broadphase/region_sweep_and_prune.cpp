#include "broadphase/region_sweep_and_prune.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/containers.hpp"
#include "core/format.hpp"
#include "core/thread_pool.hpp"

namespace fovea {

namespace {

/// Keys of a slot with no proxy, as SweepAndPrune keeps them: never overlapping anything.
constexpr BoxKeys kEmptyKeys{{{0xffffffffu, 0}, {0xffffffffu, 0}, {0xffffffffu, 0}}};

/// Slots of locals_ a proxy gets at first: most boxes touch one region, a box on a border
/// two or four, one at a grid corner eight.
constexpr std::uint32_t kInitialLocalSlots = 4;

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

RegionSweepAndPrune::RegionSweepAndPrune(const RegionGrid& grid) : grid_(grid), automatic_(grid.cell_m == 0) {
  if (!(grid.cell_m >= 0) || !std::isfinite(grid.cell_m))
    throw std::invalid_argument("RegionSweepAndPrune: cell side " + format_number(grid.cell_m) +
                                " m; it must be finite and >= 0 (0 for an automatic grid)");
  if (grid.cell_m > 0) {
    for (int k = 0; k < 3; ++k)
      if (grid.cells[k] == 0) throw std::invalid_argument("RegionSweepAndPrune: a grid needs at least one cell per axis");
    build_regions();
  }
}

RegionSweepAndPrune::~RegionSweepAndPrune() = default;
RegionSweepAndPrune::RegionSweepAndPrune(RegionSweepAndPrune&&) noexcept = default;
RegionSweepAndPrune& RegionSweepAndPrune::operator=(RegionSweepAndPrune&&) noexcept = default;

void RegionSweepAndPrune::throw_bad_box(ProxyId id, const Aabb& box, int axis) {
  throw std::invalid_argument("RegionSweepAndPrune: proxy " + std::to_string(id) + "'s box on axis " + "xyz"[axis] +
                              " runs from " + format_number(box.min_m[axis]) + " to " + format_number(box.max_m[axis]) +
                              " m; a box needs min <= max and no NaN");
}

void RegionSweepAndPrune::throw_unknown(ProxyId id) {
  throw std::out_of_range("RegionSweepAndPrune: proxy " + std::to_string(id) + " does not exist");
}

ProxyId RegionSweepAndPrune::add(const Aabb& box, bool is_static) {
  const bool reuse = !free_ids_.empty();
  const ProxyId id = reuse ? free_ids_.back() : static_cast<ProxyId>(flags_.size());
  if (!reuse && flags_.size() >= kMaxProxies) throw std::length_error("RegionSweepAndPrune: more than 2^31 - 1 proxies");
  check_box(id, box);
  if (reuse) {
    free_ids_.pop_back();
  } else {
    stored_.push_back(kEmptyKeys);
    next_.push_back(kEmptyKeys);
    membership_.push_back({{0, 0, 0}, {0, 0, 0}, 0, 0});
    removed_mask_.push_back(0);
    flags_.push_back(0);  // last: flags_ defines the id count
  }
  flags_[id] = static_cast<std::uint8_t>(kLive | kAdded | (is_static ? kStatic : 0));
  stored_[id] = kEmptyKeys;
  next_[id] = bound_key::box_keys(box);
  added_.push_back(id);
  ++live_count_;
  return id;
}

void RegionSweepAndPrune::remove(ProxyId id) {
  if (!is_live(id)) throw_unknown(id);
  flags_[id] = static_cast<std::uint8_t>(flags_[id] & ~kLive);
  removed_.push_back(id);
  --live_count_;
}

std::size_t RegionSweepAndPrune::region_count() const { return regions_.size(); }

Aabb RegionSweepAndPrune::stored_box(ProxyId id) const {
  Aabb box;
  for (int k = 0; k < 3; ++k) {
    box.min_m[k] = bound_key::to_float(stored_[id].key[k][0]);
    box.max_m[k] = bound_key::to_float(stored_[id].key[k][1]);
  }
  return box;
}

// The grid is chosen from the boxes of the first update with proxies, and chosen again when
// the proxy count has grown fourfold (update(), regrid()): a cell side s
// giving about proxies_per_region proxies per cell over the extent of the finite boxes
// (axes flatter than s get one cell, so a flat world is cut in two dimensions), and no
// smaller than min_cell_over_box_side mean box sides.
void RegionSweepAndPrune::choose_grid() {
  grid_chosen_ = true;
  grid_chosen_for_ = live_count_;
  if (!automatic_) return;
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = std::numeric_limits<double>::infinity();
    hi[k] = -std::numeric_limits<double>::infinity();
  }
  double side_sum_m = 0;
  std::size_t finite = 0;
  for (ProxyId id = 0; id < flags_.size(); ++id) {
    if (!(flags_[id] & kLive)) continue;
    const Aabb box{Vec3(bound_key::to_float(next_[id].key[0][0]), bound_key::to_float(next_[id].key[1][0]),
                        bound_key::to_float(next_[id].key[2][0])),
                   Vec3(bound_key::to_float(next_[id].key[0][1]), bound_key::to_float(next_[id].key[1][1]),
                        bound_key::to_float(next_[id].key[2][1]))};
    bool is_finite = true;
    for (int k = 0; k < 3; ++k) is_finite &= std::isfinite(box.min_m[k]) && std::isfinite(box.max_m[k]);
    if (!is_finite) continue;
    ++finite;
    const Vec3 size = box.size_m();
    side_sum_m += std::max({size.x, size.y, size.z});
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], box.min_m[k]);
      hi[k] = std::max(hi[k], box.max_m[k]);
    }
  }
  grid_.cells = {1, 1, 1};
  grid_.origin_m = Vec3(0.0);
  grid_.cell_m = 1;
  const double target_regions = static_cast<double>(finite) / std::max<std::uint32_t>(grid_.proxies_per_region, 1);
  if (target_regions > 1.5) {
    const double min_cell_m = grid_.min_cell_over_box_side * side_sum_m / static_cast<double>(finite);
    double extent_m[3];
    for (int k = 0; k < 3; ++k) extent_m[k] = std::max(hi[k] - lo[k], 1e-9);
    // The side that cuts the volume into target_regions cubes, taken again over the axes
    // longer than it until no flat axis is left among them.
    double cell_m = std::cbrt(extent_m[0] * extent_m[1] * extent_m[2] / target_regions);
    for (int round = 0; round < 3; ++round) {
      double volume = 1;
      int long_axes = 0;
      for (int k = 0; k < 3; ++k)
        if (extent_m[k] > cell_m) {
          volume *= extent_m[k];
          ++long_axes;
        }
      if (long_axes == 0) break;
      cell_m = std::pow(volume / target_regions, 1.0 / long_axes);
    }
    cell_m = std::max(cell_m, min_cell_m);
    if (cell_m > 0 && std::isfinite(cell_m)) {
      // Whole cells over the extent, at most 1024 per axis (so that no grid holds more
      // regions than memory allows), each stretched to fit it: a last cell hanging mostly
      // beyond the extent would leave its neighbours holding more than their share.
      grid_.origin_m = Vec3(lo[0], lo[1], lo[2]);
      for (int k = 0; k < 3; ++k) {
        grid_.cells[k] = static_cast<std::uint16_t>(std::clamp(std::round(extent_m[k] / cell_m), 1.0, 1024.0));
        cell_size_m_[k] = extent_m[k] / grid_.cells[k];
      }
      grid_.cell_m = std::max({cell_size_m_.x, cell_size_m_.y, cell_size_m_.z});
      inverse_cell_m_ = 1.0 / cell_size_m_;
      regions_.clear();
      regions_.resize(static_cast<std::size_t>(grid_.cells[0]) * grid_.cells[1] * grid_.cells[2]);
      return;
    }
  }
  build_regions();
}

void RegionSweepAndPrune::build_regions() {
  grid_chosen_ = true;
  cell_size_m_ = Vec3(grid_.cell_m);
  inverse_cell_m_ = 1.0 / cell_size_m_;
  regions_.clear();
  regions_.resize(static_cast<std::size_t>(grid_.cells[0]) * grid_.cells[1] * grid_.cells[2]);
}

std::uint16_t RegionSweepAndPrune::cell_of(int axis, std::uint32_t key) const {
  const std::uint16_t last = grid_.cells[axis] - 1;
  if (last == 0) return 0;
  // Monotone in the key (subtraction and multiplication by a positive number keep float
  // order), so a box's cells are those of its min to those of its max, and the owner of a
  // pair, the cell of a point inside both boxes, is among the cells of each.
  const double t = (static_cast<double>(bound_key::to_float(key)) - grid_.origin_m[axis]) * inverse_cell_m_[axis];
  if (!(t > 0)) return 0;
  if (t >= last) return last;
  return static_cast<std::uint16_t>(t);
}

std::uint32_t RegionSweepAndPrune::owner(const BoxKeys& a, const BoxKeys& b) const {
  std::uint32_t cell[3];
  for (int k = 0; k < 3; ++k) cell[k] = cell_of(k, std::max(a.key[k][0], b.key[k][0]));
  return region_index(cell[0], cell[1], cell[2]);
}

bool RegionSweepAndPrune::overlap(const BoxKeys& a, const BoxKeys& b) {
  bool all = true;
  for (int k = 0; k < 3; ++k) all &= (a.key[k][0] <= b.key[k][1]) & (b.key[k][0] <= a.key[k][1]);
  return all;
}

void RegionSweepAndPrune::update(ThreadPool* pool) {
  if (!grid_chosen_ && live_count_ > 0) choose_grid();
  pairs_.begin_frame(live_count_);

  apply_removals();
  // A world that grew far beyond the one the grid was chosen for (entities spawned after
  // the start) would otherwise keep regions of ever more proxies. Rare: fourfold growth.
  const bool regridding = automatic_ && grid_chosen_ &&
                          live_count_ >= 4 * std::max(grid_chosen_for_, grid_.proxies_per_region);
  if (regridding) regrid();
  move_proxies();

  // Each region's sort and its share of the report write only that region's data and read
  // the proxies' keys, which nothing writes until the batch ends: the regions are
  // independent tasks, in any order, on any thread.
  const auto region_task = [this](std::size_t r) {
    regions_[r].sweep.update();
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
  if (regridding)
    for (const ProxyPair& p : pairs_.current())
      if (removed_mask_[p.a] || removed_mask_[p.b] || !overlap(next_[p.a], next_[p.b])) pairs_.record_stopped(p);
  pairs_.finish_changes();

  // The new boxes become the stored ones: read as the old boxes until here. A free id's
  // are both empty, and a removed one's are emptied below, so the whole array can be copied
  // (one copy, no allocation: the two have the same size).
  stored_ = next_;
  for (ProxyId id : added_) flags_[id] = static_cast<std::uint8_t>(flags_[id] & ~kAdded);
  added_.clear();
  // Ids freed by this update become reusable only now, after their stops were reported.
  for (ProxyId id : removed_) {
    removed_mask_[id] = 0;
    flags_[id] = 0;
    stored_[id] = next_[id] = kEmptyKeys;
    free_ids_.push_back(id);
  }
  removed_.clear();
}

void RegionSweepAndPrune::regrid() {
  for (ProxyId id = 0; id < flags_.size(); ++id) flags_[id] = static_cast<std::uint8_t>(flags_[id] & ~kInRegions);
  grid_.cell_m = 0;
  choose_grid();
  Membership range{};
  for (ProxyId id = 0; id < flags_.size(); ++id) {
    if ((flags_[id] & (kLive | kAdded)) != kLive) continue;  // added ones enter in move_proxies
    for (int k = 0; k < 3; ++k) {
      range.lo[k] = cell_of(k, next_[id].key[k][0]);
      range.hi[k] = cell_of(k, next_[id].key[k][1]);
    }
    enter_regions(id, range);
  }
}

void RegionSweepAndPrune::apply_removals() {
  if (removed_.empty()) return;
  for (ProxyId id : removed_) {
    removed_mask_[id] = 1;
    if (flags_[id] & kInRegions) leave_regions(id);
  }
  // A proxy added and removed between two updates never reached the regions.
  std::erase_if(added_, [&](ProxyId id) { return removed_mask_[id] != 0; });
}

void RegionSweepAndPrune::leave_regions(ProxyId id) {
  const Membership& m = membership_[id];
  std::uint32_t slot = m.first;
  for (std::uint32_t z = m.lo[2]; z <= m.hi[2]; ++z)
    for (std::uint32_t y = m.lo[1]; y <= m.hi[1]; ++y)
      for (std::uint32_t x = m.lo[0]; x <= m.hi[0]; ++x) regions_[region_index(x, y, z)].sweep.remove(locals_[slot++]);
  flags_[id] = static_cast<std::uint8_t>(flags_[id] & ~kInRegions);
}

// Takes `range`'s slots (moving the proxy's slots to the end of locals_ if it needs more)
// and adds the proxy to every region of the range not in its old one, keeping its local id
// in those of both; the old regions it left are done by the caller beforehand.
void RegionSweepAndPrune::enter_regions(ProxyId id, const Membership& range) {
  Membership& m = membership_[id];
  const bool was_in = (flags_[id] & kInRegions) != 0;
  const std::uint32_t count = range.count();
  if (count > m.capacity) {
    m.capacity = std::max({count, 2 * m.capacity, kInitialLocalSlots});
    m.first = static_cast<std::uint32_t>(locals_.size());
    locals_.resize(locals_.size() + m.capacity);
  }
  const bool is_static = (flags_[id] & kStatic) != 0;
  const BoxKeys& keys = next_[id];
  std::uint32_t slot = m.first;
  for (std::uint32_t z = range.lo[2]; z <= range.hi[2]; ++z)
    for (std::uint32_t y = range.lo[1]; y <= range.hi[1]; ++y)
      for (std::uint32_t x = range.lo[0]; x <= range.hi[0]; ++x) {
        Region& region = regions_[region_index(x, y, z)];
        if (was_in && inside(m.lo, m.hi, x, y, z)) {
          // Still in this region: the local id it had, found by its place in the old range.
          const std::uint32_t old_slot = ((z - m.lo[2]) * (m.hi[1] - m.lo[1] + 1u) + (y - m.lo[1])) * (m.hi[0] - m.lo[0] + 1u) + (x - m.lo[0]);
          const std::uint32_t local = old_locals_[old_slot];
          region.sweep.set_keys(local, keys);
          locals_[slot++] = local;
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
  flags_[id] = static_cast<std::uint8_t>(flags_[id] | kInRegions);
}

void RegionSweepAndPrune::move_proxies() {
  Membership range{};
  const auto range_of = [&](ProxyId id) {
    for (int k = 0; k < 3; ++k) {
      range.lo[k] = cell_of(k, next_[id].key[k][0]);
      range.hi[k] = cell_of(k, next_[id].key[k][1]);
    }
  };
  for (ProxyId id : added_) {
    range_of(id);
    enter_regions(id, range);
  }
  for (ProxyId id = 0; id < flags_.size(); ++id) {
    if ((flags_[id] & (kLive | kAdded | kInRegions)) != (kLive | kInRegions) || next_[id] == stored_[id]) continue;
    range_of(id);
    Membership& m = membership_[id];
    // Compared element by element: std::equal merged the 16-bit cells into wider loads of
    // `range`, just written 16 bits at a time, and the failed store forwarding cost more
    // than the rest of this loop (perf annotate: 38% of it on that compare).
    bool same_range = true;
    for (int k = 0; k < 3; ++k) same_range &= (range.lo[k] == m.lo[k]) & (range.hi[k] == m.hi[k]);
    if (same_range) {
      // The common case: the box moved within the same regions, most often one.
      if (m.lo[0] == m.hi[0] && m.lo[1] == m.hi[1] && m.lo[2] == m.hi[2]) {
        regions_[region_index(m.lo[0], m.lo[1], m.lo[2])].sweep.set_keys(locals_[m.first], next_[id]);
        continue;
      }
      std::uint32_t slot = m.first;
      for (std::uint32_t z = m.lo[2]; z <= m.hi[2]; ++z)
        for (std::uint32_t y = m.lo[1]; y <= m.hi[1]; ++y)
          for (std::uint32_t x = m.lo[0]; x <= m.hi[0]; ++x) regions_[region_index(x, y, z)].sweep.set_keys(locals_[slot++], next_[id]);
      continue;
    }
    // Crossed a border: out of the regions it left, into those it entered.
    old_locals_.assign(locals_.begin() + m.first, locals_.begin() + m.first + m.count());
    std::uint32_t slot = 0;
    for (std::uint32_t z = m.lo[2]; z <= m.hi[2]; ++z)
      for (std::uint32_t y = m.lo[1]; y <= m.hi[1]; ++y)
        for (std::uint32_t x = m.lo[0]; x <= m.hi[0]; ++x, ++slot)
          if (!inside(range.lo, range.hi, x, y, z)) regions_[region_index(x, y, z)].sweep.remove(old_locals_[slot]);
    enter_regions(id, range);
  }
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
  for (const ProxyPair& p : local.started()) {
    const ProxyId a = region.global_of_local[p.a];
    const ProxyId b = region.global_of_local[p.b];
    if (owner(next_[a], next_[b]) != region_index) continue;
    const bool overlapped_before = !((flags_[a] | flags_[b]) & kAdded) && overlap(stored_[a], stored_[b]);
    if (!overlapped_before) region.started.push_back(a < b ? ProxyPair{a, b} : ProxyPair{b, a});
  }
  for (const ProxyPair& p : local.stopped()) {
    const ProxyId a = region.global_of_local[p.a];
    const ProxyId b = region.global_of_local[p.b];
    if (owner(stored_[a], stored_[b]) != region_index) continue;
    const bool overlaps_now = !(removed_mask_[a] | removed_mask_[b]) && overlap(next_[a], next_[b]);
    if (!overlaps_now) region.stopped.push_back(a < b ? ProxyPair{a, b} : ProxyPair{b, a});
  }
}

}  // namespace fovea
