#pragma once

#include <cstdint>
#include <span>

#include "world/entity.hpp"
#include "world/placement.hpp"

namespace fovea {

/// Advances every dynamic entity by one fixed step `dt_s` (static entities are skipped).
///
/// Semi-implicit Euler: v += g dt, then x += v dt with the new v. Rotation: the world
/// angular momentum L = I_world w is what a free rigid body conserves, so the step keeps L
/// and turns the orientation quaternion by the exact rotation exp(dt w / 2) (renormalised),
/// with w taken at the half-step orientation (midpoint rule), then recovers
/// w = I_world(q)^-1 L.
/// Without torques this conserves L to rounding; the kinetic energy drift is measured in
/// tests/world/motion_test.cpp and docs/world.md.
void integrate_motion(std::span<EntityState> states, std::span<const Entity> entities, const Vec3& gravity_mps2,
                      double dt_s);

/// Provisional response until the collision issues land: an entity whose bounding sphere
/// crosses a wall of `box` is moved back inside, and its velocity component into that wall
/// is reversed and scaled by its restitution. Returns the number of wall hits.
std::int64_t bounce_off_walls(std::span<EntityState> states, std::span<const Entity> entities, const Aabb& box);

/// Sum of 1/2 m v^2 + 1/2 w^T I_world w over dynamic entities.
double kinetic_energy_j(std::span<const EntityState> states, std::span<const Entity> entities);
/// Sum of m v over dynamic entities.
Vec3 linear_momentum_kgmps(std::span<const EntityState> states, std::span<const Entity> entities);
/// Sum of m (x - origin) x v + I_world w over dynamic entities.
Vec3 angular_momentum_kgm2ps(std::span<const EntityState> states, std::span<const Entity> entities,
                             const Vec3& origin_m);

}  // namespace fovea
