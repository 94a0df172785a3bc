#include "demos/crowd.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/format.hpp"
#include "core/rng.hpp"
#include "core/setting_error.hpp"

namespace fovea {

Crowd::Crowd(Animation& world, const CrowdSettings& settings, std::uint64_t seed) : settings_(settings) {
  const WorldSettings& ws = world.settings().world;
  std::uint32_t group = 0;
  while (group < ws.entities.size() && ws.entities[group].name != settings.group) ++group;
  if (group == ws.entities.size())
    throw SettingError("demo.crowd.group", "no entity group is named '" + settings.group + "'");
  if (ws.entities[group].placement != Placement::demo || ws.entities[group].is_static)
    throw SettingError("demo.crowd.group", "group '" + settings.group + "' must be dynamic and placed by the demo (placement: demo)");
  for (EntityId id = 0; id < world.entities().size(); ++id)
    if (world.entities()[id].group == group) walkers_.push_back(id);
  if (walkers_.empty()) return;

  // Feet on the floor: the model's grid starts at its feet (y = 0); half a voxel more keeps
  // the leaf spheres, which bulge past the voxels, off the floor, so walking costs no floor
  // friction.
  const Entity& prototype = world.entities()[walkers_.front()];
  const double voxel_m = world.models()[prototype.model].voxel_size_m();
  const Aabb& box = world.box();
  standing_height_m_ = box.min_m.y + prototype.centre_of_mass_model_m.y + 0.5 * voxel_m;

  // Blocks: each stream keeps to one side of the plaza's middle line (opposite streams to
  // opposite sides, so they pass rather than meet head on; crossing streams still cross),
  // a quarter of the plaza wide, as many rows as fit at `spacing`, as deep as the stream
  // needs. Within a quarter of the walls they stay clear of each other's lanes.
  const int streams = std::clamp(settings.streams, 1, 4);
  const std::size_t per_stream = (walkers_.size() + static_cast<std::size_t>(streams) - 1) / static_cast<std::size_t>(streams);
  const Vec3 size = box.size_m();
  const double side_m = std::min(size.x, size.z);
  const auto rows = static_cast<std::size_t>(std::floor(0.25 * side_m / settings.spacing_m));
  if (rows == 0)
    throw SettingError("demo.crowd.spacing_m",
                       format_significant(settings.spacing_m) + " m is more than a quarter of the plaza's side");
  const std::size_t columns = (per_stream + rows - 1) / rows;
  const double depth_m = static_cast<double>(columns) * settings.spacing_m;
  if (settings.margin_m + depth_m > 0.25 * side_m)
    throw SettingError("world.entities[" + std::to_string(group) + "].count", std::to_string(walkers_.size()) + " walkers in " +
                                std::to_string(streams) + " streams need blocks " + format_significant(depth_m) +
                                " m deep, more than a quarter of the plaza (" + format_significant(side_m) +
                                " m) less the margin; use a larger world.box_size_m, fewer walkers or more streams");

  Rng rng(seed, rng_stream(RngStream::demo, 2));
  const Vec3 centre = box.centre_m();
  for (std::size_t i = 0; i < walkers_.size(); ++i) {
    const int stream = static_cast<int>(i % static_cast<std::size_t>(streams));
    const std::size_t k = i / static_cast<std::size_t>(streams);
    // Along the side, from the middle line: streams 0 and 3 on its + side, 1 and 2 on its -.
    const double lane_sign = stream == 0 || stream == 3 ? 1.0 : -1.0;
    const double across_m = lane_sign * (static_cast<double>(k % rows) + 0.5) * settings.spacing_m;
    const double in_m = settings.margin_m + (static_cast<double>(k / rows) + 0.5) * settings.spacing_m;  // from the wall
    // Stream 0 starts at -x and walks to +x; 1: +x to -x; 2: -z to +z; 3: +z to -z.
    const bool along_x = stream < 2;
    const double sign = stream % 2 == 0 ? -1.0 : 1.0;
    Vec3 start(centre.x, standing_height_m_, centre.z);
    if (along_x) {
      start.x = sign < 0 ? box.min_m.x + in_m : box.max_m.x - in_m;
      start.z += across_m;
    } else {
      start.z = sign < 0 ? box.min_m.z + in_m : box.max_m.z - in_m;
      start.x += across_m;
    }
    // The goal: the same place in a block as far from the far wall, the block moved across
    // whole, so walkers at the front stop furthest on and no one walks through those who
    // have stopped.
    const double crossing_m = (along_x ? size.x : size.z) - 2 * settings.margin_m - depth_m;
    Vec3 goal = start;
    if (along_x) goal.x -= sign * crossing_m;
    else goal.z -= sign * crossing_m;

    SteeringAgent agent;
    agent.goal_m = goal;
    agent.preferred_speed_mps = settings.preferred_speed_mps * (1.0 + settings.speed_spread * rng.uniform(-1.0, 1.0));
    agent.max_acceleration_mps2 = settings.max_acceleration_mps2;
    agent.arrive_radius_m = settings.arrive_radius_m;
    agents_.push_back(agent);

    EntityState s;
    s.position_m = start;
    const Vec3 heading = glm::normalize(Vec3(goal.x - start.x, 0.0, goal.z - start.z));
    s.orientation = glm::angleAxis(std::atan2(heading.x, heading.z), Vec3(0, 1, 0));  // the model faces +z
    world.set_state(walkers_[i], s);
  }
}

void Crowd::before_step(Animation& world) {
  steer_agents(world.controlled_states(), walkers_, agents_, standing_height_m_, world.settings().world.time_step_s);
}

CrowdFrame Crowd::after_step(const Animation& world) const {
  CrowdFrame frame;
  frame.walkers = static_cast<std::int64_t>(walkers_.size());
  double speed_sum = 0;
  for (std::size_t i = 0; i < walkers_.size(); ++i) {
    const EntityState& s = world.states()[walkers_[i]];
    if (has_arrived(agents_[i], s.position_m)) ++frame.arrived;
    speed_sum += std::hypot(s.linear_velocity_mps.x, s.linear_velocity_mps.z);
  }
  frame.mean_speed_mps = walkers_.empty() ? 0.0 : speed_sum / static_cast<double>(walkers_.size());
  return frame;
}

}  // namespace fovea
