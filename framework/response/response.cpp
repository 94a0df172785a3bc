#include "response/response.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/containers.hpp"
#include "core/thread_pool.hpp"
#include "world/mass_properties.hpp"

namespace fovea {

Response::Response(const ResponseSettings& settings, const Aabb& box, double time_step_s)
    : settings_(settings), walls_(box_walls(box)) {
  // Scratch sized for a busy collision up front, so that frames rarely grow it.
  const auto max_pairs = static_cast<std::size_t>(settings.max_pairs_per_collision);
  candidates_.reserve(max_pairs + 256);
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

ContactManifold Response::manifold_of(std::uint32_t body_a, std::uint32_t body_b,
                                     std::span<const ContactCandidate> candidates) const {
  const CachedManifold* last = cached(body_a, body_b);
  std::array<std::uint64_t, ContactManifold::kMaxPoints> kept{};
  std::size_t kept_count = 0;
  if (last != nullptr)
    for (int k = 0; k < last->point_count; ++k) kept[kept_count++] = last->points[static_cast<std::size_t>(k)].feature;
  ContactManifold m = combine_contacts(candidates, body_a, body_b, std::span(kept.data(), kept_count));
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
  return m;
}

void Response::entity_candidates(const NarrowPhase& narrowphase, const Collision& c, std::span<const EntityState> states,
                                 std::span<const SpherePair> pairs, std::vector<ContactCandidate>& out) const {
  const CollisionModel& ma = narrowphase.model(c.model_a);
  const CollisionModel& mb = narrowphase.model(c.model_b);
  const EntityState& sa = states[c.a];
  const EntityState& sb = states[c.b];
  const Mat3& ra = rotation_[c.a];
  const Mat3& rb = rotation_[c.b];
  out.clear();
  for (const SpherePair& p : pairs) {
    SpherePairContact pair;
    pair.centre_a_m = sa.position_m + ra * ma.spheres[p.node_a].centre_m;
    pair.radius_a_m = ma.spheres[p.node_a].radius_m;
    pair.centre_b_m = sb.position_m + rb * mb.spheres[p.node_b].centre_m;
    pair.radius_b_m = mb.spheres[p.node_b].radius_m;
    pair.feature = key_of(p.node_a, p.node_b);
    out.push_back(contact_of(pair));
  }
}

void Response::touch(std::uint32_t id, const Entity& e, const EntityState& s) {
  if (body_frame_[id] == frame_) return;
  body_frame_[id] = frame_;
  touched_.push_back(id);
  build_body(id, e, s);
}

void Response::build_body(std::uint32_t id, const Entity& e, const EntityState& s) {
  RigidBody& b = bodies_[id];
  b.position_m = s.position_m;
  b.linear_velocity_mps = s.linear_velocity_mps;
  b.angular_velocity_radps = s.angular_velocity_radps;
  b.inverse_mass_per_kg = e.inverse_mass_per_kg;
  b.mass_kg = e.is_static ? 0.0 : e.mass_kg;
  b.restitution = e.material.restitution;
  b.friction = e.material.friction;
  const Mat3& r = rotation_[id] = glm::mat3_cast(s.orientation);
  if (e.isotropic_inertia) {
    // R I R^T = I for a multiple of the identity: no rotation to round.
    assert(is_isotropic(e.inertia_body_kgm2));
    b.inverse_inertia_world = e.inverse_inertia_body;  // zero for static entities
    b.inertia_world = e.is_static ? Mat3(0.0) : e.inertia_body_kgm2;
    return;
  }
  const Mat3 r_t = glm::transpose(r);
  b.inverse_inertia_world = r * e.inverse_inertia_body * r_t;  // zero for static entities
  b.inertia_world = e.is_static ? Mat3(0.0) : r * e.inertia_body_kgm2 * r_t;
}

double Response::reach_of(const CollisionModel& model) {
  // A released model has no spheres and no entity: nothing of it can touch a wall.
  return model.spheres.empty() ? -std::numeric_limits<double>::infinity()
                               : glm::length(model.spheres[0].centre_m) + model.leaf_reach_m[0];
}

ResponseStats Response::apply(NarrowPhase& narrowphase, std::span<const Entity> entities,
                              std::span<EntityState> states, std::span<Vec3> correction_m, ThreadPool* pool) {
  ResponseStats stats;
  entity_count_ = static_cast<std::uint32_t>(entities.size());
  prepare_bodies(entities.size());
  manifolds_.clear();
  reserve_geometric(manifolds_, narrowphase.size() + entities.size());  // room for every entity on a wall
  stats.contact_tests = entity_manifolds(narrowphase, entities, states, pool);
  stats.wall_contacts = wall_manifolds(narrowphase, entities, states, pool);
  stats.contacts = static_cast<std::int64_t>(manifolds_.size());
  // How far the bodies overlap where they touch, before the solve: the sphere overlap the
  // detection left, an entity's and a wall's alike (a plausibility measure, docs/metrics.md).
  for (const ContactManifold& m : manifolds_)
    for (int i = 0; i < m.point_count; ++i) stats.deepest_contact_m = std::max(stats.deepest_contact_m, m.points[i].depth_m);
  solve(entities, states, correction_m, pool, stats);
  remember_impulses();
  return stats;
}

void Response::prepare_bodies(std::size_t entity_count) {
  // The bodies as the solver sees them: entities, then the six walls. An entity's body is
  // built when a contact first needs it (touch), so an entity without contacts costs
  // nothing here; the walls are built every frame.
  ++frame_;
  touched_.clear();
  const std::size_t body_count = entity_count + walls_.size();
  if (bodies_.size() != body_count) {
    bodies_.resize(body_count);
    body_frame_.resize(body_count, 0);
  }
  rotation_.resize(entity_count);
  for (std::size_t w = 0; w < walls_.size(); ++w) {
    const std::size_t body = entity_count + w;
    RigidBody& b = bodies_[body];
    b = RigidBody{};
    b.restitution = settings_.walls.restitution;
    b.friction = settings_.walls.friction;
    body_frame_[body] = frame_;
  }
}

std::int64_t Response::entity_manifolds(NarrowPhase& narrowphase, std::span<const Entity> entities,
                                        std::span<const EntityState> states, ThreadPool* pool) {
  // Entity pairs: one manifold per collision treated as colliding (004 section 3.5), in
  // list order. Their bodies first: which ones, on this thread (two collisions may share an
  // entity); then each built once, on the threads (a body is its entity's alone).
  contact_slots_.clear();
  reserve_geometric(contact_slots_, narrowphase.size());
  reserve_geometric(touched_, 2 * narrowphase.size());
  if (settings_.entity_contacts) {
    for (const std::uint32_t slot : narrowphase.order()) {
      const Collision& c = narrowphase.collision(slot);
      if (c.status != CollisionStatus::colliding) continue;
      if (entities[c.a].is_static && entities[c.b].is_static) continue;
      contact_slots_.push_back(slot);
      for (const std::uint32_t id : {c.a, c.b})
        if (body_frame_[id] != frame_) {
          body_frame_[id] = frame_;
          touched_.push_back(id);
        }
    }
  }
  for_ranges(pool, touched_.size(), 512, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) build_body(touched_[k], entities[touched_[k]], states[touched_[k]]);
  });
  // Then the contact pairs and the manifolds. A collision whose pairs take more tests (a
  // resolved one, finished below where its descent stopped) is done on this thread: the
  // tests may grow on-demand trees and use the narrow phase's own buffers. The others (most,
  // under a tight budget: interrupted and repulsed) only read their frontier, and are split
  // over the threads; each manifold goes to its collision's place in the list.
  manifolds_.resize(contact_slots_.size());
  const auto max_pairs = static_cast<std::size_t>(settings_.max_pairs_per_collision);
  const auto manifold_at = [&](std::size_t j, ContactScratch& scratch) {
    const std::uint32_t slot = contact_slots_[j];
    const std::int64_t tests = narrowphase.contact_pairs(slot, max_pairs, scratch.stack, scratch.pairs);
    const Collision& c = narrowphase.collision(slot);
    entity_candidates(narrowphase, c, states, scratch.pairs, scratch.candidates);
    manifolds_[j] = manifold_of(c.a, c.b, scratch.candidates);
    return tests;
  };
  // Scratch for as many chunks as the pool ever makes, made once: a frame with more
  // contacts than any before must not allocate for a new chunk's scratch.
  while (contact_scratch_.size() < max_chunk_count(pool)) {
    ContactScratch& scratch = contact_scratch_.emplace_back();
    scratch.pairs.reserve(max_pairs + 256);
    scratch.candidates.reserve(max_pairs + 256);
    scratch.stack.reserve(1024);
  }
  std::int64_t contact_tests = 0;
  for (std::size_t j = 0; j < contact_slots_.size(); ++j)
    if (!narrowphase.contact_pairs_read_only(contact_slots_[j])) contact_tests += manifold_at(j, contact_scratch_[0]);
  for_chunks(pool, contact_slots_.size(), 256, [&](std::size_t chunk, std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j)
      if (narrowphase.contact_pairs_read_only(contact_slots_[j])) manifold_at(j, contact_scratch_[chunk]);  // no tests
  });
  return contact_tests;
}

std::int64_t Response::wall_manifolds(NarrowPhase& narrowphase, std::span<const Entity> entities,
                                      std::span<const EntityState> states, ThreadPool* pool) {
  // The walls, for every dynamic entity. Most are far from all six: an entity whose centre
  // is farther from a wall than any of its leaf spheres reaches is passed over without a
  // look at its tree (the walk's own root test, below, would reject it; the margin keeps
  // rounding from ever skipping an entity that test would take). That scan reads only, and
  // is split over the threads; the walks (which may grow on-demand trees) follow on this
  // thread, entity by entity and wall by wall as before.
  reach_by_model_m_.clear();
  double farthest_reach_m = -std::numeric_limits<double>::infinity();
  for (const CollisionModel& model : narrowphase.models()) {
    reach_by_model_m_.push_back(reach_of(model));
    farthest_reach_m = std::max(farthest_reach_m, reach_by_model_m_.back());
  }
  // An entity farther from every wall than any model reaches is passed over on its state
  // alone, without reading its (cold, 256-byte) Entity: in a large world most are, and that
  // read was most of this scan (perf: a cache miss per entity). The test below would reject
  // it anyway: reach + margin grows with reach (reach >= 0), so no model's passes it.
  const double farthest_m = farthest_reach_m + 1e-9 * (1.0 + std::abs(farthest_reach_m));
  if (near_walls_.size() < max_chunk_count(pool)) near_walls_.resize(max_chunk_count(pool));
  for (std::vector<std::uint64_t>& near : near_walls_) near.clear();
  for_chunks(pool, entity_count_, 4096, [&](std::size_t chunk, std::size_t begin, std::size_t end) {
    std::vector<std::uint64_t>& near = near_walls_[chunk];
    for (std::size_t i = begin; i < end; ++i) {
      bool near_a_wall = false;
      for (const Plane& wall : walls_)
        near_a_wall |= glm::dot(wall.normal, states[i].position_m) - wall.offset_m <= farthest_m;
      if (!near_a_wall || entities[i].is_static) continue;
      const double reach_m = reach_by_model_m_[entities[i].model];
      const double margin_m = 1e-9 * (1.0 + std::abs(reach_m));
      for (std::uint32_t w = 0; w < walls_.size(); ++w) {
        const double height_m = glm::dot(walls_[w].normal, states[i].position_m) - walls_[w].offset_m;
        if (height_m <= reach_m + margin_m) near.push_back(std::uint64_t{i} << 32 | w);
      }
    }
  });
  std::int64_t wall_contacts = 0;
  for (const std::vector<std::uint64_t>& chunk : near_walls_)
    for (const std::uint64_t near : chunk) {
      const auto i = static_cast<std::uint32_t>(near >> 32);
      const auto w = static_cast<std::uint32_t>(near & 0xffffffffu);
      candidates_.clear();
      plane_contacts(narrowphase.growable(entities[i].model), states[i], walls_[w], node_stack_, candidates_);
      if (candidates_.empty()) continue;
      touch(i, entities[i], states[i]);
      manifolds_.push_back(manifold_of(entity_count_ + w, i, candidates_));
      ++wall_contacts;
    }
  return wall_contacts;
}

void Response::solve(std::span<const Entity> entities, std::span<EntityState> states, std::span<Vec3> correction_m,
                     ThreadPool* pool, ResponseStats& stats) {
  // One solve over all of them, from the same state (004 section 4), island by island (on
  // the threads), and the dynamic entities' new velocities back to the world.
  const ImpulseSolverStats solved = islands_.solve(bodies_, manifolds_, solver_settings_, correction_m, pool);
  // The entities a manifold names are those touched this frame, each once: written back on
  // the threads, each to its own state.
  for_ranges(pool, touched_.size(), 1024, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::uint32_t body = touched_[k];
      if (entities[body].is_static) continue;
      states[body].linear_velocity_mps = bodies_[body].linear_velocity_mps;
      states[body].angular_velocity_radps = bodies_[body].angular_velocity_radps;
    }
  });
  stats.contact_points = solved.contact_points;
  stats.energy_change_j = solved.energy_change_j;
  stats.bounces_limited = solved.bounces_limited;
  stats.compressions_limited = solved.compressions_limited;
}

void Response::remember_impulses() {
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
}

}  // namespace fovea
