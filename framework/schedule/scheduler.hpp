#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/budget.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "prioritise/reprioritiser.hpp"
#include "schedule/schedule_settings.hpp"
#include "schedule/scheduler_kinds.hpp"

namespace fovea {

/// What a frame tells its scheduler besides the collisions and the budget.
struct ScheduleContext {
  std::int64_t frame = 0;                   ///< the frame being run: random's order is drawn per frame
  Reprioritiser* reprioritiser = nullptr;   ///< null: hybrid keeps the start-of-frame priorities
};

/// Decides the order in which the active collisions are refined (004 section 3.4.3), step
/// by step through NarrowPhase::step, until every collision is resolved or the budget is
/// spent. Collisions' `priority` must be set before run(); scratch storage is kept between
/// frames, so a scheduler allocates nothing in the steady state. Each kind's class is in a
/// file of its own (schedule/list_order.cpp, ...), made through its row of kSchedulerKinds.
class Scheduler {
 public:
  /// A scheduler of `kind`: its row in kSchedulerKinds answers uses_priority() and the like.
  explicit Scheduler(SchedulerKind kind) : kind_(kind) {}
  virtual ~Scheduler() = default;
  /// Refines the collisions still needing work, in this scheduler's order.
  virtual void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext& context) = 0;
  /// run() with a default context: frame 0 and no reprioritiser (tests, tools).
  void run(NarrowPhase& narrowphase, Budget& budget) { run(narrowphase, budget, ScheduleContext{}); }
  /// Which scheduler this is, as made; its name is scheduler_name(kind()).
  SchedulerKind kind() const { return kind_; }
  /// Whether run() reads the collisions' `priority`: the frame perceives every collision
  /// before the descent only for the schedulers that use it (the others' records get it
  /// after). The kind's row says (SchedulerKindInfo::uses_priority).
  virtual bool uses_priority() const;
  /// Whether run() reads the collisions' `true_priority`, which only the exact voxel test
  /// gives (the oracle): the frame sets it before the descent, outside the budget. The
  /// kind's row says (SchedulerKindInfo::uses_true_priority).
  virtual bool uses_true_priority() const;

 private:
  SchedulerKind kind_;
};

/// The scheduler `settings` name, made by its row's factory; `seed` seeds the random
/// scheduler's orders. Throws std::invalid_argument when the queues and band edges do not
/// fit together (the config checks first and names the line).
std::unique_ptr<Scheduler> make_scheduler(const ScheduleSettings& settings, std::uint64_t seed = 0);

/// What is wrong with the queues and band edges, or "" (for the config's check).
std::string check_schedule_settings(const ScheduleSettings& settings);

/// Names of the schedulers in configs and records ("round_robin").
const char* scheduler_name(SchedulerKind kind);

}  // namespace fovea
