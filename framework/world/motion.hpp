#pragma once

#include <cstdint>
#include <span>

#include "world/entity.hpp"
#include "world/placement.hpp"

namespace fovea {

/// Advances every dynamic entity by one fixed step `dt_s` (static entities are skipped).
///
/// Positions first, x += v dt, then v += g dt. With the response between two calls this is
/// semi-implicit (symplectic) Euler as a contact solver needs it: the velocity that moves a
/// body is the one the response last left, after gravity was added and the contacts
/// solved. Adding gravity before the move would let every resting body sink by g dt^2 a
/// frame before its support could stop it, and a pile creep downwards for as long as it
/// stands. Free fall: x_n = x_0 + n v_0 dt + g dt^2 n (n - 1) / 2, off the exact
/// parabola by g dt t / 2, as the other order is by the same amount the other way.
/// Rotation: the world
/// angular momentum L = I_world w is what a free rigid body conserves, so the step keeps L
/// and turns the orientation quaternion by the exact rotation exp(dt w / 2) (renormalised),
/// with w taken at the half-step orientation (midpoint rule), then recovers
/// w = I_world(q)^-1 L.
/// Without torques this conserves L to rounding; the kinetic energy drift is measured in
/// tests/world/motion_test.cpp and docs/world.md.
void integrate_motion(std::span<EntityState> states, std::span<const Entity> entities, const Vec3& gravity_mps2,
                      double dt_s);

/// Sum of 1/2 m v^2 + 1/2 w^T I_world w over dynamic entities.
double kinetic_energy_j(std::span<const EntityState> states, std::span<const Entity> entities);
/// Sum of -m g . x over dynamic entities: the potential energy under uniform gravity `g`,
/// zero at the world origin.
double potential_energy_j(std::span<const EntityState> states, std::span<const Entity> entities,
                          const Vec3& gravity_mps2);
/// Sum of m v over dynamic entities.
Vec3 linear_momentum_kgmps(std::span<const EntityState> states, std::span<const Entity> entities);
/// Sum of m (x - origin) x v + I_world w over dynamic entities.
Vec3 angular_momentum_kgm2ps(std::span<const EntityState> states, std::span<const Entity> entities,
                             const Vec3& origin_m);

}  // namespace fovea
