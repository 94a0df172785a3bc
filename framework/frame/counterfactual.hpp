#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/budget_settings.hpp"
#include "frame/evaluation_settings.hpp"
#include "frame/frame_viewings.hpp"
#include "metrics/episodes.hpp"
#include "metrics/inaccuracy.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "narrowphase/narrowphase_settings.hpp"
#include "schedule/schedule_settings.hpp"
#include "schedule/scheduler.hpp"

namespace fovea {

/// What one evaluated scheduler, under one budget, left in one frame: a row of
/// evaluation.csv (run/evaluation_log.cpp; docs/evaluation.md defines each column).
struct EvaluatedFrame {
  SchedulerKind scheduler = SchedulerKind::round_robin;  ///< the scheduler evaluated (the `scheduler` column)
  SchedulerGaze gaze = SchedulerGaze::tracked;  ///< the fixation its priorities were placed from (the `gaze` column)
  BudgetSettings budget;             ///< as configured (a fraction budget's share, not its tests)
  std::int64_t budget_tests = -1;    ///< the tests the budget allowed this frame; -1 for wall and unlimited budgets
  std::int64_t sphere_tests = 0;     ///< tests the scheduler spent
  bool budget_exhausted = false;     ///< the budget ran out before every collision was resolved
  FrameMetrics metrics;              ///< measured as the driver's frame is (metrics/inaccuracy.hpp); missed_collisions is not counted
  double evaluate_ms = 0;            ///< wall-clock time of its narrow phase and its metrics
};

/// The counterfactual evaluation (docs/evaluation.md): every frame, on the collisions the
/// broad phase found and the poses the world has, each listed scheduler runs the narrow
/// phase under each listed budget from the same start (every collision back at its roots),
/// and what it leaves is measured, as if it had been the run's scheduler this one frame.
/// The world then goes on with the run's own schedule (the driver), so every scheduler is
/// measured on the same collisions, poses, gaze and budget, and none changes what the others
/// see: with a response, schedulers that drive their own worlds diverge within a few frames
/// (the schedulers study), and a comparison of their P sums over different collisions.
///
/// The copies are the narrow phase's per-frame state: begin_frame() restarts every descent,
/// and nothing a descent does outlives the frame except on-demand tree nodes, which grow the
/// same whoever asks for them (the tree columns count the evaluation's growth too). Each
/// evaluated scheduler keeps its own episodes (metrics/episodes.hpp) and its own memory of
/// its last frame (narrowphase/descent_memory.hpp: coherence, refined priorities) across frames.
///
/// Cost per frame: one full-resolution descent (full_resolution_tests(), every budget's
/// reference) plus one narrow phase and one metrics pass per scheduler and budget; the exact
/// test of a collision is shared between them (InaccuracyMeter caches it per frame).
class CounterfactualEvaluation {
 public:
  /// `seed` seeds the random scheduler's orders, as the driver's.
  CounterfactualEvaluation(const EvaluationSettings& settings, const ScheduleSettings& run_schedule, std::uint64_t seed = 0);

  /// Whether any scheduler is listed; run() does nothing otherwise.
  bool enabled() const { return !arms_.empty(); }

  /// Evaluates every scheduler, gaze input and budget on `narrowphase`, whose collisions are
  /// synced for this frame; leaves them in no particular state (the driver's begin_frame
  /// restarts them). Each arm schedules with its gaze input's viewing; all are measured with
  /// the eye's.
  /// `run_budget` stands in for the budgets not listed.
  /// `frame` is the frame being run (the random scheduler's order). `sync_ms` is what syncing
  /// this frame's collisions took, which a driver pays from its budget and the arms, synced
  /// once for all, do not: each wall budget's deadline comes that much earlier.
  void run(NarrowPhase& narrowphase, std::span<const EntityState> states, const FrameViewings& viewings,
           InaccuracyMeter& meter, const MeasureOptions& options, const BudgetSettings& run_budget,
           InterruptPolicy policy, std::size_t entity_count, std::int64_t frame = 0, double sync_ms = 0);

  /// The last frame's rows: schedulers in the listed order, each with every gaze input in
  /// turn, each of those under every budget in turn.
  std::span<const EvaluatedFrame> frames() const { return frames_; }
  /// Sphere tests full resolution took in the last frame.
  std::int64_t full_resolution_tests() const { return full_resolution_tests_; }

 private:
  struct Arm {
    SchedulerKind kind;
    SchedulerGaze gaze;  ///< the fixation its priorities are placed from
    std::unique_ptr<Scheduler> scheduler;
    bool run_budget = false;  ///< follows the run's budget, live changes included
    BudgetSettings budget;
    EpisodeMeter episodes;
    /// What its own descents ended with last frame: coherence and refined priorities
    /// continue its frames, not the driver's.
    DescentMemory memory;
    DescentMemory next_memory;  ///< this frame's, swapped in once the records have read last frame's
  };
  ScheduleSettings schedule_;  ///< the run's: where priorities take their gap from, fast, aged
  std::uint64_t seed_ = 0;  ///< the run's: with the frame, the arms' order under wall budgets
  std::vector<Arm> arms_;
  std::vector<std::size_t> order_;  ///< the arms in the order this frame runs them (run())
  std::unique_ptr<Scheduler> full_resolution_;
  std::vector<EvaluatedFrame> frames_;
  std::int64_t full_resolution_tests_ = 0;
};

}  // namespace fovea
