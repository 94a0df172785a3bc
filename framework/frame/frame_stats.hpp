#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "gaze/gaze.hpp"
#include "metrics/inaccuracy.hpp"
#include "response/response.hpp"

namespace fovea {

/// The phases of one frame, in the order Animation::step runs them (docs/architecture.md,
/// "One frame"). Each is timed and gets its own `<name>_ms` column in frames.csv.
enum class Phase : int {
  integrate,  ///< last frame's positional correction, then integrate_motion: velocities and poses
  broadphase, ///< sweep and prune over the entities' boxes: the overlapping pairs
  narrowphase,///< collisions synced, prioritised, refined under the budget, interrupted
  response,   ///< contacts of the real collisions and the walls, impulses, new velocities
  metrics,    ///< nabla and P of what was left, and the ground truth when asked
  count       ///< the number of phases, not a phase
};
/// Number of phases: the size of FrameStats::phase_ms.
inline constexpr int kPhaseCount = static_cast<int>(Phase::count);

/// Column-friendly name of a phase ("integrate").
constexpr std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::integrate: return "integrate";
    case Phase::broadphase: return "broadphase";
    case Phase::narrowphase: return "narrowphase";
    case Phase::response: return "response";
    case Phase::metrics: return "metrics";
    case Phase::count: break;
  }
  return "unknown";
}

/// What one frame did, as plain data for the records (run/frame_columns.cpp writes each
/// field to frames.csv; docs/results.md and docs/metrics.md define them).
struct FrameStats {
  std::int64_t frame = 0;         ///< 0 for the first step
  double sim_time_s = 0;          ///< simulated time at the end of the frame
  std::int64_t entity_count = 0;  ///< live entities at the frame's start
  std::int64_t pairs = 0;         ///< entity pairs whose broad-phase boxes overlap after the frame
  std::int64_t pairs_started = 0; ///< of those, pairs that did not overlap before it
  std::int64_t pairs_stopped = 0; ///< pairs that overlapped before it and no longer do
  std::array<double, kPhaseCount> phase_ms{};  ///< wall-clock time of each phase
  double frame_ms = 0;            ///< wall-clock time of the whole step, the evaluation on the side left out
  double evaluation_ms = 0;       ///< wall-clock time of the counterfactual evaluation (0 without one)

  // The narrow phase (004 section 3.4).
  FrameGaze gaze;                 ///< the fixation point the frame was scheduled for, and its origin
  double gaze_time_s = 0;         ///< the run's clock when the gaze was asked for: the frame's start
  std::int64_t collisions = 0;    ///< collisions refined this frame (one per overlapping pair)
  std::int64_t sphere_tests = 0;  ///< sphere-sphere tests of the descent
  bool budget_exhausted = false;  ///< the budget ran out before every collision was resolved
  /// Wall budgets that ran out: how long after the deadline the descent stopped, in
  /// microseconds; NaN for any other frame (the schedule stage sets it every frame; a
  /// FrameStats made elsewhere holds 0).
  double budget_overshoot_us = 0;

  /// The collisions' outcomes and the inaccuracy they leave, estimated and true (004
  /// section 3.4.2; metrics/inaccuracy.hpp).
  FrameMetrics metrics;

  /// The response (004 section 3.5; docs/response.md).
  ResponseStats response;

  // On-demand sphere trees (001; narrowphase/on_demand_tree.hpp), this frame, and since the
  // last step for growth outside it (a scenario's capsule test).
  std::int64_t tree_nodes_built = 0;    ///< on-demand tree nodes built (a count)
  std::int64_t tree_nodes_evicted = 0;  ///< nodes dropped after sphere_tree.evict_after_frames frames unused
  double tree_build_ms = 0;       ///< wall-clock time building them
  std::int64_t tree_nodes = 0;    ///< nodes of all on-demand trees after the frame
};

}  // namespace fovea
