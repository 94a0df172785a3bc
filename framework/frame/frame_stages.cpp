#include "frame/frame_stages.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

#include "core/stopwatch.hpp"
#include "frame/frame_viewings.hpp"
#include "prioritise/fast_priority.hpp"
#include "prioritise/perceived_collision.hpp"
#include "world/entity_bounds.hpp"
#include "world/motion.hpp"

namespace fovea {
namespace {

// Entities per task where a stage splits its loop over entities: enough that waking a
// thread costs little against the work.
constexpr std::size_t kEntitiesPerTask = 1024;

/// The camera, f and this frame's gaze: the eye's and the schedulers' viewings.
FrameViewings viewings(const FrameContext& f) {
  return {f.parts.view, f.parts.perception_model, f.parts.blind_model, f.stats.gaze};
}

/// The eye's fixation, the camera and f(e, g): what the meter and the records place
/// collisions with.
Viewing viewing(const FrameContext& f) { return viewings(f).eye(); }

/// What the run's scheduler places collisions with: its gaze input's (schedule.gaze).
Viewing scheduler_viewing(const FrameContext& f) { return viewings(f).scheduler(f.settings.schedule.gaze); }

/// Last frame's memory where refined priorities read it (schedule.priorities: refined).
const DescentMemory* refined_from(const FrameContext& f) {
  return f.settings.schedule.priorities == PriorityGap::refined ? &f.parts.memory : nullptr;
}

/// How the driver's priorities are worked out for its order (schedule.fast_priorities, aging).
PriorityOptions priority_options(const FrameContext& f) {
  return {f.settings.schedule.fast_priorities, refined_from(f), f.settings.schedule.aging ? &f.parts.memory : nullptr,
          f.parts.pool.get()};
}

/// What measuring needs besides the collisions: min_f, the threads, and the occluders when
/// the visibility test is on (the occluders stage built them earlier in the frame).
MeasureOptions measure_options(FrameContext& f) {
  MeasureOptions options;
  options.min_f = f.settings.metrics.min_f;
  options.pool = f.parts.pool.get();
  if (f.settings.metrics.visibility == VisibilityKind::occlusion) {
    options.occlusion = &f.parts.occlusion;
    options.eye_m = f.parts.view.camera_position_m();
  }
  return options;
}

/// What the gaze source watches (Gaze::wants_scene_targets), computed from the states, the
/// camera and the last step's collisions and handed to it; nothing when it wants none. The
/// source can be switched live (Gaze::switch_source), so this asks it every frame.
void hand_scene_targets(FrameContext& f) {
  Gaze& gaze = f.parts.gaze;
  const SceneTargetKind wanted = gaze.wants_scene_targets();
  if (wanted == SceneTargetKind::none) return;
  std::vector<GazeTarget>& targets = f.parts.scene_targets;
  targets.clear();
  if (wanted == SceneTargetKind::entities) {
    // Each live entity whose centre of mass is on the screen, weighted by its speed there:
    // the pixels its centre moves over one time step along its velocity, per second. Its
    // motion one step ahead behind the camera has no speed on the screen: weight 0.
    const double step_s = f.settings.world.time_step_s;
    const View& view = f.parts.view;
    for (EntityId id = 0; id < f.world.entities.size(); ++id) {
      if (!f.world.entities[id].live) continue;
      const EntityState& s = f.world.states[id];
      const ScreenPoint now = view.project(s.position_m);
      if (!now.on_screen) continue;
      const ScreenPoint ahead = view.project(s.position_m + s.linear_velocity_mps * step_s);
      const double speed_pxps =
          ahead.in_front && step_s > 0 ? std::hypot(ahead.x_px - now.x_px, ahead.y_px - now.y_px) / step_s : 0.0;
      targets.push_back({now.x_px, now.y_px, speed_pxps});
    }
  } else {
    // The last step's collisions treated as colliding, where the metrics placed them: from
    // their deepest spheres, or from the entities' centres when no sphere pair was tested.
    const NarrowPhase& narrowphase = f.parts.narrowphase;
    for (const std::uint32_t slot : narrowphase.order()) {
      const Collision& c = narrowphase.collision(slot);
      if (c.status == CollisionStatus::colliding && c.visible) targets.push_back({c.centre_x_px, c.centre_y_px, 1.0});
    }
  }
  gaze.set_scene_targets(targets);
}

// ---- The stages, in the order of Stage ----

void gaze_stage(FrameContext& f) {
  // On the run's clock (simulated time: reproducible), after the source has seen the scene
  // it watches, if any.
  hand_scene_targets(f);
  f.stats.gaze_time_s = static_cast<double>(f.frame) * f.settings.world.time_step_s;
  f.stats.gaze = f.parts.gaze.at(f.stats.gaze_time_s);
  f.parts.last_gaze = f.stats.gaze;
}

void integrate_stage(FrameContext& f) {
  std::vector<EntityState>& states = f.world.states;
  std::vector<Vec3>& correction_m = f.world.correction_m;
  // Each entity on its own: any split over threads gives the same bits.
  f.parts.pool->for_ranges(states.size(), kEntitiesPerTask, [&](std::size_t begin, std::size_t end) {
    // Last frame's positional correction first: the response moved nothing while the frame's
    // detection and metrics were looking at the poses (docs/response.md, "Overlap").
    for (std::size_t i = begin; i < end; ++i) {
      states[i].position_m += correction_m[i];
      correction_m[i] = Vec3(0.0);
    }
    integrate_motion(std::span(states).subspan(begin, end - begin),
                     std::span(f.world.entities).subspan(begin, end - begin), f.settings.response.gravity_mps2,
                     f.settings.world.time_step_s);
  });
}

void boxes_stage(FrameContext& f) {
  // 004 section 3.2: every moving entity's box. set_box writes its own proxy's slot only, so
  // the entities can be split over threads.
  const WorldData& world = f.world;
  RegionSweepAndPrune& broadphase = f.parts.broadphase;
  f.parts.pool->for_ranges(world.entities.size(), kEntitiesPerTask, [&](std::size_t begin, std::size_t end) {
    for (auto id = static_cast<EntityId>(begin); id < end; ++id)
      if (!world.entities[id].is_static) broadphase.set_box(id, entity_box(world, id));
  });
}

void sweep_and_prune_stage(FrameContext& f) {
  // Region by region (docs/broadphase.md, "Regions"), the regions on the threads.
  RegionSweepAndPrune& broadphase = f.parts.broadphase;
  broadphase.update(f.parts.pool.get());
  f.stats.pairs = static_cast<std::int64_t>(broadphase.pairs().size());
  f.stats.pairs_started = static_cast<std::int64_t>(broadphase.pairs().started().size());
  f.stats.pairs_stopped = static_cast<std::int64_t>(broadphase.pairs().stopped().size());
}

void sync_stage(FrameContext& f) {
  const Stopwatch clock;
  FrameParts& parts = f.parts;
  // The exact test's verdicts are kept per frame: this frame's collisions start here.
  parts.meter.begin_frame();
  const PairSet& pairs = parts.broadphase.pairs();
  parts.narrowphase.sync(pairs, f.world.entities, f.frame);
  for (const std::unique_ptr<TreeEvaluation>& t : parts.tree_evaluations)
    t->narrowphase.sync(pairs, f.world.entities, f.frame);
  // No collision refers to a retired entity now: its model may go, and idle branches of
  // on-demand trees with it (001), before this frame's hits refer to any node.
  for (const ModelId m : f.world.library.release_unused()) {
    parts.meter.clear_model(m);
    parts.narrowphase.set_model(m, CollisionModel{}, nullptr);
    for (const std::unique_ptr<TreeEvaluation>& t : parts.tree_evaluations)
      t->narrowphase.set_model(m, CollisionModel{}, nullptr);
  }
  parts.narrowphase.evict_idle(f.frame);
  f.sync_ms = clock.elapsed_ms();
}

void occluders_stage(FrameContext& f) {
  f.parts.occlusion.begin_frame(f.parts.narrowphase.models(), f.world.entities, f.world.states);
}

void evaluate_stage(FrameContext& f) {
  FrameParts& parts = f.parts;
  const std::size_t entity_count = f.world.entities.size();
  parts.evaluation.run(parts.narrowphase, f.world.states, viewings(f), parts.meter, measure_options(f),
                       f.settings.budget, f.settings.interrupt_policy, entity_count, f.frame, f.sync_ms);
  // The same collisions and poses on the other trees. The meter's exact tests are shared:
  // they depend on the pair and the poses only.
  for (const std::unique_ptr<TreeEvaluation>& t : parts.tree_evaluations)
    t->evaluation.run(t->narrowphase, f.world.states, viewings(f), parts.meter, measure_options(f), f.settings.budget,
                      f.settings.interrupt_policy, entity_count, f.frame, f.sync_ms);
}

void restart_descents_stage(FrameContext& f) {
  f.parts.narrowphase.begin_frame(f.world.states, &f.parts.memory, f.parts.pool.get());
}

void true_priorities_stage(FrameContext& f) {
  // Outside the budget: the oracle is a bound on scheduling, not a scheduler a frame could
  // afford (it runs the exact voxel test on every collision). It knows the geometry, and the
  // gaze only as its input gives it.
  f.parts.meter.set_true_priorities(f.parts.narrowphase, f.world.states, scheduler_viewing(f), f.parts.pool.get());
}

void start_budget_stage(FrameContext& f) {
  // 004 section 3.4. The clock starts before the collisions are synced and prioritised
  // where the plan puts those after it: a scheduler pays for its own bookkeeping (004
  // section 3.4.3 on sorting).
  f.budget = Budget::from_settings(f.settings.budget);
}

// Both prioritise rows: for the scheduler that reads the priorities, inside its budget, with
// its gaze; and for the records, outside it, with the eye's, where the scheduler did not
// place them (or placed them cheaply, or from another fixation).
void prioritise_stage(FrameContext& f) {
  perceive_at_frame_start(f.parts.narrowphase, f.world.states, viewing(f), refined_from(f), f.parts.pool.get());
}

void prioritise_for_order_stage(FrameContext& f) {
  prioritise_at_frame_start(f.parts.narrowphase, f.world.states, scheduler_viewing(f), priority_options(f));
}

void schedule_stage(FrameContext& f) {
  OrderPerception perception(f.world.states, scheduler_viewing(f), priority_options(f));
  f.parts.scheduler->run(f.parts.narrowphase, f.budget, ScheduleContext{f.frame, &perception});
  f.stats.budget_exhausted = f.budget.was_exhausted();
  f.stats.budget_overshoot_us = std::numeric_limits<double>::quiet_NaN();
  if (f.budget.was_exhausted() && f.budget.is_wall())
    f.stats.budget_overshoot_us =
        std::chrono::duration<double, std::micro>(Budget::Clock::now() - f.budget.deadline()).count();
}

void interrupt_stage(FrameContext& f) { f.parts.narrowphase.interrupt(f.settings.interrupt_policy); }

void remember_stage(FrameContext& f) {
  f.parts.next_memory.remember(f.parts.narrowphase, f.world.states, &f.parts.memory, f.settings.schedule.aging,
                               f.parts.pool.get());
}

void response_stage(FrameContext& f) {
  // The response to the real list and the walls (004 section 3.5): new velocities now; the
  // overlap's positional correction waits for the next step, so the metrics and the picture
  // drawn after this frame show the poses the detection saw.
  f.stats.response =
      f.parts.response.apply(f.parts.narrowphase, f.world.entities, f.world.states, f.world.correction_m, f.parts.pool.get());
}

void place_at_end_stage(FrameContext& f) {
  f.stats.collisions = static_cast<std::int64_t>(f.parts.narrowphase.size());
  // After the response: the tests it did finishing descents for its contacts count too.
  f.stats.sphere_tests = f.parts.narrowphase.sphere_tests();
  perceive_at_frame_end(f.parts.narrowphase, f.world.states, viewing(f), f.parts.pool.get());
}

void measure_stage(FrameContext& f) {
  InaccuracyMeter& meter = f.parts.meter;
  f.stats.metrics = meter.measure(f.parts.narrowphase, f.world.states, viewing(f), measure_options(f), meter.episodes(),
                                  f.world.entities.size(), true);
}

void keep_memory_stage(FrameContext& f) {
  // Last: the records above placed the collisions from last frame's memory, as the
  // scheduler saw them.
  std::swap(f.parts.memory, f.parts.next_memory);
}

void tree_growth_stage(FrameContext& f) {
  NarrowPhase& narrowphase = f.parts.narrowphase;
  const TreeGrowthStats growth = narrowphase.take_growth_stats();
  f.stats.tree_nodes_built = growth.nodes_built;
  f.stats.tree_nodes_evicted = growth.nodes_evicted;
  f.stats.tree_build_ms = growth.build_ms;
  f.stats.tree_nodes = narrowphase.grown_nodes();
}

using D = FrameDatum;
constexpr FrameData kNone = 0;
constexpr FrameData only(FrameDatum d) { return static_cast<FrameData>(d); }

// The stage table: one row a stage, in Stage order (checked below).
constexpr std::array<StageInfo, kStageCount> kStages = {{
    {Stage::gaze, "gaze", StageClock::frame, false, D::states | D::entities | D::collisions, only(D::gaze),
     "the fixation point on the run's clock, after the source is handed the scene it watches "
     "(gaze/gaze.cpp Gaze::at)",
     gaze_stage},
    {Stage::integrate, "integrate", StageClock::integrate, true, D::states | D::entities | D::corrections,
     D::states | D::corrections, "last frame's positional correction, then velocities and poses over one time step "
     "(world/motion.cpp integrate_motion)",
     integrate_stage},
    {Stage::boxes, "boxes", StageClock::broadphase, true, D::states | D::entities | D::models, only(D::boxes),
     "each moving entity's box: a fixed cube or its hull's tight box (world/entity_bounds.cpp)", boxes_stage},
    {Stage::sweep_and_prune, "sweep_and_prune", StageClock::broadphase, true, only(D::boxes),
     D::pairs | D::stats, "sweep and prune, region by region: the overlapping pairs "
     "(broadphase/region_sweep_and_prune.cpp)",
     sweep_and_prune_stage},
    {Stage::sync, "sync", StageClock::narrowphase, false, D::pairs | D::entities, D::collisions | D::models,
     "one collision per pair; unused models released, idle tree branches evicted "
     "(narrowphase/collision_list.cpp sync, collision_model_table.cpp evict_idle)",
     sync_stage},
    {Stage::occluders, "occluders", StageClock::metrics, false, D::models | D::entities | D::states,
     only(D::occluders), "the leaf spheres that can hide a gap from the eye (metrics/visibility.cpp)",
     occluders_stage},
    {Stage::evaluate, "evaluate", StageClock::evaluation, true,
     D::collisions | D::states | D::gaze | D::occluders, D::evaluation | D::models,
     "each listed scheduler runs the narrow phase on the side and is measured, outside the frame's time "
     "(frame/counterfactual.cpp)",
     evaluate_stage},
    {Stage::restart_descents, "restart_descents", StageClock::narrowphase, true, D::states | D::memory,
     only(D::collisions), "every collision back at its roots, or at last frame's pair with coherence "
     "(narrowphase/narrow_phase.cpp begin_frame)",
     restart_descents_stage},
    {Stage::true_priorities, "true_priorities", StageClock::narrowphase, true,
     D::collisions | D::states | D::gaze | D::models, only(D::true_priorities),
     "the exact voxel test's verdict on every collision, outside the budget (metrics/inaccuracy.cpp "
     "set_true_priorities)",
     true_priorities_stage},
    {Stage::start_budget, "start_budget", StageClock::narrowphase, false, kNone, only(D::budget),
     "the budget of sphere tests or milliseconds starts (core/budget.cpp)", start_budget_stage},
    {Stage::prioritise, "prioritise", StageClock::narrowphase, true,
     D::collisions | D::states | D::gaze | D::memory, only(D::priorities),
     "each collision placed on screen from the entities' centres or its remembered pair: f(e, g) its priority, "
     "aged by its episode with schedule.aging, placed cheaply for the order alone with schedule.fast_priorities "
     "(prioritise/fast_priority.cpp prioritise_for_order)",
     prioritise_for_order_stage},
    {Stage::schedule, "schedule", StageClock::narrowphase, false,
     D::priorities | D::true_priorities | D::budget | D::states | D::gaze | D::memory,
     D::collisions | D::budget | D::models | D::stats,
     "staircase steps in the scheduler's order until all are resolved or the budget is spent "
     "(schedule/: the kind's file, from its row of schedule/scheduler_kinds.hpp)",
     schedule_stage},
    {Stage::interrupt, "interrupt", StageClock::narrowphase, false, only(D::collisions), only(D::collisions),
     "what is left becomes colliding (repulse) or not (interpenetrate) (narrowphase/narrow_phase.cpp interrupt)",
     interrupt_stage},
    {Stage::remember, "remember", StageClock::narrowphase, true, D::collisions | D::states | D::memory,
     only(D::memory), "each collision's deepest pair, for coherence and refined priorities next frame "
     "(narrowphase/descent_memory.cpp)",
     remember_stage},
    {Stage::response, "response", StageClock::response, true, D::collisions | D::entities | D::states,
     D::states | D::corrections | D::contacts | D::collisions | D::models | D::stats,
     "contacts of the real collisions and the walls, one impulse solve, new velocities "
     "(response/response.cpp)",
     response_stage},
    {Stage::prioritise_for_records, "prioritise_for_records", StageClock::metrics, true,
     D::collisions | D::states | D::gaze | D::memory, only(D::priorities),
     "the start-of-frame placements a scheduler that does not read them (or orders by fast priorities, or sees "
     "another fixation than the eye's) leaves unset, for the records "
     "(prioritise/perceived_collision.cpp perceive_at_frame_start)",
     prioritise_stage},
    {Stage::place_at_end, "place_at_end", StageClock::metrics, true, D::collisions | D::states | D::gaze,
     D::priorities | D::stats, "the ones treated as colliding placed again from their deepest spheres "
     "(prioritise/perceived_collision.cpp perceive_at_frame_end)",
     place_at_end_stage},
    {Stage::measure, "measure", StageClock::metrics, true,
     D::collisions | D::priorities | D::states | D::gaze | D::occluders, D::metrics | D::stats,
     "outcomes counted, nabla and P, the exact voxel test's truth, episodes (metrics/inaccuracy.cpp measure)",
     measure_stage},
    {Stage::keep_memory, "keep_memory", StageClock::metrics, false, only(D::memory), only(D::memory),
     "this frame's memory becomes last frame's, once the records have read it", keep_memory_stage},
    {Stage::tree_growth, "tree_growth", StageClock::frame, false, only(D::models), only(D::stats),
     "nodes on-demand trees built and evicted this frame (narrowphase/on_demand_tree.cpp)", tree_growth_stage},
}};

constexpr bool in_stage_order() {
  for (int i = 0; i < kStageCount; ++i)
    if (static_cast<int>(kStages[static_cast<std::size_t>(i)].stage) != i) return false;
  return true;
}
static_assert(in_stage_order(), "kStages lists every stage once, in Stage order");

constexpr std::array<std::string_view, kFrameDatumCount> kDatumNames = {
    "gaze",       "states",     "corrections", "entities",  "models",   "boxes",
    "pairs",      "collisions", "priorities",  "true_priorities", "budget", "memory",
    "occluders",  "evaluation", "contacts",    "metrics",   "stats"};

std::string_view clock_column(StageClock clock) {
  switch (clock) {
    case StageClock::frame: return "frame_ms";
    case StageClock::integrate: return "integrate_ms";
    case StageClock::broadphase: return "broadphase_ms";
    case StageClock::narrowphase: return "narrowphase_ms";
    case StageClock::response: return "response_ms";
    case StageClock::metrics: return "metrics_ms";
    case StageClock::evaluation: return "evaluation_ms";
  }
  return "?";
}

}  // namespace

std::span<const StageInfo> stage_table() { return kStages; }

const StageInfo& stage_info(Stage stage) { return kStages[static_cast<std::size_t>(stage)]; }

std::string frame_data_names(FrameData data) {
  std::string names;
  for (int i = 0; i < kFrameDatumCount; ++i) {
    if ((data & (1u << i)) == 0) continue;
    if (!names.empty()) names += ", ";
    names += kDatumNames[static_cast<std::size_t>(i)];
  }
  return names.empty() ? "-" : names;
}

FramePlanInputs frame_plan_inputs(const AnimationSettings& settings) {
  const SchedulerKindInfo& scheduler = scheduler_kind_info(settings.schedule.kind);
  FramePlanInputs inputs;
  inputs.evaluation = settings.evaluate.enabled();
  inputs.uses_priority = scheduler.uses_priority;
  inputs.uses_true_priority = scheduler.uses_true_priority;
  // Without a reader, remembering would cost a gap bound or two per collision every frame.
  inputs.remembers = settings.narrowphase.coherence || settings.schedule.priorities == PriorityGap::refined ||
                     settings.schedule.aging;
  inputs.fast_priorities = settings.schedule.fast_priorities;
  inputs.scheduler_gaze_differs = scheduler_sees_other_than_eye(settings.schedule.gaze, simulates_tracker(settings.gaze));
  inputs.occlusion = settings.metrics.visibility == VisibilityKind::occlusion;
  return inputs;
}

std::vector<Stage> plan_frame(const FramePlanInputs& in) {
  std::vector<Stage> plan = {Stage::gaze, Stage::integrate, Stage::boxes, Stage::sweep_and_prune};
  // The evaluation runs on this frame's collisions, before the driver's descent; its arms
  // leave them in no particular state, which restart_descents undoes.
  if (in.evaluation) {
    plan.push_back(Stage::sync);
    if (in.occlusion) plan.push_back(Stage::occluders);
    plan.push_back(Stage::evaluate);
  }
  if (in.uses_true_priority) {
    if (!in.evaluation) plan.push_back(Stage::sync);
    plan.insert(plan.end(), {Stage::restart_descents, Stage::true_priorities, Stage::start_budget});
  } else {
    // Under the budget: syncing (when no evaluation did it) and restarting the descents.
    plan.push_back(Stage::start_budget);
    if (!in.evaluation) plan.push_back(Stage::sync);
    plan.push_back(Stage::restart_descents);
  }
  if (in.uses_priority) plan.push_back(Stage::prioritise);
  plan.insert(plan.end(), {Stage::schedule, Stage::interrupt});
  if (in.remembers) plan.push_back(Stage::remember);
  plan.push_back(Stage::response);
  if (!in.uses_priority || in.fast_priorities || in.scheduler_gaze_differs) plan.push_back(Stage::prioritise_for_records);
  if (in.occlusion && !in.evaluation) plan.push_back(Stage::occluders);
  plan.insert(plan.end(), {Stage::place_at_end, Stage::measure});
  if (in.remembers) plan.push_back(Stage::keep_memory);
  plan.push_back(Stage::tree_growth);
  return plan;
}

std::string explain_frame(std::span<const Stage> plan) {
  std::ostringstream out;
  std::size_t n = 0;
  for (const Stage stage : plan) {
    const StageInfo& info = stage_info(stage);
    out << ++n << ". " << info.name << "  [" << clock_column(info.clock)
        << (info.splits_over_pool ? ", on the threads" : "") << "]\n"
        << "   reads " << frame_data_names(info.reads) << "; writes " << frame_data_names(info.writes) << "\n"
        << "   " << info.what << "\n";
  }
  return out.str();
}

}  // namespace fovea
