#pragma once

// Definition structs of scheduling (004 section 3.4.3), with the defaults a config falls
// back on (docs/config.md). The budget's are core/budget_settings.hpp.
//
// The defaults are the realtime study's choice at a fixed frame time
// (results/studies/realtime/README.md): hybrid with one round-robin level, then refined
// priorities aged by the episode. 004's configuration (priority queues, 3 queues, bands 0.5 and
// 0.1, priorities from the roots, no aging) was the default before; a config that means it
// names it (configs/studies/ do).

#include <array>
#include <vector>

#include "core/kind_table.hpp"
#include "schedule/scheduler_kinds.hpp"

namespace fovea {

/// Where a collision's start-of-frame priority f(e, g) takes its gap from.
enum class PriorityGap {
  roots,   ///< from the entities' centres, nothing tested yet (004 section 3.4.2)
  refined  ///< also a persistent pair's deepest sphere pair from last frame, at this frame's poses, when tighter
};

/// The gaps' names in configs (`schedule.priorities`) and their help.
inline constexpr auto kPriorityGaps = kind_table<KindName<PriorityGap>>({
    {PriorityGap::roots, "roots", "004: the entities' centres, nothing tested yet"},
    {PriorityGap::refined, "refined",
     "also last frame's deepest sphere pair of a persistent pair, at this frame's poses; the tighter"},
});

/// Where the scheduler takes the fixation from (config `schedule.gaze`, `evaluate.gaze`;
/// docs/gaze.md, "What the scheduler sees"). The meter always measures with the eye's.
enum class SchedulerGaze {
  tracked,  ///< the newest sample the tracker delivered (the eye's own without a simulated tracker)
  landing,  ///< in a saccade the delivered samples show, its predicted landing point; else tracked
  blind     ///< no gaze: f(0, g), every gap as if at the fixation point (the gaze-blind control)
};

/// The scheduler's gaze inputs' names in configs and evaluation.csv, and their help.
inline constexpr auto kSchedulerGazes = kind_table<KindName<SchedulerGaze>>({
    {SchedulerGaze::tracked, "tracked",
     "the tracker's newest sample (late by gaze.latency_ms; the eye's own without a simulated tracker)"},
    {SchedulerGaze::landing, "landing",
     "during a saccade the tracker's samples show, its landing point predicted from them (main sequence)"},
    {SchedulerGaze::blind, "blind", "no gaze: f's eccentricity term removed, f(0, g): the gaze-blind control"},
});

/// The config name of a scheduler's gaze input ("tracked", ...).
constexpr const char* scheduler_gaze_name(SchedulerGaze gaze) { return kind_name(kSchedulerGazes, gaze); }

/// How a frame's collisions are scheduled (config `schedule`; docs/narrowphase.md, "Schedulers").
struct ScheduleSettings {
  SchedulerKind kind = SchedulerKind::hybrid;  ///< the order collisions are refined in (kSchedulerKinds)
  int queues = 3;  ///< K, the number of queues (1-64), for priority_queues and adaptive_queues
  /// K - 1 priorities (f(e, g), probabilities 0-1), strictly decreasing: queue 0 takes collisions whose
  /// priority f(e, g) is at least band_edges[0], queue k those in [band_edges[k],
  /// band_edges[k - 1]), the last queue the rest (off-screen collisions included).
  std::vector<double> band_edges{0.5, 0.1};
  /// Round-robin passes (0-64) hybrid makes before it turns to priorities: each pass gives every
  /// active collision one step of its descent, a sphere-tree level (or last frame's pair, with coherence).
  int hybrid_levels = 1;
  PriorityGap priorities = PriorityGap::refined;  ///< where start-of-frame priorities f(e, g) take their gap from
  /// Order by a cheap placement (prioritise/fast_priority.hpp): no atan2, the gap across the
  /// line of sight; the records' placements are made exactly after the run, outside the budget.
  bool fast_priorities = false;
  /// Age a pair left unresolved frame after frame: its priority is its episode's chance of
  /// being noticed if left one more frame, 1 - (1 - f) prod(1 - f before) (prioritise/fast_priority.hpp).
  bool aging = true;
  /// Where the fixation the priorities are placed from comes from: the tracker, its landing
  /// prediction, or none (the gaze-blind control).
  SchedulerGaze gaze = SchedulerGaze::tracked;
};

}  // namespace fovea
