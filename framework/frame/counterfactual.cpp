#include "frame/counterfactual.hpp"

#include "core/budget.hpp"
#include "core/stopwatch.hpp"
#include "prioritise/perceived_collision.hpp"

namespace fovea {

CounterfactualEvaluation::CounterfactualEvaluation(const EvaluationSettings& settings,
                                                   const ScheduleSettings& run_schedule, std::uint64_t seed) {
  if (!settings.enabled()) return;
  priorities_ = run_schedule.priorities;
  ScheduleSettings full;
  full.kind = SchedulerKind::sequential;
  full_resolution_ = make_scheduler(full);
  for (const SchedulerKind kind : settings.schedulers) {
    // Each kind with the run's settings for it (the queues and band edges of priority_queues).
    ScheduleSettings schedule = run_schedule;
    schedule.kind = kind;
    if (settings.budgets.empty()) {
      arms_.push_back({kind, make_scheduler(schedule, seed), true, {}, {}, {}});
      continue;
    }
    for (const BudgetSettings& budget : settings.budgets)
      arms_.push_back({kind, make_scheduler(schedule, seed), false, budget, {}, {}});
  }
  frames_.resize(arms_.size());
}

void CounterfactualEvaluation::run(NarrowPhase& narrowphase, std::span<const EntityState> states,
                                   const Viewing& viewing, InaccuracyMeter& meter, const MeasureOptions& options,
                                   const BudgetSettings& run_budget, InterruptPolicy policy, std::size_t entity_count,
                                   std::int64_t frame) {
  if (!enabled()) return;
  // Full resolution first: the reference every fraction budget is a share of. Every
  // collision runs to its end, so the order does not change the count. From the roots, with
  // no memory: coherence is measured against 004's descent, on the same budgets.
  narrowphase.begin_frame(states);
  Budget unlimited = Budget::unlimited();
  full_resolution_->run(narrowphase, unlimited);
  full_resolution_tests_ = narrowphase.sphere_tests();

  for (std::size_t i = 0; i < arms_.size(); ++i) {
    Arm& arm = arms_[i];
    const BudgetSettings& budget_settings = arm.run_budget ? run_budget : arm.budget;
    Stopwatch clock;
    narrowphase.begin_frame(states, &arm.memory);
    // As in the driver's frame (Animation::narrow_phase): a scheduler that reads priorities
    // pays for placing the collisions from its own budget; the others get the placements
    // (which the metrics read) outside it, and the oracle its truth.
    const DescentMemory* refined_from = priorities_ == PriorityGap::refined ? &arm.memory : nullptr;
    const bool uses_priority = arm.scheduler->uses_priority();
    if (!uses_priority) perceive_at_frame_start(narrowphase, states, viewing, refined_from);
    if (arm.scheduler->uses_true_priority()) meter.set_true_priorities(narrowphase, states, viewing, options.pool);
    Budget budget = Budget::from_settings(budget_settings, full_resolution_tests_);
    if (uses_priority) perceive_at_frame_start(narrowphase, states, viewing, refined_from);
    FramePerception perception(states, viewing, refined_from);
    arm.scheduler->run(narrowphase, budget, ScheduleContext{frame, &perception});
    const bool exhausted = budget.was_exhausted();
    narrowphase.interrupt(policy);
    if (refined_from != nullptr || narrowphase.settings().coherence) arm.memory.remember(narrowphase, states);
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
