#include "response/impulse_solver.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include "core/containers.hpp"

namespace fovea {
namespace {

/// Two unit vectors completing unit `n` to a right-handed orthonormal basis (Frisvad's
/// construction with the fix of Duff et al. 2017 for n.z near -1).
void tangents_of(const Vec3& n, Vec3& t1, Vec3& t2) {
  const double sign = std::copysign(1.0, n.z);
  const double a = -1.0 / (sign + n.z);
  const double b = n.x * n.y * a;
  t1 = Vec3(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
  t2 = Vec3(b, sign + n.y * n.y * a, -n.y);
}


Vec3 velocity_at(const RigidBody& body, const Vec3& r) {
  return body.linear_velocity_mps + glm::cross(body.angular_velocity_radps, r);
}

/// 1 / (m_a^-1 + m_b^-1 + (I_a^-1 (r_a x d)) . (r_a x d) + the same for b): the mass the
/// contact point has along direction d.
double effective_mass(const RigidBody& a, const Vec3& r_a, const RigidBody& b, const Vec3& r_b, const Vec3& d) {
  const Vec3 ra_d = glm::cross(r_a, d);
  const Vec3 rb_d = glm::cross(r_b, d);
  const double k = a.inverse_mass_per_kg + glm::dot(a.inverse_inertia_world * ra_d, ra_d) + b.inverse_mass_per_kg +
                   glm::dot(b.inverse_inertia_world * rb_d, rb_d);
  return k > 0 ? 1.0 / k : 0.0;
}

/// `body` as a manifold sees it under mass splitting: k times lighter to move.
RigidBody split(const RigidBody& body, int k) {
  RigidBody b = body;
  b.inverse_mass_per_kg *= k;
  b.inverse_inertia_world *= static_cast<double>(k);
  return b;
}

void apply_impulse(RigidBody& a, RigidBody& b, const Vec3& r_a, const Vec3& r_b, const Vec3& impulse) {
  a.linear_velocity_mps -= impulse * a.inverse_mass_per_kg;
  a.angular_velocity_radps -= a.inverse_inertia_world * glm::cross(r_a, impulse);
  b.linear_velocity_mps += impulse * b.inverse_mass_per_kg;
  b.angular_velocity_radps += b.inverse_inertia_world * glm::cross(r_b, impulse);
}

/// (t1, t2) scaled back onto the Coulomb cone's edge when longer than `limit`.
void clamp_to_cone(double& t1, double& t2, double limit) {
  const double magnitude = std::sqrt(t1 * t1 + t2 * t2);
  if (magnitude <= limit) return;
  const double scale = magnitude > 0 ? limit / magnitude : 0.0;
  t1 *= scale;
  t2 *= scale;
}

/// Whether two doubles (or vectors) are the same bits: -0 and +0 differ, a NaN equals itself.
bool same_bits(double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); }
bool same_bits(const Vec3& x, const Vec3& y) { return same_bits(x.x, y.x) && same_bits(x.y, y.y) && same_bits(x.z, y.z); }

/// One contact point's step: the accumulated normal impulse moved towards stopping the
/// approach (never below 0: contacts push, never pull), the friction impulse towards
/// stopping the slide within the Coulomb cone, and the change applied to `a` and `b`.
/// Returns whether the step changed any bit of the point's accumulated impulses or of the
/// two bodies' velocities: when no point of a pass did, the next pass would repeat it.
bool solve_point(ImpulseRow& row, const Vec3& normal, RigidBody& a, RigidBody& b) {
  const Vec3 v = velocity_at(b, row.r_b) - velocity_at(a, row.r_a);
  const double old_n = row.lambda_n;
  row.lambda_n = std::max(0.0, old_n - row.mass_n * glm::dot(v, normal));
  const double old_t1 = row.lambda_t1, old_t2 = row.lambda_t2;
  double t1 = old_t1 - row.mass_t1 * glm::dot(v, row.t1);
  double t2 = old_t2 - row.mass_t2 * glm::dot(v, row.t2);
  clamp_to_cone(t1, t2, row.friction * row.lambda_n);
  row.lambda_t1 = t1;
  row.lambda_t2 = t2;
  const Vec3 impulse = normal * (row.lambda_n - old_n) + row.t1 * (t1 - old_t1) + row.t2 * (t2 - old_t2);
  const bool impulses_changed = !same_bits(row.lambda_n, old_n) || !same_bits(t1, old_t1) || !same_bits(t2, old_t2);
  if (impulses_changed) {
    apply_impulse(a, b, row.r_a, row.r_b, impulse);
    return true;
  }
  // Only zeros to apply; they still turn a velocity component that is a zero of the other
  // sign into +0 or -0, which the next pass would see. Applied as always, and counted as a
  // change when they did.
  const Vec3 va = a.linear_velocity_mps, wa = a.angular_velocity_radps;
  const Vec3 vb = b.linear_velocity_mps, wb = b.angular_velocity_radps;
  apply_impulse(a, b, row.r_a, row.r_b, impulse);
  return !same_bits(va, a.linear_velocity_mps) || !same_bits(wa, a.angular_velocity_radps) ||
         !same_bits(vb, b.linear_velocity_mps) || !same_bits(wb, b.angular_velocity_radps);
}

double kinetic_energy_of(const RigidBody& b, const Vec3& v, const Vec3& w) {
  return 0.5 * b.mass_kg * glm::dot(v, v) + 0.5 * glm::dot(w, b.inertia_world * w);
}

/// v . M d for a body: the cross term of its kinetic energy at v + s d.
double energy_cross_term(const RigidBody& b, const Vec3& v, const Vec3& w, const Vec3& dv, const Vec3& dw) {
  return b.mass_kg * glm::dot(v, dv) + glm::dot(w, b.inertia_world * dw);
}

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];  // path halving
    i = parent[i];
  }
  return i;
}

}  // namespace

ImpulseSolverStats ImpulseSolver::solve(std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                                        const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m) {
  assert(position_correction_m.size() == bodies.size());
  ImpulseSolverStats stats;
  // The stages of Box2D's contact solver (src/contact_solver.h: prepare, warm start, solve,
  // apply restitution, store impulses), each over every manifold before the next begins.
  prepare(bodies, manifolds, settings, stats);
  if (stats.warm_started_points > 0) warm_start(bodies, manifolds);
  solve_compression(bodies, manifolds, settings);  // phase 1
  apply_restitution(bodies, manifolds, stats);     // phase 2
  store_impulses(manifolds);
  correct_positions(bodies, manifolds, settings, position_correction_m);
  return stats;
}

bool ImpulseSolver::in_island(std::span<const RigidBody> bodies, std::uint32_t i) const {
  return manifolds_on_[i] > 0 && bodies[i].inverse_mass_per_kg > 0;
}

void ImpulseSolver::find_islands(std::span<const RigidBody> bodies, std::span<const ContactManifold> manifolds) {
  const auto is_dynamic = [&](std::uint32_t i) { return bodies[i].inverse_mass_per_kg > 0; };
  // How many manifolds touch each body (its mass is split that many ways), and the islands:
  // dynamic bodies linked through contacts (static bodies link nothing, they do not move).
  manifolds_on_.assign(bodies.size(), 0);
  island_of_.resize(bodies.size());
  for (std::uint32_t i = 0; i < bodies.size(); ++i) island_of_[i] = i;
  for (const ContactManifold& m : manifolds) {
    assert(m.body_a < bodies.size() && m.body_b < bodies.size() && m.body_a != m.body_b);
    ++manifolds_on_[m.body_a];
    ++manifolds_on_[m.body_b];
    if (is_dynamic(m.body_a) && is_dynamic(m.body_b)) {
      const std::uint32_t ra = find_root(island_of_, m.body_a), rb = find_root(island_of_, m.body_b);
      // The smaller index becomes the root: the islands do not depend on the manifolds' order.
      if (ra != rb) island_of_[std::max(ra, rb)] = std::min(ra, rb);
    }
  }
  islands_.resize(bodies.size());
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (!in_island(bodies, i)) continue;
    island_of_[i] = find_root(island_of_, i);
    if (island_of_[i] == i) islands_[i] = IslandEnergy{};
  }
  // The velocities before any impulse, and each island's kinetic energy then.
  v0_.resize(bodies.size());
  w0_.resize(bodies.size());
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (!in_island(bodies, i)) continue;
    v0_[i] = bodies[i].linear_velocity_mps;
    w0_[i] = bodies[i].angular_velocity_radps;
    islands_[island_of_[i]].before_j += kinetic_energy_of(bodies[i], v0_[i], w0_[i]);
  }
}

void ImpulseSolver::prepare(std::span<const RigidBody> bodies, std::span<const ContactManifold> manifolds,
                            const ImpulseSolverSettings& settings, ImpulseSolverStats& stats) {
  find_islands(bodies, manifolds);
  dv_.resize(bodies.size());
  dw_.resize(bodies.size());
  // Jacobi splits a body's mass among its manifolds; Gauss-Seidel needs no splitting.
  const bool jacobi = settings.kind == ImpulseSolverKind::jacobi;
  const auto split_of = [&](std::uint32_t i) { return jacobi ? manifolds_on_[i] : 1; };
  // Room for a point per body at least, so that the first frames, with their few contacts,
  // do not leave the lists to grow one doubling at a time later on.
  rows_.clear();
  reserve_geometric(rows_, std::max(manifolds.size() * ContactManifold::kMaxPoints, bodies.size()));
  first_row_.clear();
  reserve_geometric(first_row_, std::max(manifolds.size(), bodies.size()) + 1);
  for (const ContactManifold& m : manifolds) {
    first_row_.push_back(static_cast<std::uint32_t>(rows_.size()));
    const RigidBody a = split(bodies[m.body_a], split_of(m.body_a));
    const RigidBody b = split(bodies[m.body_b], split_of(m.body_b));
    const double restitution = std::max(a.restitution, b.restitution);
    const double friction = std::sqrt(a.friction * b.friction);
    Vec3 tangent_1, tangent_2;  // the manifold's one normal gives every point the same tangents
    tangents_of(m.normal, tangent_1, tangent_2);
    for (int i = 0; i < m.point_count; ++i) {
      const ContactPoint& point = m.points[static_cast<std::size_t>(i)];
      ImpulseRow row;
      row.r_a = point.point_m - a.position_m;
      row.r_b = point.point_m - b.position_m;
      row.t1 = tangent_1;
      row.t2 = tangent_2;
      row.mass_n = effective_mass(a, row.r_a, b, row.r_b, m.normal);
      row.mass_t1 = effective_mass(a, row.r_a, b, row.r_b, row.t1);
      row.mass_t2 = effective_mass(a, row.r_a, b, row.r_b, row.t2);
      row.friction = friction;
      const double vn = glm::dot(velocity_at(b, row.r_b) - velocity_at(a, row.r_a), m.normal);
      stats.approaching_points += vn < 0 ? 1 : 0;
      // A fast approach bounces; a slow one (a body settling on its support) does not.
      if (vn < -settings.rest_speed_mps) {
        row.restitution = restitution;
        ++stats.bouncing_points;
      }
      // A resting contact (neither bouncing nor flying apart) starts from last frame's
      // impulse at the same feature: in a pile, the weight of everything above.
      const bool resting = std::abs(vn) <= settings.rest_speed_mps;
      if (resting && point.normal_impulse_ns > 0) {
        row.lambda_n = point.normal_impulse_ns;
        // Last frame's friction, in this frame's tangent basis, inside this frame's cone.
        double t1 = glm::dot(point.friction_impulse_ns, row.t1);
        double t2 = glm::dot(point.friction_impulse_ns, row.t2);
        clamp_to_cone(t1, t2, friction * row.lambda_n);
        row.lambda_t1 = t1;
        row.lambda_t2 = t2;
        ++stats.warm_started_points;
      }
      rows_.push_back(row);
    }
  }
  first_row_.push_back(static_cast<std::uint32_t>(rows_.size()));
  stats.contact_points = static_cast<std::int64_t>(rows_.size());
}

void ImpulseSolver::warm_start(std::span<RigidBody> bodies, std::span<const ContactManifold> manifolds) const {
  for (std::size_t mi = 0; mi < manifolds.size(); ++mi) {
    const ContactManifold& m = manifolds[mi];
    for (std::uint32_t r = first_row_[mi]; r < first_row_[mi + 1]; ++r) {
      const ImpulseRow& row = rows_[r];
      if (row.lambda_n == 0) continue;
      apply_impulse(bodies[m.body_a], bodies[m.body_b], row.r_a, row.r_b,
                    m.normal * row.lambda_n + row.t1 * row.lambda_t1 + row.t2 * row.lambda_t2);
    }
  }
}

void ImpulseSolver::solve_compression(std::span<RigidBody> bodies, std::span<const ContactManifold> manifolds,
                                      const ImpulseSolverSettings& settings) {
  const bool jacobi = settings.kind == ImpulseSolverKind::jacobi;
  for (int pass = 0; pass < settings.iterations; ++pass) {
    if (!jacobi) {
      // Gauss-Seidel: each point in turn, on the solver's copies of the bodies. A pass that
      // changed no bit of any impulse or velocity leaves the state the next pass starts from
      // as it found it, so every later pass would repeat it: the passes stop there, with the
      // bits the remaining passes would have left.
      bool changed = false;
      for (std::size_t mi = 0; mi < manifolds.size(); ++mi) {
        const ContactManifold& m = manifolds[mi];
        for (std::uint32_t r = first_row_[mi]; r < first_row_[mi + 1]; ++r)
          changed |= solve_point(rows_[r], m.normal, bodies[m.body_a], bodies[m.body_b]);
      }
      if (!changed) break;
      continue;
    }
    // Jacobi: every manifold from the same velocities, its points in turn on its own split
    // copies of its two bodies, the copies' changes then averaged into the bodies.
    std::fill(dv_.begin(), dv_.end(), Vec3(0.0));
    std::fill(dw_.begin(), dw_.end(), Vec3(0.0));
    for (std::size_t mi = 0; mi < manifolds.size(); ++mi) {
      const ContactManifold& m = manifolds[mi];
      RigidBody a = split(bodies[m.body_a], manifolds_on_[m.body_a]);
      RigidBody b = split(bodies[m.body_b], manifolds_on_[m.body_b]);
      for (std::uint32_t r = first_row_[mi]; r < first_row_[mi + 1]; ++r) solve_point(rows_[r], m.normal, a, b);
      // A body's new velocity is its own plus the mean of its copies' changes: the copies'
      // masses were split k ways, so the mean is the body's true mass taking the sum of the
      // impulses.
      const double ka = manifolds_on_[m.body_a], kb = manifolds_on_[m.body_b];
      dv_[m.body_a] += (a.linear_velocity_mps - bodies[m.body_a].linear_velocity_mps) / ka;
      dw_[m.body_a] += (a.angular_velocity_radps - bodies[m.body_a].angular_velocity_radps) / ka;
      dv_[m.body_b] += (b.linear_velocity_mps - bodies[m.body_b].linear_velocity_mps) / kb;
      dw_[m.body_b] += (b.angular_velocity_radps - bodies[m.body_b].angular_velocity_radps) / kb;
    }
    // ...then applied together (004 section 4).
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (manifolds_on_[i] == 0) continue;
      bodies[i].linear_velocity_mps += dv_[i];
      bodies[i].angular_velocity_radps += dw_[i];
    }
  }
}

void ImpulseSolver::apply_restitution(std::span<RigidBody> bodies, std::span<const ContactManifold> manifolds,
                                      ImpulseSolverStats& stats) {
  // e times each bouncing point's compression impulse, all at once (dv_, dw_ now hold the
  // bounce's change of each body).
  std::fill(dv_.begin(), dv_.end(), Vec3(0.0));
  std::fill(dw_.begin(), dw_.end(), Vec3(0.0));
  for (std::size_t mi = 0; mi < manifolds.size(); ++mi) {
    const ContactManifold& m = manifolds[mi];
    const RigidBody& a = bodies[m.body_a];
    const RigidBody& b = bodies[m.body_b];
    for (std::uint32_t r = first_row_[mi]; r < first_row_[mi + 1]; ++r) {
      const ImpulseRow& row = rows_[r];
      if (row.restitution == 0 || row.lambda_n == 0) continue;
      const Vec3 impulse = m.normal * (row.restitution * row.lambda_n);
      dv_[m.body_a] -= impulse * a.inverse_mass_per_kg;
      dw_[m.body_a] -= a.inverse_inertia_world * glm::cross(row.r_a, impulse);
      dv_[m.body_b] += impulse * b.inverse_mass_per_kg;
      dw_[m.body_b] += b.inverse_inertia_world * glm::cross(row.r_b, impulse);
    }
  }
  // Each island's kinetic energy at the bounce scaled by s is
  // E(s) = E_c + s sum v_c . M d + s^2 sum d . M d / 2; the largest s <= 1 with
  // E(s) <= E_before is kept.
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (!in_island(bodies, i)) continue;
    IslandEnergy& island = islands_[island_of_[i]];
    const RigidBody& body = bodies[i];
    island.compressed_j += kinetic_energy_of(body, body.linear_velocity_mps, body.angular_velocity_radps);
    island.linear_j += energy_cross_term(body, body.linear_velocity_mps, body.angular_velocity_radps, dv_[i], dw_[i]);
    island.quadratic_j += kinetic_energy_of(body, dv_[i], dw_[i]);
  }
  bool any_compression_limited = false;
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (!in_island(bodies, i) || island_of_[i] != i) continue;
    IslandEnergy& island = islands_[i];
    const double room_j = island.before_j - island.compressed_j;  // what the bounce may give back
    const double a = island.quadratic_j, b = island.linear_j;
    if (room_j < 0) {
      // The compression passes stopped short of converging and their impulses gained
      // energy (rare: a warm start on a contact that began to separate). No bounce, and
      // the compression itself is scaled back below.
      island.bounce_scale = 0;
      island.compression_scale = -1;  // to be found
      any_compression_limited = true;
      ++stats.compressions_limited;
      continue;
    }
    if (a + b <= room_j) {
      island.bounce_scale = 1;
    } else {
      // The positive root of a s^2 + b s - room = 0.
      island.bounce_scale = a > 0 ? std::clamp((-b + std::sqrt(b * b + 4 * a * room_j)) / (2 * a), 0.0, 1.0) : 0.0;
      ++stats.bounces_limited;
    }
    const double scale = island.bounce_scale;
    stats.energy_change_j += island.compressed_j + scale * b + scale * scale * a - island.before_j;
  }
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (!in_island(bodies, i)) continue;
    const double scale = islands_[island_of_[i]].bounce_scale;
    bodies[i].linear_velocity_mps += scale * dv_[i];
    bodies[i].angular_velocity_radps += scale * dw_[i];
  }
  if (any_compression_limited) limit_compression(bodies, stats);
}

void ImpulseSolver::store_impulses(std::span<ContactManifold> manifolds) const {
  for (std::size_t mi = 0; mi < manifolds.size(); ++mi) {
    ContactManifold& m = manifolds[mi];
    for (std::uint32_t r = first_row_[mi]; r < first_row_[mi + 1]; ++r) {
      const ImpulseRow& row = rows_[r];
      ContactPoint& point = m.points[r - first_row_[mi]];
      point.normal_impulse_ns = row.lambda_n;
      point.friction_impulse_ns = row.t1 * row.lambda_t1 + row.t2 * row.lambda_t2;
    }
  }
}

void ImpulseSolver::correct_positions(std::span<const RigidBody> bodies, std::span<const ContactManifold> manifolds,
                                      const ImpulseSolverSettings& settings,
                                      std::span<Vec3> position_correction_m) const {
  // Each point's share by inverse mass, averaged over the manifold's points, divided among
  // the body's manifolds so that several contacts pushing the same way do not add up to
  // more than the overlap. Manifolds and points in order, as the rows: the sums are the same
  // to the bit whatever stage computes them.
  for (const ContactManifold& m : manifolds) {
    for (int i = 0; i < m.point_count; ++i) {
      const ContactPoint& point = m.points[static_cast<std::size_t>(i)];
      const double overlap = point.depth_m - settings.slop_m;
      const double wa = bodies[m.body_a].inverse_mass_per_kg, wb = bodies[m.body_b].inverse_mass_per_kg;
      if (overlap > 0 && wa + wb > 0) {
        const double move = settings.correction_fraction * overlap / (wa + wb) / m.point_count;
        position_correction_m[m.body_a] -= m.normal * (move * wa / manifolds_on_[m.body_a]);
        position_correction_m[m.body_b] += m.normal * (move * wb / manifolds_on_[m.body_b]);
      }
    }
  }
}

void ImpulseSolver::limit_compression(std::span<RigidBody> bodies, ImpulseSolverStats& stats) {
  // For an island whose compression gained energy: its velocities go back along the line
  // from where they started, v(t) = v_0 + t (v_c - v_0). E(t) = E_0 + t sum v_0 . M D +
  // t^2 sum D . M D / 2 with D = v_c - v_0 is E_0 at t = 0 and above it at t = 1, so the
  // largest t with E(t) <= E_0 is the other root, -2 (sum v_0 . M D) / (sum D . M D).
  // Every impulse was equal and opposite, so momentum is kept at any t.
  const auto in_limited_island = [&](std::uint32_t i) {
    return manifolds_on_[i] > 0 && bodies[i].inverse_mass_per_kg > 0 &&
           islands_[island_of_[i]].compression_scale < 0;
  };
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (!in_limited_island(i)) continue;
    IslandEnergy& island = islands_[island_of_[i]];
    const Vec3 dv = bodies[i].linear_velocity_mps - v0_[i], dw = bodies[i].angular_velocity_radps - w0_[i];
    island.back_linear_j += energy_cross_term(bodies[i], v0_[i], w0_[i], dv, dw);
    island.back_quadratic_j += kinetic_energy_of(bodies[i], dv, dw);
  }
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (!in_limited_island(i) || island_of_[i] != i) continue;
    IslandEnergy& island = islands_[i];
    const double t = island.back_quadratic_j > 0 ? -island.back_linear_j / island.back_quadratic_j : 0.0;
    // Just inside the root, so rounding cannot leave the energy a hair above E_0.
    island.compression_scale = std::clamp(t * (1 - 1e-9), 0.0, 1.0);
    stats.energy_change_j += island.compression_scale * island.back_linear_j +
                             island.compression_scale * island.compression_scale * island.back_quadratic_j;
  }
  for (std::uint32_t i = 0; i < bodies.size(); ++i) {
    if (manifolds_on_[i] == 0 || bodies[i].inverse_mass_per_kg <= 0) continue;
    const IslandEnergy& island = islands_[island_of_[i]];
    if (island.compression_scale >= 1) continue;
    const double t = island.compression_scale;
    bodies[i].linear_velocity_mps = v0_[i] + t * (bodies[i].linear_velocity_mps - v0_[i]);
    bodies[i].angular_velocity_radps = w0_[i] + t * (bodies[i].angular_velocity_radps - w0_[i]);
  }
}

ImpulseSolverStats solve_contacts(std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                                  const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m) {
  ImpulseSolver solver;
  return solver.solve(bodies, manifolds, settings, position_correction_m);
}

}  // namespace fovea
