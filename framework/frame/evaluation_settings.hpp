#pragma once

// Definition structs of the counterfactual evaluation (docs/evaluation.md), with the
// defaults a config falls back on (docs/config.md).

#include <vector>

#include "core/budget_settings.hpp"
#include "schedule/schedule_settings.hpp"

namespace fovea {

/// Schedulers evaluated on the driver's collisions, poses and budget every frame, on the
/// side: each runs the narrow phase from the same start, its result is measured, and the
/// world goes on with the run's own schedule (frame/counterfactual.hpp).
struct EvaluationSettings {
  /// Scheduler kinds to evaluate; none: no evaluation. Each takes the run's `schedule`
  /// settings (queues, band edges) for its kind.
  std::vector<SchedulerKind> schedulers;
  /// Budgets each scheduler is evaluated under, crossed with the schedulers; none: the run's
  /// own budget. A fraction budget is a share of the frame's full-resolution tests.
  std::vector<BudgetSettings> budgets;

  bool enabled() const { return !schedulers.empty(); }
};

}  // namespace fovea
