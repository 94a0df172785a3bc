#pragma once

#include "core/budget_settings.hpp"
#include "frame/evaluation_settings.hpp"
#include "gaze/gaze_settings.hpp"
#include "metrics/metrics_settings.hpp"
#include "narrowphase/narrowphase_settings.hpp"
#include "perception/perception_settings.hpp"
#include "response/response_settings.hpp"
#include "schedule/schedule_settings.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// Everything the Animation runs on: the world and how collisions are detected, scheduled,
/// perceived and responded to. Each part's settings live with the part; config/ fills them all.
struct AnimationSettings {
  WorldSettings world;          ///< the box, the time step and the entity groups (config `world`)
  ScheduleSettings schedule;    ///< the run's scheduler (004 section 3.4.3; docs/narrowphase.md)
  BudgetSettings budget;        ///< the collision work each frame may do (004 section 3.4); never fraction
  /// What becomes of a collision still unresolved when the budget runs out (004 section 3.4.1).
  InterruptPolicy interrupt_policy = InterruptPolicy::repulse;
  /// Coherence and pruning in the descent (docs/narrowphase.md).
  NarrowPhaseSettings narrowphase;
  /// Run the exact voxel test on every collision each frame for the true metrics (slow).
  bool ground_truth = false;
  /// Visibility, suprathreshold P, warm-up (docs/metrics.md).
  MetricsSettings metrics;
  /// Schedulers measured on the side, every frame (docs/evaluation.md).
  EvaluationSettings evaluate;
  PerceptionSettings perception;  ///< f(e, g), the camera and the screen (docs/perception.md)
  GazeSettings gaze;            ///< where the fixation point comes from (docs/gaze.md)
  ResponseSettings response;    ///< contacts, impulses, gravity and the walls (docs/response.md)
  /// Threads the frame's phases use, the frame's own included; 0: the machine's cores. The
  /// results do not depend on it (docs/scale.md, "Threads").
  int threads = 0;
};

}  // namespace fovea
