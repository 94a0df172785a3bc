#include "demos/rockfall.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/setting_error.hpp"
#include "world/fracture.hpp"
#include "world/model_generators.hpp"

namespace fovea {
namespace {

constexpr std::int64_t kNoRock = -1;

/// Index of the group called `name`, or std::invalid_argument naming the demo key.
std::uint32_t group_named(const WorldSettings& world, const std::string& name, const char* key) {
  for (std::uint32_t g = 0; g < world.entities.size(); ++g)
    if (world.entities[g].name == name) return g;
  throw SettingError(std::string("demo.rockfall.") + key, "no entity group is named '" + name + "'");
}

/// The ravine's grid min corner in the world (scenery is unrotated).
Vec3 grid_corner_m(const Animation& world, EntityId entity) {
  return world.states()[entity].position_m - world.entities()[entity].centre_of_mass_model_m;
}

}  // namespace

Rockfall::Rockfall(Animation& world, const RockfallSettings& settings, std::uint64_t seed)
    : settings_(settings), rng_(seed, rng_stream(RngStream::demo, 1)) {
  const WorldSettings& ws = world.settings().world;
  const std::uint32_t ravine_group = group_named(ws, settings.ravine_group, "ravine_group");
  rock_group_ = group_named(ws, settings.rock_group, "rock_group");
  const EntityGroupSettings& ravine = ws.entities[ravine_group];
  if (ravine.count != 1 || ravine.placement != Placement::floor || !ravine.is_static)
    throw SettingError("demo.rockfall.ravine_group", "group '" + ravine.name +
                                                         "' must hold one static entity placed on the floor (count: 1, static: true, placement: floor)");
  if (ws.entities[rock_group_].is_static)
    throw SettingError("demo.rockfall.rock_group", "group '" + ws.entities[rock_group_].name + "' must not be static");

  rock_of_entity_.assign(world.entities().size(), kNoRock);
  for (EntityId id = 0; id < world.entities().size(); ++id) {
    if (world.entities()[id].group == ravine_group) ravine_ = id;
    if (world.entities()[id].group == rock_group_) add_rock({id});  // rocks placed at the start, if any
  }

  // The rock shapes: the group's model at seeded scales, one voxel size for all.
  const ModelSettings& rock_model = ws.entities[rock_group_].model;
  for (int v = 0; v < std::max(1, rock_model.variants); ++v) {
    ModelSettings m = rock_model;
    const double scale = rng_.uniform(settings.min_scale, 1.0);
    m.resolution_voxels = std::max(3, static_cast<int>(std::lround(rock_model.resolution_voxels * scale)));
    m.size_m = rock_model.size_m * m.resolution_voxels / rock_model.resolution_voxels;
    rock_models_.push_back(world.add_model(make_model(m, rng_.next_u64()), rock_group_, ModelLifetime::kept));
  }
  // Broken rocks become fragments, models released when unused (break_rock).
  world.expect_models(rock_group_, ModelLifetime::released_when_unused);

  // The player's walk: the config's path, or the ravine's middle from 15 % to 85 % of its length.
  path_ = settings.player.path;
  const Vec3 corner = grid_corner_m(world, ravine_);
  const Vec3 extent = world.models()[world.entities()[ravine_].model].extent_m();
  if (path_.empty()) {
    path_.push_back({corner.x + 0.5 * extent.x, corner.z + 0.15 * extent.z});
    path_.push_back({corner.x + 0.5 * extent.x, corner.z + 0.85 * extent.z});
  }
  const Waypoint& start = path_.front();
  const Waypoint& towards = path_.size() > 1 ? path_[1] : start;
  Vec3 facing(towards.x_m - start.x_m, 0.0, towards.z_m - start.z_m);
  facing = glm::length(facing) > 0 ? glm::normalize(facing) : Vec3(0, 0, 1);
  const Vec3 feet(start.x_m, floor_height_m(world, start.x_m, start.z_m), start.z_m);
  place_player(feet, facing);
  // The player's eye from the first frame on (a window's fly camera starts there too).
  world.set_camera(eye_camera(world, feet, facing));
}

double Rockfall::floor_height_m(const Animation& world, double x_m, double z_m) const {
  const VoxelModel& model = world.models()[world.entities()[ravine_].model];
  const Vec3 corner = grid_corner_m(world, ravine_);
  const double s = model.voxel_size_m();
  const int x = static_cast<int>(std::floor((x_m - corner.x) / s));
  const int z = static_cast<int>(std::floor((z_m - corner.z) / s));
  const IVec3 d = model.dims();
  const double box_floor_m = world.box().min_m.y;
  if (x < 0 || z < 0 || x >= d.x || z >= d.z) return box_floor_m;
  for (int y = d.y - 1; y >= 0; --y)
    if (model.occupied(x, y, z)) return corner.y + (y + 1) * s;
  return box_floor_m;
}

CameraSettings Rockfall::eye_camera(const Animation& world, const Vec3& feet_m, const Vec3& facing) const {
  const PlayerSettings& p = settings_.player;
  const double pitch = p.look_up_deg * std::numbers::pi / 180.0;
  CameraSettings camera = world.settings().perception.view.camera;
  camera.frame_box = false;
  camera.position_m = feet_m + Vec3(0, p.eye_height_m, 0);
  camera.target_m = camera.position_m + 10.0 * (std::cos(pitch) * facing + Vec3(0, std::sin(pitch), 0));
  camera.up = Vec3(0, 1, 0);
  return camera;
}

void Rockfall::place_player(const Vec3& feet_m, const Vec3& facing) {
  const PlayerSettings& p = settings_.player;
  player_.a_m = feet_m + Vec3(0, p.radius_m, 0);
  player_.b_m = feet_m + Vec3(0, std::max(p.radius_m, p.height_m - p.radius_m), 0);
  player_.radius_m = p.radius_m;
  facing_ = facing;
}

void Rockfall::before_step(Animation& world, bool follow_camera) {
  const double dt = world.settings().world.time_step_s;
  const PlayerSettings& p = settings_.player;
  CameraSettings camera = world.settings().perception.view.camera;
  if (follow_camera) {
    // The window's fly camera leads; the player stands under it, the eye at eye height,
    // kept between the walls (the middle half of the ravine's width) and inside its length.
    const Vec3 corner = grid_corner_m(world, ravine_);
    const Vec3 extent = world.models()[world.entities()[ravine_].model].extent_m();
    Vec3 feet(glm::clamp(camera.position_m.x, corner.x + 0.25 * extent.x, corner.x + 0.75 * extent.x), 0.0,
              glm::clamp(camera.position_m.z, corner.z + p.radius_m, corner.z + extent.z - p.radius_m));
    feet.y = floor_height_m(world, feet.x, feet.z);
    Vec3 look = camera.target_m - camera.position_m;
    Vec3 flat(look.x, 0.0, look.z);
    place_player(feet, glm::length(flat) > 0 ? glm::normalize(flat) : facing_);
    camera.frame_box = false;
    camera.position_m = feet + Vec3(0, p.eye_height_m, 0);
    camera.target_m = camera.position_m + look;
  } else {
    // The scripted walk: toward the next waypoint, there and back along the path.
    const Vec3 feet_before = (player_.a_m - Vec3(0, p.radius_m, 0));
    Vec3 at(feet_before.x, 0.0, feet_before.z);
    double step_m = p.walk_speed_mps * dt;
    Vec3 facing = facing_;
    for (int guard = 0; guard < 8 && step_m > 0 && path_.size() > 1; ++guard) {
      const Waypoint& w = path_[next_waypoint_];
      const Vec3 to(w.x_m - at.x, 0.0, w.z_m - at.z);
      const double distance = glm::length(to);
      if (distance > step_m) {
        facing = to / distance;
        at += facing * step_m;
        break;
      }
      at += to;
      step_m -= distance;
      if (next_waypoint_ + 1 >= path_.size()) path_direction_ = -1;
      if (next_waypoint_ == 0) path_direction_ = 1;
      next_waypoint_ = static_cast<std::size_t>(static_cast<std::int64_t>(next_waypoint_) + path_direction_);
    }
    at.y = floor_height_m(world, at.x, at.z);
    place_player(at, facing);
    camera = eye_camera(world, at, facing);
  }
  world.set_camera(camera);

  released_ = 0;
  release_clock_s_ += dt;
  if (release_clock_s_ >= settings_.release_interval_s) {
    release_clock_s_ -= settings_.release_interval_s;
    release_rock(world);
  }
}

void Rockfall::release_rock(Animation& world) {
  if (live_rocks_ >= settings_.max_rocks || rock_models_.empty()) return;
  const ModelId model = rock_models_[rng_.below(rock_models_.size())];
  const double radius_m = world.model_library().prototypes()[model].bounding_radius_m;
  const Vec3 corner = grid_corner_m(world, ravine_);
  const Vec3 extent = world.models()[world.entities()[ravine_].model].extent_m();
  EntityState s;
  s.position_m.x = corner.x + extent.x * (0.5 + settings_.release_width_fraction * rng_.uniform(-0.5, 0.5));
  s.position_m.z = corner.z + extent.z * (0.5 + settings_.release_length_fraction * rng_.uniform(-0.5, 0.5));
  s.position_m.y = std::min(corner.y + extent.y + settings_.release_height_m + radius_m, world.box().max_m.y - radius_m);
  s.orientation = rng_.rotation();
  const double v = settings_.release_speed_mps;
  s.linear_velocity_mps = Vec3(rng_.uniform(-0.5, 0.5) * v, -v, rng_.uniform(-0.5, 0.5) * v);
  s.angular_velocity_radps = settings_.release_spin_radps * rng_.unit_vector();
  // Not into a rock still up there: this release is skipped, the next one tries elsewhere.
  for (const Rock& r : rocks_) {
    if (r.entity == kNoEntity) continue;
    const double reach = radius_m + world.entities()[r.entity].bounding_radius_m;
    const Vec3 d = world.states()[r.entity].position_m - s.position_m;
    if (glm::dot(d, d) < reach * reach) return;
  }
  add_rock({world.spawn(model, s)});
  ++released_;
}

void Rockfall::add_rock(const Rock& rock) {
  if (rock.entity >= rock_of_entity_.size()) rock_of_entity_.resize(rock.entity + std::size_t{1}, kNoRock);
  rock_of_entity_[rock.entity] = static_cast<std::int64_t>(rocks_.size());
  rocks_.push_back(rock);
  ++live_rocks_;
}

void Rockfall::drop_rock(Animation& world, std::size_t index) {
  world.retire(rocks_[index].entity);
  rock_of_entity_[rocks_[index].entity] = kNoRock;
  rocks_[index].entity = kNoEntity;
  --live_rocks_;
}

RockBreak Rockfall::break_rock(Animation& world, EntityId rock_entity, const Vec3& point_m, const Vec3& normal) {
  RockBreak result;
  if (rock_entity >= rock_of_entity_.size() || rock_of_entity_[rock_entity] == kNoRock) return result;
  const auto index = static_cast<std::size_t>(rock_of_entity_[rock_entity]);
  const Rock rock = rocks_[index];
  // Copies: retire() and spawn() below change the world's arrays.
  const Entity e = world.entities()[rock.entity];
  const EntityState s = world.states()[rock.entity];
  // The cut: through the impact point, along the impact's direction and through the centre
  // of mass, so it splits the rock across the blow; turned about the impact direction by a
  // seeded amount so two identical impacts break differently.
  Vec3 across = glm::cross(normal, s.position_m - point_m);
  Vec3 random = rng_.unit_vector();
  random -= glm::dot(random, normal) * normal;
  if (glm::length(across) < 1e-9) across = random;
  if (glm::length(across) < 1e-9) return result;
  across = glm::normalize(glm::normalize(across) + 0.3 * (glm::length(random) > 1e-9 ? glm::normalize(random) : Vec3(0.0)));
  const Quat to_model = glm::conjugate(s.orientation);
  const Vec3 point_model = to_model * (point_m - s.position_m) + e.centre_of_mass_model_m;
  FractureResult pieces = fracture_voxels(world.models()[e.model], point_model, to_model * across,
                                          settings_.min_fragment_voxels);
  if (pieces.fragments.size() < 2) return result;
  if (live_rocks_ + static_cast<std::int64_t>(pieces.fragments.size()) - 1 > settings_.max_rocks) return result;

  // Momentum shared out over fragments and debris alike (world/fracture.hpp); the debris
  // leaves with its share.
  const double density = e.material.density_kgpm3;
  const double voxel_volume_m3 = std::pow(world.models()[e.model].voxel_size_m(), 3);
  // Each fragment becomes a model now (its mass properties computed once, there); its
  // entity is spawned below, once the parent has gone.
  std::vector<PieceMass> masses;
  std::vector<ModelId> fragment_models;
  for (Fragment& f : pieces.fragments) {
    const Vec3 origin_m = fragment_origin_in_parent_m(f);
    const ModelId model = world.add_model(std::move(f.model), rock_group_, ModelLifetime::released_when_unused);
    const Entity& prototype = world.model_library().prototypes()[model];
    fragment_models.push_back(model);
    masses.push_back({prototype.mass_kg, to_world(e, s, prototype.centre_of_mass_model_m + origin_m), f.side});
  }
  for (const DebrisPiece& d : pieces.debris)
    masses.push_back({static_cast<double>(d.voxel_count) * voxel_volume_m3 * density, to_world(e, s, d.centre_model_m), d.side});
  const std::vector<PieceMotion> motion =
      fracture_motion({s.position_m, s.linear_velocity_mps, s.angular_velocity_radps}, masses, across,
                      settings_.separation_speed_mps);

  for (std::size_t k = pieces.fragments.size(); k < masses.size(); ++k)
    result.debris_momentum_kgmps += masses[k].mass_kg * motion[k].linear_velocity_mps;
  drop_rock(world, index);
  for (std::size_t k = 0; k < fragment_models.size(); ++k) {
    const ModelId model = fragment_models[k];
    EntityState fs;
    fs.position_m = masses[k].centre_of_mass_m;
    fs.orientation = s.orientation;
    fs.linear_velocity_mps = motion[k].linear_velocity_mps;
    fs.angular_velocity_radps = motion[k].angular_velocity_radps;
    const EntityId id = world.spawn(model, fs);
    // A fragment of a rock touching the player is not a new hit while it goes on touching.
    add_rock({id, rock.generation + 1, 0.0, rock.touching_player});
    result.fragments.push_back(id);
  }
  result.broken = true;
  result.debris_voxels = pieces.debris_voxels;
  return result;
}

RockfallFrame Rockfall::after_step(Animation& world) {
  RockfallFrame frame;
  frame.released = released_;
  const double dt = world.settings().world.time_step_s;
  const auto entity_count = static_cast<std::uint32_t>(world.entities().size());

  // Each rock's impacts this frame: the normal impulses of all its contacts, and where the
  // hardest one struck (its points weighted by their impulses).
  const std::size_t n = rocks_.size();
  impulse_ns_.assign(n, 0.0);
  hardest_ns_.assign(n, 0.0);
  impact_point_m_.assign(n, Vec3(0.0));
  impact_normal_.assign(n, Vec3(0.0));
  for (const ContactManifold& m : world.response().manifolds()) {
    double total_ns = 0;
    Vec3 weighted_m(0.0);
    for (int k = 0; k < m.point_count; ++k) {
      total_ns += m.points[static_cast<std::size_t>(k)].normal_impulse_ns;
      weighted_m += m.points[static_cast<std::size_t>(k)].normal_impulse_ns * m.points[static_cast<std::size_t>(k)].point_m;
    }
    if (total_ns <= 0) continue;
    for (const std::uint32_t body : {m.body_a, m.body_b}) {
      if (body >= entity_count || body >= rock_of_entity_.size() || rock_of_entity_[body] == kNoRock) continue;
      const auto r = static_cast<std::size_t>(rock_of_entity_[body]);
      impulse_ns_[r] += total_ns;
      if (total_ns > hardest_ns_[r]) {
        hardest_ns_[r] = total_ns;
        impact_point_m_[r] = weighted_m / total_ns;
        impact_normal_[r] = m.normal;
      }
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    if (impulse_ns_[r] <= settings_.break_impulse_ns || rocks_[r].generation >= settings_.max_breaks) continue;
    const RockBreak broke = break_rock(world, rocks_[r].entity, impact_point_m_[r], impact_normal_[r]);
    if (!broke.broken) continue;
    ++frame.breaks;
    frame.fragments += static_cast<std::int64_t>(broke.fragments.size());
    frame.debris_voxels += broke.debris_voxels;
  }

  // The player, and rest.
  for (std::size_t r = 0; r < rocks_.size(); ++r) {
    Rock& rock = rocks_[r];
    if (rock.entity == kNoEntity) continue;
    const Entity& e = world.entities()[rock.entity];
    const EntityState& s = world.states()[rock.entity];
    // The search's first test, the root's leaf reach, rejects a far rock at once.
    const bool touching = capsule_touch(world.growable_model(e.model), s, player_, stack_).touching;
    if (touching && !rock.touching_player) ++frame.player_hits;
    rock.touching_player = touching;
    const double speed = glm::length(s.linear_velocity_mps) + glm::length(s.angular_velocity_radps) * e.bounding_radius_m;
    rock.resting_s = speed < settings_.rest_speed_mps ? rock.resting_s + dt : 0.0;
    if (rock.resting_s >= settings_.rest_time_s) {
      drop_rock(world, r);
      ++frame.retired;
    }
  }
  // The list without the broken and retired, in order.
  std::size_t kept = 0;
  for (std::size_t r = 0; r < rocks_.size(); ++r) {
    if (rocks_[r].entity == kNoEntity) continue;
    rocks_[kept] = rocks_[r];
    rock_of_entity_[rocks_[kept].entity] = static_cast<std::int64_t>(kept);
    ++kept;
  }
  rocks_.resize(kept);

  hits_total_ += frame.player_hits;
  frame.player_hits_total = hits_total_;
  frame.rocks = rock_count();
  frame.player_x_m = player_.a_m.x;
  frame.player_z_m = player_.a_m.z;
  return frame;
}

}  // namespace fovea
