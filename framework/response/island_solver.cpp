#include "response/island_solver.hpp"

#include <algorithm>
#include <cassert>

#include "core/containers.hpp"
#include "core/thread_pool.hpp"

namespace fovea {

ImpulseSolverStats IslandSolver::solve(std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                                       const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m,
                                       ThreadPool* pool) {
  // Islands as the whole solve finds them (ImpulseSolver::find_islands): the smaller root
  // index wins each union, so the islands do not depend on the manifolds' order.
  const auto is_dynamic = [&](std::uint32_t body) { return bodies[body].inverse_mass_per_kg > 0; };
  if (parent_.size() < bodies.size()) parent_.resize(bodies.size());
  for (const ContactManifold& m : manifolds) {
    assert(m.body_a < bodies.size() && m.body_b < bodies.size() && m.body_a != m.body_b);
    assert(is_dynamic(m.body_a) || is_dynamic(m.body_b));
    parent_[m.body_a] = m.body_a;
    parent_[m.body_b] = m.body_b;
  }
  const auto find_root = [&](std::uint32_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];  // path halving
      i = parent_[i];
    }
    return i;
  };
  for (const ContactManifold& m : manifolds) {
    if (!is_dynamic(m.body_a) || !is_dynamic(m.body_b)) continue;
    const std::uint32_t ra = find_root(m.body_a), rb = find_root(m.body_b);
    if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
  }
  keys_.clear();
  reserve_geometric(keys_, manifolds.size());
  for (std::size_t mi = 0; mi < manifolds.size(); ++mi) {
    const ContactManifold& m = manifolds[mi];
    keys_.push_back(std::uint64_t{find_root(is_dynamic(m.body_a) ? m.body_a : m.body_b)} << 32 | mi);
  }
  // By island root, then each island's manifolds in their order.
  std::sort(keys_.begin(), keys_.end());
  start_.clear();
  reserve_geometric(start_, keys_.size() + 1);
  for (std::size_t k = 0; k < keys_.size(); ++k)
    if (k == 0 || keys_[k] >> 32 != keys_[k - 1] >> 32) start_.push_back(static_cast<std::uint32_t>(k));
  const std::size_t island_count = start_.size();
  start_.push_back(static_cast<std::uint32_t>(keys_.size()));

  reserve_geometric(stats_, island_count);
  stats_.assign(island_count, ImpulseSolverStats{});
  // Scratch for as many tasks as the pool ever makes, made once. At least 64 islands a
  // task: most are a pair or two and take microseconds, and waking a thread costs about as
  // much as a few dozen of them.
  if (scratch_.size() < max_chunk_count(pool)) scratch_.resize(max_chunk_count(pool));
  for_chunks(pool, island_count, 64, [&](std::size_t chunk, std::size_t begin, std::size_t end) {
    for (std::size_t island = begin; island < end; ++island)
      solve_island(island, bodies, manifolds, settings, position_correction_m, scratch_[chunk]);
  });

  // The sums in the whole solve's order: islands by root, the bounces' energy of those
  // whose compression held first, then the energy of those scaled back (each island adds to
  // exactly one of the two: ImpulseSolver::apply_restitution, limit_compression).
  ImpulseSolverStats total;
  for (const ImpulseSolverStats& s : stats_) {
    total.contact_points += s.contact_points;
    total.approaching_points += s.approaching_points;
    total.bouncing_points += s.bouncing_points;
    total.warm_started_points += s.warm_started_points;
    total.bounces_limited += s.bounces_limited;
    total.compressions_limited += s.compressions_limited;
    if (s.compressions_limited == 0) total.energy_change_j += s.energy_change_j;
  }
  for (const ImpulseSolverStats& s : stats_)
    if (s.compressions_limited > 0) total.energy_change_j += s.energy_change_j;
  return total;
}

void IslandSolver::solve_island(std::size_t island, std::span<RigidBody> bodies, std::span<ContactManifold> manifolds,
                                const ImpulseSolverSettings& settings, std::span<Vec3> position_correction_m,
                                Scratch& scratch) {
  const std::span<const std::uint64_t> keys(keys_.data() + start_[island], start_[island + 1] - start_[island]);
  // The island's bodies in ascending order, its static ones as copies of their own: the
  // same relative order as in the whole solve, so every sum over bodies runs in that order.
  scratch.body_ids.clear();
  for (const std::uint64_t key : keys) {
    const ContactManifold& m = manifolds[static_cast<std::uint32_t>(key)];
    scratch.body_ids.push_back(m.body_a);
    scratch.body_ids.push_back(m.body_b);
  }
  std::sort(scratch.body_ids.begin(), scratch.body_ids.end());
  scratch.body_ids.erase(std::unique(scratch.body_ids.begin(), scratch.body_ids.end()), scratch.body_ids.end());
  const auto local = [&](std::uint32_t body) {
    return static_cast<std::uint32_t>(std::lower_bound(scratch.body_ids.begin(), scratch.body_ids.end(), body) -
                                      scratch.body_ids.begin());
  };
  scratch.bodies.clear();
  for (const std::uint32_t body : scratch.body_ids) scratch.bodies.push_back(bodies[body]);
  scratch.manifolds.clear();
  for (const std::uint64_t key : keys) {
    ContactManifold m = manifolds[static_cast<std::uint32_t>(key)];
    m.body_a = local(m.body_a);
    m.body_b = local(m.body_b);
    scratch.manifolds.push_back(m);
  }
  reserve_geometric(scratch.corrections, scratch.bodies.size());
  scratch.corrections.assign(scratch.bodies.size(), Vec3(0.0));
  stats_[island] = scratch.solver.solve(scratch.bodies, scratch.manifolds, settings, scratch.corrections);

  // Back: the impulses to the manifolds, the dynamic bodies' velocities and corrections.
  for (std::size_t k = 0; k < keys.size(); ++k)
    manifolds[static_cast<std::uint32_t>(keys[k])].points = scratch.manifolds[k].points;
  for (std::size_t j = 0; j < scratch.body_ids.size(); ++j) {
    const std::uint32_t id = scratch.body_ids[j];
    if (bodies[id].inverse_mass_per_kg <= 0) continue;
    bodies[id].linear_velocity_mps = scratch.bodies[j].linear_velocity_mps;
    bodies[id].angular_velocity_radps = scratch.bodies[j].angular_velocity_radps;
    position_correction_m[id] += scratch.corrections[j];
  }
}

}  // namespace fovea
