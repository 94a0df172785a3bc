#pragma once

// Definition structs of scheduling (004 section 3.4.3), with the defaults a config falls
// back on (docs/config.md). The budget's are core/budget_settings.hpp.

#include <array>
#include <vector>

#include "core/kind_table.hpp"
#include "schedule/scheduler_kinds.hpp"

namespace fovea {

/// Where a collision's start-of-frame priority f(e, g) takes its gap from.
enum class PriorityGap { roots, refined };

/// The gaps' names in configs (`schedule.priorities`) and their help.
inline constexpr auto kPriorityGaps = kind_table<KindName<PriorityGap>>({
    {PriorityGap::roots, "roots", "004: the entities' centres, nothing tested yet"},
    {PriorityGap::refined, "refined",
     "also last frame's deepest sphere pair of a persistent pair, at this frame's poses; the tighter"},
});

/// How a frame's collisions are scheduled (config `schedule`; docs/narrowphase.md, "Schedulers").
struct ScheduleSettings {
  SchedulerKind kind = SchedulerKind::priority_queues;  ///< the order (kSchedulerKinds)
  int queues = 3;  ///< K, for priority_queues and adaptive_queues
  /// K - 1 priorities, strictly decreasing, in [0, 1]: queue 0 takes collisions whose
  /// priority f(e, g) is at least band_edges[0], queue k those in [band_edges[k],
  /// band_edges[k - 1]), the last queue the rest (off-screen collisions included).
  std::vector<double> band_edges{0.5, 0.1};
  /// Levels of the descent every collision gets, in round robin, before hybrid turns to
  /// priorities.
  int hybrid_levels = 2;
  PriorityGap priorities = PriorityGap::roots;  ///< where start-of-frame priorities take their gap from
};

}  // namespace fovea
