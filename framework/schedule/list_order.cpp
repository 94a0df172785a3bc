// The two perception-blind schedulers of 004 section 3.4.3: round robin (Hubbard) and
// sequential, over the active collisions in list order (ascending entity pair).

#include <memory>
#include <vector>

#include "schedule/scheduler.hpp"
#include "schedule/walks.hpp"

namespace fovea {
namespace {

/// The active collisions in list order, walked in round robin or sequentially: the two
/// differ only in the walk.
class ListOrderScheduler final : public Scheduler {
 public:
  ListOrderScheduler(SchedulerKind kind, bool one_level_per_pass) : Scheduler(kind), round_robin_(one_level_per_pass) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext&) override {
    collect_active(narrowphase, active_);
    if (round_robin_)
      round_robin(narrowphase, budget, active_);
    else
      sequential(narrowphase, budget, active_);
  }

 private:
  bool round_robin_;
  std::vector<std::uint32_t> active_;
};

}  // namespace

std::unique_ptr<Scheduler> make_round_robin_scheduler(const ScheduleSettings&, std::uint64_t) {
  return std::make_unique<ListOrderScheduler>(SchedulerKind::round_robin, true);
}

std::unique_ptr<Scheduler> make_sequential_scheduler(const ScheduleSettings&, std::uint64_t) {
  return std::make_unique<ListOrderScheduler>(SchedulerKind::sequential, false);
}

}  // namespace fovea
