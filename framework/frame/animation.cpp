#include "frame/animation.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>

#include "core/containers.hpp"
#include "core/format.hpp"
#include "core/rng.hpp"
#include "core/stopwatch.hpp"
#include "perception/perceived_gap.hpp"
#include "spheretree/octree_builder.hpp"
#include "spheretree/sph_file.hpp"
#include "spheretree/vox_file.hpp"
#include "world/entity_bounds.hpp"
#include "world/mass_properties.hpp"
#include "world/model_generators.hpp"
#include "world/motion.hpp"

namespace fovea {

std::string_view phase_name(Phase phase) {
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

namespace {

/// Seed of variant `variant` of group `group`'s model: its own stream, so groups and
/// variants get unrelated shapes that do not change when other groups are added.
std::uint64_t model_seed(std::uint64_t seed, std::uint32_t group, int variant) {
  Rng rng(seed, rng_stream(RngStream::model_shapes, (std::uint64_t{group} << 16) | static_cast<std::uint64_t>(variant)));
  return rng.next_u64();
}

}  // namespace

Animation::Animation(const AnimationSettings& animation_settings, std::uint64_t seed,
                     const GazeEnvironment& environment)
    : settings_(animation_settings),
      box_{Vec3(0.0), animation_settings.world.box_size_m},
      scheduler_(make_scheduler(animation_settings.schedule)),
      view_(animation_settings.perception.view, box_),
      perception_model_(animation_settings.perception.model),
      gaze_(animation_settings.gaze, animation_settings.perception.view.screen, seed, environment),
      response_(animation_settings.response, box_, animation_settings.world.time_step_s) {
  const WorldSettings& settings = animation_settings.world;
  last_gaze_.x_px = 0.5 * animation_settings.perception.view.screen.width_px;
  last_gaze_.y_px = 0.5 * animation_settings.perception.view.screen.height_px;
  last_gaze_.source = "centre";
  const std::vector<std::vector<Entity>> prototypes = build_models(settings, seed);
  double max_radius_m = 0;
  for (const auto& group : prototypes)
    for (const Entity& e : group) max_radius_m = std::max(max_radius_m, e.bounding_radius_m);

  // Placement, group by group, all groups sharing one occupancy so none overlap. Cells at
  // least a diameter wide, and few enough that the box spans under 2^20 of them.
  const double box_extent_m = std::max({box_.size_m().x, box_.size_m().y, box_.size_m().z});
  SphereOccupancy occupied(std::max({2 * max_radius_m, box_extent_m / SphereOccupancy::kCellLimit, 1e-12}));
  Rng placement_rng(seed, rng_stream(RngStream::placement));
  for (std::uint32_t g = 0; g < settings.entities.size(); ++g) {
    const EntityGroupSettings& group = settings.entities[g];
    if (group.count == 0) continue;
    std::vector<double> radii(static_cast<std::size_t>(group.count));
    for (int i = 0; i < group.count; ++i)
      radii[static_cast<std::size_t>(i)] = prototypes[g][static_cast<std::size_t>(i) % prototypes[g].size()].bounding_radius_m;
    std::vector<Vec3> centres;
    if (group.placement == Placement::floor) {
      // Scenery: one entity, unrotated, its grid centred on the floor. Other groups are not
      // kept off it (its bounding sphere would fill the box).
      const Entity& e = prototypes[g][0];
      const Vec3 extent = models_[e.model].extent_m();
      if (group.count != 1)
        throw PlacementError(g, "entity group '" + group.name + "': placement floor places one entity, not " +
                                    std::to_string(group.count));
      if (extent.x > box_.size_m().x || extent.y > box_.size_m().y || extent.z > box_.size_m().z)
        throw PlacementError(g, "entity group '" + group.name + "': its model (" + format_significant(extent.x) + " x " +
                                    format_significant(extent.y) + " x " + format_significant(extent.z) +
                                    " m) does not fit in the world box");
      const Vec3 corner(box_.centre_m().x - 0.5 * extent.x, box_.min_m.y, box_.centre_m().z - 0.5 * extent.z);
      centres.push_back(corner + e.centre_of_mass_model_m);
    } else if (group.placement == Placement::demo) {
      // The demo places them before the first frame. Until then they wait on a lattice
      // through the box, one cell each, so the broad phase's first sort does not see them
      // all on one spot (n^2 / 2 pairs for nothing).
      const Vec3 size = box_.size_m();
      const double cell_m = std::cbrt(size.x * size.y * size.z / group.count);
      const IVec3 cells = glm::max(IVec3(glm::ceil(size / cell_m)), IVec3(1));
      for (int i = 0; i < group.count; ++i) {
        const IVec3 c(i % cells.x, (i / cells.x) % cells.y, i / (cells.x * cells.y));
        centres.push_back(box_.min_m + (Vec3(c) + 0.5) * (size / Vec3(cells)));
      }
    } else {
      centres = place_group(box_, radii, group.placement, g, group.name, occupied, placement_rng);
    }

    Rng motion_rng(seed, rng_stream(RngStream::initial_motion, g));
    for (int i = 0; i < group.count; ++i) {
      entities_.push_back(prototypes[g][static_cast<std::size_t>(i) % prototypes[g].size()]);
      ++model_users_[entities_.back().model];
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

  // The broad phase starts from the initial poses; static entities are boxed once.
  for (EntityId id = 0; id < entities_.size(); ++id) {
    [[maybe_unused]] const ProxyId proxy = broadphase_.add(bounds_of(id), entities_[id].is_static);
    assert(proxy == id);
  }
  broadphase_.update();

  correction_m_.assign(entities_.size(), Vec3(0.0));
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
  return install_model(std::move(model), group, lifetime, false);
}

EntityId Animation::spawn(ModelId model, const EntityState& state) {
  assert(has_model(model));
  Entity entity = model_prototypes_[model];
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
  ++model_users_[model];
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
  if (--model_users_[e.model] == 0 && model_lifetime_[e.model] == ModelLifetime::released_when_unused)
    models_to_check_.push_back(e.model);
}

void Animation::release_unused_models() {
  for (const ModelId m : models_to_check_) {
    if (!model_in_use_[m] || model_users_[m] != 0) continue;  // listed twice, or spawned from again
    models_[m] = VoxelModel{};
    trees_[m] = SphereTree{};
    hull_points_[m] = {};
    if (settings_.ground_truth) exact_shapes_[m].reset();
    narrowphase_.set_model(m, CollisionModel{}, nullptr);
    model_in_use_[m] = 0;
    free_models_.push_back(m);
  }
  models_to_check_.clear();
}

ModelId Animation::install_model(VoxelModel model, std::uint32_t g, ModelLifetime lifetime, bool use_file_tree) {
  const EntityGroupSettings& group = settings_.world.entities[g];
  if (model.occupied_count() == 0) throw ModelError(g, "model.file", "the model has no occupied voxel");
  const MassProperties props = compute_mass_properties(model, group.material.density_kgpm3);
  // The config's ranges keep these finite; this guards the arithmetic all the same.
  const Mat3 inverse = glm::inverse(props.inertia_kgm2);
  bool finite = std::isfinite(props.mass_kg) && props.mass_kg > 0 && std::isfinite(props.bounding_radius_m);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) finite = finite && std::isfinite(props.inertia_kgm2[i][j]) && std::isfinite(inverse[i][j]);
  if (!finite)
    throw ModelError(g, "model.size_m", "mass and inertia are not representable in double precision at this size and density");

  ModelId id = 0;
  if (!free_models_.empty()) {
    id = free_models_.back();
    free_models_.pop_back();
  } else {
    id = static_cast<ModelId>(models_.size());
    models_.emplace_back();
    trees_.emplace_back();
    hull_points_.emplace_back();
    exact_shapes_.emplace_back();
    model_prototypes_.emplace_back();
    model_users_.push_back(0);
    model_lifetime_.push_back(lifetime);
    model_generation_.push_back(0);
    model_in_use_.push_back(0);
  }
  model_lifetime_[id] = lifetime;
  ++model_generation_[id];
  model_in_use_[id] = 1;
  model_users_[id] = 0;

  Entity& e = model_prototypes_[id];
  e = Entity{};
  e.model = id;
  e.group = g;
  e.is_static = group.is_static;
  e.bounds = resolve_bounds(group.bounds, model);
  hull_points_[id] = e.bounds == BoundsKind::dynamic ? hull_points(model, props.centre_of_mass_m) : std::vector<Vec3>{};
  e.material = group.material;
  e.mass_kg = props.mass_kg;
  e.centre_of_mass_model_m = props.centre_of_mass_m;
  e.inertia_body_kgm2 = props.inertia_kgm2;
  e.bounding_radius_m = props.bounding_radius_m;
  if (!group.is_static) {
    e.inverse_mass_per_kg = 1.0 / props.mass_kg;
    e.inverse_inertia_body = inverse;
  }

  // The tree: the group's file, built whole, or on demand (001). Fragments, released when
  // unused, always grow on demand: they need a tree the frame they appear.
  Stopwatch tree_clock;
  const bool from_file = use_file_tree && !group.sphere_tree.file.empty();
  if (!from_file && (group.sphere_tree.on_demand || lifetime == ModelLifetime::released_when_unused)) {
    CollisionModel root;
    auto grower = std::make_unique<TreeGrower>(
        model, OctreeBuildOptions{group.sphere_tree.levels, group.sphere_tree.remove_hidden}, props.centre_of_mass_m,
        props.bounding_radius_m, root);
    grower->set_frame(frames_done_);
    grower->set_evict_after_frames(group.sphere_tree.evict_after_frames);
    trees_[id] = SphereTree{};
    narrowphase_.set_model(id, std::move(root), std::move(grower));
  } else {
    trees_[id] = use_file_tree ? make_tree(group, g, model)
                               : build_octree_sphere_tree(model, {group.sphere_tree.levels, group.sphere_tree.remove_hidden});
    narrowphase_.set_model(id, make_collision_model(trees_[id], model, props.centre_of_mass_m, props.bounding_radius_m),
                           nullptr);
  }
  if (frames_done_ == 0) sphere_tree_build_ms_ += tree_clock.elapsed_ms();
  if (settings_.ground_truth) exact_shapes_[id].emplace(model, props.centre_of_mass_m);
  models_[id] = std::move(model);
  return id;
}

Aabb Animation::bounds_of(EntityId id) const { return box_of(entities_[id], states_[id]); }

Aabb Animation::box_of(const Entity& e, const EntityState& s) const {
  if (e.bounds == BoundsKind::dynamic) return tight_box(hull_points_[e.model], s.orientation, s.position_m);
  return fixed_cube(s.position_m, e.bounding_radius_m);
}

std::vector<std::vector<Entity>> Animation::build_models(const WorldSettings& settings, std::uint64_t seed) {
  // One model per (group, variant), shared by the group's entities, with its sphere tree.
  // Only rocks are seeded, so other shapes build one model whatever `variants` says. The
  // voxel budget is checked before anything is built.
  std::vector<int> variants(settings.entities.size(), 0);
  std::int64_t total_cells = 0;
  for (std::uint32_t g = 0; g < settings.entities.size(); ++g) {
    const EntityGroupSettings& group = settings.entities[g];
    if (group.count == 0) continue;
    variants[g] = group.model.shape == Shape::rock ? std::min(group.model.variants, group.count) : 1;
    if (group.model.shape == Shape::file) continue;  // bounded by the .vox reader, counted when read
    const IVec3 dims = model_dims(group.model.shape, group.model.resolution_voxels, group.model.aspect);
    const std::int64_t cells = std::int64_t{dims.x} * dims.y * dims.z;
    total_cells += cells * variants[g];
    if (total_cells > kMaxModelVoxelCells)
      throw ModelError(g, variants[g] > 1 ? "model.variants" : "model.resolution_voxels",
                       "the models need " + std::to_string(total_cells) + " voxel cells up to this group (" +
                           std::to_string(cells) + " per model x " + std::to_string(variants[g]) +
                           (variants[g] == 1 ? " variant" : " variants") + " here), more than the " +
                           std::to_string(kMaxModelVoxelCells) + " allowed; lower resolution_voxels or variants");
  }

  std::vector<std::vector<Entity>> prototypes(settings.entities.size());
  for (std::uint32_t g = 0; g < settings.entities.size(); ++g) {
    const EntityGroupSettings& group = settings.entities[g];
    for (int v = 0; v < variants[g]; ++v) {
      VoxelModel model = group.model.shape == Shape::file ? read_file_model(group, g) : make_model(group.model, model_seed(seed, g, v));
      if (group.model.shape == Shape::file) {
        const IVec3 d = model.dims();
        total_cells += std::int64_t{d.x} * d.y * d.z;
        if (total_cells > kMaxModelVoxelCells)
          throw ModelError(g, "model.file", "with this file's model the world's models need more than " +
                                                std::to_string(kMaxModelVoxelCells) + " voxel cells");
      }
      if (!group.sphere_tree.file.empty() && variants[g] > 1)
        throw ModelError(g, "sphere_tree.file", "one tree file cannot fit " + std::to_string(variants[g]) +
                                                    " different rock shapes; set model.variants: 1");
      const ModelId id = install_model(std::move(model), g, ModelLifetime::kept, true);
      prototypes[g].push_back(model_prototypes_[id]);
    }
  }
  return prototypes;
}

VoxelModel Animation::read_file_model(const EntityGroupSettings& group, std::uint32_t g) {
  std::vector<VoxelModel> models;
  try {
    models = read_vox_file(group.model.file);
  } catch (const std::exception& e) {
    throw ModelError(g, "model.file", e.what());
  }
  const auto index = static_cast<std::size_t>(group.model.file_model);
  if (index >= models.size())
    throw ModelError(g, "model.file_model", group.model.file + " holds " + std::to_string(models.size()) +
                                                (models.size() == 1 ? " model" : " models") + ", numbered from 0");
  VoxelModel model = std::move(models[index]);
  // A file has no unit: its longest side measures size_m, as for built-in shapes.
  const IVec3 d = model.dims();
  model.set_voxel_size_m(group.model.size_m / std::max({d.x, d.y, d.z}));
  return model;
}

SphereTree Animation::make_tree(const EntityGroupSettings& group, std::uint32_t g, const VoxelModel& model) {
  if (group.sphere_tree.file.empty())
    return build_octree_sphere_tree(model, {group.sphere_tree.levels, group.sphere_tree.remove_hidden});
  SphereTree tree;
  try {
    tree = read_sph_file(group.sphere_tree.file, model_bounds_centre_m(model));
  } catch (const std::exception& e) {
    throw ModelError(g, "sphere_tree.file", e.what());
  }
  const std::string problem = tree.check_layout();
  if (!problem.empty()) throw ModelError(g, "sphere_tree.file", group.sphere_tree.file + ": " + problem);
  // A tree made for another model, or at another size, would silently miss collisions: its
  // root must at least hold every occupied voxel (a relative 1e-6 for the file's rounding).
  const double farthest_m = model.farthest_voxel_corner_m(tree.centre_m[0]);
  if (farthest_m > tree.radius_m[0] * (1 + 1e-6))
    throw ModelError(g, "sphere_tree.file",
                     group.sphere_tree.file + ": its root sphere (radius " + format_significant(tree.radius_m[0]) +
                         " m) does not hold the model, which reaches " + format_significant(farthest_m) +
                         " m from its centre; was the tree made for this model at this model.size_m?");
  return tree;
}

FrameStats Animation::step() {
  FrameStats stats;
  stats.frame = frames_done_;
  stats.entity_count = live_entities_;
  Stopwatch frame_clock;
  Stopwatch phase_clock;

  // The fixation point for this frame, on the run's clock (simulated time: reproducible).
  stats.gaze_time_s = sim_time_s();
  stats.gaze = gaze_.at(stats.gaze_time_s);
  last_gaze_ = stats.gaze;
  const FrameGaze& gaze = stats.gaze;

  // Last frame's positional correction first: the response moved nothing while the frame's
  // detection and metrics were looking at the poses (docs/response.md, "Overlap").
  for (std::size_t i = 0; i < states_.size(); ++i) {
    states_[i].position_m += correction_m_[i];
    correction_m_[i] = Vec3(0.0);
  }
  integrate_motion(states_, entities_, settings_.response.gravity_mps2, settings_.world.time_step_s);
  stats.phase_ms[static_cast<int>(Phase::integrate)] = phase_clock.elapsed_ms();

  phase_clock.restart();
  for (EntityId id = 0; id < entities_.size(); ++id)
    if (!entities_[id].is_static) broadphase_.set_box(id, bounds_of(id));
  broadphase_.update();
  stats.pairs = static_cast<std::int64_t>(broadphase_.pairs().size());
  stats.pairs_started = static_cast<std::int64_t>(broadphase_.pairs().started().size());
  stats.pairs_stopped = static_cast<std::int64_t>(broadphase_.pairs().stopped().size());
  stats.phase_ms[static_cast<int>(Phase::broadphase)] = phase_clock.elapsed_ms();

  // The narrow phase, under the budget. Its clock starts before the collisions are synced
  // and prioritised: a scheduler pays for its own bookkeeping (004 section 3.4.3 on sorting).
  phase_clock.restart();
  Budget budget = Budget::from_settings(settings_.budget);
  narrowphase_.sync(broadphase_.pairs(), entities_, frames_done_);
  // No collision refers to a retired entity now: its model may go, and idle branches of
  // on-demand trees with it (001), before this frame's hits refer to any node.
  release_unused_models();
  narrowphase_.evict_idle(frames_done_);
  narrowphase_.begin_frame(states_);
  if (scheduler_->uses_priority())
    for (const std::uint32_t slot : narrowphase_.order()) perceive(slot, gaze, true);
  scheduler_->run(narrowphase_, budget);
  stats.budget_exhausted = budget.was_exhausted();
  stats.budget_overshoot_us = std::numeric_limits<double>::quiet_NaN();
  if (budget.was_exhausted() && budget.is_wall())
    stats.budget_overshoot_us =
        std::chrono::duration<double, std::micro>(Budget::Clock::now() - budget.deadline()).count();
  narrowphase_.interrupt(settings_.interrupt_policy);
  stats.phase_ms[static_cast<int>(Phase::narrowphase)] = phase_clock.elapsed_ms();

  // The response to the real list and the walls: new velocities now; the overlap's
  // positional correction waits for the next step, so the metrics below and the picture
  // drawn after this frame show the poses the detection saw.
  phase_clock.restart();
  stats.response = response_.apply(narrowphase_, entities_, states_, correction_m_);
  stats.phase_ms[static_cast<int>(Phase::response)] = phase_clock.elapsed_ms();

  phase_clock.restart();
  // The same start-of-frame priorities for the schedulers that do not use them, outside the
  // budget's clock, for the records.
  if (!scheduler_->uses_priority())
    for (const std::uint32_t slot : narrowphase_.order()) perceive(slot, gaze, true);
  measure(gaze, stats);
  stats.phase_ms[static_cast<int>(Phase::metrics)] = phase_clock.elapsed_ms();

  const TreeGrowthStats growth = narrowphase_.take_growth_stats();
  stats.tree_nodes_built = growth.nodes_built;
  stats.tree_nodes_evicted = growth.nodes_evicted;
  stats.tree_build_ms = growth.build_ms;
  stats.tree_nodes = narrowphase_.grown_nodes();

  ++frames_done_;
  stats.sim_time_s = sim_time_s();
  stats.frame_ms = frame_clock.elapsed_ms();
  return stats;
}

}  // namespace fovea

namespace fovea {

void Animation::perceive(std::uint32_t slot, const FrameGaze& gaze, bool at_start) {
  Collision& c = narrowphase_.collision(slot);
  const GapEstimate g = at_start ? narrowphase_.initial_gap_estimate(slot, states_) : narrowphase_.gap_estimate(slot, states_);
  const PerceivedGap p =
      perceive_gap(view_, perception_model_, gaze.x_px, gaze.y_px, g.centre_m, g.sphere_a_m, g.sphere_b_m, g.slack_m);
  c.centre_x_px = p.centre_x_px;
  c.centre_y_px = p.centre_y_px;
  c.gap_bound_m = g.bound_m;
  c.eccentricity_deg = p.eccentricity_deg;
  c.gap_deg = p.gap_deg;
  c.visible = p.visible;
  c.probability = p.probability;
  // Off screen, behind the camera, or not a number (only from broken poses): below every
  // visible collision (004: lowest priority).
  if (at_start) c.priority = p.visible && p.probability >= 0 ? p.probability : -1.0;
}

void Animation::measure(const FrameGaze& gaze, FrameStats& stats) {
  stats.collisions = static_cast<std::int64_t>(narrowphase_.size());
  stats.sphere_tests = narrowphase_.sphere_tests();
  const bool truth_on = settings_.ground_truth;
  // A side table by slot: grows with the slots, geometrically, then never again.
  reserve_geometric(truth_, std::max(narrowphase_.slot_count(), entities_.size()));
  truth_.resize(narrowphase_.slot_count());
  stats.nabla_true_m = truth_on ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  stats.p_true = truth_on ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  for (const std::uint32_t slot : narrowphase_.order()) {
    Collision& c = narrowphase_.collision(slot);
    const bool accepted = c.status == CollisionStatus::colliding;
    if (c.interrupted) {
      ++stats.interrupted;
    } else {
      ++(accepted ? stats.resolved_colliding : stats.resolved_not_colliding);
    }
    // A collision treated as real is placed again from its deepest spheres: where the
    // response will push, and, when unresolved, the gap it may leave (004 section 3.4.2).
    // One that never found an intersecting pair is where the start of the frame put it.
    if (accepted && c.tested_any) perceive(slot, gaze, false);
    const bool unresolved_accepted = accepted && c.interrupted;
    if (unresolved_accepted) {
      stats.nabla_est_m += c.gap_bound_m;
      stats.p_est += c.probability;
    }

    CollisionTruth& t = truth_[slot];
    t = CollisionTruth{};
    if (!truth_on) continue;
    const ExactPose pa{states_[c.a].position_m, states_[c.a].orientation};
    const ExactPose pb{states_[c.b].position_m, states_[c.b].orientation};
    t.checked = true;
    if (!accepted) {
      // Only whether they touch matters here; the separation is not computed.
      t.separation_m = std::numeric_limits<double>::quiet_NaN();
      t.touching = exact_touching(*exact_shapes_[c.model_a], pa, *exact_shapes_[c.model_b], pb);
      if (t.touching) ++stats.missed_collisions;
      continue;
    }
    const ExactContact contact = exact_contact(*exact_shapes_[c.model_a], pa, *exact_shapes_[c.model_b], pb);
    t.touching = contact.touching;
    t.separation_m = contact.separation_m;
    if (!t.touching) ++stats.false_collisions;
    if (unresolved_accepted && !t.touching) {
      const Vec3 middle = 0.5 * (contact.closest_a_m + contact.closest_b_m);
      const PerceivedGap p = perceive_gap(view_, perception_model_, gaze.x_px, gaze.y_px, middle, contact.closest_a_m,
                                          contact.closest_b_m, 0.0);
      t.gap_deg = p.gap_deg;
      t.probability = p.probability;
      stats.nabla_true_m += t.separation_m;
      stats.p_true += t.probability;
    }
  }
}

}  // namespace fovea

namespace fovea {

void Animation::set_schedule(const ScheduleSettings& schedule) {
  scheduler_ = make_scheduler(schedule);  // throws before anything changes
  settings_.schedule = schedule;
}

void Animation::set_budget(const BudgetSettings& budget) {
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
