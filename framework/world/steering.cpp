#include "world/steering.hpp"

#include <cassert>
#include <cmath>

namespace fovea {
namespace {

/// Heading about +y (0 faces +z, pi/2 faces +x) of the model's +z axis; from its +x axis when
/// +z points straight up or down (a walker knocked onto its back).
double yaw_of(const Quat& orientation) {
  const Vec3 forward = orientation * Vec3(0, 0, 1);
  if (forward.x * forward.x + forward.z * forward.z > 1e-12) return std::atan2(forward.x, forward.z);
  const Vec3 right = orientation * Vec3(1, 0, 0);  // a yaw of t turns +x to (cos t, 0, -sin t)
  return std::atan2(-right.z, right.x);
}

/// The agent's distance to its goal in the horizontal plane (x and z).
double distance_to_goal_m(const SteeringAgent& agent, const Vec3& position_m) {
  return std::hypot(agent.goal_m.x - position_m.x, agent.goal_m.z - position_m.z);
}

}  // namespace

bool has_arrived(const SteeringAgent& agent, const Vec3& position_m) {
  return distance_to_goal_m(agent, position_m) <= agent.arrive_radius_m;
}

SteeringStats steer_agents(std::span<EntityState> states, std::span<const std::uint32_t> entity_ids,
                           std::span<const SteeringAgent> agents, double standing_height_m, double dt_s) {
  assert(entity_ids.size() == agents.size());
  SteeringStats stats;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const SteeringAgent& agent = agents[i];
    EntityState& s = states[entity_ids[i]];
    const double to_goal_x_m = agent.goal_m.x - s.position_m.x;
    const double to_goal_z_m = agent.goal_m.z - s.position_m.z;
    const double distance_m = distance_to_goal_m(agent, s.position_m);
    // Desired velocity = to_goal * speed / distance, speed = preferred * min(1, distance /
    // radius): inside the radius the factor is preferred / radius, with no division by a
    // distance that may be zero.
    double scale_per_s = 0;
    if (distance_m > agent.arrive_radius_m)
      scale_per_s = agent.preferred_speed_mps / distance_m;
    else if (agent.arrive_radius_m > 0)
      scale_per_s = agent.preferred_speed_mps / agent.arrive_radius_m;
    double dvx_mps = to_goal_x_m * scale_per_s - s.linear_velocity_mps.x;
    double dvz_mps = to_goal_z_m * scale_per_s - s.linear_velocity_mps.z;
    const double change_mps = std::hypot(dvx_mps, dvz_mps);
    const double max_change_mps = agent.max_acceleration_mps2 * dt_s;
    if (change_mps > max_change_mps) {
      dvx_mps *= max_change_mps / change_mps;
      dvz_mps *= max_change_mps / change_mps;
    }
    s.linear_velocity_mps.x += dvx_mps;
    s.linear_velocity_mps.z += dvz_mps;
    s.linear_velocity_mps.y = 0;
    s.position_m.y = standing_height_m;
    s.angular_velocity_radps = Vec3(0.0);

    const double speed_mps = std::hypot(s.linear_velocity_mps.x, s.linear_velocity_mps.z);
    const bool moving = speed_mps > kFacingSpeed_mps;
    // Rebuilt from the yaw alone each step, so tilts the physics gave are dropped and the
    // quaternion's x and z stay exactly 0.
    const double yaw_rad =
        moving ? std::atan2(s.linear_velocity_mps.x, s.linear_velocity_mps.z) : yaw_of(s.orientation);
    s.orientation = glm::angleAxis(yaw_rad, Vec3(0, 1, 0));

    stats.arrived += has_arrived(agent, s.position_m);
    stats.moving += moving;
  }
  return stats;
}

}  // namespace fovea
