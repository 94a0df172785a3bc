#include "run/evaluation_log.hpp"

#include <string_view>

namespace fovea {

std::vector<std::string> EvaluationLog::columns() {
  return {"frame",           "scheduler",     "gaze",           "budget_mode",    "budget",         "budget_tests",  "full_tests",
          "sphere_tests",    "budget_exhausted", "collisions",  "interrupted",    "resolved_colliding",
          "resolved_not_colliding", "nabla_est", "p_est",       "p_est_supra",    "p_est_visible", "episodes_ended",
          "p_episodes_est",  "nabla_true",    "p_true",         "p_true_supra",   "p_true_visible", "p_episodes_true",
          "false_collisions", "gaze_collision_deg", "evaluate_ms", "tree"};
}

EvaluationLog::EvaluationLog(const std::string& path) : csv_(path, columns()) {}

void EvaluationLog::write(const FrameStats& stats, const std::vector<Animation::TreeEvaluationView>& evaluations) {
  for (const Animation::TreeEvaluationView& view : evaluations)
    for (const EvaluatedFrame& e : view.evaluation->frames()) write_row(stats, *view.evaluation, e, view.tree);
  csv_.flush();
}

void EvaluationLog::write_row(const FrameStats& stats, const CounterfactualEvaluation& evaluation, const EvaluatedFrame& e,
                              std::string_view tree) {
  const FrameMetrics& m = e.metrics;
  csv_.cell(stats.frame).cell(std::string_view(scheduler_name(e.scheduler))).cell(std::string_view(scheduler_gaze_name(e.gaze)));
  csv_.cell(std::string_view(budget_mode_name(e.budget.mode)));
  // The budget in its mode's unit: tests, ms, a share of full resolution; none for unlimited.
  switch (e.budget.mode) {
    case BudgetMode::work: csv_.cell(e.budget.tests); break;
    case BudgetMode::wall: csv_.cell(e.budget.ms); break;
    case BudgetMode::fraction: csv_.cell(e.budget.fraction); break;
    case BudgetMode::unlimited: csv_.cell_missing(); break;
  }
  if (e.budget_tests >= 0) {
    csv_.cell(e.budget_tests);
  } else {
    csv_.cell_missing();
  }
  csv_.cell(evaluation.full_resolution_tests()).cell(e.sphere_tests).cell(std::int64_t{e.budget_exhausted ? 1 : 0});
  csv_.cell(stats.collisions).cell(m.interrupted).cell(m.resolved_colliding).cell(m.resolved_not_colliding);
  csv_.cell(m.nabla_est_m).cell(m.p_est).cell(m.p_est_supra).cell_or_missing(m.p_est_visible).cell(m.episodes_ended);
  csv_.cell(m.p_episodes_est);
  csv_.cell_or_missing(m.nabla_true_m).cell_or_missing(m.p_true).cell_or_missing(m.p_true_supra);
  csv_.cell_or_missing(m.p_true_visible).cell_or_missing(m.p_episodes_true);
  if (std::isnan(m.p_true)) {
    csv_.cell_missing();
  } else {
    csv_.cell(m.false_collisions);
  }
  csv_.cell_or_missing(m.gaze_collision_deg).cell(e.evaluate_ms).cell(tree);
  csv_.end_row(CsvWriter::Flush::later);
}

}  // namespace fovea
