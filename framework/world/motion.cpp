#include "world/motion.hpp"

#include <glm/gtc/quaternion.hpp>

namespace fovea {

Mat3 world_inertia(const Entity& entity, const Quat& orientation) {
  const Mat3 r = glm::mat3_cast(orientation);
  return r * entity.inertia_body_kgm2 * glm::transpose(r);
}

namespace {

/// R M R^T v: a body-frame tensor M (inertia or its inverse) applied in world space.
Vec3 rotate_by_inertia(const Mat3& body_tensor, const Quat& orientation, const Vec3& v) {
  const Mat3 r = glm::mat3_cast(orientation);
  return r * (body_tensor * (glm::transpose(r) * v));
}

/// q advanced by angular velocity w over dt: q + dt/2 (0, w) q, renormalised.
Quat advance_orientation(const Quat& q, const Vec3& w, double dt_s) {
  return glm::normalize(q + (0.5 * dt_s) * (Quat(0.0, w.x, w.y, w.z) * q));
}

}  // namespace

void integrate_motion(std::span<EntityState> states, std::span<const Entity> entities, const Vec3& gravity_mps2,
                      double dt_s) {
  for (std::size_t i = 0; i < states.size(); ++i) {
    const Entity& e = entities[i];
    if (e.is_static) continue;
    EntityState& s = states[i];
    s.linear_velocity_mps += gravity_mps2 * dt_s;
    s.position_m += s.linear_velocity_mps * dt_s;

    const Vec3 w = s.angular_velocity_radps;
    if (w == Vec3(0.0)) continue;
    // Torque-free rotation keeps the world angular momentum L. A step with the start-of-step
    // w alone lets a tumbling body's energy drift by percents over seconds; the midpoint
    // rule below (w re-evaluated from L at the half-step orientation) is second order and
    // keeps the drift orders of magnitude smaller for two more matrix products.
    const Vec3 momentum = rotate_by_inertia(e.inertia_body_kgm2, s.orientation, w);
    const Quat half = advance_orientation(s.orientation, w, 0.5 * dt_s);
    const Vec3 w_half = rotate_by_inertia(e.inverse_inertia_body, half, momentum);
    s.orientation = advance_orientation(s.orientation, w_half, dt_s);
    s.angular_velocity_radps = rotate_by_inertia(e.inverse_inertia_body, s.orientation, momentum);
  }
}

std::int64_t bounce_off_walls(std::span<EntityState> states, std::span<const Entity> entities, const Aabb& box) {
  std::int64_t hits = 0;
  for (std::size_t i = 0; i < states.size(); ++i) {
    const Entity& e = entities[i];
    if (e.is_static) continue;
    EntityState& s = states[i];
    const double r = e.bounding_radius_m;
    for (int axis = 0; axis < 3; ++axis) {
      double& x = s.position_m[axis];
      double& v = s.linear_velocity_mps[axis];
      if (x - r < box.min_m[axis]) {
        x = box.min_m[axis] + r;
        if (v < 0) {
          v = -e.material.restitution * v;
          ++hits;
        }
      } else if (x + r > box.max_m[axis]) {
        x = box.max_m[axis] - r;
        if (v > 0) {
          v = -e.material.restitution * v;
          ++hits;
        }
      }
    }
  }
  return hits;
}

double kinetic_energy_j(std::span<const EntityState> states, std::span<const Entity> entities) {
  double energy = 0;
  for (std::size_t i = 0; i < states.size(); ++i) {
    const Entity& e = entities[i];
    if (e.is_static) continue;
    const EntityState& s = states[i];
    const Vec3& w = s.angular_velocity_radps;
    energy += 0.5 * e.mass_kg * glm::dot(s.linear_velocity_mps, s.linear_velocity_mps) +
              0.5 * glm::dot(w, world_inertia(e, s.orientation) * w);
  }
  return energy;
}

Vec3 linear_momentum_kgmps(std::span<const EntityState> states, std::span<const Entity> entities) {
  Vec3 p(0.0);
  for (std::size_t i = 0; i < states.size(); ++i)
    if (!entities[i].is_static) p += entities[i].mass_kg * states[i].linear_velocity_mps;
  return p;
}

Vec3 angular_momentum_kgm2ps(std::span<const EntityState> states, std::span<const Entity> entities,
                             const Vec3& origin_m) {
  Vec3 l(0.0);
  for (std::size_t i = 0; i < states.size(); ++i) {
    const Entity& e = entities[i];
    if (e.is_static) continue;
    const EntityState& s = states[i];
    l += e.mass_kg * glm::cross(s.position_m - origin_m, s.linear_velocity_mps) +
         world_inertia(e, s.orientation) * s.angular_velocity_radps;
  }
  return l;
}

}  // namespace fovea
