#pragma once

// Definition structs of scheduling (004 section 3.4.3), with the defaults a config falls
// back on (docs/config.md). The budget's are core/budget_settings.hpp.

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

}  // namespace fovea
