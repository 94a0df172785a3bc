#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "broadphase/region_sweep_and_prune.hpp"
#include "core/thread_pool.hpp"
#include "frame/counterfactual.hpp"
#include "frame/animation_settings.hpp"
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
#include "spheretree/sphere_tree.hpp"
#include "world/entity.hpp"
#include "world/placement.hpp"
#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// The world (004 section 3.1) and its frame: a box, the entities in it, the camera, and
/// the parts a frame calls in order (docs/architecture.md, "One frame").
///
/// Owns all world data and hands the parts plain arrays: the models (ModelLibrary), the
/// entities' cold data and hot states, and one instance of each part. step() runs the
/// phases of Phase in order. Construction builds the voxel models, their mass properties and
/// the initial placement from the settings and seed; it throws ModelError when a group's
/// models cannot be built and PlacementError when the entities do not fit.
class Animation {
 public:
  /// `environment` gives the gaze part what only an app has: the window's mouse pointer.
  Animation(const AnimationSettings& settings, std::uint64_t seed, const GazeEnvironment& environment = {});
  /// A world with the default detection settings.
  Animation(const WorldSettings& world, std::uint64_t seed) : Animation(with_world(world), seed) {}

  /// Advances the world by one fixed time step and reports what the frame did.
  FrameStats step();

  /// Replaces an entity's pose and velocities, to set up a scenario (tests, demos) before
  /// or between steps. Any positional correction the response still owed it is dropped.
  void set_state(EntityId entity, const EntityState& state);

  // Entities and models made and removed between steps (the demos: rocks released, broken
  // and retired). Ids are handles: a retired entity's id, and a released model's, are given
  // to later ones; model_generation() tells a renderer that a model id holds a new model.
  /// Adds a model built from `model` for group `group`: the group's material, sphere-tree
  /// settings (whole or on demand; a .sph file is not used for it) and bounds. Throws
  /// ModelError for an empty model or unrepresentable mass.
  ModelId add_model(VoxelModel model, std::uint32_t group, ModelLifetime lifetime);
  /// Says, before the first step, that models of `group` with `lifetime` will be added while
  /// the world runs, so that grows_trees_on_demand() answers for them from the start.
  void expect_models(std::uint32_t group, ModelLifetime lifetime) { library_.expect(group, lifetime); }
  /// A new dynamic entity of `model` (static if the model's group is) at `state`, in the
  /// broad phase from the next step.
  EntityId spawn(ModelId model, const EntityState& state);
  /// Takes a live entity out of the world: it stops moving at once and leaves the broad
  /// phase, its collisions and (for a released model) its model at the next step.
  void retire(EntityId entity);
  bool is_live(EntityId entity) const { return entity < entities_.size() && entities_[entity].live; }
  /// Entities alive now.
  std::int64_t live_entity_count() const { return live_entities_; }
  /// The entity a spawn() of `model` copies: mass properties, material, bounds.
  const Entity& model_prototype(ModelId model) const { return library_.prototypes()[model]; }
  /// Counts the models ever put in slot `model` (1 for the first).
  std::uint32_t model_generation(ModelId model) const { return library_.generations()[model]; }
  /// model_generation() and model_prototype() of every slot, by ModelId.
  std::span<const std::uint32_t> model_generations() const { return library_.generations(); }
  std::span<const Entity> model_prototypes() const { return library_.prototypes(); }
  /// Whether slot `model` holds a model now (false once released).
  bool has_model(ModelId model) const { return library_.has_model(model); }

  // Live changes (the control panel, scenario scripts): each takes effect from the next
  // step and is reflected in settings(). Each throws std::invalid_argument, naming the key,
  // for values the part cannot use, and then changes nothing.
  /// Another scheduler (004 section 3.4.3); collisions keep their state.
  void set_schedule(const ScheduleSettings& schedule);
  void set_budget(const BudgetSettings& budget);
  void set_interrupt_policy(InterruptPolicy policy);
  /// Another f(e, g) (004 section 3.4.2); the file key is not read here.
  void set_perception_model(const PerceptionModelSettings& model);
  /// Moves the camera: the picture and the perception model's projection move together.
  void set_camera(const CameraSettings& camera);

  const AnimationSettings& settings() const { return settings_; }
  const Aabb& box() const { return box_; }
  /// The camera and screen (004 section 3.1, "viewing parameters").
  const View& view() const { return view_; }
  /// Every model slot by ModelId; a released slot holds an empty model (has_model()).
  std::span<const VoxelModel> models() const { return library_.models(); }
  /// The sphere tree of each model, by ModelId: built by the group's builder, or read from the
  /// group's .sph file; empty for on-demand trees, whose nodes built so far are the narrow
  /// phase's CollisionModel.
  std::span<const SphereTree> sphere_trees() const { return library_.trees(); }
  const SphereTree& sphere_tree(ModelId model) const { return library_.trees()[model]; }
  /// What made each model's tree: the builder used, or the group's file.
  std::span<const TreeSource> sphere_tree_sources() const { return library_.tree_sources(); }
  /// The groups' tree files grown to cover their models (sphere_tree.inflate).
  std::span<const TreeInflation> sphere_tree_inflations() const { return library_.inflations(); }
  /// Wall-clock time spent building or reading sphere trees when the world was made.
  double sphere_tree_build_ms() const { return library_.build_ms(); }
  /// Whether some group's models grow their sphere trees on demand, or some model added or
  /// expected does (frame/model_library.hpp): the records then have the tree columns.
  bool grows_trees_on_demand() const { return library_.grows_trees_on_demand(); }
  std::span<const Entity> entities() const { return entities_; }
  std::span<const EntityState> states() const { return states_; }
  /// The states for a controller that drives entities between steps (the crowd's steering):
  /// unlike set_state(), it keeps what the response still owes them. A static entity's box
  /// is not updated from it.
  std::span<EntityState> controlled_states() { return states_; }
  /// The broad phase (004 section 3.2): one proxy per entity, ProxyId == EntityId. Its
  /// pairs() are the entity pairs whose boxes overlap after the last step.
  const RegionSweepAndPrune& broadphase() const { return broadphase_; }
  /// The box that bounds `entity` in the broad phase at its current pose.
  Aabb bounds_of(EntityId entity) const;
  /// The collisions of the last step: one per overlapping pair, in list order.
  const NarrowPhase& narrowphase() const { return narrowphase_; }
  /// A model's collision tree for a search outside the frame (the player's capsule): an
  /// on-demand tree grows where the search goes, counted in the next frame's tree columns.
  GrowableModel growable_model(ModelId model) { return narrowphase_.growable(model); }
  /// The exact test's verdict on the collision in `slot` in the last step.
  const CollisionTruth& collision_truth(std::uint32_t slot) const { return meter_.truth(slot); }
  /// The schedulers evaluated on the side in the last step (docs/evaluation.md); empty
  /// frames() when the settings list none.
  const CounterfactualEvaluation& evaluation() const { return evaluation_; }
  /// A counterfactual evaluation and the trees it ran on: "run" for the run's own, else the
  /// evaluate.trees set's name (evaluated_tree_name).
  struct TreeEvaluationView {
    std::string_view tree;
    const CounterfactualEvaluation* evaluation;
  };
  /// The evaluation on the run's own trees, then on each evaluate.trees set, in their order.
  std::vector<TreeEvaluationView> evaluations() const;
  const PerceptionModel& perception_model() const { return perception_model_; }
  /// The response: the last frame's contact manifolds and the solver settings in force.
  const Response& response() const { return response_; }
  /// The gaze part: its source (to switch it live) and the source's status messages.
  Gaze& gaze() { return gaze_; }
  /// The fixation the last step was scheduled for (the screen's centre before the first).
  const FrameGaze& last_gaze() const { return last_gaze_; }
  std::int64_t frames_done() const { return frames_done_; }
  double sim_time_s() const { return static_cast<double>(frames_done_) * settings_.world.time_step_s; }

 private:
  static AnimationSettings with_world(const WorldSettings& world) {
    AnimationSettings s;
    s.world = world;
    return s;
  }
  /// Places every group's entities (world/placement.hpp) and gives them their initial motion.
  void place_entities(const std::vector<std::vector<ModelId>>& group_models, std::uint64_t seed);
  /// Hands what a model installed needs to the narrow phase and the metrics.
  ModelId take(InstalledModel installed);
  /// The broad-phase box of `entity` at `state` (bounds_of, for an entity not yet in the lists).
  Aabb box_of(const Entity& entity, const EntityState& state) const;
  /// What the gaze source watches (Gaze::wants_scene_targets), computed from the states,
  /// the camera and the last step's collisions and handed to it; nothing when it wants none.
  void hand_scene_targets();
  /// The fixation point, the camera and f(e, g): what the metrics place collisions with.
  Viewing viewing(const FrameGaze& gaze) const { return {view_, perception_model_, gaze.x_px, gaze.y_px}; }

  /// What measuring needs besides the collisions: min_f, and the occluders when the
  /// visibility test is on (built once a frame, on first use).
  MeasureOptions measure_options();
  /// The narrow phase's collisions brought in line with the broad phase's pairs; models no
  /// entity uses any more released; idle branches of on-demand trees evicted. Once a frame:
  /// by the evaluation when there is one, else by the narrow phase.
  void prepare_collisions();

  // The phases of step(), in order (Phase).
  void integrate_phase();
  void broad_phase(FrameStats& stats);
  /// Between the broad and the narrow phase, outside every phase's time.
  void evaluation_phase(const FrameGaze& gaze);
  void narrow_phase(const FrameGaze& gaze, FrameStats& stats);
  void response_phase(FrameStats& stats);
  void metrics_phase(const FrameGaze& gaze, FrameStats& stats);

  AnimationSettings settings_;
  Aabb box_;
  ModelLibrary library_;
  std::vector<Entity> entities_;     // cold, by EntityId
  std::vector<EntityState> states_;  // hot, by EntityId
  std::int64_t live_entities_ = 0;
  RegionSweepAndPrune broadphase_;
  NarrowPhase narrowphase_;
  std::unique_ptr<Scheduler> scheduler_;
  std::uint64_t seed_ = 0;
  /// What the driver's descents ended with last frame (coherence, refined priorities), and
  /// this frame's, taken as the narrow phase ends (before the response finishes descents
  /// for its contacts) and swapped in once the frame's records have read last frame's.
  DescentMemory memory_;
  DescentMemory next_memory_;
  /// Whether anything reads the memory: coherence or refined priorities. Without, remembering
  /// would cost a gap bound or two per collision every frame for nothing.
  bool remembers() const {
    return settings_.narrowphase.coherence || settings_.schedule.priorities == PriorityGap::refined;
  }
  View view_;
  PerceptionModel perception_model_;
  Gaze gaze_;
  FrameGaze last_gaze_;
  std::vector<GazeTarget> scene_targets_;  // hand_scene_targets()'s scratch, reused every frame
  Response response_;
  std::vector<Vec3> correction_m_;   // by entity: the response's move, applied before the next step
  InaccuracyMeter meter_;
  OcclusionQuery occlusion_;
  bool occlusion_ready_ = false;  ///< occlusion_ holds this frame's poses
  CounterfactualEvaluation evaluation_;
  /// The evaluate.trees sets: each its own narrow phase over the same pairs, with every model's
  /// tree built the set's way, and its own evaluation (its own episodes).
  struct TreeEvaluation {
    EvaluatedTreeSettings trees;
    std::string name;
    NarrowPhase narrowphase;
    CounterfactualEvaluation evaluation;
  };
  std::vector<std::unique_ptr<TreeEvaluation>> tree_evaluations_;
  std::int64_t frames_done_ = 0;
  /// The threads of settings_.threads, for the phases that split their work
  /// (docs/scale.md, "Threads").
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace fovea
