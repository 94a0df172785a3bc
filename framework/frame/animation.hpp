#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "frame/animation_settings.hpp"
#include "frame/counterfactual.hpp"
#include "frame/frame_data.hpp"
#include "frame/frame_stages.hpp"
#include "frame/frame_stats.hpp"
#include "frame/model_library.hpp"
#include "gaze/gaze.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"
#include "response/response.hpp"
#include "world/entity.hpp"
#include "world/placement.hpp"
#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// The world (004 section 3.1) and its frame: a box, the entities in it, the camera, and
/// the parts a frame calls in order (docs/architecture.md, "One frame").
///
/// Owns the world's data (WorldData: the models, the entities' cold data and hot states) and
/// one instance of each part (FrameParts), and keeps the live setters. step() runs the frame's
/// stage list (frame/frame_stages.hpp), planned from the settings when the world is made and
/// again when a live setter changes what the frame does. Construction builds the voxel models,
/// their mass properties and the initial placement from the settings and seed; it throws
/// ModelError when a group's models cannot be built and PlacementError when the entities do
/// not fit.
class Animation {
 public:
  /// `environment` gives the gaze part what only an app has: the window's mouse pointer.
  Animation(const AnimationSettings& settings, std::uint64_t seed, const GazeEnvironment& environment = {});
  /// A world with the default detection settings.
  Animation(const WorldSettings& world, std::uint64_t seed);

  /// Advances the world by one fixed time step and reports what the frame did.
  FrameStats step();

  /// Replaces an entity's pose and velocities, to set up a scenario (tests, demos) before
  /// or between steps. Any positional correction the response still owed it is dropped.
  void set_state(EntityId entity, const EntityState& state);

  // Entities and models made and removed between steps (the demos: rocks released, broken
  // and retired). Ids are handles: a retired entity's id, and a released model's, are given
  // to later ones; model_library().generations() tells a renderer that a model id holds a new
  // model.
  /// Adds a model built from `model` for group `group`: the group's material, sphere-tree
  /// settings (whole or on demand; a .sph file is not used for it) and bounds. Throws
  /// ModelError for an empty model or unrepresentable mass.
  ModelId add_model(VoxelModel model, std::uint32_t group, ModelLifetime lifetime);
  /// Says, before the first step, that models of `group` with `lifetime` will be added while
  /// the world runs, so that model_library().grows_trees_on_demand() answers for them from the
  /// start.
  void expect_models(std::uint32_t group, ModelLifetime lifetime) { world_.library.expect(group, lifetime); }
  /// A new dynamic entity of `model` (static if the model's group is) at `state`, in the
  /// broad phase from the next step.
  EntityId spawn(ModelId model, const EntityState& state);
  /// Takes a live entity out of the world: it stops moving at once and leaves the broad
  /// phase, its collisions and (for a released model) its model at the next step.
  void retire(EntityId entity);
  /// Whether `entity` is a live entity's id (false past the end and once retired).
  bool is_live(EntityId entity) const { return entity < world_.entities.size() && world_.entities[entity].live; }
  /// Entities alive now.
  std::int64_t live_entity_count() const { return world_.live_entities; }
  /// The models by ModelId (frame/model_library.hpp): each slot's voxel model, sphere tree
  /// (built by the group's builder, or read from its .sph file; empty for on-demand trees,
  /// whose nodes built so far are the narrow phase's CollisionModel), where the tree came
  /// from, the prototype entity a spawn() copies, its generation (how many models the slot
  /// has held: a renderer's cue that it holds a new one), the tree files inflated, the time
  /// the trees took, and whether some model grows its tree on demand (the records then have
  /// the tree columns).
  const ModelLibrary& model_library() const { return world_.library; }

  // Live changes (the control panel, scenario scripts): each takes effect from the next
  // step and is reflected in settings(). Each throws std::invalid_argument, naming the key,
  // for values the part cannot use, and then changes nothing.
  /// Another scheduler (004 section 3.4.3); collisions keep their state.
  void set_schedule(const ScheduleSettings& schedule);
  /// Another budget (004 section 3.4); refuses fraction budgets and negative or non-finite limits.
  void set_budget(const BudgetSettings& budget);
  /// Another interrupt policy (004 section 3.4.1, outcome 4).
  void set_interrupt_policy(InterruptPolicy policy);
  /// Another f(e, g) (004 section 3.4.2); the file key is not read here.
  void set_perception_model(const PerceptionModelSettings& model);
  /// Moves the camera: the picture and the perception model's projection move together.
  void set_camera(const CameraSettings& camera);

  /// The settings in force, the live changes included.
  const AnimationSettings& settings() const { return settings_; }
  /// The walls, world space.
  const Aabb& box() const { return world_.box; }
  /// The camera and screen (004 section 3.1, "viewing parameters").
  const View& view() const { return parts_.view; }
  /// Every model slot by ModelId; a released slot holds an empty model (ModelLibrary::has_model).
  std::span<const VoxelModel> models() const { return world_.library.models(); }
  /// The entities' cold data, by EntityId (retired ones included, not live).
  std::span<const Entity> entities() const { return world_.entities; }
  /// The entities' poses and velocities, by EntityId.
  std::span<const EntityState> states() const { return world_.states; }
  /// The states for a controller that drives entities between steps (the crowd's steering):
  /// unlike set_state(), it keeps what the response still owes them. A static entity's box
  /// is not updated from it.
  std::span<EntityState> controlled_states() { return world_.states; }
  /// The broad phase (004 section 3.2): one proxy per entity, ProxyId == EntityId. Its
  /// pairs() are the entity pairs whose boxes overlap after the last step.
  const RegionSweepAndPrune& broadphase() const { return parts_.broadphase; }
  /// The box that bounds `entity` in the broad phase at its current pose.
  Aabb bounds_of(EntityId entity) const { return entity_box(world_, entity); }
  /// The collisions of the last step: one per overlapping pair, in list order.
  const NarrowPhase& narrowphase() const { return parts_.narrowphase; }
  /// A model's collision tree for a search outside the frame (the player's capsule): an
  /// on-demand tree grows where the search goes, counted in the next frame's tree columns.
  GrowableModel growable_model(ModelId model) { return parts_.narrowphase.growable(model); }
  /// The run's meter after the last step: the exact test's verdict on the collision in a
  /// slot (`truth(slot)`), and the episode each collision is in (`episodes().running`).
  const InaccuracyMeter& meter() const { return parts_.meter; }
  /// The schedulers evaluated on the side in the last step (docs/evaluation.md); empty
  /// frames() when the settings list none.
  const CounterfactualEvaluation& evaluation() const { return parts_.evaluation; }
  /// A counterfactual evaluation and the trees it ran on: "run" for the run's own, else the
  /// evaluate.trees set's name (evaluated_tree_name).
  struct TreeEvaluationView {
    std::string_view tree;                        ///< "run", or the set's name (evaluation.csv's `tree`)
    const CounterfactualEvaluation* evaluation;   ///< never null; owned by the Animation
  };
  /// The evaluation on the run's own trees, then on each evaluate.trees set, in their order.
  std::vector<TreeEvaluationView> evaluations() const;
  /// f(e, g) in force.
  const PerceptionModel& perception_model() const { return parts_.perception_model; }
  /// The response: the last frame's contact manifolds and the solver settings in force.
  const Response& response() const { return parts_.response; }
  /// The gaze part: its source (to switch it live) and the source's status messages.
  Gaze& gaze() { return parts_.gaze; }
  /// The fixation the last step was scheduled for (the screen's centre before the first).
  const FrameGaze& last_gaze() const { return parts_.last_gaze; }
  /// The stages step() runs, in order (frame/frame_stages.hpp; explain_frame prints them).
  std::span<const Stage> frame_plan() const { return plan_; }
  /// Steps taken.
  std::int64_t frames_done() const { return frames_done_; }
  /// Simulated time after the steps taken, in seconds.
  double sim_time_s() const { return static_cast<double>(frames_done_) * settings_.world.time_step_s; }

 private:
  /// Hands what a model installed needs to the narrow phase, the metrics and the evaluated
  /// tree sets.
  ModelId take(InstalledModel installed);
  /// The stage list for the settings and scheduler in force.
  void plan();

  AnimationSettings settings_;
  std::uint64_t seed_ = 0;
  WorldData world_;
  FrameParts parts_;
  std::vector<Stage> plan_;  ///< plan()'s stage list, run by step()
  std::int64_t frames_done_ = 0;
};

}  // namespace fovea
