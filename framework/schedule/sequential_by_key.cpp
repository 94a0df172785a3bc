#include "schedule/sequential_by_key.hpp"

#include <vector>

#include "schedule/sorted_slots.hpp"
#include "schedule/walks.hpp"

namespace fovea {
namespace {

/// 004 section 3.4.3: "the active collision list is then sorted based on this priority";
/// highest first, ties in list order, then each to the end in turn. The sort is part of the
/// frame's cost: with a wall budget it eats into the time left for the descent, as 004
/// observed.
class SequentialByKeyScheduler final : public Scheduler {
 public:
  SequentialByKeyScheduler(SchedulerKind kind, CollisionKey key, std::uint64_t seed)
      : Scheduler(kind), key_(key), seed_(seed) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext& context) override {
    collect_active(narrowphase, active_);
    order_.sort(narrowphase, active_, [&](const Collision& c) { return key_(c, context, seed_); });
    sequential(narrowphase, budget, order_.slots());
  }

 private:
  CollisionKey key_;
  std::uint64_t seed_;
  std::vector<std::uint32_t> active_;
  SortedSlots order_;
};

double priority_key(const Collision& c, const ScheduleContext&, std::uint64_t) { return c.priority; }

}  // namespace

std::unique_ptr<Scheduler> make_sequential_by_key(SchedulerKind kind, CollisionKey key, std::uint64_t seed) {
  return std::make_unique<SequentialByKeyScheduler>(kind, key, seed);
}

std::unique_ptr<Scheduler> make_sorted_sequential_scheduler(const ScheduleSettings&, std::uint64_t seed) {
  return make_sequential_by_key(SchedulerKind::sorted_sequential, priority_key, seed);
}

}  // namespace fovea
