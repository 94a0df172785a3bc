#pragma once

// Definition structs of the counterfactual evaluation (docs/evaluation.md), with the
// defaults a config falls back on (docs/config.md).

#include <string>
#include <vector>

#include "core/budget_settings.hpp"
#include "schedule/schedule_settings.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// Another set of sphere trees the evaluated schedulers also run on (evaluate.trees): every
/// model's tree built by `builder` with `fit`, the group's levels, remove_hidden and
/// branching otherwise. Same poses and collisions as the run's own trees: a comparison of
/// trees that the trees do not change (docs/evaluation.md).
struct EvaluatedTreeSettings {
  SphereTreeBuilder builder = SphereTreeBuilder::octree;  ///< builds every model's tree of the set
  SphereFit fit = SphereFit::cell;  ///< the octree spheres' fit (no effect on medial trees)
};

/// The tree set's name in evaluation.csv's `tree` column: octree, octree_fit (fit: voxels),
/// medial, tightest (with _fit when its octree is fitted).
inline std::string evaluated_tree_name(const EvaluatedTreeSettings& trees) {
  std::string name(sphere_tree_builder_name(trees.builder));
  if (trees.fit == SphereFit::voxels && trees.builder != SphereTreeBuilder::medial) name += "_fit";
  return name;
}

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
  /// The gaze inputs each scheduler is evaluated with (schedule.gaze's kinds), crossed with
  /// the schedulers and the budgets; none: the run's schedule.gaze. [tracked, blind] puts the
  /// gaze-blind control beside each scheduler (docs/evaluation.md, "Gaze-blind").
  std::vector<SchedulerGaze> gaze;
  /// Tree sets every scheduler and budget also runs on, besides the run's own trees (the
  /// `run` rows); none: the run's trees only.
  std::vector<EvaluatedTreeSettings> trees;

  /// Whether any scheduler is listed: without one there is no evaluation (and `trees` is refused).
  bool enabled() const { return !schedulers.empty(); }
};

}  // namespace fovea
