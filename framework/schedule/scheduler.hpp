#pragma once

#include <memory>
#include <string>

#include "narrowphase/narrow_phase.hpp"
#include "core/budget.hpp"
#include "schedule/schedule_settings.hpp"

namespace fovea {

/// Decides the order in which the active collisions are refined (004 section 3.4.3), step
/// by step through NarrowPhase::step, until every collision is resolved or the budget is
/// spent. Collisions' `priority` must be set before run(); scratch storage is kept between
/// frames, so a scheduler allocates nothing in the steady state.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// Refines the collisions still needing work, in this scheduler's order.
  virtual void run(NarrowPhase& narrowphase, Budget& budget) = 0;
  /// Whether run() reads the collisions' `priority`: the frame perceives every collision
  /// before the descent only for the schedulers that use it (the others' records get it after).
  virtual bool uses_priority() const = 0;
};

/// The scheduler `settings` name. Throws std::invalid_argument when the queues and band
/// edges do not fit together (the config checks first and names the line).
std::unique_ptr<Scheduler> make_scheduler(const ScheduleSettings& settings);

/// What is wrong with the queues and band edges, or "" (for the config's check).
std::string check_schedule_settings(const ScheduleSettings& settings);

/// Names of the schedulers in configs and records ("round_robin").
const char* scheduler_name(SchedulerKind kind);

}  // namespace fovea
