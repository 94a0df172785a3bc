#include "response/response.hpp"

#include <algorithm>

#include "core/containers.hpp"

namespace fovea {

Response::Response(const ResponseSettings& settings, const Aabb& box, double time_step_s)
    : settings_(settings), walls_(box_walls(box)) {
  // Scratch sized for a busy collision up front, so that frames rarely grow it.
  const auto max_pairs = static_cast<std::size_t>(settings.max_pairs_per_collision);
  pairs_.reserve(max_pairs + 256);
  candidates_.reserve(max_pairs + 256);
  hit_stack_.reserve(1024);
  node_stack_.reserve(256);
  solver_settings_.kind = settings.solver;
  solver_settings_.iterations = settings.iterations;
  solver_settings_.correction_fraction = settings.correction_fraction;
  solver_settings_.slop_m = settings.slop_m;
  // A body resting under gravity approaches its support at |g| dt each frame; with margin,
  // that must never count as a bounce.
  solver_settings_.rest_speed_mps =
      std::max(settings.rest_speed_mps, 2 * glm::length(settings.gravity_mps2) * time_step_s);
}

const Response::CachedManifold* Response::cached(std::uint32_t body_a, std::uint32_t body_b) const {
  const std::uint64_t key = key_of(cache_id(body_a), cache_id(body_b));
  const auto it = std::lower_bound(cache_.begin(), cache_.end(), key,
                                   [](const CachedManifold& c, std::uint64_t k) { return c.key < k; });
  return it == cache_.end() || it->key != key ? nullptr : &*it;
}

void Response::add_manifold(std::uint32_t body_a, std::uint32_t body_b) {
  const CachedManifold* last = cached(body_a, body_b);
  std::array<std::uint64_t, ContactManifold::kMaxPoints> kept{};
  std::size_t kept_count = 0;
  if (last != nullptr)
    for (int k = 0; k < last->point_count; ++k) kept[kept_count++] = last->points[static_cast<std::size_t>(k)].feature;
  ContactManifold m = combine_contacts(candidates_, body_a, body_b, std::span(kept.data(), kept_count));
  // Last frame's impulses at the same features: the warm start. What last frame's points
  // that are gone carried is shared evenly by the new points, so a contact keeps carrying
  // its load (in a pile, the weight above) while its points hop between leaf spheres.
  if (last != nullptr) {
    std::array<bool, ContactManifold::kMaxPoints> matched{};
    std::array<bool, ContactManifold::kMaxPoints> used{};
    int unmatched = 0;
    for (int i = 0; i < m.point_count; ++i) {
      ContactPoint& p = m.points[static_cast<std::size_t>(i)];
      for (int k = 0; k < last->point_count; ++k) {
        const CachedPoint& c = last->points[static_cast<std::size_t>(k)];
        if (c.feature != p.feature) continue;
        p.normal_impulse_ns = c.normal_impulse_ns;
        p.friction_impulse_ns = c.friction_impulse_ns;
        matched[static_cast<std::size_t>(i)] = used[static_cast<std::size_t>(k)] = true;
        break;
      }
      unmatched += matched[static_cast<std::size_t>(i)] ? 0 : 1;
    }
    double orphan_normal = 0;
    Vec3 orphan_friction(0.0);
    for (int k = 0; k < last->point_count; ++k)
      if (!used[static_cast<std::size_t>(k)]) {
        orphan_normal += last->points[static_cast<std::size_t>(k)].normal_impulse_ns;
        orphan_friction += last->points[static_cast<std::size_t>(k)].friction_impulse_ns;
      }
    if (unmatched > 0 && orphan_normal > 0)
      for (int i = 0; i < m.point_count; ++i)
        if (!matched[static_cast<std::size_t>(i)]) {
          m.points[static_cast<std::size_t>(i)].normal_impulse_ns = orphan_normal / unmatched;
          m.points[static_cast<std::size_t>(i)].friction_impulse_ns = orphan_friction / static_cast<double>(unmatched);
        }
  }
  manifolds_.push_back(m);
}

ResponseStats Response::apply(NarrowPhase& narrowphase, std::span<const Entity> entities,
                              std::span<EntityState> states, std::span<Vec3> correction_m) {
  ResponseStats stats;
  const auto entity_count = static_cast<std::uint32_t>(entities.size());
  entity_count_ = entity_count;

  // The bodies as the solver sees them: entities, then the six walls.
  bodies_.resize(entities.size() + walls_.size());
  rotation_.resize(entities.size());
  for (std::uint32_t i = 0; i < entity_count; ++i) {
    const Entity& e = entities[i];
    const EntityState& s = states[i];
    RigidBody& b = bodies_[i];
    b.position_m = s.position_m;
    b.linear_velocity_mps = s.linear_velocity_mps;
    b.angular_velocity_radps = s.angular_velocity_radps;
    b.inverse_mass_per_kg = e.inverse_mass_per_kg;
    const Mat3& r = rotation_[i] = glm::mat3_cast(s.orientation);
    const Mat3 r_t = glm::transpose(r);
    b.inverse_inertia_world = r * e.inverse_inertia_body * r_t;  // zero for static entities
    b.mass_kg = e.is_static ? 0.0 : e.mass_kg;
    b.inertia_world = e.is_static ? Mat3(0.0) : r * e.inertia_body_kgm2 * r_t;
    b.restitution = e.material.restitution;
    b.friction = e.material.friction;
  }
  for (std::size_t w = 0; w < walls_.size(); ++w) {
    RigidBody& b = bodies_[entities.size() + w];
    b = RigidBody{};
    b.restitution = settings_.walls.restitution;
    b.friction = settings_.walls.friction;
  }

  manifolds_.clear();
  reserve_geometric(manifolds_, narrowphase.size() + entities.size());
  // Entity pairs: one manifold per collision treated as colliding (004 section 3.5).
  if (settings_.entity_contacts) {
    const auto max_pairs = static_cast<std::size_t>(settings_.max_pairs_per_collision);
    for (const std::uint32_t slot : narrowphase.order()) {
      const Collision& c = narrowphase.collision(slot);
      if (c.status != CollisionStatus::colliding) continue;
      if (entities[c.a].is_static && entities[c.b].is_static) continue;
      stats.contact_tests += narrowphase.contact_pairs(slot, max_pairs, hit_stack_, pairs_);
      const CollisionModel& ma = narrowphase.model(c.model_a);
      const CollisionModel& mb = narrowphase.model(c.model_b);
      const EntityState& sa = states[c.a];
      const EntityState& sb = states[c.b];
      const Mat3& ra = rotation_[c.a];
      const Mat3& rb = rotation_[c.b];
      candidates_.clear();
      for (const SpherePair& p : pairs_) {
        SpherePairContact pair;
        pair.centre_a_m = sa.position_m + ra * ma.spheres[p.node_a].centre_m;
        pair.radius_a_m = ma.spheres[p.node_a].radius_m;
        pair.centre_b_m = sb.position_m + rb * mb.spheres[p.node_b].centre_m;
        pair.radius_b_m = mb.spheres[p.node_b].radius_m;
        pair.feature = key_of(p.node_a, p.node_b);
        candidates_.push_back(contact_of(pair));
      }
      add_manifold(c.a, c.b);
    }
  }
  // The walls, for every dynamic entity.
  for (std::uint32_t i = 0; i < entity_count; ++i) {
    if (entities[i].is_static) continue;
    const GrowableModel model = narrowphase.growable(entities[i].model);
    for (std::uint32_t w = 0; w < walls_.size(); ++w) {
      candidates_.clear();
      plane_contacts(model, states[i], walls_[w], node_stack_, candidates_);
      if (candidates_.empty()) continue;
      add_manifold(entity_count + w, i);
      ++stats.wall_contacts;
    }
  }
  stats.contacts = static_cast<std::int64_t>(manifolds_.size());

  // One solve over all of them, from the same state (004 section 4).
  std::vector<Vec3>& corrections = correction_scratch_;
  corrections.assign(bodies_.size(), Vec3(0.0));
  const ImpulseSolverStats solved = solver_.solve(bodies_, manifolds_, solver_settings_, corrections);
  stats.contact_points = solved.contact_points;
  stats.energy_change_j = solved.energy_change_j;
  stats.bounces_limited = solved.bounces_limited;
  stats.compressions_limited = solved.compressions_limited;
  for (std::uint32_t i = 0; i < entity_count; ++i) {
    if (entities[i].is_static) continue;
    states[i].linear_velocity_mps = bodies_[i].linear_velocity_mps;
    states[i].angular_velocity_radps = bodies_[i].angular_velocity_radps;
    correction_m[i] += corrections[i];
  }

  // This frame's impulses, by body pair and feature, for the next frame's warm start.
  // Both buffers (they swap every frame) grow with the manifolds' own bound, together.
  cache_next_.clear();
  reserve_geometric(cache_next_, manifolds_.capacity());
  reserve_geometric(cache_, manifolds_.capacity());
  for (const ContactManifold& m : manifolds_) {
    CachedManifold cached;
    cached.key = key_of(cache_id(m.body_a), cache_id(m.body_b));
    cached.point_count = m.point_count;
    for (int k = 0; k < m.point_count; ++k) {
      const ContactPoint& p = m.points[static_cast<std::size_t>(k)];
      cached.points[static_cast<std::size_t>(k)] = {p.feature, p.normal_impulse_ns, p.friction_impulse_ns};
    }
    cache_next_.push_back(cached);
  }
  std::sort(cache_next_.begin(), cache_next_.end(),
            [](const CachedManifold& x, const CachedManifold& y) { return x.key < y.key; });
  cache_.swap(cache_next_);
  return stats;
}

}  // namespace fovea
