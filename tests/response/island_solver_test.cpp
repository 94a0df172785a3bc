// The island solve (response/island_solver.hpp) against its oracle, one ImpulseSolver solve
// over every manifold at once: the same velocities, corrections, impulses and statistics,
// to the last bit, for 1, 2 and 4 threads.

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "core/rng.hpp"
#include "core/thread_pool.hpp"
#include "response/island_solver.hpp"

using namespace fovea;

namespace {

bool same_bits(const Vec3& a, const Vec3& b) { return std::memcmp(&a, &b, sizeof(Vec3)) == 0; }
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

/// A frame's worth of random contacts: `dynamic` bodies with rotated, non-spherical inertia,
/// then `fixed` static ones (walls, posts), and manifolds joining them into islands of a few
/// bodies each, many touching the same static bodies. `resting` makes every approach slow,
/// so that last frame's impulses are carried over (a warm start, possibly a stale one).
struct Scene {
  std::vector<RigidBody> bodies;
  std::vector<ContactManifold> manifolds;
};

Scene random_scene(Rng& rng, int dynamic, int fixed, bool resting) {
  const auto uniform = [&](double lo, double hi) { return rng.uniform(lo, hi); };
  const auto random_vec = [&](double scale) {
    return Vec3(uniform(-scale, scale), uniform(-scale, scale), uniform(-scale, scale));
  };
  Scene s;
  const double speed = resting ? 0.05 : 3.0;
  for (int i = 0; i < dynamic; ++i) {
    RigidBody b;
    b.position_m = random_vec(20);
    b.linear_velocity_mps = random_vec(speed);
    b.angular_velocity_radps = random_vec(speed);
    const double mass = uniform(0.1, 10);
    b.inverse_mass_per_kg = 1 / mass;
    b.mass_kg = mass;
    const Mat3 r = glm::mat3_cast(rng.rotation());
    const Mat3 body_inverse(Vec3(uniform(0.5, 5), 0, 0), Vec3(0, uniform(0.5, 5), 0), Vec3(0, 0, uniform(0.5, 5)));
    b.inverse_inertia_world = r * body_inverse * glm::transpose(r);
    b.inertia_world = glm::inverse(b.inverse_inertia_world);
    b.restitution = uniform(0, 1);
    b.friction = uniform(0, 1);
    s.bodies.push_back(b);
  }
  for (int i = 0; i < fixed; ++i) {
    RigidBody g;  // static: infinite mass and inertia
    g.position_m = random_vec(20);
    g.restitution = uniform(0, 1);
    g.friction = uniform(0, 1);
    s.bodies.push_back(g);
  }
  // Islands of 1 to 6 dynamic bodies in a random order of body indices, joined by one
  // manifold or more, plus manifolds to static bodies.
  std::vector<std::uint32_t> order(static_cast<std::size_t>(dynamic));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  const auto add = [&](std::uint32_t a, std::uint32_t b) {
    if (rng.below(2) == 0) std::swap(a, b);
    ContactManifold m;
    m.body_a = a;
    m.body_b = b;
    m.normal = rng.unit_vector();
    m.point_count = 1 + static_cast<int>(rng.below(4));
    for (int p = 0; p < m.point_count; ++p) {
      ContactPoint& point = m.points[static_cast<std::size_t>(p)];
      point.point_m = 0.5 * (s.bodies[a].position_m + s.bodies[b].position_m) + random_vec(0.2);
      point.depth_m = uniform(-0.01, 0.05);
      point.feature = rng.below(1000);
      if (rng.below(2) == 0) {
        point.normal_impulse_ns = uniform(0, 5);
        point.friction_impulse_ns = random_vec(1);
      }
    }
    s.manifolds.push_back(m);
  };
  for (std::size_t i = 0; i < order.size();) {
    const std::size_t size = std::min<std::size_t>(1 + rng.below(6), order.size() - i);
    for (std::size_t k = 1; k < size; ++k) add(order[i + k - 1], order[i + k]);
    for (std::size_t k = 2; k < size && rng.below(3) == 0; ++k) add(order[i], order[i + k]);  // a cycle
    if (fixed > 0 && (size == 1 || rng.below(2) == 0))
      add(order[i + rng.below(size)], static_cast<std::uint32_t>(dynamic + rng.below(static_cast<std::size_t>(fixed))));
    if (size == 1 && fixed == 0) add(order[i], order[(i + 1) % order.size()]);
    i += size;
  }
  // Manifolds in a shuffled order, as a frame's list is in pair order, not island order.
  for (std::size_t i = s.manifolds.size(); i > 1; --i) std::swap(s.manifolds[i - 1], s.manifolds[rng.below(i)]);
  return s;
}

}  // namespace

TEST_CASE("IslandSolver: islands solved apart give one solve's velocities, corrections, impulses and statistics, to the bit",
          "[response][islands]") {
  const ImpulseSolverKind kind = GENERATE(ImpulseSolverKind::gauss_seidel, ImpulseSolverKind::jacobi);
  ImpulseSolverSettings settings;
  settings.kind = kind;
  settings.iterations = 8;
  std::int64_t limited_bounces = 0, limited_compressions = 0, warm_started = 0;
  ThreadPool two(2), four(4);
  IslandSolver solvers[3];  // kept across scenes, as the world keeps its own: scratch reused
  Rng rng(26, 0);
  for (int scene = 0; scene < 120; ++scene) {
    INFO("scene " << scene);
    const Scene s = random_scene(rng, 20 + scene * 3, scene % 4, scene % 3 == 0);

    std::vector<RigidBody> whole_bodies = s.bodies;
    std::vector<ContactManifold> whole_manifolds = s.manifolds;
    std::vector<Vec3> whole_corrections(s.bodies.size(), Vec3(0.0));
    const ImpulseSolverStats whole = solve_contacts(whole_bodies, whole_manifolds, settings, whole_corrections);
    limited_bounces += whole.bounces_limited;
    limited_compressions += whole.compressions_limited;
    warm_started += whole.warm_started_points;

    ThreadPool* pools[3] = {nullptr, &two, &four};
    for (int p = 0; p < 3; ++p) {
      INFO("threads " << (p == 0 ? 1 : p == 1 ? 2 : 4));
      std::vector<RigidBody> bodies = s.bodies;
      std::vector<ContactManifold> manifolds = s.manifolds;
      std::vector<Vec3> corrections(s.bodies.size(), Vec3(0.0));
      const ImpulseSolverStats split = solvers[p].solve(bodies, manifolds, settings, corrections, pools[p]);
      CHECK(split.contact_points == whole.contact_points);
      CHECK(split.approaching_points == whole.approaching_points);
      CHECK(split.bouncing_points == whole.bouncing_points);
      CHECK(split.warm_started_points == whole.warm_started_points);
      CHECK(split.bounces_limited == whole.bounces_limited);
      CHECK(split.compressions_limited == whole.compressions_limited);
      CHECK(same_bits(split.energy_change_j, whole.energy_change_j));
      int differing = 0;
      for (std::size_t i = 0; i < bodies.size(); ++i) {
        if (s.bodies[i].inverse_mass_per_kg <= 0) continue;  // static: never written
        differing += same_bits(bodies[i].linear_velocity_mps, whole_bodies[i].linear_velocity_mps) ? 0 : 1;
        differing += same_bits(bodies[i].angular_velocity_radps, whole_bodies[i].angular_velocity_radps) ? 0 : 1;
        differing += same_bits(corrections[i], whole_corrections[i]) ? 0 : 1;
      }
      for (std::size_t m = 0; m < manifolds.size(); ++m)
        for (int k = 0; k < manifolds[m].point_count; ++k) {
          const ContactPoint& a = manifolds[m].points[static_cast<std::size_t>(k)];
          const ContactPoint& b = whole_manifolds[m].points[static_cast<std::size_t>(k)];
          differing += same_bits(a.normal_impulse_ns, b.normal_impulse_ns) ? 0 : 1;
          differing += same_bits(a.friction_impulse_ns, b.friction_impulse_ns) ? 0 : 1;
        }
      CHECK(differing == 0);
    }
  }
  // The scenes reached every path whose sums the split must order as the whole solve does.
  CHECK(warm_started > 0);
  CHECK(limited_bounces > 0);
  CHECK(limited_compressions > 0);
}
