// Adaptive queues: 004's priority queues with bands by rank instead of fixed f edges.

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "schedule/scheduler.hpp"
#include "schedule/sorted_slots.hpp"
#include "schedule/walks.hpp"

namespace fovea {
namespace {

/// Bands by rank instead of fixed f edges (the schedulers study found that near the fixation
/// f saturates and 004's queue 0 holds almost every collision): queue 0 takes the n
/// collisions of highest priority, where n is how many the budget resolved last frame, queue
/// 1 the next n, and so on, the last queue the rest. Round robin inside a queue; a queue is
/// processed only when every higher one is resolved, as in 004's priority queues.
class AdaptiveQueueScheduler final : public Scheduler {
 public:
  explicit AdaptiveQueueScheduler(const ScheduleSettings& settings)
      : Scheduler(SchedulerKind::adaptive_queues), queues_(static_cast<std::size_t>(settings.queues)) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext&) override {
    collect_active(narrowphase, active_);
    order_.sort(narrowphase, active_, [](const Collision& c) { return c.priority; });
    const std::span<const std::uint32_t> ranked = order_.slots();
    // Every collision's queue first (the records' `queue`), as priority queues do, then the
    // queues in turn.
    const std::size_t band = std::max<std::size_t>(1, resolved_last_frame_);
    const auto queue_of = [&](std::size_t rank) { return std::min(rank / band, queues_ - 1); };
    for (std::size_t i = 0; i < ranked.size(); ++i)
      narrowphase.collision(ranked[i]).queue = static_cast<std::int32_t>(queue_of(i));
    for (std::size_t begin = 0; begin < ranked.size();) {
      const std::size_t q = queue_of(begin);
      active_.clear();
      std::size_t end = begin;
      while (end < ranked.size() && queue_of(end) == q) active_.push_back(ranked[end++]);
      round_robin(narrowphase, budget, active_);
      begin = end;
      if (budget.was_exhausted()) break;
    }
    // What this budget resolved: next frame's band.
    resolved_last_frame_ = 0;
    for (const std::uint32_t slot : ranked)
      if (narrowphase.collision(slot).status != CollisionStatus::needs_more_work) ++resolved_last_frame_;
  }

 private:
  std::size_t queues_;
  std::size_t resolved_last_frame_ = 0;
  std::vector<std::uint32_t> active_;
  SortedSlots order_;
};

}  // namespace

std::unique_ptr<Scheduler> make_adaptive_queue_scheduler(const ScheduleSettings& settings, std::uint64_t) {
  if (settings.queues < 1) throw std::invalid_argument("schedule: needs at least one queue");
  return std::make_unique<AdaptiveQueueScheduler>(settings);
}

}  // namespace fovea
