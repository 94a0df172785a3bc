#include "frame/counterfactual.hpp"

#include "core/budget.hpp"
#include "core/stopwatch.hpp"
#include "metrics/perceived_collision.hpp"

namespace fovea {

CounterfactualEvaluation::CounterfactualEvaluation(const EvaluationSettings& settings,
                                                   const ScheduleSettings& run_schedule) {
  if (!settings.enabled()) return;
  ScheduleSettings full;
  full.kind = SchedulerKind::sequential;
  full_resolution_ = make_scheduler(full);
  for (const SchedulerKind kind : settings.schedulers) {
    // Each kind with the run's settings for it (the queues and band edges of priority_queues).
    ScheduleSettings schedule = run_schedule;
    schedule.kind = kind;
    if (settings.budgets.empty()) {
      arms_.push_back({kind, make_scheduler(schedule), true, {}, {}});
      continue;
    }
    for (const BudgetSettings& budget : settings.budgets) arms_.push_back({kind, make_scheduler(schedule), false, budget, {}});
  }
  frames_.resize(arms_.size());
}

void CounterfactualEvaluation::run(NarrowPhase& narrowphase, std::span<const EntityState> states,
                                   const Viewing& viewing, InaccuracyMeter& meter, const MeasureOptions& options,
                                   const BudgetSettings& run_budget, InterruptPolicy policy, std::size_t entity_count) {
  if (!enabled()) return;
  // Full resolution first: the reference every fraction budget is a share of. Every
  // collision runs to its end, so the order does not change the count.
  narrowphase.begin_frame(states);
  Budget unlimited = Budget::unlimited();
  full_resolution_->run(narrowphase, unlimited);
  full_resolution_tests_ = narrowphase.sphere_tests();

  for (std::size_t i = 0; i < arms_.size(); ++i) {
    Arm& arm = arms_[i];
    const BudgetSettings& budget_settings = arm.run_budget ? run_budget : arm.budget;
    Stopwatch clock;
    narrowphase.begin_frame(states);
    // As in the driver's frame (Animation::narrow_phase): a scheduler that reads priorities
    // pays for placing the collisions from its own budget; the others get the placements
    // (which the metrics read) outside it.
    const bool uses_priority = arm.scheduler->uses_priority();
    if (!uses_priority) perceive_at_frame_start(narrowphase, states, viewing);
    Budget budget = Budget::from_settings(budget_settings, full_resolution_tests_);
    if (uses_priority) perceive_at_frame_start(narrowphase, states, viewing);
    arm.scheduler->run(narrowphase, budget);
    const bool exhausted = budget.was_exhausted();
    narrowphase.interrupt(policy);
    perceive_at_frame_end(narrowphase, states, viewing);

    EvaluatedFrame& row = frames_[i];
    row.scheduler = arm.kind;
    row.budget = budget_settings;
    row.budget_tests = budget_settings.mode == BudgetMode::work ? budget_settings.tests
                       : budget_settings.mode == BudgetMode::fraction
                           ? Budget::fraction_tests(budget_settings.fraction, full_resolution_tests_)
                           : -1;
    row.sphere_tests = narrowphase.sphere_tests();
    row.budget_exhausted = exhausted;
    row.metrics = meter.measure(narrowphase, states, viewing, options, arm.episodes, entity_count, false);
    row.evaluate_ms = clock.elapsed_ms();
  }
}

}  // namespace fovea
