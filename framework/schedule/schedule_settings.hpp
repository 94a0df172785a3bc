#pragma once

// Definition structs of scheduling (004 section 3.4.3), with the defaults a config falls
// back on (docs/config.md). The budget's are core/budget_settings.hpp.

#include <vector>

namespace fovea {

/// The order in which the active collisions are refined (004 section 3.4.3, and the kinds
/// after it: docs/narrowphase.md, "Schedulers").
enum class SchedulerKind {
  round_robin,        ///< one level of every active collision per pass, in list order (Hubbard)
  sequential,         ///< each collision to completion in turn, in list order
  sorted_sequential,  ///< sorted by perceptual priority each frame, then sequential
  priority_queues,    ///< K queues by priority band, round robin inside, higher queues first
  adaptive_queues,    ///< K queues by priority rank, each as large as last frame resolved; round robin inside
  hybrid,             ///< round robin over every collision's first levels, then sequential by refined priority
  oracle,             ///< sequential by the true p from the exact voxel test (ground truth only): an upper bound
  eccentricity,       ///< sequential by the distance from the fixation alone, nearest first
  random,             ///< sequential in a seeded random order, a new one each frame
};

/// Where a collision's start-of-frame priority f(e, g) takes its gap from.
enum class PriorityGap {
  roots,    ///< 004: the entities' centres, nothing tested yet
  refined,  ///< also last frame's deepest sphere pair of a persistent pair, at this frame's poses; the tighter
};

struct ScheduleSettings {
  SchedulerKind kind = SchedulerKind::priority_queues;
  int queues = 3;  ///< K, for priority_queues and adaptive_queues
  /// K - 1 priorities, strictly decreasing, in [0, 1]: queue 0 takes collisions whose
  /// priority f(e, g) is at least band_edges[0], queue k those in [band_edges[k],
  /// band_edges[k - 1]), the last queue the rest (off-screen collisions included).
  std::vector<double> band_edges{0.5, 0.1};
  /// Levels of the descent every collision gets, in round robin, before hybrid turns to
  /// priorities.
  int hybrid_levels = 2;
  PriorityGap priorities = PriorityGap::roots;
};

}  // namespace fovea
