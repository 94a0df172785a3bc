#pragma once

#include <cstdint>
#include <span>

#include "core/math.hpp"
#include "world/entity.hpp"

namespace fovea {

/// A crowd walker's goal and gait, y up. Collisions between walkers are left to the physics
/// (detection and impulse response), so steering only seeks the goal: no avoidance here.
struct SteeringAgent {
  Vec3 goal_m{0.0};                   ///< where to walk; only x and z are used
  double preferred_speed_mps = 1.3;   ///< cruising speed, a typical walking pace
  double max_acceleration_mps2 = 1.5; ///< bound on the change of horizontal velocity
  /// Inside this horizontal distance from the goal the desired speed falls linearly to zero.
  /// To stop without overshooting it should be at least preferred_speed^2 / max_acceleration
  /// (the ramp's deceleration at its edge).
  double arrive_radius_m = 1.5;
};

/// Whether the agent at `position_m` has arrived: within arrive_radius_m of its goal,
/// horizontally. What SteeringStats::arrived and the crowd's walkers_arrived count.
bool has_arrived(const SteeringAgent& agent, const Vec3& position_m);

/// Counts over the agents after a steering step, for the records.
struct SteeringStats {
  std::uint32_t arrived = 0;  ///< within arrive_radius_m of the goal (horizontally)
  std::uint32_t moving = 0;   ///< horizontal speed above kFacingSpeed_mps
};

/// Below this horizontal speed a walker keeps its heading instead of turning to face its
/// velocity, whose direction is noise near a stop.
inline constexpr double kFacingSpeed_mps = 0.05;

/// One steering step for every agent: agent i drives states[entity_ids[i]]
/// (entity_ids.size() == agents.size()).
///
/// In the horizontal plane (x, z) the desired velocity points at the goal at the preferred
/// speed, scaled down linearly inside the arrive radius (zero at the goal); the horizontal
/// velocity moves towards it by at most max_acceleration * dt_s. The walker is then kept
/// upright: y position standing_height_m (its centre of mass above the floor), y velocity 0,
/// orientation a rotation about +y only, facing its horizontal velocity (the humanoid model
/// faces +z) when faster than kFacingSpeed_mps and keeping its heading otherwise, angular
/// velocity 0. Positions are left to the integrator. Deterministic; allocates nothing.
SteeringStats steer_agents(std::span<EntityState> states, std::span<const std::uint32_t> entity_ids,
                           std::span<const SteeringAgent> agents, double standing_height_m, double dt_s);

}  // namespace fovea
