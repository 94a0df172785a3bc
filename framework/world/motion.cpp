#include "world/motion.hpp"

#include <glm/gtc/quaternion.hpp>

namespace fovea {

Mat3 world_inertia(const Entity& entity, const Quat& orientation) {
  const Mat3 r = glm::mat3_cast(orientation);
  return r * entity.inertia_body_kgm2 * glm::transpose(r);
}

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
    const Mat3 r_old = glm::mat3_cast(s.orientation);
    const Vec3 momentum = r_old * (e.inertia_body_kgm2 * (glm::transpose(r_old) * w));
    s.orientation = glm::normalize(s.orientation + (0.5 * dt_s) * (Quat(0.0, w.x, w.y, w.z) * s.orientation));
    const Mat3 r_new = glm::mat3_cast(s.orientation);
    s.angular_velocity_radps = r_new * (e.inverse_inertia_body * (glm::transpose(r_new) * momentum));
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
