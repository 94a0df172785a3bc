#include "schedule/scheduler.hpp"

#include <algorithm>
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

  void run(NarrowPhase& narrowphase, Budget& budget) override {
    collect_active(narrowphase, active_);
    walk_(narrowphase, budget, active_);
  }
  bool uses_priority() const override { return false; }

 private:
  Walk walk_;
  std::vector<std::uint32_t> active_;
};

/// 004 section 3.4.3: "the active collision list is then sorted based on this priority";
/// highest priority first, ties in list order. The sort is part of the frame's cost: with
/// a wall budget it eats into the time left for the descent, as 004 observed.
class SortedSequentialScheduler final : public Scheduler {
 public:
  void run(NarrowPhase& narrowphase, Budget& budget) override {
    // std::sort on (priority, list position) rather than std::stable_sort, which allocates
    // a buffer on every call; the position makes the keys unique, so the order is the same.
    keyed_.clear();
    reserve_geometric(keyed_, narrowphase.size());
    reserve_geometric(active_, narrowphase.size());
    std::uint32_t position = 0;
    for (const std::uint32_t slot : narrowphase.order()) {
      const Collision& c = narrowphase.collision(slot);
      if (c.status == CollisionStatus::needs_more_work) keyed_.push_back({c.priority, position, slot});
      ++position;
    }
    std::sort(keyed_.begin(), keyed_.end(), [](const Keyed& x, const Keyed& y) {
      return x.priority != y.priority ? x.priority > y.priority : x.position < y.position;
    });
    active_.clear();
    for (const Keyed& k : keyed_) active_.push_back(k.slot);
    sequential(narrowphase, budget, active_);
  }
  bool uses_priority() const override { return true; }

 private:
  struct Keyed {
    double priority;
    std::uint32_t position;
    std::uint32_t slot;
  };
  std::vector<Keyed> keyed_;
  std::vector<std::uint32_t> active_;
};

/// 004 section 3.4.3: the perception model only picks a collision's queue; round robin
/// inside a queue; a queue is processed only when every higher queue is resolved.
class PriorityQueueScheduler final : public Scheduler {
 public:
  explicit PriorityQueueScheduler(const ScheduleSettings& settings)
      : band_edges_(settings.band_edges), queues_(static_cast<std::size_t>(settings.queues)) {}

  void run(NarrowPhase& narrowphase, Budget& budget) override {
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

std::unique_ptr<Scheduler> make_scheduler(const ScheduleSettings& settings) {
  switch (settings.kind) {
    case SchedulerKind::round_robin: return std::make_unique<ListOrderScheduler>(round_robin);
    case SchedulerKind::sequential:
      return std::make_unique<ListOrderScheduler>(
          [](NarrowPhase& narrowphase, Budget& budget, std::vector<std::uint32_t>& slots) { sequential(narrowphase, budget, slots); });
    case SchedulerKind::sorted_sequential: return std::make_unique<SortedSequentialScheduler>();
    case SchedulerKind::priority_queues: {
      const std::string problem = check_schedule_settings(settings);
      if (!problem.empty()) throw std::invalid_argument("schedule: " + problem);
      return std::make_unique<PriorityQueueScheduler>(settings);
    }
    default: break;
  }
  throw std::invalid_argument("schedule: unknown scheduler");
}

}  // namespace fovea
