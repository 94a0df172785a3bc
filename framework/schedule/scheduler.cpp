#include "schedule/scheduler.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/containers.hpp"

namespace fovea {
namespace {

/// Collects the collisions still needing work, in list order. Scratch lists get room for
/// every collision, so they reach their size in the first frames and stay there.
void collect_active(const NarrowPhase& narrowphase, std::vector<std::uint32_t>& out) {
  out.clear();
  reserve_geometric(out, narrowphase.size());
  for (const std::uint32_t slot : narrowphase.order())
    if (narrowphase.collision(slot).status == CollisionStatus::needs_more_work) out.push_back(slot);
}

/// Round robin over `active` (Hubbard): each pass takes every collision still active one
/// level down, in order, and drops the resolved ones; `active` is consumed.
void round_robin(NarrowPhase& narrowphase, Budget& budget, std::vector<std::uint32_t>& active) {
  while (!active.empty()) {
    std::size_t kept = 0;
    for (const std::uint32_t slot : active) {
      if (narrowphase.step(slot, budget) == CollisionStatus::needs_more_work) active[kept++] = slot;
      if (budget.was_exhausted()) return;
    }
    active.resize(kept);
  }
}

/// Each collision of `slots` to completion in turn.
void sequential(NarrowPhase& narrowphase, Budget& budget, const std::vector<std::uint32_t>& slots) {
  for (const std::uint32_t slot : slots) {
    while (narrowphase.step(slot, budget) == CollisionStatus::needs_more_work)
      if (budget.was_exhausted()) return;
  }
}

/// Round robin or sequential over the active collisions in list order: the two perception-
/// blind schedulers differ only in the walk.
class ListOrderScheduler final : public Scheduler {
 public:
  /// Refines the collisions of the list, which it may shorten as they resolve.
  using Walk = void (*)(NarrowPhase&, Budget&, std::vector<std::uint32_t>&);
  explicit ListOrderScheduler(Walk walk) : walk_(walk) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext&) override {
    collect_active(narrowphase, active_);
    walk_(narrowphase, budget, active_);
  }
  bool uses_priority() const override { return false; }

 private:
  Walk walk_;
  std::vector<std::uint32_t> active_;
};

/// A collision's place in a sorted order: highest key first, ties in list order.
struct Keyed {
  double key;
  std::uint32_t position;
  std::uint32_t slot;
};

/// Sorts `keyed` by key, highest first, ties in list order. std::sort on (key, list
/// position) rather than std::stable_sort, which allocates a buffer on every call; the
/// position makes the keys unique, so the order is the same.
void sort_keyed(std::vector<Keyed>& keyed) {
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& x, const Keyed& y) {
    return x.key != y.key ? x.key > y.key : x.position < y.position;
  });
}

/// A collision's key for a KeyedSequentialScheduler.
using KeyOf = double (*)(const Collision& c, const ScheduleContext& context, std::uint64_t seed);

/// 004 section 3.4.3: "the active collision list is then sorted based on this priority";
/// highest first, ties in list order, then each to the end in turn. The baselines of the
/// schedulers study differ only in the key. The sort is part of the frame's cost: with a
/// wall budget it eats into the time left for the descent, as 004 observed.
class KeyedSequentialScheduler final : public Scheduler {
 public:
  KeyedSequentialScheduler(KeyOf key, bool uses_priority, bool uses_true_priority, std::uint64_t seed)
      : key_(key), uses_priority_(uses_priority), uses_true_priority_(uses_true_priority), seed_(seed) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext& context) override {
    keyed_.clear();
    reserve_geometric(keyed_, narrowphase.size());
    reserve_geometric(active_, narrowphase.size());
    std::uint32_t position = 0;
    for (const std::uint32_t slot : narrowphase.order()) {
      const Collision& c = narrowphase.collision(slot);
      if (c.status == CollisionStatus::needs_more_work) keyed_.push_back({key_(c, context, seed_), position, slot});
      ++position;
    }
    sort_keyed(keyed_);
    active_.clear();
    for (const Keyed& k : keyed_) active_.push_back(k.slot);
    sequential(narrowphase, budget, active_);
  }
  bool uses_priority() const override { return uses_priority_; }
  bool uses_true_priority() const override { return uses_true_priority_; }

 private:
  KeyOf key_;
  bool uses_priority_;
  bool uses_true_priority_;
  std::uint64_t seed_;
  std::vector<Keyed> keyed_;
  std::vector<std::uint32_t> active_;
};

double priority_key(const Collision& c, const ScheduleContext&, std::uint64_t) { return c.priority; }
double true_priority_key(const Collision& c, const ScheduleContext&, std::uint64_t) { return c.true_priority; }
/// Nearest the fixation first; off screen last.
double eccentricity_key(const Collision& c, const ScheduleContext&, std::uint64_t) {
  return c.visible ? -c.eccentricity_deg : -std::numeric_limits<double>::infinity();
}
/// A uniform draw from the pair, the frame and the seed (SplitMix64's finaliser): the same
/// order for the same run, whatever the slots, a new one every frame.
double random_key(const Collision& c, const ScheduleContext& context, std::uint64_t seed) {
  std::uint64_t z = seed ^ (static_cast<std::uint64_t>(context.frame) * 0x9e3779b97f4a7c15ull) ^
                    ((static_cast<std::uint64_t>(c.a) << 32) | c.b);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

/// Bands by rank instead of fixed f edges (the schedulers study found that near the fixation
/// f saturates and 004's queue 0 holds almost every collision): queue 0 takes the n
/// collisions of highest priority, where n is how many the budget resolved last frame, queue
/// 1 the next n, and so on, the last queue the rest. Round robin inside a queue; a queue is
/// processed only when every higher one is resolved, as in 004's priority queues.
class AdaptiveQueueScheduler final : public Scheduler {
 public:
  explicit AdaptiveQueueScheduler(const ScheduleSettings& settings) : queues_(static_cast<std::size_t>(settings.queues)) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext&) override {
    keyed_.clear();
    reserve_geometric(keyed_, narrowphase.size());
    reserve_geometric(active_, narrowphase.size());
    std::uint32_t position = 0;
    for (const std::uint32_t slot : narrowphase.order()) {
      const Collision& c = narrowphase.collision(slot);
      if (c.status == CollisionStatus::needs_more_work) keyed_.push_back({c.priority, position, slot});
      ++position;
    }
    sort_keyed(keyed_);
    // Every collision's queue first (the records' `queue`), as priority queues do, then the
    // queues in turn.
    const std::size_t band = std::max<std::size_t>(1, resolved_last_frame_);
    const auto queue_of = [&](std::size_t rank) { return std::min(rank / band, queues_ - 1); };
    for (std::size_t i = 0; i < keyed_.size(); ++i)
      narrowphase.collision(keyed_[i].slot).queue = static_cast<std::int32_t>(queue_of(i));
    for (std::size_t begin = 0; begin < keyed_.size();) {
      const std::size_t q = queue_of(begin);
      active_.clear();
      std::size_t end = begin;
      while (end < keyed_.size() && queue_of(end) == q) active_.push_back(keyed_[end++].slot);
      round_robin(narrowphase, budget, active_);
      begin = end;
      if (budget.was_exhausted()) break;
    }
    // What this budget resolved: next frame's band.
    resolved_last_frame_ = 0;
    for (const Keyed& k : keyed_)
      if (narrowphase.collision(k.slot).status != CollisionStatus::needs_more_work) ++resolved_last_frame_;
  }
  bool uses_priority() const override { return true; }

 private:
  std::size_t queues_;
  std::size_t resolved_last_frame_ = 0;
  std::vector<Keyed> keyed_;
  std::vector<std::uint32_t> active_;
};

/// Every collision its first `levels` levels in round robin, so none is repulsed at its roots
/// while another is refined to its leaves; then the rest of the budget sequentially by
/// priority, placed again from what those levels found (the reprioritiser), where the gap
/// bounds are much tighter than at the roots.
class HybridScheduler final : public Scheduler {
 public:
  explicit HybridScheduler(const ScheduleSettings& settings) : levels_(settings.hybrid_levels) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext& context) override {
    collect_active(narrowphase, active_);
    // The first part: `levels_` passes of round robin, one step of every active collision
    // each: a level, or the chain of last frame's deepest pair (coherence), which either
    // resolves the collision, leaves it below that pair, or sends it back to its roots.
    for (int pass = 0; pass < levels_ && !active_.empty(); ++pass) {
      std::size_t kept = 0;
      for (const std::uint32_t slot : active_) {
        if (narrowphase.step(slot, budget) == CollisionStatus::needs_more_work) active_[kept++] = slot;
        if (budget.was_exhausted()) return;
      }
      active_.resize(kept);
    }
    // The second part, by priority now; not if the passes spent the budget exactly (the
    // budget learns it is spent only when asked).
    if (active_.empty() || budget.exhausted()) return;
    if (context.reprioritiser != nullptr) context.reprioritiser->reprioritise(narrowphase, active_);
    keyed_.clear();
    reserve_geometric(keyed_, narrowphase.size());
    for (std::uint32_t i = 0; i < active_.size(); ++i)
      keyed_.push_back({narrowphase.collision(active_[i]).priority, i, active_[i]});
    sort_keyed(keyed_);
    active_.clear();
    for (const Keyed& k : keyed_) active_.push_back(k.slot);
    sequential(narrowphase, budget, active_);
  }
  bool uses_priority() const override { return true; }

 private:
  int levels_;
  std::vector<std::uint32_t> active_;
  std::vector<Keyed> keyed_;
};

/// 004 section 3.4.3: the perception model only picks a collision's queue; round robin
/// inside a queue; a queue is processed only when every higher queue is resolved.
class PriorityQueueScheduler final : public Scheduler {
 public:
  explicit PriorityQueueScheduler(const ScheduleSettings& settings)
      : band_edges_(settings.band_edges), queues_(static_cast<std::size_t>(settings.queues)) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext&) override {
    for (auto& q : queues_) {
      q.clear();
      reserve_geometric(q, narrowphase.size());
    }
    for (const std::uint32_t slot : narrowphase.order()) {
      Collision& c = narrowphase.collision(slot);
      if (c.status != CollisionStatus::needs_more_work) continue;
      // Edges decrease, so the queue is the number of edges above the priority.
      std::size_t q = 0;
      while (q < band_edges_.size() && c.priority < band_edges_[q]) ++q;
      c.queue = static_cast<std::int32_t>(q);
      queues_[q].push_back(slot);
    }
    for (auto& q : queues_) {
      round_robin(narrowphase, budget, q);
      if (budget.was_exhausted()) return;
    }
  }
  bool uses_priority() const override { return true; }

 private:
  std::vector<double> band_edges_;
  std::vector<std::vector<std::uint32_t>> queues_;
};

}  // namespace

const char* scheduler_name(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::round_robin: return "round_robin";
    case SchedulerKind::sequential: return "sequential";
    case SchedulerKind::sorted_sequential: return "sorted_sequential";
    case SchedulerKind::priority_queues: return "priority_queues";
    case SchedulerKind::adaptive_queues: return "adaptive_queues";
    case SchedulerKind::hybrid: return "hybrid";
    case SchedulerKind::oracle: return "oracle";
    case SchedulerKind::eccentricity: return "eccentricity";
    case SchedulerKind::random: return "random";
  }
  return "unknown";
}

std::string check_schedule_settings(const ScheduleSettings& settings) {
  if (settings.queues < 1) return "needs at least one queue";
  if (settings.band_edges.size() != static_cast<std::size_t>(settings.queues) - 1)
    return std::to_string(settings.queues) + " queues need " + std::to_string(settings.queues - 1) +
           " band edges, found " + std::to_string(settings.band_edges.size());
  for (std::size_t i = 0; i < settings.band_edges.size(); ++i) {
    const double e = settings.band_edges[i];
    if (!(e >= 0 && e <= 1)) return "band edges are priorities, in [0, 1]; found " + std::to_string(e);
    if (i > 0 && !(e < settings.band_edges[i - 1]))
      return "band edges must decrease strictly (queue 0 takes the highest priorities)";
  }
  return "";
}

std::unique_ptr<Scheduler> make_scheduler(const ScheduleSettings& settings, std::uint64_t seed) {
  switch (settings.kind) {
    case SchedulerKind::round_robin: return std::make_unique<ListOrderScheduler>(round_robin);
    case SchedulerKind::sequential:
      return std::make_unique<ListOrderScheduler>(
          [](NarrowPhase& narrowphase, Budget& budget, std::vector<std::uint32_t>& slots) { sequential(narrowphase, budget, slots); });
    case SchedulerKind::sorted_sequential:
      return std::make_unique<KeyedSequentialScheduler>(priority_key, true, false, seed);
    case SchedulerKind::priority_queues: {
      const std::string problem = check_schedule_settings(settings);
      if (!problem.empty()) throw std::invalid_argument("schedule: " + problem);
      return std::make_unique<PriorityQueueScheduler>(settings);
    }
    case SchedulerKind::adaptive_queues: {
      if (settings.queues < 1) throw std::invalid_argument("schedule: needs at least one queue");
      return std::make_unique<AdaptiveQueueScheduler>(settings);
    }
    case SchedulerKind::hybrid:
      if (settings.hybrid_levels < 0) throw std::invalid_argument("schedule: hybrid_levels must be >= 0");
      return std::make_unique<HybridScheduler>(settings);
    // The oracle needs no placement before its descent: the frame places its collisions
    // outside the budget, as for the perception-blind orders.
    case SchedulerKind::oracle: return std::make_unique<KeyedSequentialScheduler>(true_priority_key, false, true, seed);
    case SchedulerKind::eccentricity: return std::make_unique<KeyedSequentialScheduler>(eccentricity_key, true, false, seed);
    case SchedulerKind::random: return std::make_unique<KeyedSequentialScheduler>(random_key, false, false, seed);
  }
  throw std::invalid_argument("schedule: unknown scheduler");
}

}  // namespace fovea
