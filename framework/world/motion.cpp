#include "world/motion.hpp"

#include <cassert>
#include <cmath>

#include <glm/gtc/quaternion.hpp>

#include "world/mass_properties.hpp"

namespace fovea {

namespace {

/// R M R^T v: a body-frame tensor M (inertia or its inverse) applied to a world vector,
/// rotating v into the body frame and back with the quaternion (cheaper than building R).
Vec3 apply_body_tensor(const Mat3& body_tensor, const Quat& orientation, const Vec3& v) {
  return orientation * (body_tensor * (glm::conjugate(orientation) * v));
}

/// q turned by angular velocity w for dt: the exact rotation by |w| dt about w (the
/// quaternion exponential exp(h) = (cos |h|, sin |h| / |h| h), h = w dt / 2), renormalised
/// against rounding. The linearised form q + dt/2 (0, w) q turns by 2 atan(|w| dt / 2)
/// instead, 7 % too little at |w| dt = 1.
Quat advance_orientation(const Quat& q, const Vec3& w, double dt_s) {
  const Vec3 h = (0.5 * dt_s) * w;
  const double h2 = glm::dot(h, h);
  double cos_h, sinc_h;  // cos |h| and sin |h| / |h|
  if (h2 < 0.01) {
    // |h| < 0.1 rad, the usual case (a turn under 0.2 rad per step): Taylor series whose
    // first omitted terms, h^10 / 10! and h^10 / 11!, are below double rounding. No sqrt, no
    // libm: cheaper, and the same bits with any C library.
    // Horner form in h^2 with the coefficients as constants (multiplications, no divisions).
    constexpr double c2 = -1.0 / 2, c4 = 1.0 / 24, c6 = -1.0 / 720, c8 = 1.0 / 40320;
    constexpr double s2 = -1.0 / 6, s4 = 1.0 / 120, s6 = -1.0 / 5040, s8 = 1.0 / 362880;
    cos_h = 1 + h2 * (c2 + h2 * (c4 + h2 * (c6 + h2 * c8)));
    sinc_h = 1 + h2 * (s2 + h2 * (s4 + h2 * (s6 + h2 * s8)));
  } else {
    const double angle = std::sqrt(h2);
    cos_h = std::cos(angle);
    sinc_h = std::sin(angle) / angle;
  }
  return glm::normalize(Quat(cos_h, sinc_h * h.x, sinc_h * h.y, sinc_h * h.z) * q);
}

}  // namespace

void integrate_motion(std::span<EntityState> states, std::span<const Entity> entities, const Vec3& gravity_mps2,
                      double dt_s) {
  for (std::size_t i = 0; i < states.size(); ++i) {
    const Entity& e = entities[i];
    if (e.is_static) continue;
    EntityState& s = states[i];
    // The move first, with the velocity the last response left; then gravity, which this
    // frame's response sees before it moves anything (see motion.hpp).
    s.position_m += s.linear_velocity_mps * dt_s;
    s.linear_velocity_mps += gravity_mps2 * dt_s;

    const Vec3 w = s.angular_velocity_radps;
    if (w == Vec3(0.0)) continue;
    if (e.isotropic_inertia) {
      // I w with I a multiple of the identity at any orientation: L keeps w itself, so the
      // torque-free turn is by w for the whole step, exactly (no midpoint needed), and w stays.
      assert(is_isotropic(e.inertia_body_kgm2));
      s.orientation = advance_orientation(s.orientation, w, dt_s);
      continue;
    }
    // Torque-free rotation keeps the world angular momentum L. A step with the start-of-step
    // w alone lets a tumbling body's energy drift by percents over seconds; the midpoint
    // rule below (w re-evaluated from L at the half-step orientation) is second order and
    // keeps the drift orders of magnitude smaller for two more matrix products.
    const Vec3 momentum = apply_body_tensor(e.inertia_body_kgm2, s.orientation, w);
    const Quat half = advance_orientation(s.orientation, w, 0.5 * dt_s);
    const Vec3 w_half = apply_body_tensor(e.inverse_inertia_body, half, momentum);
    s.orientation = advance_orientation(s.orientation, w_half, dt_s);
    s.angular_velocity_radps = apply_body_tensor(e.inverse_inertia_body, s.orientation, momentum);
  }
}

double kinetic_energy_j(std::span<const EntityState> states, std::span<const Entity> entities) {
  double energy = 0;
  for (std::size_t i = 0; i < states.size(); ++i) {
    const Entity& e = entities[i];
    if (e.is_static) continue;
    const EntityState& s = states[i];
    // w . (R I R^T w) = (R^T w) . I (R^T w): the rotational part in the body frame.
    const Vec3 w_body = glm::conjugate(s.orientation) * s.angular_velocity_radps;
    energy += 0.5 * e.mass_kg * glm::dot(s.linear_velocity_mps, s.linear_velocity_mps) +
              0.5 * glm::dot(w_body, e.inertia_body_kgm2 * w_body);
  }
  return energy;
}

double potential_energy_j(std::span<const EntityState> states, std::span<const Entity> entities,
                          const Vec3& gravity_mps2) {
  double energy = 0;
  for (std::size_t i = 0; i < states.size(); ++i)
    if (!entities[i].is_static) energy -= entities[i].mass_kg * glm::dot(gravity_mps2, states[i].position_m);
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
         apply_body_tensor(e.inertia_body_kgm2, s.orientation, s.angular_velocity_radps);
  }
  return l;
}

}  // namespace fovea
