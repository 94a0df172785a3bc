#pragma once

// Definition structs of scheduling and budgets (004 sections 3.4 and 3.4.3), with the
// defaults a config falls back on (docs/config.md).

#include <cstdint>
#include <vector>

namespace fovea {

/// The order in which the active collisions are refined (004 section 3.4.3).
enum class SchedulerKind {
  round_robin,        ///< one level of every active collision per pass, in list order (Hubbard)
  sequential,         ///< each collision to completion in turn, in list order
  sorted_sequential,  ///< sorted by perceptual priority each frame, then sequential
  priority_queues,    ///< K queues by priority band, round robin inside, higher queues first
};

struct ScheduleSettings {
  SchedulerKind kind = SchedulerKind::priority_queues;
  int queues = 3;  ///< K, for priority_queues
  /// K - 1 priorities, strictly decreasing, in [0, 1]: queue 0 takes collisions whose
  /// priority f(e, g) is at least band_edges[0], queue k those in [band_edges[k],
  /// band_edges[k - 1]), the last queue the rest (off-screen collisions included).
  std::vector<double> band_edges{0.5, 0.1};
};

/// How a frame's collision processing is bounded (004 section 3.4: "a pre-defined target
/// time").
enum class BudgetMode {
  wall,  ///< stop when `ms` of wall-clock time have passed: real time, not reproducible
  work,  ///< stop after `tests` sphere-sphere tests: reproducible to the byte
};

struct BudgetSettings {
  BudgetMode mode = BudgetMode::work;
  double ms = 2.0;               ///< wall budget per frame, milliseconds
  std::int64_t tests = 20000;    ///< work budget per frame, sphere-sphere tests
};

}  // namespace fovea
