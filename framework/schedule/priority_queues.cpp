// 004 section 3.4.3's priority queues: the perception model only picks a collision's queue.

#include <stdexcept>
#include <string>
#include <vector>

#include "core/containers.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/walks.hpp"

namespace fovea {
namespace {

/// Each active collision to the queue of its priority's band; round robin inside a queue; a
/// queue is processed only when every higher queue is resolved.
class PriorityQueueScheduler final : public Scheduler {
 public:
  explicit PriorityQueueScheduler(const ScheduleSettings& settings)
      : Scheduler(SchedulerKind::priority_queues),
        band_edges_(settings.band_edges),
        queues_(static_cast<std::size_t>(settings.queues)) {}

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

 private:
  std::vector<double> band_edges_;
  std::vector<std::vector<std::uint32_t>> queues_;
};

}  // namespace

std::unique_ptr<Scheduler> make_priority_queue_scheduler(const ScheduleSettings& settings, std::uint64_t) {
  const std::string problem = check_schedule_settings(settings);
  if (!problem.empty()) throw std::invalid_argument("schedule: " + problem);
  return std::make_unique<PriorityQueueScheduler>(settings);
}

}  // namespace fovea
