#include "frame/counterfactual.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/budget.hpp"
#include "core/rng.hpp"
#include "core/stopwatch.hpp"
#include "prioritise/fast_priority.hpp"
#include "prioritise/perceived_collision.hpp"

namespace fovea {

CounterfactualEvaluation::CounterfactualEvaluation(const EvaluationSettings& settings,
                                                   const ScheduleSettings& run_schedule, std::uint64_t seed) {
  if (!settings.enabled()) return;
  seed_ = seed;
  schedule_ = run_schedule;
  ScheduleSettings full;
  full.kind = SchedulerKind::sequential;
  full_resolution_ = make_scheduler(full);
  const std::vector<SchedulerGaze> inputs = settings.gaze.empty() ? std::vector{run_schedule.gaze} : settings.gaze;
  for (const SchedulerKind kind : settings.schedulers) {
    // Each kind with the run's settings for it (the queues and band edges of priority_queues).
    ScheduleSettings schedule = run_schedule;
    schedule.kind = kind;
    for (const SchedulerGaze gaze : inputs) {
      schedule.gaze = gaze;
      if (settings.budgets.empty()) {
        arms_.push_back({kind, gaze, make_scheduler(schedule, seed), true, {}, {}, {}, {}});
        continue;
      }
      for (const BudgetSettings& budget : settings.budgets)
        arms_.push_back({kind, gaze, make_scheduler(schedule, seed), false, budget, {}, {}, {}});
    }
  }
  frames_.resize(arms_.size());
}

void CounterfactualEvaluation::run(NarrowPhase& narrowphase, std::span<const EntityState> states,
                                   const FrameViewings& viewings, InaccuracyMeter& meter, const MeasureOptions& options,
                                   const BudgetSettings& run_budget, InterruptPolicy policy, std::size_t entity_count,
                                   std::int64_t frame, double sync_ms) {
  if (!enabled()) return;
  const Viewing viewing = viewings.eye();
  // Full resolution first: the reference every fraction budget is a share of. Every
  // collision runs to its end, so the order does not change the count. From the roots, with
  // no memory: coherence is measured against 004's descent, on the same budgets.
  narrowphase.begin_frame(states, nullptr, options.pool);
  Budget unlimited = Budget::unlimited();
  full_resolution_->run(narrowphase, unlimited);
  full_resolution_tests_ = narrowphase.sphere_tests();

  // Under a wall budget the arms run in a new order every frame (seeded by the frame): the
  // one that runs first meets caches the full-resolution pass left, the others those the arm
  // before them left, and a fixed order would give one arm the same neighbour every frame.
  // Work and fraction budgets do not read the clock: they run in the listed order.
  order_.resize(arms_.size());
  for (std::size_t i = 0; i < arms_.size(); ++i) order_[i] = i;
  const auto is_wall = [&](const Arm& arm) { return (arm.run_budget ? run_budget : arm.budget).mode == BudgetMode::wall; };
  if (std::any_of(arms_.begin(), arms_.end(), is_wall)) {
    Rng rng(mix64(seed_ ^ static_cast<std::uint64_t>(frame)), rng_stream(RngStream::evaluation_order));
    fisher_yates(order_, rng);
  }
  for (const std::size_t i : order_) {
    Arm& arm = arms_[i];
    // The arm schedules (and the oracle knows the truth) from its gaze input's fixation; it
    // is measured, as the driver is, from the eye's.
    const Viewing sees = viewings.scheduler(arm.gaze);
    const BudgetSettings& budget_settings = arm.run_budget ? run_budget : arm.budget;
    Stopwatch clock;
    // The oracle's truth comes outside its budget: it is a bound, not a scheduler a frame
    // could afford (its rows are marked so in docs/evaluation.md).
    if (arm.scheduler->uses_true_priority()) {
      narrowphase.begin_frame(states, &arm.memory, options.pool);
      meter.set_true_priorities(narrowphase, states, sees, options.pool);
    }
    // From here on, everything a driver pays is paid from the arm's budget, as in the
    // driver's frame (frame/frame_stages.cpp: start_budget, sync, restart_descents,
    // prioritise, schedule): restarting its descents, placing its collisions when it reads
    // priorities, and the ordering itself. The collisions were synced once for every arm:
    // a wall budget's deadline comes `sync_ms` earlier, as if each had synced them itself.
    const auto synced = std::chrono::duration_cast<Budget::Clock::duration>(std::chrono::duration<double, std::milli>(sync_ms));
    Budget budget = budget_settings.mode == BudgetMode::wall
                        ? Budget::wall(budget_settings.ms, Budget::Clock::now() - synced)
                        : Budget::from_settings(budget_settings, full_resolution_tests_);
    // On the driver's threads, as the driver's frame runs them: the same share of the budget.
    if (!arm.scheduler->uses_true_priority()) narrowphase.begin_frame(states, &arm.memory, options.pool);
    const DescentMemory* refined_from = schedule_.priorities == PriorityGap::refined ? &arm.memory : nullptr;
    const PriorityOptions order{schedule_.fast_priorities, refined_from, schedule_.aging ? &arm.memory : nullptr,
                                options.pool};
    const bool uses_priority = arm.scheduler->uses_priority();
    if (uses_priority) prioritise_at_frame_start(narrowphase, states, sees, order);
    OrderPerception perception(states, sees, order);
    arm.scheduler->run(narrowphase, budget, ScheduleContext{frame, &perception});
    const bool exhausted = budget.was_exhausted();
    narrowphase.interrupt(policy);
    // Outside the budget, as the driver's frame goes on: this frame's memory, kept beside
    // last frame's; the placements the records read for a scheduler that did not place them
    // exactly (prioritise_for_records), from last frame's memory; then the swap (keep_memory).
    const bool remembers = refined_from != nullptr || order.aged_from != nullptr || narrowphase.settings().coherence;
    if (remembers) arm.next_memory.remember(narrowphase, states, &arm.memory, schedule_.aging, options.pool);
    // An arm that placed from another fixation (or f) than the eye's is placed again from the
    // eye's: a placement depends on the camera, f and the fixation alone.
    const bool sees_eye = &sees.model == &viewing.model && sees.fixation_x_px == viewing.fixation_x_px &&
                          sees.fixation_y_px == viewing.fixation_y_px;
    if (!uses_priority || order.fast || !sees_eye)
      perceive_at_frame_start(narrowphase, states, viewing, refined_from, options.pool);
    if (remembers) std::swap(arm.memory, arm.next_memory);
    perceive_at_frame_end(narrowphase, states, viewing, options.pool);

    EvaluatedFrame& row = frames_[i];
    row.scheduler = arm.kind;
    row.gaze = arm.gaze;
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
