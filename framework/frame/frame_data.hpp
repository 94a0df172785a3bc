#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "broadphase/region_sweep_and_prune.hpp"
#include "core/budget.hpp"
#include "core/thread_pool.hpp"
#include "frame/animation_settings.hpp"
#include "frame/counterfactual.hpp"
#include "frame/frame_stats.hpp"
#include "frame/model_library.hpp"
#include "gaze/gaze.hpp"
#include "metrics/inaccuracy.hpp"
#include "metrics/visibility.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"
#include "response/response.hpp"
#include "schedule/scheduler.hpp"
#include "world/entity.hpp"

namespace fovea {

/// The world's own data (004 section 3.1): the box, the models, and the entities' cold data
/// and hot states by EntityId. The Animation owns it; the frame's stages read and write it
/// (frame/frame_stages.hpp).
struct WorldData {
  Aabb box;                              ///< the walls, world space
  ModelLibrary library;                  ///< the models, their trees and prototypes, by ModelId
  std::vector<Entity> entities;          ///< cold, by EntityId
  std::vector<EntityState> states;       ///< hot, by EntityId
  /// By EntityId: the response's positional correction, applied at the start of the next step.
  std::vector<Vec3> correction_m;
  std::int64_t live_entities = 0;        ///< entities alive now
};

/// The box that bounds an entity at `state` in the broad phase: a fixed cube about its
/// centre, or its hull's tight box (world/entity_bounds.hpp), as its model's bounds say.
Aabb entity_box(const WorldData& world, const Entity& entity, const EntityState& state);
/// The box of entity `id` at its current state.
inline Aabb entity_box(const WorldData& world, EntityId id) {
  return entity_box(world, world.entities[id], world.states[id]);
}

/// An evaluate.trees set (docs/evaluation.md): its own narrow phase over the run's pairs,
/// every model's tree built the set's way, and its own evaluation (its own episodes).
struct TreeEvaluation {
  EvaluatedTreeSettings trees;           ///< the builder and fit of this set's trees
  std::string name;                      ///< evaluated_tree_name(trees): evaluation.csv's `tree`
  NarrowPhase narrowphase;               ///< the set's collisions and models
  CounterfactualEvaluation evaluation;   ///< the schedulers evaluated on them
};

/// One instance of each part the frame calls, and what they keep between stages and
/// between frames. Plain members: the stage list (frame/frame_stages.hpp) says which stage
/// reads and writes which.
struct FrameParts {
  /// The parts as `settings` configure them, in `box`; `seed` seeds the schedulers' and the
  /// gaze's random streams; `environment` gives the gaze what only an app has.
  FrameParts(const AnimationSettings& settings, const Aabb& box, std::uint64_t seed,
             const GazeEnvironment& environment);

  RegionSweepAndPrune broadphase;        ///< one proxy per entity, ProxyId == EntityId
  NarrowPhase narrowphase;               ///< one collision per overlapping pair
  std::unique_ptr<Scheduler> scheduler;  ///< the run's scheduler (schedule.kind)
  /// What the driver's descents ended with last frame (coherence, refined priorities), and
  /// this frame's, taken as the narrow phase ends (before the response finishes descents
  /// for its contacts) and swapped in once the frame's records have read last frame's.
  DescentMemory memory;
  DescentMemory next_memory;             ///< this frame's, swapped in by the keep-memory stage
  View view;                             ///< the camera and screen
  PerceptionModel perception_model;      ///< f(e, g)
  PerceptionModel blind_model;           ///< f(0, g): the gaze-blind control's (schedule.gaze: blind)
  Gaze gaze;                             ///< the gaze source and its fallback
  FrameGaze last_gaze;                   ///< the fixation the last step was scheduled for
  std::vector<GazeTarget> scene_targets; ///< the gaze stage's scratch, reused every frame
  Response response;                     ///< contacts, walls, the impulse solve
  InaccuracyMeter meter;                 ///< nabla and P, the exact test's truth, episodes
  OcclusionQuery occlusion;              ///< this frame's occluders (metrics.visibility: occlusion)
  CounterfactualEvaluation evaluation;   ///< the schedulers evaluated on the side (evaluate:)
  std::vector<std::unique_ptr<TreeEvaluation>> tree_evaluations;  ///< the evaluate.trees sets
  /// The threads of settings.threads, for the stages that split their work (docs/scale.md).
  std::unique_ptr<ThreadPool> pool;
};

/// What one frame's stages hand each other: the world, the parts, and the frame's own
/// budget and stats. Made by Animation::step for one frame.
struct FrameContext {
  const AnimationSettings& settings;     ///< as in force this frame (live changes included)
  WorldData& world;                      ///< the Animation's world: entities, states, models
  FrameParts& parts;                     ///< the Animation's parts and what they keep between frames
  std::int64_t frame = 0;                ///< the frame being run: frames done before it
  FrameStats& stats;                     ///< what the frame did, filled stage by stage
  Budget budget;                         ///< the scheduler's budget, started by the start-budget stage
  /// What the sync stage took, ms: a driver pays it from its budget, so the evaluated arms,
  /// synced once for all, have it taken from theirs (frame/counterfactual.hpp).
  double sync_ms = 0;
};

}  // namespace fovea
