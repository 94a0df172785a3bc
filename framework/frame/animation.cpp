#include "frame/animation.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/rng.hpp"
#include "core/stopwatch.hpp"
#include "spheretree/tree_builder.hpp"
#include "world/entity_bounds.hpp"
#include "world/motion.hpp"

namespace fovea {

Animation::Animation(const AnimationSettings& animation_settings, std::uint64_t seed,
                     const GazeEnvironment& environment)
    : settings_(animation_settings),
      box_{Vec3(0.0), animation_settings.world.box_size_m},
      library_(animation_settings.world.entities),
      scheduler_(make_scheduler(animation_settings.schedule, seed)),
      seed_(seed),
      view_(animation_settings.perception.view, box_),
      perception_model_(animation_settings.perception.model),
      gaze_(animation_settings.gaze, animation_settings.perception.view.screen, seed, environment),
      response_(animation_settings.response, box_, animation_settings.world.time_step_s),
      meter_(animation_settings.ground_truth),
      evaluation_(animation_settings.evaluate, animation_settings.schedule, seed),
      pool_(std::make_unique<ThreadPool>(animation_settings.threads)) {
  if (animation_settings.threads < 0) throw std::invalid_argument("threads must be >= 0 (0: the machine's cores)");
  // The oracle orders by the exact voxel test, which only ground truth computes (the config
  // says so at the key's line; this is for worlds made in code).
  const auto is_oracle = [](SchedulerKind k) { return k == SchedulerKind::oracle; };
  if (!animation_settings.ground_truth &&
      (is_oracle(animation_settings.schedule.kind) ||
       std::any_of(animation_settings.evaluate.schedulers.begin(), animation_settings.evaluate.schedulers.end(), is_oracle)))
    throw std::invalid_argument("schedule: oracle orders by the exact voxel test, which needs ground_truth: true");
  narrowphase_.set_settings(animation_settings.narrowphase);
  last_gaze_.x_px = 0.5 * animation_settings.perception.view.screen.width_px;
  last_gaze_.y_px = 0.5 * animation_settings.perception.view.screen.height_px;
  last_gaze_.source = "centre";
  for (const EvaluatedTreeSettings& trees : animation_settings.evaluate.trees) {
    auto t = std::make_unique<TreeEvaluation>(
        TreeEvaluation{trees, evaluated_tree_name(trees), NarrowPhase{},
                       CounterfactualEvaluation(animation_settings.evaluate, animation_settings.schedule, seed)});
    t->narrowphase.set_settings(animation_settings.narrowphase);
    tree_evaluations_.push_back(std::move(t));
  }
  std::vector<InstalledModel> installed;
  const std::vector<std::vector<ModelId>> group_models = library_.install_groups(seed, installed);
  for (InstalledModel& model : installed) take(std::move(model));
  place_entities(group_models, seed);

  // The broad phase starts from the initial poses; static entities are boxed once.
  for (EntityId id = 0; id < entities_.size(); ++id) {
    [[maybe_unused]] const ProxyId proxy = broadphase_.add(bounds_of(id), entities_[id].is_static);
    assert(proxy == id);
  }
  broadphase_.update();

  correction_m_.assign(entities_.size(), Vec3(0.0));
}

void Animation::place_entities(const std::vector<std::vector<ModelId>>& group_models, std::uint64_t seed) {
  const std::span<const Entity> prototypes = library_.prototypes();
  double max_radius_m = 0;
  for (const auto& models : group_models)
    for (const ModelId m : models) max_radius_m = std::max(max_radius_m, prototypes[m].bounding_radius_m);

  // Group by group, all groups sharing one occupancy so none overlap. Cells at least a
  // diameter wide, and few enough that the box spans under 2^20 of them.
  const double box_extent_m = std::max({box_.size_m().x, box_.size_m().y, box_.size_m().z});
  SphereOccupancy occupied(std::max({2 * max_radius_m, box_extent_m / SphereOccupancy::kCellLimit, 1e-12}));
  Rng placement_rng(seed, rng_stream(RngStream::placement));
  for (std::uint32_t g = 0; g < settings_.world.entities.size(); ++g) {
    const EntityGroupSettings& group = settings_.world.entities[g];
    if (group.count == 0) continue;
    // Entity i of the group uses the group's variant i mod variants.
    const auto model_of = [&](int i) { return group_models[g][static_cast<std::size_t>(i) % group_models[g].size()]; };
    GroupToPlace to_place{g, group.name, group.placement, std::vector<double>(static_cast<std::size_t>(group.count))};
    for (int i = 0; i < group.count; ++i) to_place.radii_m[static_cast<std::size_t>(i)] = prototypes[model_of(i)].bounding_radius_m;
    to_place.grid_extent_m = library_.models()[model_of(0)].extent_m();
    to_place.centre_of_mass_model_m = prototypes[model_of(0)].centre_of_mass_model_m;
    const std::vector<Vec3> centres = place_group(box_, to_place, occupied, placement_rng);

    Rng motion_rng(seed, rng_stream(RngStream::initial_motion, g));
    for (int i = 0; i < group.count; ++i) {
      entities_.push_back(prototypes[model_of(i)]);
      library_.add_user(entities_.back().model);
      ++live_entities_;
      EntityState s;
      s.position_m = centres[static_cast<std::size_t>(i)];
      if (!group.is_static && group.placement != Placement::floor) {
        s.orientation = motion_rng.rotation();
        s.linear_velocity_mps = group.speed_mps * motion_rng.unit_vector();
        s.angular_velocity_radps = group.spin_radps * motion_rng.unit_vector();
      }
      states_.push_back(s);
    }
  }
}

ModelId Animation::take(InstalledModel installed) {
  const ModelId id = installed.id;
  narrowphase_.set_model(id, std::move(installed.collision_model), std::move(installed.grower));
  meter_.set_model(id, library_.models()[id], library_.prototypes()[id].centre_of_mass_model_m);
  // The evaluated tree sets get this model's tree too, built whole their way (a model added
  // mid-run, a rockfall's fragment, included).
  const Entity& prototype = library_.prototypes()[id];
  for (const std::unique_ptr<TreeEvaluation>& t : tree_evaluations_) {
    SphereTreeBuildOptions options = tree_build_options(settings_.world.entities[prototype.group].sphere_tree);
    options.builder = t->trees.builder;
    options.fit = t->trees.fit;
    const SphereTree tree = build_sphere_tree(library_.models()[id], options).tree;
    t->narrowphase.set_model(id, make_collision_model(tree, library_.models()[id], prototype.centre_of_mass_model_m,
                                                      prototype.bounding_radius_m),
                             nullptr);
  }
  return id;
}

std::vector<Animation::TreeEvaluationView> Animation::evaluations() const {
  std::vector<TreeEvaluationView> views{{"run", &evaluation_}};
  for (const std::unique_ptr<TreeEvaluation>& t : tree_evaluations_) views.push_back({t->name, &t->evaluation});
  return views;
}

void Animation::set_state(EntityId entity, const EntityState& state) {
  assert(is_live(entity));
  states_[entity] = state;
  correction_m_[entity] = Vec3(0.0);
  // A static entity's box is set once and never again by step().
  broadphase_.set_box(entity, bounds_of(entity));
  if (entities_[entity].is_static) broadphase_.update();
}

ModelId Animation::add_model(VoxelModel model, std::uint32_t group, ModelLifetime lifetime) {
  return take(library_.install(std::move(model), group, lifetime, false, frames_done_));
}

EntityId Animation::spawn(ModelId model, const EntityState& state) {
  assert(has_model(model));
  Entity entity = library_.prototypes()[model];
  entity.live = true;
  const Aabb box = box_of(entity, state);
  // The broad phase hands out ids: a retired entity's once an update has taken it out.
  const EntityId id = broadphase_.add(box, entity.is_static);
  if (id == entities_.size()) {
    entities_.push_back(entity);
    states_.push_back(state);
    correction_m_.push_back(Vec3(0.0));
  } else {
    assert(id < entities_.size() && !entities_[id].live);
    entities_[id] = entity;
    states_[id] = state;
    correction_m_[id] = Vec3(0.0);
  }
  library_.add_user(model);
  ++live_entities_;
  return id;
}

void Animation::retire(EntityId id) {
  assert(is_live(id));
  Entity& e = entities_[id];
  // Static from now on: nothing moves it, pushes it, or boxes it again; the broad phase
  // drops it (and reports its pairs stopped) at the next update.
  e.live = false;
  e.is_static = true;
  e.inverse_mass_per_kg = 0;
  e.inverse_inertia_body = Mat3(0.0);
  states_[id].linear_velocity_mps = Vec3(0.0);
  states_[id].angular_velocity_radps = Vec3(0.0);
  correction_m_[id] = Vec3(0.0);
  broadphase_.remove(id);
  --live_entities_;
  library_.remove_user(e.model);
}

Aabb Animation::bounds_of(EntityId id) const { return box_of(entities_[id], states_[id]); }

Aabb Animation::box_of(const Entity& e, const EntityState& s) const {
  if (e.bounds == BoundsKind::dynamic) return tight_box(library_.hull_points(e.model), s.orientation, s.position_m);
  return fixed_cube(s.position_m, e.bounding_radius_m);
}

FrameStats Animation::step() {
  FrameStats stats;
  stats.frame = frames_done_;
  stats.entity_count = live_entities_;
  Stopwatch frame_clock;

  // The fixation point for this frame, on the run's clock (simulated time: reproducible),
  // after the source has seen the scene it watches, if any.
  hand_scene_targets();
  stats.gaze_time_s = sim_time_s();
  stats.gaze = gaze_.at(stats.gaze_time_s);
  last_gaze_ = stats.gaze;

  const auto timed = [&](Phase phase, auto&& run) {
    Stopwatch clock;
    run();
    stats.phase_ms[static_cast<int>(phase)] = clock.elapsed_ms();
  };
  meter_.begin_frame();
  occlusion_ready_ = false;
  timed(Phase::integrate, [&] { integrate_phase(); });
  timed(Phase::broadphase, [&] { broad_phase(stats); });
  if (evaluation_.enabled()) {
    Stopwatch clock;
    evaluation_phase(stats.gaze);
    stats.evaluation_ms = clock.elapsed_ms();
  }
  timed(Phase::narrowphase, [&] { narrow_phase(stats.gaze, stats); });
  timed(Phase::response, [&] { response_phase(stats); });
  timed(Phase::metrics, [&] { metrics_phase(stats.gaze, stats); });

  const TreeGrowthStats growth = narrowphase_.take_growth_stats();
  stats.tree_nodes_built = growth.nodes_built;
  stats.tree_nodes_evicted = growth.nodes_evicted;
  stats.tree_build_ms = growth.build_ms;
  stats.tree_nodes = narrowphase_.grown_nodes();

  ++frames_done_;
  stats.sim_time_s = sim_time_s();
  // The frame as it would be without the evaluation on the side.
  stats.frame_ms = frame_clock.elapsed_ms() - stats.evaluation_ms;
  return stats;
}

void Animation::hand_scene_targets() {
  const SceneTargetKind wanted = gaze_.wants_scene_targets();
  if (wanted == SceneTargetKind::none) return;
  scene_targets_.clear();
  if (wanted == SceneTargetKind::entities) {
    // Each live entity whose centre of mass is on the screen, weighted by its speed there:
    // the pixels its centre moves over one time step along its velocity, per second. Its
    // motion one step ahead behind the camera has no speed on the screen: weight 0.
    const double step_s = settings_.world.time_step_s;
    for (EntityId id = 0; id < entities_.size(); ++id) {
      if (!entities_[id].live) continue;
      const EntityState& s = states_[id];
      const ScreenPoint now = view_.project(s.position_m);
      if (!now.on_screen) continue;
      const ScreenPoint ahead = view_.project(s.position_m + s.linear_velocity_mps * step_s);
      const double speed_pxps =
          ahead.in_front && step_s > 0 ? std::hypot(ahead.x_px - now.x_px, ahead.y_px - now.y_px) / step_s : 0.0;
      scene_targets_.push_back({now.x_px, now.y_px, speed_pxps});
    }
  } else {
    // The last step's collisions treated as colliding, where the metrics placed them: from
    // their deepest spheres, or from the entities' centres when no sphere pair was tested.
    for (const std::uint32_t slot : narrowphase_.order()) {
      const Collision& c = narrowphase_.collision(slot);
      if (c.status == CollisionStatus::colliding && c.visible)
        scene_targets_.push_back({c.centre_x_px, c.centre_y_px, 1.0});
    }
  }
  gaze_.set_scene_targets(scene_targets_);
}

// Entities per task where a phase splits its loop over entities: enough that waking a
// thread costs little against the work.
constexpr std::size_t kEntitiesPerTask = 1024;

void Animation::integrate_phase() {
  // Each entity on its own: any split over threads gives the same bits.
  pool_->for_ranges(states_.size(), kEntitiesPerTask, [&](std::size_t begin, std::size_t end) {
    // Last frame's positional correction first: the response moved nothing while the frame's
    // detection and metrics were looking at the poses (docs/response.md, "Overlap").
    for (std::size_t i = begin; i < end; ++i) {
      states_[i].position_m += correction_m_[i];
      correction_m_[i] = Vec3(0.0);
    }
    integrate_motion(std::span(states_).subspan(begin, end - begin), std::span(entities_).subspan(begin, end - begin),
                     settings_.response.gravity_mps2, settings_.world.time_step_s);
  });
}

void Animation::broad_phase(FrameStats& stats) {
  // 004 section 3.2: every moving entity's box (computed on the threads), then the sweep
  // and prune, region by region (docs/broadphase.md, "Regions"), the regions on the threads.
  // set_box writes its own proxy's slot only, so the entities can be split over threads.
  pool_->for_ranges(entities_.size(), kEntitiesPerTask, [&](std::size_t begin, std::size_t end) {
    for (auto id = static_cast<EntityId>(begin); id < end; ++id)
      if (!entities_[id].is_static) broadphase_.set_box(id, bounds_of(id));
  });
  broadphase_.update(pool_.get());
  stats.pairs = static_cast<std::int64_t>(broadphase_.pairs().size());
  stats.pairs_started = static_cast<std::int64_t>(broadphase_.pairs().started().size());
  stats.pairs_stopped = static_cast<std::int64_t>(broadphase_.pairs().stopped().size());
}

void Animation::prepare_collisions() {
  narrowphase_.sync(broadphase_.pairs(), entities_, frames_done_);
  for (const std::unique_ptr<TreeEvaluation>& t : tree_evaluations_) t->narrowphase.sync(broadphase_.pairs(), entities_, frames_done_);
  // No collision refers to a retired entity now: its model may go, and idle branches of
  // on-demand trees with it (001), before this frame's hits refer to any node.
  for (const ModelId m : library_.release_unused()) {
    meter_.clear_model(m);
    narrowphase_.set_model(m, CollisionModel{}, nullptr);
    for (const std::unique_ptr<TreeEvaluation>& t : tree_evaluations_) t->narrowphase.set_model(m, CollisionModel{}, nullptr);
  }
  narrowphase_.evict_idle(frames_done_);
}

MeasureOptions Animation::measure_options() {
  MeasureOptions options;
  options.min_f = settings_.metrics.min_f;
  options.pool = pool_.get();
  if (settings_.metrics.visibility == VisibilityKind::occlusion) {
    if (!occlusion_ready_) {
      occlusion_.begin_frame(narrowphase_.models(), entities_, states_);
      occlusion_ready_ = true;
    }
    options.occlusion = &occlusion_;
    options.eye_m = view_.camera_position_m();
  }
  return options;
}

void Animation::evaluation_phase(const FrameGaze& gaze) {
  prepare_collisions();
  evaluation_.run(narrowphase_, states_, viewing(gaze), meter_, measure_options(), settings_.budget,
                  settings_.interrupt_policy, entities_.size(), frames_done_);
  // The same collisions and poses on the other trees. The meter's exact tests are shared:
  // they depend on the pair and the poses only.
  for (const std::unique_ptr<TreeEvaluation>& t : tree_evaluations_)
    t->evaluation.run(t->narrowphase, states_, viewing(gaze), meter_, measure_options(), settings_.budget,
                      settings_.interrupt_policy, entities_.size(), frames_done_);
}

void Animation::narrow_phase(const FrameGaze& gaze, FrameStats& stats) {
  // The oracle's truth first, outside the budget: it is a bound on scheduling, not a
  // scheduler a frame could afford (it runs the exact voxel test on every collision).
  if (scheduler_->uses_true_priority()) {
    if (!evaluation_.enabled()) prepare_collisions();
    narrowphase_.begin_frame(states_, &memory_);
    meter_.set_true_priorities(narrowphase_, states_, viewing(gaze), pool_.get());
  }
  // Under the budget (004 section 3.4). Its clock starts before the collisions are synced
  // and prioritised: a scheduler pays for its own bookkeeping (004 section 3.4.3 on sorting).
  Budget budget = Budget::from_settings(settings_.budget);
  if (!scheduler_->uses_true_priority()) {
    // With an evaluation the collisions were prepared before it, this frame: once is enough.
    if (!evaluation_.enabled()) prepare_collisions();
    narrowphase_.begin_frame(states_, &memory_);
  }
  const DescentMemory* refined_from = settings_.schedule.priorities == PriorityGap::refined ? &memory_ : nullptr;
  if (scheduler_->uses_priority()) perceive_at_frame_start(narrowphase_, states_, viewing(gaze), refined_from);
  FramePerception perception(states_, viewing(gaze), refined_from);
  scheduler_->run(narrowphase_, budget, ScheduleContext{frames_done_, &perception});
  stats.budget_exhausted = budget.was_exhausted();
  stats.budget_overshoot_us = std::numeric_limits<double>::quiet_NaN();
  if (budget.was_exhausted() && budget.is_wall())
    stats.budget_overshoot_us =
        std::chrono::duration<double, std::micro>(Budget::Clock::now() - budget.deadline()).count();
  narrowphase_.interrupt(settings_.interrupt_policy);
  if (remembers()) next_memory_.remember(narrowphase_, states_, &memory_);
}

void Animation::response_phase(FrameStats& stats) {
  // The response to the real list and the walls (004 section 3.5): new velocities now; the
  // overlap's positional correction waits for the next step, so the metrics and the picture
  // drawn after this frame show the poses the detection saw.
  stats.response = response_.apply(narrowphase_, entities_, states_, correction_m_, pool_.get());
}

void Animation::metrics_phase(const FrameGaze& gaze, FrameStats& stats) {
  // The same start-of-frame priorities for the schedulers that do not use them, outside the
  // budget's clock, for the records.
  if (!scheduler_->uses_priority())
    perceive_at_frame_start(narrowphase_, states_, viewing(gaze),
                            settings_.schedule.priorities == PriorityGap::refined ? &memory_ : nullptr);
  stats.collisions = static_cast<std::int64_t>(narrowphase_.size());
  stats.sphere_tests = narrowphase_.sphere_tests();
  perceive_at_frame_end(narrowphase_, states_, viewing(gaze));
  stats.metrics = meter_.measure(narrowphase_, states_, viewing(gaze), measure_options(), meter_.episodes(),
                                 entities_.size(), true);
  // Last: the records above placed the collisions from last frame's memory, as the
  // scheduler saw them.
  if (remembers()) std::swap(memory_, next_memory_);
}

}  // namespace fovea

namespace fovea {

void Animation::set_schedule(const ScheduleSettings& schedule) {
  if (schedule.kind == SchedulerKind::oracle && !settings_.ground_truth)
    throw std::invalid_argument("schedule.kind: oracle orders by the exact voxel test, which needs ground_truth: true");
  scheduler_ = make_scheduler(schedule, seed_);  // throws before anything changes
  settings_.schedule = schedule;
}

void Animation::set_budget(const BudgetSettings& budget) {
  if (budget.mode == BudgetMode::fraction)
    throw std::invalid_argument("budget.mode: fraction budgets are for evaluate.budgets only");
  if (!(budget.ms >= 0 && std::isfinite(budget.ms)))
    throw std::invalid_argument("budget.ms must be a finite number >= 0");
  if (budget.tests < 0) throw std::invalid_argument("budget.tests must be >= 0");
  settings_.budget = budget;
}

void Animation::set_interrupt_policy(InterruptPolicy policy) { settings_.interrupt_policy = policy; }

void Animation::set_perception_model(const PerceptionModelSettings& model) {
  perception_model_ = PerceptionModel(model);
  settings_.perception.model = model;
}

void Animation::set_camera(const CameraSettings& camera) {
  ViewSettings view = settings_.perception.view;
  view.camera = camera;
  view_ = View(view, box_);
  settings_.perception.view = view;
}

}  // namespace fovea
