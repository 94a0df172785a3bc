#pragma once

#include <array>
#include <optional>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "broadphase/sweep_and_prune.hpp"
#include "gaze/gaze.hpp"
#include "metrics/exact_voxel_contact.hpp"
#include "narrowphase/narrow_phase.hpp"
#include "perception/perception_model.hpp"
#include "perception/view.hpp"
#include "response/response.hpp"
#include "schedule/scheduler.hpp"
#include "spheretree/sphere_tree.hpp"
#include "frame/animation_settings.hpp"
#include "world/entity.hpp"
#include "world/placement.hpp"
#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// The phases of one frame, in the order they run (DESIGN.md "One frame, as data flows").
/// Each is timed and gets its own `<name>_ms` column in frames.csv.
enum class Phase : int {
  integrate,  ///< last frame's positional correction, then world.integrate(dt): velocities and poses
  broadphase, ///< broadphase.update(boxes): sweep and prune, the overlapping pairs
  narrowphase,///< collisions synced, prioritised, refined under the budget, interrupted
  response,   ///< contacts of the real collisions and the walls, impulses, new velocities
  metrics,    ///< nabla and P of what was left, and the ground truth when asked
  count
};
inline constexpr int kPhaseCount = static_cast<int>(Phase::count);
/// Column-friendly name of a phase ("integrate").
std::string_view phase_name(Phase phase);

/// What one frame did, as plain data for the records.
struct FrameStats {
  std::int64_t frame = 0;         ///< 0 for the first step
  double sim_time_s = 0;          ///< simulated time at the end of the frame
  std::int64_t entity_count = 0;
  std::int64_t pairs = 0;         ///< entity pairs whose broad-phase boxes overlap after the frame
  std::int64_t pairs_started = 0; ///< of those, pairs that did not overlap before it
  std::int64_t pairs_stopped = 0; ///< pairs that overlapped before it and no longer do
  std::array<double, kPhaseCount> phase_ms{};  ///< wall-clock time of each phase
  double frame_ms = 0;            ///< wall-clock time of the whole step

  // The narrow phase (004 section 3.4); docs/metrics.md defines each.
  FrameGaze gaze;                 ///< the fixation point the frame was scheduled for, and its origin
  double gaze_time_s = 0;         ///< the run's clock when the gaze was asked for: the frame's start
  std::int64_t collisions = 0;    ///< collisions refined this frame (one per overlapping pair)
  std::int64_t resolved_colliding = 0;      ///< outcome 1: leaf-leaf intersection
  std::int64_t resolved_not_colliding = 0;  ///< outcome 2: no intersection left
  std::int64_t interrupted = 0;   ///< outcome 4: unresolved when the budget ran out
  std::int64_t sphere_tests = 0;  ///< sphere-sphere tests of the descent
  bool budget_exhausted = false;  ///< the budget ran out before every collision was resolved
  /// Wall budgets that ran out: how long after the deadline the descent stopped, in
  /// microseconds. NaN otherwise.
  double budget_overshoot_us = 0;
  double nabla_est_m = 0;         ///< sum of 3D gap bounds over collisions accepted unresolved
  double p_est = 0;               ///< sum of f(e, g) over the same
  // Ground truth (settings ground_truth), from the exact voxel test; NaN when off.
  double nabla_true_m = 0;        ///< sum of true 3D gaps over collisions accepted unresolved
  double p_true = 0;              ///< sum of f at the true gaps over the same
  std::int64_t false_collisions = 0;   ///< treated as colliding, voxels apart (repulsions)
  std::int64_t missed_collisions = 0;  ///< treated as not colliding, voxels touching (interpenetrations)

  // The response (004 section 3.5; docs/response.md).
  ResponseStats response;

  // On-demand sphere trees (001; narrowphase/on_demand_tree.hpp), this frame, and since the
  // last step for growth outside it (a scenario's capsule test).
  std::int64_t tree_nodes_built = 0;
  std::int64_t tree_nodes_evicted = 0;
  double tree_build_ms = 0;       ///< wall-clock time building them
  std::int64_t tree_nodes = 0;    ///< nodes of all on-demand trees after the frame
};

/// What becomes of a model added at run time when no entity uses it any more.
enum class ModelLifetime {
  kept,                  ///< stays, to spawn from later (a rockfall's rock shapes)
  released_when_unused,  ///< freed, its id reused (fragments of a broken rock)
};

/// The exact test's verdict on one collision in the last frame (ground truth only).
struct CollisionTruth {
  bool checked = false;     ///< false when ground truth is off
  bool touching = false;
  double separation_m = 0;  ///< 0 when touching; NaN for collisions not treated as colliding (not computed)
  double gap_deg = 0;       ///< the true gap on screen, for collisions accepted unresolved
  double probability = 0;   ///< f at the true gap, for the same
};

/// A group's models cannot be built as configured. `setting` names the group's setting at
/// fault ("model.variants") so the caller can point at its line in the config.
class ModelError : public std::runtime_error {
 public:
  ModelError(std::uint32_t group_index, std::string setting, const std::string& message)
      : std::runtime_error(message), group_index_(group_index), setting_(std::move(setting)) {}
  std::uint32_t group_index() const { return group_index_; }
  const std::string& setting() const { return setting_; }

 private:
  std::uint32_t group_index_;
  std::string setting_;
};

/// Voxel cells all of a world's models may hold together (one byte each): 128 Mi, eight
/// 256^3 grids. Beyond it the run stops with a ModelError instead of exhausting memory.
inline constexpr std::int64_t kMaxModelVoxelCells = std::int64_t{1} << 27;

/// The world (004 section 3.1): a box, the entities in it, the camera, and the frame loop.
///
/// Owns all world data; each frame calls the parts in order and hands them plain arrays.
/// Construction builds the voxel models, their mass properties and the initial placement
/// from the settings and seed; it throws ModelError when a group's models cannot be built
/// and PlacementError when the entities do not fit.
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
  const Entity& model_prototype(ModelId model) const { return model_prototypes_[model]; }
  /// Counts the models ever put in slot `model` (1 for the first).
  std::uint32_t model_generation(ModelId model) const { return model_generation_[model]; }
  /// model_generation() and model_prototype() of every slot, by ModelId.
  std::span<const std::uint32_t> model_generations() const { return model_generation_; }
  std::span<const Entity> model_prototypes() const { return model_prototypes_; }
  /// Whether slot `model` holds a model now (false once released).
  bool has_model(ModelId model) const { return model < model_in_use_.size() && model_in_use_[model]; }

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
  std::span<const VoxelModel> models() const { return models_; }
  /// The sphere tree of each model, by ModelId: built by octree subdivision, or read from the
  /// group's .sph file; empty for on-demand trees, whose nodes built so far are the narrow
  /// phase's CollisionModel.
  std::span<const SphereTree> sphere_trees() const { return trees_; }
  const SphereTree& sphere_tree(ModelId model) const { return trees_[model]; }
  /// Wall-clock time spent building or reading sphere trees when the world was made.
  double sphere_tree_build_ms() const { return sphere_tree_build_ms_; }
  std::span<const Entity> entities() const { return entities_; }
  std::span<const EntityState> states() const { return states_; }
  /// The states for a controller that drives entities between steps (the crowd's steering):
  /// unlike set_state(), it keeps what the response still owes them. A static entity's box
  /// is not updated from it.
  std::span<EntityState> controlled_states() { return states_; }
  /// The broad phase (004 section 3.2): one proxy per entity, ProxyId == EntityId. Its
  /// pairs() are the entity pairs whose boxes overlap after the last step.
  const SweepAndPrune& broadphase() const { return broadphase_; }
  /// The box that bounds `entity` in the broad phase at its current pose.
  Aabb bounds_of(EntityId entity) const;
  /// The collisions of the last step: one per overlapping pair, in list order.
  const NarrowPhase& narrowphase() const { return narrowphase_; }
  /// A model's collision tree for a search outside the frame (the player's capsule): an
  /// on-demand tree grows where the search goes, counted in the next frame's tree columns.
  GrowableModel growable_model(ModelId model) { return narrowphase_.growable(model); }
  /// The exact test's verdict on the collision in `slot` in the last step.
  const CollisionTruth& collision_truth(std::uint32_t slot) const { return truth_[slot]; }
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
  AnimationSettings settings_;
  Aabb box_;
  /// Builds (or reads) every group's models and trees; returns each group's prototype
  /// entities, one per variant.
  std::vector<std::vector<Entity>> build_models(const WorldSettings& settings, std::uint64_t seed);
  static VoxelModel read_file_model(const EntityGroupSettings& group, std::uint32_t g);
  static SphereTree make_tree(const EntityGroupSettings& group, std::uint32_t g, const VoxelModel& model);
  /// Puts `model` in a free slot (or a new one) with its tree, mass properties, prototype
  /// entity, hull, collision model and exact shape; `use_file_tree` reads the group's .sph.
  ModelId install_model(VoxelModel model, std::uint32_t group, ModelLifetime lifetime, bool use_file_tree);
  /// The broad-phase box of `entity` at `state` (bounds_of, for an entity not yet in the lists).
  Aabb box_of(const Entity& entity, const EntityState& state) const;
  /// Frees the slots of released models no entity uses any more.
  void release_unused_models();

  std::vector<VoxelModel> models_;
  std::vector<SphereTree> trees_;    // by ModelId
  double sphere_tree_build_ms_ = 0;
  std::vector<Entity> entities_;     // cold, by EntityId
  std::vector<EntityState> states_;  // hot, by EntityId
  std::vector<std::vector<Vec3>> hull_points_;  // by ModelId; filled for models with dynamic bounds
  SweepAndPrune broadphase_;
  NarrowPhase narrowphase_;
  std::unique_ptr<Scheduler> scheduler_;
  View view_;
  PerceptionModel perception_model_;
  Gaze gaze_;
  FrameGaze last_gaze_;
  Response response_;
  std::vector<Vec3> correction_m_;              // by entity: the response's move, applied before the next step
  std::vector<std::optional<ExactVoxelShape>> exact_shapes_;  // by ModelId; only with ground truth
  std::vector<CollisionTruth> truth_;           // by collision slot
  std::int64_t frames_done_ = 0;
  // Models by ModelId: the entity a spawn copies, how many live entities use it, its fate.
  std::vector<Entity> model_prototypes_;
  std::vector<std::int64_t> model_users_;
  std::vector<ModelLifetime> model_lifetime_;
  std::vector<std::uint32_t> model_generation_;
  std::vector<std::uint8_t> model_in_use_;
  std::vector<ModelId> free_models_;
  std::vector<ModelId> models_to_check_;  ///< released models whose last user retired
  std::int64_t live_entities_ = 0;

  /// Places a collision on screen (004 section 3.4.2): `at_start`, from the entities' centres,
  /// setting its priority f(e, g); otherwise from its deepest spheres now.
  void perceive(std::uint32_t slot, const FrameGaze& gaze, bool at_start);
  /// nabla, P and the ground truth of the frame's outcome.
  void measure(const FrameGaze& gaze, FrameStats& stats);
};

}  // namespace fovea
