#include "frame/animation.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/rng.hpp"
#include "core/stopwatch.hpp"
#include "spheretree/tree_builder.hpp"
#include "world/placement.hpp"

namespace fovea {
namespace {

/// Places every group's entities (world/placement.hpp) and gives them their initial motion.
void place_entities(WorldData& world, const std::vector<EntityGroupSettings>& groups,
                    const std::vector<std::vector<ModelId>>& group_models, std::uint64_t seed) {
  const std::span<const Entity> prototypes = world.library.prototypes();
  double max_radius_m = 0;
  for (const auto& models : group_models)
    for (const ModelId m : models) max_radius_m = std::max(max_radius_m, prototypes[m].bounding_radius_m);

  // Group by group, all groups sharing one occupancy so none overlap. Cells at least a
  // diameter wide, and few enough that the box spans under 2^20 of them.
  const Aabb& box = world.box;
  const double box_extent_m = std::max({box.size_m().x, box.size_m().y, box.size_m().z});
  SphereOccupancy occupied(std::max({2 * max_radius_m, box_extent_m / SphereOccupancy::kCellLimit, 1e-12}));
  Rng placement_rng(seed, rng_stream(RngStream::placement));
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    const EntityGroupSettings& group = groups[g];
    if (group.count == 0) continue;
    // Entity i of the group uses the group's variant i mod variants.
    const auto model_of = [&](int i) { return group_models[g][static_cast<std::size_t>(i) % group_models[g].size()]; };
    GroupToPlace to_place{g, group.name, group.placement, std::vector<double>(static_cast<std::size_t>(group.count))};
    for (int i = 0; i < group.count; ++i) to_place.radii_m[static_cast<std::size_t>(i)] = prototypes[model_of(i)].bounding_radius_m;
    to_place.grid_extent_m = world.library.models()[model_of(0)].extent_m();
    to_place.centre_of_mass_model_m = prototypes[model_of(0)].centre_of_mass_model_m;
    const std::vector<Vec3> centres = place_group(box, to_place, occupied, placement_rng);

    Rng motion_rng(seed, rng_stream(RngStream::initial_motion, g));
    for (int i = 0; i < group.count; ++i) {
      world.entities.push_back(prototypes[model_of(i)]);
      world.library.add_user(world.entities.back().model);
      ++world.live_entities;
      EntityState s;
      s.position_m = centres[static_cast<std::size_t>(i)];
      if (!group.is_static && group.placement != Placement::floor) {
        s.orientation = motion_rng.rotation();
        s.linear_velocity_mps = group.speed_mps * motion_rng.unit_vector();
        s.angular_velocity_radps = group.spin_radps * motion_rng.unit_vector();
      }
      world.states.push_back(s);
    }
  }
}

AnimationSettings with_world(const WorldSettings& world) {
  AnimationSettings settings;
  settings.world = world;
  return settings;
}

}  // namespace

Animation::Animation(const WorldSettings& world, std::uint64_t seed) : Animation(with_world(world), seed) {}

Animation::Animation(const AnimationSettings& animation_settings, std::uint64_t seed,
                     const GazeEnvironment& environment)
    : settings_(animation_settings),
      seed_(seed),
      world_{Aabb{Vec3(0.0), animation_settings.world.box_size_m}, ModelLibrary(animation_settings.world.entities), {}, {}, {}, 0},
      parts_(animation_settings, world_.box, seed, environment) {
  if (animation_settings.threads < 0) throw std::invalid_argument("threads must be >= 0 (0: the machine's cores)");
  // The oracle orders by the exact voxel test, which only ground truth computes (the config
  // says so at the key's line; this is for worlds made in code).
  const auto is_oracle = [](SchedulerKind k) { return scheduler_kind_info(k).uses_true_priority; };
  if (!animation_settings.ground_truth &&
      (is_oracle(animation_settings.schedule.kind) ||
       std::any_of(animation_settings.evaluate.schedulers.begin(), animation_settings.evaluate.schedulers.end(), is_oracle)))
    throw std::invalid_argument("schedule: oracle orders by the exact voxel test, which needs ground_truth: true");
  std::vector<InstalledModel> installed;
  const std::vector<std::vector<ModelId>> group_models = world_.library.install_groups(seed, installed);
  for (InstalledModel& model : installed) take(std::move(model));
  place_entities(world_, settings_.world.entities, group_models, seed);

  // The broad phase starts from the initial poses; static entities are boxed once.
  for (EntityId id = 0; id < world_.entities.size(); ++id) {
    [[maybe_unused]] const ProxyId proxy = parts_.broadphase.add(bounds_of(id), world_.entities[id].is_static);
    assert(proxy == id);
  }
  parts_.broadphase.update();

  world_.correction_m.assign(world_.entities.size(), Vec3(0.0));
  plan();
}

void Animation::plan() { plan_ = plan_frame(frame_plan_inputs(settings_)); }

ModelId Animation::take(InstalledModel installed) {
  const ModelId id = installed.id;
  const ModelLibrary& library = world_.library;
  parts_.narrowphase.set_model(id, std::move(installed.collision_model), std::move(installed.grower));
  parts_.meter.set_model(id, library.models()[id], library.prototypes()[id].centre_of_mass_model_m);
  // The evaluated tree sets get this model's tree too, built whole their way (a model added
  // mid-run, a rockfall's fragment, included).
  const Entity& prototype = library.prototypes()[id];
  for (const std::unique_ptr<TreeEvaluation>& t : parts_.tree_evaluations) {
    SphereTreeBuildOptions options = tree_build_options(settings_.world.entities[prototype.group].sphere_tree);
    options.builder = t->trees.builder;
    options.fit = t->trees.fit;
    const SphereTree tree = build_sphere_tree(library.models()[id], options).tree;
    t->narrowphase.set_model(id, make_collision_model(tree, library.models()[id], prototype.centre_of_mass_model_m,
                                                      prototype.bounding_radius_m),
                             nullptr);
  }
  return id;
}

std::vector<Animation::TreeEvaluationView> Animation::evaluations() const {
  std::vector<TreeEvaluationView> views{{"run", &parts_.evaluation}};
  for (const std::unique_ptr<TreeEvaluation>& t : parts_.tree_evaluations) views.push_back({t->name, &t->evaluation});
  return views;
}

void Animation::set_state(EntityId entity, const EntityState& state) {
  assert(is_live(entity));
  world_.states[entity] = state;
  world_.correction_m[entity] = Vec3(0.0);
  // A static entity's box is set once and never again by step().
  parts_.broadphase.set_box(entity, bounds_of(entity));
  if (world_.entities[entity].is_static) parts_.broadphase.update();
}

ModelId Animation::add_model(VoxelModel model, std::uint32_t group, ModelLifetime lifetime) {
  return take(world_.library.install(std::move(model), group, lifetime, false, frames_done_));
}

EntityId Animation::spawn(ModelId model, const EntityState& state) {
  assert(world_.library.has_model(model));
  Entity entity = world_.library.prototypes()[model];
  entity.live = true;
  const Aabb box = entity_box(world_, entity, state);
  // The broad phase hands out ids: a retired entity's once an update has taken it out.
  const EntityId id = parts_.broadphase.add(box, entity.is_static);
  if (id == world_.entities.size()) {
    world_.entities.push_back(entity);
    world_.states.push_back(state);
    world_.correction_m.push_back(Vec3(0.0));
  } else {
    assert(id < world_.entities.size() && !world_.entities[id].live);
    world_.entities[id] = entity;
    world_.states[id] = state;
    world_.correction_m[id] = Vec3(0.0);
  }
  world_.library.add_user(model);
  ++world_.live_entities;
  return id;
}

void Animation::retire(EntityId id) {
  assert(is_live(id));
  Entity& e = world_.entities[id];
  // Static from now on: nothing moves it, pushes it, or boxes it again; the broad phase
  // drops it (and reports its pairs stopped) at the next update.
  e.live = false;
  e.is_static = true;
  e.inverse_mass_per_kg = 0;
  e.inverse_inertia_body = Mat3(0.0);
  world_.states[id].linear_velocity_mps = Vec3(0.0);
  world_.states[id].angular_velocity_radps = Vec3(0.0);
  world_.correction_m[id] = Vec3(0.0);
  parts_.broadphase.remove(id);
  --world_.live_entities;
  world_.library.remove_user(e.model);
}

FrameStats Animation::step() {
  FrameStats stats;
  stats.frame = frames_done_;
  stats.entity_count = world_.live_entities;
  Stopwatch frame_clock;
  FrameContext frame{settings_, world_, parts_, frames_done_, stats, Budget{}};
  for (const Stage stage : plan_) {
    const StageInfo& info = stage_info(stage);
    Stopwatch clock;
    info.run(frame);
    const double ms = clock.elapsed_ms();
    switch (info.clock) {
      case StageClock::frame: break;
      case StageClock::evaluation: stats.evaluation_ms += ms; break;
      case StageClock::integrate: stats.phase_ms[static_cast<int>(Phase::integrate)] += ms; break;
      case StageClock::broadphase: stats.phase_ms[static_cast<int>(Phase::broadphase)] += ms; break;
      case StageClock::narrowphase: stats.phase_ms[static_cast<int>(Phase::narrowphase)] += ms; break;
      case StageClock::response: stats.phase_ms[static_cast<int>(Phase::response)] += ms; break;
      case StageClock::metrics: stats.phase_ms[static_cast<int>(Phase::metrics)] += ms; break;
    }
  }
  ++frames_done_;
  stats.sim_time_s = sim_time_s();
  // The frame as it would be without the evaluation on the side.
  stats.frame_ms = frame_clock.elapsed_ms() - stats.evaluation_ms;
  return stats;
}

void Animation::set_schedule(const ScheduleSettings& schedule) {
  if (scheduler_kind_info(schedule.kind).uses_true_priority && !settings_.ground_truth)
    throw std::invalid_argument("schedule.kind: oracle orders by the exact voxel test, which needs ground_truth: true");
  parts_.scheduler = make_scheduler(schedule, seed_);  // throws before anything changes
  settings_.schedule = schedule;
  plan();  // the new scheduler may read priorities the old one did not, or the other way
}

void Animation::set_budget(const BudgetSettings& budget) {
  if (const BudgetModeInfo& mode = kind_row(kBudgetModes, budget.mode); !mode.runs_a_world)
    throw std::invalid_argument("budget.mode: " + std::string(mode.name) + " budgets are for evaluate.budgets only");
  if (!(budget.ms >= 0 && std::isfinite(budget.ms)))
    throw std::invalid_argument("budget.ms must be a finite number >= 0");
  if (budget.tests < 0) throw std::invalid_argument("budget.tests must be >= 0");
  settings_.budget = budget;
}

void Animation::set_interrupt_policy(InterruptPolicy policy) { settings_.interrupt_policy = policy; }

void Animation::set_perception_model(const PerceptionModelSettings& model) {
  parts_.perception_model = PerceptionModel(model);
  parts_.blind_model = parts_.perception_model.without_eccentricity();
  settings_.perception.model = model;
}

void Animation::set_camera(const CameraSettings& camera) {
  ViewSettings view = settings_.perception.view;
  view.camera = camera;
  parts_.view = View(view, world_.box);
  settings_.perception.view = view;
}

}  // namespace fovea
